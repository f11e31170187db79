/*
 * nfmsg.c - nf_tables netlink messages.  See nfmsg.h.
 *
 * The attribute names are the kernel's (linux/netfilter/nf_tables.h);
 * which attributes make which rule is what nft 1.0's own batches hold
 * (`nft --debug=mnl`), so that nft reads cell's rules back as text.
 */
#include "nfmsg.h"

#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nf_nat.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netlink.h>
#include <string.h>
#include <sys/socket.h>

/* Room for the largest batch cell-net makes (64 published ports, each
 * a rule per family in two chains, of under 1 KiB each) and more. */
#define BATCH_SIZE (NFMSG_MAX_MSGS * 640)

/* nftables' user data of a rule: its comment is TLV type 0, NUL
 * included (libnftnl's NFTNL_UDATA_RULE_COMMENT). */
#define UDATA_RULE_COMMENT 0
/* Of a set: the byte order of its key (NFTNL_UDATA_SET_KEYBYTEORDER),
 * host order (nft's BYTEORDER_HOST_ENDIAN) for an interface name. */
#define UDATA_SET_KEYBYTEORDER 0
#define BYTEORDER_HOST_ENDIAN  1
/* nft's datatype "ifname" (TYPE_IFNAME), the type of a set's key. */
#define NFT_TYPE_IFNAME 41

static char batch_buf[BATCH_SIZE];
static const char *batch_what[NFMSG_MAX_MSGS];
/* A request that did not fit is built here, and dropped. */
static char spill[NFMSG_MSG_MAX];

/* The batch begin or end: a request of nfnetlink itself, addressed to
 * the nf_tables subsystem. */
static void put_marker(struct nfmsg_batch *b, int type, unsigned int seq)
{
	struct nlmsghdr *nlh = nlm_put_header(b->buf + b->len);
	struct nfgenmsg *nfg;

	nlh->nlmsg_type = (uint16_t)type;
	nlh->nlmsg_flags = NLM_F_REQUEST;
	nlh->nlmsg_seq = seq;
	nfg = nlm_put_extra(nlh, sizeof(*nfg));
	nfg->nfgen_family = AF_UNSPEC;
	nfg->version = NFNETLINK_V0;
	nfg->res_id = htons(NFNL_SUBSYS_NFTABLES);
	b->len += nlh->nlmsg_len;
}

void nfmsg_begin(struct nfmsg_batch *b)
{
	memset(b, 0, sizeof(*b));
	b->buf = batch_buf;
	b->what = batch_what;
	put_marker(b, NFNL_MSG_BATCH_BEGIN, 0);
}

/* The request being built, counted in the batch. */
static void close_request(struct nfmsg_batch *b)
{
	if (b->at != NULL && (char *)b->at != spill)
		b->len += NLMSG_ALIGN(b->at->nlmsg_len);
	b->at = NULL;
}

struct nlmsghdr *nfmsg_request(struct nfmsg_batch *b, int type, uint16_t flags, const char *what)
{
	struct nfgenmsg *nfg;
	char *at;

	close_request(b);
	if (b->n < NFMSG_MAX_MSGS && b->len + NFMSG_MSG_MAX + NLMSG_HDRLEN * 2 <= BATCH_SIZE) {
		at = b->buf + b->len;
		b->what[b->n++] = what;
	} else {
		at = spill;
		b->full = true;
	}
	b->at = nlm_put_header(at);
	b->at->nlmsg_type = (uint16_t)((NFNL_SUBSYS_NFTABLES << 8) | type);
	b->at->nlmsg_flags = (uint16_t)(NLM_F_REQUEST | NLM_F_ACK | flags);
	b->at->nlmsg_seq = (unsigned int)b->n; /* made absolute when sent */
	nfg = nlm_put_extra(b->at, sizeof(*nfg));
	nfg->nfgen_family = NFPROTO_INET;
	nfg->version = NFNETLINK_V0;
	nfg->res_id = 0;
	return b->at;
}

/* --- sending --- */

/* The answers: the number of acknowledgements, and the first error. */
struct answers {
	unsigned int seq0;
	size_t n, acked;
	int err;
	size_t failed; /* which request, 1-based; 0 the batch itself */
};

static void read_answer(const struct nlmsghdr *nlh, struct answers *a)
{
	const struct nlmsgerr *err = nlm_payload(nlh);
	size_t which;

	if (nlh->nlmsg_type != NLMSG_ERROR || nlm_payload_len(nlh) < sizeof(struct nlmsgerr))
		return;
	which = nlh->nlmsg_seq - a->seq0;
	if (which > a->n + 1)
		return;
	a->acked++;
	if (err->error != 0 && (a->err == 0 || which < a->failed)) {
		a->err = -err->error;
		a->failed = which;
	}
}

/* Every answer queued, without waiting: the kernel handled the batch
 * inside the send. */
static int read_answers(struct rtnl *nl, struct answers *a, struct cell_err *e)
{
	static char buf[32768];

	for (;;) {
		ssize_t n = recv(nl->sock.fd, buf, sizeof(buf), MSG_DONTWAIT);
		const struct nlmsghdr *nlh = (const struct nlmsghdr *)buf;
		int left = (int)n;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		if (n < 0)
			return cell_err_set(e, errno, "read the answers");
		for (; nlm_ok(nlh, left); nlh = nlm_next(nlh, &left))
			read_answer(nlh, a);
	}
}

/* A batch larger than the socket's send buffer is refused whole
 * (EMSGSIZE): the buffer made large enough first. */
static int fit_sndbuf(struct rtnl *nl, size_t len, struct cell_err *e)
{
	int size = (int)len + 4096;

	if (len < 128 * 1024)
		return 0;
	if (setsockopt(nl->sock.fd, SOL_SOCKET, SO_SNDBUFFORCE, &size, sizeof(size)) < 0 &&
	    setsockopt(nl->sock.fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof(size)) < 0)
		return cell_err_set(e, errno, "netlink send buffer");
	return 0;
}

static void number(struct nfmsg_batch *b)
{
	size_t off = 0;

	for (size_t i = 0; i <= b->n + 1; i++) {
		struct nlmsghdr *nlh = (struct nlmsghdr *)(b->buf + off);

		nlh->nlmsg_seq = b->seq0 + (unsigned int)i;
		off += NLMSG_ALIGN(nlh->nlmsg_len);
	}
}

int nfmsg_send(struct nfmsg_batch *b, struct rtnl *nl, const char *what, struct cell_err *e)
{
	struct answers a = {0, b->n, 0, 0, 0};
	int one = 1;

	close_request(b);
	if (b->full)
		return cell_err_set(e, E2BIG, "nftables: %s: too many rules for one batch", what);
	put_marker(b, NFNL_MSG_BATCH_END, 0);
	b->seq0 = a.seq0 = nl->seq + 1;
	nl->seq += (unsigned int)b->n + 2;
	number(b);
	/* Acknowledgements without the request they answer: an error for
	 * each of hundreds of rules must not overflow the receive buffer. */
	if (setsockopt(nl->sock.fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one)) < 0 ||
	    fit_sndbuf(nl, b->len, e) < 0)
		return cell_err_prefix(e, "nftables: %s", what);
	if (nls_send(&nl->sock, b->buf, b->len) < 0)
		return cell_err_set(e, errno, "nftables: %s", what);
	if (read_answers(nl, &a, e) < 0)
		return cell_err_prefix(e, "nftables: %s", what);
	if (a.err != 0)
		return cell_err_set(e, a.err, "nftables: %s: %s", what,
				    a.failed >= 1 && a.failed <= b->n ? b->what[a.failed - 1]
								      : "the batch");
	if (a.acked < b->n)
		return cell_err_set(e, EPROTO, "nftables: %s: %zu of %zu requests answered", what,
				    a.acked, b->n);
	return 0;
}

/* --- requests --- */

void nfmsg_table_add(struct nfmsg_batch *b, const char *table)
{
	struct nlmsghdr *nlh = nfmsg_request(b, NFT_MSG_NEWTABLE, NLM_F_CREATE, "add table");

	nla_put_strz(nlh, NFTA_TABLE_NAME, table);
	nla_put_u32(nlh, NFTA_TABLE_FLAGS, 0);
}

void nfmsg_chain_add(struct nfmsg_batch *b, const char *table, const char *name, const char *type,
		     int hook, int priority)
{
	struct nlmsghdr *nlh = nfmsg_request(b, NFT_MSG_NEWCHAIN, NLM_F_CREATE, "add chain");
	struct nlattr *h;

	nla_put_strz(nlh, NFTA_CHAIN_TABLE, table);
	nla_put_strz(nlh, NFTA_CHAIN_NAME, name);
	nla_put_strz(nlh, NFTA_CHAIN_TYPE, type);
	nla_put_u32(nlh, NFTA_CHAIN_POLICY, htonl(NF_ACCEPT));
	h = nla_nest_start(nlh, NFTA_CHAIN_HOOK);
	nla_put_u32(nlh, NFTA_HOOK_HOOKNUM, htonl((uint32_t)hook));
	nla_put_u32(nlh, NFTA_HOOK_PRIORITY, htonl((uint32_t)priority));
	nla_nest_end(nlh, h);
}

void nfmsg_ifname_set_add(struct nfmsg_batch *b, const char *table, const char *set,
			  uint32_t set_id)
{
	struct nlmsghdr *nlh = nfmsg_request(b, NFT_MSG_NEWSET, NLM_F_CREATE, "add set");
	/* Type, length, then the byte order as a host u32. */
	unsigned char udata[6] = {UDATA_SET_KEYBYTEORDER, 4};
	uint32_t order = BYTEORDER_HOST_ENDIAN;

	memcpy(udata + 2, &order, sizeof(order));
	nla_put_strz(nlh, NFTA_SET_TABLE, table);
	nla_put_strz(nlh, NFTA_SET_NAME, set);
	nla_put_u32(nlh, NFTA_SET_FLAGS, 0);
	nla_put_u32(nlh, NFTA_SET_KEY_TYPE, htonl(NFT_TYPE_IFNAME));
	nla_put_u32(nlh, NFTA_SET_KEY_LEN, htonl(IFNAMSIZ));
	nla_put_u32(nlh, NFTA_SET_ID, htonl(set_id));
	nla_put(nlh, NFTA_SET_USERDATA, sizeof(udata), udata);
}

/* An interface name as nft keys and compares it: IFNAMSIZ bytes,
 * zero-padded. */
static void ifname_key(const char *name, char key[IFNAMSIZ])
{
	memset(key, 0, IFNAMSIZ);
	strncpy(key, name, IFNAMSIZ - 1);
}

/* DATA as an nft_data value, in nest TYPE. */
static void put_value(struct nlmsghdr *nlh, int type, const void *data, size_t len)
{
	struct nlattr *d = nla_nest_start(nlh, (uint16_t)type);

	nla_put(nlh, NFTA_DATA_VALUE, len, data);
	nla_nest_end(nlh, d);
}

void nfmsg_ifname_elem(struct nfmsg_batch *b, bool add, const char *table, const char *set,
		       uint32_t set_id, const char *ifname)
{
	struct nlmsghdr *nlh =
		nfmsg_request(b, add ? NFT_MSG_NEWSETELEM : NFT_MSG_DELSETELEM,
			      add ? NLM_F_CREATE : 0, add ? "add element" : "delete element");
	struct nlattr *list, *elem;
	char key[IFNAMSIZ];

	ifname_key(ifname, key);
	nla_put_strz(nlh, NFTA_SET_ELEM_LIST_TABLE, table);
	nla_put_strz(nlh, NFTA_SET_ELEM_LIST_SET, set);
	if (add)
		nla_put_u32(nlh, NFTA_SET_ELEM_LIST_SET_ID, htonl(set_id));
	list = nla_nest_start(nlh, NFTA_SET_ELEM_LIST_ELEMENTS);
	elem = nla_nest_start(nlh, NFTA_LIST_ELEM);
	put_value(nlh, NFTA_SET_ELEM_KEY, key, sizeof(key));
	nla_nest_end(nlh, elem);
	nla_nest_end(nlh, list);
}

void nfmsg_rule_delete(struct nfmsg_batch *b, const char *table, const char *chain, uint64_t handle)
{
	struct nlmsghdr *nlh = nfmsg_request(b, NFT_MSG_DELRULE, 0, "delete rule");

	nla_put_strz(nlh, NFTA_RULE_TABLE, table);
	nla_put_strz(nlh, NFTA_RULE_CHAIN, chain);
	nla_put_u64(nlh, NFTA_RULE_HANDLE, htobe64(handle));
}

void nfmsg_chain_delete(struct nfmsg_batch *b, const char *table, const char *chain)
{
	struct nlmsghdr *nlh = nfmsg_request(b, NFT_MSG_DELCHAIN, 0, "delete chain");

	nla_put_strz(nlh, NFTA_CHAIN_TABLE, table);
	nla_put_strz(nlh, NFTA_CHAIN_NAME, chain);
}

void nfmsg_table_delete(struct nfmsg_batch *b, const char *table)
{
	struct nlmsghdr *nlh = nfmsg_request(b, NFT_MSG_DELTABLE, 0, "delete table");

	nla_put_strz(nlh, NFTA_TABLE_NAME, table);
}

void nfmsg_rule_begin(struct nfmsg_batch *b, const char *table, const char *chain)
{
	struct nlmsghdr *nlh =
		nfmsg_request(b, NFT_MSG_NEWRULE, NLM_F_CREATE | NLM_F_APPEND, "add rule");

	nla_put_strz(nlh, NFTA_RULE_TABLE, table);
	nla_put_strz(nlh, NFTA_RULE_CHAIN, chain);
	b->list = nla_nest_start(nlh, NFTA_RULE_EXPRESSIONS);
}

void nfmsg_rule_end(struct nfmsg_batch *b, const char *comment)
{
	unsigned char udata[2 + 255];
	size_t len = strlen(comment) + 1;

	nla_nest_end(b->at, b->list);
	b->list = NULL;
	if (len > 255)
		len = 255;
	udata[0] = UDATA_RULE_COMMENT;
	udata[1] = (unsigned char)len;
	memcpy(udata + 2, comment, len - 1);
	udata[1 + len] = '\0';
	nla_put(b->at, NFTA_RULE_USERDATA, 2 + len, udata);
}

/* --- expressions --- */

/* One expression NAME of the rule; its attributes go between this and
 * expr_end(). */
static struct nlattr *expr_begin(struct nfmsg_batch *b, const char *name, struct nlattr **data)
{
	struct nlattr *elem = nla_nest_start(b->at, NFTA_LIST_ELEM);

	nla_put_strz(b->at, NFTA_EXPR_NAME, name);
	*data = nla_nest_start(b->at, NFTA_EXPR_DATA);
	return elem;
}

static void expr_end(struct nfmsg_batch *b, struct nlattr *elem, struct nlattr *data)
{
	nla_nest_end(b->at, data);
	nla_nest_end(b->at, elem);
}

static void put_be32(struct nfmsg_batch *b, int type, uint32_t value)
{
	nla_put_u32(b->at, (uint16_t)type, htonl(value));
}

void nfx_meta(struct nfmsg_batch *b, uint32_t key, uint32_t dreg)
{
	struct nlattr *data, *elem = expr_begin(b, "meta", &data);

	put_be32(b, NFTA_META_KEY, key);
	put_be32(b, NFTA_META_DREG, dreg);
	expr_end(b, elem, data);
}

void nfx_cmp(struct nfmsg_batch *b, uint32_t op, uint32_t sreg, const void *value, size_t len)
{
	struct nlattr *data, *elem = expr_begin(b, "cmp", &data);

	put_be32(b, NFTA_CMP_SREG, sreg);
	put_be32(b, NFTA_CMP_OP, op);
	put_value(b->at, NFTA_CMP_DATA, value, len);
	expr_end(b, elem, data);
}

void nfx_payload(struct nfmsg_batch *b, uint32_t base, uint32_t offset, uint32_t len, uint32_t dreg)
{
	struct nlattr *data, *elem = expr_begin(b, "payload", &data);

	put_be32(b, NFTA_PAYLOAD_DREG, dreg);
	put_be32(b, NFTA_PAYLOAD_BASE, base);
	put_be32(b, NFTA_PAYLOAD_OFFSET, offset);
	put_be32(b, NFTA_PAYLOAD_LEN, len);
	expr_end(b, elem, data);
}

void nfx_fib_daddr_type(struct nfmsg_batch *b, uint32_t dreg)
{
	struct nlattr *data, *elem = expr_begin(b, "fib", &data);

	put_be32(b, NFTA_FIB_DREG, dreg);
	put_be32(b, NFTA_FIB_RESULT, NFT_FIB_RESULT_ADDRTYPE);
	put_be32(b, NFTA_FIB_FLAGS, NFTA_FIB_F_DADDR);
	expr_end(b, elem, data);
}

void nfx_ct(struct nfmsg_batch *b, uint32_t key, uint32_t dreg)
{
	struct nlattr *data, *elem = expr_begin(b, "ct", &data);

	put_be32(b, NFTA_CT_DREG, dreg);
	put_be32(b, NFTA_CT_KEY, key);
	expr_end(b, elem, data);
}

void nfx_bitwise(struct nfmsg_batch *b, uint32_t reg, const void *mask, const void * xor,
		 size_t len)
{
	struct nlattr *data, *elem = expr_begin(b, "bitwise", &data);

	put_be32(b, NFTA_BITWISE_SREG, reg);
	put_be32(b, NFTA_BITWISE_DREG, reg);
	put_be32(b, NFTA_BITWISE_LEN, (uint32_t)len);
	put_value(b->at, NFTA_BITWISE_MASK, mask, len);
	put_value(b->at, NFTA_BITWISE_XOR, xor, len);
	expr_end(b, elem, data);
}

void nfx_lookup(struct nfmsg_batch *b, const char *set, uint32_t set_id, uint32_t sreg)
{
	struct nlattr *data, *elem = expr_begin(b, "lookup", &data);

	put_be32(b, NFTA_LOOKUP_SREG, sreg);
	nla_put_strz(b->at, NFTA_LOOKUP_SET, set);
	put_be32(b, NFTA_LOOKUP_SET_ID, set_id);
	expr_end(b, elem, data);
}

void nfx_immediate(struct nfmsg_batch *b, uint32_t dreg, const void *value, size_t len)
{
	struct nlattr *data, *elem = expr_begin(b, "immediate", &data);

	put_be32(b, NFTA_IMMEDIATE_DREG, dreg);
	put_value(b->at, NFTA_IMMEDIATE_DATA, value, len);
	expr_end(b, elem, data);
}

void nfx_verdict(struct nfmsg_batch *b, int verdict)
{
	struct nlattr *data, *elem = expr_begin(b, "immediate", &data);
	struct nlattr *d, *v;

	put_be32(b, NFTA_IMMEDIATE_DREG, NFMSG_REG_VERDICT);
	d = nla_nest_start(b->at, NFTA_IMMEDIATE_DATA);
	v = nla_nest_start(b->at, NFTA_DATA_VERDICT);
	put_be32(b, NFTA_VERDICT_CODE, (uint32_t)verdict);
	nla_nest_end(b->at, v);
	nla_nest_end(b->at, d);
	expr_end(b, elem, data);
}

void nfx_dnat(struct nfmsg_batch *b, uint32_t family, uint32_t reg_addr, uint32_t reg_proto)
{
	struct nlattr *data, *elem = expr_begin(b, "nat", &data);

	put_be32(b, NFTA_NAT_TYPE, NFT_NAT_DNAT);
	put_be32(b, NFTA_NAT_FAMILY, family);
	put_be32(b, NFTA_NAT_REG_ADDR_MIN, reg_addr);
	put_be32(b, NFTA_NAT_REG_ADDR_MAX, reg_addr);
	put_be32(b, NFTA_NAT_REG_PROTO_MIN, reg_proto);
	put_be32(b, NFTA_NAT_REG_PROTO_MAX, reg_proto);
	put_be32(b, NFTA_NAT_FLAGS, NF_NAT_RANGE_MAP_IPS | NF_NAT_RANGE_PROTO_SPECIFIED);
	expr_end(b, elem, data);
}

void nfx_masquerade(struct nfmsg_batch *b)
{
	struct nlattr *data, *elem = expr_begin(b, "masq", &data);

	expr_end(b, elem, data);
}

void nfx_notrack(struct nfmsg_batch *b)
{
	struct nlattr *data, *elem = expr_begin(b, "notrack", &data);

	expr_end(b, elem, data);
}
