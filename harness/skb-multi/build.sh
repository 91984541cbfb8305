#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# harness/skb-multi/build.sh ARCH (x86_64|arm64): samples/bpf/skb_multi,
# one fentry.multi program on every function that takes a struct sk_buff *
# (typed arguments), built against the tree's libbpf of the
# selftests build, for make check ("@client skb_multi" in harness/tests/list)
# and make run (RUN_DEMO=skb_multi). Outputs:
#   $OUT/skb_multi		the sample (${CROSS}gcc, libbpf.a static)
#   $OUT/skb_multi_client	runs it, reports in test_progs' format
# OUT defaults to $SOUT (the guest's /work/selftests-<arch>).
. "$(dirname "$0")/../lib.sh"
arch_vars "${1:?usage: build.sh ARCH}"

OUT=${OUT:-$SOUT}
W=$BUILD/skb-multi/$KARCH
SRC=$TREE/samples/bpf
TOOLS=$SOUT/tools
CLANG=/usr/lib/llvm-19/bin/clang
# bpftool gen skeleton runs on the host: the cross build's host bpftool
BPFTOOL=$TOOLS/sbin/bpftool
[ -n "$CROSS" ] && BPFTOOL=$SOUT/host-tools/sbin/bpftool
LIBBPF_A=$TOOLS/build/libbpf/libbpf.a
for f in "$BPFTOOL" "$LIBBPF_A" "$TOOLS/include/vmlinux.h"; do
	[ -e "$f" ] || die "skb-multi: no $f (make selftests ARCH=$KARCH first)"
done

t0=$(now_s)
mkdir -p "$W" "$OUT"
case "$KARCH" in
x86_64) TARGET_ARCH=x86 ;;
arm64) TARGET_ARCH=arm64 ;;
esac
HDRS=("$SRC/skb_multi.h" "$TOOLS/include/vmlinux.h" "$TOOLS/include/bpf/bpf_tracing.h"
      "$TOOLS/include/bpf/libbpf.h" "$0")
if stale "$W/skb_multi.skel.h" "$SRC/skb_multi.bpf.c" "${HDRS[@]}" "$BPFTOOL"; then
	log "skb-multi: CLANG-BPF and skeleton for $KARCH"
	"$CLANG" -g -O2 -Wall -Werror --target=bpf -D__TARGET_ARCH_"$TARGET_ARCH" \
		-I"$TOOLS/include" -I"$SRC" -c "$SRC/skb_multi.bpf.c" -o "$W/skb_multi.bpf.o"
	"$BPFTOOL" gen skeleton "$W/skb_multi.bpf.o" name skb_multi > "$W/skb_multi.skel.h.tmp"
	mv "$W/skb_multi.skel.h.tmp" "$W/skb_multi.skel.h"
fi
# Linked as test_progs is: libbpf static, libelf, zlib and libc dynamic.
if stale "$OUT/skb_multi" "$SRC/skb_multi.c" "$W/skb_multi.skel.h" "$LIBBPF_A" "${HDRS[@]}"; then
	log "skb-multi: ${CROSS}gcc ${OUT#$BUILD/}/skb_multi"
	"${CROSS}gcc" -g -O2 -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers \
		-Werror -I"$W" -I"$SRC" -I"$TOOLS/include" -I"$TREE/tools/include/uapi" \
		"$SRC/skb_multi.c" "$LIBBPF_A" -lelf -lz -o "$OUT/skb_multi.tmp"
	mv "$OUT/skb_multi.tmp" "$OUT/skb_multi"
fi
# The client make check's guest job runs (cwd: the selftests directory).
cat > "$OUT/skb_multi_client.tmp" <<'CLIENT'
#!/bin/sh
# samples/bpf/skb_multi, reported as a test_progs test (harness/skb-multi)
cd "$(dirname "$0")" || exit 1
start=$(date +%s)
./skb_multi "$@"
rc=$?
echo "skb_multi: $(( $(date +%s) - start )) s in the guest"
if [ $rc -eq 0 ]; then echo "#910 skb_multi:OK"; else echo "#910 skb_multi:FAIL"; fi
exit $rc
CLIENT
chmod +x "$OUT/skb_multi_client.tmp"
mv "$OUT/skb_multi_client.tmp" "$OUT/skb_multi_client"
stage_done "skb-multi-$KARCH" "$t0"
