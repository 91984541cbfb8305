// SPDX-License-Identifier: GPL-2.0
/* What the tracing_multi tests share: the functions fentry.multi can take,
 * kallsyms, bpf_testmod's BTF, the pauses and marks of the benchmarks, the
 * bpf_fentry_test1..9 functions, debugfs counters and switches, fault
 * injection, and the grace periods a test waits for.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include "prog_tests/tracing_multi_common.h"
#include "trace_helpers.h"

/**
 * tracing_multi_settle - let the work earlier operations left behind run
 *
 * Before a timed operation: let the work earlier ones left behind (RCU
 * callbacks, images freed, the tidy work) run first. Under the
 * instruction-counted clock, time is every instruction any CPU executes,
 * so that work would count as the operation's; an idle guest's clock jumps
 * ahead, so the pause costs little. The images put wait for RCU-tasks
 * grace periods, which can outlast a fixed pause: wait until they are
 * freed (bounded: a leak shows as the count printed, not as a hang).
 */
void tracing_multi_settle(void)
{
	long n = tramp_images_wait_freed(30 * 1000);

	if (n > 0)
		printf("settle: %ld trampoline images still not freed after 30 s\n", n);
	usleep(300 * 1000);
}

/**
 * tracing_multi_mark - progress in the kernel log, which a crash does not lose
 * @fmt: printf format, and its arguments
 *
 * Also in the trace buffer, where it places the events a tracer recorded
 * (kmem's allocations, for one) against the test's steps.
 */
void tracing_multi_mark(const char *fmt, ...)
{
	char buf[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	tracing_multi_write_file("/dev/kmsg", buf);
	tracing_multi_write_file("/sys/kernel/tracing/trace_marker", buf);
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

/* qsort() and bsearch() order of an array of strings */
int tracing_multi_cmp_str(const void *a, const void *b)
{
	return strcmp(*(char * const *)a, *(char * const *)b);
}

/* qsort() order of an array of doubles, ascending */
int tracing_multi_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* CLOCK_MONOTONIC, in seconds */
double tracing_multi_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
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

/**
 * tracing_multi_kallsyms_text - the text symbols of vmlinux in /proc/kallsyms
 * @pcnt: set to their number
 *
 * Return: their names, sorted (a name twice for two functions of that
 * name); free with tracing_multi_free_names(). NULL on failure.
 */
char **tracing_multi_kallsyms_text(size_t *pcnt)
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
		qsort(names, n, sizeof(*names), tracing_multi_cmp_str);
	*pcnt = n;
	return names;
}

static bool is_dup(char **names, size_t n, const char *name)
{
	char **p = bsearch(&name, names, n, sizeof(*names), tracing_multi_cmp_str);

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

/**
 * tracing_multi_ambiguous_id - a function a multi link must refuse by name
 *
 * Return: the BTF id of a vmlinux function whose name kallsyms has more
 * than once among its text symbols (static functions of the same name), or
 * 0 if there is none.
 */
__u32 tracing_multi_ambiguous_id(void)
{
	struct btf *btf = NULL;
	size_t i, n = 0;
	char **names;
	__u32 id = 0;
	int fid;

	names = tracing_multi_kallsyms_text(&n);
	if (names)
		btf = btf__load_vmlinux_btf();
	for (i = 1; !id && btf && i < n; i++) {
		if (strcmp(names[i], names[i - 1]))
			continue;
		fid = btf__find_by_name_kind(btf, names[i], BTF_KIND_FUNC);
		if (fid > 0)
			id = fid;
	}
	btf__free(btf);
	tracing_multi_free_names(names, n);
	return id;
}

/**
 * tracing_multi_all_funcs - every function fentry.multi can take
 * @pnames: set to their names (sorted, unique, vmlinux)
 * @pids: set to their BTF ids
 * @pcnt: set to their number
 *
 * In available_filter_functions, one text symbol of that name, a BTF
 * prototype a shared image serves, not denied.
 *
 * Return: 0, or -1 on failure.
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
	qsort(all, n, sizeof(*all), tracing_multi_cmp_str);
	ksyms = tracing_multi_kallsyms_text(&nksyms);
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

/**
 * tracing_multi_drop_refused - find the functions the kernel refuses
 * @prog: a loaded fentry.multi program
 * @ids: BTF ids of the functions
 * @names: their names
 * @lo: first index of the set tried
 * @hi: one past its last
 * @refused: set true at the index of each function refused
 *
 * Halves the set that fails to attach until each refused function is
 * found; prints them.
 *
 * Return: the number of functions refused in [@lo, @hi).
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

/**
 * tracing_multi_drop_all_refused - keep the functions the kernel takes
 * @prog: a loaded fentry.multi program
 * @ids: BTF ids of the functions
 * @names: their names
 * @pcnt: their number, set to the number kept
 *
 * Attaches @prog to all functions once and detaches it; if the kernel
 * refuses, drops from @ids and @names the functions it refuses (none are
 * expected) and prints them.
 *
 * Return: 0, or -1 if out of memory.
 */
int tracing_multi_drop_all_refused(struct bpf_program *prog, __u32 *ids, char **names,
				   size_t *pcnt)
{
	LIBBPF_OPTS(bpf_tracing_multi_opts, opts);
	size_t i, j, cnt = *pcnt;
	struct bpf_link *link;
	bool *refused;

	opts.ids = ids;
	opts.cnt = cnt;
	tracing_multi_mark("bench: attach all %zu\n", cnt);
	link = bpf_program__attach_tracing_multi(prog, NULL, &opts);
	tracing_multi_mark("bench: attach all: %ld\n", libbpf_get_error(link));
	if (!libbpf_get_error(link)) {
		bpf_link__destroy(link);
		return 0;
	}
	refused = calloc(cnt, sizeof(*refused));
	if (!ASSERT_OK_PTR(refused, "calloc"))
		return -1;
	tracing_multi_drop_refused(prog, ids, names, 0, cnt, refused);
	for (i = 0, j = 0; i < cnt; i++) {
		if (refused[i])
			continue;
		ids[j] = ids[i];
		names[j++] = names[i];
	}
	*pcnt = j;
	free(refused);
	return 0;
}

/**
 * tracing_multi_free_names - free what tracing_multi_kallsyms_text() returned
 * @names: the names
 * @n: their number
 */
void tracing_multi_free_names(char **names, size_t n)
{
	size_t i;

	for (i = 0; names && i < n; i++)
		free(names[i]);
	free(names);
}

/**
 * tracing_multi_module_btf - a module's BTF object
 * @module: the module's name
 * @vmlinux: vmlinux BTF, the base of the module's split BTF
 * @pbtf: set to the module's BTF, which the caller frees
 *
 * Return: an fd of the module's BTF object, or a negative errno.
 */
int tracing_multi_module_btf(const char *module, struct btf *vmlinux, struct btf **pbtf)
{
	struct bpf_btf_info info;
	char name[64];
	__u32 id = 0, len;
	int fd;

	while (!bpf_btf_get_next_id(id, &id)) {
		fd = bpf_btf_get_fd_by_id(id);
		if (fd < 0)
			continue;
		memset(&info, 0, sizeof(info));
		info.name = (__u64)(unsigned long)name;
		info.name_len = sizeof(name);
		len = sizeof(info);
		if (!bpf_btf_get_info_by_fd(fd, &info, &len) && !strcmp(name, module)) {
			*pbtf = btf__load_from_kernel_by_id_split(id, vmlinux);
			if (*pbtf)
				return fd;
		}
		close(fd);
	}
	return -ENOENT;
}

/**
 * tracing_multi_testmod_btf - bpf_testmod's BTF object
 * @vmlinux: vmlinux BTF, the base of the module's split BTF
 * @pbtf: set to the module's BTF, which the caller frees
 *
 * Return: an fd of the module's BTF object, or a negative errno.
 */
int tracing_multi_testmod_btf(struct btf *vmlinux, struct btf **pbtf)
{
	return tracing_multi_module_btf("bpf_testmod", vmlinux, pbtf);
}

/**
 * tracing_multi_testmod_ids - BTF ids of bpf_testmod functions
 * @names: the functions' names
 * @n: how many
 * @ids: set to their ids in the module's BTF
 *
 * Return: an fd of the module's BTF object, for link_create's target_fd,
 * or a negative errno.
 */
int tracing_multi_testmod_ids(const char * const *names, int n, __u32 *ids)
{
	struct btf *vmlinux, *mod = NULL;
	int i, id, fd;

	vmlinux = btf__load_vmlinux_btf();
	if (!vmlinux)
		return -errno;
	fd = tracing_multi_testmod_btf(vmlinux, &mod);
	for (i = 0; fd >= 0 && i < n; i++) {
		id = btf__find_by_name_kind(mod, names[i], BTF_KIND_FUNC);
		if (id <= 0) {
			close(fd);
			fd = -ENOENT;
			break;
		}
		ids[i] = id;
	}
	btf__free(mod);
	btf__free(vmlinux);
	return fd;
}

/* BTF ids of bpf_fentry_test1..9, in that order. */
int fentry_test_ids(__u32 *ids)
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

/* Shared and own images, as <debugfs>/bpf_multi_trampolines lists them. */
int count_multi_tramps(int *shared, int *own)
{
	FILE *f = fopen("/sys/kernel/debug/bpf_multi_trampolines", "r");
	char line[256];

	*shared = *own = 0;
	if (!ASSERT_OK_PTR(f, "open bpf_multi_trampolines"))
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "shared ", 7) == 0)
			(*shared)++;
		else if (strncmp(line, "own ", 4) == 0)
			(*own)++;
	}
	fclose(f);
	return 0;
}

/*
 * BPF_PROG_TEST_RUN of a tracing program calls bpf_fentry_test1..9. Tests
 * call it hundreds of thousands of times: only a failure is reported, or
 * test_progs -v would print a line per call.
 */
void fentry_test_run(struct bpf_program *prog)
{
	LIBBPF_OPTS(bpf_test_run_opts, topts);
	int err = bpf_prog_test_run_opts(bpf_program__fd(prog), &topts);

	if (err)
		ASSERT_OK(err, "test_run");
}

/* Write @val to the file at @path: 0 or a negative errno. */
int tracing_multi_write_file(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY), n;

	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	close(fd);
	return n == strlen(val) ? 0 : -EIO;
}

/*
 * Fault injection fails allocations of any size, sleeping or not, and
 * quietly (a stack dump per failure would fill the console). failslab
 * ignores sleeping allocations by default: without this, GFP_KERNEL ones
 * succeed.
 */
int fault_knobs_set(void)
{
	static const char * const knobs[][2] = {
		{ "/sys/kernel/debug/failslab/ignore-gfp-wait", "N" },
		{ "/sys/kernel/debug/failslab/verbose", "0" },
		{ "/sys/kernel/debug/fail_page_alloc/ignore-gfp-wait", "N" },
		{ "/sys/kernel/debug/fail_page_alloc/ignore-gfp-highmem", "N" },
		{ "/sys/kernel/debug/fail_page_alloc/min-order", "0" },
		{ "/sys/kernel/debug/fail_page_alloc/verbose", "0" },
	};
	int i;

	for (i = 0; i < ARRAY_SIZE(knobs); i++)
		if (!ASSERT_OK(tracing_multi_write_file(knobs[i][0], knobs[i][1]), knobs[i][0]))
			return -1;
	return 0;
}

/*
 * Every allocation of this task fails while make-it-fail is 1: failslab
 * and fail_page_alloc with probability 100 for the tasks that ask.
 */
int fault_all_set(bool on)
{
	static const char * const attrs[] = { "failslab", "fail_page_alloc" };
	static int mif_fd = -1;
	char path[128];
	int i, err = 0;

	if (mif_fd < 0)
		mif_fd = open("/proc/thread-self/make-it-fail", O_RDWR);
	if (!ASSERT_GE(mif_fd, 0, "open make-it-fail"))
		return -1;
	if (on && fault_knobs_set())
		return -1;
	if (!on && pwrite(mif_fd, "0", 1, 0) != 1)
		err = -errno;
	/* never probability 100 without the task filter: every task would fail */
	for (i = 0; i < ARRAY_SIZE(attrs) && !err; i++) {
		snprintf(path, sizeof(path), "/sys/kernel/debug/%s/%s", attrs[i],
			 on ? "task-filter" : "probability");
		err = tracing_multi_write_file(path, on ? "Y" : "0");
		snprintf(path, sizeof(path), "/sys/kernel/debug/%s/times", attrs[i]);
		err = err ?: tracing_multi_write_file(path, "-1");
		snprintf(path, sizeof(path), "/sys/kernel/debug/%s/%s", attrs[i],
			 on ? "probability" : "task-filter");
		err = err ?: tracing_multi_write_file(path, on ? "100" : "N");
	}
	/* last: from here on this task's allocations fail */
	if (on && !err && pwrite(mif_fd, "1", 1, 0) != 1)
		err = -errno;
	return ASSERT_OK(err, on ? "every allocation fails" : "allocations work") ? 0 : -1;
}

/*
 * Executable memory in /proc/vmallocinfo, by the function that allocated
 * it: bpf_prog_packs (2 MiB at a time, shared by every BPF image) in
 * *@pack_kb, ftrace's own trampolines (a page each) in *@exec_kb.
 */
int tracing_multi_exec_kb(long *pack_kb, long *exec_kb)
{
	FILE *f = fopen("/proc/vmallocinfo", "r");
	long page_kb = sysconf(_SC_PAGESIZE) / 1024, kb;
	char line[512], caller[256], *p;

	if (!f)
		return -1;
	*pack_kb = 0;
	*exec_kb = 0;
	while (fgets(line, sizeof(line), f)) {
		p = strstr(line, " pages=");
		if (!p || sscanf(line, "%*s %*s %255s", caller) != 1)
			continue;
		kb = strtol(p + 7, NULL, 10) * page_kb;
		if (!strncmp(caller, "bpf_prog_pack_alloc+", 20) ||
		    !strncmp(caller, "alloc_new_pack+", 15) ||
		    !strncmp(caller, "bpf_jit_alloc_exec+", 19))
			*pack_kb += kb;
		else if (!strncmp(caller, "arch_ftrace_update_trampoline+", 30) ||
			 !strncmp(caller, "alloc_tramp+", 12) ||
			 !strncmp(caller, "create_trampoline+", 18))
			*exec_kb += kb;
	}
	fclose(f);
	return 0;
}

/* Images listed in <debugfs>/bpf_multi_trampolines (shared and own). */
int tracing_multi_count_images(void)
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

/* The number in the file at @path, or -1. */
long tracing_multi_read_long(const char *path)
{
	long n = -1;
	FILE *f;

	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%ld", &n) != 1)
		n = -1;
	fclose(f);
	return n;
}

/* A counter of the test kernels' ftrace in debugfs; -1 without it. */
long ftrace_debugfs_counter(const char *name)
{
	char path[128];

	snprintf(path, sizeof(path), "/sys/kernel/debug/%s", name);
	return tracing_multi_read_long(path);
}

/*
 * <debugfs>/ftrace_call_sites_updated: call sites ftrace rewrote so far
 * (test kernels, CONFIG_FTRACE_DIRECT_VERIFY); -1 without it.
 */
long ftrace_sites_updated(void)
{
	return ftrace_debugfs_counter("ftrace_call_sites_updated");
}

/* <debugfs>/ftrace_records_visited: records ftrace's updates looked at so far. */
long ftrace_records_visited(void)
{
	return ftrace_debugfs_counter("ftrace_records_visited");
}

/* <debugfs>/bpf_tramp_images_dying: images put and not freed yet. */
long tramp_images_dying(void)
{
	return ftrace_debugfs_counter("bpf_tramp_images_dying");
}

/*
 * Wait up to @ms milliseconds for the images put so far to be freed (their
 * RCU and RCU-tasks waits done). Returns the count left: 0 once all are,
 * -1 without the counter.
 */
long tramp_images_wait_freed(int ms)
{
	long n = tramp_images_dying();

	for (; n > 0 && ms > 0; ms -= 20) {
		usleep(20 * 1000);
		n = tramp_images_dying();
	}
	return n;
}

/* <debugfs>/bpf_multi_tidy_hold: stale functions stay until released. */
int multi_tidy_hold(bool on)
{
	const char *path = "/sys/kernel/debug/bpf_multi_tidy_hold";

	return ASSERT_OK(tracing_multi_write_file(path, on ? "1" : "0"), path) ? 0 : -1;
}

/* The .bss of progs/tracing_multi_waits.c: its struct counts. */
struct tracing_multi_waits_bss {
	__u64 multi_mutex;
	__u64 direct_mutex;
	int pid;
	int waits;
	int waits_held;
	int waits_direct;
};

struct tracing_multi_waits {
	struct bpf_object *obj;
	struct bpf_link *links[3];
	struct tracing_multi_waits_bss *bss;
};

/* The address of the kernel symbol @name, or 0. */
static __u64 kallsyms_addr(const char *name)
{
	unsigned long long addr;

	return kallsyms_find(name, &addr) ? 0 : addr;
}

/* Load tracing_multi_waits.bpf.o into @w and attach its programs. */
static int waits_attach(struct tracing_multi_waits *w)
{
	struct bpf_program *tasks, *prog;
	struct bpf_map *map;
	size_t size = 0;
	int i = 0;

	w->obj = bpf_object__open_file("tracing_multi_waits.bpf.o", NULL);
	if (!ASSERT_OK_PTR(w->obj, "open tracing_multi_waits.bpf.o")) {
		w->obj = NULL;
		return -1;
	}
	tasks = bpf_object__find_program_by_name(w->obj, "wait_tasks");
	if (tasks)
		bpf_program__set_autoload(tasks, kallsyms_addr("synchronize_rcu_tasks") != 0);
	if (!ASSERT_OK(bpf_object__load(w->obj), "load tracing_multi_waits.bpf.o"))
		return -1;
	map = bpf_object__find_map_by_name(w->obj, ".bss");
	w->bss = map ? bpf_map__initial_value(map, &size) : NULL;
	if (!ASSERT_OK_PTR(w->bss, "tracing_multi_waits .bss") ||
	    !ASSERT_EQ(size, sizeof(*w->bss), "tracing_multi_waits .bss size"))
		return -1;
	bpf_object__for_each_program(prog, w->obj) {
		if (!bpf_program__autoload(prog))
			continue;
		w->links[i] = bpf_program__attach(prog);
		if (!ASSERT_OK_PTR(w->links[i], bpf_program__name(prog))) {
			w->links[i] = NULL;
			return -1;
		}
		i++;
	}
	return 0;
}

/**
 * tracing_multi_waits_start - count the grace periods this process waits for
 *
 * From now on: synchronize_rcu(), synchronize_rcu_tasks_rude() and
 * synchronize_rcu_tasks() called by this process, and of them those with
 * tramp_multi_mutex or ftrace's direct_mutex held. Without the mutex in
 * kallsyms (CONFIG_KALLSYMS_ALL), nothing is counted.
 *
 * Return: the counter, or NULL (a failed assertion).
 */
struct tracing_multi_waits *tracing_multi_waits_start(void)
{
	struct tracing_multi_waits *w = calloc(1, sizeof(*w));

	if (!ASSERT_OK_PTR(w, "calloc"))
		return NULL;
	if (waits_attach(w)) {
		tracing_multi_waits_end(w);
		return NULL;
	}
	w->bss->pid = getpid();
	w->bss->direct_mutex = kallsyms_addr("direct_mutex");
	/* counting starts with it */
	w->bss->multi_mutex = kallsyms_addr("tramp_multi_mutex");
	if (!w->bss->multi_mutex)
		printf("%s: no tramp_multi_mutex in kallsyms: waits not counted\n", __func__);
	return w;
}

/**
 * tracing_multi_waits_read - what @w has counted so far
 * @w: from tracing_multi_waits_start(), or NULL
 * @waits: the grace periods this process waited for since the start
 * @held: how many of them with tramp_multi_mutex held
 *
 * Return: 0, or -ENOENT if nothing is counted (no tramp_multi_mutex in
 * kallsyms, or no @w).
 */
int tracing_multi_waits_read(struct tracing_multi_waits *w, int *waits, int *held)
{
	if (!w || !w->bss->multi_mutex)
		return -ENOENT;
	*waits = w->bss->waits;
	*held = w->bss->waits_held;
	return 0;
}

/**
 * tracing_multi_waits_direct - of @w's grace periods, those under direct_mutex
 * @w: from tracing_multi_waits_start(), or NULL
 *
 * ftrace's direct_mutex, which every direct ops' registration takes, and
 * which ftrace holds around the IPMODIFY callbacks (ops_func).
 *
 * Return: the count, or -ENOENT if it is not counted.
 */
int tracing_multi_waits_direct(struct tracing_multi_waits *w)
{
	if (!w || !w->bss->multi_mutex || !w->bss->direct_mutex)
		return -ENOENT;
	return w->bss->waits_direct;
}

/* Stop counting and free @w (NULL: nothing). */
void tracing_multi_waits_end(struct tracing_multi_waits *w)
{
	int i;

	if (!w)
		return;
	for (i = 0; i < ARRAY_SIZE(w->links); i++)
		bpf_link__destroy(w->links[i]);
	bpf_object__close(w->obj);
	free(w);
}
