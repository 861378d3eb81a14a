/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The checks that need no EAL, made before EAL starts and by --check
 * alike: the configuration (gw_conf_validate()) and what the options say
 * about it (--prefer's driver, -u against the SAs, --gen-pcap's folder).
 */
#include "gw_main.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rte_common.h>

/*
 * Cryptodev driver names --prefer may give: DPDK 22.11's (the names their
 * devices report) and crypto_vecsec. Checked before EAL, which loads the
 * drivers: a typo is refused, not silently never preferred.
 */
static const char *const known_drivers[] = {
	"crypto_vecsec", "crypto_aesni_mb", "crypto_aesni_gcm", "crypto_chacha20_poly1305",
	"crypto_openssl", "crypto_null", "crypto_scheduler", "crypto_kasumi", "crypto_snow3g",
	"crypto_zuc", "crypto_armv8", "crypto_bcmfs", "crypto_caam_jr", "crypto_ccp",
	"crypto_cn9k", "crypto_cn10k", "crypto_dpaa_sec", "crypto_dpaa2_sec", "crypto_mlx5",
	"crypto_mvsam", "crypto_nitrox_sym", "crypto_octeontx", "crypto_qat", "crypto_uadk",
	"crypto_virtio",
};

/* How many protect rules the configuration has (with its SAs: ESP to send or take) */
static unsigned int
conf_protect_rules(const struct gw_conf *c)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < c->nb_sp; i++)
		n += c->sp[i].action == GW_SP_PROTECT;
	return n;
}

/*
 * Every check that needs no EAL, for start and --check alike: the
 * configuration (gw_conf_validate()) and what the options say about it.
 * Messages name the option or the file's line. Returns 0, or the exit
 * status: 1 for the configuration, 2 for an option.
 */
int
gw_preflight(const struct opts *o, const struct gw_conf *c, const char *name, bool options)
{
	char err[512], warn[512];
	unsigned int prot = conf_protect_rules(c), esp = c->nb_sa + prot;
	struct stat st;

	for (unsigned int k = 0; k < GW_IGN_MAX; k++)
		if (gw_conf_ignored_text(c, name, k, warn, sizeof(warn)))
			fprintf(stderr, "vecsec-gw: warning: %s\n", warn);
	if (gw_conf_validate(c, err, sizeof(err)) != 0) {
		fprintf(stderr, "vecsec-gw: %s: %s\n", name, err);
		return 1;
	}
	if (!options)
		return 0;
	if (gw.prefer_driver != NULL) {
		unsigned int k;

		for (k = 0; k < RTE_DIM(known_drivers); k++)
			if (strcmp(known_drivers[k], gw.prefer_driver) == 0)
				break;
		if (k == RTE_DIM(known_drivers)) {
			fprintf(stderr, "vecsec-gw: --prefer %s: no such cryptodev driver "
				"(crypto_vecsec, crypto_aesni_mb, crypto_aesni_gcm, "
				"crypto_chacha20_poly1305, crypto_openssl, crypto_null, "
				"crypto_qat, ... as DPDK names them)\n", gw.prefer_driver);
			return 2;
		}
	}
	if (!o->demo && esp != 0 && !o->unprot_given) {
		fprintf(stderr, "vecsec-gw: -u MASK missing: %s has %u SA(s) and %u protect "
			"rule(s), and without -u no port is unprotected: ESP could neither "
			"leave nor arrive (-u names the ESP-side ports, as in ipsec-secgw)\n",
			name, c->nb_sa, prot);
		return 2;
	}
	if (!o->demo && esp != 0 && o->unprot_mask == 0) {
		fprintf(stderr, "vecsec-gw: -u 0: names no port, and %s has %u SA(s) and %u "
			"protect rule(s)\n", name, c->nb_sa, prot);
		return 2;
	}
	if (o->gen_pcap != NULL && (stat(o->gen_pcap, &st) != 0 || !S_ISDIR(st.st_mode) ||
				    access(o->gen_pcap, W_OK | X_OK) != 0)) {
		fprintf(stderr, "vecsec-gw: --gen-pcap %s: %s\n", o->gen_pcap,
			stat(o->gen_pcap, &st) != 0 ? "no such folder (make it first)" :
			!S_ISDIR(st.st_mode) ? "not a folder" : "cannot write into it");
		return 2;
	}
	return 0;
}

/*
 * --check FILE: parse and check FILE as start would (preflight(); with the
 * options given after `--`, those too) and print a summary. What needs
 * EAL is not checked: whether the ports of -u and of the routes exist, and
 * which cryptodevs can run the SAs.
 */
int
gw_check_only(struct gw_conf *conf, const char *file, const struct opts *o, bool options)
{
	char err[512];
	int rc = gw_conf_parse_file(conf, file, o->conf_flags, err, sizeof(err));

	if (err[0] != '\0')
		fprintf(stderr, "vecsec-gw: %s\n", err);
	if (rc != 0) {
		gw_conf_wipe(conf);     /* a failed parse keeps its grown arrays */
		return 1;
	}
	rc = gw_preflight(o, conf, file, options);
	if (rc != 0) {
		gw_conf_wipe(conf);
		return rc;
	}
	printf("%s: OK: %u SA, %u SP, %u routes, %u neigh", file, conf->nb_sa, conf->nb_sp,
		conf->nb_rt, conf->nb_neigh);
	if (conf->nb_ignored != 0)
		printf(", %u flow rules ignored", conf->nb_ignored);
	printf("\n");
	gw_conf_wipe(conf);
	return 0;
}
