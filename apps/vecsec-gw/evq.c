/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec-gw lifetime event queue: a ring under a spinlock. Workers post
 * only when an SA crosses a lifetime limit (a few times in its life), so
 * the lock is off the packet path but for those packets and held for a few
 * stores; the control thread (or the management thread, --ctrl none)
 * drains it. A full ring counts the event as lost rather than make a
 * worker wait.
 */
#include "gw_dp.h"
#include "gw_log.h"
#include "evq.h"

#include <inttypes.h>
#include <stdio.h>

#include <rte_spinlock.h>

/* Lifetime events from the workers; the control thread sends them on. */
static struct gw_event evq[GW_EVQ_SIZE];
static unsigned int evq_head, evq_tail;        /* under evq_lock */
static uint64_t evq_lost;
static rte_spinlock_t evq_lock = RTE_SPINLOCK_INITIALIZER;

void
gw_event_post(const struct gw_sa *s, bool hard, bool by_pkts, uint64_t limit)
{
	rte_spinlock_lock(&evq_lock);
	if (evq_tail - evq_head == GW_EVQ_SIZE) {
		evq_lost++;
	} else {
		struct gw_event *e = &evq[evq_tail % GW_EVQ_SIZE];

		e->hard = hard;
		e->dir = s->dir;
		e->by_pkts = by_pkts;
		e->spi = s->spi;
		e->limit = limit;
		evq_tail++;
	}
	rte_spinlock_unlock(&evq_lock);
}

void
gw_evq_drain(void (*send)(void *arg, const char *line, size_t len), void *arg)
{
	for (;;) {
		struct gw_event e;
		char line[128];
		int len;
		bool have = false;

		rte_spinlock_lock(&evq_lock);
		if (evq_head != evq_tail) {
			e = evq[evq_head % GW_EVQ_SIZE];
			evq_head++;
			have = true;
		}
		rte_spinlock_unlock(&evq_lock);
		if (!have)
			return;
		len = snprintf(line, sizeof(line), "expire %s %s %u %s %" PRIu64 "\n",
			e.hard ? "hard" : "soft", e.dir == GW_DIR_IN ? "in" : "out", e.spi,
			e.by_pkts ? "packets" : "bytes", e.limit);
		GW_LOG(NOTICE, "%.*s", len - 1, line);
		if (send != NULL)
			send(arg, line, (size_t)len);
	}
}
