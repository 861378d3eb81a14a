/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec-gw counters: each worker counts into its own struct (no sharing on
 * the data path); readers sum over workers. Printed on exit and SIGUSR1,
 * written as JSON with --stats-file, and served through DPDK telemetry as
 * /vecsec_gw/stats (totals and drops) and /vecsec_gw/sa,<index>.
 */
#include "gw_dp.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_telemetry.h>

const char *const gw_drop_names[GW_DROP_MAX] = {
#define GW_X(n, s) s,
	GW_DROP_LIST(GW_X)
#undef GW_X
};

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
		const struct gw_sa_stats *s = &dp->worker[w].sa_st[sa];

		out->pkts += s->pkts;
		out->bytes += s->bytes;
		out->last_tsc = RTE_MAX(out->last_tsc, __atomic_load_n(&s->last_tsc,
								      __ATOMIC_RELAXED));
		for (unsigned int d = 0; d < GW_DROP_MAX; d++)
			out->drops[d] += s->drops[d];
	}
}

void
gw_stats_print(const struct gw_dp *dp, double seconds, FILE *f)
{
	struct gw_stats t;

	gw_stats_sum(dp, &t);
	fprintf(f, "vecsec-gw stats after %.3f s\n", seconds);
	for (uint16_t p = 0; p < dp->nb_ports; p++)
		if (dp->port[p].used)
			fprintf(f, "  port %u (%s): rx %" PRIu64 " tx %" PRIu64 "\n", p,
				dp->port[p].esp_side ? "unprotected, ESP" : "protected, clear",
				t.port[p].rx, t.port[p].tx);
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
		struct gw_sa_stats s;
		uint64_t dr = 0;

		if (!sa->active)
			continue;
		gw_stats_sa_sum(dp, i, &s);
		for (unsigned int d = 0; d < GW_DROP_MAX; d++)
			dr += s.drops[d];
		fprintf(f, "  SA %-3s %-10u %-17s %-9s on %-24s pkts %" PRIu64 " bytes %" PRIu64
			" drops %" PRIu64, sa->dir == GW_DIR_IN ? "in" : "out", sa->spi,
			dp->sa_cold[i].algo_name, sa->mode == GW_MODE_TRANS ? "transport" :
			sa->mode == GW_MODE_TUN4 ? "tunnel4" : "tunnel6",
			dp->cdev[sa->cdev_id].name, s.pkts, s.bytes, dr);
		for (unsigned int d = 0; d < GW_DROP_MAX; d++)
			if (s.drops[d] != 0)
				fprintf(f, " %s=%" PRIu64, gw_drop_names[d], s.drops[d]);
		fprintf(f, "\n");
	}
	fflush(f);
}

int
gw_stats_write_json(const struct gw_dp *dp, const char *path)
{
	struct gw_stats t;
	FILE *f = fopen(path, "w");

	if (f == NULL)
		return -1;
	gw_stats_sum(dp, &t);
	fprintf(f, "{\n  \"ports\": [");
	for (uint16_t p = 0; p < dp->nb_ports; p++)
		fprintf(f,
			"%s{\"port\": %u, \"esp_side\": %s, \"rx\": %" PRIu64 ", \"tx\": %" PRIu64
			"}",
			p ? ", " : "", p, dp->port[p].esp_side ? "true" : "false", t.port[p].rx,
			t.port[p].tx);
	fprintf(f, "],\n  \"esp_out\": %" PRIu64 ", \"esp_in\": %" PRIu64 ", \"bypass\": %" PRIu64
		",\n  ", t.esp_out, t.esp_in, t.bypass);
	/* fragments (the "frag" drop reason is with the others) */
	fprintf(f, "\"reassembled\": %" PRIu64 ", \"reasm_frags\": %" PRIu64
		", \"fragmented\": %" PRIu64 ", \"frags_out\": %" PRIu64 ",\n  \"drops\": {",
		t.reassembled, t.reasm_frags, t.fragmented, t.frags_out);
	for (unsigned int d = 0; d < GW_DROP_MAX; d++)
		fprintf(f, "%s\"%s\": %" PRIu64, d ? ", " : "", gw_drop_names[d], t.drops[d]);
	fprintf(f, "},\n  \"sa\": [");
	for (unsigned int i = 0, first = 1; i < dp->nb_sa; i++) {
		struct gw_sa_stats s;

		if (!dp->sa[i].active)
			continue;
		gw_stats_sa_sum(dp, i, &s);
		fprintf(f,
			"%s\n    {\"dir\": \"%s\", \"spi\": %u, \"cryptodev\": \"%s\", "
			"\"pkts\": %" PRIu64 ", \"bytes\": %" PRIu64 ", \"drops\": {",
			first ? "" : ",", dp->sa[i].dir == GW_DIR_IN ? "in" : "out", dp->sa[i].spi,
			dp->cdev[dp->sa[i].cdev_id].name, s.pkts, s.bytes);
		for (unsigned int d = 0; d < GW_DROP_MAX; d++)
			fprintf(f, "%s\"%s\": %" PRIu64, d ? ", " : "", gw_drop_names[d],
				s.drops[d]);
		/* lifetime events raised (outbound hard: also sequence numbers used up) */
		fprintf(f, "}, \"soft_expired\": %s, \"hard_expired\": %s}",
			__atomic_load_n(&dp->sa[i].soft_sent, __ATOMIC_RELAXED) ? "true" : "false",
			__atomic_load_n(&dp->sa[i].hard_sent, __ATOMIC_RELAXED) ? "true" : "false");
		first = 0;
	}
	fprintf(f, "\n  ]\n}\n");
	return fclose(f);
}

/* ---- telemetry ----------------------------------------------------------- */

static int
tel_stats(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct gw_stats t;

	(void)cmd;
	(void)params;
	gw_stats_sum(&gw, &t);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_u64(d, "esp_out", t.esp_out);
	rte_tel_data_add_dict_u64(d, "esp_in", t.esp_in);
	rte_tel_data_add_dict_u64(d, "bypass", t.bypass);
	rte_tel_data_add_dict_u64(d, "reassembled", t.reassembled);
	rte_tel_data_add_dict_u64(d, "reasm_frags", t.reasm_frags);
	rte_tel_data_add_dict_u64(d, "fragmented", t.fragmented);
	rte_tel_data_add_dict_u64(d, "frags_out", t.frags_out);
	rte_tel_data_add_dict_u64(d, "host_in", t.host_in);
	rte_tel_data_add_dict_u64(d, "host_out", t.host_out);
	for (unsigned int dr = 0; dr < GW_DROP_MAX; dr++)
		rte_tel_data_add_dict_u64(d, gw_drop_names[dr], t.drops[dr]);
	for (uint16_t p = 0; p < gw.nb_ports; p++) {
		char k[32];

		snprintf(k, sizeof(k), "port%u_rx", p);
		rte_tel_data_add_dict_u64(d, k, t.port[p].rx);
		snprintf(k, sizeof(k), "port%u_tx", p);
		rte_tel_data_add_dict_u64(d, k, t.port[p].tx);
	}
	return 0;
}

static int
tel_sa(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct gw_sa_stats s;
	char *end;
	unsigned long i;

	(void)cmd;
	if (params == NULL || *params == '\0') {
		rte_tel_data_start_array(d, RTE_TEL_INT_VAL);
		for (unsigned int k = 0; k < gw.nb_sa; k++)
			if (gw.sa[k].active)
				rte_tel_data_add_array_int(d, (int)k);
		return 0;
	}
	i = strtoul(params, &end, 10);
	if (*end != '\0' || i >= gw.nb_sa || !gw.sa[i].active)
		return -1;
	gw_stats_sa_sum(&gw, (unsigned int)i, &s);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_u64(d, "spi", gw.sa[i].spi);
	rte_tel_data_add_dict_string(d, "dir", gw.sa[i].dir == GW_DIR_IN ? "in" : "out");
	rte_tel_data_add_dict_u64(d, "pkts", s.pkts);
	rte_tel_data_add_dict_u64(d, "bytes", s.bytes);
	/* lifetimes: limits (0 = none) and whether the events were raised */
	rte_tel_data_add_dict_u64(d, "life_soft_bytes", gw.sa[i].life[GW_LIFE_SOFT_BYTES]);
	rte_tel_data_add_dict_u64(d, "life_hard_bytes", gw.sa[i].life[GW_LIFE_HARD_BYTES]);
	rte_tel_data_add_dict_u64(d, "life_soft_packets", gw.sa[i].life[GW_LIFE_SOFT_PKTS]);
	rte_tel_data_add_dict_u64(d, "life_hard_packets", gw.sa[i].life[GW_LIFE_HARD_PKTS]);
	rte_tel_data_add_dict_u64(d, "soft_expired",
		__atomic_load_n(&gw.sa[i].soft_sent, __ATOMIC_RELAXED));
	rte_tel_data_add_dict_u64(d, "hard_expired",
		__atomic_load_n(&gw.sa[i].hard_sent, __ATOMIC_RELAXED));
	for (unsigned int dr = 0; dr < GW_DROP_MAX; dr++)
		rte_tel_data_add_dict_u64(d, gw_drop_names[dr], s.drops[dr]);
	return 0;
}

int
gw_telemetry_register(void)
{
	int rc = rte_telemetry_register_cmd("/vecsec_gw/stats", tel_stats,
		"vecsec-gw totals and drops per reason");

	if (rc == 0)
		rc = rte_telemetry_register_cmd("/vecsec_gw/sa", tel_sa,
			"vecsec-gw SA counters. Parameter: SA index (none: list)");
	return rc;
}
