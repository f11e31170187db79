# Common setup and teardown for the OCI conformance suite (tests/oci).
#
# The suite runs against any OCI runtime with runc's command line:
# $OCI_RUNTIME is its path (default: build/cell-oci), always called with
# a private --root under the test's temp dir.  OCI_RUNTIME_NAME names it
# in messages and in the skips of known differences.
#
# setup_file (oci_setup_file) builds a template bundle once per file: a
# busybox-static root (`busybox --install -s` run chrooted, so the links
# point to /bin/busybox inside the root) with the static checker
# (checker.c) in /bin.  Each test (oci_setup) gets a private $WORK with
# a copy of it in $BUNDLE, a fresh config.json written by oci_config, a
# state root $OCI_ROOT and a container id $ID unique to the run.
#
# Teardown kills and deletes every container under $OCI_ROOT, then fails
# the test if a container process survived, if a mount under $WORK or a
# cgroup named after one of the test's ids is left, if the host's
# hostname changed or if /dev/null is no longer root:root 0666 c 1,3
# (crun 1.8.1 chowns it in some user-namespace runs); each is repaired
# and $WORK removed in every case.

bats_require_minimum_version 1.5.0

OCI_RUNTIME=${OCI_RUNTIME:-$BATS_TEST_DIRNAME/../../build/cell-oci}
OCI_RUNTIME_NAME=${OCI_RUNTIME_NAME:-$(basename "$OCI_RUNTIME")}
# The longest any single runtime call may take before the test fails
# instead of hanging the suite.
OCI_TIMEOUT=${OCI_TIMEOUT:-60}

HOST_UTS=$(readlink /proc/self/ns/uts)
HOST_PID=$(readlink /proc/self/ns/pid)
HOST_NET=$(readlink /proc/self/ns/net)
HOST_MNT=$(readlink /proc/self/ns/mnt)
# The guard first in every probe that would harm the host if it ran
# there: exits 99 unless the shell is in a UTS and a pid namespace that
# are not the host's.  It fails closed (no /proc: the host's).
JAIL_GUARD_SH="u=\$(readlink /proc/self/ns/uts) && p=\$(readlink /proc/self/ns/pid) &&
[ -n \"\$u\" ] && [ -n \"\$p\" ] && [ \"\$u\" != '$HOST_UTS' ] && [ \"\$p\" != '$HOST_PID' ] || exit 99"

oci_setup_file() {
	local tpl
	[ -x "$OCI_RUNTIME" ] || {
		echo "OCI_RUNTIME=$OCI_RUNTIME is not an executable" >&2
		return 1
	}
	tpl=$(mktemp -d /var/tmp/oci-template.XXXXXX)
	export OCI_TEMPLATE=$tpl
	mkdir -p "$tpl/rootfs/bin" "$tpl/rootfs/etc" "$tpl/rootfs/proc" \
		"$tpl/rootfs/sys" "$tpl/rootfs/dev" "$tpl/rootfs/tmp" "$tpl/rootfs/root"
	cp /bin/busybox "$tpl/rootfs/bin/busybox"
	chroot "$tpl/rootfs" /bin/busybox --install -s /bin
	gcc -static -O2 -Wall -Wextra -Werror -o "$tpl/rootfs/bin/checker" \
		"$BATS_TEST_DIRNAME/checker.c"
	# The host side's copy (console socket, renameat2 race).
	cp "$tpl/rootfs/bin/checker" "$tpl/checker"
	printf 'root:x:0:0:root:/root:/bin/sh\nuser:x:1000:1000:user:/tmp:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/false\n' \
		>"$tpl/rootfs/etc/passwd"
	printf 'root:x:0:\nuser:x:1000:\ntty:x:5:\nnogroup:x:65534:\n' >"$tpl/rootfs/etc/group"
	chmod 755 "$tpl" "$tpl/rootfs"
	chmod 1777 "$tpl/rootfs/tmp"
}

oci_teardown_file() {
	[ -n "${OCI_TEMPLATE:-}" ] && rm -rf --one-file-system "$OCI_TEMPLATE"
}

setup_file() { oci_setup_file; }
teardown_file() { oci_teardown_file; }

oci_setup() {
	HOST_NAMES="$(cat /proc/sys/kernel/hostname) $(cat /proc/sys/kernel/domainname)"
	WORK=$(mktemp -d /var/tmp/oci-work.XXXXXX)
	# A user-namespace container's root must be able to reach its root.
	chmod 755 "$WORK"
	OCI_ROOT=$WORK/state
	BUNDLE=$WORK/bundle
	CHECKER=$OCI_TEMPLATE/checker
	mkdir -p "$BUNDLE"
	cp -a "$OCI_TEMPLATE/rootfs" "$BUNDLE/rootfs"
	# Unique on the host while the run lasts: runtimes name cgroups
	# after it.
	ID=oci$$-$BATS_TEST_NUMBER
	IDS=("$ID")
	OCI_CGROUP_PARENTS=()
	BG_PIDS=()
	JQ_ARGS=()
	# Mounts a test made on the host under $WORK (teardown unmounts them).
	OCI_HOST_MOUNTS=()
	oci_config >"$BUNDLE/config.json"
}

setup() { oci_setup; }
teardown() { oci_teardown; }

# oci ARG...: the runtime with the test's private state root.
oci() {
	timeout -k 5 "$OCI_TIMEOUT" "$OCI_RUNTIME" --root "$OCI_ROOT" "$@"
}

# The base config: runc's `spec` as it would be for a root container
# (the mounts, namespaces, masked and read-only paths and capabilities
# engines pass), without a terminal, running sh.  Written here, not by
# `$OCI_RUNTIME spec`, so that every runtime gets the same input.
oci_config() {
	cat <<-'EOF'
		{
		  "ociVersion": "1.0.2",
		  "process": {
		    "terminal": false,
		    "user": { "uid": 0, "gid": 0 },
		    "args": [ "sh" ],
		    "env": [ "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "TERM=xterm" ],
		    "cwd": "/",
		    "capabilities": {
		      "bounding": [ "CAP_AUDIT_WRITE", "CAP_KILL", "CAP_NET_BIND_SERVICE" ],
		      "effective": [ "CAP_AUDIT_WRITE", "CAP_KILL", "CAP_NET_BIND_SERVICE" ],
		      "permitted": [ "CAP_AUDIT_WRITE", "CAP_KILL", "CAP_NET_BIND_SERVICE" ]
		    },
		    "rlimits": [ { "type": "RLIMIT_NOFILE", "hard": 1024, "soft": 1024 } ],
		    "noNewPrivileges": true
		  },
		  "root": { "path": "rootfs", "readonly": false },
		  "hostname": "oci",
		  "mounts": [
		    { "destination": "/proc", "type": "proc", "source": "proc" },
		    { "destination": "/dev", "type": "tmpfs", "source": "tmpfs",
		      "options": [ "nosuid", "strictatime", "mode=755", "size=65536k" ] },
		    { "destination": "/dev/pts", "type": "devpts", "source": "devpts",
		      "options": [ "nosuid", "noexec", "newinstance", "ptmxmode=0666", "mode=0620", "gid=5" ] },
		    { "destination": "/dev/shm", "type": "tmpfs", "source": "shm",
		      "options": [ "nosuid", "noexec", "nodev", "mode=1777", "size=65536k" ] },
		    { "destination": "/dev/mqueue", "type": "mqueue", "source": "mqueue",
		      "options": [ "nosuid", "noexec", "nodev" ] },
		    { "destination": "/sys", "type": "sysfs", "source": "sysfs",
		      "options": [ "nosuid", "noexec", "nodev", "ro" ] }
		  ],
		  "linux": {
		    "namespaces": [
		      { "type": "pid" }, { "type": "network" }, { "type": "ipc" },
		      { "type": "uts" }, { "type": "mount" }
		    ],
		    "maskedPaths": [
		      "/proc/acpi", "/proc/asound", "/proc/kcore", "/proc/keys",
		      "/proc/latency_stats", "/proc/timer_list", "/proc/timer_stats",
		      "/proc/sched_debug", "/sys/firmware", "/proc/scsi"
		    ],
		    "readonlyPaths": [
		      "/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys", "/proc/sysrq-trigger"
		    ]
		  }
		}
	EOF
}

# cfg JQ-FILTER [JQ-ARG...]: edit the bundle's config.json in place.
cfg() {
	local f=$1
	shift
	jq "${JQ_ARGS[@]}" "$@" "$f" "$BUNDLE/config.json" >"$BUNDLE/config.json.new" &&
		mv "$BUNDLE/config.json.new" "$BUNDLE/config.json"
}

# args ARG...: set process.args.
args() {
	jq_array_args "$@"
	cfg ".process.args = $JQ_EXPR"
	JQ_ARGS=()
}

# jq_array_args ARG...: sets JQ_ARGS to jq options naming each ARG (cfg
# passes them) and JQ_EXPR to a jq expression of their array.  (Not
# jq's --args: jq 1.6 takes a "-c" among them for its own option.)
jq_array_args() {
	local i=0 a
	JQ_ARGS=()
	for a; do
		JQ_ARGS+=(--arg "a$i" "$a")
		i=$((i + 1))
	done
	JQ_EXPR="[range(0; $i) as \$i | \$ARGS.named[\"a\(\$i)\"]]"
}

# sh_args SCRIPT: process.args = sh -c SCRIPT.
sh_args() {
	args sh -c "$1"
}

# oci_run [ID]: `run` the bundle attached (bats run): the container's
# output in $output, its exit status in $status.  stdin is /dev/null.
oci_run() {
	remember_id "${1:-$ID}"
	run oci run --bundle "$BUNDLE" "${1:-$ID}" </dev/null
}

# oci_create [ID [BUNDLE]]: create, the container's stdio on files in
# $WORK (a pipe to bats would keep `run` waiting for the container);
# status and the runtime's stderr in $status / $output.
oci_create() {
	local id=${1:-$ID} bundle=${2:-$BUNDLE}
	remember_id "$id"
	# Not bats' run: its command substitution would wait for the
	# container, which holds the stdout it is given.
	status=0
	oci create --bundle "$bundle" "$id" \
		<"${OCI_STDIN:-/dev/null}" >"$WORK/$id.out" 2>"$WORK/$id.err" 3>&- || status=$?
	output=$(cat "$WORK/$id.err")
}

# must_create [ID [BUNDLE]]: oci_create that must succeed.
must_create() {
	oci_create "$@"
	if [ "$status" -ne 0 ]; then
		echo "create ${1:-$ID} failed ($status): $output" >&2
		return 1
	fi
}

# must_start [ID]: start, which must succeed.  (A runtime that lets the
# container inherit start's stdio would hang bats' run: files again.)
must_start() {
	status=0
	oci start "${1:-$ID}" >"$WORK/start.out" 2>&1 3>&- || status=$?
	output=$(cat "$WORK/start.out")
	if [ "$status" -ne 0 ]; then
		echo "start ${1:-$ID} failed ($status): $output" >&2
		return 1
	fi
}

remember_id() {
	local i
	for i in "${IDS[@]}"; do [ "$i" = "$1" ] && return 0; done
	IDS+=("$1")
}

# state_field FIELD [ID]: one field of `state`.
state_field() {
	oci state "${2:-$ID}" | jq -r ".$1"
}

# container_pid [ID]: the container process's pid on the host.
container_pid() {
	state_field pid "${1:-$ID}"
}

# wait_status_is STATUS [ID] [TENTHS]: poll `state` until its status is
# STATUS (default 10 s).
wait_status_is() {
	local i s
	for ((i = 0; i < ${3:-100}; i++)); do
		s=$(state_field status "${2:-$ID}" 2>/dev/null)
		[ "$s" = "$1" ] && return 0
		sleep 0.1
	done
	echo "container ${2:-$ID} is '$s', not '$1'" >&2
	return 1
}

# wait_file FILE [TENTHS]: poll until FILE exists and is not empty.
wait_file() {
	local i
	for ((i = 0; i < ${2:-100}; i++)); do
		[ -s "$1" ] && return 0
		sleep 0.1
	done
	echo "timed out waiting for $1" >&2
	return 1
}

# wait_line FILE LINE [TENTHS]: poll until FILE has the line LINE.
wait_line() {
	local i
	for ((i = 0; i < ${3:-100}; i++)); do
		grep -qxF -- "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	echo "timed out waiting for '$2' in $1: $(cat "$1" 2>/dev/null)" >&2
	return 1
}

# pid_gone PID: the process ended (gone or a zombie).
pid_gone() {
	local s
	s=$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null) || return 0
	[ -z "$s" ] || [ "$s" = Z ]
}

wait_pid_gone() {
	local i
	for ((i = 0; i < ${2:-100}; i++)); do
		pid_gone "$1" && return 0
		sleep 0.1
	done
	echo "pid $1 still running" >&2
	return 1
}

# bg COMMAND...: run COMMAND in the background (fd 3 closed so that
# bats does not wait for it); its pid in $BG_PID, ended by teardown.
bg() {
	"$@" 3>&- &
	BG_PID=$!
	BG_PIDS+=("$BG_PID")
}

# wait_bg PID [TENTHS]: wait for a background job (default 10 s); its
# exit status in $status.  A job that does not end fails the test.
wait_bg() {
	wait_pid_gone "$1" "${2:-100}" || return 1
	status=0
	wait "$1" || status=$?
}

# run_detached [ID]: create + start a long-running container (sleep);
# its host pid in $PID.
run_detached() {
	local id=${1:-$ID}
	must_create "$id" && must_start "$id" && wait_status_is running "$id" &&
		PID=$(container_pid "$id")
}

# console_run: create with terminal true and a console socket served by
# the checker; the pty's output in $output once the container exits.
console_run() {
	cfg '.process.terminal = true'
	bg "$CHECKER" recvtty "$WORK/console.sock" ${1:+"$1"} >"$WORK/tty.out" 2>&1
	local recv=$BG_PID i
	for ((i = 0; i < 100; i++)); do
		[ -S "$WORK/console.sock" ] && break
		sleep 0.1
	done
	remember_id "$ID"
	status=0
	oci create --console-socket "$WORK/console.sock" --bundle "$BUNDLE" "$ID" \
		</dev/null >"$WORK/create.out" 2>&1 3>&- || status=$?
	if [ "$status" -ne 0 ]; then
		cat "$WORK/create.out" >&2
		return 1
	fi
	must_start
	wait_bg "$recv"
	output=$(tr -d '\r' <"$WORK/tty.out")
}

# host_cgroup_dir PID CONTROLLER: the directory of PID's cgroup for
# CONTROLLER on the host: v1 (/sys/fs/cgroup/CONTROLLER/...) when that
# hierarchy exists, else the unified one.
host_cgroup_dir() {
	local line path
	if [ -d "/sys/fs/cgroup/$2" ] && [ ! -e /sys/fs/cgroup/cgroup.controllers ]; then
		line=$(grep -E "^[0-9]+:([^:]*,)?$2(,[^:]*)?:" "/proc/$1/cgroup")
		path=${line#*:*:}
		echo "/sys/fs/cgroup/$2$path"
	else
		line=$(grep -E '^0::' "/proc/$1/cgroup")
		path=${line#0::}
		if [ -e /sys/fs/cgroup/cgroup.controllers ]; then
			echo "/sys/fs/cgroup$path"
		else
			echo "/sys/fs/cgroup/unified$path"
		fi
	fi
}

# cgroup_v1: the host's controllers are on cgroup v1 (hybrid or legacy).
cgroup_v1() {
	[ ! -e /sys/fs/cgroup/cgroup.controllers ]
}

# devnull_ok: the host's /dev/null is still root:root 0666 c 1,3.
devnull_ok() {
	[ "$(stat -c '%U:%G %a %F %t,%T' /dev/null)" = "root:root 666 character special file 1,3" ]
}

# leftover_mounts: mount points in the host's table under $WORK.
leftover_mounts() {
	[ -n "$WORK" ] || return 0
	awk -v w="$WORK" 'index($5, w) == 1 { print $5 }' /proc/self/mountinfo
}

# leftover_cgroups: cgroup directories named after one of the test's
# ids, or the parents a test made.
leftover_cgroups() {
	local id
	for id in "${IDS[@]}"; do
		# (a suffix: a runtime may prefix its own name; never a
		# prefix: oci1-1 is not oci1-10)
		find /sys/fs/cgroup -maxdepth 7 -type d -name "*$id" 2>/dev/null
	done
}

oci_teardown() {
	local id pid errors=() pids=() mnt cg

	for id in "${IDS[@]}" $(oci list -q 2>/dev/null); do
		pid=$(oci state "$id" 2>/dev/null | jq -r '.pid // 0' 2>/dev/null)
		[ -n "$pid" ] && [ "$pid" != 0 ] && pids+=("$pid")
		oci kill "$id" KILL >/dev/null 2>&1
		oci delete -f "$id" >/dev/null 2>&1 || true
		if oci state "$id" >/dev/null 2>&1; then
			errors+=("container $id outlived delete -f")
		fi
	done
	for pid in "${BG_PIDS[@]}"; do
		kill -KILL "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	done
	for pid in "${pids[@]}"; do
		if ! wait_pid_gone "$pid" 50 2>/dev/null &&
			[ "$(readlink "/proc/$pid/ns/pid")" != "$HOST_PID" ]; then
			errors+=("container process $pid left running")
			kill -KILL "$pid" 2>/dev/null
		fi
	done
	for mnt in "${OCI_HOST_MOUNTS[@]}"; do
		umount "$mnt" 2>/dev/null || errors+=("cannot unmount the test's $mnt")
	done
	if [ -n "$(leftover_mounts)" ]; then
		errors+=("mounts left behind: $(leftover_mounts | tr '\n' ' ')")
		for mnt in $(leftover_mounts | sort -r); do
			umount -l "$mnt" 2>/dev/null
		done
	fi
	for cg in $(leftover_cgroups | sort -r); do
		if [ -n "$cg" ]; then
			errors+=("cgroup left behind: $cg")
			rmdir "$cg" 2>/dev/null
		fi
	done
	for cg in "${OCI_CGROUP_PARENTS[@]}"; do
		rmdir /sys/fs/cgroup/*/"$cg" /sys/fs/cgroup/"$cg" 2>/dev/null
	done
	if ! devnull_ok; then
		errors+=("the host's /dev/null changed: $(stat -c '%U:%G %a %F %t,%T' /dev/null) (restored)")
		chown root:root /dev/null
		chmod 0666 /dev/null
	fi
	local now
	now="$(cat /proc/sys/kernel/hostname) $(cat /proc/sys/kernel/domainname)"
	if [ "$now" != "$HOST_NAMES" ]; then
		errors+=("the host's hostname/domainname changed: $now (restored)")
		hostname "${HOST_NAMES%% *}"
		domainname "${HOST_NAMES#* }"
	fi
	[ -n "$WORK" ] && rm -rf --one-file-system "$WORK"
	if [ "${#errors[@]}" -gt 0 ]; then
		printf 'teardown: %s\n' "${errors[@]}" >&2
		return 1
	fi
}
