/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The worker's rounds on ring ports (rte_eth_from_rings: the test fills
 * each port's rx ring and empties its tx ring), and its counters read from
 * another thread while control re-initialises it. Needs EAL (mempools,
 * ethdev) but no hugepages and no device.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include <rte_eal.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_pause.h>
#include <rte_ring.h>
#include <rte_tcp.h>
#include <rte_udp.h>

#include "check.h"
#include "unit_eal.h"
#include "unit_ring_port.h"
#include "vfwd_worker.h"

#define NB_PORTS 8
#define RING_SIZE 4096
#define MSS 1000
#define HDRS (14 + 20 + 20)

static struct rte_mempool *pool, *indirect_pool;
static struct rte_ring *rx_ring[NB_PORTS], *tx_ring[NB_PORTS];
static uint16_t port_id[NB_PORTS];
static struct vfwd_port_state port_state[VFWD_MAX_PORTS];
static struct vfwd_plan_lcore plan_lcore;
/* two pairs of two-queue ports (mq_port[2p] the VM side of pair p), the
 * last tx queue small enough to overflow */
#define MQ_PORTS 4
#define MQ_QUEUES 2
#define SMALL_TX 32
static struct rte_ring *mq_rx[MQ_PORTS][MQ_QUEUES], *mq_tx[MQ_PORTS][MQ_QUEUES];
static uint16_t mq_port[MQ_PORTS];
static struct vfwd_worker *worker; /* rte_zmalloc'd, as the app does */

/* ------------------------------------------------------------ frames */

/* Ethernet + IPv4 + TCP segment seg of flow, MSS bytes of payload, ACK. */
static struct rte_mbuf *
tcp_seg(uint32_t flow, uint32_t seg)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	uint8_t *f;
	struct rte_ether_hdr *eth;
	struct rte_ipv4_hdr *ip;
	struct rte_tcp_hdr *th;

	RTE_VERIFY(m != NULL);
	f = (uint8_t *)rte_pktmbuf_append(m, HDRS + MSS);
	RTE_VERIFY(f != NULL);
	memset(f, 0, HDRS + MSS);
	eth = (void *)f;
	ip = (void *)(eth + 1);
	th = (void *)(ip + 1);
	eth->dst_addr.addr_bytes[0] = 2;
	eth->src_addr.addr_bytes[0] = 2;
	eth->src_addr.addr_bytes[5] = 1;
	eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->total_length = rte_cpu_to_be_16(HDRS + MSS - 14);
	ip->packet_id = rte_cpu_to_be_16((uint16_t)seg);
	ip->fragment_offset = rte_cpu_to_be_16(RTE_IPV4_HDR_DF_FLAG);
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_TCP;
	ip->src_addr = rte_cpu_to_be_32(0xc6120000 | flow);
	ip->dst_addr = rte_cpu_to_be_32(0xc6130001);
	th->src_port = rte_cpu_to_be_16(1024);
	th->dst_port = rte_cpu_to_be_16(5201);
	th->sent_seq = rte_cpu_to_be_32(1000000 + seg * MSS);
	th->recv_ack = rte_cpu_to_be_32(7);
	th->data_off = 5 << 4;
	th->tcp_flags = RTE_TCP_ACK_FLAG;
	th->rx_win = rte_cpu_to_be_16(65535);
	for (uint32_t i = 0; i < MSS; i++)
		f[HDRS + i] = (uint8_t)(i * 7 + seg);
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	th->cksum = rte_ipv4_udptcp_cksum(ip, th);
	return m;
}

/* A 64-byte UDP/IPv4 frame: nothing for GRO or the wire stage to do. */
static struct rte_mbuf *
udp_frame(void)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	uint8_t *f;
	struct rte_ipv4_hdr *ip;

	RTE_VERIFY(m != NULL);
	f = (uint8_t *)rte_pktmbuf_append(m, 64);
	RTE_VERIFY(f != NULL);
	memset(f, 0, 64);
	((struct rte_ether_hdr *)f)->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	ip = (struct rte_ipv4_hdr *)(f + 14);
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->total_length = rte_cpu_to_be_16(64 - 14);
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_UDP;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	return m;
}

static void
feed_udp(unsigned int p, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		RTE_VERIFY(rte_ring_enqueue(rx_ring[p], udp_frame()) == 0);
}

/* Empty port p's tx ring: returns the packets it held (and their TCP
 * payload bytes in *payload when not NULL); frees them. */
static unsigned int
drain_tx(unsigned int p, uint64_t *payload)
{
	struct rte_mbuf *m;
	unsigned int n = 0;

	while (rte_ring_dequeue(tx_ring[p], (void **)&m) == 0) {
		if (payload != NULL)
			*payload += rte_pktmbuf_pkt_len(m) - HDRS;
		rte_pktmbuf_free(m);
		n++;
	}
	return n;
}

/* ------------------------------------------------------------ worker */

static struct vfwd_knobs
deferred_knobs(void)
{
	return (struct vfwd_knobs){
		.burst = 32,
		.gro = {.enabled = true, .mode = VFWD_GRO_HEAVY, .max_flows = 64, .flush_us = 50},
		.rx_mode = VFWD_RX_POLL,
		.deliver = VFWD_DELIVER_DEFERRED,
		.napi_weight = 64,
		.round_budget = 300,
		.round_budget_us = 0,
		.defer_polls = 32,
		.tx_batch = 1,
		.tx_flush_us = 50,
	};
}

/* A direct-role worker with one stream per port p < nb (port p -> port p,
 * direction dirs[p]), offload state and a backlog of backlog packets. */
static void
worker_setup(unsigned int nb, const uint8_t *dirs, const struct vfwd_knobs *k,
	     unsigned int backlog)
{
	memset(&plan_lcore, 0, sizeof(plan_lcore));
	plan_lcore.role = VFWD_ROLE_DIRECT;
	plan_lcore.nb_streams = (uint16_t)nb;
	for (unsigned int p = 0; p < nb; p++)
		plan_lcore.streams[p] = (struct vfwd_stream){
			.rx_port = port_id[p], .rx_queue = 0,
			.tx_port = port_id[p], .tx_queue = 0,
			.dir = dirs[p], .pair = 0, .id = (uint16_t)p,
		};
	memset(worker, 0, sizeof(*worker));
	vfwd_worker_init(worker, rte_lcore_id(), &plan_lcore, port_state, k);
	RTE_VERIFY(vfwd_worker_offload_init(worker, pool, indirect_pool, 64, 0) == 0);
	RTE_VERIFY(vfwd_worker_queues_init(worker, backlog, 0) == 0);
}

static void
worker_teardown(unsigned int nb)
{
	for (uint16_t i = 0; i < worker->nb_streams; i++) {
		struct rte_mbuf *out[VFWD_GRO_HOLD_MAX];
		struct vfwd_dir_stats d;

		while (worker->streams[i].s.dir == VFWD_DIR_WIRE_TO_VM &&
		       vfwd_gro_held(&worker->streams[i].off.gro))
			rte_pktmbuf_free_bulk(out, vfwd_gro_flush(&worker->streams[i].off.gro, 0,
								  rte_rdtsc(), out, RTE_DIM(out),
								  &d));
	}
	vfwd_worker_queues_fini(worker);
	vfwd_worker_offload_fini(worker);
	vfwd_worker_fini(worker);
	for (unsigned int p = 0; p < nb; p++) {
		struct rte_mbuf *m;

		drain_tx(p, NULL);
		while (rte_ring_dequeue(rx_ring[p], (void **)&m) == 0)
			rte_pktmbuf_free(m);
	}
}

static uint64_t
us_to_tsc(uint64_t us)
{
	return us * (rte_get_tsc_hz() / 1000000);
}

/* ------------------------------------------------------------ tests */

/* Deferred delivery, heavy GRO: a stream that went idle sends what GRO
 * holds for it at once (as direct delivery does when its queue runs
 * empty), even while a busy stream keeps the backlog from running dry. */
static void
deferred_idle_stream_gro_leaves(void)
{
	static const uint8_t dirs[] = {VFWD_DIR_WIRE_TO_VM, VFWD_DIR_VM_TO_WIRE};
	struct vfwd_knobs k = deferred_knobs();
	uint64_t now = rte_rdtsc(), payload = 0;
	unsigned int got = 0, round;

	k.burst = 64;
	k.napi_weight = 16; /* the busy stream brings more than a drain takes */
	worker_setup(2, dirs, &k, 256);
	/* port 0: four segments of one flow, then nothing more */
	for (uint32_t s = 0; s < 4; s++)
		RTE_VERIFY(rte_ring_enqueue(rx_ring[0], tcp_seg(1, s)) == 0);
	for (round = 0; round < 20 && got == 0; round++) {
		feed_udp(1, 64);
		vfwd_worker_round(worker, &k, now);
		now += us_to_tsc(10);
		got = drain_tx(0, &payload);
		drain_tx(1, NULL);
		/* the busy stream keeps the backlog from running empty */
		CHECK(rte_ring_count(worker->backlog) > 0);
	}
	printf("# idle stream: %u packet(s), %lu payload bytes after %u rounds; backlog %u\n",
	       got, (unsigned long)payload, round, rte_ring_count(worker->backlog));
	/* the first round took the 4 segments (GRO holds them), the second
	 * found the queue empty: out then, merged */
	CHECK(got == 1 && payload == 4 * MSS);
	CHECK(round <= 3);
	CHECK(worker->stats.dir[VFWD_DIR_WIRE_TO_VM].gro_merged == 1);
	worker_teardown(2);
}

/* A stream still busy (a later packet of it waits in the backlog) sends
 * what GRO held by the flush timeout, not only once that later packet is
 * drained. Real time between rounds: librte_gro's own timeout reads the TSC. */
static void
deferred_busy_stream_gro_times_out(void)
{
	static const uint8_t dirs[] = {VFWD_DIR_WIRE_TO_VM, VFWD_DIR_VM_TO_WIRE};
	struct vfwd_knobs k = deferred_knobs();
	const struct vfwd_dir_stats *d = &worker->stats.dir[VFWD_DIR_WIRE_TO_VM];
	uint64_t payload = 0, gro_in_at_out = 0;
	unsigned int got = 0, round;

	k.burst = 64;
	k.napi_weight = 16;
	k.gro.flush_us = 50;
	worker_setup(2, dirs, &k, 1024);
	for (round = 0; round < 40 && got == 0; round++) {
		/* port 0: 4 segments behind a backlog of port 1's frames, a
		 * fifth a round later, then nothing */
		if (round == 3)
			for (uint32_t s = 0; s < 4; s++)
				RTE_VERIFY(rte_ring_enqueue(rx_ring[0], tcp_seg(2, s)) == 0);
		if (round == 4)
			RTE_VERIFY(rte_ring_enqueue(rx_ring[0], tcp_seg(2, 4)) == 0);
		feed_udp(1, 64);
		vfwd_worker_round(worker, &k, rte_rdtsc());
		got = drain_tx(0, &payload);
		gro_in_at_out = d->gro_in;
		drain_tx(1, NULL);
		rte_delay_us_block(2 * k.gro.flush_us);
	}
	printf("# busy stream: first GRO output in round %u: %u packet(s), %lu payload bytes, "
	       "gro_in %lu then\n", round, got, (unsigned long)payload,
	       (unsigned long)gro_in_at_out);
	/* the 4 held segments left while the fifth still waited */
	CHECK(got == 1 && payload == 4 * MSS);
	CHECK(gro_in_at_out == 4);
	CHECK(worker->stats.backlog_drops == 0);
	worker_teardown(2);
}

/* Three streams that each fill a burst every round: the backlog drains a
 * weight per feeding stream, as many backlog polls as there were device
 * polls feeding it, so it does not overflow. */
static void
deferred_backlog_keeps_up_with_3_streams(void)
{
	static const uint8_t dirs[] = {VFWD_DIR_VM_TO_WIRE, VFWD_DIR_VM_TO_WIRE,
				       VFWD_DIR_VM_TO_WIRE};
	struct vfwd_knobs k = deferred_knobs(); /* burst 32, weight 64, backlog 1000 */
	uint64_t now = rte_rdtsc();
	unsigned int sent = 0, max_depth = 0;

	worker_setup(3, dirs, &k, 1000);
	for (unsigned int round = 0; round < 200; round++) {
		for (unsigned int p = 0; p < 3; p++)
			feed_udp(p, 32);
		vfwd_worker_round(worker, &k, now);
		now += us_to_tsc(10);
		max_depth = RTE_MAX(max_depth, rte_ring_count(worker->backlog));
		for (unsigned int p = 0; p < 3; p++)
			sent += drain_tx(p, NULL);
	}
	printf("# 3 streams x 32 per round: backlog_drops %lu, max depth %u, sent %u of %u\n",
	       (unsigned long)worker->stats.backlog_drops, max_depth, sent, 200 * 96);
	CHECK(worker->stats.backlog_drops == 0);
	CHECK(max_depth <= 96);
	CHECK(sent + rte_ring_count(worker->backlog) == 200 * 96);
	worker_teardown(3);
}

/* ... but no more polls than the round budget (netdev_budget) starts:
 * eight streams of 64 against a budget of 300 overflow, and each round
 * drains 5 weights of 64 (ceil(300 / 64), as net_rx_action would) while
 * the backlog has them. A budget below the weight still drains a weight. */
static void
deferred_backlog_drain_bounded_by_round_budget(void)
{
	uint8_t dirs[NB_PORTS];
	struct vfwd_knobs k = deferred_knobs();
	uint64_t now = rte_rdtsc(), deq = 0;
	bool bounded = true;

	for (unsigned int p = 0; p < NB_PORTS; p++)
		dirs[p] = VFWD_DIR_VM_TO_WIRE;
	k.burst = 64;
	worker_setup(NB_PORTS, dirs, &k, 1000);
	for (unsigned int round = 0; round < 50; round++) {
		for (unsigned int p = 0; p < NB_PORTS; p++)
			feed_udp(p, 64);
		vfwd_worker_round(worker, &k, now);
		now += us_to_tsc(10);
		bounded = bounded && worker->stats.backlog_deq - deq == 5 * 64;
		deq = worker->stats.backlog_deq;
		for (unsigned int p = 0; p < NB_PORTS; p++)
			drain_tx(p, NULL);
	}
	printf("# 8 streams x 64, budget 300: backlog_drops %lu, deq %lu\n",
	       (unsigned long)worker->stats.backlog_drops, (unsigned long)deq);
	CHECK(bounded);
	CHECK(worker->stats.backlog_drops > 0);
	worker_teardown(NB_PORTS);

	/* budget 40, weight 64: one stream of 64 a round drains all of it */
	k.round_budget = 40;
	worker_setup(1, dirs, &k, 1000);
	for (unsigned int round = 0; round < 50; round++) {
		feed_udp(0, 64);
		vfwd_worker_round(worker, &k, now);
		drain_tx(0, NULL);
	}
	printf("# 1 stream x 64, budget 40: backlog_drops %lu, depth %u\n",
	       (unsigned long)worker->stats.backlog_drops, rte_ring_count(worker->backlog));
	CHECK(worker->stats.backlog_drops == 0 && rte_ring_count(worker->backlog) == 0);
	worker_teardown(1);
}

/* ------------------------------------------------------ stream counters */

static unsigned int
mq_drain_tx(unsigned int p, unsigned int q)
{
	struct rte_mbuf *m;
	unsigned int n = 0;

	while (rte_ring_dequeue(mq_tx[p][q], (void **)&m) == 0) {
		rte_pktmbuf_free(m);
		n++;
	}
	return n;
}

/* What the test fed stream (pair, queue, dir): distinct per stream, so
 * that a count landing under another key shows. */
static unsigned int
mq_fed(uint16_t pair, uint16_t q, uint8_t dir)
{
	return 3 + 5 * pair + 2 * q + dir;
}

/* Two pairs x two queues on one direct worker, both directions. Each
 * stream counts what it received and sent under its own key; one that
 * overflows its tx queue counts the drops, one through GRO counts its
 * segments in and packets out; per stream rx - (gro_in - gro_out) = tx +
 * drops, and the streams of each direction sum to the dir counters. */
static void
stream_counts_two_pairs_two_queues(void)
{
	struct vfwd_knobs k = deferred_knobs();
	const struct vfwd_lcore_stats *st = &worker->stats;
	const uint16_t overflow = vfwd_stream_key(1, 1, VFWD_DIR_VM_TO_WIRE);
	const uint16_t merging = vfwd_stream_key(0, 1, VFWD_DIR_WIRE_TO_VM);
	uint64_t sent[VFWD_MAX_STREAMS] = {0};
	struct vfwd_stream_stats dir_sum[VFWD_DIR_COUNT];
	unsigned int n = 0;

	k.deliver = VFWD_DELIVER_DIRECT;
	k.gro.mode = VFWD_GRO_LIGHT;
	k.tx_retry = 0;
	k.burst = 64; /* every stream's feed in one burst */
	memset(&plan_lcore, 0, sizeof(plan_lcore));
	plan_lcore.role = VFWD_ROLE_DIRECT;
	for (uint16_t p = 0; p < 2; p++)
		for (uint16_t q = 0; q < MQ_QUEUES; q++)
			for (uint8_t d = 0; d < VFWD_DIR_COUNT; d++, n++) {
				uint16_t vm = mq_port[2 * p], wire = mq_port[2 * p + 1];
				bool to_wire = d == VFWD_DIR_VM_TO_WIRE;

				plan_lcore.streams[n] = (struct vfwd_stream){
					.rx_port = to_wire ? vm : wire, .rx_queue = q,
					.tx_port = to_wire ? wire : vm, .tx_queue = q,
					.dir = d, .pair = (uint8_t)p, .id = (uint16_t)n,
				};
			}
	plan_lcore.nb_streams = (uint16_t)n;
	memset(worker, 0, sizeof(*worker));
	vfwd_worker_init(worker, rte_lcore_id(), &plan_lcore, port_state, &k);
	RTE_VERIFY(vfwd_worker_offload_init(worker, pool, indirect_pool, 64, 0) == 0);

	for (uint16_t i = 0; i < n; i++) {
		const struct vfwd_stream *s = &plan_lcore.streams[i];
		unsigned int rx_p = 2 * s->pair + (s->dir == VFWD_DIR_WIRE_TO_VM);
		uint16_t key = vfwd_stream_key(s->pair, s->rx_queue, s->dir);
		unsigned int want = key == overflow ? SMALL_TX + 8 : mq_fed(s->pair, s->rx_queue, s->dir);

		for (unsigned int j = 0; j < want; j++)
			RTE_VERIFY(rte_ring_enqueue(mq_rx[rx_p][s->rx_queue],
						    key == merging ? tcp_seg(9, j) : udp_frame()) == 0);
		sent[key] = want;
	}
	vfwd_worker_round(worker, &k, rte_rdtsc());

	memset(dir_sum, 0, sizeof(dir_sum));
	for (uint16_t i = 0; i < n; i++) {
		const struct vfwd_stream *s = &plan_lcore.streams[i];
		unsigned int tx_p = 2 * s->pair + (s->dir == VFWD_DIR_VM_TO_WIRE);
		uint16_t key = vfwd_stream_key(s->pair, s->rx_queue, s->dir);
		const struct vfwd_stream_stats *ss = &st->stream[key];
		unsigned int out = mq_drain_tx(tx_p, s->rx_queue);

		printf("# pair %u q%u %s: rx %lu tx %lu drops %lu gro %lu->%lu (tx ring %u)\n",
		       s->pair, s->rx_queue, vfwd_dir_keys[s->dir], (unsigned long)ss->rx_pkts,
		       (unsigned long)ss->tx_pkts, (unsigned long)ss->drops,
		       (unsigned long)ss->gro_in, (unsigned long)ss->gro_out, out);
		CHECK(ss->rx_pkts == sent[key]);
		CHECK(ss->tx_pkts == out);
		CHECK(ss->rx_pkts - (ss->gro_in - ss->gro_out) + ss->segs_added ==
		      ss->tx_pkts + ss->drops);
		CHECK(vfwd_stream_out_expected(ss) == ss->tx_pkts + ss->drops);
		CHECK(ss->rx_bytes == (key == merging ? sent[key] * (HDRS + MSS) : sent[key] * 64));
		if (key == overflow)
			CHECK(ss->drops == 8 + 1 && ss->tx_pkts == SMALL_TX - 1);
		else
			CHECK(ss->drops == 0);
		if (key == merging)
			CHECK(ss->gro_in == sent[key] && ss->gro_out == 1 && ss->tx_pkts == 1);
		else
			CHECK(ss->gro_in == 0);
		dir_sum[s->dir].rx_pkts += ss->rx_pkts;
		dir_sum[s->dir].rx_bytes += ss->rx_bytes;
		dir_sum[s->dir].tx_pkts += ss->tx_pkts;
		dir_sum[s->dir].tx_bytes += ss->tx_bytes;
		dir_sum[s->dir].drops += ss->drops;
	}
	for (uint8_t d = 0; d < VFWD_DIR_COUNT; d++) {
		const struct vfwd_dir_stats *ds = &st->dir[d];
		uint64_t drops = 0;

		for (int c = 0; c < VFWD_DROP_COUNT; c++)
			drops += ds->drops[c];
		CHECK(dir_sum[d].rx_pkts == ds->rx_pkts && dir_sum[d].rx_bytes == ds->rx_bytes);
		CHECK(dir_sum[d].tx_pkts == ds->tx_pkts && dir_sum[d].tx_bytes == ds->tx_bytes);
		CHECK(dir_sum[d].drops == drops);
	}
	/* no key outside the plan's was written */
	for (uint16_t key = 0; key < VFWD_MAX_STREAMS; key++)
		if (sent[key] == 0)
			CHECK(st->stream[key].rx_pkts == 0 && st->stream[key].tx_pkts == 0);
	vfwd_worker_offload_fini(worker);
}

/* The pipeline: the rx lcore counts what it received under the stream's
 * key, the work lcore what it sent (and the ring's drops) under the same
 * key, though its stream sends on its own tx queue. Summed over both
 * lcores, as the reports do, the stream's counts add up. */
static void
stream_counts_across_pipeline(void)
{
	static struct vfwd_worker *rx_w, *work_w;
	struct vfwd_knobs k = deferred_knobs();
	struct vfwd_plan_lcore rx_pl, work_pl;
	struct vfwd_lcore_stats sum;
	struct rte_ring *ring = rte_ring_create("t_pipe", 64, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
	const uint16_t key = vfwd_stream_key(1, 1, VFWD_DIR_VM_TO_WIRE);
	unsigned int out;

	k.deliver = VFWD_DELIVER_DIRECT;
	k.gro.enabled = false;
	rx_w = rte_zmalloc("t_rx_w", sizeof(*rx_w), RTE_CACHE_LINE_SIZE);
	work_w = rte_zmalloc("t_work_w", sizeof(*work_w), RTE_CACHE_LINE_SIZE);
	RTE_VERIFY(ring && rx_w && work_w);
	memset(&rx_pl, 0, sizeof(rx_pl));
	rx_pl.role = VFWD_ROLE_RX;
	rx_pl.nb_streams = 1;
	rx_pl.streams[0] = (struct vfwd_stream){
		.rx_port = mq_port[2], .rx_queue = 1, .tx_port = mq_port[3], .tx_queue = 1,
		.dir = VFWD_DIR_VM_TO_WIRE, .pair = 1, .id = 0,
	};
	work_pl = rx_pl;
	work_pl.role = VFWD_ROLE_WORK;
	work_pl.streams[0].tx_queue = 0; /* the work lcore's own tx queue */
	vfwd_worker_init(rx_w, 1, &rx_pl, port_state, &k);
	vfwd_worker_init(work_w, 2, &work_pl, port_state, &k);
	rx_w->nb_rings = work_w->nb_rings = 1;
	rx_w->rings[0] = work_w->rings[0] = ring;
	RTE_VERIFY(vfwd_worker_offload_init(work_w, pool, indirect_pool, 64, 0) == 0);

	/* 100 in, the ring takes 63: 37 dropped at the rx lcore */
	for (unsigned int j = 0; j < 100; j++)
		RTE_VERIFY(rte_ring_enqueue(mq_rx[2][1], udp_frame()) == 0);
	k.burst = 100;
	vfwd_worker_round(rx_w, &k, rte_rdtsc());
	while (vfwd_worker_round(work_w, &k, rte_rdtsc()) != 0)
		;
	out = mq_drain_tx(3, 0);
	memset(&sum, 0, sizeof(sum));
	vfwd_stats_add(&sum, &rx_w->stats);
	vfwd_stats_add(&sum, &work_w->stats);
	printf("# pipeline pair 1 q1: rx lcore rx %lu drops %lu, work lcore tx %lu, port got %u\n",
	       (unsigned long)rx_w->stats.stream[key].rx_pkts,
	       (unsigned long)rx_w->stats.stream[key].drops,
	       (unsigned long)work_w->stats.stream[key].tx_pkts, out);
	CHECK(rx_w->stats.stream[key].rx_pkts == 100 && rx_w->stats.stream[key].tx_pkts == 0);
	CHECK(work_w->stats.stream[key].rx_pkts == 0 && work_w->stats.stream[key].tx_pkts == out);
	CHECK(out == 63 && sum.stream[key].drops == 37);
	CHECK(sum.stream[key].rx_pkts == sum.stream[key].tx_pkts + sum.stream[key].drops);
	vfwd_worker_offload_fini(work_w);
	rte_free(rx_w);
	rte_free(work_w);
	rte_ring_free(ring);
}

/* ---------------------------------------------- counters and re-init */

/* What control does on a re-plan (app/control.c, vfwd_ctl_plan): keep the
 * counters, set the worker up again. Meanwhile another thread (telemetry)
 * reads the counters as the reports do: never below what they were. */
#define REINIT_LOOPS 20000

static volatile int reinit_done;

/* Starts fn on a thread off this lcore's CPU where there is another, so
 * that the two run at once. */
static void
start_beside(pthread_t *t, void *(*fn)(void *))
{
	RTE_VERIFY(pthread_create(t, NULL, fn, NULL) == 0);
	if (sysconf(_SC_NPROCESSORS_ONLN) > 1) {
		cpu_set_t cpus;

		CPU_ZERO(&cpus);
		for (long c = 1; c < sysconf(_SC_NPROCESSORS_ONLN) && c < CPU_SETSIZE; c++)
			CPU_SET(c, &cpus);
		pthread_setaffinity_np(*t, sizeof(cpus), &cpus);
	}
}

static void *
reinit_loop(void *arg)
{
	struct vfwd_knobs k = deferred_knobs();

	(void)arg;
	for (unsigned int i = 0; i < REINIT_LOOPS; i++) {
		struct vfwd_lcore_stats keep = worker->stats;

		vfwd_worker_init(worker, 1, &plan_lcore, port_state, &k);
		worker->stats = keep;
		/* the worker ran in between (it is the only writer then) */
		worker->stats.rounds++;
		worker->stats.dir[VFWD_DIR_VM_TO_WIRE].rx_pkts += 32;
	}
	reinit_done = 1;
	return NULL;
}

#define BASE_ROUNDS 1000000ull
#define BASE_RX 5000000ull

static void
stats_never_zero_under_reinit(void)
{
	pthread_t t;
	uint64_t reads = 0, bad = 0, last_rounds = 0, lowest = UINT64_MAX;

	memset(&plan_lcore, 0, sizeof(plan_lcore));
	memset(worker, 0, sizeof(*worker));
	worker->stats.rounds = BASE_ROUNDS;
	worker->stats.dir[VFWD_DIR_VM_TO_WIRE].rx_pkts = BASE_RX;
	reinit_done = 0;
	start_beside(&t, reinit_loop);
	while (!reinit_done) {
		struct vfwd_lcore_stats raw;

		/* as app/report.c and app/telemetry.c read them */
		memcpy(&raw, &worker->stats, sizeof(raw));
		reads++;
		if (raw.rounds < BASE_ROUNDS || raw.rounds < last_rounds ||
		    raw.dir[VFWD_DIR_VM_TO_WIRE].rx_pkts < BASE_RX) {
			bad++;
			lowest = RTE_MIN(lowest, raw.rounds);
		}
		last_rounds = raw.rounds;
	}
	pthread_join(t, NULL);
	printf("# %lu racy reads during %u re-inits: %lu saw counters go back (lowest rounds %lu)\n",
	       (unsigned long)reads, REINIT_LOOPS, (unsigned long)bad,
	       (unsigned long)(bad ? lowest : 0));
	CHECK(bad == 0);
	CHECK(worker->stats.rounds == BASE_ROUNDS + REINIT_LOOPS);
}

/* The reader's side: a writer that does take the counters away for a
 * while, inside an odd stats_gen as vfwd_worker_init marks its re-init.
 * vfwd_worker_stats_read never returns such a copy. */
static void *
zeroing_loop(void *arg)
{
	(void)arg;
	for (unsigned int i = 0; i < REINIT_LOOPS; i++) {
		struct vfwd_lcore_stats keep = worker->stats;
		uint32_t gen = worker->stats_gen;

		__atomic_store_n(&worker->stats_gen, gen + 1, __ATOMIC_RELAXED);
		rte_smp_wmb();
		memset(&worker->stats, 0, sizeof(worker->stats));
		rte_compiler_barrier();
		worker->stats = keep;
		worker->stats.rounds++;
		__atomic_store_n(&worker->stats_gen, gen + 2, __ATOMIC_RELEASE);
		/* the worker runs a while between re-plans */
		for (int j = 0; j < 100; j++)
			rte_pause();
	}
	reinit_done = 1;
	return NULL;
}

static void
stats_read_retries_during_reinit(void)
{
	struct vfwd_knobs k = deferred_knobs();
	pthread_t t;
	uint64_t reads = 0, bad = 0, busy = 0, last_rounds = 0;
	uint32_t gen;

	memset(&plan_lcore, 0, sizeof(plan_lcore));
	memset(worker, 0, sizeof(*worker));
	worker->stats.rounds = BASE_ROUNDS;
	/* vfwd_worker_init moves the generation on by one re-init, even */
	gen = worker->stats_gen;
	vfwd_worker_init(worker, 1, &plan_lcore, port_state, &k);
	CHECK(worker->stats_gen == gen + 2);
	CHECK(worker->stats.rounds == BASE_ROUNDS);
	reinit_done = 0;
	start_beside(&t, zeroing_loop);
	while (!reinit_done) {
		struct vfwd_lcore_stats raw;

		if (vfwd_worker_stats_read(worker, &raw) != 0) {
			busy++;
			continue;
		}
		reads++;
		if (raw.rounds < BASE_ROUNDS || raw.rounds < last_rounds)
			bad++;
		last_rounds = raw.rounds;
	}
	pthread_join(t, NULL);
	printf("# %lu reads during %u zeroing re-inits: %lu went back, %lu gave up (-EAGAIN)\n",
	       (unsigned long)reads, REINIT_LOOPS, (unsigned long)bad, (unsigned long)busy);
	CHECK(bad == 0 && reads > 0);
	CHECK(worker->stats_gen % 2 == 0);
}

static struct vfwd_knobs lean_knobs(void);

static struct vfwd_lcore_stats asked_snap;
static int asked_ret = 1;

static void *
ask_snapshot(void *arg)
{
	(void)arg;
	asked_ret = vfwd_worker_snapshot(worker, &asked_snap, 5000000);
	return NULL;
}

/* in = out + drops, per direction and per stream, in s */
static bool
accounted(const struct vfwd_lcore_stats *s)
{
	struct vfwd_summary sum;
	bool ok = true;

	vfwd_stats_summarize(s, &sum);
	for (unsigned int d = 0; d < VFWD_DIR_COUNT; d++)
		ok &= sum.dir[d].out_expected == sum.dir[d].tx_pkts + sum.dir[d].drops_total;
	for (unsigned int i = 0; i < VFWD_MAX_STREAMS; i++)
		ok &= vfwd_stream_out_expected(&s->stream[i]) ==
		      s->stream[i].tx_pkts + s->stream[i].drops;
	return ok;
}

/* A snapshot ("clear fwd stats") while a tx hold and heavy GRO hold
 * packets: the worker copies its counters between two rounds and sends
 * nothing early for it; the held counters make in = out + drops exact in
 * the copy, and across the copy and what the next rounds send. */
static void
snapshot_leaves_holds_alone(void)
{
	static const uint8_t dirs[] = {VFWD_DIR_VM_TO_WIRE, VFWD_DIR_WIRE_TO_VM};
	struct vfwd_knobs k = lean_knobs();
	struct vfwd_lcore_stats now, delta;
	pthread_t t;

	k.tx_batch = 32;
	k.tx_flush_us = 1000000;
	k.gro.enabled = true;
	k.gro.mode = VFWD_GRO_HEAVY;
	k.gro.flush = VFWD_GRO_FLUSH_TIMEOUT; /* held across polls that ran the queue empty */
	k.gro.flush_us = 1000000;
	worker_setup(2, dirs, &k, 256);
	feed_udp(0, 8);
	for (uint32_t s = 0; s < 4; s++)
		RTE_VERIFY(rte_ring_enqueue(rx_ring[1], tcp_seg(1, s)) == 0);
	vfwd_worker_round(worker, &k, rte_rdtsc());
	CHECK(worker->streams[0].hold->n == 8 && vfwd_gro_held(&worker->streams[1].off.gro));

	/* as a running worker would: answer between rounds */
	worker->running = 1;
	start_beside(&t, ask_snapshot);
	for (uint64_t end = rte_rdtsc() + us_to_tsc(5000000); rte_rdtsc() < end;)
		if (__atomic_load_n(&worker->clear_req, __ATOMIC_ACQUIRE) != worker->clear_seen) {
			vfwd_worker_serve_snapshot(worker);
			break;
		}
	pthread_join(t, NULL);
	worker->running = 0;
	CHECK(asked_ret == 0);
	CHECK(worker->streams[0].hold->n == 8 && vfwd_gro_held(&worker->streams[1].off.gro));
	CHECK(rte_ring_count(tx_ring[0]) == 0 && rte_ring_count(tx_ring[1]) == 0);
	CHECK(asked_snap.dir[VFWD_DIR_VM_TO_WIRE].held_in == 8 &&
	      asked_snap.dir[VFWD_DIR_VM_TO_WIRE].held_out == 0 &&
	      asked_snap.dir[VFWD_DIR_WIRE_TO_VM].gro_in == 4);
	CHECK(accounted(&asked_snap));

	/* batching off, GRO's napi_complete policy, the queues empty: the
	 * hold and GRO send */
	k.tx_batch = 1;
	k.gro.flush = VFWD_GRO_FLUSH_COMPLETE;
	vfwd_worker_round(worker, &k, rte_rdtsc());
	vfwd_worker_round(worker, &k, rte_rdtsc());
	now = worker->stats;
	printf("# v2w tx %lu, w2v tx %lu\n", (unsigned long)now.dir[VFWD_DIR_VM_TO_WIRE].tx_pkts,
	       (unsigned long)now.dir[VFWD_DIR_WIRE_TO_VM].tx_pkts);
	CHECK(now.dir[VFWD_DIR_VM_TO_WIRE].tx_pkts == 8 &&
	      now.dir[VFWD_DIR_WIRE_TO_VM].tx_pkts == 1);
	CHECK(accounted(&now));
	vfwd_stats_sub(&delta, &now, &asked_snap);
	CHECK(accounted(&delta));
	CHECK(drain_tx(0, NULL) == 8 && drain_tx(1, NULL) == 1);
	worker_teardown(2);
}

static void *
run_worker(void *arg)
{
	(void)arg;
	vfwd_worker_main(worker);
	return NULL;
}

static uint64_t
rx_seen(void)
{
	return __atomic_load_n(&worker->stats.dir[VFWD_DIR_VM_TO_WIRE].rx_pkts, __ATOMIC_RELAXED);
}

/* A worker running on a thread of its own (vfwd_worker_main, as on an
 * lcore) while control publishes knob sets and takes snapshots under it:
 * each publish returns once the worker took the set, between bursts (no
 * burst above 8 after burst 8 was taken), every snapshot is accounted
 * (in = out + drops + what waits), and after the stop every frame is out. */
static void
running_worker_takes_knobs_and_snapshots(void)
{
	static const uint8_t dirs[] = {VFWD_DIR_VM_TO_WIRE};
	const struct vfwd_dir_stats *d = &worker->stats.dir[VFWD_DIR_VM_TO_WIRE];
	struct vfwd_knobs k = lean_knobs();
	struct vfwd_lcore_stats before, snap;
	unsigned int fed = 0, out = 0, late = 0, published = 0, accounted_snaps = 0;
	pthread_t t;

	worker_setup(1, dirs, &k, 256);
	worker->running = 1;
	start_beside(&t, run_worker);
	for (unsigned int step = 0; step < 40; step++) {
		struct vfwd_knobs next = lean_knobs();
		bool small = step % 2 == 0;
		uint64_t end;

		if (small) {
			next.burst = 8;
			next.tx_batch = 16;
			next.tx_flush_us = 100;
		}
		published += vfwd_worker_publish(worker, &next, 1000000) == 0;
		CHECK(vfwd_worker_snapshot(worker, &before, 1000000) == 0);
		feed_udp(0, 64);
		fed += 64;
		end = rte_rdtsc() + us_to_tsc(1000000);
		while (rx_seen() < fed && rte_rdtsc() < end)
			rte_pause();
		/* the reports' way (all workers asked at once) every other step */
		CHECK((step % 2 ? vfwd_workers_snapshot(&worker, 1, &snap, 1000000)
				: vfwd_worker_snapshot(worker, &snap, 1000000)) == 0);
		accounted_snaps += accounted(&snap);
		for (unsigned int n = 9; small && n <= VFWD_MAX_BURST; n++)
			late += snap.dir[VFWD_DIR_VM_TO_WIRE].rx_burst_hist[n] !=
				before.dir[VFWD_DIR_VM_TO_WIRE].rx_burst_hist[n];
		out += drain_tx(0, NULL);
	}
	worker->running = 0;
	pthread_join(t, NULL);
	out += drain_tx(0, NULL);
	/* stopped: its own counters, not the last answer's */
	CHECK(vfwd_workers_snapshot(&worker, 1, &snap, 1000) == 0 &&
	      snap.dir[VFWD_DIR_VM_TO_WIRE].tx_pkts == out);
	printf("# %u fed, %u out; %u of 40 sets taken at once, %u of 40 snapshots accounted, "
	       "%u bursts above 8 after burst 8; held %lu in, %lu out\n", fed, out, published,
	       accounted_snaps, late, (unsigned long)d->held_in, (unsigned long)d->held_out);
	CHECK(published == 40 && accounted_snaps == 40 && late == 0);
	CHECK(d->rx_pkts == fed && d->tx_pkts == out && out == fed);
	CHECK(d->held_in > 0 && d->held_in == d->held_out);
	CHECK(accounted(&worker->stats));
	worker_teardown(1);
}

/* The default knobs (poll, direct delivery, no tx batching): the worker
 * takes the lean round once nothing it would not send is held. */
static struct vfwd_knobs
lean_knobs(void)
{
	return (struct vfwd_knobs){
		.burst = 32,
		.gro = {.max_flows = 64, .flush_us = 50},
		.rx_mode = VFWD_RX_POLL,
		.deliver = VFWD_DELIVER_DIRECT,
		.napi_weight = 64,
		.tx_batch = 1,
		.tx_flush_us = 50,
	};
}

/* Heavy GRO's napi_complete policy (gro_flush_timeout 0): a poll that
 * ran the queue empty (fewer than a burst) sends all GRO holds at its
 * end; a full burst keeps them for the next poll. */
static void
gro_complete_sends_when_a_poll_runs_empty(void)
{
	static const uint8_t dirs[] = {VFWD_DIR_WIRE_TO_VM};
	struct vfwd_knobs k = lean_knobs();
	uint64_t payload = 0;
	unsigned int got;

	k.gro = (struct vfwd_gro_conf){.enabled = true, .mode = VFWD_GRO_HEAVY,
				       .flush = VFWD_GRO_FLUSH_COMPLETE, .max_flows = 64,
				       .flush_us = 1000000};
	worker_setup(1, dirs, &k, 0);
	for (uint32_t s = 0; s < 4; s++)
		RTE_VERIFY(rte_ring_enqueue(rx_ring[0], tcp_seg(3, s)) == 0);
	vfwd_worker_round(worker, &k, rte_rdtsc());
	got = drain_tx(0, &payload);
	CHECK(got == 1 && payload == 4 * MSS);

	/* a full burst: held; the next poll finds the queue empty: sent */
	for (uint32_t s = 4; s < 4u + k.burst; s++)
		RTE_VERIFY(rte_ring_enqueue(rx_ring[0], tcp_seg(3, s)) == 0);
	vfwd_worker_round(worker, &k, rte_rdtsc());
	CHECK(drain_tx(0, NULL) == 0 && vfwd_gro_held(&worker->streams[0].off.gro) == 1);
	vfwd_worker_round(worker, &k, rte_rdtsc());
	payload = 0;
	got = drain_tx(0, &payload);
	CHECK(got == 1 && payload == k.burst * MSS);
	CHECK(worker->stats.dir[VFWD_DIR_WIRE_TO_VM].gro_merged == 2);
	worker_teardown(1);
}

/* The gro_flush_timeout policy: held across polls that find the queue
 * empty, sent once gro-flush-us passed. */
static void
gro_timeout_holds_across_empty_polls(void)
{
	static const uint8_t dirs[] = {VFWD_DIR_WIRE_TO_VM};
	struct vfwd_knobs k = lean_knobs();
	uint64_t payload = 0, t0;
	unsigned int got = 0, empty_rounds = 0;

	k.gro = (struct vfwd_gro_conf){.enabled = true, .mode = VFWD_GRO_HEAVY,
				       .flush = VFWD_GRO_FLUSH_TIMEOUT, .max_flows = 64,
				       .flush_us = 2000};
	worker_setup(1, dirs, &k, 0);
	for (uint32_t s = 0; s < 4; s++)
		RTE_VERIFY(rte_ring_enqueue(rx_ring[0], tcp_seg(4, s)) == 0);
	t0 = rte_rdtsc();
	vfwd_worker_round(worker, &k, t0);
	/* more of the flow a poll later: it joins the held frame */
	for (uint32_t s = 4; s < 8; s++)
		RTE_VERIFY(rte_ring_enqueue(rx_ring[0], tcp_seg(4, s)) == 0);
	vfwd_worker_round(worker, &k, rte_rdtsc());
	while (got == 0 && rte_rdtsc() - t0 < us_to_tsc(100000)) {
		uint64_t now = rte_rdtsc();

		vfwd_worker_round(worker, &k, now);
		got = drain_tx(0, &payload);
		if (got == 0) {
			empty_rounds++;
			CHECK(now - t0 < us_to_tsc(k.gro.flush_us));
		}
	}
	printf("# timeout policy: out after %lu us, %u empty polls\n",
	       (unsigned long)((rte_rdtsc() - t0) / us_to_tsc(1)), empty_rounds);
	CHECK(got == 1 && payload == 8 * MSS && empty_rounds > 0);
	CHECK(rte_rdtsc() - t0 >= us_to_tsc(k.gro.flush_us));
	worker_teardown(1);
}

/* Tx batching switched off while a hold has packets: the next round is
 * the full one and sends the held packets before the new ones; only then
 * does the worker take the lean round, which forwards the rest. */
static void
lean_round_after_a_hold_keeps_order(void)
{
	static const uint8_t dirs[] = {VFWD_DIR_VM_TO_WIRE};
	const struct vfwd_dir_stats *d = &worker->stats.dir[VFWD_DIR_VM_TO_WIRE];
	struct vfwd_knobs k = lean_knobs();
	struct rte_mbuf *fed[17], *m = NULL;
	unsigned int n = 0, in_order = 0;

	k.tx_batch = 32;
	worker_setup(1, dirs, &k, 256);
	for (unsigned int i = 0; i < 8; i++)
		RTE_VERIFY(rte_ring_enqueue(rx_ring[0], fed[i] = udp_frame()) == 0);
	vfwd_worker_round(worker, &k, rte_rdtsc());
	CHECK(rte_ring_count(tx_ring[0]) == 0 && worker->streams[0].hold->n == 8);
	CHECK(!worker->lean);

	k.tx_batch = 1;
	for (unsigned int i = 8; i < 12; i++)
		RTE_VERIFY(rte_ring_enqueue(rx_ring[0], fed[i] = udp_frame()) == 0);
	vfwd_worker_round(worker, &k, rte_rdtsc());
	CHECK(worker->streams[0].hold->n == 0 && worker->lean);
	for (unsigned int i = 12; i < 17; i++)
		RTE_VERIFY(rte_ring_enqueue(rx_ring[0], fed[i] = udp_frame()) == 0);
	vfwd_worker_round(worker, &k, rte_rdtsc());
	while (rte_ring_dequeue(tx_ring[0], (void **)&m) == 0) {
		in_order += n < RTE_DIM(fed) && m == fed[n];
		n++;
		rte_pktmbuf_free(m);
	}
	printf("# %u sent, %u in the order fed; flushes: empty %lu\n", n, in_order,
	       (unsigned long)d->tx_flush_empty);
	CHECK(n == 17 && in_order == 17);
	CHECK(d->rx_pkts == 17 && d->tx_pkts == 17 && d->tx_flush_empty == 1);
	worker_teardown(1);
}

/* --latency: a synthetic clock per test, a second past the last one's, so
 * that no stamp a reused mbuf keeps from an earlier test is ever newer
 * than this test's switch-on */
static uint64_t
lat_clock_base(void)
{
	static uint64_t base;

	base = RTE_MAX(base, rte_rdtsc()) + us_to_tsc(1000000);
	return base;
}

static const struct vfwd_lat_stats *
lat_of(enum vfwd_lat_stage stage)
{
	return &worker->stats.lat[stage];
}

/* Tx batching, one packet a round and rounds 50 us apart: the hold goes
 * by its timer at 200 us, and the tx_hold stage has each packet's wait
 * exactly (200, 150, 100, 50, 0 us), nothing in any other stage. */
static void
latency_tx_hold_waits_by_the_clock(void)
{
	static const uint8_t dirs[] = {VFWD_DIR_VM_TO_WIRE};
	struct vfwd_knobs k = lean_knobs();
	uint64_t t0 = lat_clock_base();

	k.burst = 1;
	k.tx_batch = 32;
	k.tx_flush_us = 200;
	k.latency = true;
	worker_setup(1, dirs, &k, 256);
	vfwd_worker_set_latency_field(worker, vfwd_latency_field_register());
	for (unsigned int i = 0; i <= 4; i++) {
		feed_udp(0, 1);
		vfwd_worker_round(worker, &k, t0 + us_to_tsc(50 * i));
		CHECK(drain_tx(0, NULL) == (i < 4 ? 0 : 5));
	}
	CHECK(worker->stats.dir[VFWD_DIR_VM_TO_WIRE].tx_flush_timer == 1);
	CHECK(lat_of(VFWD_LAT_TX_HOLD)->count == 5);
	CHECK(lat_of(VFWD_LAT_TX_HOLD)->sum_tsc == us_to_tsc(500));
	for (int st = 0; st < VFWD_LAT_COUNT; st++)
		CHECK(st == VFWD_LAT_TX_HOLD || lat_of(st)->count == 0);
	/* the log2 buckets: 200 us lands in the one holding it */
	CHECK(lat_of(VFWD_LAT_TX_HOLD)->hist[63 - __builtin_clzll(us_to_tsc(200))] >= 1);
	worker_teardown(1);
}

/* tx-hold-idle on (OVS's tx-flush-interval): a lone packet stays in the
 * hold through polls that find nothing and goes by the timer, 200 us
 * after it came; off, the first empty poll sends it. */
static void
latency_tx_hold_idle_waits_out_the_timer(void)
{
	static const uint8_t dirs[] = {VFWD_DIR_VM_TO_WIRE};
	struct vfwd_knobs k = lean_knobs();
	const struct vfwd_dir_stats *d;
	uint64_t t0 = lat_clock_base();

	k.tx_batch = 32;
	k.tx_flush_us = 200;
	k.tx_hold_idle = true;
	k.latency = true;
	worker_setup(1, dirs, &k, 0);
	d = &worker->stats.dir[VFWD_DIR_VM_TO_WIRE];
	vfwd_worker_set_latency_field(worker, vfwd_latency_field_register());
	feed_udp(0, 1);
	for (unsigned int i = 0; i <= 4; i++) {
		vfwd_worker_round(worker, &k, t0 + us_to_tsc(50 * i));
		CHECK(drain_tx(0, NULL) == (i < 4 ? 0 : 1));
	}
	CHECK(d->tx_flush_timer == 1 && d->tx_flush_empty == 0);
	CHECK(lat_of(VFWD_LAT_TX_HOLD)->count == 1);
	CHECK(lat_of(VFWD_LAT_TX_HOLD)->sum_tsc == us_to_tsc(200));

	k.tx_hold_idle = false;
	feed_udp(0, 1);
	vfwd_worker_round(worker, &k, t0 + us_to_tsc(300));
	CHECK(drain_tx(0, NULL) == 0);
	vfwd_worker_round(worker, &k, t0 + us_to_tsc(310));
	CHECK(drain_tx(0, NULL) == 1 && d->tx_flush_empty == 1);
	CHECK(lat_of(VFWD_LAT_TX_HOLD)->sum_tsc == us_to_tsc(210));
	worker_teardown(1);
}

/* Latency off: nothing stamped or counted. Switched on while two
 * packets wait in the hold: those (stamped before, or never) are not
 * counted when they go, the three after are. */
static void
latency_counts_only_what_went_in_while_on(void)
{
	static const uint8_t dirs[] = {VFWD_DIR_VM_TO_WIRE};
	struct vfwd_knobs k = lean_knobs();
	uint64_t t0 = lat_clock_base();

	k.burst = 1;
	k.tx_batch = 32;
	k.tx_flush_us = 200;
	worker_setup(1, dirs, &k, 256);
	vfwd_worker_set_latency_field(worker, vfwd_latency_field_register());
	for (unsigned int i = 0; i <= 4; i++) {
		k.latency = i >= 2;
		feed_udp(0, 1);
		vfwd_worker_round(worker, &k, t0 + us_to_tsc(50 * i));
	}
	CHECK(drain_tx(0, NULL) == 5);
	/* the three stamped at 100, 150 and 200 us, sent at 200 us */
	CHECK(lat_of(VFWD_LAT_TX_HOLD)->count == 3);
	CHECK(lat_of(VFWD_LAT_TX_HOLD)->sum_tsc == us_to_tsc(150));
	/* no field (worker_setup zeroes the counters): latency stays off
	 * whatever the knobs say */
	worker_teardown(1);
	worker_setup(1, dirs, &k, 256);
	for (unsigned int i = 0; i <= 4; i++) {
		feed_udp(0, 1);
		vfwd_worker_round(worker, &k, t0 + us_to_tsc(1000 + 50 * i));
	}
	CHECK(drain_tx(0, NULL) == 5 && lat_of(VFWD_LAT_TX_HOLD)->count == 0);
	worker_teardown(1);
}

/* Heavy GRO with the timeout policy: a frame's first segments at t0, more
 * a poll later, sent at gro-flush-us; the gro stage has one frame that
 * waited from its first segment's poll to the flush. */
static void
latency_gro_hold_bounded_by_its_flush(void)
{
	static const uint8_t dirs[] = {VFWD_DIR_WIRE_TO_VM};
	struct vfwd_knobs k = lean_knobs();
	uint64_t t0 = lat_clock_base(), payload = 0;
	unsigned int got = 0, round = 0;

	k.gro = (struct vfwd_gro_conf){.enabled = true, .mode = VFWD_GRO_HEAVY,
				       .flush = VFWD_GRO_FLUSH_TIMEOUT, .max_flows = 64,
				       .flush_us = 300};
	k.latency = true;
	worker_setup(1, dirs, &k, 0);
	vfwd_worker_set_latency_field(worker, vfwd_latency_field_register());
	for (uint32_t s = 0; s < 4; s++)
		RTE_VERIFY(rte_ring_enqueue(rx_ring[0], tcp_seg(5, s)) == 0);
	vfwd_worker_round(worker, &k, t0);
	for (uint32_t s = 4; s < 8; s++)
		RTE_VERIFY(rte_ring_enqueue(rx_ring[0], tcp_seg(5, s)) == 0);
	/* a poll every 100 us until it is out */
	while (got == 0 && round < 10) {
		round++;
		vfwd_worker_round(worker, &k, t0 + us_to_tsc(100 * round));
		got = drain_tx(0, &payload);
	}
	CHECK(got == 1 && payload == 8 * MSS && round == 3);
	CHECK(lat_of(VFWD_LAT_GRO)->count == 1);
	CHECK(lat_of(VFWD_LAT_GRO)->sum_tsc == us_to_tsc(300));
	CHECK(lat_of(VFWD_LAT_TX_HOLD)->count == 0 && lat_of(VFWD_LAT_BACKLOG)->count == 0);
	worker_teardown(1);
}

/* napi on ring ports (no interrupts: a timed nap): the packets the first
 * round after the nap takes waited, as far as the lcore can tell, since
 * the nap began (napi_wake, by the clock the rounds are given); the next
 * round's were taken awake and are not counted. Nothing in the stage
 * while polling. */
static void
latency_napi_wake_counts_the_round_after_a_nap(void)
{
	static const uint8_t dirs[] = {VFWD_DIR_VM_TO_WIRE};
	struct vfwd_knobs k = lean_knobs();
	uint64_t t0 = lat_clock_base();

	k.latency = true;
	worker_setup(1, dirs, &k, 0);
	vfwd_worker_set_latency_field(worker, vfwd_latency_field_register());
	feed_udp(0, 2);
	CHECK(vfwd_worker_round(worker, &k, t0) == 2);
	CHECK(drain_tx(0, NULL) == 2 && lat_of(VFWD_LAT_NAPI_WAKE)->count == 0);

	k.rx_mode = VFWD_RX_NAPI;
	k.defer_polls = 0;
	k.busy_poll_us = 0;
	k.sleep_max_us = 50;
	CHECK(vfwd_worker_round(worker, &k, t0 + us_to_tsc(10)) == 0);
	vfwd_napi_after_round(worker, &k, 0, t0 + us_to_tsc(10), t0 + us_to_tsc(10));
	CHECK(worker->stats.sleeps == 1);
	feed_udp(0, 3);
	CHECK(vfwd_worker_round(worker, &k, t0 + us_to_tsc(50)) == 3);
	vfwd_napi_after_round(worker, &k, 3, t0 + us_to_tsc(50), t0 + us_to_tsc(51));
	feed_udp(0, 4);
	CHECK(vfwd_worker_round(worker, &k, t0 + us_to_tsc(60)) == 4);
	vfwd_napi_after_round(worker, &k, 4, t0 + us_to_tsc(60), t0 + us_to_tsc(61));
	CHECK(drain_tx(0, NULL) == 7);
	CHECK(lat_of(VFWD_LAT_NAPI_WAKE)->count == 3);
	CHECK(lat_of(VFWD_LAT_NAPI_WAKE)->sum_tsc == 3 * us_to_tsc(40));
	for (int st = 0; st < VFWD_LAT_COUNT; st++)
		CHECK(st == VFWD_LAT_NAPI_WAKE || lat_of(st)->count == 0);
	worker_teardown(1);
}

/* A gated port (net_memif's kind) is neither polled nor sent to while its
 * link is down: its frames wait in its ring, what would go there is
 * peer_down. The first call that finds the link up opens the gate; a close
 * (the unmap guard's) counts up, and the gate opens again only through a
 * link that is up. Streams: port 0 -> gated port 1, and back. */
static void
gated_port_waits_for_its_link(void)
{
	struct vfwd_port_state *ps = &port_state[port_id[1]];
	const struct vfwd_dir_stats *v2w = &worker->stats.dir[VFWD_DIR_VM_TO_WIRE];
	const struct vfwd_dir_stats *w2v = &worker->stats.dir[VFWD_DIR_WIRE_TO_VM];
	struct vfwd_knobs k = lean_knobs();
	unsigned int back;

	ps->gated = true;
	ps->pmd_gate = 0;
	RTE_VERIFY(rte_eth_dev_set_link_down(port_id[1]) == 0);
	memset(&plan_lcore, 0, sizeof(plan_lcore));
	plan_lcore.role = VFWD_ROLE_DIRECT;
	plan_lcore.nb_streams = 2;
	plan_lcore.streams[0] = (struct vfwd_stream){
		.rx_port = port_id[0], .tx_port = port_id[1], .dir = VFWD_DIR_VM_TO_WIRE, .id = 0};
	plan_lcore.streams[1] = (struct vfwd_stream){
		.rx_port = port_id[1], .tx_port = port_id[0], .dir = VFWD_DIR_WIRE_TO_VM, .id = 1};
	memset(worker, 0, sizeof(*worker));
	vfwd_worker_init(worker, rte_lcore_id(), &plan_lcore, port_state, &k);
	RTE_VERIFY(vfwd_worker_offload_init(worker, pool, indirect_pool, 64, 0) == 0);
	RTE_VERIFY(vfwd_worker_queues_init(worker, 256, 0) == 0);

	feed_udp(0, 10);
	feed_udp(1, 10);
	vfwd_worker_round(worker, &k, rte_rdtsc());
	CHECK(rte_ring_count(rx_ring[1]) == 10 && w2v->rx_pkts == 0); /* not polled */
	CHECK(v2w->rx_pkts == 10 && v2w->drops[VFWD_DROP_PEER_DOWN] == 10);
	CHECK(rte_ring_count(tx_ring[1]) == 0 && ps->pmd_gate == 0);

	RTE_VERIFY(rte_eth_dev_set_link_up(port_id[1]) == 0);
	vfwd_worker_round(worker, &k, rte_rdtsc());
	back = drain_tx(0, NULL);
	CHECK(ps->pmd_gate == 1 && back == 10 && w2v->tx_pkts == 10);

	vfwd_port_gate_close(ps); /* the guard, before an unmap */
	CHECK(ps->pmd_gate == 2);
	feed_udp(0, 5);
	vfwd_worker_round(worker, &k, rte_rdtsc()); /* the link is up: open again */
	CHECK(ps->pmd_gate == 3 && drain_tx(1, NULL) == 5 && v2w->tx_pkts == 5);

	/* control's link poll closes it while the link is down, and opens it */
	RTE_VERIFY(rte_eth_dev_set_link_down(port_id[1]) == 0);
	vfwd_port_wire_link_poll(port_id[1], ps);
	CHECK(ps->pmd_gate == 2 && ps->link_up == 0);
	RTE_VERIFY(rte_eth_dev_set_link_up(port_id[1]) == 0);
	vfwd_port_wire_link_poll(port_id[1], ps);
	CHECK(ps->pmd_gate == 3 && ps->link_up == 1);
	printf("# gated port: %lu polled, %lu peer_down while down; gate %u\n",
	       (unsigned long)w2v->rx_pkts, (unsigned long)v2w->drops[VFWD_DROP_PEER_DOWN],
	       ps->pmd_gate);
	CHECK(v2w->rx_pkts == v2w->tx_pkts + v2w->drops[VFWD_DROP_PEER_DOWN]);

	ps->gated = false;
	worker_teardown(2);
}

static void
no_mbuf_leaked(void)
{
	CHECK(rte_mempool_in_use_count(pool) == 0);
}

/* ------------------------------------------------------------ main */

static int
ports_init(void)
{
	struct rte_eth_conf conf;
	char name[32];

	memset(&conf, 0, sizeof(conf));
	for (unsigned int p = 0; p < NB_PORTS; p++) {
		int ret;

		snprintf(name, sizeof(name), "t%u", p);
		ret = unit_ring_port(name, RING_SIZE, pool, &rx_ring[p], &tx_ring[p]);
		if (ret < 0)
			return -1;
		port_id[p] = (uint16_t)ret;
		/* a "guest" that takes GSO frames, on a port that is always ready */
		port_state[port_id[p]].guest_gso = 1;
		port_state[port_id[p]].max_frame = 1514;
		port_state[port_id[p]].tx_multi_seg = true;
	}
	for (unsigned int p = 0; p < MQ_PORTS; p++) {
		int ret;

		for (unsigned int q = 0; q < MQ_QUEUES; q++) {
			bool small = p == MQ_PORTS - 1 && q == MQ_QUEUES - 1;

			snprintf(name, sizeof(name), "t_mqrx%u_%u", p, q);
			mq_rx[p][q] = rte_ring_create(name, RING_SIZE, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
			snprintf(name, sizeof(name), "t_mqtx%u_%u", p, q);
			mq_tx[p][q] = rte_ring_create(name, small ? SMALL_TX : RING_SIZE, 0,
						      RING_F_SP_ENQ | RING_F_SC_DEQ);
			if (mq_rx[p][q] == NULL || mq_tx[p][q] == NULL)
				return -1;
		}
		snprintf(name, sizeof(name), "tmq%u", p);
		ret = rte_eth_from_rings(name, mq_rx[p], MQ_QUEUES, mq_tx[p], MQ_QUEUES, 0);
		if (ret < 0)
			return -1;
		mq_port[p] = (uint16_t)ret;
		if (rte_eth_dev_configure(mq_port[p], MQ_QUEUES, MQ_QUEUES, &conf) != 0)
			return -1;
		for (uint16_t q = 0; q < MQ_QUEUES; q++)
			if (rte_eth_rx_queue_setup(mq_port[p], q, RING_SIZE, 0, NULL, pool) != 0 ||
			    rte_eth_tx_queue_setup(mq_port[p], q, RING_SIZE, 0, NULL) != 0)
				return -1;
		if (rte_eth_dev_start(mq_port[p]) != 0)
			return -1;
		port_state[mq_port[p]].guest_gso = 1;
		port_state[mq_port[p]].max_frame = 1514;
		port_state[mq_port[p]].tx_multi_seg = true;
	}
	return 0;
}

int
main(int argc, char **argv)
{
	(void)argc;
	if (unit_eal_init(argv[0], "worker", &pool, &indirect_pool) != 0)
		return 1;
	worker = rte_zmalloc("t_worker", sizeof(*worker), RTE_CACHE_LINE_SIZE);
	RTE_VERIFY(worker);
	if (ports_init() != 0) {
		printf("not ok 1 - ports_init\n1..1\n");
		return 1;
	}

	RUN(deferred_idle_stream_gro_leaves);
	RUN(deferred_busy_stream_gro_times_out);
	RUN(deferred_backlog_keeps_up_with_3_streams);
	RUN(deferred_backlog_drain_bounded_by_round_budget);
	RUN(stream_counts_two_pairs_two_queues);
	RUN(stream_counts_across_pipeline);
	RUN(stats_never_zero_under_reinit);
	RUN(stats_read_retries_during_reinit);
	RUN(lean_round_after_a_hold_keeps_order);
	RUN(gro_complete_sends_when_a_poll_runs_empty);
	RUN(gro_timeout_holds_across_empty_polls);
	RUN(snapshot_leaves_holds_alone);
	RUN(running_worker_takes_knobs_and_snapshots);
	RUN(gated_port_waits_for_its_link);
	RUN(latency_tx_hold_waits_by_the_clock);
	RUN(latency_tx_hold_idle_waits_out_the_timer);
	RUN(latency_counts_only_what_went_in_while_on);
	RUN(latency_gro_hold_bounded_by_its_flush);
	RUN(latency_napi_wake_counts_the_round_after_a_nap);
	RUN(no_mbuf_leaked);

	rte_free(worker);
	for (unsigned int p = 0; p < NB_PORTS; p++) {
		rte_eth_dev_stop(port_id[p]);
		rte_eth_dev_close(port_id[p]);
		rte_ring_free(rx_ring[p]);
		rte_ring_free(tx_ring[p]);
	}
	for (unsigned int p = 0; p < MQ_PORTS; p++) {
		rte_eth_dev_stop(mq_port[p]);
		rte_eth_dev_close(mq_port[p]);
		for (unsigned int q = 0; q < MQ_QUEUES; q++) {
			rte_ring_free(mq_rx[p][q]);
			rte_ring_free(mq_tx[p][q]);
		}
	}
	rte_mempool_free(pool);
	rte_mempool_free(indirect_pool);
	unit_eal_fini();
	return CHECK_DONE();
}
