#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make stress [ARCH=x86_64|arm64] [ROUNDS=n] [STRESS_TESTS="..."]: boot the
# arch's kernel once and run the tests that attach and detach the most
# (all functions at once, twice; moves between images under calls; random
# link sets; on x86-64 a live patch enabled and disabled while multi links
# (one allocation of each multi attach and detach failing at random) and an
# ordinary program come and go under calls: tracing_multi_lp_race,
# TRACING_MULTI_RACE_SECS=20; every allocation of an attach and a detach
# failing in turn: tracing_multi_fault) ROUNDS times in a row, stopping at the first failure. Fails on a
# failed round or any kernel splat. The test kernel has
# CONFIG_FTRACE_DIRECT_VERIFY: every freed trampoline and ftrace_ops is first
# checked to be unreachable from ftrace. Run it beside another guest (e.g.
# both arches at once) to stress timing as a loaded host does.
. "$(dirname "$0")/lib.sh"
arch_vars "${1:-x86_64}"
rounds=${ROUNDS:-10}
tests=${STRESS_TESTS:-tracing_multi_attach_all tracing_multi/gap_free tracing_multi/random_subsets tracing_multi/seed_orders tracing_multi/max_links tracing_multi_fault tracing_multi_lp_race}
[[ $rounds =~ ^[1-9][0-9]*$ ]] || die "ROUNDS must be a positive number"

"$HARNESS/kernel.sh" "$KARCH"
"$HARNESS/selftests.sh" "$KARCH"
out=$BUILD/stress/$ANAME
rm -rf "$out"; mkdir -p "$out"
cat > "$out/job.sh" <<JOB
out=/work/stress/$ANAME
cd $GUEST_SOUT
ok=0
for r in \$(seq 1 $rounds); do
	echo "harness: stress round \$r" > /dev/kmsg
	if ! ./test_progs -v -a '$(tr ' ' ',' <<<"$tests")' > \$out/round.log 2>&1; then
		cp \$out/round.log \$out/failed-round-\$r.log
		echo "stress: round \$r failed"
		break
	fi
	ok=\$r
	echo "stress: round \$r ok: \$(grep -h -e 'attached and detached' -e '^lp_race:' -e '^attach: ' -e '^detach: ' \$out/round.log | tr '\n' ' ')"
done
echo "stress: \$ok of $rounds rounds passed"
dmesg > \$out/dmesg.log
JOB
# A round takes about 1 minute (x86-64) or 1.5 minutes (arm64) under TCG.
GUEST_TIMEOUT=${GUEST_TIMEOUT:-$((600 + rounds * 300))} \
	"$HARNESS/guest.sh" "$KARCH" "stress/$ANAME/job.sh" "$out/console.log" || true
grep -h '^stress:' "$out/console.log" || true
splats=$(python3 "$HARNESS/results.py" "$KARCH" /dev/null "$out/console.log" "$out/dmesg.log" /dev/null | tail -n 1 | sed -E 's/.* ([0-9]+) splats.*/\1/')
grep -q "^stress: $rounds of $rounds rounds passed" "$out/console.log" && [ "$splats" = 0 ] ||
	die "$KARCH stress failed: see ${out#$REPO/}/console.log and dmesg.log"
log "$KARCH stress: $rounds rounds, no failure, no splat"
