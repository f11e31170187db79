/*
 * nfmsg.h - nf_tables netlink messages, built by hand (nl.h):
 * a batch of requests (tables, chains, sets, elements, rules and their
 * deletion), the expressions a rule is made of, and the batch sent and
 * its answers read.
 *
 * These are the messages nft(8) itself sends (its bytecode, as
 * `nft --debug=netlink` prints it), so that `nft list table inet cell`
 * shows the rules as nftables' own text.  Every value attribute is in
 * the byte order the kernel's nf_tables_api.c reads: big endian for
 * numbers (registers, hooks, offsets), the packet's order for the data
 * a rule compares.
 *
 * One batch, committed by the kernel atomically: all of it or nothing.
 * Each request asks for an acknowledgement, and the kernel handles the
 * whole batch inside the send, so that its answers are all queued when
 * sendmsg() returns: they are read without waiting (nfmsg_send()).
 */
#ifndef CELL_NET_NFMSG_H
#define CELL_NET_NFMSG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nl.h"

#include "err.h"
#include "rtnl.h"

/* The registers of nft's rules: the verdict and the first two of 16
 * bytes (an IPv6 address fits in one). */
enum { NFMSG_REG_VERDICT = 0, NFMSG_REG_1 = 1, NFMSG_REG_2 = 2 };

/* A batch of requests, in a static buffer (at most one batch per
 * process at a time): NFMSG_MAX_MSGS requests of at most NFMSG_MSG_MAX
 * bytes each. */
struct nfmsg_batch {
	char *buf;
	size_t len;	     /* bytes used */
	size_t n;	     /* requests, batch begin and end excluded */
	unsigned int seq0;   /* sequence number of the batch begin */
	const char **what;   /* what each request does, for errors */
	struct nlmsghdr *at; /* the request being built, NULL between */
	struct nlattr *list; /* a rule's expressions, open */
	bool full;	     /* a request did not fit: the batch is refused */
};

#define NFMSG_MAX_MSGS 600
#define NFMSG_MSG_MAX  2048

/* An empty batch: its begin message. */
void nfmsg_begin(struct nfmsg_batch *b);

/* A request of TYPE (NFT_MSG_*) with FLAGS (besides NLM_F_REQUEST and
 * NLM_F_ACK) for family inet; WHAT (a literal) names it in errors.  Its
 * attributes follow through nla_put*(b->at, ...). */
struct nlmsghdr *nfmsg_request(struct nfmsg_batch *b, int type, uint16_t flags, const char *what);

/* Sends the batch (its end message first added) on NL, a
 * NETLINK_NETFILTER socket, and reads the answers: the first error
 * fails it, with its errno.  WHAT prefixes the message. */
int nfmsg_send(struct nfmsg_batch *b, struct rtnl *nl, const char *what, struct cell_err *e);

/* --- requests --- */

/* The table, its base chain NAME (TYPE "nat" or "filter", on HOOK at
 * PRIORITY, policy accept), and its set SET of interface names; each
 * made only if missing (NLM_F_CREATE without NLM_F_EXCL). */
void nfmsg_table_add(struct nfmsg_batch *b, const char *table);
void nfmsg_chain_add(struct nfmsg_batch *b, const char *table, const char *name, const char *type,
		     int hook, int priority);
void nfmsg_ifname_set_add(struct nfmsg_batch *b, const char *table, const char *set,
			  uint32_t set_id);
/* Element IFNAME of SET: added (ADD) if missing, or deleted. */
void nfmsg_ifname_elem(struct nfmsg_batch *b, bool add, const char *table, const char *set,
		       uint32_t set_id, const char *ifname);

void nfmsg_rule_delete(struct nfmsg_batch *b, const char *table, const char *chain,
		       uint64_t handle);
void nfmsg_chain_delete(struct nfmsg_batch *b, const char *table, const char *chain);
void nfmsg_table_delete(struct nfmsg_batch *b, const char *table);

/* A rule appended to CHAIN: its expressions (nfx_*) between these two;
 * the end adds COMMENT as nft stores it (its user data). */
void nfmsg_rule_begin(struct nfmsg_batch *b, const char *table, const char *chain);
void nfmsg_rule_end(struct nfmsg_batch *b, const char *comment);

/* --- a rule's expressions --- */

/* meta KEY (NFT_META_*) into DREG. */
void nfx_meta(struct nfmsg_batch *b, uint32_t key, uint32_t dreg);
/* DREG compared (NFT_CMP_EQ, _NEQ) with LEN bytes of DATA. */
void nfx_cmp(struct nfmsg_batch *b, uint32_t op, uint32_t sreg, const void *data, size_t len);
/* LEN bytes at OFFSET of header BASE (NFT_PAYLOAD_*) into DREG. */
void nfx_payload(struct nfmsg_batch *b, uint32_t base, uint32_t offset, uint32_t len,
		 uint32_t dreg);
/* The type of the packet's destination address (fib daddr type). */
void nfx_fib_daddr_type(struct nfmsg_batch *b, uint32_t dreg);
/* The conntrack KEY (NFT_CT_*) into DREG. */
void nfx_ct(struct nfmsg_batch *b, uint32_t key, uint32_t dreg);
/* REG = (REG & MASK) ^ XOR, LEN bytes. */
void nfx_bitwise(struct nfmsg_batch *b, uint32_t reg, const void *mask, const void * xor,
		 size_t len);
/* SREG looked up in set SET (by name, or by SET_ID in this batch). */
void nfx_lookup(struct nfmsg_batch *b, const char *set, uint32_t set_id, uint32_t sreg);
/* LEN bytes of DATA into DREG. */
void nfx_immediate(struct nfmsg_batch *b, uint32_t dreg, const void *data, size_t len);
/* The verdict (NF_DROP, NF_ACCEPT...). */
void nfx_verdict(struct nfmsg_batch *b, int verdict);
/* dnat to the address in REG_ADDR (of FAMILY, NFPROTO_IPV4/6) and the
 * port in REG_PROTO. */
void nfx_dnat(struct nfmsg_batch *b, uint32_t family, uint32_t reg_addr, uint32_t reg_proto);
void nfx_masquerade(struct nfmsg_batch *b);
/* The packet left untracked by conntrack. */
void nfx_notrack(struct nfmsg_batch *b);

#endif
