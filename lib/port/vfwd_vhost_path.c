/* SPDX-License-Identifier: BSD-3-Clause
 *
 * --vhost-path lib: the workers call librte_vhost's dequeue and enqueue
 * on the guest's device themselves, as OVS-DPDK does, instead of net_vhost's
 * rx and tx burst. What that skips, per packet: net_vhost's counters, its
 * queuing handshake (two atomic stores a burst) and ethdev's indirection;
 * and, unless --vhost-xstats on, librte_vhost's per-vring xstats (a size
 * bin and a look at the destination address a packet, which net_vhost
 * asks for when it registers the socket: vfwd_compat_vhost_lean drops the
 * ask). The port counters are the workers' own, a packet and byte count
 * per queue. net_vhost still registers the socket and follows the device
 * (new, destroyed, vrings enabled), and vfwd_ports.c keeps the device id
 * in the port state for the workers.
 *
 * The one thing net_vhost's handshake gave that vfwd must give itself: a
 * device is freed (its memory unmapped, its virtqueues released) as soon
 * as the destroy callback returns. So that callback (vfwd's link-down
 * handler, which net_vhost calls from its own) clears the id and then
 * waits in the port's quiesce hook until every worker has ended a round:
 * none is still inside a dequeue or enqueue on the old device.
 */
#include <string.h>

#include <rte_ethdev.h>
#include <rte_cycles.h>
#include <rte_mbuf.h>
#include <rte_per_lcore.h>
#include <rte_vhost.h>

#include "vfwd_compat.h"
#include "vfwd_notify.h"
#include "vfwd_port.h"

/* librte_vhost takes at most this many packets a call (MAX_PKT_BURST in
 * lib/vhost), net_vhost's VHOST_MAX_PKT_BURST */
#define VHOST_CALL_MAX 32

/* The guest's vrings of queue pair q (virtio spec 5.1.2): receiveq 2q
 * (we enqueue into it), transmitq 2q+1 (we dequeue from it). */
static inline uint16_t
guest_tx_vring(uint16_t q)
{
	return 2 * q + 1;
}

static inline uint16_t
guest_rx_vring(uint16_t q)
{
	return 2 * q;
}

uint16_t
vfwd_vhost_lib_rx(const struct vfwd_port_state *st, uint16_t q, struct rte_mbuf **pkts,
		  uint16_t n)
{
	int vid = __atomic_load_n(&st->vid, __ATOMIC_ACQUIRE);
	uint16_t got = 0;

	if (unlikely(vid < 0 || !st->rxq_enabled[q]))
		return 0;
	while (got < n) {
		uint16_t want = RTE_MIN(n - got, VHOST_CALL_MAX);
		uint16_t last = rte_vhost_dequeue_burst(vid, guest_tx_vring(q), st->rx_pool,
							pkts + got, want);

		got += last;
		if (last < want)
			break;
	}
	/* counted by the rx stage, whose walk over the burst has the bytes
	 * (vfwd_port_rx_counted); an mbuf's port is left unset, as nothing
	 * downstream reads it */
	return got;
}

/* The notifications of the enqueue under way on this thread, NULL when
 * none is or its queue does not hold them: the guest_notify op has no
 * argument of ours, and runs inside the enqueue, on the thread calling it. */
static RTE_DEFINE_PER_LCORE(struct vfwd_notify_q *, notify_now);

bool
vfwd_vhost_guest_notify(int vid, uint16_t vring)
{
	struct vfwd_notify_q *nq = RTE_PER_LCORE(notify_now);

	/* another thread's call (none but the workers enqueue), or a queue
	 * that does not hold them: notified at once, as without the op */
	return nq != NULL && vfwd_notify_take(nq, vid, vring, rte_rdtsc());
}

bool
vfwd_vhost_lib_notify(const struct vfwd_port_state *st, const struct vfwd_notify_q *nq)
{
	/* the device it was for may have gone (the id is cleared before the
	 * device is freed, and this worker is not past its round): nothing
	 * to tell then, a new device starts with none held. A guest that
	 * looked by itself meanwhile is told all the same (an interrupt for
	 * nothing, never one missing) */
	bool alive = __atomic_load_n(&st->vid, __ATOMIC_ACQUIRE) == nq->vid;

	if (alive)
		vfwd_compat_notify_guest(nq->vid, nq->vring);
	return alive;
}

uint16_t
vfwd_vhost_lib_tx(const struct vfwd_port_state *st, uint16_t q, struct rte_mbuf **pkts,
		  uint16_t n, struct vfwd_notify_q *nq)
{
	int vid = __atomic_load_n(&st->vid, __ATOMIC_ACQUIRE);
	uint16_t sent = 0;

	/* the worker sends only on a vring the guest enabled
	 * (stream_tx_ready): no second look here */
	if (unlikely(vid < 0))
		return 0;
	if (nq != NULL) {
		nq->vring = guest_rx_vring(q);
		RTE_PER_LCORE(notify_now) = nq;
	}
	while (sent < n) {
		uint16_t want = RTE_MIN(n - sent, VHOST_CALL_MAX);
		uint16_t last = rte_vhost_enqueue_burst(vid, guest_rx_vring(q), pkts + sent, want);

		sent += last;
		if (last < want)
			break;
	}
	RTE_PER_LCORE(notify_now) = NULL;
	/* counted by the tx stage, which has the bytes (vfwd_port_tx_counted);
	 * enqueue copies into the guest's buffers and leaves the mbufs to
	 * the caller: they are ours to free, as a PMD's tx frees them */
	rte_pktmbuf_free_bulk(pkts, sent);
	return sent;
}

/* ------------------------------------------------------------- counters */

void
vfwd_vhost_lib_connected(struct vfwd_port_state *st, int vid)
{
	__atomic_store_n(&st->vid, vid, __ATOMIC_RELEASE);
}

void
vfwd_vhost_lib_disconnected(struct vfwd_port_state *st)
{
	if (st->vid < 0)
		return; /* went before it came (a failed connection) */
	/* what the workers cannot send meanwhile is peer_down */
	st->link_up = 0;
	__atomic_store_n(&st->vid, -1, __ATOMIC_SEQ_CST);
	if (st->quiesce != NULL)
		st->quiesce();
}

/* The queues' counts since setup into c. */
static void
queue_counts(const struct vfwd_port_state *st, struct vfwd_vhost_counts *c)
{
	for (uint16_t q = 0; q < VFWD_MAX_QUEUES; q++) {
		c->rxq_pkts[q] = st->lib_rxq[q].pkts;
		c->rxq_bytes[q] = st->lib_rxq[q].bytes;
		c->txq_pkts[q] = st->lib_txq[q].pkts;
		c->txq_bytes[q] = st->lib_txq[q].bytes;
	}
}

void
vfwd_port_stats_reset(uint16_t port, struct vfwd_port_state *st)
{
	if (!st->vhost_lib) {
		rte_eth_stats_reset(port);
		return;
	}
	/* what is counted now becomes the zero */
	pthread_mutex_lock(&st->lib_lock);
	queue_counts(st, &st->lib_cleared);
	pthread_mutex_unlock(&st->lib_lock);
}

static int
lib_stats(struct vfwd_port_state *st, struct rte_eth_stats *out, uint16_t nb_rxq,
	  uint64_t *rxq_pkts, uint16_t nb_txq, uint64_t *txq_pkts)
{
	struct vfwd_vhost_counts c, zero;

	/* the zero before the counts, both under the lock: a clear between
	 * them would leave a zero above the counts read (a wrapped figure);
	 * this way the counts, which only grow, are never below it */
	pthread_mutex_lock(&st->lib_lock);
	zero = st->lib_cleared;
	queue_counts(st, &c);
	pthread_mutex_unlock(&st->lib_lock);
	for (uint16_t q = 0; q < VFWD_MAX_QUEUES; q++) {
		c.rxq_pkts[q] -= zero.rxq_pkts[q];
		c.txq_pkts[q] -= zero.txq_pkts[q];
		out->ipackets += c.rxq_pkts[q];
		out->opackets += c.txq_pkts[q];
		out->ibytes += c.rxq_bytes[q] - zero.rxq_bytes[q];
		out->obytes += c.txq_bytes[q] - zero.txq_bytes[q];
		if (q < nb_rxq)
			rxq_pkts[q] = c.rxq_pkts[q];
		if (q < nb_txq)
			txq_pkts[q] = c.txq_pkts[q];
	}
	return 0;
}

int
vfwd_port_stats(uint16_t port, const struct vfwd_port_state *st, struct rte_eth_stats *out,
		uint16_t nb_rxq, uint64_t *rxq_pkts, uint16_t nb_txq, uint64_t *txq_pkts)
{
	nb_rxq = RTE_MIN(nb_rxq, (uint16_t)VFWD_COMPAT_MAX_QSTATS);
	nb_txq = RTE_MIN(nb_txq, (uint16_t)VFWD_COMPAT_MAX_QSTATS);
	memset(out, 0, sizeof(*out));
	if (nb_rxq)
		memset(rxq_pkts, 0, sizeof(*rxq_pkts) * nb_rxq);
	if (nb_txq)
		memset(txq_pkts, 0, sizeof(*txq_pkts) * nb_txq);
	if (st->vhost_lib)
		/* the lock is the one thing written: see lib_lock */
		return lib_stats((struct vfwd_port_state *)(uintptr_t)st, out, nb_rxq, rxq_pkts, nb_txq, txq_pkts);
	if (rte_eth_stats_get(port, out) != 0)
		return -EIO;
	if (nb_rxq + nb_txq == 0)
		return 0;
	return vfwd_port_queue_pkts(port, out, nb_rxq, rxq_pkts, nb_txq, txq_pkts);
}
