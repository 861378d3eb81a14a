/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * CPU feature detection, once: CPUID for what the CPU has, XGETBV for what
 * the OS saves (AVX needs XCR0 bits 1-2, AVX-512 bits 1-2 and 5-7: opmask,
 * ZMM0-15 upper halves, ZMM16-31). aarch64: HWCAP from the auxiliary vector.
 */
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "cpu_internal.h"

#if defined(__x86_64__)
#include <cpuid.h>

static uint64_t
xgetbv0(void)
{
	uint32_t lo, hi;

	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	return ((uint64_t)hi << 32) | lo;
}

static uint64_t
detect(void)
{
	unsigned int a, b, c, d, max;
	uint64_t f = 0, xcr0 = 0;

	max = __get_cpuid_max(0, NULL);
	if (max < 1)
		return 0;
	__cpuid(1, a, b, c, d);
	if (c & bit_SSSE3)
		f |= VECSEC_CPU_SSSE3;
	if (c & bit_SSE4_1)
		f |= VECSEC_CPU_SSE41;
	if (c & bit_AES)
		f |= VECSEC_CPU_AESNI;
	if (c & bit_PCLMUL)
		f |= VECSEC_CPU_PCLMUL;
	bool osxsave = (c & bit_OSXSAVE) != 0;
	if (osxsave)
		xcr0 = xgetbv0();
	bool os_avx = osxsave && (xcr0 & 0x6) == 0x6;
	bool os_avx512 = osxsave && (xcr0 & 0xe6) == 0xe6;
	if (os_avx && (c & bit_AVX))
		f |= VECSEC_CPU_AVX;
	if (max >= 7) {
		__cpuid_count(7, 0, a, b, c, d);
		if (b & bit_BMI2)
			f |= VECSEC_CPU_BMI2;
		if (b & bit_ADX)
			f |= VECSEC_CPU_ADX;
		if (b & bit_SHA)
			f |= VECSEC_CPU_SHA;
		if (c & bit_GFNI)
			f |= VECSEC_CPU_GFNI;
		if (os_avx && (b & bit_AVX2))
			f |= VECSEC_CPU_AVX2;
		if (os_avx && (c & bit_VAES))
			f |= VECSEC_CPU_VAES;
		if (os_avx && (c & bit_VPCLMULQDQ))
			f |= VECSEC_CPU_VPCLMULQDQ;
		if (os_avx512 && (b & bit_AVX512F)) {
			f |= VECSEC_CPU_AVX512F;
			if (b & bit_AVX512VL)
				f |= VECSEC_CPU_AVX512VL;
			if (b & bit_AVX512BW)
				f |= VECSEC_CPU_AVX512BW;
			if (b & bit_AVX512IFMA)
				f |= VECSEC_CPU_AVX512IFMA;
			if (c & bit_AVX512VBMI)
				f |= VECSEC_CPU_AVX512VBMI;
		}
	}
	/* GFNI/VAES in VEX or EVEX form need the AVX state as well. */
	return f;
}

uint64_t
vecsec_isa_features(enum vecsec_isa isa)
{
	switch (isa) {
	case VECSEC_ISA_SCALAR:
		return 0;
	case VECSEC_ISA_SSSE3:
		return VECSEC_CPU_SSSE3;
	case VECSEC_ISA_AVX2:
		return VECSEC_CPU_SSSE3 | VECSEC_CPU_AVX | VECSEC_CPU_AVX2 | VECSEC_CPU_BMI2;
	case VECSEC_ISA_AVX512:
		return vecsec_isa_features(VECSEC_ISA_AVX2) | VECSEC_CPU_AVX512F |
		       VECSEC_CPU_AVX512VL | VECSEC_CPU_AVX512BW;
	default:
		return UINT64_MAX;
	}
}

#elif defined(__aarch64__)
#include <sys/auxv.h>

#ifndef HWCAP_ASIMD
#define HWCAP_ASIMD (1 << 1)
#endif
#ifndef HWCAP_AES
#define HWCAP_AES (1 << 3)
#endif
#ifndef HWCAP_PMULL
#define HWCAP_PMULL (1 << 4)
#endif

static uint64_t
detect(void)
{
	unsigned long hw = getauxval(AT_HWCAP);
	uint64_t f = 0;

	if (hw & HWCAP_ASIMD)
		f |= VECSEC_CPU_NEON;
	if (hw & HWCAP_AES)
		f |= VECSEC_CPU_ARM_AES;
	if (hw & HWCAP_PMULL)
		f |= VECSEC_CPU_ARM_PMULL;
	return f;
}

uint64_t
vecsec_isa_features(enum vecsec_isa isa)
{
	switch (isa) {
	case VECSEC_ISA_SCALAR:
		return 0;
	case VECSEC_ISA_NEON:
		return VECSEC_CPU_NEON;
	default:
		return UINT64_MAX;
	}
}

#else
static uint64_t
detect(void)
{
	return 0;
}

uint64_t
vecsec_isa_features(enum vecsec_isa isa)
{
	return isa == VECSEC_ISA_SCALAR ? 0 : UINT64_MAX;
}
#endif

/*
 * The tuning entries (cpu_internal.h). The default: a Sapphire
 * Rapids-class Xeon's values (and an earlier Xeon's before it).
 */
static const struct vecsec_tune tune_default = {
	.cpu = "Sapphire Rapids-class Xeon",
	/* 15 blocks: one 16-block ChaCha20 pass with the one-time key */
	.chachapoly_short_max = 960,
	/* TSC cycles per seal: 320 B 694 scalar, 720 IFMA; 384 B 741 scalar, 707 IFMA */
	.chachapoly_short_ifma_blocks = 24,
	/* 512 B 840 with the 16-block form against 855 in three sets of rows, 704 B 873 / 894 */
	.chachapoly_short_rows_blocks = 7,
	/* one-shot MAC: 384 B ~290 radix 2^64, ~325 IFMA; 448 B ~336 / ~345; 512 B ~384 / ~343 */
	.poly1305_ifma_min_len = 448,
	.lanes_crossover_x16 = 4096,
	.lanes_crossover_ssse3 = 384,
	.lanes_mixed_max = SIZE_MAX,
	.chacha_x16_pairs = false,
};

#if defined(__x86_64__)
/*
 * AMD Zen 5 (family 1Ah; AVX-512 on 512-bit units): the short path to the
 * kernel's bound, 3520 bytes (TSC cycles per seal, short path / the
 * 1 KiB stitched steps: 1024 B 778 / 1066, 1420 B 873 / 1228, 2048 B
 * 1206 / 1447, 2752 B 1541 / 1729, 2816 B 1201 / 1724, 3072 B 1332 /
 * 1689, 3520 B 1480 / 1779); SSSE3's lanes only up to 64 bytes
 * (bursts of 32, lanes / single messages: 64 B 392 / 492, 128 B 625 /
 * 587, 192 B 787 / 622, 384 B 1185 / 1013). The AVX-512 ChaCha lanes two
 * blocks a step (bursts of 32 seals, one block / two a step: 64 B 137 /
 * 131, 576 B 419 / 391, 1420 B 838 / 726), and with them 16 lanes up to
 * 8 KiB (bursts of 32 seals, lanes / single messages, two runs: 2752 B
 * 1222 / 1233, 3520 B 1536-1540 / 1547-1549, 4096 B 1762-1778 /
 * 2123-2152, 6144 B 2410-2588 / 2706-2901, 8192 B 3218-3407 /
 * 3432-3651, 10240 B 3997-4204 / 4156-4395, 12288 B 4886-5206 /
 * 4986-5257, 16384 B 6713-6829 / 6751-6759). The IFMA Poly1305
 * later than on the Xeon: one-shot MACs from 768 B (vecsec-bench --case
 * poly1305, TSC cycles per byte, radix 2^64 / IFMA, three runs: 448 B
 * 0.61-0.70 / 0.94-0.98, 640 B 0.61-0.71 / 0.62-0.79, 704 B 0.63-0.71 /
 * 0.62-0.67, 768 B 0.61-0.67 / 0.55-0.60), and in the short path from 32
 * data blocks (TSC cycles per seal, scalar / IFMA: 384 B 646-661 /
 * 708-720, 512 B 745-753 / 745-762, 640 B 812-841 / 761-782), from 28
 * since the radix 2^64 MAC below it is one assembly call (41 rounds
 * alternating the bound in one process, scalar / IFMA, quiet vCPU: 384 B
 * 562 / 560, 416 B 575 / 572, 448 B 591 / 570, 480 B 609 / 570; opens
 * 448 B 606 / 579; beside a busy SMT sibling: 384 B 589 / 628, 416 B
 * 607 / 627, 448 B 626 / 629, 464 B 631 / 622: so 28, not 24 or 26).
 * Sets of rows to 7 data blocks, the 16-block form past them, as on the
 * Xeon (in one process, seal, bound 11 / 7: 512 B 567 / 554, 576 B 583 /
 * 569, 640 B 583 / 567, 704 B 592 / 577; vecsec-bench alternating
 * builds: level).
 *
 * Bursts (vecsec-bench --burst-only, 32 jobs under 32 keys, TSC cycles
 * per job, medians of six runs over both vCPUs, the entry before / this
 * one). At the AVX2 level the VL forms' lanes win to 8 KiB
 * (lanes_crossover_x8vl; --crossover, per-job / all-lanes, seal: 2048 B
 * 1955-1960 / 1538-1545, 4096 B 3198-3377 / 2854-2865, 6144 B 4478-4581
 * / 4203-4353, 8192 B 5627-6260 / 5428-5898, 12288 B 7991-9099 /
 * 8319-9115), and the 8-lane fused kernel takes jobs to 1 KiB
 * (fused_x8_max; 1536 ran 1420 B in 1101-1105 against 1202-1247 but put
 * IMIX's 1500-byte jobs in the fused groups: IMIX 492-493 against
 * 460-473, imix-esp 538-543 against 473-514). Seal: 576 B 596-625 / 503-529,
 * 1420 B 1388-1443 / 1171-1210, 2048 B 1976-2054 / 1551-1618, IMIX
 * 490-511 / 463-473. At the AVX-512 level the Zen 4's pair of rules:
 * jobs to 640 B in the 16-lane fused groups (fused_x16_max) and the few
 * longer jobs of a mixed burst on the single path (lanes_mixed_max):
 * seal 576 B 355-356 / 319-337, 640 B 379-395 / 361-373, IMIX 337-344 /
 * 305-306, imix-esp 357-390 / 323-328; 64-512 B and 1420-4096 B level.
 * At the AVX2 level the mixed bound lost IMIX (seal 481-493 against
 * 460-473, open 509-519 against 476-478), so there it is none
 * (lanes_mixed_max_x8).
 */
static const struct vecsec_tune tune_zen5 = {
	.cpu = "AMD EPYC Zen 5 (family 1Ah)",
	.chachapoly_short_max = 3520,
	.chachapoly_short_ifma_blocks = 28,
	.chachapoly_short_rows_blocks = 7,
	.poly1305_ifma_min_len = 768,
	.lanes_crossover_x16 = 8192,
	.lanes_crossover_ssse3 = 64,
	.lanes_crossover_x8vl = 8192,
	.lanes_mixed_max = 640,
	.lanes_mixed_max_x8 = SIZE_MAX,
	.chacha_x16_pairs = true,
	.fused_x16_max = 640,
	.fused_x8_max = 1024,
};

/*
 * AMD Zen 4 (family 19h; AVX-512 on 256-bit units, each 512-bit operation
 * two passes), measured on an EPYC of model 11h: TSC cycles, 10th
 * percentile of 31 to 61 rounds alternating the settings in one process,
 * 2 shared cores at load 5 to 6. The short path to the kernel's bound
 * (seal, the Xeon's 960 / the kernel's 3520: 1024 B 1409-1420 /
 * 1245-1252, 1420 B 1759-1761 / 1494-1508, 2048 B 2115-2135 / 1992-2000,
 * 2816 B 2888-2897 / 2517-2552, 3520 B 3127-3179 / 2925-2990; open 1024 B
 * 1458 / 1211, 1420 B 1770 / 1449), and since the kernel takes up to
 * 4800 B its whole range (3520 bound / 4800, medians of 21 rounds: seal
 * 3584 B 2915 / 2755, 4096 B 3185 / 2965, 4608 B 3603 / 3400, 4800 B
 * 3603 / 3421); inside it the ChaCha20 of up to 11 data blocks as sets of
 * rows (with a 2-block set in ymm), not the 16-block form (seal, 16-block
 * form / rows, three runs: 512 B 817-818 / 769-775, 576 B 842-848 /
 * 781-787, 704 B 858-863 / 831-850); IFMA Poly1305 from 32 data
 * blocks since the IFMA kernel wipes and carries less (44 before; with the
 * new kernel, vecsec-bench --case chacha20-poly1305 --isa avx512, 12 runs
 * alternating builds with 44 and 32, medians, seal 44 / 32: 384 B 800 /
 * 793, 448 B 838 / 832, 512 B 981 / 908, 576 B 1020 / 927, 640 B 1086 /
 * 956, 704 B 989 / 1015; open 512 B 1009 / 943, 640 B 1109 / 978, 704 B
 * 1058 / 991; 24 blocks lost 2 % at 384 B in a pinned A/B), and the
 * one-shot MAC from 768 B (radix 2^64 / IFMA, three runs: 448 B 339-342 /
 * 499-505, 640 B 481-493 / 518-520, 704 B 520-574 / 537-698, 768 B
 * 563-608 / 534-646, 1024 B 755-761 / 573-584). The SSSE3 lanes lose at
 * every length (bursts of 32, lanes / single messages: seal 64 B 599-632
 * / 498-524, 128 B 870-894 / 688-706, 256 B 1382-1411 / 1094-1126; open
 * 64 B 609-783 / 508-597; IMIX seal 1163-1183 / 1085-1093, open 1081-1112
 * / 1002-1033): none. The AVX-512 ChaCha lanes two blocks a step since
 * their rounds loops keep the state in its registers (before that, one:
 * seal, one / two: 576 B 619 / 623, 1420 B 1326 / 1353; open 1420 B
 * 1415 / 1449); after it, vecsec-bench --case chacha20-poly1305 --isa
 * avx512 --burst-only --floor, 12 runs alternating builds with one / two,
 * medians, load 1.3 to 1.7: the floor's ChaCha, seal 1420 B 837 / 807,
 * 256 B 178 / 169, 64 B 71.2 / 68.1, IMIX 241 / 231; the bursts, seal
 * 64 B 197 / 192, 256 B 361 / 351, 1420 B 1277 / 1284 (least of 12: 1249
 * / 1228), IMIX 577 / 578 (561 / 544); with the steps started from the
 * first column round (chacha_lanes_avx512.c), 10 runs, load 1.5 to 1.7,
 * the floor still a little lower with two (seal 1420 B 769 / 768, 256 B
 * 167 / 162, 64 B 66.0 / 64.7, IMIX 226 / 224) and the bursts the same
 * within 1 % (seal 64 B 187 / 186, 256 B 336 / 337, 1420 B 1212 / 1215,
 * IMIX 552 / 558). And 16 lanes to 5120 B (x16
 * crossover 4096 / 5120, three runs: seal 4608 B 3816-3943 / 3592-3799,
 * 5120 B 4062-4214 / 3998-4202; open 4608 B 4017-4594 / 3706-4478;
 * lanes / single at 6144 B: seal 5087-5132 / 4989-5072, open 5078-5156 /
 * 5136-5215), then to 4800 B once the stitched steps ran Poly1305 on the
 * integer units (chachapoly_int_blocks below; vecsec-bench --burst-only
 * --crossover, lanes / single, medians of three runs: seal 4608 B 3225 /
 * 3263, 4800 B 3343 / 3308, 4864 B 3393 / 3302, 5120 B 3564 / 3468; open
 * 4608 B 3236 / 3351, 4864 B 3406 / 3413, 4992 B 3496 / 3450: a
 * compromise, seals single from 4800, opens from 4992).
 * Single messages: with chachapoly_int_blocks 40 (40 of each 1 KiB
 * step's 64 Poly1305 blocks on the integer units beside the ChaCha20
 * rounds, the IFMA kernel the rest; chachapoly_avx512ifma.c) the stitched
 * steps beat the short path from 4096 B, whole KiB with no tail (TSC
 * cycles, short / stitched, medians of 41 rounds alternating in one
 * process, seal, open: 4096 B 3105 / 3001, 3087 / 3060; 4608 B 3500 /
 * 3347, 3497 / 3408; 4800 B 3550 / 3400, 3555 / 3499); below, a tail of
 * 961-1023 B takes the lone key block and the opens lose (4064 B 3143 /
 * 3146, 3152 / 3268; 4095 B 3159 / 3153, 3166 / 3282; 3840 B 2957 /
 * 2870, 2961 / 2991), so the short path stops at 4095; 32, 40 and 48
 * blocks a step (8 KiB seal, open: 5287 / 5283 / 5437, 5369 / 5382 /
 * 5532; 16 KiB 9934 / 9904 / 10376, 9960 / 9919 / 10337; 0, the IFMA
 * pairs alone: 5734, 5722 and 10800, 10760). Then 24, not 40: the
 * chain shares the core's integer units with whatever runs on its SMT
 * sibling, and with a busy one (seen here on one vCPU or the other for
 * minutes at a time) the chain became the bound and 40 lost to the IFMA
 * pairs alone. Medians of 31 rounds alternating q in one process, seal,
 * q = 0 / 16 / 20 / 24 / 32 / 40, busy sibling: 8 KiB 6188 / 5746 / 5694
 * / 5876 / 6162 / 6682, 16 KiB 11934 / 10894 / 11050 / 11206 / 11856 /
 * 12922 (another run: 16 KiB 12376 / 11440 / - / 12038 / 13104 /
 * 14144); quiet: 8 KiB 5668 / 5252 / 5200 / 5122 / 5044 / 5044, 16 KiB
 * 10660 / 9802 / 9724 / 9542 / 9386 / 9360. 24 keeps within 2 % of the
 * best when quiet and ahead of 0 when busy; the steps still tie with the
 * short path at 4096-4800 B (quiet, seal / open, short / q 24: 4096 B
 * 3042 / 3016, 3042 / 3094; 4800 B 3432 / 3328, 3432 / 3458).
 * In mixed bursts the few jobs past 640 B take the single path, at 16
 * and 8 lanes (a library harness: bursts of 32 in place in mbuf-sized
 * slots, a gateway's IMIX as ESP payloads of 52, 564 and 1448
 * bytes in link order, 19 compositions, 10th percentile of 21 rounds
 * alternating the settings; seal + open per message summed over the 19,
 * AVX-512 / AVX2: bound off 20429 / 24130, 640 18420 / 22231; with the
 * long jobs 768 B, the bound at 512 / 700 / 1000 and off: 19143 / 17513 /
 * 17758 / 17881; 1024 B: 19724 / 18200 / 18186 / 19346; 2048 B: 21842 /
 * 20145 / 20127 / 23849, so past the 564-byte jobs and below 768).
 */
/*
 * Small bursts (lanes_few_x16 / lanes_few_x8): bursts of n equal seals in
 * place on model 11h, one by one against 8 byte-exact lanes, TSC cycles
 * per message: AVX-512 n=2 64 B 474 / 490, n=4 256 B 637 / 672, n=6
 * 512 B 825 / 811, n=6 576 B 851 / 929, n=7 576 B 851 / 814; AVX2 n=3
 * 256 B 689 / 838, n=4 689 / 648, n=4 512 B 1059 / 1048
 * (docs/bursts.md "Small bursts (Zen 4)" has the whole table). With the
 * fused kernel, the AVX2 step again, seal and open one by one / lanes:
 * 192 B n=3 585 / 637, 601 / 721; 384 B n=4 737 / 755, 750 / 872;
 * 448 B n=4 796 / 809, 809 / 992: 192 in place of 256.
 * fused_narrow_groups: a burst's last group of 8 or fewer on the 8-lane
 * fused kernel, bursts of n equal seals off / on, TSC cycles a burst:
 * 64 B n=19 4283 / 3809, n=24 4452 / 4199; 128 B n=20 5863 / 5193;
 * 256 B n=22 9028 / 8287; 512 B n=24 14911 / 13533 (opens 1-9 % less).
 * fused_x16_max: jobs to 768 B in the 16-lane fused groups that keep busy
 * (chachapoly_burst.c), bursts of 32 seals in place, TSC cycles a
 * message, direct path / fused, medians of 41 rounds alternating in one
 * process: 32 x 576 B 605 / 566, 32 x 704 B 661 / 640, 32 x 768 B 703 /
 * 684, 32 x 1024 B 956 / 949 (level: 768 kept); IMIX's 10 x 576 beside
 * 6 x 64 in one group 522 / 497.
 * The AVX2 level, VL forms (8 lanes), once the byte-exact lane kernel ran
 * two blocks a step: lanes_crossover_x8vl 3584, the same harness with the
 * crossover pinned at 1024 / 4096 (single path / lanes), seal, open:
 * 1280 B 1650 / 1319, 1730 / 1353; 1420 B 1836 / 1524, 1811 / 1575;
 * 2048 B 2425 / 2099, 2323 / 2156; 2560 B 2745 / 2495, 2668 / 2519;
 * 3072 B 3173 / 2970, 3055 / 2996; 3584 B 4283 / 3649, 3767 / 3567;
 * 4096 B 3941 / 3857, 3797 / 3899 (a tie); 6144 B 5487 / 5623, 8192 B
 * 7120 / 7524 (the single path ahead). fused_x8_max 1536: direct /
 * fused, seal, open: 32 x 576 B 779 / 685, 802 / 724; 768 B 939 / 887,
 * 961 / 927; 1024 B 1187 / 1152, 1308 / 1183; 1280 B 1303 / 1271, 1322
 * / 1314; 1420 B 1456 / 1410, 1480 / 1454; 1536 B level; 8 x 576 B
 * 813 / 720, 838 / 765; IMIX 594 / 577, 614 / 605.
 */
static const struct vecsec_tune tune_zen4 = {
	.cpu = "AMD EPYC Zen 4 (family 19h)",
	.chachapoly_short_max = 4095,
	.chachapoly_short_ifma_blocks = 32,
	.chachapoly_short_rows_blocks = 11,
	.chachapoly_int_blocks = 24,
	.poly1305_ifma_min_len = 768,
	.lanes_crossover_x16 = 4800,
	.lanes_crossover_ssse3 = 0,
	.lanes_crossover_x8vl = 3584,
	.lanes_mixed_max = 640,
	.lanes_few_x16 = 128,
	.lanes_few_x8 = 192,
	.chacha_x16_pairs = true,
	.fused_narrow_groups = true,
	.fused_x16_max = 768,
	.fused_x8_max = 1024,
};

/*
 * Family 19h holds Zen 3 and Zen 4: Zen 4 parts are models 10h-1Fh
 * (EPYC 9004 "Genoa", Threadripper 7000), 60h-7Fh (Ryzen 7000 desktop
 * and mobile) and A0h-AFh (EPYC 8004 and 9704 "Siena", "Bergamo"), the
 * ranges Linux counts as Zen 4; the others (Zen 3, no AVX-512) keep
 * the default entry. Only model 11h has been measured.
 */
static bool
zen4_model(unsigned int model)
{
	return (model >= 0x10 && model <= 0x1f) || (model >= 0x60 && model <= 0x7f) ||
	       (model >= 0xa0 && model <= 0xaf);
}

static const struct vecsec_tune *
tune_detect(void)
{
	unsigned int a, b, c, d, family, model;

	if (__get_cpuid_max(0, NULL) < 1)
		return &tune_default;
	__cpuid(0, a, b, c, d);
	/* "AuthenticAMD": ebx, edx, ecx */
	if (b != 0x68747541 || d != 0x69746e65 || c != 0x444d4163)
		return &tune_default;
	__cpuid(1, a, b, c, d);
	family = (a >> 8) & 0xf;
	model = (a >> 4) & 0xf;
	if (family == 0xf) {
		family += (a >> 20) & 0xff;
		model |= ((a >> 16) & 0xf) << 4;
	}
	if (family == 0x1a)
		return &tune_zen5;
	if (family == 0x19 && zen4_model(model))
		return &tune_zen4;
	return &tune_default;
}
#else
static const struct vecsec_tune *
tune_detect(void)
{
	return &tune_default;
}
#endif

const struct vecsec_tune *const vecsec_tunes[] = {
	&tune_default,
#if defined(__x86_64__)
	&tune_zen5,
	&tune_zen4,
#endif
	NULL,
};

static _Atomic(const struct vecsec_tune *) tune_now;

void
vecsec_tune_force(const struct vecsec_tune *t)
{
	atomic_store_explicit(&tune_now, t != NULL ? t : tune_detect(), memory_order_release);
}

const struct vecsec_tune *
vecsec_tune(void)
{
	const struct vecsec_tune *t = atomic_load_explicit(&tune_now, memory_order_acquire);

	if (__builtin_expect(t == NULL, 0)) {
		/* idempotent: racing threads find the same entry */
		t = tune_detect();
		atomic_store_explicit(&tune_now, t, memory_order_release);
	}
	return t;
}

static _Atomic uint64_t cpu_feat;
static atomic_bool cpu_done;

VECSEC_API uint64_t
vecsec_cpu_features(void)
{
	if (!atomic_load_explicit(&cpu_done, memory_order_acquire)) {
		/* Idempotent: racing threads compute and store the same value. */
		atomic_store_explicit(&cpu_feat, detect(), memory_order_relaxed);
		atomic_store_explicit(&cpu_done, true, memory_order_release);
	}
	return atomic_load_explicit(&cpu_feat, memory_order_relaxed);
}

VECSEC_API enum vecsec_isa
vecsec_cpu_max_isa(void)
{
	uint64_t f = vecsec_cpu_features();
	enum vecsec_isa best = VECSEC_ISA_SCALAR;

	for (int i = VECSEC_ISA_SCALAR; i <= VECSEC_ISA_AVX512; i++) {
		uint64_t need = vecsec_isa_features((enum vecsec_isa)i);

		if (need != UINT64_MAX && (f & need) == need)
			best = (enum vecsec_isa)i;
	}
	return best;
}
