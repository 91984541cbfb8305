/* SPDX-License-Identifier: GPL-2.0 */
/* The functions BPF_PROG_TEST_RUN of a tracing program calls, for the
 * tracing_multi tests: which one a program runs for, from its IP; and
 * whether the test's own process makes the call.
 */
#ifndef __TRACING_MULTI_FUNCS_H
#define __TRACING_MULTI_FUNCS_H

extern const void bpf_fentry_test1 __ksym;
extern const void bpf_fentry_test2 __ksym;
extern const void bpf_fentry_test3 __ksym;
extern const void bpf_fentry_test4 __ksym;
extern const void bpf_fentry_test5 __ksym;
extern const void bpf_fentry_test6 __ksym;
extern const void bpf_fentry_test7 __ksym;
extern const void bpf_fentry_test8 __ksym;
extern const void bpf_fentry_test9 __ksym;

/*
 * The test's process, set by the test before it attaches: calls of other
 * processes (other tests, under test_progs -j) are not counted.
 */
int test_pid;

static __always_inline bool mine(void)
{
	return (bpf_get_current_pid_tgid() >> 32) == test_pid;
}

/* N for bpf_fentry_testN at @ip, 0 for any other function. */
static __always_inline int func_index(__u64 ip)
{
	if (ip == (__u64)&bpf_fentry_test1)
		return 1;
	if (ip == (__u64)&bpf_fentry_test2)
		return 2;
	if (ip == (__u64)&bpf_fentry_test3)
		return 3;
	if (ip == (__u64)&bpf_fentry_test4)
		return 4;
	if (ip == (__u64)&bpf_fentry_test5)
		return 5;
	if (ip == (__u64)&bpf_fentry_test6)
		return 6;
	if (ip == (__u64)&bpf_fentry_test7)
		return 7;
	if (ip == (__u64)&bpf_fentry_test8)
		return 8;
	if (ip == (__u64)&bpf_fentry_test9)
		return 9;
	return 0;
}

#endif
