// SPDX-License-Identifier: GPL-2.0
/* tracing_multi_hardening/ipmodify_no_callback: programs on
 * bpf_test_ipmodify_target() (bpf_test_ipmodify.ko, returns a + 1), which
 * an IPMODIFY ftrace user takes without telling them. They count the
 * calls of the test's own process; the exit program keeps what the call
 * returned (a + 2 where the IPMODIFY user redirects it).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char _license[] SEC("license") = "GPL";

int pid;
__u64 entries, exits, ordinary_entries;
__u64 exit_arg, exit_ret;

static bool mine(void)
{
	return (bpf_get_current_pid_tgid() >> 32) == pid;
}

SEC("fentry.multi")
int ipm_entry(void *ctx)
{
	if (mine())
		entries++;
	return 0;
}

SEC("fexit.multi")
int ipm_exit(void *ctx)
{
	__u64 a = 0, ret = 0;

	if (!mine())
		return 0;
	exits++;
	bpf_get_func_arg(ctx, 0, &a);
	bpf_get_func_ret(ctx, &ret);
	exit_arg = a;
	exit_ret = ret;
	return 0;
}

/* attach target set by the test: bpf_test_ipmodify_target */
SEC("fentry")
int BPF_PROG(ipm_ordinary, int a)
{
	if (mine())
		ordinary_entries++;
	return 0;
}
