/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec-gw change engine: SA and SP add, delete and replace, the SP batch
 * and its commit, compaction, RCU reclamation, SA slot reuse and the
 * control-plane lock, under every front end (ctrl_cmd.c, ctrl_ike.c,
 * reload.c; the management thread's housekeeping).
 *
 * Changes never stop the workers: SP lists are rebuilt and swapped, the SAD
 * is built for concurrent readers, and what a worker might still hold (an
 * old SP list, a deleted SA, its crypto ops) is freed only after every
 * worker has passed an RCU quiescent point and a poll with nothing in its
 * cryptodevs.
 *
 * The control-plane lock (cp_lock.c) serializes everything that reads or
 * changes the SA and SP tables outside the workers; this module takes it
 * for each front end's request and keeps it while an SP batch is open.
 */
#include "gw_dp.h"
#include "cp.h"
#include "evq.h"
#include "gw_log.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_cycles.h>
#include <rte_ipsec.h>

/* "line" of rules added here: keeps their order, tells them from a file's (reload.c) */
static int ctrl_seq = GW_CTRL_LINE_BASE;

static bool ctrl_thread;        /* a control thread drives gw_cp_idle() */

static uint64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/*
 * Deferred reclamation: an unpublished SP list set or SA is freed once
 * every worker has passed a quiescent point after it (an SA also, after
 * that, a poll with nothing in its cryptodevs: its crypto ops are done),
 * checked at each request and each turn of the control thread
 * (gw_cp_idle: every CTRL_POLL_MS at least; without that thread, each tick
 * of the management thread), so that no request waits for it. On a busy
 * host a descheduled worker made every SP change wait for its next time
 * slice (tens of ms; an IKE daemon installing 1000 CHILD_SAs makes
 * 2000). A deleted SA's slot is reused only once it is freed (gw_sa_free
 * clears s->sa). What is still queued at exit is left to the process's end
 * (the SAs to gw_sa_teardown).
 */
#define RECLAIM_MAX 512

struct reclaim {
	uint64_t token;                 /* rte_rcu_qsbr_start() after unpublishing */
	bool quiesced;                  /* token passed, drained[] taken */
	uint64_t drained[GW_MAX_WORKERS];
	struct gw_spd *spd[2][2];       /* or */
	struct gw_sa *sa;
};

static struct reclaim reclaimq[RECLAIM_MAX];
static void slot_release(unsigned int i);

/*
 * The control-plane lock (reloads, telemetry, rate samples) is taken for
 * each request (gw_cp_begin), and kept while an SP batch is open:
 * its rules are in gw.conf already but not in force, so a reload must not
 * see them half-way.
 */
static unsigned int spd_dirty;          /* GW_SPD_BIT()s of the lists an open batch changed */
static bool cp_held;

static void
cp_take(void)
{
	if (!cp_held) {
		gw_cp_lock();
		cp_held = true;
	}
}

static void
cp_drop(void)
{
	if (cp_held && spd_dirty == 0) {
		cp_held = false;
		gw_cp_unlock();
	}
}
static unsigned int nb_reclaim;

static bool
reclaim_ready(struct reclaim *r)
{
	if (!r->quiesced) {
		if (rte_rcu_qsbr_check(gw.rcu, r->token, false) != 1)
			return false;
		r->quiesced = true;
		if (r->sa == NULL)
			return true;
		for (unsigned int w = 0; w < gw.nb_workers; w++)
			r->drained[w] = __atomic_load_n(&gw.worker[w].drained, __ATOMIC_ACQUIRE);
		return false;
	}
	for (unsigned int w = 0; w < gw.nb_workers; w++)
		if (__atomic_load_n(&gw.worker[w].drained, __ATOMIC_ACQUIRE) == r->drained[w])
			return false;
	return true;
}

/* Free what is safe to free; with wait, block (2 s at most) until the oldest is. */
static void
reclaim_poll(bool wait)
{
	uint64_t deadline = rte_get_tsc_cycles() + 2 * rte_get_tsc_hz();

	while (wait && nb_reclaim != 0 && !reclaim_ready(&reclaimq[0])) {
		if (gw_quit || rte_get_tsc_cycles() > deadline)
			break;
		rte_pause();
	}
	for (unsigned int i = 0; i < nb_reclaim;) {
		struct reclaim *r = &reclaimq[i];

		if (!reclaim_ready(r)) {
			i++;
			continue;
		}
		if (r->sa != NULL) {
			gw_sa_free(&gw, r->sa);
			slot_release(r->sa->idx);
		} else {
			gw_sp_free(r->spd);
		}
		memmove(r, r + 1, (nb_reclaim - i - 1) * sizeof(*r));
		nb_reclaim--;
	}
}

/* Queue what was just unpublished; false if it must be leaked (queue stuck full). */
static bool
reclaim_add(struct gw_spd *spd[2][2], struct gw_sa *sa)
{
	struct reclaim *r;

	if (gw.rcu == NULL) {           /* no workers read it (the fuzz harness) */
		if (sa != NULL) {
			gw_sa_free(&gw, sa);
			slot_release(sa->idx);
		} else {
			gw_sp_free(spd);
		}
		return true;
	}
	if (nb_reclaim == RECLAIM_MAX)
		reclaim_poll(true);
	if (nb_reclaim == RECLAIM_MAX)
		return false;
	r = &reclaimq[nb_reclaim++];
	memset(r, 0, sizeof(*r));
	r->token = rte_rcu_qsbr_start(gw.rcu);
	r->sa = sa;
	if (spd != NULL)
		memcpy(r->spd, spd, sizeof(r->spd));
	return true;
}

/*
 * Publish the SP lists of mask built from conf (on the published ACLs where
 * the change is small: sp.c, spd_compact() later); the old ones are freed
 * once no worker can read them.
 */
static int
spd_publish(const struct gw_conf *conf, unsigned int mask, char *err, size_t err_len)
{
	struct gw_spd *fresh[2][2], *old[2][2];
	int rc = gw_sp_update(&gw, conf, gw.spd, mask, fresh);

	if (rc != 0) {
		snprintf(err, err_len, "cannot build the SPD: %s", strerror(-rc));
		return rc;
	}
	for (int v6 = 0; v6 < 2; v6++)
		for (int dir = 0; dir < 2; dir++)
			old[v6][dir] = !(mask & GW_SPD_BIT(v6, dir)) ? NULL :
				__atomic_exchange_n(&gw.spd[v6][dir], fresh[v6][dir],
						    __ATOMIC_ACQ_REL);
	if (!reclaim_add(old, NULL))
		snprintf(err, err_len, "workers did not reach a quiescent point; old SPD kept");
	return 0;       /* leak rather than free what a worker may read */
}

/*
 * Idle (no request for SPD_COMPACT_IDLE_MS): rebuild the ACLs of lists that
 * carry an overlay or dead rules (sp.c). An IKE daemon's requests come tens
 * of ms apart; compacting after each would rebuild the ACL per change.
 */
#define SPD_COMPACT_IDLE_MS 250
static uint64_t last_request_tsc;

static void
spd_compact(void)
{
	struct gw_spd *fresh[2][2], *old[2][2];
	unsigned int mask;

	/* an open batch's rules are in gw.conf already, not yet in force: left to gw_cp_commit */
	if (spd_dirty != 0 || gw_tsc_since(rte_get_tsc_cycles(), last_request_tsc) <
			rte_get_tsc_hz() / 1000 * SPD_COMPACT_IDLE_MS ||
			nb_reclaim == RECLAIM_MAX)
		return;
	mask = gw_sp_fragmented(gw.spd);
	/* without prev: every list of mask gets an ACL over all its rules */
	if (mask == 0 || gw_sp_update(&gw, gw.conf, NULL, mask, fresh) != 0)
		return;
	for (int v6 = 0; v6 < 2; v6++)
		for (int dir = 0; dir < 2; dir++)
			old[v6][dir] = !(mask & GW_SPD_BIT(v6, dir)) ? NULL :
				__atomic_exchange_n(&gw.spd[v6][dir], fresh[v6][dir],
						    __ATOMIC_ACQ_REL);
	reclaim_add(old, NULL);
}

static bool
same_sp(const struct gw_sp_conf *a, const struct gw_sp_conf *b)
{
	return a->v6 == b->v6 && a->dir == b->dir && a->action == b->action &&
		(a->action != GW_SP_PROTECT || a->spi == b->spi) && a->pri == b->pri &&
		memcmp(&a->src, &b->src, sizeof(a->src)) == 0 && a->src_len == b->src_len &&
		memcmp(&a->dst, &b->dst, sizeof(a->dst)) == 0 && a->dst_len == b->dst_len &&
		a->proto_lo == b->proto_lo && a->proto_hi == b->proto_hi &&
		a->sport_lo == b->sport_lo && a->sport_hi == b->sport_hi &&
		a->dport_lo == b->dport_lo && a->dport_hi == b->dport_hi;
}

/*
 * SA slots whose SA is gone (deleted and freed): reused by the next adds,
 * so the table does not grow with every rekey.
 */
static uint32_t *free_slots;
static unsigned int nb_free, cap_free;

static void
slot_release(unsigned int i)
{
	if (nb_free == cap_free) {
		unsigned int ncap = cap_free != 0 ? 2 * cap_free : 256;
		uint32_t *n = realloc(free_slots, ncap * sizeof(*n));

		if (n == NULL)
			return;         /* the slot is lost, not reused: no harm */
		free_slots = n;
		cap_free = ncap;
	}
	free_slots[nb_free++] = i;
}

/*
 * A free slot below last (the parser's new SA, at last, moves there), or
 * last if none.
 */
static unsigned int
slot_take(struct gw_conf *c, unsigned int last)
{
	while (nb_free != 0) {
		unsigned int f = free_slots[--nb_free];

		if (f < last && c->sa[f].deleted && !gw.sa[f].active) {
			gw_conf_move_last_sa(c, f);
			return f;
		}
	}
	return last;
}

/*
 * Wait (2 s at most) until a deleted SA's slot is free, if one is queued
 * for reclamation; true if a slot is free.
 */
static bool
reclaim_sa_wait(void)
{
	uint64_t deadline = rte_get_tsc_cycles() + 2 * rte_get_tsc_hz();

	while (nb_free == 0 && !gw_quit && rte_get_tsc_cycles() < deadline) {
		unsigned int i;

		for (i = 0; i < nb_reclaim && reclaimq[i].sa == NULL; i++)
			;
		if (i == nb_reclaim)
			break;          /* no SA queued: nothing to wait for */
		reclaim_poll(true);
	}
	return nb_free != 0;
}


/*
 * ---- SP changes in batches ------------------------------------------------
 *
 * Adding an SP rule means rebuilding its list's rte_acl context, O(n log n)
 * in the rules of the list: once per rule, 100,000 tunnels would take
 * hours. So `sp` adds are applied to the configuration at once and their
 * list marked, and the lists are rebuilt and published once for the whole
 * batch (gw_cp_commit), before any answer of the batch goes out: a client
 * still reads OK only once its rule is in force (the control socket holds
 * the answers: ctrl.c). The batch ends when no client has another request
 * waiting, when it is as old as the last rebuild took (at least
 * CTRL_BATCH_MS: gw_cp_batch_due), or before any request that is not an
 * `sa`/`sp` add. If the rebuild fails, the batch's rules are taken out
 * again and their answers become ERR.
 */
#define CTRL_BATCH_MS 20
#define CTRL_BATCH_X 4

static unsigned int batch_sp0;          /* conf->nb_sp before the batch */
static uint64_t batch_t0;               /* when the batch began (ms) */
static uint64_t last_build_ms;          /* what the last commit took */

bool
gw_cp_batch_open(void)
{
	return spd_dirty != 0;
}

/* Rebuild and publish the lists the batch changed; 0 or -errno (err). */
int
gw_cp_commit(char *err, size_t err_len)
{
	uint64_t t0 = now_ms();
	int rc = 0;

	if (spd_dirty != 0) {
		cp_take();
		rc = spd_publish(gw.conf, spd_dirty, err, err_len);
		last_build_ms = now_ms() - t0;
		if (rc != 0)
			gw.conf->nb_sp = batch_sp0;     /* the batch only appended */
		spd_dirty = 0;
		cp_drop();
	}
	return rc;
}

/*
 * How long an open batch waits for more requests before it is committed:
 * a quarter of the last rebuild (2 to 250 ms). A pipelining client that the
 * scheduler holds back for a moment does not cost a rebuild for a handful
 * of rules; one that waits for each answer waits that much longer.
 */
int
gw_cp_dry_wait_ms(void)
{
	return (int)RTE_MIN(RTE_MAX(last_build_ms / 4, (uint64_t)2), (uint64_t)250);
}

/* The batch is old enough: as old as CTRL_BATCH_X rebuilds, or CTRL_BATCH_MS. */
bool
gw_cp_batch_due(void)
{
	return now_ms() - batch_t0 >= RTE_MAX(CTRL_BATCH_X * last_build_ms,
					      (uint64_t)CTRL_BATCH_MS);
}

/* Take back SA slot i of the live configuration (an add that failed). */
static void
sa_slot_undo(struct gw_conf *c, unsigned int i)
{
	gw_conf_del_sa(c, i);
	if (i == c->nb_sa - 1) {
		explicit_bzero(&c->sa[i], sizeof(c->sa[i]));
		c->nb_sa--;
	} else {
		slot_release(i);
	}
}

/*
 * `sa ...` or `sp ...`: one rule, parsed straight into the live
 * configuration (the parser leaves it as it was on error). An SA is up
 * when this returns; an SP rule joins the batch (*spd set).
 */
int
gw_cp_add(const char *line, bool *spd, char *err, size_t err_len)
{
	struct gw_conf *c = gw.conf;
	unsigned int old_sa = c->nb_sa, old_sp = c->nb_sp, slot;
	unsigned int old_rt = c->nb_rt, old_neigh = c->nb_neigh;
	int rc;

	c->ignored = 0;         /* this request's ignored keywords only */
	rc = gw_conf_parse_string(c, "<ctrl>", line, err, err_len);
	if (rc != 0)
		return rc;
	if (c->nb_rt != old_rt || c->nb_neigh != old_neigh) {
		c->nb_rt = old_rt;
		c->nb_neigh = old_neigh;
		snprintf(err, err_len, "an rt or neigh rule is a request of its own (rt ..., neigh ...)");
		return -ENOTSUP;
	}
	if (c->nb_sa > old_sa) {
		slot = slot_take(c, old_sa);
		/*
		 * Past the table's end while deleted SAs wait for their grace
		 * period (a worker descheduled on a busy host delays it by a
		 * time slice): wait for one rather than refuse, so that a
		 * delete then an add at --max-sa works (the parser counted
		 * live SAs only).
		 */
		if (slot == old_sa && old_sa >= gw.max_sa && reclaim_sa_wait())
			slot = slot_take(c, old_sa);
		c->sa[slot].line = ++ctrl_seq;
		rc = gw_sa_add(&gw, c, slot, -1, err, err_len);
		/* the keys now live in the session only (and in the reload's fingerprint) */
		if (rc == 0)
			gw_sa_fp_set(slot, &c->sa[slot]);
		explicit_bzero(c->sa[slot].cipher_key, sizeof(c->sa[slot].cipher_key));
		explicit_bzero(c->sa[slot].auth_key, sizeof(c->sa[slot].auth_key));
		explicit_bzero(&c->sa[slot].salt, sizeof(c->sa[slot].salt));
		if (rc != 0) {
			sa_slot_undo(c, slot);
			return rc;
		}
		gw_stats_sa_new(slot);
		GW_LOG(NOTICE, "control: added SA %s %u",
		       c->sa[slot].dir == GW_DIR_IN ? "in" : "out", c->sa[slot].spi);
		gw_event_note("add sa %s %u by control%s%s",
			      c->sa[slot].dir == GW_DIR_IN ? "in" : "out", c->sa[slot].spi,
			      c->sa[slot].owner != 0 ? " owner " : "",
			      c->sa[slot].owner != 0 ? gw_owner_name(c->sa[slot].owner) : "");
	}
	if (c->nb_sp > old_sp) {
		struct gw_sp_conf *sp = &c->sp[old_sp];

		sp->line = ++ctrl_seq;
		if (gw.max_sp != 0 && c->nb_sp > gw.max_sp) {
			snprintf(err, err_len, "the SPD is full (%u rules: --max-sp)", gw.max_sp);
			rc = -ENOSPC;
		} else if (sp->action == GW_SP_PROTECT) {
			const struct gw_sa_conf *sc = gw_conf_find_sa(c, sp->dir, sp->spi);
			const struct gw_sa *s = sc != NULL ? &gw.sa[sc - c->sa] : NULL;

			if (s == NULL || !s->active) {
				snprintf(err, err_len, "SA %u is not up", sp->spi);
				rc = -EINVAL;
			} else if (s->inner_v6 != sp->v6) {
				snprintf(err, err_len,
					 "SA %u carries %s (give the SA `inner ipv%c`)", sp->spi,
					 s->inner_v6 ? "IPv6" : "IPv4", sp->v6 ? '6' : '4');
				rc = -EINVAL;
			}
		}
		if (rc != 0) {
			c->nb_sp = old_sp;
			return rc;
		}
		if (spd_dirty == 0) {
			batch_sp0 = old_sp;
			batch_t0 = now_ms();
		}
		spd_dirty |= GW_SPD_BIT(sp->v6, sp->dir);
		*spd = true;
	}
	for (unsigned int k = 0; k < GW_IGN_MAX && err[0] == '\0'; k++)
		gw_conf_ignored_text(c, "<ctrl>", k, err, err_len);     /* OK warning: ... */
	return 0;
}

int
gw_cp_del_sa(uint8_t dir, uint32_t spi, char *err, size_t err_len)
{
	struct gw_conf *c = gw.conf;
	const struct gw_sa_conf *sc = gw_conf_find_sa(c, dir, spi);
	struct gw_sa *s;
	unsigned int i, n = 0;
	int rc;

	if (sc == NULL) {
		snprintf(err, err_len, "no SA %s %u", dir == GW_DIR_IN ? "in" : "out", spi);
		return -ENOENT;
	}
	i = (unsigned int)(sc - c->sa);
	s = &gw.sa[i];
	/* unpublish: the SP rules that protect with it, then the SAD entry */
	for (unsigned int j = 0; j < c->nb_sp; j++) {
		const struct gw_sp_conf *sp = &c->sp[j];

		if (sp->action == GW_SP_PROTECT && sp->dir == dir && sp->spi == spi)
			continue;
		c->sp[n] = *sp;
		if (c->sp[n].dir == dir && c->sp[n].spi_prev == spi)
			c->sp[n].spi_prev = 0;  /* a replaced rule's old SA: no longer accepted */
		n++;
	}
	c->nb_sp = n;
	gw_conf_del_sa(c, i);
	__atomic_store_n(&s->active, false, __ATOMIC_RELEASE);
	gw_sa_sad_del(&gw, s);
	if (s->ss.sa != NULL)   /* out of DPDK's telemetry a grace period before it is freed */
		rte_ipsec_telemetry_sa_del(s->ss.sa);
	rc = spd_publish(c, GW_SPD_BIT(0, dir) | GW_SPD_BIT(1, dir), err, err_len);
	if (rc == 0 && !reclaim_add(NULL, s))
		snprintf(err, err_len, "SA %u unpublished, but kept: a worker still held it", spi);
	GW_LOG(NOTICE, "control: deleted SA %s %u", dir == GW_DIR_IN ? "in" : "out", spi);
	gw_event_note("del sa %s %u by control", dir == GW_DIR_IN ? "in" : "out", spi);
	return rc;
}

/*
 * The one SP rule of text, parsed against the live configuration and taken
 * out of it again: 0 with *out, or -errno with err.
 */
static int
parse_one_sp(const char *text, const char *what, struct gw_sp_conf *out, char *err,
	     size_t err_len)
{
	struct gw_conf *c = gw.conf;
	unsigned int old_sp = c->nb_sp, old_sa = c->nb_sa, old_rt = c->nb_rt;
	unsigned int old_neigh = c->nb_neigh;
	int rc = gw_conf_parse_string(c, "<ctrl>", text, err, err_len);

	if (rc != 0)
		return rc;
	if (c->nb_sp == old_sp + 1 && c->nb_sa == old_sa && c->nb_rt == old_rt &&
	    c->nb_neigh == old_neigh) {
		*out = c->sp[old_sp];
		c->nb_sp = old_sp;
		return 0;
	}
	/* something else: the parser added it, take it back */
	for (unsigned int i = c->nb_sa; i-- > old_sa;)
		sa_slot_undo(c, i);
	c->nb_sp = old_sp;
	c->nb_rt = old_rt;
	c->nb_neigh = old_neigh;
	snprintf(err, err_len, "%s", what);
	return -EINVAL;
}

int
gw_cp_del_sp(const char *rule, char *err, size_t err_len)
{
	struct gw_conf *c = gw.conf;
	struct gw_sp_conf want;
	unsigned int j;
	int rc = parse_one_sp(rule, "del sp expects one sp rule", &want, err, err_len);

	if (rc != 0)
		return rc;
	for (j = 0; j < c->nb_sp && !same_sp(&c->sp[j], &want); j++)
		;
	if (j == c->nb_sp) {
		snprintf(err, err_len, "no such SP rule");
		return -ENOENT;
	}
	memmove(&c->sp[j], &c->sp[j + 1], (c->nb_sp - j - 1) * sizeof(c->sp[0]));
	c->nb_sp--;
	return spd_publish(c, GW_SPD_BIT(want.v6, want.dir), err, err_len);
}

/* The words after `with` into r: bypass | discard | protect SPI; false if not that. */
static bool
parse_new_action(const char *const *w, unsigned int n, struct gw_sp_conf *r)
{
	uint64_t spi;

	if (n == 1 && strcmp(w[0], "bypass") == 0) {
		r->action = GW_SP_BYPASS;
		r->spi = 0;
		return true;
	}
	if (n == 1 && strcmp(w[0], "discard") == 0) {
		r->action = GW_SP_DISCARD;
		r->spi = 0;
		return true;
	}
	if (n != 2 || strcmp(w[0], "protect") != 0 || gw_parse_u64(w[1], UINT32_MAX, &spi) != 0 ||
			spi == 0)
		return false;
	r->action = GW_SP_PROTECT;
	r->spi = (uint32_t)spi;
	return true;
}

/*
 * `replace sp <rule> with <action>`: one SPD rebuild and swap, so no packet
 * ever sees both rules or neither (the old way, add a higher-priority rule
 * then delete the old one, takes two). rule is the text from `sp` to before
 * `with`, action the words after it. The error messages never quote the
 * request: a misplaced `sa` line there would carry a key.
 */
int
gw_cp_replace_sp(const char *rule, const char *const *action, unsigned int n_action, char *err,
	       size_t err_len)
{
	struct gw_conf *c = gw.conf;
	struct gw_sp_conf want, was;
	unsigned int j;
	int rc = parse_one_sp(rule, "replace sp expects one sp rule before `with`", &want, err,
			      err_len);

	if (rc != 0)
		return rc;
	for (j = 0; j < c->nb_sp && !same_sp(&c->sp[j], &want); j++)
		;
	if (j == c->nb_sp) {
		snprintf(err, err_len, "no such SP rule");
		return -ENOENT;
	}
	if (!parse_new_action(action, n_action, &want)) {
		snprintf(err, err_len,
			 "after `with`: protect SPI (1 to 4294967295), bypass or discard");
		return -EINVAL;
	}
	if (want.action == GW_SP_PROTECT) {
		const struct gw_sa_conf *sc = gw_conf_find_sa(c, want.dir, want.spi);
		const struct gw_sa *s = sc != NULL ? &gw.sa[sc - c->sa] : NULL;

		if (s == NULL || !s->active) {
			snprintf(err, err_len, "SA %s %u is not up",
				 want.dir == GW_DIR_IN ? "in" : "out", want.spi);
			return -EINVAL;
		}
		if (s->inner_v6 != want.v6) {
			snprintf(err, err_len, "SA %u carries %s", want.spi,
				 s->inner_v6 ? "IPv6" : "IPv4");
			return -EINVAL;
		}
	}
	/* make before break inbound: what is in flight under the old SA still passes */
	was = c->sp[j];
	want.spi_prev = was.spi_prev;
	if (want.dir == GW_DIR_IN && was.action == GW_SP_PROTECT &&
			(want.action != GW_SP_PROTECT || want.spi != was.spi))
		want.spi_prev = was.spi;
	want.line = was.line;           /* same place among equal priorities */
	c->sp[j] = want;
	rc = spd_publish(c, GW_SPD_BIT(want.v6, want.dir), err, err_len);
	if (rc != 0)
		c->sp[j] = was;
	return rc;
}


/* The flush of an owner's SAs and SP rules (`flush owner`, ctrl_ike.c). */
int
gw_cp_flush_owner(int id, uint32_t *gone, unsigned int *nsa_out, unsigned int *nsp_out,
		  char *err, size_t err_len)
{
	struct gw_conf *c = gw.conf;
	unsigned int nsa = 0, nsp = 0, n = 0;
	int rc;

	/* the SP rules first: their SAs are still found by SPI */
	for (unsigned int j = 0; j < c->nb_sp; j++) {
		struct gw_sp_conf *sp = &c->sp[j];
		const struct gw_sa_conf *sc = sp->action == GW_SP_PROTECT ?
			gw_conf_find_sa(c, sp->dir, sp->spi) : NULL;

		if (sp->owner == id || (sc != NULL && sc->owner == id)) {
			nsp++;
			continue;
		}
		c->sp[n] = *sp;
		if (c->sp[n].spi_prev != 0) {
			sc = gw_conf_find_sa(c, c->sp[n].dir, c->sp[n].spi_prev);
			if (sc != NULL && sc->owner == id)
				c->sp[n].spi_prev = 0;
		}
		n++;
	}
	c->nb_sp = n;
	for (unsigned int i = 0; i < c->nb_sa; i++) {
		struct gw_sa *s = &gw.sa[i];

		if (c->sa[i].deleted || c->sa[i].owner != id)
			continue;
		gw_conf_del_sa(c, i);
		if (s->active) {
			__atomic_store_n(&s->active, false, __ATOMIC_RELEASE);
			gw_sa_sad_del(&gw, s);
		}
		gone[nsa++] = i;
		gw_event_note("del sa %s %u by flush owner %s", s->dir == GW_DIR_IN ? "in" : "out",
			      s->spi, gw_owner_name((uint8_t)id));
	}
	rc = spd_publish(c, GW_SPD_ALL, err, err_len);
	if (rc == 0)
		for (unsigned int k = 0; k < nsa; k++)
			if (!reclaim_add(NULL, &gw.sa[gone[k]]))
				snprintf(err, err_len, "SAs unpublished, but kept: a worker still "
					 "held them");
	*nsa_out = nsa;
	*nsp_out = nsp;
	return rc;
}

/* ---- for reload.c ---------------------------------------------------------- */

int
gw_cp_spd_publish(const struct gw_conf *c, char *err, size_t err_len)
{
	return spd_publish(c, GW_SPD_ALL, err, err_len);
}

bool
gw_cp_reclaim_sa(struct gw_sa *s)
{
	return reclaim_add(NULL, s);
}

/* ---- the threads' turns ------------------------------------------------------ */

void
gw_cp_begin(void)
{
	cp_take();              /* against reloads, telemetry and the samples */
	reclaim_poll(false);
	last_request_tsc = rte_get_tsc_cycles();
}

void
gw_cp_end(void)
{
	cp_drop();              /* kept while a batch is open */
}

void
gw_cp_idle(void)
{
	cp_take();              /* the SPD and the reclaim queue: reload.c too */
	reclaim_poll(false);
	spd_compact();          /* if idle long enough */
	cp_drop();
}

void
gw_cp_ctrl_thread(bool running)
{
	ctrl_thread = running;
}

/*
 * Without a control thread (--ctrl none) the management thread does its
 * housekeeping: events to the log, unpublished SP lists and SAs (a reload's)
 * freed once no worker can hold them.
 */
void
gw_cp_housekeeping(void)
{
	if (ctrl_thread)
		return;
	gw_evq_drain(NULL, NULL);
	gw_cp_lock();
	reclaim_poll(false);
	gw_cp_unlock();
}

void
gw_cp_fini(void)
{
	free(free_slots);
	free_slots = NULL;
	nb_free = cap_free = 0;
}
