#!/usr/bin/env bats
# A jail's UTS namespace: its own hostname and domainname, seen by all its
# processes and by nobody else; the rest of uname is the host's kernel.
load helpers


@test "hostname, uname -n and /proc/sys/kernel/hostname show --hostname" {
	run cell run --hostname web.example -- sh -c \
		'hostname; uname -n; cat /proc/sys/kernel/hostname'
	[ "$status" -eq 0 ]
	[ "$output" = "web.example
web.example
web.example" ]
}

@test "--domainname shows in /proc/sys/kernel/domainname, domainname and hostname -y" {
	run cell run --domainname corp.test -- sh -c \
		'cat /proc/sys/kernel/domainname; domainname; hostname -y'
	[ "$status" -eq 0 ]
	[ "$output" = "corp.test
corp.test
corp.test" ]
}

@test "without --domainname the jail keeps the host's domainname" {
	run cell run -- cat /proc/sys/kernel/domainname
	[ "$status" -eq 0 ]
	[ "$output" = "$(cat /proc/sys/kernel/domainname)" ]
}

@test "the default hostname is the --name when one is given" {
	run cell run --name db-1 -- hostname
	[ "$status" -eq 0 ]
	[ "$output" = db-1 ]
}

@test "--hostname wins over the --name" {
	run cell run --name db-1 --hostname other -- hostname
	[ "$status" -eq 0 ]
	[ "$output" = other ]
}

@test "without --name the default hostname is cell" {
	run cell run -- hostname
	[ "$status" -eq 0 ]
	[ "$output" = cell ]
}

@test "a --name that is not a valid hostname leaves the default hostname cell" {
	run cell run --name db_1 -- hostname
	[ "$status" -eq 0 ]
	[ "$output" = cell ]
}

@test "a hostname of 64 bytes, the kernel's limit, is set whole" {
	host=$(printf '%031d.%032d' 0 0)
	[ "${#host}" -eq 64 ]
	run cell run --hostname "$host" -- cat /proc/sys/kernel/hostname
	[ "$status" -eq 0 ]
	[ "$output" = "$host" ]
}

@test "the host's hostname and domainname are unchanged by a jail" {
	host=$(cat /proc/sys/kernel/hostname)
	domain=$(cat /proc/sys/kernel/domainname)
	run cell run --hostname jailed --domainname jailed.test -- \
		cat /proc/sys/kernel/hostname /proc/sys/kernel/domainname
	[ "$status" -eq 0 ]
	[ "$output" = "jailed
jailed.test" ]
	[ "$(cat /proc/sys/kernel/hostname)" = "$host" ]
	[ "$(cat /proc/sys/kernel/domainname)" = "$domain" ]
}

@test "a hostname and domainname changed inside with --allow set_hostname stay inside" {
	host=$(cat /proc/sys/kernel/hostname)
	domain=$(cat /proc/sys/kernel/domainname)
	# Only ever sethostname() in a UTS namespace that is not the host's.
	run cell run --allow set_hostname -e HOST_UTS="$HOST_UTS" -e HOST_PID="$HOST_PID" -- sh -c "
		$JAIL_GUARD_SH"'
		hostname changed && domainname changed.test &&
		cat /proc/sys/kernel/hostname /proc/sys/kernel/domainname'
	[ "$status" -eq 0 ]
	[ "$output" = "changed
changed.test" ]
	[ "$(cat /proc/sys/kernel/hostname)" = "$host" ]
	[ "$(cat /proc/sys/kernel/domainname)" = "$domain" ]
}

@test "two jails running at once each see their own hostname" {
	# Each says it started, waits (at most 5 s) until the other has,
	# and only then reads its hostname: the two lifetimes overlap.  The
	# mark is renamed into place, so that it is never seen empty.
	script='hostname > /srv/$ME.new && mv /srv/$ME.new /srv/$ME.started
		for i in $(seq 50); do
			[ -e /srv/one.started ] && [ -e /srv/two.started ] && break
			sleep 0.1
		done
		echo "$(hostname) $(cat /srv/one.started /srv/two.started | tr "\n" " ")"'
	cell_bg "$WORK/one.out" --hostname one -e ME=one --bind "$WORK:/srv" -- sh -c "$script"
	one=$BG_PID
	cell_bg "$WORK/two.out" --hostname two -e ME=two --bind "$WORK:/srv" -- sh -c "$script"
	two=$BG_PID
	wait_status "$one"
	[ "$status" -eq 0 ]
	wait_status "$two"
	[ "$status" -eq 0 ]
	[ "$(cat "$WORK/one.out")" = "one one two " ]
	[ "$(cat "$WORK/two.out")" = "two one two " ]
}

@test "children and grandchildren of the jail's command inherit its hostname" {
	run cell run --hostname family -- sh -c \
		'hostname; sh -c "hostname; sh -c hostname"'
	[ "$status" -eq 0 ]
	[ "$output" = "family
family
family" ]
}

@test "uname -s -r -v -m inside is the host's" {
	run cell run --hostname other -- uname -s -r -v -m
	[ "$status" -eq 0 ]
	[ "$output" = "$(uname -s -r -v -m)" ]
}

@test "the jail's UTS namespace is not the host's, and its descendants share it" {
	run cell run -- sh -c 'readlink /proc/self/ns/uts; sh -c "readlink /proc/self/ns/uts"'
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == uts:\[*\] ]]
	[ "${lines[0]}" != "$HOST_UTS" ]
	[ "${lines[1]}" = "${lines[0]}" ]
}
