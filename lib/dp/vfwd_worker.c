/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The fast path: each worker lcore polls its streams in bursts and forwards
 * run-to-completion. No allocation, locks, locked instructions or printing;
 * stats go to the worker's own cache-aligned struct.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_ip.h>
#include <rte_jhash.h>
#include <rte_launch.h>
#include <rte_malloc.h>
#include <rte_pause.h>
#include <rte_ring.h>

#include "vfwd_notify.h"
#include "vfwd_worker.h"

/* Control, with the worker stopped. The counters are not touched: the
 * telemetry thread may be reading them right now (a memset here once
 * showed it zeros, and counters - base near 2^64). stats_gen is odd while
 * the rest is rewritten, so that vfwd_worker_stats_read() can tell. */
int
vfwd_worker_init(struct vfwd_worker *w, unsigned int lcore_id, const struct vfwd_plan_lcore *pl,
		 const struct vfwd_port_state *port_state, const struct vfwd_knobs *knobs)
{
	int socket = lcore_id < RTE_MAX_LCORE ? (int)rte_lcore_to_socket_id(lcore_id) : SOCKET_ID_ANY;
	/* as many as the plan gives it, not VFWD_MAX_STREAMS: usually two */
	struct vfwd_worker_stream *streams =
		rte_zmalloc_socket("vfwd_streams", RTE_MAX(pl->nb_streams, 1) * sizeof(*streams),
				   RTE_CACHE_LINE_SIZE, socket);
	uint32_t gen = w->stats_gen; /* control is its only writer */

	if (streams == NULL)
		return -ENOMEM;
	for (uint16_t i = 0; i < pl->nb_streams; i++) {
		const struct vfwd_stream *s = &pl->streams[i];

		streams[i].s = *s;
		streams[i].stats = &w->stats.stream[vfwd_stream_key(s->pair, s->rx_queue, s->dir)];
	}
	rte_free(w->streams); /* a re-init: its offload and queues were fini'd */
	__atomic_store_n(&w->stats_gen, gen | 1, __ATOMIC_RELAXED);
	rte_smp_wmb();
	memset(w, 0, offsetof(struct vfwd_worker, stats_gen));
	w->lcore_id = lcore_id;
	w->role = pl->role;
	w->nb_streams = pl->nb_streams;
	w->streams = streams;
	for (uint16_t i = 0; i < pl->nb_streams; i++) {
		streams[i].notify.vid = -1;
		streams[i].notify.nb_pending = &w->notify_nb_pending;
		streams[i].notify.stats = streams[i].stats;
	}
	w->port_state = port_state;
	w->knob_slot[0] = *knobs;
	w->tsc_per_us = rte_get_tsc_hz() / 1000000;
	/* release: a reader that sees the even value sees the new struct */
	__atomic_store_n(&w->stats_gen, (gen | 1) + 1, __ATOMIC_RELEASE);
	return 0;
}

void
vfwd_worker_fini(struct vfwd_worker *w)
{
	rte_free(w->streams);
	w->streams = NULL;
	w->nb_streams = 0;
}

int
vfwd_worker_stats_read(const struct vfwd_worker *w, struct vfwd_lcore_stats *out)
{
	const volatile uint64_t *src = (const volatile uint64_t *)&w->stats;
	uint64_t *dst = (uint64_t *)out;
	uint64_t deadline = 0;

	for (;;) {
		uint32_t g = __atomic_load_n(&w->stats_gen, __ATOMIC_ACQUIRE);

		if (!(g & 1)) {
			/* one aligned 64-bit load per counter: none torn */
			for (size_t i = 0; i < sizeof(*out) / sizeof(uint64_t); i++)
				dst[i] = src[i];
			/* the copy's loads before the second look at the gen */
			__atomic_thread_fence(__ATOMIC_ACQUIRE);
			if (__atomic_load_n(&w->stats_gen, __ATOMIC_RELAXED) == g)
				return 0;
		}
		if (deadline == 0)
			deadline = rte_get_timer_cycles() + rte_get_timer_hz() / 1000;
		else if (rte_get_timer_cycles() > deadline)
			return -EAGAIN;
		rte_pause();
	}
}

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

/* ------------------------------------------------------------------ send */

/* Sends the guest notification nq holds (vfwd_notify.h), if its device is
 * still st's. */
static void
notify_send(struct vfwd_notify_q *nq, const struct vfwd_port_state *st,
	    const struct vfwd_knobs *k, uint64_t now)
{
	vfwd_notify_sent(nq, k, vfwd_vhost_lib_notify(st, nq), now);
}

/* Once a round while notifications are held or adaptive watches the
 * rate; all: send every held one (a stop). */
static void
notify_due(struct vfwd_worker *w, const struct vfwd_knobs *k, uint64_t now, bool all)
{
	for (uint16_t i = 0; i < w->nb_streams; i++) {
		struct vfwd_notify_q *nq = &w->streams[i].notify;
		const struct vfwd_port_state *st = &w->port_state[w->streams[i].s.tx_port];

		if (st->notify_ok && vfwd_notify_due(nq, k, &w->notify_clock, now, all))
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
	for (uint16_t retry = 0, last = nb_tx; nb_tx < n && last && retry < k->tx_retry; retry++) {
		last = vfwd_port_tx(s->tx_port, tx_st, s->tx_queue, pkts + nb_tx, n - nb_tx, nq);
		nb_tx += last;
	}
	if (nq != NULL && vfwd_notify_after_tx(nq, k, was_pending, nb_tx))
		notify_send(nq, tx_st, k, rte_rdtsc());
	if (unlikely(nb_tx < n)) {
		bytes -= sum_pkt_len(pkts + nb_tx, n - nb_tx);
		rte_pktmbuf_free_bulk(pkts + nb_tx, n - nb_tx);
		d->drops[port_up(tx_st) ? VFWD_DROP_TX_FULL : VFWD_DROP_PEER_DOWN] += n - nb_tx;
		ss->drops += n - nb_tx;
	}
	d->tx_bytes += bytes;
	d->tx_pkts += nb_tx;
	ss->tx_bytes += bytes;
	ss->tx_pkts += nb_tx;
}

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
 * oldest waited tx_flush_us or when the stream's rx ran empty. */
static inline void
hold_flush(struct vfwd_worker *w, struct vfwd_worker_stream *ws, const struct vfwd_knobs *k,
	   struct vfwd_dir_stats *d)
{
	struct vfwd_tx_hold *h = ws->hold;

	held_out(ws, d, h->n);
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
			hold_flush(w, ws, k, d);
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
		hold_flush(w, ws, k, d);
		h->since_tsc = now;
		if (n > VFWD_TX_HOLD_CAP) {
			tx_now(w, ws, k, pkts, n, bytes, d);
			return;
		}
	}
	memcpy(&h->pkts[h->n], pkts, n * sizeof(pkts[0]));
	h->n += n;
	h->bytes += bytes;
	held_in(ws, d, n);
	while (h->n >= batch) {
		uint64_t b = sum_pkt_len(h->pkts, batch);

		d->tx_flush_full++;
		held_out(ws, d, batch);
		tx_now(w, ws, k, h->pkts, batch, b, d);
		h->n -= batch;
		h->bytes -= b;
		memmove(h->pkts, h->pkts + batch, h->n * sizeof(h->pkts[0]));
		h->since_tsc = now;
	}
}

/* After a visit: send the hold if the rx side ran empty, its time is up,
 * or batching was switched off. */
static inline void
hold_check(struct vfwd_worker *w, uint16_t i, const struct vfwd_knobs *k, bool rx_empty,
	   uint64_t now, struct vfwd_dir_stats *d)
{
	struct vfwd_tx_hold *h = w->streams[i].hold;

	if (h == NULL || h->n == 0)
		return;
	if (rx_empty || k->tx_batch <= 1)
		d->tx_flush_empty++;
	else if (now - h->since_tsc >= w->tx_flush_tsc)
		d->tx_flush_timer++;
	else
		return;
	hold_flush(w, &w->streams[i], k, d);
}

/* ------------------------------------------------------------ the stages */

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
	d->rx_burst_hist[nb_rx]++;
	d->rx_pkts += nb_rx;
	d->rx_bytes += *bytes;
	ss->rx_pkts += nb_rx;
	ss->rx_bytes += *bytes;
	return nb_rx;
}

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

		n = vfwd_gro_burst(gro, &k->gro, kinds, pkts, n, now, d);
		/* napi_complete_done: a poll that ran the queue empty sends
		 * all GRO holds (gro_flush_timeout 0) */
		if (heavy && k->gro.flush == VFWD_GRO_FLUSH_COMPLETE && nb_rx < k->burst &&
		    gro->may_hold)
			n += vfwd_gro_flush(gro, 0, now, pkts + n, VFWD_GRO_HOLD_MAX, d);
		bytes = sum_pkt_len(pkts, n); /* merging changed the headers */
		ss->gro_in += d->gro_in - gro_in;
		ss->gro_out += d->gro_out - gro_out;
	}
	send_burst(w, i, k, pkts, n, bytes, now, d);
	return moved;
}

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

/* ------------------------------------------------------------ delivery */

/* Deferred delivery (the netif_rx twin): a burst goes onto the lcore's
 * backlog ring, tagged with its stream; what does not fit is dropped. */
static inline void
backlog_put(struct vfwd_worker *w, uint16_t i, struct rte_mbuf **pkts, uint16_t n,
	    struct vfwd_dir_stats *d)
{
	unsigned int q;

	for (uint16_t j = 0; j < n; j++)
		pkts[j]->hash.usr = i;
	q = rte_ring_enqueue_burst(w->backlog, (void **)pkts, n, NULL);
	w->stats.backlog_enq += q;
	w->streams[i].backlog_pending += q;
	held_in(&w->streams[i], d, q);
	if (unlikely(q < n)) {
		rte_pktmbuf_free_bulk(pkts + q, n - q);
		d->drops[VFWD_DROP_BACKLOG] += n - q;
		w->streams[i].stats->drops += n - q;
		w->stats.backlog_drops += n - q;
	}
}

/* Packets taken off the backlog (from_backlog) or a pipeline ring, tagged
 * with their stream (mbuf hash.usr): each run of one stream counted out of
 * the hold and processed as a burst. Returns what GRO sent on from its
 * held packets. */
static inline uint32_t
process_tagged(struct vfwd_worker *w, const struct vfwd_knobs *k, struct rte_mbuf **pkts,
	       unsigned int n, bool from_backlog, uint64_t now)
{
	uint32_t moved = 0;

	for (unsigned int start = 0; start < n;) {
		uint16_t i = (uint16_t)pkts[start]->hash.usr;
		struct vfwd_worker_stream *ws = &w->streams[i];
		unsigned int end = start + 1;
		/* GRO may hand back more than the run: room for that */
		struct rte_mbuf *run[VFWD_MAX_BURST + VFWD_GRO_HOLD_MAX];

		while (end < n && pkts[end]->hash.usr == i)
			end++;
		uint64_t bytes;
		bool prep;

		held_out(ws, &w->stats.dir[ws->s.dir], end - start);
		if (from_backlog)
			ws->backlog_pending -= end - start;
		memcpy(run, pkts + start, (end - start) * sizeof(run[0]));
		bytes = burst_len_prep(w, i, run, (uint16_t)(end - start), &prep);
		moved += process(w, i, k, run, end - start, bytes, prep, now);
		start = end;
	}
	return moved;
}

/* The later pass: up to quota packets (at most VFWD_MAX_BURST) off the
 * backlog, each run of one stream processed as a burst. Returns the
 * packets taken off; *moved += those and what GRO sent on from its held
 * ones. */
static inline unsigned int
backlog_drain(struct vfwd_worker *w, const struct vfwd_knobs *k, unsigned int quota,
	      uint64_t now, uint32_t *moved)
{
	struct rte_mbuf *pkts[VFWD_MAX_BURST];
	unsigned int n = rte_ring_dequeue_burst(w->backlog, (void **)pkts,
						RTE_MIN(quota, (unsigned int)VFWD_MAX_BURST), NULL);

	w->stats.backlog_deq += n;
	*moved += n + process_tagged(w, k, pkts, n, true, now);
	return n;
}

/* How much one round takes off the backlog (the process_backlog twin).
 *
 * The kernel: netif_rx() queues onto the CPU's backlog, a NAPI instance
 * like the devices' with weight dev_rx_weight (64, napi-weight here).
 * net_rx_action() polls each instance on its list for up to its weight
 * and puts one that used all of it back at the tail, round and round
 * while budget is left: each poll may take a whole weight, and the loop
 * stops once netdev_budget (300, round-budget) is used up. So per softirq
 * the backlog is not held to one weight: it is polled again after every
 * pass over the device instances that keep feeding it, up to
 * ceil(budget / weight) times (5 x 64 = 320 with the defaults).
 *
 * Here one round is one pass: each stream visited once (the device
 * polls), then the backlog. It gets one poll of a weight for every stream
 * that fed it in the round (at least one, for what an earlier round
 * left), and no more polls than the round budget starts (in every rx
 * mode; none is ever cut below a weight, so a budget under the weight
 * still drains a weight). Any number of streams that each bring up to a
 * weight a round then keep it from overflowing, which one weight shared
 * by all did not with 3 or more; beyond the budget it overflows and
 * counts backlog drops, where the kernel too lets netdev_max_backlog
 * drop. The budget is the backlog's own: the visits' packets, which the
 * kernel would count against the same softirq, are not taken off it (a
 * deferred visit is the device's netif_rx, not its processing).
 * round-budget-us does not cut the drain: it is bounded in packets. */
static inline unsigned int
backlog_quota(const struct vfwd_knobs *k, unsigned int feeders)
{
	unsigned int weight = RTE_MAX(k->napi_weight, 1);
	unsigned int polls = RTE_MAX(feeders, 1u);

	if (k->round_budget)
		polls = RTE_MIN(polls, (k->round_budget + weight - 1) / weight);
	return polls * weight;
}

/* Deferred delivery, after the round's drain: GRO's held segments and the
 * tx holds of each stream leave as with direct delivery. A stream is idle
 * when its rx queue came back empty at its last visit (or the backlog ran
 * dry) and none of its packets wait on the backlog any more: then all it
 * holds goes; otherwise what waited gro-flush-us / tx-flush-us. Held
 * segments are older than anything of their stream still on the backlog,
 * so sending them first keeps each stream's order. */
static inline uint32_t
backlog_flush_streams(struct vfwd_worker *w, const struct vfwd_knobs *k, uint64_t now)
{
	bool dry = rte_ring_count(w->backlog) == 0;
	uint32_t moved = 0;

	for (uint16_t i = 0; i < w->nb_streams; i++) {
		struct vfwd_dir_stats *d = &w->stats.dir[w->streams[i].s.dir];
		bool idle = w->streams[i].backlog_pending == 0 && (dry || w->streams[i].rx_idle);

		if (w->streams[i].s.dir == VFWD_DIR_WIRE_TO_VM &&
		    unlikely(vfwd_gro_held(&w->streams[i].off.gro))) {
			if (idle)
				moved += process(w, i, k, NULL, 0, 0, false, now);
			else
				moved += flush_held(w, i, k, false, now, d);
		}
		hold_check(w, i, k, idle, now, d);
	}
	return moved;
}

/* -------------------------------------------------------------- pipeline */

/* A flow's hash (RPS style): IPv4/IPv6 addresses and TCP/UDP ports, so
 * that one flow always goes to one work lcore, in order. Others: 0. */
static inline uint32_t
flow_hash(const struct rte_mbuf *m)
{
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
	uint32_t len = rte_pktmbuf_data_len(m), off = 14;
	uint16_t type;

	if (len < 14)
		return 0;
	type = (uint16_t)(p[12] << 8 | p[13]);
	if (type == RTE_ETHER_TYPE_VLAN && len >= 18) {
		type = (uint16_t)(p[16] << 8 | p[17]);
		off = 18;
	}
	if (type == RTE_ETHER_TYPE_IPV4 && len >= off + 20) {
		const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)(p + off);
		uint32_t ihl = (ip->version_ihl & 0xf) * 4u, ports = 0;

		if ((ip->next_proto_id == IPPROTO_TCP || ip->next_proto_id == IPPROTO_UDP) &&
		    !(ip->fragment_offset & rte_cpu_to_be_16(0x3fff)) && ihl >= 20 &&
		    len >= off + ihl + 4)
			memcpy(&ports, p + off + ihl, 4);
		return rte_jhash_3words(ip->src_addr, ip->dst_addr, ports ^ ip->next_proto_id, 0);
	}
	if (type == RTE_ETHER_TYPE_IPV6 && len >= off + 40) {
		uint32_t a[8], ports = 0;

		memcpy(a, p + off + 8, sizeof(a));
		if ((p[off + 6] == IPPROTO_TCP || p[off + 6] == IPPROTO_UDP) && len >= off + 44)
			memcpy(&ports, p + off + 40, 4);
		return rte_jhash_32b(a, 8, ports ^ p[off + 6]);
	}
	return 0;
}

/* Rx lcore: poll each queue once and hand the burst, tagged with its
 * stream, to the work lcores by flow hash. */
static inline uint32_t
pipe_rx_round(struct vfwd_worker *w, const struct vfwd_knobs *k)
{
	uint32_t nb = 0;

	for (uint16_t i = 0; i < w->nb_streams; i++) {
		const struct vfwd_stream *s = &w->streams[i].s;
		struct vfwd_dir_stats *d = &w->stats.dir[s->dir];
		struct vfwd_stream_stats *ss = w->streams[i].stats;
		struct rte_mbuf *pkts[VFWD_MAX_BURST], *to[VFWD_MAX_BURST];
		uint8_t ring_of[VFWD_MAX_BURST];
		uint64_t bytes;
		/* no prep flags: the work lcore looks at them when it processes */
		uint16_t n = receive(w, i, k->burst, pkts, &bytes, NULL, d);

		nb += n;
		for (uint16_t j = 0; j < n; j++)
			pkts[j]->hash.usr = s->id;
		if (w->nb_rings > 1)
			for (uint16_t j = 0; j < n; j++) /* once per packet */
				ring_of[j] = (uint8_t)(flow_hash(pkts[j]) % w->nb_rings);
		for (uint16_t r = 0; r < w->nb_rings && n; r++) {
			uint16_t m = 0;
			unsigned int q;

			if (w->nb_rings == 1) {
				memcpy(to, pkts, n * sizeof(pkts[0]));
				m = n;
			} else {
				for (uint16_t j = 0; j < n; j++)
					if (ring_of[j] == r)
						to[m++] = pkts[j];
			}
			q = rte_ring_enqueue_burst(w->rings[r], (void **)to, m, NULL);
			w->stats.ring_enq += q;
			held_in(&w->streams[i], d, q);
			if (unlikely(q < m)) {
				rte_pktmbuf_free_bulk(to + q, m - q);
				d->drops[VFWD_DROP_RING] += m - q;
				ss->drops += m - q;
				w->stats.ring_drops += m - q;
			}
		}
	}
	return nb;
}

/* Work lcore: take bursts off the rings and process each stream's run, as
 * the kernel's cpumap kthread does; GRO flushed every 64 packets and when
 * the rings run empty. */
static inline uint32_t
pipe_work_round(struct vfwd_worker *w, const struct vfwd_knobs *k, uint64_t now)
{
	uint32_t nb = 0;

	for (uint16_t r = 0; r < w->nb_rings; r++) {
		struct rte_mbuf *pkts[VFWD_MAX_BURST];
		unsigned int n = rte_ring_dequeue_burst(w->rings[r], (void **)pkts, k->burst, NULL);

		w->stats.ring_deq += n;
		nb += n + process_tagged(w, k, pkts, n, false, now);
		w->since_gro_flush += n;
	}
	if (nb == 0 || w->since_gro_flush >= 64) {
		for (uint16_t i = 0; i < w->nb_streams; i++) {
			if (w->streams[i].s.dir == VFWD_DIR_WIRE_TO_VM &&
			    vfwd_gro_held(&w->streams[i].off.gro))
				nb += flush_held(w, i, k, true, now,
						 &w->stats.dir[VFWD_DIR_WIRE_TO_VM]);
		}
		w->since_gro_flush = 0;
	}
	for (uint16_t i = 0; i < w->nb_streams; i++)
		hold_check(w, i, k, nb == 0, now, &w->stats.dir[w->streams[i].s.dir]);
	return nb;
}

/* --------------------------------------------------------------- a round */

/* One visit of stream i: one burst when polling; in napi and adaptive
 * modes bursts while they come full, up to napi_weight; vhost queues
 * capped by vq weights (VHOST_NET_PKT_WEIGHT / VHOST_NET_WEIGHT twins).
 * Returns packets received; *empty says the queue ran dry. */
static inline uint32_t
visit(struct vfwd_worker *w, uint16_t i, const struct vfwd_knobs *k, uint64_t now, bool *empty,
      unsigned int *feeders)
{
	const struct vfwd_stream *s = &w->streams[i].s;
	struct vfwd_dir_stats *d = &w->stats.dir[s->dir];
	bool vhost_rx = w->port_state[s->rx_port].is_vhost;
	uint32_t limit = k->rx_mode == VFWD_RX_POLL ? k->burst : k->napi_weight;
	uint32_t taken = 0, moved = 0;
	uint64_t taken_bytes = 0;
	bool fed = false;

	if (vhost_rx && k->vq_weight_pkts)
		limit = RTE_MIN(limit, k->vq_weight_pkts);
	*empty = false;
	for (;;) {
		struct rte_mbuf *pkts[VFWD_MAX_BURST + VFWD_GRO_HOLD_MAX];
		uint16_t want = (uint16_t)RTE_MIN((uint32_t)k->burst, limit - taken);
		uint64_t bytes;
		bool prep;
		uint16_t n = receive(w, i, want, pkts, &bytes, &prep, d);

		taken += n;
		taken_bytes += bytes;
		/* deferred, or just switched to direct while the backlog still
		 * holds older packets: behind them */
		if (w->backlog != NULL && (k->deliver == VFWD_DELIVER_DEFERRED ||
					   w->stats.backlog_enq != w->stats.backlog_deq)) {
			backlog_put(w, i, pkts, n, d);
			fed |= n != 0;
		} else if (n || s->dir == VFWD_DIR_WIRE_TO_VM)
			moved += process(w, i, k, pkts, n, bytes, prep, now);
		if (n < want) {
			*empty = n == 0;
			break;
		}
		if (taken >= limit || (vhost_rx && k->vq_weight_bytes &&
				       taken_bytes >= k->vq_weight_bytes)) {
			if (k->rx_mode != VFWD_RX_POLL || limit < k->burst)
				d->weight_hits++;
			break;
		}
	}
	w->streams[i].rx_idle = *empty;
	*feeders += fed;
	return taken + moved;
}

/* Whether a tx hold or the backlog has packets: what only the full round
 * sends. */
static bool
tx_held(const struct vfwd_worker *w)
{
	if (w->backlog != NULL && rte_ring_count(w->backlog) > 0)
		return true;
	for (uint16_t i = 0; i < w->nb_streams; i++)
		if (w->streams[i].hold != NULL && w->streams[i].hold->n)
			return true;
	return false;
}

/* The default's round (poll, direct delivery, no tx batching, no vq
 * weight below the burst): one burst per stream, processed at once, none of the
 * bookkeeping of the modes that are off (rx_idle, feeders, holds, budget,
 * backlog). GRO is left to process(), which sends what heavy mode held
 * when the queue comes back empty. */
static inline uint32_t
lean_round(struct vfwd_worker *w, const struct vfwd_knobs *k, uint64_t now)
{
	uint32_t nb = 0;

	for (uint16_t i = 0; i < w->nb_streams; i++) {
		const struct vfwd_stream *s = &w->streams[i].s;
		struct vfwd_dir_stats *d = &w->stats.dir[s->dir];
		struct rte_mbuf *pkts[VFWD_MAX_BURST + VFWD_GRO_HOLD_MAX];
		uint64_t bytes;
		bool prep;
		uint16_t n = receive(w, i, k->burst, pkts, &bytes, &prep, d);

		nb += n;
		if (n || (s->dir == VFWD_DIR_WIRE_TO_VM && w->streams[i].off.gro.may_hold))
			nb += process(w, i, k, pkts, n, bytes, prep, now);
	}
	return nb;
}

/* Every mode's round: napi and adaptive visits, budgets, deferred
 * delivery, tx holds. */
static uint32_t
full_round(struct vfwd_worker *w, const struct vfwd_knobs *knobs, uint64_t now)
{
	bool budgeted = knobs->rx_mode != VFWD_RX_POLL &&
			(knobs->round_budget || knobs->round_budget_us);
	uint64_t deadline = w->budget_tsc ? now + w->budget_tsc : UINT64_MAX;
	uint16_t first = budgeted ? w->next_stream : 0;
	unsigned int feeders = 0;
	uint32_t nb = 0;

	for (uint16_t v = 0; v < w->nb_streams; v++) {
		uint16_t i = first + v < w->nb_streams ? first + v : first + v - w->nb_streams;
		struct vfwd_dir_stats *d = &w->stats.dir[w->streams[i].s.dir];
		bool empty;

		nb += visit(w, i, knobs, now, &empty, &feeders);
		hold_check(w, i, knobs, empty, now, d);
		if (unlikely(budgeted) && v + 1 < w->nb_streams &&
		    ((knobs->round_budget && nb >= knobs->round_budget) ||
		     (knobs->round_budget_us && rte_rdtsc() >= deadline))) {
			/* the next round starts where this one stopped */
			w->next_stream = i + 1 == w->nb_streams ? 0 : i + 1;
			w->stats.budget_stops++;
			break;
		}
	}
	if (w->backlog != NULL &&
	    (knobs->deliver == VFWD_DELIVER_DEFERRED || rte_ring_count(w->backlog) > 0)) {
		unsigned int quota = backlog_quota(knobs, feeders);

		while (quota > 0 && rte_ring_count(w->backlog) > 0) {
			unsigned int n = backlog_drain(w, knobs, quota, now, &nb);

			if (n == 0)
				break;
			quota -= n;
		}
		nb += backlog_flush_streams(w, knobs, now);
	}
	/* what an earlier knob set left is out: from now on the lean round */
	if (w->lean_wanted && !tx_held(w))
		w->lean = true;
	return nb;
}

/* What a knob set implies, worked out when the worker takes it, and the
 * round it picks (the way testpmd picks a forwarding engine). */
static void
knobs_take(struct vfwd_worker *w, const struct vfwd_knobs *k)
{
	w->tx_flush_tsc = k->tx_flush_us * w->tsc_per_us;
	w->gro_flush_tsc = k->gro.flush_us * w->tsc_per_us;
	w->budget_tsc = k->round_budget_us * w->tsc_per_us;
	vfwd_notify_clock_set(&w->notify_clock, k, w->tsc_per_us);
	/* adaptive keeps what it found as long as it stays on */
	if (k->notify != w->notify_mode)
		for (uint16_t i = 0; i < w->nb_streams; i++)
			vfwd_notify_mode_set(&w->streams[i].notify, k->notify);
	w->notify_mode = k->notify;
	/* a polling visit is one burst: the vq weights cut it only when the
	 * packet weight is below the burst (the byte weight is looked at
	 * after a burst, and there is no second one to stop) */
	w->lean_wanted = w->role == VFWD_ROLE_DIRECT && k->rx_mode == VFWD_RX_POLL &&
			 k->deliver == VFWD_DELIVER_DIRECT && k->tx_batch <= 1 &&
			 (k->vq_weight_pkts == 0 || k->vq_weight_pkts >= k->burst);
	/* the full round goes first: it sends what the old set held */
	w->lean = false;
}

static inline uint32_t
round_of(struct vfwd_worker *w, const struct vfwd_knobs *k, uint64_t now)
{
	uint32_t nb;

	if (likely(w->lean))
		nb = lean_round(w, k, now);
	else if (w->role == VFWD_ROLE_RX)
		nb = pipe_rx_round(w, k);
	else if (w->role == VFWD_ROLE_WORK)
		nb = pipe_work_round(w, k, now);
	else
		nb = full_round(w, k, now);
	if (unlikely(w->notify_nb_pending || k->notify == VFWD_NOTIFY_ADAPTIVE))
		notify_due(w, k, rte_rdtsc(), false);
	return nb;
}

uint32_t
vfwd_worker_round(struct vfwd_worker *w, const struct vfwd_knobs *knobs, uint64_t now)
{
	/* tests call this with any knobs, each time: take them each time */
	knobs_take(w, knobs);
	w->lean = w->lean_wanted && !tx_held(w);
	return round_of(w, knobs, now);
}

bool
vfwd_worker_holds(const struct vfwd_worker *w)
{
	/* a held notification goes by time: no sleep past it */
	if (tx_held(w) || w->notify_nb_pending)
		return true;
	for (uint16_t r = 0; w->role == VFWD_ROLE_WORK && r < w->nb_rings; r++)
		if (rte_ring_count(w->rings[r]) > 0)
			return true;
	for (uint16_t i = 0; i < w->nb_streams; i++)
		if (w->streams[i].s.dir == VFWD_DIR_WIRE_TO_VM && vfwd_gro_held(&w->streams[i].off.gro))
			return true;
	return false;
}

int
vfwd_worker_offload_init(struct vfwd_worker *w, struct rte_mempool *pool,
			 struct rte_mempool *indirect_pool, uint16_t gro_flows, int socket)
{
	const struct vfwd_gro_conf conf = {.max_flows = gro_flows};

	for (uint16_t i = 0; i < w->nb_streams; i++) {
		const struct vfwd_stream *s = &w->streams[i].s;
		const struct vfwd_port_state *tx = &w->port_state[s->tx_port];

		if (s->dir == VFWD_DIR_WIRE_TO_VM) {
			if (vfwd_gro_init(&w->streams[i].off.gro, &conf, socket) != 0) {
				vfwd_worker_offload_fini(w);
				return -ENOMEM;
			}
			continue;
		}
		w->streams[i].off.wire_tx = (struct vfwd_wire_tx){
			.tso_offload = tx->tx_tso,
			.ip_cksum_offload = tx->tx_ip_cksum,
			.l4_cksum_offload = tx->tx_l4_cksum,
			.multi_seg = tx->tx_multi_seg,
			.max_frame = tx->max_frame,
			.gso = {.direct_pool = pool, .indirect_pool = indirect_pool,
				.gso_types = RTE_ETH_TX_OFFLOAD_TCP_TSO},
		};
	}
	return 0;
}

void
vfwd_worker_offload_fini(struct vfwd_worker *w)
{
	for (uint16_t i = 0; i < w->nb_streams; i++)
		if (w->streams[i].s.dir == VFWD_DIR_WIRE_TO_VM)
			vfwd_gro_fini(&w->streams[i].off.gro);
}

int
vfwd_worker_queues_init(struct vfwd_worker *w, unsigned int backlog, int socket)
{
	char name[RTE_RING_NAMESIZE];

	for (uint16_t i = 0; i < w->nb_streams; i++) {
		w->streams[i].hold = rte_zmalloc_socket("vfwd_tx_hold", sizeof(*w->streams[i].hold),
						RTE_CACHE_LINE_SIZE, socket);
		if (w->streams[i].hold == NULL)
			goto fail;
	}
	/* one ring per lcore, like the kernel's per-CPU backlog; single
	 * producer and consumer: the worker itself. Named by the worker
	 * struct too: a re-plan builds its ring beside the running one's. */
	snprintf(name, sizeof(name), "vfwd_bl%u_%p", w->lcore_id, (void *)w);
	w->backlog = rte_ring_create(name, backlog, socket,
				     RING_F_SP_ENQ | RING_F_SC_DEQ | RING_F_EXACT_SZ);
	if (w->backlog == NULL)
		goto fail;
	return 0;
fail:
	vfwd_worker_queues_fini(w);
	return -ENOMEM;
}

void
vfwd_worker_queues_fini(struct vfwd_worker *w)
{
	for (uint16_t i = 0; i < w->nb_streams; i++) {
		if (w->streams[i].hold != NULL && w->streams[i].hold->n)
			rte_pktmbuf_free_bulk(w->streams[i].hold->pkts, w->streams[i].hold->n);
		rte_free(w->streams[i].hold);
		w->streams[i].hold = NULL;
	}
	if (w->backlog != NULL) {
		struct rte_mbuf *m;

		while (rte_ring_dequeue(w->backlog, (void **)&m) == 0)
			rte_pktmbuf_free(m);
		rte_ring_free(w->backlog);
		w->backlog = NULL;
	}
	for (uint16_t i = 0; i < w->nb_streams; i++)
		w->streams[i].backlog_pending = 0;
}

/* Take the newest knob set if control published one. An acquire load and a
 * release store: plain moves on x86, no locked instruction. */
static inline void
poll_knobs(struct vfwd_worker *w, uint32_t *gen, struct vfwd_knobs *knobs)
{
	uint32_t g = __atomic_load_n(&w->knob_gen, __ATOMIC_ACQUIRE);

	if (likely(g == *gen))
		return;
	*knobs = w->knob_slot[g & 1];
	knobs_take(w, knobs);
	*gen = g;
	__atomic_store_n(&w->knob_gen_seen, g, __ATOMIC_RELEASE);
}

/* At exit, send (or drop, counted) everything held: what the work lcore
 * was handed (the rx lcores have stopped: the rings run dry), the
 * backlog, GRO's held segments, the tx holds. */
static void
drain_all(struct vfwd_worker *w, const struct vfwd_knobs *knobs, uint64_t now)
{
	while (w->role == VFWD_ROLE_WORK && pipe_work_round(w, knobs, now) != 0)
		;
	while (w->backlog != NULL && rte_ring_count(w->backlog) > 0) {
		uint32_t moved = 0;

		backlog_drain(w, knobs, VFWD_MAX_BURST, now, &moved);
	}
	for (uint16_t i = 0; i < w->nb_streams; i++) {
		const struct vfwd_stream *s = &w->streams[i].s;
		struct vfwd_dir_stats *d = &w->stats.dir[s->dir];

		if (s->dir == VFWD_DIR_WIRE_TO_VM)
			while (vfwd_gro_held(&w->streams[i].off.gro))
				flush_held(w, i, knobs, true, now, d);
		hold_check(w, i, knobs, true, now, d); /* as if rx ran empty */
	}
	/* and the guest hears of all it got */
	if (w->notify_nb_pending)
		notify_due(w, knobs, rte_rdtsc(), true);
}

/* Between two rounds: a consistent copy of the counters for whoever asked
 * (vfwd_worker_snapshot). What waits in holds stays there: the held
 * counters account for it, so reading leaves the data path alone. */
void
vfwd_worker_serve_snapshot(struct vfwd_worker *w)
{
	uint32_t req = __atomic_load_n(&w->clear_req, __ATOMIC_ACQUIRE);

	w->stats_snap = w->stats;
	__atomic_store_n(&w->clear_seen, req, __ATOMIC_RELEASE);
}

int
vfwd_worker_main(void *arg)
{
	struct vfwd_worker *w = arg;
	struct vfwd_lcore_stats *st = &w->stats;
	uint32_t gen = __atomic_load_n(&w->knob_gen, __ATOMIC_ACQUIRE);
	struct vfwd_knobs knobs = w->knob_slot[gen & 1];
	uint64_t prev = rte_rdtsc();

	__atomic_store_n(&w->knob_gen_seen, gen, __ATOMIC_RELEASE);
	knobs_take(w, &knobs);
	w->empty_rounds = 0;
	while (w->running) {
		uint32_t nb = round_of(w, &knobs, prev);
		uint64_t now = rte_rdtsc();

		if (nb)
			st->busy_tsc += now - prev;
		else
			st->idle_tsc += now - prev;
		st->rounds++;
		if (knobs.rx_mode != VFWD_RX_POLL)
			now = vfwd_napi_after_round(w, &knobs, nb, now);
		/* after napi's queue counts and interrupt arming, which reach
		 * the vhost device too: once acknowledged, no call of this
		 * round is in a PMD or device */
		if (w->quiesce_epoch != NULL)
			__atomic_store_n(&w->quiesce_seen,
					 __atomic_load_n(w->quiesce_epoch, __ATOMIC_ACQUIRE),
					 __ATOMIC_RELEASE);
		prev = now;
		poll_knobs(w, &gen, &knobs);
		if (unlikely(__atomic_load_n(&w->clear_req, __ATOMIC_ACQUIRE) != w->clear_seen))
			vfwd_worker_serve_snapshot(w);
	}
	drain_all(w, &knobs, prev);
	vfwd_napi_release(w);
	return 0;
}

int
vfwd_worker_publish(struct vfwd_worker *w, const struct vfwd_knobs *knobs, unsigned int timeout_us)
{
	uint32_t g = w->knob_gen + 1;
	uint64_t deadline = rte_get_timer_cycles() + rte_get_timer_hz() / 1000000 * timeout_us;

	/* The slot written now must be one the worker is not reading: it has
	 * taken gen g-1 (normally long ago) and reads slot g-1. */
	while (w->running && __atomic_load_n(&w->knob_gen_seen, __ATOMIC_ACQUIRE) != g - 1) {
		if (rte_get_timer_cycles() > deadline)
			return -EBUSY; /* nothing written */
		rte_pause();
	}
	w->knob_slot[g & 1] = *knobs;
	__atomic_store_n(&w->knob_gen, g, __ATOMIC_RELEASE);
	if (!w->running)
		return 0;
	while (__atomic_load_n(&w->knob_gen_seen, __ATOMIC_ACQUIRE) != g) {
		if (rte_get_timer_cycles() > deadline)
			return -ETIMEDOUT; /* written: taken when the worker comes back */
		rte_pause();
	}
	return 0;
}

int
vfwd_worker_snapshot(struct vfwd_worker *w, struct vfwd_lcore_stats *snap, unsigned int timeout_us)
{
	uint32_t want = w->clear_req + 1;
	uint64_t deadline = rte_get_timer_cycles() + rte_get_timer_hz() / 1000000 * timeout_us;

	if (!w->running) {
		*snap = w->stats;
		return 0;
	}
	__atomic_store_n(&w->clear_req, want, __ATOMIC_RELEASE);
	while (__atomic_load_n(&w->clear_seen, __ATOMIC_ACQUIRE) != want) {
		if (!w->running || rte_get_timer_cycles() > deadline) {
			*snap = w->stats;
			return w->running ? -ETIMEDOUT : 0;
		}
		rte_pause();
	}
	*snap = w->stats_snap;
	return 0;
}

/* ------------------------------------------------------ the app's handle */

struct vfwd_worker *
vfwd_worker_alloc(int socket)
{
	return rte_zmalloc_socket("vfwd_worker", sizeof(struct vfwd_worker), RTE_CACHE_LINE_SIZE,
				  socket);
}

void
vfwd_worker_free(struct vfwd_worker *w)
{
	rte_free(w);
}

unsigned int
vfwd_worker_lcore(const struct vfwd_worker *w)
{
	return w->lcore_id;
}

enum vfwd_role
vfwd_worker_role(const struct vfwd_worker *w)
{
	return (enum vfwd_role)w->role;
}

uint16_t
vfwd_worker_nb_streams(const struct vfwd_worker *w)
{
	return w->nb_streams;
}

const struct vfwd_stream *
vfwd_worker_stream(const struct vfwd_worker *w, uint16_t i)
{
	return &w->streams[i].s;
}

void
vfwd_worker_set_rings(struct vfwd_worker *w, struct rte_ring *const *rings, uint16_t n)
{
	w->nb_rings = RTE_MIN(n, (uint16_t)VFWD_MAX_PIPE);
	memcpy(w->rings, rings, w->nb_rings * sizeof(rings[0]));
}

int
vfwd_worker_launch(struct vfwd_worker *w, const uint32_t *quiesce_epoch)
{
	int ret;

	w->quiesce_epoch = quiesce_epoch;
	w->running = 1;
	ret = rte_eal_remote_launch(vfwd_worker_main, w, w->lcore_id);
	if (ret != 0)
		w->running = 0;
	return ret;
}

void
vfwd_worker_stop(struct vfwd_worker *w)
{
	w->running = 0;
}

uint32_t
vfwd_worker_quiesce_seen(const struct vfwd_worker *w)
{
	return __atomic_load_n(&w->quiesce_seen, __ATOMIC_ACQUIRE);
}

const struct vfwd_lcore_stats *
vfwd_worker_counters(const struct vfwd_worker *w)
{
	return &w->stats;
}

void
vfwd_worker_counters_carry(struct vfwd_worker *to, const struct vfwd_worker *from)
{
	to->stats = from->stats;
}
