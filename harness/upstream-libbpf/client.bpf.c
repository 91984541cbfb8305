// SPDX-License-Identifier: GPL-2.0
/*
 * BPF side of upstream_libbpf_client: fentry.multi and fexit.multi programs
 * written, loaded and attached the way upstream's libbpf expects. Every
 * program files each call under the function it was made for, found from
 * bpf_get_func_ip() or from the cookie, and records what the helpers report
 * there; the user side checks the records. Arguments are read with
 * bpf_get_func_arg(): a multi program attached to functions of different
 * arities may read directly only as many ctx slots as the smallest of them
 * has, and every function here has at least one, hence a0 alone in BPF_PROG.
 *
 * Built with the vendored libbpf's headers only (no vmlinux.h).
 */
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
