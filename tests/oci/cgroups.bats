#!/usr/bin/env bats
# cgroups of OCI containers (config-linux.md "Control groups"): the
# config's linux.resources in the container's cgroup files, cgroupsPath
# honoured (its parents made) and removed at delete, update changing the
# limits live, pause/resume, kill --all, ps, and the container's own
# cgroups at a mount of type cgroup.  The cgroup files are read on the
# host at the cgroupsPath each test gives (named after its id, which the
# suite's teardown checks is gone).
load helpers

v1_host() {
	[ "$(stat -f -c %T /sys/fs/cgroup)" != cgroup2fs ]
}

# cg_file CTRL FILE [CGPATH]: the host path of FILE of the container's
# cgroup CGPATH (default $CGPATH) for controller CTRL.
cg_file() {
	if v1_host; then
		echo "/sys/fs/cgroup/$1${3:-$CGPATH}/$2"
	else
		echo "/sys/fs/cgroup${3:-$CGPATH}/$2"
	fi
}

cg_dir() {
	dirname "$(cg_file "$1" x "${2:-$CGPATH}")"
}

setup() {
	oci_setup
	CGPATH=/cell-oci-test/$ID
	cfg '.linux.cgroupsPath = $p' --arg p "$CGPATH"
}

teardown() {
	oci_teardown
	# The parent this file gives every container, once none is left.
	local c
	for c in pids memory cpu freezer devices cpuset blkio; do
		rmdir "/sys/fs/cgroup/$c/cell-oci-test" 2>/dev/null || true
	done
	rmdir /sys/fs/cgroup/cell-oci-test 2>/dev/null || true
}

# A detached container running sleep.
sleeping() {
	args sleep 1000
	must_create
	must_start
}

@test "a container's pids, memory and cpu files hold the config's values" {
	cfg '.linux.resources = {"memory": {"limit": 67108864, "reservation": 33554432},
		"pids": {"limit": 50},
		"cpu": {"shares": 512, "quota": 50000, "period": 200000}}'
	sleeping
	[ "$(cat "$(cg_file pids pids.max)")" = 50 ]
	if v1_host; then
		[ "$(cat "$(cg_file memory memory.limit_in_bytes)")" = 67108864 ]
		[ "$(cat "$(cg_file memory memory.soft_limit_in_bytes)")" = 33554432 ]
		[ "$(cat "$(cg_file cpu cpu.shares)")" = 512 ]
		[ "$(cat "$(cg_file cpu cpu.cfs_quota_us)")" = 50000 ]
		[ "$(cat "$(cg_file cpu cpu.cfs_period_us)")" = 200000 ]
	else
		[ "$(cat "$(cg_file memory memory.max)")" = 67108864 ]
		[ "$(cat "$(cg_file memory memory.low)")" = 33554432 ]
		[ "$(cat "$(cg_file cpu cpu.weight)")" = 20 ] # 1 + 510 * 9999 / 262142
		[ "$(cat "$(cg_file cpu cpu.max)")" = "50000 200000" ]
	fi
	# The container's processes are in it.
	grep -qx "$(container_pid)" "$(cg_file pids cgroup.procs)"
}

@test "a container without resources still has its cgroups at cgroupsPath" {
	sleeping
	local c
	for c in pids memory cpu devices; do
		[ -d "$(cg_dir "$c")" ]
	done
	v1_host && [ -d "$(cg_dir freezer)" ]
	[ "$(cat "$(cg_file pids pids.max)")" = max ]
}

@test "cgroupsPath is made with its parents and all of it is removed at delete" {
	CGPATH=/cell-oci-test/$ID/pod/ctr
	cfg '.linux.cgroupsPath = $p' --arg p "$CGPATH"
	sleeping
	[ -d "$(cg_dir pids)" ]
	run oci delete -f "$ID"
	[ "$status" -eq 0 ]
	[ ! -e "$(cg_dir pids /cell-oci-test/$ID)" ]
	[ ! -e "$(cg_dir memory /cell-oci-test/$ID)" ]
}

@test "a cgroupsPath that was there is used and left in place at delete" {
	mkdir -p "$(cg_dir pids)"
	sleeping
	grep -qx "$(container_pid)" "$(cg_file pids cgroup.procs)"
	run oci delete -f "$ID"
	[ "$status" -eq 0 ]
	[ -d "$(cg_dir pids)" ]
	rmdir "$(cg_dir pids)"
}

@test "a cgroupsPath with a .. component is a one-line error that leaves nothing" {
	cfg '.linux.cgroupsPath = "/cell-oci-test/../escape"'
	args true
	oci_create
	[ "$status" -ne 0 ]
	[ "$(printf "%s\n" "$output" | wc -l)" -eq 1 ]
	[[ "$output" == *'".."'* ]]
	[ ! -e "$(cg_dir pids /escape)" ]
	run oci state "$ID"
	[ "$status" -ne 0 ]
}

@test "a cgroupsPath where other processes live is refused" {
	local busy
	busy=$(cg_dir pids)
	mkdir -p "$busy"
	sleep 1000 &
	BG_PIDS+=($!)
	echo $! >"$busy/cgroup.procs"
	args true
	oci_create
	[ "$status" -ne 0 ]
	[[ "$output" == *"has processes in it"* ]]
	kill "${BG_PIDS[-1]}"
	wait "${BG_PIDS[-1]}" || true
	rmdir "$busy"
}

@test "update changes the container's limits live" {
	cfg '.linux.resources = {"memory": {"limit": 67108864}, "pids": {"limit": 50}}'
	sleeping
	run oci update --memory 134217728 --pids-limit 20 --cpu-shares 256 \
		--cpu-quota 30000 --cpu-period 100000 "$ID"
	[ "$status" -eq 0 ]
	[ "$(cat "$(cg_file pids pids.max)")" = 20 ]
	if v1_host; then
		[ "$(cat "$(cg_file memory memory.limit_in_bytes)")" = 134217728 ]
		[ "$(cat "$(cg_file cpu cpu.shares)")" = 256 ]
		[ "$(cat "$(cg_file cpu cpu.cfs_quota_us)")" = 30000 ]
	else
		[ "$(cat "$(cg_file memory memory.max)")" = 134217728 ]
		[ "$(cat "$(cg_file cpu cpu.max)")" = "30000 100000" ]
	fi
}

@test "update -r sets the cpuset from a resources file" {
	sleeping
	echo '{"cpu": {"cpus": "0", "mems": "0"}}' >"$WORK/res.json"
	run oci update -r "$WORK/res.json" "$ID"
	[ "$status" -eq 0 ]
	[ "$(cat "$(cg_file cpuset cpuset.cpus)")" = 0 ]
}

@test "update of memory below what the container uses is an error that says so" {
	v1_host || skip "v2 reclaims, and kills, rather than refuse"
	cfg '.linux.resources = {"memory": {"limit": 268435456}}'
	sh_args 'dd if=/dev/zero of=/dev/shm/fill bs=1M count=32 2>/dev/null; sleep 1000'
	must_create
	must_start
	local i used=0
	for ((i = 0; i < 100 && used < 33554432; i++)); do
		used=$(cat "$(cg_file memory memory.usage_in_bytes)")
		sleep 0.1
	done
	run oci update --memory 4194304 "$ID"
	[ "$status" -ne 0 ]
	[[ "$output" == *"below what the jail uses"* ]]
	[ "$(cat "$(cg_file memory memory.limit_in_bytes)")" = 268435456 ]
}

@test "pause freezes every process of the container and resume thaws them" {
	sh_args 'sleep 1000 & sleep 1000 & wait'
	must_create
	must_start
	run oci pause "$ID"
	[ "$status" -eq 0 ]
	[ "$(state_field status)" = paused ]
	if v1_host; then
		[ "$(cat "$(cg_file freezer freezer.state)")" = FROZEN ]
	else
		grep -qx 'frozen 1' "$(cg_file pids cgroup.events)"
	fi
	run oci resume "$ID"
	[ "$status" -eq 0 ]
	[ "$(state_field status)" = running ]
	if v1_host; then
		[ "$(cat "$(cg_file freezer freezer.state)")" = THAWED ]
	fi
}

@test "ps lists every process of the container's cgroups" {
	sh_args 'sleep 1000 & sleep 1000 & wait'
	must_create
	must_start
	local i n=0
	for ((i = 0; i < 100 && n < 3; i++)); do
		n=$(wc -l <"$(cg_file pids cgroup.procs)")
		sleep 0.1
	done
	run oci ps --format json "$ID"
	[ "$status" -eq 0 ]
	[ "$(jq length <<<"$output")" -eq 3 ]
	[ "$(jq -r 'sort | join(" ")' <<<"$output")" = \
		"$(sort "$(cg_file pids cgroup.procs)" | tr '\n' ' ' | sed 's/ $//')" ]
}

@test "kill --all reaches every process, a paused container's too" {
	sh_args 'sleep 1000 & sleep 1000 & wait'
	must_create
	must_start
	run oci pause "$ID"
	[ "$status" -eq 0 ]
	run oci kill --all "$ID" KILL
	[ "$status" -eq 0 ]
	local i
	for ((i = 0; i < 100; i++)); do
		[ -z "$(cat "$(cg_file pids cgroup.procs)")" ] && break
		sleep 0.1
	done
	[ -z "$(cat "$(cg_file pids cgroup.procs)")" ]
	wait_status_is stopped
}

@test "a mount of type cgroup shows the container its own cgroups, read-only" {
	cfg '.mounts += [{"destination": "/sys/fs/cgroup", "type": "cgroup", "source": "cgroup",
		"options": ["nosuid", "noexec", "nodev", "relatime", "ro"]}]'
	cfg '.linux.resources = {"pids": {"limit": 42}}'
	cfg '.linux.namespaces += [{"type": "cgroup"}]'
	if v1_host; then
		sh_args "$JAIL_GUARD_SH"$'\n''cat /sys/fs/cgroup/pids/pids.max; mkdir /sys/fs/cgroup/pids/x 2>/dev/null && echo writable; cat /proc/self/cgroup | grep -c ":pids:/$"'
	else
		sh_args "$JAIL_GUARD_SH"$'\n''cat /sys/fs/cgroup/pids.max; mkdir /sys/fs/cgroup/x 2>/dev/null && echo writable; cat /proc/self/cgroup | grep -c "^0::/$"'
	fi
	oci_run
	[ "$status" -eq 0 ]
	[ "$output" = "42
1" ]
}
