/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Offload stages: packet typing, and TSO/GSO and checksums toward the
 * wire (GRO toward the VM is vfwd_gro.c). See vfwd_offload.h.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_tcp.h>
#include <rte_udp.h>

#include "vfwd.h"
#include "vfwd_compat.h"

/* ------------------------------------------------------------- typing */

/* IPv6 extension headers walked before giving up (the kernel's
 * ipv6_skip_exthdr has no bound; ours keeps a crafted chain cheap). */
#define IPV6_EXT_MAX 8

/* Walk the IPv6 extension headers vfwd knows (hop-by-hop, routing,
 * destination options) from *off, the byte after the fixed header, with
 * *proto its next-header field, reading nothing at or beyond end. On
 * return *proto is the first other header's type (a fragment header, 44,
 * included) and *off its offset; *dst_off is the offset of the final
 * destination (unchanged unless a routing header has segments left: types
 * 0, 2 and 4 name it, RFC 8200 8.1). Returns 0, or -1 when a header runs
 * beyond end, the chain is longer than IPV6_EXT_MAX, or a routing header
 * of another type has segments left (a router would discard it). */
static int
ipv6_skip_ext(const uint8_t *p, uint32_t end, uint32_t *off, uint8_t *proto, uint32_t *dst_off)
{
	for (unsigned int i = 0;; i++) {
		uint32_t o = *off, len;

		if (*proto != IPPROTO_HOPOPTS && *proto != IPPROTO_ROUTING &&
		    *proto != IPPROTO_DSTOPTS)
			return 0;
		if (i == IPV6_EXT_MAX || o + 8 > end)
			return -1;
		len = (p[o + 1] + 1u) * 8;
		if (o + len > end)
			return -1;
		if (*proto == IPPROTO_ROUTING && p[o + 3] != 0) {
			/* segments left: the pseudo-header takes the last hop */
			uint8_t type = p[o + 2], n = p[o + 1] / 2; /* 16-byte addresses */

			if (n == 0 || (type != 0 && type != 2 && type != 4))
				return -1;
			/* type 0: the last address of the list; type 2: the
			 * home address; type 4 (SRH): segment list[0] */
			*dst_off = o + 8 + (type == 0 ? 16u * (n - 1) : 0);
		}
		*proto = p[o];
		*off = o + len;
	}
}

#define MBUF_L3_LEN_MAX 511 /* the widest l3_len an rte_mbuf holds */

enum vfwd_parse
vfwd_parse(struct rte_mbuf *m)
{
	const uint32_t seg_len = rte_pktmbuf_data_len(m);
	const uint32_t pkt_len = rte_pktmbuf_pkt_len(m);
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
	uint32_t l2 = sizeof(struct rte_ether_hdr), l3, l4, ip_end, tags = 0;
	uint32_t ptype;
	uint16_t ether_type;
	uint8_t proto;
	bool v4;

	if (seg_len < l2)
		return VFWD_PARSE_OTHER;
	ether_type = rte_be_to_cpu_16(((const struct rte_ether_hdr *)p)->ether_type);
	/* 802.1Q and 802.1ad tags, one or two in any order (a guest's VLAN
	 * sub-interface, QinQ): the IP header follows them */
	while (ether_type == RTE_ETHER_TYPE_VLAN || ether_type == RTE_ETHER_TYPE_QINQ) {
		if (tags == 2 || seg_len < l2 + sizeof(struct rte_vlan_hdr))
			return VFWD_PARSE_OTHER;
		ether_type = rte_be_to_cpu_16(((const struct rte_vlan_hdr *)(p + l2))->eth_proto);
		l2 += sizeof(struct rte_vlan_hdr);
		tags++;
	}
	ptype = tags == 0 ? RTE_PTYPE_L2_ETHER :
		tags == 1 ? RTE_PTYPE_L2_ETHER_VLAN : RTE_PTYPE_L2_ETHER_QINQ;
	if (seg_len < l2 + sizeof(struct rte_ipv4_hdr))
		return VFWD_PARSE_OTHER;
	if (ether_type == RTE_ETHER_TYPE_IPV4) {
		const struct rte_ipv4_hdr *ip = (const void *)(p + l2);

		v4 = true;
		if ((ip->version_ihl >> 4) != 4)
			return VFWD_PARSE_BAD;
		l3 = (ip->version_ihl & 0xf) * 4u;
		if (l3 < sizeof(*ip))
			return VFWD_PARSE_BAD;
		ip_end = l2 + rte_be_to_cpu_16(ip->total_length);
		if (ip_end < l2 + l3 || ip_end > pkt_len || l2 + l3 > seg_len)
			return VFWD_PARSE_BAD;
		if (rte_be_to_cpu_16(ip->fragment_offset) &
		    (RTE_IPV4_HDR_MF_FLAG | RTE_IPV4_HDR_OFFSET_MASK))
			return VFWD_PARSE_OTHER;
		proto = ip->next_proto_id;
		ptype |= RTE_PTYPE_L3_IPV4;
	} else if (ether_type == RTE_ETHER_TYPE_IPV6) {
		const struct rte_ipv6_hdr *ip = (const void *)(p + l2);
		uint32_t off = l2 + sizeof(*ip), dst_off = 0;

		v4 = false;
		if (off > seg_len)
			return VFWD_PARSE_OTHER;
		if ((rte_be_to_cpu_32(ip->vtc_flow) >> 28) != 6)
			return VFWD_PARSE_BAD;
		ip_end = off + rte_be_to_cpu_16(ip->payload_len);
		if (ip_end > pkt_len)
			return VFWD_PARSE_BAD;
		proto = ip->proto;
		if (ipv6_skip_ext(p, RTE_MIN(seg_len, ip_end), &off, &proto, &dst_off) != 0)
			return VFWD_PARSE_OTHER;
		l3 = off - l2;
		/* rte_mbuf's l3_len has 9 bits: longer extension headers (legal,
		 * up to the payload length) cannot be described to a PMD or to
		 * our own segmenter, so such a frame is not ours to touch */
		if (l3 > MBUF_L3_LEN_MAX)
			return VFWD_PARSE_OTHER;
		ptype |= l3 == sizeof(*ip) ? RTE_PTYPE_L3_IPV6 : RTE_PTYPE_L3_IPV6_EXT;
	} else {
		return VFWD_PARSE_OTHER; /* ARP, a third tag, ... */
	}

	if (proto == IPPROTO_TCP) {
		const struct rte_tcp_hdr *th = (const void *)(p + l2 + l3);

		if (l2 + l3 + sizeof(*th) > seg_len || l2 + l3 + sizeof(*th) > ip_end)
			return VFWD_PARSE_BAD;
		l4 = (th->data_off >> 4) * 4u;
		if (l4 < sizeof(*th) || l2 + l3 + l4 > ip_end || l2 + l3 + l4 > seg_len)
			return VFWD_PARSE_BAD;
		ptype |= RTE_PTYPE_L4_TCP;
	} else if (proto == IPPROTO_UDP) {
		l4 = sizeof(struct rte_udp_hdr);
		if (l2 + l3 + l4 > ip_end || l2 + l3 + l4 > seg_len)
			return VFWD_PARSE_BAD;
		ptype |= RTE_PTYPE_L4_UDP;
	} else {
		return VFWD_PARSE_OTHER; /* ICMP, an IPv6 fragment, ... */
	}
	m->packet_type = ptype;
	m->l2_len = l2;
	m->l3_len = l3;
	m->l4_len = l4;
	if (proto == IPPROTO_TCP)
		return v4 ? VFWD_PARSE_TCP4 : VFWD_PARSE_TCP6;
	return v4 ? VFWD_PARSE_UDP4 : VFWD_PARSE_UDP6;
}

/* --------------------------------------------------------- toward wire */

static void
count_drop(struct rte_mbuf *m, enum vfwd_drop_cause why, struct vfwd_dir_stats *st)
{
	rte_pktmbuf_free(m);
	st->drops[why]++;
}

static inline bool
kind_v4(enum vfwd_parse kind)
{
	return kind == VFWD_PARSE_TCP4 || kind == VFWD_PARSE_UDP4;
}

static inline bool
kind_tcp(enum vfwd_parse kind)
{
	return kind == VFWD_PARSE_TCP4 || kind == VFWD_PARSE_TCP6;
}

/* The pseudo-header sum (folded, not complemented) of a parsed TCP/UDP
 * packet, with the L4 length or without it (TSO). IPv6: the upper-layer
 * protocol and length and the final destination, which behind extension
 * headers are not what rte_ipv6_phdr_cksum reads from the fixed header. */
static uint16_t
phdr_cksum(const struct rte_mbuf *m, enum vfwd_parse kind, bool with_len)
{
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
	const struct rte_ipv6_hdr *ip6 = (const void *)(p + m->l2_len);
	uint32_t l4_off = m->l2_len + m->l3_len, dst_off = m->l2_len + 24, sum;
	struct {
		rte_be32_t len;
		rte_be32_t proto;
	} psd;

	if (kind_v4(kind))
		return rte_ipv4_phdr_cksum((const void *)(p + m->l2_len),
					   with_len ? 0 : RTE_MBUF_F_TX_TCP_SEG);
	if (m->l3_len > sizeof(*ip6)) {
		/* parsed already: only the final destination is wanted */
		uint32_t off = m->l2_len + sizeof(*ip6);
		uint8_t proto = ip6->proto;

		ipv6_skip_ext(p, l4_off, &off, &proto, &dst_off);
	}
	psd.len = with_len ? rte_cpu_to_be_32(m->l2_len + sizeof(*ip6) +
					      rte_be_to_cpu_16(ip6->payload_len) - l4_off) : 0;
	psd.proto = rte_cpu_to_be_32(kind_tcp(kind) ? IPPROTO_TCP : IPPROTO_UDP);
	sum = __rte_raw_cksum(VFWD_IP6_SRC(ip6), VFWD_IP6_ADDR_LEN, 0);
	sum = __rte_raw_cksum(p + dst_off, 16, sum);
	sum = __rte_raw_cksum(&psd, sizeof(psd), sum);
	return __rte_raw_cksum_reduce(sum);
}

/* Store a checksum (as the raw-sum functions return it: the bytes in
 * memory order) in the packet's TCP or UDP checksum field. */
static inline void
set_l4_cksum(struct rte_mbuf *m, enum vfwd_parse kind, uint16_t sum)
{
	uint32_t off = m->l2_len + m->l3_len +
		       (kind_tcp(kind) ? offsetof(struct rte_tcp_hdr, cksum) :
					 offsetof(struct rte_udp_hdr, dgram_cksum));

	memcpy(rte_pktmbuf_mtod_offset(m, uint8_t *, off), &sum, sizeof(sum));
}

/* rte_raw_cksum_mbuf() (22.11 to 25.11) byte-swaps the unfolded 32-bit
 * sum of a segment that starts at an odd offset, losing its carries: wrong
 * checksums on chains with odd-length pieces (an odd MSS, a guest's odd
 * fragments, memif's jumbo chains). */
uint16_t
vfwd_chain_raw_cksum(const struct rte_mbuf *m, uint32_t off, uint32_t len)
{
	uint32_t sum = 0, done = 0;

	while (m != NULL && off >= rte_pktmbuf_data_len(m)) {
		off -= rte_pktmbuf_data_len(m);
		m = m->next;
	}
	for (; m != NULL && done < len; m = m->next, off = 0) {
		uint32_t n = RTE_MIN(rte_pktmbuf_data_len(m) - off, len - done);
		uint16_t part = __rte_raw_cksum_reduce(
			__rte_raw_cksum(rte_pktmbuf_mtod_offset(m, const void *, off), n, 0));

		/* a piece that starts at an odd position has its bytes in the
		 * other halves of the 16-bit words */
		sum += (done & 1) ? rte_bswap16(part) : part;
		done += n;
	}
	return __rte_raw_cksum_reduce(sum);
}

/* Complete the L4 checksum of a parsed packet in software (any segment
 * layout, lengths from the IP header). */
static void
sw_l4_cksum(struct rte_mbuf *m, enum vfwd_parse kind, struct vfwd_dir_stats *st)
{
	const uint8_t *l3 = rte_pktmbuf_mtod_offset(m, const uint8_t *, m->l2_len);
	uint32_t off = m->l2_len + m->l3_len, len;
	uint16_t raw, sum;

	if (kind_v4(kind))
		len = rte_be_to_cpu_16(((const struct rte_ipv4_hdr *)l3)->total_length) -
		      m->l3_len;
	else
		len = sizeof(struct rte_ipv6_hdr) +
		      rte_be_to_cpu_16(((const struct rte_ipv6_hdr *)l3)->payload_len) - m->l3_len;
	set_l4_cksum(m, kind, 0);
	raw = vfwd_chain_raw_cksum(m, off, len); /* within pkt_len: parsed */
	sum = (uint16_t)~__rte_raw_cksum_reduce((uint32_t)raw + phdr_cksum(m, kind, true));
	if (sum == 0 && !kind_tcp(kind))
		sum = 0xffff; /* 0 means "no checksum" in UDP */
	set_l4_cksum(m, kind, sum);
	st->sw_cksums++;
}

/* Leave the L4 checksum (and, with extra flags, segmentation or the IPv4
 * header checksum) to the port: flags, and the pseudo-header sum the
 * flags call for (without the length under TX_TCP_SEG). */
static void
set_l4_offload(struct rte_mbuf *m, enum vfwd_parse kind, uint64_t extra)
{
	m->ol_flags &= ~RTE_MBUF_F_TX_OFFLOAD_MASK;
	m->ol_flags |= (kind_v4(kind) ? RTE_MBUF_F_TX_IPV4 : RTE_MBUF_F_TX_IPV6) |
		       (kind_tcp(kind) ? RTE_MBUF_F_TX_TCP_CKSUM : RTE_MBUF_F_TX_UDP_CKSUM) |
		       extra;
	set_l4_cksum(m, kind, phdr_cksum(m, kind, !(extra & RTE_MBUF_F_TX_TCP_SEG)));
}

/* The IPv4 header checksum of a header that changed: left to the port
 * when it enabled IPV4_CKSUM (returns the flags for that), else here. */
static uint64_t
ipv4_hdr_cksum(const struct vfwd_wire_tx *w, struct rte_mbuf *m)
{
	struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *, m->l2_len);

	ip->hdr_checksum = 0;
	if (w->ip_cksum_offload)
		return RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IP_CKSUM;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	return 0;
}

/* A partial checksum completed: by the port if it can, else here; extra
 * carries the IPv4 header checksum flags of ipv4_hdr_cksum(). Behind IPv6
 * extension headers always here: ports (net_tap, rte_net_intel_cksum_prepare)
 * recompute the pseudo-header from the fixed header in 22.11. */
static void
complete_l4_cksum(const struct vfwd_wire_tx *w, struct rte_mbuf *m, enum vfwd_parse kind,
		  uint64_t extra, struct vfwd_dir_stats *st)
{
	if (w->l4_cksum_offload && (kind_v4(kind) || m->l3_len == sizeof(struct rte_ipv6_hdr))) {
		set_l4_offload(m, kind, extra);
		return;
	}
	sw_l4_cksum(m, kind, st);
	m->ol_flags &= ~RTE_MBUF_F_TX_OFFLOAD_MASK;
	m->ol_flags |= extra;
}

/* A segment's headers are set: its checksums, its flags. */
static void
finish_segment(const struct vfwd_wire_tx *w, struct rte_mbuf *s, const struct rte_mbuf *m,
	       enum vfwd_parse kind, struct vfwd_dir_stats *st)
{
	uint64_t extra = 0;

	s->tx_offload = m->tx_offload; /* l2/l3/l4_len */
	s->tso_segsz = 0;
	s->packet_type = m->packet_type;
	/* librte_gso copied the frame's flags, RX_LRO included; EXTERNAL
	 * stays as rte_pktmbuf_reset() keeps it (pinned buffers) */
	s->ol_flags &= RTE_MBUF_F_EXTERNAL;
	if (kind == VFWD_PARSE_TCP4)
		extra = ipv4_hdr_cksum(w, s);
	complete_l4_cksum(w, s, kind, extra, st);
}

/* librte_gso (TCP/IPv4, tagged or not, with IP options), then checksums
 * per segment. Only for a direct head mbuf: its header segments copy the
 * frame's ol_flags, EXTERNAL/INDIRECT included, and freeing such a
 * segment (its own error path frees them too) then detaches a buffer it
 * never had. */
static uint16_t
gso_segment(const struct vfwd_wire_tx *w, struct rte_mbuf *m, uint16_t segsz,
	    struct rte_mbuf **out, uint16_t room, struct vfwd_dir_stats *st)
{
	struct rte_gso_ctx gso = w->gso;
	int n;

	gso.gso_size = m->l2_len + m->l3_len + m->l4_len + segsz;
	m->ol_flags &= ~RTE_MBUF_F_TX_OFFLOAD_MASK;
	m->ol_flags |= RTE_MBUF_F_TX_TCP_SEG | RTE_MBUF_F_TX_IPV4;
	n = rte_gso_segment(m, &gso, out, room);
	if (n <= 0) {
		count_drop(m, n == -ENOMEM ? VFWD_DROP_NO_MBUF : VFWD_DROP_BAD_GSO, st);
		return 0;
	}
	for (int i = 0; i < n; i++) {
		/* librte_gso clears PSH/FIN but one the last; the kernel also
		 * keeps CWR on the first only */
		if (i > 0) {
			struct rte_tcp_hdr *th = rte_pktmbuf_mtod_offset(
				out[i], struct rte_tcp_hdr *, m->l2_len + m->l3_len);

			th->tcp_flags &= ~RTE_TCP_CWR_FLAG;
		}
		finish_segment(w, out[i], m, VFWD_PARSE_TCP4, st);
	}
	/* the segments hold references to m's data */
	rte_pktmbuf_free(m);
	st->gso_sw_frames++;
	st->gso_segs += n;
	return (uint16_t)n;
}

/* Our own TCP segmenter, for what librte_gso 22.11 does not cut: TCP/IPv6
 * (extension headers, tags), TCP/IPv4 whose head is not a direct mbuf, and
 * any TCP frame for a port that takes single segments only. Each segment
 * is a fresh direct mbuf with a copy of the headers followed by its
 * payload: indirect mbufs attached to m's segments, or, for a
 * single-segment port, the bytes copied in. Sequence numbers advance, the
 * IPv4 id by one a segment (as librte_gso), PSH/FIN stay on the last
 * segment, CWR on the first. The caller checked the segment count. */
static uint16_t
tcp_segment(const struct vfwd_wire_tx *w, struct rte_mbuf *m, enum vfwd_parse kind,
	    uint16_t segsz, struct rte_mbuf **out, struct vfwd_dir_stats *st)
{
	const uint32_t l2 = m->l2_len, l4_off = l2 + m->l3_len, hdr = l4_off + m->l4_len;
	const uint32_t payload = rte_pktmbuf_pkt_len(m) - hdr;
	const uint16_t n = (uint16_t)((payload + segsz - 1) / segsz);
	const uint8_t *h = rte_pktmbuf_mtod(m, const uint8_t *);
	const bool v4 = kind == VFWD_PARSE_TCP4;
	const uint8_t flags = ((const struct rte_tcp_hdr *)(h + l4_off))->tcp_flags;
	const uint32_t seq = rte_be_to_cpu_32(((const struct rte_tcp_hdr *)(h + l4_off))->sent_seq);
	const uint16_t id = v4 ? rte_be_to_cpu_16(((const struct rte_ipv4_hdr *)(h + l2))->packet_id)
			       : 0;
	const uint16_t id_delta = (w->gso.flag & RTE_GSO_FLAG_IPID_FIXED) ? 0 : 1;
	struct rte_mbuf *src = m;
	uint32_t pos = hdr; /* in src; the headers sit in the first segment */
	uint16_t i;

	/* each segment's head holds the headers, and for a single-segment
	 * port the payload too */
	if (hdr + (w->multi_seg ? 0 : segsz) >
	    (uint32_t)rte_pktmbuf_data_room_size(w->gso.direct_pool) - RTE_PKTMBUF_HEADROOM) {
		count_drop(m, w->multi_seg ? VFWD_DROP_BAD_GSO : VFWD_DROP_OVERSIZE, st);
		return 0;
	}
	for (i = 0; i < n; i++) {
		uint32_t len = RTE_MIN((uint32_t)segsz, payload - (uint32_t)i * segsz);
		struct rte_mbuf *s = rte_pktmbuf_alloc(w->gso.direct_pool), *prev;
		uint8_t *dst = NULL;
		struct rte_tcp_hdr *th;

		if (s == NULL)
			goto no_mbuf;
		out[i] = s;
		memcpy(rte_pktmbuf_append(s, (uint16_t)hdr), h, hdr);
		if (!w->multi_seg)
			dst = (uint8_t *)rte_pktmbuf_append(s, (uint16_t)len);
		prev = s;
		while (len) {
			uint32_t take;

			while (src != NULL && pos == src->data_len) {
				src = src->next;
				pos = 0;
			}
			if (src == NULL) { /* a chain shorter than its pkt_len */
				rte_pktmbuf_free_bulk(out, i + 1);
				count_drop(m, VFWD_DROP_BAD_GSO, st);
				return 0;
			}
			take = RTE_MIN(len, (uint32_t)src->data_len - pos);
			if (dst) {
				memcpy(dst, rte_pktmbuf_mtod_offset(src, void *, pos), take);
				dst += take;
			} else {
				struct rte_mbuf *ind = rte_pktmbuf_alloc(w->gso.indirect_pool);

				if (ind == NULL)
					goto no_mbuf_seg;
				rte_pktmbuf_attach(ind, src);
				ind->data_off = (uint16_t)(src->data_off + pos);
				ind->data_len = (uint16_t)take;
				ind->pkt_len = take;
				prev->next = ind;
				prev = ind;
				s->nb_segs++;
				s->pkt_len += take;
			}
			pos += take;
			len -= take;
		}
		/* headers of segment i */
		th = rte_pktmbuf_mtod_offset(s, struct rte_tcp_hdr *, l4_off);
		th->sent_seq = rte_cpu_to_be_32(seq + (uint32_t)i * segsz);
		th->tcp_flags = flags;
		if (i + 1 < n)
			th->tcp_flags &= ~(RTE_TCP_PSH_FLAG | RTE_TCP_FIN_FLAG);
		if (i > 0)
			th->tcp_flags &= ~RTE_TCP_CWR_FLAG;
		if (v4) {
			struct rte_ipv4_hdr *ip =
				rte_pktmbuf_mtod_offset(s, struct rte_ipv4_hdr *, l2);

			ip->total_length = rte_cpu_to_be_16((uint16_t)(s->pkt_len - l2));
			ip->packet_id = rte_cpu_to_be_16((uint16_t)(id + i * id_delta));
		} else {
			struct rte_ipv6_hdr *ip =
				rte_pktmbuf_mtod_offset(s, struct rte_ipv6_hdr *, l2);

			ip->payload_len = rte_cpu_to_be_16(
				(uint16_t)(s->pkt_len - l2 - sizeof(*ip)));
		}
		s->port = m->port;
		finish_segment(w, s, m, kind, st);
	}
	rte_pktmbuf_free(m); /* the segments hold their own references */
	st->gso_sw_frames++;
	st->gso_segs += n;
	return n;

no_mbuf_seg:
	i++; /* segment i is partly built: free it too */
no_mbuf:
	rte_pktmbuf_free_bulk(out, i);
	count_drop(m, VFWD_DROP_NO_MBUF, st);
	return 0;
}

/* 802.1Q / QinQ tags in front of the payload: a full-MTU tagged frame is
 * longer than MTU + Ethernet header by them. */
static inline uint32_t
vlan_tags_len(const struct rte_mbuf *m)
{
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
	uint32_t len = 0;

	for (uint32_t off = 12; len < 8 && rte_pktmbuf_data_len(m) >= off + 2; off += 4) {
		uint16_t type = (uint16_t)(p[off] << 8 | p[off + 1]);

		if (type != RTE_ETHER_TYPE_VLAN && type != RTE_ETHER_TYPE_QINQ)
			break;
		len += 4;
	}
	return len;
}

uint16_t
vfwd_vm_drop_oversize(struct rte_mbuf **pkts, uint16_t n, uint16_t max_frame,
		      struct vfwd_dir_stats *st)
{
	uint16_t k = 0;

	for (uint16_t j = 0; j < n; j++) {
		struct rte_mbuf *m = pkts[j];

		if (rte_pktmbuf_pkt_len(m) > max_frame + vlan_tags_len(m))
			count_drop(m, VFWD_DROP_OVERSIZE, st);
		else
			pkts[k++] = m;
	}
	return k;
}

/* One guest frame made ready for the port, before flattening. */
static uint16_t
prepare_one(const struct vfwd_wire_tx *w, struct rte_mbuf *m, struct rte_mbuf **out,
	    uint16_t room, struct vfwd_dir_stats *st)
{
	enum vfwd_parse kind;
	uint32_t hdr, payload;
	uint16_t segsz;

	if (!(m->ol_flags & RTE_MBUF_F_RX_LRO) &&
	    rte_pktmbuf_pkt_len(m) > w->max_frame + vlan_tags_len(m)) {
		/* a guest may hand over a frame longer than the wire's MTU
		 * (e.g. a TSO header vhost refused as lying): not sendable */
		count_drop(m, VFWD_DROP_OVERSIZE, st);
		return 0;
	}
	if (!vfwd_needs_prep(m)) {
		out[0] = m;
		return 1;
	}
	kind = vfwd_parse(m);
	if (!(m->ol_flags & RTE_MBUF_F_RX_LRO)) {
		/* a partial checksum only */
		if (kind == VFWD_PARSE_OTHER || kind == VFWD_PARSE_BAD) {
			count_drop(m, VFWD_DROP_BAD_CSUM, st);
			return 0;
		}
		complete_l4_cksum(w, m, kind, 0, st);
		out[0] = m;
		return 1;
	}

	/* a TSO frame from the guest */
	st->gso_frames++;
	segsz = m->tso_segsz;
	if (!kind_tcp(kind)) {
		count_drop(m, VFWD_DROP_BAD_GSO, st);
		return 0;
	}
	hdr = m->l2_len + m->l3_len + m->l4_len;
	payload = rte_pktmbuf_pkt_len(m) - hdr;
	/* a segment is an MTU-sized frame, plus its tags */
	if (segsz == 0 || hdr + segsz > w->max_frame + (uint32_t)(m->l2_len - RTE_ETHER_HDR_LEN) ||
	    (payload + segsz - 1) / segsz > (unsigned int)RTE_MIN(room, (uint16_t)VFWD_GSO_MAX_SEGS)) {
		count_drop(m, VFWD_DROP_BAD_GSO, st);
		return 0;
	}
	if (payload <= segsz) {
		/* one segment's worth: a checksum is all it needs */
		m->ol_flags &= ~RTE_MBUF_F_RX_LRO;
		complete_l4_cksum(w, m, kind, 0, st);
		out[0] = m;
		return 1;
	}
	if (w->tso_offload && w->multi_seg) {
		/* IPv4: TX_IP_CKSUM only where the port enabled it (else the
		 * header checksum is right for the frame; the port's TSO
		 * rewrites length and id per segment anyway) */
		uint64_t extra = RTE_MBUF_F_TX_TCP_SEG;

		if (kind == VFWD_PARSE_TCP4)
			extra |= ipv4_hdr_cksum(w, m);
		set_l4_offload(m, kind, extra);
		m->tso_segsz = segsz;
		st->tso_offloaded++;
		out[0] = m;
		return 1;
	}
	if (kind == VFWD_PARSE_TCP4 && w->multi_seg && RTE_MBUF_DIRECT(m))
		return gso_segment(w, m, segsz, out, room, st);
	return tcp_segment(w, m, kind, segsz, out, st);
}

/* m's bytes in one direct mbuf (and its offload fields), for a port that
 * takes single segments only; m is freed. NULL when no mbuf is left or the
 * frame does not fit one (dropped and counted). */
static struct rte_mbuf *
flatten(const struct vfwd_wire_tx *w, struct rte_mbuf *m, struct vfwd_dir_stats *st)
{
	struct rte_mempool *mp = w->gso.direct_pool;
	uint32_t len = rte_pktmbuf_pkt_len(m);
	struct rte_mbuf *f;
	const void *p;
	void *dst;

	if (len > (uint32_t)rte_pktmbuf_data_room_size(mp) - RTE_PKTMBUF_HEADROOM) {
		count_drop(m, VFWD_DROP_OVERSIZE, st);
		return NULL;
	}
	f = rte_pktmbuf_alloc(mp);
	if (f == NULL) {
		count_drop(m, VFWD_DROP_NO_MBUF, st);
		return NULL;
	}
	dst = rte_pktmbuf_append(f, (uint16_t)len);
	p = rte_pktmbuf_read(m, 0, len, dst);
	if (p != dst) /* all of it in the first segment: not copied */
		memcpy(dst, p, len);
	f->port = m->port;
	f->ol_flags = (f->ol_flags & RTE_MBUF_F_EXTERNAL) |
		      (m->ol_flags & ~(RTE_MBUF_F_EXTERNAL | RTE_MBUF_F_INDIRECT));
	f->tx_offload = m->tx_offload;
	f->packet_type = m->packet_type;
	f->vlan_tci = m->vlan_tci;
	f->vlan_tci_outer = m->vlan_tci_outer;
	rte_pktmbuf_free(m);
	return f;
}

uint16_t
vfwd_wire_tx_prepare(const struct vfwd_wire_tx *w, struct rte_mbuf *m, struct rte_mbuf **out,
		     uint16_t room, struct vfwd_dir_stats *st)
{
	uint16_t n = prepare_one(w, m, out, room, st), k = 0;

	if (likely(w->multi_seg))
		return n;
	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *s = out[i];

		if (s->nb_segs > 1)
			s = flatten(w, s, st);
		if (s != NULL)
			out[k++] = s;
	}
	return k;
}
