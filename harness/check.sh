#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make check [ARCH=x86_64|arm64]: per arch, build the kernel and the
# selftests, run the listed tests in QEMU, fail on a failed test or a
# kernel splat. Last line: "N passed, N failed" over all arches.
# TESTS="a b" runs only those tests (they must be in harness/tests/list).
# With x86_64, a second x86-64 kernel runs too: CONFIG_VARIANT=mitigations
# (retpolines and call depth tracking, harness/config/mitigations.*), with
# the tests of harness/tests/list.mitigations. CHECK_VARIANTS="" leaves it
# out (the default when TESTS is given); CHECK_VARIANTS=mitigations runs it.
# CHECK_TP_ARGS: more arguments for test_progs (-v prints what passing tests
# print, their figures).
. "$(dirname "$0")/lib.sh"
arches=("$@")
[ ${#arches[@]} -gt 0 ] || arches=(x86_64 arm64)
if [ -n "${TESTS:-}" ] || [ -n "${CONFIG_VARIANT:-}" ]; then
	variants=${CHECK_VARIANTS-}
else
	variants=${CHECK_VARIANTS-mitigations}
fi
runs=()
for a in "${arches[@]}"; do
	runs+=("$a:${CONFIG_VARIANT:-}")
	if [ "$a" = x86_64 ]; then
		for v in $variants; do runs+=("x86_64:$v"); done
	fi
done

T0=$(now_s)
[ -d "$TREE/.git" ] || "$HARNESS/tree.sh"
log "base: $BASE_PKG $(base_version); arches: ${arches[*]}"
tot_pass=0; tot_fail=0; tot_skip=0; summary=(); failures=()
# UAPI numbers and layouts against upstream's header (vendored libbpf).
if "$HARNESS/uapi-check.sh"; then
	summary+=("uapi-check: ok")
else
	summary+=("uapi-check: include/uapi/linux/bpf.h differs from upstream 7.2's"); tot_fail=$((tot_fail + 1))
fi
for run in "${runs[@]}"; do
	a=${run%%:*}
	export CONFIG_VARIANT=${run#*:}
	arch_vars "$a"
	list=$HARNESS/tests/list
	[ -n "$CONFIG_VARIANT" ] && [ -f "$list.$CONFIG_VARIANT" ] && list=$list.$CONFIG_VARIANT
	out=$BUILD/check/$ANAME
	rm -rf "$out"; mkdir -p "$out"
	ta=$(now_s)
	t=$(now_s)
	if ! "$HARNESS/kernel.sh" "$KARCH"; then
		summary+=("$ANAME: kernel build failed"); tot_fail=$((tot_fail + 1)); continue
	fi
	tk=$(( $(now_s) - t )); t=$(now_s)
	if ! "$HARNESS/selftests.sh" "$KARCH"; then
		summary+=("$ANAME: selftests build failed"); tot_fail=$((tot_fail + 1)); continue
	fi
	ts=$(( $(now_s) - t )); t=$(now_s)

	sed -e 's/#.*//' -e 's/[[:space:]]//g' "$list" | grep -v -e '^@' -e '^$' > "$out/allow"
	# clients: run after test_progs, reported in its format (harness/upstream-libbpf)
	sed -n -e 's/#.*//' -e 's/^@client[[:space:]]*//p' "$list" | sed 's/[[:space:]]//g' > "$out/clients"
	cat "$out/clients" >> "$out/allow"
	if [ -n "${TESTS:-}" ]; then
		for x in $TESTS; do grep -qxF "$x" "$out/allow" || die "TESTS: $x is not in ${list#$REPO/}"; done
		printf '%s\n' $TESTS > "$out/allow"
	fi
	sed -e 's/#.*//' -e 's/[[:space:]]//g' "$HARNESS/tests/deny.$KARCH" 2>/dev/null | sed '/^$/d' > "$out/deny" || true
	cat > "$out/job.sh" <<-JOB
	set -o pipefail
	out=/work/check/$ANAME
	cd $GUEST_SOUT
	./test_progs ${CHECK_TP_ARGS:-} -a @\$out/allow -d @\$out/deny 2>&1 | tee \$out/test_progs.log | sed 's/^/TP: /'
	echo "test_progs exit status \$?"
	for c in \$(cat \$out/clients); do
		grep -qxF "\$c" \$out/allow || continue
		grep -qxF "\$c" \$out/deny && continue
		./\${c}_client 2>&1 | tee -a \$out/test_progs.log | sed 's/^/TP: /'
		echo "\$c exit status \$?"
	done
	dmesg > \$out/dmesg.log
	JOB
	guest_ok=1
	"$HARNESS/guest.sh" "$KARCH" "check/$ANAME/job.sh" "$out/console.log" || guest_ok=0
	tg=$(( $(now_s) - t ))

	res=$(python3 "$HARNESS/results.py" "$KARCH" "$out/test_progs.log" "$out/console.log" "$out/dmesg.log" "$out/allow" "$out/failures") || true
	failures+=("$out/failures")
	printf '%s\n' "$res"
	line=$(tail -n 1 <<<"$res")
	p=$(sed -E 's/.*: ([0-9]+) passed.*/\1/' <<<"$line")
	f=$(sed -E 's/.* ([0-9]+) failed.*/\1/' <<<"$line")
	s=$(sed -E 's/.* ([0-9]+) skipped.*/\1/' <<<"$line")
	n=$(sed -E 's/.* ([0-9]+) splats.*/\1/' <<<"$line")
	[ "$n" -gt 0 ] && f=$((f + 1))		# a splat fails the arch
	[ $guest_ok -eq 1 ] || { f=$((f + 1)); tail -n 30 "$out/console.log" >&2; }
	tot_pass=$((tot_pass + p)); tot_fail=$((tot_fail + f)); tot_skip=$((tot_skip + s))
	summary+=("$line; guest ok: $guest_ok; time: kernel ${tk}s, selftests ${ts}s, guest ${tg}s, total $(( $(now_s) - ta ))s")
done
echo "== make check ($BASE_PKG $(base_version)), $(( $(now_s) - T0 ))s"
printf '%s\n' "${summary[@]}"
# what failed, at the end, where the tail of CI's output shows it
for f in "${failures[@]}"; do if [ -s "$f" ]; then cat "$f"; fi; done
echo "$tot_pass passed, $tot_fail failed, $tot_skip skipped"
[ "$tot_fail" -eq 0 ]
