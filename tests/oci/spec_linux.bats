#!/usr/bin/env bats
# The OCI runtime spec's config-linux.md: default filesystems,
# namespaces (new, inherited, joined by path, and their errors), user
# namespace mappings, devices and the default devices, /dev symlinks,
# cgroupsPath and resources, the device allowlist, sysctl, seccomp,
# rootfsPropagation, maskedPaths, readonlyPaths and personality; one
# test per MUST against $OCI_RUNTIME.
load helpers

# ns_of TYPE: the namespace link name of an OCI namespace type.
ns_of() {
	case $1 in
	network) echo net ;;
	mount) echo mnt ;;
	*) echo "$1" ;;
	esac
}

@test "config-linux: default filesystems: /proc, /sys, /dev/pts and /dev/shm are proc, sysfs, devpts and tmpfs" {
	args stat -f -c %T /proc /sys /dev/pts /dev/shm
	oci_run
	[ "$status" -eq 0 ]
	[ "${lines[*]}" = "proc sysfs devpts tmpfs" ]
}

@test "config-linux: namespaces: each listed type without a path is a new namespace" {
	cfg '.linux.namespaces += [{"type": "cgroup"}]'
	args sleep 100
	run_detached
	for t in pid network ipc uts mount cgroup; do
		n=$(ns_of $t)
		[ "$(readlink "/proc/$PID/ns/$n")" != "$(readlink "/proc/self/ns/$n")" ]
	done
}

@test "config-linux: namespaces: a type not listed is inherited from the runtime" {
	cfg '.linux.namespaces |= map(select(.type != "network" and .type != "ipc"))'
	args sleep 100
	run_detached
	[ "$(readlink "/proc/$PID/ns/net")" = "$HOST_NET" ]
	[ "$(readlink "/proc/$PID/ns/ipc")" = "$(readlink /proc/self/ns/ipc)" ]
}

@test "config-linux: namespaces: a path places the process in that namespace (network, uts, ipc joined)" {
	args sleep 100
	run_detached
	first=$PID
	mkdir "$WORK/second"
	cp -a "$BUNDLE/rootfs" "$WORK/second/rootfs"
	cfg '.linux.namespaces |= map(if .type == "network" or .type == "uts" or .type == "ipc"
	      then .path = "/proc/\($pid)/ns/" + ({"network": "net"}[.type] // .type) else . end)
	     | del(.hostname)' --arg pid "$first"
	cp "$BUNDLE/config.json" "$WORK/second/config.json"
	must_create "$ID-b" "$WORK/second"
	must_start "$ID-b"
	wait_status_is running "$ID-b"
	second=$(container_pid "$ID-b")
	for n in net uts ipc; do
		[ "$(readlink "/proc/$second/ns/$n")" = "$(readlink "/proc/$first/ns/$n")" ]
	done
	[ "$(readlink "/proc/$second/ns/mnt")" != "$(readlink "/proc/$first/ns/mnt")" ]
}

@test "config-linux: namespaces: a path to a namespace of another type is an error" {
	cfg '.linux.namespaces |= map(if .type == "network" then .path = "/proc/self/ns/uts" else . end)'
	args true
	oci_create
	[ "$status" -ne 0 ]
	run oci state "$ID"
	[ "$status" -ne 0 ]
}

@test "config-linux: namespaces: a type listed twice is an error" {
	cfg '.linux.namespaces += [{"type": "pid"}]'
	args true
	oci_create
	[ "$status" -ne 0 ]
}

@test "config-linux: user namespace mappings: uidMappings and gidMappings are the container's id maps" {
	cfg '.linux.namespaces += [{"type": "user"}]
	     | .linux.uidMappings = [{"containerID": 0, "hostID": 200000, "size": 65536}]
	     | .linux.gidMappings = [{"containerID": 0, "hostID": 200000, "size": 65536}]'
	# sysfs cannot be mounted in a user namespace without the network's.
	cfg '.mounts |= map(select(.destination != "/sys"))'
	sh_args 'cat /proc/self/uid_map /proc/self/gid_map; id -u'
	oci_run
	[ "$status" -eq 0 ]
	[ "$(echo "${lines[0]}" | tr -s ' ' | sed 's/^ //')" = "0 200000 65536" ]
	[ "$(echo "${lines[1]}" | tr -s ' ' | sed 's/^ //')" = "0 200000 65536" ]
	[ "${lines[2]}" = 0 ]
}

@test "config-linux: user namespace mappings: the container's root is an unprivileged user on the host" {
	cfg '.linux.namespaces += [{"type": "user"}]
	     | .linux.uidMappings = [{"containerID": 0, "hostID": 200000, "size": 65536}]
	     | .linux.gidMappings = [{"containerID": 0, "hostID": 200000, "size": 65536}]
	     | .mounts |= map(select(.destination != "/sys"))'
	args sleep 100
	run_detached
	[ "$(stat -c %u "/proc/$PID")" = 200000 ]
}

@test "config-linux: devices: a listed device is created with its type, numbers, mode and owner" {
	cfg '.linux.devices = [{"path": "/dev/ocitest", "type": "c", "major": 1, "minor": 5,
	      "fileMode": 416, "uid": 1000, "gid": 1001}]
	     | .linux.resources.devices = [{"allow": true, "type": "c", "major": 1, "minor": 5, "access": "rwm"}]'
	args stat -c '%F %t:%T %a %u:%g' /dev/ocitest
	oci_run
	[ "$status" -eq 0 ]
	[ "$output" = "character special file 1:5 640 1000:1001" ]
}

@test "config-linux: devices: a file at the path that is not the requested device is an error" {
	# No /dev tmpfs: the root's own /dev, with a regular file there.
	cfg '.mounts |= map(select(.destination | startswith("/dev") | not))'
	echo file >"$BUNDLE/rootfs/dev/ocitest"
	cfg '.linux.devices = [{"path": "/dev/ocitest", "type": "c", "major": 1, "minor": 5}]'
	args true
	oci_create
	[ "$status" -ne 0 ]
}

@test "config-linux: default devices: null, zero, full, random, urandom, tty and ptmx are supplied" {
	sh_args 'for d in null zero full random urandom tty; do stat -c "%n %F %t:%T" /dev/$d; done; [ -e /dev/ptmx ] && echo ptmx'
	oci_run
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "/dev/null character special file 1:3" ]
	[ "${lines[1]}" = "/dev/zero character special file 1:5" ]
	[ "${lines[2]}" = "/dev/full character special file 1:7" ]
	[ "${lines[3]}" = "/dev/random character special file 1:8" ]
	[ "${lines[4]}" = "/dev/urandom character special file 1:9" ]
	[ "${lines[5]}" = "/dev/tty character special file 5:0" ]
	[ "${lines[6]}" = ptmx ]
}

@test "config-linux: default devices: the default devices work (null discards, zero reads zeros)" {
	sh_args 'echo x >/dev/null && head -c 4 /dev/zero | od -An -tx1 | tr -d " "'
	oci_run
	[ "$status" -eq 0 ]
	[ "$output" = 00000000 ]
}

@test "config-linux: /dev symlinks: /dev/fd, /dev/stdin, /dev/stdout and /dev/stderr" {
	sh_args 'for l in fd stdin stdout stderr; do readlink /dev/$l; done'
	oci_run
	[ "$status" -eq 0 ]
	[ "${lines[*]}" = "/proc/self/fd /proc/self/fd/0 /proc/self/fd/1 /proc/self/fd/2" ]
}

@test "config-linux: cgroupsPath: an absolute path is relative to the cgroup mount point" {
	cfg '.linux.cgroupsPath = $p' --arg p "/$ID"
	args sleep 100
	run_detached
	[ "$(host_cgroup_dir "$PID" pids)" = "/sys/fs/cgroup/pids/$ID" ] ||
		[ "$(host_cgroup_dir "$PID" pids)" = "/sys/fs/cgroup/$ID" ]
}

@test "config-linux: cgroupsPath: the same cgroupsPath attaches to the same place" {
	cfg '.linux.cgroupsPath = $p' --arg p "/$ID"
	args sleep 100
	run_detached
	first=$(host_cgroup_dir "$PID" memory)
	oci delete -f "$ID"
	wait_pid_gone "$PID"
	run_detached
	[ "$(host_cgroup_dir "$PID" memory)" = "$first" ]
}

@test "config-linux: resources: memory.limit is the cgroup's memory limit" {
	cfg '.linux.cgroupsPath = $p | .linux.resources.memory = {"limit": 67108864}' --arg p "/$ID"
	args sleep 100
	run_detached
	dir=$(host_cgroup_dir "$PID" memory)
	if cgroup_v1; then
		[ "$(cat "$dir/memory.limit_in_bytes")" = 67108864 ]
	else
		[ "$(cat "$dir/memory.max")" = 67108864 ]
	fi
}

@test "config-linux: resources: pids.limit is the cgroup's pids.max" {
	cfg '.linux.cgroupsPath = $p | .linux.resources.pids = {"limit": 42}' --arg p "/$ID"
	args sleep 100
	run_detached
	[ "$(cat "$(host_cgroup_dir "$PID" pids)/pids.max")" = 42 ]
}

@test "config-linux: resources: pids.limit is enforced inside the container" {
	cfg '.linux.cgroupsPath = $p | .linux.resources.pids = {"limit": 3}' --arg p "/$ID"
	# (busybox's sh gives up at the first fork that fails)
	sh_args 'for i in 1 2 3 4 5 6; do sleep 10 & echo started; done'
	oci_run
	[ "$(echo "$output" | grep -c started)" -lt 6 ]
}

@test "config-linux: resources: cpu shares, quota and period are the cgroup's" {
	cfg '.linux.cgroupsPath = $p | .linux.resources.cpu = {"shares": 512, "quota": 50000, "period": 100000}' \
		--arg p "/$ID"
	args sleep 100
	run_detached
	dir=$(host_cgroup_dir "$PID" cpu)
	if cgroup_v1; then
		[ "$(cat "$dir/cpu.shares")" = 512 ]
		[ "$(cat "$dir/cpu.cfs_quota_us")" = 50000 ]
		[ "$(cat "$dir/cpu.cfs_period_us")" = 100000 ]
	else
		[ "$(cat "$dir/cpu.max")" = "50000 100000" ]
	fi
}

@test "config-linux: device allowlist: a device the rules deny cannot be opened, one they allow can" {
	# Two nodes of /dev/kmsg (1:11, opened for writing only, never
	# written): the rules allow one path's use through the allow entry
	# and deny everything else after the defaults.
	cfg '.linux.devices = [{"path": "/dev/ocitest-kmsg", "type": "c", "major": 1, "minor": 11, "fileMode": 438}]
	     | .linux.resources.devices = [{"allow": false, "access": "rwm"}]'
	args checker try open-write /dev/ocitest-kmsg
	oci_run
	[ "$output" = "open-write EPERM" ]
	cfg '.linux.resources.devices += [{"allow": true, "type": "c", "major": 1, "minor": 11, "access": "w"}]'
	oci_run "$ID-b"
	[ "$output" = "open-write ok" ]
}

@test "config-linux: device allowlist: entries apply in the listed order (a later deny wins)" {
	cfg '.linux.devices = [{"path": "/dev/ocitest-kmsg", "type": "c", "major": 1, "minor": 11, "fileMode": 438}]
	     | .linux.resources.devices = [{"allow": false, "access": "rwm"},
	         {"allow": true, "type": "c", "major": 1, "minor": 11, "access": "w"},
	         {"allow": false, "type": "c", "major": 1, "minor": 11, "access": "rwm"}]'
	args checker try open-write /dev/ocitest-kmsg
	oci_run
	[ "$output" = "open-write EPERM" ]
}

@test "config-linux: sysctl: a namespaced sysctl is set in the container" {
	cfg '.linux.sysctl = {"net.ipv4.ip_forward": "1", "kernel.msgmax": "4242"}'
	sh_args 'cat /proc/sys/net/ipv4/ip_forward /proc/sys/kernel/msgmax'
	oci_run
	[ "$status" -eq 0 ]
	[ "${lines[*]}" = "1 4242" ]
	[ "$(cat /proc/sys/kernel/msgmax)" != 4242 ]
}

@test "config-linux: sysctl: with a user namespace, namespaced sysctls are set in the container's namespaces" {
	# The user namespace's network and UTS namespaces (made while the
	# runtime goes on); the runtime runs in throwaway ones of its own, so
	# that a sysctl written in the wrong namespace lands there, and is
	# seen, never in the host's.
	cfg '.linux.namespaces += [{"type": "user"}]
	     | .linux.uidMappings = [{"containerID": 0, "hostID": 200000, "size": 65536}]
	     | .linux.gidMappings = [{"containerID": 0, "hostID": 200000, "size": 65536}]
	     | .linux.sysctl = {"net.ipv4.ip_default_ttl": "42", "kernel.domainname": "sysctldomain"}'
	sh_args 'cat /proc/sys/net/ipv4/ip_default_ttl /proc/sys/kernel/domainname'
	remember_id "$ID"
	# shellcheck disable=SC2016 # expanded by the inner shell
	run unshare --net --uts -- sh -c '
		before="$(cat /proc/sys/net/ipv4/ip_default_ttl /proc/sys/kernel/domainname)"
		"$@" </dev/null || exit
		after="$(cat /proc/sys/net/ipv4/ip_default_ttl /proc/sys/kernel/domainname)"
		[ "$before" = "$after" ] && echo "outside unchanged"' sh \
		timeout -k 5 "$OCI_TIMEOUT" "$OCI_RUNTIME" --root "$OCI_ROOT" run --bundle "$BUNDLE" "$ID"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = 42 ]
	[ "${lines[1]}" = sysctldomain ]
	[ "${lines[2]}" = "outside unchanged" ]
}

@test "config-linux: sysctl: a net sysctl without a network namespace of its own is refused" {
	# The host's own value: harmless even if a runtime applied it.
	cur=$(cat /proc/sys/net/ipv4/ip_forward)
	cfg '.linux.namespaces |= map(select(.type != "network")) | .linux.sysctl = {"net.ipv4.ip_forward": $v}' \
		--arg v "$cur"
	args true
	oci_create
	[ "$status" -ne 0 ]
	[ "$(cat /proc/sys/net/ipv4/ip_forward)" = "$cur" ]
}

# seccomp_cfg RULES-JSON: a filter allowing everything but RULES.
seccomp_cfg() {
	cfg '.linux.seccomp = {"defaultAction": "SCMP_ACT_ALLOW",
	      "architectures": ["SCMP_ARCH_X86_64", "SCMP_ARCH_X86", "SCMP_ARCH_X32"],
	      "syscalls": $r}' --argjson r "$1"
}

@test "config-linux: seccomp: the filter is installed (seccomp mode 2)" {
	seccomp_cfg '[{"names": ["getppid"], "action": "SCMP_ACT_ERRNO"}]'
	args checker seccomp
	oci_run
	[ "$status" -eq 0 ]
	[ "$output" = 2 ]
}

@test "config-linux: seccomp: SCMP_ACT_ERRNO fails the syscall with EPERM by default" {
	seccomp_cfg '[{"names": ["mkdir"], "action": "SCMP_ACT_ERRNO"}]'
	args checker try mkdir /tmp/x
	oci_run
	[ "$output" = "mkdir EPERM" ]
}

@test "config-linux: seccomp: errnoRet is the errno returned" {
	seccomp_cfg '[{"names": ["mkdir"], "action": "SCMP_ACT_ERRNO", "errnoRet": 99}]'
	args checker try mkdir /tmp/x
	oci_run
	[ "$output" = "mkdir EADDRNOTAVAIL" ]
}

@test "config-linux: seccomp: args conditions select the calls the rule applies to" {
	seccomp_cfg '[{"names": ["umask"], "action": "SCMP_ACT_ERRNO",
	               "args": [{"index": 0, "value": 63, "op": "SCMP_CMP_EQ"}]}]'
	sh_args 'checker try umask 077; checker try umask 022'
	oci_run
	[ "${lines[0]}" = "umask EPERM" ]
	[ "${lines[1]}" = "umask ok" ]
}

@test "config-linux: seccomp: SCMP_ACT_KILL kills the process" {
	seccomp_cfg '[{"names": ["mkdir"], "action": "SCMP_ACT_KILL"}]'
	sh_args 'checker try mkdir /tmp/x; echo status $?'
	oci_run
	echo "$output"
	echo "$output" | grep -qx "status 159"
}

@test "config-linux: seccomp: SCMP_ACT_NOTIFY calls are answered by the agent at listenerPath, which gets the listener and the container process state" {
	local sock=$WORK/agent.sock out=$WORK/agent.out agent i
	python3 "$BATS_TEST_DIRNAME/seccomp_agent.py" "$sock" "$out" &
	agent=$!
	for ((i = 0; i < 100; i++)); do [ -e "$out.ready" ] && break; sleep 0.05; done
	cfg '.linux.seccomp = {"defaultAction": "SCMP_ACT_ALLOW", "listenerPath": $s,
	      "listenerMetadata": "cell-test", "syscalls": [{"names": ["mkdir", "mkdirat"],
	      "action": "SCMP_ACT_NOTIFY"}]}' --arg s "$sock"
	sh_args 'checker try mkdir /tmp/x'
	oci_run
	# The agent ends with the container's filter; bounded, then ended.
	for ((i = 0; i < 100; i++)); do kill -0 "$agent" 2>/dev/null || break; sleep 0.05; done
	kill "$agent" 2>/dev/null || true
	wait "$agent" || true
	[ "$status" -eq 0 ]
	[ "$output" = "mkdir EXDEV" ]
	head -1 "$out" | jq -e --arg id "$ID" '.fds == ["seccompFd"] and .metadata == "cell-test"
		and .pid > 0 and .state.id == $id and .state.pid == .pid'
	grep -q '^call ' "$out"
}

@test "config-linux: rootfsPropagation: private makes the root mount private" {
	cfg '.linux.rootfsPropagation = "private"'
	args grep -E '^[0-9]+ [0-9]+ [^ ]+ [^ ]+ / ' /proc/self/mountinfo
	oci_run
	[ "$status" -eq 0 ]
	[[ "$output" != *shared:* ]]
	[[ "$output" != *master:* ]]
}

@test "config-linux: rootfsPropagation: shared makes the root mount shared" {
	cfg '.linux.rootfsPropagation = "shared"'
	args grep -E '^[0-9]+ [0-9]+ [^ ]+ [^ ]+ / ' /proc/self/mountinfo
	oci_run
	[ "$status" -eq 0 ]
	[[ "$output" == *shared:* ]]
}

@test "config-linux: maskedPaths: a masked file reads empty" {
	echo secret >"$BUNDLE/rootfs/etc/secret"
	cfg '.linux.maskedPaths += ["/etc/secret"]'
	sh_args 'cat /etc/secret; echo "[$(cat /etc/secret)]"'
	oci_run
	[ "$status" -eq 0 ]
	[ "$output" = "[]" ]
}

@test "config-linux: maskedPaths: a masked directory lists empty and cannot be written" {
	mkdir "$BUNDLE/rootfs/private"
	echo secret >"$BUNDLE/rootfs/private/key"
	cfg '.linux.maskedPaths += ["/private"]'
	sh_args 'ls -A /private | wc -l; checker try create /private/new'
	oci_run
	[ "${lines[0]}" = 0 ]
	[ "${lines[1]}" != "create ok" ]
}

@test "config-linux: maskedPaths: the default masks hide /proc/keys and /proc/timer_list" {
	[ "$(wc -c </proc/timer_list)" -gt 0 ]
	sh_args 'wc -c </proc/keys; wc -c </proc/timer_list'
	oci_run
	[ "$status" -eq 0 ]
	[ "${lines[*]}" = "0 0" ]
}

@test "config-linux: readonlyPaths: a read-only path cannot be written" {
	mkdir "$BUNDLE/rootfs/data"
	cfg '.linux.readonlyPaths += ["/data"]'
	sh_args 'checker try create /data/new; checker try create /tmp/new'
	oci_run
	[ "${lines[0]}" = "create EROFS" ]
	[ "${lines[1]}" = "create ok" ]
}

@test "config-linux: readonlyPaths: /proc/sys is read-only by the default config" {
	args checker try open-write /proc/sys/kernel/hostname
	oci_run
	[ "$output" = "open-write EROFS" ]
}

@test "config-linux: personality: LINUX32 is the process's execution domain" {
	cfg '.linux.personality = {"domain": "LINUX32"}'
	sh_args 'checker personality; uname -m'
	oci_run
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = 0x8 ]
	[ "${lines[1]}" = i686 ]
}

@test "config-linux: personality: LINUX is the default execution domain" {
	cfg '.linux.personality = {"domain": "LINUX"}'
	args checker personality
	oci_run
	[ "$status" -eq 0 ]
	[ "$output" = 0x0 ]
}

@test "config-linux: timeOffsets: the boottime offset moves the container's uptime, not the host's" {
	cfg '.linux.namespaces += [{"type": "time"}]
	     | .linux.timeOffsets = {"boottime": {"secs": 86400, "nanosecs": 0}, "monotonic": {"secs": 3600}}'
	args cat /proc/uptime
	local before after
	before=$(cut -d. -f1 /proc/uptime)
	oci_run
	after=$(cut -d. -f1 /proc/uptime)
	[ "$status" -eq 0 ]
	inside=${output%%.*}
	[ "$inside" -ge $((before + 86400)) ]
	[ "$inside" -le $((after + 86400 + 1)) ]
	# The host's clocks are untouched.
	[ "$after" -lt $((before + 86400)) ]
}

@test "config-linux: timeOffsets without a time namespace of its own is an error" {
	cfg '.linux.timeOffsets = {"boottime": {"secs": 60, "nanosecs": 0}}'
	args true
	oci_create
	[ "$status" -ne 0 ]
	[[ "$output" == *"linux.timeOffsets: needs a new time namespace"* ]]
	run oci state "$ID"
	[ "$status" -ne 0 ]
}

@test "config: process: an apparmorProfile and a selinuxLabel are ignored where those LSMs are off" {
	if grep -qs Y /sys/module/apparmor/parameters/enabled || [ -e /sys/fs/selinux/enforce ]; then
		skip "AppArmor or SELinux is on here"
	fi
	cfg '.process.apparmorProfile = "cell-test-profile" | .process.selinuxLabel = "system_u:system_r:container_t:s0"'
	args echo ran
	oci_run
	[ "$status" -eq 0 ]
	[ "$output" = ran ]
}
