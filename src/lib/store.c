/*
 * store.c - the state store.  See store.h for the layout and invariants.
 */
#include "store.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "proc.h"
#include "rootless.h"

#define STATE_FILE   "state.json"
#define JID_FILE     "jid"
#define JID_PATH_MAX 96 /* "NAME/jid" with NAME at most 64 bytes */

/* A jail's directory name: not hidden (temporaries start with '.'),
 * no '/'. */
static bool store_valid_entry(const char *name)
{
	return name[0] != '\0' && name[0] != '.' && strchr(name, '/') == NULL;
}

static int mkdir_p(const char *path, mode_t mode)
{
	cleanup_free char *copy = strdup(path);

	if (copy == NULL)
		return -1;
	for (char *p = copy + 1; *p != '\0'; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(copy, 0755) < 0 && errno != EEXIST)
			return -1;
		*p = '/';
	}
	if (mkdir(copy, mode) < 0 && errno != EEXIST)
		return -1;
	return 0;
}

/* A rootless cell's state root is the user's own (rootless.h): one that
 * another user could write would let them plant or change jails. */
static int check_owner(int fd, const char *root, struct cell_err *e)
{
	if (!rootless() || rootless_check_root(fd, root, e) == 0)
		return 0;
	close(fd);
	return -1;
}

int store_open_root_existing(const char *root, int *rootfd, struct cell_err *e)
{
	int fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	*rootfd = -1;
	if (fd < 0 && errno != ENOENT)
		return cell_err_set(e, errno, "state root %s", root);
	if (fd >= 0 && check_owner(fd, root, e) < 0)
		return -1;
	*rootfd = fd;
	return 0;
}

int store_open_root(const char *root, int *rootfd, struct cell_err *e)
{
	int fd;

	fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT) {
		if (mkdir_p(root, 0700) < 0)
			return cell_err_set(e, errno, "state root %s", root);
		fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	}
	if (fd < 0)
		return cell_err_set(e, errno, "state root %s", root);
	if (check_owner(fd, root, e) < 0)
		return -1;
	*rootfd = fd;
	return 0;
}

/* A new open file description of directory FD: a lock or read offset of
 * its own (a dup() would share FD's). */
static int reopen_dir(int fd)
{
	return openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

/*
 * What proves a directory of the root is cell's: its "jid" file, a
 * regular file.  A creator makes it in the temporary directory, before
 * the rename gives the directory its name, so every directory cell ever
 * named has one from its first moment; anything else under the root (a
 * user's directory, another tool's state) is never opened as a jail,
 * tidied or removed.  A state root is any directory `--root` names.
 */
static bool store_owns(int dirfd)
{
	struct stat st;

	return fstatat(dirfd, JID_FILE, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode);
}

/* Removes every entry of an open directory, recursively, without
 * following symlinks. */
static int empty_dir(int dirfd)
{
	cleanup_close int dup = fcntl(dirfd, F_DUPFD_CLOEXEC, 0);
	DIR *d;
	struct dirent *de;
	int ret = 0;

	if (dup < 0)
		return -1;
	d = fdopendir(dup);
	if (d == NULL)
		return -1;
	take_fd(&dup);
	rewinddir(d);
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (unlinkat(dirfd, de->d_name, 0) == 0)
			continue;
		if (errno == EISDIR || errno == EPERM) {
			int sub = openat(dirfd, de->d_name,
					 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (sub >= 0) {
				empty_dir(sub);
				close(sub);
			}
			if (unlinkat(dirfd, de->d_name, AT_REMOVEDIR) == 0)
				continue;
		}
		if (errno != ENOENT)
			ret = -1;
	}
	closedir(d);
	return ret;
}

/* True when the (locked) jail directory belongs to a process that still
 * runs.  A directory without a readable record is a creator's leftover
 * from a crash before its first write: stale. */
static bool jail_alive(int dirfd)
{
	struct store_jail j = {.dirfd = dirfd};
	json_t *st = store_jail_read(&j);
	json_int_t pid, start;
	bool alive = false;

	if (st == NULL)
		return false;
	if (json_unpack(st, "{s:I, s:I}", "pid", &pid, "start_time", &start) == 0)
		alive = proc_alive((pid_t)pid, (unsigned long long)start);
	json_decref(st);
	return alive;
}

static int read_jid(int rootfd, const char *entry)
{
	char path[JID_PATH_MAX], buf[16];

	if (snprintf(path, sizeof(path), "%s/jid", entry) >= (int)sizeof(path) ||
	    proc_read_text_at(rootfd, path, buf, sizeof(buf)) < 0 || buf[0] == '\0')
		return -1;
	return atoi(buf);
}

/* A JID's marker in the root, ".jid.N.NAME": JIDs in use are read from
 * one listing of the root, never by opening each jail's jid file. */
static void marker_name(char *buf, size_t size, int jid, const char *name)
{
	snprintf(buf, size, ".jid.%d.%s", jid, name);
}

static void remove_marker(int rootfd, int jid, const char *name)
{
	char m[JID_PATH_MAX];

	if (jid <= 0)
		return;
	marker_name(m, sizeof(m), jid, name);
	unlinkat(rootfd, m, 0);
}

int store_jid_name(int rootfd, const char *word, char *name, size_t size)
{
	char prefix[32];
	size_t plen;
	struct dirent *de;
	int found = 0, jid, dup;
	DIR *d;

	if (word[0] == '\0' || word[strspn(word, "0123456789")] != '\0' || strlen(word) > 9 ||
	    (jid = atoi(word)) <= 0)
		return 0;
	plen = (size_t)snprintf(prefix, sizeof(prefix), ".jid.%d.", jid);
	dup = openat(rootfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dup < 0 || (d = fdopendir(dup)) == NULL) {
		if (dup >= 0)
			close(dup);
		return 0;
	}
	/* The marker names the jail; its own jid file must agree (a marker
	 * outlives its directory for a moment while a jail is removed). */
	while (found == 0 && (de = readdir(d)) != NULL) {
		const char *n = de->d_name + plen;

		if (strncmp(de->d_name, prefix, plen) != 0 || !store_valid_entry(n) ||
		    read_jid(rootfd, n) != jid || strlen(n) >= size)
			continue;
		strcpy(name, n);
		found = 1;
	}
	closedir(d);
	return found;
}

/* The default reaper: a directory whose record is missing (a creator's
 * crash before its first write) or names a dead process may go. */
static int reap_dead(int rootfd, int dirfd, const char *name, void *ctx)
{
	if (jail_alive(dirfd)) {
		errno = EEXIST;
		return -1;
	}
	return 0;
}

/* Removes NAME when REAP lets it go.  0: removed (or already gone), -1
 * with errno EEXIST: in use. */
static int reap_stale(int rootfd, const char *name, store_reap_fn reap, void *ctx)
{
	cleanup_close int fd =
		openat(rootfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	int jid;

	if (fd < 0)
		return errno == ENOENT ? 0 : -1;
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		if (errno == EWOULDBLOCK)
			errno = EEXIST;
		return -1;
	}
	/* Not cell's: the name is taken by something cell never made. */
	if (!store_owns(fd)) {
		errno = EEXIST;
		return -1;
	}
	if ((reap != NULL ? reap : reap_dead)(rootfd, fd, name, ctx) < 0)
		return -1;
	jid = read_jid(rootfd, name);
	if (empty_dir(fd) < 0)
		return -1;
	if (unlinkat(rootfd, name, AT_REMOVEDIR) < 0 && errno != ENOENT)
		return -1;
	remove_marker(rootfd, jid, name);
	return 0;
}

/* A crashed creator's temporary directory: empty, or with only the
 * empty "jid" file it makes before the rename.  Anything more in it is
 * not cell's doing and stays (rmdir fails on it). */
static void remove_temporary(int rootfd, const char *name)
{
	cleanup_close int fd =
		openat(rootfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;

	if (fd < 0)
		return;
	if (fstatat(fd, JID_FILE, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
	    st.st_size == 0)
		unlinkat(fd, JID_FILE, 0);
	unlinkat(rootfd, name, AT_REMOVEDIR);
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* What one listing of the root says: its jails' names (sorted) and the
 * markers (JID, name). */
struct root_listing {
	char **dirs;
	size_t ndirs;
	struct {
		int jid;
		char *name;
	} * marks;
	size_t nmarks;
};

static void listing_free(struct root_listing *l)
{
	store_names_free(l->dirs, l->ndirs);
	for (size_t i = 0; i < l->nmarks; i++)
		free(l->marks[i].name);
	free(l->marks);
}

/* Lists the root: jail directories, markers; a creator's temporary
 * directory seen here is a crashed creator's leftover (creators rename or
 * remove theirs before they unlock) and is removed. */
static int list_root(int rootfd, const char *mine, struct root_listing *l)
{
	cleanup_close int dup = reopen_dir(rootfd);
	size_t dcap = 0, mcap = 0;
	struct dirent *de;
	DIR *d;

	memset(l, 0, sizeof(*l));
	if (dup < 0 || (d = fdopendir(dup)) == NULL)
		return -1;
	take_fd(&dup);
	while ((de = readdir(d)) != NULL) {
		const char *n = de->d_name;
		char *dot;
		long jid;

		if (strncmp(n, ".new-", 5) == 0 && strcmp(n, mine) != 0) {
			remove_temporary(rootfd, n);
			continue;
		}
		if (strncmp(n, ".jid.", 5) == 0) {
			jid = strtol(n + 5, &dot, 10);
			if (jid <= 0 || jid > INT_MAX || *dot != '.' || !store_valid_entry(dot + 1))
				continue;
			if (l->nmarks == mcap) {
				void *nm = realloc(l->marks,
						   (mcap = mcap * 2 + 64) * sizeof(*l->marks));

				if (nm == NULL)
					goto oom;
				l->marks = nm;
			}
			l->marks[l->nmarks].jid = (int)jid;
			l->marks[l->nmarks].name = strdup(dot + 1);
			if (l->marks[l->nmarks++].name == NULL)
				goto oom;
			continue;
		}
		if (!store_valid_entry(n) || de->d_type != DT_DIR)
			continue;
		if (l->ndirs == dcap) {
			char **nd = realloc(l->dirs, (dcap = dcap * 2 + 64) * sizeof(*l->dirs));

			if (nd == NULL)
				goto oom;
			l->dirs = nd;
		}
		l->dirs[l->ndirs] = strdup(n);
		if (l->dirs[l->ndirs++] == NULL)
			goto oom;
	}
	closedir(d);
	if (l->ndirs > 0)
		qsort(l->dirs, l->ndirs, sizeof(*l->dirs), cmp_names);
	return 0;
oom:
	closedir(d);
	listing_free(l);
	errno = ENOMEM;
	return -1;
}

static int mark_used(unsigned char **used, size_t *cap, int jid)
{
	if ((size_t)jid >= *cap) {
		size_t ncap = (size_t)jid * 2 + 64;
		unsigned char *nu = realloc(*used, ncap);

		if (nu == NULL)
			return -1;
		memset(nu + *cap, 0, ncap - *cap);
		*used = nu;
		*cap = ncap;
	}
	(*used)[jid] = 1;
	return 0;
}

/* Under the root's lock: the lowest JID >= 1 that no jail holds.  A
 * marker whose jail directory is gone is a remover's leftover (removers
 * delete the directory first): it goes.  A jail without a marker (made
 * before markers) has its jid file read. */
static int next_jid(int rootfd, const char *mine)
{
	struct root_listing l;
	unsigned char *used = NULL, *marked = NULL;
	size_t cap = 0;
	int jid = -1;

	if (list_root(rootfd, mine, &l) < 0)
		return -1;
	marked = calloc(l.ndirs + 1, 1);
	if (marked == NULL)
		goto out;
	for (size_t i = 0; i < l.nmarks; i++) {
		char **hit = l.ndirs > 0 ? bsearch(&l.marks[i].name, l.dirs, l.ndirs,
						   sizeof(*l.dirs), cmp_names)
					 : NULL;

		if (hit == NULL) {
			remove_marker(rootfd, l.marks[i].jid, l.marks[i].name);
			continue;
		}
		marked[hit - l.dirs] = 1;
		if (mark_used(&used, &cap, l.marks[i].jid) < 0)
			goto out;
	}
	for (size_t i = 0; i < l.ndirs; i++) {
		int n = marked[i] ? 0 : read_jid(rootfd, l.dirs[i]);

		if (n > 0 && mark_used(&used, &cap, n) < 0)
			goto out;
	}
	for (jid = 1; (size_t)jid < cap && used[jid]; jid++)
		;
out:
	free(used);
	free(marked);
	listing_free(&l);
	return jid;
}

/* The marker first, then the jail's jid file: a crash between leaves a
 * marker of a jail without a record, which goes with the jail. */
static int write_marker(int rootfd, int jid, const char *name)
{
	char m[JID_PATH_MAX];

	marker_name(m, sizeof(m), jid, name);
	return symlinkat(".", rootfd, m);
}

/* Fills the jid file the creator made (empty) before the rename. */
static int write_jid(int fd, int jid)
{
	char buf[16];
	int len = snprintf(buf, sizeof(buf), "%d\n", jid);

	return write(fd, buf, (size_t)len) == len ? 0 : -1;
}

int store_jail_create(int rootfd, const char *name, store_reap_fn reap, void *ctx,
		      struct store_jail *j, struct cell_err *e)
{
	cleanup_close int rootlock = -1, jidfd = -1;
	char tmp[64] = "";
	unsigned int r;

	j->dirfd = -1;
	j->locked = false;
	j->jid = 0;
	j->written_ino = 0;
	j->name = strdup(name);
	if (j->name == NULL)
		return cell_err_set(e, ENOMEM, "jail %s", name);
	if (getrandom(&r, sizeof(r), 0) != sizeof(r)) {
		cell_err_set(e, errno, "jail %s: random", name);
		goto fail;
	}
	snprintf(tmp, sizeof(tmp), ".new-%d-%08x", (int)getpid(), r);
	/* JIDs are handed out under the root's lock, held from the choice
	 * until the name is in place (or the attempt undone).  The lock is
	 * on an open of its own, so that it goes with this function's
	 * close, not with the last of the caller's descriptors. */
	rootlock = reopen_dir(rootfd);
	if (rootlock < 0 || flock(rootlock, LOCK_EX) < 0) {
		cell_err_set(e, errno, "jail %s: lock the state root", name);
		goto fail;
	}
	if (mkdirat(rootfd, tmp, 0700) < 0) {
		cell_err_set(e, errno, "jail %s: create state directory", name);
		goto fail;
	}
	j->dirfd = openat(rootfd, tmp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (j->dirfd < 0 || flock(j->dirfd, LOCK_EX) < 0) {
		cell_err_set(e, errno, "jail %s: lock state directory", name);
		goto fail;
	}
	j->locked = true;
	/* The proof that the directory is cell's (store_owns()), in place
	 * before it carries the name. */
	jidfd = openat(j->dirfd, JID_FILE, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		       0600);
	if (jidfd < 0) {
		cell_err_set(e, errno, "jail %s: create state directory", name);
		goto fail;
	}
	for (int tries = 0; tries < 3; tries++) {
		if (renameat2(rootfd, tmp, rootfd, name, RENAME_NOREPLACE) == 0) {
			/* The name is ours now: only then a JID, so that a
			 * name in use costs no scan. */
			j->jid = next_jid(rootfd, tmp);
			if (j->jid < 0 || write_marker(rootfd, j->jid, name) < 0 ||
			    write_jid(jidfd, j->jid) < 0) {
				cell_err_set(e, errno, "jail %s: assign a jid", name);
				empty_dir(j->dirfd);
				unlinkat(rootfd, name, AT_REMOVEDIR);
				remove_marker(rootfd, j->jid, name);
				store_jail_close(j);
				return -1;
			}
			return 0;
		}
		if (errno != EEXIST && errno != ENOTEMPTY) {
			cell_err_set(e, errno, "jail %s: create state directory", name);
			goto fail;
		}
		if (reap_stale(rootfd, name, reap, ctx) < 0) {
			if (errno == EEXIST)
				cell_err_set(e, 0, "jail %s: name already in use", name);
			else
				cell_err_set(e, errno, "jail %s: clean stale state", name);
			goto fail;
		}
	}
	cell_err_set(e, EEXIST, "jail %s: create state directory", name);
fail:
	/* Only the temporary name can exist here: never remove NAME. */
	if (tmp[0] != '\0')
		remove_temporary(rootfd, tmp);
	store_jail_close(j);
	return -1;
}

/* True when DIRFD is still the directory named NAME in the root. */
static bool still_named(int rootfd, int dirfd, const char *name)
{
	struct stat a, b;

	return fstat(dirfd, &a) == 0 && fstatat(rootfd, name, &b, AT_SYMLINK_NOFOLLOW) == 0 &&
	       a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

int store_jail_trylock(int rootfd, const char *name, struct store_jail *j)
{
	j->dirfd = -1;
	j->locked = false;
	j->jid = 0;
	j->written_ino = 0;
	j->name = strdup(name);
	if (j->name == NULL)
		return -1;
	j->dirfd = openat(rootfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (j->dirfd < 0 || flock(j->dirfd, LOCK_EX | LOCK_NB) < 0 ||
	    !still_named(rootfd, j->dirfd, name) || !store_owns(j->dirfd)) {
		store_jail_close(j);
		return -1;
	}
	j->locked = true;
	j->jid = read_jid(rootfd, name);
	return 0;
}

int store_jail_open(int rootfd, const char *name, struct store_jail *j, struct cell_err *e)
{
	j->dirfd = -1;
	j->locked = false;
	j->jid = 0;
	j->written_ino = 0;
	j->name = NULL;
	if (!store_valid_entry(name))
		return cell_err_set(e, ENOENT, "jail %s", name);
	j->name = strdup(name);
	if (j->name == NULL)
		return cell_err_set(e, ENOMEM, "jail %s", name);
	for (;;) {
		int fd = openat(rootfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		int r;

		if (fd < 0) {
			cell_err_set(e, errno == ENOTDIR ? ENOENT : errno, "jail %s", name);
			store_jail_close(j);
			return -1;
		}
		do
			r = flock(fd, LOCK_EX);
		while (r < 0 && errno == EINTR);
		if (r < 0) {
			cell_err_set(e, errno, "jail %s: lock", name);
			close(fd);
			store_jail_close(j);
			return -1;
		}
		/* Removed (and perhaps made again) while we waited. */
		if (!still_named(rootfd, fd, name)) {
			close(fd);
			continue;
		}
		if (!store_owns(fd)) {
			close(fd);
			cell_err_set(e, ENOENT, "jail %s", name);
			store_jail_close(j);
			return -1;
		}
		j->dirfd = fd;
		j->locked = true;
		j->jid = read_jid(rootfd, name);
		return 0;
	}
}

void store_jail_unlock(struct store_jail *j)
{
	if (j->dirfd >= 0 && j->locked)
		flock(j->dirfd, LOCK_UN);
	j->locked = false;
}

int store_jail_relock(int rootfd, struct store_jail *j)
{
	int r;

	do
		r = flock(j->dirfd, LOCK_EX);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return -1;
	j->locked = true;
	if (!still_named(rootfd, j->dirfd, j->name)) {
		errno = ENOENT;
		return -1;
	}
	return 0;
}

/* store_owns() of the root's entry NAME, without opening it. */
static bool owned_entry(int rootfd, const char *name)
{
	char path[JID_PATH_MAX + 200];
	struct stat st;

	if (snprintf(path, sizeof(path), "%s/" JID_FILE, name) >= (int)sizeof(path))
		return false;
	return fstatat(rootfd, path, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode);
}

int store_list(int rootfd, char ***names, size_t *n, struct cell_err *e)
{
	cleanup_close int dup = reopen_dir(rootfd);
	char **v = NULL;
	size_t len = 0, cap = 0;
	struct dirent *de;
	DIR *d;

	*names = NULL;
	*n = 0;
	if (dup < 0)
		return cell_err_set(e, errno, "read the state root");
	d = fdopendir(dup);
	if (d == NULL)
		return cell_err_set(e, errno, "read the state root");
	take_fd(&dup);
	while ((de = readdir(d)) != NULL) {
		if (!store_valid_entry(de->d_name) || de->d_type != DT_DIR ||
		    !owned_entry(rootfd, de->d_name))
			continue;
		if (len == cap) {
			char **nv = realloc(v, (cap = cap * 2 + 16) * sizeof(*v));

			if (nv == NULL)
				goto oom;
			v = nv;
		}
		v[len] = strdup(de->d_name);
		if (v[len] == NULL)
			goto oom;
		len++;
	}
	closedir(d);
	if (len > 0)
		qsort(v, len, sizeof(*v), cmp_names);
	*names = v;
	*n = len;
	return 0;
oom:
	closedir(d);
	store_names_free(v, len);
	return cell_err_set(e, ENOMEM, "read the state root");
}

void store_names_free(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

int store_jail_write(struct store_jail *j, json_t *state, struct cell_err *e)
{
	cleanup_free char *text = json_dumps(state, JSON_COMPACT);
	cleanup_close int fd = -1;
	size_t len, off = 0;
	struct stat st;

	if (text == NULL)
		return cell_err_set(e, ENOMEM, "jail %s: encode state", j->name);
	len = strlen(text);
	fd = openat(j->dirfd, STATE_FILE ".tmp",
		    O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return cell_err_set(e, errno, "jail %s: write state", j->name);
	while (off < len) {
		ssize_t n = write(fd, text + off, len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return cell_err_set(e, errno, "jail %s: write state", j->name);
		off += (size_t)n;
	}
	if (fstat(fd, &st) == 0) {
		j->written_ino = (unsigned long long)st.st_ino;
		j->written_mtime = st.st_mtim;
	}
	if (renameat(j->dirfd, STATE_FILE ".tmp", j->dirfd, STATE_FILE) < 0) {
		j->written_ino = 0;
		return cell_err_set(e, errno, "jail %s: replace state", j->name);
	}
	return 0;
}

bool store_jail_rewritten(const struct store_jail *j)
{
	struct stat st;

	if (j->written_ino == 0 || fstatat(j->dirfd, STATE_FILE, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return true;
	/* A replaced record's inode number may come back for a later one;
	 * with the same time (a clock tick) too only if two other commands
	 * replaced it within the tick of this handle's write: a launch
	 * holds the jail's lock from that write until its command runs,
	 * which leaves them no time to. */
	return (unsigned long long)st.st_ino != j->written_ino ||
	       st.st_mtim.tv_sec != j->written_mtime.tv_sec ||
	       st.st_mtim.tv_nsec != j->written_mtime.tv_nsec;
}

json_t *store_jail_read(struct store_jail *j)
{
	cleanup_close int fd = openat(j->dirfd, STATE_FILE, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	json_error_t jerr;
	FILE *f;
	json_t *st;

	if (fd < 0)
		return NULL;
	f = fdopen(fd, "r");
	if (f == NULL)
		return NULL;
	take_fd(&fd);
	st = json_loadf(f, 0, &jerr);
	fclose(f);
	if (st != NULL && !json_is_object(st)) {
		json_decref(st);
		st = NULL;
	}
	return st;
}

json_t *store_jail_peek(int rootfd, const char *name)
{
	struct store_jail j = {.dirfd = -1};
	json_t *st;

	if (!store_valid_entry(name)) {
		errno = ENOENT;
		return NULL;
	}
	j.dirfd = openat(rootfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (j.dirfd < 0)
		return NULL;
	st = store_owns(j.dirfd) ? store_jail_read(&j) : NULL;
	if (st == NULL)
		errno = ENOENT; /* a creator's directory before its first record */
	close(j.dirfd);
	return st;
}

int store_jail_remove(int rootfd, struct store_jail *j, struct cell_err *e)
{
	int ret = 0;

	/* Removed by another command while we did not hold the lock. */
	if (!still_named(rootfd, j->dirfd, j->name))
		;
	else if (empty_dir(j->dirfd) < 0)
		ret = cell_err_set(e, errno, "jail %s: remove state", j->name);
	else if (unlinkat(rootfd, j->name, AT_REMOVEDIR) < 0 && errno != ENOENT)
		ret = cell_err_set(e, errno, "jail %s: remove state directory", j->name);
	else /* the directory first: a marker without one is litter */
		remove_marker(rootfd, j->jid, j->name);
	store_jail_close(j);
	return ret;
}

void store_jail_close(struct store_jail *j)
{
	if (j->dirfd >= 0)
		close(j->dirfd);
	j->dirfd = -1;
	j->locked = false;
	free(j->name);
	j->name = NULL;
}
