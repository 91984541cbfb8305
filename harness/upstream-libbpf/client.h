/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by client.bpf.c and client.c: the layout of the BPF object's .bss,
 * which the user side reads and writes through libbpf's mmap of it (no
 * skeleton: the client is built against upstream's libbpf, not the tree's
 * bpftool).
 */
#ifndef __UPSTREAM_LIBBPF_CLIENT_H
#define __UPSTREAM_LIBBPF_CLIENT_H

#include <linux/types.h>

/* Slots 1..9: bpf_fentry_test1..9 (test_run of a tracing program calls all). */
#define NR_FUNCS	10
/* Slots 1..3: bpf_testmod_fentry_test1..3 (at most 6 arguments). */
#define NR_MOD_FUNCS	4
/* The most arguments a function of these tests has. */
#define MAX_ARGS	6
#define MAX_UNKNOWN	4

/*
 * many_args: bpf_testmod functions of up to 11 argument slots (a 16-byte
 * struct takes two). Slots of struct many_set, by IP:
 */
#define MANY_T0		1	/* bpf_testmod_multi_noargs */
#define MANY_T1		2	/* bpf_testmod_fentry_test1 */
#define MANY_T2		3	/* bpf_testmod_fentry_test2 */
#define MANY_T3		4	/* bpf_testmod_fentry_test3 */
#define MANY_T7		5	/* bpf_testmod_fentry_test7 */
#define MANY_T11	6	/* bpf_testmod_fentry_test11 */
#define MANY_S1		7	/* bpf_testmod_test_struct_arg_1 */
#define MANY_S2		8	/* bpf_testmod_test_struct_arg_2 */
#define NR_MANY_FUNCS	9
/* The most argument slots a trampoline passes (MAX_BPF_FUNC_ARGS). */
#define MANY_MAX_ARGS	12

/*
 * Cookies carry their function's slot in the low bits, so a program that
 * indexes by cookie files a call under the function the user side gave
 * that cookie to, and the user side then checks the IP and the arguments
 * recorded there belong to that function.
 */
#define COOKIE_BASE	0xc00c1e0000000000ULL
#define COOKIE(i)	(COOKIE_BASE | ((__u64)(i) << 8) | (__u64)(i))
#define COOKIE_SLOT(c)	((c) & 0xff)

struct func_rec {
	__u64 hits;
	__u64 nargs;		/* bpf_get_func_arg_cnt() */
	__u64 args[MAX_ARGS];	/* bpf_get_func_arg() */
	__u64 arg0_direct;	/* ctx[0], read directly (BPF_PROG) */
	__u64 ret;		/* bpf_get_func_ret(), fexit */
	__u64 ip;		/* bpf_get_func_ip() */
	__u64 cookie;		/* bpf_get_attach_cookie() */
	__u64 errs;		/* helpers that failed */
	__s64 past_end;		/* bpf_get_func_arg(ctx, nargs): -EINVAL */
};

struct set_rec {
	struct func_rec f[NR_FUNCS];
	__u64 unknown;			/* calls not matched to a slot */
	__u64 unknown_key[MAX_UNKNOWN];	/* their IPs or cookies */
};

struct many_rec {
	__u64 hits;
	__u64 nargs;			/* bpf_get_func_arg_cnt() */
	__u64 args[MANY_MAX_ARGS];	/* bpf_get_func_arg() */
	__u64 ret;			/* bpf_get_func_ret(), fexit */
	__u64 ip;			/* bpf_get_func_ip() */
	__u64 cookie;			/* bpf_get_attach_cookie() */
	__u64 errs;			/* helpers that failed */
	__s64 past_end;			/* bpf_get_func_arg(ctx, nargs): -EINVAL */
	__u64 direct0;			/* ctx[0], read directly (many_direct) */
	__u64 direct6;			/* ctx[6], read directly (many_direct) */
};

struct many_set {
	struct many_rec f[NR_MANY_FUNCS];
	__u64 unknown;			/* calls not matched to a slot */
	__u64 unknown_key[MAX_UNKNOWN];	/* their IPs */
};

/*
 * fsession, fsession.multi and kprobe.session: one program at a function's
 * entry and exit. Each function is called SESS_CALLS times; for its n-th
 * call (from 1) the entry writes SESS_VAL(tag, IP, n) to its session cookie,
 * @tag the program's, so the exit reading it back shows the cookie is kept
 * per invocation and per link. Slots as struct set_rec's (vmlinux) or the
 * MANY_* ones (bpf_testmod).
 */
#define NR_SESS_FUNCS	NR_FUNCS
#define SESS_CALLS	2
#define SESS_TAG_GLOB	0x5e55000000001000ULL	/* sess_glob */
#define SESS_TAG_IDS	0x5e55000000002000ULL	/* sess_ids */
#define SESS_TAG_MOD	0x5e55000000003000ULL	/* sess_mod */
#define SESS_TAG_A	0x5e55000000004000ULL	/* fsess_a */
#define SESS_TAG_B	0x5e55000000005000ULL	/* fsess_b */
#define SESS_TAG_KPROBE	0x5e55000000006000ULL	/* ksess */
#define SESS_VAL(tag, ip, n)	(((__u64)(ip) ^ (tag)) + (n))

/* One side of a session: at[0] the entry runs, at[1] the exit runs. */
struct sess_half {
	__u64 hits;			/* by bpf_session_is_return() */
	__u64 nargs;			/* bpf_get_func_arg_cnt() */
	__u64 args[MANY_MAX_ARGS];	/* bpf_get_func_arg(); kprobe: PARM1 */
	__u64 arg0_direct;		/* ctx[0], read directly (BPF_PROG) */
	__u64 ret_direct;		/* BPF_PROG's ret (fsession); entry: or-ed */
	__u64 ret;			/* bpf_get_func_ret(), kprobe: RC; entry: or-ed */
	__u64 ip;			/* bpf_get_func_ip() */
	__u64 cookie;			/* bpf_get_attach_cookie() */
	__u64 errs;			/* helpers that failed */
	__s64 past_end;			/* bpf_get_func_arg(ctx, nargs): -EINVAL */
	__u64 sess[SESS_CALLS];		/* *bpf_session_cookie() read, call by call */
};

struct sess_rec {
	struct sess_half at[2];
};

struct sess_set {
	struct sess_rec f[NR_SESS_FUNCS];
	__u64 unknown;			/* calls not matched to a slot */
	__u64 unknown_key[MAX_UNKNOWN];	/* their IPs or cookies */
};

struct client_state {
	/* in: set by the user side before it attaches */
	__u32 tgid;			/* count calls of this process only */
	__u32 pad;
	__u64 addrs[NR_FUNCS];		/* kallsyms, bpf_fentry_testN */
	__u64 mod_addrs[NR_MOD_FUNCS];	/* kallsyms, bpf_testmod_fentry_testN */
	/* out: one set per program */
	struct set_rec glob_fentry;
	struct set_rec glob_fexit;
	struct set_rec ids_fentry;
	struct set_rec ids_fexit;
	struct set_rec mod_fentry;
	struct set_rec mod_fexit;
	/* many_args: in */
	__u64 many_addrs[NR_MANY_FUNCS];	/* kallsyms, MANY_* slots */
	/* many_args: out */
	struct many_set many_fentry;
	struct many_set many_fexit;
	struct many_set many_struct_fentry;
	struct many_set many_struct_fexit;
	struct many_set many_direct;
	/* fsession: out */
	struct sess_set sess_glob;	/* fsession.multi/bpf_fentry_test? */
	struct sess_set sess_ids;	/* fsession.multi, vmlinux ids, cookies */
	struct sess_set sess_mod;	/* fsession.multi, bpf_testmod ids, cookies */
	struct sess_rec fsess_a;	/* fsession/bpf_fentry_test1, with a cookie */
	struct sess_rec fsess_b;	/* another one there */
	struct set_rec plain_fentry;	/* fentry/bpf_fentry_test1 beside them */
	struct set_rec plain_fexit;	/* fexit/bpf_fentry_test1 beside them */
	struct sess_set ksess;		/* kprobe.session/bpf_fentry_test? */
};

#endif
