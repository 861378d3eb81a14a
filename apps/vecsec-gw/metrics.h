/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec-gw Prometheus metrics (metrics.c): --metrics ADDR:PORT serves
 * GET /metrics from a thread of its own.
 */
#ifndef VECSEC_GW_METRICS_H
#define VECSEC_GW_METRICS_H

#include <sys/socket.h>

/* ADDR:PORT ("127.0.0.1:9466", "[::1]:9466") into *ss (if not NULL): 0 or -EINVAL. */
int gw_metrics_parse(const char *spec, struct sockaddr_storage *ss, socklen_t *len);
/* Bind and start serving: 0, or a negative errno (said in the log). */
int gw_metrics_start(const char *spec);
/* Stop serving and close the socket (nothing if not started). */
void gw_metrics_stop(void);

#endif /* VECSEC_GW_METRICS_H */
