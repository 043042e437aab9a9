/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One received burst of a stream through its direction's stage: prep
 * toward the wire, GRO toward the VM (direct delivery, and the backlog's
 * and the pipeline's later pass).
 */
#ifndef VFWD_STAGE_FORWARD_H
#define VFWD_STAGE_FORWARD_H

#include "vfwd_stage_gro.h"
#include "vfwd_stage_prep.h"

/* prep: whether a packet needs more than forwarding (burst_len_prep). */
static inline uint32_t
process(struct vfwd_worker *w, uint16_t i, const struct vfwd_knobs *k, struct rte_mbuf **pkts,
	uint16_t n, uint64_t bytes, bool prep, uint64_t now)
{
	const struct vfwd_stream *s = &w->streams[i].s;
	struct vfwd_dir_stats *d = &w->stats.dir[s->dir];

	if (s->dir == VFWD_DIR_VM_TO_WIRE) {
		process_to_wire(w, i, k, pkts, n, bytes, prep, now, d);
		return 0;
	}
	return process_to_vm(w, i, k, pkts, n, bytes, prep, now, d);
}

#endif /* VFWD_STAGE_FORWARD_H */
