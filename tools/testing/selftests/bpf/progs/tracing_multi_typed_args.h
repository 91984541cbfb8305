/* SPDX-License-Identifier: GPL-2.0 */
/* What progs/tracing_multi_typed_args.c records and
 * prog_tests/tracing_multi_typed_args.c checks.
 */
#ifndef __TRACING_MULTI_TYPED_ARGS_H
#define __TRACING_MULTI_TYPED_ARGS_H

/* bpf_testmod's bpf_testmod_typed_*() functions */
enum typed_func {
	F_ARG1, F_ARG3, F_ARG6, F_CONST, F_TYPEDEF, F_TWO, F_BYVAL, F_OTHER,
	F_NONE, F_UN, F_TASK, F_I128, NR_TYPED,
};

/* the programs: fentry.multi, fexit.multi, fentry, fexit, fsession.multi */
enum { MULTI_ENTRY, MULTI_EXIT, ENTRY, EXIT, MULTI_SESSION, NR_KINDS };

/* the types bpf_arg_find() looks for, in struct typed_rec's find[] */
enum { T_TYPED, T_OTHER, T_UNION, T_TASK, NR_TYPES };

#define NR_SLOTS 12	/* the most argument slots a function has */

/* What a program saw of one bpf_testmod_typed_*() function. */
struct typed_rec {
	__u64 hits;
	__s64 find[NR_TYPES];		/* bpf_arg_find() of each type */
	__s64 slot_val[NR_SLOTS];	/* bpf_arg_btf(typed) at slot i: ->val, or -1 (NULL) */
	__s64 slot_const[NR_SLOTS];	/* the same, i a constant: the call inlined */
	__s64 past[2];			/* the same at slots 12 and 1000 */
	__s64 first_val;		/* bpf_arg_first(typed): ->val, or -1 */
	__s64 other_val;		/* at bpf_arg_find(other): ->val, or -1 */
	__s64 union_val;		/* at bpf_arg_find(union): ->val, or -1 */
	__s64 task_pid;			/* at bpf_arg_find(task_struct): ->pid, or -1 */
	__s64 ret;			/* fexit: the return value */
};

/* bpf_fentry_test1..9 (vmlinux): fentry.multi and ordinary fentry */
enum { VM_MULTI, VM_ORDINARY, NR_VM_KINDS };

struct vm_rec {
	__u64 hits;
	__s64 find;		/* bpf_arg_find(bpf_fentry_test_t) */
	__s64 find_skb;		/* bpf_arg_find(sk_buff): no function takes one */
	__s64 slot0;		/* bpf_arg_as(0): 1 non-NULL, 0 NULL */
	__s64 slot0_a;		/* and its ->a: 1 non-NULL, 0 NULL; -1 if no slot0 */
	__s64 slot1;		/* bpf_arg_as(1): 1 non-NULL, 0 NULL */
};

#endif
