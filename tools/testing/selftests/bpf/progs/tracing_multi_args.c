// SPDX-License-Identifier: GPL-2.0
/* bpf_arg() and bpf_ret_value() in ordinary and multi fentry, fexit and
 * fmod_ret programs, on functions of 0 to 6 arguments: the kernel's
 * bpf_fentry_test1..6 (1..6 arguments) and bpf_testmod_multi_noargs (none).
 * Every program files what it reads under the traced function's argument
 * count, which tells those functions apart.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "tracing_multi_funcs.h"

char _license[] SEC("license") = "GPL";

#define NR_SLOTS 8	/* six arguments and two past any function's last */

enum { MULTI_ENTRY, MULTI_EXIT, ENTRY, EXIT, MODRET_MULTI, MODRET, NR_KINDS };

__u64 hits[NR_KINDS][7];
__u64 args[NR_KINDS][7][NR_SLOTS];
__u64 far[NR_KINDS][7];		/* bpf_arg(ctx, 1000) */
__u64 ret[NR_KINDS][7];
__u64 bad;

static __always_inline void record(void *ctx, int kind, bool has_ret)
{
	__u64 n = bpf_get_func_arg_cnt(ctx);
	int i;

	if (n > 6) {
		bad++;
		return;
	}
	hits[kind][n]++;
	for (i = 0; i < NR_SLOTS; i++)
		args[kind][n][i] = bpf_arg(ctx, i);
	far[kind][n] = bpf_arg(ctx, 1000);
	if (has_ret)
		ret[kind][n] = bpf_ret_value(ctx);
}

SEC("fentry.multi")
int multi_entry(void *ctx)
{
	if (!mine())
		return 0;
	record(ctx, MULTI_ENTRY, false);
	return 0;
}

SEC("fexit.multi")
int multi_exit(void *ctx)
{
	if (!mine())
		return 0;
	record(ctx, MULTI_EXIT, true);
	return 0;
}

SEC("fentry/bpf_fentry_test3")
int entry3(void *ctx)
{
	if (!mine())
		return 0;
	record(ctx, ENTRY, false);
	return 0;
}

SEC("fexit/bpf_fentry_test6")
int exit6(void *ctx)
{
	if (!mine())
		return 0;
	record(ctx, EXIT, true);
	return 0;
}

SEC("fexit/bpf_testmod_multi_noargs")
int exit0(void *ctx)
{
	if (!mine())
		return 0;
	record(ctx, EXIT, true);
	return 0;
}

/* bpf_modify_return_test(int a, int *b): 2 arguments */
SEC("fmod_ret.multi/bpf_modify_return_test")
int modret_multi(void *ctx)
{
	if (!mine())
		return 0;
	record(ctx, MODRET_MULTI, true);
	return 0;
}

SEC("fmod_ret/bpf_modify_return_test")
int modret(void *ctx)
{
	if (!mine())
		return 0;
	record(ctx, MODRET, true);
	return 0;
}

/* Direct reads of three u64 slots: only functions of 3 or more arguments. */
__u64 direct3[7][3];

SEC("fentry.multi")
int BPF_PROG(direct_abc, __u64 a, __u64 b, __u64 c)
{
	__u64 n = bpf_get_func_arg_cnt(ctx);

	if (!mine())
		return 0;

	if (n < 3 || n > 6) {
		bad++;
		return 0;
	}
	direct3[n][0] = a;
	direct3[n][1] = b;
	direct3[n][2] = c;
	return 0;
}
