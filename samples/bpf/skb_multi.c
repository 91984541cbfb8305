// SPDX-License-Identifier: GPL-2.0
/* skb_multi: one fentry.multi program on every kernel function that takes a
 * struct sk_buff *, counting calls per function and the skb lengths seen,
 * during a loopback workload (UDP and TCP over 127.0.0.1).
 *
 *   skb_multi [-t TOP]
 *
 * The functions come from vmlinux BTF (btf__load_vmlinux_btf()): every
 * function with a parameter that is a pointer to struct sk_buff, that
 * ftrace can trace and whose prototype a multi trampoline serves (the rules
 * of libbpf's tracing multi resolver: listed once in
 * available_filter_functions, a name kallsyms has for one function only,
 * a prototype a shared trampoline takes). One link attaches the program to
 * all of them, bpf_program__attach_tracing_multi(prog, NULL, &opts) with
 * opts.ids and the function's index as its cookie; if the kernel refuses
 * the link, the functions it refuses are found by halves and printed with
 * their errno, and the link is made without them.
 *
 * The skb can be in any argument slot: the program asks for it by type,
 * and the kernel answers per function:
 *
 *	n = bpf_arg_find_type(ctx, struct sk_buff);	(the slot)
 *	skb = bpf_arg_as(ctx, n, struct sk_buff);	(typed: after a NULL
 *	len = skb->len;					 check, a direct read)
 *
 * kprobe.multi reads an argument by its position (PT_REGS_PARMn, or the
 * stack), so the same job takes one kprobe.multi program per slot that
 * holds the skb. A multi trampoline takes 12 argument slots on x86-64, the
 * last 6 on the stack, and 8 on arm64, all in registers.
 *
 * It sends 200 UDP datagrams and 200 TCP messages over lo and prints: how
 * many functions take a struct sk_buff *, how many of those are traceable
 * and attached, and the time of the BTF walk; the attach time (the link
 * alone); the calls seen, and per function (the TOP most called) its
 * calls, the slot of the skb and the last and average skb length; the
 * kprobe.multi programs the same job needs, with the functions per slot
 * and how many of them were called; the detach time. The last line is
 * "skb_multi: OK" when it attached, saw skbs of nonzero length and every
 * slot the program found is the one BTF says.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "skb_multi.h"
#include "skb_multi.skel.h"

/* Argument slots a trampoline saves, as libbpf's resolver counts them,
 * and the ones passed in registers (what PT_REGS_PARMn reaches).
 */
#if defined(__x86_64__)
#define MAX_SLOTS	12
#define REG_SLOTS	6
#elif defined(__aarch64__)
#define MAX_SLOTS	8
#define REG_SLOTS	8
#else
#define MAX_SLOTS	6
#define REG_SLOTS	6
#endif

#define ROUNDS		200	/* UDP datagrams and TCP sends each */

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif

struct func {
	const char *name;
	__u32 id;		/* BTF id */
	int slot;		/* first argument slot with a struct sk_buff * */
	int err;		/* the kernel refused it: -errno */
	struct skb_stat st;	/* what the program counted */
};

static bool quiet;		/* no libbpf warnings while probing refusals */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char * const *)a, *(char * const *)b);
}

struct names {
	char **v;
	size_t cnt, cap;
};

static int names_add(struct names *n, const char *name)
{
	if (n->cnt == n->cap) {
		size_t cap = n->cap ? 2 * n->cap : 4096;
		char **v = realloc(n->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		n->v = v;
		n->cap = cap;
	}
	n->v[n->cnt] = strdup(name);
	return n->v[n->cnt++] ? 0 : -ENOMEM;
}

static void names_free(struct names *n)
{
	while (n->cnt)
		free(n->v[--n->cnt]);
	free(n->v);
}

/* How many times @name is in sorted @n. */
static int names_count(const struct names *n, const char *name)
{
	char **p = bsearch(&name, n->v, n->cnt, sizeof(*n->v), cmp_str);
	char **q;
	int c = 0;

	if (!p)
		return 0;
	while (p > n->v && !strcmp(p[-1], name))
		p--;
	for (q = p; q < n->v + n->cnt && !strcmp(*q, name); q++)
		c++;
	return c;
}

/* The vmlinux functions ftrace can trace, as libbpf's resolver takes them:
 * once in available_filter_functions and at most once among the text
 * symbols of /proc/kallsyms (the kernel refuses an ambiguous name).
 */
static int traceable(struct names *out)
{
	static const char * const paths[] = {
		"/sys/kernel/tracing/available_filter_functions",
		"/sys/kernel/debug/tracing/available_filter_functions",
	};
	struct names avail = {}, text = {};
	char line[1024], name[512], type;
	unsigned long long addr;
	FILE *f = NULL;
	size_t i;
	int err = 0;

	for (i = 0; i < ARRAY_SIZE(paths) && !f; i++)
		f = fopen(paths[i], "r");
	if (!f)
		return -errno;
	while (!err && fgets(line, sizeof(line), f)) {
		if (strchr(line, '[') || sscanf(line, "%511s", name) != 1)
			continue;	/* a module's */
		err = names_add(&avail, name);
	}
	fclose(f);
	f = fopen("/proc/kallsyms", "r");
	if (!f)
		err = err ?: -errno;
	while (!err && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %511s", &addr, &type, name) != 3)
			continue;
		if (type == 't' || type == 'T')
			err = names_add(&text, name);
	}
	if (f)
		fclose(f);
	if (!err) {
		qsort(avail.v, avail.cnt, sizeof(*avail.v), cmp_str);
		qsort(text.v, text.cnt, sizeof(*text.v), cmp_str);
	}
	for (i = 0; !err && i < avail.cnt; i++) {
		if (names_count(&avail, avail.v[i]) == 1 &&
		    names_count(&text, avail.v[i]) <= 1)
			err = names_add(out, avail.v[i]);
	}
	names_free(&avail);
	names_free(&text);
	return err;
}

static const struct btf_type *skip_mods(const struct btf *btf, __u32 id)
{
	const struct btf_type *t = btf__type_by_id(btf, id);

	while (btf_is_mod(t) || btf_is_typedef(t))
		t = btf__type_by_id(btf, t->type);
	return t;
}

/* An argument or return type a multi trampoline takes: pointer, integer or
 * enum of up to 8 bytes, struct or union of up to 16 (libbpf's rule).
 */
static bool type_ok(const struct btf *btf, __u32 id)
{
	const struct btf_type *t = skip_mods(btf, id);
	__s64 sz = btf__resolve_size(btf, id);

	if (sz <= 0)
		return false;
	if (btf_is_ptr(t) || btf_is_int(t) || btf_is_any_enum(t))
		return sz <= 8;
	return btf_is_composite(t) && sz <= 16;
}

/* Can a multi trampoline serve @proto? Arguments as type_ok() says, in no
 * more slots than the trampoline saves, a return value of 8 bytes at most
 * (libbpf's tracing_multi_proto_ok()).
 */
static bool proto_ok(const struct btf *btf, const struct btf_type *proto)
{
	const struct btf_param *p = btf_params(proto);
	int i, slots = 0;

	for (i = 0; i < btf_vlen(proto); i++) {
		if (!p[i].type || !type_ok(btf, p[i].type))	/* vararg, float */
			return false;
		slots += (btf__resolve_size(btf, p[i].type) + 7) / 8;
	}
	if (slots > MAX_SLOTS)
		return false;
	if (!proto->type)
		return true;
	return type_ok(btf, proto->type) && !btf_is_composite(skip_mods(btf, proto->type)) &&
	       btf__resolve_size(btf, proto->type) <= 8;
}

/* Is type @id a pointer to struct sk_buff (modifiers, typedefs skipped)? */
static bool is_skb_ptr(const struct btf *btf, __u32 id)
{
	const struct btf_type *t = skip_mods(btf, id);

	if (!btf_is_ptr(t))
		return false;
	t = skip_mods(btf, t->type);
	return btf_is_struct(t) && !strcmp(btf__name_by_offset(btf, t->name_off), "sk_buff");
}

/* The first argument slot of @proto that holds a struct sk_buff *, or -1.
 * A slot is 8 bytes: a struct of 9 to 16 bytes takes two.
 */
static int skb_slot(const struct btf *btf, const struct btf_type *proto)
{
	const struct btf_param *p = btf_params(proto);
	int i, slots = 0;
	__s64 sz;

	for (i = 0; i < btf_vlen(proto) && p[i].type; i++) {
		if (is_skb_ptr(btf, p[i].type))
			return slots;
		sz = btf__resolve_size(btf, p[i].type);
		slots += sz > 8 ? (sz + 7) / 8 : 1;
	}
	return -1;
}

/* The loopback workload: UDP datagrams and a TCP stream over 127.0.0.1. */
static int workload(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	int fd[5] = { -1, -1, -1, -1, -1 }, i, err = -1;
	socklen_t alen = sizeof(a);
	ssize_t n, got, r;
	char buf[2048];

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	memset(buf, 'x', sizeof(buf));
	/* UDP: fd[0] sends to fd[1] */
	fd[0] = socket(AF_INET, SOCK_DGRAM, 0);
	fd[1] = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd[0] < 0 || fd[1] < 0 || bind(fd[1], (struct sockaddr *)&a, sizeof(a)) ||
	    getsockname(fd[1], (struct sockaddr *)&a, &alen))
		goto out;
	for (i = 0; i < ROUNDS; i++) {
		n = 64 + i * 7 % 1400;
		if (sendto(fd[0], buf, n, 0, (struct sockaddr *)&a, sizeof(a)) != n ||
		    recv(fd[1], buf, sizeof(buf), 0) != n)
			goto out;
	}
	/* TCP: fd[3] connects to fd[2] and sends to fd[4] */
	a.sin_port = 0;
	alen = sizeof(a);
	fd[2] = socket(AF_INET, SOCK_STREAM, 0);
	fd[3] = socket(AF_INET, SOCK_STREAM, 0);
	if (fd[2] < 0 || fd[3] < 0 || bind(fd[2], (struct sockaddr *)&a, sizeof(a)) ||
	    getsockname(fd[2], (struct sockaddr *)&a, &alen) || listen(fd[2], 1) ||
	    connect(fd[3], (struct sockaddr *)&a, sizeof(a)))
		goto out;
	fd[4] = accept(fd[2], NULL, NULL);
	if (fd[4] < 0)
		goto out;
	for (i = 0; i < ROUNDS; i++) {
		n = 100 + i * 13 % 1000;
		if (send(fd[3], buf, n, 0) != n)
			goto out;
		for (got = 0; got < n; got += r) {
			r = recv(fd[4], buf, n - got, 0);
			if (r <= 0)
				goto out;
		}
	}
	err = 0;
out:
	if (err)
		fprintf(stderr, "skb_multi: %s: %s\n", __func__, strerror(errno));
	for (i = 0; i < 5; i++)
		if (fd[i] >= 0)
			close(fd[i]);
	return err;
}

/* Attach @prog to the functions of @f[@lo..@hi) the kernel did not refuse. */
static struct bpf_link *attach(struct bpf_program *prog, struct func *f,
			       size_t lo, size_t hi, __u32 *ids, __u64 *cookies)
{
	LIBBPF_OPTS(bpf_tracing_multi_opts, opts, .ids = ids, .cookies = cookies);
	size_t i;

	for (i = lo; i < hi; i++) {
		if (f[i].err)
			continue;
		ids[opts.cnt] = f[i].id;
		cookies[opts.cnt++] = i;	/* the index in stats */
	}
	if (!opts.cnt) {
		errno = ENOENT;
		return NULL;
	}
	return bpf_program__attach_tracing_multi(prog, NULL, &opts);
}

/* The link was refused: find the functions the kernel refuses, by halves. */
static void find_refused(struct bpf_program *prog, struct func *f, size_t lo, size_t hi,
			 __u32 *ids, __u64 *cookies)
{
	struct bpf_link *link = attach(prog, f, lo, hi, ids, cookies);

	if (link) {
		bpf_link__destroy(link);
		return;
	}
	if (hi - lo == 1) {
		f[lo].err = -errno;
		fprintf(stderr, "skb_multi: %s refused: %s\n", f[lo].name, strerror(errno));
		return;
	}
	find_refused(prog, f, lo, lo + (hi - lo) / 2, ids, cookies);
	find_refused(prog, f, lo + (hi - lo) / 2, hi, ids, cookies);
}

static int print_fn(enum libbpf_print_level level, const char *fmt, va_list args)
{
	if (quiet || level == LIBBPF_DEBUG)
		return 0;
	return vfprintf(stderr, fmt, args);
}

static int cmp_calls(const void *a, const void *b)
{
	const struct func *x = a, *y = b;

	if (x->st.calls != y->st.calls)
		return x->st.calls < y->st.calls ? 1 : -1;
	return strcmp(x->name, y->name);
}

int main(int argc, char **argv)
{
	size_t n = 0, cap = 0, i, nskb = 0, nftrace = 0, nattached = 0, called = 0;
	unsigned long long calls = 0, len_calls = 0, len_total = 0, mismatch = 0;
	int top = 10, opt, err = 1, fd, slot, kprobe_progs = 0;
	unsigned int per_slot[MAX_SLOTS] = {}, called_slot[MAX_SLOTS] = {};
	struct skb_multi *skel = NULL;
	struct bpf_link *link = NULL;
	struct names avail = {};
	struct btf *btf = NULL;
	struct func *f = NULL;
	__u64 *cookies = NULL;
	__u32 *ids = NULL, id;
	double t0, t1, t2;

	while ((opt = getopt(argc, argv, "t:")) != -1) {
		if (opt != 't') {
			fprintf(stderr, "usage: %s [-t TOP]\n", argv[0]);
			return 2;
		}
		top = atoi(optarg);
	}
	libbpf_set_print(print_fn);

	/* The functions: vmlinux BTF, available_filter_functions, kallsyms. */
	t0 = now();
	btf = btf__load_vmlinux_btf();
	if (!btf) {
		fprintf(stderr, "skb_multi: vmlinux BTF: %s\n", strerror(errno));
		goto out;
	}
	err = traceable(&avail);
	if (err) {
		fprintf(stderr, "skb_multi: traceable functions: %s\n", strerror(-err));
		err = 1;
		goto out;
	}
	err = 1;
	for (id = 1; id < btf__type_cnt(btf); id++) {
		const struct btf_type *t = btf__type_by_id(btf, id), *proto;
		const char *name;

		if (!btf_is_func(t))
			continue;
		proto = btf__type_by_id(btf, t->type);
		slot = skb_slot(btf, proto);
		if (slot < 0)
			continue;
		nskb++;
		name = btf__name_by_offset(btf, t->name_off);
		if (!bsearch(&name, avail.v, avail.cnt, sizeof(*avail.v), cmp_str))
			continue;
		nftrace++;
		if (!proto_ok(btf, proto))
			continue;
		if (n == cap) {
			struct func *tmp;

			cap = cap ? 2 * cap : 1024;
			tmp = realloc(f, cap * sizeof(*f));
			if (!tmp)
				goto out;
			f = tmp;
		}
		memset(&f[n], 0, sizeof(f[n]));
		f[n].name = name;
		f[n].id = id;
		f[n].slot = slot;
		n++;
	}
	t1 = now();
	printf("skb_multi: %zu functions take a struct sk_buff *, %zu traceable, ", nskb, nftrace);
	printf("%zu of those by a multi trampoline (BTF: %.3f s)\n", n, t1 - t0);
	if (!n)
		goto out;
	ids = calloc(n, sizeof(*ids));
	cookies = calloc(n, sizeof(*cookies));
	if (!ids || !cookies)
		goto out;

	skel = skb_multi__open();
	if (!skel || bpf_map__set_max_entries(skel->maps.stats, n) ||
	    skb_multi__load(skel)) {
		fprintf(stderr, "skb_multi: load failed: %s\n", strerror(errno));
		goto out;
	}

	t0 = now();
	link = attach(skel->progs.skb_count, f, 0, n, ids, cookies);
	t1 = now();
	if (!link) {
		fprintf(stderr,
			"skb_multi: attach to %zu functions failed: %s; finding the refused ones\n",
			n, strerror(errno));
		quiet = true;
		find_refused(skel->progs.skb_count, f, 0, n, ids, cookies);
		quiet = false;
		t0 = now();
		link = attach(skel->progs.skb_count, f, 0, n, ids, cookies);
		t1 = now();
		if (!link) {
			fprintf(stderr, "skb_multi: attach failed: %s\n", strerror(errno));
			goto out;
		}
	}
	for (i = 0; i < n; i++) {
		if (f[i].err)
			continue;
		nattached++;
		per_slot[f[i].slot]++;
	}
	printf("skb_multi: one fentry.multi program attached to %zu functions in %.3f s\n",
	       nattached, t1 - t0);

	if (workload())
		goto out;

	fd = bpf_map__fd(skel->maps.stats);
	for (i = 0; i < n; i++) {
		__u32 key = i;

		if (bpf_map_lookup_elem(fd, &key, &f[i].st))
			goto out;
		if (!f[i].st.calls)
			continue;
		called++;
		called_slot[f[i].slot]++;
		calls += f[i].st.calls;
		len_calls += f[i].st.len_calls;
		len_total += f[i].st.len_total;
		if (f[i].st.slot && f[i].st.slot != (__u32)f[i].slot + 1) {
			fprintf(stderr,
				"skb_multi: %s: the program found the skb in slot %u, BTF says %d\n",
				f[i].name, f[i].st.slot - 1, f[i].slot);
			mismatch++;
		}
	}
	t0 = now();
	bpf_link__destroy(link);
	link = NULL;
	t2 = now();

	printf("skb_multi: workload (%d UDP datagrams, %d TCP sends on lo): ", ROUNDS, ROUNDS);
	printf("%llu calls of %zu functions, %llu with an skb\n", calls, called, len_calls);
	qsort(f, n, sizeof(*f), cmp_calls);
	printf("%-36s %10s %5s %9s %9s\n", "FUNC", "CALLS", "SLOT", "LAST LEN", "AVG LEN");
	for (i = 0; i < n && i < (size_t)top && f[i].st.calls; i++)
		printf("%-36s %10llu %5d %9u %9llu\n", f[i].name,
		       (unsigned long long)f[i].st.calls, f[i].slot, f[i].st.len_last,
		       f[i].st.len_calls ?
		       (unsigned long long)(f[i].st.len_total / f[i].st.len_calls) : 0);

	/* kprobe.multi reads an argument by its position, PT_REGS_PARMn (or
	 * the stack): one program per slot that holds the skb.
	 */
	for (i = 0; i < MAX_SLOTS; i++)
		kprobe_progs += !!per_slot[i];
	printf("skb_multi: fentry.multi: 1 program for %zu functions; ", nattached);
	printf("kprobe.multi: %d programs, one per slot of the skb:\n", kprobe_progs);
	for (i = 0; i < MAX_SLOTS; i++) {
		if (!per_slot[i])
			continue;
		if (i < REG_SLOTS)
			printf("  slot %zu (PT_REGS_PARM%zu): %4u functions, %3u called\n",
			       i, i + 1, per_slot[i], called_slot[i]);
		else
			printf("  slot %zu (on the stack):  %4u functions, %3u called\n",
			       i, per_slot[i], called_slot[i]);
	}
	printf("skb_multi: detached in %.3f s\n", t2 - t0);
	if (skel->bss->no_slot || skel->bss->no_stat)
		printf("skb_multi: %llu calls without an skb slot, %llu with an unknown cookie\n",
		       (unsigned long long)skel->bss->no_slot,
		       (unsigned long long)skel->bss->no_stat);
	if (nattached && len_total && !mismatch && !skel->bss->no_slot && !skel->bss->no_stat)
		err = 0;
out:
	bpf_link__destroy(link);
	skb_multi__destroy(skel);
	btf__free(btf);
	names_free(&avail);
	free(ids);
	free(cookies);
	free(f);
	printf("skb_multi: %s\n", err ? "FAIL" : "OK");
	return err;
}
