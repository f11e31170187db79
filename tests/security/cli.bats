#!/usr/bin/env bats
# The front door and the state store against what a caller or a jail
# hands them (security issue 13): cell acts only on what it can prove it
# made, never creates a state root to read it, never takes one option
# for another, and never lets a jail's output drive the reader's
# terminal.
load ../integration/helpers

setup() {
	cell_setup
	REL=
}

teardown() {
	local r=0

	# A relative --root that went wrong (the old watcher made it at /).
	if [ -n "$REL" ]; then
		"$CELL" --root "$WORK/$REL" rm -f rel >/dev/null 2>&1 || true
		"$CELL" --root "/$REL" rm -f rel >/dev/null 2>&1 || true
		[ -d "/$REL" ] && rm -rf --one-file-system "/${REL:?}"
	fi
	cell_teardown || r=$?
	return $r
}

@test "ls leaves a state root's directories that are not jails, and their files, alone" {
	mkdir -p "$WORK/st/notes/sub" "$WORK/st/.new-1-deadbeef"
	echo keep >"$WORK/st/notes/sub/file"
	echo keep >"$WORK/st/.new-1-deadbeef/data"
	echo '{}' >"$WORK/st/notes/state.json"
	run "$CELL" --root "$WORK/st" ls -a
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 1 ] # the header: no jail
	run "$CELL" --root "$WORK/st" run --name ok -- true
	[ "$status" -eq 0 ]
	[ "$(cat "$WORK/st/notes/sub/file")" = keep ]
	[ "$(cat "$WORK/st/.new-1-deadbeef/data")" = keep ]
	[ -f "$WORK/st/notes/state.json" ]
}

@test "rm, stop, logs and inspect of a directory that is no jail say no such jail and leave it" {
	mkdir -p "$STATE/notes"
	echo keep >"$STATE/notes/file"
	for cmd in "rm -f" stop logs inspect; do
		run cell $cmd notes
		[ "$status" -eq 125 ]
		[[ "$output" == *"notes: no such jail"* ]]
	done
	[ "$(cat "$STATE/notes/file")" = keep ]
	rm -r "$STATE/notes"
}

@test "run --name of a directory that is no jail is refused and leaves it" {
	mkdir -p "$STATE/notes"
	echo keep >"$STATE/notes/file"
	run cell run --name notes -- true
	[ "$status" -eq 125 ]
	[ "$output" = "cell: run: jail notes: name already in use" ]
	[ "$(cat "$STATE/notes/file")" = keep ]
	rm -r "$STATE/notes"
}

@test "ls, logs, inspect, stop and rm never create a state root" {
	run "$CELL" --root "$WORK/none" ls
	[ "$status" -eq 0 ]
	run "$CELL" --root "$WORK/none" logs x
	[ "$status" -eq 125 ]
	[ "$output" = "cell: logs: jail x: no such jail" ]
	run "$CELL" --root "$WORK/none" inspect x
	[ "$status" -eq 125 ]
	run "$CELL" --root "$WORK/none" stop x
	[ "$status" -eq 125 ]
	[ "$output" = "cell: stop: jail x: no such jail" ]
	run "$CELL" --root "$WORK/none" rm x
	[ "$status" -eq 125 ]
	[ ! -e "$WORK/none" ]
}

@test "a relative --root means the caller's directory, also to the -d --rm watcher" {
	REL=cell-rel-test.$$.$RANDOM
	cd "$WORK"
	run "$CELL" --root "$REL" run -d --rm --name rel -- true
	[ "$status" -eq 0 ]
	[ -d "$WORK/$REL" ]
	# The watcher removes the jail from there once it ends.
	cell_wait_gone "$WORK/$REL" || ls -A "$WORK/$REL" >&2
	[ -z "$(ls -A "$WORK/$REL")" ]
	[ ! -e "/$REL" ]
}

@test "no command takes an abbreviated long option: a one-line error, exit 125" {
	# An abbreviated long option of each command, and the one it would be.
	local ABBREVIATED=(
		"--roo $WORK/x ls:--root"
		"run --root $WORK/x -- true:--rootfs"
		"run --det -- true:--detach"
		"run --mem 64M -- true:--memory"
		"ls --al:--all"
		"ls --js:--json"
		"exec --us 0 x true:--user"
		"logs --fol x:--follow"
		"stop --ti 1 x:--time"
		"rm --for x:--force"
		"inspect --pi 1:--pid"
		"set --he:--help"
		"up --fi $WORK/cell.conf:--file"
		"down --fi $WORK/cell.conf:--file"
	)
	local c args opt
	for c in "${ABBREVIATED[@]}"; do
		args=${c%%:*}
		opt=${args%% *}
		[ "${opt#--}" != "$opt" ] || opt=$(awk '{ print $2 }' <<<"$args")
		run -125 cell $args
		[ "${#lines[@]}" -eq 1 ]
		[[ "$output" == *"unknown"*"'$opt'"* ]] || { echo "$args: $output" >&2; false; }
	done
	[ -z "$(ls -A "$STATE")" ]
}

@test "run --root DIR is no --rootfs DIR: the jail never runs in DIR" {
	mkdir "$WORK/other"
	run cell run --root "$WORK/other" -- true
	[ "$status" -eq 125 ]
	[ "$output" = "cell: run: unknown option '--root' (see cell run --help)" ]
	[ -z "$(ls -A "$WORK/other")" ]
	# Spelled in full, and with =, options still work.
	run -127 cell run --rootfs="$WORK/other" -- true
}

# A log with terminal control sequences: a title (OSC), a screen clear,
# a carriage return, a C1 CSI raw and encoded, and UTF-8 text.
LOG_PRINTF='a\033]0;owned\007b\033[2J\tc\rd\n\302\233e \233 \303\251\n'

@test "logs on a terminal shows a jail's control characters as escapes, UTF-8 as it is" {
	cell run -d --name noisy -- printf "$LOG_PRINTF" 2>&1 | cat
	wait_ended "$(jq -r .pid "$STATE/noisy/state.json")"
	run_in_pty "$CELL --root $STATE logs noisy"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = 'a\x1b]0;owned\x07b\x1b[2J	c\x0dd' ]
	[ "${lines[1]}" = '\xc2\x9be \x9b é' ]
	# Not one control byte but the newlines and tab got through.
	! LC_ALL=C grep -q $'[\x01-\x08\x0b-\x1f\x7f]' <<<"$output"
}

@test "logs to a pipe or file copies the log byte for byte" {
	cell run -d --name noisy -- printf "$LOG_PRINTF" 2>&1 | cat
	wait_ended "$(jq -r .pid "$STATE/noisy/state.json")"
	cell logs noisy >"$WORK/out"
	printf "$LOG_PRINTF" | cmp - "$WORK/out"
}
