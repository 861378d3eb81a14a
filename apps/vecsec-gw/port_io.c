/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec-gw port I/O, the out-of-line part (port_io.h): the tx flush, once
 * per port and poll or when a buffer is full. The route is static inline in
 * port_io.h: out of line, called from three files, it cost 2 to 8
 * instructions more per packet than beside its callers (callgrind).
 */
#include "port_io.h"

void
gw_port_flush(struct gw_worker *w, uint16_t port)
{
	struct gw_txbuf *tb = &w->tx[port];
	uint16_t sent;

	if (tb->n == 0)
		return;
	if (gw.port[port].tx_shared) {
		uint16_t q = (uint16_t)(w->id % gw.port[port].nb_txq);

		rte_spinlock_lock(&gw.port[port].tx_lock[q]);
		sent = rte_eth_tx_burst(port, q, tb->m, tb->n);
		rte_spinlock_unlock(&gw.port[port].tx_lock[q]);
	} else {
		sent = rte_eth_tx_burst(port, (uint16_t)w->id, tb->m, tb->n);
	}
	w->st.port[port].tx += sent;
	for (uint16_t i = sent; i < tb->n; i++)
		gw_port_drop(w, NULL, tb->m[i], GW_DROP_RING_FULL);
	tb->n = 0;
}
