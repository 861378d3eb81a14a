/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec-ctl check-proposals [FILE ...]: reads swanctl configuration
 * (default /etc/swanctl/swanctl.conf, following its `include` lines) and
 * warns about every algorithm in an `esp_proposals` list that vecsec-gw,
 * through kernel-vecsec, cannot serve. charon negotiates what the list
 * offers; a CHILD_SA on an algorithm the gateway lacks is refused when it
 * is installed, with no fallback to the next proposal, so such a name
 * must not be in the list at all (docs/operations.md, "Proposals").
 *
 * What the gateway serves is kernel-vecsec's table (kernel_vecsec_ipsec.c):
 * AES-GCM with a 16-byte ICV, ChaCha20-Poly1305, ARIA-GCM (16-byte ICV),
 * AES-CBC, AES-CTR and NULL encryption; HMAC-SHA1-96, HMAC-SHA2-256/384/512
 * and AES-XCBC-96 integrity. Key-exchange groups (PFS) and esn/noesn are
 * charon's matter. Exit 0: every list served; 1: a warning; 2: a file
 * could not be read. Needs no gateway.
 */
#include "proposals.h"

#include <ctype.h>
#include <glob.h>
#include <libgen.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROP_DEFAULT_FILE "/etc/swanctl/swanctl.conf"
#define PROP_MAX_DEPTH 8        /* includes within includes */
#define PROP_LINE_MAX 4096

/* Served: strongSwan's keywords (proposal_keywords_static.txt) kernel-vecsec maps. */
static const char *const served[] = {
	"aes128gcm16", "aes192gcm16", "aes256gcm16", "aes128gcm128", "aes192gcm128",
	"aes256gcm128", "aes128gcm", "aes192gcm", "aes256gcm", "chacha20poly1305",
	"aria128gcm16", "aria192gcm16", "aria256gcm16",
	"aes", "aes128", "aes192", "aes256", "aes128ctr", "aes192ctr", "aes256ctr", "null",
	"sha1", "sha", "sha256", "sha2_256", "sha384", "sha2_384", "sha512", "sha2_512",
	"aesxcbc",
};

/* Algorithms strongSwan knows and the gateway does not: why, by prefix. */
static const struct {
	const char *prefix, *what;
} unserved[] = {
	{ "aes128ccm", "AES-CCM" }, { "aes192ccm", "AES-CCM" }, { "aes256ccm", "AES-CCM" },
	{ "aesccm", "AES-CCM" }, { "aes128gcm8", "AES-GCM with an 8-byte ICV" },
	{ "aes192gcm8", "AES-GCM with an 8-byte ICV" },
	{ "aes256gcm8", "AES-GCM with an 8-byte ICV" },
	{ "aes128gcm12", "AES-GCM with a 12-byte ICV" },
	{ "aes192gcm12", "AES-GCM with a 12-byte ICV" },
	{ "aes256gcm12", "AES-GCM with a 12-byte ICV" },
	{ "aes128gcm64", "AES-GCM with an 8-byte ICV" },
	{ "aes192gcm64", "AES-GCM with an 8-byte ICV" },
	{ "aes256gcm64", "AES-GCM with an 8-byte ICV" },
	{ "aes128gcm96", "AES-GCM with a 12-byte ICV" },
	{ "aes192gcm96", "AES-GCM with a 12-byte ICV" },
	{ "aes256gcm96", "AES-GCM with a 12-byte ICV" },
	{ "aes128gmac", "AES-GMAC" }, { "aes192gmac", "AES-GMAC" }, { "aes256gmac", "AES-GMAC" },
	{ "aria", "ARIA other than ARIA-GCM-16" }, { "camellia", "Camellia" },
	{ "3des", "3DES" }, { "des", "DES" }, { "cast", "CAST" }, { "blowfish", "Blowfish" },
	{ "twofish", "Twofish" }, { "serpent", "Serpent" },
	{ "chacha", "ChaCha20 without Poly1305" },
	{ "md5", "HMAC-MD5" }, { "sha1_160", "HMAC-SHA1 with a 20-byte ICV" },
	{ "sha256_96", "HMAC-SHA2-256 with a 12-byte ICV" },
	{ "sha2_256_96", "HMAC-SHA2-256 with a 12-byte ICV" },
	{ "aescmac", "AES-CMAC" }, { "sha3", "SHA-3" },
};

/* Key exchange (PFS) and sequence-number keywords: charon's, not the gateway's. */
static bool
not_esp_algo(const char *t)
{
	static const char *const pre[] = { "modp", "ecp", "curve", "x25519", "x448", "ntru",
					   "newhope", "kyber", "ke", "mlkem", "bike", "hqc",
					   "frodo" };

	if (strcmp(t, "esn") == 0 || strcmp(t, "noesn") == 0 || strcmp(t, "none") == 0)
		return true;
	for (size_t i = 0; i < sizeof(pre) / sizeof(pre[0]); i++)
		if (strncmp(t, pre[i], strlen(pre[i])) == 0)
			return true;
	return false;
}

struct scan {
	unsigned int lists, warnings;
	bool read_error;
};

/* One algorithm keyword of an esp_proposals list at file:line. */
static void
check_token(struct scan *sc, const char *file, unsigned int line, const char *prop,
	    const char *t)
{
	for (size_t i = 0; i < sizeof(served) / sizeof(served[0]); i++)
		if (strcmp(t, served[i]) == 0)
			return;
	if (not_esp_algo(t))
		return;
	sc->warnings++;
	for (size_t i = 0; i < sizeof(unserved) / sizeof(unserved[0]); i++)
		if (strncmp(t, unserved[i].prefix, strlen(unserved[i].prefix)) == 0) {
			printf("%s:%u: warning: esp_proposals '%s': %s (%s) is not served by "
			       "vecsec-gw: a peer that picks it gets a CHILD_SA the gateway "
			       "refuses; leave it out\n", file, line, prop, t, unserved[i].what);
			return;
		}
	printf("%s:%u: warning: esp_proposals '%s': %s is no ESP algorithm vecsec-gw knows "
	       "(not in kernel-vecsec's table); leave it out\n", file, line, prop, t);
}

/* The value of `esp_proposals = a-b-c, d-e` (comments gone): each proposal, each keyword. */
static void
check_list(struct scan *sc, const char *file, unsigned int line, char *v)
{
	char *save = NULL;

	sc->lists++;
	for (char *prop = strtok_r(v, ",", &save); prop != NULL;
	     prop = strtok_r(NULL, ",", &save)) {
		char buf[512], *s2 = NULL;

		while (isspace((unsigned char)*prop))
			prop++;
		for (size_t n = strlen(prop); n > 0 && isspace((unsigned char)prop[n - 1]); n--)
			prop[n - 1] = '\0';
		if (*prop == '\0' || strcmp(prop, "default") == 0)
			continue;       /* charon's: AES-GCM-16, AES-CBC + SHA-1/2, XCBC: served */
		snprintf(buf, sizeof(buf), "%s", prop);
		for (char *t = strtok_r(buf, "-", &s2); t != NULL; t = strtok_r(NULL, "-", &s2)) {
			for (char *c = t; *c != '\0'; c++)
				*c = (char)tolower((unsigned char)*c);
			check_token(sc, file, line, prop, t);
		}
	}
}

static void scan_file(struct scan *sc, const char *path, unsigned int depth);

/* `include PATTERN`, relative to the including file's folder. */
static void
scan_include(struct scan *sc, const char *from, const char *pat, unsigned int depth)
{
	char dir[PATH_MAX], full[PATH_MAX * 2];
	glob_t g;

	snprintf(dir, sizeof(dir), "%s", from);
	if (pat[0] == '/')
		snprintf(full, sizeof(full), "%s", pat);
	else
		snprintf(full, sizeof(full), "%s/%s", dirname(dir), pat);
	if (glob(full, 0, NULL, &g) == 0)
		for (size_t i = 0; i < g.gl_pathc; i++)
			scan_file(sc, g.gl_pathv[i], depth + 1);
	globfree(&g);
}

static void
scan_file(struct scan *sc, const char *path, unsigned int depth)
{
	char line[PROP_LINE_MAX];
	unsigned int ln = 0;
	FILE *f;

	if (depth > PROP_MAX_DEPTH)
		return;
	f = fopen(path, "r");
	if (f == NULL) {
		fprintf(stderr, "vecsec-ctl: check-proposals: cannot read %s\n", path);
		sc->read_error = true;
		return;
	}
	while (fgets(line, sizeof(line), f) != NULL) {
		char *p = line, *hash = strchr(line, '#'), *eq;

		ln++;
		if (hash != NULL)
			*hash = '\0';
		while (isspace((unsigned char)*p))
			p++;
		if (strncmp(p, "include", 7) == 0 && isspace((unsigned char)p[7])) {
			char *pat = p + 8;

			while (isspace((unsigned char)*pat))
				pat++;
			pat[strcspn(pat, " \t\r\n")] = '\0';
			scan_include(sc, path, pat, depth);
			continue;
		}
		/* the key where a line has it: sections may open and close on one line */
		for (char *k = strstr(p, "esp_proposals"); k != NULL;
		     k = strstr(k + 13, "esp_proposals")) {
			if (k != p && !isspace((unsigned char)k[-1]) && k[-1] != '{')
				continue;
			eq = k + 13;
			while (isspace((unsigned char)*eq))
				eq++;
			if (*eq != '=')
				continue;
			eq[strcspn(eq, "}\r\n")] = '\0';
			check_list(sc, path, ln, eq + 1);
			break;
		}
	}
	fclose(f);
}

int
ctl_check_proposals(int argc, char **argv)
{
	struct scan sc = { 0, 0, false };

	if (argc == 0)
		scan_file(&sc, PROP_DEFAULT_FILE, 0);
	for (int i = 0; i < argc; i++)
		scan_file(&sc, argv[i], 0);
	if (sc.read_error)
		return 2;
	if (sc.warnings == 0)
		printf("check-proposals: %u esp_proposals list%s, every algorithm served by "
		       "vecsec-gw\n", sc.lists, sc.lists == 1 ? "" : "s");
	else
		printf("check-proposals: %u algorithm%s vecsec-gw cannot serve in %u list%s\n",
		       sc.warnings, sc.warnings == 1 ? "" : "s", sc.lists,
		       sc.lists == 1 ? "" : "s");
	return sc.warnings == 0 ? 0 : 1;
}
