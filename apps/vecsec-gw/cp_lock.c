/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec-gw control-plane lock, the change engine's (cp.c): it serializes
 * everything that reads or changes the SA and SP tables outside the
 * workers: control socket requests, reloads, telemetry callbacks, the
 * samples, the sequence numbers reserved ahead. Workers never take it, so
 * it may be held across an RCU grace period (a worker, the main lcore too,
 * keeps polling meanwhile).
 *
 * A file of its own, calling nothing: the layers below the engine take it
 * too (seqstate.c, under sa.c, which the engine calls), so it must not sit
 * in a file that calls down into them, or the files would call in a loop.
 */
#include "gw_dp.h"

#include <pthread.h>

static pthread_mutex_t cp_mutex = PTHREAD_MUTEX_INITIALIZER;

void
gw_cp_lock(void)
{
	pthread_mutex_lock(&cp_mutex);
}

bool
gw_cp_trylock(void)
{
	return pthread_mutex_trylock(&cp_mutex) == 0;
}

void
gw_cp_unlock(void)
{
	pthread_mutex_unlock(&cp_mutex);
}
