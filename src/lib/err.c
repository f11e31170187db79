/*
 * err.c - building error messages with context.  See err.h.
 */
#include "err.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void cell_err_clear(struct cell_err *e)
{
	e->errnum = 0;
	e->exit_code = CELL_EXIT_ERROR;
	e->msg[0] = '\0';
}

int cell_err_set(struct cell_err *e, int errnum, const char *fmt, ...)
{
	va_list ap;
	int n;

	e->errnum = errnum;
	e->exit_code = CELL_EXIT_ERROR;
	va_start(ap, fmt);
	n = vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	if (n < 0)
		n = 0;
	if (errnum != 0 && (size_t)n + 2 < sizeof(e->msg)) {
		size_t at = (size_t)n;

		memcpy(e->msg + at, ": ", 2);
		at += 2;
		strncpy(e->msg + at, strerror(errnum), sizeof(e->msg) - at - 1);
		e->msg[sizeof(e->msg) - 1] = '\0';
	}
	return -1;
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
	}
	return -1;
}
