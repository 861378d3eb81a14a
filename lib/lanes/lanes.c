/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The lane scheduler's out-of-line parts (lanes.h): the order streams
 * start in, and the choice of a width. Portable C, no algorithm.
 */
#include <string.h>

#include "lanes.h"

#define ORDER_TOP 63            /* weights are capped here */

static inline uint32_t
capped(uint32_t w)
{
	return w < ORDER_TOP ? w : ORDER_TOP;
}

void
vecsec_lanes_order(uint16_t *idx, const uint32_t *weight, unsigned int n)
{
	uint16_t cnt[ORDER_TOP + 2], tmp[LANES_ORDER_MAX];
	uint8_t key[LANES_ORDER_MAX];
	unsigned int i = 1;

	/* already in order (a burst of equal lengths): nothing to do */
	while (i < n && capped(weight[idx[i]]) <= capped(weight[idx[i - 1]]))
		i++;
	if (i >= n)
		return;
	/* a counting sort on ORDER_TOP - weight: ascending keys, decreasing weights */
	memset(cnt, 0, sizeof(cnt));
	for (i = 0; i < n; i++) {
		key[i] = (uint8_t)(ORDER_TOP - capped(weight[idx[i]]));
		cnt[key[i] + 1]++;
	}
	for (int k = 1; k <= ORDER_TOP + 1; k++)
		cnt[k] += cnt[k - 1];
	for (i = 0; i < n; i++)
		tmp[cnt[key[i]]++] = idx[i];
	memcpy(idx, tmp, n * sizeof(idx[0]));
}

int
vecsec_lanes_pick(const unsigned int *widths, unsigned int count, unsigned int n, int force)
{
	int pick = -1;

	for (unsigned int i = 0; i < count; i++) {
		if (force > 0) {
			if (widths[i] == (unsigned int)force)
				return (int)i;
			continue;
		}
		if (pick < 0 || widths[i] >= n)
			pick = (int)i;
	}
	return force > 0 ? -1 : pick;
}
