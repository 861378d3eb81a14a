/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec-gw control socket internals shared by ctrl.c (framing, the 1.1
 * requests) and ctrl_ike.c (the 1.2 requests an IKE daemon uses).
 */
#ifndef VECSEC_GW_CTRL_IKE_H
#define VECSEC_GW_CTRL_IKE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "gw.h"

/*
 * The protocol's version, answered by `version` and `hello`: MINOR grows
 * when requests or answer lines are added (what worked before works the
 * same), MAJOR when an existing request or answer changes. 1.0 had no
 * `version` request; 1.1 added `replace sp` and `version`; 1.2 `hello`,
 * `spi alloc`, `query sa`, `flush owner`, `bypass udp`, `natt udp`, `host`
 * and the rule options `owner` and `udp-ports`; 1.3 `show sa`, `reset`,
 * `reload` and the `json` prefix; 1.4 `mem`; 1.5 `bypass|natt udp PORT del`,
 * `owner NAME` on them (`flush owner` takes the ports too) and the `host`
 * line "host default bypass|discard". Since 1.5 the gateway also closes a
 * client idle for --ctrl-idle seconds (never a subscriber; a client
 * reconnects), forgets an `spi alloc` reservation after --spi-timeout
 * seconds (`del sa in N` of a forgotten one answers ERR "no SA in N"), and
 * `flush owner` of a name that tagged nothing answers "flushed 0 SA, 0 SP,
 * 0 SPI" without registering it; `spi alloc ... owner NEW` with the owner
 * table full frees the names that nothing carries any more.
 */
#define GW_CTRL_VERSION "1.5"

struct gw_sa;
/* ctrl.c: publish SP lists built from c (old ones freed once no worker reads them) */
int gw_ctrl_spd_publish(const struct gw_conf *c, char *err, size_t err_len);
/* ctrl.c: free unpublished SA s once no worker can hold it; false if it had to be kept */
bool gw_ctrl_reclaim_sa(struct gw_sa *s);

/*
 * ctrl_ike.c: serve request line if its first words w0 w1 name a 1.2
 * request (answer lines to out, status in *rc, message in err); false if
 * it is not one of them.
 */
bool gw_ctrl_ike(const char *w0, const char *w1, const char *line, FILE *out, char *err,
		 size_t err_len, int *rc);
/* ctrl_ike.c: free a reserved inbound SPI; false if dir/spi had none */
bool gw_ike_spi_release(uint8_t dir, uint32_t spi);
/* ctrl_ike.c: forget every reservation (the fuzz harness, between inputs) */
void gw_ike_reset(void);

#endif /* VECSEC_GW_CTRL_IKE_H */
