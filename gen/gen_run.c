/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The generator's lcore loops. Each task owns its queues and the counters
 * it writes: a sender its direction's tx stats and sequence numbers, a
 * receiver its direction's rx stats and trackers. The only thing shared
 * between lcores is tx_done[], set once by a sender, read by receivers.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "vfwd_gen.h"

#define SCRATCH_LEN (65535 + 40 + 18 + 64) /* the largest tagged IPv6 frame, and some */

void
gen_conf_defaults(struct gen_conf *c)
{
	memset(c, 0, sizeof(*c));
	c->profile = GEN_PROFILE_UDP;
	c->dir_on[GEN_VM_TO_WIRE] = true;
	c->port[GEN_SIDE_VM] = 0;
	c->port[GEN_SIDE_WIRE] = 1;
	c->frame_len = 64 - GEN_FCS_LEN;
	c->flows = 1;
	c->queues = 1;
	c->duration_s = 5;
	c->drain_ms = 500;
	c->timeout_s = 120;
	c->burst = 32;
	c->mss = 1448;
	c->outstanding = 1;
	c->rr_timeout_ms = 100;
	c->inject_drop = c->inject_reorder = c->inject_dup = c->inject_corrupt = GEN_NONE;
}

static enum gen_dir
reverse(enum gen_dir d)
{
	return d == GEN_VM_TO_WIRE ? GEN_WIRE_TO_VM : GEN_VM_TO_WIRE;
}

/* the directions that carry frames: rr answers on the reverse one */
static bool
dir_used(const struct gen_conf *c, enum gen_dir d)
{
	return c->dir_on[d] || (c->profile == GEN_PROFILE_RR && c->dir_on[reverse(d)]);
}

int
gen_ctx_init(struct gen_ctx *ctx, const struct gen_conf *conf, struct rte_mempool *pool,
	     struct rte_mempool *big_pool)
{
	memset(ctx, 0, sizeof(*ctx));
	ctx->conf = *conf;
	ctx->pool = pool;
	ctx->big_pool = big_pool;
	ctx->hz = rte_get_tsc_hz();
	for (int d = 0; d < GEN_DIR_COUNT; d++) {
		struct gen_dir_state *ds = &ctx->dir[d];

		if (!dir_used(conf, d))
			continue;
		ds->next_seq = calloc(conf->flows, sizeof(*ds->next_seq));
		ds->track = calloc(conf->flows, sizeof(*ds->track));
		ds->scratch = malloc(SCRATCH_LEN);
		if (ds->next_seq == NULL || ds->track == NULL || ds->scratch == NULL) {
			gen_ctx_free(ctx);
			return -ENOMEM;
		}
	}
	return 0;
}

void
gen_ctx_free(struct gen_ctx *ctx)
{
	for (int d = 0; d < GEN_DIR_COUNT; d++) {
		struct gen_dir_state *ds = &ctx->dir[d];

		free(ds->next_seq);
		free(ds->track);
		free(ds->scratch);
		rte_pktmbuf_free(ds->held);
		ds->next_seq = NULL;
		ds->track = NULL;
		ds->scratch = NULL;
		ds->held = NULL;
	}
}

unsigned int
gen_tasks(const struct gen_conf *c, struct gen_task *tasks)
{
	/* senders (rr: the asking side) first, then the far sides */
	static const enum gen_task_kind kinds[2][2] = {
		{GEN_TASK_SEND, GEN_TASK_RECV}, {GEN_TASK_RR_CLIENT, GEN_TASK_RR_SERVER},
	};
	bool rr = c->profile == GEN_PROFILE_RR;
	unsigned int n = 0;

	for (int far = 0; far < 2; far++) {
		for (int d = 0; d < GEN_DIR_COUNT; d++) {
			if (c->dir_on[d])
				tasks[n++] = (struct gen_task){kinds[rr][far], d,
							       far ? gen_dst_side(d) : gen_src_side(d)};
		}
	}
	return n;
}

uint64_t
gen_lost(const struct gen_dir_state *d)
{
	uint64_t arrived = d->rx.units_new + d->rx.corrupt_units;

	return d->tx.units > arrived ? d->tx.units - arrived : 0;
}

/* ---- sending ---- */

/* TCP sequence numbers are 32 bits: a flow's stream wraps after this many
 * units, at an MSS boundary, so that every unit stays whole. */
static uint64_t
tcp_wrap_units(uint32_t mss)
{
	return (UINT32_MAX - 65536u) / mss;
}

struct built {
	struct rte_mbuf *pkts[GEN_BURST_MAX + 2];
	uint32_t units[GEN_BURST_MAX + 2]; /* 0: a copy (inject_dup) */
	uint8_t q[GEN_BURST_MAX + 2];      /* the tx queue: its flow's */
	uint16_t n;
};

/* the tx queue of this generator's flow number local */
static uint8_t
local_txq(const struct gen_conf *c, uint32_t local)
{
	return (uint8_t)gen_flow_txq(c, c->flow_base + local);
}

/* Hands pkts[0..n) to port, each on its queue q[i] and in order within
 * each queue (a flow's order is its queue's); taken[i] says which the
 * port took, q_frames[] counts them per queue. How many it took. */
static uint16_t
tx_by_queue(uint16_t port, uint16_t queues, struct rte_mbuf **pkts, const uint8_t *q,
	    uint16_t n, bool *taken, uint64_t *q_frames)
{
	struct rte_mbuf *one_q[GEN_BURST_MAX + 2];
	uint16_t at[GEN_BURST_MAX + 2], all = 0;

	for (uint16_t qi = 0; qi < queues; qi++) {
		uint16_t k = 0, sent;

		for (uint16_t i = 0; i < n; i++) {
			if (q[i] == qi) {
				one_q[k] = pkts[i];
				at[k++] = i;
			}
		}
		if (k == 0)
			continue;
		sent = rte_eth_tx_burst(port, qi, one_q, k);
		for (uint16_t j = 0; j < k; j++)
			taken[at[j]] = j < sent;
		q_frames[qi] += sent;
		all += sent;
	}
	return all;
}

enum { INJ_DROP = 1, INJ_REORDER = 2, INJ_DUP = 4, INJ_CORRUPT = 8 };

/* each fault once, on the first frame of flow 0 that carries the unit */
static bool
inject_now(struct gen_dir_state *ds, uint8_t which, uint64_t what, uint32_t flow, uint64_t seq,
	   uint32_t units)
{
	if (what == GEN_NONE || flow != 0 || (ds->injected & which) || what < seq ||
	    what >= seq + units)
		return false;
	ds->injected |= which;
	return true;
}

static struct rte_mbuf *
build_one(struct gen_ctx *ctx, enum gen_dir d, uint8_t kind, uint32_t flow, uint64_t now,
	  uint32_t *units)
{
	const struct gen_conf *c = &ctx->conf;
	struct gen_dir_state *ds = &ctx->dir[d];
	uint64_t seq = ds->next_seq[flow];
	uint32_t wire_flow = c->flow_base + flow; /* flow: the index of the per-flow state */
	struct rte_mbuf *m;
	uint8_t *frame;

	if (c->profile != GEN_PROFILE_TCP) {
		struct gen_udp_frame f = {.len = c->frame_len, .kind = kind, .dir = d,
					  .flow = wire_flow, .seq = seq, .tsc = now};

		m = rte_pktmbuf_alloc(ctx->pool);
		if (m == NULL)
			return NULL;
		frame = (uint8_t *)rte_pktmbuf_append(m, c->frame_len);
		gen_build_udp(frame, &c->shape, &f);
		*units = 1;
	} else {
		uint64_t wrap = tcp_wrap_units(c->mss), at = seq % wrap;
		uint32_t k = (c->tso > 1 && gen_src_side(d) == GEN_SIDE_VM) ? c->tso : 1;
		struct gen_tcp_frame f = {.dir = d, .flow = wire_flow, .off = at * c->mss};

		if (at + k > wrap)
			k = (uint32_t)(wrap - at);
		f.payload = k * c->mss;
		f.tso = k > 1;
		f.psh = c->psh_every && (seq + k) / c->psh_every != seq / c->psh_every;
		m = rte_pktmbuf_alloc(f.tso ? ctx->big_pool : ctx->pool);
		if (m == NULL)
			return NULL;
		frame = (uint8_t *)rte_pktmbuf_append(m, gen_hdrs_tcp(&c->shape) + f.payload);
		if (frame == NULL) {
			rte_pktmbuf_free(m);
			return NULL;
		}
		gen_build_tcp(frame, &c->shape, &f);
		if (f.tso) {
			/* what a guest's TSO send looks like to the virtio PMD */
			m->ol_flags = RTE_MBUF_F_TX_TCP_SEG | RTE_MBUF_F_TX_TCP_CKSUM |
				      (c->shape.ipv6 ? RTE_MBUF_F_TX_IPV6 : RTE_MBUF_F_TX_IPV4);
			m->l2_len = gen_l2_len(&c->shape);
			m->l3_len = gen_l3_len(&c->shape);
			m->l4_len = gen_tcp_hdr_len(&c->shape);
			m->tso_segsz = c->mss;
		}
		*units = k;
	}
	/* the last byte: payload in every profile */
	if (inject_now(ds, INJ_CORRUPT, c->inject_corrupt, flow, seq, *units))
		frame[rte_pktmbuf_data_len(m) - 1] ^= 0x5a;
	ds->next_seq[flow] = seq + *units;
	return m;
}

/* Up to n new frames of direction d (flows in turn), with the deliberate
 * faults of the configuration applied; each with its flow's tx queue. */
static void
build_frames(struct gen_ctx *ctx, enum gen_dir d, uint8_t kind, uint16_t n, uint64_t now,
	     struct built *b)
{
	const struct gen_conf *c = &ctx->conf;
	struct gen_dir_state *ds = &ctx->dir[d];
	struct rte_mbuf *late = NULL;
	uint32_t late_units = 0;
	uint8_t late_q = 0;

	b->n = 0;
	for (uint16_t i = 0; i < n; i++) {
		uint32_t flow = (uint32_t)(ds->built % c->flows);
		uint64_t seq = ds->next_seq[flow];
		uint32_t units;
		struct rte_mbuf *m = build_one(ctx, d, kind, flow, now, &units);

		if (m == NULL) {
			ds->tx.no_mbuf++;
			break;
		}
		ds->built++;
		if (inject_now(ds, INJ_DROP, c->inject_drop, flow, seq, units)) {
			rte_pktmbuf_free(m); /* made, never sent: a gap */
			ds->tx.units += units;
			ds->tx.dropped++;
			continue;
		}
		if (ds->held != NULL && late == NULL && flow == ds->held_flow) {
			/* its flow's next frame is in this burst: it goes after it */
			late = ds->held;
			late_units = ds->held_units;
			late_q = local_txq(c, ds->held_flow);
			ds->held = NULL;
		}
		if (inject_now(ds, INJ_REORDER, c->inject_reorder, flow, seq, units)) {
			ds->held = m;
			ds->held_units = units;
			ds->held_flow = flow;
			continue;
		}
		b->pkts[b->n] = m;
		b->q[b->n] = local_txq(c, flow);
		b->units[b->n++] = units;
		if (inject_now(ds, INJ_DUP, c->inject_dup, flow, seq, units)) {
			struct rte_mbuf *copy = rte_pktmbuf_copy(m, ctx->pool, 0, UINT32_MAX);

			if (copy != NULL) {
				copy->ol_flags = m->ol_flags;
				copy->tso_segsz = m->tso_segsz;
				copy->tx_offload = m->tx_offload;
				b->pkts[b->n] = copy;
				b->q[b->n] = local_txq(c, flow);
				b->units[b->n++] = 0;
			}
		}
	}
	if (late != NULL) {
		b->pkts[b->n] = late;
		b->q[b->n] = late_q;
		b->units[b->n++] = late_units;
	}
}

/* Hands frames to the port, each on its flow's queue; what a queue
 * refuses waits in pending[] (in the order built) and goes first next
 * time, so that a busy port leaves no gaps and no reordering. One full
 * queue holds the others back until it takes its frames: slower, never
 * out of order. */
static void
send_frames(struct gen_ctx *ctx, enum gen_dir d, struct built *b, uint64_t now)
{
	struct gen_dir_state *ds = &ctx->dir[d];
	uint16_t port = ctx->conf.port[gen_src_side(d)];
	bool taken[GEN_BURST_MAX + 2];
	uint32_t len[GEN_BURST_MAX + 2];
	uint16_t sent;

	/* a frame the port took is its own: it may be freed before we look */
	for (uint16_t i = 0; i < b->n; i++)
		len[i] = rte_pktmbuf_pkt_len(b->pkts[i]);
	sent = tx_by_queue(port, ctx->conf.queues, b->pkts, b->q, b->n, taken, ds->tx.q_frames);
	for (uint16_t i = 0; i < b->n; i++) {
		if (taken[i]) {
			ds->tx.units += b->units[i];
			ds->tx.bytes += len[i];
			continue;
		}
		ds->pending[ds->pending_n] = b->pkts[i];
		ds->pending_units[ds->pending_n] = b->units[i];
		ds->pending_q[ds->pending_n++] = b->q[i];
	}
	ds->tx.frames += sent;
	if (sent > 0) {
		if (ds->tx.first_tsc == 0)
			ds->tx.first_tsc = now;
		ds->tx.last_tsc = now;
	}
	if (sent < b->n)
		ds->tx.refused++;
}

/* the frames refused last time, before anything new */
static bool
send_pending(struct gen_ctx *ctx, enum gen_dir d, uint64_t now)
{
	struct gen_dir_state *ds = &ctx->dir[d];
	struct built b;

	if (ds->pending_n == 0)
		return true;
	b.n = ds->pending_n;
	memcpy(b.pkts, ds->pending, b.n * sizeof(b.pkts[0]));
	memcpy(b.units, ds->pending_units, b.n * sizeof(b.units[0]));
	memcpy(b.q, ds->pending_q, b.n * sizeof(b.q[0]));
	ds->pending_n = 0;
	send_frames(ctx, d, &b, now);
	return ds->pending_n == 0;
}

/* what a port would not take in time: counted, so that the run is not clean */
static void
drop_unsent(struct gen_dir_state *ds)
{
	if (ds->pending_n > 0) {
		for (uint16_t i = 0; i < ds->pending_n; i++)
			ds->tx.unsent_units += ds->pending_units[i];
		rte_pktmbuf_free_bulk(ds->pending, ds->pending_n);
		ds->tx.unsent += ds->pending_n;
		ds->pending_n = 0;
	}
	if (ds->held != NULL) {
		ds->tx.unsent++;
		ds->tx.unsent_units += ds->held_units;
		rte_pktmbuf_free(ds->held);
		ds->held = NULL;
	}
}

static uint16_t
rate_allows(const struct gen_ctx *ctx, uint64_t built, uint64_t now, uint16_t n)
{
	const struct gen_conf *c = &ctx->conf;
	uint64_t done = built;

	if (c->rate_pps > 0) {
		double due = (double)(now - ctx->start_tsc) * c->rate_pps / (double)ctx->hz;

		if (due <= (double)done)
			return 0;
		if (due - (double)done < n)
			n = (uint16_t)(due - (double)done);
	}
	if (c->count && c->count - done < n)
		n = (uint16_t)(c->count - done);
	return n;
}

static bool
sending_over(const struct gen_ctx *ctx, const struct gen_dir_state *ds, uint64_t now)
{
	const struct gen_conf *c = &ctx->conf;

	if (ctx->quit || now >= ctx->deadline_tsc)
		return true;
	/* --count, --duration: whichever comes first */
	if (c->count && ds->built >= c->count)
		return true;
	return c->duration_s > 0 &&
	       now >= ctx->start_tsc + (uint64_t)(c->duration_s * (double)ctx->hz);
}

/* ---- receiving ---- */

static enum gen_csum_hint
ip_hint(const struct rte_mbuf *m)
{
	switch (m->ol_flags & RTE_MBUF_F_RX_IP_CKSUM_MASK) {
	case RTE_MBUF_F_RX_IP_CKSUM_GOOD: return GEN_CSUM_GOOD;
	case RTE_MBUF_F_RX_IP_CKSUM_BAD: return GEN_CSUM_BAD;
	default: return GEN_CSUM_VERIFY;
	}
}

static enum gen_csum_hint
l4_hint(const struct rte_mbuf *m)
{
	switch (m->ol_flags & RTE_MBUF_F_RX_L4_CKSUM_MASK) {
	case RTE_MBUF_F_RX_L4_CKSUM_GOOD:
	/* NONE: the checksum field is partial (a GSO frame from vhost) but the
	 * data was never on a wire: the payload check still covers it */
	case RTE_MBUF_F_RX_L4_CKSUM_NONE: return GEN_CSUM_GOOD;
	case RTE_MBUF_F_RX_L4_CKSUM_BAD: return GEN_CSUM_BAD;
	default: return GEN_CSUM_VERIFY;
	}
}

/* The unit numbers a TCP frame carries are 32-bit stream offsets: the
 * one nearest to where the flow is. */
static uint64_t
tcp_unwrap(uint64_t next, uint64_t unit32, uint64_t wrap)
{
	uint64_t base = next - next % wrap, u = base + unit32;

	if (u > next + wrap / 2 && u >= wrap)
		u -= wrap;
	else if (u + wrap / 2 < next)
		u += wrap;
	return u;
}

bool
gen_account(const struct gen_conf *c, struct gen_dir_state *ds, enum gen_dir d,
	    uint8_t want_kind, const uint8_t *frame, uint32_t len, enum gen_csum_hint iph,
	    enum gen_csum_hint l4h, uint16_t q, uint64_t now, struct gen_rx_frame *f)
{
	struct gen_rx_stats *rx = &ds->rx;
	enum gen_verdict v;
	uint32_t local = 0;

	memset(f, 0, sizeof(*f));
	f->units = 1;
	if (c->profile == GEN_PROFILE_TCP)
		v = gen_parse_tcp(frame, len, c->mss, &c->shape, iph, l4h, f);
	else
		v = gen_parse_udp(frame, len, &c->shape, iph, l4h, f);
	if (v == GEN_NOT_OURS) {
		rx->not_ours++;
		return false;
	}
	/* good, but another generator's flow: cross-talk through the
	 * forwarder, not a unit of ours received, lost or spoiled */
	if (v == GEN_OK && !gen_flow_local(c, f->flow, &local)) {
		rx->foreign++;
		return false;
	}
	rx->frames++;
	if (q < GEN_MAX_QUEUES)
		rx->q_frames[q]++;
	rx->bytes += len;
	if (len > rx->max_frame)
		rx->max_frame = len;
	if (rx->first_tsc == 0)
		rx->first_tsc = now;
	rx->last_tsc = now;
	/* an answer carries the direction of its question */
	if (v == GEN_OK && (f->dir != (want_kind == GEN_KIND_RR_RESP ? reverse(d) : d) ||
			    (want_kind && f->kind != want_kind)))
		v = GEN_NOT_OURS; /* ours, but not meant to arrive here */
	if (v == GEN_NOT_OURS) {
		/* not sent this way: no units of this direction spoiled */
		rx->wrong_dir++;
		return false;
	}
	switch (v) {
	case GEN_OK: break;
	case GEN_NOT_OURS: break;
	case GEN_BAD_HEADER: rx->bad_header++; break;
	case GEN_BAD_CSUM: rx->bad_csum++; break;
	case GEN_BAD_PAYLOAD: rx->bad_payload++; break;
	}
	if (v != GEN_OK) {
		rx->corrupt_units += f->units ? f->units : 1;
		return false;
	}
	rx->payload += f->payload;
	if (c->profile == GEN_PROFILE_TCP)
		f->seq = tcp_unwrap(ds->track[local].next, f->seq, tcp_wrap_units(c->mss));
	f->new_units = 0;
	for (uint64_t u = f->seq; u < f->seq + f->units; u++) {
		switch (gen_track(&ds->track[local], u)) {
		case GEN_SEEN_NEW: f->new_units++; break;
		case GEN_SEEN_LATE: f->new_units++; rx->units_late++; break;
		case GEN_SEEN_DUP: rx->units_dup++; break;
		case GEN_SEEN_TOO_LATE: f->new_units++; rx->units_too_late++; break;
		}
	}
	rx->units_new += f->new_units;
	return true;
}

/* Checks one frame that arrived for direction d on rx queue q and counts
 * it. Returns the parsed frame when it is a good one of that direction. */
static bool
account(struct gen_ctx *ctx, enum gen_dir d, uint8_t want_kind, struct rte_mbuf *m, uint16_t q,
	uint64_t now, struct gen_rx_frame *f)
{
	struct gen_dir_state *ds = &ctx->dir[d];
	struct gen_rx_stats *rx = &ds->rx;
	uint32_t len = rte_pktmbuf_pkt_len(m);
	const uint8_t *frame;
	uint64_t ours = rx->frames;
	bool good;

	if (len > SCRATCH_LEN) {
		rx->bad_header++;
		rx->corrupt_units++;
		return false;
	}
	frame = rte_pktmbuf_read(m, 0, len, ds->scratch);
	if (frame == NULL) {
		rx->bad_header++;
		rx->corrupt_units++;
		return false;
	}
	good = gen_account(&ctx->conf, ds, d, want_kind, frame, len, ip_hint(m), l4_hint(m), q,
			   now, f);
	rx->multi_seg += rx->frames != ours && m->nb_segs > 1;
	return good;
}

/* ---- the tasks ---- */

struct task_state {
	bool finished;
	uint64_t quiet_since;     /* receivers: last frame, or when the sender finished */
	uint32_t in_flight;       /* rr client */
	uint64_t last_answer;     /* rr client: last response, or first request in flight */
};

/* A sender's turn begins here: whether its sending is over (and since
 * when), and whether it must stop with frames unsent: the deadline, a
 * signal, or a port that took nothing for --drain-ms after the end. Then
 * the task is finished. */
static bool
give_up(struct gen_ctx *ctx, const struct gen_task *t, struct task_state *st, uint64_t now,
	bool *over)
{
	struct gen_dir_state *ds = &ctx->dir[t->dir];
	uint64_t drain = (uint64_t)(ctx->conf.drain_ms * (double)ctx->hz / 1e3);
	bool left;

	*over = sending_over(ctx, ds, now);
	if (*over && ds->over_tsc == 0)
		ds->over_tsc = now;
	left = ds->pending_n > 0 || ds->held != NULL;
	if (now >= ctx->deadline_tsc)
		ctx->timed_out = true;
	else if (!(left && (ctx->quit || (ds->over_tsc && now - ds->over_tsc > drain))))
		return false;
	drop_unsent(ds);
	ctx->tx_done[t->dir] = true;
	st->finished = true;
	return true;
}

/* once over, the frame kept back for a reorder goes without a successor */
static void
send_held(struct gen_ctx *ctx, enum gen_dir d, uint64_t now)
{
	struct gen_dir_state *ds = &ctx->dir[d];
	struct built b;

	b.pkts[0] = ds->held;
	b.units[0] = ds->held_units;
	b.q[0] = local_txq(&ctx->conf, ds->held_flow);
	b.n = 1;
	ds->held = NULL;
	send_frames(ctx, d, &b, now);
}

static void
do_send(struct gen_ctx *ctx, const struct gen_task *t, struct task_state *st, uint64_t now)
{
	struct gen_dir_state *ds = &ctx->dir[t->dir];
	struct built b;
	uint16_t n;
	bool over;

	if (give_up(ctx, t, st, now, &over) || !send_pending(ctx, t->dir, now))
		return;
	if (over) {
		if (ds->held != NULL) {
			send_held(ctx, t->dir, now);
			return;
		}
		ctx->tx_done[t->dir] = true;
		st->finished = true;
		return;
	}
	n = rate_allows(ctx, ds->built, now, ctx->conf.burst);
	if (n == 0)
		return;
	build_frames(ctx, t->dir, GEN_KIND_UDP, n, now, &b);
	send_frames(ctx, t->dir, &b, now);
}

static bool
drained(struct gen_ctx *ctx, bool sender_done, struct task_state *st, uint64_t now)
{
	if (now >= ctx->deadline_tsc) {
		ctx->timed_out = true;
		return true;
	}
	if (!sender_done)
		return false;
	if (st->quiet_since == 0)
		st->quiet_since = now;
	return now - st->quiet_since > (uint64_t)(ctx->conf.drain_ms * (double)ctx->hz / 1e3);
}

static void
do_recv(struct gen_ctx *ctx, const struct gen_task *t, struct task_state *st, uint64_t now)
{
	struct rte_mbuf *pkts[GEN_BURST_MAX];
	struct gen_rx_frame f;
	bool done = ctx->tx_done[t->dir];
	uint64_t ours = ctx->dir[t->dir].rx.frames;

	for (uint16_t q = 0; q < ctx->conf.queues; q++) {
		uint16_t n = rte_eth_rx_burst(ctx->conf.port[t->side], q, pkts, ctx->conf.burst);
		/* the loop's now may predate what a task on this lcore just sent */
		uint64_t arrived = n > 0 ? rte_rdtsc() : now;

		for (uint16_t i = 0; i < n; i++) {
			if (account(ctx, t->dir, ctx->conf.profile == GEN_PROFILE_TCP ? 0 : GEN_KIND_UDP,
				    pkts[i], q, now, &f) && f.tsc != 0 && f.tsc <= arrived)
				gen_hist_add(&ctx->dir[t->dir].rx.latency, arrived - f.tsc);
		}
		if (n > 0)
			rte_pktmbuf_free_bulk(pkts, n);
	}
	/* other traffic (a kernel's chatter) does not hold the drain open */
	if (done && ctx->dir[t->dir].rx.frames != ours)
		st->quiet_since = now;
	st->finished = drained(ctx, done, st, now);
}

static void
do_rr_client(struct gen_ctx *ctx, const struct gen_task *t, struct task_state *st, uint64_t now)
{
	const struct gen_conf *c = &ctx->conf;
	enum gen_dir back = reverse(t->dir);
	struct gen_dir_state *ds = &ctx->dir[t->dir];
	uint64_t timeout = (uint64_t)(c->rr_timeout_ms * (double)ctx->hz / 1e3);
	struct rte_mbuf *pkts[GEN_BURST_MAX];
	struct gen_rx_frame f;
	struct built b;
	uint64_t before;
	bool over;

	for (uint16_t q = 0; q < c->queues; q++) {
		uint16_t n = rte_eth_rx_burst(c->port[t->side], q, pkts, c->burst);
		uint64_t arrived = n > 0 ? rte_rdtsc() : now;

		for (uint16_t i = 0; i < n; i++) {
			if (!account(ctx, back, GEN_KIND_RR_RESP, pkts[i], q, now, &f))
				continue;
			if (f.tsc <= arrived)
				gen_hist_add(&ctx->dir[back].rx.latency, arrived - f.tsc);
			if (st->in_flight > 0)
				st->in_flight--;
			st->last_answer = now;
		}
		if (n > 0)
			rte_pktmbuf_free_bulk(pkts, n);
	}
	if (st->in_flight > 0 && now - st->last_answer > timeout) {
		/* lost on the way there or back: counted by the receivers */
		ctx->dir[back].rx.rr_timeouts += st->in_flight;
		st->in_flight = 0;
	}
	if (give_up(ctx, t, st, now, &over))
		return;
	before = ds->tx.frames;
	if (send_pending(ctx, t->dir, now)) {
		if (over && ds->held != NULL) {
			send_held(ctx, t->dir, now);
		} else if (!over && st->in_flight + ds->pending_n < c->outstanding) {
			uint16_t want = rate_allows(ctx, ds->built, now,
						    RTE_MIN(c->burst, c->outstanding - st->in_flight));

			if (want > 0) {
				build_frames(ctx, t->dir, GEN_KIND_RR_REQ, want, now, &b);
				send_frames(ctx, t->dir, &b, now);
			}
		}
	}
	if (st->in_flight == 0 && ds->tx.frames > before)
		st->last_answer = now; /* the timeout runs from the first in flight */
	st->in_flight += (uint32_t)(ds->tx.frames - before);
	if (over && ds->pending_n == 0 && ds->held == NULL) {
		ctx->tx_done[t->dir] = true;
		st->finished = st->in_flight == 0;
	}
}

static void
do_rr_server(struct gen_ctx *ctx, const struct gen_task *t, struct task_state *st, uint64_t now)
{
	const struct gen_conf *c = &ctx->conf;
	enum gen_dir back = reverse(t->dir);
	struct gen_tx_stats *tx = &ctx->dir[back].tx;
	struct rte_mbuf *pkts[GEN_BURST_MAX], *answers[GEN_BURST_MAX];
	uint8_t answer_q[GEN_BURST_MAX];
	uint32_t answer_len[GEN_BURST_MAX];
	bool taken[GEN_BURST_MAX];
	struct gen_rx_frame f;
	bool done = ctx->tx_done[t->dir], answered = false;

	for (uint16_t q = 0; q < c->queues; q++) {
		uint16_t n = rte_eth_rx_burst(c->port[t->side], q, pkts, c->burst), k = 0, sent;

		for (uint16_t i = 0; i < n; i++) {
			struct rte_mbuf *m = pkts[i];

			/* a duplicate request is counted, not answered again */
			if (!account(ctx, t->dir, GEN_KIND_RR_REQ, m, q, now, &f) ||
			    f.new_units == 0 || m->nb_segs != 1 || rte_mbuf_refcnt_read(m) != 1) {
				rte_pktmbuf_free(m);
				continue;
			}
			gen_udp_to_response(rte_pktmbuf_mtod(m, uint8_t *), &c->shape,
					    rte_pktmbuf_pkt_len(m));
			m->ol_flags = 0;
			/* an answer is a frame of its flow: on the flow's queue */
			answer_q[k] = (uint8_t)gen_flow_txq(c, f.flow);
			answer_len[k] = rte_pktmbuf_pkt_len(m); /* the port's once taken */
			answers[k++] = m;
		}
		if (k == 0)
			continue;
		answered = true;
		sent = tx_by_queue(c->port[t->side], c->queues, answers, answer_q, k, taken,
				   tx->q_frames);
		tx->frames += sent;
		tx->units += sent;
		if (sent > 0) {
			if (tx->first_tsc == 0)
				tx->first_tsc = now;
			tx->last_tsc = now;
		}
		for (uint16_t i = 0; i < k; i++) {
			if (taken[i]) {
				tx->bytes += answer_len[i];
				continue;
			}
			/* an answer the port refused is not sent again: the client's
			 * timeout recovers, the transaction is counted lost */
			tx->dropped++;
			rte_pktmbuf_free(answers[i]);
		}
	}
	if (answered && done)
		st->quiet_since = now;
	st->finished = drained(ctx, done, st, now);
	if (st->finished)
		ctx->tx_done[back] = true;
}

void
gen_run_tasks(struct gen_ctx *ctx, const struct gen_task *tasks, unsigned int n)
{
	struct task_state st[GEN_MAX_TASKS] = {0};
	unsigned int left = n;

	while (left > 0) {
		uint64_t now = rte_rdtsc();

		left = 0;
		for (unsigned int i = 0; i < n; i++) {
			if (st[i].finished)
				continue;
			switch (tasks[i].kind) {
			case GEN_TASK_SEND: do_send(ctx, &tasks[i], &st[i], now); break;
			case GEN_TASK_RECV: do_recv(ctx, &tasks[i], &st[i], now); break;
			case GEN_TASK_RR_CLIENT: do_rr_client(ctx, &tasks[i], &st[i], now); break;
			case GEN_TASK_RR_SERVER: do_rr_server(ctx, &tasks[i], &st[i], now); break;
			}
			left += !st[i].finished;
		}
	}
}
