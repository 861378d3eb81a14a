/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec-gw's sequence-number and replay-window sync between the two nodes
 * of a cluster (--cluster-sync, issue #30, docs/ha.md): reservations each
 * node advertises to its partner over a dedicated UDP link and uses only
 * once acked, so that a node taking over a segment starts its outbound
 * numbers above anything the other node may have sent, and refuses every
 * inbound number the other node may have accepted. hasync.c says how.
 *
 * Everything here runs on the control side: the sync thread ("gw-hasync"),
 * the control thread (segment changes, views) and sa.c (SAs coming and
 * going), all under the control-plane lock. The workers only read what it
 * sets in the SA: the outbound cap in hard_pkts (as --seq-state's) and,
 * inbound, ha_gate / ha_in_lim.
 */
#ifndef VECSEC_GW_HASYNC_H
#define VECSEC_GW_HASYNC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "gw.h"

#define GW_HASYNC_PORT 4511
#define GW_HASYNC_BLOCK_DEFAULT 65536u  /* outbound numbers reserved per advertisement */
#define GW_HASYNC_BLOCK_MAX (1u << 30)
#define GW_HASYNC_IMPLICIT_OUT 1024u    /* numbers each node may use before any message */
#define GW_HASYNC_IMPLICIT_IN 64u

struct gw_dp;
struct gw_sa;

/* --cluster-sync LOCAL[:PORT],REMOTE[:PORT]: 0, or -1 with the reason in err. */
int gw_hasync_parse(const char *arg, char *err, size_t err_len);
/* --cluster-sync-block N: 0, or -1 with the reason in err. */
int gw_hasync_block_parse(const char *arg, char *err, size_t err_len);
bool gw_hasync_on(void);
/*
 * What moves an outbound SA's next sequence number (sa.c's
 * gw_sa_out_seq_set(), given by main.c before the SAs are set up: sa.c
 * calls this file, so this file does not call sa.c). 0, or -errno.
 */
typedef int (*gw_hasync_seq_move_fn)(struct gw_dp *dp, struct gw_sa *s,
				     const struct gw_sa_conf *c, uint64_t first, uint64_t next);
void gw_hasync_set_seq_move(gw_hasync_seq_move_fn fn);
/*
 * Start (the SAs set up, before the workers run): the socket bound and
 * the sync thread started. 0, or -errno with the reason in err.
 */
int gw_hasync_start(char *err, size_t err_len);
void gw_hasync_stop(void);

/* sa.c, an SA being set up in its slot (not active yet): gate it from the start. */
void gw_hasync_sa_bind(struct gw_sa *s, const struct gw_sa_conf *c);
/* sa.c, the same SA once its sequence counter exists (may move it: hasync.c) */
void gw_hasync_sa_ready(struct gw_dp *dp, struct gw_sa *s, const struct gw_sa_conf *c);
/* sa.c: the slot's SA is gone */
void gw_hasync_sa_unbind(unsigned int slot);
/*
 * ha.c, `segment +N` before the mask is stored: every SA of segment seg
 * jumps past the partner's reservations (outbound) and refuses what the
 * partner may have accepted (inbound).
 */
void gw_hasync_takeover(unsigned int seg);
/* `segments`: the sync state, appended to ha.c's line / object (json: members). */
void gw_hasync_show(bool json, FILE *out);
/* /vecsec_gw/segments: the sync state as a telemetry dictionary (struct rte_tel_data *) */
void gw_hasync_telemetry(void *d);
/* `show sa`: an SA's reservation / floor, for view.c */
struct gw_hasync_sa_info {
	bool out;               /* outbound: adv is the reservation R; inbound: the limit L */
	uint64_t adv;           /* advertised */
	uint64_t acked;         /* acked by the partner */
	uint64_t partner;       /* the partner's last value (what a takeover jumps past) */
};
/* false when the slot's SA is not synced (no --cluster-sync, not the cluster's) */
bool gw_hasync_sa_info(unsigned int slot, struct gw_hasync_sa_info *info);

#endif /* VECSEC_GW_HASYNC_H */
