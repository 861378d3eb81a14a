/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec-gw native SAs (sa_native.c): which SAs are native, building and
 * wiping their own state. sa.c calls these; the data path reads the state
 * (esp_native.h).
 */
#ifndef VECSEC_GW_SA_NATIVE_H
#define VECSEC_GW_SA_NATIVE_H

#include "gw_dp.h"

/* ChaCha20-Poly1305 with a 32-byte key, or ARIA-GCM; a 16-byte ICV: libvecsec runs it. */
bool gw_sa_native_capable(const struct gw_sa_conf *c);
/* The SA becomes native: `type native`, or --native and an algorithm libvecsec has. */
bool gw_sa_native_want(const struct gw_dp *dp, const struct gw_sa_conf *c);
/* The native part of slot s (sa.c filled the shared fields); 0 or -errno. */
int gw_sa_native_init(struct gw_dp *dp, struct gw_sa *s, const struct gw_sa_conf *c,
		      uint64_t first, uint32_t win, bool esn);
/* Its key wiped and its native lines zeroed (before sa.c frees its block). */
void gw_sa_native_wipe(struct gw_dp *dp, struct gw_sa *s);

#endif
