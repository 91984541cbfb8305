// SPDX-License-Identifier: GPL-2.0
/* fsession and fsession.multi: one program that runs at both entry and exit
 * of the traced function. Each run files what it sees under the function
 * (and under the side, 0 entry and 1 exit): its arguments, its return value
 * (0 at entry), bpf_session_is_return() and the session cookie, which is 0
 * at entry and at exit holds what the entry run wrote.
 */
/* vmlinux.h's kfunc prototypes, where pahole writes them, are the kernel's:
 * 6.12's for the session kfuncs, not the declarations below
 */
#define BPF_NO_KFUNC_PROTOTYPES
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "tracing_multi_funcs.h"

char _license[] SEC("license") = "GPL";

/* As upstream declares them for fsession, with ctx, which the kernel takes
 * in R1 (its prototypes and 6.12's bpf_kfuncs.h have the kprobe.session
 * form without a parameter: not included here).
 */
extern bool bpf_session_is_return(void *ctx) __ksym;
extern __u64 *bpf_session_cookie(void *ctx) __ksym;

#define NR_IDX		10	/* bpf_fentry_test1..9 by func_index(), 0 unused */
#define MAX_ARGS	6
#define MOD_IDX		12	/* bpf_testmod_fentry_test* by argument count */
#define COOKIE_SEED	0x5eed

__u64 seq;	/* order of the runs, over all programs */
__u64 bad;

/* Ordinary fsession on bpf_fentry_test1(int a), returns a + 1; [0] entry,
 * [1] exit. fs1 writes a * 10 + 7 in its cookie at entry, fs1b a * 100 + 9.
 */
__u64 fs1_hits[2], fs1_seq[2], fs1_cookie[2];
int fs1_a[2], fs1_ret[2];
__u64 fs1b_hits[2], fs1b_cookie[2];

SEC("fsession/bpf_fentry_test1")
int BPF_PROG(fs1, int a, int ret)
{
	__u64 *cookie = bpf_session_cookie(ctx);
	int k = 0;

	if (!mine())
		return 0;

	if (bpf_session_is_return(ctx))
		k = 1;
	fs1_hits[k]++;
	fs1_seq[k] = ++seq;
	fs1_a[k] = a;
	fs1_ret[k] = ret;
	fs1_cookie[k] = *cookie;
	if (!k)
		*cookie = a * 10 + 7;
	return 0;
}

/* A second link on the same function has a cookie of its own. */
SEC("fsession/bpf_fentry_test1")
int BPF_PROG(fs1b, int a)
{
	__u64 *cookie = bpf_session_cookie(ctx);

	if (!mine())
		return 0;

	if (bpf_session_is_return(ctx)) {
		fs1b_hits[1]++;
		fs1b_cookie[1] = *cookie;
	} else {
		fs1b_hits[0]++;
		fs1b_cookie[0] = *cookie;
		*cookie = a * 100 + 9;
	}
	return 0;
}

/* Ordinary fsession on bpf_fentry_test2(int a, u64 b), returns a + b:
 * the helpers instead of direct reads.
 */
__u64 fs2_hits[2], fs2_cnt[2], fs2_args[2][2], fs2_ret[2], fs2_ip_ok[2], fs2_seq[2];
__s64 fs2_ret_err[2], fs2_arg_err[2];

static __always_inline void fs2_record(void *ctx, int k)
{
	__u64 ret = 0xbad, a0 = 0, a1 = 0;

	fs2_hits[k]++;
	fs2_seq[k] = ++seq;
	fs2_cnt[k] = bpf_get_func_arg_cnt(ctx);
	fs2_ret_err[k] = bpf_get_func_ret(ctx, &ret);
	fs2_ret[k] = ret;
	fs2_arg_err[k] = bpf_get_func_arg(ctx, 0, &a0) ?: bpf_get_func_arg(ctx, 1, &a1);
	fs2_args[k][0] = a0;
	fs2_args[k][1] = a1;
	fs2_ip_ok[k] = bpf_get_func_ip(ctx) == (__u64)&bpf_fentry_test2;
}

SEC("fsession/bpf_fentry_test2")
int fs2(void *ctx)
{
	if (!mine())
		return 0;
	if (bpf_session_is_return(ctx))
		fs2_record(ctx, 1);
	else
		fs2_record(ctx, 0);
	return 0;
}

/*
 * fsession.multi on bpf_fentry_test1..9, indexed by func_index() and side.
 * At entry each run checks that its cookie is 0 and writes
 * ip ^ COOKIE_SEED ^ attach cookie; at exit it checks that it finds that
 * value (cookie_bad counts what is not so: several links of this program
 * may run on one function, each with its own cookie).
 */
__u64 m_hits[NR_IDX][2];
__u64 m_seq[NR_IDX][2];
__u64 m_cnt[NR_IDX][2];
__u64 m_args[NR_IDX][2][MAX_ARGS];
__u64 m_arg0[NR_IDX][2];		/* read from ctx directly */
__s64 m_far_err[NR_IDX][2];		/* bpf_get_func_arg() one past the last */
__s64 m_ret_err[NR_IDX][2];
__u64 m_ret[NR_IDX][2];
__u64 m_cookie[NR_IDX][2];		/* *bpf_session_cookie() as the run starts */
__u64 m_attach_cookie[NR_IDX][2];
__u64 m_ip[NR_IDX][2];
__u64 cookie_bad;

static __always_inline void m_record(void *ctx, __u64 arg0, int k)
{
	__u64 ip = bpf_get_func_ip(ctx), *cookie, n, v, ret = 0xbad;
	__u64 acookie = bpf_get_attach_cookie(ctx);
	int i = func_index(ip), j;

	if (!i) {
		bad++;
		return;
	}
	cookie = bpf_session_cookie(ctx);
	n = bpf_get_func_arg_cnt(ctx);
	__sync_fetch_and_add(&m_hits[i][k], 1);
	m_seq[i][k] = ++seq;
	m_cnt[i][k] = n;
	m_arg0[i][k] = arg0;
	for (j = 0; j < MAX_ARGS; j++) {
		if (j >= n)
			break;
		v = 0;
		if (bpf_get_func_arg(ctx, j, &v))
			bad++;
		m_args[i][k][j] = v;
	}
	m_far_err[i][k] = bpf_get_func_arg(ctx, n, &v);
	m_ret_err[i][k] = bpf_get_func_ret(ctx, &ret);
	m_ret[i][k] = ret;
	m_cookie[i][k] = *cookie;
	m_attach_cookie[i][k] = acookie;
	m_ip[i][k] = ip;
	if (k) {
		if (*cookie != (ip ^ COOKIE_SEED ^ acookie))
			cookie_bad++;
	} else {
		if (*cookie)
			cookie_bad++;
		*cookie = ip ^ COOKIE_SEED ^ acookie;
	}
}

/* Attached by its SEC() pattern. */
SEC("fsession.multi/bpf_fentry_test?")
int BPF_PROG(fsm_pattern, __u64 a0)
{
	if (!mine())
		return 0;
	if (bpf_session_is_return(ctx))
		m_record(ctx, a0, 1);
	else
		m_record(ctx, a0, 0);
	return 0;
}

/* Attached by the test, with ids and cookies. */
SEC("fsession.multi")
int BPF_PROG(fsm, __u64 a0)
{
	if (!mine())
		return 0;
	if (bpf_session_is_return(ctx))
		m_record(ctx, a0, 1);
	else
		m_record(ctx, a0, 0);
	return 0;
}

/* Direct read of the return value slot of bpf_fentry_test1 (one argument):
 * 0 at entry, the return value at exit.
 */
__u64 ret_slot_hits[2], ret_slot[2], ret_slot_a[2];

SEC("fsession.multi")
int BPF_PROG(fsm_ret_slot, __u64 a, __u64 r)
{
	int k = 0;

	if (!mine())
		return 0;

	if (bpf_session_is_return(ctx))
		k = 1;
	ret_slot_hits[k]++;
	ret_slot_a[k] = a;
	ret_slot[k] = r;
	return 0;
}

/* Ordinary fentry/fexit and fentry.multi/fexit.multi beside the fsession
 * programs on the same functions.
 */
__u64 mix_entry_hits, mix_entry_a, mix_exit_hits, mix_exit_a, mix_exit_ret;
__u64 mix_multi_entry_hits[NR_IDX], mix_multi_entry_cnt[NR_IDX];
__u64 mix_multi_exit_hits[NR_IDX], mix_multi_exit_ret[NR_IDX];

SEC("fentry/bpf_fentry_test1")
int BPF_PROG(mix_entry, int a)
{
	if (!mine())
		return 0;
	mix_entry_hits++;
	mix_entry_a = a;
	return 0;
}

SEC("fexit/bpf_fentry_test1")
int BPF_PROG(mix_exit, int a, int ret)
{
	if (!mine())
		return 0;
	mix_exit_hits++;
	mix_exit_a = a;
	mix_exit_ret = ret;
	return 0;
}

SEC("fentry.multi")
int mix_multi_entry(void *ctx)
{
	int i = func_index(bpf_get_func_ip(ctx));

	if (!mine())
		return 0;

	if (!i) {
		bad++;
		return 0;
	}
	mix_multi_entry_hits[i]++;
	mix_multi_entry_cnt[i] = bpf_get_func_arg_cnt(ctx);
	return 0;
}

SEC("fexit.multi")
int mix_multi_exit(void *ctx)
{
	int i = func_index(bpf_get_func_ip(ctx));
	__u64 ret = 0xbad;

	if (!mine())
		return 0;

	if (!i) {
		bad++;
		return 0;
	}
	if (bpf_get_func_ret(ctx, &ret))
		bad++;
	mix_multi_exit_hits[i]++;
	mix_multi_exit_ret[i] = ret;
	return 0;
}

/*
 * bpf_testmod_multi_noargs and bpf_testmod_fentry_test1..3, 7 and 11, told
 * apart by argument count; the module's BTF is the programs' attach BTF.
 * mod_all attaches by pattern (and by name to bpf_testmod_multi_noargs),
 * mod_many (reads slot 6 directly) by the ids of test7 and test11.
 * Arguments and return values fit in their low byte.
 */
__u64 mod_hits[2][MOD_IDX][2];	/* [mod_all, mod_many][nr_args][side] */
__u64 mod_sum[2][MOD_IDX][2];
__u64 mod_ret[2][MOD_IDX][2];
__u64 mod_cookie[2][MOD_IDX][2];
__u64 mod_slot6[MOD_IDX][2];

static __always_inline void mod_record(void *ctx, int p, int k)
{
	__u64 n = bpf_get_func_arg_cnt(ctx), i, v, s = 0, ret = 0xbad, *cookie;

	if (n >= MOD_IDX) {
		bad++;
		return;
	}
	for (i = 0; i < MOD_IDX - 1 && i < n; i++) {
		v = 0;
		if (bpf_get_func_arg(ctx, i, &v))
			bad++;
		s += (__u8)v;
	}
	if (bpf_get_func_ret(ctx, &ret))
		bad++;
	cookie = bpf_session_cookie(ctx);
	mod_hits[p][n][k]++;
	mod_sum[p][n][k] = s;
	mod_ret[p][n][k] = ret;
	mod_cookie[p][n][k] = *cookie;
	if (!k)
		*cookie = (p + 1) * 1000 + n * 100 + s;
}

SEC("fsession.multi/bpf_testmod:bpf_testmod_fentry_test*")
int mod_all(void *ctx)
{
	if (!mine())
		return 0;
	if (bpf_session_is_return(ctx))
		mod_record(ctx, 0, 1);
	else
		mod_record(ctx, 0, 0);
	return 0;
}

/* Not auto-attached: test1..3 have fewer than 7 slots. */
SEC("fsession.multi/bpf_testmod:bpf_testmod_fentry_test*")
int BPF_PROG(mod_many, __u64 a, __u64 b, __u64 c, __u64 d, __u64 e, __u64 f, __u64 g)
{
	__u64 n = bpf_get_func_arg_cnt(ctx);
	int k = 0;

	if (!mine())
		return 0;

	if (bpf_session_is_return(ctx))
		k = 1;
	if (n >= MOD_IDX) {
		bad++;
		return 0;
	}
	mod_slot6[n][k] = (__u8)g;
	if (k)
		mod_record(ctx, 1, 1);
	else
		mod_record(ctx, 1, 0);
	return 0;
}

/* Ordinary fsession on bpf_testmod_fentry_test7 (a stack argument on
 * x86-64), returns the sum of its arguments, 133.
 */
__u64 mod7_hits[2], mod7_g[2], mod7_ret[2], mod7_cookie[2];

SEC("fsession/bpf_testmod_fentry_test7")
int BPF_PROG(mod7, __u64 a, void *b, short c, int d, void *e, char f, int g, int ret)
{
	__u64 *cookie = bpf_session_cookie(ctx);
	int k = 0;

	if (!mine())
		return 0;

	if (bpf_session_is_return(ctx))
		k = 1;
	mod7_hits[k]++;
	mod7_g[k] = g;
	mod7_ret[k] = ret;
	mod7_cookie[k] = *cookie;
	if (!k)
		*cookie = a + g;
	return 0;
}
