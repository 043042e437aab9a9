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

static void
build_l2_l3(uint8_t *frame, uint8_t dir, uint8_t proto, uint16_t l3_len)
{
	struct rte_ether_hdr *eth = (struct rte_ether_hdr *)frame;
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(eth + 1);
	enum gen_side src = gen_src_side(dir), dst = gen_dst_side(dir);

	memset(eth, 0, sizeof(*eth) + sizeof(*ip));
	eth->dst_addr.addr_bytes[0] = 0x02;
	eth->dst_addr.addr_bytes[5] = 1 + dst;
	eth->src_addr.addr_bytes[0] = 0x02;
	eth->src_addr.addr_bytes[5] = 1 + src;
	eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->time_to_live = 64;
	ip->next_proto_id = proto;
	ip->fragment_offset = rte_cpu_to_be_16(RTE_IPV4_HDR_DF_FLAG);
	ip->total_length = rte_cpu_to_be_16(l3_len);
	ip->src_addr = rte_cpu_to_be_32(side_ip[src]);
	ip->dst_addr = rte_cpu_to_be_32(side_ip[dst]);
	ip->hdr_checksum = rte_ipv4_cksum(ip);
}

void
gen_build_udp(uint8_t *frame, const struct gen_udp_frame *f)
{
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(frame + sizeof(struct rte_ether_hdr));
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(ip + 1);
	uint8_t *meta = (uint8_t *)(udp + 1);
	uint16_t flow_port = GEN_FLOW_PORT + f->flow;
	uint16_t service = f->kind == GEN_KIND_UDP ? GEN_UDP_PORT : GEN_RR_PORT;
	uint32_t pl_len = f->len - GEN_HDRS_UDP - GEN_META_LEN;

	build_l2_l3(frame, f->dir, IPPROTO_UDP, f->len - sizeof(struct rte_ether_hdr));
	udp->src_port = rte_cpu_to_be_16(flow_port);
	udp->dst_port = rte_cpu_to_be_16(service);
	udp->dgram_len = rte_cpu_to_be_16(f->len - GEN_HDRS_UDP + sizeof(*udp));
	meta[0] = GEN_MAGIC;
	meta[1] = (uint8_t)(f->kind | f->dir << 4);
	memcpy(meta + 2, &f->seq, 8);
	memcpy(meta + 10, &f->tsc, 8);
	gen_fill(meta + GEN_META_LEN, stream_key(f->dir, f->flow), f->seq * UDP_PAYLOAD_SPAN,
		 pl_len);
	if (f->kind == GEN_KIND_RR_RESP)
		gen_udp_to_response(frame, f->len);
	udp->dgram_cksum = 0;
	udp->dgram_cksum = rte_ipv4_udptcp_cksum(ip, udp);
}

void
gen_udp_to_response(uint8_t *frame, uint32_t len)
{
	struct rte_ether_hdr *eth = (struct rte_ether_hdr *)frame;
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(eth + 1);
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(ip + 1);
	uint8_t *meta = (uint8_t *)(udp + 1);
	struct rte_ether_addr mac = eth->src_addr;
	uint32_t addr = ip->src_addr;
	uint16_t port = udp->src_port;

	RTE_SET_USED(len);
	eth->src_addr = eth->dst_addr;
	eth->dst_addr = mac;
	ip->src_addr = ip->dst_addr;
	ip->dst_addr = addr;
	udp->src_port = udp->dst_port;
	udp->dst_port = port;
	/* the sums of the swapped fields are unchanged; only the kind moves */
	meta[1] = (uint8_t)((meta[1] & 0xf0) | GEN_KIND_RR_RESP);
	udp->dgram_cksum = 0;
	udp->dgram_cksum = rte_ipv4_udptcp_cksum(ip, udp);
}

void
gen_build_tcp(uint8_t *frame, const struct gen_tcp_frame *f)
{
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(frame + sizeof(struct rte_ether_hdr));
	struct rte_tcp_hdr *th = (struct rte_tcp_hdr *)(ip + 1);

	build_l2_l3(frame, f->dir, IPPROTO_TCP, GEN_HDRS_TCP - sizeof(struct rte_ether_hdr) + f->payload);
	memset(th, 0, sizeof(*th));
	th->src_port = rte_cpu_to_be_16(GEN_FLOW_PORT + f->flow);
	th->dst_port = rte_cpu_to_be_16(GEN_TCP_PORT);
	th->sent_seq = rte_cpu_to_be_32((uint32_t)(GEN_TCP_SEQ_BASE + f->off));
	th->recv_ack = rte_cpu_to_be_32(1);
	th->data_off = 5 << 4;
	th->tcp_flags = RTE_TCP_ACK_FLAG | (f->psh ? RTE_TCP_PSH_FLAG : 0);
	th->rx_win = rte_cpu_to_be_16(65535);
	gen_fill((uint8_t *)(th + 1), stream_key(f->dir, f->flow), f->off, f->payload);
	th->cksum = f->tso ? rte_ipv4_phdr_cksum(ip, RTE_MBUF_F_TX_TCP_SEG)
			   : rte_ipv4_udptcp_cksum(ip, th);
}

/* Ethernet + IPv4 without options, the protocol and the ports we use;
 * the IPv4 length against the frame's. */
static enum gen_verdict
parse_l3(const uint8_t *frame, uint32_t len, uint8_t proto, uint32_t hdrs,
	 enum gen_csum_hint ip_hint, const struct rte_ipv4_hdr **ipp)
{
	const struct rte_ether_hdr *eth = (const struct rte_ether_hdr *)frame;
	const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)(eth + 1);

	if (len < hdrs || eth->ether_type != rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4) ||
	    ip->next_proto_id != proto ||
	    (rte_be_to_cpu_32(ip->dst_addr) & 0xfffe0000u) != 0xc6120000u)
		return GEN_NOT_OURS;
	*ipp = ip;
	if (ip->version_ihl != RTE_IPV4_VHL_DEF ||
	    rte_be_to_cpu_16(ip->total_length) + sizeof(*eth) != len)
		return GEN_BAD_HEADER;
	if (ip_hint == GEN_CSUM_BAD ||
	    (ip_hint == GEN_CSUM_VERIFY && rte_ipv4_cksum(ip) != 0 &&
	     /* rte_ipv4_cksum() of a correct header with its sum in is 0 or 0xffff */
	     rte_ipv4_cksum(ip) != 0xffff))
		return GEN_BAD_CSUM;
	return GEN_OK;
}

static bool
l4_sum_ok(const struct rte_ipv4_hdr *ip, const void *l4, enum gen_csum_hint hint)
{
	if (hint == GEN_CSUM_GOOD)
		return true;
	if (hint == GEN_CSUM_BAD)
		return false;
	return rte_ipv4_udptcp_cksum_verify(ip, l4) == 0;
}

enum gen_verdict
gen_parse_udp(const uint8_t *frame, uint32_t len, enum gen_csum_hint ip_hint,
	      enum gen_csum_hint l4_hint, struct gen_rx_frame *out)
{
	const struct rte_ipv4_hdr *ip = NULL;
	const struct rte_udp_hdr *udp;
	const uint8_t *meta;
	enum gen_verdict v = parse_l3(frame, len, IPPROTO_UDP, GEN_HDRS_UDP, ip_hint, &ip);
	uint16_t sport, dport;
	uint32_t flow_port;

	if (ip == NULL)
		return v;
	udp = (const struct rte_udp_hdr *)(ip + 1);
	meta = (const uint8_t *)(udp + 1);
	sport = rte_be_to_cpu_16(udp->src_port);
	dport = rte_be_to_cpu_16(udp->dst_port);
	if (len < GEN_MIN_FRAME) /* cut short: ours if the ports say so */
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
	    rte_be_to_cpu_16(udp->dgram_len) + GEN_HDRS_UDP - sizeof(*udp) != len)
		return GEN_BAD_HEADER;
	if (udp->dgram_cksum != 0 && !l4_sum_ok(ip, udp, l4_hint))
		return GEN_BAD_CSUM;
	out->flow = flow_port - GEN_FLOW_PORT;
	memcpy(&out->seq, meta + 2, 8);
	memcpy(&out->tsc, meta + 10, 8);
	out->units = 1;
	out->payload = len - GEN_HDRS_UDP;
	if (out->seq >= UINT64_MAX / UDP_PAYLOAD_SPAN ||
	    !gen_matches(meta + GEN_META_LEN, stream_key(out->dir, out->flow),
			 out->seq * UDP_PAYLOAD_SPAN, len - GEN_HDRS_UDP - GEN_META_LEN))
		return GEN_BAD_PAYLOAD;
	return GEN_OK;
}

enum gen_verdict
gen_parse_tcp(const uint8_t *frame, uint32_t len, uint32_t mss, enum gen_csum_hint ip_hint,
	      enum gen_csum_hint l4_hint, struct gen_rx_frame *out)
{
	const struct rte_ipv4_hdr *ip = NULL;
	const struct rte_tcp_hdr *th;
	enum gen_verdict v = parse_l3(frame, len, IPPROTO_TCP, GEN_HDRS_TCP, ip_hint, &ip);
	uint32_t sport, off;

	if (ip == NULL)
		return v;
	th = (const struct rte_tcp_hdr *)(ip + 1);
	if (rte_be_to_cpu_16(th->dst_port) != GEN_TCP_PORT)
		return v == GEN_OK ? GEN_NOT_OURS : v;
	if (v != GEN_OK)
		return v;
	sport = rte_be_to_cpu_16(th->src_port);
	out->payload = len - GEN_HDRS_TCP;
	/* a bad frame still says how many segments it spoiled */
	out->units = mss && out->payload >= mss ? out->payload / mss : 1;
	if (th->data_off != 5 << 4 || sport < GEN_FLOW_PORT || sport >= GEN_FLOW_PORT + GEN_MAX_FLOWS ||
	    (th->tcp_flags & ~(RTE_TCP_PSH_FLAG)) != RTE_TCP_ACK_FLAG)
		return GEN_BAD_HEADER;
	if (!l4_sum_ok(ip, th, l4_hint))
		return GEN_BAD_CSUM;
	/* the direction is where it came from: the source address */
	out->dir = (rte_be_to_cpu_32(ip->src_addr) == side_ip[GEN_SIDE_VM]) ? GEN_VM_TO_WIRE
									   : GEN_WIRE_TO_VM;
	out->kind = 0;
	out->flow = sport - GEN_FLOW_PORT;
	out->tsc = 0;
	off = rte_be_to_cpu_32(th->sent_seq) - GEN_TCP_SEQ_BASE;
	/* whole units only: what GRO glues and GSO cuts are the MSS-sized
	 * segments we sent; anything else is a bug in between */
	if (mss == 0 || off % mss != 0 || out->payload % mss != 0 || out->payload == 0)
		return GEN_BAD_HEADER;
	out->seq = off / mss;
	if (!gen_matches((const uint8_t *)(th + 1), stream_key(out->dir, out->flow), off,
			 out->payload))
		return GEN_BAD_PAYLOAD;
	return GEN_OK;
}
