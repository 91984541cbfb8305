// SPDX-License-Identifier: GPL-2.0
/*
 * Updates cost what changes, not what exists.
 *
 * grace_period: the last ordinary program of a function goes: ftrace
 * unregisters the function's ops and waits for an RCU-tasks grace period.
 * That wait must hold up no other function's attach, ordinary or multi:
 * neither tramp_multi_mutex nor ftrace's direct_mutex is held across it.
 * One CPU spins in the kernel (a BPF_PROG_TEST_RUN that runs until told
 * to stop; the test kernels have no preemption), so the detach's grace
 * period cannot end while it spins; on the other CPU a thread detaches
 * the ordinary program and the test attaches others meanwhile.
 *
 * grace_period_beside_multi: the same with a fentry.multi link on the
 * function whose ordinary program goes: that detach reroutes the function
 * under tramp_multi_mutex, and waits for the grace period only once it
 * has released the mutex.
 *
 * no_wait: a link attach that unregisters ops (a function moves from one
 * shared image to another, whose ops is new) does not wait for their
 * grace period either: ftrace hands them back after it
 * (ftrace_direct_change.release), and the images go after a rude grace
 * period of their own. With CPU 0 spinning as above, a second link on
 * the function of a first one moves the function and leaves the first
 * image's ops behind: it completes meanwhile. Both links run afterwards.
 * The first image waits to be freed until CPU 0 stops
 * (<debugfs>/bpf_tramp_images_dying counts it), and is freed then, as is
 * every image put before.
 *
 * detach_no_wait: nor does closing a link wait for the grace periods
 * after which its program may go: a work item of the link does. With CPU
 * 0 spinning as above, a link that alone holds its program is closed: the
 * close returns while CPU 0 spins, and the program stays loaded (a call
 * in flight may still be in it) until CPU 0 stops; then it goes.
 *
 * call_sites: an ordinary program attached to one function of a shared
 * image, and detached, rewrites that function's call site only (twice:
 * through ftrace's list function and back), not those of the functions
 * that stay on the image. Counted by the test kernels' ftrace
 * (CONFIG_FTRACE_DIRECT_VERIFY: <debugfs>/ftrace_call_sites_updated).
 * Nor do ftrace's updates look at other functions' records: they visit
 * the records of the functions that change, not all (tens of thousands)
 * (<debugfs>/ftrace_records_visited).
 *
 * churn: ordinary fentry and freplace attaches beside a thread that
 * attaches and detaches a link over thousands of functions in a loop:
 * they wait for no link operation (they take no tramp_multi_mutex); their
 * times with and without the thread are printed.
 *
 * exits_in_flight_{fexit,fmod_ret,fsession}: a thread sleeps in
 * bpf_testmod_multi_block() while a link that was there when it entered
 * leaves and another comes and goes: each change replaces the image the
 * call returns into. The links that stay run at exit for every call as
 * they ran at entry (an fmod_ret link's return value still applied); the
 * program of the link that left does not run at exit.
 *
 * exits_in_flight_ordinary: the same with ordinary fentry and fexit
 * programs on an ordinary trampoline (no multi link on the function), their
 * links' cookies of each form the JIT stores (block_cookies[]): on x86-64
 * the cookie's first instruction is what a detach replaces with a jump past
 * the program (bpf_arch_tramp_skip(); on arm64 it points the literal the
 * code loads the program from at one that does nothing). The link that
 * leaves takes each form in turn; four links that stay take one each and
 * check it.
 *
 * ordinary_size: an ordinary trampoline takes the kmalloc cache it took on
 * 6.12, and at most 16 bytes more: what multi links keep of a function
 * lives beside it (struct bpf_tramp_multi), behind one pointer. Read in
 * the kernel's BTF: 6.12's members come first, in 6.12's places (whatever
 * the config makes of the mutex), and end at cur_image.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include "tracing_multi_common.h"
#include "tracing_multi_updates.skel.h"
#include "tracing_multi_exits.skel.h"

struct locking_ctx {
	struct tracing_multi_updates *skel;
	struct bpf_link *link;
	int cpu;
	bool done;	/* __atomic: another thread reads it */
	pthread_t tid;	/* detach_start()'s thread, if started */
	bool started;
};

static int pin_to_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

static void *spin_thread(void *arg)
{
	LIBBPF_OPTS(bpf_test_run_opts, topts);
	struct locking_ctx *c = arg;

	if (!pin_to_cpu(c->cpu))
		bpf_prog_test_run_opts(bpf_program__fd(c->skel->progs.spin), &topts);
	__atomic_store_n(&c->done, true, __ATOMIC_RELEASE);
	return NULL;
}

static bool detached(struct locking_ctx *c)
{
	return __atomic_load_n(&c->done, __ATOMIC_ACQUIRE);
}

#define STALL_TIMEOUT	"/sys/module/rcupdate/parameters/rcu_cpu_stall_timeout"
/* CPU 0 spins this long at most, unless told to stop ... */
#define SPIN_SECS	60
/* ... while RCU warns of a CPU stalled this long (6.12's default is 21 s) */
#define SPIN_STALL_SECS	90

/*
 * CPU 0 spins (SPIN_SECS at most, unless told to stop: long enough for
 * the link operations of a loaded emulator) after RCU's stall warning is
 * put off beyond that (@stall: what it was, for spin_stop()); *@started
 * once its thread runs. Return: whether it spins.
 */
static bool spin_start(struct locking_ctx *spin, pthread_t *tid, bool *started, long *stall)
{
	char val[24];
	int i;

	*stall = tracing_multi_read_long(STALL_TIMEOUT);
	snprintf(val, sizeof(val), "%d", SPIN_STALL_SECS);
	if (!ASSERT_GT(*stall, 0, "rcu_cpu_stall_timeout") ||
	    !ASSERT_OK(tracing_multi_write_file(STALL_TIMEOUT, val), "put off RCU's stall warning"))
		return false;
	/* grace periods that start from here on take it */
	ASSERT_OK(kern_sync_rcu(), "kern_sync_rcu");
	spin->skel->bss->spin_ns = SPIN_SECS * 1000000000ULL;
	if (!ASSERT_OK(pthread_create(tid, NULL, spin_thread, spin), "spin thread"))
		return false;
	*started = true;
	for (i = 0; i < 5000 && !spin->skel->bss->spinning; i++)
		usleep(1000);
	return ASSERT_EQ(spin->skel->bss->spinning, 1, "CPU 0 spins");
}

/* Stop CPU 0's spin, if any; RCU's stall warning as before. */
static void spin_stop(struct locking_ctx *spin, pthread_t tid, bool started, long stall)
{
	char val[24];

	spin->skel->bss->stop = 1;
	if (started)
		pthread_join(tid, NULL);
	printf("CPU 0 spun %llu ms\n", (unsigned long long)spin->skel->bss->spun_ns / 1000000);
	ASSERT_FALSE(spin->skel->bss->timed_out, "spin stopped by the test");
	if (stall > 0) {
		snprintf(val, sizeof(val), "%ld", stall);
		ASSERT_OK(tracing_multi_write_file(STALL_TIMEOUT, val), "RCU's stall warning back");
	}
}

/*
 * The start of a test with CPU 0 spinning: its skeleton, with this
 * thread's CPUs in @cpus, and the tidy pass of functions that earlier
 * tests left stale (a detach that jumped over its programs) held, so that
 * none runs beside the test's link operations while CPU 0 spins. NULL if
 * the test cannot run (skipped with one CPU).
 */
static struct tracing_multi_updates *spin_test_open(cpu_set_t *cpus)
{
	struct tracing_multi_updates *skel;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2) {
		test__skip();
		return NULL;
	}
	skel = tracing_multi_updates__open_and_load();
	if (!ASSERT_OK_PTR(skel, "open_and_load"))
		return NULL;
	if (!ASSERT_OK(pthread_getaffinity_np(pthread_self(), sizeof(*cpus), cpus), "affinity") ||
	    multi_tidy_hold(true)) {
		tracing_multi_updates__destroy(skel);
		return NULL;
	}
	return skel;
}

static void *detach_thread(void *arg)
{
	struct locking_ctx *c = arg;

	pin_to_cpu(c->cpu);
	bpf_link__destroy(c->link);
	__atomic_store_n(&c->done, true, __ATOMIC_RELEASE);
	return NULL;
}

/* Close @c->link on CPU @c->cpu, in a thread of its own. */
static bool detach_start(struct locking_ctx *c)
{
	c->started = !pthread_create(&c->tid, NULL, detach_thread, c);
	return ASSERT_TRUE(c->started, "detach thread");
}

/* Wait for detach_start()'s thread, or close @c->link if it was not started. */
static void detach_end(struct locking_ctx *c)
{
	if (c->started)
		pthread_join(c->tid, NULL);
	else
		bpf_link__destroy(c->link);
}

static void test_grace_period(bool beside)
{
	struct locking_ctx spin = { .cpu = 0 }, detach = { .cpu = 1 };
	struct bpf_link *multi = NULL, *ordinary = NULL, *first = NULL;
	bool spin_started = false;
	long stall = 0;
	bool detached_before_multi, detached_before_ordinary, spun;
	struct tracing_multi_updates *skel;
	pthread_t spin_tid;
	cpu_set_t cpus;

	skel = spin_test_open(&cpus);
	if (!skel)
		return;
	spin.skel = skel;
	detach.skel = skel;
	if (beside) {
		first = bpf_program__attach_tracing_multi(skel->progs.multi, "bpf_fentry_test1",
							  NULL);
		if (!ASSERT_OK_PTR(first, "attach fentry.multi on bpf_fentry_test1"))
			goto out;
	}
	detach.link = bpf_program__attach(skel->progs.ordinary1);
	if (!ASSERT_OK_PTR(detach.link, "attach ordinary1"))
		goto out;
	if (!ASSERT_OK(pin_to_cpu(1), "pin to CPU 1"))
		goto out;

	/* bounded, in case the attaches below wait for the detach */
	if (!spin_start(&spin, &spin_tid, &spin_started, &stall))
		goto out;

	if (!detach_start(&detach))
		goto out;
	usleep(300000);
	/* the detach waits for CPU 0 */
	if (!ASSERT_FALSE(detached(&detach), "detach waits for its grace period"))
		goto out;

	multi = bpf_program__attach_tracing_multi(skel->progs.multi, "bpf_fentry_test2", NULL);
	detached_before_multi = detached(&detach);
	ordinary = bpf_program__attach(skel->progs.ordinary3);
	detached_before_ordinary = detached(&detach);
	spun = skel->bss->spinning == 1;

	ASSERT_OK_PTR(multi, "attach fentry.multi meanwhile");
	ASSERT_OK_PTR(ordinary, "attach ordinary3 meanwhile");
	ASSERT_FALSE(detached_before_multi, "fentry.multi attach did not wait for the detach");
	ASSERT_FALSE(detached_before_ordinary, "ordinary attach did not wait for the detach");
	ASSERT_TRUE(spun, "CPU 0 still spinning after the attaches");
out:
	spin_stop(&spin, spin_tid, spin_started, stall);
	detach_end(&detach);
	multi_tidy_hold(false);
	bpf_link__destroy(multi);
	bpf_link__destroy(ordinary);
	bpf_link__destroy(first);
	tracing_multi_updates__destroy(skel);
	pthread_setaffinity_np(pthread_self(), sizeof(cpus), &cpus);
}

struct move_ctx {
	struct tracing_multi_updates *skel;
	struct bpf_link *link;
	int err;
	bool done;	/* __atomic: another thread reads it */
};

/* On CPU 1: a second link on bpf_fentry_test2. */
static void *move_thread(void *arg)
{
	struct move_ctx *c = arg;

	c->err = pin_to_cpu(1);
	c->link = bpf_program__attach_tracing_multi(c->skel->progs.multi, "bpf_fentry_test2",
						    NULL);
	if (!c->err)
		c->err = libbpf_get_error(c->link);
	if (c->err)
		c->link = NULL;
	__atomic_store_n(&c->done, true, __ATOMIC_RELEASE);
	return NULL;
}

static void test_no_wait(void)
{
	LIBBPF_OPTS(bpf_test_run_opts, topts);
	struct locking_ctx spin = { .cpu = 0 };
	bool spin_started = false, move_started = false, moved, spun;
	long stall = 0;
	struct tracing_multi_updates *skel;
	struct move_ctx move = {};
	long dying = -1;
	struct bpf_link *first = NULL;
	pthread_t spin_tid, move_tid;
	cpu_set_t cpus;

	skel = spin_test_open(&cpus);
	if (!skel)
		return;
	spin.skel = skel;
	move.skel = skel;
	/* the images earlier tests put are freed: the count starts at 0 */
	if (!ASSERT_EQ(tramp_images_wait_freed(20000), 0, "images put before are freed"))
		goto out;
	first = bpf_program__attach_tracing_multi(skel->progs.multi, "bpf_fentry_test2", NULL);
	if (!ASSERT_OK_PTR(first, "attach the first link"))
		goto out;
	if (!ASSERT_OK(pin_to_cpu(1), "pin to CPU 1"))
		goto out;

	if (!spin_start(&spin, &spin_tid, &spin_started, &stall))
		goto out;

	if (!ASSERT_OK(pthread_create(&move_tid, NULL, move_thread, &move), "move thread"))
		goto out;
	move_started = true;
	/* until it is done or CPU 0 stops (after SPIN_SECS unless told) */
	do {
		usleep(10000);
		moved = __atomic_load_n(&move.done, __ATOMIC_ACQUIRE);
		spun = skel->bss->spinning == 1;
	} while (!moved && spun);
	if (moved && spun)
		dying = tramp_images_dying();
	ASSERT_TRUE(moved, "second link attached while CPU 0 spins");
	ASSERT_TRUE(spun, "CPU 0 still spinning after the link operations");
	ASSERT_GE(dying, 1, "the first image waits to be freed");
out:
	spin_stop(&spin, spin_tid, spin_started, stall);
	if (move_started) {
		pthread_join(move_tid, NULL);
		ASSERT_OK(move.err, "second link");
	}
	if (first && move.link) {
		/* bpf_fentry_test1..9 run once each: bpf_fentry_test2 runs both */
		skel->bss->multi_runs = 0;
		ASSERT_OK(bpf_prog_test_run_opts(bpf_program__fd(skel->progs.ordinary1), &topts),
			  "test_run");
		ASSERT_EQ(skel->bss->multi_runs, 2, "bpf_fentry_test2 runs both links");
	}
	bpf_link__destroy(move.link);
	if (first) {
		skel->bss->multi_runs = 0;
		ASSERT_OK(bpf_prog_test_run_opts(bpf_program__fd(skel->progs.ordinary1), &topts),
			  "test_run");
		ASSERT_EQ(skel->bss->multi_runs, 1, "bpf_fentry_test2 runs the first link");
	}
	multi_tidy_hold(false);
	bpf_link__destroy(first);
	tracing_multi_updates__destroy(skel);
	if (dying >= 0)
		ASSERT_EQ(tramp_images_wait_freed(20000), 0, "the images put are freed");
	pthread_setaffinity_np(pthread_self(), sizeof(cpus), &cpus);
}

/* Whether the program of id @id is loaded. */
static bool prog_loaded(__u32 id)
{
	int fd = bpf_prog_get_fd_by_id(id);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

static void test_detach_no_wait(void)
{
	struct locking_ctx spin = { .cpu = 0 }, detach = { .cpu = 1 };
	bool spin_started = false, closed, spun, kept;
	struct tracing_multi_updates *skel, *owner = NULL;
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);
	pthread_t spin_tid;
	long stall = 0;
	cpu_set_t cpus;
	int i;

	skel = spin_test_open(&cpus);
	if (!skel)
		return;
	spin.skel = skel;
	/* the link's program, in an object of its own: the link alone holds it */
	owner = tracing_multi_updates__open_and_load();
	if (!ASSERT_OK_PTR(owner, "open_and_load the link's program"))
		goto out;
	detach.link = bpf_program__attach_tracing_multi(owner->progs.multi, "bpf_fentry_test2",
							NULL);
	if (!ASSERT_OK_PTR(detach.link, "attach fentry.multi on bpf_fentry_test2") ||
	    !ASSERT_OK(bpf_prog_get_info_by_fd(bpf_program__fd(owner->progs.multi), &info, &len),
		       "program info"))
		goto out;
	tracing_multi_updates__destroy(owner);
	owner = NULL;
	if (!ASSERT_TRUE(prog_loaded(info.id), "the link holds its program") ||
	    !ASSERT_OK(pin_to_cpu(1), "pin to CPU 1"))
		goto out;

	if (!spin_start(&spin, &spin_tid, &spin_started, &stall))
		goto out;
	if (!detach_start(&detach))
		goto out;
	/* until it is done or CPU 0 stops; 10 s at most */
	for (i = 0; i < 1000 && !detached(&detach) && skel->bss->spinning == 1; i++)
		usleep(10000);
	closed = detached(&detach);
	kept = prog_loaded(info.id);
	spun = skel->bss->spinning == 1;
	ASSERT_TRUE(closed, "the link closed while CPU 0 spins");
	ASSERT_TRUE(spun, "CPU 0 still spinning after the close");
	ASSERT_TRUE(kept, "the program stays until the grace periods");
out:
	spin_stop(&spin, spin_tid, spin_started, stall);
	detach_end(&detach);
	/* then it goes: 20 s at most */
	for (i = 0; info.id && i < 1000 && prog_loaded(info.id); i++)
		usleep(20000);
	if (info.id)
		ASSERT_FALSE(prog_loaded(info.id), "the program goes after them");
	multi_tidy_hold(false);
	tracing_multi_updates__destroy(owner);
	tracing_multi_updates__destroy(skel);
	pthread_setaffinity_np(pthread_self(), sizeof(cpus), &cpus);
}

/* bpf_fentry_test1, 7, 8 and 9 take one argument: one shared image */
static void test_call_sites(void)
{
	LIBBPF_OPTS(bpf_test_run_opts, topts);
	struct tracing_multi_updates *skel;
	struct bpf_link *multi, *ordinary = NULL;
	long s0, s1, s2, v0, v1, v2;

	if (ftrace_sites_updated() < 0) {
		test__skip();	/* a kernel without CONFIG_FTRACE_DIRECT_VERIFY */
		return;
	}
	skel = tracing_multi_updates__open_and_load();
	if (!ASSERT_OK_PTR(skel, "open_and_load"))
		return;
	multi = bpf_program__attach_tracing_multi(skel->progs.multi, "bpf_fentry_test?", NULL);
	if (!ASSERT_OK_PTR(multi, "attach fentry.multi"))
		goto out;

	s0 = ftrace_sites_updated();
	v0 = ftrace_records_visited();
	ordinary = bpf_program__attach(skel->progs.ordinary1);
	s1 = ftrace_sites_updated();
	v1 = ftrace_records_visited();
	if (!ASSERT_OK_PTR(ordinary, "attach ordinary1"))
		goto out;
	/* bpf_fentry_test1..9 run once each */
	ASSERT_OK(bpf_prog_test_run_opts(bpf_program__fd(skel->progs.ordinary1), &topts),
		  "test_run");
	ASSERT_EQ(skel->bss->multi_runs, 9, "fentry.multi runs beside ordinary1");
	ASSERT_EQ(skel->bss->ordinary1_runs, 1, "ordinary1 runs");
	bpf_link__destroy(ordinary);
	ordinary = NULL;
	s2 = ftrace_sites_updated();
	v2 = ftrace_records_visited();
	ASSERT_OK(bpf_prog_test_run_opts(bpf_program__fd(skel->progs.ordinary1), &topts),
		  "test_run");
	ASSERT_EQ(skel->bss->multi_runs, 18, "fentry.multi runs after ordinary1 left");
	ASSERT_EQ(skel->bss->ordinary1_runs, 1, "ordinary1 detached");

	printf("%s: call sites rewritten: attach %ld, detach %ld\n", __func__,
	       s1 - s0, s2 - s1);
	ASSERT_LE(s1 - s0, 2, "attach rewrites bpf_fentry_test1 only");
	ASSERT_LE(s2 - s1, 2, "detach rewrites bpf_fentry_test1 only");
	/* two updates, each one pass (arm64) or two (x86: check, then patch) */
	printf("%s: ftrace records visited: attach %ld, detach %ld\n", __func__,
	       v1 - v0, v2 - v1);
	ASSERT_LE(v1 - v0, 16, "attach visits bpf_fentry_test1's record only");
	ASSERT_LE(v2 - v1, 16, "detach visits bpf_fentry_test1's record only");
out:
	bpf_link__destroy(ordinary);
	bpf_link__destroy(multi);
	tracing_multi_updates__destroy(skel);
}

#define CHURN_FUNCS	2000
#define LAT_ROUNDS	20

struct churn_ctx {
	struct tracing_multi_updates *skel;
	__u32 *ids;
	size_t cnt;
	bool stop;	/* __atomic: the test sets it */
	long ops;
	double secs;
	int err;
};

/* Attach and detach the churn link until told to stop. */
static void *churn_thread(void *arg)
{
	LIBBPF_OPTS(bpf_tracing_multi_opts, opts);
	struct churn_ctx *c = arg;
	struct bpf_link *link;
	double t0 = tracing_multi_now();

	opts.ids = c->ids;
	opts.cnt = c->cnt;
	while (!__atomic_load_n(&c->stop, __ATOMIC_ACQUIRE)) {
		link = bpf_program__attach_tracing_multi(c->skel->progs.churn, NULL, &opts);
		c->err = libbpf_get_error(link);
		if (c->err)
			break;
		bpf_link__destroy(link);
		c->ops += 2;
	}
	c->secs = tracing_multi_now() - t0;
	return NULL;
}

/*
 * CHURN_FUNCS functions spread over those fentry.multi takes, but
 * bpf_fentry_test*, without the ones the kernel refuses.
 */
static int churn_funcs(struct churn_ctx *c)
{
	size_t all, i, step, n = 0;
	char **names = NULL;
	__u32 *ids = NULL;
	bool *refused;

	if (tracing_multi_all_funcs(&names, &ids, &all))
		return -1;
	step = all > CHURN_FUNCS ? all / CHURN_FUNCS : 1;
	for (i = 0; i < all && n < CHURN_FUNCS; i += step) {
		if (!strncmp(names[i], "bpf_fentry_test", 15))
			continue;
		ids[n] = ids[i];
		names[n++] = names[i];
	}
	refused = calloc(n, sizeof(*refused));
	if (!ASSERT_OK_PTR(refused, "calloc"))
		return -1;
	tracing_multi_drop_refused(c->skel->progs.churn, ids, names, 0, n, refused);
	for (i = 0, all = n, n = 0; i < all; i++)
		if (!refused[i])
			ids[n++] = ids[i];
	free(refused);
	free(names);
	c->ids = ids;
	c->cnt = n;
	return ASSERT_GE(n, CHURN_FUNCS / 2, "churn functions") ? 0 : -1;
}

/* what lat_target runs on */
static char lat_pkt[64];

static void print_dist(const char *what, double *ms, int n)
{
	qsort(ms, n, sizeof(*ms), tracing_multi_cmp_double);
	printf(" %s min %.2f median %.2f p90 %.2f max %.2f;", what, ms[0], ms[n / 2],
	       ms[n * 9 / 10], ms[n - 1]);
}

/*
 * LAT_ROUNDS fentry and freplace attaches, each timed into @fentry_ms and
 * @ext_ms, each program run once attached, at random moments.
 */
static int lat_rounds(struct tracing_multi_updates *skel, struct tracing_multi_updates *ext,
		      double *fentry_ms, double *ext_ms)
{
	LIBBPF_OPTS(bpf_test_run_opts, topts, .data_in = lat_pkt, .data_size_in = sizeof(lat_pkt));
	LIBBPF_OPTS(bpf_test_run_opts, fopts);
	int tgt_fd = bpf_program__fd(skel->progs.lat_target);
	unsigned int seed = getpid();
	struct bpf_link *link;
	double t;
	int i;

	for (i = 0; i < LAT_ROUNDS; i++) {
		skel->bss->lat_fentry_runs = 0;
		t = tracing_multi_now();
		link = bpf_program__attach(skel->progs.lat_fentry);
		fentry_ms[i] = (tracing_multi_now() - t) * 1e3;
		if (!ASSERT_OK_PTR(link, "attach fentry"))
			return -1;
		ASSERT_OK(bpf_prog_test_run_opts(bpf_program__fd(skel->progs.ordinary1), &fopts),
			  "test_run");
		ASSERT_EQ(skel->bss->lat_fentry_runs, 1, "fentry ran");
		bpf_link__destroy(link);

		t = tracing_multi_now();
		link = bpf_program__attach_freplace(ext->progs.lat_ext, tgt_fd, "lat_sub");
		ext_ms[i] = (tracing_multi_now() - t) * 1e3;
		if (!ASSERT_OK_PTR(link, "attach freplace"))
			return -1;
		ASSERT_OK(bpf_prog_test_run_opts(tgt_fd, &topts), "test_run target");
		ASSERT_EQ(topts.retval, 1000, "extension ran");
		bpf_link__destroy(link);
		usleep(rand_r(&seed) % 20000);
	}
	return 0;
}

/* bpf_testmod: 1 stops the next multi attach while it plans, until 0 (reads 2 then) */
#define MULTI_HOLD	"/sys/module/bpf_testmod/parameters/multi_hold"
/* the hold ends after this in any case (the attaches of a loaded emulator) */
#define HOLD_SECS	60

struct hold_ctx {
	struct tracing_multi_updates *skel;
	struct bpf_link *link;
	int err;
	bool done;	/* __atomic: the test reads it */
};

/* A link on bpf_fentry_test2, stopped by MULTI_HOLD while it plans. */
static void *held_thread(void *arg)
{
	struct hold_ctx *c = arg;

	c->link = bpf_program__attach_tracing_multi(c->skel->progs.churn, "bpf_fentry_test2", NULL);
	c->err = libbpf_get_error(c->link);
	if (c->err)
		c->link = NULL;
	__atomic_store_n(&c->done, true, __ATOMIC_RELEASE);
	return NULL;
}

static void *release_thread(void *arg)
{
	int i;

	for (i = 0; i < HOLD_SECS * 10 && !__atomic_load_n((bool *)arg, __ATOMIC_ACQUIRE); i++)
		usleep(100 * 1000);
	tracing_multi_write_file(MULTI_HOLD, "0");
	return NULL;
}

/*
 * The attaches of lat_rounds() while a link attach holds tramp_multi_mutex
 * (stopped by bpf_testmod while it plans; released after HOLD_SECS in any
 * case). Return: whether the hold lasted through all of them.
 */
static bool lat_rounds_held(struct tracing_multi_updates *skel, struct tracing_multi_updates *ext,
			    double *fentry_ms, double *ext_ms)
{
	struct hold_ctx h = { .skel = skel };
	pthread_t tid, rtid;
	bool held = false, stop = false;
	int i, err;

	if (!ASSERT_OK(tracing_multi_write_file(MULTI_HOLD, "1"), "arm multi_hold"))
		return false;
	if (!ASSERT_OK(pthread_create(&tid, NULL, held_thread, &h), "held attach thread")) {
		tracing_multi_write_file(MULTI_HOLD, "0");
		return false;
	}
	/* as long as the hold may last: a loaded emulator may take seconds */
	for (i = 0; i < HOLD_SECS * 100 && tracing_multi_read_long(MULTI_HOLD) != 2; i++)
		usleep(10 * 1000);
	err = pthread_create(&rtid, NULL, release_thread, &stop);
	if (ASSERT_EQ(tracing_multi_read_long(MULTI_HOLD), 2,
		      "multi attach holds tramp_multi_mutex") &&
	    ASSERT_OK(err, "release thread") && !lat_rounds(skel, ext, fentry_ms, ext_ms))
		held = tracing_multi_read_long(MULTI_HOLD) == 2 &&
		       !__atomic_load_n(&h.done, __ATOMIC_ACQUIRE);
	__atomic_store_n(&stop, true, __ATOMIC_RELEASE);
	if (!err)
		pthread_join(rtid, NULL);
	tracing_multi_write_file(MULTI_HOLD, "0");
	pthread_join(tid, NULL);
	ASSERT_OK(h.err, "held link");
	bpf_link__destroy(h.link);
	return held;
}

/*
 * churn: while a thread attaches and detaches a fentry.multi link over
 * CHURN_FUNCS functions in a loop, an fentry program attaches to another
 * function and an extension program to a BPF program's function in about
 * the time they take without it: neither trampoline is multi-managed,
 * and neither waits for tramp_multi_mutex, which each link operation holds
 * while it JITs and through two ftrace updates (they may wait for ftrace's
 * direct_mutex and text_mutex meanwhile). And while a link attach holds
 * tramp_multi_mutex without using ftrace (bpf_testmod stops it), they take
 * what they take alone. A report (BENCH line): the attaches must work, and
 * the hold last through them; their times are printed.
 */
static void test_churn(void)
{
	double fentry0[LAT_ROUNDS], ext0[LAT_ROUNDS], fentry1[LAT_ROUNDS], ext1[LAT_ROUNDS];
	double fentry2[LAT_ROUNDS] = {}, ext2[LAT_ROUNDS] = {};
	struct tracing_multi_updates *skel, *ext = NULL;
	struct churn_ctx churn = {};
	struct bpf_program *prog;
	bool started = false, held;
	pthread_t tid;

	skel = tracing_multi_updates__open_and_load();
	if (!ASSERT_OK_PTR(skel, "open_and_load"))
		return;
	skel->bss->lat_pid = getpid();
	ext = tracing_multi_updates__open();
	if (!ASSERT_OK_PTR(ext, "open extension"))
		goto out;
	bpf_object__for_each_program(prog, ext->obj)
		bpf_program__set_autoload(prog, prog == ext->progs.lat_ext);
	if (!ASSERT_OK(bpf_program__set_attach_target(ext->progs.lat_ext,
						      bpf_program__fd(skel->progs.lat_target),
						      "lat_sub"), "set_attach_target") ||
	    !ASSERT_OK(tracing_multi_updates__load(ext), "load extension"))
		goto out;
	churn.skel = skel;
	if (churn_funcs(&churn))
		goto out;

	if (lat_rounds(skel, ext, fentry0, ext0))
		goto out;
	if (!ASSERT_OK(pthread_create(&tid, NULL, churn_thread, &churn), "churn thread"))
		goto out;
	started = true;
	if (lat_rounds(skel, ext, fentry1, ext1))
		goto out;
	__atomic_store_n(&churn.stop, true, __ATOMIC_RELEASE);
	pthread_join(tid, NULL);
	started = false;
	if (!ASSERT_OK(churn.err, "churn link") || !ASSERT_GT(churn.ops, 0, "churn link ops"))
		goto out;
	held = lat_rounds_held(skel, ext, fentry2, ext2);
	ASSERT_TRUE(held, "tramp_multi_mutex held through the attaches");
	printf("BENCH tracing_multi_churn: %zu functions, %ld link ops in %.1f s (%.0f ms each);",
	       churn.cnt, churn.ops, churn.secs, churn.secs * 1e3 / churn.ops);
	print_dist("fentry attach ms alone", fentry0, LAT_ROUNDS);
	print_dist("beside the link ops", fentry1, LAT_ROUNDS);
	print_dist("freplace attach ms alone", ext0, LAT_ROUNDS);
	print_dist("beside the link ops", ext1, LAT_ROUNDS);
	printf("\n");
	printf("BENCH tracing_multi_churn: a link attach holding tramp_multi_mutex%s:",
	       held ? "" : " (released before the end)");
	print_dist("fentry attach ms", fentry2, LAT_ROUNDS);
	print_dist("freplace attach ms", ext2, LAT_ROUNDS);
	printf("\n");
out:
	if (started) {
		__atomic_store_n(&churn.stop, true, __ATOMIC_RELEASE);
		pthread_join(tid, NULL);
	}
	free(churn.ids);
	tracing_multi_updates__destroy(ext);
	tracing_multi_updates__destroy(skel);
}

/* bpf_testmod: 1 makes the next bpf_testmod_multi_block() sleep (reads 2) until 0 */
#define MULTI_BLOCK	"/sys/module/bpf_testmod/parameters/multi_block"
#define BLOCK_FUNC	"bpf_testmod:bpf_testmod_multi_block"
#define BLOCK_LEN	11	/* strlen("multi_block"): the function returns it */
#define EXIT_ROUNDS	4	/* ARRAY_SIZE(block_cookies) */

enum exits_kind { EXITS_FEXIT, EXITS_FMOD_RET, EXITS_FSESSION, EXITS_ORDINARY };

struct block_ctx {
	struct tracing_multi_exits *skel;
	ssize_t ret;
};

/* One call of bpf_testmod_multi_block() from this thread; the programs count it. */
static void *block_thread(void *arg)
{
	struct block_ctx *c = arg;
	int fd = open("/sys/kernel/bpf_testmod", O_WRONLY);

	c->ret = -1;
	if (fd < 0)
		return NULL;
	c->skel->bss->tid = syscall(SYS_gettid);
	c->ret = write(fd, "multi_block", BLOCK_LEN);
	close(fd);
	return NULL;
}

/* 0, an imm32, a sign-extended imm32, an imm64 */
static const __u64 block_cookies[] = { 0, 0x1234, -1ULL, 1ULL << 40 };

/* @cookie: an ordinary program's */
static struct bpf_link *attach_block(struct bpf_program *prog, __u64 cookie)
{
	LIBBPF_OPTS(bpf_trace_opts, opts, .cookie = cookie);
	struct bpf_link *link;

	if (bpf_program__expected_attach_type(prog) == BPF_TRACE_FENTRY ||
	    bpf_program__expected_attach_type(prog) == BPF_TRACE_FEXIT)
		link = bpf_program__attach_trace_opts(prog, &opts);
	else
		link = bpf_program__attach_tracing_multi(prog, BLOCK_FUNC, NULL);

	return ASSERT_OK_PTR(link, bpf_program__name(prog)) ? link : NULL;
}

/*
 * One call in flight: it enters with churn_exit's link there, which
 * leaves while it sleeps; churn_entry's link comes and goes meanwhile.
 * Round @round's ordinary links take cookies of two forms.
 */
static int exits_round(struct tracing_multi_exits *skel, bool ordinary, int round)
{
	__u64 churn_cookie = block_cookies[round % ARRAY_SIZE(block_cookies)];
	__u64 other_cookie = block_cookies[ARRAY_SIZE(block_cookies) - 1 -
					   round % ARRAY_SIZE(block_cookies)];
	struct block_ctx c = { .skel = skel };
	struct bpf_link *churn, *other;
	int i, err = -1;
	pthread_t tid;

	churn = attach_block(ordinary ? skel->progs.ord_churn_exit : skel->progs.churn_exit,
			     churn_cookie);
	if (!churn)
		return -1;
	if (!ASSERT_OK(tracing_multi_write_file(MULTI_BLOCK, "1"), "arm multi_block") ||
	    !ASSERT_OK(pthread_create(&tid, NULL, block_thread, &c), "block thread")) {
		tracing_multi_write_file(MULTI_BLOCK, "0");
		bpf_link__destroy(churn);
		return -1;
	}
	for (i = 0; i < 3000 && tracing_multi_read_long(MULTI_BLOCK) != 2; i++)
		usleep(10 * 1000);
	if (ASSERT_EQ(tracing_multi_read_long(MULTI_BLOCK), 2, "call in flight")) {
		bpf_link__destroy(churn);
		churn = NULL;
		other = attach_block(ordinary ? skel->progs.ord_churn_entry :
						skel->progs.churn_entry, other_cookie);
		bpf_link__destroy(other);
		err = other ? 0 : -1;
	}
	tracing_multi_write_file(MULTI_BLOCK, "0");
	pthread_join(tid, NULL);
	bpf_link__destroy(churn);
	if (!ASSERT_EQ(c.ret, BLOCK_LEN, "call returned"))
		err = -1;
	return err;
}

static void test_exits_in_flight(enum exits_kind kind)
{
	struct tracing_multi_exits *skel;
	struct bpf_link *stay[4] = {};
	struct block_ctx c;
	int i, rounds = 0;

	skel = tracing_multi_exits__open_and_load();
	if (!ASSERT_OK_PTR(skel, "open_and_load"))
		return;
	switch (kind) {
	case EXITS_FEXIT:
		stay[0] = attach_block(skel->progs.stay_entry, 0);
		stay[1] = attach_block(skel->progs.stay_exit, 0);
		break;
	case EXITS_FMOD_RET:
		stay[0] = attach_block(skel->progs.stay_fmod_ret, 0);
		stay[1] = attach_block(skel->progs.stay_exit, 0);
		break;
	case EXITS_FSESSION:
		stay[0] = attach_block(skel->progs.stay_session, 0);
		stay[1] = stay[0];
		break;
	case EXITS_ORDINARY:
		for (i = 0; i < ARRAY_SIZE(block_cookies); i++)
			skel->bss->cookies[i] = block_cookies[i];
		stay[0] = attach_block(skel->progs.ord_entry, block_cookies[0]);
		stay[1] = attach_block(skel->progs.ord_exit, block_cookies[1]);
		stay[2] = attach_block(skel->progs.ord_entry_2, block_cookies[2]);
		stay[3] = attach_block(skel->progs.ord_exit_3, block_cookies[3]);
		if (!stay[2] || !stay[3])
			goto out;
		break;
	}
	if (!stay[0] || !stay[1])
		goto out;
	for (i = 0; i < EXIT_ROUNDS; i++) {
		if (exits_round(skel, kind == EXITS_ORDINARY, i))
			goto out;
		rounds++;
		if (kind != EXITS_FMOD_RET)
			continue;
		/* the fmod_ret program's value replaces the function's */
		skel->bss->fmod_ret_val = 7;
		c.skel = skel;
		block_thread(&c);
		skel->bss->fmod_ret_val = 0;
		if (!ASSERT_EQ(c.ret, 7, "fmod_ret return value"))
			goto out;
	}
	printf("in flight %d: entries %llu exits %llu fmod_ret %llu fsession %llu/%llu left %llu\n",
	       rounds, skel->bss->entries, skel->bss->exits, skel->bss->fmod_runs,
	       skel->bss->sess_entries, skel->bss->sess_exits, skel->bss->churn_exits);
	switch (kind) {
	case EXITS_FEXIT:
	case EXITS_ORDINARY:
		ASSERT_EQ(skel->bss->entries, EXIT_ROUNDS, "entries");
		ASSERT_EQ(skel->bss->exits, EXIT_ROUNDS, "exits");
		ASSERT_EQ(skel->bss->exit_rets, EXIT_ROUNDS * BLOCK_LEN, "return values at exit");
		break;
	case EXITS_FMOD_RET:
		ASSERT_EQ(skel->bss->fmod_runs, 2 * EXIT_ROUNDS, "fmod_ret runs");
		ASSERT_EQ(skel->bss->exits, 2 * EXIT_ROUNDS, "exits");
		ASSERT_EQ(skel->bss->exit_rets, EXIT_ROUNDS * (BLOCK_LEN + 7),
			  "return values at exit");
		break;
	case EXITS_FSESSION:
		ASSERT_EQ(skel->bss->sess_entries, EXIT_ROUNDS, "fsession entries");
		ASSERT_EQ(skel->bss->sess_exits, EXIT_ROUNDS, "fsession exits");
		ASSERT_EQ(skel->bss->sess_bad, 0, "fsession cookies");
		ASSERT_EQ(skel->bss->sess_rets, EXIT_ROUNDS * BLOCK_LEN, "return values at exit");
		break;
	}
	if (kind == EXITS_ORDINARY) {
		ASSERT_EQ(skel->bss->cookie_runs, 4 * EXIT_ROUNDS, "ordinary links that stay");
		ASSERT_EQ(skel->bss->cookie_bad, 0, "their cookies");
	}
	/* gone before the calls returned, attached after they entered */
	ASSERT_EQ(skel->bss->churn_exits, 0, "the left link's exits");
	ASSERT_EQ(skel->bss->churn_entries, 0, "the link that came and went");
out:
	bpf_link__destroy(stay[0]);
	if (stay[1] != stay[0])
		bpf_link__destroy(stay[1]);
	bpf_link__destroy(stay[2]);
	bpf_link__destroy(stay[3]);
	tracing_multi_exits__destroy(skel);
}

/* the kmalloc cache an allocation of @size comes from */
static __u32 kmalloc_cache(__u32 size)
{
	static const __u32 sizes[] = { 8, 16, 32, 64, 96, 128, 192, 256, 512, 1024, 2048 };
	int i;

	for (i = 0; i < ARRAY_SIZE(sizes); i++)
		if (size <= sizes[i])
			return sizes[i];
	return size;
}

static void test_ordinary_size(void)
{
	/* 6.12's struct bpf_trampoline, in order; the series adds fsession_cnt
	 * in the hole after progs_cnt
	 */
	static const char * const base_members[] = {
		"hlist", "fops", "mutex", "refcnt", "flags", "key", "func",
		"extension_prog", "progs_hlist", "progs_cnt", "cur_image",
	};
	__u32 size, off, base = 0, progs_cnt_end = 0;
	const struct btf_member *m;
	const struct btf_type *t;
	const char *name;
	struct btf *btf;
	int id, i, j = 0;

	btf = btf__load_vmlinux_btf();
	if (!ASSERT_OK_PTR(btf, "vmlinux btf"))
		return;
	id = btf__find_by_name_kind(btf, "bpf_trampoline", BTF_KIND_STRUCT);
	if (!ASSERT_GT(id, 0, "struct bpf_trampoline"))
		goto out;
	t = btf__type_by_id(btf, id);
	size = t->size;
	for (i = 0, m = btf_members(t); i < btf_vlen(t) && !base; i++, m++) {
		name = btf__name_by_offset(btf, m->name_off);
		off = btf_member_bit_offset(t, i) / 8;
		/* the series' one member before cur_image, right after progs_cnt */
		if (!strcmp(name, "fsession_cnt") && j == ARRAY_SIZE(base_members) - 1)
			continue;
		if (!ASSERT_STREQ(name, base_members[j++], "6.12's members, in order"))
			goto out;
		if (!strcmp(name, "progs_cnt")) {
			if (!ASSERT_GT(btf__resolve_size(btf, m->type), 0, "progs_cnt size"))
				goto out;
			progs_cnt_end = off + btf__resolve_size(btf, m->type);
		}
		if (!strcmp(name, "cur_image")) {
			/* nothing but the hole after progs_cnt before it */
			ASSERT_EQ(off, (progs_cnt_end + 7) & ~7U, "cur_image where 6.12 has it");
			base = off + sizeof(void *);
		}
	}
	if (!ASSERT_GT(base, 0, "cur_image"))
		goto out;
	printf("%s: struct bpf_trampoline %u bytes (kmalloc-%u), 6.12's %u (kmalloc-%u)\n",
	       __func__, size, kmalloc_cache(size), base, kmalloc_cache(base));
	ASSERT_LE(size - base, 16, "bytes after 6.12's fields");
	ASSERT_EQ(kmalloc_cache(size), kmalloc_cache(base), "kmalloc cache");
out:
	btf__free(btf);
}

void serial_test_tracing_multi_updates(void)
{
	if (test__start_subtest("grace_period"))
		test_grace_period(false);
	if (test__start_subtest("grace_period_beside_multi"))
		test_grace_period(true);
	if (test__start_subtest("no_wait"))
		test_no_wait();
	if (test__start_subtest("detach_no_wait"))
		test_detach_no_wait();
	if (test__start_subtest("call_sites"))
		test_call_sites();
	if (test__start_subtest("churn"))
		test_churn();
	if (test__start_subtest("exits_in_flight_fexit"))
		test_exits_in_flight(EXITS_FEXIT);
	if (test__start_subtest("exits_in_flight_fmod_ret"))
		test_exits_in_flight(EXITS_FMOD_RET);
	if (test__start_subtest("exits_in_flight_fsession"))
		test_exits_in_flight(EXITS_FSESSION);
	if (test__start_subtest("exits_in_flight_ordinary"))
		test_exits_in_flight(EXITS_ORDINARY);
	if (test__start_subtest("ordinary_size"))
		test_ordinary_size();
}
