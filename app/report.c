/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Stats reports: per lcore and totals (like OVS pmd-perf-show and VPP show
 * runtime), port counters beside them. Text for people, one JSON object per
 * report for scripts. Rates are over the period since the last report;
 * counts are since start.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_mempool.h>

#include "app.h"

static const char *const dir_name[VFWD_DIR_COUNT] = {"vm->wire", "wire->vm"};
static const char *const dir_key[VFWD_DIR_COUNT] = {"vm_to_wire", "wire_to_vm"};
static const char *const drop_key[VFWD_DROP_COUNT] = {"tx_full", "peer_down", "bad_gso",
							"bad_csum", "no_mbuf"};

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

static void
text_lcore(const char *label, const struct vfwd_lcore_stats *cum,
	   const struct vfwd_lcore_stats *delta, double secs)
{
	struct vfwd_summary c, p;

	vfwd_stats_summarize(cum, &c);
	vfwd_stats_summarize(delta, &p);
	printf("%-9s busy %5.1f%%  cycles/pkt %7.1f  (period: busy %5.1f%%, cycles/pkt %7.1f)\n",
	       label, c.busy_pct, c.cycles_per_pkt, p.busy_pct, p.cycles_per_pkt);
	for (int d = 0; d < VFWD_DIR_COUNT; d++) {
		const struct vfwd_dir_summary *cd = &c.dir[d], *pd = &p.dir[d];
		const struct vfwd_dir_stats *ds = &cum->dir[d];
		char rx[16], tx[16];

		if (cd->polls == 0)
			continue;
		si(rx, sizeof(rx), per_sec(pd->rx_pkts, secs));
		si(tx, sizeof(tx), per_sec(pd->tx_pkts, secs));
		printf("  %-8s rx %8" PRIu64 " tx %8" PRIu64 " drop %" PRIu64
		       " (tx-full %" PRIu64 ", peer-down %" PRIu64 ")  now rx %spps tx %spps\n",
		       dir_name[d], cd->rx_pkts, cd->tx_pkts, cd->drops_total,
		       cd->drops[VFWD_DROP_TX_FULL], cd->drops[VFWD_DROP_PEER_DOWN], rx, tx);
		for (int k = VFWD_DROP_BAD_GSO; k < VFWD_DROP_COUNT; k++)
			if (cd->drops[k])
				printf("            drop %s %" PRIu64 "\n", drop_key[k], cd->drops[k]);
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
	}
}

struct port_snapshot {
	char name[RTE_ETH_NAME_MAX_LEN];
	struct rte_eth_stats st;
};

static void
port_snapshot(uint16_t port, struct port_snapshot *ps)
{
	memset(ps, 0, sizeof(*ps));
	if (rte_eth_dev_get_name_by_port(port, ps->name) != 0)
		snprintf(ps->name, sizeof(ps->name), "port%u", port);
	rte_eth_stats_get(port, &ps->st);
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

		port_snapshot(port, &ps);
		printf("%4u %-20.20s %-5s %11" PRIu64 " %11" PRIu64 " %11" PRIu64 " %11" PRIu64
		       " %11" PRIu64 " %11" PRIu64 "\n",
		       port, ps.name, app->port_state[port].is_vhost ? "vm  " : "wire", s->ipackets,
		       s->opackets, s->imissed, s->ierrors, s->oerrors, s->rx_nombuf);
	}
}

/* One report's figures: per worker since start and over the period, and
 * their totals. */
struct report {
	const struct vfwd_lcore_stats *now, *delta;
	struct vfwd_lcore_stats tot_now, tot_delta;
	double elapsed, secs;
	bool final;
};

static void
report_text(struct vfwd_app *app, const struct report *r)
{
	printf("\n== dpdk-vfwd %s t=%.1fs ==========================================\n",
	       r->final ? "final stats" : "stats", r->elapsed);
	for (uint16_t w = 0; w < app->nb_workers; w++) {
		char label[16];

		snprintf(label, sizeof(label), "lcore %u", app->workers[w].lcore_id);
		text_lcore(label, &r->now[w], &r->delta[w], r->secs);
	}
	if (app->nb_workers > 1)
		text_lcore("total", &r->tot_now, &r->tot_delta, r->secs);
	text_ports(app);
	printf("mempool: %u of %u mbufs in use (%u at start)\n", rte_mempool_in_use_count(app->pool),
	       app->pool->size, app->pool_in_use_at_start);
	fflush(stdout);
}

static void
json_lcore(const struct vfwd_lcore_stats *cum, const struct vfwd_lcore_stats *delta, double secs)
{
	struct vfwd_summary c, p;

	vfwd_stats_summarize(cum, &c);
	vfwd_stats_summarize(delta, &p);
	printf("\"busy_tsc\":%" PRIu64 ",\"idle_tsc\":%" PRIu64 ",\"busy_pct\":%.2f,"
	       "\"cycles_per_pkt\":%.2f,\"period_busy_pct\":%.2f,\"period_cycles_per_pkt\":%.2f,"
	       "\"rx_pkts\":%" PRIu64 ",\"tx_pkts\":%" PRIu64 ",\"drops\":%" PRIu64 ",\"dirs\":{",
	       c.busy_tsc, c.idle_tsc, c.busy_pct, c.cycles_per_pkt, p.busy_pct, p.cycles_per_pkt,
	       c.rx_pkts, c.tx_pkts, c.drops_total);
	for (int d = 0; d < VFWD_DIR_COUNT; d++) {
		const struct vfwd_dir_summary *cd = &c.dir[d], *pd = &p.dir[d];
		const struct vfwd_dir_stats *ds = &cum->dir[d];
		const uint64_t *hist = ds->rx_burst_hist;
		bool first = true;

		printf("%s\"%s\":{\"rx_pkts\":%" PRIu64 ",\"rx_bytes\":%" PRIu64
		       ",\"tx_pkts\":%" PRIu64 ",\"tx_bytes\":%" PRIu64 ",\"drops\":%" PRIu64,
		       d ? "," : "", dir_key[d], cd->rx_pkts, cd->rx_bytes, cd->tx_pkts,
		       cd->tx_bytes, cd->drops_total);
		for (int k = 0; k < VFWD_DROP_COUNT; k++)
			printf(",\"drop_%s\":%" PRIu64, drop_key[k], cd->drops[k]);
		printf(",\"gro_in\":%" PRIu64 ",\"gro_out\":%" PRIu64 ",\"gro_merged\":%" PRIu64
		       ",\"gro_flushes\":%" PRIu64 ",\"gro_bypassed\":%" PRIu64
		       ",\"gro_merge\":%.3f,\"gso_frames\":%" PRIu64
		       ",\"tso_offloaded\":%" PRIu64 ",\"gso_sw_frames\":%" PRIu64
		       ",\"gso_segs\":%" PRIu64 ",\"sw_cksums\":%" PRIu64
		       ",\"out_expected\":%" PRIu64,
		       ds->gro_in, ds->gro_out, ds->gro_merged, ds->gro_flushes, ds->gro_bypassed,
		       cd->gro_merge,
		       ds->gso_frames, ds->tso_offloaded, ds->gso_sw_frames, ds->gso_segs,
		       ds->sw_cksums, cd->out_expected);
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
report_json(struct vfwd_app *app, const struct report *r)
{
	printf("{\"final\":%s,\"t\":%.3f,\"period_s\":%.3f,\"tsc_hz\":%" PRIu64 ",\"lcores\":[",
	       r->final ? "true" : "false", r->elapsed, r->secs, app->tsc_hz);
	for (uint16_t w = 0; w < app->nb_workers; w++) {
		printf("%s{\"lcore\":%u,", w ? "," : "", app->workers[w].lcore_id);
		json_lcore(&r->now[w], &r->delta[w], r->secs);
		printf("}");
	}
	printf("],\"total\":{");
	json_lcore(&r->tot_now, &r->tot_delta, r->secs);
	printf("},\"ports\":[");
	for (uint16_t i = 0; i < app->nb_ports; i++) {
		uint16_t port = app->ports[i];
		struct port_snapshot ps;
		const struct rte_eth_stats *s = &ps.st;

		port_snapshot(port, &ps);
		printf("%s{\"port\":%u,\"name\":\"%s\",\"role\":\"%s\",\"link_up\":%u,"
		       "\"guest_gso\":%u,\"tx_tso\":%u,\"tx_l4_cksum\":%u,"
		       "\"ipackets\":%" PRIu64 ",\"opackets\":%" PRIu64 ",\"ibytes\":%" PRIu64
		       ",\"obytes\":%" PRIu64 ",\"imissed\":%" PRIu64 ",\"ierrors\":%" PRIu64
		       ",\"oerrors\":%" PRIu64 ",\"rx_nombuf\":%" PRIu64 "}",
		       i ? "," : "", port, ps.name, app->port_state[port].is_vhost ? "vm" : "wire",
		       app->port_state[port].link_up, app->port_state[port].guest_gso,
		       app->port_state[port].tx_tso, app->port_state[port].tx_l4_cksum, s->ipackets, s->opackets, s->ibytes, s->obytes,
		       s->imissed, s->ierrors, s->oerrors, s->rx_nombuf);
	}
	printf("],\"mempool\":{\"size\":%u,\"in_use\":%u,\"in_use_at_start\":%u}}\n",
	       app->pool->size, rte_mempool_in_use_count(app->pool), app->pool_in_use_at_start);
	fflush(stdout);
}

void
vfwd_report(struct vfwd_app *app, bool final)
{
	unsigned int n = app->nb_workers ? app->nb_workers : 1;
	struct vfwd_lcore_stats now[n], delta[n];
	uint64_t tsc = rte_rdtsc();
	struct report r = {
		.now = now,
		.delta = delta,
		.elapsed = (double)(tsc - app->start_tsc) / app->tsc_hz,
		.secs = (double)(tsc - app->last_tsc) / app->tsc_hz,
		.final = final,
	};

	for (uint16_t w = 0; w < app->nb_workers; w++) {
		memcpy(&now[w], &app->workers[w].stats, sizeof(now[w]));
		vfwd_stats_sub(&delta[w], &now[w], &app->last[w]);
		vfwd_stats_add(&r.tot_now, &now[w]);
		vfwd_stats_add(&r.tot_delta, &delta[w]);
	}

	if (app->opt.stats_format == VFWD_STATS_JSON)
		report_json(app, &r);
	else
		report_text(app, &r);

	memcpy(app->last, now, app->nb_workers * sizeof(now[0]));
	app->last_tsc = tsc;
}
