/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The parts of the DPDK version seam (vfwd_compat.h) that are more than a
 * name. Control plane, but for vfwd_compat_notify_guest, which a worker
 * calls for the notification it held.
 */
#define _GNU_SOURCE /* RTLD_NEXT */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include <rte_vhost.h>

#include "vfwd.h"
#include "vfwd_compat.h"

#if RTE_VERSION >= RTE_VERSION_NUM(25, 11, 0, 0)

/* ethdev's own per-queue xstats, read by id: ids among ethdev's basic
 * stats are answered from the PMD's stats_get alone, never its xstats_get,
 * which for net_vhost reads the vhost library's rings (freed when the guest
 * goes: see tel_ports). The PMD's own per-queue names are not used either:
 * net_vhost 25.11 names every queue's "q0" (seen with 2 queues, e2e/scale). */
static int
queue_ids(uint16_t port, const char *fmt, uint16_t nb, uint64_t *ids)
{
	char name[RTE_ETH_XSTATS_NAME_SIZE];

	for (uint16_t q = 0; q < nb; q++) {
		snprintf(name, sizeof(name), fmt, q);
		if (rte_eth_xstats_get_id_by_name(port, name, &ids[q]) != 0)
			return -ENOTSUP;
	}
	return 0;
}

int
vfwd_port_queue_pkts(uint16_t port, const struct rte_eth_stats *st, uint16_t nb_rxq,
		     uint64_t *rxq_pkts, uint16_t nb_txq, uint64_t *txq_pkts)
{
	uint64_t ids[2 * VFWD_COMPAT_MAX_QSTATS], vals[2 * VFWD_COMPAT_MAX_QSTATS];
	unsigned int n;

	RTE_SET_USED(st);
	nb_rxq = RTE_MIN(nb_rxq, (uint16_t)VFWD_COMPAT_MAX_QSTATS);
	nb_txq = RTE_MIN(nb_txq, (uint16_t)VFWD_COMPAT_MAX_QSTATS);
	memset(rxq_pkts, 0, sizeof(*rxq_pkts) * nb_rxq);
	memset(txq_pkts, 0, sizeof(*txq_pkts) * nb_txq);
	n = nb_rxq + nb_txq;
	if (n == 0)
		return 0;
	if (queue_ids(port, "rx_q%u_packets", nb_rxq, ids) != 0 ||
	    queue_ids(port, "tx_q%u_packets", nb_txq, ids + nb_rxq) != 0)
		return -ENOTSUP;
	if (rte_eth_xstats_get_by_id(port, ids, vals, n) != (int)n)
		return -EIO;
	memcpy(rxq_pkts, vals, sizeof(*rxq_pkts) * nb_rxq);
	memcpy(txq_pkts, vals + nb_rxq, sizeof(*txq_pkts) * nb_txq);
	return 0;
}

#else

int
vfwd_port_queue_pkts(uint16_t port, const struct rte_eth_stats *st, uint16_t nb_rxq,
		     uint64_t *rxq_pkts, uint16_t nb_txq, uint64_t *txq_pkts)
{
	RTE_SET_USED(port);
	nb_rxq = RTE_MIN(nb_rxq, (uint16_t)RTE_MIN(VFWD_COMPAT_MAX_QSTATS,
						   RTE_ETHDEV_QUEUE_STAT_CNTRS));
	nb_txq = RTE_MIN(nb_txq, (uint16_t)RTE_MIN(VFWD_COMPAT_MAX_QSTATS,
						   RTE_ETHDEV_QUEUE_STAT_CNTRS));
	memcpy(rxq_pkts, st->q_ipackets, sizeof(*rxq_pkts) * nb_rxq);
	memcpy(txq_pkts, st->q_opackets, sizeof(*txq_pkts) * nb_txq);
	return 0;
}

#endif

/* ------------------------------------------ what vfwd keeps per socket */

/* Each vhost-user socket vfwd asked something of, or registered through
 * one of the stand-ins below: whether to register it lean (no librte_vhost
 * xstats) and whether it was, and the ops passed on with guest_notify
 * added (librte_vhost keeps the pointer for the socket's life). Written
 * under the lock by control and by whoever registers (net_vhost, in ethdev
 * configure, on control's thread too). A socket registered again (a port
 * replugged) keeps its slot; slots are never freed, so a run sees at most
 * VFWD_MAX_PORTS socket paths (a replug under a new path takes one more). */
static struct {
	pthread_mutex_t lock;
	unsigned int nb;
	struct {
		char path[PATH_MAX];
		bool lean;
		bool registered_lean;
		struct rte_vhost_device_ops ops;
	} sock[VFWD_MAX_PORTS];
} socks = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* path's slot, or -1; add: a new one if there was none and room is left.
 * With socks.lock held. */
static int
sock_slot(const char *path, bool add)
{
	unsigned int i;

	if (path == NULL || strlen(path) >= PATH_MAX)
		return -1;
	for (i = 0; i < socks.nb; i++)
		if (strcmp(socks.sock[i].path, path) == 0)
			return (int)i;
	if (!add || socks.nb == RTE_DIM(socks.sock))
		return -1;
	memset(&socks.sock[i], 0, sizeof(socks.sock[i]));
	strcpy(socks.sock[i].path, path);
	socks.nb++;
	return (int)i;
}

/* ------------------------------------------------- guest notifications */

#if RTE_VERSION >= RTE_VERSION_NUM(23, 7, 0, 0)

typedef int (*callback_register_fn)(const char *path,
				    struct rte_vhost_device_ops const *const ops);

/* the op to add (vfwd_compat_notify_hook); under socks.lock */
static bool (*notify_op)(int vid, uint16_t vring);

int
rte_vhost_driver_callback_register(const char *path, struct rte_vhost_device_ops const *const ops)
{
	static callback_register_fn next;
	const struct rte_vhost_device_ops *pass = ops;
	int slot = -1, ret;

	if (next == NULL)
		next = (callback_register_fn)dlsym(RTLD_NEXT, "rte_vhost_driver_callback_register");
	if (next == NULL)
		return -1;
	pthread_mutex_lock(&socks.lock);
	if (notify_op != NULL && ops != NULL && ops->guest_notify == NULL) {
		slot = sock_slot(path, true);
		if (slot >= 0) {
			socks.sock[slot].ops = *ops;
			socks.sock[slot].ops.guest_notify = notify_op;
			pass = &socks.sock[slot].ops;
		}
	}
	pthread_mutex_unlock(&socks.lock);
	ret = next(path, pass);
	if (ret != 0 && slot >= 0) {
		/* not registered: librte_vhost kept no pointer to the slot,
		 * and vfwd_compat_notify_hooked must not say it was */
		pthread_mutex_lock(&socks.lock);
		socks.sock[slot].ops.guest_notify = NULL;
		pthread_mutex_unlock(&socks.lock);
	}
	return ret;
}

bool
vfwd_compat_notify_supported(void)
{
	return true;
}

int
vfwd_compat_notify_hook(bool (*fn)(int vid, uint16_t vring))
{
	pthread_mutex_lock(&socks.lock);
	notify_op = fn;
	pthread_mutex_unlock(&socks.lock);
	return 0;
}

bool
vfwd_compat_notify_hooked(const char *path)
{
	bool found;
	int i;

	pthread_mutex_lock(&socks.lock);
	i = sock_slot(path, false);
	found = i >= 0 && socks.sock[i].ops.guest_notify != NULL;
	pthread_mutex_unlock(&socks.lock);
	return found;
}

void
vfwd_compat_notify_guest(int vid, uint16_t vring)
{
	rte_vhost_notify_guest(vid, vring);
}

#else

bool
vfwd_compat_notify_supported(void)
{
	return false;
}

int
vfwd_compat_notify_hook(bool (*fn)(int vid, uint16_t vring))
{
	RTE_SET_USED(fn);
	return -ENOTSUP;
}

bool
vfwd_compat_notify_hooked(const char *path)
{
	RTE_SET_USED(path);
	return false;
}

void
vfwd_compat_notify_guest(int vid, uint16_t vring)
{
	RTE_SET_USED(vid);
	RTE_SET_USED(vring);
}

#endif

/* ------------------------------------------------- librte_vhost's xstats */

typedef int (*driver_register_fn)(const char *path, uint64_t flags);

int
vfwd_compat_vhost_lean(const char *path)
{
	int i;

	if (strlen(path) >= PATH_MAX)
		return -ENAMETOOLONG;
	pthread_mutex_lock(&socks.lock);
	i = sock_slot(path, true);
	if (i >= 0)
		socks.sock[i].lean = true;
	pthread_mutex_unlock(&socks.lock);
	return i >= 0 ? 0 : -ENOSPC;
}

bool
vfwd_compat_vhost_is_lean(const char *path)
{
	bool is;
	int i;

	pthread_mutex_lock(&socks.lock);
	i = sock_slot(path, false);
	is = i >= 0 && socks.sock[i].registered_lean;
	pthread_mutex_unlock(&socks.lock);
	return is;
}

int
rte_vhost_driver_register(const char *path, uint64_t flags)
{
	static driver_register_fn next;
	bool lean;
	int i, ret;

	if (next == NULL)
		next = (driver_register_fn)dlsym(RTLD_NEXT, "rte_vhost_driver_register");
	if (next == NULL)
		return -1;
	pthread_mutex_lock(&socks.lock);
	i = sock_slot(path, false);
	lean = i >= 0 && socks.sock[i].lean;
	pthread_mutex_unlock(&socks.lock);
	if (lean)
		flags &= ~RTE_VHOST_USER_NET_STATS_ENABLE;
	ret = next(path, flags);
	if (lean) {
		pthread_mutex_lock(&socks.lock);
		socks.sock[i].registered_lean = ret == 0;
		pthread_mutex_unlock(&socks.lock);
	}
	return ret;
}
