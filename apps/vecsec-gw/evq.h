/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec-gw lifetime event queue (evq.c): workers post (gw_event_post(),
 * declared in gw_dp.h), the control thread, or the management thread
 * without one, drains.
 */
#ifndef VECSEC_GW_EVQ_H
#define VECSEC_GW_EVQ_H

#include <stddef.h>

/*
 * Take every queued event, log its line ("expire soft|hard in|out SPI
 * packets|bytes LIMIT\n") and hand it to send (if not NULL).
 */
void gw_evq_drain(void (*send)(void *arg, const char *line, size_t len), void *arg);

#endif /* VECSEC_GW_EVQ_H */
