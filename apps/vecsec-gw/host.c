/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec-gw exception path: the host's network stack behind a DPDK port.
 *
 * `--host-port P:T[:IFNAME]` pairs a gateway port P with a port T whose
 * other end is a kernel interface (net_tap, or virtio-user on vhost-net),
 * as a NIC driver would: the kernel interface gets P's MAC address, and
 * the addresses the host configures on it are the gateway's own addresses
 * on P's link. Then:
 *
 *   P -> host   non-IP frames (ARP, ...), IP multicast and broadcast, and
 *               every datagram to one of the gateway's own addresses that
 *               is not ESP: IKE (UDP 500 or a registered IKE port, UDP 4500
 *               or a registered NAT-T port with a zero non-ESP marker),
 *               ICMP, anything else. ESP and ESP in UDP to a NAT-T port
 *               stay with the gateway. On an unprotected (-u) port P, what
 *               is not IKE or IPv6 neighbour discovery meets the inbound
 *               SPD first, as the clear traffic it is (RFC 4301 5.2):
 *               protect and discard drop it (counted as policy drops),
 *               bypass lets it in, and so does no rule unless
 *               --host-default discard. Traffic arriving on a protected
 *               port for the gateway itself crosses no boundary and goes
 *               to the host without a lookup. A datagram goes to the tap
 *               of the port it arrived on, never to another one (the
 *               address may be another tap's: the host's weak host model
 *               accepts it there, as a kernel router would).
 *   host -> P   what the kernel sends on T leaves on P as the kernel built
 *               it (its ARP, its next-hop MAC), except IP packets the
 *               outbound SPD protects (those are encrypted and routed like
 *               traffic from a protected port) or discards, and, with
 *               --host-default discard, those no rule matches when P is an
 *               unprotected port (IPv6 neighbour discovery and MLD still
 *               pass). Only charon's IKE skips the SPD (as the kernel's
 *               per-socket bypass policies would have it): UDP from a port
 *               an IKE daemon registered (`bypass udp PORT`), from an
 *               address the host has on T, to port 500, 4500 or a
 *               registered bypass or NAT-T port, whose payload is an IKE
 *               message (or a non-ESP marker and one, or a NAT-keepalive).
 *   decrypted   inbound traffic to one of the gateway's own addresses
 *               (transport mode, or a tunnel whose selector includes the
 *               gateway) goes to the host instead of a route, after the
 *               check every decrypted packet has (the inbound policy must
 *               protect it with the SA it came in), to the tap whose
 *               interface has the address: it is traffic of the protected
 *               side, which that tap's port faces.
 *
 * So an IKE daemon on the host (charon with its stock socket plugin) talks
 * to its peers through the gateway's ports unchanged. The addresses are
 * read from the kernel (getifaddrs() on the T interfaces, every 100 ms) and
 * published to the workers under a sequence counter.
 *
 * The data path asks through gw_host_classify() alone (gw_dp.h: at rx, the
 * frame and then the datagram; after the SPD; before a route to a
 * protected port), and what this file takes it sends or drops through the
 * port I/O layer (port_io.h), never through the worker.
 */
#include "gw_dp.h"
#include "gw_log.h"
#include "gw_pkt.h"
#include "port_io.h"

#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_lcore.h>
#include <rte_udp.h>

#define HOST_MAX_ADDR 64
#define HOST_POLL_US 100000

int8_t gw_host_tap[GW_MAX_PORTS] = { -1, -1, -1, -1, -1, -1, -1, -1,
				     -1, -1, -1, -1, -1, -1, -1, -1 };
int8_t gw_host_of[GW_MAX_PORTS] = { -1, -1, -1, -1, -1, -1, -1, -1,
				    -1, -1, -1, -1, -1, -1, -1, -1 };
uint16_t gw_host_bypass_ports[GW_HOST_MAX_BYPASS];
bool gw_host_on;
bool gw_host_discard;

char gw_host_ifname[GW_MAX_PORTS][IF_NAMESIZE];

struct host_addr {
	uint8_t v6;
	uint8_t tap;            /* the T port that has it */
	uint8_t b[16];
};

/* The published table: writers make seq odd, change, make it even. */
static struct {
	uint32_t seq;
	uint32_t n;
	struct host_addr a[HOST_MAX_ADDR];
} tbl;

static pthread_t host_tid;
static volatile bool host_stop;
static bool host_thread_up;

/* ---- configuration ------------------------------------------------------ */

int
gw_host_parse(const char *arg)
{
	unsigned long p, t;
	char *end;
	const char *name = NULL;

	errno = 0;
	p = strtoul(arg, &end, 10);
	if (errno != 0 || end == arg || *end != ':' || p >= GW_MAX_PORTS)
		goto bad;
	arg = end + 1;
	t = strtoul(arg, &end, 10);
	if (errno != 0 || end == arg || (*end != '\0' && *end != ':') || t >= GW_MAX_PORTS ||
			t == p)
		goto bad;
	if (*end == ':')
		name = end + 1;
	if (gw_host_tap[p] >= 0 || gw_host_of[t] >= 0 || gw_host_tap[t] >= 0 ||
			gw_host_of[p] >= 0) {
		fprintf(stderr, "vecsec-gw: --host-port: port %lu or %lu paired twice\n", p, t);
		return -1;
	}
	if (name != NULL && (strlen(name) == 0 || strlen(name) >= IF_NAMESIZE))
		goto bad;
	gw_host_tap[p] = (int8_t)t;
	gw_host_of[t] = (int8_t)p;
	if (name != NULL)
		strcpy(gw_host_ifname[t], name);
	gw_host_on = true;
	return 0;
bad:
	fprintf(stderr, "vecsec-gw: --host-port %s: P:T or P:T:IFNAME (ports below %d, P != T)\n",
		arg, GW_MAX_PORTS);
	return -1;
}

/* Give the kernel interface of tap port t the MAC of its gateway port. */
static int
set_kernel_mac(uint16_t t, const struct rte_ether_addr *mac)
{
	struct ifreq ifr;
	int fd, rc;

	memset(&ifr, 0, sizeof(ifr));
	strcpy(ifr.ifr_name, gw_host_ifname[t]);
	ifr.ifr_hwaddr.sa_family = 1;   /* ARPHRD_ETHER */
	memcpy(ifr.ifr_hwaddr.sa_data, mac->addr_bytes, RTE_ETHER_ADDR_LEN);
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	rc = ioctl(fd, SIOCSIFHWADDR, &ifr) == 0 ? 0 : -errno;
	close(fd);
	return rc;
}

static void *host_main(void *arg);

int
gw_host_setup(struct gw_dp *dp, bool quiet)
{
	(void)quiet;            /* --quiet sets the log level (gw_log.h) */
	if (!gw_host_on)
		return 0;
	for (uint16_t p = 0; p < GW_MAX_PORTS; p++) {
		int t = gw_host_tap[p];
		struct rte_eth_dev_info info;
		char mac[RTE_ETHER_ADDR_FMT_SIZE];
		int rc;

		if (t < 0)
			continue;
		if (p >= dp->nb_ports || t >= dp->nb_ports || !dp->port[p].used ||
				!dp->port[t].used) {
			GW_LOG(ERR, "--host-port %u:%d: no such port", p, t);
			return -EINVAL;
		}
		if (dp->port[t].esp_side) {
			GW_LOG(ERR, "--host-port %u:%d: port %d is in -u (the host's "
				"port carries no ESP)", p, t, t);
			return -EINVAL;
		}
		if (gw_host_ifname[t][0] == '\0') {
			if (rte_eth_dev_info_get((uint16_t)t, &info) != 0 || info.if_index == 0 ||
					if_indextoname(info.if_index, gw_host_ifname[t]) == NULL) {
				GW_LOG(ERR, "--host-port %u:%d: port %d has no kernel "
					"interface the gateway can name (net_tap has one; give "
					"virtio-user's as %u:%d:IFNAME)", p, t, t, p, t);
				return -EINVAL;
			}
		}
		rte_ether_format_addr(mac, sizeof(mac), &dp->port[p].mac);
		rc = set_kernel_mac((uint16_t)t, &dp->port[p].mac);
		if (rc != 0) {
			GW_LOG(ERR, "--host-port %u:%d: cannot give %s the MAC %s of "
				"port %u: %s", p, t, gw_host_ifname[t], mac, p, strerror(-rc));
			return rc;
		}
		GW_LOG(INFO, "host interface %s (port %d) mirrors port %u, MAC %s",
		       gw_host_ifname[t], t, p, mac);
	}
	if (rte_ctrl_thread_create(&host_tid, "gw-host", NULL, host_main, NULL) != 0) {
		GW_LOG(ERR, "cannot start the host address thread");
		return -ENOMEM;
	}
	host_thread_up = true;
	return 0;
}

void
gw_host_teardown(void)
{
	if (!host_thread_up)
		return;
	host_stop = true;
	pthread_join(host_tid, NULL);
	host_thread_up = false;
}

/* ---- the gateway's own addresses ------------------------------------------ */

static void
addrs_poll(void)
{
	struct ifaddrs *ifa, *i;
	struct host_addr a[HOST_MAX_ADDR];
	uint32_t n = 0, seq;

	if (getifaddrs(&ifa) != 0)
		return;
	for (i = ifa; i != NULL && n < HOST_MAX_ADDR; i = i->ifa_next) {
		int t;

		if (i->ifa_addr == NULL || (i->ifa_addr->sa_family != AF_INET &&
					    i->ifa_addr->sa_family != AF_INET6))
			continue;
		for (t = 0; t < GW_MAX_PORTS; t++)
			if (gw_host_of[t] >= 0 && strcmp(gw_host_ifname[t], i->ifa_name) == 0)
				break;
		if (t == GW_MAX_PORTS)
			continue;
		memset(&a[n], 0, sizeof(a[n]));
		a[n].tap = (uint8_t)t;
		if (i->ifa_addr->sa_family == AF_INET) {
			memcpy(a[n].b, &((struct sockaddr_in *)i->ifa_addr)->sin_addr, 4);
		} else {
			a[n].v6 = 1;
			memcpy(a[n].b, &((struct sockaddr_in6 *)i->ifa_addr)->sin6_addr, 16);
		}
		n++;
	}
	freeifaddrs(ifa);
	if (n == tbl.n && memcmp(a, tbl.a, n * sizeof(a[0])) == 0)
		return;
	seq = __atomic_load_n(&tbl.seq, __ATOMIC_RELAXED);
	__atomic_store_n(&tbl.seq, seq + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	memcpy(tbl.a, a, sizeof(a));
	__atomic_store_n(&tbl.n, n, __ATOMIC_RELAXED);
	__atomic_store_n(&tbl.seq, seq + 2, __ATOMIC_RELEASE);
}

static void *
host_main(void *arg)
{
	(void)arg;
	while (!host_stop) {
		addrs_poll();
		usleep(HOST_POLL_US);
	}
	return NULL;
}

/* The tap port that has address b (IPv4 in b[0..3]) as its own, or -1. */
static int
local_tap(const uint8_t *b, bool v6)
{
	uint32_t s1, s2, n;
	int tap;

	do {
		s1 = __atomic_load_n(&tbl.seq, __ATOMIC_ACQUIRE);
		tap = -1;
		n = __atomic_load_n(&tbl.n, __ATOMIC_RELAXED);
		for (uint32_t i = 0; i < n && i < HOST_MAX_ADDR; i++) {
			const struct host_addr *a = &tbl.a[i];

			if (a->v6 == v6 && memcmp(a->b, b, v6 ? 16 : 4) == 0) {
				tap = a->tap;
				break;
			}
		}
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		s2 = __atomic_load_n(&tbl.seq, __ATOMIC_RELAXED);
	} while ((s1 & 1) != 0 || s1 != s2);
	return tap;
}

void
gw_host_list(FILE *out)
{
	uint32_t n = __atomic_load_n(&tbl.n, __ATOMIC_ACQUIRE);

	for (uint16_t p = 0; p < GW_MAX_PORTS; p++) {
		int t = gw_host_tap[p];

		if (t < 0)
			continue;
		fprintf(out, "host port %u interface %s (port %d)", p, gw_host_ifname[t], t);
		for (uint32_t i = 0; i < n && i < HOST_MAX_ADDR; i++) {
			char s[INET6_ADDRSTRLEN];

			if (tbl.a[i].tap != t)
				continue;
			inet_ntop(tbl.a[i].v6 ? AF_INET6 : AF_INET, tbl.a[i].b, s, sizeof(s));
			fprintf(out, " %s", s);
		}
		fputc('\n', out);
	}
	fprintf(out, "host bypass udp");
	for (unsigned int i = 0; i < GW_HOST_MAX_BYPASS; i++)
		if (gw_host_bypass_ports[i] != 0)
			fprintf(out, " %u", rte_be_to_cpu_16(gw_host_bypass_ports[i]));
	fprintf(out, "\nhost natt udp");
	for (unsigned int i = 0; i < GW_NATT_MAX_PORTS; i++)
		if (gw_natt_ports[i] != 0)
			fprintf(out, " %u", rte_be_to_cpu_16(gw_natt_ports[i]));
	fprintf(out, "\nhost default %s\n", gw_host_discard ? "discard" : "bypass");
}

/* ---- data path: gw_host_classify() and its steps --------------------------- */

static inline void
to_port(struct gw_worker *w, int port, struct rte_mbuf *m, bool to_host)
{
	if (to_host)
		w->st.host_in++;
	else
		w->st.host_out++;
	gw_port_tx(w, (uint16_t)port, m);
}

/* The Ethernet header in front of m's IP header again (strip_l2 left it in the headroom). */
static inline bool
l2_restore(struct rte_mbuf *m, bool v6, const struct rte_ether_addr *dst)
{
	struct rte_ether_hdr *eh = (struct rte_ether_hdr *)rte_pktmbuf_prepend(m, sizeof(*eh));

	if (eh == NULL)
		return false;
	if (dst != NULL)
		rte_ether_addr_copy(dst, &eh->dst_addr);
	eh->ether_type = rte_cpu_to_be_16(v6 ? RTE_ETHER_TYPE_IPV6 : RTE_ETHER_TYPE_IPV4);
	m->ol_flags = 0;
	return true;
}

/* rx on a P port, frame with its Ethernet header: true if taken (non-IP: to the host) */
/* rx on a T port: true if taken (non-IP from the host: out on P) */
static bool
host_l2(struct gw_worker *w, uint16_t port, struct rte_mbuf *m)
{
	const struct rte_ether_hdr *eh;
	uint16_t type;

	if (rte_pktmbuf_data_len(m) < sizeof(*eh))
		return false;
	eh = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	type = rte_be_to_cpu_16(eh->ether_type);
	if (type == RTE_ETHER_TYPE_IPV4 || type == RTE_ETHER_TYPE_IPV6)
		return false;
	if (gw_host_of[port] >= 0)
		to_port(w, gw_host_of[port], m, false);         /* the host's ARP, out */
	else
		to_port(w, gw_host_tap[port], m, true);         /* ARP for the host, in */
	return true;
}

/* Multicast or broadcast destination (the IP header at l3). */
static inline bool
dst_mcast(const uint8_t *dst, int v6)
{
	return v6 ? dst[0] == 0xff : (dst[0] & 0xf0) == 0xe0 ||
		(dst[0] & dst[1] & dst[2] & dst[3]) == 0xff;
}

/* port (network order) in a set of network-order ports (0: a free slot) */
static inline bool
port_in(const uint16_t *set, unsigned int max, uint16_t port_be)
{
	for (unsigned int i = 0; i < max; i++)
		if (__atomic_load_n(&set[i], __ATOMIC_RELAXED) == port_be)
			return port_be != 0;
	return false;
}

/*
 * Link control the host needs whatever the rules: IPv6 neighbour discovery
 * (RS, RA, NS, NA, redirect: RFC 4861, hop limit 255, so never forwarded),
 * MLD (RFC 2710/3810) and IGMP (RFC 3376), both hop limit 1. To the host it
 * skips the inbound SPD, as IKE does; from the host it meets the rules but
 * not --host-default discard. None of it leaves the link.
 */
static bool
link_ctl(const struct rte_mbuf *m, int v6, uint8_t proto)
{
	const struct rte_ipv6_hdr *h = rte_pktmbuf_mtod(m, const struct rte_ipv6_hdr *);
	uint8_t buf, type;
	const uint8_t *t;

	if (!v6)
		return proto == IPPROTO_IGMP &&
			rte_pktmbuf_mtod(m, const struct rte_ipv4_hdr *)->time_to_live == 1;
	if (proto != IPPROTO_ICMPV6 || m->pkt_len < m->l3_len + 4u)
		return false;
	t = rte_pktmbuf_read(m, m->l3_len, 1, &buf);
	if (t == NULL)
		return false;
	type = *t;
	if (type >= 133 && type <= 137)
		return h->hop_limits == 255;
	return (type >= 130 && type <= 132) || type == 143 ? h->hop_limits == 1 : false;
}

/*
 * The UDP datagram at m is for the host's IKE (inbound, exempt from the
 * SPD as the kernel's socket bypass is): to port 500 or a registered IKE
 * port, or to a NAT-T port with a zero non-ESP marker. *natt_esp: ESP in
 * UDP or a NAT-keepalive, the gateway's.
 */
static bool
udp_ike_in(const struct rte_mbuf *m, bool *natt_esp)
{
	const uint8_t *l3 = rte_pktmbuf_mtod(m, const uint8_t *);
	const struct rte_udp_hdr *u = (const struct rte_udp_hdr *)(l3 + m->l3_len);
	uint32_t plen = m->pkt_len - m->l3_len - sizeof(*u);
	uint8_t mk[4];
	const uint8_t *pl;

	*natt_esp = false;
	if (gw_natt_port(u->dst_port)) {
		if (plen == 1)
			return !(*natt_esp = true);
		if (plen < 4 || (pl = rte_pktmbuf_read(m, m->l3_len + sizeof(*u), 4, mk)) == NULL)
			return false;
		/* ESP in UDP is the gateway's; a zero marker is IKE */
		if ((pl[0] | pl[1] | pl[2] | pl[3]) != 0)
			return !(*natt_esp = true);
		return true;
	}
	return u->dst_port == RTE_BE16(500) ||
		port_in(gw_host_bypass_ports, GW_HOST_MAX_BYPASS, u->dst_port);
}

static void host_in(struct gw_worker *w, uint16_t port, struct rte_mbuf *m, int v6);

/* rx on a P port, IP datagram (after parse_l3 and reassembly): GW_HOST_NO, _TAKEN or _SPD_IN */
static enum gw_host_verdict
host_l3(struct gw_worker *w, uint16_t port, struct rte_mbuf *m, int v6, uint8_t proto,
	bool frag)
{
	const uint8_t *l3 = rte_pktmbuf_mtod(m, const uint8_t *);
	const uint8_t *dst = l3 + (v6 ? offsetof(struct rte_ipv6_hdr, dst_addr)
				      : offsetof(struct rte_ipv4_hdr, dst_addr));
	bool mcast = dst_mcast(dst, v6), exempt = false;

	if (!mcast) {
		bool natt_esp;

		if (proto == IPPROTO_ESP || local_tap(dst, v6) < 0)
			return GW_HOST_NO;
		/* a fragment (--reassemble 0) has no UDP header to judge: never exempt */
		if (proto == IPPROTO_UDP && !frag &&
				m->pkt_len >= m->l3_len + sizeof(struct rte_udp_hdr)) {
			exempt = udp_ike_in(m, &natt_esp);
			if (natt_esp)
				return GW_HOST_NO;
		}
	}
	if (!frag && link_ctl(m, v6, proto))
		exempt = true;
	/* clear traffic from the unprotected side: the inbound SPD decides (RFC 4301 5.2) */
	if (!exempt && gw.port[port].esp_side)
		return GW_HOST_SPD_IN;
	host_in(w, port, m, v6);
	return GW_HOST_TAKEN;
}

/* an IP datagram that arrived on P (a GW_HOST_SPD_IN one the SPD passed): to P's host tap */
static void
host_in(struct gw_worker *w, uint16_t port, struct rte_mbuf *m, int v6)
{
	const uint8_t *l3 = rte_pktmbuf_mtod(m, const uint8_t *);
	bool mcast = dst_mcast(l3 + (v6 ? offsetof(struct rte_ipv6_hdr, dst_addr)
				       : offsetof(struct rte_ipv4_hdr, dst_addr)), v6);

	if (!v6) {      /* a reassembled datagram's header changed */
		struct rte_ipv4_hdr *h = (struct rte_ipv4_hdr *)(uintptr_t)l3;

		h->hdr_checksum = 0;
		h->hdr_checksum = rte_ipv4_cksum(h);
	}
	if (!l2_restore(m, v6, mcast ? NULL : &gw.port[port].mac)) {
		gw_port_drop(w, NULL, m, GW_DROP_NO_MBUF);
		return;
	}
	/* the tap of the port it arrived on, whichever tap has the address */
	to_port(w, gw_host_tap[port], m, true);
}

/* An IKE message (RFC 7296 3.1, RFC 2408 3.1) of exactly len bytes at p. */
static inline bool
ike_msg(const uint8_t *p, uint32_t len)
{
	uint32_t l;

	if (len < 28 || ((p[17] >> 4) != 1 && (p[17] >> 4) != 2))
		return false;
	/* the initiator's SPI is never zero */
	if ((p[0] | p[1] | p[2] | p[3] | p[4] | p[5] | p[6] | p[7]) == 0)
		return false;
	l = (uint32_t)p[24] << 24 | (uint32_t)p[25] << 16 | (uint32_t)p[26] << 8 | p[27];
	return l == len;
}

static void host_out(struct gw_worker *w, uint16_t tap, struct rte_mbuf *m, int v6);

/* rx on a T port, IP datagram: true if sent on P without the SPD (charon's IKE) */
static bool
host_bypass(struct gw_worker *w, uint16_t tap, struct rte_mbuf *m, int v6, uint8_t proto,
	    bool frag)
{
	const uint8_t *l3 = rte_pktmbuf_mtod(m, const uint8_t *);
	const struct rte_udp_hdr *u;
	uint8_t buf[32];
	const uint8_t *pl;
	uint32_t plen;
	bool natt_dst;

	if (proto != IPPROTO_UDP || frag || m->pkt_len < m->l3_len + sizeof(*u))
		return false;
	u = (const struct rte_udp_hdr *)(l3 + m->l3_len);
	/* one of charon's sockets ... */
	if (!port_in(gw_host_bypass_ports, GW_HOST_MAX_BYPASS, u->src_port))
		return false;
	/* ... with an address the host has on this tap ... */
	if (local_tap(l3 + (v6 ? offsetof(struct rte_ipv6_hdr, src_addr)
			       : offsetof(struct rte_ipv4_hdr, src_addr)), v6) != tap)
		return false;
	/* ... to an IKE port of the peer ... */
	natt_dst = gw_natt_port(u->dst_port);
	if (!natt_dst && u->dst_port != RTE_BE16(500) &&
			!port_in(gw_host_bypass_ports, GW_HOST_MAX_BYPASS, u->dst_port))
		return false;
	/* ... carrying IKE: a message, a marker and a message, or a NAT-keepalive */
	plen = m->pkt_len - m->l3_len - sizeof(*u);
	pl = rte_pktmbuf_read(m, m->l3_len + sizeof(*u), RTE_MIN(plen, sizeof(buf)), buf);
	if (pl == NULL)
		return false;
	if (!ike_msg(pl, plen) &&
			!(plen >= 4 && (pl[0] | pl[1] | pl[2] | pl[3]) == 0 &&
			  ike_msg(pl + 4, plen - 4)) &&
			!(natt_dst && plen == 1 && pl[0] == 0xff))
		return false;
	host_out(w, tap, m, v6);
	return true;
}

/*
 * --host-default discard: the host's traffic no rule matches is dropped
 * where it would cross the boundary (the host's port is unprotected),
 * except the link's own control (link_ctl()). Between the host and a
 * protected port it never meets the wire, and passes as before.
 */
static inline bool
host_default_drop(uint16_t tap, const struct rte_mbuf *m, int v6, uint8_t proto)
{
	return gw_host_discard && gw.port[gw_host_of[tap]].esp_side &&
		!link_ctl(m, v6, proto);
}

static bool host_local(struct gw_worker *w, struct rte_mbuf *m, bool v6);

/* an IP datagram from the host the SPD does not protect: out on P as the host made it */
static void
host_out(struct gw_worker *w, uint16_t tap, struct rte_mbuf *m, int v6)
{
	int port = gw_host_of[tap];

	/* reassembled from the host's fragments: the gateway's routes fragment it again */
	if (!rte_pktmbuf_is_contiguous(m) || m->pkt_len > gw.port[port].mtu) {
		/* to a protected port: the gateway's own addresses first, as every route */
		if (!gw.port[port].esp_side &&
				host_local(w, m, (rte_pktmbuf_mtod(m, const uint8_t *)[0] >> 4) == 6))
			return;
		gw_port_route(w, m, gw.port[port].esp_side);
		return;
	}
	if (!l2_restore(m, v6, NULL)) {
		gw_port_drop(w, NULL, m, GW_DROP_NO_MBUF);
		return;
	}
	to_port(w, port, m, false);
}

/* before routing to a protected port: true if the destination is the gateway's own (to the host) */
static bool
host_local(struct gw_worker *w, struct rte_mbuf *m, bool v6)
{
	const uint8_t *l3 = rte_pktmbuf_mtod(m, const uint8_t *);
	int tap = local_tap(l3 + (v6 ? offsetof(struct rte_ipv6_hdr, dst_addr)
				     : offsetof(struct rte_ipv4_hdr, dst_addr)), v6);

	if (tap < 0)
		return false;
	if (!v6) {
		struct rte_ipv4_hdr *h = (struct rte_ipv4_hdr *)(uintptr_t)l3;

		h->hdr_checksum = 0;
		h->hdr_checksum = rte_ipv4_cksum(h);
	}
	if (!l2_restore(m, v6, &gw.port[gw_host_of[tap]].mac)) {
		gw_port_drop(w, NULL, m, GW_DROP_NO_MBUF);
		return true;
	}
	rte_ether_addr_copy(&gw.port[tap].mac,
		&rte_pktmbuf_mtod(m, struct rte_ether_hdr *)->src_addr);
	to_port(w, tap, m, true);
	return true;
}

/*
 * A packet from the host after the outbound SPD: what no rule protects
 * leaves as the host made it (no rule: unless --host-default discard, l3
 * GW_HOST_SPD_STRICT); the rest is the gateway's (protect: ESP; discard,
 * or no rule under discard: a policy drop). Clear traffic for the host
 * (GW_HOST_SPD_IN): bypass, or no rule unless --host-default discard, lets
 * it in; else a policy drop.
 */
static inline enum gw_host_verdict
host_spd(struct gw_worker *w, uint16_t port, struct rte_mbuf *m, const struct gw_host_pkt *p)
{
	bool none = p->sp == GW_HOST_SP_NONE;

	if (p->l3 != GW_HOST_SPD_IN) {
		if ((none && p->l3 == GW_HOST_SPD_OUT) || (!none && p->sp == GW_SP_BYPASS)) {
			host_out(w, port, m, p->v6);
			return GW_HOST_TAKEN;
		}
		return GW_HOST_NO;
	}
	if (none ? gw_host_discard : p->sp != GW_SP_BYPASS)
		gw_port_drop(w, NULL, m, GW_DROP_POLICY);
	else
		host_in(w, port, m, p->v6);
	return GW_HOST_TAKEN;
}

enum gw_host_verdict
gw_host_classify(struct gw_worker *w, uint16_t port, struct rte_mbuf *m,
		 const struct gw_host_pkt *p)
{
	switch (p->at) {
	case GW_HOST_AT_L2:
		return host_l2(w, port, m) ? GW_HOST_TAKEN : GW_HOST_NO;
	case GW_HOST_AT_L3:
		if (gw_host_of[port] < 0)
			return host_l3(w, port, m, p->v6, p->proto, p->frag);
		if (host_bypass(w, port, m, p->v6, p->proto, p->frag))
			return GW_HOST_TAKEN;
		/* the outbound SPD next, whatever the packet */
		return host_default_drop(port, m, p->v6, p->proto) ? GW_HOST_SPD_STRICT :
			GW_HOST_SPD_OUT;
	case GW_HOST_AT_SPD:
		return host_spd(w, port, m, p);
	case GW_HOST_AT_ROUTE:
		return host_local(w, m, p->v6) ? GW_HOST_TAKEN : GW_HOST_NO;
	}
	return GW_HOST_NO;
}
