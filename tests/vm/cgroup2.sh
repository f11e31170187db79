#!/bin/bash
# Tests cell's cgroup v2 backend in a VM, for hosts whose own cgroups are
# v1 or hybrid: boots the Debian kernel under qemu/KVM with a busybox
# initramfs holding build/cell, whose /init (tests/vm/cgroup2-guest.sh)
# mounts cgroup2 at /sys/fs/cgroup and runs jails with limits.  Prints
# the guest's TAP lines; exits non-zero if any check failed or the guest
# did not reach its end.  Root; `make test-vm`.
#
#   CELL=PATH      the binary to test (default build/cell)
#   VMLINUZ=PATH   the kernel (default the newest /boot/vmlinuz-*)
#   VM_TIMEOUT=S   seconds the VM may run (default 120)
#   VM_ACCEL=A     kvm or tcg (default kvm, but tcg on a host whose
#                  /dev/kvm is PVM's (kvm_pvm): it runs only PVM guest
#                  kernels, and a stock one never gets past its
#                  decompressor there)
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
cell=$(realpath "${CELL:-$top/build/cell}")
timeout_s=${VM_TIMEOUT:-120}

die() {
	echo "cgroup2.sh: $*" >&2
	exit 1
}

[ "$(id -u)" = 0 ] || die "run as root"
"$top/scripts/install-deps.sh" vm
[ -x "$cell" ] || die "$cell: not built (make build)"
if [ -z "${VM_ACCEL:-}" ]; then
	VM_ACCEL=kvm
	[ ! -d /sys/module/kvm_pvm ] || VM_ACCEL=tcg
fi
case $VM_ACCEL in
kvm)
	[ -w /dev/kvm ] || die "/dev/kvm: not available (VM_ACCEL=tcg emulates)"
	accel=(-enable-kvm)
	;;
tcg) accel=(-accel tcg) ;;
*) die "VM_ACCEL=$VM_ACCEL: kvm or tcg" ;;
esac
if [ -z "${VMLINUZ:-}" ]; then
	VMLINUZ=$(find /boot -maxdepth 1 -name 'vmlinuz-*' | sort -V | tail -n 1)
fi
[ -r "${VMLINUZ:-}" ] || die "no kernel in /boot (linux-image-amd64)"
busybox=/bin/busybox # busybox-static's
if [ ! -x "$busybox" ] || ldd "$busybox" >/dev/null 2>&1; then
	die "$busybox: not a static busybox (busybox-static)"
fi

tmp=$(mktemp -d /tmp/cell-vm.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
root=$tmp/root

# --- the initramfs ---------------------------------------------------
mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,run,tmp,etc}
cp "$busybox" "$root/bin/busybox"
for applet in $("$root/bin/busybox" --list-full); do
	[ -e "$root/$applet" ] || ln -s /bin/busybox "$root/$applet"
done
cp "$cell" "$root/bin/cell"
# cell's shared libraries, at the paths ldd names (none when static)
if ldd "$cell" >/dev/null 2>&1; then
	ldd "$cell" | grep -oE '/[^ ]+' | while read -r lib; do
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done
fi
cp "$top/tests/vm/cgroup2-guest.sh" "$root/init"
chmod 755 "$root/init"
echo "root:x:0:0:root:/:/bin/sh" >"$root/etc/passwd"
echo "root:x:0:" >"$root/etc/group"
mknod -m 600 "$root/dev/console" c 5 1
(cd "$root" && find . | "$busybox" cpio -o -H newc 2>/dev/null) | gzip -1 >"$tmp/initrd"

# --- the boot --------------------------------------------------------
echo "# $(basename "$VMLINUZ") under $VM_ACCEL, initramfs $(du -k "$tmp/initrd" | cut -f1) KiB"
start=$(date +%s)
status=0
timeout "$timeout_s" qemu-system-x86_64 "${accel[@]}" -m 1024 -smp 2 -nographic -no-reboot \
	-kernel "$VMLINUZ" -initrd "$tmp/initrd" \
	-append "console=ttyS0 quiet panic=-1" </dev/null >"$tmp/console.raw" 2>&1 || status=$?
tr -d '\r' <"$tmp/console.raw" >"$tmp/console"
echo "# the VM ran $(($(date +%s) - start)) s"

grep -E '^(ok|not ok) [0-9]+|^#|^1\.\.' "$tmp/console" || true
if ! grep -qx 'cell-vm: done' "$tmp/console"; then
	echo "cgroup2.sh: the guest did not reach its end (qemu status $status); console:" >&2
	tail -n 40 "$tmp/console" >&2
	exit 1
fi
if grep -q '^not ok ' "$tmp/console"; then
	echo "cgroup2.sh: $(grep -c '^not ok ' "$tmp/console") check(s) failed" >&2
	exit 1
fi
echo "cgroup2.sh: $(grep -c '^ok ' "$tmp/console") checks passed" >&2
