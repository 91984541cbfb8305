// SPDX-License-Identifier: GPL-2.0
/* fentry.multi and fexit.multi on functions with arguments on the stack
 * (x86-64: more than six) and with 16-byte struct arguments: direct ctx
 * reads, bpf_get_func_arg() and bpf_get_func_ret() follow the argument
 * slots, as for ordinary fentry/fexit. The bpf_testmod functions used
 * return the sum of their arguments, each of which fits in its low byte.
 */
#include <vmlinux.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "tracing_multi_funcs.h"

char _license[] SEC("license") = "GPL";

/* indexed by bpf_get_func_arg_cnt(): bpf_testmod_fentry_test7, _test11 */
__u64 hits[2][12], sums[2][12], slot6[2][12], rets[12];
/* indexed by the first slot - 1: bpf_testmod_test_struct_arg_2, _arg_1 */
__u64 struct_hits[2], struct_sums[2], struct_rets[2];
int bad;

/* Sum of the low bytes of the first @n argument slots. */
static __u64 sum_slots(void *ctx, __u64 n)
{
	__u64 i, v, s = 0;

	for (i = 0; i < 12 && i < n; i++) {
		if (bpf_get_func_arg(ctx, i, &v))
			bad++;
		s += (__u8)v;
	}
	return s;
}

static void record(void *ctx, int kind, __u64 g)
{
	__u64 n = bpf_get_func_arg_cnt(ctx), ret = 0;

	if (n >= 12) {
		bad++;
		return;
	}
	hits[kind][n]++;
	sums[kind][n] = sum_slots(ctx, n);
	slot6[kind][n] = (__u8)g;	/* read from ctx directly */
	if (kind && !bpf_get_func_ret(ctx, &ret))
		rets[n] = (int)ret;
}

/* The module's BTF is the programs' attach BTF (attached by its ids). */
SEC("fentry.multi/bpf_testmod:bpf_testmod_fentry_test*")
int BPF_PROG(many_entry, __u64 a, __u64 b, __u64 c, __u64 d, __u64 e, __u64 f, __u64 g)
{
	if (!mine())
		return 0;
	record(ctx, 0, g);
	return 0;
}

SEC("fexit.multi/bpf_testmod:bpf_testmod_fentry_test*")
int BPF_PROG(many_exit, __u64 a, __u64 b, __u64 c, __u64 d, __u64 e, __u64 f, __u64 g)
{
	if (!mine())
		return 0;
	record(ctx, 1, g);
	return 0;
}

/* struct_arg_1({2, 3}, 1, 4) and struct_arg_2(1, {2, 3}, 4): four slots
 * each, in two classes (the struct is in different places).
 */
SEC("fexit.multi/bpf_testmod:bpf_testmod_test_struct_arg_*")
int BPF_PROG(struct_exit, __u64 s0, __u64 s1, __u64 s2, __u64 s3)
{
	__u64 ret = 0, k = (s0 & 0xff) - 1;	/* unsigned: one bound check */

	if (!mine())
		return 0;
	if (bpf_get_func_arg_cnt(ctx) != 4 || k > 1) {
		bad++;
		return 0;
	}
	bpf_get_func_ret(ctx, &ret);
	struct_hits[k]++;
	struct_sums[k] = (__u8)s0 + (__u8)s1 + (__u8)s2 + (__u8)s3;
	struct_rets[k] = (int)ret;
	return 0;
}
