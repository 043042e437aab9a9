/* SPDX-License-Identifier: BSD-3-Clause
 *
 * GRO toward the VM: vfwd's own engine, which merges as the kernel's NAPI
 * GRO does (net/core/gro.c dev_gro_receive, net/ipv4/tcp_offload.c
 * tcp_gro_receive, af_inet.c / ip6_offload.c for the IP rules), and
 * librte_gro beside it (the engine dpdk-testpmd uses). See vfwd_offload.h
 * and doc/offloads.md for the rules and where they differ from the
 * kernel's.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include <rte_ether.h>
#include <rte_gro.h>
#include <rte_hash_crc.h>
#include <rte_ip.h>
#include <rte_malloc.h>
#include <rte_tcp.h>
#ifdef RTE_ARCH_X86
#include <immintrin.h>
#endif

#include "vfwd.h"
#include "vfwd_compat.h"

/* librte_gro heavy mode holds at most this many items (merged packets):
 * what it held before vfwd had an engine of its own (its table is flows x
 * 32 items). */
#define DPDK_GRO_HOLD_SEGS 256

/* A segment in more mbufs than this is not held (the hold budget is in
 * mbufs). */
#define VFWD_GRO_SEG_MBUFS_MAX 32

/* TCP flags that neither merge nor wait: the flow they belong to is sent,
 * then they are. */
#define TCP_NO_HOLD (RTE_TCP_FIN_FLAG | RTE_TCP_SYN_FLAG | RTE_TCP_RST_FLAG | \
		     RTE_TCP_URG_FLAG | RTE_TCP_ECE_FLAG | RTE_TCP_CWR_FLAG)

/* ------------------------------------------------- counting, shared */

/* Segments into GRO and packets out of them, for the stats and the
 * many-flows window: only data segments a flow could hold, and the
 * packets that carried them out. Pure ACKs, flagged segments and what is
 * not TCP pass uncounted (in = out): a stream of bulk data in the other
 * direction would make the window look like many flows, and the merge
 * factor would count ACKs. */
static inline void
count_in(struct vfwd_gro *g, struct vfwd_dir_stats *st, uint16_t n)
{
	st->gro_in += n;
	g->win_in += n;
}

static inline void
count_out(struct vfwd_gro *g, struct vfwd_dir_stats *st, uint16_t n)
{
	st->gro_out += n;
	g->win_out += n;
}

static uint16_t
fold(uint64_t sum)
{
	sum = (sum & 0xffffffff) + (sum >> 32);
	sum = (sum & 0xffffffff) + (sum >> 32);
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

/* The TCP pseudo-header's sum, unfolded (a 32-bit word adds as its two
 * halves do: 2^16 is 1 in one's complement). rte_ipv4/6_phdr_cksum
 * build the header on the stack with byte stores and read it back in
 * words, which stalls on store forwarding once a segment. */
static inline uint64_t
phdr_sum(const void *ip, bool v6, uint32_t l4_len)
{
	uint64_t a;

	if (v6) {
		const uint8_t *addrs = VFWD_IP6_SRC((const struct rte_ipv6_hdr *)ip);

		a = rte_cpu_to_be_32(l4_len) + (uint64_t)rte_cpu_to_be_32(IPPROTO_TCP);
		for (uint32_t i = 0; i < 2 * VFWD_IP6_ADDR_LEN; i += sizeof(uint32_t)) {
			uint32_t w;

			memcpy(&w, addrs + i, sizeof(w));
			a += w;
		}
	} else {
		const struct rte_ipv4_hdr *ip4 = ip;

		a = (uint64_t)ip4->src_addr + ip4->dst_addr + rte_cpu_to_be_16(IPPROTO_TCP) +
		    rte_cpu_to_be_16((uint16_t)l4_len);
	}
	return a;
}

/* A merged packet leaves as one GSO frame for the guest: offload flags,
 * the segment size, and the TCP checksum field holding the pseudo-header
 * sum with the merged length, as Linux's tcp_gro_complete leaves it for
 * CHECKSUM_PARTIAL. The IP length fields are right already; the IPv4
 * header checksum too where ip4_csum_done (else computed here). */
static void
mark_gso(struct rte_mbuf *m, bool v6, uint16_t mss, bool ip4_csum_done)
{
	void *ip = rte_pktmbuf_mtod_offset(m, void *, m->l2_len);
	struct rte_tcp_hdr *th =
		rte_pktmbuf_mtod_offset(m, struct rte_tcp_hdr *, m->l2_len + m->l3_len);

	m->tso_segsz = mss;
	m->ol_flags &= ~(RTE_MBUF_F_TX_OFFLOAD_MASK);
	m->ol_flags |= (v6 ? RTE_MBUF_F_TX_IPV6 : RTE_MBUF_F_TX_IPV4) | RTE_MBUF_F_TX_TCP_SEG |
		       RTE_MBUF_F_TX_TCP_CKSUM;
	if (v6) {
		th->cksum = fold(phdr_sum(ip, true,
					  rte_be_to_cpu_16(((struct rte_ipv6_hdr *)ip)->payload_len)));
	} else {
		struct rte_ipv4_hdr *ip4 = ip;

		if (!ip4_csum_done) {
			ip4->hdr_checksum = 0;
			ip4->hdr_checksum = rte_ipv4_cksum(ip4);
		}
		th->cksum = fold(phdr_sum(ip, false,
					  rte_be_to_cpu_16(ip4->total_length) - m->l3_len));
	}
}

/* An IPv4 header's total length changed from old to new: its checksum
 * follows (RFC 1624, eqn. 3), without summing the header again, and a
 * header that came with a wrong checksum keeps it wrong for the guest to
 * see. */
static inline void
ip4_set_length(struct rte_ipv4_hdr *ip, rte_be16_t len)
{
	uint64_t sum = (uint16_t)~ip->hdr_checksum + (uint32_t)(uint16_t)~ip->total_length + len;

	ip->total_length = len;
	ip->hdr_checksum = (rte_be16_t)~fold(sum);
}

/* ================================================= vfwd's own engine */

/* A flow is the frame's L2 header (MACs, tags, EtherType), the addresses
 * and the ports: dev_gro_receive compares the MAC header, inet/ipv6
 * gro_receive the addresses, tcp_gro_receive the ports. */
#define KEY_L2_MAX (RTE_ETHER_HDR_LEN + 2 * sizeof(struct rte_vlan_hdr))

struct gro_key {
	uint8_t l2[KEY_L2_MAX];
	uint8_t l2_len;
	uint8_t v6;
	rte_be16_t sport, dport;
	rte_be32_t addr[8];        /* IPv4: source, destination in [0..1] */
	uint32_t pad;              /* zero: the key is compared whole */
};

#define FLOW_NONE (-1)

struct gro_flow {
	struct gro_key key;
	struct rte_mbuf *head;     /* the first segment, headers and all */
	struct rte_mbuf *tail;     /* the chain's last mbuf */
	uint64_t start;            /* TSC when the head arrived */
	uint32_t hash;
	uint32_t next_seq;         /* the sequence number that may join */
	uint32_t ip_len;           /* the merged datagram's IP length so far */
	uint16_t mss;              /* the head's payload: no later segment is longer */
	uint16_t segs;             /* TCP segments merged */
	uint16_t mbufs;            /* mbufs in the chain */
	bool id_fixed;             /* IPv4 DF datagrams with one fixed ID */
	bool head_checked;         /* the head's TCP checksum verified */
	int16_t hnext;             /* the next flow of its hash bucket */
	int16_t older, newer;      /* the age list: by the head's arrival */
};

/* Owned by the stream's worker. Flows come from a free stack, are found
 * through hash buckets, and are listed by age, so that the oldest (sent
 * when the table or the mbuf budget is full, and first by a timeout)
 * is at hand. */
struct vfwd_gro_table {
	uint16_t max_flows;
	uint16_t nb_flows;
	uint16_t bucket_mask;
	uint16_t free_top;
	uint32_t held_mbufs;
	int16_t oldest, newest;
	int16_t *bucket;
	int16_t *free_stack;
	struct gro_flow flows[];
};

/* What the engine reads of one TCP segment. */
struct gro_seg {
	struct gro_key key;
	const struct rte_tcp_hdr *th;
	const void *ip;
	uint32_t hash;
	uint32_t seq;
	uint32_t ip_len;           /* from the IP header */
	uint16_t payload;
	uint8_t flags;
	bool v6;
	bool candidate;            /* its headers are of a kind that merges */
};

static struct vfwd_gro_table *
table_create(uint16_t max_flows, int socket)
{
	uint32_t buckets = rte_align32pow2(max_flows * 2u);
	size_t flows = sizeof(struct vfwd_gro_table) + max_flows * sizeof(struct gro_flow);
	size_t size = RTE_ALIGN_CEIL(flows, sizeof(int16_t)) +
		      (buckets + max_flows) * sizeof(int16_t);
	struct vfwd_gro_table *t = rte_zmalloc_socket("vfwd_gro", size, RTE_CACHE_LINE_SIZE,
						      socket < 0 ? SOCKET_ID_ANY : socket);

	if (t == NULL)
		return NULL;
	t->max_flows = max_flows;
	t->bucket_mask = (uint16_t)(buckets - 1);
	t->bucket = (int16_t *)((uint8_t *)t + RTE_ALIGN_CEIL(flows, sizeof(int16_t)));
	t->free_stack = t->bucket + buckets;
	for (uint32_t b = 0; b < buckets; b++)
		t->bucket[b] = FLOW_NONE;
	for (uint16_t f = 0; f < max_flows; f++)
		t->free_stack[f] = (int16_t)(max_flows - 1 - f);
	t->free_top = max_flows;
	t->oldest = t->newest = FLOW_NONE;
	return t;
}

/* The key's L2 part, the rest of l2[] left zero. Copies of a constant
 * size: one of m->l2_len bytes compiles to rep movs, which cost more
 * than the rest of reading the segment. */
static inline void
key_l2(struct gro_key *k, const uint8_t *p, uint8_t l2_len)
{
	switch (l2_len) {
	case RTE_ETHER_HDR_LEN:
		memcpy(k->l2, p, RTE_ETHER_HDR_LEN);
		break;
	case RTE_ETHER_HDR_LEN + sizeof(struct rte_vlan_hdr):
		memcpy(k->l2, p, RTE_ETHER_HDR_LEN + sizeof(struct rte_vlan_hdr));
		break;
	default: /* two tags: vfwd_parse types no more */
		memcpy(k->l2, p, RTE_MIN(l2_len, KEY_L2_MAX));
	}
	k->l2_len = l2_len;
}

/* A flow's bucket from its addresses and ports, read from the headers
 * (the key, just written, would be read back before its stores retire);
 * the whole key is compared in flow_find. */
static inline uint32_t
flow_hash(const void *ip, const struct rte_tcp_hdr *th, bool v6)
{
	const uint8_t *addrs = v6 ? VFWD_IP6_SRC((const struct rte_ipv6_hdr *)ip)
				  : (const uint8_t *)&((const struct rte_ipv4_hdr *)ip)->src_addr;
	uint32_t ports, h = 0;
	uint64_t w;

	/* IPv4: source and destination are 8 bytes together; IPv6: 32 */
	for (uint32_t i = 0; i < (v6 ? 2u * VFWD_IP6_ADDR_LEN : 8u); i += sizeof(w)) {
		memcpy(&w, addrs + i, sizeof(w));
		h = rte_hash_crc_8byte(w, h);
	}
	memcpy(&ports, &th->src_port, sizeof(ports));
	return rte_hash_crc_4byte(ports, h);
}

/* Read a segment's headers (vfwd_parse set the lengths). Returns false
 * for what is not TCP of a kind the guest takes: it passes untouched. */
static bool
seg_read(struct rte_mbuf *m, enum vfwd_parse kind, uint8_t kinds, struct gro_seg *sg)
{
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
	uint32_t hdrs = m->l2_len + m->l3_len + m->l4_len;
	uint32_t frame_ip;

	if (kind == VFWD_PARSE_TCP4 ? !(kinds & VFWD_GRO_KIND_TCP4) :
	    kind == VFWD_PARSE_TCP6 ? !(kinds & VFWD_GRO_KIND_TCP6) : true)
		return false;
	memset(&sg->key, 0, sizeof(sg->key));
	key_l2(&sg->key, p, m->l2_len);
	sg->ip = p + m->l2_len;
	sg->th = (const void *)(p + m->l2_len + m->l3_len);
	sg->v6 = kind == VFWD_PARSE_TCP6;
	sg->key.v6 = sg->v6;
	if (sg->v6) {
		const struct rte_ipv6_hdr *ip6 = sg->ip;

		memcpy(sg->key.addr, VFWD_IP6_SRC(ip6), VFWD_IP6_ADDR_LEN);
		memcpy((uint8_t *)sg->key.addr + VFWD_IP6_ADDR_LEN, VFWD_IP6_DST(ip6), VFWD_IP6_ADDR_LEN);
		sg->ip_len = sizeof(*ip6) + rte_be_to_cpu_16(ip6->payload_len);
		/* extension headers: not merged (the kernel pulls a few; the
		 * IPv6 payload length then covers them and ours would not) */
		sg->candidate = m->l3_len == sizeof(*ip6);
	} else {
		const struct rte_ipv4_hdr *ip4 = sg->ip;

		sg->key.addr[0] = ip4->src_addr;
		sg->key.addr[1] = ip4->dst_addr;
		sg->ip_len = rte_be_to_cpu_16(ip4->total_length);
		/* inet_gro_receive: no IP options */
		sg->candidate = ip4->version_ihl == RTE_IPV4_VHL_DEF;
	}
	sg->key.sport = sg->th->src_port;
	sg->key.dport = sg->th->dst_port;
	sg->hash = flow_hash(sg->ip, sg->th, sg->v6);
	sg->seq = rte_be_to_cpu_32(sg->th->sent_seq);
	sg->flags = sg->th->tcp_flags;
	sg->payload = (uint16_t)(sg->ip_len - m->l3_len - m->l4_len);
	/* what follows the IP datagram (Ethernet padding) is cut when the
	 * segment joins a chain: it must sit in the last mbuf */
	frame_ip = rte_pktmbuf_pkt_len(m) - m->l2_len;
	sg->candidate = sg->candidate && hdrs <= rte_pktmbuf_data_len(m) &&
			m->nb_segs <= VFWD_GRO_SEG_MBUFS_MAX &&
			frame_ip - sg->ip_len <= rte_pktmbuf_data_len(rte_pktmbuf_lastseg(m)) &&
			(m->ol_flags & RTE_MBUF_F_RX_L4_CKSUM_MASK) != RTE_MBUF_F_RX_L4_CKSUM_BAD;
	return true;
}

static struct gro_flow *
flow_find(struct vfwd_gro_table *t, const struct gro_seg *sg)
{
	for (int16_t f = t->bucket[sg->hash & t->bucket_mask]; f != FLOW_NONE;
	     f = t->flows[f].hnext) {
		struct gro_flow *fl = &t->flows[f];

		if (fl->hash == sg->hash && memcmp(&fl->key, &sg->key, sizeof(sg->key)) == 0)
			return fl;
	}
	return NULL;
}

/* Take a flow out of the table, its packet as it stands to *out. */
static void
flow_remove(struct vfwd_gro_table *t, struct gro_flow *fl)
{
	int16_t idx = (int16_t)(fl - t->flows);
	int16_t *link = &t->bucket[fl->hash & t->bucket_mask];

	while (*link != idx)
		link = &t->flows[*link].hnext;
	*link = fl->hnext;
	if (fl->older != FLOW_NONE)
		t->flows[fl->older].newer = fl->newer;
	else
		t->oldest = fl->newer;
	if (fl->newer != FLOW_NONE)
		t->flows[fl->newer].older = fl->older;
	else
		t->newest = fl->older;
	t->held_mbufs -= fl->mbufs;
	t->nb_flows--;
	t->free_stack[t->free_top++] = idx;
}

/* Send a flow: its packet, marked for GSO when segments joined it. */
static struct rte_mbuf *
flow_send(struct vfwd_gro *g, struct gro_flow *fl, struct vfwd_dir_stats *st)
{
	struct rte_mbuf *m = fl->head;

	if (fl->segs > 1) {
		void *ip = rte_pktmbuf_mtod_offset(m, void *, m->l2_len);

		if (fl->key.v6)
			((struct rte_ipv6_hdr *)ip)->payload_len =
				rte_cpu_to_be_16(fl->ip_len - sizeof(struct rte_ipv6_hdr));
		else
			ip4_set_length(ip, rte_cpu_to_be_16(fl->ip_len));
		mark_gso(m, fl->key.v6, fl->mss, true);
		st->gro_merged++;
	}
	flow_remove(g->table, fl);
	count_out(g, st, 1);
	return m;
}

static uint16_t
send_oldest(struct vfwd_gro *g, struct rte_mbuf **out, struct vfwd_dir_stats *st)
{
	struct vfwd_gro_table *t = g->table;

	if (t->oldest == FLOW_NONE)
		return 0;
	out[0] = flow_send(g, &t->flows[t->oldest], st);
	return 1;
}

/* Hold m as the head of a new flow (room was made). */
static struct gro_flow *
flow_start(struct vfwd_gro_table *t, const struct gro_seg *sg, struct rte_mbuf *m, uint64_t now)
{
	int16_t idx = t->free_stack[--t->free_top];
	struct gro_flow *fl = &t->flows[idx];
	int16_t *bucket = &t->bucket[sg->hash & t->bucket_mask];

	fl->key = sg->key;
	fl->head = m;
	fl->tail = rte_pktmbuf_lastseg(m);
	fl->start = now;
	fl->hash = sg->hash;
	fl->next_seq = sg->seq + sg->payload;
	fl->ip_len = sg->ip_len;
	fl->mss = sg->payload;
	fl->segs = 1;
	fl->mbufs = m->nb_segs;
	fl->id_fixed = false;
	fl->head_checked = false;
	fl->hnext = *bucket;
	*bucket = idx;
	fl->older = t->newest;
	fl->newer = FLOW_NONE;
	if (t->newest != FLOW_NONE)
		t->flows[t->newest].newer = idx;
	else
		t->oldest = idx;
	t->newest = idx;
	t->held_mbufs += m->nb_segs;
	t->nb_flows++;
	return fl;
}

#ifdef RTE_ARCH_X86
/* 16-bit words into 32-bit lanes, the low word of each lane masked off
 * and the high one shifted down, into four sums: no shuffles (one port
 * on most cores) and four chains of adds instead of one. Each lane of a
 * sum takes one 16-bit word a step (64 bytes with AVX2, 32 with SSE2): a
 * datagram of at most 64 KiB puts below 2^11 x 0xffff into one, and the
 * four together stay below 2^32. DPDK's pkg-config flags build for
 * corei7 (SSE4.2) whatever the machine: AVX2 is asked for here and used
 * where the CPU has it. */
__attribute__((target("avx2"))) static uint64_t
sum_wide_avx2(const uint8_t **pp, uint32_t *lenp)
{
	const __m256i low = _mm256_set1_epi32(0xffff);
	__m256i s0 = _mm256_setzero_si256(), s1 = s0, s2 = s0, s3 = s0;
	uint32_t lane[8], len = *lenp;
	const uint8_t *p = *pp;
	uint64_t a = 0;

	for (; len >= 64; len -= 64, p += 64) {
		__m256i v = _mm256_loadu_si256((const __m256i *)(const void *)p);
		__m256i w = _mm256_loadu_si256((const __m256i *)(const void *)(p + 32));

		s0 = _mm256_add_epi32(s0, _mm256_and_si256(v, low));
		s1 = _mm256_add_epi32(s1, _mm256_srli_epi32(v, 16));
		s2 = _mm256_add_epi32(s2, _mm256_and_si256(w, low));
		s3 = _mm256_add_epi32(s3, _mm256_srli_epi32(w, 16));
	}
	if (len >= 32) {
		__m256i v = _mm256_loadu_si256((const __m256i *)(const void *)p);

		s0 = _mm256_add_epi32(s0, _mm256_and_si256(v, low));
		s1 = _mm256_add_epi32(s1, _mm256_srli_epi32(v, 16));
		len -= 32;
		p += 32;
	}
	/* four lanes of < 2^32 / 4 each: their sum fits */
	s0 = _mm256_add_epi32(_mm256_add_epi32(s0, s1), _mm256_add_epi32(s2, s3));
	_mm256_storeu_si256((__m256i *)(void *)lane, s0);
	for (int i = 0; i < 8; i++)
		a += lane[i];
	*pp = p;
	*lenp = len;
	return a;
}

static uint64_t
sum_wide_sse2(const uint8_t **pp, uint32_t *lenp)
{
	const __m128i low = _mm_set1_epi32(0xffff);
	__m128i s0 = _mm_setzero_si128(), s1 = s0, s2 = s0, s3 = s0;
	uint32_t lane[4], len = *lenp;
	const uint8_t *p = *pp;
	uint64_t a = 0;

	for (; len >= 32; len -= 32, p += 32) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
		__m128i w = _mm_loadu_si128((const __m128i *)(const void *)(p + 16));

		s0 = _mm_add_epi32(s0, _mm_and_si128(v, low));
		s1 = _mm_add_epi32(s1, _mm_srli_epi32(v, 16));
		s2 = _mm_add_epi32(s2, _mm_and_si128(w, low));
		s3 = _mm_add_epi32(s3, _mm_srli_epi32(w, 16));
	}
	s0 = _mm_add_epi32(_mm_add_epi32(s0, s1), _mm_add_epi32(s2, s3));
	_mm_storeu_si128((__m128i *)(void *)lane, s0);
	for (int i = 0; i < 4; i++)
		a += lane[i];
	*pp = p;
	*lenp = len;
	return a;
}
#endif

/* The one's complement sum of len bytes at p (native order, unfolded
 * into 64 bits); the 16-bit fold of it is the Internet checksum's sum. */
static uint64_t
sum_bytes(const uint8_t *p, uint32_t len)
{
	uint64_t a = 0, b = 0;

#ifdef RTE_ARCH_X86
	a = __builtin_cpu_supports("avx2") ? sum_wide_avx2(&p, &len) : sum_wide_sse2(&p, &len);
#endif
	for (; len >= 8; len -= 8, p += 8) {
		uint64_t w;

		memcpy(&w, p, sizeof(w));
		a += (w & 0xffffffff) + (w >> 32);
	}
	if (len >= 4) {
		uint32_t w;

		memcpy(&w, p, sizeof(w));
		a += w;
		len -= 4;
		p += 4;
	}
	for (; len >= 2; len -= 2, p += 2) {
		uint16_t w;

		memcpy(&w, p, sizeof(w));
		b += w;
	}
	if (len) {
		uint16_t w = 0;

		memcpy(&w, p, 1); /* the odd byte, in memory order */
		a += w;
	}
	return a + b;
}

/* Whether a segment's TCP checksum is right: the kernel's GRO validates
 * it before merging (skb_gro_checksum_validate), because a merged frame
 * goes to the guest with NEEDS_CSUM and a checksum the guest will not
 * check. Ports that checked it in hardware say GOOD (or NONE: the data is
 * good, the field partial); otherwise it is summed here, over the chain
 * where the segment came in several mbufs (a jumbo segment from a PMD
 * that chains: net_memif, rx scatter). */
static bool
csum_ok(const struct rte_mbuf *m, bool v6)
{
	uint64_t f = m->ol_flags & RTE_MBUF_F_RX_L4_CKSUM_MASK;
	const void *ip = rte_pktmbuf_mtod_offset(m, const void *, m->l2_len);
	const uint8_t *l4 = rte_pktmbuf_mtod_offset(m, const uint8_t *, m->l2_len + m->l3_len);
	uint32_t l4_len;
	uint64_t phdr;

	if (f == RTE_MBUF_F_RX_L4_CKSUM_GOOD || f == RTE_MBUF_F_RX_L4_CKSUM_NONE)
		return true;
	if (f == RTE_MBUF_F_RX_L4_CKSUM_BAD)
		return false;
	if (v6)
		l4_len = rte_be_to_cpu_16(((const struct rte_ipv6_hdr *)ip)->payload_len);
	else
		l4_len = rte_be_to_cpu_16(((const struct rte_ipv4_hdr *)ip)->total_length) -
			 m->l3_len;
	phdr = phdr_sum(ip, v6, l4_len);
	if (m->nb_segs != 1) /* within pkt_len: vfwd_parse checked */
		return fold(vfwd_chain_raw_cksum(m, m->l2_len + m->l3_len, l4_len) + phdr) ==
		       0xffff;
	return fold(sum_bytes(l4, l4_len) + phdr) == 0xffff;
}

/* TCP options byte for byte: none, or the timestamps (NOP, NOP, 10
 * bytes) that nearly every flow carries, compared inline. */
static inline bool
options_equal(const void *a, const void *b, uint32_t len)
{
	if (len == 0)
		return true;
	if (len == 12) {
		uint64_t a8, b8;
		uint32_t a4, b4;

		memcpy(&a8, a, sizeof(a8));
		memcpy(&b8, b, sizeof(b8));
		memcpy(&a4, (const uint8_t *)a + 8, sizeof(a4));
		memcpy(&b4, (const uint8_t *)b + 8, sizeof(b4));
		return a8 == b8 && a4 == b4;
	}
	return memcmp(a, b, len) == 0;
}

/* tcp_gro_receive's and inet/ipv6_gro_receive's checks: whether sg is
 * the next segment of fl and nothing in its headers differs from the
 * head's but what may (lengths, checksums, the IPv4 ID as it counts, PSH). */
static bool
flow_takes(struct gro_flow *fl, const struct gro_seg *sg)
{
	const struct rte_mbuf *h = fl->head;
	const struct rte_tcp_hdr *hth =
		rte_pktmbuf_mtod_offset(h, const struct rte_tcp_hdr *, h->l2_len + h->l3_len);
	const struct rte_tcp_hdr *th = sg->th;
	uint32_t opt_len = (th->data_off >> 4) * 4u - sizeof(*th);

	if (sg->seq != fl->next_seq || sg->payload > fl->mss ||
	    fl->ip_len + sg->payload > VFWD_GRO_MAX_IP_LEN)
		return false;
	/* the ACK, the header length, the flags but PSH, the window, then
	 * every option (timestamps included) */
	if (th->recv_ack != hth->recv_ack || th->data_off != hth->data_off ||
	    ((th->tcp_flags ^ hth->tcp_flags) & ~RTE_TCP_PSH_FLAG) || th->rx_win != hth->rx_win ||
	    !options_equal(th + 1, hth + 1, opt_len))
		return false;
	if (sg->v6) {
		const struct rte_ipv6_hdr *ip = sg->ip;
		const struct rte_ipv6_hdr *hip =
			rte_pktmbuf_mtod_offset(h, const struct rte_ipv6_hdr *, h->l2_len);

		/* version, traffic class, flow label; the hop limit */
		return ip->vtc_flow == hip->vtc_flow && ip->hop_limits == hip->hop_limits;
	} else {
		const struct rte_ipv4_hdr *ip = sg->ip;
		const struct rte_ipv4_hdr *hip =
			rte_pktmbuf_mtod_offset(h, const struct rte_ipv4_hdr *, h->l2_len);
		uint16_t df = rte_cpu_to_be_16(RTE_IPV4_HDR_DF_FLAG);
		uint16_t id_step = (uint16_t)(rte_be_to_cpu_16(ip->packet_id) -
					      rte_be_to_cpu_16(hip->packet_id));

		if (ip->time_to_live != hip->time_to_live ||
		    ip->type_of_service != hip->type_of_service ||
		    ((ip->fragment_offset ^ hip->fragment_offset) & df))
			return false;
		/* the ID counts up one a segment; a DF flow may keep one ID,
		 * decided at its second segment (inet_gro_flush) */
		if (fl->segs == 1 && (ip->fragment_offset & df) && id_step == 0)
			fl->id_fixed = true;
		return id_step == (fl->id_fixed ? 0 : fl->segs);
	}
}

/* Chain sg's payload to fl (flow_takes said yes). */
static void
flow_join(struct vfwd_gro_table *t, struct gro_flow *fl, const struct gro_seg *sg,
	  struct rte_mbuf *m)
{
	struct rte_mbuf *h = fl->head;
	uint32_t hdrs = m->l2_len + m->l3_len + m->l4_len;

	if (fl->segs == 1) {
		/* the head's Ethernet padding, if any, goes */
		uint32_t pad = rte_pktmbuf_pkt_len(h) - h->l2_len - fl->ip_len;

		if (pad)
			rte_pktmbuf_trim(h, pad);
	}
	rte_pktmbuf_adj(m, hdrs);
	if (rte_pktmbuf_pkt_len(m) > sg->payload)
		rte_pktmbuf_trim(m, rte_pktmbuf_pkt_len(m) - sg->payload);
	fl->tail->next = m;
	fl->tail = rte_pktmbuf_lastseg(m);
	h->nb_segs += m->nb_segs;
	h->pkt_len += rte_pktmbuf_pkt_len(m);
	fl->mbufs += m->nb_segs;
	t->held_mbufs += m->nb_segs;
	fl->segs++;
	fl->next_seq += sg->payload;
	fl->ip_len += sg->payload; /* into the IP header when the frame goes */
	if (sg->flags & RTE_TCP_PSH_FLAG) {
		struct rte_tcp_hdr *th =
			rte_pktmbuf_mtod_offset(h, struct rte_tcp_hdr *, h->l2_len + h->l3_len);

		th->tcp_flags |= RTE_TCP_PSH_FLAG;
	}
}

/* m leaves as it came; counted out if it was counted in. */
static inline struct rte_mbuf *
seg_alone(struct vfwd_gro *g, struct rte_mbuf *m, bool counted, struct vfwd_dir_stats *st)
{
	if (counted)
		count_out(g, st, 1);
	return m;
}

/* One TCP segment of a kind the guest takes; returns packets put in out. */
static uint16_t
table_segment(struct vfwd_gro *g, struct rte_mbuf *m, const struct gro_seg *sg,
	      struct rte_mbuf **out, uint64_t now, struct vfwd_dir_stats *st)
{
	struct vfwd_gro_table *t = g->table;
	struct gro_flow *fl;
	uint16_t no = 0;
	bool no_hold = (sg->flags & TCP_NO_HOLD) || sg->payload == 0;
	bool could_merge = sg->candidate && !no_hold;

	if (could_merge) {
		count_in(g, st, 1);
		/* room for its mbufs first: the oldest flows go, maybe its own */
		while (t->held_mbufs + m->nb_segs > VFWD_GRO_HOLD_MAX && t->nb_flows)
			no += send_oldest(g, out + no, st);
	}
	fl = flow_find(t, sg);
	if (fl != NULL) {
		if (could_merge && flow_takes(fl, sg)) {
			if (!csum_ok(m, sg->v6)) {
				/* not merged, not held: after its flow, alone, for
				 * the guest's TCP to drop */
				out[no++] = flow_send(g, fl, st);
				out[no++] = seg_alone(g, m, true, st);
				return no;
			}
			if (!fl->head_checked && !csum_ok(fl->head, sg->v6)) {
				/* the head goes alone; this one, checked, leads
				 * the next frame (a PSH one goes as well) */
				out[no++] = flow_send(g, fl, st);
				if (sg->flags & RTE_TCP_PSH_FLAG)
					out[no++] = seg_alone(g, m, true, st);
				else
					flow_start(t, sg, m, now)->head_checked = true;
				return no;
			}
			fl->head_checked = true;
			flow_join(t, fl, sg, m);
			/* PSH, a short segment (the end of a write), or no room
			 * for one more: the flow is done (tcp_gro_receive's
			 * out_check_final) */
			if ((sg->flags & RTE_TCP_PSH_FLAG) || sg->payload < fl->mss ||
			    fl->ip_len + fl->mss > VFWD_GRO_MAX_IP_LEN)
				out[no++] = flow_send(g, fl, st);
			return no;
		}
		/* it cannot join: what the flow held goes first */
		out[no++] = flow_send(g, fl, st);
	}
	if (!could_merge || (sg->flags & RTE_TCP_PSH_FLAG)) {
		out[no++] = seg_alone(g, m, could_merge, st);
		return no;
	}
	if (t->nb_flows == t->max_flows)
		no += send_oldest(g, out + no, st); /* the kernel's gro_flush_oldest */
	flow_start(t, sg, m, now);
	g->may_hold = true;
	return no;
}

static uint16_t
table_flush(struct vfwd_gro *g, uint64_t timeout, uint64_t now, struct rte_mbuf **out,
	    uint16_t max, struct vfwd_dir_stats *st)
{
	struct vfwd_gro_table *t = g->table;
	uint16_t n = 0;

	while (n < max && t->oldest != FLOW_NONE &&
	       (timeout == 0 || now - t->flows[t->oldest].start >= timeout))
		out[n++] = flow_send(g, &t->flows[t->oldest], st);
	if (n)
		st->gro_flushes++;
	return n;
}

static uint16_t
table_burst(struct vfwd_gro *g, uint8_t kinds, struct rte_mbuf **pkts, uint16_t n,
	    struct rte_mbuf **out, uint64_t now, struct vfwd_dir_stats *st)
{
	uint16_t no = 0;

	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		enum vfwd_parse kind = vfwd_parse(m);
		struct gro_seg sg;

		if (kind == VFWD_PARSE_BAD) {
			/* no flow to tell: whatever is held goes before it */
			no += table_flush(g, 0, now, out + no, VFWD_GRO_HOLD_MAX, st);
			out[no++] = m;
		} else if ((kind != VFWD_PARSE_TCP4 && kind != VFWD_PARSE_TCP6) ||
			   !seg_read(m, kind, kinds, &sg)) {
			out[no++] = m;
		} else {
			no += table_segment(g, m, &sg, out + no, now, st);
		}
	}
	return no;
}

/* ======================================================== librte_gro */

enum dpdk_class {
	DPDK_MERGEABLE, /* TCP/IPv4 ACK-only data segment librte_gro can take */
	DPDK_BREAKER,   /* other TCP: may belong to a held flow, must not pass it */
	DPDK_PASS,      /* not TCP: no flow to keep in order with */
};

static enum dpdk_class
dpdk_classify(struct rte_mbuf *m)
{
	enum vfwd_parse kind = vfwd_parse(m);
	const struct rte_ipv4_hdr *ip;
	const struct rte_tcp_hdr *th;

	if (kind == VFWD_PARSE_BAD)
		return DPDK_BREAKER;
	if (kind != VFWD_PARSE_TCP4 && kind != VFWD_PARSE_TCP6)
		return DPDK_PASS;
	/* librte_gro 22.11 takes plain Ethernet only (its key has no VLAN):
	 * tagged TCP passes beside the runs, never held, so in order */
	if (m->l2_len != RTE_ETHER_HDR_LEN)
		return DPDK_PASS;
	if (kind == VFWD_PARSE_TCP6)
		return DPDK_BREAKER; /* not merged in 22.11, but keep it in order */
	ip = rte_pktmbuf_mtod_offset(m, const struct rte_ipv4_hdr *, m->l2_len);
	th = rte_pktmbuf_mtod_offset(m, const struct rte_tcp_hdr *, m->l2_len + m->l3_len);
	if (m->nb_segs != 1 || m->l3_len != sizeof(*ip) || th->tcp_flags != RTE_TCP_ACK_FLAG ||
	    rte_be_to_cpu_16(ip->total_length) <= m->l3_len + m->l4_len)
		return DPDK_BREAKER;
	return DPDK_MERGEABLE;
}

/* Merged packets out of librte_gro are chains, one input segment an mbuf
 * (it rewrote the IPv4 total length only); mark those for the guest. The
 * largest piece is the sender's MSS, not the head's alone: a short first
 * segment (the tail of a write, a segment that came late and went in
 * front) would make the guest cut the frame smaller than the flow did. */
static void
dpdk_mark_merged(struct vfwd_gro *g, struct rte_mbuf **pkts, uint16_t n, struct vfwd_dir_stats *st)
{
	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		uint16_t mss;

		if (m->nb_segs == 1)
			continue;
		mss = rte_pktmbuf_data_len(m) - (m->l2_len + m->l3_len + m->l4_len);
		for (const struct rte_mbuf *s = m->next; s != NULL; s = s->next)
			mss = RTE_MAX(mss, s->data_len);
		mark_gso(m, false, mss, false); /* librte_gro left the IPv4 checksum */
		st->gro_merged++;
	}
	count_out(g, st, n);
}

static uint32_t
dpdk_held(const struct vfwd_gro *g)
{
	/* rte_gro_get_pkt_count() walks every GRO type: not on each poll
	 * unless heavy mode may hold something */
	return g->ctx_may_hold ? rte_gro_get_pkt_count(g->ctx) : 0;
}

static uint16_t
dpdk_flush(struct vfwd_gro *g, uint64_t timeout_cycles, uint64_t now, struct rte_mbuf **out,
	   uint16_t max, struct vfwd_dir_stats *st)
{
	uint16_t n;

	if (dpdk_held(g) == 0) {
		g->ctx_may_hold = false;
		return 0;
	}
	if (timeout_cycles && now - g->held_since < timeout_cycles)
		return 0;
	n = rte_gro_timeout_flush(g->ctx, timeout_cycles, RTE_GRO_TCP_IPV4, out, max);
	if (n) {
		st->gro_flushes++;
		dpdk_mark_merged(g, out, n, st);
	}
	if (rte_gro_get_pkt_count(g->ctx) == 0)
		g->ctx_may_hold = false;
	/* what is left arrived after the flushed ones: restart its clock */
	g->held_since = now;
	return n;
}

/* Merge one run of mergeable segments into out; returns the count. */
static uint16_t
dpdk_run(struct vfwd_gro *g, const struct vfwd_gro_conf *conf, struct rte_mbuf **run, uint16_t nr,
	 struct rte_mbuf **out, uint64_t now, struct vfwd_dir_stats *st)
{
	uint16_t n;

	if (nr == 0)
		return 0;
	count_in(g, st, nr);
	if (conf->mode != VFWD_GRO_HEAVY) {
		/* light: librte_gro takes at most RTE_GRO_MAX_BURST_ITEM_NUM
		 * items a call; what it cannot take it puts last, so feed it
		 * chunks it can take whole */
		uint16_t done = 0;

		n = 0;
		while (done < nr) {
			uint16_t chunk = RTE_MIN(nr - done, (uint16_t)RTE_GRO_MAX_BURST_ITEM_NUM);
			struct rte_gro_param param = {
				.gro_types = RTE_GRO_TCP_IPV4,
				.max_flow_num = RTE_MIN(conf->max_flows, chunk),
				.max_item_per_flow = chunk,
			};
			uint16_t m = rte_gro_reassemble_burst(run + done, chunk, &param);

			memcpy(out + n, run + done, m * sizeof(run[0]));
			n += m;
			done += chunk;
		}
		dpdk_mark_merged(g, out, n, st);
		return n;
	}
	/* Heavy: make room first, so that no segment is refused for a full
	 * table while earlier segments of its flow are held; and feed the
	 * run in chunks the table can hold, so that held never exceeds
	 * DPDK_GRO_HOLD_SEGS even when a burst is larger than that. */
	{
		uint32_t cap = RTE_MIN((uint32_t)DPDK_GRO_HOLD_SEGS,
				       (uint32_t)g->ctx_flows * VFWD_GRO_ITEMS_PER_FLOW);
		uint16_t done = 0;

		n = 0;
		while (done < nr) {
			uint16_t chunk = (uint16_t)RTE_MIN((uint32_t)(nr - done), cap);
			uint16_t refused;

			if (dpdk_held(g) + chunk > cap)
				while (dpdk_held(g))
					n += dpdk_flush(g, 0, now, out + n, DPDK_GRO_HOLD_SEGS, st);
			if (dpdk_held(g) == 0)
				g->held_since = now;
			g->ctx_may_hold = g->may_hold = true;
			refused = rte_gro_reassemble(run + done, chunk, g->ctx);
			/* refused (table full: a new flow, nothing of it held) */
			memcpy(out + n, run + done, refused * sizeof(run[0]));
			count_out(g, st, refused);
			n += refused;
			done += chunk;
		}
	}
	return n;
}

static uint16_t
dpdk_burst(struct vfwd_gro *g, const struct vfwd_gro_conf *conf, struct rte_mbuf **pkts,
	   uint16_t n, struct rte_mbuf **out, uint64_t now, struct vfwd_dir_stats *st)
{
	struct rte_mbuf *run[VFWD_MAX_BURST], *pass[VFWD_MAX_BURST];
	uint16_t nr = 0, np = 0, no = 0;

	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];

		switch (dpdk_classify(m)) {
		case DPDK_MERGEABLE:
			run[nr++] = m;
			break;
		case DPDK_BREAKER:
			no += dpdk_run(g, conf, run, nr, out + no, now, st);
			nr = 0;
			no += dpdk_flush(g, 0, now, out + no, DPDK_GRO_HOLD_SEGS, st);
			out[no++] = m;
			break;
		case DPDK_PASS:
			pass[np++] = m;
			break;
		}
	}
	no += dpdk_run(g, conf, run, nr, out + no, now, st);
	memcpy(out + no, pass, np * sizeof(pass[0]));
	return no + np;
}

/* ============================================================ the stage */

/* may_hold (what the worker looks at on every poll) goes false once
 * neither engine holds anything. */
static inline void
note_empty(struct vfwd_gro *g)
{
	if (g->table->nb_flows == 0 && !g->ctx_may_hold)
		g->may_hold = false;
}

int
vfwd_gro_init(struct vfwd_gro *g, const struct vfwd_gro_conf *conf, int socket)
{
	struct rte_gro_param param = {
		.gro_types = RTE_GRO_TCP_IPV4,
		.max_flow_num = conf->max_flows,
		.max_item_per_flow = VFWD_GRO_ITEMS_PER_FLOW,
		.socket_id = socket < 0 ? 0 : socket,
	};

	memset(g, 0, sizeof(*g));
	g->ctx = rte_gro_ctx_create(&param);
	g->table = table_create(conf->max_flows, socket);
	if (g->ctx == NULL || g->table == NULL) {
		vfwd_gro_fini(g);
		return -ENOMEM;
	}
	g->ctx_flows = conf->max_flows;
	return 0;
}

void
vfwd_gro_fini(struct vfwd_gro *g)
{
	if (g->ctx)
		rte_gro_ctx_destroy(g->ctx);
	rte_free(g->table);
	memset(g, 0, sizeof(*g));
}

uint32_t
vfwd_gro_held(const struct vfwd_gro *g)
{
	if (!g->may_hold)
		return 0;
	return g->table->nb_flows + dpdk_held(g);
}

uint16_t
vfwd_gro_flush(struct vfwd_gro *g, uint64_t timeout_cycles, uint64_t now, struct rte_mbuf **out,
	       uint16_t max, struct vfwd_dir_stats *st)
{
	uint16_t n;

	if (!g->may_hold)
		return 0;
	n = table_flush(g, timeout_cycles, now, out, max, st);
	n += dpdk_flush(g, timeout_cycles, now, out + n, max - n, st);
	note_empty(g);
	return n;
}

uint16_t
vfwd_gro_burst(struct vfwd_gro *g, const struct vfwd_gro_conf *conf, uint8_t kinds,
	       struct rte_mbuf **pkts, uint16_t n, uint64_t now, struct vfwd_dir_stats *st)
{
	struct rte_mbuf *out[VFWD_MAX_BURST + VFWD_GRO_HOLD_MAX];
	uint16_t no = 0;

	if (g->bypass_left) {
		g->bypass_left--;
		st->gro_bypassed += n;
		return n;
	}
	if (conf->engine == VFWD_GRO_ENGINE_DPDK) {
		/* what vfwd's engine held goes first */
		if (g->table->nb_flows)
			no += table_flush(g, 0, now, out, VFWD_GRO_HOLD_MAX, st);
		if (kinds & VFWD_GRO_KIND_TCP4)
			no += dpdk_burst(g, conf, pkts, n, out + no, now, st);
		else {
			memcpy(out + no, pkts, n * sizeof(pkts[0]));
			no += n;
		}
	} else {
		if (g->ctx_may_hold)
			while (dpdk_held(g))
				no += dpdk_flush(g, 0, now, out + no, DPDK_GRO_HOLD_SEGS, st);
		no += table_burst(g, kinds, pkts, n, out + no, now, st);
		if (conf->mode != VFWD_GRO_HEAVY)
			no += table_flush(g, 0, now, out + no, VFWD_GRO_HOLD_MAX, st);
	}
	/* at most the burst plus what was held (<= VFWD_GRO_HOLD_MAX) */
	memcpy(pkts, out, no * sizeof(out[0]));

	if (++g->win_bursts == VFWD_GRO_WINDOW) {
		/* out counts what left, flushes on empty polls and timeouts
		 * included; held segments leave a window later at most */
		if (g->win_in >= VFWD_GRO_WINDOW_MIN_SEGS && g->win_out * 10ull > g->win_in * 9ull) {
			g->bypass_left = VFWD_GRO_BYPASS_BURSTS;
			no += vfwd_gro_flush(g, 0, now, pkts + no, VFWD_GRO_HOLD_MAX, st);
		}
		g->win_bursts = 0;
		g->win_in = g->win_out = 0;
	}
	note_empty(g);
	return no;
}
