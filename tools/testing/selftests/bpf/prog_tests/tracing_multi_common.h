/* SPDX-License-Identifier: GPL-2.0 */
/* What the tracing_multi tests share: the helpers of tracing_multi_helpers.c
 * (tracing_multi_helpers.h), a debug switch, and the helpers of some tests
 * that others use.
 */
#ifndef __TRACING_MULTI_COMMON_H
#define __TRACING_MULTI_COMMON_H

#include <test_progs.h>
#include <bpf/btf.h>
#include "tracing_multi_helpers.h"

/*
 * Debug switch (Y or N): trampolines call the traced function by returning
 * into it, as the x86 JIT does where IBT is enforced (BPF_TRAMP_F_CALL_BY_RETURN).
 */
#define CALL_BY_RETURN_KNOB "/sys/kernel/debug/bpf_tramp_call_by_return"

/* Defined by tests, each beside the skeleton it uses: */
/* tracing_multi.c: its subtests, which tracing_multi_ibt_mode runs again */
void tracing_multi_run_subtests(void);
/* tracing_multi_hardening.c: its live patch subtest */
void tracing_multi_test_livepatch(void);
/* if set, called where the live-patched function has an own image with fexit programs */
extern void (*tracing_multi_lp_own_check)(const char *step);

#endif
