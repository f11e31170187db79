/*
 * devices.h - the devices a jail may use: its standard set.
 */
#ifndef CELL_DEVICES_H
#define CELL_DEVICES_H

#include <stddef.h>

#include "err.h"
#include "spec.h"

/* The standard set: the nodes rootfs.c makes in the jail's /dev (null
 * zero full random urandom tty), /dev/ptmx and /dev/pts/N (which
 * /dev/console of a jail with a pty is). */
extern const struct jail_device_rule devices_standard[];
extern const size_t devices_nstandard;

/*
 * Appends the standard set to S's device rules when the jail could reach
 * a device node outside its /dev: through a --rootfs (its files are the
 * user's, device nodes included) or a --bind.  A jail on the embedded
 * root without binds cannot (the root is nodev, /dev is fresh, no
 * CAP_MKNOD), and gets no devices cgroup: one costs time at every start.
 * Does nothing when S has device rules already.
 */
int devices_add_standard(struct jail_spec *s, struct cell_err *e);

#endif
