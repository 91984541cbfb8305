#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench [ARCH=x86_64|arm64]: boot the arch's kernel and run the
# benchmarks (test_progs tests that print "BENCH ..." lines and assert
# nothing about speed): today the all-functions attach benchmark,
# fentry.multi against kprobe.multi (x86-64 only: arm64 6.12 has no
# kprobe.multi). Prints the BENCH lines.
. "$(dirname "$0")/lib.sh"
arch_vars "${1:-x86_64}"

"$HARNESS/kernel.sh" "$KARCH"
"$HARNESS/selftests.sh" "$KARCH"
out=$BUILD/bench/$ANAME
mkdir -p "$out"
cat > "$out/job.sh" <<JOB
cd $GUEST_SOUT
./test_progs -v -a tracing_multi_bench_trigger,tracing_multi_bench_attach > /work/bench/$ANAME/test_progs.log 2>&1
echo "test_progs exit status \$?"
dmesg > /work/bench/$ANAME/dmesg.log
JOB
"$HARNESS/guest.sh" "$KARCH" "bench/$ANAME/job.sh" "$out/console.log"
grep -h '^BENCH' "$out/test_progs.log" || { tail -n 30 "$out/test_progs.log"; exit 1; }
python3 "$HARNESS/results.py" "$KARCH" /dev/null "$out/console.log" "$out/dmesg.log" /dev/null | tail -n 1
