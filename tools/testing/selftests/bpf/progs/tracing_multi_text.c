// SPDX-License-Identifier: GPL-2.0
/* tracing_multi_ibt_mode: read the code of a trampoline image. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

__u64 text_addr;
__u32 text_len;
__u8 text[4096];
long text_err;

SEC("syscall")
int read_text(void *ctx)
{
	__u32 len = text_len;

	if (len > sizeof(text))
		len = sizeof(text);
	text_err = bpf_probe_read_kernel(text, len, (void *)text_addr);
	return 0;
}

char _license[] SEC("license") = "GPL";
