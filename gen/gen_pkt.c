/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The generator's frames: building them and checking what comes back.
 */
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_tcp.h>
#include <rte_udp.h>

#include "vfwd_gen.h"
#include "vfwd_compat.h"

#define GEN_MAGIC 0x56u /* "V" */
#define UDP_PAYLOAD_SPAN 65536u /* pattern positions one udp frame may use */

const char *const gen_dir_keys[GEN_DIR_COUNT] = {"vm_to_wire", "wire_to_vm"};
const char *const gen_profile_names[] = {"udp", "tcp", "rr"};

static const uint32_t side_ip[GEN_SIDE_COUNT] = {0xc6120001, 0xc6130001};

/* A different 64-bit word per (key, index): cheap enough to fill 1500
 * bytes per frame at line rate, and no two frames or offsets alike. */
static inline uint64_t
pattern_word(uint64_t key, uint64_t index)
{
	uint64_t x = (index + key * 0x9e3779b97f4a7c15ull) * 0xbf58476d1ce4e5b9ull;

	return rte_cpu_to_le_64(x ^ (x >> 31));
}

static inline uint8_t
pattern_byte(uint64_t key, uint64_t pos)
{
	uint64_t w = pattern_word(key, pos >> 3);

	return ((const uint8_t *)&w)[pos & 7];
}

void
gen_fill(uint8_t *dst, uint64_t key, uint64_t pos, uint32_t len)
{
	for (; len > 0 && (pos & 7) != 0; len--)
		*dst++ = pattern_byte(key, pos++);
	for (; len >= 8; len -= 8, dst += 8, pos += 8) {
		uint64_t w = pattern_word(key, pos >> 3);

		memcpy(dst, &w, 8);
	}
	for (; len > 0; len--)
		*dst++ = pattern_byte(key, pos++);
}

bool
gen_matches(const uint8_t *src, uint64_t key, uint64_t pos, uint32_t len)
{
	for (; len > 0 && (pos & 7) != 0; len--)
		if (*src++ != pattern_byte(key, pos++))
			return false;
	for (; len >= 8; len -= 8, src += 8, pos += 8) {
		uint64_t w = pattern_word(key, pos >> 3);

		if (memcmp(src, &w, 8) != 0)
			return false;
	}
	for (; len > 0; len--)
		if (*src++ != pattern_byte(key, pos++))
			return false;
	return true;
}

static uint64_t
stream_key(uint8_t dir, uint32_t flow)
{
	return ((uint64_t)dir << 32) | flow;
}

/* The 2001:2::/48 benchmark range (RFC 5180): VM side 2001:2::12:1,
 * wire side 2001:2::13:1, the IPv4 addresses' last two bytes. */
static void
side_ip6(enum gen_side side, uint8_t addr[16])
{
	memset(addr, 0, 16);
	addr[0] = 0x20, addr[1] = 0x01, addr[3] = 0x02;
	addr[13] = 0x12 + side;
	addr[15] = 0x01;
}

uint32_t
gen_l2_len(const struct gen_shape *sh)
{
	return sizeof(struct rte_ether_hdr) + (sh->vlan ? sizeof(struct rte_vlan_hdr) : 0);
}

uint32_t
gen_l3_len(const struct gen_shape *sh)
{
	return sh->ipv6 ? sizeof(struct rte_ipv6_hdr) : sizeof(struct rte_ipv4_hdr);
}

uint32_t
gen_tcp_hdr_len(const struct gen_shape *sh)
{
	return sizeof(struct rte_tcp_hdr) + (sh->tcp_ts ? GEN_TCP_TS_LEN : 0);
}

uint32_t
gen_hdrs_udp(const struct gen_shape *sh)
{
	return gen_l2_len(sh) + gen_l3_len(sh) + sizeof(struct rte_udp_hdr);
}

uint32_t
gen_hdrs_tcp(const struct gen_shape *sh)
{
	return gen_l2_len(sh) + gen_l3_len(sh) + gen_tcp_hdr_len(sh);
}

/* Ethernet (with its tag), then IPv4 or IPv6 for l4_len bytes of proto;
 * returns where the L4 header goes. */
static uint8_t *
build_l2_l3(uint8_t *frame, const struct gen_shape *sh, uint8_t dir, uint8_t proto,
	    uint32_t l4_len)
{
	struct rte_ether_hdr *eth = (struct rte_ether_hdr *)frame;
	uint8_t *l3 = frame + gen_l2_len(sh);
	enum gen_side src = gen_src_side(dir), dst = gen_dst_side(dir);
	uint16_t l3_type = sh->ipv6 ? RTE_ETHER_TYPE_IPV6 : RTE_ETHER_TYPE_IPV4;

	memset(frame, 0, gen_l2_len(sh) + gen_l3_len(sh));
	eth->dst_addr.addr_bytes[0] = 0x02;
	eth->dst_addr.addr_bytes[5] = 1 + dst;
	eth->src_addr.addr_bytes[0] = 0x02;
	eth->src_addr.addr_bytes[5] = 1 + src;
	if (sh->vlan) {
		struct rte_vlan_hdr *vh = (struct rte_vlan_hdr *)(eth + 1);

		eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_VLAN);
		vh->vlan_tci = rte_cpu_to_be_16(sh->vlan);
		vh->eth_proto = rte_cpu_to_be_16(l3_type);
	} else {
		eth->ether_type = rte_cpu_to_be_16(l3_type);
	}
	if (sh->ipv6) {
		struct rte_ipv6_hdr *ip6 = (struct rte_ipv6_hdr *)l3;

		ip6->vtc_flow = rte_cpu_to_be_32(6u << 28);
		ip6->payload_len = rte_cpu_to_be_16(l4_len);
		ip6->proto = proto;
		ip6->hop_limits = 64;
		side_ip6(src, VFWD_IP6_SRC(ip6));
		side_ip6(dst, VFWD_IP6_DST(ip6));
	} else {
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)l3;

		ip->version_ihl = RTE_IPV4_VHL_DEF;
		ip->time_to_live = 64;
		ip->next_proto_id = proto;
		ip->fragment_offset = rte_cpu_to_be_16(RTE_IPV4_HDR_DF_FLAG);
		ip->total_length = rte_cpu_to_be_16(sizeof(*ip) + l4_len);
		ip->src_addr = rte_cpu_to_be_32(side_ip[src]);
		ip->dst_addr = rte_cpu_to_be_32(side_ip[dst]);
		ip->hdr_checksum = rte_ipv4_cksum(ip);
	}
	return l3 + gen_l3_len(sh);
}

/* the L4 checksum over the pseudo header of either IP version */
static uint16_t
l4_cksum(const struct gen_shape *sh, const uint8_t *l3, const void *l4)
{
	return sh->ipv6 ? rte_ipv6_udptcp_cksum((const struct rte_ipv6_hdr *)l3, l4)
			: rte_ipv4_udptcp_cksum((const struct rte_ipv4_hdr *)l3, l4);
}

void
gen_build_udp(uint8_t *frame, const struct gen_shape *sh, const struct gen_udp_frame *f)
{
	uint32_t hdrs = gen_hdrs_udp(sh);
	uint16_t l4_len = f->len - hdrs + sizeof(struct rte_udp_hdr);
	struct rte_udp_hdr *udp =
		(struct rte_udp_hdr *)build_l2_l3(frame, sh, f->dir, IPPROTO_UDP, l4_len);
	uint8_t *meta = (uint8_t *)(udp + 1);
	uint16_t flow_port = GEN_FLOW_PORT + f->flow;
	uint16_t service = f->kind == GEN_KIND_UDP ? GEN_UDP_PORT : GEN_RR_PORT;
	uint32_t pl_len = f->len - hdrs - GEN_META_LEN;

	udp->src_port = rte_cpu_to_be_16(flow_port);
	udp->dst_port = rte_cpu_to_be_16(service);
	udp->dgram_len = rte_cpu_to_be_16(l4_len);
	meta[0] = GEN_MAGIC;
	meta[1] = (uint8_t)(f->kind | f->dir << 4);
	memcpy(meta + 2, &f->seq, 8);
	memcpy(meta + 10, &f->tsc, 8);
	gen_fill(meta + GEN_META_LEN, stream_key(f->dir, f->flow), f->seq * UDP_PAYLOAD_SPAN,
		 pl_len);
	if (f->kind == GEN_KIND_RR_RESP)
		gen_udp_to_response(frame, sh, f->len);
	udp->dgram_cksum = 0;
	udp->dgram_cksum = l4_cksum(sh, frame + gen_l2_len(sh), udp);
}

void
gen_udp_to_response(uint8_t *frame, const struct gen_shape *sh, uint32_t len)
{
	struct rte_ether_hdr *eth = (struct rte_ether_hdr *)frame;
	uint8_t *l3 = frame + gen_l2_len(sh);
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(l3 + gen_l3_len(sh));
	uint8_t *meta = (uint8_t *)(udp + 1);
	struct rte_ether_addr mac = eth->src_addr;
	uint16_t port = udp->src_port;

	RTE_SET_USED(len);
	eth->src_addr = eth->dst_addr;
	eth->dst_addr = mac;
	if (sh->ipv6) {
		struct rte_ipv6_hdr *ip6 = (struct rte_ipv6_hdr *)l3;
		uint8_t addr[16];

		memcpy(addr, VFWD_IP6_SRC(ip6), 16);
		memcpy(VFWD_IP6_SRC(ip6), VFWD_IP6_DST(ip6), 16);
		memcpy(VFWD_IP6_DST(ip6), addr, 16);
	} else {
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)l3;
		uint32_t addr = ip->src_addr;

		ip->src_addr = ip->dst_addr;
		ip->dst_addr = addr;
	}
	udp->src_port = udp->dst_port;
	udp->dst_port = port;
	/* the sums of the swapped fields are unchanged; only the kind moves */
	meta[1] = (uint8_t)((meta[1] & 0xf0) | GEN_KIND_RR_RESP);
	udp->dgram_cksum = 0;
	udp->dgram_cksum = l4_cksum(sh, l3, udp);
}

/* NOP, NOP, timestamps: what Linux puts on every segment. The values are
 * fixed per flow, so GRO (which wants equal options) may merge them all. */
static void
tcp_ts_option(uint8_t *opt, uint32_t flow)
{
	uint32_t tsval = rte_cpu_to_be_32(GEN_TCP_TSVAL + flow), tsecr = rte_cpu_to_be_32(1);

	opt[0] = 1, opt[1] = 1, opt[2] = 8, opt[3] = 10;
	memcpy(opt + 4, &tsval, 4);
	memcpy(opt + 8, &tsecr, 4);
}

void
gen_build_tcp(uint8_t *frame, const struct gen_shape *sh, const struct gen_tcp_frame *f)
{
	uint32_t thl = gen_tcp_hdr_len(sh);
	struct rte_tcp_hdr *th =
		(struct rte_tcp_hdr *)build_l2_l3(frame, sh, f->dir, IPPROTO_TCP, thl + f->payload);
	const uint8_t *l3 = frame + gen_l2_len(sh);

	memset(th, 0, sizeof(*th));
	th->src_port = rte_cpu_to_be_16(GEN_FLOW_PORT + f->flow);
	th->dst_port = rte_cpu_to_be_16(GEN_TCP_PORT);
	th->sent_seq = rte_cpu_to_be_32((uint32_t)(GEN_TCP_SEQ_BASE + f->off));
	th->recv_ack = rte_cpu_to_be_32(1);
	th->data_off = (uint8_t)((thl / 4) << 4);
	th->tcp_flags = RTE_TCP_ACK_FLAG | (f->psh ? RTE_TCP_PSH_FLAG : 0);
	th->rx_win = rte_cpu_to_be_16(65535);
	if (sh->tcp_ts)
		tcp_ts_option((uint8_t *)(th + 1), f->flow);
	gen_fill((uint8_t *)th + thl, stream_key(f->dir, f->flow), f->off, f->payload);
	if (!f->tso)
		th->cksum = l4_cksum(sh, l3, th);
	else if (sh->ipv6)
		th->cksum = rte_ipv6_phdr_cksum((const struct rte_ipv6_hdr *)l3,
						RTE_MBUF_F_TX_TCP_SEG);
	else
		th->cksum = rte_ipv4_phdr_cksum((const struct rte_ipv4_hdr *)l3,
						RTE_MBUF_F_TX_TCP_SEG);
}

/* Ethernet (the configured tag, or none), IPv4 without options or IPv6
 * without extension headers, the protocol and the addresses we use; the
 * IP length against the frame's. *l3p is set once the frame looks ours. */
static enum gen_verdict
parse_l3(const uint8_t *frame, uint32_t len, const struct gen_shape *sh, uint8_t proto,
	 uint32_t hdrs, enum gen_csum_hint ip_hint, const uint8_t **l3p)
{
	const struct rte_ether_hdr *eth = (const struct rte_ether_hdr *)frame;
	const uint8_t *l3 = frame + gen_l2_len(sh);
	uint16_t l3_type = sh->ipv6 ? RTE_ETHER_TYPE_IPV6 : RTE_ETHER_TYPE_IPV4;
	uint16_t type = eth->ether_type;

	if (len < hdrs)
		return GEN_NOT_OURS;
	if (sh->vlan) {
		const struct rte_vlan_hdr *vh = (const struct rte_vlan_hdr *)(eth + 1);

		/* the whole tag: priority 0 as sent (no checksum covers it) */
		if (type != rte_cpu_to_be_16(RTE_ETHER_TYPE_VLAN) ||
		    rte_be_to_cpu_16(vh->vlan_tci) != sh->vlan)
			return GEN_NOT_OURS;
		type = vh->eth_proto;
	}
	if (type != rte_cpu_to_be_16(l3_type))
		return GEN_NOT_OURS;
	if (sh->ipv6) {
		const struct rte_ipv6_hdr *ip6 = (const struct rte_ipv6_hdr *)l3;
		uint8_t want[16];

		side_ip6(GEN_SIDE_VM, want);
		/* either side's address: the prefix up to the side byte */
		if (ip6->proto != proto || memcmp(VFWD_IP6_DST(ip6), want, 13) != 0 ||
		    (VFWD_IP6_DST(ip6)[13] & 0xfe) != 0x12)
			return GEN_NOT_OURS;
		*l3p = l3;
		/* the fields no checksum covers, exactly as sent */
		if (ip6->vtc_flow != rte_cpu_to_be_32(6u << 28) || ip6->hop_limits != 64 ||
		    rte_be_to_cpu_16(ip6->payload_len) + gen_l2_len(sh) + sizeof(*ip6) != len)
			return GEN_BAD_HEADER;
		return GEN_OK;
	} else {
		const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)l3;

		if (ip->next_proto_id != proto ||
		    (rte_be_to_cpu_32(ip->dst_addr) & 0xfffe0000u) != 0xc6120000u)
			return GEN_NOT_OURS;
		*l3p = l3;
		if (ip->version_ihl != RTE_IPV4_VHL_DEF ||
		    rte_be_to_cpu_16(ip->total_length) + gen_l2_len(sh) != len)
			return GEN_BAD_HEADER;
		if (ip_hint == GEN_CSUM_BAD ||
		    (ip_hint == GEN_CSUM_VERIFY && rte_ipv4_cksum(ip) != 0 &&
		     /* rte_ipv4_cksum() of a correct header with its sum in is 0 or 0xffff */
		     rte_ipv4_cksum(ip) != 0xffff))
			return GEN_BAD_CSUM;
		return GEN_OK;
	}
}

static bool
l4_sum_ok(const struct gen_shape *sh, const uint8_t *l3, const void *l4,
	  enum gen_csum_hint hint)
{
	if (hint == GEN_CSUM_GOOD)
		return true;
	if (hint == GEN_CSUM_BAD)
		return false;
	return sh->ipv6 ? rte_ipv6_udptcp_cksum_verify((const struct rte_ipv6_hdr *)l3, l4) == 0
			: rte_ipv4_udptcp_cksum_verify((const struct rte_ipv4_hdr *)l3, l4) == 0;
}

/* the frame came from the VM side: its source address says so */
static bool
from_vm_side(const struct gen_shape *sh, const uint8_t *l3)
{
	if (sh->ipv6)
		return VFWD_IP6_SRC((const struct rte_ipv6_hdr *)l3)[13] == 0x12 + GEN_SIDE_VM;
	return rte_be_to_cpu_32(((const struct rte_ipv4_hdr *)l3)->src_addr) ==
	       side_ip[GEN_SIDE_VM];
}

enum gen_verdict
gen_parse_udp(const uint8_t *frame, uint32_t len, const struct gen_shape *sh,
	      enum gen_csum_hint ip_hint, enum gen_csum_hint l4_hint, struct gen_rx_frame *out)
{
	uint32_t hdrs = gen_hdrs_udp(sh);
	const uint8_t *l3 = NULL;
	const struct rte_udp_hdr *udp;
	const uint8_t *meta;
	enum gen_verdict v = parse_l3(frame, len, sh, IPPROTO_UDP, hdrs, ip_hint, &l3);
	uint16_t sport, dport;
	uint32_t flow_port;

	if (l3 == NULL)
		return v;
	udp = (const struct rte_udp_hdr *)(l3 + gen_l3_len(sh));
	meta = (const uint8_t *)(udp + 1);
	sport = rte_be_to_cpu_16(udp->src_port);
	dport = rte_be_to_cpu_16(udp->dst_port);
	if (len < hdrs + GEN_META_LEN) /* cut short: ours if the ports say so */
		return dport == GEN_UDP_PORT || dport == GEN_RR_PORT || sport == GEN_RR_PORT
			       ? GEN_BAD_HEADER : GEN_NOT_OURS;
	if (meta[0] != GEN_MAGIC || (dport != GEN_UDP_PORT && dport != GEN_RR_PORT &&
				     sport != GEN_RR_PORT))
		return v == GEN_OK ? GEN_NOT_OURS : v;
	if (v != GEN_OK)
		return v;
	out->kind = meta[1] & 0xf;
	out->dir = meta[1] >> 4;
	flow_port = out->kind == GEN_KIND_RR_RESP ? dport : sport;
	if (out->dir >= GEN_DIR_COUNT || out->kind < GEN_KIND_UDP || out->kind > GEN_KIND_RR_RESP ||
	    flow_port < GEN_FLOW_PORT || flow_port >= GEN_FLOW_PORT + GEN_MAX_FLOWS ||
	    rte_be_to_cpu_16(udp->dgram_len) + hdrs - sizeof(*udp) != len)
		return GEN_BAD_HEADER;
	/* 0 means "no checksum" over IPv4 only; IPv6 requires one */
	if ((udp->dgram_cksum != 0 || sh->ipv6) && !l4_sum_ok(sh, l3, udp, l4_hint))
		return GEN_BAD_CSUM;
	out->flow = flow_port - GEN_FLOW_PORT;
	memcpy(&out->seq, meta + 2, 8);
	memcpy(&out->tsc, meta + 10, 8);
	out->units = 1;
	out->payload = len - hdrs;
	if (out->seq >= UINT64_MAX / UDP_PAYLOAD_SPAN ||
	    !gen_matches(meta + GEN_META_LEN, stream_key(out->dir, out->flow),
			 out->seq * UDP_PAYLOAD_SPAN, len - hdrs - GEN_META_LEN))
		return GEN_BAD_PAYLOAD;
	return GEN_OK;
}

enum gen_verdict
gen_parse_tcp(const uint8_t *frame, uint32_t len, uint32_t mss, const struct gen_shape *sh,
	      enum gen_csum_hint ip_hint, enum gen_csum_hint l4_hint, struct gen_rx_frame *out)
{
	uint32_t hdrs = gen_hdrs_tcp(sh), thl = gen_tcp_hdr_len(sh);
	const uint8_t *l3 = NULL;
	const struct rte_tcp_hdr *th;
	enum gen_verdict v = parse_l3(frame, len, sh, IPPROTO_TCP, hdrs, ip_hint, &l3);
	uint32_t sport, off;
	uint8_t opt[GEN_TCP_TS_LEN];

	if (l3 == NULL)
		return v;
	th = (const struct rte_tcp_hdr *)(l3 + gen_l3_len(sh));
	if (rte_be_to_cpu_16(th->dst_port) != GEN_TCP_PORT)
		return v == GEN_OK ? GEN_NOT_OURS : v;
	if (v != GEN_OK)
		return v;
	sport = rte_be_to_cpu_16(th->src_port);
	out->payload = len - hdrs;
	/* a bad frame still says how many segments it spoiled */
	out->units = mss && out->payload >= mss ? out->payload / mss : 1;
	if (th->data_off != (thl / 4) << 4 || sport < GEN_FLOW_PORT ||
	    sport >= GEN_FLOW_PORT + GEN_MAX_FLOWS ||
	    (th->tcp_flags & ~(RTE_TCP_PSH_FLAG)) != RTE_TCP_ACK_FLAG)
		return GEN_BAD_HEADER;
	if (sh->tcp_ts) {
		/* options travel with every segment: GRO keeps them, GSO copies them */
		tcp_ts_option(opt, sport - GEN_FLOW_PORT);
		if (memcmp(th + 1, opt, sizeof(opt)) != 0)
			return GEN_BAD_HEADER;
	}
	if (!l4_sum_ok(sh, l3, th, l4_hint))
		return GEN_BAD_CSUM;
	/* the direction is where it came from: the source address */
	out->dir = from_vm_side(sh, l3) ? GEN_VM_TO_WIRE : GEN_WIRE_TO_VM;
	out->kind = 0;
	out->flow = sport - GEN_FLOW_PORT;
	out->tsc = 0;
	off = rte_be_to_cpu_32(th->sent_seq) - GEN_TCP_SEQ_BASE;
	/* whole units only: what GRO glues and GSO cuts are the MSS-sized
	 * segments we sent; anything else is a bug in between */
	if (mss == 0 || off % mss != 0 || out->payload % mss != 0 || out->payload == 0)
		return GEN_BAD_HEADER;
	out->seq = off / mss;
	if (!gen_matches((const uint8_t *)th + thl, stream_key(out->dir, out->flow), off,
			 out->payload))
		return GEN_BAD_PAYLOAD;
	return GEN_OK;
}
