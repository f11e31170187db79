/*
 * slirp.h - `--net slirp`: a jail's own network namespace reaching out
 * through a user-mode network stack, without root on the host: pasta
 * (Debian's passt; preferred: no tap copy for local traffic, and the
 * host's resolver forwarded) or slirp4netns.
 *
 * The stack is a program running beside the jail, in the host's network
 * namespace: it holds a tap device in the jail's namespace and turns the
 * jail's packets into the host's sockets (and published ports' sockets
 * into the jail's connections).  The jail sees eth0 10.0.2.100/24, its
 * gateway 10.0.2.2 and a DNS forwarder at 10.0.2.3 (slirp4netns's
 * layout, which pasta is told to use too); IPv4 only.  The host's
 * loopback is never reachable from the jail.
 *
 * Lifecycle.  The launch's net stage starts a small keeper (a fork of
 * cell, in a session of its own, nobody's child but init's) which starts
 * the program, waits until it is ready (its pid written to a pipe:
 * pasta's --pid, slirp4netns's --ready-fd), publishes the ports
 * (slirp4netns's API socket), reports "ready" to cell and then watches
 * the jail's pid 1 through a pidfd: when the jail ends the program goes,
 * and the keeper with it.  So the program ends with its jail whether
 * cell waits for it, left it (-d) or was killed.  The record's "network"
 * object names the program's pid and start time: release (stop, rm, the
 * next command after a crash) kills it too, after checking both.  Its
 * output goes to slirp.log in the jail's state directory.
 *
 * Which program: $CELL_PASTA / $CELL_SLIRP4NETNS (a path; one that is not
 * an executable file means "not installed": the tests' switch), else the
 * first of PATH's absolute directories that has it.
 */
#ifndef CELL_SLIRP_H
#define CELL_SLIRP_H

#include <jansson.h>
#include <limits.h>
#include <stdbool.h>
#include <sys/types.h>

#include "err.h"
#include "spec.h"

/* The jail's side of the stack. */
#define SLIRP_ADDR    "10.0.2.100/24"
#define SLIRP_GATEWAY "10.0.2.2"
#define SLIRP_DNS     "10.0.2.3"

enum slirp_prog {
	SLIRP_PASTA,
	SLIRP_SLIRP4NETNS,
};

struct slirp {
	bool on; /* --net slirp: the rest is set */
	enum slirp_prog prog;
	char path[PATH_MAX];	  /* the program found */
	char ifname[16];	  /* the tap in the jail (vnet.interface; eth0) */
	pid_t pid;		  /* the program, once ready; 0: not started */
	unsigned long long start; /* its start time (proc.h) */
	pid_t keeper;		  /* the keeper's pid (informational) */
};

/* "pasta" or "slirp4netns". */
const char *slirp_prog_name(enum slirp_prog p);

/* prepare: which program, before anything is made; the one clear error
 * when neither is installed. */
int slirp_find(struct slirp *sl, const struct jail_spec *s, struct cell_err *e);

/*
 * A new network namespace for the jail (a descriptor), when the clone
 * would make it otherwise: cell must hold it, and a rootless cell cannot
 * open its jail's /proc/PID/ns/net (the jail's first process is not
 * dumpable, and its memory belongs to the host's user namespace, where
 * such a cell has no CAP_SYS_PTRACE).  The jail joins it instead.
 */
int slirp_netns(struct cell_err *e);

/*
 * net stage: the keeper and the program, for the jail whose network
 * namespace is NETNS_FD and whose pid 1 JAIL_PIDFD names, its files in
 * its state directory DIRFD; returns once the program is ready and the
 * spec's ports are published (sl->pid set), or failed (nothing left).
 */
int slirp_start(struct slirp *sl, const struct jail_spec *s, int dirfd, int netns_fd,
		int jail_pidfd, struct cell_err *e);

/* The program of SL gone (idempotent; the pid checked by its start
 * time first). */
void slirp_stop(const struct slirp *sl);

/* The record's "network" object of SL (mode, program, pids, the jail's
 * addresses). */
json_t *slirp_record(const struct slirp *sl);
/* Release from a record's "network" object NET: the program killed
 * when the pid and start time it names are still its. */
void slirp_release(const json_t *net);
/* Whether the program NET names still runs. */
bool slirp_running(const json_t *net);

#endif
