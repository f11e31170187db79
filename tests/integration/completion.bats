#!/usr/bin/env bats
# Bash completion (contrib/cell.bash-completion): commands and options
# read from cell's own --help at completion time, jail names from cell ls.
load helpers

setup() {
	cell_setup
	# shellcheck source=../../contrib/cell.bash-completion
	source "$BATS_TEST_DIRNAME/../../contrib/cell.bash-completion"
}

# complete WORD...: COMPREPLY for the command line "cell --root $STATE
# WORD...", the last word being completed, one per line, sorted, once.
complete_words() {
	COMP_WORDS=("$CELL" --root "$STATE" "$@")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMPREPLY=()
	_cell
	printf '%s\n' "${COMPREPLY[@]}" | sort -u
}

@test "the commands complete from cell --help" {
	run complete_words ""
	[ "$status" -eq 0 ]
	# Every command cell --help lists, and nothing else.
	[ "$output" = "$("$CELL" --help | awk '/^Commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }' | sort -u)" ]
	grep -qx run <<<"$output"
	grep -qx exec <<<"$output"
	[ "$(complete_words in)" = inspect ]
	# Those of a prefix: whatever commands cell has now (restart came
	# with no edit here).
	[ "$(complete_words r)" = "$(grep '^r' <<<"$output")" ]
	grep -qx rm <<<"$(complete_words r)"
}

@test "a command's options complete from its own --help" {
	run complete_words run --root
	[ "$output" = --rootfs ]
	run complete_words exec --w
	[ "$output" = --workdir ]
	run complete_words ls -
	grep -qx -- --json <<<"$output"
	grep -qx -- -a <<<"$output"
	run complete_words set --f
	[ "$output" = --force ]
}

@test "an option's value completes: its choices, or files for a path" {
	run complete_words run --net ""
	[ "$output" = "$(printf 'bridge\nhost\nnone\nns:\nslirp')" ]
	mkdir "$WORK/rootdir"
	run complete_words run --rootfs "$WORK/rootd"
	[ "$output" = "$WORK/rootdir" ]
	# A value with no choices completes nothing, not an option.
	run complete_words run --memory ""
	[ -z "$output" ]
}

@test "jail names complete from cell ls: running ones, stopped ones where they count" {
	cell run -d --name alpha -- sleep 100 >/dev/null
	cell run -d --name beta -- true >/dev/null
	for ((i = 0; i < 100; i++)); do
		[ "$(cell ls -q)" = alpha ] && break
		sleep 0.05
	done
	[ "$(complete_words exec "")" = alpha ]
	[ "$(complete_words stop a)" = alpha ]
	[ "$(complete_words rm "")" = "$(printf 'alpha\nbeta')" ]
	# After the jail, exec completes a command, set its live parameters.
	run complete_words set alpha mem
	[ "$output" = "$(printf 'memlock=\nmemory=')" ]
	run complete_words exec alpha "sleep"
	grep -qx sleep <<<"$output"
}

@test "up and down complete the jails of their file" {
	cat >"$WORK/cell.conf" <<-'EOF'
		web { exec.start = "sleep 1"; }
		  db {
		    exec.start = "sleep 1";
		}
	EOF
	[ "$(complete_words up -f "$WORK/cell.conf" "")" = "$(printf 'db\nweb')" ]
	[ "$(complete_words down -f "$WORK/cell.conf" w)" = web ]
}

@test "make install puts the completion where bash-completion finds it, under DESTDIR" {
	local build
	build=$(dirname "$CELL")
	[ -e "$build/build.ninja" ] && command -v meson >/dev/null || skip "no meson build of $CELL"
	DESTDIR=$WORK/dest meson install -C "$build" --quiet >/dev/null 2>&1
	want=$(pkg-config --variable=completionsdir bash-completion 2>/dev/null) || true
	cmp "$WORK/dest${want:-/usr/share/bash-completion/completions}/cell" \
		"$BATS_TEST_DIRNAME/../../contrib/cell.bash-completion"
}
