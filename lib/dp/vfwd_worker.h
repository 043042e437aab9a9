/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The worker as lib/ sees it: private to the data path (vfwd_worker.c,
 * vfwd_napi.c) and its unit tests. The app goes through vfwd.h.
 */
#ifndef VFWD_WORKER_H
#define VFWD_WORKER_H

#include <rte_epoll.h>

#include "vfwd.h"
#include "vfwd_offload.h"
#include "vfwd_port.h"
#include "vfwd_notify.h"

/* Packets a stream holds for tx batching (owned by its worker). */
struct vfwd_tx_hold {
	uint16_t n;
	uint64_t bytes;
	uint64_t since_tsc; /* when the oldest came */
	struct rte_mbuf *pkts[VFWD_TX_HOLD_CAP];
	/* --latency on: when each of pkts[] went in (beside them, not in
	 * the mbufs: no line of theirs to fetch for it) */
	uint64_t in_tsc[VFWD_TX_HOLD_CAP];
};

/* One stream as its worker runs it: the plan's entry and everything the
 * worker keeps for it, together (testpmd's struct fwd_stream). Set up by
 * control before launch, then the worker's alone. */
struct vfwd_worker_stream {
	struct vfwd_stream s;            /* the plan's: ports, queues, dir */
	struct vfwd_stream_stats *stats; /* its line of the worker's counters */
	struct vfwd_tx_hold *hold;       /* tx batching (vfwd_worker_queues_init) */
	uint32_t backlog_pending;        /* deferred: its packets on the backlog */
	uint32_t intr_gen;               /* napi: conn_gen registered, +1 (0: never) */
	/* napi, a queue whose interrupt is its fd turning readable (net_tap):
	 * the fd, and the signal its PMD reads it on (see wire_fd_ready);
	 * set when registered, -1 / 0 for none */
	int intr_fd, intr_sig;
	/* deferred: its rx queue came back empty at its last visit (its own
	 * "queue empty" for GRO and tx holds, see backlog_flush_streams) */
	uint8_t rx_idle;
	/* toward a VM on the lib path: its guest receiveq's notifications
	 * while --notify holds them */
	struct vfwd_notify_q notify;
	union vfwd_stream_offload {
		struct vfwd_gro gro;         /* toward a VM */
		struct vfwd_wire_tx wire_tx; /* toward the wire */
	} off;
} __rte_cache_aligned;

/* Fields grouped by who writes them, each group on lines of its own, so
 * that one side's writes do not take the lines the other side reads. */
struct vfwd_worker {
	/* control: written before launch, read-only while it runs */
	unsigned int lcore_id;
	uint8_t role;       /* enum vfwd_role */
	uint16_t nb_rings;  /* rx: one ring per work lcore; work: one per rx lcore */
	uint16_t nb_streams;
	struct vfwd_worker_stream *streams; /* [nb_streams], by vfwd_worker_init */
	const struct vfwd_port_state *port_state; /* [VFWD_MAX_PORTS] */
	struct rte_ring *backlog; /* deferred delivery (vfwd_worker_queues_init) */
	/* quiescence: after each round the worker copies *quiesce_epoch
	 * (acquire) into quiesce_seen (release), so that whoever bumped the
	 * epoch knows, once quiesce_seen reaches it, that every PMD call of
	 * the rounds before is over and later ones see what was written
	 * before the bump (app/unmap_guard.c). NULL: not watched. Plain
	 * loads and stores on x86. */
	const uint32_t *quiesce_epoch;
	struct rte_ring *rings[VFWD_MAX_PIPE];
	/* --latency: the mbuf dynamic field the stages stamp (its offset,
	 * vfwd_worker_set_latency_field; -1: none, latency stays off) */
	int lat_field;

	/* worker: its own state, read and written every round */
	uint32_t empty_rounds __rte_cache_aligned; /* napi */
	uint32_t load_x16;    /* adaptive: moving average of packets per poll, x16 */
	uint64_t last_work_tsc; /* napi: when a round last moved a packet */
	bool napi_now;        /* adaptive: currently in napi (interrupt) mode */
	/* napi with --latency on: a sleep ended, and the packets the rounds
	 * after it take waited since wake_from_tsc (vfwd_napi.c, wake_note) */
	uint8_t wake_wait;    /* enum vfwd_napi_wake */
	uint64_t wake_from_tsc;
	int run_delay_fd;     /* the thread's /proc schedstat (-1: none) */
	/* napi: a timed sleep with armed queues waits in the thread's epoll
	 * set, this timerfd ending it (-1: none, nanosleep), its event there */
	int nap_timer_fd;
	bool nap_timer_added;
	struct rte_epoll_event nap_timer_ev;
	bool lean_wanted;     /* the knobs need no more than the lean round */
	bool lean;            /* ... and nothing it would not send is held */
	uint16_t next_stream; /* a round cut by the budget resumes here */
	uint32_t since_gro_flush; /* work lcore: packets since GRO last flushed */
	/* what the knob set in use implies, worked out once when it takes
	 * the set, not in every round (tsc_per_us: at init) */
	uint64_t tsc_per_us;
	uint64_t tx_flush_tsc;  /* tx_flush_us in TSC cycles */
	uint64_t gro_flush_tsc; /* gro.flush_us ... */
	uint64_t budget_tsc;    /* round_budget_us ... (0: none) */
	struct vfwd_notify_clock notify_clock; /* notify_usecs ... (vfwd_notify.h) */
	uint32_t notify_nb_pending; /* notifications held (its streams' notify.pending) */
	uint8_t notify_mode;    /* the knobs' notify it took last */
	bool lat_on;            /* the knobs' latency, and a field to stamp */
	uint64_t lat_since;     /* when it went on: older stamps are not waits */
	uint64_t lat_unstamp_until; /* pipeline rx: off since lately (see pipe_rx_round) */

	/* control writes, the worker reads between rounds: the knob handoff
	 * (vfwd_worker_publish: two slots and the generation), "clear fwd
	 * stats" requests (clear_req) and the stop */
	struct vfwd_knobs knob_slot[2] __rte_cache_aligned;
	uint32_t knob_gen;
	uint32_t clear_req;
	volatile uint8_t running; /* 1 before launch, 0 to stop */

	/* the worker writes, control reads: its acknowledgements, one per
	 * round at most. clear_seen: it copied its counters into stats_snap
	 * between two rounds (a consistent set) for clear_req */
	uint32_t knob_gen_seen __rte_cache_aligned;
	uint32_t clear_seen;
	uint32_t quiesce_seen;

	/* worker: the only writer while it runs. Never zeroed after the
	 * worker's memory is allocated (zeroed): vfwd_worker_init keeps them,
	 * because other threads (telemetry) may read them at any time; it
	 * makes stats_gen odd while it rewrites the rest of the struct, see
	 * vfwd_worker_stats_read(). Everything above stats_gen is re-init'd. */
	uint32_t stats_gen __rte_cache_aligned;
	struct vfwd_lcore_stats stats;
	struct vfwd_lcore_stats stats_snap; /* see clear_req */
} __rte_cache_aligned;

/* lcore entry point: arg is a struct vfwd_worker. Returns when running = 0,
 * after sending (or dropping) what GRO still held. */
int vfwd_worker_main(void *arg);
/* One round over all streams: what vfwd_worker_main loops on. Exposed for
 * tests that drive the data path without launching lcores. Returns packets
 * received. */
uint32_t vfwd_worker_round(struct vfwd_worker *w, const struct vfwd_knobs *knobs, uint64_t now);

/* napi: called by the worker after a round that began at start and moved
 * nb packets, at now; may sleep. Returns the time it returns at
 * (vfwd_napi.c). */
uint64_t vfwd_napi_after_round(struct vfwd_worker *w, const struct vfwd_knobs *k, uint32_t nb,
			       uint64_t start, uint64_t now);
/* Unregister the rx interrupts a worker armed (its own thread, at exit). */
void vfwd_napi_release(struct vfwd_worker *w);
/* On the worker's thread, before its first round: its timed sleeps end on
 * time (a timer slack of 1 us instead of the kernel's 50), and its run
 * delay can be read (the napi_wake stage). */
void vfwd_napi_thread_init(struct vfwd_worker *w);
/* Answers a snapshot request between rounds (vfwd_worker_main; tests). */
void vfwd_worker_serve_snapshot(struct vfwd_worker *w);
/* Whether anything waits in the worker's GRO tables, tx holds or backlog. */
bool vfwd_worker_holds(const struct vfwd_worker *w);

#endif /* VFWD_WORKER_H */
