// SPDX-License-Identifier: GPL-2.0
/* bpf_arg(), bpf_ret_value() and direct argument reads in tracing programs:
 * what the verifier accepts, what it rejects, and that it inlines both
 * kfuncs into loads (no call left in the xlated, hence JITed, program);
 * what it accepts and rejects of bpf_arg_btf(), bpf_arg_find() and
 * bpf_arg_first_btf().
 */
/* vmlinux.h's kfunc prototypes, where pahole writes them, are the kernel's:
 * 6.12's for the session kfuncs, not the declarations below
 */
#define BPF_NO_KFUNC_PROTOTYPES
#include <vmlinux.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
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
__failure __msg("bpf_ret_value() is not available to fentry and fentry.multi programs")
int ret_value_fentry_multi(void *ctx)
{
	return bpf_ret_value(ctx);
}

SEC("fentry/bpf_fentry_test1")
__description("bpf_ret_value() in fentry")
__failure __msg("bpf_ret_value() is not available to fentry and fentry.multi programs")
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

/* fsession and fsession.multi: the session kfuncs take the program's ctx
 * (declared here as upstream declares them; the kernel's prototypes are
 * 6.12's, without a parameter, and the verifier checks R1 of an fsession
 * program's call), and only fsession and kprobe.session programs may call
 * them; like fentry and fexit, an fsession program returns 0.
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
__msg("fsession programs call bpf_session_cookie(ctx)")
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
__description("bpf_session_cookie() after a call clobbered R1")
__failure __msg("arg#0 expected pointer to ctx, but got nothing")
__msg("fsession programs call bpf_session_cookie(ctx)")
__naked void session_cookie_r1_clobbered(void)
{
	asm volatile ("call %[bpf_session_is_return];"
		      "call %[bpf_session_cookie];"
		      "r0 = 0;"
		      "exit;"
		      :
		      : __imm(bpf_session_is_return),
			__imm(bpf_session_cookie)
		      : __clobber_all);
}

SEC("fsession.multi")
__description("bpf_session_is_return() on ctx + 8")
__failure __msg("dereference of modified ctx ptr R1 off=8 disallowed")
__naked void session_is_return_ctx_off(void)
{
	asm volatile ("r1 += 8;"
		      "call %[bpf_session_is_return];"
		      "r0 = 0;"
		      "exit;"
		      :
		      : __imm(bpf_session_is_return)
		      : __clobber_all);
}

/* R1 is ctx on the path verified first, a scalar on the other: the call
 * reads R1, so the second path is not pruned at the call.
 */
SEC("fsession/bpf_fentry_test1")
__description("bpf_session_is_return() with ctx on one path only")
__failure __msg("arg#0 expected pointer to ctx, but got scalar")
__naked void session_is_return_ctx_one_path(void)
{
	asm volatile ("r6 = r1;"
		      "call %[bpf_get_prandom_u32];"
		      "r1 = 0;"
		      "if r0 == 0 goto l0_%=;"
		      "r1 = r6;"
		"l0_%=:	call %[bpf_session_is_return];"
		      "r0 = 0;"
		      "exit;"
		      :
		      : __imm(bpf_get_prandom_u32),
			__imm(bpf_session_is_return)
		      : __clobber_all);
}

/* kprobe.session: 6.12's programs call the session kfuncs without an
 * argument, whatever R1 then holds (here 0, then nothing); upstream's pass
 * ctx. Both verify.
 */
SEC("kprobe.session")
__description("kprobe.session: session kfuncs without an argument (6.12)")
__success
__naked void kprobe_session_no_arg(void)
{
	asm volatile ("r1 = 0;"
		      "call %[bpf_session_cookie];"
		      "r6 = r0;"
		      "call %[bpf_session_is_return];"
		      "if r0 != 0 goto l0_%=;"
		      "r1 = 1;"
		      "*(u64 *)(r6 + 0) = r1;"
		"l0_%=:	r0 = 0;"
		      "exit;"
		      :
		      : __imm(bpf_session_is_return),
			__imm(bpf_session_cookie)
		      : __clobber_all);
}

SEC("kprobe.session")
__description("kprobe.session: session kfuncs with ctx (upstream)")
__success
int kprobe_session_ctx(void *ctx)
{
	__u64 *cookie = bpf_session_cookie(ctx);

	if (!bpf_session_is_return(ctx))
		*cookie = 1;
	return 0;
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

/* bpf_arg_btf() and bpf_arg_find() (bpf_arg_as(), bpf_arg_find_type()):
 * a constant struct or union id of the attach BTF, a slot below 12, the
 * result NULL-checked before use, programs that run from trampolines only.
 * Fields read go to arg_btf_sink, so that the compiler keeps the reads.
 */
__u64 arg_btf_sink;

SEC("fentry.multi")
__description("bpf_arg_as(): NULL-checked read")
__success
int arg_as_multi(void *ctx)
{
	struct bpf_fentry_test_t *p = bpf_arg_as(ctx, 0, struct bpf_fentry_test_t);

	if (p)
		arg_btf_sink = !!p->a;
	return 0;
}

SEC("fentry/bpf_fentry_test8")
__description("bpf_arg_as() in fentry: NULL-checked read")
__success
int arg_as_fentry(void *ctx)
{
	struct bpf_fentry_test_t *p = bpf_arg_as(ctx, 0, struct bpf_fentry_test_t);

	if (p)
		arg_btf_sink = !!p->a;
	return 0;
}

SEC("fexit.multi")
__description("bpf_arg_as() and bpf_arg_find_type() in fexit.multi")
__success
int arg_as_fexit_multi(void *ctx)
{
	int n = bpf_arg_find_type(ctx, struct sk_buff);
	struct sk_buff *skb;

	if (n < 0)
		return 0;
	skb = bpf_arg_btf(ctx, n, bpf_core_type_id_kernel(struct sk_buff));
	if (skb)
		arg_btf_sink = (__u64)skb->len;
	return 0;
}

SEC("fmod_ret.multi")
__description("bpf_arg_as() in fmod_ret.multi")
__success
int arg_as_fmod_ret_multi(void *ctx)
{
	struct file *f = bpf_arg_as(ctx, 1, struct file);

	if (f)
		arg_btf_sink = (__u64)f->f_flags;
	return 0;
}

SEC("fentry.multi.s")
__description("bpf_arg_as() in sleepable fentry.multi")
__success
int arg_as_sleepable(void *ctx)
{
	struct file *f = bpf_arg_as(ctx, 0, struct file);

	if (f)
		arg_btf_sink = (__u64)f->f_flags;
	return 0;
}

/* a slot number the verifier does not know */
__u32 arg_btf_slot = 1000;

SEC("fentry.multi")
__description("bpf_arg_btf() at a variable slot")
__success
__xlated("call kernel-function")
int arg_btf_var_slot(void *ctx)
{
	struct file *f = bpf_arg_btf(ctx, arg_btf_slot, bpf_core_type_id_kernel(struct file));

	if (f)
		arg_btf_sink = (__u64)f->f_flags;
	return 0;
}

/*
 * A multi program's bpf_arg_btf() at a constant slot, bpf_arg_find() and
 * bpf_arg_first_btf() are inlined: the link from
 * the trampoline's run context (ctx - 40 on x86-64, ctx - 32 on arm64),
 * the function by the IP at ctx[-2] (a binary search of link->funcs, 24
 * bytes each), its row of link->arg_btf (at twice its entry's address plus
 * link->arg_btf_off), then the slot, or a step per slot.
 */
SEC("fentry.multi")
__description("bpf_arg_btf() at a constant slot is inlined")
__success __arch_x86_64 __arch_arm64
__xlated("r0 = *(u64 *)(r1 {{-(40|32)}})")
__xlated("r4 = *(u64 *)(r0 +{{[0-9]+}})")
__xlated("r5 = *(u32 *)(r0 +{{[0-9]+}})")
__xlated("r2 = *(u64 *)(r1 -16)")
__xlated("if r5 <= 0x1 goto pc+9")
__xlated("r0 = r5")
__xlated("r0 >>= 1")
__xlated("r5 -= r0")
__xlated("r0 *= 24")
__xlated("r0 += r4")
__xlated("r3 = *(u64 *)(r0 +0)")
__xlated("if r3 > r2 goto pc+1")
__xlated("r4 = r0")
__xlated("if r5 > 0x1 goto pc-9")
__xlated("r3 = *(u64 *)(r4 +0)")
__xlated("if r3 != r2 goto pc+9")
__xlated("r0 = *(u64 *)(r1 {{-(40|32)}})")
__xlated("r3 = *(u64 *)(r0 +{{[0-9]+}})")
__xlated("if r3 == 0x0 goto pc+6")
__xlated("r4 += r3")
__xlated("r4 <<= 1")
__xlated("r3 = *(u32 *)(r4 +4)")
__xlated("if w3 != {{0x[0-9a-f]+}} goto pc+2")
__xlated("r0 = *(u64 *)(r1 +8)")
__xlated("goto pc+1")
__xlated("r0 = 0")
int arg_btf_const_slot(void *ctx)
{
	struct file *f = bpf_arg_btf(ctx, 1, bpf_core_type_id_kernel(struct file));

	if (f)
		arg_btf_sink = (__u64)f->f_flags;
	return 0;
}

/*
 * Slot 1 on one path, 2 on the other, one call where they join: the
 * verifier must not prune the second path at the join as it would for a
 * slot whose value does not matter, or it inlines slot 1 for both.
 */
SEC("fentry.multi")
__description("bpf_arg_btf() at slot 1 or 2 by path: the call stays")
__success
__xlated("call kernel-function")
int arg_btf_two_slots(void *ctx)
{
	__u32 n = 1;
	struct file *f;

	if (bpf_get_prandom_u32() & 1) {
		arg_btf_sink = 1;
		n = 2;
	}
	barrier_var(n);
	f = bpf_arg_btf(ctx, n, bpf_core_type_id_kernel(struct file));
	if (f)
		arg_btf_sink = (__u64)f->f_flags;
	return 0;
}

SEC("fentry.multi")
__description("bpf_arg_find() is inlined")
__success __arch_x86_64 __arch_arm64
__xlated("r0 = *(u64 *)(r1 {{-(40|32)}})")
__xlated("...")
__xlated("r3 = *(u64 *)(r4 +0)")
__xlated("if r3 != r2 goto pc+41")
__xlated("r0 = *(u64 *)(r1 {{-(40|32)}})")
__xlated("r3 = *(u64 *)(r0 +{{[0-9]+}})")
__xlated("if r3 == 0x0 goto pc+38")
__xlated("r4 += r3")
__xlated("r4 <<= 1")
__xlated("r0 = 0")
__xlated("r3 = *(u32 *)(r4 +0)")
__xlated("if w3 == {{0x[0-9a-f]+}} goto pc+34")
__xlated("r0 = 1")
__xlated("r3 = *(u32 *)(r4 +4)")
__xlated("if w3 == {{0x[0-9a-f]+}} goto pc+31")
__xlated("...")
__xlated("r0 = 11")
__xlated("r3 = *(u32 *)(r4 +44)")
__xlated("if w3 == {{0x[0-9a-f]+}} goto pc+1")
__xlated("r0 = -2")
int arg_find_inlined(void *ctx)
{
	arg_btf_sink = bpf_arg_find_type(ctx, struct file);
	return 0;
}

SEC("fentry.multi")
__description("bpf_arg_first_btf() is inlined")
__success __arch_x86_64 __arch_arm64
__xlated("r0 = *(u64 *)(r1 {{-(40|32)}})")
__xlated("...")
__xlated("if r3 != r2 goto pc+41")
__xlated("r0 = *(u64 *)(r1 {{-(40|32)}})")
__xlated("r3 = *(u64 *)(r0 +{{[0-9]+}})")
__xlated("if r3 == 0x0 goto pc+38")
__xlated("r4 += r3")
__xlated("r4 <<= 1")
__xlated("r0 = 0")
__xlated("r3 = *(u32 *)(r4 +0)")
__xlated("if w3 == {{0x[0-9a-f]+}} goto pc+35")
__xlated("r0 = 8")
__xlated("r3 = *(u32 *)(r4 +4)")
__xlated("if w3 == {{0x[0-9a-f]+}} goto pc+32")
__xlated("...")
__xlated("r0 = 88")
__xlated("r3 = *(u32 *)(r4 +44)")
__xlated("if w3 == {{0x[0-9a-f]+}} goto pc+2")
__xlated("r0 = 0")
__xlated("goto pc+2")
__xlated("r0 += r1")
__xlated("r0 = *(u64 *)(r0 +0)")
int arg_first_inlined(void *ctx)
{
	struct file *f = bpf_arg_first(ctx, struct file);

	if (f)
		arg_btf_sink = (__u64)f->f_flags;
	return 0;
}

SEC("fentry/bpf_fentry_test8")
__description("bpf_arg_btf() in fentry at a variable slot")
__success
int arg_btf_var_slot_fentry(void *ctx)
{
	struct file *f = bpf_arg_btf(ctx, arg_btf_slot, bpf_core_type_id_kernel(struct file));

	if (f)
		arg_btf_sink = (__u64)f->f_flags;
	return 0;
}

SEC("fentry.multi")
__description("bpf_arg_btf() without a NULL check")
__failure __msg("invalid mem access 'ptr_or_null_'")
int arg_as_no_null_check(void *ctx)
{
	arg_btf_sink = !!bpf_arg_as(ctx, 0, struct bpf_fentry_test_t)->a;
	return 0;
}

SEC("fentry/bpf_fentry_test8")
__description("bpf_arg_btf() in fentry without a NULL check")
__failure __msg("invalid mem access 'ptr_or_null_'")
int arg_as_no_null_check_fentry(void *ctx)
{
	arg_btf_sink = !!bpf_arg_as(ctx, 0, struct bpf_fentry_test_t)->a;
	return 0;
}

SEC("fentry.multi")
__description("bpf_arg_btf() with a variable type id")
__failure __msg("R3 must be a known constant")
int arg_btf_var_id(void *ctx)
{
	return bpf_arg_btf(ctx, 0, bpf_get_prandom_u32()) ? 0 : 0;
}

SEC("fentry/bpf_fentry_test8")
__description("bpf_arg_btf() in fentry with a variable type id")
__failure __msg("R3 must be a known constant")
int arg_btf_var_id_fentry(void *ctx)
{
	return bpf_arg_btf(ctx, 0, bpf_get_prandom_u32()) ? 0 : 0;
}

SEC("fentry.multi")
__description("bpf_arg_find() with a variable type id")
__failure __msg("R2 must be a known constant")
int arg_find_var_id(void *ctx)
{
	return bpf_arg_find(ctx, bpf_get_prandom_u32()) ? 0 : 0;
}

SEC("fentry/bpf_fentry_test8")
__description("bpf_arg_find() in fentry with a variable type id")
__failure __msg("R2 must be a known constant")
int arg_find_var_id_fentry(void *ctx)
{
	return bpf_arg_find(ctx, bpf_get_prandom_u32()) ? 0 : 0;
}

SEC("fentry.multi")
__description("bpf_arg_btf() of int")
__failure __msg("is not a struct or union of vmlinux BTF")
int arg_btf_int(void *ctx)
{
	return bpf_arg_btf(ctx, 0, bpf_core_type_id_kernel(int)) ? 0 : 0;
}

/* atomic_t: a typedef of a struct, not the struct */
SEC("fentry/bpf_fentry_test8")
__description("bpf_arg_btf() in fentry of a typedef")
__failure __msg("is not a struct or union of vmlinux BTF")
int arg_btf_typedef_fentry(void *ctx)
{
	return bpf_arg_btf(ctx, 0, bpf_core_type_id_kernel(atomic_t)) ? 0 : 0;
}

SEC("fentry.multi")
__description("bpf_arg_find() of a typedef")
__failure __msg("is not a struct or union of vmlinux BTF")
int arg_find_typedef(void *ctx)
{
	return bpf_arg_find(ctx, bpf_core_type_id_kernel(atomic_t)) ? 0 : 0;
}

/* bpf_testmod's type, local: the program's attach BTF is vmlinux's */
struct bpf_testmod_typed {
	int val;
} __attribute__((preserve_access_index));

SEC("fentry.multi")
__description("bpf_arg_find_type() of a module type, vmlinux attach BTF")
__failure __msg("is not a struct or union of vmlinux BTF")
int arg_find_module_type(void *ctx)
{
	return bpf_arg_find_type(ctx, struct bpf_testmod_typed) ? 0 : 0;
}

/* one call, two ids: the answer of an ordinary program is made per call */
SEC("fentry/bpf_fentry_test8")
__description("bpf_arg_btf() in fentry, two type ids for one call")
__failure __msg("bpf_arg_btf() takes one type id per call")
int arg_btf_two_ids(void *ctx)
{
	__u32 id = bpf_core_type_id_kernel(struct file);

	if (bpf_get_prandom_u32() & 1)
		id = bpf_core_type_id_kernel(struct sk_buff);
	return bpf_arg_btf(ctx, 0, id) ? 0 : 0;
}

SEC("fentry.multi")
__description("bpf_arg_btf() at slot 12")
__failure __msg("bpf_arg_btf() argument slot 12 is out of range")
int arg_btf_slot12(void *ctx)
{
	return bpf_arg_as(ctx, 12, struct file) ? 0 : 0;
}

SEC("fentry/bpf_fentry_test8")
__description("bpf_arg_btf() in fentry at slot 12")
__failure __msg("bpf_arg_btf() argument slot 12 is out of range")
int arg_btf_slot12_fentry(void *ctx)
{
	return bpf_arg_as(ctx, 12, struct file) ? 0 : 0;
}

SEC("fentry.multi")
__description("bpf_arg_btf() at slot 11")
__success
int arg_btf_slot11(void *ctx)
{
	struct file *f = bpf_arg_as(ctx, 11, struct file);

	if (f)
		arg_btf_sink = (__u64)f->f_flags;
	return 0;
}

SEC("tp_btf/sys_enter")
__description("bpf_arg_btf() without a trampoline")
__failure __msg("calling kernel function bpf_arg_btf is not allowed")
int arg_btf_tp_btf(void *ctx)
{
	return bpf_arg_as(ctx, 0, struct file) ? 0 : 0;
}

SEC("kprobe")
__description("bpf_arg_find() in a kprobe")
__failure __msg("calling kernel function bpf_arg_find is not allowed")
int arg_find_kprobe(void *ctx)
{
	return bpf_arg_find_type(ctx, struct file) ? 0 : 0;
}

SEC("fentry.multi")
__description("bpf_arg_btf() on a moved ctx pointer")
__failure __msg("dereference of modified ctx ptr R1 off=8 disallowed")
int arg_btf_moved_ctx(void *ctx)
{
	return bpf_arg_as(ctx + 8, 0, struct file) ? 0 : 0;
}

/* bpf_arg_first_btf() (bpf_arg_first()): bpf_arg_find() and bpf_arg_btf()
 * in one call, checked as they are.
 */
SEC("fentry.multi")
__description("bpf_arg_first(): NULL-checked read")
__success
int arg_first_multi(void *ctx)
{
	struct bpf_fentry_test_t *p = bpf_arg_first(ctx, struct bpf_fentry_test_t);

	if (p)
		arg_btf_sink = !!p->a;
	return 0;
}

/* bpf_fentry_test8() takes its struct at slot 0: the call becomes a load */
SEC("fentry/bpf_fentry_test8")
__description("bpf_arg_first() in fentry is inlined")
__success
__xlated("r0 = *(u64 *)(r1 +0)")
int arg_first_fentry(void *ctx)
{
	struct bpf_fentry_test_t *p = bpf_arg_first(ctx, struct bpf_fentry_test_t);

	if (p)
		arg_btf_sink = !!p->a;
	return 0;
}

SEC("fentry.multi")
__description("bpf_arg_first() without a NULL check")
__failure __msg("invalid mem access 'ptr_or_null_'")
int arg_first_no_null_check(void *ctx)
{
	arg_btf_sink = !!bpf_arg_first(ctx, struct bpf_fentry_test_t)->a;
	return 0;
}

SEC("fentry.multi")
__description("bpf_arg_first_btf() of int")
__failure __msg("bpf_arg_first_btf() type id")
__msg("is not a struct or union of vmlinux BTF")
int arg_first_int(void *ctx)
{
	return bpf_arg_first_btf(ctx, bpf_core_type_id_kernel(int)) ? 0 : 0;
}

SEC("fentry/bpf_fentry_test8")
__description("bpf_arg_first_btf() in fentry with a variable type id")
__failure __msg("R2 must be a known constant")
int arg_first_var_id_fentry(void *ctx)
{
	return bpf_arg_first_btf(ctx, bpf_get_prandom_u32()) ? 0 : 0;
}

SEC("raw_tp/sys_enter")
__description("bpf_arg_first() without a trampoline")
__failure __msg("calling kernel function bpf_arg_first_btf is not allowed")
int arg_first_raw_tp(void *ctx)
{
	return bpf_arg_first(ctx, struct file) ? 0 : 0;
}
