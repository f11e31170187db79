#!/bin/sh
# /init of the VM that tests/bench/vm-startup.sh boots: startup.sh's
# comparison on a unified cgroup (v2) machine, where crun runs.
# Stage 1 moves into a tmpfs (pivot_root(2) refuses the initial rootfs);
# stage 2 mounts the usual filesystems, cgroup2 at /sys/fs/cgroup, puts
# the state roots on /run (tmpfs), runs each command once and then all of
# them in one hyperfine run.  The results go to the console between
# "vm-bench: csv" and "vm-bench: end"; the last line is "vm-bench: done".
PATH=/bin:/sbin:/usr/bin:/usr/sbin
export PATH

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
