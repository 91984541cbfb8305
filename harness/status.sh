#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make status: list edits in build/linux that 'make refresh' has not yet
# written back to the repository. --quiet prints nothing but the paths.
. "$(dirname "$0")/lib.sh"
. "$HARNESS/refresh-lib.sh"

[ -d "$TREE/.git" ] || { [ "${1:-}" = --quiet ] || echo "no build/linux: run make tree"; exit 0; }
refresh_scan
if [ "${1:-}" = --quiet ]; then
	printf '%s\n' "${PENDING[@]}" | sed '/^$/d'
	exit 0
fi
if [ ${#PENDING[@]} -eq 0 ]; then
	echo "build/linux: every edit is refreshed"
else
	echo "build/linux: not refreshed (run make refresh):"
	printf '  %s\n' "${PENDING[@]}"
fi
