/*
 * caps.c - reducing a jail's capabilities.
 *
 * Order matters: the bounding set is reduced first (that needs
 * CAP_SETPCAP, which the jail's root may keep), then the process sets.
 * A jail's root is still uid 0, so every capability not kept is one less
 * way out: CAP_SYS_ADMIN (mount, sethostname...), CAP_SYS_MODULE,
 * CAP_SYS_RAWIO, CAP_NET_ADMIN, CAP_MKNOD, CAP_SYS_NICE, CAP_SYS_RESOURCE...
 */
#include "caps.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/prctl.h>

int caps_drop_bounding(uint64_t keep, struct cell_err *e)
{
	for (cap_value_t c = 0; c <= CAP_LAST_CAP; c++) {
		if (keep & CAPS_BIT(c))
			continue;
		/* EINVAL: the running kernel does not know C; nothing to drop. */
		if (prctl(PR_CAPBSET_DROP, c, 0, 0, 0) < 0 && errno != EINVAL)
			return cell_err_set(e, errno, "drop capability %d from the bounding set",
					    c);
	}
	return 0;
}

int caps_set(uint64_t keep, struct cell_err *e)
{
	cap_t now = cap_get_proc();
	cap_t caps = cap_init();
	int ret = 0;

	if (now == NULL || caps == NULL) {
		ret = cell_err_set(e, errno, "read capabilities");
		goto out;
	}
	for (cap_value_t c = 0; c <= CAP_LAST_CAP; c++) {
		cap_flag_value_t have = CAP_CLEAR;

		if (!(keep & CAPS_BIT(c)))
			continue;
		/* After a switch to another uid the permitted set is empty:
		 * keep only what is still there. */
		if (cap_get_flag(now, c, CAP_PERMITTED, &have) < 0 || have != CAP_SET)
			continue;
		if (cap_set_flag(caps, CAP_PERMITTED, 1, &c, CAP_SET) < 0 ||
		    cap_set_flag(caps, CAP_EFFECTIVE, 1, &c, CAP_SET) < 0) {
			ret = cell_err_set(e, errno, "set capability %d", c);
			goto out;
		}
	}
	if (cap_set_proc(caps) < 0) {
		ret = cell_err_set(e, errno, "set capabilities");
		goto out;
	}
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL)
		ret = cell_err_set(e, errno, "clear ambient capabilities");
out:
	if (now != NULL)
		cap_free(now);
	if (caps != NULL)
		cap_free(caps);
	return ret;
}

char *caps_to_text(uint64_t mask)
{
	size_t len = 1, used = 0;
	char *out;

	for (cap_value_t c = 0; c <= CAP_LAST_CAP; c++)
		if (mask & CAPS_BIT(c)) {
			char *n = cap_to_name(c);
			len += (n != NULL ? strlen(n) : 8) + 1;
			cap_free(n);
		}
	out = malloc(len);
	if (out == NULL)
		return NULL;
	out[0] = '\0';
	for (cap_value_t c = 0; c <= CAP_LAST_CAP; c++) {
		char *n;

		if (!(mask & CAPS_BIT(c)))
			continue;
		n = cap_to_name(c);
		used += (size_t)snprintf(out + used, len - used, "%s%s", used ? "," : "",
					 n != NULL ? n : "?");
		cap_free(n);
	}
	return out;
}

int caps_of_pid(int pid, uint64_t *bounding, uint64_t *effective)
{
	char path[64], line[256];
	FILE *f;
	int found = 0;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "re");
	if (f == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL) {
		if (sscanf(line, "CapBnd: %" SCNx64, bounding) == 1)
			found |= 1;
		else if (sscanf(line, "CapEff: %" SCNx64, effective) == 1)
			found |= 2;
	}
	fclose(f);
	return found == 3 ? 0 : -1;
}

int caps_keep(struct cell_err *e)
{
	if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) < 0)
		return cell_err_set(e, errno, "keep capabilities across the change of user");
	return 0;
}

int caps_set_exact(uint64_t effective, uint64_t permitted, uint64_t inheritable, uint64_t ambient,
		   struct cell_err *e)
{
	cap_t caps = cap_init();
	int ret = 0;

	if (caps == NULL)
		return cell_err_set(e, errno, "set capabilities");
	for (cap_value_t c = 0; c <= CAP_LAST_CAP && ret == 0; c++) {
		if (((effective & CAPS_BIT(c)) &&
		     cap_set_flag(caps, CAP_EFFECTIVE, 1, &c, CAP_SET) < 0) ||
		    ((permitted & CAPS_BIT(c)) &&
		     cap_set_flag(caps, CAP_PERMITTED, 1, &c, CAP_SET) < 0) ||
		    ((inheritable & CAPS_BIT(c)) &&
		     cap_set_flag(caps, CAP_INHERITABLE, 1, &c, CAP_SET) < 0))
			ret = cell_err_set(e, errno, "set capability %d", c);
	}
	if (ret == 0 && cap_set_proc(caps) < 0)
		ret = cell_err_set(e, errno, "set capabilities");
	cap_free(caps);
	if (ret < 0)
		return ret;
	/* CVE-2022-27650: no ambient capability but those asked. */
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL)
		return cell_err_set(e, errno, "clear ambient capabilities");
	/* The kernel takes an ambient capability only when it is permitted
	 * and inheritable; one that is not is left out, as runc leaves it
	 * (`runc spec` asks ambient ones with no inheritable set). */
	ambient &= permitted & inheritable;
	for (cap_value_t c = 0; c <= CAP_LAST_CAP; c++)
		if ((ambient & CAPS_BIT(c)) &&
		    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, c, 0, 0) < 0)
			return cell_err_set(e, errno, "raise ambient capability %d", c);
	if (prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0) < 0)
		return cell_err_set(e, errno, "clear keep-caps");
	return 0;
}
