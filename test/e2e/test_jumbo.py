# SPDX-License-Identifier: BSD-3-Clause
"""Jumbo frames (--mtu) through vfwd between a virtio-user peer (which
takes up to 9698 without VIRTIO_NET_F_MTU) and a memif wire, every byte checked by the
receiving peer: 9000-byte UDP both ways, tagged IPv6 too; TSO frames of a
9000-MTU guest cut into 9000-byte segments; 9000-byte segments merged
toward the guest; what is longer than a port's MTU is a drop counted
oversize, never a truncated frame.

    peer(virtio_user0) <-> vfwd --mtu 9000 <-> peer(net_memif0)
"""

import os
import re
import subprocess

from vfwdtest import LOSS_SHARE, Env, check, dir_stats, link_name, peer_through_vfwd, telemetry

MTU = 9000
FRAME = MTU + 14
# header sizes: Ethernet + 802.1Q tag, IPv6, TCP
TAG, IP6, TCP = 18, 40, 20


def through(direction, peer_args, vfwd_args, count):
    """count frames one way; the accounts of every frame. Returns (the
    receiving peer's report, vfwd's direction stats, vfwd's final report)."""
    with Env("jumbo-" + direction) as env:
        got, vf = peer_through_vfwd(env, direction, ["--count", str(count)] + peer_args,
                                    vfwd_args, vhost_args=",tso=1",
                                    user_args=",queue_size=4096")
        final = vf.last_json()
        d = dir_stats(final, direction)
        check(got["tx"] == count, "peer sent %d of %d" % (got["tx"], count))
        check(d["rx_pkts"] == count, "vfwd got %d of %d" % (d["rx_pkts"], count))
        check(d["out_expected"] == d["tx_pkts"] + d["drops"], "accounting: %s" % d)
        check(got["rx"] == d["tx_pkts"] and got["rx_bytes"] == d["tx_bytes"],
              "peer got %d frames (%d bytes), vfwd sent %d (%d)"
              % (got["rx"], got["rx_bytes"], d["tx_pkts"], d["tx_bytes"]))
        check(got["rx_bad"] == 0 and got["rx_dup"] == 0 and got["rx_other"] == 0,
              "bad, duplicate or foreign: %s" % got)
        check(final["mempool"]["in_use"] == final["mempool"]["in_use_at_start"],
              "mbufs leaked: %s" % final["mempool"])
        causes = {k: v for k, v in d.items() if k.startswith("drop_") and v}
        print("     %d sent, %d arrived (largest %d B), drops %s" % (got["tx"], got["rx"],
              got["rx_max_len"], causes))
        return got, d, final


def udp_both_ways(shape, size):
    for direction in ("vm_to_wire", "wire_to_vm"):
        # paced into a 4096-slot ring: the path is under test, not the rate
        got, d, _ = through(direction, ["--size", str(size), "--rate", "20000"] + shape,
                            ["--mtu", str(MTU)], 20000)
        check(d["drops"] == d["drop_tx_full"] + d["drop_peer_down"] and
              d["drops"] <= LOSS_SHARE * 20000, "%s: drops %s" % (direction, d))
        check(got["rx"] > 0 and got["rx_max_len"] == size, "%s: %s" % (direction, got))
        check(got["rx_reorder"] == 0, "%s reordered: %s" % (direction, got))


def test_udp_9000_both_ways():
    udp_both_ways([], FRAME)


def test_udp_ipv6_vlan_9000_both_ways():
    # the tag is not in the MTU: 9000 bytes of L3 behind 18 of Ethernet
    udp_both_ways(["--ipv6", "--vlan", "300"], MTU + TAG)


def test_frames_over_the_mtu_are_dropped_counted():
    """Without --mtu every port has 1500: a 9000-MTU guest's frames and
    the wire's are dropped oversize; with --mtu 9000, 9100-byte frames
    are. Nothing of them arrives, nothing is lost uncounted."""
    for vfwd_args, size in (([], FRAME), (["--mtu", str(MTU)], MTU + 100 + 14)):
        for direction in ("vm_to_wire", "wire_to_vm"):
            got, d, _ = through(direction, ["--size", str(size), "--rate", "20000"],
                                vfwd_args, 2000)
            check(d["drop_oversize"] == 2000 and d["drops"] == 2000 and d["tx_pkts"] == 0,
                  "%s %s: %s" % (direction, vfwd_args, d))
            check(got["rx"] == 0, "%s: %d arrived" % (direction, got["rx"]))


def test_tso_from_a_9000_guest_is_cut_into_9000_byte_segments():
    mss = MTU - 20 - TCP
    got, d, _ = through("vm_to_wire", ["--tcp", "--tso", "4", "--flows", "4", "--mss", str(mss),
                                       "--verify-csum", "--rate", "2000"],
                        ["--mtu", str(MTU)], 2000)
    check(d["gso_frames"] == 2000 and d["gso_segs"] == 8000 and d["drops"] == 0,
          "segmentation: %s" % d)
    check(got["rx_max_len"] == FRAME and got["rx_payload"] == got["rx"] * mss,
          "segment sizes: %s" % got)
    check(got["rx_bad_csum"] == 0 and got["rx_gaps"] == 0, "checksums, gaps: %s" % got)


def test_gro_merges_9000_byte_segments_toward_the_guest():
    mss = MTU - 20 - TCP
    got, d, _ = through("wire_to_vm", ["--tcp", "--lro", "--flows", "2", "--mss", str(mss),
                                       "--rate", "20000"],
                        ["--mtu", str(MTU), "--gro", "--gro-mode", "heavy",
                         "--gro-flush-us", "1000"], 8000)
    check(d["drops"] == d["drop_tx_full"] + d["drop_peer_down"] and
          d["drops"] <= LOSS_SHARE * (d["tx_pkts"] + d["drops"]), "drops: %s" % d)
    check(d["gro_merged"] > 0 and got["rx_max_len"] > FRAME and got["rx_max_len"] <= 65535 + 14,
          "no 64 KB GSO frames of jumbo segments: %s / %s" % (got, d))
    check(got["rx_multi_seg"] > 0, "GSO frames not chained: %s" % got)


def test_mtu_in_port_info_and_telemetry():
    """--mtu 9000: show port info (text and JSON) and telemetry's
    /vfwd/ports give 9000 for the vhost port and the wire port."""
    with Env("jumbo-info") as env:
        vf = env.vfwd_pty(["net_vhost0,iface=" + env.path("vh.sock"), "net_null0,size=64"],
                          ["--mtu", str(MTU)])
        vf.expect(r"vfwd> ", 30)
        text = vf.command("show port info all")
        check(len(re.findall(r"MTU %d," % MTU, text)) == 2, text[-1500:])
        info = vf.command_json("show port info all json")
        check([p["mtu"] for p in info["ports"]] == [MTU, MTU], info)
        ports = telemetry(env, env.prefixes[-1], ["/vfwd/ports"])["/vfwd/ports"]
        check(ports["0"]["mtu"] == MTU and ports["1"]["mtu"] == MTU, ports)
        vf.send("quit")
        check(vf.wait(30) == 0, vf.screen()[-800:])


def test_tap_takes_the_mtu_or_says_why_not():
    """net_tap: DPDK 22.11's takes no MTU over 1504 (its max_rx_pktlen is
    1522; 23.03 lifted it): vfwd refuses --mtu 9000 at start with the limit
    named, nothing left behind. Later releases set the tap's kernel MTU."""
    dpdk = subprocess.run(["pkg-config", "--modversion", "libdpdk"], capture_output=True,
                          text=True, timeout=10).stdout.strip()
    with Env("jumbo-tap") as env:
        tap = link_name("j")
        vf = env.vfwd(["net_vhost0,iface=" + env.path("vh.sock"), "net_tap0,iface=" + tap],
                      ["--mtu", str(MTU)])
        if tuple(int(x) for x in dpdk.split(".")[:2]) < (23, 3):
            check(vf.wait(30) == 1, "exit with --mtu %d on %s's net_tap" % (MTU, dpdk))
            check(re.search(r"--mtu %d: it takes at most 1504" % MTU, vf.err()), vf.err()[-800:])
            check(not os.path.exists("/sys/class/net/" + tap), "%s left behind" % tap)
            return
        vf.wait_output("forwarding", 30)
        with open("/sys/class/net/%s/mtu" % tap) as f:
            check(int(f.read()) == MTU, "the tap's kernel MTU is not %d" % MTU)
        check(vf.stop(20) == 0, vf.err()[-800:])
