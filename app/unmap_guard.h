/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The munmap guard for vanishing net_memif peers (unmap_guard.c).
 */
#ifndef VFWD_UNMAP_GUARD_H
#define VFWD_UNMAP_GUARD_H

#include <stdint.h>

#include "vfwd.h"
#include "vfwd_port.h"

struct vfwd_unmap_guard_stats {
	uint64_t unmaps_waited; /* memif unmaps made to wait for running workers */
	uint64_t unmaps_free;   /* ... made while no worker ran */
	uint64_t timeouts;      /* waits cut short (a worker never came round) */
	uint64_t max_wait_us;   /* the longest wait */
	/* --vhost-path lib: devices that went (vfwd_workers_quiesce), and
	 * the waits for them cut short (then a worker may still have been in
	 * the device as it went: a bug to report) */
	uint64_t vhost_waits, vhost_timeouts, vhost_max_wait_us;
};

/* The workers now launched (control, before launching them), or none
 * (NULL, 0: after they all returned, before their array may be freed). */
void vfwd_unmap_guard_set(struct vfwd_worker *const *workers, uint16_t nb_workers);
/* The ports whose PMD gates a memif unmap closes (all of them, once). */
void vfwd_unmap_guard_ports(struct vfwd_port_state *ports, uint16_t nb_ports);
void vfwd_unmap_guard_stats(struct vfwd_unmap_guard_stats *out);
/* Returns once every running worker has ended a round begun before the
 * call (at most GUARD_WAIT_MAX_MS, then a warning): --vhost-path lib's
 * quiesce hook, on the vhost thread before a device goes. */
void vfwd_workers_quiesce(void);
/* What each worker's quiesce_epoch points at. */
const uint32_t *vfwd_unmap_guard_epoch(void);

#endif
