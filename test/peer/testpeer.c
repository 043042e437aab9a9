/* SPDX-License-Identifier: BSD-3-Clause
 *
 * vfwd-testpeer: the far ends of a forwarder under test, in one process on
 * one lcore. Sends sequence-numbered UDP frames on one port and checks what
 * arrives on another: count, size, every byte of every frame, duplicates,
 * order. Prints one JSON object at the end.
 *
 *   vfwd-testpeer [EAL] -- [--tx-port P] [--rx-port P] [--count N]
 *                 [--size BYTES] [--duration S] [--idle-ms MS] [--timeout S]
 *                 [--rate PPS] [--seq-base N] [--any-size] [--dump FILE] [--paused]
 *                 [--linger] [--tcp [--flows F] [--mss M] [--tso N] [--tcp-ts]]
 *                 [--lro] [--verify-csum] [--bad-hdr] [--queues N] [--wire-queues N]
 *                 [--vlan ID] [--ipv6]
 *
 * UDP frames (the default): 02:00:00:00:00:01 -> 02:00:00:00:00:02, IPv4
 * 198.18.0.1 -> 198.18.0.2 (TTL 64, id 0, no flags, a valid header
 * checksum), UDP 9 -> 9 with a real checksum, then the payload: a magic,
 * the 64-bit sequence number (--seq-base, then +1 a frame) and a pattern
 * of the sequence number. The receiver checks all of it: Ethernet
 * addresses and type, every IPv4 header field and the checksum, the UDP
 * ports, length and checksum (0 is refused), the magic, the sequence
 * number (with --count, within [--seq-base, --seq-base + --count)) and
 * every payload byte; the frame's length must be --size, or with
 * --any-size any length the IPv4 and UDP lengths agree with. A frame that
 * fails any of these is rx_bad (rx_bad_why says where it failed first), so
 * one flipped byte anywhere in a frame counts. A frame that carries
 * neither the magic nor the IP addresses and protocol of ours is not
 * ours (rx_other: a kernel's IPv6 chatter on a tap, net_null's frames); a
 * frame with either is ours, good or bad. Frames of another peer (another
 * --seq-base) are ours too: peers on both sides check each other.
 *
 * The shape of every frame, sent and expected (dpdk-vfwd-gen's shapes):
 * --vlan ID (1..4094) puts one 802.1Q tag with that ID (priority 0) after
 * the Ethernet addresses, and a frame received must carry exactly that
 * tag (a wrong tag: ours but rx_bad "eth"; a frame without one has its
 * marks elsewhere: rx_other). --ipv6 sends IPv6 instead of IPv4 (UDP and
 * TCP): 2001:2::12:1 -> 2001:2::12:2 (the 2001:2::/48 benchmark range,
 * RFC 5180), traffic class and flow label 0, hop limit 64, no extension
 * headers, the UDP and TCP checksums over the IPv6 pseudo header; the
 * receiver checks those fields as it does IPv4's (no header checksum).
 * --size is the whole frame (tag and headers included): at least the
 * headers and 12 bytes (54 untagged IPv4, 58 tagged, 74 IPv6, 78 tagged
 * IPv6; without --size the default 64 rises to that). The MTU counts from
 * the IP header, so a tag is not in it: where a frame's L3 size (the
 * frame less its Ethernet header and tag) is over 1500 the ports' MTU is
 * raised to it.
 *
 * --rate paces the sending (frames per second, 0: as fast as the port
 * takes them); a paced peer sleeps 50 us whenever it found nothing to
 * send or receive, so that peers sharing a CPU do not starve each other's
 * rings (a busy-polling one holds the CPU for whole time slices). SIGUSR2
 * pauses the sending and the next one resumes it (stderr says "paused, N
 * sent" and "sending" once done; --paused: start paused); the rate's clock
 * restarts at a resume and --duration runs on.
 * --dump writes every frame received (ours or not, a GSO frame whole) to
 * FILE as pcap, for a test to compare bytes.
 *
 * The run starts when every port's link is up (a memif port connects some
 * milliseconds after it started; what was sent before would be lost), at
 * most --timeout after the ports started; "ready" on stderr then.
 *
 * How a run ends, and the exit status:
 *  - sending ends after --count frames (0: no limit), at --duration, or at
 *    SIGUSR1 ("stop sending now"); then the peer drains: it ends after
 *    --idle-ms without one of its own frames (a sequence number it sent;
 *    with --tcp any of its segments) arriving. Others' frames and foreign
 *    ones do not hold it. A send-only peer waits out --idle-ms too.
 *  - a receive-only peer (no --tx-port) with --duration ends at the
 *    duration; without one, after --idle-ms without a frame of ours.
 *  - SIGINT/SIGTERM end the run at once (on purpose): status 0.
 *  Status 0: the run ended in one of these ways (whatever was lost: the
 *  JSON says, the test decides). Status 4: --timeout (counted from the
 *  start of the run) came first: sending was not finished (--count not
 *  reached, --duration not over) or its own frames were still arriving,
 *  or a link never came up; one stderr line says which, the JSON is
 *  printed as usual with "timed_out":true. Status 2: bad arguments; 1:
 *  EAL or port set-up failed.
 *
 * With --linger the ports stay open after the report until a signal: the
 * memif PMD of DPDK 22.11 unmaps its regions on disconnect without waiting
 * for the other side's data path; dpdk-vfwd guards against that, but
 * dpdk-testpmd does not, so tests stop such a forwarder before its memif
 * peer.
 *
 * --tcp sends F interleaved TCP streams (IPv4, or IPv6 with --ipv6) of
 * M-byte ACK-only segments (--count counts segments) instead of UDP
 * frames, or with --tso N frames of N segments each for the port's TSO
 * offload (tso_segsz = M; RTE_MBUF_F_TX_IPV4 or _IPV6, l2_len, l3_len and
 * l4_len from the shape, the TCP checksum over the pseudo header only).
 * --tcp-ts gives every segment a 32-byte TCP header: NOP, NOP and the
 * timestamp option, TSval 1000 + flow and TSecr 1 (fixed per flow, so GRO
 * may merge them; a merged frame keeps them). The receiver checks the
 * headers (the tag, IP version and length, the TCP header length, with
 * --tcp-ts the option's 12 bytes: rx_bad if any differs) and every
 * payload byte against its stream position, and follows each stream
 * (gaps, duplicates, whether it arrived whole), with --verify-csum the
 * IPv4 header checksum and the TCP checksum (either IP version) too.
 * --lro enables the rx offloads through which a virtio-user port takes
 * GSO frames (GUEST_TSO4/6, GUEST_CSUM).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_tcp.h>
#include <rte_udp.h>
#include "vfwd_compat.h"

#define BURST 32
#define MAGIC 0x56465744u /* "VFWD" */
#define PL_MIN 12 /* the UDP payload's magic and sequence number */
#define NO_PORT UINT16_MAX
#define EXIT_TIMEOUT 4
/* the longest --size: a jumbo frame up to vfwd's largest MTU, tagged */
#define MAX_SIZE (16000 + 14 + 8)
#define NAP_US 50 /* --rate: the nap when there was nothing to do */
/* rx descriptors asked for: a virtio port posts at most its ring
 * (virtio-user's queue_size), so a test sizes the ring with that alone;
 * a deep one rides out the moments this process is not scheduled */
#define RX_DESC 4096
#define IP_SRC 0xc6120001u /* 198.18.0.1, benchmark range */
#define IP_DST 0xc6120002u
#define UDP_PORT 9
#define TCP_TS_LEN 12   /* NOP, NOP, timestamps: a 32-byte TCP header */
#define TCP_TSVAL 1000u /* + flow: fixed per flow */

/* where a frame of ours failed first (rx_bad_why) */
enum bad_why { BAD_ETH, BAD_IP, BAD_IP_CSUM, BAD_LEN, BAD_UDP, BAD_SEQ, BAD_PAYLOAD,
	       BAD_UDP_CSUM, BAD_COUNT };
static const char *const bad_names[BAD_COUNT] = {
	"eth", "ip", "ip_csum", "len", "udp", "seq", "payload", "udp_csum",
};

/* what check() made of a frame */
enum rx_kind { RX_OTHER, RX_OURS, RX_OWN /* ours, with a sequence number we sent */ };

struct peer {
	uint16_t tx_port, rx_port;
	uint64_t count;
	uint16_t size;
	double duration_s, timeout_s, rate;
	unsigned int idle_ms;
	bool linger, any_size, paused;
	uint64_t seq_base;
	bool size_set;
	FILE *dump;

	/* the shape: --vlan, --ipv6, --tcp-ts */
	uint16_t vlan;   /* 802.1Q VLAN ID 1..4094; 0: untagged */
	bool ipv6, tcp_ts;
	uint32_t l2_len, l3_len, th_len; /* Ethernet (+ tag), IP, TCP header */
	struct rte_mempool *pool;

	/* --tcp */
	bool tcp, lro, verify_csum;
	uint16_t flows, mss, tso;
	uint16_t queues; /* --queues: of the virtio-user port, rx polled in turn, tx on 0 */
	uint16_t wire_queues; /* --wire-queues: of any other port, the same way */
	uint16_t rxq;    /* the rx port's queues */
	bool bad_hdr;
	struct rte_mempool *big_pool; /* TSO frames fit one mbuf */
	struct rte_mempool *jumbo_pool; /* UDP frames over 2048 bytes, one mbuf each */
	uint64_t *tx_off;             /* per flow: bytes sent */
	uint64_t *rx_off;             /* per flow: bytes received in order */
	uint64_t rx_payload, rx_gaps, rx_dups, rx_bad_csum, rx_max_len, rx_multi_seg;

	uint64_t tx, tx_bytes, tx_fail_bursts;
	uint64_t rx, rx_bytes, rx_bad, rx_dup, rx_reorder, rx_other;
	uint64_t rx_bad_why[BAD_COUNT];
	uint64_t next_expected;
	bool timed_out;
	uint8_t *seen; /* bitmap of received sequence numbers (count > 0) */
};

static volatile sig_atomic_t quit;
/* SIGUSR1: stop sending, then end as a completed run does (drain, report,
 * linger): for tests that decide while the peer runs when it has sent enough */
static volatile sig_atomic_t stop_sending;

static void
on_signal(int sig)
{
	(void)sig;
	quit = 1;
}

static void
on_stop_sending(int sig)
{
	(void)sig;
	stop_sending = 1;
}

/* SIGUSR2: pause the sending, the next one resumes it */
static volatile sig_atomic_t pause_toggles;

static void
on_pause(int sig)
{
	(void)sig;
	pause_toggles++;
}

static uint8_t
pattern(uint64_t seq, unsigned int i)
{
	return (uint8_t)(seq * 7 + i);
}

/* --ipv6: 2001:2::12:1 (host 1) -> 2001:2::12:2 (host 2) */
static void
ip6_addr(uint8_t addr[16], uint8_t host)
{
	memset(addr, 0, 16);
	addr[0] = 0x20, addr[1] = 0x01, addr[3] = 0x02;
	addr[13] = 0x12;
	addr[15] = host;
}

static uint32_t
udp_hdrs(const struct peer *p)
{
	return p->l2_len + p->l3_len + sizeof(struct rte_udp_hdr);
}

static uint32_t
tcp_hdrs(const struct peer *p)
{
	return p->l2_len + p->l3_len + p->th_len;
}

/* Ethernet (02:00:00:00:00:01 -> 02:00:00:00:00:dst_host) with --vlan's
 * tag, then IPv4 (frag: its flags) or IPv6 carrying l4_len bytes of proto;
 * returns where the L4 header goes. */
static uint8_t *
build_l2_l3(const struct peer *p, uint8_t *f, uint8_t dst_host, uint8_t proto, uint16_t l4_len,
	    uint16_t frag)
{
	struct rte_ether_hdr *eth = (struct rte_ether_hdr *)f;
	uint8_t *l3 = f + p->l2_len;
	uint16_t type = rte_cpu_to_be_16(p->ipv6 ? RTE_ETHER_TYPE_IPV6 : RTE_ETHER_TYPE_IPV4);

	memset(f, 0, p->l2_len + p->l3_len);
	eth->dst_addr.addr_bytes[0] = 0x02;
	eth->dst_addr.addr_bytes[5] = dst_host;
	eth->src_addr.addr_bytes[0] = 0x02;
	eth->src_addr.addr_bytes[5] = 0x01;
	if (p->vlan) {
		struct rte_vlan_hdr *vh = (struct rte_vlan_hdr *)(eth + 1);

		eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_VLAN);
		vh->vlan_tci = rte_cpu_to_be_16(p->vlan); /* priority 0 */
		vh->eth_proto = type;
	} else {
		eth->ether_type = type;
	}
	if (p->ipv6) {
		struct rte_ipv6_hdr *ip6 = (struct rte_ipv6_hdr *)l3;

		ip6->vtc_flow = rte_cpu_to_be_32(6u << 28);
		ip6->payload_len = rte_cpu_to_be_16(l4_len);
		ip6->proto = proto;
		ip6->hop_limits = 64;
		ip6_addr(VFWD_IP6_SRC(ip6), 1);
		ip6_addr(VFWD_IP6_DST(ip6), 2);
	} else {
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)l3;

		ip->version_ihl = RTE_IPV4_VHL_DEF;
		ip->time_to_live = 64;
		ip->next_proto_id = proto;
		ip->fragment_offset = rte_cpu_to_be_16(frag);
		ip->total_length = rte_cpu_to_be_16(sizeof(*ip) + l4_len);
		ip->src_addr = rte_cpu_to_be_32(IP_SRC);
		ip->dst_addr = rte_cpu_to_be_32(IP_DST);
		ip->hdr_checksum = rte_ipv4_cksum(ip);
	}
	return l3 + p->l3_len;
}

/* the L4 checksum over either IP version's pseudo header */
static uint16_t
l4_cksum(const struct peer *p, const uint8_t *l3, const void *l4)
{
	return p->ipv6 ? rte_ipv6_udptcp_cksum((const struct rte_ipv6_hdr *)l3, l4)
		       : rte_ipv4_udptcp_cksum((const struct rte_ipv4_hdr *)l3, l4);
}

static bool
l4_cksum_ok(const struct peer *p, const uint8_t *l3, const void *l4)
{
	return (p->ipv6 ? rte_ipv6_udptcp_cksum_verify((const struct rte_ipv6_hdr *)l3, l4)
			: rte_ipv4_udptcp_cksum_verify((const struct rte_ipv4_hdr *)l3, l4)) == 0;
}

/* The IP protocol where the shape has it, or -1 where the Ethernet type
 * before it (after --vlan's tag) is not the shape's IP version's. The
 * frame is at least l2_len + l3_len long. */
static int
l3_proto(const struct peer *p, const uint8_t *f)
{
	const uint8_t *l3 = f + p->l2_len;
	uint16_t type;

	memcpy(&type, l3 - 2, 2);
	if (p->ipv6)
		return type == rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV6)
			       ? ((const struct rte_ipv6_hdr *)l3)->proto : -1;
	return type == rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4)
		       ? ((const struct rte_ipv4_hdr *)l3)->next_proto_id : -1;
}

/* our source and destination addresses */
static bool
ip_addrs_ours(const struct peer *p, const uint8_t *l3)
{
	if (p->ipv6) {
		const struct rte_ipv6_hdr *ip6 = (const struct rte_ipv6_hdr *)l3;
		uint8_t src[16], dst[16];

		ip6_addr(src, 1);
		ip6_addr(dst, 2);
		return memcmp(VFWD_IP6_SRC(ip6), src, 16) == 0 && memcmp(VFWD_IP6_DST(ip6), dst, 16) == 0;
	}
	return ((const struct rte_ipv4_hdr *)l3)->src_addr == rte_cpu_to_be_32(IP_SRC) &&
	       ((const struct rte_ipv4_hdr *)l3)->dst_addr == rte_cpu_to_be_32(IP_DST);
}

/* the Ethernet types as sent: --vlan's whole tag (priority 0 as sent: no
 * checksum covers it), or none, then the IP version's */
static bool
eth_types_ok(const struct peer *p, const uint8_t *f)
{
	const struct rte_ether_hdr *eth = (const struct rte_ether_hdr *)f;
	const struct rte_vlan_hdr *vh = (const struct rte_vlan_hdr *)(eth + 1);

	if (p->vlan && (eth->ether_type != rte_cpu_to_be_16(RTE_ETHER_TYPE_VLAN) ||
			vh->vlan_tci != rte_cpu_to_be_16(p->vlan)))
		return false;
	return l3_proto(p, f) >= 0;
}

static void
build(struct peer *p, struct rte_mbuf *m, uint64_t seq)
{
	uint8_t *f = rte_pktmbuf_mtod(m, uint8_t *);
	uint16_t l4_len = p->size - p->l2_len - p->l3_len;
	struct rte_udp_hdr *udp =
		(struct rte_udp_hdr *)build_l2_l3(p, f, 0x02, IPPROTO_UDP, l4_len, 0);
	uint8_t *pl = (uint8_t *)(udp + 1);
	uint32_t magic = MAGIC;
	unsigned int pl_len = p->size - udp_hdrs(p);

	udp->src_port = rte_cpu_to_be_16(UDP_PORT);
	udp->dst_port = rte_cpu_to_be_16(UDP_PORT);
	udp->dgram_len = rte_cpu_to_be_16(l4_len);
	udp->dgram_cksum = 0;
	memcpy(pl, &magic, 4);
	memcpy(pl + 4, &seq, 8);
	for (unsigned int i = 12; i < pl_len; i++)
		pl[i] = pattern(seq, i);
	/* never 0 for UDP (either IP version) */
	udp->dgram_cksum = l4_cksum(p, f + p->l2_len, udp);
	m->data_len = m->pkt_len = p->size;
}

static enum rx_kind
bad(struct peer *p, enum bad_why why, enum rx_kind kind)
{
	p->rx_bad++;
	p->rx_bad_why[why]++;
	return kind;
}

/* Every byte of a UDP frame: see the header comment. */
static enum rx_kind
check(struct peer *p, struct rte_mbuf *m)
{
	static const uint8_t dst_mac[6] = {2, 0, 0, 0, 0, 2}, src_mac[6] = {2, 0, 0, 0, 0, 1};
	uint8_t buf[RTE_ETHER_MAX_JUMBO_FRAME_LEN];
	const struct rte_ether_hdr *eth;
	const struct rte_udp_hdr *udp;
	const uint8_t *f, *l3, *pl;
	uint32_t magic = 0, len = rte_pktmbuf_pkt_len(m), pl_len, hdrs = udp_hdrs(p);
	uint64_t seq = 0;
	bool magic_ok, addr_ok;
	enum rx_kind kind = RX_OURS;

	if (len < p->l2_len + p->l3_len) {
		p->rx_other++; /* too short to carry a mark of ours */
		return RX_OTHER;
	}
	f = rte_pktmbuf_read(m, 0, RTE_MIN(len, (uint32_t)sizeof(buf)), buf);
	eth = (const struct rte_ether_hdr *)f;
	l3 = f + p->l2_len;
	udp = (const struct rte_udp_hdr *)(l3 + p->l3_len);
	pl = (const uint8_t *)(udp + 1);
	/* ours if it carries the magic or our IP addresses and protocol
	 * (where the shape has them): one flipped byte leaves the other mark */
	if (len >= hdrs + 4)
		memcpy(&magic, pl, 4);
	magic_ok = magic == MAGIC;
	addr_ok = l3_proto(p, f) == IPPROTO_UDP && ip_addrs_ours(p, l3);
	if (!magic_ok && !addr_ok) {
		p->rx_other++; /* not ours: e.g. a kernel's IPv6 chatter on a tap */
		return RX_OTHER;
	}
	p->rx++;
	p->rx_bytes += len;
	p->rx_max_len = RTE_MAX(p->rx_max_len, (uint64_t)len);
	p->rx_multi_seg += m->nb_segs > 1;
	if (len < hdrs + PL_MIN || len > sizeof(buf))
		return bad(p, BAD_LEN, kind);
	memcpy(&seq, pl + 4, 8);
	if (seq >= p->seq_base && seq - p->seq_base < p->tx)
		kind = RX_OWN; /* one we sent, even if it came back damaged */
	if (memcmp(eth->dst_addr.addr_bytes, dst_mac, 6) != 0 ||
	    memcmp(eth->src_addr.addr_bytes, src_mac, 6) != 0 || !eth_types_ok(p, f))
		return bad(p, BAD_ETH, kind);
	if (p->ipv6) {
		const struct rte_ipv6_hdr *ip6 = (const struct rte_ipv6_hdr *)l3;

		/* no header checksum: every field as sent */
		if (ip6->vtc_flow != rte_cpu_to_be_32(6u << 28) || ip6->hop_limits != 64 ||
		    ip6->proto != IPPROTO_UDP || !ip_addrs_ours(p, l3))
			return bad(p, BAD_IP, kind);
		if (rte_be_to_cpu_16(ip6->payload_len) + p->l2_len + p->l3_len != len ||
		    (!p->any_size && len != p->size))
			return bad(p, BAD_LEN, kind);
	} else {
		const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)l3;

		if (ip->version_ihl != RTE_IPV4_VHL_DEF || ip->type_of_service != 0 ||
		    ip->packet_id != 0 || ip->fragment_offset != 0 || ip->time_to_live != 64 ||
		    ip->next_proto_id != IPPROTO_UDP || !ip_addrs_ours(p, l3))
			return bad(p, BAD_IP, kind);
		if (rte_raw_cksum(ip, sizeof(*ip)) != 0xffff)
			return bad(p, BAD_IP_CSUM, kind);
		if (rte_be_to_cpu_16(ip->total_length) + p->l2_len != len ||
		    (!p->any_size && len != p->size))
			return bad(p, BAD_LEN, kind);
	}
	if (udp->src_port != rte_cpu_to_be_16(UDP_PORT) ||
	    udp->dst_port != rte_cpu_to_be_16(UDP_PORT) ||
	    rte_be_to_cpu_16(udp->dgram_len) != len - p->l2_len - p->l3_len)
		return bad(p, BAD_UDP, kind);
	if (!magic_ok || (p->count && (seq < p->seq_base || seq - p->seq_base >= p->count)))
		return bad(p, BAD_SEQ, kind);
	pl_len = len - hdrs;
	for (unsigned int i = 12; i < pl_len; i++) {
		if (pl[i] != pattern(seq, i))
			return bad(p, BAD_PAYLOAD, kind);
	}
	/* last, so that rx_bad_why tells a payload byte from the rest; the
	 * checksum covers what the pattern cannot (the sequence number); 0
	 * ("none") is refused over either IP version */
	if (udp->dgram_cksum == 0 || !l4_cksum_ok(p, l3, udp))
		return bad(p, BAD_UDP_CSUM, kind);
	if (p->seen) {
		uint64_t i = seq - p->seq_base;

		if (p->seen[i / 8] & (1u << (i % 8))) {
			p->rx_dup++;
			return kind;
		}
		p->seen[i / 8] |= 1u << (i % 8);
	}
	if (seq < p->next_expected)
		p->rx_reorder++;
	else
		p->next_expected = seq + 1;
	return kind;
}

#define SEQ_BASE 1000000u

static uint8_t
stream_byte(uint32_t flow, uint64_t off)
{
	return (uint8_t)(off * 7 + flow * 13 + (off >> 8));
}

/* --tcp-ts: NOP, NOP, timestamps (what Linux puts on every segment),
 * fixed per flow so that GRO, which wants equal options, may merge them */
static void
tcp_ts_option(uint8_t *opt, uint32_t flow)
{
	uint32_t tsval = rte_cpu_to_be_32(TCP_TSVAL + flow), tsecr = rte_cpu_to_be_32(1);

	opt[0] = 1, opt[1] = 1, opt[2] = 8, opt[3] = 10;
	memcpy(opt + 4, &tsval, 4);
	memcpy(opt + 8, &tsecr, 4);
}

/* The next frame of the TCP stream of pkt_index's flow. */
static struct rte_mbuf *
build_tcp(struct peer *p, uint64_t pkt_index)
{
	uint32_t flow = pkt_index % p->flows;
	uint32_t payload = p->mss * (p->tso ? p->tso : 1);
	struct rte_mbuf *m = rte_pktmbuf_alloc(p->big_pool ? p->big_pool : p->pool);
	struct rte_tcp_hdr *th;
	uint8_t *f, *l3, *pl;

	if (m == NULL)
		return NULL;
	f = (uint8_t *)rte_pktmbuf_append(m, tcp_hdrs(p) + payload);
	if (f == NULL) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	l3 = f + p->l2_len;
	th = (struct rte_tcp_hdr *)build_l2_l3(p, f, 0x00, IPPROTO_TCP, p->th_len + payload,
					       RTE_IPV4_HDR_DF_FLAG);
	pl = (uint8_t *)th + p->th_len;
	memset(th, 0, p->th_len);
	th->src_port = rte_cpu_to_be_16(1024 + flow);
	th->dst_port = rte_cpu_to_be_16(5201);
	th->sent_seq = rte_cpu_to_be_32(SEQ_BASE + (uint32_t)p->tx_off[flow]);
	th->recv_ack = rte_cpu_to_be_32(1);
	th->data_off = (uint8_t)((p->th_len / 4) << 4);
	th->tcp_flags = RTE_TCP_ACK_FLAG;
	th->rx_win = rte_cpu_to_be_16(65535);
	if (p->tcp_ts)
		tcp_ts_option((uint8_t *)(th + 1), flow);
	for (uint32_t i = 0; i < payload; i++)
		pl[i] = stream_byte(flow, p->tx_off[flow] + i);
	m->l2_len = p->l2_len;
	m->l3_len = p->l3_len;
	m->l4_len = p->th_len;
	if (p->tso) {
		/* what a guest's TSO send looks like to the virtio PMD */
		m->ol_flags = RTE_MBUF_F_TX_TCP_SEG | RTE_MBUF_F_TX_TCP_CKSUM |
			      (p->ipv6 ? RTE_MBUF_F_TX_IPV6 : RTE_MBUF_F_TX_IPV4);
		m->tso_segsz = p->mss;
		th->cksum = p->ipv6 ? rte_ipv6_phdr_cksum((struct rte_ipv6_hdr *)l3, m->ol_flags)
				    : rte_ipv4_phdr_cksum((struct rte_ipv4_hdr *)l3, m->ol_flags);
		/* --bad-hdr: every other frame carries a virtio-net header that
		 * lies: gso_size 0, 1 or 65535, or csum_start beyond the frame */
		switch (p->bad_hdr ? pkt_index % 8 : 8) {
		case 1: m->tso_segsz = 0; break;
		case 3: m->tso_segsz = 1; break;
		case 5: m->tso_segsz = 65535; break;
		case 7: /* csum_start (l2 + l3 = 638) beyond a 54-byte frame */
			rte_pktmbuf_trim(m, payload);
			m->l2_len = 127;
			m->l3_len = 511;
			break;
		default: break;
		}
	} else {
		th->cksum = l4_cksum(p, l3, th);
	}
	p->tx_off[flow] += payload;
	return m;
}

static enum rx_kind
check_tcp(struct peer *p, struct rte_mbuf *m)
{
	static uint8_t buf[65536];
	uint32_t len = rte_pktmbuf_pkt_len(m);
	const uint8_t *f = len <= sizeof(buf) ? rte_pktmbuf_read(m, 0, len, buf) : NULL;
	const uint8_t *l3;
	const struct rte_tcp_hdr *th;
	uint32_t flow, payload, hl, ip_hl, ip_len;
	uint8_t opt[TCP_TS_LEN];
	uint64_t off;
	bool ip_ok;

	if (f == NULL || len < tcp_hdrs(p)) {
		p->rx_other++;
		return RX_OTHER;
	}
	l3 = f + p->l2_len;
	th = (const struct rte_tcp_hdr *)(l3 + p->l3_len);
	if (l3_proto(p, f) != IPPROTO_TCP || rte_be_to_cpu_16(th->dst_port) != 5201) {
		p->rx_other++;
		return RX_OTHER;
	}
	p->rx++;
	p->rx_bytes += len;
	p->rx_max_len = RTE_MAX(p->rx_max_len, (uint64_t)len);
	p->rx_multi_seg += m->nb_segs > 1;
	if (p->ipv6) {
		const struct rte_ipv6_hdr *ip6 = (const struct rte_ipv6_hdr *)l3;

		ip_ok = ip6->vtc_flow == rte_cpu_to_be_32(6u << 28);
		ip_hl = sizeof(*ip6);
		ip_len = sizeof(*ip6) + rte_be_to_cpu_16(ip6->payload_len);
	} else {
		const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)l3;

		ip_ok = ip->version_ihl == RTE_IPV4_VHL_DEF;
		ip_hl = (ip->version_ihl & 0xf) * 4;
		ip_len = rte_be_to_cpu_16(ip->total_length);
	}
	hl = p->l2_len + ip_hl + (th->data_off >> 4) * 4;
	flow = rte_be_to_cpu_16(th->src_port) - 1024;
	if (!ip_ok || !eth_types_ok(p, f) || hl != tcp_hdrs(p) || flow >= p->flows ||
	    ip_len + p->l2_len != len) {
		p->rx_bad++;
		return RX_OWN;
	}
	if (p->tcp_ts) {
		/* every segment carries it: GRO keeps it, GSO copies it */
		tcp_ts_option(opt, flow);
		if (memcmp(th + 1, opt, sizeof(opt)) != 0) {
			p->rx_bad++;
			return RX_OWN;
		}
	}
	if (p->verify_csum) {
		bool ip_sum_ok = true;

		if (!p->ipv6) {
			struct rte_ipv4_hdr copy = *(const struct rte_ipv4_hdr *)l3;

			copy.hdr_checksum = 0;
			ip_sum_ok = rte_ipv4_cksum(&copy) ==
				    ((const struct rte_ipv4_hdr *)l3)->hdr_checksum;
		}
		if (!ip_sum_ok || !l4_cksum_ok(p, l3, th))
			p->rx_bad_csum++;
	}
	payload = len - hl;
	off = rte_be_to_cpu_32(th->sent_seq) - SEQ_BASE;
	for (uint32_t i = 0; i < payload; i++) {
		if (f[hl + i] != stream_byte(flow, off + i)) {
			p->rx_bad++;
			return RX_OWN;
		}
	}
	p->rx_payload += payload;
	if (off == p->rx_off[flow])
		p->rx_off[flow] += payload;
	else if (off < p->rx_off[flow])
		p->rx_dups++; /* sent once, so: arrived twice or out of order */
	else {
		/* lost segments: follow the stream from here, so that a late
		 * (reordered) segment still shows as a dup */
		p->rx_gaps++;
		p->rx_off[flow] = off + payload;
	}
	return RX_OWN; /* TCP mode: every segment of ours is one we sent */
}

/* Send up to max frames (a burst at most). */
static void
send_some(struct peer *p, uint64_t max_frames)
{
	struct rte_mbuf *pkts[BURST];
	uint32_t lens[BURST];
	uint64_t left = p->count ? p->count - p->tx : BURST;
	uint16_t n = RTE_MIN(RTE_MIN(left, max_frames), (uint64_t)BURST), sent;

	if (p->tcp) {
		/* a frame the port refused is sent again: roll the stream back */
		/* TSO frames: about a burst's worth of segments at a time */
		uint16_t max = RTE_MIN(p->tso ? RTE_MAX(BURST / p->tso, 1) : BURST, n);

		for (n = 0; n < max && (p->count == 0 || p->tx + n < p->count); n++) {
			pkts[n] = build_tcp(p, p->tx + n);
			if (pkts[n] == NULL)
				break;
			lens[n] = rte_pktmbuf_pkt_len(pkts[n]); /* the port owns what it took */
		}
		sent = rte_eth_tx_burst(p->tx_port, 0, pkts, n);
		for (uint16_t i = n; i > sent; i--) {
			p->tx_off[(p->tx + i - 1) % p->flows] -= rte_pktmbuf_pkt_len(pkts[i - 1]) - tcp_hdrs(p);
			rte_pktmbuf_free(pkts[i - 1]);
		}
		p->tx_fail_bursts += sent < n;
		for (uint16_t i = 0; i < sent; i++)
			p->tx_bytes += lens[i];
		p->tx += sent;
		return;
	}
	if (n == 0 || rte_pktmbuf_alloc_bulk(p->jumbo_pool ? p->jumbo_pool : p->pool, pkts, n) != 0)
		return;
	for (uint16_t i = 0; i < n; i++)
		build(p, pkts[i], p->seq_base + p->tx + i);
	sent = rte_eth_tx_burst(p->tx_port, 0, pkts, n);
	if (sent < n) {
		/* the same sequence numbers go again next time: no gaps */
		rte_pktmbuf_free_bulk(pkts + sent, n - sent);
		p->tx_fail_bursts++;
	}
	p->tx += sent;
	p->tx_bytes += (uint64_t)sent * p->size;
}

/* --dump: the whole frame as a pcap record */
static void
dump_frame(struct peer *p, struct rte_mbuf *m, uint64_t now)
{
	static uint8_t buf[262144];
	uint32_t len = RTE_MIN(rte_pktmbuf_pkt_len(m), (uint32_t)sizeof(buf));
	const uint8_t *f = rte_pktmbuf_read(m, 0, len, buf);
	uint64_t us = now / (rte_get_tsc_hz() / 1000000);
	uint32_t rec[4] = {(uint32_t)(us / 1000000), (uint32_t)(us % 1000000), len,
			   rte_pktmbuf_pkt_len(m)};

	if (fwrite(rec, sizeof(rec), 1, p->dump) != 1 || (len && fwrite(f, len, 1, p->dump) != 1)) {
		fprintf(stderr, "vfwd-testpeer: --dump: %s\n", strerror(errno));
		fclose(p->dump);
		p->dump = NULL;
	}
}

static void
run(struct peer *p)
{
	uint64_t hz = rte_get_tsc_hz(), start = rte_rdtsc();
	uint64_t send_end = p->duration_s > 0 ? start + (uint64_t)(p->duration_s * hz) : UINT64_MAX;
	uint64_t give_up = start + (uint64_t)(p->timeout_s * hz);
	uint64_t idle = hz / 1000 * p->idle_ms, last_own = start;
	bool rx_only = p->tx_port == NO_PORT, paused = p->paused;
	uint64_t rate_start = start, rate_tx = 0; /* --rate: since the last resume */
	sig_atomic_t toggles = 0;
	struct rte_mbuf *pkts[BURST];

	while (!quit) {
		uint64_t now = rte_rdtsc();
		bool sending = !rx_only && now < send_end && !stop_sending &&
			       (p->count == 0 || p->tx < p->count);
		bool busy = false;

		if (toggles != pause_toggles) {
			toggles = pause_toggles;
			if (paused != (p->paused ^ (toggles & 1))) {
				paused = !paused;
				/* the test waits for these lines */
				if (paused)
					fprintf(stderr, "vfwd-testpeer: paused, %" PRIu64 " sent\n", p->tx);
				else
					fprintf(stderr, "vfwd-testpeer: sending\n");
				rate_start = now;
				rate_tx = p->tx;
			}
		}

		if (now > give_up) {
			p->timed_out = true;
			if (sending && p->count)
				fprintf(stderr, "vfwd-testpeer: timeout after %.1f s: sent %" PRIu64
					" of %" PRIu64 " frames\n", p->timeout_s, p->tx, p->count);
			else if (sending || (rx_only && p->duration_s > 0 && !stop_sending))
				fprintf(stderr, "vfwd-testpeer: timeout after %.1f s: --duration %.1f s"
					" not over\n", p->timeout_s, p->duration_s);
			else
				fprintf(stderr, "vfwd-testpeer: timeout after %.1f s while draining: the"
					" last frame of %s (or the end of sending) %.0f ms before,"
					" --idle-ms %u not reached\n", p->timeout_s,
					rx_only ? "ours" : "its own",
					(double)(now - last_own) * 1000 / hz, p->idle_ms);
			break;
		}
		if (sending) {
			uint64_t max = paused ? 0 : BURST;

			if (p->rate > 0 && max) {
				double due = (double)(now - rate_start) / hz * p->rate + (double)rate_tx;

				max = due > (double)p->tx ? (uint64_t)(due - (double)p->tx) : 0;
			}
			if (max) {
				uint64_t before = p->tx;

				send_some(p, max);
				busy |= p->tx != before;
			}
			last_own = now; /* the idle clock starts when sending ends */
		}
		/* drain what arrived (bounded) before sending more, so that
		 * our own sending does not make the forwarder's tx ring overflow */
		for (unsigned int round = 0; p->rx_port != NO_PORT && round < 64u * p->rxq; round++) {
			uint16_t n = rte_eth_rx_burst(p->rx_port, round % p->rxq, pkts, BURST);

			for (uint16_t i = 0; i < n; i++) {
				enum rx_kind kind;

				if (p->dump)
					dump_frame(p, pkts[i], now);
				kind = p->tcp ? check_tcp(p, pkts[i]) : check(p, pkts[i]);
				/* what holds the drain: our own frames; for a
				 * receive-only peer, any frame of ours */
				if (kind == RX_OWN || (rx_only && kind == RX_OURS))
					last_own = now;
			}
			if (n) {
				rte_pktmbuf_free_bulk(pkts, n);
				busy = true;
			}
			if (n < BURST && round % p->rxq == p->rxq - 1u)
				break;
		}
		/* a paced peer naps when there was nothing to do: two of them
		 * share a CPU without starving each other's rings */
		if (p->rate > 0 && !busy)
			rte_delay_us_sleep(NAP_US);
		if (sending)
			continue;
		/* a receive-only peer with a duration runs for all of it, and no
		 * longer (SIGUSR1 ends it like a sender's: after --idle-ms) */
		if (rx_only && p->duration_s > 0 && !stop_sending) {
			if (now >= send_end)
				break;
			continue;
		}
		/* else stop after --idle-ms without a frame of our own; a
		 * send-only peer waits too, so that the far side can drain its
		 * ring before we close it */
		if (now - last_own > idle)
			break;
	}
}

/* Every port's link up before the run (at most --timeout): a memif port
 * connects some milliseconds after it started, and what is sent before is
 * lost on the far side. */
static int
wait_links(struct peer *p)
{
	uint64_t hz = rte_get_tsc_hz(), give_up = rte_rdtsc() + (uint64_t)(p->timeout_s * hz);

	for (uint16_t port = 0; port < rte_eth_dev_count_avail(); port++) {
		struct rte_eth_link link = {0};

		while (!quit && rte_eth_link_get_nowait(port, &link) == 0 && !link.link_status) {
			if (rte_rdtsc() > give_up) {
				p->timed_out = true;
				fprintf(stderr, "vfwd-testpeer: timeout after %.1f s: the link of port %u"
					" is not up\n", p->timeout_s, port);
				return -1;
			}
			rte_delay_us_sleep(1000);
		}
	}
	return 0;
}

static int
port_init(struct peer *p, uint16_t port, struct rte_mempool *pool)
{
	struct rte_eth_conf conf = {0};
	struct rte_eth_dev_info info;
	int ret = rte_eth_dev_info_get(port, &info);
	uint32_t frame = p->tcp ? tcp_hdrs(p) + p->mss : p->size;
	uint16_t nq;

	if (ret != 0)
		return ret;
	/* the wire side (memif) pairs with a one-queue forwarder port unless
	 * told otherwise */
	nq = strcmp(info.driver_name, "net_virtio_user") == 0 ? p->queues : p->wire_queues;
	if (port == p->rx_port)
		p->rxq = nq;
	if (p->lro)
		conf.rxmode.offloads = info.rx_offload_capa &
			(RTE_ETH_RX_OFFLOAD_TCP_LRO | RTE_ETH_RX_OFFLOAD_TCP_CKSUM |
			 RTE_ETH_RX_OFFLOAD_SCATTER);
	if (p->tso)
		conf.txmode.offloads = info.tx_offload_capa &
			(RTE_ETH_TX_OFFLOAD_TCP_TSO | RTE_ETH_TX_OFFLOAD_TCP_CKSUM |
			 RTE_ETH_TX_OFFLOAD_MULTI_SEGS);
	/* the MTU counts from the IP header: a VLAN tag is not in it.
	 * net_memif has none of its own (its ethdev caps it at 1500 and
	 * chains longer frames all the same); virtio-user takes up to its mtu
	 * devarg, received into chains (scatter) */
	if (frame - p->l2_len > RTE_ETHER_MTU && strcmp(info.driver_name, "net_memif") != 0) {
		conf.rxmode.mtu = frame - p->l2_len;
		if (frame > RTE_MBUF_DEFAULT_DATAROOM)
			conf.rxmode.offloads |= info.rx_offload_capa & RTE_ETH_RX_OFFLOAD_SCATTER;
	}
	ret = rte_eth_dev_configure(port, nq, nq, &conf);

	if (ret == 0)
		for (uint16_t q = 0; q < nq && ret == 0; q++)
			ret = rte_eth_rx_queue_setup(port, q, RX_DESC, rte_socket_id(), NULL, pool);
	for (uint16_t q = 0; q < nq && ret == 0; q++)
		ret = rte_eth_tx_queue_setup(port, q, 1024, rte_socket_id(), NULL);
	if (ret == 0)
		ret = rte_eth_dev_start(port);
	return ret;
}

static int
parse(int argc, char **argv, struct peer *p)
{
	static const struct option opts[] = {
		{"tx-port", 1, NULL, 't'}, {"rx-port", 1, NULL, 'r'}, {"count", 1, NULL, 'c'},
		{"size", 1, NULL, 's'},    {"duration", 1, NULL, 'd'}, {"idle-ms", 1, NULL, 'i'},
		{"timeout", 1, NULL, 'T'}, {"linger", 0, NULL, 'l'},   {"tcp", 0, NULL, 'P'},
		{"flows", 1, NULL, 'f'},   {"mss", 1, NULL, 'm'},      {"tso", 1, NULL, 'o'},
		{"lro", 0, NULL, 'L'},     {"bad-hdr", 0, NULL, 'B'},  {"verify-csum", 0, NULL, 'V'},
		{"queues", 1, NULL, 'Q'},  {"rate", 1, NULL, 'R'},     {"seq-base", 1, NULL, 'S'},
		{"any-size", 0, NULL, 'A'}, {"dump", 1, NULL, 'D'},    {"paused", 0, NULL, 'p'},
		{"vlan", 1, NULL, 'v'},    {"ipv6", 0, NULL, '6'},     {"tcp-ts", 0, NULL, 'O'},
		{"wire-queues", 1, NULL, 'W'},
		{NULL, 0, NULL, 0},
	};
	uint32_t min_size;
	long vlan;
	char *end;
	int opt;

	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 't': p->tx_port = atoi(optarg); break;
		case 'r': p->rx_port = atoi(optarg); break;
		case 'c': p->count = strtoull(optarg, NULL, 10); break;
		case 's': p->size = atoi(optarg); p->size_set = true; break;
		case 'd': p->duration_s = atof(optarg); break;
		case 'i': p->idle_ms = atoi(optarg); break;
		case 'T': p->timeout_s = atof(optarg); break;
		case 'l': p->linger = true; break;
		case 'P': p->tcp = true; break;
		case 'f': p->flows = atoi(optarg); break;
		case 'm': p->mss = atoi(optarg); break;
		case 'o': p->tso = atoi(optarg); break;
		case 'B': p->bad_hdr = true; break;
		case 'L': p->lro = true; break;
		case 'V': p->verify_csum = true; break;
		case 'Q': p->queues = atoi(optarg); break;
		case 'W': p->wire_queues = atoi(optarg); break;
		case 'R': p->rate = atof(optarg); break;
		case 'S': p->seq_base = strtoull(optarg, NULL, 0); break;
		case 'A': p->any_size = true; break;
		case 'p': p->paused = true; break;
		case '6': p->ipv6 = true; break;
		case 'O': p->tcp_ts = true; break;
		case 'v':
			vlan = strtol(optarg, &end, 10);
			if (*optarg == '\0' || *end != '\0' || vlan < 1 || vlan > 4094) {
				fprintf(stderr, "vfwd-testpeer: --vlan %s: a VLAN ID is 1..4094\n",
					optarg);
				return -EINVAL;
			}
			p->vlan = (uint16_t)vlan;
			break;
		case 'D':
			p->dump = fopen(optarg, "wb");
			if (p->dump == NULL) {
				fprintf(stderr, "vfwd-testpeer: --dump %s: %s\n", optarg, strerror(errno));
				return -EINVAL;
			}
			break;
		default: return -EINVAL;
		}
	}
	/* the shape's header sizes */
	p->l2_len = sizeof(struct rte_ether_hdr) + (p->vlan ? sizeof(struct rte_vlan_hdr) : 0);
	p->l3_len = p->ipv6 ? sizeof(struct rte_ipv6_hdr) : sizeof(struct rte_ipv4_hdr);
	p->th_len = sizeof(struct rte_tcp_hdr) + (p->tcp_ts ? TCP_TS_LEN : 0);
	if (p->tcp_ts && !p->tcp) {
		fprintf(stderr, "vfwd-testpeer: --tcp-ts is for --tcp\n");
		return -EINVAL;
	}
	/* --size is the whole frame: the shape's headers and the magic and
	 * sequence number at least; the default rises to that */
	min_size = udp_hdrs(p) + PL_MIN;
	if (!p->size_set && p->size < min_size)
		p->size = min_size;
	if (p->size < min_size) {
		fprintf(stderr, "vfwd-testpeer: --size %u is below %u, the smallest frame of this"
			" shape (%u bytes of headers%s%s, then 12 bytes of magic and sequence"
			" number)\n", p->size, min_size, udp_hdrs(p), p->vlan ? ", a VLAN tag" : "",
			p->ipv6 ? ", IPv6" : "");
		return -EINVAL;
	}
	if (p->size > MAX_SIZE || p->timeout_s <= 0 ||
	    p->queues < 1 || p->queues > 16 || p->wire_queues < 1 || p->wire_queues > 16 ||
	    p->rate < 0 ||
	    p->seq_base > UINT64_MAX - (p->count ? p->count : 1ull << 40))
		return -EINVAL;
	if (p->tcp && (p->flows < 1 || p->flows > 60000 || p->mss < 1 ||
		       p->mss * (p->tso ? p->tso : 1u) + tcp_hdrs(p) > 65000 ||
		       (!p->tso && p->mss + tcp_hdrs(p) > MAX_SIZE)))
		return -EINVAL;
	return 0;
}

int
main(int argc, char **argv)
{
	struct peer p = {.tx_port = NO_PORT, .rx_port = NO_PORT, .size = 64, .idle_ms = 1000,
			 .timeout_s = 60, .flows = 1, .mss = 1448, .queues = 1, .wire_queues = 1,
			 .rxq = 1};
	int ret = rte_eal_init(argc, argv);

	if (ret < 0)
		return 1;
	if (parse(argc - ret, argv + ret, &p) != 0) {
		fprintf(stderr, "vfwd-testpeer: bad arguments\n");
		return 2;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGUSR1, on_stop_sending);
	signal(SIGUSR2, on_pause);
	signal(SIGPIPE, SIG_IGN);
	/* every rx queue beyond a port's first may hold RX_DESC of them, and
	 * as many in flight */
	p.pool = rte_pktmbuf_pool_create("peer_pool",
					 16383 + 2u * (p.queues + p.wire_queues - 2u) * RX_DESC, 256, 0,
					 RTE_MBUF_DEFAULT_BUF_SIZE,
					 rte_socket_id());
	if (p.pool == NULL)
		return 1;
	if (!p.tcp && p.size > RTE_MBUF_DEFAULT_DATAROOM) {
		p.jumbo_pool = rte_pktmbuf_pool_create("peer_jumbo", 4095, 64, 0,
						       RTE_PKTMBUF_HEADROOM + p.size, rte_socket_id());
		if (p.jumbo_pool == NULL)
			return 1;
	}
	if (p.tcp) {
		p.tx_off = calloc(p.flows, sizeof(*p.tx_off));
		p.rx_off = calloc(p.flows, sizeof(*p.rx_off));
		if (p.tx_off == NULL || p.rx_off == NULL)
			return 1;
		/* TSO frames, and segments over one default mbuf (jumbo) */
		if (p.tso || p.mss + tcp_hdrs(&p) > RTE_MBUF_DEFAULT_DATAROOM) {
			p.big_pool = rte_pktmbuf_pool_create("peer_big", 2047, 32, 0,
							     RTE_PKTMBUF_HEADROOM + 65000,
							     rte_socket_id());
			if (p.big_pool == NULL)
				return 1;
		}
	} else if (p.count) {
		p.seen = calloc(p.count / 8 + 1, 1);
		if (p.seen == NULL)
			return 1;
	}
	for (uint16_t port = 0; port < rte_eth_dev_count_avail(); port++) {
		if (port_init(&p, port, p.pool) != 0) {
			fprintf(stderr, "vfwd-testpeer: port %u init failed\n", port);
			return 1;
		}
	}
	if (p.dump) {
		/* pcap, microsecond stamps, Ethernet, snap length 256 KiB */
		static const uint32_t hdr[6] = {0xa1b2c3d4, 2 | 4u << 16, 0, 0, 262144, 1};

		if (fwrite(hdr, sizeof(hdr), 1, p.dump) != 1) {
			fprintf(stderr, "vfwd-testpeer: --dump: %s\n", strerror(errno));
			return 1;
		}
	}
	if (wait_links(&p) == 0) {
		fprintf(stderr, "vfwd-testpeer: ready\n");
		run(&p);
	}
	if (p.dump && fclose(p.dump) != 0)
		fprintf(stderr, "vfwd-testpeer: --dump: %s\n", strerror(errno));
	printf("{\"tx\":%" PRIu64 ",\"rx\":%" PRIu64 ",\"rx_bytes\":%" PRIu64 ",\"rx_bad\":%" PRIu64
	       ",\"rx_dup\":%" PRIu64 ",\"rx_reorder\":%" PRIu64 ",\"rx_other\":%" PRIu64
	       ",\"tx_fail_bursts\":%" PRIu64 ",\"tx_bytes\":%" PRIu64 ",\"seq_base\":%" PRIu64
	       ",\"timed_out\":%s,\"rx_max_len\":%" PRIu64 ",\"rx_multi_seg\":%" PRIu64,
	       p.tx, p.rx, p.rx_bytes, p.rx_bad, p.rx_dup, p.rx_reorder, p.rx_other,
	       p.tx_fail_bursts, p.tx_bytes, p.seq_base, p.timed_out ? "true" : "false",
	       p.rx_max_len, p.rx_multi_seg);
	if (!p.tcp) {
		printf(",\"rx_bad_why\":{");
		for (int w = 0; w < BAD_COUNT; w++)
			printf("%s\"%s\":%" PRIu64, w ? "," : "", bad_names[w], p.rx_bad_why[w]);
		printf("}");
	}
	if (p.rx_port != NO_PORT) {
		/* the port's own counters: a virtio port counts the frames it
		 * refused (shorter than an Ethernet header) as ierrors */
		struct rte_eth_stats st = {0};

		rte_eth_stats_get(p.rx_port, &st);
		printf(",\"rx_port\":{\"ipackets\":%" PRIu64 ",\"ierrors\":%" PRIu64
		       ",\"imissed\":%" PRIu64 ",\"rx_nombuf\":%" PRIu64 "}",
		       st.ipackets, st.ierrors, st.imissed, st.rx_nombuf);
	}
	if (p.tcp) {
		uint64_t complete = 0, tx_payload = 0;

		for (uint32_t f = 0; f < p.flows; f++) {
			tx_payload += p.tx_off[f];
			complete += p.tx_off[f] > 0 && p.rx_off[f] == p.tx_off[f];
		}
		printf(",\"tx_payload\":%" PRIu64 ",\"rx_payload\":%" PRIu64
		       ",\"flows_complete\":%" PRIu64 ",\"rx_gaps\":%" PRIu64 ",\"rx_dups\":%" PRIu64
		       ",\"rx_bad_csum\":%" PRIu64,
		       tx_payload, p.rx_payload, complete, p.rx_gaps, p.rx_dups, p.rx_bad_csum);
	}
	printf("}\n");
	fflush(stdout);
	while (p.linger && !quit)
		rte_delay_us_sleep(10000);
	for (uint16_t port = 0; port < rte_eth_dev_count_avail(); port++) {
		rte_eth_dev_stop(port);
		rte_eth_dev_close(port);
	}
	free(p.seen);
	free(p.tx_off);
	free(p.rx_off);
	rte_eal_cleanup();
	return p.timed_out ? EXIT_TIMEOUT : 0;
}
