/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The prep stage toward the wire (what vhost_net + tap do): a guest's TSO
 * frames cut and partial checksums completed (offload/vfwd_offload.c),
 * then the hold. Bursts that need none of it go straight on.
 */
#ifndef VFWD_STAGE_PREP_H
#define VFWD_STAGE_PREP_H

#include "vfwd_stage_hold.h"

/* The drops vfwd_wire_tx_prepare() counts. It has the dir's counters
 * only, not the stream's: the stream gets the difference across its
 * calls. send_burst() never counts these causes, so a difference across
 * a loop that also sends is still prepare's alone. */
static inline uint64_t
offload_drops(const struct vfwd_dir_stats *d)
{
	return d->drops[VFWD_DROP_BAD_GSO] + d->drops[VFWD_DROP_BAD_CSUM] +
	       d->drops[VFWD_DROP_NO_MBUF] + d->drops[VFWD_DROP_OVERSIZE];
}

/* VM -> wire: what vhost_net + tap do with a guest's TSO frames and
 * partial checksums, then send. */
static inline void
process_to_wire(struct vfwd_worker *w, uint16_t i, const struct vfwd_knobs *k,
		struct rte_mbuf **pkts, uint16_t nb_rx, uint64_t bytes, bool prep, uint64_t now,
		struct vfwd_dir_stats *d)
{
	const struct vfwd_wire_tx *wtx = &w->streams[i].off.wire_tx;
	struct rte_mbuf *out[VFWD_MAX_BURST + VFWD_GSO_MAX_SEGS];
	struct vfwd_stream_stats *ss;
	uint64_t lost, added;
	uint16_t no = 0;

	if (likely(!prep)) {
		send_burst(w, i, k, pkts, nb_rx, bytes, now, d);
		return;
	}
	ss = w->streams[i].stats;
	lost = offload_drops(d);
	added = d->gso_segs - d->gso_sw_frames;
	for (uint16_t j = 0; j < nb_rx; j++) {
		if (no + VFWD_GSO_MAX_SEGS > (int)RTE_DIM(out)) {
			send_burst(w, i, k, out, no, sum_pkt_len(out, no), now, d);
			no = 0;
		}
		no += vfwd_wire_tx_prepare(wtx, pkts[j], out + no, RTE_DIM(out) - no, d);
	}
	ss->drops += offload_drops(d) - lost;
	ss->segs_added += d->gso_segs - d->gso_sw_frames - added;
	send_burst(w, i, k, out, no, sum_pkt_len(out, no), now, d);
}

#endif /* VFWD_STAGE_PREP_H */
