/* SPDX-License-Identifier: BSD-3-Clause
 *
 * What the worker itself costs a packet: vfwd_worker_round at the default
 * knobs against the loop dpdk-testpmd's io engine runs (rx_burst, count,
 * tx_burst, retry what was left), both on the same two ring ports
 * (net_ring: a ring dequeue and enqueue, nearly free), so that what
 * remains is the forwarder's own work: its counters, its round's
 * bookkeeping, the cache lines it touches. On net_vhost both spend most of
 * their cycles in librte_vhost, and this machine's noise hides a 5%
 * difference there (doc/performance.md).
 *
 * Each rep moves 256 64-byte UDP frames through one direction, the
 * frames reused (what came out is queued in again and its first cache
 * line read, untimed, as a PMD that filled it leaves it); forwarders
 * take turns rep by rep, the lowest rep of each is the least disturbed.
 * Not a test: no figure is asserted.
 *
 * Read the minima: on this VM whole runs of reps sometimes read 80-140
 * cycles a packet for one of the two loops (seen on 22.11 and 24.11
 * builds, with either pool; not explained), while the minima repeat.
 *
 * Usage: vfwd-worker-stage [reps] (default 31; tens of thousands to
 * profile it).
 *
 * vfwd-worker-stage REPS latency: what --latency on costs instead, the
 * worker against itself with latency off and on, rep by rep, at the
 * defaults (nothing holds: nothing is stamped) and with --tx-batch 32 (the
 * tx hold stamps every packet going in and counts each batch coming out).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_debug.h>
#include <rte_eal.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "stage.h"
#include "unit_eal.h"
#include "unit_ring_port.h"
#include "vfwd_worker.h"

#define FRAMES 256
#define RING_SIZE 4096
#define BURST 32

static struct rte_ring *rx_ring[2], *tx_ring[2];
static uint16_t port_id[2];
static struct vfwd_port_state port_state[VFWD_MAX_PORTS];
static struct rte_mbuf *all[FRAMES];
static volatile uint64_t touched;

static struct rte_mbuf *
udp_frame(struct rte_mempool *pool)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	struct rte_ipv4_hdr *ip;
	uint8_t *f;

	RTE_VERIFY(m != NULL);
	f = (uint8_t *)rte_pktmbuf_append(m, 60);
	RTE_VERIFY(f != NULL);
	memset(f, 0, 60);
	f[0] = 2;
	f[6] = 2;
	f[11] = 1;
	((struct rte_ether_hdr *)f)->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	ip = (struct rte_ipv4_hdr *)(f + RTE_ETHER_HDR_LEN);
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->total_length = rte_cpu_to_be_16(60 - RTE_ETHER_HDR_LEN);
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_UDP;
	ip->src_addr = rte_cpu_to_be_32(0xc6120001);
	ip->dst_addr = rte_cpu_to_be_32(0xc6130001);
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	return m;
}

static int
ports_init(struct rte_mempool *pool)
{
	char name[32];

	for (unsigned int p = 0; p < 2; p++) {
		int ret;

		snprintf(name, sizeof(name), "ws%u", p);
		ret = unit_ring_port(name, RING_SIZE, pool, &rx_ring[p], &tx_ring[p]);
		if (ret < 0)
			return -1;
		port_id[p] = (uint16_t)ret;
		port_state[port_id[p]].link_up = 1;
		port_state[port_id[p]].max_frame = 1514;
		port_state[port_id[p]].tx_multi_seg = true;
	}
	return 0;
}

/* dpdk-testpmd's io engine (pkt_fwd_io): a burst in, counted, out, what
 * the port left retried while it takes some, the rest freed. */
static uint32_t
io_round(uint16_t rx, uint16_t tx, uint64_t *counts)
{
	struct rte_mbuf *pkts[BURST];
	uint16_t n = rte_eth_rx_burst(rx, 0, pkts, BURST), sent;

	if (n == 0)
		return 0;
	counts[0] += n;
	sent = rte_eth_tx_burst(tx, 0, pkts, n);
	for (unsigned int retry = 0; sent < n && retry < 64; retry++)
		sent += rte_eth_tx_burst(tx, 0, pkts + sent, n - sent);
	counts[1] += sent;
	if (sent < n)
		rte_pktmbuf_free_bulk(pkts + sent, n - sent);
	return n;
}

/* Move FRAMES from port from's rx to port to's tx (the other rx ring
 * empty: that stream is polled and finds nothing); cycles, or 0 if they
 * did not all come out. */
static uint64_t
one_rep(struct vfwd_worker *w, const struct vfwd_knobs *k, bool vfwd, unsigned int from,
	unsigned int to)
{
	uint64_t counts[2] = {0}, t0;
	unsigned int rounds = 0;
	struct rte_mbuf *m = NULL;

	while (rte_ring_dequeue(rx_ring[to], (void **)&m) == 0)
		RTE_VERIFY(rte_ring_enqueue(rx_ring[from], m) == 0);
	/* each mbuf's first line in cache, as a PMD that just filled it
	 * leaves it (net_vhost does; net_ring only moves pointers) */
	for (unsigned int i = 0; i < FRAMES; i++)
		touched += rte_pktmbuf_pkt_len(all[i]);
	t0 = rte_rdtsc();
	while (rte_ring_count(tx_ring[to]) < FRAMES && rounds++ < 100000) {
		if (vfwd) {
			vfwd_worker_round(w, k, rte_rdtsc());
		} else {
			/* both streams, as one testpmd lcore forwarding a pair */
			io_round(port_id[from], port_id[to], counts);
			io_round(port_id[to], port_id[from], counts);
		}
	}
	t0 = rte_rdtsc() - t0;
	if (rte_ring_count(tx_ring[to]) != FRAMES)
		t0 = 0;
	while (rte_ring_dequeue(tx_ring[to], (void **)&m) == 0)
		RTE_VERIFY(rte_ring_enqueue(rx_ring[from], m) == 0);
	return t0;
}

/* vfwd-worker-stage REPS latency: off against on, per knob set and
 * direction */
static void
latency_cost(struct vfwd_worker *w, const struct vfwd_knobs *base, int reps)
{
	static const char *dir_name[] = {"vm->wire", "wire->vm"};
	static const struct {
		const char *name;
		uint16_t tx_batch;
	} sets[] = {{"defaults", 1}, {"--tx-batch 32", 32}};

	printf("| knobs | direction | latency off: cycles/packet min (median) | on: min (median) | "
	       "on / off (min, median) |\n|---|---|---|---|---|\n");
	for (unsigned int s = 0; s < RTE_DIM(sets); s++)
		for (unsigned int d = 0; d < 2; d++) {
			struct vfwd_knobs k[2] = {*base, *base};
			uint64_t *per[2] = {calloc(reps, sizeof(uint64_t)),
					    calloc(reps, sizeof(uint64_t))};

			RTE_VERIFY(per[0] != NULL && per[1] != NULL);
			for (int f = 0; f < 2; f++) {
				k[f].tx_batch = sets[s].tx_batch;
				k[f].latency = f == 1;
			}
			for (int r = 0; r < reps; r++)
				for (int f = 0; f < 2; f++) {
					uint64_t c = one_rep(w, &k[f], true, d, 1 - d);

					RTE_VERIFY(c != 0);
					per[f][r] = c * 100 / FRAMES;
				}
			for (int f = 0; f < 2; f++)
				stage_sort(per[f], reps);
			printf("| %s | %s | %.1f (%.1f) | %.1f (%.1f) | %.3f, %.3f |\n", sets[s].name,
			       dir_name[d], per[0][0] / 100.0, per[0][reps / 2] / 100.0,
			       per[1][0] / 100.0, per[1][reps / 2] / 100.0,
			       (double)per[1][0] / per[0][0],
			       (double)per[1][reps / 2] / per[0][reps / 2]);
			fflush(stdout);
			free(per[0]);
			free(per[1]);
		}
}

int
main(int argc, char **argv)
{
	int reps = argc > 1 ? atoi(argv[1]) : 31;
	bool latency = argc > 2 && strcmp(argv[2], "latency") == 0;
	/* the defaults (app/knobs.c): polling, direct, no batching, GRO off */
	const struct vfwd_knobs k = {
		.burst = BURST, .tx_retry = 8,
		.gro = {.mode = VFWD_GRO_HEAVY, .max_flows = 64, .flush_us = 500},
		.rx_mode = VFWD_RX_POLL, .deliver = VFWD_DELIVER_DIRECT, .napi_weight = 64,
		.round_budget = 300, .round_budget_us = 2000, .defer_polls = 32,
		.busy_poll_us = 50, .sleep_max_us = 10000, .tx_batch = 1, .tx_flush_us = 50,
		.vq_weight_pkts = 256, .vq_weight_bytes = 524288,
	};
	static const char *dir_name[] = {"vm->wire", "wire->vm"};
	struct vfwd_plan_lcore pl;
	struct rte_mempool *unit_pool, *pool, *indirect;
	struct vfwd_worker *w;

	if (reps < 1 || reps > 100000 || (argc > 2 && !latency)) {
		fprintf(stderr, "usage: %s [reps, 1..100000 [latency]]\n", argv[0]);
		return 2;
	}
	if (unit_eal_init(argv[0], "worker-stage", &unit_pool, &indirect) != 0)
		return 1;
	/* frames from a pool with a per-lcore cache, as the app's */
	pool = rte_pktmbuf_pool_create("ws_pool", 8191, 256, 0, RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	w = rte_zmalloc("ws_worker", sizeof(*w), RTE_CACHE_LINE_SIZE);
	if (pool == NULL || w == NULL || ports_init(pool) != 0) {
		fprintf(stderr, "worker-stage: no pool, worker or ring ports\n");
		return 1;
	}
	/* the app's plan for one worker: port 0 the VM's, port 1 the wire's */
	memset(&pl, 0, sizeof(pl));
	pl.role = VFWD_ROLE_DIRECT;
	pl.nb_streams = 2;
	pl.streams[0] = (struct vfwd_stream){.rx_port = port_id[0], .tx_port = port_id[1],
					     .dir = VFWD_DIR_VM_TO_WIRE, .id = 0};
	pl.streams[1] = (struct vfwd_stream){.rx_port = port_id[1], .tx_port = port_id[0],
					     .dir = VFWD_DIR_WIRE_TO_VM, .id = 1};
	RTE_VERIFY(vfwd_worker_init(w, rte_lcore_id(), &pl, port_state, &k) == 0);
	RTE_VERIFY(vfwd_worker_offload_init(w, pool, indirect, 64, 0) == 0);
	RTE_VERIFY(vfwd_worker_queues_init(w, 1000, 0) == 0); /* --backlog 1000 */
	for (unsigned int i = 0; i < FRAMES; i++) {
		all[i] = udp_frame(pool);
		RTE_VERIFY(rte_ring_enqueue(rx_ring[0], all[i]) == 0);
	}

	if (latency) {
		vfwd_worker_set_latency_field(w, vfwd_latency_field_register());
		latency_cost(w, &k, reps);
		goto out;
	}
	printf("| direction | testpmd io loop: cycles/packet min (median) | vfwd_worker_round: "
	       "min (median) | vfwd - io, min | vfwd / io (min, median) |\n"
	       "|---|---|---|---|---|\n");
	for (unsigned int d = 0; d < 2; d++) {
		uint64_t *per[2] = {calloc(reps, sizeof(uint64_t)), calloc(reps, sizeof(uint64_t))};

		RTE_VERIFY(per[0] != NULL && per[1] != NULL);
		for (int r = 0; r < reps; r++)
			for (int f = 0; f < 2; f++) {
				uint64_t c = one_rep(w, &k, f == 1, d, 1 - d);

				RTE_VERIFY(c != 0);
				per[f][r] = c * 100 / FRAMES; /* hundredths */
			}
		for (int f = 0; f < 2; f++)
			stage_sort(per[f], reps);
		printf("| %s | %.1f (%.1f) | %.1f (%.1f) | %.1f | %.3f, %.3f |\n", dir_name[d],
		       per[0][0] / 100.0, per[0][reps / 2] / 100.0, per[1][0] / 100.0,
		       per[1][reps / 2] / 100.0, (per[1][0] - (double)per[0][0]) / 100.0,
		       (double)per[1][0] / per[0][0], (double)per[1][reps / 2] / per[0][reps / 2]);
		fflush(stdout);
		free(per[0]);
		free(per[1]);
	}
out:
	vfwd_worker_queues_fini(w);
	vfwd_worker_offload_fini(w);
	vfwd_worker_fini(w);
	rte_free(w);
	for (unsigned int p = 0; p < 2; p++) {
		struct rte_mbuf *m = NULL;

		rte_eth_dev_stop(port_id[p]);
		rte_eth_dev_close(port_id[p]);
		while (rte_ring_dequeue(rx_ring[p], (void **)&m) == 0)
			rte_pktmbuf_free(m);
		rte_ring_free(rx_ring[p]);
		rte_ring_free(tx_ring[p]);
	}
	rte_mempool_free(pool);
	rte_mempool_free(unit_pool);
	rte_mempool_free(indirect);
	unit_eal_fini();
	return 0;
}
