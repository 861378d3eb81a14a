/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec-gw configuration reload (SIGHUP, or `reload` on the control
 * socket), make-before-break:
 *
 *   1. parse and check the whole new file (gw_conf_validate(), as start
 *      and --check do); changed `rt` or `neigh` rules: the new route
 *      tables are built beside the published ones (rt.c). Any refusal
 *      ends here and changes nothing.
 *   2. plan: an SA of the old file that the new one has with the same
 *      parameters and keys is kept as it is (slot, sequence numbers,
 *      window, counters); an SA of the new file only is added, one of the
 *      old file only is removed. An SA whose parameters or keys change
 *      under the same direction and SPI is refused: a rekey is a new SPI
 *      (add the new SA and point the SP rules at it; remove the old one in
 *      the same or a later reload).
 *   3. bring up the new SAs (inbound ones enter the SAD), then swap the
 *      SPD built from the new file's SP rules (RCU, as the control socket
 *      does), then unpublish the old SAs; they are freed once no worker
 *      can hold them (the change engine's reclaim queue, cp.c). A failure
 *      before the swap takes the new SAs down again. Then the new route
 *      tables and neighbours are published (an atomic exchange per table,
 *      the old ones freed after an RCU grace period).
 *
 * SAs and SP rules added through the control socket (their "line" is
 * GW_CTRL_LINE_BASE or more) belong to the controller (strongSwan): a
 * reload keeps them and refuses a file that defines one of them.
 *
 * An inbound protect rule of the new file that equals an old one except
 * for its SA (a rekey) still accepts packets of the old SA while that SA
 * is up, as `replace sp` does: packets the peer sent before it switched
 * pass the policy check.
 *
 * Keys never stay in the live configuration once the sessions have them,
 * so "the same keys" is decided on a fingerprint: SHA-256 over a random
 * per-process salt and the key bytes, taken when an SA comes up (sa_fp.c).
 */
#include "gw_dp.h"
#include "cp.h"
#include "evq.h"
#include "gw_log.h"
#include "sa_fp.h"
#include "seqstate.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct plan {
	unsigned int slots;             /* the arrays' size: the SA table's, the new file's SAs */
	unsigned int *add, *rm;         /* slots, in the merged configuration */
	unsigned int n_add, n_rm, n_kept;
	bool *matched;                  /* [new SA]: an SA kept for it */
	bool *added;                    /* [slot]: in add[] */
	unsigned int scan;              /* free_slot(): the slots below are not free */
	uint8_t (*add_fp)[GW_FP_LEN];      /* fingerprints of the added SAs */
};

static const char *cfg_path;
static unsigned int cfg_flags;
static struct gw_reload_status status;

int
gw_reload_init(const char *path, unsigned int conf_flags)
{
	cfg_path = path;
	cfg_flags = conf_flags;
	if (gw_sa_fp_init() != 0)
		return -ENOMEM;
	snprintf(status.message, sizeof(status.message), "no reload yet");
	return 0;
}

void
gw_reload_fini(void)
{
	gw_sa_fp_fini();
}

bool
gw_reloadable(void)
{
	return cfg_path != NULL;
}

void
gw_reload_status(struct gw_reload_status *out)
{
	*out = status;
}

/* Same parameters apart from keys, line and `telemetry` (which a reload may switch). */
static bool
sa_same(const struct gw_sa_conf *live, const struct gw_sa_conf *nw)
{
	struct gw_sa_conf a, b;
	bool same;

	memcpy(&a, live, sizeof(a));
	memcpy(&b, nw, sizeof(b));
	for (struct gw_sa_conf *x = &a; x != NULL; x = x == &a ? &b : NULL) {
		explicit_bzero(x->cipher_key, sizeof(x->cipher_key));
		explicit_bzero(x->auth_key, sizeof(x->auth_key));
		x->salt = 0;
		x->line = 0;
		x->deleted = false;
		x->telemetry = false;
	}
	same = memcmp(&a, &b, sizeof(a)) == 0;
	explicit_bzero(&b, sizeof(b));
	return same;
}

static bool
rt_neigh_same(const struct gw_conf *a, const struct gw_conf *b)
{
	if (a->nb_rt != b->nb_rt || a->nb_neigh != b->nb_neigh)
		return false;
	for (unsigned int i = 0; i < a->nb_rt; i++)
		if (a->rt[i].v6 != b->rt[i].v6 || a->rt[i].dst_len != b->rt[i].dst_len ||
		    a->rt[i].port != b->rt[i].port ||
		    memcmp(&a->rt[i].dst, &b->rt[i].dst, sizeof(a->rt[i].dst)) != 0)
			return false;
	for (unsigned int i = 0; i < a->nb_neigh; i++)
		if (a->neigh[i].port != b->neigh[i].port ||
		    memcmp(a->neigh[i].mac, b->neigh[i].mac, 6) != 0)
			return false;
	return true;
}

/*
 * The controller's routes and neighbours (`rt`, `neigh` on the socket,
 * cp_rt.c) stay, as its SAs and SP rules do, unless the new file gives a
 * route for the same prefix or a neighbour for the same port: appended to
 * nw's. -ENOMEM or 0.
 */
static int
rt_keep_ctrl(const struct gw_conf *live, struct gw_conf *nw)
{
	unsigned int n = 0;
	struct gw_rt_conf *rt;

	for (unsigned int i = 0; i < live->nb_rt; i++)
		n += gw_ctrl_origin(live->rt[i].line);
	if (n != 0) {
		rt = realloc(nw->rt, ((size_t)nw->nb_rt + n) * sizeof(*rt));
		if (rt == NULL)
			return -ENOMEM;
		nw->rt = rt;
	}
	for (unsigned int i = 0, k; i < live->nb_rt; i++) {
		const struct gw_rt_conf *r = &live->rt[i];

		for (k = 0; k < nw->nb_rt && gw_ctrl_origin(r->line) &&
		     !(nw->rt[k].v6 == r->v6 && nw->rt[k].dst_len == r->dst_len &&
		       memcmp(&nw->rt[k].dst, &r->dst, sizeof(r->dst)) == 0); k++)
			;
		if (gw_ctrl_origin(r->line) && k == nw->nb_rt)
			nw->rt[nw->nb_rt++] = *r;
	}
	nw->cap_rt = RTE_MAX(nw->cap_rt, nw->nb_rt);
	for (unsigned int i = 0, k; i < live->nb_neigh; i++) {
		const struct gw_neigh_conf *nb = &live->neigh[i];

		for (k = 0; k < nw->nb_neigh && nw->neigh[k].port != nb->port; k++)
			;
		if (gw_ctrl_origin(nb->line) && k == nw->nb_neigh && k < GW_MAX_NEIGH)
			nw->neigh[nw->nb_neigh++] = *nb;
	}
	return 0;
}

/*
 * The new file's routes and neighbours in force: the tables prepared from
 * them published (the old ones freed after a grace period, rt.c), and
 * their rules moved into m, the configuration about to go live.
 */
static void
rt_take(struct gw_conf *m, struct gw_conf *nw, struct gw_rt_set *rts)
{
	gw_rt_commit(&gw, nw, rts);
	free(m->rt);
	m->rt = nw->rt;
	m->nb_rt = nw->nb_rt;
	m->cap_rt = nw->cap_rt;
	nw->rt = NULL;
	nw->nb_rt = nw->cap_rt = 0;
	memcpy(m->neigh, nw->neigh, sizeof(m->neigh));
	m->nb_neigh = nw->nb_neigh;
	GW_LOG(NOTICE, "reload: %u routes, %u neighbours in force", m->nb_rt, m->nb_neigh);
}

/* Selectors, direction, family and priority equal (not the action). */
static bool
sp_same_match(const struct gw_sp_conf *a, const struct gw_sp_conf *b)
{
	return a->v6 == b->v6 && a->dir == b->dir && a->pri == b->pri &&
		memcmp(&a->src, &b->src, sizeof(a->src)) == 0 && a->src_len == b->src_len &&
		memcmp(&a->dst, &b->dst, sizeof(a->dst)) == 0 && a->dst_len == b->dst_len &&
		a->proto_lo == b->proto_lo && a->proto_hi == b->proto_hi &&
		a->sport_lo == b->sport_lo && a->sport_hi == b->sport_hi &&
		a->dport_lo == b->dport_lo && a->dport_hi == b->dport_hi;
}

static bool
sa_up_in(const struct gw_conf *m, uint32_t spi)
{
	return spi != 0 && gw_conf_find_sa(m, GW_DIR_IN, spi) != NULL;
}

/*
 * The merged SP list: the new file's rules, then the controller's. An
 * inbound protect rule that replaces an old file rule with other SA keeps
 * accepting that SA while it stays up (spi_prev).
 */
static int
merge_sps(const struct gw_conf *live, const struct gw_conf *nw, struct gw_conf *m, char *err,
	  size_t err_len)
{
	unsigned int n = 0;

	if (gw_conf_reserve_sp(m, nw->nb_sp + live->nb_sp) != 0) {
		snprintf(err, err_len, "out of memory");
		return -ENOMEM;
	}
	for (unsigned int j = 0; j < nw->nb_sp; j++) {
		struct gw_sp_conf sp = nw->sp[j];

		sp.spi_prev = 0;
		for (unsigned int i = 0; sp.dir == GW_DIR_IN && sp.action == GW_SP_PROTECT &&
		     i < live->nb_sp; i++) {
			const struct gw_sp_conf *o = &live->sp[i];

			if (gw_ctrl_origin(o->line) || !sp_same_match(o, &sp) ||
			    o->action != GW_SP_PROTECT)
				continue;
			if (o->spi != sp.spi && sa_up_in(m, o->spi))
				sp.spi_prev = o->spi;
			else if (o->spi == sp.spi && o->spi_prev != sp.spi &&
				 sa_up_in(m, o->spi_prev))
				sp.spi_prev = o->spi_prev;
			break;
		}
		m->sp[n++] = sp;
	}
	for (unsigned int i = 0; i < live->nb_sp; i++) {
		const struct gw_sp_conf *o = &live->sp[i];

		if (!gw_ctrl_origin(o->line))
			continue;
		if (o->action == GW_SP_PROTECT && gw_conf_find_sa(m, o->dir, o->spi) == NULL) {
			snprintf(err, err_len, "an SP rule added through the control socket "
				 "protects with SA %s %u, which the new file removes",
				 o->dir == GW_DIR_IN ? "in" : "out", o->spi);
			return -EINVAL;
		}
		if (gw.max_sp != 0 && n == gw.max_sp) {
			snprintf(err, err_len, "too many SP rules with the control socket's (at "
				 "most %u: --max-sp)", gw.max_sp);
			return -ENOSPC;
		}
		m->sp[n] = *o;
		if (o->spi_prev != 0 && !sa_up_in(m, o->spi_prev))
			m->sp[n].spi_prev = 0;
		n++;
	}
	m->nb_sp = n;
	return 0;
}

/*
 * A slot for a new SA in m: a freed one nobody else took, else the next.
 * One pass over the table for the whole plan: what is free does not change
 * while the plan is made, and a slot once taken stays taken, so each call
 * goes on where the last one stopped.
 */
static int
free_slot(struct gw_conf *m, struct plan *pl)
{
	for (; pl->scan < m->nb_sa; pl->scan++) {
		unsigned int i = pl->scan;

		/* freed: gw_sa_free() let go of its rte_ipsec SA and session */
		if (!m->sa[i].deleted || gw.sa[i].active || gw.sa_cold[i].blk != NULL ||
		    gw.sa_cold[i].cses != NULL || pl->added[i])
			continue;
		return (int)i;
	}
	if (m->nb_sa >= gw.max_sa)
		return -1;
	return (int)m->nb_sa;   /* gw_conf_put_sa() appends it */
}

static int
plan_sas(const struct gw_conf *nw, struct gw_conf *m, struct plan *pl, char *err,
	 size_t err_len)
{
	unsigned int live_n = m->nb_sa;

	for (unsigned int i = 0; i < live_n; i++) {
		struct gw_sa_conf *c = &m->sa[i];
		const struct gw_sa_conf *n;
		uint8_t f[GW_FP_LEN];
		bool keys;

		if (c->deleted || !gw.sa[i].active || gw_ctrl_origin(c->line))
			continue;
		n = gw_conf_find_sa(nw, c->dir, c->spi);
		if (n == NULL) {
			pl->rm[pl->n_rm++] = i;
			continue;
		}
		gw_sa_fp_of(n, f);
		keys = gw_sa_fp_same(i, f);
		explicit_bzero(f, sizeof(f));
		if (!keys || !sa_same(c, n)) {
			snprintf(err, err_len, "SA %s %u (line %d): its %s changed under the same "
				 "SPI; a change is a new SA: give it a new SPI, point the SP rules "
				 "at it, remove the old one", c->dir == GW_DIR_IN ? "in" : "out",
				 c->spi, n->line, keys ? "parameters" : "keys");
			return -EINVAL;
		}
		pl->matched[n - nw->sa] = true;
		c->line = n->line;
		c->telemetry = n->telemetry;
		pl->n_kept++;
	}
	for (unsigned int i = 0; i < pl->n_rm; i++)
		gw_conf_del_sa(m, pl->rm[i]);
	for (unsigned int j = 0; j < nw->nb_sa; j++) {
		const struct gw_sa_conf *n = &nw->sa[j];
		int slot;

		if (pl->matched[j])
			continue;
		if (gw_conf_find_sa(m, n->dir, n->spi) != NULL) {
			snprintf(err, err_len, "SA %s %u (line %d): the control socket added it; "
				 "delete it there first (del sa)",
				 n->dir == GW_DIR_IN ? "in" : "out", n->spi, n->line);
			return -EEXIST;
		}
		slot = free_slot(m, pl);
		if (slot < 0) {
			snprintf(err, err_len, "too many SAs (at most %u: --max-sa)", gw.max_sa);
			return -ENOSPC;
		}
		if (gw_conf_put_sa(m, (unsigned int)slot, n) != 0) {
			snprintf(err, err_len, "out of memory");
			return -ENOMEM;
		}
		gw_sa_fp_of(n, pl->add_fp[pl->n_add]);
		pl->add[pl->n_add++] = (unsigned int)slot;
		pl->added[slot] = true;
	}
	return 0;
}

/* The kept SAs carry the same family under the new SP rules. */
static int
check_families(const struct gw_conf *m, const struct plan *pl, const int8_t *fam, char *err,
	       size_t err_len)
{
	for (unsigned int i = 0; i < m->nb_sa; i++) {
		const struct gw_sa_conf *c = &m->sa[i];

		if (c->deleted || pl->added[i] || !gw.sa[i].active)
			continue;
		if (fam[i] != gw.sa[i].inner_v6) {
			snprintf(err, err_len, "SA %s %u (line %d) carries IPv%c; the new SP "
				 "rules send IPv%c through it", c->dir == GW_DIR_IN ? "in" : "out",
				 c->spi, c->line, gw.sa[i].inner_v6 ? '6' : '4',
				 gw.sa[i].inner_v6 ? '4' : '6');
			return -EINVAL;
		}
	}
	return 0;
}

/* Unpublish slot's SA and free it once no worker can hold it (cp.c's queue). */
static void
sa_retire(unsigned int slot)
{
	struct gw_sa *s = &gw.sa[slot];

	__atomic_store_n(&s->active, false, __ATOMIC_RELEASE);
	gw_sa_sad_del(&gw, s);
	if (s->ss.sa != NULL)   /* out of DPDK's telemetry a grace period before it is freed */
		rte_ipsec_telemetry_sa_del(s->ss.sa);
	if (!gw_cp_reclaim_sa(s))
		GW_LOG(WARNING, "reload: SA %s %u unpublished but kept: a worker still held it",
		       s->dir == GW_DIR_IN ? "in" : "out", s->spi);
}

/* Take down what this reload brought up (nothing of it was in the SPD). */
static void
undo_adds(const struct plan *pl)
{
	for (unsigned int k = 0; k < pl->n_add; k++)
		sa_retire(pl->add[k]);
}

static int
apply(struct gw_conf *m, struct plan *pl, const int8_t *fam, char *err, size_t err_len)
{
	unsigned int k;
	int rc = 0;

	for (k = 0; k < pl->n_add; k++) {
		rc = gw_sa_add(&gw, m, pl->add[k], fam[pl->add[k]], err, err_len);
		if (rc != 0)
			break;
		gw_stats_sa_new(pl->add[k]);
	}
	/* the new outbound SAs' numbers reserved durably before an SP rule points at them */
	if (rc == 0 && gw_seq_state_pending())
		rc = gw_seq_state_commit(err, err_len);
	if (rc != 0) {
		pl->n_add = k;          /* the ones up */
		undo_adds(pl);
		return rc;
	}
	rc = gw_cp_spd_publish(m, err, err_len);
	if (rc != 0) {
		undo_adds(pl);
		return rc;
	}
	if (err[0] != '\0')     /* the old lists kept: a warning, not a failure */
		GW_LOG(WARNING, "reload: %s", err);
	err[0] = '\0';
	for (k = 0; k < pl->n_add; k++)
		gw_event_note("add sa %s %u by reload", gw.sa[pl->add[k]].dir == GW_DIR_IN ? "in" :
			      "out", gw.sa[pl->add[k]].spi);
	for (k = 0; k < pl->n_rm; k++) {
		gw_event_note("del sa %s %u by reload", gw.sa[pl->rm[k]].dir == GW_DIR_IN ? "in" :
			      "out", gw.sa[pl->rm[k]].spi);
		sa_retire(pl->rm[k]);
	}
	for (unsigned int i = 0; i < m->nb_sa; i++) {
		if (m->sa[i].deleted || !gw.sa[i].active)
			continue;
		gw.sa_cold[i].line = m->sa[i].line;
		gw_sa_telemetry(&gw, &gw.sa[i], m->sa[i].telemetry);
	}
	for (k = 0; k < pl->n_add; k++)
		gw_sa_fp_put(pl->add[k], pl->add_fp[k]);
	for (k = 0; k < pl->n_rm; k++)
		gw_sa_fp_put(pl->rm[k], NULL);
	return 0;
}

static void
plan_free(struct plan *pl)
{
	free(pl->add);
	free(pl->rm);
	free(pl->matched);
	free(pl->added);
	gw_secret_free(pl->add_fp, (size_t)pl->slots * sizeof(*pl->add_fp));
}

int
gw_reload(char *msg, size_t len)
{
	struct gw_conf *nw = NULL, *m = NULL;
	struct plan pl = { 0 };
	int8_t *fam = NULL;
	char err[512] = "", warn[512];
	struct gw_rt_set rts = { 0 };
	bool rt_changed;
	int rc;

	gw_notify("RELOADING=1");
	if (cfg_path == NULL) {
		snprintf(err, sizeof(err), "no configuration file (-f) to reload");
		rc = -ENOENT;
		goto out;
	}
	GW_LOG(NOTICE, "reload: reading %s", cfg_path);
	nw = gw_secret_alloc(sizeof(*nw));
	m = gw_secret_alloc(sizeof(*m));
	if (nw != NULL)
		memset(nw, 0, sizeof(*nw));
	if (m != NULL)
		memset(m, 0, sizeof(*m));
	if (nw == NULL || m == NULL || !gw_sa_fp_ready()) {
		snprintf(err, sizeof(err), "out of memory");
		rc = -ENOMEM;
		goto out;
	}
	rc = gw_conf_parse_file(nw, cfg_path, cfg_flags, err, sizeof(err));
	/* the plan's arrays: slots of the table, SAs of the new file */
	pl.slots = RTE_MAX(gw.max_sa, nw->nb_sa) + 1;
	pl.add = calloc(pl.slots, sizeof(*pl.add));
	pl.rm = calloc(pl.slots, sizeof(*pl.rm));
	pl.matched = calloc(pl.slots, sizeof(*pl.matched));
	pl.added = calloc(pl.slots, sizeof(*pl.added));
	pl.add_fp = gw_secret_alloc((size_t)pl.slots * sizeof(*pl.add_fp));
	if (rc == 0 && (pl.add == NULL || pl.rm == NULL || pl.matched == NULL || pl.added == NULL ||
			pl.add_fp == NULL)) {
		snprintf(err, sizeof(err), "out of memory");
		rc = -ENOMEM;
	}
	if (rc == 0 && err[0] != '\0') {
		GW_LOG(WARNING, "reload: %s", err);
		err[0] = '\0';
	}
	for (unsigned int k = 0; rc == 0 && k < GW_IGN_MAX; k++)
		if (gw_conf_ignored_text(nw, cfg_path, k, warn, sizeof(warn)))
			GW_LOG(WARNING, "%s", warn);
	if (rc == 0)
		rc = gw_conf_validate(nw, err, sizeof(err));
	/* new routes built beside the published ones; in force once the SAs are */
	if (rc == 0 && rt_keep_ctrl(gw.conf, nw) != 0) {
		snprintf(err, sizeof(err), "out of memory");
		rc = -ENOMEM;
	}
	rt_changed = rc == 0 && !rt_neigh_same(gw.conf, nw);
	if (rt_changed)
		rc = gw_rt_prepare(&gw, nw, &rts, err, sizeof(err));
	if (rc != 0)
		goto out;
	rc = gw_conf_copy(m, gw.conf);
	if (rc != 0) {
		snprintf(err, sizeof(err), "out of memory");
		goto out;
	}
	m->ignored = nw->ignored;
	rc = plan_sas(nw, m, &pl, err, sizeof(err));
	if (rc == 0)
		rc = merge_sps(gw.conf, nw, m, err, sizeof(err));
	if (rc == 0)
		rc = gw_conf_validate(m, err, sizeof(err));
	if (rc == 0) {
		fam = malloc((size_t)m->nb_sa + 1);
		if (fam == NULL) {
			snprintf(err, sizeof(err), "out of memory");
			rc = -ENOMEM;
		} else {
			(void)gw_conf_families(m, fam);
			rc = check_families(m, &pl, fam, err, sizeof(err));
		}
	}
	if (rc == 0)
		rc = apply(m, &pl, fam, err, sizeof(err));
	if (rc == 0 && rt_changed)
		rt_take(m, nw, &rts);
	if (rc == 0) {
		/* m's arrays become the live configuration's; the old ones are freed */
		struct gw_conf old = *gw.conf;

		gw_conf_wipe_keys(m);
		*gw.conf = *m;
		memset(m, 0, sizeof(*m));
		gw_conf_wipe(&old);
	}
out:
	gw_rt_abort(&rts);      /* what prepare built, if it was not taken */
	if (rc == 0) {
		status.ok++;
		status.last_ok = true;
		snprintf(status.message, sizeof(status.message), "%u SAs added, %u removed, %u "
			 "unchanged; %u SP rules", pl.n_add, pl.n_rm, pl.n_kept, gw.conf->nb_sp);
		GW_LOG(NOTICE, "reload: done: %s", status.message);
		gw_event_note("reload ok added %u removed %u kept %u", pl.n_add, pl.n_rm,
			      pl.n_kept);
	} else {
		status.failed++;
		status.last_ok = false;
		snprintf(status.message, sizeof(status.message), "%s", err);
		GW_LOG(ERR, "reload failed, nothing changed: %s", err);
		gw_event_note("reload failed");
	}
	snprintf(msg, len, "%s", rc == 0 ? status.message : err);      /* err: not cut at 512 */
	if (nw != NULL)
		gw_conf_wipe(nw);
	if (m != NULL)
		gw_conf_wipe(m);
	gw_secret_free(nw, sizeof(*nw));
	gw_secret_free(m, sizeof(*m));
	free(fam);
	plan_free(&pl);
	gw_notify("READY=1");
	return rc;
}
