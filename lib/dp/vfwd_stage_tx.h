/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The tx stage: a burst handed to the port (vfwd_port_tx: ethdev, or
 * librte_vhost on the lib path) with the retries the knobs allow, counted
 * as sent or dropped by cause; toward a guest that --notify holds, the
 * notification hook beside it (vfwd_notify.h). Part of the worker
 * (vfwd_stages.h); static inline, as a PMD's burst functions are.
 */
#ifndef VFWD_STAGE_TX_H
#define VFWD_STAGE_TX_H

#include <rte_cycles.h>
#include <rte_mbuf.h>

#include "vfwd_latency.h"
#include "vfwd_notify.h"
#include "vfwd_worker.h"

static inline bool
stream_tx_ready(const struct vfwd_worker *w, const struct vfwd_stream *s)
{
	const struct vfwd_port_state *ps = &w->port_state[s->tx_port];

	if (!ps->is_vhost)
		return vfwd_port_callable(s->tx_port, ps);
	return ps->link_up && ps->txq_enabled[s->tx_queue];
}

/* Whether what a wire port did not take was tx_full (up) or peer_down. A
 * wire port is sent to even while its link is down (but for gated ones):
 * control polls the link (vfwd_port_wire_link_poll) and only tells the
 * cause after the fact, a few ms late. A gated port's gate is fresher:
 * the worker opens it as soon as the link is up. */
static inline bool
port_up(const struct vfwd_port_state *ps)
{
	return ps->gated ? (ps->pmd_gate & 1) : ps->link_up;
}

static inline uint64_t
sum_pkt_len(struct rte_mbuf **pkts, uint16_t n)
{
	uint64_t bytes = 0;

	for (uint16_t i = 0; i < n; i++)
		bytes += rte_pktmbuf_pkt_len(pkts[i]);
	return bytes;
}

/* Sends the guest notification nq holds (vfwd_notify.h), if its device is
 * still st's. */
static inline void
notify_send(struct vfwd_notify_q *nq, const struct vfwd_port_state *st,
	    const struct vfwd_knobs *k, uint64_t now)
{
	vfwd_notify_sent(nq, k, vfwd_vhost_lib_notify(st, nq), now);
}

/* Once a round while notifications are held or adaptive watches the
 * rate; all: send every held one (a stop). */
static inline void
notify_due(struct vfwd_worker *w, const struct vfwd_knobs *k, uint64_t now, bool all)
{
	for (uint16_t i = 0; i < w->nb_streams; i++) {
		struct vfwd_notify_q *nq = &w->streams[i].notify;
		const struct vfwd_port_state *st = &w->port_state[w->streams[i].s.tx_port];

		/* one held for a device that went goes now (to nobody): the
		 * queue holds none then, and the next device starts afresh */
		bool gone = nq->pending && __atomic_load_n(&st->vid, __ATOMIC_ACQUIRE) != nq->vid;

		if (st->notify_ok && vfwd_notify_due(nq, k, &w->notify_clock, now, all || gone))
			notify_send(nq, st, k, now);
	}
}

/* Send now, bytes being the total length; count it as sent or dropped. */
static inline void
tx_now(struct vfwd_worker *w, struct vfwd_worker_stream *ws, const struct vfwd_knobs *k,
       struct rte_mbuf **pkts, uint16_t n, uint64_t bytes, struct vfwd_dir_stats *d)
{
	const struct vfwd_stream *s = &ws->s;
	const struct vfwd_port_state *tx_st = &w->port_state[s->tx_port];
	struct vfwd_stream_stats *ss = ws->stats;
	struct vfwd_notify_q *nq = NULL;
	bool was_pending = false;
	uint16_t nb_tx;

	if (n == 0)
		return;
	if (unlikely(!stream_tx_ready(w, s))) {
		rte_pktmbuf_free_bulk(pkts, n);
		d->drops[VFWD_DROP_PEER_DOWN] += n;
		ss->drops += n;
		return;
	}
	d->tx_burst_hist[RTE_MIN(n, VFWD_MAX_BURST)]++;
	if (unlikely(k->notify != VFWD_NOTIFY_IMMEDIATE) && tx_st->notify_ok) {
		nq = &ws->notify;
		was_pending = nq->pending;
	}
	nb_tx = vfwd_port_tx(s->tx_port, tx_st, s->tx_queue, pkts, n, nq);
	/* Retry only while the peer makes room (as OVS does for vhost): a
	 * full ring that took nothing gives up at once instead of spinning
	 * on the ring's cache lines and slowing the peer that drains it. */
	if (unlikely(nb_tx < n) && nb_tx && k->tx_retry) {
		uint16_t first = nb_tx;
		uint64_t t0 = w->lat_on ? rte_rdtsc() : 0;

		for (uint16_t retry = 0, last = nb_tx; nb_tx < n && last && retry < k->tx_retry;
		     retry++) {
			last = vfwd_port_tx(s->tx_port, tx_st, s->tx_queue, pkts + nb_tx, n - nb_tx,
					    nq);
			nb_tx += last;
		}
		/* each packet the first send left waited the retries (those
		 * taken early a little less) */
		if (w->lat_on)
			vfwd_lat_add_n(&w->stats.lat[VFWD_LAT_TX_WAIT], rte_rdtsc() - t0, n - first);
	}
	if (nq != NULL && vfwd_notify_after_tx(nq, k, was_pending, nb_tx))
		notify_send(nq, tx_st, k, rte_rdtsc());
	if (unlikely(nb_tx < n)) {
		bytes -= sum_pkt_len(pkts + nb_tx, n - nb_tx);
		rte_pktmbuf_free_bulk(pkts + nb_tx, n - nb_tx);
		d->drops[port_up(tx_st) ? VFWD_DROP_TX_FULL : VFWD_DROP_PEER_DOWN] += n - nb_tx;
		ss->drops += n - nb_tx;
	}
	vfwd_port_tx_counted(tx_st, s->tx_queue, nb_tx, bytes);
	d->tx_bytes += bytes;
	d->tx_pkts += nb_tx;
	ss->tx_bytes += bytes;
	ss->tx_pkts += nb_tx;
}

#endif /* VFWD_STAGE_TX_H */
