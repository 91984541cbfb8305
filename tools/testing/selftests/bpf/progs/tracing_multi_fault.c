// SPDX-License-Identifier: GPL-2.0
/* Programs of tracing_multi_fault: links attached and detached while the
 * kernel's allocations fail one by one. Each program counts its calls per
 * function (bpf_fentry_test1..9), from the test's own process only.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "tracing_multi_funcs.h"

char _license[] SEC("license") = "GPL";

int pid;
__u64 keep_hits[10], entry_hits[10], exit_hits[10], plain_hits;

static __always_inline void count(__u64 *hits, void *ctx)
{
	int i;

	if ((bpf_get_current_pid_tgid() >> 32) != pid)
		return;
	i = func_index(bpf_get_func_ip(ctx));
	if (i > 0 && i < 10)
		__sync_fetch_and_add(&hits[i], 1);
}

/* Attached before the faults, on every function: must keep running. */
SEC("fentry.multi")
int fi_keep(void *ctx)
{
	count(keep_hits, ctx);
	return 0;
}

SEC("fentry.multi")
int fi_entry(void *ctx)
{
	count(entry_hits, ctx);
	return 0;
}

SEC("fexit.multi")
int fi_exit(void *ctx)
{
	count(exit_hits, ctx);
	return 0;
}

/* An ordinary program: its function gets an image of its own. */
SEC("fentry/bpf_fentry_test2")
int BPF_PROG(fi_plain, int a, __u64 b)
{
	if ((bpf_get_current_pid_tgid() >> 32) == pid)
		plain_hits++;
	return 0;
}

/*
 * The grace periods the test's process waits for (synchronize_rcu_tasks()
 * is synchronize_rcu() without CONFIG_TASKS_RCU), and how many of them
 * with tramp_multi_mutex (at multi_mutex) held: its owner word is the
 * owning task, with flags in the low 3 bits (not so on PREEMPT_RT, whose
 * mutex is an rt_mutex: never counted there). Only waits in the test's
 * process count: a work item's (multi_tidy()) is not seen.
 */
__u64 multi_mutex;
int waits, waits_held;
/* the same for ftrace's direct_mutex (at direct_mutex, if found) */
__u64 direct_mutex;
int waits_direct;

static __always_inline bool mutex_mine(__u64 mutex)
{
	unsigned long owner = 0;

	bpf_probe_read_kernel(&owner, sizeof(owner), (void *)mutex);
	return (owner & ~0x7UL) == (unsigned long)bpf_get_current_task();
}

static __always_inline void count_wait(void)
{
	if ((bpf_get_current_pid_tgid() >> 32) != pid || !multi_mutex)
		return;
	waits++;
	if (mutex_mine(multi_mutex))
		waits_held++;
	if (direct_mutex && mutex_mine(direct_mutex))
		waits_direct++;
}

SEC("fentry/synchronize_rcu")
int BPF_PROG(fi_wait_rcu)
{
	count_wait();
	return 0;
}

SEC("fentry/synchronize_rcu_tasks_rude")
int BPF_PROG(fi_wait_rude)
{
	count_wait();
	return 0;
}

SEC("?fentry/synchronize_rcu_tasks")
int BPF_PROG(fi_wait_tasks)
{
	count_wait();
	return 0;
}
