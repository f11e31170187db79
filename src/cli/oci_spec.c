/*
 * oci_spec.c - `cell-oci spec` and `features`: the default config.json
 * a bundle starts from, and what this runtime supports, both made by the
 * config parser (oci_config.h), so that they list what it accepts.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "oci.h"
#include "oci_config.h"

static const char spec_usage[] =
	"Usage: cell-oci spec [OPTIONS]\n"
	"\n"
	"Write a default config.json (runc's: sh on a terminal, the usual mounts,\n"
	"masked and read-only paths) in the bundle directory; an existing one is an\n"
	"error.  Edit it, put a root filesystem at its root.path (\"rootfs\"), run.\n"
	"\n"
	"  -b, --bundle DIR  the bundle directory (default: the working directory)\n"
	"      --rootless    runc's rootless config: a user namespace mapping your\n"
	"                    uid and gid to root, no network namespace, the host's\n"
	"                    /sys read-only, no resources\n"
	"  -h, --help        show this help\n";

static const char features_usage[] =
	"Usage: cell-oci features\n"
	"\n"
	"Print what this runtime supports, as JSON (runc's features: OCI versions,\n"
	"hooks, mount options, namespaces, capabilities, cgroup, seccomp).\n"
	"\n"
	"  -h, --help  show this help\n";

enum { OPT_ROOTLESS = 256 };

/* TEXT to DIR/config.json, made new (never over a file, nor through a
 * symlink). */
static int write_config(const struct oci_global *g, const char *dir, const char *text)
{
	char path[PATH_MAX];
	size_t len = strlen(text), done = 0;
	int fd;

	snprintf(path, sizeof(path), "%s/config.json", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
	if (fd < 0 && errno == EEXIST)
		return oci_error(g, "spec", "%s exists: remove it first", path);
	if (fd < 0)
		return oci_error(g, "spec", "%s: %s", path, strerror(errno));
	while (done < len) {
		ssize_t n = write(fd, text + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			int err = errno;

			close(fd);
			unlink(path);
			return oci_error(g, "spec", "write %s: %s", path, strerror(err));
		}
		done += (size_t)n;
	}
	if (close(fd) < 0)
		return oci_error(g, "spec", "write %s: %s", path, strerror(errno));
	return 0;
}

int oci_verb_spec(const struct oci_global *g, int argc, char **argv)
{
	static const struct option opts[] = {
		{"bundle", required_argument, NULL, 'b'},
		{"rootless", no_argument, NULL, OPT_ROOTLESS},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *bundle = ".";
	bool rootless = false;
	int c, ret = OCI_EXIT_ERROR;
	json_t *config;
	char *text;

	while ((c = oci_getopt(g, "spec", spec_usage, argc, argv, "+b:h", opts, &ret)) != -1) {
		if (c == 'b')
			bundle = optarg;
		else if (c == OPT_ROOTLESS)
			rootless = true;
		else
			return ret;
	}
	if (optind < argc)
		return oci_error(g, "spec", "takes no arguments (see cell-oci spec --help)");
	config = oci_config_default(rootless);
	text = config != NULL ? json_dumps(config, JSON_INDENT(2) | JSON_PRESERVE_ORDER) : NULL;
	json_decref(config);
	if (text == NULL)
		return oci_error(g, "spec", "out of memory");
	ret = write_config(g, bundle, text);
	free(text);
	return ret;
}

int oci_verb_features(const struct oci_global *g, int argc, char **argv)
{
	static const struct option opts[] = {{"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
	int ret = OCI_EXIT_ERROR;
	json_t *f;

	if (oci_getopt(g, "features", features_usage, argc, argv, "+h", opts, &ret) != -1)
		return ret;
	if (optind < argc)
		return oci_error(g, "features",
				 "takes no arguments (see cell-oci features --help)");
	f = oci_features();
	if (f == NULL)
		return oci_error(g, "features", "out of memory");
	json_dumpf(f, stdout, JSON_INDENT(4) | JSON_PRESERVE_ORDER);
	putchar('\n');
	json_decref(f);
	return 0;
}
