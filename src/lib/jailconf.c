/*
 * jailconf.c - the jail file parser.  See jailconf.h and docs/cell.conf.5.
 *
 * Two passes over the text, neither recursive.  The first checks the
 * syntax and records the statements: the globals, the blocks and, for
 * each value, where its token starts.  The second builds each jail: it
 * applies the globals then the block's statements in order, re-reading
 * each value token from the text with the jail's variables, so that
 * `path = "/srv/$name"` expands differently in every jail.  One scanner
 * reads a value in both passes; only the second has variables to expand.
 */
#include "jailconf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "param.h"

/* Charged to JAILCONF_MAX_TOTAL per parameter, beyond its bytes. */
#define PARAM_COST 64

enum op {
	OP_SET,	   /* key = value[, value...]; */
	OP_APPEND, /* key += value[, value...]; lists only */
	OP_BARE,   /* key; a boolean, true */
};

/* Where a value token starts: its first byte, a quote or not. */
struct span {
	size_t off;
	int line, col;
};

struct stmt {
	char *key;
	enum op op;
	int line, col;
	size_t val0, nval; /* in parser.vals */
};

struct block {
	char *name;
	int line, col;
	size_t stmt0, nstmt; /* in parser.stmts */
};

struct lexer {
	const char *text;
	size_t len, pos;
	int line, col;
	const char *file;
	const char *jail; /* second pass over a global: named in errors */
};

/* A decoded value; every value fits, or is an error. */
struct valbuf {
	char buf[JAILCONF_MAX_TOKEN + 1];
	size_t len;
};

/* One parameter of the jail being built; dead once replaced. */
struct entry {
	const char *key; /* a stmt's */
	char *value;
	int line, col;
	bool global;
	bool dead;
	size_t prev; /* the previous entry of the same key, or SIZE_MAX */
};

/* Open addressing: the newest entry of each key. */
struct slot {
	const char *key; /* NULL: free */
	size_t keylen;
	size_t last;
};

/* The jail being built, and its variables. */
struct merge {
	const char *jail;
	struct entry *ents;
	size_t nents, cap, live;
	struct slot *slots;
	size_t nslots; /* a power of 2, at least twice the keys */
};

struct parser {
	struct lexer lx;
	struct stmt *globals;
	size_t nglobals, capglobals;
	struct stmt *stmts;
	size_t nstmts, capstmts;
	struct span *vals;
	size_t nvals, capvals;
	struct block *blocks;
	size_t nblocks, capblocks;
	size_t total; /* bytes of the result so far, with PARAM_COST each */
	struct valbuf vb;
};

static int err_at(const struct lexer *lx, int line, int col, struct cell_err *e, const char *fmt,
		  ...) __attribute__((format(printf, 5, 6)));

static int err_at(const struct lexer *lx, int line, int col, struct cell_err *e, const char *fmt,
		  ...)
{
	char what[sizeof(e->msg)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (lx->jail != NULL)
		return cell_err_set(e, 0, "%s:%d:%d: %s (for jail \"%s\")", lx->file, line, col,
				    what, lx->jail);
	return cell_err_set(e, 0, "%s:%d:%d: %s", lx->file, line, col, what);
}

static int err_nomem(const struct lexer *lx, struct cell_err *e)
{
	return cell_err_set(e, ENOMEM, "%s", lx->file);
}

/* The byte K ahead, or 0 at the end (the text holds no NUL). */
static unsigned char peek(const struct lexer *lx, size_t k)
{
	return lx->pos + k < lx->len ? (unsigned char)lx->text[lx->pos + k] : 0;
}

static bool at_end(const struct lexer *lx)
{
	return lx->pos >= lx->len;
}

static void advance(struct lexer *lx)
{
	if (lx->text[lx->pos++] == '\n') {
		lx->line++;
		lx->col = 1;
	} else {
		lx->col++;
	}
}

static bool is_space(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

static bool is_alnum(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* Parameter names, jail names, ${NAME}: [A-Za-z0-9_.-]. */
static bool is_name_char(unsigned char c)
{
	return is_alnum(c) || c == '_' || c == '.' || c == '-';
}

/* What ends an unquoted value. */
static bool ends_word(unsigned char c)
{
	return is_space(c) || strchr(";{}#,\"'", c) != NULL;
}

/* "';'", "byte 0x01" or "the end of the file", for messages. */
static const char *describe(const struct lexer *lx, char *buf, size_t size)
{
	unsigned char c = peek(lx, 0);

	if (at_end(lx))
		return "the end of the file";
	if (c >= 0x21 && c < 0x7f)
		snprintf(buf, size, "'%c'", c);
	else
		snprintf(buf, size, "byte 0x%02x", c);
	return buf;
}

/* Blanks and the three kinds of comments, where a token may begin. */
static int skip_space(struct lexer *lx, struct cell_err *e)
{
	while (!at_end(lx)) {
		unsigned char c = peek(lx, 0);

		if (is_space(c)) {
			advance(lx);
		} else if (c == '#' || (c == '/' && peek(lx, 1) == '/')) {
			while (!at_end(lx) && peek(lx, 0) != '\n')
				advance(lx);
		} else if (c == '/' && peek(lx, 1) == '*') {
			int line = lx->line, col = lx->col;

			advance(lx);
			advance(lx);
			while (!(peek(lx, 0) == '*' && peek(lx, 1) == '/')) {
				if (at_end(lx))
					return err_at(lx, line, col, e, "unterminated comment");
				advance(lx);
			}
			advance(lx);
			advance(lx);
		} else {
			break;
		}
	}
	return 0;
}

static int emit(struct lexer *lx, struct valbuf *out, const char *s, size_t n, int line, int col,
		struct cell_err *e)
{
	if (n > JAILCONF_MAX_TOKEN - out->len)
		return err_at(lx, line, col, e, "value longer than %d bytes", JAILCONF_MAX_TOKEN);
	memcpy(out->buf + out->len, s, n);
	out->len += n;
	out->buf[out->len] = '\0';
	return 0;
}

static const char *lookup(const struct merge *m, const char *key, size_t len);

/*
 * At '$': $$, $NAME ([A-Za-z0-9_]+) or ${NAME} ([A-Za-z0-9_.-]+).  With a
 * jail M, the variable's value is appended; without one (the first pass)
 * only the syntax is checked.
 */
static int scan_var(struct lexer *lx, const struct merge *m, struct valbuf *out, int tline,
		    int tcol, struct cell_err *e)
{
	int line = lx->line, col = lx->col;
	const char *name, *value;
	size_t start, n;

	advance(lx);
	if (peek(lx, 0) == '$') {
		advance(lx);
		return emit(lx, out, "$", 1, tline, tcol, e);
	}
	if (peek(lx, 0) == '{') {
		advance(lx);
		start = lx->pos;
		while (is_name_char(peek(lx, 0)) && lx->pos - start < JAILCONF_MAX_TOKEN)
			advance(lx);
		if (lx->pos == start || peek(lx, 0) != '}')
			return err_at(lx, line, col, e,
				      "expected a variable name and '}' after '${' (write $$ for a "
				      "literal $)");
		n = lx->pos - start;
		advance(lx);
	} else if (is_alnum(peek(lx, 0)) || peek(lx, 0) == '_') {
		start = lx->pos;
		while ((is_alnum(peek(lx, 0)) || peek(lx, 0) == '_') &&
		       lx->pos - start < JAILCONF_MAX_TOKEN)
			advance(lx);
		n = lx->pos - start;
	} else {
		return err_at(lx, line, col, e,
			      "expected a variable name after '$' (write $$ for a literal $)");
	}
	if (m == NULL)
		return 0;
	name = lx->text + start;
	value = lookup(m, name, n);
	if (value == NULL)
		return err_at(lx, line, col, e, "unknown variable \"%.*s\"", (int)n, name);
	return emit(lx, out, value, strlen(value), tline, tcol, e);
}

/*
 * Reads one value token at the lexer's position into OUT: "double
 * quoted" (escapes, variables), 'single quoted' (literal) or an unquoted
 * word (variables).  The caller has checked that a value starts here.
 */
static int scan_value(struct lexer *lx, const struct merge *m, struct valbuf *out,
		      struct cell_err *e)
{
	int line = lx->line, col = lx->col;
	unsigned char q = peek(lx, 0);
	char ch;

	out->len = 0;
	out->buf[0] = '\0';
	if (q != '"' && q != '\'') {
		while (!at_end(lx) && !ends_word(peek(lx, 0))) {
			if (peek(lx, 0) == '$') {
				if (scan_var(lx, m, out, line, col, e) < 0)
					return -1;
				continue;
			}
			ch = (char)peek(lx, 0);
			if (emit(lx, out, &ch, 1, line, col, e) < 0)
				return -1;
			advance(lx);
		}
		return 0;
	}
	advance(lx);
	for (;;) {
		unsigned char c = peek(lx, 0);

		if (at_end(lx))
			return err_at(lx, line, col, e, "unterminated string");
		if (c == q) {
			advance(lx);
			return 0;
		}
		if (q == '"' && c == '$') {
			if (scan_var(lx, m, out, line, col, e) < 0)
				return -1;
			continue;
		}
		if (q == '"' && c == '\\') {
			int eline = lx->line, ecol = lx->col;

			advance(lx);
			if (at_end(lx))
				return err_at(lx, line, col, e, "unterminated string");
			c = peek(lx, 0);
			if (c == 'n')
				c = '\n';
			else if (c == 't')
				c = '\t';
			else if (c != '"' && c != '\\' && c != '$')
				return err_at(lx, eline, ecol, e,
					      "unknown escape in a string (known: \\\" \\\\ \\n "
					      "\\t \\$)");
		}
		ch = (char)c;
		if (emit(lx, out, &ch, 1, line, col, e) < 0)
			return -1;
		advance(lx);
	}
}

static void *grow(void *p, size_t *cap, size_t need, size_t size)
{
	size_t n = *cap != 0 ? *cap : 8;
	void *q;

	if (need <= *cap)
		return p;
	while (n < need) {
		if (n > SIZE_MAX / 2)
			return NULL;
		n *= 2;
	}
	if (n > SIZE_MAX / size)
		return NULL;
	q = realloc(p, n * size);
	if (q != NULL)
		*cap = n;
	return q;
}

/* Refuses what the parser never reads: too big a file, a NUL byte. */
static int check_text(struct lexer *lx, struct cell_err *e)
{
	const char *nul = lx->len != 0 ? memchr(lx->text, '\0', lx->len) : NULL;
	size_t stop = lx->len > JAILCONF_MAX_FILE ? JAILCONF_MAX_FILE : lx->len;

	if (nul != NULL && (size_t)(nul - lx->text) < stop)
		stop = (size_t)(nul - lx->text);
	while (lx->pos < stop)
		advance(lx);
	if (nul != NULL && nul == lx->text + lx->pos)
		return err_at(lx, lx->line, lx->col, e, "NUL byte in a jail file");
	if (lx->len > JAILCONF_MAX_FILE)
		return err_at(lx, lx->line, lx->col, e, "file larger than %d bytes (1 MiB)",
			      JAILCONF_MAX_FILE);
	lx->pos = 0;
	lx->line = lx->col = 1;
	return 0;
}

static int add_stmt(struct parser *p, struct block *b, char *key, enum op op, int line, int col,
		    struct cell_err *e)
{
	struct stmt *v, **arr = b != NULL ? &p->stmts : &p->globals;
	size_t *n = b != NULL ? &p->nstmts : &p->nglobals;
	size_t *cap = b != NULL ? &p->capstmts : &p->capglobals;

	v = grow(*arr, cap, *n + 1, sizeof(*v));
	if (v == NULL) {
		free(key);
		return err_nomem(&p->lx, e);
	}
	*arr = v;
	v[*n] = (struct stmt){key, op, line, col, p->nvals, 0};
	(*n)++;
	if (b != NULL)
		b->nstmt++;
	return 0;
}

/* Opens the block NAME; the lexer is at its '{'. */
static int open_block(struct parser *p, char *name, int line, int col, struct cell_err *e)
{
	struct block *v;

	if (!spec_valid_name(name)) {
		err_at(&p->lx, line, col, e,
		       "invalid jail name \"%s\" (1-%d characters of [A-Za-z0-9_.-], starting "
		       "with a letter or digit)",
		       name, JAIL_NAME_MAX);
		free(name);
		return -1;
	}
	for (size_t i = 0; i < p->nblocks; i++)
		if (strcmp(p->blocks[i].name, name) == 0) {
			err_at(&p->lx, line, col, e, "jail \"%s\" declared twice", name);
			free(name);
			return -1;
		}
	if (p->nblocks == JAILCONF_MAX_JAILS) {
		free(name);
		return err_at(&p->lx, line, col, e, "more than %d jails", JAILCONF_MAX_JAILS);
	}
	v = grow(p->blocks, &p->capblocks, p->nblocks + 1, sizeof(*v));
	if (v == NULL) {
		free(name);
		return err_nomem(&p->lx, e);
	}
	p->blocks = v;
	v[p->nblocks++] = (struct block){name, line, col, p->nstmts, 0};
	advance(&p->lx);
	return 0;
}

/* exec.start and exec.stop: the jail file's own, not the table's. */
static bool is_exec(const char *key)
{
	return strcmp(key, "exec.start") == 0 || strcmp(key, "exec.stop") == 0;
}

/* A list parameter: `+=` and several values. */
static bool is_list(const char *key)
{
	const struct param *p = param_find(key);

	return p != NULL && p->type == PARAM_LIST && !(p->id == PARAM_ALLOW && strchr(key, '.'));
}

/* The values after `key =` or `key +=`, up to and with the ';'. */
static int parse_values(struct parser *p, struct stmt *st, struct cell_err *e)
{
	struct lexer *lx = &p->lx;
	char what[32];

	for (;;) {
		struct span *v;
		unsigned char c;

		if (skip_space(lx, e) < 0)
			return -1;
		c = peek(lx, 0);
		if (at_end(lx) || (c != '"' && c != '\'' && ends_word(c)))
			return err_at(lx, lx->line, lx->col, e, "expected a value for %s, found %s",
				      st->key, describe(lx, what, sizeof(what)));
		if (st->nval == 1 && !is_list(st->key))
			return err_at(lx, lx->line, lx->col, e,
				      "%s is not a list: it takes one value", st->key);
		v = grow(p->vals, &p->capvals, p->nvals + 1, sizeof(*v));
		if (v == NULL)
			return err_nomem(lx, e);
		p->vals = v;
		v[p->nvals++] = (struct span){lx->pos, lx->line, lx->col};
		st->nval++;
		if (scan_value(lx, NULL, &p->vb, e) < 0)
			return -1;
		if (skip_space(lx, e) < 0)
			return -1;
		if (peek(lx, 0) == ';') {
			advance(lx);
			return 0;
		}
		if (peek(lx, 0) != ',')
			return err_at(lx, lx->line, lx->col, e,
				      "expected ';' after the value of %s", st->key);
		advance(lx);
	}
}

/* The name that begins a statement: a parameter's or a jail's. */
static int read_name(struct lexer *lx, char **out, struct cell_err *e)
{
	int line = lx->line, col = lx->col;
	size_t start = lx->pos;
	char what[32];

	if (peek(lx, 0) == '*')
		return err_at(lx, line, col, e, "wildcard jails (*) are not supported");
	if (!is_name_char(peek(lx, 0)))
		return err_at(lx, line, col, e, "expected a parameter or a jail name, found %s",
			      describe(lx, what, sizeof(what)));
	while (is_name_char(peek(lx, 0))) {
		if (lx->pos - start == JAILCONF_MAX_TOKEN)
			return err_at(lx, line, col, e, "name longer than %d bytes",
				      JAILCONF_MAX_TOKEN);
		advance(lx);
	}
	if (peek(lx, 0) == '*')
		return err_at(lx, line, col, e, "wildcard jails (*) are not supported");
	if (lx->pos - start == 8 && memcmp(lx->text + start, ".include", 8) == 0)
		return err_at(lx, line, col, e, ".include is not supported");
	*out = strndup(lx->text + start, lx->pos - start);
	if (*out == NULL)
		return err_nomem(lx, e);
	return 0;
}

/* The first pass: the syntax, and what the second pass needs. */
static int parse_statements(struct parser *p, struct cell_err *e)
{
	struct lexer *lx = &p->lx;
	struct block *b = NULL; /* the open block */
	char what[32];

	for (;;) {
		cleanup_free char *name = NULL;
		int line, col;
		enum op op;

		if (skip_space(lx, e) < 0)
			return -1;
		if (at_end(lx)) {
			if (b != NULL)
				return err_at(lx, b->line, b->col, e,
					      "jail \"%s\" has no closing '}'", b->name);
			return 0;
		}
		line = lx->line;
		col = lx->col;
		if (peek(lx, 0) == ';') { /* an empty statement */
			advance(lx);
			continue;
		}
		if (peek(lx, 0) == '}') {
			if (b == NULL)
				return err_at(lx, line, col, e, "'}' outside of a jail block");
			b = NULL;
			advance(lx);
			continue;
		}
		if (read_name(lx, &name, e) < 0)
			return -1;
		if (skip_space(lx, e) < 0)
			return -1;
		if (peek(lx, 0) == '{') {
			if (b != NULL)
				return err_at(lx, line, col, e,
					      "nested blocks are not supported (\"%s\" inside jail "
					      "\"%s\")",
					      name, b->name);
			if (open_block(p, take_ptr(&name), line, col, e) < 0)
				return -1;
			b = &p->blocks[p->nblocks - 1];
			continue;
		}
		if (peek(lx, 0) == '=') {
			op = OP_SET;
			advance(lx);
		} else if (peek(lx, 0) == '+' && peek(lx, 1) == '=') {
			op = OP_APPEND;
			advance(lx);
			advance(lx);
		} else if (peek(lx, 0) == ';') {
			op = OP_BARE;
			advance(lx);
		} else {
			return err_at(lx, lx->line, lx->col, e,
				      "expected '=', '+=', ';' or '{' after \"%s\", found %s", name,
				      describe(lx, what, sizeof(what)));
		}
		if (strcmp(name, "name") == 0)
			return err_at(lx, line, col, e,
				      "name cannot be set: a jail's name is its block's name");
		if (op == OP_APPEND && !is_list(name))
			return err_at(lx, line, col, e, "+= on %s, which is not a list", name);
		if (add_stmt(p, b, take_ptr(&name), op, line, col, e) < 0)
			return -1;
		if (op != OP_BARE && parse_values(p,
						  b != NULL ? &p->stmts[p->nstmts - 1]
							    : &p->globals[p->nglobals - 1],
						  e) < 0)
			return -1;
	}
}

static size_t hash(const char *key, size_t len)
{
	size_t h = 2166136261u; /* FNV-1a */

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)key[i]) * 16777619u;
	return h;
}

static struct slot *find_slot(const struct merge *m, const char *key, size_t len)
{
	size_t i = hash(key, len) & (m->nslots - 1);

	/* Never full: at least twice as many slots as statements. */
	while (m->slots[i].key != NULL) {
		if (m->slots[i].keylen == len && memcmp(m->slots[i].key, key, len) == 0)
			break;
		i = (i + 1) & (m->nslots - 1);
	}
	return &m->slots[i];
}

/* The current value of a jail's variable KEY: a list's last element,
 * "true" for a bare boolean; NULL when it has none. */
static const char *lookup(const struct merge *m, const char *key, size_t len)
{
	const struct slot *s;
	const struct entry *last;

	if (len == 4 && memcmp(key, "name", 4) == 0)
		return m->jail;
	s = find_slot(m, key, len);
	if (s->key == NULL)
		return NULL;
	last = &m->ents[s->last];
	return last->value != NULL ? last->value : "true";
}

static void merge_free(struct merge *m)
{
	for (size_t i = 0; i < m->nents; i++)
		free(m->ents[i].value);
	free(m->ents);
	free(m->slots);
}

/* Counts BYTES of work against JAILCONF_MAX_TOTAL: copying the globals
 * into each jail must not turn a 1 MiB file into gigabytes. */
static int charge(struct parser *p, const struct lexer *lx, const struct span *at, size_t bytes,
		  struct cell_err *e)
{
	p->total += bytes;
	if (p->total <= JAILCONF_MAX_TOTAL)
		return 0;
	return err_at(lx, at->line, at->col, e,
		      "more than %d MiB of parameters once the globals are copied into each jail",
		      JAILCONF_MAX_TOTAL >> 20);
}

/* Applies one statement to the jail being built. */
static int apply(struct parser *p, struct merge *m, const struct stmt *st, bool global,
		 struct cell_err *e)
{
	struct lexer lx = p->lx;
	size_t n = st->nval != 0 ? st->nval : 1;
	struct slot *s;
	struct entry *v;
	char *values[2] = {NULL, NULL}; /* one value, or a list's first two */
	char **vals = values;
	int r = -1;

	lx.jail = global ? m->jail : NULL;
	if (n > JAILCONF_MAX_PARAMS)
		return err_at(&lx, st->line, st->col, e, "jail \"%s\" has more than %d parameters",
			      m->jail, JAILCONF_MAX_PARAMS);
	if (charge(p, &lx, &(struct span){0, st->line, st->col}, PARAM_COST * n + strlen(st->key),
		   e) < 0)
		return -1;
	if (n > 2) {
		vals = calloc(n, sizeof(*vals));
		if (vals == NULL)
			return err_nomem(&lx, e);
	}
	/* Every value is read before any is set: `bind = ${bind}, "/x:/x"`
	 * sees the list as it was. */
	for (size_t i = 0; i < st->nval; i++) {
		const struct span *sp = &p->vals[st->val0 + i];

		lx.pos = sp->off;
		lx.line = sp->line;
		lx.col = sp->col;
		if (scan_value(&lx, m, &p->vb, e) < 0 ||
		    charge(p, &lx, sp, (lx.pos - sp->off) + p->vb.len, e) < 0)
			goto out;
		vals[i] = strdup(p->vb.buf);
		if (vals[i] == NULL) {
			err_nomem(&lx, e);
			goto out;
		}
	}
	s = find_slot(m, st->key, strlen(st->key));
	if (s->key != NULL && st->op != OP_APPEND) {
		/* `=` replaces: every live entry of the key, all of a list. */
		for (size_t i = s->last; i != SIZE_MAX && !m->ents[i].dead; i = m->ents[i].prev) {
			m->ents[i].dead = true;
			free(m->ents[i].value);
			m->ents[i].value = NULL;
			m->live--;
		}
	}
	if (m->live + n > JAILCONF_MAX_PARAMS) {
		err_at(&lx, st->line, st->col, e, "jail \"%s\" has more than %d parameters",
		       m->jail, JAILCONF_MAX_PARAMS);
		goto out;
	}
	v = grow(m->ents, &m->cap, m->nents + n, sizeof(*v));
	if (v == NULL) {
		err_nomem(&lx, e);
		goto out;
	}
	m->ents = v;
	if (s->key == NULL)
		*s = (struct slot){st->key, strlen(st->key), SIZE_MAX};
	for (size_t i = 0; i < n; i++) {
		v[m->nents] =
			(struct entry){st->key, vals[i], st->line, st->col, global, false, s->last};
		vals[i] = NULL;
		s->last = m->nents++;
		m->live++;
	}
	r = 0;
out:
	for (size_t i = 0; i < n; i++)
		free(vals[i]);
	if (vals != values)
		free(vals);
	return r;
}

static size_t pow2_at_least(size_t n)
{
	size_t p = 16;

	while (p < n)
		p *= 2;
	return p;
}

/* The second pass for one block: its final parameters into *J. */
static int build_jail(struct parser *p, const struct block *b, struct jailconf_jail *j,
		      struct cell_err *e)
{
	struct merge m = {.jail = b->name};
	size_t k = 0;
	int r = -1;

	m.nslots = pow2_at_least(2 * (p->nglobals + b->nstmt));
	m.slots = calloc(m.nslots, sizeof(*m.slots));
	if (m.slots == NULL)
		return err_nomem(&p->lx, e);
	for (size_t i = 0; i < p->nglobals; i++)
		if (apply(p, &m, &p->globals[i], true, e) < 0)
			goto out;
	for (size_t i = 0; i < b->nstmt; i++)
		if (apply(p, &m, &p->stmts[b->stmt0 + i], false, e) < 0)
			goto out;
	j->name = strdup(b->name);
	j->line = b->line;
	j->col = b->col;
	j->params = calloc(m.live != 0 ? m.live : 1, sizeof(*j->params));
	if (j->name == NULL || j->params == NULL) {
		err_nomem(&p->lx, e);
		goto out;
	}
	for (size_t i = 0; i < m.nents; i++) {
		struct jailconf_param *q;

		if (m.ents[i].dead)
			continue;
		q = &j->params[k];
		q->key = strdup(m.ents[i].key);
		if (q->key == NULL) {
			err_nomem(&p->lx, e);
			goto out;
		}
		q->value = take_ptr(&m.ents[i].value);
		q->line = m.ents[i].line;
		q->col = m.ents[i].col;
		q->global = m.ents[i].global;
		j->nparams = ++k;
	}
	r = 0;
out:
	merge_free(&m);
	return r;
}

static void parser_free(struct parser *p)
{
	for (size_t i = 0; i < p->nglobals; i++)
		free(p->globals[i].key);
	for (size_t i = 0; i < p->nstmts; i++)
		free(p->stmts[i].key);
	for (size_t i = 0; i < p->nblocks; i++)
		free(p->blocks[i].name);
	free(p->globals);
	free(p->stmts);
	free(p->vals);
	free(p->blocks);
	free(p);
}

int jailconf_parse(const char *text, size_t len, const char *file, struct jailconf *c,
		   struct cell_err *e)
{
	struct parser *p = calloc(1, sizeof(*p));
	int r = -1;

	memset(c, 0, sizeof(*c));
	if (p == NULL)
		return cell_err_set(e, ENOMEM, "%s", file);
	p->lx = (struct lexer){text, len, 0, 1, 1, file, NULL};
	if (check_text(&p->lx, e) < 0 || parse_statements(p, e) < 0)
		goto out;
	c->file = strdup(file);
	c->jails = calloc(p->nblocks != 0 ? p->nblocks : 1, sizeof(*c->jails));
	if (c->file == NULL || c->jails == NULL) {
		err_nomem(&p->lx, e);
		goto out;
	}
	for (size_t i = 0; i < p->nblocks; i++) {
		c->njails = i + 1; /* freed with the rest if it fails half built */
		if (build_jail(p, &p->blocks[i], &c->jails[i], e) < 0)
			goto out;
	}
	r = 0;
out:
	parser_free(p);
	if (r < 0)
		jailconf_free(c);
	return r;
}

int jailconf_load(const char *path, struct jailconf *c, struct cell_err *e)
{
	cleanup_close int fd = open(path, O_RDONLY | O_CLOEXEC);
	cleanup_free char *buf = NULL;
	size_t len = 0, cap = JAILCONF_MAX_FILE + 1;

	memset(c, 0, sizeof(*c));
	if (fd < 0)
		return cell_err_set(e, errno, "%s", path);
	/* One byte past the limit is enough for the parser to refuse it. */
	buf = malloc(cap);
	if (buf == NULL)
		return cell_err_set(e, ENOMEM, "%s", path);
	while (len < cap) {
		ssize_t n = read(fd, buf + len, cap - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return cell_err_set(e, errno, "%s", path);
		if (n == 0)
			break;
		len += (size_t)n;
	}
	return jailconf_parse(buf, len, path, c, e);
}

void jailconf_free(struct jailconf *c)
{
	for (size_t i = 0; i < c->njails; i++) {
		struct jailconf_jail *j = &c->jails[i];

		for (size_t k = 0; k < j->nparams; k++) {
			free(j->params[k].key);
			free(j->params[k].value);
		}
		free(j->params);
		free(j->name);
	}
	free(c->jails);
	free(c->file);
	memset(c, 0, sizeof(*c));
}

const struct jailconf_jail *jailconf_find(const struct jailconf *c, const char *name)
{
	for (size_t i = 0; i < c->njails; i++)
		if (strcmp(c->jails[i].name, name) == 0)
			return &c->jails[i];
	return NULL;
}

/* A value may hold newlines; a message is one line. */
static void one_line(char *msg)
{
	for (; *msg != '\0'; msg++)
		if ((unsigned char)*msg < 0x20 || *msg == 0x7f)
			*msg = '?';
}

/* "FILE:LINE:COL: key = value" in front of the error about Q, and which
 * jail it is for when Q is a global or NAME_JAIL. */
static int param_error(const struct jailconf *c, const struct jailconf_jail *j,
		       const struct jailconf_param *q, bool name_jail, struct cell_err *e)
{
	char subject[sizeof(e->msg)];

	if (q->value != NULL) {
		/* Quoted as the file would need it: "" or "a b" read right. */
		char *const one[] = {q->value};
		cleanup_free char *value = param_join(one, 1);

		snprintf(subject, sizeof(subject), "%s:%d:%d: %s = %s", c->file, q->line, q->col,
			 q->key, value != NULL ? value : q->value);
	} else
		snprintf(subject, sizeof(subject), "%s:%d:%d: %s", c->file, q->line, q->col,
			 q->key);
	cell_err_spell(e, subject, param_get(e->about.ref) ? param_get(e->about.ref)->name : NULL);
	if (q->global || name_jail) {
		size_t n = strlen(e->msg);

		snprintf(e->msg + n, sizeof(e->msg) - n, " (for jail \"%s\")", j->name);
	}
	one_line(e->msg);
	return -1;
}

/* The parameter of the table that declaration Q sets (exec.start sets
 * the command), or -1. */
static int param_of(const struct jailconf_param *q)
{
	const struct param *p = param_find(q->key);

	if (strcmp(q->key, "exec.start") == 0)
		return PARAM_COMMAND;
	return p != NULL ? (int)p->id : -1;
}

void jailconf_spell(const struct jailconf *c, const struct jailconf_jail *j, struct cell_err *e)
{
	const struct jailconf_param *found = NULL;
	int k = 0;

	if (e->about.param == CELL_ERR_NO_PARAM)
		return;
	/* A list's element INDEX is its INDEX-th declaration; any other
	 * value is its last one. */
	for (size_t i = 0; i < j->nparams; i++) {
		const struct jailconf_param *q = &j->params[i];

		if (param_of(q) != e->about.param)
			continue;
		if (param_get(e->about.param)->type != PARAM_LIST || k++ <= e->about.index)
			found = q;
	}
	/* Found once every jail is parsed, maybe as `cell up` starts
	 * several: the jail is named even inside its block. */
	if (found != NULL) {
		param_error(c, j, found, true, e);
		return;
	}
	/* Not declared (a default): the jail's block, and the name. */
	{
		char subject[sizeof(e->msg)];
		const struct param *p = param_get(e->about.param);
		const struct param *ref = param_get(e->about.ref);

		snprintf(subject, sizeof(subject), "%s:%d:%d: jail \"%s\": %s", c->file, j->line,
			 j->col, j->name, p->name);
		cell_err_spell(e, subject, ref != NULL ? ref->name : NULL);
		one_line(e->msg);
	}
}

int jailconf_exec_timeout(const struct jailconf_jail *j)
{
	long long t = JAILCONF_EXEC_TIMEOUT;

	/* The last one wins, as for any parameter; jailconf_to_spec()
	 * checked each. */
	for (size_t i = 0; i < j->nparams; i++)
		if (strcmp(j->params[i].key, "exec.timeout") == 0 && j->params[i].value != NULL)
			spec_parse_count(j->params[i].value, &t);
	return (int)t;
}

int jailconf_to_spec(const struct jailconf *c, const struct jailconf_jail *j, struct jail_spec *s,
		     char **exec_stop, struct cell_err *e)
{
	const struct jailconf_param *start = NULL, *stop = NULL, *command = NULL;
	struct jailconf_param name = {"name", j->name, j->line, j->col, false};

	if (exec_stop != NULL)
		*exec_stop = NULL;
	if (param_set(s, "name", j->name, NULL, e) < 0)
		return param_error(c, j, &name, false, e);
	for (size_t i = 0; i < j->nparams; i++) {
		const struct jailconf_param *q = &j->params[i];

		if (strcmp(q->key, "exec.timeout") == 0) {
			long long t;

			if (q->value == NULL || spec_parse_count(q->value, &t) < 0 ||
			    t > JAILCONF_EXEC_TIMEOUT_MAX) {
				cell_err_set(e, 0, "expected seconds, 0 to %d (0: no limit)",
					     JAILCONF_EXEC_TIMEOUT_MAX);
				return param_error(c, j, q, false, e);
			}
			continue;
		}
		if (is_exec(q->key)) {
			if (q->value == NULL || q->value[0] == '\0') {
				cell_err_set(e, 0, "needs a command");
				return param_error(c, j, q, false, e);
			}
			if (strcmp(q->key, "exec.start") == 0)
				start = q;
			else
				stop = q;
			continue;
		}
		if (strcmp(q->key, "command") == 0)
			command = q;
		if (param_find(q->key) == NULL)
			return cell_err_set(e, 0, "%s:%d:%d: unknown parameter \"%s\"", c->file,
					    q->line, q->col, q->key);
		if (param_set(s, q->key, q->value, NULL, e) < 0)
			return param_error(c, j, q, false, e);
	}
	if (start != NULL && command != NULL) {
		cell_err_set(e, 0, "exec.start gives the command already");
		return param_error(c, j, command, false, e);
	}
	if (start == NULL && command == NULL)
		return cell_err_set(e, 0,
				    "%s:%d:%d: jail \"%s\": exec.start or command is required",
				    c->file, j->line, j->col, j->name);
	if (start != NULL) {
		char *argv[] = {"/bin/sh", "-c", start->value, NULL};

		if (spec_set_argv(s, 3, argv, e) < 0)
			return -1;
	}
	if (stop != NULL && exec_stop != NULL) {
		*exec_stop = strdup(stop->value);
		if (*exec_stop == NULL)
			return cell_err_set(e, ENOMEM, "%s: exec.stop", c->file);
	}
	return 0;
}
