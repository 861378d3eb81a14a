/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec-gw security policy database: four rule lists (IPv4/IPv6 x in/out)
 * sorted by priority, highest first (rte_acl's rule), first match wins among
 * equal priorities. The data path looks up bursts with rte_acl (one context
 * per list; a rule's ACL priority is its rank, so ties resolve exactly as
 * in the list); gw_sp_lookup() is the plain linear scan over the same list,
 * the reference the ACL is tested against. The lists are immutable;
 * run-time changes publish new ones (ctrl.c).
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

size_t
gw_heap_used(void)
{
	size_t used = 0;

	for (unsigned int i = 0; i < rte_socket_count(); i++) {
		struct rte_malloc_socket_stats st;

		if (rte_malloc_get_socket_stats(rte_socket_id_by_idx(i), &st) == 0)
			used += st.heap_allocsz_bytes;
	}
	return used;
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

/* An rte_acl context for spd (NULL when it has no rule); 0 or -errno. */
static int
acl_build(struct gw_spd *spd, bool v6)
{
	static unsigned int seq;
	struct rte_acl_config cfg = { .num_categories = 1 };
	struct rte_acl_param prm = { .socket_id = SOCKET_ID_ANY };
	char name[RTE_ACL_NAMESIZE];
	size_t rsz = v6 ? sizeof(struct sp_acl6_rule) : sizeof(struct sp_acl4_rule);
	uint8_t *rules;
	unsigned int nf;
	bool dst_first;
	int rc;

	spd->acl = NULL;
	if (spd->n == 0)
		return 0;
	dst_first = acl_addr_order(spd);
	spd->dst_first = dst_first;
	acl_defs(v6, dst_first, cfg.defs, &nf);
	cfg.num_fields = nf;
	snprintf(name, sizeof(name), "gw_spd_%u", __atomic_fetch_add(&seq, 1, __ATOMIC_RELAXED));
	prm.name = name;
	prm.rule_size = v6 ? RTE_ACL_RULE_SZ(NF6) : RTE_ACL_RULE_SZ(NF4);
	prm.max_rule_num = spd->n;
	/* every rule in one call: rte_acl copies them into the context */
	rules = calloc(spd->n, rsz);
	if (rules == NULL)
		return -ENOMEM;
	for (unsigned int i = 0; i < spd->n; i++) {
		struct rte_acl_rule *r = (struct rte_acl_rule *)(rules + i * rsz);

		r->data.category_mask = 1;
		/* rank: the list is sorted, first = highest */
		r->data.priority = (int32_t)(RTE_ACL_MAX_PRIORITY - i);
		r->data.userdata = i + 1;
		acl_fields(&spd->conf[i], dst_first, v6 ? ((struct sp_acl6_rule *)r)->field :
			   ((struct sp_acl4_rule *)r)->field);
	}
	spd->acl = rte_acl_create(&prm);
	if (spd->acl == NULL) {
		free(rules);
		return -rte_errno ? -rte_errno : -ENOMEM;
	}
	rc = rte_acl_add_rules(spd->acl, (const struct rte_acl_rule *)rules, spd->n);
	free(rules);
	if (rc == 0)
		rc = rte_acl_build(spd->acl, &cfg);
	if (rc != 0) {
		rte_acl_free(spd->acl);
		spd->acl = NULL;
	}
	return rc;
}

static int
cmp_pri(const void *a, const void *b)
{
	const struct gw_sp_conf *x = a, *y = b;

	if (x->pri != y->pri)
		return x->pri > y->pri ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
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

static struct gw_spd *
spd_alloc(unsigned int n)
{
	size_t head = sizeof(struct gw_spd) + (size_t)(n + 1) * sizeof(struct gw_sp);
	struct gw_spd *spd = aligned_alloc(64, RTE_ALIGN_CEIL(head + (size_t)(n + 1) *
		sizeof(struct gw_sp_conf), 64));

	if (spd == NULL)
		return NULL;
	memset(spd, 0, head);
	spd->conf = (struct gw_sp_conf *)((uint8_t *)spd + head);
	return spd;
}

/* One list: conf's rules of that family and direction, sorted, with their SAs and ACL. */
static int
sp_build_one(const struct gw_dp *dp, const struct gw_conf *conf, int v6, int dir,
	     struct gw_spd **out)
{
	unsigned int n = 0;
	struct gw_spd *spd;
	size_t heap0 = gw_heap_used();

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
		if (dir == GW_DIR_IN && r->spi_prev != 0)
			sp->sa_prev = sa_up(dp, conf, GW_DIR_IN, r->spi_prev);
		sp->sa = sa_up(dp, conf, (uint8_t)dir, r->spi);
		if (sp->sa == NULL) {
			fprintf(stderr, "vecsec-gw: line %d: SP names SA %u which is not set up\n",
				r->line, r->spi);
			return -EINVAL;
		}
	}
	if (spd->n > RTE_ACL_MAX_PRIORITY || acl_build(spd, v6) != 0) {
		fprintf(stderr, "vecsec-gw: cannot build the SPD's ACL (%u rules)\n", spd->n);
		return -ENOMEM;
	}
	/* the ACL's heap memory (nothing else allocates there meanwhile but by chance) */
	spd->mem = gw_heap_used() - heap0 + (size_t)(n + 1) * (sizeof(struct gw_sp) +
		sizeof(struct gw_sp_conf)) + sizeof(*spd);
	return 0;
}

int
gw_sp_build_some(const struct gw_dp *dp, const struct gw_conf *conf, unsigned int mask,
		 struct gw_spd *out[2][2])
{
	memset(out, 0, 4 * sizeof(out[0][0]));
	for (int v6 = 0; v6 < 2; v6++) {
		for (int dir = 0; dir < 2; dir++) {
			int rc;

			if (!(mask & GW_SPD_BIT(v6, dir)))
				continue;
			rc = sp_build_one(dp, conf, v6, dir, &out[v6][dir]);
			if (rc != 0) {
				gw_sp_free(out);
				return rc;
			}
		}
	}
	return 0;
}

int
gw_sp_build(const struct gw_dp *dp, const struct gw_conf *conf, struct gw_spd *out[2][2])
{
	return gw_sp_build_some(dp, conf, GW_SPD_ALL, out);
}

void
gw_sp_free(struct gw_spd *t[2][2])
{
	for (int v6 = 0; v6 < 2; v6++)
		for (int dir = 0; dir < 2; dir++) {
			if (t[v6][dir] != NULL)
				rte_acl_free(t[v6][dir]->acl);
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
			gw_ip6_walk(l3, l3_len, &proto, NULL) != (int)l3_len)
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

/*
 * l3 points at the IP header of a packet whose header lengths the caller
 * has checked (l3_len bytes of header, pkt_len bytes in all, contiguous).
 */
const struct gw_sp *
gw_sp_lookup(const struct gw_dp *dp, bool v6, uint8_t dir, const uint8_t *l3,
		uint32_t l3_len, uint32_t pkt_len)
{
	const struct gw_spd *spd = __atomic_load_n(&dp->spd[v6][dir], __ATOMIC_ACQUIRE);
	const uint8_t *src, *dst;
	uint8_t proto;
	uint16_t sport = 0, dport = 0;
	bool first_frag = true;

	if (v6) {
		const struct rte_ipv6_hdr *h = (const struct rte_ipv6_hdr *)l3;

		src = h->src_addr;
		dst = h->dst_addr;
		proto = sp_ip6_upper(l3, l3_len);
	} else {
		const struct rte_ipv4_hdr *h = (const struct rte_ipv4_hdr *)l3;

		src = (const uint8_t *)&h->src_addr;
		dst = (const uint8_t *)&h->dst_addr;
		proto = h->next_proto_id;
		first_frag = (rte_be_to_cpu_16(h->fragment_offset) & RTE_IPV4_HDR_OFFSET_MASK) == 0;
	}
	if (first_frag && (proto == IPPROTO_TCP || proto == IPPROTO_UDP || proto == IPPROTO_SCTP) &&
			pkt_len >= l3_len + 4) {
		sport = (uint16_t)(l3[l3_len] << 8 | l3[l3_len + 1]);
		dport = (uint16_t)(l3[l3_len + 2] << 8 | l3[l3_len + 3]);
	}
	for (unsigned int i = 0; i < spd->n; i++) {
		const struct gw_sp_conf *r = &spd->conf[i];

		if (proto < r->proto_lo || proto > r->proto_hi ||
				sport < r->sport_lo || sport > r->sport_hi ||
				dport < r->dport_lo || dport > r->dport_hi)
			continue;
		if (!prefix_match(src, r->src.b, r->src_len) ||
				!prefix_match(dst, r->dst.b, r->dst_len))
			continue;
		return &spd->rules[i];
	}
	return NULL;
}

/* The 5-tuple of the packet whose IP header is at l3 (see gw_sp_lookup). */
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

void
gw_sp_lookup_bulk(const struct gw_dp *dp, bool v6, uint8_t dir, const uint8_t *const l3[],
		const uint32_t l3_len[], const uint32_t pkt_len[], uint16_t n,
		const struct gw_sp *out[])
{
	const struct gw_spd *spd = __atomic_load_n(&dp->spd[v6][dir], __ATOMIC_ACQUIRE);
	struct sp_key keys[GW_BURST];
	const uint8_t *data[GW_BURST];
	uint32_t res[GW_BURST];

	if (spd->acl == NULL) {
		for (uint16_t i = 0; i < n; i++)
			out[i] = NULL;
		return;
	}
	for (uint16_t i = 0; i < n; i++) {
		key_of(&keys[i], v6, l3[i], l3_len[i], pkt_len[i]);
		data[i] = (const uint8_t *)&keys[i];
	}
	if (rte_acl_classify(spd->acl, data, res, n, 1) != 0) {
		for (uint16_t i = 0; i < n; i++)
			out[i] = NULL;
		return;
	}
	for (uint16_t i = 0; i < n; i++)
		out[i] = res[i] != 0 && res[i] <= spd->n ? &spd->rules[res[i] - 1] : NULL;
}
