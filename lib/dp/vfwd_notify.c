/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The guest-notification stage: see vfwd_notify.h. The guest_notify op
 * that hands a notification over (vfwd_vhost_guest_notify) runs inside the
 * worker's enqueue, in port/vfwd_vhost_path.c; what happens to it after
 * is here.
 */
#include <rte_common.h>

#include "vfwd_notify.h"
#include "vfwd_stats.h"

/* adaptive: sends held back that a probe looks at, and the longest it
 * then stays immediate (in windows) */
#define PROBE_SENDS 4
#define BACKOFF_MAX 256

void
vfwd_notify_clock_set(struct vfwd_notify_clock *c, const struct vfwd_knobs *k,
		      uint64_t tsc_per_us)
{
	c->hold_tsc = (uint64_t)k->notify_usecs * tsc_per_us;
	/* sixteen coalescing periods, at least a millisecond: long enough to
	 * see a rate in, short enough to follow a change of load */
	c->win_tsc = RTE_MAX(16 * c->hold_tsc, 1000 * tsc_per_us);
}

void
vfwd_notify_mode_set(struct vfwd_notify_q *nq, enum vfwd_notify_mode mode)
{
	nq->defer = mode == VFWD_NOTIFY_COALESCE;
	nq->backoff = 0;
	nq->backoff_next = 1;
	nq->probe_sends = nq->probe_rode = 0;
}

/* adaptive, after a send that was held back: holding is worth it when
 * bursts ride on what is held; when most of a probe's waited for nothing
 * (a request that waits for its answer: nothing can ride on it), back to
 * immediate for a while, twice as long each time it proves useless again */
static void
judge(struct vfwd_notify_q *nq)
{
	nq->probe_sends++;
	nq->probe_rode += nq->rides > 0;
	if (nq->probe_sends < PROBE_SENDS)
		return;
	if (2 * nq->probe_rode < nq->probe_sends) {
		nq->defer = false;
		nq->backoff = nq->backoff_next;
		nq->backoff_next = RTE_MIN(2 * nq->backoff_next, BACKOFF_MAX);
	} else {
		nq->backoff_next = 1;
	}
	nq->probe_sends = nq->probe_rode = 0;
}

bool
vfwd_notify_take(struct vfwd_notify_q *nq, int vid, uint16_t vring, uint64_t now)
{
	/* the guest's transmitq (after a dequeue) is told at once, as
	 * without the op */
	if (!nq->defer || vring != nq->vring)
		return false;
	if (nq->pending) {
		/* librte_vhost asks for no other while one is held (the
		 * virtqueue's irq_pending, until rte_vhost_notify_guest), so
		 * this is a device that replaced the one the held one was
		 * for. That one went: nothing to tell it. This one must be
		 * sent, or the new queue would never interrupt again. */
		if (nq->vid == vid)
			return true;
		nq->pending = false;
		(*nq->nb_pending)--;
	}
	nq->pending = true;
	nq->vid = vid;
	nq->frames = 0;
	nq->rides = 0;
	nq->since_tsc = now;
	(*nq->nb_pending)++;
	nq->stats->notify_deferred++;
	return true;
}

void
vfwd_notify_sent(struct vfwd_notify_q *nq, const struct vfwd_knobs *k, bool delivered,
		 uint64_t now)
{
	nq->pending = false;
	(*nq->nb_pending)--;
	if (delivered) {
		nq->stats->notify_sent++;
		nq->stats->notify_wait_tsc += now - nq->since_tsc;
	}
	if (k->notify == VFWD_NOTIFY_ADAPTIVE)
		judge(nq);
}

bool
vfwd_notify_after_tx(struct vfwd_notify_q *nq, const struct vfwd_knobs *k, bool was_pending,
		     uint16_t nb_tx)
{
	nq->win_frames += nb_tx;
	if (!nq->pending)
		return false;
	if (was_pending && nb_tx) {
		nq->stats->notify_coalesced++;
		nq->rides++;
	}
	nq->frames += nb_tx;
	return nq->frames >= k->notify_frames;
}

/* adaptive (the kernel's DIM, by rate and by what it gains), at the end
 * of each window: try holding notifications when frames came at one per
 * notify_usecs or faster (unless a probe found it useless not long ago:
 * judge), stop below half that rate */
static void
adapt(struct vfwd_notify_q *nq, const struct vfwd_notify_clock *c, uint64_t now)
{
	uint64_t span = now - nq->win_tsc;
	uint64_t per_period = (uint64_t)nq->win_frames * c->hold_tsc;

	if (span < c->win_tsc)
		return;
	if (!nq->defer) {
		if (nq->backoff > 0)
			nq->backoff--;
		else if (per_period >= span) {
			nq->defer = true;
			nq->probe_sends = nq->probe_rode = 0;
		}
	} else if (2 * per_period < span) {
		nq->defer = false;
	}
	nq->win_tsc = now;
	nq->win_frames = 0;
}

bool
vfwd_notify_due(struct vfwd_notify_q *nq, const struct vfwd_knobs *k,
		const struct vfwd_notify_clock *c, uint64_t now, bool all)
{
	if (k->notify == VFWD_NOTIFY_ADAPTIVE)
		adapt(nq, c, now);
	return nq->pending && (all || !nq->defer || now - nq->since_tsc >= c->hold_tsc);
}
