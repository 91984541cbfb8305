// SPDX-License-Identifier: GPL-2.0
/* Tries to replace a global subprogram of a multi program. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

char _license[] SEC("license") = "GPL";

SEC("freplace/multi_subprog")
int replace_subprog(__u64 x)
{
	return 0;
}
