#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# guest.sh ARCH JOB LOG: boot build/<arch>'s kernel in QEMU with the
# harness initramfs, run build/JOB (a shell script, path relative to
# build/) inside, and write the console to LOG. Fails when the guest does
# not power off within GUEST_TIMEOUT seconds (default 1500).
# GUEST_APPEND: more kernel options (a variant's own come from
# harness/config/<variant>.cmdline).
# QEMU_ACCEL=kvm uses KVM (x86_64 on an x86_64 host); default is TCG.
# TCG_THREAD=single (default): one host thread runs all vCPUs in turn.
# TCG_THREAD=multi: a host thread per vCPU (QEMU's default, faster), which
# in Debian 12's QEMU 7.2 can keep running kernel text another vCPU has
# rewritten (harness/README.md, "Emulator"): only for comparison.
# QEMU_ICOUNT=1: guest time counts executed instructions (-icount
# shift=0,align=off,sleep=off: 1 ns per instruction), so timings repeat;
# TCG single-threaded only (make bench's default clock).
# QEMU_FROM=backports: bookworm-backports' QEMU (10.0), fetched from the
# Debian archive and unpacked into build/qemu-backports, not installed.
# Every guest first runs the emulator canary (harness/canary/smc-canary.c,
# CANARY_ROUNDS rewrites, 0 skips it): a stale execution fails the run,
# except in TCG_THREAD=multi, where it is reported.
. "$(dirname "$0")/lib.sh"
arch_vars "${1:?usage: guest.sh ARCH JOB LOG}"
job=${2:?}; console=${3:?}

case "$KARCH" in
x86_64)	need_pkgs qemu-system-x86 busybox-static
	busybox=/bin/busybox
	QEMU=(qemu-system-x86_64 -M pc -cpu max)
	# One CPU per socket: the guest finds CPUs in SeaBIOS's MP table (the
	# test kernel has no ACPI), which lists one entry per socket.
	SMP_TOPO=",sockets=${GUEST_CPUS:-2},cores=1,threads=1"
	CON=ttyS0 ;;
arm64)	need_pkgs qemu-system-arm
	busybox=$BUILD/busybox-arm64/bin/busybox
	if [ ! -x "$busybox" ]; then
		need_arm64_apt
		rm -rf "$BUILD/busybox-arm64"; mkdir -p "$BUILD/busybox-arm64"
		(cd "$BUILD/busybox-arm64" && apt-get download -q busybox-static:arm64 >&2 &&
		 dpkg-deb -x busybox-static_*_arm64.deb .)
	fi
	# pauth-impdef: QEMU's fast PAC algorithm, same instructions.
	QEMU=(qemu-system-aarch64 -M virt,gic-version=3 -cpu max,pauth-impdef=on)
	SMP_TOPO=
	CON=ttyAMA0 ;;
esac
case "${QEMU_FROM:-debian}" in
debian) ;;
backports)
	# The suite is read through its own sources list into build/: the
	# machine's apt configuration stays as it is.
	bp=$BUILD/qemu-backports
	if [ ! -x "$bp/usr/bin/${QEMU[0]}" ]; then
		log "fetching QEMU from bookworm-backports into ${bp#$REPO/}"
		rm -rf "$bp"; mkdir -p "$bp/lists/partial" "$bp/debs"
		echo 'deb http://deb.debian.org/debian bookworm-backports main' > "$bp/sources.list"
		apto=(-o Dir::Etc::sourcelist="$bp/sources.list" -o Dir::Etc::sourceparts=-
		      -o Dir::State::Lists="$bp/lists" -o APT::Get::List-Cleanup=0 -q)
		apt-get "${apto[@]}" update >&2
		(cd "$bp/debs" && apt-get "${apto[@]}" download qemu-system-x86 qemu-system-arm \
			qemu-system-data qemu-system-common 2>&1 | grep -v '^W: Download is performed unsandboxed' >&2)
		for d in "$bp"/debs/*.deb; do dpkg-deb -x "$d" "$bp"; done
	fi
	QEMU[0]=$bp/usr/bin/${QEMU[0]}
	QEMU+=(-L "$bp/usr/share/qemu" -L /usr/share/qemu) ;;
*) die "QEMU_FROM is debian or backports" ;;
esac
qemu_version=$("${QEMU[0]}" --version | sed -n '1s/.*version \([^ ]*\).*/\1/p')
tcg_thread=${TCG_THREAD:-single}
case "${QEMU_ACCEL:-tcg}" in
tcg) case "$tcg_thread" in single|multi) ;; *) die "TCG_THREAD is single or multi" ;; esac
     QEMU+=(-accel "tcg,thread=$tcg_thread"); mode="QEMU $qemu_version, tcg, $tcg_thread-threaded"
     if [ -n "${QEMU_ICOUNT:-}" ]; then
	[ "$tcg_thread" = single ] || die "QEMU_ICOUNT needs TCG_THREAD=single"
	QEMU+=(-icount shift=0,align=off,sleep=off); mode+=", icount (1 ns = 1 instruction)"
     fi ;;
kvm) [ -z "${QEMU_ICOUNT:-}" ] || die "QEMU_ICOUNT is for TCG"
     QEMU+=(-accel kvm) ; [ "$KARCH" = x86_64 ] && QEMU[3]=host; mode="QEMU $qemu_version, kvm" ;;
*) die "QEMU_ACCEL is tcg or kvm" ;;
esac

# The canary, a static binary per guest arch (named as uname -m says).
canary_rounds=${CANARY_ROUNDS:-2000}
[[ $canary_rounds =~ ^[0-9]+$ ]] || die "CANARY_ROUNDS must be a number"
canary_src=$HARNESS/canary/smc-canary.c
canary_bin=$BUILD/canary/smc-canary.$( [ "$KARCH" = arm64 ] && echo aarch64 || echo x86_64)
if [ "$canary_rounds" -gt 0 ] && { [ ! -x "$canary_bin" ] || [ "$canary_src" -nt "$canary_bin" ]; }; then
	[ -n "$CROSS" ] && need_pkgs gcc-aarch64-linux-gnu libc6-dev:arm64
	mkdir -p "$BUILD/canary"
	"${CROSS}gcc" -O2 -Wall -static -pthread "$canary_src" -o "$canary_bin"
fi

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
# Kernel options a config variant boots with: harness/config/<variant>.cmdline.
append=${GUEST_APPEND:-}
vcmdline=$HARNESS/config/${CONFIG_VARIANT:-none}.cmdline
[ -f "$vcmdline" ] && append+=" $(sed -e 's/#.*//' "$vcmdline" | xargs)"
# The QEMU monitor, for a guest that hangs: for example
#   harness/qemu-monitor.py build/check/arm64/console.monitor "info registers -a"
monitor=${console%.log}.monitor
timeout_s=${GUEST_TIMEOUT:-1500}
# QEMU's translation statistics (info jit), every JIT_SAMPLE seconds (default
# 30, 0: none) into <console>.jit: a guest that runs several times slower
# than usual shows there whether the emulator flushed its code buffer or
# kept translating rewritten code again, and the harness logs the last.
jit_log=${console%.log}.jit
jit_sample=${JIT_SAMPLE:-30}
[[ $jit_sample =~ ^[0-9]+$ ]] || die "JIT_SAMPLE must be a number"
rm -f "$jit_log"
sampler=
if [ "$jit_sample" -gt 0 ] && [ "${QEMU_ACCEL:-tcg}" = tcg ]; then
	(
		start=$SECONDS
		while sleep "$jit_sample"; do
			out=$(python3 "$HARNESS/qemu-monitor.py" "$monitor" "info jit") || continue
			printf '== %d s\n%s\n' $((SECONDS - start)) "$out" >> "$jit_log"
		done
	) > /dev/null 2>&1 &
	sampler=$!
fi
jit_summary() {
	local last
	[ -s "$jit_log" ] || return 0
	last=$(awk '/^== /{n=$2; f=""; c=""; i=""}
		/^gen code size/{c=$4} /^TB flush count/{f=$4} /^TB invalidate count/{i=$4}
		END{if (c != "") printf "at %s s: code buffer %s bytes, TB flushes %s, TB invalidations %s", n, c, f, i}' "$jit_log")
	[ -n "$last" ] && log "$KARCH emulator (info jit) $last (${jit_log#$REPO/})"
	return 0
}
log "booting $KARCH guest ($mode), job $job, timeout ${timeout_s}s"
set +e
timeout --foreground -k 10 "$timeout_s" "${QEMU[@]}" -smp "${GUEST_CPUS:-2}$SMP_TOPO" -m "${GUEST_MEM:-2G}" \
	-nographic -no-reboot -monitor "unix:$monitor,server,nowait" -serial stdio \
	-kernel "$KOUT/$IMAGE" -initrd "$initrd" \
	-append "console=$CON panic=-1 loglevel=${GUEST_LOGLEVEL:-7} harness.job=$job harness.canary=$canary_rounds $append" \
	-fsdev local,id=hostroot,path=/,security_model=none,readonly=on \
	-device virtio-9p-pci,fsdev=hostroot,mount_tag=hostroot \
	-fsdev local,id=work,path="$BUILD",security_model=none \
	-device virtio-9p-pci,fsdev=work,mount_tag=work \
	< /dev/null > "$console" 2>&1
rc=$?
[ -n "$sampler" ] && { kill "$sampler"; wait "$sampler"; } 2>/dev/null
set -e
jit_summary
[ $rc -eq 124 ] && die "$KARCH guest timed out after ${timeout_s}s (console: ${console#$REPO/})"
[ $rc -eq 0 ] || die "$KARCH guest: QEMU exited with $rc (console: ${console#$REPO/})"
grep -q '^harness: job exit status' "$console" || die "$KARCH guest ended before its job did (console: ${console#$REPO/})"

# The guest must have the CPUs it was given: races need two.
cpus=$(grep -a -m1 '^harness: .* CPUs online' "$console" | sed -E 's/.* ([0-9]+) CPUs online.*/\1/') || true
[ "$cpus" = "${GUEST_CPUS:-2}" ] ||
	die "$KARCH guest has ${cpus:-an unknown number of} CPUs online, not ${GUEST_CPUS:-2} (console: ${console#$REPO/})"

# The canary's verdict on the emulator mode.
[ "$canary_rounds" -gt 0 ] || exit 0
cline=$(grep -m1 -a '^smc-canary:' "$console" | tr -d '\r') || true
log "$KARCH canary ($mode): ${cline#smc-canary: }"
case "$cline" in
*" 0 stale executions"*|*"needs 2 CPUs"*) ;;
*" stale executions"*)
	if [ "$tcg_thread" = multi ]; then
		log "warning: $mode ran stale code in the canary: an oops in this run may be the emulator's"
	else
		die "$KARCH guest ($mode) ran stale code in the canary: this run's results cannot be trusted (harness/README.md, Emulator)"
	fi ;;
*) die "$KARCH guest printed no canary result (console: ${console#$REPO/})" ;;
esac
