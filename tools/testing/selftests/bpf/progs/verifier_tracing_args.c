// SPDX-License-Identifier: GPL-2.0
/* bpf_arg(), bpf_ret_value() and direct argument reads in tracing programs:
 * what the verifier accepts, what it rejects, and that it inlines both
 * kfuncs into loads (no call left in the xlated, hence JITed, program).
 */
#include <vmlinux.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "bpf_misc.h"

char _license[] SEC("license") = "GPL";

SEC("fentry.multi")
__description("bpf_arg() is inlined")
__success
__xlated("0: r2 = 1")
__xlated("1: r0 = *(u64 *)(r1 -8)")
__xlated("2: w2 = w2")
__xlated("3: if r2 >= r0 goto pc+4")
__xlated("4: r2 <<= 3")
__xlated("5: r2 += r1")
__xlated("6: r0 = *(u64 *)(r2 +0)")
__xlated("7: goto pc+1")
__xlated("8: r0 = 0")
__xlated("9: r0 = 0")
__xlated("10: exit")
__naked void arg_inlined(void)
{
	asm volatile ("r2 = 1;"
		      "call %[bpf_arg];"
		      "r0 = 0;"
		      "exit;"
		      :
		      : __imm(bpf_arg)
		      : __clobber_all);
}

SEC("fexit.multi")
__description("bpf_ret_value() is inlined")
__success
__xlated("0: r0 = *(u64 *)(r1 -8)")
__xlated("1: r0 <<= 3")
__xlated("2: r0 += r1")
__xlated("3: r0 = *(u64 *)(r0 +0)")
__xlated("4: r0 = 0")
__xlated("5: exit")
__naked void ret_value_inlined(void)
{
	asm volatile ("call %[bpf_ret_value];"
		      "r0 = 0;"
		      "exit;"
		      :
		      : __imm(bpf_ret_value)
		      : __clobber_all);
}

SEC("fentry.multi")
__description("bpf_ret_value() in fentry.multi")
__failure __msg("bpf_ret_value() is only for fexit and fmod_ret programs")
int ret_value_fentry_multi(void *ctx)
{
	return bpf_ret_value(ctx);
}

SEC("fentry/bpf_fentry_test1")
__description("bpf_ret_value() in fentry")
__failure __msg("bpf_ret_value() is only for fexit and fmod_ret programs")
int ret_value_fentry(void *ctx)
{
	return bpf_ret_value(ctx);
}

SEC("fexit/bpf_fentry_test2")
__description("bpf_arg() and bpf_ret_value() in fexit")
__success
int BPF_PROG(fexit_both, int a, __u64 b, int ret)
{
	return bpf_arg(ctx, 1) + bpf_ret_value(ctx) == b + ret ? 0 : 0;
}

SEC("fmod_ret/bpf_modify_return_test")
__description("bpf_arg() and bpf_ret_value() in fmod_ret")
__success
int fmod_ret_both(void *ctx)
{
	return bpf_arg(ctx, 0) + bpf_ret_value(ctx) ? 0 : 0;
}

SEC("fmod_ret.multi")
__description("bpf_arg() and bpf_ret_value() in fmod_ret.multi")
__success
int fmod_ret_multi_both(void *ctx)
{
	return bpf_arg(ctx, 0) + bpf_ret_value(ctx) ? 0 : 0;
}

SEC("fentry.multi.s")
__description("bpf_arg() in sleepable fentry.multi")
__success
int sleepable_arg(void *ctx)
{
	return bpf_arg(ctx, 0) ? 0 : 0;
}

SEC("fexit.multi.s")
__description("bpf_ret_value() in sleepable fexit.multi")
__success
int sleepable_ret_value(void *ctx)
{
	return bpf_ret_value(ctx) ? 0 : 0;
}

SEC("fentry.multi")
__description("bpf_arg() on a stack pointer")
__failure __msg("arg#0 expected pointer to ctx, but got fp")
__naked void arg_not_ctx(void)
{
	asm volatile ("r1 = r10;"
		      "r1 += -8;"
		      "r2 = 0;"
		      "call %[bpf_arg];"
		      "r0 = 0;"
		      "exit;"
		      :
		      : __imm(bpf_arg)
		      : __clobber_all);
}

SEC("fentry.multi")
__description("bpf_arg() on a moved ctx pointer")
__failure __msg("dereference of modified ctx ptr R1 off=8 disallowed")
__naked void arg_moved_ctx(void)
{
	asm volatile ("r1 += 8;"
		      "r2 = 0;"
		      "call %[bpf_arg];"
		      "r0 = 0;"
		      "exit;"
		      :
		      : __imm(bpf_arg)
		      : __clobber_all);
}

SEC("tp_btf/sys_enter")
__description("bpf_arg() without a trampoline")
__failure __msg("calling kernel function bpf_arg is not allowed")
int arg_tp_btf(void *ctx)
{
	return bpf_arg(ctx, 0) ? 0 : 0;
}

SEC("fentry.multi")
__description("direct read of argument slot 11")
__success
__naked void direct_arg11(void)
{
	asm volatile ("r0 = *(u64 *)(r1 + 88);"
		      "r0 = 0;"
		      "exit;"
		      ::: __clobber_all);
}

SEC("fentry.multi")
__description("direct read past argument slot 11")
__failure __msg("invalid bpf_context access off=96 size=8")
__naked void direct_arg12(void)
{
	asm volatile ("r0 = *(u64 *)(r1 + 96);"
		      "r0 = 0;"
		      "exit;"
		      ::: __clobber_all);
}

SEC("fexit.multi")
__description("direct read of nr_args")
__failure __msg("invalid bpf_context access off=-8 size=8")
__naked void direct_nr_args(void)
{
	asm volatile ("r0 = *(u64 *)(r1 - 8);"
		      "r0 = 0;"
		      "exit;"
		      ::: __clobber_all);
}

SEC("fentry.multi")
__description("4-byte direct read")
__failure __msg("invalid bpf_context access off=0 size=4")
__naked void direct_narrow(void)
{
	asm volatile ("r0 = *(u32 *)(r1 + 0);"
		      "r0 = 0;"
		      "exit;"
		      ::: __clobber_all);
}

SEC("fentry.multi")
__description("direct write")
__failure __msg("invalid bpf_context access off=0 size=8")
__naked void direct_write(void)
{
	asm volatile ("r2 = 1;"
		      "*(u64 *)(r1 + 0) = r2;"
		      "r0 = 0;"
		      "exit;"
		      ::: __clobber_all);
}

/* fsession and fsession.multi: the session kfuncs take the program's ctx,
 * and only fsession programs may call them; like fentry and fexit, an
 * fsession program returns 0.
 */
extern bool bpf_session_is_return(void *ctx) __ksym;
extern __u64 *bpf_session_cookie(void *ctx) __ksym;

SEC("fsession/bpf_fentry_test1")
__description("fsession: session kfuncs, arguments and return value")
__success
int BPF_PROG(fsession_ok, int a, int ret)
{
	__u64 *cookie = bpf_session_cookie(ctx);

	if (bpf_session_is_return(ctx))
		return *cookie == a + ret ? 0 : 0;
	*cookie = a;
	return 0;
}

SEC("fsession.multi")
__description("fsession.multi: session kfuncs and helpers")
__success
int fsession_multi_ok(void *ctx)
{
	__u64 *cookie = bpf_session_cookie(ctx), ret = 0;

	if (bpf_session_is_return(ctx))
		return bpf_get_func_ret(ctx, &ret) + *cookie + bpf_get_func_arg_cnt(ctx) ? 0 : 0;
	*cookie = bpf_get_func_ip(ctx) + bpf_get_attach_cookie(ctx);
	return 0;
}

SEC("fsession.s/bpf_fentry_test1")
__description("sleepable fsession: session kfuncs")
__success
int fsession_sleepable(void *ctx)
{
	return bpf_session_is_return(ctx) && *bpf_session_cookie(ctx) ? 0 : 0;
}

SEC("fsession.multi.s")
__description("sleepable fsession.multi: session kfuncs")
__success
int fsession_multi_sleepable(void *ctx)
{
	return bpf_session_is_return(ctx) && *bpf_session_cookie(ctx) ? 0 : 0;
}

SEC("fentry/bpf_fentry_test1")
__description("bpf_session_is_return() in fentry")
__failure __msg("calling kernel function bpf_session_is_return is not allowed")
int session_is_return_fentry(void *ctx)
{
	return bpf_session_is_return(ctx) ? 0 : 0;
}

SEC("fexit/bpf_fentry_test1")
__description("bpf_session_cookie() in fexit")
__failure __msg("calling kernel function bpf_session_cookie is not allowed")
int session_cookie_fexit(void *ctx)
{
	return *bpf_session_cookie(ctx) ? 0 : 0;
}

SEC("fexit.multi")
__description("bpf_session_is_return() in fexit.multi")
__failure __msg("calling kernel function bpf_session_is_return is not allowed")
int session_is_return_fexit_multi(void *ctx)
{
	return bpf_session_is_return(ctx) ? 0 : 0;
}

SEC("fentry.multi")
__description("bpf_session_cookie() in fentry.multi")
__failure __msg("calling kernel function bpf_session_cookie is not allowed")
int session_cookie_fentry_multi(void *ctx)
{
	return *bpf_session_cookie(ctx) ? 0 : 0;
}

SEC("fsession/bpf_fentry_test1")
__description("bpf_session_is_return() on NULL")
__failure __msg("arg#0 expected pointer to ctx")
__naked void session_is_return_null(void)
{
	asm volatile ("r1 = 0;"
		      "call %[bpf_session_is_return];"
		      "r0 = 0;"
		      "exit;"
		      :
		      : __imm(bpf_session_is_return)
		      : __clobber_all);
}

SEC("fsession.multi")
__description("bpf_session_cookie() on a stack pointer")
__failure __msg("arg#0 expected pointer to ctx, but got fp")
__naked void session_cookie_not_ctx(void)
{
	asm volatile ("r1 = r10;"
		      "r1 += -8;"
		      "call %[bpf_session_cookie];"
		      "r0 = 0;"
		      "exit;"
		      :
		      : __imm(bpf_session_cookie)
		      : __clobber_all);
}

SEC("fsession/bpf_fentry_test1")
__description("fsession returns 1")
__failure __msg("At program exit the register R0 has smin=1 smax=1 should have been in [0, 0]")
__naked void fsession_return_1(void)
{
	asm volatile ("r0 = 1;"
		      "exit;"
		      ::: __clobber_all);
}

SEC("fsession.multi")
__description("fsession.multi returns 1")
__failure __msg("At program exit the register R0 has smin=1 smax=1 should have been in [0, 0]")
__naked void fsession_multi_return_1(void)
{
	asm volatile ("r0 = 1;"
		      "exit;"
		      ::: __clobber_all);
}
