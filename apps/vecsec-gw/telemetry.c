/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec-gw DPDK telemetry, a front end that reads under the control-plane
 * lock: /vecsec_gw/stats (totals, drops, rates), /vecsec_gw/sa (the SAs by
 * direction and SPI; `,SPI` or `,in,SPI`, `,out,SPI` one SA: endpoints,
 * algorithm, cryptodev, sequence number or window, counters, drops by
 * reason, rates, lifetimes) and /vecsec_gw/reload (the last reload's
 * outcome).
 */
#include "gw_dp.h"
#include "stats_view.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_telemetry.h>

static int
tel_stats(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct gw_stats t, tot_cur, tot_prev;

	(void)cmd;
	(void)params;
	gw_cp_lock();
	gw_stats_total(&gw, &t);
	gw_stats_samples(&tot_cur, &tot_prev);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_u64(d, "uptime_ms", (uint64_t)(gw_stats_uptime() * 1e3));
	rte_tel_data_add_dict_u64(d, "since_reset_ms", (uint64_t)(gw_stats_since() * 1e3));
	rte_tel_data_add_dict_u64(d, "esp_out", t.esp_out);
	rte_tel_data_add_dict_u64(d, "esp_in", t.esp_in);
	rte_tel_data_add_dict_u64(d, "bypass", t.bypass);
	rte_tel_data_add_dict_u64(d, "esp_out_per_s", (uint64_t)gw_stats_per_s(tot_cur.esp_out,
		tot_prev.esp_out));
	rte_tel_data_add_dict_u64(d, "esp_in_per_s", (uint64_t)gw_stats_per_s(tot_cur.esp_in,
		tot_prev.esp_in));
	rte_tel_data_add_dict_u64(d, "reassembled", t.reassembled);
	rte_tel_data_add_dict_u64(d, "reasm_frags", t.reasm_frags);
	rte_tel_data_add_dict_u64(d, "fragmented", t.fragmented);
	rte_tel_data_add_dict_u64(d, "frags_out", t.frags_out);
	rte_tel_data_add_dict_u64(d, "host_in", t.host_in);
	rte_tel_data_add_dict_u64(d, "host_out", t.host_out);
	for (unsigned int dr = 0; dr < GW_DROP_MAX; dr++)
		rte_tel_data_add_dict_u64(d, gw_drop_names[dr], t.drops[dr]);
	for (uint16_t p = 0; p < gw.nb_ports; p++) {
		struct port_drops pd;
		char k[32];

		snprintf(k, sizeof(k), "port%u_rx", p);
		rte_tel_data_add_dict_u64(d, k, t.port[p].rx);
		snprintf(k, sizeof(k), "port%u_tx", p);
		rte_tel_data_add_dict_u64(d, k, t.port[p].tx);
		snprintf(k, sizeof(k), "port%u_rx_per_s", p);
		rte_tel_data_add_dict_u64(d, k, (uint64_t)gw_stats_per_s(tot_cur.port[p].rx,
			tot_prev.port[p].rx));
		snprintf(k, sizeof(k), "port%u_tx_per_s", p);
		rte_tel_data_add_dict_u64(d, k, (uint64_t)gw_stats_per_s(tot_cur.port[p].tx,
			tot_prev.port[p].tx));
		gw_stats_port_drops(p, &pd);
		snprintf(k, sizeof(k), "port%u_imissed", p);
		rte_tel_data_add_dict_u64(d, k, pd.imissed);
		snprintf(k, sizeof(k), "port%u_rx_nombuf", p);
		rte_tel_data_add_dict_u64(d, k, pd.rx_nombuf);
		snprintf(k, sizeof(k), "port%u_ierrors", p);
		rte_tel_data_add_dict_u64(d, k, pd.ierrors);
		snprintf(k, sizeof(k), "port%u_oerrors", p);
		rte_tel_data_add_dict_u64(d, k, pd.oerrors);
	}
	gw_cp_unlock();
	return 0;
}

/* One SA into telemetry dict d (counters as u64; rates rounded). */
static void
tel_sa_fill(unsigned int slot, struct rte_tel_data *d)
{
	struct rte_tel_data *dr = rte_tel_data_alloc();
	struct sa_info in;
	const struct gw_sa *s = &gw.sa[slot];

	gw_stats_sa_info(slot, &in);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_u64(d, "spi", s->spi);
	rte_tel_data_add_dict_string(d, "dir", in.dir);
	rte_tel_data_add_dict_string(d, "mode", in.mode);
	rte_tel_data_add_dict_string(d, "inner", s->inner_v6 ? "ipv6" : "ipv4");
	if (in.tunnel) {
		rte_tel_data_add_dict_string(d, "src", in.src);
		rte_tel_data_add_dict_string(d, "dst", in.dst);
	}
	rte_tel_data_add_dict_u64(d, "udp_encap", s->natt);
	rte_tel_data_add_dict_string(d, "algo", gw.sa_cold[slot].algo_name);
	rte_tel_data_add_dict_string(d, "type", in.type);
	rte_tel_data_add_dict_string(d, "cryptodev", gw_sa_cdev_name(&gw, s));
	rte_tel_data_add_dict_string(d, "driver", gw_sa_cdev_driver(&gw, s));
	rte_tel_data_add_dict_u64(d, "esn", in.esn);
	rte_tel_data_add_dict_u64(d, "telemetry", in.telemetry);
	if (s->dir == GW_DIR_OUT) {
		rte_tel_data_add_dict_u64(d, "seq", in.seq);
	} else {
		if (in.has_top)
			rte_tel_data_add_dict_u64(d, "seq_highest", in.seq);
		rte_tel_data_add_dict_u64(d, "window", in.window);
	}
	rte_tel_data_add_dict_u64(d, "pkts", in.st.pkts);
	rte_tel_data_add_dict_u64(d, "bytes", in.st.bytes);
	rte_tel_data_add_dict_u64(d, "pkts_per_s", (uint64_t)(in.pps + 0.5));
	rte_tel_data_add_dict_u64(d, "bytes_per_s", (uint64_t)(in.bps + 0.5));
	rte_tel_data_add_dict_u64(d, "since_reset_ms", (uint64_t)(in.since * 1e3));
	if (dr != NULL) {
		rte_tel_data_start_dict(dr);
		for (unsigned int k = 0; k < GW_DROP_MAX; k++)
			rte_tel_data_add_dict_u64(dr, gw_drop_names[k], in.st.drops[k]);
		if (rte_tel_data_add_dict_container(d, "drops", dr, 0) != 0)
			rte_tel_data_free(dr);
	}
	/* lifetimes: limits (0 = none) and whether the events were raised */
	rte_tel_data_add_dict_u64(d, "life_soft_bytes", s->life[GW_LIFE_SOFT_BYTES]);
	rte_tel_data_add_dict_u64(d, "life_hard_bytes", s->life[GW_LIFE_HARD_BYTES]);
	rte_tel_data_add_dict_u64(d, "life_soft_packets", s->life[GW_LIFE_SOFT_PKTS]);
	rte_tel_data_add_dict_u64(d, "life_hard_packets", s->life[GW_LIFE_HARD_PKTS]);
	rte_tel_data_add_dict_u64(d, "soft_expired",
		__atomic_load_n(&s->soft_sent, __ATOMIC_RELAXED));
	rte_tel_data_add_dict_u64(d, "hard_expired",
		__atomic_load_n(&s->hard_sent, __ATOMIC_RELAXED));
	rte_tel_data_add_dict_u64(d, "line", (uint64_t)gw.sa_cold[slot].line);
}

/*
 * /vecsec_gw/sa: {"out": [SPI, ...], "in": [...]} (the first 512 of each,
 * with their counts). /vecsec_gw/sa,SPI: {"in": {...}, "out": {...}}, the
 * SAs of that SPI. /vecsec_gw/sa,in,SPI (or out): that SA's dict.
 */
static int
tel_sa(const char *cmd, const char *params, struct rte_tel_data *d)
{
	char buf[64], *spi_s, *comma;
	uint64_t spi;
	int dir = -1, rc = 0;

	(void)cmd;
	gw_cp_lock();
	if (params == NULL || *params == '\0') {
		struct rte_tel_data *a[2] = { rte_tel_data_alloc(), rte_tel_data_alloc() };
		uint64_t n[2] = { 0, 0 };

		rte_tel_data_start_dict(d);
		for (int k = 0; k < 2; k++)
			if (a[k] != NULL)
				rte_tel_data_start_array(a[k], RTE_TEL_U64_VAL);
		for (unsigned int i = 0; i < gw.nb_sa; i++) {
			unsigned int k = gw.sa[i].dir == GW_DIR_IN;

			if (!gw.sa[i].active)
				continue;
			if (a[k] != NULL && n[k] < RTE_TEL_MAX_ARRAY_ENTRIES)
				rte_tel_data_add_array_u64(a[k], gw.sa[i].spi);
			n[k]++;
		}
		rte_tel_data_add_dict_u64(d, "count_out", n[0]);
		rte_tel_data_add_dict_u64(d, "count_in", n[1]);
		for (int k = 0; k < 2; k++)
			if (a[k] != NULL)
				rte_tel_data_add_dict_container(d, k ? "in" : "out", a[k], 0);
		goto out;
	}
	if (strlen(params) >= sizeof(buf)) {
		rc = -EINVAL;
		goto out;
	}
	strcpy(buf, params);
	spi_s = buf;
	comma = strchr(buf, ',');
	if (comma != NULL) {
		*comma = '\0';
		if (strcmp(buf, "in") == 0)
			dir = GW_DIR_IN;
		else if (strcmp(buf, "out") == 0)
			dir = GW_DIR_OUT;
		else {
			rc = -EINVAL;
			goto out;
		}
		spi_s = comma + 1;
	}
	if (gw_parse_u64(spi_s, UINT32_MAX, &spi) != 0) {
		rc = -EINVAL;
		goto out;
	}
	if (dir >= 0) {
		int slot = gw_stats_find_sa(&gw, dir, (uint32_t)spi, 0);

		if (slot < 0) {
			rc = -ENOENT;
			goto out;
		}
		rte_tel_data_start_dict(d);
		tel_sa_fill((unsigned int)slot, d);
		goto out;
	}
	rte_tel_data_start_dict(d);
	for (int k = 0; k < 2; k++) {
		int slot = gw_stats_find_sa(&gw, k ? GW_DIR_IN : GW_DIR_OUT, (uint32_t)spi, 0);
		struct rte_tel_data *sd = slot >= 0 ? rte_tel_data_alloc() : NULL;

		if (sd == NULL)
			continue;
		rte_tel_data_start_dict(sd);
		tel_sa_fill((unsigned int)slot, sd);
		if (rte_tel_data_add_dict_container(d, k ? "in" : "out", sd, 0) != 0)
			rte_tel_data_free(sd);
	}
out:
	gw_cp_unlock();
	return rc;
}

/* /vecsec_gw/reload: reloads done and failed, the last one's outcome. */
static int
tel_reload(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct gw_reload_status st;

	(void)cmd;
	(void)params;
	gw_cp_lock();
	gw_reload_status(&st);
	gw_cp_unlock();
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_u64(d, "reloads", st.ok);
	rte_tel_data_add_dict_u64(d, "failed", st.failed);
	rte_tel_data_add_dict_string(d, "last", st.ok + st.failed == 0 ? "none" :
				     st.last_ok ? "ok" : "failed");
	rte_tel_data_add_dict_string(d, "message", st.message);
	return 0;
}

int
gw_telemetry_register(void)
{
	int rc = rte_telemetry_register_cmd("/vecsec_gw/stats", tel_stats,
		"vecsec-gw totals, drops per reason and rates (since start or the last reset)");

	if (rc == 0)
		rc = rte_telemetry_register_cmd("/vecsec_gw/sa", tel_sa,
			"vecsec-gw SAs. No parameter: the SPIs by direction; SPI: the SAs of that "
			"SPI; in,SPI or out,SPI: that SA");
	if (rc == 0)
		rc = rte_telemetry_register_cmd("/vecsec_gw/reload", tel_reload,
			"vecsec-gw configuration reloads (SIGHUP, `reload`): counts, last outcome");
	return rc;
}
