/*
 * err.h - the one error type of libcell.
 *
 * Every fallible engine function returns 0 on success or -1 on failure and
 * fills a struct cell_err.  Callers that know more add context in front of
 * the message as the error climbs ("run: mount proc on /proc: EPERM"), so
 * the message the user finally reads names the operation, the object and
 * the reason.  The engine never prints and never exits.
 */
#ifndef CELL_ERR_H
#define CELL_ERR_H

#include <stddef.h>

/* Exit codes of the conventions of env(1), docker and podman. */
enum {
	CELL_EXIT_ERROR = 125,	 /* cell failed before the payload ran */
	CELL_EXIT_NOEXEC = 126,	 /* payload found but not executable */
	CELL_EXIT_NOTFOUND = 127 /* payload not found */
};

struct cell_err {
	int errnum;	/* errno of the root cause, 0 when none */
	int exit_code;	/* one of CELL_EXIT_* */
	char msg[1024]; /* full message, without the "cell: " prefix */
};

/* Sets the message (plus ": strerror(errnum)" when errnum != 0). Returns -1. */
int cell_err_set(struct cell_err *e, int errnum, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Prepends "context: " to the message. Returns -1. */
int cell_err_prefix(struct cell_err *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Clears an error to "no error". */
void cell_err_clear(struct cell_err *e);

#endif
