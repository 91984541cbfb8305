#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# guest.sh ARCH JOB LOG: boot build/<arch>'s kernel in QEMU with the
# harness initramfs, run build/JOB (a shell script, path relative to
# build/) inside, and write the console to LOG. Fails when the guest does
# not power off within GUEST_TIMEOUT seconds (default 1500).
# QEMU_ACCEL=kvm uses KVM (x86_64 on an x86_64 host); default is TCG.
# TCG_THREAD=single: one host thread for all vCPUs (default: multi-threaded TCG).
. "$(dirname "$0")/lib.sh"
arch_vars "${1:?usage: guest.sh ARCH JOB LOG}"
job=${2:?}; console=${3:?}

case "$KARCH" in
x86_64)	need_pkgs qemu-system-x86 busybox-static
	busybox=/bin/busybox
	QEMU=(qemu-system-x86_64 -M pc -cpu max)
	CON=ttyS0 ;;
arm64)	need_pkgs qemu-system-arm
	busybox=$BUILD/busybox-arm64/bin/busybox
	if [ ! -x "$busybox" ]; then
		rm -rf "$BUILD/busybox-arm64"; mkdir -p "$BUILD/busybox-arm64"
		(cd "$BUILD/busybox-arm64" && apt-get download -q busybox-static:arm64 >&2 &&
		 dpkg-deb -x busybox-static_*_arm64.deb .)
	fi
	# pauth-impdef: QEMU's fast PAC algorithm, same instructions.
	QEMU=(qemu-system-aarch64 -M virt,gic-version=3 -cpu max,pauth-impdef=on)
	CON=ttyAMA0 ;;
esac
case "${QEMU_ACCEL:-tcg}" in
tcg) QEMU+=(-accel "tcg${TCG_THREAD:+,thread=$TCG_THREAD}") ;;
kvm) QEMU+=(-accel kvm) ; [ "$KARCH" = x86_64 ] && QEMU[3]=host ;;
*) die "QEMU_ACCEL is tcg or kvm" ;;
esac

# initramfs: busybox + init, rebuilt when either changes.
initrd=$BUILD/initramfs-$KARCH.cpio
if [ ! -f "$initrd" ] || [ "$HARNESS/guest/init" -nt "$initrd" ] || [ "$busybox" -nt "$initrd" ]; then
	stage=$(mktemp -d)
	mkdir -p "$stage"/{bin,sbin,proc,sys,dev,tmp,run,host,work,usr,etc}
	cp "$busybox" "$stage/bin/busybox"
	cp "$HARNESS/guest/init" "$stage/init"
	chmod +x "$stage/init"
	ln -s usr/lib "$stage/lib"
	ln -s usr/lib64 "$stage/lib64"
	(cd "$stage" && find . | cpio -o -H newc -R 0:0 --quiet) > "$initrd"
	rm -rf "$stage"
fi

[ -f "$BUILD/$job" ] || die "no job $BUILD/$job"
timeout_s=${GUEST_TIMEOUT:-1500}
log "booting $KARCH guest (${QEMU_ACCEL:-tcg}), job $job, timeout ${timeout_s}s"
set +e
timeout --foreground -k 10 "$timeout_s" "${QEMU[@]}" -smp "${GUEST_CPUS:-2}" -m "${GUEST_MEM:-2G}" \
	-nographic -no-reboot -monitor none -serial stdio \
	-kernel "$KOUT/$IMAGE" -initrd "$initrd" \
	-append "console=$CON panic=-1 loglevel=${GUEST_LOGLEVEL:-7} harness.job=$job" \
	-fsdev local,id=hostroot,path=/,security_model=none,readonly=on \
	-device virtio-9p-pci,fsdev=hostroot,mount_tag=hostroot \
	-fsdev local,id=work,path="$BUILD",security_model=none \
	-device virtio-9p-pci,fsdev=work,mount_tag=work \
	< /dev/null > "$console" 2>&1
rc=$?
set -e
[ $rc -eq 124 ] && die "$KARCH guest timed out after ${timeout_s}s (console: ${console#$REPO/})"
[ $rc -eq 0 ] || die "$KARCH guest: QEMU exited with $rc (console: ${console#$REPO/})"
grep -q '^harness: job exit status' "$console" || die "$KARCH guest ended before its job did (console: ${console#$REPO/})"
