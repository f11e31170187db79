#!/bin/bash
# Tests cell's cgroup v2 backend in a VM, for hosts whose own cgroups are
# v1 or hybrid: boots the Debian kernel under qemu/KVM with a busybox
# initramfs holding build/cell, whose /init (tests/vm/cgroup2-guest.sh)
# mounts cgroup2 at /sys/fs/cgroup and runs jails with limits, as root
# and rootless (uid 1000, with and without a delegated subtree).  Prints
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
