/* SPDX-License-Identifier: BSD-3-Clause
 *
 * dpdk-vfwd-gen's data path: the frames it sends, the checks it makes on
 * what comes back, and the lcore loops that do both. No printing, no
 * options: gen_main.c, gen_options.c and gen_report.c parse, report and
 * own the process.
 *
 * Frames (IPv4, the 198.18.0.0/15 benchmark range: VM side .18.0.1, wire
 * side .19.0.1; or IPv6, 2001:2::12:1 and 2001:2::13:1; untagged or on one
 * VLAN; flow f = source port 1024 + f; a generator's flows are
 * flow_base..flow_base + flows - 1, so that several generators through one
 * forwarder send traffic told apart by its flows):
 *   udp, rr: an 18-byte header after the UDP header (magic, kind, the
 *            direction, the flow's sequence number, the send TSC), then a
 *            pattern keyed by (direction, flow, sequence): a frame glued
 *            from two others, or a flipped byte, does not match.
 *   tcp:     one TCP stream per flow, ACK-only MSS-sized segments (PSH every
 *            K optional), the payload a pattern keyed by the stream offset,
 *            so a frame merged by GRO or cut by GSO still checks byte for
 *            byte. A unit is one MSS of the stream; a merged frame carries
 *            several.
 * The receiver follows each flow's units: new, late (reordered), duplicate.
 * A good frame of another generator's flow is foreign (cross-talk).
 * Lost = sent - new - corrupted, when the run has drained.
 *
 * Queues: both ports have the same number of rx and tx queues; flow f is
 * always sent on tx queue f % queues (one flow, one queue: its order is
 * the queue's), and every rx queue is polled.
 */
#ifndef VFWD_GEN_H
#define VFWD_GEN_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_common.h>

struct rte_mempool;

enum gen_profile { GEN_PROFILE_UDP, GEN_PROFILE_TCP, GEN_PROFILE_RR };
enum gen_dir { GEN_VM_TO_WIRE, GEN_WIRE_TO_VM, GEN_DIR_COUNT };
enum gen_side { GEN_SIDE_VM, GEN_SIDE_WIRE, GEN_SIDE_COUNT };

/* where a direction's frames are sent from and arrive at */
static inline enum gen_side
gen_src_side(enum gen_dir d)
{
	return d == GEN_VM_TO_WIRE ? GEN_SIDE_VM : GEN_SIDE_WIRE;
}

static inline enum gen_side
gen_dst_side(enum gen_dir d)
{
	return d == GEN_VM_TO_WIRE ? GEN_SIDE_WIRE : GEN_SIDE_VM;
}

extern const char *const gen_dir_keys[GEN_DIR_COUNT];
extern const char *const gen_profile_names[];

/* ---- frames (gen_pkt.c) ---- */

/* header sizes of the plain shape (untagged IPv4, TCP without options);
 * gen_hdrs_udp() / gen_hdrs_tcp() give them for any shape */
#define GEN_HDRS_UDP 42u   /* Ethernet + IPv4 + UDP */
#define GEN_HDRS_TCP 54u   /* Ethernet + IPv4 + TCP */
#define GEN_META_LEN 18u   /* magic 1, kind|dir 1, seq 8, tsc 8 */
#define GEN_MIN_FRAME (GEN_HDRS_UDP + GEN_META_LEN) /* 64 B on the wire with the FCS */
#define GEN_FCS_LEN 4u     /* sizes are given as on the wire (RFC 2544); mbufs lack the FCS */
#define GEN_MAX_FLOWS 64512u /* source ports 1024..65535: flow_base + flows at most this */
#define GEN_MAX_FLOW_BASE 65000u /* the option's range; the sum above is the real limit */
#define GEN_MAX_QUEUES 16u
#define GEN_FLOW_PORT 1024u
#define GEN_UDP_PORT 5001u
#define GEN_RR_PORT 7u
#define GEN_TCP_PORT 5201u
#define GEN_TCP_SEQ_BASE 1000000u
#define GEN_TCP_TS_LEN 12u  /* NOP, NOP, timestamps: a 32-byte TCP header */
#define GEN_TCP_TSVAL 1000u /* + flow: fixed per flow */

/* how every frame of a run is framed */
struct gen_shape {
	uint16_t vlan;         /* 802.1Q VLAN ID 1..4094; 0: untagged */
	bool ipv6;
	bool tcp_ts;           /* tcp: the timestamp option on every segment */
};

uint32_t gen_l2_len(const struct gen_shape *sh);
uint32_t gen_l3_len(const struct gen_shape *sh);
uint32_t gen_tcp_hdr_len(const struct gen_shape *sh);
uint32_t gen_hdrs_udp(const struct gen_shape *sh);
uint32_t gen_hdrs_tcp(const struct gen_shape *sh);

enum gen_kind { GEN_KIND_UDP = 1, GEN_KIND_RR_REQ = 2, GEN_KIND_RR_RESP = 3 };

/* the pattern byte at stream position pos of stream key */
void gen_fill(uint8_t *dst, uint64_t key, uint64_t pos, uint32_t len);
bool gen_matches(const uint8_t *src, uint64_t key, uint64_t pos, uint32_t len);

struct gen_udp_frame {
	uint16_t len;          /* whole frame */
	uint8_t kind;          /* enum gen_kind */
	uint8_t dir;           /* enum gen_dir the frame (or its request) went */
	uint32_t flow;
	uint64_t seq;
	uint64_t tsc;
};

/* Writes a whole frame of f->len bytes, checksums included. */
void gen_build_udp(uint8_t *frame, const struct gen_shape *sh, const struct gen_udp_frame *f);
/* A request turned into its response in place (addresses swapped). */
void gen_udp_to_response(uint8_t *frame, const struct gen_shape *sh, uint32_t len);

struct gen_tcp_frame {
	uint8_t dir;
	uint32_t flow;
	uint64_t off;          /* stream offset of the first payload byte */
	uint32_t payload;
	bool psh;
	bool tso;              /* leave the TCP checksum to the port (pseudo header only) */
};

void gen_build_tcp(uint8_t *frame, const struct gen_shape *sh, const struct gen_tcp_frame *f);

/* what the receiver made of a frame */
enum gen_verdict {
	GEN_OK,
	GEN_NOT_OURS,     /* not a generator frame: other traffic, counted apart */
	GEN_BAD_HEADER,   /* ours, but lengths / fields do not add up */
	GEN_BAD_CSUM,
	GEN_BAD_PAYLOAD,  /* a byte differs from the pattern */
};

/* how far the receiver may trust the port's checksum verdicts */
enum gen_csum_hint {
	GEN_CSUM_VERIFY,  /* check in software */
	GEN_CSUM_GOOD,    /* the port checked it, or vouches for the data */
	GEN_CSUM_BAD,
};

struct gen_rx_frame {
	uint8_t kind, dir;
	uint32_t flow;
	uint64_t seq;          /* udp/rr: sequence; tcp: first unit (offset / mss) */
	uint32_t units;        /* tcp: payload / mss; udp/rr: 1 */
	uint64_t tsc;
	uint32_t payload;
	uint32_t new_units;    /* set by the receiver: units not seen before */
};

enum gen_verdict gen_parse_udp(const uint8_t *frame, uint32_t len, const struct gen_shape *sh,
			       enum gen_csum_hint ip_hint, enum gen_csum_hint l4_hint,
			       struct gen_rx_frame *out);
/* mss: units must start and end on the stream's MSS boundaries */
enum gen_verdict gen_parse_tcp(const uint8_t *frame, uint32_t len, uint32_t mss,
			       const struct gen_shape *sh, enum gen_csum_hint ip_hint,
			       enum gen_csum_hint l4_hint,
			       struct gen_rx_frame *out);

/* ---- following a flow's units (gen_track.c) ---- */

#define GEN_TRACK_WINDOW 1024u /* units a late one may be behind and still be told from a duplicate */

enum gen_seen { GEN_SEEN_NEW, GEN_SEEN_LATE, GEN_SEEN_DUP, GEN_SEEN_TOO_LATE };

struct gen_track {
	uint64_t next;   /* one past the highest unit seen */
	uint64_t bits[GEN_TRACK_WINDOW / 64];
};

enum gen_seen gen_track(struct gen_track *t, uint64_t unit);

/* latency: log-linear buckets, 16 per power of two (<= 6.25% error) */
#define GEN_HIST_SUB 16u
#define GEN_HIST_BUCKETS (GEN_HIST_SUB * 48u)

struct gen_hist {
	uint64_t count, sum, min, max;
	uint64_t bucket[GEN_HIST_BUCKETS];
};

void gen_hist_add(struct gen_hist *h, uint64_t v);
void gen_hist_merge(struct gen_hist *into, const struct gen_hist *h);
/* the value at quantile q (0..1): the middle of its bucket, within min..max */
uint64_t gen_hist_quantile(const struct gen_hist *h, double q);

/* ---- the run (gen_run.c) ---- */

#define GEN_NONE UINT64_MAX

struct gen_conf {
	enum gen_profile profile;
	bool dir_on[GEN_DIR_COUNT];
	uint16_t port[GEN_SIDE_COUNT];
	struct gen_shape shape;
	uint16_t frame_len;      /* udp, rr */
	uint32_t flows;
	uint32_t flow_base;      /* this generator's flows: flow_base..flow_base + flows - 1 */
	uint16_t queues;         /* rx and tx queues of each port, 1..GEN_MAX_QUEUES */
	double rate_pps;         /* per direction (rr: transactions/s); 0 = as fast as it goes */
	uint64_t count;          /* per direction (tcp: frames); 0 = for duration_s */
	double duration_s;
	double drain_ms;         /* after sending, how long to wait for stragglers */
	double timeout_s;        /* the whole run, whatever happens */
	uint16_t burst;
	uint16_t mss;            /* tcp */
	uint16_t tso;            /* tcp from the VM side: frames of this many segments */
	uint16_t psh_every;      /* tcp: PSH on every Nth segment of a flow; 0 = never */
	uint32_t outstanding;    /* rr: requests in flight */
	double rr_timeout_ms;    /* rr: no answer for this long: the ones in flight are lost */
	/* deliberate faults, for testing the checks: the unit of flow 0 of
	 * each sending direction with this sequence number is dropped, sent
	 * after the next one, sent twice or sent with a flipped payload byte */
	uint64_t inject_drop, inject_reorder, inject_dup, inject_corrupt;
};

void gen_conf_defaults(struct gen_conf *c);

/* the tx queue flow f (as on the wire: source port 1024 + f) is sent on:
 * always the same one, so that a flow's frames keep their order */
static inline uint16_t
gen_flow_txq(const struct gen_conf *c, uint32_t flow)
{
	return (uint16_t)(flow % c->queues);
}

/* Whether flow f (as on the wire) is one of this generator's; if so, its
 * index among them (the per-flow state's) in *local. */
static inline bool
gen_flow_local(const struct gen_conf *c, uint32_t flow, uint32_t *local)
{
	if (flow < c->flow_base || flow - c->flow_base >= c->flows)
		return false;
	*local = flow - c->flow_base;
	return true;
}

struct gen_tx_stats {
	uint64_t frames, units, bytes;
	uint64_t refused;        /* times the port did not take a frame (sent again: no gap) */
	uint64_t no_mbuf;
	uint64_t dropped;        /* by the generator: inject_drop, rr answers refused */
	uint64_t unsent, unsent_units; /* the port took nothing more before the end: not clean */
	uint64_t first_tsc, last_tsc;
	uint64_t q_frames[GEN_MAX_QUEUES]; /* frames the port took, per tx queue */
} __rte_cache_aligned;

struct gen_rx_stats {
	uint64_t frames, bytes, payload;
	uint64_t units_new, units_late, units_dup, units_too_late;
	uint64_t bad_header, bad_csum, bad_payload, wrong_dir, corrupt_units;
	uint64_t not_ours, multi_seg, max_frame;
	uint64_t foreign;        /* good frames of flows not ours: another generator's (cross-talk) */
	uint64_t q_frames[GEN_MAX_QUEUES]; /* frames counted in .frames, per rx queue */
	uint64_t first_tsc, last_tsc;
	uint64_t rr_timeouts;    /* rr, on the responses' direction */
	struct gen_hist latency; /* udp: one way; rr: request to response (TSC cycles) */
} __rte_cache_aligned;

#define GEN_BURST_MAX 256

struct gen_dir_state {
	struct gen_tx_stats tx;      /* written by the direction's sender only */
	struct gen_rx_stats rx;      /* written by the receiver at its far side only */
	/* the sender's */
	uint64_t *next_seq;          /* per flow */
	uint64_t built;              /* frames made (the rate and --count go by this) */
	struct rte_mbuf *pending[GEN_BURST_MAX + 2]; /* refused by the port: sent first next time */
	uint32_t pending_units[GEN_BURST_MAX + 2];
	uint8_t pending_q[GEN_BURST_MAX + 2];        /* the tx queue of each */
	uint16_t pending_n;
	struct rte_mbuf *held;       /* inject_reorder: the frame waiting for its successor */
	uint32_t held_units;
	uint32_t held_flow;
	uint64_t over_tsc;           /* when the sending ended (count, duration, signal) */
	uint8_t injected;            /* faults done (each happens once) */
	/* the receiver's */
	struct gen_track *track;     /* per flow */
	uint8_t *scratch;            /* a frame in one piece */
};

struct gen_ctx {
	struct gen_conf conf;
	struct rte_mempool *pool;
	struct rte_mempool *big_pool;   /* tso frames */
	uint64_t hz;
	uint64_t start_tsc;
	struct gen_dir_state dir[GEN_DIR_COUNT];
	/* set once by a sender when it has sent all it will; read by receivers */
	volatile bool tx_done[GEN_DIR_COUNT];
	volatile bool quit;             /* a signal: stop sending, drain, report */
	uint64_t deadline_tsc;          /* start + timeout: everything stops */
	volatile bool timed_out;        /* some task reached the deadline (only ever set) */
};

/* one lcore's share of the run */
enum gen_task_kind { GEN_TASK_SEND, GEN_TASK_RECV, GEN_TASK_RR_CLIENT, GEN_TASK_RR_SERVER };

struct gen_task {
	enum gen_task_kind kind;
	enum gen_dir dir;       /* send / rr: the direction of data or requests */
	enum gen_side side;     /* recv: where it polls */
};

#define GEN_MAX_TASKS 4

/* Allocates per-flow state; -errno. */
int gen_ctx_init(struct gen_ctx *ctx, const struct gen_conf *conf, struct rte_mempool *pool,
		 struct rte_mempool *big_pool);
void gen_ctx_free(struct gen_ctx *ctx);
/* The tasks the configuration needs, in order; how many. */
unsigned int gen_tasks(const struct gen_conf *conf, struct gen_task *tasks);
/* Runs tasks until they are finished (sent, drained) or the timeout. */
void gen_run_tasks(struct gen_ctx *ctx, const struct gen_task *tasks, unsigned int n);

/* lost units of a direction once the run is over */
uint64_t gen_lost(const struct gen_dir_state *d);

/* Checks one received frame of direction d, in one piece, that arrived on
 * rx queue q, and counts it in ds->rx (ds->track: the per-flow trackers).
 * want_kind: the udp/rr kind expected (0: tcp). True when it is a good one
 * of this direction and of this generator's flows; then *f is filled in
 * (f->flow as on the wire). Pure: no mbufs, no EAL. */
bool gen_account(const struct gen_conf *c, struct gen_dir_state *ds, enum gen_dir d,
		 uint8_t want_kind, const uint8_t *frame, uint32_t len, enum gen_csum_hint ip_hint,
		 enum gen_csum_hint l4_hint, uint16_t q, uint64_t now, struct gen_rx_frame *f);

#endif
