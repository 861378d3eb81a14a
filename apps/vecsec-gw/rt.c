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
 *
 * A reload replaces the tables (gw_rt_prepare, gw_rt_commit): new ones are
 * built beside the published ones, swapped in with an atomic exchange each,
 * and the old ones freed after an RCU grace period; the ports' next-hop
 * MACs (`neigh`) are one word each, stored atomically (gw_port_peer_set).
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

/*
 * New route tables for conf's routes into s (names made unique by a
 * generation, so a reload's tables live beside the published ones).
 * 0, or -errno with the reason in err; s holds what was made either way.
 */
static int
rt_build(struct gw_dp *dp, const struct gw_conf *conf, struct gw_rt_set *s, char *err,
	 size_t err_len)
{
	static unsigned int gen;
	unsigned int need4 = tbl8_need(conf, 0), need6 = tbl8_need(conf, 1);
	bool used[2][2] = { { false, false }, { false, false } };       /* [v6][esp side] */
	char name[64];

	RTE_BUILD_BUG_ON(GW_MAX_PORTS > RT_NONE);
	memset(s, 0, sizeof(*s));
	gen++;
	if (conf->nb_rt > dp->max_rt) {
		snprintf(err, err_len, "%u routes in the configuration, room for %u (--max-rt)",
			 conf->nb_rt, dp->max_rt);
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
		 * Only the tables that get routes: an empty one would still
		 * take its big first-level table (16 to 64 MiB) and the time
		 * to clear it (a reload that adds routes builds it then).
		 */
		snprintf(name, sizeof(name), "gw_fib4_%d_%u", prot, gen);
		if (used[0][prot])
			s->fib4[prot] = rte_fib_create(name, SOCKET_ID_ANY, &c4);
		snprintf(name, sizeof(name), "gw_fib6_%d_%u", prot, gen);
		if (used[1][prot])
			s->fib6[prot] = rte_fib6_create(name, SOCKET_ID_ANY, &c6);
		if ((used[0][prot] && s->fib4[prot] == NULL) ||
		    (used[1][prot] && s->fib6[prot] == NULL)) {
			snprintf(err, err_len, "cannot create route tables: %s",
				 rte_strerror(rte_errno));
			return -ENOMEM;
		}
	}
	for (unsigned int i = 0; i < conf->nb_rt; i++) {
		const struct gw_rt_conf *r = &conf->rt[i];
		int prot, rc;

		if (r->port >= dp->nb_ports || !dp->port[r->port].used) {
			snprintf(err, err_len, "route at line %d: port %u does not exist (%u ports)",
				 r->line, r->port, dp->nb_ports);
			return -EINVAL;
		}
		prot = dp->port[r->port].esp_side;
		if (r->v6) {
			rc = rte_fib6_add(s->fib6[prot], r->dst.b, r->dst_len, r->port);
		} else {
			uint32_t a;

			memcpy(&a, r->dst.b, 4);
			rc = rte_fib_add(s->fib4[prot], rte_be_to_cpu_32(a), r->dst_len, r->port);
		}
		if (rc < 0) {
			snprintf(err, err_len, "route at line %d: cannot add: %s", r->line,
				 strerror(-rc));
			return rc;
		}
	}
	return 0;
}

void
gw_rt_abort(struct gw_rt_set *s)
{
	for (int prot = 0; prot < 2; prot++) {
		rte_fib_free(s->fib4[prot]);
		rte_fib6_free(s->fib6[prot]);
	}
	memset(s, 0, sizeof(*s));
}

int
gw_rt_setup(struct gw_dp *dp, const struct gw_conf *conf)
{
	struct gw_rt_set s;
	char err[256];
	int rc;

	/* every route fits in either table; room for a quarter more (at least 1024) */
	if (dp->max_rt == 0)
		dp->max_rt = conf->nb_rt + RTE_MAX(conf->nb_rt / 4, 1024u);
	rc = rt_build(dp, conf, &s, err, sizeof(err));
	if (rc != 0) {
		fprintf(stderr, "vecsec-gw: %s\n", err);
		gw_rt_abort(&s);
		return rc;
	}
	/* no worker runs yet */
	memcpy(dp->fib4, s.fib4, sizeof(s.fib4));
	memcpy(dp->fib6, s.fib6, sizeof(s.fib6));
	return 0;
}

int
gw_rt_prepare(struct gw_dp *dp, const struct gw_conf *conf, struct gw_rt_set *s, char *err,
	      size_t err_len)
{
	int rc = rt_build(dp, conf, s, err, err_len);

	if (rc != 0)
		gw_rt_abort(s);
	return rc;
}

/*
 * Each table swapped with one atomic exchange (a worker looks up in the
 * old or the new one, never half of either), the old ones freed once every
 * worker has passed a quiescent point. Under the control-plane lock
 * (reload), which the workers never take.
 */
void
gw_rt_commit(struct gw_dp *dp, const struct gw_conf *conf, struct gw_rt_set *s)
{
	for (int prot = 0; prot < 2; prot++) {
		s->fib4[prot] = __atomic_exchange_n(&dp->fib4[prot], s->fib4[prot],
						    __ATOMIC_ACQ_REL);
		s->fib6[prot] = __atomic_exchange_n(&dp->fib6[prot], s->fib6[prot],
						    __ATOMIC_ACQ_REL);
	}
	gw_rt_neigh_apply(dp, conf);
	if (dp->rcu != NULL)
		rte_rcu_qsbr_synchronize(dp->rcu, RTE_QSBR_THRID_INVALID);
	gw_rt_abort(s);         /* now the old tables */
}

void
gw_rt_neigh_apply(struct gw_dp *dp, const struct gw_conf *conf)
{
	for (uint16_t p = 0; p < GW_MAX_PORTS; p++) {
		uint8_t mac[6] = { 0x02, 0, 0, 0, 0, (uint8_t)p };
		bool set = false;

		for (unsigned int i = 0; i < conf->nb_neigh; i++)
			if (conf->neigh[i].port == p) {
				memcpy(mac, conf->neigh[i].mac, sizeof(mac));
				set = true;     /* the last line for a port wins, as before */
			}
		gw_port_peer_set(&dp->port[p], mac, set);
	}
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
		struct rte_fib6 *f = __atomic_load_n(&dp->fib6[to_esp_side], __ATOMIC_ACQUIRE);
		uint8_t a[1][RTE_FIB6_IPV6_ADDR_SIZE];

		if (f == NULL)
			return -1;
		memcpy(a[0], h->dst_addr, sizeof(a[0]));
		rte_fib6_lookup_bulk(f, a, &hop, 1);
	} else {
		const struct rte_ipv4_hdr *h = (const struct rte_ipv4_hdr *)l3;
		struct rte_fib *f = __atomic_load_n(&dp->fib4[to_esp_side], __ATOMIC_ACQUIRE);
		uint32_t a = rte_be_to_cpu_32(h->dst_addr);

		if (f == NULL)
			return -1;
		rte_fib_lookup_bulk(f, &a, &hop, 1);
	}
	return hop == RT_NONE ? -1 : (int)hop;
}
