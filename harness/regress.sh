#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make regress [ARCH=x86_64|arm64] [SUITES="..."]: the kernel's own test
# suites on the base kernel and on the patched one, same config (the test
# config and harness/config/regress*.config: CONFIG_VARIANT=regress), same
# tests (the base tree's), and what differs.
#
# Suites (SUITES, default all, in this order):
#   livepatch      tools/testing/selftests/livepatch (x86-64: arm64 6.12
#                  has no CONFIG_LIVEPATCH)
#   ftrace         tools/testing/selftests/ftrace/ftracetest
#   test_verifier  6.12's test_verifier
#   test_progs     6.12's test_progs, every test that builds for the config
#   parallel       this series' test_progs (make check's list) with -j, on
#                  make check's kernel: do its exact counts hold?
# The base kernel is build/linux at tag "base" (build/regress/linux-base),
# built into build/regress/<arch>-base; the patched one is build/linux,
# built into build/<arch>-regress. The base tree's BPF selftests are built
# once per arch against the base kernel, their modules once per kernel.
#
# Results are kept per arch, suite and kernel in
# build/regress/<arch>/<suite>-<kernel>.res ("STATUS name" lines): a suite
# that has them all is not run again (REGRESS_FORCE=1 runs it again; remove
# a line to run that test again), and a
# guest that dies or hangs is booted again for the tests it did not reach
# (the test it died in counts as failed, "crash"), and one that could not
# calibrate its TSC (a loaded host) for the tests that failed in it, once. A make regress stopped
# in the middle of a boot keeps that boot's finished tests: the next one
# collects them before it boots. Each guest prints
# progress at least once a minute. Last line: "regress ARCH: N regressions".
# REGRESS_KERNELS="base" or "patched" builds and runs one kernel only
# (two such runs may go side by side once the base tree's selftests for
# the arch are built: both would build them in one directory; the report
# needs both).
. "$(dirname "$0")/lib.sh"
arch_vars "${1:?usage: regress.sh ARCH}"
ALL_SUITES="livepatch ftrace test_verifier test_progs parallel"
SUITES=${SUITES:-$ALL_SUITES}
for s in $SUITES; do
	case " $ALL_SUITES " in *" $s "*) ;; *) die "SUITES: unknown suite $s ($ALL_SUITES)" ;; esac
done
T0=$(now_s)
R=$BUILD/regress
OUT=$R/$KARCH
mkdir -p "$OUT"
base_tree

# kernel NAME: set KTREE and KDIR_OUT for the base or the patched kernel.
kernel() {
	case "$1" in
	base) KTREE=$BASE; KDIR_OUT=$R/$KARCH-base ;;
	patched) KTREE=$TREE; KDIR_OUT=$BUILD/$KARCH-regress ;;
	check) KTREE=$TREE; KDIR_OUT=$BUILD/$KARCH ;;
	esac
}

# Kernels, their modules installed under <kout>/mods, and the BPF test
# modules built for each from the base tree's sources; none for the
# parallel suite alone, which runs on make check's kernel.
MODS="bpf_testmod bpf_test_no_cfi bpf_test_modorder_x bpf_test_modorder_y"
KERNELS=${REGRESS_KERNELS:-base patched}
[ "$SUITES" = parallel ] && KERNELS=
for k in $KERNELS; do
	kernel $k
	if [ $k = base ]; then
		# options only the series defines are left out (kernel.sh)
		HARNESS_TREE=$KTREE HARNESS_KOUT=$KDIR_OUT HARNESS_SERIES_STEP=1 \
			CONFIG_VARIANT=regress "$HARNESS/kernel.sh" "$KARCH"
	else
		CONFIG_VARIANT=regress "$HARNESS/kernel.sh" "$KARCH"
	fi
	if stale "$KDIR_OUT/mods/.stamp" "$KDIR_OUT/vmlinux"; then
		log "regress: installing the $k kernel's modules"
		rm -rf "$KDIR_OUT/mods"
		make -s -C "$KTREE" O="$KDIR_OUT" ARCH="$KARCH" CROSS_COMPILE="$CROSS" \
			INSTALL_MOD_PATH="$KDIR_OUT/mods" INSTALL_MOD_STRIP=1 modules_install >&2
		touch "$KDIR_OUT/mods/.stamp"
	fi
	md=$BASE/tools/testing/selftests/bpf-regress-mods-$KARCH-$k
	if stale "$OUT/mods-$k/.stamp" "$KDIR_OUT/vmlinux"; then
		log "regress: building the BPF test modules for the $k kernel"
		rm -rf "$md" "$OUT/mods-$k"; mkdir -p "$md" "$OUT/mods-$k"
		for e in "$BASE"/tools/testing/selftests/bpf/*; do
			ln -s "../bpf/${e##*/}" "$md/${e##*/}"
		done
		for m in $MODS; do
			rm "$md/$m"; cp -r "$BASE/tools/testing/selftests/bpf/$m" "$md/$m"
			make -C "$md/$m" KDIR="$KDIR_OUT" ARCH="$KARCH" CROSS_COMPILE="$CROSS" \
				CC="ccache ${CROSS}gcc" > "$OUT/mods-$k/$m.log" 2>&1 ||
				die "$m for the $k kernel: build failed (${OUT#$REPO/}/mods-$k/$m.log)"
			cp "$md/$m/$m.ko" "$OUT/mods-$k/"
		done
		if [ "$KARCH" = x86_64 ]; then
			# livepatch's test modules (and its getpid caller)
			lp=$md/livepatch
			rm -rf "$lp"; cp -r "$BASE/tools/testing/selftests/livepatch" "$lp"
			make -C "$KDIR_OUT" M="$lp/test_modules" ARCH="$KARCH" CC="ccache gcc" modules \
				> "$OUT/mods-$k/livepatch.log" 2>&1 ||
				die "livepatch test modules for the $k kernel: build failed"
			gcc -O2 -static -o "$lp/test_klp-call_getpid" "$lp/test_klp-call_getpid.c"
			rm -rf "$OUT/livepatch-$k"; cp -r "$lp" "$OUT/livepatch-$k"
		fi
		touch "$OUT/mods-$k/.stamp"
	fi
done

# The base tree's BPF selftests, against the base kernel: every test whose
# BPF objects build (pass 1: all objects, make -k), then test_progs over
# those tests; a test that still fails to build is left out (pass 3).
SOUT_R=$R/selftests-$KARCH
build_selftests() {
	local all=$OUT/tests.all ok=$OUT/tests.built extra t
	kernel base
	local env=(HARNESS_TREE="$BASE" HARNESS_KOUT="$KDIR_OUT" SELFTESTS_OUT="$SOUT_R"
		   SELFTESTS_MODS= CONFIG_VARIANT=)
	local src=$BASE/tools/testing/selftests/bpf
	(cd "$src/prog_tests" && ls -1 -- *.c | sed 's/\.c$//') > "$all"
	# the BPF objects each test names, "test obj..." a line
	while read -r t; do
		echo "$t" $(grep -ohE '\b[a-zA-Z0-9_]+\.(skel\.h|lskel\.h|bpf\.o)' "$src/prog_tests/$t.c" |
			    sed -E 's/\.(skel\.h|lskel\.h|bpf\.o)$//' | sed 's/_lskel$//' | sort -u)
	done < "$all" > "$OUT/tests.deps"
	if [ ! -f "$OUT/objs.done" ]; then
		log "regress: selftests pass 1: the BPF objects of $(wc -l < "$all") tests"
		env "${env[@]}" SELFTESTS_LIST="$all" SELFTESTS_TARGETS="objs" SELFTESTS_KEEP_GOING=1 \
			"$HARNESS/selftests.sh" "$KARCH"
		cp "$SOUT_R/build.log" "$OUT/build-objs.log"
		touch "$OUT/objs.done"
	fi
	# a test builds if every object it names was built
	ls "$SOUT_R" | sed -n 's/\.bpf\.o$//p' > "$OUT/objs.built"
	ls "$src/progs" | sed -n 's/\.c$//p' > "$OUT/objs.src"
	awk 'FILENAME == ARGV[1] { built[$1] = 1; next }
	     FILENAME == ARGV[2] { src[$1] = 1; next }
	     { for (i = 2; i <= NF; i++) if (($i in src) && !($i in built)) next; print $1 }' \
		"$OUT/objs.built" "$OUT/objs.src" "$OUT/tests.deps" > "$ok"
	extra="$SOUT_R/urandom_read $SOUT_R/liburandom_read.so $SOUT_R/uprobe_multi ima_setup.sh verify_sig_setup.sh"
	for pass in 2 3 4; do
		log "regress: selftests pass $pass: test_progs over $(wc -l < "$ok") tests, test_verifier"
		env "${env[@]}" SELFTESTS_LIST="$ok" SELFTESTS_TARGETS="test_progs test_verifier" \
			SELFTESTS_EXTRA_FILES="$extra" SELFTESTS_KEEP_GOING=1 "$HARNESS/selftests.sh" "$KARCH"
		cp "$SOUT_R/build.log" "$OUT/build-pass$pass.log"
		[ -x "$SOUT_R/test_progs" ] && break
		# leave out the tests whose own object or whose skeletons failed
		# ("*** [Makefile:N: obj] Error", or a generated header with no
		# rule "needed by 'obj'")
		sed -n -e 's/.*\*\*\* \[[^]]*: \([^]]*\)\] Error.*/\1/p' \
			-e "s/.*\*\*\* No rule to make target .*, needed by '\([^']*\)'.*/\1/p" \
			"$SOUT_R/build.log" |
			sed -E 's|.*/||; s/\.(test\.o|skel\.h|lskel\.h|bpf\.o|subskel\.h)$//; s/_lskel$//' |
			sort -u > "$OUT/failed.pass$pass"
		awk 'FILENAME == ARGV[1] { bad[$1] = 1; next }
		     { if ($1 in bad) next; for (i = 2; i <= NF; i++) if ($i in bad) next; print $1 }' \
			"$OUT/failed.pass$pass" "$OUT/tests.deps" | grep -xFf "$ok" > "$ok.new" || true
		cmp -s "$ok" "$ok.new" && die "regress: test_progs does not build (${SOUT_R#$REPO/}/build.log)"
		mv "$ok.new" "$ok"
	done
	[ -x "$SOUT_R/test_progs" ] || die "regress: test_progs did not build (${SOUT_R#$REPO/}/build.log)"
	log "regress: test_progs has $(wc -l < "$ok") of $(wc -l < "$all") tests; the others do not build for this config"
}
export BUILD

# rundir KERNEL: a directory of links to the base selftests and this
# kernel's modules, where test_progs and test_verifier run.
rundir() {
	local d=$OUT/run-$1 e
	rm -rf "$d"; mkdir -p "$d"
	for e in "$SOUT_R"/*; do ln -s "../../selftests-$KARCH/${e##*/}" "$d/${e##*/}"; done
	for e in "$OUT/mods-$1"/*.ko; do ln -sfn "../mods-$1/${e##*/}" "$d/${e##*/}"; done
}

# run_suite SUITE KERNEL: boot the kernel until every test of the suite has
# a result in $OUT/SUITE-KERNEL.res.
run_suite() {
	local suite=$1 k=$2 res=$OUT/$1-$2.res boot=0 left g job timeout
	[ -f "$res.done" ] && [ -z "${REGRESS_FORCE:-}" ] && { log "regress: $suite on $k: kept (${res#$REPO/})"; return 0; }
	# without REGRESS_FORCE, a suite left unfinished resumes: its results
	# stay, its tests without one run; the boots start again at 1
	[ -n "${REGRESS_FORCE:-}" ] && rm -f "$res" "$OUT/$suite-$k.list"
	# a boot that make regress was stopped in: keep what it finished
	for g in "$OUT/$suite-$k".[0-9]*.log; do
		[ -z "${REGRESS_FORCE:-}" ] && [ -f "$g" ] && [ ! -f "${g%.log}.collected" ] || continue
		log "regress: $suite on $k: $(python3 "$HARNESS/regress.py" collect "$suite" "$k" \
			"$KARCH" "$OUT" "$res" "${g%.log}" interrupted) from ${g#$REPO/}"
	done
	rm -f "$res.done" "$OUT/$suite-$k".[0-9]*
	touch "$res"
	kernel "$k"
	case $suite in test_progs|test_verifier) rundir "$k" ;; esac
	case $suite in
	test_progs) timeout=14400 ;; parallel) timeout=7200 ;; *) timeout=5400 ;;
	esac
	while :; do
		boot=$((boot + 1))
		g=$OUT/$suite-$k.$boot
		job=regress/$KARCH/$suite-$k.job
		python3 "$HARNESS/regress.py" job "$suite" "$k" "$KARCH" "$OUT" "$res" > "$BUILD/$job"
		log "regress: $suite on the $k $KARCH kernel (boot $boot)"
		progress "$g.log" "$suite" "$k" "$g.console" "$job" &
		local ppid=$!
		local ok=1
		HARNESS_KOUT=$KDIR_OUT CONFIG_VARIANT= GUEST_TIMEOUT=$timeout \
			"$HARNESS/guest.sh" "$KARCH" "$job" "$g.console" || ok=0
		kill $ppid 2>/dev/null || true
		# the job's first line writes the log: none, the guest never ran it
		[ -f "$g.log" ] || die "regress: $suite on $k: the guest did not start (${g#$REPO/}.console)"
		left=$(python3 "$HARNESS/regress.py" collect "$suite" "$k" "$KARCH" "$OUT" "$res" "$g" "$ok")
		touch "$g.collected"
		[ "$left" = done ] && break
		[ $boot -ge 8 ] && { log "regress: $suite on $k: giving up after $boot boots"; break; }
		log "regress: $suite on $k: $left: booting again for the rest"
	done
	touch "$res.done"
}
# progress LOG SUITE KERNEL CONSOLE JOB: a line a minute. A guest whose
# kernel oopsed and that has since written nothing for 3 minutes, neither
# to LOG nor to CONSOLE, is hung: power it off, so that run_suite() boots
# again for the rest.
progress() {
	local t0 n sizes last="" quiet=0
	t0=$(now_s)
	while sleep 60; do
		n=$(grep -cE '^(#[0-9]|\[[0-9]|TEST:|ok |not ok )' "$1" 2>/dev/null || true)
		log "regress: $2 on $3: $(( ($(now_s) - t0) / 60 )) min, $n results, last: $(grep -aE '^(#[0-9]|\[[0-9]|TEST:|ok |not ok )' "$1" 2>/dev/null | tail -n 1 | cut -c1-80)"
		sizes="$(stat -c %s "$1" "$4" 2>/dev/null | tr '\n' ' ')"
		if [ "$sizes" = "$last" ] && grep -qaE 'Oops:|Kernel panic' "$4" 2>/dev/null; then
			quiet=$((quiet + 1))
		else
			quiet=0
		fi
		last=$sizes
		if [ $quiet -ge 3 ]; then
			log "regress: $2 on $3: the kernel oopsed and the guest is silent for 3 min: powering it off"
			pkill -f "harness\.job=$5( |\$)" || true
			quiet=0
		fi
	done
}

for s in $SUITES; do
	case $s in
	livepatch) [ "$KARCH" = x86_64 ] || { log "regress: livepatch: not on $KARCH (6.12 has no CONFIG_LIVEPATCH there)"; continue; } ;;
	esac
	case $s in
	test_progs|test_verifier)
		if stale "$SOUT_R/test_progs" "$R/$KARCH-base/vmlinux" ||
		   stale "$SOUT_R/test_verifier" "$R/$KARCH-base/vmlinux"; then
			build_selftests
		fi ;;
	parallel)
		CONFIG_VARIANT= "$HARNESS/kernel.sh" "$KARCH"
		CONFIG_VARIANT= "$HARNESS/selftests.sh" "$KARCH"
		sed -e 's/#.*//' -e 's/[[:space:]]//g' "$HARNESS/tests/list" |
			grep -v -e '^@' -e '^$' > "$OUT/parallel.allow"
		sed -e 's/#.*//' -e 's/[[:space:]]//g' "$HARNESS/tests/deny.$KARCH" 2>/dev/null |
			sed '/^$/d' > "$OUT/parallel.deny" || true
		run_suite parallel check
		continue ;;
	esac
	for k in ${REGRESS_KERNELS:-base patched}; do
		run_suite "$s" "$k"
	done
done
python3 "$HARNESS/regress.py" report "$KARCH" "$OUT" "$(( $(now_s) - T0 ))" $SUITES
