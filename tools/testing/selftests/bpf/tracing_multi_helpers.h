/* SPDX-License-Identifier: GPL-2.0 */
/* What the tracing_multi tests share (tracing_multi_helpers.c). */
#ifndef __TRACING_MULTI_HELPERS_H
#define __TRACING_MULTI_HELPERS_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

struct bpf_program;
struct btf;

int tracing_multi_all_funcs(char ***pnames, __u32 **pids, size_t *pcnt);
size_t tracing_multi_drop_refused(struct bpf_program *prog, __u32 *ids, char **names,
				  size_t lo, size_t hi, bool *refused);
int tracing_multi_drop_all_refused(struct bpf_program *prog, __u32 *ids, char **names,
				   size_t *pcnt);
char **tracing_multi_kallsyms_text(size_t *pcnt);
void tracing_multi_free_names(char **names, size_t n);
void tracing_multi_mark(const char *fmt, ...);
void tracing_multi_settle(void);
int tracing_multi_module_btf(const char *module, struct btf *vmlinux, struct btf **pbtf);
int tracing_multi_testmod_btf(struct btf *vmlinux, struct btf **pbtf);
int tracing_multi_testmod_ids(const char * const *names, int n, __u32 *ids);

#endif
