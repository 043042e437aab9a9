# SPDX-License-Identifier: BSD-3-Clause
"""GRO toward the VM through real PMDs, rule by rule, with dpdk-vfwd-gen
sending TCP segments from the wire and checking every byte of what reaches
the VM side (merged frames included):

    gen(virtio_user0) <-- vfwd(net_vhost0,tso=1 | net_memif0) <-- gen(net_memif0)

- PSH every K segments: vfwd's engine merges the PSH segment as a flow's
  last and sends the frame, so every frame carries exactly K segments while
  nothing else (a flush) cuts a run; librte_gro never merges a PSH segment.
- without PSH a frame stops at the largest IP datagram, 65535 bytes (45
  segments of 1448 or 1428 bytes), with timestamps, over IPv6, tagged;
- 8 interleaved flows merge as one does; a segment dropped, one reordered
  and one duplicated before vfwd are each reported once and nothing else
  goes wrong around them; a segment corrupted on the wire reaches the VM
  alone, as with GRO off (the engine verifies checksums before merging);
  1024 flows in a 1024-flow table all arrive (and when held 1 ms, all but
  what vfwd counted as dropped toward the VM).

Every run: what the generator put on the wire vfwd received, what vfwd sent
the generator got (frames and bytes), vfwd's packets in = packets out +
counted drops, nothing lost, reordered, duplicated or spoiled but what was
injected or counted as a drop, and no mbuf left in use.

The generator sends at full speed, bursts of 32 segments (--rate max), so
that vfwd's polls see runs of segments to merge; heavy mode with the
timeout policy and --gro-flush-us 1000 holds runs across polls so that
only the merge rules end a frame. The generator's VM port has a 4096-slot
ring (a 64 KB frame fills 33 slots of 2 KB buffers): with 1024, a run beside
a busy loop per CPU lost up to half of what vfwd sent to a full ring.
"""

from vfwdtest import LOSS_SHARE, Env, check, dir_stats, gen_through_vfwd

MSS = 1448
BURST = 32  # vfwd's default rx burst and the generator's
IP_MAX = 65535  # the largest merged IP datagram (the 16-bit length fields)
USER = ",queue_size=4096"
HEAVY = ["--gro", "--gro-mode", "heavy"]
TIMEOUT = ["--gro-flush-policy", "timeout", "--gro-flush-us", "1000"]


def l3l4(ipv6=False, ts=False):
    """The IP and TCP headers of a segment."""
    return (40 if ipv6 else 20) + 20 + (12 if ts else 0)


def max_segs(mss, ipv6=False, ts=False):
    """The most segments a merged datagram of at most 65535 bytes holds."""
    return (IP_MAX - l3l4(ipv6, ts)) // mss


class Run:
    """One generator run through vfwd, wire to VM, and what came of it."""

    def __init__(self, label, vfwd_args, gen_args, count, mss=MSS, ipv6=False, vlan=0, ts=False,
                 faults=(0, 0, 0), drop_share=LOSS_SHARE, user=USER):
        self.label, self.count, self.mss, self.ipv6, self.ts = label, count, mss, ipv6, ts
        self.hdrs = 14 + (4 if vlan else 0) + l3l4(ipv6, ts)
        shape = ((["--ipv6"] if ipv6 else []) + (["--vlan", str(vlan)] if vlan else []) +
                 (["--tcp-ts"] if ts else []))
        with Env("gro-" + label) as env:
            self.rep, self.final = gen_through_vfwd(
                env, vfwd_args,
                ["--profile", "tcp", "--dir", "wire-to-vm", "--rate", "max", "--count",
                 str(count), "--mss", str(mss), "--timeout", "30"] + shape + list(gen_args),
                tso=True, timeout=45, user_args=user)
        self.x = self.rep["dirs"]["wire_to_vm"]
        self.v = dir_stats(self.final, "wire_to_vm")
        check(self.rep["ip"] == (6 if ipv6 else 4) and self.rep["vlan"] == vlan and
              self.rep["tcp_ts"] == ts and self.rep["mss"] == mss,
              "%s: shape %s" % (label, self.rep))
        vm = [p for p in self.final["ports"] if p["role"] == "vm"]
        check(len(vm) == 1 and vm[0]["guest_gso"] & (2 if ipv6 else 1),
              "%s: the generator's VM port took no TCPv%d GSO frames: %s"
              % (label, 6 if ipv6 else 4, vm))
        self.accounted(*faults, drop_share=drop_share)

    def accounted(self, dropped, reordered, duplicated, drop_share):
        """Everything sent is received, injected or counted as dropped."""
        x, v, label = self.x, self.v, self.label
        check(x["sent"] == self.count and x["unsent"] == 0 and x["gen_dropped"] == dropped,
              "%s: the generator sent %d of %d segments (%d never taken, %d dropped on purpose)"
              % (label, x["sent"], self.count, x["unsent"], x["gen_dropped"]))
        check(x["sent_frames"] == self.count - dropped + duplicated,
              "%s: %d frames sent for %d segments" % (label, x["sent_frames"], self.count))
        check(v["rx_pkts"] == x["sent_frames"],
              "%s: vfwd received %d of the %d frames sent"
              % (label, v["rx_pkts"], x["sent_frames"]))
        # packets in = packets out + drops, what GRO merged away counted
        check(v["out_expected"] == v["tx_pkts"] + v["drops"],
              "%s: vfwd accounting: out_expected %d, tx %d + drops %d"
              % (label, v["out_expected"], v["tx_pkts"], v["drops"]))
        check(v["rx_pkts"] - (v["gro_in"] - v["gro_out"]) == v["tx_pkts"] + v["drops"],
              "%s: rx %d - (gro_in %d - gro_out %d) != tx %d + drops %d"
              % (label, v["rx_pkts"], v["gro_in"], v["gro_out"], v["tx_pkts"], v["drops"]))
        causes = {k: n for k, n in v.items() if k.startswith("drop_") and n}
        # the one drop allowed: the generator's VM ring full (it sends and
        # checks on one CPU, unpaced, beside vfwd and whatever else runs);
        # GRO itself drops nothing. What these tests are about (merging,
        # accounting) is judged on the rest; drop_share 0: a run that fits
        # the ring whole and must lose nothing
        check(v["drops"] == v["drop_tx_full"] and
              v["drops"] <= drop_share * (v["tx_pkts"] + v["drops"]),
              "%s: vfwd dropped %d of %d: %s" % (label, v["drops"], v["tx_pkts"] + v["drops"],
                                                 causes))
        check(x["frames"] == v["tx_pkts"] and x["bytes"] == v["tx_bytes"],
              "%s: vfwd sent %d frames (%d B), the generator got %d (%d B)"
              % (label, v["tx_pkts"], v["tx_bytes"], x["frames"], x["bytes"]))
        # one set of headers per frame: the rest is whole segments' payload
        check(x["bytes"] == x["frames"] * self.hdrs + x["payload"] and
              x["payload"] == (x["received"] + x["duplicates"]) * self.mss,
              "%s: %d B in %d frames, payload %d for %d segments"
              % (label, x["bytes"], x["frames"], x["payload"], x["received"]))
        # every byte checked by the generator: only what was injected
        check(x["corrupted"] == 0 and x["corrupt_units"] == 0 and x["other"] == 0 and
              x["foreign"] == 0 and x["too_late"] == 0,
              "%s: spoiled frames: %s" % (label, x))
        check(x["reordered"] == reordered and x["duplicates"] == duplicated,
              "%s: %d reordered, %d duplicated (injected %d, %d): %s"
              % (label, x["reordered"], x["duplicates"], reordered, duplicated, x))
        check(x["received"] + x["lost"] == x["sent"],
              "%s: received %d + lost %d != sent %d" % (label, x["received"], x["lost"], x["sent"]))
        # lost: the segment dropped on purpose and those in frames vfwd dropped
        gone = x["lost"] - dropped
        check(gone == 0 if v["drops"] == 0 else
              v["drops"] <= gone <= v["drops"] * max_segs(self.mss, self.ipv6, self.ts),
              "%s: %d segments lost, %d dropped on purpose, vfwd dropped %d frames"
              % (label, x["lost"], dropped, v["drops"]))
        check(self.final["mempool"]["in_use"] == self.final["mempool"]["in_use_at_start"],
              "%s: mbufs leaked: %s" % (label, self.final["mempool"]))

    def seg_max(self):
        """Segments in the largest frame the generator received."""
        body = self.x["max_frame"] - self.hdrs
        check(body > 0 and body % self.mss == 0, "%s: largest frame %d B is not whole segments"
              % (self.label, self.x["max_frame"]))
        return body // self.mss

    def factor(self):
        """Segments per frame into the VM, as vfwd's GRO counted them."""
        return self.v["gro_in"] / self.v["gro_out"]

    def short_polls(self):
        """vfwd's polls of the wire that returned packets, fewer than a burst."""
        return sum(n for k, n in self.v["rx_burst_hist"].items() if int(k) < BURST)

    def show(self):
        v, x = self.v, self.x
        print("     %-18s %6.3f segments/frame (%d in, %d out, %d merged), largest %2d, "
              "%d flushes, %d short polls, %d bypassed, %d drops, %.2f Mpps"
              % (self.label, self.factor() if v["gro_out"] else 0, v["gro_in"], v["gro_out"],
                 v["gro_merged"], self.seg_max(), v["gro_flushes"], self.short_polls(),
                 v["gro_bypassed"], v["drops"], x["tx_pps"] / 1e6), flush=True)


def psh_every(k, r):
    """vfwd's engine, PSH on every kth segment of one flow: PSH ends the
    frame it joined; a frame ends early only where a flush (the flow's
    segments waited gro-flush-us, or, complete policy, a poll ran the queue
    empty) cut a run, each flush cutting one frame."""
    v, x = r.v, r.x
    check(v["gro_bypassed"] == 0 and v["gro_in"] == v["rx_pkts"],
          "%s: %d segments passed GRO by, %d went in of %d" % (r.label, v["gro_bypassed"],
                                                                 v["gro_in"], v["rx_pkts"]))
    check(r.seg_max() == k,
          "%s: largest frame %d segments, PSH every %d" % (r.label, r.seg_max(), k))
    check(v["gro_in"] <= k * v["gro_out"] <= v["gro_in"] + k * v["gro_flushes"],
          "%s: %d segments in %d frames, %d flushes: something but a flush cut runs of %d"
          % (r.label, v["gro_in"], v["gro_out"], v["gro_flushes"], k))
    if v["gro_flushes"] == 0:
        # nothing cut a run: exactly k a frame, each frame a GSO frame
        check(v["gro_in"] == k * v["gro_out"] and v["gro_merged"] == v["gro_out"] and
              x["received"] == k * x["frames"] and x["lost"] == k * v["drops"],
              "%s: not %d segments in each frame: %d in %d (%d merged), the generator %d in %d"
              % (r.label, k, v["gro_in"], v["gro_out"], v["gro_merged"], x["received"],
                 x["frames"]))


def test_psh_every_4_by_engine_and_policy():
    """PSH every 4th segment: vfwd's engine (both policies) puts exactly 4
    in each frame; librte_gro never merges the PSH segment (a run of 3, then
    the PSH segment alone: at most 3 a frame, 2 on average)."""
    factors = {}
    for engine, policy in (("vfwd", "complete"), ("vfwd", "timeout"), ("dpdk", "complete")):
        args = HEAVY + ["--gro-engine", engine] + (TIMEOUT if policy == "timeout" else
                                                   ["--gro-flush-policy", "complete"])
        r = Run("psh4-%s-%s" % (engine, policy), args, ["--psh-every", "4"], 20000)
        r.show()
        v, x = r.v, r.x
        factors[engine, policy] = x["received"] / x["frames"]
        if engine == "vfwd":
            psh_every(4, r)
            if policy == "timeout" or r.short_polls() == 0:
                # complete policy: every poll that found segments took a
                # whole burst of 32, 8 runs whole, and an empty poll finds
                # nothing held: nothing to flush
                check(v["gro_flushes"] == 0,
                      "%s: %d flushes cut runs (%d short polls)" % (r.label, v["gro_flushes"],
                                                                  r.short_polls()))
            continue
        # librte_gro: the PSH segments (1 in 4) never reach it
        check(v["gro_in"] == v["rx_pkts"] * 3 // 4 and v["gro_merged"] > 0,
              "%s: %d of %d segments went into librte_gro, %d merged frames"
              % (r.label, v["gro_in"], v["rx_pkts"], v["gro_merged"]))
        check(r.seg_max() == 3 and r.factor() <= 3.0,
              "%s: largest frame %d segments, %.3f a frame into GRO: PSH merged?"
              % (r.label, r.seg_max(), r.factor()))
        check(2 * x["frames"] >= x["received"],
              "%s: %d segments in %d frames: fewer than 2 frames per PSH run"
              % (r.label, x["received"], x["frames"]))
    check(factors["dpdk", "complete"] <
          min(factors["vfwd", "complete"], factors["vfwd", "timeout"]),
          "librte_gro merged as much as vfwd's engine: %s" % factors)


def test_psh_every_16_frames_of_16():
    """PSH every 16th: frames of at most 16 segments, exactly 16 where no
    flush cut a run (heavy, timeout policy, 1 ms: none should)."""
    r = Run("psh16", HEAVY + TIMEOUT, ["--psh-every", "16"], 32000)
    r.show()
    psh_every(16, r)
    check(r.factor() >= 15, "%s: %.3f segments a frame" % (r.label, r.factor()))
    check(r.v["gro_flushes"] == 0, "%s: %d flushes cut runs of 16" % (r.label, r.v["gro_flushes"]))


def largest_datagrams(r, ipv6=False, ts=False):
    """No PSH, one flow: frames end at the 64 KB bound, so all but a few
    (the last, or where a flush cut one) hold max_segs segments."""
    n = max_segs(r.mss, ipv6, ts)
    v = r.v
    check(v["gro_bypassed"] == 0 and v["gro_in"] == v["rx_pkts"],
          "%s: %d bypassed, %d of %d into GRO" % (r.label, v["gro_bypassed"], v["gro_in"],
                                                  v["rx_pkts"]))
    check(r.seg_max() == n and r.x["max_frame"] - r.hdrs + l3l4(ipv6, ts) <= IP_MAX,
          "%s: largest frame %d B, %d segments (the 64 KB bound: %d)"
          % (r.label, r.x["max_frame"], r.seg_max(), n))
    check(v["gro_out"] <= -(-v["gro_in"] // n) + v["gro_flushes"],
          "%s: %d frames for %d segments, %d flushes: frames cut below %d segments"
          % (r.label, v["gro_out"], v["gro_in"], v["gro_flushes"], n))


def test_tcp_timestamps_merged_options_kept():
    """Equal timestamp options merge (32-byte TCP headers); the generator
    checks the option in every frame that arrives."""
    r = Run("tcp-ts", HEAVY + TIMEOUT, [], 30000, ts=True)
    r.show()
    check(r.factor() > 8, "%s: %.3f segments a frame" % (r.label, r.factor()))
    largest_datagrams(r, ts=True)


def test_ipv6_and_vlan_merged_like_ipv4():
    """TCP/IPv6, plain and on VLAN 100, merge as TCP/IPv4 does (the same
    MSS, 1428 so that a tagged IPv6 segment fits 1514 bytes)."""
    runs = {}
    for label, ipv6, vlan in (("v4", False, 0), ("v6", True, 0), ("v6-vlan", True, 100)):
        r = runs[label] = Run(label, HEAVY + TIMEOUT, [], 30000, mss=1428, ipv6=ipv6, vlan=vlan)
        r.show()
        largest_datagrams(r, ipv6=ipv6)
    f4 = runs["v4"].factor()
    for label in ("v6", "v6-vlan"):
        f = runs[label].factor()
        check(f > 8 and abs(f - f4) <= 0.1 * f4,
              "%s: %.3f segments a frame, IPv4 %.3f" % (label, f, f4))


def test_8_interleaved_flows_merge_as_one():
    """8 flows in turn (4 segments of each in a burst): held across polls,
    each flow's frames as large as one flow's."""
    one = Run("flows1", HEAVY + TIMEOUT, [], 30000)
    one.show()
    eight = Run("flows8", HEAVY + TIMEOUT, ["--flows", "8"], 30000)
    eight.show()
    full = max_segs(MSS)
    for r in (one, eight):
        v, flows = r.v, 8 if r is eight else 1
        check(v["gro_bypassed"] == 0 and r.seg_max() == full,
              "%s: %d bypassed, largest %d segments" % (r.label, v["gro_bypassed"], r.seg_max()))
        # every frame full but those a flush cut (a flow's segments waited
        # --gro-flush-us: a vfwd not scheduled for a while flushes every
        # flow it holds, up to one frame each) and each flow's last: how
        # many flushes there were depends on the machine, not the rule
        check(v["gro_out"] <= -(-v["gro_in"] // full) + flows * (v["gro_flushes"] + 1),
              "%s: %d frames for %d segments (%d a frame at most) with %d flushes: frames cut "
              "short without a flush" % (r.label, v["gro_out"], v["gro_in"], full,
                                         v["gro_flushes"]))
    # held across polls: a burst carries 4 segments of each of the 8 flows,
    # so a frame of more is one held over polls
    check(eight.factor() > 8, "8 flows: %.3f segments a frame (1 flow %.3f): not held across polls"
          % (eight.factor(), one.factor()))


def test_injected_reorder_loss_dup_through_gro():
    """One segment never sent (a gap), one sent after its successors, one
    sent twice, within merged runs: the generator reports each once, and
    GRO adds no reordering, duplicate or corruption of its own."""
    for policy in (TIMEOUT, ["--gro-flush-policy", "complete"]):
        # what is counted here are the faults, so nothing else may go:
        # 1000 segments (at most ~710 slots merged, 1000 not) fit the VM's
        # ring whole, however late the generator reads it
        r = Run("inject-" + policy[1], HEAVY + policy,
                ["--inject", "drop=250,reorder=500,dup=750"], 1000, faults=(1, 1, 1),
                drop_share=0)
        r.show()
        check(not r.rep["ok"], "%s: a faulty run reported ok" % r.label)
        check(r.factor() > 8, "%s: %.3f segments a frame: faults not within merged runs"
              % (r.label, r.factor()))


# segments of the corrupted-segment runs: fewer than the VM's ring
# slots, unmerged (GRO off) or merged (64 KB frames of 33 slots: ~710), so
# that none can be dropped for a full ring, however late the generator reads
CORRUPT_RUN = 1000


def test_corrupted_segment_reaches_the_vm_unmerged():
    """A segment corrupted on the wire (its TCP checksum wrong, the memif
    port checks none) inside a run that merges: vfwd's engine verifies the
    checksum before merging, so the segment reaches the VM alone and as it
    was sent, for the guest's TCP to drop, exactly as with GRO off; merged
    into a GSO frame (NEEDS_CSUM) the guest would have trusted it.
    librte_gro (testpmd's engine) checks nothing: there the corruption
    rides inside a merged frame, its checksum rewritten."""
    seen = {}
    for name, args in (("off", []), ("vfwd", HEAVY + TIMEOUT),
                       ("dpdk", HEAVY + TIMEOUT + ["--gro-engine", "dpdk"])):
        with Env("gro-corrupt-" + name) as env:
            rep, final = gen_through_vfwd(
                env, args, ["--profile", "tcp", "--dir", "wire-to-vm", "--rate", "max",
                            "--count", str(CORRUPT_RUN), "--timeout", "30", "--inject",
                            "corrupt=%d" % (CORRUPT_RUN // 2)],
                tso=True, timeout=45, user_args=USER)
        x, v = rep["dirs"]["wire_to_vm"], dir_stats(final, "wire_to_vm")
        seen[name] = x
        print("     %-4s bad_csum %d, bad_payload %d, corrupt_units %d, %d frames for %d segments"
              % (name, x["bad_csum"], x["bad_payload"], x["corrupt_units"], x["frames"],
                 x["sent"]), flush=True)
        # the whole run fits the VM's ring (CORRUPT_RUN): no run may drop,
        # whenever the generator gets to read
        check(v["out_expected"] == v["tx_pkts"] + v["drops"] and v["drops"] == 0,
              "%s: accounting %s" % (name, v))
        check(final["mempool"]["in_use"] == final["mempool"]["in_use_at_start"],
              "%s: mbufs leaked" % name)
    off, ours = seen["off"], seen["vfwd"]
    check(off["bad_csum"] == 1 and off["corrupt_units"] == 1, "GRO off: %s" % off)
    check(ours["bad_csum"] == 1 and ours["bad_payload"] == 0 and ours["corrupt_units"] == 1,
          "vfwd's engine let a corrupted segment into a merged frame: %s" % ours)
    check(ours["frames"] * 8 < ours["sent"], "vfwd's engine merged little: %s" % ours)
    check(seen["dpdk"]["bad_csum"] == 0 and seen["dpdk"]["corrupt_units"] > 1,
          "librte_gro: %s" % seen["dpdk"])


def test_1024_flows_in_a_1024_flow_table():
    """1024 flows in turn, a table of 1024: a flow's next segment comes 1024
    segments later. Nothing merges, so the many-flows bypass takes over in
    turns; every segment arrives, in order, accounted, no mbuf kept.

    Then held across polls for 1 ms (timeout policy): the table and the
    hold fill (1024 flows of one segment, the oldest sent for each new
    one) and each time the bypass starts it sends all 1024 at once with
    the burst, more than the VM's ring may have free: what does
    not fit is dropped (tx_full). Those drops must be all that is missing:
    frames of one segment, so exactly as many segments lost as vfwd
    counted."""
    free = Run("flows1024", HEAVY + ["--gro-flows", "1024"], ["--flows", "1024"], 60000)
    free.show()
    held = Run("flows1024-held", HEAVY + TIMEOUT + ["--gro-flows", "1024"], ["--flows", "1024"],
               60000)
    held.show()
    for r in (free, held):
        v = r.v
        check(v["gro_in"] + v["gro_bypassed"] == v["rx_pkts"],
              "%s: %d into GRO + %d bypassed != %d" % (r.label, v["gro_in"], v["gro_bypassed"],
                                                      v["rx_pkts"]))
        check(v["gro_merged"] == 0 and r.seg_max() == 1 and r.x["lost"] == v["drops"],
              "%s: %d merged, largest %d segments, %d lost for %d dropped"
              % (r.label, v["gro_merged"], r.seg_max(), r.x["lost"], v["drops"]))
    # unpaced: on a loaded machine the generator's VM ring may overflow
    # (counted tx_full, bounded by Run: accounted); what arrived is whole,
    # once and in order
    bad = {k: free.x[k] for k in ("reordered", "duplicates", "corrupted", "bad_header",
                                  "bad_csum", "bad_payload", "wrong_dir", "foreign")
           if free.x[k]}
    check(not bad and free.x["lost"] == free.v["drops"], "%s: %s, %d lost for %d dropped: %s"
          % (free.label, bad, free.x["lost"], free.v["drops"], free.x))
