#!/bin/bash
# tests/vm/kernel.sh: prints the path of a kernel for tests/vm's guests.
#
# cell's jails run on Linux 6.1 (Debian 12's own kernel; tests/run.sh's
# vm-6.1 boots it) and later, but a --rootfs on tmpfs (the guests' /tmp)
# is idmapped from 6.3 on only; the default guest is a new kernel, like
# the machines cell runs on (6.15 or later: $VM_KERNEL_MIN).  So:
#
#   VMLINUZ, if set (taken as it is);
#   else the newest /boot/vmlinuz-* or $VM_KERNEL_CACHE/vmlinuz-* of
#   $VM_KERNEL_MIN or later;
#   else Debian's newest kernel from the next stable's backports
#   ($VM_KERNEL_SUITE), fetched with apt-get download against a list of
#   its own (the host's apt sources and lists untouched; nothing is
#   installed), its image unpacked into $VM_KERNEL_CACHE.
#
# VM_KERNEL_SERIES=6.1 (tests/run.sh's vm-6.1) takes a kernel of that
# series only (6.1.*), by default from Debian 12's own suite, bookworm:
# the oldest kernel cell supports, on a host whose /boot lacks it.
#
# Exits 1, with the reason on stderr, when there is none (no network, no
# such package): the VM suites then skip.
set -euo pipefail

min=${VM_KERNEL_MIN:-6.15}
series=${VM_KERNEL_SERIES:-}
cache=${VM_KERNEL_CACHE:-/var/cache/cell-vm}
suite=${VM_KERNEL_SUITE:-trixie-backports}
[ -z "$series" ] || suite=${VM_KERNEL_SUITE:-bookworm}

if [ -n "${VMLINUZ:-}" ]; then
	[ -r "$VMLINUZ" ] || { echo "VMLINUZ=$VMLINUZ: not readable" >&2; exit 1; }
	echo "$VMLINUZ"
	exit 0
fi

# at_least V: V (a kernel release, "7.3.4+deb13-amd64") is $min or later
# (with $series: of that series).
at_least() {
	if [ -n "$series" ]; then
		case ${1%%[+-]*} in
		"$series" | "$series".*) return 0 ;;
		*) return 1 ;;
		esac
	fi
	[ "$(printf '%s\n%s\n' "$min" "${1%%[+-]*}" | sort -V | head -n 1)" = "$min" ]
}
want=${series:+the $series series}
want=${want:-$min or later}

# The newest kernel of $min or later already here.
newest=""
for k in /boot/vmlinuz-* "$cache"/vmlinuz-*; do
	[ -r "$k" ] || continue
	v=${k##*/vmlinuz-}
	at_least "$v" || continue
	if [ -z "$newest" ] || [ "$(printf '%s\n%s\n' "${newest##*/vmlinuz-}" "$v" | sort -V | tail -n 1)" = "$v" ]; then
		newest=$k
	fi
done
if [ -n "$newest" ]; then
	echo "$newest"
	exit 0
fi

[ "$(id -u)" = 0 ] || { echo "no kernel of $want here, and fetching one needs root" >&2; exit 1; }
work=$(mktemp -d /tmp/cell-vm-kernel.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/lists/partial" "$work/cache/archives/partial"
echo "deb http://deb.debian.org/debian $suite main" >"$work/sources.list"
apt=(-o "Dir::Etc::SourceList=$work/sources.list" -o Dir::Etc::SourceParts=/nonexistent
	-o "Dir::State::Lists=$work/lists" -o "Dir::Cache=$work/cache" -o Debug::NoLocking=1)
if ! timeout 300 apt-get "${apt[@]}" update -qq >"$work/log" 2>&1; then
	echo "no kernel of $want here, and the list of $suite could not be fetched:" >&2
	tail -n 3 "$work/log" >&2
	exit 1
fi
# linux-image-amd64 depends on linux-image-RELEASE; its image is in
# linux-binary-unsigned-RELEASE (older: linux-image-RELEASE-unsigned).
release=$(apt-cache "${apt[@]}" show linux-image-amd64 2>/dev/null |
	sed -n 's/^Depends:.*linux-image-\([0-9][^ ,]*-amd64\).*/\1/p' | sort -V | tail -n 1)
if [ -z "$release" ] || ! at_least "$release"; then
	echo "no kernel of $want in $suite (found: ${release:-none})" >&2
	exit 1
fi
cd "$work"
for pkg in "linux-binary-unsigned-$release" "linux-image-$release-unsigned"; do
	timeout 600 apt-get "${apt[@]}" download "$pkg" >>"$work/log" 2>&1 && break
done
deb=$(ls "$work"/*.deb 2>/dev/null | head -n 1)
[ -n "$deb" ] || { echo "could not download the kernel $release from $suite" >&2; exit 1; }
img=$(dpkg-deb -c "$deb" | awk '{print $NF}' | grep -E '/vmlinuz[^/]*$' | head -n 1)
[ -n "$img" ] || { echo "$deb: no vmlinuz in it" >&2; exit 1; }
dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$work" "$img"
mkdir -p "$cache"
install -m 644 "$work/$img" "$cache/vmlinuz-$release"
echo "$cache/vmlinuz-$release"
