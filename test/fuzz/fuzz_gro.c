/* SPDX-License-Identifier: BSD-3-Clause
 *
 * libFuzzer target over vfwd's GRO engine (--gro-engine vfwd). The input
 * is a program of TCP segments on four flows (IPv4 or IPv6, up to two
 * tags, timestamps), each with the fuzzer's flags, size, sequence step
 * (next, again, a gap, anywhere) and header changes, cut into bursts with
 * flushes between them; or raw frames. What comes out is checked against
 * what went in, from a copy of every frame taken before GRO saw it; a
 * broken promise aborts with its name:
 *
 *   gro-once      every frame in comes out exactly once, in one packet (a
 *                 merged packet is frames chained whole, each mbuf of
 *                 them, in order); nothing is held after the last flush;
 *                 each call's output fits n + VFWD_GRO_HOLD_MAX
 *   gro-order     per flow (L2 header, addresses, ports) the frames leave
 *                 in the order they came: its bytes out are its bytes in
 *   gro-alone     a packet of one frame is that frame, byte for byte
 *   gro-merged    a packet of several frames: one flow, sequence numbers
 *                 that follow each other, all but the last exactly the
 *                 first's payload and the last no more, none with FIN,
 *                 SYN, RST, URG, ECE or CWR and only the last with PSH
 *                 (no frame crosses a PSH or a FIN), the ACK, window,
 *                 options, TTL/TOS/DF or traffic class/flow label/hop
 *                 limit the first's, at most 64 KB of IP; it carries the
 *                 first frame's headers but for the IP length, checksums
 *                 and PSH, then the payloads concatenated; GSO marks for
 *                 the guest (TX_TCP_SEG, TX_IPV4/6, TX_TCP_CKSUM,
 *                 tso_segsz the first payload, the pseudo-header sum in
 *                 the TCP checksum, the IPv4 header checksum right)
 *   gro-csum      every frame merged had a right TCP checksum, or the
 *                 port said so (a merged frame goes to the guest with
 *                 NEEDS_CSUM: it would not check)
 *   gro-kinds     only kinds the guest takes are merged
 *   gro-stats     packets out = frames in - (gro_in - gro_out); every
 *                 merged packet counted in gro_merged
 *   leaks         every mbuf back in the pool
 *
 * Input: [conf] then records of 8 bytes (see seg_record). conf: 0x01
 * heavy (else light), 0x02 guest takes TSO4, 0x04 TSO6, 0x08 4 flows in
 * the table (else 64).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_tcp.h>

#include "fuzz_check.h"
#include "vfwd.h"
#include "vfwd_compat.h"

#define FUZZ_TARGET "fuzz_gro"

#define MAX_FRAMES 128
#define MAX_FRAME_LEN 1700
#define MAX_OUT (VFWD_MAX_BURST + VFWD_GRO_HOLD_MAX)
#define NFLOWS 4
#define NO_HOLD (RTE_TCP_FIN_FLAG | RTE_TCP_SYN_FLAG | RTE_TCP_RST_FLAG | RTE_TCP_URG_FLAG | \
		 RTE_TCP_ECE_FLAG | RTE_TCP_CWR_FLAG)

static struct rte_mempool *pool;
static struct vfwd_gro gro_wide, gro_narrow;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const struct vfwd_gro_conf wide = {.max_flows = 64}, narrow = {.max_flows = 4};

	(void)argc;
	fuzz_eal_init((*argv)[0], "fuzz-gro");
	pool = rte_pktmbuf_pool_create("f_pool", 4095, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	if (pool == NULL || vfwd_gro_init(&gro_wide, &wide, 0) != 0 ||
	    vfwd_gro_init(&gro_narrow, &narrow, 0) != 0)
		abort();
	return 0;
}

/* ------------------------------------------------------------ frames in */

/* What the checker knows of a frame in. */
struct frame_in {
	uint8_t bytes[MAX_FRAME_LEN];
	uint16_t len;
	struct rte_mbuf *mbufs[4];  /* the chain as given */
	uint8_t nb_mbufs;
	int flow;                   /* index into keys[], -1: no TCP flow */
	bool v6, kind_ok;
	bool port_good;             /* the port said the checksum is good */
	uint32_t seq;
	uint16_t l2, l3, l4, ip_len, payload;
	uint8_t flags;
	int out_pkt;                /* the packet out it went in, -1: not yet */
	int out_pos;                /* its place in that packet */
};

static struct frame_in in[MAX_FRAMES];
static uint8_t keys[MAX_FRAMES][80];
static uint16_t key_len[MAX_FRAMES];
static int nkeys;

struct flow_state {
	uint32_t seq, ack, tsval;
	uint16_t id, win, last_payload;
	uint8_t ttl, tos;
};

static void
put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static uint8_t
stream_byte(uint32_t flow, uint32_t seq)
{
	return (uint8_t)(seq * 7 + flow * 13 + (seq >> 8));
}

/* A record: [shape][tcp flags][len lo][len hi][seq][changes][cut][extra]
 * shape: 0x03 flow, 0x04 IPv6, 0x18 tags (0..2, 3: raw frame of len bytes
 *   from the record's extra byte onward, taken from the input), 0x20
 *   timestamps, 0x40 IPv4 options / IPv6 hop-by-hop, 0x80 two mbufs
 * seq: 0 next, 1 the last segment again, 2 a gap of a segment, else
 *   anywhere (seq * 977)
 * changes: 0x01 IP ID jumps, 0x02 TTL/hop limit, 0x04 ACK, 0x08 window,
 *   0x10 TSval, 0x20 no DF (IPv4) / flow label (IPv6), 0x40 bad checksum
 *   flag from the port, 0x80 Ethernet padding
 * cut: 0x01 the burst ends after it, 0x02 then a timed flush, 0x04 TOS
 * extra: 0x01 a wrong TCP checksum, 0x02 the port says it is good */
static uint16_t
build(uint8_t *f, const uint8_t *r, struct flow_state *fs, uint32_t flow)
{
	uint8_t shape = r[0], changes = r[5];
	uint16_t payload = (uint16_t)((r[2] | r[3] << 8) % 1449);
	bool v6 = shape & 0x04, ts = shape & 0x20, ext = shape & 0x40;
	uint32_t tags = (shape >> 3) & 3;
	uint32_t l2 = 14 + 4 * tags, l3 = v6 ? 40 + (ext ? 8 : 0) : 20 + (ext ? 4 : 0);
	uint32_t l4 = 20 + (ts ? 12 : 0), pad = (changes & 0x80) ? 3 : 0;
	uint32_t seq;
	uint16_t len = (uint16_t)(l2 + l3 + l4 + payload + pad);
	struct rte_tcp_hdr *th;
	uint8_t *p;

	switch (r[4]) {
	case 0: seq = fs->seq; break;
	case 1: seq = fs->seq - fs->last_payload; break;
	case 2: seq = fs->seq + 1000; break;
	default: seq = r[4] * 977u; break;
	}
	fs->id += (changes & 0x01) ? 100 : 1;
	fs->ttl ^= (changes & 0x02) ? 1 : 0;
	fs->ack += (changes & 0x04) ? 1 : 0;
	fs->win ^= (changes & 0x08) ? 0x100 : 0;
	fs->tsval += (changes & 0x10) ? 1 : 0;
	fs->tos ^= (r[6] & 0x04) ? 4 : 0;
	memset(f, 0, len);
	f[0] = 2;
	f[6] = 2;
	f[11] = 1;
	p = f + 12;
	for (uint32_t t = 0; t < tags; t++, p += 4) {
		put16(p, t ? RTE_ETHER_TYPE_QINQ : RTE_ETHER_TYPE_VLAN);
		put16(p + 2, (uint16_t)(10 + t));
	}
	put16(p, v6 ? RTE_ETHER_TYPE_IPV6 : RTE_ETHER_TYPE_IPV4);
	th = (void *)(f + l2 + l3);
	if (v6) {
		struct rte_ipv6_hdr *ip = (void *)(f + l2);

		ip->vtc_flow = rte_cpu_to_be_32(6u << 28 | (uint32_t)fs->tos << 20 |
						((changes & 0x20) ? 5 : 0));
		ip->payload_len = rte_cpu_to_be_16(l3 - 40 + l4 + payload);
		ip->proto = ext ? IPPROTO_HOPOPTS : IPPROTO_TCP;
		ip->hop_limits = fs->ttl;
		VFWD_IP6_SRC(ip)[0] = 0x20;
		VFWD_IP6_SRC(ip)[15] = 1;
		VFWD_IP6_DST(ip)[0] = 0x20;
		VFWD_IP6_DST(ip)[15] = 2;
		if (ext)
			f[l2 + 40] = IPPROTO_TCP;
	} else {
		struct rte_ipv4_hdr *ip = (void *)(f + l2);

		ip->version_ihl = (uint8_t)(0x40 | (l3 / 4));
		ip->type_of_service = fs->tos;
		ip->total_length = rte_cpu_to_be_16(l3 + l4 + payload);
		ip->packet_id = rte_cpu_to_be_16(fs->id);
		ip->fragment_offset = (changes & 0x20) ? 0 : rte_cpu_to_be_16(RTE_IPV4_HDR_DF_FLAG);
		ip->time_to_live = fs->ttl;
		ip->next_proto_id = IPPROTO_TCP;
		ip->src_addr = rte_cpu_to_be_32(0xc6120001);
		ip->dst_addr = rte_cpu_to_be_32(0xc6130001);
		if (ext)
			f[l2 + 20] = 1;
		ip->hdr_checksum = rte_ipv4_cksum(ip);
	}
	th->src_port = rte_cpu_to_be_16(1024 + flow);
	th->dst_port = rte_cpu_to_be_16(5201);
	th->sent_seq = rte_cpu_to_be_32(seq);
	th->recv_ack = rte_cpu_to_be_32(fs->ack);
	th->data_off = (uint8_t)((l4 / 4) << 4);
	th->tcp_flags = r[1];
	th->rx_win = rte_cpu_to_be_16(fs->win);
	if (ts) {
		uint8_t *o = (uint8_t *)(th + 1);

		o[0] = 1;
		o[1] = 1;
		o[2] = 8;
		o[3] = 10;
		put16(o + 4, (uint16_t)(fs->tsval >> 16));
		put16(o + 6, (uint16_t)fs->tsval);
	}
	for (uint32_t i = 0; i < payload; i++)
		f[l2 + l3 + l4 + i] = stream_byte(flow, seq + i);
	if (v6)
		th->cksum = ext ? 0 : rte_ipv6_udptcp_cksum((const void *)(f + l2), th);
	else
		th->cksum = rte_ipv4_udptcp_cksum((const void *)(f + l2), th);
	if (r[7] & 1)
		th->cksum ^= 0x0400; /* wrong, and the port did not look */
	fs->seq = seq + payload;
	fs->last_payload = payload;
	return len;
}

/* The frame as a chain of nseg mbufs, the first holding the headers. */
static struct rte_mbuf *
to_mbufs(struct frame_in *fi, unsigned int nseg)
{
	uint16_t first = nseg == 1 || fi->len < 200 ? fi->len : (uint16_t)(fi->len - 100);
	struct rte_mbuf *head = NULL, *prev = NULL;
	uint16_t done = 0;

	fi->nb_mbufs = 0;
	while (done < fi->len || head == NULL) {
		struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
		uint16_t n = done == 0 ? first : (uint16_t)(fi->len - done);

		if (m == NULL)
			abort();
		memcpy(rte_pktmbuf_append(m, n), fi->bytes + done, n);
		fi->mbufs[fi->nb_mbufs++] = m;
		if (head == NULL) {
			head = m;
		} else {
			prev->next = m;
			head->nb_segs++;
			head->pkt_len += n;
		}
		prev = m;
		done += n;
	}
	return head;
}

/* Type the frame as the engine will (vfwd_parse, idempotent) and name its
 * flow: the L2 header, the addresses, the ports. */
static void
know(struct frame_in *fi, struct rte_mbuf *m, uint8_t kinds)
{
	enum vfwd_parse kind = vfwd_parse(m);
	uint8_t key[80];
	uint16_t kl = 0;

	fi->flow = -1;
	fi->out_pkt = -1;
	fi->kind_ok = false;
	if (kind != VFWD_PARSE_TCP4 && kind != VFWD_PARSE_TCP6)
		return;
	fi->v6 = kind == VFWD_PARSE_TCP6;
	fi->kind_ok = kinds & (fi->v6 ? VFWD_GRO_KIND_TCP6 : VFWD_GRO_KIND_TCP4);
	fi->l2 = m->l2_len;
	fi->l3 = m->l3_len;
	fi->l4 = m->l4_len;
	memcpy(key, fi->bytes, fi->l2);
	kl = fi->l2;
	key[kl++] = fi->v6;
	if (fi->v6) {
		memcpy(key + kl, fi->bytes + fi->l2 + 8, 32);
		kl += 32;
		fi->ip_len = 40 + (fi->bytes[fi->l2 + 4] << 8 | fi->bytes[fi->l2 + 5]);
	} else {
		memcpy(key + kl, fi->bytes + fi->l2 + 12, 8);
		kl += 8;
		fi->ip_len = fi->bytes[fi->l2 + 2] << 8 | fi->bytes[fi->l2 + 3];
	}
	memcpy(key + kl, fi->bytes + fi->l2 + fi->l3, 4);
	kl += 4;
	for (int k = 0; k < nkeys && fi->flow < 0; k++)
		if (key_len[k] == kl && memcmp(keys[k], key, kl) == 0)
			fi->flow = k;
	if (fi->flow < 0) {
		memcpy(keys[nkeys], key, kl);
		key_len[nkeys] = kl;
		fi->flow = nkeys++;
	}
	{
		const uint8_t *t = fi->bytes + fi->l2 + fi->l3;

		fi->seq = (uint32_t)t[4] << 24 | t[5] << 16 | t[6] << 8 | t[7];
		fi->flags = t[13];
	}
	fi->payload = (uint16_t)(fi->ip_len - fi->l3 - fi->l4);
}

/* ------------------------------------------------------------ packets out */

static int
frame_of(const struct rte_mbuf *m, int nin)
{
	for (int i = 0; i < nin; i++)
		if (in[i].mbufs[0] == m)
			return i;
	return -1;
}

/* The frame's TCP checksum verifies, from the copy taken before GRO. */
static bool
tcp_csum_right(const struct frame_in *fi)
{
	static uint8_t copy[MAX_FRAME_LEN];
	const void *ip;
	void *th;

	memcpy(copy, fi->bytes, fi->len);
	ip = copy + fi->l2;
	th = copy + fi->l2 + fi->l3;
	if (fi->v6)
		return rte_ipv6_udptcp_cksum_verify(ip, th) == 0;
	return rte_ipv4_udptcp_cksum_verify(ip, th) == 0;
}

static void
check_merged(const struct rte_mbuf *m, const int *parts, int np)
{
	static uint8_t buf[70000];
	const struct frame_in *h = &in[parts[0]];
	uint32_t len = rte_pktmbuf_pkt_len(m), hdrs = h->l2 + h->l3 + h->l4, at = hdrs;
	const uint8_t *p = rte_pktmbuf_read(m, 0, len, buf);
	const uint8_t *th, *hth = h->bytes + h->l2 + h->l3;

	INVARIANT("gro-merged", p != NULL && h->kind_ok && h->flow >= 0);
	INVARIANT("gro-merged", len - h->l2 <= VFWD_GRO_MAX_IP_LEN);
	th = p + h->l2 + h->l3;
	for (int j = 0; j < np; j++) {
		const struct frame_in *s = &in[parts[j]];
		const uint8_t *sth = s->bytes + s->l2 + s->l3;

		INVARIANT("gro-merged", s->flow == h->flow && s->v6 == h->v6 && s->l3 == h->l3 &&
			  s->l4 == h->l4);
		INVARIANT("gro-merged", !(s->flags & NO_HOLD) &&
			  (j == np - 1 || !(s->flags & RTE_TCP_PSH_FLAG)));
		INVARIANT("gro-merged", s->payload > 0 && s->payload <= h->payload &&
			  (j == np - 1 || s->payload == h->payload));
		INVARIANT("gro-csum", s->port_good || tcp_csum_right(s));
		if (j > 0) {
			const struct frame_in *prev = &in[parts[j - 1]];

			INVARIANT("gro-merged", s->seq == prev->seq + prev->payload);
			/* ACK; offset, flags but PSH, window; options */
			INVARIANT("gro-merged", memcmp(sth + 8, hth + 8, 4) == 0 &&
				  sth[12] == hth[12] &&
				  ((sth[13] ^ hth[13]) & ~RTE_TCP_PSH_FLAG) == 0 &&
				  memcmp(sth + 14, hth + 14, 2) == 0 &&
				  memcmp(sth + 20, hth + 20, h->l4 - 20) == 0);
			if (h->v6)
				INVARIANT("gro-merged", memcmp(s->bytes + s->l2, h->bytes + h->l2, 4) == 0 &&
					  s->bytes[s->l2 + 7] == h->bytes[h->l2 + 7]);
			else
				INVARIANT("gro-merged", s->bytes[s->l2 + 1] == h->bytes[h->l2 + 1] &&
					  s->bytes[s->l2 + 8] == h->bytes[h->l2 + 8] &&
					  ((s->bytes[s->l2 + 6] ^ h->bytes[h->l2 + 6]) & 0x40) == 0);
		}
		INVARIANT("gro-merged", at + s->payload <= len &&
			  memcmp(p + at, s->bytes + s->l2 + s->l3 + s->l4, s->payload) == 0);
		at += s->payload;
	}
	INVARIANT("gro-merged", at == len);
	/* the first frame's headers but for lengths, checksums and PSH */
	INVARIANT("gro-merged", memcmp(p, h->bytes, h->l2) == 0 &&
		  memcmp(th + 4, hth + 4, 9) == 0 &&
		  ((th[13] ^ hth[13]) & ~RTE_TCP_PSH_FLAG) == 0 &&
		  !!(th[13] & RTE_TCP_PSH_FLAG) == !!(in[parts[np - 1]].flags & RTE_TCP_PSH_FLAG) &&
		  memcmp(th + 14, hth + 14, 2) == 0 && memcmp(th + 20, hth + 20, h->l4 - 20) == 0);
	INVARIANT("gro-merged", m->ol_flags & RTE_MBUF_F_TX_TCP_SEG &&
		  (m->ol_flags & RTE_MBUF_F_TX_TCP_CKSUM) == RTE_MBUF_F_TX_TCP_CKSUM &&
		  m->tso_segsz == h->payload && m->l2_len == h->l2 && m->l3_len == h->l3 &&
		  m->l4_len == h->l4);
	if (h->v6) {
		const struct rte_ipv6_hdr *ip = (const void *)(p + h->l2);

		INVARIANT("gro-merged", (m->ol_flags & RTE_MBUF_F_TX_IPV6) &&
			  memcmp(p + h->l2, h->bytes + h->l2, 4) == 0 &&
			  memcmp(p + h->l2 + 6, h->bytes + h->l2 + 6, 34) == 0 &&
			  40u + rte_be_to_cpu_16(ip->payload_len) == len - h->l2 &&
			  ((const struct rte_tcp_hdr *)th)->cksum == rte_ipv6_phdr_cksum(ip, 0));
	} else {
		const struct rte_ipv4_hdr *ip = (const void *)(p + h->l2);
		struct rte_ipv4_hdr copy = *ip;

		copy.hdr_checksum = 0;
		INVARIANT("gro-merged", (m->ol_flags & RTE_MBUF_F_TX_IPV4) &&
			  rte_be_to_cpu_16(ip->total_length) == len - h->l2 &&
			  rte_ipv4_cksum(&copy) == ip->hdr_checksum &&
			  memcmp(p + h->l2 + 4, h->bytes + h->l2 + 4, 6) == 0 &&
			  memcmp(p + h->l2 + 12, h->bytes + h->l2 + 12, 8) == 0 &&
			  ((const struct rte_tcp_hdr *)th)->cksum == rte_ipv4_phdr_cksum(ip, 0));
	}
}

/* Which frames each packet out holds, then every promise. */
static void
check_out(struct rte_mbuf **outs, int nout, int nin, const struct vfwd_dir_stats *st)
{
	static int parts[MAX_FRAMES];
	int last_in_flow[MAX_FRAMES];
	uint64_t merged = 0;

	for (int k = 0; k < nkeys; k++)
		last_in_flow[k] = -1;
	for (int o = 0; o < nout; o++) {
		const struct rte_mbuf *m = outs[o];
		const struct rte_mbuf *s = m;
		int np = 0;

		/* whole frames, chained in order, each mbuf of each */
		while (s != NULL) {
			int i = frame_of(s, nin);

			INVARIANT("gro-once", i >= 0 && in[i].out_pkt < 0 && np < MAX_FRAMES);
			in[i].out_pkt = o;
			in[i].out_pos = np;
			parts[np++] = i;
			for (int j = 0; j < in[i].nb_mbufs; j++) {
				INVARIANT("gro-once", s == in[i].mbufs[j]);
				s = s->next;
			}
		}
		{
			int mbufs = 0;

			for (int j = 0; j < np; j++)
				mbufs += in[parts[j]].nb_mbufs;
			INVARIANT("gro-once", m->nb_segs == mbufs);
		}
		for (int j = 0; j < np; j++) {
			int f = in[parts[j]].flow;

			if (f >= 0) {
				INVARIANT("gro-order", parts[j] > last_in_flow[f]);
				last_in_flow[f] = parts[j];
			}
		}
		if (np == 1) {
			static uint8_t buf[MAX_FRAME_LEN];
			const struct frame_in *fi = &in[parts[0]];
			const uint8_t *p = rte_pktmbuf_read(m, 0, fi->len, buf);

			INVARIANT("gro-alone", rte_pktmbuf_pkt_len(m) == fi->len && p != NULL &&
				  memcmp(p, fi->bytes, fi->len) == 0 &&
				  !(m->ol_flags & RTE_MBUF_F_TX_TCP_SEG));
		} else {
			INVARIANT("gro-kinds", in[parts[0]].kind_ok);
			check_merged(m, parts, np);
			merged++;
		}
	}
	for (int i = 0; i < nin; i++)
		INVARIANT("gro-once", in[i].out_pkt >= 0);
	INVARIANT("gro-stats", (uint64_t)nout == nin - (st->gro_in - st->gro_out) &&
		  st->gro_merged == merged);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct rte_mbuf *outs[MAX_FRAMES + VFWD_GRO_HOLD_MAX];
	struct rte_mbuf *pkts[MAX_OUT], *fl[MAX_OUT];
	struct flow_state fs[NFLOWS];
	struct vfwd_dir_stats st;
	struct vfwd_gro_conf conf = {.enabled = true, .engine = VFWD_GRO_ENGINE_VFWD,
				     .flush_us = 1};
	struct vfwd_gro *g;
	uint8_t kinds;
	int nin = 0, nout = 0, nb = 0;
	uint64_t now = 1000;
	size_t at = 1;

	if (size < 1)
		return 0;
	conf.mode = (data[0] & 1) ? VFWD_GRO_HEAVY : VFWD_GRO_LIGHT;
	kinds = (uint8_t)(((data[0] & 2) ? VFWD_GRO_KIND_TCP4 : 0) |
			  ((data[0] & 4) ? VFWD_GRO_KIND_TCP6 : 0));
	g = (data[0] & 8) ? &gro_narrow : &gro_wide;
	conf.max_flows = (data[0] & 8) ? 4 : 64;
	/* each input afresh: the many-flows bypass would skip most of them */
	g->win_bursts = 0;
	g->win_in = g->win_out = 0;
	g->bypass_left = 0;
	memset(&st, 0, sizeof(st));
	nkeys = 0;
	for (int f = 0; f < NFLOWS; f++)
		fs[f] = (struct flow_state){.seq = 1000u * f, .ack = 7, .win = 65535, .ttl = 64};

	while (at + 8 <= size && nin < MAX_FRAMES) {
		const uint8_t *r = data + at;
		struct frame_in *fi = &in[nin];
		struct rte_mbuf *m;

		at += 8;
		if (((r[0] >> 3) & 3) == 3) {
			/* a raw frame: the bytes that follow */
			uint16_t len = (uint16_t)RTE_MIN((size_t)(r[2] | r[3] << 8) % MAX_FRAME_LEN,
							 size - at);

			memcpy(fi->bytes, data + at, len);
			fi->len = len;
			at += len;
		} else {
			fi->len = build(fi->bytes, r, &fs[r[0] & 3], r[0] & 3);
		}
		m = to_mbufs(fi, (r[0] & 0x80) ? 2 : 1);
		if (r[5] & 0x40)
			m->ol_flags |= RTE_MBUF_F_RX_L4_CKSUM_BAD;
		else if (r[7] & 2)
			m->ol_flags |= RTE_MBUF_F_RX_L4_CKSUM_GOOD;
		fi->port_good = !(r[5] & 0x40) && (r[7] & 2);
		know(fi, m, kinds);
		pkts[nb++] = m;
		nin++;
		if ((r[6] & 1) || nb == VFWD_MAX_BURST || at + 8 > size || nin == MAX_FRAMES) {
			uint16_t k = vfwd_gro_burst(g, &conf, kinds, pkts, (uint16_t)nb, now, &st);

			INVARIANT("gro-once", k <= nb + VFWD_GRO_HOLD_MAX &&
				  nout + k <= (int)RTE_DIM(outs));
			memcpy(outs + nout, pkts, k * sizeof(pkts[0]));
			nout += k;
			nb = 0;
			now += 1000;
			if (r[6] & 2) {
				k = vfwd_gro_flush(g, 1500, now, fl, RTE_DIM(fl), &st);
				INVARIANT("gro-once", nout + k <= (int)RTE_DIM(outs));
				memcpy(outs + nout, fl, k * sizeof(fl[0]));
				nout += k;
			}
		}
	}
	for (uint16_t k; (k = vfwd_gro_flush(g, 0, now, fl, RTE_DIM(fl), &st)) > 0;) {
		INVARIANT("gro-once", nout + k <= (int)RTE_DIM(outs));
		memcpy(outs + nout, fl, k * sizeof(fl[0]));
		nout += k;
	}
	INVARIANT("gro-once", vfwd_gro_held(g) == 0);
	check_out(outs, nout, nin, &st);
	rte_pktmbuf_free_bulk(outs, nout);
	INVARIANT("leaks", rte_mempool_in_use_count(pool) == 0);
	return 0;
}
