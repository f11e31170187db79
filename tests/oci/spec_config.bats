#!/usr/bin/env bats
# The OCI runtime spec's config.md: root, mounts, process (args, env,
# cwd, user, umask, rlimits, capabilities, noNewPrivileges, oomScoreAdj,
# terminal and consoleSize), hostname and domainname, hooks (their
# points, order, state on stdin, failures and timeouts), annotations and
# extensibility; one test per MUST against $OCI_RUNTIME.
load helpers

# make_hook: $HOOK, a host program that appends one line per call to
# $HOOKLOG: "NAME UTS-NAMESPACE HOOKVAR STATE" (the state from stdin on
# one line), then becomes `sleep $3` if $3 is given (so that a timeout
# ends the sleep too), else exits $2 (default 0).
# $WORK/hooks is bound into the container at the same path, so that a
# hook run in the container's namespaces (startContainer) finds the
# program (busybox's sh, cat, tr there) and the log.
make_hook() {
	mkdir -p "$WORK/hooks"
	HOOK=$WORK/hooks/hook
	HOOKLOG=$WORK/hooks/log
	cat >"$HOOK" <<-EOF
		#!/bin/sh
		state=\$(cat | tr -d '\n')
		echo "\$1 \$(readlink /proc/self/ns/uts) \${HOOKVAR:--} \$state" >>$HOOKLOG
		[ -n "\$3" ] && exec sleep "\$3"
		exit \${2:-0}
	EOF
	chmod 755 "$HOOK"
	: >"$HOOKLOG"
	cfg '.mounts += [{"destination": $d, "type": "bind", "source": $d, "options": ["rbind"]}]' \
		--arg d "$WORK/hooks"
}

# add_hook POINT NAME [EXIT [SLEEP [TIMEOUT]]]
add_hook() {
	local t=${5:-}
	cfg ".hooks.$1 += [[{\"path\": \$p, \"args\": [\"hook\", \$n, \$e, \$s], \"env\": [\"HOOKVAR=v-\" + \$n]}]
		+ (if \$t == \"\" then [] else [{\"timeout\": (\$t | tonumber)}] end) | add]" \
		--arg p "$HOOK" --arg n "$2" --arg e "${3:-0}" --arg s "${4:-}" --arg t "$t"
}

# hook_names: the names in $HOOKLOG, in order, on one line.
hook_names() {
	awk '{ printf "%s ", $1 }' "$HOOKLOG"
}

# hook_state NAME: the state JSON a hook was given.
hook_state() {
	awk -v n="$1" '$1 == n { $1 = $2 = $3 = ""; print; exit }' "$HOOKLOG"
}

# slow_start_and_poststart_comm: a startContainer hook that logs, then
# sleeps a second before the exec; a poststart hook that logs the
# command name (comm) of the container's process.
slow_start_and_poststart_comm() {
	make_hook
	add_hook startContainer startContainer 0 1
	cat >"$WORK/hooks/post" <<-EOF
		#!/bin/sh
		pid=\$(sed -n 's/.*"pid": *\([0-9]*\).*/\1/p')
		echo "poststart \$(cat /proc/\$pid/comm)" >>$HOOKLOG
	EOF
	chmod 755 "$WORK/hooks/post"
	cfg '.hooks.poststart += [{"path": $p}]' --arg p "$WORK/hooks/post"
}

@test "config: root: a relative root.path is relative to the bundle" {
	args echo rooted
	cd /
	oci_run
	[ "$status" -eq 0 ]
	[ "$output" = rooted ]
}

@test "config: root: an absolute root.path is used" {
	mv "$BUNDLE/rootfs" "$WORK/elsewhere"
	cfg '.root.path = $p' --arg p "$WORK/elsewhere"
	args cat /proc/self/mountinfo
	oci_run
	[ "$status" -eq 0 ]
}

@test "config: root: a root.path that does not exist is an error" {
	cfg '.root.path = "missing"'
	args true
	oci_create
	[ "$status" -ne 0 ]
	run oci state "$ID"
	[ "$status" -ne 0 ]
}

@test "config: root: readonly makes the root filesystem read-only inside the container" {
	cfg '.root.readonly = true'
	args checker try open-write /bin/busybox
	oci_run
	[ "$status" -eq 0 ]
	[ "$output" = "open-write EROFS" ]
}

@test "config: root: without readonly the root filesystem is writable" {
	sh_args 'echo x >/written && cat /written'
	oci_run
	[ "$status" -eq 0 ]
	[ "$output" = x ]
}

@test "config: mounts: the runtime mounts the entries in the listed order" {
	mkdir "$WORK/src"
	echo inner >"$WORK/src/file"
	cfg '.mounts += [{"destination": "/m", "type": "tmpfs", "source": "tmpfs"},
	                 {"destination": "/m/sub", "type": "bind", "source": $s, "options": ["rbind"]}]' \
		--arg s "$WORK/src"
	args cat /m/sub/file
	oci_run
	[ "$status" -eq 0 ]
	[ "$output" = inner ]
}

@test "config: mounts: a destination that does not exist in the root is created" {
	cfg '.mounts += [{"destination": "/new/deep/dir", "type": "tmpfs", "source": "tmpfs"}]'
	args stat -f -c %T /new/deep/dir
	oci_run
	[ "$status" -eq 0 ]
	[ "$output" = tmpfs ]
}

@test "config: mounts: a bind mount with ro is read-only" {
	mkdir "$WORK/src"
	cfg '.mounts += [{"destination": "/ro", "type": "bind", "source": $s, "options": ["rbind", "ro"]}]' \
		--arg s "$WORK/src"
	args checker try create /ro/new
	oci_run
	[ "$output" = "create EROFS" ]
	[ ! -e "$WORK/src/new" ]
}

@test "config: mounts: a bind mount is read-write without ro and shows the host's files" {
	mkdir "$WORK/src"
	echo host >"$WORK/src/file"
	cfg '.mounts += [{"destination": "/rw", "type": "bind", "source": $s, "options": ["rbind"]}]' \
		--arg s "$WORK/src"
	sh_args 'cat /rw/file && echo container >/rw/back'
	oci_run
	[ "$status" -eq 0 ]
	[ "$output" = host ]
	[ "$(cat "$WORK/src/back")" = container ]
}

@test "config: mounts: a single file can be bind mounted" {
	echo single >"$WORK/file"
	cfg '.mounts += [{"destination": "/etc/single", "type": "bind", "source": $s, "options": ["bind", "ro"]}]' \
		--arg s "$WORK/file"
	args cat /etc/single
	oci_run
	[ "$status" -eq 0 ]
	[ "$output" = single ]
}

@test "config: mounts: nosuid, nodev and noexec are applied" {
	mkdir "$WORK/src"
	cfg '.mounts += [{"destination": "/opts", "type": "bind", "source": $s,
	                  "options": ["rbind", "nosuid", "nodev", "noexec"]}]' --arg s "$WORK/src"
	args grep ' /opts ' /proc/self/mountinfo
	oci_run
	[ "$status" -eq 0 ]
	opts=$(echo "$output" | awk '{ print $6 }')
	[[ ",$opts," == *,nosuid,* ]]
	[[ ",$opts," == *,nodev,* ]]
	[[ ",$opts," == *,noexec,* ]]
}

@test "config: mounts: tmpfs options (size, mode) are passed to the filesystem" {
	cfg '.mounts += [{"destination": "/t", "type": "tmpfs", "source": "tmpfs", "options": ["size=1m", "mode=710"]}]'
	sh_args 'stat -c %a /t; grep " /t " /proc/self/mountinfo'
	oci_run
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = 710 ]
	[[ "${lines[1]}" == *size=1024k* ]]
}

@test "config: mounts: rbind brings the source's submounts, bind does not" {
	mkdir -p "$WORK/src/sub"
	mount -t tmpfs ocitest "$WORK/src/sub"
	OCI_HOST_MOUNTS+=("$WORK/src/sub")
	echo submount >"$WORK/src/sub/file"
	cfg '.mounts += [{"destination": "/r", "type": "bind", "source": $s, "options": ["rbind"]},
	                 {"destination": "/b", "type": "bind", "source": $s, "options": ["bind"]}]' \
		--arg s "$WORK/src"
	sh_args 'cat /r/sub/file; ls /b/sub | wc -l'
	oci_run
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = submount ]
	[ "${lines[1]}" = 0 ]
}

@test "config: process: args are run with execvp's search of PATH" {
	args echo found
	oci_run
	[ "$status" -eq 0 ]
	[ "$output" = found ]
}

@test "config: process: an empty args is refused" {
	cfg '.process.args = []'
	oci_create
	if [ "$status" -eq 0 ]; then
		run oci start "$ID"
		[ "$status" -ne 0 ]
	fi
}

@test "config: process: a program that does not exist is an error and never runs" {
	args /no/such/program
	oci_create
	if [ "$status" -eq 0 ]; then
		run oci start "$ID"
		[ "$status" -ne 0 ]
	fi
}

@test "config: process: env is the environment of the process" {
	cfg '.process.env = ["PATH=/bin", "OCI_A=one", "OCI_B=two words"]'
	args env
	oci_run
	[ "$status" -eq 0 ]
	echo "$output" | grep -qx 'OCI_A=one'
	echo "$output" | grep -qx 'OCI_B=two words'
	echo "$output" | grep -qx 'PATH=/bin'
}

# home_of: the HOME lines of the environment `env` printed ($output),
# "none" when there is none.
home_of() {
	local h
	h=$(echo "$output" | grep '^HOME=') || h=none
	echo "$h"
}

@test "runc convention: a process whose env has no HOME gets its uid's home from the container's /etc/passwd" {
	printf 'x:x:1001:1001::/home/x:/bin/sh\n' >>"$BUNDLE/rootfs/etc/passwd"
	cfg '.process.env = ["PATH=/bin"]'
	args env
	oci_run
	[ "$status" -eq 0 ]
	[ "$(home_of)" = HOME=/root ]
	cfg '.process.user = {"uid": 1001, "gid": 1001}'
	oci_run "$ID-x"
	[ "$status" -eq 0 ]
	[ "$(home_of)" = HOME=/home/x ]
}

@test "runc convention: a process whose uid has no line in /etc/passwd, or no /etc/passwd, gets HOME=/" {
	cfg '.process.env = ["PATH=/bin"] | .process.user = {"uid": 2000, "gid": 2000}'
	args env
	oci_run
	[ "$status" -eq 0 ]
	[ "$(home_of)" = HOME=/ ]
	rm "$BUNDLE/rootfs/etc/passwd"
	cfg '.process.user = {"uid": 0, "gid": 0}'
	oci_run "$ID-nopasswd"
	[ "$status" -eq 0 ]
	[ "$(home_of)" = HOME=/ ]
}

@test "runc convention: a HOME in process.env is kept as given, an empty one is the uid's home (once)" {
	cfg '.process.env = ["PATH=/bin", "HOME=/given"]'
	args env
	oci_run
	[ "$status" -eq 0 ]
	[ "$(home_of)" = HOME=/given ]
	cfg '.process.env = ["PATH=/bin", "HOME="]'
	oci_run "$ID-empty"
	[ "$status" -eq 0 ]
	[ "$(home_of)" = HOME=/root ]
}

@test "runc convention: exec of a process whose env has no HOME gets its uid's home, with args and with --process" {
	cfg '.process.env = ["PATH=/bin"]'
	args sleep 100
	run_detached
	# stdin a file of the test's: crun 1.8.1 chowns an exec's stdin to
	# its user, and the host's /dev/null is no test's to change.
	: >"$WORK/stdin"
	run oci exec "$ID" env <"$WORK/stdin"
	[ "$status" -eq 0 ]
	[ "$(home_of)" = HOME=/root ]
	run oci exec -u 1000:1000 "$ID" env <"$WORK/stdin"
	[ "$status" -eq 0 ]
	[ "$(home_of)" = HOME=/tmp ]
	jq '.process | .args = ["env"] | .user = {"uid": 1000, "gid": 1000}' \
		"$BUNDLE/config.json" >"$WORK/process.json"
	run oci exec --process "$WORK/process.json" "$ID" <"$WORK/stdin"
	[ "$status" -eq 0 ]
	[ "$(home_of)" = HOME=/tmp ]
}

@test "runc convention: the process's supplementary groups are additionalGids alone, never its user's groups in /etc/group" {
	printf 'wheel:x:10:user\nstaff:x:50:root,user\n' >>"$BUNDLE/rootfs/etc/group"
	cfg '.process.user = {"uid": 1000, "gid": 1000, "additionalGids": [2000]}'
	args checker ids
	oci_run
	[ "$status" -eq 0 ]
	[ "${output##*groups=}" = 2000 ]
	cfg '.process.user = {"uid": 0, "gid": 0}'
	oci_run "$ID-root"
	[ "$status" -eq 0 ]
	groups=${output##*groups=}
	[ -z "$groups" ] || [ "$groups" = 0 ]
}

@test "config: process: cwd is the working directory" {
	cfg '.process.cwd = "/etc"'
	args checker cwd
	oci_run
	[ "$status" -eq 0 ]
	[ "$output" = "cwd /etc" ]
}

@test "config: process: a relative cwd is refused" {
	cfg '.process.cwd = "etc"'
	args true
	oci_create
	if [ "$status" -eq 0 ]; then
		run oci start "$ID"
		[ "$status" -ne 0 ]
	fi
}

@test "config: process: user: uid, gid and additionalGids are the process's ids" {
	cfg '.process.user = {"uid": 1000, "gid": 1001, "additionalGids": [2000, 3000]}'
	args checker ids
	oci_run
	[ "$status" -eq 0 ]
	[[ "$output" == "uid=1000 gid=1001 euid=1000 egid=1001 groups="* ]]
	groups=${output##*groups=}
	[[ ",$groups," == *,2000,* ]]
	[[ ",$groups," == *,3000,* ]]
}

@test "config: process: user: without additionalGids the process has no supplementary group of the runtime's" {
	cfg '.process.user = {"uid": 1000, "gid": 1000}'
	args checker ids
	oci_run
	[ "$status" -eq 0 ]
	groups=${output##*groups=}
	[ -z "$groups" ] || [ "$groups" = 1000 ]
}

@test "config: process: user: umask is the process's umask" {
	cfg '.process.user.umask = 23'
	args checker umask
	oci_run
	[ "$status" -eq 0 ]
	[ "$output" = 0027 ]
}

@test "config: process: rlimits: soft and hard are the process's limits" {
	cfg '.process.rlimits = [{"type": "RLIMIT_NOFILE", "soft": 100, "hard": 200},
	                         {"type": "RLIMIT_CORE", "soft": 0, "hard": 0}]'
	sh_args 'checker rlimit RLIMIT_NOFILE; checker rlimit RLIMIT_CORE'
	oci_run
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "100 200" ]
	[ "${lines[1]}" = "0 0" ]
}

@test "config: process: rlimits: a type that maps to no kernel limit is an error" {
	cfg '.process.rlimits = [{"type": "RLIMIT_BOGUS", "soft": 1, "hard": 1}]'
	args true
	oci_create
	[ "$status" -ne 0 ]
}

@test "config: process: rlimits: a type given twice is an error" {
	cfg '.process.rlimits = [{"type": "RLIMIT_NOFILE", "soft": 100, "hard": 200},
	                         {"type": "RLIMIT_NOFILE", "soft": 50, "hard": 60}]'
	args true
	oci_create
	[ "$status" -ne 0 ]
}

@test "config: process: capabilities: each set is exactly what the config lists" {
	cfg '.process.capabilities = {"bounding": ["CAP_CHOWN", "CAP_KILL"],
	      "effective": ["CAP_KILL"], "permitted": ["CAP_KILL"]}'
	args checker caps
	oci_run
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = inh=0000000000000000 ]
	[ "${lines[1]}" = prm=0000000000000020 ]
	[ "${lines[2]}" = eff=0000000000000020 ]
	[ "${lines[3]}" = bnd=0000000000000021 ]
	[ "${lines[4]}" = amb=0000000000000000 ]
}

@test "config: process: capabilities: inheritable and ambient are given to a non-root user" {
	cfg '.process.user = {"uid": 1000, "gid": 1000}'
	cfg '.process.capabilities = {"bounding": ["CAP_NET_BIND_SERVICE"], "effective": ["CAP_NET_BIND_SERVICE"],
	      "permitted": ["CAP_NET_BIND_SERVICE"], "inheritable": ["CAP_NET_BIND_SERVICE"],
	      "ambient": ["CAP_NET_BIND_SERVICE"]}'
	args checker caps
	oci_run
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = inh=0000000000000400 ]
	[ "${lines[1]}" = prm=0000000000000400 ]
	[ "${lines[4]}" = amb=0000000000000400 ]
}

@test "config: process: capabilities: a capability not granted is not usable (no CAP_SYS_ADMIN, no sethostname)" {
	args checker try sethostname evil
	oci_run
	[ "$status" -eq 0 ]
	[ "$output" = "sethostname EPERM" ]
}

@test "config: process: noNewPrivileges true sets no_new_privs" {
	cfg '.process.noNewPrivileges = true'
	args checker nnp
	oci_run
	[ "$output" = 1 ]
}

@test "config: process: noNewPrivileges false leaves no_new_privs unset" {
	cfg '.process.noNewPrivileges = false'
	args checker nnp
	oci_run
	[ "$output" = 0 ]
}

@test "config: process: oomScoreAdj is set as the process's oom_score_adj" {
	cfg '.process.oomScoreAdj = 345'
	args cat /proc/self/oom_score_adj
	oci_run
	[ "$status" -eq 0 ]
	[ "$output" = 345 ]
}

@test "config: process: without oomScoreAdj the runtime's oom_score_adj is unchanged" {
	args cat /proc/self/oom_score_adj
	oci_run
	[ "$status" -eq 0 ]
	[ "$output" = "$(cat /proc/self/oom_score_adj)" ]
}

@test "config: process: terminal: the process's stdio is a pty passed over the console socket" {
	args checker isatty
	console_run
	[ "$output" = "1 1 1" ]
}

@test "config: process: consoleSize sets the terminal's size" {
	cfg '.process.consoleSize = {"height": 33, "width": 111}'
	args checker winsize
	console_run
	[ "$output" = "winsize 33 111" ]
}

@test "config: process: consoleSize is ignored when terminal is false" {
	cfg '.process.consoleSize = {"height": 33, "width": 111}'
	args checker isatty
	oci_run
	[ "$status" -eq 0 ]
	[ "$output" = "0 0 0" ]
}

@test "config: hostname: the container's hostname is hostname" {
	cfg '.hostname = "oci-host"'
	args hostname
	oci_run
	[ "$status" -eq 0 ]
	[ "$output" = oci-host ]
}

@test "config: domainname: the container's NIS domain name is domainname" {
	cfg '.domainname = "oci.example"'
	args cat /proc/sys/kernel/domainname
	oci_run
	[ "$status" -eq 0 ]
	[ "$output" = oci.example ]
}

@test "config: hooks: each point runs at its step (createRuntime, createContainer at create; startContainer, poststart at start; poststop at delete)" {
	make_hook
	add_hook createRuntime createRuntime
	add_hook createContainer createContainer
	add_hook startContainer startContainer
	add_hook poststart poststart
	add_hook poststop poststop
	args true
	must_create
	[ "$(hook_names)" = "createRuntime createContainer " ]
	must_start
	# poststart hooks run before start returns.
	[ "$(hook_names)" = "createRuntime createContainer startContainer poststart " ]
	wait_status_is stopped
	[ "$(hook_names)" = "createRuntime createContainer startContainer poststart " ]
	oci delete "$ID"
	[ "$(hook_names)" = "createRuntime createContainer startContainer poststart poststop " ]
}

@test "config: hooks: poststart runs once the process has been executed, after a slow startContainer hook" {
	slow_start_and_poststart_comm
	args sleep 60
	must_create
	must_start
	# The process was sleep when poststart ran, not cell still waiting
	# for its startContainer hook.
	[ "$(hook_names)" = "startContainer poststart " ]
	grep -qx "poststart sleep" "$HOOKLOG"
	oci delete -f "$ID"
}

@test "config: hooks: run's poststart runs once the process has been executed, after a slow startContainer hook" {
	slow_start_and_poststart_comm
	args sleep 3
	oci_run
	[ "$status" -eq 0 ]
	[ "$(hook_names)" = "startContainer poststart " ]
	grep -qx "poststart sleep" "$HOOKLOG"
}

@test "config: hooks: prestart hooks run at create, before the program" {
	make_hook
	add_hook prestart prestart
	add_hook poststart poststart
	args true
	must_create
	[ "$(hook_names)" = "prestart " ]
	must_start
	wait_status_is stopped
	[ "$(hook_names)" = "prestart poststart " ]
}

@test "config: hooks: hooks of one point are called in the listed order" {
	make_hook
	add_hook poststart first
	add_hook poststart second
	add_hook poststart third
	args true
	oci_run
	[ "$status" -eq 0 ]
	[ "$(hook_names)" = "first second third " ]
}

@test "config: hooks: the container's state is passed on stdin" {
	make_hook
	add_hook createRuntime createRuntime
	add_hook poststart poststart
	add_hook poststop poststop
	args sleep 100
	run_detached
	oci delete -f "$ID"
	for h in createRuntime poststart; do
		hook_state $h | jq -e --arg id "$ID" --arg b "$BUNDLE" --argjson pid "$PID" \
			'.id == $id and .bundle == $b and .pid == $pid and (.ociVersion | length > 0)'
	done
	hook_state poststop | jq -e --arg id "$ID" --arg b "$BUNDLE" '.id == $id and .bundle == $b'
}

@test "config: hooks: args and env are the hook's" {
	make_hook
	add_hook poststart withenv
	args true
	oci_run
	[ "$status" -eq 0 ]
	[ "$(awk '{ print $3 }' "$HOOKLOG")" = v-withenv ]
}

@test "config: hooks: createContainer and startContainer run in the container's namespaces, the others in the runtime's" {
	make_hook
	add_hook createRuntime createRuntime
	add_hook createContainer createContainer
	add_hook startContainer startContainer
	add_hook poststart poststart
	args true
	oci_run
	[ "$status" -eq 0 ]
	[ "$(awk '$1 == "createRuntime" { print $2 }' "$HOOKLOG")" = "$HOST_UTS" ]
	inside=$(awk '$1 == "createContainer" { print $2 }' "$HOOKLOG")
	[ -n "$inside" ] && [ "$inside" != "$HOST_UTS" ]
	[ "$(awk '$1 == "startContainer" { print $2 }' "$HOOKLOG")" = "$inside" ]
	[ "$(awk '$1 == "poststart" { print $2 }' "$HOOKLOG")" = "$HOST_UTS" ]
}

@test "config: hooks: a failing createRuntime hook fails create, the program never runs and the container is gone" {
	make_hook
	add_hook createRuntime failing 1
	sh_args "touch $WORK/hooks/ran"
	oci_create
	[ "$status" -ne 0 ]
	run oci state "$ID"
	[ "$status" -ne 0 ]
	[ ! -e "$WORK/hooks/ran" ]
}

@test "config: hooks: a failing prestart hook is an error and the program never runs" {
	make_hook
	add_hook prestart failing 1
	sh_args "touch $WORK/hooks/ran"
	oci_create
	if [ "$status" -eq 0 ]; then
		run oci start "$ID"
		[ "$status" -ne 0 ]
	fi
	[ ! -e "$WORK/hooks/ran" ]
	[ "$(state_field status 2>/dev/null)" != running ]
}

@test "config: hooks: a failing poststart hook is a warning: the remaining hooks run and the container runs" {
	make_hook
	add_hook poststart failing 1
	add_hook poststart after
	sh_args "touch $WORK/hooks/ran"
	oci_run
	[ "$status" -eq 0 ]
	[ "$(hook_names)" = "failing after " ]
	[ -e "$WORK/hooks/ran" ]
}

@test "config: hooks: a failing poststop hook is a warning: the remaining hooks run and delete succeeds" {
	make_hook
	add_hook poststop failing 1
	add_hook poststop after
	args true
	must_create
	must_start
	wait_status_is stopped
	run oci delete "$ID"
	[ "$status" -eq 0 ]
	[ "$(hook_names)" = "failing after " ]
	run oci state "$ID"
	[ "$status" -ne 0 ]
}

@test "config: hooks: a hook that outlives its timeout is ended and fails the operation" {
	make_hook
	add_hook createRuntime slow 0 60 2
	args true
	start=$SECONDS
	oci_create
	[ "$status" -ne 0 ]
	[ $((SECONDS - start)) -lt 30 ]
}

@test "config: annotations: unknown annotation keys are not an error" {
	cfg '.annotations = {"org.example.unknown": "value", "io.other/x": ""}'
	args true
	oci_run
	[ "$status" -eq 0 ]
}

@test "config: extensibility: unknown properties are not an error" {
	cfg '.unknownTopLevel = {"a": 1} | .process.unknownProcess = true | .linux.unknownLinux = [1]'
	args echo fine
	oci_run
	[ "$status" -eq 0 ]
	[ "$output" = fine ]
}

@test "config: valid values: an unsupported value (a namespace type) is an error" {
	cfg '.linux.namespaces += [{"type": "bogus"}]'
	args true
	oci_create
	[ "$status" -ne 0 ]
}
