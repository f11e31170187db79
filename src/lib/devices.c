/*
 * devices.c - the jail's standard set of devices, as spec data.
 *
 * The devices cgroup (cgroup_v1.c: devices.allow; cgroup_v2.c: an eBPF
 * device program) denies every device but these, so that a device node
 * found in a --rootfs or bound in with --bind (a disk, /dev/kmsg, a loop
 * device) cannot be opened from inside, whatever its mode says.
 */
#include "devices.h"

/* Character devices, read, write and mknod (rootfs.c makes the first six
 * in the jail's /dev while the jail may already be in its cgroup).  The
 * jail's /dev/console is its pty's slave, a pts: the console device
 * itself (5:1) is the host's, and stays denied. */
const struct jail_device_rule devices_standard[] = {
	{true, 'c', 1, 3, "rwm"},    /* null */
	{true, 'c', 1, 5, "rwm"},    /* zero */
	{true, 'c', 1, 7, "rwm"},    /* full */
	{true, 'c', 1, 8, "rwm"},    /* random */
	{true, 'c', 1, 9, "rwm"},    /* urandom */
	{true, 'c', 5, 0, "rwm"},    /* tty */
	{true, 'c', 5, 2, "rwm"},    /* ptmx */
	{true, 'c', 136, -1, "rwm"}, /* pts/N: every Unix98 pty slave */
};
const size_t devices_nstandard = sizeof(devices_standard) / sizeof(devices_standard[0]);

int devices_add_standard(struct jail_spec *s, struct cell_err *e)
{
	if (s->ndevices > 0 || (s->rootfs == NULL && s->nbinds == 0))
		return 0;
	for (size_t i = 0; i < devices_nstandard; i++)
		if (spec_add_device_rule(s, &devices_standard[i], e) < 0)
			return -1;
	return 0;
}
