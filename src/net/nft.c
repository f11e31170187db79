/*
 * nft.c - cell's nftables rules.  See nft.h.
 *
 * The table `inet cell` is cell's own: one table for IPv4 and IPv6, with
 * base chains made only when a rule needs them:
 *   prerouting  (nat, dstnat)      published ports, from other hosts
 *   output      (nat, -100)        published ports, from the host itself
 *   postrouting (nat, srcnat)      masquerading
 *   forward     (filter, 0)        no traffic between two cell bridges
 * and the set `bridges` of the bridges cell's jails are on.  Callers hold
 * cell-net's lock (ops.c), so a listing is still true when the batch
 * made from it runs: `delete chain` and `delete table` take their rules
 * with them, and must never take another jail's.
 */
#include "nft.h"

#include <arpa/inet.h>
#include <dlfcn.h>
#include <errno.h>
#include <jansson.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/nfnetlink.h>
#include <nftables/libnftables.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "rtnl.h"

#define TABLE "inet cell"
/* Longest comment: "cell-bridge:" + name + ":" + network. */
#define COMMENT_MAX 128

struct cellnft {
	struct nft_ctx *ctx;
};

/* libnftables, loaded on first use: cell-net links it not, so that the
 * commands and setups without rules do not pay for the dynamic loader's
 * work on it and its libraries (libnftnl, libxtables, libgmp): about 2 ms
 * a start on the test machine (docs/cell-net.8). */
static struct {
	void *lib;
	struct nft_ctx *(*ctx_new)(uint32_t flags);
	void (*ctx_free)(struct nft_ctx *ctx);
	int (*buffer_output)(struct nft_ctx *ctx);
	int (*buffer_error)(struct nft_ctx *ctx);
	const char *(*output)(struct nft_ctx *ctx);
	const char *(*error)(struct nft_ctx *ctx);
	void (*set_flags)(struct nft_ctx *ctx, unsigned int flags);
	int (*run)(struct nft_ctx *ctx, const char *buf);
} lib;

/* The soname of Debian's libnftables1 (libnftables.so is in -dev). */
#define LIBNFTABLES "libnftables.so.1"

static int sym(const char *name, void *out, struct cell_err *e)
{
	void *p = dlsym(lib.lib, name);

	if (p == NULL)
		return cell_err_set(e, 0, "nftables: " LIBNFTABLES ": no %s", name);
	memcpy(out, &p, sizeof(p));
	return 0;
}

static int load(struct cell_err *e)
{
	if (lib.lib != NULL)
		return 0;
	lib.lib = dlopen(LIBNFTABLES, RTLD_NOW | RTLD_LOCAL);
	if (lib.lib == NULL)
		return cell_err_set(e, 0, "nftables: load %s", dlerror());
	if (sym("nft_ctx_new", &lib.ctx_new, e) < 0 || sym("nft_ctx_free", &lib.ctx_free, e) < 0 ||
	    sym("nft_ctx_buffer_output", &lib.buffer_output, e) < 0 ||
	    sym("nft_ctx_buffer_error", &lib.buffer_error, e) < 0 ||
	    sym("nft_ctx_get_output_buffer", &lib.output, e) < 0 ||
	    sym("nft_ctx_get_error_buffer", &lib.error, e) < 0 ||
	    sym("nft_ctx_output_set_flags", &lib.set_flags, e) < 0 ||
	    sym("nft_run_cmd_from_buffer", &lib.run, e) < 0) {
		dlclose(lib.lib);
		lib.lib = NULL;
		return -1;
	}
	return 0;
}

static void cellnft_close(struct cellnft *n);

static int cellnft_open(struct cellnft *n, struct cell_err *e)
{
	if (load(e) < 0)
		return -1;
	n->ctx = lib.ctx_new(NFT_CTX_DEFAULT);
	if (n->ctx == NULL)
		return cell_err_set(e, ENOMEM, "nftables: new context");
	if (lib.buffer_output(n->ctx) < 0 || lib.buffer_error(n->ctx) < 0) {
		cellnft_close(n);
		return cell_err_set(e, ENOMEM, "nftables: buffers");
	}
	return 0;
}

static void cellnft_close(struct cellnft *n)
{
	if (n->ctx != NULL)
		lib.ctx_free(n->ctx);
	n->ctx = NULL;
}

/* The first line of libnftables' error text, without its "Error: ". */
static int nft_fail(struct cellnft *n, const char *what, struct cell_err *e)
{
	const char *msg = lib.error(n->ctx);
	size_t len;

	if (msg == NULL)
		msg = "";
	if (strncmp(msg, "Error: ", 7) == 0)
		msg += 7;
	len = strcspn(msg, "\n");
	return cell_err_set(e, 0, "nftables: %s: %.*s", what, (int)len, len > 0 ? msg : "failed");
}

/* Runs CMD; with JSON, its listing (to be freed) in *OUT. */
static int run(struct cellnft *n, const char *what, const char *cmd, json_t **out,
	       struct cell_err *e)
{
	json_error_t jerr;

	lib.set_flags(n->ctx, out != NULL ? NFT_CTX_OUTPUT_JSON | NFT_CTX_OUTPUT_HANDLE : 0);
	if (lib.run(n->ctx, cmd) != 0)
		return nft_fail(n, what, e);
	if (out == NULL)
		return 0;
	*out = json_loads(lib.output(n->ctx), 0, &jerr);
	if (*out == NULL)
		return cell_err_set(e, 0, "nftables: %s: bad JSON listing: %s", what, jerr.text);
	return 0;
}

/* --- the table's rules, without libnftables --- */

/* libnftnl's user data: TLVs of a type and a length byte each; a rule's
 * comment (NFTNL_UDATA_RULE_COMMENT) is type 0, NUL included. */
#define UDATA_RULE_COMMENT 0

/* The comments of the rules of the table, from one dump. */
struct peek {
	bool table;
	size_t n_rules;
	char (*comments)[COMMENT_MAX];
	size_t cap;
	bool oom;
};

static void peek_comment(const struct nlattr *udata, char *out)
{
	const unsigned char *p = mnl_attr_get_payload(udata);
	size_t len = mnl_attr_get_payload_len(udata);

	out[0] = '\0';
	while (len >= 2 && (size_t)p[1] + 2 <= len) {
		if (p[0] == UDATA_RULE_COMMENT) {
			size_t n = p[1] < COMMENT_MAX - 1 ? p[1] : COMMENT_MAX - 1;

			memcpy(out, p + 2, n);
			out[n] = '\0';
			return;
		}
		len -= (size_t)p[1] + 2;
		p += p[1] + 2;
	}
}

static int peek_rule(const struct nlmsghdr *nlh, void *data)
{
	struct peek *pk = data;
	const struct nlattr *a;

	if ((nlh->nlmsg_type & 0xff) != NFT_MSG_NEWRULE)
		return MNL_CB_OK;
	if (pk->n_rules == pk->cap) {
		size_t cap = pk->cap ? pk->cap * 2 : 64;
		void *more = realloc(pk->comments, cap * sizeof(*pk->comments));

		if (more == NULL) {
			pk->oom = true;
			return MNL_CB_ERROR;
		}
		pk->comments = more;
		pk->cap = cap;
	}
	pk->comments[pk->n_rules][0] = '\0';
	mnl_attr_for_each(a, nlh, sizeof(struct nfgenmsg))
	{
		if (mnl_attr_get_type(a) == NFTA_RULE_USERDATA)
			peek_comment(a, pk->comments[pk->n_rules]);
	}
	pk->n_rules++;
	return MNL_CB_OK;
}

/* An nf_tables request of TYPE about the table, to be sent. */
static struct nlmsghdr *nft_request(char *buf, int type, unsigned short flags)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct nfgenmsg *nfg;

	nlh->nlmsg_type = (NFNL_SUBSYS_NFTABLES << 8) | type;
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	nfg = mnl_nlmsg_put_extra_header(nlh, sizeof(*nfg));
	nfg->nfgen_family = NFPROTO_INET;
	nfg->version = NFNETLINK_V0;
	/* NFTA_TABLE_NAME and NFTA_RULE_TABLE are both attribute 1. */
	mnl_attr_put_strz(nlh, type == NFT_MSG_GETTABLE ? NFTA_TABLE_NAME : NFTA_RULE_TABLE,
			  "cell");
	return nlh;
}

/* The table, then one dump of its rules: pk->table false when there is
 * no table (or no nf_tables at all). */
static int peek_on(struct rtnl *nl, struct peek *pk, struct cell_err *e)
{
	char buf[256];

	if (nl_talk(nl, nft_request(buf, NFT_MSG_GETTABLE, NLM_F_ACK), NULL, NULL, e) < 0) {
		if (e->errnum != ENOENT && e->errnum != EOPNOTSUPP && e->errnum != EPROTONOSUPPORT)
			return -1;
		cell_err_clear(e);
		return 0;
	}
	pk->table = true;
	if (nl_talk(nl, nft_request(buf, NFT_MSG_GETRULE, NLM_F_DUMP), peek_rule, pk, e) == 0)
		return 0;
	return pk->oom ? cell_err_set(e, ENOMEM, "%s", "") : -1;
}

static int peek(struct peek *pk, struct cell_err *e)
{
	struct rtnl nl = {NULL, 0, 0};
	int rc;

	memset(pk, 0, sizeof(*pk));
	if (nl_open(&nl, NETLINK_NETFILTER, e) < 0)
		return cell_err_prefix(e, "nftables: list rules");
	rc = peek_on(&nl, pk, e);
	rtnl_close(&nl);
	if (rc < 0) {
		free(pk->comments);
		pk->comments = NULL;
		return cell_err_prefix(e, "nftables: list rules");
	}
	return 0;
}

static bool peek_has(const struct peek *pk, const char *comment)
{
	for (size_t i = 0; i < pk->n_rules; i++)
		if (strcmp(pk->comments[i], comment) == 0)
			return true;
	return false;
}

/* COMMENT is a rule of bridge BRIDGE's: "cell-bridge:BRIDGE[:...]". */
static bool bridge_comment(const char *comment, const char *bridge)
{
	size_t len = strlen(bridge);

	return strncmp(comment, "cell-bridge:", 12) == 0 &&
	       strncmp(comment + 12, bridge, len) == 0 &&
	       (comment[12 + len] == '\0' || comment[12 + len] == ':');
}

/* The rule is one teardown(KEY, BRIDGE_GONE) deletes. */
static bool doomed(const char *comment, const char *key, const char *bridge_gone)
{
	return (strncmp(comment, "cell:", 5) == 0 && strcmp(comment + 5, key) == 0) ||
	       (bridge_gone != NULL && bridge_comment(comment, bridge_gone));
}

/* --- adding a jail's rules --- */

static const char *ip_word(int family)
{
	return family == AF_INET6 ? "ip6" : "ip";
}

/* The chains J's rules need, each made if missing (`add` leaves an
 * existing chain as it is). */
static void put_chains(FILE *f, const struct cellnft_jail *j)
{
	fprintf(f, "add table " TABLE "\n");
	if (j->n_publish > 0) {
		fprintf(f,
			"add chain " TABLE
			" prerouting { type nat hook prerouting priority dstnat; policy accept; }\n");
		fprintf(f, "add chain " TABLE
			   " output { type nat hook output priority -100; policy accept; }\n");
	}
	if (j->n_publish > 0 || j->nat)
		fprintf(f,
			"add chain " TABLE
			" postrouting { type nat hook postrouting priority srcnat; policy accept; }\n");
	fprintf(f, "add chain " TABLE
		   " forward { type filter hook forward priority 0; policy accept; }\n");
	fprintf(f, "add set " TABLE " bridges { type ifname; }\n");
	fprintf(f, "add element " TABLE " bridges { \"%s\" }\n", j->bridge);
}

/* P's DNAT in CHAIN, for each family it reaches the jail by. */
static void put_publish(FILE *f, const struct cellnft_jail *j, const struct net_publish *p,
			const char *chain)
{
	const struct net_addr *targets[2] = {j->jail4, j->jail6};

	for (int i = 0; i < 2; i++) {
		const struct net_addr *to = targets[i];
		char host[NET_ADDR_TEXT], jail[NET_ADDR_TEXT];

		if (to == NULL || (!p->any_host && p->host.family != to->family))
			continue;
		/* Only what is addressed to this host: traffic routed
		 * through it to another host's port stays untouched. */
		fprintf(f, "add rule " TABLE " %s fib daddr type local ", chain);
		if (p->any_host) {
			fprintf(f, "meta nfproto %s ", to->family == AF_INET6 ? "ipv6" : "ipv4");
		} else {
			net_addr_format(&p->host, false, host, sizeof(host));
			fprintf(f, "%s daddr %s ", ip_word(to->family), host);
		}
		net_addr_format(to, false, jail, sizeof(jail));
		fprintf(f, "%s dport %u dnat %s to %s%s%s:%u comment \"cell:%s\"\n",
			net_proto_name(p->proto), p->host_port, ip_word(to->family),
			to->family == AF_INET6 ? "[" : "", jail, to->family == AF_INET6 ? "]" : "",
			p->jail_port, j->key);
	}
}

/* The bridge's rules that are not there yet: the drop of what would go
 * from it to another cell bridge (the other bridge's rule drops the
 * way back), and with --nat the masquerading of each of its networks
 * leaving by another link. */
static void put_bridge_rules(FILE *f, const struct cellnft_jail *j, const struct peek *pk)
{
	char comment[COMMENT_MAX];

	snprintf(comment, sizeof(comment), "cell-bridge:%s", j->bridge);
	if (!peek_has(pk, comment))
		fprintf(f,
			"add rule " TABLE
			" forward iifname \"%s\" oifname @bridges oifname != \"%s\" drop comment \"%s\"\n",
			j->bridge, j->bridge, comment);
	for (size_t i = 0; j->nat && i < j->n_subnets; i++) {
		char net[NET_ADDR_TEXT];

		net_addr_format(&j->subnets[i], true, net, sizeof(net));
		snprintf(comment, sizeof(comment), "cell-bridge:%s:%s", j->bridge, net);
		if (!peek_has(pk, comment))
			fprintf(f,
				"add rule " TABLE
				" postrouting %s saddr %s oifname != \"%s\" masquerade comment \"%s\"\n",
				ip_word(j->subnets[i].family), net, j->bridge, comment);
	}
}

/* The published ports' rules, and the masquerading that makes their
 * answers come back through cell: for a connection from the host's
 * loopback (the jail could not answer 127.0.0.1; route_localnet lets
 * such a packet leave by the bridge at all) and for one from a jail on
 * the same bridge (the answer would go straight back, not through the
 * host's conntrack). */
static void put_published(FILE *f, const struct cellnft_jail *j)
{
	for (size_t i = 0; i < j->n_publish; i++) {
		put_publish(f, j, &j->publish[i], "prerouting");
		put_publish(f, j, &j->publish[i], "output");
	}
	if (j->jail4 != NULL)
		fprintf(f,
			"add rule " TABLE
			" postrouting oifname \"%s\" ip saddr 127.0.0.0/8 ct status dnat masquerade comment \"cell:%s\"\n",
			j->bridge, j->key);
	fprintf(f,
		"add rule " TABLE
		" postrouting iifname \"%s\" oifname \"%s\" ct status dnat masquerade comment \"cell:%s\"\n",
		j->bridge, j->bridge, j->key);
}

/* Every rule J needs is there already (a jail without published ports
 * on a bridge that has its rules). */
static bool all_there(const struct cellnft_jail *j, const struct peek *pk)
{
	char *batch = NULL;
	size_t len = 0;
	FILE *f;
	bool none;

	if (j->n_publish > 0)
		return false;
	f = open_memstream(&batch, &len);
	if (f == NULL)
		return false;
	put_bridge_rules(f, j, pk);
	none = fclose(f) == 0 && len == 0;
	free(batch);
	return none;
}

static int add_batch(const struct cellnft_jail *j, const struct peek *pk, struct cell_err *e)
{
	struct cellnft n;
	char *batch = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&batch, &len);
	int rc;

	if (f == NULL)
		return cell_err_set(e, errno, "nftables: batch");
	put_chains(f, j);
	put_bridge_rules(f, j, pk);
	if (j->n_publish > 0)
		put_published(f, j);
	if (fclose(f) != 0) {
		free(batch);
		return cell_err_set(e, errno, "nftables: batch");
	}
	rc = cellnft_open(&n, e);
	if (rc == 0) {
		rc = run(&n, "add rules", batch, NULL, e);
		cellnft_close(&n);
	}
	free(batch);
	return rc;
}

int cellnft_add(const struct cellnft_jail *j, struct cell_err *e)
{
	struct peek pk;
	int rc;

	if (peek(&pk, e) < 0)
		return -1;
	rc = all_there(j, &pk) ? 0 : add_batch(j, &pk, e);
	free(pk.comments);
	return rc;
}

/* --- removing them --- */

static const char *const base_chains[] = {"prerouting", "output", "postrouting", "forward"};
#define N_CHAINS (sizeof(base_chains) / sizeof(base_chains[0]))

/* What the listing of the table holds. */
struct table_view {
	bool chain[N_CHAINS];  /* the base chain exists */
	size_t left[N_CHAINS]; /* its rules that stay */
	bool has_bridge;       /* the set holds the bridge gone */
};

static int chain_slot(const char *name)
{
	for (size_t i = 0; i < N_CHAINS; i++)
		if (name != NULL && strcmp(name, base_chains[i]) == 0)
			return (int)i;
	return -1;
}

static bool set_has(json_t *set, const char *name)
{
	json_t *elems = json_object_get(set, "elem"), *v;
	size_t i;

	json_array_foreach(elems, i, v)
	{
		if (json_is_string(v) && strcmp(json_string_value(v), name) == 0)
			return true;
	}
	return false;
}

/* One object of the listing: a rule to delete goes into the batch,
 * anything else into the view. */
static void view_item(json_t *item, const char *key, const char *bridge_gone, FILE *batch,
		      struct table_view *v)
{
	json_t *o;
	int slot;

	if ((o = json_object_get(item, "chain")) != NULL) {
		slot = chain_slot(json_string_value(json_object_get(o, "name")));
		if (slot >= 0)
			v->chain[slot] = true;
	} else if ((o = json_object_get(item, "set")) != NULL) {
		if (bridge_gone != NULL && set_has(o, bridge_gone))
			v->has_bridge = true;
	} else if ((o = json_object_get(item, "rule")) != NULL) {
		const char *chain = json_string_value(json_object_get(o, "chain"));
		const char *c = json_string_value(json_object_get(o, "comment"));

		slot = chain_slot(chain);
		if (c != NULL && chain != NULL && doomed(c, key, bridge_gone))
			fprintf(batch, "delete rule " TABLE " %s handle %lld\n", chain,
				(long long)json_integer_value(json_object_get(o, "handle")));
		else if (slot >= 0)
			v->left[slot]++;
	}
}

/* After the rules: the element of a bridge gone, the chains left
 * empty, the table when all are. */
static void put_tidy(FILE *f, const struct table_view *v, const char *bridge_gone)
{
	size_t left = 0;

	for (size_t i = 0; i < N_CHAINS; i++)
		left += v->left[i];
	if (left == 0) {
		fprintf(f, "delete table " TABLE "\n");
		return;
	}
	if (v->has_bridge)
		fprintf(f, "delete element " TABLE " bridges { \"%s\" }\n", bridge_gone);
	for (size_t i = 0; i < N_CHAINS; i++)
		if (v->chain[i] && v->left[i] == 0)
			fprintf(f, "delete chain " TABLE " %s\n", base_chains[i]);
}

static int remove_batch(json_t *listing, const char *key, const char *bridge_gone, char **batch,
			size_t *len, struct cell_err *e)
{
	struct table_view v;
	FILE *f = open_memstream(batch, len);
	json_t *item;
	size_t i;

	if (f == NULL)
		return cell_err_set(e, errno, "nftables: batch");
	memset(&v, 0, sizeof(v));
	json_array_foreach(json_object_get(listing, "nftables"), i, item)
		view_item(item, key, bridge_gone, f, &v);
	put_tidy(f, &v, bridge_gone);
	if (fclose(f) != 0)
		return cell_err_set(e, errno, "nftables: batch");
	return 0;
}

/* The listing through libnftables (JSON, with handles), and the batch
 * made from it. */
static int remove_with_nft(const char *key, const char *bridge_gone, struct cell_err *e)
{
	struct cellnft n;
	json_t *listing = NULL;
	char *batch = NULL;
	size_t len = 0;
	int rc = -1;

	if (cellnft_open(&n, e) < 0)
		return -1;
	if (run(&n, "list table " TABLE, "list table " TABLE, &listing, e) < 0 ||
	    remove_batch(listing, key, bridge_gone, &batch, &len, e) < 0)
		goto out;
	rc = run(&n, "delete rules", batch, NULL, e);
out:
	free(batch);
	json_decref(listing);
	cellnft_close(&n);
	return rc;
}

int cellnft_remove(const char *key, const char *bridge_gone, struct cell_err *e)
{
	struct peek pk;
	bool mine = false;

	if (peek(&pk, e) < 0)
		return -1;
	for (size_t i = 0; i < pk.n_rules && !mine; i++)
		mine = doomed(pk.comments[i], key, bridge_gone);
	free(pk.comments);
	/* Nothing of the key's or the bridge's, and others' rules keep the
	 * table: libnftables is not needed. */
	if (!pk.table || (!mine && pk.n_rules > 0))
		return 0;
	return remove_with_nft(key, bridge_gone, e);
}
