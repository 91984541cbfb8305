// SPDX-License-Identifier: GPL-2.0
/* fentry.multi and co. against what could break them: tail calls between
 * multi programs that read different argument slots, extension programs,
 * live patches, an IPMODIFY user that comes without a callback.
 */
#include <sys/syscall.h>
#include <sys/wait.h>
#include <pthread.h>
#include "tracing_multi_common.h"
#include "tracing_multi_hardening.skel.h"
#include "tracing_multi_freplace.skel.h"
#include "tracing_multi_livepatch.skel.h"
#include "tracing_multi_ipmodify.skel.h"
#include "testing_helpers.h"
#include "trace_helpers.h"

static int prog_array_set(struct tracing_multi_hardening *skel, struct bpf_program *prog)
{
	__u32 key = 0;
	int fd = bpf_program__fd(prog);

	return bpf_map_update_elem(bpf_map__fd(skel->maps.jmp_table), &key, &fd, BPF_ANY);
}

/*
 * A caller that reads no argument, attached to bpf_fentry_test1 (one
 * argument), must not reach a program that reads slot 5 by a tail call:
 * the prog array takes programs that read at most what its first program
 * reads, and callers that read at least that.
 */
static void test_tail_call_caller_first(void)
{
	struct tracing_multi_hardening *skel;
	struct bpf_link *link;

	skel = tracing_multi_hardening__open_and_load();
	if (!ASSERT_OK_PTR(skel, "open_and_load"))
		return;
	skel->bss->test_pid = getpid();
	/* tc_caller (reads nothing) made the array its own at load */
	ASSERT_ERR(prog_array_set(skel, skel->progs.tc_reader5), "reader5 refused");
	ASSERT_ERR(prog_array_set(skel, skel->progs.tc_reader0), "reader0 refused");
	ASSERT_OK(prog_array_set(skel, skel->progs.tc_reader_kfunc), "kfunc reader taken");

	link = bpf_program__attach_tracing_multi(skel->progs.tc_caller, "bpf_fentry_test1", NULL);
	if (!ASSERT_OK_PTR(link, "attach caller"))
		goto out;
	fentry_test_run(skel->progs.tc_caller);
	ASSERT_EQ(skel->bss->caller_runs, 1, "caller_runs");
	ASSERT_EQ(skel->bss->reader_runs, 1, "reader_runs");
	/* the attached array cannot take the reader either */
	ASSERT_ERR(prog_array_set(skel, skel->progs.tc_reader5), "reader5 refused attached");
	fentry_test_run(skel->progs.tc_caller);
	ASSERT_EQ(skel->bss->reader_runs, 2, "reader_runs");
	ASSERT_EQ(skel->bss->reader_slot5, 0, "slot 5 never read");
	bpf_link__destroy(link);
out:
	tracing_multi_hardening__destroy(skel);
}

/* The array filled with the slot-5 reader first: a caller that reads less
 * does not load.
 */
static void test_tail_call_callee_first(void)
{
	struct tracing_multi_hardening *first = NULL, *skel = NULL;

	first = tracing_multi_hardening__open();
	if (!ASSERT_OK_PTR(first, "open first"))
		return;
	/* only the readers: the callers would make the array theirs */
	bpf_program__set_autoload(first->progs.tc_caller, false);
	bpf_program__set_autoload(first->progs.tc_caller_reads0, false);
	if (!ASSERT_OK(tracing_multi_hardening__load(first), "load first"))
		goto out;
	if (!ASSERT_OK(prog_array_set(first, first->progs.tc_reader5), "reader5 first"))
		goto out;

	skel = tracing_multi_hardening__open();
	if (!ASSERT_OK_PTR(skel, "open"))
		goto out;
	if (!ASSERT_OK(bpf_map__reuse_fd(skel->maps.jmp_table,
					 bpf_map__fd(first->maps.jmp_table)), "reuse_fd"))
		goto out;
	bpf_program__set_autoload(skel->progs.tc_caller_reads0, false);
	ASSERT_ERR(tracing_multi_hardening__load(skel), "caller reading less refused");
out:
	tracing_multi_hardening__destroy(skel);
	tracing_multi_hardening__destroy(first);
}

/* Programs reading the same slots share an array, and the call works. */
static void test_tail_call_same_reads(void)
{
	struct tracing_multi_hardening *skel;
	struct bpf_link *link;

	skel = tracing_multi_hardening__open();
	if (!ASSERT_OK_PTR(skel, "open"))
		return;
	bpf_program__set_autoload(skel->progs.tc_caller, false);
	if (!ASSERT_OK(tracing_multi_hardening__load(skel), "load"))
		goto out;
	skel->bss->test_pid = getpid();
	ASSERT_ERR(prog_array_set(skel, skel->progs.tc_reader5), "reader5 refused");
	if (!ASSERT_OK(prog_array_set(skel, skel->progs.tc_reader0), "reader0 taken"))
		goto out;
	link = bpf_program__attach_tracing_multi(skel->progs.tc_caller_reads0,
						 "bpf_fentry_test1", NULL);
	if (!ASSERT_OK_PTR(link, "attach caller"))
		goto out;
	fentry_test_run(skel->progs.tc_caller_reads0);
	ASSERT_EQ(skel->bss->caller_runs, 1, "caller_runs");
	ASSERT_EQ(skel->bss->reader_runs, 1, "reader_runs");
	ASSERT_EQ(skel->bss->reader_slot0, 1, "bpf_fentry_test1's a");
	bpf_link__destroy(link);
out:
	tracing_multi_hardening__destroy(skel);
}

/*
 * A trampoline stores the traced IP only for programs that read it, and
 * for programs that tail call: the program they reach may read it, by
 * bpf_get_func_ip() or, in a multi program, bpf_get_attach_cookie().
 */
static void test_tail_call_ip(void)
{
	LIBBPF_OPTS(bpf_tracing_multi_opts, opts);
	struct bpf_link *link = NULL, *ordinary = NULL;
	struct tracing_multi_hardening *skel;
	__u32 ids[NR_FUNCS], key = 0;
	__u64 cookie = 0x5eed, addr;
	int fd;

	if (fentry_test_ids(ids) ||
	    !ASSERT_OK(kallsyms_find("bpf_fentry_test1", &addr), "ksym bpf_fentry_test1"))
		return;
	skel = tracing_multi_hardening__open();
	if (!ASSERT_OK_PTR(skel, "open"))
		return;
	bpf_program__set_autoload(skel->progs.ip_caller, true);
	bpf_program__set_autoload(skel->progs.ip_reader, true);
	bpf_program__set_autoload(skel->progs.ip_caller_ordinary, true);
	bpf_program__set_autoload(skel->progs.ip_reader_ordinary, true);
	if (!ASSERT_OK(tracing_multi_hardening__load(skel), "load"))
		goto out;
	fd = bpf_program__fd(skel->progs.ip_reader);
	if (!ASSERT_OK(bpf_map_update_elem(bpf_map__fd(skel->maps.jmp_ip), &key, &fd, BPF_ANY),
		       "multi reader taken"))
		goto out;
	fd = bpf_program__fd(skel->progs.ip_reader_ordinary);
	if (!ASSERT_OK(bpf_map_update_elem(bpf_map__fd(skel->maps.jmp_ip_ordinary), &key, &fd,
					   BPF_ANY), "ordinary reader taken"))
		goto out;

	opts.ids = ids;		/* bpf_fentry_test1 */
	opts.cookies = &cookie;
	opts.cnt = 1;
	link = bpf_program__attach_tracing_multi(skel->progs.ip_caller, NULL, &opts);
	if (!ASSERT_OK_PTR(link, "attach multi caller"))
		goto out;
	fentry_test_run(skel->progs.ip_caller);
	ASSERT_EQ(skel->bss->ip_seen, addr, "multi reader's bpf_get_func_ip()");
	ASSERT_EQ(skel->bss->cookie_seen, cookie, "multi reader's cookie");
	bpf_link__destroy(link);
	link = NULL;

	ordinary = bpf_program__attach(skel->progs.ip_caller_ordinary);
	if (!ASSERT_OK_PTR(ordinary, "attach ordinary caller"))
		goto out;
	fentry_test_run(skel->progs.ip_caller_ordinary);
	ASSERT_EQ(skel->bss->ordinary_ip_seen, addr, "ordinary reader's bpf_get_func_ip()");
out:
	bpf_link__destroy(ordinary);
	bpf_link__destroy(link);
	tracing_multi_hardening__destroy(skel);
}

static char log_buf[64 * 1024];

/* "Cannot extend fentry/fexit" holds for the multi kinds too. */
static void test_extension(void)
{
	LIBBPF_OPTS(bpf_object_open_opts, opts, .kernel_log_buf = log_buf,
		    .kernel_log_size = sizeof(log_buf), .kernel_log_level = 1);
	struct tracing_multi_hardening *skel;
	struct tracing_multi_freplace *ext = NULL;
	int err;

	skel = tracing_multi_hardening__open_and_load();
	if (!ASSERT_OK_PTR(skel, "open_and_load"))
		return;
	ext = tracing_multi_freplace__open_opts(&opts);
	if (!ASSERT_OK_PTR(ext, "open freplace"))
		goto out;
	err = bpf_program__set_attach_target(ext->progs.replace_subprog,
					     bpf_program__fd(skel->progs.with_subprog),
					     "multi_subprog");
	if (!ASSERT_OK(err, "set_attach_target"))
		goto out;
	log_buf[0] = 0;
	ASSERT_ERR(tracing_multi_freplace__load(ext), "load freplace");
	ASSERT_HAS_SUBSTR(log_buf, "Cannot extend fentry/fexit", "verifier log");
out:
	tracing_multi_freplace__destroy(ext);
	tracing_multi_hardening__destroy(skel);
}

/* link_create.tracing_multi's tail padding must be zero. */
static void test_attr_padding(void)
{
	struct tracing_multi_hardening *skel;
	size_t pad_off, pad_end;
	union bpf_attr attr;
	__u32 ids[1];
	int fd;

	if (fentry_test_ids(ids))
		return;
	skel = tracing_multi_hardening__open_and_load();
	if (!ASSERT_OK_PTR(skel, "open_and_load"))
		return;
	pad_off = offsetofend(union bpf_attr, link_create.tracing_multi.cnt);
	pad_end = offsetofend(union bpf_attr, link_create.tracing_multi);
	if (!ASSERT_GT(pad_end, pad_off, "tracing_multi has tail padding"))
		goto out;
	memset(&attr, 0, sizeof(attr));
	attr.link_create.prog_fd = bpf_program__fd(skel->progs.tc_reader_kfunc);
	attr.link_create.attach_type = BPF_TRACE_FENTRY_MULTI;
	attr.link_create.tracing_multi.ids = ptr_to_u64(ids);
	attr.link_create.tracing_multi.cnt = 1;
	((char *)&attr)[pad_end - 1] = 1;
	fd = syscall(__NR_bpf, BPF_LINK_CREATE, &attr, sizeof(attr));
	ASSERT_EQ(fd < 0 ? -errno : fd, -EINVAL, "padding not zero");
	if (fd >= 0)
		close(fd);
	((char *)&attr)[pad_end - 1] = 0;
	fd = syscall(__NR_bpf, BPF_LINK_CREATE, &attr, sizeof(attr));
	if (ASSERT_GE(fd, 0, "padding zero"))
		close(fd);
out:
	tracing_multi_hardening__destroy(skel);
}

#define JIT_LIMIT "/proc/sys/net/core/bpf_jit_limit"

static int sysctl_rw(const char *path, char *old, size_t len, const char *new)
{
	int fd = open(path, O_RDWR), n, err = 0;

	if (fd < 0)
		return -errno;
	if (old) {
		n = read(fd, old, len - 1);
		if (n <= 0)
			err = -EIO;
		else
			old[n] = 0;
	}
	if (!err && new && pwrite(fd, new, strlen(new), 0) != strlen(new))
		err = -errno;
	close(fd);
	return err;
}

/*
 * The last fd of a multi link closed by a task without CAP_BPF while JIT
 * memory is over bpf_jit_limit: the detach builds a new image for the
 * function (its ordinary program stays) and must not be refused.
 */
static void test_unprivileged_close(void)
{
	struct tracing_multi_hardening *skel;
	struct bpf_link *ord = NULL, *link = NULL;
	char limit[32];
	int fd = -1, pipefd[2], status;
	pid_t pid;

	skel = tracing_multi_hardening__open_and_load();
	if (!ASSERT_OK_PTR(skel, "open_and_load"))
		return;
	skel->bss->test_pid = getpid();
	ord = bpf_program__attach(skel->progs.uc_ordinary);
	if (!ASSERT_OK_PTR(ord, "attach ordinary"))
		goto out;
	link = bpf_program__attach_tracing_multi(skel->progs.uc_multi, "bpf_fentry_test1", NULL);
	if (!ASSERT_OK_PTR(link, "attach multi"))
		goto out;
	fentry_test_run(skel->progs.uc_multi);
	ASSERT_EQ(skel->bss->uc_multi_runs, 1, "multi runs");
	ASSERT_EQ(skel->bss->uc_ordinary_runs, 1, "ordinary runs");

	fd = dup(bpf_link__fd(link));
	if (!ASSERT_GE(fd, 0, "dup link fd"))
		goto out;
	bpf_link__destroy(link);
	link = NULL;
	if (!ASSERT_OK(pipe(pipefd), "pipe"))
		goto out;
	if (!ASSERT_OK(sysctl_rw(JIT_LIMIT, limit, sizeof(limit), "1"), "bpf_jit_limit 1"))
		goto out_pipe;
	pid = fork();
	if (pid == 0) {
		char c;

		/* the parent's copy is closed: this one is the last */
		close(pipefd[1]);
		if (read(pipefd[0], &c, 1) != 0)
			_exit(2);
		if (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534))
			_exit(3);
		close(fd);
		_exit(0);
	}
	close(fd);
	fd = -1;
	close(pipefd[1]);
	if (ASSERT_GE(pid, 0, "fork")) {
		ASSERT_EQ(waitpid(pid, &status, 0), pid, "waitpid");
		ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child exit");
	}
	ASSERT_OK(sysctl_rw(JIT_LIMIT, NULL, 0, limit), "bpf_jit_limit back");

	/* detached: the multi program no longer runs, the ordinary one does */
	fentry_test_run(skel->progs.uc_multi);
	ASSERT_EQ(skel->bss->uc_multi_runs, 1, "multi runs after close");
	ASSERT_EQ(skel->bss->uc_ordinary_runs, 2, "ordinary runs after close");
	close(pipefd[0]);
	goto out;
out_pipe:
	close(pipefd[0]);
	close(pipefd[1]);
out:
	if (fd >= 0)
		close(fd);
	bpf_link__destroy(link);
	bpf_link__destroy(ord);
	tracing_multi_hardening__destroy(skel);
}

#define LP_NAME		"bpf_test_livepatch"
#define LP_SYSFS	"/sys/kernel/livepatch/" LP_NAME
/* bpf_testmod: 1 makes the next ftrace_ipmodify_registered() say false */
#define IPMODIFY_STALE	"/sys/module/bpf_testmod/parameters/ipmodify_stale"

static int lp_read(const char *file)
{
	char path[128];

	snprintf(path, sizeof(path), LP_SYSFS "/%s", file);
	return tracing_multi_read_long(path);
}

/* Wait until no task runs the old (or, after disable, the new) body. */
static int lp_wait_transition(void)
{
	int i;

	for (i = 0; i < 600; i++) {
		if (lp_read("transition") == 0)
			return 0;
		usleep(100 * 1000);
	}
	return -ETIMEDOUT;
}

static int lp_enable(void)
{
	int err = load_module(LP_NAME ".ko", env.verbosity > VERBOSE_NONE);

	if (err)
		return err;
	return lp_wait_transition();
}

/* Disable the patch and unload its module. */
static int lp_disable(void)
{
	int fd, i;

	fd = open(LP_SYSFS "/enabled", O_WRONLY);
	if (fd >= 0) {
		if (write(fd, "0", 1) != 1) {
			close(fd);
			return -errno;
		}
		close(fd);
		/* the directory goes when the patch is freed */
		for (i = 0; i < 600 && !access(LP_SYSFS, F_OK); i++)
			usleep(100 * 1000);
	}
	return unload_module(LP_NAME, env.verbosity > VERBOSE_NONE);
}

struct lp_state {
	struct tracing_multi_livepatch *skel;
	int btf_fd;
	__u32 ids[2];		/* bpf_testmod_lp_target, bpf_testmod_fentry_test1 */
	int entry_fd, exit_fd;	/* multi link fds, -1 when detached */
	struct bpf_link *ord;	/* ordinary fexit on bpf_testmod_lp_target */
};

/* The livepatch programs loaded, with the ids and addresses they check. */
static int lp_setup(struct lp_state *st, struct btf **vmlinux, struct btf **btf)
{
	unsigned long long addr;
	int id;

	*vmlinux = btf__load_vmlinux_btf();
	if (!ASSERT_OK_PTR(*vmlinux, "vmlinux btf"))
		return -1;
	st->btf_fd = tracing_multi_testmod_btf(*vmlinux, btf);
	if (!ASSERT_GE(st->btf_fd, 0, "bpf_testmod btf"))
		return -1;
	id = btf__find_by_name_kind(*btf, "bpf_testmod_lp_target", BTF_KIND_FUNC);
	st->ids[0] = id > 0 ? id : 0;
	id = btf__find_by_name_kind(*btf, "bpf_testmod_fentry_test1", BTF_KIND_FUNC);
	st->ids[1] = id > 0 ? id : 0;
	if (!ASSERT_NEQ(st->ids[0], 0, "bpf_testmod_lp_target id") ||
	    !ASSERT_NEQ(st->ids[1], 0, "bpf_testmod_fentry_test1 id"))
		return -1;
	st->skel = tracing_multi_livepatch__open();
	if (!ASSERT_OK_PTR(st->skel, "open"))
		return -1;
	if (!ASSERT_OK(kallsyms_find("bpf_testmod_lp_target", &addr), "ksym lp_target"))
		return -1;
	st->skel->rodata->lp_addr = addr;
	if (!ASSERT_OK(kallsyms_find("bpf_testmod_fentry_test1", &addr), "ksym fentry_test1"))
		return -1;
	st->skel->rodata->t1_addr = addr;
	return ASSERT_OK(tracing_multi_livepatch__load(st->skel), "load") ? 0 : -1;
}

static int lp_attach_multi(struct lp_state *st, struct bpf_program *prog)
{
	LIBBPF_OPTS(bpf_link_create_opts, opts);
	__u64 cookies[2] = { 1000, 1001 };

	opts.tracing_multi.ids = st->ids;
	opts.tracing_multi.cookies = cookies;
	opts.tracing_multi.cnt = 2;
	return bpf_link_create(bpf_program__fd(prog), st->btf_fd,
			       bpf_program__expected_attach_type(prog), &opts);
}

static void lp_close(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* What lp_setup() and a test made: links closed, the patch gone, freed. */
static void lp_teardown(struct lp_state *st, struct btf *vmlinux, struct btf *btf,
			bool patched)
{
	lp_close(&st->entry_fd);
	lp_close(&st->exit_fd);
	bpf_link__destroy(st->ord);
	if (patched)
		ASSERT_OK(lp_disable(), "disable live patch at the end");
	tracing_multi_livepatch__destroy(st->skel);
	if (st->btf_fd >= 0)
		close(st->btf_fd);
	btf__free(btf);
	btf__free(vmlinux);
}

/*
 * Call both functions once (bpf_testmod_lp_target(5)) and check what every
 * attached program saw: the patched or the original return value, the
 * function's own address and cookie.
 */
static void lp_check(struct lp_state *st, const char *step, bool patched)
{
	struct tracing_multi_livepatch__bss *bss = st->skel->bss;
	bool entry = st->entry_fd >= 0, exit = st->exit_fd >= 0;
	char name[96];
	int i;

	memset(bss, 0, sizeof(*bss));
	snprintf(name, sizeof(name), "%s: trigger", step);
	ASSERT_OK(trigger_module_test_read(1), name);
	for (i = 0; i < 2; i++) {
		snprintf(name, sizeof(name), "%s: fentry.multi hits [%d]", step, i);
		ASSERT_EQ(bss->entry_hits[i], entry, name);
		snprintf(name, sizeof(name), "%s: fexit.multi hits [%d]", step, i);
		ASSERT_EQ(bss->exit_hits[i], exit, name);
		snprintf(name, sizeof(name), "%s: fentry.multi cookie [%d]", step, i);
		ASSERT_EQ(bss->entry_cookie[i], entry ? 1000 + i : 0, name);
		snprintf(name, sizeof(name), "%s: fexit.multi cookie [%d]", step, i);
		ASSERT_EQ(bss->exit_cookie[i], exit ? 1000 + i : 0, name);
	}
	if (entry) {
		snprintf(name, sizeof(name), "%s: fentry.multi lp_target a", step);
		ASSERT_EQ(bss->entry_arg[0], 5, name);
	}
	if (exit) {
		snprintf(name, sizeof(name), "%s: fexit.multi lp_target ret", step);
		ASSERT_EQ((int)bss->exit_ret[0], patched ? 105 : 6, name);
		snprintf(name, sizeof(name), "%s: fexit.multi fentry_test1 ret", step);
		ASSERT_EQ((int)bss->exit_ret[1], 2, name);
	}
	snprintf(name, sizeof(name), "%s: ordinary fexit hits", step);
	ASSERT_EQ(bss->ord_hits, !!st->ord, name);
	if (st->ord) {
		snprintf(name, sizeof(name), "%s: ordinary lp_target ret", step);
		ASSERT_EQ((int)bss->ord_ret, patched ? 105 : 6, name);
	}
	snprintf(name, sizeof(name), "%s: IP of another function", step);
	ASSERT_EQ(bss->bad_ip, 0, name);
}

static int lp_attach_both(struct lp_state *st, const char *what)
{
	char name[64];

	st->entry_fd = lp_attach_multi(st, st->skel->progs.lp_entry);
	snprintf(name, sizeof(name), "attach fentry.multi %s", what);
	if (!ASSERT_GE(st->entry_fd, 0, name))
		return -1;
	st->exit_fd = lp_attach_multi(st, st->skel->progs.lp_exit);
	snprintf(name, sizeof(name), "attach fexit.multi %s", what);
	if (!ASSERT_GE(st->exit_fd, 0, name))
		return -1;
	return 0;
}

/*
 * A live patch on a function with multi links, ordinary programs or both,
 * attached and detached in every order, and the patch enabled and disabled
 * under them: the patched body runs, and programs see the function's IP,
 * cookie and (fexit) the patched return value. No step waits for a grace
 * period with tramp_multi_mutex held (a multi link that comes to a patched
 * function is planned twice: ftrace refuses the first plan).
 */
void (*tracing_multi_lp_own_check)(const char *step);

void tracing_multi_test_livepatch(void)
{
	struct lp_state st = { .entry_fd = -1, .exit_fd = -1, .btf_fd = -1 };
	struct btf *vmlinux = NULL, *btf = NULL;
	struct tracing_multi_waits *waits;
	int nwaits, held, held_b = 0;
	bool patched = false;

	if (access("/sys/kernel/livepatch", F_OK) || access(LP_NAME ".ko", F_OK)) {
		test__skip();	/* no CONFIG_LIVEPATCH (arm64 in 6.12) */
		return;
	}
	waits = tracing_multi_waits_start();
	if (!waits || lp_setup(&st, &vmlinux, &btf))
		goto out;

	/* A: the patch comes under an ordinary program and multi links
	 * (the function has its own image), and goes
	 */
	if (lp_attach_both(&st, "before the patch"))
		goto out;
	st.ord = bpf_program__attach(st.skel->progs.lp_ord_exit);
	if (!ASSERT_OK_PTR(st.ord, "attach ordinary fexit before the patch"))
		goto out;
	lp_check(&st, "A: unpatched", false);
	if (!ASSERT_OK(lp_enable(), "A: enable live patch"))
		goto out;
	patched = true;
	lp_check(&st, "A: patch enabled under both", true);
	if (!ASSERT_OK(lp_disable(), "A: disable live patch"))
		goto out;
	patched = false;
	lp_check(&st, "A: patch disabled", false);
	lp_close(&st.entry_fd);
	lp_close(&st.exit_fd);
	bpf_link__destroy(st.ord);
	st.ord = NULL;

	/* B: the programs come to a patched function, in every role */
	if (!ASSERT_OK(lp_enable(), "B: enable live patch"))
		goto out;
	patched = true;
	lp_check(&st, "B: patched, nothing attached", true);
	/* the attach's first plan does not know of the patch: ftrace refuses it */
	if (!ASSERT_OK(tracing_multi_write_file(IPMODIFY_STALE, "1"), IPMODIFY_STALE) ||
	    !ASSERT_OK(tracing_multi_waits_read(waits, &nwaits, &held_b), "waits counted"))
		goto out;
	st.entry_fd = lp_attach_multi(&st, st.skel->progs.lp_entry);
	/* the kretprobe takes the 1 back when ftrace_ipmodify_registered() is asked */
	ASSERT_EQ(tracing_multi_read_long(IPMODIFY_STALE), 0, "B: planned without the patch first");
	tracing_multi_write_file(IPMODIFY_STALE, "0");
	if (!ASSERT_GE(st.entry_fd, 0, "B: attach fentry.multi"))
		goto out;
	tracing_multi_waits_read(waits, &nwaits, &held);
	printf("%s: B: attach planned twice: %d grace periods under tramp_multi_mutex\n",
	       __func__, held - held_b);
	ASSERT_EQ(held - held_b, 0, "B: attach: grace periods under tramp_multi_mutex");
	lp_check(&st, "B: fentry.multi", true);
	st.exit_fd = lp_attach_multi(&st, st.skel->progs.lp_exit);
	if (!ASSERT_GE(st.exit_fd, 0, "B: attach fexit.multi"))
		goto out;
	lp_check(&st, "B: fentry.multi + fexit.multi", true);

	/* an ordinary program joins */
	st.ord = bpf_program__attach(st.skel->progs.lp_ord_exit);
	if (!ASSERT_OK_PTR(st.ord, "B: attach ordinary fexit"))
		goto out;
	lp_check(&st, "B: multi + ordinary", true);
	if (tracing_multi_lp_own_check)
		tracing_multi_lp_own_check("B: multi + ordinary");

	/* the multi links leave, then come back */
	lp_close(&st.entry_fd);
	lp_close(&st.exit_fd);
	lp_check(&st, "B: ordinary", true);
	if (lp_attach_both(&st, "B: again"))
		goto out;
	lp_check(&st, "B: ordinary + multi", true);

	/* the ordinary program leaves: multi links only */
	bpf_link__destroy(st.ord);
	st.ord = NULL;
	lp_check(&st, "B: multi after ordinary", true);

	/* C: the patch goes and comes back under multi links alone */
	if (!ASSERT_OK(lp_disable(), "C: disable live patch"))
		goto out;
	patched = false;
	lp_check(&st, "C: multi, patch disabled", false);
	if (!ASSERT_OK(lp_enable(), "C: enable live patch under multi links"))
		goto out;
	patched = true;
	lp_check(&st, "C: multi, patch enabled again", true);
	if (tracing_multi_lp_own_check)
		tracing_multi_lp_own_check("C: multi, patch enabled again");

	lp_close(&st.entry_fd);
	lp_close(&st.exit_fd);
	lp_check(&st, "all detached", true);
out:
	lp_teardown(&st, vmlinux, btf, patched);
	if (ASSERT_OK(tracing_multi_waits_read(waits, &nwaits, &held), "waits counted")) {
		printf("%s: %d grace periods waited for, %d with tramp_multi_mutex held\n",
		       __func__, nwaits, held);
		ASSERT_EQ(held, 0, "grace periods waited for under tramp_multi_mutex");
	}
	tracing_multi_waits_end(waits);
}

#define LP_WIDE_MAX	256

/*
 * Into @ids after st->ids, bpf_testmod functions that ftrace can trace
 * and both multi programs take, one by one; their number with st->ids'.
 */
static int lp_wide_ids(struct lp_state *st, const struct btf *btf, __u32 *ids)
{
	LIBBPF_OPTS(bpf_link_create_opts, opts);
	struct bpf_program *progs[] = { st->skel->progs.lp_entry, st->skel->progs.lp_exit };
	char line[256], name[128];
	int n = 2, i, id, fd;
	bool ok;
	FILE *f;

	ids[0] = st->ids[0];
	ids[1] = st->ids[1];
	f = fopen("/sys/kernel/tracing/available_filter_functions", "r");
	if (!f)
		return n;
	while (n < LP_WIDE_MAX && fgets(line, sizeof(line), f)) {
		if (!strstr(line, "[bpf_testmod]") || sscanf(line, "%127s", name) != 1)
			continue;
		id = btf__find_by_name_kind(btf, name, BTF_KIND_FUNC);
		for (i = 0; i < n && id > 0; i++)
			if (ids[i] == id)
				id = 0;	/* listed before */
		if (id <= 0)
			continue;
		opts.tracing_multi.ids = (__u32 *)&id;
		opts.tracing_multi.cnt = 1;
		ok = true;
		for (i = 0; i < ARRAY_SIZE(progs) && ok; i++) {
			fd = bpf_link_create(bpf_program__fd(progs[i]), st->btf_fd,
					     bpf_program__expected_attach_type(progs[i]), &opts);
			ok = fd >= 0;
			if (ok)
				close(fd);
		}
		if (ok)
			ids[n++] = id;
	}
	fclose(f);
	return n;
}

/*
 * A link on the patched function and on many others, planned without the
 * patch: ftrace must still refuse the plan. With 64 or more functions an
 * ftrace update asks its ops list once whether any IPMODIFY ops is
 * registered, instead of looking each function up; the live patch's is.
 */
static void test_livepatch_wide(void)
{
	LIBBPF_OPTS(bpf_link_create_opts, opts);
	struct lp_state st = { .entry_fd = -1, .exit_fd = -1, .btf_fd = -1 };
	struct btf *vmlinux = NULL, *btf = NULL;
	__u64 cookies[LP_WIDE_MAX] = { 1000, 1001 };
	struct tracing_multi_livepatch__bss *bss;
	__u32 ids[LP_WIDE_MAX];
	bool patched = false;
	int n;

	if (access("/sys/kernel/livepatch", F_OK) || access(LP_NAME ".ko", F_OK)) {
		test__skip();	/* no CONFIG_LIVEPATCH (arm64 in 6.12) */
		return;
	}
	if (lp_setup(&st, &vmlinux, &btf))
		goto out;
	n = lp_wide_ids(&st, btf, ids);
	printf("%s: a link on %d bpf_testmod functions\n", __func__, n);
	if (!ASSERT_GE(n, 64, "bpf_testmod functions a link takes"))
		goto out;
	if (!ASSERT_OK(lp_enable(), "enable live patch"))
		goto out;
	patched = true;
	if (!ASSERT_OK(tracing_multi_write_file(IPMODIFY_STALE, "1"), IPMODIFY_STALE))
		goto out;
	opts.tracing_multi.ids = ids;
	opts.tracing_multi.cookies = cookies;
	opts.tracing_multi.cnt = n;
	st.entry_fd = bpf_link_create(bpf_program__fd(st.skel->progs.lp_entry), st.btf_fd,
				      BPF_TRACE_FENTRY_MULTI, &opts);
	ASSERT_EQ(tracing_multi_read_long(IPMODIFY_STALE), 0, "planned without the patch first");
	tracing_multi_write_file(IPMODIFY_STALE, "0");
	if (!ASSERT_GE(st.entry_fd, 0, "attach fentry.multi"))
		goto out;
	st.exit_fd = bpf_link_create(bpf_program__fd(st.skel->progs.lp_exit), st.btf_fd,
				     BPF_TRACE_FEXIT_MULTI, &opts);
	if (!ASSERT_GE(st.exit_fd, 0, "attach fexit.multi"))
		goto out;
	/* lp_check() minus the IP check: the link's other functions run too */
	bss = st.skel->bss;
	memset(bss, 0, sizeof(*bss));
	ASSERT_OK(trigger_module_test_read(1), "trigger");
	ASSERT_EQ(bss->entry_hits[0], 1, "fentry.multi hits lp_target");
	ASSERT_EQ(bss->entry_arg[0], 5, "fentry.multi lp_target a");
	ASSERT_EQ(bss->exit_hits[0], 1, "fexit.multi hits lp_target");
	ASSERT_EQ((int)bss->exit_ret[0], 105, "fexit.multi lp_target ret: the patched body");
	ASSERT_EQ(bss->bad_cookie, 0, "cookies");
out:
	lp_teardown(&st, vmlinux, btf, patched);
}

/*
 * A live patch goes while the function it patched waits to be tidied: its
 * fexit.multi link was detached without memory, so its own image (the
 * function has an IPMODIFY user) jumps over the link's program and the
 * function is stale (debugfs bpf_multi_tidy_hold keeps it so). ftrace
 * tells the trampoline with direct_mutex held; it must reroute the
 * function as one with multi links, not take the ordinary path, which
 * would take direct_mutex again.
 */
static void test_livepatch_stale(void)
{
	struct lp_state st = { .entry_fd = -1, .exit_fd = -1, .btf_fd = -1 };
	struct btf *vmlinux = NULL, *btf = NULL;
	bool patched = false;
	char *now = NULL;
	size_t len = 0;
	FILE *f;

	if (access("/sys/kernel/livepatch", F_OK) || access(LP_NAME ".ko", F_OK)) {
		test__skip();
		return;
	}
	if (lp_setup(&st, &vmlinux, &btf))
		goto out;

	if (!ASSERT_OK(lp_enable(), "enable live patch"))
		goto out;
	patched = true;
	st.exit_fd = lp_attach_multi(&st, st.skel->progs.lp_exit);
	if (!ASSERT_GE(st.exit_fd, 0, "attach fexit.multi"))
		goto out;
	lp_check(&st, "patched, fexit.multi", true);

	if (multi_tidy_hold(true) || fault_all_set(true))
		goto out;
	lp_close(&st.exit_fd);
	fault_all_set(false);
	lp_check(&st, "detached without memory", true);
	f = fopen("/sys/kernel/debug/bpf_multi_trampolines", "r");
	if (ASSERT_OK_PTR(f, "open bpf_multi_trampolines")) {
		ASSERT_TRUE(getdelim(&now, &len, '\0', f) > 0 && strstr(now, "own stale "),
			    "the patched function is stale");
		fclose(f);
	}

	if (!ASSERT_OK(lp_disable(), "disable live patch under a stale function"))
		goto out;
	patched = false;
	lp_check(&st, "patch disabled", false);
	multi_tidy_hold(false);
	/* the tidy has nothing left to do once the work ran */
	usleep(500 * 1000);
	lp_check(&st, "tidied", false);
out:
	multi_tidy_hold(false);
	free(now);
	lp_teardown(&st, vmlinux, btf, patched);
}

struct lp_race {
	struct lp_state *st;
	bool stop;		/* READ_ONCE/WRITE_ONCE: threads poll it */
	long enables, enable_fails, disables, multi_ops, ord_ops, reads;
	long failed_attaches, faulted_detaches;
	int err;
	const char *err_what;
};

static void race_fail(struct lp_race *r, const char *what, int err)
{
	if (!r->err) {
		r->err = err ? err : -EINVAL;
		r->err_what = what;
	}
	WRITE_ONCE(r->stop, true);
}

/* load_module(), with the errno of a refused klp_enable_patch() */
static int lp_load(void)
{
	int fd = open(LP_NAME ".ko", O_RDONLY), err = 0;

	if (fd < 0)
		return -errno;
	if (syscall(__NR_finit_module, fd, "", 0))
		err = -errno;
	close(fd);
	return err;
}

static void *race_livepatch(void *arg)
{
	struct lp_race *r = arg;
	int err;

	while (!READ_ONCE(r->stop)) {
		err = lp_load();
		if (err) {
			/* refused while an update runs: a clean failure */
			if (err != -EAGAIN && err != -EBUSY) {
				race_fail(r, "enable live patch", err);
				break;
			}
			r->enable_fails++;
			continue;
		}
		if (lp_wait_transition()) {
			race_fail(r, "live patch transition", -ETIMEDOUT);
			break;
		}
		r->enables++;
		usleep(20 * 1000);
		err = lp_disable();
		if (err) {
			race_fail(r, "disable live patch", err);
			break;
		}
		r->disables++;
	}
	return NULL;
}

/*
 * Fault injection for this thread (fail-nth): arm with @n > 0 before one
 * syscall, disarm after it with 0, which says whether the fault happened.
 */
static bool race_fault(int nth_fd, unsigned int n)
{
	char buf[16] = {};
	int len;

	if (nth_fd < 0)
		return false;
	if (n) {
		len = snprintf(buf, sizeof(buf), "%u", n);
		return pwrite(nth_fd, buf, len, 0) == len;
	}
	len = pread(nth_fd, buf, sizeof(buf) - 1, 0);
	(void)!pwrite(nth_fd, "0", 1, 0);
	return len > 0 && atoi(buf) == 0;
}

/*
 * Multi links attached and detached, one allocation in a random place of
 * each operation failing (where the kernel has fault injection): a failed
 * attach returns -ENOMEM, a detach always completes.
 */
static void *race_multi(void *arg)
{
	int nth_fd = open("/proc/thread-self/fail-nth", O_RDWR), entry, exit;
	unsigned int seed = getpid();
	struct lp_race *r = arg;

	while (!READ_ONCE(r->stop)) {
		race_fault(nth_fd, 1 + rand_r(&seed) % 200);
		entry = lp_attach_multi(r->st, r->st->skel->progs.lp_entry);
		if (race_fault(nth_fd, 0) && entry == -ENOMEM)
			r->failed_attaches++;
		else if (entry < 0)
			race_fail(r, "attach multi", entry);
		exit = lp_attach_multi(r->st, r->st->skel->progs.lp_exit);
		if (exit < 0)
			race_fail(r, "attach multi", exit);
		race_fault(nth_fd, 1 + rand_r(&seed) % 200);
		lp_close(&exit);
		r->faulted_detaches += race_fault(nth_fd, 0);
		lp_close(&entry);
		r->multi_ops += 2;
	}
	if (nth_fd >= 0)
		close(nth_fd);
	return NULL;
}

static void *race_ordinary(void *arg)
{
	struct lp_race *r = arg;
	struct bpf_link *link;

	while (!READ_ONCE(r->stop)) {
		link = bpf_program__attach(r->st->skel->progs.lp_ord_exit);
		if (!link) {
			race_fail(r, "attach ordinary", -errno);
			break;
		}
		usleep(1000);
		bpf_link__destroy(link);
		r->ord_ops++;
	}
	return NULL;
}

static void *race_calls(void *arg)
{
	struct lp_race *r = arg;
	char c;
	int fd;

	while (!READ_ONCE(r->stop)) {
		fd = open(BPF_TESTMOD_TEST_FILE, O_RDONLY);
		if (fd < 0) {
			race_fail(r, "open testmod file", -errno);
			break;
		}
		(void)!read(fd, &c, 1);
		close(fd);
		r->reads++;
	}
	return NULL;
}

static void *(*const race_fns[])(void *) = {
	race_livepatch, race_multi, race_ordinary, race_calls,
};

/*
 * Soak, for make stress: the live patch enabled and disabled while multi
 * links (one allocation of each attach and detach failing, at random) and
 * an ordinary fexit come and go on the patched function and a thread
 * calls it. Each call runs the original or the patched body and
 * sees the function's cookie; enabling the patch works or fails with
 * -EAGAIN/-EBUSY; nothing else fails. TRACING_MULTI_RACE_SECS (20).
 */
void serial_test_tracing_multi_lp_race(void)
{
	struct lp_state st = { .entry_fd = -1, .exit_fd = -1, .btf_fd = -1 };
	struct btf *vmlinux = NULL, *btf = NULL;
	pthread_t threads[ARRAY_SIZE(race_fns)];
	struct lp_race r = { .st = &st };
	const char *env = getenv("TRACING_MULTI_RACE_SECS");
	int i, n = 0, secs = env ? atoi(env) : 20;

	if (access("/sys/kernel/livepatch", F_OK) || access(LP_NAME ".ko", F_OK)) {
		test__skip();
		return;
	}
	if (lp_setup(&st, &vmlinux, &btf))
		goto out;

	for (n = 0; n < ARRAY_SIZE(race_fns); n++)
		if (!ASSERT_OK(pthread_create(&threads[n], NULL, race_fns[n], &r), "thread"))
			break;
	for (i = 0; i < secs * 10 && !READ_ONCE(r.stop); i++)
		usleep(100 * 1000);
	WRITE_ONCE(r.stop, true);
	for (i = 0; i < n; i++)
		pthread_join(threads[i], NULL);
	if (!access(LP_SYSFS, F_OK))
		ASSERT_OK(lp_disable(), "disable live patch at the end");

	printf("lp_race: %ds: live patch enabled %ld, refused %ld, disabled %ld;", secs,
	       r.enables, r.enable_fails, r.disables);
	printf(" multi attach+detach %ld (%ld attaches failed, %ld detaches faulted);",
	       r.multi_ops, r.failed_attaches, r.faulted_detaches);
	printf(" ordinary %ld; reads %ld, calls checked %llu\n", r.ord_ops, r.reads,
	       (unsigned long long)st.skel->bss->race_calls);
	if (!ASSERT_OK(r.err, r.err_what ? r.err_what : "no error"))
		goto out;
	ASSERT_EQ(st.skel->bss->bad_ret, 0, "return values other than 6 and 105");
	ASSERT_EQ(st.skel->bss->bad_cookie, 0, "wrong cookies");
	ASSERT_EQ(st.skel->bss->bad_ip, 0, "IP of another function");
	ASSERT_GT(r.enables, 0, "live patch enabled at least once");
out:
	lp_teardown(&st, vmlinux, btf, false);
}

/* bpf_testmod: 1 stops the next multi attach while it plans, until 0 (reads 2 then) */
#define MULTI_HOLD	"/sys/module/bpf_testmod/parameters/multi_hold"
#define HELD_ROUNDS	50

struct held_attach {
	struct lp_state *st;
	int fd;
	bool done;	/* __atomic: the test reads it */
};

/* fentry.multi on bpf_testmod_fentry_test1 alone, stopped by MULTI_HOLD */
static void *held_attach_thread(void *arg)
{
	LIBBPF_OPTS(bpf_link_create_opts, opts);
	struct held_attach *h = arg;
	__u64 cookie = 1001;

	opts.tracing_multi.ids = &h->st->ids[1];
	opts.tracing_multi.cookies = &cookie;
	opts.tracing_multi.cnt = 1;
	h->fd = bpf_link_create(bpf_program__fd(h->st->skel->progs.lp_entry), h->st->btf_fd,
				BPF_TRACE_FENTRY_MULTI, &opts);
	if (h->fd < 0)
		h->fd = -errno;
	__atomic_store_n(&h->done, true, __ATOMIC_RELEASE);
	return NULL;
}

/*
 * A multi link operation elsewhere holds tramp_multi_mutex (an attach to
 * bpf_testmod_fentry_test1, which bpf_testmod stops while it plans) while
 * the live patch is enabled and disabled HELD_ROUNDS times on
 * bpf_testmod_lp_target, which has an ordinary fexit and no multi link.
 * ftrace asks that function's trampoline to share it with the patch
 * (its ops_func, with direct_mutex held), and a trampoline that is not
 * multi-managed answers under its own mutex: no enable is refused.
 */
static void test_livepatch_held(void)
{
	struct lp_state st = { .entry_fd = -1, .exit_fd = -1, .btf_fd = -1 };
	int i, err, first_err = 0, enabled = 0, refused = 0;
	struct btf *vmlinux = NULL, *btf = NULL;
	struct held_attach h = { .st = &st, .fd = -1 };
	bool patched = false, started = false;
	long held = -1;
	pthread_t tid;

	if (access("/sys/kernel/livepatch", F_OK) || access(LP_NAME ".ko", F_OK)) {
		test__skip();
		return;
	}
	if (!ASSERT_OK(access(MULTI_HOLD, F_OK), "bpf_testmod multi_hold") ||
	    lp_setup(&st, &vmlinux, &btf))
		goto out;
	st.ord = bpf_program__attach(st.skel->progs.lp_ord_exit);
	if (!ASSERT_OK_PTR(st.ord, "attach ordinary fexit"))
		goto out;
	lp_check(&st, "unpatched", false);

	if (!ASSERT_OK(tracing_multi_write_file(MULTI_HOLD, "1"), "arm multi_hold") ||
	    !ASSERT_OK(pthread_create(&tid, NULL, held_attach_thread, &h), "attach thread"))
		goto out;
	started = true;
	for (i = 0; i < 1000 && held != 2; i++) {
		usleep(10 * 1000);
		held = tracing_multi_read_long(MULTI_HOLD);
	}
	if (!ASSERT_EQ(held, 2, "multi attach holds tramp_multi_mutex") ||
	    !ASSERT_FALSE(__atomic_load_n(&h.done, __ATOMIC_ACQUIRE), "multi attach waits"))
		goto out;

	for (i = 0; i < HELD_ROUNDS; i++) {
		err = lp_load();
		if (err) {
			refused++;
			first_err = first_err ?: err;
			continue;
		}
		patched = true;
		if (!ASSERT_OK(lp_wait_transition(), "transition"))
			goto out;
		enabled++;
		if (!ASSERT_OK(lp_disable(), "disable live patch"))
			goto out;
		patched = false;
	}
	/* the attach still waits in the kernel, holding the mutex */
	if (__atomic_load_n(&h.done, __ATOMIC_ACQUIRE))
		held = -1;
	else
		held = tracing_multi_read_long(MULTI_HOLD);
	printf("%s: %d rounds with tramp_multi_mutex held: enabled %d, refused %d (first: %s)\n",
	       __func__, HELD_ROUNDS, enabled, refused,
	       first_err ? strerrorname_np(-first_err) : "none");
	ASSERT_EQ(held, 2, "tramp_multi_mutex held throughout");
	ASSERT_EQ(refused, 0, "enables refused");
	ASSERT_EQ(enabled, HELD_ROUNDS, "enabled and disabled");
out:
	if (started) {
		tracing_multi_write_file(MULTI_HOLD, "0");
		pthread_join(tid, NULL);
		ASSERT_GE(h.fd, 0, "held multi attach");
		if (h.fd >= 0)
			close(h.fd);
		lp_check(&st, "after", patched);
	}
	lp_teardown(&st, vmlinux, btf, patched);
}

#define FI_COUNTDOWN	1000000

/*
 * One sweep of test_livepatch_fault(): the allocations of the callback
 * (@cb: the BPF programs at its entry and exit) that the patch's load
 * makes, each failing in turn. Return: the loads refused, or -1.
 */
static int lp_fault_sweep(struct lp_state *st, int nth_fd, struct bpf_program **cb,
			  const char *what)
{
	struct tracing_multi_livepatch__bss *bss = st->skel->bss;
	struct bpf_link *links[2] = {};
	unsigned int n, first, last;
	int err, refused = 0;
	char name[96];

	links[0] = bpf_program__attach(cb[0]);
	links[1] = bpf_program__attach(cb[1]);
	if (!ASSERT_OK_PTR(links[0], "attach callback entry") ||
	    !ASSERT_OK_PTR(links[1], "attach callback exit"))
		goto fail;
	/* the callback's fault injection points, numbered from the load */
	bss->fault_pid = getpid();
	race_fault(nth_fd, FI_COUNTDOWN);
	err = lp_load();
	race_fault(nth_fd, 0);
	if (!ASSERT_OK(err, "enable live patch") || !ASSERT_OK(lp_wait_transition(), "transition"))
		goto fail;
	/* read before lp_check(), which clears them */
	first = FI_COUNTDOWN - bss->cb_nth_entry + 1;
	last = FI_COUNTDOWN - bss->cb_nth_exit;
	ASSERT_GT(bss->cb_calls, 0, "callback called");
	ASSERT_GT(bss->cb_nth_entry, bss->cb_nth_exit, "callback allocates");
	snprintf(name, sizeof(name), "%s: patched", what);
	lp_check(st, name, true);
	if (!ASSERT_OK(lp_disable(), "disable live patch") || first > last)
		goto fail;

	for (n = first; n <= last; n++) {
		race_fault(nth_fd, n);
		err = lp_load();
		race_fault(nth_fd, 0);
		snprintf(name, sizeof(name), "%s: allocation %u", what, n);
		if (err) {
			refused++;
			ASSERT_TRUE(access(LP_SYSFS, F_OK), name);
			lp_check(st, name, false);
			continue;
		}
		if (!ASSERT_OK(lp_wait_transition(), name))
			goto fail;
		lp_check(st, name, true);
		if (!ASSERT_OK(lp_disable(), name))
			goto fail;
	}
	printf("%s: %s: allocations %u-%u of the load are the callback's, %d refused\n",
	       __func__, what, first, last, refused);
	ASSERT_GT(refused, 0, "loads refused");
	bpf_link__destroy(links[0]);
	bpf_link__destroy(links[1]);
	return refused;
fail:
	bpf_link__destroy(links[0]);
	bpf_link__destroy(links[1]);
	return -1;
}

/*
 * The live patch comes to a function with multi links, whose image's
 * ops_func ftrace tells with its direct_mutex held, and which moves the
 * function to an image of its own (from a shared image) or rebuilds it
 * (an ordinary program beside them), while the 1st, 2nd, ... allocation
 * of that callback fails. The callback's range is found first: BPF
 * programs read the task's fail-nth countdown when ftrace calls it and
 * when it returns. Each time the patch is enabled, or refused with the
 * functions as before; the programs keep running; and no grace period is
 * waited for with direct_mutex held (which every direct ops' registration
 * takes): a callback lets no program go.
 */
static void test_livepatch_fault(void)
{
	struct lp_state st = { .entry_fd = -1, .exit_fd = -1, .btf_fd = -1 };
	struct btf *vmlinux = NULL, *btf = NULL;
	struct tracing_multi_waits *waits = NULL;
	struct bpf_program *cb[2];
	int nth_fd = -1, direct;

	if (access("/sys/kernel/livepatch", F_OK) || access(LP_NAME ".ko", F_OK) ||
	    access("/proc/thread-self/fail-nth", F_OK)) {
		test__skip();
		return;
	}
	if (lp_setup(&st, &vmlinux, &btf) || fault_knobs_set())
		goto out;
	nth_fd = open("/proc/thread-self/fail-nth", O_RDWR);
	if (!ASSERT_GE(nth_fd, 0, "open fail-nth") || lp_attach_both(&st, "before the patch"))
		goto out;
	waits = tracing_multi_waits_start();
	if (!waits)
		goto out;

	cb[0] = st.skel->progs.lp_cb_entry;
	cb[1] = st.skel->progs.lp_cb_exit;
	if (lp_fault_sweep(&st, nth_fd, cb, "shared image") < 0)
		goto out;
	st.ord = bpf_program__attach(st.skel->progs.lp_ord_exit);
	if (!ASSERT_OK_PTR(st.ord, "attach ordinary fexit"))
		goto out;
	cb[0] = st.skel->progs.lp_own_cb_entry;
	cb[1] = st.skel->progs.lp_own_cb_exit;
	if (lp_fault_sweep(&st, nth_fd, cb, "own image") < 0)
		goto out;

	direct = tracing_multi_waits_direct(waits);
	printf("%s: %d grace periods waited for under direct_mutex\n", __func__, direct);
	ASSERT_EQ(direct, 0, "grace periods waited for under direct_mutex (-ENOENT: not counted)");
	lp_check(&st, "after the faults", false);
out:
	tracing_multi_waits_end(waits);
	if (nth_fd >= 0)
		close(nth_fd);
	lp_teardown(&st, vmlinux, btf, !access(LP_SYSFS, F_OK));
}

#define IPM_NAME	"bpf_test_ipmodify"
#define IPM_PARAM(p)	"/sys/module/" IPM_NAME "/parameters/" p
#define IPM_TARGET	"bpf_test_ipmodify_target"

struct ipm_state {
	struct tracing_multi_ipmodify *skel;
	int btf_fd;
	__u32 id;		/* bpf_test_ipmodify_target */
	int entry_fd, exit_fd;	/* multi link fds, -1 when detached */
	struct bpf_link *ord;	/* ordinary fentry */
	int ret;		/* what a call of the target with 5 returns */
};

static int ipm_attach(struct ipm_state *st, struct bpf_program *prog)
{
	LIBBPF_OPTS(bpf_link_create_opts, opts);

	opts.tracing_multi.ids = &st->id;
	opts.tracing_multi.cnt = 1;
	return bpf_link_create(bpf_program__fd(prog), st->btf_fd,
			       bpf_program__expected_attach_type(prog), &opts);
}

/*
 * Where <debugfs>/bpf_multi_trampolines has the target: "shared", "own",
 * "own stale", or "none".
 */
static const char *ipm_where(char *buf, size_t size)
{
	FILE *f = fopen("/sys/kernel/debug/bpf_multi_trampolines", "r");
	char line[256], kind[32] = "none", last[32] = "";

	if (!f)
		return "no debugfs";
	while (fgets(line, sizeof(line), f)) {
		if (line[0] != '\t') {
			/* "shared <id>...", "own[ stale] key=..." */
			if (!strncmp(line, "own stale", 9))
				snprintf(last, sizeof(last), "own stale");
			else
				sscanf(line, "%31s", last);
		} else if (!strncmp(line + 1, IPM_TARGET, strlen(IPM_TARGET)) &&
			   (line[1 + strlen(IPM_TARGET)] == '\n' ||
			    line[1 + strlen(IPM_TARGET)] == ' ')) {
			snprintf(kind, sizeof(kind), "%s", last);
		}
	}
	fclose(f);
	snprintf(buf, size, "%s", kind);
	return buf;
}

/*
 * Call the target once: it returns st->ret, each program ran if it is
 * attached, and the target is where @where says.
 */
static void ipm_call(struct ipm_state *st, bool entry, bool exit, bool ord, const char *where,
		     const char *when)
{
	struct tracing_multi_ipmodify__bss *bss = st->skel->bss;
	char name[96], buf[32];

	bss->entries = 0;
	bss->exits = 0;
	bss->ordinary_entries = 0;
	bss->exit_arg = 0;
	bss->exit_ret = 0;
	snprintf(name, sizeof(name), "call (%s)", when);
	if (!ASSERT_OK(tracing_multi_write_file(IPM_PARAM("call"), "5"), name))
		return;
	ASSERT_EQ(tracing_multi_read_long(IPM_PARAM("call")), st->ret, name);
	snprintf(name, sizeof(name), "fentry.multi runs (%s)", when);
	ASSERT_EQ(bss->entries, entry, name);
	snprintf(name, sizeof(name), "fexit.multi runs (%s)", when);
	ASSERT_EQ(bss->exits, exit, name);
	if (exit) {
		snprintf(name, sizeof(name), "fexit.multi sees the argument (%s)", when);
		ASSERT_EQ(bss->exit_arg, 5, name);
		snprintf(name, sizeof(name), "fexit.multi sees the return value (%s)", when);
		ASSERT_EQ(bss->exit_ret, st->ret, name);
	}
	snprintf(name, sizeof(name), "ordinary fentry runs (%s)", when);
	ASSERT_EQ(bss->ordinary_entries, ord, name);
	snprintf(name, sizeof(name), "the target's image (%s)", when);
	ASSERT_STREQ(ipm_where(buf, sizeof(buf)), where, name);
}

static void ipm_close(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* Unload the module; its last references may go after grace periods. */
static int ipm_unload(bool verbose)
{
	int i, err = -1;

	for (i = 0; i < 20 && err; i++)
		err = unload_module(IPM_NAME, verbose);
	return err;
}

/*
 * An IPMODIFY user that takes a function on a shared image without a
 * callback (bpf_test_ipmodify.ko, as kprobe_ipmodify_ops does for a kprobe
 * with a post_handler): the function's next change takes it to an image
 * of its own that calls it through the return address (ORIG_STACK), as
 * 6.12 rebuilds an ordinary trampoline. Links leave and come, an ordinary
 * program attaches and detaches there, and each call runs what is
 * attached. On x86-64 the user redirects the calls, as a live patch does:
 * the fexit.multi program sees the replacement's return value. (6.12's
 * arm64 has no IPMODIFY user that changes the IP: no live patches, no
 * kprobes on ftrace.) Once all have gone, the module unloads: no function
 * is left stale, pinning it, for the tidy to retry.
 */
static void test_ipmodify_no_callback(void)
{
	struct ipm_state st = { .btf_fd = -1, .entry_fd = -1, .exit_fd = -1, .ret = 6 };
	bool verbose = env.verbosity > VERBOSE_NONE;
	bool redirect = false;
	struct btf *vmlinux = NULL, *btf = NULL;
	int id;

#if defined(__x86_64__)
	redirect = true;
#endif
	if (!ASSERT_OK(load_module(IPM_NAME ".ko", verbose), "load " IPM_NAME))
		return;
	vmlinux = btf__load_vmlinux_btf();
	if (!ASSERT_OK_PTR(vmlinux, "vmlinux btf"))
		goto out;
	st.btf_fd = tracing_multi_module_btf(IPM_NAME, vmlinux, &btf);
	if (!ASSERT_GE(st.btf_fd, 0, IPM_NAME " btf"))
		goto out;
	id = btf__find_by_name_kind(btf, IPM_TARGET, BTF_KIND_FUNC);
	if (!ASSERT_GT(id, 0, IPM_TARGET " id"))
		goto out;
	st.id = id;
	st.skel = tracing_multi_ipmodify__open();
	if (!ASSERT_OK_PTR(st.skel, "open"))
		goto out;
	if (!ASSERT_OK(bpf_program__set_attach_target(st.skel->progs.ipm_ordinary, 0, IPM_TARGET),
		       "attach target") ||
	    !ASSERT_OK(tracing_multi_ipmodify__load(st.skel), "load"))
		goto out;
	st.skel->bss->pid = getpid();

	/* two links on a shared image; then the IPMODIFY user takes the function */
	st.entry_fd = ipm_attach(&st, st.skel->progs.ipm_entry);
	if (!ASSERT_GE(st.entry_fd, 0, "attach fentry.multi"))
		goto out;
	st.exit_fd = ipm_attach(&st, st.skel->progs.ipm_exit);
	if (!ASSERT_GE(st.exit_fd, 0, "attach fexit.multi"))
		goto out;
	ipm_call(&st, true, true, false, "shared", "before the IPMODIFY user");
	if (!ASSERT_OK(tracing_multi_write_file(IPM_PARAM("grow"), "1"),
		       "IPMODIFY user takes the function"))
		goto out;
	/* the function keeps its shared image until it changes */
	ipm_call(&st, true, true, false, "shared", "IPMODIFY user came");

	/* each change moves the function, first to an image of its own */
	ipm_close(&st.exit_fd);
	if (redirect) {
		if (!ASSERT_OK(tracing_multi_write_file(IPM_PARAM("redirect"), "1"), "redirect"))
			goto out;
		st.ret = 7;
	}
	ipm_call(&st, true, false, false, "own", "fexit.multi detached");
	st.ord = bpf_program__attach(st.skel->progs.ipm_ordinary);
	if (!ASSERT_OK_PTR(st.ord, "attach ordinary fentry")) {
		st.ord = NULL;
		goto out;
	}
	ipm_call(&st, true, false, true, "own", "ordinary fentry attached");
	st.exit_fd = ipm_attach(&st, st.skel->progs.ipm_exit);
	if (!ASSERT_GE(st.exit_fd, 0, "attach fexit.multi again"))
		goto out;
	ipm_call(&st, true, true, true, "own", "fexit.multi attached again");
	bpf_link__destroy(st.ord);
	st.ord = NULL;
	ipm_call(&st, true, true, false, "own", "ordinary fentry detached");
	ipm_close(&st.entry_fd);
	ipm_call(&st, false, true, false, "own", "fentry.multi detached");
	if (!ASSERT_OK(tracing_multi_write_file(IPM_PARAM("redirect"), "0"), "no redirect") ||
	    !ASSERT_OK(tracing_multi_write_file(IPM_PARAM("grow"), "0"),
		       "IPMODIFY user leaves the function"))
		goto out;
	st.ret = 6;
	ipm_call(&st, false, true, false, "own", "IPMODIFY user left");
	ipm_close(&st.exit_fd);
	ipm_call(&st, false, false, false, "none", "all detached");
out:
	ipm_close(&st.entry_fd);
	ipm_close(&st.exit_fd);
	bpf_link__destroy(st.ord);
	tracing_multi_ipmodify__destroy(st.skel);
	if (st.btf_fd >= 0)
		close(st.btf_fd);
	btf__free(btf);
	btf__free(vmlinux);
	ASSERT_OK(ipm_unload(verbose), "unload " IPM_NAME);
}

void serial_test_tracing_multi_hardening(void)
{
	if (test__start_subtest("tail_call_caller_first"))
		test_tail_call_caller_first();
	if (test__start_subtest("tail_call_callee_first"))
		test_tail_call_callee_first();
	if (test__start_subtest("tail_call_same_reads"))
		test_tail_call_same_reads();
	if (test__start_subtest("tail_call_ip"))
		test_tail_call_ip();
	if (test__start_subtest("extension"))
		test_extension();
	if (test__start_subtest("attr_padding"))
		test_attr_padding();
	if (test__start_subtest("unprivileged_close"))
		test_unprivileged_close();
	if (test__start_subtest("livepatch"))
		tracing_multi_test_livepatch();
	if (test__start_subtest("livepatch_wide"))
		test_livepatch_wide();
	if (test__start_subtest("livepatch_stale"))
		test_livepatch_stale();
	if (test__start_subtest("livepatch_fault"))
		test_livepatch_fault();
	if (test__start_subtest("livepatch_held"))
		test_livepatch_held();
	if (test__start_subtest("ipmodify_no_callback"))
		test_ipmodify_no_callback();
}
