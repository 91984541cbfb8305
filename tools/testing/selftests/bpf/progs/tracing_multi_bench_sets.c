// SPDX-License-Identifier: GPL-2.0
/* Programs of prog_tests/tracing_multi_bench_sets.c: they do nothing, but
 * for the one that counts the calls of each function (its cookie: the
 * function's index) while the benchmark picks its functions, and those
 * that time a thread's lock waits.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char _license[] SEC("license") = "GPL";

SEC("fentry.multi")
int sets_fentry(void *ctx)
{
	return 0;
}

SEC("?fexit.multi")
int sets_fexit(void *ctx)
{
	return 0;
}

SEC("?kprobe.multi")
int sets_kprobe(void *ctx)
{
	return 0;
}

SEC("fentry/bpf_fentry_test1")
int BPF_PROG(ordinary_fentry, int a)
{
	return 0;
}

#define SETS_MAX_FUNCS 65536

__u32 calls[SETS_MAX_FUNCS];

SEC("?fentry.multi")
int sets_count(void *ctx)
{
	__u64 i = bpf_get_attach_cookie(ctx);

	if (i < SETS_MAX_FUNCS)
		calls[i]++;
	return 0;
}

/*
 * The time thread wait_tid waits for contended locks (lock:contention_begin
 * to lock:contention_end), spinning or asleep, by lock: the first
 * WAIT_LOCKS - 1 locks waited for, each in its slot of wait_lock_addr and
 * wait_lock_ns; any other in the last slot (address 0). A contended lock
 * taken while waiting for another (a mutex's wait_lock) is in the wait.
 */
#define WAIT_LOCKS 8

int wait_tid = -1;	/* none until set: 0 is every CPU's idle task */
__u64 wait_lock_addr[WAIT_LOCKS];
__u64 wait_lock_ns[WAIT_LOCKS];
static void *wait_lock;
static __u64 wait_start;

SEC("?tp_btf/contention_begin")
int BPF_PROG(wait_begin, void *lock, unsigned int flags)
{
	if ((__u32)bpf_get_current_pid_tgid() != wait_tid || wait_lock)
		return 0;
	wait_lock = lock;
	wait_start = bpf_ktime_get_ns();
	return 0;
}

SEC("?tp_btf/contention_end")
int BPF_PROG(wait_end, void *lock, int ret)
{
	__u64 ns;
	int i;

	if ((__u32)bpf_get_current_pid_tgid() != wait_tid || wait_lock != lock)
		return 0;
	ns = bpf_ktime_get_ns() - wait_start;
	for (i = 0; i < WAIT_LOCKS - 1; i++) {
		if (wait_lock_addr[i] == (__u64)lock)
			break;
		if (!wait_lock_addr[i]) {
			wait_lock_addr[i] = (__u64)lock;
			break;
		}
	}
	wait_lock_ns[i] += ns;
	wait_lock = NULL;
	return 0;
}
