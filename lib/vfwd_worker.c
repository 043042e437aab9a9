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

/* Send what a stage produced, bytes being its total length; count it as
 * sent or dropped. The bytes come from the caller so that a burst nothing
 * changed is not walked a second time. */
static inline void
send_burst(const struct vfwd_worker *w, const struct vfwd_stream *s, const struct vfwd_knobs *k,
	   struct rte_mbuf **pkts, uint16_t n, uint64_t bytes, struct vfwd_dir_stats *d)
{
	uint16_t nb_tx;

	if (n == 0)
		return;
	if (unlikely(!stream_tx_ready(w, s))) {
		rte_pktmbuf_free_bulk(pkts, n);
		d->drops[VFWD_DROP_PEER_DOWN] += n;
		return;
	}
	nb_tx = rte_eth_tx_burst(s->tx_port, s->tx_queue, pkts, n);
	/* Retry only while the peer makes room (as OVS does for vhost): a
	 * full ring that took nothing gives up at once instead of spinning
	 * on the ring's cache lines and slowing the peer that drains it. */
	for (uint16_t retry = 0, last = nb_tx; nb_tx < n && last && retry < k->tx_retry; retry++) {
		last = rte_eth_tx_burst(s->tx_port, s->tx_queue, pkts + nb_tx, n - nb_tx);
		nb_tx += last;
	}
	if (unlikely(nb_tx < n)) {
		bytes -= sum_pkt_len(pkts + nb_tx, n - nb_tx);
		rte_pktmbuf_free_bulk(pkts + nb_tx, n - nb_tx);
		d->drops[VFWD_DROP_TX_FULL] += n - nb_tx;
	}
	d->tx_bytes += bytes;
	d->tx_pkts += nb_tx;
}

static inline uint16_t
receive(const struct vfwd_stream *s, const struct vfwd_knobs *k, struct rte_mbuf **pkts,
	uint64_t *bytes, struct vfwd_dir_stats *d)
{
	uint16_t nb_rx = rte_eth_rx_burst(s->rx_port, s->rx_queue, pkts, k->burst);

	*bytes = sum_pkt_len(pkts, nb_rx);
	d->rx_burst_hist[nb_rx]++;
	d->rx_pkts += nb_rx;
	d->rx_bytes += *bytes;
	return nb_rx;
}

/* VM -> wire: what vhost_net + tap do with a guest's TSO frames and
 * partial checksums, then send. */
static inline uint32_t
forward_to_wire(const struct vfwd_worker *w, const struct vfwd_stream *s,
		const struct vfwd_wire_tx *wtx, const struct vfwd_knobs *k, struct vfwd_dir_stats *d)
{
	struct rte_mbuf *pkts[VFWD_MAX_BURST];
	struct rte_mbuf *out[VFWD_MAX_BURST + VFWD_GSO_MAX_SEGS];
	uint64_t bytes;
	uint16_t nb_rx = receive(s, k, pkts, &bytes, d), no = 0;
	bool prep = false;

	for (uint16_t i = 0; i < nb_rx; i++)
		prep |= vfwd_needs_prep(pkts[i]);
	if (likely(!prep)) {
		send_burst(w, s, k, pkts, nb_rx, bytes, d);
		return nb_rx;
	}
	for (uint16_t i = 0; i < nb_rx; i++) {
		if (no + VFWD_GSO_MAX_SEGS > (int)RTE_DIM(out)) {
			send_burst(w, s, k, out, no, sum_pkt_len(out, no), d);
			no = 0;
		}
		no += vfwd_wire_tx_prepare(wtx, pkts[i], out + no, RTE_DIM(out) - no, d);
	}
	send_burst(w, s, k, out, no, sum_pkt_len(out, no), d);
	return nb_rx;
}

/* Heavy GRO: send what it held, all of it or what waited too long. */
static inline uint32_t
flush_held(const struct vfwd_worker *w, const struct vfwd_stream *s, struct vfwd_gro *gro,
	   const struct vfwd_knobs *k, bool all, uint64_t now, struct vfwd_dir_stats *d)
{
	struct rte_mbuf *out[VFWD_GRO_HOLD_MAX];
	/* a timeout of 0 flushes everything */
	uint64_t timeout = all ? 0 : k->gro.flush_us * (rte_get_tsc_hz() / 1000000);
	uint16_t n = vfwd_gro_flush(gro, timeout, now, out, RTE_DIM(out), d);

	send_burst(w, s, k, out, n, sum_pkt_len(out, n), d);
	return n;
}

/* wire -> VM: GRO (the NAPI GRO twin) when the guest takes GSO frames. */
static inline uint32_t
forward_to_vm(const struct vfwd_worker *w, const struct vfwd_stream *s, struct vfwd_gro *gro,
	      const struct vfwd_knobs *k, uint64_t now, struct vfwd_dir_stats *d)
{
	struct rte_mbuf *pkts[VFWD_MAX_BURST + VFWD_GRO_HOLD_MAX];
	bool gro_on = k->gro.enabled && w->port_state[s->tx_port].guest_gso;
	uint64_t bytes;
	uint16_t nb_rx = receive(s, k, pkts, &bytes, d), n = nb_rx;
	uint32_t moved = nb_rx;

	if (unlikely(vfwd_gro_held(gro))) {
		/* held segments never wait for new traffic: the queue ran
		 * empty, GRO was switched off or away from heavy mode */
		bool all = nb_rx == 0 || !gro_on || k->gro.mode != VFWD_GRO_HEAVY;

		moved += flush_held(w, s, gro, k, all, now, d);
	}
	if (nb_rx && gro_on) {
		n = vfwd_gro_burst(gro, &k->gro, pkts, nb_rx, now, d);
		bytes = sum_pkt_len(pkts, n); /* merging changed the headers */
	}
	send_burst(w, s, k, pkts, n, bytes, d);
	return moved;
}

uint32_t
vfwd_worker_round(struct vfwd_worker *w, const struct vfwd_knobs *knobs, uint64_t now)
{
	uint32_t nb = 0;

	for (uint16_t i = 0; i < w->nb_streams; i++) {
		const struct vfwd_stream *s = &w->streams[i];
		struct vfwd_dir_stats *d = &w->stats.dir[s->dir];

		if (s->dir == VFWD_DIR_VM_TO_WIRE)
			nb += forward_to_wire(w, s, &w->offload[i].wire_tx, knobs, d);
		else
			nb += forward_to_vm(w, s, &w->offload[i].gro, knobs, now, d);
	}
	return nb;
}

int
vfwd_worker_offload_init(struct vfwd_worker *w, struct rte_mempool *pool,
			 struct rte_mempool *indirect_pool, uint16_t gro_flows, int socket)
{
	const struct vfwd_gro_conf conf = {.max_flows = gro_flows};

	for (uint16_t i = 0; i < w->nb_streams; i++) {
		const struct vfwd_stream *s = &w->streams[i];
		const struct vfwd_port_state *tx = &w->port_state[s->tx_port];

		if (s->dir == VFWD_DIR_WIRE_TO_VM) {
			if (vfwd_gro_init(&w->offload[i].gro, &conf, socket) != 0) {
				vfwd_worker_offload_fini(w);
				return -ENOMEM;
			}
			continue;
		}
		w->offload[i].wire_tx = (struct vfwd_wire_tx){
			.tso_offload = tx->tx_tso,
			.ip_cksum_offload = tx->tx_ip_cksum,
			.l4_cksum_offload = tx->tx_l4_cksum,
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
		if (w->streams[i].dir == VFWD_DIR_WIRE_TO_VM)
			vfwd_gro_fini(&w->offload[i].gro);
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
		uint32_t nb = vfwd_worker_round(w, &knobs, prev);
		uint64_t now = rte_rdtsc();

		if (nb)
			st->busy_tsc += now - prev;
		else
			st->idle_tsc += now - prev;
		st->rounds++;
		prev = now;
		poll_knobs(w, &gen, &knobs);
	}
	/* nothing stays held in GRO once we stop */
	for (uint16_t i = 0; i < w->nb_streams; i++) {
		const struct vfwd_stream *s = &w->streams[i];

		if (s->dir == VFWD_DIR_WIRE_TO_VM)
			while (vfwd_gro_held(&w->offload[i].gro))
				flush_held(w, s, &w->offload[i].gro, &knobs, true, prev,
					   &st->dir[s->dir]);
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
