#!/usr/bin/env bats
# Regressions of the container-runtime CVEs, each against $OCI_RUNTIME:
# CVE-2019-5736 (the runtime binary overwritten through /proc/PID/exe),
# CVE-2024-21626 (a runtime fd or cwd leaked into the container),
# CVE-2021-30465 (a symlink swapped during create redirects a mount),
# CVE-2019-16884 (/proc replaced by a symlink), a rootfs whose /dev,
# /dev/null or /dev/console is a symlink, CVE-2022-27650 (inheritable
# capabilities), CVE-2022-0492 (cgroup release_agent) and the runtime's
# own process, which stays non-dumpable until it execs the payload.
#
# Safety: every probe that would change the host if it ran there starts
# with JAIL_GUARD_SH (exits 99 outside a container's UTS and pid
# namespaces); the probes only open, read or write back a value a file
# already has.  What a runtime could do to the host by getting it wrong
# is aimed at files under the test's $WORK.
load helpers

# shared_pid_attacker: container $ID (sleep, default capabilities) and
# container $ID-b created, not started, in $ID's pid namespace: the
# runtime's own process waits there.  Sets $B_NSPID, its pid as $ID
# sees it.
shared_pid_attacker() {
	args sleep 100
	run_detached
	mkdir "$WORK/b"
	cp -a "$BUNDLE/rootfs" "$WORK/b/rootfs"
	jq --arg p "/proc/$PID/ns/pid" \
		'.linux.namespaces |= map(if .type == "pid" then .path = $p else . end)' \
		"$BUNDLE/config.json" >"$WORK/b/config.json"
	must_create "$ID-b" "$WORK/b"
	local bpid
	bpid=$(container_pid "$ID-b")
	B_NSPID=$(awk '/^NSpid:/ { print $NF }' "/proc/$bpid/status")
	[ -n "$B_NSPID" ]
}

@test "CVE-2019-5736: the runtime's waiting process cannot be reopened for writing from a container sharing its pid namespace" {
	sum=$(sha256sum <"$(readlink -f "$OCI_RUNTIME")")
	shared_pid_attacker
	run oci exec "$ID" checker try open-write "/proc/$B_NSPID/exe"
	[ "$status" -eq 0 ]
	[ "$output" != "open-write ok" ]
	[ "$(sha256sum <"$(readlink -f "$OCI_RUNTIME")")" = "$sum" ]
}

@test "CVE-2019-5736: the runtime's waiting process cannot be ptraced or its exe reopened (non-dumpable until exec)" {
	shared_pid_attacker
	run oci exec "$ID" checker ptrace "$B_NSPID"
	[ "$status" -eq 0 ]
	[ "$output" != "ptrace ok" ]
	run oci exec "$ID" checker try open-read "/proc/$B_NSPID/exe"
	[ "$output" != "open-read ok" ]
}

@test "CVE-2019-5736: no process of exec can be reopened for writing through /proc/PID/exe, and the binary is unchanged" {
	sum=$(sha256sum <"$(readlink -f "$OCI_RUNTIME")")
	args checker exe-watch 8
	run_detached
	end=$((SECONDS + 6))
	while [ $SECONDS -lt $end ]; do
		oci exec "$ID" true >/dev/null 2>&1 </dev/null
	done
	# The watcher ends by itself after 8 s.
	for ((i = 0; i < 150; i++)); do
		grep -q '^seen' "$WORK/$ID.out" && break
		sleep 0.1
	done
	cat "$WORK/$ID.out"
	grep -q '^seen' "$WORK/$ID.out"
	! grep -q '^writable' "$WORK/$ID.out"
	[ "$(sha256sum <"$(readlink -f "$OCI_RUNTIME")")" = "$sum" ]
}

@test "CVE-2024-21626: the container process has only fds 0, 1 and 2" {
	args checker fds
	exec 7<"$WORK"
	oci_run
	exec 7<&-
	[ "$status" -eq 0 ]
	[ "$(echo "$output" | awk '{ print $1 }' | tr '\n' ' ')" = "0 1 2 " ]
}

@test "CVE-2024-21626: an exec'd process has only fds 0, 1 and 2" {
	args sleep 100
	run_detached
	exec 7<"$WORK"
	run oci exec "$ID" checker fds
	exec 7<&-
	[ "$status" -eq 0 ]
	[ "$(echo "$output" | awk '{ print $1 }' | tr '\n' ' ')" = "0 1 2 " ]
}

@test "CVE-2024-21626: the container's and an exec'd process's cwd are inside the root" {
	args checker cwd
	oci_run
	[ "$output" = "cwd /" ]
	args sleep 100
	run_detached "$ID-b"
	run oci exec "$ID-b" checker cwd
	[ "$output" = "cwd /" ]
}

@test "CVE-2024-21626: a process.cwd of /proc/self/fd/N is refused or stays inside the root" {
	for n in 3 4 5 6 7 8; do
		cfg '.process.cwd = $c' --arg c "/proc/self/fd/$n"
		args checker cwd
		oci_run "$ID-$n"
		echo "cwd /proc/self/fd/$n: $status $output"
		if [ "$status" -eq 0 ]; then
			[[ "$output" == "cwd /"* ]]
		fi
		oci delete -f "$ID-$n" >/dev/null 2>&1 || true
	done
}

@test "CVE-2024-21626: exec --cwd /proc/self/fd/N is refused or stays inside the root" {
	args sleep 100
	run_detached
	for n in 3 4 5 6 7 8; do
		run oci exec --cwd "/proc/self/fd/$n" "$ID" checker cwd
		echo "exec --cwd /proc/self/fd/$n: $status $output"
		if [ "$status" -eq 0 ]; then
			[[ "$output" == "cwd /"* ]]
		fi
	done
}

@test "CVE-2021-30465: a mount point swapped for a symlink during create never lands outside the root" {
	mkdir "$WORK/outside" "$BUNDLE/rootfs/dst"
	ln -s "$WORK/outside" "$BUNDLE/rootfs/link"
	cfg '.mounts += [range(1; 9) | {"destination": "/dst/m\(.)", "type": "tmpfs", "source": "tmpfs"}]'
	args true
	bg "$CHECKER" rename-exchange "$BUNDLE/rootfs/dst" "$BUNDLE/rootfs/link" 60
	racer=$BG_PID
	for i in $(seq 1 12); do
		remember_id "$ID-$i"
		oci run --bundle "$BUNDLE" "$ID-$i" </dev/null >/dev/null 2>&1 3>&- || true
		oci delete -f "$ID-$i" >/dev/null 2>&1 || true
		[ -z "$(ls -A "$WORK/outside")" ] || break
	done
	kill "$racer"
	wait "$racer" || true
	ls -la "$WORK/outside"
	[ -z "$(ls -A "$WORK/outside")" ]
}

@test "CVE-2019-16884: a /proc that is a symlink is refused or still masked" {
	rmdir "$BUNDLE/rootfs/proc"
	mkdir "$BUNDLE/rootfs/fakeproc"
	ln -s /fakeproc "$BUNDLE/rootfs/proc"
	sh_args 'stat -f -c %T /proc/; wc -c </proc/keys'
	oci_run
	echo "$status: $output"
	if [ "$status" -eq 0 ]; then
		[ "${lines[0]}" = proc ]
		[ "${lines[1]}" = 0 ]
	fi
}

@test "rootfs: a /dev that is a symlink out of the root is refused or handled inside the root" {
	mkdir "$WORK/outside"
	rmdir "$BUNDLE/rootfs/dev"
	ln -s "$WORK/outside" "$BUNDLE/rootfs/dev"
	args stat -L -c '%F %t:%T' /dev/null
	oci_run
	echo "$status: $output"
	ls -la "$WORK/outside"
	[ -z "$(ls -A "$WORK/outside")" ]
	if [ "$status" -eq 0 ]; then
		[ "$output" = "character special file 1:3" ]
	fi
}

@test "rootfs: a /dev/null that is a symlink out of the root is refused or handled inside the root" {
	echo secret >"$WORK/victim"
	cfg '.mounts |= map(select(.destination | startswith("/dev") | not))'
	ln -s "$WORK/victim" "$BUNDLE/rootfs/dev/null"
	sh_args 'echo overwritten >/dev/null; stat -L -c "%F %t:%T" /dev/null'
	oci_run
	echo "$status: $output"
	[ "$(cat "$WORK/victim")" = secret ]
	[ "$(stat -c '%F %U %a' "$WORK/victim")" = "regular file root 644" ]
	if [ "$status" -eq 0 ]; then
		[ "${lines[-1]}" = "character special file 1:3" ]
	fi
}

@test "rootfs: a /dev/console that is a symlink out of the root is refused or handled inside the root" {
	echo secret >"$WORK/victim"
	chmod 644 "$WORK/victim"
	cfg '.mounts |= map(select(.destination != "/dev"))'
	ln -s "$WORK/victim" "$BUNDLE/rootfs/dev/console"
	args stat -L -c '%F %t' /dev/console
	if console_run; then
		echo "$output"
		[ "$output" = "character special file 88" ]
	fi
	[ "$(cat "$WORK/victim")" = secret ]
	[ "$(stat -c '%F %U:%G %a' "$WORK/victim")" = "regular file root:root 644" ]
}

@test "CVE-2022-27650: the inheritable and ambient sets are empty unless the config asks, in the process and in exec" {
	args checker caps
	oci_run
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = inh=0000000000000000 ]
	[ "${lines[4]}" = amb=0000000000000000 ]
	args sleep 100
	run_detached "$ID-b"
	run oci exec "$ID-b" checker caps
	[ "${lines[0]}" = inh=0000000000000000 ]
	[ "${lines[4]}" = amb=0000000000000000 ]
}

@test "CVE-2022-0492: a container cannot write a cgroup release_agent, not even after unshare -UrmC" {
	cgroup_v1 || skip "release_agent exists on cgroup v1 only"
	before=$(cat /sys/fs/cgroup/memory/release_agent)
	cfg '.mounts += [{"destination": "/sys/fs/cgroup", "type": "cgroup", "source": "cgroup",
	      "options": ["nosuid", "noexec", "nodev", "relatime", "ro"]}]'
	sh_args "$JAIL_GUARD_SH"'
checker try open-write /sys/fs/cgroup/memory/release_agent
checker release-agent /tmp/cg'
	oci_run
	echo "$status: $output"
	[ "$status" -ne 99 ]
	[[ "$output" != *"open-write ok"* ]]
	[[ "$output" != *"write ok"* ]]
	[ "$(cat /sys/fs/cgroup/memory/release_agent)" = "$before" ]
}
