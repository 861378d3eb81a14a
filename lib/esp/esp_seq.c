/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Outbound sequence numbers, RFC 4303 3.3.3: each packet of an SA gets the
 * next number, the counter never wraps (the SA is done after 2^32 - 1, or
 * 2^64 - 1 with ESN). Several threads may send on one SA: a caller takes
 * a run of numbers with one compare-and-swap, so that its packets keep
 * their order and no number is used twice. The struct is public (callers
 * embed it), so its fields are plain integers accessed with the compiler's
 * __atomic builtins rather than C11 _Atomic types.
 */
#include "vecsec/vecsec_esp.h"

#include <errno.h>

VECSEC_API int
vecsec_esp_seq_init(struct vecsec_esp_seq *s, bool esn, uint64_t last)
{
	uint64_t max = esn ? UINT64_MAX : UINT32_MAX;

	if (s == NULL || last > max)
		return -EINVAL;
	s->max = max;
	__atomic_store_n(&s->last, last, __ATOMIC_RELAXED);
	return 0;
}

VECSEC_API uint32_t
vecsec_esp_seq_reserve(struct vecsec_esp_seq *s, uint32_t n, uint64_t *first)
{
	uint64_t cur, take;

	if (s == NULL || first == NULL || n == 0)
		return 0;
	/* relaxed: the numbers only need to be unique, the packets carry no other data */
	cur = __atomic_load_n(&s->last, __ATOMIC_RELAXED);
	do {
		if (cur >= s->max)
			return 0;
		take = s->max - cur < n ? s->max - cur : n;
	} while (!__atomic_compare_exchange_n(&s->last, &cur, cur + take, false,
					      __ATOMIC_RELAXED, __ATOMIC_RELAXED));
	*first = cur + 1;
	return (uint32_t)take;
}

uint32_t
vecsec_esp_seq_reserve_excl(struct vecsec_esp_seq *s, uint32_t n, uint64_t *first)
{
	uint64_t cur, take;

	if (s == NULL || first == NULL || n == 0)
		return 0;
	cur = s->last;
	if (cur >= s->max)
		return 0;
	take = s->max - cur < n ? s->max - cur : n;
	s->last = cur + take;
	*first = cur + 1;
	return (uint32_t)take;
}
