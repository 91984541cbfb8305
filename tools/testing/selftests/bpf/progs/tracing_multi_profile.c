// SPDX-License-Identifier: GPL-2.0
/*
 * A sampling profile of the kernel's work for one thread
 * (prog_tests/tracing_multi_bench.c, tracing_multi_bench_profile): each
 * sample of a cpu-clock event counts the kernel stack it interrupted, by
 * its stack id and whether profile_detach was set.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char _license[] SEC("license") = "GPL";

#define PROFILE_DEPTH 48

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, 65536);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, PROFILE_DEPTH * sizeof(__u64));
} profile_stacks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, __u64);
	__type(value, __u64);
} profile_counts SEC(".maps");

bool profile_on, profile_detach;
__u64 profile_lost;

SEC("perf_event")
int profile_sample(struct bpf_perf_event_data *ctx)
{
	__u64 one = 1, key, *n;
	long id;

	if (!profile_on)
		return 0;
	/* a sample in user space has no kernel stack: counted as lost */
	id = bpf_get_stackid(ctx, &profile_stacks, 0);
	if (id < 0) {
		profile_lost++;
		return 0;
	}
	key = (__u32)id | (__u64)profile_detach << 32;
	n = bpf_map_lookup_elem(&profile_counts, &key);
	if (n)
		__sync_fetch_and_add(n, 1);
	else if (bpf_map_update_elem(&profile_counts, &key, &one, BPF_NOEXIST))
		profile_lost++;
	return 0;
}
