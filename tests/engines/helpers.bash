# Common setup for the engine suites (tests/engines): podman, containerd
# and dockerd driving $OCI_RUNTIME (default build/cell-oci) on an image
# made offline from a busybox-static root.
#
# Each suite starts its engine with a private root, state and socket
# under $ENGINE_TMP (a temp dir of its own) in setup_file and, in
# teardown_file, removes its containers and images, stops its daemons by
# pid, unmounts whatever is left under $ENGINE_TMP and removes the
# cgroups the engine made (only those that did not exist before).  No
# host network change: no bridge, no iptables, containers without a
# network (none) or in a namespace of their own with only lo.

bats_require_minimum_version 1.5.0

OCI_RUNTIME=${OCI_RUNTIME:-$BATS_TEST_DIRNAME/../../build/cell-oci}
# Absolute, but not resolved: cell-oci is a link whose name matters.
OCI_RUNTIME=$(realpath -s "$OCI_RUNTIME")
# The longest an engine command may take before the test fails.
ENGINE_TIMEOUT=${ENGINE_TIMEOUT:-120}

# engine_tmp NAME: make $ENGINE_TMP (world-traversable: a container's
# user may need to reach its root) and the busybox root $ENGINE_TMP/rootfs
# and its tarball $ENGINE_TMP/rootfs.tar.
engine_tmp() {
	ENGINE_TMP=$(mktemp -d "/var/tmp/engine-$1.XXXXXX")
	chmod 755 "$ENGINE_TMP"
	local r=$ENGINE_TMP/rootfs
	mkdir -p "$r/bin" "$r/etc" "$r/proc" "$r/sys" "$r/dev" "$r/tmp" "$r/root" "$r/run"
	cp /bin/busybox "$r/bin/busybox"
	chroot "$r" /bin/busybox --install -s /bin
	printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/false\n' >"$r/etc/passwd"
	printf 'root:x:0:\nnogroup:x:65534:\n' >"$r/etc/group"
	chmod 1777 "$r/tmp"
	tar -C "$r" -cf "$ENGINE_TMP/rootfs.tar" .
	export ENGINE_TMP
}

# cgroups_snapshot: every cgroup directory on the host now (to remove
# only those an engine adds).
cgroups_snapshot() {
	find /sys/fs/cgroup -mindepth 2 -maxdepth 6 -type d 2>/dev/null | sort
}

# remove_new_cgroups BEFORE-FILE NAME-REGEX: rmdir the cgroups that are
# not in BEFORE-FILE and whose path matches NAME-REGEX, deepest first
# (only empty ones go: rmdir refuses the others).
remove_new_cgroups() {
	local d
	cgroups_snapshot | comm -13 "$1" - | grep -E "$2" | sort -r |
		while read -r d; do
			rmdir "$d" 2>/dev/null || echo "engine teardown: cgroup $d left" >&2
		done
}

# unmount_under DIR: lazily unmount every mount under DIR, deepest first.
unmount_under() {
	[ -n "$1" ] || return 0
	awk -v d="$1" 'index($5, d) == 1 { print $5 }' /proc/self/mountinfo | sort -r |
		while read -r m; do umount -l "$m" 2>/dev/null; done
}

# stop_pid PID: TERM, then KILL after 10 s.
stop_pid() {
	local i
	[ -n "$1" ] || return 0
	kill -TERM "$1" 2>/dev/null || return 0
	for ((i = 0; i < 100; i++)); do
		kill -0 "$1" 2>/dev/null || return 0
		sleep 0.1
	done
	kill -KILL "$1" 2>/dev/null
}

# wait_socket PATH [TENTHS]: wait until PATH is a socket (default 30 s).
wait_socket() {
	local i
	for ((i = 0; i < ${2:-300}; i++)); do
		[ -S "$1" ] && return 0
		sleep 0.1
	done
	echo "timed out waiting for $1" >&2
	return 1
}

# poll_until [TENTHS] COMMAND...: poll COMMAND until it succeeds
# (default 10 s).
poll_until() {
	local i n=100
	[[ "$1" =~ ^[0-9]+$ ]] && n=$1 && shift
	for ((i = 0; i < n; i++)); do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	echo "timed out: $*" >&2
	return 1
}

# memory_limit_of PID: the memory limit of PID's cgroup on the host.
memory_limit_of() {
	local line
	if [ -e /sys/fs/cgroup/cgroup.controllers ]; then
		line=$(grep '^0::' "/proc/$1/cgroup")
		cat "/sys/fs/cgroup${line#0::}/memory.max"
	else
		line=$(grep -E '^[0-9]+:memory:' "/proc/$1/cgroup")
		cat "/sys/fs/cgroup/memory${line#*:memory:}/memory.limit_in_bytes"
	fi
}

# pids_limit_of PID
pids_limit_of() {
	local line
	if [ -e /sys/fs/cgroup/cgroup.controllers ]; then
		line=$(grep '^0::' "/proc/$1/cgroup")
		cat "/sys/fs/cgroup${line#0::}/pids.max"
	else
		line=$(grep -E '^[0-9]+:pids:' "/proc/$1/cgroup")
		cat "/sys/fs/cgroup/pids${line#*:pids:}/pids.max"
	fi
}

# The terminal output of COMMAND run under a pty (script(1)), \r removed.
run_in_pty() {
	SHELL=/bin/sh run timeout "$ENGINE_TIMEOUT" script -qec "$1" /dev/null </dev/null
	output=${output//$'\r'/}
}

# blob FILE: store FILE in the layout $LAYOUT as a sha256 blob; prints
# "DIGEST SIZE".
blob() {
	local sum size
	sum=$(sha256sum "$1" | cut -d' ' -f1)
	size=$(stat -c %s "$1")
	cp "$1" "$LAYOUT/blobs/sha256/$sum"
	echo "sha256:$sum $size"
}

# make_oci_archive NAME OUT: an OCI image layout archive (what `ctr
# image import` takes) of $ENGINE_TMP/rootfs.tar as one uncompressed
# layer, its manifest named NAME.
make_oci_archive() {
	local name=$1 out=$2 l c m
	LAYOUT=$ENGINE_TMP/layout
	mkdir -p "$LAYOUT/blobs/sha256"
	read -r -a l <<<"$(blob "$ENGINE_TMP/rootfs.tar")"
	jq -cn --arg l "${l[0]}" '{architecture: "amd64", os: "linux",
		config: {Cmd: ["sh"], Env: ["PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"]},
		rootfs: {type: "layers", diff_ids: [$l]}}' | tr -d '\n' >"$ENGINE_TMP/config.json"
	read -r -a c <<<"$(blob "$ENGINE_TMP/config.json")"
	jq -cn --arg c "${c[0]}" --argjson cs "${c[1]}" --arg l "${l[0]}" --argjson ls "${l[1]}" \
		'{schemaVersion: 2, mediaType: "application/vnd.oci.image.manifest.v1+json",
		  config: {mediaType: "application/vnd.oci.image.config.v1+json", digest: $c, size: $cs},
		  layers: [{mediaType: "application/vnd.oci.image.layer.v1.tar", digest: $l, size: $ls}]}' |
		tr -d '\n' >"$ENGINE_TMP/manifest.json"
	read -r -a m <<<"$(blob "$ENGINE_TMP/manifest.json")"
	jq -cn --arg m "${m[0]}" --argjson ms "${m[1]}" --arg n "$name" \
		'{schemaVersion: 2, manifests: [{mediaType: "application/vnd.oci.image.manifest.v1+json",
		  digest: $m, size: $ms, annotations: {"io.containerd.image.name": $n,
		  "org.opencontainers.image.ref.name": ($n | sub(".*:"; ""))}}]}' >"$LAYOUT/index.json"
	echo '{"imageLayoutVersion": "1.0.0"}' >"$LAYOUT/oci-layout"
	tar -C "$LAYOUT" -cf "$out" oci-layout index.json blobs
}
