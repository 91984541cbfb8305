// SPDX-License-Identifier: GPL-2.0
/* Programs of tracing_multi_mitigations: multi and ordinary programs whose
 * trampolines call the traced function.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char _license[] SEC("license") = "GPL";

__u64 exit_runs, modret_runs, ord_exit_runs, ord_modret_runs;

SEC("fexit.multi")
int mit_exit(void *ctx)
{
	exit_runs++;
	return 0;
}

SEC("fmod_ret.multi")
int mit_modret(void *ctx)
{
	modret_runs++;
	return 0;
}

SEC("fexit/bpf_fentry_test1")
int BPF_PROG(ord_exit, int a, int ret)
{
	ord_exit_runs++;
	return 0;
}

SEC("fmod_ret/bpf_modify_return_test")
int BPF_PROG(ord_modret, int a, int *b, int ret)
{
	ord_modret_runs++;
	return 0;
}
