/*
 * jail_run.c - `cell run`: flags -> struct jail_spec -> jail_run().
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "policy.h"
#include "launch.h"
#include "spec.h"

extern char **environ;

static void run_usage(FILE *out)
{
	fputs("Usage: cell run [OPTIONS] [--] [COMMAND [ARG...]]\n"
	      "\n"
	      "Run COMMAND (default /bin/sh) in a new jail and wait for it; exit with its\n"
	      "status (128+N if killed by signal N; 125 if cell failed, 126 if COMMAND is\n"
	      "not executable, 127 if it is not found).  With -d, print the jail's name\n"
	      "and return once COMMAND runs.\n"
	      "\n"
	      "  -d, --detach            leave the jail running; its stdout and stderr go to\n"
	      "                          its log (cell logs NAME) unless they are files\n"
	      "      --rm                with -d: remove the jail when it ends\n"
	      "Identity:\n"
	      "  -n, --name NAME         the jail's name (default: generated)\n"
	      "      --hostname NAME     hostname inside (default: the --name, else \"cell\")\n"
	      "      --domainname NAME   domainname inside (default: the host's)\n"
	      "Filesystem:\n"
	      "      --rootfs DIR        run in DIR instead of the embedded root (the host's\n"
	      "                          files, read-only)\n"
	      "      --rw                make the --rootfs root writable\n"
	      "      --bind SRC:DST[:OPT] bind host path SRC at DST (repeatable); OPT: ro\n"
	      "                          or rw, and dev (device nodes work; else nodev)\n"
	      "  -w, --workdir DIR       working directory inside (default /)\n"
	      "Process:\n"
	      "  -e, --env KEY=VALUE     set a variable; KEY alone copies cell's (repeatable)\n"
	      "      --clear-env         start from an empty environment (PATH is set)\n"
	      "  -u, --user UID[:GID]    run as UID (GID: the jail's /etc/passwd, else UID)\n"
	      "      --init              run a tiny reaper as pid 1 that forwards signals\n"
	      "  -t, --tty               give the jail a pty even if stdin is not a terminal\n"
	      "  -T, --no-tty            never give the jail a pty\n"
	      "Policy and limits (the default jail policy is on; see cell(8)):\n"
	      "      --allow RULE        relax one rule: set_hostname, raw_sockets, sysvipc,\n"
	      "                          chown, mlock (repeatable)\n"
	      "      --no-policy         namespaces only: no seccomp, Landlock, capability\n"
	      "                          drop, no_new_privs, /proc masks or hidden host\n"
	      "                          secrets (to measure the policy's cost; unsafe)\n"
	      "      --nrtask N          at most N tasks (pids cgroup)\n"
	      "      --memory SIZE       memory limit, e.g. 64M (memory cgroup; no swap beyond)\n"
	      "      --swap SIZE         swap allowed beyond --memory\n"
	      "      --cpus F            CPU bandwidth, e.g. 0.5 (cpu cgroup)\n"
	      "      --cpu-time SECONDS  CPU time per process (RLIMIT_CPU: SIGXCPU, then SIGKILL)\n"
	      "      --memlock SIZE      lockable memory (RLIMIT_MEMLOCK)\n"
	      "      --data SIZE         data segment (RLIMIT_DATA)\n"
	      "      --nofile N          open files (RLIMIT_NOFILE)\n"
	      "      --nice N            start nice value; the jail cannot go below it\n"
	      "      --cgroup-parent P   create the jail's cgroups beneath P\n"
	      "Network:\n"
	      "      --net none|host     own namespace with loopback only (default), or the\n"
	      "                          host's\n"
	      "  -h, --help              show this help\n",
	      out);
}

enum {
	OPT_HOSTNAME = 256,
	OPT_DOMAINNAME,
	OPT_ROOTFS,
	OPT_RW,
	OPT_BIND,
	OPT_CLEAR_ENV,
	OPT_INIT,
	OPT_NET,
	OPT_ALLOW,
	OPT_LIMIT,
	OPT_CGROUP_PARENT,
	OPT_NO_POLICY,
	OPT_RM,
};

static const struct option run_opts[] = {
	{"name", required_argument, NULL, 'n'},
	{"detach", no_argument, NULL, 'd'},
	{"rm", no_argument, NULL, OPT_RM},
	{"hostname", required_argument, NULL, OPT_HOSTNAME},
	{"domainname", required_argument, NULL, OPT_DOMAINNAME},
	{"rootfs", required_argument, NULL, OPT_ROOTFS},
	{"rw", no_argument, NULL, OPT_RW},
	{"bind", required_argument, NULL, OPT_BIND},
	{"workdir", required_argument, NULL, 'w'},
	{"env", required_argument, NULL, 'e'},
	{"clear-env", no_argument, NULL, OPT_CLEAR_ENV},
	{"user", required_argument, NULL, 'u'},
	{"init", no_argument, NULL, OPT_INIT},
	{"tty", no_argument, NULL, 't'},
	{"no-tty", no_argument, NULL, 'T'},
	{"net", required_argument, NULL, OPT_NET},
	{"allow", required_argument, NULL, OPT_ALLOW},
	{"no-policy", no_argument, NULL, OPT_NO_POLICY},
	{"nrtask", required_argument, NULL, OPT_LIMIT},
	{"memory", required_argument, NULL, OPT_LIMIT},
	{"swap", required_argument, NULL, OPT_LIMIT},
	{"cpus", required_argument, NULL, OPT_LIMIT},
	{"cpu-time", required_argument, NULL, OPT_LIMIT},
	{"memlock", required_argument, NULL, OPT_LIMIT},
	{"data", required_argument, NULL, OPT_LIMIT},
	{"nofile", required_argument, NULL, OPT_LIMIT},
	{"nice", required_argument, NULL, OPT_LIMIT},
	{"cgroup-parent", required_argument, NULL, OPT_CGROUP_PARENT},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

static int set_string(char **field, const char *value)
{
	free(*field);
	*field = strdup(value);
	return *field == NULL ? -1 : 0;
}

/* Options applied once the environment is known. */
struct env_args {
	char **v; /* --env values, in order */
	size_t n;
	bool clear;
};

static int parse_run(int argc, char **argv, struct jail_spec *s, struct env_args *env,
		     bool *force_tty, bool *no_tty, struct cell_err *e)
{
	int c, idx;

	opterr = 0;
	while ((c = cli_getopt(argc, argv, "+dn:w:e:u:tTh", run_opts, &idx)) != -1) {
		int r = 0;

		switch (c) {
		case OPT_ALLOW:
			if (spec_allow(s, optarg, e) < 0)
				return -1;
			break;
		case OPT_LIMIT: {
			/* The flag is the parameter's name, with '_' for '-'. */
			char name[32];

			snprintf(name, sizeof(name), "%s", run_opts[idx].name);
			for (char *p = name; *p != '\0'; p++)
				if (*p == '-')
					*p = '_';
			if (spec_set_limit(s, name, optarg, e) < 0)
				return -1;
			break;
		}
		case 'd':
			s->detach = true;
			break;
		case OPT_RM:
			s->autoremove = true;
			break;
		case OPT_NO_POLICY:
			s->policy = false;
			break;
		case OPT_CGROUP_PARENT:
			r = set_string(&s->cgroup_parent, optarg);
			break;
		case 'n':
			r = set_string(&s->name, optarg);
			break;
		case OPT_HOSTNAME:
			r = set_string(&s->hostname, optarg);
			break;
		case OPT_DOMAINNAME:
			r = set_string(&s->domainname, optarg);
			break;
		case OPT_ROOTFS:
			r = set_string(&s->rootfs, optarg);
			break;
		case OPT_RW:
			s->rw = true;
			break;
		case OPT_BIND:
			if (spec_add_bind(s, optarg, e) < 0)
				return -1;
			break;
		case 'w':
			r = set_string(&s->workdir, optarg);
			break;
		case 'e':
			env->v[env->n++] = optarg;
			break;
		case OPT_CLEAR_ENV:
			env->clear = true;
			break;
		case 'u':
			if (spec_parse_user(s, optarg, e) < 0)
				return -1;
			break;
		case OPT_INIT:
			s->init = true;
			break;
		case 't':
			*force_tty = true;
			break;
		case 'T':
			*no_tty = true;
			break;
		case OPT_NET:
			if (strcmp(optarg, "none") == 0)
				s->net = JAIL_NET_NONE;
			else if (strcmp(optarg, "host") == 0)
				s->net = JAIL_NET_HOST;
			else
				return cell_err_set(e, 0, "--net %s: expected none or host",
						    optarg);
			break;
		case 'h':
			run_usage(stdout);
			exit(0);
		default:
			cli_bad_option("run", argv, run_opts);
			return -2; /* reported */
		}
		if (r < 0)
			return cell_err_set(e, ENOMEM, "option");
	}
	return optind;
}

/* A detached jail keeps an output the caller sent to a file (or
 * /dev/null); a terminal, pipe or socket would tie the jail to the
 * caller (`name=$(cell run -d ...)` would wait for the jail's end). */
static bool kept_output(int fd)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return false;
	return S_ISREG(st.st_mode) || (S_ISCHR(st.st_mode) && !isatty(fd));
}

int cmd_run(const struct cli_global *g, int argc, char **argv)
{
	static char *const default_cmd[] = {"/bin/sh", NULL};
	struct jail_spec s;
	struct env_args env = {.v = calloc((size_t)argc, sizeof(char *))};
	struct cell_err e;
	bool force_tty = false, no_tty = false;
	int first, status = 0, ret = CELL_EXIT_ERROR;

	cell_err_clear(&e);
	spec_init(&s);
	if (env.v == NULL) {
		cell_err_set(&e, ENOMEM, "arguments");
		goto fail;
	}
	first = parse_run(argc, argv, &s, &env, &force_tty, &no_tty, &e);
	if (first == -2)
		goto out; /* the option's error is printed */
	if (first < 0)
		goto fail;
	if (force_tty && no_tty) {
		cell_err_set(&e, 0, "--tty and --no-tty are exclusive");
		goto fail;
	}
	if (s.detach && force_tty) {
		cell_err_set(&e, 0, "--tty needs a jail in the foreground (not -d)");
		goto fail;
	}
	if (s.autoremove && !s.detach) {
		cell_err_set(&e, 0, "--rm is for -d: a jail in the foreground is always removed");
		goto fail;
	}
	s.tty = !s.detach && (force_tty || (!no_tty && isatty(STDIN_FILENO)));
	s.keep_stdout = s.detach && kept_output(STDOUT_FILENO);
	s.keep_stderr = s.detach && kept_output(STDERR_FILENO);
	if (first < argc) {
		if (spec_set_argv(&s, argc - first, argv + first, &e) < 0)
			goto fail;
	} else if (spec_set_argv(&s, 1, default_cmd, &e) < 0) {
		goto fail;
	}
	if (!env.clear && spec_env_import(&s, environ, &e) < 0)
		goto fail;
	for (size_t i = 0; i < env.n; i++)
		if (spec_env_set(&s, env.v[i], &e) < 0)
			goto fail;
	if (s.tty && spec_env_get(&s, "TERM") == NULL && spec_env_set(&s, "TERM=xterm", &e) < 0)
		goto fail;
	if (spec_validate(&s, &e) < 0)
		goto fail;
	/* The default jail policy, as the jail's mechanisms. */
	if (policy_defaults(&s, &e) < 0)
		goto fail;
	if (jail_run(&s, g->root, &status, &e) < 0) {
		if (status < 0)
			goto fail;
		/* The command ran: what failed after it is said, and its
		 * status is still cell's. */
		cli_fail("run", &e);
	}
	if (s.detach) {
		printf("%s\n", s.name);
		fflush(stdout);
	}
	ret = status;
	goto out;
fail:
	ret = cli_fail("run", &e);
out:
	spec_free(&s);
	free(env.v);
	return ret;
}
