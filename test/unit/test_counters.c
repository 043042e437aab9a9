/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The counters' declaration (vfwd_stats.h): names once each, the tables
 * and their walk agree with the macros, and JSON and telemetry get the
 * keys they always had (scripts and test/e2e read them by name).
 */
#include <string.h>

#include "check.h"
#include "vfwd.h"

#define NAME(name, show, help) #name,
#define MAX_KEYS 64

struct keys {
	unsigned int n;
	const char *name[MAX_KEYS];
	uint64_t value[MAX_KEYS];
};

static void
collect(const char *name, uint64_t value, void *arg)
{
	struct keys *k = arg;

	if (k->n < MAX_KEYS) {
		k->name[k->n] = name;
		k->value[k->n] = value;
	}
	k->n++;
}

static struct keys
walk(const struct vfwd_counter *tab, unsigned int n, const void *stats, unsigned int show)
{
	struct keys k = {0};

	vfwd_counters_each(tab, n, stats, show, collect, &k);
	return k;
}

static bool
same_names(const struct keys *k, const char *const *want, unsigned int n)
{
	if (k->n != n)
		return false;
	for (unsigned int i = 0; i < n; i++)
		if (strcmp(k->name[i], want[i]) != 0)
			return false;
	return true;
}

static bool
unique(const char *const *names, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		for (unsigned int j = i + 1; j < n; j++)
			if (strcmp(names[i], names[j]) == 0)
				return false;
	return true;
}

static unsigned int
table_names(const struct vfwd_counter *tab, unsigned int n, const char **out)
{
	for (unsigned int i = 0; i < n; i++)
		out[i] = tab[i].name;
	return n;
}

/* One JSON object holds one table's counters beside its other keys (a
 * direction's: drop_<cause>; an lcore's, a stream's: the derived figures
 * printed by hand), so a name must be unique across all of them. */
static void
names_once(void)
{
	/* the keys app/report.c and app/telemetry.c print by hand */
	static const char *const dir_derived[] = {
		"drops", "gro_merge", "out_expected", "tx_burst_hist", "polls", "empty_polls",
		"bursts", "avg_burst", "rx_pps", "tx_pps", "rx_burst_hist",
	};
	static const char *const lcore_derived[] = {
		"lcore", "sleep_pct", "period_sleep_pct", "busy_pct", "cycles_per_pkt",
		"period_busy_pct", "period_cycles_per_pkt", "rx_pkts", "tx_pkts", "drops", "dirs",
		"busy_pct_x100", "cycles_per_pkt_x100", "sleep_pct_x100",
	};
	static const char *const stream_derived[] = {
		"pair", "queue", "dir", "rx_port", "tx_port", "out_expected", "rx_pps", "tx_pps",
	};
	const char *names[MAX_KEYS + 32];
	char drop_keys[VFWD_DROP_COUNT][32];
	unsigned int n;

	n = table_names(vfwd_dir_counters, VFWD_NB_DIR_COUNTERS, names);
	for (int k = 0; k < VFWD_DROP_COUNT; k++) {
		snprintf(drop_keys[k], sizeof(drop_keys[k]), "drop_%s", vfwd_drop_names[k]);
		names[n++] = drop_keys[k];
	}
	for (unsigned int i = 0; i < RTE_DIM(dir_derived); i++)
		names[n++] = dir_derived[i];
	CHECK(unique(names, n));

	n = table_names(vfwd_lcore_counters, VFWD_NB_LCORE_COUNTERS, names);
	for (unsigned int i = 0; i < RTE_DIM(lcore_derived); i++)
		names[n++] = lcore_derived[i];
	CHECK(unique(names, n));

	n = table_names(vfwd_stream_counters, VFWD_NB_STREAM_COUNTERS, names);
	for (unsigned int i = 0; i < RTE_DIM(stream_derived); i++)
		names[n++] = stream_derived[i];
	CHECK(unique(names, n));

	CHECK(unique(vfwd_drop_names, VFWD_DROP_COUNT));
	for (int k = 0; k < VFWD_DROP_COUNT; k++)
		CHECK(vfwd_drop_names[k] && vfwd_drop_help[k] && vfwd_drop_help[k][0]);
}

/* The tables are the macros, in their order, each with its help. */
static void
tables_are_the_macros(void)
{
	static const char *const dir[] = {VFWD_DIR_COUNTERS(NAME)};
	static const char *const stream[] = {VFWD_STREAM_COUNTERS(NAME)};
	static const char *const lcore[] = {VFWD_LCORE_COUNTERS(NAME)};
	const char *names[MAX_KEYS];

	CHECK(RTE_DIM(dir) == VFWD_NB_DIR_COUNTERS && RTE_DIM(lcore) == VFWD_NB_LCORE_COUNTERS &&
	      RTE_DIM(stream) == VFWD_NB_STREAM_COUNTERS);
	table_names(vfwd_dir_counters, VFWD_NB_DIR_COUNTERS, names);
	for (unsigned int i = 0; i < VFWD_NB_DIR_COUNTERS; i++)
		CHECK(strcmp(names[i], dir[i]) == 0 && vfwd_dir_counters[i].help[0]);
	table_names(vfwd_stream_counters, VFWD_NB_STREAM_COUNTERS, names);
	for (unsigned int i = 0; i < VFWD_NB_STREAM_COUNTERS; i++)
		CHECK(strcmp(names[i], stream[i]) == 0 && vfwd_stream_counters[i].help[0]);
	table_names(vfwd_lcore_counters, VFWD_NB_LCORE_COUNTERS, names);
	for (unsigned int i = 0; i < VFWD_NB_LCORE_COUNTERS; i++)
		CHECK(strcmp(names[i], lcore[i]) == 0 && vfwd_lcore_counters[i].help[0]);
}

/* Each entry reads its own field: every word of the struct a different
 * value, and the walk's values are those the macros' fields hold. */
static void
values_from_the_fields(void)
{
	static struct vfwd_lcore_stats s;
	uint64_t *w = (uint64_t *)&s;
	struct keys k;

	for (size_t i = 0; i < sizeof(s) / sizeof(*w); i++)
		w[i] = 1000 + i;
#define VALUE_OF(name, show, help) p->name,
	{
		const struct vfwd_dir_stats *p = &s.dir[1];
		const uint64_t want[] = {VFWD_DIR_COUNTERS(VALUE_OF)};

		k = walk(vfwd_dir_counters, VFWD_NB_DIR_COUNTERS, p, VFWD_SHOW_ALL);
		CHECK(k.n == RTE_DIM(want) && memcmp(k.value, want, sizeof(want)) == 0);
	}
	{
		const struct vfwd_stream_stats *p = &s.stream[VFWD_MAX_STREAMS - 1];
		const uint64_t want[] = {VFWD_STREAM_COUNTERS(VALUE_OF)};

		k = walk(vfwd_stream_counters, VFWD_NB_STREAM_COUNTERS, p, VFWD_SHOW_ALL);
		CHECK(k.n == RTE_DIM(want) && memcmp(k.value, want, sizeof(want)) == 0);
	}
	{
		const struct vfwd_lcore_stats *p = &s;
		const uint64_t want[] = {VFWD_LCORE_COUNTERS(VALUE_OF)};

		k = walk(vfwd_lcore_counters, VFWD_NB_LCORE_COUNTERS, p, VFWD_SHOW_ALL);
		CHECK(k.n == RTE_DIM(want) && memcmp(k.value, want, sizeof(want)) == 0);
	}
#undef VALUE_OF
}

/* JSON shows every counter: its keys are the macros' names, and those are
 * the keys it has always had. */
static void
json_keys(void)
{
	static const char *const dir[] = {VFWD_DIR_COUNTERS(NAME)};
	static const char *const stream[] = {VFWD_STREAM_COUNTERS(NAME)};
	static const char *const lcore[] = {VFWD_LCORE_COUNTERS(NAME)};
	static const char *const dir_keys[] = {
		"rx_pkts", "rx_bytes", "tx_pkts", "tx_bytes", "gro_in", "gro_out",
		"gro_merged", "gro_flushes", "gro_bypassed", "gso_frames", "gso_sw_frames",
		"gso_segs", "tso_offloaded", "sw_cksums", "tx_flush_full", "tx_flush_timer",
		"tx_flush_empty", "weight_hits", "held_in", "held_out",
	};
	static const char *const stream_keys[] = {
		"rx_pkts", "rx_bytes", "tx_pkts", "tx_bytes", "drops", "gro_in", "gro_out",
		"segs_added", "held_in", "held_out", "notify_deferred", "notify_sent",
		"notify_coalesced", "notify_wait_tsc",
	};
	static const char *const lcore_keys[] = {
		"busy_tsc", "idle_tsc", "rounds", "sleeps", "wakeups_intr", "wakeups_kick", "sleep_tsc",
		"intr_queues", "nap_queues", "to_napi", "to_poll", "budget_stops", "backlog_enq",
		"backlog_deq", "backlog_drops", "ring_enq", "ring_drops", "ring_deq",
	};
	static const char *const drop_names[VFWD_DROP_COUNT] = {
		[VFWD_DROP_TX_FULL] = "tx_full", [VFWD_DROP_PEER_DOWN] = "peer_down",
		[VFWD_DROP_BAD_GSO] = "bad_gso", [VFWD_DROP_BAD_CSUM] = "bad_csum",
		[VFWD_DROP_NO_MBUF] = "no_mbuf", [VFWD_DROP_BACKLOG] = "backlog",
		[VFWD_DROP_RING] = "ring",       [VFWD_DROP_OVERSIZE] = "oversize",
	};
	static struct vfwd_lcore_stats s;
	struct keys k;

	k = walk(vfwd_dir_counters, VFWD_NB_DIR_COUNTERS, &s.dir[0], VFWD_SHOW_JSON);
	CHECK(same_names(&k, dir, RTE_DIM(dir)) && same_names(&k, dir_keys, RTE_DIM(dir_keys)));
	k = walk(vfwd_stream_counters, VFWD_NB_STREAM_COUNTERS, &s.stream[0], VFWD_SHOW_JSON);
	CHECK(same_names(&k, stream, RTE_DIM(stream)) &&
	      same_names(&k, stream_keys, RTE_DIM(stream_keys)));
	k = walk(vfwd_lcore_counters, VFWD_NB_LCORE_COUNTERS, &s, VFWD_SHOW_JSON);
	CHECK(same_names(&k, lcore, RTE_DIM(lcore)) &&
	      same_names(&k, lcore_keys, RTE_DIM(lcore_keys)));
	for (int c = 0; c < VFWD_DROP_COUNT; c++)
		CHECK(strcmp(vfwd_drop_names[c], drop_names[c]) == 0);
}

static bool
tel_in_json(const struct vfwd_counter *tab, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		if ((tab[i].show & VFWD_SHOW_TEL) && !(tab[i].show & VFWD_SHOW_JSON))
			return false;
	return true;
}

/* Telemetry shows the entries marked VFWD_SHOW_TEL: the keys it has
 * always had, a subset of the macros' in their order. */
static void
telemetry_keys(void)
{
	static const char *const dir_keys[] = {"rx_pkts", "rx_bytes", "tx_pkts", "tx_bytes"};
	static const char *const stream_keys[] = {
		"rx_pkts", "rx_bytes", "tx_pkts", "tx_bytes", "drops",
	};
	static const char *const lcore_keys[] = {
		"busy_tsc", "idle_tsc", "sleeps", "wakeups_intr", "wakeups_kick", "sleep_tsc",
		"backlog_drops",
	};
	static const char *const dir_traffic[] = {VFWD_DIR_TRAFFIC_COUNTERS(NAME)};
	static struct vfwd_lcore_stats s;
	struct keys k;

	k = walk(vfwd_dir_counters, VFWD_NB_DIR_COUNTERS, &s.dir[0], VFWD_SHOW_TEL);
	CHECK(same_names(&k, dir_keys, RTE_DIM(dir_keys)));
	k = walk(vfwd_stream_counters, VFWD_NB_STREAM_COUNTERS, &s.stream[0], VFWD_SHOW_TEL);
	CHECK(same_names(&k, stream_keys, RTE_DIM(stream_keys)));
	k = walk(vfwd_lcore_counters, VFWD_NB_LCORE_COUNTERS, &s, VFWD_SHOW_TEL);
	CHECK(same_names(&k, lcore_keys, RTE_DIM(lcore_keys)));
	/* /vfwd/pairs' "total" is the dir's traffic counters put in a
	 * struct vfwd_stream_stats: the stream's shown ones, less drops */
	k = walk(vfwd_stream_counters, VFWD_NB_STREAM_COUNTERS, &s.stream[0], VFWD_SHOW_TEL);
	CHECK(k.n == RTE_DIM(dir_traffic) + 1 && strcmp(k.name[k.n - 1], "drops") == 0);
	for (unsigned int i = 0; i < RTE_DIM(dir_traffic) && i < k.n; i++)
		CHECK(strcmp(k.name[i], dir_traffic[i]) == 0);
	/* every telemetry entry is in JSON too */
	CHECK(tel_in_json(vfwd_dir_counters, VFWD_NB_DIR_COUNTERS));
	CHECK(tel_in_json(vfwd_stream_counters, VFWD_NB_STREAM_COUNTERS));
	CHECK(tel_in_json(vfwd_lcore_counters, VFWD_NB_LCORE_COUNTERS));
}

int
main(void)
{
	RUN(names_once);
	RUN(tables_are_the_macros);
	RUN(values_from_the_fields);
	RUN(json_keys);
	RUN(telemetry_keys);
	return CHECK_DONE();
}
