/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec-gw configuration parser: ipsec-secgw's rule syntax (sample app
 * guide, "Configuration File Syntax"): `sp`, `sa`, `rt`, `neigh` rules, `#`
 * comments, `\` joins a line with the next one (no space inserted, as
 * ipsec-secgw does, so keys may be split mid-way). `flow` rules and the SA
 * keywords of inline offload (port_id, mss, flow-direction, reassembly_en)
 * are accepted without effect and reported once each (ignored_kw[]);
 * `fallback` is refused, as ipsec-secgw refuses it outside inline SAs.
 * Every error names the file, the line and the token, and parsing stops
 * there.
 *
 * Differences from ipsec-secgw, on purpose: an SP rule without proto, sport
 * or dport matches any value (ipsec-secgw's ACL would match only 0), and SA
 * types other than no-offload / lookaside-none / cpu-crypto /
 * lookaside-protocol-offload are refused.
 */
#include "gw.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rte_crypto_sym.h>

#define MAX_TOKENS 128

struct tok {
	const char *s;
	int line;
};

struct pctx {
	const char *name;
	char *err;
	size_t err_len;
	struct tok t[MAX_TOKENS];
	unsigned int n;
	int line;               /* first line of the rule */
};

/*
 * Errors quote the token they are about, unless it could be key material.
 * The rule, the only place that decides it (the control socket's answers
 * use it too): a token is quoted only when it is not the value of a key
 * keyword (cipher_key, auth_key, aead_key: "<hidden key>") and has one of
 * these shapes, which no key written as hex bytes has:
 *   - a word: lowercase letters, digits, '-' and '_', at most 32
 *     characters, with at least one letter from g to z (so not hex);
 *   - a decimal number of at most 10 digits (a leading '-' allowed), or a
 *     range of two (X:Y);
 *   - digits and dots with an optional /prefix (an IPv4 address, or what was
 *     meant as one);
 *   - an IPv6 address with "::" or a /prefix.
 * Anything else (hex strings with or without ':', MAC addresses, full
 * 8-group IPv6 addresses, mixed case, other punctuation) shows as
 * "<hidden>". The rule also holds when the key keyword is missing, misspelt
 * or misplaced: a key (8 bytes at least, 16 hex digits) is never one of
 * these shapes.
 */
static int
hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

#define HIDDEN_KEY "<hidden key>"
#define HIDDEN "<hidden>"

static bool
is_key_keyword(const char *s)
{
	return s != NULL && (strcmp(s, "cipher_key") == 0 || strcmp(s, "auth_key") == 0 ||
		strcmp(s, "aead_key") == 0);
}

/* s[0..n) is 1..max decimal digits */
static bool
all_digits(const char *s, size_t n, size_t max)
{
	if (n == 0 || n > max)
		return false;
	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return true;
}

static bool
public_shape(const char *t)
{
	size_t n = strlen(t), i;
	const char *colon = strchr(t, ':'), *slash = strchr(t, '/');
	char buf[INET6_ADDRSTRLEN];
	struct in6_addr a6;
	bool hex_only = true, ok;

	if (n == 0)
		return true;
	if (t[0] != '-' && n <= 32) {                           /* a word */
		for (i = 0; i < n; i++) {
			char c = t[i];

			if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
					c == '_'))
				break;
			if (c >= 'g' && c <= 'z')
				hex_only = false;
		}
		if (i == n && !hex_only)
			return true;
	}
	if (t[0] == '-' && all_digits(t + 1, n - 1, 10))       /* a number */
		return true;
	if (colon == NULL && all_digits(t, n, 10))
		return true;
	if (colon != NULL && strchr(colon + 1, ':') == NULL &&  /* a range X:Y */
			all_digits(t, (size_t)(colon - t), 10) &&
			all_digits(colon + 1, n - (size_t)(colon - t) - 1, 10))
		return true;
	if (slash != NULL && !all_digits(slash + 1, n - (size_t)(slash - t) - 1, 3))
		return false;
	if (slash == NULL)
		slash = t + n;
	if (strspn(t, "0123456789.") == (size_t)(slash - t) && slash - t <= 15)
		return true;                                    /* IPv4, or meant as one */
	if ((size_t)(slash - t) >= sizeof(buf) || (strstr(t, "::") == NULL && *slash == '\0'))
		return false;
	memcpy(buf, t, (size_t)(slash - t));
	buf[slash - t] = '\0';
	ok = inet_pton(AF_INET6, buf, &a6) == 1;               /* IPv6 with :: or /len */
	explicit_bzero(buf, sizeof(buf));
	return ok;
}

const char *
gw_token_quote(const char *tok, const char *prev)
{
	if (is_key_keyword(prev))
		return HIDDEN_KEY;
	return public_shape(tok) ? tok : HIDDEN;
}

/*
 * vecsec: owner tags. A name keeps its id while anything carries it; the
 * control thread frees the names nothing carries any more when the table is
 * full (gw_owner_forget(), "" marks a free id).
 */
static char owner_names[GW_MAX_OWNERS][GW_OWNER_LEN];
static unsigned int nb_owners = 1;      /* id 0: none */

int
gw_owner_find(const char *name)
{
	size_t len = strlen(name);

	if (len == 0 || len >= GW_OWNER_LEN ||
			strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				"0123456789_.-") != len)
		return -EINVAL;
	for (unsigned int i = 1; i < nb_owners; i++)
		if (strcmp(owner_names[i], name) == 0)
			return (int)i;
	return -ENOENT;
}

int
gw_owner_id(const char *name)
{
	size_t len = strlen(name);
	int id = gw_owner_find(name);

	if (id != -ENOENT)
		return id < 0 ? -1 : id;
	for (unsigned int i = 1; i < nb_owners; i++) {
		if (owner_names[i][0] == '\0') {      /* freed: reused */
			memcpy(owner_names[i], name, len + 1);
			return (int)i;
		}
	}
	if (nb_owners == GW_MAX_OWNERS)
		return -1;
	memcpy(owner_names[nb_owners], name, len + 1);
	return (int)nb_owners++;
}

void
gw_owner_forget(const bool *used)
{
	for (unsigned int i = 1; i < nb_owners; i++)
		if (!used[i])
			owner_names[i][0] = '\0';
}

const char *
gw_owner_name(uint8_t id)
{
	return id != 0 && id < nb_owners ? owner_names[id] : "";
}


static int
perr(struct pctx *p, unsigned int ti, const char *fmt, ...)
{
	va_list ap;
	int off;
	int line = ti < p->n ? p->t[ti].line : p->line;

	if (ti < p->n)
		off = snprintf(p->err, p->err_len, "%s:%d: token '%s': ", p->name, line,
			gw_token_quote(p->t[ti].s, ti > 0 ? p->t[ti - 1].s : NULL));
	else
		off = snprintf(p->err, p->err_len, "%s:%d: at end of rule: ", p->name, line);
	if (off < 0 || (size_t)off >= p->err_len)
		return -EINVAL;
	va_start(ap, fmt);
	vsnprintf(p->err + off, p->err_len - off, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* ---- ipsec-secgw keywords without effect here ---------------------------- */

static const struct {
	const char *kw;
	const char *why;
} ignored_kw[GW_IGN_MAX] = {
	[GW_IGN_PORT_ID] = { "port_id", "it binds inline-offload SAs to a port; vecsec-gw's "
			     "SAs are lookaside and serve every port" },
	[GW_IGN_MSS] = { "mss", "it sets the TSO segment size of inline-offload SAs; vecsec-gw "
			 "fragments what exceeds the MTU (--mtu)" },
	[GW_IGN_FLOW_DIR] = { "flow-direction", "vecsec-gw installs no rte_flow rule; RSS "
			      "spreads ESP over the workers' queues (docs/operations.md)" },
	[GW_IGN_REASSEMBLY] = { "reassembly_en", "it asks for inline reassembly offload; "
				"vecsec-gw reassembles in software for every SA (--reassemble)" },
	[GW_IGN_FLOW] = { "flow", "vecsec-gw installs no rte_flow rule; flow rules are skipped" },
};

/* Note keyword k at token ti; the caller warns once per keyword (gw_conf_ignored_text). */
static void
ignored(const struct pctx *p, struct gw_conf *conf, enum gw_ignored k, unsigned int ti)
{
	if (conf->ignored & (1u << k))
		return;
	conf->ignored |= 1u << k;
	conf->ignored_line[k] = ti < p->n ? p->t[ti].line : p->line;
}

int
gw_conf_ignored_text(const struct gw_conf *conf, const char *name, unsigned int k, char *buf,
		size_t len)
{
	if (k >= GW_IGN_MAX || !(conf->ignored & (1u << k)))
		return 0;
	if (k == GW_IGN_FLOW)
		snprintf(buf, len, "%s:%d: %u 'flow' rule%s ignored: %s", name,
			 conf->ignored_line[k], conf->nb_ignored, conf->nb_ignored == 1 ? "" : "s",
			 ignored_kw[k].why);
	else
		snprintf(buf, len, "%s:%d: '%s' ignored: %s", name, conf->ignored_line[k],
			 ignored_kw[k].kw, ignored_kw[k].why);
	return 1;
}

/* ---- value parsers: 0 or -1, never partial --------------------------- */

int
gw_parse_u64(const char *s, uint64_t max, uint64_t *v)
{
	char *end;
	unsigned long long x;

	if (s[0] < '0' || s[0] > '9')
		return -1;
	errno = 0;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		x = strtoull(s + 2, &end, 16);
	else
		x = strtoull(s, &end, 10);
	if (errno != 0 || *end != '\0' || x > max)
		return -1;
	*v = x;
	return 0;
}

static int
parse_range(const char *s, uint64_t max, uint64_t *lo, uint64_t *hi)
{
	char buf[64];
	char *colon;
	int rc;

	if (strlen(s) >= sizeof(buf))
		return -1;
	strcpy(buf, s);
	colon = strchr(buf, ':');
	if (colon == NULL)
		return -1;
	*colon = '\0';
	rc = gw_parse_u64(buf, max, lo) < 0 || gw_parse_u64(colon + 1, max, hi) < 0 || *lo > *hi ?
		-1 : 0;
	explicit_bzero(buf, sizeof(buf));       /* a misplaced key may have landed here */
	return rc;
}

/* `owner NAME` at token ti: the id into *owner, or an error */
static int
parse_owner(struct pctx *p, unsigned int ti, uint8_t *owner)
{
	int id = gw_owner_id(p->t[ti].s);

	if (id < 0)
		return perr(p, ti, "owner: 1..%d characters of [A-Za-z0-9_.-] (at most %d "
			"different owners)", GW_OWNER_LEN - 1, GW_MAX_OWNERS - 1);
	*owner = (uint8_t)id;
	return 0;
}

/* X:Y, each 0..max, in either order (a pair, not a range) */
static int
parse_range_any(const char *s, uint64_t max, uint64_t *x, uint64_t *y)
{
	char buf[64];
	char *colon;
	int rc;

	if (strlen(s) >= sizeof(buf))
		return -1;
	strcpy(buf, s);
	colon = strchr(buf, ':');
	if (colon == NULL)
		return -1;
	*colon = '\0';
	rc = gw_parse_u64(buf, max, x) < 0 || gw_parse_u64(colon + 1, max, y) < 0 ? -1 : 0;
	explicit_bzero(buf, sizeof(buf));       /* a misplaced key may have landed here */
	return rc;
}

/* "a.b.c.d" or an IPv6 address, with "/len" when prefix is not NULL. */
static int
parse_addr(const char *s, bool v6, struct gw_addr *a, uint8_t *prefix)
{
	char buf[INET6_ADDRSTRLEN + 8];
	char *slash;
	uint64_t len = v6 ? 128 : 32;

	if (strlen(s) >= sizeof(buf))
		return -1;
	strcpy(buf, s);
	slash = strchr(buf, '/');
	if (slash != NULL) {
		*slash = '\0';
		if (prefix == NULL || gw_parse_u64(slash + 1, v6 ? 128 : 32, &len) < 0)
			goto bad;
	}
	memset(a, 0, sizeof(*a));
	if (inet_pton(v6 ? AF_INET6 : AF_INET, buf, a->b) != 1)
		goto bad;
	if (prefix != NULL)
		*prefix = (uint8_t)len;
	explicit_bzero(buf, sizeof(buf));
	return 0;
bad:
	explicit_bzero(buf, sizeof(buf));       /* a misplaced key may have landed here */
	return -1;
}

/* Bytes "a1:b2:3:..." (one or two hex digits each); returns the count or -1. */
static int
parse_hex_bytes(const char *s, uint8_t *out, size_t max)
{
	size_t n = 0;

	for (;;) {
		int h = hexval(s[0]), l;

		if (h < 0 || n == max)
			return -1;
		l = hexval(s[1]);
		if (l >= 0) {
			out[n++] = (uint8_t)(h << 4 | l);
			s += 2;
		} else {
			out[n++] = (uint8_t)h;
			s += 1;
		}
		if (*s == '\0')
			return (int)n;
		if (*s != ':')
			return -1;
		s++;
	}
}

/* ---- algorithm tables (key lengths include the 4-byte salt) ----------- */

struct cipher_algo {
	const char *kw;
	enum rte_crypto_cipher_algorithm algo;
	uint16_t key_len, iv_len;
	bool salt;
};

static const struct cipher_algo cipher_algos[] = {
	{ "null", RTE_CRYPTO_CIPHER_NULL, 0, 0, false },
	{ "aes-128-cbc", RTE_CRYPTO_CIPHER_AES_CBC, 16, 16, false },
	{ "aes-192-cbc", RTE_CRYPTO_CIPHER_AES_CBC, 24, 16, false },
	{ "aes-256-cbc", RTE_CRYPTO_CIPHER_AES_CBC, 32, 16, false },
	{ "aes-128-ctr", RTE_CRYPTO_CIPHER_AES_CTR, 20, 16, true },
	{ "aes-192-ctr", RTE_CRYPTO_CIPHER_AES_CTR, 28, 16, true },
	{ "aes-256-ctr", RTE_CRYPTO_CIPHER_AES_CTR, 36, 16, true },
	{ "3des-cbc", RTE_CRYPTO_CIPHER_3DES_CBC, 24, 8, false },
	{ "des-cbc", RTE_CRYPTO_CIPHER_DES_CBC, 8, 8, false },
	/* vecsec: ARIA-CTR (RFC 5794), ESP layout of RFC 3686: key + 4-byte nonce */
	{ "aria-128-ctr", (enum rte_crypto_cipher_algorithm)GW_CIPHER_ARIA_CTR, 20, 16, true },
	{ "aria-192-ctr", (enum rte_crypto_cipher_algorithm)GW_CIPHER_ARIA_CTR, 28, 16, true },
	{ "aria-256-ctr", (enum rte_crypto_cipher_algorithm)GW_CIPHER_ARIA_CTR, 36, 16, true },
};

struct auth_algo {
	const char *kw;
	enum rte_crypto_auth_algorithm algo;
	uint16_t key_len, digest_len, iv_len;
	bool salt;
};

static const struct auth_algo auth_algos[] = {
	{ "null", RTE_CRYPTO_AUTH_NULL, 0, 0, 0, false },
	{ "sha1-hmac", RTE_CRYPTO_AUTH_SHA1_HMAC, 20, 12, 0, false },
	{ "sha256-hmac", RTE_CRYPTO_AUTH_SHA256_HMAC, 32, 16, 0, false },
	{ "sha384-hmac", RTE_CRYPTO_AUTH_SHA384_HMAC, 48, 24, 0, false },
	{ "sha512-hmac", RTE_CRYPTO_AUTH_SHA512_HMAC, 64, 32, 0, false },
	{ "aes-gmac", RTE_CRYPTO_AUTH_AES_GMAC, 20, 16, 12, true },
	{ "aes-xcbc-mac-96", RTE_CRYPTO_AUTH_AES_XCBC_MAC, 16, 12, 0, false },
};

struct aead_algo {
	const char *kw;
	enum rte_crypto_aead_algorithm algo;
	uint16_t key_len, iv_len;
};

static const struct aead_algo aead_algos[] = {
	{ "aes-128-gcm", RTE_CRYPTO_AEAD_AES_GCM, 20, 12 },
	{ "aes-192-gcm", RTE_CRYPTO_AEAD_AES_GCM, 28, 12 },
	{ "aes-256-gcm", RTE_CRYPTO_AEAD_AES_GCM, 36, 12 },
	{ "aes-128-ccm", RTE_CRYPTO_AEAD_AES_CCM, 20, 11 },
	{ "aes-192-ccm", RTE_CRYPTO_AEAD_AES_CCM, 28, 11 },
	{ "aes-256-ccm", RTE_CRYPTO_AEAD_AES_CCM, 36, 11 },
	/* RFC 7634: 32-byte key + 4-byte salt, nonce = salt || IV */
	{ "chacha20-poly1305", RTE_CRYPTO_AEAD_CHACHA20_POLY1305, 36, 12 },
	/* vecsec: ARIA-GCM (RFC 5794), ESP layout of RFC 4106: key + 4-byte salt */
	{ "aria-128-gcm", (enum rte_crypto_aead_algorithm)GW_AEAD_ARIA_GCM, 20, 12 },
	{ "aria-192-gcm", (enum rte_crypto_aead_algorithm)GW_AEAD_ARIA_GCM, 28, 12 },
	{ "aria-256-gcm", (enum rte_crypto_aead_algorithm)GW_AEAD_ARIA_GCM, 36, 12 },
};

#define FIND_ALGO(tab, s) find_kw(&(tab)[0].kw, sizeof((tab)[0]), \
	sizeof(tab) / sizeof((tab)[0]), (s))

/* Index of keyword s in a table of structs that start with `const char *kw`. */
static int
find_kw(const char *const *first, size_t stride, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++) {
		const char *const *kw = (const char *const *)((const char *)first + i * stride);

		if (strcmp(*kw, s) == 0)
			return (int)i;
	}
	return -1;
}

/* Next token or an error naming the one that needed it. */
#define NEXT(p, ti, what) do { \
	if ((ti) + 1 >= (p)->n) \
		return perr((p), (ti), "expects %s after it", (what)); \
	(ti)++; \
} while (0)

#define ONCE(p, ti, flag) do { \
	if (flag) \
		return perr((p), (ti), "given twice"); \
	(flag) = true; \
} while (0)

/* ---- storage: growing arrays, the SA index -------------------------------- */

/*
 * Room for need elements of elt bytes in *arr (capacity *cap): the capacity
 * doubles, so n rules cost O(n) copies in all. secret: the array holds keys;
 * it lives on pages left out of core dumps and the old copy is wiped.
 */
static int
grow(void **arr, unsigned int *cap, unsigned int need, size_t elt, bool secret)
{
	unsigned int ncap = *cap != 0 ? *cap : 16;
	void *p;

	if (need <= *cap)
		return 0;
	while (ncap < need)
		ncap *= 2;
	if (secret) {
		p = gw_secret_alloc((size_t)ncap * elt);
		if (p == NULL)
			return -ENOMEM;
		if (*arr != NULL) {
			memcpy(p, *arr, (size_t)*cap * elt);
			gw_secret_free(*arr, (size_t)*cap * elt);
		}
	} else {
		p = realloc(*arr, (size_t)ncap * elt);
		if (p == NULL)
			return -ENOMEM;
	}
	*arr = p;
	*cap = ncap;
	return 0;
}

/*
 * The SA index: (direction, SPI) -> slot + 1 (0: empty), linear probing in
 * a power-of-two table kept at most half full, deletion by backward shift
 * (no tombstones). Every lookup of an SA by SPI (duplicates, SP references,
 * the control socket) is O(1), so n SAs load in O(n).
 */
static inline unsigned int
sa_home(const struct gw_conf *conf, uint8_t dir, uint32_t spi)
{
	uint64_t h = ((uint64_t)spi << 1 | dir) * 0x9e3779b97f4a7c15ull;

	return (unsigned int)(h >> 32) & conf->sa_idx_mask;
}

/* Where (dir, spi) sits in the index, or -1. */
static long
idx_pos(const struct gw_conf *conf, uint8_t dir, uint32_t spi)
{
	if (conf->sa_idx == NULL)
		return -1;
	for (unsigned int h = sa_home(conf, dir, spi);; h = (h + 1) & conf->sa_idx_mask) {
		uint32_t v = conf->sa_idx[h];

		if (v == 0)
			return -1;
		if (conf->sa[v - 1].dir == dir && conf->sa[v - 1].spi == spi)
			return (long)h;
	}
}

static void
idx_put(struct gw_conf *conf, unsigned int i)
{
	unsigned int h = sa_home(conf, conf->sa[i].dir, conf->sa[i].spi);

	while (conf->sa_idx[h] != 0)
		h = (h + 1) & conf->sa_idx_mask;
	conf->sa_idx[h] = i + 1;
}

/* Index slot i (not deleted, its SPI not indexed yet); -ENOMEM. */
static int
idx_insert(struct gw_conf *conf, unsigned int i)
{
	unsigned int size = conf->sa_idx != NULL ? conf->sa_idx_mask + 1 : 0;

	if (2 * ((size_t)conf->nb_live_sa + 1) > size) {
		unsigned int nsize = size != 0 ? 2 * size : 64;
		uint32_t *t;

		while (2 * ((size_t)conf->nb_live_sa + 1) > nsize)
			nsize *= 2;
		t = calloc(nsize, sizeof(*t));
		if (t == NULL)
			return -ENOMEM;
		free(conf->sa_idx);
		conf->sa_idx = t;
		conf->sa_idx_mask = nsize - 1;
		for (unsigned int j = 0; j < conf->nb_sa; j++)
			if (j != i && !conf->sa[j].deleted)
				idx_put(conf, j);
	}
	idx_put(conf, i);
	conf->nb_live_sa++;
	return 0;
}

static void
idx_remove(struct gw_conf *conf, uint8_t dir, uint32_t spi)
{
	long pos = idx_pos(conf, dir, spi);
	unsigned int j, k, m = conf->sa_idx_mask;

	if (pos < 0)
		return;
	j = (unsigned int)pos;
	conf->sa_idx[j] = 0;
	conf->nb_live_sa--;
	/* backward shift: pull later entries of the run into the hole they may need */
	for (k = (j + 1) & m; conf->sa_idx[k] != 0; k = (k + 1) & m) {
		const struct gw_sa_conf *c = &conf->sa[conf->sa_idx[k] - 1];
		unsigned int h = sa_home(conf, c->dir, c->spi);

		/* stays when its home lies cyclically in (j, k] */
		if (j < k ? (h > j && h <= k) : (h > j || h <= k))
			continue;
		conf->sa_idx[j] = conf->sa_idx[k];
		conf->sa_idx[k] = 0;
		j = k;
	}
}

static unsigned int
limit_of(unsigned int max)
{
	return max != 0 && max < GW_LIMIT_RULES ? max : GW_LIMIT_RULES;
}

/* ---- sa ---------------------------------------------------------------- */

/*
 * The key token at ti (hex bytes separated by ':'): exactly want bytes for
 * algorithm kw, the last 4 of them the salt when salted. The key goes to
 * dst/dst_len, the salt to *salt; the scratch copy is wiped either way.
 */
static int
parse_sa_key(struct pctx *p, unsigned int ti, const char *kw, unsigned int want, bool salted,
	     const char *what, uint8_t *dst, uint16_t *dst_len, uint32_t *salt)
{
	uint8_t key[GW_MAX_KEY + 4];
	int klen = parse_hex_bytes(p->t[ti].s, key, sizeof(key));
	int rc = 0;

	if (klen < 0) {
		rc = perr(p, ti, "key must be hex bytes separated by ':'");
	} else if (klen != (int)want) {
		rc = perr(p, ti, "%s needs %u key bytes%s, got %d", kw, want, what, klen);
	} else {
		if (salted) {
			klen -= 4;
			memcpy(salt, key + klen, 4);
		}
		memcpy(dst, key, (size_t)klen);
		*dst_len = (uint16_t)klen;
	}
	explicit_bzero(key, sizeof(key));
	return rc;
}

/* What parse_sa() learns about one rule on the way, beside the SA itself. */
struct sa_rule {
	struct gw_sa_conf *sa;
	int ci, ai, ei;                 /* cipher, auth, AEAD algorithm: table index, -1 none */
	bool mode_p, src_p, dst_p, type_p;
	bool ckey_p, akey_p, ekey_p, esn_p;
	unsigned int src_ti, dst_ti, ai_ti, seq_ti;     /* tokens later messages point at */
};

/* A keyword helper's answer for a keyword that is not one of its group's */
#define SA_NOT_MINE 1

/*
 * A new SA slot for the rule, its direction and SPI; deleted slots are
 * reused (the control socket). 0 or a negative errno with the message.
 */
static int
parse_sa_head(struct pctx *p, struct gw_conf *conf, struct sa_rule *r)
{
	struct gw_sa_conf *sa;
	unsigned int ti = 1;
	uint64_t v;

	/* SAs up; deleted slots are reused (the control socket) */
	if (conf->nb_live_sa >= limit_of(conf->max_sa) || conf->nb_sa >= GW_LIMIT_RULES)
		return perr(p, 0, "too many SAs (at most %u%s)", limit_of(conf->max_sa),
			    conf->max_sa != 0 ? ": --max-sa" : "");
	if (grow((void **)&conf->sa, &conf->cap_sa, conf->nb_sa + 1, sizeof(*sa), true) != 0)
		return perr(p, 0, "out of memory");
	sa = &conf->sa[conf->nb_sa];
	r->sa = sa;
	memset(sa, 0, sizeof(*sa));
	sa->line = p->line;
	sa->window = -1;
	sa->inner = -1;
	if (ti >= p->n)
		return perr(p, 0, "expects 'in' or 'out'");
	if (strcmp(p->t[ti].s, "in") == 0)
		sa->dir = GW_DIR_IN;
	else if (strcmp(p->t[ti].s, "out") == 0)
		sa->dir = GW_DIR_OUT;
	else
		return perr(p, ti, "expects 'in' or 'out'");
	NEXT(p, ti, "an SPI");
	if (gw_parse_u64(p->t[ti].s, UINT32_MAX, &v) < 0)
		return perr(p, ti, "SPI must be an unsigned 32-bit number");
	if (v == 0)
		return perr(p, ti, "SPI 0 is reserved (RFC 4303 2.1: never sent on the wire)");
	sa->spi = (uint32_t)v;
	if (gw_conf_find_sa(conf, sa->dir, sa->spi) != NULL)
		return perr(p, ti, "SA %s %u defined twice", sa->dir == GW_DIR_IN ? "in" : "out",
			sa->spi);
	return 0;
}

/* cipher_algo, cipher_key, auth_algo, auth_key, aead_algo, aead_key at *tip */
static int
parse_sa_crypto(struct pctx *p, struct sa_rule *r, unsigned int *tip)
{
	struct gw_sa_conf *sa = r->sa;
	unsigned int ti = *tip;
	const char *k = p->t[ti].s;
	int rc = 0;

	if (strcmp(k, "cipher_algo") == 0) {
		if (r->ci >= 0)
			return perr(p, ti, "given twice");
		NEXT(p, ti, "a cipher algorithm");
		r->ci = FIND_ALGO(cipher_algos, p->t[ti].s);
		if (r->ci < 0)
			return perr(p, ti, "unknown cipher algorithm");
	} else if (strcmp(k, "cipher_key") == 0) {
		ONCE(p, ti, r->ckey_p);
		if (r->ci < 0)
			return perr(p, ti, "must follow cipher_algo");
		NEXT(p, ti, "key bytes");
		rc = parse_sa_key(p, ti, cipher_algos[r->ci].kw, cipher_algos[r->ci].key_len,
				  cipher_algos[r->ci].salt, "", sa->cipher_key,
				  &sa->cipher_key_len, &sa->salt);
	} else if (strcmp(k, "auth_algo") == 0) {
		if (r->ai >= 0)
			return perr(p, ti, "given twice");
		NEXT(p, ti, "an authentication algorithm");
		r->ai = FIND_ALGO(auth_algos, p->t[ti].s);
		if (r->ai < 0)
			return perr(p, ti, "unknown authentication algorithm");
		r->ai_ti = ti;
	} else if (strcmp(k, "auth_key") == 0) {
		ONCE(p, ti, r->akey_p);
		if (r->ai < 0)
			return perr(p, ti, "must follow auth_algo");
		NEXT(p, ti, "key bytes");
		rc = parse_sa_key(p, ti, auth_algos[r->ai].kw, auth_algos[r->ai].key_len,
				  auth_algos[r->ai].salt, "", sa->auth_key, &sa->auth_key_len,
				  &sa->salt);
	} else if (strcmp(k, "aead_algo") == 0) {
		if (r->ei >= 0)
			return perr(p, ti, "given twice");
		NEXT(p, ti, "an AEAD algorithm");
		r->ei = FIND_ALGO(aead_algos, p->t[ti].s);
		if (r->ei < 0)
			return perr(p, ti, "unknown AEAD algorithm");
	} else if (strcmp(k, "aead_key") == 0) {
		ONCE(p, ti, r->ekey_p);
		if (r->ei < 0)
			return perr(p, ti, "must follow aead_algo");
		NEXT(p, ti, "key bytes");
		rc = parse_sa_key(p, ti, aead_algos[r->ei].kw, aead_algos[r->ei].key_len, true,
				  " (key + 4-byte salt)", sa->cipher_key,
				  &sa->cipher_key_len, &sa->salt);
	} else {
		return SA_NOT_MINE;
	}
	*tip = ti;
	return rc;
}

/* mode, src, dst and type at *tip: where the SA's packets go, and how */
static int
parse_sa_path(struct pctx *p, struct sa_rule *r, unsigned int *tip)
{
	struct gw_sa_conf *sa = r->sa;
	unsigned int ti = *tip;
	const char *k = p->t[ti].s;

	if (strcmp(k, "mode") == 0) {
		ONCE(p, ti, r->mode_p);
		NEXT(p, ti, "ipv4-tunnel, ipv6-tunnel or transport");
		if (strcmp(p->t[ti].s, "ipv4-tunnel") == 0)
			sa->mode = GW_MODE_TUN4;
		else if (strcmp(p->t[ti].s, "ipv6-tunnel") == 0)
			sa->mode = GW_MODE_TUN6;
		else if (strcmp(p->t[ti].s, "transport") == 0)
			sa->mode = GW_MODE_TRANS;
		else
			return perr(p, ti,
				    "mode must be ipv4-tunnel, ipv6-tunnel or transport");
	} else if (strcmp(k, "src") == 0 || strcmp(k, "dst") == 0) {
		bool is_src = k[0] == 's';

		if (is_src) {
			ONCE(p, ti, r->src_p);
		} else {
			ONCE(p, ti, r->dst_p);
		}
		if (!r->mode_p)
			return perr(p, ti, "must follow 'mode'");
		if (sa->mode == GW_MODE_TRANS)
			return perr(p, ti, "not allowed in transport mode");
		NEXT(p, ti, "an address");
		if (parse_addr(p->t[ti].s, sa->mode == GW_MODE_TUN6,
				is_src ? &sa->src : &sa->dst, NULL) < 0)
			return perr(p, ti, "not an %s address",
				sa->mode == GW_MODE_TUN6 ? "IPv6" : "IPv4");
		if (is_src)
			r->src_ti = ti;
		else
			r->dst_ti = ti;
	} else if (strcmp(k, "type") == 0) {
		ONCE(p, ti, r->type_p);
		NEXT(p, ti, "an action type");
		if (strcmp(p->t[ti].s, "no-offload") == 0 ||
				strcmp(p->t[ti].s, "lookaside-none") == 0)
			sa->action = GW_SA_LOOKASIDE_NONE;
		else if (strcmp(p->t[ti].s, "cpu-crypto") == 0)
			sa->action = GW_SA_CPU_CRYPTO;
		else if (strcmp(p->t[ti].s, "lookaside-protocol-offload") == 0)
			sa->action = GW_SA_LOOKASIDE_PROTOCOL;
		else if (strcmp(p->t[ti].s, "native") == 0)
			sa->action = GW_SA_NATIVE;      /* vecsec: the gateway's own ESP */
		else if (strcmp(p->t[ti].s, "inline-protocol-offload") == 0 ||
				strcmp(p->t[ti].s, "inline-crypto-offload") == 0)
			return perr(p, ti, "not supported by vecsec-gw (use no-offload, "
				"cpu-crypto, lookaside-protocol-offload or native)");
		else
			return perr(p, ti, "unknown action type");
	} else {
		return SA_NOT_MINE;
	}
	*tip = ti;
	return 0;
}

/* ipsec-secgw's keywords for inline offload at *tip: noted and skipped, or refused */
static int
parse_sa_inline(struct pctx *p, struct gw_conf *conf, unsigned int *tip)
{
	unsigned int ti = *tip;
	const char *k = p->t[ti].s;
	uint64_t v;

	if (strcmp(k, "port_id") == 0 || strcmp(k, "mss") == 0) {
		ignored(p, conf, k[0] == 'p' ? GW_IGN_PORT_ID : GW_IGN_MSS, ti);
		NEXT(p, ti, "a number");
		if (gw_parse_u64(p->t[ti].s, UINT16_MAX, &v) < 0)
			return perr(p, ti, "expects an unsigned 16-bit number");
	} else if (strcmp(k, "fallback") == 0) {
		/* ipsec-secgw: inline-crypto-offload SAs only, which are refused here */
		return perr(p, ti, "a fallback session is for inline-crypto-offload SAs "
			    "only (ipsec-secgw refuses it on other types; vecsec-gw has no "
			    "inline types)");
	} else if (strcmp(k, "flow-direction") == 0) {
		ignored(p, conf, GW_IGN_FLOW_DIR, ti);
		NEXT(p, ti, "a port id");
		if (gw_parse_u64(p->t[ti].s, UINT16_MAX, &v) < 0)
			return perr(p, ti, "expects a port id");
		NEXT(p, ti, "a queue id");
		if (gw_parse_u64(p->t[ti].s, UINT16_MAX, &v) < 0)
			return perr(p, ti, "expects a queue id");
	} else if (strcmp(k, "reassembly_en") == 0) {
		ignored(p, conf, GW_IGN_REASSEMBLY, ti);
	} else {
		return SA_NOT_MINE;
	}
	*tip = ti;
	return 0;
}

/* udp-encap, udp-ports, owner, telemetry, inner at *tip: vecsec's own */
static int
parse_sa_extra(struct pctx *p, struct sa_rule *r, unsigned int *tip)
{
	struct gw_sa_conf *sa = r->sa;
	unsigned int ti = *tip;
	const char *k = p->t[ti].s;
	int rc;

	if (strcmp(k, "udp-encap") == 0) {
		sa->udp_encap = true;
	} else if (strcmp(k, "udp-ports") == 0) {
		/* vecsec: NAT-T with the ports the IKE daemon uses (source:destination) */
		uint64_t lo, hi;

		NEXT(p, ti, "SPORT:DPORT");
		if (parse_range_any(p->t[ti].s, UINT16_MAX, &lo, &hi) < 0 || lo == 0 || hi == 0)
			return perr(p, ti, "expects SPORT:DPORT, each 1..65535");
		sa->udp_encap = true;
		sa->natt_sport = (uint16_t)lo;
		sa->natt_dport = (uint16_t)hi;
	} else if (strcmp(k, "owner") == 0) {
		NEXT(p, ti, "an owner name");
		rc = parse_owner(p, ti, &sa->owner);
		if (rc != 0)
			return rc;
	} else if (strcmp(k, "telemetry") == 0) {
		/* DPDK's /ipsec/sa/... telemetry lists it (sa.c) */
		sa->telemetry = true;
	} else if (strcmp(k, "inner") == 0) {
		/* vecsec: the family an SA carries, when no SP rule says it yet */
		NEXT(p, ti, "ipv4 or ipv6");
		if (strcmp(p->t[ti].s, "ipv4") == 0)
			sa->inner = 0;
		else if (strcmp(p->t[ti].s, "ipv6") == 0)
			sa->inner = 1;
		else
			return perr(p, ti, "expects ipv4 or ipv6");
	} else {
		return SA_NOT_MINE;
	}
	*tip = ti;
	return 0;
}

/* esn, seq, lifetime-*, replay_win at *tip: sequence numbers and limits */
static int
parse_sa_seq(struct pctx *p, struct sa_rule *r, unsigned int *tip)
{
	struct gw_sa_conf *sa = r->sa;
	unsigned int ti = *tip;
	const char *k = p->t[ti].s;
	uint64_t v;

	if (strcmp(k, "esn") == 0 || strcmp(k, "seq") == 0) {
		/* vecsec: `seq N` is `esn N` without ESN (a 32-bit number) */
		bool is_esn = k[0] == 'e';

		ONCE(p, ti, r->esn_p);
		NEXT(p, ti, is_esn ? "the initial ESN value" :
		     "the initial sequence number");
		if (gw_parse_u64(p->t[ti].s, is_esn ? UINT64_MAX : UINT32_MAX, &v) < 0)
			return perr(p, ti, is_esn ? "expects an unsigned 64-bit number" :
				    "expects an unsigned 32-bit number (more needs esn)");
		sa->esn = is_esn;
		sa->esn_init = v;
		r->seq_ti = ti;
	} else if (strncmp(k, "lifetime-", 9) == 0) {
		/* vecsec: lifetime-{soft,hard}-{bytes,packets} N (RFC 4301 4.4.2.1) */
		static const char *const lk[4] = { "lifetime-soft-bytes",
			"lifetime-hard-bytes", "lifetime-soft-packets", "lifetime-hard-packets" };
		unsigned int li;

		for (li = 0; li < 4 && strcmp(k, lk[li]) != 0; li++)
			;
		if (li == 4)
			return perr(p, ti, "unknown SA option");
		NEXT(p, ti, "a limit");
		if (gw_parse_u64(p->t[ti].s, UINT64_MAX, &v) < 0 || v == 0)
			return perr(p, ti, "expects a number from 1");
		sa->life[li] = v;
	} else if (strcmp(k, "replay_win") == 0) {
		NEXT(p, ti, "a window size");
		if (gw_parse_u64(p->t[ti].s, GW_MAX_WINDOW, &v) < 0)
			return perr(p, ti, "window size must be 0..%u", GW_MAX_WINDOW);
		sa->window = (int32_t)v;
	} else {
		return SA_NOT_MINE;
	}
	*tip = ti;
	return 0;
}

/* The algorithms given, checked together and stored in the SA */
static int
parse_sa_algos(struct pctx *p, const struct sa_rule *r)
{
	struct gw_sa_conf *sa = r->sa;
	int ci = r->ci, ai = r->ai, ei = r->ei;

	if (ei >= 0) {
		if (ci >= 0 || ai >= 0)
			return perr(p, p->n, "SA %u: aead_algo excludes cipher_algo/auth_algo",
				    sa->spi);
		if (!r->ekey_p)
			return perr(p, p->n, "SA %u: aead_algo needs aead_key", sa->spi);
		sa->aead = true;
		sa->aead_algo = aead_algos[ei].algo;
		sa->algo_name = aead_algos[ei].kw;
		sa->integ_name = "aead";        /* the AEAD's own tag */
		sa->iv_len = aead_algos[ei].iv_len;
		sa->digest_len = 16;
		return 0;
	}
	if (ci < 0 || ai < 0)
		return perr(p, p->n, "SA %u needs aead_algo, or cipher_algo and auth_algo",
			sa->spi);
	if (!r->ckey_p && cipher_algos[ci].key_len != 0)
		return perr(p, p->n, "SA %u: cipher_algo %s needs cipher_key", sa->spi,
			cipher_algos[ci].kw);
	if (!r->akey_p && auth_algos[ai].key_len != 0)
		return perr(p, p->n, "SA %u: auth_algo %s needs auth_key", sa->spi,
			auth_algos[ai].kw);
	if (auth_algos[ai].algo == RTE_CRYPTO_AUTH_AES_GMAC &&
			cipher_algos[ci].algo != RTE_CRYPTO_CIPHER_NULL)
		return perr(p, p->n, "SA %u: aes-gmac needs cipher_algo null", sa->spi);
	if (cipher_algos[ci].algo == (enum rte_crypto_cipher_algorithm)GW_CIPHER_ARIA_CTR &&
			auth_algos[ai].algo != RTE_CRYPTO_AUTH_NULL)
		return perr(p, r->ai_ti, "%s needs auth_algo null (only crypto_vecsec has "
			"ARIA, and it chains no auth to a cipher; use aria-*-gcm for "
			"integrity)", cipher_algos[ci].kw);
	sa->cipher_algo = cipher_algos[ci].algo;
	sa->auth_algo = auth_algos[ai].algo;
	sa->algo_name = cipher_algos[ci].kw;
	sa->integ_name = auth_algos[ai].kw;
	sa->iv_len = cipher_algos[ci].iv_len ? cipher_algos[ci].iv_len
		: auth_algos[ai].iv_len;
	sa->digest_len = auth_algos[ai].digest_len;
	return 0;
}

/* The whole rule checked once every keyword is read; then the SA is indexed */
static int
parse_sa_finish(struct pctx *p, struct gw_conf *conf, const struct sa_rule *r)
{
	struct gw_sa_conf *sa = r->sa;
	int rc;

	if (!r->mode_p)
		return perr(p, p->n, "SA %u has no 'mode'", sa->spi);
	/*
	 * Outbound, the first number sent: without ESN the last one is 2^32 - 2
	 * (rte_ipsec 22.11 never sends 2^32 - 1), so N must leave one.
	 */
	if (r->seq_ti > 0 && sa->dir == GW_DIR_OUT && !sa->esn && sa->esn_init > UINT32_MAX - 1)
		return perr(p, r->seq_ti, "leaves no sequence number to send (at most %u without "
			    "ESN)", UINT32_MAX - 1);
	if ((sa->life[GW_LIFE_HARD_BYTES] != 0 &&
	     sa->life[GW_LIFE_SOFT_BYTES] >= sa->life[GW_LIFE_HARD_BYTES]) ||
	    (sa->life[GW_LIFE_HARD_PKTS] != 0 &&
	     sa->life[GW_LIFE_SOFT_PKTS] >= sa->life[GW_LIFE_HARD_PKTS]))
		return perr(p, p->n, "SA %u: a soft lifetime must be below the hard one", sa->spi);
	rc = parse_sa_algos(p, r);
	if (rc != 0)
		return rc;
	sa->aad_len = sa->aead || sa->auth_algo == RTE_CRYPTO_AUTH_AES_GMAC ? 8 : 0;
	if (sa->esn && sa->aad_len != 0)
		sa->aad_len += 4;
	if (sa->mode != GW_MODE_TRANS && (!r->src_p || !r->dst_p))
		return perr(p, r->src_p ? r->src_ti : r->dst_p ? r->dst_ti : p->n,
			"tunnel SA %u needs both src and dst", sa->spi);
	if (idx_insert(conf, conf->nb_sa) != 0)
		return perr(p, 0, "out of memory");
	conf->nb_sa++;
	return 0;
}

/*
 * An `sa` rule: its head (direction, SPI), then each keyword by the helper
 * of its group, then the checks of the whole rule.
 */
static int
parse_sa(struct pctx *p, struct gw_conf *conf)
{
	struct sa_rule r = { .ci = -1, .ai = -1, .ei = -1 };
	int rc = parse_sa_head(p, conf, &r);

	if (rc != 0)
		return rc;
	for (unsigned int ti = 3; ti < p->n; ti++) {
		rc = parse_sa_crypto(p, &r, &ti);
		if (rc == SA_NOT_MINE)
			rc = parse_sa_path(p, &r, &ti);
		if (rc == SA_NOT_MINE)
			rc = parse_sa_inline(p, conf, &ti);
		if (rc == SA_NOT_MINE)
			rc = parse_sa_extra(p, &r, &ti);
		if (rc == SA_NOT_MINE)
			rc = parse_sa_seq(p, &r, &ti);
		if (rc == SA_NOT_MINE)
			return perr(p, ti, "unknown SA option");
		if (rc != 0)
			return rc;
	}
	return parse_sa_finish(p, conf, &r);
}

/* ---- sp ---------------------------------------------------------------- */

static int
parse_sp(struct pctx *p, struct gw_conf *conf)
{
	struct gw_sp_conf *sp;
	uint64_t v, lo, hi;
	bool act_p = false, pri_p = false, src_p = false, dst_p = false;
	bool proto_p = false, sport_p = false, dport_p = false;
	unsigned int ti = 1;

	if (conf->nb_sp >= limit_of(conf->max_sp))
		return perr(p, 0, "too many SP rules (at most %u%s)", limit_of(conf->max_sp),
			    conf->max_sp != 0 ? ": --max-sp" : "");
	if (grow((void **)&conf->sp, &conf->cap_sp, conf->nb_sp + 1, sizeof(*sp), false) != 0)
		return perr(p, 0, "out of memory");
	sp = &conf->sp[conf->nb_sp];
	memset(sp, 0, sizeof(*sp));
	sp->line = p->line;
	sp->proto_hi = UINT8_MAX;
	sp->sport_hi = UINT16_MAX;
	sp->dport_hi = UINT16_MAX;

	if (ti >= p->n)
		return perr(p, 0, "expects 'ipv4' or 'ipv6'");
	if (strcmp(p->t[ti].s, "ipv4") == 0)
		sp->v6 = 0;
	else if (strcmp(p->t[ti].s, "ipv6") == 0)
		sp->v6 = 1;
	else
		return perr(p, ti, "expects 'ipv4' or 'ipv6'");
	NEXT(p, ti, "'in' or 'out'");
	if (strcmp(p->t[ti].s, "in") == 0)
		sp->dir = GW_DIR_IN;
	else if (strcmp(p->t[ti].s, "out") == 0)
		sp->dir = GW_DIR_OUT;
	else
		return perr(p, ti, "expects 'in' or 'out'");
	NEXT(p, ti, "'esp'");
	if (strcmp(p->t[ti].s, "esp") != 0)
		return perr(p, ti, "expects 'esp'");

	for (ti++; ti < p->n; ti++) {
		const char *k = p->t[ti].s;

		if (strcmp(k, "protect") == 0) {
			ONCE(p, ti, act_p);
			NEXT(p, ti, "an SA id (SPI)");
			if (gw_parse_u64(p->t[ti].s, UINT32_MAX, &v) < 0)
				return perr(p, ti, "SA id must be an unsigned 32-bit number");
			sp->action = GW_SP_PROTECT;
			sp->spi = (uint32_t)v;
		} else if (strcmp(k, "bypass") == 0) {
			ONCE(p, ti, act_p);
			sp->action = GW_SP_BYPASS;
		} else if (strcmp(k, "discard") == 0) {
			ONCE(p, ti, act_p);
			sp->action = GW_SP_DISCARD;
		} else if (strcmp(k, "pri") == 0) {
			ONCE(p, ti, pri_p);
			NEXT(p, ti, "a priority");
			if (gw_parse_u64(p->t[ti].s, INT32_MAX, &v) < 0)
				return perr(p, ti, "priority must be 0..%d", INT32_MAX);
			sp->pri = (int32_t)v;
		} else if (strcmp(k, "src") == 0 || strcmp(k, "dst") == 0) {
			bool is_src = k[0] == 's';

			if (is_src) {
				ONCE(p, ti, src_p);
			} else {
				ONCE(p, ti, dst_p);
			}
			NEXT(p, ti, "an address/prefix");
			if (parse_addr(p->t[ti].s, sp->v6, is_src ? &sp->src : &sp->dst,
					is_src ? &sp->src_len : &sp->dst_len) < 0)
				return perr(p, ti, "not an %s address/prefix",
					    sp->v6 ? "IPv6" : "IPv4");
		} else if (strcmp(k, "owner") == 0) {
			int rc;

			NEXT(p, ti, "an owner name");
			rc = parse_owner(p, ti, &sp->owner);
			if (rc != 0)
				return rc;
		} else if (strcmp(k, "proto") == 0) {
			ONCE(p, ti, proto_p);
			NEXT(p, ti, "a range X:Y");
			if (parse_range(p->t[ti].s, UINT8_MAX, &lo, &hi) < 0)
				return perr(p, ti, "expects a range X:Y with X <= Y <= 255");
			sp->proto_lo = (uint8_t)lo;
			sp->proto_hi = (uint8_t)hi;
		} else if (strcmp(k, "sport") == 0 || strcmp(k, "dport") == 0) {
			bool is_s = k[0] == 's';

			if (is_s) {
				ONCE(p, ti, sport_p);
			} else {
				ONCE(p, ti, dport_p);
			}
			NEXT(p, ti, "a range X:Y");
			if (parse_range(p->t[ti].s, UINT16_MAX, &lo, &hi) < 0)
				return perr(p, ti, "expects a range X:Y with X <= Y <= 65535");
			if (is_s) {
				sp->sport_lo = (uint16_t)lo;
				sp->sport_hi = (uint16_t)hi;
			} else {
				sp->dport_lo = (uint16_t)lo;
				sp->dport_hi = (uint16_t)hi;
			}
		} else {
			return perr(p, ti, "unknown SP option");
		}
	}
	if (!act_p)
		return perr(p, p->n, "SP rule needs protect <spi>, bypass or discard");
	conf->nb_sp++;
	return 0;
}

/* ---- rt, neigh ----------------------------------------------------------- */

static int
parse_rt(struct pctx *p, struct gw_conf *conf)
{
	struct gw_rt_conf *rt;
	struct gw_addr ignored;
	uint8_t ignored_len;
	uint64_t v;
	bool src_p = false, dst_p = false, port_p = false;
	unsigned int ti = 1;

	if (conf->nb_rt >= limit_of(conf->max_rt))
		return perr(p, 0, "too many routes (at most %u%s)", limit_of(conf->max_rt),
			    conf->max_rt != 0 ? ": --max-rt" : "");
	if (grow((void **)&conf->rt, &conf->cap_rt, conf->nb_rt + 1, sizeof(*rt), false) != 0)
		return perr(p, 0, "out of memory");
	rt = &conf->rt[conf->nb_rt];
	memset(rt, 0, sizeof(*rt));
	rt->line = p->line;
	if (ti >= p->n)
		return perr(p, 0, "expects 'ipv4' or 'ipv6'");
	if (strcmp(p->t[ti].s, "ipv4") == 0)
		rt->v6 = 0;
	else if (strcmp(p->t[ti].s, "ipv6") == 0)
		rt->v6 = 1;
	else
		return perr(p, ti, "expects 'ipv4' or 'ipv6'");
	for (ti++; ti < p->n; ti++) {
		const char *k = p->t[ti].s;

		if (strcmp(k, "src") == 0) {
			/* accepted like ipsec-secgw, which routes on dst only */
			ONCE(p, ti, src_p);
			NEXT(p, ti, "an address/prefix");
			if (parse_addr(p->t[ti].s, rt->v6, &ignored, &ignored_len) < 0)
				return perr(p, ti, "not an %s address/prefix",
					    rt->v6 ? "IPv6" : "IPv4");
		} else if (strcmp(k, "dst") == 0) {
			ONCE(p, ti, dst_p);
			NEXT(p, ti, "an address/prefix");
			if (parse_addr(p->t[ti].s, rt->v6, &rt->dst, &rt->dst_len) < 0)
				return perr(p, ti, "not an %s address/prefix",
					    rt->v6 ? "IPv6" : "IPv4");
		} else if (strcmp(k, "port") == 0) {
			ONCE(p, ti, port_p);
			NEXT(p, ti, "a port id");
			if (gw_parse_u64(p->t[ti].s, GW_MAX_PORTS - 1, &v) < 0)
				return perr(p, ti, "port must be 0..%d", GW_MAX_PORTS - 1);
			rt->port = (uint16_t)v;
		} else {
			return perr(p, ti, "unknown route option");
		}
	}
	conf->nb_rt++;
	return 0;
}

static int
parse_neigh(struct pctx *p, struct gw_conf *conf)
{
	struct gw_neigh_conf *nb;
	uint64_t v;

	if (conf->nb_neigh == GW_MAX_NEIGH)
		return perr(p, 0, "too many neigh rules (at most %d)", GW_MAX_NEIGH);
	nb = &conf->neigh[conf->nb_neigh];
	memset(nb, 0, sizeof(*nb));
	nb->line = p->line;
	if (p->n < 2 || strcmp(p->t[1].s, "port") != 0)
		return perr(p, p->n < 2 ? 0 : 1, "expects neigh port ID MAC");
	if (p->n < 3 || gw_parse_u64(p->t[2].s, GW_MAX_PORTS - 1, &v) < 0)
		return perr(p, p->n < 3 ? 1 : 2, "port must be 0..%d", GW_MAX_PORTS - 1);
	nb->port = (uint16_t)v;
	if (p->n < 4)
		return perr(p, 2, "expects a MAC address after it");
	if (strlen(p->t[3].s) != 17 || parse_hex_bytes(p->t[3].s, nb->mac, 6) != 6)
		return perr(p, 3, "not a MAC address XX:XX:XX:XX:XX:XX");
	if (p->n > 4)
		return perr(p, 4, "unexpected token");
	for (unsigned int i = 0; i < conf->nb_neigh; i++)
		if (conf->neigh[i].port == nb->port)
			return perr(p, 2, "neighbour of port %u given twice", nb->port);
	conf->nb_neigh++;
	return 0;
}

/* ---- lines ---------------------------------------------------------------- */

static int
parse_rule(struct pctx *p, struct gw_conf *conf)
{
	const char *k = p->t[0].s;

	if (strcmp(k, "sa") == 0) {
		int rc = parse_sa(p, conf);

		if (rc != 0 && conf->nb_sa < conf->cap_sa)      /* may hold key bytes */
			explicit_bzero(&conf->sa[conf->nb_sa], sizeof(conf->sa[0]));
		return rc;
	}
	if (strcmp(k, "sp") == 0)
		return parse_sp(p, conf);
	if (strcmp(k, "rt") == 0)
		return parse_rt(p, conf);
	if (strcmp(k, "neigh") == 0)
		return parse_neigh(p, conf);
	if (strcmp(k, "flow") == 0) {
		conf->nb_ignored++;
		ignored(p, conf, GW_IGN_FLOW, 0);
		return 0;
	}
	return perr(p, 0, "unknown rule (expects sa, sp, rt, neigh or flow)");
}

/*
 * Every protect rule must name an SA of its direction (ipsec-secgw too):
 * the rules from `first` on, those of this text (the earlier ones were
 * checked when they came; with thousands of rules, checking all of them at
 * each control request was quadratic).
 */
static int
check_refs(const char *name, const struct gw_conf *conf, unsigned int first, char *err,
	   size_t err_len)
{
	for (unsigned int i = first; i < conf->nb_sp; i++) {
		const struct gw_sp_conf *sp = &conf->sp[i];

		if (sp->action == GW_SP_PROTECT &&
		    gw_conf_find_sa(conf, sp->dir, sp->spi) == NULL) {
			snprintf(err, err_len, "%s:%d: token '%u': no SA %s %u for this SP rule",
				 name, sp->line, sp->spi, sp->dir == GW_DIR_IN ? "in" : "out",
				 sp->spi);
			return -EINVAL;
		}
	}
	return 0;
}

/* Forget what a failed parse appended: conf is as it was before. */
static void
rollback(struct gw_conf *conf, const struct gw_conf *before)
{
	for (unsigned int i = conf->nb_sa; i-- > before->nb_sa;) {
		idx_remove(conf, conf->sa[i].dir, conf->sa[i].spi);
		explicit_bzero(&conf->sa[i], sizeof(conf->sa[i]));
	}
	conf->nb_sa = before->nb_sa;
	conf->nb_sp = before->nb_sp;
	conf->nb_rt = before->nb_rt;
	conf->nb_neigh = before->nb_neigh;
	conf->nb_ignored = before->nb_ignored;
}

/*
 * The buffer of one logical line (continuations joined) and the source
 * line of each of its bytes; it grows with the longest line, and is wiped
 * before it moves or is freed (it held key bytes).
 */
struct linebuf {
	char *buf;
	int *lineof;
	size_t cap;
};

static int
linebuf_room(struct linebuf *lb, size_t need)
{
	size_t ncap = lb->cap != 0 ? lb->cap : 4096;
	char *nb;
	int *nl;

	if (need <= lb->cap)
		return 0;
	while (ncap < need)
		ncap *= 2;
	nb = malloc(ncap);
	nl = malloc(ncap * sizeof(int));
	if (nb == NULL || nl == NULL) {
		free(nb);
		free(nl);
		return -ENOMEM;
	}
	if (lb->buf != NULL) {
		memcpy(nb, lb->buf, lb->cap);
		memcpy(nl, lb->lineof, lb->cap * sizeof(int));
		explicit_bzero(lb->buf, lb->cap);
	}
	free(lb->buf);
	free(lb->lineof);
	lb->buf = nb;
	lb->lineof = nl;
	lb->cap = ncap;
	return 0;
}

int
gw_conf_parse_string(struct gw_conf *conf, const char *name, const char *text, char *err,
		size_t err_len)
{
	struct pctx p = { .name = name, .err = err, .err_len = err_len };
	struct linebuf lb = { NULL, NULL, 0 };
	struct gw_conf before = *conf;
	const char *s = text;
	int line = 1, rc = 0;

	while (*s != '\0' && rc == 0) {
		/* Build one logical line: join '\'-continued lines, drop comments. */
		size_t len = 0;
		int first = line;
		char *buf;

		for (;;) {
			const char *eol = strchr(s, '\n');
			size_t n = eol ? (size_t)(eol - s) : strlen(s);
			const char *hash = memchr(s, '#', n);
			size_t m = hash ? (size_t)(hash - s) : n;
			bool cont;

			while (m > 0 && (s[m - 1] == ' ' || s[m - 1] == '\t' || s[m - 1] == '\r'))
				m--;
			cont = hash == NULL && m > 0 && s[m - 1] == '\\';
			if (cont)
				m--;
			if (linebuf_room(&lb, len + m + 1) != 0) {
				rc = -ENOMEM;
				break;
			}
			memcpy(lb.buf + len, s, m);
			for (size_t i = 0; i < m; i++)
				lb.lineof[len + i] = line;
			len += m;
			s += n;
			if (*s == '\n')
				s++;
			line++;
			if (!cont || *s == '\0')
				break;
		}
		if (rc != 0) {
			snprintf(err, err_len, "%s: out of memory", name);
			break;
		}
		buf = lb.buf;
		buf[len] = '\0';

		/* Tokens: runs of non-blank characters. */
		p.n = 0;
		p.line = first;
		for (size_t i = 0; i < len && rc == 0;) {
			while (i < len && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\r'))
				i++;
			if (i == len)
				break;
			if (p.n == MAX_TOKENS) {
				snprintf(err, err_len, "%s:%d: more than %d tokens in one rule",
					 name, lb.lineof[i], MAX_TOKENS);
				rc = -EINVAL;
				break;
			}
			p.t[p.n].s = buf + i;
			p.t[p.n].line = lb.lineof[i];
			p.n++;
			while (i < len && buf[i] != ' ' && buf[i] != '\t' && buf[i] != '\r')
				i++;
			buf[i++] = '\0';
		}
		if (rc == 0 && p.n > 0) {
			p.line = p.t[0].line;
			rc = parse_rule(&p, conf);
		}
		/* the line held key bytes */
		explicit_bzero(buf, len + 1);
	}
	free(lb.buf);
	free(lb.lineof);
	if (rc == 0)
		rc = check_refs(name, conf, before.nb_sp, err, err_len);
	if (rc != 0)
		rollback(conf, &before);
	return rc;
}

/*
 * Who may have written the file, and who may read it (as ssh does for its
 * keys): a configuration writable by group or others, or owned by someone
 * other than root or the gateway's user, could have been given any keys and
 * policies, so it is refused (a warning with GW_CONF_ALLOW_UNPROTECTED). A
 * readable one that holds keys gets a warning (gw_conf_parse_file()).
 */
static int
file_trust_check(const char *path, const struct stat *st, unsigned int flags, char *err,
		 size_t err_len)
{
	bool allow = (flags & GW_CONF_ALLOW_UNPROTECTED) != 0;

	if (st->st_uid != 0 && st->st_uid != geteuid())
		snprintf(err, err_len, "%s%s: owned by uid %u, not by root or the gateway's user "
			 "(uid %u): that user can change its keys and policies; chown it%s",
			 allow ? "warning: " : "", path, (unsigned int)st->st_uid,
			 (unsigned int)geteuid(),
			 allow ? "" : ", or give --allow-unprotected-keys");
	else if ((st->st_mode & (S_IWGRP | S_IWOTH)) != 0)
		snprintf(err, err_len, "%s%s: writable by group or others (mode %03o): they can "
			 "change its keys and policies; chmod go-w it%s", allow ? "warning: " : "",
			 path, (unsigned int)(st->st_mode & 0777),
			 allow ? "" : ", or give --allow-unprotected-keys");
	else
		return 0;
	return allow ? 0 : -EPERM;
}

int
gw_conf_parse_file(struct gw_conf *conf, const char *path, unsigned int flags, char *err,
		   size_t err_len)
{
	unsigned int first_sa = conf->nb_sa;
	struct stat st;
	size_t size, done = 0;
	bool keys = false;
	char *text;
	int fd, rc;

	err[0] = '\0';
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		rc = -errno;
		snprintf(err, err_len, "%s: cannot open: %s", path, strerror(errno));
		return rc;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > (1L << 30)) {
		close(fd);
		snprintf(err, err_len, "%s: not a regular file of at most 1 GiB", path);
		return -EINVAL;
	}
	rc = file_trust_check(path, &st, flags, err, err_len);
	if (rc != 0) {
		close(fd);
		return rc;
	}
	size = (size_t)st.st_size;
	text = malloc(size + 1);
	if (text == NULL) {
		close(fd);
		snprintf(err, err_len, "%s: out of memory", path);
		return -ENOMEM;
	}
	while (done < size) {
		ssize_t n = read(fd, text + done, size - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		done += (size_t)n;
	}
	close(fd);
	if (done != size) {
		explicit_bzero(text, done);
		free(text);
		snprintf(err, err_len, "%s: read error", path);
		return -EIO;
	}
	text[size] = '\0';
	if (memchr(text, '\0', size) != NULL) {
		explicit_bzero(text, size);
		free(text);
		snprintf(err, err_len, "%s: contains a NUL byte", path);
		return -EINVAL;
	}
	/*
	 * A file cut short (read while its writer was still at it) may end in a
	 * rule that parses, and means something else, once cut: "sp ipv4 out esp
	 * bypass pri 100" of a longer rule is a catch-all bypass. Every line a
	 * writer finished ends in '\n'; a last line without one is refused whole.
	 * An empty file is whole (no rules).
	 */
	if (size != 0 && text[size - 1] != '\n') {
		int line = 1;

		for (size_t i = 0; i < size; i++)
			line += text[i] == '\n';
		explicit_bzero(text, size);
		free(text);
		snprintf(err, err_len, "%s:%d: the last line does not end with a newline: a file "
			 "still being written? refused whole (replace the file atomically: write "
			 "a new one, then rename it over this one)", path, line);
		return -EINVAL;
	}
	if (err[0] == '\0') {
		rc = gw_conf_parse_string(conf, path, text, err, err_len);
	} else {
		/* keep the trust warning: the parser writes err only on failure */
		char scratch[512];

		rc = gw_conf_parse_string(conf, path, text, scratch, sizeof(scratch));
		if (rc != 0)
			snprintf(err, err_len, "%s", scratch);
	}
	explicit_bzero(text, size);
	free(text);
	if (rc != 0)
		return rc;
	for (unsigned int i = first_sa; i < conf->nb_sa; i++)
		if (conf->sa[i].cipher_key_len != 0 || conf->sa[i].auth_key_len != 0)
			keys = true;
	if (keys && err[0] == '\0' && (st.st_mode & (S_IRGRP | S_IROTH)) != 0)
		snprintf(err, err_len, "warning: %s holds keys and is readable by group or others "
			 "(mode %03o): chmod 600 it", path, (unsigned int)(st.st_mode & 0777));
	return 0;
}

void *
gw_secret_alloc(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	/* best effort: without it (kernels before 3.4) the pages are only wiped */
	(void)madvise(p, len, MADV_DONTDUMP);
	return p;
}

void
gw_secret_free(void *p, size_t len)
{
	if (p == NULL)
		return;
	explicit_bzero(p, len);
	munmap(p, len);
}

void
gw_conf_wipe(struct gw_conf *conf)
{
	if (conf->sa != NULL)
		gw_secret_free(conf->sa, (size_t)conf->cap_sa * sizeof(conf->sa[0]));  /* wipes */
	free(conf->sp);
	free(conf->rt);
	free(conf->sa_idx);
	conf->sa = NULL;
	conf->sp = NULL;
	conf->rt = NULL;
	conf->sa_idx = NULL;
	conf->nb_sa = conf->cap_sa = conf->nb_sp = conf->cap_sp = conf->nb_rt = conf->cap_rt = 0;
	conf->nb_neigh = conf->nb_ignored = conf->nb_live_sa = conf->sa_idx_mask = 0;
}

static void
wipe_sa_keys(struct gw_sa_conf *sa)
{
	explicit_bzero(sa->cipher_key, sizeof(sa->cipher_key));
	explicit_bzero(sa->auth_key, sizeof(sa->auth_key));
	explicit_bzero(&sa->salt, sizeof(sa->salt));
}

void
gw_conf_wipe_keys(struct gw_conf *conf)
{
	for (unsigned int i = 0; i < conf->nb_sa; i++)
		wipe_sa_keys(&conf->sa[i]);
}

const struct gw_sa_conf *
gw_conf_find_sa(const struct gw_conf *conf, uint8_t dir, uint32_t spi)
{
	long pos = idx_pos(conf, dir, spi);

	return pos < 0 ? NULL : &conf->sa[conf->sa_idx[pos] - 1];
}

void
gw_conf_del_sa(struct gw_conf *conf, unsigned int i)
{
	struct gw_sa_conf *sa = &conf->sa[i];

	if (sa->deleted)
		return;
	idx_remove(conf, sa->dir, sa->spi);
	wipe_sa_keys(sa);
	sa->deleted = true;
}

void
gw_conf_move_last_sa(struct gw_conf *conf, unsigned int to)
{
	unsigned int last = conf->nb_sa - 1;
	struct gw_sa_conf *from = &conf->sa[last];

	if (to >= last || !conf->sa[to].deleted || from->deleted)
		return;
	idx_remove(conf, from->dir, from->spi);
	conf->sa[to] = *from;
	explicit_bzero(from, sizeof(*from));
	conf->nb_sa--;
	(void)idx_insert(conf, to);     /* the table has room: one in, one out */
}

int
gw_conf_copy(struct gw_conf *dst, const struct gw_conf *src)
{
	memcpy(dst, src, sizeof(*dst));
	dst->sa = NULL;
	dst->sp = NULL;
	dst->rt = NULL;
	dst->sa_idx = NULL;
	dst->cap_sa = dst->cap_sp = dst->cap_rt = 0;
	if (grow((void **)&dst->sa, &dst->cap_sa, src->nb_sa, sizeof(src->sa[0]), true) != 0 ||
	    grow((void **)&dst->sp, &dst->cap_sp, src->nb_sp, sizeof(src->sp[0]), false) != 0 ||
	    grow((void **)&dst->rt, &dst->cap_rt, src->nb_rt, sizeof(src->rt[0]), false) != 0 ||
	    (src->sa_idx != NULL &&
	     (dst->sa_idx = malloc(((size_t)src->sa_idx_mask + 1) * sizeof(uint32_t))) == NULL)) {
		gw_conf_wipe(dst);
		return -ENOMEM;
	}
	if (src->nb_sa != 0)
		memcpy(dst->sa, src->sa, (size_t)src->nb_sa * sizeof(src->sa[0]));
	if (src->nb_sp != 0)
		memcpy(dst->sp, src->sp, (size_t)src->nb_sp * sizeof(src->sp[0]));
	if (src->nb_rt != 0)
		memcpy(dst->rt, src->rt, (size_t)src->nb_rt * sizeof(src->rt[0]));
	if (src->sa_idx != NULL)
		memcpy(dst->sa_idx, src->sa_idx, ((size_t)src->sa_idx_mask + 1) * sizeof(uint32_t));
	return 0;
}

int
gw_conf_put_sa(struct gw_conf *conf, unsigned int slot, const struct gw_sa_conf *c)
{
	int rc;

	if (slot > conf->nb_sa || (slot < conf->nb_sa && !conf->sa[slot].deleted))
		return -EEXIST;
	if (slot == conf->nb_sa) {
		rc = grow((void **)&conf->sa, &conf->cap_sa, conf->nb_sa + 1, sizeof(conf->sa[0]),
			  true);
		if (rc != 0)
			return rc;
		memset(&conf->sa[slot], 0, sizeof(conf->sa[slot]));
		conf->sa[slot].deleted = true;
		conf->nb_sa++;
	}
	conf->sa[slot] = *c;
	conf->sa[slot].deleted = false;
	rc = idx_insert(conf, slot);
	if (rc != 0) {
		wipe_sa_keys(&conf->sa[slot]);
		conf->sa[slot].deleted = true;
	}
	return rc;
}

int
gw_conf_reserve_sp(struct gw_conf *conf, unsigned int nb_sp)
{
	return grow((void **)&conf->sp, &conf->cap_sp, nb_sp, sizeof(conf->sp[0]), false);
}
