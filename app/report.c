/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Stats reports: per lcore and totals (like OVS pmd-perf-show and VPP show
 * runtime), port counters beside them. Text for people, one JSON object per
 * report for scripts. Rates are over the period since the last report;
 * counts are since start.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_mempool.h>

#include "app.h"
#include "unmap_guard.h"
#include "knobs.h"
#include "vfwd_compat.h"

static const char *const dir_name[VFWD_DIR_COUNT] = {"vm->wire", "wire->vm"};

#define HIST_TOP 3

static double
per_sec(uint64_t n, double secs)
{
	return secs > 0 ? (double)n / secs : 0.0;
}

static void
si(char *buf, size_t len, double v)
{
	if (v >= 1e9)
		snprintf(buf, len, "%.2fG", v / 1e9);
	else if (v >= 1e6)
		snprintf(buf, len, "%.2fM", v / 1e6);
	else if (v >= 1e3)
		snprintf(buf, len, "%.1fk", v / 1e3);
	else
		snprintf(buf, len, "%.0f", v);
}

/* "12345 bursts: 97.1% x32, 2.0% x31, 0.9% other" */
static void
text_hist(const struct vfwd_dir_stats *d, const struct vfwd_dir_summary *sum)
{
	unsigned int sizes[HIST_TOP];
	uint64_t counts[HIST_TOP], shown = 0;
	unsigned int n = vfwd_hist_top(d->rx_burst_hist, VFWD_MAX_BURST, HIST_TOP, sizes, counts);

	printf("            %" PRIu64 " bursts:", sum->bursts);
	for (unsigned int i = 0; i < n; i++) {
		printf(" %.1f%% x%u%s", 100.0 * counts[i] / sum->bursts, sizes[i],
		       i + 1 < n ? "," : "");
		shown += counts[i];
	}
	if (shown < sum->bursts)
		printf(", %.1f%% other", 100.0 * (sum->bursts - shown) / sum->bursts);
	printf("\n");
}

/* --latency: one stage's figures in microseconds */
static struct vfwd_lat_summary
lat_us(const struct vfwd_lat_stats *l, uint64_t tsc_hz)
{
	struct vfwd_lat_summary s;
	double us = tsc_hz ? 1e6 / (double)tsc_hz : 0.0;

	vfwd_lat_summarize(l, &s);
	s.mean *= us;
	s.p50 *= us;
	s.p90 *= us;
	s.p99 *= us;
	s.p999 *= us;
	s.max *= us;
	return s;
}

/* The stages that held packets, a row each (label on the first); returns
 * the rows printed. */
static unsigned int
text_latency_rows(const char *label, const struct vfwd_lcore_stats *cum, uint64_t tsc_hz)
{
	unsigned int rows = 0;

	for (int k = 0; k < VFWD_LAT_COUNT; k++) {
		struct vfwd_lat_summary s;

		if (cum->lat[k].count == 0)
			continue;
		s = lat_us(&cum->lat[k], tsc_hz);
		printf("%-9s %-8s %11" PRIu64 " %9.1f %9.1f %9.1f %9.1f %9.1f %9.1f\n",
		       rows ? "" : label, vfwd_lat_names[k], s.count, s.mean, s.p50, s.p90, s.p99,
		       s.p999, s.max);
		rows++;
	}
	return rows;
}

static void
text_lcore(const char *label, const struct vfwd_lcore_stats *cum,
	   const struct vfwd_lcore_stats *delta, double secs, uint64_t tsc_hz)
{
	struct vfwd_summary c, p;

	vfwd_stats_summarize(cum, &c);
	vfwd_stats_summarize(delta, &p);
	printf("%-9s busy %5.1f%%  cycles/pkt %7.1f  (period: busy %5.1f%%, cycles/pkt %7.1f)\n",
	       label, c.busy_pct, c.cycles_per_pkt, p.busy_pct, p.cycles_per_pkt);
	if (cum->sleeps)
		printf("          asleep %.1f%% (period %.1f%%): %" PRIu64 " sleeps, %" PRIu64
		       " woken by rx interrupts; queues armed %" PRIu64 ", napped %" PRIu64 "\n",
		       c.sleep_pct, p.sleep_pct, cum->sleeps, cum->wakeups_intr, cum->intr_queues,
		       cum->nap_queues);
	if (cum->to_napi || cum->to_poll)
		printf("          adaptive: %" PRIu64 " switches to napi, %" PRIu64 " to poll\n",
		       cum->to_napi, cum->to_poll);
	if (cum->budget_stops)
		printf("          rounds cut by the round budget: %" PRIu64 "\n", cum->budget_stops);
	if (cum->ring_enq || cum->ring_deq || cum->ring_drops)
		printf("          pipeline rings: %" PRIu64 " handed over, %" PRIu64 " taken, %" PRIu64
		       " dropped full\n",
		       cum->ring_enq, cum->ring_deq, cum->ring_drops);
	if (cum->backlog_enq || cum->backlog_drops)
		printf("          backlog: %" PRIu64 " in, %" PRIu64 " out, depth %" PRIu64
		       ", %" PRIu64 " dropped full\n",
		       cum->backlog_enq, cum->backlog_deq, cum->backlog_enq - cum->backlog_deq,
		       cum->backlog_drops);
	for (int k = 0; k < VFWD_LAT_COUNT; k++) {
		struct vfwd_lat_summary s = lat_us(&cum->lat[k], tsc_hz);

		if (s.count)
			printf("          waited in %s: %" PRIu64 " packets, mean %.1f us, p50 %.1f, "
			       "p99 %.1f, max %.1f\n",
			       vfwd_lat_names[k], s.count, s.mean, s.p50, s.p99, s.max);
	}
	for (int d = 0; d < VFWD_DIR_COUNT; d++) {
		const struct vfwd_dir_summary *cd = &c.dir[d], *pd = &p.dir[d];
		const struct vfwd_dir_stats *ds = &cum->dir[d];
		char rx[16], tx[16];

		if (cd->polls == 0)
			continue;
		if (cd->rx_pkts == 0 && cd->tx_pkts == 0 && cd->drops_total == 0) {
			/* one line: with many workers most directions of most
			 * lcores are this, and the table gets long */
			printf("  %-8s nothing received, %" PRIu64 " polls\n", dir_name[d], cd->polls);
			continue;
		}
		si(rx, sizeof(rx), per_sec(pd->rx_pkts, secs));
		si(tx, sizeof(tx), per_sec(pd->tx_pkts, secs));
		printf("  %-8s rx %8" PRIu64 " tx %8" PRIu64 " drop %" PRIu64, dir_name[d],
		       cd->rx_pkts, cd->tx_pkts, cd->drops_total);
		if (cd->drops_total)
			printf(" (tx-full %" PRIu64 ", peer-down %" PRIu64 ")",
			       cd->drops[VFWD_DROP_TX_FULL], cd->drops[VFWD_DROP_PEER_DOWN]);
		printf("  now rx %spps tx %spps\n", rx, tx);
		for (int k = VFWD_DROP_BAD_GSO; k < VFWD_DROP_COUNT; k++)
			if (cd->drops[k])
				printf("            drop %s %" PRIu64 "\n", vfwd_drop_names[k], cd->drops[k]);
		printf("            polls %" PRIu64 ", empty %.1f%%, avg burst %.1f\n", cd->polls,
		       cd->polls ? 100.0 * cd->empty_polls / cd->polls : 0.0, cd->avg_burst);
		if (ds->gro_in)
			printf("            gro: %" PRIu64 " segments -> %" PRIu64
			       " packets (x%.2f), %" PRIu64 " merged, %" PRIu64 " flushes, %" PRIu64
			       " bypassed\n",
			       ds->gro_in, ds->gro_out, cd->gro_merge, ds->gro_merged, ds->gro_flushes,
			       ds->gro_bypassed);
		if (ds->gso_frames || ds->sw_cksums)
			printf("            tso frames %" PRIu64 ": %" PRIu64 " to port tso, %" PRIu64
			       " cut into %" PRIu64 " segments; sw checksums %" PRIu64 "\n",
			       ds->gso_frames, ds->tso_offloaded, ds->gso_sw_frames, ds->gso_segs,
			       ds->sw_cksums);
		if (cd->bursts)
			text_hist(&cum->dir[d], cd);
		if (ds->tx_flush_full || ds->tx_flush_timer || ds->tx_flush_empty)
			printf("            tx batches: %" PRIu64 " full, %" PRIu64 " timer, %" PRIu64
			       " rx empty\n",
			       ds->tx_flush_full, ds->tx_flush_timer, ds->tx_flush_empty);
		if (ds->weight_hits)
			printf("            visits cut by the queue weight: %" PRIu64 "\n",
			       ds->weight_hits);
	}
}

struct port_snapshot {
	char name[RTE_ETH_NAME_MAX_LEN];
	struct rte_eth_stats st;
	/* the PMD's count per queue, of the configured queues (at most
	 * VFWD_COMPAT_MAX_QSTATS); none where it keeps no such count */
	uint16_t nb_rxq_stats, nb_txq_stats;
	uint64_t rxq_pkts[VFWD_COMPAT_MAX_QSTATS], txq_pkts[VFWD_COMPAT_MAX_QSTATS];
};

/* A port's counters; with queues, its per-queue counts too (shown in
 * JSON only: since 25.11 they are xstats, more than a copy to read). */
static void
port_snapshot(const struct vfwd_app *app, uint16_t port, struct port_snapshot *ps, bool queues)
{
	struct rte_eth_dev_info info;
	int ret;

	memset(ps, 0, sizeof(*ps));
	vfwd_port_name(port, ps->name);
	if (rte_eth_dev_info_get(port, &info) == 0) {
		ps->nb_rxq_stats = RTE_MIN(info.nb_rx_queues, (uint16_t)VFWD_COMPAT_MAX_QSTATS);
		ps->nb_txq_stats = RTE_MIN(info.nb_tx_queues, (uint16_t)VFWD_COMPAT_MAX_QSTATS);
	}
	ret = vfwd_port_stats(port, &app->port_state[port], &ps->st,
			      queues ? ps->nb_rxq_stats : 0, ps->rxq_pkts,
			      queues ? ps->nb_txq_stats : 0, ps->txq_pkts);
	if (ret != 0 || !queues)
		ps->nb_rxq_stats = ps->nb_txq_stats = 0;
}

static void
text_ports(const struct vfwd_app *app)
{
	printf("port name                 role       rx-pkts     tx-pkts   rx-missed   rx-errors "
	       "  tx-errors   rx-nombuf\n");
	for (uint16_t i = 0; i < app->nb_ports; i++) {
		uint16_t port = app->ports[i];
		struct port_snapshot ps;
		const struct rte_eth_stats *s = &ps.st;

		port_snapshot(app, port, &ps, false);
		printf("%4u %-20.20s %-5s %11" PRIu64 " %11" PRIu64 " %11" PRIu64 " %11" PRIu64
		       " %11" PRIu64 " %11" PRIu64 "\n",
		       port, ps.name, app->port_state[port].is_vhost ? "vm  " : "wire", s->ipackets,
		       s->opackets, s->imissed, s->ierrors, s->oerrors, s->rx_nombuf);
	}
}

/* One report's figures: per worker since start (or the last clear) and
 * over the period since the view's last look, and their totals. */
struct report {
	struct vfwd_lcore_stats *raw, *now, *delta;
	struct vfwd_lcore_stats tot_now, tot_delta;
	double elapsed, secs;
	uint64_t tsc;
	bool final;
};

void
vfwd_stats_read(const struct vfwd_app *app, struct vfwd_lcore_stats *now)
{
	/* each worker's set from between two of its rounds, so that a report
	 * read while forwarding adds up (rx = tx + drops + held): a copy
	 * taken under the worker's feet was off by as many rounds as the
	 * copying thread spent preempted in it */
	if (vfwd_workers_snapshot(app->workers, app->nb_workers, now, VFWD_SNAPSHOT_TIMEOUT_US) != 0)
		fprintf(stderr, "dpdk-vfwd: warning: a worker did not copy its counters within %u ms "
				"(stuck in a port call?): these figures were read as they stood\n",
			VFWD_SNAPSHOT_TIMEOUT_US / 1000);
}

/* r's arrays must hold nb_workers entries. */
static void
report_take(struct vfwd_app *app, const struct vfwd_stats_view *view, struct report *r)
{
	/* the time of the counters: after the snapshot's wait (a napi lcore
	 * answers when its sleep ends) */
	vfwd_stats_read(app, r->raw);
	r->tsc = rte_rdtsc();
	r->elapsed = app->start_tsc ? (double)(r->tsc - app->start_tsc) / app->tsc_hz : 0;
	r->secs = view->last_tsc ? (double)(r->tsc - view->last_tsc) / app->tsc_hz : 0;
	memset(&r->tot_now, 0, sizeof(r->tot_now));
	memset(&r->tot_delta, 0, sizeof(r->tot_delta));
	for (uint16_t w = 0; w < app->nb_workers; w++) {
		vfwd_stats_sub(&r->now[w], &r->raw[w], &app->base[w]);
		vfwd_stats_sub(&r->delta[w], &r->raw[w], &view->last[w]);
		vfwd_stats_add(&r->tot_now, &r->now[w]);
		vfwd_stats_add(&r->tot_delta, &r->delta[w]);
	}
}

static void
report_done(struct vfwd_app *app, struct vfwd_stats_view *view, const struct report *r)
{
	memcpy(view->last, r->raw, app->nb_workers * sizeof(r->raw[0]));
	view->last_tsc = r->tsc;
}

#define REPORT_ON_STACK(app, r)                                                           \
	unsigned int nb_ = (app)->nb_workers ? (app)->nb_workers : 1;                     \
	struct vfwd_lcore_stats *arr_ = calloc(3 * nb_, sizeof(*arr_));                   \
	struct report r = {.raw = arr_, .now = arr_ ? arr_ + nb_ : NULL,                  \
			   .delta = arr_ ? arr_ + 2 * nb_ : NULL}

/* One row of the pair table: "  0 vm->wire   0->1   rx ... tx ... drop ..." */
static void
text_pair_row(const char *label, const char *dir, const char *ports,
	      const struct vfwd_stream_stats *cum, const struct vfwd_stream_stats *delta,
	      double secs)
{
	char rx[16], tx[16];

	si(rx, sizeof(rx), per_sec(delta->rx_pkts, secs));
	si(tx, sizeof(tx), per_sec(delta->tx_pkts, secs));
	printf("%-5s %-8s %-7s %14" PRIu64 " %14" PRIu64 " %10" PRIu64 " %9s %9s\n", label, dir,
	       ports, cum->rx_pkts, cum->tx_pkts, cum->drops, rx, tx);
}

/* --notify: what the guest's notifications waited, under its pair's rows */
static void
text_pair_notify(const struct vfwd_stream_stats *to_vm, double tsc_hz)
{
	if (to_vm->notify_deferred == 0)
		return;
	printf("      guest notifications held %" PRIu64 ", sent %" PRIu64
	       " (waited %.1f us on average), %" PRIu64 " bursts rode on one\n",
	       to_vm->notify_deferred, to_vm->notify_sent,
	       to_vm->notify_sent ? to_vm->notify_wait_tsc * 1e6 / tsc_hz / to_vm->notify_sent : 0.0,
	       to_vm->notify_coalesced);
}

/* One line per pair and direction, summed over lcores and queues (the
 * lcore blocks above say who did the work, this says whose traffic it
 * was), then the total of the pairs when there are several. */
static void
text_pairs(const struct vfwd_app *app, const struct report *r)
{
	struct vfwd_stream_stats tot[VFWD_DIR_COUNT], tot_d[VFWD_DIR_COUNT];

	if (app->nb_pairs == 0)
		return;
	memset(tot, 0, sizeof(tot));
	memset(tot_d, 0, sizeof(tot_d));
	printf("pair  dir      ports          rx-pkts        tx-pkts      drops    rx-pps    "
	       "tx-pps\n");
	for (uint16_t p = 0; p < app->nb_pairs; p++) {
		struct vfwd_pair_summary c, d;
		char label[8];

		vfwd_stats_pair_summarize(&r->tot_now, p, app->opt.nb_rxq, &c);
		vfwd_stats_pair_summarize(&r->tot_delta, p, app->opt.nb_rxq, &d);
		snprintf(label, sizeof(label), "%u", p);
		for (int k = 0; k < VFWD_DIR_COUNT; k++) {
			const struct vfwd_pair *pr = &app->pairs[p];
			bool to_wire = k == VFWD_DIR_VM_TO_WIRE;
			char ports[16];

			snprintf(ports, sizeof(ports), "%u->%u", to_wire ? pr->vm_port : pr->wire_port,
				 to_wire ? pr->wire_port : pr->vm_port);
			text_pair_row(k == 0 ? label : "", dir_name[k], ports, &c.dir[k].sum,
				      &d.dir[k].sum, r->secs);
			tot[k].rx_pkts += c.dir[k].sum.rx_pkts;
			tot[k].tx_pkts += c.dir[k].sum.tx_pkts;
			tot[k].drops += c.dir[k].sum.drops;
			tot_d[k].rx_pkts += d.dir[k].sum.rx_pkts;
			tot_d[k].tx_pkts += d.dir[k].sum.tx_pkts;
		}
		text_pair_notify(&c.dir[VFWD_DIR_WIRE_TO_VM].sum, (double)app->tsc_hz);
	}
	if (app->nb_pairs > 1)
		for (int k = 0; k < VFWD_DIR_COUNT; k++)
			text_pair_row(k == 0 ? "total" : "", dir_name[k], "", &tot[k], &tot_d[k],
				      r->secs);
}

static void
text_lcores(const struct vfwd_app *app, const struct report *r)
{
	for (uint16_t w = 0; w < app->nb_workers; w++) {
		char label[16];

		snprintf(label, sizeof(label), "lcore %u", vfwd_worker_lcore(app->workers[w]));
		text_lcore(label, &r->now[w], &r->delta[w], r->secs, app->tsc_hz);
	}
	if (app->nb_workers > 1)
		text_lcore("total", &r->tot_now, &r->tot_delta, r->secs, app->tsc_hz);
	text_pairs(app, r);
}

static void
report_text(struct vfwd_app *app, const struct report *r)
{
	printf("\n== dpdk-vfwd %s t=%.1fs %s==================================\n",
	       r->final ? "final stats" : "stats", r->elapsed, app->running ? "" : "(stopped) ");
	text_lcores(app, r);
	text_ports(app);
	printf("mempool: %u of %u mbufs in use (%u at start)\n", rte_mempool_in_use_count(app->pool),
	       app->pool->size, app->pool_in_use_at_start);
	fflush(stdout);
}

/* ,"<name>":<value>: one counter for JSON (a vfwd_counters_each callback) */
static void
json_counter(const char *name, uint64_t value, void *arg __rte_unused)
{
	printf(",\"%s\":%" PRIu64, name, value);
}

/* ,"latency":{"gro":{"count":..,"mean_us":..,...},...}: every stage,
 * since the start or clear fwd stats */
static void
json_latency(const struct vfwd_lcore_stats *cum, uint64_t tsc_hz)
{
	printf(",\"latency\":{");
	for (int k = 0; k < VFWD_LAT_COUNT; k++) {
		struct vfwd_lat_summary s = lat_us(&cum->lat[k], tsc_hz);

		printf("%s\"%s\":{\"count\":%" PRIu64 ",\"sum_tsc\":%" PRIu64
		       ",\"mean_us\":%.3f,\"p50_us\":%.3f,\"p90_us\":%.3f,\"p99_us\":%.3f,"
		       "\"p999_us\":%.3f,\"max_us\":%.3f}",
		       k ? "," : "", vfwd_lat_names[k], s.count, cum->lat[k].sum_tsc, s.mean, s.p50,
		       s.p90, s.p99, s.p999, s.max);
	}
	printf("}");
}

static void
json_lcore(const struct vfwd_lcore_stats *cum, const struct vfwd_lcore_stats *delta, double secs,
	   uint64_t tsc_hz)
{
	struct vfwd_summary c, p;

	vfwd_stats_summarize(cum, &c);
	vfwd_stats_summarize(delta, &p);
	printf("\"sleep_pct\":%.2f,\"period_sleep_pct\":%.2f,\"busy_pct\":%.2f,"
	       "\"cycles_per_pkt\":%.2f,\"period_busy_pct\":%.2f,\"period_cycles_per_pkt\":%.2f,"
	       "\"rx_pkts\":%" PRIu64 ",\"tx_pkts\":%" PRIu64 ",\"drops\":%" PRIu64,
	       c.sleep_pct, p.sleep_pct, c.busy_pct, c.cycles_per_pkt, p.busy_pct,
	       p.cycles_per_pkt, c.rx_pkts, c.tx_pkts, c.drops_total);
	vfwd_counters_each(vfwd_lcore_counters, VFWD_NB_LCORE_COUNTERS, cum, VFWD_SHOW_JSON,
			   json_counter, NULL);
	json_latency(cum, tsc_hz);
	printf(",\"dirs\":{");
	for (int d = 0; d < VFWD_DIR_COUNT; d++) {
		const struct vfwd_dir_summary *cd = &c.dir[d], *pd = &p.dir[d];
		const struct vfwd_dir_stats *ds = &cum->dir[d];
		const uint64_t *hist = ds->rx_burst_hist;
		bool first = true;

		printf("%s\"%s\":{\"drops\":%" PRIu64, d ? "," : "", vfwd_dir_keys[d],
		       cd->drops_total);
		vfwd_counters_each(vfwd_dir_counters, VFWD_NB_DIR_COUNTERS, ds, VFWD_SHOW_JSON,
				   json_counter, NULL);
		for (int k = 0; k < VFWD_DROP_COUNT; k++)
			printf(",\"drop_%s\":%" PRIu64, vfwd_drop_names[k], cd->drops[k]);
		printf(",\"gro_merge\":%.3f,\"out_expected\":%" PRIu64 ",\"tx_burst_hist\":{",
		       cd->gro_merge, cd->out_expected);
		for (int n = 1; n <= VFWD_MAX_BURST; n++) {
			if (ds->tx_burst_hist[n] == 0)
				continue;
			printf("%s\"%d\":%" PRIu64, first ? "" : ",", n, ds->tx_burst_hist[n]);
			first = false;
		}
		first = true;
		printf("}");
		printf(",\"polls\":%" PRIu64 ",\"empty_polls\":%" PRIu64 ",\"bursts\":%" PRIu64
		       ",\"avg_burst\":%.2f,\"rx_pps\":%.0f,\"tx_pps\":%.0f,\"rx_burst_hist\":{",
		       cd->polls, cd->empty_polls, cd->bursts, cd->avg_burst,
		       per_sec(pd->rx_pkts, secs), per_sec(pd->tx_pkts, secs));
		for (int n = 1; n <= VFWD_MAX_BURST; n++) {
			if (hist[n] == 0)
				continue;
			printf("%s\"%d\":%" PRIu64, first ? "" : ",", n, hist[n]);
			first = false;
		}
		printf("}}");
	}
	printf("}");
}

static void
json_stream_counts(const struct vfwd_stream_stats *ss)
{
	printf("\"out_expected\":%" PRIu64, vfwd_stream_out_expected(ss));
	vfwd_counters_each(vfwd_stream_counters, VFWD_NB_STREAM_COUNTERS, ss, VFWD_SHOW_JSON,
			   json_counter, NULL);
}

/* "streams":[...]: every stream of the current plan (pairs x rx queues x
 * directions) in key order, summed over lcores; its ports from the pair. */
static void
json_streams(const struct vfwd_app *app, const struct vfwd_lcore_stats *tot)
{
	bool first = true;

	printf("\"streams\":[");
	for (uint16_t p = 0; p < app->nb_pairs; p++) {
		const struct vfwd_pair *pr = &app->pairs[p];

		for (uint16_t q = 0; q < app->opt.nb_rxq; q++) {
			for (uint8_t d = 0; d < VFWD_DIR_COUNT; d++) {
				bool to_wire = d == VFWD_DIR_VM_TO_WIRE;

				printf("%s{\"pair\":%u,\"queue\":%u,\"dir\":\"%s\",\"rx_port\":%u,"
				       "\"tx_port\":%u,",
				       first ? "" : ",", p, q, vfwd_dir_keys[d],
				       to_wire ? pr->vm_port : pr->wire_port,
				       to_wire ? pr->wire_port : pr->vm_port);
				json_stream_counts(&tot->stream[vfwd_stream_key(p, q, d)]);
				printf("}");
				first = false;
			}
		}
	}
	printf("]");
}

/* "pairs":[...]: each pair's streams summed per direction, with rates
 * over the period. */
static void
json_pairs(const struct vfwd_app *app, const struct report *r)
{
	printf("\"pairs\":[");
	for (uint16_t p = 0; p < app->nb_pairs; p++) {
		struct vfwd_pair_summary c, d;

		vfwd_stats_pair_summarize(&r->tot_now, p, app->opt.nb_rxq, &c);
		vfwd_stats_pair_summarize(&r->tot_delta, p, app->opt.nb_rxq, &d);
		printf("%s{\"pair\":%u,\"vm_port\":%u,\"wire_port\":%u", p ? "," : "", p,
		       app->pairs[p].vm_port, app->pairs[p].wire_port);
		for (int k = 0; k < VFWD_DIR_COUNT; k++) {
			printf(",\"%s\":{", vfwd_dir_keys[k]);
			json_stream_counts(&c.dir[k].sum);
			printf(",\"rx_pps\":%.0f,\"tx_pps\":%.0f}",
			       per_sec(d.dir[k].sum.rx_pkts, r->secs),
			       per_sec(d.dir[k].sum.tx_pkts, r->secs));
		}
		printf("}");
	}
	printf("]");
}

/* ,"total":{"vm_to_wire":{...},...}: from the direction counters, which
 * are counted beside the streams' and not from them, so that a script can
 * check the one against the sum of the other. */
static void
json_dir_totals(const struct vfwd_lcore_stats *tot)
{
	struct vfwd_summary sum;

	vfwd_stats_summarize(tot, &sum);
	printf(",\"total\":{");
	for (int k = 0; k < VFWD_DIR_COUNT; k++) {
		const struct vfwd_dir_summary *d = &sum.dir[k];

		printf("%s\"%s\":{\"drops\":%" PRIu64 ",\"out_expected\":%" PRIu64, k ? "," : "",
		       vfwd_dir_keys[k], d->drops_total, d->out_expected);
		/* the summary carries the dir's traffic counters under their names */
#define JSON_TRAFFIC(name, show, help)                                                 \
	if ((show) & VFWD_SHOW_JSON)                                                   \
		json_counter(#name, d->name, NULL);
		VFWD_DIR_TRAFFIC_COUNTERS(JSON_TRAFFIC)
#undef JSON_TRAFFIC
		printf("}");
	}
	printf("}");
}

/* "lcores":[...],"total":{...} */
static void
json_lcores(const struct vfwd_app *app, const struct report *r)
{
	printf("\"lcores\":[");
	for (uint16_t w = 0; w < app->nb_workers; w++) {
		printf("%s{\"lcore\":%u,", w ? "," : "", vfwd_worker_lcore(app->workers[w]));
		json_lcore(&r->now[w], &r->delta[w], r->secs, app->tsc_hz);
		printf("}");
	}
	printf("],\"total\":{");
	json_lcore(&r->tot_now, &r->tot_delta, r->secs, app->tsc_hz);
	printf("}");
}

static void
json_port(const struct vfwd_app *app, uint16_t port, bool first)
{
	const struct vfwd_port_state *st = &app->port_state[port];
	struct port_snapshot ps;
	const struct rte_eth_stats *s = &ps.st;

	port_snapshot(app, port, &ps, true);
	printf("%s{\"port\":%u,\"name\":\"%s\",\"role\":\"%s\",\"link_up\":%u,"
	       "\"guest_gso\":%u,\"guest_ufo\":%u,\"tx_tso\":%u,\"tx_l4_cksum\":%u,"
	       "\"tx_multi_seg\":%u,\"mtu\":%u,\"guest_mtu\":%u,\"guest_features\":%" PRIu64 ","
	       "\"ipackets\":%" PRIu64 ",\"opackets\":%" PRIu64 ",\"ibytes\":%" PRIu64
	       ",\"obytes\":%" PRIu64 ",\"imissed\":%" PRIu64 ",\"ierrors\":%" PRIu64
	       ",\"oerrors\":%" PRIu64 ",\"rx_nombuf\":%" PRIu64 ",\"rxq_pkts\":[",
	       first ? "" : ",", port, ps.name, st->is_vhost ? "vm" : "wire", st->link_up,
	       st->guest_gso, st->guest_ufo, st->tx_tso, st->tx_l4_cksum, st->tx_multi_seg,
	       st->max_frame - RTE_ETHER_HDR_LEN, st->guest_mtu, st->guest_features, s->ipackets, s->opackets, s->ibytes,
	       s->obytes, s->imissed, s->ierrors, s->oerrors, s->rx_nombuf);
	for (uint16_t q = 0; q < ps.nb_rxq_stats; q++)
		printf("%s%" PRIu64, q ? "," : "", ps.rxq_pkts[q]);
	printf("],\"txq_pkts\":[");
	for (uint16_t q = 0; q < ps.nb_txq_stats; q++)
		printf("%s%" PRIu64, q ? "," : "", ps.txq_pkts[q]);
	printf("]}");
}

static void
report_json(struct vfwd_app *app, const struct report *r)
{
	struct vfwd_unmap_guard_stats guard;

	printf("{\"final\":%s,\"running\":%s,\"t\":%.3f,\"period_s\":%.3f,\"tsc_hz\":%" PRIu64 ",",
	       r->final ? "true" : "false", app->running ? "true" : "false", r->elapsed, r->secs,
	       app->tsc_hz);
	json_lcores(app, r);
	printf(",");
	json_streams(app, &r->tot_now);
	printf(",");
	json_pairs(app, r);
	printf(",\"ports\":[");
	for (uint16_t i = 0; i < app->nb_ports; i++)
		json_port(app, app->ports[i], i == 0);
	vfwd_unmap_guard_stats(&guard);
	printf("],\"mempool\":{\"size\":%u,\"in_use\":%u,\"in_use_at_start\":%u},"
	       "\"unmap_guard\":{\"waited\":%" PRIu64 ",\"free\":%" PRIu64 ",\"timeouts\":%" PRIu64
	       ",\"max_wait_us\":%" PRIu64 ",\"vhost_waits\":%" PRIu64
	       ",\"vhost_timeouts\":%" PRIu64 ",\"vhost_max_wait_us\":%" PRIu64 "}}\n",
	       app->pool->size, rte_mempool_in_use_count(app->pool), app->pool_in_use_at_start,
	       guard.unmaps_waited, guard.unmaps_free, guard.timeouts, guard.max_wait_us,
	       guard.vhost_waits, guard.vhost_timeouts, guard.vhost_max_wait_us);
	fflush(stdout);
}

void
vfwd_report(struct vfwd_app *app, struct vfwd_stats_view *view, bool final, bool json)
{
	REPORT_ON_STACK(app, r);

	if (arr_ == NULL)
		return;
	r.final = final;
	report_take(app, view, &r);
	/* the whole report at once: the stats and CLI threads both print */
	flockfile(stdout);
	if (json)
		report_json(app, &r);
	else
		report_text(app, &r);
	funlockfile(stdout);
	report_done(app, view, &r);
	free(arr_);
}

/* A show command's figures since the previous show: json_body prints the
 * members inside {"t":..,"period_s":.., ...}, text the text form; advance:
 * the next show's period starts now (not for a show that prints no rates). */
static void
show_report(struct vfwd_app *app, bool json, bool advance,
	    void (*json_body)(const struct vfwd_app *, const struct report *),
	    void (*text)(const struct vfwd_app *, const struct report *))
{
	REPORT_ON_STACK(app, r);

	if (arr_ == NULL)
		return;
	report_take(app, &app->show_view, &r);
	flockfile(stdout);
	if (json) {
		printf("{\"t\":%.3f,\"period_s\":%.3f,", r.elapsed, r.secs);
		json_body(app, &r);
		printf("}\n");
	} else {
		text(app, &r);
	}
	fflush(stdout);
	funlockfile(stdout);
	if (advance)
		report_done(app, &app->show_view, &r);
	free(arr_);
}

static void
show_since_last(struct vfwd_app *app, bool json,
		void (*json_body)(const struct vfwd_app *, const struct report *),
		void (*text)(const struct vfwd_app *, const struct report *))
{
	show_report(app, json, true, json_body, text);
}

void
vfwd_show_lcores(struct vfwd_app *app, bool json)
{
	show_since_last(app, json, json_lcores, text_lcores);
}

/* show latency json: {"t":..,"period_s":..,"tsc_hz":..,"latency_on":..,
 * "lcores":[{"lcore":N,"latency":{...}}],"total":{"latency":{...}}} */
static void
json_latency_body(const struct vfwd_app *app, const struct report *r)
{
	printf("\"tsc_hz\":%" PRIu64 ",\"latency_on\":%s,\"lcores\":[", app->tsc_hz,
	       app->opt.knobs.latency ? "true" : "false");
	for (uint16_t w = 0; w < app->nb_workers; w++) {
		printf("%s{\"lcore\":%u", w ? "," : "", vfwd_worker_lcore(app->workers[w]));
		json_latency(&r->now[w], app->tsc_hz);
		printf("}");
	}
	printf("],\"total\":{\"lcores\":%u", app->nb_workers);
	json_latency(&r->tot_now, app->tsc_hz);
	printf("}");
}

/* show latency: a row per lcore and stage that held packets, then the
 * totals; waits in microseconds since the start or clear fwd stats */
static void
text_latency(const struct vfwd_app *app, const struct report *r)
{
	unsigned int rows = 0;
	char label[16];

	printf("latency %s: time packets waited in each stage, us, since the start or "
	       "clear fwd stats\n",
	       app->opt.knobs.latency ? "on" : "off (set latency on)");
	printf("%-9s %-8s %11s %9s %9s %9s %9s %9s %9s\n", "lcore", "stage", "packets", "mean",
	       "p50", "p90", "p99", "p99.9", "max");
	for (uint16_t w = 0; w < app->nb_workers; w++) {
		snprintf(label, sizeof(label), "%u", vfwd_worker_lcore(app->workers[w]));
		rows += text_latency_rows(label, &r->now[w], app->tsc_hz);
	}
	if (app->nb_workers > 1)
		text_latency_rows("total", &r->tot_now, app->tsc_hz);
	if (rows == 0)
		printf("(no packet has waited in a stage yet)\n");
}

void
vfwd_show_latency(struct vfwd_app *app, bool json)
{
	/* waits since the start or clear fwd stats, no rates: the period
	 * of show lcore stats and the like goes on */
	show_report(app, json, false, json_latency_body, text_latency);
}

static void
json_pairs_streams_totals(const struct vfwd_app *app, const struct report *r)
{
	json_pairs(app, r);
	printf(",");
	json_streams(app, &r->tot_now);
	json_dir_totals(&r->tot_now);
}

void
vfwd_show_pairs(struct vfwd_app *app, bool json)
{
	show_since_last(app, json, json_pairs_streams_totals, text_pairs);
}

int
vfwd_view_init(struct vfwd_stats_view *v, uint16_t nb_workers)
{
	v->last = calloc(nb_workers ? nb_workers : 1, sizeof(v->last[0]));
	v->last_tsc = 0;
	return v->last ? 0 : -ENOMEM;
}

void
vfwd_view_fini(struct vfwd_stats_view *v)
{
	free(v->last);
	v->last = NULL;
}

/* ------------------------------------------------------------- port shows */

static bool
port_selected(uint16_t port, int want)
{
	return want < 0 || want == port;
}

void
vfwd_show_port_stats(struct vfwd_app *app, int want, bool json)
{
	uint64_t tsc = rte_rdtsc();
	bool first = true;

	flockfile(stdout);
	if (json)
		printf("{\"ports\":[");
	for (uint16_t i = 0; i < app->nb_ports; i++) {
		uint16_t port = app->ports[i];
		struct rte_eth_stats *last = &app->port_last[port];
		struct port_snapshot ps;
		const struct rte_eth_stats *s = &ps.st;
		double rx_pps, tx_pps;

		double secs;

		if (!port_selected(port, want))
			continue;
		secs = app->port_last_tsc[port]
			       ? (double)(tsc - app->port_last_tsc[port]) / app->tsc_hz
			       : 0;
		port_snapshot(app, port, &ps, false);
		rx_pps = secs > 0 ? (double)(s->ipackets - last->ipackets) / secs : 0;
		tx_pps = secs > 0 ? (double)(s->opackets - last->opackets) / secs : 0;
		if (json) {
			json_port(app, port, first);
			first = false;
		} else {
			printf("\n  ---- port %u (%s, %s side) ----\n", port, ps.name,
			       app->port_state[port].is_vhost ? "vm" : "wire");
			printf("  RX-packets: %-14" PRIu64 " RX-missed: %-10" PRIu64
			       " RX-bytes: %" PRIu64 "\n",
			       s->ipackets, s->imissed, s->ibytes);
			printf("  RX-errors:  %-14" PRIu64 " RX-nombuf: %" PRIu64 "\n", s->ierrors,
			       s->rx_nombuf);
			printf("  TX-packets: %-14" PRIu64 " TX-errors: %-10" PRIu64
			       " TX-bytes: %" PRIu64 "\n",
			       s->opackets, s->oerrors, s->obytes);
			if (secs > 0)
				printf("  Rx-pps: %-14.0f Tx-pps: %.0f   (over %.1f s)\n", rx_pps,
				       tx_pps, secs);
			else
				printf("  Rx-pps: -              Tx-pps: -   (rates from the next "
				       "show on)\n");
		}
		*last = ps.st;
		app->port_last_tsc[port] = tsc;
	}
	if (json)
		printf("]}\n");
	fflush(stdout);
	funlockfile(stdout);
}

static void
offload_names(char *buf, size_t len, uint64_t offloads)
{
	size_t n = 0;

	buf[0] = '\0';
	for (int bit = 0; bit < 64 && n < len; bit++) {
		const char *name;

		if (!(offloads & (1ULL << bit)))
			continue;
		name = rte_eth_dev_tx_offload_name(1ULL << bit);
		n += snprintf(buf + n, len - n, "%s%s", n ? " " : "", name);
	}
	if (n == 0)
		snprintf(buf, len, "none");
}

void
vfwd_show_port_info(struct vfwd_app *app, int want, bool json)
{
	bool first = true;

	if (json)
		printf("{\"ports\":[");
	for (uint16_t i = 0; i < app->nb_ports; i++) {
		uint16_t port = app->ports[i];
		const struct vfwd_port_state *st = &app->port_state[port];
		struct rte_eth_dev_info info;
		struct rte_eth_link link;
		struct rte_eth_conf conf;
		struct rte_ether_addr mac;
		char name[RTE_ETH_NAME_MAX_LEN], macs[RTE_ETHER_ADDR_FMT_SIZE], offl[512];
		uint16_t mtu = 0;

		if (!port_selected(port, want))
			continue;
		memset(&info, 0, sizeof(info));
		memset(&link, 0, sizeof(link));
		memset(&conf, 0, sizeof(conf));
		memset(&mac, 0, sizeof(mac));
		/* what a PMD cannot tell is shown zeroed (the calls may have
		 * written part of it before they failed) */
		if (rte_eth_dev_info_get(port, &info) != 0)
			memset(&info, 0, sizeof(info));
		if (rte_eth_link_get_nowait(port, &link) != 0)
			memset(&link, 0, sizeof(link));
		if (rte_eth_dev_conf_get(port, &conf) != 0)
			memset(&conf, 0, sizeof(conf));
		rte_eth_macaddr_get(port, &mac);
		/* the MTU vfwd sends by (--mtu, the guest's, or the PMD's) */
		mtu = st->max_frame - RTE_ETHER_HDR_LEN;
		vfwd_port_name(port, name);
		rte_ether_format_addr(macs, sizeof(macs), &mac);
		offload_names(offl, sizeof(offl), conf.txmode.offloads);
		if (json) {
			printf("%s{\"port\":%u,\"name\":\"%s\",\"driver\":\"%s\",\"role\":\"%s\","
			       "\"link_up\":%u,\"link_speed\":%u,\"mtu\":%u,\"guest_mtu\":%u,"
			       "\"mac\":\"%s\","
			       "\"rxq\":%u,\"txq\":%u,\"tx_offloads\":\"%s\",\"guest_gso\":%u,"
			       "\"socket\":%d}",
			       first ? "" : ",", port, name, info.driver_name ? info.driver_name : "",
			       st->is_vhost ? "vm" : "wire", link.link_status, link.link_speed, mtu,
			       st->guest_mtu, macs, info.nb_rx_queues, info.nb_tx_queues, offl, st->guest_gso,
			       rte_eth_dev_socket_id(port));
			first = false;
			continue;
		}
		printf("\n  ---- port %u: %s ----\n", port, name);
		printf("  driver %s, %s side, socket %d\n", info.driver_name ? info.driver_name : "?",
		       st->is_vhost ? "vm" : "wire", rte_eth_dev_socket_id(port));
		printf("  link %s, speed %u Mbps, MTU %u, MAC %s\n", link.link_status ? "up" : "down",
		       link.link_speed, mtu, macs);
		printf("  queues rx %u tx %u\n", info.nb_rx_queues, info.nb_tx_queues);
		printf("  tx offloads: %s\n", offl);
		if (st->is_vhost) {
			printf("  guest takes GSO frames (GUEST_TSO4/6+GUEST_CSUM): %s\n",
			       st->guest_gso == (VFWD_GRO_KIND_TCP4 | VFWD_GRO_KIND_TCP6) ? "TCPv4, TCPv6"
			       : st->guest_gso == VFWD_GRO_KIND_TCP4 ? "TCPv4"
			       : st->guest_gso == VFWD_GRO_KIND_TCP6 ? "TCPv6" : "no");
			if (st->guest_features) {
				uint64_t f = st->guest_features;

				printf("  guest's rings: %s, mergeable rx buffers %s, event index %s, "
				       "indirect descriptors %s\n",
				       f & (1ULL << VFWD_VIRTIO_F_RING_PACKED) ? "packed" : "split",
				       f & (1ULL << VFWD_VIRTIO_NET_F_MRG_RXBUF) ? "on" : "off",
				       f & (1ULL << VFWD_VIRTIO_RING_F_EVENT_IDX) ? "on" : "off",
				       f & (1ULL << VFWD_VIRTIO_RING_F_INDIRECT_DESC) ? "on" : "off");
			}
			if (st->guest_mtu) {
				const char *rule = "";

				if (st->mtu_given && st->guest_mtu > st->mtu_given)
					rule = " (--mtu, the smaller, rules)";
				else if (st->mtu_given && st->guest_mtu < st->mtu_given)
					rule = " (smaller than --mtu: it rules toward the guest)";
				printf("  guest announced MTU %u%s\n", st->guest_mtu, rule);
			}
			printf("  not offered to the guest: %s%s\n",
			       st->withheld_features & (1ULL << VFWD_VIRTIO_NET_F_HOST_UFO) ? "HOST_UFO" : "nothing",
			       st->guest_ufo ? " (but it negotiated HOST_UFO before vfwd could "
					       "withdraw it)" : "");
		}
	}
	if (json)
		printf("]}\n");
	fflush(stdout);
}

/* ---------------------------------------------------------------- config */

static bool
is_number(const char *s)
{
	char *end;

	if (*s == '\0')
		return false;
	strtod(s, &end);
	return *end == '\0';
}

void
vfwd_show_config(struct vfwd_app *app, bool json)
{
	const struct vfwd_options *o = &app->opt;
	char val[64];

	if (json) {
		printf("{\"running\":%s,\"knobs\":{", app->running ? "true" : "false");
		for (unsigned int i = 0; i < vfwd_nb_knobs; i++) {
			vfwd_knobs[i].get(o, val, sizeof(val));
			printf(is_number(val) ? "%s\"%s\":%s" : "%s\"%s\":\"%s\"", i ? "," : "",
			       vfwd_knobs[i].name, val);
		}
		printf("},\"rxq\":%u,\"txq\":%u,\"duration_s\":%g,\"pairs\":[", o->nb_rxq,
		       o->nb_txq, o->duration_s);
		for (uint16_t i = 0; i < app->nb_pairs; i++)
			printf("%s{\"vm_port\":%u,\"wire_port\":%u}", i ? "," : "",
			       app->pairs[i].vm_port, app->pairs[i].wire_port);
		printf("],\"lcores\":[");
		for (uint16_t w = 0; w < app->nb_workers; w++) {
			const struct vfwd_worker *wk = app->workers[w];

			printf("%s{\"lcore\":%u,\"streams\":[", w ? "," : "", vfwd_worker_lcore(wk));
			for (uint16_t s = 0; s < vfwd_worker_nb_streams(wk); s++) {
				const struct vfwd_stream *st = vfwd_worker_stream(wk, s);

				printf("%s{\"dir\":\"%s\",\"rx_port\":%u,\"rx_queue\":%u,"
				       "\"tx_port\":%u,\"tx_queue\":%u}",
				       s ? "," : "", vfwd_dir_keys[st->dir], st->rx_port, st->rx_queue,
				       st->tx_port, st->tx_queue);
			}
			printf("]}");
		}
		printf("]}\n");
		fflush(stdout);
		return;
	}
	printf("forwarding: %s\n", app->running ? "started" : "stopped");
	printf("knobs (set <knob> <value>):\n");
	for (unsigned int i = 0; i < vfwd_nb_knobs; i++) {
		vfwd_knobs[i].get(o, val, sizeof(val));
		printf("  %-14s %-10s %s\n", vfwd_knobs[i].name, val, vfwd_knobs[i].values);
	}
	printf("fixed at start: rxq %u, txq %u, duration %s\n", o->nb_rxq, o->nb_txq,
	       o->duration_s > 0 ? "set" : "none");
	for (uint16_t w = 0; w < app->nb_workers; w++) {
		const struct vfwd_worker *wk = app->workers[w];

		for (uint16_t s = 0; s < vfwd_worker_nb_streams(wk); s++) {
			const struct vfwd_stream *st = vfwd_worker_stream(wk, s);

			printf("  lcore %u: %s port %u q%u -> port %u q%u\n", vfwd_worker_lcore(wk),
			       dir_name[st->dir], st->rx_port, st->rx_queue, st->tx_port,
			       st->tx_queue);
		}
	}
	fflush(stdout);
}
