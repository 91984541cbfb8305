// SPDX-License-Identifier: GPL-2.0
/* Programs of tracing_multi_fault: links attached and detached while the
 * kernel's allocations fail one by one. Each program counts its calls per
 * function (bpf_fentry_test1..9), from the test's own process only.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "tracing_multi_funcs.h"

char _license[] SEC("license") = "GPL";

int pid;
__u64 keep_hits[10], entry_hits[10], exit_hits[10], plain_hits;

static __always_inline void count(__u64 *hits, void *ctx)
{
	int i;

	if ((bpf_get_current_pid_tgid() >> 32) != pid)
		return;
	i = func_index(bpf_get_func_ip(ctx));
	if (i > 0 && i < 10)
		__sync_fetch_and_add(&hits[i], 1);
}

/* Attached before the faults, on every function: must keep running. */
SEC("fentry.multi")
int fi_keep(void *ctx)
{
	count(keep_hits, ctx);
	return 0;
}

SEC("fentry.multi")
int fi_entry(void *ctx)
{
	count(entry_hits, ctx);
	return 0;
}

SEC("fexit.multi")
int fi_exit(void *ctx)
{
	count(exit_hits, ctx);
	return 0;
}

/* An ordinary program: its function gets an image of its own. */
SEC("fentry/bpf_fentry_test2")
int BPF_PROG(fi_plain, int a, __u64 b)
{
	if ((bpf_get_current_pid_tgid() >> 32) == pid)
		plain_hits++;
	return 0;
}
