/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Logging under systemd: DPDK's log stream (the gateway's messages
 * included) to the journal once, with syslog levels (gw_journal_log()).
 */
#define _GNU_SOURCE             /* fopencookie() */

#include "gw_main.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>
#include <unistd.h>

#include <rte_log.h>

/*
 * Under systemd (JOURNAL_STREAM set: stderr goes to the journal) every
 * DPDK message, the gateway's included, goes to stderr once, with its
 * syslog level as a "<N>" prefix the journal stores: EAL's default stream
 * would write it to stderr and to syslog, and the journal would get it
 * twice.
 */
static ssize_t
journal_write(void *cookie, const char *buf, size_t size)
{
	int lvl = rte_log_cur_msg_loglevel() - 1;

	(void)cookie;
	if (lvl < 0 || lvl > 7)
		lvl = 6;
	dprintf(STDERR_FILENO, "<%d>%.*s", lvl, (int)size, buf);
	return (ssize_t)size;
}

void
gw_journal_log(void)
{
	static cookie_io_functions_t fns = { .write = journal_write };
	FILE *f;

	if (getenv("JOURNAL_STREAM") == NULL)
		return;
	f = fopencookie(NULL, "w", fns);
	if (f != NULL)
		rte_openlog_stream(f);  /* rte_vlog() flushes each message: one write */
}
