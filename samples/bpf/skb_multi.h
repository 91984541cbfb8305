/* SPDX-License-Identifier: GPL-2.0 */
/* skb_multi: what its program counts per traced function (skb_multi.c). */
#ifndef __SKB_MULTI_H
#define __SKB_MULTI_H

struct skb_stat {
	__u64 calls;
	__u64 len_total;	/* sum of skb->len over the calls */
	__u64 len_calls;	/* calls that saw an skb (not NULL) */
	__u32 len_last;		/* skb->len of the last call */
	__u32 slot;		/* bpf_arg_find_type()'s slot + 1, 0: none yet */
};

#endif /* __SKB_MULTI_H */
