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
#include <rte_launch.h>
#include <rte_malloc.h>
#include <rte_mbuf_dyn.h>
#include <rte_pause.h>
#include <rte_ring.h>

#include "vfwd_notify.h"
#include "vfwd_stages.h"
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
		streams[i].intr_fd = -1; /* napi registers it */
		streams[i].notify.nb_pending = &w->notify_nb_pending;
		streams[i].notify.stats = streams[i].stats;
	}
	w->port_state = port_state;
	w->lat_field = -1;
	w->run_delay_fd = -1;
	w->nap_timer_fd = -1;
	w->knob_slot[0] = *knobs;
	w->tsc_per_us = rte_get_tsc_hz() / 1000000;
	/* release: a reader that sees the even value sees the new struct */
	__atomic_store_n(&w->stats_gen, (gen | 1) + 1, __ATOMIC_RELEASE);
	return 0;
}

void
vfwd_worker_set_latency_field(struct vfwd_worker *w, int offset)
{
	w->lat_field = offset;
}

int
vfwd_latency_field_register(void)
{
	static const struct rte_mbuf_dynfield desc = {
		.name = "vfwd_stage_in_tsc",
		.size = sizeof(uint64_t),
		.align = __alignof__(uint64_t),
	};
	int off = rte_mbuf_dynfield_register(&desc);

	return off >= 0 ? off : -rte_errno;
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
knobs_take(struct vfwd_worker *w, const struct vfwd_knobs *k, uint64_t now)
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
	if (k->latency && w->lat_field >= 0 && !w->lat_on)
		w->lat_since = now;
	if (!k->latency && w->lat_on)
		w->lat_unstamp_until = now + 1000000 * w->tsc_per_us;
	w->lat_on = k->latency && w->lat_field >= 0;
	/* polling: no sleep to have waited for (adaptive's polling phase
	 * settles it in vfwd_napi_after_round) */
	if (k->rx_mode == VFWD_RX_POLL)
		w->wake_wait = 0;
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
		nb = pipe_rx_round(w, k, now);
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
	knobs_take(w, knobs, now);
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
poll_knobs(struct vfwd_worker *w, uint32_t *gen, struct vfwd_knobs *knobs, uint64_t now)
{
	uint32_t g = __atomic_load_n(&w->knob_gen, __ATOMIC_ACQUIRE);

	if (likely(g == *gen))
		return;
	*knobs = w->knob_slot[g & 1];
	knobs_take(w, knobs, now);
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
		hold_send_all(w, i, knobs, now, d);
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
	knobs_take(w, &knobs, prev);
	w->empty_rounds = 0;
	vfwd_napi_thread_init(w);
	while (w->running) {
		uint32_t nb = round_of(w, &knobs, prev);
		uint64_t now = rte_rdtsc();

		if (nb)
			st->busy_tsc += now - prev;
		else
			st->idle_tsc += now - prev;
		st->rounds++;
		if (knobs.rx_mode != VFWD_RX_POLL)
			now = vfwd_napi_after_round(w, &knobs, nb, prev, now);
		/* after napi's queue counts and interrupt arming, which reach
		 * the vhost device too: once acknowledged, no call of this
		 * round is in a PMD or device */
		if (w->quiesce_epoch != NULL)
			__atomic_store_n(&w->quiesce_seen,
					 __atomic_load_n(w->quiesce_epoch, __ATOMIC_ACQUIRE),
					 __ATOMIC_RELEASE);
		prev = now;
		poll_knobs(w, &gen, &knobs, now);
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

/* Asks a running worker for a consistent copy (one whose lcore returned
 * counts no more: nothing to ask; control reads none between stopping a
 * worker and its lcore's return). */
static void
snapshot_ask(struct vfwd_worker *w)
{
	if (w->running)
		__atomic_store_n(&w->clear_req, w->clear_req + 1, __ATOMIC_RELEASE);
}

/* Waits until deadline for the answer to snapshot_ask, then copies. */
static int
snapshot_take(struct vfwd_worker *w, struct vfwd_lcore_stats *snap, uint64_t deadline)
{
	uint32_t want = w->clear_req;

	while (w->running && __atomic_load_n(&w->clear_seen, __ATOMIC_ACQUIRE) != want) {
		if (rte_get_timer_cycles() > deadline) {
			*snap = w->stats;
			return -ETIMEDOUT;
		}
		rte_pause();
	}
	/* a stopped worker was not asked (control, the only one to stop it,
	 * is here): its own counters, and clear_seen may be an old answer */
	*snap = w->running ? w->stats_snap : w->stats;
	return 0;
}

int
vfwd_worker_snapshot(struct vfwd_worker *w, struct vfwd_lcore_stats *snap, unsigned int timeout_us)
{
	snapshot_ask(w);
	return snapshot_take(w, snap, rte_get_timer_cycles() +
					      rte_get_timer_hz() / 1000000 * timeout_us);
}

int
vfwd_workers_snapshot(struct vfwd_worker *const *ws, uint16_t n, struct vfwd_lcore_stats *snaps,
		      unsigned int timeout_us)
{
	uint64_t deadline = rte_get_timer_cycles() + rte_get_timer_hz() / 1000000 * timeout_us;
	int ret = 0;

	/* all asked first: the waits overlap, a sleeping napi lcore's
	 * included */
	for (uint16_t i = 0; i < n; i++)
		snapshot_ask(ws[i]);
	for (uint16_t i = 0; i < n; i++)
		if (snapshot_take(ws[i], &snaps[i], deadline) != 0)
			ret = -ETIMEDOUT;
	return ret;
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

void
vfwd_worker_counters_carry(struct vfwd_worker *to, const struct vfwd_worker *from)
{
	to->stats = from->stats;
}
