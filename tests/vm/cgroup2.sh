#!/bin/bash
# Tests cell's cgroup v2 backend in a VM, for hosts whose own cgroups are
# v1 or hybrid: boots the Debian kernel under qemu/KVM with a busybox
# initramfs holding build/cell, whose /init (tests/vm/cgroup2-guest.sh)
# mounts cgroup2 at /sys/fs/cgroup and runs jails with limits, as root
# and rootless (uid 1000, with and without a delegated subtree), and
# build/cell-oci's tree once (its masks, read-only /proc/sys).  Prints
# the guest's TAP lines; exits non-zero if any check failed or the guest
# did not reach its end; prints one skip line and exits 0 when the host
# cannot run the VM (no qemu, no kernel for it).  Root; `make test-vm`,
# and `make test` (tests/run.sh): about a minute under TCG.
#
#   CELL=PATH      the binary to test (default build/cell)
#   VMLINUZ=PATH   the kernel (default: tests/vm/kernel.sh's; tests/run.sh
#                  runs it again with Debian 12's 6.1, the oldest cell
#                  supports)
#   VM_TIMEOUT=S   seconds the VM may run (default 300)
#   VM_ACCEL=A     kvm or tcg (default kvm, but tcg on a host whose
#                  /dev/kvm is PVM's (kvm_pvm): it runs only PVM guest
#                  kernels, and a stock one never gets past its
#                  decompressor there)
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
cell=$(realpath "${CELL:-$top/build/cell}")
timeout_s=${VM_TIMEOUT:-300}
# shellcheck source=tests/vm/vm.sh
. "$top/tests/vm/vm.sh"

"$top/scripts/install-deps.sh" vm || true # what is missing is vm_setup's skip
[ -x "$cell" ] || vm_die "$cell: not built (make build)"
vm_setup cgroup2.sh
vm_add "$cell" /bin/cell
# to run cell as the guest's user (busybox has no setuid tool)
vm_add "$(command -v setpriv)" /usr/local/bin/setpriv
# cell-oci beside it, with `cell-oci spec`'s config (no resources: the
# guest's check is about the tree) running the guest's probe
oci=$(dirname "$cell")/cell-oci
if [ -x "$oci" ] && command -v jq >/dev/null; then
	vm_add "$oci" /bin/cell-oci
	(cd "$tmp" && "$oci" spec)
	jq '.process.terminal = false | del(.linux.resources) | .process.args = ["sh", "-c",
		"cat /proc/keys | wc -c; ls /proc/acpi | wc -l; awk '"'"'$5 == \"/proc/sys\" { print substr($6, 1, 2) }'"'"' /proc/self/mountinfo"]' \
		"$tmp/config.json" >"$root/etc/oci-config.json"
fi
vm_boot "$top/tests/vm/cgroup2-guest.sh" "$timeout_s"

grep -E '^(ok|not ok) [0-9]+|^#|^1\.\.' "$tmp/console" || true
if ! grep -qx 'cell-vm: done' "$tmp/console"; then
	echo "cgroup2.sh: the guest did not reach its end; console:" >&2
	tail -n 40 "$tmp/console" >&2
	exit 1
fi
if grep -q '^not ok ' "$tmp/console"; then
	echo "cgroup2.sh: $(grep -c '^not ok ' "$tmp/console") check(s) failed" >&2
	exit 1
fi
echo "cgroup2.sh: $(grep -c '^ok ' "$tmp/console") checks passed" >&2
