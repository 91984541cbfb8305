// SPDX-License-Identifier: GPL-2.0
/*
 * A live patch of bpf_testmod_lp_target() (bpf_testmod.ko, returns a + 1):
 * the patched function returns a + 100. tracing_multi_hardening loads it
 * to check that BPF trampolines, shared or not, run the patched body and
 * still report the traced function's IP and cookie.
 */
#include <linux/module.h>
#include <linux/kernel.h>
#include <linux/livepatch.h>

static noinline int livepatch_bpf_testmod_lp_target(int a)
{
	return a + 100;
}

static struct klp_func funcs[] = {
	{
		.old_name = "bpf_testmod_lp_target",
		.new_func = livepatch_bpf_testmod_lp_target,
	},
	{ }
};

static struct klp_object objs[] = {
	{
		.name = "bpf_testmod",
		.funcs = funcs,
	},
	{ }
};

static struct klp_patch patch = {
	.mod = THIS_MODULE,
	.objs = objs,
};

static int __init bpf_test_livepatch_init(void)
{
	return klp_enable_patch(&patch);
}

static void __exit bpf_test_livepatch_exit(void)
{
}

module_init(bpf_test_livepatch_init);
module_exit(bpf_test_livepatch_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("BPF selftests: a live patch of bpf_testmod_lp_target()");
MODULE_INFO(livepatch, "Y");
