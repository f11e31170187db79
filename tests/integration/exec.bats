#!/usr/bin/env bats
# cell exec: a command run inside a running jail, in its namespaces and
# cgroups, held to its policy and limits.
load helpers

DEFAULT_PATH=PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

# start NAME ARG...: a detached jail NAME (started with ARG...) whose
# pid 1 records what it sees in $WORK (/work inside), then sleeps; its
# host pid in $PID1.
start() {
	local name=$1
	shift
	cell run -d --name "$name" --bind "$WORK:/work" "$@" -- sh -c '
for ns in cgroup ipc mnt net pid uts; do
	echo "$ns $(readlink /proc/self/ns/$ns)"
done >/work/ns
cat /proc/self/cgroup >/work/cgroup
echo jail >/tmp/mark
touch /work/ready
exec sleep 100' >/dev/null
	wait_for "$WORK/ready"
	PID1=$(jq -r .pid "$STATE/$name/state.json")
}

# exec_bg OUT NAME CMD...: `cell exec NAME CMD...` in the background,
# output to OUT; its pid in $BG_PID.
exec_bg() {
	local out=$1
	shift
	"$CELL" --root "$STATE" exec "$@" >"$out" 2>&1 3>&- &
	BG_PID=$!
	BG_PIDS+=("$BG_PID")
}

# exec_pid PID: the host pid of the `sleep` that `cell exec` (PID) runs
# (waited for, up to 5 s).
exec_pid() {
	local i p
	for ((i = 0; i < 50; i++)); do
		for p in $(descendants "$1"); do
			if [ "$(cat "/proc/$p/comm" 2>/dev/null)" = sleep ]; then
				echo "$p"
				return 0
			fi
		done
		sleep 0.1
	done
	return 1
}

# status_field PID KEY: KEY's value in /proc/PID/status.
status_field() {
	awk -v k="$2:" '$1 == k { print $2 }' "/proc/$1/status"
}

# --- namespaces --------------------------------------------------------

@test "exec runs with the jail's hostname" {
	start web --hostname box
	run cell exec web uname -n
	[ "$status" -eq 0 ]
	[ "$output" = box ]
}

@test "exec runs in the jail's pid namespace, not as its pid 1" {
	start pids
	run cell exec pids sh -c 'echo $$; ls /proc | grep -E "^[0-9]+$" | sort -n'
	[ "$status" -eq 0 ]
	[ "${lines[0]}" -ne 1 ]
	# The jail's pid 1 is there, and nothing of the host's.
	[ "${lines[1]}" = 1 ]
	[ "${#lines[@]}" -lt 8 ]
	# Its pid 1: cell's reaper, the default of a detached jail.
	[ "$(cell exec pids cat /proc/1/comm)" = cell-init ]
}

@test "exec sees the jail's mounts: a file its pid 1 wrote in its /tmp" {
	start mnt
	run cell exec mnt cat /tmp/mark
	[ "$status" -eq 0 ]
	[ "$output" = jail ]
	[ ! -e /tmp/mark ] || [ "$(cat /tmp/mark)" != jail ]
}

@test "exec in a --rootfs jail runs in that root" {
	make_rootfs "$WORK/root"
	cell run -d --name rooted --rootfs "$WORK/root" -- sleep 100 >/dev/null
	run cell exec rooted readlink /bin/sh
	[ "$status" -eq 0 ]
	[ "$output" = busybox ]
	run cell exec rooted ls /
	[ "$status" -eq 0 ]
	[[ " $(echo $output) " == *" bin "* ]]
	[[ " $(echo $output) " != *" usr "* ]]
	[[ " $(echo $output) " != *" etc "* ]]
}

@test "exec joins each of the jail's namespaces" {
	start ns
	run cell exec ns sh -c 'for ns in cgroup ipc mnt net pid uts; do
	echo "$ns $(readlink /proc/self/ns/$ns)"
done'
	[ "$status" -eq 0 ]
	[ "$output" = "$(cat "$WORK/ns")" ]
	# And none of them is the host's.
	for ns in cgroup ipc mnt net pid uts; do
		! grep -qx "$ns $(readlink /proc/self/ns/$ns)" "$WORK/ns"
	done
}

@test "exec into a --allow set_hostname jail joins its user namespace and may set its hostname" {
	start own --allow set_hostname --hostname before
	host=$(hostname)
	run cell exec own sh -c 'readlink /proc/self/ns/user; hostname after && hostname'
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "$(readlink "/proc/$PID1/ns/user")" ]
	[ "${lines[0]}" != "$(readlink /proc/self/ns/user)" ]
	[ "${lines[1]}" = after ]
	# in the jail's UTS namespace: its pid 1 sees the change, the host not
	[ "$(nsenter -t "$PID1" -u hostname)" = after ]
	[ "$(hostname)" = "$host" ]
}

@test "exec's process is in the jail's namespaces as seen from the host" {
	start hostns
	exec_bg "$WORK/out" hostns sleep 30
	pid=$(exec_pid "$BG_PID")
	for ns in cgroup ipc mnt net pid uts; do
		[ "$(readlink "/proc/$pid/ns/$ns")" = "$(readlink "/proc/$PID1/ns/$ns")" ]
	done
	[ "$(readlink "/proc/$pid/root")" = "$(readlink "/proc/$PID1/root")" ]
}

@test "exec joins the jail's cgroups" {
	start cg --nrtask 20 --memory 64M --cpus 0.5
	run cell exec cg cat /proc/self/cgroup
	[ "$status" -eq 0 ]
	[ "$output" = "$(cat "$WORK/cgroup")" ]
	# From the host: the same cgroups as pid 1, the jail's own.
	exec_bg "$WORK/out" cg sleep 30
	pid=$(exec_pid "$BG_PID")
	[ "$(cat "/proc/$pid/cgroup")" = "$(cat "/proc/$PID1/cgroup")" ]
	cgdir=$(jq -r .cgroup.pids "$STATE/cg/state.json")
	grep -qx "$pid" "$cgdir/cgroup.procs"
}

@test "exec runs in a foreground jail too" {
	cell_bg "$WORK/fg.out" --name fg --hostname fgbox -- sleep 30
	wait_running "fg"
	run cell exec fg uname -n
	[ "$status" -eq 0 ]
	[ "$output" = fgbox ]
}

# --- policy and limits -------------------------------------------------

@test "exec is held to the jail's policy: no_new_privs, seccomp, bounding set" {
	start pol
	run cell exec pol grep -E '^(NoNewPrivs|Seccomp|CapBnd|CapEff):' /proc/self/status
	[ "$status" -eq 0 ]
	[[ "$output" == *"NoNewPrivs:"$'\t'"1"* ]]
	[[ "$output" == *"Seccomp:"$'\t'"2"* ]]
	[[ "$output" == *"CapBnd:"$'\t'"$(status_field "$PID1" CapBnd)"* ]]
	[[ "$output" == *"CapEff:"$'\t'"$(status_field "$PID1" CapEff)"* ]]
}

@test "a jail's --allow shows in exec's bounding set too" {
	start allowed --allow chown
	exec_bg "$WORK/out" allowed sleep 30
	pid=$(exec_pid "$BG_PID")
	[ "$(status_field "$pid" CapBnd)" = "$(status_field "$PID1" CapBnd)" ]
	[ "$(status_field "$pid" CapBnd)" != "$(status_field $$ CapBnd)" ]
}

@test "exec into a --no-policy jail is as unconfined as the jail" {
	start free --no-policy
	run cell exec free grep -E '^(NoNewPrivs|Seccomp):' /proc/self/status
	[ "$status" -eq 0 ]
	[ "$output" = $'NoNewPrivs:\t0\nSeccomp:\t0' ]
}

@test "exec into a --net host jail is in the host's network namespace" {
	start hostnet --net host
	run cell exec hostnet readlink /proc/self/ns/net
	[ "$output" = "$(readlink /proc/self/ns/net)" ]
}

@test "exec in a --net host jail cannot reach the host's abstract unix sockets" {
	sock="cell-bats-abstract-$$"
	python3 -c '
import socket, sys, time
s = socket.socket(socket.AF_UNIX)
s.bind("\0" + sys.argv[1])
s.listen()
open(sys.argv[2], "w").close()
time.sleep(30)' "$sock" "$WORK/listening" 3>&- &
	BG_PIDS+=("$!")
	wait_for "$WORK/listening"
	connect='
import socket, sys
s = socket.socket(socket.AF_UNIX)
try:
    s.connect("\0" + sys.argv[1])
    print("connected")
except OSError as e:
    print(e.strerror)'
	# The host itself can, so the refusal is the policy's.
	[ "$(python3 -c "$connect" "$sock")" = connected ]
	start abstract --net host
	run cell exec abstract python3 -c "$connect" "$sock"
	[ "$status" -eq 0 ]
	[ "$output" = "Operation not permitted" ]
}

@test "exec can signal the jail's own processes, pid 1 included" {
	# A Landlock domain of exec's own would refuse this (EPERM): exec
	# relies on the pid namespace for signals instead.
	cell run -d --name sig --bind "$WORK:/work" -- sh -c \
		'trap "touch /work/got; exit 0" HUP; touch /work/ready
		while :; do sleep 0.1; done' >/dev/null
	wait_for "$WORK/ready"
	run cell exec sig kill -HUP 1
	[ "$status" -eq 0 ]
	wait_for "$WORK/got"
}

@test "exec cannot signal a process outside the jail" {
	sleep 30 3>&- &
	outside=$!
	BG_PIDS+=("$outside")
	start sigout
	run cell exec -e HOST_UTS="$HOST_UTS" -e HOST_PID="$HOST_PID" sigout sh -c \
		"$JAIL_GUARD_SH"'
kill -TERM '"$outside"
	[ "$status" -ne 0 ]
	[ "$status" -ne 99 ]
	[[ "$output" == *"No such process"* ]]
	kill -0 "$outside"
}

@test "a mount inside exec fails with EPERM" {
	start nomount
	run cell exec nomount python3 -c '
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
r = libc.mount(b"x", b"/tmp", b"tmpfs", 0, None)
print(r, os.strerror(ctypes.get_errno()))'
	[ "$status" -eq 0 ]
	[ "$output" = "-1 Operation not permitted" ]
}

@test "a fork bomb inside exec is held by the jail's --nrtask" {
	start bomb --nrtask 20
	cgdir=$(jq -r .cgroup.pids "$STATE/bomb/state.json")
	run cell exec bomb python3 -c '
import errno, os, sys, time
for i in range(200):
    try:
        if os.fork() == 0:
            time.sleep(2)
            os._exit(0)
    except OSError as e:
        print(errno.errorcode[e.errno], flush=True)
        print(open("/sys/fs/cgroup/pids/pids.current").read().strip(), flush=True)
        break
'
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = EAGAIN ]
	[ "${lines[1]}" = 20 ]
	[ "$(cat "$cgdir/pids.max")" = 20 ]
}

@test "exec has the jail's rlimits and nice value" {
	start lim --nofile 100 --nice 5
	run cell exec lim cat /proc/self/limits
	[ "$status" -eq 0 ]
	[[ "$output" =~ "Max open files"\ +100\ +100 ]]
	run cell exec lim sh -c 'cut -d" " -f19 /proc/self/stat'
	[ "$output" = 5 ]
}

# --- status ------------------------------------------------------------

@test "exec exits with its command's status" {
	start st
	run cell exec st sh -c 'exit 7'
	[ "$status" -eq 7 ]
	run cell exec st true
	[ "$status" -eq 0 ]
	run cell exec st sh -c 'kill -KILL $$'
	[ "$status" -eq 137 ]
}

@test "exec of a missing command exits 127, of a non-executable one 126" {
	start bad
	run -127 cell exec bad /no/such/command
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == "cell: exec: "*"/no/such/command"* ]]
	run -126 cell exec bad /etc/passwd
	[ "${#lines[@]}" -eq 1 ]
}

@test "exec into a stopped jail is a one-line error with exit 125" {
	cell run -d --name ended -- true >/dev/null
	for _ in $(seq 50); do
		[ "$(cell ls -q)" = "" ] && break
		sleep 0.1
	done
	run cell exec ended true
	[ "$status" -eq 125 ]
	[ "${#lines[@]}" -eq 1 ]
	[ "$output" = "cell: exec: jail ended: is not running" ]
}

@test "exec into an unknown jail is a one-line error with exit 125" {
	run cell exec nosuch true
	[ "$status" -eq 125 ]
	[ "${#lines[@]}" -eq 1 ]
	[ "$output" = "cell: exec: jail nosuch: no such jail" ]
	run cell exec
	[ "$status" -eq 125 ]
	[ "${#lines[@]}" -eq 1 ]
}

# --- process options ---------------------------------------------------

@test "exec --user runs as that uid and gid" {
	start users
	run cell exec --user 1000 users id -u
	[ "$status" -eq 0 ]
	[ "$output" = 1000 ]
	run cell exec -u 2000:3000 users sh -c 'echo $(id -u) $(id -g)'
	[ "$output" = "2000 3000" ]
}

@test "exec --user drops root's groups and capabilities" {
	start nonroot
	run cell exec -u 1000 nonroot id -G
	[ "$status" -eq 0 ]
	[ "$output" = 1000 ]
	run cell exec -u 1000 nonroot grep -E '^Cap(Inh|Prm|Eff|Amb):' /proc/self/status
	[ "$status" -eq 0 ]
	[ "$(printf '%s\n' "$output" | awk '{ print $2 }' | sort -u)" = 0000000000000000 ]
}

@test "exec gets no file descriptor of cell's beyond stdin, stdout and stderr" {
	start fds
	run cell exec fds python3 -c 'import os; print(" ".join(sorted(os.listdir("/proc/self/fd"))))'
	[ "$status" -eq 0 ]
	# 3 is listdir's own.
	[ "$output" = "0 1 2 3" ]
}

@test "exec -w of a missing directory is a one-line error with exit 125" {
	start nowd
	run cell exec -w /no/such/dir nowd pwd
	[ "$status" -eq 125 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == "cell: exec: "*"/no/such/dir"* ]]
}

@test "exec --user takes the group from the jail's /etc/passwd" {
	make_rootfs "$WORK/root"
	mkdir "$WORK/root/etc"
	echo 'alice:x:1000:500::/:/bin/sh' >"$WORK/root/etc/passwd"
	cell run -d --name pw --rootfs "$WORK/root" -- sleep 100 >/dev/null
	run cell exec -u 1000 pw id -g
	[ "$status" -eq 0 ]
	[ "$output" = 500 ]
	# A uid it does not list gets its own number as the group.
	run cell exec -u 1234 pw id -g
	[ "$output" = 1234 ]
}

@test "exec runs as the jail's user by default" {
	# (not start: its pid 1 could not write in $WORK)
	cell run -d --name asuser --user 1000 -- sleep 100 >/dev/null
	run cell exec asuser id -u
	[ "$status" -eq 0 ]
	[ "$output" = 1000 ]
}

@test "exec -e sets a variable over the jail's environment, not cell's" {
	cell run -d --name envs -e FOO=jail -e KEEP=1 -- sleep 100 >/dev/null
	run cell exec -e FOO=bar envs sh -c 'echo "$FOO $KEEP"'
	[ "$output" = "bar 1" ]
	FROM_CELL=copied run cell exec -e FROM_CELL envs sh -c 'echo "$FROM_CELL"'
	[ "$output" = copied ]
	CELL_LEAK=x run cell exec -T envs env
	[ "$status" -eq 0 ]
	[ "$(printf '%s\n' "$output" | sort)" = "$(printf '%s\n' "$DEFAULT_PATH" HOSTNAME=envs \
		container=cell FOO=jail KEEP=1 HOME=/root | sort)" ]
}

@test "exec takes the jail's working directory and user unless -w and -u say otherwise" {
	cell run -d --name inherit -w /tmp -u nobody -- sleep 100 >/dev/null
	run cell exec inherit sh -c 'echo "$(pwd) $(id -un) $HOME"'
	[ "$status" -eq 0 ]
	[ "$output" = "/tmp nobody /nonexistent" ]
	run cell exec -w / -u root inherit sh -c 'echo "$(pwd) $(id -un) $HOME"'
	[ "$output" = "/ root /root" ]
}

@test "exec -w sets the working directory, / by default" {
	start wd
	run cell exec -w /tmp wd pwd
	[ "$output" = /tmp ]
	run cell exec wd pwd
	[ "$output" = / ]
}

@test "exec passes its stdin and stdout through, and runs /bin/sh by default" {
	start io --hostname iobox
	export CELL STATE
	run bash -c 'echo hello | "$CELL" --root "$STATE" exec io cat'
	[ "$status" -eq 0 ]
	[ "$output" = hello ]
	run bash -c 'echo "uname -n; exit 3" | "$CELL" --root "$STATE" exec io'
	[ "$status" -eq 3 ]
	[ "$output" = iobox ]
}

@test "SIGTERM and SIGINT to cell exec are passed on to its command" {
	start sig
	for sig in TERM INT; do
		env --default-signal=INT,QUIT "$CELL" --root "$STATE" exec sig sleep 100 3>&- &
		p=$!
		BG_PIDS+=("$p")
		exec_pid "$p" >/dev/null
		kill -"$sig" "$p"
		wait_exit "$p"
		[ "$status" -eq $((128 + $(kill -l "$sig"))) ]
	done
	# No sleep is left but the jail's pid 1.
	run cell exec sig sh -c 'cat /proc/[0-9]*/comm 2>/dev/null'
	[ "$(printf '%s\n' "$output" | grep -cx sleep)" -eq 1 ]
}

@test "exec -t gives a pty, -T none even under a terminal" {
	start ttys
	run cell exec -t ttys tty
	[ "$status" -eq 0 ]
	[[ "$output" == /dev/pts/* ]]
	run_in_pty_held "$CELL --root $STATE exec -T ttys tty"
	[ "$output" = "not a tty" ]
	run_in_pty_held "$CELL --root $STATE exec ttys tty"
	[[ "$output" == /dev/pts/* ]]
}

# --- concurrency -------------------------------------------------------

@test "ten execs at once all succeed" {
	start many
	pids=()
	for i in $(seq 10); do
		"$CELL" --root "$STATE" exec many sh -c "echo $i >/work/e$i" 3>&- &
		pids+=("$!")
	done
	for p in "${pids[@]}"; do
		wait_exit "$p" 100
		[ "$status" -eq 0 ]
	done
	for i in $(seq 10); do [ "$(cat "$WORK/e$i")" = "$i" ]; done
	[ "$(jq -r .state "$STATE/many/state.json")" = running ]
	jq . "$STATE/many/state.json" >/dev/null
}

@test "stop ends a jail's running execs" {
	start busy
	pids=()
	for i in 1 2 3 4 5; do
		exec_bg "$WORK/out$i" busy sh -c "touch /work/x$i; exec sleep 100"
		pids+=("$BG_PID")
	done
	for i in 1 2 3 4 5; do wait_for "$WORK/x$i"; done
	run cell stop -t 1 busy
	[ "$status" -eq 0 ]
	for p in "${pids[@]}"; do
		wait_exit "$p" 50
		[ "$status" -eq 137 ]
	done
	[ "$(cell ls -a -o state | tail -n 1)" = stopped ]
}

@test "rm -f ends a jail's running exec and removes the jail" {
	start forced
	exec_bg "$WORK/out" forced sleep 100
	pid=$(exec_pid "$BG_PID")
	run cell rm -f forced
	[ "$status" -eq 0 ]
	wait_exit "$BG_PID"
	[ "$status" -eq 137 ]
	pid_ended "$pid"
	[ ! -e "$STATE/forced" ]
}

@test "exec into a jail that stop is ending fails or ends with it" {
	start racing
	cell stop -t 1 racing &
	stopper=$!
	run timeout 10 "$CELL" --root "$STATE" exec racing sleep 100
	# Either refused or killed with the jail, never left running.
	[ "$status" -eq 125 ] || [ "$status" -eq 137 ]
	wait_exit "$stopper"
	[ "$status" -eq 0 ]
}

# --- the order of joining ---------------------------------------------

@test "no exec'd process shows in the jail's /proc while it is still in the host's network namespace" {
	# The probe watches the jail's /proc for a process whose network is
	# not the jail's (it has only lo) while the host execs into it.
	grep -qvE '^ *(lo|Inter-| face):' /proc/net/dev || skip "the host has no network but lo"
	cat >"$WORK/probe.py" <<'PY'
import os, sys, time
caught = set()
deadline = time.monotonic() + 60
open("/work/probing", "w").close()
while time.monotonic() < deadline and not os.path.exists("/work/stop"):
    for p in os.listdir("/proc"):
        if not p.isdigit():
            continue
        try:
            with open("/proc/%s/net/dev" % p) as f:
                names = [l.split(":")[0].strip() for l in f.read().splitlines()[2:]]
        except OSError:
            continue
        if any(n != "lo" for n in names):
            caught.add(p)
with open("/work/caught.tmp", "w") as f:
    f.write("%d\n" % len(caught))
os.rename("/work/caught.tmp", "/work/caught")
PY
	cell run -d --name web --bind "$WORK:/work" -e HOST_UTS="$HOST_UTS" -e HOST_PID="$HOST_PID" \
		-- sh -c "$JAIL_GUARD_SH"'
exec python3 /work/probe.py' >/dev/null
	wait_for "$WORK/probing"
	for _ in $(seq 40); do
		cell exec web true
	done
	touch "$WORK/stop"
	wait_for "$WORK/caught"
	[ "$(cat "$WORK/caught")" = 0 ]
}
