#!/bin/bash
# Writes src/text-order.ld: the code cell's starts execute, laid out
# first in its text (docs/PERFORMANCE.md, "The code a start runs, laid
# out first").  `make text-order` runs it; run it again when the launch's
# code changes much.
#
#   scripts/text-order.sh [OUT]       (as root; OUT: src/text-order.ld)
#
# It builds cell without the order (-ffunction-sections, a link map) in a
# temp dir, then single-steps five commands with scripts/textprof.c, in
# a mount namespace of its own, with state roots on a tmpfs there:
#   1. cell run -- /bin/true (the embedded root)
#   2. cell run --rootfs ROOT -- /bin/true (a busybox root with users)
#   3. cell-oci run of a bundle of that root (runc's default config)
#   4. cell run -d --name NAME -- sleep (a named jail, its reaper)
#   5. cell exec NAME /bin/true
# and gives the addresses to scripts/text_order.py, in that order: what
# `cell run` runs comes first.  Stepping takes about four minutes.  The
# profiles are taken with AVX-512 off (GLIBC_TUNABLES): on the VMs cell
# is measured on, single-stepped AVX-512 string functions went wrong
# (printf printed its format); the sections of the functions the C
# library picks with AVX-512 are put in from an unstepped start (textprof
# ifuncs).  Needs cc, python3, meson, ninja and busybox (static).
# Everything it makes is in the temp dir, removed on exit.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/.." && pwd)
out=${1:-$src/src/text-order.ld}

die() {
	echo "text-order.sh: $*" >&2
	exit 1
}

[ "$(id -u)" = 0 ] || die "must run as root (the jails it profiles)"
for tool in cc python3 meson ninja busybox; do
	command -v "$tool" >/dev/null || die "$tool is missing"
done
if [ -z "${CELL_TEXT_ORDER_NS:-}" ]; then
	exec env CELL_TEXT_ORDER_NS=1 unshare --mount --propagation private "$0" "$@"
fi

tmp=$(mktemp -d /tmp/cell-text-order.XXXXXX)
cleanup() {
	if [ -x "$tmp/build/cell" ] && [ -d "$tmp/state/named" ]; then
		"$tmp/build/cell" --root "$tmp/state/named" rm -f text-order >/dev/null 2>&1 || true
	fi
	umount "$tmp/state" 2>/dev/null || true
	rm -rf --one-file-system "$tmp"
}
trap cleanup EXIT

build=$tmp/build
meson setup "$build" "$src" -Dtext_order=false "-Dc_link_args=-Wl,-Map=$tmp/cell.map" \
	>"$tmp/setup.log" || { cat "$tmp/setup.log"; die "meson setup failed"; }
ninja -C "$build" --quiet cell cell-oci
cc -O2 -Wall -Wextra -o "$tmp/textprof" "$here/textprof.c"

mkdir "$tmp/state"
mount -t tmpfs -o mode=0700 cell-text-order "$tmp/state"
root=$tmp/bundle/rootfs
mkdir -p "$root/bin" "$root/proc" "$root/dev" "$root/sys" "$root/tmp"
cp "$(command -v busybox)" "$root/bin/busybox"
ln -s busybox "$root/bin/sh"
ln -s busybox "$root/bin/true"
# An image's users, as real ones have: HOME is read there (the forked
# child and its parser; a root without them starts as `cell run` does).
mkdir "$root/etc"
printf 'root:x:0:0:root:/root:/bin/sh\n' >"$root/etc/passwd"
printf 'root:x:0:\n' >"$root/etc/group"
"$build/cell-oci" spec --bundle "$tmp/bundle"
python3 - "$tmp/bundle/config.json" <<-'EOF'
	import json, sys
	c = json.load(open(sys.argv[1]))
	c["process"]["args"] = ["/bin/true"]
	c["process"]["terminal"] = False
	json.dump(c, open(sys.argv[1], "w"))
EOF

run=("$build/cell" --root "$tmp/state/run" run -- /bin/true)
rootfs=("$build/cell" --root "$tmp/state/rootfs" run --rootfs "$root" -- /bin/true)
oci=("$build/cell-oci" --root "$tmp/state/oci" run --bundle "$tmp/bundle" text-order-$$)
noavx512=glibc.cpu.hwcaps=-AVX512F,-AVX512VL,-AVX512BW,-AVX512DQ,-AVX512CD

"$tmp/textprof" ifuncs "$tmp/ifuncs.used" "${run[@]}"
GLIBC_TUNABLES=$noavx512 "$tmp/textprof" ifuncs "$tmp/ifuncs.stepped" "${run[@]}"
GLIBC_TUNABLES=$noavx512 "$tmp/textprof" steps "$tmp/run" "${run[@]}"
GLIBC_TUNABLES=$noavx512 "$tmp/textprof" steps "$tmp/rootfs" "${rootfs[@]}"
GLIBC_TUNABLES=$noavx512 "$tmp/textprof" steps "$tmp/oci" "${oci[@]}"
named=("$build/cell" --root "$tmp/state/named")
GLIBC_TUNABLES=$noavx512 "$tmp/textprof" steps "$tmp/run-d" \
	"${named[@]}" run -d --name text-order -- sleep 600 >/dev/null
GLIBC_TUNABLES=$noavx512 "$tmp/textprof" steps "$tmp/exec" \
	"${named[@]}" exec text-order /bin/true
"${named[@]}" rm -f text-order >/dev/null

python3 "$here/text_order.py" "$tmp/cell.map" "$tmp/ifuncs.used" "$tmp/ifuncs.stepped" \
	"$out" "$tmp/run" "$tmp/rootfs" "$tmp/oci" "$tmp/run-d" "$tmp/exec"
