# shellcheck shell=bash
# tests/vm/vm.sh: booting a throwaway VM with a busybox initramfs, for
# tests/vm/cgroup2.sh and tests/bench/vm-startup.sh.  Sourced (bash).
#
#   vm_setup NAME          checks root, KVM, a kernel and static busybox;
#                          makes $tmp (removed on exit) and $root in it;
#                          what the host lacks to run a VM at all (qemu,
#                          a kernel, busybox-static) is vm_skip's
#   vm_skip REASON         prints one TAP line, "ok 1 - NAME # skip
#                          REASON", and exits 0
#   vm_add BIN [DEST]      copies BIN (DEST: default the same path) into
#                          $root, with the shared libraries ldd names
#   vm_boot GUEST TIMEOUT  GUEST as /init (with tests/vm/guest.sh as
#                          /lib/vm-guest.sh), packs $root, boots it; the
#                          console (without \r) in $tmp/console
#
#   VMLINUZ=PATH   the kernel (default: tests/vm/kernel.sh's, one that
#                  runs cell's jails, fetched from Debian when needed)
#   VM_ACCEL=A     kvm or tcg (default kvm, but tcg on a host whose
#                  /dev/kvm is PVM's (kvm_pvm): it runs only PVM guest
#                  kernels, and a stock one never gets past its
#                  decompressor there)

vm_die() {
	echo "$vm_name: $*" >&2
	exit 1
}

vm_skip() {
	echo "ok 1 - $vm_name # skip $*"
	echo "$vm_name: skipped: $*" >&2
	exit 0
}

vm_setup() {
	vm_name=$1
	[ "$(id -u)" = 0 ] || vm_die "run as root"
	if [ -z "${VM_ACCEL:-}" ]; then
		VM_ACCEL=kvm
		[ ! -d /sys/module/kvm_pvm ] || VM_ACCEL=tcg
	fi
	case $VM_ACCEL in
	kvm)
		[ -w /dev/kvm ] || vm_die "/dev/kvm: not available (VM_ACCEL=tcg emulates)"
		vm_accel=(-enable-kvm)
		;;
	# One host thread for both vCPUs: with multi-threaded TCG the
	# guest's kernel, patching its own code live (static keys: a BPF
	# device program or a memcg socket turns one on), was seen to run a
	# half-patched instruction on the other vCPU and panic (in 3 boots
	# of 20 on this machine, at boot or in mem_cgroup_sk_alloc()).
	tcg) vm_accel=(-accel tcg,thread=single) ;;
	*) vm_die "VM_ACCEL=$VM_ACCEL: kvm or tcg" ;;
	esac
	command -v qemu-system-x86_64 >/dev/null || vm_skip "no qemu-system-x86_64 (qemu-system-x86)"
	VMLINUZ=$("$(dirname "${BASH_SOURCE[0]}")/kernel.sh" 2>"/tmp/cell-vm-kernel.$$") ||
		vm_skip "no kernel for the guest: $(tail -n 1 "/tmp/cell-vm-kernel.$$"; rm -f "/tmp/cell-vm-kernel.$$")"
	rm -f "/tmp/cell-vm-kernel.$$"
	vm_busybox=/bin/busybox # busybox-static's
	if [ ! -x "$vm_busybox" ] || ldd "$vm_busybox" >/dev/null 2>&1; then
		vm_skip "$vm_busybox: not a static busybox (busybox-static)"
	fi
	tmp=$(mktemp -d /tmp/cell-vm.XXXXXX)
	trap 'rm -rf "$tmp"' EXIT
	root=$tmp/root
	mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,run,tmp,etc}
	cp "$vm_busybox" "$root/bin/busybox"
	for applet in $("$root/bin/busybox" --list-full); do
		[ -e "$root/$applet" ] || ln -s /bin/busybox "$root/$applet"
	done
	echo "root:x:0:0:root:/:/bin/sh" >"$root/etc/passwd"
	echo "root:x:0:" >"$root/etc/group"
	mknod -m 600 "$root/dev/console" c 5 1
}

vm_add() {
	local bin=$1 dest=${2:-$1} lib
	mkdir -p "$root$(dirname "$dest")"
	# A busybox applet's link there points at the host's /bin/busybox:
	# never copied through.
	rm -f "$root$dest"
	cp -L "$bin" "$root$dest"
	# its shared libraries, at the paths ldd names (none when static)
	if ldd "$bin" >/dev/null 2>&1; then
		ldd "$bin" | grep -oE '/[^ ]+' | while read -r lib; do
			mkdir -p "$root$(dirname "$lib")"
			cp -L "$lib" "$root$lib"
		done
	fi
}

vm_boot() {
	local guest=$1 timeout_s=$2 start status=0
	cp "$guest" "$root/init"
	chmod 755 "$root/init"
	mkdir -p "$root/lib"
	cp "$(dirname "${BASH_SOURCE[0]}")/guest.sh" "$root/lib/vm-guest.sh"
	(cd "$root" && find . | "$vm_busybox" cpio -o -H newc 2>/dev/null) | gzip -1 >"$tmp/initrd"
	echo "# $(basename "$VMLINUZ") under $VM_ACCEL, initramfs $(du -k "$tmp/initrd" | cut -f1) KiB"
	start=$(date +%s)
	timeout "$timeout_s" qemu-system-x86_64 "${vm_accel[@]}" -m 1024 -smp 2 -nographic \
		-no-reboot -kernel "$VMLINUZ" -initrd "$tmp/initrd" \
		-append "console=ttyS0 quiet panic=-1" </dev/null >"$tmp/console.raw" 2>&1 ||
		status=$?
	tr -d '\r' <"$tmp/console.raw" >"$tmp/console"
	echo "# the VM ran $(($(date +%s) - start)) s (qemu status $status)"
}
