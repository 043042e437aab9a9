/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Per-stage residence time (--latency on), the worker's side: a stage
 * that holds packets stamps each with the TSC as it goes in and, as it
 * comes out, adds its wait to the stage's histogram in the worker's own
 * counters, a run of packets that went in together at once. The stamp is
 * an mbuf dynamic field (vfwd_latency_field_register) where the packets
 * travel through a ring (backlog, pipeline) or a table of another library
 * (GRO); one field serves all of them, as a packet waits in one place at
 * a time and the next place stamps it again. The tx hold keeps its
 * packets' in-times beside them instead. Off, each stage pays one
 * predicted branch per burst.
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

/* A wait of a packet that went in at t and came out at now, into l, n
 * times: the runs of packets that went in together are counted at once. A
 * t from before latency was switched on (a packet that went in unstamped,
 * a field or slot left from an earlier use) is not a wait: skipped. One a
 * little after now (another lcore's clock read later than this one's) is
 * a wait of 0. */
static inline void
lat_add_run(const struct vfwd_worker *w, struct vfwd_lat_stats *l, uint64_t t, uint64_t now,
	    uint64_t n)
{
	if (t >= w->lat_since)
		vfwd_lat_add_n(l, t < now ? now - t : 0, n);
}

/* Where a stage keeps its packets' in-times: an array beside them, or
 * the mbufs' field. */
typedef uint64_t (*lat_in_fn)(const struct vfwd_worker *w, const void *src, uint16_t i);

static inline uint64_t
lat_in_array(const struct vfwd_worker *w __rte_unused, const void *src, uint16_t i)
{
	return ((const uint64_t *)src)[i];
}

static inline uint64_t
lat_in_field(const struct vfwd_worker *w, const void *src, uint16_t i)
{
	return *lat_field(w, ((struct rte_mbuf *const *)src)[i]);
}

/* The waits of n packets whose in-times in(src, i) say, each run of equal
 * times counted at once. fifo: they come out in the order they went in,
 * so all went in together when the first and the last did (the usual
 * case, counted without a look at the others). */
static inline void
lat_take_runs(struct vfwd_worker *w, enum vfwd_lat_stage stage, const void *src, uint16_t n,
	      uint64_t now, bool fifo, lat_in_fn in)
{
	struct vfwd_lat_stats *l = &w->stats.lat[stage];
	uint16_t start = 0;
	uint64_t t_start;

	if (likely(!w->lat_on) || n == 0)
		return;
	t_start = in(w, src, 0);
	if (fifo && t_start == in(w, src, n - 1)) {
		lat_add_run(w, l, t_start, now, n);
		return;
	}
	for (uint16_t j = 1; j <= n; j++) {
		uint64_t t = j < n ? in(w, src, j) : 0;

		if (j == n || t != t_start) {
			lat_add_run(w, l, t_start, now, j - start);
			start = j;
			t_start = t;
		}
	}
}

/* The waits of packets whose in-times are tsc[0..n), in the order they
 * went in (the tx hold). */
static inline void
lat_take_tsc(struct vfwd_worker *w, enum vfwd_lat_stage stage, const uint64_t *tsc, uint16_t n,
	     uint64_t now)
{
	lat_take_runs(w, stage, tsc, n, now, true, lat_in_array);
}

/* tsc[0..n) go in at now (a stage that keeps its packets' in-times beside
 * them, as the tx hold does). */
static inline void
lat_stamp_tsc(const struct vfwd_worker *w, uint64_t *tsc, uint16_t n, uint64_t now)
{
	if (likely(!w->lat_on))
		return;
	for (uint16_t j = 0; j < n; j++)
		tsc[j] = now;
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

/* pkts[0..n) come out of stage's place at now: their waits counted (as
 * lat_add_run says). fifo: they come out in the order they went in, each
 * stamped when it did (the backlog, a pipeline ring). */
static inline void
lat_take(struct vfwd_worker *w, enum vfwd_lat_stage stage, struct rte_mbuf *const *pkts,
	 uint16_t n, uint64_t now, bool fifo)
{
	lat_take_runs(w, stage, pkts, n, now, fifo, lat_in_field);
}

#endif /* VFWD_LATENCY_H */
