/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec-gw IP fragments, with DPDK's librte_ip_frag.
 *
 * Inbound, on every port: IPv4 and IPv6 fragments are reassembled before
 * any classification (the SAD needs the whole ESP packet, the SPD needs the
 * ports), in one rte_ip_frag table per worker (no locks: a worker only
 * touches its own). Exact duplicates (same datagram, offset and length) are
 * dropped before the table sees them while their datagram waits, since the
 * library would otherwise discard the whole datagram; once it is
 * reassembled or dropped its fragments are forgotten, so the next datagram
 * that reuses the ID (same offsets and lengths) is taken as a new one.
 * Every fragment's IPv4 header was checked on rx; the reassembled header
 * gets a valid checksum again (the library zeroes it). Overlapping or
 * otherwise inconsistent fragments make the library discard the datagram
 * (RFC 5722 for IPv6).
 * Every fragment that does not end in a reassembled datagram is counted
 * once as GW_DROP_FRAG: invalid, duplicate, timed out (--frag-ttl), table
 * full, or still waiting when the gateway stops.
 *
 * A reassembled datagram is an mbuf chain; rte_ipsec and the cryptodevs take
 * chains. When it fits in its first mbuf it is linearized (the common case:
 * a packet a little over the MTU); otherwise the first fragment must hold
 * the headers the data path reads in place (GW_FRAG_HEAD bytes).
 *
 * Outbound, on tx: a packet larger than the port's MTU is fragmented
 * (rte_ipv4_fragment_packet / rte_ipv6_fragment_packet: the fragments are
 * new header mbufs chained to indirect mbufs on the original's data). IPv4
 * with DF cannot be fragmented (too_big); an IPv4 datagram with ID 0 (our
 * own tunnel header template) gets a fresh ID first, IPv6 fragments get a
 * fresh Identification (the library writes 0).
 */
#include "gw_dp.h"
#include "gw_log.h"

#include <errno.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_hash_crc.h>
#include <rte_ip.h>
#include <rte_ip_frag.h>
#include <rte_malloc.h>

#define GW_FRAG_BUCKET_ENTRIES 4
#define GW_FRAG_DUP_SLOTS 512           /* duplicate filter, power of two */
/* a chained datagram's first mbuf must hold this much: headers read in place */
#define GW_FRAG_HEAD 160
#define GW_IPV6_FRAG_HDR 8
/* free the death row before a call could overflow it (one call adds at most this) */
#define GW_FRAG_DR_ROOM (RTE_LIBRTE_IP_FRAG_MAX_FRAG + 1)

/* One recently seen fragment: datagram key, offset and length. */
struct gw_frag_dup {
	uint64_t tms;                   /* 0: empty */
	uint8_t addr[32];               /* src, dst (IPv4: the first 8 bytes) */
	uint32_t id;
	uint16_t ofs, len;
	uint8_t v6;
};

struct gw_frag_w {
	struct rte_ip_frag_tbl *tbl;
	struct rte_ip_frag_death_row dr;
	uint64_t ttl_cycles;
	uint32_t id6;                   /* next IPv6 fragment Identification */
	uint16_t id4;                   /* next IPv4 ID for datagrams without one */
	struct gw_frag_dup dup[GW_FRAG_DUP_SLOTS];
};

static void frag_dup_forget(struct gw_frag_w *f, const struct gw_frag_dup *k);
static bool frag_key(const struct rte_mbuf *m, struct gw_frag_dup *k);

/*
 * Count what the death row holds (one drop per fragment mbuf), forget
 * those fragments in the duplicate filter (their datagram is gone: a
 * fragment like them starts a new one), then free them.
 */
static void
frag_dr_free(struct gw_worker *w)
{
	struct gw_frag_w *f = w->frag;

	for (uint32_t i = 0; i < f->dr.cnt; i++) {
		struct gw_frag_dup k;

		w->st.drops[GW_DROP_FRAG] += f->dr.row[i]->nb_segs;
		if (frag_key(f->dr.row[i], &k))
			frag_dup_forget(f, &k);
	}
	rte_ip_frag_free_death_row(&f->dr, 0);
}

static void
frag_drop(struct gw_worker *w, struct rte_mbuf *m)
{
	w->st.drops[GW_DROP_FRAG]++;
	rte_pktmbuf_free(m);
}

/* The duplicate filter's slot of a fragment, and whether it holds that fragment. */
static struct gw_frag_dup *
frag_dup_slot(struct gw_frag_w *f, const struct gw_frag_dup *k, bool *same)
{
	uint32_t h = rte_hash_crc(k->addr, sizeof(k->addr), k->id);
	struct gw_frag_dup *s;

	h = rte_hash_crc_4byte((uint32_t)k->ofs << 16 | k->len, h ^ k->v6);
	s = &f->dup[h & (GW_FRAG_DUP_SLOTS - 1)];
	*same = s->tms != 0 && s->id == k->id && s->ofs == k->ofs && s->len == k->len &&
		s->v6 == k->v6 && memcmp(s->addr, k->addr, sizeof(s->addr)) == 0;
	return s;
}

/*
 * True when this exact fragment (datagram, offset, length) was seen within
 * the TTL and its datagram still waits: a duplicate. Otherwise remember it.
 * One slot per hash value; a slot taken by another fragment is overwritten
 * (a duplicate may then reach the table, which drops its datagram: never a
 * wrong packet). A fragment leaves the filter with its datagram, reassembled
 * or dropped (frag_dup_forget()): a sender may reuse the ID right after.
 */
static bool
frag_is_dup(struct gw_frag_w *f, const struct gw_frag_dup *k, uint64_t now)
{
	bool same;
	struct gw_frag_dup *s = frag_dup_slot(f, k, &same);

	if (same && now - s->tms <= f->ttl_cycles)
		return true;
	*s = *k;
	s->tms = now;
	return false;
}

static void
frag_dup_forget(struct gw_frag_w *f, const struct gw_frag_dup *k)
{
	bool same;
	struct gw_frag_dup *s = frag_dup_slot(f, k, &same);

	if (same)
		s->tms = 0;
}

/*
 * The duplicate filter's key of the fragment whose IP header (intact:
 * IPv4, or IPv6 with the Fragment header next) starts m. False if m holds
 * no such header.
 */
static bool
frag_key(const struct rte_mbuf *m, struct gw_frag_dup *k)
{
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);

	memset(k, 0, sizeof(*k));
	if (m->data_len < sizeof(struct rte_ipv4_hdr))
		return false;
	if ((p[0] >> 4) == 4) {
		const struct rte_ipv4_hdr *h = (const struct rte_ipv4_hdr *)p;
		uint32_t hl = (uint32_t)(h->version_ihl & 0xf) * 4;
		uint32_t tl = rte_be_to_cpu_16(h->total_length);

		if (tl < hl)
			return false;
		memcpy(k->addr, &h->src_addr, 8);
		k->id = h->packet_id;
		k->ofs = (uint16_t)((rte_be_to_cpu_16(h->fragment_offset) &
				     RTE_IPV4_HDR_OFFSET_MASK) * 8);
		k->len = (uint16_t)(tl - hl);
		return true;
	}
	if ((p[0] >> 4) == 6 && m->data_len >= sizeof(struct rte_ipv6_hdr) + GW_IPV6_FRAG_HDR &&
	    p[offsetof(struct rte_ipv6_hdr, proto)] == IPPROTO_FRAGMENT) {
		const struct rte_ipv6_hdr *h = (const struct rte_ipv6_hdr *)p;
		const struct rte_ipv6_fragment_ext *fh =
			(const struct rte_ipv6_fragment_ext *)(h + 1);
		uint32_t pl = rte_be_to_cpu_16(h->payload_len);

		if (pl < GW_IPV6_FRAG_HDR)
			return false;
		memcpy(k->addr, h->src_addr, 16);
		memcpy(k->addr + 16, h->dst_addr, 16);
		k->id = fh->id;
		k->ofs = (uint16_t)((rte_be_to_cpu_16(fh->frag_data) >> 3) * 8);
		k->len = (uint16_t)(pl - GW_IPV6_FRAG_HDR);
		k->v6 = 1;
		return true;
	}
	return false;
}

/*
 * A datagram just reassembled from fragments of key k (addresses, ID):
 * forget each of them. The library chains the fragments in offset order,
 * each fragment one segment (rx mbufs are linear): the first holds the
 * header (hl bytes) and the first payload, each next one a payload.
 */
static void
frag_dup_forget_all(struct gw_frag_w *f, const struct gw_frag_dup *k, const struct rte_mbuf *m,
		    uint32_t hl)
{
	struct gw_frag_dup d = *k;
	uint32_t ofs = 0;

	for (const struct rte_mbuf *s = m; s != NULL; s = s->next) {
		uint32_t len = s->data_len - (s == m ? RTE_MIN(hl, (uint32_t)s->data_len) : 0);

		d.ofs = (uint16_t)ofs;
		d.len = (uint16_t)len;
		frag_dup_forget(f, &d);
		ofs += len;
	}
}

/*
 * A reassembled datagram: linearize it when it fits in its first mbuf, else
 * check that the first mbuf holds the headers. NULL if dropped.
 */
static struct rte_mbuf *
frag_done(struct gw_worker *w, struct rte_mbuf *m)
{
	uint16_t segs = m->nb_segs;

	if (segs > 1 && rte_pktmbuf_tailroom(m) >= m->pkt_len - m->data_len)
		(void)rte_pktmbuf_linearize(m);
	if (m->data_len < RTE_MIN(m->pkt_len, (uint32_t)GW_FRAG_HEAD)) {
		/* a tiny first fragment: what the data path reads is not in one place */
		w->st.drops[GW_DROP_FRAG] += segs;
		rte_pktmbuf_free(m);
		return NULL;
	}
	if ((rte_pktmbuf_mtod(m, const uint8_t *)[0] >> 4) == 4) {
		/*
		 * The library wrote the length and offset and zeroed the checksum;
		 * every fragment's header was verified on rx (RFC 1122 3.2.1.2), so
		 * the header gets a valid one again (it may go on as an inner header).
		 */
		struct rte_ipv4_hdr *h = rte_pktmbuf_mtod(m, struct rte_ipv4_hdr *);

		h->hdr_checksum = 0;
		h->hdr_checksum = rte_ipv4_cksum(h);
	}
	w->st.reassembled++;
	w->st.reasm_frags += segs;
	m->l2_len = 0;
	return m;
}

static struct rte_mbuf *
frag_in4(struct gw_worker *w, struct rte_mbuf *m, uint64_t now)
{
	struct gw_frag_w *f = w->frag;
	struct rte_ipv4_hdr *h = rte_pktmbuf_mtod(m, struct rte_ipv4_hdr *);
	uint16_t fo = rte_be_to_cpu_16(h->fragment_offset);
	uint32_t ofs = (uint32_t)(fo & RTE_IPV4_HDR_OFFSET_MASK) * 8;
	uint32_t len = m->pkt_len - m->l3_len;          /* parse_l3 trimmed to total_length */
	struct gw_frag_dup k;

	/* RFC 791: all but the last carry a multiple of 8; the datagram fits 64 KiB */
	if (len == 0 || ((fo & RTE_IPV4_HDR_MF_FLAG) && (len & 7) != 0) ||
			ofs + len + m->l3_len > UINT16_MAX) {
		frag_drop(w, m);
		return NULL;
	}
	if (!frag_key(m, &k) || frag_is_dup(f, &k, now)) {
		frag_drop(w, m);
		return NULL;
	}
	if (f->dr.cnt + GW_FRAG_DR_ROOM > RTE_IP_FRAG_DEATH_ROW_MBUF_LEN)
		frag_dr_free(w);
	m->l2_len = 0;
	m = rte_ipv4_frag_reassemble_packet(f->tbl, &f->dr, m, now, h);
	if (m == NULL)
		return NULL;
	frag_dup_forget_all(f, &k, m,
			    (uint32_t)(rte_pktmbuf_mtod(m, const uint8_t *)[0] & 0xf) * 4);
	return frag_done(w, m);
}

/* IPv6 with a Fragment header right after the fixed header (RFC 8200 4.5). */
static struct rte_mbuf *
frag_in6(struct gw_worker *w, struct rte_mbuf *m, uint64_t now)
{
	struct gw_frag_w *f = w->frag;
	struct rte_ipv6_hdr *h = rte_pktmbuf_mtod(m, struct rte_ipv6_hdr *);
	struct rte_ipv6_fragment_ext *fh;
	uint16_t fd;
	uint32_t ofs, len;
	struct gw_frag_dup k;

	if (m->l3_len > sizeof(*h)) {
		/*
		 * Hop-by-Hop, Routing or Destination Options before the Fragment header
		 * (parse_l3 walked them): librte_ip_frag takes the Fragment header only
		 * right after the fixed header, so they go (we are the destination).
		 */
		uint32_t ext = m->l3_len - (uint32_t)sizeof(*h);

		memmove(rte_pktmbuf_mtod_offset(m, uint8_t *, ext), h, sizeof(*h));
		rte_pktmbuf_adj(m, (uint16_t)ext);
		h = rte_pktmbuf_mtod(m, struct rte_ipv6_hdr *);
		h->proto = IPPROTO_FRAGMENT;
		h->payload_len = rte_cpu_to_be_16((uint16_t)(m->pkt_len - sizeof(*h)));
		m->l3_len = sizeof(*h);
	}
	if (m->pkt_len < sizeof(*h) + GW_IPV6_FRAG_HDR) {
		frag_drop(w, m);
		return NULL;
	}
	fh = (struct rte_ipv6_fragment_ext *)(h + 1);
	fd = rte_be_to_cpu_16(fh->frag_data);
	ofs = (uint32_t)(fd >> 3) * 8;
	len = m->pkt_len - sizeof(*h) - GW_IPV6_FRAG_HDR;
	if (ofs == 0 && (fd & 1) == 0) {
		/* RFC 6946 atomic fragment: not part of a datagram, drop the header */
		uint8_t nh = fh->next_header;

		memmove(rte_pktmbuf_mtod_offset(m, uint8_t *, GW_IPV6_FRAG_HDR), h, sizeof(*h));
		rte_pktmbuf_adj(m, GW_IPV6_FRAG_HDR);
		h = rte_pktmbuf_mtod(m, struct rte_ipv6_hdr *);
		h->proto = nh;
		h->payload_len = rte_cpu_to_be_16((uint16_t)len);
		return m;
	}
	if (len == 0 || ((fd & 1) && (len & 7) != 0) || ofs + len > UINT16_MAX) {
		frag_drop(w, m);
		return NULL;
	}
	if (!frag_key(m, &k) || frag_is_dup(f, &k, now)) {
		frag_drop(w, m);
		return NULL;
	}
	if (f->dr.cnt + GW_FRAG_DR_ROOM > RTE_IP_FRAG_DEATH_ROW_MBUF_LEN)
		frag_dr_free(w);
	m->l2_len = 0;
	m->l3_len = sizeof(*h) + GW_IPV6_FRAG_HDR;
	m = rte_ipv6_frag_reassemble_packet(f->tbl, &f->dr, m, now, h, fh);
	if (m == NULL)
		return NULL;
	/* the library took the Fragment header out: the first segment holds 40 bytes of header */
	frag_dup_forget_all(f, &k, m, sizeof(*h));
	return frag_done(w, m);
}

int
gw_frag_in(struct gw_worker *w, struct rte_mbuf **m, int v6, uint8_t proto)
{
	const struct rte_ipv4_hdr *h4;

	if (w->frag == NULL || w->frag->tbl == NULL)
		return 0;
	if (v6) {
		if (proto != IPPROTO_FRAGMENT)
			return 0;
		*m = frag_in6(w, *m, rte_rdtsc());
		return *m != NULL ? 1 : -1;
	}
	h4 = rte_pktmbuf_mtod(*m, const struct rte_ipv4_hdr *);
	if ((rte_be_to_cpu_16(h4->fragment_offset) &
	     (RTE_IPV4_HDR_OFFSET_MASK | RTE_IPV4_HDR_MF_FLAG)) == 0)
		return 0;
	*m = frag_in4(w, *m, rte_rdtsc());
	return *m != NULL ? 1 : -1;
}

void
gw_frag_poll(struct gw_worker *w)
{
	struct gw_frag_w *f = w->frag;

	if (f == NULL || f->tbl == NULL)
		return;
	rte_ip_frag_table_del_expired_entries(f->tbl, &f->dr, rte_rdtsc());
	if (f->dr.cnt != 0)
		frag_dr_free(w);
}

void
gw_frag_flush(struct gw_worker *w)
{
	struct gw_frag_w *f = w->frag;

	if (f == NULL || f->tbl == NULL)
		return;
	/* everything still waiting is dropped: expire it all, a death row at a time */
	do {
		if (f->dr.cnt != 0)
			frag_dr_free(w);
		rte_ip_frag_table_del_expired_entries(f->tbl, &f->dr, UINT64_MAX);
	} while (f->dr.cnt != 0);
}

int
gw_frag_split(struct gw_worker *w, struct rte_mbuf *m, uint16_t mtu, bool v6,
	      struct rte_mbuf *out[GW_FRAG_MAX_OUT])
{
	struct gw_frag_w *f = w->frag;
	int32_t n;

	if (gw.frag_indirect == NULL || f == NULL)
		return -ENOTSUP;
	if (!v6) {
		struct rte_ipv4_hdr *h = rte_pktmbuf_mtod(m, struct rte_ipv4_hdr *);

		/* a datagram nobody gave an ID (our tunnel template): fragments need one */
		if (h->packet_id == 0 && (rte_be_to_cpu_16(h->fragment_offset) &
				(RTE_IPV4_HDR_DF_FLAG | RTE_IPV4_HDR_OFFSET_MASK |
				 RTE_IPV4_HDR_MF_FLAG)) == 0) {
			if (++f->id4 == 0)
				f->id4 = 1;
			h->packet_id = rte_cpu_to_be_16(f->id4);
		}
		n = rte_ipv4_fragment_packet(m, out, GW_FRAG_MAX_OUT, mtu, m->pool,
			gw.frag_indirect);
	} else {
		n = rte_ipv6_fragment_packet(m, out, GW_FRAG_MAX_OUT, mtu, m->pool,
			gw.frag_indirect);
		if (n > 0) {
			uint32_t id = rte_cpu_to_be_32(f->id6++);

			for (int32_t i = 0; i < n; i++) {
				struct rte_ipv6_fragment_ext *fh = rte_pktmbuf_mtod_offset(out[i],
					struct rte_ipv6_fragment_ext *,
					sizeof(struct rte_ipv6_hdr));

				fh->id = id;
			}
		}
	}
	if (n <= 0)
		return n < 0 ? n : -EINVAL;
	w->st.fragmented++;
	w->st.frags_out += (uint64_t)n;
	rte_pktmbuf_free(m);    /* the fragments hold references to its data */
	return n;
}

int
gw_frag_setup(struct gw_dp *dp)
{
	uint64_t ttl = (uint64_t)((double)dp->frag_ttl_ns * (double)rte_get_tsc_hz() / 1e9);

	dp->frag_indirect = rte_pktmbuf_pool_create("gw_frag_ind", 8192, 256, 0, 0,
		rte_socket_id());
	if (dp->frag_indirect == NULL) {
		GW_LOG(ERR, "cannot create the fragment pool: %s", rte_strerror(rte_errno));
		return -ENOMEM;
	}
	for (unsigned int i = 0; i < dp->nb_workers; i++) {
		struct gw_worker *w = &dp->worker[i];
		struct gw_frag_w *f = rte_zmalloc("gw_frag", sizeof(*f), RTE_CACHE_LINE_SIZE);

		if (f == NULL)
			return -ENOMEM;
		w->frag = f;
		f->ttl_cycles = ttl != 0 ? ttl : 1;
		f->id4 = (uint16_t)(rte_rdtsc() * 2654435761u >> 7) + (uint16_t)(i << 12);
		f->id6 = (uint32_t)(rte_rdtsc() * 2654435761u) ^ (i << 28);
		if (dp->frag_tbl_sz == 0)
			continue;       /* --reassemble 0: fragments go on as they are */
		/* NUM entries in use at most; slots: buckets (a power of 2) x 4 x 2 hashes */
		f->tbl = rte_ip_frag_table_create((dp->frag_tbl_sz + GW_FRAG_BUCKET_ENTRIES - 1) /
			GW_FRAG_BUCKET_ENTRIES, GW_FRAG_BUCKET_ENTRIES, dp->frag_tbl_sz,
			f->ttl_cycles, rte_socket_id());
		if (f->tbl == NULL) {
			GW_LOG(ERR, "cannot create a fragment table of %u entries",
			       dp->frag_tbl_sz);
			return -ENOMEM;
		}
	}
	return 0;
}

void
gw_frag_teardown(struct gw_dp *dp)
{
	for (unsigned int i = 0; i < dp->nb_workers && i < GW_MAX_WORKERS; i++) {
		struct gw_frag_w *f = dp->worker[i].frag;

		if (f == NULL)
			continue;
		rte_ip_frag_free_death_row(&f->dr, 0);
		if (f->tbl != NULL)
			rte_ip_frag_table_destroy(f->tbl);
		rte_free(f);
		dp->worker[i].frag = NULL;
	}
	if (dp->frag_indirect != NULL && rte_mempool_in_use_count(dp->frag_indirect) != 0)
		GW_LOG(ERR, "%u indirect mbufs still in use at exit",
		       rte_mempool_in_use_count(dp->frag_indirect));
	rte_mempool_free(dp->frag_indirect);
	dp->frag_indirect = NULL;
}
