# SPDX-License-Identifier: BSD-3-Clause
"""Offloads through real PMDs, with a virtio-user peer standing in for the
guest (the QEMU guest test is separate):

- GRO toward the VM: TCP segments from the memif wire are merged by vfwd
  and reach a virtio-user port that negotiated GUEST_TSO4 + GUEST_CSUM
  (LRO enabled) as GSO frames; every payload byte checked in order.
- TSO toward the wire: the virtio-user peer sends TSO frames (the guest's
  HOST_TSO4 path, net_vhost tso=1); vfwd cuts them into MTU-sized segments
  with correct checksums for the memif wire, which has no TSO offload.

- Shaped frames (the peer's --vlan, --ipv6, --tcp-ts, dpdk-vfwd-gen's
  shapes): tagged TCP/IPv6 TSO frames with timestamps cut for memif, TCP
  with timestamps merged toward the VM (the option kept), tagged TCP/IPv6
  merged by vfwd's GRO engine and passed unmerged by librte_gro's, tagged
  UDP/IPv6 both ways; every byte checked
  by a peer expecting the same shape, and one expecting another tag sees
  every frame as bad.

    peer(virtio_user0) <-> vfwd(net_vhost0,tso=1 | net_memif0) <-> peer(net_memif0)
"""

import subprocess

from vfwdtest import LOSS_SHARE, PEER, Env, check, dir_stats, peer_through_vfwd


def run(direction, peer_args, vfwd_args, count, lcores="0@0,1@1", max_drop_share=LOSS_SHARE,
        queues=1, want_final=False):
    with Env("offload-" + direction) as env:
        got, vf = peer_through_vfwd(
            env, direction, ["--count", str(count), "--tcp", "--queues", str(queues)] + peer_args,
            vfwd_args, vhost_args=",tso=1,queues=%d" % queues,
            user_args=",queue_size=1024,queues=%d" % queues, lcores=lcores)
        final = vf.last_json()
        d = dir_stats(final, direction)
        check(got["tx"] == count, "peer sent %d of %d" % (got["tx"], count))
        check(d["rx_pkts"] == count, "vfwd got %d of %d" % (d["rx_pkts"], count))
        # packets in = packets out + drops, counting what GRO merged away
        # and what segmentation added
        check(d["out_expected"] == d["tx_pkts"] + d["drops"],
              "accounting: %s" % {k: d[k] for k in ("rx_pkts", "tx_pkts", "drops", "gro_in",
                                                    "gro_out", "gso_sw_frames", "gso_segs",
                                                    "out_expected")})
        check(got["rx"] == d["tx_pkts"], "peer got %d frames, vfwd sent %d" % (got["rx"], d["tx_pkts"]))
        check(got["rx_bytes"] == d["tx_bytes"], "bytes: peer %d, vfwd %d" % (got["rx_bytes"], d["tx_bytes"]))
        check(got["rx_bad"] == 0 and got["rx_dups"] == 0, "corrupt or duplicate: %s" % got)
        # what may be lost: tx_full when the peer's ring is full (the peer
        # sends unpaced and drains on one CPU, beside vfwd and whatever
        # else runs), peer_down for the first frames when the wire side
        # sends before vfwd's vhost thread saw the peer's queue enabled
        # (35 of them in a loaded run); what these tests are about
        # (segmenting, merging, the shape of frames) is judged on what
        # arrived
        causes = {k: v for k, v in d.items() if k.startswith("drop_") and v}
        check(d["drops"] <= max_drop_share * (d["tx_pkts"] + d["drops"]) and
              d["drops"] == d["drop_tx_full"] + d["drop_ring"] + d["drop_peer_down"],
              "%d of %d dropped: %s" % (d["drops"], d["tx_pkts"] + d["drops"], causes))
        print("     %d frames in, %d out, %d dropped %s" % (d["rx_pkts"], d["tx_pkts"], d["drops"],
              {k: v for k, v in d.items() if k.startswith("drop_") and v}))
        if d["drops"] == 0:
            check(got["rx_payload"] == got["tx_payload"] and got["rx_gaps"] == 0,
                  "streams incomplete without drops: %s" % got)
        check(final["mempool"]["in_use"] == final["mempool"]["in_use_at_start"],
              "mbufs leaked: %s" % final["mempool"])
        return (got, d, final) if want_final else (got, d)


def test_gro_toward_vm_light():
    got, d = run("wire_to_vm", ["--lro", "--flows", "1"], ["--gro"], 60000)
    check(d["gro_in"] == 60000, "GRO saw %d segments" % d["gro_in"])
    check(d["gro_merge"] > 4, "merge factor %.2f" % d["gro_merge"])
    check(got["rx_multi_seg"] > 0 and got["rx_max_len"] > 1514,
          "the guest got no GSO frames: %s" % got)


def test_gro_toward_vm_heavy_4_flows():
    got, d = run("wire_to_vm", ["--lro", "--flows", "4"],
                 ["--gro", "--gro-mode", "heavy", "--gro-flush-us", "20"], 60000)
    check(d["gro_merge"] > 4, "merge factor %.2f" % d["gro_merge"])
    check(got["rx_max_len"] > 1514, "no GSO frames: %s" % got)


def test_no_gro_for_a_guest_without_gso():
    """A virtio-user port without LRO does not negotiate GUEST_TSO4: vfwd
    must not merge for it."""
    # paced: every segment reaches the guest unmerged, one ring slot each
    got, d = run("wire_to_vm", ["--flows", "1", "--rate", "25000"], ["--gro"], 20000)
    check(d["gro_in"] == 0, "merged for a guest that cannot take it: %s" % d)
    check(got["rx_max_len"] <= 1514, "oversized frame to the guest: %s" % got)


def test_tso_toward_wire():
    # paced (40k segments/s): what is judged is the cutting, not how fast
    # the peer drains the wire when it gets a CPU
    got, d = run("vm_to_wire", ["--tso", "8", "--flows", "4", "--verify-csum", "--rate", "5000"],
                 [], 4000)
    check(d["gso_frames"] == 4000 and d["gso_sw_frames"] == 4000, "segmentation: %s" % d)
    check(d["gso_segs"] == 4000 * 8, "segments: %d" % d["gso_segs"])
    check(got["rx_max_len"] <= 1514, "a segment over the MTU: %s" % got)
    check(got["rx_bad_csum"] == 0, "checksum errors on the wire: %s" % got)
    check(got["rx_payload"] == got["rx"] * 1448, "segment sizes: %s" % got)


def pipeline_keeps_flow_order(work):
    """The cpumap twin: an rx lcore hands bursts to work lcores that run
    heavy GRO; 8 interleaved TCP flows arrive whole and in order. With two
    work lcores the flow hash spreads the flows over them (each sends on
    its own tx queue of the guest's two); a flow split over both would
    show as segments after later ones of their flow."""
    lcores = "0@0,1@1" + "".join(",%d@%d" % (2 + i, i % 2) for i in range(work))
    got, d, final = run("wire_to_vm", ["--lro", "--flows", "8"],
                        ["--pipeline", "1:%d" % work, "--gro", "--gro-mode", "heavy",
                         "--txq", str(work)], 60000, lcores=lcores, max_drop_share=1.0,
                        queues=work, want_final=True)
    check(d["gro_merge"] > 2, "merge factor %.2f" % d["gro_merge"])
    # on 2 CPUs the work lcores share them with the peer: the rings may
    # overflow (up to half of it here). run() checked the drops are of
    # the counted causes only (ring, tx_full, peer_down while the guest's
    # second queue was not yet seen enabled), that no segment came after a
    # later one of its flow, and every byte
    check(got["rx_payload"] > 0, got)
    return got, d, final


def test_gro_in_pipeline_keeps_flow_order():
    pipeline_keeps_flow_order(1)


def test_gro_in_pipeline_2_work_lcores_keeps_flow_order():
    got, d, final = pipeline_keeps_flow_order(2)
    # both work lcores sent toward the guest: the flows were spread
    senders = [lc["lcore"] for lc in final["lcores"] if lc["dirs"]["wire_to_vm"]["tx_pkts"] > 0]
    check(len(senders) == 2, "work lcores that sent: %s" % senders)
    check(got["rx_gaps"] <= d["drops"], "gaps %d without as many drops %d" % (got["rx_gaps"],
                                                                            d["drops"]))


# header sizes of the shapes below: Ethernet + 802.1Q tag, IPv6, TCP with
# the timestamp option
TAG, IP6, TCP_TS = 18, 40, 32


def test_tso_toward_wire_ipv6_vlan_timestamps():
    """A guest's VLAN sub-interface over IPv6 with timestamps: tagged
    TCP/IPv6 TSO frames with a 32-byte TCP header, cut by vfwd for the
    memif wire into segments of the MSS that fill the MTU (the tag not
    counted); the wire peer checks the tag, the option, both checksums and
    every byte of every segment."""
    mss = 1500 - IP6 - TCP_TS
    got, d = run("vm_to_wire", ["--tso", "8", "--flows", "4", "--verify-csum", "--ipv6",
                                "--vlan", "100", "--tcp-ts", "--mss", str(mss), "--rate", "5000"],
                 [], 4000)
    check(d["gso_frames"] == 4000 and d["gso_sw_frames"] == 4000, "segmentation: %s" % d)
    check(d["gso_segs"] == 4000 * 8, "segments: %d" % d["gso_segs"])
    check(got["rx_max_len"] == mss + TAG + IP6 + TCP_TS, "largest segment %d" % got["rx_max_len"])
    check(got["rx_bad_csum"] == 0, "checksum errors on the wire: %s" % got)
    check(got["rx_payload"] == got["rx"] * mss, "segment sizes: %s" % got)


def test_gro_toward_vm_heavy_timestamps():
    """Untagged TCP/IPv4 with the timestamp option (equal per flow) merges
    through heavy GRO; the merged frames keep the option (the guest peer
    checks it on every frame) and every byte in stream order."""
    got, d = run("wire_to_vm", ["--lro", "--flows", "4", "--tcp-ts"],
                 ["--gro", "--gro-mode", "heavy", "--gro-flush-us", "20"], 60000)
    check(d["gro_merge"] > 4, "merge factor %.2f" % d["gro_merge"])
    check(got["rx_multi_seg"] > 0 and got["rx_max_len"] > 1514, "no GSO frames: %s" % got)


def test_gro_toward_vm_ipv6_vlan_passes_unmerged_by_librte_gro():
    """Tagged TCP/IPv6 toward a GSO guest with librte_gro's heavy GRO on:
    librte_gro (22.11) takes neither a tag nor IPv6, so every segment
    arrives as sent, checked byte for byte with its tag. Paced: unmerged,
    each segment takes a ring slot toward the guest (18% were dropped,
    counted, unpaced in a loaded run)."""
    mss = 1500 - IP6 - 20
    got, d = run("wire_to_vm", ["--lro", "--flows", "4", "--ipv6", "--vlan", "7",
                                "--mss", str(mss), "--rate", "25000"],
                 ["--gro", "--gro-mode", "heavy", "--gro-flush-us", "20", "--gro-engine", "dpdk"],
                 30000)
    check(d["gro_merged"] == 0 and d["gro_in"] == d["gro_out"], "merged: %s" % d)
    check(got["rx_multi_seg"] == 0 and got["rx_max_len"] == mss + TAG + IP6 + 20,
          "frames not as sent: %s" % got)
    check(got["rx_payload"] == got["rx"] * mss, "segment sizes: %s" % got)


def test_gro_toward_vm_ipv6_vlan_merged_by_vfwd_engine():
    """The same tagged TCP/IPv6 through vfwd's engine: merged into GSO
    frames (the tag and IPv6 header kept, the peer checks both on every
    frame), every byte in stream order."""
    mss = 1500 - IP6 - 20
    got, d = run("wire_to_vm", ["--lro", "--flows", "4", "--ipv6", "--vlan", "7",
                                "--mss", str(mss)],
                 ["--gro", "--gro-mode", "heavy", "--gro-flush-us", "20"], 30000)
    check(d["gro_merge"] > 4, "merge factor %.2f: %s" % (d["gro_merge"], d))
    check(got["rx_multi_seg"] > 0 and got["rx_max_len"] > mss + TAG + IP6 + 20,
          "no GSO frames: %s" % got)


def udp_shaped(direction, shape, size, count=50000):
    """UDP frames of a shape through vfwd one way; the receiving peer, of
    the same shape, checks every byte of every frame."""
    with Env("offload-udp-" + direction) as env:
        got, vf = peer_through_vfwd(env, direction,
                                    ["--count", str(count), "--size", str(size),
                                     "--rate", "25000"] + shape,
                                    vhost_args=",tso=1", user_args=",queue_size=4096")
        final = vf.last_json()
        d = dir_stats(final, direction)
        check(got["tx"] == count, "peer sent %d of %d" % (got["tx"], count))
        check(d["rx_pkts"] == count and d["rx_bytes"] == count * size,
              "vfwd got %d frames, %d bytes" % (d["rx_pkts"], d["rx_bytes"]))
        check(d["rx_pkts"] == d["tx_pkts"] + d["drops"] and
              d["drops"] == d["drop_tx_full"] + d["drop_peer_down"], "accounting: %s" % d)
        check(got["rx"] == d["tx_pkts"] and got["rx_bytes"] == d["tx_bytes"],
              "peer got %d frames (%d bytes), vfwd sent %d (%d)" %
              (got["rx"], got["rx_bytes"], d["tx_pkts"], d["tx_bytes"]))
        check(got["tx"] - got["rx"] == d["drops"], "peer sent %d, got %d; vfwd counted %d drops"
              % (got["tx"], got["rx"], d["drops"]))
        # as forward/*: paced, with a ring for 160 ms away (unpaced, a
        # loaded run lost 55% of them, all counted); what is judged is the
        # shape and bytes of what arrived
        check(d["drops"] <= LOSS_SHARE * count, "%d of %d dropped" % (d["drops"], count))
        check(got["rx_bad"] == 0 and got["rx_dup"] == 0 and got["rx_reorder"] == 0 and
              got["rx_other"] == 0, "bad, duplicate, reordered or foreign: %s" % got)
        print("     %d sent, %d arrived, %d dropped (%s)" % (got["tx"], got["rx"], d["drops"],
              {k: v for k, v in d.items() if k.startswith("drop_") and v}))
        check(final["mempool"]["in_use"] == final["mempool"]["in_use_at_start"],
              "mbufs leaked: %s" % final["mempool"])


# a 1518-byte tagged IPv6 frame: 1500 bytes of L3, the MTU (the tag is not in it)
UDP6_VLAN = ["--ipv6", "--vlan", "4094"]


def test_udp_ipv6_vlan_vm_to_wire():
    udp_shaped("vm_to_wire", UDP6_VLAN, 1518)


def test_udp_ipv6_vlan_wire_to_vm():
    udp_shaped("wire_to_vm", UDP6_VLAN, 1518)


def test_peer_expecting_another_tag_sees_bad_frames():
    """The receiving peer's tag check bites: frames tagged 100 reach a peer
    expecting 101 through vfwd, and every one is ours but bad (eth)."""
    with Env("offload-tag") as env:
        vh, mf = env.path("vh.sock"), env.path("memif.sock")
        vf = env.vfwd(["net_vhost0,iface=%s" % vh, "net_memif0,role=server,socket=%s" % mf],
                      ["--stats-format", "json"])
        vf.wait_output("forwarding", 30)
        wire = env.peer(["net_memif0,role=client,socket=" + mf],
                        ["--rx-port", "0", "--idle-ms", "3000", "--timeout", "30", "--linger",
                         "--ipv6", "--vlan", "101"], lcores="1@1", name="wire")
        wire.wait_output("ready", 30, stream="err")
        guest = env.peer(["net_virtio_user0,path=" + vh],
                         ["--tx-port", "0", "--count", "2000", "--size", "200", "--rate", "20000",
                          "--idle-ms", "100", "--timeout", "30", "--ipv6", "--vlan", "100"],
                         name="guest")
        check(guest.wait(40) == 0, "guest peer: %s" % guest.err()[-1500:])
        wire.wait_output('"tx"', 40)
        got = wire.last_json()
        rc = vf.stop(20)
        check(rc == 0, "vfwd exit %d: %s" % (rc, vf.err()[-1500:]))
        check(wire.stop(20) == 0, "wire peer: %s" % wire.err()[-1500:])
        d = dir_stats(vf.last_json(), "vm_to_wire")
        check(got["rx"] == d["tx_pkts"] > 0 and got["rx_bad"] == got["rx"] and
              got["rx_bad_why"]["eth"] == got["rx"] and got["rx_other"] == 0,
              "vfwd sent %d; the peer expecting tag 101: %s" % (d["tx_pkts"], got))


def test_peer_refuses_sizes_below_the_shape():
    """--size is the whole frame: below the shape's headers + 12 bytes the
    peer exits 2 naming the minimum; so for a bad --vlan or --tcp-ts
    without --tcp."""
    with Env("offload-args") as env:
        for args, msg in ((["--size", "77", "--ipv6", "--vlan", "9"], "--size 77 is below 78"),
                          (["--size", "73", "--ipv6"], "--size 73 is below 74"),
                          (["--size", "57", "--vlan", "1"], "--size 57 is below 58"),
                          (["--size", "53"], "--size 53 is below 54"),
                          (["--vlan", "4095"], "--vlan 4095"), (["--vlan", "0"], "--vlan 0"),
                          (["--tcp-ts"], "--tcp-ts is for --tcp")):
            p = subprocess.run([PEER] + env.eal("args", "0@0", ["-m", "64"]) +
                               ["--"] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               timeout=30, universal_newlines=True)
            check(p.returncode == 2 and msg in p.stderr,
                  "%s: exit %d, stderr %s" % (args, p.returncode, p.stderr[-500:]))
