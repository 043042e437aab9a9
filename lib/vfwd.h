/* SPDX-License-Identifier: BSD-3-Clause
 *
 * dpdk-vfwd data plane: forwards bursts between vhost-user ports (the VM
 * side) and any other ethdev (the wire side), with per-lcore stats.
 *
 * Planes: vfwd_plan.c (pure: which lcore polls what), vfwd_ports.c (control:
 * ports, vhost events), vfwd_worker.c (the fast path), vfwd_stats.c (pure:
 * totals and rates for whoever prints them). Nothing here prints.
 */
#ifndef VFWD_H
#define VFWD_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_common.h>

#include "vfwd_offload.h"

struct rte_mempool;
struct rte_ring;
struct rte_mbuf;


#define VFWD_MAX_BURST 512
#define VFWD_MAX_PORTS 32
#define VFWD_MAX_PAIRS 16
#define VFWD_MAX_QUEUES 16
/* virtio-net features withheld from every guest: HOST_UFO would let
 * it send UDP frames of up to 64 KB for the host to fragment, which vfwd
 * does not do (and Linux guests have not sent since 4.14) */
#define VFWD_VIRTIO_NET_F_HOST_UFO 14
#define VFWD_VHOST_WITHHELD (1ULL << VFWD_VIRTIO_NET_F_HOST_UFO)
#define VFWD_MAX_WORKERS 64
/* Each (pair, queue) gives one stream per direction. */
#define VFWD_MAX_STREAMS (VFWD_MAX_PAIRS * VFWD_MAX_QUEUES * 2)
#define VFWD_MAX_TX_RETRY 10000

/* Packets a stream holds for tx batching (owned by its worker). */
#define VFWD_TX_HOLD_CAP (2 * VFWD_MAX_BURST)
struct vfwd_tx_hold {
	uint16_t n;
	uint64_t bytes;
	uint64_t since_tsc; /* when the oldest came */
	struct rte_mbuf *pkts[VFWD_TX_HOLD_CAP];
};

/* ---------------------------------------------------------------- config */

/* How a worker waits for packets (the NAPI twins, doc/modes.md). */
enum vfwd_rx_mode {
	VFWD_RX_POLL,     /* busy polling: DPDK's way */
	VFWD_RX_NAPI,     /* poll while there is work, sleep after defer_polls empty rounds */
	VFWD_RX_ADAPTIVE, /* napi below ~5 packets per poll, poll above ~10 (VPP's rule) */
};

/* Where a received burst is processed (netif_receive_skb / netif_rx twins). */
enum vfwd_deliver {
	VFWD_DELIVER_DIRECT,   /* run to completion in the polling pass */
	VFWD_DELIVER_DEFERRED, /* onto the lcore's backlog ring, drained by a later pass */
};

#define VFWD_MAX_TX_BATCH VFWD_MAX_BURST

/* Knobs a running worker picks up between rounds (see vfwd_worker_publish). */
struct vfwd_knobs {
	uint16_t burst;    /* packets asked of each rx_burst, 1..VFWD_MAX_BURST */
	uint16_t tx_retry; /* extra tx_burst calls for what the first left, made
			    * only while the previous call sent something */
	struct vfwd_gro_conf gro; /* toward the VM; max_flows is fixed at init */

	uint8_t rx_mode;          /* enum vfwd_rx_mode */
	uint8_t deliver;          /* enum vfwd_deliver */
	uint16_t napi_weight;     /* napi/adaptive: packets one queue may give per visit */
	uint32_t round_budget;    /* napi/adaptive: packets per round over all queues (0: none) */
	uint32_t round_budget_us; /* ... and microseconds (0: none) */
	uint32_t defer_polls;     /* napi: empty rounds before sleeping */
	uint32_t busy_poll_us;    /* napi: ... and this long without a packet (busy_poll) */
	uint32_t sleep_max_us;    /* napi: longest sleep (interrupts wake it earlier) */
	uint16_t tx_batch;        /* hold tx until this many wait (1: send each burst) */
	uint32_t tx_flush_us;     /* ... or the oldest waited this long */
	uint16_t vq_weight_pkts;  /* the most a vhost queue gives per visit (0: no cap) */
	uint32_t vq_weight_bytes; /* ... in bytes (0: no cap) */
};

struct vfwd_pair {
	uint16_t vm_port;   /* a net_vhost port */
	uint16_t wire_port; /* any other ethdev */
};

enum vfwd_dir {
	VFWD_DIR_VM_TO_WIRE,
	VFWD_DIR_WIRE_TO_VM,
	VFWD_DIR_COUNT
};

/* ----------------------------------------------------------------- stats */

/* Counters, summaries and their arithmetic: one declaration of each
 * counter drives the structs and every output (vfwd_stats.h). */
#include "vfwd_stats.h"

/* ------------------------------------------------------------------ plan */

struct vfwd_stream {
	uint16_t rx_port, rx_queue;
	uint16_t tx_port, tx_queue;
	uint8_t dir; /* enum vfwd_dir */
	uint8_t pair;
	uint16_t id; /* index in the plan's list of all streams */
};

/* What an lcore does: everything for its streams (direct), or one half of
 * the pipeline (the cpumap twin): rx lcores only poll and hand bursts
 * through rings to work lcores, which run GRO/TSO and send. */
enum vfwd_role { VFWD_ROLE_DIRECT, VFWD_ROLE_RX, VFWD_ROLE_WORK };

#define VFWD_MAX_PIPE 16 /* rx or work lcores in a pipeline */

struct vfwd_plan_lcore {
	uint8_t role; /* enum vfwd_role */
	uint16_t nb_streams;
	/* direct and rx: the queues it polls; work: every stream, by id, each
	 * sending on this lcore's own tx queue */
	struct vfwd_stream streams[VFWD_MAX_STREAMS];
};

struct vfwd_plan {
	uint16_t nb_workers;
	uint16_t nb_streams;
	struct vfwd_plan_lcore worker[VFWD_MAX_WORKERS];
};

/* Spread the streams of nb_pairs pairs x nb_rxq queues over nb_workers
 * workers, round-robin: whole queues (both directions) while workers are
 * no more than queues, single directions beyond that. Stream (pair p, queue q, dir) receives on queue q of
 * one port and sends on queue q of the other, so every tx queue has exactly
 * one sender and needs no lock. Returns 0 or -EINVAL. */
int vfwd_plan_build(struct vfwd_plan *plan, const struct vfwd_pair *pairs, uint16_t nb_pairs,
		    uint16_t nb_rxq, uint16_t nb_workers);
/* The pipeline: nb_rx rx lcores share the queues as vfwd_plan_build would;
 * nb_work work lcores follow, work lcore k sending on tx queue k of every
 * port (so nb_txq >= nb_work). Returns 0 or -EINVAL. */
int vfwd_plan_build_pipeline(struct vfwd_plan *plan, const struct vfwd_pair *pairs,
			     uint16_t nb_pairs, uint16_t nb_rxq, uint16_t nb_rx, uint16_t nb_work);

/* ------------------------------------------------------------ peer state */

/* Whether a tx queue can take packets now. For a vhost port it follows the
 * guest: written by the vhost event thread (LSC and queue-state callbacks),
 * read by the worker that sends on the queue. Other ports are always sent
 * to; their link (polled by control, vfwd_port_wire_link_poll) only says
 * whether what they did not take was tx_full or peer_down. */
struct vfwd_port_state {
	volatile uint8_t link_up;
	volatile uint8_t txq_enabled[VFWD_MAX_QUEUES];
	/* the guest negotiated GUEST_TSO4 and GUEST_CSUM: it takes GSO
	 * frames (looked up once per connection, on the vhost thread) */
	volatile uint8_t guest_gso;
	/* the guest negotiated HOST_UFO although vfwd withdrew it (it
	 * connected before the withdrawal): its UFO frames are dropped */
	volatile uint8_t guest_ufo;
	/* bumped by the vhost thread at each (re)connection: the queues'
	 * interrupt fds are new, a sleeping worker registers them again */
	volatile uint32_t conn_gen;
	/* The PMD gate, for ports whose PMD must not be called while its link
	 * is down (net_memif: its rx and tx compute the ring's address from
	 * the shared region before they check the port is connected, so a
	 * call that straddles the connection, or a reconnection, faults).
	 * Bit 0: open, the workers may call the PMD; the bits above count
	 * closes. Opened by whoever sees the link up while it is closed (a
	 * worker about to call the PMD, or control's link poll): the PMD
	 * marks the link up only after it mapped and set up the rings. Closed
	 * by control's link poll when the link is down and by the unmap guard
	 * before the PMD unmaps. All by compare-and-swap on the value read
	 * before the link, so a thread that read "up" just before a disconnect
	 * can not reopen what the guard closed. The one field of the port
	 * state that workers write. */
	volatile uint32_t pmd_gate;
	/* set at init, read-only after */
	bool is_vhost;
	bool gated;        /* the PMD is called only through pmd_gate */
	bool rx_intr;      /* configured with rx queue interrupts */
	bool tx_tso;       /* TCP_TSO offload enabled */
	bool tx_ip_cksum;  /* IPV4_CKSUM offload enabled */
	bool tx_l4_cksum;  /* TCP_CKSUM and UDP_CKSUM offloads enabled */
	bool tx_multi_seg; /* MULTI_SEGS enabled: takes chained mbufs */
	/* vhost: virtio-net features vfwd does not offer the guest, because
	 * no wire port can carry what they let it send (VFWD_VHOST_WITHHELD) */
	uint64_t withheld_features;
	uint16_t max_frame; /* MTU + Ethernet header */
} __rte_cache_aligned;

/* ---------------------------------------------------------------- worker */

struct vfwd_worker {
	/* control: written before launch, read-only while running */
	unsigned int lcore_id;
	uint8_t role;       /* enum vfwd_role */
	uint16_t nb_rings;  /* rx: one ring per work lcore; work: one per rx lcore */
	struct rte_ring *rings[VFWD_MAX_PIPE];
	uint16_t nb_streams;
	struct vfwd_stream streams[VFWD_MAX_STREAMS];
	const struct vfwd_port_state *port_state; /* [VFWD_MAX_PORTS] */

	/* worker: per stream offload state, set up by control before launch */
	union vfwd_stream_offload {
		struct vfwd_gro gro;         /* streams toward a VM */
		struct vfwd_wire_tx wire_tx; /* streams toward the wire */
	} offload[VFWD_MAX_STREAMS];

	/* worker: tx batching holds [nb_streams] (rte_zmalloc'd by control at
	 * init, used by the worker only), the deferred-delivery backlog */
	struct vfwd_tx_hold *hold[VFWD_MAX_STREAMS];
	struct rte_ring *backlog;
	/* worker: napi state */
	uint32_t empty_rounds;
	uint64_t last_work_tsc; /* napi: when a round last moved a packet */
	uint32_t load_x16;   /* adaptive: moving average of packets per poll, x16 */
	bool napi_now;       /* adaptive: currently in napi (interrupt) mode */
	uint16_t next_stream; /* a round cut by the budget resumes here */
	uint32_t intr_gen[VFWD_MAX_STREAMS]; /* conn_gen registered, +1 (0: never) */
	uint32_t since_gro_flush; /* work lcore: packets since GRO last flushed */
	/* worker: what the knob set in use implies, worked out once when it
	 * takes the set, not in every round (tsc_per_us: at init) */
	uint64_t tsc_per_us;
	uint64_t tx_flush_tsc;  /* tx_flush_us in TSC cycles */
	uint64_t gro_flush_tsc; /* gro.flush_us ... */
	uint64_t budget_tsc;    /* round_budget_us ... (0: none) */
	bool lean_wanted; /* the knobs need no more than the lean round */
	bool lean;        /* ... and nothing it would not send is held */
	/* deferred delivery: each stream's packets on the backlog, and
	 * whether its rx queue came back empty at its last visit (its own
	 * "queue empty" for GRO and tx holds, see vfwd_worker_round) */
	uint32_t backlog_pending[VFWD_MAX_STREAMS];
	uint8_t rx_idle[VFWD_MAX_STREAMS];

	/* handoff, see vfwd_worker_publish(): control writes slots + gen,
	 * worker writes gen_seen. */
	struct vfwd_knobs knob_slot[2];
	uint32_t knob_gen;
	uint32_t knob_gen_seen;
	/* "clear fwd stats": control bumps clear_req, the worker copies its
	 * counters into stats_snap between rounds (a consistent set) and
	 * acknowledges with clear_seen */
	uint32_t clear_req;
	uint32_t clear_seen;
	volatile uint8_t running; /* control sets 1 before launch, 0 to stop */
	/* quiescence: after each round the worker copies *quiesce_epoch
	 * (acquire) into quiesce_seen (release), so that whoever bumped the
	 * epoch knows, once quiesce_seen reaches it, that every PMD call of
	 * the rounds before is over and later ones see what was written
	 * before the bump (app/unmap_guard.c). Set by control before launch;
	 * NULL: not watched. Plain loads and stores on x86. */
	const uint32_t *quiesce_epoch;
	uint32_t quiesce_seen;

	/* worker: the only writer while it runs. Never zeroed after the
	 * worker's memory is allocated (zeroed): vfwd_worker_init keeps them,
	 * because other threads (telemetry) may read them at any time; it
	 * makes stats_gen odd while it rewrites the rest of the struct, see
	 * vfwd_worker_stats_read(). Everything above stats_gen is re-init'd. */
	uint32_t stats_gen;
	struct vfwd_lcore_stats stats;
	struct vfwd_lcore_stats stats_snap; /* see clear_req */
} __rte_cache_aligned;

/* Prepare a worker for a plan entry with the given initial knobs. Its
 * counters (stats, stats_snap) carry over untouched: a worker's memory
 * starts zeroed (rte_zmalloc), and a re-plan never takes counters back
 * under a reader on another thread. */
void vfwd_worker_init(struct vfwd_worker *w, unsigned int lcore_id,
		      const struct vfwd_plan_lcore *pl, const struct vfwd_port_state *port_state,
		      const struct vfwd_knobs *knobs);
/* Offload state of every stream (control, before launch): GRO contexts
 * toward VMs, segmentation pools and port capabilities toward the wire.
 * Returns 0 or -ENOMEM (undone). */
int vfwd_worker_offload_init(struct vfwd_worker *w, struct rte_mempool *pool,
			     struct rte_mempool *indirect_pool, uint16_t gro_flows, int socket);
/* Tx holds and the backlog ring of backlog packets (control, before
 * launch). Returns 0 or -ENOMEM (undone). */
int vfwd_worker_queues_init(struct vfwd_worker *w, unsigned int backlog, int socket);
void vfwd_worker_queues_fini(struct vfwd_worker *w);
void vfwd_worker_offload_fini(struct vfwd_worker *w);
/* lcore entry point: arg is a struct vfwd_worker. Returns when running = 0,
 * after sending (or dropping) what GRO still held. */
int vfwd_worker_main(void *arg);
/* Give a worker new knobs. The worker switches at its next round, between
 * bursts, seeing either the old set or the new one. If the worker is running
 * this waits (bounded by timeout_us) until it has taken the set, so that the
 * slot it reads is never rewritten under it. Returns 0; -ETIMEDOUT: written,
 * the worker takes it late; -EBUSY: nothing written, the worker has not
 * taken the previous set yet. */
int vfwd_worker_publish(struct vfwd_worker *w, const struct vfwd_knobs *knobs,
			unsigned int timeout_us);
/* vfwd_worker_publish for workers ws[0..n), all of them or none: first
 * waits (bounded by timeout_us) until every running worker has taken the
 * set published before; if one has not, nothing is written anywhere and
 * *who is its index. Then publishes to each. Returns 0; -ETIMEDOUT:
 * written to all, worker *who (the first such) takes it late; -EBUSY:
 * nothing written. */
int vfwd_workers_publish(struct vfwd_worker *ws, uint16_t n, const struct vfwd_knobs *knobs,
			 unsigned int timeout_us, uint16_t *who);
/* A consistent copy of a worker's counters (all from between two rounds):
 * asks the running worker for one and waits (bounded), or copies them if
 * it is stopped. Returns 0 or -ETIMEDOUT (snap then holds a racy copy). */
int vfwd_worker_snapshot(struct vfwd_worker *w, struct vfwd_lcore_stats *snap,
			 unsigned int timeout_us);
/* A copy of a worker's counters for a thread that is neither its worker
 * nor control (telemetry): word by word (each counter untorn, only ever
 * growing), and retried while control re-initialises the worker
 * (stats_gen odd or changed during the copy). Returns 0, or -EAGAIN when
 * a re-init was still under way after about a millisecond. */
int vfwd_worker_stats_read(const struct vfwd_worker *w, struct vfwd_lcore_stats *out);
/* One round over all streams: what vfwd_worker_main loops on. Exposed for
 * tests that drive the data path without launching lcores. Returns packets
 * received. */
uint32_t vfwd_worker_round(struct vfwd_worker *w, const struct vfwd_knobs *knobs, uint64_t now);

/* ----------------------------------------------------------------- ports */

struct vfwd_port_conf {
	uint16_t nb_rxq, nb_txq;
	uint16_t nb_rxd, nb_txd;
};

/* Configure and start one port with the pool, register vhost event
 * callbacks writing st. Returns 0 or -errno. On error nothing of the port
 * refers to pool or st any more: a port that was configured is stopped and
 * closed (its queues and their mbufs released), one that was not is left
 * as it was. */
int vfwd_port_setup(uint16_t port, const struct vfwd_port_conf *conf, struct rte_mempool *pool,
		    struct vfwd_port_state *st);
/* Stop and close a port set up by vfwd_port_setup (unregisters callbacks). */
void vfwd_port_teardown(uint16_t port, struct vfwd_port_state *st);
bool vfwd_port_is_vhost(uint16_t port);
/* A wire port's link into st->link_up and, for a gated port, its PMD gate
 * (control, periodically). */
void vfwd_port_wire_link_poll(uint16_t port, struct vfwd_port_state *st);
/* Closes a gated port's PMD gate (any thread; a no-op for other ports). */
void vfwd_port_gate_close(struct vfwd_port_state *st);

/* A worker's slow path for a closed gate: opens it if the link is up now.
 * Returns whether the gate is open. */
bool vfwd_port_gate_reopen(uint16_t port, const struct vfwd_port_state *st);

/* Whether a worker may call the port's PMD now. */
static inline bool
vfwd_port_callable(uint16_t port, const struct vfwd_port_state *st)
{
	if (likely(!st->gated || (st->pmd_gate & 1)))
		return true;
	return vfwd_port_gate_reopen(port, st);
}
/* A port's iface devarg into path: net_vhost's socket path, or the
 * kernel interface of net_af_packet and net_tap; *client (if not NULL):
 * net_vhost connects to it (client=1). -errno (-ENOENT: none). */
int vfwd_port_iface(uint16_t port, char *path, size_t len, bool *client);

/* napi: called by the worker after a round that moved nb packets; may
 * sleep. Returns the time it returns at (vfwd_napi.c). */
uint64_t vfwd_napi_after_round(struct vfwd_worker *w, const struct vfwd_knobs *k, uint32_t nb,
			       uint64_t now);
/* Unregister the rx interrupts a worker armed (its own thread, at exit). */
void vfwd_napi_release(struct vfwd_worker *w);
/* Whether anything waits in the worker's GRO tables, tx holds or backlog. */
bool vfwd_worker_holds(const struct vfwd_worker *w);

/* ------------------------------------------------------------------ pool */

/* Packets a pipeline ring (rx lcore -> work lcore) is created for. */
#define VFWD_PIPE_RING_SIZE 4096
/* The longest frame a guest may send: a 64 KiB TSO frame (IP total length
 * 65535) behind an Ethernet header and two VLAN tags. */
#define VFWD_TSO_FRAME_MAX (65535 + 14 + 2 * 4)

/* What sizes the mbuf pool (vfwd_pool_size). */
struct vfwd_pool_need {
	uint16_t nb_ports;       /* ports set up: both ends of every pair */
	uint16_t nb_rxq, nb_txq; /* queues per port */
	uint16_t nb_rxd, nb_txd; /* descriptors per queue */
	unsigned int nb_lcores;  /* EAL lcores, the main one too: each keeps a cache */
	unsigned int cache_size; /* the pool's per-lcore cache */
	uint16_t nb_workers;     /* worker lcores */
	uint16_t nb_streams;     /* pairs x rx queues x 2 directions */
	uint32_t backlog;        /* the largest backlog ring a worker may get */
	uint16_t data_room;      /* data bytes per mbuf */
};

/* Mbufs that the configuration n can hold at once: ports' descriptors,
 * lcore caches, each worker's burst in flight (guest TSO chains and the
 * segments made from them), backlog or pipeline rings, tx holds, GRO held
 * segments. Covers every value the runtime knobs allow, but backlog sizes
 * above n->backlog (see the terms in vfwd_pool.c). Pure. */
unsigned int vfwd_pool_size(const struct vfwd_pool_need *n);
/* The pipeline R:W with the most rings (R x W) that nb_workers worker
 * lcores and nb_txq tx queues allow; 0:0 if none. */
void vfwd_pipe_max(uint16_t nb_workers, uint16_t nb_txq, uint16_t *nb_rx, uint16_t *nb_work);

extern const char *const vfwd_drop_names[VFWD_DROP_COUNT];
extern const char *const vfwd_dir_keys[VFWD_DIR_COUNT];

#endif /* VFWD_H */
