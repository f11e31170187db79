#!/usr/bin/env bats
# The default jail policy (policy.c), rule by rule, from inside a jail:
# each test tries the forbidden thing, checks the exact errno the kernel
# or the filter gives, and that the host saw nothing of it.
#
# Safety: every script runs behind a guard that exits 99 unless it is in
# a uts and a pid namespace other than the host's, so a broken cell fails
# the test instead of trying the forbidden thing on the host.  Calls that
# would be harmful if they went through are made in a harmless form that
# the kernel would refuse with another errno (EINVAL, ENOENT, ENOTTY...)
# if the filter let them pass: an EPERM then can only be the policy's.
load helpers

GUARD_SH=$JAIL_GUARD_SH # helpers.bash

# The python guard, and try_call(NAME, FUNC, ARG...) / try_sys(NAME,
# ARG...), which print NAME and "ok" or the errno's name.  System call
# numbers are x86_64's.
GUARD_PY="$JAIL_GUARD_PY"'libc = ctypes.CDLL(None, use_errno=True)
NR = {"mount": 165, "umount2": 166, "pivot_root": 155, "fsopen": 430,
      "open_tree": 428, "move_mount": 429, "mount_setattr": 442,
      "swapon": 167, "reboot": 169, "kexec_load": 246, "init_module": 175,
      "finit_module": 313, "delete_module": 176, "iopl": 172, "ioperm": 173,
      "ptrace": 101, "clone": 56, "clone3": 435, "unshare": 272,
      "setns": 308, "keyctl": 250, "bpf": 321, "perf_event_open": 298,
      "fanotify_init": 300, "ioctl": 16, "ioprio_set": 251}
def arg(a):
    return ctypes.c_long(a) if isinstance(a, int) else a
def try_sys(name, *args):
    ctypes.set_errno(0)
    r = libc.syscall(ctypes.c_long(NR[name]), *map(arg, args))
    print(name, "ok" if r >= 0 else errno.errorcode[ctypes.get_errno()], flush=True)
    return r
'

# POLICY_USERNS=host runs the whole battery with --userns host too
# (tests/run.sh does): the rules hold without a user namespace of the
# jail's own as well.
#
# POLICY_ROOTLESS=1 runs it with cell as a plain user (tests/run.sh does;
# tests/rootless.bash makes the user, with subordinate ranges): $CELL
# is a wrapper that runs the binary as that user, the test's state root
# and work directory are the user's, and the host's processes a jail
# aims at are the user's own.  Where a rule reads otherwise rootless (the
# host's ids or CAP_IPC_LOCK are not the user's to give), the test says
# why and asserts what holds instead.
if [ -n "${POLICY_ROOTLESS:-}" ]; then
	source "$BATS_TEST_DIRNAME/../rootless.bash"
	setup_file() {
		command -v newuidmap >/dev/null || skip "newuidmap (uidmap) is missing"
		rootless_setup || return 1
		rootless_wrapper user "$RL_BIN/cell-as-user" || return 1
		rootless_wrapper user "$RL_BIN/as-user" "" || return 1
		export CELL=$RL_BIN/cell-as-user CELL_TESTPOINTS=
	}
	teardown_file() { rootless_teardown; }
	setup() {
		cell_setup
		chown "$RL_UID:$RL_GID" "$STATE" "$WORK"
	}
	teardown() {
		local ret=0
		cell_teardown || ret=1
		rootless_reset user || ret=1
		return $ret
	}
fi

#
# jail_sh [OPTION...] SCRIPT: `cell run OPTION... -- sh -c SCRIPT`, guarded.
jail_sh() {
	cell run ${POLICY_USERNS:+--userns "$POLICY_USERNS"} -e HOST_UTS="$HOST_UTS" \
		-e HOST_PID="$HOST_PID" "${@:1:$#-1}" -- sh -c "$GUARD_SH"$'\n'"${!#}"
}

# jail_py [OPTION...] CODE: the same with python3 -c, guarded.
jail_py() {
	cell run ${POLICY_USERNS:+--userns "$POLICY_USERNS"} -e HOST_UTS="$HOST_UTS" \
		-e HOST_PID="$HOST_PID" "${@:1:$#-1}" -- python3 -c "$GUARD_PY${!#}"
}

# jail_sh_bg OUT [OPTION...] SCRIPT, jail_py_bg OUT [OPTION...] CODE: in
# the background (cell_bg), with $WORK bound at /srv for files to meet at.
jail_sh_bg() {
	local out=$1
	shift
	cell_bg "$out" ${POLICY_USERNS:+--userns "$POLICY_USERNS"} -e HOST_UTS="$HOST_UTS" \
		-e HOST_PID="$HOST_PID" --bind "$WORK:/srv" \
		"${@:1:$#-1}" -- sh -c "$GUARD_SH"$'\n'"${!#}"
}

jail_py_bg() {
	local out=$1
	shift
	cell_bg "$out" ${POLICY_USERNS:+--userns "$POLICY_USERNS"} -e HOST_UTS="$HOST_UTS" \
		-e HOST_PID="$HOST_PID" --bind "$WORK:/srv" \
		"${@:1:$#-1}" -- python3 -c "$GUARD_PY${!#}"
}

# What a background jail runs last: wait until the test touches $WORK/done.
UNTIL_DONE_SH='while [ ! -e /srv/done ]; do sleep 0.05; done'
UNTIL_DONE_PY='
import time
while not os.path.exists("/srv/done"):
    time.sleep(0.05)'

# host_sleep: a process on the host for a jail to aim at; its pid in $SLEEP.
host_sleep() {
	# Rootless, the user's own: what the jail must not reach is what its
	# user could reach on the host.
	${POLICY_ROOTLESS:+"$RL_BIN/as-user"} sleep 30 &
	SLEEP=$!
	BG_PIDS+=("$SLEEP")
}

@test "a jail cannot mount, unmount or pivot_root, by either mount API (EPERM)" {
	src=celltest-$RANDOM
	run jail_py -e SRC="$src" '
try_sys("mount", os.environ["SRC"].encode(), b"/tmp", b"tmpfs", 0, None)
try_sys("umount2", b"/tmp", 2)
try_sys("pivot_root", b"/tmp", b"/tmp")
try_sys("fsopen", b"tmpfs", 0)
try_sys("open_tree", -100, b"/tmp", 1)
try_sys("move_mount", -1, b"", -1, b"", 0)
try_sys("mount_setattr", -100, b"/tmp", 0, None, 0)'
	[ "$status" -eq 0 ]
	[ "$output" = "mount EPERM
umount2 EPERM
pivot_root EPERM
fsopen EPERM
open_tree EPERM
move_mount EPERM
mount_setattr EPERM" ]
	! grep -q "$src" /proc/self/mountinfo
}

@test "a jail cannot swapon, reboot or kexec_load (EPERM)" {
	# Forms the kernel would refuse if they got through: a missing swap
	# file (ENOENT), no reboot magic (EINVAL), zero segments for a foreign
	# architecture (KEXEC_ARCH_ARM: EINVAL, nothing loaded or unloaded).
	run jail_py '
try_sys("swapon", b"/nonexistent-cell-swap", 0)
try_sys("reboot", 0, 0, 0, None)
try_sys("kexec_load", 0, 0, None, 40 << 16)'
	[ "$status" -eq 0 ]
	[ "$output" = "swapon EPERM
reboot EPERM
kexec_load EPERM" ]
}

@test "a jail cannot signal a host process, not even with --net host (ESRCH)" {
	host_sleep
	for net in none host; do
		run jail_py --net "$net" -e SLEEP="$SLEEP" '
for sig in (0, 15, 9):
    try_call("kill", os.kill, int(os.environ["SLEEP"]), sig)'
		[ "$status" -eq 0 ]
		[ "$output" = "kill ESRCH
kill ESRCH
kill ESRCH" ]
	done
	kill -0 "$SLEEP"
	kill "$SLEEP"
}

@test "a jail cannot ptrace a host process (ESRCH) nor reach the host's /proc/1" {
	host_sleep
	run jail_py -e SLEEP="$SLEEP" '
try_sys("ptrace", 16, int(os.environ["SLEEP"]), 0, 0)
print(os.path.exists("/proc/" + os.environ["SLEEP"]))
print(open("/proc/1/cmdline").read().split("\0")[0])'
	[ "$status" -eq 0 ]
	[ "$output" = "ptrace ESRCH
False
python3" ]
	[ "$(tr '\0' '\n' </proc/1/cmdline | head -1)" != python3 ]
	kill -0 "$SLEEP"
	[ "$(awk '/^TracerPid/ { print $2 }' "/proc/$SLEEP/status")" = 0 ]
	kill "$SLEEP"
}

@test "a jail can ptrace its own processes" {
	# Same uid, same capabilities, no Yama: the kernel allows it, and
	# nothing in the policy forbids it inside.
	run jail_py '
import time
child = os.fork()
if child == 0:
    time.sleep(5)
    os._exit(0)
if try_sys("ptrace", 16, child, 0, 0) == 0:
    os.waitpid(child, 0)
    try_sys("ptrace", 17, child, 0, 0)
os.kill(child, 9)
os.waitpid(child, 0)'
	[ "$status" -eq 0 ]
	[ "$output" = "ptrace ok
ptrace ok" ]
}

@test "SIGCHLD still reaches parents inside a jail, and the jail's own parent" {
	run jail_sh 'sh -c "sleep 0.1 & wait" && echo waited
python3 -c "
import os, signal, time
got = []
signal.signal(signal.SIGCHLD, lambda n, f: got.append(n))
if os.fork() == 0:
    os._exit(0)
for _ in range(50):
    if got:
        break
    time.sleep(0.1)
print(\"SIGCHLD\" if got == [signal.SIGCHLD] else got)"'
	# cell itself returned: it got the jail's exit.
	[ "$status" -eq 0 ]
	[ "$output" = "waited
SIGCHLD" ]
}

@test "a jail cannot mknod devices (EPERM) but can make fifos" {
	run jail_py '
import stat
try_call("mknod c", os.mknod, "/tmp/x", stat.S_IFCHR | 0o600, os.makedev(1, 3))
try_call("mknod b", os.mknod, "/tmp/b", stat.S_IFBLK | 0o600, os.makedev(7, 0))
try_call("mkfifo", os.mkfifo, "/tmp/f")
print(stat.S_ISFIFO(os.stat("/tmp/f").st_mode))'
	[ "$status" -eq 0 ]
	[ "$output" = "mknod c EPERM
mknod b EPERM
mkfifo ok
True" ]
	run jail_sh 'mknod /tmp/x c 1 3'
	[ "$status" -eq 1 ]
	[ "$output" = "mknod: /tmp/x: Operation not permitted" ]
}

@test "with --nice 10 a jail cannot lower its nice value (EACCES) but can raise it" {
	run jail_py --nice 10 '
print(open("/proc/self/stat").read().rsplit(")", 1)[1].split()[16])
try_call("setpriority 5", os.setpriority, os.PRIO_PROCESS, 0, 5)
try_call("setpriority 15", os.setpriority, os.PRIO_PROCESS, 0, 15)
print(os.getpriority(os.PRIO_PROCESS, 0))'
	[ "$status" -eq 0 ]
	[ "$output" = "10
setpriority 5 EACCES
setpriority 15 ok
15" ]
}

@test "a jail cannot take a realtime scheduling or I/O class (EPERM)" {
	run jail_py '
try_call("SCHED_FIFO", os.sched_setscheduler, 0, os.SCHED_FIFO, os.sched_param(1))
try_call("SCHED_RR", os.sched_setscheduler, 0, os.SCHED_RR, os.sched_param(1))
print(os.sched_getscheduler(0) == os.SCHED_OTHER)
try_sys("ioprio_set", 1, 0, 1 << 13)'
	[ "$status" -eq 0 ]
	[ "$output" = "SCHED_FIFO EPERM
SCHED_RR EPERM
True
ioprio_set EPERM" ]
}

@test "a jail cannot raise a hard rlimit (EPERM)" {
	# resource.setrlimit turns EPERM into a ValueError: call libc.
	run jail_py --nofile 100 '
lim = (ctypes.c_ulong * 2)()
libc.getrlimit(7, lim)
print(lim[0], lim[1])
lim[1] += 1
r = libc.setrlimit(7, lim)
print("setrlimit", "ok" if r == 0 else errno.errorcode[ctypes.get_errno()])'
	[ "$status" -eq 0 ]
	[ "$output" = "100 100
setrlimit EPERM" ]
}

@test "a jail cannot load or remove kernel modules (EPERM)" {
	# An empty image (ENOEXEC), a bad fd (EBADF), a missing module (ENOENT).
	run jail_py '
try_sys("init_module", b"", 0, b"")
try_sys("finit_module", -1, b"", 0)
try_sys("delete_module", b"cell_no_such_module", os.O_NONBLOCK)'
	[ "$status" -eq 0 ]
	[ "$output" = "init_module EPERM
finit_module EPERM
delete_module EPERM" ]
}

@test "a jail cannot do raw I/O (EPERM) and has no /dev/mem" {
	# iopl(0) and turning ports off need no capability: only the filter
	# makes them fail.
	run jail_py '
try_sys("iopl", 3)
try_sys("iopl", 0)
try_sys("ioperm", 0x80, 1, 1)
try_sys("ioperm", 0x80, 1, 0)
for dev in ("/dev/mem", "/dev/kmem", "/dev/port"):
    print(dev, os.path.exists(dev))'
	[ "$status" -eq 0 ]
	[ "$output" = "iopl EPERM
iopl EPERM
ioperm EPERM
ioperm EPERM
/dev/mem False
/dev/kmem False
/dev/port False" ]
}

@test "a jail cannot administer the network, not even with --net host (EPERM)" {
	link=cellpol$RANDOM
	for net in none host; do
		run jail_sh --net "$net" "ip link add $link type dummy"
		[ "$status" -eq 2 ]
		[ "$output" = "RTNETLINK answers: Operation not permitted" ]
	done
	run ip link show "$link"
	[ "$status" -ne 0 ]
}

@test "a jail cannot write sysctls (EROFS)" {
	before=$(cat /proc/sys/kernel/hostname)
	run jail_py '
for path in ("/proc/sys/kernel/hostname", "/proc/sys/vm/drop_caches"):
    try_call(path, open, path, "w")'
	[ "$status" -eq 0 ]
	[ "$output" = "/proc/sys/kernel/hostname EROFS
/proc/sys/vm/drop_caches EROFS" ]
	[ "$(cat /proc/sys/kernel/hostname)" = "$before" ]
}

@test "/proc/sysrq-trigger is read-only in a jail (EROFS)" {
	[ -e /proc/sysrq-trigger ] || skip "this kernel has no /proc/sysrq-trigger"
	# Opened, never written.
	run jail_py 'try_call("sysrq-trigger", os.open, "/proc/sysrq-trigger", os.O_WRONLY)'
	[ "$status" -eq 0 ]
	[ "$output" = "sysrq-trigger EROFS" ]
}

@test "the kernel's memory, symbols, keys and timers read as nothing in a jail" {
	[ -n "$(head -c 1 /proc/kallsyms)" ]
	run jail_sh 'for f in /proc/kcore /proc/kallsyms /proc/keys /proc/timer_list; do
	[ -e "$f" ] && echo "$f $(head -c 100 "$f" | wc -c)"
done
echo /sys/firmware $(ls -A /sys/firmware | wc -l)'
	[ "$status" -eq 0 ]
	# (a kernel built without one of them has nothing to mask)
	expected=
	for f in /proc/kcore /proc/kallsyms /proc/keys /proc/timer_list; do
		[ -e "$f" ] && expected+="$f 0"$'\n'
	done
	[ "$output" = "${expected}/sys/firmware 0" ]
}

@test "a jail's /proc shows only the jail's processes" {
	run jail_sh 'exec ls /proc'
	[ "$status" -eq 0 ]
	[ "$(grep -x '[0-9]*' <<<"$output")" = 1 ]
	run jail_sh "sleep 1 & test -e /proc/$$ && echo host-pid-seen; ls /proc >/tmp/ls
grep -cx '[0-9]*' /tmp/ls"
	[ "$status" -eq 0 ]
	# sh, sleep and ls; not the test's shell.
	[ "$output" = 3 ]
}

@test "two jails do not see each other's SysV IPC" {
	jail_sh_bg "$WORK/a.out" 'ipcmk -M 4096 >/dev/null && ipcmk -Q >/dev/null &&
ipcs -m -q >/srv/a && touch /srv/ready
'"$UNTIL_DONE_SH"
	wait_for "$WORK/ready"
	keys=$(awk '/^0x/ { print $1 }' "$WORK/a")
	[ "$(wc -w <<<"$keys")" -eq 2 ]
	run jail_sh 'ipcs -m -q'
	[ "$status" -eq 0 ]
	! grep -q '^0x' <<<"$output"
	for key in $keys; do
		! ipcs -m -q | grep -q "^$key "
	done
	touch "$WORK/done"
	wait_status "$BG_PID"
	[ "$status" -eq 0 ]
}

@test "a jail does not see the host's SysV IPC unless --allow sysvipc" {
	id=$(ipcmk -M 4096 | awk '{ print $NF }')
	key=$(ipcs -m | awk -v id="$id" '$2 == id { print $1 }')
	run jail_sh 'ipcs -m'
	run_default=$output
	run jail_sh --allow sysvipc 'ipcs -m'
	ipcrm -m "$id"
	[ "$status" -eq 0 ]
	! grep -q "^$key " <<<"$run_default"
	grep -q "^$key " <<<"$output"
}

@test "two --net host jails cannot reach each other's abstract unix sockets (EPERM)" {
	name=cell-test-$RANDOM
	jail_py_bg "$WORK/a.out" --net host -e NAME="$name" '
import socket
s = socket.socket(socket.AF_UNIX)
s.bind("\0" + os.environ["NAME"])
s.listen()
open("/srv/ready", "w").close()'"$UNTIL_DONE_PY"
	wait_for "$WORK/ready"
	run jail_py --net host -e NAME="$name" '
import socket
try_call("connect", socket.socket(socket.AF_UNIX).connect, "\0" + os.environ["NAME"])'
	[ "$status" -eq 0 ]
	[ "$output" = "connect EPERM" ]
	# The socket is there: the host, outside any Landlock domain, reaches it.
	python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).connect("\0" + sys.argv[1])' "$name"
	touch "$WORK/done"
	wait_status "$BG_PID"
	[ "$status" -eq 0 ]
}

@test "a --net host jail cannot connect to the host's abstract unix sockets (EPERM)" {
	name=cell-test-$RANDOM
	python3 -c '
import os, socket, sys, time
s = socket.socket(socket.AF_UNIX)
s.bind("\0" + sys.argv[1])
s.listen()
open(sys.argv[2] + "/ready", "w").close()
for _ in range(100):
    if os.path.exists(sys.argv[2] + "/done"):
        break
    time.sleep(0.05)' "$name" "$WORK" &
	BG_PIDS+=("$!")
	listener=$!
	wait_for "$WORK/ready"
	for net in host none; do
		run jail_py --net "$net" -e NAME="$name" '
import socket
try_call("connect", socket.socket(socket.AF_UNIX).connect, "\0" + os.environ["NAME"])'
		[ "$status" -eq 0 ]
		outputs+=("$output")
	done
	touch "$WORK/done"
	wait "$listener"
	# Landlock's scope with the host's network; no such socket without.
	[ "${outputs[0]}" = "connect EPERM" ]
	[ "${outputs[1]}" = "connect ECONNREFUSED" ]
}

@test "the host's secrets are masked in the embedded root" {
	[ -s /etc/shadow ]
	run jail_sh 'for f in /etc/shadow /etc/gshadow /etc/ssh/ssh_host_*_key; do
	[ -e "$f" ] && echo "$f $(wc -c <"$f")"
done
for d in /root /home /var/lib /etc/ssl/private; do echo "$d $(ls -A "$d" | wc -l)"; done'
	[ "$status" -eq 0 ]
	expected="/etc/shadow 0
/etc/gshadow 0"
	for f in /etc/ssh/ssh_host_*_key; do
		[ -e "$f" ] && expected+=$'\n'"$f 0"
	done
	expected+="
/root 0
/home 0
/var/lib 0
/etc/ssl/private 0"
	[ "$output" = "$expected" ]
	# and a jail user cannot even list them
	run jail_sh --user 1000 'ls /root'
	[ "$status" -eq 2 ]
	[[ "$output" == *"Permission denied" ]]
}

@test "--bind /etc/shadow:/etc/shadow:ro shows the host's file, read-only" {
	run jail_sh --bind /etc/shadow:/etc/shadow:ro 'sha256sum </etc/shadow
wc -c </etc/gshadow
python3 -c "
import errno
try:
    open(\"/etc/shadow\", \"a\")
except OSError as e:
    print(errno.errorcode[e.errno])"'
	if [ -n "${POLICY_ROOTLESS:-}" ]; then
		# Rootless, the jail's root is the user, who cannot read the
		# host's /etc/shadow (root's, 0640): bound, it stays closed.
		[ "$status" -eq 0 ]
		[[ "${lines[0]}" == "sh: "*": cannot open /etc/shadow: Permission denied" ]]
		[ "${lines[1]}" = 0 ]
		[ "${lines[2]}" = EACCES ]
		[ "${#lines[@]}" -eq 3 ]
		return
	fi
	[ "$status" -eq 0 ]
	[ "$output" = "$(sha256sum </etc/shadow)
0
EROFS" ]
}

@test "a jail runs with no_new_privs and setuid binaries do not raise its euid" {
	# su, setuid root, waits for a password on the pipe: its Uid line
	# (real, effective, saved, fs) shows what exec gave it.
	run jail_sh --user 1000 'grep ^NoNewPrivs: /proc/self/status
stat -c %A /bin/su
sleep 5 | su -c id 2>/dev/null &
i=0
while [ "$(cat /proc/$!/comm 2>/dev/null)" != su ] && [ $i -lt 100 ]; do
	sleep 0.02
	i=$((i + 1))
done
grep ^Uid: /proc/$!/status
kill $!'
	[ "$status" -eq 0 ]
	[ "$output" = "NoNewPrivs:	1
-rwsr-xr-x
Uid:	1000	1000	1000	1000" ]
}

@test "a jail's capability bounding set is what cell inspect shows" {
	command -v capsh >/dev/null || skip "capsh (libcap2-bin) is missing"
	jail_sh_bg "$WORK/out" --name pol \
		'awk "/^CapBnd/ { print \$2 }" /proc/self/status >/srv/capbnd.new
mv /srv/capbnd.new /srv/capbnd
'"$UNTIL_DONE_SH"
	wait_for "$WORK/capbnd"
	wait_running "pol"
	run cell inspect pol
	[ "$status" -eq 0 ]
	inspected=$(sed -n 's/^process\.caps_bounding=//p' <<<"$output")
	pid=$(sed -n 's/^pid=//p' <<<"$output")
	hex=$(cat "$WORK/capbnd")
	[ "$(capsh --decode="$hex" | cut -d= -f2)" = "$inspected" ]
	[ "$inspected" = cap_dac_override,cap_fowner,cap_fsetid,cap_kill,cap_setgid,cap_setuid,cap_setpcap,cap_net_bind_service,cap_sys_chroot ]
	# The kernel's view from the host agrees (the jail's sh is still there).
	[ "$(awk '/^CapBnd/ { print $2 }' "/proc/$pid/status")" = "$hex" ]
	touch "$WORK/done"
	wait_status "$BG_PID"
	[ "$status" -eq 0 ]
}

@test "a jail cannot set its hostname (EPERM) unless --allow set_hostname" {
	before=$(hostname)
	run jail_py '
import socket
try_call("sethostname", socket.sethostname, "foo")
print(socket.gethostname())'
	[ "$status" -eq 0 ]
	[ "$output" = "sethostname EPERM
cell" ]
	run jail_sh --allow set_hostname 'hostname foo && hostname'
	[ "$status" -eq 0 ]
	[ "$output" = foo ]
	[ "$(hostname)" = "$before" ]
}

@test "with --allow set_hostname the CAP_SYS_ADMIN it keeps opens nothing else (EPERM)" {
	# On the jail's own tmpfs /tmp and /dev/null: without the filter the
	# kernel would answer EOPNOTSUPP or ENOTTY there, never touching the
	# host's filesystem.  A trusted.* xattr is no filter's business: the
	# kernel refuses it because CAP_SYS_ADMIN is held in the jail's own
	# user namespace only (in the host's, tmpfs would take it).
	code='
try_sys("mount", b"t", b"/tmp", b"tmpfs", 0, None)
try_sys("unshare", 0x20000)
try_sys("clone", 0x20000 | 17, 0, 0, 0, 0)
try_sys("fanotify_init", 8, 0)
try_sys("ioprio_set", 1, 0, 1 << 13)
open("/tmp/f", "w").close()
try_call("trusted.x", os.setxattr, "/tmp/f", "trusted.x", b"1")
tmp = os.open("/tmp", os.O_RDONLY)
null = os.open("/dev/null", os.O_RDWR)
for name, cmd in (("FIFREEZE", 0xc0045877), ("FS_IOC_SHUTDOWN", 0x8004587d)):
    print(name, end=" ")
    try_sys("ioctl", tmp, cmd, ctypes.byref(ctypes.c_uint(2)))
print("TIOCCONS", end=" ")
try_sys("ioctl", null, 0x541d, 0)'
	run jail_sh --allow set_hostname -e PY="$GUARD_PY$code" \
		'[ "$(stat -f -c %T /tmp)" = tmpfs ] || exit 98
python3 -c "$PY"'
	[ "$status" -eq 0 ]
	[ "$output" = "mount EPERM
unshare EPERM
clone EPERM
fanotify_init EPERM
ioprio_set EPERM
trusted.x EPERM
FIFREEZE ioctl EPERM
FS_IOC_SHUTDOWN ioctl EPERM
TIOCCONS ioctl EPERM" ]
}

# Every jail has a user namespace of its own now, its ids a range of the
# host's (security issue 13, tests/security/userns.bats); with
# --userns host, --allow set_hostname still gets one that maps every id
# to itself, as every such jail did before.
@test "with --allow set_hostname a jail's user namespace owns its UTS and network namespaces; with --userns host it maps every id to itself" {
	local modes="private host"
	if [ -z "${POLICY_ROOTLESS:-}" ]; then
		run jail_sh --userns host 'readlink /proc/self/ns/user'
		[ "$status" -eq 0 ]
		[ "$output" = "$(readlink /proc/self/ns/user)" ]
	else
		# Rootless, the host's ids are not the user's to give: every
		# jail is in the user's namespace, its ids the user's range.
		modes=private
	fi
	for userns in $modes; do
		run jail_sh --userns $userns --allow set_hostname -e PY="$GUARD_PY" \
			'readlink /proc/self/ns/user /proc/self/ns/uts
cat /proc/self/uid_map /proc/self/gid_map
ls /sys/class/net
python3 -c "$PY
import fcntl, os
NS_GET_USERNS = 0xb701
u = os.open(\"/proc/self/ns/uts\", os.O_RDONLY)
n = os.open(\"/proc/self/ns/net\", os.O_RDONLY)
own = os.stat(\"/proc/self/ns/user\").st_ino
print(os.fstat(fcntl.ioctl(u, NS_GET_USERNS)).st_ino == own, os.fstat(fcntl.ioctl(n, NS_GET_USERNS)).st_ino == own)"'
		echo "$userns: $output"
		[ "$status" -eq 0 ]
		[ "${lines[0]}" != "$(readlink /proc/self/ns/user)" ]
		[ "${lines[1]}" != "$HOST_UTS" ]
		if [ -n "${POLICY_ROOTLESS:-}" ]; then
			# uid_map and gid_map: the user's id, then its range.
			[ "$(echo ${lines[2]})" = "0 $RL_UID 1" ]
			[ "$(echo ${lines[3]})" = "1 $RL_SUB 65535" ]
			[ "$(echo ${lines[4]})" = "0 $RL_GID 1" ]
			[ "$(echo ${lines[5]})" = "1 $RL_SUB 65535" ]
			lines=("${lines[@]:0:2}" "${lines[@]:4}")
		elif [ $userns = host ]; then
			[ "$(echo ${lines[2]})" = "0 0 4294967295" ]
			[ "$(echo ${lines[3]})" = "0 0 4294967295" ]
		else
			[[ "$(echo ${lines[2]})" == "0 "*" 65536" ]]
			[[ "$(echo ${lines[3]})" == "0 "*" 65536" ]]
		fi
		# its /sys shows its own network: only lo
		[ "${lines[4]}" = lo ]
		[ "${lines[5]}" = "True True" ]
		[ "${#lines[@]}" -eq 6 ]
	done
}

@test "with --allow set_hostname the jail's root is still root of its files and its network" {
	# DAC_OVERRIDE and CHOWN on files of any owner, NET_BIND_SERVICE and
	# NET_RAW in its own network namespace, its processes visible
	code='
import socket
fd = os.open("/tmp/f", os.O_CREAT | os.O_WRONLY, 0)
os.close(fd)
os.chown("/tmp/f", 1000, 1000)
try_call("read unreadable", open, "/tmp/f")
try_call("chown", os.chown, "/tmp/f", 2000, 2000)
print(os.stat("/tmp/f").st_uid)
s = socket.socket()
try_call("bind 80", s.bind, ("127.0.0.1", 80))
try_call("raw", socket.socket, socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
try_call("kill 1", os.kill, 1, 0)'
	run jail_py --allow set_hostname --allow chown --allow raw_sockets "$code"
	[ "$status" -eq 0 ]
	[ "$output" = "read unreadable ok
chown ok
2000
bind 80 ok
raw ok
kill 1 ok" ]
}

@test "a jail cannot open raw sockets (EPERM) unless --allow raw_sockets" {
	code='
import socket
try_call("raw", socket.socket, socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)'
	run jail_py "$code"
	[ "$status" -eq 0 ]
	[ "$output" = "raw EPERM" ]
	run jail_py --allow raw_sockets "$code"
	[ "$status" -eq 0 ]
	[ "$output" = "raw ok" ]
}

@test "a jail cannot chown (EPERM) unless --allow chown" {
	code='
open("/tmp/f", "w").close()
try_call("chown", os.chown, "/tmp/f", 1000, 1000)
print(os.stat("/tmp/f").st_uid)'
	run jail_py "$code"
	[ "$status" -eq 0 ]
	[ "$output" = "chown EPERM
0" ]
	run jail_py --allow chown "$code"
	[ "$status" -eq 0 ]
	[ "$output" = "chown ok
1000" ]
}

@test "a jail cannot lock memory beyond --memlock (ENOMEM) unless --allow mlock" {
	code='
import mmap
n = 4 << 20
buf = mmap.mmap(-1, n)
addr = ctypes.addressof(ctypes.c_char.from_buffer(buf))
r = libc.mlock(ctypes.c_void_p(addr), ctypes.c_size_t(n))
print("mlock", "ok" if r == 0 else errno.errorcode[ctypes.get_errno()])'
	run jail_py --memlock 1M "$code"
	[ "$status" -eq 0 ]
	[ "$output" = "mlock ENOMEM" ]
	# Rootless there is no CAP_IPC_LOCK in the host's user namespace to
	# keep, with or without --userns host (refused too): said.
	if [ -n "${POLICY_ROOTLESS:-}" ]; then
		run jail_py --memlock 1M --allow mlock "$code"
		[ "$status" -eq 125 ]
		[ "$output" = "cell: run: --allow mlock: needs root: the kernel honours CAP_IPC_LOCK in the host's user namespace only" ]
		return
	fi
	# The kernel honours CAP_IPC_LOCK in the host's user namespace only:
	# with a user namespace of its own (the default since issue 13) the
	# rule cannot be relaxed, and cell says so.
	if [ "${POLICY_USERNS:-}" != host ]; then
		run jail_py --memlock 1M --allow mlock "$code"
		[ "$status" -eq 125 ]
		[ "$output" = "cell: run: --allow mlock: needs --userns host: the kernel honours CAP_IPC_LOCK in the host's user namespace only" ]
	fi
	run jail_py --userns host --memlock 1M --allow mlock "$code"
	[ "$status" -eq 0 ]
	[ "$output" = "mlock ok" ]
}

@test "a jail cannot make namespaces, keys, bpf programs or perf events (EPERM)" {
	# unshare(CLONE_NEWUSER) and clone(CLONE_NEWUSER) need no capability:
	# only the filter stops them.  clone3 gets ENOSYS, so that glibc falls
	# back to clone.  Each other call is in a form the kernel would refuse.
	run jail_py '
for flag in (0x10000000, 0x20000, 0x40000000):
    try_sys("unshare", flag)
for flag in (0x10000000, 0x40000000):
    if try_sys("clone", flag | 17, 0, 0, 0, 0) == 0:
        os._exit(0)
args = (ctypes.c_uint64 * 11)()
args[0], args[4] = 0x10000000, 17
if try_sys("clone3", args, ctypes.sizeof(args)) == 0:
    os._exit(0)
try_sys("setns", -1, 0)
try_sys("keyctl", 0, -3, 0)
try_sys("bpf", 0xffff, None, 0)
try_sys("perf_event_open", None, 0, -1, -1, 0)
import subprocess, threading
t = threading.Thread(target=lambda: print("thread ok"))
t.start()
t.join()
print(subprocess.run(["echo", "spawn ok"], capture_output=True, text=True).stdout.strip())'
	[ "$status" -eq 0 ]
	[ "$output" = "unshare EPERM
unshare EPERM
unshare EPERM
clone EPERM
clone EPERM
clone3 ENOSYS
setns EPERM
keyctl EPERM
bpf EPERM
perf_event_open EPERM
thread ok
spawn ok" ]
}

@test "a jail sharing cell's terminal cannot type into it (TIOCSTI: EPERM)" {
	# -T: no pty of its own, so the jail's stdout is the test's pty.
	# script(1)'s stdin never ends (run_in_pty_held).
	for allow in "" "--allow set_hostname"; do
		run_in_pty_held "$CELL --root $STATE run -T $allow -- python3 -c '
import fcntl, os, termios
print(\"own session\", os.getsid(0) == os.getpid())
try:
    fcntl.ioctl(1, termios.TIOCSTI, b\"x\")
    print(\"injected\")
except OSError as e:
    print(\"TIOCSTI\", e.strerror)'"
		[ "$status" -eq 0 ]
		[ "${lines[0]}" = "own session True" ]
		[ "${lines[1]}" = "TIOCSTI Operation not permitted" ]
	done
}

@test "a --bind beneath a masked directory is refused, not an unmasking" {
	run cell run --bind "$WORK:/var/lib/dpkg:ro" -- ls /var/lib
	[ "$status" -eq 125 ]
	[ "$output" = "cell: run: --bind $WORK:/var/lib/dpkg:ro: /var/lib is masked in the embedded root; bind /var/lib itself to show it" ]
}

@test "a --bind of a masked directory itself shows it, and only it" {
	run cell run --bind /var/lib:/var/lib:ro -- sh -c 'ls /var/lib | grep -c . ; wc -c </etc/shadow'
	[ "$status" -eq 0 ]
	[ "${lines[0]}" -gt 0 ]
	[ "${lines[1]}" = 0 ]
}

@test "the --init reaper's binary is out of reach through /proc/1/exe" {
	run cell run --init -- sh -c 'readlink /proc/1/exe || echo no link; cat /proc/1/exe >/dev/null 2>&1 || echo no read; cat /proc/1/fd/1 </dev/null >/dev/null 2>&1 || echo no fd'
	[ "$status" -eq 0 ]
	[ "$output" = $'no link\nno read\nno fd' ]
}
