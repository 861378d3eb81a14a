/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec-gw security policy database: four rule lists (IPv4/IPv6 x in/out)
 * sorted by priority, highest first (rte_acl's rule), first match wins among
 * equal priorities. The data path looks up bursts with rte_acl (one context
 * per list; a rule's ACL priority is its rank, so ties resolve exactly as
 * in the list); gw_sp_lookup() is the plain linear scan over the same list,
 * the reference the ACL is tested against. The lists are immutable;
 * run-time changes publish new ones (ctrl.c), on the published ACL where
 * the change is small (gw_sp_update: dead base rules and an overlay, see
 * struct gw_spd), rebuilt from scratch when it is not and when the control
 * thread is idle.
 */
#include "gw_dp.h"
#include "gw_pkt.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_acl.h>
#include <rte_byteorder.h>
#include <rte_errno.h>
#include <rte_ip.h>

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

static void
acl_defs(bool v6, struct rte_acl_field_def *d, unsigned int *nf)
{
	unsigned int n = 0, in = 0;

	d[n++] = (struct rte_acl_field_def){ .type = RTE_ACL_FIELD_TYPE_RANGE, .size = 1,
		.field_index = 0, .input_index = in++, .offset = SP_KEY_OFF(proto) };
	for (unsigned int a = 0; a < 2; a++) {
		uint32_t base = a ? SP_KEY_OFF(dst) : SP_KEY_OFF(src);

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

/* Fill the fields of rule r (host byte order, as rte_acl wants rules). */
static void
acl_fields(const struct gw_sp_conf *r, struct rte_acl_field *f)
{
	unsigned int n = 0;

	f[n].value.u8 = r->proto_lo;
	f[n++].mask_range.u8 = r->proto_hi;
	for (unsigned int a = 0; a < 2; a++) {
		const uint8_t *ad = a ? r->dst.b : r->src.b;
		int plen = a ? r->dst_len : r->src_len;

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
	struct sp_acl6_rule r6;
	struct sp_acl4_rule r4;
	char name[RTE_ACL_NAMESIZE];
	struct gw_acl *a;
	unsigned int nf;
	int rc = 0;

	spd->acl = NULL;
	if (spd->n == 0)
		return 0;
	if (spd->n > RTE_ACL_MAX_PRIORITY)
		return -E2BIG;
	a = calloc(1, sizeof(*a));
	if (a == NULL)
		return -ENOMEM;
	acl_defs(v6, cfg.defs, &nf);
	cfg.num_fields = nf;
	snprintf(name, sizeof(name), "gw_spd_%u", __atomic_fetch_add(&seq, 1, __ATOMIC_RELAXED));
	prm.name = name;
	prm.rule_size = v6 ? RTE_ACL_RULE_SZ(NF6) : RTE_ACL_RULE_SZ(NF4);
	prm.max_rule_num = spd->n;
	a->ctx = rte_acl_create(&prm);
	if (a->ctx == NULL) {
		free(a);
		return -rte_errno ? -rte_errno : -ENOMEM;
	}
	for (unsigned int i = 0; i < spd->n && rc == 0; i++) {
		struct rte_acl_rule_data d = {
			.category_mask = 1,
			/* rank: the list is sorted, first = highest */
			.priority = (int32_t)(RTE_ACL_MAX_PRIORITY - i),
			.userdata = i + 1,
		};

		if (v6) {
			memset(&r6, 0, sizeof(r6));
			r6.data = d;
			acl_fields(&spd->rules[i].r, r6.field);
			rc = rte_acl_add_rules(a->ctx, (const struct rte_acl_rule *)&r6, 1);
		} else {
			memset(&r4, 0, sizeof(r4));
			r4.data = d;
			acl_fields(&spd->rules[i].r, r4.field);
			rc = rte_acl_add_rules(a->ctx, (const struct rte_acl_rule *)&r4, 1);
		}
	}
	if (rc == 0)
		rc = rte_acl_build(a->ctx, &cfg);
	if (rc != 0) {
		rte_acl_free(a->ctx);
		free(a);
		return rc;
	}
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
	const struct gw_sp *x = a, *y = b;

	if (x->r.pri != y->r.pri)
		return x->r.pri > y->r.pri ? -1 : 1;
	return x->r.line < y->r.line ? -1 : x->r.line > y->r.line;
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

/* The active SAs by (direction, SPI), for resolving the rules' SA pointers. */
struct sa_ref {
	uint64_t key;           /* dir << 32 | spi */
	struct gw_sa *sa;
};

static int
cmp_sa_ref(const void *a, const void *b)
{
	const struct sa_ref *x = a, *y = b;

	return x->key < y->key ? -1 : x->key > y->key;
}

static struct gw_sa *
sa_find(const struct sa_ref *idx, unsigned int n, uint8_t dir, uint32_t spi)
{
	struct sa_ref k = { .key = (uint64_t)dir << 32 | spi };
	const struct sa_ref *r = bsearch(&k, idx, n, sizeof(*idx), cmp_sa_ref);

	return r != NULL ? r->sa : NULL;
}

/* The rules of list (v6, dir) of conf, resolved and in rank order, into out; count or -errno. */
static int
collect(const struct gw_conf *conf, const struct sa_ref *idx, unsigned int nidx, int v6,
	int dir, struct gw_sp *out)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < conf->nb_sp; i++) {
		const struct gw_sp_conf *r = &conf->sp[i];
		struct gw_sp *sp;

		if (r->v6 != v6 || r->dir != dir)
			continue;
		sp = &out[n++];
		memset(sp, 0, sizeof(*sp));
		sp->r = *r;
		if (r->action != GW_SP_PROTECT)
			continue;
		/* the inbound SA a replaced rule still accepts: NULL once it is gone */
		if (dir == GW_DIR_IN && r->spi_prev != 0)
			sp->sa_prev = sa_find(idx, nidx, GW_DIR_IN, r->spi_prev);
		sp->sa = sa_find(idx, nidx, (uint8_t)dir, r->spi);
		if (sp->sa == NULL) {
			fprintf(stderr, "vecsec-gw: line %d: SP names SA %u which is not set up\n",
				r->line, r->spi);
			return -EINVAL;
		}
	}
	/* equal priorities keep their order in the configuration (line) */
	qsort(out, n, sizeof(out[0]), cmp_pri);
	return (int)n;
}

/*
 * The new list R (m rules, rank order) on prev's ACL: prev's base in its
 * order, each rule replaced by its counterpart in R (same selectors,
 * priority and line; the action may be new) or marked dead; the rest of R
 * as the overlay. NULL if prev cannot carry it (no counterpart structure, too
 * many changes): then the caller builds afresh.
 */
static struct gw_spd *
reuse(const struct gw_spd *prev, const struct gw_sp *R, unsigned int m)
{
	struct gw_spd *spd;
	bool *used;
	unsigned int i, j = 0, nb_dead = 0, no;

	if (prev == NULL || (prev->n != 0 && prev->acl == NULL))
		return NULL;
	used = calloc(m + 1, sizeof(*used));
	spd = calloc(1, sizeof(*spd) + (prev->n + m + 1) * sizeof(spd->rules[0]));
	if (used == NULL || spd == NULL)
		goto full;
	/* both in rank order: a merge walk pairs them */
	for (i = 0; i < prev->n; i++) {
		const struct gw_sp *b = &prev->rules[i];

		while (j < m && ranks_before(&R[j].r, &b->r))
			j++;
		spd->rules[i] = *b;
		if (j < m && !b->dead && same_match(&R[j].r, &b->r)) {
			spd->rules[i] = R[j];
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
		if (!used[j])
			spd->rules[prev->n + no++] = R[j];
	if (no > SP_OVERLAY_MAX || nb_dead > SP_DEAD_MAX)
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
		struct gw_spd *out[2][2])
{
	struct sa_ref *idx = calloc(dp->nb_sa + 1, sizeof(*idx));
	struct gw_sp *R = calloc(conf->nb_sp + 1, sizeof(*R));
	unsigned int nidx = 0;
	int rc = 0;

	memset(out, 0, 4 * sizeof(out[0][0]));
	if (idx == NULL || R == NULL) {
		rc = -ENOMEM;
		goto out;
	}
	for (unsigned int j = 0; j < dp->nb_sa; j++)
		if (dp->sa[j].active) {
			idx[nidx].key = (uint64_t)dp->sa[j].dir << 32 | dp->sa[j].spi;
			idx[nidx++].sa = &dp->sa[j];
		}
	qsort(idx, nidx, sizeof(idx[0]), cmp_sa_ref);
	for (int v6 = 0; v6 < 2 && rc == 0; v6++) {
		for (int dir = 0; dir < 2 && rc == 0; dir++) {
			int m = collect(conf, idx, nidx, v6, dir, R);
			struct gw_spd *spd;

			if (m < 0) {
				rc = m;
				break;
			}
			spd = reuse(prev != NULL ? prev[v6][dir] : NULL, R, (unsigned int)m);
			if (spd == NULL) {
				spd = calloc(1, sizeof(*spd) + ((unsigned int)m + 1) * sizeof(R[0]));
				if (spd == NULL) {
					rc = -ENOMEM;
					break;
				}
				memcpy(spd->rules, R, (unsigned int)m * sizeof(R[0]));
				spd->n = (unsigned int)m;
				rc = acl_build(spd, v6);
				if (rc != 0) {
					fprintf(stderr, "vecsec-gw: cannot build the SPD's ACL\n");
					free(spd);
					break;
				}
			}
			out[v6][dir] = spd;
		}
	}
out:
	free(idx);
	free(R);
	if (rc != 0)
		gw_sp_free(out);
	return rc;
}

int
gw_sp_build(const struct gw_dp *dp, const struct gw_conf *conf, struct gw_spd *out[2][2])
{
	return gw_sp_update(dp, conf, NULL, out);
}

bool
gw_sp_fragmented(struct gw_spd *const t[2][2])
{
	for (int v6 = 0; v6 < 2; v6++)
		for (int dir = 0; dir < 2; dir++)
			if (t[v6][dir] != NULL && (t[v6][dir]->no != 0 || t[v6][dir]->nb_dead != 0))
				return true;
	return false;
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
		if (!spd->rules[i].dead && key_match(&spd->rules[i].r, k))
			return &spd->rules[i];
	return NULL;
}

static inline const struct gw_sp *
better(const struct gw_sp *a, const struct gw_sp *b)
{
	if (a == NULL)
		return b;
	if (b == NULL)
		return a;
	return ranks_before(&b->r, &a->r) ? b : a;
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
	return better(linear(spd, 0, spd->n, &k), linear(spd, spd->n, spd->n + spd->no, &k));
}

void
gw_sp_lookup_bulk(const struct gw_dp *dp, bool v6, uint8_t dir, const uint8_t *const l3[],
		const uint32_t l3_len[], const uint32_t pkt_len[], uint16_t n,
		const struct gw_sp *out[])
{
	const struct gw_spd *spd = __atomic_load_n(&dp->spd[v6][dir], __ATOMIC_ACQUIRE);
	struct sp_key keys[GW_BURST];
	const uint8_t *data[GW_BURST];
	uint32_t res[GW_BURST];

	if (spd->n + spd->no == 0) {
		for (uint16_t i = 0; i < n; i++)
			out[i] = NULL;
		return;
	}
	for (uint16_t i = 0; i < n; i++) {
		key_of(&keys[i], v6, l3[i], l3_len[i], pkt_len[i]);
		data[i] = (const uint8_t *)&keys[i];
	}
	if (spd->acl == NULL || rte_acl_classify(spd->acl->ctx, data, res, n, 1) != 0)
		memset(res, 0, n * sizeof(res[0]));
	for (uint16_t i = 0; i < n; i++) {
		const struct gw_sp *b = res[i] != 0 && res[i] <= spd->n ? &spd->rules[res[i] - 1] :
			NULL;

		/* a dead rule's packet: the best live base rule (no other ACL answer exists) */
		if (b != NULL && b->dead)
			b = linear(spd, 0, spd->n, &keys[i]);
		if (spd->no != 0)
			b = better(b, linear(spd, spd->n, spd->n + spd->no, &keys[i]));
		out[i] = b;
	}
}
