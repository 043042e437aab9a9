/* SPDX-License-Identifier: BSD-3-Clause
 *
 * An ethdev on two rings (net_ring's rte_eth_from_rings), one queue each
 * way, started: the caller fills rx and empties tx. For the worker's unit
 * tests and bench/worker_stage.c.
 */
#ifndef VFWD_UNIT_RING_PORT_H
#define VFWD_UNIT_RING_PORT_H

#include <stdio.h>
#include <string.h>

#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_mempool.h>
#include <rte_ring.h>

/* The port's id, or -1 (what was made is left to the caller's exit). */
static inline int
unit_ring_port(const char *name, unsigned int size, struct rte_mempool *pool,
	       struct rte_ring **rx, struct rte_ring **tx)
{
	struct rte_eth_conf conf;
	char ring[RTE_RING_NAMESIZE];
	int port;

	memset(&conf, 0, sizeof(conf));
	snprintf(ring, sizeof(ring), "%.24s_rx", name);
	*rx = rte_ring_create(ring, size, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
	snprintf(ring, sizeof(ring), "%.24s_tx", name);
	*tx = rte_ring_create(ring, size, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (*rx == NULL || *tx == NULL)
		return -1;
	port = rte_eth_from_rings(name, rx, 1, tx, 1, 0);
	if (port < 0 || rte_eth_dev_configure((uint16_t)port, 1, 1, &conf) != 0 ||
	    rte_eth_rx_queue_setup((uint16_t)port, 0, (uint16_t)size, 0, NULL, pool) != 0 ||
	    rte_eth_tx_queue_setup((uint16_t)port, 0, (uint16_t)size, 0, NULL) != 0 ||
	    rte_eth_dev_start((uint16_t)port) != 0)
		return -1;
	return port;
}

#endif
