/*
 * param.h - the one table of jail parameters.
 *
 * Each parameter of a jail is one row: its name (as cell.conf, `cell ls
 * -o/-n`, `cell set`, `cell inspect` and the state record spell it), the
 * other spellings accepted on input (host.hostname for hostname), its
 * flag of `cell run`, its type, how its text parses into a spec and how
 * the spec's value formats back into text that parses again, whether it
 * is a list (`+=` in a jail file, a flag given again), and whether `cell
 * set` may change it in a running jail.  The flags, jail files, ls, set,
 * inspect and the record (record.h) all read this table: a new parameter
 * is added here, in one place (FreeBSD jail(8)'s table of parameters).
 *
 * The text of a value is what `cell set NAME=VALUE` and `cell ls -n` use.
 * A list's text is its elements separated by ", ", each quoted as in a
 * jail file when it must be ("sh, -c, \"sleep 1; exit 3\"").  Value
 * errors say only what is wrong with the value ("at least 1M"); the front
 * door says which parameter (err.h).
 */
#ifndef CELL_PARAM_H
#define CELL_PARAM_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "err.h"
#include "spec.h"

enum param_id {
	PARAM_NAME,
	PARAM_HOSTNAME,
	PARAM_DOMAINNAME,
	PARAM_PATH,
	PARAM_RW,
	PARAM_BIND,
	PARAM_WORKDIR,
	PARAM_ENV,
	PARAM_USER,
	PARAM_NET,
	PARAM_IP4,
	PARAM_IP6,
	PARAM_GATEWAY,
	PARAM_VNET_IF,
	PARAM_VNET_MTU,
	PARAM_PUBLISH,
	PARAM_NAT,
	PARAM_DNS,
	PARAM_USERNS,
	PARAM_INIT,
	PARAM_RESTART,
	PARAM_LOG_SIZE,
	PARAM_LOG_KEEP,
	PARAM_POLICY,
	PARAM_ALLOW,
	PARAM_NRTASK,
	PARAM_MEMORY,
	PARAM_SWAP,
	PARAM_CPUS,
	PARAM_CPU_TIME,
	PARAM_MEMLOCK,
	PARAM_DATA,
	PARAM_NOFILE,
	PARAM_NICE,
	PARAM_CGROUP_PARENT,
	PARAM_COMMAND,
	PARAM_COUNT
};

/* How a value is typed in JSON (the record, ls --json, inspect --json). */
enum param_type {
	PARAM_STRING, /* a string; null when unset */
	PARAM_BOOL,   /* true or false; a bare name in a jail file is true */
	PARAM_INT,    /* an integer (sizes in bytes); null when unset */
	PARAM_REAL,   /* a number (cpus); null when unset */
	PARAM_LIST,   /* an array of the elements' texts */
};

/* The section of cell run --help a flag is listed in. */
enum param_group {
	PARAM_GROUP_IDENTITY,
	PARAM_GROUP_FILESYSTEM,
	PARAM_GROUP_PROCESS,
	PARAM_GROUP_POLICY,
	PARAM_GROUP_NETWORK,
};

struct param;

/* The value's text -> S (a list: one more element); NULL is a bare name.
 * An error says what is wrong with the value only. */
typedef int param_parse_fn(const struct param *p, struct jail_spec *s, const char *text,
			   struct cell_err *e);
/* S's value (a list: element I) -> *OUT, a heap string that the parse
 * reads back.  1: set, 0: unset or no element I, -1: out of memory. */
typedef int param_format_fn(const struct param *p, const struct jail_spec *s, size_t i, char **out);
/* Back to the default (a list: empty). */
typedef void param_clear_fn(const struct param *p, struct jail_spec *s);

struct param {
	enum param_id id;
	const char *name;	/* the one spelling of outputs and the record */
	const char *alias;	/* another accepted on input, or NULL */
	const char *flag;	/* cell run's long option, or NULL (none) */
	char short_flag;	/* its short option, or 0 */
	const char *flag_value; /* a flag without a value sets this text; NULL: takes one */
	const char *arg;	/* the value in help texts ("SIZE"), or NULL */
	const char *help;	/* cell run --help's line(s) */
	enum param_group group;
	enum param_type type;
	bool live;    /* cell set may change it in a running jail */
	bool process; /* of the process: cell exec gives its own */
	bool hidden;  /* ls -n and --json leave it out unless asked (-o) */

	param_parse_fn *parse;
	param_format_fn *format;
	param_clear_fn *clear;
	/* A value (element) as the spec already holds it, from a record or
	 * another spec: what the parse may refuse of a user's but the spec
	 * can hold (env: the caller's environment, whatever its names).
	 * NULL: the parse. */
	param_parse_fn *load;

	/* The spec's field, for the generic functions of each type: the
	 * only place param.c knows the layout of struct jail_spec. */
	char **(*str)(struct jail_spec *s);
	bool *(*boolean)(struct jail_spec *s);
	long long *(*num)(struct jail_spec *s);
	bool *(*has)(struct jail_spec *s); /* numbers unset otherwise than by -1 */
	bool def;			   /* a boolean's default */
	/* Strings: checks a value (NULL: any). */
	int (*check)(const char *text, struct cell_err *e);
	/* Numbers: text -> value with its own range check, and back. */
	int (*parse_num)(const char *text, long long *v, struct cell_err *e);
	void (*format_num)(long long v, char *buf, size_t size);
	long long min, max; /* the range a record's value must be in */
	int scale;	    /* PARAM_REAL: JSON's number is the value / scale */
	/* A boolean's flag that sets it false (--no-init), and its help
	 * line; NULL: none. */
	const char *no_flag;
	const char *no_help;
};

/* The table, indexed by enum param_id. */
extern const struct param param_table[PARAM_COUNT];

static inline const struct param *param_get(int id)
{
	return id >= 0 && id < PARAM_COUNT ? &param_table[id] : NULL;
}

/* The row of KEY: a name, an alias, or "allow.RULE" (allow's); NULL when
 * there is none. */
const struct param *param_find(const char *key);

/*
 * Sets the parameter KEY (as param_find()) from TEXT: its value, or one
 * more element of a list; "allow.RULE = BOOL" allows or forbids RULE.
 * NULL is a bare name: true for a boolean, an error otherwise.  *ROW (when
 * not NULL) is set to the row, or NULL for an unknown KEY, which is an
 * error of its own ("unknown parameter").
 */
int param_set(struct jail_spec *s, const char *key, const char *text, const struct param **row,
	      struct cell_err *e);

/* One value or element (p->parse). */
int param_parse(const struct param *p, struct jail_spec *s, const char *text, struct cell_err *e);
/* The whole value from the text param_format() gives: a list's text
 * replaces the list. */
int param_parse_text(const struct param *p, struct jail_spec *s, const char *text,
		     struct cell_err *e);

/* The value as text (a heap string in *OUT): 1 set, 0 unset (*OUT NULL),
 * -1 out of memory.  A list is set when it has an element. */
int param_format(const struct param *p, const struct jail_spec *s, char **out);
/* Element I of a list, or the value of another (I 0): as p->format. */
int param_format_element(const struct param *p, const struct jail_spec *s, size_t i, char **out);

void param_clear(const struct param *p, struct jail_spec *s);
bool param_is_set(const struct param *p, const struct jail_spec *s);
/* Whether A and B have the same value of P. */
bool param_equal(const struct param *p, const struct jail_spec *a, const struct jail_spec *b);
/* DST's value of P becomes SRC's. */
int param_copy(const struct param *p, struct jail_spec *dst, const struct jail_spec *src,
	       struct cell_err *e);

/* The typed JSON value (enum param_type), and back; JSON null (or no
 * value) is unset.  A value out of the parameter's range is an error. */
json_t *param_to_json(const struct param *p, const struct jail_spec *s);
int param_from_json(const struct param *p, struct jail_spec *s, const json_t *v,
		    struct cell_err *e);

/* A list's elements in the list text: ", " between, each quoted as in a
 * jail file when it is empty or holds what ends a word; and back. */
char *param_join(char *const *elems, size_t n);
int param_split(const char *text, char ***elems, size_t *n, struct cell_err *e);
void param_strv_free(char **elems, size_t n);

/* The text of a size in the spelling the parse takes: 64M, not 67108864. */
void param_format_size(long long v, char *buf, size_t size);

#endif
