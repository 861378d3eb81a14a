/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec-gw counters: each worker counts into its own struct (no sharing on
 * the data path); readers sum over workers. Every view shows the counters
 * since the start or the last reset (`reset` on the control socket): a
 * reset stores the sums as a baseline, the workers' counters are never
 * written from outside. Rates (packets and bytes per second) come from two
 * samples the management thread takes every --rate-interval (mgmt.c).
 *
 * Views: the log (SIGUSR1, --stats-interval, exit) and the control
 * socket's `stats` and `show sa` in text here; their JSON, --stats-file
 * and DPDK telemetry in one schema (view.c, telemetry.c).
 *
 * Baselines, samples and every reader outside the workers run under the
 * control-plane lock (gw_cp_lock(), cp_lock.c), so a reader never sees half
 * a reset or an SA half added or freed.
 */
#include "gw_dp.h"
#include "gw_log.h"
#include "seqstate.h"
#include "stats_view.h"

#include <arpa/inet.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_telemetry.h>

#include <vecsec/vecsec_esp.h>

const char *const gw_drop_names[GW_DROP_MAX] = {
#define GW_X(n, s) s,
	GW_DROP_LIST(GW_X)
#undef GW_X
};

struct rate_sample {
	uint64_t pkts, bytes;
};

static struct port_drops port_base[GW_MAX_PORTS];

static struct gw_stats tot_base;                /* totals at the last reset */
static struct gw_sa_stats *sa_base;             /* [gw.max_sa]: each SA's at its reset */
static uint64_t *sa_reset_tsc;                  /* [gw.max_sa]: when (0: never, the start) */
static struct rate_sample *rs_prev, *rs_cur;    /* [gw.max_sa] */
static struct gw_stats tot_prev, tot_cur;
static uint64_t tsc_start, tsc_reset, tsc_prev, tsc_cur;

/* Bytes the control thread's per-slot baselines and rate samples take (0 before init). */
size_t
gw_stats_mem(void)
{
	if (sa_base == NULL)
		return 0;
	return (size_t)gw.max_sa * (sizeof(*sa_base) + sizeof(*sa_reset_tsc) +
				    sizeof(*rs_prev) + sizeof(*rs_cur));
}

void
gw_stats_sum(const struct gw_dp *dp, struct gw_stats *out)
{
	memset(out, 0, sizeof(*out));
	for (unsigned int w = 0; w < dp->nb_workers; w++) {
		const struct gw_stats *s = &dp->worker[w].st;

		for (unsigned int p = 0; p < GW_MAX_PORTS; p++) {
			out->port[p].rx += s->port[p].rx;
			out->port[p].tx += s->port[p].tx;
		}
		for (unsigned int d = 0; d < GW_DROP_MAX; d++)
			out->drops[d] += s->drops[d];
		out->bypass += s->bypass;
		out->esp_in += s->esp_in;
		out->esp_out += s->esp_out;
		out->reassembled += s->reassembled;
		out->reasm_frags += s->reasm_frags;
		out->fragmented += s->fragmented;
		out->frags_out += s->frags_out;
		out->host_in += s->host_in;
		out->host_out += s->host_out;
	}
}

void
gw_stats_sa_sum(const struct gw_dp *dp, unsigned int sa, struct gw_sa_stats *out)
{
	memset(out, 0, sizeof(*out));
	for (unsigned int w = 0; w < dp->nb_workers; w++) {
		const struct gw_sa_ctr *s = &dp->worker[w].sa_st[sa];
		const uint64_t *drops = dp->worker[w].sa_drops[sa];

		out->pkts += s->pkts;
		out->bytes += s->bytes;
		out->last_tsc = RTE_MAX(out->last_tsc, __atomic_load_n(&s->last_tsc,
								      __ATOMIC_RELAXED));
		for (unsigned int d = 0; d < GW_DROP_MAX; d++)
			out->drops[d] += drops[d];
		out->seq_used += s->seq_used;
	}
}

/* ---- since the last reset ------------------------------------------------ */

int
gw_stats_init(void)
{
	sa_base = calloc(gw.max_sa, sizeof(*sa_base));
	sa_reset_tsc = calloc(gw.max_sa, sizeof(*sa_reset_tsc));
	rs_prev = calloc(gw.max_sa, sizeof(*rs_prev));
	rs_cur = calloc(gw.max_sa, sizeof(*rs_cur));
	if (sa_base == NULL || sa_reset_tsc == NULL || rs_prev == NULL || rs_cur == NULL) {
		gw_stats_fini();
		return -ENOMEM;
	}
	tsc_start = tsc_reset = tsc_prev = tsc_cur = rte_get_tsc_cycles();
	return 0;
}

void
gw_stats_fini(void)
{
	free(sa_base);
	free(sa_reset_tsc);
	free(rs_prev);
	free(rs_cur);
	sa_base = NULL;
	sa_reset_tsc = NULL;
	rs_prev = rs_cur = NULL;
}

static double
tsc_seconds(uint64_t from)
{
	return (double)gw_tsc_since(rte_get_tsc_cycles(), from) / (double)rte_get_tsc_hz();
}

double
gw_stats_uptime(void)
{
	return tsc_seconds(tsc_start);
}

double
gw_stats_since(void)
{
	return tsc_seconds(tsc_reset);
}

static void
sub_total(struct gw_stats *t, const struct gw_stats *b)
{
	for (unsigned int p = 0; p < GW_MAX_PORTS; p++) {
		t->port[p].rx -= b->port[p].rx;
		t->port[p].tx -= b->port[p].tx;
	}
	for (unsigned int d = 0; d < GW_DROP_MAX; d++)
		t->drops[d] -= b->drops[d];
	t->bypass -= b->bypass;
	t->esp_in -= b->esp_in;
	t->esp_out -= b->esp_out;
	t->reassembled -= b->reassembled;
	t->reasm_frags -= b->reasm_frags;
	t->fragmented -= b->fragmented;
	t->frags_out -= b->frags_out;
	t->host_in -= b->host_in;
	t->host_out -= b->host_out;
}

void
gw_stats_total(const struct gw_dp *dp, struct gw_stats *out)
{
	gw_stats_sum(dp, out);
	sub_total(out, &tot_base);
}

void
gw_stats_sa(const struct gw_dp *dp, unsigned int slot, struct gw_sa_stats *out)
{
	gw_stats_sa_sum(dp, slot, out);
	if (sa_base == NULL)
		return;
	out->pkts -= sa_base[slot].pkts;
	out->bytes -= sa_base[slot].bytes;
	for (unsigned int d = 0; d < GW_DROP_MAX; d++)
		out->drops[d] -= sa_base[slot].drops[d];
	/* seq_used is the SA's state, not a counter: never reset */
}

void
gw_stats_reset_sa(const struct gw_dp *dp, unsigned int slot)
{
	if (sa_base == NULL)
		return;
	gw_stats_sa_sum(dp, slot, &sa_base[slot]);
	sa_reset_tsc[slot] = rte_get_tsc_cycles();
}

static void
port_drops_raw(uint16_t p, struct port_drops *out)
{
	struct rte_eth_stats es;

	memset(out, 0, sizeof(*out));
	if (rte_eth_stats_get(p, &es) != 0)
		return;
	out->imissed = es.imissed;
	out->rx_nombuf = es.rx_nombuf;
	out->ierrors = es.ierrors;
	out->oerrors = es.oerrors;
}

/* Port p's drops since the last reset. */
static void
port_drops_get(uint16_t p, struct port_drops *out)
{
	const struct port_drops *b = &port_base[p];

	port_drops_raw(p, out);
	/* a port whose driver reset its counters (a restart): from 0 again */
	out->imissed = out->imissed >= b->imissed ? out->imissed - b->imissed : out->imissed;
	out->rx_nombuf = out->rx_nombuf >= b->rx_nombuf ? out->rx_nombuf - b->rx_nombuf :
		out->rx_nombuf;
	out->ierrors = out->ierrors >= b->ierrors ? out->ierrors - b->ierrors : out->ierrors;
	out->oerrors = out->oerrors >= b->oerrors ? out->oerrors - b->oerrors : out->oerrors;
}

void
gw_stats_reset_all(const struct gw_dp *dp)
{
	gw_stats_sum(dp, &tot_base);
	for (uint16_t p = 0; p < dp->nb_ports && p < GW_MAX_PORTS; p++)
		port_drops_raw(p, &port_base[p]);
	for (unsigned int i = 0; i < dp->nb_sa; i++)
		gw_stats_reset_sa(dp, i);
	tsc_reset = rte_get_tsc_cycles();
}

void
gw_stats_sa_new(unsigned int slot)
{
	if (sa_base == NULL)
		return;
	memset(&sa_base[slot], 0, sizeof(sa_base[slot]));
	sa_reset_tsc[slot] = rte_get_tsc_cycles();
	memset(&rs_prev[slot], 0, sizeof(rs_prev[slot]));
	memset(&rs_cur[slot], 0, sizeof(rs_cur[slot]));
}

/* ---- rates ----------------------------------------------------------------- */

void
gw_stats_sample(const struct gw_dp *dp)
{
	if (rs_cur == NULL)
		return;
	tsc_prev = tsc_cur;
	tot_prev = tot_cur;
	tsc_cur = rte_get_tsc_cycles();
	gw_stats_sum(dp, &tot_cur);
	for (unsigned int i = 0; i < dp->nb_sa; i++) {
		struct gw_sa_stats s;

		rs_prev[i] = rs_cur[i];
		if (!dp->sa[i].active)
			continue;
		gw_stats_sa_sum(dp, i, &s);
		rs_cur[i].pkts = s.pkts;
		rs_cur[i].bytes = s.bytes;
	}
}

/* Per second over the last sampling interval (0 before the second sample). */
static double
per_s(uint64_t cur, uint64_t prev)
{
	double dt = (double)gw_tsc_since(tsc_cur, tsc_prev) / (double)rte_get_tsc_hz();

	return dt > 0 && cur >= prev ? (double)(cur - prev) / dt : 0;
}

double
gw_stats_interval(void)
{
	return (double)gw_tsc_since(tsc_cur, tsc_prev) / (double)rte_get_tsc_hz();
}

/* ---- one SA, for every view ------------------------------------------------ */

static void
sa_info_get(const struct gw_dp *dp, unsigned int slot, struct sa_info *in)
{
	const struct gw_sa *s = &dp->sa[slot];
	const struct gw_sa_conf *c = &dp->conf->sa[slot];
	struct gw_sa_stats raw;

	memset(in, 0, sizeof(*in));
	in->s = s;
	in->c = c;
	in->dir = s->dir == GW_DIR_IN ? "in" : "out";
	in->mode = s->mode == GW_MODE_TRANS ? "transport" : s->mode == GW_MODE_TUN4 ?
		"ipv4-tunnel" : "ipv6-tunnel";
	in->type = s->action == GW_SA_CPU_CRYPTO ? "cpu-crypto" :
		s->action == GW_SA_LOOKASIDE_PROTOCOL ? "lookaside-protocol" :
		s->action == GW_SA_NATIVE ? "native" : "lookaside-none";
	in->tunnel = s->mode != GW_MODE_TRANS;
	if (in->tunnel) {
		int af = s->mode == GW_MODE_TUN6 ? AF_INET6 : AF_INET;

		inet_ntop(af, dp->sa_cold[slot].src.b, in->src, sizeof(in->src));
		inet_ntop(af, dp->sa_cold[slot].dst.b, in->dst, sizeof(in->dst));
	}
	in->esn = c->esn || dp->esn;
	in->telemetry = c->telemetry || dp->ipsec_telemetry_all;
	gw_stats_sa(dp, slot, &in->st);
	gw_stats_sa_sum(dp, slot, &raw);
	if (s->dir == GW_DIR_OUT) {
		uint64_t first = gw_seq_state_first(slot, c);  /* --seq-state may start higher */

		in->seq = raw.seq_used != 0 ? first - 1 + raw.seq_used : 0;
	} else if (s->rw != NULL) {
		struct gw_sa *ws = (struct gw_sa *)(uintptr_t)s;     /* the lock only */

		if (s->rw_shared)
			rte_rwlock_read_lock(&ws->rw_lock);
		in->seq = vecsec_esp_replay_top(s->rw);
		in->window = vecsec_esp_replay_win(s->rw);
		if (s->rw_shared)
			rte_rwlock_read_unlock(&ws->rw_lock);
		in->has_top = true;
	} else if (s->action == GW_SA_LOOKASIDE_PROTOCOL) {
		in->window = dp->sa_cold[slot].sa_ix.replay_win_sz;    /* crypto_vecsec keeps it */
	}
	if (rs_cur != NULL) {
		in->pps = per_s(rs_cur[slot].pkts, rs_prev[slot].pkts);
		in->bps = per_s(rs_cur[slot].bytes, rs_prev[slot].bytes);
	}
	in->since = tsc_seconds(sa_reset_tsc != NULL && sa_reset_tsc[slot] != 0 ?
		sa_reset_tsc[slot] : tsc_start);
}

static const char *const life_keys[4] = { "soft_bytes", "hard_bytes", "soft_packets",
					  "hard_packets" };

/* The SA in text, VPP's `show ipsec sa` style: a few indented lines. */
void
gw_stats_sa_text(const struct gw_dp *dp, const struct sa_info *in, FILE *f)
{
	const struct gw_sa *s = in->s;
	uint64_t dr = 0;

	fprintf(f, "sa %s %u: %s inner ipv%c%s, %s integ %s, %s on %s (%s)%s%s\n", in->dir,
		s->spi, in->mode, s->inner_v6 ? '6' : '4',
		s->natt ? " udp-encap" : "", dp->sa_cold[s->idx].algo_name,
		dp->sa_cold[s->idx].integ_name, in->type,
		gw_sa_cdev_name(dp, s),
		gw_sa_cdev_driver(dp, s), in->esn ? ", esn" : "",
		in->telemetry ? ", telemetry" : "");
	if (in->tunnel)
		fprintf(f, "  tunnel %s -> %s\n", in->src, in->dst);
	if (s->dir == GW_DIR_OUT)
		fprintf(f, "  seq %" PRIu64 " (last sent)\n", in->seq);
	else if (in->has_top)
		fprintf(f, "  seq %" PRIu64 " (highest authenticated), window %u\n", in->seq,
			in->window);
	else if (in->window != 0)
		fprintf(f, "  window %u (in the cryptodev's session)\n", in->window);
	else
		fprintf(f, "  no anti-replay window\n");
	for (unsigned int d = 0; d < GW_DROP_MAX; d++)
		dr += in->st.drops[d];
	fprintf(f, "  packets %" PRIu64 " bytes %" PRIu64 " rate %.0f pkt/s %.0f B/s drops %"
		PRIu64, in->st.pkts, in->st.bytes, in->pps, in->bps, dr);
	for (unsigned int d = 0; d < GW_DROP_MAX; d++)
		if (in->st.drops[d] != 0)
			fprintf(f, " %s=%" PRIu64, gw_drop_names[d], in->st.drops[d]);
	fprintf(f, " (%.3f s)\n", in->since);
	if (s->has_life) {
		fprintf(f, "  lifetime");
		for (unsigned int k = 0; k < 4; k++)
			if (s->life[k] != 0)
				fprintf(f, " %s %" PRIu64, life_keys[k], s->life[k]);
		fprintf(f, " used %" PRIu64 " packets%s%s\n",
			__atomic_load_n(&s->used_pkts, __ATOMIC_RELAXED),
			__atomic_load_n(&s->soft_sent, __ATOMIC_RELAXED) ? " soft-expired" : "",
			__atomic_load_n(&s->hard_sent, __ATOMIC_RELAXED) ? " hard-expired" : "");
	}
}

int
gw_stats_find_sa(const struct gw_dp *dp, int dir, uint32_t spi, int from)
{
	for (unsigned int i = from < 0 ? 0 : (unsigned int)from; i < dp->nb_sa; i++)
		if (dp->sa[i].active && dp->sa[i].spi == spi && (dir < 0 || dp->sa[i].dir == dir))
			return (int)i;
	return -1;
}

/* ---- totals ----------------------------------------------------------------- */

void
gw_stats_print(const struct gw_dp *dp, double seconds, FILE *f)
{
	struct gw_stats t;

	gw_stats_total(dp, &t);
	fprintf(f, "vecsec-gw stats after %.3f s%s\n", seconds, tsc_reset != tsc_start ?
		" (since the last reset)" : "");
	for (uint16_t p = 0; p < dp->nb_ports; p++) {
		struct port_drops pd;

		if (!dp->port[p].used)
			continue;
		port_drops_get(p, &pd);
		fprintf(f, "  port %u (%s): rx %" PRIu64 " tx %" PRIu64 " (%.0f / %.0f "
			"pkt/s)\n", p,
			dp->port[p].esp_side ? "unprotected, ESP" : "protected, clear",
			t.port[p].rx, t.port[p].tx,
			per_s(tot_cur.port[p].rx, tot_prev.port[p].rx),
			per_s(tot_cur.port[p].tx, tot_prev.port[p].tx));
		fprintf(f, "  port %u drops: imissed %" PRIu64 " rx_nombuf %" PRIu64 " ierrors %"
			PRIu64 " oerrors %" PRIu64 "\n", p, pd.imissed, pd.rx_nombuf, pd.ierrors,
			pd.oerrors);
	}
	fprintf(f, "  esp out %" PRIu64 " esp in %" PRIu64 " bypass %" PRIu64 "\n", t.esp_out,
		t.esp_in, t.bypass);
	if (t.host_in != 0 || t.host_out != 0)
		fprintf(f, "  host: to the host %" PRIu64 " from the host %" PRIu64 "\n", t.host_in,
			t.host_out);
	if (t.reasm_frags != 0 || t.frags_out != 0)
		fprintf(f, "  reassembled %" PRIu64 " (from %" PRIu64 " fragments) fragmented %"
			PRIu64 " (into %" PRIu64 ")\n", t.reassembled, t.reasm_frags,
			t.fragmented, t.frags_out);
	fprintf(f, "  drops:");
	for (unsigned int d = 0; d < GW_DROP_MAX; d++)
		fprintf(f, " %s %" PRIu64, gw_drop_names[d], t.drops[d]);
	fprintf(f, "\n");
	for (unsigned int i = 0; i < dp->nb_sa; i++) {
		const struct gw_sa *sa = &dp->sa[i];
		struct sa_info in;
		uint64_t dr = 0;

		if (!sa->active)
			continue;
		sa_info_get(dp, i, &in);
		for (unsigned int d = 0; d < GW_DROP_MAX; d++)
			dr += in.st.drops[d];
		fprintf(f, "  SA %-3s %-10u %-17s %-15s %-9s on %-24s pkts %" PRIu64 " bytes %"
			PRIu64 " drops %" PRIu64, in.dir, sa->spi, dp->sa_cold[i].algo_name,
			dp->sa_cold[i].integ_name,
			sa->mode == GW_MODE_TRANS ? "transport" :
			sa->mode == GW_MODE_TUN4 ? "tunnel4" : "tunnel6",
			gw_sa_cdev_name(dp, sa), in.st.pkts, in.st.bytes, dr);
		for (unsigned int d = 0; d < GW_DROP_MAX; d++)
			if (in.st.drops[d] != 0)
				fprintf(f, " %s=%" PRIu64, gw_drop_names[d], in.st.drops[d]);
		if (in.pps != 0)
			fprintf(f, " rate %.0f pkt/s", in.pps);
		fprintf(f, "\n");
	}
	fflush(f);
}

void
gw_stats_log(const struct gw_dp *dp, double seconds, uint32_t level)
{
	char *buf = NULL, *line, *save = NULL;
	size_t size = 0;
	FILE *f;

	if (!rte_log_can_log((uint32_t)gw_logtype, level))
		return;
	f = open_memstream(&buf, &size);
	if (f == NULL)
		return;
	gw_stats_print(dp, seconds, f);
	if (fclose(f) != 0) {
		free(buf);
		return;
	}
	for (line = strtok_r(buf, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save))
		rte_log(level, (uint32_t)gw_logtype, "vecsec-gw: %s\n",
			strncmp(line, "vecsec-gw ", 10) == 0 ? line + 10 : line);
	free(buf);
}

/* ---- for the telemetry front end (telemetry.c) ------------------------------ */

void
gw_stats_port_drops(uint16_t p, struct port_drops *out)
{
	port_drops_get(p, out);
}

double
gw_stats_per_s(uint64_t cur, uint64_t prev)
{
	return per_s(cur, prev);
}

void
gw_stats_samples(struct gw_stats *cur, struct gw_stats *prev)
{
	*cur = tot_cur;
	*prev = tot_prev;
}

void
gw_stats_sa_info(unsigned int slot, struct sa_info *in)
{
	sa_info_get(&gw, slot, in);
}
