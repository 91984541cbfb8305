// SPDX-License-Identifier: GPL-2.0
/*
 * BPF side of upstream_libbpf_client: fentry.multi and fexit.multi programs
 * (and fsession, fsession.multi, kprobe.session ones, at the end) written,
 * loaded and attached the way upstream's libbpf expects. Every
 * program files each call under the function it was made for, found from
 * bpf_get_func_ip() or from the cookie, and records what the helpers report
 * there; the user side checks the records. Arguments are read with
 * bpf_get_func_arg(): a multi program attached to functions of different
 * arities may read directly only as many ctx slots as the smallest of them
 * has, and every function here has at least one, hence a0 alone in BPF_PROG
 * (many_direct, attached only to functions of 7 slots or more, reads a6).
 *
 * Built with the vendored libbpf's headers only (no vmlinux.h).
 */
#include <stdbool.h>
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#if defined(__TARGET_ARCH_x86)
#include <asm/ptrace.h>		/* struct pt_regs, for ksess */
#endif
#include "client.h"

char _license[] SEC("license") = "GPL";

struct client_state st;

/* Other processes may call these functions too (bpf_testmod's file). */
static __always_inline bool mine(void)
{
	return (bpf_get_current_pid_tgid() >> 32) == st.tgid;
}

static __always_inline int slot_by_ip(__u64 ip, const __u64 *addrs, int n)
{
	int i;

	for (i = 1; i < n; i++)
		if (addrs[i] == ip)
			return i;
	return 0;
}

static __always_inline int slot_by_cookie(__u64 cookie, int n)
{
	__u64 i = COOKIE_SLOT(cookie);

	if ((cookie & ~0xffffULL) != COOKIE_BASE || ((cookie >> 8) & 0xff) != i)
		return 0;
	return i < n ? i : 0;
}

/* @key (the IP or the cookie) is kept when no slot matched, to print it. */
static __always_inline void record(struct set_rec *s, int i, void *ctx,
				   __u64 key, bool fexit)
{
	struct func_rec *r;
	__u64 n, v, k;
	int j;

	if (i <= 0 || i >= NR_FUNCS) {
		k = s->unknown;
		if (k < MAX_UNKNOWN)
			s->unknown_key[k] = key;
		s->unknown++;
		return;
	}
	r = &s->f[i];
	r->hits++;
	n = bpf_get_func_arg_cnt(ctx);
	r->nargs = n;
	r->ip = bpf_get_func_ip(ctx);
	r->cookie = bpf_get_attach_cookie(ctx);
	for (j = 0; j < MAX_ARGS; j++) {
		if (j >= n)
			break;
		v = 0;
		if (bpf_get_func_arg(ctx, j, &v))
			r->errs++;
		r->args[j] = v;
	}
	v = 0;
	r->past_end = bpf_get_func_arg(ctx, n, &v);
	if (fexit) {
		v = 0;
		if (bpf_get_func_ret(ctx, &v))
			r->errs++;
		r->ret = v;
	}
}

SEC("fentry.multi/bpf_fentry_test?")
int BPF_PROG(glob_fentry, __u64 a0)
{
	__u64 ip = bpf_get_func_ip(ctx);
	int i;

	if (!mine())
		return 0;
	i = slot_by_ip(ip, st.addrs, NR_FUNCS);
	record(&st.glob_fentry, i, ctx, ip, false);
	if (i > 0 && i < NR_FUNCS)
		st.glob_fentry.f[i].arg0_direct = a0;
	return 0;
}

SEC("fexit.multi/bpf_fentry_test?")
int glob_fexit(void *ctx)
{
	__u64 ip = bpf_get_func_ip(ctx);

	if (mine())
		record(&st.glob_fexit, slot_by_ip(ip, st.addrs, NR_FUNCS), ctx, ip, true);
	return 0;
}

/* No pattern: not auto-attached; the client gives ids and cookies. */
SEC("fentry.multi")
int ids_fentry(void *ctx)
{
	__u64 cookie = bpf_get_attach_cookie(ctx);

	if (mine())
		record(&st.ids_fentry, slot_by_cookie(cookie, NR_FUNCS), ctx, cookie, false);
	return 0;
}

SEC("fexit.multi")
int ids_fexit(void *ctx)
{
	__u64 ip = bpf_get_func_ip(ctx);

	if (mine())
		record(&st.ids_fexit, slot_by_ip(ip, st.addrs, NR_FUNCS), ctx, ip, true);
	return 0;
}

/*
 * Module functions: libbpf loads these with the module's BTF fd as
 * attach_btf_obj_fd and attach_btf_id 0. mod_fentry is auto-attached by
 * its pattern; mod_fexit is attached by the client with module BTF ids
 * (link_create.target_fd 0: the ids are the program's attach BTF's).
 */
SEC("fentry.multi/bpf_testmod:bpf_testmod_fentry_test1")
int BPF_PROG(mod_fentry, __u64 a0)
{
	__u64 ip = bpf_get_func_ip(ctx);
	int i;

	if (!mine())
		return 0;
	i = slot_by_ip(ip, st.mod_addrs, NR_MOD_FUNCS);
	record(&st.mod_fentry, i, ctx, ip, false);
	if (i > 0 && i < NR_MOD_FUNCS)
		st.mod_fentry.f[i].arg0_direct = a0;
	return 0;
}

SEC("fexit.multi/bpf_testmod:bpf_testmod_fentry_test1")
int mod_fexit(void *ctx)
{
	__u64 cookie = bpf_get_attach_cookie(ctx);

	if (mine())
		record(&st.mod_fexit, slot_by_cookie(cookie, NR_MOD_FUNCS), ctx, cookie, true);
	return 0;
}

/*
 * many_args: functions of 0 to 11 argument slots, some passed on the stack
 * (x86-64: slots 6 and up), and 16-byte struct arguments (two slots). The
 * programs do not read ctx directly (bpf_testmod_multi_noargs has none):
 * every slot through bpf_get_func_arg(), filed by bpf_get_func_ip().
 * Returns the slot the call was filed under, 0 if none.
 */
static __always_inline int record_many(struct many_set *s, void *ctx, bool fexit)
{
	__u64 ip = bpf_get_func_ip(ctx), n, v, k;
	struct many_rec *r;
	int i, j;

	i = slot_by_ip(ip, st.many_addrs, NR_MANY_FUNCS);
	if (i <= 0 || i >= NR_MANY_FUNCS) {
		k = s->unknown;
		if (k < MAX_UNKNOWN)
			s->unknown_key[k] = ip;
		s->unknown++;
		return 0;
	}
	r = &s->f[i];
	r->hits++;
	n = bpf_get_func_arg_cnt(ctx);
	r->nargs = n;
	r->ip = ip;
	r->cookie = bpf_get_attach_cookie(ctx);
	for (j = 0; j < MANY_MAX_ARGS; j++) {
		if (j >= n)
			break;
		v = 0;
		if (bpf_get_func_arg(ctx, j, &v))
			r->errs++;
		r->args[j] = v;
	}
	v = 0;
	r->past_end = bpf_get_func_arg(ctx, n, &v);
	if (fexit) {
		v = 0;
		if (bpf_get_func_ret(ctx, &v))
			r->errs++;
		r->ret = v;
	}
	return i;
}

/*
 * Auto-attached on x86-64 (all five of bpf_testmod_fentry_test1..3, 7, 11);
 * on arm64 the pattern takes test11 (11 slots, the trampoline there has 8)
 * and the attach fails as a whole: the client gives ids instead.
 */
SEC("fentry.multi/bpf_testmod:bpf_testmod_fentry_test*")
int many_fentry(void *ctx)
{
	if (mine())
		record_many(&st.many_fentry, ctx, false);
	return 0;
}

SEC("fexit.multi/bpf_testmod:bpf_testmod_fentry_test*")
int many_fexit(void *ctx)
{
	if (mine())
		record_many(&st.many_fexit, ctx, true);
	return 0;
}

/* Attached by the client with the module BTF ids of test_struct_arg_1, 2. */
SEC("fentry.multi/bpf_testmod:bpf_testmod_test_struct_arg_1")
int many_struct_fentry(void *ctx)
{
	if (mine())
		record_many(&st.many_struct_fentry, ctx, false);
	return 0;
}

SEC("fexit.multi/bpf_testmod:bpf_testmod_test_struct_arg_1")
int many_struct_fexit(void *ctx)
{
	if (mine())
		record_many(&st.many_struct_fexit, ctx, true);
	return 0;
}

/*
 * Reads ctx slot 6 directly: attachable only to functions of 7 slots or
 * more (test7, and test11 on x86-64); the client checks that a link with
 * a function of fewer is refused as a whole.
 */
SEC("fentry.multi/bpf_testmod:bpf_testmod_fentry_test7")
int BPF_PROG(many_direct, __u64 a0, __u64 a1, __u64 a2, __u64 a3, __u64 a4,
	     __u64 a5, __u64 a6)
{
	int i;

	if (!mine())
		return 0;
	i = record_many(&st.many_direct, ctx, false);
	if (i > 0 && i < NR_MANY_FUNCS) {
		st.many_direct.f[i].direct0 = a0;
		st.many_direct.f[i].direct6 = a6;
	}
	return 0;
}

/*
 * fsession, fsession.multi and kprobe.session: one program at entry and at
 * exit, told apart by bpf_session_is_return(ctx). Upstream's kfuncs take
 * ctx; this kernel's keep 6.12's prototypes, without a parameter, and take
 * ctx in R1 from fsession programs all the same. libbpf binds an extern
 * kfunc only to a kernel prototype of its own shape, so both are declared,
 * as libbpf flavors (the ___ suffix is not part of the kfunc's name), weak:
 * the one the kernel has is bound, the other is not, and bpf_ksym_exists()
 * picks. Either is called with ctx, in R1 where the kernel looks for it.
 */
extern bool bpf_session_is_return___ctx(void *ctx) __ksym __weak;
extern __u64 *bpf_session_cookie___ctx(void *ctx) __ksym __weak;
extern bool bpf_session_is_return___noctx(void) __ksym __weak;
extern __u64 *bpf_session_cookie___noctx(void) __ksym __weak;

static __always_inline bool session_is_return(void *ctx)
{
	if (bpf_ksym_exists(bpf_session_is_return___ctx))
		return bpf_session_is_return___ctx(ctx);
	return ((bool (*)(void *))bpf_session_is_return___noctx)(ctx);
}

static __always_inline __u64 *session_cookie(void *ctx)
{
	if (bpf_ksym_exists(bpf_session_cookie___ctx))
		return bpf_session_cookie___ctx(ctx);
	return ((__u64 *(*)(void *))bpf_session_cookie___noctx)(ctx);
}

/*
 * Upstream's declaration as upstream's programs have it (vmlinux.h,
 * selftests' bpf_kfuncs.h): weak, with ctx. On this kernel libbpf leaves
 * it unbound and a program calling it fails to load; sess_plain, loaded
 * by the session_upstream_decl subtest alone, shows it.
 */
extern bool bpf_session_is_return(void *ctx) __ksym __weak;
extern __u64 *bpf_session_cookie(void *ctx) __ksym __weak;

/* The slot's record, or NULL and @key kept as not matched. */
static __always_inline struct sess_rec *sess_slot(struct sess_set *s, int i, __u64 key)
{
	__u64 k;

	if (i <= 0 || i >= NR_SESS_FUNCS) {
		k = s->unknown;
		if (k < MAX_UNKNOWN)
			s->unknown_key[k] = key;
		s->unknown++;
		return NULL;
	}
	return &s->f[i];
}

/*
 * The side of @r this run is for; *is_ret as the kernel says. The barrier
 * keeps the compiler from indexing at[] with the kfunc's return value
 * (a bool to it, an unbounded scalar to the verifier).
 */
static __always_inline struct sess_half *sess_side(struct sess_rec *r, void *ctx,
						   bool *is_ret)
{
	__u32 x = session_is_return(ctx);

	barrier_var(x);
	*is_ret = x;
	return x ? &r->at[1] : &r->at[0];
}

/*
 * The session cookie: the value read is kept for the run's call number
 * @k (from 0); the entry then writes SESS_VAL(@tag, @ip, k + 1).
 */
static __always_inline void sess_cookie(struct sess_half *h, void *ctx, bool is_ret,
					__u64 k, __u64 tag, __u64 ip)
{
	__u64 *c = session_cookie(ctx);

	if (k < SESS_CALLS)
		h->sess[k] = *c;
	if (!is_ret)
		*c = SESS_VAL(tag, ip, k + 1);
}

/*
 * One run of an fsession(.multi) program, as record() for either side:
 * the return value at entry (0 is due) is or-ed over the calls.
 */
static __always_inline struct sess_half *record_sess(struct sess_rec *r, void *ctx,
						     __u64 tag, bool *is_retp)
{
	struct sess_half *h;
	__u64 n, v, k;
	bool is_ret;
	int j;

	h = sess_side(r, ctx, &is_ret);
	*is_retp = is_ret;
	k = h->hits++;
	n = bpf_get_func_arg_cnt(ctx);
	h->nargs = n;
	h->ip = bpf_get_func_ip(ctx);
	h->cookie = bpf_get_attach_cookie(ctx);
	for (j = 0; j < MANY_MAX_ARGS; j++) {
		if (j >= n)
			break;
		v = 0;
		if (bpf_get_func_arg(ctx, j, &v))
			h->errs++;
		h->args[j] = v;
	}
	v = 0;
	h->past_end = bpf_get_func_arg(ctx, n, &v);
	v = 0;
	if (bpf_get_func_ret(ctx, &v))
		h->errs++;
	h->ret = is_ret ? v : h->ret | v;
	sess_cookie(h, ctx, is_ret, k, tag, h->ip);
	return h;
}

SEC("fsession.multi/bpf_fentry_test?")
int BPF_PROG(sess_glob, __u64 a0)
{
	__u64 ip = bpf_get_func_ip(ctx);
	struct sess_half *h;
	struct sess_rec *r;
	bool is_ret;

	if (!mine())
		return 0;
	r = sess_slot(&st.sess_glob, slot_by_ip(ip, st.addrs, NR_FUNCS), ip);
	if (!r)
		return 0;
	h = record_sess(r, ctx, SESS_TAG_GLOB, &is_ret);
	h->arg0_direct = a0;
	return 0;
}

/* Attached by the client with vmlinux ids and cookies, filed by cookie. */
SEC("fsession.multi")
int sess_ids(void *ctx)
{
	__u64 cookie = bpf_get_attach_cookie(ctx);
	struct sess_rec *r;
	bool is_ret;

	if (!mine())
		return 0;
	r = sess_slot(&st.sess_ids, slot_by_cookie(cookie, NR_SESS_FUNCS), cookie);
	if (r)
		record_sess(r, ctx, SESS_TAG_IDS, &is_ret);
	return 0;
}

/* bpf_testmod's BTF at load; attached by the client with its ids, cookies. */
SEC("fsession.multi/bpf_testmod:bpf_testmod_fentry_test1")
int sess_mod(void *ctx)
{
	__u64 cookie = bpf_get_attach_cookie(ctx);
	struct sess_rec *r;
	bool is_ret;

	if (!mine())
		return 0;
	r = sess_slot(&st.sess_mod, slot_by_cookie(cookie, NR_SESS_FUNCS), cookie);
	if (r)
		record_sess(r, ctx, SESS_TAG_MOD, &is_ret);
	return 0;
}

/*
 * Two fsession programs on one function, with an fentry and an fexit
 * program between them: each must get its own session cookie. ret is
 * ctx[1] read directly: 0 at entry, the return value at exit.
 */
SEC("fsession/bpf_fentry_test1")
int BPF_PROG(fsess_a, int a, int ret)
{
	struct sess_half *h;
	bool is_ret;

	if (!mine())
		return 0;
	h = record_sess(&st.fsess_a, ctx, SESS_TAG_A, &is_ret);
	h->arg0_direct = a;
	h->ret_direct = is_ret ? (__u64)ret : h->ret_direct | (__u64)ret;
	return 0;
}

SEC("fsession/bpf_fentry_test1")
int BPF_PROG(fsess_b, int a, int ret)
{
	struct sess_half *h;
	bool is_ret;

	if (!mine())
		return 0;
	h = record_sess(&st.fsess_b, ctx, SESS_TAG_B, &is_ret);
	h->arg0_direct = a;
	h->ret_direct = is_ret ? (__u64)ret : h->ret_direct | (__u64)ret;
	return 0;
}

SEC("fentry/bpf_fentry_test1")
int BPF_PROG(plain_fentry, int a)
{
	__u64 ip = bpf_get_func_ip(ctx);
	int i;

	if (!mine())
		return 0;
	i = slot_by_ip(ip, st.addrs, NR_FUNCS);
	record(&st.plain_fentry, i, ctx, ip, false);
	if (i > 0 && i < NR_FUNCS)
		st.plain_fentry.f[i].arg0_direct = a;
	return 0;
}

SEC("fexit/bpf_fentry_test1")
int BPF_PROG(plain_fexit, int a, int ret)
{
	__u64 ip = bpf_get_func_ip(ctx);
	int i;

	if (!mine())
		return 0;
	i = slot_by_ip(ip, st.addrs, NR_FUNCS);
	record(&st.plain_fexit, i, ctx, ip, true);
	if (i > 0 && i < NR_FUNCS)
		st.plain_fexit.f[i].arg0_direct = a;
	return 0;
}

/*
 * kprobe.session written as upstream's selftests are: the kfuncs with ctx.
 * Registers read on x86-64 only (the BPF build has x86's asm/ptrace.h
 * alone, and arm64's 6.12 refuses kprobe_multi links anyway).
 */
SEC("kprobe.session/bpf_fentry_test?")
int ksess(struct pt_regs *ctx)
{
	__u64 ip = bpf_get_func_ip(ctx);
	struct sess_half *h;
	struct sess_rec *r;
	bool is_ret;
	__u64 k;

	if (!mine())
		return 0;
	r = sess_slot(&st.ksess, slot_by_ip(ip, st.addrs, NR_FUNCS), ip);
	if (!r)
		return 0;
	h = sess_side(r, ctx, &is_ret);
	k = h->hits++;
	h->ip = ip;
	h->cookie = bpf_get_attach_cookie(ctx);
#if defined(__TARGET_ARCH_x86)
	{
		/* both loads at constant offsets: the verifier refuses a
		 * load from ctx plus a computed offset, which one load under
		 * the branch would become
		 */
		__u64 rc = PT_REGS_RC(ctx), parm1 = PT_REGS_PARM1(ctx);

		barrier_var(rc);
		barrier_var(parm1);
		if (is_ret)
			h->ret = rc;
		else
			h->args[0] = parm1;
	}
#endif
	sess_cookie(h, ctx, is_ret, k, SESS_TAG_KPROBE, ip);
	return 0;
}

/* Upstream's declaration, not the flavors: refused here (see above). */
SEC("fsession.multi")
int sess_plain(void *ctx)
{
	if (bpf_session_is_return(ctx))
		return 0;
	*bpf_session_cookie(ctx) = 1;
	return 0;
}
