// SPDX-License-Identifier: GPL-2.0
/* tracing_multi_hardening/livepatch: what multi and ordinary programs see
 * of bpf_testmod_lp_target() (returns a + 1, live-patched a + 100) and of
 * bpf_testmod_fentry_test1() (a + 1, never patched).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

char _license[] SEC("license") = "GPL";

/* kallsyms addresses, set by user space */
const volatile __u64 lp_addr, t1_addr;

/* [0]: bpf_testmod_lp_target, [1]: bpf_testmod_fentry_test1 */
__u64 entry_hits[2], entry_arg[2], entry_cookie[2];
__u64 exit_hits[2], exit_ret[2], exit_cookie[2];
__u64 ord_hits, ord_ret;
__u64 bad_ip;
/* lp_race: calls of bpf_testmod_lp_target(5) seen, and wrong values */
__u64 race_calls, bad_ret, bad_cookie;

static void race_check_ret(__u64 ret)
{
	/* the original body or the patched one, nothing else */
	if ((int)ret != 6 && (int)ret != 105)
		bad_ret++;
}

static int func_slot(void *ctx)
{
	__u64 ip = bpf_get_func_ip(ctx);

	if (ip == lp_addr)
		return 0;
	if (ip == t1_addr)
		return 1;
	bad_ip = ip;
	return -1;
}

SEC("fentry.multi")
int lp_entry(void *ctx)
{
	int i = func_slot(ctx);
	__u64 a = 0;

	if (i < 0 || i > 1)
		return 0;
	entry_hits[i]++;
	bpf_get_func_arg(ctx, 0, &a);
	entry_arg[i] = a;
	entry_cookie[i] = bpf_get_attach_cookie(ctx);
	if (entry_cookie[i] != 1000 + i)
		bad_cookie++;
	return 0;
}

SEC("fexit.multi")
int lp_exit(void *ctx)
{
	int i = func_slot(ctx);
	__u64 ret = 0;

	if (i < 0 || i > 1)
		return 0;
	exit_hits[i]++;
	bpf_get_func_ret(ctx, &ret);
	exit_ret[i] = ret;
	exit_cookie[i] = bpf_get_attach_cookie(ctx);
	if (exit_cookie[i] != 1000 + i)
		bad_cookie++;
	if (i == 0) {
		race_calls++;
		race_check_ret(ret);
	}
	return 0;
}

SEC("fexit/bpf_testmod_lp_target")
int BPF_PROG(lp_ord_exit, int a, int ret)
{
	ord_hits++;
	ord_ret = ret;
	race_check_ret(ret);
	return 0;
}

/*
 * livepatch_fault: this process's fail-nth countdown (task_struct's
 * fail_nth, with CONFIG_FAULT_INJECTION) when ftrace first calls an
 * image's IPMODIFY callback, and when it last returns.
 */
struct task_struct___fi {
	unsigned int fail_nth;
} __attribute__((preserve_access_index));

int fault_pid;
__u32 cb_calls, cb_nth_entry, cb_nth_exit;

static __u32 fail_nth(void)
{
	struct task_struct___fi *t = (void *)bpf_get_current_task_btf();

	if (!bpf_core_field_exists(t->fail_nth))
		return 0;
	return BPF_CORE_READ(t, fail_nth);
}

static void cb_entry(void)
{
	if ((bpf_get_current_pid_tgid() >> 32) != fault_pid)
		return;
	if (!cb_calls++)
		cb_nth_entry = fail_nth();
}

static void cb_exit(void)
{
	if ((bpf_get_current_pid_tgid() >> 32) == fault_pid)
		cb_nth_exit = fail_nth();
}

/* a shared image's callback */
SEC("fentry/shared_ops_func")
int BPF_PROG(lp_cb_entry)
{
	cb_entry();
	return 0;
}

SEC("fexit/shared_ops_func")
int BPF_PROG(lp_cb_exit)
{
	cb_exit();
	return 0;
}

/* an own image's callback (an ordinary program on the function) */
SEC("fentry/bpf_tramp_ftrace_ops_func")
int BPF_PROG(lp_own_cb_entry)
{
	cb_entry();
	return 0;
}

SEC("fexit/bpf_tramp_ftrace_ops_func")
int BPF_PROG(lp_own_cb_exit)
{
	cb_exit();
	return 0;
}
