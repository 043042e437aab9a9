/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Following a flow's units (new, late, duplicate) and latency histograms.
 */
#include <string.h>

#include "vfwd_gen.h"

#define WORDS (GEN_TRACK_WINDOW / 64)

static inline bool
test_and_set(struct gen_track *t, uint64_t unit)
{
	uint64_t *w = &t->bits[(unit / 64) % WORDS];
	uint64_t bit = 1ull << (unit % 64);
	bool was = (*w & bit) != 0;

	*w |= bit;
	return was;
}

/* The window holds units [next - WINDOW, next): a bit per unit, reused
 * as next moves on. */
enum gen_seen
gen_track(struct gen_track *t, uint64_t unit)
{
	if (unit >= t->next) {
		uint64_t from = t->next;

		if (unit - from >= GEN_TRACK_WINDOW) {
			memset(t->bits, 0, sizeof(t->bits));
		} else {
			/* clear the slots of the units skipped over (maybe later late) */
			for (uint64_t u = from; u < unit + 1; u++)
				t->bits[(u / 64) % WORDS] &= ~(1ull << (u % 64));
		}
		t->next = unit + 1;
		test_and_set(t, unit);
		return GEN_SEEN_NEW;
	}
	if (t->next - unit > GEN_TRACK_WINDOW)
		return GEN_SEEN_TOO_LATE;
	return test_and_set(t, unit) ? GEN_SEEN_DUP : GEN_SEEN_LATE;
}

static unsigned int
bucket_of(uint64_t v)
{
	unsigned int msb, shift;

	if (v < GEN_HIST_SUB)
		return (unsigned int)v;
	msb = 63u - (unsigned int)__builtin_clzll(v);
	shift = msb - 4; /* 16 sub-buckets: the 4 bits below the top one */
	if ((shift + 1) * GEN_HIST_SUB >= GEN_HIST_BUCKETS)
		return GEN_HIST_BUCKETS - 1;
	return (shift + 1) * GEN_HIST_SUB + (unsigned int)((v >> shift) & (GEN_HIST_SUB - 1));
}

/* the smallest value of bucket b and its width */
static void
bucket_range(unsigned int b, uint64_t *lo, uint64_t *width)
{
	unsigned int shift;

	if (b < GEN_HIST_SUB) {
		*lo = b;
		*width = 1;
		return;
	}
	shift = b / GEN_HIST_SUB - 1;
	*lo = ((uint64_t)GEN_HIST_SUB + b % GEN_HIST_SUB) << shift;
	*width = 1ull << shift;
}

void
gen_hist_add(struct gen_hist *h, uint64_t v)
{
	if (h->count == 0 || v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
	h->count++;
	h->sum += v;
	h->bucket[bucket_of(v)]++;
}

void
gen_hist_merge(struct gen_hist *into, const struct gen_hist *h)
{
	if (h->count == 0)
		return;
	if (into->count == 0 || h->min < into->min)
		into->min = h->min;
	if (h->max > into->max)
		into->max = h->max;
	into->count += h->count;
	into->sum += h->sum;
	for (unsigned int b = 0; b < GEN_HIST_BUCKETS; b++)
		into->bucket[b] += h->bucket[b];
}

uint64_t
gen_hist_quantile(const struct gen_hist *h, double q)
{
	uint64_t rank, seen = 0;

	if (h->count == 0)
		return 0;
	if (q <= 0)
		return h->min;
	if (q >= 1)
		return h->max;
	/* the value below which a fraction q of the samples lie: rank ceil(q * n) */
	rank = (uint64_t)(q * (double)h->count);
	if ((double)rank < q * (double)h->count)
		rank++;
	for (unsigned int b = 0; b < GEN_HIST_BUCKETS; b++) {
		seen += h->bucket[b];
		if (seen >= rank) {
			uint64_t lo, width, v;

			bucket_range(b, &lo, &width);
			v = lo + width / 2;
			return v < h->min ? h->min : v > h->max ? h->max : v;
		}
	}
	return h->max;
}
