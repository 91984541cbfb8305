// SPDX-License-Identifier: GPL-2.0
/* bpf_arg_btf(), bpf_arg_find() and bpf_arg_first_btf(): an argument of the
 * traced function by its type, in fentry.multi, fexit.multi and ordinary
 * fentry/fexit programs, checked against the prototypes of bpf_testmod's
 * bpf_testmod_typed_*() and the kernel's bpf_fentry_test*().
 */
#include <sys/syscall.h>
#include "tracing_multi_common.h"
#include "progs/tracing_multi_typed_args.h"
#include "tracing_multi_typed_args.skel.h"

#define NONE -1		/* bpf_arg_btf() returned NULL */
#define NOENT (-ENOENT)	/* bpf_arg_find() found none */

/*
 * What each bpf_testmod_typed_*() takes (bpf_testmod.c) and what the
 * programs must see: the val of the struct bpf_testmod_typed at each
 * slot that is a pointer to one, the first slot of each type, the fields
 * read there, the return value.
 */
struct typed_want {
	const char *name;
	int slot_val[NR_SLOTS];	/* 0: NONE */
	int find[NR_TYPES];
	int other_val, union_val;
	bool task;
	int ret;
};

static const struct typed_want want[NR_TYPED] = {
	/* (struct bpf_testmod_typed *p, int, int): slot 0 */
	[F_ARG1] = { "arg1", { [0] = 101 }, { 0, NOENT, NOENT, NOENT },
		     NONE, NONE, false, 104 },
	/* (int, long, struct bpf_testmod_typed *p): slot 2 */
	[F_ARG3] = { "arg3", { [2] = 103 }, { 2, NOENT, NOENT, NOENT },
		     NONE, NONE, false, 106 },
	/* (int x 5, struct bpf_testmod_typed *p): slot 5 */
	[F_ARG6] = { "arg6", { [5] = 106 }, { 5, NOENT, NOENT, NOENT },
		     NONE, NONE, false, 121 },
	/* (int, const struct bpf_testmod_typed *p): const skipped */
	[F_CONST] = { "const", { [1] = 107 }, { 1, NOENT, NOENT, NOENT },
		      NONE, NONE, false, 108 },
	/* (long, u64, int, bpf_testmod_typed_t *p): typedef skipped */
	[F_TYPEDEF] = { "typedef", { [3] = 111 }, { 3, NOENT, NOENT, NOENT },
			NONE, NONE, false, 117 },
	/* (struct bpf_testmod_other *, p, q): find answers the first */
	[F_TWO] = { "two", { [1] = 108, [2] = 109 }, { 1, 0, NOENT, NOENT },
		    202, NONE, false, 419 },
	/* (struct bpf_testmod_typed s, p): s by value takes slots 0 and 1,
	 * and is not a pointer to the type
	 */
	[F_BYVAL] = { "byval", { [2] = 110 }, { 2, NOENT, NOENT, NOENT },
		      NONE, NONE, false, 1109 },
	/* (struct bpf_testmod_other *, int): another struct at slot 0 */
	[F_OTHER] = { "other", {}, { NOENT, 0, NOENT, NOENT },
		      201, NONE, false, 202 },
	/* (int, u64, void *, struct bpf_testmod_typed **): no match */
	[F_NONE] = { "none", {}, { NOENT, NOENT, NOENT, NOENT },
		     NONE, NONE, false, 116 },
	/* (u64, union bpf_testmod_typed_u *): a union */
	[F_UN] = { "union", {}, { NOENT, NOENT, 1, NOENT },
		      NONE, 301, false, 302 },
	/* (int, struct task_struct *): a vmlinux type in a module function */
	[F_TASK] = { "task", {}, { NOENT, NOENT, NOENT, 1 },
		     NONE, NONE, true, 271 },
	/* (__int128, struct bpf_testmod_typed *p): the integer takes two
	 * slots; ordinary fentry only (libbpf's patterns leave it out)
	 */
	[F_I128] = { "i128", { [2] = 113 }, { 2, NOENT, NOENT, NOENT },
		     NONE, NONE, false, 114 },
};

static __printf(1, 2) const char *tname(const char *fmt, ...)
{
	static char buf[128];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return buf;
}

/* One program kind's record of function @f, against want[f]. */
static void check_typed(struct tracing_multi_typed_args *skel, int kind, int f,
			const char *what, bool has_ret)
{
	struct typed_rec *r = &skel->bss->recs[kind][f];
	const struct typed_want *w = &want[f];
	static const char * const types[] = { "typed", "other", "union", "task" };
	int i, first;

	ASSERT_EQ(r->hits, 1, tname("%s %s hits", what, w->name));
	for (i = 0; i < NR_TYPES; i++)
		ASSERT_EQ(r->find[i], w->find[i],
			  tname("%s %s bpf_arg_find(%s)", what, w->name, types[i]));
	for (i = 0; i < NR_SLOTS; i++) {
		ASSERT_EQ(r->slot_val[i], w->slot_val[i] ?: NONE,
			  tname("%s %s bpf_arg_btf(%d)->val", what, w->name, i));
		ASSERT_EQ(r->slot_const[i], w->slot_val[i] ?: NONE,
			  tname("%s %s bpf_arg_btf(%d)->val, constant slot", what, w->name, i));
	}
	ASSERT_EQ(r->past[0], NONE, tname("%s %s bpf_arg_btf(12)", what, w->name));
	ASSERT_EQ(r->past[1], NONE, tname("%s %s bpf_arg_btf(1000)", what, w->name));
	first = w->find[T_TYPED] >= 0 ? w->slot_val[w->find[T_TYPED]] : NONE;
	ASSERT_EQ(r->first_val, first, tname("%s %s bpf_arg_first()->val", what, w->name));
	ASSERT_EQ(r->other_val, w->other_val, tname("%s %s other->val", what, w->name));
	ASSERT_EQ(r->union_val, w->union_val, tname("%s %s union->val", what, w->name));
	ASSERT_EQ(r->task_pid, w->task ? syscall(SYS_gettid) : NONE,
		  tname("%s %s task->pid", what, w->name));
	if (has_ret)
		ASSERT_EQ(r->ret, w->ret, tname("%s %s return value", what, w->name));
}

/* libbpf's patterns take no function with a 16-byte integer argument. */
static void check_multi_i128(struct tracing_multi_typed_args *skel)
{
	ASSERT_EQ(skel->bss->recs[MULTI_ENTRY][F_I128].hits, 0, "fentry.multi i128 not attached");
	ASSERT_EQ(skel->bss->recs[MULTI_EXIT][F_I128].hits, 0, "fexit.multi i128 not attached");
}

static void reset(struct tracing_multi_typed_args *skel)
{
	memset(skel->bss->recs, 0, sizeof(skel->bss->recs));
	memset(skel->bss->vm_recs, 0, sizeof(skel->bss->vm_recs));
	skel->bss->bad = 0;
}

/* fentry.multi and fexit.multi on every bpf_testmod_typed_*(), from SEC() */
static int attach_multi(struct tracing_multi_typed_args *skel)
{
	skel->links.typed_entry = bpf_program__attach(skel->progs.typed_entry);
	if (!ASSERT_OK_PTR(skel->links.typed_entry, "attach typed_entry"))
		return -1;
	skel->links.typed_exit = bpf_program__attach(skel->progs.typed_exit);
	if (!ASSERT_OK_PTR(skel->links.typed_exit, "attach typed_exit"))
		return -1;
	return 0;
}

/* What both multi programs filed for every function. */
static void check_multi_all(struct tracing_multi_typed_args *skel, const char *entry,
			    const char *exit)
{
	int f;

	for (f = 0; f < F_I128; f++) {
		check_typed(skel, MULTI_ENTRY, f, entry, false);
		check_typed(skel, MULTI_EXIT, f, exit, true);
	}
	check_multi_i128(skel);
	ASSERT_EQ(skel->bss->bad, 0, "bad");
}

/* Both multi programs: each function's own answers, from the tables made
 * at attach.
 */
static void test_module_multi(void)
{
	struct tracing_multi_typed_args *skel;

	skel = tracing_multi_typed_args__open_and_load();
	if (!ASSERT_OK_PTR(skel, "open_and_load"))
		return;
	skel->bss->test_pid = getpid();
	if (attach_multi(skel))
		goto out;
	reset(skel);
	ASSERT_OK(trigger_module_test_read(1), "trigger_module_test_read");
	check_multi_all(skel, "fentry.multi", "fexit.multi");
out:
	tracing_multi_typed_args__destroy(skel);
}

/* fsession.multi, at the function's exit: its frame holds session
 * cookies too; its answers are those of the others.
 */
static void test_module_session(void)
{
	struct tracing_multi_typed_args *skel;
	int f;

	skel = tracing_multi_typed_args__open();
	if (!ASSERT_OK_PTR(skel, "open"))
		return;
	bpf_program__set_autoload(skel->progs.typed_session, true);
	if (!ASSERT_OK(tracing_multi_typed_args__load(skel), "load"))
		goto out;
	skel->bss->test_pid = getpid();
	skel->links.typed_session = bpf_program__attach(skel->progs.typed_session);
	if (!ASSERT_OK_PTR(skel->links.typed_session, "attach typed_session"))
		goto out;
	reset(skel);
	ASSERT_OK(trigger_module_test_read(1), "trigger_module_test_read");
	for (f = 0; f < F_I128; f++)
		check_typed(skel, MULTI_SESSION, f, "fsession.multi", true);
	ASSERT_EQ(skel->bss->bad, 0, "bad");
out:
	tracing_multi_typed_args__destroy(skel);
}

/*
 * Ordinary fentry on bpf_testmod_typed_arg3() and fexit on
 * bpf_testmod_typed_other(): answers inlined from the one prototype; then
 * the same beside the multi programs on the same functions.
 */
static void test_module_ordinary(void)
{
	struct tracing_multi_typed_args *skel;

	skel = tracing_multi_typed_args__open_and_load();
	if (!ASSERT_OK_PTR(skel, "open_and_load"))
		return;
	skel->bss->test_pid = getpid();
	skel->links.typed_entry_arg3 = bpf_program__attach(skel->progs.typed_entry_arg3);
	if (!ASSERT_OK_PTR(skel->links.typed_entry_arg3, "attach typed_entry_arg3"))
		goto out;
	skel->links.typed_exit_other = bpf_program__attach(skel->progs.typed_exit_other);
	if (!ASSERT_OK_PTR(skel->links.typed_exit_other, "attach typed_exit_other"))
		goto out;
	skel->links.typed_arg3_simple = bpf_program__attach(skel->progs.typed_arg3_simple);
	if (!ASSERT_OK_PTR(skel->links.typed_arg3_simple, "attach typed_arg3_simple"))
		goto out;
	skel->links.typed_entry_i128 = bpf_program__attach(skel->progs.typed_entry_i128);
#if defined(__x86_64__)
	if (!ASSERT_OK_PTR(skel->links.typed_entry_i128, "attach typed_entry_i128"))
		goto out;
#else
	/* arm64 passes an __int128 in an even register pair, which its
	 * trampoline does not lay out: refused, not traced with x2 lost
	 */
	if (!ASSERT_ERR_PTR(skel->links.typed_entry_i128, "attach typed_entry_i128 refused")) {
		skel->links.typed_entry_i128 = NULL;
		goto out;
	}
	skel->links.typed_entry_i128 = NULL;
#endif
	reset(skel);
	ASSERT_OK(trigger_module_test_read(1), "trigger_module_test_read");
	check_typed(skel, ENTRY, F_ARG3, "fentry", false);
	check_typed(skel, EXIT, F_OTHER, "fexit", true);
#if defined(__x86_64__)
	check_typed(skel, ENTRY, F_I128, "fentry", false);
#endif
	ASSERT_EQ(skel->data->arg3_val, 103, "bpf_arg_as(2)->val");
	ASSERT_EQ(skel->data->arg3_slot0, NONE, "bpf_arg_as(0) is NULL");

	/* multi links on the same functions: each program its own answers */
	if (attach_multi(skel))
		goto out;
	reset(skel);
	skel->data->arg3_val = NONE;
	ASSERT_OK(trigger_module_test_read(1), "trigger_module_test_read");
	check_typed(skel, ENTRY, F_ARG3, "fentry beside multi", false);
	check_typed(skel, EXIT, F_OTHER, "fexit beside multi", true);
	ASSERT_EQ(skel->data->arg3_val, 103, "bpf_arg_as(2)->val beside multi");
	check_multi_all(skel, "fentry.multi beside fentry", "fexit.multi beside fexit");
out:
	tracing_multi_typed_args__destroy(skel);
}

/*
 * One program, two links (bpf_testmod_typed_arg1 and _arg6, whose struct
 * is at slots 0 and 5): each function answers from its own link's table,
 * before and after the other link goes.
 */
static void test_two_links(void)
{
	struct tracing_multi_typed_args *skel;
	struct bpf_link *l1, *l6 = NULL;
	int f;

	skel = tracing_multi_typed_args__open_and_load();
	if (!ASSERT_OK_PTR(skel, "open_and_load"))
		return;
	skel->bss->test_pid = getpid();
	l1 = bpf_program__attach_tracing_multi(skel->progs.typed_entry,
					       "bpf_testmod:bpf_testmod_typed_arg1", NULL);
	if (!ASSERT_OK_PTR(l1, "attach arg1"))
		goto out;
	l6 = bpf_program__attach_tracing_multi(skel->progs.typed_entry,
					       "bpf_testmod:bpf_testmod_typed_arg6", NULL);
	if (!ASSERT_OK_PTR(l6, "attach arg6")) {
		l6 = NULL;
		goto out;
	}
	reset(skel);
	ASSERT_OK(trigger_module_test_read(1), "trigger_module_test_read");
	check_typed(skel, MULTI_ENTRY, F_ARG1, "link 1", false);
	check_typed(skel, MULTI_ENTRY, F_ARG6, "link 2", false);
	for (f = 0; f < NR_TYPED; f++)
		if (f != F_ARG1 && f != F_ARG6)
			ASSERT_EQ(skel->bss->recs[MULTI_ENTRY][f].hits, 0,
				  tname("%s not attached", want[f].name));

	bpf_link__destroy(l1);
	l1 = NULL;
	reset(skel);
	ASSERT_OK(trigger_module_test_read(1), "trigger_module_test_read");
	ASSERT_EQ(skel->bss->recs[MULTI_ENTRY][F_ARG1].hits, 0, "arg1 detached");
	check_typed(skel, MULTI_ENTRY, F_ARG6, "link 2 alone", false);
	ASSERT_EQ(skel->bss->bad, 0, "bad");
out:
	bpf_link__destroy(l6);
	bpf_link__destroy(l1);
	tracing_multi_typed_args__destroy(skel);
}

/*
 * A vmlinux type: bpf_fentry_test7(NULL) and bpf_fentry_test8(&arg), arg.a
 * NULL, take struct bpf_fentry_test_t *; bpf_fentry_test1..6 and 9 do not.
 * fentry.multi on all nine, ordinary fentry on test8 and test1.
 */
static void test_vmlinux(void)
{
	struct tracing_multi_typed_args *skel;
	struct vm_rec *r;
	int i;

	skel = tracing_multi_typed_args__open_and_load();
	if (!ASSERT_OK_PTR(skel, "open_and_load"))
		return;
	skel->bss->test_pid = getpid();
	skel->links.vm_entry = bpf_program__attach(skel->progs.vm_entry);
	if (!ASSERT_OK_PTR(skel->links.vm_entry, "attach vm_entry"))
		goto out;
	skel->links.vm_entry8 = bpf_program__attach(skel->progs.vm_entry8);
	if (!ASSERT_OK_PTR(skel->links.vm_entry8, "attach vm_entry8"))
		goto out;
	skel->links.vm_entry1 = bpf_program__attach(skel->progs.vm_entry1);
	if (!ASSERT_OK_PTR(skel->links.vm_entry1, "attach vm_entry1"))
		goto out;
	reset(skel);
	fentry_test_run(skel->progs.vm_entry);

	for (i = 1; i <= NR_FUNCS; i++) {
		r = &skel->bss->vm_recs[VM_MULTI][i];
		ASSERT_EQ(r->hits, 1, tname("bpf_fentry_test%d hits", i));
		ASSERT_EQ(r->find, i == 7 || i == 8 ? 0 : -ENOENT,
			  tname("bpf_fentry_test%d bpf_arg_find", i));
		ASSERT_EQ(r->find_skb, -ENOENT, tname("bpf_fentry_test%d find sk_buff", i));
		/* test7's argument is of the type, but NULL */
		ASSERT_EQ(r->slot0, i == 8, tname("bpf_fentry_test%d bpf_arg_as(0)", i));
		ASSERT_EQ(r->slot0_a, i == 8 ? 0 : -1, tname("bpf_fentry_test%d ->a", i));
		ASSERT_EQ(r->slot1, 0, tname("bpf_fentry_test%d bpf_arg_as(1)", i));
	}

	r = &skel->bss->vm_recs[VM_ORDINARY][8];
	ASSERT_EQ(r->hits, 1, "fentry bpf_fentry_test8 hits");
	ASSERT_EQ(r->find, 0, "fentry bpf_fentry_test8 bpf_arg_find");
	ASSERT_EQ(r->find_skb, -ENOENT, "fentry bpf_fentry_test8 find sk_buff");
	ASSERT_EQ(r->slot0, 1, "fentry bpf_fentry_test8 bpf_arg_as(0)");
	ASSERT_EQ(r->slot0_a, 0, "fentry bpf_fentry_test8 ->a");
	ASSERT_EQ(r->slot1, 0, "fentry bpf_fentry_test8 bpf_arg_as(1)");
	r = &skel->bss->vm_recs[VM_ORDINARY][1];
	ASSERT_EQ(r->hits, 1, "fentry bpf_fentry_test1 hits");
	ASSERT_EQ(r->find, -ENOENT, "fentry bpf_fentry_test1 bpf_arg_find");
	ASSERT_EQ(r->slot0, 0, "fentry bpf_fentry_test1 bpf_arg_as(0)");
	ASSERT_EQ(r->slot0_a, -1, "fentry bpf_fentry_test1 ->a");
	ASSERT_EQ(skel->bss->bad, 0, "bad");
out:
	tracing_multi_typed_args__destroy(skel);
}

/*
 * A program with vmlinux's attach BTF on a module's function:
 * bpf_testmod_typed_task(int, struct task_struct *) answers for the
 * vmlinux type.
 */
static void test_vmlinux_prog_module_func(void)
{
	struct tracing_multi_typed_args *skel;
	struct bpf_link *link;

	skel = tracing_multi_typed_args__open_and_load();
	if (!ASSERT_OK_PTR(skel, "open_and_load"))
		return;
	skel->bss->test_pid = getpid();
	link = bpf_program__attach_tracing_multi(skel->progs.vm_task,
						 "bpf_testmod:bpf_testmod_typed_task", NULL);
	if (!ASSERT_OK_PTR(link, "attach"))
		goto out;
	ASSERT_OK(trigger_module_test_read(1), "trigger_module_test_read");
	ASSERT_EQ(skel->data->vm_task_find, 1, "bpf_arg_find(task_struct)");
	ASSERT_EQ(skel->data->vm_task_pid, syscall(SYS_gettid), "task->pid");
	bpf_link__destroy(link);
out:
	tracing_multi_typed_args__destroy(skel);
}

/*
 * Tail calls between multi programs: a callee that calls the kfuncs goes
 * only into a prog array whose callers call them too (their links keep
 * the argument types), and then answers from the caller's link.
 */
static void test_tail_calls(void)
{
	struct tracing_multi_typed_args *skel;
	int callee_fd, err;
	__u32 key = 0;

	skel = tracing_multi_typed_args__open();
	if (!ASSERT_OK_PTR(skel, "open"))
		return;
	bpf_program__set_autoload(skel->progs.tail_caller_plain, true);
	bpf_program__set_autoload(skel->progs.tail_caller_typed, true);
	bpf_program__set_autoload(skel->progs.tail_callee, true);
	if (!ASSERT_OK(tracing_multi_typed_args__load(skel), "load"))
		goto out;
	skel->bss->test_pid = getpid();
	callee_fd = bpf_program__fd(skel->progs.tail_callee);
	err = bpf_map_update_elem(bpf_map__fd(skel->maps.jmp_plain), &key, &callee_fd, BPF_ANY);
	ASSERT_EQ(err, -EINVAL, "callee refused where callers keep no types");
	err = bpf_map_update_elem(bpf_map__fd(skel->maps.jmp_typed), &key, &callee_fd, BPF_ANY);
	if (!ASSERT_OK(err, "callee where callers keep types"))
		goto out;
	skel->links.tail_caller_typed = bpf_program__attach(skel->progs.tail_caller_typed);
	if (!ASSERT_OK_PTR(skel->links.tail_caller_typed, "attach tail_caller_typed"))
		goto out;
	ASSERT_OK(trigger_module_test_read(1), "trigger_module_test_read");
	ASSERT_EQ(skel->data->tail_caller_slot, 2, "caller's bpf_arg_find()");
	ASSERT_EQ(skel->data->tail_val, 103, "callee's bpf_arg_as(2)->val");
out:
	tracing_multi_typed_args__destroy(skel);
}

/* An fentry program on a BPF program's function cannot call them. */
static void test_bpf_prog_target(void)
{
	struct tracing_multi_typed_args *skel = NULL;
	struct bpf_object *tgt_obj = NULL;
	char log[8192] = "";
	int tgt_fd, err;

	err = bpf_prog_test_load("./test_pkt_access.bpf.o", BPF_PROG_TYPE_UNSPEC,
				 &tgt_obj, &tgt_fd);
	if (!ASSERT_OK(err, "load test_pkt_access"))
		return;
	skel = tracing_multi_typed_args__open();
	if (!ASSERT_OK_PTR(skel, "open"))
		goto out;
	bpf_program__set_autoload(skel->progs.typed_on_bpf_prog, true);
	bpf_program__set_attach_target(skel->progs.typed_on_bpf_prog, tgt_fd, "test_pkt_access");
	bpf_program__set_log_buf(skel->progs.typed_on_bpf_prog, log, sizeof(log));
	bpf_program__set_log_level(skel->progs.typed_on_bpf_prog, 1);
	err = tracing_multi_typed_args__load(skel);
	ASSERT_EQ(err, -EINVAL, "load refused");
	ASSERT_HAS_SUBSTR(log, "bpf_arg_btf() is for programs that trace kernel functions",
			  "verifier log");
out:
	tracing_multi_typed_args__destroy(skel);
	bpf_object__close(tgt_obj);
}

void test_tracing_multi_typed_args(void)
{
	if (test__start_subtest("module_multi"))
		test_module_multi();
	if (test__start_subtest("module_session"))
		test_module_session();
	if (test__start_subtest("module_ordinary"))
		test_module_ordinary();
	if (test__start_subtest("two_links"))
		test_two_links();
	if (test__start_subtest("vmlinux"))
		test_vmlinux();
	if (test__start_subtest("vmlinux_prog_module_func"))
		test_vmlinux_prog_module_func();
	if (test__start_subtest("tail_calls"))
		test_tail_calls();
	if (test__start_subtest("bpf_prog_target"))
		test_bpf_prog_target();
}
