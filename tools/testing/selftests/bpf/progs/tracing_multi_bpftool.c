// SPDX-License-Identifier: GPL-2.0
/* fentry.multi programs for prog_tests/tracing_multi_bpftool.c: bpftool
 * shows their links, attaches them and auto-attaches them.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "tracing_multi_funcs.h"

char _license[] SEC("license") = "GPL";

/* Attached by the test through libbpf, with ids and cookies. */
__u64 cookie_hits[10], cookies[10];

SEC("fentry.multi")
int tmb_cookie(void *ctx)
{
	__u32 i = func_index(bpf_get_func_ip(ctx));

	if (!mine())
		return 0;
	if (i) {
		cookie_hits[i]++;
		cookies[i] = bpf_get_attach_cookie(ctx);
	}
	return 0;
}

/* Attached by "bpftool prog attach ... fentry_multi PATTERN link FILE". */
__u64 attach_hits[10];

SEC("fentry.multi")
int tmb_attach(void *ctx)
{
	__u32 i = func_index(bpf_get_func_ip(ctx));

	if (!mine())
		return 0;
	if (i)
		attach_hits[i]++;
	return 0;
}

/* Auto-attached by "bpftool prog loadall ... autoattach", which loads its
 * own copy of this object: it counts into a map bpftool pins (pinmaps).
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 10);
	__type(key, __u32);
	__type(value, __u64);
} auto_hits SEC(".maps");

SEC("fentry.multi/bpf_fentry_test?")
int tmb_auto(void *ctx)
{
	__u32 i = func_index(bpf_get_func_ip(ctx));
	__u64 *v;

	v = i ? bpf_map_lookup_elem(&auto_hits, &i) : NULL;
	if (v)
		__sync_fetch_and_add(v, 1);
	return 0;
}
