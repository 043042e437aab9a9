/* SPDX-License-Identifier: BSD-3-Clause
 *
 * vfwd's GRO engine (--gro-engine vfwd) on crafted flows, one test per
 * rule of the kernel's NAPI GRO it follows: what joins a flow, what ends
 * a frame, what is sent first, 64 KB, IPv6, tags, 1024 flows, the hold
 * budget. Every frame out is read back whole: its bytes are its flow's
 * stream at its sequence number, its IP lengths and GSO marks right, and
 * its run of segments is what the rule says. Needs EAL (mempools), no
 * hugepages.
 */
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_tcp.h>

#include "check.h"
#include "unit_eal.h"
#include "vfwd.h"
#include "vfwd_compat.h"

#define MSS 1000
#define KINDS (VFWD_GRO_KIND_TCP4 | VFWD_GRO_KIND_TCP6)
#define MAX_OUT (VFWD_MAX_BURST + VFWD_GRO_HOLD_MAX)

static struct rte_mempool *pool, *indirect_pool;
static struct vfwd_dir_stats st;

static const struct vfwd_gro_conf light = {.enabled = true, .mode = VFWD_GRO_LIGHT,
					   .engine = VFWD_GRO_ENGINE_VFWD, .max_flows = 64};
static const struct vfwd_gro_conf heavy = {.enabled = true, .mode = VFWD_GRO_HEAVY,
					   .engine = VFWD_GRO_ENGINE_VFWD, .max_flows = 64,
					   .flush_us = 100};

/* ------------------------------------------------------------ frames */

/* One TCP segment; zero fields take the usual value. */
struct seg {
	uint32_t flow;     /* source port 1024 + flow */
	uint32_t off;      /* stream offset of the first payload byte */
	uint16_t payload;  /* 0: MSS */
	bool empty;        /* no payload at all */
	uint8_t flags;     /* 0: ACK */
	bool v6;
	uint8_t tags;      /* 802.1Q tags, 0..2 */
	uint16_t ip_id;
	bool no_df;
	uint8_t ttl;       /* 0: 64 */
	uint8_t tos;       /* IPv4 TOS / IPv6 traffic class */
	uint32_t label;    /* IPv6 flow label */
	uint32_t ack;      /* 0: 7 */
	uint16_t win;      /* 0: 65535 */
	bool ts;           /* the timestamp option (12 bytes with two NOPs) */
	uint32_t tsval;
	bool ext;          /* IPv4 options / an IPv6 hop-by-hop header */
	uint16_t pad;      /* Ethernet padding after the datagram */
	bool bad_csum;     /* a wrong TCP checksum (the port did not check it) */
};

static uint8_t
stream_byte(uint32_t flow, uint32_t off)
{
	return (uint8_t)(off * 7 + flow * 13 + (off >> 8));
}

/* A big-endian 16-bit field wherever it falls (tags shift the headers). */
static void
put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static struct rte_mbuf *
seg_mbuf(const struct seg *s)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	uint16_t payload = s->empty ? 0 : s->payload ? s->payload : MSS;
	uint32_t l2 = 14 + 4u * s->tags, l3 = s->v6 ? 40 + (s->ext ? 8 : 0) : 20 + (s->ext ? 4 : 0);
	uint32_t l4 = 20 + (s->ts ? 12 : 0), len = l2 + l3 + l4 + payload + s->pad;
	uint8_t *f, *p;
	struct rte_tcp_hdr *th;

	RTE_VERIFY(m != NULL && len <= rte_pktmbuf_tailroom(m));
	f = (uint8_t *)rte_pktmbuf_append(m, len);
	memset(f, 0, len);
	f[0] = 2;
	f[6] = 2;
	f[11] = 1;
	p = f + 12;
	for (uint8_t t = 0; t < s->tags; t++, p += 4) {
		put16(p, RTE_ETHER_TYPE_VLAN);
		put16(p + 2, (uint16_t)(100 + t));
	}
	put16(p, s->v6 ? RTE_ETHER_TYPE_IPV6 : RTE_ETHER_TYPE_IPV4);
	th = (void *)(f + l2 + l3);
	if (s->v6) {
		struct rte_ipv6_hdr *ip = (void *)(f + l2);

		ip->vtc_flow = rte_cpu_to_be_32(6u << 28 | (uint32_t)s->tos << 20 | s->label);
		ip->payload_len = rte_cpu_to_be_16(l3 - 40 + l4 + payload);
		ip->proto = s->ext ? IPPROTO_HOPOPTS : IPPROTO_TCP;
		ip->hop_limits = s->ttl ? s->ttl : 64;
		VFWD_IP6_SRC(ip)[0] = 0x20;
		VFWD_IP6_SRC(ip)[15] = 1;
		VFWD_IP6_DST(ip)[0] = 0x20;
		VFWD_IP6_DST(ip)[15] = 2;
		if (s->ext)
			f[l2 + 40] = IPPROTO_TCP; /* hop-by-hop, 8 bytes of PadN */
	} else {
		struct rte_ipv4_hdr *ip = (void *)(f + l2);

		ip->version_ihl = (uint8_t)(0x40 | (l3 / 4));
		ip->type_of_service = s->tos;
		ip->total_length = rte_cpu_to_be_16(l3 + l4 + payload);
		ip->packet_id = rte_cpu_to_be_16(s->ip_id);
		ip->fragment_offset = s->no_df ? 0 : rte_cpu_to_be_16(RTE_IPV4_HDR_DF_FLAG);
		ip->time_to_live = s->ttl ? s->ttl : 64;
		ip->next_proto_id = IPPROTO_TCP;
		ip->src_addr = rte_cpu_to_be_32(0xc6120001);
		ip->dst_addr = rte_cpu_to_be_32(0xc6130001);
		if (s->ext)
			f[l2 + 20] = 1; /* NOP, NOP, NOP, end */
		ip->hdr_checksum = rte_ipv4_cksum(ip);
	}
	th->src_port = rte_cpu_to_be_16(1024 + s->flow);
	th->dst_port = rte_cpu_to_be_16(5201);
	th->sent_seq = rte_cpu_to_be_32(1000000 + s->off);
	th->recv_ack = rte_cpu_to_be_32(s->ack ? s->ack : 7);
	th->data_off = (uint8_t)((l4 / 4) << 4);
	th->tcp_flags = s->flags ? s->flags : RTE_TCP_ACK_FLAG;
	th->rx_win = rte_cpu_to_be_16(s->win ? s->win : 65535);
	if (s->ts) {
		uint8_t *o = (uint8_t *)(th + 1);

		o[0] = 1;
		o[1] = 1;
		o[2] = 8;
		o[3] = 10;
		put16(o + 4, (uint16_t)(s->tsval >> 16));
		put16(o + 6, (uint16_t)s->tsval);
	}
	for (uint32_t i = 0; i < payload; i++)
		f[l2 + l3 + l4 + i] = stream_byte(s->flow, s->off + i);
	/* a right TCP checksum unless asked (the engine checks it) */
	if (s->v6)
		th->cksum = rte_ipv6_udptcp_cksum((const void *)(f + l2), th);
	else
		th->cksum = rte_ipv4_udptcp_cksum((const void *)(f + l2), th);
	if (s->bad_csum)
		th->cksum ^= 0x0100;
	return m;
}

/* ------------------------------------------------------ what came out */

struct frame {
	uint32_t flow, off, bytes;
	uint16_t segs;     /* nb_segs */
	uint8_t flags;
	bool gso;
};

#define MAX_FRAMES 4096

struct outcome {
	struct frame f[MAX_FRAMES];
	uint32_t n;
	bool disorder;
	uint32_t next[1100];   /* per flow: the stream offset expected next */
	bool started[1100];
};

static struct outcome out;
/* the segments fed came as chains (chained_segments_checksummed): one
 * alone may leave as a chain, not marked GSO */
static bool chained_input;

static void
outcome_reset(void)
{
	memset(&out, 0, sizeof(out));
}

/* Read a frame back whole and check it: payload bytes, IP lengths, the
 * GSO marks of a merged one (mss: what the flow's frames are cut to). */
static void
take(const struct rte_mbuf *m, uint16_t mss)
{
	static uint8_t buf[70000];
	uint32_t len = rte_pktmbuf_pkt_len(m), l2 = 14, l3, l4, ip_len, flow, off;
	const uint8_t *p = rte_pktmbuf_read(m, 0, len, buf);
	const struct rte_tcp_hdr *th;
	uint16_t et;
	bool v6, ok = true;
	struct frame *fr;

	CHECK(p != NULL && out.n < MAX_FRAMES);
	if (p == NULL || out.n >= MAX_FRAMES)
		return;
	et = rte_be_to_cpu_16(*(const rte_be16_t *)(p + 12));
	while (et == RTE_ETHER_TYPE_VLAN) {
		et = rte_be_to_cpu_16(*(const rte_be16_t *)(p + l2 + 2));
		l2 += 4;
	}
	v6 = et == RTE_ETHER_TYPE_IPV6;
	if (v6) {
		const struct rte_ipv6_hdr *ip = (const void *)(p + l2);

		l3 = ip->proto == IPPROTO_HOPOPTS ? 48 : 40;
		ip_len = 40 + rte_be_to_cpu_16(ip->payload_len);
	} else {
		const struct rte_ipv4_hdr *ip = (const void *)(p + l2);
		struct rte_ipv4_hdr copy = *ip;

		l3 = (ip->version_ihl & 0xf) * 4u;
		ip_len = rte_be_to_cpu_16(ip->total_length);
		if (l3 == 20) {
			copy.hdr_checksum = 0;
			CHECK(rte_ipv4_cksum(&copy) == ip->hdr_checksum);
		}
	}
	th = (const void *)(p + l2 + l3);
	l4 = (th->data_off >> 4) * 4u;
	flow = rte_be_to_cpu_16(th->src_port) - 1024;
	off = rte_be_to_cpu_32(th->sent_seq) - 1000000;
	/* the datagram fills the frame (padding is cut when segments join) */
	CHECK(l2 + ip_len == len || (m->nb_segs == 1 && l2 + ip_len < len));
	CHECK(ip_len <= VFWD_GRO_MAX_IP_LEN);
	for (uint32_t i = l2 + l3 + l4; i < l2 + ip_len; i++)
		ok = ok && p[i] == stream_byte(flow, off + i - (l2 + l3 + l4));
	CHECK(ok);
	CHECK(flow < RTE_DIM(out.next));
	if (flow >= RTE_DIM(out.next))
		return;
	fr = &out.f[out.n++];
	fr->flow = flow;
	fr->off = off;
	fr->bytes = ip_len - l3 - l4;
	fr->segs = m->nb_segs;
	fr->flags = th->tcp_flags;
	fr->gso = (m->ol_flags & RTE_MBUF_F_TX_TCP_SEG) != 0;
	if (m->nb_segs > 1 && !(chained_input && fr->bytes <= mss)) {
		uint16_t want_sum = v6 ? rte_ipv6_phdr_cksum((const void *)(p + l2), 0)
				       : rte_ipv4_phdr_cksum((const void *)(p + l2), 0);

		CHECK(fr->gso && m->tso_segsz == mss && th->cksum == want_sum);
		CHECK((m->ol_flags & RTE_MBUF_F_TX_TCP_CKSUM) == RTE_MBUF_F_TX_TCP_CKSUM);
		CHECK(!!(m->ol_flags & RTE_MBUF_F_TX_IPV6) == v6 &&
		      !!(m->ol_flags & RTE_MBUF_F_TX_IPV4) == !v6);
		CHECK(m->l2_len == l2 && m->l3_len == l3 && m->l4_len == l4);
	} else {
		CHECK(!fr->gso);
	}
	/* a flow's bytes leave in stream order (retransmits aside: tests
	 * that send one say so by not looking at disorder) */
	if (out.started[flow] && off != out.next[flow])
		out.disorder = true;
	out.started[flow] = true;
	out.next[flow] = off + fr->bytes;
}

static void
take_all(struct rte_mbuf **pkts, uint16_t n, uint16_t mss)
{
	for (uint16_t i = 0; i < n; i++)
		take(pkts[i], mss);
	rte_pktmbuf_free_bulk(pkts, n);
}

/* Feed segs[0..n) as one burst, then flush what is held. */
static void
feed(const struct vfwd_gro_conf *conf, uint8_t kinds, const struct seg *segs, uint16_t n,
     uint16_t mss)
{
	struct rte_mbuf *pkts[MAX_OUT];
	struct vfwd_gro g;
	uint16_t no;

	CHECK(vfwd_gro_init(&g, conf, 0) == 0);
	for (uint16_t i = 0; i < n; i++)
		pkts[i] = seg_mbuf(&segs[i]);
	no = vfwd_gro_burst(&g, conf, kinds, pkts, n, 0, &st);
	CHECK(no <= n + VFWD_GRO_HOLD_MAX);
	take_all(pkts, no, mss);
	while ((no = vfwd_gro_flush(&g, 0, 0, pkts, MAX_OUT, &st)) > 0)
		take_all(pkts, no, mss);
	CHECK(vfwd_gro_held(&g) == 0);
	vfwd_gro_fini(&g);
}

/* The frames out, as (flow, first segment, segments), in order per flow. */
struct want {
	uint32_t flow;
	uint32_t first;    /* segment index (stream offset / MSS) */
	uint16_t segs;
};

static bool
frames_are(const struct want *w, uint32_t nw)
{
	uint32_t used[MAX_FRAMES] = {0};

	if (out.n != nw) {
		fprintf(stderr, "# %u frames out, %u expected:", out.n, nw);
		for (uint32_t i = 0; i < out.n; i++)
			fprintf(stderr, " [%u %u+%u]", out.f[i].flow, out.f[i].off / MSS,
				out.f[i].segs);
		fprintf(stderr, "\n");
		return false;
	}
	for (uint32_t i = 0; i < nw; i++) {
		bool found = false;

		for (uint32_t j = 0; j < out.n && !found; j++)
			if (!used[j] && out.f[j].flow == w[i].flow &&
			    out.f[j].off == w[i].first * MSS && out.f[j].segs == w[i].segs)
				found = (used[j] = true);
		if (!found) {
			fprintf(stderr, "# no frame [%u %u+%u]\n", w[i].flow, w[i].first, w[i].segs);
			return false;
		}
	}
	return !out.disorder;
}

/* A run of n MSS segments of one flow from segment first; base is a
 * template (shape); ip_id counts with the segment. */
static uint16_t
run_of(struct seg *segs, const struct seg *base, uint32_t first, uint16_t n)
{
	for (uint16_t i = 0; i < n; i++) {
		segs[i] = *base;
		segs[i].off = (first + i) * MSS;
		segs[i].ip_id = (uint16_t)(first + i);
	}
	return n;
}

static void
no_leak(void)
{
	CHECK(rte_mempool_in_use_count(pool) == 0);
}

/* ------------------------------------------------------------- rules */

/* One flow merges up to the 64 KB datagram (45 x 1448 with 40 bytes of
 * headers), then starts the next frame: 100 segments are 45 + 45 + 10. */
static void
one_flow_to_64k(void)
{
	static struct seg segs[100];
	const struct seg base = {.flow = 1, .payload = 1448};

	for (int v6 = 0; v6 < 2; v6++) {
		for (uint16_t i = 0; i < 100; i++) {
			segs[i] = base;
			segs[i].v6 = v6;
			segs[i].off = i * 1448u;
			segs[i].ip_id = i;
		}
		outcome_reset();
		feed(&heavy, KINDS, segs, 100, 1448);
		CHECK(out.n == 3 && out.f[0].segs == 45 && out.f[1].segs == 45 &&
		      out.f[2].segs == 10 && !out.disorder);
		CHECK(out.f[0].bytes == 45 * 1448 && out.f[0].off == 0 &&
		      out.f[1].off == 45 * 1448);
	}
	no_leak();
}

/* PSH joins as the last segment and the frame goes, PSH set on it: PSH
 * every 4th segment makes frames of exactly 4, in light mode as in heavy. */
static void
psh_ends_the_frame(void)
{
	static struct seg segs[32];
	const struct vfwd_gro_conf *confs[] = {&light, &heavy};
	struct want w[8];

	for (int c = 0; c < 2; c++) {
		run_of(segs, &(struct seg){.flow = 3}, 0, 32);
		for (int i = 3; i < 32; i += 4)
			segs[i].flags = RTE_TCP_ACK_FLAG | RTE_TCP_PSH_FLAG;
		for (uint32_t i = 0; i < 8; i++)
			w[i] = (struct want){3, 4 * i, 4};
		outcome_reset();
		feed(confs[c], KINDS, segs, 32, MSS);
		CHECK(frames_are(w, 8));
		for (uint32_t i = 0; i < out.n; i++)
			CHECK(out.f[i].flags == (RTE_TCP_ACK_FLAG | RTE_TCP_PSH_FLAG));
	}
	no_leak();
}

/* FIN, SYN, RST, URG, ECE, CWR on segment 4: segments 0-3 go as one
 * frame before it, it goes alone (flags intact), 5-7 merge after; flow 9,
 * interleaved, is not touched: one frame of 8. */
static void
flags_send_their_flow_first(void)
{
	static const uint8_t flags[] = {RTE_TCP_FIN_FLAG, RTE_TCP_SYN_FLAG, RTE_TCP_RST_FLAG,
					RTE_TCP_URG_FLAG, RTE_TCP_ECE_FLAG, RTE_TCP_CWR_FLAG};
	static struct seg segs[16];
	const struct want w[] = {{5, 0, 4}, {5, 4, 1}, {5, 5, 3}, {9, 0, 8}};

	for (size_t f = 0; f < RTE_DIM(flags); f++) {
		for (uint16_t i = 0; i < 8; i++) {
			run_of(&segs[2 * i], &(struct seg){.flow = 5}, i, 1);
			run_of(&segs[2 * i + 1], &(struct seg){.flow = 9}, i, 1);
		}
		segs[8].flags = RTE_TCP_ACK_FLAG | flags[f];
		outcome_reset();
		feed(&heavy, KINDS, segs, 16, MSS);
		CHECK(frames_are(w, RTE_DIM(w)));
		for (uint32_t i = 0; i < out.n; i++)
			if (out.f[i].flow == 5 && out.f[i].off == 4 * MSS)
				CHECK(out.f[i].flags == (RTE_TCP_ACK_FLAG | flags[f]) &&
				      out.f[i].segs == 1);
	}
	no_leak();
}

/* A header field that differs from the head's at segment 4 ends the frame
 * there; segment 4 starts the next one (tcp_gro_receive and
 * inet/ipv6_gro_receive: the ACK, the window, an option, TTL, TOS, DF,
 * the IPv6 traffic class, flow label and hop limit). */
static void
header_changes_start_a_frame(void)
{
	static struct seg segs[8];
	const struct want w[] = {{2, 0, 4}, {2, 4, 4}};

	for (int change = 0; change < 9; change++) {
		bool v6 = change >= 6;
		struct seg base = {.flow = 2, .v6 = v6, .ts = true, .tsval = 1};

		run_of(segs, &base, 0, 8);
		for (int i = 4; i < 8; i++) {
			switch (change) {
			case 0: segs[i].ack = 8; break;
			case 1: segs[i].win = 1000; break;
			case 2: segs[i].tsval = 2; break;
			case 3: segs[i].ttl = 63; break;
			case 4: segs[i].tos = 4; break;
			case 5: segs[i].no_df = true; break;
			case 6: segs[i].tos = 4; break;
			case 7: segs[i].label = 77; break;
			case 8: segs[i].ttl = 63; break;
			}
		}
		outcome_reset();
		feed(&heavy, KINDS, segs, 8, MSS);
		CHECK(frames_are(w, RTE_DIM(w)));
	}
	no_leak();
}

/* A short segment joins as the last (the end of a write); a longer one
 * than the head's starts a frame; an empty one (pure ACK) sends the flow
 * and passes. */
static void
segment_sizes(void)
{
	static struct seg segs[8];

	run_of(segs, &(struct seg){.flow = 4}, 0, 8);
	segs[3].payload = 400;
	for (int i = 4; i < 8; i++)
		segs[i].off -= 600;
	outcome_reset();
	feed(&heavy, KINDS, segs, 8, MSS);
	CHECK(out.n == 2 && out.f[0].segs == 4 && out.f[0].bytes == 3400 &&
	      out.f[1].off == 3400 && out.f[1].segs == 4 && !out.disorder);

	/* head of 500, then full segments: the head alone, then 4 */
	run_of(segs, &(struct seg){.flow = 4}, 0, 5);
	segs[0].payload = 500;
	for (int i = 1; i < 5; i++)
		segs[i].off = 500 + (i - 1) * MSS;
	outcome_reset();
	feed(&heavy, KINDS, segs, 5, MSS);
	CHECK(out.n == 2 && out.f[0].bytes == 500 && out.f[0].segs == 1 &&
	      out.f[1].segs == 4 && !out.disorder);

	/* a pure ACK in the middle */
	run_of(segs, &(struct seg){.flow = 4}, 0, 8);
	segs[4].empty = true;
	segs[4].off = 4 * MSS;
	for (int i = 5; i < 8; i++)
		segs[i].off = (i - 1) * MSS;
	outcome_reset();
	feed(&heavy, KINDS, segs, 8, MSS);
	CHECK(out.n == 3 && out.f[0].segs == 4 && out.f[1].bytes == 0 && out.f[2].segs == 3);
	no_leak();
}

/* Gaps, a retransmit, a duplicate: nothing joins out of sequence, every
 * segment comes out once, each run merges. */
static void
gaps_and_retransmits(void)
{
	static struct seg segs[12];
	/* 0 1 2 _ 4 5 | 2 again (retransmit) | 6 7 7 8 */
	static const uint8_t order[] = {0, 1, 2, 4, 5, 2, 6, 7, 7, 8};
	uint32_t total = 0;

	for (size_t i = 0; i < RTE_DIM(order); i++)
		run_of(&segs[i], &(struct seg){.flow = 6}, order[i], 1);
	outcome_reset();
	feed(&heavy, KINDS, segs, RTE_DIM(order), MSS);
	/* [0-2] [4-5] [2] [6-7] [7-8]: a duplicate of 7 cannot join 7's
	 * frame, it starts one that 8 joins */
	CHECK(out.n == 5);
	if (out.n == 5)
		CHECK(out.f[0].segs == 3 && out.f[1].off == 4 * MSS && out.f[1].segs == 2 &&
		      out.f[2].off == 2 * MSS && out.f[2].segs == 1 && out.f[3].segs == 2 &&
		      out.f[4].off == 7 * MSS && out.f[4].segs == 2);
	for (uint32_t i = 0; i < out.n; i++)
		total += out.f[i].bytes;
	CHECK(total == RTE_DIM(order) * MSS);
	no_leak();
}

/* IPv4 IDs: counting up joins; one fixed ID joins only with DF (decided
 * at the second segment); a jump ends the frame. */
static void
ipv4_ids(void)
{
	static struct seg segs[6];

	run_of(segs, &(struct seg){.flow = 7}, 0, 6);
	for (int i = 0; i < 6; i++)
		segs[i].ip_id = 500;
	outcome_reset();
	feed(&heavy, KINDS, segs, 6, MSS);
	CHECK(out.n == 1 && out.f[0].segs == 6);

	for (int i = 0; i < 6; i++)
		segs[i].no_df = true;
	outcome_reset();
	feed(&heavy, KINDS, segs, 6, MSS);
	CHECK(out.n == 6 && !out.disorder);

	run_of(segs, &(struct seg){.flow = 7}, 0, 6);
	segs[3].ip_id = 9000;
	segs[4].ip_id = 9001;
	segs[5].ip_id = 9002;
	outcome_reset();
	feed(&heavy, KINDS, segs, 6, MSS);
	CHECK(out.n == 2 && out.f[0].segs == 3 && out.f[1].segs == 3);
	no_leak();
}

/* IPv6 merges as IPv4 does, tagged or not; tags are part of the flow: the
 * same ports and addresses on two VLANs (and untagged) are three flows,
 * merged each. Segments behind IPv4 options or an IPv6 extension header
 * are not merged but keep their flow's order. */
static void
ipv6_and_tags(void)
{
	static struct seg segs[48];
	uint16_t n = 0;

	for (uint16_t i = 0; i < 8; i++) {
		run_of(&segs[n++], &(struct seg){.flow = 8, .v6 = true}, i, 1);
		run_of(&segs[n++], &(struct seg){.flow = 8, .v6 = true, .tags = 1}, i, 1);
		run_of(&segs[n++], &(struct seg){.flow = 8, .v6 = true, .tags = 2}, i, 1);
		run_of(&segs[n++], &(struct seg){.flow = 9, .tags = 1}, i, 1);
	}
	outcome_reset();
	feed(&heavy, KINDS, segs, n, MSS);
	/* per (flow, shape) one frame of 8: take() tracks order by flow id
	 * only, so flow 8's three shapes look interleaved to it */
	CHECK(out.n == 4);
	for (uint32_t i = 0; i < out.n; i++)
		CHECK(out.f[i].segs == 8 && out.f[i].off == 0 && out.f[i].gso);

	for (int v6 = 0; v6 < 2; v6++) {
		run_of(segs, &(struct seg){.flow = 10, .v6 = v6}, 0, 8);
		segs[4].ext = true;
		outcome_reset();
		feed(&heavy, KINDS, segs, 8, MSS);
		CHECK(out.n == 3 && out.f[0].segs == 4 && out.f[1].segs == 1 &&
		      out.f[2].segs == 3 && !out.disorder);
	}
	no_leak();
}

/* Only what the guest takes: TSO4 alone leaves IPv6 unmerged, TSO6 alone
 * IPv4. */
static void
guest_kinds(void)
{
	static struct seg segs[16];

	run_of(segs, &(struct seg){.flow = 11}, 0, 8);
	run_of(&segs[8], &(struct seg){.flow = 12, .v6 = true}, 0, 8);
	outcome_reset();
	feed(&heavy, VFWD_GRO_KIND_TCP4, segs, 16, MSS);
	CHECK(out.n == 9 && !out.disorder);
	outcome_reset();
	feed(&heavy, VFWD_GRO_KIND_TCP6, segs, 16, MSS);
	CHECK(out.n == 9 && !out.disorder);
	no_leak();
}

/* A segment with a bad TCP checksum is not merged (a merged frame goes
 * with NEEDS_CSUM: the guest would not check it), whether the rx port
 * flagged it or vfwd's own check found it: its flow goes first, it goes
 * alone, untouched, for the guest's TCP to drop. A bad head goes alone
 * too, IPv4 and IPv6. A port that said GOOD is believed. */
static void
bad_checksum_not_merged(void)
{
	static struct seg segs[8];
	struct rte_mbuf *pkts[MAX_OUT];
	struct vfwd_gro g;
	uint16_t no;

	for (int how = 0; how < 6; how++) {
		run_of(segs, &(struct seg){.flow = 13, .v6 = how == 2}, 0, 8);
		if ((how > 0 && how < 4) || how == 5)
			segs[how >= 3 ? 0 : 4].bad_csum = true;
		if (how == 5) /* found a bad head: a PSH segment after it goes too */
			segs[1].flags = RTE_TCP_ACK_FLAG | RTE_TCP_PSH_FLAG;
		if (how == 4)
			for (int i = 0; i < 8; i++)
				segs[i].bad_csum = true;
		CHECK(vfwd_gro_init(&g, &heavy, 0) == 0);
		for (int i = 0; i < 8; i++) {
			pkts[i] = seg_mbuf(&segs[i]);
			if (how == 4)
				pkts[i]->ol_flags |= RTE_MBUF_F_RX_L4_CKSUM_GOOD;
		}
		if (how == 0)
			pkts[4]->ol_flags |= RTE_MBUF_F_RX_L4_CKSUM_BAD;
		outcome_reset();
		no = vfwd_gro_burst(&g, &heavy, KINDS, pkts, 8, 0, &st);
		take_all(pkts, no, MSS);
		no = vfwd_gro_flush(&g, 0, 0, pkts, MAX_OUT, &st);
		take_all(pkts, no, MSS);
		if (how == 3)
			CHECK(out.n == 2 && out.f[0].segs == 1 && out.f[1].segs == 7);
		else if (how == 5)
			CHECK(out.n == 3 && out.f[0].segs == 1 && out.f[1].segs == 1 &&
			      out.f[2].segs == 6);
		else if (how == 4)
			CHECK(out.n == 1 && out.f[0].segs == 8);
		else
			CHECK(out.n == 3 && out.f[0].segs == 4 && out.f[1].segs == 1 &&
			      out.f[2].segs == 3);
		CHECK(!out.disorder);
		vfwd_gro_fini(&g);
	}
	no_leak();
}

/* vfwd's own TCP checksum over every way its vector loops end (payloads
 * of 1 to 200 bytes, and MSS-sized ones) and at the alignments tags and
 * IPv6 give the headers: right, two segments merge; one payload byte of
 * the second flipped (its first, middle or last), that one goes alone. */
static void
checksum_every_length(void)
{
	static const uint16_t big[] = {1000, 1427, 1428, 1447, 1448};
	struct rte_mbuf *pkts[MAX_OUT];
	struct vfwd_gro g;

	CHECK(vfwd_gro_init(&g, &heavy, 0) == 0);
	for (uint32_t n = 0; n < 200 + RTE_DIM(big); n++) {
		uint16_t len = n < 200 ? (uint16_t)(n + 1) : big[n - 200];

		for (uint8_t tags = 0; tags <= 2; tags++) {
			for (int v6 = 0; v6 < 2; v6++) {
				for (int flip = -1; flip < 3; flip++) {
					struct seg a = {.flow = 21, .payload = len, .tags = tags,
							.v6 = v6};
					struct seg b = a;
					uint16_t no;

					b.off = len;
					b.ip_id = 1;
					pkts[0] = seg_mbuf(&a);
					pkts[1] = seg_mbuf(&b);
					if (flip >= 0) {
						uint32_t at = flip == 0 ? 0u
							      : flip == 1 ? len / 2u : len - 1u;

						*rte_pktmbuf_mtod_offset(pkts[1], uint8_t *,
									 rte_pktmbuf_pkt_len(pkts[1]) -
										 len + at) ^= 0x01;
					}
					no = vfwd_gro_burst(&g, &heavy, KINDS, pkts, 2, 0, &st);
					no += vfwd_gro_flush(&g, 0, 0, pkts + no, MAX_OUT - no, &st);
					if (flip < 0)
						CHECK(no == 1 && pkts[0]->nb_segs == 2 &&
						      rte_pktmbuf_pkt_len(pkts[0]) ==
							      rte_pktmbuf_data_len(pkts[0]) + len);
					else
						CHECK(no == 2 && pkts[0]->nb_segs == 1 &&
						      pkts[1]->nb_segs == 1);
					rte_pktmbuf_free_bulk(pkts, no);
				}
			}
		}
	}
	vfwd_gro_fini(&g);
	no_leak();
}

/* m's bytes from at on moved to a second mbuf chained to it. */
static struct rte_mbuf *
chained_at(struct rte_mbuf *m, uint32_t at)
{
	struct rte_mbuf *t = rte_pktmbuf_alloc(pool);
	uint32_t rest = rte_pktmbuf_pkt_len(m) - at;

	RTE_VERIFY(t != NULL && rest <= rte_pktmbuf_tailroom(t));
	memcpy(rte_pktmbuf_append(t, (uint16_t)rest), rte_pktmbuf_mtod_offset(m, uint8_t *, at),
	       rest);
	rte_pktmbuf_trim(m, (uint16_t)rest);
	RTE_VERIFY(rte_pktmbuf_chain(m, t) == 0);
	return m;
}

/* Segments that came as chains (a jumbo MTU through net_memif or rx
 * scatter), cut at an odd offset into the payload: the checksum is summed
 * over the chain. Right, the run merges whole; one wrong, it goes alone
 * between the two halves, IPv4 and IPv6. */
static void
chained_segments_checksummed(void)
{
	static struct seg segs[8];
	struct rte_mbuf *pkts[MAX_OUT];
	struct vfwd_gro g;
	uint16_t no;

	chained_input = true;
	for (int how = 0; how < 3; how++) {
		run_of(segs, &(struct seg){.flow = 15, .v6 = how == 2}, 0, 8);
		segs[4].bad_csum = how > 0;
		CHECK(vfwd_gro_init(&g, &heavy, 0) == 0);
		for (int i = 0; i < 8; i++) {
			pkts[i] = chained_at(seg_mbuf(&segs[i]), 14 + 40 + 20 + 301);
			CHECK(pkts[i]->nb_segs == 2);
		}
		outcome_reset();
		no = vfwd_gro_burst(&g, &heavy, KINDS, pkts, 8, 0, &st);
		take_all(pkts, no, MSS);
		no = vfwd_gro_flush(&g, 0, 0, pkts, MAX_OUT, &st);
		take_all(pkts, no, MSS);
		if (how == 0)
			CHECK(out.n == 1 && out.f[0].bytes == 8 * MSS && out.f[0].gso);
		else
			CHECK(out.n == 3 && out.f[0].bytes == 4 * MSS && out.f[1].bytes == MSS &&
			      !out.f[1].gso && out.f[2].bytes == 3 * MSS);
		CHECK(!out.disorder);
		vfwd_gro_fini(&g);
	}
	chained_input = false;
	no_leak();
}

/* Short frames padded to 60 bytes merge with the padding cut. */
static void
padded_segments(void)
{
	static struct seg segs[6];

	for (uint16_t i = 0; i < 6; i++)
		segs[i] = (struct seg){.flow = 14, .off = i * 4u, .payload = 4, .pad = 2,
				       .ip_id = i};
	outcome_reset();
	feed(&heavy, KINDS, segs, 6, 4);
	CHECK(out.n == 1 && out.f[0].segs == 6 && out.f[0].bytes == 24);
	no_leak();
}

/* 8 flows interleaved merge as one does; 512 flows of two interleaved all
 * merge into pairs (max 1024 flows); 1024 flows of 4, interleaved, are
 * more than the hold budget: every byte out once, in order, nothing held
 * past VFWD_GRO_HOLD_MAX, the output within the caller's array. */
static void
many_flows(void)
{
	static struct seg segs[4096];
	const struct vfwd_gro_conf wide = {.enabled = true, .mode = VFWD_GRO_HEAVY,
					   .max_flows = VFWD_GRO_MAX_FLOWS, .flush_us = 100};
	struct rte_mbuf *pkts[MAX_OUT];
	struct vfwd_gro g;
	uint64_t bytes = 0;
	uint16_t n = 0;

	for (uint16_t i = 0; i < 32; i++)
		for (uint32_t f = 0; f < 8; f++)
			run_of(&segs[n++], &(struct seg){.flow = f}, i, 1);
	outcome_reset();
	feed(&heavy, KINDS, segs, n, MSS);
	CHECK(out.n == 8 && !out.disorder);
	for (uint32_t i = 0; i < out.n; i++)
		CHECK(out.f[i].segs == 32);

	CHECK(vfwd_gro_init(&g, &wide, 0) == 0);
	outcome_reset();
	for (uint32_t round = 0; round < 2; round++)
		for (uint32_t base = 0; base < 512; base += 256) {
			uint16_t no;

			for (uint32_t f = 0; f < 256; f++) {
				run_of(&segs[f], &(struct seg){.flow = base + f}, round, 1);
				pkts[f] = seg_mbuf(&segs[f]);
			}
			no = vfwd_gro_burst(&g, &wide, KINDS, pkts, 256, 0, &st);
			take_all(pkts, no, MSS);
		}
	for (uint16_t no; (no = vfwd_gro_flush(&g, 0, 0, pkts, MAX_OUT, &st)) > 0;)
		take_all(pkts, no, MSS);
	CHECK(out.n == 512 && !out.disorder);
	for (uint32_t i = 0; i < out.n; i++)
		CHECK(out.f[i].segs == 2);

	outcome_reset();
	for (uint32_t round = 0; round < 4; round++)
		for (uint32_t base = 0; base < 1024; base += 512) {
			uint16_t no;

			for (uint32_t f = 0; f < 512; f++) {
				run_of(&segs[f], &(struct seg){.flow = base + f}, round, 1);
				pkts[f] = seg_mbuf(&segs[f]);
			}
			no = vfwd_gro_burst(&g, &wide, KINDS, pkts, 512, 0, &st);
			CHECK(no <= 512 + VFWD_GRO_HOLD_MAX);
			CHECK(vfwd_gro_held(&g) <= VFWD_GRO_HOLD_MAX);
			take_all(pkts, no, MSS);
		}
	for (uint16_t no; (no = vfwd_gro_flush(&g, 0, 0, pkts, MAX_OUT, &st)) > 0;)
		take_all(pkts, no, MSS);
	for (uint32_t i = 0; i < out.n; i++)
		bytes += out.f[i].bytes;
	CHECK(bytes == 4096ull * MSS && !out.disorder);
	CHECK(vfwd_gro_held(&g) == 0);
	vfwd_gro_fini(&g);
	no_leak();
}

/* The flush timeout: what waited less stays, oldest flows go first. */
static void
flush_timeout_oldest_first(void)
{
	struct rte_mbuf *pkts[MAX_OUT];
	struct seg s;
	struct vfwd_gro g;
	uint16_t no;

	CHECK(vfwd_gro_init(&g, &heavy, 0) == 0);
	outcome_reset();
	for (uint32_t f = 0; f < 3; f++) {
		run_of(&s, &(struct seg){.flow = 20 + f}, 0, 1);
		pkts[0] = seg_mbuf(&s);
		CHECK(vfwd_gro_burst(&g, &heavy, KINDS, pkts, 1, 1000 * (f + 1), &st) == 0);
	}
	CHECK(vfwd_gro_held(&g) == 3);
	no = vfwd_gro_flush(&g, 1500, 2600, pkts, MAX_OUT, &st);
	CHECK(no == 1 && vfwd_gro_held(&g) == 2);
	take_all(pkts, no, MSS);
	CHECK(out.n == 1 && out.f[0].flow == 20);
	no = vfwd_gro_flush(&g, 0, 2600, pkts, MAX_OUT, &st);
	CHECK(no == 2 && vfwd_gro_held(&g) == 0);
	take_all(pkts, no, MSS);
	vfwd_gro_fini(&g);
	no_leak();
}

/* Switching engines under held segments: what one held goes before what
 * the other is given, order kept. */
static void
engine_switch_keeps_order(void)
{
	struct vfwd_gro_conf dpdk = heavy;
	struct rte_mbuf *pkts[MAX_OUT];
	static struct seg segs[8];
	struct vfwd_gro g;
	uint16_t no;

	dpdk.engine = VFWD_GRO_ENGINE_DPDK;
	run_of(segs, &(struct seg){.flow = 30}, 0, 8);
	CHECK(vfwd_gro_init(&g, &heavy, 0) == 0);
	outcome_reset();
	for (int i = 0; i < 4; i++)
		pkts[i] = seg_mbuf(&segs[i]);
	no = vfwd_gro_burst(&g, &heavy, KINDS, pkts, 4, 0, &st);
	take_all(pkts, no, MSS);
	CHECK(vfwd_gro_held(&g) == 1);
	for (int i = 0; i < 4; i++)
		pkts[i] = seg_mbuf(&segs[4 + i]);
	no = vfwd_gro_burst(&g, &dpdk, KINDS, pkts, 4, 0, &st);
	take_all(pkts, no, MSS);
	for (uint16_t k; (k = vfwd_gro_flush(&g, 0, 0, pkts, MAX_OUT, &st)) > 0;)
		take_all(pkts, k, MSS);
	CHECK(out.n == 2 && out.f[0].segs == 4 && out.f[1].off == 4 * MSS &&
	      out.f[1].segs == 4 && !out.disorder);
	vfwd_gro_fini(&g);
	no_leak();
}

int
main(int argc, char **argv)
{
	(void)argc;
	if (unit_eal_init(argv[0], "gro", &pool, &indirect_pool) != 0)
		return 1;

	RUN(one_flow_to_64k);
	RUN(psh_ends_the_frame);
	RUN(flags_send_their_flow_first);
	RUN(header_changes_start_a_frame);
	RUN(segment_sizes);
	RUN(gaps_and_retransmits);
	RUN(ipv4_ids);
	RUN(ipv6_and_tags);
	RUN(guest_kinds);
	RUN(bad_checksum_not_merged);
	RUN(checksum_every_length);
	RUN(chained_segments_checksummed);
	RUN(padded_segments);
	RUN(many_flows);
	RUN(flush_timeout_oldest_first);
	RUN(engine_switch_keeps_order);
	unit_eal_fini();
	return CHECK_DONE();
}
