#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make series-check: is the series bisectable? Builds every commit of the
# series (branch "series" of build/series-tree, written by make series) for
# x86-64 with the harness's config (kernel.sh: allnoconfig + common.config +
# x86_64.config, ccache) into build/series-x86_64, one step after the other,
# under nice -n 19. Commits that touch tools/lib/bpf, tools/bpf/bpftool or
# tools/include also build libbpf and bpftool (build/series-tools). Prints
# one line per step; logs in build/series-check/. Exits non-zero if a step
# fails. SERIES_STEPS="3 4" builds only those steps (on top of whatever the
# output directory holds).
. "$(dirname "$0")/lib.sh"

STREE=$BUILD/series-tree
SKOUT=$BUILD/series-x86_64
STOOLS=$BUILD/series-tools
LOGD=$BUILD/series-check

[ -d "$STREE/.git" ] && git -C "$STREE" rev-parse -q --verify series >/dev/null ||
	die "no series in build/series-tree: run make series first"
overlay=$(mktemp)
trap 'rm -f "$overlay"' EXIT
overlay_files > "$overlay"
REPO=$REPO BUILD=$BUILD BASE_TREE=$BUILD/linux OVERLAY=$overlay \
	python3 "$HARNESS/series.py" verify >&2 || die "build/series-tree is stale: run make series first"

mapfile -t commits < <(git -C "$STREE" rev-list --reverse base..series)
mkdir -p "$LOGD"
rm -f "$LOGD"/*.log

# build_tools N: libbpf and bpftool of the checked-out step.
build_tools() {
	local log=$LOGD/$1-tools.log
	mkdir -p "$STOOLS/libbpf" "$STOOLS/bpftool"
	(
		export PATH=/usr/lib/llvm-19/bin:$PATH	# clang for bpftool's skeletons, as selftests.sh
		nice -n 19 make -C "$STREE/tools/lib/bpf" OUTPUT="$STOOLS/libbpf/" -j"$NPROC" &&
		nice -n 19 make -C "$STREE/tools/bpf/bpftool" OUTPUT="$STOOLS/bpftool/" \
			VMLINUX_BTF="$SKOUT/vmlinux" -j"$NPROC"
	) > "$log" 2>&1
}

t_all=$(now_s)
fail=0
printf '%-3s %-75s %-22s %s\n' "#" "commit" "kernel" "libbpf+bpftool"
for i in "${!commits[@]}"; do
	n=$(printf '%02d' $((i + 1)))
	c=${commits[$i]}
	if [ -n "${SERIES_STEPS:-}" ] && ! grep -qw "$((i + 1))" <<< "$SERIES_STEPS"; then
		continue
	fi
	git -C "$STREE" checkout -q --detach "$c"
	subject=$(git -C "$STREE" log -1 --format=%s "$c")

	t0=$(now_s)
	if HARNESS_TREE=$STREE HARNESS_KOUT=$SKOUT HARNESS_SERIES_STEP=$n \
			nice -n 19 "$HARNESS/kernel.sh" x86_64 \
			> "$LOGD/$n-kernel.log" 2>&1; then
		kres=ok
	else
		kres=FAIL; fail=1
	fi
	[ -f "$SKOUT/build.log" ] && cp "$SKOUT/build.log" "$LOGD/$n-build.log"
	nwarn=$(grep -c ': warning: ' "$LOGD/$n-build.log" 2>/dev/null || true)
	kres="$kres $(( $(now_s) - t0 ))s"
	[ "${nwarn:-0}" -gt 0 ] && { kres="$kres, ${nwarn} warnings"; fail=1; }

	tres=-
	if git -C "$STREE" diff-tree --no-commit-id --name-only -r "$c" |
			grep -qE '^tools/(lib/bpf|bpf/bpftool|include)/'; then
		t0=$(now_s)
		if build_tools "$n"; then tres=ok; else tres=FAIL; fail=1; fi
		tres="$tres $(( $(now_s) - t0 ))s"
		nw=$(grep -c ': warning: ' "$LOGD/$n-tools.log" || true)
		[ "${nw:-0}" -gt 0 ] && { tres="$tres, ${nw} warnings"; fail=1; }
	fi
	printf '%-3s %-75s %-22s %s\n' "$n" "$subject" "$kres" "$tres"
done
git -C "$STREE" checkout -q series
echo "series-check: $(( ($(now_s) - t_all) / 60 )) min; logs in ${LOGD#$REPO/}/"
[ $fail -eq 0 ] || die "some steps failed or warned (above)"
