/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec-gw lifetime event queue (evq.c): workers post (gw_event_post(),
 * declared in gw_dp.h), the control thread, or the management thread
 * without one, drains.
 */
#ifndef VECSEC_GW_EVQ_H
#define VECSEC_GW_EVQ_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Take every queued event and hand its line to send (if not NULL): the
 * lifetime events ("expire soft|hard in|out SPI packets|bytes LIMIT time T\n",
 * each logged too) with all_only false, the control plane's (gw_event_note())
 * with all_only true: for `subscribe all` only.
 */
void gw_evq_drain(void (*send)(void *arg, const char *line, size_t len, bool all_only),
		  void *arg);

/*
 * A control-plane event for `subscribe all` ("add sa in 5 by control"):
 * " time T\n" is appended. Any thread but a worker's.
 */
void gw_event_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* VECSEC_GW_EVQ_H */
