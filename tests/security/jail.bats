#!/usr/bin/env bats
# Attacks from inside a jail on what the kernel and cell share between
# jails (security issue 13): the kernel's surface (io_uring, personality,
# the new mount calls), /proc files that show the host or other jails,
# memory and ptys taken through the jail's own mounts, cell's state root,
# and files of the jail's that cell reads.
#
# Safety: every probe runs behind a guard that exits 99 unless it is in
# a UTS and a pid namespace other than the host's (JAIL_GUARD_SH of
# helpers.bash, and its python twin below), so a broken cell fails the
# test instead of trying the attack on the host.  A probe tries only
# what is harmless if it goes through: it opens, reads, or asks.
load ../integration/helpers

GUARD_PY="$JAIL_GUARD_PY"'libc = ctypes.CDLL(None, use_errno=True)
def sys_call(name, nr, *args):
    ctypes.set_errno(0)
    r = libc.syscall(ctypes.c_long(nr), *[ctypes.c_long(a) if isinstance(a, int) else a for a in args])
    print(name, "ok" if r >= 0 else errno.errorcode[ctypes.get_errno()], flush=True)
    return r
'

# jail_sh [OPTION...] SCRIPT, jail_py [OPTION...] CODE (helpers.bash):
# in a new jail, behind the guard (jail_py's: GUARD_PY).

setup() {
	cell_setup
	OTHER_ROOT=
}

teardown() {
	local r=0 pid

	# A state root of a test's own (inside the embedded root): its jails.
	if [ -n "$OTHER_ROOT" ]; then
		"$CELL" --root "$OTHER_ROOT" rm -f victim >/dev/null 2>&1 || true
	fi
	# A jail whose exec hung on its FIFO (a broken cell): killing its
	# pid 1 ends the exec'd child too, which holds the jail's lock.
	for pid in $(cat "$STATE"/*/state.json 2>/dev/null | jq -r '.pid // empty'); do
		[ "$(readlink /proc/"$pid"/ns/pid 2>/dev/null)" != "$HOST_PID" ] &&
			kill -KILL "$pid" 2>/dev/null
	done
	cell_teardown || r=$?
	return $r
}

@test "a jail cannot set up io_uring: EPERM" {
	run jail_py '
buf = ctypes.create_string_buffer(120)  # struct io_uring_params
sys_call("io_uring_setup", 425, 4, buf)
sys_call("io_uring_enter", 426, 0, 0, 0, 0, None, 0)
sys_call("io_uring_register", 427, 0, 0, None, 0)'
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "io_uring_setup EPERM" ]
	[ "${lines[1]}" = "io_uring_enter EPERM" ]
	[ "${lines[2]}" = "io_uring_register EPERM" ]
}

@test "--allow io_uring lets a jail set up io_uring, and nothing else of the filter" {
	[ "$(cat /proc/sys/kernel/io_uring_disabled 2>/dev/null || echo 0)" = 0 ] ||
		skip "io_uring is disabled on this host"
	run jail_py --allow io_uring '
buf = ctypes.create_string_buffer(120)  # struct io_uring_params
fd = sys_call("io_uring_setup", 425, 4, buf)
sys_call("mount", 165, 0, 0, 0, 0, 0)'
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "io_uring_setup ok" ]
	[ "${lines[1]}" = "mount EPERM" ]
	run cell run --name uring --allow io_uring -d -- sleep 100
	[ "$(cell inspect uring | grep '^rules.io_uring=')" = "rules.io_uring=allowed" ]
	cell rm -f uring
}

@test "a jail cannot clone a mount tree with open_tree_attr: EPERM" {
	# open_tree_attr(AT_FDCWD, "/", 0, NULL, 0): without the filter an
	# unprivileged O_PATH of / (the kernel's 6.15 call, number 467).
	run jail_py 'sys_call("open_tree_attr", 467, -100, b"/", 0, None, 0)'
	[ "$status" -eq 0 ]
	[ "$output" = "open_tree_attr EPERM" ]
}

@test "a jail may turn off its own address randomisation but set no other personality flag" {
	run jail_py '
sys_call("query", 135, 0xffffffff)
sys_call("ADDR_NO_RANDOMIZE", 135, 0x0040000)
sys_call("PER_LINUX32", 135, 0x0008)
sys_call("PER_LINUX", 135, 0)
sys_call("READ_IMPLIES_EXEC", 135, 0x0400000)
sys_call("MMAP_PAGE_ZERO", 135, 0x0100000)
sys_call("UNAME26", 135, 0x0020000)
sys_call("high bit", 135, 0x80000000)'
	[ "$status" -eq 0 ]
	[ "$output" = "query ok
ADDR_NO_RANDOMIZE ok
PER_LINUX32 ok
PER_LINUX ok
READ_IMPLIES_EXEC EPERM
MMAP_PAGE_ZERO EPERM
UNAME26 EPERM
high bit EPERM" ]
	# What tools ask for: setarch -R runs, setarch -X does not.
	run jail_sh 'setarch "$(uname -m)" -R true && echo R ok
setarch "$(uname -m)" -X true 2>/dev/null || echo X refused'
	[ "$status" -eq 0 ]
	[ "$output" = "R ok
X refused" ]
}

# /proc files that show the kernel's memory, addresses and keys, or what
# every jail and the host share.
LEAKY="/proc/slabinfo /proc/vmallocinfo /proc/kpageflags /proc/kpagecount
/proc/kpagecgroup /proc/iomem /proc/config.gz /proc/key-users /proc/tty/driver
/proc/kallsyms /proc/keys /proc/timer_list"

@test "a jail reads nothing of the /proc files that leak kernel state" {
	local p there=
	for p in $LEAKY; do
		[ -e "$p" ] && there="$there $p"
	done
	[ -n "$there" ]
	run jail_sh "for p in $there; do
	if [ -d \$p ]; then n=\$(ls -A \$p | wc -l); else n=\$(head -c 64 \$p | wc -c); fi
	echo \"\$p \$n\"
done"
	[ "$status" -eq 0 ]
	for p in $there; do
		grep -qx "$p 0" <<<"$output" || { echo "$p is readable: $output" >&2; false; }
	done
}

@test "a jail cannot write /proc/pressure" {
	[ -d /proc/pressure ] || skip "no PSI in this kernel"
	# A trigger with a 2 s window: what the kernel takes from a writer
	# without CAP_SYS_RESOURCE, such as a jail's root.
	run jail_sh 'echo "some 500000 2000000" 2>/dev/null >/proc/pressure/memory && echo written
cat /proc/pressure/cpu >/dev/null && echo read'
	[ "$status" -eq 0 ]
	[ "$output" = read ]
}

@test "a jail's /tmp, /run, /dev/shm and /dev are tmpfs of a bounded size" {
	local size='import os
for d in ("/tmp", "/run", "/dev/shm", "/dev"):
    s = os.statvfs(d)
    print(d, s.f_blocks * s.f_frsize // 1024)'
	run jail_py "$size"
	[ "$status" -eq 0 ]
	[ "$output" = "/tmp 524288
/run 65536
/dev/shm 65536
/dev 64" ]
	# half of --memory each
	run jail_py --memory 64M "$size"
	[ "$status" -eq 0 ]
	[ "$output" = "/tmp 32768
/run 32768
/dev/shm 32768
/dev 64" ]
}

@test "a jail cannot fill its /dev/shm past its size" {
	run jail_sh 'dd if=/dev/zero of=/dev/shm/fill bs=1M count=80 2>/dev/null; echo $?
du -m /dev/shm/fill | cut -f1'
	[ "$status" -eq 0 ]
	[ "${lines[0]}" -ne 0 ]
	[ "${lines[1]}" -le 64 ]
}

@test "a jail holds at most 256 ptys" {
	# Bounded: a cell without the limit stops the probe at 300, far
	# below the host's pool.
	run jail_py '
n = 0
held = []
try:
    while n < 300:
        held.append(os.openpty())
        n += 1
except OSError as e:
    print("refused", errno.errorcode[e.errno])
print(n)'
	[ "$status" -eq 0 ]
	[ "${lines[-1]}" = 256 ]
	[ "${lines[0]}" = "refused ENOSPC" ]
}

@test "a jail cannot read another jail's log or record in a state root inside the embedded root" {
	OTHER_ROOT=$WORK/state
	"$CELL" --root "$OTHER_ROOT" run -d --name victim -- sh -c 'echo secret-of-victim; sleep 100' 2>&1 | cat
	wait_for "$OTHER_ROOT/victim/log.0"
	for _ in $(seq 50); do
		grep -q ' stdout F secret-of-victim$' "$OTHER_ROOT/victim/log.0" && break
		sleep 0.1
	done
	# With ids of its own (the default) the jail cannot even enter the
	# host root's 0700 directories; with the host's ids (--userns host)
	# the mask of the state root is what stops it.
	for userns in private host; do
		run "$CELL" --root "$OTHER_ROOT" run --userns $userns -e HOST_UTS="$HOST_UTS" \
			-e HOST_PID="$HOST_PID" -- \
			sh -c "$JAIL_GUARD_SH"$'\n'"ls -A $OTHER_ROOT 2>/dev/null | wc -l
cat $OTHER_ROOT/victim/log.0 $OTHER_ROOT/victim/state.json 2>/dev/null
echo end"
		[ "$status" -eq 0 ]
		[ "$output" = "0
end" ]
	done
	# The host's view is untouched.
	grep -q ' stdout F secret-of-victim$' "$OTHER_ROOT/victim/log.0"
}

@test "cell exec -u does not hang on a FIFO the jail put at /etc/passwd" {
	make_rootfs "$WORK/r"
	ln -s busybox "$WORK/r/bin/mkfifo"
	ln -s busybox "$WORK/r/bin/rm"
	mkdir -p "$WORK/r/etc"
	echo 'u:x:1000:1000::/:/bin/sh' >"$WORK/r/etc/passwd"
	cell run -d --name fifo --rootfs "$WORK/r" --rw -e HOST_UTS="$HOST_UTS" \
		-e HOST_PID="$HOST_PID" -- sh -c "$JAIL_GUARD_SH"'
rm /etc/passwd && mkfifo /etc/passwd && touch /tmp/ready && sleep 100' 2>&1 | cat
	wait_running fifo
	for _ in $(seq 50); do
		cell exec fifo test -e /tmp/ready && break
		sleep 0.1
	done
	[ -p "$WORK/r/etc/passwd" ]
	run timeout -s KILL 10 "$CELL" --root "$STATE" exec -u 1000 fifo true
	[ "$status" -eq 125 ]
	[ "$output" = "cell: exec: jail fifo: --user 1000: /etc/passwd: not a regular file" ]
	# With a gid given, the file is needed for HOME alone: without it,
	# "/" (never a wait).
	run timeout -s KILL 10 "$CELL" --root "$STATE" exec -u 1000:1000 fifo sh -c 'id -g; echo $HOME'
	[ "$status" -eq 0 ]
	[ "$output" = "1000
/" ]
	# A name needs it.
	run timeout -s KILL 10 "$CELL" --root "$STATE" exec -u u fifo true
	[ "$status" -eq 125 ]
	[ "$output" = "cell: exec: jail fifo: --user u: /etc/passwd: not a regular file" ]
}

@test "a jail cannot bind an address not its own: IP_FREEBIND and IPV6_FREEBIND are EPERM, bind EADDRNOTAVAIL" {
	run jail_py '
u4 = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
u6 = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
try_call("ip_freebind", u4.setsockopt, socket.SOL_IP, 15, 1)
try_call("ipv6_freebind", u6.setsockopt, socket.IPPROTO_IPV6, 78, 1)
try_call("ip_freebind6", u6.setsockopt, socket.SOL_IP, 15, 1)
try_call("bind4", u4.bind, ("198.51.100.7", 0))
try_call("bind6", u6.bind, ("2001:db8::7", 0))
# Other options of the same levels still work.
try_call("ip_tos", u4.setsockopt, socket.SOL_IP, socket.IP_TOS, 16)
'
	[ "$status" -eq 0 ]
	[ "${lines[*]}" = "ip_freebind EPERM ipv6_freebind EPERM ip_freebind6 EPERM bind4 EADDRNOTAVAIL bind6 EADDRNOTAVAIL ip_tos ok" ]
}
