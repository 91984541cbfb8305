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
/* 1 while spinning, 2 once done; and why it stopped, after how long */
int spinning, timed_out;
__u64 spun_ns;
volatile __u64 sink;

/*
 * Runs (BPF_PROG_TEST_RUN) on one CPU until told to stop, or spin_ns at
 * most: the kernel has no preemption here, so that CPU schedules nothing
 * else meanwhile, and an RCU-tasks grace period cannot end before it
 * stops. Only time or the flag ends it, however fast the CPU: the loops'
 * bounds (2^50 rounds) are beyond reach.
 */
SEC("syscall")
int spin(void *ctx)
{
	__u64 t0 = bpf_ktime_get_ns();
	bool done = false;
	int i, j, k;

	spinning = 1;
	bpf_for(k, 0, 1 << 20) {
		bpf_for(j, 0, 1 << 20) {
			bpf_for(i, 0, 1 << 10)
				sink += i;
			if (!stop && bpf_ktime_get_ns() - t0 > spin_ns)
				timed_out = 1;
			done = stop || timed_out;
			if (done)
				break;
		}
		if (done)
			break;
	}
	spun_ns = bpf_ktime_get_ns() - t0;
	spinning = 2;
	return 0;
}

/*
 * churn: a link over thousands of functions, attached and detached in a
 * loop, and the ordinary programs timed meanwhile: an fentry program on
 * bpf_fentry_test1 and an extension of lat_sub() in lat_target.
 */
int lat_pid;
__u64 lat_fentry_runs;

SEC("fentry.multi")
int churn(void *ctx)
{
	return 0;
}

SEC("fentry/bpf_fentry_test1")
int BPF_PROG(lat_fentry, int a)
{
	if ((bpf_get_current_pid_tgid() >> 32) == lat_pid)
		lat_fentry_runs++;
	return 0;
}

__noinline int lat_sub(int x)
{
	return x + 1;
}

SEC("tc")
int lat_target(struct __sk_buff *skb)
{
	return lat_sub(skb->len);
}

/* loaded by its own skeleton, with lat_target's fd as attach target */
SEC("?freplace/lat_sub")
int lat_ext(int x)
{
	return 1000;
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

