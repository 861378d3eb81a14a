/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * crypto_vecsec: the public face of the vecsec cryptodev PMD. Its name, the
 * devargs it takes, and the algorithm ids it uses where DPDK 22.11 has no
 * enum value (ARIA). Needs only DPDK's public rte_crypto_sym.h.
 */
#ifndef RTE_PMD_VECSEC_H
#define RTE_PMD_VECSEC_H

#include <rte_crypto_sym.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * vdev driver name: --vdev crypto_vecsec0[,devargs] (on a machine whose NICs
 * DPDK must not touch, with --no-pci as well).
 */
#define RTE_PMD_VECSEC_DRIVER_NAME "crypto_vecsec"

/** Devarg: queue pairs the device offers (default 8). */
#define RTE_PMD_VECSEC_ARG_MAX_NB_QP "max_nb_queue_pairs"
/** Devarg: NUMA socket of the device's memory (default: the caller's). */
#define RTE_PMD_VECSEC_ARG_SOCKET_ID "socket_id"
/**
 * Devarg: highest SIMD level this device may use: scalar, ssse3, avx2,
 * avx512. Per device (each device has its own vecsec engine): another
 * device's isa= never changes it. EAL's --force-max-simd-bitwidth caps
 * every device, and vecsec's process level (VECSEC_ISA) too (DPDK's
 * default width is 256: AVX2).
 */
#define RTE_PMD_VECSEC_ARG_ISA "isa"
/** Devarg: most operations handed to the lanes engine at once (1..256). */
#define RTE_PMD_VECSEC_ARG_MAX_BURST "max_burst"

/*
 * DPDK 22.11 has no ARIA algorithm. crypto_vecsec accepts these values in
 * the algo field of an AEAD or cipher xform, and lists them in its
 * capabilities only when its build of libvecsec implements ARIA. The
 * values lie far above DPDK's enums, so they never collide with a future
 * upstream algorithm; other PMDs reject them with -ENOTSUP.
 */

/**
 * ARIA-GCM (RFC 5794 cipher, NIST SP 800-38D mode), for an AEAD xform:
 * key 16/24/32, IV 12, digest 16, AAD 0..1024.
 */
#define RTE_PMD_VECSEC_AEAD_ARIA_GCM ((enum rte_crypto_aead_algorithm)0x5601)

/**
 * ARIA-CTR, for a cipher xform: key 16/24/32, IV 16 (the initial counter
 * block; RFC 3686 layout: nonce || IV || 32-bit counter starting at 1).
 */
#define RTE_PMD_VECSEC_CIPHER_ARIA_CTR ((enum rte_crypto_cipher_algorithm)0x5602)

/**
 * rte_security lookaside-protocol ESP (RTE_CRYPTODEV_FF_SECURITY): an op
 * whose security session failed has RTE_MBUF_F_RX_SEC_OFFLOAD_FAILED in
 * its mbuf (what rte_ipsec's pkt_flag_process reads) and an op status of
 * AUTH_FAILED (ICV mismatch) or ERROR (anything else). A replayed or too
 * old packet (ERROR) also carries this dynamic mbuf flag, registered when
 * the first crypto_vecsec device is probed; find its bit with
 * rte_mbuf_dynflag_lookup(RTE_PMD_VECSEC_DYNFLAG_REPLAY_NAME, NULL).
 */
#define RTE_PMD_VECSEC_DYNFLAG_REPLAY_NAME "rte_pmd_vecsec_dynflag_esp_replay"

/**
 * rte_security lookaside-protocol ESP ingress: a dummy packet (next header
 * 59, RFC 4303 2.6; tunnel and transport mode alike) authenticates, moves
 * the replay window like any other, and is then discarded as RFC 4303
 * says: its op completes with status ERROR, RTE_MBUF_F_RX_SEC_OFFLOAD_FAILED
 * and this dynamic mbuf flag, and the session's ierrors counts it (every
 * op that does not complete with SUCCESS is an error there; ipackets and
 * ibytes count delivered packets only). Registered with the replay flag;
 * find its bit with rte_mbuf_dynflag_lookup(RTE_PMD_VECSEC_DYNFLAG_DUMMY_NAME,
 * NULL).
 */
#define RTE_PMD_VECSEC_DYNFLAG_DUMMY_NAME "rte_pmd_vecsec_dynflag_esp_dummy"

/**
 * Chain lengths. An op's mbuf chains may have any number of segments the
 * mbuf API allows (UINT16_MAX each, source and destination), in place or
 * out of place, through enqueue/dequeue and rte_security alike; an op
 * whose chains need more than a burst's shared scratch (1024 segments)
 * runs alone, in a per-device area of 2 * UINT16_MAX segments (2 MiB,
 * allocated when the device is probed) taken under a lock. CPU crypto
 * (rte_cryptodev_sym_cpu_crypto_process) describes its buffers with
 * rte_crypto_sgl, whose vector count is a uint32_t: an SGL of more than
 * this many vectors gets EINVAL, since libvecsec needs the whole list of a
 * job at once and the area has this many entries. DPDK 22.11's
 * capability structures have no field for it.
 */
#define RTE_PMD_VECSEC_MAX_SGL_SEGS 131070u

#ifdef __cplusplus
}
#endif

#endif /* RTE_PMD_VECSEC_H */
