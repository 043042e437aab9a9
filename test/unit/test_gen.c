/* SPDX-License-Identifier: BSD-3-Clause
 *
 * dpdk-vfwd-gen's checks on crafted frames, without EAL: the pattern, the
 * frame builders and parsers (what a GRO merge or a flipped byte looks
 * like to them), the unit tracker and the latency histogram; flows to tx
 * queues, and the receiver's accounting (another generator's flows are
 * foreign) on frames of every shape.
 */
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ip.h>
#include <rte_tcp.h>

#include "check.h"
#include "gen.h"

static uint8_t a[16384], b[16384];
static const struct gen_shape plain;

static void
pattern_positions(void)
{
	/* any start, any length: the same bytes as one long fill */
	gen_fill(a, 42, 1000, 4000);
	for (uint32_t off = 0; off < 64; off++) {
		for (uint32_t len = 0; len < 70; len += 3) {
			gen_fill(b, 42, 1000 + off, len);
			CHECK(memcmp(a + off, b, len) == 0);
			CHECK(gen_matches(a + off, 42, 1000 + off, len));
		}
	}
	CHECK(!gen_matches(a, 43, 1000, 100));   /* another stream */
	CHECK(!gen_matches(a + 1, 42, 1000, 100)); /* shifted by one */
	a[2500] ^= 1;
	CHECK(!gen_matches(a, 42, 1000, 4000));
}

/* Bit patterns flipped in each byte: the lowest, one in the middle, the
 * highest, all of them. */
static const uint8_t flips[] = {0x01, 0x10, 0x80, 0xff};

/* Every single flipped byte of the frame in a[0..len) is caught, by a
 * checksum or the pattern, whatever bits flip: each position from the
 * EtherType on (the parsers do not look at MAC addresses, nothing in
 * between rewrites them), each of the flips. The only exception is the
 * one RFC 768 makes: a UDP checksum turned 0 means "no checksum", and the
 * rest of the frame is intact. */
static void
flip_every_byte_shaped(uint32_t len, bool tcp, const struct gen_shape *sh)
{
	const uint32_t udp_sum = gen_l2_len(sh) + gen_l3_len(sh) + 6;
	struct gen_rx_frame r;
	uint32_t missed = 0, tried = 0;

	for (uint32_t i = 12; i < len; i++) {
		for (size_t f = 0; f < RTE_DIM(flips); f++) {
			enum gen_verdict v;
			bool no_sum;

			a[i] ^= flips[f];
			no_sum = !tcp && !sh->ipv6 && (i == udp_sum || i == udp_sum + 1) &&
				 a[udp_sum] == 0 && a[udp_sum + 1] == 0;
			v = tcp ? gen_parse_tcp(a, len, 1448, sh, GEN_CSUM_VERIFY, GEN_CSUM_VERIFY, &r)
				: gen_parse_udp(a, len, sh, GEN_CSUM_VERIFY, GEN_CSUM_VERIFY, &r);
			a[i] ^= flips[f];
			tried++;
			if (no_sum) {
				CHECK(v == GEN_OK);
				continue;
			}
			if (v == GEN_OK) {
				if (missed++ < 5)
					fprintf(stderr, "# %s len %u: byte %u ^ 0x%02x not caught\n",
						tcp ? "tcp" : "udp", len, i, flips[f]);
			}
		}
	}
	CHECK(missed == 0);
	CHECK(tried == (len - 12) * RTE_DIM(flips));
	/* and the frame is still good after all that flipping back */
	CHECK((tcp ? gen_parse_tcp(a, len, 1448, sh, GEN_CSUM_VERIFY, GEN_CSUM_VERIFY, &r)
		   : gen_parse_udp(a, len, sh, GEN_CSUM_VERIFY, GEN_CSUM_VERIFY, &r)) == GEN_OK);
}

static void
flip_every_byte(uint32_t len, bool tcp)
{
	flip_every_byte_shaped(len, tcp, &plain);
}

static void
udp_round_trip(void)
{
	struct gen_udp_frame f = {.len = 60, .kind = GEN_KIND_UDP, .dir = GEN_WIRE_TO_VM,
				  .flow = 77, .seq = 123456789, .tsc = 987654321};
	struct gen_rx_frame r;

	for (uint16_t len = 60; len <= 1514; len += 97) {
		f.len = len;
		gen_build_udp(a, &plain, &f);
		memset(&r, 0, sizeof(r));
		CHECK(gen_parse_udp(a, len, &plain, GEN_CSUM_VERIFY, GEN_CSUM_VERIFY, &r) == GEN_OK);
		CHECK(r.kind == GEN_KIND_UDP && r.dir == GEN_WIRE_TO_VM && r.flow == 77 &&
		      r.seq == 123456789 && r.tsc == 987654321 && r.units == 1);
		flip_every_byte(len, false);
		/* a payload byte with the port vouching for the checksum: the
		 * pattern (a 64-byte frame has none: its checksums cover it) */
		a[len - 1] ^= 1;
		CHECK(len == 60 ||
		      gen_parse_udp(a, len, &plain, GEN_CSUM_GOOD, GEN_CSUM_GOOD, &r) == GEN_BAD_PAYLOAD);
		a[len - 1] ^= 1;
		CHECK(gen_parse_udp(a, len - 1, &plain, GEN_CSUM_GOOD, GEN_CSUM_GOOD, &r) == GEN_BAD_HEADER);
		CHECK(gen_parse_udp(a, len, &plain, GEN_CSUM_BAD, GEN_CSUM_GOOD, &r) == GEN_BAD_CSUM);
	}
}

static void
rr_response(void)
{
	struct gen_udp_frame f = {.len = 60, .kind = GEN_KIND_RR_REQ, .dir = GEN_VM_TO_WIRE,
				  .flow = 5, .seq = 9, .tsc = 1};
	struct gen_rx_frame r;

	gen_build_udp(a, &plain, &f);
	CHECK(gen_parse_udp(a, 60, &plain, GEN_CSUM_VERIFY, GEN_CSUM_VERIFY, &r) == GEN_OK &&
	      r.kind == GEN_KIND_RR_REQ);
	gen_udp_to_response(a, &plain, 60);
	memset(&r, 0, sizeof(r));
	CHECK(gen_parse_udp(a, 60, &plain, GEN_CSUM_VERIFY, GEN_CSUM_VERIFY, &r) == GEN_OK);
	CHECK(r.kind == GEN_KIND_RR_RESP && r.flow == 5 && r.seq == 9 && r.dir == GEN_VM_TO_WIRE);
}

static void
not_ours(void)
{
	struct gen_rx_frame r;

	memset(a, 0, 100);
	CHECK(gen_parse_udp(a, 100, &plain, GEN_CSUM_VERIFY, GEN_CSUM_VERIFY, &r) == GEN_NOT_OURS);
	CHECK(gen_parse_tcp(a, 100, 1448, &plain, GEN_CSUM_VERIFY, GEN_CSUM_VERIFY, &r) == GEN_NOT_OURS);
	CHECK(gen_parse_udp(a, 10, &plain, GEN_CSUM_VERIFY, GEN_CSUM_VERIFY, &r) == GEN_NOT_OURS);
}

/* two segments glued the way GRO does: one header, both payloads */
static uint32_t
merge(const uint8_t *first, uint32_t len1, uint32_t len2, uint8_t *out)
{
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(out + 14);
	struct rte_tcp_hdr *th = (struct rte_tcp_hdr *)(ip + 1);
	uint32_t len = len1 + len2 - GEN_HDRS_TCP;

	memcpy(out, first, len1);
	memcpy(out + len1, b + GEN_HDRS_TCP, len2 - GEN_HDRS_TCP);
	ip->total_length = rte_cpu_to_be_16(len - 14);
	ip->hdr_checksum = 0;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	th->cksum = 0;
	th->cksum = rte_ipv4_udptcp_cksum(ip, th);
	return len;
}

static void
tcp_units(void)
{
	static uint8_t m[32768];
	struct gen_tcp_frame f = {.dir = GEN_VM_TO_WIRE, .flow = 3, .off = 1448 * 10,
				  .payload = 1448};
	struct gen_rx_frame r;
	uint32_t len;

	gen_build_tcp(a, &plain, &f);
	CHECK(gen_parse_tcp(a, 1502, 1448, &plain, GEN_CSUM_VERIFY, GEN_CSUM_VERIFY, &r) == GEN_OK);
	CHECK(r.flow == 3 && r.seq == 10 && r.units == 1 && r.dir == GEN_VM_TO_WIRE);
	/* every flipped byte of a TCP segment is caught too */
	flip_every_byte(1502, true);
	f.off += 1448;
	f.psh = true;
	gen_build_tcp(b, &plain, &f);
	len = merge(a, 1502, 1502, m);
	CHECK(gen_parse_tcp(m, len, 1448, &plain, GEN_CSUM_VERIFY, GEN_CSUM_VERIFY, &r) == GEN_OK);
	CHECK(r.seq == 10 && r.units == 2 && r.payload == 2896);
	/* a merge of segments that do not follow each other: bytes differ */
	f.off += 1448;
	gen_build_tcp(b, &plain, &f);
	len = merge(a, 1502, 1502, m);
	CHECK(gen_parse_tcp(m, len, 1448, &plain, GEN_CSUM_VERIFY, GEN_CSUM_VERIFY, &r) ==
	      GEN_BAD_PAYLOAD);
	/* cut off the MSS grid */
	CHECK(gen_parse_tcp(a, 1502, 1000, &plain, GEN_CSUM_VERIFY, GEN_CSUM_VERIFY, &r) ==
	      GEN_BAD_HEADER);
	/* the pseudo-header-only sum of a TSO frame fails unless the port vouches */
	f.tso = true;
	f.payload = 1448 * 4;
	gen_build_tcp(m, &plain, &f);
	len = GEN_HDRS_TCP + f.payload;
	CHECK(gen_parse_tcp(m, len, 1448, &plain, GEN_CSUM_VERIFY, GEN_CSUM_VERIFY, &r) == GEN_BAD_CSUM);
	CHECK(gen_parse_tcp(m, len, 1448, &plain, GEN_CSUM_VERIFY, GEN_CSUM_GOOD, &r) == GEN_OK &&
	      r.units == 4);
}

/* two segments of any shape glued the way GRO does: the first one's
 * headers (options included), both payloads, lengths and sums redone */
static uint32_t
merge_shaped(const struct gen_shape *sh, const uint8_t *first, uint32_t len1,
	     const uint8_t *second, uint32_t len2, uint8_t *out)
{
	uint32_t hdrs = gen_hdrs_tcp(sh), len = len1 + len2 - hdrs;
	uint8_t *l3 = out + gen_l2_len(sh);
	struct rte_tcp_hdr *th = (struct rte_tcp_hdr *)(l3 + gen_l3_len(sh));

	memcpy(out, first, len1);
	memcpy(out + len1, second + hdrs, len2 - hdrs);
	th->cksum = 0;
	if (sh->ipv6) {
		struct rte_ipv6_hdr *ip6 = (struct rte_ipv6_hdr *)l3;

		ip6->payload_len = rte_cpu_to_be_16(len - gen_l2_len(sh) - sizeof(*ip6));
		th->cksum = rte_ipv6_udptcp_cksum(ip6, th);
	} else {
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)l3;

		ip->total_length = rte_cpu_to_be_16(len - gen_l2_len(sh));
		ip->hdr_checksum = 0;
		ip->hdr_checksum = rte_ipv4_cksum(ip);
		th->cksum = rte_ipv4_udptcp_cksum(ip, th);
	}
	return len;
}

/* Tagged, IPv6 and timestamped frames: the same checks as the plain ones
 * (round trip, every flipped byte, merges, TSO sums), and a frame of
 * another shape is not taken for one of ours. */
static void
shaped_frames(void)
{
	static const struct gen_shape shapes[] = {
		{.vlan = 100}, {.ipv6 = true}, {.tcp_ts = true}, {.vlan = 4094, .ipv6 = true},
		{.vlan = 7, .ipv6 = true, .tcp_ts = true}, {.vlan = 1, .tcp_ts = true},
	};
	static uint8_t m[32768];

	CHECK(gen_hdrs_tcp(&shapes[4]) == 18 + 40 + 32 && gen_hdrs_udp(&shapes[3]) == 18 + 40 + 8);
	for (size_t i = 0; i < RTE_DIM(shapes); i++) {
		const struct gen_shape *sh = &shapes[i];
		struct gen_shape other = *sh;
		uint32_t min = gen_hdrs_udp(sh) + GEN_META_LEN, hdrs = gen_hdrs_tcp(sh), len;
		struct gen_udp_frame u = {.kind = GEN_KIND_RR_REQ, .dir = GEN_WIRE_TO_VM,
					  .flow = 9, .seq = 31337, .tsc = 5};
		struct gen_tcp_frame t = {.dir = GEN_WIRE_TO_VM, .flow = 2, .off = 1448 * 7,
					  .payload = 1448};
		struct gen_rx_frame r;

		for (uint32_t l = min; l <= 1518; l += 1518 - min) {
			u.len = (uint16_t)l;
			gen_build_udp(a, sh, &u);
			memset(&r, 0, sizeof(r));
			CHECK(gen_parse_udp(a, l, sh, GEN_CSUM_VERIFY, GEN_CSUM_VERIFY, &r) == GEN_OK);
			CHECK(r.kind == GEN_KIND_RR_REQ && r.dir == GEN_WIRE_TO_VM && r.flow == 9 &&
			      r.seq == 31337);
			flip_every_byte_shaped(l, false, sh);
			gen_udp_to_response(a, sh, l);
			CHECK(gen_parse_udp(a, l, sh, GEN_CSUM_VERIFY, GEN_CSUM_VERIFY, &r) == GEN_OK &&
			      r.kind == GEN_KIND_RR_RESP && r.flow == 9);
			/* as plain, or with another tag: not ours */
			CHECK((!sh->vlan && !sh->ipv6) || /* timestamps: a tcp matter */
			      gen_parse_udp(a, l, &plain, GEN_CSUM_VERIFY, GEN_CSUM_VERIFY, &r) ==
			      GEN_NOT_OURS);
			other.vlan = sh->vlan ? sh->vlan + 1 : 5;
			CHECK(gen_parse_udp(a, l, &other, GEN_CSUM_VERIFY, GEN_CSUM_VERIFY, &r) ==
			      GEN_NOT_OURS);
		}
		gen_build_tcp(a, sh, &t);
		CHECK(gen_parse_tcp(a, hdrs + 1448, 1448, sh, GEN_CSUM_VERIFY, GEN_CSUM_VERIFY, &r) ==
		      GEN_OK);
		CHECK(r.flow == 2 && r.seq == 7 && r.units == 1 && r.dir == GEN_WIRE_TO_VM);
		flip_every_byte_shaped(hdrs + 1448, true, sh);
		t.off += 1448;
		gen_build_tcp(b, sh, &t);
		len = merge_shaped(sh, a, hdrs + 1448, b, hdrs + 1448, m);
		CHECK(gen_parse_tcp(m, len, 1448, sh, GEN_CSUM_VERIFY, GEN_CSUM_VERIFY, &r) == GEN_OK &&
		      r.seq == 7 && r.units == 2);
		t.off += 1448;
		gen_build_tcp(b, sh, &t);
		len = merge_shaped(sh, a, hdrs + 1448, b, hdrs + 1448, m);
		CHECK(gen_parse_tcp(m, len, 1448, sh, GEN_CSUM_VERIFY, GEN_CSUM_VERIFY, &r) ==
		      GEN_BAD_PAYLOAD);
		if (sh->tcp_ts) {
			/* another flow's timestamps on this flow's segment */
			gen_build_tcp(a, sh, &t);
			a[hdrs - 9] ^= 1; /* tsval's last byte */
			CHECK(gen_parse_tcp(a, hdrs + 1448, 1448, sh, GEN_CSUM_GOOD, GEN_CSUM_GOOD,
					    &r) == GEN_BAD_HEADER);
		}
		t.tso = true;
		t.payload = 1448 * 3;
		t.dir = GEN_VM_TO_WIRE;
		gen_build_tcp(m, sh, &t);
		len = hdrs + t.payload;
		CHECK(gen_parse_tcp(m, len, 1448, sh, GEN_CSUM_VERIFY, GEN_CSUM_VERIFY, &r) ==
		      GEN_BAD_CSUM);
		CHECK(gen_parse_tcp(m, len, 1448, sh, GEN_CSUM_VERIFY, GEN_CSUM_GOOD, &r) == GEN_OK &&
		      r.units == 3 && r.dir == GEN_VM_TO_WIRE);
	}
}

static void
tracker(void)
{
	struct gen_track *t = calloc(1, sizeof(*t));

	CHECK(gen_track(t, 0) == GEN_SEEN_NEW);
	CHECK(gen_track(t, 1) == GEN_SEEN_NEW);
	CHECK(gen_track(t, 1) == GEN_SEEN_DUP);
	CHECK(gen_track(t, 5) == GEN_SEEN_NEW);      /* 2..4 missing so far */
	CHECK(gen_track(t, 3) == GEN_SEEN_LATE);
	CHECK(gen_track(t, 3) == GEN_SEEN_DUP);
	CHECK(gen_track(t, 2) == GEN_SEEN_LATE);
	/* a jump beyond the window forgets it: no stale duplicates */
	CHECK(gen_track(t, 5 + 3 * GEN_TRACK_WINDOW) == GEN_SEEN_NEW);
	CHECK(gen_track(t, 5 + 3 * GEN_TRACK_WINDOW - 1) == GEN_SEEN_LATE);
	CHECK(gen_track(t, 4) == GEN_SEEN_TOO_LATE);
	/* slots are reused as the window moves: every unit once, in order */
	for (uint64_t u = 10 * GEN_TRACK_WINDOW; u < 13 * GEN_TRACK_WINDOW; u++)
		CHECK(gen_track(t, u) == GEN_SEEN_NEW);
	CHECK(gen_track(t, 13 * GEN_TRACK_WINDOW - 5) == GEN_SEEN_DUP);
	CHECK(gen_track(t, 12 * GEN_TRACK_WINDOW) == GEN_SEEN_DUP);     /* the window's oldest */
	CHECK(gen_track(t, 12 * GEN_TRACK_WINDOW - 1) == GEN_SEEN_TOO_LATE);
	free(t);
}

static void
histogram(void)
{
	struct gen_hist *h = calloc(1, sizeof(*h)), *h2 = calloc(1, sizeof(*h2));

	CHECK(gen_hist_quantile(h, 0.5) == 0);
	for (uint64_t v = 1; v <= 100000; v++)
		gen_hist_add(h, v);
	CHECK(h->min == 1 && h->max == 100000 && h->count == 100000);
	for (double q = 0.1; q < 1; q += 0.1) {
		double want = q * 100000, got = (double)gen_hist_quantile(h, q);

		CHECK(got > want * 0.93 && got < want * 1.07);
	}
	CHECK(gen_hist_quantile(h, 0.999) > 99900 * 0.93);
	CHECK(gen_hist_quantile(h, 1) == 100000 && gen_hist_quantile(h, 0) == 1);
	/* small values are exact */
	gen_hist_add(h2, 7);
	gen_hist_add(h2, 7);
	gen_hist_add(h2, 9);
	CHECK(gen_hist_quantile(h2, 0.5) == 7 && gen_hist_quantile(h2, 0.9) == 9);
	gen_hist_add(h2, UINT64_MAX / 2); /* the last bucket, no overflow */
	CHECK(gen_hist_quantile(h2, 0.99) <= UINT64_MAX / 2);
	gen_hist_merge(h, h2);
	CHECK(h->count == 100004 && h->min == 1 && h->max == UINT64_MAX / 2);
	free(h);
	free(h2);
}

/* flow f on tx queue f % queues, whatever the base: one flow, one queue */
static void
flow_queues(void)
{
	struct gen_conf c;
	uint32_t local = 12345;

	gen_conf_defaults(&c);
	CHECK(c.queues == 1 && c.flow_base == 0);
	for (uint32_t f = 0; f < 1000; f++)
		CHECK(gen_flow_txq(&c, f) == 0);
	c.queues = 4;
	for (uint32_t f = 0; f < 1000; f++)
		CHECK(gen_flow_txq(&c, f) == f % 4);
	c.queues = 16;
	CHECK(gen_flow_txq(&c, 64511) == 64511 % 16);
	/* the base and the count bound this generator's flows */
	c.flows = 1;
	CHECK(gen_flow_local(&c, 0, &local) && local == 0);
	CHECK(!gen_flow_local(&c, 1, &local));
	c.flow_base = 100;
	c.flows = 4;
	CHECK(!gen_flow_local(&c, 99, &local) && !gen_flow_local(&c, 104, &local) &&
	      !gen_flow_local(&c, 0, &local) && !gen_flow_local(&c, UINT32_MAX, &local));
	for (uint32_t f = 100; f < 104; f++)
		CHECK(gen_flow_local(&c, f, &local) && local == f - 100);
	c.flow_base = GEN_MAX_FLOWS - 1;
	c.flows = 1;
	CHECK(gen_flow_local(&c, GEN_MAX_FLOWS - 1, &local) && local == 0);
}

/* a frame of flow f (as on the wire), unit seq, toward the wire, into a[];
 * its length */
static uint32_t
flow_frame(const struct gen_shape *sh, bool tcp, uint32_t f, uint64_t seq)
{
	if (tcp) {
		struct gen_tcp_frame t = {.dir = GEN_VM_TO_WIRE, .flow = f, .off = 1448 * seq,
					  .payload = 1448};

		gen_build_tcp(a, sh, &t);
		return gen_hdrs_tcp(sh) + 1448;
	} else {
		struct gen_udp_frame u = {.len = 200, .kind = GEN_KIND_UDP, .dir = GEN_VM_TO_WIRE,
					  .flow = f, .seq = seq, .tsc = 1};

		gen_build_udp(a, sh, &u);
		return 200;
	}
}

static bool
account_a(const struct gen_conf *c, struct gen_dir_state *ds, uint32_t len, uint16_t q,
	  struct gen_rx_frame *r)
{
	return gen_account(c, ds, GEN_VM_TO_WIRE, c->profile == GEN_PROFILE_TCP ? 0 : GEN_KIND_UDP,
			   a, len, GEN_CSUM_VERIFY, GEN_CSUM_VERIFY, q, 7, r);
}

/* The receiver's accounting, frames of every shape: a good frame of one of
 * this generator's flows is received on its queue; a good one of another
 * generator's flow is foreign and nothing else (not received, not a frame
 * of ours, no tracker touched); a corrupted one is corrupted whatever flow
 * it says (the flow field is not to be trusted then). */
static void
foreign_flows(void)
{
	static const struct gen_shape shapes[] = {
		{0}, {.vlan = 100}, {.ipv6 = true}, {.vlan = 4094, .ipv6 = true, .tcp_ts = true},
	};

	for (size_t i = 0; i < RTE_DIM(shapes); i++) {
		for (int tcp = 0; tcp < 2; tcp++) {
			const struct gen_shape *sh = &shapes[i];
			struct gen_dir_state *ds = calloc(1, sizeof(*ds));
			struct gen_rx_stats *rx = &ds->rx;
			struct gen_rx_frame r;
			struct gen_conf c;
			uint32_t len;

			gen_conf_defaults(&c);
			c.profile = tcp ? GEN_PROFILE_TCP : GEN_PROFILE_UDP;
			c.shape = *sh;
			c.flow_base = 1000;
			c.flows = 4;
			c.queues = 2;
			ds->track = calloc(c.flows, sizeof(*ds->track));
			/* ours: flows 1000..1003, each on its queue */
			for (uint32_t f = 1000; f < 1004; f++) {
				len = flow_frame(sh, tcp, f, 0);
				CHECK(account_a(&c, ds, len, gen_flow_txq(&c, f), &r) && r.flow == f);
			}
			CHECK(rx->frames == 4 && rx->units_new == 4 && rx->foreign == 0);
			CHECK(rx->q_frames[0] == 2 && rx->q_frames[1] == 2);
			CHECK(ds->track[0].next == 1 && ds->track[3].next == 1);
			/* another generator's: below and above the range, and flow 0 */
			len = flow_frame(sh, tcp, 999, 1);
			CHECK(!account_a(&c, ds, len, 1, &r));
			len = flow_frame(sh, tcp, 1004, 1);
			CHECK(!account_a(&c, ds, len, 0, &r));
			len = flow_frame(sh, tcp, 0, 0);
			CHECK(!account_a(&c, ds, len, 0, &r));
			CHECK(rx->foreign == 3 && rx->frames == 4 && rx->units_new == 4 &&
			      rx->not_ours == 0 && rx->wrong_dir == 0 && rx->corrupt_units == 0 &&
			      rx->q_frames[0] + rx->q_frames[1] == 4);
			/* one of ours again: a duplicate, not foreign */
			len = flow_frame(sh, tcp, 1002, 0);
			CHECK(account_a(&c, ds, len, 0, &r) && r.new_units == 0 && rx->units_dup == 1);
			/* another generator's, corrupted: corrupted, not foreign */
			len = flow_frame(sh, tcp, 5, 3);
			a[len - 1] ^= 0x5a;
			CHECK(!account_a(&c, ds, len, 1, &r) && rx->foreign == 3 &&
			      rx->bad_payload + rx->bad_csum == 1 && rx->q_frames[1] == 3);
			/* ours, sent the other way: wrong_dir, not foreign */
			if (!tcp) {
				struct gen_udp_frame u = {.len = 200, .kind = GEN_KIND_UDP,
							  .dir = GEN_WIRE_TO_VM, .flow = 1001,
							  .seq = 9, .tsc = 1};

				gen_build_udp(a, sh, &u);
				CHECK(!account_a(&c, ds, 200, 1, &r) && rx->wrong_dir == 1 &&
				      rx->foreign == 3);
			}
			free(ds->track);
			free(ds);
		}
	}
}

static void
options(void)
{
	struct gen_opts o;
	char err[256];
	char *ok[] = {"gen", "--profile", "tcp", "--dir", "both", "--rate", "1.5M", "--tso", "4",
		      "--inject", "drop=3,corrupt=7", "--size", "1518", NULL};
	char *bad_sets[][4] = {
		{"gen", "--size", "63", NULL},      {"gen", "--flows", "0", NULL},
		{"gen", "--rate", "fast", NULL},    {"gen", "--burst", "257", NULL},
		{"gen", "--inject", "lose=1", NULL}, {"gen", "--dir", "up", NULL},
		{"gen", "--tso", "4", NULL},        {"gen", "stray", NULL},
		{"gen", "--queues", "0", NULL},     {"gen", "--queues", "17", NULL},
		{"gen", "--queues", "two", NULL},   {"gen", "--flow-base", "65001", NULL},
		{"gen", "--flow-base", "-1", NULL}, {"gen", "--flow-base", "", NULL},
	};
	char *mq[] = {"gen", "--queues", "16", "--flow-base", "100", "--flows", "8", NULL};
	char *over[] = {"gen", "--flow-base", "64500", "--flows", "13", NULL};
	char *edge[] = {"gen", "--flow-base", "64500", "--flows", "12", NULL};
	char *rr_both[] = {"gen", "--profile", "rr", "--dir", "both", NULL};

	CHECK(gen_parse_args(13, ok, &o, err, sizeof(err)) == 0);
	CHECK(o.conf.profile == GEN_PROFILE_TCP && o.conf.dir_on[0] && o.conf.dir_on[1] &&
	      o.conf.rate_pps == 1.5e6 && o.conf.tso == 4 && o.conf.inject_drop == 3 &&
	      o.conf.inject_corrupt == 7 && o.conf.inject_dup == GEN_NONE &&
	      o.conf.frame_len == 1514);
	for (size_t i = 0; i < RTE_DIM(bad_sets); i++) {
		int argc = 0;

		while (bad_sets[i][argc] != NULL)
			argc++;
		err[0] = '\0';
		CHECK(gen_parse_args(argc, bad_sets[i], &o, err, sizeof(err)) != 0 && err[0]);
	}
	CHECK(gen_parse_args(5, rr_both, &o, err, sizeof(err)) != 0 && strstr(err, "rr"));
	CHECK(gen_parse_args(7, mq, &o, err, sizeof(err)) == 0 && o.conf.queues == 16 &&
	      o.conf.flow_base == 100 && o.conf.flows == 8);
	CHECK(gen_parse_args(1, mq, &o, err, sizeof(err)) == 0 && o.conf.queues == 1 &&
	      o.conf.flow_base == 0);
	/* the last flow's source port is 65535 at most */
	CHECK(gen_parse_args(5, edge, &o, err, sizeof(err)) == 0);
	CHECK(gen_parse_args(5, over, &o, err, sizeof(err)) != 0 && strstr(err, "--flow-base"));
}

int
main(void)
{
	RUN(pattern_positions);
	RUN(udp_round_trip);
	RUN(rr_response);
	RUN(not_ours);
	RUN(tcp_units);
	RUN(shaped_frames);
	RUN(tracker);
	RUN(histogram);
	RUN(flow_queues);
	RUN(foreign_flows);
	RUN(options);
	return CHECK_DONE();
}
