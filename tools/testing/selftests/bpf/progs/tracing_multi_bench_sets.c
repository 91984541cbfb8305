// SPDX-License-Identifier: GPL-2.0
/* Programs of prog_tests/tracing_multi_bench_sets.c: they do nothing. */
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
