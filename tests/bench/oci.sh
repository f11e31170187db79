#!/bin/bash
# The OCI runtime benchmark: cell-oci side by side with crun and runc on
# one bundle, as a container engine drives them.  `run` of /bin/true and
# create+start+delete in one hyperfine invocation; peak RSS of each
# runtime process; callgrind and strace accounts of cell-oci; N detached
# containers (`create` + `start` of `sleep 600`) per runtime: start time
# and host memory each, the runtime's leftover processes; then `podman
# run --rm` with each runtime, if podman is installed.  Ratios, never a
# pass/fail.  docs/PERFORMANCE.md ("The OCI runtime") explains the output.
#
#   tests/bench/oci.sh [CELL_OCI]     (as root; `make bench-oci` runs it)
#
# CELL_OCI is the binary to measure: the argument, else $CELL_OCI, else
# build/cell-oci.  RUNS (100) and WARMUP (10) tune hyperfine, N (200) is
# the number of detached containers per runtime, PODMAN_RUNS (20) the
# runs of each podman row.  Raw results go to
# tests/bench/results/oci-DATE/ (summary.txt is what is printed).  Needs
# no network.  Everything it makes (containers, their cgroups, podman's
# storage, mounts, temp dirs) is removed on exit, even when interrupted.
set -euo pipefail

CELL_OCI=${1:-${CELL_OCI:-build/cell-oci}}
RUNS=${RUNS:-100}
WARMUP=${WARMUP:-10}
N=${N:-200}
PODMAN_RUNS=${PODMAN_RUNS:-20}
here=$(cd "$(dirname "$0")" && pwd)

die() {
	echo "oci.sh: $*" >&2
	exit 1
}

[ "$(id -u)" = 0 ] || die "must run as root (namespaces, mounts, cgroups, runc)"
for tool in cc hyperfine jq runc crun strace busybox /usr/bin/time; do
	command -v "$tool" >/dev/null || die "$tool is missing (scripts/install-deps.sh bench)"
done
[ -x "$CELL_OCI" ] || die "$CELL_OCI: no such executable (make build)"

# Everything runs in a mount namespace of the script's own, so that two
# mounts below change nothing on the host and go when the script ends:
# the tmpfs for the state roots (as /run is on a Debian host; this
# machine's / is ext4 with discard, where removing a state directory
# waits for the disk), and an empty file over cgroup2's
# cgroup.controllers (below).
if [ -z "${CELL_BENCH_NS:-}" ]; then
	exec env CELL_BENCH_NS=1 unshare --mount --propagation private "$0" "$@"
fi
CELL_OCI=$(cd "$(dirname "$CELL_OCI")" && pwd)/$(basename "$CELL_OCI")
CRUN=$(command -v crun)
RUNC=$(command -v runc)

tmp=$(mktemp -d /tmp/cell-bench-oci.XXXXXX)
states=$tmp/states
mkdir "$states"
mount -t tmpfs -o mode=0700 cell-bench-oci "$states"
res=$here/results/oci-$(date +%Y%m%dT%H%M%S)
mkdir -p "$res"
# Container ids, cgroups and podman's cgroup parent of this run contain
# $prefix, so that the cleanup finds exactly what this run made.
prefix=cellbench-$$-
runtimes=(cell-oci crun runc)
declare -A bin=([cell-oci]=$CELL_OCI [crun]=$CRUN [runc]=$RUNC)

# crun 1.8.1 refuses a hybrid hierarchy whose cgroup2 has controllers
# ("cgroups in hybrid mode not supported, drop all controllers from
# cgroupv2"; this host enables hugetlb there).  In this namespace the
# file reads empty, so crun runs, with its cgroups in the v1
# hierarchies; cell-oci and runc see the same file.
unified=/sys/fs/cgroup/unified/cgroup.controllers
# (cgroupfs files have no size: read it.)
if [ -n "$(cat "$unified" 2>/dev/null)" ]; then
	: >"$tmp/empty"
	mount --bind "$tmp/empty" "$unified"
fi

# crun 1.8.1 can chown the host's /dev/null in some user-namespace runs;
# the check runs after every crun phase and at exit.
check_dev_null() {
	local got
	got=$(stat -c '%F %t,%T %U:%G %a' /dev/null 2>/dev/null || echo missing)
	[ "$got" = "character special file 1,3 root:root 666" ] && return 0
	echo "oci.sh: /dev/null was '$got'; restored to root:root 0666 c 1,3" >&2
	if [ "${got%% 1,3 *}" != "character special file" ]; then
		rm -f /dev/null
		mknod -m 0666 /dev/null c 1 3
	fi
	chown root:root /dev/null
	chmod 0666 /dev/null
}

podman_cmd=()
cleanup() {
	local rt dir id m
	set +e
	for rt in "${runtimes[@]}"; do
		dir=$states/$rt
		[ -d "$dir" ] || continue
		for id in $("${bin[$rt]}" --root "$dir" list -q 2>/dev/null); do
			"${bin[$rt]}" --root "$dir" delete --force "$id" >/dev/null 2>&1
		done
	done
	if [ ${#podman_cmd[@]} -gt 0 ]; then
		"${podman_cmd[@]}" rm -af >/dev/null 2>&1
		"${podman_cmd[@]}" rmi -af >/dev/null 2>&1
	fi
	# Mounts a runtime or podman left under the temp dir (deepest first).
	awk -v t="$tmp/" 'index($5, t) == 1 { print $5 }' /proc/self/mountinfo |
		sort -r | while read -r m; do umount -l "$m"; done
	# runc and crun put a container without cgroupsPath at /<id> of each
	# hierarchy (runc under this process's own memory cgroup); cell-oci
	# names its cgroups after the id too.  rmdir removes only empty ones.
	# Podman's parent holds a "conmon" cgroup too: each one found is
	# removed with what is under it, deepest first.
	find /sys/fs/cgroup -maxdepth 5 -type d -name "*$prefix*" -prune 2>/dev/null |
		while read -r m; do find "$m" -depth -type d -exec rmdir {} \; 2>/dev/null; done
	check_dev_null
	umount "$states" 2>/dev/null
	# --one-file-system: never descend into a mount left behind.
	rm -rf --one-file-system "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

exec > >(tee "$res/summary.txt") 2>&1

# --- helpers ----------------------------------------------------------

now_us() { echo "${EPOCHREALTIME/./}"; }
# n median min max of a file of numbers, one a line
stats() {
	sort -n "$1" | awk '{ v[NR] = $1 }
		END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		      printf "%d %.0f %d %d\n", NR, m, v[1], v[NR] }'
}
median() { stats "$1" | cut -d' ' -f2; }
mem_available() { awk '/^MemAvailable:/ { print $2 }' /proc/meminfo; }
field() { # line key
	local kv
	for kv in $1; do
		if [ "${kv%%=*}" = "$2" ]; then echo "${kv#*=}"; fi
	done
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }'; }
rt_() { # runtime args...: the runtime with its private root
	local rt=$1
	shift
	"${bin[$rt]}" --root "$states/$rt" "$@"
}

cc -O2 -Wall -Wextra -o "$tmp/jail_mem" "$here/jail_mem.c"

echo "== the OCI runtimes: $(nproc) CPUs, $(uname -r), $(date -u +%FT%TZ)"
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "cell-oci: $CELL_OCI ($(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo '?'))"
echo "crun: $($CRUN --version | head -n 1), runc: $($RUNC --version | head -n 1)"
echo "results: $res"

# --- the bundle -------------------------------------------------------

# A static busybox root with relative links, so it works wherever it is
# mounted; runc's default config (pid, ipc, uts, mount and network
# namespaces, read-only root, no user namespace) running /bin/true.
bundle=$tmp/bundle
rootfs=$bundle/rootfs
mkdir -p "$rootfs/bin" "$rootfs/proc" "$rootfs/dev" "$rootfs/sys" "$rootfs/tmp"
cp "$(command -v busybox)" "$rootfs/bin/busybox"
for applet in $("$rootfs/bin/busybox" --list); do
	[ "$applet" = busybox ] || ln -sf busybox "$rootfs/bin/$applet"
done
runc spec --bundle "$bundle"
jq '.process.args = ["/bin/true"] | .process.terminal = false' \
	"$bundle/config.json" >"$bundle/config.json.new"
mv "$bundle/config.json.new" "$bundle/config.json"
# The same root, running `sleep 600`, for the detached containers.
sleeper=$tmp/sleeper
mkdir -p "$sleeper"
jq --arg root "$rootfs" '.root.path = $root | .process.args = ["/bin/sleep", "600"]' \
	"$bundle/config.json" >"$sleeper/config.json"
for rt in "${runtimes[@]}"; do mkdir -p "$states/$rt"; done

# --- 1. run, and create+start+delete ----------------------------------

# `run` deletes the container when its process ends, in all three, so
# each runtime can reuse one id.  create+start+delete is one dash script
# per runtime; its process may still be running at `delete`, so the
# delete is --force for all three, as engines do.  The script's own cost
# is the "sh" row.
names=() cmds=()
add() { # name command
	names+=("$1")
	cmds+=("$2")
}
printf '#!/bin/sh\nexec /bin/true\n' >"$tmp/sh"
chmod +x "$tmp/sh"
for rt in "${runtimes[@]}"; do
	id=$prefix$rt
	add "$rt run" "${bin[$rt]} --root $states/$rt run --bundle $bundle $id"
	cat >"$tmp/csd-$rt" <<-EOF
		#!/bin/sh
		set -e
		${bin[$rt]} --root $states/$rt create --bundle $bundle $id-c
		${bin[$rt]} --root $states/$rt start $id-c
		${bin[$rt]} --root $states/$rt delete --force $id-c
	EOF
	chmod +x "$tmp/csd-$rt"
done
for rt in "${runtimes[@]}"; do
	add "$rt create+start+delete" "$tmp/csd-$rt"
done
add "sh" "$tmp/sh"

# One trial run of each; a runtime that fails is reported and left out.
args=()
for i in "${!names[@]}"; do
	# shellcheck disable=SC2086 # the commands are word lists
	if ! out=$(${cmds[$i]} </dev/null 2>&1); then
		case ${names[$i]} in
		cell-oci*) die "${names[$i]} failed: $out" ;;
		esac
		echo "${names[$i]}: left out, its trial run failed: $out"
		continue
	fi
	args+=(--command-name "${names[$i]}" "${cmds[$i]}")
done
check_dev_null

echo
echo "== 1. run and create+start+delete of /bin/true: $RUNS runs each, $WARMUP warmup"
hyperfine --shell=none --warmup "$WARMUP" --runs "$RUNS" --style basic \
	--export-json "$res/run.json" --export-markdown "$res/run.md" "${args[@]}" >"$res/hyperfine.txt"
check_dev_null
cat "$res/run.md"
echo
jq -r '.results[] | "\(.command)\t\(.median)\t\(.mean)\t\(.stddev)"' "$res/run.json" |
	awk -F'\t' '
	{ name[NR] = $1; med[NR] = $2 * 1000; m[$1] = $2 * 1000 }
	END {
		printf "%-28s %11s %13s %13s\n", "median (ms)", "", "x crun", "x runc"
		for (i = 1; i <= NR; i++) {
			split(name[i], w, " "); rest = substr(name[i], length(w[1]) + 2)
			c = m["crun " rest]; r = m["runc " rest]
			printf "%-28s %11.3f %13s %13s\n", name[i], med[i],
				c ? sprintf("%.2f", med[i] / c) : "-", r ? sprintf("%.2f", med[i] / r) : "-"
		}
	}'

# --- 2. peak RSS ------------------------------------------------------

# ru_maxrss of the runtime process and of the children it waited for
# (with `run`, the container's process: static busybox here, and for
# runc its `runc init`).  The largest of 5.
maxrss() { # command...
	local i
	for i in 1 2 3 4 5; do
		/usr/bin/time -f %M "$@" 2>&1 >/dev/null </dev/null | tail -n 1
	done | sort -n | tail -n 1
}
echo
echo "== 2. peak RSS (/usr/bin/time -f %M, KiB, largest of 5)"
printf '%-10s %8s %8s %8s %8s\n' "" run create start delete
declare -A rss_run
for rt in "${runtimes[@]}"; do
	id=$prefix$rt-rss
	rss_run[$rt]=$(maxrss "${bin[$rt]}" --root "$states/$rt" run --bundle "$bundle" "$id")
	c=0 s=0 d=0
	for i in 1 2 3 4 5; do
		# -o: the created container keeps the stdio it inherits, so
		# nothing of it may be a pipe read to its end here.
		for verb in create start delete; do
			case $verb in
			create) set -- create --bundle "$bundle" "$id" ;;
			start) set -- start "$id" ;;
			delete) set -- delete --force "$id" ;;
			esac
			/usr/bin/time -o "$tmp/rss" -f %M "${bin[$rt]}" --root "$states/$rt" "$@" \
				</dev/null >/dev/null 2>>"$res/rss-errors.txt"
			x=$(tail -n 1 "$tmp/rss")
			case $verb in
			create) [ "$x" -gt "$c" ] && c=$x ;;
			start) [ "$x" -gt "$s" ] && s=$x ;;
			delete) [ "$x" -gt "$d" ] && d=$x ;;
			esac
		done
	done
	printf '%-10s %8s %8s %8s %8s\n' "$rt" "${rss_run[$rt]}" "$c" "$s" "$d"
done
check_dev_null
echo "cell-oci / crun (run): $(ratio "${rss_run[cell-oci]}" "${rss_run[crun]}"), cell-oci / runc: $(ratio "${rss_run[cell-oci]}" "${rss_run[runc]}")"

# --- 3. where cell-oci's time goes ------------------------------------

# valgrind 3.19 has no clone3 (it answers ENOSYS), and cell clones the
# container with clone3 and no fallback: under callgrind, `cell-oci run`
# counts its own work up to the clone (config.json, the spec, the state
# directory) and then fails.  crun 1.8.1 re-executes itself from a memfd
# first, which valgrind cannot follow; it is tried, and reported as
# failed when it does.
echo
echo "== 3. instructions (callgrind, Ir)"
cg=$res/callgrind
mkdir -p "$cg"
command -v valgrind >/dev/null || echo "valgrind is not installed: left out"
for rt in cell-oci crun; do
	command -v valgrind >/dev/null || break
	status=0
	valgrind --tool=callgrind --callgrind-out-file="$cg/$rt.%p" \
		"${bin[$rt]}" --root "$states/$rt" run --bundle "$bundle" "${prefix}vg-$rt" \
		</dev/null >"$cg/$rt.log" 2>&1 || status=$?
	rt_ "$rt" delete --force "${prefix}vg-$rt" >/dev/null 2>&1 || true
	total=0 files=0
	for f in "$cg/$rt".[0-9]*; do
		[ -f "$f" ] || continue
		n=$(callgrind_annotate "$f" 2>/dev/null | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1 }')
		total=$((total + ${n:-0}))
		files=$((files + 1))
	done
	note=""
	[ "$status" -eq 0 ] || note=" (failed under valgrind: $(grep -v '^==' "$cg/$rt.log" | tail -n 1))"
	printf '%-10s %12s Ir in %s process(es)%s\n' "$rt" "$total" "$files" "$note"
done
check_dev_null
for f in "$cg"/cell-oci.[0-9]*; do
	[ -f "$f" ] || continue
	echo
	echo "cell-oci: top 12 functions by self cost (Ir)"
	callgrind_annotate "$f" 2>/dev/null | awk '/file:function/ { on = 1; getline; next } on && NF && n++ < 12'
	echo
	echo "cell-oci: top 12 functions by inclusive cost (Ir)"
	callgrind_annotate --inclusive=yes "$f" 2>/dev/null |
		awk '/file:function/ { on = 1; getline; next } on && NF && !/below main/ && n++ < 12'
	break
done

# Syscalls of one `run`, every process of it (strace -f -c); and the
# same for crun.
echo
for rt in cell-oci crun; do
	strace -f -c -o "$res/strace-c-$rt.txt" "${bin[$rt]}" --root "$states/$rt" run \
		--bundle "$bundle" "${prefix}st-$rt" </dev/null >/dev/null 2>&1 || true
	echo "== $rt run: top 10 syscalls by time (strace -f -c; traced, so slower)"
	head -n 12 "$res/strace-c-$rt.txt"
	tail -n 1 "$res/strace-c-$rt.txt"
	echo
done
check_dev_null

# --- 4. N detached containers per runtime -----------------------------

# For each runtime in turn: N containers of `sleep 600` (create, then
# start, each pair timed), then what they cost on the host: MemAvailable
# before and after (noisy on a shared machine), the Pss of the processes
# in their pid namespaces and the usage of their memory cgroups (v1),
# and the runtime's processes left outside the containers (a monitor per
# container would show there).  Then every container is deleted, timed.
echo "== 4. $N detached containers (create + start of sleep 600), one runtime at a time"
printf '%-10s %10s %10s %10s %10s %10s %10s %10s %8s\n' "" "start med" "min" "max" \
	"delete med" "MemAvail" "Pss" "memcg" "left"
printf '%-10s %10s %10s %10s %10s %10s %10s %10s %8s\n' "" "(µs)" "(µs)" "(µs)" "(µs)" \
	"(KiB/ctr)" "(KiB/ctr)" "(KiB/ctr)" "(procs)"
declare -A start_med memd pss memcg
for rt in "${runtimes[@]}"; do
	sync
	sleep 1
	mem0=$(mem_available)
	for i in $(seq 1 "$N"); do
		t0=$(now_us)
		rt_ "$rt" create --bundle "$sleeper" "$prefix$rt-d$i" </dev/null >/dev/null \
			2>>"$res/create-errors-$rt.txt" &&
			rt_ "$rt" start "$prefix$rt-d$i" ||
			die "$rt: create + start of container $i failed"
		echo $(($(now_us) - t0))
	done >"$res/start-$rt.us"
	sleep 2
	mem1=$(mem_available)
	pids=$(for i in $(seq 1 "$N"); do rt_ "$rt" state "$prefix$rt-d$i" | jq -r .pid; done)
	m=$(echo "$pids" | "$tmp/jail_mem" "${bin[$rt]}" 2>>"$res/left-$rt.txt")
	echo "$m" >"$res/mem-$rt.txt"
	cg_kib=0
	for pid in $pids; do
		p=$(awk -F: '$2 == "memory" { print $3 }' "/proc/$pid/cgroup")
		u=$(cat "/sys/fs/cgroup/memory$p/memory.usage_in_bytes" 2>/dev/null || echo 0)
		cg_kib=$((cg_kib + u / 1024))
	done
	for i in $(seq 1 "$N"); do
		t0=$(now_us)
		rt_ "$rt" delete --force "$prefix$rt-d$i" >/dev/null
		echo $(($(now_us) - t0))
	done >"$res/delete-$rt.us"
	check_dev_null
	left=$(rt_ "$rt" list -q 2>/dev/null | wc -l)
	[ "$left" -eq 0 ] || echo "$rt: $left containers left after delete"
	read -r _ start_med[$rt] smin smax < <(stats "$res/start-$rt.us")
	memd[$rt]=$(((mem0 - mem1) / N))
	pss[$rt]=$(($(field "$m" pss_kib) / N))
	memcg[$rt]=$((cg_kib / N))
	printf '%-10s %10s %10s %10s %10s %10s %10s %10s %8s\n' "$rt" "${start_med[$rt]}" \
		"$smin" "$smax" "$(median "$res/delete-$rt.us")" "${memd[$rt]}" "${pss[$rt]}" \
		"${memcg[$rt]}" "$(field "$m" exe_out)"
	echo "           (containers found $(field "$m" jails) of $N, processes in them $(field "$m" procs))"
done
echo
printf '%-34s %10s %10s\n' "cell-oci / crun, cell-oci / runc" "x crun" "x runc"
for k in start_med memd pss memcg; do
	declare -n v=$k
	printf '%-34s %10s %10s\n' "$k" "$(ratio "${v[cell-oci]}" "${v[crun]}")" \
		"$(ratio "${v[cell-oci]}" "${v[runc]}")"
done

# --- 5. podman run --rm with each runtime -----------------------------

echo
echo "== 5. podman run --rm of /bin/true with each runtime"
if ! command -v podman >/dev/null; then
	echo "podman is not installed: left out (scripts/install-deps.sh test installs it)"
	exit 0
fi
# A private storage and run root, and an image imported from the
# busybox root (no registry).  Podman on this host needs the cgroupfs
# manager, the file events backend, k8s-file logs, no network, and
# ulimits no higher than root's hard limits (no CAP_SYS_RESOURCE here).
# The containers' cgroups go under a parent of this run's own.
podman_cmd=(podman --root "$tmp/podman" --runroot "$states/podman" --storage-driver overlay
	--cgroup-manager cgroupfs --events-backend file)
tar -C "$rootfs" -cf "$tmp/rootfs.tar" .
"${podman_cmd[@]}" import --quiet "$tmp/rootfs.tar" localhost/cellbench:latest >/dev/null
prun=(run --rm --network none --log-driver k8s-file --cgroup-parent "/${prefix}podman"
	--ulimit nofile=1024:1024 --ulimit nproc=1024:1024 localhost/cellbench /bin/true)
pargs=()
for rt in "${runtimes[@]}"; do
	cmd="${podman_cmd[*]} --runtime ${bin[$rt]} ${prun[*]}"
	# shellcheck disable=SC2086 # a word list
	if ! out=$($cmd </dev/null 2>&1); then
		echo "podman with $rt: left out, its trial run failed: $out"
		continue
	fi
	pargs+=(--command-name "podman ($rt)" "$cmd")
done
hyperfine --shell=none --warmup 3 --runs "$PODMAN_RUNS" --style basic \
	--export-json "$res/podman.json" --export-markdown "$res/podman.md" "${pargs[@]}" >"$res/hyperfine-podman.txt"
check_dev_null
cat "$res/podman.md"
echo
jq -r '.results[] | "\(.command)\t\(.median)"' "$res/podman.json" |
	awk -F'\t' '{ name[NR] = $1; m[$1] = $2 * 1000 }
	END {
		c = m["podman (crun)"]; r = m["podman (runc)"]; o = m["podman (cell-oci)"]
		printf "%-20s %11s\n", "", "median (ms)"
		for (i = 1; i <= NR; i++) printf "%-20s %11.1f\n", name[i], m[name[i]]
		if (o && c) printf "cell-oci / crun: %.2f\n", o / c
		if (o && r) printf "cell-oci / runc: %.2f\n", o / r
	}'
