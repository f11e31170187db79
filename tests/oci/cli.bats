#!/usr/bin/env bats
# cell-oci's command line, verb by verb: the happy paths runc's users and
# the engines take, and the errors (unknown and bad IDs, wrong states, bad
# flags: one line, status 1, nothing left).  The runtime spec's MUSTs are
# tests/oci/spec_*.bats'.

load cli_helpers

setup_file() { oci_setup_file; }
setup() { oci_setup; }
teardown() { oci_teardown; }

# --- the front door ---------------------------------------------------

@test "cell-oci --version names the runtime and the spec's version" {
	run "$OCI" --version
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "cell-oci version "* ]]
	[[ "$output" == *"spec: 1.2.0"* ]]
}

@test "cell oci VERB is the same front door as cell-oci VERB" {
	make_bundle -- true
	run "$OCI" --root "$ROOT" list -f json
	[ "$status" -eq 0 ]
	[ "$output" = "[]" ]
	run "$(dirname "$OCI")/cell" oci --root "$ROOT" list -f json
	[ "$status" -eq 0 ]
	[ "$output" = "[]" ]
	run "$(dirname "$OCI")/cell" oci --root "$ROOT" state nosuch
	[ "$status" -eq 1 ]
	[[ "$output" == *"does not exist"* ]]
}

@test "every verb has --help, and it exits 0" {
	local v
	for v in create start run state list ps kill delete exec pause resume update spec features; do
		run "$OCI" "$v" --help
		[ "$status" -eq 0 ] || { echo "$v: $output"; false; }
		[[ "${lines[0]}" == "Usage: cell-oci $v"* ]] || { echo "$v: $output"; false; }
	done
}

@test "an unknown verb is a one-line error with status 1" {
	run "$OCI" --root "$ROOT" frobnicate x
	[ "$status" -eq 1 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == "cell-oci: frobnicate: unknown command"* ]]
}

@test "an unknown or abbreviated option is a one-line error naming it" {
	run "$OCI" --root "$ROOT" delete --forc x
	[ "$status" -eq 1 ]
	[ "$output" = "cell-oci: delete: unknown option '--forc' (see cell-oci delete --help)" ]
	run "$OCI" --root "$ROOT" kill -z x
	[ "$status" -eq 1 ]
	[ "${#lines[@]}" -eq 1 ]
	run "$OCI" --roo "$ROOT" list
	[ "$status" -eq 1 ]
	[ "${#lines[@]}" -eq 1 ]
	[ ! -e "$ROOT" ]
}

@test "--systemd-cgroup is refused with a clear error" {
	run "$OCI" --root "$ROOT" --systemd-cgroup list
	[ "$status" -eq 1 ]
	[[ "$output" == *"--systemd-cgroup: not supported"* ]]
}

@test "--log-format json writes each error as one JSON object with level, msg and time" {
	run "$OCI" --root "$ROOT" --log "$BATS_TEST_TMPDIR/log" --log-format json state nosuch
	[ "$status" -eq 1 ]
	[ "$(wc -l <"$BATS_TEST_TMPDIR/log")" -eq 1 ]
	jq -e '.level == "error" and (.msg | test("container nosuch: container does not exist")) and
		(.time | test("^[0-9-]+T[0-9:]+Z$"))' "$BATS_TEST_TMPDIR/log"
}

@test "--log without a format writes logrus's text records, and --debug the command" {
	run "$OCI" --root "$ROOT" --log "$BATS_TEST_TMPDIR/log" --debug state nosuch
	[ "$status" -eq 1 ]
	grep -q '^time="[^"]*" level=debug msg=".*state nosuch"$' "$BATS_TEST_TMPDIR/log"
	grep -q '^time="[^"]*" level=error msg="state: container nosuch: container does not exist"$' \
		"$BATS_TEST_TMPDIR/log"
	run "$OCI" --root "$ROOT" --log-format yaml list
	[ "$status" -eq 1 ]
	[[ "$output" == *"expected text or json"* ]]
}

# --- container IDs -----------------------------------------------------

@test "an ID with a slash, dot-dot, a control character or 65 characters is refused" {
	make_bundle -- true
	local id long
	long=$(printf 'a%.0s' {1..65})
	for id in a/b .. . "a$(printf '\t')b" "$long" ""; do
		run "$OCI" --root "$ROOT" create --bundle "$BUNDLE" "$id"
		[ "$status" -eq 1 ] || { echo "[$id]: $output"; false; }
		[[ "$output" == *"invalid container ID format"* || "$output" == *"no container ID"* ]]
		run "$OCI" --root "$ROOT" state "$id"
		[ "$status" -eq 1 ]
	done
	[ -z "$(ls -A "$ROOT" 2>/dev/null)" ]
}

@test "podman's 64-hex ID is a valid container ID" {
	local id
	id=$(printf '%064x' 3735928559)
	make_bundle -- sleep 100
	oci create --bundle "$BUNDLE" "$id" </dev/null
	[ "$(status_of "$id")" = created ]
	oci delete "$id"
}

@test "an unknown container does not exist, for every verb that takes one" {
	local v
	for v in start state kill delete pause resume ps update; do
		run "$OCI" --root "$ROOT" "$v" nosuch
		[ "$status" -eq 1 ] || { echo "$v: $output"; false; }
		[ "$output" = "cell-oci: $v: container nosuch: container does not exist" ]
	done
	run "$OCI" --root "$ROOT" exec nosuch true
	[ "$status" -eq 1 ]
	[[ "$output" == *"container does not exist"* ]]
	[ ! -e "$ROOT" ] || [ -z "$(ls -A "$ROOT")" ]
}

# --- create, start, state, list ----------------------------------------

@test "create leaves the process waiting, start runs it, it stops when it ends" {
	make_bundle -- sh -c 'echo started >/tmp/x; read line </dev/zero; sleep 1'
	make_bundle -- sh -c 'sleep 0.5'
	oci create --bundle "$BUNDLE" --pid-file "$BATS_TEST_TMPDIR/pid" c1 </dev/null
	[ "$(status_of c1)" = created ]
	pid=$(oci state c1 | jq .pid)
	[ "$pid" -gt 0 ]
	[ "$(cat "$BATS_TEST_TMPDIR/pid")" = "$pid" ]
	oci start c1
	run status_of c1
	[[ "$output" == running || "$output" == stopped ]]
	wait_status c1 stopped
	[ "$(oci state c1 | jq .pid)" -eq 0 ]
	oci delete c1
	run "$OCI" --root "$ROOT" state c1
	[ "$status" -eq 1 ]
}

@test "state prints the OCI fields and runc's, indented" {
	make_bundle -- sleep 100
	edit_config '.annotations = {"org.example.key": "value"}'
	oci create --bundle "$BUNDLE" c1 </dev/null
	run oci state c1
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "{" ]
	[[ "${lines[1]}" == '  "ociVersion": "1.2.0",' ]]
	echo "$output" | jq -e --arg b "$BUNDLE" --arg r "$ROOTFS" '
		.id == "c1" and .status == "created" and (.pid > 0) and .bundle == $b and
		.rootfs == $r and .owner == "" and .annotations["org.example.key"] == "value" and
		(.created | test("^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{9}Z$"))'
	oci delete c1
}

@test "list prints a table, a JSON array, or the IDs" {
	make_bundle -- sleep 100
	oci create --bundle "$BUNDLE" c1 </dev/null
	oci create --bundle "$BUNDLE" c2 </dev/null
	run oci list
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" =~ ^ID\ +PID\ +STATUS\ +BUNDLE\ +CREATED\ +OWNER$ ]]
	[[ "${lines[1]}" =~ ^c1\ +[0-9]+\ +created\ +$BUNDLE\ +[0-9T:.-]+Z\ +root$ ]]
	[[ "${lines[2]}" == c2\ * ]]
	run oci list --format json
	echo "$output" | jq -e 'length == 2 and .[0].id == "c1" and .[1].status == "created"'
	run oci list -q
	[ "$output" = "$(printf 'c1\nc2')" ]
	oci delete c1
	oci delete c2
	run oci list -f json
	[ "$output" = "[]" ]
}

@test "a name in use cannot be created again" {
	make_bundle -- sleep 100
	oci create --bundle "$BUNDLE" c1 </dev/null
	run oci create --bundle "$BUNDLE" c1 </dev/null
	[ "$status" -eq 1 ]
	[ "${#lines[@]}" -eq 1 ]
	[ "$(status_of c1)" = created ]
	oci delete c1
}

@test "a setting refused when the container is made is named as the config says it, and nothing is left" {
	local field
	# Both are found after the config was read: the root by cell's
	# check, the directory by the container's first process.
	for field in root.path process.cwd; do
		make_bundle -- true
		edit_config --arg f "$field" 'setpath($f | split("."); "/nonexistent-cell-oci")'
		run oci run --bundle "$BUNDLE" c1
		[ "$status" -eq 1 ]
		[ "$output" = "cell-oci: run: container c1: $field: No such file or directory" ]
		[ -z "$(oci list -q)" ]
	done
}

@test "create without a config.json, or with a broken one, leaves nothing" {
	run oci create --bundle "$BUNDLE" c1
	[ "$status" -eq 1 ]
	[[ "$output" == "cell-oci: create: container c1: config.json"* ]]
	echo '{"ociVersion": "1.2.0",' >"$BUNDLE/config.json"
	run oci create --bundle "$BUNDLE" c1
	[ "$status" -eq 1 ]
	[ "${#lines[@]}" -eq 1 ]
	[ -z "$(ls -A "$ROOT" 2>/dev/null)" ]
}

@test "create's --no-pivot and a --preserve-fds that is no count are refused; --no-new-keyring is accepted" {
	make_bundle -- sleep 100
	run oci create --no-pivot --bundle "$BUNDLE" c1
	[ "$status" -eq 1 ]
	[[ "$output" == *"--no-pivot: not supported"* ]]
	run oci create --preserve-fds x1 --bundle "$BUNDLE" c1
	[ "$status" -eq 1 ]
	[[ "$output" == *"--preserve-fds x1: must be a number from 0 to 1024"* ]]
	run oci state c1
	[ "$status" -eq 1 ]
	oci create --no-new-keyring --preserve-fds 0 --bundle "$BUNDLE" c1 </dev/null
	oci delete c1
}

@test "a terminal needs a console socket when detached" {
	make_bundle -- sleep 100
	edit_config '.process.terminal = true'
	run oci create --bundle "$BUNDLE" c1
	[ "$status" -eq 1 ]
	[[ "$output" == *"--console-socket"* ]]
	[ -z "$(ls -A "$ROOT" 2>/dev/null)" ]
}

@test "--console-socket receives the pty's master over SCM_RIGHTS" {
	make_bundle -- sh -c 'tty; sleep 100'
	edit_config '.process.terminal = true'
	python3 - "$BATS_TEST_TMPDIR/console.sock" >"$BATS_TEST_TMPDIR/console.out" <<'PY' &
import array, os, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(sys.argv[1]); s.listen(1); s.settimeout(20)
c, _ = s.accept()
fds = array.array("i")
msg, anc, _, _ = c.recvmsg(4096, socket.CMSG_SPACE(4))
for level, kind, data in anc:
    fds.frombytes(data[:4])
print("fd" if len(fds) == 1 else "none", flush=True)
data = b""
import errno, time
deadline = time.time() + 20
while b"\n" not in data and time.time() < deadline:
    try:
        chunk = os.read(fds[0], 100)
    except OSError as e:
        # EIO until the container opens its side (at start).
        if e.errno != errno.EIO: raise
        time.sleep(0.05)
        continue
    if not chunk: break
    data += chunk
print(data.decode(errors="replace").strip(), flush=True)
PY
	PIDS+=($!)
	local i
	for ((i = 0; i < 100; i++)); do
		[ -S "$BATS_TEST_TMPDIR/console.sock" ] && break
		sleep 0.1
	done
	oci create --bundle "$BUNDLE" --console-socket "$BATS_TEST_TMPDIR/console.sock" c1
	oci start c1
	wait "${PIDS[0]}"
	run cat "$BATS_TEST_TMPDIR/console.out"
	[ "${lines[0]}" = fd ]
	[[ "${lines[1]}" == /dev/pts/* || "${lines[1]}" == /dev/console ]]
	oci delete -f c1
}

# --- start, kill, delete: the lifecycle's errors ------------------------

@test "start of a running or a stopped container is an error" {
	make_bundle -- sleep 100
	oci create --bundle "$BUNDLE" c1 </dev/null
	oci start c1
	run oci start c1
	[ "$status" -eq 1 ]
	[ "$output" = "cell-oci: start: container c1: cannot start an already running container" ]
	oci kill c1 KILL
	wait_status c1 stopped
	run oci start c1
	[ "$status" -eq 1 ]
	[ "$output" = "cell-oci: start: container c1: cannot start a container that has stopped" ]
	oci delete c1
}

@test "kill sends SIGTERM by default; names with and without SIG and numbers are signals" {
	make_bundle -- sh -c 'trap "exit 7" USR1; trap "exit 9" TERM; while :; do sleep 0.1; done'
	local sig
	for sig in "" USR1 SIGUSR1 sigusr1 10; do
		oci create --bundle "$BUNDLE" c1 </dev/null
		oci start c1
		sleep 0.3 # the shell sets its traps
		oci kill c1 $sig
		wait_status c1 stopped
		oci delete c1
	done
	run oci kill c1 NOSUCH
	[ "$status" -eq 1 ]
}

@test "kill of a stopped container says container not running" {
	make_bundle -- true
	oci create --bundle "$BUNDLE" c1 </dev/null
	oci start c1
	wait_status c1 stopped
	run oci kill c1 KILL
	[ "$status" -eq 1 ]
	[ "$output" = "cell-oci: kill: container c1: container not running" ]
	run oci kill c1 FOO
	[ "$status" -eq 1 ]
	[[ "$output" == *"FOO: no such signal"* ]]
	oci delete c1
}

@test "kill --all reaches every process of the container" {
	make_bundle -- sh -c 'sleep 100 & sleep 100 & wait'
	oci create --bundle "$BUNDLE" c1 </dev/null
	oci start c1
	local i
	for ((i = 0; i < 50; i++)); do
		[ "$(oci ps -f json c1 | jq length)" -ge 3 ] && break
		sleep 0.1
	done
	oci kill --all c1 KILL
	wait_status c1 stopped
	oci delete c1
}

@test "delete of a running container needs -f; -f kills and removes it" {
	make_bundle -- sleep 100
	oci create --bundle "$BUNDLE" c1 </dev/null
	oci start c1
	pid=$(oci state c1 | jq .pid)
	run oci delete c1
	[ "$status" -eq 1 ]
	[ "$output" = "cell-oci: delete: container c1: cannot delete container c1 that is not stopped: running" ]
	[ "$(status_of c1)" = running ]
	oci delete -f c1
	run oci state c1
	[ "$status" -eq 1 ]
	gone "$pid"
}

@test "delete of a created container kills its waiting process" {
	make_bundle -- sleep 100
	oci create --bundle "$BUNDLE" c1 </dev/null
	pid=$(oci state c1 | jq .pid)
	oci delete c1
	gone "$pid"
	[ -z "$(ls -A "$ROOT")" ]
}

# --- run ---------------------------------------------------------------

@test "run in the foreground exits with the container's status and leaves no state" {
	make_bundle -- sh -c 'echo out; echo err >&2; exit 3'
	run oci run --bundle "$BUNDLE" c1
	[ "$status" -eq 3 ]
	[[ "$output" == *out* && "$output" == *err* ]]
	[ -z "$(ls -A "$ROOT")" ]
}

@test "run of a missing command fails with runc's words and status 1" {
	make_bundle -- nosuch
	run oci run --bundle "$BUNDLE" c1
	[ "$status" -eq 1 ]
	[[ "$output" == *"executable file not found in \$PATH"* ]]
	make_bundle -- /etc
	run oci run --bundle "$BUNDLE" c1
	[ "$status" -eq 1 ]
	[[ "$output" == *"permission denied"* ]]
	[ -z "$(ls -A "$ROOT")" ]
}

@test "run -d returns with the container running" {
	make_bundle -- sleep 100
	oci run -d --bundle "$BUNDLE" c1 </dev/null
	[ "$(status_of c1)" = running ]
	oci delete -f c1
}

# --- exec --------------------------------------------------------------

@test "exec runs a command in the container and exits with its status" {
	make_bundle -- sleep 100
	oci run -d --bundle "$BUNDLE" c1 </dev/null
	run oci exec c1 sh -c 'hostname; readlink /proc/1/exe >/dev/null 2>&1; exit 4'
	[ "$status" -eq 4 ]
	[ "$(oci exec c1 cat /proc/1/cmdline | tr '\0' ' ')" = "sleep 100 " ]
	oci delete -f c1
}

@test "exec takes -e, --cwd and -u" {
	make_bundle -- sleep 100
	oci run -d --bundle "$BUNDLE" c1 </dev/null
	run oci exec -e FOO=bar --cwd /tmp -u 1000:1001 c1 sh -c 'echo $FOO $(pwd) $(id -u) $(id -g)'
	[ "$status" -eq 0 ]
	[ "$output" = "bar /tmp 1000 1001" ]
	oci delete -f c1
}

@test "exec of a missing command says so in runc's words" {
	make_bundle -- sleep 100
	oci run -d --bundle "$BUNDLE" c1 </dev/null
	run oci exec c1 nosuch
	[ "$status" -eq 1 ]
	[[ "$output" == *"executable file not found in \$PATH"* ]]
	run oci exec c1
	[ "$status" -eq 1 ]
	[ "${#lines[@]}" -eq 1 ]
	oci delete -f c1
}

@test "exec -d returns at once and --pid-file names the running process" {
	make_bundle -- sleep 100
	oci run -d --bundle "$BUNDLE" c1 </dev/null
	oci exec -d --pid-file "$BATS_TEST_TMPDIR/epid" c1 sleep 77
	pid=$(cat "$BATS_TEST_TMPDIR/epid")
	[ "$(tr '\0' ' ' </proc/"$pid"/cmdline)" = "sleep 77 " ]
	oci delete -f c1
	gone "$pid"
}

@test "exec --process FILE runs that process" {
	make_bundle -- sleep 100
	oci run -d --bundle "$BUNDLE" c1 </dev/null
	jq '.process | .args = ["sh", "-c", "echo $X"] | .env = ["X=from-file", "PATH=/bin"]' \
		"$BUNDLE/config.json" >"$BATS_TEST_TMPDIR/process.json"
	run oci exec --process "$BATS_TEST_TMPDIR/process.json" c1
	[ "$status" -eq 0 ]
	[ "$output" = from-file ]
	oci delete -f c1
}

@test "exec in a stopped container is an error" {
	make_bundle -- true
	oci run -d --bundle "$BUNDLE" c1 </dev/null
	wait_status c1 stopped
	run oci exec c1 true
	[ "$status" -eq 1 ]
	[[ "$output" == *"cannot exec in a stopped container"* ]]
	oci delete c1
}

# --- ps, pause, resume -------------------------------------------------

@test "ps --format json lists the host pids of the container's processes" {
	make_bundle -- sh -c 'sleep 100 & wait'
	oci run -d --bundle "$BUNDLE" c1 </dev/null
	pid=$(oci state c1 | jq .pid)
	local i
	for ((i = 0; i < 50; i++)); do
		[ "$(oci ps -f json c1 | jq length)" -eq 2 ] && break
		sleep 0.1
	done
	oci ps --format json c1 | jq -e --argjson p "$pid" 'length == 2 and index($p) != null'
	run oci ps c1
	[[ "${lines[0]}" == *PID* ]]
	[ "${#lines[@]}" -eq 3 ]
	[[ "$output" == *"sleep 100"* ]]
	oci delete -f c1
}

@test "pause freezes a running container, resume thaws it" {
	make_bundle -- sleep 100
	oci run -d --bundle "$BUNDLE" c1 </dev/null
	oci pause c1
	[ "$(status_of c1)" = paused ]
	run oci pause c1
	[ "$status" -eq 1 ]
	oci resume c1
	[ "$(status_of c1)" = running ]
	run oci resume c1
	[ "$status" -eq 1 ]
	[[ "$output" == *"container not paused"* ]]
	oci delete -f c1
}

# --- spec, features, update, hooks --------------------------------------

@test "features prints valid JSON naming the versions and hooks" {
	run "$OCI" features
	[ "$status" -eq 0 ]
	echo "$output" | jq -e '.ociVersionMin and .ociVersionMax and (.hooks | index("poststop"))'
}

@test "spec writes a config.json that runs once its args are changed, and never over one" {
	(cd "$BUNDLE" && "$OCI" spec)
	jq -e '.ociVersion and .process.args' "$BUNDLE/config.json"
	run "$OCI" spec --bundle "$BUNDLE"
	[ "$status" -eq 1 ]
	[[ "$output" == *"exists"* ]]
	edit_config --arg r "$ROOTFS" '.root.path = $r | .process.terminal = false |
		.process.args = ["sh", "-c", "exit 5"]'
	run oci run --bundle "$BUNDLE" c1
	[ "$status" -eq 5 ]
}

@test "update --pids-limit writes the container's pids limit" {
	make_bundle -- sleep 100
	oci run -d --bundle "$BUNDLE" c1 </dev/null
	oci update --pids-limit 42 c1
	run oci exec c1 cat /sys/fs/cgroup/pids/pids.max /sys/fs/cgroup/pids.max
	[[ "$output" == *42* ]]
	echo '{"pids": {"limit": 43}}' | oci update -r - c1
	run oci exec c1 cat /sys/fs/cgroup/pids/pids.max /sys/fs/cgroup/pids.max
	[[ "$output" == *43* ]]
	run oci update --memory lots c1
	[ "$status" -eq 1 ]
	[ "${#lines[@]}" -eq 1 ]
	oci delete -f c1
}

@test "poststart and poststop hooks run with the state on their stdin" {
	make_bundle -- sleep 100
	local log=$BATS_TEST_TMPDIR/hooks
	edit_config --arg log "$log" '.hooks = {
		"poststart": [{"path": "/bin/sh", "args": ["sh", "-c", "cat >> \($log).poststart"]}],
		"poststop": [{"path": "/bin/sh", "args": ["sh", "-c", "cat >> \($log).poststop"]}]}'
	oci create --bundle "$BUNDLE" c1 </dev/null
	oci start c1
	jq -e '.id == "c1" and .status == "running" and (.pid > 0)' "$log.poststart"
	[ ! -e "$log.poststop" ]
	oci delete -f c1
	jq -e '.id == "c1" and .status == "stopped"' "$log.poststop"
}

@test "a failing poststop hook is a warning: the delete succeeds" {
	make_bundle -- true
	edit_config '.hooks = {"poststop": [{"path": "/bin/false"}]}'
	oci run -d --bundle "$BUNDLE" c1 </dev/null
	wait_status c1 stopped
	run oci delete c1
	[ "$status" -eq 0 ]
	[ "$output" = "cell-oci: warning: delete: poststop: hook /bin/false: exit status 1" ]
}
