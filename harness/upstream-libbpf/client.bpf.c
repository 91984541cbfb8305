// SPDX-License-Identifier: GPL-2.0
/*
 * BPF side of upstream_libbpf_client: fentry.multi and fexit.multi programs
 * written, loaded and attached the way upstream's libbpf expects. Every
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
 * programs do not read ctx directly (bpf_testmod_fentry_test0 has none):
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
 * Auto-attached on x86-64 (all six of bpf_testmod_fentry_test0..3, 7, 11);
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
