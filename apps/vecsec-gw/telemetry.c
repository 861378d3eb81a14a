/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec-gw DPDK telemetry, a front end that reads under the control-plane
 * lock, in the schema of the control socket's JSON (view.c):
 * /vecsec_gw/stats (totals, drops, rates, ports, workers), /vecsec_gw/sa (the SAs by
 * direction and SPI; `,SPI` or `,in,SPI`, `,out,SPI` one SA: endpoints,
 * algorithm, cryptodev, sequence number or window, counters, drops by
 * reason, rates, lifetimes) and /vecsec_gw/reload (the last reload's
 * outcome).
 */
#include "gw_dp.h"
#include "ha.h"
#include "hasync.h"
#include "stats_view.h"
#include "view.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_telemetry.h>

/* The totals in the schema of `json stats` (view.c), less its "sa" list. */
static int
tel_stats(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct gw_vw v;

	(void)cmd;
	(void)params;
	gw_cp_lock();
	gw_vw_tel(&v, d);
	gw_vw_obj(&v, NULL);
	gw_view_totals(&v, &gw);
	gw_vw_end(&v);
	gw_cp_unlock();
	return 0;
}

/* One SA into telemetry dict d, in the schema of `json show sa` (view.c). */
static void
tel_sa_fill(unsigned int slot, struct rte_tel_data *d)
{
	struct sa_info in;
	struct gw_vw v;

	gw_stats_sa_info(slot, &in);
	gw_vw_tel(&v, d);
	gw_vw_obj(&v, NULL);
	gw_view_sa(&v, &gw, &in);
	gw_vw_end(&v);
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

/* /vecsec_gw/segments: the cluster's segments (--cluster), the ones active here. */
static int
tel_segments(const char *cmd, const char *params, struct rte_tel_data *d)
{
	char m[48];
	uint16_t mask;
	uint64_t changes;

	(void)cmd;
	(void)params;
	rte_tel_data_start_dict(d);
	gw_cp_lock();
	mask = gw_ha_active();
	changes = gw_ha.changes;
	gw_hasync_telemetry(d);         /* --cluster-sync: the sync's state */
	gw_cp_unlock();
	rte_tel_data_add_dict_u64(d, "count", gw_ha.count);
	rte_tel_data_add_dict_u64(d, "mask", mask);
	rte_tel_data_add_dict_string(d, "active", gw_ha.count ? gw_ha_mask_text(mask, m, sizeof(m)) :
				     "off");
	rte_tel_data_add_dict_u64(d, "changes", changes);
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
	if (rc == 0)
		rc = rte_telemetry_register_cmd("/vecsec_gw/segments", tel_segments,
			"vecsec-gw cluster segments (--cluster): count, active here, changes");
	return rc;
}
