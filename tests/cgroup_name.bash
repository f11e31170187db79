# tests/cgroup_name.bash: the name cell gives a jail's cgroups, for the
# suites that look for exactly their own (never a user's, or another test
# run's jail of the same name).

# cell_cgroup_name ROOT NAME: cell-HASH-NAME, HASH the FNV-1a of the state
# root ROOT, as cgroup.c names them under a non-default --root.
cell_cgroup_name() {
	local root=$1 h=2166136261 i c
	for ((i = 0; i < ${#root}; i++)); do
		printf -v c '%d' "'${root:i:1}"
		h=$(((h ^ c) * 16777619 & 0xffffffff))
	done
	printf 'cell-%08x-%s\n' "$h" "$2"
}
