#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench [ARCH=x86_64|arm64]: boot the arch's kernel and run the
# benchmarks (test_progs tests that print "BENCH ..." lines and assert
# nothing about speed): the all-functions attach benchmark, fentry.multi
# against kprobe.multi (x86-64 only: arm64 6.12 has no kprobe.multi), and
# the per-call trigger benchmark, an ordinary fentry's attach time beside
# multi links, and the memory one link on every function takes (and a
# second one on the same functions, and by slab cache) against
# kprobe.multi and ordinary fentry (tracing_multi_bench_memory); updates:
# an ordinary fentry beside a link on every function and while one is
# attached and detached in a loop (and its lock waits meanwhile, by lock), 64
# links over random subsets, fexit.multi under IBT decisions
# (tracing_multi_bench_sets.c).
# Prints one table (harness/bench-table.py).
#
# BENCH_CLOCK=icount (default): QEMU counts guest time in executed
#   instructions (-icount shift=0,align=off,sleep=off: 1 ns = 1
#   instruction), so the numbers repeat from run to run, and a time per
#   call is a number of instructions.
# BENCH_CLOCK=wall: the guest's clock under plain TCG, which follows the
#   host's (±30 % from run to run here).
# BENCH_RUNS=3: runs of the benchmarks in the guest; the table gives each
#   figure's median and spread over them.
# BENCH_TESTS="a,b": only those benchmarks (e.g. tracing_multi_bench_trigger,
#   the per-call one: a few minutes). tracing_multi_bench_profile, a
#   sampling profile of the attach and the detach of a link on every
#   function, runs only when named (see harness/experiments/README,
#   profile-hrtimers).
# BENCH_KERNEL_TREE=base: boot the base kernel instead (the base tree,
#   HARNESS_SERIES_STEP=1, the same config, built into
#   build/<arch>-bench-base) with the same selftests, their modules left
#   out; only benchmarks that load programs a 6.12 kernel knows run there:
#   by default tracing_multi_bench_ordinary, what ordinary programs cost
#   per call and to attach, to set beside this kernel's figures.
# BENCH_KERNEL=bench (default): the test kernel without lockdep, RCU and
#   sleep checks and fault injection (harness/config/bench.config), built
#   into build/<arch>-bench: a debug kernel's locks cost many times what
#   they cost on a distribution kernel, and would weigh on whichever side
#   takes more of them. BENCH_KERNEL= runs the test kernel itself.
export CONFIG_VARIANT=${BENCH_KERNEL-bench}
. "$(dirname "$0")/lib.sh"
arch_vars "${1:-x86_64}"

clock=${BENCH_CLOCK:-icount}
runs=${BENCH_RUNS:-3}
case "$clock" in
icount) export QEMU_ICOUNT=1
	# x86 guests find their TSCs unsynchronized under icount and fall
	# back to jiffies (4 ms steps): the TSC follows the instruction
	# count, the same for every vCPU
	[ "$KARCH" = x86_64 ] && export GUEST_APPEND="${GUEST_APPEND:-} tsc=reliable" ;;
wall) export QEMU_ICOUNT= ;;
*) die "BENCH_CLOCK is icount or wall" ;;
esac
[[ $runs =~ ^[1-9][0-9]*$ ]] || die "BENCH_RUNS must be a number"
case "${BENCH_KERNEL_TREE:-}" in
"") default_tests=tracing_multi_bench_trigger,tracing_multi_bench_attach,tracing_multi_bench_ordinary,tracing_multi_bench_memory,tracing_multi_bench_beside_all,tracing_multi_bench_inflight,tracing_multi_bench_sets,tracing_multi_bench_ibt ;;
base) default_tests=tracing_multi_bench_ordinary
	[ -z "${EXPERIMENT:-}" ] || die "EXPERIMENT patches this tree's kernel, not the base one" ;;
*) die "BENCH_KERNEL_TREE is unset or base" ;;
esac
tests=${BENCH_TESTS:-$default_tests}
# an instruction-counted guest runs slower than a plain one
export GUEST_TIMEOUT=${GUEST_TIMEOUT:-$((1200 + runs * 900))}

"$HARNESS/kernel.sh" "$KARCH"
"$HARNESS/selftests.sh" "$KARCH"
run_dir=$GUEST_SOUT
if [ -n "${BENCH_KERNEL_TREE:-}" ]; then
	# the base kernel; the selftests stay this tree's, built for this one
	base_tree
	export HARNESS_KOUT=$KOUT-base
	HARNESS_TREE=$BASE HARNESS_SERIES_STEP=1 "$HARNESS/kernel.sh" "$KARCH"
	ANAME=$ANAME-base
	# test_progs loads the bpf_testmod.ko in its directory: not built for it
	run_dir=/tmp/bench-run
fi
out=$BUILD/bench/$ANAME
rm -rf "$out"; mkdir -p "$out"
cat > "$out/job.sh" <<JOB
if [ $run_dir != $GUEST_SOUT ]; then
	mkdir -p $run_dir
	for e in $GUEST_SOUT/*; do
		case \$e in *.ko) ;; *) ln -s \$e $run_dir/ ;; esac
	done
fi
cd $run_dir
# the test kernels' check of every freed trampoline against every ftrace
# record (CONFIG_FTRACE_DIRECT_VERIFY) is a debugging aid: off, as on a
# production kernel
[ -e /sys/kernel/debug/ftrace_direct_verify ] && echo N > /sys/kernel/debug/ftrace_direct_verify
for i in \$(seq $runs); do
	echo "bench run \$i of $runs"
	./test_progs -v -a $tests > /work/bench/$ANAME/run\$i.log 2>&1
	echo "test_progs exit status \$?"
done
dmesg > /work/bench/$ANAME/dmesg.log
JOB
log "bench: $runs run(s), clock $clock"
"$HARNESS/guest.sh" "$KARCH" "bench/$ANAME/job.sh" "$out/console.log"
logs=()
for i in $(seq "$runs"); do
	grep -q '^BENCH' "$out/run$i.log" || { tail -n 30 "$out/run$i.log"; die "run $i printed no BENCH line"; }
	logs+=("$out/run$i.log")
done
python3 "$HARNESS/bench-table.py" "$clock" "$ANAME" "${logs[@]}" | tee "$out/table.txt"
python3 "$HARNESS/results.py" "$KARCH" /dev/null "$out/console.log" "$out/dmesg.log" /dev/null | tail -n 1
