/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The guest-notification stage (--notify coalesce|adaptive, lib path,
 * DPDK 23.07+): what a worker does with the notifications librte_vhost
 * hands it for the guest receive queues it fills. Private to the data
 * path; each vfwd_notify_q is its worker's alone (doc/modes.md).
 */
#ifndef VFWD_NOTIFY_H
#define VFWD_NOTIFY_H

#include <stdbool.h>
#include <stdint.h>

#include "vfwd.h"
#include "vfwd_port.h"

/* What the knobs come to in TSC cycles (vfwd_notify_clock_set). */
struct vfwd_notify_clock {
	uint64_t hold_tsc; /* notify_usecs */
	uint64_t win_tsc;  /* adaptive: the window its rate is taken over */
};

void vfwd_notify_clock_set(struct vfwd_notify_clock *c, const struct vfwd_knobs *k,
			   uint64_t tsc_per_us);

/* The knobs' mode changed: coalesce holds from the next enqueue on,
 * adaptive starts from immediate and judges afresh. A notification held
 * now stays held until vfwd_notify_due sends it. */
void vfwd_notify_mode_set(struct vfwd_notify_q *nq, enum vfwd_notify_mode mode);

/* The guest_notify op's part (vfwd_vhost_guest_notify, inside the
 * worker's enqueue on nq's queue): takes the notification librte_vhost
 * would send for vring of device vid, if nq holds them now. True: held
 * (librte_vhost then asks for no other on that virtqueue until
 * rte_vhost_notify_guest), false: librte_vhost sends it itself. One still
 * held for a device that went is dropped. */
bool vfwd_notify_take(struct vfwd_notify_q *nq, int vid, uint16_t vring, uint64_t now);

/* After a send of nb_tx frames on nq's queue (was_pending: one was held
 * before it): a burst that went while one waited rode on it. True: enough
 * frames came, send the held one now. */
bool vfwd_notify_after_tx(struct vfwd_notify_q *nq, const struct vfwd_knobs *k, bool was_pending,
			  uint16_t nb_tx);

/* Once a round, for each queue whose port can hold notifications: adaptive
 * looks at the rate. True: send the held one now (it waited hold_tsc, or
 * the queue no longer holds: immediate, or adaptive that stopped; all: a
 * stop, or its device went). */
bool vfwd_notify_due(struct vfwd_notify_q *nq, const struct vfwd_knobs *k,
		     const struct vfwd_notify_clock *c, uint64_t now, bool all);

/* The held one was sent (delivered: its device was still there): nq holds
 * none now; counted, and adaptive judges what holding it was worth. */
void vfwd_notify_sent(struct vfwd_notify_q *nq, const struct vfwd_knobs *k, bool delivered,
		      uint64_t now);

#endif /* VFWD_NOTIFY_H */
