#!/bin/sh
# Installs the Debian packages cell needs to build, test and benchmark.
# Idempotent and quiet when everything is already there.
set -eu

# build and run (cell-net, the network helper of --net bridge jails,
# builds its netlink and nf_tables messages itself: no library for them)
BUILD="meson ninja-build pkg-config gcc libc6-dev libseccomp-dev libcap-dev libjansson-dev"
# tests: unit (cmocka), integration (bats), pty sessions (script, from
# bsdutils), a busybox root, iproute2 for network checks, python3 for
# single syscalls from inside a jail, capsh (libcap2-bin) to decode masks,
# jq to read cell ls --json and state records, nft (nftables) to read
# cell-net's rules, curl for network.bats's published ports, uidmap
# (newuidmap, newgidmap) for the rootless tests' subordinate ranges; passt
# (pasta) and slirp4netns, the user-mode stacks of --net slirp (run-time
# programs, found in PATH: slirp.bats tests both); iptables for
# network.bats's FORWARD policy of DROP (docker's), in its own namespace
TEST="libcmocka-dev bats bsdutils busybox-static iproute2 procps util-linux python3 libcap2-bin jq nftables curl uidmap passt slirp4netns iptables"
# the sanitizer build and the fuzzers
SAN="clang libclang-rt-14-dev"
# bench (tests/bench/startup.sh): hyperfine, the runtimes compared, jq for
# the OCI spec and the results, strace and GNU time for cell's profile;
# the busybox root comes from TEST; iperf3 for jail-to-jail throughput
# (tests/bench/net.sh)
BENCH="hyperfine crun runc bubblewrap jq strace time iperf3"
# engines (tests/engines): podman, containerd and dockerd driving
# cell-oci; installed by `make test`, whose engine suites are counted as
# skipped when these cannot be installed
ENGINES="podman containerd docker.io"
# compat (tests/oci/compat.sh): the OCI suite against Debian's runc and
# crun
COMPAT="runc crun"
# vm (tests/vm/cgroup2.sh): a Debian kernel booted under qemu/KVM with a
# busybox initramfs, to test the cgroup v2 backend on a v1/hybrid host;
# the kernel is tests/vm/kernel.sh's (one new enough for cell's jails,
# which this Debian's linux-image-amd64 is not), setpriv (util-linux) runs
# cell as the guest's user
VM="qemu-system-x86 busybox-static util-linux"

want="$BUILD"
case "${1:-build}" in
test) want="$BUILD $TEST $SAN" ;;
bench) want="$BUILD $TEST $BENCH" ;;
engines) want="$ENGINES" ;;
compat) want="$BUILD $TEST $COMPAT" ;;
vm) want="$BUILD $VM" ;;
esac

missing=""
for p in $want; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" != 0 ]; then
	echo "cell: missing packages:$missing (run as root to install them)" >&2
	exit 1
fi
echo "cell: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
# No service may start while installing: docker.io's and containerd's
# would take the host's network (a bridge, iptables rules).  A
# policy-rc.d that refuses every start, for this install only, unless
# the host has its own.
policy=
if [ ! -e /usr/sbin/policy-rc.d ]; then
	policy=/usr/sbin/policy-rc.d
	printf '#!/bin/sh\nexit 101\n' >"$policy"
	chmod 755 "$policy"
	trap 'rm -f "$policy"' EXIT
fi
apt-get update -qq >/dev/null
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
