#!/bin/bash
# startup.sh's comparison in a VM with unified cgroups (v2), where crun
# runs: this build host's hybrid layout makes crun 1.8.1 refuse to start
# ("cgroups in hybrid mode not supported").  Boots the Debian kernel
# under qemu/KVM with a busybox initramfs holding build/cell, floor_ns,
# crun, runc, bwrap and hyperfine (tests/vm/vm.sh), whose /init
# (tests/bench/vm-startup-guest.sh) runs them all in one hyperfine run,
# and prints the medians and their ratios.  Root; no network.
#
#   tests/bench/vm-startup.sh [CELL]   CELL: default build/cell
#   RUNS (200), WARMUP (20), VM_TIMEOUT (300), VMLINUZ, VM_ACCEL as in
#   tests/vm/vm.sh
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
cell=$(realpath "${1:-${CELL:-$top/build/cell}}")
RUNS=${RUNS:-200}
WARMUP=${WARMUP:-20}
# shellcheck source=tests/vm/vm.sh
. "$top/tests/vm/vm.sh"

"$top/scripts/install-deps.sh" vm
"$top/scripts/install-deps.sh" bench
[ -x "$cell" ] || vm_die "$cell: not built (make build)"
vm_setup vm-startup.sh
for tool in crun runc bwrap hyperfine jq cc; do
	command -v "$tool" >/dev/null || vm_die "$tool is missing"
done

vm_add "$cell" /bin/cell
cc -O2 -Wall -Wextra -o "$tmp/floor_ns" "$top/tests/bench/floor_ns.c"
vm_add "$tmp/floor_ns" /bin/floor_ns
vm_add "$(command -v crun)" /usr/bin/crun
vm_add "$(command -v runc)" /usr/sbin/runc
vm_add "$(command -v bwrap)" /usr/bin/bwrap
vm_add "$(command -v hyperfine)" /usr/bin/hyperfine
echo "$RUNS" >"$root/etc/bench-runs"
echo "$WARMUP" >"$root/etc/bench-warmup"

# The busybox root and the OCI bundle, as startup.sh makes them.
rootfs=$root/bundle/rootfs
mkdir -p "$rootfs/bin" "$rootfs/proc" "$rootfs/dev" "$rootfs/sys" "$rootfs/tmp"
cp "$vm_busybox" "$rootfs/bin/busybox"
ln -s busybox "$rootfs/bin/sh"
ln -s busybox "$rootfs/bin/true"
runc spec --bundle "$tmp"
jq '.root.path = "rootfs" | .process.args = ["/bin/true"] | .process.terminal = false' \
	"$tmp/config.json" >"$root/bundle/config.json"
for rt in crun runc; do
	printf '#!/bin/sh\nexec %s --root /run/%s run --bundle /bundle c$$\n' "$rt" "$rt" \
		>"$root/bin/$rt-run"
	chmod +x "$root/bin/$rt-run"
done
printf '#!/bin/sh\nexec /bin/true\n' >"$root/bin/sh-wrapper"
chmod +x "$root/bin/sh-wrapper"

vm_boot "$top/tests/bench/vm-startup-guest.sh" "${VM_TIMEOUT:-300}"
grep '^#' "$tmp/console" || true
grep -qx 'vm-bench: done' "$tmp/console" || {
	echo "vm-startup.sh: the guest did not reach its end; console:" >&2
	tail -n 40 "$tmp/console" >&2
	exit 1
}
sed -n '/^vm-bench: csv$/,/^vm-bench: end$/p' "$tmp/console" | sed '1d;$d' >"$tmp/startup.csv"
echo "== startup in the VM: $RUNS runs each, $WARMUP warmup"
# hyperfine's CSV: command,mean,stddev,median,user,system,min,max (seconds)
awk -F, 'NR == 1 { next }
	{ name[NR] = $1; med[NR] = $4 * 1000; if ($1 == "floor_ns") f = med[NR]; if ($1 == "true") t = med[NR] }
	END {
		printf "%-16s %12s %12s %10s\n", "command", "median (ms)", "x floor_ns", "x true"
		for (i = 2; i <= NR; i++)
			printf "%-16s %12.3f %12.2f %10.2f\n", name[i], med[i], med[i] / f, med[i] / t
	}' "$tmp/startup.csv"
