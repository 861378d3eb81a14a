/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * crypto_vecsec internals: the device, queue pair and session structs the
 * four PMD files share, the log macro, and the functions they call in each
 * other. Never installed.
 */
#ifndef VECSEC_PMD_PRIVATE_H
#define VECSEC_PMD_PRIVATE_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_common.h>
#include <rte_cryptodev.h>
#include <rte_log.h>
#include <rte_ring.h>
#include <cryptodev_pmd.h>

#include "vecsec/vecsec_aead.h"

#include "rte_pmd_vecsec.h"

extern int vecsec_pmd_logtype;
extern uint8_t vecsec_pmd_driver_id;

/* Control path only: one line per event, never key bytes. */
#define VECSEC_PMD_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, vecsec_pmd_logtype, \
		RTE_PMD_VECSEC_DRIVER_NAME ": " fmt "\n", ## __VA_ARGS__)

#define VECSEC_PMD_DEFAULT_MAX_QP RTE_CRYPTODEV_PMD_DEFAULT_MAX_NB_QUEUE_PAIRS
#define VECSEC_PMD_MAX_AAD_LEN 1024
#define VECSEC_PMD_IV_LEN 12

/*
 * Scatter-gather segments one lanes-engine call may use for all its jobs'
 * sources and destinations together. A burst whose chains need more runs
 * in several calls; one op alone needing more gets INVALID_ARGS.
 */
#define VECSEC_PMD_MAX_SEGS (4 * VECSEC_MAX_BURST)

/* dev->data->dev_private */
struct vecsec_pmd_private {
	unsigned int max_nb_qpairs;
	unsigned int max_burst;   /* jobs per vecsec_aead_burst(), <= VECSEC_MAX_BURST */
	enum vecsec_isa isa;      /* level in force after every cap */
	bool aria;                /* libvecsec implements ARIA-GCM */
};

/* One session: the expanded key and what the xform fixed. */
struct vecsec_pmd_session {
	struct vecsec_aead_key key;   /* first: 64-byte aligned like the session data */
	uint16_t iv_offset;           /* in the op, as rte_crypto_op_ctod_offset() */
	uint16_t iv_len;
	uint16_t aad_len;
	uint16_t digest_len;
	uint8_t dir;                  /* enum vecsec_aead_dir */
	uint8_t cipher_only;          /* ARIA-CTR: sym->cipher fields, no tag */
	uint8_t configured;           /* 1 between configure and clear */
};

/*
 * Scratch for one call of vecsec_aead_burst(): jobs, their pointers, and
 * the segments of their scatter-gather lists. Lives in the queue pair
 * (enqueue) or on the caller's stack (CPU crypto): the data path never
 * allocates.
 */
struct vecsec_pmd_scratch {
	struct vecsec_aead_job jobs[VECSEC_MAX_BURST];
	struct vecsec_aead_job *ptrs[VECSEC_MAX_BURST];
	struct vecsec_seg segs[VECSEC_PMD_MAX_SEGS];
	unsigned int nb_jobs;
	unsigned int nb_segs;
};

struct vecsec_pmd_qp {
	uint16_t id;
	bool aria;                             /* as the device's */
	unsigned int max_burst;
	struct rte_ring *ring;                 /* finished ops, SP/SC, exact size */
	struct rte_cryptodev_stats stats;
	char name[RTE_RING_NAMESIZE];
	struct vecsec_pmd_scratch scratch;
	/* sessionless ops: a key per job of one engine call, wiped after it */
	unsigned int nb_sl;
	struct vecsec_pmd_session sl[VECSEC_MAX_BURST];
} __rte_cache_aligned;

/* vecsec_pmd.c */
#define VECSEC_PMD_FF_CPU (RTE_CRYPTODEV_FF_CPU_SSE | RTE_CRYPTODEV_FF_CPU_AVX | \
			   RTE_CRYPTODEV_FF_CPU_AVX2 | RTE_CRYPTODEV_FF_CPU_AVX512 | \
			   RTE_CRYPTODEV_FF_CPU_NEON)
/* The RTE_CRYPTODEV_FF_CPU_* flags true of a vecsec ISA level. */
uint64_t vecsec_pmd_isa_flags(enum vecsec_isa isa);

/* vecsec_pmd_caps.c */
const struct rte_cryptodev_capabilities *vecsec_pmd_capabilities(bool aria);

/* vecsec_pmd_ops.c */
extern struct rte_cryptodev_ops vecsec_pmd_ops;
int vecsec_pmd_session_set(struct vecsec_pmd_session *s, const struct rte_crypto_sym_xform *xform,
			   bool aria);

/* vecsec_pmd_dp.c */
uint16_t vecsec_pmd_enqueue_burst(void *qp, struct rte_crypto_op **ops, uint16_t nb_ops);
uint16_t vecsec_pmd_dequeue_burst(void *qp, struct rte_crypto_op **ops, uint16_t nb_ops);
uint32_t vecsec_pmd_cpu_process(struct rte_cryptodev *dev, struct rte_cryptodev_sym_session *sess,
				union rte_crypto_sym_ofs ofs, struct rte_crypto_sym_vec *vec);

#endif /* VECSEC_PMD_PRIVATE_H */
