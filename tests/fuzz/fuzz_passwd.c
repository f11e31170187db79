/*
 * fuzz_passwd.c - libFuzzer target of the parser of a jail's /etc/passwd
 * and /etc/group (passwd.c), whose text comes from an image.
 *
 * Each input is read as both files, in a heap block of exactly its size
 * (no NUL after it: the parser must stay within the length), looked up by
 * a name, by a uid, and for a user's groups; what is found must be well
 * formed (a name that fits, an absolute home), or the target aborts.
 * The same text is also read as /etc/subuid (rootless.c): a range found
 * must be within 32 bits and not empty.
 * Run by tests/run.sh over tests/fuzz/corpus/passwd for a few seconds.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "passwd.h"
#include "rootless.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const struct passwd_user *u)
{
	if (strlen(u->name) == 0 || strlen(u->name) > PASSWD_NAME_MAX || u->home[0] != '/' ||
	    u->uid == (uid_t)-1 || u->gid == (gid_t)-1)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size > 0 ? size : 1);
	struct passwd_user u;
	gid_t gids[8], gid;
	size_t n;

	if (text == NULL)
		return 0;
	memcpy(text, data, size);
	if (passwd_find(text, size, "alice", 0, &u) == 1) {
		check(&u);
		if (strcmp(u.name, "alice") != 0)
			abort();
	}
	if (passwd_find(text, size, NULL, 0, &u) == 1) {
		check(&u);
		if (u.uid != 0)
			abort();
	}
	(void)group_find(text, size, "staff", &gid);
	if (group_members(text, size, "alice", gids, 8, &n) == 0 && n > 8)
		abort();
	for (size_t i = 0; i < n && n <= 8; i++)
		for (size_t j = 0; j < i; j++)
			if (gids[i] == gids[j])
				abort(); /* each group once */
	{
		unsigned long start = 0, count = 0;

		if (rootless_subids(text, size, "alice", 1000, ROOTLESS_IDS - 1, &start, &count) ==
			    1 &&
		    (count == 0 || start + count > 4294967296UL))
			abort();
	}
	free(text);
	return 0;
}
