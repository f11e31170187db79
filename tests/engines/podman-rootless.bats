#!/usr/bin/env bats
# Rootless podman (Debian's 4.3.1) runs containers on $OCI_RUNTIME: a
# throwaway user with subordinate ranges (tests/oci/rootless_user.bash)
# runs podman, which makes its user namespace with newuidmap/newgidmap
# and calls the runtime as root of it, without privilege over the host.
# run --rm, exit codes, -d + exec + stop + rm, the container's root is
# the user on the host (its files, its processes), its other ids are the
# user's subordinate ones, and it sees no process of the host's.
#
# podman gets a private root, runroot, tmpdir and storage under
# $ENGINE_TMP/p, the user's (vfs storage: no overlay mounts),
# cgroupfs, file events, k8s-file logs, no network; HOME and
# XDG_RUNTIME_DIR are the user's temp dirs.  The image is `podman
# import` of a busybox-static root.  Teardown kills the user's processes
# (podman's pause process and conmon) by pid, removes the user, its
# subordinate ranges and every file.
load helpers
load ../oci/rootless_user

IMAGE=localhost/busybox-test:latest
# The runtime the user's podman runs: a copy of $OCI_RUNTIME (a
# reference runtime works too: OCI_RUNTIME=/usr/sbin/runc).
RL_CELL=$OCI_RUNTIME

pm() {
	# Short: podman refuses a runroot longer than 50 characters.
	local p=$ENGINE_TMP/p
	as_user PU timeout "$ENGINE_TIMEOUT" podman --root "$p/root" --runroot "$p/run" \
		--tmpdir "$p/tmp" --storage-driver vfs --cgroup-manager cgroupfs \
		--events-backend file --network-config-dir "$p/net" --runtime "$PU_OCI" "$@"
}

setup_file() {
	command -v podman >/dev/null || skip "podman is not installed"
	command -v newuidmap >/dev/null || skip "newuidmap is not installed (Debian's uidmap)"
	engine_tmp pmrl
	rootless_user_add PU
	mkdir -p "$ENGINE_TMP/p"
	chown "$PU_UID:$PU_GID" "$ENGINE_TMP/p"
	chmod 644 "$ENGINE_TMP/rootfs.tar"
	pm import "$ENGINE_TMP/rootfs.tar" "$IMAGE" >/dev/null
}

teardown_file() {
	[ -n "${ENGINE_TMP:-}" ] || return 0
	pm rm -af -t 2 >/dev/null 2>&1
	# Every process of the user (podman's pause process, conmon) by pid.
	rootless_user_del PU
	unmount_under "$ENGINE_TMP"
	rm -rf --one-file-system "$ENGINE_TMP"
}

teardown() {
	pm rm -af -t 2 >/dev/null 2>&1 || true
}

# podman run's options for every container here.
RUN=(run --log-driver k8s-file --network none)

@test "rootless podman: run --rm prints the container's output and removes it" {
	run pm "${RUN[@]}" --rm "$IMAGE" echo hello from rootless podman
	[ "$status" -eq 0 ]
	[ "$output" = "hello from rootless podman" ]
	[ -z "$(pm ps -aq)" ]
}

@test "rootless podman: run returns the process's exit code, 127 for no command" {
	run pm "${RUN[@]}" --rm "$IMAGE" sh -c 'exit 3'
	[ "$status" -eq 3 ]
	run -127 pm "${RUN[@]}" --rm "$IMAGE" /no/such/command
}

@test "rootless podman: run -d, exec, stop and rm" {
	run pm "${RUN[@]}" -d --name detached "$IMAGE" sh -c 'trap "exit 0" TERM; while :; do sleep 0.1; done'
	[ "$status" -eq 0 ]
	run pm exec detached sh -c 'echo in exec; id -u'
	[ "$status" -eq 0 ]
	[ "$output" = "in exec
0" ]
	run pm exec detached sh -c 'exit 5'
	[ "$status" -eq 5 ]
	run pm stop -t 10 detached
	[ "$status" -eq 0 ]
	[ "$(pm inspect --format '{{.State.Status}}' detached)" = exited ]
	run pm rm detached
	[ "$status" -eq 0 ]
	[ -z "$(pm ps -aq)" ]
}

@test "rootless podman: the container's root is the user on the host, its other ids the user's subordinate ones" {
	pm "${RUN[@]}" -d --name ids "$IMAGE" sleep 1000
	pid=$(pm inspect --format '{{.State.Pid}}' ids)
	[ "$(awk '/^Uid:/ { print $2 }' "/proc/$pid/status")" = "$PU_UID" ]
	run pm exec ids cat /proc/self/uid_map
	[ "$(echo "${lines[0]}" | tr -s ' ' | sed 's/^ //')" = "0 $PU_UID 1" ]
	[ "$(echo "${lines[1]}" | tr -s ' ' | sed 's/^ //')" = "1 $PU_SUBID 65536" ]
}

@test "rootless podman: a file the container's root writes into a volume is the user's; one it gives uid 1000 is a subordinate id's" {
	vol=$ENGINE_TMP/vol
	mkdir "$vol"
	chown "$PU_UID:$PU_GID" "$vol"
	run pm "${RUN[@]}" --rm -v "$vol:/data" "$IMAGE" \
		sh -c 'echo root >/data/by-root && echo x >/data/to-1000 && chown 1000:1000 /data/to-1000'
	[ "$status" -eq 0 ]
	[ "$(stat -c %u:%g "$vol/by-root")" = "$PU_UID:$PU_GID" ]
	[ "$(stat -c %u:%g "$vol/to-1000")" = "$((PU_SUBID + 999)):$((PU_SUBID + 999))" ]
}

@test "rootless podman: the container sees none of the host's processes" {
	# The glob is expanded before any cat runs: the shell alone.
	run pm "${RUN[@]}" --rm "$IMAGE" sh -c 'for p in /proc/[0-9]*; do cat $p/comm; done'
	[ "$status" -eq 0 ]
	[ "$output" = sh ]
}

@test "rootless podman: --userns keep-id runs the container as the user's own uid, in a user namespace of the config's" {
	run pm "${RUN[@]}" --rm --userns keep-id "$IMAGE" sh -c 'id -u; cat /proc/self/uid_map'
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "$PU_UID" ]
}
