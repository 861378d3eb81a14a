/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec-pmd-bench: ChaCha20-Poly1305 (RFC 8439; key 32, IV 12, AAD 8, tag
 * 16) through DPDK's cryptodev API on any cryptodev named by --devtype
 * (crypto_vecsec, crypto_aesni_mb, crypto_chacha20_poly1305), in bursts
 * where op j of a burst uses session j % --sessions: 32 sessions give every
 * op of a burst its own key, as an IPsec gateway sees it, which
 * dpdk-test-crypto-perf (one session per run) cannot show.
 *
 * Out of place: each op has a source mbuf and a separate destination mbuf,
 * so ops are reused without restoring anything. Decrypt sources hold real
 * ciphertext and valid tags (made once with OpenSSL), so decrypt really
 * authenticates. Before any timing, every op of the pool is encrypted and
 * decrypted once and compared with OpenSSL's EVP_chacha20_poly1305, and a
 * forged tag must fail: any mismatch ends the program with status 1.
 *
 * Timing: one queue pair, enqueue + dequeue loop over a pool of
 * --groups bursts, --ops ops per run after a warm-up, TSC cycles around
 * the whole loop; the median of --reps runs. Every dequeued op's status is
 * checked; failures are counted and reported (and make the exit status 1).
 * cpu% is the thread's CPU time over the loop's wall time: on a shared
 * machine, below 100 says the TSC numbers include time spent preempted;
 * "cpu c/op" (TSC cycles/op times that share) estimates the cost on CPU.
 *
 * usage: vecsec-pmd-bench EAL-ARGS -- --devtype NAME [--op encrypt|decrypt|both]
 *        [--sizes 64,...,imix] [--sessions N] [--ops N] [--reps N]
 *        [--warmup N] [--groups N] [--csv FILE] [--seed N]
 *        vecsec-pmd-bench --version | --help     (no EAL)
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/evp.h>

#include <rte_common.h>
#include <rte_crypto.h>
#include <rte_cryptodev.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_version.h>

#include "vecsec_version.h"

#include "vecsec_eal.h"

#define BURST 32u
#define KEY_LEN 32
#define IV_LEN 12
#define AAD_LEN 8
#define TAG_LEN 16
#define MAX_SIZE 8192
#define MAX_SIZES 32
#define MAX_SESSIONS 1024
#define MAX_GROUPS 256
#define NB_DESC 4096
/* op private area: IV (16), AAD (16), then the op's pool index */
#define IV_OFFSET (sizeof(struct rte_crypto_op) + sizeof(struct rte_crypto_sym_op))
#define AAD_OFFSET (IV_OFFSET + 16)
#define IDX_OFFSET (AAD_OFFSET + 16)
#define OP_PRIV 40

/* IMIX 7x64:4x576:1x1500, spread over every 12 ops of the pool */
static const uint32_t imix[12] = { 64, 576, 64, 64, 576, 64, 1500, 64, 576, 64, 576, 64 };
#define IMIX_SIZE 0     /* the size value that stands for IMIX */

enum dir { DIR_ENC = 0, DIR_DEC = 1 };
static const char *const dir_name[2] = { "encrypt", "decrypt" };

static struct {
	const char *devtype;
	int dirs;                       /* bit per enum dir */
	uint32_t sizes[MAX_SIZES];
	unsigned int nb_sizes;
	unsigned int sessions;
	uint64_t ops, warmup;
	unsigned int reps, groups;
	const char *csv;
	uint64_t seed;
} opt = {
	.dirs = 3, .sessions = 32, .ops = 200000, .reps = 3, .groups = 12,
	.seed = 0x5eed,
};

static struct {
	uint8_t dev_id;
	int socket;
	unsigned int pool;              /* ops in the pool: groups * BURST */
	struct rte_mempool *sess_mp, *op_mp, *mbuf_mp;
	void *sess[2][MAX_SESSIONS];
	uint8_t key[MAX_SESSIONS][KEY_LEN];
	struct rte_crypto_op **ops;
	struct rte_mbuf **pt, **ct, **out;      /* plaintext, ciphertext+tag, output */
	uint32_t *len;                          /* per op */
	uint8_t *ref;                           /* OpenSSL ct+tag, MAX_SIZE + TAG_LEN per op */
	FILE *csv;
} g;

static uint64_t rng;

static uint64_t
rand64(void)
{
	/* splitmix64: reproducible data from --seed */
	uint64_t z = (rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static void
rand_bytes(uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)rand64();
}

static void __rte_noreturn __rte_format_printf(1, 2)
die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "vecsec-pmd-bench: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	vecsec_eal_cleanup();
	exit(EXIT_FAILURE);
}

static uint8_t *
op_iv(struct rte_crypto_op *op)
{
	return rte_crypto_op_ctod_offset(op, uint8_t *, IV_OFFSET);
}

static uint8_t *
op_aad(struct rte_crypto_op *op)
{
	return rte_crypto_op_ctod_offset(op, uint8_t *, AAD_OFFSET);
}

static uint32_t *
op_idx(struct rte_crypto_op *op)
{
	return rte_crypto_op_ctod_offset(op, uint32_t *, IDX_OFFSET);
}

/* ---------------- options ---------------- */

static void
usage(void)
{
	fprintf(stderr, "usage: vecsec-pmd-bench EAL-ARGS -- --devtype NAME "
		"[--op encrypt|decrypt|both] [--sizes 64,128,...,imix] [--sessions N] "
		"[--ops N] [--reps N] [--warmup N] [--groups N] [--csv FILE] [--seed N]\n"
		"       vecsec-pmd-bench --version | --help\n");
}

static void
print_version(void)
{
	printf("vecsec-pmd-bench %s (%s)\n", VECSEC_VERSION_STRING, rte_version());
}

static uint64_t
parse_u64(const char *s, const char *what, uint64_t lo, uint64_t hi)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno != 0 || end == s || *end != '\0' || v < lo || v > hi)
		die("bad %s '%s' (%" PRIu64 "..%" PRIu64 ")", what, s, lo, hi);
	return v;
}

static void
parse_sizes(const char *arg)
{
	char buf[256], *save = NULL, *tok;

	if (strlen(arg) >= sizeof(buf))
		die("--sizes too long");
	strcpy(buf, arg);
	opt.nb_sizes = 0;
	for (tok = strtok_r(buf, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
		if (opt.nb_sizes == MAX_SIZES)
			die("at most %d sizes", MAX_SIZES);
		if (strcmp(tok, "imix") == 0)
			opt.sizes[opt.nb_sizes++] = IMIX_SIZE;
		else
			opt.sizes[opt.nb_sizes++] = parse_u64(tok, "size", 1, MAX_SIZE);
	}
	if (opt.nb_sizes == 0)
		die("--sizes is empty");
}

static void
parse_args(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "devtype", required_argument, NULL, 'd' },
		{ "op", required_argument, NULL, 'o' },
		{ "sizes", required_argument, NULL, 'z' },
		{ "sessions", required_argument, NULL, 's' },
		{ "ops", required_argument, NULL, 'n' },
		{ "reps", required_argument, NULL, 'r' },
		{ "warmup", required_argument, NULL, 'w' },
		{ "groups", required_argument, NULL, 'g' },
		{ "csv", required_argument, NULL, 'c' },
		{ "seed", required_argument, NULL, 'e' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int c;
	int warm_set = 0;

	parse_sizes("64,128,256,512,1024,1420,2048,4096,8192,imix");
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'd':
			opt.devtype = optarg;
			break;
		case 'o':
			if (strcmp(optarg, "encrypt") == 0)
				opt.dirs = 1 << DIR_ENC;
			else if (strcmp(optarg, "decrypt") == 0)
				opt.dirs = 1 << DIR_DEC;
			else if (strcmp(optarg, "both") == 0)
				opt.dirs = 3;
			else
				die("--op encrypt|decrypt|both, not '%s'", optarg);
			break;
		case 'z':
			parse_sizes(optarg);
			break;
		case 's':
			opt.sessions = parse_u64(optarg, "--sessions", 1, MAX_SESSIONS);
			break;
		case 'n':
			opt.ops = parse_u64(optarg, "--ops", 1, UINT64_C(1) << 40);
			break;
		case 'r':
			opt.reps = parse_u64(optarg, "--reps", 1, 1000);
			break;
		case 'w':
			opt.warmup = parse_u64(optarg, "--warmup", 0, UINT64_C(1) << 40);
			warm_set = 1;
			break;
		case 'g':
			opt.groups = parse_u64(optarg, "--groups", 1, MAX_GROUPS);
			break;
		case 'c':
			opt.csv = optarg;
			break;
		case 'e':
			opt.seed = parse_u64(optarg, "--seed", 0, UINT64_MAX);
			break;
		case 'V':
			print_version();
			vecsec_eal_cleanup();
			exit(EXIT_SUCCESS);
		default:
			usage();
			vecsec_eal_cleanup();
			exit(c == 'h' ? EXIT_SUCCESS : EXIT_FAILURE);
		}
	}
	if (optind != argc)
		die("unexpected argument '%s'", argv[optind]);
	if (opt.devtype == NULL) {
		usage();
		die("--devtype is required");
	}
	/* whole bursts only: every burst then has op j on session j % sessions */
	opt.ops = RTE_ALIGN_CEIL(opt.ops, BURST);
	if (!warm_set)
		opt.warmup = RTE_MAX(opt.ops / 10, (uint64_t)opt.groups * BURST * 2);
	opt.warmup = RTE_ALIGN_CEIL(opt.warmup, BURST);
}

/* ---------------- device ---------------- */

static void
dev_setup(void)
{
	uint8_t ids[RTE_CRYPTO_MAX_DEVS];
	struct rte_cryptodev_info info;
	struct rte_cryptodev_sym_capability_idx ci = {
		.type = RTE_CRYPTO_SYM_XFORM_AEAD,
		.algo.aead = RTE_CRYPTO_AEAD_CHACHA20_POLY1305,
	};
	const struct rte_cryptodev_symmetric_capability *cap;
	struct rte_cryptodev_config conf = { .nb_queue_pairs = 1 };
	struct rte_cryptodev_qp_conf qc = { .nb_descriptors = NB_DESC };
	unsigned int sz;

	if (rte_cryptodev_devices_get(opt.devtype, ids, RTE_DIM(ids)) == 0)
		die("no cryptodev of driver %s (give EAL --vdev %s0, and -d for a plugin)",
		    opt.devtype, opt.devtype);
	g.dev_id = ids[0];
	g.socket = rte_cryptodev_socket_id(g.dev_id);
	if (g.socket < 0)
		g.socket = 0;
	rte_cryptodev_info_get(g.dev_id, &info);
	if (!(info.feature_flags & RTE_CRYPTODEV_FF_OOP_LB_IN_LB_OUT))
		die("%s cannot do out of place on linear mbufs", opt.devtype);
	cap = rte_cryptodev_sym_capability_get(g.dev_id, &ci);
	if (cap == NULL ||
	    rte_cryptodev_sym_capability_check_aead(cap, KEY_LEN, TAG_LEN, AAD_LEN, IV_LEN) != 0)
		die("%s has no chacha20-poly1305 with key 32, tag 16, AAD 8, IV 12", opt.devtype);
	if (info.max_nb_queue_pairs < 1)
		die("%s has no queue pair", opt.devtype);
	conf.socket_id = g.socket;

	sz = rte_cryptodev_sym_get_private_session_size(g.dev_id);
	g.sess_mp = rte_cryptodev_sym_session_pool_create("pb_sess", 2 * opt.sessions + 8,
							  sz, 0, 0, g.socket);
	g.pool = opt.groups * BURST;
	g.op_mp = rte_crypto_op_pool_create("pb_ops", RTE_CRYPTO_OP_TYPE_SYMMETRIC,
					    g.pool + 64, 0, OP_PRIV, g.socket);
	g.mbuf_mp = rte_pktmbuf_pool_create("pb_mbuf", 3 * g.pool + 64, 0, 0,
					    RTE_PKTMBUF_HEADROOM + MAX_SIZE + TAG_LEN, g.socket);
	if (g.sess_mp == NULL || g.op_mp == NULL || g.mbuf_mp == NULL)
		die("mempools: %s (raise EAL -m)", rte_strerror(rte_errno));
	qc.mp_session = g.sess_mp;
	if (rte_cryptodev_configure(g.dev_id, &conf) != 0 ||
	    rte_cryptodev_queue_pair_setup(g.dev_id, 0, &qc, g.socket) != 0 ||
	    rte_cryptodev_start(g.dev_id) != 0)
		die("cannot configure and start %s", rte_cryptodev_name_get(g.dev_id));

	for (unsigned int s = 0; s < opt.sessions; s++) {
		rand_bytes(g.key[s], KEY_LEN);
		for (int d = 0; d < 2; d++) {
			struct rte_crypto_sym_xform x = {
				.type = RTE_CRYPTO_SYM_XFORM_AEAD,
				.aead = {
					.op = d == DIR_ENC ? RTE_CRYPTO_AEAD_OP_ENCRYPT :
							     RTE_CRYPTO_AEAD_OP_DECRYPT,
					.algo = RTE_CRYPTO_AEAD_CHACHA20_POLY1305,
					.key = { .data = g.key[s], .length = KEY_LEN },
					.iv = { .offset = IV_OFFSET, .length = IV_LEN },
					.digest_length = TAG_LEN,
					.aad_length = AAD_LEN,
				},
			};

			g.sess[d][s] = rte_cryptodev_sym_session_create(g.dev_id, &x, g.sess_mp);
			if (g.sess[d][s] == NULL)
				die("session %u: %s", s, rte_strerror(rte_errno));
		}
	}

	g.ops = calloc(g.pool, sizeof(*g.ops));
	g.pt = calloc(g.pool, sizeof(*g.pt));
	g.ct = calloc(g.pool, sizeof(*g.ct));
	g.out = calloc(g.pool, sizeof(*g.out));
	g.len = calloc(g.pool, sizeof(*g.len));
	g.ref = malloc((size_t)g.pool * (MAX_SIZE + TAG_LEN));
	if (g.ops == NULL || g.pt == NULL || g.ct == NULL || g.out == NULL ||
	    g.len == NULL || g.ref == NULL)
		die("out of memory");
	if (rte_crypto_op_bulk_alloc(g.op_mp, RTE_CRYPTO_OP_TYPE_SYMMETRIC, g.ops, g.pool) !=
	    g.pool || rte_pktmbuf_alloc_bulk(g.mbuf_mp, g.pt, g.pool) != 0 ||
	    rte_pktmbuf_alloc_bulk(g.mbuf_mp, g.ct, g.pool) != 0 ||
	    rte_pktmbuf_alloc_bulk(g.mbuf_mp, g.out, g.pool) != 0)
		die("cannot allocate %u ops and their mbufs", g.pool);
	for (unsigned int i = 0; i < g.pool; i++) {
		*op_idx(g.ops[i]) = i;
		rand_bytes(op_iv(g.ops[i]), IV_LEN);
		rand_bytes(op_aad(g.ops[i]), AAD_LEN);
	}
	printf("device: %s (driver %s, dev_id %u), 1 queue pair, out of place, "
	       "burst %d, %u sessions, pool %u ops, TSC %.3f GHz\n",
	       rte_cryptodev_name_get(g.dev_id), info.driver_name, g.dev_id, BURST, opt.sessions,
	       g.pool, rte_get_tsc_hz() / 1e9);
}

static void
dev_teardown(void)
{
	for (unsigned int i = 0; i < g.pool; i++) {
		rte_pktmbuf_free(g.pt[i]);
		rte_pktmbuf_free(g.ct[i]);
		rte_pktmbuf_free(g.out[i]);
		rte_crypto_op_free(g.ops[i]);
	}
	rte_cryptodev_stop(g.dev_id);
	for (unsigned int s = 0; s < opt.sessions; s++)
		for (int d = 0; d < 2; d++)
			rte_cryptodev_sym_session_free(g.dev_id, g.sess[d][s]);
	rte_cryptodev_close(g.dev_id);
	free(g.ops);
	free(g.pt);
	free(g.ct);
	free(g.out);
	free(g.len);
	free(g.ref);
}

/* ---------------- data and verification ---------------- */

static uint8_t *
ref_of(unsigned int i)
{
	return g.ref + (size_t)i * (MAX_SIZE + TAG_LEN);
}

/* OpenSSL's ChaCha20-Poly1305 seal of op i's plaintext into ref_of(i). */
static void
ossl_seal(unsigned int i)
{
	EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
	struct rte_crypto_op *op = g.ops[i];
	const uint8_t *pt = rte_pktmbuf_mtod(g.pt[i], const uint8_t *);
	uint8_t *out = ref_of(i);
	int n, ok;

	ok = c != NULL &&
	     EVP_EncryptInit_ex(c, EVP_chacha20_poly1305(), NULL, NULL, NULL) == 1 &&
	     EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_AEAD_SET_IVLEN, IV_LEN, NULL) == 1 &&
	     EVP_EncryptInit_ex(c, NULL, NULL, g.key[i % opt.sessions], op_iv(op)) == 1 &&
	     EVP_EncryptUpdate(c, NULL, &n, op_aad(op), AAD_LEN) == 1 &&
	     EVP_EncryptUpdate(c, out, &n, pt, (int)g.len[i]) == 1 &&
	     EVP_EncryptFinal_ex(c, out + n, &n) == 1 &&
	     EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_AEAD_GET_TAG, TAG_LEN, out + g.len[i]) == 1;
	EVP_CIPHER_CTX_free(c);
	if (!ok)
		die("OpenSSL chacha20-poly1305 failed");
}

static void
mbuf_set(struct rte_mbuf *m, uint32_t len)
{
	rte_pktmbuf_reset(m);
	if (rte_pktmbuf_append(m, len) == NULL)
		die("mbuf too small for %u bytes", len);
}

/*
 * Lengths, plaintexts and OpenSSL's ciphertext+tag for every op; the
 * ciphertext mbufs hold ct with the tag right after it.
 */
static uint64_t
data_setup(uint32_t size)
{
	uint64_t bytes = 0;

	for (unsigned int i = 0; i < g.pool; i++) {
		g.len[i] = size == IMIX_SIZE ? imix[i % RTE_DIM(imix)] : size;
		bytes += g.len[i];
		mbuf_set(g.pt[i], g.len[i]);
		rand_bytes(rte_pktmbuf_mtod(g.pt[i], uint8_t *), g.len[i]);
		ossl_seal(i);
		mbuf_set(g.ct[i], g.len[i] + TAG_LEN);
		memcpy(rte_pktmbuf_mtod(g.ct[i], uint8_t *), ref_of(i), g.len[i] + TAG_LEN);
		mbuf_set(g.out[i], g.len[i] + TAG_LEN);
	}
	return bytes;
}

/* Point every op at its session and mbufs for direction d (not timed). */
static void
ops_setup(enum dir d)
{
	for (unsigned int i = 0; i < g.pool; i++) {
		struct rte_crypto_op *op = g.ops[i];
		struct rte_crypto_sym_op *sym = op->sym;
		struct rte_mbuf *src = d == DIR_ENC ? g.pt[i] : g.ct[i];
		/* the tag goes after the output (encrypt) or is read after the input */
		struct rte_mbuf *tag = d == DIR_ENC ? g.out[i] : g.ct[i];

		op->sess_type = RTE_CRYPTO_OP_WITH_SESSION;
		if (rte_crypto_op_attach_sym_session(op, g.sess[d][i % opt.sessions]) != 0)
			die("attach session");
		sym->m_src = src;
		sym->m_dst = g.out[i];
		sym->aead.data.offset = 0;
		sym->aead.data.length = g.len[i];
		sym->aead.digest.data = rte_pktmbuf_mtod_offset(tag, uint8_t *, g.len[i]);
		sym->aead.digest.phys_addr = rte_pktmbuf_iova_offset(tag, g.len[i]);
		sym->aead.aad.data = op_aad(op);
		sym->aead.aad.phys_addr = rte_crypto_op_ctophys_offset(op, AAD_OFFSET);
		op->status = RTE_CRYPTO_OP_STATUS_NOT_PROCESSED;
		memset(rte_pktmbuf_mtod(g.out[i], uint8_t *), 0, g.len[i] + TAG_LEN);
	}
}

/* Enqueue ops [first, first + n) in bursts, wait for all; returns how many failed. */
static unsigned int
run_range(unsigned int first, unsigned int n)
{
	struct rte_crypto_op *done[BURST];
	struct rte_crypto_op **ops = g.ops + first;
	unsigned int enq = 0, deq = 0, failed = 0;
	uint64_t spins = 0;

	for (unsigned int i = 0; i < n; i++)
		ops[i]->status = RTE_CRYPTO_OP_STATUS_NOT_PROCESSED;
	while (deq < n) {
		if (enq < n)
			enq += rte_cryptodev_enqueue_burst(g.dev_id, 0, ops + enq,
							   RTE_MIN(n - enq, BURST));
		deq += rte_cryptodev_dequeue_burst(g.dev_id, 0, done, BURST);
		if (++spins > 100000000)
			die("ops never completed (%u of %u)", deq, n);
	}
	for (unsigned int i = 0; i < n; i++)
		failed += ops[i]->status != RTE_CRYPTO_OP_STATUS_SUCCESS;
	return failed;
}

/*
 * Every op of the pool through the device once each way, against OpenSSL:
 * encrypt output == OpenSSL ct+tag, decrypt of OpenSSL's ct+tag == the
 * plaintext with status SUCCESS, and one forged tag gives AUTH_FAILED.
 */
static void
verify(uint32_t size)
{
	unsigned int bad = 0, failed;
	uint8_t *tag;

	ops_setup(DIR_ENC);
	failed = run_range(0, g.pool);
	for (unsigned int i = 0; i < g.pool; i++)
		bad += memcmp(rte_pktmbuf_mtod(g.out[i], uint8_t *), ref_of(i),
			      g.len[i] + TAG_LEN) != 0;
	if (failed != 0 || bad != 0)
		die("VERIFY FAILED: %s encrypt size %u: %u ops failed, %u outputs differ "
		    "from OpenSSL", opt.devtype, size, failed, bad);

	ops_setup(DIR_DEC);
	failed = run_range(0, g.pool);
	for (unsigned int i = 0; i < g.pool; i++)
		bad += memcmp(rte_pktmbuf_mtod(g.out[i], uint8_t *),
			      rte_pktmbuf_mtod(g.pt[i], uint8_t *), g.len[i]) != 0;
	if (failed != 0 || bad != 0)
		die("VERIFY FAILED: %s decrypt size %u: %u ops failed, %u plaintexts differ",
		    opt.devtype, size, failed, bad);

	/* a decrypt that did not check the tag would pass this one */
	tag = rte_pktmbuf_mtod_offset(g.ct[0], uint8_t *, g.len[0]);
	tag[0] ^= 1;
	failed = run_range(0, 1);
	tag[0] ^= 1;
	if (failed != 1 || g.ops[0]->status != RTE_CRYPTO_OP_STATUS_AUTH_FAILED)
		die("VERIFY FAILED: %s decrypt accepted a forged tag (status %d)",
		    opt.devtype, g.ops[0]->status);
}

/* ---------------- timing ---------------- */

struct loop_result {
	uint64_t cycles;
	uint64_t failed;
	double cpu_share;       /* thread CPU time / wall time: < 1 when preempted */
};

static double
thread_cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/*
 * nops ops (a multiple of BURST) through the queue pair. The pool is
 * opt.groups bursts; a burst is enqueued whole (op j of it on session
 * j % sessions) and becomes free again once all its ops are dequeued.
 */
static struct loop_result
timed_loop(uint64_t nops)
{
	struct rte_crypto_op *done[BURST];
	uint16_t left[MAX_GROUPS], fifo[MAX_GROUPS];
	unsigned int head = 0, tail = 0, nfree = opt.groups;
	int cur = -1;
	unsigned int off = 0;
	uint64_t enq_left = nops, deq_left = nops, failed = 0, t0, t1;
	double cpu0 = thread_cpu_s(), cpu1;

	for (unsigned int i = 0; i < opt.groups; i++)
		fifo[i] = i;
	t0 = rte_rdtsc_precise();
	while (deq_left != 0) {
		if (enq_left != 0) {
			if (cur < 0 && nfree != 0) {
				struct rte_crypto_op **b;

				cur = fifo[head];
				head = (head + 1) % opt.groups;
				nfree--;
				off = 0;
				left[cur] = BURST;
				b = g.ops + (unsigned int)cur * BURST;
				for (unsigned int j = 0; j < BURST; j++)
					b[j]->status = RTE_CRYPTO_OP_STATUS_NOT_PROCESSED;
			}
			if (cur >= 0) {
				uint16_t n = rte_cryptodev_enqueue_burst(g.dev_id, 0,
						g.ops + (unsigned int)cur * BURST + off, BURST - off);

				off += n;
				enq_left -= n;
				if (off == BURST)
					cur = -1;
			}
		}
		uint16_t n = rte_cryptodev_dequeue_burst(g.dev_id, 0, done, BURST);

		for (uint16_t i = 0; i < n; i++) {
			unsigned int grp = *op_idx(done[i]) / BURST;

			failed += done[i]->status != RTE_CRYPTO_OP_STATUS_SUCCESS;
			if (--left[grp] == 0) {
				fifo[tail] = grp;
				tail = (tail + 1) % opt.groups;
				nfree++;
			}
		}
		deq_left -= n;
	}
	t1 = rte_rdtsc_precise();
	cpu1 = thread_cpu_s();
	return (struct loop_result){
		.cycles = t1 - t0,
		.failed = failed,
		.cpu_share = (cpu1 - cpu0) * rte_get_tsc_hz() / (double)(t1 - t0),
	};
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t
median(uint64_t *v, unsigned int n)
{
	qsort(v, n, sizeof(*v), cmp_u64);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void
size_name(char *buf, size_t n, uint32_t size)
{
	if (size == IMIX_SIZE)
		snprintf(buf, n, "imix");
	else
		snprintf(buf, n, "%u", size);
}

/* Returns the failed ops of the timed runs. */
static uint64_t
measure(enum dir d, uint32_t size, uint64_t pool_bytes)
{
	uint64_t cyc[1000], share[1000], oncpu[1000];
	uint64_t failed = 0, med;
	/* bytes per op: the mean over the pool (IMIX: 354.33) */
	double avg = (double)pool_bytes / g.pool;
	double cpo, mops, gbps, cpu, cpu_cpo;
	char sname[16];

	ops_setup(d);
	failed += timed_loop(opt.warmup).failed;
	for (unsigned int r = 0; r < opt.reps; r++) {
		struct loop_result lr = timed_loop(opt.ops);

		cyc[r] = lr.cycles;
		share[r] = (uint64_t)(lr.cpu_share * 1000 + 0.5);
		oncpu[r] = (uint64_t)(lr.cycles * RTE_MIN(lr.cpu_share, 1.0));
		failed += lr.failed;
	}
	med = median(cyc, opt.reps);
	cpu = median(share, opt.reps) / 10.0;
	cpu_cpo = (double)median(oncpu, opt.reps) / opt.ops;
	cpo = (double)med / opt.ops;
	mops = rte_get_tsc_hz() / cpo / 1e6;
	gbps = mops * avg * 8 / 1e3;
	size_name(sname, sizeof(sname), size);
	printf("%-24s %-7s %6s %8u %10.1f %8.3f %8.3f %8.3f %8" PRIu64 " %5.1f %10.1f\n",
	       opt.devtype, dir_name[d], sname, opt.sessions, cpo, cpo / avg, mops, gbps,
	       failed, cpu, cpu_cpo);
	printf("CSV,%s,%s,%s,%u,%.1f,%.4f,%.4f,%.4f,%" PRIu64 ",%u,%" PRIu64 ",%.1f,%.1f\n",
	       opt.devtype, dir_name[d], sname, opt.sessions, cpo, cpo / avg, mops, gbps,
	       failed, opt.reps, opt.ops, cpu, cpu_cpo);
	if (g.csv != NULL)
		fprintf(g.csv, "%s,%s,%s,%u,%.1f,%.4f,%.4f,%.4f,%" PRIu64 ",%u,%" PRIu64
			",%.1f,%.1f\n", opt.devtype, dir_name[d], sname, opt.sessions, cpo,
			cpo / avg, mops, gbps, failed, opt.reps, opt.ops, cpu, cpu_cpo);
	fflush(stdout);
	return failed;
}

int
main(int argc, char **argv)
{
	uint64_t failed = 0;
	bool no_pci = false;
	int n;

	if (argc == 2 && strcmp(argv[1], "--version") == 0) {
		print_version();
		return 0;
	}
	if (argc == 2 && strcmp(argv[1], "--help") == 0) {
		usage();
		return 0;
	}
	/* A crypto benchmark on vdevs never needs PCI: never probe the host's NICs. */
	for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		no_pci |= strcmp(argv[i], "--no-pci") == 0;
	if (!no_pci) {
		fprintf(stderr, "vecsec-pmd-bench: refusing to start EAL without --no-pci\n");
		return 2;
	}
	n = rte_eal_init(argc, argv);
	if (n < 0)
		rte_exit(EXIT_FAILURE, "EAL init failed\n");
	argc -= n;
	argv += n;
	/* getopt starts after argv[0]: make the program name that */
	argv[0] = (char *)(uintptr_t)"vecsec-pmd-bench";
	parse_args(argc, argv);
	rng = opt.seed;
	if (opt.csv != NULL) {
		g.csv = fopen(opt.csv, "w");
		if (g.csv == NULL)
			die("cannot write %s: %s", opt.csv, strerror(errno));
		fprintf(g.csv, "devtype,op,size,sessions,cycles_per_op,cycles_per_byte,"
			"mops,gbps,failed_ops,reps,ops_per_rep,cpu_pct,oncpu_cycles_per_op\n");
	}
	dev_setup();
	printf("ops per run %" PRIu64 ", warm-up %" PRIu64 ", median of %u runs\n",
	       opt.ops, opt.warmup, opt.reps);
	printf("%-24s %-7s %6s %8s %10s %8s %8s %8s %8s %5s %10s\n", "devtype", "op", "size",
	       "sessions", "cycles/op", "c/B", "Mops", "Gbps", "failed", "cpu%", "cpu c/op");
	for (unsigned int s = 0; s < opt.nb_sizes; s++) {
		uint64_t bytes = data_setup(opt.sizes[s]);

		verify(opt.sizes[s]);
		for (int d = 0; d < 2; d++)
			if (opt.dirs & (1 << d))
				failed += measure(d, opt.sizes[s], bytes);
	}
	printf("verify: PASS (%s == OpenSSL EVP_chacha20_poly1305 for every op and size, "
	       "forged tags rejected)\n", opt.devtype);
	printf("failed ops: %" PRIu64 "\n", failed);
	if (g.csv != NULL && fclose(g.csv) != 0)
		die("writing %s failed", opt.csv);
	dev_teardown();
	vecsec_eal_cleanup();
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
