// SPDX-License-Identifier: GPL-2.0
/*
 * BPF side of base_libbpf_client: a kprobe.session program written as
 * 6.12's selftests write them (progs/kprobe_multi_session.c and
 * kprobe_multi_session_cookie.c), with 6.12's declarations of the session
 * kfuncs, built against 6.12's libbpf (the base tree's tools/lib/bpf and
 * UAPI header, unmodified). On bpf_fentry_test1..9: per function, the entry
 * and return runs of this process, the session cookie from entry to
 * return, PARM1 at entry and RC at return; the entry run of
 * bpf_fentry_test5..8 returns 1, so that their return runs do not happen.
 * ksess_flavors does the same with both prototypes as libbpf flavors.
 */
#include <stdbool.h>
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <asm/ptrace.h>
#include "client.h"

char _license[] SEC("license") = "GPL";

/* 6.12's declarations (tools/testing/selftests/bpf/bpf_kfuncs.h) */
extern bool bpf_session_is_return(void) __ksym;
extern __u64 *bpf_session_cookie(void) __ksym;

extern const void bpf_fentry_test1 __ksym;
extern const void bpf_fentry_test2 __ksym;
extern const void bpf_fentry_test3 __ksym;
extern const void bpf_fentry_test4 __ksym;
extern const void bpf_fentry_test5 __ksym;
extern const void bpf_fentry_test6 __ksym;
extern const void bpf_fentry_test7 __ksym;
extern const void bpf_fentry_test8 __ksym;
extern const void bpf_fentry_test9 __ksym;

/* st[0]: ksess, 6.12's declarations; st[1]: ksess_flavors */
struct client_state st[2];

static __always_inline int slot_of(__u64 ip)
{
	const void *funcs[NR_FUNCS] = {
		NULL,
		&bpf_fentry_test1, &bpf_fentry_test2, &bpf_fentry_test3,
		&bpf_fentry_test4, &bpf_fentry_test5, &bpf_fentry_test6,
		&bpf_fentry_test7, &bpf_fentry_test8, &bpf_fentry_test9,
	};
	int i;

	for (i = 1; i < NR_FUNCS; i++)
		if (funcs[i] == (const void *)ip)
			return i;
	return 0;
}

/* The slot of this run's function, 0 for another process or function. */
static __always_inline int slot(struct client_state *s, struct pt_regs *ctx)
{
	int i;

	if ((bpf_get_current_pid_tgid() >> 32) != s->tgid)
		return 0;
	i = slot_of(bpf_get_func_ip(ctx));
	if (i <= 0 || i >= NR_FUNCS) {
		s->unknown++;
		return 0;
	}
	return i;
}

/* One run: the entry's return value (1: no return run) */
static __always_inline int record(struct client_state *s, int i, bool is_return,
				  __u64 *cookie, __u64 parm1, __u64 rc)
{
	__u64 n;

	if (i <= 0 || i >= NR_FUNCS)
		return 0;
	if (is_return) {
		s->ret[i]++;
		s->ret_cookie[i] = *cookie;
		s->rc[i] = rc;
		return 0;
	}
	n = ++s->entry[i];
	s->parm1[i] = parm1;
	*cookie = SESS_VAL(i, n);
	return NO_RETURN(i) ? 1 : 0;
}

SEC("kprobe.session/bpf_fentry_test?")
int ksess(struct pt_regs *ctx)
{
	/* both loads at constant offsets, before any branch */
	__u64 rc = PT_REGS_RC(ctx), parm1 = PT_REGS_PARM1(ctx);
	int i;

	barrier_var(rc);
	barrier_var(parm1);
	i = slot(&st[0], ctx);
	if (!i)
		return 0;
	return record(&st[0], i, bpf_session_is_return(), bpf_session_cookie(), parm1, rc);
}

/*
 * The same with the declarations of a program built for 6.12 and for
 * upstream alike: both prototypes as libbpf flavors, weak, the one the
 * kernel has called (with ctx, which upstream's takes).
 */
extern bool bpf_session_is_return___ctx(void *ctx) __ksym __weak;
extern __u64 *bpf_session_cookie___ctx(void *ctx) __ksym __weak;
extern bool bpf_session_is_return___noctx(void) __ksym __weak;
extern __u64 *bpf_session_cookie___noctx(void) __ksym __weak;

SEC("kprobe.session/bpf_fentry_test?")
int ksess_flavors(struct pt_regs *ctx)
{
	__u64 rc = PT_REGS_RC(ctx), parm1 = PT_REGS_PARM1(ctx), *cookie;
	bool is_return;
	int i;

	barrier_var(rc);
	barrier_var(parm1);
	i = slot(&st[1], ctx);
	if (!i)
		return 0;
	if (bpf_ksym_exists(bpf_session_is_return___ctx)) {
		is_return = bpf_session_is_return___ctx(ctx);
		cookie = bpf_session_cookie___ctx(ctx);
	} else {
		is_return = ((bool (*)(void *))bpf_session_is_return___noctx)(ctx);
		cookie = ((__u64 *(*)(void *))bpf_session_cookie___noctx)(ctx);
	}
	return record(&st[1], i, is_return, cookie, parm1, rc);
}

/* Not attached: test_run of it calls bpf_fentry_test1..9 (6.12's trigger). */
SEC("fentry/bpf_modify_return_test")
int BPF_PROG(trigger)
{
	return 0;
}
