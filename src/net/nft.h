/*
 * nft.h - cell's nftables rules, through libnftables: published ports
 * (DNAT), masquerading of a bridge's subnets, and the drop of traffic
 * between two cell bridges, all in the table `inet cell`.
 *
 * Rules are written as nftables' own text and applied as one batch per
 * call, which the kernel commits atomically: a jail's rules are all in
 * or none are.  Each of a jail's rules carries the comment "cell:KEY";
 * they are found again in the JSON listing and deleted by handle.
 */
#ifndef CELL_NET_NFT_H
#define CELL_NET_NFT_H

#include <stdbool.h>
#include <stddef.h>

#include "addr.h"
#include "err.h"

struct nft_ctx;

struct cellnft {
	struct nft_ctx *ctx;
};

/* What one jail's rules are made of. */
struct cellnft_jail {
	const char *key;
	const char *bridge;
	bool nat;			/* masquerade SUBNETS leaving by another link */
	const struct net_addr *subnets; /* the bridge's networks */
	size_t n_subnets;
	const struct net_publish *publish;
	size_t n_publish;
	const struct net_addr *jail4, *jail6; /* the DNAT targets; NULL: none */
};

int cellnft_open(struct cellnft *n, struct cell_err *e);
void cellnft_close(struct cellnft *n);

/* The table, its base chains and the set of bridges when missing, and
 * J's rules: one batch. */
int cellnft_add(struct cellnft *n, const struct cellnft_jail *j, struct cell_err *e);

/* Deletes the rules commented "cell:KEY" (none: success); with
 * BRIDGE_GONE, that bridge's element of the set; then the base chains
 * left empty, and the table once nothing is in it.  One batch. */
int cellnft_remove(struct cellnft *n, const char *key, const char *bridge_gone, struct cell_err *e);

#endif
