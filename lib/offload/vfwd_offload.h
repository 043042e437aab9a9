/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Offload stages of the worker pipeline: what the kernel's NAPI GRO does
 * toward the VM, and what vhost_net + tap do with a guest's TSO frames and
 * partial checksums toward the wire. Each stage works on a burst array,
 * allocates nothing but what librte_gso needs, and counts into the
 * caller's per-direction stats.
 */
#ifndef VFWD_OFFLOAD_H
#define VFWD_OFFLOAD_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_gso.h>
#include <rte_mbuf.h>

struct vfwd_dir_stats;

/* ------------------------------------------------------------- typing */

enum vfwd_parse {
	VFWD_PARSE_OTHER,  /* not TCP/UDP over IPv4/IPv6: leave alone */
	VFWD_PARSE_TCP4,
	VFWD_PARSE_TCP6,
	VFWD_PARSE_UDP4,
	VFWD_PARSE_UDP6,
	VFWD_PARSE_BAD,    /* claims IP + TCP/UDP but its headers do not fit or lie */
};

/* Validate the Ethernet/IP/L4 headers of m against its length and fill
 * packet_type and l2/l3/l4_len. Reads only bytes inside the packet; headers
 * must sit in the first segment (they do for every PMD we use). An IPv4
 * total length shorter than the frame (Ethernet padding) is fine; longer is
 * BAD. Up to two VLAN tags (802.1Q 0x8100, 802.1ad 0x88a8, in any order)
 * are walked, l2_len covering them; so are up to 8 IPv6 hop-by-hop,
 * routing and destination options headers, l3_len covering them. OTHER:
 * IPv4 fragments, an IPv6 fragment header, a third tag, truncated tags,
 * an extension header beyond the frame or the IPv6 payload, a longer
 * chain, a routing header with segments left of a type other than 0, 2
 * and 4. */
enum vfwd_parse vfwd_parse(struct rte_mbuf *m);

/* ---------------------------------------------------------------- GRO */

enum vfwd_gro_mode { VFWD_GRO_LIGHT, VFWD_GRO_HEAVY };

/* Who merges: vfwd's own engine, which follows the kernel's NAPI GRO
 * (dev_gro_receive, tcp_gro_receive: TCP over IPv4 and IPv6, tagged or
 * not, PSH merged as a flow's last segment), or librte_gro, the engine
 * dpdk-testpmd uses (TCP/IPv4 without tags or PSH). */
enum vfwd_gro_engine { VFWD_GRO_ENGINE_VFWD, VFWD_GRO_ENGINE_DPDK };

/* When heavy mode sends what it holds, besides the merge rules and the
 * flush timeout (doc/offloads.md):
 * COMPLETE: at the end of every poll that ran the rx queue empty (fewer
 *   packets than the burst), as napi_complete_done() does with
 *   gro_flush_timeout 0;
 * TIMEOUT: held across empty polls until gro-flush-us passed, as with
 *   gro_flush_timeout and napi_defer_hard_irqs set. */
enum vfwd_gro_flush { VFWD_GRO_FLUSH_COMPLETE, VFWD_GRO_FLUSH_TIMEOUT };

/* What a guest takes as GSO frames (VIRTIO_NET_F_GUEST_TSO4/6, each with
 * GUEST_CSUM): only those kinds are merged. */
#define VFWD_GRO_KIND_TCP4 0x1
#define VFWD_GRO_KIND_TCP6 0x2

#define VFWD_GRO_MAX_FLOWS 1024
#define VFWD_GRO_ITEMS_PER_FLOW 32
/* A stream's GRO holds at most this many mbufs (then it sends its oldest
 * flows), so that what a burst and a flush put out always fits a
 * burst-sized array plus this, and the pool can be sized for it. */
#define VFWD_GRO_HOLD_MAX 1024
/* The largest merged IP datagram: the 16-bit IP length fields. */
#define VFWD_GRO_MAX_IP_LEN 65535

struct vfwd_gro_conf {
	bool enabled;
	uint8_t mode;          /* enum vfwd_gro_mode */
	uint8_t engine;        /* enum vfwd_gro_engine */
	uint8_t flush;         /* enum vfwd_gro_flush (heavy mode) */
	uint16_t max_flows;    /* 1..VFWD_GRO_MAX_FLOWS */
	uint32_t flush_us;     /* heavy: send what waited this long */
};

struct vfwd_gro_table;

/* Per stream toward a VM, owned by the stream's worker. */
struct vfwd_gro {
	struct vfwd_gro_table *table; /* vfwd's engine */
	void *ctx;             /* librte_gro's heavy mode context */
	uint16_t ctx_flows;    /* what both were created for */
	uint64_t held_since;   /* librte_gro: TSC of the oldest packet held in ctx */
	bool ctx_may_hold;     /* librte_gro heavy mode put segments in ctx since it was last empty */
	bool may_hold;         /* either engine may hold segments */
	/* the many-flows bypass: segments in / packets out over a window */
	uint16_t win_bursts;
	uint32_t win_in, win_out;
	uint16_t bypass_left;  /* bursts still passed without trying */
};

/* Many flows, nothing merges: when over VFWD_GRO_WINDOW bursts at least
 * VFWD_GRO_WINDOW_MIN_SEGS data segments that could merge came in and GRO
 * cut their packet count by less than 10%, the next VFWD_GRO_BYPASS_BURSTS
 * skip it (after sending what it held), then it tries again. The
 * kernel's many-flows concern (seed 003): do not pay for GRO where it
 * cannot merge. Pure ACKs, flagged segments and what is not TCP do not
 * count: a window of only those (a guest's upload, UDP) is no reason to
 * stop merging the data that follows. */
#define VFWD_GRO_WINDOW 8
#define VFWD_GRO_WINDOW_MIN_SEGS 32
#define VFWD_GRO_BYPASS_BURSTS 256

/* Create both engines' state for conf->max_flows (control plane, before
 * launch; whatever the mode and engine, so that both can change at
 * runtime). Returns 0 or -ENOMEM. */
int vfwd_gro_init(struct vfwd_gro *g, const struct vfwd_gro_conf *conf, int socket);
void vfwd_gro_fini(struct vfwd_gro *g);

/* Merge the TCP segments of pkts[0..n) of the kinds the guest takes
 * (VFWD_GRO_KIND_*) in place; returns the new count. Merged packets leave
 * as one GSO frame for a virtio guest (TX_TCP_SEG, tso_segsz = the flow's
 * MSS, NEEDS_CSUM via TX_TCP_CKSUM with the pseudo-header sum in the TCP
 * checksum, IPv4 header checksum recomputed). Per flow, order is kept.
 * Light mode sends everything at the end of the call; heavy mode keeps
 * segments across calls. pkts must have room for n + VFWD_GRO_HOLD_MAX.
 * What the other engine held goes out first. */
uint16_t vfwd_gro_burst(struct vfwd_gro *g, const struct vfwd_gro_conf *conf, uint8_t kinds,
			struct rte_mbuf **pkts, uint16_t n, uint64_t now,
			struct vfwd_dir_stats *st);

/* Move what waited at least timeout_cycles (all of it with 0) to
 * out[0..max), oldest first, from either engine. */
uint16_t vfwd_gro_flush(struct vfwd_gro *g, uint64_t timeout_cycles, uint64_t now,
			struct rte_mbuf **out, uint16_t max, struct vfwd_dir_stats *st);
/* Packets held (a merged run counts one). */
uint32_t vfwd_gro_held(const struct vfwd_gro *g);

/* --------------------------------------------------------- toward wire */

/* The most segments one guest TSO frame may become. */
#define VFWD_GSO_MAX_SEGS 128

/* Per stream toward the wire, owned by the stream's worker. */
struct vfwd_wire_tx {
	bool tso_offload;      /* the wire port segments TCP itself (TCP_TSO) */
	bool ip_cksum_offload; /* ... and computes IPv4 / TCP / UDP checksums */
	bool l4_cksum_offload;
	bool multi_seg;        /* the port takes multi-segment mbufs (MULTI_SEGS) */
	uint16_t max_frame;    /* the wire's MTU + Ethernet header */
	struct rte_gso_ctx gso; /* its pools also serve our segmenter and flattening */
};

/* Make one guest frame fit the wire: segment a TSO frame (the port's TSO
 * offload, else librte_gso for TCP/IPv4, else vfwd's own segmenter:
 * TCP/IPv6 and the rest), complete a partial checksum (offload, else
 * software; software behind IPv6 extension headers). Tags and IPv6
 * extension headers are covered by l2_len / l3_len. For a port without
 * multi_seg every packet written is a single direct mbuf (chains are
 * copied into one; what does not fit one mbuf is dropped, oversize).
 * Writes the packets to send to out[0..room) and returns their count; 0
 * means m was dropped (freed and counted). room must be at least
 * VFWD_GSO_MAX_SEGS. Frames without RX_LRO or a partial checksum pass as
 * they are, unless longer than max_frame (dropped, oversize) or chained
 * for a single-segment port. */
uint16_t vfwd_wire_tx_prepare(const struct vfwd_wire_tx *w, struct rte_mbuf *m,
			      struct rte_mbuf **out, uint16_t room, struct vfwd_dir_stats *st);

/* The one's complement sum (folded, not complemented) of len bytes of m
 * from off on, across its segments; off + len within pkt_len. */
uint16_t vfwd_chain_raw_cksum(const struct rte_mbuf *m, uint32_t off, uint32_t len);

/* Toward a VM: drops (freed, counted oversize) the frames of pkts[0..n)
 * longer than max_frame plus their VLAN tags, the frames the guest's MTU
 * does not take (only a wire with a larger MTU than the VM's sends them).
 * Keeps the order of the rest; returns their count. */
uint16_t vfwd_vm_drop_oversize(struct rte_mbuf **pkts, uint16_t n, uint16_t max_frame,
			       struct vfwd_dir_stats *st);

/* Flags one of which in the OR of a burst's ol_flags means a look at each
 * packet: LRO (a guest's TSO frame) and the BAD bit, which L4_CKSUM_NONE
 * (a partial checksum to finish) shares with BAD. */
#define VFWD_RX_MAYBE_PREP (RTE_MBUF_F_RX_LRO | RTE_MBUF_F_RX_L4_CKSUM_BAD)

static inline bool
vfwd_needs_prep(const struct rte_mbuf *m)
{
	return (m->ol_flags & RTE_MBUF_F_RX_LRO) ||
	       (m->ol_flags & RTE_MBUF_F_RX_L4_CKSUM_MASK) == RTE_MBUF_F_RX_L4_CKSUM_NONE;
}

/* Whether one of pkts[0..n) must go through vfwd_wire_tx_prepare() for
 * port w (offloads to finish, longer than the wire takes, or a chain the
 * port cannot take), and their total length in *bytes: one walk, without
 * a branch per packet (VPP's way: OR what the burst has, decide once).
 * The walk ORs the flags and segment counts whole (nb_segs >= 1: the OR
 * is above 1 iff one is); only a burst whose flags may need prep is
 * looked at again, packet by packet. */
static inline bool
vfwd_wire_burst_needs_prep(const struct vfwd_wire_tx *w, struct rte_mbuf *const *pkts,
			   uint16_t n, uint64_t *bytes)
{
	uint64_t any = 0, sum = 0;
	uint32_t longest = 0;
	uint16_t segs = 0;

	for (uint16_t j = 0; j < n; j++) {
		const struct rte_mbuf *m = pkts[j];
		uint32_t len = rte_pktmbuf_pkt_len(m);

		any |= m->ol_flags;
		sum += len;
		longest = len > longest ? len : longest;
		segs |= m->nb_segs;
	}
	*bytes = sum;
	if (longest > w->max_frame || (!w->multi_seg && segs > 1))
		return true;
	if (likely(!(any & VFWD_RX_MAYBE_PREP)))
		return false;
	for (uint16_t j = 0; j < n; j++)
		if (vfwd_needs_prep(pkts[j]))
			return true;
	return false;
}

/* The same for one packet. */
static inline bool
vfwd_wire_needs_prep(const struct vfwd_wire_tx *w, struct rte_mbuf *m)
{
	uint64_t bytes;

	return vfwd_wire_burst_needs_prep(w, &m, 1, &bytes);
}

#endif /* VFWD_OFFLOAD_H */
