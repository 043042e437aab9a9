/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The mbuf pool's size (vfwd_pool_size): every term that can hold mbufs
 * at once is counted, for the largest values the runtime knobs allow.
 */
#include "check.h"
#include "vfwd.h"
#include "vfwd_pool.h"

/* 1 pair, 1 queue, 1 worker lcore beside the main one: the default. */
static const struct vfwd_pool_need one_worker = {
	.nb_ports = 2, .nb_rxq = 1, .nb_txq = 1, .nb_rxd = 1024, .nb_txd = 1024,
	.nb_lcores = 2, .cache_size = 256, .nb_workers = 1, .nb_streams = 2,
	.backlog = 1000, .data_room = 2048,
};

/* A burst of guest TSO frames of 33 mbufs each (64 KiB + headers in
 * 2 KiB mbufs) and the segment headers made from them. */
#define IN_FLIGHT (VFWD_MAX_BURST * 33 + VFWD_MAX_BURST + VFWD_GSO_MAX_SEGS)

static void
default_config_counts_every_term(void)
{
	unsigned int want = 2 * (1024 + 1024)   /* rx and tx descriptors */
			    + 2 * 384           /* caches, 1.5 x 256 each */
			    + IN_FLIGHT         /* one worker's burst */
			    + 1000              /* its backlog ring */
			    + 2 * VFWD_TX_HOLD_CAP /* two streams' tx holds */
			    + VFWD_GRO_HOLD_MAX;   /* heavy GRO toward the VM */

	CHECK((VFWD_TSO_FRAME_MAX + 2047) / 2048 == 33);
	CHECK(vfwd_pool_size(&one_worker) == want);
}

static void
descriptors_caches_and_backlog_add_up(void)
{
	struct vfwd_pool_need n = one_worker;
	unsigned int base = vfwd_pool_size(&n);

	n.nb_rxd = 2048;
	CHECK(vfwd_pool_size(&n) == base + 2 * 1024);
	n = one_worker;
	n.nb_txd = 4096;
	CHECK(vfwd_pool_size(&n) == base + 2 * 3072);
	n = one_worker;
	n.nb_lcores = 3; /* the worker count is what plans use */
	CHECK(vfwd_pool_size(&n) == base + 384);
	n = one_worker;
	n.backlog = 4096;
	CHECK(vfwd_pool_size(&n) == base + 3096);
}

static void
pipeline_rings_counted_when_lcores_allow_one(void)
{
	struct vfwd_pool_need n = one_worker;
	unsigned int direct, pipe;

	/* two workers: direct plan (2 x burst, 2 backlogs), or pipeline 1:1
	 * (2 x burst, one ring of 4095, the work lcore holds both streams) */
	n.nb_lcores = 3;
	n.nb_workers = 2;
	direct = 2 * IN_FLIGHT + 2 * 1000 + 2 * VFWD_TX_HOLD_CAP + VFWD_GRO_HOLD_MAX;
	pipe = 2 * IN_FLIGHT + (VFWD_PIPE_RING_SIZE - 1) + 2 * VFWD_TX_HOLD_CAP +
	       VFWD_GRO_HOLD_MAX;
	CHECK(pipe > direct);
	CHECK(vfwd_pool_size(&n) == 2 * 2048 + 3 * 384 + pipe);
	/* a large backlog makes the direct plan the larger */
	n.backlog = 100000;
	direct = 2 * IN_FLIGHT + 2 * 100000 + 2 * VFWD_TX_HOLD_CAP + VFWD_GRO_HOLD_MAX;
	CHECK(vfwd_pool_size(&n) == 2 * 2048 + 3 * 384 + direct);
}

static void
pipeline_work_lcores_hold_every_stream(void)
{
	struct vfwd_pool_need n = one_worker;
	unsigned int pipe;

	/* 4 workers, 2 queues: 2:2 (4 rings) beats 3:1 (3 rings); each of
	 * the 2 work lcores has all 4 streams (1 pair x 2 queues x 2) */
	n.nb_rxq = n.nb_txq = 2;
	n.nb_streams = 4;
	n.nb_lcores = 5;
	n.nb_workers = 4;
	n.backlog = 1;
	pipe = 4 * IN_FLIGHT + 4 * (VFWD_PIPE_RING_SIZE - 1) + 2 * 4 * VFWD_TX_HOLD_CAP +
	       2 * 2 * VFWD_GRO_HOLD_MAX;
	CHECK(vfwd_pool_size(&n) == 2 * (2 * 1024 + 2 * 1024) + 5 * 384 + pipe);
}

static void
largest_pipeline_follows_the_limits(void)
{
	uint16_t r, w;

	vfwd_pipe_max(1, 16, &r, &w);
	CHECK(r == 0 && w == 0); /* one worker: no pipeline */
	vfwd_pipe_max(2, 1, &r, &w);
	CHECK(r == 1 && w == 1);
	vfwd_pipe_max(8, 1, &r, &w);
	CHECK(r == 7 && w == 1); /* one tx queue: one work lcore */
	vfwd_pipe_max(8, 16, &r, &w);
	CHECK(r == 4 && w == 4);
	vfwd_pipe_max(64, 16, &r, &w);
	CHECK(r == VFWD_MAX_PIPE && w == VFWD_MAX_PIPE);
	vfwd_pipe_max(9, 2, &r, &w);
	CHECK(r == 7 && w == 2);
}

static void
jumbo_frames_count_a_chain_each_where_they_wait(void)
{
	struct vfwd_pool_need n = one_worker;
	unsigned int base = vfwd_pool_size(&n);
	unsigned int waits = 1000 + 2 * VFWD_TX_HOLD_CAP + VFWD_GRO_HOLD_MAX;

	n.max_frame = 2048; /* fits one mbuf: nothing changes */
	CHECK(vfwd_pool_size(&n) == base);
	/* MTU 9000: 9026 bytes, 5 mbufs of 2 KiB, in the backlog, the tx
	 * holds and GRO's held segments; descriptors and the burst in flight
	 * (a TSO chain already) stay */
	n.max_frame = 9000 + 14 + 8 + 4;
	CHECK(vfwd_pool_size(&n) == base + 4 * waits);
	/* mbufs that take the frame whole (net_af_packet's): one each */
	n.data_room = 9216;
	CHECK(vfwd_pool_size(&n) < base);
}

static void
saturates_instead_of_wrapping(void)
{
	struct vfwd_pool_need n = one_worker;

	n.backlog = UINT32_MAX;
	n.nb_workers = VFWD_MAX_WORKERS;
	n.nb_streams = VFWD_MAX_STREAMS;
	CHECK(vfwd_pool_size(&n) == UINT32_MAX);
}

int
main(void)
{
	RUN(default_config_counts_every_term);
	RUN(descriptors_caches_and_backlog_add_up);
	RUN(pipeline_rings_counted_when_lcores_allow_one);
	RUN(pipeline_work_lcores_hold_every_stream);
	RUN(largest_pipeline_follows_the_limits);
	RUN(jumbo_frames_count_a_chain_each_where_they_wait);
	RUN(saturates_instead_of_wrapping);
	return CHECK_DONE();
}
