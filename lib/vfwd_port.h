/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Ports (control: vfwd_ports.c) and the state their events leave for the
 * workers: link, queue states, what the guest negotiated, the PMD gate.
 */
#ifndef VFWD_PORT_H
#define VFWD_PORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <net/if.h>
#include <pthread.h>
#include <rte_common.h>

#include "vfwd.h"

#include <rte_ethdev.h>

struct rte_mempool;

/* How workers reach a vhost port's virtqueues (--vhost-path). */
enum vfwd_vhost_path {
	/* rte_eth_rx_burst / rte_eth_tx_burst on net_vhost */
	VFWD_VHOST_PATH_PMD,
	/* rte_vhost_dequeue_burst / rte_vhost_enqueue_burst on the guest's
	 * device, without net_vhost's per-packet work (its counters, the
	 * ethdev indirection) and, unless asked, librte_vhost's per-vring
	 * xstats; net_vhost still owns the socket and the device's life
	 * (vfwd_vhost_path.c) */
	VFWD_VHOST_PATH_LIB,
};

/* ------------------------------------------------------------ peer state */

/* lib path: what the workers moved through one queue of a vhost port, the
 * port's counters there (net_vhost counts nothing on this path, and
 * librte_vhost only with --vhost-xstats on). Written only by the one
 * worker that polls (rx) or sends on (tx) the queue, through a const view
 * of the port state (the cast in vfwd_vhost_qcount_add); read by control and
 * the telemetry thread as the per-lcore stats are (aligned 64-bit words:
 * a read sees the value before or after an add, never a torn one). */
struct vfwd_vhost_qcount {
	uint64_t pkts, bytes;
} __rte_cache_aligned;

/* The lib path's port counters, summed per queue (queue q's rx is the
 * guest's transmitq q). */
struct vfwd_vhost_counts {
	uint64_t rxq_pkts[VFWD_MAX_QUEUES], txq_pkts[VFWD_MAX_QUEUES];
	uint64_t rxq_bytes[VFWD_MAX_QUEUES], txq_bytes[VFWD_MAX_QUEUES];
};

/* Whether a tx queue can take packets now. For a vhost port it follows the
 * guest: written by the vhost event thread (LSC and queue-state callbacks),
 * read by the worker that sends on the queue. Other ports are always sent
 * to; their link (polled by control, vfwd_port_wire_link_poll) only says
 * whether what they did not take was tx_full or peer_down. */
struct vfwd_port_state {
	volatile uint8_t link_up;
	volatile uint8_t txq_enabled[VFWD_MAX_QUEUES];
	/* vhost: whether the guest enabled the vring each rx queue dequeues
	 * from (its transmitq); the lib path dequeues only from those (a
	 * queue the guest never set up is an invalid index there, and
	 * librte_vhost logs one line per call) */
	volatile uint8_t rxq_enabled[VFWD_MAX_QUEUES];
	/* the GSO frames the guest takes, VFWD_GRO_KIND_TCP4 / TCP6 for
	 * GUEST_TSO4 / TSO6 with GUEST_CSUM, 0 for none (looked up once per
	 * connection, on the vhost thread) */
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
	/* --vhost-path lib: the guest's librte_vhost device, -1 while none.
	 * Written by the vhost thread (the device before link_up, -1 before
	 * it waits in quiesce for the workers to come round), read by the
	 * workers on every burst. */
	volatile int vid;
	/* set at init, read-only after */
	bool is_vhost;
	bool vhost_lib;    /* vhost, --vhost-path lib */
	/* lib path: its socket was registered with vfwd's guest_notify op
	 * (vfwd_compat_notify_hook): --notify other than immediate works */
	bool notify_ok;
	/* lib path: its socket was registered without librte_vhost's
	 * per-vring xstats (vfwd_compat_vhost_lean) */
	bool vhost_lean;
	/* lib path: what dequeue allocates from (the rx queues' pool) */
	struct rte_mempool *rx_pool;
	/* lib path: returns once every running worker has ended a round
	 * begun before the call (the vhost thread, before the device goes) */
	void (*quiesce)(void);
	/* lib path, the port counters: each queue's, counted by its worker
	 * since the port was set up (see vfwd_vhost_qcount), and what they
	 * were at the last clear (control, under lib_lock). Reported: the
	 * queues' counts - cleared. */
	struct vfwd_vhost_qcount lib_rxq[VFWD_MAX_QUEUES], lib_txq[VFWD_MAX_QUEUES];
	struct vfwd_vhost_counts lib_cleared;
	pthread_mutex_t lib_lock;
	bool gated;        /* the PMD is called only through pmd_gate */
	bool rx_intr;      /* configured with rx queue interrupts */
	bool rx_intr_fd;   /* ... that are the queue's fd turning readable
			    * (net_tap): nothing to enable or disable */
	bool tx_tso;       /* TCP_TSO offload enabled */
	bool tx_ip_cksum;  /* IPV4_CKSUM offload enabled */
	bool tx_l4_cksum;  /* TCP_CKSUM and UDP_CKSUM offloads enabled */
	bool tx_multi_seg; /* MULTI_SEGS enabled: takes chained mbufs */
	/* vhost: virtio-net features vfwd does not offer the guest, because
	 * no wire port can carry what they let it send (VFWD_VHOST_WITHHELD) */
	uint64_t withheld_features;
	/* MTU + Ethernet header: set at init (--mtu, or the port's own); for
	 * a vhost port rewritten by the vhost thread at each connection to
	 * the smaller of --mtu and what the guest announced
	 * (VHOST_USER_NET_SET_MTU; 1500 if neither says), and read by the
	 * worker sending to it */
	volatile uint16_t max_frame;
	uint16_t mtu_given; /* --mtu, 0 for none (set at init) */
	/* --mtu given, but the PMD sets none (set_mtu: -ENOTSUP, net_pcap):
	 * vfwd sends it frames up to --mtu all the same (set at init) */
	bool mtu_not_set;
	/* net_af_packet: the kernel interface's MTU before --mtu changed it,
	 * put back at teardown (0: unchanged) */
	uint16_t kernel_mtu_before;
	char kernel_ifname[IF_NAMESIZE + 1];
	/* vhost: the MTU the guest announced at its last connection, 0 for
	 * none (vhost thread; control reports a mismatch) */
	volatile uint16_t guest_mtu;
	/* vhost: the virtio features the guest negotiated at its last
	 * connection (vhost thread; reported: ring layout, mergeable rx
	 * buffers, event index, indirect descriptors) */
	volatile uint64_t guest_features;
} __rte_cache_aligned;

/* ----------------------------------------------------------------- ports */

struct vfwd_port_conf {
	uint16_t nb_rxq, nb_txq;
	uint16_t nb_rxd, nb_txd;
	/* the MTU of every port (--mtu); 0: each its own (1500, a vhost port
	 * the guest's) */
	uint16_t mtu;
	enum vfwd_vhost_path vhost_path; /* for vhost ports */
	/* lib path: librte_vhost keeps its per-vring xstats (size bins,
	 * multicast, guest notifications), at a cost per packet; the pmd
	 * path always keeps them (net_vhost's xstats are those) */
	bool vhost_xstats;
	void (*quiesce)(void);           /* see vfwd_port_state */
};

/* The largest --mtu vfwd takes. */
#define VFWD_MTU_MAX 16000
#define VFWD_MTU_MIN 68

/* What a port needs for frames of an MTU, before it is set up. */
struct vfwd_port_mtu_caps {
	uint16_t max_mtu;  /* the largest it takes */
	/* the data room each rx mbuf must have (frames are not chained), 0
	 * if it chains or scatters frames over mbufs */
	uint32_t rx_room;
	/* why max_mtu is what it is, for an error message */
	const char *limit_why;
};

/* The MTU limits of a port for frames of mtu, with rx mbufs of
 * data_room bytes (control, before vfwd_port_setup). 0 or -errno. */
int vfwd_port_mtu_caps(uint16_t port, uint16_t mtu, uint32_t data_room,
		       struct vfwd_port_mtu_caps *caps);

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
/* ------------------------------------------------------------- bursts */

struct vfwd_stream_stats;

/* --notify coalesce/adaptive: the guest notifications of one guest
 * receiveq as vfwd holds them. Owned by the worker that sends on it: the
 * guest_notify op (vfwd_vhost_guest_notify) runs inside that worker's
 * enqueue, and only then takes one. */
struct vfwd_notify_q {
	bool pending;   /* librte_vhost handed one over that is not sent yet
			 * (it asks for no other on the virtqueue until it is:
			 * its irq_pending) */
	bool defer;     /* take the next one (coalesce; adaptive as the rate says) */
	uint16_t vring; /* the guest receiveq of the enqueue under way */
	int vid;        /* the device the pending one is for */
	uint32_t frames;    /* frames enqueued since it came */
	uint64_t since_tsc; /* when it came */
	uint32_t *nb_pending; /* the worker's count of pending ones */
	struct vfwd_stream_stats *stats; /* notify_* of the stream */
	uint32_t rides;     /* bursts enqueued while it waited */
	/* adaptive: frames enqueued since win_tsc; of the last sends held
	 * back, how many had a burst ride on them; windows to stay
	 * immediate after a probe that found holding useless, and after the
	 * next one */
	uint64_t win_tsc;
	uint32_t win_frames;
	uint8_t probe_sends, probe_rode;
	uint16_t backoff, backoff_next;
};

/* The two ways to a vhost port's virtqueues (vfwd_vhost_path.c): queue q's
 * rx is the guest's tx vring, its tx the guest's rx vring. tx takes the
 * mbufs it sent, as rte_eth_tx_burst does. */
uint16_t vfwd_vhost_lib_rx(const struct vfwd_port_state *st, uint16_t q, struct rte_mbuf **pkts,
			   uint16_t n);
uint16_t vfwd_vhost_lib_tx(const struct vfwd_port_state *st, uint16_t q, struct rte_mbuf **pkts,
			   uint16_t n, struct vfwd_notify_q *nq);
/* The guest_notify op (lib path, 23.07+): takes the notification if the
 * enqueue under way on this thread is one whose queue defers them. */
bool vfwd_vhost_guest_notify(int vid, uint16_t vring);
/* Sends the notification nq holds if its device is still st's, and says
 * whether it was (the worker owning nq; vfwd_notify_sent does the rest). */
bool vfwd_vhost_lib_notify(const struct vfwd_port_state *st, const struct vfwd_notify_q *nq);

/* A burst from a port's rx queue: the one call the workers make to
 * receive. */
static inline uint16_t
vfwd_port_rx(uint16_t port, const struct vfwd_port_state *st, uint16_t q, struct rte_mbuf **pkts,
	     uint16_t n)
{
	if (st->vhost_lib)
		return vfwd_vhost_lib_rx(st, q, pkts, n);
	return rte_eth_rx_burst(port, q, pkts, n);
}

/* Sends up to n of pkts on a port's tx queue, returns how many it took
 * (and owns now): the one call the workers make to send. nq: the queue's
 * notifications when vfwd holds them (lib path), else NULL. */
static inline uint16_t
vfwd_port_tx(uint16_t port, const struct vfwd_port_state *st, uint16_t q, struct rte_mbuf **pkts,
	     uint16_t n, struct vfwd_notify_q *nq)
{
	if (st->vhost_lib)
		return vfwd_vhost_lib_tx(st, q, pkts, n, nq);
	return rte_eth_tx_burst(port, q, pkts, n);
}

/* Adds a burst to one of a lib-path port's queue counters, through the
 * const view of the port state the workers hold (see vfwd_vhost_qcount:
 * its one writer is the worker on that queue). */
static inline void
vfwd_vhost_qcount_add(const struct vfwd_vhost_qcount *q, uint16_t n, uint64_t bytes)
{
	struct vfwd_vhost_qcount *c = (struct vfwd_vhost_qcount *)(uintptr_t)q;

	c->pkts += n;
	c->bytes += bytes;
}

/* Counts what the rx stage took from queue q (n packets, bytes long) where
 * vfwd keeps the port's counters (the lib path's vhost ports): the stage's
 * one walk over the burst has the bytes, so the port does not walk it
 * again. An ethdev counts its own. */
static inline void
vfwd_port_rx_counted(const struct vfwd_port_state *st, uint16_t q, uint16_t n, uint64_t bytes)
{
	if (st->vhost_lib)
		vfwd_vhost_qcount_add(&st->lib_rxq[q], n, bytes);
}

/* The same for what vfwd_port_tx took, by the tx stage. */
static inline void
vfwd_port_tx_counted(const struct vfwd_port_state *st, uint16_t q, uint16_t n, uint64_t bytes)
{
	if (st->vhost_lib)
		vfwd_vhost_qcount_add(&st->lib_txq[q], n, bytes);
}

/* A port's counters as rte_eth_stats_get gives them, and the packets of
 * each of its first nb_rxq / nb_txq queues (at most VFWD_COMPAT_MAX_QSTATS).
 * On the lib path a vhost port's are the workers' own (vfwd_vhost_qcount),
 * over every connection since setup. Control plane. 0 or -errno (queue arrays zeroed). */
int vfwd_port_stats(uint16_t port, const struct vfwd_port_state *st, struct rte_eth_stats *out,
		    uint16_t nb_rxq, uint64_t *rxq_pkts, uint16_t nb_txq, uint64_t *txq_pkts);

/* Zeroes what vfwd_port_stats reports (control plane). */
void vfwd_port_stats_reset(uint16_t port, struct vfwd_port_state *st);
/* lib path, vhost thread: guest device vid came; the workers may call it
 * once this returns. */
void vfwd_vhost_lib_connected(struct vfwd_port_state *st, int vid);
/* lib path, vhost thread, in the destroy callback: the workers leave the
 * device (st->quiesce) before it is freed. */
void vfwd_vhost_lib_disconnected(struct vfwd_port_state *st);

/* The interrupts vhost has raised into the guest ("calls": net_vhost's
 * per-virtqueue guest_notifications xstats, both rings, since the device
 * came) into *calls. 0, or -ENOTSUP for a port without them (not vhost, or
 * a net_vhost not counting per virtqueue). Control plane: it allocates. */
int vfwd_port_guest_calls(uint16_t port, uint64_t *calls);
/* A port's iface devarg into path: net_vhost's socket path, or the
 * kernel interface of net_af_packet and net_tap; *client (if not NULL):
 * net_vhost connects to it (client=1). -errno (-ENOENT: none). */
int vfwd_port_iface(uint16_t port, char *path, size_t len, bool *client);

#endif /* VFWD_PORT_H */
