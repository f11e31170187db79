#!/usr/bin/env bats
# cell-oci without root: `spec --rootless` (runc's rootless config, and
# the runtime spec's MUSTs of it), and a plain user's containers: the
# default state root ($XDG_RUNTIME_DIR/cell-oci, else /tmp/cell-oci-UID,
# the user's own, 0700), create/start/state/exec/kill/delete/run/list/ps
# as the user, the config's mappings (the user's own id, or through
# newuidmap and the user's subordinate ranges), what the container's
# root writes is the user's on the host, no host process seen or
# signalled, another user's containers invisible.
#
# Two throwaway users (rootless_user.bash), made once for the file; each
# test's bundle is under the first one's temp dir, on a busybox-static
# root root made for the file.  Teardown deletes (-f) every container
# of both users' default roots, fails the test if one was left, a
# process of theirs still runs or a state root is not empty, and
# removes the roots.
bats_require_minimum_version 1.5.0

load rootless_user
# edit_config, status_of, wait_status, gone and clean_root, run as the
# first user (OCI_AS) unless a caller names the second.
load cli_helpers
OCI_AS=u1

HOST_UTS=$(readlink /proc/self/ns/uts)
HOST_PID=$(readlink /proc/self/ns/pid)
# The guard first in every probe that would harm the host if it ran
# there: exits 99 unless the shell is in a UTS and a pid namespace that
# are not the host's.
JAIL_GUARD_SH="u=\$(readlink /proc/self/ns/uts) && p=\$(readlink /proc/self/ns/pid) &&
[ -n \"\$u\" ] && [ -n \"\$p\" ] && [ \"\$u\" != '$HOST_UTS' ] && [ \"\$p\" != '$HOST_PID' ] || exit 99"

setup_file() {
	rootless_user_add U1
	rootless_user_add U2
	ROOTFS=$U1_TMP/rootfs
	mkdir -p "$ROOTFS"/{bin,proc,sys,dev,tmp,etc,root,data}
	cp /bin/busybox "$ROOTFS/bin/busybox"
	chroot "$ROOTFS" /bin/busybox --install -s /bin
	echo 'root:x:0:0:root:/root:/bin/sh' >"$ROOTFS/etc/passwd"
	echo 'root:x:0:' >"$ROOTFS/etc/group"
	chmod 1777 "$ROOTFS/tmp"
	export ROOTFS
}

teardown_file() {
	rootless_user_del U1
	rootless_user_del U2
}

setup() {
	BUNDLE=$U1_TMP/bundle-$BATS_TEST_NUMBER
	mkdir -p "$BUNDLE"
	chown "$U1_UID:$U1_GID" "$BUNDLE"
	PIDS=()
}

# u1 ARGS...: cell-oci as the first user, on its default state root.
u1() { as_user U1 "$U1_OCI" "$@"; }
u2() { as_user U2 "$U2_OCI" "$@"; }

# spec_bundle ARGS...: `spec --rootless` by the first user in $BUNDLE,
# its process ARGS without a terminal, on the file's root.
spec_bundle() {
	u1 spec --rootless --bundle "$BUNDLE"
	local args
	# One raw string each: an argument may hold a newline (and jq
	# --args would take a "-c" among them for its own option).
	args=$(for a in "$@"; do printf '%s' "$a" | jq -Rs .; done | jq -sc .)
	edit_config --arg root "$ROOTFS" --argjson args "$args" \
		'.root.path = $root | .process.terminal = false | .process.args = $args'
}

teardown() {
	local errors=0 pid
	clean_root "$U1_XDG/cell-oci" || errors=1
	clean_root "/tmp/cell-oci-$U1_UID" || errors=1
	OCI_AS=u2 clean_root "$U2_XDG/cell-oci" || errors=1
	OCI_AS=u2 clean_root "/tmp/cell-oci-$U2_UID" || errors=1
	for pid in "${PIDS[@]}"; do
		kill -9 "$pid" 2>/dev/null || true
	done
	rm -rf --one-file-system "$BUNDLE"
	return "$errors"
}

# --- spec --rootless ----------------------------------------------------

@test "spec --rootless writes runc's rootless config: a user namespace mapping the caller to 0, no network namespace, no resources" {
	u1 spec --rootless --bundle "$BUNDLE"
	c=$BUNDLE/config.json
	[ "$(stat -c %u "$c")" = "$U1_UID" ]
	[ "$(jq -c '[.linux.namespaces[].type]' "$c")" = '["pid","ipc","uts","mount","cgroup","user"]' ]
	[ "$(jq -c .linux.uidMappings "$c")" = "[{\"containerID\":0,\"hostID\":$U1_UID,\"size\":1}]" ]
	[ "$(jq -c .linux.gidMappings "$c")" = "[{\"containerID\":0,\"hostID\":$U1_GID,\"size\":1}]" ]
	[ "$(jq -c '.linux.resources' "$c")" = null ]
	# The host's /sys, bound read-only (no network namespace of its own
	# to mount a sysfs of); no mount option names a gid or uid.
	[ "$(jq -c '.mounts[] | select(.destination == "/sys")' "$c")" = \
		'{"destination":"/sys","type":"none","source":"/sys","options":["rbind","nosuid","noexec","nodev","ro"]}' ]
	[ "$(jq '[.mounts[].options // [] | .[] | select(startswith("gid=") or startswith("uid="))] | length' "$c")" = 0 ]
}

@test "the config spec --rootless writes meets the runtime spec's MUSTs" {
	u1 spec --rootless --bundle "$BUNDLE"
	c=$BUNDLE/config.json
	# config.md: ociVersion a SemVer; root.path; process.cwd absolute;
	# process.args at least one; every mount's destination absolute.
	jq -e '.ociVersion | test("^[0-9]+\\.[0-9]+\\.[0-9]+")' "$c"
	jq -e '.root.path | type == "string" and length > 0' "$c"
	jq -e '.process.cwd | startswith("/")' "$c"
	jq -e '.process.args | length > 0' "$c"
	jq -e 'all(.mounts[]; .destination | startswith("/"))' "$c"
	# config-linux.md: each namespace type once, of the known types;
	# mappings given with a user namespace, each with its three fields.
	jq -e '[.linux.namespaces[].type] | length == (unique | length)' "$c"
	jq -e 'all(.linux.namespaces[].type; IN("pid", "network", "mount", "ipc", "uts", "user", "cgroup", "time"))' "$c"
	jq -e 'all((.linux.uidMappings + .linux.gidMappings)[];
		(.containerID | type) == "number" and (.hostID | type) == "number" and .size > 0)' "$c"
	# An existing config is never overwritten.
	run -1 u1 spec --rootless --bundle "$BUNDLE"
	[[ "$output" == *"config.json exists"* ]]
}

# --- the state root ---------------------------------------------------------

@test "a plain user runs a spec --rootless bundle: root inside is the user outside" {
	spec_bundle sh -c 'id -u; cat /proc/self/uid_map'
	run u1 run --bundle "$BUNDLE" c1
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = 0 ]
	[ "$(echo "${lines[1]}" | tr -s ' ' | sed 's/^ //')" = "0 $U1_UID 1" ]
}

@test "the default state root is \$XDG_RUNTIME_DIR/cell-oci, the user's, mode 0700" {
	spec_bundle sleep 100
	u1 create --bundle "$BUNDLE" c1
	[ -d "$U1_XDG/cell-oci/c1" ]
	[ "$(stat -c '%u %a' "$U1_XDG/cell-oci")" = "$U1_UID 700" ]
	run u1 list -q
	[ "$output" = c1 ]
}

@test "without XDG_RUNTIME_DIR the default state root is /tmp/cell-oci-UID" {
	spec_bundle sleep 100
	AS_XDG= u1 create --bundle "$BUNDLE" c1
	[ -d "/tmp/cell-oci-$U1_UID/c1" ]
	[ "$(stat -c '%u %a' "/tmp/cell-oci-$U1_UID")" = "$U1_UID 700" ]
	AS_XDG= u1 delete -f c1
}

@test "a state root that is not the user's is refused, and nothing is made in it" {
	spec_bundle sleep 100
	# Planted by another user before the first one ran.
	install -d -m 0755 -o "$U2_UID" "/tmp/cell-oci-$U1_UID"
	AS_XDG= run -1 u1 create --bundle "$BUNDLE" c1
	[[ "$output" == *"/tmp/cell-oci-$U1_UID: not yours"* ]]
	[ -z "$(ls -A "/tmp/cell-oci-$U1_UID")" ]
	rmdir "/tmp/cell-oci-$U1_UID"
}

# --- the lifecycle ----------------------------------------------------------

@test "create, start, state, exec, ps, kill and delete work as the user" {
	spec_bundle sh -c 'trap "exit 0" TERM; while :; do sleep 0.1; done'
	u1 create --bundle "$BUNDLE" c1
	[ "$(u1 state c1 | jq -r .status)" = created ]
	u1 start c1
	wait_status c1 running
	run u1 exec c1 sh -c 'echo in exec; id -u'
	[ "$status" -eq 0 ]
	[ "$output" = "in exec
0" ]
	run u1 ps --format json c1
	[ "$status" -eq 0 ]
	[ "$(echo "$output" | jq length)" -ge 1 ]
	u1 kill c1 TERM
	wait_status c1 stopped
	u1 delete c1
	[ -z "$(u1 list -q)" ]
}

@test "the container's process is the user's on the host" {
	spec_bundle sleep 100
	u1 run -d --bundle "$BUNDLE" c1
	pid=$(u1 state c1 | jq -r .pid)
	[ "$(awk '/^Uid:/ { print $2 }' "/proc/$pid/status")" = "$U1_UID" ]
}

@test "a file the container's root writes into a bound directory is the user's on the host" {
	dir=$U1_TMP/data-$BATS_TEST_NUMBER
	install -d -o "$U1_UID" -g "$U1_GID" "$dir"
	spec_bundle sh -c 'echo hi >/data/by-root'
	edit_config --arg d "$dir" '.mounts += [{"destination": "/data", "type": "bind", "source": $d, "options": ["rbind", "rw"]}]'
	u1 run --bundle "$BUNDLE" c1
	[ "$(stat -c %u:%g "$dir/by-root")" = "$U1_UID:$U1_GID" ]
	rm -rf "$dir"
}

@test "with subordinate ranges, the config's mappings of more ids go through newuidmap: a file uid 1000 writes is a subordinate id's" {
	dir=$U1_TMP/data-$BATS_TEST_NUMBER
	install -d -m 0777 "$dir"
	spec_bundle sh -c 'echo x >/data/f && cat /proc/self/uid_map'
	edit_config --arg d "$dir" --argjson u "$U1_UID" --argjson g "$U1_GID" --argjson s "$U1_SUBID" \
		'.mounts += [{"destination": "/data", "type": "bind", "source": $d, "options": ["rbind", "rw"]}]
		 | .linux.uidMappings = [{"containerID": 0, "hostID": $u, "size": 1}, {"containerID": 1, "hostID": $s, "size": 65536}]
		 | .linux.gidMappings = [{"containerID": 0, "hostID": $g, "size": 1}, {"containerID": 1, "hostID": $s, "size": 65536}]
		 | .process.user = {"uid": 1000, "gid": 1000}'
	run u1 run --bundle "$BUNDLE" c1
	[ "$status" -eq 0 ]
	[ "$(echo "${lines[1]}" | tr -s ' ' | sed 's/^ //')" = "1 $U1_SUBID 65536" ]
	[ "$(stat -c %u:%g "$dir/f")" = "$((U1_SUBID + 999)):$((U1_SUBID + 999))" ]
	rm -rf "$dir"
}

@test "mappings of ids the user holds no range of are a one-line error, and nothing is left" {
	spec_bundle true
	# The second user's range, not the first's.
	edit_config --argjson u "$U1_UID" --argjson g "$U1_GID" --argjson s "$U2_SUBID" \
		'.linux.uidMappings = [{"containerID": 0, "hostID": $u, "size": 1}, {"containerID": 1, "hostID": $s, "size": 10}]
		 | .linux.gidMappings = [{"containerID": 0, "hostID": $g, "size": 1}, {"containerID": 1, "hostID": $s, "size": 10}]'
	run -1 u1 create --bundle "$BUNDLE" c1
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == "cell-oci: create: container c1: "*"newuidmap"* ]] ||
		[[ "$output" == "cell-oci: create: container c1: "*"map the user namespace"* ]]
	[ -z "$(u1 list -q)" ]
}

@test "a plain user's config without a user namespace is a one-line error naming what is missing" {
	spec_bundle true
	edit_config '.linux.namespaces |= map(select(.type != "user")) | del(.linux.uidMappings, .linux.gidMappings)'
	run -1 u1 create --bundle "$BUNDLE" c1
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == *"user namespace"* ]]
	[ -z "$(u1 list -q)" ]
}

@test "exec, kill and delete reach a container whose process runs as a subordinate id" {
	spec_bundle sh -c 'trap "exit 0" TERM; while :; do sleep 0.1; done'
	edit_config --argjson u "$U1_UID" --argjson g "$U1_GID" --argjson s "$U1_SUBID" \
		'.linux.uidMappings = [{"containerID": 0, "hostID": $u, "size": 1}, {"containerID": 1, "hostID": $s, "size": 65536}]
		 | .linux.gidMappings = [{"containerID": 0, "hostID": $g, "size": 1}, {"containerID": 1, "hostID": $s, "size": 65536}]
		 | .process.user = {"uid": 1000, "gid": 1000}'
	u1 run -d --bundle "$BUNDLE" c1
	pid=$(u1 state c1 | jq -r .pid)
	[ "$(awk '/^Uid:/ { print $2 }' "/proc/$pid/status")" = "$((U1_SUBID + 999))" ]
	run u1 exec c1 id -u
	[ "$status" -eq 0 ]
	[ "$output" = 1000 ]
	u1 kill c1 TERM
	wait_status c1 stopped
	u1 delete c1
}

@test "a device node the config lists is the host's node, bound, where mknod is refused" {
	spec_bundle sh -c 'stat -c %F:%t:%T /dev/xfull; echo x >/dev/xfull; echo w=$?'
	edit_config '.linux.devices = [{"path": "/dev/xfull", "type": "c", "major": 1, "minor": 7, "fileMode": 438}]'
	run u1 run --bundle "$BUNDLE" c1
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "character special file:1:7" ]
	[ "${lines[-1]}" = w=1 ] # /dev/full: no space left
}

@test "a listed sysfs without a network namespace of its own is the host's /sys, read-only all through, its masks kept" {
	spec_bundle sh -c 'ls /sys/firmware | wc -l; awk "\$5 ~ /^\/sys/ && \$6 !~ /^ro,/" /proc/self/mountinfo | wc -l'
	edit_config '.mounts |= map(if .destination == "/sys" then
		{"destination": "/sys", "type": "sysfs", "source": "sysfs", "options": ["nosuid", "noexec", "nodev", "ro"]} else . end)'
	run u1 run --bundle "$BUNDLE" c1
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = 0 ]
	[ "${lines[1]}" = 0 ]
}

# --- cgroups -------------------------------------------------------------------

@test "a config's cgroupsPath with no resources is no error without a cgroup the user may write" {
	spec_bundle true
	edit_config '.linux.cgroupsPath = "/rootless-test/c1"'
	run u1 run --bundle "$BUNDLE" c1
	[ "$status" -eq 0 ]
	[ ! -e /sys/fs/cgroup/unified/rootless-test ]
}

@test "a memory limit without a delegated cgroup v2 subtree is a one-line error saying so, and nothing is left" {
	spec_bundle true
	edit_config '.linux.resources = {"memory": {"limit": 67108864}}'
	run -1 u1 create --bundle "$BUNDLE" c1
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == "cell-oci: create: container c1: "*"deleg"* ]] || { echo "$output"; false; }
	[ -z "$(u1 list -q)" ]
}

@test "the refusal of a limit without a delegated subtree names the limit and linux.cgroupsPath as the config says them, not as the jail CLI does" {
	spec_bundle true
	edit_config '.linux.resources = {"pids": {"limit": 10}}'
	run -1 u1 create --bundle "$BUNDLE" c1
	[ "$output" = 'cell-oci: create: container c1: linux.resources.pids.limit: needs a delegated cgroup v2 subtree (rootless, and none found): run in a scope of "systemd-run --user --scope -p Delegate=yes" or have root delegate a directory (chown it to you) and pass linux.cgroupsPath' ]
	[ -z "$(u1 list -q)" ]
}

# --- what the container reaches ------------------------------------------------

@test "a rootless container sees none of the host's processes and cannot signal the user's own" {
	# A process of the same user on the host: the one a signal could reach.
	as_user U1 sleep 1000 >/dev/null 2>&1 3>&- &
	victim=$!
	PIDS+=("$victim")
	spec_bundle sh -c "$JAIL_GUARD_SH
		ls /proc | grep -c '^[0-9]'
		kill -9 $victim; echo kill=\$?"
	run u1 run --bundle "$BUNDLE" c1
	[ "$status" -eq 0 ]
	[ "${lines[0]}" -le 3 ]
	[ "${lines[-1]}" != kill=0 ]
	kill -0 "$victim"
}

@test "another user's containers are invisible in list, and its state root is closed" {
	spec_bundle sleep 100
	u1 run -d --bundle "$BUNDLE" c1
	run u2 list -q
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	run -1 u2 --root "$U1_XDG/cell-oci" list
	[ "${#lines[@]}" -eq 1 ]
	run -1 u2 --root "$U1_XDG/cell-oci" delete -f c1
	[ "$(u1 state c1 | jq -r .status)" = running ]
	# Nor does root's list of its own default root show it.
	[ ! -e "/run/cell-oci/c1" ]
}
