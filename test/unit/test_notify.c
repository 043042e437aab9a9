/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The guest-notification stage (lib/dp/vfwd_notify.c) on its own, no EAL
 * and no guest: what librte_vhost hands over is taken or passed through,
 * what is held goes by time, by frames, at a switch or a stop, and
 * adaptive holds under a rate and lets go where nothing rides on a hold.
 * The real guest's side: test/e2e/test_notify.py.
 */
#include <string.h>

#include "check.h"
#include "vfwd.h"
#include "vfwd_notify.h"
#include "vfwd_stats.h"

#define US 1000 /* TSC cycles a microsecond, here */
#define RXQ 2   /* the guest receiveq's vring: queue 0's */
#define TXQ 1

struct rig {
	struct vfwd_notify_q nq;
	struct vfwd_stream_stats stats;
	uint32_t nb_pending;
	struct vfwd_knobs k;
	struct vfwd_notify_clock c;
};

static void
rig_init(struct rig *r, enum vfwd_notify_mode mode, uint32_t usecs, uint32_t frames)
{
	memset(r, 0, sizeof(*r));
	r->nq.vid = -1;
	r->nq.vring = RXQ;
	r->nq.stats = &r->stats;
	r->nq.nb_pending = &r->nb_pending;
	r->k.notify = mode;
	r->k.notify_usecs = usecs;
	r->k.notify_frames = frames;
	vfwd_notify_clock_set(&r->c, &r->k, US);
	vfwd_notify_mode_set(&r->nq, mode);
}

/* One enqueue of n frames at now, as the worker does it: the op may be
 * asked (ask), then after_tx; the held one sent if either says so.
 * Returns whether a notification reached the guest at this enqueue
 * (librte_vhost's own, or vfwd's). */
static bool
enqueue(struct rig *r, uint64_t now, uint16_t n, bool ask)
{
	bool was_pending = r->nq.pending;
	bool told = false;

	if (ask)
		told = !vfwd_notify_take(&r->nq, 7, RXQ, now);
	if (vfwd_notify_after_tx(&r->nq, &r->k, was_pending, n)) {
		vfwd_notify_sent(&r->nq, &r->k, true, now);
		told = true;
	}
	return told;
}

/* The end of a round at now; whether it sent the held one. */
static bool
round_end(struct rig *r, uint64_t now, bool all)
{
	if (!vfwd_notify_due(&r->nq, &r->k, &r->c, now, all))
		return false;
	vfwd_notify_sent(&r->nq, &r->k, true, now);
	return true;
}

static void
immediate_passes_everything_through(void)
{
	struct rig r;

	rig_init(&r, VFWD_NOTIFY_IMMEDIATE, 50, 32);
	CHECK(enqueue(&r, 0, 4, true));
	CHECK(!r.nq.pending && r.nb_pending == 0 && r.stats.notify_deferred == 0);
	CHECK(!round_end(&r, 1000 * US, false));
}

static void
coalesce_holds_until_its_time(void)
{
	struct rig r;

	rig_init(&r, VFWD_NOTIFY_COALESCE, 50, 32);
	CHECK(!enqueue(&r, 100 * US, 4, true)); /* held */
	CHECK(r.nq.pending && r.nb_pending == 1 && r.stats.notify_deferred == 1);
	CHECK(!round_end(&r, 149 * US, false));
	/* a burst that came meanwhile rides on it; librte_vhost does not ask
	 * again (event index: the guest has not looked) */
	CHECK(!enqueue(&r, 120 * US, 4, false));
	CHECK(r.stats.notify_coalesced == 1);
	CHECK(round_end(&r, 150 * US, false));
	CHECK(!r.nq.pending && r.nb_pending == 0 && r.stats.notify_sent == 1);
	CHECK(r.stats.notify_wait_tsc == 50 * US);
	/* nothing held: nothing due */
	CHECK(!round_end(&r, 500 * US, false));
}

static void
coalesce_sends_once_enough_frames_came(void)
{
	struct rig r;

	rig_init(&r, VFWD_NOTIFY_COALESCE, 1000, 32);
	CHECK(!enqueue(&r, 0, 20, true));
	CHECK(enqueue(&r, 10 * US, 12, false)); /* 32 frames */
	CHECK(r.stats.notify_sent == 1 && !r.nq.pending && r.nb_pending == 0);
}

/* librte_vhost asks for no other notification on a virtqueue while one
 * is held (its irq_pending): an ask while one is held comes from a device
 * that replaced the one it was held for. The old one is dropped (nothing
 * to tell a device that went), the new one held, and sent, so that the new
 * queue is not left silent. */
static void
a_new_device_while_one_is_held_gets_its_own(void)
{
	struct rig r;

	rig_init(&r, VFWD_NOTIFY_COALESCE, 50, 1000);
	CHECK(vfwd_notify_take(&r.nq, 7, RXQ, 0));
	CHECK(r.nq.pending && r.nq.vid == 7 && r.nb_pending == 1);
	CHECK(vfwd_notify_take(&r.nq, 9, RXQ, 10 * US));
	CHECK(r.nq.pending && r.nq.vid == 9 && r.nb_pending == 1 && r.stats.notify_deferred == 2);
	CHECK(!round_end(&r, 59 * US, false));
	CHECK(round_end(&r, 60 * US, false));
	CHECK(r.stats.notify_sent == 1 && r.stats.notify_wait_tsc == 50 * US && r.nb_pending == 0);
}

static void
the_guests_transmitq_is_not_held(void)
{
	struct rig r;

	rig_init(&r, VFWD_NOTIFY_COALESCE, 50, 32);
	CHECK(!vfwd_notify_take(&r.nq, 7, TXQ, 0));
	CHECK(!r.nq.pending && r.stats.notify_deferred == 0);
}

static void
a_switch_to_immediate_or_a_stop_sends_what_is_held(void)
{
	struct rig r;

	rig_init(&r, VFWD_NOTIFY_COALESCE, 1000000, 1000);
	CHECK(!enqueue(&r, 0, 1, true));
	r.k.notify = VFWD_NOTIFY_IMMEDIATE;
	vfwd_notify_mode_set(&r.nq, VFWD_NOTIFY_IMMEDIATE);
	CHECK(r.nq.pending); /* still held until the round's end */
	CHECK(round_end(&r, 1 * US, false));
	CHECK(r.stats.notify_sent == 1 && r.nb_pending == 0);

	rig_init(&r, VFWD_NOTIFY_COALESCE, 1000000, 1000);
	CHECK(!enqueue(&r, 0, 1, true));
	CHECK(!round_end(&r, 1 * US, false));
	CHECK(round_end(&r, 2 * US, true)); /* a stop */
	CHECK(r.stats.notify_sent == r.stats.notify_deferred && r.nb_pending == 0);
}

static void
a_device_gone_gets_nothing_and_leaves_nothing_held(void)
{
	struct rig r;

	rig_init(&r, VFWD_NOTIFY_COALESCE, 50, 32);
	CHECK(!enqueue(&r, 0, 1, true));
	vfwd_notify_sent(&r.nq, &r.k, false, 50 * US);
	CHECK(!r.nq.pending && r.nb_pending == 0);
	CHECK(r.stats.notify_deferred == 1 && r.stats.notify_sent == 0);
	CHECK(vfwd_notify_take(&r.nq, 7, RXQ, 60 * US)); /* holds again */
	CHECK(r.nq.pending && r.stats.notify_deferred == 2);
}

/* A window of traffic for adaptive: every gap us an enqueue of one frame
 * (the op asked when nothing is held: the guest looked since), rounds
 * between; ride: a second frame a microsecond later, which rides on a
 * held one. Returns the notifications the guest got. */
static unsigned int
traffic(struct rig *r, uint64_t *now, uint64_t until, uint64_t gap, bool ride)
{
	unsigned int told = 0;

	while (*now < until) {
		told += enqueue(r, *now, 1, !r->nq.pending);
		if (ride)
			told += enqueue(r, *now + US, 1, false);
		for (uint64_t t = *now; t < *now + gap; t += 10 * US)
			told += round_end(r, t, false);
		*now += gap;
	}
	return told;
}

static void
adaptive_holds_under_a_rate_where_bursts_ride(void)
{
	struct rig r;
	uint64_t now = 1;
	unsigned int told;

	rig_init(&r, VFWD_NOTIFY_ADAPTIVE, 200, 1000);
	/* starts immediate */
	CHECK(!r.nq.defer);
	/* one frame every 50 us, with one riding on it: 4 per 200 us */
	traffic(&r, &now, 20000 * US, 50 * US, true);
	CHECK(r.nq.defer);
	told = traffic(&r, &now, 40000 * US, 50 * US, true);
	/* 400 enqueue pairs in 20 ms; held 200 us each, about 100 sent */
	CHECK(told >= 80 && told <= 120);
	CHECK(r.stats.notify_coalesced > r.stats.notify_sent);
}

/* Request/response with one in flight: a request toward the guest, whose
 * answer (and with it the next request) comes think us after the guest
 * was told of it. Returns the requests, and adds up how long they waited
 * to be told. */
static unsigned int
requests(struct rig *r, uint64_t *now, uint64_t until, uint64_t think, uint64_t *waited)
{
	unsigned int n = 0;

	while (*now < until) {
		uint64_t t = *now;

		n++;
		if (!enqueue(r, t, 1, true))
			do
				t += 10 * US;
			while (!round_end(r, t, false));
		*waited += t - *now;
		/* the worker's rounds while the guest thinks */
		for (uint64_t u = t + 10 * US; u < t + think; u += 10 * US)
			round_end(r, u, false);
		*now = t + think;
	}
	return n;
}

static void
adaptive_lets_go_where_nothing_rides(void)
{
	struct rig r;
	uint64_t now = 1, waited = 0;
	unsigned int n;
	uint64_t deferred;

	rig_init(&r, VFWD_NOTIFY_ADAPTIVE, 200, 1000);
	/* a request every 150 us at most: fast enough to try holding, but
	 * nothing can ride on a held one */
	requests(&r, &now, 20000 * US, 150 * US, &waited);
	deferred = r.stats.notify_deferred;
	waited = 0;
	n = requests(&r, &now, 1020000 * US, 150 * US, &waited);
	/* over a second, the probes that held (4 sends each, after backoffs
	 * that double up to 256 windows of 3.2 ms) are under 1% of the
	 * requests, and the mean wait under 1% of the hold */
	CHECK(n > 2500);
	CHECK(deferred > 0); /* it did try */
	CHECK((r.stats.notify_deferred - deferred) * 100 <= n);
	CHECK(waited <= (uint64_t)n * 2 * US);
	/* coalesce, for comparison, holds every one for 200 us */
	rig_init(&r, VFWD_NOTIFY_COALESCE, 200, 1000);
	now = 1, waited = 0;
	n = requests(&r, &now, 100000 * US, 150 * US, &waited);
	CHECK(r.stats.notify_deferred == n && waited >= (uint64_t)n * 200 * US);
	/* and slow traffic never holds under adaptive */
	rig_init(&r, VFWD_NOTIFY_ADAPTIVE, 200, 1000);
	now = 1;
	traffic(&r, &now, 100000 * US, 1000 * US, true);
	CHECK(r.stats.notify_deferred == 0);
}

int
main(void)
{
	RUN(immediate_passes_everything_through);
	RUN(coalesce_holds_until_its_time);
	RUN(coalesce_sends_once_enough_frames_came);
	RUN(a_new_device_while_one_is_held_gets_its_own);
	RUN(the_guests_transmitq_is_not_held);
	RUN(a_switch_to_immediate_or_a_stop_sends_what_is_held);
	RUN(a_device_gone_gets_nothing_and_leaves_nothing_held);
	RUN(adaptive_holds_under_a_rate_where_bursts_ride);
	RUN(adaptive_lets_go_where_nothing_rides);
	return CHECK_DONE();
}
