/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec-gw native ESP (type native): what the burst (esp_native.c) and
 * its two direction files (esp_native_out.c, esp_native_in.c) share. A
 * packet of a native SA becomes one job of libvecsec's lanes engine, with
 * its nonce, AAD and scatter-gather list here; every packet of an rx burst,
 * whatever its SA, direction and length, goes into one vecsec_aead_burst()
 * call; then each is finished on its own (trailer, window, counters).
 */
#ifndef VECSEC_GW_ESP_NATIVE_H
#define VECSEC_GW_ESP_NATIVE_H

#include "gw_dp.h"

#include <vecsec/vecsec_aead.h>
#include <vecsec/vecsec_esp.h>

/*
 * Segments of one job: a packet rx left linear or reassembly chained
 * (librte_ip_frag: 8 fragments at most by default); a longer chain is
 * linearized first, and dropped (no_mbuf) when that fails.
 */
#define GW_NAT_SEGS 16

/* One packet's job and what its finishing needs. */
struct gw_nat {
	struct vecsec_aead_job job;
	uint64_t seq;                   /* the packet's full sequence number */
	uint32_t esp_off;               /* ESP header from the packet's start */
	uint32_t ct_len;                /* ciphertext: payload, padding, trailer */
	uint16_t nh_off;                /* inbound transport: the byte that names ESP */
	uint8_t ver;                    /* inbound transport: IP version */
	uint8_t nonce[12];
	uint8_t aad[12];
	uint8_t tag[VECSEC_AEAD_TAG_LEN];       /* inbound: a tag split across segments */
	struct vecsec_seg seg[GW_NAT_SEGS];
};

/*
 * The job's data: len bytes at offset off of m, in place; linear when one
 * segment holds them, else the segment list. -1: more than GW_NAT_SEGS
 * segments.
 */
static inline int
gw_nat_data(struct gw_nat *j, struct rte_mbuf *m, uint32_t off, uint32_t len)
{
	struct rte_mbuf *s = m;
	uint32_t ns = 0;

	while (s != NULL && off >= s->data_len) {
		off -= s->data_len;
		s = s->next;
	}
	j->job.len = len;
	if (s == NULL)
		return -1;      /* ESP always has ciphertext (at least its trailer) */
	j->job.status = VECSEC_JOB_PENDING;
	if ((uint32_t)s->data_len - off >= len) {
		j->job.in = rte_pktmbuf_mtod_offset(s, const uint8_t *, off);
		j->job.out = rte_pktmbuf_mtod_offset(s, uint8_t *, off);
		j->job.in_segs = j->job.out_segs = NULL;
		j->job.nb_in_segs = j->job.nb_out_segs = 0;
		return 0;
	}
	while (len != 0 && s != NULL) {
		uint32_t take = RTE_MIN((uint32_t)s->data_len - off, len);

		if (ns == GW_NAT_SEGS)
			return -1;
		j->seg[ns].data = rte_pktmbuf_mtod_offset(s, uint8_t *, off);
		j->seg[ns++].len = take;
		len -= take;
		off = 0;
		s = s->next;
	}
	if (len != 0)
		return -1;
	j->job.in = NULL;
	j->job.out = NULL;
	j->job.in_segs = j->job.out_segs = j->seg;
	j->job.nb_in_segs = j->job.nb_out_segs = ns;
	return 0;
}

/*
 * The SA's key: struct gw_nsa's first line itself when it holds one
 * (ChaCha20; its header names the algorithm), else the ARIA object its
 * second line points to.
 */
static inline const struct vecsec_aead_key *
gw_nsa_key(const struct gw_sa *sa)
{
	const struct gw_nsa *n = sa->nsa0.nsa;
	const struct vecsec_aead_key *k = (const struct vecsec_aead_key *)(const void *)
		n->key_line;

	return k->alg != VECSEC_AEAD_NONE ? k : n->key;
}

/* esp_native_out.c: frame one outbound packet with number seq and fill its job; 0 or a drop */
int gw_native_out_prep(struct gw_sa *sa, struct rte_mbuf *m, uint64_t seq, struct gw_nat *j);
/* after the burst: the packet counted and routed (NAT-T first), or dropped */
void gw_native_out_done(struct gw_worker *w, struct gw_sa *sa, struct rte_mbuf *m,
			const struct gw_nat *j);

struct in_check;
/* esp_native_in.c: one inbound packet's number, window check and job; 0 or a drop reason + 1 */
int gw_native_in_prep(struct gw_sa *sa, struct rte_mbuf *m, struct gw_nat *j);
/* after the burst: trailer, window, lifetimes, ESP removed, then the policy check's batch */
void gw_native_in_done(struct gw_worker *w, struct gw_sa *sa, struct rte_mbuf *m,
		       const struct gw_nat *j, struct in_check *ic);

/* esp_native.c: n packets of native SAs (sas[i] is mb[i]'s), both directions, one lanes burst */
void gw_esp_native(struct gw_worker *w, struct gw_sa *const sas[], struct rte_mbuf *mb[],
		   uint16_t n);

#endif
