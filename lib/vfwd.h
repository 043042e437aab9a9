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
struct vfwd_port_state; /* vfwd_port.h */


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
/* Packets a stream holds for tx batching at most. */
#define VFWD_TX_HOLD_CAP (2 * VFWD_MAX_BURST)

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

enum vfwd_drop_cause {
	VFWD_DROP_TX_FULL,   /* tx ring still full after the retries */
	VFWD_DROP_PEER_DOWN, /* vhost peer not connected / vring disabled */
	VFWD_DROP_BAD_GSO,   /* a guest TSO frame that cannot be segmented */
	VFWD_DROP_BAD_CSUM,  /* a partial checksum on a frame that is not TCP/UDP */
	VFWD_DROP_NO_MBUF,   /* segmentation ran out of mbufs */
	VFWD_DROP_BACKLOG,   /* deferred delivery: the backlog ring was full */
	VFWD_DROP_RING,      /* pipeline: the ring to the work lcore was full */
	VFWD_DROP_OVERSIZE,  /* a frame (not TSO) longer than the wire's MTU */
	VFWD_DROP_COUNT
};

struct vfwd_dir_stats {
	uint64_t rx_pkts;
	uint64_t rx_bytes;
	uint64_t tx_pkts;
	uint64_t tx_bytes;
	uint64_t drops[VFWD_DROP_COUNT];
	/* offloads: GRO toward the VM, TSO/GSO and checksums toward the wire */
	uint64_t gro_in;        /* segments given to GRO */
	uint64_t gro_out;       /* packets that came out of it */
	uint64_t gro_merged;    /* ... of which merged (sent as GSO frames) */
	uint64_t gro_flushes;   /* heavy mode: flushes of held segments */
	uint64_t gro_bypassed;  /* packets passed without GRO: nothing was merging */
	uint64_t gso_frames;    /* TSO frames from the guest */
	uint64_t gso_sw_frames; /* ... segmented in software */
	uint64_t gso_segs;      /* segments made from those */
	uint64_t tso_offloaded; /* frames left to the wire port's TSO */
	uint64_t sw_cksums;     /* L4 checksums completed in software */
	/* tx batching: sends and why they went (full, timer, rx ran empty) */
	uint64_t tx_flush_full;
	uint64_t tx_flush_timer;
	uint64_t tx_flush_empty;
	uint64_t weight_hits;   /* visits cut short by the vq/napi weight */
	/* rx_burst_hist[n]: polls that returned n packets; [0] = empty polls,
	 * the sum = polls. tx_burst_hist[n]: tx_burst calls offered n (first
	 * call of each send, retries not counted). */
	uint64_t rx_burst_hist[VFWD_MAX_BURST + 1];
	uint64_t tx_burst_hist[VFWD_MAX_BURST + 1];
};

/* One stream's counters. Indexed by vfwd_stream_key(), which a re-plan
 * does not change: a stream's counts can be summed over the lcores that
 * carried it, before and after a plan moved it. Eight counters: one cache
 * line per stream touched per burst. Per stream, as per direction:
 * rx - (gro_in - gro_out) + segs_added = tx + drops whenever GRO holds
 * nothing (vfwd_stream_out_expected). */
struct vfwd_stream_stats {
	uint64_t rx_pkts;
	uint64_t rx_bytes;
	uint64_t tx_pkts;
	uint64_t tx_bytes;
	uint64_t drops;      /* every cause, as the dir's drops[] */
	uint64_t gro_in;     /* segments given to GRO */
	uint64_t gro_out;    /* packets that came out of it */
	uint64_t segs_added; /* software segmentation: segments made less frames cut */
} __rte_cache_aligned; /* one line each, whatever comes before the array */

/* A stream receives on queue rx_queue of one port of pair; in the
 * pipeline the work lcore that sends it uses the same key. */
static inline uint16_t
vfwd_stream_key(uint16_t pair, uint16_t rx_queue, uint8_t dir)
{
	return (uint16_t)((pair * VFWD_MAX_QUEUES + rx_queue) * VFWD_DIR_COUNT + dir);
}

/* Written only by its worker lcore, read (racily, word by word) by the
 * control plane: counters only grow, so a reader sees a slightly old value,
 * never a torn one (aligned 64-bit stores). */
struct vfwd_lcore_stats {
	struct vfwd_dir_stats dir[VFWD_DIR_COUNT];
	struct vfwd_stream_stats stream[VFWD_MAX_STREAMS]; /* by vfwd_stream_key() */
	uint64_t busy_tsc; /* rounds that moved at least one packet */
	uint64_t idle_tsc; /* rounds in which every poll came back empty */
	uint64_t rounds;
	/* napi / adaptive */
	uint64_t sleeps;          /* times the lcore went to sleep */
	uint64_t wakeups_intr;    /* ... woken by an rx interrupt */
	uint64_t sleep_tsc;       /* time asleep (neither busy nor idle) */
	uint64_t intr_queues;     /* queues armed for interrupts, over all sleeps */
	uint64_t nap_queues;      /* queues without interrupts over all sleeps (naps) */
	uint64_t to_napi;         /* adaptive: switches to napi */
	uint64_t to_poll;         /* adaptive: switches to polling */
	uint64_t budget_stops;    /* rounds cut short by the round budget */
	/* deferred delivery */
	uint64_t backlog_enq;     /* packets put on the backlog */
	uint64_t backlog_deq;     /* ... taken off it (depth = enq - deq) */
	uint64_t backlog_drops;   /* backlog full: dropped (also in the dir's drops) */
	/* pipeline */
	uint64_t ring_enq;        /* rx lcore: packets handed to work lcores */
	uint64_t ring_drops;      /* ... dropped, the ring full (also in drops) */
	uint64_t ring_deq;        /* work lcore: packets taken from rings */
} __rte_cache_aligned;

/* Derived figures, computed by the control plane from the counters. */
struct vfwd_dir_summary {
	uint64_t rx_pkts, rx_bytes, tx_pkts, tx_bytes;
	uint64_t drops[VFWD_DROP_COUNT];
	uint64_t drops_total;
	uint64_t polls, empty_polls, bursts; /* bursts = non-empty polls */
	double avg_burst;                    /* rx_pkts / bursts */
	double gro_merge;                    /* segments in per packet out of GRO */
	/* rx, less what GRO merged away, plus what segmentation added: equals
	 * tx + drops whenever GRO holds nothing */
	uint64_t out_expected;
};

struct vfwd_summary {
	struct vfwd_dir_summary dir[VFWD_DIR_COUNT];
	uint64_t rx_pkts, tx_pkts, drops_total;
	uint64_t busy_tsc, idle_tsc, sleep_tsc;
	double busy_pct;        /* busy / (busy + idle + asleep) */
	double sleep_pct;       /* asleep / (busy + idle + asleep) */
	double cycles_per_pkt;  /* busy cycles / packets actually sent on */
};

/* What a pair moved in one direction: its streams' counters summed over
 * queues 0..nb_rxq-1, and the same law's expected output. */
struct vfwd_pair_dir_summary {
	struct vfwd_stream_stats sum;
	uint64_t out_expected;
};

struct vfwd_pair_summary {
	struct vfwd_pair_dir_summary dir[VFWD_DIR_COUNT];
};

void vfwd_stats_add(struct vfwd_lcore_stats *acc, const struct vfwd_lcore_stats *s);
void vfwd_stats_sub(struct vfwd_lcore_stats *res, const struct vfwd_lcore_stats *a,
		    const struct vfwd_lcore_stats *b);
void vfwd_stats_summarize(const struct vfwd_lcore_stats *s, struct vfwd_summary *out);
/* Whether any counter of a is below b's: a read that went backwards
 * (counters only grow), never to be subtracted from. */
bool vfwd_stats_behind(const struct vfwd_lcore_stats *a, const struct vfwd_lcore_stats *b);
/* rx, less what GRO merged away, plus what segmentation added. */
uint64_t vfwd_stream_out_expected(const struct vfwd_stream_stats *ss);
/* Pair pair's streams on queues [0, nb_rxq) of s, per direction. */
void vfwd_stats_pair_summarize(const struct vfwd_lcore_stats *s, uint16_t pair, uint16_t nb_rxq,
			       struct vfwd_pair_summary *out);
/* The k most frequent non-empty burst sizes of h (most frequent first).
 * Returns how many were found (<= k). */
unsigned int vfwd_hist_top(const uint64_t *hist, unsigned int max_size, unsigned int k,
			   unsigned int *sizes, uint64_t *counts);

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

/* ---------------------------------------------------------------- worker */

/* A worker lcore: its streams and their state, knob slots and counters.
 * Private to lib/ (vfwd_worker.h): the app holds pointers and uses the
 * functions below. */
struct vfwd_worker;

/* A zeroed worker on socket's memory (control). NULL: out of memory. */
struct vfwd_worker *vfwd_worker_alloc(int socket);
/* After vfwd_worker_fini (control, the worker stopped). */
void vfwd_worker_free(struct vfwd_worker *w);
unsigned int vfwd_worker_lcore(const struct vfwd_worker *w);
enum vfwd_role vfwd_worker_role(const struct vfwd_worker *w);
uint16_t vfwd_worker_nb_streams(const struct vfwd_worker *w);
const struct vfwd_stream *vfwd_worker_stream(const struct vfwd_worker *w, uint16_t i);
/* Pipeline (control, before launch): the rings an rx lcore feeds, one per
 * work lcore, or those a work lcore takes from, one per rx lcore. */
void vfwd_worker_set_rings(struct vfwd_worker *w, struct rte_ring *const *rings, uint16_t n);
/* Runs w on its lcore (control). After each round it acknowledges
 * *quiesce_epoch (NULL: none), see app/unmap_guard.c. Returns 0 or
 * rte_eal_remote_launch's error (w then not running). */
int vfwd_worker_launch(struct vfwd_worker *w, const uint32_t *quiesce_epoch);
/* Asks w to return after its round (control); rte_eal_wait_lcore waits. */
void vfwd_worker_stop(struct vfwd_worker *w);
/* The last quiesce epoch w acknowledged (any thread). */
uint32_t vfwd_worker_quiesce_seen(const struct vfwd_worker *w);
/* The live counters, for control's periodic report: read word by word,
 * each untorn and only growing (telemetry uses vfwd_worker_stats_read). */
const struct vfwd_lcore_stats *vfwd_worker_counters(const struct vfwd_worker *w);
/* A re-plan: to (not yet running) carries on from from's counters. */
void vfwd_worker_counters_carry(struct vfwd_worker *to, const struct vfwd_worker *from);

/* Prepare a worker for a plan entry with the given initial knobs. Its
 * counters (stats, stats_snap) carry over untouched: a worker's memory
 * starts zeroed (rte_zmalloc), and a re-plan never takes counters back
 * under a reader on another thread. Returns 0 or -ENOMEM. */
int vfwd_worker_init(struct vfwd_worker *w, unsigned int lcore_id,
		     const struct vfwd_plan_lcore *pl, const struct vfwd_port_state *port_state,
		     const struct vfwd_knobs *knobs);
/* Frees what vfwd_worker_init allocated (after the offload and queues
 * fini); the counters stay. */
void vfwd_worker_fini(struct vfwd_worker *w);
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
int vfwd_workers_publish(struct vfwd_worker *const *ws, uint16_t n, const struct vfwd_knobs *knobs,
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
