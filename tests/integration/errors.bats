#!/usr/bin/env bats
# What cell says when it cannot do what it is asked: exit 125, nothing on
# stdout, exactly one line on stderr that starts with "cell: " and names
# the bad thing, and nothing left behind (teardown checks the mounts and
# the state root).
load helpers

# cell_error TEXT ARG...: `cell ARG...` fails as above, its one line
# containing TEXT.
cell_error() {
	local text=$1
	shift
	run --separate-stderr cell "$@"
	if [ "$status" -ne 125 ]; then
		echo "exit status $status, expected 125" >&2
		return 1
	fi
	if [ -n "$output" ]; then
		echo "stdout not empty: $output" >&2
		return 1
	fi
	if [ "${#stderr_lines[@]}" -ne 1 ] || [[ "$stderr" != "cell: "* ]]; then
		echo "stderr is not one line starting with 'cell: ': $stderr" >&2
		return 1
	fi
	if [[ "$stderr" != *"$text"* ]]; then
		echo "stderr does not name '$text': $stderr" >&2
		return 1
	fi
}

@test "an unknown option is a one-line error naming it" {
	cell_error "'--bogus'" run --bogus -- true
}

@test "an unknown short option is a one-line error naming it" {
	cell_error "'-x'" run -x -- true
}

@test "a long option without its value is a one-line error naming it" {
	cell_error "option --hostname needs a value" run --hostname
	cell_error "option --name needs a value" run --name
	cell_error "option -n needs a value" run -n
}

@test "a long option given a value it does not take is a one-line error naming it" {
	cell_error "option --rw takes no value" run --rw=1 -- true
}

@test "a --rootfs that does not exist is a one-line error naming it" {
	cell_error "--rootfs $WORK/nope: No such file or directory" run --rootfs "$WORK/nope" -- true
}

@test "a --rootfs that is a file is a one-line error naming it" {
	touch "$WORK/file"
	cell_error "--rootfs $WORK/file: Not a directory" run --rootfs "$WORK/file" -- true
}

@test "a --bind that is not SRC:DST is a one-line error naming it" {
	cell_error "--bind $WORK: expected SRC:DST[:ro|:rw][:dev]" run --bind "$WORK" -- true
	cell_error "--bind $WORK:: expected SRC:DST[:ro|:rw][:dev]" run --bind "$WORK:" -- true
	cell_error "--bind :/x: expected SRC:DST[:ro|:rw][:dev]" run --bind :/x -- true
}

@test "a --bind with a relative destination is a one-line error naming it" {
	cell_error "--bind $WORK:srv: destination must be an absolute path" \
		run --bind "$WORK:srv" -- true
}

@test "a --bind with an unknown option is a one-line error naming it" {
	cell_error "--bind $WORK:/srv:rx: unknown option \"rx\" (ro, rw or dev)" run --bind "$WORK:/srv:rx" -- true
}

@test "a --bind whose source does not exist is a one-line error naming it" {
	cell_error "--bind $WORK/nope:/srv: $WORK/nope: No such file or directory" \
		run --bind "$WORK/nope:/srv" -- true
}

@test "a --user that is not USER[:GROUP] is a one-line error naming it" {
	cell_error "--user -1: expected USER[:GROUP], names or numeric ids" run --user -1 -- true
	cell_error "--user 1000:: expected USER[:GROUP], names or numeric ids" run --user 1000: -- true
	cell_error "--user a b: expected USER[:GROUP], names or numeric ids" run --user 'a b' -- true
	cell_error "--user 4294967295: expected USER[:GROUP], names or numeric ids" \
		run --user 4294967295 -- true
}

@test "a --user or group the jail's files do not have is a one-line error naming the file" {
	cell_error "--user nosuchuser: no user \"nosuchuser\" in the jail's /etc/passwd" \
		run --name nouser --user nosuchuser -- true
	cell_error "--user root:nosuchgroup: no group \"nosuchgroup\" in the jail's /etc/group" \
		run --name nogroup --user root:nosuchgroup -- true
}

@test "an --env that is not KEY=VALUE is a one-line error naming it" {
	cell_error "--env =value: expected KEY=VALUE" run --env =value -- true
	cell_error "--env 1KEY=value: invalid variable name" run --env 1KEY=value -- true
	cell_error "--env A-B=value: invalid variable name" run --env A-B=value -- true
}

@test "a --hostname longer than 64 bytes is a one-line error naming it" {
	host=$(printf '%031d.%033d' 0 0)
	[ "${#host}" -eq 65 ]
	cell_error "--hostname $host: invalid hostname" run --hostname "$host" -- true
}

@test "a --hostname that is no hostname is a one-line error naming it" {
	cell_error "--hostname web_1: invalid hostname" run --hostname web_1 -- true
	cell_error "--hostname -web: invalid hostname" run --hostname=-web -- true
	cell_error "--hostname a..b: invalid hostname" run --hostname a..b -- true
}

@test "a --domainname longer than 64 bytes is a one-line error naming it" {
	domain=$(printf '%065d' 0)
	cell_error "--domainname $domain: must be 1-64 bytes" run --domainname "$domain" -- true
}

@test "a --net that is no mode is a one-line error naming it" {
	# (never --net bridge here: it would make a bridge in the host's
	# network namespace; network.bats runs those in namespaces of its own)
	cell_error "--net bridged: expected none, host, bridge[:NAME], slirp or ns:PATH" run --net bridged -- true
}

@test "a --name with characters a name cannot have is a one-line error naming it" {
	cell_error "--name a/b: invalid name" run --name a/b -- true
	cell_error "--name ../x: invalid name" run --name ../x -- true
	cell_error "--name .hidden: invalid name" run --name .hidden -- true
	cell_error "--name : invalid name" run --name '' -- true
	long=$(printf 'n%.0s' $(seq 65))
	cell_error "--name $long: invalid name" run --name "$long" -- true
}

@test "a --name in use is a one-line error and the jail that has it runs on" {
	cell_bg "$WORK/first.out" --name taken --bind "$WORK:/srv" -- sh -c \
		'while [ ! -e /srv/done ]; do sleep 0.05; done; echo first ends'
	first=$BG_PID
	wait_running "taken"
	state=$(cat "$STATE/taken/state.json")
	cell_error "jail taken: name already in use" run --name taken -- true
	kill -0 "$first"
	[ "$(cat "$STATE/taken/state.json")" = "$state" ]
	touch "$WORK/done"
	wait_exit "$first"
	[ "$status" -eq 0 ]
	[ "$(cat "$WORK/first.out")" = "first ends" ]
}

@test "--tty with --no-tty is a one-line error naming both" {
	cell_error "--tty and --no-tty are exclusive" run --tty --no-tty -- true
}

@test "--rw without --rootfs is a one-line error naming it" {
	cell_error "--rw: needs --rootfs" run --rw -- true
}

@test "--swap without --memory is a one-line error naming both" {
	cell_error "--swap 1G: needs --memory" run --swap 1G -- true
}

@test "a limit below its floor is a one-line error naming the flag and the value" {
	cell_error "cell: run: --memory 1k: at least 1M" run --memory 1k -- true
	cell_error "cell: run: --cpu-time 0: expected seconds >= 1" run --cpu-time 0 -- true
	cell_error "cell: run: --allow bogus: unknown rule" run --allow bogus -- true
}

@test "a relative --workdir is a one-line error naming it" {
	cell_error "--workdir tmp: must be an absolute path" run --workdir tmp -- true
}

@test "an empty command is a one-line error" {
	cell_error "no command to run" run -- ''
}

@test "an unknown command is a one-line error naming it" {
	cell_error 'cell: unknown command "bogus" (see cell --help)' bogus
}

@test "an unknown command near a known one suggests it" {
	cell_error 'cell: unknown command "rnu" (did you mean "run"?)' rnu
	cell_error 'cell: unknown command "exce" (did you mean "exec"?)' exce -- true
	cell_error 'cell: unknown command "inspcet" (did you mean "inspect"?)' inspcet x
}

@test "an unknown option near a known one suggests it, of that command's" {
	cell_error "cell: run: unknown option '--rootf' (did you mean '--rootfs'?)" run --rootf x -- true
	cell_error "cell: run: unknown option '--memroy' (did you mean '--memory'?)" run --memroy 1M -- true
	cell_error "cell: exec: unknown option '--wokdir' (did you mean '--workdir'?)" exec --wokdir / x
	cell_error "cell: run: unknown option '--xyzzy' (see cell run --help)" run --xyzzy -- true
	# An abbreviation is no option, and not near enough to suggest.
	cell_error "cell: run: unknown option '--root' (see cell run --help)" run --root x -- true
}

@test "an unknown global option is a one-line error naming it" {
	cell_error "'--bogus'" --bogus run -- true
}

@test "cell without a command prints its usage on stderr and exits 125" {
	run --separate-stderr cell
	[ "$status" -eq 125 ]
	[ "$output" = "" ]
	[[ "${stderr_lines[0]}" == "Usage: cell "* ]]
}

@test "cell run --help prints the usage on stdout and exits 0" {
	run --separate-stderr cell run --help
	[ "$status" -eq 0 ]
	[ "$stderr" = "" ]
	[[ "${lines[0]}" == "Usage: cell run "* ]]
	[[ "$output" == *"--hostname NAME"* ]]
}

@test "cell --help prints the usage and the commands on stdout and exits 0" {
	run --separate-stderr cell --help
	[ "$status" -eq 0 ]
	[ "$stderr" = "" ]
	[[ "${lines[0]}" == "Usage: cell "* ]]
	[[ "$output" == *"  run "* ]]
}

@test "cell --version prints the version and exits 0" {
	run --separate-stderr cell --version
	[ "$status" -eq 0 ]
	[ "$stderr" = "" ]
	[[ "$output" =~ ^cell\ [0-9]+\.[0-9]+\.[0-9]+$ ]]
	run --separate-stderr cell -V
	[ "$status" -eq 0 ]
	[[ "$output" =~ ^cell\ [0-9]+\.[0-9]+\.[0-9]+$ ]]
}
