/* SPDX-License-Identifier: BSD-3-Clause
 *
 * libFuzzer target over the packet stages, as they meet guest and wire
 * frames: header typing, librte_gro's GRO engine (light and heavy, across
 * bursts; vfwd's own engine has fuzz_gro.c), and the
 * guest-TSO / partial-checksum path toward the wire (what net_vhost makes
 * of a virtio-net header: RX_LRO + gso_size, RX_L4_CKSUM_NONE), software
 * segmentation included. Built with clang -fsanitize=fuzzer,address,
 * undefined (meson -Dfuzz=true).
 *
 * Beyond crashes and leaks, every input is checked against what each
 * stage promises (vfwd_offload.h), from a copy of every frame taken before
 * the stage ran; a broken promise aborts with the invariant's name:
 *
 * GRO (toward the VM)
 *   gro-count       no more packets out than in; every mbuf segment given
 *                   comes back (GRO only chains, it never drops or copies)
 *   gro-stats       packets out = in - (gro_in - gro_out), the stats'
 *                   out_expected; gro_in = the mergeable segments given
 *                   outside bypassed bursts; gro_merged = merged packets
 *   gro-flow-bytes  per TCP/IPv4 flow (addresses, ports), the TCP payload
 *                   bytes out = the bytes in
 *   gro-untouched   a packet GRO did not merge is byte for byte a frame
 *                   that went in (one GRO took may lose its Ethernet
 *                   padding), each frame at most once
 *   gro-merged      a merged packet is the first segment's headers (but
 *                   length and checksums) and, mbuf by mbuf, the payloads
 *                   of mergeable segments of one GRO flow whose sequence
 *                   numbers follow each other; with gro-untouched every
 *                   frame in is accounted for exactly once
 *   gro-order       a TCP stream that came in order (sequence numbers
 *                   following each other, each GRO flow of it - MACs and
 *                   ACK - in one run) leaves in order: its payload bytes
 *                   out, concatenated, are its bytes in
 *   gro-csum        a merged packet: IPv4 total length and header checksum
 *                   right, TCP checksum the pseudo-header sum (NEEDS_CSUM),
 *                   TX_TCP_SEG + TX_IPV4 + TX_TCP_CKSUM, tso_segsz the largest
 *                   merged segment's payload (the flow's MSS), l2/l3/l4_len
 *                   its headers; tagged TCP is never merged (librte_gro
 *                   22.11 has no VLAN): a stream is its tags and 4-tuple
 *
 * toward the wire, per frame
 *   wire-outcome    sent or dropped as vfwd_wire_tx_prepare() says it
 *                   does (oversize, partial checksum on non-TCP/UDP, TSO
 *                   that cannot be segmented, headers or a segment that
 *                   cannot fit one mbuf for our own segmenter, a chain that
 *                   cannot be flattened into one mbuf for a single-segment
 *                   port), a drop counted once under its cause, nothing
 *                   dropped that could be sent
 *   wire-size       every packet out fits the wire's MTU plus the frame's
 *                   VLAN tags (or is left to the port's TSO with headers +
 *                   MSS within that); software segments are MSS + headers,
 *                   the last one less
 *   wire-mbuf       multi-segment port: a frame not cut is the mbuf given,
 *                   a segment a direct head; single-segment port: every
 *                   packet out is one direct mbuf (a chain copied into a
 *                   new one) with the bytes and metadata a multi-segment
 *                   port would get
 *   wire-payload    segments: as many as the payload needs, sequence
 *                   numbers contiguous from the frame's, their payloads
 *                   concatenated = the frame's; other packets: the frame's
 *                   bytes but for the checksum fields the stage fills
 *   wire-headers    each segment (TCP/IPv4 or IPv6, tagged or not) carries
 *                   the frame's headers, tags and IPv6 extension headers
 *                   included, but for the IPv4 total length (the segment's),
 *                   id (the frame's + i) and checksum, the IPv6 payload
 *                   length (the segment's), TCP sequence number and
 *                   checksum, PSH/FIN (last segment only), CWR (first
 *                   segment only)
 *   wire-csum       where the stage completes a checksum in software, the
 *                   IPv4 header checksum and the TCP/UDP checksum verify
 *                   (over the IP length, as a receiver checks them, with
 *                   the IPv6 pseudo-header of RFC 8200 8.1: upper-layer
 *                   length and protocol, final destination of a routing
 *                   header); where it leaves them to the port (the L4 one
 *                   only with l4 offload and no IPv6 extension header; the
 *                   IPv4 header one only with ip offload, else 0 flags and
 *                   a right checksum), exactly the offload flags, the
 *                   header lengths and the pseudo-header sum are set
 *   wire-stats      gso_frames, gso_sw_frames, gso_segs, tso_offloaded and
 *                   sw_cksums count what happened
 *
 * Input: [flags][gso_size lo][gso_size hi][nseg] then frames, each
 * [len lo][len hi][bytes...]; frames are split into chains of nseg%4+1
 * segments, some marked as guest TSO frames with the given gso_size.
 * flags: 0x01 toward the wire (else GRO); GRO: 0x02 heavy, 0x10 keep the
 * bypass window of earlier inputs; wire: 0x02 port TSO, 0x04 port
 * checksums (0x20 flips the IPv4 header one alone), 0x08 MTU 1500 (else
 * 9000), 0x10 a single-segment port (no MULTI_SEGS); 1 << (i % 8): frame i
 * is a guest TSO frame, else 0x80: a partial checksum.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_tcp.h>
#include <rte_udp.h>

#include "fuzz_check.h"
#include "vfwd.h"

#define FUZZ_TARGET "fuzz_packet"

#define MAX_FRAMES 64
#define MAX_FRAME_LEN 9100
#define FLAT_MAX 70000 /* a merged packet: at most 64 KiB of IPv4, plus Ethernet */

static struct rte_mempool *pool, *indirect_pool;
static struct vfwd_gro gro_light, gro_heavy;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const struct vfwd_gro_conf conf = {.max_flows = 64};

	(void)argc;
	fuzz_eal_init((*argv)[0], "fuzz");
	pool = rte_pktmbuf_pool_create("f_pool", 8191, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	indirect_pool = rte_pktmbuf_pool_create("f_indirect", 4095, 0, 0, 0, 0);
	if (pool == NULL || indirect_pool == NULL || vfwd_gro_init(&gro_light, &conf, 0) != 0 ||
	    vfwd_gro_init(&gro_heavy, &conf, 0) != 0)
		abort();
	return 0;
}

/* A frame as a chain of up to nseg mbufs. */
static struct rte_mbuf *
frame(const uint8_t *p, uint16_t len, unsigned int nseg)
{
	struct rte_mbuf *head = NULL, *prev = NULL;
	uint16_t per = (uint16_t)(len / nseg + 1);

	do {
		struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
		uint16_t n = RTE_MIN(per, len);
		char *dst;

		if (m == NULL)
			goto fail;
		n = RTE_MIN(n, rte_pktmbuf_tailroom(m));
		dst = rte_pktmbuf_append(m, n);
		memcpy(dst, p, n);
		p += n;
		len -= n;
		if (head == NULL) {
			head = m;
		} else {
			prev->next = m;
			head->nb_segs++;
			head->pkt_len += n;
		}
		prev = m;
	} while (len > 0);
	return head;
fail:
	rte_pktmbuf_free(head);
	return NULL;
}

static void
free_all(struct rte_mbuf **pkts, uint16_t n)
{
	for (uint16_t i = 0; i < n; i++)
		rte_pktmbuf_free(pkts[i]);
}

/* ------------------------------------------------------ frames and bytes */

static inline uint16_t
be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t
be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* A frame as it went in, with what typing found in it. */
struct snap {
	uint8_t *b;          /* its bytes (in the arena) */
	uint32_t len;        /* pkt_len */
	uint16_t nb_segs;
	uint32_t seg0_len;   /* the first mbuf's data_len */
	uint64_t ol_flags;
	uint16_t tso_segsz;
	enum vfwd_parse kind;
	uint32_t ptype;      /* packet_type typing set */
	uint32_t l2, l3, l4; /* TCP/UDP kinds */
	uint32_t ip_end;     /* l2 + the IP length: where the IP packet ends */
	/* TCP */
	bool mergeable;      /* what GRO takes: IPv4, untagged, ACK only, payload, no IP
			      * options, one mbuf */
	uint32_t seq;
	uint32_t pl_off, pl_len; /* TCP payload by the IP length */
	bool used;           /* matched to a packet out */
};

static uint8_t arena[MAX_FRAMES * MAX_FRAME_LEN];
static struct snap snaps[MAX_FRAMES];
static uint8_t flat_buf[FLAT_MAX], flat_buf2[FLAT_MAX];

/* m's bytes, contiguous (in buf if m is a chain). */
static const uint8_t *
flat(const struct rte_mbuf *m, uint8_t *buf)
{
	if (rte_pktmbuf_pkt_len(m) > FLAT_MAX)
		fuzz_broken(FUZZ_TARGET, "sanity", __LINE__, "packet longer than 64 KiB");
	return rte_pktmbuf_read(m, 0, rte_pktmbuf_pkt_len(m), buf);
}

static void
take_snap(struct snap *s, struct rte_mbuf *m, uint8_t *where)
{
	const uint8_t *p = flat(m, flat_buf);

	memset(s, 0, sizeof(*s));
	s->b = where;
	s->len = rte_pktmbuf_pkt_len(m);
	memcpy(s->b, p, s->len);
	s->nb_segs = m->nb_segs;
	s->seg0_len = rte_pktmbuf_data_len(m);
	s->ol_flags = m->ol_flags;
	s->tso_segsz = m->tso_segsz;
	s->kind = vfwd_parse(m);
	if (s->kind == VFWD_PARSE_OTHER || s->kind == VFWD_PARSE_BAD)
		return;
	s->ptype = m->packet_type;
	s->l2 = m->l2_len;
	s->l3 = m->l3_len;
	s->l4 = m->l4_len;
	if (s->kind == VFWD_PARSE_TCP4 || s->kind == VFWD_PARSE_UDP4)
		s->ip_end = s->l2 + be16(s->b + s->l2 + 2);
	else
		s->ip_end = s->l2 + 40 + be16(s->b + s->l2 + 4);
	if (s->kind != VFWD_PARSE_TCP4 && s->kind != VFWD_PARSE_TCP6)
		return;
	s->seq = be32(s->b + s->l2 + s->l3 + 4);
	s->pl_off = s->l2 + s->l3 + s->l4;
	s->pl_len = s->ip_end - s->pl_off;
	s->mergeable = s->kind == VFWD_PARSE_TCP4 && m->nb_segs == 1 && s->l2 == 14 &&
		       s->l3 == 20 && s->b[s->l2 + s->l3 + 13] == RTE_TCP_ACK_FLAG &&
		       s->pl_len > 0;
}

/* The 4-tuple of a TCP/IPv4 frame at l2/l3, and its VLAN tags (a tagged
 * frame is another network's: never merged, never kept in order with the
 * untagged frames of that 4-tuple). */
struct tuple {
	uint8_t b[21];
};

static struct tuple
tuple_of(const uint8_t *p, uint32_t l2, uint32_t l3)
{
	struct tuple t;

	memset(&t, 0, sizeof(t));
	memcpy(t.b, p + l2 + 12, 8);
	memcpy(t.b + 8, p + l2 + l3, 4);
	t.b[12] = (uint8_t)l2;
	memcpy(t.b + 13, p + 12, RTE_MIN(l2 - 14, 8u));
	return t;
}

/* The GRO flow key (librte_gro's): MACs, addresses, ports, ACK. */
static bool
same_gro_flow(const uint8_t *a, const uint8_t *b, uint32_t l2, uint32_t l3)
{
	return memcmp(a, b, 12) == 0 && memcmp(a + l2 + 12, b + l2 + 12, 8) == 0 &&
	       memcmp(a + l2 + l3, b + l2 + l3, 4) == 0 &&
	       memcmp(a + l2 + l3 + 8, b + l2 + l3 + 8, 4) == 0;
}

/* The final destination of an IPv6 packet whose extension headers (l3
 * in all, walked by typing already) are at l2 + 40: the last address of a
 * type 0 routing header with segments left, the home address of a type 2
 * one, segment list[0] of an SRH (type 4), else the fixed header's. */
static uint32_t
v6_dst_off(const uint8_t *p, uint32_t l2, uint32_t l3)
{
	uint32_t o = l2 + 40, dst = l2 + 24;
	uint8_t nh = p[l2 + 6];

	while (o < l2 + l3) {
		if (nh == IPPROTO_ROUTING && p[o + 3] != 0) {
			uint32_t naddr = p[o + 1] / 2u;

			if (p[o + 2] == 0)
				dst = o + 8 + 16 * (naddr - 1);
			else
				dst = o + 8;
		}
		nh = p[o];
		o += (p[o + 1] + 1u) * 8;
	}
	return dst;
}

/* The pseudo-header sum (raw, folded, memory order as the raw-sum
 * functions give it) of a TCP/UDP packet at l2/l3, the upper-layer length
 * (from the IP header) in it or not (TSO). */
static uint16_t
phdr_sum(const uint8_t *p, bool v4, bool tcp, uint32_t l2, uint32_t l3, bool with_len)
{
	uint8_t ph[40];
	uint32_t n, len;

	if (v4) {
		memcpy(ph, p + l2 + 12, 8);
		len = be16(p + l2 + 2) - l3;
		n = 8;
	} else {
		memcpy(ph, p + l2 + 8, 16);
		memcpy(ph + 16, p + v6_dst_off(p, l2, l3), 16);
		len = 40 + be16(p + l2 + 4) - l3;
		n = 32;
	}
	if (!with_len)
		len = 0;
	ph[n] = (uint8_t)(len >> 24);
	ph[n + 1] = (uint8_t)(len >> 16);
	ph[n + 2] = (uint8_t)(len >> 8);
	ph[n + 3] = (uint8_t)len;
	ph[n + 4] = ph[n + 5] = ph[n + 6] = 0;
	ph[n + 7] = tcp ? IPPROTO_TCP : IPPROTO_UDP;
	return rte_raw_cksum(ph, n + 8);
}

/* Receiver's view of an L4 checksum: over the IP length, from m's bytes
 * made contiguous (p): not rte_raw_cksum_mbuf(), whose 22.11 version
 * loses carries where a segment starts at an odd offset (the sum of the
 * bytes so far is truncated to 16 bits before it is byte-swapped). */
static bool
l4_cksum_ok(const struct rte_mbuf *m, const uint8_t *p, bool v4, bool tcp, uint32_t l2,
	    uint32_t l3)
{
	const uint32_t l4_off = l2 + l3;
	uint32_t end, sum;

	end = v4 ? l2 + be16(p + l2 + 2) : l2 + 40 + be16(p + l2 + 4);
	if (end > rte_pktmbuf_pkt_len(m) || end < l4_off)
		return false;
	sum = (uint32_t)rte_raw_cksum(p + l4_off, end - l4_off) +
	      phdr_sum(p, v4, tcp, l2, l3, true);
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return sum == 0xffff;
}

static bool
ip_cksum_ok(const uint8_t *p, uint32_t l2)
{
	struct rte_ipv4_hdr ip;

	memcpy(&ip, p + l2, sizeof(ip));
	if ((ip.version_ihl & 0xf) != 5)
		return rte_raw_cksum(p + l2, (ip.version_ihl & 0xf) * 4u) == 0xffff;
	return rte_raw_cksum(&ip, sizeof(ip)) == 0xffff;
}

/* --------------------------------------------------------------------- GRO */

/* A packet out that GRO did not merge: one frame in, untouched (a
 * mergeable one trimmed to its IP length). */
static bool
match_untouched(const struct rte_mbuf *m, uint16_t n_in)
{
	const uint8_t *p = flat(m, flat_buf);
	uint32_t len = rte_pktmbuf_pkt_len(m);

	for (uint16_t i = 0; i < n_in; i++) {
		struct snap *s = &snaps[i];

		/* as it came, or (what GRO took) without its padding */
		if (s->used || m->nb_segs != s->nb_segs ||
		    (len != s->len && !(s->mergeable && len == s->ip_end)) ||
		    memcmp(p, s->b, len) != 0)
			continue;
		s->used = true;
		return true;
	}
	return false;
}

/* Headers equal but for IPv4 total length and checksum and TCP checksum. */
static bool
same_head(const uint8_t *a, const uint8_t *b, uint32_t l2, uint32_t l3, uint32_t l4)
{
	return memcmp(a, b, l2 + 2) == 0 && memcmp(a + l2 + 4, b + l2 + 4, 6) == 0 &&
	       memcmp(a + l2 + 12, b + l2 + 12, l3 - 12 + 16) == 0 &&
	       memcmp(a + l2 + l3 + 18, b + l2 + l3 + 18, l4 - 18) == 0;
}

/* The mergeable frame in that a merged packet's unit k is: for the head
 * (k = 0) the headers match, for a later unit the GRO flow, the TCP
 * header length and options and the DF bit; then the sequence number
 * and the payload. */
static struct snap *
find_unit(const uint8_t *head, uint32_t hdr, uint32_t seq, const uint8_t *pl, uint32_t pl_len,
	  bool first, uint16_t n_in)
{
	const uint32_t l2 = 14, l3 = 20, l4 = hdr - 34;

	for (uint16_t i = 0; i < n_in; i++) {
		struct snap *s = &snaps[i];

		if (s->used || !s->mergeable || s->seq != seq || s->pl_len != pl_len ||
		    s->l4 != l4 || memcmp(s->b + s->pl_off, pl, pl_len) != 0)
			continue;
		if (first ? !same_head(head, s->b, l2, l3, l4)
			  : !same_gro_flow(head, s->b, l2, l3) ||
				    memcmp(head + l2 + l3 + 20, s->b + l2 + l3 + 20, l4 - 20) != 0 ||
				    ((head[l2 + 6] ^ s->b[l2 + 6]) & 0x40) != 0)
			continue;
		return s;
	}
	return NULL;
}

/* Check a merged packet's units against the frames in: with heads, the
 * head unit only (its headers must all match), else the later ones. */
static void
check_merged(const struct rte_mbuf *m, uint16_t n_in, bool heads)
{
	const uint8_t *p = flat(m, flat_buf);
	const uint32_t hdr = 14 + 20 + (uint32_t)(p[14 + 20 + 12] >> 4) * 4;
	uint32_t off = 0, seq = be32(p + 34 + 4);
	uint16_t k = 0;

	INVARIANT("gro-merged", m->nb_segs >= 2 && rte_pktmbuf_data_len(m) > hdr);
	for (const struct rte_mbuf *seg = m; seg != NULL; seg = seg->next, k++) {
		uint32_t start = k == 0 ? hdr : off;
		uint32_t len = off + rte_pktmbuf_data_len(seg) - start;

		if ((k == 0) == heads) {
			struct snap *s = find_unit(p, hdr, seq, p + start, len, k == 0, n_in);

			INVARIANT("gro-merged", s != NULL);
			s->used = true;
		}
		off += rte_pktmbuf_data_len(seg);
		seq += len;
	}
	INVARIANT("gro-merged", off == rte_pktmbuf_pkt_len(m) && k == m->nb_segs);
}

/* Payload bytes per 4-tuple. */
struct flow_bytes {
	struct tuple t;
	uint64_t in, out;
};

static void
add_bytes(struct flow_bytes *fb, unsigned int *nfb, struct tuple t, uint64_t bytes, bool out)
{
	unsigned int i;

	for (i = 0; i < *nfb; i++)
		if (memcmp(&fb[i].t, &t, sizeof(t)) == 0)
			break;
	if (i == *nfb) {
		INVARIANT("gro-flow-bytes", *nfb < 2 * MAX_FRAMES);
		memset(&fb[i], 0, sizeof(fb[i]));
		fb[i].t = t;
		(*nfb)++;
	}
	if (out)
		fb[i].out += bytes;
	else
		fb[i].in += bytes;
}

/* A TCP/IPv4 packet out: its 4-tuple, sequence number and payload (by
 * the IP length). False if it is not TCP/IPv4 by its headers. Leaves the
 * mbuf's metadata as it was. */
static bool
tcp4_of(struct rte_mbuf *m, const uint8_t **p, struct tuple *t, uint32_t *seq,
	uint32_t *pl_off, uint32_t *pl_len)
{
	const uint32_t ptype = m->packet_type;
	const uint64_t lens = m->tx_offload;
	uint32_t l2, l3, l4;
	enum vfwd_parse kind = vfwd_parse(m);

	l2 = m->l2_len, l3 = m->l3_len, l4 = m->l4_len;
	m->packet_type = ptype;
	m->tx_offload = lens;
	if (kind != VFWD_PARSE_TCP4)
		return false;
	*p = flat(m, flat_buf);
	*t = tuple_of(*p, l2, l3);
	*seq = be32(*p + l2 + l3 + 4);
	*pl_off = l2 + l3 + l4;
	*pl_len = l2 + be16(*p + l2 + 2) - *pl_off;
	return true;
}

/* librte_gro's flow key of a TCP/IPv4 frame: MACs, addresses, ports, ACK. */
static void
gro_key(const struct snap *s, uint8_t key[28])
{
	memcpy(key, s->b, 12);
	memcpy(key + 12, s->b + s->l2 + 12, 8);
	memcpy(key + 20, s->b + s->l2 + s->l3, 4);
	memcpy(key + 24, s->b + s->l2 + s->l3 + 8, 4);
}

/* A TCP stream (4-tuple) that came in order: its frames' sequence
 * numbers follow each other, and each of its GRO flows (MACs, ACK) came
 * in one run (a flow seen again after another would be a flow GRO keeps
 * apart and may send first). Its bytes out, in the order they left, must
 * be its bytes in. */
static void
check_order(struct rte_mbuf **outs, uint16_t nout, uint16_t n_in)
{
	static bool done[MAX_FRAMES];
	static uint8_t keys[MAX_FRAMES][28];
	uint16_t idx[MAX_FRAMES];

	memset(done, 0, sizeof(done));
	for (uint16_t i = 0; i < n_in; i++) {
		const struct snap *s0 = &snaps[i];
		struct tuple t = tuple_of(s0->b, s0->l2, s0->l3);
		uint32_t expect = s0->seq, in_len = 0, out_len = 0;
		uint16_t cnt = 0;
		bool in_order = true;

		if (done[i] || s0->kind != VFWD_PARSE_TCP4)
			continue;
		for (uint16_t j = i; j < n_in; j++) {
			struct tuple tj;

			if (snaps[j].kind != VFWD_PARSE_TCP4)
				continue;
			tj = tuple_of(snaps[j].b, snaps[j].l2, snaps[j].l3);
			if (memcmp(&tj, &t, sizeof(t)) != 0)
				continue;
			done[j] = true;
			gro_key(&snaps[j], keys[cnt]);
			idx[cnt++] = j;
		}
		for (uint16_t q = 0; q < cnt && in_order; q++) {
			const struct snap *s = &snaps[idx[q]];

			in_order = s->seq == expect;
			for (uint16_t r = 0; q > 0 && r + 1 < q && in_order; r++)
				in_order = memcmp(keys[q], keys[q - 1], 28) == 0 ||
					   memcmp(keys[q], keys[r], 28) != 0;
			memcpy(flat_buf2 + in_len, s->b + s->pl_off, s->pl_len);
			in_len += s->pl_len;
			expect += s->pl_len;
		}
		if (!in_order)
			continue;
		/* ... and out, in the order they left */
		for (uint16_t k = 0; k < nout; k++) {
			const uint8_t *p;
			struct tuple tk;
			uint32_t seq, pl_off, pl_len;

			if (!tcp4_of(outs[k], &p, &tk, &seq, &pl_off, &pl_len) ||
			    memcmp(&tk, &t, sizeof(t)) != 0)
				continue;
			INVARIANT("gro-order", out_len + pl_len <= in_len);
			INVARIANT("gro-order", seq == s0->seq + out_len);
			INVARIANT("gro-order", memcmp(flat_buf2 + out_len, p + pl_off, pl_len) == 0);
			out_len += pl_len;
		}
		INVARIANT("gro-order", out_len == in_len);
	}
}

static void
check_gro(struct rte_mbuf **outs, uint16_t nout, uint16_t n_in, const struct vfwd_dir_stats *st,
	  uint32_t gro_in_expected)
{
	static struct flow_bytes fb[2 * MAX_FRAMES];
	unsigned int nfb = 0;
	uint64_t segs_in = 0, segs_out = 0, merged = 0;

	/* gro-count */
	INVARIANT("gro-count", nout <= n_in);
	for (uint16_t i = 0; i < n_in; i++)
		segs_in += snaps[i].nb_segs;
	for (uint16_t k = 0; k < nout; k++) {
		segs_out += outs[k]->nb_segs;
		merged += !!(outs[k]->ol_flags & RTE_MBUF_F_TX_TCP_SEG);
	}
	INVARIANT("gro-count", segs_out == segs_in);

	/* gro-stats */
	INVARIANT("gro-stats", st->gro_out <= st->gro_in);
	INVARIANT("gro-stats", nout == n_in - (st->gro_in - st->gro_out));
	INVARIANT("gro-stats", st->gro_in == gro_in_expected);
	INVARIANT("gro-stats", st->gro_merged == merged);

	/* gro-flow-bytes */
	for (uint16_t i = 0; i < n_in; i++)
		if (snaps[i].kind == VFWD_PARSE_TCP4)
			add_bytes(fb, &nfb, tuple_of(snaps[i].b, snaps[i].l2, snaps[i].l3),
				  snaps[i].pl_len, false);
	for (uint16_t k = 0; k < nout; k++) {
		const uint8_t *p;
		struct tuple t;
		uint32_t seq, pl_off, pl_len;

		if (tcp4_of(outs[k], &p, &t, &seq, &pl_off, &pl_len))
			add_bytes(fb, &nfb, t, pl_len, true);
	}
	for (unsigned int i = 0; i < nfb; i++)
		INVARIANT("gro-flow-bytes", fb[i].in == fb[i].out);

	/* gro-untouched, then gro-merged: heads first (all their headers
	 * must match), then the later units (flow, sequence, payload) */
	for (uint16_t k = 0; k < nout; k++)
		if (!(outs[k]->ol_flags & RTE_MBUF_F_TX_TCP_SEG))
			INVARIANT("gro-untouched", match_untouched(outs[k], n_in));
	for (uint16_t k = 0; k < nout; k++)
		if (outs[k]->ol_flags & RTE_MBUF_F_TX_TCP_SEG)
			check_merged(outs[k], n_in, true);
	for (uint16_t k = 0; k < nout; k++)
		if (outs[k]->ol_flags & RTE_MBUF_F_TX_TCP_SEG)
			check_merged(outs[k], n_in, false);
	for (uint16_t i = 0; i < n_in; i++)
		INVARIANT("gro-merged", snaps[i].used);

	/* gro-order */
	check_order(outs, nout, n_in);

	/* gro-csum */
	for (uint16_t k = 0; k < nout; k++) {
		struct rte_mbuf *m = outs[k];
		const uint8_t *p;
		uint32_t l4;
		struct rte_ipv4_hdr ip;

		if (!(m->ol_flags & RTE_MBUF_F_TX_TCP_SEG))
			continue;
		p = flat(m, flat_buf);
		l4 = (uint32_t)(p[34 + 12] >> 4) * 4;
		memcpy(&ip, p + 14, sizeof(ip));
		INVARIANT("gro-csum", m->l2_len == 14 && m->l3_len == 20 && m->l4_len == l4);
		INVARIANT("gro-csum", (m->ol_flags & RTE_MBUF_F_TX_IPV4) &&
					      (m->ol_flags & RTE_MBUF_F_TX_L4_MASK) ==
						      RTE_MBUF_F_TX_TCP_CKSUM &&
					      !(m->ol_flags & RTE_MBUF_F_TX_IP_CKSUM));
		INVARIANT("gro-csum", be16(p + 14 + 2) == rte_pktmbuf_pkt_len(m) - 14);
		INVARIANT("gro-csum", ip_cksum_ok(p, 14));
		{
			/* each mbuf one merged segment's payload: the largest */
			uint32_t mss = rte_pktmbuf_data_len(m) - 34 - l4;

			for (const struct rte_mbuf *seg = m->next; seg != NULL; seg = seg->next)
				mss = RTE_MAX(mss, (uint32_t)rte_pktmbuf_data_len(seg));
			INVARIANT("gro-csum", m->tso_segsz == mss);
		}
		{
			uint16_t sum;

			memcpy(&sum, p + 34 + 16, 2);
			INVARIANT("gro-csum", sum == rte_ipv4_phdr_cksum(&ip, 0));
		}
	}
}

/* -------------------------------------------------------------- wire */

/* 802.1Q / QinQ tags after the MACs (at most two, in the first mbuf). */
static uint32_t
vlan_len(const struct snap *s)
{
	uint32_t len = 0;

	for (uint32_t off = 12; len < 8 && s->seg0_len >= off + 2; off += 4) {
		uint16_t type = be16(s->b + off);

		if (type != RTE_ETHER_TYPE_VLAN && type != RTE_ETHER_TYPE_QINQ)
			break;
		len += 4;
	}
	return len;
}

enum wire_path {
	PATH_DROP,    /* and the cause */
	PATH_PASS,    /* as it is */
	PATH_CSUM,    /* one packet, its L4 checksum completed */
	PATH_TSO,     /* one packet, left to the port's TSO */
	PATH_SEGMENT, /* software segments */
};

/* What fits one mbuf of the pools the stage gets (flattening, our own
 * segmenter's heads). */
static uint32_t
mbuf_room(void)
{
	return (uint32_t)rte_pktmbuf_data_room_size(pool) - RTE_PKTMBUF_HEADROOM;
}

/* What vfwd_wire_tx_prepare() says it does with the frame. */
static enum wire_path
wire_expect(const struct vfwd_wire_tx *w, const struct snap *s, uint16_t room, int *cause)
{
	bool lro = s->ol_flags & RTE_MBUF_F_RX_LRO;
	/* a single-segment port: a chain out is copied into one mbuf */
	bool no_flat = !w->multi_seg && s->nb_segs > 1 && s->len > mbuf_room();
	uint32_t hdr, payload, segsz = s->tso_segsz;

	*cause = -1;
	if (!lro && s->len > w->max_frame + vlan_len(s)) {
		*cause = VFWD_DROP_OVERSIZE;
		return PATH_DROP;
	}
	if (!lro && (s->ol_flags & RTE_MBUF_F_RX_L4_CKSUM_MASK) != RTE_MBUF_F_RX_L4_CKSUM_NONE) {
		if (no_flat) {
			*cause = VFWD_DROP_OVERSIZE;
			return PATH_DROP;
		}
		return PATH_PASS;
	}
	if (!lro) {
		if (s->kind == VFWD_PARSE_OTHER || s->kind == VFWD_PARSE_BAD) {
			*cause = VFWD_DROP_BAD_CSUM;
			return PATH_DROP;
		}
		if (no_flat) {
			*cause = VFWD_DROP_OVERSIZE;
			return PATH_DROP;
		}
		return PATH_CSUM;
	}
	*cause = VFWD_DROP_BAD_GSO;
	if (s->kind != VFWD_PARSE_TCP4 && s->kind != VFWD_PARSE_TCP6)
		return PATH_DROP;
	hdr = s->l2 + s->l3 + s->l4;
	payload = s->len - hdr;
	/* a segment is an MTU-sized frame plus its tags */
	if (segsz == 0 || hdr + segsz > w->max_frame + (s->l2 - 14) ||
	    (payload + segsz - 1) / segsz > (uint32_t)RTE_MIN(room, (uint16_t)VFWD_GSO_MAX_SEGS))
		return PATH_DROP;
	if (payload <= segsz) {
		if (no_flat) {
			*cause = VFWD_DROP_OVERSIZE;
			return PATH_DROP;
		}
		*cause = -1;
		return PATH_CSUM;
	}
	if (w->tso_offload && w->multi_seg) {
		*cause = -1;
		return PATH_TSO;
	}
	/* librte_gso takes TCP/IPv4 with a direct head (all of ours) for a
	 * multi-segment port; our own segmenter the rest, each segment's
	 * head one mbuf with the headers (and for a single-segment port the
	 * payload) */
	if (!(s->kind == VFWD_PARSE_TCP4 && w->multi_seg) &&
	    hdr + (w->multi_seg ? 0 : segsz) > mbuf_room()) {
		*cause = w->multi_seg ? VFWD_DROP_BAD_GSO : VFWD_DROP_OVERSIZE;
		return PATH_DROP;
	}
	*cause = -1;
	return PATH_SEGMENT;
}

static uint64_t
drops_total(const struct vfwd_dir_stats *st)
{
	uint64_t n = 0;

	for (int c = 0; c < VFWD_DROP_COUNT; c++)
		n += st->drops[c];
	return n;
}

/* The same bytes but for [skip, skip + skip_len) (checksum fields). */
static bool
same_but(const uint8_t *a, const uint8_t *b, uint32_t len, uint32_t skip1, uint32_t skip2)
{
	for (uint32_t i = 0; i < len; i++)
		if (a[i] != b[i] && i != skip1 && i != skip1 + 1 && i != skip2 && i != skip2 + 1)
			return false;
	return true;
}

static inline void
put16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* Whether the stage leaves the L4 checksum of a frame (not cut by the
 * port) to the port: where it enabled L4 offloads, not behind IPv6
 * extension headers (22.11's drivers take the pseudo-header from the
 * fixed header). */
static bool
l4_to_port(const struct vfwd_wire_tx *w, const struct snap *s)
{
	bool v4 = s->kind == VFWD_PARSE_TCP4 || s->kind == VFWD_PARSE_UDP4;

	return w->l4_cksum_offload && (v4 || s->l3 == 40);
}

/* One packet out whose L4 checksum the stage completed (PATH_CSUM) or
 * left to the port with TSO (PATH_TSO). */
static void
check_one(const struct vfwd_wire_tx *w, const struct snap *s, struct rte_mbuf *m,
	  enum wire_path path, const struct vfwd_dir_stats *b, const struct vfwd_dir_stats *a)
{
	const bool v4 = s->kind == VFWD_PARSE_TCP4 || s->kind == VFWD_PARSE_UDP4;
	const bool tcp = s->kind == VFWD_PARSE_TCP4 || s->kind == VFWD_PARSE_TCP6;
	const uint32_t sum_at = s->l2 + s->l3 + (tcp ? 16 : 6);
	const uint32_t ipsum_at = v4 && path == PATH_TSO ? s->l2 + 10 : UINT32_MAX - 2;
	const uint8_t *p = flat(m, flat_buf);
	const bool offload = path == PATH_TSO || l4_to_port(w, s);
	uint64_t want = 0;

	INVARIANT("wire-size", path == PATH_TSO
				       ? s->l2 + s->l3 + s->l4 + m->tso_segsz <=
						 w->max_frame + (s->l2 - 14)
				       : rte_pktmbuf_pkt_len(m) <= w->max_frame + vlan_len(s));
	INVARIANT("wire-payload", rte_pktmbuf_pkt_len(m) == s->len &&
					  same_but(p, s->b, s->len, sum_at, ipsum_at));
	INVARIANT("wire-csum", m->l2_len == s->l2 && m->l3_len == s->l3 &&
				       (!tcp || m->l4_len == s->l4));
	if (offload) {
		uint16_t sum;

		want = (v4 ? RTE_MBUF_F_TX_IPV4 : RTE_MBUF_F_TX_IPV6) |
		       (tcp ? RTE_MBUF_F_TX_TCP_CKSUM : RTE_MBUF_F_TX_UDP_CKSUM);
		if (path == PATH_TSO)
			want |= RTE_MBUF_F_TX_TCP_SEG |
				(v4 && w->ip_cksum_offload ? RTE_MBUF_F_TX_IP_CKSUM : 0);
		memcpy(&sum, p + sum_at, 2);
		/* without the length under TSO; behind IPv6 extension
		 * headers (TSO) the upper-layer protocol and final
		 * destination */
		INVARIANT("wire-csum", sum == phdr_sum(p, v4, tcp, s->l2, s->l3, path != PATH_TSO));
		if (path == PATH_TSO) {
			INVARIANT("wire-csum", m->tso_segsz == s->tso_segsz);
			if (v4)
				INVARIANT("wire-csum", w->ip_cksum_offload
							       ? be16(p + s->l2 + 10) == 0
							       : ip_cksum_ok(p, s->l2));
		}
	} else {
		INVARIANT("wire-csum", l4_cksum_ok(m, p, v4, tcp, s->l2, s->l3));
	}
	/* exactly these flags: the frame's, RX_LRO gone where it is sent
	 * as one packet, TSO's kept (harmless on TX) */
	INVARIANT("wire-csum", m->ol_flags == ((path == PATH_TSO ? s->ol_flags
							      : s->ol_flags & ~RTE_MBUF_F_RX_LRO) |
					      want));
	INVARIANT("wire-stats", a->sw_cksums - b->sw_cksums == (offload ? 0u : 1u));
	INVARIANT("wire-stats", a->tso_offloaded - b->tso_offloaded == (path == PATH_TSO));
	INVARIANT("wire-stats", a->gso_segs == b->gso_segs && a->gso_sw_frames == b->gso_sw_frames);
}

static void
check_segments(const struct vfwd_wire_tx *w, const struct snap *s, struct rte_mbuf **out,
	       uint16_t k, const struct vfwd_dir_stats *b, const struct vfwd_dir_stats *a)
{
	static uint8_t want_hdr[MAX_FRAME_LEN];
	const uint32_t l2 = s->l2, l3 = s->l3, l4 = s->l4, hdr = l2 + l3 + l4;
	const uint32_t payload = s->len - hdr, segsz = s->tso_segsz;
	const bool v4 = s->kind == VFWD_PARSE_TCP4;
	const bool l4_offload = l4_to_port(w, s);
	const uint8_t flags = s->b[l2 + l3 + 13];
	const uint16_t id = v4 ? be16(s->b + l2 + 4) : 0;
	uint32_t done = 0;

	for (uint16_t j = 0; j < k; j++) {
		struct rte_mbuf *m = out[j];
		const uint8_t *p = flat(m, flat_buf);
		const uint32_t len = rte_pktmbuf_pkt_len(m);
		const bool last = j == k - 1;
		uint8_t want_flags = flags;
		uint64_t want = 0;
		uint16_t sum;

		if (!last)
			want_flags &= ~(RTE_TCP_PSH_FLAG | RTE_TCP_FIN_FLAG);
		if (j > 0)
			want_flags &= ~RTE_TCP_CWR_FLAG;
		/* wire-mbuf: a direct head; one mbuf for a single-segment port */
		INVARIANT("wire-mbuf", RTE_MBUF_DIRECT(m) && (w->multi_seg || m->nb_segs == 1));
		/* wire-size: MSS + headers, the last one at most that */
		INVARIANT("wire-size", len <= hdr + segsz && len <= w->max_frame + (l2 - 14));
		INVARIANT("wire-size", len > hdr && (last || len == hdr + segsz));
		/* wire-payload: in sequence, the frame's bytes */
		INVARIANT("wire-payload", be32(p + l2 + l3 + 4) == s->seq + done);
		INVARIANT("wire-payload", done + (len - hdr) <= payload &&
						  memcmp(p + hdr, s->b + hdr + done, len - hdr) == 0);
		/* wire-headers: the frame's (tags, IP options, extension
		 * headers, TCP options), but for what each segment has its
		 * own; checksums below */
		memcpy(want_hdr, s->b, hdr);
		if (v4) {
			put16(want_hdr + l2 + 2, len - l2);
			put16(want_hdr + l2 + 4, (uint16_t)(id + j));
		} else {
			put16(want_hdr + l2 + 4, len - l2 - 40);
		}
		put16(want_hdr + l2 + l3 + 4, (s->seq + done) >> 16);
		put16(want_hdr + l2 + l3 + 6, (s->seq + done) & 0xffff);
		want_hdr[l2 + l3 + 13] = want_flags;
		INVARIANT("wire-headers", p[l2 + l3 + 13] == want_flags);
		INVARIANT("wire-headers",
			  same_but(p, want_hdr, hdr, v4 ? l2 + 10 : UINT32_MAX - 2, l2 + l3 + 16));
		done += len - hdr;
		/* wire-csum */
		INVARIANT("wire-csum", m->l2_len == l2 && m->l3_len == l3 && m->l4_len == l4 &&
					       m->tso_segsz == 0 && m->packet_type == s->ptype);
		if (v4) {
			if (w->ip_cksum_offload) {
				want |= RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IP_CKSUM;
				INVARIANT("wire-csum", be16(p + l2 + 10) == 0);
			} else {
				INVARIANT("wire-csum", ip_cksum_ok(p, l2));
			}
		}
		if (l4_offload) {
			want |= (v4 ? RTE_MBUF_F_TX_IPV4 : RTE_MBUF_F_TX_IPV6) | RTE_MBUF_F_TX_TCP_CKSUM;
			memcpy(&sum, p + l2 + l3 + 16, 2);
			INVARIANT("wire-csum", sum == phdr_sum(p, v4, true, l2, l3, true));
		} else {
			INVARIANT("wire-csum", l4_cksum_ok(m, p, v4, true, l2, l3));
		}
		/* exactly: none of the frame's (RX_LRO, RX_L4_CKSUM_NONE) */
		INVARIANT("wire-csum", m->ol_flags == want);
	}
	INVARIANT("wire-payload", k == (payload + segsz - 1) / segsz && done == payload);
	INVARIANT("wire-stats", a->gso_sw_frames - b->gso_sw_frames == 1 &&
					a->gso_segs - b->gso_segs == k &&
					a->sw_cksums - b->sw_cksums == (l4_offload ? 0u : k) &&
					a->tso_offloaded == b->tso_offloaded);
}

static void
check_wire(const struct vfwd_wire_tx *w, const struct snap *s, struct rte_mbuf *m_in,
	   struct rte_mbuf **out, uint16_t k, uint16_t room, const struct vfwd_dir_stats *b,
	   const struct vfwd_dir_stats *a)
{
	int cause;
	enum wire_path path = wire_expect(w, s, room, &cause);
	uint64_t dropped = drops_total(a) - drops_total(b);

	/* wire-outcome */
	INVARIANT("wire-stats", a->gso_frames - b->gso_frames == !!(s->ol_flags & RTE_MBUF_F_RX_LRO));
	if (k == 0) {
		INVARIANT("wire-outcome", dropped == 1);
		/* a software segmentation may run out of mbufs; these pools
		 * do not here */
		INVARIANT("wire-outcome", path == PATH_DROP && cause >= 0 &&
						  a->drops[cause] - b->drops[cause] == 1);
		return;
	}
	INVARIANT("wire-outcome", dropped == 0 && path != PATH_DROP);
	INVARIANT("wire-outcome", (k == 1) == (path != PATH_SEGMENT));
	if (path != PATH_SEGMENT) {
		/* wire-mbuf: the mbuf given, or for a single-segment port a
		 * chain copied into one direct mbuf (metadata too) */
		if (w->multi_seg || s->nb_segs == 1)
			INVARIANT("wire-mbuf", out[0] == m_in);
		else
			INVARIANT("wire-mbuf", out[0] != m_in && out[0]->nb_segs == 1 &&
						       RTE_MBUF_DIRECT(out[0]));
	}
	switch (path) {
	case PATH_PASS: {
		const uint8_t *p = flat(out[0], flat_buf);

		INVARIANT("wire-payload", rte_pktmbuf_pkt_len(out[0]) == s->len &&
						  memcmp(p, s->b, s->len) == 0 &&
						  out[0]->ol_flags == s->ol_flags);
		INVARIANT("wire-size", s->len <= w->max_frame + vlan_len(s));
		INVARIANT("wire-stats", memcmp(a, b, sizeof(*a)) == 0);
		break;
	}
	case PATH_CSUM:
	case PATH_TSO:
		check_one(w, s, out[0], path, b, a);
		break;
	case PATH_SEGMENT:
		check_segments(w, s, out, k, b, a);
		break;
	case PATH_DROP:
		break;
	}
}

/* ------------------------------------------------------------------ main */

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rte_mbuf *pkts[MAX_FRAMES + VFWD_GRO_HOLD_MAX];
	struct rte_mbuf *out[VFWD_MAX_BURST + VFWD_GSO_MAX_SEGS];
	struct vfwd_dir_stats st;
	unsigned int in_use = rte_mempool_in_use_count(pool);
	uint16_t n = 0, gso_size, nseg;
	uint32_t arena_used = 0;
	uint8_t flags;

	if (size < 4)
		return 0;
	memset(&st, 0, sizeof(st));
	flags = data[0];
	gso_size = (uint16_t)(data[1] | data[2] << 8);
	nseg = data[3] % 4 + 1;
	data += 4;
	size -= 4;
	while (size >= 2 && n < MAX_FRAMES) {
		uint16_t len = (uint16_t)(data[0] | data[1] << 8) % MAX_FRAME_LEN;
		struct rte_mbuf *m;

		data += 2;
		size -= 2;
		len = (uint16_t)RTE_MIN((size_t)len, size);
		if (len == 0)
			break;
		m = frame(data, len, nseg);
		data += len;
		size -= len;
		if (m == NULL)
			break;
		/* what net_vhost makes of a virtio-net header */
		if (flags & (1 << (n % 8))) {
			m->ol_flags = RTE_MBUF_F_RX_LRO | RTE_MBUF_F_RX_L4_CKSUM_NONE;
			m->tso_segsz = gso_size;
		} else if (flags & 0x80) {
			m->ol_flags = RTE_MBUF_F_RX_L4_CKSUM_NONE;
		}
		take_snap(&snaps[n], m, arena + arena_used);
		arena_used += rte_pktmbuf_pkt_len(m);
		pkts[n++] = m;
	}
	if (n == 0)
		return 0;

	if (flags & 1) {
		/* toward the wire: segmentation and checksums, with and
		 * without the port's offloads; every frame through the stage,
		 * as the worker does with a burst one frame of which needs it */
		struct vfwd_wire_tx wtx = {
			.tso_offload = flags & 2,
			.ip_cksum_offload = !(flags & 4) != !(flags & 0x20),
			.l4_cksum_offload = flags & 4,
			.multi_seg = !(flags & 0x10),
			.max_frame = (flags & 8) ? 1514 : 9014,
			.gso = {.direct_pool = pool, .indirect_pool = indirect_pool,
				.gso_types = RTE_ETH_TX_OFFLOAD_TCP_TSO},
		};

		for (uint16_t i = 0; i < n; i++) {
			struct vfwd_dir_stats before = st;
			uint16_t k = vfwd_wire_tx_prepare(&wtx, pkts[i], out, RTE_DIM(out), &st);

			check_wire(&wtx, &snaps[i], pkts[i], out, k, RTE_DIM(out), &before, &st);
			free_all(out, k);
		}
	} else {
		/* toward the VM: GRO, light within the burst or heavy across
		 * two bursts, then everything flushed */
		static struct rte_mbuf *outs[MAX_FRAMES + VFWD_GRO_HOLD_MAX];
		/* librte_gro's engine: fuzz_gro.c has vfwd's own */
		struct vfwd_gro_conf conf = {.enabled = true, .engine = VFWD_GRO_ENGINE_DPDK,
					     .max_flows = 64};
		struct vfwd_gro *g = (flags & 2) ? &gro_heavy : &gro_light;
		uint16_t half = (flags & 2) ? n / 2 : n, k, nout = 0;
		uint32_t gro_in_expected = 0;

		conf.mode = (flags & 2) ? VFWD_GRO_HEAVY : VFWD_GRO_LIGHT;
		INVARIANT("gro-count", vfwd_gro_held(g) == 0);
		/* the many-flows bypass spans bursts of earlier inputs: with
		 * 0x10 keep that history (the bypass and its flush get
		 * fuzzed), without start this input afresh (reproducible,
		 * and GRO really runs: random frames rarely merge, so the
		 * bypass would otherwise skip most inputs) */
		if (!(flags & 0x10)) {
			g->win_bursts = 0;
			g->win_in = g->win_out = 0;
			g->bypass_left = 0;
		}
		if (g->bypass_left == 0)
			for (uint16_t i = 0; i < half; i++)
				gro_in_expected += snaps[i].mergeable;
		k = vfwd_gro_burst(g, &conf, VFWD_GRO_KIND_TCP4, pkts, half, 1000, &st);
		INVARIANT("gro-count", nout + k <= RTE_DIM(outs));
		memcpy(outs + nout, pkts, k * sizeof(pkts[0]));
		nout += k;
		if (half < n) {
			memmove(pkts, pkts + half, (n - half) * sizeof(pkts[0]));
			if (g->bypass_left == 0)
				for (uint16_t i = half; i < n; i++)
					gro_in_expected += snaps[i].mergeable;
			k = vfwd_gro_burst(g, &conf, VFWD_GRO_KIND_TCP4, pkts, n - half,
					   2000, &st);
			INVARIANT("gro-count", nout + k <= RTE_DIM(outs));
			memcpy(outs + nout, pkts, k * sizeof(pkts[0]));
			nout += k;
		}
		while (vfwd_gro_held(g)) {
			k = vfwd_gro_flush(g, 0, 3000, out, RTE_DIM(out), &st);
			INVARIANT("gro-count", k > 0 && nout + k <= RTE_DIM(outs));
			memcpy(outs + nout, out, k * sizeof(out[0]));
			nout += k;
		}
		check_gro(outs, nout, n, &st, gro_in_expected);
		free_all(outs, nout);
	}
	/* nothing leaked: every mbuf back in the pools */
	if (rte_mempool_in_use_count(pool) != in_use ||
	    rte_mempool_in_use_count(indirect_pool) != 0)
		abort();
	return 0;
}
