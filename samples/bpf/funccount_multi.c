// SPDX-License-Identifier: GPL-2.0
/* funccount_multi: count calls of the kernel functions matching a glob, like
 * bcc's funccount, with one fentry.multi program attached to all of them by
 * one link.
 *
 *   funccount_multi [-t TOP] [PATTERN [COMMAND [ARG...]]]
 *
 * PATTERN is a glob over function names, "module:glob" for a module's
 * functions (default "vfs_*"). COMMAND is the workload (default: a built-in
 * one that opens, writes, reads and stats files). Prints how long the attach
 * took, how many functions and shared trampolines it took, the top functions
 * by calls, and the detach time.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "funccount_multi.skel.h"

#define TRAMPS_FILE "/sys/kernel/debug/bpf_multi_trampolines"

struct func_count {
	unsigned long long addr;
	unsigned long long calls;
	char name[128];
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The built-in workload: some file system traffic. */
static int workload(void)
{
	char path[] = "/tmp/funccount_multi.XXXXXX", buf[4096];
	struct stat st;
	int i, fd;

	fd = mkstemp(path);
	if (fd < 0)
		return -errno;
	memset(buf, 'x', sizeof(buf));
	for (i = 0; i < 100; i++) {
		if (pwrite(fd, buf, sizeof(buf), (off_t)i * sizeof(buf)) != sizeof(buf))
			break;
		if (pread(fd, buf, sizeof(buf), 0) < 0)
			break;
		fstat(fd, &st);
		stat(path, &st);
	}
	close(fd);
	unlink(path);
	return 0;
}

static int run_command(char **argv)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -errno;
	if (!pid) {
		execvp(argv[0], argv);
		perror(argv[0]);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0)
		return -errno;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Trampolines that run @link_id, from debugfs: shared images in *shared,
 * functions with their own image (they have ordinary programs too) in *own.
 */
static int count_trampolines(__u32 link_id, int *shared, int *own)
{
	char line[4096], want[32];
	FILE *f;

	*shared = *own = 0;
	f = fopen(TRAMPS_FILE, "r");
	if (!f)
		return -1;
	snprintf(want, sizeof(want), "%u", link_id);
	while (fgets(line, sizeof(line), f)) {
		char *links = strstr(line, "links=");
		char *tok, *save;

		if (line[0] == '\t' || !links)
			continue;
		links += 6;
		links[strcspn(links, " \n")] = 0;
		for (tok = strtok_r(links, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
			if (strcmp(tok, want))
				continue;
			if (!strncmp(line, "shared", 6))
				(*shared)++;
			else
				(*own)++;
		}
	}
	fclose(f);
	return 0;
}

static void kallsyms_names(struct func_count *fc, size_t n)
{
	unsigned long long addr;
	char type, name[128];
	size_t i;
	FILE *f;

	f = fopen("/proc/kallsyms", "r");
	if (!f)
		return;
	while (fscanf(f, "%llx %c %127s%*[^\n]\n", &addr, &type, name) == 3) {
		for (i = 0; i < n; i++)
			if (fc[i].addr == addr && !fc[i].name[0])
				snprintf(fc[i].name, sizeof(fc[i].name), "%s", name);
	}
	fclose(f);
}

static int cmp_calls(const void *a, const void *b)
{
	const struct func_count *x = a, *y = b;

	return x->calls < y->calls ? 1 : x->calls > y->calls ? -1 : 0;
}

int main(int argc, char **argv)
{
	struct bpf_link_info info = {};
	__u32 info_len = sizeof(info);
	const char *pattern = "vfs_*";
	struct funccount_multi *skel;
	struct func_count *fc = NULL;
	unsigned long long key, *prev = NULL;
	struct bpf_link *link;
	size_t n = 0, i, cap = 0;
	double t0, t1, t2;
	int top = 10, opt, err = 1, fd, shared, own;

	while ((opt = getopt(argc, argv, "+t:")) != -1) {
		if (opt != 't') {
			fprintf(stderr, "usage: %s [-t TOP] [PATTERN [COMMAND [ARG...]]]\n",
				argv[0]);
			return 2;
		}
		top = atoi(optarg);
	}
	if (optind < argc)
		pattern = argv[optind++];

	skel = funccount_multi__open_and_load();
	if (!skel) {
		fprintf(stderr, "funccount_multi: load failed: %s\n", strerror(errno));
		return 1;
	}
	t0 = now();
	link = bpf_program__attach_tracing_multi(skel->progs.count, pattern, NULL);
	t1 = now();
	if (!link) {
		fprintf(stderr, "funccount_multi: attach to '%s' failed: %s\n",
			pattern, strerror(errno));
		goto out;
	}
	if (bpf_link_get_info_by_fd(bpf_link__fd(link), &info, &info_len)) {
		fprintf(stderr, "funccount_multi: link info: %s\n", strerror(errno));
		goto out_link;
	}
	printf("funccount_multi: attached to %u functions matching '%s' in %.3f s, ",
	       info.tracing_multi.count, pattern, t1 - t0);
	if (count_trampolines(info.id, &shared, &own))
		printf("trampolines: n/a (no %s)\n", TRAMPS_FILE);
	else
		printf("%d trampolines (%d shared, %d own)\n", shared + own, shared, own);

	if (optind < argc) {
		printf("funccount_multi: running '%s'\n", argv[optind]);
		if (run_command(argv + optind))
			fprintf(stderr, "funccount_multi: '%s' failed\n", argv[optind]);
	} else if (workload()) {
		fprintf(stderr, "funccount_multi: workload failed\n");
	}

	fd = bpf_map__fd(skel->maps.counts);
	while (!bpf_map_get_next_key(fd, prev, &key)) {
		if (n == cap) {
			struct func_count *tmp;

			cap = cap ? 2 * cap : 256;
			tmp = realloc(fc, cap * sizeof(*fc));
			if (!tmp)
				goto out_link;
			fc = tmp;
		}
		memset(&fc[n], 0, sizeof(fc[n]));
		fc[n].addr = key;
		if (bpf_map_lookup_elem(fd, &key, &fc[n].calls))
			continue;
		n++;
		prev = &key;
	}
	qsort(fc, n, sizeof(*fc), cmp_calls);
	if (n > (size_t)top)
		n = top;
	kallsyms_names(fc, n);
	printf("%-40s %12s\n", "FUNC", "CALLS");
	for (i = 0; i < n; i++)
		printf("%-40s %12llu\n", fc[i].name[0] ? fc[i].name : "?", fc[i].calls);
	if (skel->bss->lost)
		printf("funccount_multi: %llu calls not counted (map full)\n",
		       (unsigned long long)skel->bss->lost);
	err = n ? 0 : 1;
out_link:
	t1 = now();
	bpf_link__destroy(link);
	t2 = now();
	printf("funccount_multi: detached in %.3f s\n", t2 - t1);
out:
	funccount_multi__destroy(skel);
	free(fc);
	if (!err)
		printf("funccount_multi: OK\n");
	return err;
}
