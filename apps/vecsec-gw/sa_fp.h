/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec-gw SA key fingerprints (sa_fp.c): SHA-256 over a random
 * per-process salt and an SA's key bytes, one per SA slot, taken when the
 * SA comes up (gw_sa_fp_set(), gw_dp.h). Keys never stay in the live
 * configuration once the sessions have them, so a reload tells an SA whose
 * keys did not change by its fingerprint.
 */
#ifndef VECSEC_GW_SA_FP_H
#define VECSEC_GW_SA_FP_H

#include <stdbool.h>
#include <stdint.h>

#include "gw.h"

#define GW_FP_LEN 32

/* The table for the SA table's slots (gw.max_sa) and a fresh salt; 0 or -ENOMEM. */
int gw_sa_fp_init(void);
void gw_sa_fp_fini(void);
/* The table is there (gw_sa_fp_init() worked). */
bool gw_sa_fp_ready(void);
/* The fingerprint of c's keys. */
void gw_sa_fp_of(const struct gw_sa_conf *c, uint8_t out[GW_FP_LEN]);
/* slot's fingerprint is f. */
bool gw_sa_fp_same(unsigned int slot, const uint8_t f[GW_FP_LEN]);
/* slot's fingerprint becomes f; NULL: none (the slot's SA is gone). */
void gw_sa_fp_put(unsigned int slot, const uint8_t f[GW_FP_LEN]);

#endif /* VECSEC_GW_SA_FP_H */
