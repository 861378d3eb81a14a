/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The cryptodev-only build of DPDK's app/test (build-dpdk-test.sh) leaves
 * out the sources of these entry points, which test.c and commands.c name
 * for other tests (multi-process, pdump, timers, debug, testpmd rx/tx
 * modes). None is reachable from the cryptodev commands; each reports
 * failure if it ever is.
 */

#include <stdio.h>

#include <cmdline_parse_string.h>

#include "test.h"
#include "test_pdump.h"

static int
left_out(const char *what)
{
	printf("%s: not part of the cryptodev-only dpdk-test build\n", what);
	return -1;
}

int
test_exit(void)
{
	return left_out(__func__);
}

int
test_mp_secondary(void)
{
	return left_out(__func__);
}

int
test_panic(void)
{
	return left_out(__func__);
}

int
test_timer_secondary(void)
{
	return left_out(__func__);
}

int
test_pdump(void)
{
	return left_out(__func__);
}

int
test_set_rxtx_conf(cmdline_fixed_string_t mode)
{
	(void)mode;
	return left_out(__func__);
}

int
test_set_rxtx_anchor(cmdline_fixed_string_t type)
{
	(void)type;
	return left_out(__func__);
}

int
test_set_rxtx_sc(cmdline_fixed_string_t type)
{
	(void)type;
	return left_out(__func__);
}
