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
	/* struct gw_conf is large: one copy for the whole run */
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
	/* whatever parsed must be self-consistent */
	if (conf->nb_sa > GW_MAX_SA || conf->nb_sp > GW_MAX_SP || conf->nb_rt > GW_MAX_RT ||
			conf->nb_neigh > GW_MAX_NEIGH)
		abort();
	for (unsigned int i = 0; i < conf->nb_sa; i++)
		if (conf->sa[i].cipher_key_len > GW_MAX_KEY || conf->sa[i].auth_key_len > GW_MAX_KEY)
			abort();
	/* a fresh, zeroed configuration for the next input, as the gateway starts */
	gw_conf_wipe(conf);
	memset(conf, 0, sizeof(*conf));
	free(text);
	return 0;
}
