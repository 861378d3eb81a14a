/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec-gw's cluster table (issue #30, docs/ha.md): how many segments the
 * cluster has (strongSwan ha's segment_count, 1..16), the cluster
 * address(es) the segment filter applies to, and which segments are active
 * on this node (a 16-bit mask, bit N-1 for segment N). `--cluster` sets the
 * first two at start; the control socket's `segment +N` / `segment -N`
 * change the mask at run time (under the control-plane lock), and the
 * workers read it with one atomic load per burst. Clustering is off when
 * the count is 0 (no `--cluster`).
 */
#ifndef VECSEC_GW_HA_H
#define VECSEC_GW_HA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "gw.h"
#include "ha_seg.h"

#define GW_HA_MAX_VIP 4                 /* cluster addresses (IPv4) */

struct gw_ha {
	unsigned int count;             /* segments, 1..16; 0: clustering off */
	unsigned int nb_vip;
	uint32_t vip4[GW_HA_MAX_VIP];   /* host byte order */
	uint16_t mask;                  /* active here: written by gw_ha_set() only */
	uint64_t changes;               /* mask changes since start */
	int owner_pid;                  /* the control client of the last `segment +N` (0: none) */
};

extern struct gw_ha gw_ha;

/* The active mask as the workers read it: once per burst. */
static inline uint16_t
gw_ha_active(void)
{
	return __atomic_load_n(&gw_ha.mask, __ATOMIC_ACQUIRE);
}

/* gw_sa.ha_seg: the segment is the packet's (transport mode: its addresses) */
#define GW_HA_SEG_PKT 0xff

/* ip4 (host order) is one of the cluster addresses */
static inline bool
gw_ha_is_vip(uint32_t ip4)
{
	for (unsigned int i = 0; i < gw_ha.nb_vip; i++)
		if (gw_ha.vip4[i] == ip4)
			return true;
	return false;
}

/*
 * An SA's segment (struct gw_sa's ha_seg, set when the SA is installed):
 * an IPv4 tunnel SA whose local end (outbound: src; inbound: dst) is a
 * cluster address hashes (peer, SPI) outbound and (cluster address, SPI)
 * inbound; an outbound transport SA decides per packet (GW_HA_SEG_PKT);
 * any other SA is not the cluster's: 0. Inbound packets are filtered by
 * their own (dst, SPI), which names the same segment; the SA's number is
 * for the views.
 */
static inline uint8_t
gw_ha_sa_seg(const struct gw_sa_conf *c)
{
	uint32_t src, dst;

	if (gw_ha.count == 0)
		return 0;
	if (c->mode == GW_MODE_TRANS)
		return c->dir == GW_DIR_OUT ? GW_HA_SEG_PKT : 0;
	if (c->mode != GW_MODE_TUN4)
		return 0;
	src = (uint32_t)c->src.b[0] << 24 | (uint32_t)c->src.b[1] << 16 |
	      (uint32_t)c->src.b[2] << 8 | c->src.b[3];
	dst = (uint32_t)c->dst.b[0] << 24 | (uint32_t)c->dst.b[1] << 16 |
	      (uint32_t)c->dst.b[2] << 8 | c->dst.b[3];
	if (!gw_ha_is_vip(c->dir == GW_DIR_OUT ? src : dst))
		return 0;
	return (uint8_t)gw_ha_seg_sa(dst, c->spi, gw_ha.count);
}

/*
 * --cluster COUNT@ADDR[,ADDR...][:ACTIVE]: segment count 1..16, up to
 * GW_HA_MAX_VIP IPv4 cluster addresses, and optionally the segments active
 * at start (`1,2`, `all` or `none`, the default). 0, or -1 with the reason in err.
 */
int gw_ha_parse(const char *arg, char *err, size_t err_len);

/* The mask as text: "1,3" or "none" (buf of at least 40 bytes). */
const char *gw_ha_mask_text(uint16_t mask, char *buf, size_t len);

/*
 * The control requests `segments` and `segment +N|-N` (control thread,
 * under the control-plane lock). 0, or a negative errno with err.
 */
int gw_ha_ctrl(const char *w1, int pid, bool json, FILE *out, char *err, size_t err_len);

/*
 * The event subscription of control client pid closed (ctrl.c, under the
 * control-plane lock). When pid set the active segments (its last
 * `segment +N`: kernel-vecsec's charon, which subscribes for the life of
 * its connection), its IKE daemon is gone: every active segment is dropped,
 * as `segment -N by hangup`, so that this node stops carrying what the
 * other node's charon takes over. A charon that comes back sends its set
 * again. Nothing when clustering is off or pid is not the owner.
 */
void gw_ha_client_gone(int pid);

#endif /* VECSEC_GW_HA_H */
