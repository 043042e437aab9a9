/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Deferred delivery (netif_rx's twin): a visit's burst goes onto the
 * lcore's backlog ring, tagged with its stream; the round's later pass
 * drains it by the napi weight and forwards each stream's run.
 */
#ifndef VFWD_STAGE_BACKLOG_H
#define VFWD_STAGE_BACKLOG_H

#include <string.h>

#include <rte_ring.h>

#include "vfwd_latency.h"
#include "vfwd_stage_forward.h"
#include "vfwd_stage_rx.h"

/* Deferred delivery (the netif_rx twin): a burst goes onto the lcore's
 * backlog ring, tagged with its stream; what does not fit is dropped. */
static inline void
backlog_put(struct vfwd_worker *w, uint16_t i, struct rte_mbuf **pkts, uint16_t n,
	    struct vfwd_dir_stats *d)
{
	unsigned int q;

	for (uint16_t j = 0; j < n; j++)
		pkts[j]->hash.usr = i;
	if (unlikely(w->lat_on))
		lat_stamp(w, pkts, n, rte_rdtsc());
	q = rte_ring_enqueue_burst(w->backlog, (void **)pkts, n, NULL);
	w->stats.backlog_enq += q;
	w->streams[i].backlog_pending += q;
	held_in(&w->streams[i], d, q);
	if (unlikely(q < n)) {
		rte_pktmbuf_free_bulk(pkts + q, n - q);
		d->drops[VFWD_DROP_BACKLOG] += n - q;
		w->streams[i].stats->drops += n - q;
		w->stats.backlog_drops += n - q;
	}
}

/* Packets taken off the backlog (from_backlog) or a pipeline ring, tagged
 * with their stream (mbuf hash.usr): each run of one stream counted out of
 * the hold and processed as a burst. Returns what GRO sent on from its
 * held packets. */
static inline uint32_t
process_tagged(struct vfwd_worker *w, const struct vfwd_knobs *k, struct rte_mbuf **pkts,
	       unsigned int n, bool from_backlog, uint64_t now)
{
	uint32_t moved = 0;

	if (unlikely(w->lat_on))
		lat_take(w, from_backlog ? VFWD_LAT_BACKLOG : VFWD_LAT_RING, pkts, (uint16_t)n,
			 rte_rdtsc(), true);
	for (unsigned int start = 0; start < n;) {
		uint16_t i = (uint16_t)pkts[start]->hash.usr;
		struct vfwd_worker_stream *ws = &w->streams[i];
		unsigned int end = start + 1;
		/* GRO may hand back more than the run: room for that */
		struct rte_mbuf *run[VFWD_MAX_BURST + VFWD_GRO_HOLD_MAX];

		while (end < n && pkts[end]->hash.usr == i)
			end++;
		uint64_t bytes;
		bool prep;

		held_out(ws, &w->stats.dir[ws->s.dir], end - start);
		if (from_backlog)
			ws->backlog_pending -= end - start;
		memcpy(run, pkts + start, (end - start) * sizeof(run[0]));
		bytes = burst_len_prep(w, i, run, (uint16_t)(end - start), &prep);
		moved += process(w, i, k, run, end - start, bytes, prep, now);
		start = end;
	}
	return moved;
}

/* The later pass: up to quota packets (at most VFWD_MAX_BURST) off the
 * backlog, each run of one stream processed as a burst. Returns the
 * packets taken off; *moved += those and what GRO sent on from its held
 * ones. */
static inline unsigned int
backlog_drain(struct vfwd_worker *w, const struct vfwd_knobs *k, unsigned int quota,
	      uint64_t now, uint32_t *moved)
{
	struct rte_mbuf *pkts[VFWD_MAX_BURST];
	unsigned int n = rte_ring_dequeue_burst(w->backlog, (void **)pkts,
						RTE_MIN(quota, (unsigned int)VFWD_MAX_BURST), NULL);

	w->stats.backlog_deq += n;
	*moved += n + process_tagged(w, k, pkts, n, true, now);
	return n;
}

/* How much one round takes off the backlog (the process_backlog twin).
 *
 * The kernel: netif_rx() queues onto the CPU's backlog, a NAPI instance
 * like the devices' with weight dev_rx_weight (64, napi-weight here).
 * net_rx_action() polls each instance on its list for up to its weight
 * and puts one that used all of it back at the tail, round and round
 * while budget is left: each poll may take a whole weight, and the loop
 * stops once netdev_budget (300, round-budget) is used up. So per softirq
 * the backlog is not held to one weight: it is polled again after every
 * pass over the device instances that keep feeding it, up to
 * ceil(budget / weight) times (5 x 64 = 320 with the defaults).
 *
 * Here one round is one pass: each stream visited once (the device
 * polls), then the backlog. It gets one poll of a weight for every stream
 * that fed it in the round (at least one, for what an earlier round
 * left), and no more polls than the round budget starts (in every rx
 * mode; none is ever cut below a weight, so a budget under the weight
 * still drains a weight). Any number of streams that each bring up to a
 * weight a round then keep it from overflowing, which one weight shared
 * by all did not with 3 or more; beyond the budget it overflows and
 * counts backlog drops, where the kernel too lets netdev_max_backlog
 * drop. The budget is the backlog's own: the visits' packets, which the
 * kernel would count against the same softirq, are not taken off it (a
 * deferred visit is the device's netif_rx, not its processing).
 * round-budget-us does not cut the drain: it is bounded in packets. */
static inline unsigned int
backlog_quota(const struct vfwd_knobs *k, unsigned int feeders)
{
	unsigned int weight = RTE_MAX(k->napi_weight, 1);
	unsigned int polls = RTE_MAX(feeders, 1u);

	if (k->round_budget)
		polls = RTE_MIN(polls, (k->round_budget + weight - 1) / weight);
	return polls * weight;
}

/* Deferred delivery, after the round's drain: GRO's held segments and the
 * tx holds of each stream leave as with direct delivery. A stream is idle
 * when its rx queue came back empty at its last visit (or the backlog ran
 * dry) and none of its packets wait on the backlog any more: then all it
 * holds goes; otherwise what waited gro-flush-us / tx-flush-us. Held
 * segments are older than anything of their stream still on the backlog,
 * so sending them first keeps each stream's order. */
static inline uint32_t
backlog_flush_streams(struct vfwd_worker *w, const struct vfwd_knobs *k, uint64_t now)
{
	bool dry = rte_ring_count(w->backlog) == 0;
	uint32_t moved = 0;

	for (uint16_t i = 0; i < w->nb_streams; i++) {
		struct vfwd_dir_stats *d = &w->stats.dir[w->streams[i].s.dir];
		bool idle = w->streams[i].backlog_pending == 0 && (dry || w->streams[i].rx_idle);

		if (w->streams[i].s.dir == VFWD_DIR_WIRE_TO_VM &&
		    unlikely(vfwd_gro_held(&w->streams[i].off.gro))) {
			if (idle)
				moved += process(w, i, k, NULL, 0, 0, false, now);
			else
				moved += flush_held(w, i, k, false, now, d);
		}
		hold_check(w, i, k, idle, now, d);
	}
	return moved;
}

#endif /* VFWD_STAGE_BACKLOG_H */
