/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec-gw routing: rte_fib (IPv4, DIR-24-8) and rte_fib6 (IPv6, trie) on
 * the destination address, next hop = output port. rte_fib keeps its rules
 * in a tree (rte_rib), so n routes load in O(n log n); rte_lpm searches its
 * rule list on every add, and 100,000 host routes took it minutes. Routes are split by the kind of their
 * port: packets leaving towards the ESP side (ESP after outbound processing,
 * bypass traffic from protected ports) look up the routes to unprotected
 * (ESP-side) ports, decrypted and inbound-bypass packets those to protected
 * ports. ipsec-secgw keeps one table; with its configs (protected and
 * unprotected networks apart) both give the same answer, and the split lets
 * one gateway carry traffic for transport-mode peers on both sides.
 */
#include "gw_dp.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_fib.h>
#include <rte_fib6.h>
#include <rte_ip.h>

/* A prefix cut to bits (the rest zero), with the level it is a key of. */
struct cut {
	uint8_t level;
	uint8_t b[16];
};

static int
cmp_cut(const void *a, const void *b)
{
	return memcmp(a, b, sizeof(struct cut));
}

/*
 * tbl8 groups the routes of one family need: rte_fib resolves the first 24
 * bits in its big table and every further 8 bits in a group of 256 entries,
 * one group per distinct prefix a route runs through (IPv4: its /24; IPv6:
 * its /24, /32, ... up to the byte before its last). Counted exactly by
 * sorting those prefixes, so 100,000 host routes get what they need and
 * no more.
 */
static unsigned int
tbl8_need(const struct gw_conf *conf, int v6)
{
	size_t n = 0, k = 0;
	unsigned int groups = 0;
	struct cut *c;

	for (unsigned int i = 0; i < conf->nb_rt; i++)
		if (conf->rt[i].v6 == v6 && conf->rt[i].dst_len > 24)
			n += (conf->rt[i].dst_len - 24 + 7) / 8;
	if (n == 0)
		return 0;
	c = calloc(n, sizeof(*c));
	if (c == NULL)
		return (unsigned int)RTE_MIN(n, (size_t)1 << 24);   /* the bound instead */
	for (unsigned int i = 0; i < conf->nb_rt; i++) {
		const struct gw_rt_conf *r = &conf->rt[i];

		if (r->v6 != v6 || r->dst_len <= 24)
			continue;
		for (unsigned int bits = 24; bits < r->dst_len; bits += 8, k++) {
			c[k].level = (uint8_t)bits;
			memcpy(c[k].b, r->dst.b, bits / 8);
		}
	}
	qsort(c, n, sizeof(*c), cmp_cut);
	for (size_t i = 0; i < n; i++)
		groups += i == 0 || cmp_cut(&c[i - 1], &c[i]) != 0;
	free(c);
	return groups;
}

/* rte_fib's answer for "no route": its smallest (1-byte) next hops hold 0..127 */
#define RT_NONE 127

int
gw_rt_setup(struct gw_dp *dp, const struct gw_conf *conf)
{
	unsigned int need4 = tbl8_need(conf, 0), need6 = tbl8_need(conf, 1);
	bool used[2][2] = { { false, false }, { false, false } };       /* [v6][esp side] */
	char name[64];

	RTE_BUILD_BUG_ON(GW_MAX_PORTS > RT_NONE);
	/* every route fits in either table; room for a quarter more (at least 1024) */
	if (dp->max_rt == 0)
		dp->max_rt = conf->nb_rt + RTE_MAX(conf->nb_rt / 4, 1024u);
	if (conf->nb_rt > dp->max_rt) {
		fprintf(stderr, "vecsec-gw: %u routes in the configuration, room for %u "
			"(--max-rt)\n", conf->nb_rt, dp->max_rt);
		return -ENOSPC;
	}
	/* a quarter more groups than the routes need; at least the old defaults */
	need4 += RTE_MAX(need4 / 4, 100u);
	need6 += RTE_MAX(need6 / 4, 4096u);
	for (unsigned int i = 0; i < conf->nb_rt; i++)
		if (conf->rt[i].port < dp->nb_ports)
			used[conf->rt[i].v6][dp->port[conf->rt[i].port].esp_side] = true;
	for (int prot = 0; prot < 2; prot++) {
		/* a group's index is kept where a next hop goes: entries wide enough for it */
		struct rte_fib_conf c4 = {
			.type = RTE_FIB_DIR24_8, .default_nh = RT_NONE,
			.max_routes = (int)dp->max_rt,
			.dir24_8 = { .num_tbl8 = need4, .nh_sz = need4 < 128 ? RTE_FIB_DIR24_8_1B :
				     need4 < 32768 ? RTE_FIB_DIR24_8_2B : RTE_FIB_DIR24_8_4B },
		};
		struct rte_fib6_conf c6 = {
			.type = RTE_FIB6_TRIE, .default_nh = RT_NONE,
			.max_routes = (int)dp->max_rt,
			.trie = { .num_tbl8 = need6,
				  .nh_sz = need6 < 32768 ? RTE_FIB6_TRIE_2B : RTE_FIB6_TRIE_4B },
		};

		/*
		 * Only the tables that get routes (routes are fixed at start): an
		 * empty one would still take its big first-level table (16 to 64
		 * MiB) and the time to clear it.
		 */
		snprintf(name, sizeof(name), "gw_fib4_%d", prot);
		if (used[0][prot])
			dp->fib4[prot] = rte_fib_create(name, SOCKET_ID_ANY, &c4);
		snprintf(name, sizeof(name), "gw_fib6_%d", prot);
		if (used[1][prot])
			dp->fib6[prot] = rte_fib6_create(name, SOCKET_ID_ANY, &c6);
		if ((used[0][prot] && dp->fib4[prot] == NULL) ||
		    (used[1][prot] && dp->fib6[prot] == NULL)) {
			fprintf(stderr, "vecsec-gw: cannot create route tables: %s\n",
				rte_strerror(rte_errno));
			return -ENOMEM;
		}
	}
	for (unsigned int i = 0; i < conf->nb_rt; i++) {
		const struct gw_rt_conf *r = &conf->rt[i];
		int prot, rc;

		if (r->port >= dp->nb_ports || !dp->port[r->port].used) {
			fprintf(stderr, "vecsec-gw: route at line %d: port %u does not exist "
				"(%u ports)\n", r->line, r->port, dp->nb_ports);
			return -EINVAL;
		}
		prot = dp->port[r->port].esp_side;
		if (r->v6) {
			rc = rte_fib6_add(dp->fib6[prot], r->dst.b, r->dst_len, r->port);
		} else {
			uint32_t a;

			memcpy(&a, r->dst.b, 4);
			rc = rte_fib_add(dp->fib4[prot], rte_be_to_cpu_32(a), r->dst_len, r->port);
		}
		if (rc < 0) {
			fprintf(stderr, "vecsec-gw: route at line %d: cannot add: %s\n", r->line,
				strerror(-rc));
			return rc;
		}
	}
	return 0;
}

void
gw_rt_teardown(struct gw_dp *dp)
{
	for (int prot = 0; prot < 2; prot++) {
		rte_fib_free(dp->fib4[prot]);
		rte_fib6_free(dp->fib6[prot]);
		dp->fib4[prot] = NULL;
		dp->fib6[prot] = NULL;
	}
}

/* Output port for the packet whose IP header is at l3, or -1. */
int
gw_rt_lookup(const struct gw_dp *dp, bool to_esp_side, const uint8_t *l3, bool v6)
{
	uint64_t hop = RT_NONE;

	if (v6) {
		const struct rte_ipv6_hdr *h = (const struct rte_ipv6_hdr *)l3;
		uint8_t a[1][RTE_FIB6_IPV6_ADDR_SIZE];

		if (dp->fib6[to_esp_side] == NULL)
			return -1;
		memcpy(a[0], h->dst_addr, sizeof(a[0]));
		rte_fib6_lookup_bulk(dp->fib6[to_esp_side], a, &hop, 1);
	} else {
		const struct rte_ipv4_hdr *h = (const struct rte_ipv4_hdr *)l3;
		uint32_t a = rte_be_to_cpu_32(h->dst_addr);

		if (dp->fib4[to_esp_side] == NULL)
			return -1;
		rte_fib_lookup_bulk(dp->fib4[to_esp_side], &a, &hop, 1);
	}
	return hop == RT_NONE ? -1 : (int)hop;
}
