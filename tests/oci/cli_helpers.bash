# Setup and teardown for the cell-oci command-line tests (cli.bats).
#
# setup_file makes one root filesystem for the file (busybox-static and
# its applets, in $BATS_FILE_TMPDIR); every test gets a private state
# root ($ROOT) and a bundle ($BUNDLE) whose config.json is cell-oci's
# default spec with the process, terminal and root set by make_bundle.
# Teardown deletes (-f) every container of $ROOT, fails the test if one
# is left, a process of it still runs, the root is not empty or a cgroup
# cell named after $ROOT is left (then removed), and removes its
# directories in every case.
#
# tests/oci/rootless.bats loads this file for edit_config, status_of,
# wait_status, gone and clean_root, with OCI_AS naming the command that
# runs cell-oci as its throwaway user (on that user's default state
# root).

bats_require_minimum_version 1.5.0

OCI=${CELL_OCI:-$BATS_TEST_DIRNAME/../../build/cell-oci}
# OCI_AS: empty (cell-oci run as root on $ROOT, by oci()), or a command
# (a function of the test file) that runs cell-oci ARGS as someone else,
# on that someone's default state root; status_of, wait_status and
# clean_root then call it instead.
OCI_AS=${OCI_AS:-}

# shellcheck source=../cgroup_name.bash
source "$BATS_TEST_DIRNAME/../cgroup_name.bash"

# leftover_cgroups: the cgroups of any container of this test's $ROOT
# (cell-HASH-ID, in any hierarchy and at any depth), deepest first.
leftover_cgroups() {
	local prefix
	prefix=$(cell_cgroup_name "$ROOT" "")
	find /sys/fs/cgroup -mindepth 2 -maxdepth 8 -type d -name "$prefix*" 2>/dev/null | sort -r
}

oci_setup_file() {
	ROOTFS=$BATS_FILE_TMPDIR/rootfs
	mkdir -p "$ROOTFS"/{bin,proc,sys,dev,tmp,etc,root}
	cp /bin/busybox "$ROOTFS/bin/busybox"
	local a
	for a in $(/bin/busybox --list); do
		[ "$a" = busybox ] || ln -sf busybox "$ROOTFS/bin/$a"
	done
	echo 'root:x:0:0:root:/root:/bin/sh' >"$ROOTFS/etc/passwd"
	echo 'root:x:0:' >"$ROOTFS/etc/group"
	export ROOTFS
}

# oci ARGS...: cell-oci on this test's state root.
oci() {
	"$OCI" --root "$ROOT" "$@"
}

# make_bundle [DIR] -- ARGS...: a bundle (default $BUNDLE) whose process
# runs ARGS without a terminal, on the file's root (read-only).
make_bundle() {
	local dir=$BUNDLE
	if [ "$1" != -- ]; then
		dir=$1
		shift
	fi
	shift
	mkdir -p "$dir"
	rm -f "$dir/config.json"
	"$OCI" spec --bundle "$dir"
	local args
	args=$(printf '%s\n' "$@" | jq -R . | jq -s .)
	jq --arg root "$ROOTFS" --argjson args "$args" \
		'.root.path = $root | .root.readonly = true | .process.terminal = false |
		 .process.args = $args' "$dir/config.json" >"$dir/config.json.new"
	mv "$dir/config.json.new" "$dir/config.json"
}

# edit_config JQ-ARGS...: changes $BUNDLE/config.json, which stays its
# owner's (a throwaway user's bundle stays the user's to read).
edit_config() {
	jq "$@" "$BUNDLE/config.json" >"$BUNDLE/config.json.new"
	chown --reference="$BUNDLE/config.json" "$BUNDLE/config.json.new"
	mv "$BUNDLE/config.json.new" "$BUNDLE/config.json"
}

# status_of ID: the container's status, from cell-oci state (as $OCI_AS).
status_of() {
	${OCI_AS:-oci} state "$1" | jq -r .status
}

# wait_status ID STATUS: until the container has STATUS (10 s at most).
wait_status() {
	local i
	for ((i = 0; i < 100; i++)); do
		[ "$(status_of "$1" 2>/dev/null)" = "$2" ] && return 0
		sleep 0.1
	done
	echo "container $1: status $(status_of "$1" 2>&1), not $2" >&2
	return 1
}

# gone PID: true once PID has ended (a zombie has: only its new parent,
# init, has yet to reap it), polled for 5 s at most.
gone() {
	local i state
	for ((i = 0; i < 50; i++)); do
		state=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) || return 0
		[ -z "$state" ] || [ "$state" = Z ] || [ "$state" = X ] && return 0
		sleep 0.1
	done
	return 1
}

oci_setup() {
	ROOT=$BATS_TEST_TMPDIR/root
	BUNDLE=$BATS_TEST_TMPDIR/bundle
	PIDS=()
	mkdir -p "$BUNDLE"
}

# clean_root ROOT: deletes (-f) every container of the state root ROOT
# (by cell-oci, as $OCI_AS if set) and removes ROOT; fails, saying why,
# when a container was there, its process outlived delete -f (then
# killed) or ROOT was not left empty.
clean_root() {
	local root=$1 id pid errors=()
	local -a run=("$OCI")
	[ -n "$OCI_AS" ] && run=("$OCI_AS")
	[ -d "$root" ] || return 0
	for id in $("${run[@]}" --root "$root" list -q 2>/dev/null); do
		pid=$("${run[@]}" --root "$root" state "$id" 2>/dev/null | jq -r .pid)
		"${run[@]}" --root "$root" delete -f "$id" >/dev/null 2>&1 ||
			errors+=("container $id: delete -f failed")
		if [ -n "$pid" ] && [ "$pid" != 0 ] && ! gone "$pid"; then
			errors+=("container $id: pid $pid still runs")
			kill -9 "$pid"
		fi
	done
	if [ -n "$(ls -A "$root" 2>/dev/null)" ]; then
		errors+=("state left in $root: $(ls -A "$root" | tr '\n' ' ')")
	fi
	rm -rf --one-file-system "$root"
	[ ${#errors[@]} -eq 0 ] && return 0
	printf 'teardown: %s\n' "${errors[@]}" >&2
	return 1
}

oci_teardown() {
	local pid cg ret=0 errors=()
	clean_root "$ROOT" || ret=1
	for pid in "${PIDS[@]}"; do
		kill -9 "$pid" 2>/dev/null || true
	done
	for cg in $(leftover_cgroups); do
		errors+=("cgroup left behind: $cg")
		rmdir "$cg" 2>/dev/null
	done
	rm -rf "$ROOT" "$BUNDLE"
	if [ ${#errors[@]} -gt 0 ]; then
		printf 'teardown: %s\n' "${errors[@]}" >&2
		return 1
	fi
	return "$ret"
}
