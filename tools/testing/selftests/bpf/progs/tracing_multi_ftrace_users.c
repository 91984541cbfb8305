// SPDX-License-Identifier: GPL-2.0
/* Programs of tracing_multi_ftrace_users: ftrace's other users count the
 * calls of one thread while fentry.multi links on the same function come
 * and go.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char _license[] SEC("license") = "GPL";

/* the thread whose calls count */
int tid;
__u64 kprobe_hits, kprobe_multi_hits;

static bool mine(void)
{
	return (__u32)bpf_get_current_pid_tgid() == tid;
}

SEC("kprobe/bpf_fentry_test1")
int kprobe_count(struct pt_regs *ctx)
{
	if (mine())
		kprobe_hits++;
	return 0;
}

SEC("kprobe.multi/bpf_fentry_test1")
int kprobe_multi_count(struct pt_regs *ctx)
{
	if (mine())
		kprobe_multi_hits++;
	return 0;
}

/* this thread's calls of bpf_fentry_test1..9, counted by the link that stays */
__u64 seq;

/* on bpf_fentry_test1..9 for the whole test */
SEC("fentry.multi")
int stay(void *ctx)
{
	if (mine())
		seq++;
	return 0;
}

/*
 * Attached and detached in a loop, so that it comes while a link operation
 * is under way: ftrace's list function calls it, on the same call, before
 * the link's trampoline, which counts the call in seq. Seeing the same seq
 * twice is seeing a call twice.
 */
__u64 dup_last = ~0ULL;
__u64 dup_runs, dup_hits;

SEC("kprobe.multi")
int dup_check(struct pt_regs *ctx)
{
	if (!mine())
		return 0;
	dup_runs++;
	if (seq == dup_last)
		dup_hits++;
	dup_last = seq;
	return 0;
}

/* attached and detached in a loop: bpf_fentry_test1 moves between images */
SEC("fentry.multi")
int churn(void *ctx)
{
	return 0;
}

/* its BPF_PROG_TEST_RUN calls bpf_fentry_test1 once */
SEC("fentry/bpf_fentry_test2")
int BPF_PROG(trigger, int a, __u64 b)
{
	return 0;
}
