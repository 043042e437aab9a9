/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Streams and the plan: which worker lcore polls which queue and sends on
 * which (lib/model/vfwd_plan.c: pure, unit-tested without EAL).
 */
/* The limits and enum vfwd_dir come from vfwd.h, which includes this file
 * after them: included first, this file has vfwd.h include it back. */
#ifndef VFWD_H
#include "vfwd.h"
#else
#ifndef VFWD_PLAN_H
#define VFWD_PLAN_H

#include <stdint.h>

struct vfwd_stream {
	uint16_t rx_port, rx_queue;
	uint16_t tx_port, tx_queue;
	uint8_t dir; /* enum vfwd_dir */
	uint8_t pair;
	uint16_t id; /* index in the plan's list of all streams */
};

/* What an lcore does: everything for its streams (direct), or one half of
 * the pipeline (the cpumap twin): rx lcores only poll and hand bursts
 * through rings to work lcores, which run GRO/TSO and send. */
enum vfwd_role { VFWD_ROLE_DIRECT, VFWD_ROLE_RX, VFWD_ROLE_WORK };

#define VFWD_MAX_PIPE 16 /* rx or work lcores in a pipeline */

struct vfwd_plan_lcore {
	uint8_t role; /* enum vfwd_role */
	uint16_t nb_streams;
	/* direct and rx: the queues it polls; work: every stream, by id, each
	 * sending on this lcore's own tx queue */
	struct vfwd_stream streams[VFWD_MAX_STREAMS];
};

struct vfwd_plan {
	uint16_t nb_workers;
	uint16_t nb_streams;
	struct vfwd_plan_lcore worker[VFWD_MAX_WORKERS];
};

/* Spread the streams of nb_pairs pairs x nb_rxq queues over nb_workers
 * workers, round-robin: whole queues (both directions) while workers are
 * no more than queues, single directions beyond that. Stream (pair p, queue q, dir) receives on queue q of
 * one port and sends on queue q of the other, so every tx queue has exactly
 * one sender and needs no lock. Returns 0 or -EINVAL. */
int vfwd_plan_build(struct vfwd_plan *plan, const struct vfwd_pair *pairs, uint16_t nb_pairs,
		    uint16_t nb_rxq, uint16_t nb_workers);
/* The pipeline: nb_rx rx lcores share the queues as vfwd_plan_build would;
 * nb_work work lcores follow, work lcore k sending on tx queue k of every
 * port (so nb_txq >= nb_work). Returns 0 or -EINVAL. */
int vfwd_plan_build_pipeline(struct vfwd_plan *plan, const struct vfwd_pair *pairs,
			     uint16_t nb_pairs, uint16_t nb_rxq, uint16_t nb_rx, uint16_t nb_work);

#endif /* VFWD_PLAN_H */
#endif /* VFWD_H */
