/*
 * cli.h - what the command-line front door shares between its commands.
 */
#ifndef CELL_CLI_H
#define CELL_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "err.h"

/* Global options, given before the command (as runc). */
struct cli_global {
	const char *root; /* state root */
	bool root_given;  /* --root was given (cell oci takes it too) */
};

struct cli_command {
	const char *name;
	int (*run)(const struct cli_global *g, int argc, char **argv);
	const char *summary;
};

/* Prints "cell: CMD: message" on stderr and returns e->exit_code; an
 * error about a parameter that no one spelled gets its name (err.h). */
int cli_fail(const char *cmd, const struct cell_err *e);
/* An error about a parameter (err.h) spelled as cell run's flags: its
 * flag and S's value ("--memory 64M: at least ..."), the flag alone for
 * one that takes no value ("--rw"); a parameter without a flag (command)
 * gets no subject.  cli_spell_flag_text(): with the value as TEXT, as
 * the user gave it. */
struct jail_spec;
struct param;
void cli_spell_flags(struct cell_err *e, const struct jail_spec *s);
void cli_spell_flag_text(struct cell_err *e, const struct param *p, const char *text);

/* A jail named on the command line: a word of digits only is the JID of
 * a jail of G's root if there is one (`cell exec 3 sh`, as jexec), its
 * name then returned (a heap copy that lives as long as argv); else the
 * word itself, a name.  The JID wins over a jail named by those digits. */
char *cli_jail_arg(const struct cli_global *g, char *word);

/* Same for a message built here; returns 125. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* getopt_long() that takes a long option only as spelled in full: a
 * prefix (glibc's getopt takes "--ro" for "--root") is '?', with
 * argv[optind - 1] the option, for cli_bad_option(). */
struct option;
int cli_getopt(int argc, char **argv, const char *shortopts, const struct option *opts,
	       int *longindex);

/* After cli_getopt() returned '?': the one-line error for the option
 * at argv[optind - 1] (unknown, missing its value, or given one it does
 * not take); returns 125. */
int cli_bad_option(const char *cmd, char **argv, const struct option *opts);
/* Of the N NAMES, the one nearest WORD by edit distance (a swap of two
 * neighbours is one edit), if it is near enough to be a typo of it;
 * else NULL. */
const char *cli_nearest(const char *word, const char *const *names, size_t n);
/* Its words alone, for PROG's (cell, cell-oci) command CMD, into BUF. */
void cli_bad_option_text(const char *prog, const char *cmd, char **argv, const struct option *opts,
			 char *buf, size_t size);

int cmd_run(const struct cli_global *g, int argc, char **argv);
int cmd_inspect(const struct cli_global *g, int argc, char **argv);
int cmd_ls(const struct cli_global *g, int argc, char **argv);
int cmd_stop(const struct cli_global *g, int argc, char **argv);
int cmd_start(const struct cli_global *g, int argc, char **argv);
int cmd_restart(const struct cli_global *g, int argc, char **argv);
int cmd_wait(const struct cli_global *g, int argc, char **argv);
int cmd_ps(const struct cli_global *g, int argc, char **argv);
int cmd_stats(const struct cli_global *g, int argc, char **argv);
int cmd_rm(const struct cli_global *g, int argc, char **argv);
int cmd_exec(const struct cli_global *g, int argc, char **argv);
int cmd_set(const struct cli_global *g, int argc, char **argv);
int cmd_up(const struct cli_global *g, int argc, char **argv);
int cmd_down(const struct cli_global *g, int argc, char **argv);
int cmd_logs(const struct cli_global *g, int argc, char **argv);
/* `cell oci VERB ...`: the OCI runtime front door (oci_main.c). */
int cmd_oci(const struct cli_global *g, int argc, char **argv);
/* cell called as "cell-oci": runc's command line, ARGV from the program's name. */
int oci_main(int argc, char **argv);

#endif
