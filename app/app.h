/* SPDX-License-Identifier: BSD-3-Clause
 *
 * State of one dpdk-vfwd process, owned by the main lcore. Workers get
 * their own struct vfwd_worker and never see this.
 */
#ifndef VFWD_APP_H
#define VFWD_APP_H

#include <limits.h>

#include "options.h"
#include "vfwd.h"

struct rte_mempool;

struct vfwd_app {
	struct vfwd_options opt;
	struct rte_mempool *pool;
	struct rte_mempool *indirect_pool; /* for software segmentation */
	unsigned int pool_in_use_at_start; /* after ports started, before workers */

	uint16_t nb_pairs;
	struct vfwd_pair pairs[VFWD_MAX_PAIRS];
	uint16_t nb_ports; /* ports in pairs, in pair order: vm, wire, vm, ... */
	uint16_t ports[2 * VFWD_MAX_PAIRS];
	struct vfwd_port_state port_state[VFWD_MAX_PORTS];
	bool port_started[VFWD_MAX_PORTS];

	uint16_t nb_workers;
	struct vfwd_worker *workers;       /* [nb_workers], rte_zmalloc'd */
	uint16_t nb_offload_init;          /* workers whose offload state exists */
	struct vfwd_lcore_stats *last;     /* [nb_workers]: at the last report */
	bool running;

	uint64_t tsc_hz;
	uint64_t start_tsc, last_tsc;

	char vhost_sock[PATH_MAX]; /* the embedded default's socket, or "" */
	char tap_name[32];
};

/* report.c */
void vfwd_report(struct vfwd_app *app, bool final);

#endif
