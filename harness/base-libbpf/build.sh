#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# harness/base-libbpf/build.sh ARCH: the base-libbpf client, a kprobe.session
# program built against 6.12's own libbpf (the base tree's tools/lib/bpf,
# tag base of build/linux, unmodified) and 6.12's UAPI header, with 6.12's
# declarations of the session kfuncs: what a binary built for the 6.12
# kernel is. Outputs, beside test_progs:
#   $SOUT/base_libbpf_client		(gcc, libbpf.a static)
#   $SOUT/base_libbpf_client.bpf.o	(clang-19 -target bpf)
# OUT=dir puts them elsewhere. x86-64 only: arm64's 6.12 has no
# kprobe.multi (tests/deny.arm64). Rebuilds only what changed: libbpf once
# per base.
. "$(dirname "$0")/../lib.sh"
arch_vars "${1:?usage: build.sh ARCH}"
[ "$KARCH" = x86_64 ] || die "base-libbpf: x86-64 only (6.12 has no kprobe.multi on $KARCH)"

HERE=$HARNESS/base-libbpf
W=$BUILD/base-libbpf
SRC=$W/src			# the base tree's tools/ (and what libbpf's build reads)
OBJDIR=$W/obj-$KARCH
DEST=$W/root-$KARCH		# DESTDIR of libbpf's install_headers
OUT=${OUT:-$SOUT}
CLANG=/usr/lib/llvm-19/bin/clang

need_pkgs clang-19 libelf-dev zlib1g-dev pkg-config
[ -d "$TREE/.git" ] || die "no $TREE (make tree)"

t0=$(now_s)
mkdir -p "$W" "$OUT"

# The base tree's files, once per base commit (its hash is the stamp).
base=$(git -C "$TREE" rev-parse base)
if [ "$(cat "$SRC/.base" 2>/dev/null)" != "$base" ]; then
	log "base-libbpf: tools/lib/bpf of tag base (${base:0:12})"
	rm -rf "$SRC" "$W"/obj-* "$W"/root-*
	mkdir -p "$SRC"
	git -C "$TREE" archive base tools/lib/bpf tools/include tools/scripts tools/build \
		tools/arch/x86/include scripts/bpf_doc.py include/uapi/linux/bpf.h \
		include/uapi/linux/bpf_common.h include/uapi/linux/if_xdp.h |
		tar -x -C "$SRC"
	echo "$base" > "$SRC/.base"
fi

LIBBPF_A=$OBJDIR/libbpf.a
if stale "$OBJDIR/.installed" "$SRC/.base" || [ ! -f "$LIBBPF_A" ]; then
	log "base-libbpf: building libbpf for $KARCH"
	mkdir -p "$OBJDIR"
	if ! make -C "$SRC/tools/lib/bpf" -j"$NPROC" OUTPUT="$OBJDIR/" DESTDIR="$DEST" \
		prefix=/usr "$LIBBPF_A" install_headers > "$W/libbpf-$KARCH.log" 2>&1; then
		tail -n 40 "$W/libbpf-$KARCH.log" >&2
		die "base libbpf build for $KARCH failed (log: ${W#$REPO/}/libbpf-$KARCH.log)"
	fi
	[ -f "$LIBBPF_A" ] || die "base libbpf: no $LIBBPF_A"
	touch "$OBJDIR/.installed"
fi

# 6.12's UAPI header (tools/include/uapi of the base), bpf/*.h installed.
INC=(-I"$SRC/tools/include/uapi" -I"$DEST/usr/include" -I"$HERE")
HDRS=("$HERE/client.h" "$OBJDIR/.installed")

BPF_O=$OUT/base_libbpf_client.bpf.o
if stale "$BPF_O" "$HERE/client.bpf.c" "${HDRS[@]}" "$0"; then
	log "base-libbpf: CLANG-BPF ${BPF_O#$REPO/}"
	# -target bpf searches no multiarch directory: asm/*.h are the host's.
	"$CLANG" -g -O2 -Wall -Werror -target bpf -D__TARGET_ARCH_x86 \
		"${INC[@]}" -idirafter "/usr/include/$(gcc -print-multiarch)" \
		-c "$HERE/client.bpf.c" -o "$BPF_O.tmp"
	mv "$BPF_O.tmp" "$BPF_O"
fi

BIN=$OUT/base_libbpf_client
if stale "$BIN" "$HERE/client.c" "$LIBBPF_A" "${HDRS[@]}" "$0"; then
	log "base-libbpf: gcc ${BIN#$REPO/}"
	gcc -g -O2 -std=gnu11 -Wall -Wextra -Wno-unused-parameter \
		-Wno-missing-field-initializers -Werror "${INC[@]}" \
		"$HERE/client.c" "$LIBBPF_A" -lelf -lz -o "$BIN.tmp"
	mv "$BIN.tmp" "$BIN"
fi
stage_done "base-libbpf-$KARCH" "$t0"
