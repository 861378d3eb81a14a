/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec-bench: times every vecsec primitive, once per ISA level the CPU
 * has, against peer libraries (OpenSSL, libsodium, libgcrypt, ipsec-mb)
 * measured in the same run, one message at a time and in bursts of 32
 * independent jobs (the lanes scenario; --sizes imix-esp: three such
 * bursts in turn, a gateway's ESP payloads). Before timing a point, every
 * implementation's output is checked against the first one's, byte for
 * byte: a mismatch stops the run. Reports the median of N samples in TSC
 * cycles, as an aligned table, a CSV file and a PNG plot.
 *
 * Kernel-level modes add vecsec columns with one (X)ChaCha20-Poly1305 path
 * pinned (bench_vecsec_variant()): --two-pass (the stitched kernels against
 * the two-pass code, per ISA level), --lanes (every lane width pair and
 * per-job bursts against ipsec-mb's job API), --crossover (lanes against
 * the single-message path at any size), --staged (the staged burst path
 * on and off), --novl (the AVX2 lane kernels' plain forms against their
 * AVX-512VL forms, at the AVX2 and AVX-512 levels; at AVX2 the
 * single-message assembly's too), --mixed (the
 * mixed-burst bound off, at the top level measured). --floor adds, to each vecsec burst of (X)ChaCha20-Poly1305,
 * its kernel floor (bench_floor.c): the lane blocks the burst's jobs need,
 * through the lane kernels it dispatches to, timed sample for sample
 * between the burst's own samples.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "vecsec/vecsec.h"
#include "bench.h"

#define MAX_IMPLS 24
#define MAX_SIZES 32
#define MAX_REPS 1001
/* works timed together at one point: every impl, a burst with its floor's two kernels */
#define MAX_WORKS (3 * MAX_IMPLS)
#define MAX_LEN (1u << 20)
#define BURST_N 32
#define ESP_BURSTS 3   /* imix-esp: bursts of BURST_N per timed iteration */
#define BURST_MAX (ESP_BURSTS * BURST_N)
#define IMIX_SIZE 0    /* the IMIX point in a size list */
#define IMIX_ESP_SIZE ((size_t)-1)  /* the IMIX-over-ESP point in a size list */
#define IMIX_LEN 1500  /* largest IMIX packet */

static const size_t default_sizes[] = {16, 64, 256, 512, 1024, 1420, 2048, 4096, 8192, 16384};
static const size_t quick_sizes[] = {64, 1420, 8192};
static const size_t burst_sizes[] = {64, 128, 256, 512, 1024, 1420, IMIX_SIZE};
static const size_t quick_burst_sizes[] = {64, 1420, IMIX_SIZE};
/* IMIX 7:4:1 (64, 576, 1500 bytes), interleaved as a link would carry it */
static const size_t imix_pattern[12] = {64, 576, 64, 64, 1500, 64, 576, 64, 576, 64, 64, 576};
/*
 * imix-esp: what a gateway's bursts hold when a link carries IMIX frames
 * (64, 576, 1460 bytes) in the 12-frame cycle 7 x 64, 4 x 576, 1 x 1460 and
 * each frame becomes a tunnel-mode ESP payload (52, 564, 1448 bytes of
 * ciphertext). Three bursts of BURST_N taken from frame 0 on are the
 * cycle's rotations 0, 8 and 4: 21/9/2, 18/11/3 and 17/12/3 jobs of
 * 52/564/1448 bytes, each timed iteration runs all three in turn.
 */
static const size_t imix_esp_pattern[12] = {52, 52, 52, 52, 52, 52, 52, 564, 564, 564, 564,
					     1448};

/* The name of a mix point of a size list ("imix", "imix-esp"), or NULL for a size in bytes. */
static const char *
mix_name(size_t size)
{
	return size == IMIX_SIZE ? "imix" : size == IMIX_ESP_SIZE ? "imix-esp" : NULL;
}

enum res_status { RES_OK, RES_NA };

struct result {
	bool burst;
	enum bench_case_id cid;
	enum bench_op op;
	size_t size;           /* IMIX_SIZE for IMIX, IMIX_ESP_SIZE for imix-esp */
	double bytes;          /* bytes per message (IMIX, imix-esp: mean) */
	int impl;
	enum res_status status;
	const char *why;       /* n/a reason */
	char detail[100];       /* dispatched impl, or library version */
	double ticks;          /* median ticks per message */
	double iqr;            /* interquartile range / median: the noise */
	unsigned int reps;
	/* --floor (vecsec bursts): ticks per message of the lane kernels */
	bool has_floor;
	double floor_chacha, floor_poly;
	double chacha_blocks, poly_blocks;    /* per message */
	unsigned int single_jobs;             /* jobs past the crossover (not in lanes) */
	unsigned int jobs;                    /* jobs per timed iteration (bursts) */
	const char *floor_why;                /* no floor: why (NULL: not asked) */
};

static struct {
	bool quick, burst, burst_only, no_peers;
	bool two_pass, lanes, crossover, staged;   /* kernel-level variants */
	bool novl;             /* --novl: the AVX2 lane kernels' plain forms as well */
	bool mixed;            /* --mixed: bursts without the mixed-burst bound as well */
	bool floor;            /* --floor: each vecsec burst's kernel floor */
	unsigned int insns;    /* --insns N: untimed runs for an instruction counter */
	unsigned int reps;
	bool want_case[CASE_COUNT];
	bool any_case;
	size_t sizes[MAX_SIZES];
	unsigned int nsizes;
	bool want_isa[VECSEC_ISA_AVX512 + 1];
	bool any_isa;
	const char *csv, *png, *fault;
	double sample_s, warm_s;
} opt;

static struct bench_impl *impls[MAX_IMPLS];
/* implementations whose init() refused: kept (not measured) until exit, like impls[] */
static struct bench_impl *unusable[MAX_IMPLS];
static unsigned int nunusable;
const char *bench_ipsecmb_arch;
const char *bench_gcrypt_deny;
static unsigned int nimpls;
static struct result *results;
static size_t nresults, capresults;
static double samples[MAX_WORKS][MAX_REPS];
static unsigned int points_done, points_total;
static bool progress_tty;

static void __attribute__((noreturn, format(printf, 1, 2)))
die(const char *fmt, ...)
{
	va_list ap;

	if (progress_tty)
		fputc('\n', stderr);
	fputs("vecsec-bench: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(3);
}

static const char *
op_name(const struct bench_case *c, enum bench_op op)
{
	switch (c->kind) {
	case BENCH_AEAD:
		return op == BENCH_ENC ? "seal" : "open";
	case BENCH_MAC:
		return "mac";
	case BENCH_HASH:
		return "hash";
	default:
		return op == BENCH_ENC ? "encrypt" : "decrypt";
	}
}

static struct result *
add_result(void)
{
	if (nresults == capresults) {
		capresults = capresults ? 2 * capresults : 256;
		results = realloc(results, capresults * sizeof(*results));
		if (results == NULL)
			die("out of memory");
	}
	memset(&results[nresults], 0, sizeof(results[0]));
	return &results[nresults++];
}

/* ---- one unit of timed work: a message, or a burst of messages ---- */

struct work {
	const struct bench_impl *im;
	const struct bench_case *c;
	enum bench_op op;
	void *ctx;
	const uint8_t *in, *nonce, *aad;
	uint8_t *out, *tag;
	size_t len;
	struct bench_msg *msgs;    /* burst mode when n > 0 */
	unsigned int n;
	unsigned int bursts;       /* bursts of n in turn, from msgs on (0 counts as 1) */
	void (*fn)(void *arg);     /* else, when set: fn(arg) (a floor's kernels) */
	void *arg;
};

static unsigned int
run_burst(const struct work *w)
{
	unsigned int bad = 0, nb = w->bursts > 1 ? w->bursts : 1;

	for (unsigned int b = 0; b < nb; b++) {
		struct bench_msg *msgs = w->msgs + (size_t)b * w->n;

		if (w->im->burst != NULL) {
			bad += w->im->burst(w->c, w->op, msgs, w->n);
			continue;
		}
		for (unsigned int i = 0; i < w->n; i++) {
			struct bench_msg *m = &msgs[i];

			m->status = w->im->run(m->ctx, w->op, m->out, m->tag, m->in, m->len,
					       m->nonce, m->aad);
			bad += m->status != 0;
		}
	}
	return bad;
}

static int
work_once(const struct work *w)
{
	if (w->fn != NULL) {
		w->fn(w->arg);
		return 0;
	}
	if (w->n > 0)
		return run_burst(w) != 0 ? -1 : 0;
	return w->im->run(w->ctx, w->op, w->out, w->tag, w->in, w->len, w->nonce, w->aad);
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/*
 * Warm up for warm_s, find an iteration count whose run lasts sample_s,
 * then take reps samples of that many iterations: the median of the
 * per-iteration tick counts. With several works (every implementation of
 * a point, each burst with its floor's kernels), each has its own count
 * and the samples alternate (work 0, 1, ..., then 0 again), each after
 * its implementation's select(), so that all see the same machine: on a
 * shared host a busy minute slows every implementation's samples alike
 * rather than one implementation's whole run.
 */
static unsigned long
find_iters(const struct work *w)
{
	double hz = bench_tick_hz();
	uint64_t warm = (uint64_t)(opt.warm_s * hz), want = (uint64_t)(opt.sample_s * hz);
	uint64_t t0 = bench_ticks(), t1;
	unsigned long iters = 1;

	do {
		if (work_once(w) != 0)
			die("%s %s %s len %zu failed while timing", w->im->name, w->c->name,
			    op_name(w->c, w->op), w->len);
	} while (bench_ticks() - t0 < warm);
	for (;;) {
		t0 = bench_ticks();
		for (unsigned long i = 0; i < iters; i++)
			work_once(w);
		t1 = bench_ticks();
		if (t1 - t0 >= want || iters >= (1ul << 30))
			return iters;
		/* aim a little above the target so the next try is enough */
		iters = t1 - t0 < want / 64 ? iters * 64 :
			(unsigned long)((double)iters * 1.2 * (double)want / (double)(t1 - t0)) + 1;
	}
}

/* im's settings (vecsec: its ISA level and knobs) before its samples */
static void
work_select(const struct work *w)
{
	if (w->im->select != NULL)
		w->im->select(w->im);
}

static void
measure_n(const struct work *const *w, unsigned int nw, unsigned int reps, double *med,
	  double *iqr)
{
	unsigned long iters[MAX_WORKS];

	if (nw > MAX_WORKS)
		die("%u works at one point, at most %u", nw, MAX_WORKS);
	for (unsigned int k = 0; k < nw; k++) {
		work_select(w[k]);
		iters[k] = find_iters(w[k]);
	}
	for (unsigned int r = 0; r < reps; r++) {
		for (unsigned int k = 0; k < nw; k++) {
			uint64_t t0, t1;

			work_select(w[k]);
			t0 = bench_ticks();
			for (unsigned long i = 0; i < iters[k]; i++)
				work_once(w[k]);
			t1 = bench_ticks();
			samples[k][r] = (double)(t1 - t0) / (double)iters[k];
		}
	}
	for (unsigned int k = 0; k < nw; k++) {
		double *sm = samples[k];

		qsort(sm, reps, sizeof(sm[0]), cmp_double);
		med[k] = reps % 2 ? sm[reps / 2] : (sm[reps / 2 - 1] + sm[reps / 2]) / 2;
		/* (3 * reps) / 4 < reps for every reps >= 1 */
		iqr[k] = (sm[(3 * reps) / 4] - sm[reps / 4]) / med[k];
	}
}

static void
progress(const struct bench_impl *im, const struct bench_case *c, const char *what, size_t size)
{
	points_done++;
	if (!progress_tty)
		return;
	if (mix_name(size) != NULL)
		fprintf(stderr, "\r\033[K[%u/%u] %s %s %s %s", points_done, points_total, c->name,
			what, mix_name(size), im->name);
	else
		fprintf(stderr, "\r\033[K[%u/%u] %s %s %zu %s", points_done, points_total, c->name,
			what, size, im->name);
}

/* ---- cross-check: every impl must give the first impl's bytes ---- */

struct ref_out {
	const char *impl;      /* NULL until the first impl ran */
	uint8_t *out, *tag;
};

static void
check_same(struct ref_out *ref, const struct bench_impl *im, const struct bench_case *c,
	   size_t size, unsigned int msg, const uint8_t *out, const uint8_t *tag, size_t len)
{
	size_t tl = c->tag_len;

	if (ref->impl == NULL) {
		memcpy(ref->out, out, len);
		memcpy(ref->tag, tag, tl);
		ref->impl = im->name;
		return;
	}
	for (size_t i = 0; i < len; i++)
		if (out[i] != ref->out[i])
			die("MISMATCH: %s len %zu%s%s%s msg %u: %s differs from %s at output byte %zu"
			    " (%02x vs %02x)", c->name, len, mix_name(size) != NULL ? " (" : "",
			    mix_name(size) != NULL ? mix_name(size) : "",
			    mix_name(size) != NULL ? ")" : "", msg, im->name, ref->impl, i, out[i],
			    ref->out[i]);
	for (size_t i = 0; i < tl; i++)
		if (tag[i] != ref->tag[i])
			die("MISMATCH: %s len %zu msg %u: %s differs from %s at tag byte %zu",
			    c->name, len, msg, im->name, ref->impl, i);
}

static bool
isa_usable(int isa)
{
	return isa <= (int)vecsec_cpu_max_isa();
}

static const char *
impl_lacks(const struct bench_impl *im, const struct bench_case *c, size_t size, bool burst)
{
	const char *why = im->lacks(im, c, burst);

	if (why != NULL)
		return why;
	if (mix_name(size) == NULL && c->block != 0 && size % c->block != 0)
		return "ECB needs whole 16-byte blocks";
	if (mix_name(size) == NULL && size < c->min_len)
		return "Adiantum needs >= 16 bytes";
	return NULL;
}

static void
set_detail(struct result *r, const struct bench_impl *im, const struct bench_case *c)
{
	const char *d = im->detail != NULL ? im->detail(im, c) : im->version;

	snprintf(r->detail, sizeof(r->detail), "%s", d != NULL ? d : "");
}

/* ---- single-message cases ---- */

static void
run_single(const struct bench_case *c, size_t size, uint8_t *key, uint8_t *in, uint8_t *out,
	   uint8_t *pt, uint8_t *tag, uint8_t *nonce, uint8_t *aad, struct ref_out *ref)
{
	unsigned int nops = c->kind == BENCH_AEAD ? 2 : 1;
	unsigned int reps = opt.reps;

	ref->impl = NULL;
	bench_fill(key, c->key_len, 0x6b6579 + c->id);
	bench_fill(nonce, 32, 0x6e6f6e6365 + size);
	bench_fill(aad, 8, 0x616164);
	bench_fill(in, size, 0x706c61696e + size);
	if (c->id == CASE_ARIA128_CTR || c->id == CASE_ARIA256_CTR) {
		/* RFC 3686 layout: nonce || IV || 32-bit big-endian counter 1 */
		nonce[12] = nonce[13] = nonce[14] = 0;
		nonce[15] = 1;
	}
	struct work ws[MAX_IMPLS];
	size_t rix[MAX_IMPLS][2];       /* each timed impl's results, by op */
	unsigned int nw = 0;

	/* every impl checked and keyed first, then all timed together (measure_n()) */
	for (unsigned int i = 0; i < nimpls; i++) {
		const struct bench_impl *im = impls[i];
		const char *why = impl_lacks(im, c, size, false);
		struct work w = {
			.im = im, .c = c, .in = in, .out = out, .tag = tag, .len = size,
			.nonce = nonce, .aad = aad,
		};

		if (why != NULL) {
			for (unsigned int op = 0; op < nops; op++) {
				struct result *r = add_result();

				*r = (struct result){ .cid = c->id, .op = op, .size = size,
					.bytes = (double)size, .impl = (int)i, .status = RES_NA,
					.why = why };
				progress(im, c, op_name(c, op), size);
			}
			continue;
		}
		if (im->select != NULL)
			im->select(im);
		w.ctx = im->ctx_new(im, c, key);
		if (w.ctx == NULL)
			die("%s: cannot set up %s", im->name, c->name);
		memset(out, 0, size);
		memset(tag, 0, 16);
		if (im->run(w.ctx, BENCH_ENC, out, tag, in, size, nonce, aad) != 0)
			die("%s %s len %zu: %s failed", im->name, c->name, size,
			    op_name(c, BENCH_ENC));
		if (opt.fault != NULL && strcmp(opt.fault, im->name) == 0)
			out[size / 2] ^= 0x01;  /* --inject-fault: the check must catch it */
		check_same(ref, im, c, size, 0, out, tag, size);
		if (c->kind == BENCH_AEAD) {
			/* open must give the plaintext back, and refuse a forged tag */
			memset(pt, 0, size);
			if (im->run(w.ctx, BENCH_DEC, pt, tag, out, size, nonce, aad) != 0 ||
			    memcmp(pt, in, size) != 0)
				die("%s %s len %zu: open does not give the plaintext back",
				    im->name, c->name, size);
			tag[0] ^= 0x80;
			if (im->run(w.ctx, BENCH_DEC, pt, tag, out, size, nonce, aad) == 0)
				die("%s %s len %zu: open accepted a forged tag", im->name,
				    c->name, size);
			tag[0] ^= 0x80;
		}
		if (c->kind == BENCH_WIDEBLOCK) {
			/* no peer has Adiantum: at least decryption must invert it */
			memset(pt, 0, size);
			if (im->run(w.ctx, BENCH_DEC, pt, tag, out, size, nonce, aad) != 0 ||
			    memcmp(pt, in, size) != 0)
				die("%s %s len %zu: decrypt does not give the plaintext back",
				    im->name, c->name, size);
		}
		for (unsigned int op = 0; op < nops; op++) {
			struct result *r = add_result();

			*r = (struct result){ .cid = c->id, .op = op, .size = size,
				.bytes = (double)size, .impl = (int)i, .status = RES_OK,
				.reps = reps };
			set_detail(r, im, c);   /* under im's select() */
			rix[nw][op] = (size_t)(r - results);
		}
		ws[nw++] = w;
	}
	/*
	 * Every impl's output is the same bytes (check_same()), so all share
	 * out, tag and pt: open reads the ciphertext and tag any of them wrote.
	 */
	for (unsigned int op = 0; op < nops; op++) {
		const struct work *wp[MAX_IMPLS];
		double med[MAX_IMPLS], iqr[MAX_IMPLS];

		for (unsigned int k = 0; k < nw; k++) {
			ws[k].op = op;
			if (op == BENCH_DEC) {
				ws[k].in = out;
				ws[k].out = pt;
			}
			wp[k] = &ws[k];
			progress(ws[k].im, c, op_name(c, op), size);
		}
		if (nw == 0)
			continue;
		measure_n(wp, nw, reps, med, iqr);
		for (unsigned int k = 0; k < nw; k++) {
			results[rix[k][op]].ticks = med[k];
			results[rix[k][op]].iqr = iqr[k];
		}
	}
	for (unsigned int k = 0; k < nw; k++)
		ws[k].im->ctx_free(ws[k].ctx);
}

/*
 * ---- bursts: 32 jobs, 32 keys, 32 nonces (imix-esp: three bursts of
 * 32 in turn, 96 jobs, keys and nonces) ----
 */

struct burst_bufs {
	uint8_t *key[BURST_MAX], *in[BURST_MAX], *ct[BURST_MAX], *pt[BURST_MAX];
	uint8_t tag[BURST_MAX][16], nonce[BURST_MAX][32], aad[BURST_MAX][8];
	size_t len[BURST_MAX];
};

/*
 * A timed iteration's ticks per message (its bursts' jobs: r->jobs) into
 * r from the median (and spread) of its samples; with a floor, its two
 * lane kernels' medians (timed between the burst's samples) into r's
 * floor fields.
 */
static void
burst_result(struct result *r, const double *med, const double *iqr,
	     const struct bench_floor *fl)
{
	double jobs = r->jobs;

	r->ticks = med[0] / jobs;
	r->iqr = iqr[0];
	if (fl == NULL)
		return;
	r->has_floor = true;
	r->floor_chacha = med[1] / jobs;
	r->floor_poly = med[2] / jobs;
	r->chacha_blocks = (double)fl->chacha_blocks / jobs;
	r->poly_blocks = (double)fl->poly_blocks / jobs;
	r->single_jobs = fl->single_jobs;
}

/*
 * The floor of im's bursts of c (after select): the blocks of all njobs
 * jobs of an iteration through the kernels a burst of BURST_N picks; fl,
 * or NULL with *why set (or not asked).
 */
static struct bench_floor *
floor_for(const struct bench_impl *im, const struct bench_case *c, const size_t *len,
	  unsigned int njobs, struct bench_floor *fl, const char **why)
{
	*why = NULL;
	if (!opt.floor || !im->is_vecsec || !bench_floor_case(c))
		return NULL;
	bench_floor_count(c, len, njobs, fl);
	*why = bench_floor_setup(fl, BURST_N);
	return *why == NULL ? fl : NULL;
}

static void
run_burst_case(const struct bench_case *c, size_t size, struct burst_bufs *b,
	       struct ref_out *refs)
{
	double mean = 0;
	unsigned int reps = opt.reps;
	unsigned int nb = size == IMIX_ESP_SIZE ? ESP_BURSTS : 1, nj = nb * BURST_N;

	for (unsigned int j = 0; j < nj; j++) {
		b->len[j] = size == IMIX_SIZE ? imix_pattern[j % 12] :
			    size == IMIX_ESP_SIZE ? imix_esp_pattern[j % 12] : size;
		mean += (double)b->len[j] / nj;
		bench_fill(b->key[j], c->key_len, 0x4b4559 + 1000 * c->id + j);
		bench_fill(b->nonce[j], 32, 0x4e4f4e + j);
		bench_fill(b->aad[j], 8, 0x414144 + j);
		bench_fill(b->in[j], b->len[j], 0x504c41 + j);
		refs[j].impl = NULL;
	}
	/* each timed impl: its jobs' messages (each with its context), its floor, its results */
	struct burst_impl {
		const struct bench_impl *im;
		struct bench_msg msgs[BURST_MAX];
		struct bench_floor fls, *fl;
		struct work w, fc, fp;
		size_t rix[2];
	} *bi = calloc(nimpls, sizeof(*bi));
	unsigned int nt = 0;

	if (bi == NULL)
		die("out of memory");
	/* every impl checked and keyed first, then all timed together (measure_n()) */
	for (unsigned int i = 0; i < nimpls; i++) {
		const struct bench_impl *im = impls[i];
		const char *why = impl_lacks(im, c, size, true);
		struct burst_impl *t = &bi[nt];
		const char *fwhy;

		if (why != NULL) {
			for (unsigned int op = 0; op < 2; op++) {
				struct result *r = add_result();

				*r = (struct result){ .burst = true, .cid = c->id, .op = op,
					.size = size, .bytes = mean, .impl = (int)i,
					.status = RES_NA, .why = why };
				progress(im, c, op_name(c, op), size);
			}
			continue;
		}
		t->im = im;
		t->w = (struct work){ .im = im, .c = c, .msgs = t->msgs, .n = BURST_N,
				      .bursts = nb };
		if (im->select != NULL)
			im->select(im);
		t->fl = floor_for(im, c, b->len, nj, &t->fls, &fwhy);
		for (unsigned int j = 0; j < nj; j++) {
			void *ctx = im->ctx_new(im, c, b->key[j]);

			if (ctx == NULL)
				die("%s: cannot set up %s", im->name, c->name);
			t->msgs[j] = (struct bench_msg){ .ctx = ctx, .in = b->in[j],
				.out = b->ct[j], .tag = b->tag[j], .len = b->len[j],
				.nonce = b->nonce[j], .aad = b->aad[j] };
			memset(b->ct[j], 0, b->len[j]);
		}
		t->w.op = BENCH_ENC;
		if (run_burst(&t->w) != 0)
			die("%s %s burst seal failed", im->name, c->name);
		if (opt.fault != NULL && strcmp(opt.fault, im->name) == 0)
			b->ct[nj - 1][0] ^= 0x01;
		for (unsigned int j = 0; j < nj; j++)
			check_same(&refs[j], im, c, size, j, b->ct[j], b->tag[j], b->len[j]);
		/* open the burst just sealed */
		for (unsigned int j = 0; j < nj; j++) {
			t->msgs[j].in = b->ct[j];
			t->msgs[j].out = b->pt[j];
			memset(b->pt[j], 0, b->len[j]);
		}
		t->w.op = BENCH_DEC;
		if (run_burst(&t->w) != 0)
			die("%s %s burst open failed", im->name, c->name);
		for (unsigned int j = 0; j < nj; j++)
			if (memcmp(b->pt[j], b->in[j], b->len[j]) != 0)
				die("%s %s burst open: message %u differs from the plaintext",
				    im->name, c->name, j);
		for (unsigned int op = 0; op < 2; op++) {
			struct result *r = add_result();

			*r = (struct result){ .burst = true, .cid = c->id, .op = op,
				.size = size, .bytes = mean, .impl = (int)i, .status = RES_OK,
				.reps = reps, .floor_why = fwhy, .jobs = nj };
			set_detail(r, im, c);   /* under im's select() */
			t->rix[op] = (size_t)(r - results);
		}
		nt++;
	}
	/*
	 * Every impl's ciphertext and tags are the same bytes (check_same()),
	 * so all share b's buffers: open reads what any of them sealed.
	 */
	for (unsigned int op = 0; op < 2 && nt > 0; op++) {
		const struct work *wp[MAX_WORKS];
		double med[MAX_WORKS], iqr[MAX_WORKS];
		unsigned int nw = 0, at[MAX_IMPLS];

		for (unsigned int k = 0; k < nt; k++) {
			struct burst_impl *t = &bi[k];

			for (unsigned int j = 0; j < nj; j++) {
				t->msgs[j].in = op == BENCH_ENC ? b->in[j] : b->ct[j];
				t->msgs[j].out = op == BENCH_ENC ? b->ct[j] : b->pt[j];
			}
			t->w.op = op;
			at[k] = nw;
			wp[nw++] = &t->w;
			if (t->fl != NULL) {
				t->fc = (struct work){ .im = t->im, .c = c, .op = op,
						       .fn = t->fl->chacha, .arg = t->fl };
				t->fp = t->fc;
				t->fp.fn = t->fl->poly;
				wp[nw++] = &t->fc;
				wp[nw++] = &t->fp;
			}
			progress(t->im, c, op_name(c, op), size);
		}
		measure_n(wp, nw, reps, med, iqr);
		for (unsigned int k = 0; k < nt; k++)
			burst_result(&results[bi[k].rix[op]], med + at[k], iqr + at[k], bi[k].fl);
	}
	for (unsigned int k = 0; k < nt; k++) {
		for (unsigned int j = 0; j < nj; j++)
			bi[k].im->ctx_free(bi[k].msgs[j].ctx);
		if (bi[k].fl != NULL)
			bench_floor_release(bi[k].fl);
	}
	free(bi);
}

/* ---- report ---- */

static double
mib_s(const struct result *r)
{
	return r->bytes * bench_tick_hz() / r->ticks / (1024.0 * 1024.0);
}

static void
fmt_size(char *buf, size_t len, size_t size)
{
	if (mix_name(size) != NULL)
		snprintf(buf, len, "%s", mix_name(size));
	else
		snprintf(buf, len, "%zu", size);
}

/* The tables' size column: 6 wide, or as wide as a longer name in sizes[] */
static int
size_width(const size_t *sizes, unsigned int nsizes)
{
	int w = 6;

	for (unsigned int s = 0; s < nsizes; s++)
		if (mix_name(sizes[s]) != NULL && (int)strlen(mix_name(sizes[s])) > w)
			w = (int)strlen(mix_name(sizes[s]));
	return w;
}

static const struct result *
find(bool burst, enum bench_case_id cid, enum bench_op op, size_t size, unsigned int impl)
{
	for (size_t i = 0; i < nresults; i++) {
		const struct result *r = &results[i];

		if (r->burst == burst && r->cid == cid && r->op == op && r->size == size &&
		    r->impl == (int)impl)
			return r;
	}
	return NULL;
}

/* Which kernels vecsec's dispatch picked at each ISA level, for this case. */
static void
print_dispatch(bool burst, const struct bench_case *c)
{
	const char *first = NULL;
	bool same = true;

	for (size_t k = 0; k < nresults; k++) {
		const struct result *r = &results[k];

		if (r->burst != burst || r->cid != c->id || r->status != RES_OK ||
		    !impls[r->impl]->is_vecsec)
			continue;
		if (first == NULL)
			first = r->detail;
		same &= strcmp(first, r->detail) == 0;
	}
	if (first == NULL)
		return;
	if (same) {
		printf("   vecsec kernels at every ISA level: %s\n", first);
		return;
	}
	printf("   vecsec kernels:");
	for (unsigned int i = 0; i < nimpls; i++) {
		const struct result *r = NULL;

		for (size_t k = 0; k < nresults && r == NULL; k++)
			if (results[k].burst == burst && results[k].cid == c->id &&
			    results[k].impl == (int)i && results[k].status == RES_OK)
				r = &results[k];
		if (r != NULL && impls[i]->is_vecsec)
			printf(" %s=[%s]", impls[i]->name + 7, r->detail);
	}
	putchar('\n');
}

/*
 * The lane kernels vecsec_aead_burst() chose for BURST_N jobs at each ISA
 * level measured (the lanes engine takes only (X)ChaCha20-Poly1305).
 */
static void
print_lanes(const struct bench_case *c)
{
	if (c->id != CASE_CHACHA20_POLY1305 && c->id != CASE_XCHACHA20_POLY1305)
		return;
	for (unsigned int i = 0; i < nimpls; i++) {
		const struct bench_impl *im = impls[i];
		bool measured = false;
		const char *lanes;

		for (size_t k = 0; k < nresults && !measured; k++)
			measured = results[k].burst && results[k].cid == c->id &&
				   results[k].impl == (int)i && results[k].status == RES_OK;
		if (!im->is_vecsec || !measured)
			continue;
		if (im->select != NULL)
			im->select(im);
		lanes = bench_vecsec_lanes(BURST_N);
		if (lanes != NULL)
			printf("   %s lanes: %s\n", im->name, lanes);
	}
}

static void
print_group(bool burst, const struct bench_case *c, const size_t *sizes, unsigned int nsizes)
{
	unsigned int nops = burst || c->kind == BENCH_AEAD ? 2 : 1;
	int width[MAX_IMPLS], szw = size_width(sizes, nsizes);
	bool any = false, esp = false;

	for (size_t i = 0; i < nresults; i++)
		if (results[i].burst == burst && results[i].cid == c->id)
			any = true;
	if (!any)
		return;
	for (unsigned int s = 0; s < nsizes; s++)
		esp |= sizes[s] == IMIX_ESP_SIZE;
	printf("\n== %s%s: %s ==\n", burst ? "burst " : "", c->name, c->note);
	if (burst) {
		printf("   %u jobs per burst, %u keys and nonces; TSC cycles per message "
		       "(lower is better)\n", BURST_N, BURST_N);
		if (esp)
			printf("   imix-esp: %u bursts of %u in turn, %u keys and nonces: ESP payloads "
			       "of 52, 564, 1448 bytes\n   (21/9/2, 18/11/3, 17/12/3), per message "
			       "of the %u\n", ESP_BURSTS, BURST_N, BURST_MAX, BURST_MAX);
		print_lanes(c);
	} else {
		printf("   TSC cycles per byte (lower is better)\n");
	}
	printf("%-8s %*s", "op", szw, "size");
	for (unsigned int i = 0; i < nimpls; i++) {
		int n = (int)strlen(impls[i]->name);

		width[i] = n < 9 ? 9 : n;
		printf("  %*s", width[i], impls[i]->name);
	}
	if (burst)
		printf("  | best vecsec: %9s %9s | vs best peer\n", "cyc/B", "msg/s");
	else
		printf("  | best vecsec: %7s %9s %11s | vs best peer\n", "ns/B", "MiB/s", "ops/s");
	for (unsigned int op = 0; op < nops; op++) {
		for (unsigned int s = 0; s < nsizes; s++) {
			const struct result *bv = NULL, *bp = NULL;
			char sz[24];
			bool row = false;

			for (unsigned int i = 0; i < nimpls; i++)
				row |= find(burst, c->id, op, sizes[s], i) != NULL;
			if (!row)
				continue;
			fmt_size(sz, sizeof(sz), sizes[s]);
			printf("%-8s %*s", op_name(c, op), szw, sz);
			for (unsigned int i = 0; i < nimpls; i++) {
				const struct result *r = find(burst, c->id, op, sizes[s], i);

				if (r == NULL || r->status != RES_OK) {
					printf("  %*s", width[i], r == NULL ? "-" : "n/a");
					continue;
				}
				printf("  %*.*f", width[i], burst ? 0 : 2,
				       burst ? r->ticks : r->ticks / r->bytes);
				if (impls[i]->is_vecsec && (bv == NULL || r->ticks < bv->ticks))
					bv = r;
				if (!impls[i]->is_vecsec && (bp == NULL || r->ticks < bp->ticks))
					bp = r;
			}
			if (bv == NULL)
				printf("  | %-44s |", "");
			else if (burst)
				printf("  | %-12s %9.2f %9.0f |", impls[bv->impl]->name + 7,
				       bv->ticks / bv->bytes, bench_tick_hz() / bv->ticks);
			else
				printf("  | %-12s %7.3f %9.1f %11.0f |", impls[bv->impl]->name + 7,
				       bv->ticks / bench_tick_hz() / bv->bytes * 1e9, mib_s(bv),
				       bench_tick_hz() / bv->ticks);
			if (bv != NULL && bp != NULL) {
				double x = bp->ticks / bv->ticks;

				printf(x < 0.1 ? " %5.3fx %s\n" : " %5.2fx %s\n", x,
				       impls[bp->impl]->name);
			} else {
				printf(" %s\n", bv == NULL ? "(no vecsec)" : "(no peer)");
			}
		}
	}
	print_dispatch(burst, c);
	/* say once per case why a cell is n/a: each reason with its impls */
	for (size_t k = 0; k < nresults; k++) {
		const struct result *r = &results[k];
		bool first = true, seen = false;

		if (r->burst != burst || r->cid != c->id || r->status != RES_NA)
			continue;
		for (size_t j = 0; j < k && !seen; j++)
			seen = results[j].burst == burst && results[j].cid == c->id &&
			       results[j].status == RES_NA && strcmp(results[j].why, r->why) == 0;
		if (seen)
			continue;
		printf("   n/a: %s:", r->why);
		for (unsigned int i = 0; i < nimpls; i++) {
			for (size_t j = k; j < nresults; j++) {
				const struct result *q = &results[j];

				if (q->burst == burst && q->cid == c->id && q->impl == (int)i &&
				    q->status == RES_NA && strcmp(q->why, r->why) == 0) {
					printf("%s %s", first ? "" : ",", impls[i]->name);
					first = false;
					break;
				}
			}
		}
		putchar('\n');
	}
}

/* --floor: each vecsec burst against its kernel floor (bench_floor.c) */
static void
print_floor(const struct bench_case *c, const size_t *sizes, unsigned int nsizes)
{
	int szw = size_width(sizes, nsizes), imw = 16;
	bool any = false;

	for (size_t i = 0; i < nresults; i++)
		any |= results[i].burst && results[i].cid == c->id &&
		       (results[i].has_floor || results[i].floor_why != NULL);
	if (!any)
		return;
	for (unsigned int i = 0; i < nimpls; i++)
		if (impls[i]->is_vecsec && (int)strlen(impls[i]->name) > imw)
			imw = (int)strlen(impls[i]->name);
	printf("   kernel floor (--floor): the burst's ChaCha20 and Poly1305 lane blocks (per message)\n"
	       "   through the lane kernels above at full width, data in L1, timed between the\n"
	       "   burst's samples; TSC cycles per message\n");
	printf("%-8s %*s  %-*s %7s %8s %8s %8s %8s %8s %11s\n", "op", szw, "size", imw, "floor of",
	       "cha blk", "poly blk", "chacha", "poly1305", "floor", "burst", "burst/floor");
	for (unsigned int op = 0; op < 2; op++) {
		for (unsigned int s = 0; s < nsizes; s++) {
			for (unsigned int i = 0; i < nimpls; i++) {
				const struct result *r = find(true, c->id, op, sizes[s], i);
				char sz[24];
				double fl;

				if (r == NULL || r->status != RES_OK ||
				    (!r->has_floor && r->floor_why == NULL))
					continue;
				fmt_size(sz, sizeof(sz), sizes[s]);
				printf("%-8s %*s  %-*s", op_name(c, op), szw, sz, imw, impls[i]->name);
				if (!r->has_floor) {
					printf(" n/a: %s\n", r->floor_why);
					continue;
				}
				fl = r->floor_chacha + r->floor_poly;
				printf(" %7.2f %8.2f %8.0f %8.0f %8.0f %8.0f %10.2fx",
				       r->chacha_blocks, r->poly_blocks, r->floor_chacha,
				       r->floor_poly, fl, r->ticks, r->ticks / fl);
				if (r->single_jobs > 0)
					printf("  (%u of %u jobs past the crossover: single-message "
					       "path)", r->single_jobs, r->jobs);
				putchar('\n');
			}
		}
	}
}

static void
print_tables(void)
{
	size_t bsz[MAX_SIZES + 8];
	unsigned int nb = 0;

	for (unsigned int k = 0; k < CASE_COUNT; k++)
		print_group(false, &bench_cases[k], opt.sizes, opt.nsizes);
	/* burst sizes: those of the results, in order of appearance */
	for (size_t i = 0; i < nresults; i++) {
		bool seen = false;

		if (!results[i].burst)
			continue;
		for (unsigned int j = 0; j < nb; j++)
			seen |= bsz[j] == results[i].size;
		if (!seen && nb < BENCH_ARRAY_SIZE(bsz))
			bsz[nb++] = results[i].size;
	}
	for (unsigned int k = 0; k < CASE_COUNT; k++) {
		print_group(true, &bench_cases[k], bsz, nb);
		print_floor(&bench_cases[k], bsz, nb);
	}
	printf("\nratio: best peer's time / best vecsec's time (above 1: vecsec is faster)\n");
}

static void
csv_field(FILE *f, const char *s)
{
	if (strpbrk(s, ",\"\n") == NULL) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static const char csv_header[] =
	"mode,case,op,size,bytes,impl,detail,status,note,reps,"
	"cycles_per_op,cycles_per_byte,ns_per_byte,mib_per_s,ops_per_s,iqr_pct";
/* --floor: these after the others (TSC cycles per message; empty where no floor) */
static const char csv_floor_header[] =
	",floor_chacha_blocks,floor_poly1305_blocks,floor_chacha_cycles,"
	"floor_poly1305_cycles,floor_cycles,burst_per_floor,floor_single_jobs";

static void
csv_floor(FILE *f, const struct result *r)
{
	double fl = r->floor_chacha + r->floor_poly;

	if (!opt.floor)
		return;
	if (r->has_floor)
		fprintf(f, ",%.2f,%.2f,%.1f,%.1f,%.1f,%.4f,%u", r->chacha_blocks,
			r->poly_blocks, r->floor_chacha, r->floor_poly, fl, r->ticks / fl,
			r->single_jobs);
	else
		fprintf(f, ",,,,,,,");
}

static int
write_csv(const char *path)
{
	FILE *f = fopen(path, "w");
	double hz = bench_tick_hz();

	if (f == NULL) {
		fprintf(stderr, "vecsec-bench: cannot write %s: %s\n", path, strerror(errno));
		return -1;
	}
	fprintf(f, "%s%s\n", csv_header, opt.floor ? csv_floor_header : "");
	for (size_t i = 0; i < nresults; i++) {
		const struct result *r = &results[i];
		const struct bench_case *c = &bench_cases[r->cid];
		char sz[24];

		fmt_size(sz, sizeof(sz), r->size);
		fprintf(f, "%s,%s,%s,%s,%.1f,%s,", r->burst ? "burst" : "single", c->name,
			op_name(c, r->op), sz, r->bytes, impls[r->impl]->name);
		csv_field(f, r->detail);
		fprintf(f, ",%s,", r->status == RES_OK ? "ok" : "n/a");
		csv_field(f, r->why != NULL ? r->why : "");
		if (r->status == RES_OK)
			fprintf(f, ",%u,%.1f,%.4f,%.4f,%.1f,%.0f,%.1f", r->reps, r->ticks,
				r->ticks / r->bytes, r->ticks / hz / r->bytes * 1e9, mib_s(r),
				hz / r->ticks, 100 * r->iqr);
		else
			fprintf(f, ",,,,,,,");
		csv_floor(f, r);
		fputc('\n', f);
	}
	if (fclose(f) != 0) {
		fprintf(stderr, "vecsec-bench: writing %s failed\n", path);
		return -1;
	}
	return 0;
}

/*
 * Where plot_bench.py is (meson passes these): installed in
 * <datadir>/vecsec/, found from the executable's own folder by the relative
 * path from <bindir> (so a relocated or DESTDIR tree finds its own copy),
 * else at the configured absolute path; a binary run from its build folder
 * uses the source tree's tools/report/plot_bench.py.
 */
#if !defined(BENCH_PLOT_SRC) || !defined(BENCH_BUILD_DIR) || !defined(BENCH_PLOT_ABS)
#error "meson defines BENCH_PLOT_SRC, BENCH_BUILD_DIR and BENCH_PLOT_ABS"
#endif

/* The plot script to run, in script[]; VECSEC_BENCH_PLOT overrides. */
static void
plot_script(char *script, size_t size)
{
	const char *env = getenv("VECSEC_BENCH_PLOT");
	char exe[PATH_MAX], build[PATH_MAX], *slash;
	ssize_t n;

	if (env != NULL && *env != '\0') {
		snprintf(script, size, "%s", env);
		return;
	}
	snprintf(script, size, "%s", BENCH_PLOT_ABS);
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return;
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (slash == NULL)
		return;
	*slash = '\0';
	if (realpath(BENCH_BUILD_DIR, build) != NULL && strcmp(exe, build) == 0) {
		snprintf(script, size, "%s", BENCH_PLOT_SRC);
		return;
	}
#ifdef BENCH_PLOT_REL
	{
		char rel[PATH_MAX], real[PATH_MAX];
		int len = snprintf(rel, sizeof(rel), "%s/%s", exe, BENCH_PLOT_REL);

		if (len > 0 && (size_t)len < sizeof(rel) && realpath(rel, real) != NULL &&
				access(real, R_OK) == 0)
			snprintf(script, size, "%s", real);
	}
#endif
}

/* Draw the PNG with plot_bench.py (script[]); 0, or -1 (reason printed). */
static int
plot(const char *csv, const char *png, const char *title, char *script, size_t size)
{
	const char *py = "/usr/bin/python3";
	pid_t pid;
	int st;

	plot_script(script, size);
	if (access(py, X_OK) != 0 || access(script, R_OK) != 0) {
		fprintf(stderr, "vecsec-bench: no PNG: %s or %s is missing\n", py, script);
		return -1;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		execl(py, py, script, csv, png, "--title", title, (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) < 0)
		st = -1;
	if (st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 2) {
		fprintf(stderr, "vecsec-bench: no PNG: matplotlib is missing for %s"
			" (the CSV is complete)\n", py);
		return -1;
	}
	if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		fprintf(stderr, "vecsec-bench: no PNG written (%s exited %d)\n", script,
			st != -1 && WIFEXITED(st) ? WEXITSTATUS(st) : -1);
		return -1;
	}
	return 0;
}

/* ---- options ---- */

static void
usage(FILE *f)
{
	fprintf(f,
"usage: vecsec-bench [options]\n"
"Times libvecsec (once per ISA level) against OpenSSL, libsodium, libgcrypt,\n"
"ipsec-mb and Nettle in the same run; checks first that all give identical bytes.\n"
"\n"
"  --quick          short run (sizes 64,1420,8192; 7 samples; bursts 64,1420,imix)\n"
"  --case LIST      cases to run (comma list, repeatable; default all)\n"
"  --sizes LIST     message sizes in bytes (comma list; 'imix', 'imix-esp' for bursts)\n"
"                   imix: bursts of %d in the 7:4:1 mix of 64, 576, 1500 bytes;\n"
"                   imix-esp: %d bursts of %d in turn, the ESP payloads of IMIX\n"
"                   frames (52, 564, 1448 bytes: 21/9/2, 18/11/3, 17/12/3 jobs)\n"
"  --isa LIST       vecsec ISA levels (scalar,ssse3,avx2,avx512; default all the CPU has)\n"
"  --reps N         samples per point, the median is reported (default 31, quick 7)\n"
"  --burst          also run bursts of %d jobs with %d keys (vecsec_aead_burst vs peers)\n"
"  --burst-only     run only the bursts\n"
"  --no-peers       measure vecsec alone\n"
"  --ipsecmb-arch A ipsec-mb manager: auto (default), sse, avx, avx2, avx512\n"
"  --gcrypt-deny L  libgcrypt features to deny, e.g. intel-avx2 (GCRYCTL_DISABLE_HWF)\n"
"  --two-pass       ChaCha20-Poly1305: each ISA level also through the two-pass code\n"
"                   (no stitched kernel): vecsec-<isa>-2pass\n"
"  --lanes          bursts: every lane width pair (vecsec-lanes-x16/x8 ...) and per-job\n"
"                   bursts (vecsec-per-job) at the top ISA level\n"
"  --crossover      bursts: lanes for every size (vecsec-all-lanes) against per-job\n"
"                   (vecsec-per-job), e.g. --sizes 512,1024,2048,4096,8192,16384\n"
"  --staged         bursts: the staged path (vecsec-staged) against the general passes\n"
"                   (vecsec-general)\n"
"  --novl           bursts: at the AVX2 and AVX-512 levels also the plain AVX2 lane\n"
"                   kernels where the CPU has AVX-512VL/BW (default: their VL forms):\n"
"                   vecsec-<isa>-novl; at AVX2 single messages of (x)chacha20-poly1305\n"
"                   too (the plain stitched assembly against its VL form)\n"
"  --mixed          bursts: at the top ISA level also the mixed-burst bound off (its\n"
"                   few long jobs stay in the lanes): vecsec-<isa>-nomixed\n"
"  --floor          bursts of (x)chacha20-poly1305 (--burst or --burst-only, --case\n"
"                   chacha20-poly1305 and/or xchacha20-poly1305): each vecsec burst's\n"
"                   kernel floor, the lane blocks its jobs need through the lane\n"
"                   kernels it dispatches to, timed between its samples\n"
"  --insns N        untimed: each case and size N times through vecsec only, at one\n"
"                   ISA level (--isa, default the top), bursts of %d with --burst;\n"
"                   the workload of tools/arm64_insns.py (docs/arm64.md)\n"
"  --csv FILE       write every point as CSV\n"
"  --png FILE       plot cycles/byte vs size (plot_bench.py, matplotlib; installed in\n"
"                   " BENCH_PLOT_DIR ", or VECSEC_BENCH_PLOT=SCRIPT)\n"
"  --inject-fault IMPL  corrupt IMPL's output before the cross-check (tests only)\n"
"  --help           this text\n"
"  --version        print the version and exit\n"
"\ncases:\n", BURST_N, ESP_BURSTS, BURST_N, BURST_N, BURST_N, BURST_N);
	for (unsigned int k = 0; k < CASE_COUNT; k++)
		fprintf(f, "  %-20s %s%s%s\n", bench_cases[k].name, bench_cases[k].note,
			bench_cases[k].kind == BENCH_AEAD ? " [aead: seal+open]" : "",
			bench_cases[k].burst ? " [burst]" : "");
	fprintf(f, "\nTimes are %s ticks (median of the samples); the table shows cycles/byte\n"
		"per implementation, the best vecsec's ns/B, MiB/s and ops/s, and the best\n"
		"peer's time over the best vecsec's time. At each point every implementation\n"
		"takes one sample in turn, so a busy moment of a shared machine slows all\n"
		"of them alike.\n", bench_tick_name());
}

static void
parse_cases(const char *arg)
{
	char *dup = strdup(arg), *save = NULL;

	for (char *t = strtok_r(dup, ",", &save); t != NULL; t = strtok_r(NULL, ",", &save)) {
		bool found = false;

		for (unsigned int k = 0; k < CASE_COUNT; k++) {
			if (strcmp(t, "all") == 0 || strcmp(t, bench_cases[k].name) == 0) {
				opt.want_case[k] = true;
				found = true;
			}
		}
		if (!found) {
			fprintf(stderr, "vecsec-bench: unknown case '%s' (see --help)\n", t);
			exit(1);
		}
		opt.any_case = true;
	}
	free(dup);
}

static void
parse_sizes(const char *arg)
{
	char *dup = strdup(arg), *save = NULL;

	opt.nsizes = 0;
	for (char *t = strtok_r(dup, ",", &save); t != NULL; t = strtok_r(NULL, ",", &save)) {
		char *end;
		unsigned long v;

		if (opt.nsizes == MAX_SIZES) {
			fprintf(stderr, "vecsec-bench: at most %d sizes\n", MAX_SIZES);
			exit(1);
		}
		if (strcmp(t, "imix") == 0 || strcmp(t, "imix-esp") == 0) {
			opt.sizes[opt.nsizes++] = t[4] == '\0' ? IMIX_SIZE : IMIX_ESP_SIZE;
			continue;
		}
		errno = 0;
		v = strtoul(t, &end, 10);
		if (errno != 0 || *end != '\0' || v == 0 || v > MAX_LEN) {
			fprintf(stderr, "vecsec-bench: bad size '%s' (1..%u, imix or imix-esp)\n",
				t, MAX_LEN);
			exit(1);
		}
		opt.sizes[opt.nsizes++] = v;
	}
	free(dup);
}

static void
parse_isas(const char *arg)
{
	char *dup = strdup(arg), *save = NULL;

	for (char *t = strtok_r(dup, ",", &save); t != NULL; t = strtok_r(NULL, ",", &save)) {
		enum vecsec_isa isa;

		if (vecsec_isa_parse(t, &isa) != 0) {
			fprintf(stderr, "vecsec-bench: unknown ISA '%s'\n", t);
			exit(1);
		}
		opt.want_isa[isa] = true;
		opt.any_isa = true;
	}
	free(dup);
}

/* --floor: bursts of the cases that have one, and nothing else */
static void
check_floor(void)
{
	bool some = false;

	if (!opt.burst || opt.insns > 0) {
		fprintf(stderr, "vecsec-bench: --floor needs --burst or --burst-only "
			"(and no --insns)\n");
		exit(1);
	}
	for (unsigned int k = 0; k < CASE_COUNT; k++) {
		if (!opt.any_case || !opt.want_case[k])
			continue;
		if (!bench_floor_case(&bench_cases[k])) {
			fprintf(stderr, "vecsec-bench: --floor: %s has no kernel floor (only "
				"--case chacha20-poly1305 and xchacha20-poly1305)\n",
				bench_cases[k].name);
			exit(1);
		}
		some = true;
	}
	if (!some) {
		fprintf(stderr, "vecsec-bench: --floor needs --case chacha20-poly1305 and/or "
			"xchacha20-poly1305\n");
		exit(1);
	}
}

static void
parse_args(int argc, char **argv)
{
	static const struct option lo[] = {
		{"quick", no_argument, NULL, 'q'}, {"case", required_argument, NULL, 'c'},
		{"sizes", required_argument, NULL, 's'}, {"isa", required_argument, NULL, 'i'},
		{"reps", required_argument, NULL, 'r'}, {"burst", no_argument, NULL, 'b'},
		{"burst-only", no_argument, NULL, 'B'}, {"no-peers", no_argument, NULL, 'n'},
		{"two-pass", no_argument, NULL, '2'}, {"lanes", no_argument, NULL, 'L'},
		{"crossover", no_argument, NULL, 'X'}, {"staged", no_argument, NULL, 'S'},
		{"floor", no_argument, NULL, 'K'}, {"novl", no_argument, NULL, 'N'},
		{"mixed", no_argument, NULL, 'M'},
		{"insns", required_argument, NULL, 'I'},
		{"csv", required_argument, NULL, 'C'}, {"png", required_argument, NULL, 'P'},
		{"inject-fault", required_argument, NULL, 'F'}, {"help", no_argument, NULL, 'h'},
		{"ipsecmb-arch", required_argument, NULL, 'A'},
		{"gcrypt-deny", required_argument, NULL, 'G'},
		{"version", no_argument, NULL, 'V'}, {NULL, 0, NULL, 0},
	};
	int ch;

	while ((ch = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (ch) {
		case 'q':
			opt.quick = true;
			break;
		case 'c':
			parse_cases(optarg);
			break;
		case 's':
			parse_sizes(optarg);
			break;
		case 'i':
			parse_isas(optarg);
			break;
		case 'r': {
			char *end;
			unsigned long v = strtoul(optarg, &end, 10);

			if (*end != '\0' || v == 0 || v > MAX_REPS) {
				fprintf(stderr, "vecsec-bench: --reps 1..%d\n", MAX_REPS);
				exit(1);
			}
			opt.reps = (unsigned int)v;
			break;
		}
		case 'I': {
			char *end;
			unsigned long v = strtoul(optarg, &end, 10);

			if (*end != '\0' || v == 0 || v > 1000000) {
				fprintf(stderr, "vecsec-bench: --insns 1..1000000\n");
				exit(1);
			}
			opt.insns = (unsigned int)v;
			break;
		}
		case 'b':
			opt.burst = true;
			break;
		case 'B':
			opt.burst = opt.burst_only = true;
			break;
		case 'n':
			opt.no_peers = true;
			break;
		case '2':
			opt.two_pass = true;
			break;
		case 'L':
			opt.lanes = opt.burst = true;
			break;
		case 'X':
			opt.crossover = opt.burst = true;
			break;
		case 'S':
			opt.staged = opt.burst = true;
			break;
		case 'N':
			opt.novl = true;
			break;
		case 'M':
			opt.mixed = true;
			break;
		case 'K':
			opt.floor = true;
			break;
		case 'C':
			opt.csv = optarg;
			break;
		case 'P':
			opt.png = optarg;
			break;
		case 'F':
			opt.fault = optarg;
			break;
		case 'A':
			bench_ipsecmb_arch = optarg;
			break;
		case 'G':
			bench_gcrypt_deny = optarg;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		case 'V':
			printf("vecsec-bench %s (libvecsec %s)\n", VECSEC_VERSION_STRING,
			       vecsec_version());
			exit(0);
		default:
			usage(stderr);
			exit(1);
		}
	}
	if (optind < argc) {
		fprintf(stderr, "vecsec-bench: unexpected argument '%s'\n", argv[optind]);
		exit(1);
	}
	if (opt.floor)
		check_floor();
}

/* The command line, quoted for a POSIX shell, with VECSEC_ISA if set. */
static void
print_command(int argc, char **argv)
{
	const char *env = getenv("VECSEC_ISA");

	printf("command:  ");
	if (env != NULL)
		printf("VECSEC_ISA=%s ", env);
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];

		if (*a != '\0' && strspn(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				   "0123456789-_=,./:+") == strlen(a)) {
			printf("%s%s", i ? " " : "", a);
			continue;
		}
		printf("%s'", i ? " " : "");
		for (; *a; a++)
			if (*a == '\'')
				printf("'\\''");
			else
				putchar(*a);
		putchar('\'');
	}
	putchar('\n');
}

static void
add_impl(struct bench_impl *im)
{
	if (im == NULL)
		return;
	if (nimpls == MAX_IMPLS)
		die("too many implementations");
	if (!im->init(im)) {
		printf("%-9s %s unusable: %s\n", im->is_vecsec ? "vecsec:" : "peer:", im->name,
		       im->version);
		if (nunusable < MAX_IMPLS)
			unusable[nunusable++] = im;
		return;
	}
	impls[nimpls++] = im;
}

/* --novl: isa with the AVX2 kernels' plain forms (said where there is no VL form) */
static void
add_novl(int isa)
{
	static struct bench_vecsec_knobs nv[VECSEC_ISA_AVX512 + 1];
	static char nvname[VECSEC_ISA_AVX512 + 1][32];

	if (!bench_vecsec_vl_usable()) {
		printf("vecsec:   %s-novl: the CPU lacks AVX-512VL/BW, the plain forms are the column "
		       "vecsec-%s\n", vecsec_isa_name((enum vecsec_isa)isa),
		       vecsec_isa_name((enum vecsec_isa)isa));
		return;
	}
	snprintf(nvname[isa], sizeof(nvname[isa]), "vecsec-%s-novl",
		 vecsec_isa_name((enum vecsec_isa)isa));
	/* at AVX2 single messages too: the level's stitched assembly has a VL form */
	nv[isa] = (struct bench_vecsec_knobs){ .name = nvname[isa],
		.burst_only = isa != VECSEC_ISA_AVX2,
		.chacha_w = -1, .poly_w = -1, .staged = -1, .avx2_plain = true };
	add_impl(bench_vecsec_variant(isa, &nv[isa]));
}

/* --mixed: bursts at isa with the mixed-burst bound off (vecsec_lanes_set_mixed_max(SIZE_MAX)) */
static void
add_nomixed(int isa)
{
	static struct bench_vecsec_knobs nm;
	static char nmname[32];

	snprintf(nmname, sizeof(nmname), "vecsec-%s-nomixed",
		 vecsec_isa_name((enum vecsec_isa)isa));
	nm = (struct bench_vecsec_knobs){ .name = nmname, .burst_only = true, .chacha_w = -1,
		.poly_w = -1, .staged = -1, .no_mixed = true };
	add_impl(bench_vecsec_variant(isa, &nm));
}

/* The burst variants of --lanes, --crossover and --staged, at the top ISA level. */
static void
add_variants(int top)
{
	static const struct bench_vecsec_knobs lanes[] = {
		{ "vecsec-lanes-x16/x8", false, true, 16, 8, false, -1, false, false },
		{ "vecsec-lanes-x16/x4", false, true, 16, 4, false, -1, false, false },
		{ "vecsec-lanes-x8/x4", false, true, 8, 4, false, -1, false, false },
		{ "vecsec-lanes-x4/x4", false, true, 4, 4, false, -1, false, false },
	};
	static const struct bench_vecsec_knobs per_job = {
		"vecsec-per-job", false, true, 0, -1, false, -1, false, false };
	static const struct bench_vecsec_knobs all_lanes = {
		"vecsec-all-lanes", false, true, -1, -1, true, -1, false, false };
	static const struct bench_vecsec_knobs staged[] = {
		{ "vecsec-staged", false, true, -1, -1, false, 1, false, false },
		{ "vecsec-general", false, true, -1, -1, false, 0, false, false },
	};
	if (opt.lanes)
		for (unsigned int i = 0; i < BENCH_ARRAY_SIZE(lanes); i++)
			add_impl(bench_vecsec_variant(top, &lanes[i]));
	if (opt.crossover)
		add_impl(bench_vecsec_variant(top, &all_lanes));
	if (opt.lanes || opt.crossover)
		add_impl(bench_vecsec_variant(top, &per_job));
	if (opt.staged)
		for (unsigned int i = 0; i < BENCH_ARRAY_SIZE(staged); i++)
			add_impl(bench_vecsec_variant(top, &staged[i]));
}

/*
 * --insns N: no timing, no peers, no cross-check (the tests check the
 * kernels): each wanted case at each size N times, seal/encrypt only,
 * through vecsec at one ISA level, or N bursts of BURST_N jobs with --burst.
 * An instruction counter (tools/arm64_insns.py: qemu-aarch64's execution
 * log) divides what each function executed by the bytes printed here; it
 * finds the functions by the runtime address of main() printed first.
 */
int main(int argc, char **argv);

static int
run_insns(void)
{
	static struct bench_msg msgs[BURST_N];
	static void *ctxs[BURST_N];
	static uint8_t *keys[BURST_N], *ins[BURST_N], *outs[BURST_N];
	static uint8_t tags[BURST_N][16], nonces[BURST_N][32], aads[BURST_N][8];
	unsigned int nmsg = opt.burst ? BURST_N : 1;
	struct bench_impl *im;
	int isa = (int)vecsec_isa_cap();
	size_t maxlen = 0;

	if (opt.any_isa)
		for (isa = VECSEC_ISA_AVX512; isa > VECSEC_ISA_SCALAR && !opt.want_isa[isa]; isa--)
			;
	if (!isa_usable(isa))
		die("--insns: the CPU lacks %s", vecsec_isa_name((enum vecsec_isa)isa));
	im = bench_vecsec_impl(isa);
	impls[nimpls++] = im;   /* referenced until exit, as in the timed modes */
	if (!im->init(im))
		die("--insns: %s unusable: %s", im->name, im->version);
	for (unsigned int s = 0; s < opt.nsizes; s++)
		if (mix_name(opt.sizes[s]) == NULL && opt.sizes[s] > maxlen)
			maxlen = opt.sizes[s];
	if (maxlen == 0)
		die("--insns: no size in bytes in --sizes (imix and imix-esp are burst mixes)");
	printf("main %p\n", (void *)main);
	for (unsigned int j = 0; j < nmsg; j++) {
		keys[j] = bench_alloc(2048);
		ins[j] = bench_alloc(maxlen);
		outs[j] = bench_alloc(maxlen);
		bench_fill(keys[j], 2048, 0x6b6579 + j);
		bench_fill(ins[j], maxlen, 0x706c61696e + j);
		bench_fill(nonces[j], 32, 0x6e6f6e6365 + j);
		bench_fill(aads[j], 8, 0x616164 + j);
	}
	for (unsigned int k = 0; k < CASE_COUNT; k++) {
		const struct bench_case *c = &bench_cases[k];

		if (!opt.want_case[k])
			continue;
		for (unsigned int s = 0; s < opt.nsizes; s++) {
			size_t size = opt.sizes[s];
			const char *why = mix_name(size) != NULL ? mix_name(size) :
					  impl_lacks(im, c, size, opt.burst);
			struct work w = { .im = im, .c = c, .op = BENCH_ENC, .in = ins[0],
				.out = outs[0], .tag = tags[0], .len = size, .nonce = nonces[0],
				.aad = aads[0] };
			const char *d;

			if (why == NULL && opt.burst && !c->burst)
				why = "no burst form";
			if (why != NULL) {
				printf("insns: %s %zu: skipped (%s)\n", c->name, size, why);
				continue;
			}
			if (im->select != NULL)
				im->select(im);
			for (unsigned int j = 0; j < nmsg; j++) {
				ctxs[j] = im->ctx_new(im, c, keys[j]);
				if (ctxs[j] == NULL)
					die("%s: cannot set up %s", im->name, c->name);
				msgs[j] = (struct bench_msg){ .ctx = ctxs[j], .in = ins[j],
					.out = outs[j], .tag = tags[j], .len = size,
					.nonce = nonces[j], .aad = aads[j] };
			}
			w.ctx = ctxs[0];
			if (opt.burst) {
				w.msgs = msgs;
				w.n = nmsg;
			}
			for (unsigned int r = 0; r < opt.insns; r++)
				if (work_once(&w) != 0)
					die("%s %s len %zu failed", im->name, c->name, size);
			d = im->detail != NULL ? im->detail(im, c) : NULL;
			printf("insns: %s %zu bytes x %u%s at %s (%s): %zu bytes\n", c->name, size,
			       nmsg, opt.burst ? " (burst)" : "", vecsec_isa_name((enum vecsec_isa)isa),
			       d != NULL ? d : "", size * nmsg * opt.insns);
			for (unsigned int j = 0; j < nmsg; j++)
				im->ctx_free(ctxs[j]);
		}
	}
	for (unsigned int j = 0; j < nmsg; j++) {
		free(keys[j]);
		free(ins[j]);
		free(outs[j]);
	}
	return 0;
}

/*
 * The implementations to measure: vecsec at each level asked for (and its
 * variants), then the peers.
 */
static void
add_impls(void)
{
	int cap, top = -1;

	/* the cap before any impl pins a level (a variant's init does) */
	cap = (int)vecsec_isa_cap();
	for (int isa = VECSEC_ISA_SCALAR; isa <= VECSEC_ISA_AVX512; isa++) {
		if (opt.any_isa && !opt.want_isa[isa])
			continue;
		if (!isa_usable(isa)) {
			if (opt.any_isa)
				printf("vecsec:   %s skipped: the CPU lacks it\n",
				       vecsec_isa_name((enum vecsec_isa)isa));
			continue;
		}
		if (isa > cap && !opt.any_isa)
			continue;       /* VECSEC_ISA caps the default list */
		add_impl(bench_vecsec_impl(isa));
		top = isa;
		if (opt.two_pass) {
			static struct bench_vecsec_knobs tp[VECSEC_ISA_AVX512 + 1];
			static char tpname[VECSEC_ISA_AVX512 + 1][32];

			snprintf(tpname[isa], sizeof(tpname[isa]), "vecsec-%s-2pass",
				 vecsec_isa_name((enum vecsec_isa)isa));
			tp[isa] = (struct bench_vecsec_knobs){ .name = tpname[isa], .twopass = true,
				.chacha_w = -1, .poly_w = -1, .staged = -1 };
			add_impl(bench_vecsec_variant(isa, &tp[isa]));
		}
		if (opt.novl && isa >= VECSEC_ISA_AVX2 && isa <= VECSEC_ISA_AVX512)
			add_novl(isa);
	}
	if (opt.mixed && top >= 0)
		add_nomixed(top);       /* the top level measured: beside its own column */
	add_variants(cap);
	if (!opt.no_peers) {
#ifdef BENCH_HAVE_OPENSSL
		add_impl(bench_peer_openssl());
#endif
#ifdef BENCH_HAVE_SODIUM
		add_impl(bench_peer_sodium());
#endif
#ifdef BENCH_HAVE_GCRYPT
		add_impl(bench_peer_gcrypt());
#endif
#ifdef BENCH_HAVE_IPSECMB
		add_impl(bench_peer_ipsecmb());
#endif
#ifdef BENCH_HAVE_NETTLE
		add_impl(bench_peer_nettle());
#endif
	}
}

/* What is measured, which versions, and how. */
static void
print_measured(void)
{
	printf("measured:");
	for (unsigned int i = 0; i < nimpls; i++)
		printf("%s %s", i ? "," : "", impls[i]->name);
	printf("\nversions:");
	for (unsigned int i = 0, n = 0; i < nimpls; i++) {
		if (impls[i]->is_vecsec && n > 0)
			continue;       /* one libvecsec */
		printf("%s %s", n++ ? ";" : "", impls[i]->version);
	}
	printf("\ntiming:   median of %u samples of >= %.2f ms after %.0f ms warm-up per point,"
	       " the implementations' samples taken in turn;\n"
	       "          out-of-place; outputs cross-checked before timing\n", opt.reps,
	       opt.sample_s * 1e3, opt.warm_s * 1e3);
	if (nimpls == 0)
		die("nothing to measure");

}

/* The CSV and the PNG, when asked for: 0, or 1 if the CSV could not be written. */
static int
write_outputs(const char *model)
{
	char title[256], script[PATH_MAX];
	int rc = 0;

	if (opt.csv != NULL || opt.png != NULL) {
		char tmp[] = "/tmp/vecsec-bench-XXXXXX";
		const char *csv = opt.csv;

		if (csv == NULL) {
			int fd = mkstemp(tmp);

			if (fd < 0)
				die("cannot create a temporary CSV");
			close(fd);
			csv = tmp;
		}
		if (write_csv(csv) != 0)
			rc = 1;
		else if (opt.csv != NULL)
			printf("csv:      %s\n", opt.csv);
		if (rc == 0 && opt.png != NULL) {
			snprintf(title, sizeof(title), "vecsec-bench on %s (%s %.0f MHz)", model,
				 bench_tick_name(), bench_tick_hz() / 1e6);
			if (plot(csv, opt.png, title, script, sizeof(script)) == 0)
				printf("png:      %s (drawn by %s)\n", opt.png, script);
		}
		if (opt.csv == NULL)
			unlink(tmp);
	}
	return rc;
}

int
main(int argc, char **argv)
{
	uint8_t *key, *in, *out, *pt, *tag, *nonce, *aad;
	struct burst_bufs *bb;
	struct ref_out ref, brefs[BURST_MAX];
	size_t maxlen = IMIX_LEN;
	const size_t *bsizes;
	unsigned int nbsizes, nsingle_sizes;
	size_t single_sizes[MAX_SIZES], burst_list[MAX_SIZES];
	char model[128];
	int cpu, rc;

	parse_args(argc, argv);
	setvbuf(stdout, NULL, _IOLBF, 0);
	progress_tty = isatty(STDERR_FILENO);
	if (!opt.any_case)
		for (unsigned int k = 0; k < CASE_COUNT; k++)
			opt.want_case[k] = true;
	if (opt.reps == 0)
		opt.reps = opt.quick ? 7 : 31;
	/*
	 * Short samples, many of them: on a shared machine a preempted sample
	 * is an outlier the median drops, where a long sample would absorb it.
	 */
	opt.sample_s = opt.quick ? 0.0001 : 0.00025;
	opt.warm_s = opt.quick ? 0.002 : 0.01;
	if (opt.nsizes == 0) {
		const size_t *s = opt.quick ? quick_sizes : default_sizes;
		unsigned int n = opt.quick ? BENCH_ARRAY_SIZE(quick_sizes) :
					     BENCH_ARRAY_SIZE(default_sizes);

		memcpy(opt.sizes, s, n * sizeof(*s));
		opt.nsizes = n;
		bsizes = opt.quick ? quick_burst_sizes : burst_sizes;
		nbsizes = opt.quick ? BENCH_ARRAY_SIZE(quick_burst_sizes) :
				      BENCH_ARRAY_SIZE(burst_sizes);
	} else {
		/* a copy: the single-message list below overwrites opt.sizes */
		memcpy(burst_list, opt.sizes, opt.nsizes * sizeof(opt.sizes[0]));
		bsizes = burst_list;
		nbsizes = opt.nsizes;
	}
	/* single-message sizes: the list without 'imix' and 'imix-esp' */
	nsingle_sizes = 0;
	for (unsigned int s = 0; s < opt.nsizes; s++) {
		if (mix_name(opt.sizes[s]) != NULL)
			continue;
		single_sizes[nsingle_sizes++] = opt.sizes[s];
		if (opt.sizes[s] > maxlen)
			maxlen = opt.sizes[s];
	}
	memcpy(opt.sizes, single_sizes, nsingle_sizes * sizeof(single_sizes[0]));
	opt.nsizes = nsingle_sizes;
	if (opt.insns > 0)
		return run_insns();

	cpu = bench_pin_cpu();
	bench_cpu_model(model, sizeof(model));
	printf("vecsec-bench %s\n", vecsec_version());
	print_command(argc, argv);
	printf("cpu:      %s", model);
	if (cpu >= 0)
		printf(" (pinned to cpu %d)\n", cpu);
	else
		printf(" (not pinned)\n");
	printf("%-9s %.2f MHz (calibrated against CLOCK_MONOTONIC_RAW over 50 ms)\n",
	       strcmp(bench_tick_name(), "TSC") == 0 ? "TSC:" : "ticks:",
	       bench_calibrate(50) / 1e6);
	printf("ISA cap:  %s (CPU max %s)\n", vecsec_isa_name(vecsec_isa_cap()),
	       vecsec_isa_name(vecsec_cpu_max_isa()));

	add_impls();
	print_measured();

	key = bench_alloc(2048);
	in = bench_alloc(maxlen);
	out = bench_alloc(maxlen);
	pt = bench_alloc(maxlen);
	tag = bench_alloc(64);
	nonce = bench_alloc(64);
	aad = bench_alloc(64);
	ref.out = bench_alloc(maxlen);
	ref.tag = bench_alloc(64);
	bb = bench_alloc(sizeof(*bb));
	/* jobs past the first burst: imix-esp's (at most IMIX_LEN bytes) */
	for (unsigned int j = 0; j < BURST_MAX; j++) {
		size_t blen = !opt.burst ? 64 : j < BURST_N ? maxlen : IMIX_LEN;

		bb->key[j] = bench_alloc(2048);
		bb->in[j] = bench_alloc(blen);
		bb->ct[j] = bench_alloc(blen);
		bb->pt[j] = bench_alloc(blen);
		brefs[j].out = bench_alloc(blen);
		brefs[j].tag = bench_alloc(64);
	}

	points_total = 0;
	for (unsigned int k = 0; k < CASE_COUNT; k++) {
		if (!opt.want_case[k])
			continue;
		if (!opt.burst_only)
			points_total += opt.nsizes * nimpls *
					(bench_cases[k].kind == BENCH_AEAD ? 2 : 1);
		if (opt.burst && bench_cases[k].burst)
			points_total += nbsizes * nimpls * 2;
	}
	for (unsigned int k = 0; k < CASE_COUNT && !opt.burst_only; k++) {
		if (!opt.want_case[k])
			continue;
		for (unsigned int s = 0; s < opt.nsizes; s++)
			run_single(&bench_cases[k], opt.sizes[s], key, in, out, pt, tag, nonce,
				   aad, &ref);
	}
	for (unsigned int k = 0; k < CASE_COUNT && opt.burst; k++) {
		if (!opt.want_case[k] || !bench_cases[k].burst)
			continue;
		for (unsigned int s = 0; s < nbsizes; s++)
			run_burst_case(&bench_cases[k], bsizes[s], bb, brefs);
	}
	if (progress_tty)
		fprintf(stderr, "\r\033[K");
	print_tables();

	rc = write_outputs(model);
	for (unsigned int j = 0; j < BURST_MAX; j++) {
		free(bb->key[j]);
		free(bb->in[j]);
		free(bb->ct[j]);
		free(bb->pt[j]);
		free(brefs[j].out);
		free(brefs[j].tag);
	}
	free(bb);
	free(ref.out);
	free(ref.tag);
	free(aad);
	free(nonce);
	free(tag);
	free(pt);
	free(out);
	free(in);
	free(key);
	free(results);
	return rc;
}
