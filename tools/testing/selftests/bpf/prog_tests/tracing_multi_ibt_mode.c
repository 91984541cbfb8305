// SPDX-License-Identifier: GPL-2.0
/*
 * tracing_multi again, with trampolines calling the traced function as on
 * an x86 host with IBT enforced, which QEMU TCG does not emulate: by
 * returning into its body (<debugfs>/bpf_tramp_call_by_return), which has
 * no ENDBR for an indirect call. fexit.multi and fmod_ret.multi functions
 * share images all the same; the images hold the return-based call (read
 * back from kernel text), and the live patch subtest runs its own images
 * (BPF_TRAMP_F_ORIG_STACK) that way too, read back as well.
 */
#include <test_progs.h>
#include "trace_helpers.h"
#include "tracing_multi.skel.h"
#include "tracing_multi_text.skel.h"
#include "tracing_multi_common.h"

#if defined(__x86_64__)
/*
 * The x86 JIT's emit_call_by_return(): a call (e8 rel32) to a push of the
 * trampoline's return address, the body (push 8(%rbp): ff 75 08), in the
 * same image.
 */
static const __u8 by_return_push[] = { 0xff, 0x75, 0x08 };

static bool calls_by_return_at(const __u8 *text, size_t len, size_t i)
{
	__s32 rel;
	long long to;

	if (text[i] != 0xe8 || i + 5 > len)
		return false;
	memcpy(&rel, text + i + 1, sizeof(rel));
	to = (long long)i + 5 + rel;
	return to >= 0 && to + sizeof(by_return_push) <= len &&
	       !memcmp(text + to, by_return_push, sizeof(by_return_push));
}
#elif defined(__aarch64__)
/* adr x30, #8; ret x10: arm64's trampolines always call by return */
static const __u8 by_return[] = { 0x5e, 0x00, 0x00, 0x10, 0x40, 0x01, 0x5f, 0xd6 };
#define ALWAYS_BY_RETURN

static bool calls_by_return_at(const __u8 *text, size_t len, size_t i)
{
	return i + sizeof(by_return) <= len && !memcmp(text + i, by_return, sizeof(by_return));
}
#endif

/* Does the JIT call by return without the switch: with IBT enforced, or on arm64? */
static bool host_calls_by_return(void)
{
	FILE *f;
	char line[4096];
	bool ibt = false;

#ifdef ALWAYS_BY_RETURN
	return true;
#endif
	f = fopen("/proc/cpuinfo", "r");
	if (!f)
		return false;
	while (!ibt && fgets(line, sizeof(line), f))
		ibt = !strncmp(line, "flags", 5) && strstr(line, " ibt");
	fclose(f);
	return ibt;
}

/* The address of the ksym @name, or 0. */
static __u64 ksym_addr(const char *name)
{
	unsigned long long addr;

	return kallsyms_find(name, &addr) ? 0 : addr;
}

/* Does bpf_trampoline_<@key> (@size bytes) call by return? 1, 0, or -1 (error). */
static int image_calls_by_return(struct tracing_multi_text *text, unsigned long long key,
				 __u32 size)
{
	LIBBPF_OPTS(bpf_test_run_opts, topts);
	char name[64];
	size_t i;

	snprintf(name, sizeof(name), "bpf_trampoline_%llu", key);
	text->bss->text_addr = ksym_addr(name);
	if (!ASSERT_NEQ(text->bss->text_addr, 0, name))
		return -1;
	/* the image and nothing after it, where another image may be */
	if (!ASSERT_LE(size, sizeof(text->bss->text), "image size"))
		return -1;
	text->bss->text_len = size;
	if (!ASSERT_OK(bpf_prog_test_run_opts(bpf_program__fd(text->progs.read_text), &topts),
		       "read_text") ||
	    !ASSERT_OK(text->bss->text_err, "read image text"))
		return -1;
	for (i = 0; i < text->bss->text_len; i++)
		if (calls_by_return_at((const __u8 *)text->bss->text, text->bss->text_len, i))
			return 1;
	return 0;
}

/*
 * fexit.multi on bpf_fentry_test1..9: shared images, none of their own;
 * each calls its functions by return or not, as @by_return says.
 */
static void check_mode(bool by_return)
{
	struct tracing_multi_text *text = NULL;
	struct tracing_multi *skel;
	unsigned long long id;
	int shared, own, n = 0, ret, i;
	__u32 size;
	struct bpf_link *link;
	char line[256];
	FILE *f;

	skel = tracing_multi__open_and_load();
	if (!ASSERT_OK_PTR(skel, "open_and_load"))
		return;
	skel->bss->test_pid = getpid();
	text = tracing_multi_text__open_and_load();
	if (!ASSERT_OK_PTR(text, "open_and_load text"))
		goto out;
	link = bpf_program__attach(skel->progs.fexit_all);
	if (!ASSERT_OK_PTR(link, "attach fexit_all"))
		goto out;
	if (!count_multi_tramps(&shared, &own)) {
		ASSERT_GT(shared, 0, "shared images");
		ASSERT_EQ(own, 0, "own images");
	}
	f = fopen("/sys/kernel/debug/bpf_multi_trampolines", "r");
	if (ASSERT_OK_PTR(f, "open bpf_multi_trampolines")) {
		while (fgets(line, sizeof(line), f)) {
			if (sscanf(line, "shared %llu args=%*u funcs=%*u size=%u", &id, &size) != 2)
				continue;
			/* shared images' keys: their id with bit 63 set */
			ret = image_calls_by_return(text, id | (1ULL << 63), size);
			if (ret < 0)
				break;
			ASSERT_EQ(ret, by_return, "image calls the function by return");
			n++;
		}
		fclose(f);
		ASSERT_EQ(n, shared, "images read");
	}
	/* the functions run and return their values through the images */
	fentry_test_run(skel->progs.fexit_all);
	for (i = 1; i <= NR_FUNCS; i++)
		ASSERT_EQ(skel->bss->fexit_hits[i], 1, "fexit_hits");
	ASSERT_EQ(skel->bss->bad, 0, "bad");
	bpf_link__destroy(link);
out:
	tracing_multi_text__destroy(text);
	tracing_multi__destroy(skel);
}

/*
 * For the live patch test: the live-patched function's own image
 * (BPF_TRAMP_F_ORIG_STACK) calls what the patch left by return too.
 */
static void own_images_by_return(const char *step)
{
	struct tracing_multi_text *text;
	unsigned long long key;
	char line[256], name[96];
	int n = 0, ret;
	__u32 size;
	FILE *f;

	/* the function's images put before keep their ksym, of the same
	 * name, until they are freed
	 */
	snprintf(name, sizeof(name), "%s: images put before freed", step);
	if (!ASSERT_EQ(tramp_images_wait_freed(20000), 0, name))
		return;
	text = tracing_multi_text__open_and_load();
	if (!ASSERT_OK_PTR(text, "open_and_load text"))
		return;
	f = fopen("/sys/kernel/debug/bpf_multi_trampolines", "r");
	if (!ASSERT_OK_PTR(f, "open bpf_multi_trampolines"))
		goto out;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "own key=%llu args=%*u progs=%*d size=%u", &key, &size) != 2)
			continue;
		ret = image_calls_by_return(text, key, size);
		if (ret < 0)
			break;
		snprintf(name, sizeof(name), "%s: own image calls by return", step);
		ASSERT_EQ(ret, 1, name);
		n++;
	}
	fclose(f);
	snprintf(name, sizeof(name), "%s: own images read", step);
	ASSERT_EQ(n, 1, name);
out:
	tracing_multi_text__destroy(text);
}

/* serial: the switch is global, and every shared image is checked */
void serial_test_tracing_multi_ibt_mode(void)
{
	if (!ASSERT_OK(tracing_multi_write_file(CALL_BY_RETURN_KNOB, "Y"),
		       "set " CALL_BY_RETURN_KNOB))
		return;
	if (test__start_subtest("images_by_return"))
		check_mode(true);
	tracing_multi_run_subtests();
	if (test__start_subtest("livepatch_by_return")) {
		tracing_multi_lp_own_check = own_images_by_return;
		tracing_multi_test_livepatch();
		tracing_multi_lp_own_check = NULL;
	}
	ASSERT_OK(tracing_multi_write_file(CALL_BY_RETURN_KNOB, "N"), "clear " CALL_BY_RETURN_KNOB);
	if (test__start_subtest("images_as_the_host"))
		check_mode(host_calls_by_return());
}
