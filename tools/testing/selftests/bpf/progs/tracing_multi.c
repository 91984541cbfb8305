// SPDX-License-Identifier: GPL-2.0
/* fentry.multi, fexit.multi and fmod_ret.multi on the bpf_fentry_test*()
 * functions that BPF_PROG_TEST_RUN calls: each program finds out which
 * function it runs for from bpf_get_func_ip() and checks that function's
 * arguments, return value and cookie.
 */
#include "vmlinux.h"
#include <errno.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "tracing_multi_funcs.h"

char _license[] SEC("license") = "GPL";

/* What test_run passes (low byte of each argument) and gets back. */
static const __u8 nr_args[10] = { 0, 1, 2, 3, 4, 5, 6, 1, 1, 1 };

static const __u8 args[10][6] = {
	{}, { 1 }, { 2, 3 }, { 4, 5, 6 }, { 7, 8, 9, 10 }, { 11, 12, 13, 14, 15 },
	{ 16, 17, 18, 19, 20, 21 },
};

static const int rets[10] = { 0, 2, 5, 15, 34, 65, 111, 0, 0, 0 };

__u64 fentry_hits[10], fexit_hits[10], cookie_hits[10];
__u64 cookies[10];
__u64 bad;
__u64 fmod_ret_hits;

/* Index of the function @ctx is for, 0 (and bad++) if its args are wrong. */
static int check_args(void *ctx)
{
	int i = func_index(bpf_get_func_ip(ctx));
	__u64 n = bpf_get_func_arg_cnt(ctx), a;
	int j;

	if (!i || n != nr_args[i]) {
		bad++;
		return 0;
	}
	for (j = 0; j < 6; j++) {
		if (j >= n)
			break;
		if (bpf_get_func_arg(ctx, j, &a)) {
			bad++;
			return 0;
		}
		if (i <= 6 && (__u8)a != args[i][j]) {
			bad++;
			return 0;
		}
	}
	/* one past the last argument is not an argument */
	if (bpf_get_func_arg(ctx, n, &a) != -EINVAL) {
		bad++;
		return 0;
	}
	return i;
}

SEC("fentry.multi/bpf_fentry_test?")
int fentry_all(void *ctx)
{
	int i = check_args(ctx);
	__u64 ret;

	if (!mine())
		return 0;

	if (bpf_get_func_ret(ctx, &ret) != -EOPNOTSUPP)	/* in fentry */
		bad++;
	if (i)
		fentry_hits[i]++;
	return 0;
}

SEC("fexit.multi/bpf_fentry_test?")
int fexit_all(void *ctx)
{
	int i = check_args(ctx);
	__u64 ret = 0;

	if (!mine())
		return 0;

	if (!i)
		return 0;
	if (bpf_get_func_ret(ctx, &ret) || (int)ret != rets[i]) {
		bad++;
		return 0;
	}
	fexit_hits[i]++;
	return 0;
}

/* Returns from pipe_read() of the task test_inflight_detach() watches. */
int inflight_tid;
__u64 inflight_exits;

SEC("fexit.multi/pipe_read")
int inflight_exit(void *ctx)
{
	if ((__u32)bpf_get_current_pid_tgid() == inflight_tid)
		inflight_exits++;
	return 0;
}

/* Attached by the test with ids and cookies. */
SEC("fentry.multi")
int fentry_cookie(void *ctx)
{
	int i = func_index(bpf_get_func_ip(ctx));

	if (!mine())
		return 0;

	if (!i)
		return 0;
	cookies[i] = bpf_get_attach_cookie(ctx);
	cookie_hits[i]++;
	return 0;
}

/* Direct access to the first argument: a __u64 slot. */
__u64 direct_arg0[10];

SEC("fentry.multi")
int BPF_PROG(fentry_direct, __u64 a0)
{
	int i = func_index(bpf_get_func_ip(ctx));

	if (!mine())
		return 0;

	if (i)
		direct_arg0[i] = a0;
	return 0;
}

SEC("fmod_ret.multi/bpf_modify_return_test")
int fmod_ret_1000(void *ctx)
{
	if (!mine())
		return 0;
	fmod_ret_hits++;
	return 1000;
}

/* The seed example: fentry A on bpf_fentry_test1, fexit E on
 * bpf_fentry_test3, multi X on five functions of 1, 2 and 3 arguments.
 */
__u64 seed_a_hits, seed_e_hits, seed_x_hits[10];

SEC("fentry/bpf_fentry_test1")
int BPF_PROG(seed_a, int a)
{
	if (!mine())
		return 0;
	seed_a_hits++;
	return 0;
}

SEC("fexit/bpf_fentry_test3")
int BPF_PROG(seed_e, char a, int b, __u64 c, int ret)
{
	if (!mine())
		return 0;
	if (ret == 15)
		seed_e_hits++;
	return 0;
}

SEC("fentry.multi")
int seed_x(void *ctx)
{
	int i = check_args(ctx);

	if (!mine())
		return 0;

	if (i)
		seed_x_hits[i]++;
	return 0;
}

/* Gap-free: counts every call while other links come and go. */
__u64 gap_hits[10];

SEC("fentry.multi")
int gap_k(void *ctx)
{
	int i = func_index(bpf_get_func_ip(ctx));

	if (!mine())
		return 0;

	if (i)
		__sync_fetch_and_add(&gap_hits[i], 1);
	return 0;
}

/* Several links of one program over intersecting sets: hits per function. */
__u64 subset_hits[10];

SEC("fentry.multi")
int subset(void *ctx)
{
	int i = func_index(bpf_get_func_ip(ctx));

	if (!mine())
		return 0;

	if (i)
		__sync_fetch_and_add(&subset_hits[i], 1);
	return 0;
}

/* Sleepable: may attach only to functions allowed for sleepable programs. */
__u64 sleepable_hits;

SEC("fentry.multi.s")
int sleepable(void *ctx)
{
	if (!mine())
		return 0;
	if (func_index(bpf_get_func_ip(ctx)) == 1)
		sleepable_hits++;
	return 0;
}

/* Module functions: bpf_testmod_fentry_test1..3, 7 and 11 (where the
 * arch's trampolines take 7 and 11 argument slots) by pattern, and
 * bpf_testmod_multi_noargs by a second link, told apart by arg count.
 */
__u64 mod_hits[12];

SEC("fentry.multi/bpf_testmod:bpf_testmod_fentry_test*")
int mod_fentry(void *ctx)
{
	__u64 n = bpf_get_func_arg_cnt(ctx), a = 0, first;

	if (!mine())
		return 0;

	if (n == 0) {
		mod_hits[0]++;
		return 0;
	}
	if (n >= 12) {
		bad++;
		return 0;
	}
	first = n == 1 ? 1 : n == 2 ? 2 : n == 3 ? 4 : 16;
	if (bpf_get_func_arg(ctx, 0, &a) || (__u8)a != first)
		bad++;
	else
		mod_hits[n]++;
	return 0;
}

