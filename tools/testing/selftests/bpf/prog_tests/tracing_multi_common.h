/* SPDX-License-Identifier: GPL-2.0 */
/* What the tracing_multi tests share: the bpf_fentry_test1..9 functions,
 * debugfs counters and switches, and (tracing_multi_helpers.c) the list of
 * every function fentry.multi can take.
 */
#ifndef __TRACING_MULTI_COMMON_H
#define __TRACING_MULTI_COMMON_H

#include <test_progs.h>
#include <bpf/btf.h>
#include "tracing_multi_helpers.h"

#define NR_FUNCS 9

/* BTF ids of bpf_fentry_test1..9, in that order. */
static inline int fentry_test_ids(__u32 *ids)
{
	struct btf *btf = btf__load_vmlinux_btf();
	char name[32];
	int i, id;

	if (!ASSERT_OK_PTR(btf, "btf__load_vmlinux_btf"))
		return -1;
	for (i = 0; i < NR_FUNCS; i++) {
		snprintf(name, sizeof(name), "bpf_fentry_test%d", i + 1);
		id = btf__find_by_name_kind(btf, name, BTF_KIND_FUNC);
		if (!ASSERT_GT(id, 0, name)) {
			btf__free(btf);
			return -1;
		}
		ids[i] = id;
	}
	btf__free(btf);
	return 0;
}

/* Shared and own images, as <debugfs>/bpf_multi_trampolines lists them. */
static inline int count_multi_tramps(int *shared, int *own)
{
	FILE *f = fopen("/sys/kernel/debug/bpf_multi_trampolines", "r");
	char line[256];

	*shared = *own = 0;
	if (!ASSERT_OK_PTR(f, "open bpf_multi_trampolines"))
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "shared ", 7) == 0)
			(*shared)++;
		else if (strncmp(line, "own ", 4) == 0)
			(*own)++;
	}
	fclose(f);
	return 0;
}

/* BPF_PROG_TEST_RUN of a tracing program calls bpf_fentry_test1..9. */
static inline void test_run(struct bpf_program *prog)
{
	LIBBPF_OPTS(bpf_test_run_opts, topts);

	ASSERT_OK(bpf_prog_test_run_opts(bpf_program__fd(prog), &topts), "test_run");
}

/* tracing_multi.c: its subtests, which tracing_multi_ibt_mode runs again */
void tracing_multi_run_subtests(void);
/* tracing_multi_hardening.c: its live patch subtest */
void tracing_multi_test_livepatch(void);
/* if set, called where the live-patched function has an own image with fexit programs */
extern void (*tracing_multi_lp_own_check)(const char *step);
/* tracing_multi_fault.c: grace periods this process waits for (and with tramp_multi_mutex) */
struct tracing_multi_waits;
struct tracing_multi_waits *tracing_multi_waits_start(void);
int tracing_multi_waits_read(struct tracing_multi_waits *w, int *waits, int *held);
int tracing_multi_waits_direct(struct tracing_multi_waits *w);
void tracing_multi_waits_end(struct tracing_multi_waits *w);

/*
 * Debug switch (Y or N): trampolines call the traced function by returning
 * into it, as the x86 JIT does where IBT is enforced (BPF_TRAMP_F_CALL_BY_RETURN).
 */
#define CALL_BY_RETURN_KNOB "/sys/kernel/debug/bpf_tramp_call_by_return"

/* Fault injection and debug switches the hardening tests share. */
static inline int write_file(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY), n;

	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	close(fd);
	return n == strlen(val) ? 0 : -EIO;
}

/*
 * Fault injection fails allocations of any size, sleeping or not, and
 * quietly (a stack dump per failure would fill the console). failslab
 * ignores sleeping allocations by default: without this, GFP_KERNEL ones
 * succeed.
 */
static inline int fault_knobs_set(void)
{
	static const char * const knobs[][2] = {
		{ "/sys/kernel/debug/failslab/ignore-gfp-wait", "N" },
		{ "/sys/kernel/debug/failslab/verbose", "0" },
		{ "/sys/kernel/debug/fail_page_alloc/ignore-gfp-wait", "N" },
		{ "/sys/kernel/debug/fail_page_alloc/ignore-gfp-highmem", "N" },
		{ "/sys/kernel/debug/fail_page_alloc/min-order", "0" },
		{ "/sys/kernel/debug/fail_page_alloc/verbose", "0" },
	};
	int i;

	for (i = 0; i < ARRAY_SIZE(knobs); i++)
		if (!ASSERT_OK(write_file(knobs[i][0], knobs[i][1]), knobs[i][0]))
			return -1;
	return 0;
}

/*
 * Every allocation of this task fails while make-it-fail is 1: failslab
 * and fail_page_alloc with probability 100 for the tasks that ask.
 */
static inline int fault_all_set(bool on)
{
	static const char * const attrs[] = { "failslab", "fail_page_alloc" };
	static int mif_fd = -1;
	char path[128];
	int i, err = 0;

	if (mif_fd < 0)
		mif_fd = open("/proc/thread-self/make-it-fail", O_RDWR);
	if (!ASSERT_GE(mif_fd, 0, "open make-it-fail"))
		return -1;
	if (on && fault_knobs_set())
		return -1;
	if (!on && pwrite(mif_fd, "0", 1, 0) != 1)
		err = -errno;
	/* never probability 100 without the task filter: every task would fail */
	for (i = 0; i < ARRAY_SIZE(attrs) && !err; i++) {
		snprintf(path, sizeof(path), "/sys/kernel/debug/%s/%s", attrs[i],
			 on ? "task-filter" : "probability");
		err = write_file(path, on ? "Y" : "0");
		snprintf(path, sizeof(path), "/sys/kernel/debug/%s/times", attrs[i]);
		err = err ?: write_file(path, "-1");
		snprintf(path, sizeof(path), "/sys/kernel/debug/%s/%s", attrs[i],
			 on ? "probability" : "task-filter");
		err = err ?: write_file(path, on ? "100" : "N");
	}
	/* last: from here on this task's allocations fail */
	if (on && !err && pwrite(mif_fd, "1", 1, 0) != 1)
		err = -errno;
	return ASSERT_OK(err, on ? "every allocation fails" : "allocations work") ? 0 : -1;
}

/*
 * Executable memory in /proc/vmallocinfo, by the function that allocated
 * it: bpf_prog_packs (2 MiB at a time, shared by every BPF image) in
 * *@pack_kb, ftrace's own trampolines (a page each) in *@exec_kb.
 */
static inline int tracing_multi_exec_kb(long *pack_kb, long *exec_kb)
{
	FILE *f = fopen("/proc/vmallocinfo", "r");
	long page_kb = sysconf(_SC_PAGESIZE) / 1024, kb;
	char line[512], caller[256], *p;

	if (!f)
		return -1;
	*pack_kb = 0;
	*exec_kb = 0;
	while (fgets(line, sizeof(line), f)) {
		p = strstr(line, " pages=");
		if (!p || sscanf(line, "%*s %*s %255s", caller) != 1)
			continue;
		kb = strtol(p + 7, NULL, 10) * page_kb;
		if (!strncmp(caller, "bpf_prog_pack_alloc+", 20) ||
		    !strncmp(caller, "alloc_new_pack+", 15) ||
		    !strncmp(caller, "bpf_jit_alloc_exec+", 19))
			*pack_kb += kb;
		else if (!strncmp(caller, "arch_ftrace_update_trampoline+", 30) ||
			 !strncmp(caller, "alloc_tramp+", 12) ||
			 !strncmp(caller, "create_trampoline+", 18))
			*exec_kb += kb;
	}
	fclose(f);
	return 0;
}

/* Images listed in <debugfs>/bpf_multi_trampolines (shared and own). */
static inline int tracing_multi_count_images(void)
{
	FILE *f = fopen("/sys/kernel/debug/bpf_multi_trampolines", "r");
	char line[256];
	int n = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		n += !strncmp(line, "shared ", 7) || !strncmp(line, "own ", 4);
	fclose(f);
	return n;
}

/* A counter of the test kernels' ftrace in debugfs; -1 without it. */
/* The number in the file at @path, or -1. */
static inline long read_long_file(const char *path)
{
	long n = -1;
	FILE *f;

	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%ld", &n) != 1)
		n = -1;
	fclose(f);
	return n;
}

static inline long ftrace_debugfs_counter(const char *name)
{
	char path[128];

	snprintf(path, sizeof(path), "/sys/kernel/debug/%s", name);
	return read_long_file(path);
}

/*
 * <debugfs>/ftrace_call_sites_updated: call sites ftrace rewrote so far
 * (test kernels, CONFIG_FTRACE_DIRECT_VERIFY); -1 without it.
 */
static inline long ftrace_sites_updated(void)
{
	return ftrace_debugfs_counter("ftrace_call_sites_updated");
}

/* <debugfs>/ftrace_records_visited: records ftrace's updates looked at so far. */
static inline long ftrace_records_visited(void)
{
	return ftrace_debugfs_counter("ftrace_records_visited");
}

/* <debugfs>/bpf_tramp_images_dying: images put and not freed yet. */
static inline long tramp_images_dying(void)
{
	return ftrace_debugfs_counter("bpf_tramp_images_dying");
}

/*
 * Wait up to @ms milliseconds for the images put so far to be freed (their
 * RCU and RCU-tasks waits done). Returns the count left: 0 once all are,
 * -1 without the counter.
 */
static inline long tramp_images_wait_freed(int ms)
{
	long n = tramp_images_dying();

	for (; n > 0 && ms > 0; ms -= 20) {
		usleep(20 * 1000);
		n = tramp_images_dying();
	}
	return n;
}

/* <debugfs>/bpf_multi_tidy_hold: stale functions stay until released. */
static inline int tidy_hold(bool on)
{
	return ASSERT_OK(write_file("/sys/kernel/debug/bpf_multi_tidy_hold", on ? "1" : "0"),
			 "bpf_multi_tidy_hold") ? 0 : -1;
}

#endif
