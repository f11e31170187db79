/*
 * err.c - building error messages with context.  See err.h.
 */
#include "err.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static void about_none(struct cell_err *e)
{
	e->about = (struct cell_err_about){CELL_ERR_NO_PARAM, 0, CELL_ERR_NO_PARAM, 0, 0, 0};
}

void cell_err_clear(struct cell_err *e)
{
	e->errnum = 0;
	e->exit_code = CELL_EXIT_ERROR;
	about_none(e);
	e->msg[0] = '\0';
}

static void vset(struct cell_err *e, int errnum, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));

static void vset(struct cell_err *e, int errnum, const char *fmt, va_list ap)
{
	int n;

	e->errnum = errnum;
	e->exit_code = CELL_EXIT_ERROR;
	about_none(e);
	n = vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	if (n < 0)
		n = 0;
	if (errnum == 0)
		return;
	if (n == 0) {
		/* The reason alone: the subject will say what it is about. */
		strncpy(e->msg, strerror(errnum), sizeof(e->msg) - 1);
		e->msg[sizeof(e->msg) - 1] = '\0';
	} else if ((size_t)n + 2 < sizeof(e->msg)) {
		size_t at = (size_t)n;

		memcpy(e->msg + at, ": ", 2);
		at += 2;
		strncpy(e->msg + at, strerror(errnum), sizeof(e->msg) - at - 1);
		e->msg[sizeof(e->msg) - 1] = '\0';
	}
}

int cell_err_set(struct cell_err *e, int errnum, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vset(e, errnum, fmt, ap);
	va_end(ap);
	return -1;
}

int cell_err_param(struct cell_err *e, int param, int index, int errnum, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vset(e, errnum, fmt, ap);
	va_end(ap);
	e->about.param = param;
	e->about.index = index;
	return -1;
}

int cell_err_ref(struct cell_err *e, int ref, const char *name)
{
	const char *at = NULL;

	/* The last one: a message names the other parameter after its
	 * own words ("no memory cgroup (started without memory)"). */
	for (const char *p = e->msg + e->about.at; (p = strstr(p, name)) != NULL; p++)
		at = p;

	if (at != NULL) {
		e->about.ref = ref;
		e->about.ref_at = (unsigned int)(at - e->msg);
		e->about.ref_len = (unsigned int)strlen(name);
	}
	return -1;
}

/* Replaces LEN bytes of the message at AT by TEXT, truncating the end. */
static void splice(struct cell_err *e, size_t at, size_t len, const char *text)
{
	char old[sizeof(e->msg)];
	size_t tlen = strlen(text);

	memcpy(old, e->msg, sizeof(old));
	if (at > strlen(old))
		at = strlen(old);
	snprintf(e->msg + at, sizeof(e->msg) - at, "%.*s%s", (int)tlen, text, old + at + len);
}

void cell_err_spell(struct cell_err *e, const char *subject, const char *ref_text)
{
	size_t at = e->about.at;

	/* The reference lies after the subject's place: replaced first, it
	 * leaves that place where it is. */
	if (e->about.ref != CELL_ERR_NO_PARAM && ref_text != NULL &&
	    e->about.ref_at + e->about.ref_len <= strlen(e->msg))
		splice(e, e->about.ref_at, e->about.ref_len, ref_text);
	if (subject != NULL) {
		char text[sizeof(e->msg)];

		snprintf(text, sizeof(text), "%s%s", subject, e->msg[at] != '\0' ? ": " : "");
		splice(e, at, 0, text);
	}
	about_none(e);
}

int cell_err_prefix(struct cell_err *e, const char *fmt, ...)
{
	char old[sizeof(e->msg)];
	size_t n;
	va_list ap;
	int r;

	memcpy(old, e->msg, sizeof(old));
	va_start(ap, fmt);
	r = vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	n = r < 0 ? 0 : (size_t)r;
	/* Truncation keeps the context, which is what a reader needs first. */
	if (n + 2 < sizeof(e->msg)) {
		memcpy(e->msg + n, ": ", 2);
		n += 2;
		strncpy(e->msg + n, old, sizeof(e->msg) - n - 1);
		e->msg[sizeof(e->msg) - 1] = '\0';
	} else {
		n = strlen(e->msg);
	}
	/* The subject's place and the reference move with the text. */
	e->about.at += (unsigned int)n;
	e->about.ref_at += (unsigned int)n;
	if (e->about.at > strlen(e->msg))
		e->about.at = (unsigned int)strlen(e->msg);
	return -1;
}
