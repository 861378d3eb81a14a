/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * crypto_vecsec's identity, read by every file of the PMD: the cryptodev
 * driver id (set when vecsec_pmd.c registers the driver) and the log type.
 * Here, below every file, so that none has to call up to vecsec_pmd.c for
 * them (test/layers' pmd-file-cycles).
 */
#include <stdint.h>

#include <rte_log.h>

#include "vecsec_pmd_private.h"

uint8_t vecsec_pmd_driver_id;

RTE_LOG_REGISTER_DEFAULT(vecsec_pmd_logtype, INFO);
