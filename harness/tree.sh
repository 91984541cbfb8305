#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make tree: build/linux = base tarball (git commit tagged "base")
#            + every <file>.patch applied + every added file linked in.
. "$(dirname "$0")/lib.sh"
. "$HARNESS/refresh-lib.sh"

need_pkgs "$BASE_PKG" git patch xz-utils
t0=$(now_s)
ver=$(base_version)

if [ -d "$TREE/.git" ]; then
	unsaved=$(tree_unsaved)
	if [ -z "${FORCE:-}" ] && [ -n "$unsaved" ]; then
		printf '  %s\n' "$unsaved" >&2
		die "build/linux has edits that are not refreshed: 'make refresh' first, or FORCE=1 make tree to drop them"
	fi
	have=$(git -C "$TREE" log -1 --format=%s base)
	[ "$have" = "base: $BASE_PKG $ver" ] ||
		die "build/linux is based on '$have', not $BASE_PKG $ver: remove build/linux and run make tree"
	log "resetting build/linux to base ($BASE_PKG $ver)"
	git -C "$TREE" checkout -q -f base
	git -C "$TREE" clean -q -f -d -x
else
	log "creating build/linux from $BASE_TARBALL ($BASE_PKG $ver)"
	rm -rf "$TREE.tmp"
	mkdir -p "$TREE.tmp"
	tar -C "$TREE.tmp" --strip-components=1 -xf "$BASE_TARBALL"
	git -C "$TREE.tmp" init -q
	git -C "$TREE.tmp" add -A -f
	git -C "$TREE.tmp" -c user.name=harness -c user.email=harness@localhost \
		commit -q -m "base: $BASE_PKG $ver"
	git -C "$TREE.tmp" tag base
	git -C "$TREE.tmp" checkout -q --detach base
	mv "$TREE.tmp" "$TREE"
fi
# What status and refresh do not take for new files: the selftests build
# directories (see selftests.sh), editor and patch leftovers.
cat > "$TREE/.git/info/exclude" <<'EOF2'
/tools/testing/selftests/bpf-harness-*/
*.orig
*.rej
*~
.*.sw?
/tags
/TAGS
/cscope.*
/compile_commands.json
EOF2

npatch=0; nfile=0
while read -r f; do
	case "$f" in
	*.patch)
		target=${f%.patch}
		if ! out=$(patch -d "$TREE" -p1 -N -F0 --dry-run --no-backup-if-mismatch < "$REPO/$f" 2>&1); then
			printf '%s\n' "$out" | grep -E 'FAILED|Reversed|malformed|can.t find|No file' >&2 || printf '%s\n' "$out" >&2
			tree_snapshot	# what did apply is not an edit of the user's
			die "$f does not apply to $BASE_PKG $ver (hunks above)"
		fi
		patch -d "$TREE" -p1 -N -F0 -s --no-backup-if-mismatch < "$REPO/$f"
		npatch=$((npatch + 1)) ;;
	*)
		if git -C "$TREE" cat-file -e "base:$f" 2>/dev/null; then
			die "$f exists in the base tree: keep changes to it as $f.patch"
		fi
		mkdir -p "$TREE/$(dirname "$f")"
		ln -sfn "$REPO/$f" "$TREE/$f"
		nfile=$((nfile + 1)) ;;
	esac
done < <(overlay_files)

echo "$BASE_PKG $ver" > "$BUILD/base-version"
tree_snapshot
log "build/linux: $BASE_PKG $ver + $npatch patches + $nfile added files"
stage_done tree "$t0"
