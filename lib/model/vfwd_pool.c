/* SPDX-License-Identifier: BSD-3-Clause
 *
 * How many mbufs the pool needs: everything the configuration can hold at
 * once, counted once here (pure arithmetic, unit-tested without EAL).
 */
#include "vfwd.h"
#include "vfwd_pool.h"

void
vfwd_pipe_max(uint16_t nb_workers, uint16_t nb_txq, uint16_t *nb_rx, uint16_t *nb_work)
{
	unsigned int best = 0;

	*nb_rx = *nb_work = 0;
	/* the limits vfwd_ctl_plan puts on "set pipeline R:W": R + W worker
	 * lcores, W tx queues, each at most VFWD_MAX_PIPE */
	for (uint16_t w = 1; w <= VFWD_MAX_PIPE && w <= nb_txq && w < nb_workers; w++) {
		uint16_t r = RTE_MIN((uint16_t)(nb_workers - w), (uint16_t)VFWD_MAX_PIPE);

		if ((unsigned int)r * w > best) {
			best = (unsigned int)r * w;
			*nb_rx = r;
			*nb_work = w;
		}
	}
}

/* What one plan holds in its workers beside the ports: nb_lcores worker
 * lcores, each with one burst in flight; rings; tx holds and GRO held
 * segments for hold_streams streams. */
static uint64_t
plan_holds(const struct vfwd_pool_need *n, uint64_t lcores, uint64_t ring_pkts,
	   uint64_t hold_streams)
{
	/* a guest TSO frame arrives from net_vhost as a chain of mbufs */
	uint64_t chain = (VFWD_TSO_FRAME_MAX + n->data_room - 1) / n->data_room;
	/* per worker lcore, one stream is processed at a time: the burst
	 * received (up to VFWD_MAX_BURST frames, each a chain of a TSO
	 * frame's worst-case segment count), plus the segments made from it
	 * before they are sent or held (the header mbufs of
	 * process_to_wire's out[]: VFWD_MAX_BURST + VFWD_GSO_MAX_SEGS) */
	uint64_t in_flight = (uint64_t)VFWD_MAX_BURST * chain + VFWD_MAX_BURST +
			     VFWD_GSO_MAX_SEGS;
	/* what waits in rings and holds is frames of up to the MTU, each a
	 * chain of this many mbufs */
	uint64_t frame = n->max_frame > n->data_room
				 ? (n->max_frame + n->data_room - 1) / n->data_room
				 : 1;

	return lcores * in_flight + frame * (ring_pkts +
	       /* tx batching: each stream's hold takes up to VFWD_TX_HOLD_CAP
		* packets (tx-batch, live, is at most VFWD_MAX_TX_BATCH below
		* that) */
	       hold_streams * VFWD_TX_HOLD_CAP +
	       /* heavy GRO: each stream toward a VM (half of them) holds at
		* most VFWD_GRO_HOLD_MAX segments, whatever gro-flows is */
	       hold_streams / 2 * VFWD_GRO_HOLD_MAX);
}

unsigned int
vfwd_pool_size(const struct vfwd_pool_need *n)
{
	uint16_t pipe_rx, pipe_work;
	uint64_t total, direct, pipe = 0;
	uint16_t direct_workers = RTE_MIN(n->nb_workers, n->nb_streams);

	/* the ports: every rx descriptor holds an mbuf posted for the PMD to
	 * fill, every tx descriptor one sent and not yet freed (net_vhost
	 * holds neither, but costs little to count) */
	total = (uint64_t)n->nb_ports * ((uint64_t)n->nb_rxq * n->nb_rxd +
					  (uint64_t)n->nb_txq * n->nb_txd);
	/* each EAL lcore's cache of the pool: up to 1.5 x its size before it
	 * flushes back (rte_mempool's flush threshold) */
	total += (uint64_t)n->nb_lcores * (n->cache_size * 3 / 2);
	/* Only one plan runs at a time (direct or a pipeline, changed with
	 * set pipeline, which stops the old plan and drains it before the
	 * new one starts): the larger of the two. */
	/* direct: min(workers, streams) lcores, each with its backlog ring
	 * (the backlog knob, sized for the largest value allowed), each
	 * stream held once */
	direct = plan_holds(n, direct_workers, (uint64_t)direct_workers * n->backlog,
			    n->nb_streams);
	/* the largest pipeline the lcores and tx queues allow: R x W rings of
	 * VFWD_PIPE_RING_SIZE - 1 packets; every work lcore has every
	 * stream (tx holds, GRO); no backlog is used there */
	vfwd_pipe_max(n->nb_workers, n->nb_txq, &pipe_rx, &pipe_work);
	if (pipe_rx)
		pipe = plan_holds(n, (uint64_t)pipe_rx + pipe_work,
				  (uint64_t)pipe_rx * pipe_work * (VFWD_PIPE_RING_SIZE - 1),
				  (uint64_t)pipe_work * n->nb_streams);
	total += RTE_MAX(direct, pipe);
	return total > UINT32_MAX ? UINT32_MAX : (unsigned int)total;
}
