#!/bin/sh
# /init of the VM that tests/bench/vm-startup.sh boots: startup.sh's
# comparison on a unified cgroup (v2) machine, where crun runs.
# vm_guest_start (tests/vm/guest.sh) moves into a tmpfs and mounts the
# usual filesystems, cgroup2 at /sys/fs/cgroup; the state roots go on
# /run (tmpfs); then each command runs once, and all of them in one
# hyperfine run.  The results go to the console between
# "vm-bench: csv" and "vm-bench: end"; the last line is "vm-bench: done".
PATH=/bin:/sbin:/usr/bin:/usr/sbin
export PATH

# shellcheck source=tests/vm/guest.sh
. /lib/vm-guest.sh
vm_guest_start "$@"
mkdir -p /run/cell /run/crun /run/runc
RUNS=$(cat /etc/bench-runs)
WARMUP=$(cat /etc/bench-warmup)

echo
echo "# kernel $(uname -r), $(nproc) CPUs, cgroup2: $(cat /sys/fs/cgroup/cgroup.controllers)"
set -- \
	true "/bin/true" \
	floor_ns "/bin/floor_ns /bundle/rootfs /bin/true" \
	cell "/bin/cell --root /run/cell run -T -- /bin/true" \
	"cell --rootfs" "/bin/cell --root /run/cell run -T --rootfs /bundle/rootfs -- /bin/true" \
	"sh wrapper" "/bin/sh-wrapper" \
	crun "/bin/crun-run" \
	runc "/bin/runc-run" \
	bwrap "/usr/bin/bwrap --unshare-all --ro-bind / / --proc /proc --dev /dev /bin/true"
n=0
while [ $# -gt 0 ]; do
	if out=$($2 2>&1 </dev/null); then
		n=$((n + 1))
		echo "$1" >"/tmp/name.$n"
		echo "$2" >"/tmp/cmd.$n"
	else
		echo "# $1: left out, its trial run failed: $(echo "$out" | head -n 3)"
	fi
	shift 2
done
i=1
set --
while [ $i -le $n ]; do
	set -- "$@" --command-name "$(cat /tmp/name.$i)" "$(cat /tmp/cmd.$i)"
	i=$((i + 1))
done
hyperfine --shell=none --warmup "$WARMUP" --runs "$RUNS" --style none \
	--export-csv /tmp/startup.csv "$@" >/dev/null 2>/tmp/hyperfine.err ||
	sed 's/^/# hyperfine: /' /tmp/hyperfine.err
echo "vm-bench: csv"
cat /tmp/startup.csv
echo "vm-bench: end"
echo "vm-bench: done"
poweroff -f
