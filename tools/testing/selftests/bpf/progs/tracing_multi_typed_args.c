// SPDX-License-Identifier: GPL-2.0
/* bpf_arg_btf(), bpf_arg_find() and bpf_arg_first_btf() (bpf_arg_as(),
 * bpf_arg_find_type(), bpf_arg_first()) in fentry.multi, fexit.multi and
 * ordinary fentry/fexit programs, on bpf_testmod's bpf_testmod_typed_*()
 * functions (module types) and on the kernel's bpf_fentry_test*() (a
 * vmlinux type). Every program files, per traced function, what the kfuncs
 * answer at each argument slot and the fields they let it read; the test
 * compares that with the prototypes.
 */
/* vmlinux.h's prototype of bpf_session_is_return() is 6.12's */
#define BPF_NO_KFUNC_PROTOTYPES
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "tracing_multi_typed_args.h"
#include "tracing_multi_funcs.h"

char _license[] SEC("license") = "GPL";

/* bpf_testmod's types (not in vmlinux.h): CO-RE finds them in its BTF. */
struct bpf_testmod_typed {
	int val;
} __attribute__((preserve_access_index));

struct bpf_testmod_other {
	int val;
} __attribute__((preserve_access_index));

union bpf_testmod_typed_u {
	int val;
} __attribute__((preserve_access_index));

/* The functions, in the order of enum typed_func */
extern const void bpf_testmod_typed_arg1 __ksym;
extern const void bpf_testmod_typed_arg3 __ksym;
extern const void bpf_testmod_typed_arg6 __ksym;
extern const void bpf_testmod_typed_const __ksym;
extern const void bpf_testmod_typed_typedef __ksym;
extern const void bpf_testmod_typed_two __ksym;
extern const void bpf_testmod_typed_byval __ksym;
extern const void bpf_testmod_typed_other __ksym;
extern const void bpf_testmod_typed_none __ksym;
extern const void bpf_testmod_typed_un __ksym;
extern const void bpf_testmod_typed_task __ksym;
extern const void bpf_testmod_typed_i128 __ksym;

extern bool bpf_session_is_return(void *ctx) __ksym;

struct typed_rec recs[NR_KINDS][NR_TYPED];
__u64 bad;

/* Slots past the last, as values the verifier does not know: a constant
 * slot of 12 or more does not load.
 */
__u32 past_slots[2] = { NR_SLOTS, 1000 };

static __always_inline int typed_index(__u64 ip)
{
	if (ip == (__u64)&bpf_testmod_typed_arg1)
		return F_ARG1;
	if (ip == (__u64)&bpf_testmod_typed_arg3)
		return F_ARG3;
	if (ip == (__u64)&bpf_testmod_typed_arg6)
		return F_ARG6;
	if (ip == (__u64)&bpf_testmod_typed_const)
		return F_CONST;
	if (ip == (__u64)&bpf_testmod_typed_typedef)
		return F_TYPEDEF;
	if (ip == (__u64)&bpf_testmod_typed_two)
		return F_TWO;
	if (ip == (__u64)&bpf_testmod_typed_byval)
		return F_BYVAL;
	if (ip == (__u64)&bpf_testmod_typed_other)
		return F_OTHER;
	if (ip == (__u64)&bpf_testmod_typed_none)
		return F_NONE;
	if (ip == (__u64)&bpf_testmod_typed_un)
		return F_UN;
	if (ip == (__u64)&bpf_testmod_typed_task)
		return F_TASK;
	if (ip == (__u64)&bpf_testmod_typed_i128)
		return F_I128;
	return -1;
}

static __always_inline void record(void *ctx, int kind, int f, bool has_ret)
{
	__u32 typed_id = bpf_core_type_id_kernel(struct bpf_testmod_typed);
	struct bpf_testmod_typed *p;
	struct bpf_testmod_other *o;
	union bpf_testmod_typed_u *u;
	struct task_struct *t;
	struct typed_rec *r;
	int i, n;

	if (!mine())
		return;
	if (f < 0 || f >= NR_TYPED) {
		bad++;
		return;
	}
	r = &recs[kind][f];
	r->hits++;
	r->find[T_TYPED] = bpf_arg_find_type(ctx, struct bpf_testmod_typed);
	r->find[T_OTHER] = bpf_arg_find_type(ctx, struct bpf_testmod_other);
	r->find[T_UNION] = bpf_arg_find_type(ctx, union bpf_testmod_typed_u);
	r->find[T_TASK] = bpf_arg_find_type(ctx, struct task_struct);

	/* every slot, those past the function's last argument too; a slot
	 * the verifier does not know at the call: the kfunc is called
	 */
#pragma clang loop unroll(disable)
	for (i = 0; i < NR_SLOTS; i++) {
		p = bpf_arg_btf(ctx, i, typed_id);
		r->slot_val[i] = p ? p->val : -1;
	}
	/* the same, a call per slot: each slot is a constant, so the verifier
	 * inlines a multi program's calls
	 */
#pragma clang loop unroll(full)
	for (i = 0; i < NR_SLOTS; i++) {
		p = bpf_arg_btf(ctx, i, typed_id);
		r->slot_const[i] = p ? p->val : -1;
	}
	for (i = 0; i < 2; i++) {
		p = bpf_arg_btf(ctx, past_slots[i], typed_id);
		r->past[i] = p ? p->val : -1;
	}

	p = bpf_arg_first(ctx, struct bpf_testmod_typed);
	r->first_val = p ? p->val : -1;

	r->other_val = -1;
	n = r->find[T_OTHER];
	if (n >= 0) {
		o = bpf_arg_btf(ctx, n, bpf_core_type_id_kernel(struct bpf_testmod_other));
		r->other_val = o ? o->val : -2;
	}
	r->union_val = -1;
	n = r->find[T_UNION];
	if (n >= 0) {
		u = bpf_arg_btf(ctx, n, bpf_core_type_id_kernel(union bpf_testmod_typed_u));
		r->union_val = u ? u->val : -2;
	}
	r->task_pid = -1;
	n = r->find[T_TASK];
	if (n >= 0) {
		t = bpf_arg_btf(ctx, n, bpf_core_type_id_kernel(struct task_struct));
		r->task_pid = t ? t->pid : -2;
	}
	if (has_ret)
		r->ret = (int)bpf_ret_value(ctx);
}

SEC("fentry.multi/bpf_testmod:bpf_testmod_typed_*")
int typed_entry(void *ctx)
{
	record(ctx, MULTI_ENTRY, typed_index(bpf_get_func_ip(ctx)), false);
	return 0;
}

SEC("fexit.multi/bpf_testmod:bpf_testmod_typed_*")
int typed_exit(void *ctx)
{
	record(ctx, MULTI_EXIT, typed_index(bpf_get_func_ip(ctx)), true);
	return 0;
}

/* An fsession.multi program, at the function's exit: its frame holds
 * session cookies too, and the inlined calls find the link and the IP
 * where they do in the others.
 */
SEC("?fsession.multi/bpf_testmod:bpf_testmod_typed_*")
int typed_session(void *ctx)
{
	if (bpf_session_is_return(ctx))
		record(ctx, MULTI_SESSION, typed_index(bpf_get_func_ip(ctx)), true);
	return 0;
}

/* Ordinary programs: the verifier answers from the one prototype. */
SEC("fentry/bpf_testmod_typed_arg3")
int typed_entry_arg3(void *ctx)
{
	record(ctx, ENTRY, F_ARG3, false);
	return 0;
}

SEC("fexit/bpf_testmod_typed_other")
int typed_exit_other(void *ctx)
{
	record(ctx, EXIT, F_OTHER, true);
	return 0;
}

/* (__int128, struct bpf_testmod_typed *): libbpf's patterns leave the
 * function out of multi links; the test attaches this on x86-64 only
 * (6.12's arm64 trampolines save one register for a 16-byte integer).
 */
SEC("fentry/bpf_testmod_typed_i128")
int typed_entry_i128(void *ctx)
{
	record(ctx, ENTRY, F_I128, false);
	return 0;
}

/* The same, written as a user would: a constant slot, a NULL check. */
__s64 arg3_val = -1, arg3_slot0 = -1;

SEC("fentry/bpf_testmod_typed_arg3")
int typed_arg3_simple(void *ctx)
{
	struct bpf_testmod_typed *p = bpf_arg_as(ctx, 2, struct bpf_testmod_typed);
	struct bpf_testmod_typed *q = bpf_arg_as(ctx, 0, struct bpf_testmod_typed);

	if (p)
		arg3_val = p->val;
	if (q)
		arg3_slot0 = q->val;
	return 0;
}

/*
 * A vmlinux type: bpf_fentry_test7(NULL) and bpf_fentry_test8(&arg) take
 * struct bpf_fentry_test_t *, bpf_fentry_test1..6 and 9 other types
 * (int, u64, void *, u32 *). Indexed by N of bpf_fentry_testN
 * (func_index(), tracing_multi_funcs.h).
 */
struct vm_rec vm_recs[NR_VM_KINDS][10];

static __always_inline void vm_record(void *ctx, int kind, int f)
{
	struct bpf_fentry_test_t *p;
	struct vm_rec *r;

	if (!mine())
		return;
	if (f <= 0 || f > 9) {
		bad++;
		return;
	}
	r = &vm_recs[kind][f];
	r->hits++;
	r->find = bpf_arg_find_type(ctx, struct bpf_fentry_test_t);
	r->find_skb = bpf_arg_find_type(ctx, struct sk_buff);
	p = bpf_arg_as(ctx, 0, struct bpf_fentry_test_t);
	r->slot0 = !!p;
	r->slot0_a = p ? !!p->a : -1;
	r->slot1 = !!bpf_arg_as(ctx, 1, struct bpf_fentry_test_t);
}

SEC("fentry.multi/bpf_fentry_test?")
int vm_entry(void *ctx)
{
	vm_record(ctx, VM_MULTI, func_index(bpf_get_func_ip(ctx)));
	return 0;
}

SEC("fentry/bpf_fentry_test8")
int vm_entry8(void *ctx)
{
	vm_record(ctx, VM_ORDINARY, 8);
	return 0;
}

SEC("fentry/bpf_fentry_test1")
int vm_entry1(void *ctx)
{
	vm_record(ctx, VM_ORDINARY, 1);
	return 0;
}

/*
 * vmlinux's attach BTF (no module in SEC()), attached to bpf_testmod's
 * bpf_testmod_typed_task(int, struct task_struct *): vmlinux types work on
 * a module's functions.
 */
__s64 vm_task_find = -100, vm_task_pid = -100;

SEC("fentry.multi")
int vm_task(void *ctx)
{
	struct task_struct *t;
	int n;

	n = bpf_arg_find_type(ctx, struct task_struct);
	vm_task_find = n;
	if (n < 0)
		return 0;
	t = bpf_arg_btf(ctx, n, bpf_core_type_id_kernel(struct task_struct));
	vm_task_pid = t ? t->pid : -2;
	return 0;
}

/*
 * Tail calls: a callee's bpf_arg_btf() answers from its caller's link,
 * which keeps argument types only if the caller calls the kfuncs too, in
 * ids of the caller's attach BTF. The prog arrays' owners (set when a
 * caller loads) refuse a callee that would answer from a caller without
 * them.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} jmp_plain SEC(".maps"), jmp_typed SEC(".maps");

__s64 tail_caller_slot = -100, tail_val = -100;

SEC("?fentry.multi/bpf_testmod:bpf_testmod_typed_arg3")
int tail_caller_plain(void *ctx)
{
	bpf_tail_call(ctx, &jmp_plain, 0);
	return 0;
}

SEC("?fentry.multi/bpf_testmod:bpf_testmod_typed_arg3")
int tail_caller_typed(void *ctx)
{
	tail_caller_slot = bpf_arg_find_type(ctx, struct bpf_testmod_typed);
	bpf_tail_call(ctx, &jmp_typed, 0);
	return 0;
}

SEC("?fentry.multi/bpf_testmod:bpf_testmod_typed_arg3")
int tail_callee(void *ctx)
{
	struct bpf_testmod_typed *p = bpf_arg_as(ctx, 2, struct bpf_testmod_typed);

	tail_val = p ? p->val : -1;
	return 0;
}

/* Loaded against a BPF program (fentry on its function): no kernel
 * prototype to answer from, refused at load.
 */
__u64 on_bpf_prog;

SEC("?fentry/test_pkt_access")
int typed_on_bpf_prog(void *ctx)
{
	on_bpf_prog = !!bpf_arg_as(ctx, 0, struct task_struct);
	return 0;
}
