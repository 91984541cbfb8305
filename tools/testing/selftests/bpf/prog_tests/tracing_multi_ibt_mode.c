// SPDX-License-Identifier: GPL-2.0
/* tracing_multi again, with the kernel taking an IBT host's decisions
 * (<debugfs>/bpf_multi_no_shared_call_orig): functions whose multi links
 * call the original function (fexit.multi, fmod_ret.multi) get their own
 * images, as on x86 hosts with IBT enabled, which QEMU TCG does not emulate.
 */
#include <test_progs.h>
#include "tracing_multi.skel.h"
#include "tracing_multi_common.h"

#define KNOB "/sys/kernel/debug/bpf_multi_no_shared_call_orig"

void test_tracing_multi(void);

static int knob_set(const char *val)
{
	int fd = open(KNOB, O_WRONLY), err = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, val, 1) != 1)
		err = -errno;
	close(fd);
	return err;
}

static void count_tramps(int *shared, int *own)
{
	FILE *f = fopen("/sys/kernel/debug/bpf_multi_trampolines", "r");
	char line[256];

	*shared = *own = 0;
	if (!ASSERT_OK_PTR(f, "open bpf_multi_trampolines"))
		return;
	while (fgets(line, sizeof(line), f)) {
		*shared += !strncmp(line, "shared ", 7);
		*own += !strncmp(line, "own ", 4);
	}
	fclose(f);
}

/* fexit.multi on bpf_fentry_test1..9: shared images, or one each. */
static void check_mode(bool ibt)
{
	struct tracing_multi *skel;
	struct bpf_link *link;
	int shared, own;

	skel = tracing_multi__open_and_load();
	if (!ASSERT_OK_PTR(skel, "open_and_load"))
		return;
	link = bpf_program__attach(skel->progs.fexit_all);
	if (!ASSERT_OK_PTR(link, "attach fexit_all"))
		goto out;
	count_tramps(&shared, &own);
	if (ibt) {
		ASSERT_EQ(shared, 0, "ibt mode: shared images");
		ASSERT_EQ(own, 9, "ibt mode: own images");
	} else {
		ASSERT_GT(shared, 0, "shared images");
		ASSERT_EQ(own, 0, "own images");
	}
	bpf_link__destroy(link);
out:
	tracing_multi__destroy(skel);
}

void test_tracing_multi_ibt_mode(void)
{
	if (!ASSERT_OK(knob_set("1"), "set " KNOB))
		return;
	check_mode(true);
	test_tracing_multi();
	ASSERT_OK(knob_set("0"), "clear " KNOB);
	check_mode(tracing_multi_host_ibt());
}
