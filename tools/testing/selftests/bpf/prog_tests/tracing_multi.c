// SPDX-License-Identifier: GPL-2.0
/* fentry.multi, fexit.multi and fmod_ret.multi: one program, many functions. */
#include <pthread.h>
#include "tracing_multi_common.h"
#include "tracing_multi.skel.h"
#include "tracing_multi_args.skel.h"
#include "verifier_tracing_args.skel.h"
#include "tracing_multi_many.skel.h"
#include "tracing_multi_session.skel.h"

/* Auto-attach by pattern: every function, its args and return value. */
static void test_skel_pattern(void)
{
	struct tracing_multi *skel;
	int i;

	skel = tracing_multi__open();
	if (!ASSERT_OK_PTR(skel, "open"))
		return;
	bpf_program__set_autoattach(skel->progs.fmod_ret_1000, false);
	bpf_program__set_autoattach(skel->progs.seed_a, false);
	bpf_program__set_autoattach(skel->progs.seed_e, false);
	bpf_program__set_autoattach(skel->progs.mod_fentry, false);
	if (!ASSERT_OK(tracing_multi__load(skel), "load"))
		goto out;
	skel->bss->test_pid = getpid();
	if (!ASSERT_OK(tracing_multi__attach(skel), "attach"))
		goto out;
	ASSERT_OK_PTR(skel->links.fentry_all, "fentry_all link");
	ASSERT_OK_PTR(skel->links.fexit_all, "fexit_all link");
	/* bare SEC("fentry.multi") is not auto-attached */
	ASSERT_NULL(skel->links.fentry_cookie, "fentry_cookie link");

	fentry_test_run(skel->progs.fentry_all);
	for (i = 1; i <= NR_FUNCS; i++) {
		ASSERT_EQ(skel->bss->fentry_hits[i], 1, "fentry_hits");
		ASSERT_EQ(skel->bss->fexit_hits[i], 1, "fexit_hits");
	}
	ASSERT_EQ(skel->bss->bad, 0, "bad");

	/* detach one: the other keeps counting */
	bpf_link__destroy(skel->links.fentry_all);
	skel->links.fentry_all = NULL;
	fentry_test_run(skel->progs.fexit_all);
	for (i = 1; i <= NR_FUNCS; i++) {
		ASSERT_EQ(skel->bss->fentry_hits[i], 1, "fentry_hits after detach");
		ASSERT_EQ(skel->bss->fexit_hits[i], 2, "fexit_hits after detach");
	}
	ASSERT_EQ(skel->bss->bad, 0, "bad");
out:
	tracing_multi__destroy(skel);
}

/* bpf_link_info of a multi link, as upstream: count first, then the ids in
 * ascending order with their addresses and cookies (ids[] was reversed,
 * cookie 100 + N for bpf_fentry_testN); an array with count 0 is -EINVAL,
 * a short count fills that many and is -ENOSPC.
 */
static void check_link_info(struct bpf_link *link, const __u32 *ids)
{
	__u64 addrs[NR_FUNCS], cookies[NR_FUNCS];
	struct bpf_link_info info = {};
	__u32 out_ids[NR_FUNCS], len = sizeof(info);
	int i, err, fd = bpf_link__fd(link);

	if (!ASSERT_OK(bpf_link_get_info_by_fd(fd, &info, &len), "info count"))
		return;
	ASSERT_EQ(info.type, BPF_LINK_TYPE_TRACING_MULTI, "type");
	ASSERT_EQ(info.tracing_multi.count, NR_FUNCS, "count");
	ASSERT_EQ(info.tracing_multi.attach_type, BPF_TRACE_FENTRY_MULTI, "attach_type");
	ASSERT_EQ(info.tracing_multi.btf_obj_id, 1, "btf_obj_id (vmlinux)");
	memset(&info, 0, sizeof(info));
	info.tracing_multi.addrs = ptr_to_u64(addrs);
	info.tracing_multi.cookies = ptr_to_u64(cookies);
	info.tracing_multi.ids = ptr_to_u64(out_ids);
	info.tracing_multi.count = NR_FUNCS;
	if (!ASSERT_OK(bpf_link_get_info_by_fd(fd, &info, &len), "info"))
		return;
	for (i = 0; i < NR_FUNCS; i++) {
		int n = cookies[i] - 100;	/* bpf_fentry_test<n> */

		if (i)
			ASSERT_GT(out_ids[i], out_ids[i - 1], "ids sorted");
		ASSERT_NEQ(addrs[i], 0, "addr");
		if (!ASSERT_TRUE(n >= 1 && n <= NR_FUNCS, "cookie"))
			continue;
		/* ids[] holds bpf_fentry_test9..1 */
		ASSERT_EQ(out_ids[i], ids[NR_FUNCS - n], "id of the cookie's function");
	}

	memset(&info, 0, sizeof(info));
	info.tracing_multi.ids = ptr_to_u64(out_ids);
	err = bpf_link_get_info_by_fd(fd, &info, &len);
	ASSERT_EQ(err, -EINVAL, "ids with count 0");

	memset(&info, 0, sizeof(info));
	memset(out_ids, 0, sizeof(out_ids));
	info.tracing_multi.ids = ptr_to_u64(out_ids);
	info.tracing_multi.cookies = ptr_to_u64(cookies);
	info.tracing_multi.count = 1;
	cookies[1] = 0;
	err = bpf_link_get_info_by_fd(fd, &info, &len);
	ASSERT_EQ(err, -ENOSPC, "count 1");
	ASSERT_EQ(out_ids[0], ids[NR_FUNCS - (cookies[0] - 100)], "count 1: first id");
	ASSERT_EQ(out_ids[1], 0, "count 1: one id only");
	ASSERT_EQ(cookies[1], 0, "count 1: one cookie only");
}

/* Link API by ids with cookies: cookies[i] belongs to ids[i]. */
static void test_link_ids_cookies(void)
{
	LIBBPF_OPTS(bpf_tracing_multi_opts, opts);
	struct tracing_multi *skel;
	struct bpf_link *link;
	__u64 cookies[NR_FUNCS];
	__u32 ids[NR_FUNCS];
	int i;

	if (fentry_test_ids(ids))
		return;
	skel = tracing_multi__open_and_load();
	if (!ASSERT_OK_PTR(skel, "open_and_load"))
		return;
	skel->bss->test_pid = getpid();
	/* ids in reverse order, so the kernel must pair them by id */
	for (i = 0; i < NR_FUNCS; i++) {
		__u32 tmp = ids[i];

		if (i >= NR_FUNCS / 2)
			break;
		ids[i] = ids[NR_FUNCS - 1 - i];
		ids[NR_FUNCS - 1 - i] = tmp;
	}
	for (i = 0; i < NR_FUNCS; i++)
		cookies[i] = 100 + NR_FUNCS - i;	/* cookie of bpf_fentry_test(9 - i) */
	opts.ids = ids;
	opts.cookies = cookies;
	opts.cnt = NR_FUNCS;
	link = bpf_program__attach_tracing_multi(skel->progs.fentry_cookie, NULL, &opts);
	if (!ASSERT_OK_PTR(link, "attach_tracing_multi"))
		goto out;
	fentry_test_run(skel->progs.fentry_cookie);
	for (i = 1; i <= NR_FUNCS; i++) {
		ASSERT_EQ(skel->bss->cookie_hits[i], 1, "cookie_hits");
		ASSERT_EQ(skel->bss->cookies[i], 100 + i, "cookie");
	}
	check_link_info(link, ids);
	bpf_link__destroy(link);
out:
	tracing_multi__destroy(skel);
}

/* found by one walk of kallsyms (1,024 or more); funcs[] and cookies over 32 KiB */
#define MANY_COOKIES_CNT 5000

static __u64 many_cookie(__u32 id, const __u32 *test_ids)
{
	int i;

	for (i = 0; i < NR_FUNCS; i++)
		if (id == test_ids[i])
			return 100 + i + 1;	/* bpf_fentry_test<i + 1> */
	return (__u64)id << 16 | 0x5a;
}

/*
 * Cookies on a link of many functions, given in an order other than the
 * functions' addresses: each call and the link info pair them by id.
 */
static void test_link_many_cookies(void)
{
	LIBBPF_OPTS(bpf_tracing_multi_opts, opts);
	__u32 test_ids[NR_FUNCS], *all = NULL, *ids = NULL, *out_ids = NULL;
	struct bpf_link_info info = {};
	__u32 len = sizeof(info), j, k;
	struct tracing_multi *skel;
	char **names = NULL, **sel = NULL;
	__u64 *cookies = NULL;
	struct bpf_link *link;
	size_t cnt = 0, n = 0, i;

	if (fentry_test_ids(test_ids))
		return;
	skel = tracing_multi__open_and_load();
	if (!ASSERT_OK_PTR(skel, "open_and_load"))
		return;
	skel->bss->test_pid = getpid();
	if (!ASSERT_OK(tracing_multi_all_funcs(&names, &all, &cnt), "all_funcs") ||
	    !ASSERT_GT(cnt, 2 * MANY_COOKIES_CNT, "functions"))
		goto out;
	ids = calloc(MANY_COOKIES_CNT + NR_FUNCS, sizeof(*ids));
	out_ids = calloc(MANY_COOKIES_CNT + NR_FUNCS, sizeof(*out_ids));
	cookies = calloc(MANY_COOKIES_CNT + NR_FUNCS, sizeof(*cookies));
	sel = calloc(MANY_COOKIES_CNT, sizeof(*sel));
	if (!ASSERT_OK_PTR(ids, "calloc") || !ASSERT_OK_PTR(out_ids, "calloc") ||
	    !ASSERT_OK_PTR(cookies, "calloc") || !ASSERT_OK_PTR(sel, "calloc"))
		goto out;
	/* every k-th function, then bpf_fentry_test1..9 */
	for (i = 0; i < cnt && n < MANY_COOKIES_CNT; i += cnt / MANY_COOKIES_CNT) {
		if (many_cookie(all[i], test_ids) < 0x10000)
			continue;
		ids[n] = all[i];
		sel[n++] = names[i];
	}
	if (tracing_multi_drop_all_refused(skel->progs.fentry_cookie, ids, sel, &n) ||
	    !ASSERT_GE(n, 4096, "functions kept"))
		goto out;
	memcpy(ids + n, test_ids, sizeof(test_ids));
	n += NR_FUNCS;
	/* in reverse: neither by id nor by address */
	for (j = 0; j < n / 2; j++) {
		__u32 tmp = ids[j];

		ids[j] = ids[n - 1 - j];
		ids[n - 1 - j] = tmp;
	}
	for (j = 0; j < n; j++)
		cookies[j] = many_cookie(ids[j], test_ids);
	opts.ids = ids;
	opts.cookies = cookies;
	opts.cnt = n;
	link = bpf_program__attach_tracing_multi(skel->progs.fentry_cookie, NULL, &opts);
	if (!ASSERT_OK_PTR(link, "attach_tracing_multi"))
		goto out;
	fentry_test_run(skel->progs.fentry_cookie);
	for (k = 1; k <= NR_FUNCS; k++) {
		ASSERT_EQ(skel->bss->cookie_hits[k], 1, "cookie_hits");
		ASSERT_EQ(skel->bss->cookies[k], 100 + k, "cookie");
	}
	memset(cookies, 0, n * sizeof(*cookies));
	info.tracing_multi.cookies = ptr_to_u64(cookies);
	info.tracing_multi.ids = ptr_to_u64(out_ids);
	info.tracing_multi.count = n;
	if (ASSERT_OK(bpf_link_get_info_by_fd(bpf_link__fd(link), &info, &len), "info") &&
	    ASSERT_EQ(info.tracing_multi.count, n, "count")) {
		for (j = 0; j < n; j++) {
			__u64 want = many_cookie(out_ids[j], test_ids);

			if (!ASSERT_EQ(cookies[j], want, "info cookie"))
				break;
		}
	}
	bpf_link__destroy(link);
out:
	free(sel);
	free(cookies);
	free(out_ids);
	free(ids);
	free(all);
	if (names)
		tracing_multi_free_names(names, cnt);
	tracing_multi__destroy(skel);
}

/* Direct reads of argument slots, by pattern. */
static void test_direct_access(void)
{
	struct tracing_multi *skel;
	struct bpf_link *link;

	skel = tracing_multi__open_and_load();
	if (!ASSERT_OK_PTR(skel, "open_and_load"))
		return;
	skel->bss->test_pid = getpid();
	link = bpf_program__attach_tracing_multi(skel->progs.fentry_direct,
						 "bpf_fentry_test?", NULL);
	if (!ASSERT_OK_PTR(link, "attach"))
		goto out;
	fentry_test_run(skel->progs.fentry_direct);
	ASSERT_EQ((int)skel->bss->direct_arg0[1], 1, "test1 a");
	ASSERT_EQ((int)skel->bss->direct_arg0[2], 2, "test2 a");
	ASSERT_EQ((char)skel->bss->direct_arg0[3], 4, "test3 a");
	ASSERT_EQ(skel->bss->direct_arg0[4], 7, "test4 a");
	ASSERT_EQ(skel->bss->direct_arg0[5], 11, "test5 a");
	ASSERT_EQ(skel->bss->direct_arg0[6], 16, "test6 a");
	ASSERT_EQ(skel->bss->direct_arg0[7], 0, "test7 a");
	bpf_link__destroy(link);
out:
	tracing_multi__destroy(skel);
}

static void test_fmod_ret(void)
{
	LIBBPF_OPTS(bpf_test_run_opts, topts);
	struct tracing_multi *skel;
	struct bpf_link *link;

	skel = tracing_multi__open_and_load();
	if (!ASSERT_OK_PTR(skel, "open_and_load"))
		return;
	skel->bss->test_pid = getpid();
	link = bpf_program__attach(skel->progs.fmod_ret_1000);
	if (!ASSERT_OK_PTR(link, "attach"))
		goto out;
	ASSERT_OK(bpf_prog_test_run_opts(bpf_program__fd(skel->progs.fmod_ret_1000), &topts),
		  "test_run");
	/* bpf_modify_return_test() returns 1000 without running (no side
	 * effect), bpf_modify_return_test2() runs: 29 and one side effect.
	 */
	ASSERT_EQ(topts.retval & 0xffff, 1000 + 29, "retval");
	ASSERT_EQ(topts.retval >> 16, 1, "side effects");
	ASSERT_EQ(skel->bss->fmod_ret_hits, 1, "hits");
	bpf_link__destroy(link);
out:
	tracing_multi__destroy(skel);
}

/* A tracing program "return 0" of @type, loaded for @btf_id (0: none). */
static int load_trivial(enum bpf_attach_type type, __u32 btf_id)
{
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .expected_attach_type = type,
		    .attach_btf_id = btf_id);
	const struct bpf_insn insns[] = {
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};

	return bpf_prog_load(BPF_PROG_TYPE_TRACING, "trivial", "GPL", insns,
			     ARRAY_SIZE(insns), &opts);
}

/* Each bad input has its errno, and leaves nothing attached. */
static void test_errors(void)
{
	LIBBPF_OPTS(bpf_link_create_opts, lopts);
	LIBBPF_OPTS(bpf_tracing_multi_opts, opts);
	struct tracing_multi *skel;
	struct bpf_link *link;
	__u32 ids[NR_FUNCS + 1];
	int prog_fd, fd, i;

	if (fentry_test_ids(ids))
		return;
	skel = tracing_multi__open_and_load();
	if (!ASSERT_OK_PTR(skel, "open_and_load"))
		return;
	skel->bss->test_pid = getpid();
	prog_fd = bpf_program__fd(skel->progs.fentry_cookie);

	lopts.tracing_multi.ids = ids;
	lopts.tracing_multi.cnt = 0;
	fd = bpf_link_create(prog_fd, 0, BPF_TRACE_FENTRY_MULTI, &lopts);
	ASSERT_EQ(fd, -EINVAL, "cnt 0");

	lopts.tracing_multi.cnt = INT_MAX;
	fd = bpf_link_create(prog_fd, 0, BPF_TRACE_FENTRY_MULTI, &lopts);
	ASSERT_EQ(fd, -E2BIG, "cnt INT_MAX");

	ids[NR_FUNCS] = ids[0];
	lopts.tracing_multi.cnt = NR_FUNCS + 1;
	fd = bpf_link_create(prog_fd, 0, BPF_TRACE_FENTRY_MULTI, &lopts);
	ASSERT_EQ(fd, -EINVAL, "duplicate id");

	ids[NR_FUNCS] = 1;	/* a type, not a function */
	fd = bpf_link_create(prog_fd, 0, BPF_TRACE_FENTRY_MULTI, &lopts);
	ASSERT_EQ(fd, -EINVAL, "not a function");

	/* a name kallsyms has twice: which function would it be? */
	ids[0] = tracing_multi_ambiguous_id();
	if (ids[0] > 0) {
		lopts.tracing_multi.cnt = 1;
		fd = bpf_link_create(prog_fd, 0, BPF_TRACE_FENTRY_MULTI, &lopts);
		ASSERT_EQ(fd, -EINVAL, "ambiguous name");
	} else {
		printf("%s: no ambiguous function name in this kernel\n", __func__);
	}
	fentry_test_ids(ids);

	/* the wrong attach type for the program */
	lopts.tracing_multi.cnt = NR_FUNCS;
	fd = bpf_link_create(prog_fd, 0, BPF_TRACE_FEXIT_MULTI, &lopts);
	ASSERT_EQ(fd, -EINVAL, "attach type");

	/* fsession and fsession.multi are types of their own: an fentry.multi
	 * program does not attach as fsession.multi, nor the other way round
	 */
	fd = bpf_link_create(prog_fd, 0, BPF_TRACE_FSESSION_MULTI, &lopts);
	ASSERT_EQ(fd, -EINVAL, "attach type fsession.multi");
	fd = load_trivial(BPF_TRACE_FSESSION, ids[0]);
	if (ASSERT_GE(fd, 0, "load fsession"))
		close(fd);
	ASSERT_EQ(load_trivial(BPF_TRACE_FSESSION, 0), -EINVAL, "load fsession without a function");
	ASSERT_EQ(load_trivial(BPF_TRACE_FSESSION_MULTI, ids[0]), -EINVAL,
		  "load fsession.multi with a function");
	fd = load_trivial(BPF_TRACE_FSESSION_MULTI, 0);
	if (ASSERT_GE(fd, 0, "load fsession.multi")) {
		int link_fd;

		link_fd = bpf_link_create(fd, 0, BPF_TRACE_FENTRY_MULTI, &lopts);
		ASSERT_EQ(link_fd, -EINVAL, "fsession.multi program, attach type fentry.multi");
		link_fd = bpf_link_create(fd, 0, BPF_TRACE_FSESSION_MULTI, &lopts);
		if (ASSERT_GE(link_fd, 0, "fsession.multi program, attach type fsession.multi"))
			close(link_fd);
		close(fd);
	}
	fd = load_trivial(BPF_TRACE_FENTRY_MULTI, 0);
	if (ASSERT_GE(fd, 0, "load fentry.multi, attach_btf_id 0"))
		close(fd);
	ASSERT_EQ(load_trivial(BPF_TRACE_FENTRY_MULTI, ids[0]), -EINVAL,
		  "load fentry.multi with a function");

	/* the old paths take no multi program */
	fd = bpf_raw_tracepoint_open(NULL, prog_fd);
	ASSERT_EQ(fd, -EINVAL, "raw_tracepoint_open");
	LIBBPF_OPTS_RESET(lopts);
	fd = bpf_link_create(prog_fd, 0, BPF_TRACE_FENTRY, &lopts);
	ASSERT_EQ(fd, -EINVAL, "link_create fentry");

	/* libbpf: pattern XOR ids, cookies need ids, a pattern must match */
	link = bpf_program__attach_tracing_multi(skel->progs.fentry_cookie, NULL, NULL);
	ASSERT_ERR_PTR(link, "no pattern, no ids");
	opts.ids = ids;
	opts.cnt = NR_FUNCS;
	link = bpf_program__attach_tracing_multi(skel->progs.fentry_cookie, "bpf_fentry_test1",
						 &opts);
	ASSERT_ERR_PTR(link, "pattern and ids");
	link = bpf_program__attach_tracing_multi(skel->progs.fentry_cookie,
						 "no_such_function_*", NULL);
	ASSERT_EQ(libbpf_get_error(link), -EINVAL, "pattern matches nothing");

	/* nothing stayed attached */
	fentry_test_run(skel->progs.fentry_cookie);
	for (i = 1; i <= NR_FUNCS; i++)
		ASSERT_EQ(skel->bss->cookie_hits[i], 0, "hits after failures");
	tracing_multi__destroy(skel);
}

/* bpf_fentry_test1 (a, 1 arg), test7 and test9 (b, c: 1 arg), test2 (d: 2
 * args), test3 (e: 3 args): their index in the skeleton's hit arrays.
 */
static const int seed_funcs[] = { 1, 7, 9, 2, 3 };

enum { SEED_A, SEED_E, SEED_X, SEED_NR };

struct seed_state {
	struct tracing_multi *skel;
	struct bpf_link *links[SEED_NR];
	__u32 ids[ARRAY_SIZE(seed_funcs)];
	__u64 a, e, x;	/* expected hits */
};

static int seed_attach(struct seed_state *st, int which)
{
	LIBBPF_OPTS(bpf_tracing_multi_opts, opts);
	struct tracing_multi *skel = st->skel;

	switch (which) {
	case SEED_A:
		st->links[which] = bpf_program__attach(skel->progs.seed_a);
		break;
	case SEED_E:
		st->links[which] = bpf_program__attach(skel->progs.seed_e);
		break;
	default:
		opts.ids = st->ids;
		opts.cnt = ARRAY_SIZE(st->ids);
		st->links[which] = bpf_program__attach_tracing_multi(skel->progs.seed_x,
								     NULL, &opts);
		break;
	}
	return ASSERT_OK_PTR(st->links[which], "seed attach") ? 0 : -1;
}

/* Run the functions once, check every program's count and the images. */
static void seed_check(struct seed_state *st, const char *step)
{
	bool a = st->links[SEED_A], e = st->links[SEED_E], x = st->links[SEED_X];
	int i, shared, own;

	fentry_test_run(st->skel->progs.seed_x);
	st->a += a;
	st->e += e;
	st->x += x;
	ASSERT_EQ(st->skel->bss->seed_a_hits, st->a, step);
	ASSERT_EQ(st->skel->bss->seed_e_hits, st->e, step);
	for (i = 0; i < ARRAY_SIZE(seed_funcs); i++)
		ASSERT_EQ(st->skel->bss->seed_x_hits[seed_funcs[i]], st->x, step);
	ASSERT_EQ(st->skel->bss->bad, 0, step);
	if (count_multi_tramps(&shared, &own))
		return;
	/* X alone: {a,b,c} {d} {e}; A takes a, E takes e to their own */
	ASSERT_EQ(shared, x ? 2 + !e : 0, step);
	ASSERT_EQ(own, x ? a + e : 0, step);
}

/* The seed example, in every attach order and every detach order. */
static void test_seed_orders(void)
{
	static const int perms[6][3] = {
		{ 0, 1, 2 }, { 0, 2, 1 }, { 1, 0, 2 }, { 1, 2, 0 }, { 2, 0, 1 }, { 2, 1, 0 },
	};
	struct seed_state st = {};
	__u32 ids[NR_FUNCS];
	char step[64];
	int i, j, k;

	if (fentry_test_ids(ids))
		return;
	for (i = 0; i < ARRAY_SIZE(seed_funcs); i++)
		st.ids[i] = ids[seed_funcs[i] - 1];
	st.skel = tracing_multi__open_and_load();
	if (!ASSERT_OK_PTR(st.skel, "open_and_load"))
		return;
	st.skel->bss->test_pid = getpid();

	for (i = 0; i < 6; i++) {
		for (j = 0; j < 6; j++) {
			for (k = 0; k < SEED_NR; k++) {
				if (seed_attach(&st, perms[i][k]))
					goto out;
				snprintf(step, sizeof(step), "attach %d/%d step %d", i, j, k);
				seed_check(&st, step);
			}
			for (k = 0; k < SEED_NR; k++) {
				bpf_link__destroy(st.links[perms[j][k]]);
				st.links[perms[j][k]] = NULL;
				snprintf(step, sizeof(step), "detach %d/%d step %d", i, j, k);
				seed_check(&st, step);
			}
		}
	}
out:
	for (k = 0; k < SEED_NR; k++)
		bpf_link__destroy(st.links[k]);
	tracing_multi__destroy(st.skel);
}

/* A skeleton that loads only @keep (its other programs are left out). */
static struct tracing_multi *skel_only(struct bpf_program *(*keep)(struct tracing_multi *),
				       struct bpf_program *(*keep2)(struct tracing_multi *))
{
	struct tracing_multi *skel = tracing_multi__open();
	struct bpf_program *prog;

	if (!ASSERT_OK_PTR(skel, "open"))
		return NULL;
	bpf_object__for_each_program(prog, skel->obj)
		bpf_program__set_autoload(prog, prog == keep(skel) ||
					  (keep2 && prog == keep2(skel)));
	if (!ASSERT_OK(tracing_multi__load(skel), "load")) {
		tracing_multi__destroy(skel);
		return NULL;
	}
	skel->bss->test_pid = getpid();
	return skel;
}

static struct bpf_program *prog_seed_x(struct tracing_multi *skel)
{
	return skel->progs.seed_x;
}

static struct bpf_program *prog_seed_a(struct tracing_multi *skel)
{
	return skel->progs.seed_a;
}

static struct bpf_program *prog_seed_e(struct tracing_multi *skel)
{
	return skel->progs.seed_e;
}

/* Run the seed functions once; each count as expected afterwards. */
static void ordinary_check(struct tracing_multi *x, struct tracing_multi *o, __u64 *hits,
			   bool ax, bool aa, bool ae, const char *step)
{
	int i;

	hits[0] += ax;
	hits[1] += aa;
	hits[2] += ae;
	fentry_test_run(x->progs.seed_x);
	for (i = 0; i < ARRAY_SIZE(seed_funcs); i++)
		ASSERT_EQ(x->bss->seed_x_hits[seed_funcs[i]], hits[0], step);
	ASSERT_EQ(o->bss->seed_a_hits, hits[1], step);
	ASSERT_EQ(o->bss->seed_e_hits, hits[2], step);
	ASSERT_EQ(x->bss->bad + o->bss->bad, 0, step);
}

/*
 * Ordinary programs on functions whose trampolines a multi link created:
 * such a trampoline has no ftrace_ops of its own until the ordinary path
 * registers the function (register_fentry()). The ordinary programs are
 * loaded once the link has created the trampolines, then attached after
 * the link is gone, beside it, and again after leaving their images.
 */
static void test_ordinary_after_multi(void)
{
	LIBBPF_OPTS(bpf_tracing_multi_opts, opts);
	struct bpf_link *lx = NULL, *la = NULL, *le = NULL;
	struct tracing_multi *x, *o = NULL;
	__u32 ids[NR_FUNCS], seed_ids[ARRAY_SIZE(seed_funcs)];
	__u64 hits[3] = {};
	int i;

	if (fentry_test_ids(ids))
		return;
	for (i = 0; i < ARRAY_SIZE(seed_funcs); i++)
		seed_ids[i] = ids[seed_funcs[i] - 1];
	opts.ids = seed_ids;
	opts.cnt = ARRAY_SIZE(seed_ids);
	x = skel_only(prog_seed_x, NULL);
	if (!x)
		return;
	lx = bpf_program__attach_tracing_multi(x->progs.seed_x, NULL, &opts);
	if (!ASSERT_OK_PTR(lx, "attach X"))
		goto out;
	o = skel_only(prog_seed_a, prog_seed_e);
	if (!o)
		goto out;
	ordinary_check(x, o, hits, 1, 0, 0, "X");

	/* the link goes, then the ordinary programs attach */
	bpf_link__destroy(lx);
	lx = NULL;
	la = bpf_program__attach(o->progs.seed_a);
	le = bpf_program__attach(o->progs.seed_e);
	if (!ASSERT_OK_PTR(la, "attach A") || !ASSERT_OK_PTR(le, "attach E"))
		goto out;
	ordinary_check(x, o, hits, 0, 1, 1, "A, E after X");

	/* the link beside them: own images; E leaves its own for the shared one */
	lx = bpf_program__attach_tracing_multi(x->progs.seed_x, NULL, &opts);
	if (!ASSERT_OK_PTR(lx, "attach X again"))
		goto out;
	ordinary_check(x, o, hits, 1, 1, 1, "X beside A, E");
	bpf_link__destroy(le);
	le = NULL;
	ordinary_check(x, o, hits, 1, 1, 0, "E left");
	bpf_link__destroy(lx);
	lx = NULL;
	ordinary_check(x, o, hits, 0, 1, 0, "X left A");
	le = bpf_program__attach(o->progs.seed_e);
	if (!ASSERT_OK_PTR(le, "attach E again"))
		goto out;
	ordinary_check(x, o, hits, 0, 1, 1, "E again");
	bpf_link__destroy(la);
	la = NULL;
	ordinary_check(x, o, hits, 0, 0, 1, "A left");
out:
	bpf_link__destroy(la);
	bpf_link__destroy(le);
	bpf_link__destroy(lx);
	tracing_multi__destroy(o);
	tracing_multi__destroy(x);
}

struct gap_runner {
	int prog_fd;
	bool stop;
	__u64 runs;
	int err;
};

static void *gap_run(void *arg)
{
	LIBBPF_OPTS(bpf_test_run_opts, topts);
	struct gap_runner *r = arg;

	while (!__atomic_load_n(&r->stop, __ATOMIC_RELAXED)) {
		r->err = bpf_prog_test_run_opts(r->prog_fd, &topts);
		if (r->err)
			break;
		r->runs++;
	}
	return NULL;
}

static struct bpf_link *attach_ids(struct bpf_program *prog, __u32 *ids, size_t cnt)
{
	LIBBPF_OPTS(bpf_tracing_multi_opts, opts, .ids = ids, .cnt = cnt);

	return bpf_program__attach_tracing_multi(prog, NULL, &opts);
}

/* A link that stays attached misses no call while other multi links and
 * ordinary programs on the same functions come and go, moving its functions
 * between shared and per-function trampolines.
 */
static void test_gap_free(void)
{
	struct bpf_link *k = NULL, *m1, *m2, *a;
	struct gap_runner r = {};
	struct tracing_multi *skel;
	__u32 ids[NR_FUNCS];
	pthread_t thread;
	int i, iter;

	if (fentry_test_ids(ids))
		return;
	skel = tracing_multi__open_and_load();
	if (!ASSERT_OK_PTR(skel, "open_and_load"))
		return;
	skel->bss->test_pid = getpid();
	k = attach_ids(skel->progs.gap_k, ids, NR_FUNCS);
	if (!ASSERT_OK_PTR(k, "attach k"))
		goto out;
	r.prog_fd = bpf_program__fd(skel->progs.gap_k);
	if (!ASSERT_OK(pthread_create(&thread, NULL, gap_run, &r), "pthread_create"))
		goto out;
	for (iter = 0; iter < 10; iter++) {
		m1 = attach_ids(skel->progs.fentry_cookie, ids, 3);		/* test1..3 */
		a = bpf_program__attach(skel->progs.seed_a);			/* test1 */
		m2 = attach_ids(skel->progs.seed_x, ids + 1, 4);		/* test2..5 */
		if (!ASSERT_OK_PTR(m1, "m1") || !ASSERT_OK_PTR(a, "a") ||
		    !ASSERT_OK_PTR(m2, "m2")) {
			bpf_link__destroy(m1);
			bpf_link__destroy(a);
			bpf_link__destroy(m2);
			break;
		}
		bpf_link__destroy(m1);
		bpf_link__destroy(a);
		bpf_link__destroy(m2);
	}
	__atomic_store_n(&r.stop, true, __ATOMIC_RELAXED);
	pthread_join(thread, NULL);
	ASSERT_OK(r.err, "test_run");
	ASSERT_GT(r.runs, 0, "runs");
	for (i = 1; i <= NR_FUNCS; i++)
		ASSERT_EQ(skel->bss->gap_hits[i], r.runs, "calls seen by the link that stays");
out:
	bpf_link__destroy(k);
	tracing_multi__destroy(skel);
}

/* Run the subset program's functions once; each must run it once per link
 * of @masks (bit j: function j + 1) that is still attached.
 */
static void subset_check(struct tracing_multi *skel, struct bpf_link **links,
			 const unsigned int *masks, int nr_links, const char *what)
{
	__u64 want;
	int i, j;

	memset(skel->bss->subset_hits, 0, sizeof(skel->bss->subset_hits));
	fentry_test_run(skel->progs.subset);
	for (j = 0; j < NR_FUNCS; j++) {
		for (i = 0, want = 0; i < nr_links; i++)
			want += links[i] && (masks[i] & (1 << j));
		ASSERT_EQ(skel->bss->subset_hits[j + 1], want, what);
	}
}

/* Several links of one program over random intersecting subsets: each
 * function runs the program once per link that holds it, also as the
 * links are detached one by one in a random order (each function's list
 * of links loses one at each place, down to one and none).
 */
static void test_random_subsets(void)
{
	struct bpf_link *links[8] = {};
	unsigned int masks[ARRAY_SIZE(links)];
	struct tracing_multi *skel;
	__u32 ids[NR_FUNCS], sub[NR_FUNCS];
	int i, j, n, round, order[ARRAY_SIZE(links)];

	if (fentry_test_ids(ids))
		return;
	skel = tracing_multi__open_and_load();
	if (!ASSERT_OK_PTR(skel, "open_and_load"))
		return;
	skel->bss->test_pid = getpid();
	srand(42);
	for (round = 0; round < 3; round++) {
		for (i = 0; i < ARRAY_SIZE(links); i++) {
			unsigned int mask = 1 + rand() % ((1 << NR_FUNCS) - 1);

			masks[i] = mask;
			for (j = 0, n = 0; j < NR_FUNCS; j++) {
				if (mask & (1 << j))
					sub[n++] = ids[j];
			}
			links[i] = attach_ids(skel->progs.subset, sub, n);
			if (!ASSERT_OK_PTR(links[i], "attach subset"))
				goto out;
		}
		subset_check(skel, links, masks, ARRAY_SIZE(links), "hits");
		for (i = 0; i < ARRAY_SIZE(links); i++)
			order[i] = i;
		for (i = ARRAY_SIZE(links) - 1; i > 0; i--) {
			j = rand() % (i + 1);
			n = order[i];
			order[i] = order[j];
			order[j] = n;
		}
		for (i = 0; i < ARRAY_SIZE(links); i++) {
			bpf_link__destroy(links[order[i]]);
			links[order[i]] = NULL;
			subset_check(skel, links, masks, ARRAY_SIZE(links), "hits after a detach");
		}
	}
out:
	for (i = 0; i < ARRAY_SIZE(links); i++)
		bpf_link__destroy(links[i]);
	tracing_multi__destroy(skel);
}

/* A function that already runs BPF_MAX_TRAMP_LINKS (38) programs takes no
 * more: -E2BIG, and the other functions of that link are not attached.
 */
static void test_max_links(void)
{
	struct bpf_link *links[38] = {}, *extra;	/* BPF_MAX_TRAMP_LINKS */
	struct tracing_multi *skel;
	__u32 ids[NR_FUNCS];
	int i, n;

	if (fentry_test_ids(ids))
		return;
	skel = tracing_multi__open_and_load();
	if (!ASSERT_OK_PTR(skel, "open_and_load"))
		return;
	skel->bss->test_pid = getpid();
	for (n = 0; n < ARRAY_SIZE(links); n++) {
		links[n] = attach_ids(skel->progs.subset, ids, 2);	/* test1, test2 */
		/* arm64 fits fewer programs in a trampoline's page */
		if (n >= 16 && libbpf_get_error(links[n]) == -E2BIG) {
			links[n] = NULL;
			printf("%s: %d programs fill a trampoline here\n", __func__, n);
			break;
		}
		if (!ASSERT_OK_PTR(links[n], "attach"))
			goto out;
	}
	extra = attach_ids(skel->progs.subset, ids + 1, 2);		/* test2, test3 */
	ASSERT_EQ(libbpf_get_error(extra), -E2BIG, "one link too many");
	fentry_test_run(skel->progs.subset);
	ASSERT_EQ(skel->bss->subset_hits[1], n, "test1");
	ASSERT_EQ(skel->bss->subset_hits[2], n, "test2");
	ASSERT_EQ(skel->bss->subset_hits[3], 0, "test3: rolled back");
out:
	for (i = 0; i < ARRAY_SIZE(links); i++)
		bpf_link__destroy(links[i]);
	tracing_multi__destroy(skel);
}

/* A sleepable multi program attaches to functions that allow sleepable
 * programs (bpf_fentry_test1 is in the sleepable fmodret set) and to no other.
 * Once bpf_fentry_test1 is full, one more link fails after it was created:
 * a failed sleepable attach frees its link after an RCU-tasks-trace grace
 * period (the kernel's free_trace), and the links before still run.
 */
static void test_sleepable(void)
{
	struct bpf_link *links[39] = {};	/* BPF_MAX_TRAMP_LINKS (38) fit */
	struct tracing_multi *skel;
	struct bpf_link *link;
	__u32 ids[NR_FUNCS];
	int i, n, err = 0;

	if (fentry_test_ids(ids))
		return;
	skel = tracing_multi__open_and_load();
	if (!ASSERT_OK_PTR(skel, "open_and_load"))
		return;
	skel->bss->test_pid = getpid();
	link = attach_ids(skel->progs.sleepable, ids, 2);	/* test2 is not sleepable */
	ASSERT_EQ(libbpf_get_error(link), -EINVAL, "not sleepable");
	link = attach_ids(skel->progs.sleepable, ids, 1);
	if (!ASSERT_OK_PTR(link, "attach"))
		goto out;
	fentry_test_run(skel->progs.sleepable);
	ASSERT_EQ(skel->bss->sleepable_hits, 1, "hits");
	bpf_link__destroy(link);

	for (n = 0; n < ARRAY_SIZE(links); n++) {
		links[n] = attach_ids(skel->progs.sleepable, ids, 1);
		err = libbpf_get_error(links[n]);
		if (err) {
			links[n] = NULL;
			break;
		}
	}
	/* arm64 fits fewer programs in a trampoline's page */
	ASSERT_EQ(err, -E2BIG, "one link too many");
	ASSERT_GE(n, 8, "links that fit");
	skel->bss->sleepable_hits = 0;
	fentry_test_run(skel->progs.sleepable);
	ASSERT_EQ(skel->bss->sleepable_hits, n, "hits after the failed attach");
	for (i = 0; i < ARRAY_SIZE(links); i++)
		bpf_link__destroy(links[i]);
out:
	tracing_multi__destroy(skel);
}

/* As upstream: a program whose SEC() names a module is loaded with that
 * module's BTF as its attach BTF (bpf_prog_info says which), other multi
 * programs with vmlinux's; link ids are then the attach BTF's (target_fd 0).
 */
static void check_module_attach_btf(struct tracing_multi *skel)
{
	LIBBPF_OPTS(bpf_link_create_opts, lopts);
	struct bpf_prog_info info = {};
	struct bpf_link_info linfo = {};
	struct btf *vmlinux, *mod;
	struct bpf_link *link;
	__u32 len = sizeof(info), ids[1], mod_btf_obj_id;
	int fd, id;

	fd = bpf_program__fd(skel->progs.mod_fentry);
	if (!ASSERT_OK(bpf_prog_get_info_by_fd(fd, &info, &len), "module prog info"))
		return;
	ASSERT_GT(info.attach_btf_obj_id, 1, "module prog attach_btf_obj_id");
	ASSERT_EQ(info.attach_btf_id, 0, "module prog attach_btf_id");
	mod_btf_obj_id = info.attach_btf_obj_id;
	memset(&info, 0, sizeof(info));
	if (ASSERT_OK(bpf_prog_get_info_by_fd(bpf_program__fd(skel->progs.fentry_cookie),
					      &info, &len), "vmlinux prog info"))
		ASSERT_EQ(info.attach_btf_obj_id, 1, "vmlinux prog attach_btf_obj_id");

	vmlinux = btf__load_vmlinux_btf();
	if (!ASSERT_OK_PTR(vmlinux, "vmlinux btf"))
		return;
	mod = btf__load_module_btf("bpf_testmod", vmlinux);
	if (!ASSERT_OK_PTR(mod, "bpf_testmod btf"))
		goto out_vmlinux;
	id = btf__find_by_name_kind(mod, "bpf_testmod_fentry_test1", BTF_KIND_FUNC);
	if (!ASSERT_GT(id, 0, "bpf_testmod_fentry_test1 id"))
		goto out;
	ids[0] = id;
	lopts.tracing_multi.ids = ids;
	lopts.tracing_multi.cnt = 1;
	fd = bpf_link_create(bpf_program__fd(skel->progs.mod_fentry), 0,
			     BPF_TRACE_FENTRY_MULTI, &lopts);
	if (!ASSERT_GE(fd, 0, "link by module ids, target_fd 0"))
		goto out;
	len = sizeof(linfo);
	if (ASSERT_OK(bpf_link_get_info_by_fd(fd, &linfo, &len), "link info"))
		ASSERT_EQ(linfo.tracing_multi.btf_obj_id, mod_btf_obj_id, "link btf_obj_id");
	memset(skel->bss->mod_hits, 0, sizeof(skel->bss->mod_hits));
	ASSERT_OK(trigger_module_test_read(1), "trigger_module_test_read");
	ASSERT_EQ(skel->bss->mod_hits[1], 1, "bpf_testmod_fentry_test1 by id");
	ASSERT_EQ(skel->bss->mod_hits[2], 0, "bpf_testmod_fentry_test2 not attached");
	close(fd);

	/* a vmlinux id (the base part of the module's split BTF): refused,
	 * never the module's symbol of that name with vmlinux's prototype
	 */
	id = btf__find_by_name_kind(vmlinux, "bpf_fentry_test1", BTF_KIND_FUNC);
	if (ASSERT_GT(id, 0, "bpf_fentry_test1 id")) {
		ids[0] = id;
		fd = bpf_link_create(bpf_program__fd(skel->progs.mod_fentry), 0,
				     BPF_TRACE_FENTRY_MULTI, &lopts);
		ASSERT_EQ(fd, -EINVAL, "vmlinux id, module attach BTF");
		if (fd >= 0)
			close(fd);
	}
	/* libbpf, as upstream's: a pattern without "module:" for it */
	link = bpf_program__attach_tracing_multi(skel->progs.mod_fentry, "bpf_fentry_test1", NULL);
	ASSERT_EQ(libbpf_get_error(link), -EINVAL, "vmlinux pattern, module program");
	if (!libbpf_get_error(link))
		bpf_link__destroy(link);
out:
	btf__free(mod);
out_vmlinux:
	btf__free(vmlinux);
}

/* BTF ids of bpf_testmod functions, in the module's BTF. */
static int testmod_ids(const char * const *names, int n, __u32 *ids)
{
	struct btf *vmlinux, *mod = NULL;
	int i, id, err = -1;

	vmlinux = btf__load_vmlinux_btf();
	if (!ASSERT_OK_PTR(vmlinux, "vmlinux btf"))
		return -1;
	mod = btf__load_module_btf("bpf_testmod", vmlinux);
	if (!ASSERT_OK_PTR(mod, "bpf_testmod btf"))
		goto out;
	for (i = 0; i < n; i++) {
		id = btf__find_by_name_kind(mod, names[i], BTF_KIND_FUNC);
		if (!ASSERT_GT(id, 0, names[i]))
			goto out;
		ids[i] = id;
	}
	err = 0;
out:
	btf__free(mod);
	btf__free(vmlinux);
	return err;
}

/*
 * Functions with stack arguments and 16-byte struct arguments, by module
 * ids (the programs' attach BTF is bpf_testmod's): x86-64 trampolines take
 * up to 12 argument slots, arm64's 8 (-EOPNOTSUPP beyond, nothing
 * attached). Each function returns the sum of its arguments' low bytes.
 */
static void test_many_args(void)
{
	static const char * const names[] = {
		"bpf_testmod_fentry_test7", "bpf_testmod_fentry_test11",
		"bpf_testmod_test_struct_arg_1", "bpf_testmod_test_struct_arg_2",
	};
	static const int nslots[] = { 7, 11 }, want[] = { 133, 231 };
#if defined(__x86_64__)
	const int max_slots = 12;
#else
	const int max_slots = 8;
#endif
	LIBBPF_OPTS(bpf_tracing_multi_opts, opts);
	struct tracing_multi_many *skel;
	struct bpf_link *links[3] = {};
	__u32 ids[4];
	int i, k;

	if (testmod_ids(names, 4, ids))
		return;
	skel = tracing_multi_many__open_and_load();
	if (!ASSERT_OK_PTR(skel, "open_and_load"))
		return;
	skel->bss->test_pid = getpid();
	opts.ids = ids;
	opts.cnt = 2;
	if (max_slots < 11) {
		/* test11 does not fit: the link fails as a whole */
		links[0] = bpf_program__attach_tracing_multi(skel->progs.many_entry, NULL, &opts);
		ASSERT_EQ(libbpf_get_error(links[0]), -EOPNOTSUPP, "11 slots on this arch");
		links[0] = NULL;
		opts.cnt = 1;
	}
	links[0] = bpf_program__attach_tracing_multi(skel->progs.many_entry, NULL, &opts);
	links[1] = bpf_program__attach_tracing_multi(skel->progs.many_exit, NULL, &opts);
	opts.ids = ids + 2;
	opts.cnt = 2;
	links[2] = bpf_program__attach_tracing_multi(skel->progs.struct_exit, NULL, &opts);
	for (i = 0; i < 3; i++)
		if (!ASSERT_OK_PTR(links[i], "attach"))
			goto out;
	ASSERT_OK(trigger_module_test_read(1), "trigger_module_test_read");

	for (i = 0; i < 2; i++) {
		int n = nslots[i];
		bool on = n <= max_slots;

		for (k = 0; k < 2; k++) {
			ASSERT_EQ(skel->bss->hits[k][n], on, k ? "exit hits" : "entry hits");
			if (!on)
				continue;
			ASSERT_EQ(skel->bss->sums[k][n], want[i], k ? "exit sum" : "entry sum");
			ASSERT_EQ(skel->bss->slot6[k][n], 22, "slot 6 (direct)");
		}
		if (on)
			ASSERT_EQ(skel->bss->rets[n], want[i], "return value");
	}
	for (k = 0; k < 2; k++) {
		ASSERT_EQ(skel->bss->struct_hits[k], 1, "struct hits");
		ASSERT_EQ(skel->bss->struct_sums[k], 10, "struct slots");
		ASSERT_EQ(skel->bss->struct_rets[k], 10, "struct return value");
	}
	ASSERT_EQ(skel->bss->bad, 0, "bad");
out:
	for (i = 0; i < 3; i++)
		bpf_link__destroy(links[i]);
	tracing_multi_many__destroy(skel);
}

/* Functions of a module, by "module:glob" in SEC(), and by name. */
static void test_module(void)
{
	struct bpf_link *link, *noargs = NULL;
	struct tracing_multi *skel;

	skel = tracing_multi__open_and_load();
	if (!ASSERT_OK_PTR(skel, "open_and_load"))
		return;
	skel->bss->test_pid = getpid();
	link = bpf_program__attach(skel->progs.mod_fentry);
	if (!ASSERT_OK_PTR(link, "attach"))
		goto out;
	noargs = bpf_program__attach_tracing_multi(skel->progs.mod_fentry,
						   "bpf_testmod:bpf_testmod_multi_noargs", NULL);
	if (!ASSERT_OK_PTR(noargs, "attach bpf_testmod_multi_noargs"))
		goto out;
	ASSERT_OK(trigger_module_test_read(1), "trigger_module_test_read");
	ASSERT_EQ(skel->bss->mod_hits[0], 1, "bpf_testmod_multi_noargs");
	ASSERT_EQ(skel->bss->mod_hits[1], 1, "bpf_testmod_fentry_test1");
	ASSERT_EQ(skel->bss->mod_hits[2], 1, "bpf_testmod_fentry_test2");
	ASSERT_EQ(skel->bss->mod_hits[3], 1, "bpf_testmod_fentry_test3");
	/* libbpf's pattern takes what the arch's trampolines take */
	ASSERT_EQ(skel->bss->mod_hits[7], 1, "bpf_testmod_fentry_test7");
#if defined(__x86_64__)
	ASSERT_EQ(skel->bss->mod_hits[11], 1, "bpf_testmod_fentry_test11");
#else
	ASSERT_EQ(skel->bss->mod_hits[11], 0, "bpf_testmod_fentry_test11 (> 8 slots)");
#endif
	ASSERT_EQ(skel->bss->bad, 0, "bad");
	bpf_link__destroy(noargs);
	bpf_link__destroy(link);
	noargs = NULL;
	link = NULL;
	check_module_attach_btf(skel);
out:
	bpf_link__destroy(noargs);
	bpf_link__destroy(link);
	tracing_multi__destroy(skel);
}

/* What bpf_fentry_test1..6 get (low byte of each argument) and return, and
 * bpf_testmod_multi_noargs (no arguments, returns 42): indexed by arg count.
 */
static const __u8 fentry_args[7][6] = {
	{}, { 1 }, { 2, 3 }, { 4, 5, 6 }, { 7, 8, 9, 10 }, { 11, 12, 13, 14, 15 },
	{ 16, 17, 18, 19, 20, 21 },
};

static const int fentry_rets[7] = { 42, 2, 5, 15, 34, 65, 111 };

/* One program kind's record of function @n: each slot and the return value. */
static void check_args_record(struct tracing_multi_args *skel, int kind, int n,
			      bool has_ret, const char *what)
{
	char name[64];
	int i;

	snprintf(name, sizeof(name), "%s nr_args %d hits", what, n);
	ASSERT_EQ(skel->bss->hits[kind][n], 1, name);
	for (i = 0; i < 8; i++) {
		__u64 v = skel->bss->args[kind][n][i];

		snprintf(name, sizeof(name), "%s nr_args %d bpf_arg %d", what, n, i);
		if (i < n)
			ASSERT_EQ((__u8)v, fentry_args[n][i], name);
		else
			ASSERT_EQ(v, 0, name);
	}
	snprintf(name, sizeof(name), "%s nr_args %d bpf_arg 1000", what, n);
	ASSERT_EQ(skel->bss->far[kind][n], 0, name);
	if (has_ret) {
		snprintf(name, sizeof(name), "%s nr_args %d bpf_ret_value", what, n);
		ASSERT_EQ((int)skel->bss->ret[kind][n], fentry_rets[n], name);
	}
}

/* bpf_arg() and bpf_ret_value() on functions of 0..6 arguments, in ordinary
 * and multi fentry/fexit/fmod_ret programs.
 */
static void test_args_kfuncs(void)
{
	enum { MULTI_ENTRY, MULTI_EXIT, ENTRY, EXIT, MODRET_MULTI, MODRET };
	struct bpf_link *links[8] = {};
	struct tracing_multi_args *skel;
	const char *mod0 = "bpf_testmod:bpf_testmod_multi_noargs";
	__u32 ids[NR_FUNCS];
	int i, n = 0;

	if (fentry_test_ids(ids))
		return;
	skel = tracing_multi_args__open_and_load();
	if (!ASSERT_OK_PTR(skel, "open_and_load"))
		return;
	skel->bss->test_pid = getpid();
	links[n++] = attach_ids(skel->progs.multi_entry, ids, 6);
	links[n++] = attach_ids(skel->progs.multi_exit, ids, 6);
	links[n++] = bpf_program__attach_tracing_multi(skel->progs.multi_entry, mod0, NULL);
	links[n++] = bpf_program__attach_tracing_multi(skel->progs.multi_exit, mod0, NULL);
	links[n++] = bpf_program__attach(skel->progs.entry3);
	links[n++] = bpf_program__attach(skel->progs.exit6);
	links[n++] = bpf_program__attach(skel->progs.exit0);
	links[n++] = bpf_program__attach(skel->progs.modret_multi);
	for (i = 0; i < n; i++)
		if (!ASSERT_OK_PTR(links[i], "attach"))
			goto out;
	/* the ordinary fmod_ret program attaches through the skeleton */
	skel->links.modret = bpf_program__attach(skel->progs.modret);
	if (!ASSERT_OK_PTR(skel->links.modret, "attach modret"))
		goto out;

	fentry_test_run(skel->progs.multi_entry);	/* bpf_fentry_test1..9 */
	fentry_test_run(skel->progs.modret);		/* bpf_modify_return_test */
	ASSERT_OK(trigger_module_test_read(1), "trigger_module_test_read");

	for (i = 0; i <= 6; i++) {
		check_args_record(skel, MULTI_ENTRY, i, false, "fentry.multi");
		check_args_record(skel, MULTI_EXIT, i, true, "fexit.multi");
	}
	check_args_record(skel, ENTRY, 3, false, "fentry");
	check_args_record(skel, EXIT, 6, true, "fexit");
	check_args_record(skel, EXIT, 0, true, "fexit");

	/* bpf_modify_return_test(1, &b): the return value slot holds what
	 * the fmod_ret programs before have returned, 0 here
	 */
	for (i = MODRET_MULTI; i <= MODRET; i++) {
		ASSERT_EQ(skel->bss->hits[i][2], 1, "fmod_ret hits");
		ASSERT_EQ(skel->bss->args[i][2][0], 1, "fmod_ret bpf_arg 0");
		ASSERT_NEQ(skel->bss->args[i][2][1], 0, "fmod_ret bpf_arg 1");
		ASSERT_EQ(skel->bss->args[i][2][2], 0, "fmod_ret bpf_arg 2");
		ASSERT_EQ(skel->bss->ret[i][2], 0, "fmod_ret bpf_ret_value");
	}
	ASSERT_EQ(skel->bss->bad, 0, "bad");
out:
	for (i = 0; i < n; i++)
		bpf_link__destroy(links[i]);
	tracing_multi_args__destroy(skel);
}

/* A program reading three arguments directly attaches only to functions that
 * have them: bpf_fentry_test1..6 is refused (test1 and test2 are too short),
 * bpf_fentry_test3..6 is taken and read right.
 */
static void test_args_direct(void)
{
	static const __u8 want[7][3] = {
		[3] = { 4, 5, 6 }, [4] = { 7, 8, 9 }, [5] = { 11, 12, 13 },
		[6] = { 16, 17, 18 },
	};
	struct tracing_multi_args *skel;
	struct bpf_link *link;
	__u32 ids[NR_FUNCS];
	int i, j;

	if (fentry_test_ids(ids))
		return;
	skel = tracing_multi_args__open_and_load();
	if (!ASSERT_OK_PTR(skel, "open_and_load"))
		return;
	skel->bss->test_pid = getpid();
	link = attach_ids(skel->progs.direct_abc, ids, 6);
	ASSERT_EQ(libbpf_get_error(link), -EINVAL, "too short functions");
	link = attach_ids(skel->progs.direct_abc, ids + 2, 4);
	if (!ASSERT_OK_PTR(link, "attach"))
		goto out;
	fentry_test_run(skel->progs.direct_abc);
	for (i = 3; i <= 6; i++)
		for (j = 0; j < 3; j++)
			ASSERT_EQ((__u8)skel->bss->direct3[i][j], want[i][j], "direct read");
	ASSERT_EQ(skel->bss->bad, 0, "bad");
	bpf_link__destroy(link);
out:
	tracing_multi_args__destroy(skel);
}

/* A test name for ASSERT_*(): one at a time. */
__printf(1, 2)
static const char *tname(const char *fmt, ...)
{
	static char buf[128];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return buf;
}

/* What bpf_fentry_test1..9 get (low byte of each argument) and return. */
static const __u8 session_nr_args[NR_FUNCS + 1] = { 0, 1, 2, 3, 4, 5, 6, 1, 1, 1 };

static const __u8 session_args[NR_FUNCS + 1][6] = {
	{}, { 1 }, { 2, 3 }, { 4, 5, 6 }, { 7, 8, 9, 10 }, { 11, 12, 13, 14, 15 },
	{ 16, 17, 18, 19, 20, 21 }, { 0 },
};

static const int session_rets[NR_FUNCS + 1] = { 0, 2, 5, 15, 34, 65, 111, 0, 0, 0 };

#define SESSION_COOKIE_SEED 0x5eed

/* Forget what the session programs saw; they go on counting this process. */
static void session_clear(struct tracing_multi_session *skel)
{
	memset(skel->bss, 0, sizeof(*skel->bss));
	skel->bss->test_pid = getpid();
}

/*
 * The fsession.multi program's record of bpf_fentry_test1..9 after @hits
 * runs of one link (@acookies[N]: the attach cookie of bpf_fentry_testN,
 * NULL for none). At both ends: the arguments (by bpf_get_func_arg() and
 * slot 0 directly), their count, the function's address (the program files
 * a run under N only when bpf_get_func_ip() is bpf_fentry_testN's); at
 * entry the return value 0 and the session cookie 0; at exit the return
 * value and the cookie that the entry run wrote.
 */
static void check_session_multi(struct tracing_multi_session *skel, __u64 hits,
				const __u64 *acookies, const char *what)
{
	struct tracing_multi_session__bss *bss = skel->bss;
	int i, j, k;

	for (i = 1; i <= NR_FUNCS; i++) {
		__u64 ac = acookies ? acookies[i] : 0, ip = bss->m_ip[i][0];

		for (k = 0; k < 2; k++) {
			const char *side = k ? "exit" : "entry";
			__u64 n = session_nr_args[i];

			ASSERT_EQ(bss->m_hits[i][k], hits,
				  tname("%s test%d %s hits", what, i, side));
			ASSERT_EQ(bss->m_cnt[i][k], n,
				  tname("%s test%d %s arg cnt", what, i, side));
			for (j = 0; j < n; j++) {
				__u64 v = bss->m_args[i][k][j];

				/* bpf_fentry_test8, 9: a pointer, the same at both ends */
				if (i >= 8)
					ASSERT_EQ(v, bss->m_args[i][0][j],
						  tname("%s test%d %s arg %d", what, i, side, j));
				else
					ASSERT_EQ((__u8)v, session_args[i][j],
						  tname("%s test%d %s arg %d", what, i, side, j));
			}
			ASSERT_EQ(bss->m_arg0[i][k], bss->m_args[i][k][0],
				  tname("%s test%d %s ctx[0]", what, i, side));
			ASSERT_EQ(bss->m_far_err[i][k], -EINVAL,
				  tname("%s test%d %s arg n", what, i, side));
			ASSERT_EQ(bss->m_ret_err[i][k], 0,
				  tname("%s test%d %s bpf_get_func_ret", what, i, side));
			ASSERT_EQ((int)bss->m_ret[i][k], k ? session_rets[i] : 0,
				  tname("%s test%d %s return value", what, i, side));
			ASSERT_EQ(bss->m_cookie[i][k], k ? ip ^ SESSION_COOKIE_SEED ^ ac : 0,
				  tname("%s test%d %s session cookie", what, i, side));
			ASSERT_EQ(bss->m_attach_cookie[i][k], ac,
				  tname("%s test%d %s attach cookie", what, i, side));
			ASSERT_EQ(bss->m_ip[i][k], ip, tname("%s test%d %s ip", what, i, side));
		}
		/* entry, then exit, then the next function's entry */
		ASSERT_LT(bss->m_seq[i][0], bss->m_seq[i][1], tname("%s test%d order", what, i));
		if (i > 1)
			ASSERT_LT(bss->m_seq[i - 1][1], bss->m_seq[i][0],
				  tname("%s test%d after test%d", what, i, i - 1));
	}
	ASSERT_EQ(bss->cookie_bad, 0, tname("%s cookie_bad", what));
	ASSERT_EQ(bss->bad, 0, tname("%s bad", what));
}

/* The ordinary fsession programs' records after @runs runs: fs1 and fs1b
 * (two links on bpf_fentry_test1, each with its own cookie) and fs2.
 */
static void check_session_ordinary(struct tracing_multi_session *skel, __u64 runs,
				   bool with_fs1b, const char *what)
{
	struct tracing_multi_session__bss *bss = skel->bss;
	int k;

	for (k = 0; k < 2; k++) {
		const char *side = k ? "exit" : "entry";

		ASSERT_EQ(bss->fs1_hits[k], runs, tname("%s fs1 %s hits", what, side));
		ASSERT_EQ(bss->fs1_a[k], 1, tname("%s fs1 %s a", what, side));
		ASSERT_EQ(bss->fs1_ret[k], k ? 2 : 0, tname("%s fs1 %s ret", what, side));
		ASSERT_EQ(bss->fs1_cookie[k], k ? 17 : 0, tname("%s fs1 %s cookie", what, side));
		if (with_fs1b)
			ASSERT_EQ(bss->fs1b_cookie[k], k ? 109 : 0,
				  tname("%s fs1b %s cookie", what, side));

		ASSERT_EQ(bss->fs2_hits[k], runs, tname("%s fs2 %s hits", what, side));
		ASSERT_EQ(bss->fs2_cnt[k], 2, tname("%s fs2 %s arg cnt", what, side));
		ASSERT_EQ(bss->fs2_ret_err[k], 0, tname("%s fs2 %s get_func_ret", what, side));
		ASSERT_EQ(bss->fs2_ret[k], k ? 5 : 0, tname("%s fs2 %s ret", what, side));
		ASSERT_EQ(bss->fs2_arg_err[k], 0, tname("%s fs2 %s get_func_arg", what, side));
		ASSERT_EQ(bss->fs2_args[k][0], 2, tname("%s fs2 %s a", what, side));
		ASSERT_EQ(bss->fs2_args[k][1], 3, tname("%s fs2 %s b", what, side));
		ASSERT_EQ(bss->fs2_ip_ok[k], 1, tname("%s fs2 %s bpf_get_func_ip", what, side));
	}
	ASSERT_LT(bss->fs1_seq[0], bss->fs1_seq[1], tname("%s fs1 order", what));
	ASSERT_LT(bss->fs1_seq[1], bss->fs2_seq[0], tname("%s fs1 before fs2", what));
	ASSERT_LT(bss->fs2_seq[0], bss->fs2_seq[1], tname("%s fs2 order", what));
	ASSERT_EQ(bss->bad, 0, tname("%s bad", what));
}

/* BPF_MODIFY_RETURN_MULTI is 62 here, after upstream's last value;
 * upstream may give 62 another meaning. A program built for that is
 * refused with -EINVAL where the kernel can tell: a tracing program that
 * names its function at load, a program of another type at attach.
 */
static void test_attach_type_62(void)
{
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .expected_attach_type = 62);
	const struct bpf_insn insns[] = {
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	__u32 ids[NR_FUNCS];
	int fd, link_fd;

	ASSERT_EQ(BPF_MODIFY_RETURN_MULTI, 62, "BPF_MODIFY_RETURN_MULTI");
	if (fentry_test_ids(ids))
		return;
	fd = load_trivial(62, ids[0]);
	if (!ASSERT_EQ(fd, -EINVAL, "tracing program naming its function") && fd >= 0)
		close(fd);

	fd = bpf_prog_load(BPF_PROG_TYPE_TRACEPOINT, "tp62", "GPL", insns,
			   ARRAY_SIZE(insns), &opts);
	if (!ASSERT_OK_FD(fd, "load tracepoint program, expected_attach_type 62"))
		return;
	link_fd = bpf_link_create(fd, 0, 62, NULL);
	if (!ASSERT_EQ(link_fd, -EINVAL, "link_create 62, tracepoint program") && link_fd >= 0)
		close(link_fd);
	close(fd);
}

/* The session kfuncs keep 6.12's prototypes in vmlinux BTF, bool
 * bpf_session_is_return(void) and __u64 *bpf_session_cookie(void): libbpf
 * checks the declarations of 6.12's kprobe.session programs against them.
 * fsession programs pass ctx all the same (verifier_tracing_args).
 */
static void test_session_kfunc_protos(void)
{
	static const char *const names[] = { "bpf_session_is_return", "bpf_session_cookie" };
	const struct btf_type *proto, *ret;
	struct btf *btf;
	int i, id;

	btf = btf__load_vmlinux_btf();
	if (!ASSERT_OK_PTR(btf, "vmlinux BTF"))
		return;
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		id = btf__find_by_name_kind(btf, names[i], BTF_KIND_FUNC);
		if (!ASSERT_GT(id, 0, names[i]))
			continue;
		proto = btf__type_by_id(btf, btf__type_by_id(btf, id)->type);
		if (!ASSERT_TRUE(btf_is_func_proto(proto), "func_proto"))
			continue;
		if (!ASSERT_EQ(btf_vlen(proto), 0, "parameters"))
			fprintf(stderr, "%s: %u parameters, want none (6.12's)\n",
				names[i], btf_vlen(proto));
		/* bool is a typedef of _Bool */
		id = btf__resolve_type(btf, proto->type);
		ret = id > 0 ? btf__type_by_id(btf, id) : NULL;
		ASSERT_TRUE(ret && (i ? btf_is_ptr(ret) : btf_is_int(ret)), "return type");
	}
	btf__free(btf);
}

/* Ordinary fsession programs: one program runs at entry and at exit of its
 * function, the cookie is per invocation (0 again at each entry) and per
 * link; BPF_PROG_TEST_RUN takes an fsession program.
 */
static void test_fsession(void)
{
	struct tracing_multi_session *skel;
	struct bpf_link_info info = {};
	__u32 len = sizeof(info);
	char what[16];
	int run;

	skel = tracing_multi_session__open_and_load();
	if (!ASSERT_OK_PTR(skel, "open_and_load"))
		return;
	skel->bss->test_pid = getpid();
	skel->links.fs1 = bpf_program__attach(skel->progs.fs1);
	skel->links.fs1b = bpf_program__attach(skel->progs.fs1b);
	skel->links.fs2 = bpf_program__attach(skel->progs.fs2);
	if (!ASSERT_OK_PTR(skel->links.fs1, "attach fs1") ||
	    !ASSERT_OK_PTR(skel->links.fs1b, "attach fs1b") ||
	    !ASSERT_OK_PTR(skel->links.fs2, "attach fs2"))
		goto out;
	if (ASSERT_OK(bpf_link_get_info_by_fd(bpf_link__fd(skel->links.fs1), &info, &len),
		      "link info")) {
		ASSERT_EQ(info.type, BPF_LINK_TYPE_TRACING, "link type");
		ASSERT_EQ(info.tracing.attach_type, BPF_TRACE_FSESSION, "attach_type");
	}

	for (run = 1; run <= 2; run++) {
		snprintf(what, sizeof(what), "run %d", run);
		fentry_test_run(skel->progs.fs1);
		check_session_ordinary(skel, run, true, what);
		ASSERT_EQ(skel->bss->fs1b_hits[0], run, "fs1b entry hits");
		ASSERT_EQ(skel->bss->fs1b_hits[1], run, "fs1b exit hits");
	}

	/* the other link on the function goes: fs1 runs as before */
	bpf_link__destroy(skel->links.fs1b);
	skel->links.fs1b = NULL;
	fentry_test_run(skel->progs.fs2);
	check_session_ordinary(skel, 3, false, "fs1b detached");
	ASSERT_EQ(skel->bss->fs1b_hits[0], 2, "fs1b entry hits after detach");
	ASSERT_EQ(skel->bss->fs1b_hits[1], 2, "fs1b exit hits after detach");
out:
	tracing_multi_session__destroy(skel);
}

/* fsession.multi on bpf_fentry_test1..9: by its SEC() pattern, by ids with
 * cookies (each run again, the cookie is 0 at entry), and two links of one
 * program on the same functions, each with its own session cookie.
 */
static void test_fsession_multi(void)
{
	LIBBPF_OPTS(bpf_tracing_multi_opts, opts);
	struct tracing_multi_session *skel;
	struct bpf_link *link = NULL, *link2 = NULL;
	__u64 cookies[NR_FUNCS], cookies2[NR_FUNCS], acookies[NR_FUNCS + 1];
	struct bpf_link_info info = {};
	__u32 ids[NR_FUNCS], len = sizeof(info);
	int i;

	if (fentry_test_ids(ids))
		return;
	skel = tracing_multi_session__open_and_load();
	if (!ASSERT_OK_PTR(skel, "open_and_load"))
		return;
	skel->bss->test_pid = getpid();

	link = bpf_program__attach(skel->progs.fsm_pattern);
	if (!ASSERT_OK_PTR(link, "attach by SEC() pattern"))
		goto out;
	fentry_test_run(skel->progs.fsm_pattern);	/* fentry_test_run takes fsession.multi */
	check_session_multi(skel, 1, NULL, "pattern");
	bpf_link__destroy(link);
	link = NULL;

	/* ids in reverse order, cookie 100 + N for bpf_fentry_testN */
	for (i = 0; i < NR_FUNCS / 2; i++) {
		__u32 tmp = ids[i];

		ids[i] = ids[NR_FUNCS - 1 - i];
		ids[NR_FUNCS - 1 - i] = tmp;
	}
	for (i = 0; i < NR_FUNCS; i++) {
		cookies[i] = 100 + NR_FUNCS - i;
		cookies2[i] = 200 + NR_FUNCS - i;
		acookies[NR_FUNCS - i] = cookies[i];
	}
	opts.ids = ids;
	opts.cookies = cookies;
	opts.cnt = NR_FUNCS;
	session_clear(skel);
	link = bpf_program__attach_tracing_multi(skel->progs.fsm, NULL, &opts);
	if (!ASSERT_OK_PTR(link, "attach by ids"))
		goto out;
	if (ASSERT_OK(bpf_link_get_info_by_fd(bpf_link__fd(link), &info, &len), "link info")) {
		ASSERT_EQ(info.type, BPF_LINK_TYPE_TRACING_MULTI, "link type");
		ASSERT_EQ(info.tracing_multi.attach_type, BPF_TRACE_FSESSION_MULTI, "attach_type");
		ASSERT_EQ(info.tracing_multi.count, NR_FUNCS, "count");
	}
	fentry_test_run(skel->progs.fsm);
	check_session_multi(skel, 1, acookies, "ids, run 1");
	fentry_test_run(skel->progs.fsm);
	check_session_multi(skel, 2, acookies, "ids, run 2");

	/* a second link of the program: two runs at each end, two cookies */
	opts.cookies = cookies2;
	link2 = bpf_program__attach_tracing_multi(skel->progs.fsm, NULL, &opts);
	if (!ASSERT_OK_PTR(link2, "attach second link"))
		goto out;
	session_clear(skel);
	fentry_test_run(skel->progs.fsm);
	for (i = 1; i <= NR_FUNCS; i++) {
		ASSERT_EQ(skel->bss->m_hits[i][0], 2, "two links: entry hits");
		ASSERT_EQ(skel->bss->m_hits[i][1], 2, "two links: exit hits");
	}
	ASSERT_EQ(skel->bss->cookie_bad, 0, "two links: cookie_bad");
	ASSERT_EQ(skel->bss->bad, 0, "two links: bad");

	/* and back to one */
	bpf_link__destroy(link2);
	link2 = NULL;
	session_clear(skel);
	fentry_test_run(skel->progs.fsm);
	check_session_multi(skel, 1, acookies, "second link detached");
out:
	bpf_link__destroy(link2);
	bpf_link__destroy(link);
	tracing_multi_session__destroy(skel);
}

/* fsession.multi reads the return value slot of bpf_fentry_test1 (one
 * argument, so slot 1) directly: 0 at entry, the return value at exit.
 */
static void test_fsession_ret_slot(void)
{
	struct tracing_multi_session *skel;
	struct bpf_link *link;
	__u32 ids[NR_FUNCS];

	if (fentry_test_ids(ids))
		return;
	skel = tracing_multi_session__open_and_load();
	if (!ASSERT_OK_PTR(skel, "open_and_load"))
		return;
	skel->bss->test_pid = getpid();
	link = attach_ids(skel->progs.fsm_ret_slot, ids, 1);
	if (!ASSERT_OK_PTR(link, "attach"))
		goto out;
	fentry_test_run(skel->progs.fsm_ret_slot);
	ASSERT_EQ(skel->bss->ret_slot_hits[0], 1, "entry hits");
	ASSERT_EQ(skel->bss->ret_slot_hits[1], 1, "exit hits");
	ASSERT_EQ(skel->bss->ret_slot_a[0], 1, "entry a");
	ASSERT_EQ(skel->bss->ret_slot_a[1], 1, "exit a");
	ASSERT_EQ(skel->bss->ret_slot[0], 0, "entry return value slot");
	ASSERT_EQ(skel->bss->ret_slot[1], 2, "exit return value slot");
	bpf_link__destroy(link);
out:
	tracing_multi_session__destroy(skel);
}

/* fsession.multi links on one function until one does not fit: it fails
 * with -E2BIG, and the others still run at both ends. An fsession link
 * runs twice and counts twice against BPF_MAX_TRAMP_LINKS (38), so at most
 * 19 fit; on x86-64 and arm64 the image fills its page at about that many
 * too, so this does not tell the two limits apart.
 */
static void test_fsession_max_links(void)
{
	struct bpf_link *links[38] = {};	/* BPF_MAX_TRAMP_LINKS */
	struct tracing_multi_session *skel;
	__u32 ids[NR_FUNCS];
	int i, n;

	if (fentry_test_ids(ids))
		return;
	skel = tracing_multi_session__open_and_load();
	if (!ASSERT_OK_PTR(skel, "open_and_load"))
		return;
	skel->bss->test_pid = getpid();
	for (n = 0; n < ARRAY_SIZE(links); n++) {
		links[n] = attach_ids(skel->progs.fsm_ret_slot, ids, 1);
		if (libbpf_get_error(links[n])) {
			ASSERT_EQ(libbpf_get_error(links[n]), -E2BIG, "one link too many");
			links[n] = NULL;
			break;
		}
	}
	printf("%s: %d fsession.multi links fit on one function\n", __func__, n);
	ASSERT_LE(n, 19, "at most BPF_MAX_TRAMP_LINKS / 2");
	ASSERT_GE(n, 8, "fsession links on one function");
	fentry_test_run(skel->progs.fsm_ret_slot);
	ASSERT_EQ(skel->bss->ret_slot_hits[0], n, "entry hits");
	ASSERT_EQ(skel->bss->ret_slot_hits[1], n, "exit hits");
	ASSERT_EQ(skel->bss->ret_slot[1], 2, "exit return value slot");
	for (i = 0; i < ARRAY_SIZE(links); i++)
		bpf_link__destroy(links[i]);
	tracing_multi_session__destroy(skel);
}

/* Ordinary fentry and fexit on bpf_fentry_test1 as the fsession programs
 * run there.
 */
static void check_mix_ordinary(struct tracing_multi_session *skel, const char *what)
{
	ASSERT_EQ(skel->bss->mix_entry_hits, 1, tname("%s fentry hits", what));
	ASSERT_EQ(skel->bss->mix_entry_a, 1, tname("%s fentry a", what));
	ASSERT_EQ(skel->bss->mix_exit_hits, 1, tname("%s fexit hits", what));
	ASSERT_EQ(skel->bss->mix_exit_a, 1, tname("%s fexit a", what));
	ASSERT_EQ(skel->bss->mix_exit_ret, 2, tname("%s fexit ret", what));
}

static void check_mix_multi(struct tracing_multi_session *skel, const char *what)
{
	int i;

	for (i = 1; i <= NR_FUNCS; i++) {
		ASSERT_EQ(skel->bss->mix_multi_entry_hits[i], 1,
			  tname("%s fentry.multi test%d hits", what, i));
		ASSERT_EQ(skel->bss->mix_multi_entry_cnt[i], session_nr_args[i],
			  tname("%s fentry.multi test%d arg cnt", what, i));
		ASSERT_EQ(skel->bss->mix_multi_exit_hits[i], 1,
			  tname("%s fexit.multi test%d hits", what, i));
		ASSERT_EQ((int)skel->bss->mix_multi_exit_ret[i], session_rets[i],
			  tname("%s fexit.multi test%d ret", what, i));
	}
}

/*
 * fsession and fsession.multi beside ordinary fentry/fexit on
 * bpf_fentry_test1 (which then gets an image of its own) and beside
 * fentry.multi/fexit.multi on the same functions: every program sees what
 * it sees alone, whichever links come and go.
 */
static void test_fsession_mixed(void)
{
	LIBBPF_OPTS(bpf_tracing_multi_opts, opts);
	struct bpf_link *fsm = NULL, *me = NULL, *mx = NULL;
	__u64 cookies[NR_FUNCS], acookies[NR_FUNCS + 1];
	struct tracing_multi_session *skel;
	__u32 ids[NR_FUNCS];
	int i, shared, own;

	if (fentry_test_ids(ids))
		return;
	skel = tracing_multi_session__open_and_load();
	if (!ASSERT_OK_PTR(skel, "open_and_load"))
		return;
	skel->bss->test_pid = getpid();
	for (i = 0; i < NR_FUNCS; i++) {
		cookies[i] = 100 + i + 1;
		acookies[i + 1] = cookies[i];
	}
	opts.ids = ids;
	opts.cookies = cookies;
	opts.cnt = NR_FUNCS;
	fsm = bpf_program__attach_tracing_multi(skel->progs.fsm, NULL, &opts);
	if (!ASSERT_OK_PTR(fsm, "attach fsession.multi"))
		goto out;

	/* 1: ordinary fentry, fexit and fsession on bpf_fentry_test1 */
	skel->links.mix_entry = bpf_program__attach(skel->progs.mix_entry);
	skel->links.mix_exit = bpf_program__attach(skel->progs.mix_exit);
	skel->links.fs1 = bpf_program__attach(skel->progs.fs1);
	skel->links.fs2 = bpf_program__attach(skel->progs.fs2);
	if (!ASSERT_OK_PTR(skel->links.mix_entry, "attach fentry") ||
	    !ASSERT_OK_PTR(skel->links.mix_exit, "attach fexit") ||
	    !ASSERT_OK_PTR(skel->links.fs1, "attach fs1") ||
	    !ASSERT_OK_PTR(skel->links.fs2, "attach fs2"))
		goto out;
	fentry_test_run(skel->progs.fsm);
	check_session_multi(skel, 1, acookies, "with fentry/fexit/fsession");
	check_session_ordinary(skel, 1, false, "with fsession.multi");
	check_mix_ordinary(skel, "with fsession.multi");
	/* test1 and test2 run ordinary programs: images of their own */
	if (!count_multi_tramps(&shared, &own))
		ASSERT_EQ(own, 2, "own images with ordinary programs");

	/* 2: the ordinary programs go, fsession.multi alone again */
	bpf_link__destroy(skel->links.mix_entry);
	bpf_link__destroy(skel->links.mix_exit);
	bpf_link__destroy(skel->links.fs1);
	bpf_link__destroy(skel->links.fs2);
	skel->links.mix_entry = NULL;
	skel->links.mix_exit = NULL;
	skel->links.fs1 = NULL;
	skel->links.fs2 = NULL;
	session_clear(skel);
	fentry_test_run(skel->progs.fsm);
	check_session_multi(skel, 1, acookies, "ordinary programs detached");
	ASSERT_EQ(skel->bss->mix_entry_hits, 0, "fentry detached");
	ASSERT_EQ(skel->bss->fs1_hits[0], 0, "fsession detached");
	if (!count_multi_tramps(&shared, &own))
		ASSERT_EQ(own, 0, "no own images");

	/* 3: fentry.multi and fexit.multi on the same functions */
	me = attach_ids(skel->progs.mix_multi_entry, ids, NR_FUNCS);
	mx = attach_ids(skel->progs.mix_multi_exit, ids, NR_FUNCS);
	if (!ASSERT_OK_PTR(me, "attach fentry.multi") || !ASSERT_OK_PTR(mx, "attach fexit.multi"))
		goto out;
	session_clear(skel);
	fentry_test_run(skel->progs.fsm);
	check_session_multi(skel, 1, acookies, "with fentry.multi/fexit.multi");
	check_mix_multi(skel, "with fsession.multi");

	/* 4: and the ordinary fentry/fexit on bpf_fentry_test1 too */
	skel->links.mix_entry = bpf_program__attach(skel->progs.mix_entry);
	skel->links.mix_exit = bpf_program__attach(skel->progs.mix_exit);
	if (!ASSERT_OK_PTR(skel->links.mix_entry, "attach fentry again") ||
	    !ASSERT_OK_PTR(skel->links.mix_exit, "attach fexit again"))
		goto out;
	session_clear(skel);
	fentry_test_run(skel->progs.fsm);
	check_session_multi(skel, 1, acookies, "with all");
	check_mix_multi(skel, "with all");
	check_mix_ordinary(skel, "with all");

	/* 5: fsession.multi goes, the others run as before */
	bpf_link__destroy(fsm);
	fsm = NULL;
	session_clear(skel);
	fentry_test_run(skel->progs.mix_multi_entry);
	check_mix_multi(skel, "fsession.multi detached");
	check_mix_ordinary(skel, "fsession.multi detached");
	for (i = 1; i <= NR_FUNCS; i++) {
		ASSERT_EQ(skel->bss->m_hits[i][0], 0, "fsession.multi detached: entry hits");
		ASSERT_EQ(skel->bss->m_hits[i][1], 0, "fsession.multi detached: exit hits");
	}
	ASSERT_EQ(skel->bss->bad, 0, "bad");
out:
	bpf_link__destroy(me);
	bpf_link__destroy(mx);
	bpf_link__destroy(fsm);
	tracing_multi_session__destroy(skel);
}

/* What bpf_testmod_multi_noargs and bpf_testmod_fentry_test1..3, 7, 11 (by
 * argument count) sum up to (low bytes of the arguments) and return.
 */
static const int mod_sums[12] = { [1] = 1, [2] = 5, [3] = 15, [7] = 133, [11] = 231 };
static const int mod_rets[12] = { [0] = 42, [1] = 2, [2] = 5, [3] = 15, [7] = 133, [11] = 231 };

/* Program @p's (0: mod_all, 1: mod_many) record of the function of @n
 * arguments: @hits runs, or none.
 */
static void check_session_mod(struct tracing_multi_session *skel, int p, int n, __u64 hits)
{
	struct tracing_multi_session__bss *bss = skel->bss;
	int k;

	for (k = 0; k < 2; k++) {
		const char *side = k ? "exit" : "entry";

		ASSERT_EQ(bss->mod_hits[p][n][k], hits,
			  tname("prog %d test%d %s hits", p, n, side));
		if (!hits)
			continue;
		ASSERT_EQ(bss->mod_sum[p][n][k], mod_sums[n],
			  tname("prog %d test%d %s args", p, n, side));
		ASSERT_EQ((int)bss->mod_ret[p][n][k], k ? mod_rets[n] : 0,
			  tname("prog %d test%d %s ret", p, n, side));
		ASSERT_EQ(bss->mod_cookie[p][n][k], k ? (p + 1) * 1000 + n * 100 + mod_sums[n] : 0,
			  tname("prog %d test%d %s session cookie", p, n, side));
		if (p == 1)
			ASSERT_EQ(bss->mod_slot6[n][k], 22,
				  tname("prog %d test%d %s slot 6", p, n, side));
	}
}

/*
 * bpf_testmod's functions, with stack arguments on x86-64: fsession.multi
 * by "module:glob" on bpf_testmod_fentry_test* (libbpf's pattern takes what
 * the arch's trampolines take) and by name on bpf_testmod_multi_noargs, by
 * module ids on 7 and 11 arguments (arm64: 11 is -EOPNOTSUPP, the link as
 * a whole), an ordinary fsession on test7.
 */
static void test_fsession_module(void)
{
	static const char * const names[] = {
		"bpf_testmod_fentry_test7", "bpf_testmod_fentry_test11",
	};
	static const int all[] = { 0, 1, 2, 3, 7, 11 };
#if defined(__x86_64__)
	const int max_slots = 12;
#else
	const int max_slots = 8;
#endif
	LIBBPF_OPTS(bpf_tracing_multi_opts, opts);
	struct tracing_multi_session *skel;
	struct bpf_link *many = NULL, *noargs = NULL;
	__u32 ids[2];
	int i;

	if (testmod_ids(names, 2, ids))
		return;
	skel = tracing_multi_session__open_and_load();
	if (!ASSERT_OK_PTR(skel, "open_and_load"))
		return;
	skel->bss->test_pid = getpid();
	opts.ids = ids;
	opts.cnt = 2;
	if (max_slots < 11) {
		many = bpf_program__attach_tracing_multi(skel->progs.mod_many, NULL, &opts);
		ASSERT_EQ(libbpf_get_error(many), -EOPNOTSUPP, "11 slots on this arch");
		many = NULL;
		opts.cnt = 1;
	}
	many = bpf_program__attach_tracing_multi(skel->progs.mod_many, NULL, &opts);
	skel->links.mod_all = bpf_program__attach(skel->progs.mod_all);
	skel->links.mod7 = bpf_program__attach(skel->progs.mod7);
	noargs = bpf_program__attach_tracing_multi(skel->progs.mod_all,
						   "bpf_testmod:bpf_testmod_multi_noargs", NULL);
	if (!ASSERT_OK_PTR(many, "attach by ids") ||
	    !ASSERT_OK_PTR(skel->links.mod_all, "attach by pattern") ||
	    !ASSERT_OK_PTR(noargs, "attach by name") ||
	    !ASSERT_OK_PTR(skel->links.mod7, "attach fsession"))
		goto out;
	ASSERT_OK(trigger_module_test_read(1), "trigger_module_test_read");

	for (i = 0; i < ARRAY_SIZE(all); i++) {
		int n = all[i];

		check_session_mod(skel, 0, n, n <= max_slots);
		if (n >= 7)
			check_session_mod(skel, 1, n, n <= max_slots);
		else
			check_session_mod(skel, 1, n, 0);
	}
	for (i = 0; i < 2; i++) {
		const char *side = i ? "exit" : "entry";

		ASSERT_EQ(skel->bss->mod7_hits[i], 1, tname("fsession test7 %s hits", side));
		ASSERT_EQ(skel->bss->mod7_g[i], 22, tname("fsession test7 %s g", side));
		ASSERT_EQ(skel->bss->mod7_ret[i], i ? 133 : 0,
			  tname("fsession test7 %s ret", side));
		ASSERT_EQ(skel->bss->mod7_cookie[i], i ? 16 + 22 : 0,
			  tname("fsession test7 %s cookie", side));
	}
	ASSERT_EQ(skel->bss->bad, 0, "bad");

	/* the pattern links and the ordinary program go: the ids link stays */
	bpf_link__destroy(skel->links.mod_all);
	bpf_link__destroy(skel->links.mod7);
	bpf_link__destroy(noargs);
	noargs = NULL;
	skel->links.mod_all = NULL;
	skel->links.mod7 = NULL;
	session_clear(skel);
	ASSERT_OK(trigger_module_test_read(1), "trigger_module_test_read");
	for (i = 0; i < ARRAY_SIZE(all); i++) {
		int n = all[i];

		check_session_mod(skel, 0, n, 0);
		check_session_mod(skel, 1, n, n >= 7 && n <= max_slots);
	}
	ASSERT_EQ(skel->bss->mod7_hits[0], 0, "fsession test7 detached");
	ASSERT_EQ(skel->bss->bad, 0, "bad");
out:
	bpf_link__destroy(noargs);
	bpf_link__destroy(many);
	tracing_multi_session__destroy(skel);
}

struct inflight {
	int fds[2];
	int tid;	/* the reader's, once it runs */
	bool go;	/* the reader may read */
	int err;
};

/* One read of the pipe that returns at once, one that waits in pipe_read(). */
static void *inflight_reader(void *arg)
{
	struct inflight *in = arg;
	char c;

	__atomic_store_n(&in->tid, (int)syscall(__NR_gettid), __ATOMIC_RELEASE);
	while (!__atomic_load_n(&in->go, __ATOMIC_ACQUIRE))
		usleep(1000);
	if (read(in->fds[0], &c, 1) != 1 || read(in->fds[0], &c, 1) != 1)
		in->err = errno ? -errno : -EIO;
	return NULL;
}

/* Task @tid's state in /proc: 'S' while it sleeps; 0 if unknown. */
static char task_state(int tid)
{
	char path[64], buf[512], *p;
	int fd, n;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : 0;
}

/*
 * A task is inside a function when the fexit.multi link on it goes: on
 * its way out it must not run the program, whose link is gone. The image
 * it entered jumps over its fexit programs once let go
 * (bpf_tramp_images_put(): one batch for all the images a detach lets go).
 */
static void test_inflight_detach(void)
{
	struct inflight in = { .fds = { -1, -1 } };
	struct bpf_link *link = NULL;
	struct tracing_multi *skel;
	bool started = false;
	pthread_t thread;
	int i;

	skel = tracing_multi__open_and_load();
	if (!ASSERT_OK_PTR(skel, "open_and_load"))
		return;
	skel->bss->test_pid = getpid();
	if (!ASSERT_OK(pipe(in.fds), "pipe"))
		goto out;
	link = bpf_program__attach(skel->progs.inflight_exit);
	if (!ASSERT_OK_PTR(link, "attach fexit.multi/pipe_read"))
		goto out;
	if (!ASSERT_EQ(write(in.fds[1], "a", 1), 1, "write"))
		goto out;
	if (!ASSERT_OK(pthread_create(&thread, NULL, inflight_reader, &in), "pthread_create"))
		goto out;
	started = true;
	while (!__atomic_load_n(&in.tid, __ATOMIC_ACQUIRE))
		usleep(1000);
	skel->bss->inflight_tid = in.tid;
	__atomic_store_n(&in.go, true, __ATOMIC_RELEASE);
	/* the first read returned through the program, the second waits */
	for (i = 0; i < 5000; i++) {
		if (skel->bss->inflight_exits == 1 && task_state(in.tid) == 'S')
			break;
		usleep(1000);
	}
	if (!ASSERT_EQ(skel->bss->inflight_exits, 1, "exits seen while attached") ||
	    !ASSERT_EQ(task_state(in.tid), 'S', "reader waits in pipe_read()"))
		goto out;
	bpf_link__destroy(link);
	link = NULL;
	ASSERT_EQ(write(in.fds[1], "b", 1), 1, "write");
	pthread_join(thread, NULL);
	started = false;
	ASSERT_OK(in.err, "reads");
	ASSERT_EQ(skel->bss->inflight_exits, 1, "exit after the detach skips the program");
out:
	if (started) {
		bpf_link__destroy(link);
		link = NULL;
		if (write(in.fds[1], "cc", 2) < 0)
			perror("write");
		pthread_join(thread, NULL);
	}
	bpf_link__destroy(link);
	if (in.fds[0] >= 0) {
		close(in.fds[0]);
		close(in.fds[1]);
	}
	tracing_multi__destroy(skel);
}

/**
 * tracing_multi_run_subtests - the subtests of tracing_multi
 *
 * tracing_multi_ibt_mode runs them again with trampolines calling the
 * traced function by return.
 */
void tracing_multi_run_subtests(void)
{
	if (test__start_subtest("skel_pattern"))
		test_skel_pattern();
	if (test__start_subtest("link_ids_cookies"))
		test_link_ids_cookies();
	if (test__start_subtest("link_many_cookies"))
		test_link_many_cookies();
	if (test__start_subtest("direct_access"))
		test_direct_access();
	if (test__start_subtest("fmod_ret"))
		test_fmod_ret();
	if (test__start_subtest("errors"))
		test_errors();
	if (test__start_subtest("seed_orders"))
		test_seed_orders();
	if (test__start_subtest("ordinary_after_multi"))
		test_ordinary_after_multi();
	if (test__start_subtest("gap_free"))
		test_gap_free();
	if (test__start_subtest("random_subsets"))
		test_random_subsets();
	if (test__start_subtest("max_links"))
		test_max_links();
	if (test__start_subtest("sleepable"))
		test_sleepable();
	if (test__start_subtest("many_args"))
		test_many_args();
	if (test__start_subtest("module"))
		test_module();
	if (test__start_subtest("args_kfuncs"))
		test_args_kfuncs();
	if (test__start_subtest("args_direct"))
		test_args_direct();
	if (test__start_subtest("attach_type_62"))
		test_attach_type_62();
	if (test__start_subtest("session_kfunc_protos"))
		test_session_kfunc_protos();
	if (test__start_subtest("fsession"))
		test_fsession();
	if (test__start_subtest("fsession_multi"))
		test_fsession_multi();
	if (test__start_subtest("fsession_ret_slot"))
		test_fsession_ret_slot();
	if (test__start_subtest("fsession_max_links"))
		test_fsession_max_links();
	if (test__start_subtest("fsession_mixed"))
		test_fsession_mixed();
	if (test__start_subtest("fsession_module"))
		test_fsession_module();
	if (test__start_subtest("inflight_detach"))
		test_inflight_detach();
	RUN_TESTS(verifier_tracing_args);
}

/* Serial: seed_orders and fsession_mixed count every image in the kernel. */
void serial_test_tracing_multi(void)
{
	tracing_multi_run_subtests();
}
