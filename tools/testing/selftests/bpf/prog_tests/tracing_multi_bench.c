// SPDX-License-Identifier: GPL-2.0
/* Benchmarks, run by "make bench", not by "make check": they print
 * numbers and assert only that what they measure works.
 * - tracing_multi_bench_attach: one fentry.multi program on every function
 *   it can take, then kprobe.multi on the same functions;
 * - tracing_multi_bench_trigger: calls per second of a function with
 *   nothing, fentry, fentry.multi, fexit, fexit.multi, kprobe, kprobe.multi,
 *   fmod_ret or fmod_ret.multi on it
 *   (like selftests' bench trig-*).
 */
#include <test_progs.h>
#include <bpf/btf.h>
#include <fcntl.h>
#include <stdarg.h>
#include <time.h>
#include "tracing_multi_bench.skel.h"
#include "tracing_multi_common.h"

/* Progress in the kernel log, which a crash does not lose. */
void tracing_multi_mark(const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	int fd, n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fd = open("/dev/kmsg", O_WRONLY);
	if (fd < 0)
		return;
	if (write(fd, buf, n) < 0)
		n = 0;
	close(fd);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* As kprobe_multi_bench_attach, plus what fentry refuses (btf_id_deny). */
static bool skip_name(const char *name)
{
	static const char * const deny[] = {
		"arch_cpu_idle", "default_idle", "bpf_dispatcher_xdp_func",
		"migrate_disable", "migrate_enable", "preempt_count_add",
		"preempt_count_sub", "__rcu_read_lock", "__rcu_read_unlock",
	};
	int i;

	if (!strncmp(name, "rcu_", 4) || !strncmp(name, "__ftrace_invalid_address__", 26))
		return true;
	for (i = 0; i < ARRAY_SIZE(deny); i++)
		if (!strcmp(name, deny[i]))
			return true;
	return false;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char **)a, *(char **)b);
}

static bool proto_ok(const struct btf *btf, const struct btf_type *proto)
{
	const struct btf_param *p = btf_params(proto);
	const struct btf_type *t;
	int i, n = btf_vlen(proto);

	if (n > 6)
		return false;
	for (i = 0; i < n; i++) {
		if (!p[i].type)
			return false;
		t = btf__type_by_id(btf, p[i].type);
		while (btf_is_mod(t) || btf_is_typedef(t))
			t = btf__type_by_id(btf, t->type);
		if (btf_is_composite(t))
			return false;
	}
	if (!proto->type)
		return true;
	t = btf__type_by_id(btf, proto->type);
	while (btf_is_mod(t) || btf_is_typedef(t))
		t = btf__type_by_id(btf, t->type);
	return !btf_is_composite(t);
}

/* Sorted text symbol names of vmlinux in /proc/kallsyms. */
static char **kallsyms_text(size_t *pcnt)
{
	char line[512], name[256], type;
	size_t n = 0, cap = 0;
	char **names = NULL;
	FILE *f = fopen("/proc/kallsyms", "r");

	if (!f)
		return NULL;
	while (fgets(line, sizeof(line), f)) {
		if (strchr(line, '[') || sscanf(line, "%*s %c %255s", &type, name) != 2)
			continue;
		if (type != 't' && type != 'T')
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 65536;
			names = realloc(names, cap * sizeof(*names));
			if (!names)
				break;
		}
		names[n++] = strdup(name);
	}
	fclose(f);
	if (names)
		qsort(names, n, sizeof(*names), cmp_str);
	*pcnt = n;
	return names;
}

static bool is_dup(char **names, size_t n, const char *name)
{
	char **p = bsearch(&name, names, n, sizeof(*names), cmp_str);

	return p && ((p > names && !strcmp(p[-1], name)) ||
		     (p + 1 < names + n && !strcmp(p[1], name)));
}

struct func_id {
	const char *name;
	__u32 id;
};

static int cmp_func_id(const void *a, const void *b)
{
	const struct func_id *x = a, *y = b;
	int r = strcmp(x->name, y->name);

	return r ? r : (x->id > y->id) - (x->id < y->id);
}

/* The BTF_KIND_FUNCs of @btf sorted by name, then id: btf__find_by_name_kind()
 * walks every type, too slow for ~19,000 lookups in an emulated guest.
 */
static struct func_id *btf_funcs_sorted(const struct btf *btf, size_t *pcnt)
{
	__u32 id, n = btf__type_cnt(btf);
	struct func_id *funcs;
	size_t cnt = 0;

	funcs = calloc(n, sizeof(*funcs));
	if (!funcs)
		return NULL;
	for (id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);

		if (!btf_is_func(t))
			continue;
		funcs[cnt].name = btf__name_by_offset(btf, t->name_off);
		funcs[cnt++].id = id;
	}
	qsort(funcs, cnt, sizeof(*funcs), cmp_func_id);
	*pcnt = cnt;
	return funcs;
}

/* As btf__find_by_name_kind(btf, name, BTF_KIND_FUNC): the lowest id. */
static int btf_func_id(const struct func_id *funcs, size_t cnt, const char *name)
{
	struct func_id key = { .name = name, .id = 0 };
	size_t lo = 0, hi = cnt;

	while (lo < hi) {	/* first entry not below (name, 0) */
		size_t mid = lo + (hi - lo) / 2;

		if (cmp_func_id(&funcs[mid], &key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < cnt && !strcmp(funcs[lo].name, name) ? (int)funcs[lo].id : -ENOENT;
}

/* Names (sorted, unique, vmlinux) and BTF ids of every function that
 * fentry.multi can take: in available_filter_functions, one text symbol of
 * that name, a BTF prototype a shared image serves, not denied.
 */
int tracing_multi_all_funcs(char ***pnames, __u32 **pids, size_t *pcnt)
{
	char line[512], name[256], **all = NULL, **names = NULL, **ksyms;
	size_t n = 0, cap = 0, cnt = 0, i, nksyms, nfuncs = 0;
	struct func_id *funcs = NULL;
	struct btf *btf;
	__u32 *ids = NULL;
	FILE *f;

	f = fopen("/sys/kernel/tracing/available_filter_functions", "r");
	if (!ASSERT_OK_PTR(f, "available_filter_functions"))
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (strchr(line, '[') || sscanf(line, "%255s", name) != 1)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 4096;
			all = realloc(all, cap * sizeof(*all));
			if (!all)
				break;
		}
		all[n++] = strdup(name);
	}
	fclose(f);
	if (!ASSERT_OK_PTR(all, "names"))
		return -1;
	qsort(all, n, sizeof(*all), cmp_str);
	ksyms = kallsyms_text(&nksyms);
	if (!ASSERT_OK_PTR(ksyms, "kallsyms"))
		return -1;
	btf = btf__load_vmlinux_btf();
	if (!ASSERT_OK_PTR(btf, "btf"))
		return -1;
	funcs = btf_funcs_sorted(btf, &nfuncs);
	names = calloc(n, sizeof(*names));
	ids = calloc(n, sizeof(*ids));
	if (!funcs || !names || !ids)
		return -1;
	for (i = 0; i < n; i++) {
		bool dup = (i && !strcmp(all[i], all[i - 1])) ||
			   (i + 1 < n && !strcmp(all[i], all[i + 1]));
		int id;

		if (dup || skip_name(all[i]) || is_dup(ksyms, nksyms, all[i]))
			continue;
		id = btf_func_id(funcs, nfuncs, all[i]);
		if (id <= 0 || !proto_ok(btf, btf__type_by_id(btf, btf__type_by_id(btf, id)->type)))
			continue;
		names[cnt] = all[i];
		ids[cnt++] = id;
	}
	free(funcs);
	btf__free(btf);
	*pnames = names;
	*pids = ids;
	*pcnt = cnt;
	return 0;
}

static int count_images(void)
{
	FILE *f = fopen("/sys/kernel/debug/bpf_multi_trampolines", "r");
	char line[256];
	int n = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		n += !strncmp(line, "shared ", 7) || !strncmp(line, "own ", 4);
	fclose(f);
	return n;
}

/* Drop from ids[]/names[] the functions the kernel refuses, found by
 * halving the set that fails; print them. Returns the new count.
 */
size_t tracing_multi_drop_refused(struct bpf_program *prog, __u32 *ids, char **names,
				  size_t lo, size_t hi, bool *refused)
{
	LIBBPF_OPTS(bpf_tracing_multi_opts, opts);
	struct bpf_link *link;
	size_t mid;

	opts.ids = ids + lo;
	opts.cnt = hi - lo;
	link = bpf_program__attach_tracing_multi(prog, NULL, &opts);
	tracing_multi_mark("bench: attach [%zu, %zu): %ld\n", lo, hi, libbpf_get_error(link));
	if (!libbpf_get_error(link)) {
		bpf_link__destroy(link);
		return 0;
	}
	if (hi - lo == 1) {
		printf("BENCH refused by fentry.multi: %s\n", names[lo]);
		refused[lo] = true;
		return 1;
	}
	mid = lo + (hi - lo) / 2;
	return tracing_multi_drop_refused(prog, ids, names, lo, mid, refused) +
	       tracing_multi_drop_refused(prog, ids, names, mid, hi, refused);
}

void serial_test_tracing_multi_bench_attach(void)
{
	LIBBPF_OPTS(bpf_tracing_multi_opts, opts);
	LIBBPF_OPTS(bpf_kprobe_multi_opts, kopts);
	double t0, t1, t2, k0, k1, k2;
	struct tracing_multi_bench *skel;
	struct bpf_link *link;
	char **names = NULL;
	__u32 *ids = NULL;
	size_t cnt = 0;
	int images, kerr;

	if (tracing_multi_all_funcs(&names, &ids, &cnt))
		return;
	skel = tracing_multi_bench__open_and_load();
	if (!ASSERT_OK_PTR(skel, "open_and_load"))
		return;

	/* the kernel's own refusals (none expected): find and drop them */
	opts.ids = ids;
	opts.cnt = cnt;
	tracing_multi_mark("bench: attach all %zu\n", cnt);
	link = bpf_program__attach_tracing_multi(skel->progs.bench_fentry, NULL, &opts);
	tracing_multi_mark("bench: attach all: %ld\n", libbpf_get_error(link));
	if (libbpf_get_error(link)) {
		bool *refused = calloc(cnt, sizeof(*refused));
		size_t i, j;

		if (!ASSERT_OK_PTR(refused, "calloc"))
			goto out;
		tracing_multi_drop_refused(skel->progs.bench_fentry, ids, names, 0, cnt, refused);
		for (i = 0, j = 0; i < cnt; i++) {
			if (refused[i])
				continue;
			ids[j] = ids[i];
			names[j++] = names[i];
		}
		cnt = j;
		free(refused);
	} else {
		bpf_link__destroy(link);
	}
	opts.cnt = cnt;
	tracing_multi_mark("bench: timed attach %zu\n", cnt);
	t0 = now();
	link = bpf_program__attach_tracing_multi(skel->progs.bench_fentry, NULL, &opts);
	t1 = now();
	if (!ASSERT_OK_PTR(link, "fentry.multi attach"))
		goto out;
	images = count_images();
	tracing_multi_mark("bench: detach\n");
	bpf_link__destroy(link);
	t2 = now();
	tracing_multi_mark("bench: kprobe.multi\n");

	kopts.syms = (const char **)names;
	kopts.cnt = cnt;
	k0 = now();
	link = bpf_program__attach_kprobe_multi_opts(skel->progs.bench_kprobe, NULL, &kopts);
	k1 = now();
	kerr = libbpf_get_error(link);
	if (kerr != -EOPNOTSUPP) {
		if (!ASSERT_OK_PTR(link, "kprobe.multi attach"))
			goto out;
		bpf_link__destroy(link);
	}
	k2 = now();
	printf("BENCH tracing_multi_attach: functions %zu, ", cnt);
	printf("fentry.multi attach %.3f s detach %.3f s images %d; ", t1 - t0, t2 - t1, images);
	if (kerr == -EOPNOTSUPP)
		printf("kprobe.multi n/a (none here)\n");
	else
		printf("kprobe.multi attach %.3f s detach %.3f s\n", k1 - k0, k2 - k1);
out:
	tracing_multi_bench__destroy(skel);
	free(ids);
	free(names);
}

#define TRIG_LOOPS 1000	/* as in progs/tracing_multi_bench.c */
#define TRIG_RUNS 200

/* Calls per second (millions) of the driver's function, best of 3. */
static double trig_rate(struct tracing_multi_bench *skel, struct bpf_program *driver,
			bool counted)
{
	LIBBPF_OPTS(bpf_test_run_opts, topts);
	int i, r, fd = bpf_program__fd(driver);
	double best = 0, t;

	for (r = 0; r < 3; r++) {
		skel->bss->hits = 0;
		t = now();
		for (i = 0; i < TRIG_RUNS; i++)
			if (!ASSERT_OK(bpf_prog_test_run_opts(fd, &topts), "test_run"))
				return 0;
		t = now() - t;
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
	TRIG_FMODRET_MULTI, TRIG_FSESSION, TRIG_FSESSION_MULTI, NR_TRIG
};

static void print_ratio(const char *what, double a, double b, bool last)
{
	if (a && b)
		printf("%s %.1f%%%s", what, 100 * a / b, last ? "\n" : ", ");
	else
		printf("%s n/a%s", what, last ? "\n" : ", ");
}

/* As selftests' bench trig-*: bpf_get_numa_node_id() (fmod_ret runs:
 * bpf_modify_return_test_tp()) called in a loop by a BPF driver, with one
 * program of each kind on it in turn. kprobe.multi is n/a where the
 * kernel has none (arm64 6.12).
 */
void serial_test_tracing_multi_bench_trigger(void)
{
	static const char *const func = "bpf_get_numa_node_id";
	static const char *const kfunc = "bpf_modify_return_test_tp";
	struct tracing_multi_bench *skel;
	struct {
		const char *name;
		struct bpf_program *prog;
		bool kfunc_driver;
		double rate;
	} runs[NR_TRIG] = {};
	struct bpf_program *driver;
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
	runs[TRIG_BASE_KFUNC] = (typeof(runs[0])){ "base-kfunc", NULL, true };
	runs[TRIG_FMODRET] = (typeof(runs[0])){ "fmodret", skel->progs.trig_fmodret, true };
	runs[TRIG_FSESSION] = (typeof(runs[0])){ "fsession", skel->progs.trig_fsession };
	runs[TRIG_FSESSION_MULTI] = (typeof(runs[0])){ "fsession-multi",
						       skel->progs.trig_fsession_multi };
	runs[TRIG_FMODRET_MULTI] = (typeof(runs[0])){ "fmodret-multi",
						      skel->progs.trig_fmodret_multi, true };
	for (i = 0; i < NR_TRIG; i++)
		if (runs[i].prog)
			bpf_program__set_autoload(runs[i].prog, true);
	if (!ASSERT_OK(tracing_multi_bench__load(skel), "load"))
		goto out;
	for (i = 0; i < NR_TRIG; i++) {
		struct bpf_program *prog = runs[i].prog;
		const char *target = runs[i].kfunc_driver ? kfunc : func;

		link = NULL;
		if (prog == skel->progs.trig_fentry_multi ||
		    prog == skel->progs.trig_fexit_multi ||
		    prog == skel->progs.trig_fsession_multi ||
		    prog == skel->progs.trig_fmodret_multi)
			link = bpf_program__attach_tracing_multi(prog, target, NULL);
		else if (prog == skel->progs.trig_kprobe_multi)
			link = bpf_program__attach_kprobe_multi_opts(prog, target, NULL);
		else if (prog)
			link = bpf_program__attach(prog);
		if (prog == skel->progs.trig_kprobe_multi &&
		    libbpf_get_error(link) == -EOPNOTSUPP) {
			printf("BENCH trig-kprobe-multi: n/a (no kprobe.multi here)\n");
			continue;
		}
		if (prog && !ASSERT_OK_PTR(link, runs[i].name))
			goto out;
		driver = runs[i].kfunc_driver ? skel->progs.trig_driver_kfunc
					      : skel->progs.trig_driver;
		runs[i].rate = trig_rate(skel, driver, prog);
		bpf_link__destroy(link);
	}
	for (i = 0; i < NR_TRIG; i++) {
		double base = runs[runs[i].kfunc_driver ? TRIG_BASE_KFUNC : TRIG_BASE].rate;

		if (runs[i].rate)
			printf("BENCH trig-%s: %.3f M/s (%.1f%% of %s)\n", runs[i].name,
			       runs[i].rate, 100 * runs[i].rate / base,
			       runs[i].kfunc_driver ? "base-kfunc" : "base");
	}
	printf("BENCH ");
	print_ratio("fentry-multi/fentry", runs[TRIG_FENTRY_MULTI].rate, runs[TRIG_FENTRY].rate, 0);
	print_ratio("fexit-multi/fexit", runs[TRIG_FEXIT_MULTI].rate, runs[TRIG_FEXIT].rate, 0);
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
		t = now();
		link = bpf_program__attach(skel->progs.trig_fentry);
		ta += now() - t;
		if (!ASSERT_OK_PTR(link, "attach fentry"))
			return;
		t = now();
		bpf_link__destroy(link);
		td += now() - t;
	}
	*attach = ta * 1e3 / ORD_ROUNDS;
	*detach = td * 1e3 / ORD_ROUNDS;
}

/* Every ordinary fentry/fexit attach takes tramp_multi_mutex: its latency
 * with multi links attached to other functions, against none.
 */
void serial_test_tracing_multi_bench_ordinary(void)
{
	struct bpf_link *links[ORD_MULTI_LINKS] = {};
	struct tracing_multi_bench *skel;
	double a0, d0, a1, d1;
	int i;

	skel = tracing_multi_bench__open();
	if (!ASSERT_OK_PTR(skel, "open"))
		return;
	bpf_program__set_autoload(skel->progs.trig_fentry, true);
	if (!ASSERT_OK(tracing_multi_bench__load(skel), "load"))
		goto out;
	ordinary_attach_time(skel, &a0, &d0);
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
