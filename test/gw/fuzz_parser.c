/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target for the vecsec-gw configuration parser: the input bytes,
 * NUL-terminated, are parsed as a configuration text through
 * gw_conf_parse_string() (the same entry point --demo and the control
 * socket use; gw_conf_parse_file() only reads the file into it). Whatever
 * the outcome, the configuration is wiped and the next input starts from an
 * empty one. Built with clang-14 -fsanitize=fuzzer,address,undefined by
 * test/gw/fuzz-parser.sh, which also runs it.
 */
#include "gw.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* one configuration for the whole run, emptied after each input */
	static struct gw_conf *conf;
	char err[512];
	char *text;
	int rc;

	if (conf == NULL) {
		conf = calloc(1, sizeof(*conf));
		if (conf == NULL)
			abort();
	}
	text = malloc(size + 1);
	if (text == NULL)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	err[0] = '\0';
	rc = gw_conf_parse_string(conf, "<fuzz>", text, err, sizeof(err));
	/* an error always says why; success leaves it alone */
	if (rc != 0 && strnlen(err, sizeof(err)) == 0)
		abort();
	/* a failed parse leaves the configuration as it was (here: empty) */
	if (rc != 0 && (conf->nb_sa != 0 || conf->nb_sp != 0 || conf->nb_rt != 0 ||
			conf->nb_neigh != 0 || conf->nb_ignored != 0 || conf->nb_live_sa != 0))
		abort();
	/* whatever parsed must be self-consistent */
	if (conf->nb_sa > conf->cap_sa || conf->nb_sp > conf->cap_sp ||
	    conf->nb_rt > conf->cap_rt || conf->nb_neigh > GW_MAX_NEIGH ||
	    conf->nb_live_sa != conf->nb_sa)
		abort();
	for (unsigned int i = 0; i < conf->nb_sa; i++)
		if (conf->sa[i].cipher_key_len > GW_MAX_KEY ||
		    conf->sa[i].auth_key_len > GW_MAX_KEY ||
		    gw_conf_find_sa(conf, conf->sa[i].dir, conf->sa[i].spi) != &conf->sa[i])
			abort();
	/* deleting every SA in turn empties the index, each still found until then */
	for (unsigned int i = 0; i < conf->nb_sa; i++) {
		gw_conf_del_sa(conf, i);
		if (gw_conf_find_sa(conf, conf->sa[i].dir, conf->sa[i].spi) != NULL)
			abort();
		for (unsigned int j = i + 1; j < conf->nb_sa; j++)
			if (gw_conf_find_sa(conf, conf->sa[j].dir, conf->sa[j].spi) !=
			    &conf->sa[j])
				abort();
	}
	if (conf->nb_live_sa != 0)
		abort();
	/* a fresh, empty configuration for the next input, as the gateway starts */
	gw_conf_wipe(conf);
	free(text);
	return 0;
}
