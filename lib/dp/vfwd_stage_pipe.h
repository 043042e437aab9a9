/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The pipeline's hand-off (cpumap's twin): an rx lcore receives and puts
 * each burst on the work lcores' rings by flow hash; a work lcore takes
 * them off and forwards each stream's run.
 */
#ifndef VFWD_STAGE_PIPE_H
#define VFWD_STAGE_PIPE_H

#include <string.h>

#include <rte_ip.h>
#include <rte_jhash.h>
#include <rte_ring.h>

#include "vfwd_stage_backlog.h"
#include "vfwd_stage_rx.h"

/* A flow's hash (RPS style): IPv4/IPv6 addresses and TCP/UDP ports, so
 * that one flow always goes to one work lcore, in order. Others: 0. */
static inline uint32_t
flow_hash(const struct rte_mbuf *m)
{
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
	uint32_t len = rte_pktmbuf_data_len(m), off = 14;
	uint16_t type;

	if (len < 14)
		return 0;
	type = (uint16_t)(p[12] << 8 | p[13]);
	if (type == RTE_ETHER_TYPE_VLAN && len >= 18) {
		type = (uint16_t)(p[16] << 8 | p[17]);
		off = 18;
	}
	if (type == RTE_ETHER_TYPE_IPV4 && len >= off + 20) {
		const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)(p + off);
		uint32_t ihl = (ip->version_ihl & 0xf) * 4u, ports = 0;

		if ((ip->next_proto_id == IPPROTO_TCP || ip->next_proto_id == IPPROTO_UDP) &&
		    !(ip->fragment_offset & rte_cpu_to_be_16(0x3fff)) && ihl >= 20 &&
		    len >= off + ihl + 4)
			memcpy(&ports, p + off + ihl, 4);
		return rte_jhash_3words(ip->src_addr, ip->dst_addr, ports ^ ip->next_proto_id, 0);
	}
	if (type == RTE_ETHER_TYPE_IPV6 && len >= off + 40) {
		uint32_t a[8], ports = 0;

		memcpy(a, p + off + 8, sizeof(a));
		if ((p[off + 6] == IPPROTO_TCP || p[off + 6] == IPPROTO_UDP) && len >= off + 44)
			memcpy(&ports, p + off + 40, 4);
		return rte_jhash_32b(a, 8, ports ^ p[off + 6]);
	}
	return 0;
}

/* Rx lcore: poll each queue once and hand the burst, tagged with its
 * stream, to the work lcores by flow hash. */
static inline uint32_t
pipe_rx_round(struct vfwd_worker *w, const struct vfwd_knobs *k, uint64_t now)
{
	uint32_t nb = 0;

	for (uint16_t i = 0; i < w->nb_streams; i++) {
		const struct vfwd_stream *s = &w->streams[i].s;
		struct vfwd_dir_stats *d = &w->stats.dir[s->dir];
		struct vfwd_stream_stats *ss = w->streams[i].stats;
		struct rte_mbuf *pkts[VFWD_MAX_BURST], *to[VFWD_MAX_BURST];
		uint8_t ring_of[VFWD_MAX_BURST];
		uint64_t bytes;
		/* no prep flags: the work lcore looks at them when it processes */
		uint16_t n = receive(w, i, k->burst, pkts, &bytes, NULL, d);

		nb += n;
		for (uint16_t j = 0; j < n; j++)
			pkts[j]->hash.usr = s->id;
		if (unlikely(w->lat_on))
			lat_stamp(w, pkts, n, rte_rdtsc());
		else if (unlikely(now < w->lat_unstamp_until))
			/* latency went off here, and a work lcore may not have
			 * taken the same knobs yet: what it takes unstamped
			 * would read the stamp of the mbuf's last trip, a wait
			 * that never was. 0 is older than any switch-on. */
			for (uint16_t j = 0; j < n; j++)
				*lat_field(w, pkts[j]) = 0;
		if (w->nb_rings > 1)
			for (uint16_t j = 0; j < n; j++) /* once per packet */
				ring_of[j] = (uint8_t)(flow_hash(pkts[j]) % w->nb_rings);
		for (uint16_t r = 0; r < w->nb_rings && n; r++) {
			uint16_t m = 0;
			unsigned int q;

			if (w->nb_rings == 1) {
				memcpy(to, pkts, n * sizeof(pkts[0]));
				m = n;
			} else {
				for (uint16_t j = 0; j < n; j++)
					if (ring_of[j] == r)
						to[m++] = pkts[j];
			}
			q = rte_ring_enqueue_burst(w->rings[r], (void **)to, m, NULL);
			w->stats.ring_enq += q;
			held_in(&w->streams[i], d, q);
			if (unlikely(q < m)) {
				rte_pktmbuf_free_bulk(to + q, m - q);
				d->drops[VFWD_DROP_RING] += m - q;
				ss->drops += m - q;
				w->stats.ring_drops += m - q;
			}
		}
	}
	return nb;
}

/* Work lcore: take bursts off the rings and process each stream's run, as
 * the kernel's cpumap kthread does; GRO flushed every 64 packets and when
 * the rings run empty. */
static inline uint32_t
pipe_work_round(struct vfwd_worker *w, const struct vfwd_knobs *k, uint64_t now)
{
	uint32_t nb = 0;

	for (uint16_t r = 0; r < w->nb_rings; r++) {
		struct rte_mbuf *pkts[VFWD_MAX_BURST];
		unsigned int n = rte_ring_dequeue_burst(w->rings[r], (void **)pkts, k->burst, NULL);

		w->stats.ring_deq += n;
		nb += n + process_tagged(w, k, pkts, n, false, now);
		w->since_gro_flush += n;
	}
	if (nb == 0 || w->since_gro_flush >= 64) {
		for (uint16_t i = 0; i < w->nb_streams; i++) {
			if (w->streams[i].s.dir == VFWD_DIR_WIRE_TO_VM &&
			    vfwd_gro_held(&w->streams[i].off.gro))
				nb += flush_held(w, i, k, true, now,
						 &w->stats.dir[VFWD_DIR_WIRE_TO_VM]);
		}
		w->since_gro_flush = 0;
	}
	for (uint16_t i = 0; i < w->nb_streams; i++)
		hold_check(w, i, k, nb == 0, now, &w->stats.dir[w->streams[i].s.dir]);
	return nb;
}

#endif /* VFWD_STAGE_PIPE_H */
