/*
 * store.c - the state store.  See store.h for the layout and invariants.
 */
#include "store.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "proc.h"

#define STATE_FILE "state.json"

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

int store_open_root(const char *root, int *rootfd, struct cell_err *e)
{
	int fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0 && errno == ENOENT) {
		if (mkdir_p(root, 0700) < 0)
			return cell_err_set(e, errno, "state root %s", root);
		fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	}
	if (fd < 0)
		return cell_err_set(e, errno, "state root %s", root);
	*rootfd = fd;
	return 0;
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

/* Removes NAME when it is the leftover of a dead jail.  0: removed (or
 * already gone), -1 with errno EEXIST: in use. */
static int reap_stale(int rootfd, const char *name)
{
	cleanup_close int fd =
		openat(rootfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return errno == ENOENT ? 0 : -1;
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		if (errno == EWOULDBLOCK)
			errno = EEXIST;
		return -1;
	}
	if (jail_alive(fd)) {
		errno = EEXIST;
		return -1;
	}
	if (empty_dir(fd) < 0)
		return -1;
	if (unlinkat(rootfd, name, AT_REMOVEDIR) < 0 && errno != ENOENT)
		return -1;
	return 0;
}

int store_jail_create(int rootfd, const char *name, struct store_jail *j, struct cell_err *e)
{
	char tmp[64] = "";
	unsigned int r;

	j->dirfd = -1;
	j->name = strdup(name);
	if (j->name == NULL)
		return cell_err_set(e, ENOMEM, "jail %s", name);
	if (getrandom(&r, sizeof(r), 0) != sizeof(r)) {
		cell_err_set(e, errno, "jail %s: random", name);
		goto fail;
	}
	snprintf(tmp, sizeof(tmp), ".new-%d-%08x", (int)getpid(), r);
	if (mkdirat(rootfd, tmp, 0700) < 0) {
		cell_err_set(e, errno, "jail %s: create state directory", name);
		goto fail;
	}
	j->dirfd = openat(rootfd, tmp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (j->dirfd < 0 || flock(j->dirfd, LOCK_EX) < 0) {
		cell_err_set(e, errno, "jail %s: lock state directory", name);
		goto fail;
	}
	for (int tries = 0; tries < 3; tries++) {
		if (renameat2(rootfd, tmp, rootfd, name, RENAME_NOREPLACE) == 0)
			return 0;
		if (errno != EEXIST && errno != ENOTEMPTY) {
			cell_err_set(e, errno, "jail %s: create state directory", name);
			goto fail;
		}
		if (reap_stale(rootfd, name) < 0) {
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
	unlinkat(rootfd, tmp, AT_REMOVEDIR);
	store_jail_close(j);
	return -1;
}

int store_jail_write(struct store_jail *j, json_t *state, struct cell_err *e)
{
	cleanup_free char *text = json_dumps(state, JSON_COMPACT | JSON_SORT_KEYS);
	cleanup_close int fd = -1;
	size_t len, off = 0;

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
	if (renameat(j->dirfd, STATE_FILE ".tmp", j->dirfd, STATE_FILE) < 0)
		return cell_err_set(e, errno, "jail %s: replace state", j->name);
	return 0;
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
	st = store_jail_read(&j);
	if (st == NULL)
		errno = ENOENT; /* a creator's directory before its first record */
	close(j.dirfd);
	return st;
}

int store_jail_remove(int rootfd, struct store_jail *j, struct cell_err *e)
{
	int ret = 0;

	if (empty_dir(j->dirfd) < 0)
		ret = cell_err_set(e, errno, "jail %s: remove state", j->name);
	else if (unlinkat(rootfd, j->name, AT_REMOVEDIR) < 0 && errno != ENOENT)
		ret = cell_err_set(e, errno, "jail %s: remove state directory", j->name);
	store_jail_close(j);
	return ret;
}

void store_jail_close(struct store_jail *j)
{
	if (j->dirfd >= 0)
		close(j->dirfd);
	j->dirfd = -1;
	free(j->name);
	j->name = NULL;
}
