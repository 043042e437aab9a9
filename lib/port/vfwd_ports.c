/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Control plane for ports: configure, start, follow the vhost peer, stop.
 * Runs on the main lcore, and the event callbacks on the vhost thread.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/if_packet.h>
#include <net/if.h>

#include <rte_devargs.h>
#include <rte_kvargs.h>

#include <rte_eth_vhost.h>
#include <rte_ethdev.h>
#include <rte_vhost.h>

#include "vfwd_compat.h"
#include "vfwd_port.h"

static bool
driver_is(const struct rte_eth_dev_info *info, const char *name)
{
	return info->driver_name != NULL && strcmp(info->driver_name, name) == 0;
}

/* Wire ports raise no link events vfwd could take (most stand-ins have
 * none): control polls them, so that the workers stop sending to a peer
 * that went away and count what they could not send as peer_down. */
void
vfwd_port_wire_link_poll(uint16_t port, struct vfwd_port_state *st)
{
	struct rte_eth_link link;
	uint32_t gate;

	if (st->is_vhost)
		return;
	/* the gate is read before the link: if the guard closes it after
	 * that, the swap below fails and the gate stays closed until the
	 * next poll reads the link again */
	gate = __atomic_load_n(&st->pmd_gate, __ATOMIC_ACQUIRE);
	if (rte_eth_link_get_nowait(port, &link) != 0)
		return;
	st->link_up = link.link_status;
	if (st->gated && (gate & 1) != link.link_status)
		__atomic_compare_exchange_n(&st->pmd_gate, &gate,
					    link.link_status ? gate | 1 : gate & ~1u, false,
					    __ATOMIC_RELEASE, __ATOMIC_RELAXED);
}

bool
vfwd_port_gate_reopen(uint16_t port, const struct vfwd_port_state *st)
{
	uint32_t *gate = (uint32_t *)(uintptr_t)&st->pmd_gate; /* see pmd_gate */
	uint32_t g = __atomic_load_n(gate, __ATOMIC_ACQUIRE);
	struct rte_eth_link link;

	if (g & 1)
		return true;
	if (rte_eth_link_get_nowait(port, &link) != 0 || !link.link_status)
		return false;
	/* failed: the guard closed it again (stay out), or another worker
	 * opened it (g is the value now) */
	return __atomic_compare_exchange_n(gate, &g, g | 1, false, __ATOMIC_ACQ_REL,
					   __ATOMIC_ACQUIRE) || (g & 1);
}

void
vfwd_port_gate_close(struct vfwd_port_state *st)
{
	uint32_t gate = __atomic_load_n(&st->pmd_gate, __ATOMIC_RELAXED);

	if (!st->gated)
		return;
	while (!__atomic_compare_exchange_n(&st->pmd_gate, &gate, (gate + 2) & ~1u, false,
					    __ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
		;
}

bool
vfwd_port_is_vhost(uint16_t port)
{
	struct rte_eth_dev_info info;

	return rte_eth_dev_info_get(port, &info) == 0 && driver_is(&info, "net_vhost");
}

int
vfwd_port_guest_calls(uint16_t port, uint64_t *calls)
{
	static const char suffix[] = "_guest_notifications";
	const size_t slen = sizeof(suffix) - 1;
	struct rte_eth_xstat_name *names = NULL;
	struct rte_eth_xstat *vals = NULL;
	int n, got, ret = -ENOTSUP;

	*calls = 0;
	if (!vfwd_port_is_vhost(port))
		return -ENOTSUP;
	n = rte_eth_xstats_get_names(port, NULL, 0);
	if (n <= 0)
		return -ENOTSUP;
	names = calloc(n, sizeof(*names));
	vals = calloc(n, sizeof(*vals));
	if (names == NULL || vals == NULL) {
		ret = -ENOMEM;
		goto out;
	}
	if (rte_eth_xstats_get_names(port, names, n) != n)
		goto out;
	got = rte_eth_xstats_get(port, vals, n);
	for (int i = 0; i < got && i < n; i++) {
		const char *name;
		size_t len;

		if (vals[i].id >= (uint64_t)n)
			continue;
		name = names[vals[i].id].name;
		len = strlen(name);

		if (len > slen && strcmp(name + len - slen, suffix) == 0) {
			*calls += vals[i].value;
			ret = 0;
		}
	}
out:
	free(names);
	free(vals);
	return ret;
}

/* virtio-net feature bits (virtio spec 5.1.3) */
#define VIRTIO_NET_F_GUEST_CSUM 1
#define VIRTIO_NET_F_GUEST_TSO4 7

int
vfwd_port_iface(uint16_t port, char *path, size_t len, bool *client)
{
	struct rte_eth_dev_info info;
	const struct rte_devargs *da;
	struct rte_kvargs *kv;
	const char *v, *c;

	path[0] = '\0';
	if (rte_eth_dev_info_get(port, &info) != 0 || info.device == NULL)
		return -ENODEV;
	da = rte_dev_devargs(info.device);
	if (da == NULL || da->args == NULL)
		return -ENOENT;
	kv = rte_kvargs_parse(da->args, NULL);
	if (kv == NULL)
		return -EINVAL;
	v = rte_kvargs_get(kv, "iface");
	c = rte_kvargs_get(kv, "client");
	if (v == NULL || strlen(v) >= len) {
		rte_kvargs_free(kv);
		return -ENOENT;
	}
	strcpy(path, v);
	if (client != NULL)
		*client = c != NULL && strcmp(c, "0") != 0;
	rte_kvargs_free(kv);
	return 0;
}

/* Whether the guest negotiated a feature. */
static bool
guest_has(uint16_t port, unsigned int bit)
{
	int vid = rte_eth_vhost_get_vid_from_port_id(port);
	uint64_t features;

	return vid >= 0 && rte_vhost_get_negotiated_features(vid, &features) == 0 &&
	       (features & (1ULL << bit));
}

/* Whether the guest on a vhost port takes GSO frames with partial
 * checksums: the vhost library fills the virtio-net header from the mbuf
 * flags without checking what the guest accepted, so we must. */
/* The GSO frames the guest takes (VFWD_GRO_KIND_*): GUEST_TSO4 / TSO6,
 * each only with GUEST_CSUM (a GSO frame carries NEEDS_CSUM). */
static uint8_t
guest_takes_gso(uint16_t port)
{
	int vid = rte_eth_vhost_get_vid_from_port_id(port);
	uint64_t features;

	if (vid < 0 || rte_vhost_get_negotiated_features(vid, &features) != 0 ||
	    !(features & (1ULL << VIRTIO_NET_F_GUEST_CSUM)))
		return 0;
	return ((features & (1ULL << VIRTIO_NET_F_GUEST_TSO4)) ? VFWD_GRO_KIND_TCP4 : 0) |
	       ((features & (1ULL << VIRTIO_NET_F_GUEST_TSO6)) ? VFWD_GRO_KIND_TCP6 : 0);
}

/* ------------------------------------------------------------------ MTU */

/* How a port takes an MTU. */
enum mtu_way {
	MTU_ETHDEV, /* ethdev's MTU (NICs; net_tap, which sets its kernel side) */
	/* no MTU of its own: frames of any length are chained (net_vhost over
	 * descriptors, net_memif over its buffers; memif's ethdev caps the
	 * MTU at 1500 all the same, so it is not set there) */
	MTU_OWN,
	/* net_af_packet: its ethdev caps the MTU at 1500 (max_rx_pktlen
	 * 1518), but the socket takes what its frames hold (framesz) and the
	 * interface's MTU is the kernel's, set there */
	MTU_KERNEL,
};

static enum mtu_way
mtu_way(const struct rte_eth_dev_info *info)
{
	if (driver_is(info, "net_vhost") || driver_is(info, "net_memif"))
		return MTU_OWN;
	if (driver_is(info, "net_af_packet"))
		return MTU_KERNEL;
	return MTU_ETHDEV;
}

/* The longest frame of an MTU: Ethernet header and two VLAN tags. */
static uint32_t
frame_of(uint16_t mtu)
{
	return (uint32_t)mtu + RTE_ETHER_HDR_LEN + 2 * RTE_VLAN_HLEN;
}

/* net_af_packet: the bytes of frame data each ring slot holds (framesz
 * less the header it puts in front), as the PMD computes it. */
static uint32_t
af_packet_frame_data(const struct rte_eth_dev_info *info)
{
	const struct rte_devargs *da = info->device ? rte_dev_devargs(info->device) : NULL;
	unsigned long framesz = 2048; /* the PMD's default */
	struct rte_kvargs *kv;
	const char *v;

	if (da != NULL && da->args != NULL && (kv = rte_kvargs_parse(da->args, NULL)) != NULL) {
		v = rte_kvargs_get(kv, "framesz");
		if (v != NULL)
			framesz = strtoul(v, NULL, 0);
		rte_kvargs_free(kv);
	}
	if (framesz <= TPACKET2_HDRLEN)
		return 0;
	return (uint32_t)(framesz - (TPACKET2_HDRLEN - sizeof(struct sockaddr_ll)));
}

int
vfwd_port_mtu_caps(uint16_t port, uint16_t mtu, uint32_t data_room,
		   struct vfwd_port_mtu_caps *caps)
{
	struct rte_eth_dev_info info;
	uint32_t max;
	int ret = rte_eth_dev_info_get(port, &info);

	if (ret != 0)
		return ret;
	caps->rx_room = 0;
	switch (mtu_way(&info)) {
	case MTU_OWN:
		caps->max_mtu = VFWD_MTU_MAX;
		caps->limit_why = "vfwd's largest";
		return 0;
	case MTU_KERNEL:
		max = af_packet_frame_data(&info);
		/* each frame is copied into one mbuf: every one must hold a
		 * ring slot's worth (the PMD refuses a pool with less) */
		caps->rx_room = max;
		max = max > frame_of(0) ? max - frame_of(0) : 0;
		caps->max_mtu = (uint16_t)RTE_MIN(max, (uint32_t)VFWD_MTU_MAX);
		caps->limit_why = "what its ring slots hold: raise the framesz devarg";
		return 0;
	case MTU_ETHDEV:
		max = info.max_mtu != UINT16_MAX ? info.max_mtu
		      : info.max_rx_pktlen > RTE_ETHER_HDR_LEN + RTE_ETHER_CRC_LEN
			      ? info.max_rx_pktlen - RTE_ETHER_HDR_LEN - RTE_ETHER_CRC_LEN
			      : 0;
		caps->max_mtu = (uint16_t)RTE_MIN(max, (uint32_t)VFWD_MTU_MAX);
		caps->limit_why = "the largest its ethdev takes (max_mtu, max_rx_pktlen)";
		if (frame_of(mtu) + RTE_ETHER_CRC_LEN > data_room &&
		    !(info.rx_offload_capa & RTE_ETH_RX_OFFLOAD_SCATTER))
			caps->rx_room = frame_of(mtu) + RTE_ETHER_CRC_LEN;
		return 0;
	}
	return -EINVAL;
}

/* The MTU of a kernel interface (net_af_packet's): SIOCSIFMTU sets it
 * from *mtu, SIOCGIFMTU reads it into *mtu. */
static int
kernel_mtu(const char *ifname, unsigned long req, uint16_t *mtu)
{
	struct ifreq ifr = {.ifr_mtu = *mtu};
	int s = socket(AF_INET, SOCK_DGRAM, 0), ret = 0;

	if (s < 0)
		return -errno;
	if (strlen(ifname) >= sizeof(ifr.ifr_name)) {
		close(s);
		return -ENAMETOOLONG;
	}
	strcpy(ifr.ifr_name, ifname);
	if (ioctl(s, req, &ifr) != 0)
		ret = -errno;
	else if (req == SIOCGIFMTU)
		*mtu = (uint16_t)ifr.ifr_mtu;
	close(s);
	return ret;
}

/* What --mtu changed on the kernel's side, put back (at teardown: the
 * interface outlives vfwd). */
static void
kernel_mtu_restore(struct vfwd_port_state *st)
{
	if (st->kernel_mtu_before != 0)
		kernel_mtu(st->kernel_ifname, SIOCSIFMTU, &st->kernel_mtu_before);
	st->kernel_mtu_before = 0;
}

/* vhost thread: the guest connected or went away. */
static int
on_link_change(uint16_t port, enum rte_eth_event_type type __rte_unused, void *arg,
	       void *ret_param __rte_unused)
{
	struct vfwd_port_state *st = arg;
	struct rte_eth_link link;

	if (rte_eth_link_get_nowait(port, &link) != 0)
		return 0;
	if (!link.link_status) {
		for (unsigned int q = 0; q < VFWD_MAX_QUEUES; q++)
			st->txq_enabled[q] = st->rxq_enabled[q] = 0;
		st->guest_gso = 0;
		st->guest_ufo = 0;
		if (st->vhost_lib)
			/* net_vhost calls this from its destroy callback: once it
			 * returns the device may be freed */
			vfwd_vhost_lib_disconnected(st);
	} else {
		int vid = rte_eth_vhost_get_vid_from_port_id(port);
		uint64_t features;
		uint16_t mtu = 0;

		/* VIRTIO_NET_F_MTU: QEMU's host_mtu, sent with
		 * VHOST_USER_NET_SET_MTU; the guest's MTU unless --mtu says */
		if (vid < 0 || rte_vhost_get_mtu(vid, &mtu) != 0)
			mtu = 0;
		/* the vhost library takes up to 65535: max_frame must not wrap */
		if (mtu > VFWD_MTU_MAX)
			mtu = VFWD_MTU_MAX;
		st->guest_mtu = mtu;
		if (vid < 0 || rte_vhost_get_negotiated_features(vid, &features) != 0)
			features = 0;
		st->guest_features = features;
		/* neither side may be sent more than it said it takes */
		if (st->mtu_given)
			mtu = mtu ? RTE_MIN(mtu, st->mtu_given) : st->mtu_given;
		st->max_frame = (mtu ? mtu : RTE_ETHER_MTU) + RTE_ETHER_HDR_LEN;
		st->guest_gso = guest_takes_gso(port);
		st->guest_ufo = guest_has(port, VFWD_VIRTIO_NET_F_HOST_UFO);
		st->conn_gen++; /* new vrings, new interrupt eventfds */
		if (st->vhost_lib && vid >= 0)
			/* before link_up: a worker that sees the link sees the
			 * device */
			vfwd_vhost_lib_connected(st, vid);
	}
	st->link_up = link.link_status;
	return 0;
}

/* vhost thread: the guest enabled or disabled vrings. One callback may
 * stand for several events: drain them all. */
static int
on_queue_state(uint16_t port, enum rte_eth_event_type type __rte_unused, void *arg,
	       void *ret_param __rte_unused)
{
	struct vfwd_port_state *st = arg;
	struct rte_eth_vhost_queue_event ev;

	while (rte_eth_vhost_get_queue_event(port, &ev) == 0) {
		/* ev.rx is the vring we dequeue from; our tx queues are the
		 * guest's rx vrings. */
		if (ev.queue_id >= VFWD_MAX_QUEUES)
			continue;
		if (ev.rx)
			st->rxq_enabled[ev.queue_id] = ev.enable;
		else
			st->txq_enabled[ev.queue_id] = ev.enable;
	}
	return 0;
}

static void
unregister_events(uint16_t port, struct vfwd_port_state *st)
{
	rte_eth_dev_callback_unregister(port, RTE_ETH_EVENT_INTR_LSC, on_link_change, st);
	rte_eth_dev_callback_unregister(port, RTE_ETH_EVENT_QUEUE_STATE, on_queue_state, st);
}

int
vfwd_port_setup(uint16_t port, const struct vfwd_port_conf *conf, struct rte_mempool *pool,
		struct vfwd_port_state *st)
{
	struct rte_eth_conf dev_conf = {0};
	struct rte_eth_dev_info info;
	uint16_t nb_rxd = conf->nb_rxd, nb_txd = conf->nb_txd;
	const uint32_t room = rte_pktmbuf_data_room_size(pool) - RTE_PKTMBUF_HEADROOM;
	enum mtu_way way;
	int socket, ret;

	if (conf->nb_rxq == 0 || conf->nb_rxq > VFWD_MAX_QUEUES || conf->nb_txq == 0 ||
	    conf->nb_txq > VFWD_MAX_QUEUES)
		return -EINVAL;
	ret = rte_eth_dev_info_get(port, &info);
	if (ret != 0)
		return ret;
	if (conf->nb_rxq > info.max_rx_queues || conf->nb_txq > info.max_tx_queues)
		return -EINVAL;

	memset(st, 0, sizeof(*st));
	st->is_vhost = driver_is(&info, "net_vhost");
	st->vid = -1;
	if (st->is_vhost && conf->vhost_path == VFWD_VHOST_PATH_LIB) {
		st->vhost_lib = true;
		pthread_mutex_init(&st->lib_lock, NULL);
		st->rx_pool = pool;
		st->quiesce = conf->quiesce;
	}
	st->gated = driver_is(&info, "net_memif");
	st->pmd_gate = 0; /* opened once a worker or control sees the link up */

	if (conf->nb_rxq > 1 && info.flow_type_rss_offloads) {
		dev_conf.rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
		dev_conf.rx_adv_conf.rss_conf.rss_hf =
			info.flow_type_rss_offloads & (RTE_ETH_RSS_IP | RTE_ETH_RSS_TCP |
						       RTE_ETH_RSS_UDP);
	}
	if (*info.dev_flags & RTE_ETH_DEV_INTR_LSC)
		dev_conf.intr_conf.lsc = 1;
	/* Rx interrupts for the napi mode: vhost, whose guest kicks are off
	 * unless a sleeping worker arms them, and net_tap, whose interrupt is
	 * its fd turning readable (nothing while we poll). Others (memif)
	 * would signal on every burst even while we poll, so they nap. An
	 * idle forwarder then sleeps in epoll instead of waking for naps a
	 * thousand times a second. */
	if (st->is_vhost || driver_is(&info, "net_tap")) {
		dev_conf.intr_conf.rxq = 1;
		st->rx_intr = true;
		st->rx_intr_fd = !st->is_vhost;
	}

	/* Offloads: a vhost port leaves partial checksums and TSO frames to
	 * us (the wire side may do them in hardware) and carries our GSO
	 * frames to the guest; a wire port segments and checksums if it can.
	 * Whatever the port lacks is done in software. */
	if (st->is_vhost)
		dev_conf.rxmode.offloads = info.rx_offload_capa &
			(RTE_ETH_RX_OFFLOAD_TCP_CKSUM | RTE_ETH_RX_OFFLOAD_UDP_CKSUM |
			 RTE_ETH_RX_OFFLOAD_TCP_LRO);
	else if (strcmp(info.driver_name, "net_tap") != 0)
		/* a NIC that checks TCP checksums spares GRO its own check
		 * (vfwd's engine verifies what the port did not); net_tap's
		 * "offload" is the same sum in software, on every packet */
		dev_conf.rxmode.offloads = info.rx_offload_capa & RTE_ETH_RX_OFFLOAD_TCP_CKSUM;
	dev_conf.txmode.offloads = info.tx_offload_capa &
		(RTE_ETH_TX_OFFLOAD_MULTI_SEGS | RTE_ETH_TX_OFFLOAD_TCP_TSO |
		 RTE_ETH_TX_OFFLOAD_IPV4_CKSUM | RTE_ETH_TX_OFFLOAD_TCP_CKSUM |
		 RTE_ETH_TX_OFFLOAD_UDP_CKSUM);
	/* Segments leave as chains: without MULTI_SEGS no segmentation.
	 * net_tap's TSO (22.11) compares segment + headers with the L3 MTU
	 * and refuses full-size segments (MSS 1448 + 66 bytes of headers):
	 * librte_gso here does it right. */
	if ((dev_conf.txmode.offloads & RTE_ETH_TX_OFFLOAD_MULTI_SEGS) &&
	    !driver_is(&info, "net_tap"))
		st->tx_tso = dev_conf.txmode.offloads & RTE_ETH_TX_OFFLOAD_TCP_TSO;
	else
		dev_conf.txmode.offloads &= ~RTE_ETH_TX_OFFLOAD_TCP_TSO;
	/* without it every packet sent must be one direct mbuf: segments
	 * and chained frames are flattened (vfwd_wire_tx_prepare) */
	st->tx_multi_seg = dev_conf.txmode.offloads & RTE_ETH_TX_OFFLOAD_MULTI_SEGS;
	st->tx_ip_cksum = dev_conf.txmode.offloads & RTE_ETH_TX_OFFLOAD_IPV4_CKSUM;
	st->tx_l4_cksum = (dev_conf.txmode.offloads &
			   (RTE_ETH_TX_OFFLOAD_TCP_CKSUM | RTE_ETH_TX_OFFLOAD_UDP_CKSUM)) ==
			  (RTE_ETH_TX_OFFLOAD_TCP_CKSUM | RTE_ETH_TX_OFFLOAD_UDP_CKSUM);
	way = mtu_way(&info);
	if (conf->mtu && way == MTU_ETHDEV) {
		dev_conf.rxmode.mtu = conf->mtu;
		if (frame_of(conf->mtu) + RTE_ETHER_CRC_LEN > room &&
		    (info.rx_offload_capa & RTE_ETH_RX_OFFLOAD_SCATTER)) {
			dev_conf.rxmode.offloads |= RTE_ETH_RX_OFFLOAD_SCATTER;
			/* net_tap reads one frame per call into as many mbufs
			 * as it has descriptors: give it what one frame takes
			 * (the kernel would copy a thousand iovecs a frame) */
			if (driver_is(&info, "net_tap"))
				nb_rxd = (uint16_t)((frame_of(conf->mtu) + room - 1) / room + 1);
		}
	}
	{
		uint16_t mtu = conf->mtu;

		if (mtu == 0 && rte_eth_dev_get_mtu(port, &mtu) != 0)
			mtu = RTE_ETHER_MTU;
		st->max_frame = mtu + RTE_ETHER_HDR_LEN;
		st->mtu_given = conf->mtu;
	}

	/* Register before configure: net_vhost opens its socket there and a
	 * guest may connect at once. */
	if (st->is_vhost) {
		ret = rte_eth_dev_callback_register(port, RTE_ETH_EVENT_INTR_LSC, on_link_change,
						    st);
		if (ret == 0)
			ret = rte_eth_dev_callback_register(port, RTE_ETH_EVENT_QUEUE_STATE,
							    on_queue_state, st);
		if (ret != 0)
			goto fail_events;
	}

	/* the lib path can hold guest notifications back (--notify): its
	 * sockets get vfwd's guest_notify op as net_vhost registers them,
	 * in configure (23.07+; vfwd_compat.h) */
	if (st->vhost_lib)
		vfwd_compat_notify_hook(vfwd_vhost_guest_notify);
	/* ... and, unless asked for them, without librte_vhost's per-vring
	 * xstats (their cost is per packet; the port counters are vfwd's
	 * own there). A socket that cannot be listed keeps them. */
	if (st->vhost_lib && !conf->vhost_xstats) {
		char path[PATH_MAX];

		if (vfwd_port_iface(port, path, sizeof(path), NULL) == 0)
			(void)vfwd_compat_vhost_lean(path);
	}
	ret = rte_eth_dev_configure(port, conf->nb_rxq, conf->nb_txq, &dev_conf);
	if (ret != 0)
		goto fail_events; /* ethdev undid what it had configured */
	/* net_vhost registered the socket in configure; the guest reads the
	 * features when it connects, so this comes before it can in server
	 * mode (a client-mode port may already be connected: guest_ufo) */
	if (st->is_vhost) {
		char path[PATH_MAX];

		if (vfwd_port_iface(port, path, sizeof(path), NULL) == 0) {
			if (rte_vhost_driver_disable_features(path, VFWD_VHOST_WITHHELD) == 0)
				st->withheld_features = VFWD_VHOST_WITHHELD;
			st->notify_ok = st->vhost_lib && vfwd_compat_notify_hooked(path);
			st->vhost_lean = st->vhost_lib && vfwd_compat_vhost_is_lean(path);
		}
	}
	/* after configure: ethdev's set_mtu is where net_tap sets its
	 * kernel side (configure only records the MTU) */
	if (conf->mtu && way == MTU_ETHDEV) {
		ret = rte_eth_dev_set_mtu(port, conf->mtu);
		if (ret == -ENOTSUP) {
			st->mtu_not_set = true; /* the caller says so */
			ret = 0;
		}
	} else if (conf->mtu && way == MTU_KERNEL) {
		uint16_t before = 0, mtu = conf->mtu;

		ret = vfwd_port_iface(port, st->kernel_ifname, sizeof(st->kernel_ifname), NULL);
		if (ret == 0)
			ret = kernel_mtu(st->kernel_ifname, SIOCGIFMTU, &before);
		if (ret == 0 && before != mtu) {
			ret = kernel_mtu(st->kernel_ifname, SIOCSIFMTU, &mtu);
			if (ret == 0)
				st->kernel_mtu_before = before;
		}
	}
	if (ret != 0)
		goto fail_close;
	ret = rte_eth_dev_adjust_nb_rx_tx_desc(port, &nb_rxd, &nb_txd);
	if (ret != 0)
		goto fail_close;

	socket = rte_eth_dev_socket_id(port);
	if (socket < 0)
		socket = 0;
	for (uint16_t q = 0; q < conf->nb_rxq; q++) {
		ret = rte_eth_rx_queue_setup(port, q, nb_rxd, socket, NULL, pool);
		if (ret != 0)
			goto fail_close;
	}
	for (uint16_t q = 0; q < conf->nb_txq; q++) {
		ret = rte_eth_tx_queue_setup(port, q, nb_txd, socket, NULL);
		if (ret != 0)
			goto fail_close;
	}
	ret = rte_eth_dev_start(port);
	if (ret != 0)
		goto fail_close;
	if (!st->is_vhost) {
		st->link_up = 1;
		memset((void *)st->txq_enabled, 1, sizeof(st->txq_enabled));
	}
	return 0;

fail_close:
	/* Rx queues may hold mbufs of pool already (net_tap fills them at
	 * setup, others at a start that half failed): stop and close, which
	 * frees them now, so that nothing of this port refers to the pool
	 * once the caller frees it. 22.11 has no public queue release short
	 * of close. */
	if (st->is_vhost)
		unregister_events(port, st);
	rte_eth_dev_stop(port);
	rte_eth_dev_close(port);
	kernel_mtu_restore(st);
	return ret < 0 ? ret : -EIO;
fail_events:
	if (st->is_vhost)
		unregister_events(port, st);
	return ret < 0 ? ret : -EIO;
}

void
vfwd_port_teardown(uint16_t port, struct vfwd_port_state *st)
{
	rte_eth_dev_stop(port);
	if (st->is_vhost)
		unregister_events(port, st);
	rte_eth_dev_close(port);
	kernel_mtu_restore(st);
	if (st->vhost_lib)
		pthread_mutex_destroy(&st->lib_lock);
}
