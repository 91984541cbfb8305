#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# harness/upstream-libbpf/build.sh ARCH (x86_64|arm64): the upstream-libbpf
# client, a test program built against upstream's libbpf (vendored,
# unmodified) instead of the tree's, to check the kernel against software
# nobody on this project wrote. Outputs, beside test_progs:
#   $SOUT/upstream_libbpf_client		(${CROSS}gcc, libbpf.a static)
#   $SOUT/upstream_libbpf_client.bpf.o	(clang-19 -target bpf)
#   $SOUT/upstream_libbpf_client_decl.bpf.o	(the same, from decl.bpf.c)
# OUT=dir puts them elsewhere (e.g. before the selftests build made $SOUT).
# Rebuilds only what changed: libbpf once per arch and tarball.
. "$(dirname "$0")/../lib.sh"
arch_vars "${1:?usage: build.sh ARCH}"

# ../shared/vendor beside the repository (README of ../shared/vendor)
TARBALL=${UPSTREAM_LIBBPF_TARBALL:-$REPO/../shared/vendor/libbpf-f7081a6b.tar.gz}
HERE=$HARNESS/upstream-libbpf
W=$BUILD/upstream-libbpf
SRC=$W/src			# the libbpf tree: src/, include/
OBJDIR=$W/obj-$KARCH
DEST=$W/root-$KARCH		# DESTDIR of libbpf's install
OUT=${OUT:-$SOUT}
CLANG=/usr/lib/llvm-19/bin/clang

pkgs=(clang-19 libelf-dev zlib1g-dev pkg-config)
[ -n "$CROSS" ] && pkgs+=(gcc-aarch64-linux-gnu libelf-dev:arm64 zlib1g-dev:arm64)
need_pkgs "${pkgs[@]}"
[ -f "$TARBALL" ] || die "no vendored libbpf at $TARBALL"

t0=$(now_s)
mkdir -p "$W" "$OUT"

# Unpack once; again only for another tarball (its checksum is the stamp).
sum=$(sha256sum "$TARBALL" | cut -d' ' -f1)
if [ "$(cat "$SRC/.tarball" 2>/dev/null)" != "$sum" ]; then
	log "upstream-libbpf: unpacking ${TARBALL##*/}"
	rm -rf "$SRC" "$W"/obj-* "$W"/root-*
	mkdir -p "$SRC"
	tar -xzf "$TARBALL" -C "$SRC" --strip-components=1
	echo "$sum" > "$SRC/.tarball"
fi

# libbpf's install rewrites its headers every time: run it only when the
# sources are newer than the last install, so the client is not rebuilt.
LIBBPF_A=$DEST/usr/lib64/libbpf.a
if stale "$OBJDIR/.installed" "$SRC/.tarball" || [ ! -f "$LIBBPF_A" ]; then
	log "upstream-libbpf: building libbpf for $KARCH"
	mkdir -p "$OBJDIR"
	if ! make -C "$SRC/src" -j"$NPROC" BUILD_STATIC_ONLY=1 OBJDIR="$OBJDIR" \
		DESTDIR="$DEST" PREFIX=/usr LIBSUBDIR=lib64 \
		CC="${CROSS}gcc" AR="${CROSS}ar" install > "$W/libbpf-$KARCH.log" 2>&1; then
		tail -n 40 "$W/libbpf-$KARCH.log" >&2
		die "upstream libbpf build for $KARCH failed (log: ${W#$REPO/}/libbpf-$KARCH.log)"
	fi
	[ -f "$LIBBPF_A" ] || die "upstream libbpf: no $LIBBPF_A after install"
	touch "$OBJDIR/.installed"
fi

# Upstream's UAPI header first: linux/bpf.h is the vendored libbpf's (bpf-next
# after 7.2-rc1), not the tree's or the host's. bpf/*.h from the install.
INC=(-I"$SRC/include/uapi" -I"$DEST/usr/include" -I"$HERE")
HDRS=("$HERE/client.h" "$OBJDIR/.installed")

case "$KARCH" in
x86_64) TARGET_ARCH=x86 ;;
arm64) TARGET_ARCH=arm64 ;;
esac
for src in client decl; do
	BPF_O=$OUT/upstream_libbpf_client.bpf.o
	[ $src = client ] || BPF_O=$OUT/upstream_libbpf_client_$src.bpf.o
	stale "$BPF_O" "$HERE/$src.bpf.c" "${HDRS[@]}" "$0" || continue
	log "upstream-libbpf: CLANG-BPF ${BPF_O#$REPO/}"
	# -target bpf searches no multiarch directory: asm/types.h is the
	# host's (the same generic one on both arches).
	"$CLANG" -g -O2 -Wall -Werror -target bpf -D__TARGET_ARCH_"$TARGET_ARCH" \
		"${INC[@]}" -idirafter "/usr/include/$(gcc -print-multiarch)" \
		-c "$HERE/$src.bpf.c" -o "$BPF_O.tmp"
	mv "$BPF_O.tmp" "$BPF_O"
done

# Linked as test_progs is: libbpf static, libelf, zlib and libc dynamic
# (the guest runs it from the host's root filesystem, with Debian's
# multiarch libraries on arm64).
BIN=$OUT/upstream_libbpf_client
if stale "$BIN" "$HERE/client.c" "$LIBBPF_A" "${HDRS[@]}" "$0"; then
	log "upstream-libbpf: ${CROSS}gcc ${BIN#$REPO/}"
	"${CROSS}gcc" -g -O2 -std=gnu11 -Wall -Wextra -Wno-unused-parameter \
		-Wno-missing-field-initializers -Werror "${INC[@]}" \
		"$HERE/client.c" "$LIBBPF_A" -lelf -lz -o "$BIN.tmp"
	mv "$BIN.tmp" "$BIN"
fi
stage_done "upstream-libbpf-$KARCH" "$t0"
