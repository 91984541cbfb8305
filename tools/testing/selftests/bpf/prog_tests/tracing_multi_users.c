// SPDX-License-Identifier: GPL-2.0
/*
 * fentry.multi as the first users of upstream's interface use it.
 *
 * raw_syscall: a loader that speaks bpf(2) alone, as a Go library does: its
 * own layout of link_create ({prog_fd, target_fd = 0, attach_type, flags,
 * ids, cookies, count}), upstream's attach type numbers 59, 60 and 61 and
 * link type 15 written as numbers, programs of raw instructions loaded
 * with no attach target, and attached by BTF ids it finds in
 * /sys/kernel/btf/vmlinux itself.
 *
 * tail_calls: main fentry.multi and fexit.multi programs, with no attach
 * target, tail-call programs of the same kind through a PROG_ARRAY, and
 * these read the arguments and the return value with bpf_get_func_arg(),
 * bpf_get_func_arg_cnt() and bpf_get_func_ret(), as a security agent that
 * turns both into multi programs does.
 */
#include <assert.h>
#include <stddef.h>
#include <sys/syscall.h>
#include <test_progs.h>
#include <bpf/btf.h>
#include "tracing_multi_helpers.h"
#include "tracing_multi_users.skel.h"

/* The numbers a loader written against upstream's header hard-codes. */
#define UP_BPF_TRACE_FENTRY_MULTI	59
#define UP_BPF_TRACE_FEXIT_MULTI	60
#define UP_BPF_TRACE_FSESSION_MULTI	61
#define UP_BPF_LINK_TYPE_TRACING_MULTI	15

/* BPF_LINK_CREATE's attributes as the Go library lays them out. */
struct go_link_create_attr {
	__u32 prog_fd;
	__u32 target_fd;
	__u32 attach_type;
	__u32 flags;
	__u64 ids;		/* pointer to __u32 ids */
	__u64 cookies;		/* pointer to __u64 cookies */
	__u32 count;
};

/* struct bpf_link_info's head and tracing_multi member, the same way. */
struct go_link_info {
	__u32 type;
	__u32 id;
	__u32 prog_id;
	__u32 pad;
	__u32 attach_type;
	__u32 count;
	__u32 btf_obj_id;
	__u32 pad2;
	__u64 ids;
	__u64 addrs;
	__u64 cookies;
};

#define SAME_OFFSET(go, field, ktype, kfield)					\
	static_assert(offsetof(struct go, field) == offsetof(ktype, kfield),	\
		       #go "." #field " is at " #kfield)

SAME_OFFSET(go_link_create_attr, prog_fd, union bpf_attr, link_create.prog_fd);
SAME_OFFSET(go_link_create_attr, target_fd, union bpf_attr, link_create.target_fd);
SAME_OFFSET(go_link_create_attr, attach_type, union bpf_attr, link_create.attach_type);
SAME_OFFSET(go_link_create_attr, flags, union bpf_attr, link_create.flags);
SAME_OFFSET(go_link_create_attr, ids, union bpf_attr, link_create.tracing_multi.ids);
SAME_OFFSET(go_link_create_attr, cookies, union bpf_attr, link_create.tracing_multi.cookies);
SAME_OFFSET(go_link_create_attr, count, union bpf_attr, link_create.tracing_multi.cnt);
SAME_OFFSET(go_link_info, type, struct bpf_link_info, type);
SAME_OFFSET(go_link_info, prog_id, struct bpf_link_info, prog_id);
SAME_OFFSET(go_link_info, attach_type, struct bpf_link_info, tracing_multi.attach_type);
SAME_OFFSET(go_link_info, count, struct bpf_link_info, tracing_multi.count);
SAME_OFFSET(go_link_info, btf_obj_id, struct bpf_link_info, tracing_multi.btf_obj_id);
SAME_OFFSET(go_link_info, ids, struct bpf_link_info, tracing_multi.ids);
SAME_OFFSET(go_link_info, addrs, struct bpf_link_info, tracing_multi.addrs);
SAME_OFFSET(go_link_info, cookies, struct bpf_link_info, tracing_multi.cookies);
static_assert(UP_BPF_TRACE_FENTRY_MULTI == BPF_TRACE_FENTRY_MULTI, "fentry.multi is 59");
static_assert(UP_BPF_TRACE_FEXIT_MULTI == BPF_TRACE_FEXIT_MULTI, "fexit.multi is 60");
static_assert(UP_BPF_TRACE_FSESSION_MULTI == BPF_TRACE_FSESSION_MULTI, "fsession.multi is 61");
static_assert(UP_BPF_LINK_TYPE_TRACING_MULTI == BPF_LINK_TYPE_TRACING_MULTI, "link type 15");

static int sys_bpf(int cmd, void *attr, unsigned int size)
{
	int ret = syscall(__NR_bpf, cmd, attr, size);

	return ret < 0 ? -errno : ret;
}

/* The functions BPF_PROG_TEST_RUN of a tracing program calls, and attached. */
static const char * const raw_funcs[] = {
	"bpf_fentry_test1", "bpf_fentry_test2", "bpf_fentry_test3",
};

#define RAW_NR	ARRAY_SIZE(raw_funcs)

/*
 * Counts the calls of the process @pid in element 0 of the array @map_fd:
 * r0 = bpf_get_current_pid_tgid() >> 32; if (r0 == pid)
 * __sync_fetch_and_add(bpf_map_lookup_elem(map, &0), 1); return 0.
 */
static int raw_prog_load(int attach_type, int map_fd, __u32 pid)
{
	struct bpf_insn insns[] = {
		BPF_EMIT_CALL(BPF_FUNC_get_current_pid_tgid),
		BPF_ALU64_IMM(BPF_RSH, BPF_REG_0, 32),
		BPF_JMP_IMM(BPF_JNE, BPF_REG_0, pid, 9),
		BPF_ST_MEM(BPF_W, BPF_REG_10, -4, 0),
		BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4),
		BPF_LD_MAP_FD(BPF_REG_1, map_fd),
		BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem),
		BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 2),
		BPF_MOV64_IMM(BPF_REG_1, 1),
		BPF_ATOMIC_OP(BPF_DW, BPF_ADD, BPF_REG_0, BPF_REG_1, 0),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	static char log[4096];
	union bpf_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.prog_type = BPF_PROG_TYPE_TRACING;
	attr.expected_attach_type = attach_type;	/* no attach_btf_id */
	attr.insns = ptr_to_u64(insns);
	attr.insn_cnt = ARRAY_SIZE(insns);
	attr.license = ptr_to_u64("GPL");
	attr.log_buf = ptr_to_u64(log);
	attr.log_size = sizeof(log);
	attr.log_level = 1;
	log[0] = 0;
	fd = sys_bpf(BPF_PROG_LOAD, &attr, offsetofend(union bpf_attr, log_true_size));
	if (fd < 0)
		printf("%s: load of attach type %d: %d\n%s\n", __func__, attach_type, fd, log);
	return fd;
}

static int raw_map_create(void)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.map_type = BPF_MAP_TYPE_ARRAY;
	attr.key_size = sizeof(__u32);
	attr.value_size = sizeof(__u64);
	attr.max_entries = 1;
	return sys_bpf(BPF_MAP_CREATE, &attr, offsetofend(union bpf_attr, map_extra));
}

static int raw_map_rw(int map_fd, __u64 *val, bool write)
{
	union bpf_attr attr;
	__u32 key = 0;

	memset(&attr, 0, sizeof(attr));
	attr.map_fd = map_fd;
	attr.key = ptr_to_u64(&key);
	attr.value = ptr_to_u64(val);
	return sys_bpf(write ? BPF_MAP_UPDATE_ELEM : BPF_MAP_LOOKUP_ELEM, &attr,
		       offsetofend(union bpf_attr, flags));
}

static int raw_test_run(int prog_fd)
{
	union bpf_attr attr;
	int err;

	memset(&attr, 0, sizeof(attr));
	attr.test.prog_fd = prog_fd;
	err = sys_bpf(BPF_PROG_TEST_RUN, &attr, offsetofend(union bpf_attr, test.batch_size));
	return err < 0 ? err : (int)attr.test.retval;
}

static int raw_link_info(int link_fd, struct go_link_info *info)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.info.bpf_fd = link_fd;
	attr.info.info_len = sizeof(*info);
	attr.info.info = ptr_to_u64(info);
	return sys_bpf(BPF_OBJ_GET_INFO_BY_FD, &attr, offsetofend(union bpf_attr, info));
}

static int cmp_u32(const void *a, const void *b)
{
	__u32 x = *(const __u32 *)a, y = *(const __u32 *)b;

	return x < y ? -1 : x > y;
}

/* One attach type: load, attach by ids, run, read the link back, detach. */
static void raw_attach_type(int attach_type, const __u32 *ids, int map_fd)
{
	struct go_link_create_attr lattr;
	struct go_link_info info;
	__u32 got_ids[RAW_NR + 1], want_ids[RAW_NR];
	__u64 count = 0, want;
	int prog_fd, link_fd = -1, err;

	if (!ASSERT_OK(raw_map_rw(map_fd, &count, true), "reset count"))
		return;
	prog_fd = raw_prog_load(attach_type, map_fd, getpid());
	if (!ASSERT_GE(prog_fd, 0, "load, no attach target"))
		return;

	memset(&lattr, 0, sizeof(lattr));
	lattr.prog_fd = prog_fd;
	lattr.target_fd = 0;
	lattr.attach_type = attach_type;
	lattr.ids = ptr_to_u64(ids);
	lattr.count = RAW_NR;
	link_fd = sys_bpf(BPF_LINK_CREATE, &lattr, sizeof(lattr));
	if (!ASSERT_GE(link_fd, 0, "link_create, Go layout"))
		goto out;

	err = raw_test_run(prog_fd);
	ASSERT_EQ(err, 0, "test_run");
	ASSERT_OK(raw_map_rw(map_fd, &count, false), "read count");
	/* fsession.multi runs at entry and at exit */
	want = RAW_NR * (attach_type == UP_BPF_TRACE_FSESSION_MULTI ? 2 : 1);
	ASSERT_EQ(count, want, "calls of this process");

	/* the count first, then the ids */
	memset(&info, 0, sizeof(info));
	if (!ASSERT_OK(raw_link_info(link_fd, &info), "link info"))
		goto out;
	ASSERT_EQ(info.type, UP_BPF_LINK_TYPE_TRACING_MULTI, "link type");
	ASSERT_EQ(info.attach_type, attach_type, "link attach type");
	ASSERT_EQ(info.count, RAW_NR, "link count");
	ASSERT_EQ(info.btf_obj_id, 1, "link btf_obj_id (vmlinux)");
	memset(&info, 0, sizeof(info));
	memset(got_ids, 0, sizeof(got_ids));
	info.ids = ptr_to_u64(got_ids);
	info.count = ARRAY_SIZE(got_ids);
	if (!ASSERT_OK(raw_link_info(link_fd, &info), "link info ids"))
		goto out;
	ASSERT_EQ(info.count, RAW_NR, "link count with ids");
	memcpy(want_ids, ids, sizeof(want_ids));
	qsort(want_ids, RAW_NR, sizeof(__u32), cmp_u32);
	ASSERT_OK(memcmp(got_ids, want_ids, sizeof(want_ids)), "link ids, sorted");
	ASSERT_EQ(got_ids[RAW_NR], 0, "nothing past count");

	/* detached: no more calls */
	close(link_fd);
	link_fd = -1;
	raw_test_run(prog_fd);
	ASSERT_OK(raw_map_rw(map_fd, &count, false), "read count");
	ASSERT_EQ(count, want, "no calls after detach");
out:
	if (link_fd >= 0)
		close(link_fd);
	close(prog_fd);
}

static void test_raw_syscall(void)
{
	static const int types[] = {
		UP_BPF_TRACE_FENTRY_MULTI, UP_BPF_TRACE_FEXIT_MULTI, UP_BPF_TRACE_FSESSION_MULTI,
	};
	__u32 ids[RAW_NR];
	struct btf *btf;
	int i, id, map_fd;

	/* the ids as the loader finds them: in /sys/kernel/btf/vmlinux */
	btf = btf__parse("/sys/kernel/btf/vmlinux", NULL);
	if (!ASSERT_OK_PTR(btf, "parse /sys/kernel/btf/vmlinux"))
		return;
	for (i = 0; i < RAW_NR; i++) {
		id = btf__find_by_name_kind(btf, raw_funcs[i], BTF_KIND_FUNC);
		if (!ASSERT_GT(id, 0, raw_funcs[i]))
			goto out;
		ids[i] = id;
	}
	map_fd = raw_map_create();
	if (!ASSERT_GE(map_fd, 0, "map_create"))
		goto out;
	for (i = 0; i < ARRAY_SIZE(types); i++)
		raw_attach_type(types[i], ids, map_fd);
	close(map_fd);
out:
	btf__free(btf);
}

static int prog_array_set(struct bpf_map *map, struct bpf_program *prog)
{
	int fd = bpf_program__fd(prog);
	__u32 key = 0;

	return bpf_map_update_elem(bpf_map__fd(map), &key, &fd, BPF_ANY);
}

/* What bpf_testmod_test_read() passes to and gets from bpf_testmod_fentry_test1..3. */
static const struct {
	const char *name;
	int nr_args;
	__u64 args[3];
	__u64 ret;
} tail_funcs[] = {
	{ "bpf_testmod_fentry_test1", 1, { 1 }, 2 },
	{ "bpf_testmod_fentry_test2", 2, { 2, 3 }, 5 },
	{ "bpf_testmod_fentry_test3", 3, { 4, 5, 6 }, 15 },
};

/* What the tail programs saw at entry (@k 0) or exit (@k 1). */
static void check_tails(struct tracing_multi_users__bss *bss, int k)
{
	const char *side = k ? "exit" : "entry";
	int i, j, n;

	for (i = 0; i < ARRAY_SIZE(tail_funcs); i++) {
		n = tail_funcs[i].nr_args;
		if (!ASSERT_EQ(bss->calls[k][n], 1, tail_funcs[i].name))
			continue;
		for (j = 0; j < n; j++)
			ASSERT_EQ(bss->args[k][n][j], tail_funcs[i].args[j], side);
		ASSERT_EQ(bss->arg_past_err[k][n], -EINVAL, "bpf_get_func_arg() past the last");
		if (k) {
			ASSERT_OK(bss->ret_err[k][n], "bpf_get_func_ret()");
			ASSERT_EQ(bss->rets[k][n], tail_funcs[i].ret, "return value");
		}
	}
}

static void test_tail_calls(void)
{
	LIBBPF_OPTS(bpf_link_create_opts, lopts);
	const char *names[ARRAY_SIZE(tail_funcs)];
	int i, btf_fd = -1, entry_fd = -1, exit_fd = -1;
	__u32 ids[ARRAY_SIZE(tail_funcs)];
	struct tracing_multi_users *skel;

	skel = tracing_multi_users__open_and_load();
	if (!ASSERT_OK_PTR(skel, "open_and_load"))
		return;
	skel->bss->test_pid = getpid();
	if (!ASSERT_OK(prog_array_set(skel->maps.entry_tails, skel->progs.tail_entry),
		       "fentry.multi tail taken") ||
	    !ASSERT_OK(prog_array_set(skel->maps.exit_tails, skel->progs.tail_exit),
		       "fexit.multi tail taken"))
		goto out;

	for (i = 0; i < ARRAY_SIZE(tail_funcs); i++)
		names[i] = tail_funcs[i].name;
	btf_fd = tracing_multi_testmod_ids(names, ARRAY_SIZE(names), ids);
	if (!ASSERT_GE(btf_fd, 0, "bpf_testmod ids"))
		goto out;
	/* programs loaded with no attach target, the module's BTF at attach */
	lopts.tracing_multi.ids = ids;
	lopts.tracing_multi.cnt = ARRAY_SIZE(ids);
	entry_fd = bpf_link_create(bpf_program__fd(skel->progs.main_entry), btf_fd,
				   BPF_TRACE_FENTRY_MULTI, &lopts);
	if (!ASSERT_GE(entry_fd, 0, "attach main_entry"))
		goto out;
	exit_fd = bpf_link_create(bpf_program__fd(skel->progs.main_exit), btf_fd,
				  BPF_TRACE_FEXIT_MULTI, &lopts);
	if (!ASSERT_GE(exit_fd, 0, "attach main_exit"))
		goto out;

	ASSERT_OK(trigger_module_test_read(1), "trigger_module_test_read");
	ASSERT_EQ(skel->bss->entry_main_runs, ARRAY_SIZE(tail_funcs), "main_entry runs");
	ASSERT_EQ(skel->bss->exit_main_runs, ARRAY_SIZE(tail_funcs), "main_exit runs");
	check_tails(skel->bss, 0);
	check_tails(skel->bss, 1);
out:
	if (exit_fd >= 0)
		close(exit_fd);
	if (entry_fd >= 0)
		close(entry_fd);
	if (btf_fd >= 0)
		close(btf_fd);
	tracing_multi_users__destroy(skel);
}

void test_tracing_multi_users(void)
{
	if (test__start_subtest("raw_syscall"))
		test_raw_syscall();
	if (test__start_subtest("tail_calls"))
		test_tail_calls();
}
