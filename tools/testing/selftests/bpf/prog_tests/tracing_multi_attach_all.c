// SPDX-License-Identifier: GPL-2.0
/* One fentry.multi link on every function the kernel lets it take. */
#include <pthread.h>
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

struct attach_all_thread {
	struct bpf_tracing_multi_opts *opts;
	struct bpf_program *prog;	/* to attach, or NULL: detach *link */
	struct bpf_link **link;
	bool done;		/* READ_ONCE/WRITE_ONCE: the main thread polls it */
};

static void *attach_all_fn(void *arg)
{
	struct attach_all_thread *x = arg;

	if (x->prog) {
		*x->link = bpf_program__attach_tracing_multi(x->prog, NULL, x->opts);
	} else {
		bpf_link__destroy(*x->link);
		*x->link = NULL;
	}
	WRITE_ONCE(x->done, true);
	return NULL;
}

/*
 * Until @x's update changes call sites: <debugfs>/ftrace_call_sites_updated
 * moves from @sites. 60 s at most.
 */
static void wait_update_started(struct attach_all_thread *x, long sites)
{
	time_t t0 = time(NULL);
	long spins;

	for (spins = 1; !READ_ONCE(x->done); spins++) {
		if (ftrace_sites_updated() != sites)
			return;
		if (!(spins % 4096) && time(NULL) - t0 > 60)
			return;
	}
}

/*
 * An ordinary fentry program attached and detached while another thread
 * changes the call sites of every function but the ordinary program's: it
 * attaches a link A, then a link B (each function moves to an image that
 * runs both), detaches B (each moves back), then A. The ordinary attach
 * waits for a slice of each update, not for all of it (counted by the call
 * sites rewritten meanwhile, <debugfs>/ftrace_call_sites_updated, its own
 * among them), and the records that wait for their slice pass ftrace's
 * checks (when the ordinary program leaves during A's detach, no ops is
 * left registered). A step whose update ended before the ordinary attach
 * began (a fast host) shows nothing and is not counted.
 */
static void attach_beside_update(struct tracing_multi_bench *skel,
				 struct bpf_tracing_multi_opts *opts, char **names)
{
	struct bpf_link *a = NULL, *b = NULL, *ordinary;
	struct attach_all_thread steps[] = {
		{ .opts = opts, .prog = skel->progs.all_fentry, .link = &a },
		{ .opts = opts, .prog = skel->progs.bench_fentry, .link = &b },
		{ .link = &b },
		{ .link = &a },
	};
	long s0, s1, sites[ARRAY_SIZE(steps)];
	__u32 *ids = NULL;
	size_t i, j = 0;
	pthread_t th;
	bool late;
	int step;

	if (ftrace_sites_updated() < 0) {
		printf("%s: no call site counter in this kernel\n", __func__);
		return;
	}
	ids = malloc(opts->cnt * sizeof(*ids));
	if (!ASSERT_OK_PTR(ids, "malloc"))
		return;
	for (i = 0; i < opts->cnt; i++)
		if (strcmp(names[i], "bpf_get_numa_node_id"))
			ids[j++] = opts->ids[i];
	opts->ids = ids;
	opts->cnt = j;
	for (step = 0; step < ARRAY_SIZE(steps); step++) {
		struct attach_all_thread *x = &steps[step];

		sites[step] = -1;
		s0 = ftrace_sites_updated();
		if (!ASSERT_OK(pthread_create(&th, NULL, attach_all_fn, x), "pthread_create"))
			break;
		wait_update_started(x, s0);
		late = READ_ONCE(x->done);
		s0 = ftrace_sites_updated();
		ordinary = bpf_program__attach(skel->progs.trig_fentry);
		s1 = ftrace_sites_updated();
		bpf_link__destroy(ordinary);
		pthread_join(th, NULL);
		if (!late)
			sites[step] = s1 - s0;
		if (!ASSERT_OK_PTR(ordinary, "attach ordinary") ||
		    !ASSERT_EQ(!*x->link, !x->prog, "link attached or detached beside"))
			break;
	}
	bpf_link__destroy(b);
	bpf_link__destroy(a);
	if (step == ARRAY_SIZE(steps)) {
		/* during each ordinary attach; -1: the update had ended */
		printf("%s: %zu functions; sites rewritten meanwhile: %ld, %ld, %ld, %ld\n",
		       __func__, j, sites[0], sites[1], sites[2], sites[3]);
		ASSERT_LT(sites[0], (long)j / 2, "ordinary waits for part of A's attach");
		ASSERT_LT(sites[1], (long)j / 2, "ordinary waits for part of B's attach");
		ASSERT_LT(sites[2], (long)j / 2, "ordinary waits for part of B's detach");
		ASSERT_LT(sites[3], (long)j / 2, "ordinary waits for part of A's detach");
	}
	free(ids);
}

/*
 * How many of the link's functions @names have a direct call in ftrace's
 * enabled_functions, which names each call site's function as
 * available_filter_functions does: all of them while the link is attached,
 * each at its own call site, and as many as before once it is destroyed.
 */
static size_t direct_sites_of(char **names, size_t cnt)
{
	char *line = NULL, name[256], **direct = NULL, **tmp;
	size_t n = 0, cap = 0, found = 0, len = 0, i;
	FILE *f;

	f = fopen("/sys/kernel/tracing/enabled_functions", "r");
	if (!ASSERT_OK_PTR(f, "enabled_functions"))
		return 0;
	while (getline(&line, &len, f) > 0) {
		/* "name (count)" and the flags, " D" for a direct call */
		if (line[0] == '\t' || !strstr(line, " D") || sscanf(line, "%255s", name) != 1)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 4096;
			tmp = realloc(direct, cap * sizeof(*direct));
			if (!ASSERT_OK_PTR(tmp, "realloc"))
				goto out;
			direct = tmp;
		}
		direct[n] = strdup(name);
		if (!ASSERT_OK_PTR(direct[n], "strdup"))
			goto out;
		n++;
	}
	qsort(direct, n, sizeof(*direct), tracing_multi_cmp_str);
	for (i = 0; i < cnt; i++) {
		if (bsearch(&names[i], direct, n, sizeof(*direct), tracing_multi_cmp_str))
			found++;
		else if (found == i && n)	/* the first one without, among some */
			printf("%s: no direct call at %s\n", __func__, names[i]);
	}
out:
	fclose(f);
	free(line);
	for (i = 0; i < n; i++)
		free(direct[i]);
	free(direct);
	return found;
}

/* One fentry.multi link on every function the attach benchmark takes
 * (about 19,000 call sites in the test kernels, rewritten at once,
 * interrupt paths among them), detached and attached again. The guest must stay up and
 * no freed trampoline may be entered: the test kernels check every freed
 * image is unreachable (CONFIG_FTRACE_DIRECT_VERIFY), and make check
 * fails on any splat. Calls must arrive while a link is attached and
 * stop once it is destroyed, and ftrace must show a direct call at each
 * function's own call site while it is attached.
 */
void serial_test_tracing_multi_attach_all(void)
{
	LIBBPF_OPTS(bpf_tracing_multi_opts, opts);
	struct tracing_multi_bench *skel;
	struct bpf_link *link;
	char **names = NULL;
	__u32 *ids = NULL, *dup;
	size_t cnt = 0, before;
	int round;

	if (tracing_multi_all_funcs(&names, &ids, &cnt))
		return;
	skel = tracing_multi_bench__open();
	if (!ASSERT_OK_PTR(skel, "open"))
		goto out_free;
	bpf_program__set_autoload(skel->progs.all_fentry, true);
	bpf_program__set_autoload(skel->progs.trig_fentry, true);
	if (!ASSERT_OK(tracing_multi_bench__load(skel), "load"))
		goto out;
	opts.ids = ids;
	opts.cnt = cnt;
	/* direct calls at those functions that other users have */
	before = direct_sites_of(names, cnt);
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
		if (round == 1)
			ASSERT_EQ(direct_sites_of(names, cnt), cnt, "call sites while attached");
		tracing_multi_mark("attach_all: round %d: detach\n", round);
		bpf_link__destroy(link);
		ASSERT_EQ(all_hits_during_syscalls(skel), 0, "hits after detach");
		if (round == 1)
			ASSERT_EQ(direct_sites_of(names, cnt), before, "call sites after detach");
	}
	printf("%s: %zu functions, attached and detached %d times\n", __func__, cnt, round - 1);
	if (round > 2)
		attach_beside_update(skel, &opts, names);
	opts.ids = ids;
	opts.cnt = cnt;

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
