#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make run: build the patched x86-64 kernel, boot it in QEMU and run the
# demo, samples/bpf/funccount_multi: one fentry.multi program counting the
# calls of every function matching a glob (RUN_PATTERN, default vfs_*).
# RUN_DEMO=skb_multi runs samples/bpf/skb_multi instead: one fentry.multi
# program on every function taking a struct sk_buff * (harness/skb-multi).
. "$(dirname "$0")/lib.sh"
arch_vars "${ARCH_RUN:-x86_64}"

"$HARNESS/kernel.sh" "$KARCH"
"$HARNESS/selftests.sh" "$KARCH"	# libbpf, bpftool, vmlinux.h

t0=$(now_s)
D=$BUILD/demo-$KARCH
mkdir -p "$D"
TOOLS=$SOUT/tools
export PATH=/usr/lib/llvm-19/bin:$PATH
SRC=$TREE/samples/bpf
DEMO=${RUN_DEMO:-funccount_multi}
case "$DEMO" in
funccount_multi) CMD="/work/demo-$KARCH/funccount_multi \"${RUN_PATTERN:-vfs_*}\"" ;;
skb_multi) CMD="/work/demo-$KARCH/skb_multi" ;;
*) die "RUN_DEMO is funccount_multi or skb_multi" ;;
esac
if [ "$DEMO" = skb_multi ]; then
	OUT=$D "$HARNESS/skb-multi/build.sh" "$KARCH"
else
	clang -g -O2 --target=bpf -D__TARGET_ARCH_${KARCH/x86_64/x86} \
		-I"$TOOLS/include" -c "$SRC/funccount_multi.bpf.c" -o "$D/funccount_multi.bpf.o"
	"$TOOLS/sbin/bpftool" gen skeleton "$D/funccount_multi.bpf.o" name funccount_multi \
		> "$D/funccount_multi.skel.h"
	"${CROSS}gcc" -g -O2 -Wall -I"$D" -I"$TOOLS/include" -I"$TREE/tools/include/uapi" \
		"$SRC/funccount_multi.c" \
		"$TOOLS/build/libbpf/libbpf.a" -lelf -lz -o "$D/funccount_multi"
fi
stage_done demo-build "$t0"

mkdir -p "$BUILD/run"
cat > "$BUILD/run/job.sh" <<JOB
echo "== demo: $(cat "$BUILD/base-version") + this series, \$(uname -r)"
$CMD
JOB
t0=$(now_s)
GUEST_LOGLEVEL=4 "$HARNESS/guest.sh" "$KARCH" run/job.sh "$BUILD/run/console.log" || { tail -n 40 "$BUILD/run/console.log"; exit 1; }
stage_done guest "$t0"
sed -n '/^== demo/,/^harness: job exit status/p' "$BUILD/run/console.log"
grep -q "^$DEMO: OK" "$BUILD/run/console.log"
