// SPDX-License-Identifier: GPL-2.0
/*
 * smc-canary: does this (emulated) machine execute cross-modified code
 * correctly? Run in a guest by the harness before every job.
 *
 * One thread (the writer, on CPU 0) rewrites a branch instruction in an
 * executable page, from "branch to stub A" to "branch to stub B" and back,
 * with the architecture's full sequence for code that another CPU will
 * run, then publishes a generation number with a release store. The other
 * thread (the runner, pinned to CPU 1) keeps calling the code while it
 * waits, so the code stays hot in whatever translates it; when it has
 * acquired the new generation it executes the architecture's context
 * synchronization (arm64: ISB; x86: CPUID, serializing) and calls the code
 * once more. The architecture guarantees that call reaches the new stub.
 * A call that reaches the old one is a "stale execution": the emulator ran
 * a translation of bytes that memory no longer holds, which is what a
 * freed trampoline entered from a call site that ftrace has already turned
 * into a NOP looks like in the kernel.
 *
 * The writer waits for the runner to acknowledge each generation, so each
 * rewrite is checked exactly once. Waits spin a little, then sleep on a
 * futex: under single-threaded TCG the two vCPUs take turns on one host
 * thread and a spinning waiter would hold it for a whole time slice.
 *
 * Usage: smc-canary [ROUNDS]   (default 20000)
 * Prints "smc-canary: ROUNDS rewrites, N stale executions" and exits 0
 * when N is 0, 1 when it is not, 2 when it cannot run (fewer than 2 CPUs,
 * no executable memory).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define SPINS 2000

/* Layout of the code page: the branch at 0, stub A at 64, stub B at 128. */
#define OFF_A 64
#define OFF_B 128

static uint8_t *code;
static unsigned int gen, ack;	/* published by the writer / the runner */
static unsigned long rounds, stale, calls_while_waiting;

typedef int (*code_fn)(void);

#if defined(__aarch64__)
/* b <off> from offset 0: imm26 = off / 4 */
static uint32_t branch_to(unsigned int off)
{
	return 0x14000000u | (off / 4);
}

static void put_stub(uint8_t *p, int val)
{
	uint32_t insn[2] = {
		0x52800000u | ((uint32_t)val << 5),	/* mov w0, #val */
		0xd65f03c0u,				/* ret */
	};

	memcpy(p, insn, sizeof(insn));
}

/* The sequence the kernel's aarch64_insn_patch_text_nosync() uses:
 * clean to the point of unification, invalidate the I-cache line, both
 * completed before the generation is published.
 */
static void write_branch(unsigned int off)
{
	uint32_t insn = branch_to(off);

	__atomic_store_n((uint32_t *)code, insn, __ATOMIC_RELAXED);
	asm volatile("dc cvau, %0\n\tdsb ish\n\tic ivau, %0\n\tdsb ish"
		     :: "r"(code) : "memory");
}

static void sync_core(void)
{
	asm volatile("isb" ::: "memory");
}
#elif defined(__x86_64__)
static void put_stub(uint8_t *p, int val)
{
	p[0] = 0xb8;			/* mov eax, imm32 */
	memcpy(p + 1, &val, 4);
	p[5] = 0xc3;			/* ret */
}

/* The page starts with a 3-byte NOP, then the jmp (e9) at 3, so that its
 * rel32 sits 4-byte aligned at 4 and is written with one store; the next
 * instruction is at 8.
 */
static void write_branch(unsigned int off)
{
	int32_t rel = (int32_t)off - 8;

	__atomic_store_n((int32_t *)(code + 4), rel, __ATOMIC_RELAXED);
}

static void sync_core(void)
{
	unsigned int a = 0, b, c = 0, d;

	asm volatile("cpuid" : "+a"(a), "=b"(b), "+c"(c), "=d"(d) :: "memory");
}
#else
#error "smc-canary: x86_64 or aarch64"
#endif

static void futex_wait(unsigned int *addr, unsigned int val)
{
	syscall(SYS_futex, addr, FUTEX_WAIT_PRIVATE, val, NULL, NULL, 0);
}

static void futex_wake(unsigned int *addr)
{
	syscall(SYS_futex, addr, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

/* Wait until *addr != old; run the code meanwhile if asked to. */
static unsigned int wait_change(unsigned int *addr, unsigned int old, int run)
{
	unsigned int v;
	int i = 0;

	while ((v = __atomic_load_n(addr, __ATOMIC_ACQUIRE)) == old) {
		if (run) {
			((code_fn)code)();
			calls_while_waiting++;
		}
		if (++i >= SPINS) {
			futex_wait(addr, old);
			i = 0;
		}
	}
	return v;
}

static int pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

static int expected(unsigned int g)
{
	return g & 1 ? 2 : 1;
}

static void *runner(void *arg)
{
	unsigned int g;

	if (pin(1))
		perror("smc-canary: pinning the reading thread to CPU 1");
	for (g = 1; g <= rounds; g++) {
		wait_change(&gen, g - 1, 1);
		sync_core();
		if (((code_fn)code)() != expected(g))
			stale++;
		__atomic_store_n(&ack, g, __ATOMIC_RELEASE);
		futex_wake(&ack);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	struct timespec t0, t1;
	pthread_t thr;
	unsigned int g;

	rounds = argc > 1 ? strtoul(argv[1], NULL, 0) : 20000;
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2) {
		printf("smc-canary: needs 2 CPUs\n");
		return 2;
	}
	code = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (code == MAP_FAILED) {
		printf("smc-canary: mmap: %s\n", strerror(errno));
		return 2;
	}
#if defined(__x86_64__)
	memcpy(code, "\x0f\x1f\x00\xe9", 4);	/* nopl (%rax); jmp rel32 */
#endif
	put_stub(code + OFF_A, 1);
	put_stub(code + OFF_B, 2);
	write_branch(OFF_A);			/* generation 0: stub A */
	__builtin___clear_cache((char *)code, (char *)code + 4096);
	if (pin(0))
		perror("smc-canary: pinning the writing thread to CPU 0");
	if (pthread_create(&thr, NULL, runner, NULL)) {
		printf("smc-canary: pthread_create failed\n");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (g = 1; g <= rounds; g++) {
		write_branch(expected(g) == 1 ? OFF_A : OFF_B);
		__atomic_store_n(&gen, g, __ATOMIC_RELEASE);
		futex_wake(&gen);
		wait_change(&ack, g - 1, 0);
	}
	pthread_join(thr, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("smc-canary: %lu rewrites, %lu stale executions (%lu calls while waiting, %.1f s)\n",
	       rounds, stale, calls_while_waiting,
	       t1.tv_sec - t0.tv_sec + (t1.tv_nsec - t0.tv_nsec) / 1e9);
	return stale ? 1 : 0;
}
