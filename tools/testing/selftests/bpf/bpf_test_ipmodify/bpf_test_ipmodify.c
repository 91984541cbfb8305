// SPDX-License-Identifier: GPL-2.0
/*
 * An IPMODIFY ftrace user that takes a function without telling the direct
 * callers there, as kprobe_ipmodify_ops does for a new kprobe with a
 * post_handler: its ops is registered from load on, on
 * bpf_test_ipmodify_anchor() alone (never called), and writing 1 to the
 * "grow" parameter adds bpf_test_ipmodify_target() to its filter
 * (ftrace_set_filter_ip() sends no FTRACE_OPS_CMD_* to a direct ops), 0
 * takes it out again. With "redirect" set, its callback sends each call to
 * bpf_test_ipmodify_replacement() (returns a + 2 where the target returns
 * a + 1), as a live patch would; else it changes nothing. Writing a number
 * to "call" calls the target with it, from the writing task, and reading
 * "call" gives what it returned. tracing_multi_hardening traces the target
 * meanwhile and unloads the module at the end.
 */
#include <linux/module.h>
#include <linux/kernel.h>
#include <linux/ftrace.h>
#include <linux/btf.h>

__bpf_hook_start();

noinline int bpf_test_ipmodify_target(int a)
{
	return a + 1;
}

noinline int bpf_test_ipmodify_replacement(int a)
{
	return a + 2;
}

noinline void bpf_test_ipmodify_anchor(void)
{
}

__bpf_hook_end();

static bool redirect;
module_param(redirect, bool, 0644);

/* called for the target alone: nothing calls the anchor */
static void ipmodify_func(unsigned long ip, unsigned long parent_ip,
			  struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	if (READ_ONCE(redirect))
		ftrace_regs_set_instruction_pointer(fregs,
						    (unsigned long)bpf_test_ipmodify_replacement);
}

/* a live patch's flags (klp_patch_func()) */
static struct ftrace_ops ipmodify_ops = {
	.func = ipmodify_func,
	.flags = FTRACE_OPS_FL_IPMODIFY,
};

static DEFINE_MUTEX(grow_mutex);
static int grow;

static int grow_set(const char *val, const struct kernel_param *kp)
{
	bool on;
	int err;

	err = kstrtobool(val, &on);
	if (err)
		return err;
	mutex_lock(&grow_mutex);
	if (on != grow) {
		err = ftrace_set_filter_ip(&ipmodify_ops,
					   (unsigned long)bpf_test_ipmodify_target, !on, 0);
		if (!err)
			grow = on;
	}
	mutex_unlock(&grow_mutex);
	return err;
}

static const struct kernel_param_ops grow_ops = {
	.set = grow_set,
	.get = param_get_int,
};
module_param_cb(grow, &grow_ops, &grow, 0644);

/* the target's last return value */
static int call;

static int call_set(const char *val, const struct kernel_param *kp)
{
	int a, err;

	err = kstrtoint(val, 0, &a);
	if (!err)
		*(int *)kp->arg = bpf_test_ipmodify_target(a);
	return err;
}

static const struct kernel_param_ops call_ops = {
	.set = call_set,
	.get = param_get_int,
};

module_param_cb(call, &call_ops, &call, 0644);

static int __init bpf_test_ipmodify_init(void)
{
	int err;

	err = ftrace_set_filter_ip(&ipmodify_ops, (unsigned long)bpf_test_ipmodify_anchor, 0, 0);
	if (!err)
		err = register_ftrace_function(&ipmodify_ops);
	if (err)
		ftrace_free_filter(&ipmodify_ops);
	return err;
}

static void __exit bpf_test_ipmodify_exit(void)
{
	unregister_ftrace_function(&ipmodify_ops);
	ftrace_free_filter(&ipmodify_ops);
}

module_init(bpf_test_ipmodify_init);
module_exit(bpf_test_ipmodify_exit);
MODULE_DESCRIPTION("BPF selftest: an IPMODIFY ftrace user without callbacks");
MODULE_LICENSE("GPL");
