// SPDX-License-Identifier: GPL-2.0
/* Benchmarks of fentry.multi and co. (prog_tests/tracing_multi_bench.c). */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "bpf_experimental.h"

char _license[] SEC("license") = "GPL";

/* Attach benchmark: programs that do nothing. */
SEC("fentry.multi")
int bench_fentry(void *ctx)
{
	return 0;
}

/* tracing_multi_attach_all: counts calls of every function, roughly
 * (not atomic: the test asks only whether calls arrive and stop).
 */
__u64 all_hits;

SEC("?fentry.multi")
int all_fentry(void *ctx)
{
	all_hits++;
	return 0;
}

SEC("kprobe.multi")
int bench_kprobe(void *ctx)
{
	return 0;
}

/*
 * Where the attach and the detach of that link spend their time: ns this
 * process spends in the link's attach (resolving and routing its
 * functions), in the routing of the attach and of the detach, in ftrace's
 * updates within them (a kprobe: ftrace.c is not traceable), and in the
 * grace periods the detach waits for; and ns the link's release work takes
 * once the detach has returned (a kworker), and the grace periods it waits
 * for (bpf_tramp_multi_wait(), which the compiler may inline: the RCU
 * functions it calls).
 */
enum { BD_LINK, BD_ATTACH, BD_DETACH, BD_FTRACE, BD_WAIT, BD_RELEASE, BD_RELEASE_WAIT, BD_NR };
int bd_tgid;
__u32 bd_release_pid;	/* the task running the release work, while it does */
__u64 bd_start[BD_NR], bd_ns[BD_NR];

static __always_inline bool bd_mine(void)
{
	return bd_tgid && (bpf_get_current_pid_tgid() >> 32) == bd_tgid;
}

static __always_inline bool bd_releasing(void)
{
	return bd_release_pid && bd_release_pid == (__u32)bpf_get_current_pid_tgid();
}

/* Start (@in) or end timing bd_ns[@i] */
static __always_inline void bd_time(int i, bool in)
{
	if (in) {
		bd_start[i] = bpf_ktime_get_ns();
	} else if (bd_start[i]) {
		bd_ns[i] += bpf_ktime_get_ns() - bd_start[i];
		bd_start[i] = 0;
	}
}

static __always_inline int bd_enter(int i)
{
	if (bd_mine())
		bd_time(i, true);
	return 0;
}

static __always_inline int bd_exit(int i)
{
	if (bd_mine())
		bd_time(i, false);
	return 0;
}

/* A grace period's wait, within a detach or the release work */
static __always_inline int bd_wait(bool in)
{
	if (bd_releasing()) {
		bd_time(BD_RELEASE_WAIT, in);
		return 0;
	}
	if (!bd_start[BD_DETACH])
		return 0;
	return in ? bd_enter(BD_WAIT) : bd_exit(BD_WAIT);
}

/* Programs at entry and at exit of @fn counting into bd_ns[@i] */
#define BD_PAIR(name, in, out, fn, i)		\
SEC("?" in "/" fn)				\
int bd_##name##_in(void *ctx)			\
{						\
	return bd_enter(i);			\
}						\
SEC("?" out "/" fn)				\
int bd_##name##_out(void *ctx)			\
{						\
	return bd_exit(i);			\
}

BD_PAIR(link, "fentry", "fexit", "bpf_tracing_multi_link_attach", BD_LINK)
BD_PAIR(attach, "fentry", "fexit", "bpf_tramp_multi_link_attach", BD_ATTACH)
BD_PAIR(detach, "fentry", "fexit", "bpf_tramp_multi_link_detach", BD_DETACH)
BD_PAIR(ftrace, "kprobe", "kretprobe", "ftrace_direct_replace", BD_FTRACE)
BD_PAIR(ftrace_nolock, "kprobe", "kretprobe", "ftrace_direct_replace_nolock", BD_FTRACE)

/* The link's release work, in a kworker: while this process times its phases */
SEC("?fentry/multi_release_workfn")
int bd_release_in(void *ctx)
{
	if (bd_tgid) {
		bd_release_pid = (__u32)bpf_get_current_pid_tgid();
		bd_time(BD_RELEASE, true);
	}
	return 0;
}

SEC("?fexit/multi_release_workfn")
int bd_release_out(void *ctx)
{
	if (bd_releasing() && bd_start[BD_RELEASE]) {
		bd_time(BD_RELEASE, false);
		bd_release_pid = 0;
	}
	return 0;
}

/* Programs at entry and at exit of @fn counting its waits into bd_ns[BD_WAIT] */
#define BD_WAIT_PAIR(name, fn)			\
SEC("?fentry/" fn)				\
int bd_##name##_in(void *ctx)			\
{						\
	return bd_wait(true);			\
}						\
SEC("?fexit/" fn)				\
int bd_##name##_out(void *ctx)			\
{						\
	return bd_wait(false);			\
}

BD_WAIT_PAIR(wait_rude, "synchronize_rcu_tasks_rude")
/* synchronize_rcu_tasks() where tasks RCU is not built in */
BD_WAIT_PAIR(wait_rcu, "synchronize_rcu")

/* Memory benchmark: the kernel's count of the bytes of BPF executable
 * images (bpf_jit_current: programs and trampolines, charged at
 * allocation), read by a test run.
 */
static const char jit_current_sym[] = "bpf_jit_current";
__s64 jit_current;

SEC("?syscall")
int read_jit_current(void *ctx)
{
	__u64 addr = 0;

	if (bpf_kallsyms_lookup_name(jit_current_sym, sizeof(jit_current_sym), 0, &addr) ||
	    !addr)
		return 1;
	if (bpf_probe_read_kernel(&jit_current, sizeof(jit_current), (void *)addr))
		return 2;
	return 0;
}

/* Trigger benchmark: the driver calls bpf_get_numa_node_id() in a loop,
 * each program counts the calls it sees (as selftests' bench trig-*).
 */
#define TRIG_LOOPS 1000
__u64 hits;

static int trig_cb(__u32 i, void *ctx)
{
	bpf_get_numa_node_id();
	return 0;
}

SEC("syscall")
int trig_driver(void *ctx)
{
	bpf_loop(TRIG_LOOPS, trig_cb, NULL, 0);
	return 0;
}

/* The fmod_ret runs' driver: bpf_modify_return_test_tp() allows them. */
extern int bpf_modify_return_test_tp(int nonce) __ksym __weak;

static int trig_kfunc_cb(__u32 i, void *ctx)
{
	bpf_modify_return_test_tp(0);
	return 0;
}

SEC("syscall")
int trig_driver_kfunc(void *ctx)
{
	bpf_loop(TRIG_LOOPS, trig_kfunc_cb, NULL, 0);
	return 0;
}

SEC("?fentry/bpf_get_numa_node_id")
int trig_fentry(void *ctx)
{
	hits++;
	return 0;
}

SEC("?fexit/bpf_get_numa_node_id")
int trig_fexit(void *ctx)
{
	hits++;
	return 0;
}

SEC("?fentry.multi")
int trig_fentry_multi(void *ctx)
{
	hits++;
	return 0;
}

SEC("?fexit.multi")
int trig_fexit_multi(void *ctx)
{
	hits++;
	return 0;
}

SEC("?kprobe.multi")
int trig_kprobe_multi(void *ctx)
{
	hits++;
	return 0;
}

SEC("?kprobe/bpf_get_numa_node_id")
int trig_kprobe(void *ctx)
{
	hits++;
	return 0;
}

SEC("?fmod_ret/bpf_modify_return_test_tp")
int trig_fmodret(void *ctx)
{
	hits++;
	return 0;
}

SEC("?fmod_ret.multi")
int trig_fmodret_multi(void *ctx)
{
	hits++;
	return 0;
}

extern bool bpf_session_is_return(void *ctx) __ksym;

/* fsession programs run at entry and exit: a call counts once */
SEC("?fsession/bpf_get_numa_node_id")
int trig_fsession(void *ctx)
{
	if (bpf_session_is_return(ctx))
		hits++;
	return 0;
}

SEC("?fsession.multi")
int trig_fsession_multi(void *ctx)
{
	if (bpf_session_is_return(ctx))
		hits++;
	return 0;
}

/*
 * Typed arguments: what bpf_arg_btf(), bpf_arg_find() and bpf_arg_first()
 * add to a call, beside bpf_get_attach_cookie(), which finds the function
 * the same way. The traced function is bpf_cpumask_test_cpu(u32 cpu,
 * const struct cpumask *cpumask): the type is found at slot 1, after a
 * slot of another type. Each program counts a call only when it got the
 * answer (cookie 1, the struct at slot 1).
 */
extern struct bpf_cpumask *bpf_cpumask_create(void) __ksym __weak;
extern void bpf_cpumask_release(struct bpf_cpumask *cpumask) __ksym __weak;
extern bool bpf_cpumask_test_cpu(u32 cpu, const struct cpumask *cpumask) __ksym __weak;

SEC("syscall")
int trig_driver_typed(void *ctx)
{
	struct bpf_cpumask *mask = bpf_cpumask_create();
	int i;

	if (!mask)
		return 1;
	bpf_for(i, 0, TRIG_LOOPS)
		bpf_cpumask_test_cpu(0, (const struct cpumask *)mask);
	bpf_cpumask_release(mask);
	return 0;
}

SEC("?fentry/bpf_cpumask_test_cpu")
int trig_typed_fentry(void *ctx)
{
	hits++;
	return 0;
}

SEC("?fentry.multi")
int trig_typed_fentry_multi(void *ctx)
{
	hits++;
	return 0;
}

SEC("?fentry.multi")
int trig_typed_cookie(void *ctx)
{
	hits += bpf_get_attach_cookie(ctx);
	return 0;
}

SEC("?fentry.multi")
int trig_typed_arg_btf(void *ctx)
{
	hits += !!bpf_arg_as(ctx, 1, struct cpumask);
	return 0;
}

SEC("?fentry.multi")
int trig_typed_arg_find(void *ctx)
{
	hits += bpf_arg_find_type(ctx, struct cpumask) == 1;
	return 0;
}

/* bpf_arg_first(): find and cast in one call */
SEC("?fentry.multi")
int trig_typed_arg_first(void *ctx)
{
	hits += !!bpf_arg_first(ctx, struct cpumask);
	return 0;
}

/* The same in two calls, two searches: the find, then the cast */
SEC("?fentry.multi")
int trig_typed_arg_find_as(void *ctx)
{
	struct cpumask *m = NULL;
	int n = bpf_arg_find_type(ctx, struct cpumask);

	if (n >= 0)
		m = bpf_arg_btf(ctx, n, bpf_core_type_id_kernel(struct cpumask));
	hits += !!m;
	return 0;
}

/* An ordinary program's call, inlined into a load */
SEC("?fentry/bpf_cpumask_test_cpu")
int trig_typed_fentry_arg_btf(void *ctx)
{
	hits += !!bpf_arg_as(ctx, 1, struct cpumask);
	return 0;
}
