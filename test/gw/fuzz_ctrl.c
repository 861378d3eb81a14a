/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target for vecsec-gw's control protocol: the input bytes are
 * what one client sends before it ends the connection. They go through
 * ctrl.c's framing and ctrl_cmd.c's request table (gw_ctrl_feed(), in
 * pieces of 1, 7, 64, 1000 and 4096 bytes in turn, as reads would bring
 * them) into the command handlers, the change engine (cp.c) and parser.c,
 * with a live configuration that persists across the requests of the
 * input: `sa`, `sp`, `del`, `replace sp`, `list`, and protocol 1.2's `spi
 * alloc`, `query sa`, `flush owner`... all run (ctrl_ike.c is built in),
 * and 1.8's `segments` and `segment +N/-N` on a cluster of 4 segments
 * (ha.c; every input starts with segment 1 active).
 * The data plane is stubbed below (no EAL, no cryptodev: an SA is "up"
 * once gw_sa_add() is called), so the sanitizers see every line of
 * ctrl.c, ctrl_cmd.c, cp.c and parser.c that runs.
 *
 * Checked on every input, besides crashes, leaks and UB:
 *   - framing: each '\n'-ended piece of the input (a request) gets exactly
 *     one OK or ERR line, and so does a last piece without '\n' (refused),
 *     up to and including a `subscribe` that succeeds;
 *   - answers are printable ASCII lines;
 *   - an ERR line quotes a request token only as gw_token_quote() allows:
 *     every quoted string is "<hidden>", "<hidden key>", or one that
 *     gw_token_quote() shows as it is.
 *
 * Built with clang-14 -fsanitize=fuzzer,address,undefined by
 * test/gw/fuzz-ctrl.sh, which also runs it.
 */
#include "gw_dp.h"
#include "gw_pkt.h"
#include "ctrl_ike.h"
#include "ha.h"
#include "hasync.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* ---- the data plane, stubbed ------------------------------------------- */

struct gw_dp gw;
volatile bool gw_quit;

int
gw_sa_add(struct gw_dp *dp, const struct gw_conf *conf, unsigned int i, int fam, char *err,
	  size_t err_len)
{
	const struct gw_sa_conf *c = &conf->sa[i];
	struct gw_sa *s = &dp->sa[i];

	(void)fam;
	if (i >= dp->max_sa) {
		snprintf(err, err_len, "the SA table is full (%u SAs: --max-sa)", dp->max_sa);
		return -ENOSPC;
	}
	if (c->cipher_key_len > GW_MAX_KEY || c->auth_key_len > GW_MAX_KEY || c->deleted ||
	    gw_conf_find_sa(conf, c->dir, c->spi) != c)
		abort();
	memset(s, 0, sizeof(*s));
	s->idx = i;
	s->spi = c->spi;
	s->dir = c->dir;
	s->mode = c->mode;
	s->inner_v6 = c->inner >= 0 ? (uint8_t)c->inner : c->mode == GW_MODE_TUN6;
	dp->sa_cold[i].algo_name = c->algo_name;
	s->has_life = c->life[0] || c->life[1] || c->life[2] || c->life[3];
	memcpy(s->life, c->life, sizeof(s->life));
	if (i >= dp->nb_sa)
		dp->nb_sa = i + 1;
	s->active = true;
	return 0;
}

int
gw_sa_sad_del(struct gw_dp *dp, struct gw_sa *s)
{
	(void)dp;
	(void)s;
	return 0;
}

void
gw_sa_free(struct gw_dp *dp, struct gw_sa *s)
{
	(void)dp;
	s->active = false;
}

void
gw_sa_mem(const struct gw_dp *dp, struct gw_mem *m)
{
	memset(m, 0, sizeof(*m));
	m->max_sa = dp->max_sa;
}

int
gw_sp_update(const struct gw_dp *dp, const struct gw_conf *conf, struct gw_spd *const prev[2][2],
	     unsigned int mask, struct gw_spd *out[2][2])
{
	(void)prev;
	if (conf->nb_sp > GW_LIMIT_RULES || mask == 0 || mask > GW_SPD_ALL)
		abort();
	/* every protect rule names an SA that is up (the SA index agrees) */
	for (unsigned int i = 0; i < conf->nb_sp; i++) {
		const struct gw_sp_conf *sp = &conf->sp[i];
		const struct gw_sa_conf *c = sp->action == GW_SP_PROTECT ?
			gw_conf_find_sa(conf, sp->dir, sp->spi) : NULL;

		if (sp->action == GW_SP_PROTECT && (c == NULL || !dp->sa[c - conf->sa].active))
			abort();
	}
	for (int v6 = 0; v6 < 2; v6++)
		for (int dir = 0; dir < 2; dir++)
			out[v6][dir] = NULL;
	return 0;
}

unsigned int
gw_sp_fragmented(struct gw_spd *const t[2][2])
{
	(void)t;
	return 0;
}

void
gw_sp_free(struct gw_spd *t[2][2])
{
	(void)t;
}

/* protocol 1.2 (ctrl_ike.c): the host path and counters, stubbed */
bool gw_host_on;
uint16_t gw_natt_ports[GW_NATT_MAX_PORTS];
uint16_t gw_host_bypass_ports[GW_HOST_MAX_BYPASS];

void
gw_stats_sa_sum(const struct gw_dp *dp, unsigned int sa, struct gw_sa_stats *out)
{
	(void)dp;
	(void)sa;
	memset(out, 0, sizeof(*out));
}

/* the workers' flow caches (fcache.c): none here */
size_t
gw_fc_mem(const struct gw_fc *c)
{
	(void)c;
	return 0;
}

void
gw_fc_counts(const struct gw_fc *c, uint64_t *hit, uint64_t *miss)
{
	(void)c;
	*hit = *miss = 0;
}

size_t
gw_stats_mem(void)
{
	return 0;
}

void
gw_host_list(FILE *out)
{
	fprintf(out, "host bypass udp\nhost natt udp\n");
}

uint64_t
rte_rand(void)
{
	static uint64_t x = 0x9e3779b97f4a7c15ull;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return x;
}

uint64_t
rte_rand_max(uint64_t upper_bound)
{
	return upper_bound != 0 ? rte_rand() % upper_bound : 0;
}

void
gw_stats_print(const struct gw_dp *dp, double seconds, FILE *f)
{
	fprintf(f, "vecsec-gw stats after %.3f s: %u SA slots\n", seconds, dp->nb_sa);
}

/* counters, reload, telemetry, the log: nothing to do without a data plane */
int gw_logtype;

int
rte_log(uint32_t level, uint32_t logtype, const char *format, ...)
{
	(void)level;
	(void)logtype;
	(void)format;
	return 0;
}

void
gw_cp_lock(void)
{
}

void
gw_cp_unlock(void)
{
}

double
gw_stats_since(void)
{
	return 1.0;
}

void
gw_stats_json(const struct gw_dp *dp, FILE *f)
{
	fprintf(f, "{\"sa_slots\": %u}\n", dp->nb_sa);
}

int
gw_stats_find_sa(const struct gw_dp *dp, int dir, uint32_t spi, int from)
{
	for (unsigned int i = from < 0 ? 0 : (unsigned int)from; i < dp->nb_sa; i++)
		if (dp->sa[i].active && dp->sa[i].spi == spi && (dir < 0 || dp->sa[i].dir == dir))
			return (int)i;
	return -1;
}

int
gw_stats_show_sa(const struct gw_dp *dp, int dir, uint32_t spi, bool all, bool json, FILE *f)
{
	int n = 0;

	for (unsigned int i = 0; i < dp->nb_sa; i++) {
		if (!dp->sa[i].active || (!all && (dp->sa[i].spi != spi ||
						  (dir >= 0 && dp->sa[i].dir != dir))))
			continue;
		fprintf(f, json ? "{\"spi\": %u}\n" : "sa %u\n", dp->sa[i].spi);
		n++;
	}
	return n;
}

void
gw_stats_reset_all(const struct gw_dp *dp)
{
	(void)dp;
}

/* --cluster-sync (hasync.c) is off here: its takeover and view do nothing */
void
gw_hasync_takeover(unsigned int seg)
{
	(void)seg;
}

void
gw_hasync_show(bool json, FILE *out)
{
	(void)json;
	(void)out;
}

void
gw_stats_reset_sa(const struct gw_dp *dp, unsigned int slot)
{
	if (slot >= dp->nb_sa)
		abort();
}

void
gw_stats_sa_new(unsigned int slot)
{
	if (slot >= gw.max_sa)
		abort();
}

void
gw_sa_fp_set(unsigned int slot, const struct gw_sa_conf *c)
{
	(void)c;
	if (slot >= gw.max_sa)
		abort();
}

int
gw_reload(char *msg, size_t len)
{
	snprintf(msg, len, "no configuration file (-f) to reload");
	return -ENOENT;
}

/*
 * rt.c's route tables (cp_rt.c's `rt`, `neigh`, `del rt`, `del neigh`): no
 * tables here; a rule set is checked as rt.c would (ports that exist).
 */
int
gw_rt_prepare(struct gw_dp *dp, const struct gw_conf *conf, struct gw_rt_set *s, char *err,
	      size_t err_len)
{
	memset(s, 0, sizeof(*s));
	for (unsigned int i = 0; i < conf->nb_rt; i++)
		if (conf->rt[i].port >= dp->nb_ports) {
			snprintf(err, err_len, "route at line %d: port %u does not exist",
				 conf->rt[i].line, conf->rt[i].port);
			return -EINVAL;
		}
	return 0;
}

void
gw_rt_commit(struct gw_dp *dp, const struct gw_conf *conf, struct gw_rt_set *s)
{
	(void)dp;
	(void)conf;
	memset(s, 0, sizeof(*s));
}

void
gw_rt_abort(struct gw_rt_set *s)
{
	memset(s, 0, sizeof(*s));
}

bool gw_knh_on;

void
gw_knh_show(FILE *out)
{
	(void)out;
}

void
rte_ipsec_telemetry_sa_del(const struct rte_ipsec_sa *sa)
{
	(void)sa;
}

void
rte_rcu_qsbr_synchronize(struct rte_rcu_qsbr *v, unsigned int thread_id)
{
	(void)v;
	(void)thread_id;
}

uint64_t
rte_get_tsc_hz(void)
{
	return 1000000000;
}

int
rte_ctrl_thread_create(pthread_t *thread, const char *name, const pthread_attr_t *attr,
		       void *(*start_routine)(void *), void *arg)
{
	(void)thread;
	(void)name;
	(void)attr;
	(void)start_routine;
	(void)arg;
	abort();                /* the socket is never opened here */
}

/* ---- the checks ---------------------------------------------------------- */

struct sink {
	char *buf;
	size_t len, cap;
};

static void
sink_add(void *arg, const char *p, size_t n)
{
	struct sink *s = arg;

	if (s->len + n > s->cap) {
		s->cap = (s->len + n) * 2;
		s->buf = realloc(s->buf, s->cap);
		if (s->buf == NULL)
			abort();
	}
	memcpy(s->buf + s->len, p, n);
	s->len += n;
}

/*
 * Is piece p[0..n) a subscription: `subscribe` or `subscribe all`, `json`
 * before either allowed, words between blanks, and nothing a request may
 * not have?
 */
static bool
is_subscribe(const uint8_t *p, size_t n)
{
	const char *w[4];
	size_t wl[4], nw = 0, i = 0, f = 0;

	for (size_t k = 0; k < n; k++)
		if (p[k] != '\t' && (p[k] < 0x20 || p[k] > 0x7e || p[k] == '#' || p[k] == '\\'))
			return false;
	while (i < n) {
		size_t a;

		while (i < n && (p[i] == ' ' || p[i] == '\t'))
			i++;
		if (i == n)
			break;
		if (nw == 4)
			return false;
		a = i;
		while (i < n && p[i] != ' ' && p[i] != '\t')
			i++;
		w[nw] = (const char *)p + a;
		wl[nw++] = i - a;
	}
	if (nw > 0 && wl[0] == 4 && memcmp(w[0], "json", 4) == 0)
		f = 1;
	if (nw - f == 1 || nw - f == 2)
		return wl[f] == 9 && memcmp(w[f], "subscribe", 9) == 0 &&
			(nw - f == 1 || (wl[f + 1] == 3 && memcmp(w[f + 1], "all", 3) == 0));
	return false;
}

/* Answers the model expects: one per piece, up to the first subscribe. */
static size_t
expected_answers(const uint8_t *d, size_t n)
{
	size_t count = 0, start = 0;

	for (size_t i = 0; i < n; i++) {
		if (d[i] != '\n')
			continue;
		count++;
		if (i - start < 4096 && is_subscribe(d + start, i - start))
			return count;
		start = i + 1;
	}
	return count + (start < n ? 1 : 0);
}

static void
check_output(const char *o, size_t n, size_t want)
{
	size_t answers = 0, start = 0;

	if (n != 0 && o[n - 1] != '\n')
		abort();
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)o[i];
		const char *line = o + start, *q;
		size_t len;
		char quoted[4096];

		if (c != '\n' && (c < 0x20 || c > 0x7e))
			abort();
		if (c != '\n')
			continue;
		len = i - start;
		start = i + 1;
		if ((len >= 2 && memcmp(line, "OK", 2) == 0) ||
				(len >= 3 && memcmp(line, "ERR", 3) == 0))
			answers++;
		if (len < 3 || memcmp(line, "ERR", 3) != 0)
			continue;
		/* every 'quoted' string of an error: a hidden label or a public token */
		for (q = memchr(line, '\'', len); q != NULL;) {
			const char *end = memchr(q + 1, '\'', (size_t)(line + len - q - 1));
			size_t ql;

			if (end == NULL)
				break;
			ql = (size_t)(end - q - 1);
			memcpy(quoted, q + 1, ql);
			quoted[ql] = '\0';
			if (strcmp(quoted, "<hidden>") != 0 &&
					strcmp(quoted, "<hidden key>") != 0 &&
					strcmp(gw_token_quote(quoted, NULL), quoted) != 0 &&
					ql > 1)     /* '#' and '\' in the framing errors */
				abort();
			q = memchr(end + 1, '\'', (size_t)(line + len - end - 1));
		}
	}
	if (answers != want)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const size_t pieces[] = { 1, 7, 64, 1000, 4096 };
	static struct gw_conf *conf;
	char out_err[256];
	struct sink out = { NULL, 0, 0 };
	struct gw_ctrl_client *c;
	size_t off = 0, k = 0;

	if (conf == NULL) {
		conf = calloc(1, sizeof(*conf));
		gw.max_sa = 256;        /* small: the full table is reached too */
		gw.sa = calloc(gw.max_sa, sizeof(*gw.sa));
		gw.sa_cold = calloc(gw.max_sa, sizeof(*gw.sa_cold));
		if (conf == NULL || gw.sa == NULL || gw.sa_cold == NULL)
			abort();
		gw.conf = conf;
	}
	if (gw_ha_parse("4@192.0.2.5,192.0.2.6:1", out_err, sizeof(out_err)) != 0)
		abort();
	c = gw_ctrl_client_new(sink_add, &out);
	if (c == NULL)
		abort();
	for (;;) {
		size_t n = size - off < pieces[k] ? size - off : pieces[k];
		bool eof = off + n == size;

		if (!gw_ctrl_feed(c, data + off, n, eof) || eof)
			break;
		off += n;
		k = (k + 1) % (sizeof(pieces) / sizeof(pieces[0]));
	}
	gw_ctrl_client_free(c);
	check_output(out.buf, out.len, expected_answers(data, size));
	free(out.buf);
	/* a fresh, empty configuration and SA table for the next input */
	memset(gw.sa, 0, gw.max_sa * sizeof(*gw.sa));
	gw.nb_sa = 0;
	gw_ike_reset();
	memset(gw_natt_ports, 0, sizeof(gw_natt_ports));
	memset(gw_host_bypass_ports, 0, sizeof(gw_host_bypass_ports));
	gw_conf_wipe(conf);
	return 0;
}
