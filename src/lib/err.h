/*
 * err.h - the one error type of libcell.
 *
 * Every fallible engine function returns 0 on success or -1 on failure and
 * fills a struct cell_err.  Callers that know more add context in front of
 * the message as the error climbs ("run: mount proc on /proc: EPERM"), so
 * the message the user finally reads names the operation, the object and
 * the reason.  The engine never prints and never exits.
 *
 * An error about a jail parameter (param.h) says only what is wrong with
 * its value ("at least 1M") and records which parameter it is about: each
 * front door spells that subject its own way, in front of the part of
 * the message about the parameter (`--memory 1k: at least 1M` on the
 * command line, `cell.conf:3:5: memory = 1k: at least 1M` in a jail
 * file, `memory=1k: at least 1M` for cell set).  A message may also name
 * a second parameter ("needs path"), which the front door spells too.
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

#define CELL_ERR_NO_PARAM (-1)

/* What an error is about, for the front door to spell (see above). */
struct cell_err_about {
	int param;		      /* enum param_id, or CELL_ERR_NO_PARAM */
	int index;		      /* which element of a list parameter */
	int ref;		      /* a parameter the message names, or CELL_ERR_NO_PARAM */
	unsigned int at;	      /* where in msg the subject goes */
	unsigned int ref_at, ref_len; /* where msg names REF (by its name) */
};

struct cell_err {
	int errnum;		     /* errno of the root cause, 0 when none */
	int exit_code;		     /* one of CELL_EXIT_* */
	struct cell_err_about about; /* the parameter it is about, if any */
	char msg[1024];		     /* full message, without the "cell: " prefix */
};

/* Sets the message (plus ": strerror(errnum)" when errnum != 0). Returns -1. */
int cell_err_set(struct cell_err *e, int errnum, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The same for an error about element INDEX (0 for a value that is no
 * list) of parameter PARAM: the message says what is wrong with the value,
 * never which parameter it is (the front door adds that).  An empty
 * message with ERRNUM is the reason alone.  Returns -1. */
int cell_err_param(struct cell_err *e, int param, int index, int errnum, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/* Marks the last NAME in the message (after the subject's place) as
 * naming parameter REF, for the front door to spell as it spells
 * parameters.  Returns -1. */
int cell_err_ref(struct cell_err *e, int ref, const char *name);

/* The front door's spelling: SUBJECT (NULL: none) and ": " go where the
 * part about the parameter begins, REF_TEXT (NULL: kept) replaces the
 * referred parameter's name.  The error is then about nothing. */
void cell_err_spell(struct cell_err *e, const char *subject, const char *ref_text);

/* Prepends "context: " to the message. Returns -1. */
int cell_err_prefix(struct cell_err *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Clears an error to "no error". */
void cell_err_clear(struct cell_err *e);

#endif
