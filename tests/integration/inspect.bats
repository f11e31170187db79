#!/usr/bin/env bats
# cell inspect: a running jail described from the host.
load helpers

# start_jail NAME ARG...: a background jail NAME running `sleep 30`
# (started with ARG...), waited for until its state is recorded.
start_jail() {
	local name=$1
	shift
	cell_bg "$WORK/$name.out" --name "$name" "$@" -- sh -c 'sleep 30 & echo ready; wait'
	wait_output "$WORK/$name.out" ready
}

# field KEY: the value of KEY in $output (name=value lines).
field() {
	printf '%s\n' "$output" | sed -n "s/^$1=//p"
}

@test "inspect shows a running jail's parameters, limits and use" {
	start_jail insp --hostname box --nrtask 20 --memory 32M --cpu-time 30 --nice 3
	run cell inspect insp
	[ "$status" -eq 0 ]
	[ "$(field name)" = insp ]
	[ "$(field state)" = running ]
	[ "$(field hostname)" = box ]
	# Spelled as cell ls and cell set spell them.
	[ "$(field nrtask)" = 20 ]
	[ "$(field memory)" = 32M ]
	[ "$(field cpu_time)" = 30 ]
	[ "$(field nice)" = 3 ]
	[ "$(field policy)" = true ]
	[[ "$(field created)" == 20*T*Z ]]
	# Unset limits are listed, empty.
	[ "$(field nofile)" = "" ]
	# sh and its sleep.
	[ "$(field usage.tasks)" = 2 ]
	[ "$(field usage.memory)" -gt 0 ]
	[ "$(field process.nice)" = 3 ]
	[ "$(field process.rlimits.cpu_time)" = "30:31" ]
	[ "$(field cgroup.layout)" = v1 ]
	[ -d "$(field cgroup.pids)" ]
}

@test "inspect counts a jail's tasks even without a pids cgroup" {
	start_jail nocg
	run cell inspect nocg
	[ "$status" -eq 0 ]
	[ "$(field usage.tasks)" = 2 ]
	# "cgroup=" (null), and no cgroup.* keys.
	printf '%s\n' "$output" | grep -qx 'cgroup='
	! printf '%s\n' "$output" | grep -q '^cgroup\.'
}

@test "inspect counts a jail's memory even without a memory cgroup" {
	cell run -d --name mem --bind "$WORK:/work" -- python3 -c '
import time
b = b"x" * (48 << 20)
open("/work/ready", "w").close()
time.sleep(60)' >/dev/null
	wait_for "$WORK/ready"
	run cell inspect mem
	[ "$status" -eq 0 ]
	# the sum of its processes' Pss: the 48 MiB it holds, and not much more
	mem=$(field usage.memory)
	[ "$mem" -ge $((48 << 20)) ]
	[ "$mem" -lt $((96 << 20)) ]
	# (its --bind gives it devices and freezer cgroups, no memory one)
	! printf '%s\n' "$output" | grep -q '^cgroup\.memory='
	printf '%s\n' "$output" | grep -q '^cgroup\.\(devices\|path\)='
}

@test "inspect names the jail's namespaces, none of them the host's" {
	start_jail ns
	run cell inspect ns
	[ "$status" -eq 0 ]
	for ns in uts ipc pid mnt net cgroup; do
		host=$(stat -L -c %i "/proc/self/ns/$ns")
		jail=$(field "namespaces.$ns")
		[ -n "$jail" ]
		[ "$jail" != "$host" ]
	done
}

# Every jail has a user namespace of its own now (security issue 13);
# before, only --allow set_hostname's had one: --userns host is the old
# model.
@test "inspect shows the jail's own user namespace and its id map, or with --userns host the host's" {
	start_jail shared --userns host
	run cell inspect shared
	[ "$status" -eq 0 ]
	[ "$(field namespaces.user)" = "$(stat -L -c %i /proc/self/ns/user)" ]
	[ "$(field userns)" = host ]
	[ -z "$(field idmap)" ]
	start_jail own
	run cell inspect own
	[ "$status" -eq 0 ]
	pid=$(field pid)
	[ "$(field namespaces.user)" = "$(stat -L -c %i "/proc/$pid/ns/user")" ]
	[ "$(field namespaces.user)" != "$(stat -L -c %i /proc/self/ns/user)" ]
	[ "$(field idmap.uid_map)" = "$(awk '{ print $1, $2, $3 }' "/proc/$pid/uid_map")" ]
	[ "$(field idmap.gid_map)" = "$(awk '{ print $1, $2, $3 }' "/proc/$pid/gid_map")" ]
	[[ "$(field idmap.uid_map)" == "0 "*" 65536" ]]
	[[ "$(field rules.host_root)" == "enforced: a user namespace of the jail's own"* ]]
	start_jail sethost --allow set_hostname
	run cell inspect sethost
	[[ "$(field rules.set_hostname)" == "allowed: CAP_SYS_ADMIN in a user namespace of the jail's own"* ]]
}

@test "inspect with --net host shows the host's network namespace" {
	start_jail hostnet --net host
	run cell inspect hostnet
	[ "$(field namespaces.net)" = "$(stat -L -c %i /proc/self/ns/net)" ]
	[ "$(field net)" = host ]
}

@test "inspect shows each rule of the policy and what --allow relaxed" {
	start_jail pol --allow chown
	run cell inspect pol
	[ "$status" -eq 0 ]
	[[ "$(field rules.mount)" == "enforced: seccomp"* ]]
	[[ "$(field rules.signal)" == *"Landlock signal scope"* ]]
	[ "$(field rules.chown)" = allowed ]
	[ "$(field allow)" = chown ]
	[ "$(field process.no_new_privs)" = true ]
	[ "$(field process.seccomp)" = filter ]
	# The bounding set has what the policy keeps, and CAP_CHOWN for --allow.
	[[ ",$(field process.caps_bounding)," == *",cap_chown,"* ]]
	[[ ",$(field process.caps_bounding)," != *",cap_sys_admin,"* ]]
}

@test "inspect's bounding set is the kernel's" {
	start_jail caps
	run cell inspect caps
	pid=$(field pid)
	hex=$(awk '/^CapBnd:/ { print $2 }' "/proc/$pid/status")
	[ "$(capsh --decode="$hex" | sed 's/.*=//')" = "$(field process.caps_bounding)" ]
}

@test "inspect --json prints the same fields as JSON" {
	start_jail js --nrtask 9 --memory 32M
	run cell inspect --json js
	[ "$status" -eq 0 ]
	run python3 -c 'import json, sys; j = json.load(sys.stdin); print(j["name"], j["nrtask"], j["memory"], j["usage"]["tasks"], j["rules"]["sysvipc"].split(":")[0])' <<<"$output"
	[ "$output" = "js 9 33554432 2 enforced" ]
}

@test "inspect --pid finds the jail of a process inside it" {
	start_jail bypid
	run cell inspect bypid
	pid1=$(field pid)
	# The sleep, a child of the jail's pid 1, seen with its host pid.
	child=$(cat "/proc/$pid1/task/$pid1/children")
	child=${child%% *}
	[ -n "$child" ]
	run cell inspect --pid "$child"
	[ "$status" -eq 0 ]
	[ "$(field name)" = bypid ]
	[ "$(field process.pid)" = "$child" ]
}

@test "inspect --pid of a host process says not jailed and exits 1" {
	run cell inspect --pid $$
	[ "$status" -eq 1 ]
	[ "$output" = "not jailed" ]
	run cell inspect --json --pid $$
	[ "$status" -eq 1 ]
	[ "$output" = null ]
}

@test "inspect of a jail that does not exist is a one-line error with exit 125" {
	run cell inspect nosuch
	[ "$status" -eq 125 ]
	[ "$output" = "cell: inspect: nosuch: no such jail" ]
	run cell inspect --pid 0
	[ "$status" -eq 125 ]
	[ "$output" = "cell: inspect: --pid 0: expected a process id" ]
	run cell inspect --pid 2147483647
	[ "$status" -eq 125 ]
	[ "$output" = "cell: inspect: pid 2147483647: no such process" ]
	run cell inspect
	[ "$status" -eq 125 ]
	run cell inspect --bogus x
	[ "$status" -eq 125 ]
	[ "${#lines[@]}" -eq 1 ]
}

@test "inspect --help prints its usage" {
	run cell inspect --help
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "Usage: cell inspect"* ]]
}

@test "inspect does not claim host secrets are masked in a --rootfs jail" {
	make_rootfs "$WORK/root"
	cell_bg "$WORK/rf.out" --name rf --rootfs "$WORK/root" -- sleep 30
	wait_running "rf"
	run cell inspect rf
	[ "$(field rules.host_secrets)" = "not applicable: the jail's own root (path) holds no host files" ]
	[ "$(field path)" = "$WORK/root" ]
}

@test "inspect shows every rule off for a --no-policy jail" {
	start_jail free --no-policy
	run cell inspect free
	[ "$(field rules.mount)" = off ]
	[ "$(field policy)" = false ]
	[ "$(field process.seccomp)" = disabled ]
}

# The root's flags in pid 1's mountinfo: "nodev nosuid" as they are.
root_flags() {
	local pid
	pid=$(jq -r .pid "$STATE/$1/state.json")
	awk '$5 == "/" { o = $6 } END {
		n = split(o, f, ","); d = "dev"; s = "suid"
		for (i = 1; i <= n; i++) { if (f[i] == "nodev") d = "nodev"; if (f[i] == "nosuid") s = "nosuid" }
		print d, s }' "/proc/$pid/mountinfo"
}

@test "inspect claims of the root's mount only what its mountinfo shows" {
	make_rootfs "$WORK/root"
	cell run -d --name own --rootfs "$WORK/root" --rw -- sleep 100 >/dev/null
	cell run -d --name embedded -- sleep 100 >/dev/null
	# A --rw --rootfs root: nodev, not nosuid (its own files).
	[ "$(root_flags own)" = "nodev suid" ]
	run cell inspect own
	[[ "$(field rules.mknod)" == *"root mounted nodev"* ]]
	[[ "$(field rules.privileges)" == "enforced: no_new_privs; the root (the jail's own, path) not mounted nosuid" ]]
	# The embedded root: both.
	[ "$(root_flags embedded)" = "nodev nosuid" ]
	run cell inspect embedded
	[[ "$(field rules.mknod)" == *"root mounted nodev"* ]]
	[ "$(field rules.privileges)" = "enforced: no_new_privs; root mounted nosuid" ]
	# Stopped, the claims are the launch's rule for that root.
	cell stop -t 0 own
	run cell inspect own
	[[ "$(field rules.privileges)" == *"not mounted nosuid" ]]
}
