/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec-gw's messages go through rte_log with a log type of their own,
 * "vecsec.gw" (registered in main.c, default level INFO), so EAL's
 * --log-level quiets or raises them like any DPDK component's:
 * `--log-level vecsec.gw:warning` keeps warnings and errors only,
 * `--log-level '*:warning'` does the same for every DPDK component too.
 * Levels: ERR refusals and failures, WARNING something ignored or
 * degraded, NOTICE run-time changes (control socket, reload, expire
 * events), INFO start-up summary and counters. The data path never logs.
 *
 * What a command prints as its result (--check, --help, --version, the
 * --demo verdict) stays plain stdout/stderr.
 */
#ifndef VECSEC_GW_LOG_H
#define VECSEC_GW_LOG_H

#include <rte_common.h>
#include <rte_log.h>

extern int gw_logtype;

/* GW_LOG(ERR, "port %u: %s", p, why): one line, "vecsec-gw: " before it */
#define GW_LOG(level, ...) \
	rte_log(RTE_LOG_ ## level, gw_logtype, \
		RTE_FMT("vecsec-gw: " RTE_FMT_HEAD(__VA_ARGS__, ) "\n", \
			RTE_FMT_TAIL(__VA_ARGS__, )))

/* Whether a message at this level would be shown (skip building costly ones). */
#define GW_LOG_ON(level) (rte_log_can_log(gw_logtype, RTE_LOG_ ## level))

#endif /* VECSEC_GW_LOG_H */
