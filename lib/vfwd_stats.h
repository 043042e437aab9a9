/* SPDX-License-Identifier: BSD-3-Clause
 *
 * dpdk-vfwd counters: each one declared once, in the X-macros below, with
 * its name, where it is shown and a line of help. The macros make the
 * structs the workers count in, the name tables and the walk that the JSON
 * reports and telemetry print from (app/report.c, app/telemetry.c), so a
 * counter added here is in every output that shows it, under one name.
 *
 * An entry is X(name, show, help): name is both the struct field and the
 * key in JSON and telemetry; show is VFWD_SHOW_JSON, VFWD_SHOW_TEL or
 * both. The text report is laid out by hand (app/report.c) and shows what
 * it chooses.
 */

/* The sizes and enum vfwd_dir come from vfwd.h, and vfwd.h includes this
 * file where its stats section was: included first, this file has vfwd.h
 * include it back, so that either header can be included alone. */
#ifndef VFWD_H
#include "vfwd.h"
#else
#ifndef VFWD_STATS_H
#define VFWD_STATS_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_common.h>

/* Where a counter is shown. Telemetry gets a few: its replies are bounded
 * (16 KiB), and it is for watching a running vfwd, not for a post-mortem. */
#define VFWD_SHOW_JSON 1u /* the JSON report and the show ... json commands */
#define VFWD_SHOW_TEL 2u  /* the /vfwd/lcores and /vfwd/pairs telemetry replies */
#define VFWD_SHOW_ALL (VFWD_SHOW_JSON | VFWD_SHOW_TEL)

/* X(ENUM, name, help): VFWD_DROP_<ENUM>, and its name in vfwd_drop_names
 * (keys "drop_<name>" in JSON and telemetry). */
#define VFWD_DROP_CAUSES(X)                                                           \
	X(TX_FULL, tx_full, "tx ring still full after the retries")                   \
	X(PEER_DOWN, peer_down, "vhost peer not connected / vring disabled")          \
	X(BAD_GSO, bad_gso, "a guest TSO frame that cannot be segmented")             \
	X(BAD_CSUM, bad_csum, "a partial checksum on a frame that is not TCP/UDP")    \
	X(NO_MBUF, no_mbuf, "segmentation ran out of mbufs")                          \
	X(BACKLOG, backlog, "deferred delivery: the backlog ring was full")           \
	X(RING, ring, "pipeline: the ring to the work lcore was full")                \
	X(OVERSIZE, oversize, "a frame (not TSO) longer than the MTU of the port it goes to")

/* Per lcore and direction; the first list per stream too. Two lists
 * because drops[] sits between them in the struct, and the layout stays
 * as the data path knows it. */
#define VFWD_DIR_TRAFFIC_COUNTERS(X)                                                  \
	X(rx_pkts, VFWD_SHOW_ALL, "packets received")                                 \
	X(rx_bytes, VFWD_SHOW_ALL, "bytes received")                                  \
	X(tx_pkts, VFWD_SHOW_ALL, "packets sent")                                     \
	X(tx_bytes, VFWD_SHOW_ALL, "bytes sent")
/* offloads: GRO toward the VM, TSO/GSO and checksums toward the wire;
 * then tx batching: sends and why they went (full, timer, rx ran empty) */
#define VFWD_DIR_DETAIL_COUNTERS(X)                                                   \
	VFWD_GRO_IN_OUT_COUNTERS(X)                                                   \
	X(gro_merged, VFWD_SHOW_JSON, "GRO packets that merged segments (GSO frames)") \
	X(gro_flushes, VFWD_SHOW_JSON, "heavy GRO: flushes of held segments")         \
	X(gro_bypassed, VFWD_SHOW_JSON, "packets passed without GRO: nothing was merging") \
	X(gso_frames, VFWD_SHOW_JSON, "TSO frames from the guest")                    \
	X(gso_sw_frames, VFWD_SHOW_JSON, "TSO frames segmented in software")          \
	X(gso_segs, VFWD_SHOW_JSON, "segments made from those")                       \
	X(tso_offloaded, VFWD_SHOW_JSON, "TSO frames left to the wire port's TSO")    \
	X(sw_cksums, VFWD_SHOW_JSON, "L4 checksums completed in software")            \
	X(tx_flush_full, VFWD_SHOW_JSON, "tx batches sent full")                      \
	X(tx_flush_timer, VFWD_SHOW_JSON, "tx batches sent by the flush timer")       \
	X(tx_flush_empty, VFWD_SHOW_JSON, "tx batches sent as the rx queue ran empty") \
	X(weight_hits, VFWD_SHOW_JSON, "visits cut short by the vq/napi weight")      \
	VFWD_HELD_COUNTERS(X)
#define VFWD_DIR_COUNTERS(X) VFWD_DIR_TRAFFIC_COUNTERS(X) VFWD_DIR_DETAIL_COUNTERS(X)

/* Shared by the direction's counters and the stream's. */
#define VFWD_GRO_IN_OUT_COUNTERS(X)                                                   \
	X(gro_in, VFWD_SHOW_JSON, "segments given to GRO")                            \
	X(gro_out, VFWD_SHOW_JSON, "packets that came out of GRO")

/* What waits in a tx hold, the backlog or a pipeline ring: held_in -
 * held_out, counted as it goes in and out, so that a snapshot is exact
 * without sending what waits (out_expected takes it off). */
#define VFWD_HELD_COUNTERS(X)                                                         \
	X(held_in, VFWD_SHOW_JSON, "packets put in a tx hold, the backlog or a pipeline ring") \
	X(held_out, VFWD_SHOW_JSON, "packets taken out of them (what waits: in - out)")

/* Per stream: the eight every burst touches on one cache line, then the
 * held counters on the next, touched only by the modes that hold. */
#define VFWD_STREAM_COUNTERS(X)                                                       \
	VFWD_DIR_TRAFFIC_COUNTERS(X)                                                  \
	X(drops, VFWD_SHOW_ALL, "packets dropped, every cause (as the dir's drops[])") \
	VFWD_GRO_IN_OUT_COUNTERS(X)                                                   \
	X(segs_added, VFWD_SHOW_JSON, "software segmentation: segments made less frames cut") \
	VFWD_HELD_COUNTERS(X)                                                         \
	VFWD_NOTIFY_COUNTERS(X)

/* --notify coalesce/adaptive, a stream toward a VM (its guest receiveq):
 * the notifications librte_vhost handed to vfwd, those vfwd sent, and
 * the bursts that reached the guest while one waited (each would have had
 * a notification of its own if the guest asked for it) */
#define VFWD_NOTIFY_COUNTERS(X)                                                       \
	X(notify_deferred, VFWD_SHOW_JSON, "guest notifications vfwd held back")      \
	X(notify_sent, VFWD_SHOW_JSON, "... and sent, by time, frames or at a stop")  \
	X(notify_coalesced, VFWD_SHOW_JSON, "bursts put in the guest's queue while a notification waited") \
	X(notify_wait_tsc, VFWD_SHOW_JSON, "TSC cycles the sent notifications waited, summed")

/* Per lcore, after its dir[] and stream[] */
#define VFWD_LCORE_COUNTERS(X)                                                        \
	X(busy_tsc, VFWD_SHOW_ALL, "TSC cycles of rounds that moved at least one packet") \
	X(idle_tsc, VFWD_SHOW_ALL, "TSC cycles of rounds in which every poll came back empty") \
	X(rounds, VFWD_SHOW_JSON, "rounds over the lcore's streams")                  \
	/* napi / adaptive */                                                         \
	X(sleeps, VFWD_SHOW_ALL, "times the lcore went to sleep")                     \
	X(wakeups_intr, VFWD_SHOW_ALL, "sleeps ended by an rx interrupt")             \
	X(wakeups_kick, VFWD_SHOW_ALL, "... of them with a guest's kick among the interrupts (a vhost rx queue)") \
	X(sleep_tsc, VFWD_SHOW_ALL, "TSC cycles asleep (neither busy nor idle)")      \
	X(intr_queues, VFWD_SHOW_JSON, "queues armed for interrupts, over all sleeps") \
	X(nap_queues, VFWD_SHOW_JSON, "queues without interrupts over all sleeps (naps)") \
	X(to_napi, VFWD_SHOW_JSON, "adaptive: switches to napi")                      \
	X(to_poll, VFWD_SHOW_JSON, "adaptive: switches to polling")                   \
	X(budget_stops, VFWD_SHOW_JSON, "rounds cut short by the round budget")       \
	/* deferred delivery */                                                       \
	X(backlog_enq, VFWD_SHOW_JSON, "packets put on the backlog")                  \
	X(backlog_deq, VFWD_SHOW_JSON, "packets taken off the backlog (depth = enq - deq)") \
	X(backlog_drops, VFWD_SHOW_ALL, "backlog full: dropped (also in the dir's drops)") \
	/* pipeline */                                                                \
	X(ring_enq, VFWD_SHOW_JSON, "rx lcore: packets handed to work lcores")        \
	X(ring_drops, VFWD_SHOW_JSON, "rx lcore: dropped, the ring full (also in drops)") \
	X(ring_deq, VFWD_SHOW_JSON, "work lcore: packets taken from rings")

/* Per-stage residence time (--latency on): how long packets waited in
 * each place a stage holds them, from when they went in to when they came
 * out, per lcore (its single writer), in log2 buckets of TSC cycles.
 * X(ENUM, name, help): VFWD_LAT_<ENUM>, and its key in JSON, telemetry and
 * "show latency". */
#define VFWD_LAT_STAGES(X)                                                            \
	X(GRO, gro, "toward the VM: in heavy GRO's table, from the poll that took a frame's first segment to the flush that sent it") \
	X(BACKLOG, backlog, "deferred delivery: on the backlog, from the visit that put it there to the drain") \
	X(RING, ring, "pipeline: on a work lcore's ring, from the rx lcore's put to the work lcore's take") \
	X(TX_HOLD, tx_hold, "tx batching: in the stream's tx hold, until its batch was sent") \
	X(TX_WAIT, tx_wait, "tx: retrying a full ring, the packets its first send did not take") \
	X(NAPI_WAKE, napi_wake, "napi: after a sleep, from the kick or interrupt that woke the lcore (its run-queue wait included; after a timed nap, the nap's start: an upper bound) to the poll that took the packets")

#define VFWD_LAT_ENUM(e, name, help) VFWD_LAT_##e,
enum vfwd_lat_stage {
	VFWD_LAT_STAGES(VFWD_LAT_ENUM)
	VFWD_LAT_COUNT
};

/* bucket b holds waits of [2^b, 2^(b+1)) TSC cycles (bucket 0: 0 and 1);
 * the last, everything longer (2^47 cycles: about 13 hours at 3 GHz) */
#define VFWD_LAT_BUCKETS 48

struct vfwd_lat_stats {
	uint64_t count;   /* packets that came out */
	uint64_t sum_tsc; /* their waits summed */
	uint64_t hist[VFWD_LAT_BUCKETS];
};

#define VFWD_COUNTER_FIELD(name, show, help) uint64_t name;
#define VFWD_COUNTER_ONE(name, show, help) +1
#define VFWD_DROP_ENUM(e, name, help) VFWD_DROP_##e,

enum vfwd_drop_cause {
	VFWD_DROP_CAUSES(VFWD_DROP_ENUM)
	VFWD_DROP_COUNT
};

#define VFWD_NB_DIR_COUNTERS (0 VFWD_DIR_COUNTERS(VFWD_COUNTER_ONE))
#define VFWD_NB_STREAM_COUNTERS (0 VFWD_STREAM_COUNTERS(VFWD_COUNTER_ONE))
#define VFWD_NB_LCORE_COUNTERS (0 VFWD_LCORE_COUNTERS(VFWD_COUNTER_ONE))

struct vfwd_dir_stats {
	VFWD_DIR_TRAFFIC_COUNTERS(VFWD_COUNTER_FIELD)
	uint64_t drops[VFWD_DROP_COUNT];
	VFWD_DIR_DETAIL_COUNTERS(VFWD_COUNTER_FIELD)
	/* rx_burst_hist[n]: polls that returned n packets; [0] = empty polls,
	 * the sum = polls. tx_burst_hist[n]: tx_burst calls offered n (first
	 * call of each send, retries not counted). */
	uint64_t rx_burst_hist[VFWD_MAX_BURST + 1];
	uint64_t tx_burst_hist[VFWD_MAX_BURST + 1];
};

/* One stream's counters. Indexed by vfwd_stream_key(), which a re-plan
 * does not change: a stream's counts can be summed over the lcores that
 * carried it, before and after a plan moved it. Per stream, as per
 * direction: rx - (gro_in - gro_out) + segs_added - (held_in - held_out)
 * = tx + drops between any two rounds (vfwd_stream_out_expected). GRO's
 * held segments need no term: they are in gro_in and not yet in
 * gro_out, as if merged away, until they come out. */
struct vfwd_stream_stats {
	VFWD_STREAM_COUNTERS(VFWD_COUNTER_FIELD)
} __rte_cache_aligned; /* two lines each, whatever comes before the array */

/* A stream receives on queue rx_queue of one port of pair; in the
 * pipeline the work lcore that sends it uses the same key. */
static inline uint16_t
vfwd_stream_key(uint16_t pair, uint16_t rx_queue, uint8_t dir)
{
	return (uint16_t)((pair * VFWD_MAX_QUEUES + rx_queue) * VFWD_DIR_COUNT + dir);
}

/* Written only by its worker lcore, read (racily, word by word) by the
 * control plane: counters only grow, so a reader sees a slightly old value,
 * never a torn one (aligned 64-bit stores). */
struct vfwd_lcore_stats {
	struct vfwd_dir_stats dir[VFWD_DIR_COUNT];
	struct vfwd_stream_stats stream[VFWD_MAX_STREAMS]; /* by vfwd_stream_key() */
	VFWD_LCORE_COUNTERS(VFWD_COUNTER_FIELD)
	struct vfwd_lat_stats lat[VFWD_LAT_COUNT]; /* --latency on */
} __rte_cache_aligned;

/* A counter's entry in the tables below: what its macro entry says, and
 * where it is in its struct. */
struct vfwd_counter {
	const char *name;
	const char *help;
	uint32_t offset; /* of its uint64_t in the struct */
	uint32_t show;   /* VFWD_SHOW_* */
};

extern const struct vfwd_counter vfwd_dir_counters[VFWD_NB_DIR_COUNTERS];
extern const struct vfwd_counter vfwd_stream_counters[VFWD_NB_STREAM_COUNTERS];
extern const struct vfwd_counter vfwd_lcore_counters[VFWD_NB_LCORE_COUNTERS];
extern const char *const vfwd_drop_names[VFWD_DROP_COUNT];
extern const char *const vfwd_drop_help[VFWD_DROP_COUNT];
extern const char *const vfwd_dir_keys[VFWD_DIR_COUNT];

static inline uint64_t
vfwd_counter_value(const struct vfwd_counter *c, const void *stats)
{
	return *(const uint64_t *)((const char *)stats + c->offset);
}

/* Calls fn(name, value, arg) for each counter of tab[0..n) that show
 * selects (any of its bits), in table order: stats is the struct tab
 * describes (a struct vfwd_dir_stats for vfwd_dir_counters, ...). */
void vfwd_counters_each(const struct vfwd_counter *tab, unsigned int n, const void *stats,
			unsigned int show,
			void (*fn)(const char *name, uint64_t value, void *arg), void *arg);

/* Derived figures, computed by the control plane from the counters. */
struct vfwd_dir_summary {
	VFWD_DIR_TRAFFIC_COUNTERS(VFWD_COUNTER_FIELD)
	uint64_t drops[VFWD_DROP_COUNT];
	uint64_t drops_total;
	uint64_t polls, empty_polls, bursts; /* bursts = non-empty polls */
	double avg_burst;                    /* rx_pkts / bursts */
	double gro_merge;                    /* segments in per packet out of GRO */
	/* rx, less what GRO merged away, plus what segmentation added, less
	 * what waits in holds: equals tx + drops between any two rounds */
	uint64_t out_expected;
};

struct vfwd_summary {
	struct vfwd_dir_summary dir[VFWD_DIR_COUNT];
	uint64_t rx_pkts, tx_pkts, drops_total;
	uint64_t busy_tsc, idle_tsc, sleep_tsc;
	double busy_pct;        /* busy / (busy + idle + asleep) */
	double sleep_pct;       /* asleep / (busy + idle + asleep) */
	double cycles_per_pkt;  /* busy cycles / packets actually sent on */
};

/* What a pair moved in one direction: its streams' counters summed over
 * queues 0..nb_rxq-1, and the same law's expected output. */
struct vfwd_pair_dir_summary {
	struct vfwd_stream_stats sum;
	uint64_t out_expected;
};

struct vfwd_pair_summary {
	struct vfwd_pair_dir_summary dir[VFWD_DIR_COUNT];
};

void vfwd_stats_add(struct vfwd_lcore_stats *acc, const struct vfwd_lcore_stats *s);
void vfwd_stats_sub(struct vfwd_lcore_stats *res, const struct vfwd_lcore_stats *a,
		    const struct vfwd_lcore_stats *b);
void vfwd_stats_summarize(const struct vfwd_lcore_stats *s, struct vfwd_summary *out);
/* Whether any counter of a is below b's: a read that went backwards
 * (counters only grow), never to be subtracted from. */
bool vfwd_stats_behind(const struct vfwd_lcore_stats *a, const struct vfwd_lcore_stats *b);
/* rx, less what GRO merged away, plus what segmentation added, less what
 * waits in tx holds, the backlog and pipeline rings. */
uint64_t vfwd_stream_out_expected(const struct vfwd_stream_stats *ss);
/* Pair pair's streams on queues [0, nb_rxq) of s, per direction. */
void vfwd_stats_pair_summarize(const struct vfwd_lcore_stats *s, uint16_t pair, uint16_t nb_rxq,
			       struct vfwd_pair_summary *out);
extern const char *const vfwd_lat_names[VFWD_LAT_COUNT];
extern const char *const vfwd_lat_help[VFWD_LAT_COUNT];

/* A stage's figures in TSC cycles, derived from its histogram: quantiles
 * interpolated linearly within their log2 bucket (so within a factor of 2
 * of the truth, closer where waits spread over the bucket), max the upper
 * edge of the highest bucket used; the mean is exact. All 0 when count
 * is. */
struct vfwd_lat_summary {
	uint64_t count;
	double mean, p50, p90, p99, p999, max;
};

void vfwd_lat_summarize(const struct vfwd_lat_stats *l, struct vfwd_lat_summary *out);
/* The wait below which a share q (0..1) of l's packets came out. */
double vfwd_lat_quantile(const struct vfwd_lat_stats *l, double q);

/* The k most frequent non-empty burst sizes of h (most frequent first).
 * Returns how many were found (<= k). */
unsigned int vfwd_hist_top(const uint64_t *hist, unsigned int max_size, unsigned int k,
			   unsigned int *sizes, uint64_t *counts);

#endif /* VFWD_STATS_H */
#endif /* VFWD_H */
