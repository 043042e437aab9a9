/* SPDX-License-Identifier: BSD-3-Clause
 *
 * dpdk-vfwd data plane: forwards bursts between vhost-user ports (the VM
 * side) and any other ethdev (the wire side), with per-lcore stats.
 *
 * This header: the limits, the knobs, and the worker as the app sees it
 * (an opaque handle). Beside it, by topic: vfwd_plan.h (streams, which
 * lcore runs which), vfwd_stats.h (the counters), vfwd_port.h (ports and
 * their state), vfwd_pool.h (sizing the mbuf pool). The code is in lib/
 * by role (lib/meson.build). Nothing here prints.
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
/* the ring shapes a guest may negotiate (the virtio spec's bits), shown
 * per vhost port (vfwd_port_state.guest_features) */
#define VFWD_VIRTIO_NET_F_MRG_RXBUF 15
#define VFWD_VIRTIO_RING_F_INDIRECT_DESC 28
#define VFWD_VIRTIO_RING_F_EVENT_IDX 29
#define VFWD_VIRTIO_F_RING_PACKED 34
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

/* What ends a napi lcore's short nap (a port without rx interrupts makes
 * it nap rather than sleep on them). */
enum vfwd_nap_wake {
	VFWD_NAP_WAKE_TIMER, /* its end only; the other queues' interrupts stay off */
	VFWD_NAP_WAKE_KICK,  /* ... or a guest's kick, an rx interrupt */
};

/* Where a received burst is processed (netif_receive_skb / netif_rx twins). */
enum vfwd_deliver {
	VFWD_DELIVER_DIRECT,   /* run to completion in the polling pass */
	VFWD_DELIVER_DEFERRED, /* onto the lcore's backlog ring, drained by a later pass */
};

#define VFWD_MAX_TX_BATCH VFWD_MAX_BURST

/* When a guest hears of the frames vfwd put in its receive queue (the
 * twins of a NIC's interrupt moderation, virtio-net's NOTF_COAL and the
 * kernel's DIM; doc/modes.md). Not immediate: --vhost-path lib, DPDK 23.07+. */
enum vfwd_notify_mode {
	VFWD_NOTIFY_IMMEDIATE, /* as librte_vhost does: at each burst the guest asked to hear of */
	VFWD_NOTIFY_COALESCE,  /* held until notify_usecs passed or notify_frames came */
	VFWD_NOTIFY_ADAPTIVE,  /* coalesce while frames come faster than one per notify_usecs */
};

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
	uint8_t nap_wake;         /* enum vfwd_nap_wake */
	uint16_t tx_batch;        /* hold tx until this many wait (1: send each burst) */
	uint32_t tx_flush_us;     /* ... or the oldest waited this long */
	bool tx_hold_idle;        /* ... and not when the rx side ran empty */
	uint16_t vq_weight_pkts;  /* the most a vhost queue gives per visit (0: no cap) */
	uint32_t vq_weight_bytes; /* ... in bytes (0: no cap) */
	uint8_t notify;           /* enum vfwd_notify_mode */
	uint32_t notify_usecs;    /* coalesce: the longest a notification waits */
	uint32_t notify_frames;   /* ... and the frames after which it goes at once */
	bool latency;             /* per-stage residence time (vfwd_stats.h) */
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

/* Streams and which lcore runs which (vfwd_plan.h). */
#include "vfwd_plan.h"

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
/* A re-plan: to (not yet running) carries on from from's counters. */
void vfwd_worker_counters_carry(struct vfwd_worker *to, const struct vfwd_worker *from);

/* --latency: the mbuf dynamic field the stages stamp (control, after
 * vfwd_worker_init, before launch; vfwd_latency_field_register's offset,
 * or -1: latency stays off whatever the knobs say). */
void vfwd_worker_set_latency_field(struct vfwd_worker *w, int offset);
/* Registers the field (control, once): its offset, or -rte_errno. */
int vfwd_latency_field_register(void);

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
 * it is stopped. The worker sends nothing early for it: what waits in
 * holds is in the held counters. Returns 0 or -ETIMEDOUT (snap then holds
 * a racy copy). */
int vfwd_worker_snapshot(struct vfwd_worker *w, struct vfwd_lcore_stats *snap,
			 unsigned int timeout_us);
/* vfwd_worker_snapshot for workers ws[0..n) into snaps[0..n), the waits
 * overlapping (timeout_us for all of them). Returns 0, or -ETIMEDOUT when
 * some worker did not answer (its copy racy). */
int vfwd_workers_snapshot(struct vfwd_worker *const *ws, uint16_t n, struct vfwd_lcore_stats *snaps,
			  unsigned int timeout_us);
/* A copy of a worker's counters for a thread that is neither its worker
 * nor control (telemetry): word by word (each counter untorn, only ever
 * growing), and retried while control re-initialises the worker
 * (stats_gen odd or changed during the copy). Returns 0, or -EAGAIN when
 * a re-init was still under way after about a millisecond. */
int vfwd_worker_stats_read(const struct vfwd_worker *w, struct vfwd_lcore_stats *out);

#endif /* VFWD_H */
