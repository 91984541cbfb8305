// SPDX-License-Identifier: GPL-2.0
/* Programs of tracing_multi_hardening: multi programs and tail calls, and a
 * global subprogram an extension program tries to replace.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "tracing_multi_funcs.h"

char _license[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, 1);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
} jmp_table SEC(".maps");

__u64 caller_runs, reader_runs, reader_slot0, reader_slot5;

/* Reads no argument: may be attached to functions without arguments. */
SEC("fentry.multi")
int tc_caller(void *ctx)
{
	if (!mine())
		return 0;
	caller_runs++;
	bpf_tail_call(ctx, &jmp_table, 0);
	return 0;
}

/* Reads argument slot 0, as the reader below does. */
SEC("fentry.multi")
int tc_caller_reads0(__u64 *ctx)
{
	if (!mine())
		return 0;
	caller_runs++;
	reader_slot0 = ctx[0];
	bpf_tail_call(ctx, &jmp_table, 0);
	return 0;
}

/* Never attached: reads slot 5, which only 6-argument functions have. */
SEC("fentry.multi")
int tc_reader5(__u64 *ctx)
{
	reader_runs++;
	reader_slot5 = ctx[5];
	return 0;
}

/* Never attached: reads slot 0. */
SEC("fentry.multi")
int tc_reader0(__u64 *ctx)
{
	reader_runs++;
	reader_slot0 = ctx[0];
	return 0;
}

/* Reads nothing; bpf_arg() checks its index at run time. */
SEC("fentry.multi")
int tc_reader_kfunc(void *ctx)
{
	reader_runs++;
	return 0;
}

/*
 * tail_call_ip: callers that read no IP, each with an array of its own,
 * reach programs that read the IP (and a multi program's cookie, found by
 * it): the trampoline stores the IP for programs that tail call.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, 1);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
} jmp_ip SEC(".maps"), jmp_ip_ordinary SEC(".maps");

__u64 ip_seen, cookie_seen, ordinary_ip_seen;

SEC("?fentry.multi")
int ip_caller(void *ctx)
{
	bpf_tail_call(ctx, &jmp_ip, 0);
	return 0;
}

/* Never attached. */
SEC("?fentry.multi")
int ip_reader(void *ctx)
{
	ip_seen = bpf_get_func_ip(ctx);
	cookie_seen = bpf_get_attach_cookie(ctx);
	return 0;
}

SEC("?fentry/bpf_fentry_test1")
int ip_caller_ordinary(void *ctx)
{
	bpf_tail_call(ctx, &jmp_ip_ordinary, 0);
	return 0;
}

/* Never attached. */
SEC("?fentry/bpf_fentry_test1")
int ip_reader_ordinary(void *ctx)
{
	ordinary_ip_seen = bpf_get_func_ip(ctx);
	return 0;
}

__noinline int multi_subprog(__u64 x)
{
	return x ? 1 : 0;
}

SEC("fentry.multi")
int with_subprog(__u64 *ctx)
{
	caller_runs += multi_subprog(caller_runs);
	return 0;
}

/* unprivileged_close: an ordinary program and a multi link on one function */
__u64 uc_ordinary_runs, uc_multi_runs;

SEC("fentry/bpf_fentry_test1")
int BPF_PROG(uc_ordinary, int a)
{
	if (!mine())
		return 0;
	uc_ordinary_runs++;
	return 0;
}

SEC("fentry.multi")
int uc_multi(void *ctx)
{
	if (!mine())
		return 0;
	uc_multi_runs++;
	return 0;
}
