#!/bin/bash
# The named-jails benchmark: what detached jails cost to start, stop and
# remove, what an idle one costs in memory seen from the host, how `cell
# ls` scales from 200 to 1000 jails, and `cell exec` side by side with
# runc exec, crun exec and nsenter, `cell start` of a stopped jail, and
# `cell ps` and `cell stats` among 1000 jails.  docs/PERFORMANCE.md ("Named jails")
# explains the output.
#
#   tests/bench/jails.sh [CELL]     (as root; `make bench-jails` runs it)
#
# CELL is the binary to measure: the argument, else $CELL, else
# build/cell.  N (200) and BIG (1000) are the jail counts; RUNS (100) and
# WARMUP (10) tune hyperfine for ls, EXEC_RUNS (200) and EXEC_WARMUP (20)
# for exec.  The raw results (per-call times, hyperfine JSON, strace
# summaries) go to tests/bench/results/jails-DATE/, with a copy of what
# is printed in summary.txt.  Every jail runs under a private --root in a
# temp dir; the jails, runc/crun state, their cgroups and the temp dir
# are removed on exit, even on failure.  Host sysctls and cgroup mounts
# are never touched: a limit that stops the 1000 is reported, and a
# runtime that refuses the host's layout is reported and left out.
set -euo pipefail

CELL=${1:-${CELL:-build/cell}}
N=${N:-200}
BIG=${BIG:-1000}
RUNS=${RUNS:-100}
WARMUP=${WARMUP:-10}
EXEC_RUNS=${EXEC_RUNS:-200}
EXEC_WARMUP=${EXEC_WARMUP:-20}
here=$(cd "$(dirname "$0")" && pwd)

die() {
	echo "jails.sh: $*" >&2
	exit 1
}

[ "$(id -u)" = 0 ] || die "must run as root (namespaces, mounts, cgroups, runc)"
for tool in cc hyperfine jq runc strace busybox nsenter; do
	command -v "$tool" >/dev/null || die "$tool is missing (scripts/install-deps.sh bench)"
done
[ -x "$CELL" ] || die "$CELL: no such executable (make build)"
CELL=$(cd "$(dirname "$CELL")" && pwd)/$(basename "$CELL")

tmp=$(mktemp -d /tmp/cell-bench-jails.XXXXXX)
state=$tmp/state
mkdir -p "$state"
res=$here/results/jails-$(date +%Y%m%dT%H%M%S)
mkdir -p "$res"
# runc/crun container ids of this run start with $prefix.
prefix=cellbench-$$-

cell() { "$CELL" --root "$state" "$@"; }

cleanup() {
	local rt dir id names
	set +e
	# Every jail of the private root, running or not; in batches, so
	# that a thousand names do not make one huge command line.
	names=$(cell ls -aq 2>/dev/null)
	[ -n "$names" ] && echo "$names" | xargs -r -n 100 "$CELL" --root "$state" rm -f >/dev/null 2>&1
	for rt in runc crun; do
		dir=$tmp/$rt-state
		[ -d "$dir" ] || continue
		for id in $("$rt" --root "$dir" list -q 2>/dev/null); do
			"$rt" --root "$dir" delete --force "$id" >/dev/null 2>&1
		done
	done
	# runc and crun put a container without cgroupsPath at /<id>.
	for dir in /sys/fs/cgroup/*/"$prefix"* /sys/fs/cgroup/"$prefix"*; do
		[ -d "$dir" ] && rmdir "$dir" 2>/dev/null
	done
	rm -rf --one-file-system "$tmp"
}
trap cleanup EXIT

exec > >(tee "$res/summary.txt") 2>&1

# --- helpers ----------------------------------------------------------

now_us() { echo "${EPOCHREALTIME/./}"; }
# median, min, max of a file of numbers (one a line), in the file's unit
stats() {
	sort -n "$1" | awk '{ v[NR] = $1; s += $1 }
		END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		      printf "%d %.0f %d %d %.0f\n", NR, m, v[1], v[NR], s }'
}
mem_available() { awk '/^MemAvailable:/ { print $2 }' /proc/meminfo; }
jail_pids() { cell ls --json | jq -r '.[] | select(.state == "running") | .pid'; }
# jails=.. procs=.. pss_kib=.. rss_kib=.. exe_in=.. exe_out=..  The
# pids first, so that this `cell ls` is not counted as a cell process.
jail_mem() {
	local pids
	pids=$(jail_pids)
	echo "$pids" | "$tmp/jail_mem" "$CELL" 2>>"$res/cell-processes-outside.txt"
}
field() { # line key
	local kv
	for kv in $1; do
		[ "${kv%%=*}" = "$2" ] && echo "${kv#*=}"
	done
}
row() { printf '%-52s %s\n' "$1" "$2"; }
us_to_ms() { awk -v u="$1" 'BEGIN { printf "%.2f", u / 1000 }'; }

cc -O2 -Wall -Wextra -o "$tmp/jail_mem" "$here/jail_mem.c"

echo "== named jails: $(nproc) CPUs, $(uname -r), $(date -u +%FT%TZ)"
echo "cell: $CELL ($(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo '?'))"
echo "results: $res"
for s in user.max_pid_namespaces user.max_mnt_namespaces user.max_net_namespaces \
	kernel.pid_max fs.inotify.max_user_instances; do
	echo "$s = $(sysctl -n "$s")"
done

# --- 1. run -d, stop, rm of N jails, one at a time --------------------

# The same shell loop around /bin/true: what the loop's own fork+exec
# adds to every figure below.
for i in $(seq 1 "$N"); do
	t0=$(now_us)
	/bin/true
	echo $(($(now_us) - t0))
done >"$res/true.us"

mem0=$(mem_available)
t_all=$(now_us)
for i in $(seq 1 "$N"); do
	t0=$(now_us)
	cell run -d --name "a$i" -- sleep infinity >/dev/null || die "run -d of jail a$i failed"
	echo $(($(now_us) - t0))
done >"$res/run.us"
t_all=$(($(now_us) - t_all))
sleep 2
mem1=$(mem_available)
m_a=$(jail_mem)
echo "$m_a" >"$res/mem-$N.txt"

echo
echo "== 1. $N jails, one at a time (per call: n median min max sum, µs)"
row "/bin/true (the loop's own cost)" "$(stats "$res/true.us")"
row "cell run -d --name aI -- sleep infinity" "$(stats "$res/run.us")"
row "  all $N, wall" "$(us_to_ms "$t_all") ms"

# --- 2. memory of N idle jails ----------------------------------------

echo
echo "== 2. $N idle jails (sleep infinity), seen from the host"
row "jails found / processes in their pid namespaces" \
	"$(field "$m_a" jails) / $(field "$m_a" procs)"
row "Pss of those processes, sum / per jail" \
	"$(field "$m_a" pss_kib) KiB / $(($(field "$m_a" pss_kib) / N)) KiB"
row "Rss of those processes, sum / per jail" \
	"$(field "$m_a" rss_kib) KiB / $(($(field "$m_a" rss_kib) / N)) KiB"
row "MemAvailable before - after, per jail" "$(((mem0 - mem1) / N)) KiB (before $mem0, after $mem1 KiB)"
row "processes running $CELL, in the jails / elsewhere" \
	"$(field "$m_a" exe_in) / $(field "$m_a" exe_out)"

# --- 3a. ls with N jails ----------------------------------------------

ls_bench() { # count
	hyperfine -N --warmup "$WARMUP" --runs "$RUNS" --style basic \
		--export-json "$res/ls-$1.json" \
		--command-name "cell ls ($1)" "$CELL --root $state ls" \
		--command-name "cell ls -q ($1)" "$CELL --root $state ls -q" \
		--command-name "cell ls --json ($1)" "$CELL --root $state ls --json" >"$res/ls-$1.txt"
	jq -r '.results[] | "\(.command)\t\(.median * 1000)\t\(.min * 1000)\t\(.max * 1000)"' \
		"$res/ls-$1.json" |
		awk -F'\t' '{ printf "%-52s %8.2f ms median (min %.2f, max %.2f)\n", $1, $2, $3, $4 }'
}
echo
echo "== 3a. cell ls with $N jails (hyperfine -N, $WARMUP warmup, $RUNS runs)"
[ "$(cell ls -q | wc -l)" = "$N" ] || die "cell ls -q does not list $N jails"
ls_bench "$N"

# --- 4. exec ----------------------------------------------------------

echo
echo "== 4. exec of true in a running jail (hyperfine -N, $EXEC_WARMUP warmup, $EXEC_RUNS runs)"
jpid=$(cell ls --json | jq -r '.[] | select(.name == "a1") | .pid')

# A busybox root and a runc spec (as startup.sh), the container asleep.
root=$tmp/root
mkdir -p "$root/bin" "$root/proc" "$root/dev" "$root/sys" "$root/tmp"
cp "$(command -v busybox)" "$root/bin/busybox"
ln -s busybox "$root/bin/sh"
ln -s busybox "$root/bin/true"
ln -s busybox "$root/bin/sleep"
bundle=$tmp/bundle
mkdir -p "$bundle"
runc spec --bundle "$bundle"
jq --arg root "$root" '.root.path = $root | .process.args = ["/bin/sleep", "1000000"] |
	.process.terminal = false' "$bundle/config.json" >"$bundle/config.json.new"
mv "$bundle/config.json.new" "$bundle/config.json"

args=(--command-name "true" "/bin/true"
	--command-name "nsenter --target PID --all true" "nsenter --target $jpid --all true"
	--command-name "cell exec a1 true" "$CELL --root $state exec a1 true")
for rt in crun runc; do
	command -v "$rt" >/dev/null || {
		echo "$rt: left out, not installed"
		continue
	}
	mkdir -p "$tmp/$rt-state"
	id=${prefix}$rt
	# Files, not a pipe: the container keeps its stdio open.
	if ! "$rt" --root "$tmp/$rt-state" run -d --bundle "$bundle" "$id" \
		</dev/null >/dev/null 2>"$tmp/$rt-run.err"; then
		echo "$rt: left out, \`$rt run -d\` failed: $(cat "$tmp/$rt-run.err")"
		continue
	fi
	if ! out=$("$rt" --root "$tmp/$rt-state" exec "$id" /bin/true 2>&1); then
		echo "$rt: left out, \`$rt exec\` failed: $out"
		continue
	fi
	args+=(--command-name "$rt exec ID true" "$rt --root $tmp/$rt-state exec $id /bin/true")
done
hyperfine -N --warmup "$EXEC_WARMUP" --runs "$EXEC_RUNS" --style basic \
	--export-json "$res/exec.json" "${args[@]}" >"$res/exec.txt"
jq -r '.results[] | "\(.command)\t\(.median * 1000)"' "$res/exec.json" |
	awk -F'\t' '
	{ name[NR] = $1; med[NR] = $2 }
	$1 ~ /^nsenter/ { ns = $2 }
	$1 ~ /^cell/ { c = $2 }
	END {
		printf "%-40s %12s %10s %10s\n", "command", "median (ms)", "x nsenter", "x cell"
		for (i = 1; i <= NR; i++)
			printf "%-40s %12.3f %10.2f %10.2f\n", name[i], med[i], med[i] / ns, med[i] / c
	}'

# --- 1b. start of a stopped jail -------------------------------------

# cell start: the record read back into a spec, the launch into the
# jail's own directory; beside run -d's figure of section 1.
START_N=${START_N:-50}
for i in $(seq 1 "$START_N"); do
	cell stop -t 0 "a$i" >/dev/null || die "stop of jail a$i failed"
	t0=$(now_us)
	cell start "a$i" >/dev/null || die "start of jail a$i failed"
	echo $(($(now_us) - t0))
done >"$res/start.us"
echo
echo "== 1b. cell start of a stopped jail, $START_N of the $N (per call: n median min max sum, µs)"
row "cell run -d --name aI -- sleep infinity (section 1)" "$(stats "$res/run.us")"
row "cell start aI (stopped by stop -t 0)" "$(stats "$res/start.us")"

# --- 1 (end). stop -t 0, then rm, of each of the N --------------------

for i in $(seq 1 "$N"); do
	t0=$(now_us)
	cell stop -t 0 "a$i" >/dev/null || die "stop of jail a$i failed"
	t1=$(now_us)
	cell rm "a$i" >/dev/null || die "rm of jail a$i failed"
	t2=$(now_us)
	echo "$((t1 - t0)) $((t2 - t1))"
done >"$res/stop-rm.us"
awk '{ print $1 }' "$res/stop-rm.us" >"$res/stop.us"
awk '{ print $2 }' "$res/stop-rm.us" >"$res/rm.us"
echo
echo "== 1 (end). stop and rm of the $N jails, one at a time (per call: n median min max sum, µs)"
row "cell stop -t 0 aI" "$(stats "$res/stop.us")"
row "cell rm aI" "$(stats "$res/rm.us")"
[ -z "$(cell ls -aq)" ] || die "jails left after rm: $(cell ls -aq | head -n 3)"

# --- 2b, 2c. the same with --init, and with --memory ------------------

variant() { # tag options...
	local tag=$1 m0 m1 m t u
	shift
	m0=$(mem_available)
	for i in $(seq 1 "$N"); do
		t0=$(now_us)
		cell run -d --name "$tag$i" "$@" -- sleep infinity >/dev/null || die "run -d $* of jail $tag$i failed"
		echo $(($(now_us) - t0))
	done >"$res/run-$tag.us"
	sleep 2
	m1=$(mem_available)
	m=$(jail_mem)
	echo "$m" >"$res/mem-$N-$tag.txt"
	echo
	echo "== 2. $N idle jails, cell run -d $* -- sleep infinity"
	row "run -d per call (n median min max sum, µs)" "$(stats "$res/run-$tag.us")"
	row "jails found / processes in their pid namespaces" "$(field "$m" jails) / $(field "$m" procs)"
	row "Pss of those processes, sum / per jail" \
		"$(field "$m" pss_kib) KiB / $(($(field "$m" pss_kib) / N)) KiB"
	row "MemAvailable before - after, per jail" "$(((m0 - m1) / N)) KiB"
	row "processes running $CELL, in the jails / elsewhere" \
		"$(field "$m" exe_in) / $(field "$m" exe_out)"
	if [ "$tag" = m ]; then
		# The memory cgroup's own count (cell inspect reads it).
		u=$(for i in $(seq 1 "$N"); do
			cell inspect --json "$tag$i" | jq -r '.usage.memory // 0'
		done | awk '{ s += $1 } END { printf "%d", s / 1024 }')
		echo "$u" >"$res/cgroup-memory-$N.txt"
		row "memory cgroups' usage, sum / per jail" "$u KiB / $((u / N)) KiB"
	fi
	t=$(now_us)
	cell ls -aq | xargs -r -n 100 "$CELL" --root "$state" rm -f >/dev/null
	row "rm -f of all $N (batches of 100), wall" "$(us_to_ms $(($(now_us) - t))) ms"
}
variant i --init
variant m --memory 64M

# --- 3b. BIG jails at once --------------------------------------------

echo
echo "== 3b. $BIG jails at once, started by xargs -P 2"
m0=$(mem_available)
t=$(now_us)
set +e
seq 1 "$BIG" | xargs -P 2 -I{} "$CELL" --root "$state" run -d --name "c{}" -- sleep infinity \
	>/dev/null 2>"$res/run-$BIG.err"
rc=$?
set -e
t=$(($(now_us) - t))
sleep 2
m1=$(mem_available)
up=$(cell ls -q | wc -l)
all=$(cell ls -aq | wc -l)
row "started (running / recorded), xargs status" "$up / $all, $rc"
row "wall, per jail" "$(us_to_ms "$t") ms, $(us_to_ms $((t / BIG))) ms"
if [ -s "$res/run-$BIG.err" ]; then
	echo "errors ($(wc -l <"$res/run-$BIG.err") lines, first 5):"
	sort "$res/run-$BIG.err" | uniq -c | sort -rn | head -n 5
fi
m=$(jail_mem)
echo "$m" >"$res/mem-$BIG.txt"
row "processes in their pid namespaces" "$(field "$m" procs)"
row "Pss of those processes, sum / per jail" \
	"$(field "$m" pss_kib) KiB / $(($(field "$m" pss_kib) / (up ? up : 1))) KiB"
row "MemAvailable before - after, per jail" "$(((m0 - m1) / (up ? up : 1))) KiB"
row "processes running $CELL, in the jails / elsewhere" "$(field "$m" exe_in) / $(field "$m" exe_out)"

echo
echo "== 3b. cell ls with $up running jails (hyperfine -N, $WARMUP warmup, $RUNS runs)"
ls_bench "$up"

# ps of one jail and stats of all: one scan of /proc each, whatever the
# number of jails; stats --no-stream sleeps 0.5 s between its two
# samples (its CPU %), which the figures include.
echo
echo "== 3c. cell ps and cell stats with $up running jails (hyperfine -N)"
hyperfine -N --warmup 3 --runs "$RUNS" --style basic --export-json "$res/ps-$up.json" \
	--command-name "cell ps c1 ($up)" "$CELL --root $state ps c1" \
	--command-name "cell ps --json c1 ($up)" "$CELL --root $state ps --json c1" >"$res/ps-$up.txt"
hyperfine -N --warmup 1 --runs 10 --style basic --export-json "$res/stats-$up.json" \
	--command-name "cell stats --no-stream ($up)" "$CELL --root $state stats --no-stream" \
	--command-name "cell stats --no-stream c1 ($up)" "$CELL --root $state stats --no-stream c1" \
	--command-name "cell stats --json ($up)" "$CELL --root $state stats --json" >"$res/stats-$up.txt"
jq -r '.results[] | "\(.command)\t\(.median * 1000)\t\(.min * 1000)\t\(.max * 1000)"' \
	"$res/ps-$up.json" "$res/stats-$up.json" |
	awk -F'\t' '{ printf "%-52s %8.2f ms median (min %.2f, max %.2f)\n", $1, $2, $3, $4 }'
strace -c -o "$res/strace-c-stats-$up.txt" "$CELL" --root "$state" stats --no-stream >/dev/null

# run -d with BIG jails present, one at a time, against the first ones
# of section 1 (an empty store): it reads the jid of every jail.
for i in $(seq 1 20); do
	t0=$(now_us)
	cell run -d --name "d$i" -- sleep infinity >/dev/null || die "run -d of jail d$i failed"
	echo $(($(now_us) - t0))
done >"$res/run-at-$BIG.us"
head -n 20 "$res/run.us" >"$res/run-first-20.us"
echo
echo "== run -d, one at a time (per call: n median min max sum, µs)"
row "the first 20 of section 1 (0 to 19 jails present)" "$(stats "$res/run-first-20.us")"
row "20 more with $up jails present" "$(stats "$res/run-at-$BIG.us")"

# Where ls's time goes: syscalls of one run, counted, and the same run
# timed per call.
strace -c -o "$res/strace-c-ls-$BIG.txt" "$CELL" --root "$state" ls >/dev/null
strace -c -o "$res/strace-c-ls-json-$BIG.txt" "$CELL" --root "$state" ls --json >/dev/null
echo
echo "== cell ls with $up jails: top syscalls (strace -c; traced, so slower)"
head -n 12 "$res/strace-c-ls-$BIG.txt"

# And one more run -d with BIG jails present, traced; its payload is
# /bin/true, as strace -f waits for every process it follows.
strace -f -c -o "$res/strace-c-run-d.txt" "$CELL" --root "$state" run -d --name traced -- /bin/true >/dev/null
echo
echo "== cell run -d -- /bin/true with $up jails present: top syscalls (strace -f -c)"
head -n 12 "$res/strace-c-run-d.txt"

t=$(now_us)
cell ls -aq | xargs -r -n 100 "$CELL" --root "$state" rm -f >/dev/null
t=$(($(now_us) - t))
echo
row "rm -f of all $((all + 21)) (batches of 100), wall, per jail" \
	"$(us_to_ms "$t") ms, $(us_to_ms $((t / (all + 21)))) ms"
if [ -s "$res/cell-processes-outside.txt" ]; then
	echo
	echo "processes of $CELL seen outside the jails (not this script's; see"
	echo "cell-processes-outside.txt):"
	sort -u "$res/cell-processes-outside.txt" | head -n 5
fi
