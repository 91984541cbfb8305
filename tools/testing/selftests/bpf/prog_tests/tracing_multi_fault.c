// SPDX-License-Identifier: GPL-2.0
/*
 * fentry.multi and co. while the kernel's allocations fail (fault
 * injection): the allocations one attach, or one detach, makes fail one at
 * a time, the 1st, the 2nd, ... (the task's fail-nth, through failslab and
 * fail_page_alloc) until the operation makes no more.
 *
 * - Every failed attach returns -ENOMEM and changes nothing: the
 *   trampolines the kernel lists are those of before, the programs that
 *   were attached still run once per call, the new one never.
 * - The same for the first multi link on those functions (attach_first):
 *   its attach creates their trampolines (the ordinary program's function
 *   has one, attached again before each attempt) and what multi links
 *   keep of each function.
 * - Every detach completes: the program no longer runs, the others still
 *   do, and once the kernel has tidied up, its trampolines are those of
 *   before.
 * - The same, failed attach and completed detach, for an ordinary
 *   program on a function that has multi links.
 * - A detach in which every allocation fails completes too; the images it
 *   leaves are tidied up later, and the trampolines return to those of
 *   before.
 * - Link info with arrays (sorted by id for each call) fails with -ENOMEM
 *   without memory, and gives the ids once it has memory again.
 * - None of them waits for a grace period with tramp_multi_mutex held,
 *   which every ordinary attach beside multi links takes (fentry programs
 *   on the synchronize_rcu*() functions count them).
 * - With kmemleak (CONFIG_VARIANT=kasan), nothing of this leaks.
 *
 * An ordinary fentry program on bpf_fentry_test2 gives that function an
 * image of its own, and a multi link attached first is moved between
 * images by every operation, so all three kinds of route are exercised.
 */
#include <sys/mman.h>
#include <test_progs.h>
#include "trace_helpers.h"
#include "tracing_multi_common.h"
#include "tracing_multi_fault.skel.h"

/* bpf_fentry_test1..3: one, two and three arguments */
#define FAULT_FUNCS	3
#define FAULT_MAX_NTH	4000
#define TRAMPS		"/sys/kernel/debug/bpf_multi_trampolines"
#define KMEMLEAK	"/sys/kernel/debug/kmemleak"

static int nth_fd = -1;
/* how often the multi link that stays runs per call: 0 while there is none */
static __u64 keep_runs;

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif

/*
 * Map in every page of this process's file mappings (its code and its
 * libraries'), which the guest reads over 9p: a page fault that reads
 * one while fail-nth is armed fails where the test does not look, and a
 * 9p read that fails may not recover.
 */
static void populate_file_maps(void)
{
	unsigned long start, end;
	char line[512], perms[8];
	long ino;
	FILE *f;

	f = fopen("/proc/self/maps", "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx %7s %*s %*s %ld", &start, &end, perms, &ino) != 4)
			continue;
		if (ino && perms[0] == 'r')
			madvise((void *)start, end - start, MADV_POPULATE_READ);
	}
	fclose(f);
}

/* Only this task's fail-nth makes allocations fail (fault_knobs_set()). */
static int fault_setup(void)
{
	if (nth_fd >= 0)
		return 0;
	populate_file_maps();
	if (fault_knobs_set())
		return -1;
	nth_fd = open("/proc/thread-self/fail-nth", O_RDWR);
	if (!ASSERT_GE(nth_fd, 0, "open fail-nth"))
		return -1;
	return 0;
}

/* Make the @n-th fault injection point of this task fail. */
static void fault_arm(unsigned int n)
{
	char buf[16];
	int len = snprintf(buf, sizeof(buf), "%u", n);

	ASSERT_EQ(pwrite(nth_fd, buf, len, 0), len, "arm fail-nth");
}

/* Disarm; whether the armed failure happened (fail-nth counted down to 0). */
static bool fault_fired(void)
{
	char buf[16] = {};
	bool fired;

	fired = pread(nth_fd, buf, sizeof(buf) - 1, 0) > 0 && atoi(buf) == 0;
	ASSERT_EQ(pwrite(nth_fd, "0", 1, 0), 1, "disarm fail-nth");
	return fired;
}

/*
 * What the kernel lists of its multi trampolines, as malloc'ed text: one
 * block per image (its line, then its functions), in sorted order and
 * without the shared images' ids, which change when an image is rebuilt.
 */
static char *tramps_snapshot(void)
{
	char *line = NULL, **blocks = NULL, **tmp, *out = NULL, *id_end;
	size_t len = 0, nr = 0, size = 1, i;
	FILE *f = fopen(TRAMPS, "r");

	if (!ASSERT_OK_PTR(f, "open " TRAMPS))
		return NULL;
	while (getline(&line, &len, f) > 0) {
		char *text = line, *block;

		id_end = strchr(line + 7, ' ');
		if (!strncmp(line, "shared ", 7) && id_end)
			text = id_end + 1;
		if (line[0] == '\t' && nr) {
			block = blocks[nr - 1];
			if (asprintf(&blocks[nr - 1], "%s%s", block, text) < 0)
				goto out;
			free(block);
			continue;
		}
		tmp = realloc(blocks, (nr + 1) * sizeof(*blocks));
		if (!tmp)
			goto out;
		blocks = tmp;
		blocks[nr] = strdup(text);
		if (!blocks[nr])
			goto out;
		nr++;
	}
	qsort(blocks, nr, sizeof(*blocks), tracing_multi_cmp_str);
	for (i = 0; i < nr; i++)
		size += strlen(blocks[i]);
	out = calloc(1, size);
	for (i = 0; out && i < nr; i++)
		strcat(out, blocks[i]);
out:
	for (i = 0; blocks && i < nr; i++)
		free(blocks[i]);
	free(blocks);
	free(line);
	fclose(f);
	return out;
}

/* Wait until the kernel's list is @want again (tidying is deferred). */
static bool tramps_back_to(const char *want)
{
	char *now = NULL;
	int i;

	for (i = 0; i < 100; i++) {
		free(now);
		now = tramps_snapshot();
		if (!now || !strcmp(now, want))
			break;
		usleep(100000);
	}
	if (now && strcmp(now, want))
		printf("trampolines before:\n%s\nnow:\n%s\n", want, now);
	i = now && !strcmp(now, want);
	free(now);
	return i;
}

static void reset_counts(struct tracing_multi_fault *skel)
{
	memset(skel->bss->keep_hits, 0, sizeof(skel->bss->keep_hits));
	memset(skel->bss->entry_hits, 0, sizeof(skel->bss->entry_hits));
	memset(skel->bss->exit_hits, 0, sizeof(skel->bss->exit_hits));
	skel->bss->plain_hits = 0;
}

/* One call of each function: @prog_hits says how often @prog ran for each. */
static bool calls_counted(struct tracing_multi_fault *skel, __u64 *hits, __u64 want,
			  const char *what, int nth)
{
	int i;

	reset_counts(skel);
	fentry_test_run(skel->progs.fi_plain);
	for (i = 1; i <= FAULT_FUNCS; i++) {
		if (skel->bss->keep_hits[i] != keep_runs || hits[i] != want) {
			printf("%s, allocation %d failed: bpf_fentry_test%d: ", what, nth, i);
			printf("keep %llu, %s %llu (want %llu)\n", skel->bss->keep_hits[i], what,
			       hits[i], want);
			return false;
		}
	}
	if (skel->bss->plain_hits != 1) {
		printf("%s, allocation %d failed: ordinary program ran %llu times\n",
		       what, nth, skel->bss->plain_hits);
		return false;
	}
	return true;
}

/* The programs loaded, counting calls from this process only. */
static struct tracing_multi_fault *fault_skel_load(void)
{
	struct tracing_multi_fault *skel;

	skel = tracing_multi_fault__open();
	if (!ASSERT_OK_PTR(skel, "open"))
		return NULL;
	if (!ASSERT_OK(tracing_multi_fault__load(skel), "load")) {
		tracing_multi_fault__destroy(skel);
		return NULL;
	}
	skel->bss->pid = getpid();
	return skel;
}

/* The skeleton, the link that stays (@with_keep) and the ordinary program. */
static struct tracing_multi_fault *fault_prepare(__u32 *ids, struct bpf_link **keep,
						 struct bpf_link **plain, bool with_keep)
{
	LIBBPF_OPTS(bpf_tracing_multi_opts, opts);
	struct tracing_multi_fault *skel;

	if (fault_setup() || fentry_test_ids(ids))
		return NULL;
	skel = fault_skel_load();
	if (!skel)
		return NULL;
	opts.ids = ids;
	opts.cnt = FAULT_FUNCS;
	keep_runs = with_keep;
	if (with_keep)
		*keep = bpf_program__attach_tracing_multi(skel->progs.fi_keep, NULL, &opts);
	*plain = bpf_program__attach(skel->progs.fi_plain);
	if ((with_keep && !ASSERT_OK_PTR(*keep, "attach keep")) ||
	    !ASSERT_OK_PTR(*plain, "attach plain")) {
		bpf_link__destroy(*keep);
		bpf_link__destroy(*plain);
		tracing_multi_fault__destroy(skel);
		return NULL;
	}
	return skel;
}

/* The trampolines back to @before (the kernel may tidy them later), then free. */
static void fault_finish(struct tracing_multi_fault *skel, struct bpf_link *keep,
			 struct bpf_link *plain, char *before)
{
	ASSERT_TRUE(before && tramps_back_to(before), "trampolines as before");
	free(before);
	bpf_link__destroy(plain);
	bpf_link__destroy(keep);
	tracing_multi_fault__destroy(skel);
}

/* The ordinary program attached again: its function gets a new trampoline. */
static int fault_replug(struct tracing_multi_fault *skel, struct bpf_link **plain)
{
	bpf_link__destroy(*plain);
	*plain = bpf_program__attach(skel->progs.fi_plain);
	if (!ASSERT_OK_PTR(*plain, "attach plain again")) {
		*plain = NULL;
		return -1;
	}
	return 0;
}

static int link_fexit_multi(struct tracing_multi_fault *skel, __u32 *ids)
{
	LIBBPF_OPTS(bpf_link_create_opts, opts);

	opts.tracing_multi.ids = ids;
	opts.tracing_multi.cnt = FAULT_FUNCS;
	return bpf_link_create(bpf_program__fd(skel->progs.fi_exit), 0,
			       BPF_TRACE_FEXIT_MULTI, &opts);
}

/* Print what @w counted in @what: none of it with tramp_multi_mutex held. */
static void waits_check(struct tracing_multi_waits *w, const char *what)
{
	int waits, held;

	if (tracing_multi_waits_read(w, &waits, &held))
		return;
	printf("%s: %d grace periods waited for, %d with tramp_multi_mutex held\n",
	       what, waits, held);
	ASSERT_EQ(held, 0, "grace periods waited for under tramp_multi_mutex");
}

/*
 * An fexit.multi attach (new images, the kept link moved, the function of
 * the ordinary program rebuilt) with its 1st, 2nd, ... allocation failing.
 * @first: with no link that stays, so that the attach makes the functions'
 * trampolines and multi state too.
 */
static void test_attach(bool first)
{
	struct bpf_link *keep = NULL, *plain = NULL;
	struct tracing_multi_fault *skel;
	__u32 ids[NR_FUNCS];
	struct tracing_multi_waits *waits = NULL;
	char *before, *after;
	int n, fd, failed = 0;
	bool fired;

	skel = fault_prepare(ids, &keep, &plain, !first);
	if (!skel)
		return;
	before = tramps_snapshot();
	waits = tracing_multi_waits_start();
	if (!waits)
		goto out;
	for (n = 1; before && n <= FAULT_MAX_NTH; n++) {
		/* a new trampoline for the ordinary program, without multi state */
		if (first && fault_replug(skel, &plain))
			break;
		fault_arm(n);
		fd = link_fexit_multi(skel, ids);
		fired = fault_fired();
		if (fd >= 0) {
			/* done, or a failure the kernel could take */
			if (!calls_counted(skel, skel->bss->exit_hits, 1, "attached fexit", n)) {
				close(fd);
				break;
			}
			close(fd);
			if (!fired)
				break;
			continue;
		}
		failed++;
		if (!ASSERT_EQ(fd, -ENOMEM, "failed attach: errno") ||
		    !ASSERT_TRUE(fired, "failed attach: a fault was injected")) {
			printf("allocation %d failed\n", n);
			break;
		}
		after = tramps_snapshot();
		if (!ASSERT_OK_PTR(after, "failed attach: trampolines") ||
		    !ASSERT_STREQ(after, before, "failed attach: trampolines unchanged")) {
			free(after);
			break;
		}
		free(after);
		if (!ASSERT_TRUE(calls_counted(skel, skel->bss->exit_hits, 0, "failed fexit", n),
				 "failed attach: nothing new attached"))
			break;
	}
	ASSERT_GT(failed, 0, "attaches failed");
	ASSERT_LT(n, FAULT_MAX_NTH, "attach completed");
	printf("attach%s: %d failed (1 allocation each), completed at allocation %d\n",
	       first ? "_first" : "", failed, n);
	/* a failed attach waits once it has released the mutex */
	waits_check(waits, first ? "attach_first" : "attach");
out:
	tracing_multi_waits_end(waits);
	fault_finish(skel, keep, plain, before);
}

/*
 * An fexit.multi detach (the last fd closed) with its 1st, 2nd, ...
 * allocation failing: it completes every time.
 */
static void test_detach(void)
{
	struct bpf_link *keep = NULL, *plain = NULL;
	struct tracing_multi_waits *waits = NULL;
	struct tracing_multi_fault *skel;
	__u32 ids[NR_FUNCS];
	int n, fd, faulted = 0;
	char *before;
	bool fired;

	skel = fault_prepare(ids, &keep, &plain, true);
	if (!skel)
		return;
	before = tramps_snapshot();
	waits = tracing_multi_waits_start();
	if (!waits)
		goto out;
	for (n = 1; before && n <= FAULT_MAX_NTH; n++) {
		fd = link_fexit_multi(skel, ids);
		if (!ASSERT_GE(fd, 0, "attach"))
			break;
		if (!calls_counted(skel, skel->bss->exit_hits, 1, "attached fexit", n))
			break;
		fault_arm(n);
		close(fd);
		fired = fault_fired();
		if (!ASSERT_TRUE(calls_counted(skel, skel->bss->exit_hits, 0, "detached fexit", n),
				 "detach completed"))
			break;
		if (!fired)
			break;
		faulted++;
	}
	ASSERT_GT(faulted, 0, "detaches with a failed allocation");
	ASSERT_LT(n, FAULT_MAX_NTH, "detach completed without a failure");
	printf("detach: %d with a failed allocation, completed at allocation %d\n", faulted, n);
	waits_check(waits, "detach");
out:
	tracing_multi_waits_end(waits);
	fault_finish(skel, keep, plain, before);
}

/*
 * The detach of an ordinary fentry program on a function that has a multi
 * link (its image runs both) with its 1st, 2nd, ... allocation failing.
 */
static void test_detach_ordinary(void)
{
	struct bpf_link *keep = NULL, *plain = NULL;
	struct tracing_multi_waits *waits = NULL;
	struct tracing_multi_fault *skel;
	__u32 ids[NR_FUNCS];
	int n, faulted = 0;
	char *before;
	bool fired;

	skel = fault_prepare(ids, &keep, &plain, true);
	if (!skel)
		return;
	bpf_link__destroy(plain);
	before = tramps_snapshot();
	waits = tracing_multi_waits_start();
	if (!waits)
		goto out;
	for (n = 1; before && n <= FAULT_MAX_NTH; n++) {
		plain = bpf_program__attach(skel->progs.fi_plain);
		if (!ASSERT_OK_PTR(plain, "attach plain"))
			break;
		fault_arm(n);
		bpf_link__destroy(plain);	/* close() */
		fired = fault_fired();
		reset_counts(skel);
		fentry_test_run(skel->progs.fi_plain);
		if (!ASSERT_EQ(skel->bss->plain_hits, 0, "ordinary program detached") ||
		    !ASSERT_EQ(skel->bss->keep_hits[2], 1, "multi link still runs")) {
			printf("allocation %d failed\n", n);
			break;
		}
		if (!fired)
			break;
		faulted++;
	}
	ASSERT_GT(faulted, 0, "detaches with a failed allocation");
	ASSERT_LT(n, FAULT_MAX_NTH, "detach completed without a failure");
	printf("detach_ordinary: %d with a failed allocation, completed at allocation %d\n",
	       faulted, n);
	waits_check(waits, "detach_ordinary");
out:
	tracing_multi_waits_end(waits);
	fault_finish(skel, keep, NULL, before);
}

/*
 * An ordinary fentry attach on a function with a multi link, with its
 * 1st, 2nd, ... allocation failing: it fails with -ENOMEM and changes
 * nothing, or attaches. Its function is rerouted with the multi link's:
 * a failure once the new image was live (in ftrace's update) waits for it
 * after the mutexes, before the program can go, as a failed multi attach
 * does (bpf_tramp_multi_unlock()).
 */
static void test_attach_ordinary(void)
{
	struct bpf_link *keep = NULL, *plain = NULL;
	struct tracing_multi_waits *waits = NULL;
	int n, fd, failed = 0, waited = 0;
	struct tracing_multi_fault *skel;
	int nwaits, nwaits0, held;
	char *before, *after;
	__u32 ids[NR_FUNCS];
	bool fired;

	skel = fault_prepare(ids, &keep, &plain, true);
	if (!skel)
		return;
	bpf_link__destroy(plain);
	before = tramps_snapshot();
	waits = tracing_multi_waits_start();
	if (!waits)
		goto out;
	for (n = 1; before && n <= FAULT_MAX_NTH; n++) {
		/* the last detach's images tidied, as they were */
		if (!ASSERT_TRUE(tramps_back_to(before), "trampolines as before"))
			break;
		tracing_multi_waits_read(waits, &nwaits0, &held);
		fault_arm(n);
		fd = bpf_link_create(bpf_program__fd(skel->progs.fi_plain), 0,
				     BPF_TRACE_FENTRY, NULL);
		fired = fault_fired();
		reset_counts(skel);
		fentry_test_run(skel->progs.fi_plain);
		if (fd >= 0) {
			close(fd);
			if (!ASSERT_EQ(skel->bss->plain_hits, 1, "ordinary program attached") ||
			    !ASSERT_EQ(skel->bss->keep_hits[2], 1, "multi link still runs") ||
			    !fired)
				break;
			continue;
		}
		failed++;
		if (!tracing_multi_waits_read(waits, &nwaits, &held))
			waited += nwaits > nwaits0;
		after = tramps_snapshot();
		if (!ASSERT_EQ(fd, -ENOMEM, "failed attach: errno") ||
		    !ASSERT_TRUE(fired, "failed attach: a fault was injected") ||
		    !ASSERT_OK_PTR(after, "failed attach: trampolines") ||
		    !ASSERT_STREQ(after, before, "failed attach: trampolines unchanged") ||
		    !ASSERT_EQ(skel->bss->plain_hits, 0, "failed attach: not attached") ||
		    !ASSERT_EQ(skel->bss->keep_hits[2], 1, "failed attach: multi link runs")) {
			printf("allocation %d failed\n", n);
			free(after);
			break;
		}
		free(after);
	}
	ASSERT_GT(failed, 0, "attaches failed");
	ASSERT_LT(n, FAULT_MAX_NTH, "attach completed");
	printf("attach_ordinary: %d failed, %d of them waited, completed at allocation %d\n",
	       failed, waited, n);
	waits_check(waits, "attach_ordinary");
	/* some failed once the image was live: they waited, without the mutexes */
	if (!tracing_multi_waits_read(waits, &nwaits, &held))
		ASSERT_GT(waited, 0, "failed attaches that waited for their images");
out:
	tracing_multi_waits_end(waits);
	fault_finish(skel, keep, NULL, before);
}

/*
 * A detach in which every allocation fails: the link's programs are
 * jumped over where they are (debugfs says "dead" or "stale"), the
 * program stops at once, and the kernel routes the functions again later.
 */
static void test_detach_deferred(void)
{
	struct bpf_link *keep = NULL, *plain = NULL;
	struct tracing_multi_fault *skel;
	char *before, *now = NULL;
	struct tracing_multi_waits *waits = NULL;
	int nwaits, held;
	__u32 ids[NR_FUNCS];
	int fd;

	skel = fault_prepare(ids, &keep, &plain, true);
	if (!skel)
		return;
	before = tramps_snapshot();
	fd = link_fexit_multi(skel, ids);
	if (!before || !ASSERT_GE(fd, 0, "attach") ||
	    !calls_counted(skel, skel->bss->exit_hits, 1, "attached fexit", 0))
		goto out;
	waits = tracing_multi_waits_start();
	if (!waits || multi_tidy_hold(true) || fault_all_set(true))
		goto out;
	close(fd);
	fd = -1;
	fault_all_set(false);
	/* the link's release work waits for the grace periods, not the close */
	if (!tracing_multi_waits_read(waits, &nwaits, &held)) {
		ASSERT_EQ(nwaits, 0, "grace periods the close waited for");
		ASSERT_EQ(held, 0, "of them with tramp_multi_mutex held");
	}
	tracing_multi_waits_end(waits);
	waits = NULL;
	ASSERT_TRUE(calls_counted(skel, skel->bss->exit_hits, 0, "detached fexit", 0),
		    "detached without memory");
	now = tramps_snapshot();
	ASSERT_TRUE(now && (strstr(now, "dead args=") || strstr(now, "own stale ")),
		    "images jump over the detached link until tidied");
	multi_tidy_hold(false);
	ASSERT_TRUE(tramps_back_to(before), "tidied: trampolines as before");
	ASSERT_TRUE(calls_counted(skel, skel->bss->exit_hits, 0, "tidied fexit", 0),
		    "calls after the tidy");
out:
	multi_tidy_hold(false);
	tracing_multi_waits_end(waits);
	if (fd >= 0)
		close(fd);
	free(now);
	free(before);
	bpf_link__destroy(plain);
	bpf_link__destroy(keep);
	tracing_multi_fault__destroy(skel);
}

/* Link info asks for memory (the ids' order): -ENOMEM, then the ids. */
static void test_link_info(void)
{
	struct bpf_link *keep = NULL, *plain = NULL;
	__u32 ids[NR_FUNCS], out[FAULT_FUNCS], len;
	struct tracing_multi_fault *skel;
	struct bpf_link_info info;
	int fd, err, i;

	skel = fault_prepare(ids, &keep, &plain, true);
	if (!skel)
		return;
	fd = link_fexit_multi(skel, ids);
	if (!ASSERT_GE(fd, 0, "attach"))
		goto out;
	memset(&info, 0, sizeof(info));
	len = sizeof(info);
	info.tracing_multi.ids = ptr_to_u64(out);
	info.tracing_multi.count = FAULT_FUNCS;
	if (fault_all_set(true))
		goto out;
	err = bpf_link_get_info_by_fd(fd, &info, &len);
	fault_all_set(false);
	ASSERT_EQ(err, -ENOMEM, "info without memory");

	memset(&info, 0, sizeof(info));
	memset(out, 0, sizeof(out));
	len = sizeof(info);
	info.tracing_multi.ids = ptr_to_u64(out);
	info.tracing_multi.count = FAULT_FUNCS;
	if (!ASSERT_OK(bpf_link_get_info_by_fd(fd, &info, &len), "info"))
		goto out;
	ASSERT_EQ(info.tracing_multi.count, FAULT_FUNCS, "count");
	for (i = 1; i < FAULT_FUNCS; i++)
		ASSERT_GT(out[i], out[i - 1], "ids sorted");
out:
	if (fd >= 0)
		close(fd);
	bpf_link__destroy(plain);
	bpf_link__destroy(keep);
	tracing_multi_fault__destroy(skel);
}

/* kmemleak's report (CONFIG_VARIANT=kasan) names no tracing_multi or trampoline object. */
static void test_kmemleak(void)
{
	static const char * const ours[] = {
		"multi", "bpf_tramp", "bpf_trampoline", "ftrace_direct", "ftrace_hash",
		"ftrace_set_filter", "bpf_link", "bpf_jit", "bpf_prog_pack",
	};
	char *report = NULL, *p;
	size_t len = 0;
	int i, leaks = 0;
	FILE *f;

	if (access(KMEMLEAK, F_OK)) {
		test__skip();
		return;
	}
	/* two scans: an object must look unreferenced twice to be reported */
	sleep(1);
	ASSERT_OK(tracing_multi_write_file(KMEMLEAK, "scan"), "kmemleak scan");
	sleep(6);
	ASSERT_OK(tracing_multi_write_file(KMEMLEAK, "scan"), "kmemleak scan again");
	f = fopen(KMEMLEAK, "r");
	if (!ASSERT_OK_PTR(f, "open kmemleak"))
		return;
	if (getdelim(&report, &len, '\0', f) < 0) {
		fclose(f);
		free(report);
		printf("kmemleak: no unreferenced object\n");
		return;
	}
	fclose(f);
	for (p = report; (p = strstr(p, "unreferenced object")); p++)
		leaks++;
	for (i = 0; i < ARRAY_SIZE(ours); i++) {
		if (strstr(report, ours[i])) {
			printf("kmemleak names %s:\n%s\n", ours[i], report);
			ASSERT_FAIL("kmemleak reports a tracing_multi or trampoline object");
			break;
		}
	}
	printf("kmemleak: %d unreferenced objects, none of ours\n", leaks);
	free(report);
}

void serial_test_tracing_multi_fault(void)
{
	if (test__start_subtest("attach"))
		test_attach(false);
	if (test__start_subtest("attach_first"))
		test_attach(true);
	if (test__start_subtest("detach"))
		test_detach();
	if (test__start_subtest("attach_ordinary"))
		test_attach_ordinary();
	if (test__start_subtest("detach_ordinary"))
		test_detach_ordinary();
	if (test__start_subtest("detach_deferred"))
		test_detach_deferred();
	if (test__start_subtest("link_info"))
		test_link_info();
	if (test__start_subtest("kmemleak"))
		test_kmemleak();
}
