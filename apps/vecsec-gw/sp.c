/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec-gw security policy database: four rule lists (IPv4/IPv6 x in/out)
 * sorted by priority, highest first (rte_acl's rule), first match wins among
 * equal priorities. The data path looks up bursts with rte_acl (one context
 * per list; a rule's ACL priority is its rank, so ties resolve exactly as
 * in the list); gw_sp_lookup() is the plain linear scan over the same list,
 * the reference the ACL is tested against. The lists are immutable;
 * run-time changes publish new ones (cp.c), on the published ACL where
 * the change is small (gw_sp_update: dead base rules and an overlay, see
 * struct gw_spd), rebuilt from scratch when it is not and when the control
 * thread is idle, and once for a batch of many changes (cp.c).
 */
#include "gw_dp.h"
#include "gw_pkt.h"
#include "fcache.h"
#include "vecsec_heap.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_acl.h>
#include <rte_byteorder.h>
#include <rte_errno.h>
#include <rte_ip.h>
#include <rte_lcore.h>
#include <rte_malloc.h>

/*
 * The classified tuple, in network byte order as rte_acl wants it. IPv4
 * uses the first 4 bytes of src and dst. The first field must be 1 byte.
 */
struct sp_key {
	uint8_t proto;
	uint8_t pad[3];
	uint8_t src[16];
	uint8_t dst[16];
	uint16_t sport, dport;
};

#define SP_KEY_OFF(f) ((uint32_t)offsetof(struct sp_key, f))
#define NF4 5
#define NF6 11

RTE_ACL_RULE_DEF(sp_acl4_rule, NF4);
RTE_ACL_RULE_DEF(sp_acl6_rule, NF6);

/*
 * The fields in trie order: protocol, then the two addresses (dst_first:
 * the destination's words before the source's), then both ports. rte_acl
 * builds its trie in this order, and the build is fastest when the field
 * that tells the rules apart comes after the one they share: 100,000
 * tunnel rules with one shared address build in about 1 s that way, three
 * times that the other way round (acl_addr_order()).
 */
static void
acl_defs(bool v6, bool dst_first, struct rte_acl_field_def *d, unsigned int *nf)
{
	unsigned int n = 0, in = 0;

	d[n++] = (struct rte_acl_field_def){ .type = RTE_ACL_FIELD_TYPE_RANGE, .size = 1,
		.field_index = 0, .input_index = in++, .offset = SP_KEY_OFF(proto) };
	for (unsigned int a = 0; a < 2; a++) {
		uint32_t base = (a == 0) != dst_first ? SP_KEY_OFF(src) : SP_KEY_OFF(dst);

		for (unsigned int w = 0; w < (v6 ? 4u : 1u); w++) {
			d[n] = (struct rte_acl_field_def){ .type = RTE_ACL_FIELD_TYPE_MASK,
				.size = 4, .field_index = (uint8_t)n, .input_index = (uint8_t)in++,
				.offset = base + 4 * w };
			n++;
		}
	}
	/* both ports in one 4-byte input word */
	d[n] = (struct rte_acl_field_def){.type = RTE_ACL_FIELD_TYPE_RANGE,
					  .size = 2,
					  .field_index = (uint8_t)n,
					  .input_index = (uint8_t)in,
					  .offset = SP_KEY_OFF(sport)};
	n++;
	d[n] = (struct rte_acl_field_def){.type = RTE_ACL_FIELD_TYPE_RANGE,
					  .size = 2,
					  .field_index = (uint8_t)n,
					  .input_index = (uint8_t)in,
					  .offset = SP_KEY_OFF(dport)};
	n++;
	*nf = n;
}

/* Fill the fields of rule r (host byte order, as rte_acl wants rules), in acl_defs()' order. */
static void
acl_fields(const struct gw_sp_conf *r, bool dst_first, struct rte_acl_field *f)
{
	unsigned int n = 0;

	f[n].value.u8 = r->proto_lo;
	f[n++].mask_range.u8 = r->proto_hi;
	for (unsigned int a = 0; a < 2; a++) {
		bool dst = (a == 1) != dst_first;
		const uint8_t *ad = dst ? r->dst.b : r->src.b;
		int plen = dst ? r->dst_len : r->src_len;

		for (unsigned int w = 0; w < (r->v6 ? 4u : 1u); w++) {
			int bits = plen - 32 * (int)w;
			uint32_t v;

			memcpy(&v, ad + 4 * w, 4);
			f[n].value.u32 = rte_be_to_cpu_32(v);
			f[n++].mask_range.u32 = (uint32_t)(bits < 0 ? 0 : bits > 32 ? 32 : bits);
		}
	}
	f[n].value.u16 = r->sport_lo;
	f[n++].mask_range.u16 = r->sport_hi;
	f[n].value.u16 = r->dport_lo;
	f[n++].mask_range.u16 = r->dport_hi;
}

/*
 * Destination before source when the rules have fewer distinct
 * destinations than sources (an inbound list of tunnels: one local
 * network, a remote one per tunnel). Counted on a sample: the first 256
 * rules.
 */
static bool
acl_addr_order(const struct gw_spd *spd)
{
	unsigned int ns = 0, nd = 0, m = RTE_MIN(spd->n, 256u);

	for (unsigned int i = 1; i < m; i++) {
		const struct gw_sp_conf *a = &spd->conf[i], *b = &spd->conf[i - 1];

		ns += a->src_len != b->src_len || memcmp(&a->src, &b->src, sizeof(a->src)) != 0;
		nd += a->dst_len != b->dst_len || memcmp(&a->dst, &b->dst, sizeof(a->dst)) != 0;
	}
	return nd < ns;
}

/* Overlay and dead rules a list may carry before a change rebuilds its ACL. */
#define SP_OVERLAY_MAX 32
#define SP_DEAD_MAX 64

static void
acl_put(struct gw_acl *a)
{
	if (a != NULL && --a->refcnt == 0) {
		rte_acl_free(a->ctx);
		free(a);
	}
}

/* An rte_acl context over spd's base rules (none when the base is empty); 0 or -errno. */
static int
acl_build(struct gw_spd *spd, bool v6)
{
	static unsigned int seq;
	struct rte_acl_config cfg = { .num_categories = 1 };
	struct rte_acl_param prm = { .socket_id = SOCKET_ID_ANY };
	char name[RTE_ACL_NAMESIZE];
	size_t rsz = v6 ? sizeof(struct sp_acl6_rule) : sizeof(struct sp_acl4_rule);
	size_t heap0;
	uint8_t *rules;
	struct gw_acl *a;
	unsigned int nf;
	int rc;

	spd->acl = NULL;
	if (spd->n == 0)
		return 0;
	if (spd->n > RTE_ACL_MAX_PRIORITY)
		return -E2BIG;
	a = calloc(1, sizeof(*a));
	/* every rule in one call: rte_acl copies them into the context */
	rules = calloc(spd->n, rsz);
	if (a == NULL || rules == NULL) {
		free(a);
		free(rules);
		return -ENOMEM;
	}
	a->dst_first = acl_addr_order(spd);
	acl_defs(v6, a->dst_first, cfg.defs, &nf);
	cfg.num_fields = nf;
	snprintf(name, sizeof(name), "gw_spd_%u", __atomic_fetch_add(&seq, 1, __ATOMIC_RELAXED));
	prm.name = name;
	prm.rule_size = v6 ? RTE_ACL_RULE_SZ(NF6) : RTE_ACL_RULE_SZ(NF4);
	prm.max_rule_num = spd->n;
	for (unsigned int i = 0; i < spd->n; i++) {
		struct rte_acl_rule *r = (struct rte_acl_rule *)(rules + i * rsz);

		r->data.category_mask = 1;
		/* rank: the list is sorted, first = highest */
		r->data.priority = (int32_t)(RTE_ACL_MAX_PRIORITY - i);
		r->data.userdata = i + 1;
		acl_fields(&spd->conf[i], a->dst_first, v6 ? ((struct sp_acl6_rule *)r)->field :
			   ((struct sp_acl4_rule *)r)->field);
	}
	/* the ACL's heap memory (nothing else allocates there meanwhile but by chance) */
	heap0 = vecsec_heap_used();
	a->ctx = rte_acl_create(&prm);
	if (a->ctx == NULL) {
		free(rules);
		free(a);
		return -rte_errno ? -rte_errno : -ENOMEM;
	}
	rc = rte_acl_add_rules(a->ctx, (const struct rte_acl_rule *)rules, spd->n);
	free(rules);
	if (rc == 0)
		rc = rte_acl_build(a->ctx, &cfg);
	if (rc != 0) {
		rte_acl_free(a->ctx);
		free(a);
		return rc;
	}
	a->mem = vecsec_heap_used() - heap0;
	a->refcnt = 1;
	spd->acl = a;
	return 0;
}

/* rank order: priority (highest first), then configuration order */
static inline bool
ranks_before(const struct gw_sp_conf *a, const struct gw_sp_conf *b)
{
	return a->pri != b->pri ? a->pri > b->pri : a->line < b->line;
}

static int
cmp_pri(const void *a, const void *b)
{
	const struct gw_sp_conf *x = a, *y = b;

	if (x->pri != y->pri)
		return x->pri > y->pri ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

/* Same selectors and priority (what the ACL knows of a rule): the action may differ. */
static bool
same_match(const struct gw_sp_conf *a, const struct gw_sp_conf *b)
{
	return a->pri == b->pri && a->line == b->line && a->src_len == b->src_len &&
		a->dst_len == b->dst_len && memcmp(&a->src, &b->src, sizeof(a->src)) == 0 &&
		memcmp(&a->dst, &b->dst, sizeof(a->dst)) == 0 && a->proto_lo == b->proto_lo &&
		a->proto_hi == b->proto_hi && a->sport_lo == b->sport_lo &&
		a->sport_hi == b->sport_hi && a->dport_lo == b->dport_lo &&
		a->dport_hi == b->dport_hi;
}

/* The SA (dir, spi) of conf if it is up, else NULL: O(1) through the SA index. */
static struct gw_sa *
sa_up(const struct gw_dp *dp, const struct gw_conf *conf, uint8_t dir, uint32_t spi)
{
	const struct gw_sa_conf *c = gw_conf_find_sa(conf, dir, spi);
	struct gw_sa *s;

	if (c == NULL)
		return NULL;
	s = &dp->sa[c - conf->sa];
	return s->active && s->dir == dir && s->spi == spi ? s : NULL;
}

/* A list with room for n rules (rules[] and conf[]), all zero. */
static uint64_t spd_gen;        /* generations given out (0: an empty cache entry) */

static struct gw_spd *
spd_alloc(unsigned int n)
{
	size_t head = sizeof(struct gw_spd) + (size_t)(n + 1) * sizeof(struct gw_sp);
	size_t size = RTE_ALIGN_CEIL(head + (size_t)(n + 1) * sizeof(struct gw_sp_conf), 64);
	struct gw_spd *spd = aligned_alloc(64, size);

	if (spd == NULL)
		return NULL;
	memset(spd, 0, size);
	spd->gen = __atomic_add_fetch(&spd_gen, 1, __ATOMIC_RELAXED);
	spd->conf = (struct gw_sp_conf *)((uint8_t *)spd + head);
	spd->mem = size;
	return spd;
}

/*
 * The rules of list (v6, dir) of conf, in rank order, with their SAs, as a
 * list without ACL (*out); 0 or -errno.
 */
static int
collect(const struct gw_dp *dp, const struct gw_conf *conf, int v6, int dir,
	struct gw_spd **out)
{
	unsigned int n = 0;
	struct gw_spd *spd;

	for (unsigned int i = 0; i < conf->nb_sp; i++)
		n += conf->sp[i].v6 == v6 && conf->sp[i].dir == dir;
	spd = spd_alloc(n);
	if (spd == NULL)
		return -ENOMEM;
	*out = spd;
	for (unsigned int i = 0; i < conf->nb_sp; i++)
		if (conf->sp[i].v6 == v6 && conf->sp[i].dir == dir)
			spd->conf[spd->n++] = conf->sp[i];
	/* equal priorities keep their order in the configuration (line) */
	qsort(spd->conf, spd->n, sizeof(spd->conf[0]), cmp_pri);
	for (unsigned int i = 0; i < spd->n; i++) {
		const struct gw_sp_conf *r = &spd->conf[i];
		struct gw_sp *sp = &spd->rules[i];

		sp->action = r->action;
		if (r->action != GW_SP_PROTECT)
			continue;
		/* the inbound SA a replaced rule still accepts: NULL once it is gone */
		if (dir == GW_DIR_IN && r->spi_prev != 0)
			sp->sa_prev = sa_up(dp, conf, GW_DIR_IN, r->spi_prev);
		sp->sa = sa_up(dp, conf, (uint8_t)dir, r->spi);
		if (sp->sa == NULL) {
			fprintf(stderr, "vecsec-gw: line %d: SP names SA %u which is not set up\n",
				r->line, r->spi);
			return -EINVAL;
		}
	}
	return 0;
}

/*
 * The new list R (rank order) on prev's ACL: prev's base in its order, each
 * rule replaced by its counterpart in R (same selectors, priority and line;
 * the action may be new) or marked dead; the rest of R as the overlay. NULL
 * if prev cannot carry it (no ACL, too many changes): then the caller
 * builds afresh.
 */
static struct gw_spd *
reuse(const struct gw_spd *prev, const struct gw_spd *R)
{
	struct gw_spd *spd;
	bool *used;
	unsigned int i, j = 0, nb_dead = 0, no, m = R->n;

	if (prev == NULL || (prev->n != 0 && prev->acl == NULL))
		return NULL;
	/* more new rules than the overlay takes: no need to walk */
	if (m > prev->n - prev->nb_dead + SP_OVERLAY_MAX)
		return NULL;
	used = calloc(m + 1, sizeof(*used));
	spd = spd_alloc(prev->n + m);
	if (used == NULL || spd == NULL)
		goto full;
	/* both in rank order: a merge walk pairs them */
	for (i = 0; i < prev->n; i++) {
		const struct gw_sp_conf *b = &prev->conf[i];

		while (j < m && ranks_before(&R->conf[j], b))
			j++;
		spd->conf[i] = *b;
		spd->rules[i] = prev->rules[i];
		if (j < m && !prev->rules[i].dead && same_match(&R->conf[j], b)) {
			spd->conf[i] = R->conf[j];
			spd->rules[i] = R->rules[j];
			used[j++] = true;
		} else {
			spd->rules[i].dead = true;
			spd->rules[i].sa = NULL;
			spd->rules[i].sa_prev = NULL;
			nb_dead++;
		}
	}
	no = 0;
	for (j = 0; j < m; j++)
		if (!used[j]) {
			if (no == SP_OVERLAY_MAX)
				goto full;
			spd->conf[prev->n + no] = R->conf[j];
			spd->rules[prev->n + no++] = R->rules[j];
		}
	if (nb_dead > SP_DEAD_MAX)
		goto full;
	free(used);
	spd->n = prev->n;
	spd->no = no;
	spd->nb_dead = nb_dead;
	spd->acl = prev->acl;
	if (spd->acl != NULL)
		spd->acl->refcnt++;
	return spd;
full:
	free(used);
	free(spd);
	return NULL;
}

int
gw_sp_update(const struct gw_dp *dp, const struct gw_conf *conf, struct gw_spd *const prev[2][2],
		unsigned int mask, struct gw_spd *out[2][2])
{
	int rc = 0;

	memset(out, 0, 4 * sizeof(out[0][0]));
	for (int v6 = 0; v6 < 2 && rc == 0; v6++) {
		for (int dir = 0; dir < 2 && rc == 0; dir++) {
			struct gw_spd *R = NULL, *spd;

			if (!(mask & GW_SPD_BIT(v6, dir)))
				continue;
			rc = collect(dp, conf, v6, dir, &R);
			if (rc != 0) {
				free(R);
				break;
			}
			spd = reuse(prev != NULL ? prev[v6][dir] : NULL, R);
			if (spd != NULL) {
				free(R);
			} else {
				spd = R;
				rc = acl_build(spd, v6);
				if (rc != 0) {
					fprintf(stderr, "vecsec-gw: cannot build the SPD's ACL (%u "
						"rules)\n", spd->n);
					free(spd);
					break;
				}
			}
			out[v6][dir] = spd;
		}
	}
	if (rc != 0)
		gw_sp_free(out);
	return rc;
}

int
gw_sp_build(const struct gw_dp *dp, const struct gw_conf *conf, struct gw_spd *out[2][2])
{
	return gw_sp_update(dp, conf, NULL, GW_SPD_ALL, out);
}

unsigned int
gw_sp_fragmented(struct gw_spd *const t[2][2])
{
	unsigned int mask = 0;

	for (int v6 = 0; v6 < 2; v6++)
		for (int dir = 0; dir < 2; dir++)
			if (t[v6][dir] != NULL && (t[v6][dir]->no != 0 || t[v6][dir]->nb_dead != 0))
				mask |= GW_SPD_BIT(v6, dir);
	return mask;
}

void
gw_sp_free(struct gw_spd *t[2][2])
{
	for (int v6 = 0; v6 < 2; v6++)
		for (int dir = 0; dir < 2; dir++) {
			if (t[v6][dir] != NULL)
				acl_put(t[v6][dir]->acl);
			free(t[v6][dir]);
			t[v6][dir] = NULL;
		}
}

int
gw_sp_setup(struct gw_dp *dp, const struct gw_conf *conf)
{
	return gw_sp_build(dp, conf, dp->spd);
}

void
gw_sp_teardown(struct gw_dp *dp)
{
	gw_sp_free(dp->spd);
}

/*
 * The upper-layer protocol of an IPv6 packet: after the extension headers
 * the worker counted in l3_len (Hop-by-Hop, Routing, Destination Options).
 */
static inline uint8_t
sp_ip6_upper(const uint8_t *l3, uint32_t l3_len)
{
	uint8_t proto = 0;

	if (l3_len <= sizeof(struct rte_ipv6_hdr) ||
			vecsec_esp_ip6_walk(l3, l3_len, 0, &proto, NULL) != (int)l3_len)
		return l3[offsetof(struct rte_ipv6_hdr, proto)];
	return proto;
}

static inline bool
prefix_match(const uint8_t *a, const uint8_t *net, unsigned int len)
{
	unsigned int full = len / 8, rest = len % 8;

	if (memcmp(a, net, full) != 0)
		return false;
	if (rest == 0)
		return true;
	return ((a[full] ^ net[full]) & (uint8_t)(0xff << (8 - rest))) == 0;
}

/* The 5-tuple of the packet whose IP header is at l3 (l3_len header bytes, pkt_len in all). */
static inline void
key_of(struct sp_key *k, bool v6, const uint8_t *l3, uint32_t l3_len, uint32_t pkt_len)
{
	uint8_t proto;
	bool first_frag = true;

	memset(k, 0, sizeof(*k));
	if (v6) {
		const struct rte_ipv6_hdr *h = (const struct rte_ipv6_hdr *)l3;

		memcpy(k->src, h->src_addr, 16);
		memcpy(k->dst, h->dst_addr, 16);
		proto = sp_ip6_upper(l3, l3_len);
	} else {
		const struct rte_ipv4_hdr *h = (const struct rte_ipv4_hdr *)l3;

		memcpy(k->src, &h->src_addr, 4);
		memcpy(k->dst, &h->dst_addr, 4);
		proto = h->next_proto_id;
		first_frag = (rte_be_to_cpu_16(h->fragment_offset) & RTE_IPV4_HDR_OFFSET_MASK) == 0;
	}
	k->proto = proto;
	if (first_frag && (proto == IPPROTO_TCP || proto == IPPROTO_UDP || proto == IPPROTO_SCTP) &&
			pkt_len >= l3_len + 4) {
		memcpy(&k->sport, l3 + l3_len, 2);      /* network order, as rte_acl wants */
		memcpy(&k->dport, l3 + l3_len + 2, 2);
	}
}

static inline bool
key_match(const struct gw_sp_conf *r, const struct sp_key *k)
{
	uint16_t sport = rte_be_to_cpu_16(k->sport), dport = rte_be_to_cpu_16(k->dport);

	return k->proto >= r->proto_lo && k->proto <= r->proto_hi &&
		sport >= r->sport_lo && sport <= r->sport_hi &&
		dport >= r->dport_lo && dport <= r->dport_hi &&
		prefix_match(k->src, r->src.b, r->src_len) && prefix_match(k->dst, r->dst.b, r->dst_len);
}

/* The first live rule of rules[from..to) (rank order) that matches k. */
static const struct gw_sp *
linear(const struct gw_spd *spd, unsigned int from, unsigned int to, const struct sp_key *k)
{
	for (unsigned int i = from; i < to; i++)
		if (!spd->rules[i].dead && key_match(&spd->conf[i], k))
			return &spd->rules[i];
	return NULL;
}

static inline const struct gw_sp *
better(const struct gw_spd *spd, const struct gw_sp *a, const struct gw_sp *b)
{
	if (a == NULL)
		return b;
	if (b == NULL)
		return a;
	return ranks_before(&spd->conf[b - spd->rules], &spd->conf[a - spd->rules]) ? b : a;
}

/*
 * The reference: a plain scan of the list (base, then overlay). l3 points
 * at the IP header of a packet whose header lengths the caller has checked
 * (l3_len bytes of header, pkt_len bytes in all, contiguous).
 */
const struct gw_sp *
gw_sp_lookup(const struct gw_dp *dp, bool v6, uint8_t dir, const uint8_t *l3,
		uint32_t l3_len, uint32_t pkt_len)
{
	const struct gw_spd *spd = __atomic_load_n(&dp->spd[v6][dir], __ATOMIC_ACQUIRE);
	struct sp_key k;

	key_of(&k, v6, l3, l3_len, pkt_len);
	return better(spd, linear(spd, 0, spd->n, &k), linear(spd, spd->n, spd->n + spd->no, &k));
}

/* ---- SPD flow cache (fcache.h): the key is struct sp_key ---------------- */

/* rte_acl's answers for the n keys of list spd, in the reference scan's terms. */
static void
acl_answers(const struct gw_spd *spd, const struct sp_key *const keys[], uint16_t n,
	    const struct gw_sp *out[])
{
	const uint8_t *data[GW_BURST];
	uint32_t res[GW_BURST];

	for (uint16_t i = 0; i < n; i++)
		data[i] = (const uint8_t *)keys[i];
	if (spd->acl == NULL || rte_acl_classify(spd->acl->ctx, data, res, n, 1) != 0)
		memset(res, 0, n * sizeof(res[0]));
	for (uint16_t i = 0; i < n; i++) {
		const struct gw_sp *b = res[i] != 0 && res[i] <= spd->n ? &spd->rules[res[i] - 1] :
			NULL;

		/* a dead rule's packet: the best live base rule (no other ACL answer exists) */
		if (b != NULL && b->dead)
			b = linear(spd, 0, spd->n, keys[i]);
		if (spd->no != 0)
			b = better(spd, b, linear(spd, spd->n, spd->n + spd->no, keys[i]));
		out[i] = b;
	}
}

void
gw_sp_lookup_bulk(const struct gw_dp *dp, struct gw_fc *c, bool v6, uint8_t dir,
		  const uint8_t *const l3[], const uint32_t l3_len[], const uint32_t pkt_len[],
		  uint16_t n, const struct gw_sp *out[], struct gw_sp_val val[])
{
	const struct gw_spd *spd = __atomic_load_n(&dp->spd[v6][dir], __ATOMIC_ACQUIRE);
	struct sp_key keys[GW_BURST] __rte_aligned(8);
	const struct sp_key *mk[GW_BURST];
	const struct gw_sp *mans[GW_BURST];
	struct gw_fc_ent *e[GW_BURST];
	uint16_t miss[GW_BURST], nm = 0;
	const struct gw_sa *last = NULL;

	RTE_BUILD_BUG_ON(sizeof(struct sp_key) != GW_FC_KEY);
	/* aux packs an action into an SA pointer's two low bits */
	RTE_BUILD_BUG_ON(GW_SP_PROTECT > 3 || __alignof__(struct gw_sa) < 4);
	if (spd->n + spd->no == 0) {
		for (uint16_t i = 0; i < n; i++)
			out[i] = NULL;
		return;
	}
	for (uint16_t i = 0; i < n; i++)
		key_of(&keys[i], v6, l3[i], l3_len[i], pkt_len[i]);
	for (uint16_t i = 0; i < n && c != NULL; i++)
		e[i] = gw_fc_slot(c, &keys[i]);
	for (uint16_t i = 0; i < n; i++) {
		const struct gw_fc_ent *h = c != NULL ? gw_fc_hit(e[i], spd->gen, &keys[i]) : NULL;

		if (h != NULL) {
			struct gw_sa *sa = (struct gw_sa *)(uintptr_t)(h->aux & ~(uint64_t)3);

			out[i] = h->ans;
			/* aux: the rule's SA with its action in the low bits (SAs are line-aligned) */
			if (val != NULL)
				val[i] = (struct gw_sp_val){ .sa = sa, .action = (uint8_t)(h->aux & 3) };
			/*
			 * the SA's two hot lines (the worker's stage 1, which it does not
			 * issue again), as soon as it is known: with many SAs the rest of
			 * the burst's classification runs while they come
			 */
			if (sa != NULL && sa != last) {
				gw_sa_prefetch(sa);
				last = sa;
			}
			continue;
		}
		miss[nm] = i;
		mk[nm++] = &keys[i];
	}
	if (c != NULL)
		gw_fc_count(c, n - nm, nm);
	if (nm == 0)
		return;
	acl_answers(spd, mk, nm, mans);
	for (uint16_t j = 0; j < nm; j++) {
		const struct gw_sp *b = mans[j];
		uint16_t i = miss[j];

		out[i] = b;
		if (b != NULL && val != NULL)
			val[i] = (struct gw_sp_val){ .sa = b->sa, .action = b->action };
		if (b != NULL && b->sa != NULL)
			gw_sa_prefetch(b->sa);          /* stage 1, as for a hit */
		if (c != NULL)
			gw_fc_fill(e[i], spd->gen, &keys[i], b,
				   b != NULL ? (uint64_t)(uintptr_t)b->sa | b->action : 0);
	}
}
