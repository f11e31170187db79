#!/bin/bash
# The startup benchmark: how long `cell run -- /bin/true` takes, side by
# side with the least a jail runtime must do (floor_ns.c), plain
# fork+exec, crun, runc and bwrap, in one hyperfine invocation so that
# all of them see the same machine state.  Then cell's peak RSS and an
# strace account of where its time goes.  docs/PERFORMANCE.md explains
# the output.
#
#   tests/bench/startup.sh [CELL]     (as root; `make bench` runs it)
#
# CELL is the binary to measure: the argument, else $CELL, else
# build/cell.  OLD, when set, is another cell binary (an earlier build)
# measured in the same run, for "no slower than before".  RUNS (200) and WARMUP (20) tune hyperfine;
# ROUNDS (200, 0: none) the interleaved run of the floors and cell's rows after it.  Needs no
# network.  Everything it makes (temp dirs, runc/crun state, their
# cgroups) is removed on exit, even on failure.  Host cgroup mounts are
# never touched: a runtime that refuses the host's layout is reported
# and left out.
set -euo pipefail

CELL=${1:-${CELL:-build/cell}}
RUNS=${RUNS:-200}
WARMUP=${WARMUP:-20}
here=$(cd "$(dirname "$0")" && pwd)

die() {
	echo "startup.sh: $*" >&2
	exit 1
}

[ "$(id -u)" = 0 ] || die "must run as root (namespaces, mounts, runc)"

# The state roots of cell, runc and crun go on a tmpfs, as /run is on a
# Debian host; STATE_FS=disk keeps them in the temp dir instead (this
# test machine's /run is on ext4 mounted with discard, where removing a
# directory waits for the disk).  The tmpfs (and the bind of the host's
# root for `floor_ns /`) is mounted in a mount namespace of the script's
# own: nothing changes on the host, and it goes when the script ends.
STATE_FS=${STATE_FS:-tmpfs}
case $STATE_FS in
tmpfs | disk) ;;
*) die "STATE_FS=$STATE_FS: tmpfs or disk" ;;
esac
if [ -z "${CELL_BENCH_NS:-}" ]; then
	exec env CELL_BENCH_NS=1 unshare --mount --propagation private "$0" "$@"
fi
for tool in cc hyperfine jq runc strace busybox /usr/bin/time; do
	command -v "$tool" >/dev/null || die "$tool is missing (scripts/install-deps.sh bench)"
done
[ -x "$CELL" ] || die "$CELL: no such executable (make build)"
CELL=$(cd "$(dirname "$CELL")" && pwd)/$(basename "$CELL")

tmp=$(mktemp -d /tmp/cell-bench.XXXXXX)
states=$tmp/states
mkdir "$states"
if [ "$STATE_FS" = tmpfs ]; then
	mount -t tmpfs -o mode=0700 cell-bench "$states"
fi
# Container ids and cgroup names of this run start with $prefix, so the
# cleanup can find exactly what this run made.
prefix=cellbench-$$-

cleanup() {
	local rt dir id
	for rt in runc crun; do
		dir=$states/$rt-state
		[ -d "$dir" ] || continue
		for id in $("$rt" --root "$dir" list -q 2>/dev/null); do
			"$rt" --root "$dir" delete --force "$id" >/dev/null 2>&1 || true
		done
	done
	# runc and crun put a container without cgroupsPath at /<id>; an
	# interrupted run can leave it behind.  rmdir only removes empty ones.
	for dir in /sys/fs/cgroup/*/"$prefix"* /sys/fs/cgroup/"$prefix"*; do
		if [ -d "$dir" ]; then
			rmdir "$dir" 2>/dev/null || true
		fi
	done
	if [ "$STATE_FS" = tmpfs ]; then
		umount "$states" 2>/dev/null || true
	fi
	# The bind of the host's root is the same file system as $tmp:
	# --one-file-system would not stop rm there.  Read-only, and
	# unmounted first; still mounted, $tmp is left alone.
	if mountpoint -q "$tmp/hostroot"; then
		if ! umount "$tmp/hostroot"; then
			echo "startup.sh: $tmp/hostroot still mounted: $tmp left" >&2
			return
		fi
	fi
	# --one-file-system: never descend into a mount left by a failed jail.
	rm -rf --one-file-system "$tmp"
}
trap cleanup EXIT

# --- what is measured -------------------------------------------------

cc -O2 -Wall -Wextra -o "$tmp/floor_ns" "$here/floor_ns.c"
cc -O2 -Wall -Wextra -o "$tmp/interleave" "$here/interleave.c"

# A busybox root: static, so that no loader or libc is needed inside.
root=$tmp/root
mkdir -p "$root/bin" "$root/proc" "$root/dev" "$root/sys" "$root/tmp"
cp "$(command -v busybox)" "$root/bin/busybox"
ln -s busybox "$root/bin/sh"
ln -s busybox "$root/bin/true"

# The OCI bundle: runc's default spec (pid, ipc, uts, mount and network
# namespaces, read-only root) with our root and command, no terminal.
bundle=$tmp/bundle
mkdir -p "$bundle"
runc spec --bundle "$bundle"
jq --arg root "$root" '.root.path = $root | .process.args = ["/bin/true"] |
	.process.terminal = false' "$bundle/config.json" >"$bundle/config.json.new"
mv "$bundle/config.json.new" "$bundle/config.json"

# runc and crun need an id that is unique among live containers; `run`
# deletes the container when it exits (there is no --rm; --keep is the
# opposite).  A dash wrapper makes one per run from its pid; its own
# cost is measured as "sh wrapper".
for rt in runc crun; do
	mkdir -p "$states/$rt-state"
	cat >"$tmp/$rt-run" <<-EOF
		#!/bin/sh
		exec $rt --root $states/$rt-state run --bundle $bundle $prefix\$\$
	EOF
	chmod +x "$tmp/$rt-run"
done
printf '#!/bin/sh\nexec /bin/true\n' >"$tmp/sh-wrapper"
chmod +x "$tmp/sh-wrapper"

state=$states/cell-state
mkdir -p "$state"

names=() cmds=()
add() { # name command
	names+=("$1")
	cmds+=("$2")
}
add "true" "/bin/true"
add "floor_ns" "$tmp/floor_ns $root /bin/true"
# The same floor with cell's payload: the host's root (its root mount,
# bound in this script's mount namespace) and its dynamic /bin/true, as
# the embedded root runs (busybox's true is static: the `cell` row's
# payload alone costs more than floor_ns's).
mkdir "$tmp/hostroot"
mount --bind -o ro / "$tmp/hostroot"
add "floor_ns /" "$tmp/floor_ns $tmp/hostroot /bin/true"
add "cell" "$CELL --root $state run -- /bin/true"
add "cell --rootfs" "$CELL --root $state run --rootfs $root -- /bin/true"
if [ -n "${OLD:-}" ]; then
	[ -x "$OLD" ] || die "OLD=$OLD: no such executable"
	add "cell (old)" "$OLD --root $state run -- /bin/true"
	add "cell --rootfs (old)" "$OLD --root $state run --rootfs $root -- /bin/true"
fi
add "sh wrapper" "$tmp/sh-wrapper"
add "crun" "$tmp/crun-run"
add "runc" "$tmp/runc-run"
add "bwrap" "bwrap --unshare-all --ro-bind / / --proc /proc --dev /dev /bin/true"

# One trial run of each: a command that fails is reported with its error
# and left out, instead of failing the whole benchmark (crun 1.8.1
# refuses hybrid cgroup hierarchies with controllers on cgroup2).
args=()
for i in "${!names[@]}"; do
	cmd=${cmds[$i]}
	# shellcheck disable=SC2086 # the commands are word lists
	if ! out=$($cmd 2>&1); then
		case ${names[$i]} in
		true | floor_ns* | cell*) die "${names[$i]} failed: $out" ;;
		esac
		echo "${names[$i]}: left out, its trial run failed: $out"
		continue
	fi
	args+=(--command-name "${names[$i]}" "$cmd")
done

echo
echo "== startup: $RUNS runs each, $WARMUP warmup, $(nproc) CPUs, $(uname -r), state on $STATE_FS"
hyperfine --shell=none --warmup "$WARMUP" --runs "$RUNS" --style basic \
	--export-json "$tmp/startup.json" --export-markdown "$tmp/startup.md" "${args[@]}"

echo
cat "$tmp/startup.md"

# Medians, and each one relative to the floors: floor_ns (busybox's
# static true, the `cell --rootfs` row's payload) and floor_ns / (the
# host's /bin/true, the `cell` row's).
echo
jq -r '.results[] | "\(.command)\t\(.median)"' "$tmp/startup.json" |
	awk -F'\t' '
	{ name[NR] = $1; med[NR] = $2 * 1000 }
	$1 == "true" { t = $2 * 1000 }
	$1 == "floor_ns" { f = $2 * 1000 }
	$1 == "floor_ns /" { h = $2 * 1000 }
	END {
		printf "%-20s %12s %12s %12s %12s\n", "command", "median (ms)", "x floor_ns",
			"x floor_ns /", "x true"
		for (i = 1; i <= NR; i++)
			printf "%-20s %12.3f %12.2f %12.2f %12.2f\n", name[i], med[i], med[i] / f,
				med[i] / h, med[i] / t
	}'

# The floors and cell's rows again, in turn: each round runs every
# command once, so that the machine's drift falls on all of them alike
# (hyperfine above runs each command's runs one after the other).  The
# ratios are to floor_ns.  ROUNDS=0 leaves it out.
ROUNDS=${ROUNDS:-200}
if [ "$ROUNDS" -gt 0 ]; then
	il=()
	for i in "${!names[@]}"; do
		case ${names[$i]} in
		floor_ns* | cell*) ;;
		*) continue ;;
		esac
		[ ${#il[@]} -eq 0 ] || il+=(";;")
		# shellcheck disable=SC2206 # the commands are word lists
		il+=("${names[$i]}" ${cmds[$i]})
	done
	echo
	echo "== interleaved: $ROUNDS rounds, each command once a round (tests/bench/interleave.c)"
	"$tmp/interleave" "$ROUNDS" "${il[@]}"
fi

# --- peak memory ------------------------------------------------------

# ru_maxrss of wait4 is the largest RSS any process of the tree had,
# including what it exec'd; so /bin/true and floor_ns are shown too.
# The largest of 5 runs, as it varies by a few pages.
maxrss() { # command...
	local i
	for i in 1 2 3 4 5; do
		/usr/bin/time -v "$@" 2>&1 >/dev/null |
			awk -F': ' '/Maximum resident set size/ { print $2 }'
	done | sort -n | tail -n 1
}
echo
echo "== peak RSS (Maximum resident set size, /usr/bin/time -v, largest of 5)"
printf '%-40s %8s KiB\n' "/bin/true" "$(maxrss /bin/true)"
printf '%-40s %8s KiB\n' "floor_ns ROOT /bin/true" "$(maxrss "$tmp/floor_ns" "$root" /bin/true)"
printf '%-40s %8s KiB\n' "cell run -- /bin/true" \
	"$(maxrss "$CELL" --root "$state" run -- /bin/true)"
printf '%-40s %8s KiB\n' "cell run --rootfs ROOT -- /bin/true" \
	"$(maxrss "$CELL" --root "$state" run --rootfs "$root" -- /bin/true)"

# The supervisor's own high-water mark, apart from what the jail execs:
# VmHWM of the cell process while a jail sleeps.
"$CELL" --root "$state" run --rootfs "$root" -- /bin/busybox sleep 1 &
pid=$!
sleep 0.5
hwm=$(awk '/^VmHWM/ { print $2 }' "/proc/$pid/status" 2>/dev/null || echo "?")
wait "$pid"
printf '%-40s %8s KiB\n' "cell supervisor, jail running (VmHWM)" "$hwm"

# --- where the time goes ----------------------------------------------

# Phases from one traced run.  Tracing adds tens of microseconds to
# every syscall, so the phases are longer than untraced, in proportion
# to their syscall counts.
echo
echo "== cell's phases under strace -f -ttt -T (traced, so slower than above)"
strace -f -ttt -T -o "$tmp/strace-T.txt" "$CELL" --root "$state" run -- /bin/true
# The jail's first process: the one that execs the command (cell's other
# child, the user namespace's helper, execs nothing).
jail_pid=$(awk 'NR == 1 { super = $1 } $1 != super && $3 ~ /^execve\(/ { print $1; exit }' \
	"$tmp/strace-T.txt")
awk -v jail="$jail_pid" '
	# "PID TIME name(" or "PID TIME <... name resumed>": the call name.
	{ pid = $1; t = $2; name = $3; sub(/\(.*/, "", name) }
	$3 == "<..." { name = $4 }
	NR == 1 { start = t; super = pid }
	pid == super && name == "clone3" && !clone { clone = t }
	pid == jail && name == "execve" && !exec { exec = t }
	pid == jail && !exec { n_setup++ }
	pid == super && !clone { n_pre++ }
	{ end = t }
	END {
		printf "%-44s %8.2f ms %4d syscalls\n", "start to clone3 (parse, policy, state dir)", (clone - start) * 1000, n_pre
		printf "%-44s %8.2f ms %4d syscalls\n", "clone3 to execve (the jail is built)", (exec - clone) * 1000, n_setup
		printf "%-44s %8.2f ms\n", "execve to exit (the command, reaping)", (end - exec) * 1000
	}' "$tmp/strace-T.txt"

# Where each process spends it: total time per syscall, for the jail
# child from clone3 to its execve (building the jail), and for the
# supervisor over the whole run (its poll is the wait for the jail).
top_syscalls() { # jail|supervisor
	awk -v who="$1" -v jail="$jail_pid" '
		NR == 1 { super = $1 }
		who == "jail" && ($1 != jail || done[$1]) { next }
		who == "supervisor" && $1 != super { next }
		{ name = $3; sub(/\(.*/, "", name) }
		$3 == "<..." { name = $4 }
		who == "jail" && name == "execve" { done[$1] = 1; next }
		/ <[0-9.]+>$/ { d = $NF; gsub(/[<>]/, "", d); sum[name] += d; n[name]++ }
		END { for (s in sum) printf "%10.3f ms %5d  %s\n", sum[s] * 1000, n[s], s }' \
		"$tmp/strace-T.txt" | sort -rn | head -n 10
}
echo
echo "== the jail child, clone3 to execve: top 10 syscalls by total time"
printf '%13s %5s  %s\n' "time" "calls" "syscall"
top_syscalls jail
echo
echo "== the supervisor, whole run: top 10 syscalls by total time"
printf '%13s %5s  %s\n' "time" "calls" "syscall"
top_syscalls supervisor
