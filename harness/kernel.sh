#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make kernel ARCH=x86_64|arm64: out-of-tree build of build/linux into
# build/<arch> from allnoconfig + harness/config fragments, with ccache.
# CONFIG_VARIANT=name adds harness/config/<name>.config (e.g. kasan; and
# <name>-<arch>.config if there is one) and builds into build/<arch>-<name> (selftests into build/selftests-<arch>-<name>).
. "$(dirname "$0")/lib.sh"
arch_vars "${1:?usage: kernel.sh ARCH}"

pkgs=(build-essential bc bison flex libssl-dev libelf-dev dwarves ccache cpio python3 kmod)
[ -n "$CROSS" ] && pkgs+=(gcc-aarch64-linux-gnu)
need_pkgs "${pkgs[@]}"
[ -d "$TREE/.git" ] || "$HARNESS/tree.sh"

t0=$(now_s)
mkdir -p "$KOUT"
frags=("$HARNESS/config/common.config" "$HARNESS/config/$KARCH.config")
if [ -n "${CONFIG_VARIANT:-}" ]; then
	frags+=("$HARNESS/config/$CONFIG_VARIANT.config")
	# and its arch's part, if it has one
	[ -f "$HARNESS/config/$CONFIG_VARIANT-$KARCH.config" ] &&
		frags+=("$HARNESS/config/$CONFIG_VARIANT-$KARCH.config")
fi
KMAKE=(make -C "$TREE" O="$KOUT" ARCH="$KARCH" CROSS_COMPILE="$CROSS"
       CC="ccache ${CROSS}gcc" HOSTCC="ccache gcc" LOCALVERSION= -j"$NPROC")

cat "${frags[@]}" > "$KOUT/fragment.config.new"
# a series step configures every time: the options its tree defines change
if [ -n "${HARNESS_SERIES_STEP:-}" ] || ! cmp -s "$KOUT/fragment.config.new" "$KOUT/fragment.config" ||
   [ ! -f "$KOUT/.config" ]; then
	log "configuring $KARCH: allnoconfig + ${frags[*]##*/}"
	mv "$KOUT/fragment.config.new" "$KOUT/fragment.config"
	"${KMAKE[@]}" -s KCONFIG_ALLCONFIG="$KOUT/fragment.config" allnoconfig >&2
else
	rm -f "$KOUT/fragment.config.new"
fi

# Each fragment line must hold in the final .config (a dropped dependency
# is silent in Kconfig; here it fails the build). Of lines that set the
# same option, the last counts (a variant overrides common.config).
# make series-check (HARNESS_SERIES_STEP set) also builds the steps before
# the patch that adds an option the fragments name: there, an option that
# no Kconfig of the tree defines yet is left out.
kconfig_defines() { grep -rqsx --include='Kconfig*' "config ${1#CONFIG_}" "$TREE"; }
bad=0
while IFS= read -r line; do
	case "$line" in
	CONFIG_*=*) grep -qxF "$line" "$KOUT/.config" && continue
		if [ -n "${HARNESS_SERIES_STEP:-}" ] && ! kconfig_defines "${line%%=*}"; then
			echo "  $line: no Kconfig defines it at this step" >&2
			continue
		fi
		echo "  want $line, have: $(grep -E "^(# )?${line%%=*}[= ]" "$KOUT/.config" || echo unset)" >&2
		bad=1 ;;
	"# CONFIG_"*" is not set") sym=${line#\# }; sym=${sym%% *}
		! grep -q "^$sym=" "$KOUT/.config" || { echo "  want $line, have: $(grep "^$sym=" "$KOUT/.config")" >&2; bad=1; } ;;
	esac
done < <(tac "$KOUT/fragment.config" | awk '
	/^CONFIG_[A-Za-z0-9_]*=/ { sym = $0; sub(/=.*/, "", sym) }
	/^# CONFIG_[A-Za-z0-9_]* is not set$/ { sym = $2 }
	/^CONFIG_|^# CONFIG_.* is not set$/ { if (seen[sym]++) next }
	{ print }')
if [ $bad -ne 0 ]; then
	rm -f "$KOUT/fragment.config"	# reconfigure next time
	die "$KARCH .config lacks options the fragments require (above)"
fi
stage_done "config-$KARCH" "$t0"

t1=$(now_s)
log "building $KARCH kernel ($(cat "$BUILD/base-version" 2>/dev/null || base_version)) in ${KOUT#$REPO/}"
# Progress once a minute: a cold build is 8 to 15 minutes of nothing else.
# Steps are kbuild's "  CC"/"  LD"/... lines; the last full build's count
# (kept in .build-steps) says how far along this one is.
progress() {
	local start=$1 total steps
	total=$(cat "$KOUT/.build-steps" 2>/dev/null || echo "$2")
	while sleep 60; do
		steps=$(grep -c '^  [A-Z]' "$KOUT/build.log" 2>/dev/null || true)
		log "building $KARCH kernel: $(( ($(now_s) - start) / 60 )) min, $steps build steps (a full build has about $total; ccache hits are fast)"
	done
}
progress "$t1" 1800 &
ppid=$!
exp_patch=
exp_links=()
# after an experiment's build: revert it, and link the series' own files
# it changed back to the repository
exp_revert() {
	local f
	patch -d "$TREE" -p1 -R -s < "$exp_patch" || true
	for f in "${exp_links[@]}"; do
		ln -sfn "$REPO/$f" "$TREE/$f"
	done
}
if [ -n "${EXPERIMENT:-}" ]; then
	exp_patch=$HARNESS/experiments/$EXPERIMENT.patch
	log "experiment: applying ${exp_patch#$REPO/} for this build only"
	# a file the series adds is a link into the repository: patch a copy
	for f in $(sed -n 's|^+++ b/\([^[:space:]]*\).*|\1|p' "$exp_patch"); do
		[ -L "$TREE/$f" ] || continue
		cp --remove-destination "$(readlink -f "$TREE/$f")" "$TREE/$f"
		exp_links+=("$f")
	done
	trap 'kill $ppid 2>/dev/null || true; exp_revert' EXIT
	patch -d "$TREE" -p1 -F0 -s < "$exp_patch" || die "experiment $EXPERIMENT does not apply"
else
	trap 'kill $ppid 2>/dev/null || true' EXIT
fi
rc=0
"${KMAKE[@]}" > "$KOUT/build.log" 2>&1 || rc=$?
kill $ppid 2>/dev/null || true
if [ $rc -ne 0 ]; then
	grep -E -B2 -A8 'error|Error' "$KOUT/build.log" | tail -n 60 >&2
	die "$KARCH kernel build failed (log: ${KOUT#$REPO/}/build.log)"
fi
steps=$(grep -c '^  [A-Z]' "$KOUT/build.log" || true)
[ "$steps" -gt 1000 ] && echo "$steps" > "$KOUT/.build-steps"
grep -E ': warning: ' "$KOUT/build.log" >&2 || true
[ -f "$KOUT/$IMAGE" ] || die "$KARCH kernel build produced no $IMAGE"
stage_done "kernel-$KARCH" "$t1"
