/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Knob changes for a set of workers, all or none (control plane, main
 * lcore). The per-worker handoff is vfwd_worker_publish (vfwd_worker.c).
 */
#include <errno.h>

#include <rte_cycles.h>
#include <rte_pause.h>

#include "vfwd_worker.h"

/* Whether a running worker still has to take the last set published to
 * it: then vfwd_worker_publish would refuse to write (-EBUSY). */
static bool
publish_pending(const struct vfwd_worker *w)
{
	return w->running && __atomic_load_n(&w->knob_gen_seen, __ATOMIC_ACQUIRE) != w->knob_gen;
}

int
vfwd_workers_publish(struct vfwd_worker *const *ws, uint16_t n, const struct vfwd_knobs *knobs,
		     unsigned int timeout_us, uint16_t *who)
{
	uint64_t deadline = rte_get_timer_cycles() + rte_get_timer_hz() / 1000000 * timeout_us;
	int ret = 0;

	/* First every worker ready, or nothing written anywhere: once a
	 * worker has taken gen g only we move knob_gen, so it stays ready
	 * and vfwd_worker_publish below cannot return -EBUSY. */
	for (uint16_t w = 0; w < n; w++) {
		while (publish_pending(ws[w])) {
			if (rte_get_timer_cycles() > deadline) {
				*who = w;
				return -EBUSY;
			}
			rte_pause();
		}
	}
	for (uint16_t w = 0; w < n; w++) {
		int r = vfwd_worker_publish(ws[w], knobs, timeout_us);

		if (r != 0 && ret == 0) {
			*who = w;
			ret = r; /* -ETIMEDOUT: written, taken when it comes back */
		}
	}
	return ret;
}
