/* SPDX-License-Identifier: BSD-3-Clause
 *
 * What the stage benchmarks (gro_stage.c, worker_stage.c) share: their
 * reps' figures sorted, so that the least disturbed (the first) and the
 * median can be read.
 */
#ifndef VFWD_BENCH_STAGE_H
#define VFWD_BENCH_STAGE_H

#include <stdint.h>
#include <stdlib.h>

static int
stage_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static inline void
stage_sort(uint64_t *v, int n)
{
	qsort(v, (size_t)n, sizeof(v[0]), stage_cmp_u64);
}

#endif
