/*
 * untrusted.c - reading files a jail controls, without waiting on them.
 * See untrusted.h.
 */
#include "untrusted.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"

/* An error of ours, not the kernel's: the message says it all, errnum
 * still tells the caller which (EINVAL: not a regular file; EFBIG). */
static int refused(struct cell_err *e, int errnum, const char *path, size_t max)
{
	if (errnum == EFBIG)
		cell_err_set(e, 0, "%s: larger than %zu bytes", path, max);
	else
		cell_err_set(e, 0, "%s: not a regular file", path);
	e->errnum = errnum;
	return -1;
}

int untrusted_read(int dirfd, const char *path, int flags, size_t max, char **text, size_t *len,
		   struct cell_err *e)
{
	/* O_NONBLOCK: the open of a FIFO returns at once (and fstat then
	 * refuses it); O_NOCTTY: a terminal never becomes ours. */
	int oflags = O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC |
		     ((flags & UNTRUSTED_NOFOLLOW) ? O_NOFOLLOW : 0);
	cleanup_close int fd = openat(dirfd, path, oflags);
	cleanup_free char *buf = NULL;
	size_t n = 0, cap;
	struct stat st;

	*text = NULL;
	*len = 0;
	if (fd < 0)
		return cell_err_set(e, errno, "%s", path);
	if (fstat(fd, &st) < 0)
		return cell_err_set(e, errno, "%s", path);
	if (!S_ISREG(st.st_mode))
		return refused(e, EINVAL, path, max);
	if ((unsigned long long)st.st_size > max)
		return refused(e, EFBIG, path, max);
	/* Sized by fstat, grown if the file grows, up to one byte more
	 * than MAX: that byte tells a file that grew past it. */
	cap = (size_t)st.st_size + 1 < 4096 ? 4096 : (size_t)st.st_size + 1;
	if (cap > max + 1)
		cap = max + 1;
	for (;;) {
		ssize_t r;

		if (n == cap) {
			char *more;

			if (cap > max)
				break;
			cap = cap > (max + 1) / 2 ? max + 1 : cap * 2;
			more = realloc(buf, cap + 1);
			if (more == NULL)
				return cell_err_set(e, ENOMEM, "%s", path);
			buf = more;
		}
		if (buf == NULL && (buf = malloc(cap + 1)) == NULL)
			return cell_err_set(e, ENOMEM, "%s", path);
		r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return cell_err_set(e, errno, "read %s", path);
		if (r == 0)
			break;
		n += (size_t)r;
	}
	if (n > max)
		return refused(e, EFBIG, path, max);
	buf[n] = '\0';
	*text = take_ptr(&buf);
	*len = n;
	return 0;
}
