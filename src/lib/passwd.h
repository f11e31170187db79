/*
 * passwd.h - a jail's /etc/passwd and /etc/group, parsed from their text.
 *
 * `-u NAME[:GROUP]` is resolved in the jail's own files, as jexec -U and
 * docker -u do, never through the host's NSS modules (which would read the
 * host's users, or load code).  The files come from an image: the text is
 * hostile.  These functions only read a buffer (untrusted_read() got it,
 * bounded), line by line within its length; a line that is not well formed
 * (too few fields, a number that is not one, a NUL byte, a name too long)
 * is passed over, as if it were not there.  NIS "+"/"-" lines are passed
 * over too.
 */
#ifndef CELL_PASSWD_H
#define CELL_PASSWD_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Longest user or group name taken (useradd's limit is 32; some sites
 * go further). */
#define PASSWD_NAME_MAX 255
/* Longest home directory taken; a longer one is "/". */
#define PASSWD_HOME_MAX 4095

/* One /etc/passwd line, as far as a process's identity needs it. */
struct passwd_user {
	char name[PASSWD_NAME_MAX + 1];
	uid_t uid;
	gid_t gid;
	char home[PASSWD_HOME_MAX + 1]; /* "/" when the line's is empty or relative */
};

/* The first line of TEXT (LEN bytes) whose user is NAME (or, with NAME
 * NULL, whose uid is UID), into *U.  1: found, 0: not. */
int passwd_find(const char *text, size_t len, const char *name, uid_t uid, struct passwd_user *u);

/* The gid of the first /etc/group line of TEXT naming the group NAME.
 * 1: found, 0: not. */
int group_find(const char *text, size_t len, const char *name, gid_t *gid);

/*
 * The gids of the groups of TEXT (/etc/group) that list USER as a member,
 * each once, in the file's order, into GIDS (at most MAX of them; *N how
 * many).  Returns 0, or -1 when there were more than MAX.
 */
int group_members(const char *text, size_t len, const char *user, gid_t *gids, size_t max,
		  size_t *n);

/* Whether NAME may be a user or group name of -u: 1 to PASSWD_NAME_MAX
 * bytes of [A-Za-z0-9._-] (and a final '$', machine accounts), not
 * starting with '-', not all digits (that is an id). */
bool passwd_valid_name(const char *name);

#endif
