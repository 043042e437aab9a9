/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The offload stages on crafted packets: typing, GRO (light and heavy),
 * TSO/GSO and checksums toward the wire. Frames that may be malformed sit
 * in heap buffers of their exact size (attached as external mbuf buffers),
 * so that under AddressSanitizer any read past a frame's end fails the
 * test. Needs EAL (mempools) but no hugepages and no device.
 */
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_tcp.h>
#include <rte_udp.h>

#include "check.h"
#include "unit_eal.h"
#include "vfwd.h"

#define MSS 1000
#define HDRS (14 + 20 + 20)
/* a guest that takes TCPv4 and TCPv6 GSO frames */
#define GUEST_KINDS (VFWD_GRO_KIND_TCP4 | VFWD_GRO_KIND_TCP6)

static struct rte_mempool *pool, *indirect_pool;
static struct vfwd_dir_stats st;

/* ------------------------------------------------------------ frames */

static uint8_t
stream_byte(uint32_t flow, uint32_t off)
{
	return (uint8_t)(off * 7 + flow * 13 + (off >> 8));
}

static void
free_ext(void *addr, void *opaque)
{
	free(addr);
	free(opaque);
}

/* An mbuf whose data is a heap copy of exactly len bytes. */
static struct rte_mbuf *
ext_pkt(const uint8_t *bytes, uint16_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	struct rte_mbuf_ext_shared_info *shinfo = malloc(sizeof(*shinfo));
	uint8_t *buf = malloc(len ? len : 1);

	RTE_VERIFY(m && shinfo && buf);
	memcpy(buf, bytes, len);
	shinfo->free_cb = free_ext;
	shinfo->fcb_opaque = shinfo;
	rte_mbuf_ext_refcnt_set(shinfo, 1);
	rte_pktmbuf_attach_extbuf(m, buf, rte_mem_virt2iova(buf), len ? len : 1, shinfo);
	m->data_off = 0;
	m->data_len = m->pkt_len = len;
	return m;
}

/* An mbuf from the pool holding a copy of len bytes (len <= 2048). */
static struct rte_mbuf *
pool_pkt(const uint8_t *bytes, uint16_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);

	RTE_VERIFY(m && len <= rte_pktmbuf_tailroom(m));
	memcpy(rte_pktmbuf_append(m, len), bytes, len);
	return m;
}

struct tcp_opts {
	uint32_t flow;
	uint32_t off;      /* stream offset of the first payload byte */
	uint16_t payload;
	uint8_t flags;
	uint16_t ip_id;
};

/* Ethernet + IPv4 + TCP (+ payload from the flow's byte stream), valid
 * checksums. Returns the frame length. */
static uint16_t
build_tcp4(uint8_t *f, const struct tcp_opts *o)
{
	struct rte_ether_hdr *eth = (void *)f;
	struct rte_ipv4_hdr *ip = (void *)(eth + 1);
	struct rte_tcp_hdr *th = (void *)(ip + 1);
	uint8_t *pl = (uint8_t *)(th + 1);
	uint16_t len = HDRS + o->payload;

	memset(f, 0, HDRS);
	eth->dst_addr.addr_bytes[0] = 2;
	eth->src_addr.addr_bytes[0] = 2;
	eth->src_addr.addr_bytes[5] = 1;
	eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->total_length = rte_cpu_to_be_16(len - 14);
	ip->packet_id = rte_cpu_to_be_16(o->ip_id);
	ip->fragment_offset = rte_cpu_to_be_16(RTE_IPV4_HDR_DF_FLAG);
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_TCP;
	ip->src_addr = rte_cpu_to_be_32(0xc6120000 | (o->flow >> 8));
	ip->dst_addr = rte_cpu_to_be_32(0xc6130001);
	th->src_port = rte_cpu_to_be_16(1024 + (o->flow & 0xff));
	th->dst_port = rte_cpu_to_be_16(5201);
	th->sent_seq = rte_cpu_to_be_32(1000000 + o->off);
	th->recv_ack = rte_cpu_to_be_32(7);
	th->data_off = 5 << 4;
	th->tcp_flags = o->flags;
	th->rx_win = rte_cpu_to_be_16(65535);
	for (uint32_t i = 0; i < o->payload; i++)
		pl[i] = stream_byte(o->flow, o->off + i);
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	th->cksum = rte_ipv4_udptcp_cksum(ip, th);
	return len;
}

static struct rte_mbuf *
tcp_seg(uint32_t flow, uint32_t seg, uint8_t flags)
{
	static uint8_t f[HDRS + MSS];
	struct tcp_opts o = {.flow = flow, .off = seg * MSS, .payload = MSS,
			     .flags = flags, .ip_id = (uint16_t)seg};

	return ext_pkt(f, build_tcp4(f, &o));
}

static uint32_t
seq_of(const struct rte_mbuf *m)
{
	const struct rte_tcp_hdr *th = rte_pktmbuf_mtod_offset(m, const struct rte_tcp_hdr *, 34);

	return rte_be_to_cpu_32(th->sent_seq) - 1000000;
}

static uint32_t
flow_of(const struct rte_mbuf *m)
{
	const struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(m, const struct rte_ipv4_hdr *, 14);
	const struct rte_tcp_hdr *th = rte_pktmbuf_mtod_offset(m, const struct rte_tcp_hdr *, 34);

	return ((rte_be_to_cpu_32(ip->src_addr) & 0xffff) << 8) |
	       (rte_be_to_cpu_16(th->src_port) - 1024);
}

/* The TCP payload of m is the flow's byte stream at its sequence number,
 * and the IPv4 total length matches the packet. Returns payload bytes. */
static uint32_t
check_tcp_payload(const struct rte_mbuf *m)
{
	static uint8_t buf[70000];
	const struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(m, const struct rte_ipv4_hdr *, 14);
	uint32_t len = rte_pktmbuf_pkt_len(m), flow = flow_of(m), off = seq_of(m);
	const uint8_t *p = rte_pktmbuf_read(m, 0, len, buf);
	bool ok = true;

	CHECK(p != NULL);
	CHECK(rte_be_to_cpu_16(ip->total_length) == len - 14);
	for (uint32_t i = HDRS; p && i < len; i++)
		ok = ok && p[i] == stream_byte(flow, off + i - HDRS);
	CHECK(ok);
	return len - HDRS;
}

static bool
ip_cksum_ok(const struct rte_ipv4_hdr *ip)
{
	struct rte_ipv4_hdr copy = *ip;

	copy.hdr_checksum = 0;
	return rte_ipv4_cksum(&copy) == ip->hdr_checksum;
}

static void
free_all(struct rte_mbuf **pkts, uint16_t n)
{
	rte_pktmbuf_free_bulk(pkts, n);
}

/* librte_gro, the engine dpdk-testpmd uses (test_gro.c has vfwd's own) */
static const struct vfwd_gro_conf light = {.enabled = true, .mode = VFWD_GRO_LIGHT,
					   .engine = VFWD_GRO_ENGINE_DPDK, .max_flows = 1024};
static const struct vfwd_gro_conf heavy = {.enabled = true, .mode = VFWD_GRO_HEAVY,
					   .engine = VFWD_GRO_ENGINE_DPDK, .max_flows = 64,
					   .flush_us = 100};

/* ---------------------------------------------------------------- GRO */

/* What came out of GRO, checked against what the test put in: the
 * segments (flow, segment index) given, each expected out exactly once. */
#define OUT_FLOWS 64
#define OUT_SEGS 720

struct gro_outcome {
	uint64_t frames, segs, bytes;
	uint8_t seen[OUT_FLOWS][OUT_SEGS]; /* times each segment came out */
	int32_t last[OUT_FLOWS];           /* the flow's last segment out, -1: none */
	bool disorder, merged;
};

static void
outcome_init(struct gro_outcome *r)
{
	memset(r, 0, sizeof(*r));
	for (int f = 0; f < OUT_FLOWS; f++)
		r->last[f] = -1;
}

/* One packet out: its bytes are its flow's stream at its sequence number
 * (check_tcp_payload), whole MSS segments; count each segment it holds
 * and whether the flow's order held. */
static void
outcome_add(struct gro_outcome *r, const struct rte_mbuf *m)
{
	uint32_t flow = flow_of(m), off = seq_of(m), bytes = check_tcp_payload(m);

	r->frames++;
	r->segs += m->nb_segs;
	r->bytes += bytes;
	r->merged |= m->nb_segs > 1;
	CHECK(flow < OUT_FLOWS && off % MSS == 0 && bytes % MSS == 0 && bytes > 0);
	if (flow >= OUT_FLOWS || off % MSS != 0 || bytes % MSS != 0)
		return;
	for (uint32_t s = off / MSS; s < (off + bytes) / MSS && s < OUT_SEGS; s++)
		r->seen[flow][s]++;
	if ((int32_t)(off / MSS) <= r->last[flow])
		r->disorder = true;
	r->last[flow] = (int32_t)((off + bytes) / MSS) - 1;
}


static void
merge_in_order(const struct vfwd_gro_conf *conf)
{
	struct rte_mbuf *pkts[VFWD_MAX_BURST + VFWD_GRO_HOLD_MAX];
	struct vfwd_gro g;
	const struct rte_ipv4_hdr *ip;
	const struct rte_tcp_hdr *th;
	uint16_t n;

	CHECK(vfwd_gro_init(&g, conf, 0) == 0);
	memset(&st, 0, sizeof(st));
	for (int i = 0; i < 8; i++)
		pkts[i] = tcp_seg(1, i, RTE_TCP_ACK_FLAG);
	n = vfwd_gro_burst(&g, conf, GUEST_KINDS, pkts, 8, 1000, &st);
	if (conf->mode == VFWD_GRO_HEAVY) {
		CHECK(n == 0 && vfwd_gro_held(&g) == 1);
		n = vfwd_gro_flush(&g, 0, 2000, pkts, VFWD_MAX_BURST, &st);
		CHECK(st.gro_flushes == 1);
	}
	CHECK(n == 1 && vfwd_gro_held(&g) == 0);
	CHECK(st.gro_in == 8 && st.gro_out == 1 && st.gro_merged == 1);
	if (n == 1) {
		struct rte_mbuf *m = pkts[0];

		ip = rte_pktmbuf_mtod_offset(m, const struct rte_ipv4_hdr *, 14);
		th = rte_pktmbuf_mtod_offset(m, const struct rte_tcp_hdr *, 34);
		CHECK(m->nb_segs == 8 && m->pkt_len == HDRS + 8 * MSS);
		CHECK(check_tcp_payload(m) == 8 * MSS && seq_of(m) == 0);
		CHECK(m->tso_segsz == MSS);
		CHECK((m->ol_flags & RTE_MBUF_F_TX_TCP_SEG) && (m->ol_flags & RTE_MBUF_F_TX_IPV4));
		CHECK((m->ol_flags & RTE_MBUF_F_TX_L4_MASK) == RTE_MBUF_F_TX_TCP_CKSUM);
		CHECK(m->l2_len == 14 && m->l3_len == 20 && m->l4_len == 20);
		CHECK(ip_cksum_ok(ip));
		CHECK(th->cksum == rte_ipv4_phdr_cksum(ip, 0));
		CHECK(th->tcp_flags == RTE_TCP_ACK_FLAG);
	}
	free_all(pkts, n);
	vfwd_gro_fini(&g);
}

static void
merge_light(void)
{
	merge_in_order(&light);
}

static void
merge_heavy(void)
{
	merge_in_order(&heavy);
}

/* A PSH/FIN/SYN segment is not merged and does not overtake its flow. */
static void
flags_keep_order(const struct vfwd_gro_conf *conf)
{
	static const uint8_t breaker[] = {RTE_TCP_PSH_FLAG | RTE_TCP_ACK_FLAG,
					  RTE_TCP_FIN_FLAG | RTE_TCP_ACK_FLAG, RTE_TCP_SYN_FLAG};
	struct rte_mbuf *pkts[VFWD_MAX_BURST + VFWD_GRO_HOLD_MAX];

	for (size_t b = 0; b < RTE_DIM(breaker); b++) {
		struct vfwd_gro g;
		uint16_t n;
		uint32_t expect = 0;

		CHECK(vfwd_gro_init(&g, conf, 0) == 0);
		for (int i = 0; i < 9; i++)
			pkts[i] = tcp_seg(2, i, i == 4 ? breaker[b] : RTE_TCP_ACK_FLAG);
		n = vfwd_gro_burst(&g, conf, GUEST_KINDS, pkts, 9, 0, &st);
		n += vfwd_gro_flush(&g, 0, 0, pkts + n, VFWD_MAX_BURST, &st);
		/* 0-3 merged, 4 alone, 5-8 merged; in stream order */
		CHECK(n == 3);
		for (uint16_t i = 0; i < n; i++) {
			CHECK(seq_of(pkts[i]) == expect);
			expect += check_tcp_payload(pkts[i]);
		}
		CHECK(expect == 9 * MSS);
		if (n == 3) {
			const struct rte_tcp_hdr *th =
				rte_pktmbuf_mtod_offset(pkts[1], const struct rte_tcp_hdr *, 34);

			CHECK(th->tcp_flags == breaker[b] && pkts[1]->nb_segs == 1);
			CHECK(!(pkts[1]->ol_flags & RTE_MBUF_F_TX_TCP_SEG));
		}
		free_all(pkts, n);
		vfwd_gro_fini(&g);
	}
}

static void
flags_light(void)
{
	flags_keep_order(&light);
}

static void
flags_heavy(void)
{
	flags_keep_order(&heavy);
}

/* Out of order and duplicate segments: nothing lost, every byte right. */
static void
out_of_order_and_duplicates(void)
{
	static const int order[] = {0, 2, 1, 3, 3, 5, 4, 6, 6, 7};
	static struct gro_outcome r;
	struct rte_mbuf *pkts[VFWD_MAX_BURST + VFWD_GRO_HOLD_MAX];
	const struct vfwd_gro_conf *confs[] = {&light, &heavy};

	for (int c = 0; c < 2; c++) {
		struct vfwd_gro g;
		uint32_t bytes = 0;
		uint16_t n;

		CHECK(vfwd_gro_init(&g, confs[c], 0) == 0);
		for (size_t i = 0; i < RTE_DIM(order); i++)
			pkts[i] = tcp_seg(3, order[i], RTE_TCP_ACK_FLAG);
		n = vfwd_gro_burst(&g, confs[c], GUEST_KINDS, pkts, RTE_DIM(order), 0, &st);
		n += vfwd_gro_flush(&g, 0, 0, pkts + n, VFWD_MAX_BURST, &st);
		CHECK(n >= 2 && n < RTE_DIM(order));
		outcome_init(&r);
		for (uint16_t i = 0; i < n; i++)
			outcome_add(&r, pkts[i]);
		for (uint16_t i = 0; i < n; i++)
			bytes += check_tcp_payload(pkts[i]);
		CHECK(bytes == RTE_DIM(order) * MSS);
		/* every segment given came out as often as it went in (3 and
		 * 6 twice), inside packets that each hold a run of the stream */
		CHECK(r.frames == n && r.segs == RTE_DIM(order) && r.bytes == RTE_DIM(order) * MSS);
		for (uint32_t s = 0; s < OUT_SEGS; s++)
			CHECK(r.seen[3][s] == (s == 3 || s == 6 ? 2 : s <= 7 ? 1 : 0));
		free_all(pkts, n);
		vfwd_gro_fini(&g);
	}
}

/* 1024 flows, two segments each, interleaved: little merging, nothing
 * lost, each flow's bytes right. */
static void
many_flows(void)
{
	struct rte_mbuf *pkts[VFWD_MAX_BURST + VFWD_GRO_HOLD_MAX];
	const struct vfwd_gro_conf *confs[] = {&light, &heavy};

	for (int c = 0; c < 2; c++) {
		struct vfwd_gro g;
		uint64_t bytes = 0, out = 0;

		CHECK(vfwd_gro_init(&g, confs[c], 0) == 0);
		memset(&st, 0, sizeof(st));
		for (int round = 0; round < 2; round++) {
			for (uint32_t base = 0; base < 1024; base += 256) {
				uint16_t n;

				for (uint32_t f = 0; f < 256; f++)
					pkts[f] = tcp_seg(base + f, round, RTE_TCP_ACK_FLAG);
				n = vfwd_gro_burst(&g, confs[c], GUEST_KINDS, pkts, 256, 0, &st);
				for (uint16_t i = 0; i < n; i++)
					bytes += check_tcp_payload(pkts[i]);
				out += n;
				free_all(pkts, n);
			}
		}
		for (uint16_t n; (n = vfwd_gro_flush(&g, 0, 0, pkts, VFWD_MAX_BURST, &st)) > 0;) {
			for (uint16_t i = 0; i < n; i++)
				bytes += check_tcp_payload(pkts[i]);
			out += n;
			free_all(pkts, n);
		}
		CHECK(bytes == 2048ull * MSS);
		/* the two segments of a flow are 1024 segments apart: never in
		 * GRO together, nothing merges, every segment leaves alone */
		CHECK(out == 2048);
		CHECK(st.gro_in == 2048 && st.gro_out == 2048 && st.gro_merged == 0);
		CHECK(vfwd_gro_held(&g) == 0);
		vfwd_gro_fini(&g);
	}
}

/* Bursts of distinct flows merge nothing: GRO steps aside after a window
 * of them, then tries again and merges when it can. */
static void
bypass_when_nothing_merges(void)
{
	struct rte_mbuf *pkts[VFWD_MAX_BURST + VFWD_GRO_HOLD_MAX];
	struct vfwd_gro g;
	uint32_t flow = 100;
	uint64_t bytes = 0;
	uint16_t n;

	CHECK(vfwd_gro_init(&g, &light, 0) == 0);
	memset(&st, 0, sizeof(st));
	for (int b = 0; b < VFWD_GRO_WINDOW + VFWD_GRO_BYPASS_BURSTS; b++) {
		for (int i = 0; i < 16; i++)
			pkts[i] = tcp_seg(flow++, 0, RTE_TCP_ACK_FLAG);
		n = vfwd_gro_burst(&g, &light, GUEST_KINDS, pkts, 16, 0, &st);
		CHECK(n == 16);
		for (uint16_t i = 0; i < n; i++)
			bytes += check_tcp_payload(pkts[i]);
		free_all(pkts, n);
	}
	CHECK(bytes == (uint64_t)(VFWD_GRO_WINDOW + VFWD_GRO_BYPASS_BURSTS) * 16 * MSS);
	CHECK(st.gro_in == VFWD_GRO_WINDOW * 16);
	CHECK(st.gro_bypassed == VFWD_GRO_BYPASS_BURSTS * 16);
	/* bypass over: a mergeable burst merges again */
	for (int i = 0; i < 8; i++)
		pkts[i] = tcp_seg(7, i, RTE_TCP_ACK_FLAG);
	n = vfwd_gro_burst(&g, &light, GUEST_KINDS, pkts, 8, 0, &st);
	CHECK(n == 1 && pkts[0]->nb_segs == 8);
	free_all(pkts, n);
	vfwd_gro_fini(&g);
}

/* Heavy mode: held segments wait for the flush timeout, then leave. */
static void
heavy_timeout(void)
{
	struct rte_mbuf *pkts[VFWD_MAX_BURST + VFWD_GRO_HOLD_MAX];
	struct vfwd_gro g;
	uint16_t n;

	CHECK(vfwd_gro_init(&g, &heavy, 0) == 0);
	for (int i = 0; i < 4; i++)
		pkts[i] = tcp_seg(4, i, RTE_TCP_ACK_FLAG);
	CHECK(vfwd_gro_burst(&g, &heavy, GUEST_KINDS, pkts, 4, 1000, &st) == 0);
	CHECK(vfwd_gro_flush(&g, 500, 1400, pkts, VFWD_MAX_BURST, &st) == 0);
	CHECK(vfwd_gro_held(&g) == 1);
	n = vfwd_gro_flush(&g, 500, 1600, pkts, VFWD_MAX_BURST, &st);
	CHECK(n == 1 && vfwd_gro_held(&g) == 0);
	if (n == 1)
		CHECK(check_tcp_payload(pkts[0]) == 4 * MSS);
	free_all(pkts, n);
	vfwd_gro_fini(&g);
}

/* Frames GRO must not touch: out as they came, byte for byte. */
static uint16_t
frame_ipv6_tcp(uint8_t *f)
{
	struct rte_ether_hdr *eth = (void *)f;
	struct rte_ipv6_hdr *ip = (void *)(eth + 1);
	struct rte_tcp_hdr *th = (void *)(ip + 1);

	memset(f, 0, 14 + 40 + 20 + 100);
	eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV6);
	ip->vtc_flow = rte_cpu_to_be_32(6u << 28);
	ip->payload_len = rte_cpu_to_be_16(20 + 100);
	ip->proto = IPPROTO_TCP;
	ip->hop_limits = 64;
	th->data_off = 5 << 4;
	th->tcp_flags = RTE_TCP_ACK_FLAG;
	return 14 + 40 + 20 + 100;
}

static uint16_t
frame_vlan_tcp(uint8_t *f)
{
	struct tcp_opts o = {.flow = 9, .payload = 100, .flags = RTE_TCP_ACK_FLAG};
	uint16_t len = build_tcp4(f + 4, &o);

	memmove(f, f + 4, 12);
	f[12] = 0x81, f[13] = 0x00, f[14] = 0, f[15] = 5;
	return len + 4;
}

static uint16_t
frame_ip_options(uint8_t *f)
{
	struct tcp_opts o = {.flow = 10, .payload = 100, .flags = RTE_TCP_ACK_FLAG};
	uint16_t len = build_tcp4(f, &o);
	struct rte_ipv4_hdr *ip = (void *)(f + 14);

	memmove(f + 38, f + 34, len - 34); /* 4 bytes of options (NOPs) */
	memset(f + 34, 1, 4);
	ip->version_ihl = 0x46;
	ip->total_length = rte_cpu_to_be_16(len - 14 + 4);
	return len + 4;
}

static uint16_t
frame_fragment(uint8_t *f)
{
	struct tcp_opts o = {.flow = 11, .payload = 100, .flags = RTE_TCP_ACK_FLAG};
	uint16_t len = build_tcp4(f, &o);
	struct rte_ipv4_hdr *ip = (void *)(f + 14);

	ip->fragment_offset = rte_cpu_to_be_16(RTE_IPV4_HDR_MF_FLAG);
	return len;
}

static uint16_t
frame_udp(uint8_t *f)
{
	struct tcp_opts o = {.flow = 12, .payload = 100, .flags = RTE_TCP_ACK_FLAG};
	uint16_t len = build_tcp4(f, &o);
	struct rte_ipv4_hdr *ip = (void *)(f + 14);
	struct rte_udp_hdr *uh = (void *)(f + 34);

	ip->next_proto_id = IPPROTO_UDP;
	uh->dgram_len = rte_cpu_to_be_16(len - 34);
	return len;
}

/* Malformed frames: each must pass GRO untouched and be read only within
 * its bytes. */
static uint16_t
frame_truncated_eth(uint8_t *f)
{
	memset(f, 0xff, 10);
	return 10;
}

static uint16_t
frame_truncated_ip(uint8_t *f)
{
	struct tcp_opts o = {.flow = 13, .payload = 0, .flags = RTE_TCP_ACK_FLAG};

	build_tcp4(f, &o);
	return 14 + 12;
}

static uint16_t
frame_truncated_tcp(uint8_t *f)
{
	struct tcp_opts o = {.flow = 14, .payload = 0, .flags = RTE_TCP_ACK_FLAG};

	build_tcp4(f, &o);
	return 14 + 20 + 10;
}

static uint16_t
frame_ihl_small(uint8_t *f)
{
	struct tcp_opts o = {.flow = 15, .payload = 50, .flags = RTE_TCP_ACK_FLAG};
	uint16_t len = build_tcp4(f, &o);

	f[14] = 0x43;
	return len;
}

static uint16_t
frame_doff_beyond(uint8_t *f)
{
	struct tcp_opts o = {.flow = 16, .payload = 8, .flags = RTE_TCP_ACK_FLAG};
	uint16_t len = build_tcp4(f, &o);

	f[34 + 12] = 15 << 4; /* 60-byte TCP header in a 28-byte segment */
	return len;
}

static uint16_t
frame_iplen_long(uint8_t *f)
{
	struct tcp_opts o = {.flow = 17, .payload = 50, .flags = RTE_TCP_ACK_FLAG};
	uint16_t len = build_tcp4(f, &o);
	struct rte_ipv4_hdr *ip = (void *)(f + 14);

	ip->total_length = rte_cpu_to_be_16(len - 14 + 500);
	return len;
}

static uint16_t
frame_iplen_short(uint8_t *f)
{
	struct tcp_opts o = {.flow = 18, .payload = 50, .flags = RTE_TCP_ACK_FLAG};
	uint16_t len = build_tcp4(f, &o);
	struct rte_ipv4_hdr *ip = (void *)(f + 14);

	ip->total_length = rte_cpu_to_be_16(10);
	return len;
}

static uint16_t
frame_empty(uint8_t *f)
{
	(void)f;
	return 0;
}

typedef uint16_t (*frame_fn)(uint8_t *);

static const struct {
	const char *name;
	frame_fn build;
	enum vfwd_parse kind;
} odd_frames[] = {
	{"ipv6-tcp", frame_ipv6_tcp, VFWD_PARSE_TCP6},
	{"vlan-tcp", frame_vlan_tcp, VFWD_PARSE_TCP4},
	{"ip-options", frame_ip_options, VFWD_PARSE_TCP4},
	{"ip-fragment", frame_fragment, VFWD_PARSE_OTHER},
	{"udp", frame_udp, VFWD_PARSE_UDP4},
	{"truncated-eth", frame_truncated_eth, VFWD_PARSE_OTHER},
	{"truncated-ip", frame_truncated_ip, VFWD_PARSE_OTHER},
	{"truncated-tcp", frame_truncated_tcp, VFWD_PARSE_BAD},
	{"ihl-below-5", frame_ihl_small, VFWD_PARSE_BAD},
	{"tcp-doff-beyond", frame_doff_beyond, VFWD_PARSE_BAD},
	{"ip-len-longer-than-frame", frame_iplen_long, VFWD_PARSE_BAD},
	{"ip-len-shorter-than-headers", frame_iplen_short, VFWD_PARSE_BAD},
	{"zero-length", frame_empty, VFWD_PARSE_OTHER},
};

static void
odd_frames_typed(void)
{
	uint8_t f[2048];

	for (size_t i = 0; i < RTE_DIM(odd_frames); i++) {
		uint16_t len = odd_frames[i].build(f);
		struct rte_mbuf *m = ext_pkt(f, len);
		enum vfwd_parse kind = vfwd_parse(m);

		CHECK(kind == odd_frames[i].kind);
		if (kind != odd_frames[i].kind)
			fprintf(stderr, "# %s: parsed as %d\n", odd_frames[i].name, kind);
		rte_pktmbuf_free(m);
	}
}

static void
odd_frames_pass_gro_untouched(void)
{
	const struct vfwd_gro_conf *confs[] = {&light, &heavy};

	for (int c = 0; c < 2; c++) {
		struct rte_mbuf *pkts[VFWD_MAX_BURST + VFWD_GRO_HOLD_MAX];
		uint8_t frames[RTE_DIM(odd_frames)][2048];
		uint16_t lens[RTE_DIM(odd_frames)], n, nb = 0;
		struct vfwd_gro g;

		CHECK(vfwd_gro_init(&g, confs[c], 0) == 0);
		/* between mergeable segments of another flow */
		pkts[nb++] = tcp_seg(20, 0, RTE_TCP_ACK_FLAG);
		for (size_t i = 0; i < RTE_DIM(odd_frames); i++) {
			lens[i] = odd_frames[i].build(frames[i]);
			pkts[nb++] = ext_pkt(frames[i], lens[i]);
		}
		pkts[nb++] = tcp_seg(20, 1, RTE_TCP_ACK_FLAG);
		n = vfwd_gro_burst(&g, confs[c], GUEST_KINDS, pkts, nb, 0, &st);
		n += vfwd_gro_flush(&g, 0, 0, pkts + n, VFWD_MAX_BURST, &st);
		CHECK(n == nb || n == nb - 1);
		/* every odd frame is there, unchanged */
		for (size_t i = 0; i < RTE_DIM(odd_frames); i++) {
			bool found = false;

			for (uint16_t k = 0; k < n && !found; k++)
				found = pkts[k]->pkt_len == lens[i] &&
					(lens[i] == 0 ||
					 memcmp(rte_pktmbuf_mtod(pkts[k], void *), frames[i],
						lens[i]) == 0) &&
					!(pkts[k]->ol_flags & RTE_MBUF_F_TX_TCP_SEG);
			CHECK(found);
			if (!found)
				fprintf(stderr, "# %s changed or lost\n", odd_frames[i].name);
		}
		free_all(pkts, n);
		vfwd_gro_fini(&g);
	}
}

/* ------------------------------------------- tagged and IPv6 frames */

/* An IPv6 extension header: (len8 + 1) * 8 bytes; a routing header has a
 * type and segments left. */
struct ext_spec {
	uint8_t type; /* IPPROTO_HOPOPTS, _ROUTING, _DSTOPTS, _FRAGMENT */
	uint8_t len8;
	uint8_t rt_type, segs_left;
};

/* Any frame the typing and the wire stages take: up to three tags, IPv4
 * or IPv6 with extension headers, TCP (20 bytes, or 32 with a timestamp
 * option) or UDP, the flow's byte stream as payload. */
struct frame_spec {
	uint8_t ntags;
	uint16_t tpid[3];
	bool v6;
	uint8_t next;
	struct ext_spec ext[12];
	uint8_t l4_proto;  /* IPPROTO_TCP (default) or IPPROTO_UDP or other */
	uint8_t tcp_hl;    /* 20 (default) or 32 */
	uint8_t flags;
	uint32_t flow, off, payload;
	/* filled by build_frame */
	uint32_t l2, l3, l4, len;
	uint8_t final_dst[16]; /* IPv6: the pseudo-header's destination */
};

static const uint8_t v6_src[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
static const uint8_t v6_dst[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2};
static const uint8_t v6_far[16] = {0x20, 0x01, 0x0d, 0xb8, 0xff, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 9};

/* The Internet checksum, written here apart from vfwd's and DPDK's. */
static uint32_t
sum16(const uint8_t *p, uint32_t len, uint32_t sum)
{
	for (uint32_t i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)p[i] << 8 | p[i + 1];
	if (len & 1)
		sum += (uint32_t)p[len - 1] << 8;
	return sum;
}

static uint16_t
fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

/* The L4 checksum of a linear frame verifies: IPv4 or IPv6 pseudo-header
 * (final_dst for IPv6), L4 length from the IP header. */
static bool
l4_verifies(const uint8_t *p, uint32_t l2, uint32_t l3, bool v6, const uint8_t *final_dst)
{
	uint32_t sum = 0, l4len;
	uint8_t proto;

	if (v6) {
		l4len = (uint32_t)(p[l2 + 4] << 8 | p[l2 + 5]) + 40 - l3;
		sum = sum16(p + l2 + 8, 16, sum);
		sum = sum16(final_dst, 16, sum);
		proto = p[l2 + 6];
		/* the upper-layer protocol: the last next-header field */
		for (uint32_t o = l2 + 40; o < l2 + l3; o += (p[o + 1] + 1u) * 8)
			proto = p[o];
	} else {
		l4len = (uint32_t)(p[l2 + 2] << 8 | p[l2 + 3]) - l3;
		sum = sum16(p + l2 + 12, 8, sum);
		proto = p[l2 + 9];
	}
	sum += proto + l4len;
	sum = sum16(p + l2 + l3, l4len, sum);
	return fold(sum) == 0xffff;
}

static bool
ipv4_hdr_verifies(const uint8_t *p, uint32_t l2)
{
	return fold(sum16(p + l2, (p[l2] & 0xf) * 4u, 0)) == 0xffff;
}

/* Build the frame at f; returns its length. The L4 checksum is valid. */
static uint32_t
build_frame(uint8_t *f, struct frame_spec *s)
{
	uint32_t o = 12, ip, l4;
	uint8_t proto = s->l4_proto ? s->l4_proto : IPPROTO_TCP;
	uint32_t l4hdr = proto == IPPROTO_TCP ? (s->tcp_hl ? s->tcp_hl : 20) : 8;
	uint8_t *nh;

	memset(f, 0, 12);
	f[0] = 2, f[6] = 2, f[11] = 1;
	for (int t = 0; t < s->ntags; t++) {
		f[o] = s->tpid[t] >> 8, f[o + 1] = s->tpid[t] & 0xff;
		f[o + 2] = 0, f[o + 3] = (uint8_t)(10 + t); /* VLAN id */
		o += 4;
	}
	f[o] = s->v6 ? 0x86 : 0x08, f[o + 1] = s->v6 ? 0xdd : 0x00;
	o += 2;
	s->l2 = ip = o;
	if (s->v6) {
		memset(f + ip, 0, 40);
		f[ip] = 0x60;
		f[ip + 7] = 64;
		memcpy(f + ip + 8, v6_src, 16);
		memcpy(f + ip + 24, v6_dst, 16);
		memcpy(s->final_dst, v6_dst, 16);
		nh = f + ip + 6;
		o = ip + 40;
		for (int e = 0; e < s->next; e++) {
			const struct ext_spec *x = &s->ext[e];
			uint32_t len = (x->len8 + 1u) * 8;

			*nh = x->type;
			memset(f + o, 0, len);
			f[o + 1] = x->len8;
			if (x->type == IPPROTO_ROUTING) {
				f[o + 2] = x->rt_type, f[o + 3] = x->segs_left;
				if (x->segs_left) {
					uint32_t a = o + 8 + (x->rt_type == 0 ? 16u * (x->len8 / 2 - 1) : 0);

					memcpy(f + a, v6_far, 16);
					memcpy(s->final_dst, v6_far, 16);
				}
			} else if (x->type != IPPROTO_FRAGMENT) {
				f[o + 2] = 1, f[o + 3] = (uint8_t)(len - 4); /* PadN */
			}
			nh = f + o;
			o += len;
		}
		*nh = proto;
	} else {
		struct rte_ipv4_hdr *h = (void *)(f + ip);

		memset(h, 0, 20);
		h->version_ihl = RTE_IPV4_VHL_DEF;
		h->packet_id = rte_cpu_to_be_16(100);
		h->fragment_offset = rte_cpu_to_be_16(RTE_IPV4_HDR_DF_FLAG);
		h->time_to_live = 64;
		h->next_proto_id = proto;
		h->src_addr = rte_cpu_to_be_32(0xc6120000 | (s->flow >> 8));
		h->dst_addr = rte_cpu_to_be_32(0xc6130001);
		o = ip + 20;
	}
	s->l3 = o - ip;
	l4 = o;
	s->l4 = l4hdr;
	memset(f + l4, 0, l4hdr);
	if (proto == IPPROTO_TCP) {
		struct rte_tcp_hdr *th = (void *)(f + l4);

		th->src_port = rte_cpu_to_be_16(1024 + (s->flow & 0xff));
		th->dst_port = rte_cpu_to_be_16(5201);
		th->sent_seq = rte_cpu_to_be_32(1000000 + s->off);
		th->recv_ack = rte_cpu_to_be_32(7);
		th->data_off = (uint8_t)((l4hdr / 4) << 4);
		th->tcp_flags = s->flags ? s->flags : RTE_TCP_ACK_FLAG;
		th->rx_win = rte_cpu_to_be_16(65535);
		if (l4hdr == 32) { /* NOP NOP timestamps */
			uint8_t *opt = f + l4 + 20;

			opt[0] = 1, opt[1] = 1, opt[2] = 8, opt[3] = 10;
			opt[7] = 0x11, opt[11] = 0x22;
		}
	} else {
		f[l4] = 0x13, f[l4 + 1] = 0x88, f[l4 + 3] = 0x35;
		f[l4 + 4] = (uint8_t)((l4hdr + s->payload) >> 8);
		f[l4 + 5] = (uint8_t)(l4hdr + s->payload);
	}
	for (uint32_t i = 0; i < s->payload; i++)
		f[l4 + l4hdr + i] = stream_byte(s->flow, s->off + i);
	s->len = l4 + l4hdr + s->payload;
	if (s->v6) {
		uint32_t pl = s->len - ip - 40;

		f[ip + 4] = (uint8_t)(pl >> 8), f[ip + 5] = (uint8_t)pl;
	} else {
		struct rte_ipv4_hdr *h = (void *)(f + ip);

		h->total_length = rte_cpu_to_be_16((uint16_t)(s->len - ip));
		h->hdr_checksum = rte_cpu_to_be_16((uint16_t)~fold(sum16(f + ip, 20, 0)));
	}
	if (proto == IPPROTO_TCP || proto == IPPROTO_UDP) {
		uint32_t c = l4 + (proto == IPPROTO_TCP ? 16 : 6), sum = 0;
		uint32_t l4len = s->len - l4;

		f[c] = f[c + 1] = 0;
		if (s->v6) {
			sum = sum16(f + ip + 8, 16, sum);
			sum = sum16(s->final_dst, 16, sum);
		} else {
			sum = sum16(f + ip + 12, 8, sum);
		}
		sum += proto + l4len;
		sum = (uint16_t)~fold(sum16(f + l4, l4len, sum));
		if (sum == 0 && proto == IPPROTO_UDP)
			sum = 0xffff;
		f[c] = (uint8_t)(sum >> 8), f[c + 1] = (uint8_t)sum;
	}
	return s->len;
}

#define TAG1Q .ntags = 1, .tpid = {0x8100}
#define TAGAD .ntags = 1, .tpid = {0x88a8}
#define QINQ .ntags = 2, .tpid = {0x88a8, 0x8100}
#define QINQ_OLD .ntags = 2, .tpid = {0x8100, 0x8100}
#define HBH(n) {.type = IPPROTO_HOPOPTS, .len8 = (n)}
#define DSTOPT(n) {.type = IPPROTO_DSTOPTS, .len8 = (n)}

static const struct {
	const char *name;
	struct frame_spec spec;
	uint32_t cut;      /* frame cut to this many bytes (0: whole) */
	enum vfwd_parse kind;
	uint8_t l2;
	uint16_t l3; /* up to an mbuf's 511 */
	uint8_t l4; /* expected when TCP/UDP */
	uint32_t l2type;
} typed[] = {
	{"8021q-tcp4", {TAG1Q, .payload = 100}, 0, VFWD_PARSE_TCP4, 18, 20, 20,
	 RTE_PTYPE_L2_ETHER_VLAN},
	{"8021ad-tcp4", {TAGAD, .payload = 100}, 0, VFWD_PARSE_TCP4, 18, 20, 20,
	 RTE_PTYPE_L2_ETHER_VLAN},
	{"qinq-tcp4", {QINQ, .payload = 100, .tcp_hl = 32}, 0, VFWD_PARSE_TCP4, 22, 20, 32,
	 RTE_PTYPE_L2_ETHER_QINQ},
	{"qinq-8100x2-udp4", {QINQ_OLD, .l4_proto = IPPROTO_UDP, .payload = 100}, 0,
	 VFWD_PARSE_UDP4, 22, 20, 8, RTE_PTYPE_L2_ETHER_QINQ},
	{"8021q-tcp6", {TAG1Q, .v6 = true, .payload = 100}, 0, VFWD_PARSE_TCP6, 18, 40, 20,
	 RTE_PTYPE_L2_ETHER_VLAN},
	{"qinq-udp6", {QINQ, .v6 = true, .l4_proto = IPPROTO_UDP, .payload = 100}, 0,
	 VFWD_PARSE_UDP6, 22, 40, 8, RTE_PTYPE_L2_ETHER_QINQ},
	{"tcp6-hbh", {.v6 = true, .next = 1, .ext = {HBH(0)}, .payload = 100}, 0,
	 VFWD_PARSE_TCP6, 14, 48, 20, RTE_PTYPE_L2_ETHER},
	{"8021q-tcp6-hbh-rt2-dst",
	 {TAG1Q, .v6 = true, .next = 3,
	  .ext = {HBH(1), {.type = IPPROTO_ROUTING, .len8 = 2, .rt_type = 2, .segs_left = 1},
		  DSTOPT(0)},
	  .payload = 100, .tcp_hl = 32},
	 0, VFWD_PARSE_TCP6, 18, 40 + 16 + 24 + 8, 32, RTE_PTYPE_L2_ETHER_VLAN},
	{"udp6-srh", {.v6 = true, .next = 1,
		      .ext = {{.type = IPPROTO_ROUTING, .len8 = 4, .rt_type = 4, .segs_left = 1}},
		      .l4_proto = IPPROTO_UDP, .payload = 50},
	 0, VFWD_PARSE_UDP6, 14, 80, 8, RTE_PTYPE_L2_ETHER},
	{"tcp6-8-ext", {.v6 = true, .next = 8,
			.ext = {DSTOPT(0), DSTOPT(0), DSTOPT(0), DSTOPT(0), DSTOPT(0), DSTOPT(0),
				DSTOPT(0), DSTOPT(0)}, .payload = 10},
	 0, VFWD_PARSE_TCP6, 14, 40 + 64, 20, RTE_PTYPE_L2_ETHER},
	/* the longest IPv6 header an mbuf's 9-bit l3_len holds: 504 bytes */
	{"tcp6-hbh-464", {.v6 = true, .next = 1, .ext = {HBH(57)}, .payload = 10}, 0,
	 VFWD_PARSE_TCP6, 14, 40 + 464, 20, RTE_PTYPE_L2_ETHER},
	/* not TCP/UDP, or malformed: OTHER (BAD where the L4 header lies) */
	{"tcp6-hbh-472-beyond-l3_len", {.v6 = true, .next = 1, .ext = {HBH(58)}, .payload = 10},
	 0, VFWD_PARSE_OTHER /* 512 bytes of IPv6 header: l3_len would keep 0 */},
	{"tcp6-9-ext-loop", {.v6 = true, .next = 9,
			     .ext = {DSTOPT(0), DSTOPT(0), DSTOPT(0), DSTOPT(0), DSTOPT(0),
				     DSTOPT(0), DSTOPT(0), DSTOPT(0), DSTOPT(0)}, .payload = 10},
	 0, VFWD_PARSE_OTHER},
	{"tcp6-fragment", {.v6 = true, .next = 1, .ext = {{.type = IPPROTO_FRAGMENT}},
			   .payload = 100}, 0, VFWD_PARSE_OTHER},
	{"tcp6-hbh-fragment", {TAG1Q, .v6 = true, .next = 2,
			       .ext = {HBH(0), {.type = IPPROTO_FRAGMENT}}, .payload = 100},
	 0, VFWD_PARSE_OTHER},
	{"tcp6-rt3-segs-left", {.v6 = true, .next = 1,
				.ext = {{.type = IPPROTO_ROUTING, .len8 = 2, .rt_type = 3,
					 .segs_left = 1}}, .payload = 10},
	 0, VFWD_PARSE_OTHER},
	{"tcp6-rt3-done", {.v6 = true, .next = 1,
			   .ext = {{.type = IPPROTO_ROUTING, .len8 = 2, .rt_type = 3}},
			   .payload = 10},
	 0, VFWD_PARSE_TCP6, 14, 64, 20, RTE_PTYPE_L2_ETHER},
	{"icmp6-behind-hbh", {.v6 = true, .next = 1, .ext = {HBH(0)}, .l4_proto = 58,
			      .payload = 10}, 0, VFWD_PARSE_OTHER},
	{"three-tags", {.ntags = 3, .tpid = {0x88a8, 0x8100, 0x8100}, .payload = 10}, 0,
	 VFWD_PARSE_OTHER},
	{"truncated-tag", {TAG1Q, .payload = 10}, 16, VFWD_PARSE_OTHER},
	{"truncated-second-tag", {QINQ, .payload = 10}, 19, VFWD_PARSE_OTHER},
	{"tag-then-truncated-ip", {TAG1Q, .payload = 10}, 18 + 12, VFWD_PARSE_OTHER},
	{"tag-then-truncated-ip6", {QINQ, .v6 = true, .payload = 10}, 22 + 30, VFWD_PARSE_OTHER},
	{"tag-then-truncated-tcp", {TAG1Q, .payload = 0}, 18 + 20 + 10, VFWD_PARSE_BAD},
	{"ext-beyond-frame", {.v6 = true, .next = 1, .ext = {HBH(0)}, .payload = 0},
	 14 + 40 + 6, VFWD_PARSE_BAD /* payload_len longer than the frame */},
	{"ext-len-beyond-payload", {.v6 = true, .next = 1, .ext = {HBH(0)}, .payload = 10},
	 0, VFWD_PARSE_OTHER /* len8 patched below */},
	{"ext-chain-cut", {.v6 = true, .next = 2, .ext = {HBH(0), DSTOPT(0)}, .payload = 0},
	 14 + 40 + 8 + 4, VFWD_PARSE_OTHER /* payload_len patched to the cut */},
};

/* Patches the two cases that need a lie in a header. */
static uint32_t
build_typed(uint8_t *f, size_t i)
{
	struct frame_spec s = typed[i].spec;
	uint32_t len = build_frame(f, &s);

	if (strcmp(typed[i].name, "ext-len-beyond-payload") == 0)
		f[14 + 40 + 1] = 200; /* 1608 bytes of options in a 38-byte payload */
	if (strcmp(typed[i].name, "ext-chain-cut") == 0) {
		f[14 + 4] = 0, f[14 + 5] = 12;
	}
	return typed[i].cut ? typed[i].cut : len;
}

static void
tagged_and_ipv6_ext_typed(void)
{
	static uint8_t f[4096];

	for (size_t i = 0; i < RTE_DIM(typed); i++) {
		uint32_t len = build_typed(f, i);
		struct rte_mbuf *m = ext_pkt(f, (uint16_t)len);
		enum vfwd_parse kind = vfwd_parse(m);
		bool ok = kind == typed[i].kind;

		if (ok && kind != VFWD_PARSE_OTHER && kind != VFWD_PARSE_BAD) {
			uint32_t l3type = (m->packet_type & RTE_PTYPE_L3_MASK);

			ok = m->l2_len == typed[i].l2 && m->l3_len == typed[i].l3 &&
			     m->l4_len == typed[i].l4 &&
			     (m->packet_type & RTE_PTYPE_L2_MASK) == typed[i].l2type &&
			     l3type == (!typed[i].spec.v6 ? RTE_PTYPE_L3_IPV4 :
					typed[i].l3 == 40 ? RTE_PTYPE_L3_IPV6 : RTE_PTYPE_L3_IPV6_EXT);
			/* and the test's own frames are right */
			struct frame_spec s = typed[i].spec;

			build_frame(f, &s);
			ok = ok && l4_verifies(f, s.l2, s.l3, s.v6, s.final_dst) &&
			     (s.v6 || ipv4_hdr_verifies(f, s.l2));
		}
		CHECK(ok);
		if (!ok)
			fprintf(stderr, "# %s: parsed as %d, l2 %u l3 %u l4 %u ptype %#x\n",
				typed[i].name, kind, m->l2_len, m->l3_len, m->l4_len,
				m->packet_type);
		rte_pktmbuf_free(m);
	}
}

/* Tagged and IPv6 TCP segments, mergeable as far as their TCP goes, pass
 * GRO unmerged and unchanged (librte_gro 22.11 has neither), while the
 * untagged IPv4 flow beside them merges. */
static void
tagged_and_ipv6_pass_gro(void)
{
	static const struct frame_spec kinds[] = {
		{TAG1Q, .flow = 60, .payload = MSS},
		{QINQ, .flow = 61, .payload = MSS},
		{.v6 = true, .flow = 62, .payload = MSS},
		{TAG1Q, .v6 = true, .next = 1, .ext = {HBH(0)}, .flow = 63, .payload = MSS},
	};
	const struct vfwd_gro_conf *confs[] = {&light, &heavy};
	static uint8_t frames[RTE_DIM(kinds)][4][HDRS + 100 + MSS];

	for (int c = 0; c < 2; c++) {
		struct rte_mbuf *pkts[VFWD_MAX_BURST + VFWD_GRO_HOLD_MAX];
		uint32_t lens[RTE_DIM(kinds)][4];
		uint16_t nb = 0, n, merged = 0, found = 0;
		struct vfwd_gro g;

		CHECK(vfwd_gro_init(&g, confs[c], 0) == 0);
		/* the IPv4 flow first: TCP/IPv6 segments end a run (kept in
		 * order with held ones), tagged ones pass beside */
		for (int seg = 0; seg < 4; seg++)
			pkts[nb++] = tcp_seg(64, seg, RTE_TCP_ACK_FLAG);
		for (int seg = 0; seg < 4; seg++) {
			for (size_t k = 0; k < RTE_DIM(kinds); k++) {
				struct frame_spec s = kinds[k];

				s.off = seg * MSS;
				lens[k][seg] = build_frame(frames[k][seg], &s);
				pkts[nb++] = ext_pkt(frames[k][seg], (uint16_t)lens[k][seg]);
			}
		}
		n = vfwd_gro_burst(&g, confs[c], GUEST_KINDS, pkts, nb, 0, &st);
		n += vfwd_gro_flush(&g, 0, 0, pkts + n, VFWD_MAX_BURST, &st);
		CHECK(n == nb - 3);
		for (uint16_t i = 0; i < n; i++) {
			if (pkts[i]->nb_segs == 4) {
				merged++;
				continue;
			}
			for (size_t k = 0; k < RTE_DIM(kinds); k++)
				for (int seg = 0; seg < 4; seg++)
					if (pkts[i]->pkt_len == lens[k][seg] &&
					    memcmp(rte_pktmbuf_mtod(pkts[i], void *), frames[k][seg],
						   lens[k][seg]) == 0 &&
					    !(pkts[i]->ol_flags & RTE_MBUF_F_TX_OFFLOAD_MASK))
						found++;
		}
		CHECK(merged == 1 && found == RTE_DIM(kinds) * 4);
		/* each kind's segments in stream order */
		for (size_t k = 0; k < RTE_DIM(kinds); k++) {
			int next = 0;

			for (uint16_t i = 0; i < n; i++)
				if (next < 4 && pkts[i]->pkt_len == lens[k][next] &&
				    memcmp(rte_pktmbuf_mtod(pkts[i], void *), frames[k][next],
					   lens[k][next]) == 0)
					next++;
			CHECK(next == 4);
		}
		free_all(pkts, n);
		vfwd_gro_fini(&g);
	}
}

/* --------------------------------------------------------- toward wire */

static struct vfwd_wire_tx
wire(bool tso, bool cksum)
{
	struct vfwd_wire_tx w = {
		.tso_offload = tso,
		.ip_cksum_offload = cksum,
		.l4_cksum_offload = cksum,
		.multi_seg = true,
		.max_frame = 1514,
		.gso = {.direct_pool = pool, .indirect_pool = indirect_pool,
			.gso_types = RTE_ETH_TX_OFFLOAD_TCP_TSO},
	};

	return w;
}

/* A guest TSO frame as net_vhost delivers it: a chain of pool mbufs,
 * RX_LRO, tso_segsz, the TCP checksum holding the pseudo-header sum
 * (NEEDS_CSUM). Pool mbufs here; external-buffer chains are cut in
 * tso_cut_in_software (they go to vfwd's segmenter: librte_gso 22.11
 * copies the head's EXTERNAL flag into its header segments, whose free
 * then faults). */
static struct rte_mbuf *
guest_tso_frame_flags(uint32_t flow, uint32_t payload, uint16_t mss, uint8_t flags)
{
	static uint8_t f[HDRS + 65536];
	struct tcp_opts o = {.flow = flow, .payload = payload, .flags = flags};
	uint32_t len = HDRS + payload;
	struct rte_mbuf *head = NULL;

	RTE_VERIFY(payload <= 65535 - 40);
	build_tcp4(f, &o);
	((struct rte_ipv4_hdr *)(f + 14))->total_length = rte_cpu_to_be_16(len - 14);
	((struct rte_ipv4_hdr *)(f + 14))->hdr_checksum = 0;
	((struct rte_ipv4_hdr *)(f + 14))->hdr_checksum = rte_ipv4_cksum((void *)(f + 14));
	((struct rte_tcp_hdr *)(f + 34))->cksum = rte_ipv4_phdr_cksum((void *)(f + 14), 0);
	for (uint32_t off = 0; off < len; off += 2000) {
		uint16_t seg = RTE_MIN(2000u, len - off);
		struct rte_mbuf *m = pool_pkt(f + off, seg);

		if (head == NULL)
			head = m;
		else
			RTE_VERIFY(rte_pktmbuf_chain(head, m) == 0);
	}
	head->ol_flags = RTE_MBUF_F_RX_LRO | RTE_MBUF_F_RX_L4_CKSUM_NONE;
	head->tso_segsz = mss;
	return head;
}

static struct rte_mbuf *
guest_tso_frame(uint32_t flow, uint32_t payload, uint16_t mss)
{
	return guest_tso_frame_flags(flow, payload, mss, RTE_TCP_ACK_FLAG);
}

static void
check_segment(struct rte_mbuf *s, uint32_t expect_off, uint16_t mss, bool last)
{
	struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(s, struct rte_ipv4_hdr *, 14);
	uint32_t payload = check_tcp_payload(s);

	CHECK(seq_of(s) == expect_off);
	CHECK(last ? payload <= mss : payload == mss);
	CHECK(ip_cksum_ok(ip));
	CHECK(rte_ipv4_udptcp_cksum_mbuf_verify(s, ip, 34) == 0);
	CHECK(s->pkt_len <= 1514);
}

/* Software segmentation; a PSH or FIN stays on the last segment only. */
static void
gso_software(void)
{
	static const uint8_t flags[] = {RTE_TCP_ACK_FLAG, RTE_TCP_ACK_FLAG | RTE_TCP_PSH_FLAG,
					RTE_TCP_ACK_FLAG | RTE_TCP_PSH_FLAG | RTE_TCP_FIN_FLAG};

	for (size_t k = 0; k < RTE_DIM(flags); k++) {
		struct rte_mbuf *out[VFWD_GSO_MAX_SEGS];
		struct vfwd_wire_tx w = wire(false, false);
		uint16_t n;
		uint32_t off = 0;

		memset(&st, 0, sizeof(st));
		n = vfwd_wire_tx_prepare(&w, guest_tso_frame_flags(30, 10000, 1448, flags[k]), out,
					 RTE_DIM(out), &st);
		CHECK(n == 7); /* 6 x 1448 + 1312 */
		for (uint16_t i = 0; i < n; i++) {
			const struct rte_tcp_hdr *th =
				rte_pktmbuf_mtod_offset(out[i], const struct rte_tcp_hdr *, 34);

			check_segment(out[i], off, 1448, i == n - 1);
			CHECK(th->tcp_flags == (i == n - 1 ? flags[k] : RTE_TCP_ACK_FLAG));
			off += out[i]->pkt_len - HDRS;
		}
		CHECK(off == 10000);
		CHECK(st.gso_frames == 1 && st.gso_segs == 7 && st.sw_cksums == 7);
		free_all(out, n);
		CHECK(rte_mempool_in_use_count(indirect_pool) == 0);
	}
}

static void
tso_offloaded(void)
{
	struct rte_mbuf *out[VFWD_GSO_MAX_SEGS];
	struct vfwd_wire_tx w = wire(true, true);
	uint16_t n;

	memset(&st, 0, sizeof(st));
	n = vfwd_wire_tx_prepare(&w, guest_tso_frame(31, 30000, 1448), out, RTE_DIM(out), &st);
	CHECK(n == 1 && st.tso_offloaded == 1 && st.sw_cksums == 0);
	if (n == 1) {
		struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(out[0], struct rte_ipv4_hdr *, 14);
		struct rte_tcp_hdr *th = rte_pktmbuf_mtod_offset(out[0], struct rte_tcp_hdr *, 34);

		CHECK(out[0]->ol_flags & RTE_MBUF_F_TX_TCP_SEG);
		CHECK(out[0]->ol_flags & RTE_MBUF_F_TX_IP_CKSUM);
		CHECK(out[0]->tso_segsz == 1448 && out[0]->l4_len == 20);
		CHECK(th->cksum == rte_ipv4_phdr_cksum(ip, out[0]->ol_flags));
	}
	free_all(out, n);
}

/* Partial checksums (NEEDS_CSUM) completed, TCP and UDP, in software. */
static void
partial_checksums(void)
{
	uint8_t f[HDRS + 300];
	struct rte_mbuf *out[VFWD_GSO_MAX_SEGS];
	struct vfwd_wire_tx w = wire(false, false);
	uint16_t len;

	for (int udp = 0; udp < 2; udp++) {
		struct tcp_opts o = {.flow = 40, .payload = 300, .flags = RTE_TCP_ACK_FLAG};
		struct rte_ipv4_hdr *ip = (void *)(f + 14);
		struct rte_mbuf *m;

		len = udp ? frame_udp(f) : build_tcp4(f, &o);
		if (udp)
			((struct rte_udp_hdr *)(f + 34))->dgram_cksum = rte_ipv4_phdr_cksum(ip, 0);
		else
			((struct rte_tcp_hdr *)(f + 34))->cksum = rte_ipv4_phdr_cksum(ip, 0);
		m = ext_pkt(f, len);
		m->ol_flags |= RTE_MBUF_F_RX_L4_CKSUM_NONE;
		memset(&st, 0, sizeof(st));
		CHECK(vfwd_wire_tx_prepare(&w, m, out, RTE_DIM(out), &st) == 1);
		ip = rte_pktmbuf_mtod_offset(out[0], struct rte_ipv4_hdr *, 14);
		CHECK(rte_ipv4_udptcp_cksum_mbuf_verify(out[0], ip, 34) == 0);
		CHECK(st.sw_cksums == 1);
		rte_pktmbuf_free(out[0]);
	}
}

/* Frames that are neither valid nor segmentable: dropped and counted. */
static void
bad_guest_frames(void)
{
	struct rte_mbuf *out[VFWD_GSO_MAX_SEGS], *m;
	struct vfwd_wire_tx w = wire(false, false);
	uint8_t f[2048];

	memset(&st, 0, sizeof(st));
	m = guest_tso_frame(50, 5000, 0); /* gso_size 0 */
	CHECK(vfwd_wire_tx_prepare(&w, m, out, RTE_DIM(out), &st) == 0);
	m = guest_tso_frame(51, 5000, 1500); /* segments larger than the MTU */
	CHECK(vfwd_wire_tx_prepare(&w, m, out, RTE_DIM(out), &st) == 0);
	m = guest_tso_frame(52, 60000, 100); /* 600 segments */
	CHECK(vfwd_wire_tx_prepare(&w, m, out, RTE_DIM(out), &st) == 0);
	m = ext_pkt(f, frame_udp(f)); /* "TSO" on UDP */
	m->ol_flags |= RTE_MBUF_F_RX_LRO;
	m->tso_segsz = 100;
	CHECK(vfwd_wire_tx_prepare(&w, m, out, RTE_DIM(out), &st) == 0);
	{ /* "TSO" on an IPv6 fragment */
		struct frame_spec s = {.v6 = true, .next = 1, .ext = {{.type = IPPROTO_FRAGMENT}},
				       .payload = 100};

		m = ext_pkt(f, (uint16_t)build_frame(f, &s));
	}
	m->ol_flags |= RTE_MBUF_F_RX_LRO;
	m->tso_segsz = 50;
	CHECK(vfwd_wire_tx_prepare(&w, m, out, RTE_DIM(out), &st) == 0);
	CHECK(st.drops[VFWD_DROP_BAD_GSO] == 5);
	m = ext_pkt(f, frame_truncated_tcp(f)); /* partial checksum, broken TCP */
	m->ol_flags |= RTE_MBUF_F_RX_L4_CKSUM_NONE;
	CHECK(vfwd_wire_tx_prepare(&w, m, out, RTE_DIM(out), &st) == 0);
	CHECK(st.drops[VFWD_DROP_BAD_CSUM] == 1);
	/* a plain frame passes as it is */
	m = ext_pkt(f, frame_truncated_eth(f));
	CHECK(vfwd_wire_tx_prepare(&w, m, out, RTE_DIM(out), &st) == 1 && out[0] == m);
	rte_pktmbuf_free(m);
}

/* ------------------------------- tagged, IPv6, single-segment ports */

static void
no_leak(void)
{
	CHECK(rte_mempool_in_use_count(pool) == 0);
	CHECK(rte_mempool_in_use_count(indirect_pool) == 0);
}

/* A guest frame of spec s (built at f) as net_vhost hands it over: a chain
 * of chunk-byte mbufs (pool copies, or exact-size heap buffers attached as
 * external buffers), RX_LRO + tso_segsz when mss, RX_L4_CKSUM_NONE and a
 * checksum field that is not the checksum (NEEDS_CSUM). */
static struct rte_mbuf *
guest_frame(struct frame_spec *s, uint8_t *f, uint16_t mss, uint32_t chunk, bool ext)
{
	struct rte_mbuf *head = NULL;
	uint32_t len = build_frame(f, s);
	uint8_t proto = s->l4_proto ? s->l4_proto : IPPROTO_TCP;
	uint32_t c = s->l2 + s->l3 + (proto == IPPROTO_TCP ? 16 : 6);

	f[c] = 0xab, f[c + 1] = 0xcd;
	for (uint32_t off = 0; off < len; off += chunk) {
		uint16_t seg = (uint16_t)RTE_MIN(chunk, len - off);
		struct rte_mbuf *m = ext ? ext_pkt(f + off, seg) : pool_pkt(f + off, seg);

		if (head == NULL)
			head = m;
		else
			RTE_VERIFY(rte_pktmbuf_chain(head, m) == 0);
	}
	head->ol_flags |= (mss ? RTE_MBUF_F_RX_LRO : 0) | RTE_MBUF_F_RX_L4_CKSUM_NONE;
	head->tso_segsz = mss;
	return head;
}

/* What the port does for the flags a packet carries: the IPv4 header
 * checksum, the L4 checksum from the pseudo-header sum in its field. */
static void
port_finishes(uint8_t *p, uint64_t ol, uint32_t l2, uint32_t l3, bool v6, bool tcp)
{
	if (ol & RTE_MBUF_F_TX_IP_CKSUM) {
		uint16_t c;

		p[l2 + 10] = p[l2 + 11] = 0;
		c = (uint16_t)~fold(sum16(p + l2, (p[l2] & 0xf) * 4u, 0));
		p[l2 + 10] = (uint8_t)(c >> 8), p[l2 + 11] = (uint8_t)c;
	}
	if (ol & (RTE_MBUF_F_TX_TCP_CKSUM | RTE_MBUF_F_TX_UDP_CKSUM)) {
		uint32_t l4 = l2 + l3, c = l4 + (tcp ? 16 : 6);
		uint32_t len = v6 ? (uint32_t)(p[l2 + 4] << 8 | p[l2 + 5]) + 40 - l3 :
				    (uint32_t)(p[l2 + 2] << 8 | p[l2 + 3]) - l3;
		uint16_t v = (uint16_t)~fold(sum16(p + l4, len, 0));

		p[c] = (uint8_t)(v >> 8), p[c + 1] = (uint8_t)v;
	}
}

/* The pseudo-header sum a port's TSO wants (no length), computed here. */
static uint16_t
expect_tso_phdr(const uint8_t *f, const struct frame_spec *s)
{
	uint32_t sum = IPPROTO_TCP;

	if (s->v6) {
		sum = sum16(f + s->l2 + 8, 16, sum);
		sum = sum16(s->final_dst, 16, sum);
	} else {
		sum = sum16(f + s->l2 + 12, 8, sum);
	}
	return fold(sum);
}

static uint16_t
get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t
get32(const uint8_t *p)
{
	return (uint32_t)get16(p) << 16 | get16(p + 2);
}

#define SEGOK(c)                                  \
	do {                                      \
		if (ok && !(c)) {                 \
			ok = false;               \
			bad_line = __LINE__;      \
		}                                 \
	} while (0)

/* Segments of the guest frame f (spec s, TCP flags flags) cut at mss:
 * lengths, headers, flags, sequence numbers, checksums, and the payload
 * bytes in order; single mbufs where the port wants them. */
static void
check_cut(struct rte_mbuf **out, uint16_t n, const uint8_t *f, const struct frame_spec *s,
	  uint16_t mss, bool single)
{
	static uint8_t buf[70000];
	const uint32_t hdr = s->l2 + s->l3 + s->l4, l4 = s->l2 + s->l3;
	const uint8_t flags = f[l4 + 13];
	uint32_t off = 0;
	bool ok = true;
	int bad_line = 0;

	CHECK(n == (s->payload + mss - 1) / mss);
	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = out[i];
		uint32_t len = m->pkt_len, pl = len - hdr;
		const uint8_t *p = rte_pktmbuf_read(m, 0, len, buf);
		uint8_t want = flags;

		if (p != buf)
			memcpy(buf, p, len);
		SEGOK(!single || m->nb_segs == 1);
		SEGOK(m->l2_len == s->l2 && m->l3_len == s->l3 && m->l4_len == s->l4);
		SEGOK(!(m->ol_flags & RTE_MBUF_F_TX_TCP_SEG));
		/* with an offload to do, the port is told IPv4 or IPv6 */
		SEGOK(!(m->ol_flags & (RTE_MBUF_F_TX_L4_MASK | RTE_MBUF_F_TX_IP_CKSUM)) ||
		      (!!(m->ol_flags & RTE_MBUF_F_TX_IPV6) == s->v6 &&
		       !!(m->ol_flags & RTE_MBUF_F_TX_IPV4) == !s->v6));
		SEGOK(i + 1 < n ? pl == mss : pl <= mss && pl > 0);
		SEGOK(len <= 1514u + (s->l2 - 14));
		/* the headers: as the frame's but for lengths, id, seq,
		 * flags and checksums */
		SEGOK(memcmp(buf, f, s->l2) == 0);
		if (s->v6) {
			SEGOK(get16(buf + s->l2 + 4) == len - s->l2 - 40);
			SEGOK(memcmp(buf + s->l2 + 6, f + s->l2 + 6, s->l3 - 6) == 0);
		} else {
			SEGOK(get16(buf + s->l2 + 2) == len - s->l2);
			SEGOK(get16(buf + s->l2 + 4) == get16(f + s->l2 + 4) + i);
			SEGOK(memcmp(buf + s->l2 + 12, f + s->l2 + 12, 8) == 0);
		}
		SEGOK(memcmp(buf + l4, f + l4, 4) == 0); /* ports */
		SEGOK(get32(buf + l4 + 4) == get32(f + l4 + 4) + off);
		SEGOK(memcmp(buf + l4 + 8, f + l4 + 8, 5) == 0); /* ack, data offset */
		SEGOK(memcmp(buf + l4 + 20, f + l4 + 20, s->l4 - 20) == 0); /* options */
		if (i + 1 < n)
			want &= ~(RTE_TCP_PSH_FLAG | RTE_TCP_FIN_FLAG);
		if (i > 0)
			want &= ~RTE_TCP_CWR_FLAG;
		SEGOK(buf[l4 + 13] == want);
		port_finishes(buf, m->ol_flags, s->l2, s->l3, s->v6, true);
		SEGOK(s->v6 || ipv4_hdr_verifies(buf, s->l2));
		SEGOK(l4_verifies(buf, s->l2, s->l3, s->v6, s->final_dst));
		SEGOK(memcmp(buf + hdr, f + hdr + off, pl) == 0);
		if (!ok) {
			fprintf(stderr, "# segment %u of %u wrong (line %d)\n", i, n, bad_line);
			break;
		}
		off += pl;
	}
	CHECK(ok);
	CHECK(!ok || off == s->payload);
}

static const struct {
	const char *name;
	struct frame_spec spec;
} cut_frames[] = {
	{"tcp6", {.v6 = true, .payload = 10000}},
	{"tcp6-ts", {.v6 = true, .tcp_hl = 32, .payload = 20000}},
	{"8021q-tcp6-hbh-ts", {TAG1Q, .v6 = true, .next = 1, .ext = {HBH(0)}, .tcp_hl = 32,
			       .payload = 30000}},
	{"qinq-tcp6-hbh-rt2-dst",
	 {QINQ, .v6 = true, .next = 3,
	  .ext = {HBH(1), {.type = IPPROTO_ROUTING, .len8 = 2, .rt_type = 2, .segs_left = 1},
		  DSTOPT(0)},
	  .tcp_hl = 32, .payload = 9000}},
	{"8021q-tcp4-ts", {TAG1Q, .tcp_hl = 32, .payload = 20000}},
	{"qinq-tcp4", {QINQ, .payload = 5000}},
	{"tcp4", {.payload = 7000}},
};

/* Guest TSO frames, IPv4 and IPv6, tagged or not, extension headers and
 * timestamps, cut in software (librte_gso for TCP/IPv4 with a direct head,
 * ours for the rest): every port kind (multi-seg or not, checksum offload
 * or not), pool and external-buffer chains, CWR/PSH/FIN. */
static void
tso_cut_in_software(void)
{
	static uint8_t f[70000];
	const uint8_t flags = RTE_TCP_ACK_FLAG | RTE_TCP_CWR_FLAG | RTE_TCP_PSH_FLAG | RTE_TCP_FIN_FLAG;

	for (size_t k = 0; k < RTE_DIM(cut_frames); k++) {
		for (int variant = 0; variant < 8; variant++) {
			bool cksum = variant & 1, single = variant & 2, ext = variant & 4;
			struct vfwd_wire_tx w = wire(false, cksum);
			struct rte_mbuf *out[VFWD_GSO_MAX_SEGS];
			struct frame_spec s = cut_frames[k].spec;
			uint16_t mss = 1300, n;
			int was = check_failed;

			s.flags = flags;
			s.flow = 70 + k;
			w.multi_seg = !single;
			memset(&st, 0, sizeof(st));
			n = vfwd_wire_tx_prepare(&w, guest_frame(&s, f, mss, 1500, ext), out,
						 RTE_DIM(out), &st);
			check_cut(out, n, f, &s, mss, single);
			CHECK(st.gso_frames == 1 && st.gso_sw_frames == 1 && st.gso_segs == n);
			/* checksums behind IPv6 extension headers: here */
			if (!cksum || s.l3 > 40)
				CHECK(st.sw_cksums == n);
			else
				CHECK(st.sw_cksums == 0);
			free_all(out, n);
			no_leak();
			if (check_failed && !was)
				fprintf(stderr, "# %s variant %d\n", cut_frames[k].name, variant);
			check_failed |= was;
		}
	}
}

/* Partial checksums (NEEDS_CSUM) of tagged and IPv6 frames, TCP and UDP:
 * completed here, or left to the port's offload with the pseudo-header
 * sum (but behind IPv6 extension headers, which ports get wrong). */
static void
partial_checksums_tagged_ipv6(void)
{
	static const struct frame_spec kinds[] = {
		{TAG1Q, .payload = 300},
		{QINQ, .l4_proto = IPPROTO_UDP, .payload = 301},
		{.v6 = true, .tcp_hl = 32, .payload = 302},
		{.v6 = true, .l4_proto = IPPROTO_UDP, .payload = 303},
		{TAG1Q, .v6 = true, .next = 1, .ext = {HBH(0)}, .l4_proto = IPPROTO_UDP,
		 .payload = 304},
		{QINQ, .v6 = true, .next = 2,
		 .ext = {DSTOPT(0), {.type = IPPROTO_ROUTING, .len8 = 4, .rt_type = 4,
				     .segs_left = 2}},
		 .payload = 305},
		{.v6 = true, .next = 1,
		 .ext = {{.type = IPPROTO_ROUTING, .len8 = 6, .rt_type = 0, .segs_left = 1}},
		 .l4_proto = IPPROTO_UDP, .payload = 306},
	};
	static uint8_t f[2048], buf[2048];

	for (size_t k = 0; k < RTE_DIM(kinds); k++) {
		for (int cksum = 0; cksum < 2; cksum++) {
			struct frame_spec s = kinds[k];
			struct vfwd_wire_tx w = wire(false, cksum);
			struct rte_mbuf *out[VFWD_GSO_MAX_SEGS], *m;
			bool tcp = s.l4_proto != IPPROTO_UDP, sw;

			s.flow = 80 + k;
			m = guest_frame(&s, f, 0, 2048, true);
			memset(&st, 0, sizeof(st));
			CHECK(vfwd_wire_tx_prepare(&w, m, out, RTE_DIM(out), &st) == 1);
			m = out[0];
			sw = !cksum || s.l3 > 40;
			CHECK(st.sw_cksums == (sw ? 1u : 0u));
			CHECK(m->l2_len == s.l2 && m->l3_len == s.l3);
			CHECK(!!(m->ol_flags & (RTE_MBUF_F_TX_TCP_CKSUM | RTE_MBUF_F_TX_UDP_CKSUM)) ==
			      !sw);
			CHECK(!(m->ol_flags & RTE_MBUF_F_TX_IP_CKSUM));
			memcpy(buf, rte_pktmbuf_mtod(m, void *), m->pkt_len);
			port_finishes(buf, m->ol_flags, s.l2, s.l3, s.v6, tcp);
			CHECK(l4_verifies(buf, s.l2, s.l3, s.v6, s.final_dst));
			/* nothing else changed */
			CHECK(memcmp(buf, f, s.l2 + s.l3) == 0);
			CHECK(memcmp(buf + s.l2 + s.l3 + (tcp ? 18 : 8), f + s.l2 + s.l3 + (tcp ? 18 : 8),
				     s.len - s.l2 - s.l3 - (tcp ? 18 : 8)) == 0);
			if (check_failed)
				fprintf(stderr, "# kind %zu cksum %d\n", k, cksum);
			rte_pktmbuf_free(m);
		}
	}
	no_leak();
}

/* The port's TSO: flags for IPv4 vs IPv6, lengths covering tags and
 * extension headers, the pseudo-header sum without the length; and
 * TX_IP_CKSUM only where the port enabled IPv4 checksum offload (else the
 * header checksum is computed here). */
static void
tso_offload_flags(void)
{
	static uint8_t f[70000];

	for (size_t k = 0; k < RTE_DIM(cut_frames); k++) {
		for (int ipck = 0; ipck < 2; ipck++) {
			struct frame_spec s = cut_frames[k].spec;
			struct vfwd_wire_tx w = wire(true, true);
			struct rte_mbuf *out[VFWD_GSO_MAX_SEGS], *m;
			const uint8_t *p;
			uint16_t phdr;

			w.ip_cksum_offload = ipck;
			memset(&st, 0, sizeof(st));
			m = guest_frame(&s, f, 1300, 2000, false);
			CHECK(vfwd_wire_tx_prepare(&w, m, out, RTE_DIM(out), &st) == 1);
			CHECK(st.tso_offloaded == 1 && st.sw_cksums == 0);
			m = out[0];
			p = rte_pktmbuf_mtod(m, const uint8_t *);
			CHECK(m->l2_len == s.l2 && m->l3_len == s.l3 && m->l4_len == s.l4);
			CHECK(m->tso_segsz == 1300 && (m->ol_flags & RTE_MBUF_F_TX_TCP_SEG));
			CHECK(!!(m->ol_flags & RTE_MBUF_F_TX_IPV6) == s.v6);
			CHECK(!!(m->ol_flags & RTE_MBUF_F_TX_IPV4) == !s.v6);
			CHECK(!!(m->ol_flags & RTE_MBUF_F_TX_IP_CKSUM) == (!s.v6 && ipck));
			if (!s.v6 && !ipck)
				CHECK(ipv4_hdr_verifies(p, s.l2));
			memcpy(&phdr, p + s.l2 + s.l3 + 16, 2);
			CHECK(get16(p + s.l2 + s.l3 + 16) == expect_tso_phdr(f, &s));
			(void)phdr;
			rte_pktmbuf_free(m);
		}
	}
	no_leak();
}

/* The rule vfwd_wire_burst_needs_prep folds into one walk, as written
 * before it: offloads to finish, longer than the wire, a chain the port
 * cannot take. */
static bool
prep_rule(const struct vfwd_wire_tx *w, const struct rte_mbuf *m)
{
	return (m->ol_flags & RTE_MBUF_F_RX_LRO) ||
	       (m->ol_flags & RTE_MBUF_F_RX_L4_CKSUM_MASK) == RTE_MBUF_F_RX_L4_CKSUM_NONE ||
	       rte_pktmbuf_pkt_len(m) > w->max_frame || (!w->multi_seg && m->nb_segs > 1);
}

/* Every combination of LRO, the four L4 checksum states, lengths about
 * max_frame, one or two segments and ports with and without MULTI_SEGS:
 * the burst walk says what the rule says of each packet, of bursts the OR
 * of their packets, and sums their lengths. */
static void
burst_prep_is_the_per_packet_rule(void)
{
	static const uint64_t l4[] = {RTE_MBUF_F_RX_L4_CKSUM_UNKNOWN, RTE_MBUF_F_RX_L4_CKSUM_BAD,
				      RTE_MBUF_F_RX_L4_CKSUM_GOOD, RTE_MBUF_F_RX_L4_CKSUM_NONE};
	static const uint16_t lens[] = {60, 1513, 1514, 1515};
	static uint8_t f[2048];
	struct rte_mbuf *pkts[64];
	unsigned int n = 0, agree = 0, bursts_agree = 0, bursts = 0;

	for (unsigned int lro = 0; lro < 2; lro++)
		for (unsigned int c = 0; c < RTE_DIM(l4); c++)
			for (unsigned int l = 0; l < RTE_DIM(lens); l++)
				for (unsigned int segs = 1; segs <= 2; segs++) {
					struct rte_mbuf *m = pool_pkt(f, (uint16_t)(lens[l] - (segs - 1) * 30));

					if (segs == 2)
						RTE_VERIFY(rte_pktmbuf_chain(m, pool_pkt(f, 30)) == 0);
					m->ol_flags = (lro ? RTE_MBUF_F_RX_LRO : 0) | l4[c] |
						      RTE_MBUF_F_RX_IP_CKSUM_GOOD;
					pkts[n++] = m;
				}
	for (int multi = 0; multi < 2; multi++) {
		struct vfwd_wire_tx w = wire(false, false);

		w.max_frame = 1514;
		w.multi_seg = multi;
		for (unsigned int i = 0; i < n; i++) {
			uint64_t bytes;
			bool p = vfwd_wire_burst_needs_prep(&w, &pkts[i], 1, &bytes);

			agree += p == prep_rule(&w, pkts[i]) && bytes == pkts[i]->pkt_len;
		}
		/* bursts of every length from every start */
		for (unsigned int s = 0; s < n; s += 3)
			for (unsigned int len = 1; s + len <= n; len += 5) {
				uint64_t bytes, want_bytes = 0;
				bool want = false;

				for (unsigned int i = s; i < s + len; i++) {
					want |= prep_rule(&w, pkts[i]);
					want_bytes += pkts[i]->pkt_len;
				}
				bursts++;
				bursts_agree += vfwd_wire_burst_needs_prep(&w, &pkts[s], (uint16_t)len,
									  &bytes) == want &&
						bytes == want_bytes;
			}
	}
	printf("# %u of %u packets and %u of %u bursts as the rule says\n", agree, 2 * n,
	       bursts_agree, bursts);
	CHECK(agree == 2 * n && bursts_agree == bursts);
	rte_pktmbuf_free_bulk(pkts, n);
}

/* A port without MULTI_SEGS gets single direct mbufs only: chained plain
 * frames, small "TSO" frames and every segment flattened, bytes equal;
 * what cannot fit one mbuf, or finds none, dropped by cause. */
static void
single_segment_port(void)
{
	static uint8_t f[70000], buf[70000];
	struct rte_mbuf *out[VFWD_GSO_MAX_SEGS], *m;
	struct vfwd_wire_tx w = wire(false, false);
	struct frame_spec s = {TAG1Q, .v6 = true, .payload = 1400, .flow = 90};
	uint32_t len;

	w.multi_seg = false;
	memset(&st, 0, sizeof(st));
	/* a plain chained frame (nothing to finish), pool and external */
	for (int ext = 0; ext < 2; ext++) {
		len = build_frame(f, &s);
		m = ext ? ext_pkt(f, 700) : pool_pkt(f, 700);
		RTE_VERIFY(rte_pktmbuf_chain(m, ext ? ext_pkt(f + 700, (uint16_t)(len - 700)) :
						  pool_pkt(f + 700, (uint16_t)(len - 700))) == 0);
		CHECK(vfwd_wire_needs_prep(&w, m));
		CHECK(vfwd_wire_tx_prepare(&w, m, out, RTE_DIM(out), &st) == 1);
		CHECK(out[0]->nb_segs == 1 && out[0]->pkt_len == len && RTE_MBUF_DIRECT(out[0]));
		CHECK(memcmp(rte_pktmbuf_mtod(out[0], void *), f, len) == 0);
		rte_pktmbuf_free(out[0]);
	}
	/* a one-segment TSO frame in a chain: checksum, flattened */
	m = guest_frame(&s, f, 1400, 500, false);
	CHECK(vfwd_wire_tx_prepare(&w, m, out, RTE_DIM(out), &st) == 1);
	CHECK(out[0]->nb_segs == 1 && out[0]->pkt_len == s.len);
	memcpy(buf, rte_pktmbuf_mtod(out[0], void *), s.len);
	CHECK(l4_verifies(buf, s.l2, s.l3, true, s.final_dst));
	CHECK(memcmp(buf + s.l2 + s.l3 + 20, f + s.l2 + s.l3 + 20, 1400) == 0);
	rte_pktmbuf_free(out[0]);
	/* a port with TSO but no MULTI_SEGS: cut here, single segments */
	w.tso_offload = true;
	s.payload = 20000;
	m = guest_frame(&s, f, 1300, 2000, true);
	len = vfwd_wire_tx_prepare(&w, m, out, RTE_DIM(out), &st);
	check_cut(out, (uint16_t)len, f, &s, 1300, true);
	CHECK(st.tso_offloaded == 0);
	free_all(out, (uint16_t)len);
	w.tso_offload = false;
	/* too long for one mbuf (a jumbo wire): dropped, oversize */
	w.max_frame = 9014;
	s.payload = 3000;
	m = guest_frame(&s, f, 0, 1000, false);
	m->ol_flags &= ~(RTE_MBUF_F_RX_LRO | RTE_MBUF_F_RX_L4_CKSUM_MASK);
	CHECK(vfwd_wire_tx_prepare(&w, m, out, RTE_DIM(out), &st) == 0);
	CHECK(st.drops[VFWD_DROP_OVERSIZE] == 1);
	m = guest_frame(&s, f, 2500, 1000, false); /* segments too long for one mbuf */
	CHECK(vfwd_wire_tx_prepare(&w, m, out, RTE_DIM(out), &st) == 0);
	CHECK(st.drops[VFWD_DROP_OVERSIZE] == 2);
	no_leak();
}

/* Segmentation that runs out of mbufs (a 6-mbuf pool): dropped, no_mbuf,
 * nothing leaked, in our segmenter (copying and attaching) and in
 * librte_gso; and flattening librte_gso's segments with the pool dry. */
static void
segmentation_out_of_mbufs(void)
{
	static uint8_t f[70000];
	struct rte_mempool *tiny = rte_pktmbuf_pool_create("t_tiny", 6, 0, 0,
							   RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	struct rte_mempool *tiny_ind = rte_pktmbuf_pool_create("t_tiny_ind", 6, 0, 0, 0, 0);
	struct rte_mbuf *out[VFWD_GSO_MAX_SEGS];

	RTE_VERIFY(tiny && tiny_ind);
	for (int c = 0; c < 4; c++) {
		struct vfwd_wire_tx w = wire(false, false);
		struct frame_spec s = {.v6 = c < 3, .payload = 20000, .flow = 91};

		w.multi_seg = c != 0;
		if (c == 1)
			w.gso.direct_pool = tiny; /* headers */
		else if (c == 2 || c == 3)
			w.gso.indirect_pool = tiny_ind; /* payload; c 3: librte_gso */
		if (c == 0)
			w.gso.direct_pool = tiny;
		memset(&st, 0, sizeof(st));
		CHECK(vfwd_wire_tx_prepare(&w, guest_frame(&s, f, 1300, 2000, false), out,
					   RTE_DIM(out), &st) == 0);
		CHECK(st.drops[VFWD_DROP_NO_MBUF] == 1);
		CHECK(rte_mempool_in_use_count(tiny) == 0 && rte_mempool_in_use_count(tiny_ind) == 0);
		no_leak();
	}
	rte_mempool_free(tiny);
	rte_mempool_free(tiny_ind);
}

/* GRO: a merged frame's gso_size is the flow's MSS even when its first
 * segment is shorter. */
static void
gro_gso_size_is_mss(void)
{
	static uint8_t f[HDRS + MSS];
	const struct vfwd_gro_conf *confs[] = {&light, &heavy};

	for (int c = 0; c < 2; c++) {
		struct rte_mbuf *pkts[VFWD_MAX_BURST + VFWD_GRO_HOLD_MAX];
		struct vfwd_gro g;
		uint16_t n;

		CHECK(vfwd_gro_init(&g, confs[c], 0) == 0);
		for (int i = 0; i < 5; i++) {
			struct tcp_opts o = {.flow = 92, .off = i == 0 ? 0 : 300 + (i - 1) * MSS,
					     .payload = i == 0 ? 300 : MSS,
					     .flags = RTE_TCP_ACK_FLAG, .ip_id = (uint16_t)i};

			pkts[i] = ext_pkt(f, build_tcp4(f, &o));
		}
		n = vfwd_gro_burst(&g, confs[c], GUEST_KINDS, pkts, 5, 0, &st);
		n += vfwd_gro_flush(&g, 0, 0, pkts + n, VFWD_MAX_BURST, &st);
		CHECK(n == 1);
		if (n == 1)
			CHECK(pkts[0]->nb_segs == 5 && pkts[0]->tso_segsz == MSS &&
			      check_tcp_payload(pkts[0]) == 300 + 4 * MSS);
		free_all(pkts, n);
		vfwd_gro_fini(&g);
	}
	no_leak();
}

/* Partial checksums completed on chains whose pieces have odd lengths:
 * DPDK 22.11's rte_raw_cksum_mbuf() loses the carries of a piece that
 * starts at an odd offset; vfwd sums chains itself. */
static void
odd_chains_checksummed(void)
{
	/* the headers in the first piece (vfwd_parse wants them there), odd
	 * lengths after */
	static const uint32_t chunks[] = {75, 77, 101, 255, 999};
	struct vfwd_dir_stats st;
	struct rte_mbuf *out[VFWD_GSO_MAX_SEGS];
	struct vfwd_wire_tx w = wire(false, false);
	uint8_t f[2048], flat[2048];

	for (size_t c = 0; c < RTE_DIM(chunks); c++) {
		for (int kind = 0; kind < 4; kind++) {
			struct frame_spec sp = {.v6 = kind & 1,
						.l4_proto = kind & 2 ? IPPROTO_UDP : IPPROTO_TCP,
						.flow = 3, .payload = 1001 + (uint32_t)c};
			struct rte_mbuf *m = guest_frame(&sp, f, 0, chunks[c], false);
			const uint8_t *p;
			bool ok;

			CHECK(m->nb_segs > 1);
			memset(&st, 0, sizeof(st));
			ok = vfwd_wire_tx_prepare(&w, m, out, RTE_DIM(out), &st) == 1;
			CHECK(ok && st.sw_cksums == 1);
			if (!ok)
				continue; /* dropped, and counted: nothing to free */
			p = rte_pktmbuf_read(out[0], 0, rte_pktmbuf_pkt_len(out[0]), flat);
			ok = p != NULL && l4_verifies(p, sp.l2, sp.l3, sp.v6, sp.final_dst);
			CHECK(ok);
			if (!ok)
				fprintf(stderr, "# chunk %u, %s %s: bad checksum\n", chunks[c],
					sp.v6 ? "IPv6" : "IPv4", kind & 2 ? "UDP" : "TCP");
			rte_pktmbuf_free(out[0]);
		}
	}
	no_leak();
}

static void
no_mbuf_leaked(void)
{
	CHECK(rte_mempool_in_use_count(pool) == 0);
	CHECK(rte_mempool_in_use_count(indirect_pool) == 0);
}

/* Bursts larger than librte_gro may hold (burst 512 > its 256 segments)
 * in heavy mode: 512 segments that do not merge (64 flows x 8, gaps in
 * each), then one mergeable segment and 510 breakers. Held never exceeds
 * VFWD_GRO_HOLD_MAX and the output fits the caller's array (ASan build
 * checks the bounds); every segment comes out once, alone (nothing could
 * merge), with its bytes, in its flow's order. */
static void
heavy_bursts_larger_than_hold(void)
{
	struct rte_mbuf *pkts[VFWD_MAX_BURST + VFWD_GRO_HOLD_MAX];
	const struct vfwd_gro_conf conf = {.enabled = true, .mode = VFWD_GRO_HEAVY,
					   .engine = VFWD_GRO_ENGINE_DPDK, .max_flows = 64,
					   .flush_us = 1000};
	static struct gro_outcome r;
	struct vfwd_gro g;
	uint8_t want[OUT_FLOWS][OUT_SEGS] = {{0}};
	uint32_t in = 0, mergeable = 0;
	uint16_t n;

	CHECK(vfwd_gro_init(&g, &conf, 0) == 0);
	memset(&st, 0, sizeof(st));
	outcome_init(&r);
	for (uint32_t i = 0; i < VFWD_MAX_BURST; i++) {
		pkts[i] = tcp_seg(i % 64, 2 * (i / 64), RTE_TCP_ACK_FLAG); /* every other seg */
		want[i % 64][2 * (i / 64)]++;
	}
	in += VFWD_MAX_BURST;
	mergeable += VFWD_MAX_BURST;
	n = vfwd_gro_burst(&g, &conf, GUEST_KINDS, pkts, VFWD_MAX_BURST, 0, &st);
	CHECK(vfwd_gro_held(&g) <= VFWD_GRO_HOLD_MAX);
	CHECK(n + vfwd_gro_held(&g) == VFWD_MAX_BURST);
	for (uint16_t i = 0; i < n; i++)
		outcome_add(&r, pkts[i]);
	free_all(pkts, n);
	pkts[0] = tcp_seg(0, 100, RTE_TCP_ACK_FLAG);
	want[0][100]++;
	for (uint32_t i = 1; i < VFWD_MAX_BURST - 1; i++) {
		pkts[i] = tcp_seg(1 + i % 63, 200 + i, RTE_TCP_SYN_FLAG); /* breakers */
		want[1 + i % 63][200 + i]++;
	}
	in += VFWD_MAX_BURST - 1;
	mergeable += 1;
	n = vfwd_gro_burst(&g, &conf, GUEST_KINDS, pkts, VFWD_MAX_BURST - 1, 0, &st);
	CHECK(n <= RTE_DIM(pkts));
	CHECK(vfwd_gro_held(&g) <= VFWD_GRO_HOLD_MAX);
	for (uint16_t i = 0; i < n && i < RTE_DIM(pkts); i++)
		outcome_add(&r, pkts[i]);
	free_all(pkts, n);
	while ((n = vfwd_gro_flush(&g, 0, 0, pkts, VFWD_GRO_HOLD_MAX, &st)) > 0) {
		for (uint16_t i = 0; i < n; i++)
			outcome_add(&r, pkts[i]);
		free_all(pkts, n);
	}
	CHECK(vfwd_gro_held(&g) == 0);
	/* nothing merged: every mbuf out alone, with its MSS of bytes */
	CHECK(r.frames == in && r.segs == in && !r.merged);
	CHECK(r.bytes == (uint64_t)in * MSS);
	CHECK(memcmp(r.seen, want, sizeof(want)) == 0);
	CHECK(!r.disorder);
	/* the counters say what happened: the mergeable ones in, as many out */
	CHECK(st.gro_in == mergeable && st.gro_out == mergeable && st.gro_merged == 0);
	CHECK(rte_mempool_in_use_count(pool) == 0);
	vfwd_gro_fini(&g);
}

int
main(int argc, char **argv)
{
	(void)argc;
	if (unit_eal_init(argv[0], "offload", &pool, &indirect_pool) != 0)
		return 1;

	RUN(merge_light);
	RUN(merge_heavy);
	RUN(flags_light);
	RUN(flags_heavy);
	RUN(out_of_order_and_duplicates);
	RUN(many_flows);
	RUN(heavy_timeout);
	RUN(bypass_when_nothing_merges);
	RUN(heavy_bursts_larger_than_hold);
	RUN(odd_frames_typed);
	RUN(odd_frames_pass_gro_untouched);
	RUN(tagged_and_ipv6_ext_typed);
	RUN(tagged_and_ipv6_pass_gro);
	RUN(gso_software);
	RUN(tso_offloaded);
	RUN(partial_checksums);
	RUN(bad_guest_frames);
	RUN(tso_cut_in_software);
	RUN(partial_checksums_tagged_ipv6);
	RUN(tso_offload_flags);
	RUN(burst_prep_is_the_per_packet_rule);
	RUN(single_segment_port);
	RUN(segmentation_out_of_mbufs);
	RUN(gro_gso_size_is_mss);
	RUN(odd_chains_checksummed);
	RUN(no_mbuf_leaked);
	unit_eal_fini();
	return CHECK_DONE();
}
