/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec-gw: the checks a parsed configuration must pass before anything
 * is built from it, in one place, so that `--check`, start and a reload
 * (SIGHUP) accept and refuse the same files with the same messages. What
 * only the running gateway can know (which ports and cryptodevs exist) is
 * checked at start, after EAL: routes to missing ports, SAs no cryptodev
 * can run.
 */
#include "gw.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_crypto_sym.h>

int
gw_sa_family(const struct gw_conf *conf, const struct gw_sa_conf *c)
{
	int fam = c->inner;

	for (unsigned int i = 0; i < conf->nb_sp; i++) {
		const struct gw_sp_conf *sp = &conf->sp[i];

		if (sp->action != GW_SP_PROTECT || sp->dir != c->dir || sp->spi != c->spi)
			continue;
		if (fam >= 0 && fam != sp->v6)
			return -1;
		fam = sp->v6;
	}
	if (fam < 0)
		fam = c->mode == GW_MODE_TUN6;
	return fam;
}

/*
 * lookaside-protocol SAs: the only cryptodev that offers rte_security
 * lookaside-protocol ESP here is crypto_vecsec (ChaCha20-Poly1305 and
 * ARIA-GCM, tunnel or transport, without NAT-T).
 */
static bool
protocol_capable(const struct gw_sa_conf *c)
{
	return c->aead && !c->udp_encap &&
		(c->aead_algo == RTE_CRYPTO_AEAD_CHACHA20_POLY1305 ||
		 c->aead_algo == GW_AEAD_ARIA_GCM);
}

int
gw_conf_validate(const struct gw_conf *conf, char *err, size_t err_len)
{
	for (unsigned int i = 0; i < conf->nb_sa; i++) {
		const struct gw_sa_conf *c = &conf->sa[i];

		if (c->deleted)
			continue;
		/* rte_ipsec fixes the inner family per SA (ipsec-secgw -l refuses it too) */
		if (gw_sa_family(conf, c) < 0) {
			snprintf(err, err_len, "SA %u (line %d): SP rules send both IPv4 and IPv6 "
				 "through it; one SA carries one family", c->spi, c->line);
			return -EINVAL;
		}
		if (c->action == GW_SA_LOOKASIDE_PROTOCOL && !protocol_capable(c)) {
			snprintf(err, err_len, "SA %s %u (line %d, %s): no cryptodev offers it as "
				 "lookaside-protocol ESP%s (crypto_vecsec: ChaCha20-Poly1305 and "
				 "ARIA-GCM, tunnel or transport, no udp-encap)",
				 c->dir == GW_DIR_IN ? "in" : "out", c->spi, c->line, c->algo_name,
				 c->udp_encap ? " with udp-encap" : "");
			return -ENOTSUP;
		}
	}
	return 0;
}
