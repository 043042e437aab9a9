/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The GRO stage alone: cycles per TCP segment through vfwd_gro_burst and
 * vfwd_gro_flush, vfwd's engine against librte_gro's, on the calls the
 * worker makes (a held flush, then the burst), no ports around them.
 *
 * bench/perf.py's gro scenario measures the same engines end to end, but
 * on this shared 2-CPU machine its cycles per segment move 3x between
 * phases of the host, more than the engines differ. Here each burst is
 * built (untimed: its data is then in cache, as a PMD's copy leaves it)
 * and then timed alone; the engines take turns, rep by rep, and the
 * lowest rep of each is the least disturbed. Not a test: no figure is
 * asserted.
 *
 * A cell's TCP checksums are summed by vfwd's engine (a port that does not
 * check them: net_memif, net_tap, virtio-user) or vouched for by the port
 * (RX_L4_CKSUM_GOOD); librte_gro never checks them.
 *
 * Usage: vfwd-gro-stage [reps [cell]] (reps 15 unless given; cell: one
 * row's index, to profile it alone). Prints one markdown row a cell: flows x PSH x IP, segments a frame and cycles a segment of each
 * engine (minimum and median of the reps), and their ratio.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_debug.h>
#include <rte_eal.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_tcp.h>

#include "stage.h"
#include "unit_eal.h"
#include "vfwd.h"
#include "vfwd_compat.h"

#define PAYLOAD 1428     /* bench/perf.py's gro scenario: within a 1500 MTU for IPv6 */
#define BURST 32
#define SEGS_PER_REP 4096

struct cell {
	uint32_t flows;
	uint32_t psh_every;  /* 0: never */
	bool v6;
	bool port_checked;   /* RX_L4_CKSUM_GOOD, as a NIC with rx checksum offload says */
};

struct gen {
	const struct cell *c;
	uint32_t next_flow;
	uint32_t seq[64 * 16];
	uint32_t count[64 * 16];
};

static struct rte_mbuf *
segment(struct rte_mempool *pool, struct gen *g)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	uint32_t f = g->next_flow, l3 = g->c->v6 ? 40 : 20;
	uint32_t len = RTE_ETHER_HDR_LEN + l3 + 20 + PAYLOAD;
	uint8_t *p;
	struct rte_tcp_hdr *th;

	RTE_VERIFY(m != NULL);
	g->next_flow = (f + 1) % g->c->flows;
	p = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)len);
	memset(p, 0, RTE_ETHER_HDR_LEN + l3 + 20);
	p[0] = 2;
	p[6] = 2;
	p[11] = 1;
	p[12] = g->c->v6 ? 0x86 : 0x08;
	p[13] = g->c->v6 ? 0xdd : 0x00;
	th = (void *)(p + RTE_ETHER_HDR_LEN + l3);
	if (g->c->v6) {
		struct rte_ipv6_hdr *ip = (void *)(p + RTE_ETHER_HDR_LEN);

		ip->vtc_flow = rte_cpu_to_be_32(6u << 28);
		ip->payload_len = rte_cpu_to_be_16(20 + PAYLOAD);
		ip->proto = IPPROTO_TCP;
		ip->hop_limits = 64;
		VFWD_IP6_SRC(ip)[0] = 0x20;
		VFWD_IP6_SRC(ip)[14] = (uint8_t)(f >> 8);
		VFWD_IP6_SRC(ip)[15] = (uint8_t)f;
		VFWD_IP6_DST(ip)[0] = 0x20;
		VFWD_IP6_DST(ip)[15] = 1;
	} else {
		struct rte_ipv4_hdr *ip = (void *)(p + RTE_ETHER_HDR_LEN);

		ip->version_ihl = RTE_IPV4_VHL_DEF;
		ip->total_length = rte_cpu_to_be_16(20 + 20 + PAYLOAD);
		ip->packet_id = rte_cpu_to_be_16((uint16_t)g->count[f]);
		ip->fragment_offset = rte_cpu_to_be_16(RTE_IPV4_HDR_DF_FLAG);
		ip->time_to_live = 64;
		ip->next_proto_id = IPPROTO_TCP;
		ip->src_addr = rte_cpu_to_be_32(0xc6120000 | f);
		ip->dst_addr = rte_cpu_to_be_32(0xc6130001);
		ip->hdr_checksum = rte_ipv4_cksum(ip);
	}
	th->src_port = rte_cpu_to_be_16((uint16_t)(1024 + f));
	th->dst_port = rte_cpu_to_be_16(5201);
	th->sent_seq = rte_cpu_to_be_32(g->seq[f]);
	th->recv_ack = rte_cpu_to_be_32(1);
	th->data_off = 5 << 4;
	g->count[f]++;
	th->tcp_flags = RTE_TCP_ACK_FLAG;
	if (g->c->psh_every && g->count[f] % g->c->psh_every == 0)
		th->tcp_flags |= RTE_TCP_PSH_FLAG;
	th->rx_win = rte_cpu_to_be_16(65535);
	for (uint32_t i = 0; i < PAYLOAD; i++)
		p[len - PAYLOAD + i] = (uint8_t)(g->seq[f] + i);
	g->seq[f] += PAYLOAD;
	th->cksum = g->c->v6 ? rte_ipv6_udptcp_cksum((const void *)(p + RTE_ETHER_HDR_LEN), th)
			     : rte_ipv4_udptcp_cksum((const void *)(p + RTE_ETHER_HDR_LEN), th);
	m->l2_len = RTE_ETHER_HDR_LEN;
	if (g->c->port_checked)
		m->ol_flags |= RTE_MBUF_F_RX_L4_CKSUM_GOOD;
	return m;
}

struct run {
	uint64_t cycles, segs, frames;
};

/* One rep: SEGS_PER_REP segments in bursts, what is held flushed at the
 * end (timed: the engine's work for those segments). */
static void
rep(struct rte_mempool *pool, struct vfwd_gro *g, const struct vfwd_gro_conf *conf,
    struct gen *gen, struct run *r)
{
	struct rte_mbuf *pkts[BURST + VFWD_GRO_HOLD_MAX];
	struct vfwd_dir_stats st;
	uint64_t timeout = conf->flush_us * rte_get_tsc_hz() / 1000000;

	memset(&st, 0, sizeof(st));
	for (uint32_t done = 0; done < SEGS_PER_REP; done += BURST) {
		uint64_t t0, now;
		uint16_t n = 0;

		for (uint16_t i = 0; i < BURST; i++)
			pkts[i] = segment(pool, gen);
		t0 = now = rte_rdtsc();
		/* the worker's order: what waited gro-flush-us, then the burst */
		if (vfwd_gro_held(g)) {
			struct rte_mbuf *old[VFWD_GRO_HOLD_MAX];
			uint16_t k = vfwd_gro_flush(g, timeout, now, old, RTE_DIM(old), &st);

			r->frames += k;
			rte_pktmbuf_free_bulk(old, k);
		}
		n = vfwd_gro_burst(g, conf, VFWD_GRO_KIND_TCP4 | VFWD_GRO_KIND_TCP6, pkts, BURST,
				   now, &st);
		r->cycles += rte_rdtsc() - t0;
		r->frames += n;
		rte_pktmbuf_free_bulk(pkts, n);
	}
	{
		uint64_t t0 = rte_rdtsc();
		uint16_t n = vfwd_gro_flush(g, 0, t0, pkts, RTE_DIM(pkts), &st);

		r->cycles += rte_rdtsc() - t0;
		r->frames += n;
		rte_pktmbuf_free_bulk(pkts, n);
	}
	r->segs += SEGS_PER_REP;
}

int
main(int argc, char **argv)
{
	static const struct cell cells[] = {
		{1, 0, false}, {1, 4, false}, {1, 16, false}, {8, 0, false}, {8, 4, false},
		{64, 0, false}, {64, 4, false}, {64, 16, false},
		{1, 0, true}, {1, 4, true}, {64, 4, true},
		{1, 0, false, true}, {1, 4, false, true}, {64, 4, false, true},
	};
	int reps = argc > 1 ? atoi(argv[1]) : 15;
	int only = argc > 2 ? atoi(argv[2]) : -1;
	struct rte_mempool *pool, *indirect;

	if (reps < 1 || reps > 1000 || only < -1 || only >= (int)RTE_DIM(cells)) {
		fprintf(stderr, "usage: %s [reps, 1..1000 [cell, 0..%zu]]\n", argv[0],
			RTE_DIM(cells) - 1);
		return 2;
	}
	if (unit_eal_init(argv[0], "gro-stage", &pool, &indirect) != 0)
		return 1;
	printf("| flows | PSH every | IP | TCP checksum | segments/frame vfwd / dpdk | cycles/segment vfwd: min "
	       "(median) | dpdk: min (median) | vfwd / dpdk (min, median) |\n"
	       "|---|---|---|---|---|---|---|---|\n");
	for (size_t c = 0; c < RTE_DIM(cells); c++) {
		uint64_t per[2][1000];
		struct run total[2] = {0};

		if (only >= 0 && (size_t)only != c)
			continue;
		for (int r = 0; r < reps; r++) {
			for (int e = 0; e < 2; e++) {
				const struct vfwd_gro_conf conf = {
					.enabled = true, .mode = VFWD_GRO_HEAVY,
					.engine = e ? VFWD_GRO_ENGINE_DPDK : VFWD_GRO_ENGINE_VFWD,
					.flush = VFWD_GRO_FLUSH_TIMEOUT, .max_flows = 64,
					.flush_us = 500};
				struct gen *gen = calloc(1, sizeof(*gen));
				struct vfwd_gro g;
				struct run one = {0};

				RTE_VERIFY(gen != NULL && vfwd_gro_init(&g, &conf, 0) == 0);
				gen->c = &cells[c];
				rep(pool, &g, &conf, gen, &one);
				vfwd_gro_fini(&g);
				free(gen);
				RTE_VERIFY(rte_mempool_in_use_count(pool) == 0);
				per[e][r] = one.cycles * 100 / one.segs; /* hundredths */
				total[e].segs += one.segs;
				total[e].frames += one.frames;
			}
		}
		for (int e = 0; e < 2; e++)
			stage_sort(per[e], reps);
		printf("| %u | %s%.0u | v%d | %s | %.1f / %.1f | %.0f (%.0f) | %.0f (%.0f) | %.3f, %.3f |\n",
		       cells[c].flows, cells[c].psh_every ? "" : "never", cells[c].psh_every,
		       cells[c].v6 ? 6 : 4, cells[c].port_checked ? "port: GOOD" : "summed",
		       (double)total[0].segs / total[0].frames,
		       (double)total[1].segs / total[1].frames, per[0][0] / 100.0,
		       per[0][reps / 2] / 100.0, per[1][0] / 100.0, per[1][reps / 2] / 100.0,
		       (double)per[0][0] / per[1][0], (double)per[0][reps / 2] / per[1][reps / 2]);
		fflush(stdout);
	}
	rte_mempool_free(pool);
	rte_mempool_free(indirect);
	unit_eal_fini();
	return 0;
}
