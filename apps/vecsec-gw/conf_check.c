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
#include <stdlib.h>
#include <string.h>

#include <rte_crypto_sym.h>

/* One SA's (O(rules)); gw_conf_families() does every SA in O(SAs + rules). */
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
gw_conf_families(const struct gw_conf *conf, int8_t *fam)
{
	int rc = 0;

	for (unsigned int i = 0; i < conf->nb_sa; i++)
		fam[i] = conf->sa[i].inner;
	/* one pass over the rules, each finding its SA through the SA index */
	for (unsigned int i = 0; i < conf->nb_sp; i++) {
		const struct gw_sp_conf *sp = &conf->sp[i];
		const struct gw_sa_conf *c;
		int8_t *f;

		if (sp->action != GW_SP_PROTECT)
			continue;
		c = gw_conf_find_sa(conf, sp->dir, sp->spi);
		if (c == NULL)
			continue;
		f = &fam[c - conf->sa];
		if (*f == -2)
			continue;
		*f = *f >= 0 && *f != (int8_t)sp->v6 ? -2 : (int8_t)sp->v6;
	}
	for (unsigned int i = 0; i < conf->nb_sa; i++) {
		fam[i] = fam[i] == -2 ? -1 : fam[i] >= 0 ? fam[i] :
			(int8_t)(conf->sa[i].mode == GW_MODE_TUN6);
		if (fam[i] < 0 && !conf->sa[i].deleted)
			rc = -EINVAL;
	}
	return rc;
}

int
gw_conf_validate(const struct gw_conf *conf, char *err, size_t err_len)
{
	int8_t *fam = malloc((size_t)conf->nb_sa + 1);

	if (fam == NULL) {
		snprintf(err, err_len, "out of memory");
		return -ENOMEM;
	}
	(void)gw_conf_families(conf, fam);
	for (unsigned int i = 0; i < conf->nb_sa; i++) {
		const struct gw_sa_conf *c = &conf->sa[i];

		if (c->deleted)
			continue;
		/* rte_ipsec fixes the inner family per SA (ipsec-secgw -l refuses it too) */
		if (fam[i] < 0) {
			snprintf(err, err_len, "SA %u (line %d): SP rules send both IPv4 and IPv6 "
				 "through it; one SA carries one family", c->spi, c->line);
			free(fam);
			return -EINVAL;
		}
		if (c->action == GW_SA_LOOKASIDE_PROTOCOL && !protocol_capable(c)) {
			snprintf(err, err_len, "SA %s %u (line %d, %s): no cryptodev offers it as "
				 "lookaside-protocol ESP%s (crypto_vecsec: ChaCha20-Poly1305 and "
				 "ARIA-GCM, tunnel or transport, no udp-encap)",
				 c->dir == GW_DIR_IN ? "in" : "out", c->spi, c->line, c->algo_name,
				 c->udp_encap ? " with udp-encap" : "");
			free(fam);
			return -ENOTSUP;
		}
	}
	free(fam);
	return 0;
}
