#!/usr/bin/env bats
# How cell is built: what the build promises that no other test sees.
load helpers

# The static cell's text: the code a start runs comes first
# (src/text-order.ld, scripts/text-order.sh, docs/PERFORMANCE.md).
# readelf's section lines without their "[ N]": name, type, address,
# offset, size...
sections() {
	readelf -SW "$CELL" | sed -n 's/^ *\[ *[0-9]*\] //p'
}

hot_range() {
	sections | awk '$1 == ".text.hot_path" { print $3, $5 }'
}

in_hot() { # symbol
	local addr lo size
	read -r lo size < <(hot_range)
	addr=$(nm "$CELL" | awk -v s="$1" '$3 == s { print $1; exit }')
	[ -n "$addr" ] || {
		echo "no symbol $1 in $CELL" >&2
		return 2
	}
	((0x$addr >= 0x$lo && 0x$addr < 0x$lo + 0x$size))
}

@test "a static cell lays out first the code its starts execute (run, cell-oci run, exec)" {
	command -v readelf >/dev/null && command -v nm >/dev/null || skip "no binutils"
	if readelf -lW "$CELL" | grep -q 'Requesting program interpreter'; then
		skip "a dynamic build (the order is for the static one)"
	fi
	# Its own output section, before the rest of the code.
	run bash -c "$(declare -f sections); sections | awk '\$1 ~ /^\\.text/ { print \$1 }'"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = ".text.hot_path" ]
	[ "${lines[1]}" = ".text" ]
	# The launch, cell's and the C library's, is in it: the order still
	# names the functions of today's code (else: make text-order).
	for f in main cmd_run jail_run rootfs_build policy_apply store_jail_create \
		oci_verb_run rootfs_oci_build cmd_exec jail_exec malloc __libc_start_main; do
		in_hot "$f" || {
			echo "$f is not in .text.hot_path: src/text-order.ld is stale (make text-order)" >&2
			return 1
		}
	done
	# What no start runs is not.
	for f in cmd_ls cmd_logs; do
		run in_hot "$f"
		[ "$status" -eq 1 ]
	done
}
