/* SPDX-License-Identifier: GPL-2.0-only */
/* What trampoline.c and trampoline_multi.c give each other beside include/linux/bpf.h. */
#ifndef __KERNEL_BPF_TRAMPOLINE_H
#define __KERNEL_BPF_TRAMPOLINE_H

struct bpf_tramp_image;
struct bpf_tramp_link;

void bpf_tramp_images_retire(struct bpf_tramp_image **ims, u32 n);
bool bpf_tramp_dying_skip_link(const struct bpf_tramp_link *link);

#ifdef CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS
void bpf_tramp_multi_mutex_unlock(void);
#else
static inline void bpf_tramp_multi_mutex_unlock(void) {}
#endif

#endif
