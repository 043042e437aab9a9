/* SPDX-License-Identifier: BSD-3-Clause
 *
 * vfwd-testpeer: the far ends of a forwarder under test, in one process on
 * one lcore. Sends sequence-numbered UDP frames on one port and checks what
 * arrives on another: count, size, every payload byte, duplicates, order.
 * Prints one JSON object at the end.
 *
 *   vfwd-testpeer [EAL] -- [--tx-port P] [--rx-port P] [--count N]
 *                 [--size BYTES] [--duration S] [--idle-ms MS] [--timeout S]
 *                 [--linger] [--tcp [--flows F] [--mss M] [--tso N]]
 *                 [--lro] [--verify-csum] [--bad-hdr]
 *
 * --count 0 sends until --duration or a signal. The run ends when all was
 * sent and nothing arrived for --idle-ms, or at --timeout. With --linger
 * the ports stay open after the report until a signal: the memif PMD of
 * DPDK 22.11 unmaps its regions on disconnect without waiting for the other
 * side's data path, so tests stop the forwarder before its memif peer.
 *
 * --tcp sends F interleaved TCP/IPv4 streams of M-byte ACK-only segments
 * (--count counts segments) instead of UDP frames, or with --tso N frames
 * of N segments each for the port's TSO offload (tso_segsz = M). The
 * receiver checks every payload byte against its stream position and
 * follows each stream (gaps, duplicates, whether it arrived whole), with
 * --verify-csum the IPv4 and TCP checksums too. --lro enables the rx
 * offloads through which a virtio-user port takes GSO frames (GUEST_TSO4,
 * GUEST_CSUM).
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

#define BURST 32
#define MAGIC 0x56465744u /* "VFWD" */
#define HDR_LEN (sizeof(struct rte_ether_hdr) + sizeof(struct rte_ipv4_hdr) + \
		 sizeof(struct rte_udp_hdr))
#define MIN_SIZE (HDR_LEN + 12)
#define NO_PORT UINT16_MAX

struct peer {
	uint16_t tx_port, rx_port;
	uint64_t count;
	uint16_t size;
	double duration_s, timeout_s;
	unsigned int idle_ms;
	bool linger;
	struct rte_mempool *pool;

	/* --tcp */
	bool tcp, lro, verify_csum;
	uint16_t flows, mss, tso;
	bool bad_hdr;
	struct rte_mempool *big_pool; /* TSO frames fit one mbuf */
	uint64_t *tx_off;             /* per flow: bytes sent */
	uint64_t *rx_off;             /* per flow: bytes received in order */
	uint64_t rx_payload, rx_gaps, rx_dups, rx_bad_csum, rx_max_len, rx_multi_seg;

	uint64_t tx, tx_fail_bursts;
	uint64_t rx, rx_bytes, rx_bad, rx_dup, rx_reorder, rx_other;
	uint64_t next_expected;
	uint8_t *seen; /* bitmap of received sequence numbers (count > 0) */
};

static volatile sig_atomic_t quit;

static void
on_signal(int sig)
{
	(void)sig;
	quit = 1;
}

static uint8_t
pattern(uint64_t seq, unsigned int i)
{
	return (uint8_t)(seq * 7 + i);
}

static void
build(struct peer *p, struct rte_mbuf *m, uint64_t seq)
{
	struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(eth + 1);
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(ip + 1);
	uint8_t *pl = (uint8_t *)(udp + 1);
	uint32_t magic = MAGIC;
	unsigned int pl_len = p->size - HDR_LEN;

	memset(eth, 0, sizeof(*eth));
	eth->dst_addr.addr_bytes[0] = 0x02;
	eth->dst_addr.addr_bytes[5] = 0x02;
	eth->src_addr.addr_bytes[0] = 0x02;
	eth->src_addr.addr_bytes[5] = 0x01;
	eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	memset(ip, 0, sizeof(*ip));
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_UDP;
	ip->total_length = rte_cpu_to_be_16(p->size - sizeof(*eth));
	ip->src_addr = rte_cpu_to_be_32(0xc6120001); /* 198.18.0.1, benchmark range */
	ip->dst_addr = rte_cpu_to_be_32(0xc6120002);
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	udp->src_port = rte_cpu_to_be_16(9);
	udp->dst_port = rte_cpu_to_be_16(9);
	udp->dgram_len = rte_cpu_to_be_16(p->size - sizeof(*eth) - sizeof(*ip));
	udp->dgram_cksum = 0;
	memcpy(pl, &magic, 4);
	memcpy(pl + 4, &seq, 8);
	for (unsigned int i = 12; i < pl_len; i++)
		pl[i] = pattern(seq, i);
	m->data_len = m->pkt_len = p->size;
}

static void
check(struct peer *p, struct rte_mbuf *m)
{
	const uint8_t *pl;
	uint8_t buf[RTE_ETHER_MAX_JUMBO_FRAME_LEN];
	uint32_t magic;
	uint64_t seq;
	unsigned int len = rte_pktmbuf_pkt_len(m);

	if (len < MIN_SIZE || len > sizeof(buf)) {
		p->rx_other++;
		return;
	}
	pl = rte_pktmbuf_read(m, 0, len, buf);
	if (pl == NULL) {
		p->rx_bad++;
		return;
	}
	pl += HDR_LEN;
	memcpy(&magic, pl, 4);
	if (magic != MAGIC) {
		p->rx_other++; /* not ours: e.g. a kernel's IPv6 chatter on a tap */
		return;
	}
	memcpy(&seq, pl + 4, 8);
	p->rx++;
	p->rx_bytes += len;
	if (len != p->size || (p->count && seq >= p->count)) {
		p->rx_bad++;
		return;
	}
	for (unsigned int i = 12; i < len - HDR_LEN; i++) {
		if (pl[i] != pattern(seq, i)) {
			p->rx_bad++;
			return;
		}
	}
	if (p->seen) {
		if (p->seen[seq / 8] & (1u << (seq % 8))) {
			p->rx_dup++;
			return;
		}
		p->seen[seq / 8] |= 1u << (seq % 8);
	}
	if (seq < p->next_expected)
		p->rx_reorder++;
	else
		p->next_expected = seq + 1;
}


#define TCP_HDRS (sizeof(struct rte_ether_hdr) + sizeof(struct rte_ipv4_hdr) + \
		  sizeof(struct rte_tcp_hdr))
#define SEQ_BASE 1000000u

static uint8_t
stream_byte(uint32_t flow, uint64_t off)
{
	return (uint8_t)(off * 7 + flow * 13 + (off >> 8));
}

/* The next frame of the TCP stream of pkt_index's flow. */
static struct rte_mbuf *
build_tcp(struct peer *p, uint64_t pkt_index)
{
	uint32_t flow = pkt_index % p->flows;
	uint32_t payload = p->mss * (p->tso ? p->tso : 1);
	struct rte_mbuf *m = rte_pktmbuf_alloc(p->tso ? p->big_pool : p->pool);
	struct rte_ether_hdr *eth;
	struct rte_ipv4_hdr *ip;
	struct rte_tcp_hdr *th;
	uint8_t *pl;

	if (m == NULL)
		return NULL;
	eth = (struct rte_ether_hdr *)rte_pktmbuf_append(m, TCP_HDRS + payload);
	if (eth == NULL) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	ip = (struct rte_ipv4_hdr *)(eth + 1);
	th = (struct rte_tcp_hdr *)(ip + 1);
	pl = (uint8_t *)(th + 1);
	memset(eth, 0, TCP_HDRS);
	eth->dst_addr.addr_bytes[0] = 0x02;
	eth->src_addr.addr_bytes[0] = 0x02;
	eth->src_addr.addr_bytes[5] = 0x01;
	eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_TCP;
	ip->fragment_offset = rte_cpu_to_be_16(RTE_IPV4_HDR_DF_FLAG);
	ip->total_length = rte_cpu_to_be_16(TCP_HDRS - sizeof(*eth) + payload);
	ip->src_addr = rte_cpu_to_be_32(0xc6120001);
	ip->dst_addr = rte_cpu_to_be_32(0xc6120002);
	th->src_port = rte_cpu_to_be_16(1024 + flow);
	th->dst_port = rte_cpu_to_be_16(5201);
	th->sent_seq = rte_cpu_to_be_32(SEQ_BASE + (uint32_t)p->tx_off[flow]);
	th->recv_ack = rte_cpu_to_be_32(1);
	th->data_off = 5 << 4;
	th->tcp_flags = RTE_TCP_ACK_FLAG;
	th->rx_win = rte_cpu_to_be_16(65535);
	for (uint32_t i = 0; i < payload; i++)
		pl[i] = stream_byte(flow, p->tx_off[flow] + i);
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	m->l2_len = sizeof(*eth);
	m->l3_len = sizeof(*ip);
	m->l4_len = sizeof(*th);
	if (p->tso) {
		/* what a guest's TSO send looks like to the virtio PMD */
		m->ol_flags = RTE_MBUF_F_TX_TCP_SEG | RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_TCP_CKSUM;
		m->tso_segsz = p->mss;
		th->cksum = rte_ipv4_phdr_cksum(ip, m->ol_flags);
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
		th->cksum = rte_ipv4_udptcp_cksum(ip, th);
	}
	p->tx_off[flow] += payload;
	return m;
}

static void
check_tcp(struct peer *p, struct rte_mbuf *m)
{
	static uint8_t buf[65536];
	uint32_t len = rte_pktmbuf_pkt_len(m);
	const uint8_t *f = len <= sizeof(buf) ? rte_pktmbuf_read(m, 0, len, buf) : NULL;
	const struct rte_ipv4_hdr *ip;
	const struct rte_tcp_hdr *th;
	uint32_t flow, payload, hl;
	uint64_t off;

	if (f == NULL || len < TCP_HDRS) {
		p->rx_other++;
		return;
	}
	ip = (const struct rte_ipv4_hdr *)(f + sizeof(struct rte_ether_hdr));
	th = (const struct rte_tcp_hdr *)(ip + 1);
	if (((const struct rte_ether_hdr *)f)->ether_type != rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4) ||
	    ip->next_proto_id != IPPROTO_TCP || rte_be_to_cpu_16(th->dst_port) != 5201) {
		p->rx_other++;
		return;
	}
	p->rx++;
	p->rx_bytes += len;
	p->rx_max_len = RTE_MAX(p->rx_max_len, (uint64_t)len);
	p->rx_multi_seg += m->nb_segs > 1;
	hl = sizeof(struct rte_ether_hdr) + (ip->version_ihl & 0xf) * 4 + (th->data_off >> 4) * 4;
	flow = rte_be_to_cpu_16(th->src_port) - 1024;
	if (ip->version_ihl != RTE_IPV4_VHL_DEF || hl != TCP_HDRS || flow >= p->flows ||
	    rte_be_to_cpu_16(ip->total_length) + sizeof(struct rte_ether_hdr) != len) {
		p->rx_bad++;
		return;
	}
	if (p->verify_csum) {
		struct rte_ipv4_hdr copy = *ip;

		copy.hdr_checksum = 0;
		if (rte_ipv4_cksum(&copy) != ip->hdr_checksum ||
		    rte_ipv4_udptcp_cksum_verify(ip, th) != 0)
			p->rx_bad_csum++;
	}
	payload = len - hl;
	off = rte_be_to_cpu_32(th->sent_seq) - SEQ_BASE;
	for (uint32_t i = 0; i < payload; i++) {
		if (f[hl + i] != stream_byte(flow, off + i)) {
			p->rx_bad++;
			return;
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
}

static void
send_some(struct peer *p)
{
	struct rte_mbuf *pkts[BURST];
	uint64_t left = p->count ? p->count - p->tx : BURST;
	uint16_t n = left < BURST ? left : BURST, sent;

	if (p->tcp) {
		/* a frame the port refused is sent again: roll the stream back */
		/* TSO frames: about a burst's worth of segments at a time */
		uint16_t max = p->tso ? RTE_MAX(BURST / p->tso, 1) : BURST;

		for (n = 0; n < max && (p->count == 0 || p->tx + n < p->count); n++) {
			pkts[n] = build_tcp(p, p->tx + n);
			if (pkts[n] == NULL)
				break;
		}
		sent = rte_eth_tx_burst(p->tx_port, 0, pkts, n);
		for (uint16_t i = n; i > sent; i--) {
			p->tx_off[(p->tx + i - 1) % p->flows] -= rte_pktmbuf_pkt_len(pkts[i - 1]) - TCP_HDRS;
			rte_pktmbuf_free(pkts[i - 1]);
		}
		p->tx_fail_bursts += sent < n;
		p->tx += sent;
		return;
	}
	if (n == 0 || rte_pktmbuf_alloc_bulk(p->pool, pkts, n) != 0)
		return;
	for (uint16_t i = 0; i < n; i++)
		build(p, pkts[i], p->tx + i);
	sent = rte_eth_tx_burst(p->tx_port, 0, pkts, n);
	if (sent < n) {
		/* the same sequence numbers go again next time: no gaps */
		rte_pktmbuf_free_bulk(pkts + sent, n - sent);
		p->tx_fail_bursts++;
	}
	p->tx += sent;
}

static void
run(struct peer *p)
{
	uint64_t hz = rte_get_tsc_hz(), start = rte_rdtsc();
	uint64_t send_end = p->duration_s > 0 ? start + (uint64_t)(p->duration_s * hz) : UINT64_MAX;
	uint64_t give_up = start + (uint64_t)(p->timeout_s * hz);
	uint64_t idle = hz / 1000 * p->idle_ms, last_rx = rte_rdtsc();
	struct rte_mbuf *pkts[BURST];

	while (!quit) {
		uint64_t now = rte_rdtsc();
		bool tx_done = p->tx_port == NO_PORT || now >= send_end ||
			       (p->count && p->tx >= p->count);

		if (now > give_up)
			break;
		if (!tx_done) {
			send_some(p);
			last_rx = now; /* the idle clock starts when sending ends */
		}
		/* drain what arrived (bounded) before sending more, so that
		 * our own sending does not make the forwarder's tx ring overflow */
		for (int round = 0; p->rx_port != NO_PORT && round < 64; round++) {
			uint16_t n = rte_eth_rx_burst(p->rx_port, 0, pkts, BURST);

			for (uint16_t i = 0; i < n; i++) {
				if (p->tcp)
					check_tcp(p, pkts[i]);
				else
					check(p, pkts[i]);
			}
			if (n) {
				rte_pktmbuf_free_bulk(pkts, n);
				last_rx = now;
			}
			if (n < BURST)
				break;
		}
		if (!tx_done)
			continue;
		/* a receive-only peer with a duration runs for all of it */
		if (p->tx_port == NO_PORT && now < send_end)
			continue;
		/* else stop after --idle-ms of quiet; a send-only peer waits too,
		 * so that the far side can drain its ring before we close it */
		if (now - last_rx > idle)
			break;
	}
}

static int
port_init(const struct peer *p, uint16_t port, struct rte_mempool *pool)
{
	struct rte_eth_conf conf = {0};
	struct rte_eth_dev_info info;
	int ret = rte_eth_dev_info_get(port, &info);

	if (ret != 0)
		return ret;
	if (p->lro)
		conf.rxmode.offloads = info.rx_offload_capa &
			(RTE_ETH_RX_OFFLOAD_TCP_LRO | RTE_ETH_RX_OFFLOAD_TCP_CKSUM |
			 RTE_ETH_RX_OFFLOAD_SCATTER);
	if (p->tso)
		conf.txmode.offloads = info.tx_offload_capa &
			(RTE_ETH_TX_OFFLOAD_TCP_TSO | RTE_ETH_TX_OFFLOAD_TCP_CKSUM |
			 RTE_ETH_TX_OFFLOAD_MULTI_SEGS);
	ret = rte_eth_dev_configure(port, 1, 1, &conf);

	if (ret == 0)
		ret = rte_eth_rx_queue_setup(port, 0, 1024, rte_socket_id(), NULL, pool);
	if (ret == 0)
		ret = rte_eth_tx_queue_setup(port, 0, 1024, rte_socket_id(), NULL);
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
		{"lro", 0, NULL, 'L'},     {"bad-hdr", 0, NULL, 'B'},     {"verify-csum", 0, NULL, 'V'}, {NULL, 0, NULL, 0},
	};
	int opt;

	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 't': p->tx_port = atoi(optarg); break;
		case 'r': p->rx_port = atoi(optarg); break;
		case 'c': p->count = strtoull(optarg, NULL, 10); break;
		case 's': p->size = atoi(optarg); break;
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
		default: return -EINVAL;
		}
	}
	if (p->size < MIN_SIZE || p->size > RTE_MBUF_DEFAULT_DATAROOM || p->timeout_s <= 0)
		return -EINVAL;
	if (p->tcp && (p->flows < 1 || p->flows > 60000 || p->mss < 1 ||
		       p->mss * (p->tso ? p->tso : 1u) + TCP_HDRS > 65000 ||
		       (!p->tso && p->mss + TCP_HDRS > RTE_MBUF_DEFAULT_DATAROOM)))
		return -EINVAL;
	return 0;
}

int
main(int argc, char **argv)
{
	struct peer p = {.tx_port = NO_PORT, .rx_port = NO_PORT, .size = 64, .idle_ms = 1000,
			 .timeout_s = 60, .flows = 1, .mss = 1448};
	int ret = rte_eal_init(argc, argv);

	if (ret < 0)
		return 1;
	if (parse(argc - ret, argv + ret, &p) != 0) {
		fprintf(stderr, "vfwd-testpeer: bad arguments\n");
		return 2;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGPIPE, SIG_IGN);
	p.pool = rte_pktmbuf_pool_create("peer_pool", 16383, 256, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
					 rte_socket_id());
	if (p.pool == NULL)
		return 1;
	if (p.tcp) {
		p.tx_off = calloc(p.flows, sizeof(*p.tx_off));
		p.rx_off = calloc(p.flows, sizeof(*p.rx_off));
		if (p.tx_off == NULL || p.rx_off == NULL)
			return 1;
		if (p.tso) {
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
	fprintf(stderr, "vfwd-testpeer: ready\n");
	run(&p);
	printf("{\"tx\":%" PRIu64 ",\"rx\":%" PRIu64 ",\"rx_bytes\":%" PRIu64 ",\"rx_bad\":%" PRIu64
	       ",\"rx_dup\":%" PRIu64 ",\"rx_reorder\":%" PRIu64 ",\"rx_other\":%" PRIu64
	       ",\"tx_fail_bursts\":%" PRIu64,
	       p.tx, p.rx, p.rx_bytes, p.rx_bad, p.rx_dup, p.rx_reorder, p.rx_other,
	       p.tx_fail_bursts);
	if (p.tcp) {
		uint64_t complete = 0, tx_payload = 0;

		for (uint32_t f = 0; f < p.flows; f++) {
			tx_payload += p.tx_off[f];
			complete += p.tx_off[f] > 0 && p.rx_off[f] == p.tx_off[f];
		}
		printf(",\"tx_payload\":%" PRIu64 ",\"rx_payload\":%" PRIu64
		       ",\"flows_complete\":%" PRIu64 ",\"rx_gaps\":%" PRIu64 ",\"rx_dups\":%" PRIu64
		       ",\"rx_bad_csum\":%" PRIu64 ",\"rx_max_len\":%" PRIu64
		       ",\"rx_multi_seg\":%" PRIu64,
		       tx_payload, p.rx_payload, complete, p.rx_gaps, p.rx_dups, p.rx_bad_csum,
		       p.rx_max_len, p.rx_multi_seg);
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
	return 0;
}
