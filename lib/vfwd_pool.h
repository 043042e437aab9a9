/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Sizing the mbuf pool for what a configuration can hold at once, and the
 * largest pipeline it allows (lib/model/vfwd_pool.c: pure).
 */
#ifndef VFWD_POOL_H
#define VFWD_POOL_H

#include <stdint.h>

#include "vfwd.h"

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
	uint32_t max_frame;      /* the longest frame a port takes (--mtu); 0: one mbuf */
};

/* Mbufs that the configuration n can hold at once: ports' descriptors,
 * lcore caches, each worker's burst in flight (guest TSO chains and the
 * segments made from them), backlog or pipeline rings, tx holds, GRO held
 * segments, each a chain of ceil(max_frame / data_room) mbufs where the MTU
asks for more than one (a PMD that chains what it receives, net_memif,
splits a frame where an allocation fails within it). Covers every value the runtime knobs allow, but backlog sizes
 * above n->backlog (see the terms in vfwd_pool.c). Pure. */
unsigned int vfwd_pool_size(const struct vfwd_pool_need *n);
/* The pipeline R:W with the most rings (R x W) that nb_workers worker
 * lcores and nb_txq tx queues allow; 0:0 if none. */
void vfwd_pipe_max(uint16_t nb_workers, uint16_t nb_txq, uint16_t *nb_rx, uint16_t *nb_work);

#endif /* VFWD_POOL_H */
