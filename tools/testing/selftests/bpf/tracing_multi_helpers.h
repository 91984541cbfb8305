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
__u32 tracing_multi_ambiguous_id(void);
void tracing_multi_free_names(char **names, size_t n);
int tracing_multi_cmp_str(const void *a, const void *b);
int tracing_multi_cmp_double(const void *a, const void *b);
double tracing_multi_now(void);
void tracing_multi_mark(const char *fmt, ...);
void tracing_multi_settle(void);
int tracing_multi_module_btf(const char *module, struct btf *vmlinux, struct btf **pbtf);
int tracing_multi_testmod_btf(struct btf *vmlinux, struct btf **pbtf);
int tracing_multi_testmod_ids(const char * const *names, int n, __u32 *ids);

/* The bpf_fentry_test1..9 functions: their BTF ids, in that order, and a call of each */
#define NR_FUNCS 9
int fentry_test_ids(__u32 *ids);
void fentry_test_run(struct bpf_program *prog);

/* Images in <debugfs>/bpf_multi_trampolines: shared and own, and both */
int count_multi_tramps(int *shared, int *own);
int tracing_multi_count_images(void);

/* Executable memory, from /proc/vmallocinfo */
int tracing_multi_exec_kb(long *pack_kb, long *exec_kb);

/* Files, fault injection and the test kernels' debugfs counters and switches */
int tracing_multi_write_file(const char *path, const char *val);
long tracing_multi_read_long(const char *path);
int fault_knobs_set(void);
int fault_all_set(bool on);
long ftrace_debugfs_counter(const char *name);
long ftrace_sites_updated(void);
long ftrace_records_visited(void);
long tramp_images_dying(void);
long tramp_images_wait_freed(int ms);
int multi_tidy_hold(bool on);

/* The grace periods this process waits for, and those with the mutexes held */
struct tracing_multi_waits;
struct tracing_multi_waits *tracing_multi_waits_start(void);
int tracing_multi_waits_read(struct tracing_multi_waits *w, int *waits, int *held);
int tracing_multi_waits_direct(struct tracing_multi_waits *w);
void tracing_multi_waits_end(struct tracing_multi_waits *w);

#endif
