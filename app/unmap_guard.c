/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Keeps a vanishing net_memif peer from crashing the forwarder.
 *
 * When its peer goes away, the memif PMD of DPDK 22.11 disconnects from the
 * EAL interrupt thread: it marks the port down, then munmap()s the shared
 * regions at once, without waiting for the data path. A worker that was
 * already inside rte_eth_rx_burst or rte_eth_tx_burst on that port (past
 * the PMD's "connected" check) then touches unmapped memory and the whole
 * process dies (SIGSEGV; a test here hit it within 50 SIGKILLs of the peer
 * at full rate).
 *
 * The PMD cannot be changed from outside, but the one call that makes the
 * memory go away can: this executable defines munmap, and the dynamic
 * linker binds the PMD's calls (a plugin, dlopen'd by the EAL) to it (the
 * symbol is exported, see app/meson.build). A call that comes from
 * librte_net_memif while workers run first waits until every running worker
 * has finished the round it was in and one more: by then the "connected"
 * flag, cleared before the unmap, has been seen by every new burst call.
 * Other callers go straight to the kernel. A worker asleep (napi) is in no
 * PMD; the wait then lasts until it wakes (its sleep is bounded by
 * --sleep-max-us), and never longer than GUARD_WAIT_MAX_MS in all.
 *
 * The registry is set by the control plane around worker launches and read
 * by whatever thread unmaps; its mutex orders the two, and the worker array
 * outlives every registration (it is only freed while workers are stopped,
 * after vfwd_unmap_guard_set(NULL, 0)).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_launch.h>
#include <rte_lcore.h>

#include "unmap_guard.h"

#define GUARD_WAIT_MAX_MS 1000
#define GUARDED_DSO "librte_net_memif"

static struct {
	pthread_mutex_t lock;
	const struct vfwd_worker *workers; /* NULL: none running */
	uint16_t nb_workers;
	struct vfwd_unmap_guard_stats stats;
} guard = {.lock = PTHREAD_MUTEX_INITIALIZER};

void
vfwd_unmap_guard_set(const struct vfwd_worker *workers, uint16_t nb_workers)
{
	pthread_mutex_lock(&guard.lock);
	guard.workers = nb_workers ? workers : NULL;
	guard.nb_workers = nb_workers;
	pthread_mutex_unlock(&guard.lock);
}

void
vfwd_unmap_guard_stats(struct vfwd_unmap_guard_stats *out)
{
	pthread_mutex_lock(&guard.lock);
	*out = guard.stats;
	pthread_mutex_unlock(&guard.lock);
}

static bool
called_from_guarded_dso(const void *caller)
{
	Dl_info info;

	return dladdr(caller, &info) != 0 && info.dli_fname != NULL &&
	       strstr(info.dli_fname, GUARDED_DSO) != NULL;
}

/* Whether worker w is past the round it was in when it read `from`, and
 * one more, or is in no round at all. */
static bool
worker_quiet(const struct vfwd_worker *w, uint64_t from)
{
	if (!w->running || rte_eal_get_lcore_state(w->lcore_id) != RUNNING)
		return true;
	return __atomic_load_n(&w->stats.rounds, __ATOMIC_RELAXED) >= from + 2;
}

/* With guard.lock held. */
static void
wait_for_workers(void)
{
	uint64_t from[VFWD_MAX_WORKERS];
	uint64_t start = rte_get_timer_cycles();
	uint64_t deadline = start + rte_get_timer_hz() / 1000 * GUARD_WAIT_MAX_MS;
	unsigned int self = rte_lcore_id();
	bool quiet;
	uint64_t us;

	/* the PMD's "connected" flag was cleared before this call: make that
	 * store visible before reading where the workers are */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	for (uint16_t i = 0; i < guard.nb_workers; i++)
		from[i] = __atomic_load_n(&guard.workers[i].stats.rounds, __ATOMIC_RELAXED);
	do {
		quiet = true;
		for (uint16_t i = 0; i < guard.nb_workers && quiet; i++)
			/* a worker unmapping itself would wait for itself */
			quiet = guard.workers[i].lcore_id == self ||
				worker_quiet(&guard.workers[i], from[i]);
		if (quiet)
			break;
		usleep(10);
	} while (rte_get_timer_cycles() < deadline);
	guard.stats.unmaps_waited++;
	if (!quiet)
		guard.stats.timeouts++;
	us = (rte_get_timer_cycles() - start) * 1000000 / rte_get_timer_hz();
	if (us > guard.stats.max_wait_us)
		guard.stats.max_wait_us = us;
}

/* Interposes libc's munmap for the whole process (see above). */
int
munmap(void *addr, size_t len)
{
	if (called_from_guarded_dso(__builtin_return_address(0))) {
		pthread_mutex_lock(&guard.lock);
		if (guard.workers != NULL)
			wait_for_workers();
		else
			guard.stats.unmaps_free++;
		pthread_mutex_unlock(&guard.lock);
	}
	return (int)syscall(SYS_munmap, addr, len);
}
