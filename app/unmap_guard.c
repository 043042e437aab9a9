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
 * has ended a round after the call began: the worker acknowledges an epoch
 * the guard bumps (struct vfwd_worker's quiesce_epoch, a release store after
 * each round), so by then its PMD calls of the round before are over and
 * its later ones see the "connected" flag the PMD cleared before the unmap.
 * Before it waits, the guard closes the PMD gate of every gated port
 * (struct vfwd_port_state's pmd_gate): the PMD's rx and tx read the
 * region's address before that flag, so a worker that read it before a
 * reconnection and the flag after would fault; with the gate closed no
 * worker calls the PMD again until a worker or control has seen the link
 * come up, that is until the PMD has mapped the new regions and set up
 * the rings.
 * Other callers go on to libc's munmap (or the kernel's) at once. A worker
 * asleep (napi) is in no PMD; the wait then lasts until it wakes (its sleep
 * is bounded by --sleep-max-us), and never longer than GUARD_WAIT_MAX_MS
 * (then it says so on stderr and counts a timeout). A worker told to stop
 * still sends what it held (drain_all) and is waited for until it returned.
 *
 * The registry is set by the control plane around worker launches and read
 * by whatever thread unmaps; its mutex orders the two, and the worker array
 * outlives every registration (it is only freed while workers are stopped,
 * after vfwd_unmap_guard_set(NULL, 0)).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
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

typedef int (*munmap_fn)(void *, size_t);

static struct {
	pthread_mutex_t lock;
	uint32_t epoch; /* bumped under lock, read by workers */
	munmap_fn next; /* libc's, or an interposer after us (ASan) */
	struct vfwd_worker *const *workers; /* NULL: none running */
	uint16_t nb_workers;
	struct vfwd_port_state *ports; /* whose gates a memif unmap closes */
	uint16_t nb_ports;
	struct vfwd_unmap_guard_stats stats;
} guard = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* Before main: dlsym must not run inside munmap (it may unmap). */
__attribute__((constructor)) static void
guard_find_next(void)
{
	guard.next = (munmap_fn)dlsym(RTLD_NEXT, "munmap");
}

const uint32_t *
vfwd_unmap_guard_epoch(void)
{
	return &guard.epoch;
}

void
vfwd_unmap_guard_set(struct vfwd_worker *const *workers, uint16_t nb_workers)
{
	pthread_mutex_lock(&guard.lock);
	guard.workers = nb_workers ? workers : NULL;
	guard.nb_workers = nb_workers;
	pthread_mutex_unlock(&guard.lock);
}

void
vfwd_unmap_guard_ports(struct vfwd_port_state *ports, uint16_t nb_ports)
{
	pthread_mutex_lock(&guard.lock);
	guard.ports = ports;
	guard.nb_ports = nb_ports;
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

/* Whether worker w has ended a round since the epoch became `epoch`, or
 * is in none (returned from vfwd_worker_main: EAL's state, written after
 * it returns). */
static bool
worker_quiet(const struct vfwd_worker *w, uint32_t epoch)
{
	if (rte_eal_get_lcore_state(vfwd_worker_lcore(w)) != RUNNING)
		return true;
	return (int32_t)(vfwd_worker_quiesce_seen(w) - epoch) >= 0;
}

/* With guard.lock held. Whether every worker came round within
 * GUARD_WAIT_MAX_MS; *us: how long it took. */
static bool
wait_for_workers(uint64_t *us)
{
	uint64_t start = rte_get_timer_cycles();
	uint64_t deadline = start + rte_get_timer_hz() / 1000 * GUARD_WAIT_MAX_MS;
	unsigned int self = rte_lcore_id();
	uint32_t epoch;
	bool quiet;

	/* seq_cst: ordered after the PMD's store of its "connected" flag */
	epoch = __atomic_add_fetch(&guard.epoch, 1, __ATOMIC_SEQ_CST);
	do {
		quiet = true;
		for (uint16_t i = 0; i < guard.nb_workers && quiet; i++)
			/* a worker unmapping itself would wait for itself */
			quiet = vfwd_worker_lcore(guard.workers[i]) == self ||
				worker_quiet(guard.workers[i], epoch);
		if (quiet)
			break;
		usleep(10);
	} while (rte_get_timer_cycles() < deadline);
	*us = (rte_get_timer_cycles() - start) * 1000000 / rte_get_timer_hz();
	return quiet;
}

/* With guard.lock held and workers running: waits for them, counted
 * into *waits, *timeouts and *max_us; what says what was waited for. */
static void
counted_wait(uint64_t *waits, uint64_t *timeouts, uint64_t *max_us, const char *what)
{
	uint64_t us;

	(*waits)++;
	if (!wait_for_workers(&us)) {
		(*timeouts)++;
		fprintf(stderr, "dpdk-vfwd: warning: %s while a worker has not come round in %d ms\n",
			what, GUARD_WAIT_MAX_MS);
	}
	if (us > *max_us)
		*max_us = us;
}

void
vfwd_workers_quiesce(void)
{
	pthread_mutex_lock(&guard.lock);
	if (guard.workers != NULL)
		counted_wait(&guard.stats.vhost_waits, &guard.stats.vhost_timeouts,
			     &guard.stats.vhost_max_wait_us, "a vhost device goes");
	pthread_mutex_unlock(&guard.lock);
}

/* Interposes libc's munmap for the whole process (see above). */
int
munmap(void *addr, size_t len)
{
	if (called_from_guarded_dso(__builtin_return_address(0))) {
		pthread_mutex_lock(&guard.lock);
		for (uint16_t i = 0; i < guard.nb_ports; i++)
			vfwd_port_gate_close(&guard.ports[i]);
		if (guard.workers != NULL)
			counted_wait(&guard.stats.unmaps_waited, &guard.stats.timeouts,
				     &guard.stats.max_wait_us, "a memif port unmaps its memory");
		else
			guard.stats.unmaps_free++;
		pthread_mutex_unlock(&guard.lock);
	}
	if (guard.next != NULL)
		return guard.next(addr, len);
	return (int)syscall(SYS_munmap, addr, len);
}
