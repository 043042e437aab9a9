/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The rx stage: a stream's next burst from its port (vfwd_port_rx), its
 * length and the one walk over it that says whether any packet needs more
 * than forwarding (the prep stage toward the wire, the guest's MTU toward
 * the VM), counted.
 */
#ifndef VFWD_STAGE_RX_H
#define VFWD_STAGE_RX_H

#include <rte_mbuf.h>

#include "vfwd_stage_tx.h"

/* The total length of pkts[0..n) and whether one of them needs more than
 * forwarding: toward the wire vfwd_wire_tx_prepare(), toward the VM a
 * frame longer than the guest's MTU. One walk over the burst for both.
 * prep NULL: the length only (the pipeline's rx lcore, which does not
 * process what it receives). */
static inline uint64_t
burst_len_prep(const struct vfwd_worker *w, uint16_t i, struct rte_mbuf **pkts, uint16_t n,
	       bool *prep)
{
	uint64_t bytes = 0;
	bool p = false;

	if (prep != NULL && w->streams[i].s.dir == VFWD_DIR_VM_TO_WIRE) {
		p = vfwd_wire_burst_needs_prep(&w->streams[i].off.wire_tx, pkts, n, &bytes);
	} else if (prep != NULL) {
		/* the guest's MTU (vhost thread: --mtu, or what it announced) */
		uint16_t vm_frame = w->port_state[w->streams[i].s.tx_port].max_frame;
		uint32_t longest = 0;

		for (uint16_t j = 0; j < n; j++) {
			uint32_t len = rte_pktmbuf_pkt_len(pkts[j]);

			bytes += len;
			longest = len > longest ? len : longest;
			/* keeps longest in a register: GCC 12 otherwise
			 * "vectorises" the maximum one lane wide, through a
			 * store and a reload each packet */
			__asm__("" : "+r"(longest));
		}
		p = longest > vm_frame;
	} else {
		bytes = sum_pkt_len(pkts, n);
	}
	if (prep != NULL)
		*prep = p;
	return bytes;
}

/* Stream i's next burst, counted; prep as burst_len_prep(). */
static inline uint16_t
receive(const struct vfwd_worker *w, uint16_t i, uint16_t want, struct rte_mbuf **pkts,
	uint64_t *bytes, bool *prep, struct vfwd_dir_stats *d)
{
	const struct vfwd_stream *s = &w->streams[i].s;
	const struct vfwd_port_state *rx_st = &w->port_state[s->rx_port];
	struct vfwd_stream_stats *ss = w->streams[i].stats;
	uint16_t nb_rx = 0;

	if (likely(vfwd_port_callable(s->rx_port, rx_st)))
		nb_rx = vfwd_port_rx(s->rx_port, rx_st, s->rx_queue, pkts, want);

	*bytes = burst_len_prep(w, i, pkts, nb_rx, prep);
	vfwd_port_rx_counted(rx_st, s->rx_queue, nb_rx, *bytes);
	d->rx_burst_hist[nb_rx]++;
	d->rx_pkts += nb_rx;
	d->rx_bytes += *bytes;
	ss->rx_pkts += nb_rx;
	ss->rx_bytes += *bytes;
	return nb_rx;
}

#endif /* VFWD_STAGE_RX_H */
