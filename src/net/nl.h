/*
 * nl.h - netlink messages and their attributes, built and read in a
 * caller's buffer, and a netlink socket: what cell-net needs of
 * netlink, and no more.
 *
 * cell-net's own, instead of libmnl's: Debian ships libmnl as a shared
 * library only, and a cell-net linked with nothing dynamic starts
 * without the dynamic loader's work (docs/PERFORMANCE.md, "Network"),
 * on every bridged jail's start and end.  The layout is the kernel's
 * (linux/netlink.h): a header, a family header, then attributes of a
 * type and a length, each padded to 4 bytes; nested ones hold others.
 *
 * Writers do not check room: a request is built in a buffer its caller
 * sized for the largest it makes (rtnl.c: a page; nfmsg.c: a rule).
 */
#ifndef CELL_NET_NL_H
#define CELL_NET_NL_H

#include <linux/netlink.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>

/* --- messages --- */

/* A message header at BUF, zeroed, of length the header's. */
struct nlmsghdr *nlm_put_header(void *buf);
/* SIZE bytes (zeroed, padded) after the header: the family's header. */
void *nlm_put_extra(struct nlmsghdr *nlh, size_t size);

static inline void *nlm_payload(const struct nlmsghdr *nlh)
{
	return (char *)nlh + NLMSG_HDRLEN;
}

static inline size_t nlm_payload_len(const struct nlmsghdr *nlh)
{
	return nlh->nlmsg_len - NLMSG_HDRLEN;
}

/* Where the next attribute of NLH goes. */
static inline void *nlm_tail(const struct nlmsghdr *nlh)
{
	return (char *)nlh + NLMSG_ALIGN(nlh->nlmsg_len);
}

/* A whole message of LEN bytes left starts at NLH. */
bool nlm_ok(const struct nlmsghdr *nlh, int len);
const struct nlmsghdr *nlm_next(const struct nlmsghdr *nlh, int *len);

/* --- attributes --- */

void nla_put(struct nlmsghdr *nlh, uint16_t type, size_t len, const void *data);

static inline void nla_put_strz(struct nlmsghdr *nlh, uint16_t type, const char *s)
{
	nla_put(nlh, type, strlen(s) + 1, s);
}

static inline void nla_put_u32(struct nlmsghdr *nlh, uint16_t type, uint32_t v)
{
	nla_put(nlh, type, sizeof(v), &v);
}

static inline void nla_put_u64(struct nlmsghdr *nlh, uint16_t type, uint64_t v)
{
	nla_put(nlh, type, sizeof(v), &v);
}

/* A nested attribute: its contents are the attributes put until
 * nla_nest_end() gives it its length. */
struct nlattr *nla_nest_start(struct nlmsghdr *nlh, uint16_t type);
void nla_nest_end(struct nlmsghdr *nlh, struct nlattr *nest);

static inline uint16_t nla_type(const struct nlattr *a)
{
	return a->nla_type & NLA_TYPE_MASK;
}

static inline size_t nla_len(const struct nlattr *a)
{
	return a->nla_len - NLA_HDRLEN;
}

static inline void *nla_data(const struct nlattr *a)
{
	return (char *)a + NLA_HDRLEN;
}

/* The value of a u32 or u64 attribute; 0 when it is too short. */
uint32_t nla_u32(const struct nlattr *a);
uint64_t nla_u64(const struct nlattr *a);

bool nla_ok(const struct nlattr *a, int len);
const struct nlattr *nla_next(const struct nlattr *a, int *len);

/* The attributes of NLH after its family header of OFFSET bytes. */
static inline const struct nlattr *nla_first(const struct nlmsghdr *nlh, size_t offset, int *len)
{
	*len = (int)nlh->nlmsg_len - (int)NLMSG_HDRLEN - (int)NLMSG_ALIGN(offset);
	return (const struct nlattr *)((const char *)nlm_payload(nlh) + NLMSG_ALIGN(offset));
}

#define nla_for_each(a, nlh, offset, left)                                                         \
	for ((a) = nla_first((nlh), (offset), &(left)); nla_ok((a), (left));                       \
	     (a) = nla_next((a), &(left)))

#define nla_for_each_nested(a, nest, left)                                                         \
	for ((left) = (int)nla_len(nest), (a) = (const struct nlattr *)nla_data(nest);             \
	     nla_ok((a), (left)); (a) = nla_next((a), &(left)))

/* TB[type] for each attribute of NLH (after OFFSET) of a type up to MAX;
 * the others are skipped. */
void nla_parse(const struct nlmsghdr *nlh, size_t offset, const struct nlattr **tb, int max);

/* --- a socket --- */

struct nl_sock {
	int fd;
	uint32_t portid;
};

/* A socket of netlink bus BUS, bound, close-on-exec. */
int nls_open(struct nl_sock *s, int bus);
void nls_close(struct nl_sock *s);
ssize_t nls_send(const struct nl_sock *s, const void *buf, size_t len);
/* One datagram; -1 with ENOSPC when it did not fit in SIZE. */
ssize_t nls_recv(const struct nl_sock *s, void *buf, size_t size);

/* Each message of an answer (LEN bytes at BUF) to request SEQ: an
 * acknowledgement ends it (NL_CB_STOP), an error fails it (NL_CB_ERROR,
 * errno set), the end of a dump ends it; any other goes to CB (when
 * not NULL), which returns NL_CB_OK to go on.  NL_CB_OK at the end of
 * the buffer: more to read. */
enum { NL_CB_ERROR = -1, NL_CB_STOP = 0, NL_CB_OK = 1 };
typedef int (*nl_cb)(const struct nlmsghdr *nlh, void *data);
int nl_cb_run(const void *buf, size_t len, uint32_t seq, uint32_t portid, nl_cb cb, void *data);

#endif
