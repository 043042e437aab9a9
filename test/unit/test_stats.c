/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Stats arithmetic: totals, deltas, derived figures, histogram top-k.
 */
#include <math.h>
#include <string.h>

#include "check.h"
#include "vfwd.h"

static struct vfwd_lcore_stats a, b, c;

static void
fill(struct vfwd_lcore_stats *s, uint64_t k)
{
	memset(s, 0, sizeof(*s));
	for (int d = 0; d < VFWD_DIR_COUNT; d++) {
		s->dir[d].rx_pkts = 100 * k;
		s->dir[d].rx_bytes = 6400 * k;
		s->dir[d].tx_pkts = 90 * k;
		s->dir[d].tx_bytes = 5760 * k;
		s->dir[d].drops[VFWD_DROP_TX_FULL] = 6 * k;
		s->dir[d].drops[VFWD_DROP_PEER_DOWN] = 4 * k;
		s->dir[d].rx_burst_hist[0] = 50 * k;
		s->dir[d].rx_burst_hist[32] = 3 * k;
		s->dir[d].rx_burst_hist[4] = 1 * k;
	}
	s->busy_tsc = 18000 * k;
	s->idle_tsc = 2000 * k;
	s->rounds = 60 * k;
	/* every stream slot, the first and the last key included */
	for (unsigned int i = 0; i < VFWD_MAX_STREAMS; i++) {
		struct vfwd_stream_stats *ss = &s->stream[i];

		ss->rx_pkts = (i + 1) * k;
		ss->rx_bytes = 64 * (i + 1) * k;
		ss->tx_pkts = i * k;
		ss->tx_bytes = 64 * i * k;
		ss->drops = k;
		ss->gro_in = 3 * k;
		ss->gro_out = 2 * k;
		ss->segs_added = 5 * k;
	}
}

static void
add_and_sub(void)
{
	fill(&a, 1);
	fill(&b, 2);
	c = a;
	vfwd_stats_add(&c, &b);
	CHECK(c.dir[0].rx_pkts == 300 && c.dir[1].tx_bytes == 5760 * 3);
	CHECK(c.dir[1].rx_burst_hist[32] == 9 && c.busy_tsc == 54000 && c.rounds == 180);
	CHECK(c.stream[0].rx_pkts == 3 && c.stream[0].drops == 3 && c.stream[0].gro_in == 9);
	CHECK(c.stream[VFWD_MAX_STREAMS - 1].rx_bytes == 64ull * VFWD_MAX_STREAMS * 3);
	CHECK(c.stream[VFWD_MAX_STREAMS - 1].segs_added == 15);
	vfwd_stats_sub(&c, &c, &a);
	CHECK(memcmp(&c, &b, sizeof(c)) == 0);
	CHECK(c.stream[7].tx_bytes == 64 * 7 * 2 && c.stream[7].gro_out == 4);
}

/* A read with any counter below the base went backwards. */
static void
behind(void)
{
	fill(&a, 2);
	fill(&b, 1);
	CHECK(!vfwd_stats_behind(&a, &b));
	CHECK(!vfwd_stats_behind(&a, &a));
	CHECK(vfwd_stats_behind(&b, &a));
	c = a;
	c.ring_deq = 1;
	CHECK(!vfwd_stats_behind(&c, &a));
	c.dir[1].tx_burst_hist[VFWD_MAX_BURST] = 5;
	b = c;
	c.dir[1].tx_burst_hist[VFWD_MAX_BURST] = 4; /* a histogram bucket too */
	CHECK(vfwd_stats_behind(&c, &b));
	/* ... and each stream counter, up to the last key's last one */
	fill(&a, 2);
	c = a;
	c.stream[VFWD_MAX_STREAMS - 1].segs_added--;
	CHECK(vfwd_stats_behind(&c, &a) && !vfwd_stats_behind(&a, &c));
	c = a;
	c.stream[vfwd_stream_key(3, 1, VFWD_DIR_WIRE_TO_VM)].drops--;
	CHECK(vfwd_stats_behind(&c, &a));
}

/* The key is fixed by (pair, rx queue, direction) alone, covers every slot
 * once and stays inside the array. */
static void
stream_keys(void)
{
	static uint8_t seen[VFWD_MAX_STREAMS];
	unsigned int dup = 0, out = 0;

	memset(seen, 0, sizeof(seen));
	for (uint16_t p = 0; p < VFWD_MAX_PAIRS; p++)
		for (uint16_t q = 0; q < VFWD_MAX_QUEUES; q++)
			for (uint8_t d = 0; d < VFWD_DIR_COUNT; d++) {
				uint16_t k = vfwd_stream_key(p, q, d);

				if (k >= VFWD_MAX_STREAMS) {
					out++;
					continue;
				}
				dup += seen[k]++;
			}
	CHECK(dup == 0 && out == 0);
	/* copied per lcore at every report and read by telemetry word by
	 * word: a budget, so that a new per-stream counter is a choice (the
	 * held counters took it from 64 to 96 KiB: a second line per stream,
	 * for snapshots that leave the holds alone) */
	printf("# struct vfwd_lcore_stats: %zu bytes\n", sizeof(struct vfwd_lcore_stats));
	CHECK(sizeof(struct vfwd_lcore_stats) <= 96 * 1024);
	CHECK(vfwd_stream_key(0, 0, VFWD_DIR_VM_TO_WIRE) == 0);
	CHECK(vfwd_stream_key(1, 0, VFWD_DIR_VM_TO_WIRE) == VFWD_MAX_QUEUES * VFWD_DIR_COUNT);
	CHECK(vfwd_stream_key(VFWD_MAX_PAIRS - 1, VFWD_MAX_QUEUES - 1, VFWD_DIR_WIRE_TO_VM) ==
	      VFWD_MAX_STREAMS - 1);
}

/* Two pairs x two queues: a pair's sum is its own streams on the queues
 * in use, never another pair's or a queue beyond nb_rxq. */
static void
pair_summary(void)
{
	struct vfwd_pair_summary ps;

	memset(&a, 0, sizeof(a));
	for (uint16_t p = 0; p < 2; p++)
		for (uint16_t q = 0; q < 3; q++)
			for (uint8_t d = 0; d < VFWD_DIR_COUNT; d++) {
				struct vfwd_stream_stats *ss = &a.stream[vfwd_stream_key(p, q, d)];

				/* digits: pair, queue, direction */
				ss->rx_pkts = 1000 + 100 * p + 10 * q + d;
				ss->tx_pkts = ss->rx_pkts - 1;
				ss->drops = 1;
				ss->rx_bytes = 64 * ss->rx_pkts;
			}
	/* GRO merged 4 segments into 1, segmentation cut 1 frame into 3 */
	a.stream[vfwd_stream_key(1, 1, VFWD_DIR_WIRE_TO_VM)].gro_in = 4;
	a.stream[vfwd_stream_key(1, 1, VFWD_DIR_WIRE_TO_VM)].gro_out = 1;
	a.stream[vfwd_stream_key(1, 0, VFWD_DIR_VM_TO_WIRE)].segs_added = 2;
	vfwd_stats_pair_summarize(&a, 1, 2, &ps);
	CHECK(ps.dir[VFWD_DIR_VM_TO_WIRE].sum.rx_pkts == 1100 + 1110);
	CHECK(ps.dir[VFWD_DIR_WIRE_TO_VM].sum.rx_pkts == 1101 + 1111);
	CHECK(ps.dir[VFWD_DIR_WIRE_TO_VM].sum.tx_pkts == 1100 + 1110);
	CHECK(ps.dir[VFWD_DIR_WIRE_TO_VM].sum.rx_bytes == 64 * (1101 + 1111));
	CHECK(ps.dir[VFWD_DIR_VM_TO_WIRE].sum.drops == 2);
	CHECK(ps.dir[VFWD_DIR_WIRE_TO_VM].out_expected == 1101 + 1111 - 3);
	CHECK(ps.dir[VFWD_DIR_VM_TO_WIRE].out_expected == 1100 + 1110 + 2);
	vfwd_stats_pair_summarize(&a, 0, 1, &ps);
	CHECK(ps.dir[VFWD_DIR_VM_TO_WIRE].sum.rx_pkts == 1000);
	CHECK(ps.dir[VFWD_DIR_WIRE_TO_VM].out_expected == 1001);
}

static void
summary(void)
{
	struct vfwd_summary s;

	fill(&a, 1);
	vfwd_stats_summarize(&a, &s);
	CHECK(s.dir[0].polls == 54 && s.dir[0].empty_polls == 50 && s.dir[0].bursts == 4);
	CHECK(s.dir[0].avg_burst == 25.0);
	CHECK(s.dir[0].drops_total == 10 && s.drops_total == 20);
	CHECK(s.rx_pkts == 200 && s.tx_pkts == 180);
	CHECK(fabs(s.busy_pct - 90.0) < 1e-9);
	/* busy cycles over packets sent on, not received: 18000 / 180 */
	CHECK(s.cycles_per_pkt == 100.0);
}

static void
summary_of_nothing(void)
{
	struct vfwd_summary s;

	memset(&a, 0, sizeof(a));
	vfwd_stats_summarize(&a, &s);
	CHECK(s.cycles_per_pkt == 0 && s.busy_pct == 0 && s.dir[1].avg_burst == 0);
}

/* Everything dropped: cycles per packet must not look cheap. */
static void
all_dropped(void)
{
	struct vfwd_summary s;

	memset(&a, 0, sizeof(a));
	a.dir[0].rx_pkts = 1000;
	a.dir[0].drops[VFWD_DROP_TX_FULL] = 800;
	a.dir[0].tx_pkts = 200;
	a.busy_tsc = 42000;
	vfwd_stats_summarize(&a, &s);
	CHECK(s.cycles_per_pkt == 210.0);
}

static void
hist_top(void)
{
	uint64_t h[VFWD_MAX_BURST + 1] = {0}, counts[3];
	unsigned int sizes[3];

	h[0] = 1000; /* empty polls are never a burst size */
	h[1] = 5;
	h[7] = 50;
	h[32] = 500;
	h[64] = 20;
	h[512] = 60;
	CHECK(vfwd_hist_top(h, VFWD_MAX_BURST, 3, sizes, counts) == 3);
	CHECK(sizes[0] == 32 && counts[0] == 500);
	CHECK(sizes[1] == 512 && counts[1] == 60);
	CHECK(sizes[2] == 7 && counts[2] == 50);
	memset(h, 0, sizeof(h));
	h[3] = 1;
	CHECK(vfwd_hist_top(h, VFWD_MAX_BURST, 3, sizes, counts) == 1 && sizes[0] == 3);
	h[3] = 0;
	CHECK(vfwd_hist_top(h, VFWD_MAX_BURST, 3, sizes, counts) == 0);
}

/* Latency figures from a log2 histogram: quantiles interpolated within
 * their bucket, max the highest bucket's upper edge, mean exact; a
 * clear (subtraction) leaves the histogram of what came after. */
static void
latency_summary(void)
{
	struct vfwd_lat_stats l = {0};
	struct vfwd_lat_summary s;
	struct vfwd_lcore_stats x = {0}, y = {0}, d;

	vfwd_lat_summarize(&l, &s);
	CHECK(s.count == 0 && s.mean == 0 && s.p99 == 0 && s.max == 0);
	/* 100 waits in [1024, 2048): the median halfway */
	l.hist[10] = 100;
	l.count = 100;
	l.sum_tsc = 150000;
	vfwd_lat_summarize(&l, &s);
	CHECK(s.count == 100 && fabs(s.mean - 1500.0) < 1e-9);
	CHECK(fabs(s.p50 - 1536.0) < 1e-9 && fabs(s.p90 - (1024 + 0.9 * 1024)) < 1e-9);
	CHECK(s.max == 2048.0);
	/* 999 short ones and one long: p99 among the short, p99.9 and max
	 * at the long one's bucket */
	memset(&l, 0, sizeof(l));
	l.hist[4] = 999;
	l.hist[20] = 1;
	l.count = 1000;
	vfwd_lat_summarize(&l, &s);
	CHECK(s.p99 >= 16.0 && s.p99 < 32.0);
	CHECK(s.p999 >= 16.0 && s.p999 <= 32.0);
	CHECK(vfwd_lat_quantile(&l, 1.0) == (double)(1 << 21));
	CHECK(s.max == (double)(1 << 21));
	/* 0 and 1 share bucket 0 */
	memset(&l, 0, sizeof(l));
	l.hist[0] = 10;
	l.count = 10;
	vfwd_lat_summarize(&l, &s);
	CHECK(s.p50 == 1.0 && s.max == 2.0);
	/* the stats arithmetic carries the histograms: a delta is what came
	 * between two reads */
	x.lat[VFWD_LAT_TX_HOLD].count = 7;
	x.lat[VFWD_LAT_TX_HOLD].hist[12] = 7;
	y = x;
	y.lat[VFWD_LAT_TX_HOLD].count += 3;
	y.lat[VFWD_LAT_TX_HOLD].hist[3] += 3;
	vfwd_stats_sub(&d, &y, &x);
	CHECK(d.lat[VFWD_LAT_TX_HOLD].count == 3 && d.lat[VFWD_LAT_TX_HOLD].hist[3] == 3 &&
	      d.lat[VFWD_LAT_TX_HOLD].hist[12] == 0);
	CHECK(strcmp(vfwd_lat_names[VFWD_LAT_TX_HOLD], "tx_hold") == 0);
}

int
main(void)
{
	RUN(add_and_sub);
	RUN(behind);
	RUN(stream_keys);
	RUN(pair_summary);
	RUN(summary);
	RUN(summary_of_nothing);
	RUN(all_dropped);
	RUN(hist_top);
	RUN(latency_summary);
	return CHECK_DONE();
}
