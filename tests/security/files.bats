#!/usr/bin/env bats
# A jail's root, whatever it may do to its files, never makes one that
# gives privilege to whoever runs it on the host (security issue 13): no
# setuid or setgid file, no file capabilities; and no audit writes.
#
# Safety: every probe runs behind a guard that exits 99 unless it is in
# a UTS and a pid namespace other than the host's.  Its files are in a
# directory of the test's own, bound in.
load ../integration/helpers

GUARD_PY=$JAIL_GUARD_PY

jail_py() {
	cell run -e HOST_UTS="$HOST_UTS" -e HOST_PID="$HOST_PID" --bind "$WORK/w:/tmp/w" -- \
		python3 -c "$GUARD_PY$1"
}

setup() {
	cell_setup
	mkdir "$WORK/w"
	touch "$WORK/w/f"
}

teardown() { cell_teardown; }

@test "a jail cannot make a setuid or setgid file: EPERM, and the file stays as it was" {
	run jail_py '
try_call("chmod u+s", lambda: os.chmod("/tmp/w/f", 0o4755))
try_call("chmod g+s", lambda: os.chmod("/tmp/w/f", 0o2755))
try_call("fchmod u+s", lambda: os.fchmod(os.open("/tmp/w/f", os.O_RDONLY), 0o4755))
try_call("chmod 0755", lambda: os.chmod("/tmp/w/f", 0o755))
try_call("creat u+s", lambda: os.close(os.open("/tmp/w/g", os.O_CREAT | os.O_WRONLY, 0o4755)))
try_call("creat g+s", lambda: os.close(os.open("/tmp/w/g", os.O_CREAT | os.O_WRONLY, 0o2755)))
try_call("creat 0644", lambda: os.close(os.open("/tmp/w/h", os.O_CREAT | os.O_WRONLY, 0o644)))
try_call("mknod u+s", lambda: os.mknod("/tmp/w/n", 0o104755))'
	[ "$status" -eq 0 ]
	[ "$output" = "chmod u+s EPERM
chmod g+s EPERM
fchmod u+s EPERM
chmod 0755 ok
creat u+s EPERM
creat g+s EPERM
creat 0644 ok
mknod u+s EPERM" ]
	[ "$(stat -c %a "$WORK/w/f")" = 755 ]
	[ ! -e "$WORK/w/g" ]
	[ ! -e "$WORK/w/n" ]
	[ -z "$(find "$WORK/w" -perm /6000)" ]
}

@test "a jail cannot give a file capabilities: EPERM" {
	# A version 2 capability set of CAP_NET_RAW, as setcap writes it.
	run jail_py '
cap = bytes([0, 0, 0, 2, 0, 32, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0])
try_call("setxattr security.capability", lambda: os.setxattr("/tmp/w/f", "security.capability", cap))'
	[ "$status" -eq 0 ]
	[ "$output" = "setxattr security.capability EPERM" ]
	# The host's view: no capability on the file.
	run python3 -c 'import errno, os, sys
try:
    os.getxattr(sys.argv[1], "security.capability")
    print("has capabilities")
except OSError as e:
    print(errno.errorcode[e.errno])' "$WORK/w/f"
	[ "$output" = ENODATA ]
}

@test "a jail holds neither CAP_SETFCAP nor CAP_AUDIT_WRITE, even in its bounding set" {
	run jail_py '
bnd = int([l for l in open("/proc/self/status") if l.startswith("CapBnd:")][0].split()[1], 16)
print("setfcap", bool(bnd & (1 << 31)), "audit_write", bool(bnd & (1 << 29)))'
	[ "$status" -eq 0 ]
	[ "$output" = "setfcap False audit_write False" ]
}
