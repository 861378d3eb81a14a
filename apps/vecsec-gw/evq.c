/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec-gw event queues: two rings under one spinlock. Workers post
 * lifetime events only when an SA crosses a limit (a few times in its
 * life), so the lock is off the packet path but for those packets and held
 * for a few stores (the TSC is read, the time is worked out when drained);
 * the control plane notes its own changes (SA added or deleted, counters
 * reset, a reload) as text lines. The control thread (or the management
 * thread, --ctrl none) drains both. A full ring counts the event as lost
 * rather than make anybody wait. Every line ends with `time SECONDS.MMM`
 * (Unix time): docs/control-protocol.md, "Events".
 */
#include "gw_dp.h"
#include "gw_log.h"
#include "evq.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <rte_cycles.h>
#include <rte_spinlock.h>

/* Lifetime events from the workers; the control thread sends them on. */
static struct gw_event evq[GW_EVQ_SIZE];
static unsigned int evq_head, evq_tail;        /* under evq_lock */
static uint64_t evq_lost;
static rte_spinlock_t evq_lock = RTE_SPINLOCK_INITIALIZER;

/*
 * The control plane's events, as lines (with their time). Larger than the
 * workers' ring: one poll of the control thread may serve a few hundred
 * requests, a reload add or remove many SAs at once.
 */
#define NOTE_LEN 160
#define NOTE_RING 2048
static char notes[NOTE_RING][NOTE_LEN];
static uint64_t lost_told;                     /* the drainer's: evq_lost already reported */
static unsigned int note_head, note_tail;      /* under evq_lock */

/* Now as Unix time in milliseconds. */
static uint64_t
unix_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/*
 * The Unix time of TSC value tsc (earlier than now_tsc, read with now_ms):
 * a drain takes one such pair for all its events, so their times follow
 * their TSC order (a pair per event, each age cut to whole milliseconds
 * apart, could put a later event a millisecond before the one ahead).
 */
static uint64_t
tsc_unix_ms(uint64_t tsc, uint64_t now_tsc, uint64_t now_ms)
{
	uint64_t ago = now_tsc > tsc ? (now_tsc - tsc) * 1000 / rte_get_tsc_hz() : 0;

	return ago < now_ms ? now_ms - ago : now_ms;
}

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
		e->tsc = rte_get_tsc_cycles();
		evq_tail++;
	}
	rte_spinlock_unlock(&evq_lock);
}

void
gw_event_note(const char *fmt, ...)
{
	char line[NOTE_LEN];
	uint64_t ms = unix_ms();
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(line) - 32)
		return;         /* the callers' lines are short: never cut one */
	snprintf(line + n, sizeof(line) - (size_t)n, " time %" PRIu64 ".%03u\n", ms / 1000,
		 (unsigned int)(ms % 1000));
	rte_spinlock_lock(&evq_lock);
	if (note_tail - note_head == NOTE_RING) {
		evq_lost++;
	} else {
		memcpy(notes[note_tail % NOTE_RING], line, sizeof(line));
		note_tail++;
	}
	rte_spinlock_unlock(&evq_lock);
}

/* The next control-plane line into line (NOTE_LEN bytes); false when none. */
static bool
note_take(char *line)
{
	bool have = false;

	rte_spinlock_lock(&evq_lock);
	if (note_head != note_tail) {
		memcpy(line, notes[note_head % NOTE_RING], NOTE_LEN);
		note_head++;
		have = true;
	}
	rte_spinlock_unlock(&evq_lock);
	return have;
}

/* Events lost to a full ring since the last drain: said to the log and to `subscribe all`. */
static void
lost_report(void (*send)(void *arg, const char *line, size_t len, bool all_only), void *arg)
{
	uint64_t lost, ms;
	char line[96];
	int len;

	rte_spinlock_lock(&evq_lock);
	lost = evq_lost;
	rte_spinlock_unlock(&evq_lock);
	if (lost == lost_told)
		return;
	ms = unix_ms();
	len = snprintf(line, sizeof(line), "lost %" PRIu64 " time %" PRIu64 ".%03u\n",
		       lost - lost_told, ms / 1000, (unsigned int)(ms % 1000));
	GW_LOG(WARNING, "events: %" PRIu64 " lost to a full queue (%" PRIu64 " in all)",
	       lost - lost_told, lost);
	lost_told = lost;
	if (send != NULL)
		send(arg, line, (size_t)len, true);
}

void
gw_evq_drain(void (*send)(void *arg, const char *line, size_t len, bool all_only), void *arg)
{
	const uint64_t now_tsc = rte_get_tsc_cycles(), now_ms = unix_ms();
	char note[NOTE_LEN];

	for (;;) {
		struct gw_event e;
		char line[160];
		uint64_t ms;
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
			break;
		ms = tsc_unix_ms(e.tsc, now_tsc, now_ms);
		len = snprintf(line, sizeof(line), "expire %s %s %u %s %" PRIu64 " time %" PRIu64
			".%03u\n", e.hard ? "hard" : "soft", e.dir == GW_DIR_IN ? "in" : "out",
			e.spi, e.by_pkts ? "packets" : "bytes", e.limit, ms / 1000,
			(unsigned int)(ms % 1000));
		GW_LOG(NOTICE, "%.*s", len - 1, line);
		if (send != NULL)
			send(arg, line, (size_t)len, false);
	}
	/* the control plane logged each of its changes when it made it */
	while (note_take(note))
		if (send != NULL)
			send(arg, note, strlen(note), true);
	lost_report(send, arg);
}
