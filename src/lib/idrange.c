/*
 * idrange.c - the host ids a jail's user namespace maps to.
 *
 * A jail's root is not the host's root: its user namespace maps the
 * jail's ids 0..65535 to a range of 65536 host ids that no host user and
 * no other running jail holds, so that what the jail's processes own and
 * count (files, signals, per-uid kernel quotas such as inotify
 * instances) is theirs alone.
 *
 * The pool: cell's entries in /etc/subuid and /etc/subgid (user "cell";
 * `make install` adds them), else the built-in [2^30, 2^31), which is
 * refused when a host user, a host group or another subordinate range
 * lies in it.
 *
 * Which ranges are held is machine-wide, whatever the state root (tests
 * use private roots; two roots must never hand out one range): one file
 * per held range in IDRANGE_DIR, named by its first uid and gid
 * ("u1073741824-g1073741824"), made O_EXCL under an flock of the
 * directory and naming its owner: the jail's state directory (device,
 * inode), its name and its state root.  A new range is the first of the
 * pool that overlaps no held one, found from the names alone (one
 * listing, nothing opened), so that the start stays flat with a
 * thousand jails.  When the pool is full, a file whose owner is gone (no
 * such directory, or another one there now) and under whose uids no
 * process of the host runs is stale and removed, and the search runs
 * again.  The jail's record names its range; removing the jail gives it
 * back (jail.c), and so does a launch that fails (launch.c).
 */
#include "idrange.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "proc.h"
#include "untrusted.h"

#define SUBID_USER "cell"
#define ETC_MAX	   (4U << 20) /* /etc/passwd of some 50000 users */

/* Reads PATH whole (NUL-terminated) into *OUT, at most ETC_MAX bytes of
 * a regular file (untrusted_read(): the same bounded read that jail
 * files get); *OUT NULL when there is no such file. */
static int read_file(const char *path, char **out, struct cell_err *e)
{
	size_t len;

	*out = NULL;
	if (untrusted_read(AT_FDCWD, path, 0, ETC_MAX, out, &len, e) == 0)
		return 0;
	*out = NULL;
	return e->errnum == ENOENT ? 0 : -1;
}

/* The next line of *P (NUL-terminated in place), or NULL at the end. */
static char *next_line(char **p)
{
	char *line = *p, *nl;

	if (line == NULL || *line == '\0')
		return NULL;
	nl = strchr(line, '\n');
	if (nl != NULL) {
		*nl = '\0';
		*p = nl + 1;
	} else {
		*p = line + strlen(line);
	}
	return line;
}

/* Field N (from 0) of a colon-separated LINE as a number; -1 if none. */
static long long field_number(const char *line, int n)
{
	char *end;
	unsigned long long v;

	for (int i = 0; i < n; i++) {
		line = strchr(line, ':');
		if (line == NULL)
			return -1;
		line++;
	}
	if (!isdigit((unsigned char)*line))
		return -1;
	errno = 0;
	v = strtoull(line, &end, 10);
	if (errno != 0 || (*end != ':' && *end != '\0') || v > UINT32_MAX)
		return -1;
	return (long long)v;
}

/* One "NAME:START:COUNT" line of /etc/subuid or /etc/subgid. */
struct subid {
	unsigned long long start, count;
	bool cell;
};

static bool parse_subid(const char *line, struct subid *s)
{
	long long start = field_number(line, 1), count = field_number(line, 2);
	size_t nl = strcspn(line, ":");

	if (start < 0 || count <= 0)
		return false;
	s->start = (unsigned long long)start;
	s->count = (unsigned long long)count;
	s->cell = nl == strlen(SUBID_USER) && strncmp(line, SUBID_USER, nl) == 0;
	return true;
}

static bool overlaps(unsigned long long a, unsigned long long alen, unsigned long long b,
		     unsigned long long blen)
{
	return a < b + blen && b < a + alen;
}

/* An entry of a subordinate-id file that lies in the built-in pool. */
struct subid_clash {
	bool found;
	char name[64];
	unsigned long long start, count;
};

/*
 * Reads a subordinate-id file: cell's first entry into *CELL (count 0
 * when it has none), and the first entry of anyone that lies in the
 * built-in pool into *CLASH: an error only if the built-in pool is the
 * one used (idrange_pool()), which one read of the file tells.
 */
static int read_subids(const char *path, struct subid *cell, struct subid_clash *clash,
		       struct cell_err *e)
{
	cleanup_free char *text = NULL;
	char *p, *line;

	cell->count = 0;
	clash->found = false;
	if (read_file(path, &text, e) < 0)
		return -1;
	p = text;
	while ((line = next_line(&p)) != NULL) {
		struct subid s;

		if (!parse_subid(line, &s))
			continue;
		if (s.cell && cell->count == 0)
			*cell = s;
		if (!clash->found &&
		    overlaps(s.start, s.count, IDRANGE_DEFAULT_BASE, IDRANGE_DEFAULT_COUNT)) {
			clash->found = true;
			snprintf(clash->name, sizeof(clash->name), "%.*s", (int)strcspn(line, ":"),
				 line);
			clash->start = s.start;
			clash->count = s.count;
		}
	}
	return 0;
}

static int clash_error(const char *path, const struct subid_clash *c, struct cell_err *e)
{
	return cell_err_set(e, 0,
			    "user namespace: the built-in id range %u-%u overlaps "
			    "%s's %s:%llu:%llu",
			    IDRANGE_DEFAULT_BASE,
			    IDRANGE_DEFAULT_BASE + (IDRANGE_DEFAULT_COUNT - 1), path, c->name,
			    c->start, c->count);
}

/* The id in field 2 (from 0) of the line P..END, or -1: a scan of its
 * bytes, no more (this runs on every start, over every user). */
static long long id_field(const char *p, const char *end)
{
	unsigned long long v = 0;
	const char *digits;

	for (int field = 0; field < 2; field++) {
		p = memchr(p, ':', (size_t)(end - p));
		if (p == NULL)
			return -1;
		p++;
	}
	for (digits = p; p < end && *p >= '0' && *p <= '9' && p - digits < 11; p++)
		v = v * 10 + (unsigned long long)(*p - '0');
	if (p == digits || p - digits > 10 || (p < end && *p != ':'))
		return -1;
	return (long long)v;
}

/* A user of PASSWD or a group of GROUP (field 2, the id) in the
 * built-in pool. */
static int check_ids_file(const char *path, const char *what, struct cell_err *e)
{
	cleanup_free char *text = NULL;
	const char *p, *end;

	if (read_file(path, &text, e) < 0)
		return -1;
	if (text == NULL)
		return 0; /* no such file: no such ids */
	for (p = text; *p != '\0'; p = end + (*end != '\0')) {
		long long id;

		end = strchrnul(p, '\n');
		id = id_field(p, end);
		if (id >= 0 && overlaps((unsigned long long)id, 1, IDRANGE_DEFAULT_BASE,
					IDRANGE_DEFAULT_COUNT))
			return cell_err_set(e, 0,
					    "user namespace: the built-in id range %u-%u holds "
					    "%s %.*s (%lld, %s)",
					    IDRANGE_DEFAULT_BASE,
					    IDRANGE_DEFAULT_BASE + (IDRANGE_DEFAULT_COUNT - 1),
					    what, (int)strcspn(p, ":\n"), p, id, path);
	}
	return 0;
}

static const char fix_hint[] = "give user cell ranges of its own in /etc/subuid and "
			       "/etc/subgid (make install adds them), or run with --userns host";

/* Ends E's message with what to do about it. */
static int append_hint(struct cell_err *e)
{
	size_t n = strlen(e->msg);

	snprintf(e->msg + n, sizeof(e->msg) - n, ": %s", fix_hint);
	return -1;
}

int idrange_pool(const char *subuid, const char *subgid, const char *passwd, const char *group,
		 struct idpool *p, struct cell_err *e)
{
	struct subid u, g;
	struct subid_clash uc, gc;
	unsigned long long n;

	if (read_subids(subuid, &u, &uc, e) < 0 || read_subids(subgid, &g, &gc, e) < 0)
		return -1;
	if (u.count == 0 && g.count == 0) {
		/* The built-in pool: checked against every id the host
		 * gives out, every time (they may change). */
		if ((uc.found && clash_error(subuid, &uc, e) < 0) ||
		    (gc.found && clash_error(subgid, &gc, e) < 0) ||
		    check_ids_file(passwd, "user", e) < 0 || check_ids_file(group, "group", e) < 0)
			return append_hint(e);
		*p = (struct idpool){IDRANGE_DEFAULT_BASE, IDRANGE_DEFAULT_BASE,
				     IDRANGE_DEFAULT_COUNT, false};
		return 0;
	}
	if (u.count == 0 || g.count == 0)
		return cell_err_set(e, 0, "user namespace: user %s has ids in %s but not in %s",
				    SUBID_USER, u.count ? subuid : subgid,
				    u.count ? subgid : subuid);
	n = u.count < g.count ? u.count : g.count;
	n -= n % IDRANGE_SIZE;
	if (n == 0 || u.start + n > UINT32_MAX || g.start + n > UINT32_MAX)
		return cell_err_set(e, 0,
				    "user namespace: %s's ranges in %s and %s hold no %u ids "
				    "below 2^32-1",
				    SUBID_USER, subuid, subgid, IDRANGE_SIZE);
	*p = (struct idpool){(uid_t)u.start, (gid_t)g.start, (unsigned int)n, true};
	return 0;
}

/* --- the held ranges ------------------------------------------------ */

/* Opens (making it, 0700) the directory of held ranges: root's own, a
 * directory, writable by no one else. */
static int open_slots(const char *slots, bool create, struct cell_err *e)
{
	cleanup_close int fd = -1;
	struct stat st;

	if (create && mkdir(slots, 0700) < 0 && errno != EEXIST)
		return cell_err_set(e, errno, "user namespace: mkdir %s", slots);
	fd = open(slots, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return cell_err_set(e, errno, "user namespace: open %s", slots);
	if (fstat(fd, &st) < 0)
		return cell_err_set(e, errno, "user namespace: %s", slots);
	if (st.st_uid != geteuid() || (st.st_mode & 022) != 0)
		return cell_err_set(
			e, EPERM, "user namespace: %s: not cell's (owner %u, mode %o): refused",
			slots, (unsigned int)st.st_uid, (unsigned int)(st.st_mode & 07777));
	while (flock(fd, LOCK_EX) < 0)
		if (errno != EINTR)
			return cell_err_set(e, errno, "user namespace: lock %s", slots);
	return take_fd(&fd);
}

/* A decimal number at *P, up to 19 digits, *P moved past it. */
static bool parse_decimal(const char **p, unsigned long long *v)
{
	const char *s = *p;

	*v = 0;
	while (**p >= '0' && **p <= '9' && *p - s < 20)
		*v = *v * 10 + (unsigned long long)(*(*p)++ - '0');
	return *p != s && *p - s < 20;
}

/* "uUID-gGID": parsed by hand, as every start lists every held range
 * (sscanf() cost some 2000 instructions a name). */
static bool slot_name_parse(const char *name, unsigned long long *u, unsigned long long *g)
{
	const char *p = name;

	if (*p++ != 'u' || !parse_decimal(&p, u) || *p++ != '-' || *p++ != 'g' ||
	    !parse_decimal(&p, g) || *p != '\0')
		return false;
	return *u <= UINT32_MAX && *g <= UINT32_MAX;
}

/* Marks the ranges k of the pool (ids BASE + k*SIZE on) that meet the
 * held range [ID, ID + SIZE). */
static void mark(uint8_t *map, unsigned int n, unsigned long long base, unsigned long long id)
{
	unsigned long long lo, hi;

	if (id + IDRANGE_SIZE <= base)
		return;
	lo = id > base ? (id - base) / IDRANGE_SIZE : 0;
	hi = (id + IDRANGE_SIZE - 1 - base) / IDRANGE_SIZE;
	for (unsigned long long k = lo; k <= hi && k < n; k++)
		map[k / 8] |= (uint8_t)(1U << (k % 8));
}

/* The first range of POOL that overlaps no held one: its index, -1 when
 * all are held, -2 on an error. */
static long long first_free(int dir, const struct idpool *pool, struct cell_err *e)
{
	unsigned int n = pool->count / IDRANGE_SIZE;
	cleanup_free uint8_t *map = calloc((n + 7) / 8, 1);
	struct dirent *de;
	DIR *d;

	if (map == NULL)
		return cell_err_set(e, ENOMEM, "user namespace: the held ranges"), -2;
	d = fdopendir(openat(dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
	if (d == NULL)
		return cell_err_set(e, errno, "user namespace: list %s", IDRANGE_DIR), -2;
	while ((de = readdir(d)) != NULL) {
		unsigned long long u, g;

		if (!slot_name_parse(de->d_name, &u, &g))
			continue;
		mark(map, n, pool->uid, u);
		mark(map, n, pool->gid, g);
	}
	closedir(d);
	for (unsigned int k = 0; k < n; k++)
		if (!(map[k / 8] & (1U << (k % 8))))
			return k;
	return -1;
}

/* What a slot file says of its owner. */
struct owner {
	unsigned long long dev, ino;
	char name[256];
	char root[4096];
};

static int owner_write(int fd, const struct stat *jail, const char *name, const char *root)
{
	char buf[8192];
	int n = snprintf(buf, sizeof(buf), "dev %llu\nino %llu\nname %s\nroot %s\n",
			 (unsigned long long)jail->st_dev, (unsigned long long)jail->st_ino, name,
			 root);

	if (n < 0 || (size_t)n >= sizeof(buf)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return write(fd, buf, (size_t)n) == n ? 0 : -1;
}

static bool owner_read(int dir, const char *slot, struct owner *o)
{
	char buf[8192], *p, *line;

	memset(o, 0, sizeof(*o));
	if (proc_read_text_at(dir, slot, buf, sizeof(buf)) < 0)
		return false;
	p = buf;
	while ((line = next_line(&p)) != NULL) {
		const char *v = line + 4;

		if (strncmp(line, "dev ", 4) == 0 && parse_decimal(&v, &o->dev))
			continue;
		if (strncmp(line, "ino ", 4) == 0 && parse_decimal(&v, &o->ino))
			continue;
		if (strncmp(line, "name ", 5) == 0)
			snprintf(o->name, sizeof(o->name), "%s", line + 5);
		else if (strncmp(line, "root ", 5) == 0)
			snprintf(o->root, sizeof(o->root), "%s", line + 5);
	}
	return o->ino != 0;
}

/* Whether the jail directory O names is still there. */
static bool owner_exists(const struct owner *o)
{
	char path[4096 + 256 + 2];
	struct stat st;

	if (o->root[0] != '/' || o->name[0] == '\0')
		return false;
	snprintf(path, sizeof(path), "%s/%s", o->root, o->name);
	if (fstatat(AT_FDCWD, path, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno != ENOENT && errno != ENOTDIR; /* in doubt: it is */
	return (unsigned long long)st.st_dev == o->dev && (unsigned long long)st.st_ino == o->ino;
}

/* The real, effective, saved and fs uids of the host's processes. */
struct uids {
	unsigned long long *v;
	size_t n, cap;
};

static void host_uids(struct uids *u)
{
	DIR *d = opendir("/proc");
	struct dirent *de;

	if (d == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		char path[300], buf[4096], *l;
		unsigned long long id[4];

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/status", de->d_name);
		if (proc_read_text(path, buf, sizeof(buf)) < 0 ||
		    (l = strstr(buf, "\nUid:")) == NULL ||
		    sscanf(l + 5, "%llu %llu %llu %llu", &id[0], &id[1], &id[2], &id[3]) != 4)
			continue;
		if (u->n + 4 > u->cap) {
			unsigned long long *nv =
				realloc(u->v, (u->cap = u->cap * 2 + 256) * sizeof(*nv));

			if (nv == NULL)
				break;
			u->v = nv;
		}
		memcpy(u->v + u->n, id, sizeof(id));
		u->n += 4;
	}
	closedir(d);
}

static bool uids_in(const struct uids *u, unsigned long long base)
{
	for (size_t i = 0; i < u->n; i++)
		if (u->v[i] >= base && u->v[i] < base + IDRANGE_SIZE)
			return true;
	return false;
}

/* Removes the held ranges whose owner is gone and under whose uids no
 * process runs (a jail removed without cell, or a start killed before
 * its record named the range).  Returns how many went. */
static int sweep_stale(int dir)
{
	struct uids uids = {NULL, 0, 0};
	bool listed = false;
	struct dirent *de;
	int freed = 0;
	DIR *d = fdopendir(openat(dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));

	if (d == NULL)
		return 0;
	while ((de = readdir(d)) != NULL) {
		unsigned long long u, g;
		struct owner o;

		if (!slot_name_parse(de->d_name, &u, &g))
			continue;
		if (owner_read(dir, de->d_name, &o) && owner_exists(&o))
			continue;
		if (!listed) {
			host_uids(&uids);
			listed = true;
		}
		if (!uids_in(&uids, u) && unlinkat(dir, de->d_name, 0) == 0)
			freed++;
	}
	closedir(d);
	free(uids.v);
	return freed;
}

/* Makes the slot file of range K of POOL, naming the owner. */
static int make_slot(int dir, const struct idpool *pool, unsigned long long k,
		     const struct stat *jail, const char *name, const char *root, struct idrange *r,
		     struct cell_err *e)
{
	char slot[64];
	cleanup_close int fd = -1;

	r->uid = (uid_t)(pool->uid + k * IDRANGE_SIZE);
	r->gid = (gid_t)(pool->gid + k * IDRANGE_SIZE);
	r->count = IDRANGE_SIZE;
	snprintf(slot, sizeof(slot), "u%u-g%u", (unsigned int)r->uid, (unsigned int)r->gid);
	fd = openat(dir, slot, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return cell_err_set(e, errno, "user namespace: %s/%s", IDRANGE_DIR, slot);
	if (owner_write(fd, jail, name, root) < 0) {
		int err = errno;

		unlinkat(dir, slot, 0);
		return cell_err_set(e, err, "user namespace: write %s/%s", IDRANGE_DIR, slot);
	}
	return 0;
}

int idrange_take(const char *slots, const struct idpool *pool, const char *state_root,
		 const char *name, int jail_dirfd, struct idrange *r, struct cell_err *e)
{
	cleanup_close int dir = -1;
	struct stat jail;

	r->count = 0;
	if (fstat(jail_dirfd, &jail) < 0)
		return cell_err_set(e, errno, "user namespace: jail %s", name);
	dir = open_slots(slots, true, e);
	if (dir < 0)
		return -1;
	for (int round = 0; round < 2; round++) {
		long long k = first_free(dir, pool, e);

		if (k < -1)
			return -1;
		if (k >= 0)
			return make_slot(dir, pool, (unsigned long long)k, &jail, name, state_root,
					 r, e);
		if (round == 0 && sweep_stale(dir) == 0)
			break;
	}
	return cell_err_set(e, 0,
			    "user namespace: all %u id ranges of %s are held by running jails",
			    pool->count / IDRANGE_SIZE,
			    pool->subids ? "user cell's /etc/subuid and /etc/subgid entries"
					 : "the built-in pool");
}

int idrange_acquire(const char *state_root, const char *name, int jail_dirfd, struct idrange *r,
		    struct cell_err *e)
{
	struct idpool pool;

	if (idrange_pool("/etc/subuid", "/etc/subgid", "/etc/passwd", "/etc/group", &pool, e) < 0)
		return -1;
	return idrange_take(IDRANGE_DIR, &pool, state_root, name, jail_dirfd, r, e);
}

void idrange_release_in(const char *slots, const struct idrange *r, int jail_dirfd)
{
	struct cell_err ignored;
	cleanup_close int dir = -1;
	struct stat jail;
	struct owner o;
	char slot[64];

	if (r->count == 0 || jail_dirfd < 0 || fstat(jail_dirfd, &jail) < 0)
		return;
	dir = open_slots(slots, false, &ignored);
	if (dir < 0)
		return;
	snprintf(slot, sizeof(slot), "u%u-g%u", (unsigned int)r->uid, (unsigned int)r->gid);
	if (owner_read(dir, slot, &o) && o.dev == (unsigned long long)jail.st_dev &&
	    o.ino == (unsigned long long)jail.st_ino)
		unlinkat(dir, slot, 0);
}

void idrange_release(const struct idrange *r, int jail_dirfd)
{
	idrange_release_in(IDRANGE_DIR, r, jail_dirfd);
}

void idrange_release_owner_in(const char *slots, int jail_dirfd)
{
	struct cell_err ignored;
	cleanup_close int dir = -1;
	struct stat jail;
	struct dirent *de;
	DIR *d;

	if (jail_dirfd < 0 || fstat(jail_dirfd, &jail) < 0)
		return;
	dir = open_slots(slots, false, &ignored);
	if (dir < 0 ||
	    (d = fdopendir(openat(dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC))) == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		unsigned long long u, g;
		struct owner o;

		if (slot_name_parse(de->d_name, &u, &g) && owner_read(dir, de->d_name, &o) &&
		    o.dev == (unsigned long long)jail.st_dev &&
		    o.ino == (unsigned long long)jail.st_ino)
			unlinkat(dir, de->d_name, 0);
	}
	closedir(d);
}

void idrange_release_owner(int jail_dirfd)
{
	idrange_release_owner_in(IDRANGE_DIR, jail_dirfd);
}

json_t *idrange_to_json(const struct idrange *r)
{
	char u[48], g[48];

	if (r->count == 0)
		return json_null();
	snprintf(u, sizeof(u), "0 %u %u", (unsigned int)r->uid, r->count);
	snprintf(g, sizeof(g), "0 %u %u", (unsigned int)r->gid, r->count);
	return json_pack("{s:s, s:s}", "uid_map", u, "gid_map", g);
}

void idrange_from_json(const json_t *j, struct idrange *r)
{
	const char *u = json_string_value(json_object_get(j, "uid_map"));
	const char *g = json_string_value(json_object_get(j, "gid_map"));
	unsigned int uid, gid, nu, ng;

	r->count = 0;
	if (u == NULL || g == NULL || sscanf(u, "0 %u %u", &uid, &nu) != 2 ||
	    sscanf(g, "0 %u %u", &gid, &ng) != 2 || nu != ng || nu == 0)
		return;
	*r = (struct idrange){(uid_t)uid, (gid_t)gid, nu};
}
