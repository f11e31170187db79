#!/bin/bash
# What the default jail policy costs (issue 4), measured side by side:
#  1. a syscall-heavy loop (tests/bench/syscalls.c) on the host, in a jail
#     without the policy (--no-policy) and in a default jail: the median
#     of ROUNDS interleaved runs of ns per iteration;
#  2. startup: `cell run -- /bin/true` with and without the policy, and
#     with --allow set_hostname (its own user namespace), in one
#     hyperfine run.
# Usage: tests/bench/policy.sh [CELL]   (run as root; CELL: build/cell)
set -euo pipefail

CELL=$(realpath "${1:-${CELL:-build/cell}}")
ROUNDS=${ROUNDS:-11}
ITER=${ITER:-200000}
here=$(cd "$(dirname "$0")" && pwd)

# The state root on a tmpfs, as /run is on a Debian host (STATE_FS=disk:
# in the temp dir; see startup.sh), in a mount namespace of our own.
STATE_FS=${STATE_FS:-tmpfs}
if [ "$STATE_FS" = tmpfs ] && [ -z "${CELL_BENCH_NS:-}" ]; then
	exec env CELL_BENCH_NS=1 unshare --mount --propagation private "$0" "$@"
fi

# Outside /tmp: a jail's /tmp is its own tmpfs, the host's / is visible.
work=$(mktemp -d /var/tmp/cell-bench-policy.XXXXXX)
state="$work/state"
mkdir "$state"
if [ "$STATE_FS" = tmpfs ]; then
	mount -t tmpfs -o mode=0700 cell-bench "$state"
	trap 'umount "$state"; rm -rf --one-file-system "$work"' EXIT
else
	trap 'rm -rf --one-file-system "$work"' EXIT
fi
cc -O2 -Wall -o "$work/syscalls" "$here/syscalls.c"

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

: >"$work/host"
: >"$work/nopolicy"
: >"$work/policy"
for _ in $(seq "$ROUNDS"); do
	"$work/syscalls" "$ITER" >>"$work/host"
	"$CELL" --root "$state" run -T --no-policy -- "$work/syscalls" "$ITER" >>"$work/nopolicy"
	"$CELL" --root "$state" run -T -- "$work/syscalls" "$ITER" >>"$work/policy"
done
h=$(median <"$work/host")
n=$(median <"$work/nopolicy")
p=$(median <"$work/policy")
echo "syscall loop (getpid, uname, open, close, write), ns per iteration, median of $ROUNDS:"
printf '  %-22s %8s ns\n' host "$h" "jail, --no-policy" "$n" "jail, default policy" "$p"
awk -v h="$h" -v n="$n" -v p="$p" 'BEGIN {
	printf "  policy vs host: %+.1f%%, policy vs --no-policy: %+.1f%%\n",
		(p / h - 1) * 100, (p / n - 1) * 100 }'

echo
echo "startup (state on $STATE_FS):"
hyperfine -N --warmup 20 --runs "${RUNS:-300}" --style basic \
	--export-json "$work/startup.json" \
	-n 'cell run --no-policy' "$CELL --root $state run -T --no-policy -- /bin/true" \
	-n 'cell run (policy)' "$CELL --root $state run -T -- /bin/true" \
	-n 'allow set_hostname' "$CELL --root $state run -T --allow set_hostname -- /bin/true" \
	>/dev/null
jq -r '.results[] | "\(.command)\t\(.median * 1e6 | floor)"' "$work/startup.json" |
	awk -F'\t' '{ m[NR] = $2; printf "  %-22s %8d us (median)\n", $1, $2 }
	END { printf "  policy adds %+.1f%% to startup; its own user namespace (set_hostname) %+.1f%% more\n",
		(m[2] / m[1] - 1) * 100, (m[3] / m[2] - 1) * 100 }'
