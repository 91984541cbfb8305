// SPDX-License-Identifier: GPL-2.0
/*
 * upstream_libbpf_client_decl.bpf.o: the session kfuncs declared as
 * upstream declares them, with ctx, and not weak. This kernel keeps 6.12's
 * prototypes, without a parameter, so upstream's libbpf refuses the object
 * at load ("func_proto [N] incompatible with vmlinux [M]"): the
 * session_upstream_decl subtest of the client expects that.
 */
#include <stdbool.h>
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

char _license[] SEC("license") = "GPL";

extern bool bpf_session_is_return(void *ctx) __ksym;
extern __u64 *bpf_session_cookie(void *ctx) __ksym;

SEC("fsession.multi")
int sess_strong(void *ctx)
{
	if (bpf_session_is_return(ctx))
		return 0;
	*bpf_session_cookie(ctx) = 1;
	return 0;
}
