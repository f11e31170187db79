#!/usr/bin/env bats
# A detached jail's log: written by its reaper from pipes in the CRI log
# format, capped and rotated (log.size, log.keep), and read by cell logs
# (-t, --tail, --since, -f), which says where output went when it did
# not go to the log.
load helpers

# detached ARG...: cell run -d ARG... with cell's output a pipe, so that
# the jail's goes to its log (not to a file of the test's).
detached() {
	cell run -d "$@" 2>&1 | cat >/dev/null
}

TS='[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{9}Z'

@test "the log is in the CRI format: time, stream, F, text" {
	detached --name cri -- sh -c 'echo out; echo err >&2'
	wait_stopped cri
	grep -Eqx "$TS stdout F out" "$STATE/cri/log.0"
	grep -Eqx "$TS stderr F err" "$STATE/cri/log.0"
	[ "$(wc -l <"$STATE/cri/log.0")" -eq 2 ]
	# The time is now's, in UTC.
	[ "$(cut -c1-10 "$STATE/cri/log.0" | sort -u)" = "$(date -u +%Y-%m-%d)" ]
}

@test "a line without its end is logged in parts (P) once the pipe is quiet, and logs joins them" {
	detached --name part -- sh -c 'printf "to be "; sleep 1; echo continued'
	wait_stopped part
	grep -Eqx "$TS stdout P to be " "$STATE/part/log.0"
	grep -Eqx "$TS stdout F continued" "$STATE/part/log.0"
	[ "$(cell logs part)" = "to be continued" ]
}

@test "a line longer than the reaper's buffer is cut into parts and joined again" {
	detached --name long -- sh -c 'head -c 10000 /dev/zero | tr "\0" a; echo'
	wait_stopped long
	[ "$(grep -c ' stdout P ' "$STATE/long/log.0")" -ge 2 ]
	[ "$(cell logs long)" = "$(head -c 10000 /dev/zero | tr '\0' a)" ]
}

@test "logs -t prefixes each line with its time" {
	detached --name stamped -- sh -c 'echo one; echo two'
	wait_stopped stamped
	run cell logs -t stamped
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 2 ]
	[[ "${lines[0]}" =~ ^$TS\ one$ ]]
	[[ "${lines[1]}" =~ ^$TS\ two$ ]]
}

@test "logs --tail N prints the last N lines" {
	detached --name tail -- seq 1 10
	wait_stopped tail
	[ "$(cell logs --tail 3 tail)" = $'8\n9\n10' ]
	[ "$(cell logs -n 1 tail)" = 10 ]
	[ -z "$(cell logs --tail 0 tail)" ]
	[ "$(cell logs --tail 100 tail | wc -l)" -eq 10 ]
}

@test "logs --since prints the lines since a time or within a duration" {
	detached --name since -- sh -c 'echo old; sleep 2; echo new'
	wait_stopped since
	new=$(grep ' new$' "$STATE/since/log.0" | cut -c1-30)
	[ "$(cell logs --since "$new" since)" = new ]
	[ "$(cell logs --since 1h since)" = $'old\nnew' ]
	[ -z "$(cell logs --since 2099-01-01T00:00:00Z since)" ]
	# An offset is a time too.
	[ "$(cell logs --since 2000-01-01T01:00:00+01:00 since)" = $'old\nnew' ]
}

@test "rotation keeps log.keep older files of at most log.size, and logs reads them in order" {
	detached --name rot --log-size 8K --log-keep 2 -- \
		sh -c 'i=0; while [ $i -lt 1000 ]; do i=$((i + 1)); echo "line $i"; done'
	wait_stopped rot
	[ -e "$STATE/rot/log.2" ]
	[ ! -e "$STATE/rot/log.3" ]
	for f in "$STATE"/rot/log.*; do
		[ "$(stat -c %s "$f")" -le 8192 ]
	done
	# The newest lines, in order, with none missing in between.
	run cell logs rot
	[ "${lines[-1]}" = "line 1000" ]
	first=${lines[0]#line }
	[ "$first" -gt 1 ]
	[ "$(printf '%s\n' "${lines[@]}")" = "$(seq "$first" 1000 | sed 's/^/line /')" ]
	[ "$(jfield rot log.size)" = 8192 ]
	[ "$(jfield rot log.keep)" = 2 ]
}

@test "a jail cannot get around the log's cap: its output is a pipe, the files stay small" {
	detached --name flood --memory 32M --log-size 64K --log-keep 1 -- \
		sh -c 'fallocate -l 200M /proc/self/fd/1 2>/dev/null; f=$?
			head -c 50M /dev/zero | tr "\0" a; echo; echo "fallocate $f" >&2; echo done'
	wait_stopped flood
	# Two files of 64K, and one line of 4K beyond at most.
	total=$(cat "$STATE"/flood/log.* | wc -c)
	[ "$total" -le $((2 * 65536 + 4096 + 64)) ]
	[ "$(du -sk "$STATE/flood" | cut -f1)" -lt 1024 ]
	# The last lines are there; fallocate on a pipe failed.
	[ "$(cell logs flood | grep -cxE 'done|fallocate 1')" -eq 2 ]
}

@test "logs -f follows a jail's output across the ring's turns" {
	detached --name ring --log-size 8K --log-keep 1 -- \
		sh -c 'sleep 1; i=0; while [ $i -lt 600 ]; do i=$((i + 1)); echo "line $i"
			[ $((i % 50)) -ne 0 ] || sleep 0.1; done'
	run timeout 20 "$CELL" --root "$STATE" logs -f ring
	[ "$status" -eq 0 ]
	[ "$output" = "$(seq 1 600 | sed 's/^/line /')" ]
}

@test "logs of a jail whose output was not kept (--no-init) says so" {
	detached --no-init --name bare -- echo lost
	wait_stopped bare
	run cell logs bare
	[ "$status" -eq 0 ]
	[ "$output" = "cell: logs: jail bare: its output was not kept (--no-init)" ]
}

@test "logs of a jail whose output went to a file says where" {
	cell run -d --name filed -- echo there >"$WORK/out" 2>&1
	wait_stopped filed
	grep -qx there "$WORK/out"
	run cell logs filed
	[ "$status" -eq 0 ]
	[ "$output" = "cell: logs: jail filed: its output went to $WORK/out" ]
}

@test "the log of an older cell (a raw log file) is shown as it is" {
	detached --no-init --name old -- true
	wait_stopped old
	printf 'raw line\nanother\n' >"$STATE/old/log"
	[ "$(cell logs old)" = $'raw line\nanother' ]
}

@test "bad log parameters and logs options are one-line errors with exit 125, nothing left" {
	for args in "--log-size 0" "--log-size 4K" "--log-size x" "--log-keep -1" "--log-keep 100" \
		"--log-keep x"; do
		# shellcheck disable=SC2086
		run cell run -d $args -- true
		[ "$status" -eq 125 ]
		[ "${#lines[@]}" -eq 1 ]
		[[ "$output" == "cell: run: ${args%% *}"* ]]
	done
	[ -z "$(cell ls -aq)" ]
	detached --name there -- true
	for args in "--tail x" "--tail -1" "--since bogus" "--since 5x"; do
		# shellcheck disable=SC2086
		run cell logs $args there
		[ "$status" -eq 125 ]
		[ "${#lines[@]}" -eq 1 ]
	done
}

@test "log.size and log.keep in a jail file cap the log under up" {
	cat >"$WORK/cell.conf" <<-EOF
		small { log.size = 8K; log.keep = 0; command = seq, 1, 5000; }
	EOF
	cell up -f "$WORK/cell.conf" >/dev/null
	wait_stopped small
	[ ! -e "$STATE/small/log.1" ]
	[ "$(stat -c %s "$STATE/small/log.0")" -le 8192 ]
	[ "$(cell logs --tail 1 small)" = 5000 ]
}
