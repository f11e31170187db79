#!/bin/sh
# install-subids.sh - run by `meson install` (`make install`): gives user
# "cell" a range of subordinate ids in /etc/subuid and /etc/subgid, the
# pool of the jails' user namespaces (src/lib/idrange.c, cell(8)
# SECURITY), when it has none in either file.
#
# The range: 2^30 ids (16384 jails) from 2^30, or from above the highest
# entry of either file, rounded up to 65536; the same in both files, cut
# short before any user of /etc/passwd or group of /etc/group in it.  An
# entry of cell's already there is left as it is.  A staged install
# (DESTDIR) changes no file of the system's: packagers add the entries in
# their post-install step.
set -eu

ETC=${CELL_ETC:-/etc}
if [ -n "${DESTDIR:-}" ]; then
	echo "install-subids: DESTDIR set: not adding cell's ranges to $ETC/subuid, $ETC/subgid" >&2
	exit 0
fi
for f in subuid subgid; do
	[ -e "$ETC/$f" ] || : >"$ETC/$f"
done
if grep -q '^cell:' "$ETC/subuid" || grep -q '^cell:' "$ETC/subgid"; then
	# One file without the other is cell's error to report, not ours to
	# guess.
	exit 0
fi
range=$(cat "$ETC/subuid" "$ETC/subgid" | awk -F: -v passwd="$ETC/passwd" -v group="$ETC/group" '
	BEGIN { base = 1073741824; top = 4294967295 - 65536 }
	NF >= 3 && $2 ~ /^[0-9]+$/ && $3 ~ /^[0-9]+$/ {
		end = $2 + $3
		if (end > base) base = end
	}
	END {
		if (base % 65536) base += 65536 - base % 65536
		count = 1073741824
		if (base + count > top) count = top - base
		# no host user or group inside
		while ((getline line < passwd) > 0) { split(line, p, ":"); ids[n++] = p[3] }
		while ((getline line < group) > 0) { split(line, p, ":"); ids[n++] = p[3] }
		for (i = 0; i < n; i++)
			if (ids[i] ~ /^[0-9]+$/ && ids[i] >= base && ids[i] < base + count)
				count = ids[i] - base
		count -= count % 65536
		if (count < 65536) exit 1
		printf "%d:%d\n", base, count
	}') || {
	echo "install-subids: no room for a range of 65536 ids in $ETC/subuid and $ETC/subgid" >&2
	exit 1
}
echo "cell:$range" >>"$ETC/subuid"
echo "cell:$range" >>"$ETC/subgid"
echo "install-subids: cell:$range added to $ETC/subuid and $ETC/subgid"
