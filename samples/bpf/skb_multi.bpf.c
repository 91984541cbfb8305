// SPDX-License-Identifier: GPL-2.0
/* skb_multi: one fentry.multi program on every kernel function that takes a
 * struct sk_buff *, wherever that argument is (see skb_multi.c).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "skb_multi.h"

char _license[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);		/* set to the function count before load */
	__type(key, __u32);
	__type(value, struct skb_stat);	/* per function, by cookie */
} stats SEC(".maps");

__u64 no_slot;		/* bpf_arg_find_type() found no struct sk_buff * */
__u64 no_stat;		/* a cookie outside the map */

/* Attached by skb_multi.c with opts.ids and cookie i for function i. */
SEC("fentry.multi")
int skb_count(void *ctx)
{
	__u32 i = bpf_get_attach_cookie(ctx);
	struct skb_stat *st;
	struct sk_buff *skb;
	int n;

	st = bpf_map_lookup_elem(&stats, &i);
	if (!st) {
		__sync_fetch_and_add(&no_stat, 1);
		return 0;
	}
	__sync_fetch_and_add(&st->calls, 1);
	/* the first argument slot that is a struct sk_buff *, per function */
	n = bpf_arg_find_type(ctx, struct sk_buff);
	if (n < 0) {
		__sync_fetch_and_add(&no_slot, 1);
		return 0;
	}
	st->slot = n + 1;
	skb = bpf_arg_as(ctx, n, struct sk_buff);
	if (!skb)
		return 0;
	/* typed like an fentry argument: a direct read */
	st->len_last = skb->len;
	__sync_fetch_and_add(&st->len_total, skb->len);
	__sync_fetch_and_add(&st->len_calls, 1);
	return 0;
}
