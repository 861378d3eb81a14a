/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec-gw's one schema for machine-read views (view.c): the control
 * socket's JSON (`json stats`, `json show sa`, --stats-file) and DPDK
 * telemetry (/vecsec_gw/stats, /vecsec_gw/sa) are written by the same
 * functions through a writer that emits either JSON text or rte_tel_data,
 * so a key has one name, one type and one unit in every view. DPDK 22.11
 * telemetry has no boolean and no floating-point value, so the schema has
 * neither: counters are integers, durations integer milliseconds (`_ms`),
 * rates integers per second (`_per_s`), and states are strings naming the
 * state ("side": "esp"|"clear", "expired": "none"|"soft"|"hard").
 * docs/operations.md, "One schema", lists every key.
 */
#ifndef VECSEC_GW_VIEW_H
#define VECSEC_GW_VIEW_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "stats_view.h"

struct rte_tel_data;

#define GW_VW_DEPTH 6
#define GW_VW_KEY 64            /* RTE_TEL_MAX_STRING_LEN */

/* What an array holds (telemetry's arrays are typed). */
enum gw_vw_elem {
	GW_VW_U64,
	GW_VW_STR,
	GW_VW_OBJ,
};

struct gw_vw {
	FILE *f;                                /* JSON text; NULL: telemetry */
	unsigned int depth;                     /* open objects and arrays */
	bool first[GW_VW_DEPTH];                /* nothing written at this level yet */
	bool arr[GW_VW_DEPTH];                  /* this level is an array */
	struct rte_tel_data *t[GW_VW_DEPTH];    /* telemetry: each level's container */
	char key[GW_VW_DEPTH][GW_VW_KEY];       /* telemetry: its key in the level above */
};

/* A writer of JSON text to f, or of telemetry into d (its root). */
void gw_vw_json(struct gw_vw *v, FILE *f);
void gw_vw_tel(struct gw_vw *v, struct rte_tel_data *d);

/* key is NULL inside an array (and for the root object). */
void gw_vw_obj(struct gw_vw *v, const char *key);
void gw_vw_arr(struct gw_vw *v, const char *key, enum gw_vw_elem elem);
void gw_vw_end(struct gw_vw *v);
void gw_vw_u64(struct gw_vw *v, const char *key, uint64_t x);
void gw_vw_str(struct gw_vw *v, const char *key, const char *s);

/* The SA's members (into an open object). */
void gw_view_sa(struct gw_vw *v, const struct gw_dp *dp, const struct sa_info *in);

/* The totals, drops, ports and workers (into an open object), under the lock. */
void gw_view_totals(struct gw_vw *v, const struct gw_dp *dp);

#endif /* VECSEC_GW_VIEW_H */
