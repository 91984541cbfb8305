// SPDX-License-Identifier: GPL-2.0
/* make run demo: attach fentry and fexit programs to vfs_read, read a file
 * a known number of times, print what the programs counted.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "fcount.skel.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(void)
{
	struct fcount *skel;
	char buf[64];
	unsigned long long calls, bytes;
	int i, fd, ok, n = 1000;
	double t;

	skel = fcount__open_and_load();
	if (!skel) {
		fprintf(stderr, "fcount: load failed: %s\n", strerror(errno));
		return 1;
	}
	skel->bss->pid = getpid();
	t = now();
	if (fcount__attach(skel)) {
		fprintf(stderr, "fcount: attach failed: %s\n", strerror(errno));
		return 1;
	}
	printf("fcount: fentry+fexit on vfs_read attached in %.3f ms\n", (now() - t) * 1e3);
	fd = open("/proc/self/stat", O_RDONLY);
	for (i = 0; i < n; i++)
		if (pread(fd, buf, sizeof(buf), 0) <= 0)
			break;
	close(fd);
	calls = skel->bss->calls;
	bytes = skel->bss->bytes;
	fcount__destroy(skel);
	printf("fcount: %d reads of %zu bytes: fentry counted %llu calls, fexit %llu bytes\n",
	       i, sizeof(buf), calls, bytes);
	ok = i == n && calls == (unsigned long long)n && bytes == (unsigned long long)n * sizeof(buf);
	printf("fcount: %s\n", ok ? "OK" : "MISMATCH");
	return !ok;
}
