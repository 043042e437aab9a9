/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The tx-batch hold (vhost_net's tx batching, OVS's tx-flush-interval):
 * what a stage produced goes to the tx stage now, or waits in the
 * stream's hold for tx_batch packets, tx_flush_us or an empty rx. Also
 * the held_in/held_out counters every holding place shares (the hold, the
 * backlog, the pipeline rings).
 */
#ifndef VFWD_STAGE_HOLD_H
#define VFWD_STAGE_HOLD_H

#include <string.h>

#include "vfwd_latency.h"
#include "vfwd_stage_tx.h"

/* What goes into and out of a tx hold, the backlog or a pipeline ring
 * (stream and direction), so that the counters say what waits there. */
static inline void
held_in(struct vfwd_worker_stream *ws, struct vfwd_dir_stats *d, uint32_t n)
{
	ws->stats->held_in += n;
	d->held_in += n;
}

static inline void
held_out(struct vfwd_worker_stream *ws, struct vfwd_dir_stats *d, uint32_t n)
{
	ws->stats->held_out += n;
	d->held_out += n;
}

/* Tx batching (vhost_net's tx batching / OVS tx-flush-interval twin): the
 * hold goes out when tx_batch packets wait (in sends of tx_batch), when the
 * oldest waited tx_flush_us or when the stream's rx ran empty (vhost_net
 * sends its batch when the ring has no more; OVS keeps it for the
 * interval: tx_hold_idle). */
static inline void
hold_flush(struct vfwd_worker *w, struct vfwd_worker_stream *ws, const struct vfwd_knobs *k,
	   uint64_t now, struct vfwd_dir_stats *d)
{
	struct vfwd_tx_hold *h = ws->hold;

	held_out(ws, d, h->n);
	lat_take_tsc(w, VFWD_LAT_TX_HOLD, h->in_tsc, h->n, now);
	tx_now(w, ws, k, h->pkts, h->n, h->bytes, d);
	h->n = 0;
	h->bytes = 0;
}

/* Hand what a stage produced to the tx side of stream i. */
static inline void
send_burst(struct vfwd_worker *w, uint16_t i, const struct vfwd_knobs *k,
	   struct rte_mbuf **pkts, uint16_t n, uint64_t bytes, uint64_t now,
	   struct vfwd_dir_stats *d)
{
	struct vfwd_worker_stream *ws = &w->streams[i];
	struct vfwd_tx_hold *h = ws->hold;
	uint16_t batch = k->tx_batch;

	if (likely(batch <= 1 || h == NULL)) {
		if (unlikely(h != NULL && h->n)) {
			/* batching was just switched off: older packets first */
			d->tx_flush_empty++;
			hold_flush(w, ws, k, now, d);
		}
		tx_now(w, ws, k, pkts, n, bytes, d);
		return;
	}
	if (n == 0)
		return;
	if (h->n == 0)
		h->since_tsc = now;
	if (unlikely(h->n + n > VFWD_TX_HOLD_CAP)) {
		/* more than the hold takes: send what waits first */
		d->tx_flush_full++;
		hold_flush(w, ws, k, now, d);
		h->since_tsc = now;
		if (n > VFWD_TX_HOLD_CAP) {
			tx_now(w, ws, k, pkts, n, bytes, d);
			return;
		}
	}
	memcpy(&h->pkts[h->n], pkts, n * sizeof(pkts[0]));
	lat_stamp_tsc(w, &h->in_tsc[h->n], n, now);
	h->n += n;
	h->bytes += bytes;
	held_in(ws, d, n);
	while (h->n >= batch) {
		uint64_t b = sum_pkt_len(h->pkts, batch);

		d->tx_flush_full++;
		held_out(ws, d, batch);
		lat_take_tsc(w, VFWD_LAT_TX_HOLD, h->in_tsc, batch, now);
		tx_now(w, ws, k, h->pkts, batch, b, d);
		h->n -= batch;
		h->bytes -= b;
		memmove(h->pkts, h->pkts + batch, h->n * sizeof(h->pkts[0]));
		if (w->lat_on)
			memmove(h->in_tsc, h->in_tsc + batch, h->n * sizeof(h->in_tsc[0]));
		h->since_tsc = now;
	}
}

/* After a visit: send the hold if the rx side ran empty (unless the hold
 * outlasts idle polls), its time is up, or batching was switched off. */
static inline void
hold_check(struct vfwd_worker *w, uint16_t i, const struct vfwd_knobs *k, bool rx_empty,
	   uint64_t now, struct vfwd_dir_stats *d)
{
	struct vfwd_tx_hold *h = w->streams[i].hold;

	if (h == NULL || h->n == 0)
		return;
	if ((rx_empty && !k->tx_hold_idle) || k->tx_batch <= 1)
		d->tx_flush_empty++;
	else if (now - h->since_tsc >= w->tx_flush_tsc)
		d->tx_flush_timer++;
	else
		return;
	hold_flush(w, &w->streams[i], k, now, d);
}

/* At exit: the hold goes whatever the knobs say (counted as an empty rx's
 * flush: nothing more comes). */
static inline void
hold_send_all(struct vfwd_worker *w, uint16_t i, const struct vfwd_knobs *k, uint64_t now,
	      struct vfwd_dir_stats *d)
{
	struct vfwd_tx_hold *h = w->streams[i].hold;

	if (h == NULL || h->n == 0)
		return;
	d->tx_flush_empty++;
	hold_flush(w, &w->streams[i], k, now, d);
}

#endif /* VFWD_STAGE_HOLD_H */
