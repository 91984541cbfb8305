#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make refresh: write build/linux's edits back into the repository.
. "$(dirname "$0")/lib.sh"
. "$HARNESS/refresh-lib.sh"

[ -d "$TREE/.git" ] || die "no build/linux: run make tree"
refresh_scan apply
tree_snapshot
if [ ${#PENDING[@]} -eq 0 ]; then
	echo "refresh: nothing changed"
else
	printf 'refresh: %s\n' "${PENDING[@]}"
fi
