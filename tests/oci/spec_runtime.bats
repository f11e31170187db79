#!/usr/bin/env bats
# The OCI runtime spec's runtime.md (state, lifecycle, operations and
# their errors) and runtime-linux.md (file descriptors), one test per
# MUST, against $OCI_RUNTIME through runc's command line.  Tests of a
# runc convention that engines rely on say "runc convention".
load helpers

# A container that waits for SIGTERM: it writes "ready" to its stdout
# file, then "term" when the signal comes, and exits 0.
trap_args() {
	sh_args 'trap "echo term; exit 0" TERM; echo ready; while :; do sleep 0.1; done'
}

@test "runtime: state: a created container's state has ociVersion, id, status created, pid and the absolute bundle" {
	args sleep 100
	must_create
	run oci state "$ID"
	[ "$status" -eq 0 ]
	echo "$output" | jq -e --arg id "$ID" --arg b "$BUNDLE" \
		'(.ociVersion | type == "string" and length > 0) and .id == $id and
		 .status == "created" and (.pid | type == "number" and . > 0) and .bundle == $b'
}

@test "runtime: state: the pid is the container process as seen by the host, in namespaces of its own" {
	args sleep 100
	run_detached
	[ -d "/proc/$PID" ]
	[ "$(readlink "/proc/$PID/ns/pid")" != "$HOST_PID" ]
	[ "$(readlink "/proc/$PID/ns/uts")" != "$HOST_UTS" ]
}

@test "runtime: state: status is running after start and stopped once the process exits" {
	trap_args
	must_create
	must_start
	wait_line "$WORK/$ID.out" ready
	[ "$(state_field status)" = running ]
	oci kill "$ID" TERM
	wait_status_is stopped
}

@test "runtime: state: the annotations of the config are in the state" {
	args sleep 100
	cfg '.annotations = {"org.example.key": "value", "com.example.other": "x"}'
	must_create
	[ "$(state_field 'annotations["org.example.key"]')" = value ]
	[ "$(state_field 'annotations["com.example.other"]')" = x ]
}

@test "runtime: query state: querying a container that does not exist is an error" {
	run oci state "$ID"
	[ "$status" -ne 0 ]
}

@test "runtime: query state: state without a container id is an error" {
	run oci state
	[ "$status" -ne 0 ]
}

@test "runtime: create: the user-specified program does not run at create, only at start" {
	mkdir "$WORK/shared"
	cfg '.mounts += [{"destination": "/shared", "type": "bind", "source": $s, "options": ["rbind"]}]' \
		--arg s "$WORK/shared"
	sh_args 'touch /shared/ran; sleep 100'
	must_create
	[ "$(state_field status)" = created ]
	# create has returned: whatever it does is done.
	[ ! -e "$WORK/shared/ran" ]
	must_start
	wait_file "$WORK/shared/ran" || [ -e "$WORK/shared/ran" ]
}

@test "runtime: create: the resources of the config exist after create (the namespaces, the hostname)" {
	args sleep 100
	cfg '.hostname = "created-host"'
	must_create
	pid=$(container_pid)
	[ "$(readlink "/proc/$pid/ns/uts")" != "$HOST_UTS" ]
	[ "$(nsenter -t "$pid" -u hostname)" = created-host ]
}

@test "runtime: create: changes to config.json after create do not affect the container" {
	args echo original
	must_create
	args echo changed
	must_start
	wait_status_is stopped
	[ "$(cat "$WORK/$ID.out")" = original ]
}

@test "runtime: create: an id already in use is an error and the first container is unaffected" {
	args sleep 100
	must_create
	pid=$(container_pid)
	oci_create "$ID"
	[ "$status" -ne 0 ]
	[ "$(state_field status)" = created ]
	[ "$(container_pid)" = "$pid" ]
}

@test "runtime: create: create without an id is an error" {
	run oci create --bundle "$BUNDLE" </dev/null 3>&-
	[ "$status" -ne 0 ]
	[ -z "$(oci list -q 2>/dev/null)" ]
}

@test "runtime: create: a bundle without config.json is an error and no container is created" {
	rm "$BUNDLE/config.json"
	oci_create
	[ "$status" -ne 0 ]
	run oci state "$ID"
	[ "$status" -ne 0 ]
}

@test "runtime: create: a malformed config.json is an error and no container is created" {
	echo '{ "ociVersion": "1.0.2", "process": ' >"$BUNDLE/config.json"
	oci_create
	[ "$status" -ne 0 ]
	run oci state "$ID"
	[ "$status" -ne 0 ]
}

@test "runtime: create: a config the runtime cannot apply is an error and leaves nothing behind" {
	# A bind mount of a source that does not exist.
	cfg '.mounts += [{"destination": "/m", "type": "bind", "source": $s, "options": ["rbind"]}]' \
		--arg s "$WORK/missing"
	args sleep 100
	oci_create
	[ "$status" -ne 0 ]
	run oci state "$ID"
	[ "$status" -ne 0 ]
	[ -z "$(oci list -q 2>/dev/null)" ]
}

@test "runtime: start: start of a container that does not exist is an error" {
	run oci start "$ID"
	[ "$status" -ne 0 ]
}

@test "runtime: start: start without a container id is an error" {
	run oci start
	[ "$status" -ne 0 ]
}

@test "runtime: start: starting a running container is an error and does not affect it" {
	args sleep 100
	run_detached
	run oci start "$ID"
	[ "$status" -ne 0 ]
	[ "$(state_field status)" = running ]
	[ "$(container_pid)" = "$PID" ]
}

@test "runtime: start: starting a stopped container is an error and does not run the program again" {
	args echo once
	must_create
	must_start
	wait_status_is stopped
	run oci start "$ID"
	[ "$status" -ne 0 ]
	[ "$(state_field status)" = stopped ]
	[ "$(cat "$WORK/$ID.out")" = once ]
}

@test "runtime: start: a config without process is refused (at create or at start)" {
	cfg 'del(.process)'
	oci_create
	if [ "$status" -eq 0 ]; then
		run oci start "$ID"
		[ "$status" -ne 0 ]
	fi
}

@test "runtime: kill: kill sends the signal to the container process" {
	trap_args
	must_create
	must_start
	wait_line "$WORK/$ID.out" ready
	run oci kill "$ID" TERM
	[ "$status" -eq 0 ]
	wait_line "$WORK/$ID.out" term
	wait_status_is stopped
}

@test "runtime: kill: a signal given by number is sent" {
	sh_args 'trap "echo usr1; exit 0" USR1; echo ready; while :; do sleep 0.1; done'
	must_create
	must_start
	wait_line "$WORK/$ID.out" ready
	run oci kill "$ID" 10
	[ "$status" -eq 0 ]
	wait_line "$WORK/$ID.out" usr1
}

@test "runtime: kill: a created container can be killed and is then stopped" {
	args sleep 100
	must_create
	pid=$(container_pid)
	run oci kill "$ID" KILL
	[ "$status" -eq 0 ]
	wait_status_is stopped
	wait_pid_gone "$pid"
}

@test "runtime: kill: killing a stopped container is an error" {
	args true
	must_create
	must_start
	wait_status_is stopped
	run oci kill "$ID" KILL
	[ "$status" -ne 0 ]
	[ "$(state_field status)" = stopped ]
}

@test "runtime: kill: kill of a container that does not exist is an error" {
	run oci kill "$ID" KILL
	[ "$status" -ne 0 ]
}

@test "runtime: kill: kill without a container id is an error" {
	run oci kill
	[ "$status" -ne 0 ]
}

@test "runc convention: kill without a signal sends SIGTERM" {
	trap_args
	must_create
	must_start
	wait_line "$WORK/$ID.out" ready
	run oci kill "$ID"
	[ "$status" -eq 0 ]
	wait_line "$WORK/$ID.out" term
}

@test "runtime: delete: deleting a running container is an error and leaves it running" {
	args sleep 100
	run_detached
	run oci delete "$ID"
	[ "$status" -ne 0 ]
	[ "$(state_field status)" = running ]
	! pid_gone "$PID"
}

@test "runtime: delete: deleting a stopped container removes it and its id can be used again" {
	args true
	must_create
	must_start
	wait_status_is stopped
	run oci delete "$ID"
	[ "$status" -eq 0 ]
	run oci state "$ID"
	[ "$status" -ne 0 ]
	[ -z "$(oci list -q)" ]
	args echo again
	must_create
	must_start
	wait_status_is stopped
	[ "$(cat "$WORK/$ID.out")" = again ]
}

@test "runtime: delete: delete removes the cgroup the container was created with" {
	args sleep 100
	cfg '.linux.cgroupsPath = $p' --arg p "/$ID"
	run_detached
	dir=$(host_cgroup_dir "$PID" pids)
	[ -d "$dir" ]
	oci kill "$ID" KILL
	wait_status_is stopped
	run oci delete "$ID"
	[ "$status" -eq 0 ]
	[ ! -d "$dir" ]
}

@test "runtime: delete: resources not created by the container (a parent cgroup made before) are not deleted" {
	cgroup_v1 || skip "cgroup v1 hierarchy test"
	parent=$ID-parent
	OCI_CGROUP_PARENTS+=("$parent")
	mkdir "/sys/fs/cgroup/pids/$parent"
	args sleep 100
	cfg '.linux.cgroupsPath = $p' --arg p "/$parent/$ID"
	run_detached
	[ "$(host_cgroup_dir "$PID" pids)" = "/sys/fs/cgroup/pids/$parent/$ID" ]
	oci kill "$ID" KILL
	wait_status_is stopped
	oci delete "$ID"
	[ ! -d "/sys/fs/cgroup/pids/$parent/$ID" ]
	[ -d "/sys/fs/cgroup/pids/$parent" ]
}

@test "runtime: delete: delete of a container that does not exist is an error" {
	run oci delete "$ID"
	[ "$status" -ne 0 ]
}

@test "runtime: delete: delete without a container id is an error" {
	run oci delete
	[ "$status" -ne 0 ]
}

@test "runc convention: delete of a created container removes it and ends its process" {
	args sleep 100
	must_create
	pid=$(container_pid)
	run oci delete "$ID"
	[ "$status" -eq 0 ]
	run oci state "$ID"
	[ "$status" -ne 0 ]
	wait_pid_gone "$pid"
}

@test "runc convention: delete -f of a running container kills and removes it" {
	args sleep 100
	run_detached
	run oci delete -f "$ID"
	[ "$status" -eq 0 ]
	wait_pid_gone "$PID"
	run oci state "$ID"
	[ "$status" -ne 0 ]
}

@test "runc convention: run attached returns the process's exit status and its output" {
	sh_args 'echo out; echo err >&2; exit 7'
	oci_run
	[ "$status" -eq 7 ]
	[[ "$output" == *out* ]]
	[[ "$output" == *err* ]]
}

@test "runc convention: a container killed by a signal exits 128+N through run" {
	args sleep 100
	remember_id "$ID"
	bg oci run --bundle "$BUNDLE" "$ID" </dev/null >/dev/null 2>&1
	wait_status_is running
	oci kill "$ID" KILL
	wait_bg "$BG_PID"
	[ "$status" -eq 137 ]
}

@test "runc convention: list shows the containers of the state root" {
	args sleep 100
	must_create
	must_create "$ID-b"
	run oci list -q
	[ "$status" -eq 0 ]
	[ "$(echo "$output" | sort | tr '\n' ' ')" = "$(printf '%s\n' "$ID" "$ID-b" | sort | tr '\n' ' ')" ]
}

@test "runc convention: an invalid container id (a slash, ..) is refused and creates nothing" {
	for bad in "a/b" ".." "../$ID"; do
		run oci create --bundle "$BUNDLE" "$bad" </dev/null >/dev/null 2>&1 3>&-
		[ "$status" -ne 0 ]
	done
	[ -z "$(oci list -q 2>/dev/null)" ]
	[ ! -e "$WORK/$ID" ]
}

@test "runtime-linux: file descriptors: only stdin, stdout and stderr are open in the container" {
	args checker fds
	# fds the caller leaked to the runtime must not reach the container.
	exec 7<"$BUNDLE/config.json"
	oci_run
	exec 7<&-
	[ "$status" -eq 0 ]
	[ "$(echo "$output" | awk '{ print $1 }' | sort -n | tr '\n' ' ')" = "0 1 2 " ]
}

@test "runc convention: --preserve-fds N passes fds 3 to 3+N-1 to the container" {
	args checker fds
	remember_id "$ID"
	run oci run --preserve-fds 1 --bundle "$BUNDLE" "$ID" 3<"$BUNDLE/config.json" </dev/null
	[ "$status" -eq 0 ]
	echo "$output" | grep -E "^3 .*config.json$"
	! echo "$output" | grep -E '^4 '
}
