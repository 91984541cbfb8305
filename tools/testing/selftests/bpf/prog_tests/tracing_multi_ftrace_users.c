// SPDX-License-Identifier: GPL-2.0
/*
 * ftrace's other users see each call once while links change.
 *
 * A link attach or detach moves functions between shared images through
 * ftrace's list function; ftrace's other users of the same functions walk
 * that list too. Each must see every call exactly once, never twice nor
 * not at all: this thread calls bpf_fentry_test1 N times (BPF_PROG_TEST_RUN
 * of an fentry program) while another thread attaches and detaches a
 * fentry.multi link on it, beside one that stays on bpf_fentry_test1..9.
 * Counted, for this thread only: the function tracer of a tracefs instance
 * (set_ftrace_filter, set_ftrace_pid; its trace's lines), a kprobe (on
 * x86-64 an ftrace-based one, [FTRACE] in <debugfs>/kprobes/list) and,
 * where the kernel has fprobe (not arm64 in 6.12), a kprobe.multi program.
 * There, a third thread also attaches and detaches a kprobe.multi program
 * on bpf_fentry_test1 in a loop, so that ftrace ops also come while a link
 * operation is under way; it must never see one call twice (the same count
 * of the link that stays, which runs after it on each call).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include "tracing_multi_common.h"
#include "tracing_multi_ftrace_users.skel.h"

#define INSTANCE	"/sys/kernel/tracing/instances/tracing_multi_users"
/*
 * The churn link's attach and detach rounds: CHURN_ROUNDS, or those that
 * start within CHURN_SECS (at least one). A round takes mostly grace
 * periods, which the test does not control: 1 to 1.5 s under TCG, where
 * x86-64 (with the kprobe.multi thread) does about 80 within CHURN_SECS.
 */
#define CHURN_ROUNDS	100
#define CHURN_SECS	120
/* calls back to back up to this many (the trace buffer holds them), then paced */
#define MAX_BURST	200000

struct churn_ctx {
	struct tracing_multi_ftrace_users *skel;
	int rounds, err;
	bool done;	/* __atomic: the caller reads it */
};

struct dup_ctx {
	struct churn_ctx *churn;
	int rounds, err;
};

/* kprobe.multi links on bpf_fentry_test1 come and go while the churn runs */
static void *dup_thread(void *arg)
{
	struct dup_ctx *d = arg;
	struct bpf_link *link;

	while (!__atomic_load_n(&d->churn->done, __ATOMIC_ACQUIRE)) {
		link = bpf_program__attach_kprobe_multi_opts(d->churn->skel->progs.dup_check,
							     "bpf_fentry_test1", NULL);
		d->err = libbpf_get_error(link);
		if (d->err)
			break;
		bpf_link__destroy(link);
		d->rounds++;
	}
	return NULL;
}

static void *churn_thread(void *arg)
{
	double end = tracing_multi_now() + CHURN_SECS;
	struct churn_ctx *c = arg;
	struct bpf_link *link;

	for (c->rounds = 0; c->rounds < CHURN_ROUNDS; c->rounds++) {
		if (c->rounds && tracing_multi_now() >= end)
			break;
		link = bpf_program__attach_tracing_multi(c->skel->progs.churn,
							 "bpf_fentry_test1", NULL);
		c->err = libbpf_get_error(link);
		if (c->err)
			break;
		bpf_link__destroy(link);
	}
	__atomic_store_n(&c->done, true, __ATOMIC_RELEASE);
	return NULL;
}

static int instance_write(const char *name, const char *val)
{
	char path[256];
	FILE *f;
	int err;

	snprintf(path, sizeof(path), INSTANCE "/%s", name);
	f = fopen(path, "w");
	if (!f)
		return -errno;
	err = fputs(val, f) < 0 ? -EIO : 0;
	if (fclose(f) && !err)
		err = -errno;
	return err;
}

/*
 * Lines of the instance's trace for bpf_fentry_test1; -1 if the buffer
 * lost entries (its header: "entries-in-buffer/entries-written: X/Y").
 */
static long trace_count(void)
{
	long n = 0, in = -1, written = -2;
	char line[512], *p;
	FILE *f;

	f = fopen(INSTANCE "/trace", "r");
	if (!ASSERT_OK_PTR(f, "open trace"))
		return -1;
	while (fgets(line, sizeof(line), f)) {
		p = strstr(line, "entries-in-buffer/entries-written:");
		if (p)
			sscanf(p, "entries-in-buffer/entries-written: %ld/%ld", &in, &written);
		if (line[0] != '#' && strstr(line, " bpf_fentry_test1 <-"))
			n++;
	}
	fclose(f);
	return ASSERT_EQ(in, written, "trace buffer lost no entry") ? n : -1;
}

#if defined(__x86_64__)
/* Whether <debugfs>/kprobes/list shows the kprobe on bpf_fentry_test1 ftrace-based. */
static bool kprobe_on_ftrace(void)
{
	FILE *f = fopen("/sys/kernel/debug/kprobes/list", "r");
	char line[256];
	bool ret = false;

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "bpf_fentry_test1") && strstr(line, "[FTRACE]"))
			ret = true;
	fclose(f);
	return ret;
}
#endif

void test_tracing_multi_ftrace_users(void)
{
	struct bpf_link *stay = NULL, *kprobe = NULL, *kmulti = NULL;
	struct tracing_multi_ftrace_users *skel = NULL;
	struct churn_ctx churn = {};
	struct dup_ctx dup = { .churn = &churn };
	bool churn_started = false, dup_started = false;
	long calls = 0, traced;
	pthread_t churn_tid, dup_tid;
	char buf[32];
	int err;

	if (mkdir(INSTANCE, 0755) && !ASSERT_EQ(errno, EEXIST, "mkdir instance"))
		return;
	skel = tracing_multi_ftrace_users__open_and_load();
	if (!ASSERT_OK_PTR(skel, "open_and_load"))
		goto out;
	skel->bss->tid = syscall(SYS_gettid);

	/* the function tracer, on this thread's bpf_fentry_test1 only */
	snprintf(buf, sizeof(buf), "%d\n", skel->bss->tid);
	if (!ASSERT_OK(instance_write("set_ftrace_filter", "bpf_fentry_test1\n"), "filter") ||
	    !ASSERT_OK(instance_write("set_ftrace_pid", buf), "pid") ||
	    !ASSERT_OK(instance_write("buffer_size_kb", "16384\n"), "buffer size") ||
	    !ASSERT_OK(instance_write("current_tracer", "function\n"), "function tracer") ||
	    !ASSERT_OK(instance_write("tracing_on", "1\n"), "tracing on"))
		goto out;

	kprobe = bpf_program__attach(skel->progs.kprobe_count);
	if (!ASSERT_OK_PTR(kprobe, "attach kprobe"))
		goto out;
#if defined(__x86_64__)
	ASSERT_TRUE(kprobe_on_ftrace(), "kprobe is ftrace-based");
#endif
	kmulti = bpf_program__attach_kprobe_multi_opts(skel->progs.kprobe_multi_count,
						       "bpf_fentry_test1", NULL);
	err = libbpf_get_error(kmulti);
	if (err) {
		kmulti = NULL;
		/* 6.12 arm64 has no fprobe */
		if (!ASSERT_EQ(err, -EOPNOTSUPP, "attach kprobe.multi"))
			goto out;
		printf("%s: no kprobe.multi (%d)\n", __func__, err);
	}
	stay = bpf_program__attach_tracing_multi(skel->progs.stay, "bpf_fentry_test?", NULL);
	if (!ASSERT_OK_PTR(stay, "attach the link that stays"))
		goto out;

	churn.skel = skel;
	if (!ASSERT_OK(pthread_create(&churn_tid, NULL, churn_thread, &churn), "churn thread"))
		goto out;
	churn_started = true;
	if (kmulti) {
		if (!ASSERT_OK(pthread_create(&dup_tid, NULL, dup_thread, &dup), "dup thread"))
			goto out;
		dup_started = true;
	}
	/* until the churn is done, and at least CHURN_ROUNDS calls */
	while (!__atomic_load_n(&churn.done, __ATOMIC_ACQUIRE) || calls < CHURN_ROUNDS) {
		fentry_test_run(skel->progs.trigger);
		if (++calls >= MAX_BURST)
			usleep(1000);
	}
	pthread_join(churn_tid, NULL);
	churn_started = false;
	if (dup_started)
		pthread_join(dup_tid, NULL);
	dup_started = false;
	ASSERT_OK(dup.err, "kprobe.multi attach in a loop");
	ASSERT_OK(churn.err, "churn attach");

	instance_write("tracing_on", "0\n");
	traced = trace_count();
	printf("%s: %ld calls, %d rounds: tracer %ld, kprobe %llu, kprobe.multi %lld\n",
	       __func__, calls, churn.rounds, traced, skel->bss->kprobe_hits,
	       kmulti ? (long long)skel->bss->kprobe_multi_hits : -1LL);
	ASSERT_EQ(traced, calls, "function tracer count");
	ASSERT_EQ(skel->bss->kprobe_hits, calls, "kprobe count");
	if (kmulti) {
		printf("%s: kprobe.multi in a loop: %d links, %llu runs, %llu seen twice\n",
		       __func__, dup.rounds, skel->bss->dup_runs, skel->bss->dup_hits);
		ASSERT_EQ(skel->bss->kprobe_multi_hits, calls, "kprobe.multi count");
		ASSERT_EQ(skel->bss->dup_hits, 0, "kprobe.multi in a loop: no call seen twice");
	}
out:
	if (churn_started) {
		/* the dup thread stops with it */
		__atomic_store_n(&churn.done, true, __ATOMIC_RELEASE);
		pthread_join(churn_tid, NULL);
	}
	if (dup_started)
		pthread_join(dup_tid, NULL);
	bpf_link__destroy(stay);
	bpf_link__destroy(kmulti);
	bpf_link__destroy(kprobe);
	instance_write("current_tracer", "nop\n");
	instance_write("set_ftrace_pid", "\n");
	instance_write("set_ftrace_filter", "\n");
	tracing_multi_ftrace_users__destroy(skel);
	ASSERT_OK(rmdir(INSTANCE), "rmdir instance");
}
