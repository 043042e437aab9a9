/* SPDX-License-Identifier: BSD-3-Clause
 *
 * dpdk-vfwd-gen's report: JSON for scripts, one screen of text for people.
 */
#include <inttypes.h>
#include <stdio.h>

#include "gen.h"

struct figures {
	bool used;
	uint64_t sent, received, lost, reordered, dups, corrupted, unsent, foreign;
	double tx_secs, rx_secs, tx_pps, pps, fps, gbps, goodput_gbps;
};

static double
secs(const struct gen_ctx *ctx, uint64_t from, uint64_t to)
{
	return to > from ? (double)(to - from) / (double)ctx->hz : 0;
}

static void
compute(const struct gen_ctx *ctx, enum gen_dir d, struct figures *f)
{
	const struct gen_dir_state *ds = &ctx->dir[d];
	const struct gen_rx_stats *rx = &ds->rx;
	double window;

	f->used = ds->next_seq != NULL || ds->tx.frames > 0 || rx->frames > 0;
	f->sent = ds->tx.units;
	f->received = rx->units_new;
	f->lost = gen_lost(ds);
	f->reordered = rx->units_late + rx->units_too_late;
	f->dups = rx->units_dup;
	f->corrupted = rx->bad_header + rx->bad_csum + rx->bad_payload + rx->wrong_dir;
	f->unsent = ds->tx.unsent;
	f->foreign = rx->foreign;
	f->tx_secs = secs(ctx, ds->tx.first_tsc, ds->tx.last_tsc);
	f->rx_secs = secs(ctx, rx->first_tsc, rx->last_tsc);
	f->tx_pps = f->tx_secs > 0 ? (double)ds->tx.units / f->tx_secs : 0;
	/* rates over the time frames arrived: what made it through, per second */
	window = f->rx_secs > 0 ? f->rx_secs : f->tx_secs;
	f->pps = window > 0 ? (double)rx->units_new / window : 0;
	f->fps = window > 0 ? (double)rx->frames / window : 0;
	f->gbps = window > 0 ? (double)rx->bytes * 8 / window / 1e9 : 0;
	f->goodput_gbps = window > 0 ? (double)rx->payload * 8 / window / 1e9 : 0;
}

static double
cycles_to_us(const struct gen_ctx *ctx, uint64_t c)
{
	return (double)c * 1e6 / (double)ctx->hz;
}

/* "name":[n0,n1,...]: one count per queue */
static void
json_queues(FILE *out, const char *name, const uint64_t *q, uint16_t n)
{
	fprintf(out, ",\"%s\":[", name);
	for (uint16_t i = 0; i < n; i++)
		fprintf(out, "%s%" PRIu64, i ? "," : "", q[i]);
	fprintf(out, "]");
}

static void
json_latency(FILE *out, const struct gen_ctx *ctx, const struct gen_hist *h)
{
	fprintf(out, "{\"count\":%" PRIu64 ",\"min\":%.3f,\"mean\":%.3f,\"p50\":%.3f,\"p90\":%.3f,"
		"\"p99\":%.3f,\"p999\":%.3f,\"max\":%.3f}",
		h->count, cycles_to_us(ctx, h->min),
		h->count ? cycles_to_us(ctx, h->sum) / (double)h->count : 0,
		cycles_to_us(ctx, gen_hist_quantile(h, 0.5)),
		cycles_to_us(ctx, gen_hist_quantile(h, 0.9)),
		cycles_to_us(ctx, gen_hist_quantile(h, 0.99)),
		cycles_to_us(ctx, gen_hist_quantile(h, 0.999)), cycles_to_us(ctx, h->max));
}

static bool
clean(const struct figures *f)
{
	/* foreign: another generator's frames reached us, cross-talk */
	return f->lost == 0 && f->reordered == 0 && f->dups == 0 && f->corrupted == 0 &&
	       f->unsent == 0 && f->foreign == 0;
}

bool
gen_report_ok(const struct gen_ctx *ctx)
{
	bool ok = true, sent = false;

	for (int d = 0; d < GEN_DIR_COUNT; d++) {
		struct figures f;

		compute(ctx, d, &f);
		if (!f.used)
			continue;
		ok = ok && clean(&f);
		sent = sent || f.sent > 0;
	}
	return ok && sent;
}

void
gen_report_json(FILE *out, const struct gen_ctx *ctx, const struct gen_run_info *info)
{
	const struct gen_conf *c = &ctx->conf;
	bool first = true;

	fprintf(out, "{\"profile\":\"%s\",\"size\":%u,\"flows\":%u,\"flow_base\":%u,"
		"\"queues\":%u,\"rate\":%.1f,\"burst\":%u,\"mss\":%u,\"tso\":%u,\"outstanding\":%u,\"ip\":%u,\"vlan\":%u,\"tcp_ts\":%s,"
		"\"lcores\":%u,\"secs\":%.3f,\"dirs\":{",
		gen_profile_names[c->profile], c->frame_len + GEN_FCS_LEN, c->flows, c->flow_base,
		c->queues, c->rate_pps,
		c->burst, c->mss, c->tso, c->outstanding, c->shape.ipv6 ? 6 : 4, c->shape.vlan,
		c->shape.tcp_ts ? "true" : "false", info->lcores, info->secs);
	for (int d = 0; d < GEN_DIR_COUNT; d++) {
		const struct gen_dir_state *ds = &ctx->dir[d];
		const struct gen_rx_stats *rx = &ds->rx;
		struct figures f;

		compute(ctx, d, &f);
		if (!f.used)
			continue;
		fprintf(out, "%s\"%s\":{\"sent\":%" PRIu64 ",\"sent_frames\":%" PRIu64
			",\"sent_bytes\":%" PRIu64 ",\"refused\":%" PRIu64 ",\"no_mbuf\":%" PRIu64
			",\"gen_dropped\":%" PRIu64 ",\"unsent\":%" PRIu64 ",\"received\":%" PRIu64 ",\"frames\":%" PRIu64
			",\"bytes\":%" PRIu64 ",\"payload\":%" PRIu64 ",\"lost\":%" PRIu64
			",\"reordered\":%" PRIu64 ",\"too_late\":%" PRIu64 ",\"duplicates\":%" PRIu64
			",\"corrupted\":%" PRIu64 ",\"corrupt_units\":%" PRIu64 ",\"bad_header\":%" PRIu64
			",\"bad_csum\":%" PRIu64 ",\"bad_payload\":%" PRIu64 ",\"wrong_dir\":%" PRIu64
			",\"other\":%" PRIu64 ",\"foreign\":%" PRIu64 ",\"multi_seg\":%" PRIu64
			",\"max_frame\":%" PRIu64
			",\"rr_timeouts\":%" PRIu64 ",\"tx_secs\":%.6f,\"rx_secs\":%.6f,\"tx_pps\":%.1f"
			",\"pps\":%.1f,\"frames_ps\":%.1f,\"gbps\":%.4f,\"goodput_gbps\":%.4f,\"latency_us\":",
			first ? "" : ",", gen_dir_keys[d], f.sent, ds->tx.frames, ds->tx.bytes,
			ds->tx.refused, ds->tx.no_mbuf, ds->tx.dropped, f.unsent, f.received, rx->frames, rx->bytes,
			rx->payload, f.lost, f.reordered, rx->units_too_late, f.dups, f.corrupted,
			rx->corrupt_units, rx->bad_header, rx->bad_csum, rx->bad_payload, rx->wrong_dir,
			rx->not_ours, rx->foreign, rx->multi_seg, rx->max_frame, rx->rr_timeouts, f.tx_secs,
			f.rx_secs, f.tx_pps, f.pps, f.fps, f.gbps, f.goodput_gbps);
		json_latency(out, ctx, &rx->latency);
		/* frames the port took per tx queue; frames of ours per rx queue */
		json_queues(out, "txq", ds->tx.q_frames, c->queues);
		json_queues(out, "rxq", rx->q_frames, c->queues);
		fprintf(out, "}");
		first = false;
	}
	fprintf(out, "}");
	if (c->profile == GEN_PROFILE_RR) {
		enum gen_dir ask = c->dir_on[GEN_VM_TO_WIRE] ? GEN_VM_TO_WIRE : GEN_WIRE_TO_VM;
		const struct gen_rx_stats *answers = &ctx->dir[!ask].rx;
		const struct gen_tx_stats *asked = &ctx->dir[ask].tx;
		double s = secs(ctx, asked->first_tsc, answers->last_tsc);

		fprintf(out, ",\"rr\":{\"requests\":%" PRIu64 ",\"transactions\":%" PRIu64
			",\"tps\":%.1f,\"timeouts\":%" PRIu64 ",\"rtt_us\":",
			asked->units, answers->units_new, s > 0 ? (double)answers->units_new / s : 0,
			answers->rr_timeouts);
		json_latency(out, ctx, &answers->latency);
		fprintf(out, "}");
	}
	fprintf(out, ",\"ok\":%s}\n", gen_report_ok(ctx) ? "true" : "false");
}

static void
text_latency(FILE *out, const struct gen_ctx *ctx, const char *what, const struct gen_hist *h)
{
	if (h->count == 0)
		return;
	fprintf(out, "    %s us: p50 %.1f  p90 %.1f  p99 %.1f  p99.9 %.1f  max %.1f  (%" PRIu64
		" samples)\n", what, cycles_to_us(ctx, gen_hist_quantile(h, 0.5)),
		cycles_to_us(ctx, gen_hist_quantile(h, 0.9)),
		cycles_to_us(ctx, gen_hist_quantile(h, 0.99)),
		cycles_to_us(ctx, gen_hist_quantile(h, 0.999)), cycles_to_us(ctx, h->max), h->count);
}

void
gen_report_text(FILE *out, const struct gen_ctx *ctx, const struct gen_run_info *info)
{
	const struct gen_conf *c = &ctx->conf;
	const char *unit = c->profile == GEN_PROFILE_TCP ? "segments" : "frames";

	fprintf(out, "dpdk-vfwd-gen: %s over IPv%d", gen_profile_names[c->profile],
		c->shape.ipv6 ? 6 : 4);
	if (c->shape.vlan)
		fprintf(out, " on VLAN %u", c->shape.vlan);
	if (c->profile == GEN_PROFILE_TCP)
		fprintf(out, " mss %u%s%s", c->mss, c->tso > 1 ? " tso" : "",
			c->shape.tcp_ts ? " timestamps" : "");
	else
		fprintf(out, " %u B", c->frame_len + GEN_FCS_LEN);
	fprintf(out, ", %u flow%s", c->flows, c->flows == 1 ? "" : "s");
	if (c->flow_base)
		fprintf(out, " (%u..%u)", c->flow_base, c->flow_base + c->flows - 1);
	if (c->queues > 1)
		fprintf(out, ", %u queues", c->queues);
	fprintf(out, ", %.2f s, %u lcore%s\n", info->secs, info->lcores,
		info->lcores == 1 ? "" : "s");
	for (int d = 0; d < GEN_DIR_COUNT; d++) {
		const struct gen_rx_stats *rx = &ctx->dir[d].rx;
		struct figures f;

		compute(ctx, d, &f);
		if (!f.used)
			continue;
		fprintf(out, "  %-10s sent %" PRIu64 " %s, received %" PRIu64 ": lost %" PRIu64
			", reordered %" PRIu64 ", duplicate %" PRIu64 ", corrupted %" PRIu64,
			gen_dir_keys[d], f.sent, unit, f.received, f.lost, f.reordered, f.dups,
			f.corrupted);
		if (f.unsent)
			fprintf(out, ", %" PRIu64 " frames the port never took", f.unsent);
		if (f.foreign)
			fprintf(out, ", foreign %" PRIu64 " (another generator's flows)", f.foreign);
		fprintf(out, "%s\n", clean(&f) ? "" : "  <-- not clean");
		if (c->queues > 1) {
			fprintf(out, "    per queue: tx");
			for (uint16_t q = 0; q < c->queues; q++)
				fprintf(out, " %" PRIu64, ctx->dir[d].tx.q_frames[q]);
			fprintf(out, ", rx");
			for (uint16_t q = 0; q < c->queues; q++)
				fprintf(out, " %" PRIu64, rx->q_frames[q]);
			fprintf(out, " frames\n");
		}
		fprintf(out, "    %.3f Mpps (%.3f M%s/s sent), %.3f Gbit/s", f.pps / 1e6,
			f.tx_pps / 1e6, unit, f.gbps);
		if (c->profile == GEN_PROFILE_TCP)
			fprintf(out, ", %.3f Mframes/s, largest %" PRIu64 " B", f.fps / 1e6,
				rx->max_frame);
		fprintf(out, "\n");
		if (c->profile == GEN_PROFILE_UDP)
			text_latency(out, ctx, "one-way", &rx->latency);
	}
	if (c->profile == GEN_PROFILE_RR) {
		enum gen_dir ask = c->dir_on[GEN_VM_TO_WIRE] ? GEN_VM_TO_WIRE : GEN_WIRE_TO_VM;
		const struct gen_rx_stats *answers = &ctx->dir[!ask].rx;
		double s = secs(ctx, ctx->dir[ask].tx.first_tsc, answers->last_tsc);

		fprintf(out, "  rr: %" PRIu64 " transactions, %.0f /s, %u outstanding, %" PRIu64
			" timed out\n", answers->units_new,
			s > 0 ? (double)answers->units_new / s : 0, c->outstanding,
			answers->rr_timeouts);
		text_latency(out, ctx, "round trip", &answers->latency);
	}
}
