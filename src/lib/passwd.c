/*
 * passwd.c - a jail's /etc/passwd and /etc/group, parsed from their text.
 * See passwd.h.  Nothing here trusts the text: every field is a (start,
 * length) pair inside the buffer, checked before it is used, and nothing
 * is copied but into fixed buffers it is known to fit.
 */
#include "passwd.h"

#include <limits.h>
#include <string.h>

/* One field of a line: not NUL-terminated. */
struct field {
	const char *at;
	size_t len;
};

#define PASSWD_FIELDS 7 /* name:password:uid:gid:gecos:home:shell */
#define GROUP_FIELDS  4 /* name:password:gid:members */

/*
 * The next line of [*AT, END) split at ':' into exactly N fields; *AT
 * moves past it.  0: a line in F; 1: a line that is not well formed
 * (another count of fields, a NUL byte, a NIS entry); -1: no more lines.
 */
static int next_line(const char **at, const char *end, struct field *f, size_t n)
{
	const char *line = *at, *nl, *p;
	size_t k = 0;

	if (line >= end)
		return -1;
	nl = memchr(line, '\n', (size_t)(end - line));
	if (nl == NULL)
		nl = end;
	*at = nl < end ? nl + 1 : end;
	if (nl > line && nl[-1] == '\r')
		nl--;
	if (nl == line || memchr(line, '\0', (size_t)(nl - line)) != NULL || line[0] == '+' ||
	    line[0] == '-' || line[0] == '#')
		return 1;
	for (p = line; k < n; k++) {
		const char *colon = memchr(p, ':', (size_t)(nl - p));
		const char *stop = colon != NULL ? colon : nl;

		f[k].at = p;
		f[k].len = (size_t)(stop - p);
		if (colon == NULL)
			break;
		p = colon + 1;
	}
	/* Exactly N: one short is malformed, one more (a ':' in the last)
	 * too. */
	return k == n - 1 && memchr(f[k].at, ':', f[k].len) == NULL ? 0 : 1;
}

/* A decimal id of 1 to 10 digits below UINT_MAX ((uid_t)-1 is no id). */
static bool field_id(const struct field *f, unsigned int *id)
{
	unsigned long long v = 0;

	if (f->len == 0 || f->len > 10)
		return false;
	for (size_t i = 0; i < f->len; i++) {
		if (f->at[i] < '0' || f->at[i] > '9')
			return false;
		v = v * 10 + (unsigned long long)(f->at[i] - '0');
	}
	if (v >= UINT_MAX)
		return false;
	*id = (unsigned int)v;
	return true;
}

static bool field_is(const struct field *f, const char *s)
{
	return f->len == strlen(s) && memcmp(f->at, s, f->len) == 0;
}

/* A passwd line's fields into *U: false when the name or ids are bad. */
static bool fill_user(const struct field *f, struct passwd_user *u)
{
	unsigned int uid, gid;

	if (f[0].len == 0 || f[0].len > PASSWD_NAME_MAX || !field_id(&f[2], &uid) ||
	    !field_id(&f[3], &gid))
		return false;
	memcpy(u->name, f[0].at, f[0].len);
	u->name[f[0].len] = '\0';
	u->uid = uid;
	u->gid = gid;
	/* HOME must be an absolute path: "" or "home/x" means "/". */
	if (f[5].len == 0 || f[5].len > PASSWD_HOME_MAX || f[5].at[0] != '/') {
		strcpy(u->home, "/");
	} else {
		memcpy(u->home, f[5].at, f[5].len);
		u->home[f[5].len] = '\0';
	}
	return true;
}

int passwd_find(const char *text, size_t len, const char *name, uid_t uid, struct passwd_user *u)
{
	const char *at = text, *end = text + len;
	struct field f[PASSWD_FIELDS];
	int r;

	while ((r = next_line(&at, end, f, PASSWD_FIELDS)) >= 0) {
		if (r > 0 || (name != NULL && !field_is(&f[0], name)))
			continue;
		if (!fill_user(f, u))
			continue;
		if (name != NULL || u->uid == uid)
			return 1;
	}
	return 0;
}

int group_find(const char *text, size_t len, const char *name, gid_t *gid)
{
	const char *at = text, *end = text + len;
	struct field f[GROUP_FIELDS];
	unsigned int id;
	int r;

	while ((r = next_line(&at, end, f, GROUP_FIELDS)) >= 0)
		if (r == 0 && field_is(&f[0], name) && field_id(&f[2], &id)) {
			*gid = id;
			return 1;
		}
	return 0;
}

/* Whether the comma-separated list F holds USER. */
static bool list_holds(const struct field *f, const char *user)
{
	size_t ulen = strlen(user);
	const char *p = f->at, *end = f->at + f->len;

	while (p < end) {
		const char *comma = memchr(p, ',', (size_t)(end - p));
		const char *stop = comma != NULL ? comma : end;

		if ((size_t)(stop - p) == ulen && memcmp(p, user, ulen) == 0)
			return true;
		p = stop + 1;
	}
	return false;
}

int group_members(const char *text, size_t len, const char *user, gid_t *gids, size_t max,
		  size_t *n)
{
	const char *at = text, *end = text + len;
	struct field f[GROUP_FIELDS];
	unsigned int id;
	int r;

	*n = 0;
	while ((r = next_line(&at, end, f, GROUP_FIELDS)) >= 0) {
		bool seen = false;

		if (r > 0 || !field_id(&f[2], &id) || !list_holds(&f[3], user))
			continue;
		for (size_t i = 0; i < *n; i++)
			seen = seen || gids[i] == id;
		if (seen)
			continue;
		if (*n == max)
			return -1;
		gids[(*n)++] = id;
	}
	return 0;
}

bool passwd_valid_name(const char *name)
{
	size_t n = strlen(name), digits = 0;

	if (n == 0 || n > PASSWD_NAME_MAX || name[0] == '-')
		return false;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)name[i];

		if (c >= '0' && c <= '9')
			digits++;
		else if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '.' ||
			   c == '_' || c == '-' || (c == '$' && i == n - 1)))
			return false;
	}
	return digits < n;
}
