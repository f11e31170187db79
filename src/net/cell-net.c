/*
 * cell-net.c - the front door of cell-net, cell's network helper: the
 * command line of net-protocol (docs/cell-net.8) parsed into the
 * structures of ops.h, one call, and the result printed.
 *
 * cell-net is its own program, static as cell is (its netlink is its
 * own: nl.h), so that only a bridged jail carries its code.  cell runs
 * it as root in the network namespace of the bridge.  Exit status:
 * 0 done (and, where said, one JSON object on stdout), 1 failed (one
 * line on stderr saying what and why; a failed setup has undone itself),
 * 2 a usage error (one line).
 */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "addr.h"
#include "ops.h"

enum { EXIT_FAILED = 1, EXIT_USAGE = 2 };

static const char main_help[] =
	"Usage: cell-net COMMAND [OPTION]...\n"
	"cell's network helper for --net bridge jails; run by cell, as root, in the\n"
	"network namespace of the bridge.  Not meant to be run by hand.\n"
	"\n"
	"Commands:\n"
	"  setup     a jail's veth, addresses, routes, bridge and nftables rules\n"
	"  teardown  remove what setup made for a key\n"
	"  addr      add or delete one address of a jail\n"
	"  stats     a jail link's counters and addresses, as JSON\n"
	"\n"
	"cell-net COMMAND --help for each; docs/cell-net.8.\n";

static const char setup_help[] =
	"Usage: cell-net setup --key KEY --netns FILE [--bridge NAME] [--ifname IF]\n"
	"                      [--gateway ADDR/PREFIX]... [--addr ADDR/PREFIX]... [--nat]\n"
	"                      [--publish PROTO:HOSTADDR:HOSTPORT:JAILPORT]... [--mtu N]\n"
	"Makes a veth pair: cvXXXXXXXX (from KEY) a port of bridge NAME (default cell0,\n"
	"made if missing, with the --gateway addresses), IF (default eth0) in FILE's\n"
	"network namespace with the --addr addresses, lo up and a default route per\n"
	"family via its first gateway.  --nat masquerades the bridge's subnets and turns\n"
	"forwarding on; --publish forwards a host port (tcp|udp; HOSTADDR empty: any\n"
	"local address) to the jail's first address of the family.  The veth has the\n"
	"bridge's MTU; --mtu N (1280 to 65535) is a new bridge's (default 1500) and\n"
	"must be an existing one's.  Prints {\"host_if\":..,\"bridge\":..,\n"
	"\"bridge_made\":..,\"mtu\":..}.  A failed setup leaves nothing.\n";

static const char teardown_help[] =
	"Usage: cell-net teardown --key KEY [--bridge NAME] [--ended]\n"
	"Removes the nftables rules of KEY, its host veth if still there, then bridge\n"
	"NAME if cell made it and it has no port left, then cell's nftables table when\n"
	"empty.  --ended: the jail's processes have ended, so its veth goes with its\n"
	"namespace (the kernel's) and is not counted as a port.  Nothing left to\n"
	"remove is success.\n";

static const char addr_help[] =
	"Usage: cell-net addr add|del --netns FILE [--ifname IF] ADDR/PREFIX [--gateway ADDR]\n"
	"Adds or deletes one address on IF (default eth0) in FILE's network namespace;\n"
	"an add with --gateway also makes a default route via ADDR for a family that\n"
	"had none.\n";

static const char stats_help[] =
	"Usage: cell-net stats --netns FILE [--ifname IF]\n"
	"Prints IF's (default eth0) counters, MAC, MTU and global addresses in FILE's\n"
	"network namespace as one JSON object.\n";

enum opt_id {
	OPT_KEY = 1,
	OPT_NETNS,
	OPT_BRIDGE,
	OPT_IFNAME,
	OPT_GATEWAY,
	OPT_ADDR,
	OPT_NAT,
	OPT_PUBLISH,
	OPT_ENDED,
	OPT_MTU,
	OPT_HELP
};

static const struct option all_options[] = {
	{"key", required_argument, NULL, OPT_KEY},
	{"netns", required_argument, NULL, OPT_NETNS},
	{"bridge", required_argument, NULL, OPT_BRIDGE},
	{"ifname", required_argument, NULL, OPT_IFNAME},
	{"gateway", required_argument, NULL, OPT_GATEWAY},
	{"addr", required_argument, NULL, OPT_ADDR},
	{"nat", no_argument, NULL, OPT_NAT},
	{"publish", required_argument, NULL, OPT_PUBLISH},
	{"ended", no_argument, NULL, OPT_ENDED},
	{"mtu", required_argument, NULL, OPT_MTU},
	{"help", no_argument, NULL, OPT_HELP},
	{NULL, 0, NULL, 0},
};

static int usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int usage(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return EXIT_USAGE;
}

static int failed(const struct cell_err *e)
{
	fprintf(stderr, "%s\n", e->msg);
	return EXIT_FAILED;
}

/* An option of this command, spelt in full: getopt_long would take an
 * abbreviation, and another command's option must not pass unnoticed. */
static bool option_known(const char *arg, const char *allowed)
{
	size_t len = strcspn(arg + 2, "=");

	for (const struct option *o = all_options; o->name != NULL; o++) {
		if (strlen(o->name) == len && strncmp(arg + 2, o->name, len) == 0)
			return strchr(allowed, o->val) != NULL;
	}
	return false;
}

/* Checks the long options of ARGV against ALLOWED (a string of
 * enum opt_id values); returns the bad one, or NULL. */
static const char *bad_option(int argc, char **argv, const char *allowed)
{
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0)
			break;
		if (strncmp(argv[i], "--", 2) == 0 && !option_known(argv[i], allowed))
			return argv[i];
	}
	return NULL;
}

/* The next option of ARGV, or -1 at the end; '?' for a bad one. */
static int next_option(int argc, char **argv)
{
	opterr = 0;
	return getopt_long(argc, argv, "+", all_options, NULL);
}

static int check_name(const char *what, const char *name)
{
	if (!net_ifname_valid(name))
		return usage("bad %s name \"%s\": want 1 to 15 of [A-Za-z0-9_.-]", what, name);
	return 0;
}

static int check_key(const char *key)
{
	if (key == NULL)
		return usage("--key is missing");
	if (!net_key_valid(key))
		return usage("bad key \"%s\": want 1 to 40 of [a-z0-9-]", key);
	return 0;
}

/* One address option's value into LIST, which holds NET_MAX_ADDRS. */
static int add_addr(const char *text, struct net_addr *list, size_t *n)
{
	struct cell_err e;

	cell_err_clear(&e);
	if (*n >= NET_MAX_ADDRS)
		return usage("too many addresses (at most 32): %s", text);
	if (net_addr_parse(text, true, &list[*n], &e) < 0)
		return usage("%s", e.msg);
	(*n)++;
	return 0;
}

static int add_publish(const char *text, struct net_setup *s)
{
	struct cell_err e;

	cell_err_clear(&e);
	if (s->n_publish >= NET_MAX_PUBLISH)
		return usage("too many published ports (at most 64): %s", text);
	if (net_publish_parse(text, &s->publish[s->n_publish], &e) < 0)
		return usage("%s", e.msg);
	s->n_publish++;
	return 0;
}

/* --mtu: a decimal number, IPv6's minimum link MTU (1280) to the
 * largest the kernel takes (65535). */
static int parse_mtu(const char *text, unsigned int *mtu)
{
	unsigned long v = 0;
	size_t i;

	for (i = 0; text[i] >= '0' && text[i] <= '9' && i < 6; i++)
		v = v * 10 + (unsigned long)(text[i] - '0');
	if (i == 0 || text[i] != '\0' || v < NET_MTU_MIN || v > NET_MTU_MAX)
		return usage("bad MTU \"%s\": want %d to %d", text, NET_MTU_MIN, NET_MTU_MAX);
	*mtu = (unsigned int)v;
	return 0;
}

static int setup_option(int c, struct net_setup *s)
{
	switch (c) {
	case OPT_KEY:
		s->key = optarg;
		return 0;
	case OPT_NETNS:
		s->netns = optarg;
		return 0;
	case OPT_BRIDGE:
		s->bridge = optarg;
		return 0;
	case OPT_IFNAME:
		s->ifname = optarg;
		return 0;
	case OPT_GATEWAY:
		return add_addr(optarg, s->gateways, &s->n_gateways);
	case OPT_ADDR:
		return add_addr(optarg, s->addrs, &s->n_addrs);
	case OPT_NAT:
		s->nat = true;
		return 0;
	case OPT_PUBLISH:
		return add_publish(optarg, s);
	case OPT_MTU:
		return parse_mtu(optarg, &s->mtu);
	}
	return usage("bad option");
}

/* O (taken) as one line on stdout. */
static int print_json(json_t *o)
{
	int rc = -1;

	if (o != NULL && json_dumpf(o, stdout, JSON_PRESERVE_ORDER | JSON_COMPACT) == 0 &&
	    fputc('\n', stdout) != EOF && fflush(stdout) == 0)
		rc = 0;
	json_decref(o);
	if (rc < 0)
		fprintf(stderr, "write the result: %s\n",
			o == NULL ? "out of memory" : strerror(errno));
	return rc;
}

static int parse_setup(int argc, char **argv, struct net_setup *s)
{
	const char *bad =
		bad_option(argc, argv,
			   (const char[]){OPT_KEY, OPT_NETNS, OPT_BRIDGE, OPT_IFNAME, OPT_GATEWAY,
					  OPT_ADDR, OPT_NAT, OPT_PUBLISH, OPT_MTU, OPT_HELP, 0});
	int c, rc;

	if (bad != NULL)
		return usage("unknown option %s", bad);
	while ((c = next_option(argc, argv)) != -1) {
		if (c == OPT_HELP) {
			fputs(setup_help, stdout);
			return -1;
		}
		if (c == '?')
			return usage("bad option or missing value: %s", argv[optind - 1]);
		if ((rc = setup_option(c, s)) != 0)
			return rc;
	}
	if (optind < argc)
		return usage("unexpected argument \"%s\"", argv[optind]);
	if ((rc = check_key(s->key)) != 0)
		return rc;
	if (s->netns == NULL)
		return usage("--netns is missing");
	if ((rc = check_name("bridge", s->bridge)) != 0)
		return rc;
	return check_name("interface", s->ifname);
}

static int cmd_setup(int argc, char **argv)
{
	static struct net_setup s;
	struct net_setup_result res;
	struct cell_err e;
	int rc;

	s.bridge = "cell0";
	s.ifname = "eth0";
	rc = parse_setup(argc, argv, &s);
	if (rc != 0)
		return rc < 0 ? 0 : rc;
	cell_err_clear(&e);
	if (net_setup_check(&s, &e) < 0)
		return usage("%s", e.msg);
	if (net_setup(&s, &res, &e) < 0)
		return failed(&e);
	return print_json(json_pack("{s:s, s:s, s:b, s:I}", "host_if", res.host_if, "bridge",
				    s.bridge, "bridge_made", res.bridge_made, "mtu",
				    (json_int_t)res.mtu)) < 0
		       ? EXIT_FAILED
		       : 0;
}

static int cmd_teardown(int argc, char **argv)
{
	const char *key = NULL, *bridge = NULL;
	const char *bad =
		bad_option(argc, argv, (const char[]){OPT_KEY, OPT_BRIDGE, OPT_ENDED, OPT_HELP, 0});
	bool ended = false;
	struct cell_err e;
	int c, rc;

	if (bad != NULL)
		return usage("unknown option %s", bad);
	while ((c = next_option(argc, argv)) != -1) {
		if (c == OPT_HELP) {
			fputs(teardown_help, stdout);
			return 0;
		}
		if (c == OPT_KEY)
			key = optarg;
		else if (c == OPT_BRIDGE)
			bridge = optarg;
		else if (c == OPT_ENDED)
			ended = true;
		else
			return usage("bad option or missing value: %s", argv[optind - 1]);
	}
	if (optind < argc)
		return usage("unexpected argument \"%s\"", argv[optind]);
	if ((rc = check_key(key)) != 0)
		return rc;
	if (bridge != NULL && (rc = check_name("bridge", bridge)) != 0)
		return rc;
	cell_err_clear(&e);
	return net_teardown(key, bridge, ended, &e) < 0 ? failed(&e) : 0;
}

/* --netns, --ifname and, for addr, --gateway. */
struct jail_args {
	const char *netns, *ifname, *gateway;
};

static int parse_jail_args(int argc, char **argv, const char *allowed, const char *help,
			   struct jail_args *a)
{
	const char *bad = bad_option(argc, argv, allowed);
	int c;

	a->ifname = "eth0";
	if (bad != NULL)
		return usage("unknown option %s", bad);
	/* Permuting: the address may come before the options. */
	while ((c = getopt_long(argc, argv, "", all_options, NULL)) != -1) {
		if (c == OPT_HELP) {
			fputs(help, stdout);
			return -1;
		}
		if (c == OPT_NETNS)
			a->netns = optarg;
		else if (c == OPT_IFNAME)
			a->ifname = optarg;
		else if (c == OPT_GATEWAY)
			a->gateway = optarg;
		else
			return usage("bad option or missing value: %s", argv[optind - 1]);
	}
	if (a->netns == NULL)
		return usage("--netns is missing");
	return check_name("interface", a->ifname);
}

static int cmd_addr(int argc, char **argv)
{
	struct jail_args a = {NULL, NULL, NULL};
	struct net_addr addr, gw;
	struct cell_err e;
	bool add;
	int rc;

	opterr = 0;
	if (argc >= 2 && strcmp(argv[1], "--help") == 0) {
		fputs(addr_help, stdout);
		return 0;
	}
	if (argc < 2 || (strcmp(argv[1], "add") != 0 && strcmp(argv[1], "del") != 0))
		return usage("want add or del");
	add = strcmp(argv[1], "add") == 0;
	rc = parse_jail_args(argc - 1, argv + 1,
			     (const char[]){OPT_NETNS, OPT_IFNAME, OPT_GATEWAY, OPT_HELP, 0},
			     addr_help, &a);
	if (rc != 0)
		return rc < 0 ? 0 : rc;
	if (optind + 1 != argc - 1)
		return usage("want one ADDR/PREFIX");
	cell_err_clear(&e);
	if (net_addr_parse(argv[optind + 1], true, &addr, &e) < 0 ||
	    (a.gateway != NULL && net_addr_parse(a.gateway, false, &gw, &e) < 0))
		return usage("%s", e.msg);
	if (net_addr_change(add, a.netns, a.ifname, &addr, a.gateway != NULL ? &gw : NULL, &e) < 0)
		return failed(&e);
	return 0;
}

static json_t *stats_json(const struct net_stats *st)
{
	const struct rtnl_link *l = &st->link;
	json_t *addrs = json_array();
	char mac[18] = "";

	for (int i = 0; i < st->n_addrs; i++) {
		char text[NET_ADDR_TEXT];

		net_addr_format(&st->addrs[i], true, text, sizeof(text));
		json_array_append_new(addrs, json_string(text));
	}
	if (l->has_mac)
		snprintf(mac, sizeof(mac), "%02x:%02x:%02x:%02x:%02x:%02x", l->mac[0], l->mac[1],
			 l->mac[2], l->mac[3], l->mac[4], l->mac[5]);
	return json_pack("{s:s, s:s, s:I, s:I, s:I, s:I, s:I, s:o}", "ifname", l->name, "mac", mac,
			 "mtu", (json_int_t)l->mtu, "rx_bytes", (json_int_t)l->stats.rx_bytes,
			 "rx_packets", (json_int_t)l->stats.rx_packets, "tx_bytes",
			 (json_int_t)l->stats.tx_bytes, "tx_packets",
			 (json_int_t)l->stats.tx_packets, "addrs", addrs);
}

static int cmd_stats(int argc, char **argv)
{
	struct jail_args a = {NULL, NULL, NULL};
	static struct net_stats st;
	struct cell_err e;
	int rc;

	rc = parse_jail_args(argc, argv, (const char[]){OPT_NETNS, OPT_IFNAME, OPT_HELP, 0},
			     stats_help, &a);
	if (rc != 0)
		return rc < 0 ? 0 : rc;
	if (optind < argc)
		return usage("unexpected argument \"%s\"", argv[optind]);
	cell_err_clear(&e);
	if (net_stats(a.netns, a.ifname, &st, &e) < 0)
		return failed(&e);
	return print_json(stats_json(&st)) < 0 ? EXIT_FAILED : 0;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*run)(int argc, char **argv);
	} commands[] = {
		{"setup", cmd_setup},
		{"teardown", cmd_teardown},
		{"addr", cmd_addr},
		{"stats", cmd_stats},
	};

	if (argc < 2)
		return usage("no command (cell-net --help)");
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		fputs(main_help, stdout);
		return 0;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (strcmp(argv[1], commands[i].name) == 0)
			return commands[i].run(argc - 1, argv + 1);
	}
	return usage("unknown command \"%s\" (cell-net --help)", argv[1]);
}
