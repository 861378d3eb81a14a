/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec-gw management thread.
 *
 * One EAL control thread ("gw-mgmt") does what must not run on a worker
 * lcore (the main lcore is worker 0): rate samples every --rate-interval
 * (stats.c), the periodic counter dump (--stats-interval, off by default),
 * the dump SIGUSR1 asks for, and the configuration reload SIGHUP asks for
 * (reload.c), and the sequence numbers outbound SAs reserve ahead
 * (seqstate.c). Signal handlers only set flags; the thread looks every
 * MGMT_TICK_MS.
 *
 * The control-plane lock it takes around each of them is the change
 * engine's (gw_cp_lock(), cp_lock.c); so is the housekeeping it does when no
 * control thread runs (gw_cp_housekeeping()).
 */
#include "gw_dp.h"
#include "cp.h"
#include "gw_log.h"
#include "seqstate.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <rte_cycles.h>
#include <rte_lcore.h>

#define MGMT_TICK_MS 20

static pthread_t mgmt_tid;
static bool mgmt_running;
static volatile bool mgmt_stop;
static volatile sig_atomic_t want_dump, want_reload;
static double rate_iv, stats_iv;

void
gw_mgmt_signal(int sig)
{
	if (sig == SIGUSR1)
		want_dump = 1;
	else if (sig == SIGHUP)
		want_reload = 1;
}

static uint64_t
mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void *
mgmt_main(void *arg)
{
	uint64_t next_rate = mono_ms(), next_dump = 0;
	struct timespec tick = { 0, MGMT_TICK_MS * 1000000L };

	(void)arg;
	if (stats_iv > 0)
		next_dump = mono_ms() + (uint64_t)(stats_iv * 1000);
	while (!mgmt_stop) {
		uint64_t now = mono_ms();
		uint32_t dump = 0;

		if (now >= next_rate) {
			gw_cp_lock();
			gw_stats_sample(&gw);
			gw_cp_unlock();
			next_rate = now + (uint64_t)(rate_iv * 1000);
		}
		/* asked for (SIGUSR1): NOTICE, shown with --quiet; periodic: INFO */
		if (want_dump) {
			want_dump = 0;
			dump = RTE_LOG_NOTICE;
		}
		if (stats_iv > 0 && now >= next_dump) {
			dump = dump != 0 ? dump : RTE_LOG_INFO;
			next_dump = now + (uint64_t)(stats_iv * 1000);
		}
		if (dump != 0) {
			gw_cp_lock();
			gw_stats_log(&gw, gw_stats_since(), dump);
			gw_cp_unlock();
		}
		gw_cp_housekeeping();           /* only when no control thread does it */
		gw_seq_state_poll();            /* sequence numbers reserved ahead (--seq-state) */
		if (want_reload) {
			char msg[512];

			want_reload = 0;
			gw_cp_lock();
			(void)gw_reload(msg, sizeof(msg));      /* logs its outcome */
			gw_cp_unlock();
		}
		nanosleep(&tick, NULL);
	}
	if (want_dump) {        /* asked for just before the stop: still given */
		gw_cp_lock();
		gw_stats_log(&gw, gw_stats_since(), RTE_LOG_NOTICE);
		gw_cp_unlock();
	}
	return NULL;
}

int
gw_mgmt_start(double rate_interval, double stats_interval)
{
	int rc;

	rate_iv = rate_interval;
	stats_iv = stats_interval;
	mgmt_stop = false;
	rc = rte_ctrl_thread_create(&mgmt_tid, "gw-mgmt", NULL, mgmt_main, NULL);
	if (rc != 0) {
		GW_LOG(ERR, "cannot start the management thread: %s", strerror(rc));
		return -rc;
	}
	mgmt_running = true;
	return 0;
}

void
gw_mgmt_stop(void)
{
	if (!mgmt_running)
		return;
	mgmt_stop = true;
	pthread_join(mgmt_tid, NULL);
	mgmt_running = false;
}
