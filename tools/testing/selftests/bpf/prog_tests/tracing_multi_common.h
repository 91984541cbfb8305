/* SPDX-License-Identifier: GPL-2.0 */
/* What the tracing_multi tests share: the bpf_fentry_test1..9 functions,
 * and (defined in tracing_multi_bench.c) the list of every function
 * fentry.multi can take.
 */
#ifndef __TRACING_MULTI_COMMON_H
#define __TRACING_MULTI_COMMON_H

#include <test_progs.h>
#include <bpf/btf.h>

#define NR_FUNCS 9

/* BTF ids of bpf_fentry_test1..9, in that order. */
static inline int fentry_test_ids(__u32 *ids)
{
	struct btf *btf = btf__load_vmlinux_btf();
	char name[32];
	int i, id;

	if (!ASSERT_OK_PTR(btf, "btf__load_vmlinux_btf"))
		return -1;
	for (i = 0; i < NR_FUNCS; i++) {
		snprintf(name, sizeof(name), "bpf_fentry_test%d", i + 1);
		id = btf__find_by_name_kind(btf, name, BTF_KIND_FUNC);
		if (!ASSERT_GT(id, 0, name)) {
			btf__free(btf);
			return -1;
		}
		ids[i] = id;
	}
	btf__free(btf);
	return 0;
}

/* BPF_PROG_TEST_RUN of a tracing program calls bpf_fentry_test1..9. */
static inline void test_run(struct bpf_program *prog)
{
	LIBBPF_OPTS(bpf_test_run_opts, topts);

	ASSERT_OK(bpf_prog_test_run_opts(bpf_program__fd(prog), &topts), "test_run");
}

struct bpf_program;

int tracing_multi_all_funcs(char ***pnames, __u32 **pids, size_t *pcnt);
size_t tracing_multi_drop_refused(struct bpf_program *prog, __u32 *ids, char **names,
				  size_t lo, size_t hi, bool *refused);
void tracing_multi_mark(const char *fmt, ...);

#endif
