// SPDX-License-Identifier: GPL-2.0
/* make run demo: count calls of vfs_read and the bytes it returned, through
 * an fentry and an fexit program (two BPF trampolines on one function).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

__u64 calls;
__u64 bytes;
int pid;

SEC("fentry/vfs_read")
int BPF_PROG(enter, struct file *file, char *buf, size_t count)
{
	if ((bpf_get_current_pid_tgid() >> 32) == pid)
		__sync_fetch_and_add(&calls, 1);
	return 0;
}

SEC("fexit/vfs_read")
int BPF_PROG(leave, struct file *file, char *buf, size_t count, loff_t *pos, ssize_t ret)
{
	if ((bpf_get_current_pid_tgid() >> 32) == pid && ret > 0)
		__sync_fetch_and_add(&bytes, ret);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
