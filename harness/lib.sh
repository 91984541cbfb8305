# SPDX-License-Identifier: GPL-2.0
# Common settings and helpers for the harness scripts. Sourced, not run.

set -euo pipefail

HARNESS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HARNESS/.." && pwd)
BUILD=${BUILD:-$REPO/build}
# HARNESS_TREE, HARNESS_KOUT: another source tree and kernel output directory
# (series-check.sh builds each commit of build/series-tree with kernel.sh).
TREE=${HARNESS_TREE:-$BUILD/linux}
BASE_PKG=linux-source-6.12
BASE_TARBALL=/usr/src/linux-source-6.12.tar.xz
NPROC=$(nproc)

# ccache: relative paths so a clone elsewhere (CI) still hits the cache.
export CCACHE_BASEDIR=$REPO
export CCACHE_NOHASHDIR=1
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-15G}
export CCACHE_COMPILERCHECK=content
# kbuild passes -fmacro-prefix-map=<absolute srctree>/=, which base_dir does
# not rewrite: without this a clone in another directory never hits.
export CCACHE_IGNOREOPTIONS='-fmacro-prefix-map=*'
# Reproducible kernel version strings: fewer needless rebuilds.
export KBUILD_BUILD_USER=ci KBUILD_BUILD_HOST=harness
export KBUILD_BUILD_TIMESTAMP="Thu Jan  1 00:00:00 UTC 2026"

log() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# now_s: seconds since the epoch, for stage timings.
now_s() { date +%s; }

# stage NAME START: print how long stage NAME took since START.
stage_done() { log "stage $1: $(( $(now_s) - $2 ))s"; }

# arch_vars ARCH: set KARCH, CROSS, QEMU, IMAGE for a harness arch name.
arch_vars() {
	case "$1" in
	x86_64)
		KARCH=x86_64; CROSS=; DEB_ARCH=amd64
		IMAGE=arch/x86/boot/bzImage ;;
	arm64|aarch64)
		KARCH=arm64; CROSS=aarch64-linux-gnu-; DEB_ARCH=arm64
		IMAGE=arch/arm64/boot/Image ;;
	*) die "unknown ARCH '$1' (x86_64 or arm64)" ;;
	esac
	# CONFIG_VARIANT=name: its own kernel and selftests builds and logs.
	ANAME=$KARCH${CONFIG_VARIANT:+-$CONFIG_VARIANT}
	SOUT=$BUILD/selftests-$ANAME
	# EXPERIMENT=name: harness/experiments/name.patch applied for the
	# kernel build only, its own kernel build and logs, same selftests.
	if [ -n "${EXPERIMENT:-}" ]; then
		[ -f "$HARNESS/experiments/$EXPERIMENT.patch" ] ||
			die "EXPERIMENT: no harness/experiments/$EXPERIMENT.patch"
		ANAME=$ANAME-exp-$EXPERIMENT
	fi
	KOUT=${HARNESS_KOUT:-$BUILD/$ANAME}
	# SOUT as the guest sees it (build/ is /work there)
	GUEST_SOUT=/work/${SOUT#$BUILD/}
}

# base_tree: BASE, the base tree (build/linux at tag "base"), checked out
# into build/regress/linux-base if it is not there yet.
base_tree() {
	[ -d "$BUILD/linux/.git" ] || HARNESS_TREE= "$HARNESS/tree.sh"
	BASE=$BUILD/regress/linux-base
	local want
	want=$(git -C "$BUILD/linux" rev-parse base)
	if [ "$(git -C "$BASE" rev-parse HEAD 2>/dev/null)" != "$want" ]; then
		log "checking out the base tree into ${BASE#$REPO/}"
		rm -rf "$BASE"
		git clone -q --no-checkout "$BUILD/linux" "$BASE"
		git -C "$BASE" checkout -q "$want"
	fi
}

# apt_update: apt-get update, once per build/ (after an architecture is added).
apt_update() {
	mkdir -p "$BUILD"
	if [ ! -e "$BUILD/.apt-updated" ]; then
		log "apt-get update"
		$SUDO apt-get -o DPkg::Lock::Timeout=600 update -qq >&2 && touch "$BUILD/.apt-updated"
	fi
}

# need_arm64_apt: let apt install and download arm64 packages.
need_arm64_apt() {
	dpkg --print-foreign-architectures | grep -qx arm64 && return 0
	log "adding dpkg architecture arm64"
	$SUDO dpkg --add-architecture arm64
	rm -f "$BUILD/.apt-updated"
	apt_update
}

# need_pkgs PKG...: install the Debian packages that are missing (idempotent).
need_pkgs() {
	local missing=() p
	for p in "$@"; do
		dpkg-query -W -f '${Status}\n' "$p" 2>/dev/null |
			grep -q '^install ok installed$' || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	case " ${missing[*]}" in *:arm64*) need_arm64_apt ;; esac
	apt_update
	log "installing: ${missing[*]}"
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends \
		"${missing[@]}" >&2
}
SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo

base_version() { dpkg-query -W -f '${Version}' "$BASE_PKG"; }

# overlay_files: the repo's kernel-tree files (added files and *.patch),
# relative to REPO, sorted. A kernel path is one under a top-level directory
# that the base tree has; top-level files count only as *.patch.
overlay_files() {
	local d
	(
		cd "$REPO"
		for d in $(ls -d */ 2>/dev/null); do
			d=${d%/}
			[ -d "$TREE/.git" ] && ! git -C "$TREE" cat-file -e "base:$d" 2>/dev/null && continue
			case "$d" in build|harness) continue ;; esac
			git ls-files --cached --others --exclude-standard -- "$d"
		done
		ls -1 -- *.patch 2>/dev/null || true
	) | LC_ALL=C sort -u | while read -r f; do [ -e "$REPO/$f" ] && echo "$f"; done
}

# stale OUT IN...: OUT is missing or older than one of IN.
stale() {
	local o=$1 i
	shift
	[ -e "$o" ] || return 0
	for i in "$@"; do
		[ "$i" -nt "$o" ] && return 0
	done
	return 1
}
