/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec-bench timing: the CPU's time-stamp counter (RDTSC on x86-64,
 * CNTVCT_EL0 on aarch64, CLOCK_MONOTONIC_RAW nanoseconds elsewhere), its
 * frequency calibrated against clock_gettime, pinning to one CPU, the CPU
 * model, and small buffer helpers.
 */
#define _GNU_SOURCE /* sched_getcpu, sched_setaffinity */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"

static double tick_hz;

uint64_t
bench_ticks(void)
{
#if defined(__x86_64__)
	return __builtin_ia32_rdtsc();
#elif defined(__aarch64__)
	uint64_t v;

	__asm__ volatile("isb; mrs %0, cntvct_el0" : "=r"(v));
	return v;
#else
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
#endif
}

const char *
bench_tick_name(void)
{
#if defined(__x86_64__)
	return "TSC";
#elif defined(__aarch64__)
	return "CNTVCT";
#else
	return "ns";
#endif
}

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/*
 * Ticks per second: count ticks across about ms milliseconds of
 * CLOCK_MONOTONIC_RAW, three times, and keep the median (a preempted
 * attempt is off in either direction).
 */
double
bench_calibrate(unsigned int ms)
{
	double hz[3];

	for (int i = 0; i < 3; i++) {
		double t0 = now_s(), t1;
		uint64_t c0 = bench_ticks(), c1;

		do {
			t1 = now_s();
			c1 = bench_ticks();
		} while (t1 - t0 < ms * 1e-3 / 3);
		hz[i] = (double)(c1 - c0) / (t1 - t0);
	}
	for (int i = 0; i < 2; i++)
		for (int j = i + 1; j < 3; j++)
			if (hz[j] < hz[i]) {
				double t = hz[i];

				hz[i] = hz[j];
				hz[j] = t;
			}
	tick_hz = hz[1];
	return tick_hz;
}

double
bench_tick_hz(void)
{
	if (tick_hz == 0)
		bench_calibrate(50);
	return tick_hz;
}

int
bench_pin_cpu(void)
{
	cpu_set_t set;
	int cpu = sched_getcpu();

	if (cpu < 0)
		return -1;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) != 0)
		return -1;
	return cpu;
}

void
bench_cpu_model(char *buf, size_t len)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[256];

	snprintf(buf, len, "unknown");
	if (f == NULL)
		return;
	while (fgets(line, sizeof(line), f) != NULL) {
		char *colon = strchr(line, ':');

		if (colon == NULL)
			continue;
		if (strncmp(line, "model name", 10) == 0 || strncmp(line, "Model", 5) == 0) {
			colon++;
			while (*colon == ' ' || *colon == '\t')
				colon++;
			colon[strcspn(colon, "\n")] = '\0';
			snprintf(buf, len, "%s", colon);
			break;
		}
	}
	fclose(f);
}

/* splitmix64: reproducible test data from a seed */
void
bench_fill(void *buf, size_t len, uint64_t seed)
{
	uint8_t *p = buf;
	uint64_t s = seed;

	for (size_t i = 0; i < len; i += 8) {
		uint64_t z = (s += UINT64_C(0x9e3779b97f4a7c15));

		z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
		z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
		z ^= z >> 31;
		for (size_t j = 0; j < 8 && i + j < len; j++)
			p[i + j] = (uint8_t)(z >> (8 * j));
	}
}

void *
bench_alloc(size_t len)
{
	size_t n = (len + 63) / 64 * 64;
	void *p;

	if (n == 0)
		n = 64;
	p = aligned_alloc(64, n);
	if (p == NULL) {
		fprintf(stderr, "vecsec-bench: out of memory (%zu bytes)\n", len);
		exit(2);
	}
	memset(p, 0, n);
	return p;
}
