#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make kallsyms-test [ARCH=...]: the kernel's kallsyms selftest
# (kernel/kallsyms_selftest.c, CONFIG_KALLSYMS_SELFTEST), which checks
# kallsyms_on_each_symbol_range() beside 6.12's walks, on the test config
# plus harness/config/kallsyms.config (build/<arch>-kallsyms). The selftest
# runs at boot; the guest waits for its last line ("finish", or "abort"
# after a failure) and the console goes to build/kallsyms-test/<arch>.log.
# Slow (a kernel of its own, and the selftest's lookups of every symbol
# under emulation): not part of make check.
. "$(dirname "$0")/lib.sh"
export CONFIG_VARIANT=kallsyms
arch_vars "${1:?usage: kallsyms-test.sh ARCH}"
"$HARNESS/kernel.sh" "$KARCH"
out=$BUILD/kallsyms-test
mkdir -p "$out"
cat > "$out/$KARCH.job" <<'JOB'
for i in $(seq 720); do
	dmesg | grep -q 'kallsyms_selftest: \(finish\|abort\)' && break
	sleep 5
done
JOB
GUEST_TIMEOUT=${GUEST_TIMEOUT:-5400} \
	"$HARNESS/guest.sh" "$KARCH" "kallsyms-test/$KARCH.job" "$out/$KARCH.log"
grep -o 'kallsyms_selftest:.*' "$out/$KARCH.log" >&2 || true
if grep -q 'kallsyms_selftest: finish' "$out/$KARCH.log" &&
   ! grep -q 'kallsyms_selftest: abort' "$out/$KARCH.log"; then
	log "kallsyms-test $KARCH: passed"
else
	die "kallsyms-test $KARCH: failed (${out#$REPO/}/$KARCH.log)"
fi
