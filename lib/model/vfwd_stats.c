/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Stats arithmetic for the control plane: totals over lcores, deltas
 * between two snapshots, derived figures. Pure: unit-tested without EAL.
 */
#include <assert.h>
#include <stddef.h>
#include <string.h>

#include "vfwd.h"

#define U64_FIELDS(s) (sizeof(s) / sizeof(uint64_t))

/* struct vfwd_lcore_stats is all uint64_t counters (plus alignment
 * padding, which stays zero), so it is summed as an array. */
static_assert(sizeof(struct vfwd_lcore_stats) % sizeof(uint64_t) == 0, "u64 only");
/* ... and those counters are the macros' and nothing else: a field added
 * beside them would be in no output. (The lcore struct's tail padding
 * could hide one: the size says little there.) */
static_assert(sizeof(struct vfwd_dir_stats) ==
		      sizeof(uint64_t) * (VFWD_NB_DIR_COUNTERS + VFWD_DROP_COUNT +
					  2 * (VFWD_MAX_BURST + 1)),
	      "dir counters not all in VFWD_DIR_COUNTERS");
static_assert(sizeof(struct vfwd_stream_stats) ==
		      RTE_ALIGN_CEIL(sizeof(uint64_t) * VFWD_NB_STREAM_COUNTERS,
				     RTE_CACHE_LINE_SIZE),
	      "stream counters not all in VFWD_STREAM_COUNTERS");
/* the worker touches one line per stream and burst: the held counters,
 * of the modes that hold, start the second */
static_assert(offsetof(struct vfwd_stream_stats, held_in) == RTE_CACHE_LINE_SIZE,
	      "stream counters: the burst's on one line");
static_assert(sizeof(struct vfwd_lcore_stats) ==
		      RTE_ALIGN_CEIL(RTE_ALIGN_CEIL(VFWD_DIR_COUNT * sizeof(struct vfwd_dir_stats),
						    RTE_CACHE_LINE_SIZE) +
					     VFWD_MAX_STREAMS * sizeof(struct vfwd_stream_stats) +
					     sizeof(uint64_t) * VFWD_NB_LCORE_COUNTERS +
					     VFWD_LAT_COUNT * sizeof(struct vfwd_lat_stats),
				     RTE_CACHE_LINE_SIZE),
	      "lcore counters not all in VFWD_LCORE_COUNTERS");
/* every key vfwd_stream_key() can make has its slot */
static_assert(VFWD_MAX_STREAMS == VFWD_MAX_PAIRS * VFWD_MAX_QUEUES * VFWD_DIR_COUNT,
	      "stream keys");

#define DROP_NAME(e, name, help) [VFWD_DROP_##e] = #name,
#define DROP_HELP(e, name, help) [VFWD_DROP_##e] = help,
#define COUNTER(type, name, show, help) {#name, help, offsetof(type, name), show},
#define DIR_COUNTER(name, show, help) COUNTER(struct vfwd_dir_stats, name, show, help)
#define STREAM_COUNTER(name, show, help) COUNTER(struct vfwd_stream_stats, name, show, help)
#define LCORE_COUNTER(name, show, help) COUNTER(struct vfwd_lcore_stats, name, show, help)

#define LAT_NAME(e, name, help) [VFWD_LAT_##e] = #name,
#define LAT_HELP(e, name, help) [VFWD_LAT_##e] = help,

const char *const vfwd_drop_names[VFWD_DROP_COUNT] = {VFWD_DROP_CAUSES(DROP_NAME)};
const char *const vfwd_lat_names[VFWD_LAT_COUNT] = {VFWD_LAT_STAGES(LAT_NAME)};
const char *const vfwd_lat_help[VFWD_LAT_COUNT] = {VFWD_LAT_STAGES(LAT_HELP)};
const char *const vfwd_drop_help[VFWD_DROP_COUNT] = {VFWD_DROP_CAUSES(DROP_HELP)};

const struct vfwd_counter vfwd_dir_counters[VFWD_NB_DIR_COUNTERS] = {
	VFWD_DIR_COUNTERS(DIR_COUNTER)
};
const struct vfwd_counter vfwd_stream_counters[VFWD_NB_STREAM_COUNTERS] = {
	VFWD_STREAM_COUNTERS(STREAM_COUNTER)
};
const struct vfwd_counter vfwd_lcore_counters[VFWD_NB_LCORE_COUNTERS] = {
	VFWD_LCORE_COUNTERS(LCORE_COUNTER)
};

const char *const vfwd_dir_keys[VFWD_DIR_COUNT] = {"vm_to_wire", "wire_to_vm"};

void
vfwd_counters_each(const struct vfwd_counter *tab, unsigned int n, const void *stats,
		   unsigned int show, void (*fn)(const char *name, uint64_t value, void *arg),
		   void *arg)
{
	for (unsigned int i = 0; i < n; i++)
		if (tab[i].show & show)
			fn(tab[i].name, vfwd_counter_value(&tab[i], stats), arg);
}

void
vfwd_stats_add(struct vfwd_lcore_stats *acc, const struct vfwd_lcore_stats *s)
{
	uint64_t *a = (uint64_t *)acc;
	const uint64_t *b = (const uint64_t *)s;

	for (size_t i = 0; i < U64_FIELDS(*acc); i++)
		a[i] += b[i];
}

void
vfwd_stats_sub(struct vfwd_lcore_stats *res, const struct vfwd_lcore_stats *x,
	       const struct vfwd_lcore_stats *y)
{
	uint64_t *r = (uint64_t *)res;
	const uint64_t *a = (const uint64_t *)x;
	const uint64_t *b = (const uint64_t *)y;

	for (size_t i = 0; i < U64_FIELDS(*res); i++)
		r[i] = a[i] - b[i];
}

bool
vfwd_stats_behind(const struct vfwd_lcore_stats *x, const struct vfwd_lcore_stats *y)
{
	const uint64_t *a = (const uint64_t *)x;
	const uint64_t *b = (const uint64_t *)y;

	for (size_t i = 0; i < U64_FIELDS(*x); i++)
		if (a[i] < b[i])
			return true;
	return false;
}

static double
ratio(uint64_t num, uint64_t den)
{
	return den ? (double)num / (double)den : 0.0;
}

void
vfwd_stats_summarize(const struct vfwd_lcore_stats *s, struct vfwd_summary *out)
{
	memset(out, 0, sizeof(*out));
	for (int d = 0; d < VFWD_DIR_COUNT; d++) {
		const struct vfwd_dir_stats *ds = &s->dir[d];
		struct vfwd_dir_summary *o = &out->dir[d];

#define COPY(name, show, help) o->name = ds->name;
		VFWD_DIR_TRAFFIC_COUNTERS(COPY)
#undef COPY
		for (int c = 0; c < VFWD_DROP_COUNT; c++) {
			o->drops[c] = ds->drops[c];
			o->drops_total += ds->drops[c];
		}
		for (int n = 0; n <= VFWD_MAX_BURST; n++)
			o->polls += ds->rx_burst_hist[n];
		o->empty_polls = ds->rx_burst_hist[0];
		o->bursts = o->polls - o->empty_polls;
		o->avg_burst = ratio(o->rx_pkts, o->bursts);
		o->gro_merge = ratio(ds->gro_in, ds->gro_out);
		o->out_expected = ds->rx_pkts - (ds->gro_in - ds->gro_out) +
				  (ds->gso_segs - ds->gso_sw_frames) - (ds->held_in - ds->held_out);

		out->rx_pkts += o->rx_pkts;
		out->tx_pkts += o->tx_pkts;
		out->drops_total += o->drops_total;
	}
	out->busy_tsc = s->busy_tsc;
	out->idle_tsc = s->idle_tsc;
	out->sleep_tsc = s->sleep_tsc;
	/* shares of the lcore's wall time; asleep it uses no CPU */
	out->busy_pct = 100.0 * ratio(s->busy_tsc, s->busy_tsc + s->idle_tsc + s->sleep_tsc);
	out->sleep_pct = 100.0 * ratio(s->sleep_tsc, s->busy_tsc + s->idle_tsc + s->sleep_tsc);
	/* Divide by what was sent on, not by what was received: a run that
	 * drops most of its packets must not look cheap per packet. */
	out->cycles_per_pkt = ratio(s->busy_tsc, out->tx_pkts);
}

uint64_t
vfwd_stream_out_expected(const struct vfwd_stream_stats *ss)
{
	return ss->rx_pkts - (ss->gro_in - ss->gro_out) + ss->segs_added -
	       (ss->held_in - ss->held_out);
}

void
vfwd_stats_pair_summarize(const struct vfwd_lcore_stats *s, uint16_t pair, uint16_t nb_rxq,
			  struct vfwd_pair_summary *out)
{
	memset(out, 0, sizeof(*out));
	for (uint8_t d = 0; d < VFWD_DIR_COUNT; d++) {
		struct vfwd_stream_stats *sum = &out->dir[d].sum;

		for (uint16_t q = 0; q < nb_rxq && q < VFWD_MAX_QUEUES; q++) {
			const struct vfwd_stream_stats *ss = &s->stream[vfwd_stream_key(pair, q, d)];

#define ADD(name, show, help) sum->name += ss->name;
			VFWD_STREAM_COUNTERS(ADD)
#undef ADD
		}
		out->dir[d].out_expected = vfwd_stream_out_expected(sum);
	}
}

unsigned int
vfwd_hist_top(const uint64_t *hist, unsigned int max_size, unsigned int k, unsigned int *sizes,
	      uint64_t *counts)
{
	unsigned int found = 0;

	for (unsigned int n = 1; n <= max_size; n++) {
		unsigned int pos;

		if (hist[n] == 0)
			continue;
		/* insertion into a k-long list sorted by count, descending */
		for (pos = found; pos > 0 && counts[pos - 1] < hist[n]; pos--) {
			if (pos < k) {
				sizes[pos] = sizes[pos - 1];
				counts[pos] = counts[pos - 1];
			}
		}
		if (pos < k) {
			sizes[pos] = n;
			counts[pos] = hist[n];
			if (found < k)
				found++;
		}
	}
	return found;
}

/* the edges of bucket b: [lo, hi) cycles */
static double
bucket_lo(unsigned int b)
{
	return b == 0 ? 0.0 : (double)(UINT64_C(1) << b);
}

static double
bucket_hi(unsigned int b)
{
	return (double)(UINT64_C(1) << (b + 1));
}

double
vfwd_lat_quantile(const struct vfwd_lat_stats *l, double q)
{
	uint64_t total = 0, below = 0;
	double want;

	for (unsigned int b = 0; b < VFWD_LAT_BUCKETS; b++)
		total += l->hist[b];
	if (total == 0)
		return 0.0;
	want = q * (double)total;
	for (unsigned int b = 0; b < VFWD_LAT_BUCKETS; b++) {
		uint64_t n = l->hist[b];

		if (n && (double)(below + n) >= want) {
			double into = (want - (double)below) / (double)n;

			return bucket_lo(b) + (into < 0 ? 0 : into) * (bucket_hi(b) - bucket_lo(b));
		}
		below += n;
	}
	return 0.0; /* not reached: the buckets hold total */
}

void
vfwd_lat_summarize(const struct vfwd_lat_stats *l, struct vfwd_lat_summary *out)
{
	memset(out, 0, sizeof(*out));
	out->count = l->count;
	if (l->count == 0)
		return;
	out->mean = (double)l->sum_tsc / (double)l->count;
	out->p50 = vfwd_lat_quantile(l, 0.50);
	out->p90 = vfwd_lat_quantile(l, 0.90);
	out->p99 = vfwd_lat_quantile(l, 0.99);
	out->p999 = vfwd_lat_quantile(l, 0.999);
	for (unsigned int b = VFWD_LAT_BUCKETS; b-- > 0;)
		if (l->hist[b]) {
			out->max = bucket_hi(b);
			break;
		}
}
