/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Queue assignment: every stream once, spread evenly, each tx queue with
 * exactly one sender.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "vfwd.h"

static struct vfwd_plan plan;
static const struct vfwd_pair two_pairs[] = {{.vm_port = 0, .wire_port = 1},
					     {.vm_port = 2, .wire_port = 3}};

/* Each (tx port, tx queue) is used by exactly one stream, and each stream's
 * tx port is the other end of its rx port's pair. */
static void
check_invariants(uint16_t nb_pairs, uint16_t nb_rxq, uint16_t nb_workers)
{
	unsigned int senders[4][VFWD_MAX_QUEUES] = {{0}}, total = 0, min = ~0u, max = 0;
	unsigned int units = nb_pairs * nb_rxq;
	/* whole queues per worker while workers <= queues, else directions */
	unsigned int per = nb_workers <= units ? 2 : 1;

	for (uint16_t w = 0; w < nb_workers; w++) {
		const struct vfwd_plan_lcore *pl = &plan.worker[w];

		for (uint16_t s = 0; s < pl->nb_streams; s++) {
			const struct vfwd_stream *st = &pl->streams[s];
			const struct vfwd_pair *p = &two_pairs[st->pair];

			CHECK(st->tx_queue == st->rx_queue && st->rx_queue < nb_rxq);
			if (st->dir == VFWD_DIR_VM_TO_WIRE)
				CHECK(st->rx_port == p->vm_port && st->tx_port == p->wire_port);
			else
				CHECK(st->rx_port == p->wire_port && st->tx_port == p->vm_port);
			senders[st->tx_port][st->tx_queue]++;
		}
		if (per == 2)
			for (uint16_t s = 0; s + 1 < pl->nb_streams; s += 2)
				CHECK(pl->streams[s].rx_queue == pl->streams[s + 1].rx_queue &&
				      pl->streams[s].pair == pl->streams[s + 1].pair &&
				      pl->streams[s].dir != pl->streams[s + 1].dir);
		total += pl->nb_streams;
		min = RTE_MIN(min, (unsigned int)pl->nb_streams);
		max = RTE_MAX(max, (unsigned int)pl->nb_streams);
	}
	CHECK(total == plan.nb_streams && total == nb_pairs * nb_rxq * 2u);
	CHECK(max - min <= per); /* even spread, in whole units */
	for (uint16_t p = 0; p < nb_pairs * 2; p++)
		for (uint16_t q = 0; q < nb_rxq; q++)
			CHECK(senders[p][q] == 1);
}

static void
one_worker_serves_both_directions(void)
{
	CHECK(vfwd_plan_build(&plan, two_pairs, 1, 1, 1) == 0);
	CHECK(plan.worker[0].nb_streams == 2);
	CHECK(plan.worker[0].streams[0].dir != plan.worker[0].streams[1].dir);
	check_invariants(1, 1, 1);
}

static void
spread(void)
{
	for (uint16_t pairs = 1; pairs <= 2; pairs++)
		for (uint16_t q = 1; q <= 4; q++)
			for (uint16_t w = 1; w <= 8; w++) {
				CHECK(vfwd_plan_build(&plan, two_pairs, pairs, q, w) == 0);
				check_invariants(pairs, q, w);
			}
}

/* With one worker per queue, a worker keeps both directions of its queue. */
static void
queue_affinity(void)
{
	CHECK(vfwd_plan_build(&plan, two_pairs, 1, 4, 4) == 0);
	for (uint16_t w = 0; w < 4; w++) {
		CHECK(plan.worker[w].nb_streams == 2);
		CHECK(plan.worker[w].streams[0].rx_queue == w);
		CHECK(plan.worker[w].streams[1].rx_queue == w);
	}
}

static void
invalid(void)
{
	CHECK(vfwd_plan_build(&plan, two_pairs, 0, 1, 1) == -EINVAL);
	CHECK(vfwd_plan_build(&plan, two_pairs, 1, 0, 1) == -EINVAL);
	CHECK(vfwd_plan_build(&plan, two_pairs, 1, 1, 0) == -EINVAL);
	CHECK(vfwd_plan_build(&plan, two_pairs, 1, VFWD_MAX_QUEUES + 1, 1) == -EINVAL);
	CHECK(vfwd_plan_build(&plan, two_pairs, 1, 1, VFWD_MAX_WORKERS + 1) == -EINVAL);
}

/* The pipeline: rx lcores cover every queue once; each work lcore has
 * every stream by id and sends on its own tx queue. */
static void
pipeline(void)
{
	const struct vfwd_pair *pairs = two_pairs;
	unsigned int seen[VFWD_MAX_STREAMS] = {0};

	CHECK(vfwd_plan_build_pipeline(&plan, pairs, 2, 2, 2, 3) == 0);
	CHECK(plan.nb_workers == 5 && plan.nb_streams == 8);
	for (int r = 0; r < 2; r++) {
		CHECK(plan.worker[r].role == VFWD_ROLE_RX);
		for (int i = 0; i < plan.worker[r].nb_streams; i++)
			seen[plan.worker[r].streams[i].id]++;
	}
	for (int i = 0; i < 8; i++)
		CHECK(seen[i] == 1);
	for (int k = 0; k < 3; k++) {
		const struct vfwd_plan_lcore *pl = &plan.worker[2 + k];

		CHECK(pl->role == VFWD_ROLE_WORK && pl->nb_streams == 8);
		for (int i = 0; i < 8; i++)
			CHECK(pl->streams[i].id == i && pl->streams[i].tx_queue == k);
	}
	CHECK(vfwd_plan_build_pipeline(&plan, pairs, 2, 2, 0, 1) == -EINVAL);
	CHECK(vfwd_plan_build_pipeline(&plan, pairs, 2, 2, 1, VFWD_MAX_PIPE + 1) == -EINVAL);
}

int
main(void)
{
	RUN(one_worker_serves_both_directions);
	RUN(spread);
	RUN(queue_affinity);
	RUN(invalid);
	RUN(pipeline);
	return CHECK_DONE();
}
