/*
 * nl.c - netlink messages, attributes and sockets.  See nl.h.
 */
#include "nl.h"

#include <errno.h>
#include <sys/socket.h>
#include <unistd.h>

struct nlmsghdr *nlm_put_header(void *buf)
{
	struct nlmsghdr *nlh = buf;

	memset(nlh, 0, NLMSG_HDRLEN);
	nlh->nlmsg_len = NLMSG_HDRLEN;
	return nlh;
}

void *nlm_put_extra(struct nlmsghdr *nlh, size_t size)
{
	void *p = nlm_tail(nlh);

	memset(p, 0, NLMSG_ALIGN(size));
	nlh->nlmsg_len = NLMSG_ALIGN(nlh->nlmsg_len) + (uint32_t)NLMSG_ALIGN(size);
	return p;
}

bool nlm_ok(const struct nlmsghdr *nlh, int len)
{
	return len >= (int)sizeof(*nlh) && nlh->nlmsg_len >= sizeof(*nlh) &&
	       (int)nlh->nlmsg_len <= len;
}

const struct nlmsghdr *nlm_next(const struct nlmsghdr *nlh, int *len)
{
	*len -= (int)NLMSG_ALIGN(nlh->nlmsg_len);
	return (const struct nlmsghdr *)((const char *)nlh + NLMSG_ALIGN(nlh->nlmsg_len));
}

void nla_put(struct nlmsghdr *nlh, uint16_t type, size_t len, const void *data)
{
	struct nlattr *a = nlm_tail(nlh);
	size_t pad = NLA_ALIGN(len) - len;

	a->nla_type = type;
	a->nla_len = (uint16_t)(NLA_HDRLEN + len);
	if (len > 0)
		memcpy(nla_data(a), data, len);
	if (pad > 0)
		memset((char *)nla_data(a) + len, 0, pad);
	nlh->nlmsg_len = NLMSG_ALIGN(nlh->nlmsg_len) + (uint32_t)NLA_ALIGN(a->nla_len);
}

struct nlattr *nla_nest_start(struct nlmsghdr *nlh, uint16_t type)
{
	struct nlattr *a = nlm_tail(nlh);

	a->nla_type = NLA_F_NESTED | type;
	a->nla_len = NLA_HDRLEN;
	nlh->nlmsg_len = NLMSG_ALIGN(nlh->nlmsg_len) + NLA_HDRLEN;
	return a;
}

void nla_nest_end(struct nlmsghdr *nlh, struct nlattr *nest)
{
	nest->nla_len = (uint16_t)((char *)nlm_tail(nlh) - (char *)nest);
}

uint32_t nla_u32(const struct nlattr *a)
{
	uint32_t v = 0;

	if (nla_len(a) >= sizeof(v))
		memcpy(&v, nla_data(a), sizeof(v));
	return v;
}

uint64_t nla_u64(const struct nlattr *a)
{
	uint64_t v = 0;

	if (nla_len(a) >= sizeof(v))
		memcpy(&v, nla_data(a), sizeof(v));
	return v;
}

bool nla_ok(const struct nlattr *a, int len)
{
	return len >= (int)sizeof(*a) && a->nla_len >= sizeof(*a) && (int)a->nla_len <= len;
}

const struct nlattr *nla_next(const struct nlattr *a, int *len)
{
	*len -= (int)NLA_ALIGN(a->nla_len);
	return (const struct nlattr *)((const char *)a + NLA_ALIGN(a->nla_len));
}

void nla_parse(const struct nlmsghdr *nlh, size_t offset, const struct nlattr **tb, int max)
{
	const struct nlattr *a;
	int left;

	nla_for_each(a, nlh, offset, left)
	{
		if (nla_type(a) <= max)
			tb[nla_type(a)] = a;
	}
}

int nls_open(struct nl_sock *s, int bus)
{
	struct sockaddr_nl addr = {.nl_family = AF_NETLINK};
	socklen_t len = sizeof(addr);
	int err;

	s->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, bus);
	if (s->fd < 0)
		return -1;
	/* Bound with the port the kernel picks, read back: answers are
	 * checked to be for it. */
	if (bind(s->fd, (struct sockaddr *)&addr, sizeof(addr)) < 0 ||
	    getsockname(s->fd, (struct sockaddr *)&addr, &len) < 0) {
		err = errno;
		close(s->fd);
		s->fd = -1;
		errno = err;
		return -1;
	}
	s->portid = addr.nl_pid;
	return 0;
}

void nls_close(struct nl_sock *s)
{
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
}

ssize_t nls_send(const struct nl_sock *s, const void *buf, size_t len)
{
	static const struct sockaddr_nl kernel = {.nl_family = AF_NETLINK};

	return sendto(s->fd, buf, len, 0, (const struct sockaddr *)&kernel, sizeof(kernel));
}

ssize_t nls_recv(const struct nl_sock *s, void *buf, size_t size)
{
	struct sockaddr_nl from;
	struct iovec iov = {buf, size};
	struct msghdr msg = {
		.msg_name = &from, .msg_namelen = sizeof(from), .msg_iov = &iov, .msg_iovlen = 1};
	ssize_t n = recvmsg(s->fd, &msg, 0);

	if (n < 0)
		return -1;
	if (msg.msg_flags & MSG_TRUNC) {
		errno = ENOSPC;
		return -1;
	}
	return n;
}

/* An NLMSG_ERROR: 0 for an acknowledgement, else its errno. */
static int error_of(const struct nlmsghdr *nlh)
{
	const struct nlmsgerr *err = nlm_payload(nlh);

	if (nlm_payload_len(nlh) < sizeof(*err))
		return EBADMSG;
	return -err->error;
}

int nl_cb_run(const void *buf, size_t len, uint32_t seq, uint32_t portid, nl_cb cb, void *data)
{
	const struct nlmsghdr *nlh = buf;
	int left = (int)len, rc;

	for (; nlm_ok(nlh, left); nlh = nlm_next(nlh, &left)) {
		/* Another request's answer (or another sender's). */
		if (nlh->nlmsg_seq != seq || (nlh->nlmsg_pid != 0 && nlh->nlmsg_pid != portid))
			continue;
		if (nlh->nlmsg_flags & NLM_F_DUMP_INTR) {
			errno = EINTR;
			return NL_CB_ERROR;
		}
		if (nlh->nlmsg_type == NLMSG_ERROR) {
			errno = error_of(nlh);
			return errno != 0 ? NL_CB_ERROR : NL_CB_STOP;
		}
		if (nlh->nlmsg_type == NLMSG_DONE) {
			int err = 0;

			/* A dump that failed says so in its end. */
			if (nlm_payload_len(nlh) >= sizeof(err))
				memcpy(&err, nlm_payload(nlh), sizeof(err));
			errno = -err;
			return err < 0 ? NL_CB_ERROR : NL_CB_STOP;
		}
		if (nlh->nlmsg_type == NLMSG_NOOP || cb == NULL)
			continue;
		rc = cb(nlh, data);
		if (rc <= NL_CB_STOP)
			return rc;
	}
	return NL_CB_OK;
}
