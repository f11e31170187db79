#!/bin/bash
# Runs every suite and ends with one line "N passed, N failed, N skipped"
# summed over all of them; exits non-zero if anything failed.
#
#   unit          cmocka tests of the engine (release build)
#   unit-asan     the same under AddressSanitizer + UndefinedBehaviorSanitizer
#   integration   bats tests of the real binary, as root (the reliability
#                 tests use the build with pause points, build-testpoints)
#   policy (--userns host)  policy.bats again with --userns host
#   policy (rootless)       policy.bats again with cell run by a plain user
#   security      bats tests that attack from inside a jail (tests/security)
#   oci           the OCI runtime suite (tests/oci) against build/cell-oci
#   engines       podman (as root, and rootless as a throwaway user),
#                 containerd and dockerd on cell-oci (tests/engines);
#                 an engine that is not installed counts as skipped
#   vm            the cgroup v2 backend and rootless cgroups in a cgroup v2
#                 VM (tests/vm/cgroup2.sh, about a minute under TCG); one
#                 skip when the host cannot run it (no qemu, no kernel)
#   vm-6.1        the same guest on Debian 12's own kernel, the oldest cell
#                 supports (/boot/vmlinuz-6.1.*, else bookworm's fetched by
#                 tests/vm/kernel.sh); one skip when there is none
set -u
build=${1:-build}
asan=${2:-build-asan}
testpoints=${3:-build-testpoints}
top=$(cd "$(dirname "$0")/.." && pwd)
log=$(mktemp -d /tmp/cell-test-log.XXXXXX)
pass=0 fail=0 skip=0

# Counts a TAP stream: "ok", "not ok", "# skip".
count_tap() {
	local p f s
	p=$(grep -E '^ok ' "$1" | grep -vicE '# skip' || true)
	s=$(grep -E '^ok ' "$1" | grep -icE '# skip' || true)
	f=$(grep -cE '^not ok ' "$1" || true)
	echo "$2: $p passed, $f failed, $s skipped"
	# A suite that ran nothing is broken, not green (a build configured
	# without cmocka once ran 0 unit tests without a word).
	if [ $((p + f + s)) -eq 0 ]; then
		echo "$2: no test ran" >&2
		f=1
	fi
	pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
}

run_unit() { # name builddir
	local out="$log/$1.tap" t
	: >"$out"
	for t in "$2"/tests/unit/test_*; do
		[ -f "$t" ] && [ -x "$t" ] || continue
		if ! CMOCKA_MESSAGE_OUTPUT=TAP "$t" >>"$out" 2>&1; then
			grep -qE '^not ok ' "$out" || echo "not ok - $(basename "$t") crashed" >>"$out"
		fi
	done
	cat "$out"
	count_tap "$out" "$1"
}

run_unit unit "$top/$build"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	run_unit unit-asan "$top/$asan"

# Per fuzz target (jailconf, record, oci_config, passwd): the saved crash inputs once each, then
# a short libFuzzer pass over a copy of the seed corpus (the run adds inputs
# to it; the repository's stays as it is).  A crash input is kept in the
# sanitizer build dir as fuzz-NAME-*.
run_fuzz() { # out binary name
	local regs="$top/tests/fuzz/regressions/$3" secs=${FUZZ_SECONDS:-20} corpus r
	local -a files=() dict=()
	[ -d "$regs" ] && files=("$regs"/*)
	[ -e "${files[0]:-}" ] || files=()
	[ -f "$top/tests/fuzz/$3.dict" ] && dict=(-dict="$top/tests/fuzz/$3.dict")
	if [ "${#files[@]}" -eq 0 ] || "$2" -timeout=5 "${files[@]}" >"$log/fuzz-$3-regressions.log" 2>&1; then
		echo "ok 1 fuzz $3 regressions (${#files[@]} inputs)" >>"$1"
	else
		tail -n 30 "$log/fuzz-$3-regressions.log"
		echo "not ok 1 fuzz $3 regressions" >>"$1"
	fi
	corpus=$(mktemp -d /tmp/cell-fuzz-corpus.XXXXXX)
	cp -r "$top/tests/fuzz/corpus/$3/." "$corpus/"
	"$2" -max_total_time="$secs" -timeout=5 -rss_limit_mb=2048 "${dict[@]}" \
		-artifact_prefix="$top/$asan/fuzz-$3-" "$corpus" >"$log/fuzz-$3.log" 2>&1
	r=$?
	rm -rf "$corpus"
	if [ "$r" -eq 0 ]; then
		echo "ok 2 fuzz $3 $secs s" >>"$1"
	else
		tail -n 30 "$log/fuzz-$3.log"
		echo "not ok 2 fuzz $3 $secs s (input saved as $top/$asan/fuzz-$3-*)" >>"$1"
	fi
}

out="$log/fuzz.tap"
: >"$out"
for target in jailconf record oci_config passwd; do
	if [ -x "$top/$asan/tests/fuzz/fuzz_$target" ]; then
		ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
			run_fuzz "$out" "$top/$asan/tests/fuzz/fuzz_$target" "$target"
	else
		echo "ok 1 fuzz $target # skip no libFuzzer" >>"$out"
	fi
done
cat "$out"
count_tap "$out" fuzz

out="$log/integration.tap"
if [ "$(id -u)" = 0 ]; then
	CELL="$top/$build/cell" CELL_TESTPOINTS="$top/$testpoints/cell" \
		bats --tap "$top/tests/integration" 2>&1 | tee "$out"
else
	echo "ok 1 integration # skip not root" | tee "$out"
fi
count_tap "$out" integration

# The policy battery again without a user namespace of the jail's own
# (--userns host, the documented weaker model): its rules must hold there
# too.
out="$log/policy-userns-host.tap"
if [ "$(id -u)" = 0 ]; then
	POLICY_USERNS=host CELL="$top/$build/cell" CELL_TESTPOINTS="$top/$testpoints/cell" \
		bats --tap "$top/tests/integration/policy.bats" 2>&1 | tee "$out"
else
	echo "ok 1 policy --userns host # skip not root" | tee "$out"
fi
count_tap "$out" "policy (--userns host)"

# And again with cell as a plain user (a throwaway user with subordinate
# ranges, made and removed by the suite): the rules hold rootless, in the
# user namespace's terms.
out="$log/policy-rootless.tap"
if [ "$(id -u)" = 0 ]; then
	POLICY_ROOTLESS=1 CELL="$top/$build/cell" CELL_TESTPOINTS="$top/$testpoints/cell" \
		bats --tap "$top/tests/integration/policy.bats" 2>&1 | tee "$out"
else
	echo "ok 1 policy rootless # skip not root" | tee "$out"
fi
count_tap "$out" "policy (rootless)"

out="$log/security.tap"
if [ "$(id -u)" = 0 ]; then
	CELL="$top/$build/cell" CELL_TESTPOINTS="$top/$testpoints/cell" \
		bats --tap "$top/tests/security" 2>&1 | tee "$out"
else
	echo "ok 1 security # skip not root" | tee "$out"
fi
count_tap "$out" security

# The OCI conformance suite, the CVE regressions and the CLI tests,
# against cell-oci.
out="$log/oci.tap"
if [ "$(id -u)" = 0 ]; then
	OCI_RUNTIME="$top/$build/cell-oci" CELL_OCI="$top/$build/cell-oci" \
		bats --tap "$top/tests/oci" 2>&1 | tee "$out"
else
	echo "ok 1 oci # skip not root" | tee "$out"
fi
count_tap "$out" oci

# Each engine on cell-oci; one whose package is missing (it could not be
# installed) is one counted skip, never silence.
out="$log/engines.tap"
: >"$out"
for engine in podman podman-rootless containerd docker; do
	bin=$engine
	[ "$engine" = docker ] && bin=dockerd
	[ "$engine" = podman-rootless ] && bin=podman
	if [ "$(id -u)" != 0 ]; then
		echo "ok 1 engines $engine # skip not root" | tee -a "$out"
	elif ! command -v "$bin" >/dev/null; then
		echo "ok 1 engines $engine # skip $bin is not installed" | tee -a "$out"
	else
		OCI_RUNTIME="$top/$build/cell-oci" bats --tap "$top/tests/engines/$engine.bats" 2>&1 |
			tee -a "$out"
	fi
done
count_tap "$out" engines

# The VM: its guest's TAP lines; a guest that did not reach its end is
# one failure more.
out="$log/vm.tap"
if [ "$(id -u)" = 0 ]; then
	if ! CELL="$top/$build/cell" "$top/tests/vm/cgroup2.sh" >"$out" 2>"$log/vm.err"; then
		grep -qE '^not ok ' "$out" || echo "not ok - vm: $(tail -n 1 "$log/vm.err")" >>"$out"
	fi
	cat "$out"
else
	echo "ok 1 vm # skip not root" | tee "$out"
fi
count_tap "$out" vm

# The same guest on Debian 12's stock kernel (6.1), when it is here: the
# oldest kernel cell supports stays covered.
out="$log/vm-6.1.tap"
k61=$(ls /boot/vmlinuz-6.1.* 2>/dev/null | sort -V | tail -n 1)
# Else Debian 12's, unpacked into tests/vm/kernel.sh's cache (nothing
# installed).
if [ -z "$k61" ] && [ "$(id -u)" = 0 ]; then
	k61=$(VM_KERNEL_SERIES=6.1 "$top/tests/vm/kernel.sh" 2>"$log/vm-6.1.kernel") || k61=
fi
if [ "$(id -u)" != 0 ]; then
	echo "ok 1 vm-6.1 # skip not root" | tee "$out"
elif [ -z "$k61" ]; then
	echo "ok 1 vm-6.1 # skip no Debian 12 kernel (6.1): $(tail -n 1 "$log/vm-6.1.kernel")" | tee "$out"
else
	if ! VMLINUZ=$k61 CELL="$top/$build/cell" "$top/tests/vm/cgroup2.sh" >"$out" 2>"$log/vm-6.1.err"; then
		grep -qE '^not ok ' "$out" || echo "not ok - vm-6.1: $(tail -n 1 "$log/vm-6.1.err")" >>"$out"
	fi
	cat "$out"
fi
count_tap "$out" vm-6.1

rm -rf "$log"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
