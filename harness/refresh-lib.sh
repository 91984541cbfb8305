# SPDX-License-Identifier: GPL-2.0
# refresh_scan [apply]: compare build/linux with the repository. Fills
# PENDING with one line per difference; with "apply", also fixes each one:
#   patch   <file>.patch   a base file whose diff differs from its patch
#   unpatch <file>.patch   a patch whose file is back to the base
#   add     <file>         a new file in the tree, moved into the repo and linked back
#   gone    <file>         a linked file deleted in the tree, deleted in the repo
#   link    <file>         a file new in the repo, not committed yet, linked into the tree
refresh_scan() {
	local mode=${1:-} f p tmp
	PENDING=()
	tmp=$(mktemp)
	trap 'rm -f "$tmp"' RETURN
	git -C "$TREE" update-index -q --refresh >/dev/null 2>&1 || true

	# Base files changed in the tree (modified or deleted).
	declare -A changed=()
	while IFS= read -r -d '' f; do
		changed[$f]=1
		p=$REPO/$f.patch
		# minimal: git's default gives up on the shortest diff of a big
		# insertion (ftrace.c) and shows base code as moved
		git -C "$TREE" diff --no-color --no-ext-diff --abbrev=9 --diff-algorithm=minimal \
			base -- "$f" > "$tmp"
		if [ ! -f "$p" ] || ! cmp -s "$tmp" "$p"; then
			PENDING+=("patch   $f.patch")
			if [ "$mode" = apply ]; then
				mkdir -p "$(dirname "$p")"
				cat "$tmp" > "$p"
			fi
		fi
	done < <(git -C "$TREE" diff --name-only -z base)

	# Patches in the repo whose file no longer differs from the base.
	while read -r p; do
		case "$p" in *.patch) ;; *) continue ;; esac
		f=${p%.patch}
		git -C "$TREE" cat-file -e "base:$f" 2>/dev/null || continue
		[ -n "${changed[$f]:-}" ] && continue
		PENDING+=("unpatch $p")
		[ "$mode" = apply ] && rm -f "$REPO/$p"
	done < <(overlay_files)

	# New files in the tree: move them into the repo, link them back. The
	# base's .gitignore files do not apply (Debian's ignores every top-level
	# path); .git/info/exclude, written by tree.sh, lists what to skip.
	while IFS= read -r -d '' f; do
		if [ -L "$TREE/$f" ]; then
			case "$(readlink "$TREE/$f")" in
			"$REPO/$f") [ -e "$TREE/$f" ] && continue
				PENDING+=("gone    $f")
				[ "$mode" = apply ] && rm -f "$TREE/$f"
				continue ;;
			esac
		fi
		PENDING+=("add     $f")
		if [ "$mode" = apply ]; then
			mkdir -p "$REPO/$(dirname "$f")"
			mv "$TREE/$f" "$REPO/$f"
			ln -s "$REPO/$f" "$TREE/$f"
		fi
	done < <(git -C "$TREE" ls-files -z --others --exclude-from=.git/info/exclude)

	# Added files deleted from the tree. A file new in the repo (not yet
	# committed) that the tree lacks was never linked: link it, never
	# delete work that exists nowhere else.
	while read -r f; do
		case "$f" in *.patch) continue ;; esac
		[ -e "$TREE/$f" ] || [ -L "$TREE/$f" ] && continue
		if ! git -C "$REPO" ls-files --error-unmatch -- "$f" >/dev/null 2>&1; then
			PENDING+=("link    $f")
			if [ "$mode" = apply ]; then
				mkdir -p "$TREE/$(dirname "$f")"
				ln -s "$REPO/$f" "$TREE/$f"
			fi
			continue
		fi
		PENDING+=("gone    $f")
		[ "$mode" = apply ] && git -C "$REPO" rm -q --cached --ignore-unmatch -- "$f" >/dev/null && rm -f "$REPO/$f"
	done < <(overlay_files)
	return 0
}

# The tree's edits as make tree or make refresh last left them, so that
# make tree can tell edits of its own (which it must not drop) from patches
# that changed in the repository (which it must apply).
TREE_STATE=$BUILD/tree-state.diff

tree_snapshot() {
	git -C "$TREE" diff --no-color --no-ext-diff base > "$TREE_STATE"
}

# tree_unsaved: print the edits in build/linux that neither make tree nor
# make refresh has seen: base files changed since, and new files.
tree_unsaved() {
	local f
	[ -f "$TREE_STATE" ] || { echo "build/linux (no record of its last state)"; return; }
	git -C "$TREE" diff --no-color --no-ext-diff base | cmp -s - "$TREE_STATE" ||
		git -C "$TREE" diff --name-only base | sed 's/^/changed? /'
	while IFS= read -r -d '' f; do
		[ -L "$TREE/$f" ] && [ "$(readlink "$TREE/$f")" = "$REPO/$f" ] && continue
		echo "new     $f"
	done < <(git -C "$TREE" ls-files -z --others --exclude-from=.git/info/exclude)
}
