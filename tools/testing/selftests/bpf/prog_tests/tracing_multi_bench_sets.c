// SPDX-License-Identifier: GPL-2.0
/*
 * Benchmarks of updates (make bench; they print BENCH lines and assert
 * nothing about speed):
 *
 * tracing_multi_bench_sets: 64 fentry.multi links, each on a random
 * quarter of the same 2,000 functions, attached one after the other: the
 * images they make and the attach time of the first and the last link
 * (without the test kernels' check of every freed image, see below), and
 * the bpf_prog_pack memory the 64 links added (packs are 2 MiB). The
 * 2,000 are spread over the functions that an attach and a detach of such
 * a link do not call (sets_pick()): a function the attach calls runs the
 * programs of every link on it (16 by the last link), which would be
 * measured with it.
 *
 * tracing_multi_bench_ibt: fexit.multi on every function it takes, its
 * images calling the functions as where IBT is enforced (debugfs
 * bpf_tramp_call_by_return); attach and detach time against kprobe.multi
 * on the same functions, and the images made.
 *
 * tracing_multi_bench_beside_all: an ordinary fentry program attached to
 * one function and detached, alone and beside one fentry.multi link on
 * every function: time and call sites rewritten (the test kernels count
 * them: <debugfs>/ftrace_call_sites_updated). Also without the check.
 *
 * tracing_multi_bench_inflight: the same ordinary program attached and
 * detached, alone and while another thread attaches and detaches one
 * fentry.multi link on every other function in a loop; against the same
 * beside a kprobe.multi link in a loop (x86-64), what 6.12 does. With
 * each, the time the ordinary attach and detach wait for contended locks
 * (lock:contention_begin to lock:contention_end), spinning or asleep:
 * what the other thread's update holds them for; and those waits by lock,
 * named if the lock is a kernel symbol. The rest of their time
 * beside it is the emulator's too: both vCPUs' instructions advance the
 * guest's instruction clock, and the attach's IPIs wait for the other
 * vCPU's turn.
 */
#include <pthread.h>
#include "tracing_multi_common.h"
#include "trace_helpers.h"
#include "tracing_multi_bench_sets.skel.h"

#define SETS_FUNCS 2000
#define SETS_LINKS 64
#define BESIDE_ROUNDS 10

#define VERIFY_FILE "/sys/kernel/debug/ftrace_direct_verify"

/*
 * The test kernels check every freed image and ops against every ftrace
 * record (CONFIG_FTRACE_DIRECT_VERIFY): with thousands of images, that
 * check would be what is measured. Off while measuring, if there; then
 * as it was (make bench switches it off for all its benchmarks).
 */
static char direct_verify_off(void)
{
	FILE *f = fopen(VERIFY_FILE, "r");
	char was = 0;

	if (!f)
		return 0;
	if (fscanf(f, " %c", &was) != 1)
		was = 0;
	fclose(f);
	f = fopen(VERIFY_FILE, "w");
	if (f) {
		fputs("N", f);
		fclose(f);
	}
	return was;
}

static void direct_verify_restore(char was)
{
	FILE *f;

	if (!was)
		return;
	f = fopen(VERIFY_FILE, "w");
	if (!f)
		return;
	fputc(was, f);
	fclose(f);
}

/* Every function @prog takes, less those it refuses (@pnames: or NULL). */
static int takeable_funcs(struct bpf_program *prog, __u32 **pids, char ***pnames, size_t *pcnt)
{
	LIBBPF_OPTS(bpf_tracing_multi_opts, opts);
	struct bpf_link *link;
	char **names = NULL;
	__u32 *ids = NULL;
	size_t cnt = 0, i, j;
	bool *refused;

	if (tracing_multi_all_funcs(&names, &ids, &cnt))
		return -1;
	opts.ids = ids;
	opts.cnt = cnt;
	link = bpf_program__attach_tracing_multi(prog, NULL, &opts);
	if (libbpf_get_error(link)) {
		refused = calloc(cnt, sizeof(*refused));
		if (!refused)
			goto err;
		tracing_multi_drop_refused(prog, ids, names, 0, cnt, refused);
		for (i = 0, j = 0; i < cnt; i++) {
			if (refused[i])
				continue;
			names[j] = names[i];
			ids[j++] = ids[i];
		}
		cnt = j;
		free(refused);
	} else {
		bpf_link__destroy(link);
	}
	if (pnames)
		*pnames = names;
	else
		free(names);
	*pids = ids;
	*pcnt = cnt;
	return 0;
err:
	free(names);
	free(ids);
	return -1;
}

/*
 * Spread @n picks (@pick) over the @cnt functions of @all that the
 * operations measured do not call: a link counts the calls of each
 * function (sets_count) while links of @skel's sets_fentry on @n
 * functions spread over @all and on half of them are attached and
 * detached (@sub: room for @n). Return: the number of functions left
 * out, or -1.
 */
static long sets_pick(struct tracing_multi_bench_sets *skel, __u32 *all, size_t cnt,
		      __u32 *pick, __u32 *sub, size_t n)
{
	LIBBPF_OPTS(bpf_tracing_multi_opts, opts);
	struct bpf_link *count, *link, *link2;
	__u64 *cookies;
	size_t i, j, quiet;
	long out = -1;

	if (!ASSERT_LE(cnt, ARRAY_SIZE(skel->bss->calls), "functions to count"))
		return -1;
	cookies = calloc(cnt, sizeof(*cookies));
	if (!ASSERT_OK_PTR(cookies, "calloc"))
		return -1;
	for (i = 0; i < cnt; i++)
		cookies[i] = i;
	for (i = 0; i < n; i++)
		pick[i] = all[i * cnt / n];
	opts.ids = all;
	opts.cookies = cookies;
	opts.cnt = cnt;
	count = bpf_program__attach_tracing_multi(skel->progs.sets_count, NULL, &opts);
	if (!ASSERT_OK_PTR(count, "attach the counting link"))
		goto out;
	/* a link, and one on every other function of it: they move */
	LIBBPF_OPTS_RESET(opts, .ids = pick, .cnt = n);
	link = bpf_program__attach_tracing_multi(skel->progs.sets_fentry, NULL, &opts);
	ASSERT_OK_PTR(link, "attach");
	for (i = 0, j = 0; i < n; i += 2)
		sub[j++] = pick[i];
	LIBBPF_OPTS_RESET(opts, .ids = sub, .cnt = j);
	link2 = bpf_program__attach_tracing_multi(skel->progs.sets_fentry, NULL, &opts);
	ASSERT_OK_PTR(link2, "attach");
	bpf_link__destroy(link2);
	bpf_link__destroy(link);
	tracing_multi_settle();	/* the frees they left behind, counted too */
	bpf_link__destroy(count);
	/* the functions not called, in place of their cookies */
	for (i = 0, quiet = 0; i < cnt; i++)
		if (!skel->bss->calls[i])
			cookies[quiet++] = i;
	if (!ASSERT_GE(quiet, n, "functions not called"))
		goto out;
	for (j = 0; j < n; j++)
		pick[j] = all[cookies[j * quiet / n]];
	out = cnt - quiet;
out:
	free(cookies);
	return out;
}

void serial_test_tracing_multi_bench_sets(void)
{
	LIBBPF_OPTS(bpf_tracing_multi_opts, opts);
	struct bpf_link *links[SETS_LINKS] = {};
	double t[SETS_LINKS], sorted[SETS_LINKS], t0, td;
	struct tracing_multi_bench_sets *skel;
	__u32 *all = NULL, *pick = NULL, *sub = NULL;
	unsigned int seed = 42;
	size_t cnt, n, i, k;
	long pack0 = 0, pack1 = 0, exec_kb, left_out;
	char verify = 0;
	int l, images;

	skel = tracing_multi_bench_sets__open();
	if (!ASSERT_OK_PTR(skel, "open"))
		return;
	bpf_program__set_autoload(skel->progs.sets_count, true);
	if (!ASSERT_OK(tracing_multi_bench_sets__load(skel), "load"))
		goto out;
	if (takeable_funcs(skel->progs.sets_fentry, &all, NULL, &cnt))
		goto out;
	if (!ASSERT_GE(cnt, SETS_FUNCS, "functions"))
		goto out;
	pick = calloc(SETS_FUNCS, sizeof(*pick));
	sub = calloc(SETS_FUNCS, sizeof(*sub));
	if (!ASSERT_OK_PTR(pick, "calloc") || !ASSERT_OK_PTR(sub, "calloc"))
		goto out;
	verify = direct_verify_off();
	/* 2,000 functions spread over the kernel, of those the attach does not call */
	left_out = sets_pick(skel, all, cnt, pick, sub, SETS_FUNCS);
	if (left_out < 0)
		goto out;
	tracing_multi_settle();
	if (!ASSERT_OK(tracing_multi_exec_kb(&pack0, &exec_kb), "vmallocinfo"))
		goto out;

	for (l = 0; l < SETS_LINKS; l++) {
		for (i = 0, n = 0; i < SETS_FUNCS; i++)
			if (rand_r(&seed) % 4 == 0)
				sub[n++] = pick[i];
		opts.ids = sub;
		opts.cnt = n;
		tracing_multi_settle();
		t0 = tracing_multi_now();
		links[l] = bpf_program__attach_tracing_multi(skel->progs.sets_fentry, NULL, &opts);
		t[l] = tracing_multi_now() - t0;
		if (!ASSERT_OK_PTR(links[l], "attach"))
			goto out;
	}
	images = tracing_multi_count_images();
	tracing_multi_settle();
	if (!ASSERT_OK(tracing_multi_exec_kb(&pack1, &exec_kb), "vmallocinfo"))
		goto out;
	t0 = tracing_multi_now();
	for (l = 0; l < SETS_LINKS; l++) {
		bpf_link__destroy(links[l]);
		links[l] = NULL;
	}
	td = tracing_multi_now() - t0;
	memcpy(sorted, t, sizeof(t));
	qsort(sorted, SETS_LINKS, sizeof(*sorted), tracing_multi_cmp_double);
	printf("BENCH sets: functions %d, links %d, images %d; ", SETS_FUNCS, SETS_LINKS, images);
	printf("attach first %.3f ms, last %.3f ms (%.2fx), ", t[0] * 1e3,
	       t[SETS_LINKS - 1] * 1e3, t[SETS_LINKS - 1] / t[0]);
	printf("median %.3f ms, max %.3f ms; detach all %.3f s; packs %+ld KiB; ",
	       sorted[SETS_LINKS / 2] * 1e3, sorted[SETS_LINKS - 1] * 1e3, td, pack1 - pack0);
	printf("left out %ld of %zu functions (the attach calls them)\n", left_out, cnt);
out:
	for (k = 0; k < SETS_LINKS; k++)
		bpf_link__destroy(links[k]);
	direct_verify_restore(verify);
	free(all);
	free(pick);
	free(sub);
	tracing_multi_bench_sets__destroy(skel);
}

/* Mean attach and detach time (ms) and call sites of the ordinary program. */
static void ordinary_rounds(struct tracing_multi_bench_sets *skel, double *ta, double *td,
			    long *sa, long *sd)
{
	struct bpf_link *link;
	long s0, s1, s2;
	double t0;
	int i;

	*ta = *td = 0;
	*sa = *sd = 0;
	for (i = 0; i < BESIDE_ROUNDS; i++) {
		s0 = ftrace_sites_updated();
		tracing_multi_settle();
		t0 = tracing_multi_now();
		link = bpf_program__attach(skel->progs.ordinary_fentry);
		*ta += tracing_multi_now() - t0;
		s1 = ftrace_sites_updated();
		if (!ASSERT_OK_PTR(link, "attach ordinary"))
			return;
		tracing_multi_settle();
		t0 = tracing_multi_now();
		bpf_link__destroy(link);
		*td += tracing_multi_now() - t0;
		s2 = ftrace_sites_updated();
		*sa += s1 - s0;
		*sd += s2 - s1;
	}
	*ta *= 1e3 / BESIDE_ROUNDS;
	*td *= 1e3 / BESIDE_ROUNDS;
	*sa /= BESIDE_ROUNDS;
	*sd /= BESIDE_ROUNDS;
}

void serial_test_tracing_multi_bench_beside_all(void)
{
	LIBBPF_OPTS(bpf_tracing_multi_opts, opts);
	struct tracing_multi_bench_sets *skel;
	struct bpf_link *multi = NULL;
	double a0, d0, a1, d1;
	long sa0, sd0, sa1, sd1;
	__u32 *ids = NULL;
	char verify = 0;
	size_t cnt;

	skel = tracing_multi_bench_sets__open_and_load();
	if (!ASSERT_OK_PTR(skel, "open_and_load"))
		return;
	if (takeable_funcs(skel->progs.sets_fentry, &ids, NULL, &cnt))
		goto out;
	verify = direct_verify_off();
	ordinary_rounds(skel, &a0, &d0, &sa0, &sd0);
	opts.ids = ids;
	opts.cnt = cnt;
	multi = bpf_program__attach_tracing_multi(skel->progs.sets_fentry, NULL, &opts);
	if (!ASSERT_OK_PTR(multi, "attach fentry.multi on all"))
		goto out;
	ordinary_rounds(skel, &a1, &d1, &sa1, &sd1);
	printf("BENCH beside_all: functions %zu; ", cnt);
	printf("ordinary fentry alone attach %.3f ms detach %.3f ms sites %ld/%ld; ",
	       a0, d0, sa0, sd0);
	printf("beside fentry.multi on all attach %.3f ms detach %.3f ms sites %ld/%ld ",
	       a1, d1, sa1, sd1);
	printf("(%.2fx, %.2fx)\n", a1 / a0, d1 / d0);
out:
	bpf_link__destroy(multi);
	direct_verify_restore(verify);
	free(ids);
	tracing_multi_bench_sets__destroy(skel);
}

/* Attach and detach time (s) of @prog on @opts's functions; -1 on error. */
static int time_multi(struct bpf_program *prog, struct bpf_tracing_multi_opts *opts,
		      double *attach, double *detach)
{
	struct bpf_link *link;
	double t;

	tracing_multi_settle();
	t = tracing_multi_now();
	link = bpf_program__attach_tracing_multi(prog, NULL, opts);
	*attach = tracing_multi_now() - t;
	if (!ASSERT_OK_PTR(link, bpf_program__name(prog)))
		return -1;
	tracing_multi_settle();
	t = tracing_multi_now();
	bpf_link__destroy(link);
	*detach = tracing_multi_now() - t;
	return 0;
}

void serial_test_tracing_multi_bench_ibt(void)
{
	LIBBPF_OPTS(bpf_kprobe_multi_opts, kopts);
	LIBBPF_OPTS(bpf_tracing_multi_opts, opts);
	struct tracing_multi_bench_sets *skel;
	double t0, t1, t1b, t2, k0, k1, k1b, k2, xa, xd, ea, ed;
	struct bpf_link *link;
	char **names = NULL;
	__u32 *ids = NULL;
	char verify = 0;
	int kerr, shared, own;
	size_t cnt;

	/* IBT is x86's: arm64's trampolines always call by return */
#ifndef __x86_64__
	test__skip();
	return;
#endif
	skel = tracing_multi_bench_sets__open();
	if (!ASSERT_OK_PTR(skel, "open"))
		return;
	bpf_program__set_autoload(skel->progs.sets_fexit, true);
	bpf_program__set_autoload(skel->progs.sets_kprobe, true);
	bpf_program__set_autoload(skel->progs.sets_fentry, true);
	if (!ASSERT_OK(tracing_multi_bench_sets__load(skel), "load"))
		goto out;
	if (!ASSERT_OK(tracing_multi_write_file(CALL_BY_RETURN_KNOB, "Y"), "IBT's call by return"))
		goto out;
	verify = direct_verify_off();
	if (takeable_funcs(skel->progs.sets_fexit, &ids, &names, &cnt))
		goto out_knob;
	opts.ids = ids;
	opts.cnt = cnt;
	tracing_multi_settle();
	t0 = tracing_multi_now();
	link = bpf_program__attach_tracing_multi(skel->progs.sets_fexit, NULL, &opts);
	t1 = tracing_multi_now();
	if (!ASSERT_OK_PTR(link, "fexit.multi attach"))
		goto out_knob;
	count_multi_tramps(&shared, &own);
	tracing_multi_settle();
	t1b = tracing_multi_now();
	bpf_link__destroy(link);
	t2 = tracing_multi_now();

	kopts.syms = (const char **)names;
	kopts.cnt = cnt;
	tracing_multi_settle();
	k0 = tracing_multi_now();
	link = bpf_program__attach_kprobe_multi_opts(skel->progs.sets_kprobe, NULL, &kopts);
	k1 = tracing_multi_now();
	kerr = libbpf_get_error(link);
	tracing_multi_settle();
	k1b = tracing_multi_now();
	bpf_link__destroy(link);
	k2 = tracing_multi_now();
	printf("BENCH ibt: functions %zu, images %d shared %d own; "
	       "fexit.multi attach %.3f s detach %.3f s; ", cnt, shared, own, t1 - t0, t2 - t1b);
	if (kerr)
		printf("kprobe.multi n/a (%d)\n", kerr);
	else
		printf("kprobe.multi attach %.3f s detach %.3f s\n", k1 - k0, k2 - k1b);

	/* the same functions without the switch, and with fentry.multi */
	tracing_multi_write_file(CALL_BY_RETURN_KNOB, "N");
	if (!time_multi(skel->progs.sets_fexit, &opts, &xa, &xd) &&
	    !time_multi(skel->progs.sets_fentry, &opts, &ea, &ed))
		printf("BENCH ibt-plain: fexit.multi attach %.3f s detach %.3f s; "
		       "fentry.multi attach %.3f s detach %.3f s\n", xa, xd, ea, ed);
out_knob:
	tracing_multi_write_file(CALL_BY_RETURN_KNOB, "N");
	direct_verify_restore(verify);
out:
	free(ids);
	free(names);
	tracing_multi_bench_sets__destroy(skel);
}

#define INFLIGHT_ROUNDS 20
#define INFLIGHT_FIGURES 6	/* of inflight_rounds() */

struct inflight {
	struct tracing_multi_bench_sets *skel;
	struct bpf_tracing_multi_opts *opts;
	struct bpf_kprobe_multi_opts *kopts;	/* kprobe.multi instead */
	bool stop;		/* __atomic_*() */
	long cycles;
	int err;
};

/* attach and detach the link on every function until told to stop */
static void *inflight_loop(void *arg)
{
	struct inflight *x = arg;
	struct bpf_link *link;

	while (!__atomic_load_n(&x->stop, __ATOMIC_RELAXED)) {
		if (x->kopts)
			link = bpf_program__attach_kprobe_multi_opts(x->skel->progs.sets_kprobe,
								     NULL, x->kopts);
		else
			link = bpf_program__attach_tracing_multi(x->skel->progs.sets_fentry,
								 NULL, x->opts);
		x->err = libbpf_get_error(link);
		if (x->err)
			break;
		bpf_link__destroy(link);
		x->cycles++;
	}
	return NULL;
}

#define WAIT_LOCKS ARRAY_SIZE(((struct tracing_multi_bench_sets *)0)->bss->wait_lock_ns)

/*
 * The lock waits of the calling thread so far (ns), as the programs count
 * them: by lock into @by_lock, and in all.
 */
static __u64 inflight_waited(struct tracing_multi_bench_sets *skel, __u64 *by_lock)
{
	__u64 sum = 0;
	int i;

	for (i = 0; i < WAIT_LOCKS; i++) {
		by_lock[i] = __atomic_load_n(&skel->bss->wait_lock_ns[i], __ATOMIC_RELAXED);
		sum += by_lock[i];
	}
	return sum;
}

/* Add the waits from @w0 to @w1 to @sum, lock by lock. */
static void inflight_waited_add(__u64 *sum, const __u64 *w0, const __u64 *w1)
{
	int i;

	for (i = 0; i < WAIT_LOCKS; i++)
		sum[i] += w1[i] - w0[i];
}

/*
 * Mean and longest attach and detach (ms) of the ordinary program, at random
 * times, and the mean of their lock waits (ms); those waits by lock, in all
 * (ns), into @by_lock.
 */
static int inflight_rounds(struct tracing_multi_bench_sets *skel, double *t, __u64 *by_lock)
{
	__u64 w0, w1, l0[WAIT_LOCKS], l1[WAIT_LOCKS];
	struct bpf_link *link;
	double t0, a, d;
	int i;

	memset(t, 0, INFLIGHT_FIGURES * sizeof(*t));
	memset(by_lock, 0, WAIT_LOCKS * sizeof(*by_lock));
	skel->data->wait_tid = sys_gettid();
	for (i = 0; i < INFLIGHT_ROUNDS; i++) {
		usleep(rand() % 50000);
		w0 = inflight_waited(skel, l0);
		t0 = tracing_multi_now();
		link = bpf_program__attach(skel->progs.ordinary_fentry);
		a = (tracing_multi_now() - t0) * 1e3;
		w1 = inflight_waited(skel, l1);
		if (!ASSERT_OK_PTR(link, "attach ordinary"))
			return -1;
		t[4] += (w1 - w0) / 1e6 / INFLIGHT_ROUNDS;
		inflight_waited_add(by_lock, l0, l1);
		usleep(rand() % 50000);
		w0 = inflight_waited(skel, l0);
		t0 = tracing_multi_now();
		bpf_link__destroy(link);
		d = (tracing_multi_now() - t0) * 1e3;
		w1 = inflight_waited(skel, l1);
		t[5] += (w1 - w0) / 1e6 / INFLIGHT_ROUNDS;
		inflight_waited_add(by_lock, l0, l1);
		t[0] += a / INFLIGHT_ROUNDS;
		t[1] = a > t[1] ? a : t[1];
		t[2] += d / INFLIGHT_ROUNDS;
		t[3] = d > t[3] ? d : t[3];
	}
	return 0;
}

/* The rounds while @x's loop runs; 1 if it cannot (no kprobe.multi) */
static int inflight_beside(struct inflight *x, double *t, __u64 *by_lock)
{
	pthread_t th;
	int err;

	__atomic_store_n(&x->stop, false, __ATOMIC_RELAXED);
	x->cycles = 0;
	x->err = 0;
	if (!ASSERT_OK(pthread_create(&th, NULL, inflight_loop, x), "pthread_create"))
		return -1;
	usleep(100000);		/* its first attach under way */
	err = x->err ? 0 : inflight_rounds(x->skel, t, by_lock);
	__atomic_store_n(&x->stop, true, __ATOMIC_RELAXED);
	pthread_join(th, NULL);
	if (x->kopts && x->err == -EOPNOTSUPP)
		return 1;
	if (!ASSERT_OK(x->err, "multi link loop") || !ASSERT_GT(x->cycles, 0, "cycles"))
		return -1;
	return err;
}

static void inflight_print(const char *what, const double *t, const char *end)
{
	printf("%s attach %.3f ms (max %.3f) detach %.3f ms (max %.3f) lock waits %.3f/%.3f ms%s",
	       what, t[0], t[1], t[2], t[3], t[4], t[5], end);
}

/*
 * The lock waits of an attach and a detach (ms, the mean of the rounds) by
 * lock, the longest first: a kernel symbol's name (with an offset in it:
 * a lock in a static struct), else "other", which also has the locks past
 * those the programs count one by one, and all of them without kallsyms.
 */
static void inflight_print_by_lock(struct tracing_multi_bench_sets *skel, struct ksyms *ks,
				   const char *what, const __u64 *by_lock, const char *end)
{
	char names[WAIT_LOCKS][128];
	__u64 ns[WAIT_LOCKS];
	int i, j, n = 0, max;
	struct ksym *sym;
	__u64 addr;

	for (i = 0; i < WAIT_LOCKS; i++) {
		if (!by_lock[i])
			continue;
		addr = skel->bss->wait_lock_addr[i];
		sym = addr && ks ? ksym_search_local(ks, addr) : NULL;
		if (sym && sym->addr == addr)
			snprintf(names[n], sizeof(names[n]), "%s", sym->name);
		else if (sym && addr - sym->addr < 4096)
			snprintf(names[n], sizeof(names[n]), "%s+%#llx", sym->name,
				 (unsigned long long)(addr - sym->addr));
		else
			snprintf(names[n], sizeof(names[n]), "other");
		for (j = 0; j < n && strcmp(names[j], names[n]); j++)
			;
		if (j < n) {
			ns[j] += by_lock[i];
			continue;
		}
		ns[n++] = by_lock[i];
	}
	printf("%s", what);
	while (n) {
		for (max = 0, i = 1; i < n; i++)
			if (ns[i] > ns[max])
				max = i;
		printf(" %s %.3f", names[max], ns[max] / 1e6 / INFLIGHT_ROUNDS);
		n--;
		ns[max] = ns[n];
		memcpy(names[max], names[n], sizeof(names[max]));
	}
	printf(" ms%s", end);
}

void serial_test_tracing_multi_bench_inflight(void)
{
	LIBBPF_OPTS(bpf_kprobe_multi_opts, kopts);
	LIBBPF_OPTS(bpf_tracing_multi_opts, opts);
	double alone[INFLIGHT_FIGURES], multi[INFLIGHT_FIGURES], kmulti[INFLIGHT_FIGURES];
	__u64 by_lock[3][WAIT_LOCKS];
	struct ksyms *ks;
	struct bpf_link *waits[2] = {};
	struct tracing_multi_bench_sets *skel;
	struct inflight x = {};
	char **names = NULL;
	__u32 *ids = NULL;
	size_t cnt, i, j;
	char verify = 0;
	int kret;

	skel = tracing_multi_bench_sets__open();
	if (!ASSERT_OK_PTR(skel, "open"))
		return;
	bpf_program__set_autoload(skel->progs.sets_kprobe, true);
	bpf_program__set_autoload(skel->progs.wait_begin, true);
	bpf_program__set_autoload(skel->progs.wait_end, true);
	if (!ASSERT_OK(tracing_multi_bench_sets__load(skel), "load"))
		goto out;
	waits[0] = bpf_program__attach(skel->progs.wait_begin);
	waits[1] = bpf_program__attach(skel->progs.wait_end);
	if (!ASSERT_OK_PTR(waits[0], "attach wait_begin") ||
	    !ASSERT_OK_PTR(waits[1], "attach wait_end"))
		goto out;
	verify = direct_verify_off();
	if (takeable_funcs(skel->progs.sets_fentry, &ids, &names, &cnt))
		goto out;
	/* every function but the ordinary program's */
	for (i = 0, j = 0; i < cnt; i++) {
		if (!strcmp(names[i], "bpf_fentry_test1"))
			continue;
		ids[j] = ids[i];
		names[j++] = names[i];
	}
	cnt = j;
	opts.ids = ids;
	opts.cnt = cnt;
	kopts.syms = (const char **)names;
	kopts.cnt = cnt;
	srand(1);
	if (inflight_rounds(skel, alone, by_lock[0]))
		goto out;
	x.skel = skel;
	x.opts = &opts;
	if (inflight_beside(&x, multi, by_lock[1]))
		goto out;
	x.kopts = &kopts;
	kret = inflight_beside(&x, kmulti, by_lock[2]);
	if (kret < 0)
		goto out;
	printf("BENCH inflight: functions %zu; ", cnt);
	inflight_print("ordinary fentry alone", alone, "; ");
	inflight_print("beside fentry.multi in flight", multi, "; ");
	if (kret)
		printf("kprobe.multi n/a\n");
	else
		inflight_print("beside kprobe.multi in flight", kmulti, "\n");
	ks = load_kallsyms_local();
	printf("BENCH inflight locks: lock waits of an attach and a detach by lock; ");
	inflight_print_by_lock(skel, ks, "beside fentry.multi in flight:", by_lock[1],
			       kret ? "\n" : "; ");
	if (!kret)
		inflight_print_by_lock(skel, ks, "beside kprobe.multi in flight:", by_lock[2],
				       "\n");
	free_kallsyms_local(ks);
out:
	direct_verify_restore(verify);
	free(names);
	free(ids);
	bpf_link__destroy(waits[0]);
	bpf_link__destroy(waits[1]);
	tracing_multi_bench_sets__destroy(skel);
}
