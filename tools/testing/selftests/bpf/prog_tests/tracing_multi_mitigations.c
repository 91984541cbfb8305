// SPDX-License-Identifier: GPL-2.0
/*
 * Shared fexit/fmod_ret.multi trampolines on a host with retpolines and
 * call depth tracking (make check's CONFIG_VARIANT=mitigations guest): the
 * trampoline calls the traced function through a register, and that call
 * must be made as the kernel makes its own, through the retpoline thunk
 * and counted by call depth tracking. CALL_THUNKS_DEBUG's per-CPU counters
 * show it: a traced call through a multi trampoline must leave calls and
 * returns as a traced call through an ordinary trampoline of the same
 * kind does (which calls the function directly, counted). An uncounted
 * call leaves one call fewer per traced call. The by_return subtest does
 * it again with the trampolines calling the function as where IBT is
 * enforced, by returning into it. There the count must follow the return
 * stack buffer, which ends that traced call as it began: the return into
 * the body pops the entry the patched call left, where an ordinary
 * trampoline leaves it (one return more per traced call than the ordinary
 * trampoline's count; a counted call into the body would hide it and let
 * the count run ahead of the buffer).
 */
#define _GNU_SOURCE
#include <sched.h>
#include <test_progs.h>
#include "tracing_multi_common.h"
#include "tracing_multi_mitigations.skel.h"

#define CALLTHUNKS_CPU0	"/sys/kernel/debug/callthunks/cpu0"
#define RUNS		2000

static bool file_has(const char *path, const char *text)
{
	char buf[256] = {};
	int fd = open(path, O_RDONLY);
	bool has;

	if (fd < 0)
		return false;
	has = read(fd, buf, sizeof(buf) - 1) > 0 && strstr(buf, text);
	close(fd);
	return has;
}

/* CPU 0's counts of calls and returns (call depth tracking). */
static int depth_counts(__u64 *calls, __u64 *rets)
{
	FILE *f = fopen(CALLTHUNKS_CPU0, "r");
	int n;

	if (!ASSERT_OK_PTR(f, "open " CALLTHUNKS_CPU0))
		return -1;
	n = fscanf(f, "C: %llu R: %llu", calls, rets);
	fclose(f);
	return ASSERT_EQ(n, 2, "callthunks counts") ? 0 : -1;
}

/* Returns minus calls over RUNS test runs of @prog. */
static long long imbalance(struct bpf_program *prog)
{
	LIBBPF_OPTS(bpf_test_run_opts, topts);
	__u64 c0, r0, c1, r1;
	int i, fd = bpf_program__fd(prog);

	if (depth_counts(&c0, &r0))
		return LLONG_MIN;
	for (i = 0; i < RUNS; i++)
		bpf_prog_test_run_opts(fd, &topts);
	if (depth_counts(&c1, &r1))
		return LLONG_MIN;
	return (long long)(r1 - r0) - (long long)(c1 - c0);
}

/*
 * Returns minus calls per traced call: @prog attached (a multi program by
 * @pattern, else an ordinary one), less what the same runs give without it.
 */
static double depth_per_call(struct bpf_program *prog, const char *pattern, __u64 *runs)
{
	struct bpf_link *link;
	long long base, traced;

	base = imbalance(prog);
	if (pattern)
		link = bpf_program__attach_tracing_multi(prog, pattern, NULL);
	else
		link = bpf_program__attach(prog);
	if (!ASSERT_OK_PTR(link, "attach"))
		return 1e9;
	*runs = 0;
	traced = imbalance(prog);
	bpf_link__destroy(link);
	if (!ASSERT_GE(*runs, RUNS, "program runs") || base == LLONG_MIN || traced == LLONG_MIN)
		return 1e9;
	return (double)(traced - base) / *runs;
}

/*
 * Returns minus calls per traced call through @multi must be @more than
 * through @ord: 0 for a call through a register, 1 for a call by return.
 */
static void test_kind(struct bpf_program *multi, const char *pattern, __u64 *multi_runs,
		      struct bpf_program *ord, __u64 *ord_runs, const char *name, int more)
{
	double m = depth_per_call(multi, pattern, multi_runs);
	double o = depth_per_call(ord, NULL, ord_runs);

	printf("%s: returns - calls per traced call: multi %.3f, ordinary %.3f (%d runs each)\n",
	       name, m, o, RUNS);
	/* an uncounted call would make it one more, a counted one less */
	ASSERT_TRUE(m - o - more < 0.25 && o + more - m < 0.25,
		    more ? "multi leaves no return stack entry behind" :
			   "multi counts calls as ordinary trampolines do");
}

/* serial: it counts every call on CPU 0, and flips a global switch */
void serial_test_tracing_multi_mitigations(void)
{
	struct tracing_multi_mitigations *skel;
	cpu_set_t cpus;

	if (access(CALLTHUNKS_CPU0, F_OK) ||
	    !file_has("/sys/devices/system/cpu/vulnerabilities/retbleed", "Stuffing") ||
	    !file_has("/sys/devices/system/cpu/vulnerabilities/spectre_v2", "Retpolines")) {
		printf("%s: needs retpolines and call depth tracking\n", __func__);
		test__skip();
		return;
	}
	CPU_ZERO(&cpus);
	CPU_SET(0, &cpus);
	if (!ASSERT_OK(sched_setaffinity(0, sizeof(cpus), &cpus), "pin to CPU 0"))
		return;
	skel = tracing_multi_mitigations__open_and_load();
	if (!ASSERT_OK_PTR(skel, "open_and_load"))
		goto out;
	if (test__start_subtest("fexit_multi"))
		test_kind(skel->progs.mit_exit, "bpf_fentry_test1", &skel->bss->exit_runs,
			  skel->progs.ord_exit, &skel->bss->ord_exit_runs, "fexit.multi", 0);
	if (test__start_subtest("fmod_ret_multi"))
		test_kind(skel->progs.mit_modret, "bpf_modify_return_test",
			  &skel->bss->modret_runs, skel->progs.ord_modret,
			  &skel->bss->ord_modret_runs, "fmod_ret.multi", 0);
	/* as an IBT host calls: by returning into the function */
	if (test__start_subtest("by_return") &&
	    ASSERT_OK(tracing_multi_write_file(CALL_BY_RETURN_KNOB, "Y"),
		      "set " CALL_BY_RETURN_KNOB)) {
		test_kind(skel->progs.mit_exit, "bpf_fentry_test1", &skel->bss->exit_runs,
			  skel->progs.ord_exit, &skel->bss->ord_exit_runs,
			  "fexit.multi by return", 1);
		test_kind(skel->progs.mit_modret, "bpf_modify_return_test",
			  &skel->bss->modret_runs, skel->progs.ord_modret,
			  &skel->bss->ord_modret_runs, "fmod_ret.multi by return", 1);
		tracing_multi_write_file(CALL_BY_RETURN_KNOB, "N");
	}
	tracing_multi_mitigations__destroy(skel);
out:
	CPU_ZERO(&cpus);
	CPU_SET(0, &cpus);
	CPU_SET(1, &cpus);
	sched_setaffinity(0, sizeof(cpus), &cpus);
}
