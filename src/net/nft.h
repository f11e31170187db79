/*
 * nft.h - cell's nftables rules: published ports (DNAT), masquerading of
 * a bridge's subnets, and the drop of traffic between two cell bridges,
 * all in the table `inet cell`.
 *
 * Rules are nf_tables netlink messages built by hand (nfmsg.c: the
 * bytecode nft makes of the same rules' text, so that nft lists them as
 * text), sent as one batch per call, which the kernel commits
 * atomically: all in or none.  A jail's own rules (its published ports)
 * carry the comment "cell:KEY"; a bridge's (its masquerading, the drop
 * towards other bridges, no conntrack within it) "cell-bridge:NAME",
 * "cell-bridge:NAME:NETWORK" and "cell-bridge:NAME:notrack:NETWORK", made by the first jail on the
 * bridge that needs them and removed with the bridge.  Rules are found again by their comment in a
 * dump of the table's rules and deleted by handle.
 *
 * The dump comes first: a jail whose bridge has its rules already, and
 * no published port, sends no batch, nor does a teardown with nothing
 * to delete.
 */
#ifndef CELL_NET_NFT_H
#define CELL_NET_NFT_H

#include <stdbool.h>
#include <stddef.h>

#include "addr.h"
#include "err.h"

/* What one jail's rules are made of. */
struct cellnft_jail {
	const char *key;
	const char *bridge;
	bool nat;			/* masquerade SUBNETS leaving by another link */
	const struct net_addr *subnets; /* the bridge's networks */
	size_t n_subnets;
	const struct net_addr *gateways; /* the host's addresses on it */
	size_t n_gateways;
	const struct net_publish *publish;
	size_t n_publish;
	const struct net_addr *jail4, *jail6; /* the DNAT targets; NULL: none */
};

/* J's rules and its bridge's when missing, with the table, the base
 * chains they need and the set of bridges: one batch, or nothing when
 * all are there. */
int cellnft_add(const struct cellnft_jail *j, struct cell_err *e);

/* Deletes the rules commented "cell:KEY" (none: success) and, with
 * BRIDGE_GONE, that bridge's rules and element of the set; then the
 * base chains left empty, and the table once nothing is in it. */
int cellnft_remove(const char *key, const char *bridge_gone, struct cell_err *e);

#endif
