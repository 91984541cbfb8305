// SPDX-License-Identifier: GPL-2.0
/* Benchmarks, run by "make bench", not by "make check": they print
 * numbers and assert only that what they measure works.
 * - tracing_multi_bench_attach: one fentry.multi program on every function
 *   it can take, then kprobe.multi on the same functions, then the first
 *   again, timed by phase in the kernel;
 * - tracing_multi_bench_trigger: calls per second of a function with
 *   nothing, fentry, fentry.multi, fexit, fexit.multi, kprobe, kprobe.multi,
 *   fmod_ret or fmod_ret.multi on it (like selftests' bench trig-*), and
 *   on x86 fexit.multi calling the function as where IBT is enforced; and
 *   what the cookie and the typed-argument kfuncs add to a call, with a
 *   link of one function and of many;
 * - tracing_multi_bench_ordinary: what ordinary programs cost per call
 *   and an ordinary fentry's attach and detach time, also run on the base
 *   kernel; here also with multi links elsewhere;
 * - tracing_multi_bench_memory: the memory one fentry.multi link on every
 *   function takes, and a second one on the same functions, against
 *   kprobe.multi and ordinary fentry.
 */
#include <test_progs.h>
#include <bpf/btf.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <stdarg.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include "tracing_multi_bench.skel.h"
#include "tracing_multi_profile.skel.h"
#include "tracing_multi_common.h"
#include "trace_helpers.h"

/* As in progs/tracing_multi_bench.c: where bd_ns[] counts */
enum { BD_LINK, BD_ATTACH, BD_DETACH, BD_FTRACE, BD_WAIT, BD_RELEASE, BD_RELEASE_WAIT, BD_NR };
#define BD_PROGS	16

/* The skeleton, with the programs of attach_phases() (bd_*). */
static struct tracing_multi_bench *bench_open_phases(void)
{
	struct tracing_multi_bench *skel = tracing_multi_bench__open();
	struct bpf_program *prog;

	if (!ASSERT_OK_PTR(skel, "open"))
		return NULL;
	bpf_object__for_each_program(prog, skel->obj)
		if (!strncmp(bpf_program__name(prog), "bd_", 3))
			bpf_program__set_autoload(prog, true);
	if (!ASSERT_OK(tracing_multi_bench__load(skel), "load")) {
		tracing_multi_bench__destroy(skel);
		return NULL;
	}
	return skel;
}

/*
 * The attach and detach of the link again, timed by phase in the kernel
 * (progs/tracing_multi_bench.c, bd_*): the link's attach, of it the
 * routing (bpf_tramp_multi_link_attach()) and of that the ftrace update
 * (ftrace_direct_replace()); the routing of the detach, its ftrace update
 * and its waits for grace periods, which end on timer ticks; the link's
 * release work after the detach (a kworker), and its waits. What is not
 * routing is resolving the ids and checking the functions. Slower than
 * the timed run: the probes run too. The link leaves out the probed
 * functions: on them it would move functions from the probes' trampolines
 * to new ones, and ftrace does not slice an update that moves functions.
 */
static void attach_phases(struct tracing_multi_bench *skel, struct bpf_tracing_multi_opts *opts,
			  char **names)
{
	LIBBPF_OPTS(bpf_tracing_multi_opts, popts);
	struct bpf_link *probes[BD_PROGS] = {}, *link;
	double link_ms, route_ms, ft_ms, det_ms, ft_det_ms, wait_ms, rel_ms, rel_wait_ms;
	const char *probed[BD_PROGS], *fn;
	struct bpf_program *prog;
	__u64 *ns = skel->bss->bd_ns;
	__u32 *ids = NULL;
	size_t j, cnt = 0;
	int i, k, n = 0;

	bpf_object__for_each_program(prog, skel->obj) {
		if (strncmp(bpf_program__name(prog), "bd_", 3) || n == BD_PROGS)
			continue;
		fn = strchr(bpf_program__section_name(prog), '/');
		probed[n] = fn ? fn + 1 : "";
		probes[n] = bpf_program__attach(prog);
		if (!ASSERT_OK_PTR(probes[n], bpf_program__name(prog)))
			goto out;
		n++;
	}
	ids = malloc(opts->cnt * sizeof(*ids));
	if (!ASSERT_OK_PTR(ids, "malloc"))
		goto out;
	for (j = 0; j < opts->cnt; j++) {
		for (k = 0; k < n && strcmp(names[j], probed[k]); k++)
			;
		if (k == n)
			ids[cnt++] = opts->ids[j];
	}
	popts.ids = ids;
	popts.cnt = cnt;
	opts = &popts;
	memset(ns, 0, sizeof(skel->bss->bd_ns));
	skel->bss->bd_tgid = getpid();
	tracing_multi_settle();
	link = bpf_program__attach_tracing_multi(skel->progs.bench_fentry, NULL, opts);
	if (!ASSERT_OK_PTR(link, "fentry.multi attach, by phase"))
		goto out;
	link_ms = ns[BD_LINK] / 1e6;
	route_ms = ns[BD_ATTACH] / 1e6;
	ft_ms = ns[BD_FTRACE] / 1e6;
	tracing_multi_settle();
	bpf_link__destroy(link);
	det_ms = ns[BD_DETACH] / 1e6;
	ft_det_ms = ns[BD_FTRACE] / 1e6 - ft_ms;
	wait_ms = ns[BD_WAIT] / 1e6;
	/* the release work's end (its waits end on timer ticks) */
	for (i = 0; i < 500 && !__atomic_load_n(&ns[BD_RELEASE], __ATOMIC_ACQUIRE); i++)
		usleep(10000);
	rel_ms = ns[BD_RELEASE] / 1e6;
	rel_wait_ms = ns[BD_RELEASE_WAIT] / 1e6;
	printf("BENCH tracing_multi_attach phases: ");
	printf("attach %.1f ms (resolve %.1f, route %.1f, ftrace %.1f); ",
	       link_ms, link_ms - route_ms, route_ms - ft_ms, ft_ms);
	printf("detach %.1f ms (route %.1f, ftrace %.1f, wait %.1f); ", det_ms,
	       det_ms - ft_det_ms - wait_ms, ft_det_ms, wait_ms);
	printf("release work %.1f ms (wait %.1f)\n", rel_ms, rel_wait_ms);
out:
	free(ids);
	skel->bss->bd_tgid = 0;
	for (i = 0; i < n; i++)
		bpf_link__destroy(probes[i]);
}

void serial_test_tracing_multi_bench_attach(void)
{
	LIBBPF_OPTS(bpf_tracing_multi_opts, opts);
	LIBBPF_OPTS(bpf_kprobe_multi_opts, kopts);
	double t0, t1, t2, t3, k0, k1, k1b = 0, k2;
	struct tracing_multi_bench *skel;
	struct bpf_link *link;
	char **names = NULL;
	__u32 *ids = NULL;
	size_t cnt = 0;
	int images, kerr;

	if (tracing_multi_all_funcs(&names, &ids, &cnt))
		return;
	skel = bench_open_phases();
	if (!skel)
		return;

	if (tracing_multi_drop_all_refused(skel->progs.bench_fentry, ids, names, &cnt))
		goto out;
	opts.ids = ids;
	opts.cnt = cnt;
	tracing_multi_mark("bench: timed attach %zu\n", cnt);
	tracing_multi_settle();
	t0 = tracing_multi_now();
	link = bpf_program__attach_tracing_multi(skel->progs.bench_fentry, NULL, &opts);
	t1 = tracing_multi_now();
	if (!ASSERT_OK_PTR(link, "fentry.multi attach"))
		goto out;
	/* outside the timed detach: the listing formats every function */
	images = tracing_multi_count_images();
	tracing_multi_mark("bench: detach\n");
	tracing_multi_settle();
	t2 = tracing_multi_now();
	bpf_link__destroy(link);
	t3 = tracing_multi_now();
	tracing_multi_mark("bench: kprobe.multi\n");

	kopts.syms = (const char **)names;
	kopts.cnt = cnt;
	tracing_multi_settle();
	k0 = tracing_multi_now();
	link = bpf_program__attach_kprobe_multi_opts(skel->progs.bench_kprobe, NULL, &kopts);
	k1 = tracing_multi_now();
	kerr = libbpf_get_error(link);
	if (kerr != -EOPNOTSUPP) {
		if (!ASSERT_OK_PTR(link, "kprobe.multi attach"))
			goto out;
		tracing_multi_settle();
		k1b = tracing_multi_now();
		bpf_link__destroy(link);
	}
	k2 = tracing_multi_now();
	printf("BENCH tracing_multi_attach: functions %zu, ", cnt);
	printf("fentry.multi attach %.3f s detach %.3f s images %d; ", t1 - t0, t3 - t2, images);
	if (kerr == -EOPNOTSUPP)
		printf("kprobe.multi n/a (none here)\n");
	else
		printf("kprobe.multi attach %.3f s detach %.3f s\n", k1 - k0, k2 - k1b);
	attach_phases(skel, &opts, names);
out:
	tracing_multi_bench__destroy(skel);
	free(ids);
	free(names);
}

#define TRIG_LOOPS 1000	/* as in progs/tracing_multi_bench.c */
#define TRIG_RUNS 100
#define TRIG_WINDOWS 7

/*
 * Calls per second (millions) of the driver's function: the best of
 * TRIG_WINDOWS windows, after a pause. Under the instruction-counted clock
 * a window's time is every instruction any CPU executes in it, so the work
 * the previous attach and detach leave behind (RCU callbacks, images
 * freed, the tidy work) lands in whatever window it runs in: it made
 * single figures differ by 25 instructions per call from boot to boot.
 * The pause lets most of it run first (an idle guest's clock jumps ahead:
 * it costs little), the best window is the one it missed.
 */
static double trig_rate(struct tracing_multi_bench *skel, struct bpf_program *driver,
			bool counted)
{
	LIBBPF_OPTS(bpf_test_run_opts, topts);
	int i, r, fd = bpf_program__fd(driver);
	double best = 0, t;

	usleep(500 * 1000);
	for (r = 0; r < TRIG_WINDOWS; r++) {
		skel->bss->hits = 0;
		t = tracing_multi_now();
		for (i = 0; i < TRIG_RUNS; i++)
			if (!ASSERT_OK(bpf_prog_test_run_opts(fd, &topts), "test_run"))
				return 0;
		t = tracing_multi_now() - t;
		if (counted)
			ASSERT_EQ(skel->bss->hits, TRIG_RUNS * TRIG_LOOPS, "hits");
		if (TRIG_RUNS * TRIG_LOOPS / t / 1e6 > best)
			best = TRIG_RUNS * TRIG_LOOPS / t / 1e6;
	}
	return best;
}

enum {
	TRIG_BASE, TRIG_FENTRY, TRIG_FENTRY_MULTI, TRIG_FEXIT, TRIG_FEXIT_MULTI,
	TRIG_KPROBE, TRIG_KPROBE_MULTI, TRIG_BASE_KFUNC, TRIG_FMODRET,
	TRIG_FMODRET_MULTI, TRIG_FSESSION, TRIG_FSESSION_MULTI, TRIG_BASE_TYPED,
	TRIG_TYPED_FENTRY, TRIG_TYPED_FENTRY_MULTI, TRIG_TYPED_COOKIE, TRIG_TYPED_ARG_BTF,
	TRIG_TYPED_ARG_FIND, TRIG_TYPED_ARG_FIRST, TRIG_TYPED_ARG_FIND_AS,
	TRIG_TYPED_FENTRY_ARG_BTF, TRIG_FEXIT_MULTI_BY_RETURN, TRIG_WIDE_FENTRY_MULTI,
	TRIG_WIDE_COOKIE, TRIG_WIDE_ARG_BTF, TRIG_WIDE_ARG_FIRST, NR_TRIG
};

/* the BPF programs that call the traced function in a loop */
enum { DRV_HELPER, DRV_KFUNC, DRV_TYPED, NR_DRV };

static void print_ratio(const char *what, double a, double b, bool last)
{
	if (a && b)
		printf("%s %.1f%%%s", what, 100 * a / b, last ? "\n" : ", ");
	else
		printf("%s n/a%s", what, last ? "\n" : ", ");
}

/* typed-cookie's link: given a cookie, which the program reads */
static struct bpf_link *attach_with_cookie(struct bpf_program *prog, const char *func)
{
	LIBBPF_OPTS(bpf_tracing_multi_opts, opts);
	struct btf *btf = btf__load_vmlinux_btf();
	__u64 cookie = 1;
	__u32 id;
	int ret;

	if (!ASSERT_OK_PTR(btf, "vmlinux btf"))
		return NULL;
	ret = btf__find_by_name_kind(btf, func, BTF_KIND_FUNC);
	btf__free(btf);
	if (!ASSERT_GT(ret, 0, func))
		return NULL;
	id = ret;
	opts.ids = &id;
	opts.cookies = &cookie;
	opts.cnt = 1;
	return bpf_program__attach_tracing_multi(prog, NULL, &opts);
}

/*
 * The typed-wide-* runs' link: the typed runs' function among functions
 * that nothing calls while the bench runs (PCI setup and quirks), up to
 * WIDE_MAX, so that finding the function takes the search a link of that
 * size takes. Cookie 1 for the function, 0 for the others.
 */
#define WIDE_MAX 1024

struct wide_set {
	__u32 ids[WIDE_MAX];
	__u64 cookies[WIDE_MAX];
	size_t cnt;
};

static int wide_set_init(struct wide_set *w, struct bpf_program *prog, const char *func)
{
	char **names = NULL, *pick[WIDE_MAX];
	__u32 *ids = NULL;
	size_t cnt = 0, i;
	int err = -1;

	if (tracing_multi_all_funcs(&names, &ids, &cnt))
		return -1;
	w->cnt = 0;
	for (i = 0; i < cnt && w->cnt < WIDE_MAX; i++) {
		bool target = !strcmp(names[i], func);

		if (!target && (w->cnt == WIDE_MAX - 1 ||
				(strncmp(names[i], "pci_", 4) && strncmp(names[i], "quirk_", 6))))
			continue;
		pick[w->cnt] = names[i];
		w->cookies[w->cnt] = target;
		w->ids[w->cnt++] = ids[i];
	}
	for (i = 0; i < w->cnt && !w->cookies[i]; i++)
		;
	if (!ASSERT_LT(i, w->cnt, func))
		goto out;
	/* cookies stay with their ids: refused functions are not expected */
	i = w->cnt;
	if (tracing_multi_drop_all_refused(prog, w->ids, pick, &w->cnt) ||
	    !ASSERT_EQ(w->cnt, i, "wide set refused"))
		goto out;
	printf("BENCH typed-wide: link of %zu functions\n", w->cnt);
	err = 0;
out:
	free(ids);
	free(names);
	return err;
}

static struct bpf_link *attach_wide(struct bpf_program *prog, const struct wide_set *w,
				    bool cookies)
{
	LIBBPF_OPTS(bpf_tracing_multi_opts, opts);

	opts.ids = w->ids;
	opts.cookies = cookies ? w->cookies : NULL;
	opts.cnt = w->cnt;
	return bpf_program__attach_tracing_multi(prog, NULL, &opts);
}

/* As selftests' bench trig-*: bpf_get_numa_node_id() (fmod_ret runs:
 * bpf_modify_return_test_tp(); typed-argument runs: bpf_cpumask_test_cpu())
 * called in a loop by a BPF driver, with one program of each kind on it in
 * turn. kprobe.multi is n/a where the kernel has none (arm64 6.12).
 */
void serial_test_tracing_multi_bench_trigger(void)
{
	static const char *const targets[NR_DRV] = {
		"bpf_get_numa_node_id", "bpf_modify_return_test_tp", "bpf_cpumask_test_cpu",
	};
	static const char *const bases[NR_DRV] = { "base", "base-kfunc", "base-typed" };
	struct tracing_multi_bench *skel;
	struct {
		const char *name;
		struct bpf_program *prog;
		int driver;
		bool by_return;		/* see CALL_BY_RETURN_KNOB */
		bool wide;		/* on the wide set's link */
		double rate;
	} runs[NR_TRIG] = {};
	static struct wide_set wide;
	struct bpf_program *drivers[NR_DRV];
	int base_of[NR_DRV] = { TRIG_BASE, TRIG_BASE_KFUNC, TRIG_BASE_TYPED };
	struct bpf_link *link;
	int i;

	skel = tracing_multi_bench__open();
	if (!ASSERT_OK_PTR(skel, "open"))
		return;
	runs[TRIG_BASE].name = "base";
	runs[TRIG_FENTRY] = (typeof(runs[0])){ "fentry", skel->progs.trig_fentry };
	runs[TRIG_FENTRY_MULTI] = (typeof(runs[0])){ "fentry-multi",
						     skel->progs.trig_fentry_multi };
	runs[TRIG_FEXIT] = (typeof(runs[0])){ "fexit", skel->progs.trig_fexit };
	runs[TRIG_FEXIT_MULTI] = (typeof(runs[0])){ "fexit-multi", skel->progs.trig_fexit_multi };
	runs[TRIG_KPROBE] = (typeof(runs[0])){ "kprobe", skel->progs.trig_kprobe };
	runs[TRIG_KPROBE_MULTI] = (typeof(runs[0])){ "kprobe-multi",
						     skel->progs.trig_kprobe_multi };
	runs[TRIG_BASE_KFUNC] = (typeof(runs[0])){ "base-kfunc", NULL, DRV_KFUNC };
	runs[TRIG_FMODRET] = (typeof(runs[0])){ "fmodret", skel->progs.trig_fmodret, DRV_KFUNC };
	runs[TRIG_FSESSION] = (typeof(runs[0])){ "fsession", skel->progs.trig_fsession };
	runs[TRIG_FSESSION_MULTI] = (typeof(runs[0])){ "fsession-multi",
						       skel->progs.trig_fsession_multi };
	runs[TRIG_FMODRET_MULTI] = (typeof(runs[0])){ "fmodret-multi",
						      skel->progs.trig_fmodret_multi, DRV_KFUNC };
	runs[TRIG_BASE_TYPED] = (typeof(runs[0])){ "base-typed", NULL, DRV_TYPED };
	runs[TRIG_TYPED_FENTRY] = (typeof(runs[0])){ "typed-fentry", skel->progs.trig_typed_fentry,
						     DRV_TYPED };
	runs[TRIG_TYPED_FENTRY_MULTI] = (typeof(runs[0])){ "typed-fentry-multi",
							   skel->progs.trig_typed_fentry_multi,
							   DRV_TYPED };
	runs[TRIG_TYPED_COOKIE] = (typeof(runs[0])){ "typed-cookie", skel->progs.trig_typed_cookie,
						     DRV_TYPED };
	runs[TRIG_TYPED_ARG_BTF] = (typeof(runs[0])){ "typed-arg-btf",
						      skel->progs.trig_typed_arg_btf, DRV_TYPED };
	runs[TRIG_TYPED_ARG_FIND] = (typeof(runs[0])){ "typed-arg-find",
						       skel->progs.trig_typed_arg_find, DRV_TYPED };
	runs[TRIG_TYPED_ARG_FIRST] = (typeof(runs[0])){ "typed-arg-first",
							skel->progs.trig_typed_arg_first,
							DRV_TYPED };
	runs[TRIG_TYPED_ARG_FIND_AS] = (typeof(runs[0])){ "typed-arg-find-as",
							  skel->progs.trig_typed_arg_find_as,
							  DRV_TYPED };
	runs[TRIG_TYPED_FENTRY_ARG_BTF] = (typeof(runs[0])){ "typed-fentry-arg-btf",
							     skel->progs.trig_typed_fentry_arg_btf,
							     DRV_TYPED };
	runs[TRIG_WIDE_FENTRY_MULTI] = (typeof(runs[0])){ "typed-wide-fentry-multi",
							  skel->progs.trig_typed_fentry_multi,
							  DRV_TYPED, .wide = true };
	runs[TRIG_WIDE_COOKIE] = (typeof(runs[0])){ "typed-wide-cookie",
						    skel->progs.trig_typed_cookie, DRV_TYPED,
						    .wide = true };
	runs[TRIG_WIDE_ARG_BTF] = (typeof(runs[0])){ "typed-wide-arg-btf",
						     skel->progs.trig_typed_arg_btf, DRV_TYPED,
						     .wide = true };
	runs[TRIG_WIDE_ARG_FIRST] = (typeof(runs[0])){ "typed-wide-arg-first",
						       skel->progs.trig_typed_arg_first, DRV_TYPED,
						       .wide = true };
#ifdef __x86_64__	/* arm64's trampolines always call by return */
	runs[TRIG_FEXIT_MULTI_BY_RETURN].name = "fexit-multi-by-return";
	runs[TRIG_FEXIT_MULTI_BY_RETURN].prog = skel->progs.trig_fexit_multi;
	runs[TRIG_FEXIT_MULTI_BY_RETURN].by_return = true;
#endif
	for (i = 0; i < NR_TRIG; i++)
		if (runs[i].prog)
			bpf_program__set_autoload(runs[i].prog, true);
	if (!ASSERT_OK(tracing_multi_bench__load(skel), "load"))
		goto out;
	drivers[DRV_HELPER] = skel->progs.trig_driver;
	drivers[DRV_KFUNC] = skel->progs.trig_driver_kfunc;
	drivers[DRV_TYPED] = skel->progs.trig_driver_typed;
	if (wide_set_init(&wide, skel->progs.trig_typed_fentry_multi, targets[DRV_TYPED]))
		goto out;
	for (i = 0; i < NR_TRIG; i++) {
		struct bpf_program *prog = runs[i].prog;
		const char *target = targets[runs[i].driver];

		link = NULL;
		if (runs[i].by_return &&
		    !ASSERT_OK(tracing_multi_write_file(CALL_BY_RETURN_KNOB, "Y"),
			       "set " CALL_BY_RETURN_KNOB))
			goto out;
		if (runs[i].wide)
			link = attach_wide(prog, &wide, prog == skel->progs.trig_typed_cookie);
		else if (prog == skel->progs.trig_typed_cookie)
			link = attach_with_cookie(prog, target);
		else if (prog == skel->progs.trig_fentry_multi ||
			 prog == skel->progs.trig_typed_fentry_multi ||
			 prog == skel->progs.trig_typed_arg_btf ||
			 prog == skel->progs.trig_typed_arg_find ||
			 prog == skel->progs.trig_typed_arg_first ||
			 prog == skel->progs.trig_typed_arg_find_as ||
			 prog == skel->progs.trig_fexit_multi ||
			 prog == skel->progs.trig_fsession_multi ||
			 prog == skel->progs.trig_fmodret_multi)
			link = bpf_program__attach_tracing_multi(prog, target, NULL);
		else if (prog == skel->progs.trig_kprobe_multi)
			link = bpf_program__attach_kprobe_multi_opts(prog, target, NULL);
		else if (prog)
			link = bpf_program__attach(prog);
		if (runs[i].by_return)
			tracing_multi_write_file(CALL_BY_RETURN_KNOB, "N");
		if (prog == skel->progs.trig_kprobe_multi &&
		    libbpf_get_error(link) == -EOPNOTSUPP) {
			printf("BENCH trig-kprobe-multi: n/a (no kprobe.multi here)\n");
			continue;
		}
		if (prog && !ASSERT_OK_PTR(link, runs[i].name))
			goto out;
		runs[i].rate = trig_rate(skel, drivers[runs[i].driver], prog);
		bpf_link__destroy(link);
	}
	for (i = 0; i < NR_TRIG; i++) {
		double base = runs[base_of[runs[i].driver]].rate;

		if (runs[i].rate)
			printf("BENCH trig-%s: %.3f M/s (%.1f%% of %s)\n", runs[i].name,
			       runs[i].rate, 100 * runs[i].rate / base,
			       bases[runs[i].driver]);
	}
	printf("BENCH ");
	print_ratio("fentry-multi/fentry", runs[TRIG_FENTRY_MULTI].rate, runs[TRIG_FENTRY].rate, 0);
	print_ratio("fexit-multi/fexit", runs[TRIG_FEXIT_MULTI].rate, runs[TRIG_FEXIT].rate, 0);
	if (runs[TRIG_FEXIT_MULTI_BY_RETURN].rate)
		print_ratio("fexit-multi-by-return/fexit", runs[TRIG_FEXIT_MULTI_BY_RETURN].rate,
			    runs[TRIG_FEXIT].rate, 0);
	print_ratio("fmodret-multi/fmodret", runs[TRIG_FMODRET_MULTI].rate,
		    runs[TRIG_FMODRET].rate, 0);
	print_ratio("fsession-multi/fsession", runs[TRIG_FSESSION_MULTI].rate,
		    runs[TRIG_FSESSION].rate, 0);
	print_ratio("fentry-multi/kprobe", runs[TRIG_FENTRY_MULTI].rate, runs[TRIG_KPROBE].rate, 0);
	print_ratio("fentry-multi/kprobe-multi", runs[TRIG_FENTRY_MULTI].rate,
		    runs[TRIG_KPROBE_MULTI].rate, 1);
out:
	tracing_multi_bench__destroy(skel);
}

#define ORD_ROUNDS 20
#define ORD_MULTI_LINKS 10

/* Mean attach and detach time of an ordinary fentry program, in ms. */
static void ordinary_attach_time(struct tracing_multi_bench *skel, double *attach,
				 double *detach)
{
	struct bpf_link *link;
	double t, ta = 0, td = 0;
	int i;

	*attach = *detach = 0;
	for (i = 0; i < ORD_ROUNDS; i++) {
		tracing_multi_settle();
		t = tracing_multi_now();
		link = bpf_program__attach(skel->progs.trig_fentry);
		ta += tracing_multi_now() - t;
		if (!ASSERT_OK_PTR(link, "attach fentry"))
			return;
		tracing_multi_settle();
		t = tracing_multi_now();
		bpf_link__destroy(link);
		td += tracing_multi_now() - t;
	}
	*attach = ta * 1e3 / ORD_ROUNDS;
	*detach = td * 1e3 / ORD_ROUNDS;
}

/* Whether the kernel has tracing_multi links (not the base kernel). */
static bool kernel_has_tracing_multi(void)
{
	struct btf *btf = btf__load_vmlinux_btf();
	bool has;

	if (!ASSERT_OK_PTR(btf, "vmlinux btf"))
		return false;
	has = btf__find_by_name_kind(btf, "bpf_tracing_multi_link_attach", BTF_KIND_FUNC) > 0;
	btf__free(btf);
	return has;
}

/*
 * What ordinary programs cost, on this kernel and on the base kernel
 * (make bench BENCH_KERNEL_TREE=base), which has the same tests: the
 * calls per second of a function with nothing, fentry, fexit, kprobe,
 * kprobe.multi or fmod_ret on it; an ordinary fentry's attach and detach
 * time; and here also that time with multi links on other functions, which
 * an ordinary trampoline does not wait for. Only the programs a 6.12
 * kernel knows are loaded.
 */
void serial_test_tracing_multi_bench_ordinary(void)
{
	static const char trig_target[] = "bpf_get_numa_node_id";
	struct bpf_link *links[ORD_MULTI_LINKS] = {};
	bool multi = kernel_has_tracing_multi();
	struct tracing_multi_bench *skel;
	struct bpf_program *prog;
	struct {
		const char *name;
		struct bpf_program *prog;
		bool kfunc;	/* called by trig_driver_kfunc, else trig_driver */
		double rate;
	} runs[7] = {};
	const char *sep = "";
	double a0, d0, a1, d1;
	struct bpf_link *link;
	int i;

	skel = tracing_multi_bench__open();
	if (!ASSERT_OK_PTR(skel, "open"))
		return;
	bpf_object__for_each_program(prog, skel->obj)
		bpf_program__set_autoload(prog, false);
	runs[0] = (typeof(runs[0])){ "base" };
	runs[1] = (typeof(runs[0])){ "fentry", skel->progs.trig_fentry };
	runs[2] = (typeof(runs[0])){ "fexit", skel->progs.trig_fexit };
	runs[3] = (typeof(runs[0])){ "kprobe", skel->progs.trig_kprobe };
	runs[4] = (typeof(runs[0])){ "kprobe-multi", skel->progs.trig_kprobe_multi };
	runs[5] = (typeof(runs[0])){ "base-kfunc", NULL, true };
	runs[6] = (typeof(runs[0])){ "fmodret", skel->progs.trig_fmodret, true };
	bpf_program__set_autoload(skel->progs.trig_driver, true);
	bpf_program__set_autoload(skel->progs.trig_driver_kfunc, true);
	for (i = 0; i < ARRAY_SIZE(runs); i++)
		if (runs[i].prog)
			bpf_program__set_autoload(runs[i].prog, true);
	bpf_program__set_autoload(skel->progs.bench_fentry, multi);
	if (!ASSERT_OK(tracing_multi_bench__load(skel), "load"))
		goto out;

	for (i = 0; i < ARRAY_SIZE(runs); i++) {
		prog = runs[i].prog;
		link = NULL;
		if (prog == skel->progs.trig_kprobe_multi)
			link = bpf_program__attach_kprobe_multi_opts(prog, trig_target, NULL);
		else if (prog)
			link = bpf_program__attach(prog);
		if (prog == skel->progs.trig_kprobe_multi &&
		    libbpf_get_error(link) == -EOPNOTSUPP)
			continue;	/* no kprobe.multi (arm64 6.12) */
		if (prog && !ASSERT_OK_PTR(link, runs[i].name))
			goto out;
		runs[i].rate = trig_rate(skel, runs[i].kfunc ? skel->progs.trig_driver_kfunc :
					 skel->progs.trig_driver, prog);
		bpf_link__destroy(link);
	}
	printf("BENCH ordinary_calls:");
	for (i = 0; i < ARRAY_SIZE(runs); i++) {
		if (!runs[i].rate)
			continue;
		printf("%s %s %.3f M/s", sep, runs[i].name, runs[i].rate);
		sep = ",";
	}
	printf("\n");

	ordinary_attach_time(skel, &a0, &d0);
	if (!multi) {
		printf("BENCH ordinary_attach: fentry attach %.3f ms detach %.3f ms; "
		       "no tracing_multi here\n", a0, d0);
		goto out;
	}
	for (i = 0; i < ORD_MULTI_LINKS; i++) {
		links[i] = bpf_program__attach_tracing_multi(skel->progs.bench_fentry,
							     "bpf_fentry_test?", NULL);
		if (!ASSERT_OK_PTR(links[i], "attach fentry.multi"))
			goto out;
	}
	ordinary_attach_time(skel, &a1, &d1);
	printf("BENCH ordinary_attach: fentry attach %.3f ms detach %.3f ms; "
	       "with %d fentry.multi links elsewhere attach %.3f ms detach %.3f ms\n",
	       a0, d0, ORD_MULTI_LINKS, a1, d1);
out:
	for (i = 0; i < ORD_MULTI_LINKS; i++)
		bpf_link__destroy(links[i]);
	tracing_multi_bench__destroy(skel);
}

/*
 * Memory: what one fentry.multi link on every function takes, and a second
 * one on the same functions ("again"), against kprobe.multi on the same
 * functions and against ordinary fentry, one trampoline (one image, one
 * ftrace_ops) per function. The fentry.multi links' data is also given
 * by slab cache (slab_print()). Kernel-wide
 * counters, read from user space before and after each attach; each
 * read waits until they hold still (mem_settle()), so that what is freed
 * after a grace period or by a work item counts where it belongs.
 *
 * - "jit", executable memory: bpf_jit_current (what the BPF JIT charges
 *   for each image it allocates, trampolines included, in bytes; the
 *   image takes that rounded up to 64 bytes in its bpf_prog_pack) plus
 *   ftrace's own trampolines (/proc/vmallocinfo areas of
 *   arch_ftrace_update_trampoline(), a page each: x86-64's kprobe.multi).
 *   New bpf_prog_packs, 2 MiB of executable memory reserved at a time and
 *   shared by every BPF image, are reported apart ("packs" in the detail
 *   line), not in jit.
 * - "data": SUnreclaim (slab pages, and kmalloc()s larger than a page:
 *   ftrace hashes and their entries, struct bpf_trampoline and its
 *   ftrace_ops, the links' arrays) + VmallocUsed less the executable
 *   areas above (pages: kvmalloc() arrays, struct bpf_prog) + Percpu
 *   (populated percpu pages: each image's percpu_ref).
 *
 * Ordinary fentry: 6.12 attaches an fentry program only to the function
 * it was loaded for (a target_btf_id at link creation is for extension
 * programs), so each function takes its own program. Loading one already
 * allocates the function's struct bpf_trampoline. So: MEM_SAMPLE programs
 * (r0 = 0; exit, as bench_fentry) loaded for one function give what a
 * program takes; MEM_SAMPLE loaded for as many functions, taken evenly
 * from the list, less that, give the trampolines' part of loading; then
 * they are attached. The trampolines' figure (load part + attach) is
 * scaled to all functions; the programs' is given per program.
 */
#define MEM_SAMPLE 500
#define MEM_SETTLE_READS 30	/* at most, one a second */
#define MEM_SLAB_SLACK_KB 8	/* settled: SUnreclaim moved by no more */

struct mem_snap {
	long long jit;		/* bpf_jit_current, bytes */
	long exec_kb;		/* ftrace's trampolines */
	long pack_kb;		/* bpf_prog_packs */
	long slab_kb;		/* SUnreclaim */
	long vmalloc_kb;	/* VmallocUsed */
	long percpu_kb;		/* Percpu */
};

/* what an attach (or a load) added */
struct mem_delta {
	double jit;		/* bytes */
	double data;		/* bytes */
	struct mem_snap d;	/* the counters' differences */
	int reads;		/* to settle, after */
	int units;		/* programs or functions it is for */
};

static int meminfo_read(struct mem_snap *s)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char line[256];
	long v;

	if (!ASSERT_OK_PTR(f, "meminfo"))
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "SUnreclaim: %ld", &v) == 1)
			s->slab_kb = v;
		else if (sscanf(line, "VmallocUsed: %ld", &v) == 1)
			s->vmalloc_kb = v;
		else if (sscanf(line, "Percpu: %ld", &v) == 1)
			s->percpu_kb = v;
	}
	fclose(f);
	return 0;
}

/* Executable areas, by the function that allocated them. */
static int vmallocinfo_read(struct mem_snap *s)
{
	return ASSERT_OK(tracing_multi_exec_kb(&s->pack_kb, &s->exec_kb), "vmallocinfo") ? 0 : -1;
}

static int mem_read(struct tracing_multi_bench *skel, struct mem_snap *s)
{
	LIBBPF_OPTS(bpf_test_run_opts, topts);
	int err;

	err = bpf_prog_test_run_opts(bpf_program__fd(skel->progs.read_jit_current), &topts);
	if (!ASSERT_OK(err, "read_jit_current") || !ASSERT_OK(topts.retval, "jit_current"))
		return -1;
	s->jit = skel->bss->jit_current;
	if (meminfo_read(s) || vmallocinfo_read(s))
		return -1;
	return 0;
}

/* Read until two reads a second apart agree; returns the reads made. */
static int mem_settle(struct tracing_multi_bench *skel, struct mem_snap *s)
{
	struct mem_snap prev;
	int i;

	if (mem_read(skel, &prev))
		return -1;
	for (i = 1; i < MEM_SETTLE_READS; i++) {
		sleep(1);
		if (mem_read(skel, s))
			return -1;
		if (s->jit == prev.jit && s->exec_kb == prev.exec_kb &&
		    s->pack_kb == prev.pack_kb && s->vmalloc_kb == prev.vmalloc_kb &&
		    s->percpu_kb == prev.percpu_kb &&
		    labs(s->slab_kb - prev.slab_kb) <= MEM_SLAB_SLACK_KB)
			return i + 1;
		prev = *s;
	}
	return i;	/* not settled: the last read */
}

static void mem_diff(const struct mem_snap *a, const struct mem_snap *b, int reads,
		     struct mem_delta *m)
{
	m->d.jit = b->jit - a->jit;
	m->d.exec_kb = b->exec_kb - a->exec_kb;
	m->d.pack_kb = b->pack_kb - a->pack_kb;
	m->d.slab_kb = b->slab_kb - a->slab_kb;
	m->d.vmalloc_kb = b->vmalloc_kb - a->vmalloc_kb;
	m->d.percpu_kb = b->percpu_kb - a->percpu_kb;
	m->jit = m->d.jit + m->d.exec_kb * 1024.0;
	m->data = (m->d.slab_kb + m->d.vmalloc_kb - m->d.exec_kb - m->d.pack_kb +
		   m->d.percpu_kb) * 1024.0;
	m->reads = reads;
}

static void mem_detail(const char *what, const struct mem_delta *m)
{
	printf("BENCH memory detail: %s: bpf_jit_current %+lld B, ", what, m->d.jit);
	printf("ftrace trampolines %+ld KiB, packs %+ld KiB, ", m->d.exec_kb, m->d.pack_kb);
	printf("SUnreclaim %+ld KiB, VmallocUsed %+ld KiB, Percpu %+ld KiB ", m->d.slab_kb,
	       m->d.vmalloc_kb, m->d.percpu_kb);
	printf("(settled in %d reads)\n", m->reads);
}

/* "jit X KiB (Y B/func) data X KiB (Y B/func)": @jit and @data over @n */
static void mem_print(const char *what, double jit, double data, size_t n, const char *end)
{
	printf("%s jit %.1f KiB (%.1f B/func) data %.1f KiB (%.1f B/func)%s", what,
	       jit / 1024, jit / n, data / 1024, data / n, end);
}

/*
 * Where "data" goes, by slab cache: /proc/slabinfo's active objects times
 * their size, before and after (the test kernels keep Debian's
 * CONFIG_SLAB_MERGE_DEFAULT=n: caches are not merged).
 */
#define SLAB_CACHES_MAX 1024
#define SLAB_TOP 8

struct slab_cache {
	char name[64];
	long active;		/* objects */
	long size;		/* bytes each */
	double delta;		/* bytes, after less before */
};

struct slab_snap {
	struct slab_cache c[SLAB_CACHES_MAX];
	int n;
	double objs;		/* bytes in objects, every cache */
	double pages;		/* bytes in slab pages, every cache */
	long slab_kb;		/* SUnreclaim + SReclaimable, read with them */
};

/* name, active_objs, objsize, pagesperslab, num_slabs */
#define SLABINFO_FMT "%63s %ld %*d %ld %*d %ld : tunables %*d %*d %*d : slabdata %*d %ld"

static int slab_read(struct slab_snap *s)
{
	FILE *f = fopen("/proc/slabinfo", "r");
	long pages, slabs, v;
	char line[512];

	s->n = 0;
	s->objs = 0;
	s->pages = 0;
	s->slab_kb = 0;
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f) && s->n < SLAB_CACHES_MAX) {
		struct slab_cache *c = &s->c[s->n];

		if (sscanf(line, SLABINFO_FMT, c->name, &c->active, &c->size, &pages, &slabs) != 5)
			continue;
		s->objs += (double)c->active * c->size;
		s->pages += (double)slabs * pages * getpagesize();
		s->n++;
	}
	fclose(f);
	f = fopen("/proc/meminfo", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "SUnreclaim: %ld", &v) == 1 ||
		    sscanf(line, "SReclaimable: %ld", &v) == 1)
			s->slab_kb += v;
	fclose(f);
	return 0;
}

static double slab_abs(double d)
{
	return d < 0 ? -d : d;
}

static int slab_cmp_delta(const void *a, const void *b)
{
	double x = slab_abs(((const struct slab_cache *)a)->delta);
	double y = slab_abs(((const struct slab_cache *)b)->delta);

	return y > x ? 1 : y < x ? -1 : 0;
}

/* "BENCH memory slab: @what: cache +B/func, ...": the caches that changed most from @a to @b */
static void slab_print(const char *what, const struct slab_snap *a, struct slab_snap *b,
		       size_t n)
{
	int i, j, shown = 0;

	for (i = 0; i < b->n; i++) {
		b->c[i].delta = (double)b->c[i].active * b->c[i].size;
		for (j = 0; j < a->n; j++) {
			if (!strcmp(a->c[j].name, b->c[i].name)) {
				b->c[i].delta -= (double)a->c[j].active * a->c[j].size;
				break;
			}
		}
	}
	qsort(b->c, b->n, sizeof(b->c[0]), slab_cmp_delta);
	printf("BENCH memory slab: %s:", what);
	for (i = 0; i < b->n && shown < SLAB_TOP; i++) {
		if (slab_abs(b->c[i].delta) < n)	/* under a byte a function */
			break;
		printf("%s %s %+.1f B/func", shown++ ? "," : "", b->c[i].name, b->c[i].delta / n);
	}
	printf("%s\n", shown ? "" : " none");
}

/*
 * "BENCH memory objects: @what: ...": what @m added counted by object, not
 * by page: slab objects, kmalloc()s larger than a page (slab memory in
 * /proc/meminfo that no slab cache's pages hold), vmalloc() and percpu
 * memory. A slab page a free left partly used, or one freed, moves
 * SUnreclaim by 4 KiB and more without a byte allocated or freed, so
 * the page count of "data" moves by tens of bytes per function from run
 * to run when many objects are freed and allocated, as a second link's
 * attach does.
 */
static void objects_print(const char *what, const struct slab_snap *a, const struct slab_snap *b,
			  const struct mem_delta *m, size_t n)
{
	double objs = b->objs - a->objs;
	double large = (b->slab_kb - a->slab_kb) * 1024.0 - (b->pages - a->pages);
	double other = (m->d.vmalloc_kb - m->d.exec_kb - m->d.pack_kb + m->d.percpu_kb) * 1024.0;

	printf("BENCH memory objects: %s: %.1f B/func (slab objects %+.1f, large kmalloc %+.1f, ",
	       what, (objs + large + other) / n, objs / n, large / n);
	printf("vmalloc and percpu %+.1f)\n", other / n);
}

/* An ordinary fentry program doing what bench_fentry does. */
static int load_fentry(__u32 btf_id)
{
	struct bpf_insn insns[] = {
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	LIBBPF_OPTS(bpf_prog_load_opts, opts,
		    .expected_attach_type = BPF_TRACE_FENTRY,
		    .attach_btf_id = btf_id);

	return bpf_prog_load(BPF_PROG_TYPE_TRACING, "bench_fentry", "GPL", insns,
			     ARRAY_SIZE(insns), &opts);
}

/*
 * Ordinary fentry: @prog, what MEM_SAMPLE programs for one function take;
 * @load, what MEM_SAMPLE programs for as many functions take (the first
 * that loads in each of MEM_SAMPLE even parts of the list); @attach, what
 * attaching those adds. Nothing is freed before the last read: memory
 * freed in between would be taken again and not counted.
 */
static int mem_ordinary(struct tracing_multi_bench *skel, __u32 *ids, size_t cnt,
			struct mem_delta *prog, struct mem_delta *load,
			struct mem_delta *attach)
{
	int one[MEM_SAMPLE], fds[MEM_SAMPLE], links[MEM_SAMPLE];
	int i, k = MIN(cnt, MEM_SAMPLE), no, n = 0, nl = 0, reads, err = -1;
	struct rlimit rl = { 4 * MEM_SAMPLE, 4 * MEM_SAMPLE };
	struct mem_snap s0, s1, s2, s3;
	size_t j;

	/* 3 * MEM_SAMPLE fds at once */
	setrlimit(RLIMIT_NOFILE, &rl);
	if (mem_settle(skel, &s0) < 0)
		return -1;
	/* k programs, one function: the first that loads */
	for (no = 0, j = 0; no < k; no++) {
		one[no] = load_fentry(ids[j]);
		while (!no && one[no] < 0 && ++j < cnt)
			one[no] = load_fentry(ids[j]);
		if (!ASSERT_GE(one[no], 0, "load fentry"))
			break;
	}
	reads = no == k ? mem_settle(skel, &s1) : -1;
	if (reads < 0)
		goto out;
	mem_diff(&s0, &s1, reads, prog);
	prog->units = k;

	/* k programs, k functions */
	for (i = 0; i < k; i++) {
		fds[n] = -1;
		for (j = i * cnt / k; j < (i + 1) * cnt / k && fds[n] < 0; j++)
			fds[n] = load_fentry(ids[j]);
		n += fds[n] >= 0;
	}
	tracing_multi_mark("bench: memory: %d ordinary programs\n", n);
	reads = mem_settle(skel, &s2);
	if (!ASSERT_GT(n, 0, "ordinary programs") || reads < 0)
		goto out;
	mem_diff(&s1, &s2, reads, load);
	load->units = n;

	for (nl = 0; nl < n; nl++) {
		links[nl] = bpf_link_create(fds[nl], 0, BPF_TRACE_FENTRY, NULL);
		if (!ASSERT_GE(links[nl], 0, "ordinary attach"))
			break;
	}
	tracing_multi_mark("bench: memory: %d ordinary links\n", nl);
	reads = nl == n ? mem_settle(skel, &s3) : -1;
	if (reads >= 0) {
		mem_diff(&s2, &s3, reads, attach);
		attach->units = n;
		err = 0;
	}
out:
	while (nl--)
		close(links[nl]);
	while (n--)
		close(fds[n]);
	while (no--)
		close(one[no]);
	return err;
}

void serial_test_tracing_multi_bench_memory(void)
{
	LIBBPF_OPTS(bpf_tracing_multi_opts, opts);
	LIBBPF_OPTS(bpf_kprobe_multi_opts, kopts);
	struct mem_delta multi, multi2, kmulti, prog, load, attach;
	struct bpf_link *link, *link2 = NULL;
	struct tracing_multi_bench *skel;
	double jit, data, pjit, pdata;
	struct slab_snap *slabs = NULL;
	struct mem_snap s0, s1, s2;
	int reads, reads2 = -1, kerr;
	bool slab_ok = false;
	char **names = NULL;
	__u32 *ids = NULL;
	size_t cnt = 0;

	if (tracing_multi_all_funcs(&names, &ids, &cnt))
		return;
	skel = tracing_multi_bench__open();
	if (!ASSERT_OK_PTR(skel, "open"))
		goto out_free;
	bpf_program__set_autoload(skel->progs.read_jit_current, true);
	if (!ASSERT_OK(tracing_multi_bench__load(skel), "load"))
		goto out;
	if (tracing_multi_drop_all_refused(skel->progs.bench_fentry, ids, names, &cnt))
		goto out;

	/* one fentry.multi link on every function, then a second one */
	opts.ids = ids;
	opts.cnt = cnt;
	slabs = calloc(3, sizeof(*slabs));
	if (!ASSERT_OK_PTR(slabs, "calloc") || mem_settle(skel, &s0) < 0)
		goto out;
	slab_ok = !slab_read(&slabs[0]);
	tracing_multi_mark("bench: memory: fentry.multi on %zu\n", cnt);
	link = bpf_program__attach_tracing_multi(skel->progs.bench_fentry, NULL, &opts);
	if (!ASSERT_OK_PTR(link, "fentry.multi attach"))
		goto out;
	reads = mem_settle(skel, &s1);
	slab_ok = !slab_read(&slabs[1]) && slab_ok;
	tracing_multi_mark("bench: memory: fentry.multi again on %zu\n", cnt);
	if (reads >= 0) {
		link2 = bpf_program__attach_tracing_multi(skel->progs.bench_fentry, NULL, &opts);
		if (ASSERT_OK_PTR(link2, "fentry.multi attach again"))
			reads2 = mem_settle(skel, &s2);
		slab_ok = reads2 >= 0 && !slab_read(&slabs[2]) && slab_ok;
	}
	tracing_multi_mark("bench: memory: fentry.multi detach\n");
	bpf_link__destroy(link2);
	bpf_link__destroy(link);
	if (reads < 0)
		goto out;
	mem_diff(&s0, &s1, reads, &multi);
	if (reads2 >= 0)
		mem_diff(&s1, &s2, reads2, &multi2);

	/* kprobe.multi on the same functions */
	if (mem_settle(skel, &s0) < 0)
		goto out;
	tracing_multi_mark("bench: memory: kprobe.multi on %zu\n", cnt);
	kopts.syms = (const char **)names;
	kopts.cnt = cnt;
	link = bpf_program__attach_kprobe_multi_opts(skel->progs.bench_kprobe, NULL, &kopts);
	kerr = libbpf_get_error(link);
	if (kerr != -EOPNOTSUPP) {
		if (!ASSERT_OK_PTR(link, "kprobe.multi attach"))
			goto out;
		reads = mem_settle(skel, &s1);
		bpf_link__destroy(link);
		if (reads < 0)
			goto out;
		mem_diff(&s0, &s1, reads, &kmulti);
	}

	/* ordinary fentry, one trampoline per function, on a sample */
	if (mem_ordinary(skel, ids, cnt, &prog, &load, &attach))
		goto out;
	pjit = prog.jit / prog.units;
	pdata = prog.data / prog.units;
	jit = (load.jit + attach.jit) / load.units - pjit;
	data = (load.data + attach.data) / load.units - pdata;

	mem_detail("fentry.multi", &multi);
	if (reads2 >= 0)
		mem_detail("fentry.multi again", &multi2);
	if (slab_ok) {
		slab_print("fentry.multi", &slabs[0], &slabs[1], cnt);
		slab_print("fentry.multi again", &slabs[1], &slabs[2], cnt);
		objects_print("fentry.multi", &slabs[0], &slabs[1], &multi, cnt);
		objects_print("fentry.multi again", &slabs[1], &slabs[2], &multi2, cnt);
	}
	if (kerr != -EOPNOTSUPP)
		mem_detail("kprobe.multi", &kmulti);
	mem_detail("fentry programs, one function", &prog);
	mem_detail("fentry programs, one function each", &load);
	mem_detail("fentry attach", &attach);
	printf("BENCH memory: functions %zu; ", cnt);
	mem_print("fentry.multi", multi.jit, multi.data, cnt, "; ");
	if (reads2 >= 0)
		mem_print("fentry.multi again", multi2.jit, multi2.data, cnt, "; ");
	if (kerr == -EOPNOTSUPP)
		printf("kprobe.multi n/a (none here); ");
	else
		mem_print("kprobe.multi", kmulti.jit, kmulti.data, cnt, "; ");
	printf("fentry trampolines, %d sampled, scaled to %zu:", load.units, cnt);
	mem_print("", jit * cnt, data * cnt, cnt, "; ");
	printf("fentry programs jit %.1f B/prog data %.1f B/prog\n", pjit, pdata);
out:
	free(slabs);
	tracing_multi_bench__destroy(skel);
out_free:
	free(ids);
	free(names);
}

/*
 * tracing_multi_bench_profile: where the kernel spends the attach and the
 * detach of a link on every function, PROFILE_ROUNDS times, sampled: a
 * cpu-clock event on this thread counts the kernel stack of each sample
 * (progs/tracing_multi_profile.c), every PROFILE_PERIOD ns of its CPU time
 * (under the instruction clock, instructions) with high-resolution timers,
 * else every tick (EXPERIMENT=profile-hrtimers builds a kernel with them).
 * Prints, for the PROFILE_TOP functions most often on the stack, their
 * share of the samples on the stack and at its top. A diagnostic: make
 * bench runs it only if BENCH_TESTS names it. Sampling slows the profiled
 * work (each sample walks the stack, through the link's trampolines once
 * it is attached), and a sample due while interrupts are off counts where
 * they are enabled again (__text_poke() holds most of them).
 */
#define PROFILE_ROUNDS 4
#define PROFILE_PERIOD 20000
#define PROFILE_DEPTH 48	/* as in progs/tracing_multi_profile.c */
#define PROFILE_TOP 40
#define PROFILE_SYMS 8192	/* distinct functions counted, a power of 2 */

struct profile_sym {
	const struct ksym *sym;
	__u64 incl, self;
	__u32 stamp;		/* the last stack that counted it inclusive */
};

static struct profile_sym *profile_sym_of(struct profile_sym *tab, const struct ksym *sym)
{
	size_t i = ((unsigned long)sym >> 4) & (PROFILE_SYMS - 1), n;

	for (n = 0; n < PROFILE_SYMS; n++, i = (i + 1) & (PROFILE_SYMS - 1)) {
		if (tab[i].sym == sym)
			return &tab[i];
		if (!tab[i].sym) {
			tab[i].sym = sym;
			return &tab[i];
		}
	}
	return NULL;
}

static int profile_cmp(const void *a, const void *b)
{
	const struct profile_sym *x = a, *y = b;

	return x->incl < y->incl ? 1 : x->incl > y->incl ? -1 : 0;
}

/* Print the profile of the attaches or (@detach) the detaches. */
static __u64 profile_print(struct tracing_multi_profile *skel, struct ksyms *ksyms,
			   bool detach)
{
	int counts = bpf_map__fd(skel->maps.profile_counts);
	int stacks = bpf_map__fd(skel->maps.profile_stacks);
	__u64 ips[PROFILE_DEPTH], total = 0, cnt, key, next;
	struct profile_sym *tab, *ps;
	const struct ksym *sym;
	bool first = true;
	__u32 id, nstack = 0;
	int i;

	tab = calloc(PROFILE_SYMS, sizeof(*tab));
	if (!ASSERT_OK_PTR(tab, "calloc"))
		return 0;
	while (!bpf_map_get_next_key(counts, first ? NULL : &key, &next)) {
		first = false;
		key = next;
		id = key;
		if (key >> 32 != detach || bpf_map_lookup_elem(counts, &key, &cnt))
			continue;
		memset(ips, 0, sizeof(ips));
		if (bpf_map_lookup_elem(stacks, &id, ips))
			continue;
		total += cnt;
		nstack++;
		for (i = 0; i < PROFILE_DEPTH && ips[i]; i++) {
			sym = ksym_search_local(ksyms, ips[i]);
			ps = sym ? profile_sym_of(tab, sym) : NULL;
			if (!ps)
				continue;
			if (!i)
				ps->self += cnt;
			if (ps->stamp != nstack) {	/* once per stack */
				ps->stamp = nstack;
				ps->incl += cnt;
			}
		}
	}
	qsort(tab, PROFILE_SYMS, sizeof(*tab), profile_cmp);
	printf("PROFILE %s: %llu samples, %u stacks (%llu lost in all)\n",
	       detach ? "detach" : "attach", (unsigned long long)total, nstack,
	       (unsigned long long)skel->bss->profile_lost);
	printf("PROFILE   on stack  at top  function\n");
	for (i = 0; i < PROFILE_TOP && total && tab[i].sym; i++)
		printf("PROFILE   %7.1f%%  %5.1f%%  %s\n", 100.0 * tab[i].incl / total,
		       100.0 * tab[i].self / total, tab[i].sym->name);
	free(tab);
	return total;
}

void serial_test_tracing_multi_bench_profile(void)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.size = sizeof(attr),
		.sample_period = PROFILE_PERIOD,
	};
	LIBBPF_OPTS(bpf_tracing_multi_opts, opts);
	struct tracing_multi_profile *prof = NULL;
	struct bpf_link *sampler = NULL, *link;
	struct tracing_multi_bench *skel;
	struct ksyms *ksyms = NULL;
	__u64 attach = 0, detach = 0;
	char **names = NULL;
	__u32 *ids = NULL;
	size_t cnt = 0;
	int pfd = -1, i;

	if (tracing_multi_all_funcs(&names, &ids, &cnt))
		return;
	skel = tracing_multi_bench__open_and_load();
	if (!ASSERT_OK_PTR(skel, "open_and_load"))
		goto out;
	if (tracing_multi_drop_all_refused(skel->progs.bench_fentry, ids, names, &cnt))
		goto out;
	prof = tracing_multi_profile__open_and_load();
	ksyms = load_kallsyms_local();
	if (!ASSERT_OK_PTR(prof, "profile open_and_load") || !ASSERT_OK_PTR(ksyms, "kallsyms"))
		goto out;
	/* this thread, on any CPU */
	pfd = syscall(__NR_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (!ASSERT_GE(pfd, 0, "perf_event_open"))
		goto out;
	sampler = bpf_program__attach_perf_event(prof->progs.profile_sample, pfd);
	if (!ASSERT_OK_PTR(sampler, "attach sampler"))
		goto out;
	opts.ids = ids;
	opts.cnt = cnt;
	for (i = 0; i < PROFILE_ROUNDS; i++) {
		tracing_multi_settle();
		prof->bss->profile_on = true;
		link = bpf_program__attach_tracing_multi(skel->progs.bench_fentry, NULL, &opts);
		prof->bss->profile_on = false;
		if (!ASSERT_OK_PTR(link, "fentry.multi attach"))
			goto out;
		prof->bss->profile_detach = true;
		tracing_multi_settle();
		prof->bss->profile_on = true;
		bpf_link__destroy(link);
		prof->bss->profile_on = false;
		prof->bss->profile_detach = false;
	}
	attach = profile_print(prof, ksyms, false);
	detach = profile_print(prof, ksyms, true);
	printf("BENCH profile: functions %zu, rounds %d; samples attach %llu detach %llu\n",
	       cnt, PROFILE_ROUNDS, (unsigned long long)attach, (unsigned long long)detach);
out:
	bpf_link__destroy(sampler);
	if (pfd >= 0)
		close(pfd);
	free_kallsyms_local(ksyms);
	tracing_multi_profile__destroy(prof);
	tracing_multi_bench__destroy(skel);
	free(ids);
	free(names);
}
