/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The GRO stage toward the VM (NAPI GRO's twin): frames over the guest's
 * MTU dropped, segments merged (offload/vfwd_gro.c) when the guest takes
 * GSO frames, heavy mode's held segments flushed by time or an empty
 * queue, then the hold.
 */
#ifndef VFWD_STAGE_GRO_H
#define VFWD_STAGE_GRO_H

#include "vfwd_latency.h"
#include "vfwd_stage_hold.h"

/* Heavy GRO: send what it held, all of it or what waited too long. */
static inline uint32_t
flush_held(struct vfwd_worker *w, uint16_t i, const struct vfwd_knobs *k, bool all,
	   uint64_t now, struct vfwd_dir_stats *d)
{
	struct rte_mbuf *out[VFWD_GRO_HOLD_MAX];
	/* a timeout of 0 flushes everything */
	uint64_t timeout = all ? 0 : w->gro_flush_tsc;
	uint64_t gro_out = d->gro_out; /* GRO counts for the dir: the stream's is the difference */
	uint16_t n = vfwd_gro_flush(&w->streams[i].off.gro, timeout, now, out,
				    RTE_DIM(out), d);

	w->streams[i].stats->gro_out += d->gro_out - gro_out;
	lat_take(w, VFWD_LAT_GRO, out, n, now, false);
	send_burst(w, i, k, out, n, sum_pkt_len(out, n), now, d);
	return n;
}

/* wire -> VM: GRO (the NAPI GRO twin) when the guest takes GSO frames.
 * pkts has room for VFWD_GRO_HOLD_MAX more than nb_rx. nb_rx = 0 says the
 * queue ran empty. Returns packets sent on from GRO's held ones. */
static inline uint32_t
process_to_vm(struct vfwd_worker *w, uint16_t i, const struct vfwd_knobs *k,
	      struct rte_mbuf **pkts, uint16_t nb_rx, uint64_t bytes, bool prep, uint64_t now,
	      struct vfwd_dir_stats *d)
{
	const struct vfwd_stream *s = &w->streams[i].s;
	struct vfwd_gro *gro = &w->streams[i].off.gro;
	uint8_t kinds = w->port_state[s->tx_port].guest_gso;
	bool gro_on = k->gro.enabled && kinds != 0;
	bool heavy = k->gro.mode == VFWD_GRO_HEAVY;
	uint16_t n = nb_rx;
	uint32_t moved = 0;

	if (unlikely(prep)) {
		/* frames longer than the guest's MTU: dropped before GRO, so
		 * merged frames hold only segments it takes */
		uint64_t over = d->drops[VFWD_DROP_OVERSIZE];

		n = vfwd_vm_drop_oversize(pkts, nb_rx, w->port_state[s->tx_port].max_frame, d);
		w->streams[i].stats->drops += d->drops[VFWD_DROP_OVERSIZE] - over;
		if (n < nb_rx)
			bytes = sum_pkt_len(pkts, n);
	}

	if (unlikely(gro->may_hold && vfwd_gro_held(gro))) {
		/* held segments never wait for new traffic when GRO was
		 * switched off or away from heavy mode, or (napi_complete)
		 * the queue ran empty; else what waited gro-flush-us goes */
		bool all = !gro_on || !heavy ||
			   (nb_rx == 0 && k->gro.flush == VFWD_GRO_FLUSH_COMPLETE);

		moved = flush_held(w, i, k, all, now, d);
	}
	if (n && gro_on) {
		struct vfwd_stream_stats *ss = w->streams[i].stats;
		uint64_t gro_in = d->gro_in, gro_out = d->gro_out;

		/* heavy: what it sends on, now or later, waited since this
		 * poll (0 for what it does not hold) */
		if (heavy)
			lat_stamp(w, pkts, n, now);
		n = vfwd_gro_burst(gro, &k->gro, kinds, pkts, n, now, d);
		/* napi_complete_done: a poll that ran the queue empty sends
		 * all GRO holds (gro_flush_timeout 0) */
		if (heavy && k->gro.flush == VFWD_GRO_FLUSH_COMPLETE && nb_rx < k->burst &&
		    gro->may_hold)
			n += vfwd_gro_flush(gro, 0, now, pkts + n, VFWD_GRO_HOLD_MAX, d);
		if (heavy)
			lat_take(w, VFWD_LAT_GRO, pkts, n, now, false);
		bytes = sum_pkt_len(pkts, n); /* merging changed the headers */
		ss->gro_in += d->gro_in - gro_in;
		ss->gro_out += d->gro_out - gro_out;
	}
	send_burst(w, i, k, pkts, n, bytes, now, d);
	return moved;
}

#endif /* VFWD_STAGE_GRO_H */
