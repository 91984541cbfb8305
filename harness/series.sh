#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make series: the series as git format-patch files in build/series, from
# series/manifest (the split and the commit messages) and
# series/cover-letter.txt. Commits go on branch "series" of build/series-tree,
# a clone of build/linux at tag base (build/linux itself is not touched); the
# last commit must equal base + every repo patch + every added file. Then
# checkpatch.pl --strict on every patch (findings allowed by
# series/checkpatch.allow do not count). SERIES_PREFIX=... sets the subject
# prefix (default PATCH); SERIES_CHECKPATCH=0 skips checkpatch.
. "$(dirname "$0")/lib.sh"

need_pkgs git perl python3 python3-ply python3-git	# the last two for checkpatch's spdxcheck.py
[ -z "${HARNESS_TREE:-}" ] || die "HARNESS_TREE is set: make series reads build/linux"
[ -d "$TREE/.git" ] || "$HARNESS/tree.sh"
git -C "$TREE" rev-parse -q --verify 'base^{commit}' >/dev/null || die "build/linux has no tag base: make tree"

t0=$(now_s)
overlay=$(mktemp)
trap 'rm -f "$overlay"' EXIT
overlay_files > "$overlay"
REPO=$REPO BUILD=$BUILD BASE_TREE=$BUILD/linux OVERLAY=$overlay python3 "$HARNESS/series.py" build
stage_done series "$t0"
