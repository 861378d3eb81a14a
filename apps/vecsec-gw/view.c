/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec-gw's machine-read views in one schema (view.h): a small writer
 * that emits JSON text or DPDK telemetry data, the SA's and the totals'
 * members written once for both, and the JSON front ends built on them
 * (`json stats`, `json show sa`, --stats-file, written atomically). Reads
 * counters through stats.c, under the control-plane lock like every view.
 */
#include "view.h"
#include "gw_dp.h"
#include "ha.h"
#include "hasync.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <rte_telemetry.h>

/* ---- the writer ------------------------------------------------------------ */

void
gw_vw_json(struct gw_vw *v, FILE *f)
{
	memset(v, 0, sizeof(*v));
	v->f = f;
}

void
gw_vw_tel(struct gw_vw *v, struct rte_tel_data *d)
{
	memset(v, 0, sizeof(*v));
	v->t[0] = d;
}

/* A JSON string's characters: the views' strings are names, addresses, messages. */
static void
json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s != '\0'; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/* JSON: the separator and key before a member of the innermost level. */
static void
json_member(struct gw_vw *v, const char *key, bool obj)
{
	unsigned int l = v->depth;

	if (l > 0) {
		if (!v->first[l])
			fputs(", ", v->f);
		/* an array of objects: one per line */
		if (v->arr[l] && obj && l <= 2)
			fprintf(v->f, "\n%*s", 2 * (int)l, "");
		v->first[l] = false;
	}
	if (key != NULL && !(l > 0 && v->arr[l])) {
		json_str(v->f, key);
		fputs(": ", v->f);
	}
}

static void
level_open(struct gw_vw *v, const char *key, bool arr, enum gw_vw_elem elem)
{
	unsigned int l;

	if (v->f != NULL) {
		json_member(v, key, !arr);
		fputc(arr ? '[' : '{', v->f);
	}
	if (v->depth + 1 >= GW_VW_DEPTH)
		return;         /* the schema is 4 deep at most */
	l = ++v->depth;
	v->first[l] = true;
	v->arr[l] = arr;
	if (v->f != NULL)
		return;
	/* telemetry: the root is the caller's; a level below is added at its end */
	if (l == 1) {
		v->t[1] = v->t[0];
	} else {
		v->t[l] = v->t[l - 1] != NULL ? rte_tel_data_alloc() : NULL;
		snprintf(v->key[l], sizeof(v->key[l]), "%s", key != NULL ? key : "");
	}
	if (v->t[l] == NULL)
		return;
	if (arr)
		rte_tel_data_start_array(v->t[l], elem == GW_VW_U64 ? RTE_TEL_U64_VAL :
					 elem == GW_VW_STR ? RTE_TEL_STRING_VAL :
					 RTE_TEL_CONTAINER);
	else
		rte_tel_data_start_dict(v->t[l]);
}

void
gw_vw_obj(struct gw_vw *v, const char *key)
{
	level_open(v, key, false, GW_VW_OBJ);
}

void
gw_vw_arr(struct gw_vw *v, const char *key, enum gw_vw_elem elem)
{
	level_open(v, key, true, elem);
}

void
gw_vw_end(struct gw_vw *v)
{
	unsigned int l = v->depth;
	struct rte_tel_data *c, *up;
	int rc = 0;

	if (l == 0)
		return;
	v->depth--;
	if (v->f != NULL) {
		fputc(v->arr[l] ? ']' : '}', v->f);
		return;
	}
	if (l == 1)
		return;
	c = v->t[l];
	up = v->t[l - 1];
	v->t[l] = NULL;
	if (c == NULL)
		return;
	if (up == NULL)
		rc = -EINVAL;
	else if (v->arr[l - 1])
		rc = rte_tel_data_add_array_container(up, c, 0);
	else
		rc = rte_tel_data_add_dict_container(up, v->key[l], c, 0);
	if (rc != 0)            /* full (512 entries): left out, never leaked */
		rte_tel_data_free(c);
}

void
gw_vw_u64(struct gw_vw *v, const char *key, uint64_t x)
{
	struct rte_tel_data *t = v->t[v->depth];

	if (v->f != NULL) {
		json_member(v, key, false);
		fprintf(v->f, "%" PRIu64, x);
	} else if (t != NULL) {
		if (v->arr[v->depth])
			rte_tel_data_add_array_u64(t, x);
		else
			rte_tel_data_add_dict_u64(t, key, x);
	}
}

void
gw_vw_str(struct gw_vw *v, const char *key, const char *s)
{
	struct rte_tel_data *t = v->t[v->depth];

	if (v->f != NULL) {
		json_member(v, key, false);
		json_str(v->f, s);
	} else if (t != NULL) {
		if (v->arr[v->depth])
			rte_tel_data_add_array_string(t, s);
		else
			rte_tel_data_add_dict_string(t, key, s);
	}
}

/* ---- the schema ---------------------------------------------------------------- */

static const char *const life_keys[4] = { "soft_bytes", "hard_bytes", "soft_packets",
					  "hard_packets" };

static uint64_t
ms(double s)
{
	return s > 0 ? (uint64_t)(s * 1e3 + 0.5) : 0;
}

static uint64_t
rounded(double x)
{
	return x > 0 ? (uint64_t)(x + 0.5) : 0;
}

void
gw_view_sa(struct gw_vw *v, const struct gw_dp *dp, const struct sa_info *in)
{
	const struct gw_sa *s = in->s;
	const struct gw_sa_cold *cold = &dp->sa_cold[s->idx];
	struct gw_hasync_sa_info hi;
	bool soft = __atomic_load_n(&s->soft_sent, __ATOMIC_RELAXED) != 0;
	bool hard = __atomic_load_n(&s->hard_sent, __ATOMIC_RELAXED) != 0;

	gw_vw_u64(v, "spi", s->spi);
	gw_vw_str(v, "dir", in->dir);
	gw_vw_str(v, "mode", in->mode);
	gw_vw_str(v, "inner", s->inner_v6 ? "ipv6" : "ipv4");
	if (in->tunnel) {
		gw_vw_str(v, "src", in->src);
		gw_vw_str(v, "dst", in->dst);
	}
	gw_vw_str(v, "encap", s->natt ? "udp" : "none");
	if (gw_ha.count != 0) {
		/* --cluster (ha.h): the SA's segment, carried here (active) or by the other node */
		if (s->ha_seg == GW_HA_SEG_PKT)
			gw_vw_str(v, "segment", "per packet");
		else if (s->ha_seg != 0)
			gw_vw_u64(v, "segment", s->ha_seg);
		if (s->ha_seg != 0 && s->ha_seg != GW_HA_SEG_PKT)
			gw_vw_str(v, "segment_state", gw_ha_active() & gw_ha_seg_bit(s->ha_seg) ?
				  "active" : "standby");
		if (gw_hasync_sa_info(s->idx, &hi)) {  /* --cluster-sync */
			gw_vw_u64(v, hi.out ? "sync_reserved" : "sync_limit", hi.adv);
			gw_vw_u64(v, "sync_acked", hi.acked);
			gw_vw_u64(v, "sync_partner", hi.partner);
		}
	}
	gw_vw_str(v, "algo", cold->algo_name);
	gw_vw_str(v, "integ", cold->integ_name != NULL ? cold->integ_name : "aead");
	gw_vw_str(v, "type", in->type);
	gw_vw_str(v, "cryptodev", gw_sa_cdev_name(dp, s));
	gw_vw_str(v, "driver", gw_sa_cdev_driver(dp, s));
	gw_vw_u64(v, "seq_bits", in->esn ? 64 : 32);
	gw_vw_str(v, "ipsec_telemetry", in->telemetry ? "on" : "off");
	if (s->dir == GW_DIR_OUT) {
		gw_vw_u64(v, "seq", in->seq);
	} else {
		if (in->has_top)
			gw_vw_u64(v, "seq_highest", in->seq);
		gw_vw_u64(v, "window", in->window);
	}
	gw_vw_u64(v, "pkts", in->st.pkts);
	gw_vw_u64(v, "bytes", in->st.bytes);
	gw_vw_u64(v, "pkts_per_s", rounded(in->pps));
	gw_vw_u64(v, "bytes_per_s", rounded(in->bps));
	gw_vw_u64(v, "since_reset_ms", ms(in->since));
	gw_vw_obj(v, "drops");
	for (unsigned int d = 0; d < GW_DROP_MAX; d++)
		gw_vw_u64(v, gw_drop_names[d], in->st.drops[d]);
	gw_vw_end(v);
	gw_vw_obj(v, "lifetime");      /* limits, 0: none */
	for (unsigned int k = 0; k < 4; k++)
		gw_vw_u64(v, life_keys[k], s->life[k]);
	gw_vw_end(v);
	/* the lifetime events raised (outbound hard: also sequence numbers used up) */
	gw_vw_str(v, "expired", hard ? "hard" : soft ? "soft" : "none");
	gw_vw_str(v, "origin", gw_ctrl_origin(cold->line) ? "control" : "file");
	if (!gw_ctrl_origin(cold->line))
		gw_vw_u64(v, "line", (uint64_t)cold->line);
	if (cold->owner != 0)
		gw_vw_str(v, "owner", gw_owner_name(cold->owner));
}

static void
view_ports(struct gw_vw *v, const struct gw_dp *dp, const struct gw_stats *t,
	   const struct gw_stats *cur, const struct gw_stats *prev)
{
	/* objects keyed by number: 22.11 telemetry's arrays hold no objects */
	gw_vw_obj(v, "ports");
	for (uint16_t p = 0; p < dp->nb_ports; p++) {
		struct port_drops pd;
		char k[8];

		gw_stats_port_drops(p, &pd);
		snprintf(k, sizeof(k), "%u", p);
		gw_vw_obj(v, k);
		gw_vw_u64(v, "port", p);
		gw_vw_str(v, "side", dp->port[p].esp_side ? "esp" : "clear");
		gw_vw_u64(v, "rx", t->port[p].rx);
		gw_vw_u64(v, "tx", t->port[p].tx);
		gw_vw_u64(v, "rx_per_s", rounded(gw_stats_per_s(cur->port[p].rx,
								 prev->port[p].rx)));
		gw_vw_u64(v, "tx_per_s", rounded(gw_stats_per_s(cur->port[p].tx,
								 prev->port[p].tx)));
		gw_vw_u64(v, "imissed", pd.imissed);
		gw_vw_u64(v, "rx_nombuf", pd.rx_nombuf);
		gw_vw_u64(v, "ierrors", pd.ierrors);
		gw_vw_u64(v, "oerrors", pd.oerrors);
		gw_vw_end(v);
	}
	gw_vw_end(v);
}

/* Each worker's own counters since the start (never reset: they are its health). */
static void
view_workers(struct gw_vw *v, const struct gw_dp *dp)
{
	gw_vw_obj(v, "workers");
	for (unsigned int w = 0; w < dp->nb_workers; w++) {
		const struct gw_worker *wk = &dp->worker[w];
		uint64_t rx = 0, tx = 0, dr = 0;
		char k[12];

		for (unsigned int p = 0; p < GW_MAX_PORTS; p++) {
			rx += wk->st.port[p].rx;
			tx += wk->st.port[p].tx;
		}
		for (unsigned int d = 0; d < GW_DROP_MAX; d++)
			dr += wk->st.drops[d];
		snprintf(k, sizeof(k), "%u", w);
		gw_vw_obj(v, k);
		gw_vw_u64(v, "worker", w);
		gw_vw_u64(v, "lcore", wk->lcore);
		gw_vw_u64(v, "rx", rx);
		gw_vw_u64(v, "tx", tx);
		gw_vw_u64(v, "esp_in", wk->st.esp_in);
		gw_vw_u64(v, "esp_out", wk->st.esp_out);
		gw_vw_u64(v, "drops", dr);
		gw_vw_u64(v, "polls", __atomic_load_n(&wk->polls, __ATOMIC_RELAXED));
		gw_vw_u64(v, "busy_cycles", wk->busy_cycles);
		gw_vw_end(v);
	}
	gw_vw_end(v);
}

void
gw_view_totals(struct gw_vw *v, const struct gw_dp *dp)
{
	struct gw_stats t, cur, prev;

	gw_stats_total(dp, &t);
	gw_stats_samples(&cur, &prev);
	gw_vw_u64(v, "uptime_ms", ms(gw_stats_uptime()));
	gw_vw_u64(v, "since_reset_ms", ms(gw_stats_since()));
	gw_vw_u64(v, "rate_interval_ms", ms(gw_stats_interval()));
	view_ports(v, dp, &t, &cur, &prev);
	gw_vw_u64(v, "esp_out", t.esp_out);
	gw_vw_u64(v, "esp_in", t.esp_in);
	gw_vw_u64(v, "bypass", t.bypass);
	gw_vw_u64(v, "esp_out_per_s", rounded(gw_stats_per_s(cur.esp_out, prev.esp_out)));
	gw_vw_u64(v, "esp_in_per_s", rounded(gw_stats_per_s(cur.esp_in, prev.esp_in)));
	/* fragments (the "frag" drop reason is with the others) */
	gw_vw_u64(v, "reassembled", t.reassembled);
	gw_vw_u64(v, "reasm_frags", t.reasm_frags);
	gw_vw_u64(v, "fragmented", t.fragmented);
	gw_vw_u64(v, "frags_out", t.frags_out);
	gw_vw_u64(v, "host_in", t.host_in);
	gw_vw_u64(v, "host_out", t.host_out);
	gw_vw_obj(v, "drops");
	for (unsigned int d = 0; d < GW_DROP_MAX; d++)
		gw_vw_u64(v, gw_drop_names[d], t.drops[d]);
	gw_vw_end(v);
	view_workers(v, dp);
}

/* ---- JSON front ends ------------------------------------------------------------ */

void
gw_stats_json(const struct gw_dp *dp, FILE *f)
{
	struct gw_vw v;

	gw_vw_json(&v, f);
	gw_vw_obj(&v, NULL);
	gw_view_totals(&v, dp);
	gw_vw_arr(&v, "sa", GW_VW_OBJ);
	for (unsigned int i = 0; i < dp->nb_sa; i++) {
		struct sa_info in;

		if (!dp->sa[i].active)
			continue;
		gw_stats_sa_info(i, &in);
		gw_vw_obj(&v, NULL);
		gw_view_sa(&v, dp, &in);
		gw_vw_end(&v);
	}
	gw_vw_end(&v);
	gw_vw_end(&v);
	fputc('\n', f);
}

int
gw_stats_show_sa(const struct gw_dp *dp, int dir, uint32_t spi, bool all, bool json, FILE *f)
{
	unsigned int n = 0;
	struct gw_vw v;

	gw_vw_json(&v, f);
	if (json)
		gw_vw_arr(&v, NULL, GW_VW_OBJ);
	for (unsigned int i = 0; i < dp->nb_sa; i++) {
		struct sa_info in;

		if (!dp->sa[i].active || (!all && (dp->sa[i].spi != spi ||
						  (dir >= 0 && dp->sa[i].dir != dir))))
			continue;
		gw_stats_sa_info(i, &in);
		if (json) {
			gw_vw_obj(&v, NULL);
			gw_view_sa(&v, dp, &in);
			gw_vw_end(&v);
		} else {
			gw_stats_sa_text(dp, &in, f);
		}
		n++;
	}
	if (json) {
		gw_vw_end(&v);
		fputc('\n', f);
	}
	return (int)n;
}

/*
 * --stats-file: a temporary file in the same folder, renamed over PATH, so
 * a reader (a monitoring agent, a script) sees the old file or the new one,
 * never a partial one.
 */
int
gw_stats_write_json(const struct gw_dp *dp, const char *path)
{
	char tmp[PATH_MAX];
	FILE *f;
	int fd, rc;

	if (snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path) >= (int)sizeof(tmp)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	fd = mkstemp(tmp);
	if (fd < 0)
		return -1;
	f = fdopen(fd, "w");
	if (f == NULL) {
		close(fd);
		unlink(tmp);
		return -1;
	}
	gw_stats_json(dp, f);
	rc = fflush(f) != 0 || ferror(f) || fsync(fd) != 0 ? -1 : 0;
	/* mkstemp's 0600; counters are no secret: what a plain fopen() would give */
	if (rc == 0) {
		mode_t um = umask(0);

		umask(um);
		rc = fchmod(fd, 0666 & ~um);
	}
	if (fclose(f) != 0)
		rc = -1;
	if (rc == 0)
		rc = rename(tmp, path);
	if (rc != 0) {
		int e = errno;

		unlink(tmp);
		errno = e;
	}
	return rc;
}
