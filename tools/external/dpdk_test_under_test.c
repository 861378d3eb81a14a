/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DPDK's app/test cryptodev suites for a driver named at run time.
 * DPDK 22.11's test_cryptodev.c ties every cryptodev_*_autotest command to a
 * hard-coded driver name; this file compiles that source unmodified (it is
 * included, so its static suite runner and action type are in reach) and
 * adds two commands for the driver in $DPDK_TEST_CRYPTODEV (default
 * crypto_vecsec), the way test_cryptodev.c's own aesni_mb pair does:
 *   cryptodev_under_test_autotest       lookaside (enqueue/dequeue) ops
 *   cryptodev_cpu_under_test_autotest   the same suites through
 *                                       rte_cryptodev_sym_cpu_crypto_process()
 * Built by tools/external/build-dpdk-test.sh, never part of the vecsec build.
 */

#include "test_cryptodev.c"

static const char *
driver_under_test(void)
{
	const char *name = getenv("DPDK_TEST_CRYPTODEV");

	return name != NULL && name[0] != '\0' ? name : "crypto_vecsec";
}

static int
test_cryptodev_under_test(void)
{
	printf("cryptodev under test: %s, lookaside\n", driver_under_test());
	return run_cryptodev_testsuite(driver_under_test());
}

static int
test_cryptodev_cpu_under_test(void)
{
	enum rte_security_session_action_type saved = gbl_action_type;
	int rc;

	printf("cryptodev under test: %s, cpu-crypto\n", driver_under_test());
	gbl_action_type = RTE_SECURITY_ACTION_TYPE_CPU_CRYPTO;
	rc = run_cryptodev_testsuite(driver_under_test());
	gbl_action_type = saved;
	return rc;
}

REGISTER_TEST_COMMAND(cryptodev_under_test_autotest, test_cryptodev_under_test);
REGISTER_TEST_COMMAND(cryptodev_cpu_under_test_autotest, test_cryptodev_cpu_under_test);
