/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Which worker polls what. Pure: no EAL, unit-tested on its own.
 */
#include <errno.h>
#include <string.h>

#include "vfwd.h"

int
vfwd_plan_build(struct vfwd_plan *plan, const struct vfwd_pair *pairs, uint16_t nb_pairs,
		uint16_t nb_rxq, uint16_t nb_workers)
{
	unsigned int unit = 0;
	bool split;

	if (nb_pairs == 0 || nb_pairs > VFWD_MAX_PAIRS || nb_rxq == 0 ||
	    nb_rxq > VFWD_MAX_QUEUES || nb_workers == 0 || nb_workers > VFWD_MAX_WORKERS)
		return -EINVAL;

	memset(plan, 0, sizeof(*plan));
	plan->nb_workers = nb_workers;
	/* A unit is one queue of one pair, both directions. While there are
	 * no more workers than units, a worker takes whole units (both
	 * directions of a queue on one lcore, as a NAPI instance would);
	 * with more workers, the directions are split over them. */
	split = nb_workers > nb_pairs * nb_rxq;
	for (uint16_t q = 0; q < nb_rxq; q++) {
		for (uint16_t p = 0; p < nb_pairs; p++) {
			for (uint8_t dir = 0; dir < VFWD_DIR_COUNT; dir++) {
				unsigned int idx = split ? 2 * unit + dir : unit;
				struct vfwd_plan_lcore *pl = &plan->worker[idx % nb_workers];
				struct vfwd_stream *s = &pl->streams[pl->nb_streams++];
				bool to_wire = dir == VFWD_DIR_VM_TO_WIRE;

				s->rx_port = to_wire ? pairs[p].vm_port : pairs[p].wire_port;
				s->tx_port = to_wire ? pairs[p].wire_port : pairs[p].vm_port;
				s->rx_queue = q;
				s->tx_queue = q;
				s->dir = dir;
				s->pair = p;
				s->id = plan->nb_streams++;
			}
			unit++;
		}
	}
	return 0;
}

int
vfwd_plan_build_pipeline(struct vfwd_plan *plan, const struct vfwd_pair *pairs,
			 uint16_t nb_pairs, uint16_t nb_rxq, uint16_t nb_rx, uint16_t nb_work)
{
	struct vfwd_stream all[VFWD_MAX_STREAMS];
	int ret;

	if (nb_rx == 0 || nb_work == 0 || nb_rx > VFWD_MAX_PIPE || nb_work > VFWD_MAX_PIPE)
		return -EINVAL;
	ret = vfwd_plan_build(plan, pairs, nb_pairs, nb_rxq, nb_rx);
	if (ret != 0)
		return ret;
	for (uint16_t r = 0; r < nb_rx; r++) {
		const struct vfwd_plan_lcore *pl = &plan->worker[r];

		for (uint16_t i = 0; i < pl->nb_streams; i++)
			all[pl->streams[i].id] = pl->streams[i];
	}
	for (uint16_t r = 0; r < nb_rx; r++)
		plan->worker[r].role = VFWD_ROLE_RX;
	for (uint16_t k = 0; k < nb_work; k++) {
		struct vfwd_plan_lcore *pl = &plan->worker[nb_rx + k];

		pl->role = VFWD_ROLE_WORK;
		pl->nb_streams = plan->nb_streams;
		for (uint16_t i = 0; i < plan->nb_streams; i++) {
			pl->streams[i] = all[i];
			pl->streams[i].tx_queue = k;
		}
	}
	plan->nb_workers = nb_rx + nb_work;
	return 0;
}
