/*
 * oci.h - what the OCI runtime front door (`cell-oci`, `cell oci`)
 * shares between its verbs (src/cli/oci_*.c): the global options, the
 * one-line errors and their log records, option parsing with --help.
 *
 * cell-oci speaks runc's command line, so that container engines can
 * drive it: global options first, then the verb, its options, the
 * container ID and the verb's arguments.  Errors exit with status 1, as
 * runc's do (engines read the message, not the status).
 */
#ifndef CELL_OCI_H
#define CELL_OCI_H

#include <stdbool.h>
#include <stdio.h>

#include "err.h"

#define OCI_DEFAULT_ROOT "/run/cell-oci"
#define OCI_EXIT_ERROR	 1

struct oci_global {
	const char *root;
	bool root_given; /* --root (else the default, a rootless user's own) */
	FILE *log;	 /* --log: one record per error (and per command with --debug) */
	bool log_json;	 /* --log-format json: {"level","msg","time"} lines */
	bool debug;
};

struct oci_verb {
	const char *name;
	int (*run)(const struct oci_global *g, int argc, char **argv);
	const char *summary;
};

/* "cell-oci: VERB: MESSAGE" on stderr and in the log; returns 1.  An
 * error of the launch or exec whose payload was not found (exit code
 * 127) or not executable (126) also says so in runc's words, which
 * engines look for ("executable file not found in $PATH", "permission
 * denied"). */
int oci_fail(const struct oci_global *g, const char *verb, const char *id,
	     const struct cell_err *e);
/* The same for a message built here (a usage error); returns 1. */
int oci_error(const struct oci_global *g, const char *verb, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* A warning (a poststart or poststop hook failed): stderr and the log. */
void oci_warn(const struct oci_global *g, const char *verb, const struct cell_err *e);
/* A log record at LEVEL ("debug", "error", "warning"), when --log. */
void oci_log(const struct oci_global *g, const char *level, const char *msg);

/*
 * The verb's options, through cli_getopt() ("+" first: its options end
 * at the container ID): returns the option, -1 at the end, or 'h' after
 * printing USAGE for --help; an unknown or incomplete option is the
 * one-line error, and *RET then holds the exit status (1), as for
 * --help (0): the verb returns *RET when the result is '?' or 'h'.
 */
struct option;
int oci_getopt(const struct oci_global *g, const char *verb, const char *usage, int argc,
	       char **argv, const char *shortopts, const struct option *opts, int *ret);

/* The container ID at argv[optind], checked (oci_valid_id()), with
 * MIN..MAX more arguments after it; NULL after the error was printed. */
const char *oci_take_id(const struct oci_global *g, const char *verb, int argc, char **argv,
			int min_more, int max_more);

int oci_verb_create(const struct oci_global *g, int argc, char **argv);
int oci_verb_run(const struct oci_global *g, int argc, char **argv);
int oci_verb_start(const struct oci_global *g, int argc, char **argv);
int oci_verb_state(const struct oci_global *g, int argc, char **argv);
int oci_verb_list(const struct oci_global *g, int argc, char **argv);
int oci_verb_ps(const struct oci_global *g, int argc, char **argv);
int oci_verb_kill(const struct oci_global *g, int argc, char **argv);
int oci_verb_delete(const struct oci_global *g, int argc, char **argv);
int oci_verb_pause(const struct oci_global *g, int argc, char **argv);
int oci_verb_resume(const struct oci_global *g, int argc, char **argv);
int oci_verb_exec(const struct oci_global *g, int argc, char **argv);
int oci_verb_spec(const struct oci_global *g, int argc, char **argv);
int oci_verb_features(const struct oci_global *g, int argc, char **argv);
int oci_verb_update(const struct oci_global *g, int argc, char **argv);

#endif
