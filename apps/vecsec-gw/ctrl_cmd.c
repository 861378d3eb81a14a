/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec-gw control socket commands: the table of requests (protocol 1.1's
 * here, the IKE daemon's in ctrl_ike.c) and their handlers, which parse
 * and answer and leave every change to the change engine (cp.c). The
 * protocol: docs/control-protocol.md.
 */
#include "gw_dp.h"
#include "cp.h"
#include "ctrl_cmd.h"
#include "ctrl_ike.h"
#include "evq.h"
#include "gw_log.h"
#include "ha.h"

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* The protocol's version (ctrl_ike.h: GW_CTRL_VERSION). */
#define CTRL_VERSION GW_CTRL_VERSION

/* `list` as JSON: {"sa": [...], "sp": [...]}, one rule per line. */
static void
cmd_list_json(FILE *out)
{
	unsigned int n = 0;

	fprintf(out, "{\"sa\": [");
	for (unsigned int i = 0; i < gw.nb_sa; i++) {
		const struct gw_sa *s = &gw.sa[i];

		if (!s->active)
			continue;
		fprintf(out, "%s\n  {\"dir\": \"%s\", \"spi\": %u, \"algo\": \"%s\", "
			"\"integ\": \"%s\", \"mode\": \"%s\", \"inner\": \"ipv%c\", "
			"\"cryptodev\": \"%s\", \"owner\": \"%s\", \"origin\": \"%s\"}",
			n++ ? "," : "", s->dir == GW_DIR_IN ? "in" : "out",
			s->spi, gw.sa_cold[i].algo_name, gw.sa_cold[i].integ_name, s->mode == GW_MODE_TRANS ? "transport" :
			s->mode == GW_MODE_TUN4 ? "ipv4-tunnel" : "ipv6-tunnel",
			s->inner_v6 ? '6' : '4', gw_sa_cdev_name(&gw, s),
			gw.sa_cold[i].owner != 0 ? gw_owner_name(gw.sa_cold[i].owner) : "",
			gw_ctrl_origin(gw.sa_cold[i].line) ? "control" : "file");
	}
	fprintf(out, "%s],\n \"sp\": [", n ? "\n" : "");
	for (unsigned int i = 0; i < gw.conf->nb_sp; i++) {
		const struct gw_sp_conf *sp = &gw.conf->sp[i];
		char a[2][INET6_ADDRSTRLEN];

		inet_ntop(sp->v6 ? AF_INET6 : AF_INET, sp->src.b, a[0], sizeof(a[0]));
		inet_ntop(sp->v6 ? AF_INET6 : AF_INET, sp->dst.b, a[1], sizeof(a[1]));
		fprintf(out, "%s\n  {\"family\": \"ipv%c\", \"dir\": \"%s\", \"action\": \"%s\", "
			"\"spi\": %u, \"pri\": %d, \"src\": \"%s/%u\", \"dst\": \"%s/%u\", "
			"\"proto\": [%u, %u], \"sport\": [%u, %u], \"dport\": [%u, %u], "
			"\"spi_prev\": %u, \"origin\": \"%s\"}", i ? "," : "", sp->v6 ? '6' : '4',
			sp->dir == GW_DIR_IN ? "in" : "out",
			sp->action == GW_SP_PROTECT ? "protect" :
			sp->action == GW_SP_BYPASS ? "bypass" : "discard",
			sp->action == GW_SP_PROTECT ? sp->spi : 0, sp->pri, a[0], sp->src_len, a[1],
			sp->dst_len, sp->proto_lo, sp->proto_hi, sp->sport_lo, sp->sport_hi,
			sp->dport_lo, sp->dport_hi, sp->spi_prev,
			gw_ctrl_origin(sp->line) ? "control" : "file");
	}
	fprintf(out, "%s]}\n", gw.conf->nb_sp ? "\n" : "");
}

static void
cmd_list(FILE *out)
{
	for (unsigned int i = 0; i < gw.nb_sa; i++) {
		const struct gw_sa *s = &gw.sa[i];

		if (!s->active)
			continue;
		fprintf(out, "sa %s %u %s %s inner ipv%c cryptodev %s%s integ %s",
			s->dir == GW_DIR_IN ? "in" : "out", s->spi, gw.sa_cold[i].algo_name,
			s->mode == GW_MODE_TRANS  ? "transport"
			: s->mode == GW_MODE_TUN4 ? "ipv4-tunnel"
						  : "ipv6-tunnel",
			s->inner_v6 ? '6' : '4',
			gw_sa_cdev_name(&gw, s),
			s->action == GW_SA_CPU_CRYPTO ? " cpu-crypto" :
			s->action == GW_SA_LOOKASIDE_PROTOCOL ? " lookaside-protocol" :
			s->action == GW_SA_NATIVE ? " native" : "",
			gw.sa_cold[i].integ_name);
		if (gw.sa_cold[i].owner != 0)
			fprintf(out, " owner %s", gw_owner_name(gw.sa_cold[i].owner));
		if (s->has_life) {
			static const char *const lk[4] = { "soft-bytes", "hard-bytes",
				"soft-packets", "hard-packets" };

			for (unsigned int k = 0; k < 4; k++)
				if (s->life[k] != 0)
					fprintf(out, " lifetime-%s %" PRIu64, lk[k], s->life[k]);
			fprintf(out, " reserved-packets %" PRIu64 "%s%s",
				__atomic_load_n(&s->used_pkts, __ATOMIC_RELAXED),
				__atomic_load_n(&s->soft_sent, __ATOMIC_RELAXED) ? " soft-expired" : "",
				__atomic_load_n(&s->hard_sent, __ATOMIC_RELAXED) ? " hard-expired" : "");
		}
		fputc('\n', out);
	}
	for (unsigned int i = 0; i < gw.conf->nb_sp; i++) {
		const struct gw_sp_conf *sp = &gw.conf->sp[i];

		fprintf(out, "sp ipv%c %s esp ", sp->v6 ? '6' : '4',
			sp->dir == GW_DIR_IN ? "in" : "out");
		if (sp->action == GW_SP_PROTECT)
			fprintf(out, "protect %u", sp->spi);
		else
			fprintf(out, "%s", sp->action == GW_SP_BYPASS ? "bypass" : "discard");
		fprintf(out, " pri %d", sp->pri);
		for (int k = 0; k < 2; k++) {
			char a[INET6_ADDRSTRLEN];
			const struct gw_addr *ad = k ? &sp->dst : &sp->src;

			inet_ntop(sp->v6 ? AF_INET6 : AF_INET, ad->b, a, sizeof(a));
			fprintf(out, " %s %s/%u", k ? "dst" : "src", a,
				k ? sp->dst_len : sp->src_len);
		}
		fprintf(out, " proto %u:%u sport %u:%u dport %u:%u", sp->proto_lo,
			sp->proto_hi, sp->sport_lo, sp->sport_hi, sp->dport_lo, sp->dport_hi);
		if (sp->owner != 0)
			fprintf(out, " owner %s", gw_owner_name(sp->owner));
		if (sp->spi_prev != 0)
			fprintf(out, " # and SA in %u until it is deleted", sp->spi_prev);
		fputc('\n', out);
	}
}


/* ---- requests: one table ------------------------------------------------ */

/*
 * A request handler: r holds the request's words (r->w[0] is its first
 * word), out takes answer lines (the OK or ERR line is added after it).
 * Returns 0 (OK; "OK warning: <err>" when err was set) or a negative errno
 * with the reason in err. A reason never quotes the request's words, except
 * through gw_token_quote().
 */
typedef int (*ctrl_fn)(struct ctrl_req *r, FILE *out, char *err, size_t err_len);

struct ctrl_cmd {
	const char *name;       /* its first word, or first two */
	const char *args;       /* what follows, for the usage line */
	unsigned int min_args, max_args;        /* words after the name */
	ctrl_fn fn;
};

#define CTRL_ANY CTRL_MAX_WORDS

static int
req_rule(struct ctrl_req *r, FILE *out, char *err, size_t err_len)
{
	(void)out;
	return gw_cp_add(r->line + r->off[0], &r->spd, err, err_len);
}

/* `rt <rt rule>`, `neigh port N MAC` (1.7): cp_rt.c */
static int
req_rt(struct ctrl_req *r, FILE *out, char *err, size_t err_len)
{
	(void)out;
	return gw_cp_rt_add(r->line + r->off[0], err, err_len);
}

/* `del rt <rt rule>`, `del neigh port N` (1.7) */
static int
req_del_rt(struct ctrl_req *r, FILE *out, char *err, size_t err_len)
{
	uint64_t port;

	(void)out;
	if (strcmp(r->w[1], "rt") == 0)
		return gw_cp_rt_del(r->line + r->off[1], err, err_len);
	if (r->n != 4 || strcmp(r->w[2], "port") != 0 ||
	    gw_parse_u64(r->w[3], GW_MAX_PORTS - 1, &port) != 0) {
		snprintf(err, err_len, "usage: del neigh port N");
		return -EINVAL;
	}
	return gw_cp_neigh_del((unsigned int)port, err, err_len);
}

/* `show rt` (1.7) */
static int
req_show_rt(struct ctrl_req *r, FILE *out, char *err, size_t err_len)
{
	(void)r;
	(void)err;
	(void)err_len;
	gw_cp_rt_show(out);
	return 0;
}

static int
req_del_sa(struct ctrl_req *r, FILE *out, char *err, size_t err_len)
{
	uint64_t spi;
	bool in = strcmp(r->w[2], "in") == 0;
	uint8_t dir;

	(void)out;
	if ((!in && strcmp(r->w[2], "out") != 0) || gw_parse_u64(r->w[3], UINT32_MAX, &spi) != 0) {
		snprintf(err, err_len, "usage: del sa in|out SPI");
		return -EINVAL;
	}
	dir = in ? GW_DIR_IN : GW_DIR_OUT;
	/* a reservation (`spi alloc`, 1.2) with no SA yet: freed, and that is all */
	if (gw_ike_spi_release(dir, (uint32_t)spi) &&
	    gw_conf_find_sa(gw.conf, dir, (uint32_t)spi) == NULL)
		return 0;
	return gw_cp_del_sa(dir, (uint32_t)spi, err, err_len);
}

static int
req_del_sp(struct ctrl_req *r, FILE *out, char *err, size_t err_len)
{
	(void)out;
	return gw_cp_del_sp(r->line + r->off[1], err, err_len);
}

static int
req_replace_sp(struct ctrl_req *r, FILE *out, char *err, size_t err_len)
{
	unsigned int k;
	size_t len;

	(void)out;
	for (k = 2; k < r->n && strcmp(r->w[k], "with") != 0; k++)
		;
	if (k == r->n) {
		snprintf(err, err_len,
			 "usage: replace sp <sp rule> with protect SPI|bypass|discard");
		return -EINVAL;
	}
	/* the rule: from `sp` to before `with` */
	len = r->off[k] - r->off[1];
	memcpy(r->text, r->line + r->off[1], len);
	r->text[len] = '\0';
	return gw_cp_replace_sp(r->text, &r->w[k + 1], r->n - k - 1, err, err_len);
}

static int
req_version(struct ctrl_req *r, FILE *out, char *err, size_t err_len)
{
	(void)err;
	(void)err_len;
	if (r->json)
		fprintf(out, "{\"version\": \"%s\"}\n", CTRL_VERSION);
	else
		fprintf(out, "version %s\n", CTRL_VERSION);
	return 0;
}

static int
req_list(struct ctrl_req *r, FILE *out, char *err, size_t err_len)
{
	(void)err;
	(void)err_len;
	if (r->json)
		cmd_list_json(out);
	else
		cmd_list(out);
	return 0;
}

static int
req_stats(struct ctrl_req *r, FILE *out, char *err, size_t err_len)
{
	(void)err;
	(void)err_len;
	if (r->json)
		gw_stats_json(&gw, out);
	else
		gw_stats_print(&gw, gw_stats_since(), out);
	return 0;
}

/*
 * Words w[from..n) as [in|out] [SPI]: *dir -1 (both) or the direction,
 * *all when no SPI. false when they are something else.
 */
static bool
parse_sa_sel(const struct ctrl_req *r, unsigned int from, int *dir, uint32_t *spi, bool *all)
{
	uint64_t v;

	*dir = -1;
	*all = true;
	if (from < r->n && (strcmp(r->w[from], "in") == 0 || strcmp(r->w[from], "out") == 0)) {
		*dir = r->w[from][0] == 'i' ? GW_DIR_IN : GW_DIR_OUT;
		from++;
	}
	if (from < r->n) {
		if (gw_parse_u64(r->w[from], UINT32_MAX, &v) != 0 || v == 0)
			return false;
		*spi = (uint32_t)v;
		*all = false;
		from++;
	}
	return from == r->n && (*dir < 0 || !*all);
}

/* `show sa [in|out] [SPI]` */
static int
req_show_sa(struct ctrl_req *r, FILE *out, char *err, size_t err_len)
{
	uint32_t spi = 0;
	bool all;
	int dir;

	if (!parse_sa_sel(r, 2, &dir, &spi, &all)) {
		snprintf(err, err_len, "usage: show sa [[in|out] SPI]");
		return -EINVAL;
	}
	if (gw_stats_show_sa(&gw, dir, spi, all, r->json, out) == 0 && !all) {
		snprintf(err, err_len, "no SA %s%s%u", dir < 0 ? "" : dir == GW_DIR_IN ? "in " :
			 "out ", dir < 0 ? "with SPI " : "", spi);
		return -ENOENT;
	}
	return 0;
}

/* `reset`, `reset SPI`, `reset sa in|out SPI`: counters from 0 (never sequence state) */
static int
req_reset(struct ctrl_req *r, FILE *out, char *err, size_t err_len)
{
	unsigned int from = 1, n = 0;
	uint32_t spi = 0;
	bool all;
	int dir;

	if (r->n > 1 && strcmp(r->w[1], "sa") == 0)
		from = 2;
	if (!parse_sa_sel(r, from, &dir, &spi, &all) || (from == 2 && (all || dir < 0))) {
		snprintf(err, err_len, "usage: reset [SPI | sa in|out SPI]");
		return -EINVAL;
	}
	if (all) {
		gw_stats_reset_all(&gw);
		GW_LOG(NOTICE, "control: counters reset");
		gw_event_note("reset all");
	} else {
		for (int slot = 0; (slot = gw_stats_find_sa(&gw, dir, spi, slot)) >= 0; slot++) {
			gw_stats_reset_sa(&gw, (unsigned int)slot);
			n++;
		}
		if (n == 0) {
			snprintf(err, err_len, "no SA %s%s%u", dir < 0 ? "" : dir == GW_DIR_IN ?
				 "in " : "out ", dir < 0 ? "with SPI " : "", spi);
			return -ENOENT;
		}
		GW_LOG(NOTICE, "control: counters of %u SA%s with SPI %u reset", n,
		       n > 1 ? "s" : "", spi);
		gw_event_note("reset sa %s %u", dir < 0 ? "any" : dir == GW_DIR_IN ? "in" : "out",
			      spi);
	}
	if (r->json)
		fprintf(out, "{\"reset\": %u}\n", all ? gw.nb_sa : n);
	return 0;
}

/* `reload`: the -f file again, as SIGHUP (reload.c); ERR says why when refused */
static int
req_reload(struct ctrl_req *r, FILE *out, char *err, size_t err_len)
{
	char msg[512];
	int rc = gw_reload(msg, sizeof(msg));

	if (rc != 0) {
		snprintf(err, err_len, "reload refused, nothing changed: %s", msg);
		return rc;
	}
	if (r->json)
		fprintf(out, "{\"reload\": \"ok\", \"message\": \"%s\"}\n", msg);
	else
		fprintf(out, "reload: %s\n", msg);
	return 0;
}

/*
 * `mem`: what the SA table and the SAs take, in bytes: per SA up (the
 * tables amortised over the SAs) and in all. packet-state: the objects a
 * packet of the SA reads (its hot struct, rte_ipsec SA and replay window,
 * crypto session with, for ARIA, the key schedule crypto_vecsec keeps in
 * DPDK's heap, its packet counters: not the drops by reason).
 */
static int
req_mem(struct ctrl_req *r, FILE *out, char *err, size_t err_len)
{
	struct gw_mem m;
	size_t cfg, spd = 0, n, hot, blk, ses, cnt, base, cold, sad, sp, cf;

	(void)r;
	(void)err;
	(void)err_len;
	gw_sa_mem(&gw, &m);
	cfg = (size_t)gw.conf->cap_sa * sizeof(gw.conf->sa[0]) +
		(size_t)gw.conf->cap_sp * sizeof(gw.conf->sp[0]) +
		(gw.conf->sa_idx != NULL ? (size_t)(gw.conf->sa_idx_mask + 1) * 4 : 0);
	for (int v6 = 0; v6 < 2; v6++)
		for (int dir = 0; dir < 2; dir++) {
			const struct gw_spd *l = __atomic_load_n(&gw.spd[v6][dir],
								 __ATOMIC_ACQUIRE);

			spd += l != NULL ? l->mem + (l->acl != NULL ? l->acl->mem : 0) : 0;
		}
	n = m.nb_sa != 0 ? m.nb_sa : 1;
	hot = m.sa_hot / n;
	blk = m.ipsec_sa / n;
	ses = (m.session + m.session_heap) / n;
	cnt = m.stats / n;
	base = gw_stats_mem() / n;
	cold = m.sa_cold / n;
	sad = gw.mem_sad / n;
	sp = spd / n;
	cf = cfg / n;
	fprintf(out, "mem sas %u slots %u workers %u chacha20-poly1305 %u\n", m.nb_sa, m.max_sa,
		gw.nb_workers, m.nb_chacha);
	fprintf(out, "mem per-sa hot %zu ipsec-sa %zu session %zu counters %zu cold %zu sad %zu "
		"spd %zu config %zu stats-base %zu total %zu\n", hot, blk, ses, cnt, cold, sad, sp,
		cf, base, hot + blk + ses + cnt + cold + sad + sp + cf + base);
	fprintf(out, "mem per-sa packet-state %zu (sa %zu ipsec-sa %zu session %zu counters %zu)"
		"\n", sizeof(gw.sa[0]) + blk + ses + gw.nb_workers * sizeof(struct gw_sa_ctr),
		sizeof(gw.sa[0]), blk, ses, gw.nb_workers * sizeof(struct gw_sa_ctr));
	fprintf(out, "mem total sa-table %zu sa-cold %zu counters %zu ipsec-sa %zu sessions %zu "
		"session-heap %zu session-pools %zu (%u of %zu) sad %zu spd %zu config %zu stats-base %zu\n",
		m.sa_hot, m.sa_cold, m.stats, m.ipsec_sa, m.session, m.session_heap,
		m.session_pools, m.nb_sessions, m.session_obj, gw.mem_sad, spd, cfg,
		gw_stats_mem());
	/* per worker, not per SA: the flow caches (fcache.h) and how well they answer */
	for (unsigned int w = 0; w < gw.nb_workers; w++) {
		uint64_t hit, miss, shit, smiss;

		gw_fc_counts(gw.worker[w].spc, &hit, &miss);
		gw_fc_counts(gw.worker[w].sadc, &shit, &smiss);
		fprintf(out, "mem worker %u spd-cache %zu hits %" PRIu64 " misses %" PRIu64
			" sad-cache %zu hits %" PRIu64 " misses %" PRIu64 "\n", w,
			gw_fc_mem(gw.worker[w].spc), hit, miss, gw_fc_mem(gw.worker[w].sadc), shit,
			smiss);
	}
	return 0;
}

static int
req_subscribe(struct ctrl_req *r, FILE *out, char *err, size_t err_len)
{
	(void)out;
	if (r->n > 1 && strcmp(r->w[1], "all") != 0) {
		snprintf(err, err_len, "usage: subscribe [all]");
		return -EINVAL;
	}
	if (r->subs_full) {
		snprintf(err, err_len, "%d subscribers already", CTRL_MAX_SUBS);
		return -EBUSY;
	}
	r->subscribe = true;
	r->subscribe_all = r->n > 1;    /* 1.6: the control plane's changes too */
	return 0;
}

/* Protocol 1.8 (ha.c): segments, segment +N|-N */
static int
req_ha(struct ctrl_req *r, FILE *out, char *err, size_t err_len)
{
	return gw_ha_ctrl(r->n > 1 ? r->w[1] : NULL, r->pid, r->json, out, err, err_len);
}

/* Protocol 1.2 (ctrl_ike.c): hello, spi alloc, query sa, flush owner, bypass/natt udp, host */
static int
req_ike(struct ctrl_req *r, FILE *out, char *err, size_t err_len)
{
	int rc = -EINVAL;

	if (!gw_ctrl_ike(r->w[0], r->n > 1 ? r->w[1] : "", r->line + r->off[0], out, err, err_len,
			 &rc))
		snprintf(err, err_len, "internal: no handler");
	return rc;
}

/* Every request; a new one is a row here and its handler above. */
static const struct ctrl_cmd ctrl_cmds[] = {
	{ "sa", "<sa rule>", 1, CTRL_ANY, req_rule },
	{ "sp", "<sp rule>", 1, CTRL_ANY, req_rule },
	{ "del sa", "in|out SPI", 2, 2, req_del_sa },
	{ "del sp", "<sp rule>", 1, CTRL_ANY, req_del_sp },
	{ "replace sp", "<sp rule> with protect SPI|bypass|discard", 2, CTRL_ANY,
	  req_replace_sp },
	{ "rt", "<rt rule>", 1, CTRL_ANY, req_rt },
	{ "neigh", "port N MAC", 3, 3, req_rt },
	{ "del rt", "<rt rule>", 1, CTRL_ANY, req_del_rt },
	{ "del neigh", "port N", 2, 2, req_del_rt },
	{ "show rt", "", 0, 0, req_show_rt },
	{ "list", "", 0, 0, req_list },
	{ "stats", "", 0, 0, req_stats },
	{ "mem", "", 0, 0, req_mem },
	{ "show sa", "[[in|out] SPI]", 0, 2, req_show_sa },
	{ "reset", "[SPI | sa in|out SPI]", 0, 4, req_reset },
	{ "reload", "", 0, 0, req_reload },
	{ "subscribe", "[all]", 0, 1, req_subscribe },
	{ "version", "", 0, 0, req_version },
	{ "hello", "", 0, 0, req_ike },
	{ "spi alloc", "MIN MAX [owner NAME]", 2, 4, req_ike },
	{ "query sa", "in|out SPI", 2, 2, req_ike },
	{ "flush owner", "NAME", 1, 1, req_ike },
	{ "bypass udp", "PORT [owner NAME] | PORT del", 1, 3, req_ike },
	{ "natt udp", "PORT [owner NAME] | PORT del", 1, 3, req_ike },
	{ "host", "", 0, 0, req_ike },
	{ "segments", "", 0, 0, req_ha },
	{ "segment", "+N|-N", 1, 1, req_ha },
};

#define CTRL_NB_CMDS (sizeof(ctrl_cmds) / sizeof(ctrl_cmds[0]))

/* How many of the name's words match the request's: the name's count, or 0. */
static unsigned int
cmd_match(const struct ctrl_cmd *cmd, const struct ctrl_req *r)
{
	const char *sp = strchr(cmd->name, ' ');
	size_t len0 = sp != NULL ? (size_t)(sp - cmd->name) : strlen(cmd->name);

	if (strlen(r->w[0]) != len0 || memcmp(r->w[0], cmd->name, len0) != 0)
		return 0;
	if (sp == NULL)
		return 1;
	return r->n >= 2 && strcmp(r->w[1], sp + 1) == 0 ? 2 : 0;
}

/* "usage: a | b" of every request whose name starts with word w0 */
static void
usage_of(const char *w0, char *err, size_t err_len)
{
	size_t off = (size_t)snprintf(err, err_len, "usage:");

	for (unsigned int i = 0; i < CTRL_NB_CMDS && off < err_len; i++) {
		const struct ctrl_cmd *c = &ctrl_cmds[i];
		size_t l0 = strcspn(c->name, " ");

		if (strlen(w0) != l0 || memcmp(w0, c->name, l0) != 0)
			continue;
		off += (size_t)snprintf(err + off, err_len - off, "%s %s%s%s",
			off > strlen("usage:") ? " |" : "", c->name, c->args[0] ? " " : "",
			c->args);
	}
}

/* Serve the request in r (words split); the answer goes to out. */
int
gw_ctrl_dispatch(struct ctrl_req *r, FILE *out, char *err, size_t err_len)
{
	bool known = false;

	for (unsigned int i = 0; i < CTRL_NB_CMDS; i++) {
		const struct ctrl_cmd *c = &ctrl_cmds[i];
		size_t l0 = strcspn(c->name, " ");
		unsigned int nw = cmd_match(c, r);

		if (nw == 0) {
			known = known ||
				(strlen(r->w[0]) == l0 && memcmp(r->w[0], c->name, l0) == 0);
			continue;
		}
		if (r->n - nw < c->min_args || r->n - nw > c->max_args) {
			snprintf(err, err_len, "usage: %s%s%s", c->name, c->args[0] ? " " : "",
				 c->args);
			return -EINVAL;
		}
		return c->fn(r, out, err, err_len);
	}
	if (known) {
		usage_of(r->w[0], err, err_len);        /* `del x`: the forms of `del` */
	} else {
		char names[256];
		size_t off = 0;

		for (unsigned int i = 0; i < CTRL_NB_CMDS && off < sizeof(names); i++)
			off += (size_t)snprintf(names + off, sizeof(names) - off, "%s%s",
				i ? ", " : "", ctrl_cmds[i].name);
		snprintf(err, err_len, "unknown command '%s' (%s)", gw_token_quote(r->w[0], NULL),
			 names);
	}
	return -EINVAL;
}
