/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by client.bpf.c and client.c: the BPF object's .bss, which the
 * user side reads and writes through libbpf's mmap of it.
 */
#ifndef __BASE_LIBBPF_CLIENT_H
#define __BASE_LIBBPF_CLIENT_H

#include <linux/types.h>

/* Slots 1..9: bpf_fentry_test1..9, which test_run of a tracing program calls. */
#define NR_FUNCS	10
/* bpf_fentry_test5..8: the entry run returns 1, so no return run (6.12's test) */
#define NO_RETURN(i)	((i) >= 5 && (i) <= 8)
/* the session cookie the entry run of call @n (from 1) of slot @i writes */
#define SESS_VAL(i, n)	(0x5e55000000000000ULL | ((__u64)(i) << 16) | (__u64)(n))

struct client_state {
	__u32 tgid;			/* in: count calls of this process only */
	__u32 pad;
	__u64 entry[NR_FUNCS];		/* entry runs, by bpf_session_is_return() */
	__u64 ret[NR_FUNCS];		/* return runs */
	__u64 ret_cookie[NR_FUNCS];	/* *bpf_session_cookie() at return, the last call's */
	__u64 parm1[NR_FUNCS];		/* PT_REGS_PARM1 at entry */
	__u64 rc[NR_FUNCS];		/* PT_REGS_RC at return */
	__u64 unknown;			/* runs at an IP not among the slots */
};

#endif
