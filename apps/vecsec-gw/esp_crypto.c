/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec-gw ESP, the crypto machinery both directions share (esp_crypto.h):
 * a burst's packets grouped by SA (direct SAs apart), per SA the
 * direction's steps before crypto (outbound lifetimes and sequence
 * numbers, inbound anti-replay step A), rte_ipsec prepare, CPU crypto now
 * or ops into one cryptodev enqueue per burst; then dequeue, runs of one
 * SA, inbound anti-replay step B, rte_ipsec process, every failure counted
 * under its reason, and each packet to its direction's next step
 * (esp_in.h: the policy check's batch; esp_out.h: the route).
 */
#include "esp_crypto.h"
#include "esp_in.h"
#include "esp_out.h"
#include "esp_native.h"

#include <string.h>

#include <rte_cryptodev.h>
#include <rte_security.h>

/* The SA an op was submitted for (GW_COP_SA_OFFSET): set by esp_submit(), direct_submit(). */
static inline struct gw_sa **
op_sa(struct rte_crypto_op *op)
{
	return rte_crypto_op_ctod_offset(op, struct gw_sa **, GW_COP_SA_OFFSET);
}

/*
 * A direct SA's completions (struct gw_sa: direct), as rte_ipsec's process
 * for a lookaside-protocol session: the packets the PMD marked failed go
 * after the others, both in order. Returns how many succeeded.
 */
static inline uint16_t
sec_outcome(struct rte_mbuf *mb[], uint16_t n)
{
	struct rte_mbuf *bad[GW_BURST];
	uint16_t k = 0, nb = 0;

	for (uint16_t i = 0; i < n; i++) {
		if (mb[i]->ol_flags & RTE_MBUF_F_RX_SEC_OFFLOAD_FAILED)
			bad[nb++] = mb[i];
		else
			mb[k++] = mb[i];
	}
	for (uint16_t i = 0; i < nb; i++)
		mb[k + i] = bad[i];
	return k;
}

static void post_process(struct gw_worker *w, struct gw_sa *sa, struct rte_mbuf *mb[],
			 uint16_t n, struct in_check *ic);

/* Step B (esp_in.h): the window after crypto, then rte_ipsec process run by run. */
static void
replay_post(struct gw_worker *w, struct gw_sa *sa, struct rte_mbuf *mb[], uint16_t n,
	    struct in_check *ic)
{
	uint16_t i = 0;

	if (sa->rw_shared)
		rte_rwlock_write_lock(&sa->rw_lock);
	while (i < n) {
		struct rte_mbuf *run[GW_BURST];
		uint16_t nr = replay_run(w, sa, mb, n, &i, run);

		if (nr != 0)
			post_process(w, sa, run, nr, ic);
	}
	if (sa->rw_shared)
		rte_rwlock_write_unlock(&sa->rw_lock);
}

/* After crypto: rte_ipsec process and what follows, through the exact window if the SA has one. */
static inline void
sa_post(struct gw_worker *w, struct gw_sa *sa, struct rte_mbuf *mb[], uint16_t n,
	struct in_check *ic)
{
	if (sa->rw != NULL)
		replay_post(w, sa, mb, n, ic);
	else
		post_process(w, sa, mb, n, ic);
}

/*
 * After rte_ipsec process: count, then inbound policy check, then route.
 * Inbound packets join ic (at most GW_BURST per flush), checked by the
 * caller's gw_esp_in_check(); with ic NULL, here.
 */
static void
post_process(struct gw_worker *w, struct gw_sa *sa, struct rte_mbuf *mb[], uint16_t n,
	     struct in_check *ic)
{
	struct rte_mbuf *orig[GW_BURST];
	struct in_check own;
	uint32_t plen[GW_BURST];
	bool direct = __atomic_load_n(&sa->direct, __ATOMIC_RELAXED);
	uint16_t k;

	if (direct && sa->rw == NULL) {
		/* the PMD did all of ESP: nothing to sort out unless a packet failed */
		uint64_t fl = 0;

		for (uint16_t i = 0; i < n; i++)
			fl |= mb[i]->ol_flags;
		if (likely(!(fl & RTE_MBUF_F_RX_SEC_OFFLOAD_FAILED))) {
			k = n;
			goto passed;
		}
	}
	for (uint16_t i = 0; i < n; i++) {
		orig[i] = mb[i];
		plen[i] = mb[i]->pkt_len;
	}
	k = direct ? sec_outcome(mb, n) : rte_ipsec_pkt_process(&sa->ss, mb, n);
	if (sa->rw != NULL)
		replay_record(sa, mb, k);
	for (uint16_t i = k; i < n; i++) {
		struct rte_mbuf *m = mb[i];
		enum gw_drop why = GW_DROP_MALFORMED;
		uint16_t j;

		for (j = 0; j < n && orig[j] != m; j++)
			;
		if (m->ol_flags & gw_sec_replay_flag)
			why = GW_DROP_REPLAY;   /* lookaside-protocol: the PMD's window */
		else if (m->ol_flags & gw_sec_dummy_flag)
			why = GW_DROP_DUMMY;    /* lookaside-protocol: next header 59 */
		else if (in_tun_dummy(sa, m, j < n ? plen[j] : 0))
			why = GW_DROP_DUMMY;
		else if (m->ol_flags & RTE_MBUF_F_RX_SEC_OFFLOAD_FAILED)
			why = sa->dir == GW_DIR_IN ? GW_DROP_AUTH : GW_DROP_CRYPTO;
		else if (sa->dir == GW_DIR_IN && j < n && m->pkt_len != plen[j])
			why = GW_DROP_REPLAY;   /* passed the checks, then lost in the window */
		gw_port_drop(w, sa, m, why);
	}
passed:
	if (ic == NULL) {
		own.n[0] = own.n[1] = 0;
		ic = &own;
	}
	/* inbound lifetimes count only what authenticated: forged packets spend nothing */
	if (sa->has_life && sa->dir == GW_DIR_IN && k != 0)
		k = life_admit(w, sa, mb, k);
	/*
	 * last use (an IKE daemon's query: idle SAs, DPD); one store per SA and
	 * burst, in this worker's counters (the line the counts below write)
	 */
	if (k != 0)
		__atomic_store_n(&w->sa_st[sa->idx].last_tsc, w->now_tsc, __ATOMIC_RELAXED);
	for (uint16_t i = 0; i < k; i++) {
		struct rte_mbuf *m = mb[i];
		struct gw_sa_ctr *ss = &w->sa_st[sa->idx];

		m->ol_flags = 0;
		if (sa->dir == GW_DIR_IN) {
			in_post(w, sa, m, ss, ic);      /* esp_in.h */
			continue;
		}
		ss->pkts++;
		ss->bytes += m->pkt_len;
		out_post(w, sa, m);                     /* esp_out.h */
	}
	if (ic == &own)
		gw_esp_in_check(w, ic);
}

/*
 * Crypto ops of one rx burst, per cryptodev: every SA's ops go in one
 * enqueue, so a PMD that packs ops of different sessions into SIMD lanes
 * (crypto_vecsec) sees the whole burst.
 */
struct cop_batch {
	uint16_t n[GW_MAX_CDEV];
	struct rte_crypto_op *cop[GW_MAX_CDEV][GW_BURST];
	/*
	 * Ops come from one mempool call per burst, not one per SA: the first
	 * SA that needs ops takes them for every packet not yet submitted
	 * (left); what no SA takes goes back in batch_enqueue().
	 */
	uint16_t left, nspare;
	struct rte_crypto_op *spare[GW_BURST];
	struct in_check ic;     /* inbound CPU-crypto SAs, one check after the burst */
};

/* n ops for one SA of the burst, from the burst's allocation; 0 if the pool is empty. */
static inline uint16_t
cop_take(struct gw_worker *w, struct cop_batch *b, struct rte_crypto_op *cop[], uint16_t n)
{
	if (b->nspare < n) {
		if (b->nspare != 0)
			rte_mempool_put_bulk(w->cop_pool, (void **)b->spare, b->nspare);
		b->nspare = RTE_MAX(b->left, n);
		/* a pool too low for the rest of the burst may still serve this SA */
		if (rte_crypto_op_bulk_alloc(w->cop_pool, RTE_CRYPTO_OP_TYPE_SYMMETRIC, b->spare,
				b->nspare) == 0) {
			b->nspare = n;
			if (rte_crypto_op_bulk_alloc(w->cop_pool, RTE_CRYPTO_OP_TYPE_SYMMETRIC,
					b->spare, n) == 0) {
				b->nspare = 0;
				return 0;
			}
		}
	}
	b->nspare -= n;
	for (uint16_t i = 0; i < n; i++)        /* mostly 1 or 2: no memcpy call */
		cop[i] = b->spare[b->nspare + i];
	return n;
}

/* Packets of one SA: prepare, then CPU crypto now or ops into the batch. */
static void
esp_submit(struct gw_worker *w, struct gw_sa *sa, struct rte_mbuf *mb[], uint16_t n,
	   struct cop_batch *b)
{
	struct rte_crypto_op **cop;
	enum gw_drop prep_why = sa->dir == GW_DIR_IN ? GW_DROP_REPLAY : GW_DROP_MALFORMED;
	uint16_t k;

	/*
	 * outbound lifetimes and sequence numbers before encryption: no number
	 * is spent past the limit, none is used twice
	 */
	if (sa->dir == GW_DIR_OUT) {
		n = life_admit(w, sa, mb, n);
		if (n == 0)
			return;
	}
	/* inbound exact window, step A (replay_pre): read lock until prepare is done */
	if (sa->rw != NULL) {
		if (sa->rw_shared)
			rte_rwlock_read_lock(&sa->rw_lock);
		n = replay_pre(w, sa, mb, n);
	}
	if (sa->action == GW_SA_CPU_CRYPTO) {
		if (sa->dir == GW_DIR_OUT)
			w->sa_st[sa->idx].seq_used += n;        /* prepare numbers them all */
		k = n != 0 ? rte_ipsec_pkt_cpu_prepare(&sa->ss, mb, n) : 0;
		if (sa->rw != NULL && sa->rw_shared)
			rte_rwlock_read_unlock(&sa->rw_lock);
		for (uint16_t i = k; i < n; i++)
			gw_port_drop(w, sa, mb[i], prep_why);
		if (k != 0)
			sa_post(w, sa, mb, k, &b->ic);
		return;
	}
	/* at most GW_BURST packets per rx burst in all, so the batch has room */
	cop = &b->cop[sa->cdev_id][b->n[sa->cdev_id]];
	if (n == 0 || cop_take(w, b, cop, n) == 0) {
		if (sa->rw != NULL && sa->rw_shared)
			rte_rwlock_read_unlock(&sa->rw_lock);
		for (uint16_t i = 0; i < n; i++)
			gw_port_drop(w, sa, mb[i], GW_DROP_NO_MBUF);
		return;
	}
	if (sa->dir == GW_DIR_OUT)
		w->sa_st[sa->idx].seq_used += n;
	/*
	 * an SA that became direct after gw_esp_submit() looked (a reload
	 * unlisted it) is still right here: for a lookaside-protocol session
	 * rte_ipsec's prepare only attaches it, as direct_submit() does
	 */
	k = rte_ipsec_pkt_crypto_prepare(&sa->ss, mb, cop, n);
	if (sa->rw != NULL && sa->rw_shared)
		rte_rwlock_read_unlock(&sa->rw_lock);
	for (uint16_t i = 0; i < k; i++)
		*op_sa(cop[i]) = sa;
	for (uint16_t i = k; i < n; i++) {
		gw_port_drop(w, sa, mb[i], prep_why);
		rte_crypto_op_free(cop[i]);
	}
	b->n[sa->cdev_id] += k;
}

static void
batch_enqueue(struct gw_worker *w, struct cop_batch *b)
{
	if (b->nspare != 0)
		rte_mempool_put_bulk(w->cop_pool, (void **)b->spare, b->nspare);
	b->nspare = 0;
	for (unsigned int id = 0; id < GW_MAX_CDEV; id++) {
		uint16_t k = b->n[id], e;

		if (k == 0)
			continue;
		e = rte_cryptodev_enqueue_burst((uint8_t)id, w->qp, b->cop[id], k);
		w->inflight[id] += e;
		w->inflight_total += e;
		for (uint16_t i = e; i < k; i++) {
			struct rte_crypto_op *op = b->cop[id][i];

			gw_port_drop(w, *op_sa(op), op->sym->m_src, GW_DROP_RING_FULL);
			rte_crypto_op_free(op);
		}
	}
}


/* Stage 2 for one SA (its gw_sa lines are in, or on their way). */
static inline void
sa_state_prefetch(struct gw_worker *w, const struct gw_sa *sa)
{
	const uint8_t *ses = (const uint8_t *)sa->ss.crypto.ses;

	if (!__atomic_load_n(&sa->direct, __ATOMIC_RELAXED))
		ipsec_sa_prefetch(sa);
	if (sa->rw != NULL)
		rte_prefetch0(sa->rw);
	ses_prefetch(ses, sa->action == GW_SA_LOOKASIDE_PROTOCOL);
	/* an outbound IPv6 tunnel's template goes on in the session's next line */
	if (ses != NULL && sa->action == GW_SA_LOOKASIDE_PROTOCOL && sa->dir == GW_DIR_OUT &&
	    sa->mode == GW_MODE_TUN6)
		rte_prefetch0(ses + 3 * RTE_CACHE_LINE_SIZE);
	rte_prefetch0(&w->sa_st[sa->idx]);
}

#define SA_GROUP_SLOTS (2 * GW_BURST)   /* open addressing, at most half full */
#define SA_PREFETCH_AHEAD 4             /* after crypto: groups ahead of the one processed */

/*
 * Group n packets by SA in one pass (a burst spread over many SAs has as
 * many groups as packets): gid[i] is packet i's group, groups numbered in
 * order of first appearance, gsa[] their SAs, gcnt[] their sizes. A small
 * hash of the SA pointer finds the group; a run of one SA skips it. (The
 * SAs' hot lines are on their way already: stage 1, see gw_esp_submit().)
 */
static uint16_t
sa_group(struct gw_sa *const sas[], uint16_t n, uint8_t gid[], struct gw_sa *gsa[],
	 uint16_t gcnt[])
{
	uint8_t slot[SA_GROUP_SLOTS];   /* group + 1, 0 = free */
	uint16_t ng = 0;

	memset(slot, 0, sizeof(slot));
	for (uint16_t i = 0; i < n; i++) {
		struct gw_sa *sa = sas[i];
		uint32_t h;

		if (i != 0 && sa == sas[i - 1]) {
			gid[i] = gid[i - 1];
			gcnt[gid[i]]++;
			continue;
		}
		h = ((uint32_t)((uintptr_t)sa >> 6) * 2654435761u) >> 26;
		while (slot[h] != 0 && gsa[slot[h] - 1] != sa)
			h = (h + 1) & (SA_GROUP_SLOTS - 1);
		if (slot[h] == 0) {
			gsa[ng] = sa;
			gcnt[ng] = 0;
			slot[h] = (uint8_t)++ng;
		}
		gid[i] = (uint8_t)(slot[h] - 1);
		gcnt[gid[i]]++;
	}
	return ng;
}

/* Packets of SAs that go through rte_ipsec: grouped by SA, one call per SA, in arrival order. */
static void
group_submit(struct gw_worker *w, struct gw_sa *sas[], struct rte_mbuf *mb[], uint16_t n,
	     struct cop_batch *b)
{
	struct rte_mbuf *sorted[GW_BURST];
	struct gw_sa *gsa[GW_BURST];
	uint16_t gcnt[GW_BURST], gofs[GW_BURST], ng, at = 0;
	uint8_t gid[GW_BURST];

	RTE_BUILD_BUG_ON(SA_GROUP_SLOTS != 64 || GW_BURST > 255);
	ng = sa_group(sas, n, gid, gsa, gcnt);
	for (uint16_t g = 0; g < ng; g++) {
		gofs[g] = at;
		at += gcnt[g];
	}
	for (uint16_t i = 0; i < n; i++)
		sorted[gofs[gid[i]]++] = mb[i];
	/* stage 2 for the whole burst before the first SA is used */
	for (uint16_t g = 0; g < ng; g++)
		sa_state_prefetch(w, gsa[g]);
	at = 0;
	for (uint16_t g = 0; g < ng; g++) {
		esp_submit(w, gsa[g], &sorted[at], gcnt[g], b);
		at += gcnt[g];
		b->left -= gcnt[g];
	}
}

/*
 * Packets of direct SAs (struct gw_sa direct): the PMD does all of ESP and
 * takes a burst whose sessions are mixed, so they are not grouped. In
 * arrival order, each run of consecutive packets of one SA reserves its
 * lifetime once (outbound; what esp_submit() does per group), and each
 * packet gets an op carrying the SA's session. With many SAs a run is one
 * packet, and this is all the per-SA work a packet costs before crypto.
 */
static void
direct_submit(struct gw_worker *w, struct gw_sa *const sas[], struct rte_mbuf *mb[],
	      uint16_t n, struct cop_batch *b)
{
	struct rte_crypto_op *ops[GW_BURST];
	uint16_t start[GW_BURST], nr = 0, nops, used = 0;

	/* the runs, and stage 2 for all of them before the first is used */
	for (uint16_t i = 0; i < n; i++) {
		if (i != 0 && sas[i] == sas[i - 1])
			continue;
		start[nr++] = i;
		sa_state_prefetch(w, sas[i]);
	}
	/* one op per packet, taken at once (those of expired packets go back below) */
	nops = cop_take(w, b, ops, n);
	for (uint16_t r = 0; r < nr; r++) {
		uint16_t i = start[r], len = (r + 1 < nr ? start[r + 1] : n) - i;
		struct gw_sa *sa = sas[i];
		struct rte_crypto_op **cop;
		void *ses;
		uint16_t k;

		b->left -= len;
		k = sa->dir == GW_DIR_OUT ? life_admit(w, sa, &mb[i], len) : len;
		if (k == 0)
			continue;
		cop = &b->cop[sa->cdev_id][b->n[sa->cdev_id]];
		if (nops != 0) {
			for (uint16_t j = 0; j < k; j++)
				cop[j] = ops[used++];
		} else if (cop_take(w, b, cop, k) == 0) {
			/* a pool too low for the whole burst may still serve this SA */
			for (uint16_t j = 0; j < k; j++)
				gw_port_drop(w, sa, mb[i + j], GW_DROP_NO_MBUF);
			continue;
		}
		if (sa->dir == GW_DIR_OUT)
			w->sa_st[sa->idx].seq_used += k;
		ses = sa->ss.security.ses;
		for (uint16_t j = 0; j < k; j++) {
			cop[j]->sym->m_src = mb[i + j];
			rte_security_attach_session(cop[j], ses);
			*op_sa(cop[j]) = sa;
		}
		b->n[sa->cdev_id] += k;
	}
	/* ops of expired packets: back to the burst's spares (batch_enqueue() frees them) */
	while (used < nops)
		b->spare[b->nspare++] = ops[used++];
}

/* Submit n packets with their SAs (esp_crypto.h). */
void
gw_esp_submit(struct gw_worker *w, struct gw_sa *sas[], struct rte_mbuf *mb[], uint16_t n)
{
	struct gw_sa *dsa[GW_BURST], *nsa[GW_BURST];
	struct rte_mbuf *dmb[GW_BURST], *nmb[GW_BURST];
	uint16_t nd = 0, nr = 0, nn = 0;
	struct cop_batch b;

	memset(b.n, 0, sizeof(b.n));
	b.nspare = 0;
	b.ic.n[0] = b.ic.n[1] = 0;
	/*
	 * Stage 1 (the SAs' hot lines) was issued where each SA became known:
	 * gw_sp_lookup_bulk() outbound, esp_in_sad() inbound. Direct SAs apart.
	 */
	for (uint16_t i = 0; i < n; i++) {
		if (sas[i]->action == GW_SA_NATIVE) {   /* esp_native.c: no op, no session */
			nsa[nn] = sas[i];
			nmb[nn++] = mb[i];
		} else if (__atomic_load_n(&sas[i]->direct, __ATOMIC_RELAXED)) {
			dsa[nd] = sas[i];
			dmb[nd++] = mb[i];
		} else {
			sas[nr] = sas[i];
			mb[nr++] = mb[i];
		}
	}
	b.left = nr + nd;
	if (nn != 0)
		gw_esp_native(w, nsa, nmb, nn);
	if (nr == 0 && nd == 0)
		return;
	if (nr != 0)
		group_submit(w, sas, mb, nr, &b);
	if (nd != 0)
		direct_submit(w, dsa, dmb, nd, &b);
	gw_esp_in_check(w, &b.ic);
	batch_enqueue(w, &b);
}

/*
 * What post_process() touches of a group's SA: its rte_ipsec SA (unless
 * direct) and this worker's counters.
 */
static inline void
post_prefetch(struct gw_worker *w, const struct gw_sa *sa)
{
	if (!__atomic_load_n(&sa->direct, __ATOMIC_RELAXED))
		ipsec_sa_prefetch(sa);
	rte_prefetch0(&w->sa_st[sa->idx]);     /* the line of its packet counters */
}

/*
 * Completed ops into runs of one SA (the SA each op carries, op_sa()), as
 * rte_ipsec_pkt_crypto_group() groups them by session but without reading
 * the session: mb[] the ops' packets in order, gsa[g] and gcnt[g] each
 * run's SA and length. A packet whose op did not succeed is marked
 * RTE_MBUF_F_RX_SEC_OFFLOAD_FAILED, what rte_ipsec's process looks for.
 */
static uint16_t
cop_runs(struct rte_crypto_op *cop[], uint16_t n, struct rte_mbuf *mb[], struct gw_sa *gsa[],
	 uint16_t gcnt[])
{
	uint16_t ng = 0;

	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = cop[i]->sym->m_src;
		struct gw_sa *sa = *op_sa(cop[i]);

		m->ol_flags |= RTE_MBUF_F_RX_SEC_OFFLOAD;
		if (cop[i]->status != RTE_CRYPTO_OP_STATUS_SUCCESS)
			m->ol_flags |= RTE_MBUF_F_RX_SEC_OFFLOAD_FAILED;
		mb[i] = m;
		if (ng == 0 || gsa[ng - 1] != sa) {
			gsa[ng] = sa;
			gcnt[ng++] = 0;
		}
		gcnt[ng - 1]++;
	}
	return ng;
}

unsigned int
gw_esp_dequeue(struct gw_worker *w)
{
	struct rte_crypto_op *cop[GW_BURST];
	struct rte_mbuf *mb[GW_BURST];
	struct gw_sa *gsa[GW_BURST];
	uint16_t gcnt[GW_BURST];
	struct in_check ic = { .n = { 0, 0 } };
	unsigned int total = 0;

	for (unsigned int id = 0; id < GW_MAX_CDEV; id++) {
		uint16_t n, ng, at;

		/*
		 * Drain what is done, not just one burst: a poll may enqueue several
		 * bursts (one per rx queue), and a queue pair left to fill up drops.
		 */
	again:
		if (w->inflight[id] == 0)
			continue;
		n = rte_cryptodev_dequeue_burst((uint8_t)id, w->qp, cop, GW_BURST);
		if (n == 0)
			continue;
		w->inflight[id] -= n;
		w->inflight_total -= n;
		total += n;
		ng = cop_runs(cop, n, mb, gsa, gcnt);
		at = 0;
		rte_mempool_put_bulk(w->cop_pool, (void **)cop, n);
		for (uint16_t g = 0; g < ng && g < SA_PREFETCH_AHEAD; g++)
			post_prefetch(w, gsa[g]);
		for (uint16_t g = 0; g < ng; g++) {
			if (g + SA_PREFETCH_AHEAD < ng)
				post_prefetch(w, gsa[g + SA_PREFETCH_AHEAD]);
			sa_post(w, gsa[g], &mb[at], gcnt[g], &ic);
			at += gcnt[g];
		}
		gw_esp_in_check(w, &ic);
		if (n == GW_BURST)
			goto again;
	}
	return total;
}
