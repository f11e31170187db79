/*
 * testpoint.h - pause points for the reliability tests.
 *
 * A build configured with -Dtestpoints=true stops at stage NAME when the
 * environment says CELL_TEST_PAUSE=NAME: it writes its pid to the file
 * CELL_TEST_PAUSE_FILE names (if any) and waits to be killed, so that a
 * test can kill -9 cell at exactly that point of run, stop or rm, or for
 * a SIGUSR1 that lets it go on (a test acts on the jail in between).
 * Other builds compile the hooks to nothing.
 */
#ifndef CELL_TESTPOINT_H
#define CELL_TESTPOINT_H

#include <stdbool.h>

#include "err.h"

#ifdef CELL_TESTPOINTS
void testpoint_pause(const char *stage);
/* True when CELL_TEST_FAIL=STAGE: the caller reports a failure there, to
 * test what a failure at STAGE does to the exit status and the output. */
bool testpoint_fail(const char *stage);
/* testpoint_fail("PREFIX:NAME"), and then E says so: "PREFIX:NAME (test
 * failure)". */
bool testpoint_fail_at(const char *prefix, const char *name, struct cell_err *e);
/* The pid the pause file names from now on, and in children: a worker
 * of cell's (in a jail's pid namespace) pauses for cell, which the tests
 * kill or resume. */
void testpoint_owner(int pid);
#else
static inline void testpoint_owner(int pid)
{
	(void)pid;
}
static inline void testpoint_pause(const char *stage)
{
	(void)stage;
}
static inline bool testpoint_fail(const char *stage)
{
	(void)stage;
	return false;
}
static inline bool testpoint_fail_at(const char *prefix, const char *name, struct cell_err *e)
{
	(void)prefix;
	(void)name;
	(void)e;
	return false;
}
#endif

#endif
