/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Per-stage residence time (--latency on), the worker's side: a stage
 * that holds packets stamps each with the TSC as it goes in (an mbuf
 * dynamic field, vfwd_latency_field_register) and, as it comes out, adds
 * its wait to the stage's histogram in the worker's own counters. One
 * field serves every stage: a packet waits in one place at a time, and
 * the next place stamps it again. Off, each stage pays one predicted
 * branch per burst.
 */
#ifndef VFWD_LATENCY_H
#define VFWD_LATENCY_H

#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>

#include "vfwd_worker.h"

static inline void
vfwd_lat_add_n(struct vfwd_lat_stats *l, uint64_t tsc, uint64_t n)
{
	unsigned int b = tsc > 1 ? 63 - (unsigned int)__builtin_clzll(tsc) : 0;

	l->count += n;
	l->sum_tsc += tsc * n;
	l->hist[b < VFWD_LAT_BUCKETS ? b : VFWD_LAT_BUCKETS - 1] += n;
}

static inline uint64_t *
lat_field(const struct vfwd_worker *w, struct rte_mbuf *m)
{
	return RTE_MBUF_DYNFIELD(m, w->lat_field, uint64_t *);
}

/* pkts[0..n) go into a stage's holding place at now. */
static inline void
lat_stamp(const struct vfwd_worker *w, struct rte_mbuf **pkts, uint16_t n, uint64_t now)
{
	if (likely(!w->lat_on))
		return;
	for (uint16_t j = 0; j < n; j++)
		*lat_field(w, pkts[j]) = now;
}

/* pkts[0..n) come out of stage's place at now: their waits counted. A
 * stamp from before latency was switched on (a packet that went in
 * unstamped, the field left from an earlier use of the mbuf) is not a
 * wait: skipped. One from a little after now (another lcore's clock read
 * later than this one's) is a wait of 0. */
static inline void
lat_take(struct vfwd_worker *w, enum vfwd_lat_stage stage, struct rte_mbuf *const *pkts,
	 uint16_t n, uint64_t now)
{
	struct vfwd_lat_stats *l = &w->stats.lat[stage];

	if (likely(!w->lat_on))
		return;
	for (uint16_t j = 0; j < n; j++) {
		uint64_t t = *lat_field(w, pkts[j]);

		if (t >= w->lat_since)
			vfwd_lat_add_n(l, t < now ? now - t : 0, 1);
	}
}

#endif /* VFWD_LATENCY_H */
