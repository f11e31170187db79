# shellcheck shell=sh
# /lib/vm-guest.sh in the initramfs of tests/vm/vm.sh: what every guest's
# /init does first.  Sourced by busybox sh.
#
# vm_guest_start "$@": stage 1 copies the initramfs into a tmpfs and
# switch_roots into it, running /init again with "stage2": pivot_root(2)
# refuses to move away from the initial rootfs, which has no parent
# mount, and cell pivots every jail.  Stage 2 returns after mounting the
# usual filesystems, with cgroup2 at /sys/fs/cgroup, and quieting the
# kernel's console messages (which would cut into the output lines).

vm_guest_start() {
	if [ "${1:-}" != stage2 ]; then
		mkdir -p /new
		mount -t tmpfs -o mode=755 tmpfs /new
		for f in /*; do
			[ "$f" = /new ] || cp -a "$f" /new/
		done
		exec switch_root /new /init stage2
	fi
	mount -t proc proc /proc
	mount -t sysfs sysfs /sys
	mount -t devtmpfs devtmpfs /dev
	mkdir -p /dev/shm /dev/pts
	mount -t tmpfs tmpfs /dev/shm
	mount -t devpts devpts /dev/pts
	mount -t tmpfs -o mode=755 tmpfs /run
	mount -t tmpfs -o mode=1777 tmpfs /tmp
	mount -t cgroup2 cgroup2 /sys/fs/cgroup
	echo 1 >/proc/sys/kernel/printk
}
