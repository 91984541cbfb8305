// SPDX-License-Identifier: GPL-2.0
/* Programs of tracing_multi_mitigations: multi programs whose trampolines
 * call the traced function.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char _license[] SEC("license") = "GPL";

__u64 exit_runs, modret_runs;

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
