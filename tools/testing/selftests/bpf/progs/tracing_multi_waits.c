// SPDX-License-Identifier: GPL-2.0
/*
 * The grace periods a test's process waits for (synchronize_rcu_tasks() is
 * synchronize_rcu() without CONFIG_TASKS_RCU), and how many of them with
 * tramp_multi_mutex held, or ftrace's direct_mutex: a mutex's owner word
 * is the owning task, with flags in the low 3 bits (not so on PREEMPT_RT,
 * whose mutex is an rt_mutex: never counted there). Only waits in the
 * test's process count: a work item's (multi_tidy()) is not seen.
 * tracing_multi_waits_start() (tracing_multi_helpers.c) loads it.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char _license[] SEC("license") = "GPL";

/* Its .bss, as struct tracing_multi_waits_bss (tracing_multi_helpers.c) sees it */
struct {
	__u64 multi_mutex;	/* the mutexes' addresses: 0, nothing counted */
	__u64 direct_mutex;
	int pid;
	int waits;
	int waits_held;		/* tramp_multi_mutex held */
	int waits_direct;	/* direct_mutex held */
} counts;

static __always_inline bool mutex_mine(__u64 mutex)
{
	unsigned long owner = 0;

	bpf_probe_read_kernel(&owner, sizeof(owner), (void *)mutex);
	return (owner & ~0x7UL) == (unsigned long)bpf_get_current_task();
}

static __always_inline void count_wait(void)
{
	if ((bpf_get_current_pid_tgid() >> 32) != counts.pid || !counts.multi_mutex)
		return;
	counts.waits++;
	if (mutex_mine(counts.multi_mutex))
		counts.waits_held++;
	if (counts.direct_mutex && mutex_mine(counts.direct_mutex))
		counts.waits_direct++;
}

SEC("fentry/synchronize_rcu")
int BPF_PROG(wait_rcu)
{
	count_wait();
	return 0;
}

SEC("fentry/synchronize_rcu_tasks_rude")
int BPF_PROG(wait_rude)
{
	count_wait();
	return 0;
}

/* a function of its own with CONFIG_TASKS_RCU only */
SEC("?fentry/synchronize_rcu_tasks")
int BPF_PROG(wait_tasks)
{
	count_wait();
	return 0;
}
