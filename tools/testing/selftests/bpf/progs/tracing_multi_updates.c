// SPDX-License-Identifier: GPL-2.0
/* Programs of tracing_multi_updates: a CPU kept busy in the kernel, so that
 * an ordinary detach waits for its grace period, and the programs attached
 * and detached meanwhile or beside a shared image.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char _license[] SEC("license") = "GPL";

/* set by user space: stop now, or after spin_ns in any case */
volatile int stop;
__u64 spin_ns;
/* 1 while spinning, 2 once done; and why it stopped */
int spinning, timed_out;
volatile __u64 sink;

/*
 * Runs (BPF_PROG_TEST_RUN) on one CPU until told to stop: the kernel has
 * no preemption here, so that CPU schedules nothing else meanwhile, and an
 * RCU-tasks grace period cannot end before it stops.
 */
SEC("syscall")
int spin(void *ctx)
{
	__u64 t0 = bpf_ktime_get_ns();
	int i, j;

	spinning = 1;
	bpf_for(j, 0, 1 << 20) {
		bpf_for(i, 0, 1 << 10)
			sink += i;
		if (stop)
			break;
		if (bpf_ktime_get_ns() - t0 > spin_ns) {
			timed_out = 1;
			break;
		}
	}
	spinning = 2;
	return 0;
}

__u64 ordinary1_runs, multi_runs;

SEC("fentry/bpf_fentry_test1")
int BPF_PROG(ordinary1, int a)
{
	ordinary1_runs++;
	return 0;
}

SEC("fentry/bpf_fentry_test3")
int BPF_PROG(ordinary3, char a, int b, __u64 c)
{
	return 0;
}

SEC("fentry.multi")
int multi(void *ctx)
{
	multi_runs++;
	return 0;
}
