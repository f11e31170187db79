/*
 * nft.c - cell's nftables rules.  See nft.h.
 *
 * The table `inet cell` is cell's own: one table for IPv4 and IPv6, with
 * base chains made only when a rule needs them:
 *   prerouting  (nat, dstnat)      published ports, from other hosts
 *   output      (nat, -100)        published ports, from the host itself
 *   postrouting (nat, srcnat)      masquerading
 *   forward     (filter, 0)        no traffic between two cell bridges
 *   raw         (filter, raw: prerouting, -300)
 *                                  no conntrack between the jails of a bridge
 * and the set `bridges` of the bridges cell's jails are on.  Callers hold
 * cell-net's lock (ops.c), so a listing is still true when the batch
 * made from it runs: `delete chain` and `delete table` take their rules
 * with them, and must never take another jail's.
 *
 * Each rule is the bytecode nft makes of its text (the comment above
 * each builder), so that `nft list table inet cell` shows that text.
 */
#include "nft.h"

#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nf_conntrack_common.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/rtnetlink.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "nfmsg.h"
#include "rtnl.h"

#define TABLE "cell"
#define SET   "bridges"
/* The set's id within a batch that makes it: a rule of the same batch
 * refers to it by name or by this id. */
#define SET_ID 1
/* Longest comment: "cell-bridge:" + name + ":" + network. */
#define COMMENT_MAX 128
/* Longest chain name worth reading: cell's are short. */
#define CHAIN_MAX 32
/* The priorities nft calls raw, dstnat and srcnat (NF_IP_PRI_RAW,
 * NF_IP_PRI_NAT_DST, NF_IP_PRI_NAT_SRC). */
#define PRIO_RAW    (-300)
#define PRIO_DSTNAT (-100)
#define PRIO_SRCNAT 100

static const char *const base_chains[] = {"prerouting", "output", "postrouting", "forward", "raw"};
#define N_CHAINS (sizeof(base_chains) / sizeof(base_chains[0]))

static int chain_slot(const char *name)
{
	for (size_t i = 0; i < N_CHAINS; i++)
		if (strcmp(name, base_chains[i]) == 0)
			return (int)i;
	return -1;
}

/* --- what the table holds --- */

struct seen_rule {
	char comment[COMMENT_MAX];
	int chain; /* its base chain's slot, -1 for another chain */
	uint64_t handle;
};

/* The table's rules (from one dump) and, for a removal, its base chains
 * and whether the set holds a bridge. */
struct peek {
	bool table;
	size_t n_rules, cap;
	struct seen_rule *rules;
	bool oom;
	bool chain[N_CHAINS];
	const char *elem; /* the element looked for */
	bool has_elem;
};

/* An attribute's string into BUF, cut to fit and always terminated. */
static void attr_str(const struct nlattr *a, char *buf, size_t size)
{
	size_t len = nla_len(a);

	if (len >= size)
		len = size - 1;
	memcpy(buf, nla_data(a), len);
	buf[len] = '\0';
}

/* libnftnl's user data: TLVs of a type and a length byte each; a rule's
 * comment is type 0, NUL included. */
static void peek_comment(const struct nlattr *udata, char *out)
{
	const unsigned char *p = nla_data(udata);
	size_t len = nla_len(udata);

	out[0] = '\0';
	while (len >= 2 && (size_t)p[1] + 2 <= len) {
		if (p[0] == 0) {
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
	struct seen_rule *r;
	const struct nlattr *a;
	int left;
	char chain[CHAIN_MAX];

	if ((nlh->nlmsg_type & 0xff) != NFT_MSG_NEWRULE)
		return NL_CB_OK;
	if (pk->n_rules == pk->cap) {
		size_t cap = pk->cap ? pk->cap * 2 : 64;
		void *more = realloc(pk->rules, cap * sizeof(*pk->rules));

		if (more == NULL) {
			pk->oom = true;
			return NL_CB_ERROR;
		}
		pk->rules = more;
		pk->cap = cap;
	}
	r = &pk->rules[pk->n_rules++];
	memset(r, 0, sizeof(*r));
	r->chain = -1;
	nla_for_each(a, nlh, sizeof(struct nfgenmsg), left)
	{
		if (nla_type(a) == NFTA_RULE_USERDATA) {
			peek_comment(a, r->comment);
		} else if (nla_type(a) == NFTA_RULE_CHAIN) {
			attr_str(a, chain, sizeof(chain));
			r->chain = chain_slot(chain);
		} else if (nla_type(a) == NFTA_RULE_HANDLE && nla_len(a) == sizeof(uint64_t)) {
			r->handle = be64toh(nla_u64(a));
		}
	}
	return NL_CB_OK;
}

static int peek_chain(const struct nlmsghdr *nlh, void *data)
{
	struct peek *pk = data;
	const struct nlattr *a;
	int left;
	char name[CHAIN_MAX];

	if ((nlh->nlmsg_type & 0xff) != NFT_MSG_NEWCHAIN)
		return NL_CB_OK;
	nla_for_each(a, nlh, sizeof(struct nfgenmsg), left)
	{
		int slot;

		if (nla_type(a) != NFTA_CHAIN_NAME)
			continue;
		attr_str(a, name, sizeof(name));
		slot = chain_slot(name);
		if (slot >= 0)
			pk->chain[slot] = true;
	}
	return NL_CB_OK;
}

/* Whether ELEMS (NFTA_SET_ELEM_LIST_ELEMENTS) holds interface NAME. */
static bool elems_have(const struct nlattr *elems, const char *name)
{
	const struct nlattr *elem, *a, *v;
	char key[IFNAMSIZ] = {0};
	int l1, l2, l3;

	strncpy(key, name, IFNAMSIZ - 1);
	nla_for_each_nested(elem, elems, l1)
	{
		nla_for_each_nested(a, elem, l2)
		{
			if (nla_type(a) != NFTA_SET_ELEM_KEY)
				continue;
			nla_for_each_nested(v, a, l3)
			{
				if (nla_type(v) == NFTA_DATA_VALUE && nla_len(v) == IFNAMSIZ &&
				    memcmp(nla_data(v), key, IFNAMSIZ) == 0)
					return true;
			}
		}
	}
	return false;
}

static int peek_elems(const struct nlmsghdr *nlh, void *data)
{
	struct peek *pk = data;
	const struct nlattr *a;
	int left;

	if ((nlh->nlmsg_type & 0xff) != NFT_MSG_NEWSETELEM)
		return NL_CB_OK;
	nla_for_each(a, nlh, sizeof(struct nfgenmsg), left)
	{
		if (nla_type(a) == NFTA_SET_ELEM_LIST_ELEMENTS && elems_have(a, pk->elem))
			pk->has_elem = true;
	}
	return NL_CB_OK;
}

/* An nf_tables request of TYPE about the table, to be sent. */
static struct nlmsghdr *nft_request(char *buf, int type, unsigned short flags)
{
	struct nlmsghdr *nlh = nlm_put_header(buf);
	struct nfgenmsg *nfg;

	nlh->nlmsg_type = (NFNL_SUBSYS_NFTABLES << 8) | type;
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	nfg = nlm_put_extra(nlh, sizeof(*nfg));
	nfg->nfgen_family = NFPROTO_INET;
	nfg->version = NFNETLINK_V0;
	/* NFTA_TABLE_NAME, NFTA_RULE_TABLE, NFTA_CHAIN_TABLE and
	 * NFTA_SET_ELEM_LIST_TABLE are all attribute 1: a dump of the
	 * table's objects alone. */
	nla_put_strz(nlh, NFTA_TABLE_NAME, TABLE);
	return nlh;
}

/* The table, then one dump of its rules: pk->table false when there is
 * no table (or no nf_tables at all). */
static int peek_rules(struct rtnl *nl, struct peek *pk, struct cell_err *e)
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

/* The table's base chains and, with BRIDGE, whether the set holds it
 * (no set: it does not). */
static int peek_tidy(struct rtnl *nl, struct peek *pk, const char *bridge, struct cell_err *e)
{
	char buf[256];
	struct nlmsghdr *nlh;

	if (nl_talk(nl, nft_request(buf, NFT_MSG_GETCHAIN, NLM_F_DUMP), peek_chain, pk, e) < 0)
		return -1;
	if (bridge == NULL)
		return 0;
	pk->elem = bridge;
	nlh = nft_request(buf, NFT_MSG_GETSETELEM, NLM_F_DUMP);
	nla_put_strz(nlh, NFTA_SET_ELEM_LIST_SET, SET);
	if (nl_talk(nl, nlh, peek_elems, pk, e) < 0 && e->errnum != ENOENT)
		return -1;
	cell_err_clear(e);
	return 0;
}

static int nl_open_nft(struct rtnl *nl, struct peek *pk, struct cell_err *e)
{
	memset(pk, 0, sizeof(*pk));
	if (nl_open(nl, NETLINK_NETFILTER, e) < 0)
		return cell_err_prefix(e, "nftables: list rules");
	if (peek_rules(nl, pk, e) < 0) {
		rtnl_close(nl);
		free(pk->rules);
		return cell_err_prefix(e, "nftables: list rules");
	}
	return 0;
}

static bool peek_has(const struct peek *pk, const char *comment)
{
	for (size_t i = 0; i < pk->n_rules; i++)
		if (strcmp(pk->rules[i].comment, comment) == 0)
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

/* --- the rules' matches --- */

static uint8_t nfproto(int family)
{
	return family == AF_INET6 ? NFPROTO_IPV6 : NFPROTO_IPV4;
}

/* meta iifname/oifname (KEY) OP "NAME". */
static void match_ifname(struct nfmsg_batch *b, uint32_t key, uint32_t op, const char *name)
{
	char value[IFNAMSIZ] = {0};

	strncpy(value, name, IFNAMSIZ - 1);
	nfx_meta(b, key, NFMSG_REG_1);
	nfx_cmp(b, op, NFMSG_REG_1, value, sizeof(value));
}

/* meta nfproto ipv4|ipv6: the dependency of an ip/ip6 match in an
 * inet table. */
static void match_nfproto(struct nfmsg_batch *b, int family)
{
	uint8_t v = nfproto(family);

	nfx_meta(b, NFT_META_NFPROTO, NFMSG_REG_1);
	nfx_cmp(b, NFT_CMP_EQ, NFMSG_REG_1, &v, sizeof(v));
}

/* ip saddr/daddr (at OFFSET of the network header) in NET: as nft
 * makes it, the bytes of the prefix compared, or, when the prefix ends
 * inside a byte, the whole address masked and compared. */
static void match_addr(struct nfmsg_batch *b, uint32_t offset, const struct net_addr *net)
{
	uint32_t len = (net->prefix + 7) / 8;
	unsigned char mask[16] = {0}, zero[16] = {0};

	if (len == 0)
		return;
	if (net->prefix % 8 == 0) {
		nfx_payload(b, NFT_PAYLOAD_NETWORK_HEADER, offset, len, NFMSG_REG_1);
		nfx_cmp(b, NFT_CMP_EQ, NFMSG_REG_1, net->bytes, len);
		return;
	}
	memset(mask, 0xff, len - 1);
	mask[len - 1] = (unsigned char)(0xff << (8 - net->prefix % 8));
	len = (uint32_t)net_addr_len(net);
	nfx_payload(b, NFT_PAYLOAD_NETWORK_HEADER, offset, len, NFMSG_REG_1);
	nfx_bitwise(b, NFMSG_REG_1, mask, zero, len);
	nfx_cmp(b, NFT_CMP_EQ, NFMSG_REG_1, net->bytes, len);
}

static uint32_t saddr_offset(int family)
{
	return family == AF_INET6 ? 8 : 12;
}

static uint32_t daddr_offset(int family)
{
	return family == AF_INET6 ? 24 : 16;
}

/* ct status dnat */
static void match_ct_dnat(struct nfmsg_batch *b)
{
	uint32_t mask = IPS_DST_NAT, zero = 0;

	nfx_ct(b, NFT_CT_STATUS, NFMSG_REG_1);
	nfx_bitwise(b, NFMSG_REG_1, &mask, &zero, sizeof(mask));
	nfx_cmp(b, NFT_CMP_NEQ, NFMSG_REG_1, &zero, sizeof(zero));
}

/* --- adding a jail's rules --- */

/* The chains J's rules need, each made if missing (`add` leaves an
 * existing chain as it is), the set and the bridge's element of it. */
static void put_chains(struct nfmsg_batch *b, const struct cellnft_jail *j)
{
	nfmsg_table_add(b, TABLE);
	if (j->n_publish > 0) {
		nfmsg_chain_add(b, TABLE, "prerouting", "nat", NF_INET_PRE_ROUTING, PRIO_DSTNAT);
		nfmsg_chain_add(b, TABLE, "output", "nat", NF_INET_LOCAL_OUT, -100);
	}
	if (j->n_publish > 0 || j->nat)
		nfmsg_chain_add(b, TABLE, "postrouting", "nat", NF_INET_POST_ROUTING, PRIO_SRCNAT);
	nfmsg_chain_add(b, TABLE, "forward", "filter", NF_INET_FORWARD, 0);
	nfmsg_chain_add(b, TABLE, "raw", "filter", NF_INET_PRE_ROUTING, PRIO_RAW);
	nfmsg_ifname_set_add(b, TABLE, SET, SET_ID);
	nfmsg_ifname_elem(b, true, TABLE, SET, SET_ID, j->bridge);
}

/* In CHAIN, P's DNAT to TO:
 *   fib daddr type local meta nfproto ipv4|ipv6       (any host address)
 *   fib daddr type local ip|ip6 daddr HOST            (one)
 *     tcp|udp dport HOSTPORT dnat ip|ip6 to JAIL:JAILPORT comment "cell:KEY"
 * Only what is addressed to this host: traffic routed through it to
 * another host's port stays untouched. */
static void put_dnat(struct nfmsg_batch *b, const struct cellnft_jail *j,
		     const struct net_publish *p, const struct net_addr *to, const char *chain)
{
	uint32_t local = RTN_LOCAL;
	uint8_t l4 = p->proto == NET_UDP ? IPPROTO_UDP : IPPROTO_TCP;
	uint16_t host_port = htons(p->host_port), jail_port = htons(p->jail_port);
	char comment[COMMENT_MAX];

	nfmsg_rule_begin(b, TABLE, chain);
	nfx_fib_daddr_type(b, NFMSG_REG_1);
	nfx_cmp(b, NFT_CMP_EQ, NFMSG_REG_1, &local, sizeof(local));
	match_nfproto(b, to->family);
	if (!p->any_host)
		match_addr(b, daddr_offset(to->family), &p->host);
	nfx_meta(b, NFT_META_L4PROTO, NFMSG_REG_1);
	nfx_cmp(b, NFT_CMP_EQ, NFMSG_REG_1, &l4, sizeof(l4));
	nfx_payload(b, NFT_PAYLOAD_TRANSPORT_HEADER, 2, sizeof(host_port), NFMSG_REG_1);
	nfx_cmp(b, NFT_CMP_EQ, NFMSG_REG_1, &host_port, sizeof(host_port));
	nfx_immediate(b, NFMSG_REG_1, to->bytes, net_addr_len(to));
	nfx_immediate(b, NFMSG_REG_2, &jail_port, sizeof(jail_port));
	nfx_dnat(b, nfproto(to->family), NFMSG_REG_1, NFMSG_REG_2);
	snprintf(comment, sizeof(comment), "cell:%s", j->key);
	nfmsg_rule_end(b, comment);
}

/* P's DNAT in CHAIN, for each family it reaches the jail by. */
static void put_publish(struct nfmsg_batch *b, const struct cellnft_jail *j,
			const struct net_publish *p, const char *chain)
{
	const struct net_addr *targets[2] = {j->jail4, j->jail6};

	for (int i = 0; i < 2; i++) {
		const struct net_addr *to = targets[i];

		if (to == NULL || (!p->any_host && p->host.family != to->family))
			continue;
		put_dnat(b, j, p, to, chain);
	}
}

/* In forward, the drop of what would go from the bridge to another cell
 * bridge (the other bridge's rule drops the way back):
 *   iifname "BR" oifname @bridges oifname != "BR" drop
 *     comment "cell-bridge:BR" */
static void put_bridge_drop(struct nfmsg_batch *b, const char *bridge, const char *comment)
{
	nfmsg_rule_begin(b, TABLE, "forward");
	match_ifname(b, NFT_META_IIFNAME, NFT_CMP_EQ, bridge);
	nfx_meta(b, NFT_META_OIFNAME, NFMSG_REG_1);
	nfx_lookup(b, SET, SET_ID, NFMSG_REG_1);
	match_ifname(b, NFT_META_OIFNAME, NFT_CMP_NEQ, bridge);
	nfx_verdict(b, NF_DROP);
	nfmsg_rule_end(b, comment);
}

/* In postrouting, with --nat, the masquerading of one of the bridge's
 * networks leaving by another link:
 *   ip|ip6 saddr NET oifname != "BR" masquerade
 *     comment "cell-bridge:BR:NET" */
static void put_bridge_masq(struct nfmsg_batch *b, const char *bridge, const struct net_addr *net,
			    const char *comment)
{
	nfmsg_rule_begin(b, TABLE, "postrouting");
	match_nfproto(b, net->family);
	match_addr(b, saddr_offset(net->family), net);
	match_ifname(b, NFT_META_OIFNAME, NFT_CMP_NEQ, bridge);
	nfx_masquerade(b);
	nfmsg_rule_end(b, comment);
}

/* A is in NET. */
static bool in_net(const struct net_addr *a, const struct net_addr *net)
{
	struct net_addr masked = *a;

	if (a->family != net->family)
		return false;
	masked.prefix = net->prefix;
	net_addr_network(&masked, &masked);
	return memcmp(masked.bytes, net->bytes, net_addr_len(net)) == 0;
}

/* In raw, the notrack of what goes from one jail to another on the
 * bridge, which br_netfilter (when loaded, as docker loads it) hands to
 * the IP hooks of the bridge's namespace, conntrack's among them, packet
 * by packet; neither cell's NAT nor its drop needs it tracked.  What
 * goes to the host's own addresses on the bridge (a published port,
 * through the gateway) stays tracked:
 *   iifname "BR" ip|ip6 daddr NET ip|ip6 daddr != GW... notrack
 *     comment "cell-bridge:BR:notrack:NET" */
static void put_bridge_notrack(struct nfmsg_batch *b, const struct cellnft_jail *j,
			       const struct net_addr *net, const char *comment)
{
	nfmsg_rule_begin(b, TABLE, "raw");
	match_ifname(b, NFT_META_IIFNAME, NFT_CMP_EQ, j->bridge);
	match_nfproto(b, net->family);
	match_addr(b, daddr_offset(net->family), net);
	for (size_t i = 0; i < j->n_gateways; i++) {
		const struct net_addr *gw = &j->gateways[i];

		if (!in_net(gw, net))
			continue;
		nfx_payload(b, NFT_PAYLOAD_NETWORK_HEADER, daddr_offset(gw->family),
			    (uint32_t)net_addr_len(gw), NFMSG_REG_1);
		nfx_cmp(b, NFT_CMP_NEQ, NFMSG_REG_1, gw->bytes, net_addr_len(gw));
	}
	nfx_notrack(b);
	nfmsg_rule_end(b, comment);
}

/* The bridge's rules that are not there yet. */
static size_t put_bridge_rules(struct nfmsg_batch *b, const struct cellnft_jail *j,
			       const struct peek *pk)
{
	char comment[COMMENT_MAX];
	size_t n = 0;

	snprintf(comment, sizeof(comment), "cell-bridge:%s", j->bridge);
	if (!peek_has(pk, comment)) {
		n++;
		if (b != NULL)
			put_bridge_drop(b, j->bridge, comment);
	}
	for (size_t i = 0; i < j->n_subnets; i++) {
		char net[NET_ADDR_TEXT];

		net_addr_format(&j->subnets[i], true, net, sizeof(net));
		snprintf(comment, sizeof(comment), "cell-bridge:%s:notrack:%s", j->bridge, net);
		if (!peek_has(pk, comment)) {
			n++;
			if (b != NULL)
				put_bridge_notrack(b, j, &j->subnets[i], comment);
		}
		if (!j->nat)
			continue;
		snprintf(comment, sizeof(comment), "cell-bridge:%s:%s", j->bridge, net);
		if (peek_has(pk, comment))
			continue;
		n++;
		if (b != NULL)
			put_bridge_masq(b, j->bridge, &j->subnets[i], comment);
	}
	return n;
}

/* The published ports' rules, and the masquerading that makes their
 * answers come back through cell: for a connection from the host's
 * loopback (the jail could not answer 127.0.0.1; route_localnet lets
 * such a packet leave by the bridge at all)
 *   oifname "BR" ip saddr 127.0.0.0/8 ct status dnat masquerade
 * and for one from a jail on the same bridge (the answer would go
 * straight back, not through the host's conntrack)
 *   iifname "BR" oifname "BR" ct status dnat masquerade
 * both commented "cell:KEY". */
static void put_published(struct nfmsg_batch *b, const struct cellnft_jail *j)
{
	static const struct net_addr loopback = {AF_INET, 8, {127}};
	char comment[COMMENT_MAX];

	for (size_t i = 0; i < j->n_publish; i++) {
		put_publish(b, j, &j->publish[i], "prerouting");
		put_publish(b, j, &j->publish[i], "output");
	}
	snprintf(comment, sizeof(comment), "cell:%s", j->key);
	if (j->jail4 != NULL) {
		nfmsg_rule_begin(b, TABLE, "postrouting");
		match_ifname(b, NFT_META_OIFNAME, NFT_CMP_EQ, j->bridge);
		match_nfproto(b, AF_INET);
		match_addr(b, saddr_offset(AF_INET), &loopback);
		match_ct_dnat(b);
		nfx_masquerade(b);
		nfmsg_rule_end(b, comment);
	}
	nfmsg_rule_begin(b, TABLE, "postrouting");
	match_ifname(b, NFT_META_IIFNAME, NFT_CMP_EQ, j->bridge);
	match_ifname(b, NFT_META_OIFNAME, NFT_CMP_EQ, j->bridge);
	match_ct_dnat(b);
	nfx_masquerade(b);
	nfmsg_rule_end(b, comment);
}

int cellnft_add(const struct cellnft_jail *j, struct cell_err *e)
{
	struct rtnl nl = {{-1, 0}, 0};
	struct nfmsg_batch b;
	struct peek pk;
	int rc = 0;

	if (nl_open_nft(&nl, &pk, e) < 0)
		return -1;
	/* Every rule J needs there already (a jail without published
	 * ports on a bridge that has its rules): no batch. */
	if (j->n_publish > 0 || put_bridge_rules(NULL, j, &pk) > 0) {
		nfmsg_begin(&b);
		put_chains(&b, j);
		put_bridge_rules(&b, j, &pk);
		if (j->n_publish > 0)
			put_published(&b, j);
		rc = nfmsg_send(&b, &nl, "add rules", e);
	}
	rtnl_close(&nl);
	free(pk.rules);
	return rc;
}

/* --- removing them --- */

/* The doomed rules, then the element of a bridge gone, the chains left
 * empty, the table when all are. */
static void put_removal(struct nfmsg_batch *b, const struct peek *pk, const char *key,
			const char *bridge_gone)
{
	size_t left[N_CHAINS] = {0}, all = 0;

	for (size_t i = 0; i < pk->n_rules; i++) {
		const struct seen_rule *r = &pk->rules[i];

		if (r->chain < 0)
			continue;
		if (doomed(r->comment, key, bridge_gone))
			nfmsg_rule_delete(b, TABLE, base_chains[r->chain], r->handle);
		else
			left[r->chain]++;
	}
	for (size_t i = 0; i < N_CHAINS; i++)
		all += left[i];
	if (all == 0) {
		nfmsg_table_delete(b, TABLE);
		return;
	}
	if (pk->has_elem)
		nfmsg_ifname_elem(b, false, TABLE, SET, SET_ID, bridge_gone);
	for (size_t i = 0; i < N_CHAINS; i++)
		if (pk->chain[i] && left[i] == 0)
			nfmsg_chain_delete(b, TABLE, base_chains[i]);
}

int cellnft_remove(const char *key, const char *bridge_gone, struct cell_err *e)
{
	struct rtnl nl = {{-1, 0}, 0};
	struct nfmsg_batch b;
	struct peek pk;
	bool mine = false;
	int rc = 0;

	if (nl_open_nft(&nl, &pk, e) < 0)
		return -1;
	for (size_t i = 0; i < pk.n_rules && !mine; i++)
		mine = pk.rules[i].chain >= 0 && doomed(pk.rules[i].comment, key, bridge_gone);
	/* Nothing of the key's or the bridge's, and others' rules keep the
	 * table: nothing to do. */
	if (pk.table && (mine || pk.n_rules == 0)) {
		rc = peek_tidy(&nl, &pk, bridge_gone, e);
		if (rc < 0) {
			cell_err_prefix(e, "nftables: list rules");
		} else {
			nfmsg_begin(&b);
			put_removal(&b, &pk, key, bridge_gone);
			rc = nfmsg_send(&b, &nl, "delete rules", e);
		}
	}
	rtnl_close(&nl);
	free(pk.rules);
	return rc;
}
