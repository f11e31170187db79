#!/bin/bash
# `make compat`: the OCI conformance suite (tests/oci/spec_*.bats and
# cve.bats) against runc and crun from Debian, side by side, and against
# cell-oci when it is built; writes each runtime's TAP and one summary
# line per runtime ("NAME: N passed, N failed, N skipped") to OUT
# (default build/compat), and prints the tests whose results differ.
# Not part of `make test` and never failing on a runtime's failures:
# docs/COMPATIBILITY.md records the counts and explains each difference.
#
# COMPAT_RUNTIMES="runc crun cell-oci" (the default) picks which run.
#
# crun 1.8.1 refuses a hybrid cgroup layout with controllers on cgroup2
# (this host: hugetlb at /sys/fs/cgroup/unified).  It runs here through
# a wrapper that unmounts /sys/fs/cgroup/unified in a mount namespace of
# its own (unshare -m, private propagation): the host's cgroup mounts
# are not touched, and crun sees a v1 layout.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-build}
out=${2:-$top/$build/compat}
mkdir -p "$out"
tmp=$(mktemp -d /tmp/oci-compat.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

files=("$top"/tests/oci/spec_*.bats "$top/tests/oci/cve.bats")
runtimes=()

if command -v runc >/dev/null; then
	runtimes+=("runc=$(command -v runc)")
fi
if command -v crun >/dev/null; then
	crun=$(command -v crun)
	# (cgroup files have no size: read it)
	if [ -n "$(cat /sys/fs/cgroup/unified/cgroup.controllers 2>/dev/null)" ]; then
		cat >"$tmp/crun" <<-EOF
			#!/bin/sh
			exec unshare -m --propagation private sh -c 'umount -l /sys/fs/cgroup/unified && exec "\$0" "\$@"' "$crun" "\$@"
		EOF
		chmod 755 "$tmp/crun"
		crun=$tmp/crun
	fi
	runtimes+=("crun=$crun")
fi
if [ -x "$top/$build/cell-oci" ]; then
	runtimes+=("cell-oci=$top/$build/cell-oci")
fi

for rt in "${runtimes[@]}"; do
	name=${rt%%=*}
	[[ " ${COMPAT_RUNTIMES:-runc crun cell-oci} " == *" $name "* ]] || continue
	OCI_RUNTIME=${rt#*=} OCI_RUNTIME_NAME=$name bats --tap "${files[@]}" >"$out/$name.tap" 2>&1
done

# The counts of every runtime with a TAP in OUT (this run's or an
# earlier one's).
: >"$out/summary.txt"
for rt in "${runtimes[@]}"; do
	name=${rt%%=*}
	[ -f "$out/$name.tap" ] || continue
	p=$(grep -E '^ok ' "$out/$name.tap" | grep -vicE '# skip' || true)
	s=$(grep -E '^ok ' "$out/$name.tap" | grep -icE '# skip' || true)
	f=$(grep -cE '^not ok ' "$out/$name.tap" || true)
	echo "$name: $p passed, $f failed, $s skipped" | tee -a "$out/summary.txt"
done

# One line per test: its title and each runtime's result, for the tests
# whose results differ between runtimes.
for rt in "${runtimes[@]}"; do
	name=${rt%%=*}
	sed -nE 's/^(ok|not ok) [0-9]+ (.*)$/\2\t\1/p' "$out/$name.tap" | sort >"$tmp/$name.res"
done
if [ "${#runtimes[@]}" -gt 1 ]; then
	first=${runtimes[0]%%=*}
	cut -f1 "$tmp/$first.res" | while IFS= read -r title; do
		line=$title
		results=()
		for rt in "${runtimes[@]}"; do
			name=${rt%%=*}
			r=$(awk -F'\t' -v t="$title" '$1 == t { print $2 }' "$tmp/$name.res")
			results+=("${r:-missing}")
			line+=" | $name: ${r:-missing}"
		done
		[ "$(printf '%s\n' "${results[@]}" | sort -u | wc -l)" -gt 1 ] && echo "$line"
	done >"$out/differences.txt"
	echo "differences: $out/differences.txt"
	cat "$out/differences.txt"
fi
