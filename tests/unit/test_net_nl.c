/*
 * test_net_nl.c - cell-net's netlink (src/net/nl.c) and its nf_tables
 * batches (src/net/nfmsg.c): attributes, nested ones, padding, the walk
 * of an answer (acknowledgement, error, end of a dump, another
 * request's message), and a batch's framing, numbering and overflow.
 * What the kernel makes of the messages is network.bats' and
 * net_helper.bats' to show.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/nfnetlink.h>
#include <string.h>

#include "nfmsg.h"
#include "nl.h"

/* Any message type of a family's own (above NLMSG_MIN_TYPE). */
#define RTM_NEWLINK_TEST 16

static char buf[8192] __attribute__((aligned(4)));

/* Attributes come back as they went in, padded to 4 bytes, a nested
 * one holding its own. */
static void test_attributes(void **state)
{
	struct nlmsghdr *nlh = nlm_put_header(buf);
	const struct nlattr *tb[8] = {NULL}, *a;
	struct nlattr *nest;
	uint32_t *extra = nlm_put_extra(nlh, 3);
	int left, seen = 0;

	(void)state;
	*extra = 0;
	assert_int_equal(nlh->nlmsg_len, NLMSG_HDRLEN + 4);
	nla_put_strz(nlh, 1, "cell0");
	assert_int_equal(nlh->nlmsg_len, NLMSG_HDRLEN + 4 + 4 + 8);
	nla_put_u32(nlh, 2, 0x01020304);
	nest = nla_nest_start(nlh, 3);
	nla_put_u64(nlh, 1, 42);
	nla_put_strz(nlh, 2, "x");
	nla_nest_end(nlh, nest);
	nla_put(nlh, 9, 0, NULL); /* a type beyond the table: skipped */
	nla_parse(nlh, 3, tb, 7);
	assert_non_null(tb[1]);
	assert_string_equal(nla_data(tb[1]), "cell0");
	assert_int_equal(nla_len(tb[1]), 6);
	assert_int_equal(nla_u32(tb[2]), 0x01020304);
	assert_non_null(tb[3]);
	assert_true(tb[3]->nla_type & NLA_F_NESTED);
	assert_int_equal(nla_type(tb[3]), 3);
	nla_for_each_nested(a, tb[3], left)
	{
		if (nla_type(a) == 1)
			assert_int_equal(nla_u64(a), 42);
		else
			assert_string_equal(nla_data(a), "x");
		seen++;
	}
	assert_int_equal(seen, 2);
	/* A u32 read of a shorter attribute is 0, not a read past it. */
	nlh = nlm_put_header(buf);
	nla_put(nlh, 1, 2, "ab");
	nla_parse(nlh, 0, tb, 7);
	assert_int_equal(nla_u32(tb[1]), 0);
}

/* An answer to request SEQ of PORTID: TYPE with PAYLOAD, at P. */
static size_t put_answer(char *p, uint16_t type, uint32_t seq, uint32_t portid, const void *payload,
			 size_t len)
{
	struct nlmsghdr *nlh = nlm_put_header(p);

	nlh->nlmsg_type = type;
	nlh->nlmsg_seq = seq;
	nlh->nlmsg_pid = portid;
	memcpy(nlm_put_extra(nlh, len), payload, len);
	return NLMSG_ALIGN(nlh->nlmsg_len);
}

static size_t put_error(char *p, uint32_t seq, int err)
{
	struct nlmsgerr e = {.error = err};

	return put_answer(p, NLMSG_ERROR, seq, 7, &e, sizeof(e));
}

static int count_cb(const struct nlmsghdr *nlh, void *data)
{
	(void)nlh;
	(*(int *)data)++;
	return NL_CB_OK;
}

/* The walk of an answer: messages to the callback, another request's
 * skipped; an acknowledgement or the end of a dump stops it; an error
 * fails it with its errno. */
static void test_answers(void **state)
{
	uint32_t payload = 0;
	size_t len = 0;
	int n = 0;

	(void)state;
	len += put_answer(buf + len, RTM_NEWLINK_TEST, 5, 7, &payload, sizeof(payload));
	len += put_answer(buf + len, RTM_NEWLINK_TEST, 4, 7, &payload, sizeof(payload));
	len += put_answer(buf + len, RTM_NEWLINK_TEST, 5, 0, &payload, sizeof(payload));
	assert_int_equal(nl_cb_run(buf, len, 5, 7, count_cb, &n), NL_CB_OK);
	assert_int_equal(n, 2);
	len += put_error(buf + len, 5, 0);
	n = 0;
	assert_int_equal(nl_cb_run(buf, len, 5, 7, count_cb, &n), NL_CB_STOP);
	assert_int_equal(n, 2);
	len = put_error(buf, 5, -EEXIST);
	assert_int_equal(nl_cb_run(buf, len, 5, 7, NULL, NULL), NL_CB_ERROR);
	assert_int_equal(errno, EEXIST);
	payload = 0;
	len = put_answer(buf, NLMSG_DONE, 5, 7, &payload, sizeof(payload));
	assert_int_equal(nl_cb_run(buf, len, 5, 7, count_cb, &n), NL_CB_STOP);
	payload = (uint32_t)-EINTR;
	len = put_answer(buf, NLMSG_DONE, 5, 7, &payload, sizeof(payload));
	assert_int_equal(nl_cb_run(buf, len, 5, 7, count_cb, &n), NL_CB_ERROR);
	assert_int_equal(errno, EINTR);
	/* A message cut short ends the walk, unread. */
	len = put_answer(buf, RTM_NEWLINK_TEST, 5, 7, &payload, sizeof(payload));
	n = 0;
	assert_int_equal(nl_cb_run(buf, len - 1, 5, 7, count_cb, &n), NL_CB_OK);
	assert_int_equal(n, 0);
}

/* A batch: begin and end markers for nf_tables around its requests,
 * each asking for an acknowledgement; a rule's comment as nft stores
 * it. */
static void test_batch(void **state)
{
	struct nfmsg_batch b;
	const struct nlmsghdr *nlh;
	const struct nlattr *tb[NFTA_RULE_MAX + 1] = {NULL};
	const unsigned char *udata;
	int left;

	(void)state;
	nfmsg_begin(&b);
	nfmsg_table_add(&b, "cell");
	nfmsg_rule_begin(&b, "cell", "forward");
	nfx_verdict(&b, 0);
	nfmsg_rule_end(&b, "cell:k");
	assert_false(b.full);
	assert_int_equal(b.n, 2);
	assert_string_equal(b.what[1], "add rule");
	nlh = (const struct nlmsghdr *)b.buf;
	assert_int_equal(nlh->nlmsg_type, NFNL_MSG_BATCH_BEGIN);
	left = (int)(b.len + NLMSG_ALIGN(b.at->nlmsg_len));
	nlh = nlm_next(nlh, &left);
	assert_int_equal(nlh->nlmsg_type, (NFNL_SUBSYS_NFTABLES << 8) | NFT_MSG_NEWTABLE);
	assert_true(nlh->nlmsg_flags & NLM_F_ACK);
	assert_true(nlh->nlmsg_flags & NLM_F_CREATE);
	assert_false(nlh->nlmsg_flags & NLM_F_EXCL);
	nlh = nlm_next(nlh, &left);
	assert_int_equal(nlh->nlmsg_type, (NFNL_SUBSYS_NFTABLES << 8) | NFT_MSG_NEWRULE);
	nla_parse(nlh, sizeof(struct nfgenmsg), tb, NFTA_RULE_MAX);
	assert_string_equal(nla_data(tb[NFTA_RULE_CHAIN]), "forward");
	udata = nla_data(tb[NFTA_RULE_USERDATA]);
	assert_int_equal(udata[0], 0);
	assert_int_equal(udata[1], 7);
	assert_string_equal((const char *)udata + 2, "cell:k");
}

/* More requests than a batch holds: it is refused whole, never cut. */
static void test_batch_full(void **state)
{
	struct nfmsg_batch b;

	(void)state;
	nfmsg_begin(&b);
	for (int i = 0; i < NFMSG_MAX_MSGS + 5; i++)
		nfmsg_chain_delete(&b, "cell", "forward");
	assert_true(b.full);
	assert_int_equal(b.n, NFMSG_MAX_MSGS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_attributes),
		cmocka_unit_test(test_answers),
		cmocka_unit_test(test_batch),
		cmocka_unit_test(test_batch_full),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
