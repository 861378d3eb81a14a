/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The ports: every ethdev EAL has (up to GW_MAX_PORTS) started with one
 * rx and one tx queue per worker, -u's ESP side marked, --mtu and the
 * configuration's neighbours applied (gw_ports_start()); stopped and
 * closed at the end (gw_ports_stop()). And how many packet buffers they
 * and the workers need (gw_mbufs_needed()).
 */
#include "gw_main.h"
#include "gw_log.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_mbuf.h>

#define GW_NB_MBUF 16384        /* the least; more with many ports and workers (gw_mbufs_needed) */
#define GW_RX_DESC 1024
#define GW_TX_DESC 1024

static int
port_init(uint16_t port, struct rte_mempool *mp, bool esp_side)
{
	struct rte_eth_conf pc;
	struct rte_eth_dev_info info;
	uint16_t nq = (uint16_t)gw.nb_workers, nrx, ntx;
	int rc;

	memset(&pc, 0, sizeof(pc));
	rc = rte_eth_dev_info_get(port, &info);
	if (rc != 0)
		return rc;
	nrx = RTE_MIN(nq, info.max_rx_queues);
	/* fewer tx queues than workers (net_pcap: one per tx file): workers share them */
	ntx = RTE_MIN(nq, info.max_tx_queues);
	if (ntx == 0) {
		GW_LOG(ERR, "port %u has no tx queue", port);
		return -ENOTSUP;
	}
	/* the NIC's IPv4 header checksum verdict where it has one (the worker checks the rest) */
	pc.rxmode.offloads = info.rx_offload_capa & RTE_ETH_RX_OFFLOAD_IPV4_CKSUM;
	/*
	 * One rx queue per worker: RSS spreads the packets over them by IP
	 * addresses only, so every packet of a tunnel (outer addresses) and every
	 * fragment of a datagram reaches the same worker, in order: per-SA
	 * ordering and one worker per inbound SA window (docs/operations.md).
	 */
	if (nrx > 1) {
		pc.rx_adv_conf.rss_conf.rss_hf = RTE_ETH_RSS_IP & info.flow_type_rss_offloads;
		if (pc.rx_adv_conf.rss_conf.rss_hf != 0)
			pc.rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
		else
			GW_LOG(INFO, "port %u: no RSS on IP addresses: its %u rx queues get what "
			       "the device puts there (net_pcap: one file each)", port, nrx);
	}
	rc = rte_eth_dev_configure(port, nrx, ntx, &pc);
	for (uint16_t q = 0; rc == 0 && q < nrx; q++)
		rc = rte_eth_rx_queue_setup(port, q, GW_RX_DESC, rte_eth_dev_socket_id(port), NULL,
			mp);
	for (uint16_t q = 0; rc == 0 && q < ntx; q++)
		rc = rte_eth_tx_queue_setup(port, q, GW_TX_DESC, rte_eth_dev_socket_id(port), NULL);
	if (rc == 0)
		rc = rte_eth_dev_start(port);
	if (rc != 0) {
		GW_LOG(ERR, "port %u: cannot start: %s", port, strerror(-rc));
		return rc;
	}
	rte_eth_promiscuous_enable(port);
	gw.port[port].used = true;
	gw.port[port].esp_side = esp_side;
	gw.port[port].nb_txq = ntx;
	if (rte_eth_dev_get_mtu(port, &gw.port[port].mtu) != 0 || gw.port[port].mtu == 0)
		gw.port[port].mtu = RTE_ETHER_MTU;
	gw.port[port].tx_shared = ntx < nq;
	for (uint16_t q = 0; q < ntx; q++)
		rte_spinlock_init(&gw.port[port].tx_lock[q]);
	rte_eth_macaddr_get(port, &gw.port[port].mac);
	for (uint16_t w = 0; w < gw.nb_workers; w++) {
		struct gw_worker *wk = &gw.worker[w];

		if (w < nrx) {
			wk->rxq[wk->nb_rxq].port = port;
			wk->rxq[wk->nb_rxq].queue = w;
			wk->nb_rxq++;
		}
	}
	return 0;
}

/*
 * Packet buffers for the rings that can hold them all at once: every rx
 * and tx descriptor of every port's queues, each worker's cryptodev queue
 * pairs and reassembly table, and a burst's worth in each worker's hands.
 */
unsigned int
gw_mbufs_needed(unsigned int ports, unsigned int workers)
{
	unsigned int n = ports * workers * (GW_RX_DESC + GW_TX_DESC) +
		workers * (2048 + 8 * gw.frag_tbl_sz + 4 * GW_BURST) + 2048;

	return RTE_MAX(n, (unsigned int)GW_NB_MBUF);
}

/*
 * Every port started; -u checked against the ports EAL has (the one check
 * that needs them: after EAL, but before anything is built). Returns 0, or
 * the exit status: 2 for -u, 1 otherwise.
 */
int
gw_ports_start(struct opts *o, const struct gw_conf *c, struct rte_mempool *mp)
{
	int rc;

	gw.nb_ports = (uint16_t)RTE_MIN(rte_eth_dev_count_avail(), GW_MAX_PORTS);
	if (gw.nb_ports == 0) {
		GW_LOG(ERR, "no ports: add some with --vdev (net_pcap, net_tap, net_ring), or bind "
		       "NICs to vfio-pci (docs/operations.md)");
		return 1;
	}
	if (o->unprot_mask >> gw.nb_ports != 0) {
		GW_LOG(ERR, "-u %#" PRIx64 ": port %u does not exist (%u port%s: 0..%u)",
		       o->unprot_mask, (unsigned int)rte_bsf64(o->unprot_mask >> gw.nb_ports) +
		       gw.nb_ports, gw.nb_ports, gw.nb_ports > 1 ? "s" : "", gw.nb_ports - 1);
		return 2;
	}
	for (uint16_t p = 0; p < gw.nb_ports; p++)
		if (port_init(p, mp, (o->unprot_mask >> p & 1) != 0) != 0)
			return 1;
	for (uint16_t p = 0; p < gw.nb_ports; p++) {
		if (o->mtu[p] == 0)
			continue;
		/* the device's own MTU where it has one; what we send is bounded here anyway */
		rc = rte_eth_dev_set_mtu(p, o->mtu[p]);
		if (rc != 0 && rc != -ENOTSUP)
			GW_LOG(INFO, "port %u: device MTU not set to %u: %s", p, o->mtu[p],
			       strerror(-rc));
		gw.port[p].mtu = o->mtu[p];
	}
	gw_rt_neigh_apply(&gw, c);
	return 0;
}

/* every port started, stopped and closed (nothing polls them any more) */
void
gw_ports_stop(void)
{
	for (uint16_t p = 0; p < gw.nb_ports; p++) {
		if (gw.port[p].used) {
			rte_eth_dev_stop(p);
			rte_eth_dev_close(p);
		}
	}
}
