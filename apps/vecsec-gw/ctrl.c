/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec-gw control socket (--ctrl PATH): a Unix stream socket, mode 0600,
 * served by one control thread. Requests are text lines; each gets zero or
 * more lines of answer and then "OK" or "ERR <why>":
 *
 *   sa ... | sp ...        add a rule, ipsec-secgw syntax (an SA may say
 *                          `inner ipv4|ipv6` when no SP rule names it yet)
 *   del sa in|out SPI      remove an SA and the SP rules that protect with it
 *   del sp <sp rule>       remove the first SP rule equal to this one
 *   replace sp <sp rule> with protect SPI|bypass|discard
 *                          give the first SP rule equal to this one a new
 *                          action in one SPD swap (priority, selectors and
 *                          place kept); an inbound rule that protected with
 *                          SA OLD also accepts OLD until `del sa in OLD`
 *   version                "version MAJOR.MINOR" (see CTRL_VERSION)
 *   list                   SAs and SP rules
 *   stats                  the counters
 *   subscribe              answer OK, then keep the connection and send one
 *                          line per SA lifetime event until it closes:
 *                          "expire soft|hard in|out SPI packets|bytes LIMIT"
 *                          (the last request of its connection)
 *
 * Changes never stop the workers: SP lists are rebuilt and swapped, the SAD
 * is built for concurrent readers, and what a worker might still hold (an
 * old SP list, a deleted SA, its crypto ops) is freed only after every
 * worker has passed an RCU quiescent point and a poll with nothing in its
 * cryptodevs. Answers never contain key bytes.
 */
#include "gw_dp.h"
#include "ctrl_ike.h"

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_lcore.h>

#define CTRL_LINE_MAX 4096
/* The protocol's version (ctrl_ike.h: GW_CTRL_VERSION, its history). */
#define CTRL_VERSION GW_CTRL_VERSION
#define CTRL_MAX_SUBS 8

/* Lifetime events from the workers; the control thread sends them on. */
static struct gw_event evq[GW_EVQ_SIZE];
static unsigned int evq_head, evq_tail;        /* under evq_lock */
static uint64_t evq_lost;
static rte_spinlock_t evq_lock = RTE_SPINLOCK_INITIALIZER;
static int subs[CTRL_MAX_SUBS];
static unsigned int nb_subs;

static int listen_fd = -1;
static pthread_t ctrl_tid;
static volatile bool ctrl_stop;
static char sock_path[sizeof(((struct sockaddr_un *)0)->sun_path)];
static int ctrl_seq = 1000000;  /* "line" of rules added here: keeps their order */

void
gw_event_post(const struct gw_sa *s, bool hard, bool by_pkts, uint64_t limit)
{
	rte_spinlock_lock(&evq_lock);
	if (evq_tail - evq_head == GW_EVQ_SIZE) {
		evq_lost++;
	} else {
		struct gw_event *e = &evq[evq_tail % GW_EVQ_SIZE];

		e->hard = hard;
		e->dir = s->dir;
		e->by_pkts = by_pkts;
		e->spi = s->spi;
		e->limit = limit;
		evq_tail++;
	}
	rte_spinlock_unlock(&evq_lock);
}

static void
sub_drop(unsigned int i)
{
	close(subs[i]);
	subs[i] = subs[--nb_subs];
}

/* Send the queued events to every subscriber (and a line to stdout). */
static void
events_flush(void)
{
	for (;;) {
		struct gw_event e;
		char line[128];
		int len;
		bool have = false;

		rte_spinlock_lock(&evq_lock);
		if (evq_head != evq_tail) {
			e = evq[evq_head % GW_EVQ_SIZE];
			evq_head++;
			have = true;
		}
		rte_spinlock_unlock(&evq_lock);
		if (!have)
			return;
		len = snprintf(line, sizeof(line), "expire %s %s %u %s %" PRIu64 "\n",
			e.hard ? "hard" : "soft", e.dir == GW_DIR_IN ? "in" : "out", e.spi,
			e.by_pkts ? "packets" : "bytes", e.limit);
		printf("vecsec-gw: %s", line);
		fflush(stdout);
		for (unsigned int i = 0; i < nb_subs;) {
			if (send(subs[i], line, (size_t)len, MSG_NOSIGNAL | MSG_DONTWAIT) != len)
				sub_drop(i);    /* gone, or not reading: it loses its subscription */
			else
				i++;
		}
	}
}

/*
 * Deferred reclamation: an unpublished SP list set or SA is freed once
 * every worker has passed a quiescent point after it (an SA also, after
 * that, a poll with nothing in its cryptodevs: its crypto ops are done), checked at
 * each request and every 20 ms, so that no request waits for it. On a busy
 * host a descheduled worker made every SP change wait for its next time
 * slice (tens of ms; an IKE daemon installing 1000 CHILD_SAs makes 2000).
 * A deleted SA's slot is reused only once it is freed (gw_sa_free clears
 * s->sa). What is still queued at exit is left to the process's end (the
 * SAs to gw_sa_teardown).
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
		if (r->sa != NULL)
			gw_sa_free(r->sa);
		else
			gw_sp_free(r->spd);
		memmove(r, r + 1, (nb_reclaim - i - 1) * sizeof(*r));
		nb_reclaim--;
	}
}

/* Queue what was just unpublished; false if it must be leaked (queue stuck full). */
static bool
reclaim_add(struct gw_spd *spd[2][2], struct gw_sa *sa)
{
	struct reclaim *r;

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

/* Publish SP lists built from conf; the old ones are freed once no worker can read them. */
static int
spd_publish(const struct gw_conf *conf, char *err, size_t err_len)
{
	struct gw_spd *fresh[2][2], *old[2][2];
	/* on the published ACLs where the change is small (sp.c; spd_compact() later) */
	int rc = gw_sp_update(&gw, conf, gw.spd, fresh);

	if (rc != 0) {
		snprintf(err, err_len, "cannot build the SPD: %s", strerror(-rc));
		return rc;
	}
	for (int v6 = 0; v6 < 2; v6++)
		for (int dir = 0; dir < 2; dir++)
			old[v6][dir] = __atomic_exchange_n(&gw.spd[v6][dir], fresh[v6][dir],
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

	if (rte_get_tsc_cycles() - last_request_tsc <
			rte_get_tsc_hz() / 1000 * SPD_COMPACT_IDLE_MS ||
			!gw_sp_fragmented(gw.spd) || nb_reclaim == RECLAIM_MAX ||
			gw_sp_build(&gw, gw.conf, fresh) != 0)
		return;
	for (int v6 = 0; v6 < 2; v6++)
		for (int dir = 0; dir < 2; dir++)
			old[v6][dir] = __atomic_exchange_n(&gw.spd[v6][dir], fresh[v6][dir],
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

static struct gw_conf *
scratch_copy(void)
{
	struct gw_conf *c = malloc(sizeof(*c));

	if (c != NULL)
		memcpy(c, gw.conf, sizeof(*c));
	return c;
}

static void
scratch_free(struct gw_conf *c)
{
	if (c == NULL)
		return;
	gw_conf_wipe_keys(c);
	free(c);
}

/* `sa ...` or `sp ...`: one rule. */
static int
cmd_add(const char *line, char *err, size_t err_len)
{
	struct gw_conf *c = scratch_copy();
	unsigned int old_sa, old_sp, slot;
	int rc;

	if (c == NULL) {
		snprintf(err, err_len, "out of memory");
		return -ENOMEM;
	}
	old_sa = c->nb_sa;
	old_sp = c->nb_sp;
	rc = gw_conf_parse_string(c, "<ctrl>", line, err, err_len);
	if (rc != 0)
		goto out;
	if (c->nb_sa > old_sa) {
		/* reuse the slot of a deleted SA, if any */
		slot = old_sa;
		for (unsigned int i = 0; i < old_sa; i++)
			if (c->sa[i].deleted && !gw.sa[i].active && gw.sa[i].sa == NULL) {
				c->sa[i] = c->sa[old_sa];
				explicit_bzero(&c->sa[old_sa], sizeof(c->sa[old_sa]));
				c->nb_sa--;
				slot = i;
				break;
			}
		c->sa[slot].line = ++ctrl_seq;
		rc = gw_sa_add(&gw, c, slot, err, err_len);
		if (rc != 0)
			goto out;
		printf("vecsec-gw: control: added SA %s %u\n",
			c->sa[slot].dir == GW_DIR_IN ? "in" : "out", c->sa[slot].spi);
	}
	if (c->nb_sp > old_sp) {
		struct gw_sp_conf *sp = &c->sp[old_sp];

		sp->line = ++ctrl_seq;
		if (sp->action == GW_SP_PROTECT) {
			const struct gw_sa_conf *sc = gw_conf_find_sa(c, sp->dir, sp->spi);
			const struct gw_sa *s = sc != NULL ? &gw.sa[sc - c->sa] : NULL;

			if (s == NULL || !s->active) {
				snprintf(err, err_len, "SA %u is not up", sp->spi);
				rc = -EINVAL;
				goto out;
			}
			if (s->inner_v6 != sp->v6) {
				snprintf(err, err_len,
					 "SA %u carries %s (give the SA `inner ipv%c`)", sp->spi,
					 s->inner_v6 ? "IPv6" : "IPv4", sp->v6 ? '6' : '4');
				rc = -EINVAL;
				goto out;
			}
		}
		rc = spd_publish(c, err, err_len);
		if (rc != 0)
			goto out;
	}
	if (c->nb_rt != gw.conf->nb_rt || c->nb_neigh != gw.conf->nb_neigh) {
		snprintf(err, err_len, "rt and neigh rules cannot change at run time");
		rc = -ENOTSUP;
		goto out;
	}
	gw_conf_wipe_keys(c);
	memcpy(gw.conf, c, sizeof(*c));
out:
	scratch_free(c);
	return rc;
}

static int
cmd_del_sa(uint8_t dir, uint32_t spi, char *err, size_t err_len)
{
	struct gw_conf *c;
	const struct gw_sa_conf *sc = gw_conf_find_sa(gw.conf, dir, spi);
	struct gw_sa *s;
	unsigned int i, n = 0;
	int rc;
	bool reserved = gw_ike_spi_release(dir, spi);   /* `spi alloc` (1.2) */

	if (sc == NULL && reserved)
		return 0;
	if (sc == NULL) {
		snprintf(err, err_len, "no SA %s %u", dir == GW_DIR_IN ? "in" : "out", spi);
		return -ENOENT;
	}
	i = (unsigned int)(sc - gw.conf->sa);
	s = &gw.sa[i];
	c = scratch_copy();
	if (c == NULL) {
		snprintf(err, err_len, "out of memory");
		return -ENOMEM;
	}
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
	c->sa[i].deleted = true;
	__atomic_store_n(&s->active, false, __ATOMIC_RELEASE);
	gw_sa_sad_del(&gw, s);
	rc = spd_publish(c, err, err_len);
	if (rc == 0 && !reclaim_add(NULL, s))
		snprintf(err, err_len, "SA %u unpublished, but kept: a worker still held it", spi);
	memcpy(gw.conf, c, sizeof(*c));
	scratch_free(c);
	printf("vecsec-gw: control: deleted SA %s %u\n", dir == GW_DIR_IN ? "in" : "out", spi);
	return rc;
}

static int
cmd_del_sp(const char *rule, char *err, size_t err_len)
{
	struct gw_conf *c = scratch_copy();
	unsigned int old_sp;
	int rc;

	if (c == NULL) {
		snprintf(err, err_len, "out of memory");
		return -ENOMEM;
	}
	old_sp = c->nb_sp;
	rc = gw_conf_parse_string(c, "<ctrl>", rule, err, err_len);
	if (rc == 0 && (c->nb_sp != old_sp + 1 || c->nb_sa != gw.conf->nb_sa)) {
		snprintf(err, err_len, "del sp expects one sp rule");
		rc = -EINVAL;
	}
	if (rc == 0) {
		unsigned int j;

		for (j = 0; j < old_sp && !same_sp(&c->sp[j], &c->sp[old_sp]); j++)
			;
		if (j == old_sp) {
			snprintf(err, err_len, "no such SP rule");
			rc = -ENOENT;
		} else {
			memmove(&c->sp[j], &c->sp[j + 1], (old_sp - j) * sizeof(c->sp[0]));
			c->nb_sp = old_sp - 1;
			rc = spd_publish(c, err, err_len);
			if (rc == 0)
				memcpy(gw.conf, c, sizeof(*c));
		}
	}
	scratch_free(c);
	return rc;
}

/* The words after `with` (protect SPI, bypass, discard) into r; false if not that. */
static bool
parse_new_action(const char *p, struct gw_sp_conf *r)
{
	char w[16] = "", rest[2] = "";
	unsigned long spi;
	char *end;
	int n;

	n = sscanf(p, " %15s %1s", w, rest);
	if (n == 1 && strcmp(w, "bypass") == 0) {
		r->action = GW_SP_BYPASS;
		r->spi = 0;
		return true;
	}
	if (n == 1 && strcmp(w, "discard") == 0) {
		r->action = GW_SP_DISCARD;
		r->spi = 0;
		return true;
	}
	if (n < 1 || strcmp(w, "protect") != 0)
		return false;
	p = strstr(p, "protect") + strlen("protect");
	errno = 0;
	spi = strtoul(p, &end, 0);
	while (*end == ' ' || *end == '\t')
		end++;
	if (errno != 0 || end == p || *end != '\0' || spi == 0 || spi > UINT32_MAX ||
			strchr(p, '-') != NULL)
		return false;
	r->action = GW_SP_PROTECT;
	r->spi = (uint32_t)spi;
	return true;
}

/*
 * `replace sp <rule> with <action>`: one SPD rebuild and swap, so no packet
 * ever sees both rules or neither (the old way, add a higher-priority rule
 * then delete the old one, takes two). The error messages never quote the
 * request: a misplaced `sa` line there would carry a key.
 */
static int
cmd_replace_sp(const char *req, char *err, size_t err_len)
{
	const char *with = strstr(req, " with ");
	struct gw_conf *c;
	struct gw_sp_conf want;
	unsigned int old_sp, j;
	char *rule;
	int rc;

	if (with == NULL) {
		snprintf(err, err_len, "usage: replace sp <sp rule> with protect SPI|bypass|discard");
		return -EINVAL;
	}
	rule = strndup(req, (size_t)(with - req));
	c = scratch_copy();
	if (rule == NULL || c == NULL) {
		free(rule);
		scratch_free(c);
		snprintf(err, err_len, "out of memory");
		return -ENOMEM;
	}
	old_sp = c->nb_sp;
	rc = gw_conf_parse_string(c, "<ctrl>", rule, err, err_len);
	explicit_bzero(rule, strlen(rule));
	free(rule);
	if (rc == 0 && (c->nb_sp != old_sp + 1 || c->nb_sa != gw.conf->nb_sa)) {
		snprintf(err, err_len, "replace sp expects one sp rule before `with`");
		rc = -EINVAL;
	}
	if (rc != 0)
		goto out;
	want = c->sp[old_sp];
	c->nb_sp = old_sp;
	for (j = 0; j < old_sp && !same_sp(&c->sp[j], &want); j++)
		;
	if (j == old_sp) {
		snprintf(err, err_len, "no such SP rule");
		rc = -ENOENT;
		goto out;
	}
	if (!parse_new_action(with + strlen(" with "), &want)) {
		snprintf(err, err_len,
			 "after `with`: protect SPI (1 to 4294967295), bypass or discard");
		rc = -EINVAL;
		goto out;
	}
	if (want.action == GW_SP_PROTECT) {
		const struct gw_sa_conf *sc = gw_conf_find_sa(c, want.dir, want.spi);
		const struct gw_sa *s = sc != NULL ? &gw.sa[sc - c->sa] : NULL;

		if (s == NULL || !s->active) {
			snprintf(err, err_len, "SA %s %u is not up",
				 want.dir == GW_DIR_IN ? "in" : "out", want.spi);
			rc = -EINVAL;
			goto out;
		}
		if (s->inner_v6 != want.v6) {
			snprintf(err, err_len, "SA %u carries %s", want.spi,
				 s->inner_v6 ? "IPv6" : "IPv4");
			rc = -EINVAL;
			goto out;
		}
	}
	/* make before break inbound: what is in flight under the old SA still passes */
	want.spi_prev = c->sp[j].spi_prev;
	if (want.dir == GW_DIR_IN && c->sp[j].action == GW_SP_PROTECT &&
			(want.action != GW_SP_PROTECT || want.spi != c->sp[j].spi))
		want.spi_prev = c->sp[j].spi;
	want.line = c->sp[j].line;      /* same place among equal priorities */
	c->sp[j] = want;
	rc = spd_publish(c, err, err_len);
	if (rc == 0) {
		gw_conf_wipe_keys(c);
		memcpy(gw.conf, c, sizeof(*c));
	}
out:
	scratch_free(c);
	return rc;
}

static void
cmd_list(FILE *out)
{
	for (unsigned int i = 0; i < gw.nb_sa; i++) {
		const struct gw_sa *s = &gw.sa[i];

		if (!s->active)
			continue;
		fprintf(out, "sa %s %u %s %s inner ipv%c cryptodev %s%s",
			s->dir == GW_DIR_IN ? "in" : "out", s->spi, s->algo_name,
			s->mode == GW_MODE_TRANS  ? "transport"
			: s->mode == GW_MODE_TUN4 ? "ipv4-tunnel"
						  : "ipv6-tunnel",
			s->inner_v6 ? '6' : '4', gw.cdev[s->cdev_id].name,
			s->action == GW_SA_CPU_CRYPTO ? " cpu-crypto" :
			s->action == GW_SA_LOOKASIDE_PROTOCOL ? " lookaside-protocol" : "");
		if (s->owner != 0)
			fprintf(out, " owner %s", gw_owner_name(s->owner));
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

/* One request line; the answer goes to out, ending with OK or ERR. */
static void
handle(char *line, FILE *out, bool *subscribe)
{
	char err[512] = "";
	char w0[16] = "", w1[16] = "", w2[16] = "";
	int rc = 0, n;

	reclaim_poll(false);
	last_request_tsc = rte_get_tsc_cycles();
	n = sscanf(line, "%15s %15s %15s", w0, w1, w2);
	if (n <= 0) {
		fprintf(out, "OK\n");
		return;
	}
	if (strcmp(w0, "sa") == 0 || strcmp(w0, "sp") == 0) {
		rc = cmd_add(line, err, sizeof(err));
	} else if (strcmp(w0, "del") == 0 && strcmp(w1, "sa") == 0) {
		unsigned long spi;
		char *end;
		const char *p = line + (strstr(line, w2) - line) + strlen(w2);

		errno = 0;
		spi = strtoul(p, &end, 0);
		while (*end == ' ' || *end == '\t')
			end++;
		if ((strcmp(w2, "in") != 0 && strcmp(w2, "out") != 0) || errno != 0 ||
				end == p || *end != '\0' || spi > UINT32_MAX) {
			snprintf(err, sizeof(err), "usage: del sa in|out SPI");
			rc = -EINVAL;
		} else {
			rc = cmd_del_sa(w2[0] == 'i' ? GW_DIR_IN : GW_DIR_OUT, (uint32_t)spi, err,
				sizeof(err));
		}
	} else if (strcmp(w0, "del") == 0 && strcmp(w1, "sp") == 0) {
		rc = cmd_del_sp(strstr(line, "sp"), err, sizeof(err));
	} else if (strcmp(w0, "replace") == 0) {
		if (strcmp(w1, "sp") == 0) {
			rc = cmd_replace_sp(strstr(line, "sp"), err, sizeof(err));
		} else {
			snprintf(err, sizeof(err),
				 "usage: replace sp <sp rule> with protect SPI|bypass|discard");
			rc = -EINVAL;
		}
	} else if (strcmp(w0, "version") == 0 && n == 1) {
		fprintf(out, "version %s\n", CTRL_VERSION);
	} else if (strcmp(w0, "list") == 0) {
		cmd_list(out);
	} else if (strcmp(w0, "stats") == 0) {
		gw_stats_print(&gw, 0, out);
	} else if (gw_ctrl_ike(w0, w1, line, out, err, sizeof(err), &rc)) {
		/* 1.2: hello, spi alloc, query sa, flush owner, bypass/natt udp, host */
	} else if (strcmp(w0, "subscribe") == 0) {
		if (nb_subs == CTRL_MAX_SUBS) {
			snprintf(err, sizeof(err), "%d subscribers already", CTRL_MAX_SUBS);
			rc = -EBUSY;
		} else {
			*subscribe = true;
		}
	} else {
		/* quote only a word, never what could be key bytes */
		if (strspn(w0, "abcdefghijklmnopqrstuvwxyz-_") != strlen(w0))
			strcpy(w0, "?");
		snprintf(err, sizeof(err),
			 "unknown command '%s' (sa, sp, del sa, del sp, replace sp, list, stats, "
			 "subscribe, version, hello, spi alloc, query sa, flush owner, bypass udp, "
			 "natt udp, host)", w0);
		rc = -EINVAL;
	}
	if (rc != 0)
		fprintf(out, "ERR %s\n", err);
	else if (err[0] != '\0')
		fprintf(out, "OK warning: %s\n", err);
	else
		fprintf(out, "OK\n");
}

static void
serve(int fd)
{
	/* our own stdio buffer for requests, so that the key bytes in it get wiped */
	static char inbuf[CTRL_LINE_MAX];
	FILE *in = fdopen(dup(fd), "r");
	FILE *out = fdopen(fd, "w");
	char *line;
	bool subscribe = false;

	if (in == NULL || out == NULL) {
		if (in != NULL)
			fclose(in);
		if (out != NULL)
			fclose(out);
		else
			close(fd);
		return;
	}
	setvbuf(in, inbuf, _IOFBF, sizeof(inbuf));
	line = malloc(CTRL_LINE_MAX);
	while (line != NULL && !ctrl_stop && fgets(line, CTRL_LINE_MAX, in) != NULL) {
		size_t len = strlen(line);

		if (len == CTRL_LINE_MAX - 1 && line[len - 1] != '\n') {
			int ch;

			while ((ch = fgetc(in)) != EOF && ch != '\n')
				;
			fprintf(out, "ERR line longer than %d bytes\n", CTRL_LINE_MAX - 2);
		} else {
			if (len > 0 && line[len - 1] == '\n')
				line[--len] = '\0';
			handle(line, out, &subscribe);
		}
		explicit_bzero(line, CTRL_LINE_MAX);    /* may have held a key */
		fflush(out);
		if (subscribe) {
			int sfd = dup(fd);

			if (sfd >= 0)
				subs[nb_subs++] = sfd;
			break;
		}
	}
	free(line);
	fclose(in);
	fclose(out);
	explicit_bzero(inbuf, sizeof(inbuf));
}

static void *
ctrl_main(void *arg)
{
	(void)arg;
	while (!ctrl_stop) {
		struct pollfd pfd[1 + CTRL_MAX_SUBS];
		unsigned int ns = nb_subs;
		int fd;

		pfd[0].fd = listen_fd;
		pfd[0].events = POLLIN;
		for (unsigned int i = 0; i < ns; i++) {
			pfd[1 + i].fd = subs[i];
			pfd[1 + i].events = POLLIN;
			pfd[1 + i].revents = 0;
		}
		pfd[0].revents = 0;
		events_flush();
		reclaim_poll(false);
		if (poll(pfd, 1 + ns, 20) <= 0) {
			spd_compact();          /* if idle long enough */
			continue;
		}
		/* a subscriber that hangs up (or talks) is dropped */
		for (unsigned int i = ns; i-- > 0;)
			if (pfd[1 + i].revents != 0 && subs[i] == pfd[1 + i].fd)
				sub_drop(i);
		if (!(pfd[0].revents & POLLIN))
			continue;
		fd = accept(listen_fd, NULL, NULL);
		if (fd < 0)
			continue;
		serve(fd);
	}
	return NULL;
}

int
gw_ctrl_start(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct stat st;
	mode_t old;
	int rc;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "vecsec-gw: --ctrl %s: path too long\n", path);
		return -ENAMETOOLONG;
	}
	strcpy(sa.sun_path, path);
	strcpy(sock_path, path);
	if (lstat(path, &st) == 0) {
		if (!S_ISSOCK(st.st_mode)) {
			fprintf(stderr, "vecsec-gw: --ctrl %s exists and is not a socket\n", path);
			return -EEXIST;
		}
		unlink(path);
	}
	listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (listen_fd < 0)
		return -errno;
	old = umask(0177);
	rc = bind(listen_fd, (struct sockaddr *)&sa, sizeof(sa));
	umask(old);
	if (rc != 0 || listen(listen_fd, 4) != 0) {
		rc = -errno;
		fprintf(stderr, "vecsec-gw: --ctrl %s: %s\n", path, strerror(errno));
		close(listen_fd);
		listen_fd = -1;
		return rc;
	}
	rc = rte_ctrl_thread_create(&ctrl_tid, "gw-ctrl", NULL, ctrl_main, NULL);
	if (rc != 0) {
		close(listen_fd);
		listen_fd = -1;
		unlink(path);
		return -rc;
	}
	return 0;
}

void
gw_ctrl_stop(void)
{
	if (listen_fd < 0)
		return;
	ctrl_stop = true;
	pthread_join(ctrl_tid, NULL);
	events_flush();
	while (nb_subs != 0)
		sub_drop(nb_subs - 1);
	close(listen_fd);
	listen_fd = -1;
	unlink(sock_path);
}

/* ---- for ctrl_ike.c (protocol 1.2) -------------------------------------- */

int
gw_ctrl_spd_publish(const struct gw_conf *c, char *err, size_t err_len)
{
	return spd_publish(c, err, err_len);
}

bool
gw_ctrl_reclaim_sa(struct gw_sa *s)
{
	return reclaim_add(NULL, s);
}
