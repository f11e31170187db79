# Common setup for the integration tests: a private state root per test,
# and checks that nothing is left behind.
CELL=${CELL:-$BATS_TEST_DIRNAME/../../build/cell}

setup() {
	STATE=$(mktemp -d /tmp/cell-bats-state.XXXXXX)
}

teardown() {
	# No mount of the state root may remain on the host, and the state
	# root must be empty: a jail cleans up after itself.
	! grep -q "$STATE" /proc/self/mountinfo
	[ -z "$(ls -A "$STATE")" ]
	rmdir "$STATE"
}

cell() {
	"$CELL" --root "$STATE" "$@"
}
