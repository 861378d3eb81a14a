/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Next hops from the host's kernel (`--kernel-nh`, kernel_nh.c): the
 * routes and neighbours the kernel has on the host ports' taps, mirrored
 * over netlink (the linux-cp model). What the workers read, inline here:
 * one immutable table, published by pointer and freed after an RCU grace
 * period (docs/gateway.md, "Publishing changes to the workers").
 *
 *   route      a packet no `rt` rule routes: the kernel's main-table
 *              unicast routes whose device is the tap of a port of the
 *              right kind (the ESP side or the protected side, as rt.c
 *              splits them), longest prefix first, then the lowest metric;
 *              the next hop is the route's gateway, or the destination
 *              itself on a connected route
 *   neighbour  the MAC of that next hop on that port, from the kernel's
 *              neighbour table on the tap (ARP, IPv6 ND: the kernel's);
 *              a port with a `neigh` line keeps that MAC for everything.
 *              Unknown: the packet is dropped (`no_neigh`) and the kernel
 *              is asked to resolve the address (kernel_nh.c)
 */
#ifndef GW_KERNEL_NH_H
#define GW_KERNEL_NH_H

#include "gw_dp.h"

#include <arpa/inet.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <rte_ether.h>
#include <rte_ring_elem.h>

struct gw_knh_rt {
	uint8_t v6;
	uint8_t len;                    /* prefix length */
	uint8_t port;                   /* the gateway port whose tap the route names */
	uint8_t esp_side;               /* that port's kind (rt.c's split) */
	uint8_t via;                    /* has a gateway: gw, else the destination */
	uint32_t prio;                  /* the kernel's metric */
	uint8_t dst[16];
	uint8_t gw[16];
};

struct gw_knh_nb {
	uint8_t key[18];                /* v6, port, address (IPv4 in the first 4) */
	struct rte_ether_addr mac;
};

struct gw_knh_tab {
	unsigned int nr, nn;
	/* per port: 1 where the kernel has neighbours for it (it has a tap) */
	uint8_t kernel_l2[GW_MAX_PORTS];
	struct gw_knh_rt *rt;           /* [nr], longest prefix first, then metric */
	struct gw_knh_nb *nb;           /* [nn], sorted by key */
};

/* what a worker asks the netlink thread to have the kernel resolve */
struct gw_knh_req {
	uint8_t v6, port, pad[2];
	uint8_t addr[16];
};

extern bool gw_knh_on;
extern struct gw_knh_tab *gw_knh_tab;
extern struct rte_ring *gw_knh_ring;    /* requests: workers enqueue, the thread drains */

/* kernel_nh.c: the netlink thread, started after RCU exists, stopped after the workers */
int gw_knh_start(void);
void gw_knh_stop(void);
/* `show rt`'s part: the kernel's routes and neighbours in force (nothing without --kernel-nh) */
void gw_knh_show(FILE *out);

/* An address of `show rt` (the rules' and the kernel tables' lines) to out. */
static inline void
gw_put_addr(FILE *out, bool v6, const uint8_t *b)
{
	char a[INET6_ADDRSTRLEN];

	inet_ntop(v6 ? AF_INET6 : AF_INET, b, a, sizeof(a));
	fputs(a, out);
}

/* A lost request is asked again by the next packet: no wait, no count. */
static inline void
gw_knh_resolve(uint16_t port, bool v6, const uint8_t *addr)
{
	struct gw_knh_req q = { .v6 = (uint8_t)v6, .port = (uint8_t)port };

	memcpy(q.addr, addr, v6 ? 16 : 4);
	rte_ring_mp_enqueue_elem(gw_knh_ring, &q, sizeof(q));
}

static inline bool
gw_knh_prefix(const uint8_t *a, const uint8_t *b, unsigned int len)
{
	unsigned int n = len / 8, r = len % 8;

	if (memcmp(a, b, n) != 0)
		return false;
	return r == 0 || ((a[n] ^ b[n]) & (uint8_t)(0xff << (8 - r))) == 0;
}

/*
 * The port for dst (IPv4 in the first 4 bytes) by the kernel's routes, or
 * -1; *nh becomes the next hop's address.
 */
static inline int
gw_knh_route(bool to_esp_side, bool v6, const uint8_t **nh)
{
	const struct gw_knh_tab *t = __atomic_load_n(&gw_knh_tab, __ATOMIC_ACQUIRE);

	if (t == NULL)
		return -1;
	for (unsigned int i = 0; i < t->nr; i++) {
		const struct gw_knh_rt *r = &t->rt[i];

		if (r->v6 != v6 || r->esp_side != to_esp_side || !gw_knh_prefix(r->dst, *nh, r->len))
			continue;
		if (r->via)
			*nh = r->gw;
		return r->port;
	}
	return -1;
}

/*
 * The destination MAC for a packet leaving on port towards next hop nh:
 * 0 and *mac set; or -1 (no neighbour yet: resolution asked).
 */
static inline int
gw_knh_l2(uint16_t port, bool v6, const uint8_t *nh, struct rte_ether_addr *mac)
{
	const struct gw_knh_tab *t = __atomic_load_n(&gw_knh_tab, __ATOMIC_ACQUIRE);
	uint8_t key[18] = { (uint8_t)v6, (uint8_t)port };
	unsigned int lo = 0, hi;

	/* a `neigh` line wins; a port without a tap has no kernel neighbours */
	if (gw_port_peer(&gw.port[port], mac) || t == NULL || !t->kernel_l2[port])
		return 0;
	memcpy(key + 2, nh, v6 ? 16 : 4);
	hi = t->nn;
	while (lo < hi) {
		unsigned int mid = (lo + hi) / 2;
		int c = memcmp(t->nb[mid].key, key, sizeof(key));

		if (c == 0) {
			rte_ether_addr_copy(&t->nb[mid].mac, mac);
			return 0;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	gw_knh_resolve(port, v6, nh);
	return -1;
}

#endif
