// SPDX-License-Identifier: GPL-2.0
/* Programs of tracing_multi_updates/exits_in_flight: links on
 * bpf_testmod_multi_block(), which a thread enters and sleeps in while
 * other links come and go there. Each program counts the calls of that
 * thread only (tid), at entry and at exit. The multi links or the
 * ordinary programs of a subtest: never both on the function.
 */
#define BPF_NO_KFUNC_PROTOTYPES
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char _license[] SEC("license") = "GPL";

extern bool bpf_session_is_return(void *ctx) __ksym;
extern __u64 *bpf_session_cookie(void *ctx) __ksym;

int tid;		/* the calling thread */
int fmod_ret_val;	/* what stay_fmod_ret returns (0: the function runs) */

__u64 entries, exits, fmod_runs, sess_entries, sess_exits, sess_bad;
__u64 churn_entries, churn_exits;
/* the cookies of the ordinary links that stay; their runs, and those that
 * saw another cookie
 */
__u64 cookies[4], cookie_runs, cookie_bad;

/* return values the exit programs saw, summed */
__u64 exit_rets, sess_rets;

static __always_inline void check_cookie(void *ctx, int i)
{
	cookie_runs++;
	if (bpf_get_attach_cookie(ctx) != cookies[i])
		cookie_bad++;
}

static __always_inline bool mine(void)
{
	return (__u32)bpf_get_current_pid_tgid() == tid;
}

SEC("fentry.multi")
int stay_entry(void *ctx)
{
	if (mine())
		entries++;
	return 0;
}

SEC("fexit.multi")
int stay_exit(void *ctx)
{
	__u64 ret = 0;

	if (!mine())
		return 0;
	bpf_get_func_ret(ctx, &ret);
	exits++;
	exit_rets += ret;
	return 0;
}

SEC("fmod_ret.multi")
int stay_fmod_ret(void *ctx)
{
	if (!mine())
		return 0;
	fmod_runs++;
	return fmod_ret_val;
}

/* Its cookie holds the entry's count: the exit run checks it is its own. */
SEC("fsession.multi")
int stay_session(void *ctx)
{
	__u64 *cookie = bpf_session_cookie(ctx);
	__u64 ret = 0;

	if (!mine())
		return 0;
	if (!bpf_session_is_return(ctx)) {
		*cookie = ++sess_entries;
		return 0;
	}
	bpf_get_func_ret(ctx, &ret);
	sess_exits++;
	sess_rets += ret;
	if (*cookie != sess_exits)
		sess_bad++;
	return 0;
}

/* The links that come and go while a call is in flight. */
SEC("fentry.multi")
int churn_entry(void *ctx)
{
	if (mine())
		churn_entries++;
	return 0;
}

SEC("fexit.multi")
int churn_exit(void *ctx)
{
	if (mine())
		churn_exits++;
	return 0;
}

/* The same with ordinary programs, on an ordinary trampoline. */
SEC("fentry/bpf_testmod_multi_block")
int BPF_PROG(ord_entry, int a)
{
	if (!mine())
		return 0;
	entries++;
	check_cookie(ctx, 0);
	return 0;
}

SEC("fexit/bpf_testmod_multi_block")
int BPF_PROG(ord_exit, int a, int ret)
{
	if (!mine())
		return 0;
	exits++;
	exit_rets += ret;
	check_cookie(ctx, 1);
	return 0;
}

SEC("fentry/bpf_testmod_multi_block")
int BPF_PROG(ord_entry_2, int a)
{
	if (mine())
		check_cookie(ctx, 2);
	return 0;
}

SEC("fexit/bpf_testmod_multi_block")
int BPF_PROG(ord_exit_3, int a, int ret)
{
	if (mine())
		check_cookie(ctx, 3);
	return 0;
}

SEC("fentry/bpf_testmod_multi_block")
int BPF_PROG(ord_churn_entry, int a)
{
	if (mine())
		churn_entries++;
	return 0;
}

SEC("fexit/bpf_testmod_multi_block")
int BPF_PROG(ord_churn_exit, int a, int ret)
{
	if (mine())
		churn_exits++;
	return 0;
}
