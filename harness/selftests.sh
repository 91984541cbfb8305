#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make selftests ARCH=x86_64|arm64: libbpf, bpftool, test_progs (over the
# tests in harness/tests/list) and bpf_testmod.ko, built from build/linux
# with clang-19 into build/selftests-<arch>.
#
# The upstream selftests Makefile builds every prog_tests/*.c and progs/*.c
# it finds, and a small test kernel lacks types many of them need. So the
# build runs in a harness-owned copy of the selftests directory,
# tools/testing/selftests/bpf-harness-<arch>[-<variant>], whose prog_tests/
# and progs/ link to the listed tests and the BPF programs they use, and
# nothing else. One per kernel build: the test modules are built in it, and
# kbuild does not rebuild a module's objects for another kernel's .config
# (the bench kernel's struct layouts, without lockdep, crashed the test
# kernel's live patch module).
#
# make regress builds the base tree's selftests with it (HARNESS_TREE,
# HARNESS_KOUT): SELFTESTS_LIST is then its test list, SELFTESTS_OUT its
# output, SELFTESTS_TARGETS what to build (default test_progs; "objs": the
# BPF objects of the listed tests), SELFTESTS_MODS the modules (default:
# this series' test modules), SELFTESTS_EXTRA_FILES test_progs' extra files,
# and SELFTESTS_KEEP_GOING=1 builds what it can (make -k), failing nothing.
. "$(dirname "$0")/lib.sh"
arch_vars "${1:?usage: selftests.sh ARCH}"
LIST=${SELFTESTS_LIST:-$HARNESS/tests/list}
SOUT=${SELFTESTS_OUT:-$SOUT}
KEEP_GOING=${SELFTESTS_KEEP_GOING:-}

pkgs=(clang-19 llvm-19 lld-19 libelf-dev zlib1g-dev libssl-dev pkg-config rsync python3-docutils)
[ -n "$CROSS" ] && pkgs+=(gcc-aarch64-linux-gnu libelf-dev:arm64 zlib1g-dev:arm64)
need_pkgs "${pkgs[@]}"
[ -f "$KOUT/vmlinux" ] || "$HARNESS/kernel.sh" "$KARCH"

t0=$(now_s)
SRC=$TREE/tools/testing/selftests/bpf
SHADOW=$TREE/tools/testing/selftests/bpf-harness-$ANAME${SELFTESTS_OUT:+-${SELFTESTS_OUT##*/}}

# tests_in_list [all|run|link]
tests_in_list() {
	sed -e 's/#.*//' -e 's/[[:space:]]*$//' "$LIST" | sed '/^$/d' |
	case "$1" in
	run) grep -v '^@' ;;
	link) sed -n 's/^@link[[:space:]]*//p' ;;
	client) sed -n 's/^@client[[:space:]]*//p' ;;
	*) grep -v '^@client' | sed 's/^@link[[:space:]]*//' ;;
	esac
}
mapfile -t TESTS < <(tests_in_list all)
for t in "${TESTS[@]}"; do
	[ -f "$SRC/prog_tests/$t.c" ] || die "${LIST#$REPO/}: no prog_tests/$t.c"
done

# The BPF programs the tests use: skeletons they include and objects they
# open by name (they or the helpers they share), and the parts of linked
# skeletons.
declare -A progs=([btf_data]=1)
linked_deps() {	# the objects a linked skeleton is made of
	sed -n "s/^$1\.skel\.h-deps := //p" "$SRC/Makefile" | sed 's/\.bpf\.o//g'
}
srcs=("${TESTS[@]/#/prog_tests/}")
[ -f "$SRC/tracing_multi_helpers.c" ] && srcs+=(tracing_multi_helpers)
for t in "${srcs[@]}"; do
	for p in $(grep -ohE '\b[a-zA-Z0-9_]+\.(skel\.h|lskel\.h|bpf\.o)' "$SRC/$t.c" |
		   sed -E 's/\.(skel\.h|lskel\.h|bpf\.o)$//' | sed 's/_lskel$//' | sort -u); do
		# a linked skeleton may share its name with one of its parts
		[ -f "$SRC/progs/$p.c" ] && progs[$p]=1
		for d in $(linked_deps "$p"); do progs[$d]=1; done
	done
done
PROGS=$(printf '%s\n' "${!progs[@]}" | LC_ALL=C sort)

# Makefile lists, reduced to what is built here.
mk_list() { sed -n "/^$1 :=/,/[^\\\\]\$/p" "$SRC/Makefile" | sed -e "s/^$1 :=//" -e 's/\\//g' | tr -s ' \t\n' '\n' | sed '/^$/d'; }
pick() {	# LIST: the entries of a Makefile list that this build needs
	local x b d
	for x in $(mk_list "$1"); do
		b=${x%.c}; b=${b%.skel.h}
		if [[ $x == *.skel.h ]]; then
			for d in $(linked_deps "$b"); do
				if [ -n "${progs[$d]:-}" ]; then echo "$x"; break; fi
			done
		elif [ -n "${progs[$b]:-}" ]; then
			echo "$x"
		fi
	done | tr '\n' ' '
}
LSKELS=$(pick LSKELS)
LSKELS_EXTRA=$(pick LSKELS_EXTRA)
LINKED_SKELS=$(pick LINKED_SKELS)

# The harness copy of the selftests directory.
mkdir -p "$SHADOW/prog_tests" "$SHADOW/progs"
for e in "$SRC"/* "$SRC"/.gitignore; do
	n=${e##*/}
	case "$n" in prog_tests|progs|bpf_testmod|bpf_test_*) continue ;; esac
	[ "$(readlink "$SHADOW/$n" 2>/dev/null)" = "../bpf/$n" ] || ln -sfn "../bpf/$n" "$SHADOW/$n"
done
# Modules are built in their source directory: give each arch its own copy.
# bpf_test_ipmodify.ko: an IPMODIFY ftrace user without callbacks.
# bpf_test_livepatch.ko (a live patch of a bpf_testmod function) needs
# CONFIG_LIVEPATCH, which 6.12 has on x86-64 only.
if [ -n "${SELFTESTS_MODS+set}" ]; then
	read -ra MODS <<<"$SELFTESTS_MODS"
else
	MODS=(bpf_testmod bpf_test_ipmodify)
	grep -qx CONFIG_LIVEPATCH=y "$KOUT/.config" && MODS+=(bpf_test_livepatch)
fi
KOS=()
for m in ${MODS[@]+"${MODS[@]}"}; do
	KOS+=("$SOUT/$m.ko")
	rsync -a --delete --include='*/' --include='*.[ch]' --include=Makefile --exclude='*' \
		"$SRC/$m/" "$SHADOW/$m/"
done
sync_links() {	# DIR NAMES...: DIR holds links to bpf/DIR/{NAMES,*.h} and nothing else
	local dir=$1; shift
	local want f
	want=$( { printf '%s.c\n' "$@"; (cd "$SRC/$dir" && ls -1 -- *.h 2>/dev/null); } | LC_ALL=C sort -u)
	for f in $(cd "$SHADOW/$dir" && find . -maxdepth 1 -type l -printf '%P\n'); do
		grep -qxF "$f" <<<"$want" || rm -f "$SHADOW/$dir/$f"
	done
	for f in $want; do
		[ -e "$SHADOW/$dir/$f" ] || ln -sfn "../../bpf/$dir/$f" "$SHADOW/$dir/$f"
	done
}
sync_links prog_tests "${TESTS[@]}"
sync_links progs $PROGS
# tests.h is made from prog_tests/*.c: remake it when the set changes.
printf '%s\n' "${TESTS[@]}" | LC_ALL=C sort > "$SHADOW/.tests.new"
cmp -s "$SHADOW/.tests.new" "$SHADOW/.tests" || rm -f "$SHADOW/prog_tests/tests.h"
mv "$SHADOW/.tests.new" "$SHADOW/.tests"

export PATH=/usr/lib/llvm-19/bin:$PATH
SMAKE=(make -C "$SHADOW" -f Makefile -f "$HARNESS/selftests.mk" -j"$NPROC" OUTPUT="$SOUT" VMLINUX_BTF="$KOUT/vmlinux"
       KDIR="$KOUT" GENDIR="$KOUT/include/generated"
       LSKELS="$LSKELS" LSKELS_EXTRA="$LSKELS_EXTRA" LINKED_SKELS="$LINKED_SKELS"
       TRUNNER_EXTRA_FILES="${SELFTESTS_EXTRA_FILES-${KOS[*]}}" feature-llvm=0)
[ -n "$CROSS" ] && SMAKE+=(ARCH="$KARCH" CROSS_COMPILE="$CROSS")
targets=()
for x in ${SELFTESTS_TARGETS:-test_progs}; do
	if [ "$x" = objs ]; then
		for p in $PROGS; do targets+=("$SOUT/$p.bpf.o"); done
	else
		targets+=("$SOUT/$x")
	fi
done
mkdir -p "$SOUT"
log "building selftests for $KARCH: ${#TESTS[@]} prog_tests, $(wc -w <<<"$PROGS") BPF objects"
if [ -n "$KEEP_GOING" ]; then
	"${SMAKE[@]}" -k "${targets[@]}" > "$SOUT/build.log" 2>&1 || true
	stage_done "selftests-$KARCH" "$t0"
	exit 0
fi
if ! "${SMAKE[@]}" "${targets[@]}" ${KOS[@]+"${KOS[@]}"} > "$SOUT/build.log" 2>&1; then
	grep -E -B3 -A10 'error|Error' "$SOUT/build.log" | tail -n 80 >&2
	die "selftests build for $KARCH failed (log: ${SOUT#$REPO/}/build.log)"
fi
# Clients ("@client NAME" in the list): programs built against other
# libraries, harness/<NAME with - for _>/build.sh puts NAME_client in $SOUT.
# A client that tests/deny.<arch> lists is not built for that arch.
for c in $(tests_in_list client); do
	if sed -e 's/#.*//' -e 's/[[:space:]]//g' "$HARNESS/tests/deny.$KARCH" 2>/dev/null |
		grep -qxF "$c"; then
		continue
	fi
	"$HARNESS/${c//_/-}/build.sh" "$KARCH" || die "client $c: build for $KARCH failed"
done
stage_done "selftests-$KARCH" "$t0"
