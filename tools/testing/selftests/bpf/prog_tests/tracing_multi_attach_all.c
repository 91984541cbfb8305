// SPDX-License-Identifier: GPL-2.0
/* One fentry.multi link on every function the kernel lets it take. */
#include "tracing_multi_common.h"
#include "tracing_multi_bench.skel.h"

/* Hits of all_fentry while some system calls run. */
static __u64 all_hits_during_syscalls(struct tracing_multi_bench *skel)
{
	__u64 before = skel->bss->all_hits;
	int i;

	for (i = 0; i < 100; i++)
		(void)getppid();
	usleep(1000);
	return skel->bss->all_hits - before;
}

/* One fentry.multi link on every function the attach benchmark takes
 * (about 19,000 call sites in the test kernels, rewritten at once,
 * interrupt paths among them), detached and attached again. The guest must stay up and
 * no freed trampoline may be entered: the test kernels check every freed
 * image is unreachable (CONFIG_FTRACE_DIRECT_VERIFY), and make check
 * fails on any splat. Calls must arrive while a link is attached and
 * stop once it is destroyed.
 */
void serial_test_tracing_multi_attach_all(void)
{
	LIBBPF_OPTS(bpf_tracing_multi_opts, opts);
	struct tracing_multi_bench *skel;
	struct bpf_link *link;
	char **names = NULL;
	__u32 *ids = NULL, *dup;
	size_t cnt = 0;
	int round;

	if (tracing_multi_all_funcs(&names, &ids, &cnt))
		return;
	skel = tracing_multi_bench__open();
	if (!ASSERT_OK_PTR(skel, "open"))
		goto out_free;
	bpf_program__set_autoload(skel->progs.all_fentry, true);
	if (!ASSERT_OK(tracing_multi_bench__load(skel), "load"))
		goto out;
	opts.ids = ids;
	opts.cnt = cnt;
	for (round = 1; round <= 2; round++) {
		tracing_multi_mark("attach_all: round %d: attach %zu\n", round, cnt);
		link = bpf_program__attach_tracing_multi(skel->progs.all_fentry, NULL, &opts);
		if (!ASSERT_OK_PTR(link, "attach all")) {
			bool *refused = calloc(cnt, sizeof(*refused));

			if (refused)
				tracing_multi_drop_refused(skel->progs.all_fentry, ids, names,
							   0, cnt, refused);
			free(refused);
			break;
		}
		ASSERT_GT(all_hits_during_syscalls(skel), 0, "hits while attached");
		tracing_multi_mark("attach_all: round %d: detach\n", round);
		bpf_link__destroy(link);
		ASSERT_EQ(all_hits_during_syscalls(skel), 0, "hits after detach");
	}
	printf("%s: %zu functions, attached and detached %d times\n", __func__, cnt, round - 1);

	/* An id twice among many: found by one walk of kallsyms, each
	 * function goes straight to its place by address, and the second
	 * finds the place taken. Nothing stays attached.
	 */
	dup = malloc((cnt + 1) * sizeof(*dup));
	if (!ASSERT_OK_PTR(dup, "malloc"))
		goto out;
	memcpy(dup, ids, cnt * sizeof(*dup));
	dup[cnt] = ids[cnt / 2];
	opts.ids = dup;
	opts.cnt = cnt + 1;
	link = bpf_program__attach_tracing_multi(skel->progs.all_fentry, NULL, &opts);
	ASSERT_EQ(libbpf_get_error(link), -EINVAL, "an id twice");
	if (!libbpf_get_error(link))
		bpf_link__destroy(link);
	ASSERT_EQ(all_hits_during_syscalls(skel), 0, "hits after a refused attach");

	/* A name kallsyms has twice among many: the walk of the kernel
	 * text's symbols finds both functions, so neither is taken.
	 */
	dup[cnt] = tracing_multi_ambiguous_id();
	if (dup[cnt]) {
		link = bpf_program__attach_tracing_multi(skel->progs.all_fentry, NULL, &opts);
		ASSERT_EQ(libbpf_get_error(link), -EINVAL, "an ambiguous name");
		if (!libbpf_get_error(link))
			bpf_link__destroy(link);
	} else {
		printf("%s: no ambiguous function name in this kernel\n", __func__);
	}
	free(dup);
out:
	tracing_multi_bench__destroy(skel);
out_free:
	free(ids);
	free(names);
}
