/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec-gw control socket (--ctrl PATH): a Unix stream socket, mode 0600
 * (0660 and the group of --ctrl-group), served by one control thread.
 * Requests are text lines; each gets zero or more lines of answer and then
 * "OK" or "ERR <why>". The requests are the rows of ctrl_cmds[] below:
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
 *   stats                  the counters (since start or the last reset), rates
 *   show sa [in|out] [SPI] the SAs (all, or those of SPI) in detail: tunnel
 *                          end points, algorithm, cryptodev, sequence number
 *                          or window, counters, drops by reason, rates
 *   reset [sa in|out SPI | SPI]
 *                          counters back to 0: all (and the totals), or one
 *                          SA's, or both of an SPI's (never sequence numbers
 *                          or windows)
 *   reload                 read the -f file again (as SIGHUP does); ERR with
 *                          the reason when it is refused (nothing changed)
 *   json <request>         list, stats, show, version, reset, reload: the
 *                          answer lines are JSON
 *   mem                    memory of the SA table, per SA and in all (1.4)
 *   subscribe              answer OK, then keep the connection and send one
 *                          line per SA lifetime event until it closes:
 *                          "expire soft|hard in|out SPI packets|bytes LIMIT"
 *                          (the last request of its connection)
 *   hello, spi alloc, query sa, flush owner, bypass udp, natt udp, host
 *                          protocol 1.2, for IKE daemons (ctrl_ike.c)
 *
 * Framing: a request is exactly one line of printable ASCII (0x20-0x7e) and
 * tabs, at most CTRL_LINE_MAX - 1 bytes, ended by '\n'. Anything else is
 * refused whole with one ERR, and nothing of it is applied: a NUL or other
 * control byte (CR too), a byte above 0x7e, '#' or '\' (comment and line
 * continuation belong to configuration files), a longer line (its bytes are
 * dropped up to its '\n'), bytes after the last '\n' when the client ends
 * the connection. An empty line answers OK.
 *
 * Clients: up to CTRL_MAX_CLIENTS at once, served together by poll() over
 * non-blocking sockets; no client can make the thread wait. A client's next
 * request is read only once the previous answer is out, so one that does
 * not read its answers holds back only itself; one whose unsent answer or
 * event lines made no progress for CTRL_STALL_MS is dropped, and so is a
 * subscriber with more than CTRL_OUT_MAX bytes of events unsent. Writes
 * never raise SIGPIPE; a client that hangs up, or fails a write, is
 * dropped alone. The peer's credentials (SO_PEERCRED, SO_PEERGROUPS) are
 * checked on connect: root, the gateway's own user, or a member of the
 * --ctrl-group group; anyone else gets one ERR line and is closed. A client
 * that neither sent a byte nor had anything to receive for --ctrl-idle
 * seconds (gw_ctrl_idle_s) is closed without a word, so that clients that
 * connect and wait cannot hold every slot for good: never a subscriber,
 * never one whose answer is pending or held (ctrl_ike.h: the history).
 *
 * Keys: request bytes stay in the client's buffer (pages left out of core
 * dumps), which is wiped as each request is consumed; the words and
 * scratch copies of the request being served likewise; no stdio stream
 * ever holds them. Answers never contain key bytes, and an error quotes a
 * request's token only through gw_token_quote().
 *
 * Changes never stop the workers: SP lists are rebuilt and swapped, the SAD
 * is built for concurrent readers, and what a worker might still hold (an
 * old SP list, a deleted SA, its crypto ops) is freed only after every
 * worker has passed an RCU quiescent point and a poll with nothing in its
 * cryptodevs.
 */
#define _GNU_SOURCE             /* struct ucred, accept4() */

#include "gw_dp.h"
#include "ctrl_ike.h"
#include "ctrl_path.h"
#include "evq.h"
#include "gw_log.h"

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_lcore.h>

#ifndef SO_PEERGROUPS
#define SO_PEERGROUPS 59        /* Linux 4.13 */
#endif

#define CTRL_LINE_MAX 4096              /* one request and its '\n' */
#define CTRL_MAX_WORDS (CTRL_LINE_MAX / 2)
#define CTRL_MAX_CLIENTS 16
#define CTRL_MAX_SUBS 8                 /* of them subscribers */
#define CTRL_OUT_MAX (1u << 20)         /* unsent event bytes of a subscriber */
#define CTRL_STALL_MS 10000             /* unsent output that long: dropped */
#define CTRL_REQS_PER_TURN 16           /* then the other clients' turn */
#define CTRL_POLL_MS 20                 /* events and stop are seen this often */
/* The protocol's version (ctrl_ike.h: GW_CTRL_VERSION, its history). */
#define CTRL_VERSION GW_CTRL_VERSION

struct gw_ctrl_client {
	int fd;                 /* -1: no socket, answers go to sink */
	void (*sink)(void *arg, const char *p, size_t n);
	void *sink_arg;
	bool sub;               /* subscribed: takes no more requests */
	bool discard;           /* inside an over-long line: drop bytes up to its '\n' */
	bool eof;               /* the client ended its side */
	bool done;              /* close once the queued output is out */
	bool dead;              /* close now */
	char *out;              /* output not sent yet: out[out_off .. out_len) */
	size_t out_off, out_len, out_cap;
	uint64_t stall_ms;      /* since when the output has not moved; 0: it moves */
	uint64_t seen_ms;       /* its last byte in or out (--ctrl-idle) */
	struct held *held;      /* answers waiting for the SPD commit (spd_commit) */
	unsigned int nheld, cap_held;
	size_t in_len;
	char in[CTRL_LINE_MAX]; /* request bytes as they came, wiped when consumed */
};

/* The request being served: its words, and scratch for its rule text. */
struct ctrl_req {
	const char *line;       /* the whole request, NUL-terminated */
	unsigned int n;
	const char *w[CTRL_MAX_WORDS];
	unsigned int off[CTRL_MAX_WORDS];       /* where w[i] starts in line */
	bool subscribe;         /* set by `subscribe` */
	bool spd;               /* set by an `sp` add: its answer waits for the commit */
	bool json;              /* `json <request>`: JSON answer lines */
	char words[CTRL_LINE_MAX];
	char text[CTRL_LINE_MAX];
};

static struct gw_ctrl_client *clients[CTRL_MAX_CLIENTS];
static unsigned int nb_clients, nb_subs;
static struct ctrl_req *req;    /* one request at a time, in secret memory */

unsigned int gw_ctrl_idle_s = GW_CTRL_IDLE_S_DEFAULT;
static int listen_fd = -1;
static int ctrl_gid = -1;       /* --ctrl-group, -1 none */
static pthread_t ctrl_tid;
static volatile bool ctrl_stop;
static char sock_path[sizeof(((struct sockaddr_un *)0)->sun_path)];
/* "line" of rules added here: keeps their order, tells them from a file's (reload.c) */
static int ctrl_seq = GW_CTRL_LINE_BASE;

bool
gw_ctrl_origin(int line)
{
	return line >= GW_CTRL_LINE_BASE;
}

/*
 * Deferred reclamation: an unpublished SP list set or SA is freed once
 * every worker has passed a quiescent point after it (an SA also, after
 * that, a poll with nothing in its cryptodevs: its crypto ops are done),
 * checked at each request and every CTRL_POLL_MS, so that no request
 * waits for it. On a busy host a descheduled worker made every SP change
 * wait for its next time slice (tens of ms; an IKE daemon installing 1000
 * CHILD_SAs makes 2000). A deleted SA's slot is reused only once it is
 * freed (gw_sa_free clears s->sa). What is still queued at exit is left to
 * the process's end (the SAs to gw_sa_teardown).
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
 * The control-plane lock (mgmt.c: reloads, telemetry, rate samples) is
 * taken for each request, and kept while an SP batch is open (spd_commit):
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

	/* an open batch's rules are in gw.conf already, not yet in force: left to spd_commit */
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
 * batch (spd_commit), before any answer of the batch goes out: a client
 * still reads OK only once its rule is in force. The batch ends when no
 * client has another request waiting, when it is as old as the last
 * rebuild took (at least CTRL_BATCH_MS), or before any request that is not
 * an `sa`/`sp` add. Answers that follow a held one in a client's stream are
 * held too, so they keep their order. If the rebuild fails, the batch's
 * rules are taken out again and their answers become ERR.
 */
#define CTRL_BATCH_MS 20
#define CTRL_BATCH_X 4

struct held {
	char *text;             /* the answer lines */
	size_t len;
	bool spd;               /* an `sp` add: OK only if the commit works */
};

static unsigned int batch_sp0;          /* conf->nb_sp before the batch */
static uint64_t batch_t0;               /* when the batch began (ms) */
static uint64_t last_build_ms;          /* what the last commit took */

static uint64_t now_ms(void);
static void client_queue(struct gw_ctrl_client *c, const char *p, size_t n);

static void
release_held(struct gw_ctrl_client *c, int rc, const char *err)
{
	for (unsigned int k = 0; k < c->nheld; k++) {
		struct held *h = &c->held[k];

		if (h->spd && rc != 0) {
			char line[320];
			int n = snprintf(line, sizeof(line), "ERR %s\n", err);

			client_queue(c, line, (size_t)RTE_MIN(n, (int)sizeof(line) - 1));
		} else {
			client_queue(c, h->text, h->len);
		}
		free(h->text);
	}
	c->nheld = 0;
}

/* Rebuild and publish the changed lists; every held answer goes out (extra's too). */
static void
spd_commit(struct gw_ctrl_client *extra)
{
	char err[256] = "";
	uint64_t t0 = now_ms();
	bool listed = false;
	int rc = 0;

	if (spd_dirty != 0) {
		cp_take();
		rc = spd_publish(gw.conf, spd_dirty, err, sizeof(err));
		last_build_ms = now_ms() - t0;
		if (rc != 0)
			gw.conf->nb_sp = batch_sp0;     /* the batch only appended */
		spd_dirty = 0;
		cp_drop();
	}
	for (unsigned int i = 0; i < nb_clients; i++) {
		listed = listed || clients[i] == extra;
		release_held(clients[i], rc, err);
		/* the rebuild held everyone up, not the client: its output clock starts now */
		if (clients[i]->stall_ms != 0)
			clients[i]->stall_ms = now_ms();
	}
	if (extra != NULL && !listed)
		release_held(extra, rc, err);
}

/*
 * How long an open batch waits for more requests before it is committed:
 * a quarter of the last rebuild (2 to 250 ms). A pipelining client that the
 * scheduler holds back for a moment does not cost a rebuild for a handful
 * of rules; one that waits for each answer waits that much longer.
 */
static int
dry_wait_ms(void)
{
	return (int)RTE_MIN(RTE_MAX(last_build_ms / 4, (uint64_t)2), (uint64_t)250);
}

/* The batch is due: old enough, or nobody sent more for dry_wait_ms() (dry). */
static void
spd_commit_if_due(bool dry)
{
	bool held = false;

	for (unsigned int i = 0; i < nb_clients && !held; i++)
		held = clients[i]->nheld != 0;
	if (!held && spd_dirty == 0)
		return;
	if (dry || now_ms() - batch_t0 >= RTE_MAX(CTRL_BATCH_X * last_build_ms,
						  (uint64_t)CTRL_BATCH_MS))
		spd_commit(NULL);
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
static int
cmd_add(const char *line, bool *spd, char *err, size_t err_len)
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
		snprintf(err, err_len, "rt and neigh rules cannot change at run time");
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

static int
cmd_del_sa(uint8_t dir, uint32_t spi, char *err, size_t err_len)
{
	struct gw_conf *c = gw.conf;
	const struct gw_sa_conf *sc = gw_conf_find_sa(c, dir, spi);
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

static int
cmd_del_sp(const char *rule, char *err, size_t err_len)
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
static int
cmd_replace_sp(const char *rule, const char *const *action, unsigned int n_action, char *err,
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
			"\"mode\": \"%s\", \"inner\": \"ipv%c\", \"cryptodev\": \"%s\", "
			"\"owner\": \"%s\", \"origin\": \"%s\"}", n++ ? "," : "",
			s->dir == GW_DIR_IN ? "in" : "out",
			s->spi, gw.sa_cold[i].algo_name, s->mode == GW_MODE_TRANS ? "transport" :
			s->mode == GW_MODE_TUN4 ? "ipv4-tunnel" : "ipv6-tunnel",
			s->inner_v6 ? '6' : '4', gw.cdev[s->cdev_id].name,
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
		fprintf(out, "sa %s %u %s %s inner ipv%c cryptodev %s%s",
			s->dir == GW_DIR_IN ? "in" : "out", s->spi, gw.sa_cold[i].algo_name,
			s->mode == GW_MODE_TRANS  ? "transport"
			: s->mode == GW_MODE_TUN4 ? "ipv4-tunnel"
						  : "ipv6-tunnel",
			s->inner_v6 ? '6' : '4', gw.cdev[s->cdev_id].name,
			s->action == GW_SA_CPU_CRYPTO ? " cpu-crypto" :
			s->action == GW_SA_LOOKASIDE_PROTOCOL ? " lookaside-protocol" : "");
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
	return cmd_add(r->line + r->off[0], &r->spd, err, err_len);
}

static int
req_del_sa(struct ctrl_req *r, FILE *out, char *err, size_t err_len)
{
	uint64_t spi;
	bool in = strcmp(r->w[2], "in") == 0;

	(void)out;
	if ((!in && strcmp(r->w[2], "out") != 0) || gw_parse_u64(r->w[3], UINT32_MAX, &spi) != 0) {
		snprintf(err, err_len, "usage: del sa in|out SPI");
		return -EINVAL;
	}
	return cmd_del_sa(in ? GW_DIR_IN : GW_DIR_OUT, (uint32_t)spi, err, err_len);
}

static int
req_del_sp(struct ctrl_req *r, FILE *out, char *err, size_t err_len)
{
	(void)out;
	return cmd_del_sp(r->line + r->off[1], err, err_len);
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
	return cmd_replace_sp(r->text, &r->w[k + 1], r->n - k - 1, err, err_len);
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
	if (nb_subs == CTRL_MAX_SUBS) {
		snprintf(err, err_len, "%d subscribers already", CTRL_MAX_SUBS);
		return -EBUSY;
	}
	r->subscribe = true;
	return 0;
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
	{ "list", "", 0, 0, req_list },
	{ "stats", "", 0, 0, req_stats },
	{ "mem", "", 0, 0, req_mem },
	{ "show sa", "[[in|out] SPI]", 0, 2, req_show_sa },
	{ "reset", "[SPI | sa in|out SPI]", 0, 4, req_reset },
	{ "reload", "", 0, 0, req_reload },
	{ "subscribe", "", 0, 0, req_subscribe },
	{ "version", "", 0, 0, req_version },
	{ "hello", "", 0, 0, req_ike },
	{ "spi alloc", "MIN MAX [owner NAME]", 2, 4, req_ike },
	{ "query sa", "in|out SPI", 2, 2, req_ike },
	{ "flush owner", "NAME", 1, 1, req_ike },
	{ "bypass udp", "PORT [owner NAME] | PORT del", 1, 3, req_ike },
	{ "natt udp", "PORT [owner NAME] | PORT del", 1, 3, req_ike },
	{ "host", "", 0, 0, req_ike },
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
static int
dispatch(struct ctrl_req *r, FILE *out, char *err, size_t err_len)
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

/* ---- framing ------------------------------------------------------------- */

/* Why line[0..len) is not one well-formed request; NULL when it is. */
static const char *
frame_check(const char *line, size_t len, size_t *at)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char b = (unsigned char)line[i];

		*at = i;
		if (b == '\0')
			return "a NUL byte";
		if (b == '\t')
			continue;
		if (b < 0x20 || b == 0x7f)
			return "a control character";
		if (b > 0x7f)
			return "a byte that is not ASCII";
		if (b == '#')
			return "'#' (comments are for configuration files)";
		if (b == '\\')
			return "'\\' (line continuation is for configuration files)";
	}
	return NULL;
}

/* Split r->line into words (blanks: space, tab). */
static void
split_words(struct ctrl_req *r, size_t len)
{
	size_t i = 0;

	memcpy(r->words, r->line, len + 1);
	r->n = 0;
	while (i < len) {
		while (i < len && (r->words[i] == ' ' || r->words[i] == '\t'))
			i++;
		if (i == len)
			break;
		r->w[r->n] = r->words + i;
		r->off[r->n] = (unsigned int)i;
		r->n++;
		while (i < len && r->words[i] != ' ' && r->words[i] != '\t')
			i++;
		r->words[i++] = '\0';
	}
}

static void client_queue(struct gw_ctrl_client *c, const char *p, size_t n);
static void client_hold(struct gw_ctrl_client *c, const char *p, size_t n, bool spd);

/* Queue "ERR <why>\n", or a plain line (held behind held answers). */
static void
client_say(struct gw_ctrl_client *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
client_say(struct gw_ctrl_client *c, const char *fmt, ...)
{
	char line[600];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n > sizeof(line) - 2)
		n = sizeof(line) - 2;
	line[n++] = '\n';
	if (c->nheld != 0)
		client_hold(c, line, (size_t)n, false);       /* after the held ones */
	else
		client_queue(c, line, (size_t)n);
}

/* Keep an answer until the batch is committed (spd_commit). */
static void
client_hold(struct gw_ctrl_client *c, const char *p, size_t n, bool spd)
{
	struct held *h;

	if (c->nheld == c->cap_held) {
		unsigned int ncap = c->cap_held != 0 ? 2 * c->cap_held : 64;
		struct held *nh = realloc(c->held, ncap * sizeof(*nh));

		if (nh == NULL) {
			c->dead = true;
			return;
		}
		c->held = nh;
		c->cap_held = ncap;
	}
	h = &c->held[c->nheld];
	h->text = malloc(n);
	if (h->text == NULL) {
		c->dead = true;
		return;
	}
	memcpy(h->text, p, n);
	h->len = n;
	h->spd = spd;
	c->nheld++;
}

/* An `sa` or `sp` add, which may join the batch of SP changes. */
static bool
batchable(const struct ctrl_req *r)
{
	return r->n > 1 && (strcmp(r->w[0], "sa") == 0 || strcmp(r->w[0], "sp") == 0);
}

/* One complete line, line[len] == '\0' (its '\n' was there). */
static void
client_request(struct gw_ctrl_client *c, const char *line, size_t len)
{
	char err[512] = "";
	const char *why;
	char *buf = NULL;
	size_t at, size = 0;
	FILE *out;
	int rc;

	why = frame_check(line, len, &at);
	if (why != NULL) {
		client_say(c, "ERR request refused whole: %s at byte %zu", why, at + 1);
		return;
	}
	req->line = line;
	req->subscribe = false;
	req->spd = false;
	req->json = false;
	split_words(req, len);
	if (req->n != 0 && strcmp(req->w[0], "json") == 0) {
		/* `json <request>`: the same request, JSON answer lines where it has them */
		req->json = true;
		req->n--;
		memmove(&req->w[0], &req->w[1], req->n * sizeof(req->w[0]));
		memmove(&req->off[0], &req->off[1], req->n * sizeof(req->off[0]));
		if (req->n == 0) {
			client_say(c, "ERR usage: json <request>");
			goto wipe;
		}
	}
	if (req->n == 0) {
		client_say(c, "OK");
		goto wipe;
	}
	/* anything but an add sees (and waits for) the SP changes before it */
	if (!batchable(req))
		spd_commit(c);
	out = open_memstream(&buf, &size);
	if (out == NULL) {
		client_say(c, "ERR out of memory");
		goto wipe;
	}
	cp_take();              /* against reloads, telemetry and the samples (mgmt.c) */
	reclaim_poll(false);
	last_request_tsc = rte_get_tsc_cycles();
	rc = dispatch(req, out, err, sizeof(err));
	cp_drop();              /* kept while a batch is open */
	if (rc != 0)
		fprintf(out, "ERR %s\n", err);
	else if (err[0] != '\0')
		fprintf(out, "OK warning: %s\n", err);
	else
		fprintf(out, "OK\n");
	if (fclose(out) != 0) {
		free(buf);
		client_say(c, "ERR out of memory");
		goto wipe;
	}
	if (req->spd || c->nheld != 0)
		client_hold(c, buf, size, req->spd);
	else
		client_queue(c, buf, size);
	free(buf);
	if (req->subscribe) {
		c->sub = true;
		nb_subs++;
	}
wipe:
	explicit_bzero(req->words, len + 1);
	explicit_bzero(req->text, sizeof(req->text));
	req->line = NULL;
}

/* Drop the first n bytes of the input, wiping what they leave behind. */
static void
in_consume(struct gw_ctrl_client *c, size_t n)
{
	memmove(c->in, c->in + n, c->in_len - n);
	explicit_bzero(c->in + c->in_len - n, n);
	c->in_len -= n;
}

/* Serve the next complete request, if any; false when there is none. */
static bool
client_next(struct gw_ctrl_client *c)
{
	char *nl;

	if (c->discard) {
		nl = memchr(c->in, '\n', c->in_len);
		if (nl == NULL) {
			in_consume(c, c->in_len);
			if (c->eof)
				c->done = true;
			return false;
		}
		in_consume(c, (size_t)(nl + 1 - c->in));
		c->discard = false;
	}
	nl = memchr(c->in, '\n', c->in_len);
	if (nl == NULL) {
		if (c->in_len == sizeof(c->in)) {
			client_say(c, "ERR request refused whole: longer than %d bytes",
				   CTRL_LINE_MAX - 1);
			in_consume(c, c->in_len);
			c->discard = true;
			return true;
		}
		if (c->eof) {
			if (c->in_len != 0)
				client_say(c, "ERR request refused whole: no newline before "
					   "the end of the connection");
			in_consume(c, c->in_len);
			c->done = true;
		}
		return false;
	}
	*nl = '\0';
	client_request(c, c->in, (size_t)(nl - c->in));
	in_consume(c, (size_t)(nl + 1 - c->in));
	return true;
}

/* ---- clients ------------------------------------------------------------- */

static uint64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void
client_queue(struct gw_ctrl_client *c, const char *p, size_t n)
{
	char *grown;

	if (c->dead || n == 0)
		return;
	if (c->fd < 0) {
		c->sink(c->sink_arg, p, n);
		return;
	}
	if (c->sub && c->out_len - c->out_off + n > CTRL_OUT_MAX) {
		GW_LOG(WARNING, "control: a subscriber dropped: %zu bytes of events unread",
		       c->out_len - c->out_off);
		c->dead = true;
		return;
	}
	if (c->out_off != 0) {          /* keep the unsent part only */
		memmove(c->out, c->out + c->out_off, c->out_len - c->out_off);
		c->out_len -= c->out_off;
		c->out_off = 0;
	}
	if (c->out_len + n > c->out_cap) {      /* doubling: a batch's answers come at once */
		size_t cap = RTE_MAX(c->out_len + n, 2 * c->out_cap);

		grown = realloc(c->out, cap);
		if (grown == NULL) {
			c->dead = true;
			return;
		}
		c->out = grown;
		c->out_cap = cap;
	}
	memcpy(c->out + c->out_len, p, n);
	c->out_len += n;
}

/* Send what is queued, without waiting; -1 when the client is gone. */
static int
client_flush(struct gw_ctrl_client *c)
{
	while (c->out_off < c->out_len) {
		ssize_t n = send(c->fd, c->out + c->out_off, c->out_len - c->out_off,
				 MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n > 0) {
			c->out_off += (size_t)n;
			c->stall_ms = 0;
			c->seen_ms = now_ms();
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			if (c->stall_ms == 0)
				c->stall_ms = now_ms();
			return 0;
		}
		return -1;                      /* EPIPE, ECONNRESET...: gone */
	}
	free(c->out);
	c->out = NULL;
	c->out_off = c->out_len = c->out_cap = 0;
	c->stall_ms = 0;
	return 0;
}

static bool
client_pending(const struct gw_ctrl_client *c)
{
	return c->out_off < c->out_len;
}

/*
 * Serve up to CTRL_REQS_PER_TURN requests, each once the answer before is
 * out. Returns -1 (close it), 0 (waits for the client) or 1 (more to do).
 */
static int
client_work(struct gw_ctrl_client *c)
{
	for (unsigned int turn = 0; turn < CTRL_REQS_PER_TURN; turn++) {
		if (c->dead || (c->fd >= 0 && client_flush(c) < 0))
			return -1;
		if (client_pending(c))
			return 0;
		if (c->done && c->nheld != 0) {
			spd_commit(c);          /* its last answers, before it goes */
			continue;
		}
		if (c->done)
			return -1;
		if (c->sub)     /* a subscriber that talks or hangs up is dropped */
			return c->in_len != 0 || c->eof ? -1 : 0;
		if (!client_next(c)) {
			if (c->done && c->nheld != 0)
				continue;
			return c->done && !client_pending(c) ? -1 : 0;
		}
	}
	return 1;
}

/* Bytes from the socket into the input buffer; -1 when the client is gone. */
static int
client_read(struct gw_ctrl_client *c)
{
	while (!c->eof && c->in_len < sizeof(c->in)) {
		ssize_t n = recv(c->fd, c->in + c->in_len, sizeof(c->in) - c->in_len,
				 MSG_DONTWAIT);

		if (n > 0) {
			c->in_len += (size_t)n;
			c->seen_ms = now_ms();
			continue;
		}
		if (n == 0) {
			c->eof = true;
			break;
		}
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			break;
		return -1;
	}
	return 0;
}

static struct gw_ctrl_client *
client_new(int fd)
{
	struct gw_ctrl_client *c;

	if (req == NULL) {
		req = gw_secret_alloc(sizeof(*req));
		if (req == NULL)
			return NULL;
	}
	c = gw_secret_alloc(sizeof(*c));
	if (c == NULL)
		return NULL;
	c->fd = fd;
	c->seen_ms = now_ms();
	return c;
}

static void
client_free(struct gw_ctrl_client *c)
{
	if (c->fd >= 0)
		close(c->fd);
	if (c->sub)
		nb_subs--;
	free(c->out);
	for (unsigned int k = 0; k < c->nheld; k++)
		free(c->held[k].text);
	free(c->held);
	gw_secret_free(c, sizeof(*c));  /* wipes what is left of its requests */
}

/*
 * May this peer talk to us? Root, the gateway's own user, or a member of
 * --ctrl-group (its primary group or one of its others). The socket file's
 * mode is a second fence, not the only one.
 */
static bool
peer_allowed(int fd, struct ucred *cr)
{
	socklen_t len = sizeof(*cr);
	gid_t small[64], *groups = small;
	bool ok = false;

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, cr, &len) != 0 || len != sizeof(*cr))
		return false;
	if (cr->uid == 0 || cr->uid == geteuid())
		return true;
	if (ctrl_gid < 0)
		return false;
	if (cr->gid == (gid_t)ctrl_gid)
		return true;
	len = sizeof(small);
	if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups, &len) != 0) {
		if (errno != ERANGE || (groups = malloc(len)) == NULL)
			return false;
		if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups, &len) != 0)
			len = 0;
	}
	for (size_t i = 0; i < len / sizeof(gid_t); i++)
		ok = ok || groups[i] == (gid_t)ctrl_gid;
	if (groups != small)
		free(groups);
	return ok;
}

/*
 * Idle past --ctrl-idle: nothing came from it, nothing went to it, nothing
 * of its is pending (output, answers held for the SPD batch) and it is no
 * subscriber (`monitor`, charon's event stream: quiet until an SA expires).
 * A partial request that stopped coming counts as idle.
 */
static bool
client_idle(const struct gw_ctrl_client *c, uint64_t now)
{
	return gw_ctrl_idle_s != 0 && !c->sub && !client_pending(c) && c->nheld == 0 &&
		now > c->seen_ms && now - c->seen_ms >= (uint64_t)gw_ctrl_idle_s * 1000;
}

/* Send a line to a client we are about to close, without waiting. */
static void
refuse(int fd, const char *line)
{
	(void)send(fd, line, strlen(line), MSG_NOSIGNAL | MSG_DONTWAIT);
	close(fd);
}

static void
accept_clients(void)
{
	for (;;) {
		struct ucred cr = { .pid = 0 };
		int fd = accept4(listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		struct gw_ctrl_client *c;

		if (fd < 0)
			return;         /* EAGAIN: no more now; others: try next time */
		if (!peer_allowed(fd, &cr)) {
			GW_LOG(WARNING, "control: refused pid %d uid %u gid %u: not root, uid %u%s",
			       (int)cr.pid, (unsigned int)cr.uid, (unsigned int)cr.gid,
			       (unsigned int)geteuid(),
			       ctrl_gid >= 0 ? " or a member of the control group" : "");
			refuse(fd, "ERR permission denied\n");
			continue;
		}
		if (nb_clients == CTRL_MAX_CLIENTS) {
			refuse(fd, "ERR too many clients\n");
			continue;
		}
		c = client_new(fd);
		if (c == NULL) {
			refuse(fd, "ERR out of memory\n");
			continue;
		}
		clients[nb_clients++] = c;
	}
}

/* A lifetime event's line to every subscriber. */
static void
event_send(void *arg, const char *line, size_t len)
{
	(void)arg;
	for (unsigned int i = 0; i < nb_clients; i++)
		if (clients[i]->sub)
			client_queue(clients[i], line, len);
}

/* Send the queued events to every subscriber (and a line to the log). */
static void
events_flush(void)
{
	gw_evq_drain(event_send, NULL);
}

/*
 * Without a control thread (--ctrl none) the management thread does its
 * housekeeping: events to the log, unpublished SP lists and SAs (a reload's)
 * freed once no worker can hold them.
 */
void
gw_ctrl_housekeeping(void)
{
	if (listen_fd >= 0)
		return;
	events_flush();
	gw_cp_lock();
	reclaim_poll(false);
	gw_cp_unlock();
}

static void *
ctrl_main(void *arg)
{
	bool busy = false;

	(void)arg;
	while (!ctrl_stop) {
		struct pollfd pfd[1 + CTRL_MAX_CLIENTS];
		unsigned int n = nb_clients, i;
		uint64_t now;
		int np;

		events_flush();
		pfd[0].fd = listen_fd;
		pfd[0].events = POLLIN;
		pfd[0].revents = 0;
		for (i = 0; i < n; i++) {
			const struct gw_ctrl_client *c = clients[i];

			pfd[1 + i].fd = c->fd;
			pfd[1 + i].events = 0;
			pfd[1 + i].revents = 0;
			/* a client's next request is read once its last answer is out */
			if (!c->eof && c->in_len < sizeof(c->in) && (c->sub || !client_pending(c)))
				pfd[1 + i].events |= POLLIN;
			if (client_pending(c))
				pfd[1 + i].events |= POLLOUT;
		}
		cp_take();              /* the SPD and the reclaim queue: reload.c too */
		reclaim_poll(false);
		spd_compact();          /* if idle long enough */
		cp_drop();
		/* with a batch open, wait a little for more (else commit it) */
		np = poll(pfd, 1 + n, busy ? 0 : spd_dirty != 0 ? dry_wait_ms() : CTRL_POLL_MS);
		if (np < 0 && errno != EINTR)
			continue;
		busy = false;
		for (i = 0; i < n; i++) {
			struct gw_ctrl_client *c = clients[i];
			int rc = 0;

			if ((pfd[1 + i].revents & (POLLIN | POLLHUP | POLLERR)) != 0)
				rc = client_read(c);
			if (rc == 0)
				rc = client_work(c);
			/* now after the work: serving may take longer than a millisecond */
			now = now_ms();
			if (rc == 0 && c->stall_ms != 0 && now > c->stall_ms &&
					now - c->stall_ms > CTRL_STALL_MS) {
				GW_LOG(WARNING, "control: a client dropped: its output did not "
				       "move for %d s", CTRL_STALL_MS / 1000);
				rc = -1;
			}
			if (rc == 0 && client_idle(c, now)) {
				GW_LOG(NOTICE, "control: a client closed: idle for %u s (--ctrl-idle)",
				       gw_ctrl_idle_s);
				rc = -1;
			}
			if (rc < 0)
				c->dead = true;
			busy = busy || rc > 0;
		}
		/* dry: nothing came or could be sent for dry_wait_ms() */
		spd_commit_if_due(np == 0 && !busy);
		/* close the dead ones, keeping the others' order */
		for (unsigned int k = i = 0; i < n; i++) {
			struct gw_ctrl_client *c = clients[i];

			clients[i] = NULL;
			if (c->dead)
				client_free(c);
			else
				clients[k++] = c;
			nb_clients = k;
		}
		if (pfd[0].revents & POLLIN)
			accept_clients();
	}
	return NULL;
}

/*
 * The default socket's folder (ctrl_path.h): made with mode 0700, or 0750
 * and the group of --ctrl-group. One that exists must be a real folder of
 * this user that nobody else can write into (it may sit in /tmp).
 */
static int
ctrl_dir(const char *path, int gid)
{
	mode_t mode = gid >= 0 ? 0750 : 0700;
	char dir[sizeof(sock_path)], why[sizeof(sock_path) + 64];
	char *slash;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (slash == NULL || slash == dir)
		return 0;
	*slash = '\0';
	if (mkdir(dir, mode) != 0 && errno != EEXIST) {
		GW_LOG(ERR, "control socket folder %s: %s (give --ctrl PATH, or --ctrl none)", dir,
		       strerror(errno));
		return -errno;
	}
	if (gw_ctrl_dir_check(dir, geteuid(), false, why, sizeof(why)) != 0) {
		GW_LOG(ERR, "control socket folder %s: not a folder of uid %u that only it can "
		       "write to (%s); refused", dir, (unsigned int)geteuid(), why);
		return -EPERM;
	}
	if ((gid >= 0 && chown(dir, (uid_t)-1, (gid_t)gid) != 0) || chmod(dir, mode) != 0) {
		GW_LOG(ERR, "control socket folder %s: %s", dir, strerror(errno));
		return -errno;
	}
	return 0;
}

/* Is a gateway listening on path? (A socket file nobody answers on is left from a crash.) */
static bool
ctrl_live(const struct sockaddr_un *sa)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	bool live;

	if (fd < 0)
		return false;
	live = connect(fd, (const struct sockaddr *)sa, sizeof(*sa)) == 0 || errno == EAGAIN;
	close(fd);
	return live;
}

int
gw_ctrl_start(const char *path, int gid, bool own_dir)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct stat st;
	mode_t old;
	int rc;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		GW_LOG(ERR, "--ctrl %s: path too long", path);
		return -ENAMETOOLONG;
	}
	strcpy(sa.sun_path, path);
	if (own_dir && (rc = ctrl_dir(path, gid)) != 0)
		return rc;
	if (lstat(path, &st) == 0) {
		if (!S_ISSOCK(st.st_mode)) {
			GW_LOG(ERR, "--ctrl %s exists and is not a socket", path);
			return -EEXIST;
		}
		if (ctrl_live(&sa)) {
			GW_LOG(ERR, "control socket %s: another gateway listens there (give each "
			       "gateway its own EAL --file-prefix, or --ctrl PATH)", path);
			return -EADDRINUSE;
		}
		unlink(path);
	}
	strcpy(sock_path, path);
	ctrl_gid = gid;
	listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (listen_fd < 0)
		return -errno;
	old = umask(0177);
	rc = bind(listen_fd, (struct sockaddr *)&sa, sizeof(sa));
	umask(old);
	/* --ctrl-group: its members may connect (the peer check lets them in too) */
	if (rc == 0 && gid >= 0 && (chown(path, (uid_t)-1, (gid_t)gid) != 0 ||
			chmod(path, 0660) != 0))
		rc = -1;
	if (rc != 0 || listen(listen_fd, CTRL_MAX_CLIENTS) != 0) {
		rc = -errno;
		GW_LOG(ERR, "--ctrl %s: %s", path, strerror(errno));
		unlink(path);
		goto fail;
	}
	rc = rte_ctrl_thread_create(&ctrl_tid, "gw-ctrl", NULL, ctrl_main, NULL);
	if (rc != 0) {
		rc = -rc;
		unlink(path);
		goto fail;
	}
	return 0;
fail:
	close(listen_fd);
	listen_fd = -1;
	sock_path[0] = '\0';
	return rc;
}

void
gw_ctrl_stop(void)
{
	if (listen_fd < 0)
		return;
	ctrl_stop = true;
	pthread_join(ctrl_tid, NULL);
	spd_commit(NULL);
	events_flush();
	for (unsigned int i = 0; i < nb_clients; i++) {
		if (!clients[i]->dead)
			(void)client_flush(clients[i]);        /* one try, no waiting */
		client_free(clients[i]);
		clients[i] = NULL;
	}
	nb_clients = 0;
	close(listen_fd);
	listen_fd = -1;
	unlink(sock_path);
	gw_secret_free(req, sizeof(*req));
	req = NULL;
	free(free_slots);
	free_slots = NULL;
	nb_free = cap_free = 0;
}

/* ---- without a socket: tests and the fuzzer ------------------------------ */

struct gw_ctrl_client *
gw_ctrl_client_new(void (*sink)(void *arg, const char *p, size_t n), void *arg)
{
	struct gw_ctrl_client *c = client_new(-1);

	if (c != NULL) {
		c->sink = sink;
		c->sink_arg = arg;
	}
	return c;
}

bool
gw_ctrl_feed(struct gw_ctrl_client *c, const void *p, size_t n, bool eof)
{
	const char *b = p;

	for (;;) {
		size_t k = RTE_MIN(n, sizeof(c->in) - c->in_len);
		int rc;

		memcpy(c->in + c->in_len, b, k);
		c->in_len += k;
		b += k;
		n -= k;
		c->eof = eof && n == 0;
		do {
			rc = client_work(c);
			/* nothing more to serve now: the batch is done */
			if (rc == 0 && c->nheld != 0) {
				spd_commit(c);
				rc = 1;
			}
		} while (rc > 0);
		if (rc < 0)
			return false;
		if (n == 0)
			return true;
	}
}

void
gw_ctrl_client_free(struct gw_ctrl_client *c)
{
	if (c != NULL)
		client_free(c);
}

/* ---- for ctrl_ike.c (protocol 1.2) -------------------------------------- */

int
gw_ctrl_spd_publish(const struct gw_conf *c, char *err, size_t err_len)
{
	return spd_publish(c, GW_SPD_ALL, err, err_len);
}

bool
gw_ctrl_reclaim_sa(struct gw_sa *s)
{
	return reclaim_add(NULL, s);
}
