/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec-bench: the cases, the implementation interface every measured
 * library fills (vecsec once per ISA, one peer_<name>.c per peer library),
 * the timer and the report. Portable C11; no intrinsics.
 */
#ifndef VECSEC_BENCH_H
#define VECSEC_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What a case's inputs and outputs are. */
enum bench_kind {
	BENCH_AEAD,      /* key, nonce, 8-byte AAD, data -> data + 16-byte tag */
	BENCH_CIPHER,    /* key, nonce (or counter block) , data -> data */
	BENCH_BLOCK,     /* key, data (whole blocks) -> data (ECB) */
	BENCH_MAC,       /* one-time key, data -> 16-byte tag */
	BENCH_HASH,      /* key, data -> 16-byte hash (NHPoly1305) */
	BENCH_WIDEBLOCK, /* key, tweak, data (>= 16 bytes) -> data (Adiantum) */
};

enum bench_case_id {
	CASE_CHACHA20_POLY1305,
	CASE_XCHACHA20_POLY1305,
	CASE_CHACHA20,
	CASE_POLY1305,
	CASE_ARIA128_CTR,
	CASE_ARIA256_CTR,
	CASE_ARIA128_GCM,
	CASE_ARIA128_ECB,
	CASE_ADIANTUM_XCHACHA12,
	CASE_ADIANTUM_XCHACHA20,
	CASE_NHPOLY1305,
	CASE_COUNT
};

struct bench_case {
	enum bench_case_id id;
	const char *name;      /* "chacha20-poly1305" (--case, table, CSV) */
	enum bench_kind kind;
	size_t key_len;        /* bytes */
	size_t nonce_len;      /* nonce, counter block or tweak; 0 none */
	size_t tag_len;        /* tag or hash bytes; 0 none */
	size_t aad_len;        /* AEADs: 8 (an ESP SPI || seq) */
	size_t block;          /* data must be a multiple of this (ECB); 0 any */
	size_t min_len;        /* smallest data length (Adiantum: 16) */
	bool burst;            /* measured in --burst mode */
	const char *note;      /* nonce/counter conventions, for --help */
};

extern const struct bench_case bench_cases[CASE_COUNT];

/*
 * For a peer's lacks(): why a case it does not do is missing, by family:
 * "no XChaCha20", "no Adiantum", else other (the ARIA cases).
 */
const char *bench_case_missing(const struct bench_case *c, const char *other);

/*
 * For a peer whose library leaves the tag check of an open to the caller
 * (Nettle, ipsec-mb): 1 when the 16-byte tags differ, in constant time.
 */
int bench_tag_diff(const uint8_t a[16], const uint8_t b[16]);

enum bench_op {
	BENCH_ENC = 0, /* seal / encrypt / MAC / hash */
	BENCH_DEC = 1, /* open (AEADs only) */
};

/* One message of a burst. */
struct bench_msg {
	void *ctx;             /* keyed context of the impl (its key) */
	const uint8_t *in;
	uint8_t *out;
	uint8_t *tag;
	size_t len;
	const uint8_t *nonce;
	const uint8_t *aad;
	int status;            /* 0 ok, else failed (bad tag, error) */
};

/*
 * One measured implementation. Peers fill a static one; vecsec makes one per
 * ISA level. run() returns 0, or nonzero on failure (open: tag mismatch).
 */
struct bench_impl {
	const char *name;      /* column name: "vecsec-avx2", "openssl" */
	char version[96];      /* library version (filled by init) */
	bool is_vecsec;
	int isa;               /* vecsec: enum vecsec_isa */
	/* Once at start: false if the library cannot be used (reason in version). */
	bool (*init)(struct bench_impl *im);
	/* NULL if the case is supported (in bursts), else why not (for the table). */
	const char *(*lacks)(const struct bench_impl *im, const struct bench_case *c,
			     bool burst);
	/* Before using the impl (vecsec: pin the ISA). May be NULL. */
	void (*select)(const struct bench_impl *im);
	/* Dispatched kernel name for a case (vecsec), or NULL. */
	const char *(*detail)(const struct bench_impl *im, const struct bench_case *c);
	void *(*ctx_new)(const struct bench_impl *im, const struct bench_case *c,
			 const uint8_t *key);
	void (*ctx_free)(void *ctx);
	int (*run)(void *ctx, enum bench_op op, uint8_t *out, uint8_t *tag, const uint8_t *in,
		   size_t len, const uint8_t *nonce, const uint8_t *aad);
	/*
	 * n messages, each with its own ctx; NULL: the harness calls run() for
	 * each. Returns the number of failed messages (status set on each).
	 */
	unsigned int (*burst)(const struct bench_case *c, enum bench_op op,
			      struct bench_msg *msgs, unsigned int n);
	void *priv;
};

/* Peers: each returns its impl, or NULL when not built. */
struct bench_impl *bench_peer_openssl(void);
struct bench_impl *bench_peer_sodium(void);
struct bench_impl *bench_peer_gcrypt(void);
struct bench_impl *bench_peer_ipsecmb(void);
struct bench_impl *bench_peer_nettle(void);

/*
 * Peer settings from the command line, read by the peers' init (so that
 * a comparison is ISA for ISA): ipsec-mb's manager ("auto", "sse", "avx",
 * "avx2", "avx512": init_mb_mgr_<arch>()), and the libgcrypt hardware
 * features to deny (a comma list such as "intel-avx512,intel-avx2", given
 * to GCRYCTL_DISABLE_HWF before libgcrypt initializes: the in-process form
 * of /etc/gcrypt/hwf.deny). NULL: the library's own choice.
 */
extern const char *bench_ipsecmb_arch;
extern const char *bench_gcrypt_deny;
/* vecsec: the impl for one ISA level (a fresh object each call). */
struct bench_impl *bench_vecsec_impl(int isa);

/*
 * vecsec with a path pinned through lib/'s test and benchmark knobs
 * (chachapoly_knobs.h), for (X)ChaCha20-Poly1305 only: what the kernel-
 * level measurements of the lanes and the stitched kernels compare.
 */
struct bench_vecsec_knobs {
	const char *name;       /* the column: "vecsec-avx2-2pass", "vecsec-x8/x4" */
	bool twopass;           /* single messages: the two-pass path, no stitched kernel */
	bool burst_only;        /* a lanes setting: bursts only */
	int chacha_w, poly_w;   /* vecsec_lanes_force(): -1 -1 automatic, 0 -1 per job */
	bool all_lanes;         /* bursts never leave the lanes (crossover above every size) */
	int staged;             /* -1 as built, 0 never the staged path, 1 up to its limit */
	bool avx2_plain;        /* the AVX2 lane kernels' plain forms, not their VL ones */
	bool no_mixed;          /* the mixed-burst bound off (few long jobs stay in the lanes) */
};
/* NULL when the knobs are not in this build (a libvecsec without its AEAD API). */
struct bench_impl *bench_vecsec_variant(int isa, const struct bench_vecsec_knobs *k);
/* Whether the AVX2 lane kernels have VL forms on this CPU (false without the knobs). */
bool bench_vecsec_vl_usable(void);
/* vecsec: which cases this build of libvecsec has (compile-time). */
bool bench_vecsec_has(const struct bench_case *c);
/*
 * vecsec: the lane kernels a burst of n (X)ChaCha20-Poly1305 jobs runs on
 * under the current ISA (call after select), e.g. "chacha avx512 x16,
 * poly1305 avx512ifma x8"; NULL when this build has no AEAD API.
 */
const char *bench_vecsec_lanes(unsigned int n);

/* ---- the kernel floor of a burst (bench_floor.c, --floor) ---- */
struct bench_floor {
	uint64_t chacha_blocks, poly_blocks;  /* the lane blocks the burst's jobs need */
	unsigned int chacha_w, poly_w;        /* lanes of the kernels */
	uint32_t chacha_steps, poly_steps;    /* blocks per lane: ceil(blocks / width) */
	void (*chacha)(void *f);              /* one run of each kernel's steps (arg: f) */
	void (*poly)(void *f);
	void *kernels;                        /* lib's floor state */
	const size_t *len;                    /* the jobs' lengths (count) */
	unsigned int n;
	unsigned int single_jobs;             /* of n, past the lanes' crossover (setup) */
};
/* The cases --floor has: (X)ChaCha20-Poly1305. */
bool bench_floor_case(const struct bench_case *c);
/* Count the blocks of n jobs of len[] bytes (the case's AAD) into f. */
void bench_floor_count(const struct bench_case *c, const size_t *len, unsigned int n,
		       struct bench_floor *f);
/*
 * After the count, under the ISA now pinned (after select): the kernels a
 * burst of n runs on and their steps. NULL, or why there is no floor.
 */
const char *bench_floor_setup(struct bench_floor *f, unsigned int n);
void bench_floor_release(struct bench_floor *f);

/* ---- timer (bench_timer.c) ---- */
uint64_t bench_ticks(void);            /* TSC (x86), CNTVCT (arm64), else ns */
double bench_tick_hz(void);            /* calibrated ticks per second */
double bench_calibrate(unsigned int ms);
const char *bench_tick_name(void);     /* "TSC" */
int bench_pin_cpu(void);               /* pin to the current CPU; returns it or -1 */
void bench_cpu_model(char *buf, size_t len);

/* ---- helpers ---- */
void bench_fill(void *buf, size_t len, uint64_t seed);
void *bench_alloc(size_t len);         /* 64-byte aligned, zeroed; exits on failure */
#define BENCH_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#endif /* VECSEC_BENCH_H */
