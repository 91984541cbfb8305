// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_arg() and bpf_ret_value(): the traced function's arguments and return
 * value for any program that runs from a BPF trampoline, whatever the
 * function's arity. Every trampoline stores the number of argument slots at
 * ctx[-1]; the arguments follow at ctx[0..nr_args-1] and the return value at
 * ctx[nr_args]. The verifier inlines both calls into those loads (see
 * fixup_kfunc_call()); the bodies below do the same and document it.
 *
 * bpf_arg_btf(), bpf_arg_find() and bpf_arg_first_btf(): an argument by its
 * BTF type. Each argument slot that holds a pointer to a struct or union is
 * known by that type's BTF id (bpf_arg_btf_slots()). An ordinary program has
 * one target: the verifier answers from its prototype and inlines the
 * answer. A multi program has many: its link keeps one such table per
 * function, made at attach, and the kfunc finds the function's table as
 * bpf_get_attach_cookie() finds its cookie. Their bodies, which run only
 * for multi programs, are in tracing_multi_link.c.
 */
#include <linux/bpf.h>
#include <linux/btf.h>
#include <linux/btf_ids.h>
#include <linux/init.h>

__bpf_kfunc_start_defs();

/**
 * bpf_arg() - an argument of the traced function
 * @ctx: the program's context, as passed to it
 * @n: argument slot, from 0 (a struct of more than 8 bytes takes two)
 *
 * Return: argument slot @n as a u64, or 0 when the traced function has
 * fewer than @n + 1 argument slots.
 */
__bpf_kfunc u64 bpf_arg(void *ctx, unsigned int n)
{
	u64 *slots = ctx;

	return n < (slots[-1] & BPF_TRAMP_NR_SLOTS_MASK) ? slots[n] : 0;
}

/**
 * bpf_ret_value() - the traced function's return value
 * @ctx: the program's context, as passed to it
 *
 * Only fexit, fmod_ret and fsession programs (ordinary or multi) may call
 * it; the verifier rejects it elsewhere. In fmod_ret programs it is the
 * value the previous fmod_ret program returned (0 for the first), in
 * fsession programs 0 at entry.
 *
 * Return: the return value, as a u64.
 */
__bpf_kfunc u64 bpf_ret_value(void *ctx)
{
	u64 *slots = ctx;

	return slots[slots[-1] & BPF_TRAMP_NR_SLOTS_MASK];
}

#ifndef CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS
/* No multi programs: the verifier inlines every call of these. */
__bpf_kfunc void *bpf_arg_btf(void *ctx, u32 n, u32 btf_id__k)
{
	return NULL;
}

__bpf_kfunc int bpf_arg_find(void *ctx, u32 btf_id__k)
{
	return -ENOENT;
}

__bpf_kfunc void *bpf_arg_first_btf(void *ctx, u32 btf_id__k)
{
	return NULL;
}
#endif

__bpf_kfunc_end_defs();

BTF_KFUNCS_START(tracing_args_kfunc_ids)
BTF_ID_FLAGS(func, bpf_arg)
BTF_ID_FLAGS(func, bpf_ret_value)
BTF_ID_FLAGS(func, bpf_arg_btf, KF_RET_NULL)
BTF_ID_FLAGS(func, bpf_arg_find)
BTF_ID_FLAGS(func, bpf_arg_first_btf, KF_RET_NULL)
BTF_KFUNCS_END(tracing_args_kfunc_ids)

/* Only trampoline programs have nr_args at ctx[-1]. */
static int tracing_args_kfunc_filter(const struct bpf_prog *prog, u32 kfunc_id)
{
	if (!btf_id_set8_contains(&tracing_args_kfunc_ids, kfunc_id))
		return 0;
	if (prog->type == BPF_PROG_TYPE_TRACING && bpf_prog_has_trampoline(prog))
		return 0;
	return -EACCES;
}

static const struct btf_kfunc_id_set tracing_args_kfunc_set = {
	.owner	= THIS_MODULE,
	.set	= &tracing_args_kfunc_ids,
	.filter	= tracing_args_kfunc_filter,
};

static int __init tracing_args_kfunc_init(void)
{
	return register_btf_kfunc_id_set(BPF_PROG_TYPE_TRACING, &tracing_args_kfunc_set);
}
late_initcall(tracing_args_kfunc_init);
