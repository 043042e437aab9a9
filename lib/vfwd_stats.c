/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Stats arithmetic for the control plane: totals over lcores, deltas
 * between two snapshots, derived figures. Pure: unit-tested without EAL.
 */
#include <assert.h>
#include <string.h>

#include "vfwd.h"

#define U64_FIELDS(s) (sizeof(s) / sizeof(uint64_t))

/* struct vfwd_lcore_stats is all uint64_t counters (plus alignment
 * padding, which stays zero), so it is summed as an array. */
static_assert(sizeof(struct vfwd_lcore_stats) % sizeof(uint64_t) == 0, "u64 only");
/* every key vfwd_stream_key() can make has its slot */
static_assert(VFWD_MAX_STREAMS == VFWD_MAX_PAIRS * VFWD_MAX_QUEUES * VFWD_DIR_COUNT,
	      "stream keys");

const char *const vfwd_drop_names[VFWD_DROP_COUNT] = {
	"tx_full", "peer_down", "bad_gso", "bad_csum", "no_mbuf", "backlog", "ring", "oversize",
};

const char *const vfwd_dir_keys[VFWD_DIR_COUNT] = {"vm_to_wire", "wire_to_vm"};

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

		o->rx_pkts = ds->rx_pkts;
		o->rx_bytes = ds->rx_bytes;
		o->tx_pkts = ds->tx_pkts;
		o->tx_bytes = ds->tx_bytes;
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
				  (ds->gso_segs - ds->gso_sw_frames);

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
	return ss->rx_pkts - (ss->gro_in - ss->gro_out) + ss->segs_added;
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

			sum->rx_pkts += ss->rx_pkts;
			sum->rx_bytes += ss->rx_bytes;
			sum->tx_pkts += ss->tx_pkts;
			sum->tx_bytes += ss->tx_bytes;
			sum->drops += ss->drops;
			sum->gro_in += ss->gro_in;
			sum->gro_out += ss->gro_out;
			sum->segs_added += ss->segs_added;
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
