/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The fast path: each worker lcore polls its streams in bursts and forwards
 * run-to-completion. No allocation, locks, locked instructions or printing;
 * stats go to the worker's own cache-aligned struct.
 */
#include <errno.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_pause.h>

#include "vfwd.h"

void
vfwd_worker_init(struct vfwd_worker *w, unsigned int lcore_id, const struct vfwd_plan_lcore *pl,
		 const struct vfwd_port_state *port_state, const struct vfwd_knobs *knobs)
{
	memset(w, 0, sizeof(*w));
	w->lcore_id = lcore_id;
	w->nb_streams = pl->nb_streams;
	memcpy(w->streams, pl->streams, pl->nb_streams * sizeof(pl->streams[0]));
	w->port_state = port_state;
	w->knob_slot[0] = *knobs;
}

static inline bool
stream_tx_ready(const struct vfwd_worker *w, const struct vfwd_stream *s)
{
	const struct vfwd_port_state *ps = &w->port_state[s->tx_port];

	return !ps->is_vhost || (ps->link_up && ps->txq_enabled[s->tx_queue]);
}

static inline uint64_t
sum_pkt_len(struct rte_mbuf **pkts, uint16_t n)
{
	uint64_t bytes = 0;

	for (uint16_t i = 0; i < n; i++)
		bytes += rte_pktmbuf_pkt_len(pkts[i]);
	return bytes;
}

static inline uint16_t
forward_stream(const struct vfwd_worker *w, const struct vfwd_stream *s,
	       const struct vfwd_knobs *k, struct vfwd_dir_stats *d)
{
	struct rte_mbuf *pkts[VFWD_MAX_BURST];
	uint16_t nb_rx, nb_tx;
	uint64_t bytes;

	nb_rx = rte_eth_rx_burst(s->rx_port, s->rx_queue, pkts, k->burst);
	d->rx_burst_hist[nb_rx]++;
	if (nb_rx == 0)
		return 0;

	bytes = sum_pkt_len(pkts, nb_rx);
	d->rx_pkts += nb_rx;
	d->rx_bytes += bytes;

	if (unlikely(!stream_tx_ready(w, s))) {
		rte_pktmbuf_free_bulk(pkts, nb_rx);
		d->drops[VFWD_DROP_PEER_DOWN] += nb_rx;
		return nb_rx;
	}

	nb_tx = rte_eth_tx_burst(s->tx_port, s->tx_queue, pkts, nb_rx);
	/* Retry only while the peer makes room (as OVS does for vhost): a
	 * full ring that took nothing gives up at once instead of spinning
	 * on the ring's cache lines and slowing the peer that drains it. */
	for (uint16_t retry = 0, last = nb_tx; nb_tx < nb_rx && last && retry < k->tx_retry;
	     retry++) {
		last = rte_eth_tx_burst(s->tx_port, s->tx_queue, pkts + nb_tx, nb_rx - nb_tx);
		nb_tx += last;
	}
	if (unlikely(nb_tx < nb_rx)) {
		uint16_t left = nb_rx - nb_tx;

		bytes -= sum_pkt_len(pkts + nb_tx, left);
		rte_pktmbuf_free_bulk(pkts + nb_tx, left);
		d->drops[VFWD_DROP_TX_FULL] += left;
	}
	d->tx_pkts += nb_tx;
	d->tx_bytes += bytes;
	return nb_rx;
}

uint32_t
vfwd_worker_round(struct vfwd_worker *w, const struct vfwd_knobs *knobs)
{
	uint32_t nb = 0;

	for (uint16_t i = 0; i < w->nb_streams; i++) {
		const struct vfwd_stream *s = &w->streams[i];

		nb += forward_stream(w, s, knobs, &w->stats.dir[s->dir]);
	}
	return nb;
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
	*gen = g;
	__atomic_store_n(&w->knob_gen_seen, g, __ATOMIC_RELEASE);
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
	while (w->running) {
		uint32_t nb = vfwd_worker_round(w, &knobs);
		uint64_t now = rte_rdtsc();

		if (nb)
			st->busy_tsc += now - prev;
		else
			st->idle_tsc += now - prev;
		st->rounds++;
		prev = now;
		poll_knobs(w, &gen, &knobs);
	}
	return 0;
}

int
vfwd_worker_publish(struct vfwd_worker *w, const struct vfwd_knobs *knobs, unsigned int timeout_us)
{
	uint32_t g = w->knob_gen + 1;
	uint64_t deadline;

	/* The slot written now is the one the worker is not reading: it took
	 * gen g-1 (we waited for that below, last time) and reads slot g-1. */
	w->knob_slot[g & 1] = *knobs;
	__atomic_store_n(&w->knob_gen, g, __ATOMIC_RELEASE);
	if (!w->running)
		return 0;
	deadline = rte_get_timer_cycles() + rte_get_timer_hz() / 1000000 * timeout_us;
	while (__atomic_load_n(&w->knob_gen_seen, __ATOMIC_ACQUIRE) != g) {
		if (rte_get_timer_cycles() > deadline)
			return -ETIMEDOUT;
		rte_pause();
	}
	return 0;
}
