#!/bin/sh
# /init of the VM that tests/vm/cgroup2.sh boots (busybox sh, pid 1).
#
# vm_guest_start (tests/vm/guest.sh) moves into a tmpfs and mounts the
# usual filesystems with cgroup2 at /sys/fs/cgroup; then this enables
# pids, memory and cpu for the children of the root cgroup (where /init
# runs: the root is exempt from the "no internal processes" rule), runs
# the checks and prints TAP on the console.  The last line is "cell-vm: done".
# shellcheck disable=SC2016,SC2034 # the checks are eval'd strings
PATH=/bin:/sbin:/usr/bin:/usr/sbin
export PATH

# shellcheck source=tests/vm/guest.sh
. /lib/vm-guest.sh
vm_guest_start "$@"

CG=/sys/fs/cgroup
CELL="/bin/cell --root /run/cell-test"
n=0

ok() {
	n=$((n + 1))
	echo "ok $n - $1"
}
not_ok() {
	n=$((n + 1))
	echo "not ok $n - $1"
	shift
	for l in "$@"; do
		printf '%s\n' "$l" | sed 's/^/#   /'
	done
}
# check DESC COND...: ok when COND succeeds; the last run's output,
# status and stderr are shown when it does not.
check() {
	d=$1
	shift
	if "$@"; then
		ok "$d"
	else
		not_ok "$d" "status: $rc" "stdout: $out" "stderr: $(cat /tmp/err)"
	fi
}

# run ARGS...: `cell run ARGS`, stdout in $out, status in $rc, stderr in
# /tmp/err; then notes any cgroup the jail left behind.
leftover=""
run() {
	out=$($CELL run "$@" </dev/null 2>/tmp/err)
	rc=$?
	left=$(ls -d $CG/cell-* 2>/dev/null)
	[ -z "$left" ] || leftover="$leftover [after: $*] $left"
	# a leftover is reported once, not again after every later jail
	for d in $left; do rmdir "$d" 2>/dev/null; done
}

# (a new line first: the firmware's last one has no end)
echo
echo "# kernel $(uname -r), $(cat $CG/cgroup.controllers | tr '\n' ' ')"
if ! echo "+pids +memory +cpu" >$CG/cgroup.subtree_control; then
	echo "not ok 1 - enable pids memory cpu in $CG/cgroup.subtree_control"
	echo "cell-vm: done"
	poweroff -f
fi
echo "# subtree_control: $(cat $CG/cgroup.subtree_control)"

# (a) cgroup2 is mounted inside, rooted at the jail's own cgroup
run --nrtask 20 -- cat $CG/pids.max
check "(a) --nrtask 20: pids.max inside is 20" [ "$rc" = 0 -a "$out" = 20 ]

run --nrtask 20 -- cat /proc/self/mountinfo
mnt=$(printf '%s\n' "$out" | grep " $CG ")
check "(a) $CG inside is a read-only cgroup2 mount" \
	eval 'printf "%s\n" "$mnt" | grep -qE "^[^ ]+ [^ ]+ [^ ]+ / $CG ro,[^ ]* .*- cgroup2 "'

# (b) memory, and no swap beyond it
run --memory 64M -- sh -c "cat $CG/memory.max; if [ -e $CG/memory.swap.max ]; then cat $CG/memory.swap.max; else echo none; fi"
mem=$(printf '%s\n' "$out" | sed -n 1p)
swap=$(printf '%s\n' "$out" | sed -n 2p)
check "(b) --memory 64M: memory.max inside is 67108864" [ "$rc" = 0 -a "$mem" = 67108864 ]
if [ "$swap" = none ]; then
	ok "(b) memory.swap.max # skip: no swap accounting"
else
	check "(b) --memory 64M: memory.swap.max inside is 0" [ "$swap" = 0 ]
fi

# (c) CPU bandwidth
run --cpus 0.5 -- cat $CG/cpu.max
check "(c) --cpus 0.5: cpu.max inside is \"50000 100000\"" [ "$rc" = 0 -a "$out" = "50000 100000" ]

# (d) a fork bomb is held by --nrtask 10.  The subshell forks `sleep 5 &`
# until a fork fails (busybox sh then exits) or 50 have started; with
# the outer shell and the subshell, at most 8 sleeps fit in 10 tasks.
# The jail ends with its pid 1, which takes the sleeps with it.
run --nrtask 10 -- sh -c '
	( i=0; while [ $i -lt 50 ]; do sleep 5 & i=$((i + 1)); echo $i >/tmp/n; done )
	read n </tmp/n; echo $n'
check "(d) fork bomb in --nrtask 10: held at $out children (<= 9), fork failed with EAGAIN" \
	eval '[ "$rc" = 0 ] && [ "$out" -ge 1 -a "$out" -le 9 ] &&
		grep -qx "sh: can'"'"'t fork: Resource temporarily unavailable" /tmp/err'


# (e) a memory hog in --memory 32M: the shell holds 100 MB in a variable;
# the OOM killer takes the whole jail (memory.oom.group), pid 1 included.
run --memory 32M -- sh -c 'x=$(yes aaaaaaaaaaaaaaa | head -c 100000000); echo survived ${#x}'
ooms=$(dmesg | grep -c "Memory cgroup out of memory: Killed process")
check "(e) memory hog in --memory 32M is killed: status 137, nothing printed" \
	[ "$rc" = 137 -a -z "$out" -a ! -s /tmp/err ]
check "(e) the memory cgroup's OOM killer killed it ($ooms kill(s) in the kernel log)" [ "$ooms" -ge 1 ]

# (g) the jail's cgroup is the root of its cgroup namespace
run --nrtask 20 -- cat /proc/self/cgroup
check "(g) /proc/self/cgroup inside is 0::/" [ "$rc" = 0 -a "$out" = "0::/" ]

# (h) a missing --cgroup-parent is cell's failure, in one line
run --cgroup-parent /nope -- true
lines=$(wc -l </tmp/err)
check "(h) --cgroup-parent /nope: status 125, one line: $(cat /tmp/err)" [ "$rc" = 125 -a "$lines" = 1 ]

# (i) cell inspect of a running jail
$CELL run --name x --nrtask 5 -- sleep 2 </dev/null >/dev/null 2>/tmp/err-x &
bg=$!
i=0
while [ $i -lt 50 ]; do
	# running, not "creating": its cgroup may not hold it yet
	insp=$($CELL inspect x 2>/dev/null) && printf '%s\n' "$insp" | grep -qx state=running && break
	usleep 20000
	i=$((i + 1))
done
procs=$(cat $CG/cell-*-x/cgroup.procs 2>/dev/null | wc -l)
wait $bg
rc=$?
out=$insp
check "(i) inspect x: cgroup.layout=v2" eval 'printf "%s\n" "$insp" | grep -qx cgroup.layout=v2'
check "(i) inspect x: usage.tasks=1" eval 'printf "%s\n" "$insp" | grep -qx usage.tasks=1'
check "(i) inspect x: nrtask=5" eval 'printf "%s\n" "$insp" | grep -qx nrtask=5'
check "(i) the jail's one process is in $(printf '%s\n' "$insp" | sed -n 's/^cgroup.path=//p')" [ "$procs" = 1 ]
check "(i) the jail x ended with status 0" [ "$rc" = 0 ]
left=$(ls -d $CG/cell-* 2>/dev/null)
[ -z "$left" ] || leftover="$leftover [after: x] $left"

# (j) a detached jail: exec joins its cgroup (CLONE_INTO_CGROUP), set
# changes its limits live, stop kills it (cgroup.kill) and releases it
$CELL run -d --name y --nrtask 5 --memory 64M -- sleep 100 </dev/null >/dev/null 2>/tmp/err
rc=$?
check "(j) run -d y: status 0" [ "$rc" = 0 ]
ycg=$(ls -d $CG/cell-*-y 2>/dev/null)
out=$($CELL exec y cat /proc/self/cgroup </dev/null 2>/tmp/err)
rc=$?
check "(j) exec y: in the jail's cgroup namespace (/proc/self/cgroup is 0::/)" \
	[ "$rc" = 0 -a "$out" = "0::/" ]
out=$($CELL exec y cat /sys/fs/cgroup/cgroup.procs </dev/null 2>/tmp/err | wc -l | tr -d ' ')
check "(j) exec y: in the jail's cgroup (its reaper, sleep and the exec'd cat)" [ "$out" = 3 ]
$CELL set y nrtask=9 memory=32M </dev/null 2>/tmp/err
rc=$?
out="$(cat "$ycg/pids.max" 2>/dev/null) $(cat "$ycg/memory.max" 2>/dev/null)"
check "(j) set y nrtask=9 memory=32M: pids.max and memory.max follow" \
	[ "$rc" = 0 -a "$out" = "9 33554432" ]
$CELL stop -t 0 y 2>/tmp/err
rc=$?
out=$($CELL ls -a -n -o name,state 2>/tmp/err)
check "(j) stop y: stopped, its cgroup removed" [ "$rc" = 0 -a "$out" = "name=y state=stopped" -a ! -d "$ycg" ]
$CELL rm y 2>/tmp/err
rc=$?
check "(j) rm y: no state left" [ "$rc" = 0 -a ! -e /run/cell-test/y ]

# (k) set gives a jail started without limits a cgroup, every process
# moved in; stop and rm remove it
$CELL run -d --name z -- sh -c 'sleep 100 & wait' </dev/null >/dev/null 2>/tmp/err
rc=$?
check "(k) run -d z without limits: status 0, no cgroup of its own" \
	[ "$rc" = 0 -a -z "$(ls -d $CG/cell-*-z 2>/dev/null)" ]
$CELL set z nrtask=7 memory=32M </dev/null 2>/tmp/err
rc=$?
zcg=$(ls -d $CG/cell-*-z 2>/dev/null)
out="$(cat "$zcg/pids.max" 2>/dev/null) $(cat "$zcg/memory.max" 2>/dev/null)"
check "(k) set z nrtask=7 memory=32M: a new cgroup with pids.max and memory.max" \
	[ "$rc" = 0 -a -n "$zcg" -a "$out" = "7 33554432" ]
out=$(wc -l <"$zcg/cgroup.procs" 2>/dev/null | tr -d ' ')
check "(k) all of z's processes (its reaper, sh and sleep) are in it" [ "$out" = 3 ]
$CELL stop -t 0 z 2>/tmp/err && $CELL rm z 2>/tmp/err
rc=$?
check "(k) stop and rm z: its new cgroup removed, no state left" \
	[ "$rc" = 0 -a ! -d "$zcg" -a ! -e /run/cell-test/z ]

# (l) set of a limit a v2 jail's cgroup has no value for yet: the same
# cgroup, the controller's file written
$CELL run -d --name w --nrtask 5 -- sleep 100 </dev/null >/dev/null 2>/tmp/err
wcg=$(ls -d $CG/cell-*-w 2>/dev/null)
$CELL set w cpus=0.5 </dev/null 2>/tmp/err
rc=$?
out="$(ls -d $CG/cell-*-w 2>/dev/null) $(cat "$wcg/cpu.max" 2>/dev/null)"
check "(l) set w cpus=0.5 (started with --nrtask 5 only): cpu.max in its cgroup" \
	[ "$rc" = 0 -a -n "$wcg" -a "$out" = "$wcg 50000 100000" ]
$CELL rm -f w 2>/tmp/err
rc=$?
check "(l) rm -f w: its cgroup removed" [ "$rc" = 0 -a ! -d "$wcg" ]

# (m) --allow set_hostname on v2: a user namespace of the jail's own,
# with its cgroup mounted as usual; the guest's hostname unchanged
guest_host=$(hostname)
run --allow set_hostname --nrtask 5 -- sh -c \
	'hostname m && hostname; readlink /proc/self/ns/user; cat /sys/fs/cgroup/pids.max'
m_host=$(echo "$out" | sed -n 1p)
m_user=$(echo "$out" | sed -n 2p)
m_pids=$(echo "$out" | sed -n 3p)
check "(m) --allow set_hostname --nrtask 5: hostname set inside, own user namespace, pids.max 5" \
	[ "$rc" = 0 -a "$m_host" = m -a -n "$m_user" -a "$m_user" != "$(readlink /proc/self/ns/user)" \
	-a "$m_pids" = 5 -a "$(hostname)" = "$guest_host" ]

# (n) devices on v2: a --rootfs jail with a host device bound in gets an
# eBPF device program that denies it (EPERM) and allows the standard set.
# The device: a node of /dev/kmsg that the jail's root may open (0666;
# for writing, which needs no CAP_SYSLOG), bound with :dev (a bind is
# nodev otherwise: EACCES whatever the program says).
jr=/tmp/jail-root
mkdir -p $jr/bin
cp /bin/busybox $jr/bin/busybox
for a in sh cat echo head wc; do ln -sf busybox $jr/bin/$a; done
mknod -m 666 /tmp/kmsg c 1 11
# Linux before 6.3 idmaps no tmpfs (the guest's /tmp): a --rootfs there
# is refused with a line naming 6.3, and the jails below share the
# guest's user namespace (--userns host) to test what they are for.
kv=$(uname -r)
kmaj=${kv%%.*}
kmin=${kv#*.}
kmin=${kmin%%[!0-9]*}
jr_userns=""
if [ "$kmaj" -lt 6 ] || { [ "$kmaj" = 6 ] && [ "$kmin" -lt 3 ]; }; then
	jr_userns="--userns host"
	run --rootfs $jr -- true
	named=$(grep -c 'a tmpfs is idmapped from Linux 6.3 on' /tmp/err)
	check "(n) Linux $kv: a --rootfs on tmpfs is refused, the error naming Linux 6.3" \
		[ "$rc" = 125 -a "$named" = 1 ]
fi
run $jr_userns --rootfs $jr --bind /tmp/kmsg:/tmp/k:dev -- sh -c \
	'(: >/tmp/k) 2>&1; echo "status $?"; echo x >/dev/null && echo null; head -c 8 /dev/urandom | wc -c'
check "(n) --rootfs --bind a host device: the open fails with EPERM; null and urandom work" \
	[ "$rc" = 0 -a "$out" = "sh: can't create /tmp/k: Operation not permitted
status 1
null
8" ]
run $jr_userns --no-policy --rootfs $jr --bind /tmp/kmsg:/tmp/k:dev -- sh -c '(: >/tmp/k) 2>&1; echo "status $?"'
check "(n) the same without the policy (no device program) opens it" [ "$rc" = 0 -a "$out" = "status 0" ]

# (o) freezer on v2: a --rootfs jail's cgroup (cgroup.freeze) freezes and
# thaws; cell stop of a jail that forks in a loop ends it (cgroup.kill)
# and removes its cgroup
$CELL run -d --name f $jr_userns --rootfs $jr --nrtask 50 -- sh -c 'while :; do (sleep 100 &) 2>/dev/null; done' \
	</dev/null >/dev/null 2>/tmp/err
fcg=$(ls -d $CG/cell-*-f 2>/dev/null)
echo 1 >"$fcg/cgroup.freeze"
i=0
while [ $i -lt 100 ] && ! grep -qx "frozen 1" "$fcg/cgroup.events"; do usleep 20000; i=$((i + 1)); done
out=$(grep frozen "$fcg/cgroup.events")
echo 0 >"$fcg/cgroup.freeze"
check "(o) the jail's cgroup freezes (cgroup.events: $out)" [ "$out" = "frozen 1" ]
fpid=$(sed -n 's/.*"pid":\([0-9]*\).*/\1/p' /run/cell-test/f/state.json)
fns=$(readlink /proc/$fpid/ns/pid)
$CELL stop -t 0 f 2>/tmp/err
rc=$?
left=0
for p in /proc/[0-9]*; do
	[ "$(readlink $p/ns/pid 2>/dev/null)" = "$fns" ] || continue
	[ "$(sed 's/.*) //' $p/stat 2>/dev/null | cut -d' ' -f1)" = Z ] || left=$((left + 1))
done
check "(o) stop f (forking in a loop): no process left ($left), its cgroup removed" \
	[ "$rc" = 0 -a "$left" = 0 -a -n "$fcg" -a ! -d "$fcg" ]
$CELL rm f 2>/tmp/err

# (r) rootless: uid 1000 runs cell (util-linux's setpriv; busybox has no
# setuid tool).  Its state root is /tmp/cell-1000, its user namespace the
# single mapping (no newuidmap here).  First in the root cgroup, which is
# root's: no delegation; then in DELEG/shell, DELEG a directory root made
# and gave to the user as systemd delegates (it, cgroup.procs,
# cgroup.subtree_control, cgroup.threads), its controllers not enabled
# for its children: cell enables them.
echo "user:x:1000:1000:user:/tmp:/bin/sh" >>/etc/passwd
echo "user:x:1000:" >>/etc/group
AS_USER="/usr/local/bin/setpriv --reuid=1000 --regid=1000 --clear-groups env HOME=/tmp /bin/cell"
as_user() {
	$AS_USER "$@"
}
# ur ARGS...: `cell ARGS` as the user in the root cgroup; ud: in DELEG/shell
ur() {
	out=$(as_user "$@" </dev/null 2>/tmp/err)
	rc=$?
}
D=$CG/deleg
ud() {
	out=$(sh -c 'echo $$ >'"$D"'/shell/cgroup.procs && exec "$@"' sh $AS_USER "$@" \
		</dev/null 2>/tmp/err)
	rc=$?
}
how='run in a scope of "systemd-run --user --scope -p Delegate=yes" or have root delegate a directory (chown it to you) and pass --cgroup-parent'

ur run --memory 64M -- true
check "(r) rootless, no delegation: --memory 64M is refused in one line saying how, status 125, nothing made" \
	[ "$rc" = 125 -a "$(cat /tmp/err)" = "cell: run: --memory 64M: needs a delegated cgroup v2 subtree (rootless, and none found): $how" \
	-a -z "$(ls -A /tmp/cell-1000 2>/dev/null)" ]
ur run -- sh -c 'id -u; cat /proc/self/uid_map'
check "(r) rootless, no delegation: a jail without limits runs, as root of a namespace mapping uid 1000" \
	[ "$rc" = 0 -a "$(echo $out)" = "0 0 1000 1" ]

mkdir $D $D/shell
chown 1000:1000 $D $D/cgroup.procs $D/cgroup.subtree_control $D/cgroup.threads
ud run --memory 64M --nrtask 20 -- sh -c "cat $CG/memory.max $CG/pids.max; grep ^0:: /proc/self/cgroup"
check "(r) rootless, delegated: --memory 64M --nrtask 20: memory.max and pids.max inside, its own cgroup namespace" \
	[ "$rc" = 0 -a "$out" = "67108864
20
0::/" ]
check "(r) rootless, delegated: the jail's cgroup and cell's directory were removed" \
	[ -z "$(ls -d $D/cell 2>/dev/null)" ]

ud run -d --name r --memory 64M --nrtask 20 -- sleep 100
rcg=$(ls -d $D/cell/cell-*-r 2>/dev/null)
check "(r) rootless run -d r: its cgroup is the user's, in $D/cell, with memory.max and pids.max" \
	[ "$rc" = 0 -a -n "$rcg" -a "$(cat "$rcg/memory.max" 2>/dev/null) $(cat "$rcg/pids.max" 2>/dev/null)" = "67108864 20" \
	-a "$(stat -c %u "$rcg" 2>/dev/null)" = 1000 ]
check "(r) rootless: $D/cell gives the controllers on (subtree_control: $(cat $D/cell/cgroup.subtree_control 2>/dev/null))" \
	eval 'grep -qw memory $D/cell/cgroup.subtree_control && grep -qw pids $D/cell/cgroup.subtree_control'
ud inspect r
check "(r) rootless inspect r: cgroup.path=$rcg, cgroup.delegated=$D" \
	eval 'printf "%s\n" "$out" | grep -qx "cgroup.path=$rcg" && printf "%s\n" "$out" | grep -qx "cgroup.delegated=$D"'
ud set r nrtask=30
check "(r) rootless set r nrtask=30: pids.max follows" [ "$rc" = 0 -a "$(cat "$rcg/pids.max" 2>/dev/null)" = 30 ]
ud stop -t 0 r
stop_rc=$rc
ud rm r
check "(r) rootless stop and rm r: its cgroup and $D/cell removed, no state left" \
	[ "$stop_rc" = 0 -a "$rc" = 0 -a ! -d "$rcg" -a ! -d $D/cell -a ! -e /tmp/cell-1000/r ]

ud run --nrtask 10 -- sh -c '
	( i=0; while [ $i -lt 50 ]; do sleep 5 & i=$((i + 1)); echo $i >/tmp/n; done )
	read n </tmp/n; echo $n'
check "(r) rootless fork bomb in --nrtask 10: held at $out children (<= 9), fork failed with EAGAIN" \
	eval '[ "$rc" = 0 ] && [ "$out" -ge 1 -a "$out" -le 9 ] &&
		grep -qx "sh: can'"'"'t fork: Resource temporarily unavailable" /tmp/err'

ud run -d --name g -- sh -c 'sleep 100 & wait'
ud set g memory=32M nrtask=7
gcg=$(ls -d $D/cell/cell-*-g 2>/dev/null)
check "(r) rootless set g memory=32M nrtask=7 (started without): a cgroup in $D/cell with both" \
	[ "$rc" = 0 -a -n "$gcg" -a "$(cat "$gcg/memory.max" 2>/dev/null) $(cat "$gcg/pids.max" 2>/dev/null)" = "33554432 7" ]
check "(r) all of g's processes (its reaper, sh and sleep) moved in" \
	[ "$(wc -l <"$gcg/cgroup.procs" 2>/dev/null | tr -d ' ')" = 3 ]
ud rm -f g
check "(r) rootless rm -f g: its cgroup removed" [ "$rc" = 0 -a -n "$gcg" -a ! -d "$gcg" -a ! -d $D/cell ]
rmdir $D/shell $D 2>/dev/null
check "(r) nothing of cell's left in $D" [ ! -d $D ]

# (f) every jail's cgroup was removed when it ended
if [ -z "$leftover" ]; then
	ok "(f) no cell-* cgroup left under $CG after any jail"
else
	not_ok "(f) no cell-* cgroup left under $CG after any jail" "left: $leftover"
fi

# (s) cell-oci's tree (rootfs_oci.c) on this kernel: `cell-oci spec`'s
# masked paths masked (a file by a null device, a directory by an empty
# tmpfs) and /proc/sys read-only
if [ -x /bin/cell-oci ]; then
	mkdir -p /tmp/oci/rootfs/bin
	cp /bin/busybox /tmp/oci/rootfs/bin/
	for a in sh cat wc ls awk; do ln -s busybox /tmp/oci/rootfs/bin/$a; done
	cp /etc/oci-config.json /tmp/oci/config.json
	out=$(/bin/cell-oci --root /run/oci-test run -b /tmp/oci s </dev/null 2>/tmp/err)
	rc=$?
	check "(s) cell-oci run: /proc/keys reads empty, /proc/acpi lists nothing, /proc/sys is read-only" \
		[ "$rc" = 0 -a "$(echo $out)" = "0 0 ro" ]
	rm -rf /tmp/oci
fi

echo "1..$n"
echo "cell-vm: done"
poweroff -f
