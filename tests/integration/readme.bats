#!/usr/bin/env bats
# The README's commands work as written (issue 16): its ```sh blocks are
# extracted and run, but the interactive ones and those that need what a
# test has no business with (make, podman, a 100 s sleep), against a
# private state root and with /srv moved under the test's directory, in
# a network namespace of its own (the bridged jail's bridge and rules).
load helpers

README=$BATS_TEST_DIRNAME/../../README.md
CELL_OCI=${CELL_OCI:-$(dirname "$CELL")/cell-oci}

# The ```sh blocks of the README, one command per line (comments gone).
readme_commands() {
	awk '/^```sh$/ { on = 1; next } /^```$/ { on = 0 } on' "$README" |
		sed -e 's/[[:space:]]#[^'"'"'"]*$//' -e '/^[[:space:]]*#/d' -e '/^[[:space:]]*$/d'
}

# Whether the README command $1 is one to leave out, and why.
left_out() {
	case $1 in
	make\ *) echo "builds and installs" ;;
	"cell run") echo "an interactive shell" ;;
	*"-- sh") echo "an interactive shell" ;;
	*"--init -- sleep 100"*) echo "waits for Ctrl-C" ;;
	podman\ *) echo "needs an image" ;;
	sudo\ *) echo "changes the system (make install, systemctl)" ;;
	*) return 1 ;;
	esac
}

# The jail file the README saves as /srv/cell.conf: its first plain ```
# block after that sentence.
readme_conf() {
	awk '/saved as `\/srv\/cell.conf`/ { want = 1 } want && /^```$/ { if (on) exit; on = 1; next } on' "$README"
}

@test "every command of the README works as written" {
	[ -x "$CELL_OCI" ] || skip "no cell-oci beside $CELL"
	chmod 755 "$WORK" # the jails' users read /srv (here $WORK/srv)
	mkdir -p "$WORK/srv"
	readme_conf | sed "s|/srv|$WORK/srv|g" >"$WORK/srv/cell.conf"
	grep -q www "$WORK/srv/cell.conf"
	{
		echo 'set -e'
		echo "cell() { \"$CELL\" --root \"$STATE\" \"\$@\"; }"
		echo "cell-oci() { \"$CELL_OCI\" --root \"$STATE/oci\" \"\$@\"; }"
		echo "cd \"$WORK\""
		while IFS= read -r line; do
			if why=$(left_out "$line"); then
				echo "# left out ($why): $line"
				continue
			fi
			line=${line//\/srv/$WORK\/srv}
			line=${line//\/tmp\/state/$WORK\/state}
			line=${line//\/usr\/local\/sbin\/cell-oci/$CELL_OCI}
			printf 'echo %q >&2\n{ %s\n} </dev/null\n' "+ $line" "$line"
		done < <(readme_commands)
	} >"$WORK/readme.sh"
	# In a network namespace of the test's own, up: the README's bridged
	# jail makes a bridge, nftables rules and forwarding there, never on
	# the host (they go with the namespace when the script ends).
	run unshare --net bash -c 'ip link set lo up && exec bash "$1"' readme "$WORK/readme.sh"
	echo "$output" >&2
	[ "$status" -eq 0 ]
	# What the comments promise.
	[[ "$output" == *"<h1>hello from a jail</h1>"*"<h1>hello from a jail</h1>"* ]]
	[[ "$output" == *"HELLO"* ]]
	[[ "$output" == *"test /nonexistent"* ]]
	[[ "$output" == *"exit 1: not jailed"* ]]
	grep -q '"status": "running"' <<<"$output"
	# The bridged jail's published port answered through the namespace's loopback.
	[[ "$output" == *"+ curl http://127.0.0.1:8080/"*$'\n'"<h1>hello from a jail</h1>"* ]]
}

teardown() {
	"$CELL_OCI" --root "$STATE/oci" delete --force web >/dev/null 2>&1 || true
	rm -rf "$STATE/oci"
	cell_teardown
}
