/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Knob changes for all workers or none (vfwd_workers_publish): a worker
 * that has not taken the previous set makes the change fail before any
 * worker is given the new one. No EAL: the workers are structs, "running"
 * ones never acknowledge, and the timeouts run out at once.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "vfwd_worker.h"

#define NB 3

static struct vfwd_worker *ws;
static struct vfwd_worker *wp[NB]; /* what vfwd_workers_publish takes: &ws[i] */
static const struct vfwd_knobs old_set = {.burst = 32, .tx_batch = 1};
static const struct vfwd_knobs new_set = {.burst = 8, .tx_batch = 16};

static void
reset(void)
{
	memset(ws, 0, NB * sizeof(ws[0]));
	for (int i = 0; i < NB; i++)
		ws[i].knob_slot[0] = old_set;
}

static bool
took(const struct vfwd_worker *w, const struct vfwd_knobs *k, uint32_t gen)
{
	return w->knob_gen == gen && memcmp(&w->knob_slot[gen & 1], k, sizeof(*k)) == 0;
}

static void
stopped_workers_all_get_it(void)
{
	uint16_t who = 99;

	reset();
	CHECK(vfwd_workers_publish(wp, NB, &new_set, 1000, &who) == 0);
	for (int i = 0; i < NB; i++)
		CHECK(took(&ws[i], &new_set, 1));
	CHECK(who == 99);
}

static void
one_stuck_worker_means_none_is_written(void)
{
	uint16_t who = 99;

	reset();
	/* worker 1 runs and has not taken gen 1 yet */
	ws[1].running = 1;
	ws[1].knob_gen = 1;
	ws[1].knob_slot[1] = old_set;
	CHECK(vfwd_workers_publish(wp, NB, &new_set, 1000, &who) == -EBUSY);
	CHECK(who == 1);
	/* worker 0 came before the stuck one: still untouched */
	CHECK(took(&ws[0], &old_set, 0) && memcmp(&ws[0].knob_slot[1], &new_set,
						  sizeof(new_set)) != 0);
	CHECK(took(&ws[1], &old_set, 1));
	CHECK(took(&ws[2], &old_set, 0));
}

static void
late_worker_is_written_and_named(void)
{
	uint16_t who = 99;

	reset();
	/* worker 2 runs, took everything so far, but does not come back for
	 * the new set within the timeout: written, it takes it late */
	ws[2].running = 1;
	CHECK(vfwd_workers_publish(wp, NB, &new_set, 1000, &who) == -ETIMEDOUT);
	CHECK(who == 2);
	for (int i = 0; i < NB; i++)
		CHECK(took(&ws[i], &new_set, 1));
	/* still not taken: the next change fails whole */
	who = 99;
	CHECK(vfwd_workers_publish(wp, NB, &old_set, 1000, &who) == -EBUSY);
	CHECK(who == 2);
	for (int i = 0; i < NB; i++)
		CHECK(took(&ws[i], &new_set, 1));
}

int
main(void)
{
	ws = aligned_alloc(RTE_CACHE_LINE_SIZE, NB * sizeof(ws[0]));
	if (ws == NULL)
		return 1;
	for (int i = 0; i < NB; i++)
		wp[i] = &ws[i];
	RUN(stopped_workers_all_get_it);
	RUN(one_stuck_worker_means_none_is_written);
	RUN(late_worker_is_written_and_named);
	free(ws);
	return CHECK_DONE();
}
