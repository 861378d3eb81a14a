/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec-gw counters as the views read them (stats.c), for the views that
 * live in other files (telemetry.c). Under the control-plane lock.
 */
#ifndef VECSEC_GW_STATS_VIEW_H
#define VECSEC_GW_STATS_VIEW_H

#include <arpa/inet.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "gw_dp.h"

/*
 * What a port's driver counts before (rx) or after (tx) the workers:
 * rte_eth_stats' packets the NIC missed (rx queue full: the workers were
 * not fast enough or not scheduled), rx mbuf allocation failures (the
 * pool ran out), receive errors and transmit errors. Read from ethdev at
 * each view, less a baseline taken at `reset` (ethdev's own counters and
 * /ethdev/stats are left as they are).
 */
struct port_drops {
	uint64_t imissed, rx_nombuf, ierrors, oerrors;
};
struct sa_info {
	const struct gw_sa *s;
	const struct gw_sa_conf *c;
	const char *dir, *mode, *type;
	char src[INET6_ADDRSTRLEN], dst[INET6_ADDRSTRLEN];
	bool tunnel, esn, telemetry;
	uint32_t window;                /* inbound: anti-replay window in packets */
	bool has_top;                   /* inbound: the highest number authenticated is known */
	uint64_t seq;                   /* outbound: last number sent; inbound: that top */
	struct gw_sa_stats st;          /* since the SA's reset */
	double pps, bps, since;
};

/* Port p's drops since the last reset. */
void gw_stats_port_drops(uint16_t p, struct port_drops *out);
/* Per second over the last sampling interval (0 before the second sample). */
double gw_stats_per_s(uint64_t cur, uint64_t prev);
/* The totals of the last two rate samples. */
void gw_stats_samples(struct gw_stats *cur, struct gw_stats *prev);
/* Slot's SA, for every view. */
void gw_stats_sa_info(unsigned int slot, struct sa_info *in);
/* The SA in text (`show sa`): a few indented lines. */
void gw_stats_sa_text(const struct gw_dp *dp, const struct sa_info *in, FILE *f);

#endif /* VECSEC_GW_STATS_VIEW_H */
