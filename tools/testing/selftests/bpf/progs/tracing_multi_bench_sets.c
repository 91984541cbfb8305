// SPDX-License-Identifier: GPL-2.0
/* Programs of prog_tests/tracing_multi_bench_sets.c: they do nothing, but
 * for the one that counts the calls of each function (its cookie: the
 * function's index) while the benchmark picks its functions.
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
