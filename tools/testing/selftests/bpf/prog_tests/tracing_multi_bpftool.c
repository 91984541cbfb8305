// SPDX-License-Identifier: GPL-2.0
/* bpftool and tracing_multi links: "link show" (plain, JSON, addresses
 * hidden), "prog attach PROG fentry_multi PATTERN link FILE", "prog loadall
 * ... autoattach" of fentry.multi sections and "feature probe".
 */
#include <sys/stat.h>
#include <sys/wait.h>
#include "tracing_multi_common.h"
#include "tracing_multi_bpftool.skel.h"

#define BPFTOOL		"./tools/sbin/bpftool"
#define OBJ_FILE	"tracing_multi_bpftool.bpf.o"
#define LINK_PIN	"/sys/fs/bpf/tracing_multi_bpftool_link"
#define PROGS_DIR	"/sys/fs/bpf/tracing_multi_bpftool_progs"
#define MAPS_DIR	"/sys/fs/bpf/tracing_multi_bpftool_maps"

/* Run "bpftool ARGS", stdout and stderr into *out (to free); its exit status. */
static int __printf(2, 3) bpftool(char **out, const char *fmt, ...)
{
	size_t len = 0, cap = 0, n;
	char cmd[1024], *buf = NULL, *tmp;
	int pos, status;
	va_list ap;
	FILE *f;

	*out = NULL;
	pos = snprintf(cmd, sizeof(cmd), "%s ", BPFTOOL);
	va_start(ap, fmt);
	vsnprintf(cmd + pos, sizeof(cmd) - pos, fmt, ap);
	va_end(ap);
	strncat(cmd, " 2>&1", sizeof(cmd) - strlen(cmd) - 1);

	f = popen(cmd, "r");
	if (!f) {
		printf("popen '%s': %s\n", cmd, strerror(errno));
		return -1;
	}
	do {
		if (cap - len < 4096) {
			tmp = realloc(buf, cap + 65536);
			if (!tmp)
				break;
			buf = tmp;
			cap += 65536;
		}
		n = fread(buf + len, 1, cap - len - 1, f);
		len += n;
	} while (n);
	if (buf)
		buf[len] = '\0';
	status = pclose(f);
	*out = buf;
	if (!buf)
		return -1;
	status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	if (status)
		printf("'%s' exited with %d:\n%s\n", cmd, status, buf);
	return status;
}

/* Is @want in @out? If not, show @out in the test's log. */
static bool assert_has(const char *out, const char *want, const char *name)
{
	bool found = out && strstr(out, want);

	if (!found)
		printf("%s: no '%s' in:\n%s\n", name, want, out ?: "");
	return ASSERT_TRUE(found, name);
}

static int read_sysctl(const char *path)
{
	char buf[16] = {};
	int fd, n;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	return n > 0 ? atoi(buf) : -1;
}

#define KPTR_RESTRICT "/proc/sys/kernel/kptr_restrict"

/* A link by ids with cookies (cookie 100 + N for bpf_fentry_testN), shown
 * by bpftool in JSON and plain, then with addresses hidden.
 */
static void test_link_show(struct tracing_multi_bpftool *skel)
{
	LIBBPF_OPTS(bpf_tracing_multi_opts, opts);
	struct bpf_link_info info = {};
	__u32 ids[NR_FUNCS], len = sizeof(info);
	__u64 cookies[NR_FUNCS];
	struct bpf_link *link;
	char *out = NULL, want[128];
	int i, kptr_restrict;

	if (fentry_test_ids(ids))
		return;
	for (i = 0; i < NR_FUNCS; i++)
		cookies[i] = 100 + i + 1;
	opts.ids = ids;
	opts.cookies = cookies;
	opts.cnt = NR_FUNCS;
	link = bpf_program__attach_tracing_multi(skel->progs.tmb_cookie, NULL, &opts);
	if (!ASSERT_OK_PTR(link, "attach_tracing_multi"))
		return;
	if (!ASSERT_OK(bpf_link_get_info_by_fd(bpf_link__fd(link), &info, &len), "link info"))
		goto out;
	fentry_test_run(skel->progs.tmb_cookie);
	for (i = 1; i <= NR_FUNCS; i++)
		ASSERT_EQ(skel->bss->cookies[i], 100 + i, "cookie seen by the program");

	/* JSON */
	if (!ASSERT_OK(bpftool(&out, "-j link show id %u", info.id), "bpftool -j link show"))
		goto out;
	assert_has(out, "\"type\":\"tracing_multi\"", "json type");
	snprintf(want, sizeof(want), "\"prog_id\":%u,", info.prog_id);
	assert_has(out, want, "json prog_id");
	assert_has(out, "\"attach_type\":\"trace_fentry_multi\"", "json attach_type");
	assert_has(out, "\"func_cnt\":9,", "json func_cnt");
	for (i = 1; i <= NR_FUNCS; i++) {
		snprintf(want, sizeof(want),
			 "\"func\":\"bpf_fentry_test%d\",\"module\":null,\"cookie\":%d,",
			 i, 100 + i);
		assert_has(out, want, "json func");
	}
	kptr_restrict = read_sysctl(KPTR_RESTRICT);
	if (kptr_restrict >= 0 && kptr_restrict < 2)	/* root sees addresses */
		ASSERT_NULL(strstr(out, "\"addr\":0,"), "json addr");
	free(out);

	/* plain: "addr cookie func [module]" rows, cookies in hex, two
	 * spaces after a vmlinux function's name
	 */
	if (!ASSERT_OK(bpftool(&out, "link show id %u", info.id), "bpftool link show"))
		goto out;
	snprintf(want, sizeof(want), "%u: tracing_multi  prog %u", info.id, info.prog_id);
	assert_has(out, want, "plain header");
	assert_has(out, "attach_type trace_fentry_multi  func_cnt 9  ", "plain attach_type");
	for (i = 1; i <= NR_FUNCS; i++) {
		snprintf(want, sizeof(want), " %-16x bpf_fentry_test%d  ", 100 + i, i);
		assert_has(out, want, "plain func");
	}
	free(out);
	out = NULL;

	/* addresses hidden: names from BTF */
	if (kptr_restrict < 0 || write_sysctl(KPTR_RESTRICT, "2"))
		goto out;
	ASSERT_OK(bpftool(&out, "-j link show id %u", info.id), "bpftool -j link show, no addrs");
	snprintf(want, sizeof(want), "%d", kptr_restrict);
	write_sysctl(KPTR_RESTRICT, want);
	for (i = 1; i <= NR_FUNCS; i++) {
		snprintf(want, sizeof(want),
			 "{\"addr\":0,\"func\":\"bpf_fentry_test%d\",\"module\":null,\"cookie\":%d,",
			 i, 100 + i);
		assert_has(out, want, "json func, no addrs");
	}
out:
	free(out);
	bpf_link__destroy(link);
}

/* Are all of @hits[1..9] @val? */
static bool hits_are(const __u64 *hits, __u64 val)
{
	int i;

	for (i = 1; i <= NR_FUNCS; i++)
		if (hits[i] != val)
			return false;
	return true;
}

/* bpftool prog attach PROG fentry_multi PATTERN link FILE; rm FILE detaches. */
static void test_prog_attach(struct tracing_multi_bpftool *skel)
{
	struct bpf_link_info info = {};
	struct bpf_prog_info pinfo = {};
	__u32 len = sizeof(pinfo);
	char *out = NULL;
	int i, fd;

	if (!ASSERT_OK(bpf_prog_get_info_by_fd(bpf_program__fd(skel->progs.tmb_attach),
					       &pinfo, &len), "prog info"))
		return;
	unlink(LINK_PIN);

	/* the attach type must be the program's */
	ASSERT_NEQ(bpftool(&out, "prog attach id %u fexit_multi 'bpf_fentry_test?' link %s",
			   pinfo.id, LINK_PIN), 0, "attach with the wrong type");
	ASSERT_ERR(access(LINK_PIN, F_OK), "no pin after a failed attach");
	free(out);
	/* a pattern that matches nothing */
	ASSERT_NEQ(bpftool(&out, "prog attach id %u fentry_multi 'no_such_func_*' link %s",
			   pinfo.id, LINK_PIN), 0, "attach to nothing");
	ASSERT_ERR(access(LINK_PIN, F_OK), "no pin after a failed attach");
	free(out);

	if (!ASSERT_OK(bpftool(&out, "prog attach id %u fentry_multi 'bpf_fentry_test?' link %s",
			       pinfo.id, LINK_PIN), "bpftool prog attach"))
		goto out;
	free(out);
	out = NULL;

	/* the pinned link outlives bpftool */
	fd = bpf_obj_get(LINK_PIN);
	if (!ASSERT_OK_FD(fd, "bpf_obj_get link"))
		goto out;
	len = sizeof(info);
	ASSERT_OK(bpf_link_get_info_by_fd(fd, &info, &len), "link info");
	close(fd);
	ASSERT_EQ(info.type, BPF_LINK_TYPE_TRACING_MULTI, "link type");
	ASSERT_EQ(info.prog_id, pinfo.id, "link prog_id");
	ASSERT_EQ(info.tracing_multi.attach_type, BPF_TRACE_FENTRY_MULTI, "link attach_type");
	ASSERT_EQ(info.tracing_multi.count, NR_FUNCS, "link count");

	if (ASSERT_OK(bpftool(&out, "-j link show pinned %s", LINK_PIN), "bpftool link show")) {
		assert_has(out, "\"func_cnt\":9,", "json func_cnt");
		assert_has(out, "\"func\":\"bpf_fentry_test9\",\"module\":null,\"cookie\":0,",
			   "json func");
	}

	fentry_test_run(skel->progs.tmb_attach);
	ASSERT_TRUE(hits_are(skel->bss->attach_hits, 1), "attach_hits");

	/* removing the pin detaches (the link is freed from a work item) */
	ASSERT_OK(unlink(LINK_PIN), "unlink");
	for (i = 0; i < 200; i++) {
		memset(skel->bss->attach_hits, 0, sizeof(skel->bss->attach_hits));
		fentry_test_run(skel->progs.tmb_attach);
		if (hits_are(skel->bss->attach_hits, 0))
			break;
		usleep(10000);
	}
	ASSERT_TRUE(hits_are(skel->bss->attach_hits, 0), "detached");
out:
	free(out);
	unlink(LINK_PIN);
}

/* bpftool prog loadall OBJ DIR pinmaps DIR autoattach: fentry.multi/GLOB is
 * attached and its link pinned; bare fentry.multi programs are pinned.
 */
static void test_autoattach(struct tracing_multi_bpftool *skel)
{
	struct bpf_link_info info = {};
	__u32 len = sizeof(info), key;
	int fd = -1, map_fd = -1;
	char *out = NULL;
	__u64 val;

	SYS_NOFAIL("rm -rf %s %s", PROGS_DIR, MAPS_DIR);
	if (!ASSERT_OK(bpftool(&out, "prog loadall %s %s pinmaps %s autoattach",
			       OBJ_FILE, PROGS_DIR, MAPS_DIR), "bpftool prog loadall autoattach"))
		goto out;

	fd = bpf_obj_get(PROGS_DIR "/tmb_auto");
	if (!ASSERT_OK_FD(fd, "auto-attached link"))
		goto out;
	if (!ASSERT_OK(bpf_link_get_info_by_fd(fd, &info, &len), "link info"))
		goto out;
	ASSERT_EQ(info.type, BPF_LINK_TYPE_TRACING_MULTI, "link type");
	ASSERT_EQ(info.tracing_multi.count, NR_FUNCS, "link count");
	ASSERT_EQ(info.tracing_multi.attach_type, BPF_TRACE_FENTRY_MULTI, "link attach_type");
	/* a bare SEC("fentry.multi") is pinned as a program */
	ASSERT_OK(access(PROGS_DIR "/tmb_attach", F_OK), "bare program pinned");

	map_fd = bpf_obj_get(MAPS_DIR "/auto_hits");
	if (!ASSERT_OK_FD(map_fd, "auto_hits map"))
		goto out;
	fentry_test_run(skel->progs.tmb_cookie);
	for (key = 1; key <= NR_FUNCS; key++) {
		val = 0;
		ASSERT_OK(bpf_map_lookup_elem(map_fd, &key, &val), "lookup");
		ASSERT_EQ(val, 1, "auto_hits");
	}
out:
	free(out);
	if (map_fd >= 0)
		close(map_fd);
	if (fd >= 0)
		close(fd);
	SYS_NOFAIL("rm -rf %s %s", PROGS_DIR, MAPS_DIR);
}

/* One probe only: it loads a program per helper and type (long under TCG). */
static void test_feature(void)
{
	char *out = NULL;

	if (ASSERT_OK(bpftool(&out, "-j feature probe kernel"), "bpftool -j feature probe"))
		assert_has(out, "\"have_tracing_multi\":true", "json have_tracing_multi");
	free(out);
}

void serial_test_tracing_multi_bpftool(void)
{
	LIBBPF_OPTS(bpf_tracing_multi_opts, opts);
	struct tracing_multi_bpftool *skel;
	struct bpf_link *link;
	__u32 ids[NR_FUNCS];

	if (access(BPFTOOL, X_OK)) {
		printf("%s:SKIP: no %s\n", __func__, BPFTOOL);
		test__skip();
		return;
	}
	skel = tracing_multi_bpftool__open_and_load();
	if (!ASSERT_OK_PTR(skel, "open_and_load"))
		return;
	skel->bss->test_pid = getpid();
	/* a JIT without shared trampolines has no tracing_multi links */
	if (fentry_test_ids(ids))
		goto out;
	opts.ids = ids;
	opts.cnt = 1;
	link = bpf_program__attach_tracing_multi(skel->progs.tmb_cookie, NULL, &opts);
	if (!link && errno == EOPNOTSUPP) {
		printf("%s:SKIP: no tracing_multi support\n", __func__);
		test__skip();
		goto out;
	}
	if (!ASSERT_OK_PTR(link, "attach_tracing_multi"))
		goto out;
	bpf_link__destroy(link);
	memset(skel->bss->cookies, 0, sizeof(skel->bss->cookies));

	if (test__start_subtest("link_show"))
		test_link_show(skel);
	if (test__start_subtest("prog_attach"))
		test_prog_attach(skel);
	if (test__start_subtest("autoattach"))
		test_autoattach(skel);
	if (test__start_subtest("feature"))
		test_feature();
out:
	tracing_multi_bpftool__destroy(skel);
}
