/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Measures the lanes engine (not a test: never run by meson test). Bursts
 * of 32 ChaCha20-Poly1305 seal jobs, 32 keys, 8-byte AAD, out of place, at
 * 64, 256, 1420 bytes and IMIX (7x64 : 4x576 : 1x1500): TSC cycles per
 * message and messages/s for every lane width this CPU has, the per-job
 * loop (lanes off) and Intel ipsec-mb's job API (submit all, flush) in the
 * same run; medians of many samples. With --crossover it compares lanes
 * and the single-message path at 512 B .. 16 KiB (the crossover numbers
 * in lib/chachapoly/chachapoly_burst.c come from this). A last argument
 * --open times open (verify, then decrypt) of what seal gave instead;
 * --xchacha runs XChaCha20-Poly1305 (ipsec-mb has none).
 *
 * The machine is noisy: run it several times and take the median of each
 * cell (the commit that added this note lists such medians).
 *
 * Built by meson (test/perf/meson.build) when ipsec-mb is installed:
 *   build/test/perf/lanes_perf [--open] [--xchacha] | --crossover | --staged
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <x86intrin.h>

#include <intel-ipsec-mb.h>

#include "vecsec/vecsec_aead.h"
#include "chachapoly/chachapoly_knobs.h"

#define NJOBS 32
#define SAMPLES 31
#define MAXLEN 16384

static struct vecsec_aead_key keys[NJOBS];
static uint8_t rawkey[NJOBS][32], nonce[NJOBS][24], aad[NJOBS][8], tag[NJOBS][16];
static uint8_t *in[NJOBS], *out[NJOBS], *out2[NJOBS], calc[NJOBS][16];
static bool open_mode;          /* --open: verify and decrypt what seal gave */
static bool xchacha;            /* --xchacha: XChaCha20-Poly1305 (no ipsec-mb peer) */
static size_t lens[NJOBS];
static struct vecsec_aead_job jobs[NJOBS], *jp[NJOBS];
static IMB_MGR *mgr;

static void
set_sizes(size_t size)
{
	/* IMIX: 7x64, 4x576, 1x1500 repeated */
	static const size_t imix[12] = { 64, 576, 64, 64, 1500, 64, 576, 64, 64, 576, 64, 576 };

	for (int i = 0; i < NJOBS; i++) {
		lens[i] = size == 0 ? imix[i % 12] : size;
		jobs[i] = (struct vecsec_aead_job){
			.key = &keys[i], .dir = VECSEC_AEAD_SEAL, .nonce = nonce[i],
			.nonce_len = xchacha ? 24 : 12, .aad = aad[i], .aad_len = 8, .len = lens[i],
			.in = in[i], .out = out[i], .tag = tag[i], .tag_len = 16,
		};
		jp[i] = &jobs[i];
	}
	if (!open_mode)
		return;
	vecsec_lanes_force(-1, -1);
	vecsec_aead_burst(jp, NJOBS);
	for (int i = 0; i < NJOBS; i++) {
		jobs[i].dir = VECSEC_AEAD_OPEN;
		jobs[i].in = out[i];
		jobs[i].out = out2[i];
	}
}

/* what --open leaves in out2[] must be the plaintext */
static void
check_open(void)
{
	for (int i = 0; i < NJOBS; i++)
		if (jobs[i].status != VECSEC_JOB_OK || memcmp(out2[i], in[i], lens[i]) != 0) {
			fprintf(stderr, "open job %d failed\n", i);
			exit(1);
		}
}

static void
run_vecsec(void)
{
	vecsec_aead_burst(jp, NJOBS);
}

static void
run_ipsecmb(void)
{
	IMB_JOB *job;

	for (int i = 0; i < NJOBS; i++) {
		job = IMB_GET_NEXT_JOB(mgr);
		job->src = open_mode ? out[i] : in[i];
		job->dst = open_mode ? out2[i] : out[i];
		job->cipher_start_src_offset_in_bytes = 0;
		job->hash_start_src_offset_in_bytes = 0;
		job->msg_len_to_cipher_in_bytes = lens[i];
		job->msg_len_to_hash_in_bytes = lens[i];
		job->enc_keys = rawkey[i];
		job->dec_keys = rawkey[i];
		job->key_len_in_bytes = 32;
		job->iv = nonce[i];
		job->iv_len_in_bytes = 12;
		/* open: ipsec-mb computes the tag, the caller compares (below) */
		job->auth_tag_output = open_mode ? calc[i] : tag[i];
		job->auth_tag_output_len_in_bytes = 16;
		job->cipher_direction = open_mode ? IMB_DIR_DECRYPT : IMB_DIR_ENCRYPT;
		job->chain_order = open_mode ? IMB_ORDER_HASH_CIPHER : IMB_ORDER_CIPHER_HASH;
		job->cipher_mode = IMB_CIPHER_CHACHA20_POLY1305;
		job->hash_alg = IMB_AUTH_CHACHA20_POLY1305;
		job->u.CHACHA20_POLY1305.aad = aad[i];
		job->u.CHACHA20_POLY1305.aad_len_in_bytes = 8;
		job = IMB_SUBMIT_JOB(mgr);
		while (job != NULL)
			job = IMB_GET_COMPLETED_JOB(mgr);
	}
	while (IMB_FLUSH_JOB(mgr) != NULL)
		;
	if (open_mode)
		for (int i = 0; i < NJOBS; i++)
			if (!vecsec_ct_eq(calc[i], tag[i], 16))
				exit(1);
}

static int
cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* TSC cycles per message of one sample (~0.4 M cycles), after a warm-up */
static double
sample(void (*fn)(void))
{
	uint64_t t;
	int reps;

	fn();
	t = __rdtsc();
	fn();
	t = __rdtsc() - t;
	reps = (int)(400000 / (t + 1)) + 1;
	t = __rdtsc();
	for (int r = 0; r < reps; r++)
		fn();
	return (double)(__rdtsc() - t) / reps / NJOBS;
}

/* median TSC cycles per message */
static double
measure(void (*fn)(void))
{
	double s[SAMPLES];
	uint64_t t;
	int reps;

	t = __rdtsc();
	fn();
	t = __rdtsc() - t;
	reps = (int)(400000 / (t + 1)) + 1;    /* ~0.4 M cycles per sample */
	for (int i = 0; i < 3; i++)
		fn();
	for (int k = 0; k < SAMPLES; k++) {
		t = __rdtsc();
		for (int r = 0; r < reps; r++)
			fn();
		s[k] = (double)(__rdtsc() - t) / reps / NJOBS;
	}
	qsort(s, SAMPLES, sizeof(s[0]), cmp_d);
	return s[SAMPLES / 2];
}

static double
tsc_hz(void)
{
	struct timespec a, b;
	uint64_t t0, t1;

	clock_gettime(CLOCK_MONOTONIC, &a);
	t0 = __rdtsc();
	do
		clock_gettime(CLOCK_MONOTONIC, &b);
	while ((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec) < 100000000L);
	t1 = __rdtsc();
	return (double)(t1 - t0) /
	       ((double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) * 1e-9);
}

struct mode {
	const char *name;
	int cw, pw;             /* lanes widths to force; -2: ipsec-mb */
};

int
main(int argc, char **argv)
{
	static const struct mode modes[] = {
		{ "lanes x16/x8", 16, 8 }, { "lanes x16/x4", 16, 4 }, { "lanes x8/x4", 8, 4 },
		{ "lanes x4/x4", 4, 4 }, { "lanes auto", -1, -1 }, { "per-job", 0, -1 },
		{ "ipsec-mb", -2, 0 },
	};
	static const size_t sizes[] = { 64, 256, 1420, 0 };
	bool cross = argc > 1 && strcmp(argv[1], "--crossover") == 0;

	for (int a = 1; a < argc; a++) {
		open_mode |= strcmp(argv[a], "--open") == 0;
		xchacha |= strcmp(argv[a], "--xchacha") == 0;
	}
	IMB_ARCH arch;
	double hz = tsc_hz();

	mgr = alloc_mb_mgr(0);
	init_mb_mgr_auto(mgr, &arch);
	for (int i = 0; i < NJOBS; i++) {
		for (int k = 0; k < 32; k++)
			rawkey[i][k] = (uint8_t)(i * 31 + k * 7);
		memset(nonce[i], i, sizeof(nonce[i]));
		memset(aad[i], 0xa0 + i, 8);
		vecsec_aead_key_init(&keys[i], xchacha ? VECSEC_AEAD_XCHACHA20_POLY1305 :
				     VECSEC_AEAD_CHACHA20_POLY1305, rawkey[i], 32);
		in[i] = aligned_alloc(64, MAXLEN);
		out[i] = aligned_alloc(64, MAXLEN);
		out2[i] = aligned_alloc(64, MAXLEN);
		memset(in[i], i, MAXLEN);
	}
	printf("TSC %.2f GHz, ipsec-mb %s arch %d, %d jobs per burst, %s%s, medians of %d\n",
	       hz / 1e9, imb_get_version_str(), (int)arch, NJOBS, xchacha ? "xchacha " : "",
	       open_mode ? "open" : "seal", SAMPLES);
	if (argc > 2 && strcmp(argv[1], "--profile") == 0) {
		/* lanes auto at one size, for perf record */
		set_sizes((size_t)atol(argv[2]));
		for (long i = 0; i < 200000; i++)
			run_vecsec();
		return 0;
	}
	if (argc > 1 && strcmp(argv[1], "--staged") == 0) {
		/* the staged path against the general passes, size by size */
		size_t def = vecsec_lanes_staged_max();

		printf("%8s %14s %14s\n", "bytes", "staged", "general");
		for (size_t sz = 64; sz <= 2048; sz += sz < 512 ? 64 : 256) {
			double a, b;

			set_sizes(sz);
			vecsec_lanes_set_staged_max(SIZE_MAX);
			a = measure(run_vecsec);
			vecsec_lanes_set_staged_max(0);
			b = measure(run_vecsec);
			printf("%8zu %14.0f %14.0f\n", sz, a, b);
		}
		set_sizes(0);
		vecsec_lanes_set_staged_max(SIZE_MAX);
		printf("%8s %14.0f", "imix", measure(run_vecsec));
		vecsec_lanes_set_staged_max(0);
		printf(" %14.0f\n", measure(run_vecsec));
		vecsec_lanes_set_staged_max(def);
		return 0;
	}
	if (cross) {
		vecsec_lanes_set_crossover(SIZE_MAX);
		printf("%8s %14s %14s %14s\n", "bytes", "lanes cyc/msg", "single cyc/msg",
		       "ipsec-mb");
		for (size_t sz = 512; sz <= MAXLEN; sz *= 2) {
			for (size_t s2 = sz; s2 < 2 * sz && s2 <= MAXLEN; s2 += sz / 2) {
				double a, b, c;

				set_sizes(s2);
				vecsec_lanes_force(-1, -1);
				a = measure(run_vecsec);
				vecsec_lanes_force(0, -1);
				b = measure(run_vecsec);
				c = measure(run_ipsecmb);
				printf("%8zu %14.0f %14.0f %14.0f\n", s2, a, b, c);
			}
		}
		return 0;
	}
	/*
	 * Modes take turns sample by sample (round robin), so a change of load
	 * on a shared machine hits all of them alike; then the medians.
	 */
	{
		enum { NM = sizeof(modes) / sizeof(modes[0]) };
		static double cyc[NM][4], smp[NM][SAMPLES];
		char w[NM][64];
		bool on[NM];

		for (size_t m = 0; m < NM; m++) {
			struct lanes_choice c;

			on[m] = modes[m].cw == -2 ? !xchacha :
				vecsec_lanes_force(modes[m].cw, modes[m].pw) == 0;
			if (modes[m].cw == -2) {
				snprintf(w[m], sizeof(w[m]), "job API");
			} else if (on[m]) {
				vecsec_lanes_choose(NJOBS, &c);
				snprintf(w[m], sizeof(w[m]), "%s/%s", c.chacha_name, c.poly_name);
			}
		}
		for (size_t sz = 0; sz < 4; sz++) {
			set_sizes(sizes[sz]);
			for (int k = 0; k < SAMPLES; k++) {
				for (size_t m = 0; m < NM; m++) {
					if (!on[m])
						continue;
					if (modes[m].cw != -2)
						vecsec_lanes_force(modes[m].cw, modes[m].pw);
					smp[m][k] = sample(modes[m].cw == -2 ? run_ipsecmb :
							   run_vecsec);
					if (open_mode && modes[m].cw != -2)
						check_open();
				}
			}
			for (size_t m = 0; m < NM; m++) {
				qsort(smp[m], SAMPLES, sizeof(smp[m][0]), cmp_d);
				cyc[m][sz] = smp[m][SAMPLES / 2];
			}
		}
		printf("%-14s %-26s", "mode", "widths");
		for (size_t sz = 0; sz < 4; sz++)
			printf(" %9zu%s", sizes[sz], sizes[sz] ? "B" : "IMIX");
		printf("   (cycles/msg | Mmsg/s | x ipsec-mb msgs/s)\n");
		for (size_t m = 0; m < NM; m++) {
			if (!on[m])
				continue;
			printf("%-14s %-26s", modes[m].name, w[m]);
			for (size_t sz = 0; sz < 4; sz++)
				printf(" %10.0f", cyc[m][sz]);
			printf("  |");
			for (size_t sz = 0; sz < 4; sz++)
				printf(" %6.2f", hz / cyc[m][sz] / 1e6);
			if (on[NM - 1]) {
				printf("  |");
				for (size_t sz = 0; sz < 4; sz++)
					printf(" %5.2f", cyc[NM - 1][sz] / cyc[m][sz]);
			}
			printf("\n");
		}
	}
	return 0;
}
