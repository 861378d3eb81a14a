/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec-gw security policy database: four rule lists (IPv4/IPv6 x in/out)
 * sorted by priority, highest first (rte_acl's rule), first match wins among
 * equal priorities. Lookup is a linear scan over the 5-tuple: correct and
 * simple; rte_acl is the next step for large policy sets. The lists are
 * immutable; run-time changes publish new ones (ctrl.c).
 */
#include "gw_dp.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ip.h>

static int
cmp_pri(const void *a, const void *b)
{
	const struct gw_sp *x = a, *y = b;

	if (x->r.pri != y->r.pri)
		return x->r.pri > y->r.pri ? -1 : 1;
	return x->r.line < y->r.line ? -1 : x->r.line > y->r.line;
}

int
gw_sp_build(const struct gw_dp *dp, const struct gw_conf *conf, struct gw_spd *out[2][2])
{
	memset(out, 0, 4 * sizeof(out[0][0]));
	for (int v6 = 0; v6 < 2; v6++) {
		for (int dir = 0; dir < 2; dir++) {
			struct gw_spd *spd = calloc(1, sizeof(*spd) +
				(conf->nb_sp + 1) * sizeof(spd->rules[0]));

			if (spd == NULL)
				goto nomem;
			out[v6][dir] = spd;
			for (unsigned int i = 0; i < conf->nb_sp; i++) {
				const struct gw_sp_conf *r = &conf->sp[i];
				struct gw_sp *sp;

				if (r->v6 != v6 || r->dir != dir)
					continue;
				sp = &spd->rules[spd->n++];
				sp->r = *r;
				sp->sa = NULL;
				if (r->action != GW_SP_PROTECT)
					continue;
				for (unsigned int j = 0; j < dp->nb_sa; j++)
					if (dp->sa[j].active && dp->sa[j].dir == dir &&
							dp->sa[j].spi == r->spi)
						sp->sa = &dp->sa[j];
				if (sp->sa == NULL) {
					fprintf(stderr,
						"vecsec-gw: line %d: SP names SA %u which is not "
						"set up\n",
						r->line, r->spi);
					gw_sp_free(out);
					return -EINVAL;
				}
			}
			/* equal priorities keep their order in the configuration (line) */
			qsort(spd->rules, spd->n, sizeof(spd->rules[0]), cmp_pri);
		}
	}
	return 0;
nomem:
	gw_sp_free(out);
	return -ENOMEM;
}

void
gw_sp_free(struct gw_spd *t[2][2])
{
	for (int v6 = 0; v6 < 2; v6++)
		for (int dir = 0; dir < 2; dir++) {
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
		proto = h->proto;
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
		const struct gw_sp_conf *r = &spd->rules[i].r;

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
