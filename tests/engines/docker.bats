#!/usr/bin/env bats
# dockerd (Debian's docker.io 20.10) runs containers on $OCI_RUNTIME
# (--add-runtime cell=..., docker run --runtime cell): run --rm, exit
# codes, -d + exec + logs + stop + rm, --hostname, -e, --read-only,
# --memory, --pids-limit, -it through a pty, top, pause/unpause.
#
# dockerd gets a private data root, exec root, pid file, socket and
# config file under $ENGINE_TMP (vfs storage) and starts its own
# containerd there; no host network change (--bridge=none, no iptables,
# no ip forwarding or masquerading); containers run with --network
# none.  The image is `docker import` of a busybox-static root.  The
# daemon is stopped by pid in teardown_file.
load helpers

IMAGE=busybox-test:latest
DOCKER=/usr/bin/docker

d() {
	DOCKER_CONFIG=$ENGINE_TMP/cli timeout "$ENGINE_TIMEOUT" \
		"$DOCKER" -H "unix://$ENGINE_TMP/docker.sock" "$@"
}

# drun ARG...: docker run with the runtime under test, no network.
drun() {
	d run --runtime cell --network none "$@"
}

setup_file() {
	command -v dockerd >/dev/null && [ -x "$DOCKER" ] || skip "docker.io is not installed"
	engine_tmp docker
	cgroups_snapshot >"$ENGINE_TMP/cgroups.before"
	# dockerd writes /etc/docker/key.json and makes /run/docker/plugins,
	# the shims use /run/containerd: removed after if they are new.
	[ -e /etc/docker/key.json ] && touch "$ENGINE_TMP/key-was-there"
	[ -d /run/docker ] && touch "$ENGINE_TMP/run-docker-was-there"
	[ -d /run/containerd ] && touch "$ENGINE_TMP/run-containerd-was-there"
	echo '{}' >"$ENGINE_TMP/daemon.json"
	dockerd --data-root "$ENGINE_TMP/data" --exec-root "$ENGINE_TMP/exec" \
		--pidfile "$ENGINE_TMP/docker.pid" -H "unix://$ENGINE_TMP/docker.sock" \
		--config-file "$ENGINE_TMP/daemon.json" --bridge=none --iptables=false \
		--ip6tables=false --ip-forward=false --ip-masq=false --userland-proxy=false \
		--storage-driver vfs --add-runtime "cell=$OCI_RUNTIME" \
		>"$ENGINE_TMP/dockerd.log" 2>&1 3>&- &
	echo $! >"$ENGINE_TMP/dockerd.pid"
	wait_socket "$ENGINE_TMP/docker.sock" || {
		cat "$ENGINE_TMP/dockerd.log" >&2
		return 1
	}
	poll_until 300 d version
	d import "$ENGINE_TMP/rootfs.tar" "$IMAGE" >/dev/null
}

teardown_file() {
	[ -n "${ENGINE_TMP:-}" ] || return 0
	local pid
	d rm -f $(d ps -aq 2>/dev/null) >/dev/null 2>&1
	d rmi -f "$IMAGE" >/dev/null 2>&1
	pid=$(cat "$ENGINE_TMP/dockerd.pid" 2>/dev/null)
	stop_pid "$pid"
	wait "$pid" 2>/dev/null
	for pid in $(pgrep -f "containerd.*$ENGINE_TMP" 2>/dev/null); do
		kill -KILL "$pid" 2>/dev/null
	done
	unmount_under "$ENGINE_TMP"
	remove_new_cgroups "$ENGINE_TMP/cgroups.before" '/docker(/|$)'
	[ -e "$ENGINE_TMP/key-was-there" ] || rm -f /etc/docker/key.json
	[ -e "$ENGINE_TMP/run-docker-was-there" ] ||
		rmdir /run/docker/plugins /run/docker 2>/dev/null
	[ -e "$ENGINE_TMP/run-containerd-was-there" ] ||
		rmdir /run/containerd/s /run/containerd/fifo /run/containerd 2>/dev/null
	rm -rf --one-file-system "$ENGINE_TMP"
}

teardown() {
	local ids
	ids=$(d ps -aq 2>/dev/null)
	[ -z "$ids" ] || d rm -f $ids >/dev/null 2>&1 || true
}

@test "docker: run --rm prints the container's output and removes it" {
	run drun --rm "$IMAGE" echo hello from docker
	[ "$status" -eq 0 ]
	[ "$output" = "hello from docker" ]
	[ -z "$(d ps -aq)" ]
}

@test "docker: run returns the process's exit code" {
	run drun --rm "$IMAGE" sh -c 'exit 3'
	[ "$status" -eq 3 ]
}

@test "docker: a command that does not exist exits 127" {
	run -127 drun --rm "$IMAGE" /no/such/command
	[ "$status" -eq 127 ]
}

@test "docker: a command that is not executable exits 126" {
	run -126 drun --rm "$IMAGE" /etc/passwd
	[ "$status" -eq 126 ]
}

@test "docker: run -d, exec, logs, stop and rm" {
	run drun -d --name detached "$IMAGE" sh -c 'echo started; trap "exit 0" TERM; while :; do sleep 0.1; done'
	[ "$status" -eq 0 ]
	run d exec detached sh -c 'echo in exec'
	[ "$status" -eq 0 ]
	[ "$output" = "in exec" ]
	run d exec detached sh -c 'exit 5'
	[ "$status" -eq 5 ]
	poll_until bash -c "DOCKER_CONFIG=$ENGINE_TMP/cli $DOCKER -H unix://$ENGINE_TMP/docker.sock logs detached | grep -q started"
	run d stop -t 10 detached
	[ "$status" -eq 0 ]
	[ "$(d inspect --format '{{.State.Status}}' detached)" = exited ]
	run d rm detached
	[ "$status" -eq 0 ]
	[ -z "$(d ps -aq)" ]
}

@test "docker: --hostname is the container's hostname" {
	run drun --rm --hostname dockhost "$IMAGE" hostname
	[ "$status" -eq 0 ]
	[ "$output" = dockhost ]
}

@test "docker: -e sets an environment variable" {
	run drun --rm -e OCI_TEST=value "$IMAGE" sh -c 'echo $OCI_TEST'
	[ "$status" -eq 0 ]
	[ "$output" = value ]
}

@test "docker: --read-only makes the root read-only" {
	run drun --rm --read-only "$IMAGE" sh -c 'touch /x 2>&1; echo $?'
	[[ "$output" == *"Read-only file system"* ]]
	[ "${lines[-1]}" = 1 ]
}

@test "docker: --memory sets the container's memory limit" {
	drun -d --name mem --memory 64m "$IMAGE" sleep 100
	pid=$(d inspect --format '{{.State.Pid}}' mem)
	[ "$(memory_limit_of "$pid")" = 67108864 ]
}

@test "docker: --pids-limit sets the container's pids limit" {
	drun -d --name pids --pids-limit 42 "$IMAGE" sleep 100
	pid=$(d inspect --format '{{.State.Pid}}' pids)
	[ "$(pids_limit_of "$pid")" = 42 ]
}

@test "docker: -it runs the process on a pty" {
	run_in_pty "DOCKER_CONFIG=$ENGINE_TMP/cli $DOCKER -H unix://$ENGINE_TMP/docker.sock \
		run -it --rm --runtime cell --network none $IMAGE sh -c 'tty; [ -t 0 ] && echo stdin-is-a-tty'"
	[ "$status" -eq 0 ]
	[[ "$output" == */dev/pts/* ]]
	[[ "$output" == *stdin-is-a-tty* ]]
}

@test "docker: top lists the container's processes" {
	drun -d --name top "$IMAGE" sleep 100
	run d top top
	[ "$status" -eq 0 ]
	[[ "$output" == *"sleep 100"* ]]
}

@test "docker: pause freezes the container and unpause thaws it" {
	drun -d --name paused "$IMAGE" sleep 100
	run d pause paused
	[ "$status" -eq 0 ]
	[ "$(d inspect --format '{{.State.Status}}' paused)" = paused ]
	run d unpause paused
	[ "$status" -eq 0 ]
	[ "$(d inspect --format '{{.State.Status}}' paused)" = running ]
	run d exec paused echo thawed
	[ "$output" = thawed ]
}
