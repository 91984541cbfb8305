// SPDX-License-Identifier: GPL-2.0
/*
 * base_libbpf_client: a kprobe.session program as 6.12 builds it, loaded
 * and attached by 6.12's own libbpf (the base tree's tools/lib/bpf, 1.5,
 * unmodified; see harness/base-libbpf/build.sh): binaries built for the
 * 6.12 kernel must load and run unchanged on this one. Its BPF object
 * declares bpf_session_is_return() and bpf_session_cookie() as 6.12 does,
 * without a parameter, which that libbpf checks against the kernel's BTF.
 *
 * Runs as root from the directory that holds it and its .bpf.o (the
 * selftests output). Prints test_progs' format, test number 901:
 *	#901/N base_libbpf/<subtest>:OK|FAIL
 *	#901 base_libbpf:OK|FAIL
 * with the reasons of failures above them. Exit status 0 iff all passed.
 * x86-64 only: arm64's 6.12 has no kprobe.multi (tests/deny.arm64).
 *
 * Usage: base_libbpf_client [-v] [SUBTEST...]
 *	-v		libbpf debug output
 *	SUBTEST		run only these subtests
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "client.h"

#define TEST_NUM	901
#define TEST_NAME	"base_libbpf"
#define OBJ_FILE	"base_libbpf_client.bpf.o"
/* runs of test_run, each calling bpf_fentry_test1..9 once */
#define RUNS		2

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static bool verbose;
static const char *cur_test;
static bool cur_failed;

#define FAIL(fmt, ...) do {						\
	cur_failed = true;						\
	printf("%s/%s:%d: " fmt "\n", TEST_NAME, cur_test, __LINE__,	\
	       ##__VA_ARGS__);						\
} while (0)

#define EXPECT(cond, fmt, ...) ({					\
	bool __ok = (cond);						\
	if (!__ok)							\
		FAIL(fmt, ##__VA_ARGS__);				\
	__ok;								\
})

/* What test_run passes bpf_fentry_testN as its first argument, and returns. */
static const struct {
	__u64 parm1;		/* checked for 1..3 (integers) */
	__u32 ret;
} vfuncs[NR_FUNCS] = {
	[1] = { 1, 2 }, [2] = { 2, 5 }, [3] = { 4, 15 }, [4] = { 7, 34 },
	[5] = { 11, 65 }, [6] = { 16, 111 }, [7] = { 0, 0 }, [8] = { 0, 0 },
	[9] = { 0, 0 },
};

static int print_fn(enum libbpf_print_level level, const char *fmt, va_list args)
{
	if (level == LIBBPF_DEBUG && !verbose)
		return 0;
	return vprintf(fmt, args);
}

/*
 * Program @name, SEC("kprobe.session/bpf_fentry_test?"), auto-attached by
 * its pattern (a kprobe_multi link of attach type BPF_TRACE_KPROBE_SESSION),
 * its record st[@k]; test_run of the trigger program RUNS times. Per
 * function: RUNS entry runs; RUNS return runs, none for bpf_fentry_test5..8,
 * whose entry run returns 1; the session cookie at return what the entry
 * wrote (6.12 does not clear it before the entry run); PARM1 at entry, RC
 * at return.
 */
static void run_kprobe_session(const char *name, int k)
{
	struct bpf_program *prog, *trig;
	struct bpf_link *link = NULL;
	struct client_state *st;
	struct bpf_object *obj;
	struct bpf_map *bss;
	size_t sz = 0;
	int i, err;

	obj = bpf_object__open_file(OBJ_FILE, NULL);
	if (!EXPECT(obj, "bpf_object__open_file(%s): %s", OBJ_FILE, strerror(errno)))
		return;
	err = bpf_object__load(obj);
	if (!EXPECT(!err, "bpf_object__load: %d (%s)", err, strerror(-err)))
		goto out;
	prog = bpf_object__find_program_by_name(obj, name);
	trig = bpf_object__find_program_by_name(obj, "trigger");
	bss = bpf_object__find_map_by_name(obj, ".bss");
	st = bss ? bpf_map__initial_value(bss, &sz) : NULL;
	if (!EXPECT(prog && trig, "no program %s or trigger", name) ||
	    !EXPECT(st && sz == 2 * sizeof(*st), ".bss: %p, %zu bytes, want %zu", st, sz,
		    2 * sizeof(*st)))
		goto out;
	st += k;
	EXPECT(bpf_program__expected_attach_type(prog) == BPF_TRACE_KPROBE_SESSION,
	       "%s: expected attach type %u, want %u", name,
	       bpf_program__expected_attach_type(prog), BPF_TRACE_KPROBE_SESSION);
	st->tgid = getpid();
	link = bpf_program__attach(prog);
	if (!EXPECT(link, "bpf_program__attach(%s): %s", name, strerror(errno)))
		goto out;

	for (i = 0; i < RUNS; i++) {
		LIBBPF_OPTS(bpf_test_run_opts, topts);

		err = bpf_prog_test_run_opts(bpf_program__fd(trig), &topts);
		if (!EXPECT(!err && !topts.retval, "test_run(trigger): %d (%s), retval %u",
			    err, strerror(-err), topts.retval))
			goto out;
	}

	for (i = 1; i < NR_FUNCS; i++) {
		int want_ret = NO_RETURN(i) ? 0 : RUNS;

		EXPECT(st->entry[i] == RUNS, "%s, bpf_fentry_test%d: %llu entry runs, want %d",
		       name, i, (unsigned long long)st->entry[i], RUNS);
		EXPECT(st->ret[i] == (__u64)want_ret,
		       "%s, bpf_fentry_test%d: %llu return runs, want %d", name, i,
		       (unsigned long long)st->ret[i], want_ret);
		if (want_ret) {
			EXPECT(st->ret_cookie[i] == SESS_VAL(i, RUNS),
			       "%s, bpf_fentry_test%d: session cookie %#llx at return, want %#llx",
			       name, i, (unsigned long long)st->ret_cookie[i],
			       (unsigned long long)SESS_VAL(i, RUNS));
			EXPECT((__u32)st->rc[i] == vfuncs[i].ret,
			       "%s, bpf_fentry_test%d: RC %#llx at return, want %u", name, i,
			       (unsigned long long)st->rc[i], vfuncs[i].ret);
		}
		if (i <= 3)
			EXPECT((__u32)st->parm1[i] == vfuncs[i].parm1,
			       "%s, bpf_fentry_test%d: PARM1 %#llx at entry, want %llu", name, i,
			       (unsigned long long)st->parm1[i],
			       (unsigned long long)vfuncs[i].parm1);
	}
	EXPECT(!st->unknown, "%s: %llu runs at an IP not of bpf_fentry_test1..9", name,
	       (unsigned long long)st->unknown);
out:
	bpf_link__destroy(link);
	bpf_object__close(obj);
}

/* ksess: the session kfuncs declared as 6.12 declares them */
static void test_kprobe_session(void)
{
	run_kprobe_session("ksess", 0);
}

/* ksess_flavors: both prototypes as ___flavor externs, bpf_ksym_exists() */
static void test_kprobe_session_flavors(void)
{
	run_kprobe_session("ksess_flavors", 1);
}

static const struct {
	const char *name;
	void (*fn)(void);
} subtests[] = {
	{ "kprobe_session", test_kprobe_session },
	{ "kprobe_session_flavors", test_kprobe_session_flavors },
};

static bool selected(int argc, char **argv, const char *name)
{
	int i;

	if (optind >= argc)
		return true;
	for (i = optind; i < argc; i++)
		if (!strcmp(argv[i], name))
			return true;
	return false;
}

int main(int argc, char **argv)
{
	int opt, failed = 0, ran = 0;
	size_t i;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((opt = getopt(argc, argv, "v")) != -1) {
		switch (opt) {
		case 'v':
			verbose = true;
			break;
		default:
			fprintf(stderr, "usage: %s [-v] [SUBTEST...]\n", argv[0]);
			return 2;
		}
	}
	libbpf_set_print(print_fn);
	printf("%s: libbpf %s (the base tree's, 6.12)\n", TEST_NAME, libbpf_version_string());
	for (i = 0; i < ARRAY_SIZE(subtests); i++) {
		if (!selected(argc, argv, subtests[i].name))
			continue;
		cur_test = subtests[i].name;
		cur_failed = false;
		subtests[i].fn();
		printf("#%d/%zu %s/%s:%s\n", TEST_NUM, i + 1, TEST_NAME, cur_test,
		       cur_failed ? "FAIL" : "OK");
		failed += cur_failed;
		ran++;
	}
	printf("#%d %s:%s\n", TEST_NUM, TEST_NAME, failed || !ran ? "FAIL" : "OK");
	printf("%s: %d of %d subtests passed\n", TEST_NAME, ran - failed, ran);
	return failed || !ran ? 1 : 0;
}
