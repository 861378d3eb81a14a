/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * crypto_vecsec internals: the device, queue pair and session structs the
 * PMD files share, the log macro, and the functions they call in each
 * other. Never installed.
 *
 * The files, top first; each calls only files below it (test/layers'
 * pmd-file-cycles checks that no two call each other in a loop):
 *   vecsec_pmd.c          probe and remove: the device, its engine
 *   vecsec_pmd_ops.c      cryptodev ops: configure, queue pairs, sessions
 *   vecsec_pmd_sec.c      rte_security context and ESP sessions; picks each
 *                         session's data path (struct vecsec_pmd_dp_ops)
 *   vecsec_pmd_dp.c       enqueue, dequeue, CPU crypto: ops to jobs, one
 *                         engine call, statuses back; calls ESP sessions
 *                         through their vecsec_pmd_dp_ops only
 *   vecsec_pmd_sec_dp.c   the ESP data path (egress, ingress)
 *   vecsec_pmd_session.c  symmetric sessions from xforms, key storage
 *   vecsec_pmd_caps.c     capabilities, ISA feature flags
 *   vecsec_pmd_id.c       the driver id and log type every file reads
 */
#ifndef VECSEC_PMD_PRIVATE_H
#define VECSEC_PMD_PRIVATE_H

#include <stdalign.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_common.h>
#include <rte_cryptodev.h>
#include <rte_log.h>
#include <rte_ring.h>
#include <rte_security.h>
#include <rte_spinlock.h>
#include <cryptodev_pmd.h>

#include "vecsec/vecsec_aead.h"
#include "vecsec/vecsec_engine.h"
#include "vecsec/vecsec_esp.h"

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
 * in several calls; one op alone needing more runs alone on the device's
 * long-chain area (struct vecsec_pmd_long).
 */
#define VECSEC_PMD_MAX_SEGS (4 * VECSEC_MAX_BURST)

/*
 * Segments of the long-chain area: an op's source and destination chains
 * together (an mbuf chain has at most UINT16_MAX segments), so any mbuf op
 * fits; a CPU-crypto SGL of more vectors is refused (RTE_PMD_VECSEC_MAX_SGL_SEGS).
 */
#define VECSEC_PMD_LONG_SEGS RTE_PMD_VECSEC_MAX_SGL_SEGS

/*
 * One per device: an op whose chains need more than VECSEC_PMD_MAX_SEGS
 * segments is described here and run alone, under the lock (rare: chains
 * of over a thousand segments), by any queue pair or CPU-crypto caller.
 * The common path never touches it, and no path keeps a segment array per
 * op on the stack.
 */
struct vecsec_pmd_long {
	rte_spinlock_t lock;
	unsigned int nb_segs;                   /* VECSEC_PMD_LONG_SEGS */
	struct vecsec_seg segs[];
};

/* dev->data->dev_private */
struct vecsec_pmd_private {
	struct vecsec_pmd_long *longc;  /* long chains, allocated at probe */
	unsigned int max_nb_qpairs;
	unsigned int max_burst;   /* jobs per vecsec_engine_burst(), <= VECSEC_MAX_BURST */
	/*
	 * This device's dispatch context: its isa= devarg (or the process's
	 * level), so two devices in one process each run at their own level.
	 */
	struct vecsec_engine engine;
	bool aria;                /* libvecsec implements ARIA-GCM */
};

/*
 * A session's expanded key lives where its size (vecsec_aead_key_size())
 * allows: in the session's own inline line when it fits ((X)ChaCha20-
 * Poly1305: 64 bytes), else (ARIA-GCM, ARIA-CTR: several hundred bytes) in
 * rte_malloc memory taken at configure and wiped and freed at clear, or,
 * for a sessionless op, in its queue pair slot. So the session data stays
 * two cache lines whatever the algorithm.
 */
#define VECSEC_PMD_KEY_INLINE 64
/* A sessionless slot: room for every ARIA key (checked at run time). */
#define VECSEC_PMD_SL_KEY_LEN 1024

/* One session: what the xform fixed, and its expanded key. */
struct vecsec_pmd_session {
	const struct vecsec_aead_key *key; /* key_line, rte_malloc memory or a qp slot */
	uint16_t iv_offset;           /* in the op, as rte_crypto_op_ctod_offset() */
	uint16_t iv_len;
	uint16_t aad_len;
	uint16_t digest_len;
	uint8_t dir;                  /* enum vecsec_aead_dir */
	uint8_t cipher_only;          /* ARIA-CTR: sym->cipher fields, no tag */
	uint8_t configured;           /* 1 between configure and clear */
	uint8_t key_heap;             /* key is rte_malloc'd: free at clear */
	/* (X)ChaCha20-Poly1305 keys, in the session's second line */
	alignas(64) uint8_t key_line[VECSEC_PMD_KEY_INLINE];
};

/*
 * rte_security lookaside-protocol ESP session (vecsec_pmd_sec.c). The ESP
 * rules are lib/esp's (vecsec_esp.h): the outbound counter and the replay
 * window live here, in the session's private data, and the PMD calls the
 * library on them; it adds only the spinlock that serialises window
 * updates across queue pairs. The window storage is sized for
 * VECSEC_PMD_WIN_WORDS bitmap words: every window up to 127 * 64 packets.
 */
#define VECSEC_PMD_WIN_WORDS 128                        /* power of two */
#define VECSEC_PMD_REPLAY_WIN_MAX ((VECSEC_PMD_WIN_WORDS - 1) * 64)  /* 8128 */
#define VECSEC_PMD_SEC_MAGIC 0x56534553u                /* "VSES" */

struct vecsec_pmd_sec_session {
	/* as struct vecsec_pmd_session's: key_line or rte_malloc memory; holds the salt */
	alignas(64) uint8_t key_line[VECSEC_PMD_KEY_INLINE];
	/*
	 * Line 1: every field a packet reads besides the key. An egress IPv4
	 * tunnel's packet reads nothing else of the session (its template ends
	 * in this line); an ingress packet reads the window's header here and
	 * one bitmap word after it. With many sessions each line is a cache miss.
	 */
	alignas(64) const struct vecsec_aead_key *key;
	uint32_t magic;               /* VECSEC_PMD_SEC_MAGIC while created */
	uint32_t spi;                 /* host order */
	uint8_t egress;
	uint8_t tunnel;
	uint8_t tun_v6;               /* outer header family (tunnel) */
	uint8_t esn;
	uint8_t stats;                /* options.stats: count packets, bytes, errors */
	uint8_t tun_hdr_len;          /* 20 or 40 */
	uint8_t key_heap;             /* key is rte_malloc'd: free at destroy */
	uint8_t dp;                   /* its data path: vecsec_pmd_sec_dp[dp] */
	union {
		struct {              /* egress */
			/* the sequence number counter */
			struct vecsec_esp_seq seq;
			uint32_t tun_csum;    /* IPv4 template: ones' complement sum, length 0 */
			uint8_t tun_hdr[40];  /* outer header template, lengths 0 */
		};
		struct {              /* ingress */
			/* replay window (updates under lock), its size in packets (0: off) */
			rte_spinlock_t lock;
			uint32_t win;
			uint64_t replay[VECSEC_ESP_REPLAY_SIZE_WORDS(VECSEC_PMD_WIN_WORDS) / 8];
		};
	};
	/* rte_security_ipsec_stats, relaxed atomics */
	uint64_t pkts, bytes, errors;
};

/* The session's window (lib/esp's object in replay[]). */
static inline struct vecsec_esp_replay *
vecsec_pmd_sec_window(struct vecsec_pmd_sec_session *s)
{
	return (struct vecsec_esp_replay *)s->replay;
}

/* What the ESP path keeps of one op between building its job and finishing it. */
struct vecsec_pmd_sec_job {
	uint8_t nonce[12];
	uint8_t aad[12];
	uint8_t icv[VECSEC_ESP_ICV_LEN];      /* ingress ICV split across segments */
	uint64_t seq;                         /* full 64-bit number */
	uint16_t hlen;                        /* IP header (+ extensions) before ESP */
	uint16_t nh_off;                      /* transport ingress: next-header byte */
	uint32_t ct_len;                      /* ciphertext: payload + padding + 2 */
};

/*
 * Scratch for one call of vecsec_engine_burst(): jobs, their pointers, and
 * the segments of their scatter-gather lists. Lives in the queue pair
 * (enqueue) or on the caller's stack (CPU crypto): the data path never
 * allocates. segs is seg_store, or the long-chain area while one long op
 * is prepared and run (then max_segs is that area's size).
 */
struct vecsec_pmd_scratch {
	struct vecsec_aead_job jobs[VECSEC_MAX_BURST];
	struct vecsec_aead_job *ptrs[VECSEC_MAX_BURST];
	struct vecsec_seg *segs;
	unsigned int max_segs;
	struct vecsec_pmd_sec_job sec[VECSEC_MAX_BURST];   /* by job index */
	unsigned int nb_jobs;
	unsigned int nb_segs;
	struct vecsec_seg seg_store[VECSEC_PMD_MAX_SEGS];
};

struct vecsec_pmd_qp {
	uint16_t id;
	struct vecsec_pmd_long *longc;         /* the device's long-chain area */
	bool aria;                             /* as the device's */
	const struct vecsec_engine *engine;    /* the device's */
	unsigned int max_burst;
	struct rte_ring *ring;                 /* finished ops, SP/SC, exact size */
	struct rte_cryptodev_stats stats;
	char name[RTE_RING_NAMESIZE];
	struct vecsec_pmd_scratch scratch;
	/*
	 * ESP egress: sequence numbers reserved for a run of consecutive ops
	 * of one session within one qp_process() call: [seq_next, seq_end).
	 */
	struct rte_crypto_op **cur_ops;        /* the op being prepared and those after it */
	unsigned int cur_left;
	const void *seq_sess;
	uint64_t seq_next, seq_end;
	/*
	 * the device has this queue pair alone: no other thread reserves
	 * numbers from its sessions' counters (vecsec_esp_seq_reserve_excl)
	 */
	bool seq_excl;
	/*
	 * sessionless ops: a session per job of one engine call, wiped after
	 * it; ARIA keys in sl_key (the data path never allocates)
	 */
	unsigned int nb_sl;
	struct vecsec_pmd_session sl[VECSEC_MAX_BURST];
	alignas(64) uint8_t sl_key[VECSEC_MAX_BURST][VECSEC_PMD_SL_KEY_LEN];
} __rte_cache_aligned;

/*
 * The data path of an rte_security session, chosen when the session is
 * created (vecsec_pmd_sec.c: egress or ingress ESP): the session keeps its
 * index in vecsec_pmd_sec_dp[] (one byte of line 1, which a packet reads
 * anyway: a pointer would push the IPv4 template out of the line). The
 * generic enqueue (vecsec_pmd_dp.c) checks the session's magic, then calls
 * through these and knows nothing of ESP. One indirect call per op in
 * place of the call and the egress/ingress branch it replaces.
 */
struct vecsec_pmd_dp_ops {
	/* op into the next job of qp's scratch, or finished: a PREP_* code */
	int (*prepare)(struct vecsec_pmd_qp *qp, struct vecsec_pmd_sec_session *s,
		       struct rte_crypto_op *op);
	/* after the engine ran job j of the scratch, op's */
	void (*finish)(struct vecsec_pmd_qp *qp, unsigned int j,
		       struct vecsec_pmd_sec_session *s, struct rte_crypto_op *op,
		       uint32_t job_status);
};

/* vecsec_pmd_sec.c: the data paths of ESP sessions, by their dp */
#define VECSEC_PMD_DP_ESP_INGRESS 0
#define VECSEC_PMD_DP_ESP_EGRESS 1
extern const struct vecsec_pmd_dp_ops *const vecsec_pmd_sec_dp[2];

/* vecsec_pmd_caps.c */
#define VECSEC_PMD_FF_CPU (RTE_CRYPTODEV_FF_CPU_SSE | RTE_CRYPTODEV_FF_CPU_AVX | \
			   RTE_CRYPTODEV_FF_CPU_AVX2 | RTE_CRYPTODEV_FF_CPU_AVX512 | \
			   RTE_CRYPTODEV_FF_CPU_NEON)
/* The RTE_CRYPTODEV_FF_CPU_* flags true of a vecsec ISA level. */
uint64_t vecsec_pmd_isa_flags(enum vecsec_isa isa);
const struct rte_cryptodev_capabilities *vecsec_pmd_capabilities(bool aria);

/* vecsec_pmd_ops.c */
extern struct rte_cryptodev_ops vecsec_pmd_ops;

/* vecsec_pmd_session.c */
/*
 * Fill a session from an xform. Its key goes inline when it fits, else into
 * slot (slot_len bytes, 64-byte aligned: a sessionless op's) when given,
 * else into rte_malloc memory on socket. On failure nothing is left
 * allocated and the session is zeroed.
 */
int vecsec_pmd_session_set(struct vecsec_pmd_session *s, const struct rte_crypto_sym_xform *xform,
			   bool aria, void *slot, size_t slot_len, int socket);
/* Wipe a session's key, free it if rte_malloc'd, zero the session. */
void vecsec_pmd_session_wipe(struct vecsec_pmd_session *s);
/*
 * Storage for a key of alg and key_len (as vecsec_aead_key_size() takes
 * them): line (VECSEC_PMD_KEY_INLINE bytes) when it fits, else slot when
 * given (NULL if the key needs more than slot_len), else zeroed rte_malloc
 * memory, 64-byte aligned, on socket (*heap set). NULL: unknown algorithm
 * or length, or no memory.
 */
struct vecsec_aead_key *vecsec_pmd_key_storage(void *line, void *slot, size_t slot_len,
					       int socket, enum vecsec_aead_alg alg,
					       size_t key_len, uint8_t *heap);
/* Wipe a key from vecsec_pmd_key_storage() and free it if heap; NULL ignored. */
void vecsec_pmd_key_release(const struct vecsec_aead_key *key, uint8_t heap);

/* vecsec_pmd_sec.c: rte_security context of a device */
int vecsec_pmd_sec_ctx_create(struct rte_cryptodev *dev);
void vecsec_pmd_sec_ctx_destroy(struct rte_cryptodev *dev);

/* vecsec_pmd_sec_dp.c: the ESP sessions' data paths (PREP_* codes of vecsec_pmd_dp.h) */
extern const struct vecsec_pmd_dp_ops vecsec_pmd_sec_egress_dp;
extern const struct vecsec_pmd_dp_ops vecsec_pmd_sec_ingress_dp;
/*
 * Dynamic mbuf flag set with RX_SEC_OFFLOAD_FAILED on replays (0: not
 * registered); vecsec_pmd_sec.c registers it with the context.
 */
extern uint64_t vecsec_pmd_replay_flag;
/* Dynamic mbuf flag set with RX_SEC_OFFLOAD_FAILED on dummy packets (next header 59). */
extern uint64_t vecsec_pmd_dummy_flag;

/* vecsec_pmd_dp.c */
uint16_t vecsec_pmd_enqueue_burst(void *qp, struct rte_crypto_op **ops, uint16_t nb_ops);
uint16_t vecsec_pmd_dequeue_burst(void *qp, struct rte_crypto_op **ops, uint16_t nb_ops);
uint32_t vecsec_pmd_cpu_process(struct rte_cryptodev *dev, struct rte_cryptodev_sym_session *sess,
				union rte_crypto_sym_ofs ofs, struct rte_crypto_sym_vec *vec);

#endif /* VECSEC_PMD_PRIVATE_H */
