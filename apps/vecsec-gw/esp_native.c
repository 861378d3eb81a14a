/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec-gw native ESP (type native), the burst: the packets of native SAs
 * in an rx burst, whatever their SAs, directions and lengths, become one
 * vecsec_aead_burst() call of libvecsec's lanes engine, which packs them
 * into SIMD lanes. No crypto op, no session, no rte_ipsec: the SA's own
 * lines hold its sequence counter and IPv4 template (struct gw_nsa0), its
 * own block its key (struct gw_nsa).
 *
 * In arrival order, each run of consecutive packets of one SA is one step
 * before crypto: outbound, the lifetimes (esp_out.h's life_admit(), one
 * add) and the run's sequence numbers (lib/esp, one atomic when workers
 * share the SA), then each packet framed (esp_native_out.c); inbound, each
 * packet's number and window check (esp_native_in.c). After the burst each
 * packet is finished by its direction's file, in order, and inbound
 * packets join one policy check for the burst (esp_in.c).
 */
#include "esp_native.h"
#include "esp_in.h"
#include "esp_out.h"
#include "port_io.h"

/*
 * An outbound run: lifetimes, then its numbers; packets past either are
 * expired (life_admit drops its own). Returns how many of mb[] go on and
 * their first number. The worker's seq_used of the numbers is counted
 * where each packet ends (gw_native_out_done(), or its drop below), on the
 * counter line those write anyway: here, at 100,000 SAs, that line's miss
 * was the burst's longest stall (stage 2 had only just asked for it).
 */
static uint16_t
out_run(struct gw_worker *w, struct gw_sa *sa, struct rte_mbuf *mb[], uint16_t n,
	uint64_t *first)
{
	uint16_t k = life_admit(w, sa, mb, n), got;

	if (k == 0)
		return 0;
	got = (uint16_t)(gw.nb_workers > 1 ? vecsec_esp_seq_reserve(&sa->nsa0.seq, k, first) :
			 vecsec_esp_seq_reserve_excl(&sa->nsa0.seq, k, first));
	for (uint16_t i = got; i < k; i++)
		gw_port_drop(w, sa, mb[i], GW_DROP_EXPIRED);
	return got;
}

void
gw_esp_native(struct gw_worker *w, struct gw_sa *const sas[], struct rte_mbuf *mb[], uint16_t n)
{
	struct gw_nat nj[GW_BURST];
	struct vecsec_aead_job *jobs[GW_BURST];
	struct rte_mbuf *jm[GW_BURST];
	struct gw_sa *jsa[GW_BURST];
	struct in_check ic;
	uint16_t nb = 0;

	ic.n[0] = ic.n[1] = 0;
	/*
	 * stage 2 (esp_crypto.h) for every SA of the burst before the first is
	 * used: its key line, its window (inbound); this worker's counters
	 * later, before crypto (below)
	 */
	for (uint16_t i = 0; i < n; i++) {
		const struct gw_sa *sa = sas[i];

		if (i != 0 && sa == sas[i - 1])
			continue;
		rte_prefetch0(sa->nsa0.nsa->key_line);
		/* line 0 (counter, IPv4 template) came with line 1; IPv6's template */
		if (sa->dir == GW_DIR_OUT && sa->mode == GW_MODE_TUN6)
			rte_prefetch0(&sa->nsa0.nsa->key);
		if (sa->rw != NULL)
			rte_prefetch0(sa->rw);
	}
	for (uint16_t i = 0; i < n;) {
		struct gw_sa *sa = sas[i];
		uint16_t len = 1, k;
		uint64_t seq = 0;

		while (i + len < n && sas[i + len] == sa)
			len++;
		k = sa->dir == GW_DIR_OUT ? out_run(w, sa, &mb[i], len, &seq) : len;
		for (uint16_t j = 0; j < k; j++) {
			struct rte_mbuf *m = mb[i + j];
			struct gw_nat *c = &nj[nb];
			int why;

			/* the prep functions set every field of the job the engine reads */
			why = sa->dir == GW_DIR_OUT ? gw_native_out_prep(sa, m, seq + j, c) :
				gw_native_in_prep(sa, m, c);
			if (why != 0) {
				if (sa->dir == GW_DIR_OUT)
					w->sa_st[sa->idx].seq_used++;   /* its number is spent */
				gw_port_drop(w, sa, m, (enum gw_drop)(why - 1));
				continue;
			}
			jobs[nb] = &c->job;
			jm[nb] = m;
			jsa[nb++] = sa;
		}
		i += len;
	}
	if (nb == 0)
		return;
	/*
	 * this worker's counter lines, which only the packets' ends write: asked
	 * for here they come during crypto; asked for with stage 2 (at 100,000
	 * SAs) most were not there yet or gone again when the end wrote them
	 */
	for (uint16_t i = 0; i < nb; i++)
		if (i == 0 || jsa[i] != jsa[i - 1])
			rte_prefetch0(&w->sa_st[jsa[i]->idx]);
	vecsec_aead_burst(jobs, nb);
	for (uint16_t i = 0; i < nb; i++) {
		struct gw_sa *sa = jsa[i];

		if (sa->dir == GW_DIR_OUT)
			gw_native_out_done(w, sa, jm[i], &nj[i]);
		else
			gw_native_in_done(w, sa, jm[i], &nj[i], &ic);
	}
	gw_esp_in_check(w, &ic);
}
