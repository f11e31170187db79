#!/usr/bin/env bats
# containerd (Debian's 1.6.20) runs containers on $OCI_RUNTIME through
# its runc shim (ctr run --runc-binary): echo, the exit code, a detached
# task with exec and kill, `ctr task ps`, pause/resume.
#
# The daemon is started here with a private root, state, socket, opt
# dir and config (no CRI plugin, the native snapshotter: no overlay
# mounts) and stopped by pid in teardown_file; the shim's runtime state
# (--runc-root) is under $ENGINE_TMP too.  The image is `ctr image
# import` of an OCI archive of a busybox-static root.
load helpers

IMAGE=localhost/busybox-test:latest
NS=ocitest

c() {
	timeout "$ENGINE_TIMEOUT" ctr --address "$ENGINE_TMP/containerd.sock" -n "$NS" "$@"
}

# crun_task ARG...: ctr run with the runtime under test.
crun_task() {
	c run --snapshotter native --runc-binary "$OCI_RUNTIME" \
		--runc-root "$ENGINE_TMP/runc" "$@"
}

setup_file() {
	command -v containerd >/dev/null || skip "containerd is not installed"
	engine_tmp containerd
	cgroups_snapshot >"$ENGINE_TMP/cgroups.before"
	# The shim puts its sockets in /run/containerd/s and ctr its fifos in
	# /run/containerd/fifo (fixed places): removed after if they are new.
	[ -d /run/containerd ] && touch "$ENGINE_TMP/run-containerd-was-there"
	cat >"$ENGINE_TMP/config.toml" <<-EOF
		version = 2
		root = "$ENGINE_TMP/root"
		state = "$ENGINE_TMP/state"
		disabled_plugins = ["io.containerd.grpc.v1.cri", "io.containerd.snapshotter.v1.btrfs",
		  "io.containerd.snapshotter.v1.zfs", "io.containerd.snapshotter.v1.devmapper",
		  "io.containerd.snapshotter.v1.aufs", "io.containerd.snapshotter.v1.overlayfs"]
		[grpc]
		  address = "$ENGINE_TMP/containerd.sock"
		[ttrpc]
		  address = "$ENGINE_TMP/containerd.sock.ttrpc"
		[debug]
		  address = ""
		[plugins."io.containerd.internal.v1.opt"]
		  path = "$ENGINE_TMP/opt"
	EOF
	containerd --config "$ENGINE_TMP/config.toml" >"$ENGINE_TMP/containerd.log" 2>&1 3>&- &
	echo $! >"$ENGINE_TMP/containerd.pid"
	wait_socket "$ENGINE_TMP/containerd.sock" || {
		cat "$ENGINE_TMP/containerd.log" >&2
		return 1
	}
	make_oci_archive "$IMAGE" "$ENGINE_TMP/image.tar"
	c image import --snapshotter native "$ENGINE_TMP/image.tar" >/dev/null
}

teardown_file() {
	[ -n "${ENGINE_TMP:-}" ] || return 0
	local t
	for t in $(c task ls -q 2>/dev/null); do
		c task kill -s KILL "$t" >/dev/null 2>&1
		c task rm -f "$t" >/dev/null 2>&1
	done
	for t in $(c containers ls -q 2>/dev/null); do
		c containers rm "$t" >/dev/null 2>&1
	done
	c image rm "$IMAGE" >/dev/null 2>&1
	stop_pid "$(cat "$ENGINE_TMP/containerd.pid")"
	wait "$(cat "$ENGINE_TMP/containerd.pid")" 2>/dev/null
	# Shims whose daemon is gone end by themselves; any left, by pid.
	for t in $(pgrep -f "containerd-shim.*$ENGINE_TMP" 2>/dev/null); do
		kill -KILL "$t" 2>/dev/null
	done
	unmount_under "$ENGINE_TMP"
	remove_new_cgroups "$ENGINE_TMP/cgroups.before" "/$NS(/|$)"
	[ -e "$ENGINE_TMP/run-containerd-was-there" ] ||
		rmdir /run/containerd/s /run/containerd/fifo /run/containerd 2>/dev/null
	rm -rf --one-file-system "$ENGINE_TMP"
}

teardown() {
	local t
	for t in $(c task ls -q 2>/dev/null); do
		c task kill -s KILL "$t" >/dev/null 2>&1
		poll_until 50 bash -c "! ctr --address $ENGINE_TMP/containerd.sock -n $NS task ls -q | grep -qx $t" ||
			true
		c task rm -f "$t" >/dev/null 2>&1
	done
	for t in $(c containers ls -q 2>/dev/null); do
		c containers rm "$t" >/dev/null 2>&1
	done
}

@test "containerd: ctr run prints the container's output" {
	run crun_task --rm "$IMAGE" echo1 echo hello from containerd
	[ "$status" -eq 0 ]
	[ "$output" = "hello from containerd" ]
	[ -z "$(c containers ls -q)" ]
}

@test "containerd: ctr run returns the process's exit code" {
	run crun_task --rm "$IMAGE" exit1 sh -c 'exit 3'
	[ "$status" -eq 3 ]
}

@test "containerd: a detached task takes exec and is ended by kill" {
	run crun_task -d "$IMAGE" detached sleep 1000
	[ "$status" -eq 0 ]
	poll_until bash -c "ctr --address $ENGINE_TMP/containerd.sock -n $NS task ls | grep -q 'detached.*RUNNING'"
	run c task exec --exec-id e1 detached sh -c 'echo in exec; exit 4'
	[ "$status" -eq 4 ]
	[ "$output" = "in exec" ]
	run c task kill -s KILL detached
	[ "$status" -eq 0 ]
	poll_until bash -c "ctr --address $ENGINE_TMP/containerd.sock -n $NS task ls | grep -q 'detached.*STOPPED'"
	run c task rm detached
	[ "$status" -eq 0 ]
	run c containers rm detached
	[ "$status" -eq 0 ]
}

@test "containerd: ctr task ps lists the task's processes" {
	crun_task -d "$IMAGE" ps1 sleep 1000
	poll_until bash -c "ctr --address $ENGINE_TMP/containerd.sock -n $NS task ls | grep -q 'ps1.*RUNNING'"
	pid=$(c task ls | awk '$1 == "ps1" { print $2 }')
	run c task ps ps1
	[ "$status" -eq 0 ]
	echo "$output" | awk 'NR > 1 { print $1 }' | grep -qx "$pid"
}

@test "containerd: pause freezes the task and resume thaws it" {
	crun_task -d "$IMAGE" pause1 sleep 1000
	poll_until bash -c "ctr --address $ENGINE_TMP/containerd.sock -n $NS task ls | grep -q 'pause1.*RUNNING'"
	run c task pause pause1
	[ "$status" -eq 0 ]
	[ "$(c task ls | awk '$1 == "pause1" { print $3 }')" = PAUSED ]
	run c task resume pause1
	[ "$status" -eq 0 ]
	[ "$(c task ls | awk '$1 == "pause1" { print $3 }')" = RUNNING ]
	run c task exec --exec-id e2 pause1 echo thawed
	[ "$output" = thawed ]
}
