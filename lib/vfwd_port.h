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
#include <rte_common.h>

#include "vfwd.h"

struct rte_mempool;

/* ------------------------------------------------------------ peer state */

/* Whether a tx queue can take packets now. For a vhost port it follows the
 * guest: written by the vhost event thread (LSC and queue-state callbacks),
 * read by the worker that sends on the queue. Other ports are always sent
 * to; their link (polled by control, vfwd_port_wire_link_poll) only says
 * whether what they did not take was tx_full or peer_down. */
struct vfwd_port_state {
	volatile uint8_t link_up;
	volatile uint8_t txq_enabled[VFWD_MAX_QUEUES];
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
	/* set at init, read-only after */
	bool is_vhost;
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
