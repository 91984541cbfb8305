// SPDX-License-Identifier: GPL-2.0
/* What the tracing_multi tests share: the functions fentry.multi can take,
 * kallsyms, bpf_testmod's BTF, and the pauses and marks of the benchmarks.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include "prog_tests/tracing_multi_common.h"

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
 */
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
	qsort(all, n, sizeof(*all), cmp_str);
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
