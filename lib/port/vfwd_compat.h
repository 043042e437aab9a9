/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The one seam between dpdk-vfwd and the DPDK releases it builds on
 * (22.11, 23.11, 24.11, 25.11): the rest of the tree, its tests, the
 * generator and the test peer are written once against these names and
 * test no RTE_VERSION themselves. What changed in each release and the test
 * that shows it: doc/dpdk-versions.md.
 */
#ifndef VFWD_COMPAT_H
#define VFWD_COMPAT_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_telemetry.h>
#include <rte_version.h>

#if RTE_VERSION < RTE_VERSION_NUM(22, 11, 0, 0)
#error "dpdk-vfwd needs DPDK 22.11 or later"
#endif

/* ------------------------------------------------------- IPv6 addresses */

/* The 16 address bytes of an IPv6 header, as uint8_t[16] (const when the
 * header is). 24.11 made rte_ipv6_hdr's src_addr/dst_addr a struct
 * rte_ipv6_addr around the array. */
#if RTE_VERSION >= RTE_VERSION_NUM(24, 11, 0, 0)
#define VFWD_IP6_SRC(hdr) ((hdr)->src_addr.a)
#define VFWD_IP6_DST(hdr) ((hdr)->dst_addr.a)
#else
#define VFWD_IP6_SRC(hdr) ((hdr)->src_addr)
#define VFWD_IP6_DST(hdr) ((hdr)->dst_addr)
#endif
#define VFWD_IP6_ADDR_LEN 16

/* -------------------------------------------------------------- telemetry */

/* An unsigned 64-bit value into a telemetry dict. 23.03 renamed
 * rte_tel_data_add_dict_u64 to _uint (deprecated in 24.11, gone in 25.11). */
static inline int
vfwd_tel_dict_uint(struct rte_tel_data *d, const char *name, uint64_t value)
{
#if RTE_VERSION >= RTE_VERSION_NUM(23, 3, 0, 0)
	return rte_tel_data_add_dict_uint(d, name, value);
#else
	return rte_tel_data_add_dict_u64(d, name, value);
#endif
}

/* ------------------------------------------------------ per-queue stats */

/* Packets received on each of port's first nb_rxq rx queues and sent on
 * each of its first nb_txq tx queues (each at most VFWD_COMPAT_MAX_QSTATS),
 * as the PMD counts them. st is the port's rte_eth_stats, read just before.
 * Through 25.07 these are rte_eth_stats' q_ipackets/q_opackets; 25.11 took
 * them out, and ethdev gives them as xstats (rx_qN_packets, tx_qN_packets).
 * Returns 0, or -errno when the port has no per-queue count (arrays zeroed). */
#define VFWD_COMPAT_MAX_QSTATS 16
int vfwd_port_queue_pkts(uint16_t port, const struct rte_eth_stats *st, uint16_t nb_rxq,
			 uint64_t *rxq_pkts, uint16_t nb_txq, uint64_t *txq_pkts);

/* --------------------------------------------------- guest notifications */

/* Whether this DPDK lets its user decide when a guest is notified: 23.07
 * added the guest_notify device op (librte_vhost calls it instead of
 * writing the call eventfd; a true return means the application sends it
 * later, and librte_vhost holds back the virtqueue's next ones until it
 * does) and rte_vhost_notify_guest, which sends it. */
bool vfwd_compat_notify_supported(void);

/* The vhost-user sockets registered from now on get fn as their
 * guest_notify op (control, before the ports are configured). net_vhost
 * registers its sockets and gives no way to add an op, so on 23.07+
 * vfwd's own rte_vhost_driver_callback_register stands in front of
 * librte_vhost's (the executable's symbol is found first, as unmap_guard's
 * munmap is): it passes net_vhost's ops on with fn added. -ENOTSUP before
 * 23.07. */
int vfwd_compat_notify_hook(bool (*fn)(int vid, uint16_t vring));

/* Whether the socket at path was registered with the hook's op (false if
 * the stand-in was not reached: a build that does not export it). */
bool vfwd_compat_notify_hooked(const char *path);

/* Sends the notification librte_vhost handed over for vring of device vid
 * (the worker that took it). A no-op before 23.07. */
void vfwd_compat_notify_guest(int vid, uint16_t vring);

/* ------------------------------------------------- librte_vhost's xstats */

/* The vhost-user socket at path, when net_vhost registers it from now on,
 * goes without RTE_VHOST_USER_NET_STATS_ENABLE, which net_vhost always
 * asks for: librte_vhost then counts no per-vring xstats (a size bin and a
 * look at each packet's destination address, on every enqueue and
 * dequeue). As for the notify hook, vfwd's rte_vhost_driver_register
 * stands in front of librte_vhost's (all releases). Control, before the
 * port is configured. 0, -ENAMETOOLONG or -ENOSPC. */
int vfwd_compat_vhost_lean(const char *path);

/* Whether the socket at path was last registered without them (false if
 * the stand-in was not reached). */
bool vfwd_compat_vhost_is_lean(const char *path);

#endif /* VFWD_COMPAT_H */
