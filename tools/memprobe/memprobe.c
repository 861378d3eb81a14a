/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * memprobe: what a cache line from memory costs on this machine, the unit
 * the gateway's SA-count axis is made of (scripts/bench-gw.sh): at 100,000
 * SAs every line of per-SA state a packet reads is a miss to memory, so the
 * axis's ratio depends on this machine's memory as much as on the gateway.
 *
 * Over a buffer far larger than the caches (default 1 GiB; on 2 MiB
 * hugepages with --huge, as the gateway's DPDK memory), in TSC cycles:
 *   latency  one load whose address depends on the one before (a chain
 *            through random lines, swept out of the near caches first: its
 *            set-up wrote them)
 *   line     independent random lines, 32 prefetched at a time and then
 *            read: the cost per line when the core keeps as many misses in
 *            flight as it can (what the gateway's staged prefetches get)
 * Medians of 5 rounds. One line of output, key=value.
 *
 *   memprobe [--huge] [--mib N]
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#if defined(__x86_64__)
#include <x86intrin.h>
static inline uint64_t
tsc(void)
{
	return __rdtsc();
}
#elif defined(__aarch64__)
static inline uint64_t
tsc(void)
{
	uint64_t v;

	__asm__ volatile("isb; mrs %0, cntvct_el0" : "=r"(v));
	return v;
}
#else
#error "memprobe: no cycle counter for this architecture"
#endif

#define LINE 64
#define BATCH 32
#define ROUNDS 5

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t
rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static int
cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double
median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(v[0]), cmp_d);
	return v[n / 2];
}

int
main(int argc, char **argv)
{
	size_t mib = 1024, size, lines, nidx = 1u << 20;
	int huge = 0;
	double lat[ROUNDS], per[ROUNDS];
	uint32_t *idx;
	uint8_t *buf;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--huge") == 0) {
			huge = 1;
		} else if (strcmp(argv[i], "--mib") == 0 && i + 1 < argc) {
			char *end;

			mib = strtoul(argv[++i], &end, 10);
			if (*end != '\0' || mib < 64 || mib > 65536) {
				fprintf(stderr, "memprobe: --mib %s: 64..65536\n", argv[i]);
				return 2;
			}
		} else {
			fprintf(stderr, "usage: memprobe [--huge] [--mib N]\n");
			return 2;
		}
	}
	size = mib << 20;
	lines = size / LINE;
	buf = mmap(NULL, size, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | (huge ? MAP_HUGETLB : 0), -1, 0);
	if (buf == MAP_FAILED && huge) {
		fprintf(stderr, "memprobe: no %zu MiB of hugepages: 4 KiB pages\n", mib);
		huge = 0;
		buf = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	}
	idx = malloc(nidx * sizeof(*idx));
	if (buf == MAP_FAILED || idx == NULL) {
		fprintf(stderr, "memprobe: out of memory (%zu MiB)\n", mib);
		return 1;
	}
	if (!huge)
		madvise(buf, size, MADV_NOHUGEPAGE);
	memset(buf, 1, size);
	for (int r = 0; r < ROUNDS; r++) {
		size_t chain = nidx / 8;
		uint64_t t0, t1, p, sum = 0;

		for (size_t i = 0; i < nidx; i++)
			idx[i] = (uint32_t)(rnd() % lines);
		/* a chain through `chain` random lines: each holds the next one's offset */
		for (size_t i = 0; i < chain; i++)
			*(uint64_t *)(buf + (size_t)idx[i] * LINE) = (uint64_t)idx[(i + 1) % chain] * LINE;
		/*
		 * the set-up just wrote the chain's lines (8 MiB): a read of the whole
		 * buffer leaves them as cold as any other line of it, else the chain
		 * runs from the caches and "latency" is theirs
		 */
		for (size_t i = 0; i < size; i += LINE)
			sum += *(volatile uint8_t *)(buf + i);
		p = (uint64_t)idx[0] * LINE;
		t0 = tsc();
		for (size_t i = 0; i < chain; i++)
			p = *(volatile uint64_t *)(buf + p);
		t1 = tsc();
		lat[r] = (double)(t1 - t0) / (double)chain;
		sum += p;
		t0 = tsc();
		for (size_t i = 0; i + BATCH <= nidx; i += BATCH) {
			for (int j = 0; j < BATCH; j++)
				__builtin_prefetch(buf + (size_t)idx[i + j] * LINE, 0, 3);
			for (int j = 0; j < BATCH; j++)
				sum += *(volatile uint64_t *)(buf + (size_t)idx[i + j] * LINE);
		}
		t1 = tsc();
		per[r] = (double)(t1 - t0) / (double)nidx;
		if (sum == 42)          /* keeps the loads */
			fputc('\0', stderr);
	}
	printf("memprobe: mib=%zu huge=%d latency_cyc=%.0f line_cyc=%.1f\n", mib, huge,
	       median(lat, ROUNDS), median(per, ROUNDS));
	munmap(buf, size);
	free(idx);
	return 0;
}
