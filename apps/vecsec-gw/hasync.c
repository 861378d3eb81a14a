/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec-gw: sequence numbers and replay windows safe across a failover
 * (--cluster-sync, issue #30; docs/ha.md, "Sequence numbers and replay
 * windows across a failover").
 *
 * strongSwan's ha plugin syncs keys, never ESP sequence numbers or replay
 * windows. Two nodes therefore exchange *reservations* over a dedicated
 * UDP link (the one charon's sync uses, or one beside it: trusted, no
 * authentication, like charon's), and a node uses only what the partner
 * has acked:
 *
 *   outbound  for each SA of a segment active here, R: the highest number
 *             this node may send. The SA's hard packet limit (hard_pkts,
 *             which esp_out.h's life_admit() checks per burst anyway) is
 *             capped at the highest acked R; past it packets are dropped
 *             as ha_seq_wait. R is advertised a block (--cluster-sync-block,
 *             65536) ahead and again when half of it is used.
 *   inbound   for each SA of a segment active here, L: the highest number
 *             this node may accept; the window check refuses numbers above
 *             the acked L (ha_seq_wait). L = top + B, B adaptive: about the
 *             numbers of 100 ms at the rate offered (packets taken and
 *             held back), at least 64; when the SA reaches its limit, at
 *             once at least twice as large (a new or suddenly faster SA);
 *             halved at most per 100 ms; advertised again once a quarter
 *             of B is used.
 *
 * The partner stores the latest R and L of each SA, named by (direction,
 * SPI, destination address, family): reqids and slots differ between
 * nodes. On `segment +N` a node takes over: each outbound SA of segment N
 * sends from max(its own next, partner's R + 1); each inbound SA refuses
 * every number up to the partner's L (lib/esp's window floor). Since the
 * old node never sent past an acked R nor accepted past an acked L, and
 * the new node stored every value it acked, no (key, number) is sent
 * twice and no packet the old node accepted is accepted again. A node
 * never acks a reservation for an SA it carries itself (a segment moved
 * in the wrong order, +N before -N): the other stays at its last ack. The price
 * is inbound: the peer's packets numbered from the old node's top up to
 * L, sent after the failover, are refused (at most B).
 *
 * Liveness: a HELLO every 200 ms; a partner silent for 1 s is down. While
 * no partner is alive nothing is gated (a lone node must carry traffic);
 * a partner with a new epoch (a start) gets every current reservation
 * again, and gating resumes once all are acked. Before any message each
 * SA has an implicit grant (numbers up to first + 1023 outbound, up to 64
 * inbound) that both nodes assume, so that a new tunnel's first packets
 * wait for nothing; a node taking over an SA it never heard of jumps past
 * it.
 *
 * Messages (UDP, network byte order): a 16-byte header (magic "VSHA",
 * version 1, type, record count, the sender's epoch, the epoch it last
 * heard from the receiver) and records of 32 bytes (direction, family,
 * SPI, destination, 64-bit value: ESN-wide). Every field is checked;
 * anything else is counted as bad and ignored.
 *
 * All of it runs under the control-plane lock: the sync thread, the
 * control thread's `segment +N` and views, sa.c's bind and unbind.
 */
#include "hasync.h"
#include "evq.h"
#include "gw_dp.h"
#include "gw_log.h"
#include "ha.h"
#include "seqstate.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <rte_lcore.h>
#include <rte_random.h>
#include <rte_telemetry.h>

#include <vecsec/vecsec_esp.h>

_Static_assert(offsetof(struct gw_sa, ha_gate) < 2 * RTE_CACHE_LINE_SIZE,
	       "struct gw_sa: ha_gate must be in line 1 (read per burst)");
_Static_assert(offsetof(struct gw_sa, ha_in_lim) + sizeof(uint64_t) <= 3 * RTE_CACHE_LINE_SIZE,
	       "struct gw_sa: ha_in_lim must be in line 2");

#define HS_MAGIC 0x56534841u            /* "VSHA" */
#define HS_VERSION 1
#define HS_HELLO 1
#define HS_RES 2
#define HS_ACK 3
#define HS_GONE 4                       /* from the partner's node: its gateway is dead */
#define HS_HDR 16
#define HS_REC 32
#define HS_MAX_REC 40                   /* 16 + 40 * 32 = 1296 bytes a datagram */
#define HS_TICK_MS 5
#define HS_HELLO_MS 200
#define HS_DEAD_MS 1000
#define HS_RESEND_MS 100
#define HS_RATE_MS 100                  /* inbound block: the numbers of this long */
#define HS_BIN_MIN GW_HASYNC_IMPLICIT_IN
#define HS_BIN_MAX (1u << 22)           /* inbound block: at most (a takeover's loss too) */

struct hs_key {
	uint8_t dir;                    /* enum gw_dir */
	uint8_t fam;                    /* 4, 6; 0: transport (no address) */
	uint32_t spi;
	uint8_t dst[16];
};

/* what the partner reserved for one SA (its latest R or L) */
struct hs_ent {
	struct hs_key k;
	uint64_t val;
	int32_t slot;                   /* our SA of that key, -1: none */
	bool used;
};

/* one of our SAs under the sync */
struct hs_slot {
	bool bound;
	bool esn;
	struct hs_key k;
	int32_t ent;                    /* its partner entry, -1: none yet */
	uint64_t first;                 /* outbound: numbers are first + used_pkts */
	uint64_t last;                  /* the highest number the SA may use */
	uint64_t adv, acked;            /* own reservation: advertised, acked (absolute) */
	uint64_t sent_ms;               /* when adv was last sent */
	uint64_t b_in, rate_top, rate_ms, rate_held;    /* rate_ms 0: no baseline yet */
	uint64_t tick_top, tick_held, tick_ms;  /* inbound: at the last tick */
};

static struct {
	bool on;
	struct sockaddr_storage local, remote;
	socklen_t alen;
	uint32_t block;
	int fd;
	pthread_t tid;
	bool running;
	volatile bool stop;
	uint32_t epoch;                 /* ours, random per start, never 0 */
	uint32_t peer_epoch;            /* the partner's, 0: never heard */
	uint32_t peer_knows;            /* the epoch the partner last said it heard from us */
	bool alive, syncing;
	uint64_t heard_ms, hello_ms, up_ms;
	uint64_t tx_msgs, rx_msgs, tx_recs, rx_recs, acked_recs, bad, ups, downs, full_pushes;
	uint64_t store_full, takeovers, conflicts, gones;
	struct hs_slot *slots;
	unsigned int nb_slots;
	struct hs_ent *ents;            /* open addressing, a power of two */
	unsigned int ent_mask, nb_ents;
	uint8_t out[HS_HDR + HS_MAX_REC * HS_REC];
	unsigned int out_n;
	uint8_t out_type;
	gw_hasync_seq_move_fn seq_move;
} hs = { .fd = -1, .block = GW_HASYNC_BLOCK_DEFAULT };

void
gw_hasync_set_seq_move(gw_hasync_seq_move_fn fn)
{
	hs.seq_move = fn;
}

bool
gw_hasync_on(void)
{
	return hs.on;
}

static uint64_t
mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* ---- option --------------------------------------------------------------- */

/* "ADDR[:PORT]" or "[ADDR6]:PORT" / "ADDR6" into sa; false when not one */
static bool
parse_end(char *s, struct sockaddr_storage *sa, socklen_t *len)
{
	unsigned long port = GW_HASYNC_PORT;
	char *p = NULL, *end;

	memset(sa, 0, sizeof(*sa));
	if (s[0] == '[') {
		char *close = strchr(s, ']');

		if (close == NULL)
			return false;
		*close = '\0';
		if (close[1] == ':')
			p = close + 2;
		else if (close[1] != '\0')
			return false;
		s++;
	} else if (strchr(s, ':') != NULL && strchr(s, ':') == strrchr(s, ':')) {
		p = strchr(s, ':');     /* IPv4:PORT (an IPv6 address has several colons) */
		*p++ = '\0';
	}
	if (p != NULL) {
		if (*p < '0' || *p > '9')
			return false;
		errno = 0;
		port = strtoul(p, &end, 10);
		if (errno != 0 || *end != '\0' || port == 0 || port > 65535)
			return false;
	}
	if (strchr(s, ':') == NULL) {
		struct sockaddr_in *a = (struct sockaddr_in *)sa;

		if (inet_pton(AF_INET, s, &a->sin_addr) != 1)
			return false;
		a->sin_family = AF_INET;
		a->sin_port = htons((uint16_t)port);
		*len = sizeof(*a);
	} else {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)sa;

		if (inet_pton(AF_INET6, s, &a->sin6_addr) != 1)
			return false;
		a->sin6_family = AF_INET6;
		a->sin6_port = htons((uint16_t)port);
		*len = sizeof(*a);
	}
	return true;
}

int
gw_hasync_parse(const char *arg, char *err, size_t err_len)
{
	char buf[160], *comma;
	socklen_t l1 = 0, l2 = 0;

	if (strlen(arg) >= sizeof(buf))
		goto bad;
	strcpy(buf, arg);
	comma = strchr(buf, ',');
	if (comma == NULL || strchr(comma + 1, ',') != NULL)
		goto bad;
	*comma++ = '\0';
	if (!parse_end(buf, &hs.local, &l1) || !parse_end(comma, &hs.remote, &l2))
		goto bad;
	if (hs.local.ss_family != hs.remote.ss_family) {
		snprintf(err, err_len, "--cluster-sync %s: both ends of one family (IPv4 or IPv6)",
			 arg);
		return -1;
	}
	hs.alen = l1;
	hs.on = true;
	return 0;
bad:
	snprintf(err, err_len, "--cluster-sync %s: LOCAL_IP[:PORT],REMOTE_IP[:PORT] (IPv6 as "
		 "[ADDR]:PORT), port 1..65535, default %d", arg, GW_HASYNC_PORT);
	return -1;
}

int
gw_hasync_block_parse(const char *arg, char *err, size_t err_len)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(arg, &end, 10);
	if (arg[0] < '0' || arg[0] > '9' || errno != 0 || *end != '\0' || v < 256 ||
	    v > GW_HASYNC_BLOCK_MAX) {
		snprintf(err, err_len, "--cluster-sync-block %s: 256..%u", arg,
			 GW_HASYNC_BLOCK_MAX);
		return -1;
	}
	hs.block = (uint32_t)v;
	return 0;
}

/* ---- the partner's reservations, by SA key ------------------------------ */

static uint32_t
key_hash(const struct hs_key *k)
{
	uint32_t h = 2166136261u ^ k->spi ^ ((uint32_t)k->dir << 24) ^ ((uint32_t)k->fam << 16);

	for (unsigned int i = 0; i < sizeof(k->dst); i++)
		h = (h ^ k->dst[i]) * 16777619u;
	return h ^ (h >> 15);
}

static bool
key_eq(const struct hs_key *a, const struct hs_key *b)
{
	return a->dir == b->dir && a->fam == b->fam && a->spi == b->spi &&
		memcmp(a->dst, b->dst, sizeof(a->dst)) == 0;
}

/* The entry of k, added (val 0) if add and there is room; -1 if none. */
static int
ent_find(const struct hs_key *k, bool add)
{
	uint32_t h;

	if (hs.ents == NULL)
		return -1;
	for (h = key_hash(k) & hs.ent_mask; hs.ents[h].used; h = (h + 1) & hs.ent_mask)
		if (key_eq(&hs.ents[h].k, k))
			return (int)h;
	if (!add)
		return -1;
	/* at most three quarters full: bounded probes, whatever the partner sends */
	if ((hs.nb_ents + 1) * 4 > (hs.ent_mask + 1) * 3) {
		hs.store_full++;
		return -1;
	}
	hs.ents[h] = (struct hs_ent){ .k = *k, .val = 0, .slot = -1, .used = true };
	hs.nb_ents++;
	return (int)h;
}

/* ---- our SAs -------------------------------------------------------------- */

static bool
slots_grow(unsigned int slot)
{
	unsigned int n = RTE_MAX(gw.max_sa, slot + 1);
	struct hs_slot *s;

	if (slot < hs.nb_slots)
		return true;
	s = realloc(hs.slots, (size_t)n * sizeof(*s));
	if (s == NULL)
		return false;
	for (unsigned int i = hs.nb_slots; i < n; i++)
		s[i] = (struct hs_slot){ .ent = -1 };
	hs.slots = s;
	hs.nb_slots = n;
	if (hs.ents == NULL) {
		/* the store: room for 4 entries per SA slot, at least 4096 */
		unsigned int size = 1;

		while (size < RTE_MAX(4u * n, 4096u))
			size <<= 1;
		hs.ents = calloc(size, sizeof(*hs.ents));
		if (hs.ents == NULL)
			return false;
		hs.ent_mask = size - 1;
	}
	return true;
}

static bool
seg_active(const struct gw_sa *s)
{
	return s->ha_seg != 0 && s->ha_seg != GW_HA_SEG_PKT &&
		(gw_ha_active() & gw_ha_seg_bit(s->ha_seg)) != 0;
}

/* gating applies: a partner alive and synced */
static bool
gated(void)
{
	return hs.alive && !hs.syncing;
}

/* the implicit grant both nodes assume before any message */
static uint64_t
implicit(const struct hs_slot *b)
{
	return b->k.dir == GW_DIR_OUT ? GW_HASYNC_IMPLICIT_OUT : GW_HASYNC_IMPLICIT_IN;
}

/* The numbers the outbound SA in slot may use from its first: UINT64_MAX when not gated. */
static uint64_t
out_allow(unsigned int slot)
{
	const struct hs_slot *b;

	if (!hs.on || slot >= hs.nb_slots || !hs.slots[slot].bound ||
	    hs.slots[slot].k.dir != GW_DIR_OUT || !gated())
		return UINT64_MAX;
	b = &hs.slots[slot];
	return b->acked >= b->first ? b->acked - b->first + 1 : 0;
}

/* The SA's limits as they stand now (workers read them). */
static void
apply(unsigned int slot)
{
	struct hs_slot *b = &hs.slots[slot];
	struct gw_sa *s = &gw.sa[slot];

	if (b->k.dir == GW_DIR_OUT) {
		/* seqstate.c combines it with its own reservation into hard_pkts */
		__atomic_store_n(&s->ha_out_allow, out_allow(slot), __ATOMIC_RELAXED);
		gw_seq_state_recap(s);
		return;
	}
	if (s->rw != NULL)
		__atomic_store_n(&s->ha_in_lim, gated() ? b->acked : UINT64_MAX, __ATOMIC_RELAXED);
}

void
gw_hasync_sa_bind(struct gw_sa *s, const struct gw_sa_conf *c)
{
	struct hs_slot *b;
	uint64_t first;

	if (!hs.on)
		return;
	gw_hasync_sa_unbind(s->idx);
	s->ha_gate = 0;
	if (s->ha_seg == 0 || s->ha_seg == GW_HA_SEG_PKT || !slots_grow(s->idx))
		return;         /* not the cluster's (transport SAs: not covered, docs/ha.md) */
	b = &hs.slots[s->idx];
	*b = (struct hs_slot){ .bound = true, .ent = -1 };
	b->k.dir = c->dir;
	b->k.spi = c->spi;
	b->k.fam = c->mode == GW_MODE_TUN6 ? 6 : 4;
	memcpy(b->k.dst, c->dst.b, c->mode == GW_MODE_TUN6 ? 16 : 4);
	b->esn = c->esn || gw.esn;
	b->last = b->esn ? UINT64_MAX : UINT32_MAX - 1;
	first = gw_seq_state_first(s->idx, c);
	b->first = first > 1 ? first : 1;
	b->acked = implicit(b);
	b->b_in = HS_BIN_MIN;
	b->ent = ent_find(&b->k, true);
	if (b->ent >= 0)
		hs.ents[b->ent].slot = (int32_t)s->idx;
	s->ha_gate = 1;
	if (c->dir == GW_DIR_IN)
		s->ha_in_lim = UINT64_MAX;      /* set once its window exists (sa_ready) */
	else
		s->ha_out_allow = UINT64_MAX;   /* set once its counter exists (sa_ready) */
}

/* Move the outbound SA's counter so that its next number is next (sa.c does it). */
static void
out_jump(struct gw_dp *dp, struct gw_sa *s, const struct gw_sa_conf *c, struct hs_slot *b,
	 uint64_t next)
{
	int rc = c == NULL ? -ENOENT : hs.seq_move == NULL ? -ENOTSUP :
		 hs.seq_move(dp, s, c, b->first, next);

	if (rc != 0) {
		/* it cannot move: it sends nothing more rather than repeat a number */
		GW_LOG(ERR, "SA out %u: cannot move its sequence number to %" PRIu64 " (%s): "
		       "it sends nothing", s->spi, next, strerror(-rc));
		b->acked = b->first - 1;
		__atomic_store_n(&s->used_pkts, s->hard_real != 0 ? s->hard_real : UINT64_MAX / 2,
				 __ATOMIC_RELAXED);
	}
}

static void take_one(unsigned int i, const struct gw_sa_conf *c, uint64_t theirs);

void
gw_hasync_sa_ready(struct gw_dp *dp, struct gw_sa *s, const struct gw_sa_conf *c)
{
	struct hs_slot *b;

	if (!hs.on || s->idx >= hs.nb_slots || !hs.slots[s->idx].bound)
		return;
	b = &hs.slots[s->idx];
	if (b->k.dir == GW_DIR_OUT) {
		/*
		 * The cap needs hard_real (the SA's own limit) and a number used
		 * when nothing may be sent: an SA starting above the implicit
		 * grant (--seq-state moved its first number) gives up its first
		 * number, so that a cap of 1 holds everything back.
		 */
		if (s->hard_real == 0)
			s->hard_real = s->hard_pkts;
		if (b->acked < b->first && s->used_pkts == 0)
			out_jump(dp, s, c, b, b->first + 1);
	}
	if (seg_active(s) && b->ent >= 0 && hs.ents[b->ent].val != 0) {
		/*
		 * installed where its segment is already carried (the partner's
		 * synced SA, a node started with its segments active): past what
		 * the partner reserved, as at a takeover. An SA the partner never
		 * advertised starts as it is: the implicit grant is this node's.
		 */
		take_one(s->idx, c, hs.ents[b->ent].val);
		return;
	}
	apply(s->idx);
}

void
gw_hasync_sa_unbind(unsigned int slot)
{
	struct hs_slot *b;

	if (!hs.on || slot >= hs.nb_slots || !hs.slots[slot].bound)
		return;
	b = &hs.slots[slot];
	if (b->ent >= 0 && hs.ents[b->ent].slot == (int32_t)slot)
		hs.ents[b->ent].slot = -1;      /* the partner's value stays (it may come back) */
	*b = (struct hs_slot){ .ent = -1 };
}

/* ---- takeover ------------------------------------------------------------- */

/*
 * SA slot i (not carried here yet, or just installed) takes over from the
 * partner, whose latest value is theirs: outbound, its next number past
 * it; inbound, every number up to it refused.
 */
static void
take_one(unsigned int i, const struct gw_sa_conf *c, uint64_t theirs)
{
	struct hs_slot *b = &hs.slots[i];
	struct gw_sa *s = &gw.sa[i];

	if (b->k.dir == GW_DIR_OUT) {
		uint64_t next = b->first + __atomic_load_n(&s->used_pkts, __ATOMIC_RELAXED);

		if (theirs >= next) {
			GW_LOG(NOTICE, "SA out %u: takeover, next sequence number %" PRIu64
			       " (partner reserved up to %" PRIu64 ")", s->spi, theirs + 1, theirs);
			out_jump(&gw, s, c, b, theirs == UINT64_MAX ? theirs : theirs + 1);
		}
		b->adv = 0;     /* advertised again from the new number */
	} else if (s->rw != NULL) {
		/*
		 * the rate starts anew from the floor: the jump to it is not
		 * traffic (measured from 0, a long-lived SA's whole history would
		 * count as 100 ms of it, and B_in, what the next takeover
		 * refuses, would be that large)
		 */
		b->b_in = HS_BIN_MIN;
		b->rate_ms = b->tick_ms = 0;
		/*
		 * the segment is inactive here (or the SA not active yet): no
		 * worker touches the window (ha_dp.h drops its packets before
		 * the SAD); the lock anyway
		 */
		if (s->rw_shared)
			rte_rwlock_write_lock(&s->rw_lock);
		(void)vecsec_esp_replay_floor(s->rw, b->esn || theirs <= UINT32_MAX ? theirs :
					      UINT32_MAX);
		if (s->rw_shared)
			rte_rwlock_write_unlock(&s->rw_lock);
		GW_LOG(NOTICE, "SA in %u: takeover, numbers up to %" PRIu64 " refused", s->spi,
		       theirs);
		b->adv = 0;
	}
	apply(i);
}

void
gw_hasync_takeover(unsigned int seg)
{
	if (!hs.on)
		return;
	hs.takeovers++;
	for (unsigned int i = 0; i < hs.nb_slots && i < gw.nb_sa; i++) {
		struct hs_slot *b = &hs.slots[i];
		struct gw_sa *s = &gw.sa[i];

		if (!b->bound || s->ha_seg != seg || !s->active || seg_active(s))
			continue;
		/* the partner's latest value; an SA never heard of: the implicit grant */
		take_one(i, gw.conf != NULL && i < gw.conf->nb_sa ? &gw.conf->sa[i] : NULL,
			 b->ent >= 0 && hs.ents[b->ent].val > implicit(b) ? hs.ents[b->ent].val :
			 implicit(b));
	}
}

/* ---- messages ------------------------------------------------------------- */

static void
put32(uint8_t *p, uint32_t v)
{
	v = htonl(v);
	memcpy(p, &v, 4);
}

static uint32_t
get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return ntohl(v);
}

static void
put64(uint8_t *p, uint64_t v)
{
	put32(p, (uint32_t)(v >> 32));
	put32(p + 4, (uint32_t)v);
}

static uint64_t
get64(const uint8_t *p)
{
	return (uint64_t)get32(p) << 32 | get32(p + 4);
}

static void
flush(void)
{
	uint8_t *h = hs.out;
	size_t len = HS_HDR + (size_t)hs.out_n * HS_REC;

	if (hs.out_type == 0)
		return;
	put32(h, HS_MAGIC);
	h[4] = HS_VERSION;
	h[5] = hs.out_type;
	h[6] = (uint8_t)(hs.out_n >> 8);
	h[7] = (uint8_t)hs.out_n;
	put32(h + 8, hs.epoch);
	put32(h + 12, hs.peer_epoch);
	if (sendto(hs.fd, hs.out, len, 0, (const struct sockaddr *)&hs.remote, hs.alen) ==
	    (ssize_t)len) {
		hs.tx_msgs++;
		hs.tx_recs += hs.out_n;
	}
	hs.out_type = 0;
	hs.out_n = 0;
}

static void
rec_add(uint8_t type, const struct hs_key *k, uint64_t val)
{
	uint8_t *r;

	if (hs.out_type != type || hs.out_n == HS_MAX_REC)
		flush();
	hs.out_type = type;
	r = hs.out + HS_HDR + (size_t)hs.out_n++ * HS_REC;
	memset(r, 0, HS_REC);
	r[0] = k->dir;
	r[1] = k->fam;
	put32(r + 4, k->spi);
	memcpy(r + 8, k->dst, 16);
	put64(r + 24, val);
}

static void
partner_up(uint32_t epoch, uint64_t now)
{
	bool was = hs.alive;

	hs.peer_epoch = epoch;
	hs.alive = true;
	hs.syncing = true;
	hs.up_ms = now;
	hs.ups++;
	hs.full_pushes++;
	/* a new partner knows nothing: everything is pushed again, acked anew */
	for (unsigned int i = 0; i < hs.nb_slots; i++) {
		struct hs_slot *b = &hs.slots[i];

		if (!b->bound)
			continue;
		b->adv = 0;
		b->acked = implicit(b);
		apply(i);       /* ungated until the push is acked */
	}
	gw_event_note("partner up epoch %u%s", epoch, was ? " restarted" : "");
	GW_LOG(NOTICE, "cluster sync: partner up (epoch %u%s): pushing every reservation",
	       epoch, was ? ", restarted" : "");
}

static void
partner_down(const char *why)
{
	hs.alive = false;
	hs.syncing = false;
	hs.downs++;
	gw_event_note("partner down epoch %u", hs.peer_epoch);
	GW_LOG(WARNING, "cluster sync: partner down (%s): nothing gated until it is back", why);
	for (unsigned int i = 0; i < hs.nb_slots; i++)
		if (hs.slots[i].bound)
			apply(i);
}

/* A record's key; false when its fields are not one */
static bool
rec_key(const uint8_t *r, struct hs_key *k)
{
	memset(k, 0, sizeof(*k));
	k->dir = r[0];
	k->fam = r[1];
	k->spi = get32(r + 4);
	memcpy(k->dst, r + 8, 16);
	if (k->dir > GW_DIR_OUT || (k->fam != 4 && k->fam != 6) || r[2] != 0 || r[3] != 0 ||
	    k->spi == 0)
		return false;
	if (k->fam == 4)
		for (unsigned int i = 4; i < 16; i++)
			if (k->dst[i] != 0)
				return false;
	return true;
}

static void
on_res(const uint8_t *rec, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		const uint8_t *r = rec + (size_t)i * HS_REC;
		struct hs_key k;
		uint64_t v = get64(r + 24);
		int e;

		if (!rec_key(r, &k)) {
			hs.bad++;
			continue;
		}
		e = ent_find(&k, true);
		if (e < 0)
			continue;       /* not stored: not acked */
		if (v > hs.ents[e].val)
			hs.ents[e].val = v;
		hs.rx_recs++;
		if (hs.ents[e].slot >= 0 && hs.slots[hs.ents[e].slot].bound &&
		    gw.sa[hs.ents[e].slot].active && seg_active(&gw.sa[hs.ents[e].slot])) {
			/*
			 * this node carries the SA too (a segment moved in the wrong
			 * order: +N here before -N there): it took over past what
			 * it had stored, so the other node may go no further than
			 * its last ack; kept (a later takeover jumps past it), not
			 * acked
			 */
			hs.conflicts++;
			continue;
		}
		rec_add(HS_ACK, &k, v);
	}
	flush();
}

static void
on_ack(const uint8_t *rec, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		const uint8_t *r = rec + (size_t)i * HS_REC;
		struct hs_key k;
		uint64_t v = get64(r + 24);
		struct hs_slot *b;
		int e;

		if (!rec_key(r, &k)) {
			hs.bad++;
			continue;
		}
		e = ent_find(&k, false);
		if (e < 0 || hs.ents[e].slot < 0)
			continue;       /* an SA gone since */
		b = &hs.slots[hs.ents[e].slot];
		if (!b->bound || !key_eq(&b->k, &k) || v > b->adv)
			continue;
		if (v > b->acked) {
			b->acked = v;
			hs.acked_recs++;
			apply((unsigned int)hs.ents[e].slot);
		}
	}
}

/* from is REMOTE: family, port and address (nothing else of the sockaddr) */
static bool
from_remote(const struct sockaddr_storage *from)
{
	if (from->ss_family != hs.remote.ss_family)
		return false;
	if (from->ss_family == AF_INET) {
		const struct sockaddr_in *a = (const struct sockaddr_in *)from;
		const struct sockaddr_in *r = (const struct sockaddr_in *)&hs.remote;

		return a->sin_port == r->sin_port && a->sin_addr.s_addr == r->sin_addr.s_addr;
	} else {
		const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)from;
		const struct sockaddr_in6 *r = (const struct sockaddr_in6 *)&hs.remote;

		return a->sin6_port == r->sin6_port &&
			memcmp(&a->sin6_addr, &r->sin6_addr, sizeof(r->sin6_addr)) == 0;
	}
}

static void
on_datagram(const uint8_t *p, size_t len, const struct sockaddr_storage *from, uint64_t now)
{
	unsigned int n;
	uint32_t epoch;

	if (!from_remote(from) || len < HS_HDR || get32(p) != HS_MAGIC ||
	    p[4] != HS_VERSION) {
		hs.bad++;
		return;
	}
	n = (unsigned int)p[6] << 8 | p[7];
	epoch = get32(p + 8);
	if (epoch == 0 || n > HS_MAX_REC || len != HS_HDR + (size_t)n * HS_REC ||
	    p[5] < HS_HELLO || p[5] > HS_GONE ||
	    ((p[5] == HS_HELLO || p[5] == HS_GONE) && n != 0)) {
		hs.bad++;
		return;
	}
	hs.rx_msgs++;
	if (p[5] == HS_GONE) {
		/*
		 * kernel-vecsec on the partner's node, from the partner's own
		 * address and port (free only once that gateway is gone), about
		 * the epoch it last saw: the partner is down now, not after
		 * HS_DEAD_MS of silence (the node hands its segments over at
		 * the same moment, and this node would hold their packets back
		 * for acks that cannot come). Another epoch: stale, ignored
		 */
		hs.gones++;
		if (hs.alive && epoch == hs.peer_epoch)
			partner_down("its node says the gateway is gone");
		return;
	}
	if (!hs.alive || epoch != hs.peer_epoch)
		partner_up(epoch, now);
	hs.heard_ms = now;
	hs.peer_knows = get32(p + 12);
	if (p[5] == HS_RES)
		on_res(p + HS_HDR, n);
	else if (p[5] == HS_ACK && hs.peer_knows == hs.epoch)
		on_ack(p + HS_HDR, n);  /* acks to an earlier start of ours are stale */
}

/* A HELLO when one is due (the only message sent without the control-plane lock). */
static void
hello(uint64_t now)
{
	if (now - hs.hello_ms < HS_HELLO_MS)
		return;
	hs.hello_ms = now;
	flush();
	hs.out_type = HS_HELLO;
	hs.out_n = 0;
	flush();
}

/* Packets of the SA in slot held back for an ack so far (every worker's count). */
static uint64_t
sa_held(unsigned int slot)
{
	uint64_t n = 0;

	for (unsigned int w = 0; w < gw.nb_workers; w++)
		n += __atomic_load_n(&gw.worker[w].sa_drops[slot][GW_DROP_HA_SEQ_WAIT],
				     __ATOMIC_RELAXED);
	return n;
}

/*
 * An inbound SA's block (B_in) from its rate, and the limit to advertise
 * now (0: none): top + B_in once a quarter of the last one is used.
 */
static uint64_t
in_want(struct hs_slot *b, unsigned int slot, uint64_t top, uint64_t now)
{
	uint64_t held = sa_held(slot);

	if (gated() && (top >= b->acked || held > b->tick_held) && b->acked >= b->adv &&
	    b->tick_ms != 0 && now > b->tick_ms) {
		/*
		 * at its limit, or packets held back (ha_seq_wait) since the
		 * last tick: a new or suddenly faster SA, or the peer's
		 * numbers ahead of the window's top by more than the block
		 * (after a takeover: the peer went on counting while no node
		 * accepted; those numbers are refused, so the top stays where
		 * it was and only a larger block reaches them). At once, the
		 * numbers of HS_RATE_MS at the rate offered since the last
		 * tick (taken and held), at least twice the block. Only once
		 * the partner has stored every limit advertised (acked >=
		 * adv), so once per round trip: a partner that does not answer
		 * (dead, not yet timed out) is no faster SA, and doubling every
		 * tick until it is declared down would advertise, to whoever
		 * stores it next, a limit millions of numbers ahead (all
		 * refused at its takeover). (Waiting for a new ack value
		 * instead stalled for good when the limit the growth gave was
		 * one the partner had acked already, after a takeover: no
		 * advertisement, no ack, no growth.)
		 */
		uint64_t d = (top - RTE_MIN(top, b->tick_top)) +
			(held - RTE_MIN(held, b->tick_held));

		d = d * HS_RATE_MS / (now - b->tick_ms);
		b->b_in = RTE_MIN(RTE_MAX(b->b_in * 2, d), (uint64_t)HS_BIN_MAX);
	}
	b->tick_top = top;
	b->tick_held = held;
	b->tick_ms = now;
	if (b->rate_ms == 0) {
		/* the first tick (a new SA, a takeover): the baseline only */
		b->rate_top = top;
		b->rate_held = held;
		b->rate_ms = now;
	} else if (now - b->rate_ms >= HS_RATE_MS) {
		/*
		 * the numbers of about HS_RATE_MS offered, halving at most, and
		 * not while packets are held back: the peer's numbers are then
		 * ahead of the limit by more than the rate says (they went on
		 * while the acks were slow), the top does not move, and only the
		 * growth above (once per ack) reaches them. Halving every
		 * HS_RATE_MS undid it whenever the sync's round trip took longer
		 * (a loaded machine): the limit never again reached the peer's
		 * numbers and every inbound packet was held back from then on.
		 */
		uint64_t d = (top - RTE_MIN(top, b->rate_top)) +
			(held - RTE_MIN(held, b->rate_held));
		uint64_t dt = now - b->rate_ms;
		uint64_t keep = held > b->rate_held ? b->b_in : b->b_in / 2;

		d = d * HS_RATE_MS / RTE_MAX(dt, 1u);
		b->b_in = RTE_MIN(RTE_MAX((uint64_t)HS_BIN_MIN, RTE_MAX(d, keep)),
				  (uint64_t)HS_BIN_MAX);
		b->rate_top = top;
		b->rate_held = held;
		b->rate_ms = now;
	}
	/* again once a quarter is used: 75 ms of traffic for the round trip */
	if (b->adv == 0 || b->adv < top + b->b_in / 4 * 3)
		return top + b->b_in;
	return 0;
}

/* Each tick: reservations to advertise (again), the inbound blocks, liveness. */
static void
tick(uint64_t now)
{
	bool pending = false;

	if (hs.alive && now - hs.heard_ms > HS_DEAD_MS)
		partner_down("silent");
	hello(now);
	if (!hs.alive)
		return;
	for (unsigned int i = 0; i < hs.nb_slots && i < gw.nb_sa; i++) {
		struct hs_slot *b = &hs.slots[i];
		const struct gw_sa *s = &gw.sa[i];
		uint64_t want = 0;

		if (!b->bound || !s->active || !seg_active(s))
			continue;
		if (b->k.dir == GW_DIR_OUT) {
			uint64_t next = b->first + __atomic_load_n(&s->used_pkts, __ATOMIC_RELAXED);

			if (b->adv == 0 || b->adv < next + hs.block / 2)
				want = next - 1 + hs.block;
		} else if (s->rw != NULL) {
			want = in_want(b, i, vecsec_esp_replay_top(s->rw), now);
		}
		if (want != 0) {
			if (want > b->last || want < b->adv)
				want = RTE_MAX(b->adv, RTE_MIN(want, b->last));
			if (want > b->adv) {
				b->adv = want;
				b->sent_ms = now;
				rec_add(HS_RES, &b->k, b->adv);
			}
		}
		if (b->adv > b->acked) {
			pending = true;
			if (now - b->sent_ms >= HS_RESEND_MS) {
				b->sent_ms = now;
				rec_add(HS_RES, &b->k, b->adv);         /* lost: again */
			}
		}
	}
	flush();
	if (hs.syncing && !pending) {
		hs.syncing = false;
		GW_LOG(NOTICE, "cluster sync: partner epoch %u has every reservation: gated",
		       hs.peer_epoch);
		gw_event_note("partner synced epoch %u", hs.peer_epoch);
		for (unsigned int i = 0; i < hs.nb_slots; i++)
			if (hs.slots[i].bound)
				apply(i);
	}
}

static void *
hs_main(void *arg)
{
	uint8_t buf[2048];
	struct timespec busy = { 0, 1000000 };

	(void)arg;
	while (!hs.stop) {
		struct pollfd pfd = { .fd = hs.fd, .events = POLLIN };
		int rc = poll(&pfd, 1, HS_TICK_MS);
		uint64_t now = mono_ms();

		if (!gw_cp_trylock()) {
			/*
			 * the control plane is busy (an SA's cryptodev started, a
			 * reload): the heartbeat goes on, so the partner does not
			 * take this node for dead; what came in waits in the socket
			 */
			hello(now);
			nanosleep(&busy, NULL);
			continue;
		}
		if (rc > 0) {
			for (int k = 0; k < 64; k++) {
				struct sockaddr_storage from;
				socklen_t fl = sizeof(from);
				ssize_t len;

				memset(&from, 0, sizeof(from));
				len = recvfrom(hs.fd, buf, sizeof(buf), MSG_DONTWAIT | MSG_TRUNC,
					       (struct sockaddr *)&from, &fl);
				if (len < 0)
					break;
				if ((size_t)len > sizeof(buf) || fl > sizeof(from)) {
					hs.bad++;
					continue;
				}
				on_datagram(buf, (size_t)len, &from, now);
			}
		}
		tick(now);
		gw_cp_unlock();
	}
	return NULL;
}

int
gw_hasync_start(char *err, size_t err_len)
{
	int rc, one = 1;

	if (!hs.on)
		return 0;
	if (gw_ha.count == 0) {
		snprintf(err, err_len, "--cluster-sync needs --cluster");
		return -EINVAL;
	}
	hs.fd = socket(hs.local.ss_family, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (hs.fd < 0) {
		rc = -errno;
		snprintf(err, err_len, "--cluster-sync: socket: %s", strerror(errno));
		return rc;
	}
	(void)setsockopt(hs.fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(hs.fd, (const struct sockaddr *)&hs.local, hs.alen) != 0) {
		rc = -errno;
		snprintf(err, err_len, "--cluster-sync: cannot bind the local address: %s",
			 strerror(errno));
		close(hs.fd);
		hs.fd = -1;
		return rc;
	}
	do
		hs.epoch = (uint32_t)rte_rand();
	while (hs.epoch == 0);
	hs.stop = false;
	rc = rte_ctrl_thread_create(&hs.tid, "gw-hasync", NULL, hs_main, NULL);
	if (rc != 0) {
		snprintf(err, err_len, "--cluster-sync: cannot start its thread: %s", strerror(rc));
		close(hs.fd);
		hs.fd = -1;
		return -rc;
	}
	hs.running = true;
	GW_LOG(NOTICE, "cluster sync: epoch %u, block %u, waiting for the partner", hs.epoch,
	       hs.block);
	return 0;
}

void
gw_hasync_stop(void)
{
	if (hs.running) {
		hs.stop = true;
		pthread_join(hs.tid, NULL);
		hs.running = false;
	}
	if (hs.fd >= 0)
		close(hs.fd);
	hs.fd = -1;
	free(hs.slots);
	hs.slots = NULL;
	hs.nb_slots = 0;
	free(hs.ents);
	hs.ents = NULL;
	hs.nb_ents = 0;
}

/* ---- views ---------------------------------------------------------------- */

static void
counts(unsigned int *bound, unsigned int *pending)
{
	*bound = *pending = 0;
	for (unsigned int i = 0; i < hs.nb_slots; i++) {
		if (!hs.slots[i].bound)
			continue;
		(*bound)++;
		if (hs.slots[i].adv > hs.slots[i].acked)
			(*pending)++;
	}
}

static const char *
state_name(void)
{
	return !hs.alive ? "down" : hs.syncing ? "syncing" : "up";
}

/* "ADDR:PORT", "[ADDR6]:PORT" */
static void
end_text(const struct sockaddr_storage *sa, char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN] = "?";

	if (sa->ss_family == AF_INET6) {
		const struct sockaddr_in6 *x = (const struct sockaddr_in6 *)sa;

		inet_ntop(AF_INET6, &x->sin6_addr, a, sizeof(a));
		snprintf(buf, len, "[%s]:%u", a, ntohs(x->sin6_port));
	} else {
		const struct sockaddr_in *x = (const struct sockaddr_in *)sa;

		inet_ntop(AF_INET, &x->sin_addr, a, sizeof(a));
		snprintf(buf, len, "%s:%u", a, ntohs(x->sin_port));
	}
}

/*
 * The sync's last fields: its ends (kernel-vecsec sends HS_GONE from the
 * local one to the remote one when this gateway dies) and the GONE
 * messages taken
 */
static void
show_ends(bool json, FILE *out)
{
	char l[INET6_ADDRSTRLEN + 10], r[INET6_ADDRSTRLEN + 10];

	end_text(&hs.local, l, sizeof(l));
	end_text(&hs.remote, r, sizeof(r));
	fprintf(out, json ? ", \"gones\": %" PRIu64 ", \"local\": \"%s\", \"remote\": \"%s\"}" :
		" gones %" PRIu64 " local %s remote %s", hs.gones, l, r);
}

void
gw_hasync_show(bool json, FILE *out)
{
	unsigned int bound, pending;

	if (!hs.on)
		return;
	counts(&bound, &pending);
	fprintf(out, json ? ", \"sync\": {\"partner\": \"%s\", \"epoch\": %u, \"partner_epoch\": %u"
		", \"gated\": %s, \"sent\": %" PRIu64 ", \"received\": %" PRIu64 ", \"acked\": %"
		PRIu64 ", \"records_sent\": %" PRIu64 ", \"records_received\": %" PRIu64
		", \"bad\": %" PRIu64 ", \"sas\": %u, \"pending\": %u, \"stored\": %u"
		", \"store_full\": %" PRIu64 ", \"ups\": %" PRIu64 ", \"downs\": %" PRIu64
		", \"full_pushes\": %" PRIu64 ", \"takeovers\": %" PRIu64 ", \"conflicts\": %" PRIu64
		", \"block\": %u" :
		" sync partner %s epoch %u partner_epoch %u gated %s sent %" PRIu64 " received %"
		PRIu64 " acked %" PRIu64 " records_sent %" PRIu64 " records_received %" PRIu64
		" bad %" PRIu64 " sas %u pending %u stored %u store_full %" PRIu64 " ups %" PRIu64
		" downs %" PRIu64 " full_pushes %" PRIu64 " takeovers %" PRIu64 " conflicts %" PRIu64
		" block %u",
		state_name(), hs.epoch, hs.peer_epoch, gated() ? (json ? "true" : "yes") :
		(json ? "false" : "no"), hs.tx_msgs, hs.rx_msgs, hs.acked_recs, hs.tx_recs,
		hs.rx_recs, hs.bad, bound, pending, hs.nb_ents, hs.store_full, hs.ups, hs.downs,
		hs.full_pushes, hs.takeovers, hs.conflicts, hs.block);
	show_ends(json, out);
}

void
gw_hasync_telemetry(void *data)
{
	struct rte_tel_data *d = data;
	unsigned int bound, pending;

	if (!hs.on)
		return;
	counts(&bound, &pending);
	rte_tel_data_add_dict_string(d, "sync_partner", state_name());
	rte_tel_data_add_dict_u64(d, "sync_epoch", hs.epoch);
	rte_tel_data_add_dict_u64(d, "sync_partner_epoch", hs.peer_epoch);
	rte_tel_data_add_dict_u64(d, "sync_sent", hs.tx_msgs);
	rte_tel_data_add_dict_u64(d, "sync_received", hs.rx_msgs);
	rte_tel_data_add_dict_u64(d, "sync_acked", hs.acked_recs);
	rte_tel_data_add_dict_u64(d, "sync_bad", hs.bad);
	rte_tel_data_add_dict_u64(d, "sync_pending", pending);
	rte_tel_data_add_dict_u64(d, "sync_stored", hs.nb_ents);
}

bool
gw_hasync_sa_info(unsigned int slot, struct gw_hasync_sa_info *info)
{
	const struct hs_slot *b;

	if (!hs.on || slot >= hs.nb_slots || !hs.slots[slot].bound)
		return false;
	b = &hs.slots[slot];
	info->out = b->k.dir == GW_DIR_OUT;
	info->adv = b->adv;
	info->acked = b->acked;
	info->partner = b->ent >= 0 ? hs.ents[b->ent].val : 0;
	return true;
}
