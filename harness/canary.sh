#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make canary [ARCH=x86_64|arm64] [TCG_THREAD=single|multi] [CANARY_ROUNDS=n]:
# boot the arch's test kernel with an empty job and run only the emulator
# canary (harness/canary/smc-canary.c), 20,000 rewrites by default. Prints
# the stale executions it saw; fails when there were any, except under
# TCG_THREAD=multi, the mode known to have them (harness/README.md, "Emulator").
. "$(dirname "$0")/lib.sh"
arch_vars "${1:-x86_64}"

"$HARNESS/kernel.sh" "$KARCH"
out=$BUILD/canary/$ANAME
mkdir -p "$out"
echo ': nothing but the canary' > "$out/job.sh"
t0=$(now_s)
CANARY_ROUNDS=${CANARY_ROUNDS:-20000} GUEST_LOGLEVEL=4 \
	"$HARNESS/guest.sh" "$KARCH" "canary/$ANAME/job.sh" "$out/console.log"
stage_done "canary-guest-$KARCH" "$t0"
