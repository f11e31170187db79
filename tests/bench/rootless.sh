#!/bin/bash
# The rootless benchmark: `cell run -- /bin/true` as a plain user (the
# single mapping, and with subordinate ranges through newuidmap), side by
# side in one hyperfine invocation with cell run by root, bwrap
# --unshare-all as the same user and a rootless crun run (a bundle of
# `crun spec --rootless`); then callgrind's instruction counts of cell's
# start, rootless and as root.  docs/PERFORMANCE.md ("Rootless") explains
# the output.  Goal (issue 17): rootless no more than 0.5 ms slower than
# rootful, and faster than bwrap.
#
#   tests/bench/rootless.sh [CELL]     (as root; `make bench-rootless`)
#
# Every command is started through setpriv(1), as the user or as root
# (--reuid 0), so that each pays the same exec of setpriv; "setpriv
# true" measures that.  The throwaway users (tests/rootless.bash), their
# temp directories, the tmpfs the state roots live on (in a mount
# namespace of the script's own) and crun's state go on exit, even on
# failure.  RUNS (200) and WARMUP (20) tune hyperfine.
set -euo pipefail

CELL=${1:-${CELL:-build/cell}}
RUNS=${RUNS:-200}
WARMUP=${WARMUP:-20}
here=$(cd "$(dirname "$0")" && pwd)

die() {
	echo "rootless.sh: $*" >&2
	exit 1
}

[ "$(id -u)" = 0 ] || die "must run as root (it makes the test users)"
# The state roots on a tmpfs, as /run/user/UID is on a systemd host; in a
# mount namespace of the script's own, so nothing changes on the host.
if [ -z "${CELL_BENCH_NS:-}" ]; then
	exec env CELL_BENCH_NS=1 unshare --mount --propagation private "$0" "$@"
fi
for tool in hyperfine jq setpriv newuidmap busybox; do
	command -v "$tool" >/dev/null || die "$tool is missing (scripts/install-deps.sh bench)"
done
[ -x "$CELL" ] || die "$CELL: no such executable (make build)"
CELL=$(cd "$(dirname "$CELL")" && pwd)/$(basename "$CELL")

# shellcheck source=../rootless.bash
source "$here/../rootless.bash"
tmp=$(mktemp -d /tmp/cell-bench-rl.XXXXXX)
chmod 0755 "$tmp"
cleanup() {
	local dir id
	# crun's containers (a run deletes its own; an interrupted one may not).
	for dir in "$tmp"/states/*/crun; do
		[ -d "$dir" ] || continue
		for id in $(crun --root "$dir" list -q 2>/dev/null); do
			crun --root "$dir" delete --force "$id" >/dev/null 2>&1 || true
		done
	done
	rootless_teardown || true
	# An id range a root jail of this run still held (a start killed
	# before it gave it back): its holder file names this run's root.
	{ grep -lxF "root $tmp/states/root" /run/cell-ids/u* 2>/dev/null || true; } | xargs -r rm -f
	umount "$tmp/states" 2>/dev/null || true
	rm -rf --one-file-system "$tmp"
}
trap cleanup EXIT
rootless_setup

mkdir "$tmp/states"
mount -t tmpfs -o mode=0755 cell-bench-rl "$tmp/states"
# One state directory per runner, its own, 0700.
for who in root user plain; do
	mkdir -m 0700 "$tmp/states/$who"
done
chown "$RL_UID:$RL_GID" "$tmp/states/user"
chown "$RL_PLAIN_UID:$RL_PLAIN_GID" "$tmp/states/plain"

# as WHO: the setpriv prefix that runs a command as WHO (root, user, plain).
as() {
	case $1 in
	root) echo "setpriv --reuid 0 --regid 0 --clear-groups" ;;
	user) echo "setpriv --reuid $RL_UID --regid $RL_GID --clear-groups" ;;
	plain) echo "setpriv --reuid $RL_PLAIN_UID --regid $RL_PLAIN_GID --clear-groups" ;;
	esac
}

# A busybox root for crun's bundle, readable by the user.
root=$tmp/root
mkdir -p "$root/bin" "$root/proc" "$root/dev" "$root/sys" "$root/tmp"
cp "$(command -v busybox)" "$root/bin/busybox"
ln -s busybox "$root/bin/sh"
ln -s busybox "$root/bin/true"
chmod -R a+rX "$root"

names=() cmds=()
add() { # name command
	names+=("$1")
	cmds+=("$2")
}
add "setpriv true" "$(as user) /bin/true"
add "cell (root)" "$(as root) $RL_CELL --root $tmp/states/root run -- /bin/true"
add "cell rootless (ranges)" "$(as user) $RL_CELL --root $tmp/states/user run -- /bin/true"
add "cell rootless (single)" "$(as plain) $RL_CELL --root $tmp/states/plain run -- /bin/true"
if [ -n "${OLD:-}" ]; then
	[ -x "$OLD" ] || die "OLD=$OLD: no such executable"
	cp "$OLD" "$RL_BIN/cell-old"
	chmod 0755 "$RL_BIN/cell-old"
	add "cell (root, old)" "$(as root) $RL_BIN/cell-old --root $tmp/states/root run -- /bin/true"
	add "cell rootless (ranges, old)" \
		"$(as user) $RL_BIN/cell-old --root $tmp/states/user run -- /bin/true"
fi
add "bwrap (user)" \
	"$(as user) bwrap --unshare-all --ro-bind / / --dev /dev --proc /proc /bin/true"
if command -v crun >/dev/null; then
	# crun's rootless default spec, made as the user (its maps name the
	# user's ids), our root and command; no cgroups (crun refuses this
	# host's hybrid layout, and cell makes none rootless either).  A dash
	# wrapper gives each run an id of its own (its pid), as startup.sh.
	bundle=$tmp/bundle
	mkdir -p "$bundle"
	chown "$RL_UID:$RL_GID" "$bundle"
	$(as user) crun spec --rootless --bundle "$bundle"
	jq --arg root "$root" '.root.path = $root | .process.args = ["/bin/true"] |
		.process.terminal = false' "$bundle/config.json" >"$bundle/config.json.new"
	mv "$bundle/config.json.new" "$bundle/config.json"
	chmod -R a+rX "$bundle"
	mkdir -m 0700 "$tmp/states/user/crun"
	chown "$RL_UID:$RL_GID" "$tmp/states/user/crun"
	cat >"$tmp/crun-run" <<-EOF
		#!/bin/sh
		exec crun --cgroup-manager=disabled --root $tmp/states/user/crun run --bundle $bundle rl\$\$
	EOF
	chmod 0755 "$tmp/crun-run"
	add "crun rootless (user)" "$(as user) $tmp/crun-run"
else
	echo "crun: left out, not installed"
fi

# One trial run of each, as startup.sh: a tool that fails here is
# reported and left out; cell failing is fatal.
args=()
for i in "${!names[@]}"; do
	cmd=${cmds[$i]}
	# shellcheck disable=SC2086 # the commands are word lists
	if ! out=$(cd "$tmp" && $cmd 2>&1 </dev/null); then
		case ${names[$i]} in
		cell*) die "${names[$i]} failed: $out" ;;
		esac
		echo "${names[$i]}: left out, its trial run failed: $out"
		continue
	fi
	args+=(--command-name "${names[$i]}" "$cmd")
done

echo
echo "== rootless startup: $RUNS runs each, $WARMUP warmup, $(nproc) CPUs, $(uname -r), state on tmpfs"
(cd "$tmp" && hyperfine -N --warmup "$WARMUP" --runs "$RUNS" --style basic \
	--export-json "$tmp/rootless.json" --export-markdown "$tmp/rootless.md" "${args[@]}")
echo
cat "$tmp/rootless.md"

# Medians; each one's difference from cell as root, and the goal's
# verdict.  The CPU time (user + system, means) of each too: on a busy
# machine wall times wait for the CPU, CPU times much less.
echo
jq -r '.results[] | "\(.command)\t\(.median)\t\(.user + .system)"' "$tmp/rootless.json" |
	awk -F'\t' '
	{ name[NR] = $1; med[NR] = $2 * 1000; cpu[NR] = $3 * 1000 }
	$1 == "cell (root)" { r = $2 * 1000; rc = $3 * 1000 }
	$1 == "bwrap (user)" { b = $2 * 1000 }
	$1 == "cell rootless (ranges)" { rr = $2 * 1000 }
	$1 == "cell rootless (single)" { rs = $2 * 1000 }
	END {
		printf "%-30s %12s %12s %10s %12s\n", "command", "median (ms)", "- root (ms)", "CPU (ms)", "- root (ms)"
		for (i = 1; i <= NR; i++)
			printf "%-30s %12.3f %+12.3f %10.3f %+12.3f\n", name[i], med[i], med[i] - r, cpu[i], cpu[i] - rc
		printf "\ngoal, rootless <= root + 0.5 ms (medians): ranges %s, single %s\n",
			rr - r <= 0.5 ? "met" : "NOT met", rs - r <= 0.5 ? "met" : "NOT met"
		if (b > 0)
			printf "goal, faster than bwrap (medians): ranges %s, single %s\n",
				rr < b ? "met" : "NOT met", rs < b ? "met" : "NOT met"
	}'

# --- instructions -------------------------------------------------------

# valgrind 3.19 has no clone3 (ENOSYS), which cell uses without a
# fallback: under callgrind a start counts cell's own work up to the
# clone (arguments, policy, state directory and, rootless, the user
# namespace and its maps) and then fails; newuidmap, a child, is not
# followed.  Root and rootless side by side; as root the default start
# forks its id helper with a raw clone valgrind cannot follow (valgrind
# dies there, before cell gives its id range back), so root is counted
# with --userns host (no helper, no range).
echo
echo "== instructions of cell's start up to clone3 (callgrind, Ir; the process alone)"
if ! command -v valgrind >/dev/null; then
	echo "valgrind is not installed: left out"
	exit 0
fi
mkdir -m 0777 "$tmp/callgrind"
for who in root-host user plain; do
	userns=()
	[ "$who" = root-host ] && userns=(--userns host)
	# shellcheck disable=SC2046 # the prefix is a word list
	(cd "$tmp" && $(as "${who%-host}") valgrind --tool=callgrind \
		--callgrind-out-file="$tmp/callgrind/$who.out" \
		"$RL_CELL" --root "$tmp/states/${who%-host}" run "${userns[@]}" -- /bin/true \
		</dev/null >"$tmp/callgrind/$who.log" 2>&1) || true
	n=$( (callgrind_annotate "$tmp/callgrind/$who.out" 2>/dev/null || true) |
		awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1 }')
	# What stopped it: clone3's ENOSYS (cell's message), or valgrind's
	# own failure on a raw clone.
	why=$(grep -v '^==' "$tmp/callgrind/$who.log" | grep -m 1 -E 'cell: |valgrind: |syscall' || true)
	printf '%-10s %12s Ir   (%s)\n' "$who" "${n:-?}" "${why:-ran to the end}"
done
echo
echo "rootless (ranges): top 12 functions by inclusive cost (Ir)"
(callgrind_annotate --inclusive=yes "$tmp/callgrind/user.out" 2>/dev/null || true) |
	awk '/file:function/ { on = 1; getline; next } on && NF && !/below main/ && n++ < 12'
