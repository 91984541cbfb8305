// SPDX-License-Identifier: GPL-2.0
/* Programs of tracing_multi_users/tail_calls: main fentry.multi and
 * fexit.multi programs with no attach target tail-call programs of the same
 * kind, which read the arguments and the return value through the helpers,
 * as a security agent that turns both into multi programs does.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char _license[] SEC("license") = "GPL";

#define MAX_ARGS	12

struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, 1);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
} entry_tails SEC(".maps"), exit_tails SEC(".maps");

int test_pid;

/*
 * What the tails see, by the function's argument count, [0] at entry and
 * [1] at exit: calls, arguments, the return value, and what
 * bpf_get_func_arg() one past the last argument and bpf_get_func_ret()
 * return.
 */
__u64 calls[2][MAX_ARGS + 1];
__u64 args[2][MAX_ARGS + 1][MAX_ARGS];
__u64 rets[2][MAX_ARGS + 1];
long arg_past_err[2][MAX_ARGS + 1];
long ret_err[2][MAX_ARGS + 1];
__u64 entry_main_runs, exit_main_runs;

static __always_inline bool mine(void)
{
	return (bpf_get_current_pid_tgid() >> 32) == test_pid;
}

SEC("fentry.multi")
int main_entry(void *ctx)
{
	if (!mine())
		return 0;
	entry_main_runs++;
	bpf_tail_call(ctx, &entry_tails, 0);
	return 0;
}

SEC("fexit.multi")
int main_exit(void *ctx)
{
	if (!mine())
		return 0;
	exit_main_runs++;
	bpf_tail_call(ctx, &exit_tails, 0);
	return 0;
}

static __always_inline void record(void *ctx, int k)
{
	__u64 n = bpf_get_func_arg_cnt(ctx), v = 0;
	int i;

	if (n > MAX_ARGS)
		return;
	calls[k][n]++;
	for (i = 0; i < MAX_ARGS; i++) {
		if (i >= n)
			break;
		if (!bpf_get_func_arg(ctx, i, &v))
			args[k][n][i] = v;
	}
	arg_past_err[k][n] = bpf_get_func_arg(ctx, n, &v);
	if (k)
		ret_err[k][n] = bpf_get_func_ret(ctx, &rets[k][n]);
}

/* Never attached: reached from main_entry. */
SEC("fentry.multi")
int tail_entry(void *ctx)
{
	record(ctx, 0);
	return 0;
}

/* Never attached: reached from main_exit. */
SEC("fexit.multi")
int tail_exit(void *ctx)
{
	record(ctx, 1);
	return 0;
}
