/* SPDX-License-Identifier: GPL-2.0-only */
/* What trampoline.c gives trampoline_multi.c beside include/linux/bpf.h. */
#ifndef __KERNEL_BPF_TRAMPOLINE_H
#define __KERNEL_BPF_TRAMPOLINE_H

struct bpf_tramp_image;
struct bpf_tramp_link;

void bpf_tramp_images_retire(struct bpf_tramp_image **ims, u32 n);
bool bpf_tramp_dying_skip_link(const struct bpf_tramp_link *link);

#endif
