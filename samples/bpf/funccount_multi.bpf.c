// SPDX-License-Identifier: GPL-2.0
/* funccount_multi: count calls of every kernel function matching a glob with
 * one fentry.multi program (see funccount_multi.c).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char _license[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, __u64);	/* function address */
	__type(value, __u64);	/* calls */
} counts SEC(".maps");

__u64 lost;

/* Attached by funccount_multi.c to the functions of its pattern. */
SEC("fentry.multi")
int count(void *ctx)
{
	__u64 ip = bpf_get_func_ip(ctx), one = 1, *n;

	n = bpf_map_lookup_elem(&counts, &ip);
	if (n) {
		__sync_fetch_and_add(n, 1);
		return 0;
	}
	if (bpf_map_update_elem(&counts, &ip, &one, BPF_NOEXIST)) {
		n = bpf_map_lookup_elem(&counts, &ip);
		if (n)
			__sync_fetch_and_add(n, 1);
		else
			__sync_fetch_and_add(&lost, 1);
	}
	return 0;
}
