# SPDX-License-Identifier: BSD-3-Clause
"""A real Linux guest (QEMU, TCG) on vfwd's vhost-user socket; the wire is
a net_tap in a network namespace. 32 MiB each way over TCP, compared by
sha256, once with GRO and once without:

    guest virtio_net <-> vhost-user <-> vfwd <-> net_tap <-> netns TCP host

guest -> host: the guest sends TSO frames (vhost tso=1), vfwd segments them
(net_tap's own TSO refuses full-size segments in 22.11), the namespace's
TCP must see no bad checksums. host -> guest: MTU-sized segments from the tap, merged by vfwd's
GRO into GSO frames the guest accepts (it negotiated GUEST_TSO4/CSUM).
IPv4 and IPv6, GRO on and off.

The VLAN cases need 802.1Q on both ends, and this machine's kernel may have
none: the guest is both ends (two NICs on two vfwd pairs, one in a second
namespace of the guest, guest.VLAN_INIT), its taps joined by a bridge here.

Multi-queue (multi_queue): a 2-queue virtio-net (vhost-user queues=2,
mq=on, vfwd --rxq 2) with 2 channels set in the guest, 8 TCP flows each
way, each queue's frames counted alike by the guest, vfwd and the tap.
"""

import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from vfwdtest import Env, Proc, RUN_PID, TestFailure, check, link_name, telemetry  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import guest  # noqa: E402

MB = 32


def nstat(ns):
    r = subprocess.run(["ip", "netns", "exec", ns, "nstat", "-az", "--json"],
                       capture_output=True, text=True, timeout=20)
    import json
    data = json.loads(r.stdout)
    return data.get("kernel", data)


# net_af_packet's ring slots for a jumbo MTU: the frame and the PMD's
# header in one slot, one slot a block
AF_PACKET_JUMBO = ",framesz=16384,blocksz=16384,framecnt=512"


# virtio feature bits of the ring shapes (what the guest negotiated, as
# vfwd reports it): a property QEMU was given must show in them
RING_BITS = {"packed": 34, "mrg_rxbuf": 15, "event_idx": 29, "indirect_desc": 28}


def veth_wire(ns, tap, mtu=0):
    """A veth pair in ns: tap + "p" for vfwd's pcap/af_packet port, tap for
    the host's stack. Offloads off on both ends, so the frames vfwd reads
    are whole, checksummed and MTU-sized. mtu sets the host's end only:
    vfwd's end takes its MTU from --mtu (net_af_packet: the kernel's)."""
    ip = ["ip", "-n", ns]
    subprocess.run(ip + ["link", "add", tap + "p", "type", "veth", "peer", "name", tap],
                   check=True)
    subprocess.run(ip + ["link", "set", tap + "p", "up"], check=True)
    for dev in (tap, tap + "p"):
        subprocess.run(["ip", "netns", "exec", ns, "ethtool", "-K", dev, "tx", "off",
                        "tso", "off", "gso", "off", "gro", "off"],
                       check=True, capture_output=True)
    if mtu:
        subprocess.run(ip + ["link", "set", tap, "mtu", str(mtu)], check=True)


def transfer(gro, forwarder="vfwd", v6=False, wire="tap", extra=(), mtu=0, shape="",
             keep=None):
    """wire: "tap" (net_tap), "pcap" (net_pcap on one end of a veth pair,
    the host's TCP on the other: a PMD without MULTI_SEGS) or "afpacket"
    (net_af_packet on that veth); extra: more vfwd options. mtu: the
    guest's (host_mtu), vfwd's (--mtu) and the far end's MTU (0: 1500).
    shape: the guest's ring properties ("packed=on,mrg_rxbuf=off"; split
    rings with mergeable rx buffers, event index and indirect descriptors
    when not given). keep: a list that gets vfwd's JSON reports."""
    check(guest.have_guest_tools(), "qemu-system-x86_64, busybox, cpio or a kernel missing "
          "(usertools/setup.sh installs them)")
    tag = ("gro" if gro else "nogro") + ("6" if v6 else "") + \
        {"tap": "", "pcap": "pcap", "afpacket": "afp"}[wire] + ("x" if extra else "") + \
        ("j" if mtu else "") + "".join(kv[0] for kv in shape.split(",") if kv)
    host_ip = guest.HOST_IP6 if v6 else guest.HOST_IP
    with Env("guest-" + tag) as env:
        ns = "vfwdt-g%s-%d" % (tag, RUN_PID)
        tap = link_name("g")
        env.add_netns(ns)
        sock = env.path("vh.sock")
        initrd = guest.build_initramfs(env.dir, MB, v6=v6)
        vdevs = ["net_vhost0,iface=%s,tso=1" % sock, "net_tap0,iface=%s" % tap]
        ip = ["ip", "-n", ns]
        if wire in ("pcap", "afpacket"):
            # the host's end (tap) is a veth: no offloads, so what libpcap
            # hands vfwd is whole, checksummed MTU-sized frames
            veth_wire(ns, tap, mtu)
            vdevs[1] = ("net_pcap0,iface=%s" % (tap + "p") if wire == "pcap" else
                        "net_af_packet0,iface=%s%s" % (tap + "p", AF_PACKET_JUMBO if mtu else ""))
        if forwarder == "testpmd":
            vf = env.testpmd(vdevs, ["--forward-mode=io", "--nb-cores=1", "--stats-period", "1"],
                             lcores="0@0,1@1", name="fwd-testpmd", netns=ns)
            vf.wait_output("Port 1:", 30)
        else:
            args = ["--stats-format", "json", "--stats-period", "1"] + (["--gro"] if gro else []) \
                + (["--mtu", str(mtu)] if mtu else []) + list(extra)
            vf = env.vfwd(vdevs, args, netns=ns)
            vf.wait_output("forwarding", 30)
        guest.tap_up(ns, tap, v6)
        subprocess.run(ip + ["link", "set", "lo", "up"], check=True)
        before = nstat(ns)
        host = Proc(env, "host", ["ip", "netns", "exec", ns, "python3", "-c", guest.HOST_SIDE,
                                  str(MB << 20), host_ip, "300"])
        vm = Proc(env, "qemu", guest.qemu_argv(sock, initrd, mtu=mtu, device=shape))
        try:
            vm.wait_output("GUEST-DONE", 120 if forwarder == "testpmd" else 400)
        except TestFailure as e:
            if forwarder == "testpmd":
                return "testpmd io: no transfer within 120 s; guest console:\n%s\nhost: %s" % (
                    "\n".join(l for l in vm.out().splitlines() if "GUEST" in l), host.err()[-300:])
            raise TestFailure("%s\n--- host: %s %s" % (e, host.out(), host.err()[-500:]))
        vm.wait(60)
        host.wait(30)
        after = nstat(ns)
        if forwarder == "testpmd":
            return "testpmd io: transfer finished:\n%s\n%s" % (vm.out()[-600:], host.out())
        rc = vf.stop(20)
        check(rc == 0, "vfwd exit %d: %s" % (rc, vf.err()[-1500:]))

        console, hostout = vm.out(), host.out()
        check("GUEST-ERROR" not in console, "guest: " + console[-2000:])
        g_out = re.search(r"GUEST-OUT-SHA (\w+)", console)
        g_in = re.search(r"GUEST-IN-SHA (\w+) +(\d+)", console)
        h_in = re.search(r"HOST-IN-SHA (\w+) (\d+) ([\d.]+)", hostout)
        h_out = re.search(r"HOST-OUT-SHA (\w+) (\d+)", hostout)
        check(g_out and g_in and h_in and h_out, "missing sums:\n%s\n%s" % (console[-1500:], hostout))
        check(int(h_in.group(2)) == MB << 20, "host got %s bytes" % h_in.group(2))
        check(g_out.group(1) == h_in.group(1), "guest->host data differs")
        check(int(g_in.group(2)) == MB << 20, "guest got %s bytes" % g_in.group(2))
        check(g_in.group(1) == h_out.group(1), "host->guest data differs")

        reports = vf.json_lines()
        if keep is not None:
            keep.extend(reports)
        vm_port = [p for r in reports for p in r["ports"] if p["role"] == "vm"]
        check(any(p["guest_gso"] for p in vm_port), "guest never negotiated GUEST_TSO4+CSUM")
        # vfwd cannot carry UFO frames anywhere: not offered, so never negotiated
        check("HOST_UFO not offered" in vf.out() and not any(p["guest_ufo"] for p in vm_port),
              "the guest negotiated HOST_UFO")
        final = reports[-1]
        v2w, w2v = final["total"]["dirs"]["vm_to_wire"], final["total"]["dirs"]["wire_to_vm"]
        for name, d in (("vm_to_wire", v2w), ("wire_to_vm", w2v)):
            check(d["out_expected"] == d["tx_pkts"] + d["drops"], "%s accounting: %s" % (name, d))
        check(v2w["gso_frames"] > 0, "the guest sent no TSO frames")
        wire_port = [p for p in reports[-1]["ports"] if p["role"] == "wire"][0]
        check(wire_port["tx_multi_seg"] == (wire != "pcap"),
              "wire port %s: tx_multi_seg %s" % (wire_port["name"], wire_port["tx_multi_seg"]))
        check(v2w["drop_bad_gso"] == 0 and v2w["drop_bad_csum"] == 0, "bad guest frames: %s" % v2w)
        want = dict(kv.split("=") for kv in shape.split(",") if kv)
        features = [p["guest_features"] for p in vm_port if p["guest_features"]]
        check(features, "no guest features reported")
        for prop, bit in RING_BITS.items():
            on = want.get(prop, "off" if prop == "packed" else "on") == "on"
            check(bool(features[-1] >> bit & 1) == on, "guest features %#x: %s %s"
                  % (features[-1], prop, "on" if on else "off"))
        if "napi" in extra:
            # it slept, woken by the guest's kicks (and the tap's fd),
            # never in naps; tx went in held batches
            lc = final["lcores"][0]
            check(lc["sleeps"] > 0 and lc["wakeups_kick"] > 0 and lc["nap_queues"] == 0,
                  "napi: %s" % {k: lc[k] for k in ("sleeps", "nap_queues", "wakeups_intr",
                                                   "wakeups_kick")})
        if "--tx-batch" in extra:
            for name, d in (("vm_to_wire", v2w), ("wire_to_vm", w2v)):
                check(d["tx_flush_full"] + d["tx_flush_timer"] + d["tx_flush_empty"] > 0,
                      "%s: no held batch sent: %s" % (name, d))
        if mtu:
            # the guest told its MTU; every frame fit the ports' MTU, and
            # the frames were jumbo ones: at 1500 none holds 3000 bytes
            check(any(p["guest_mtu"] == mtu for p in vm_port) and
                  all(p["mtu"] == mtu for p in vm_port) and wire_port["mtu"] == mtu,
                  "MTUs: vm %s, wire %s" % (vm_port[-1], wire_port))
            for name, d in (("vm_to_wire", v2w), ("wire_to_vm", w2v)):
                check(d["drop_oversize"] == 0 and d["tx_bytes"] > 3000 * d["tx_pkts"] / 2,
                      "%s: %d oversize, %d B in %d frames" % (name, d["drop_oversize"],
                                                            d["tx_bytes"], d["tx_pkts"]))
        if not gro:
            check(w2v["gro_in"] == 0, "GRO ran while off")
        elif v6 and "dpdk" in extra:
            # librte_gro 22.11 has no TCP/IPv6: the segments pass unmerged
            check(w2v["gro_merged"] == 0, "TCP/IPv6 merged: %s" % w2v)
        else:
            check(w2v["gro_merge"] > 4, "GRO merge factor %.2f" % w2v["gro_merge"])
        for counter in ("TcpInCsumErrors", "IpInHdrErrors", "UdpInCsumErrors",
                        "Ip6InHdrErrors", "Ip6InTruncatedPkts"):
            check(after.get(counter, 0) - before.get(counter, 0) == 0,
                  "%s rose in the namespace" % counter)
        print("     %s guest->host %d MiB in %.1f s (%.0f Mbit/s), %d TSO frames cut into %d "
              "segments" % ("IPv6" if v6 else "IPv4", MB, float(h_in.group(3)),
                            MB * 8 * 1.048576 / float(h_in.group(3)), v2w["gso_frames"],
                            v2w["gso_segs"]))
        # both transfers' packets toward the guest (the upload's ACKs too);
        # GRO counts only the data segments it could merge
        print("     toward the guest: %d frames from %d packets; GRO: %d data segments -> %d "
              "(%.1f a frame)" % (w2v["tx_pkts"], w2v["rx_pkts"], w2v["gro_in"], w2v["gro_out"],
                                  w2v["gro_merge"] if w2v["gro_out"] else 0))
        return w2v, v2w


VLAN_MB = 8
UDP_COUNT = 3000
XFERS = ("v4-vlan-out", "v4-vlan-in", "v6-vlan-out", "v6-vlan-in")
UDPS = ("v4-vlan-out", "v4-vlan-in", "v6-out", "v6-in", "v4-out")


def guest_to_guest(gro, napi=False, vhost_path=None, latency=False):
    """The guest's two NICs on two vfwd pairs joined by a bridge of taps
    (guest.VLAN_INIT): its own TCP over VLAN sub-interfaces, IPv4 and IPv6,
    and paced UDP (tagged and not), from one of its namespaces to the other
    and back. Every frame crosses vfwd twice: vm->wire on one pair (tagged
    TSO frames cut by vfwd's segmenter, partial sums completed for the
    tap), wire->vm on the other. napi: the worker sleeps whenever it is
    idle, woken by the guest's kicks and by the taps' fds. vhost_path:
    --vhost-path's word (the run's otherwise). latency: --latency on, with
    tx batching (--tx-batch 32), so that every frame is stamped going into
    a hold and its wait counted coming out."""
    check(guest.have_guest_tools(), "qemu-system-x86_64, busybox, cpio or a kernel missing "
          "(usertools/setup.sh installs them)")
    tag = "vlan" + ("gro" if gro else "") + ("napi" if napi else "") + (vhost_path or "") \
        + ("lat" if latency else "")
    with Env("guest-" + tag) as env:
        ns = "vfwdt-g%s-%d" % (tag, RUN_PID)
        taps = [link_name("v") + c for c in "ab"]
        env.add_netns(ns)
        socks = [env.path("vh0.sock"), env.path("vh1.sock")]
        udpcheck = guest.build_udpcheck(env.dir)
        initrd = guest.build_initramfs(env.dir, VLAN_MB, init=guest.VLAN_INIT,
                                       modules=guest.VLAN_MODULES, binaries=[udpcheck],
                                       udp=UDP_COUNT)
        vdevs = ["net_vhost0,iface=%s,tso=1" % socks[0], "net_vhost1,iface=%s,tso=1" % socks[1],
                 "net_tap0,iface=%s" % taps[0], "net_tap1,iface=%s" % taps[1]]
        args = ["--pair", "0:2", "--pair", "1:3", "--stats-format", "json",
                "--stats-period", "1"] + (["--gro", "--gro-mode", "heavy"] if gro else []) \
            + (["--rx-mode", "napi"] if napi else []) \
            + (["--vhost-path", vhost_path] if vhost_path else []) \
            + (["--latency", "on", "--tx-batch", "32"] if latency else [])
        vf = env.vfwd(vdevs, args, netns=ns)
        vf.wait_output("forwarding", 30)
        ip = ["ip", "-n", ns]
        subprocess.run(ip + ["link", "add", "br0", "type", "bridge"], check=True)
        for t in taps:
            subprocess.run(ip + ["link", "set", t, "master", "br0", "up"], check=True)
        subprocess.run(ip + ["link", "set", "br0", "up"], check=True)
        vm = Proc(env, "qemu", guest.qemu_argv(socks[0], initrd, more_socks=socks[1:]))
        vm.wait_output("GUEST-DONE", 400)
        vm.wait(60)
        # read while vfwd (and so the taps) still exist: tx_dropped, the
        # queue toward vfwd was full; rx_dropped, the kernel had no room
        # for what vfwd wrote (its backlog)
        taps_seen = {t: tap_stats(ns, t) for t in taps}
        tap_drops = sum(st["tx_dropped"] + st["rx_dropped"] for st in taps_seen.values())
        rc = vf.stop(20)
        check(rc == 0, "vfwd exit %d: %s" % (rc, vf.err()[-1500:]))

        console = vm.out()
        check("GUEST-ERROR" not in console, "guest: " + console[-2000:])
        # a send refused (the receiver's port closed) loses datagrams that
        # no forwarder counter could account for
        check("udpcheck:" not in console, "udpcheck: %s" % re.findall(r"udpcheck:.*", console))
        src = re.search(r"GUEST-SRC-SHA (\w+)", console)
        check(src, "no source sum:\n" + console[-1500:])
        lines = []
        for name in XFERS:
            m = re.search(r"GUEST-XFER %s (\w+) +(\d+) +(\d+)" % name, console)
            check(m, "%s: no result:\n%s" % (name, console[-1500:]))
            check(int(m.group(2)) == VLAN_MB << 20 and m.group(1) == src.group(1),
                  "%s: %s bytes, sum %s, want %d and %s" % (name, m.group(2), m.group(1),
                                                            VLAN_MB << 20, src.group(1)))
            secs = max(int(m.group(3)), 1) / 100.0
            lines.append("%s %.0f Mbit/s" % (name, VLAN_MB * 8 * 1.048576 / secs))
        udp_lost = 0
        for name in UDPS:
            m = re.search(r"GUEST-UDP %s UDP-RESULT received (\d+) bad (\d+) dup (\d+) "
                          r"late (\d+) lost (\d+) end (\d)" % name, console)
            check(m, "udp %s: no result:\n%s" % (name, console[-1500:]))
            got, bad, dup, late, lost, end = (int(g) for g in m.groups())
            check(end == 1 and got + lost == UDP_COUNT and bad == dup == late == 0,
                  "udp %s: %s" % (name, m.group(0)))
            udp_lost += lost
        guest_drops = 0  # datagrams the guest's own sockets had no room for
        for m in re.finditer(r"GUEST-SNMP (.*)", console):
            # "Ip: names... Ip: values... Tcp: names... Tcp: values..."
            groups = re.findall(r"(\w+): ([^:]*?)(?= \w+:|\s*$)", m.group(1))
            for (proto, names), (_, values) in zip(groups[0::2], groups[1::2]):
                for k, v in zip(names.split(), values.split()):
                    if k in ("InCsumErrors", "InHdrErrors", "InAddrErrors"):
                        check(int(v) == 0, "guest %s %s = %s" % (proto, k, v))
                    if proto == "Udp" and k in ("RcvbufErrors", "SndbufErrors"):
                        guest_drops += int(v)
        for m in re.finditer(r"GUEST-SNMP6 (.*)", console):
            for k, v in re.findall(r"(\w+)\s+(\d+)", m.group(1)):
                if k in ("Udp6RcvbufErrors", "Udp6SndbufErrors"):
                    guest_drops += int(v)
                else:
                    check(int(v) == 0, "guest %s = %s" % (k, v))
        nic_drops = 0  # the guest's virtio-net's own rx and tx drops
        for m in re.finditer(r"GUEST-NETDEV (.*)", console):
            for dev, fields in re.findall(r"(eth[\w.]*):\s*((?:\d+\s+){15}\d+)", m.group(1)):
                f = [int(x) for x in fields.split()]
                nic_drops += f[3] + f[11]

        final = vf.last_json()
        v2w, w2v = final["total"]["dirs"]["vm_to_wire"], final["total"]["dirs"]["wire_to_vm"]
        for name, d in (("vm_to_wire", v2w), ("wire_to_vm", w2v)):
            # a guest under TCG can leave its ring full a moment (TCP sends
            # again; the UDP counts above are exact); before its link is
            # up the bridge's own frames meet a peer that is down
            other = d["drops"] - d["drop_tx_full"] - d["drop_peer_down"]
            check(other == 0 and d["drop_tx_full"] <= d["rx_pkts"] // 100,
                  "%s drops: %s" % (name, d))
        # a guest under TCG may leave its ring full a moment (vfwd's
        # tx_full), its sockets full (Udp and Udp6 Rcvbuf/SndbufErrors) or
        # its NIC's queues (their drops), and the taps' kernel queues may
        # overflow either way while vfwd is away (their rx and tx_dropped):
        # a lost datagram must be one of those, counted where it was lost
        counted = w2v["drop_tx_full"] + v2w["drop_tx_full"] + guest_drops + nic_drops + tap_drops
        check(udp_lost <= counted,
              "%d datagrams lost; counted: vfwd tx_full %d toward the guest and %d toward the "
              "taps, the guest's sockets %d, its NICs %d, the taps %d (%s)"
              % (udp_lost, w2v["drop_tx_full"], v2w["drop_tx_full"], guest_drops, nic_drops,
                 tap_drops, taps_seen))
        check(v2w["gso_frames"] > 0, "the guest sent no TSO frames")
        vm_ports = [p for p in final["ports"] if p["role"] == "vm"]
        check(len(vm_ports) == 2 and not any(p["guest_ufo"] for p in vm_ports),
              "vm ports: %s" % vm_ports)
        if not gro:
            check(w2v["gro_in"] == 0, "GRO ran while off")
        lat = final["total"]["latency"]
        held = lat["tx_hold"]["count"]
        if latency:
            # every frame handed to a port went through a tx hold (no send
            # here is near the hold's 1024) and was counted out of it, those
            # the port then refused too; each frame heavy GRO flushed went
            # on into a hold
            out = {name: d["tx_pkts"] + d["drop_tx_full"] + d["drop_peer_down"]
                   for name, d in (("vm_to_wire", v2w), ("wire_to_vm", w2v))}
            check(held == sum(out.values()) and
                  (not gro or 0 < lat["gro"]["count"] <= out["wire_to_vm"]),
                  "latency counts: tx_hold %d for %s handed out, gro %d"
                  % (held, out, lat["gro"]["count"]))
            print("     latency on: %d frames out of the tx holds (p99 %.0f us), %d out of "
                  "GRO (p99 %.0f us)" % (held, lat["tx_hold"]["p99_us"], lat["gro"]["count"],
                                         lat["gro"]["p99_us"]))
        else:
            check(held == 0, "tx_hold counted %d with latency off" % held)
        if napi:
            # it slept, on interrupts only (the taps' fds and the guest's
            # kicks both woke it), never in naps
            lc = final["lcores"][0]
            check(lc["sleeps"] > 0 and lc["nap_queues"] == 0 and
                  0 < lc["wakeups_kick"] < lc["wakeups_intr"],
                  "napi: %s" % {k: lc[k] for k in ("sleeps", "intr_queues", "nap_queues",
                                                   "wakeups_intr", "wakeups_kick")})
        print("     GRO %s: %s; %d TSO frames cut into %d segments; %d UDP datagrams x %d, "
              "every byte checked, %d lost (counted: vfwd %d+%d tx_full, guest sockets %d, "
              "NICs %d, taps %d)"
              % ("heavy" if gro else "off", ", ".join(lines), v2w["gso_frames"],
                 v2w["gso_segs"], UDP_COUNT, len(UDPS), udp_lost, w2v["drop_tx_full"],
                 v2w["drop_tx_full"], guest_drops, nic_drops, tap_drops))


MQ_QUEUES = 2
# each connection's TCP picks its tx queue by a random hash: with 8 flows
# each way (16 connections) all on one queue is a 1 in 2^15 chance
MQ_FLOWS = 8
MQ_KB = 1024
# INTx, one interrupt line for the 5 virtqueues: QEMU 7.2 under TCG
# crashes (SIGSEGV in msix_set_vector_notifiers, from vhost_net_start)
# when the guest starts a vhost-user virtio-net with MSI-X, multi-queue
# or not (vectors=6 with mq=on, vectors=3 with one queue pair alike)
MQ_VECTORS = 0


def tap_stats(ns, tap):
    """The tap's kernel counters (rx: what vfwd wrote to it)."""
    out = {}
    for k in ("rx_packets", "tx_packets", "rx_dropped", "tx_dropped"):
        r = subprocess.run(["ip", "netns", "exec", ns, "cat",
                            "/sys/class/net/%s/statistics/%s" % (tap, k)],
                           capture_output=True, text=True, check=True)
        out[k] = int(r.stdout)
    return out


def multi_queue(workers, queues=MQ_QUEUES, flows=MQ_FLOWS, kb=MQ_KB):
    """A guest with a multi-queue virtio-net on vfwd (net_vhost queues=N,
    --rxq N), an N-queue net_tap in a namespace as the wire, with workers
    worker lcores, each polling its share of the queue pairs (both
    directions). guest.MQ_INIT sets N channels (test/guest/ethq.c) and runs
    flows TCP flows each way at once against guest.HOST_MQ_SIDE. Every
    flow arrives whole (sha256); each queue carried traffic both ways; a
    frame is counted the same at each step, per queue: the guest's
    virtio_net counters (ethq stats), vfwd's streams, its ports' rxq/txq
    counts, the tap's kernel; what did not get through is vfwd's tx_full
    (or peer-down) drops, nothing else. GRO off: toward the guest one
    frame is one frame all the way."""
    check(guest.have_guest_tools(), "qemu-system-x86_64, busybox, cpio or a kernel missing "
          "(usertools/setup.sh installs them)")
    tag = "mq%dq%d" % (workers, queues)
    with Env("guest-" + tag) as env:
        ns = "vfwdt-g%s-%d" % (tag, RUN_PID)
        tap = link_name("q")
        env.add_netns(ns)
        sock = env.path("vh.sock")
        ethq = guest.build_helper(env.dir, "ethq")
        initrd = guest.build_initramfs(env.dir, 0, init=guest.MQ_INIT, binaries=[ethq],
                                       params={"queues": queues, "flows": flows, "kb": kb})
        vdevs = ["net_vhost0,iface=%s,tso=1,queues=%d" % (sock, queues),
                 "net_tap0,iface=%s" % tap]
        # the main lcore on CPU 0 (beside QEMU), the workers on CPU 1
        lcores = "0@0," + ",".join("%d@1" % (w + 1) for w in range(workers))
        vf = env.vfwd(vdevs, ["--rxq", str(queues), "--stats-format", "json",
                              "--stats-period", "1"], lcores=lcores, netns=ns)
        vf.wait_output("forwarding", 30)
        ip = ["ip", "-n", ns]
        subprocess.run(ip + ["addr", "add", guest.HOST_IP + "/24", "dev", tap], check=True)
        subprocess.run(ip + ["link", "set", tap, "up"], check=True)
        subprocess.run(ip + ["link", "set", "lo", "up"], check=True)
        # the host's IPv6 off too: its router solicitations would be the
        # only frames beside the flows
        subprocess.run(["ip", "netns", "exec", ns, "sysctl", "-qw",
                        "net.ipv6.conf.%s.disable_ipv6=1" % tap], check=True)
        host = Proc(env, "host", ["ip", "netns", "exec", ns, "python3", "-c", guest.HOST_MQ_SIDE,
                                  str(kb << 10), guest.HOST_IP, str(flows), "300"])
        host.wait_output("HOST-LISTENING", 20)
        vm = Proc(env, "qemu", guest.qemu_argv(sock, initrd, queues=queues,
                                               vectors=MQ_VECTORS))
        try:
            vm.wait_output("GUEST-DONE", 300)
        except TestFailure as e:
            raise TestFailure("%s\n--- host: %s %s" % (e, host.out(), host.err()[-500:]))
        vm.wait(60)
        host.wait(30)
        tap_after = tap_stats(ns, tap)  # while vfwd (and so the tap) still exists
        # each stream as telemetry shows it (the guest is gone: final)
        tel = telemetry(env, env.prefixes[-1], ["/vfwd/pairs,0"])["/vfwd/pairs"]
        rc = vf.stop(20)
        check(rc == 0, "vfwd exit %d: %s" % (rc, vf.err()[-1500:]))

        console, hostout = vm.out(), host.out()
        check("GUEST-ERROR" not in console, "guest: " + console[-2000:])
        # the driver enabled one pair (one vCPU); ethq made it 2
        check("GUEST-ETHQ-CHANNELS max %d combined %d" % (queues, queues) in console,
              "guest channels: %s" % re.findall(r"GUEST-\S*CHANNELS.*", console))
        size = kb << 10
        for i in range(flows):
            g_out = re.search(r"GUEST-OUT-SHA %d (\w+)" % i, console)
            g_in = re.search(r"GUEST-IN-SHA %d (\w+) +(\d+)" % i, console)
            h_in = re.search(r"HOST-IN-SHA %d (\w+) (\d+)" % i, hostout)
            h_out = re.search(r"HOST-OUT-SHA %d (\w+) (\d+)" % i, hostout)
            check(g_out and g_in and h_in and h_out, "flow %d: missing sums:\n%s\n%s"
                  % (i, console[-1500:], hostout))
            check(int(h_in.group(2)) == size and h_in.group(1) == g_out.group(1),
                  "flow %d guest->host: %s bytes, sum %s, want %d and %s"
                  % (i, h_in.group(2), h_in.group(1), size, g_out.group(1)))
            check(int(g_in.group(2)) == size and g_in.group(1) == h_out.group(1),
                  "flow %d host->guest: %s bytes, sum %s, want %d and %s"
                  % (i, g_in.group(2), g_in.group(1), size, h_out.group(1)))
        gq = {k: int(v) for k, v in re.findall(r"GUEST-ETHQ-STAT (\w+) (\d+)", console)}

        final = vf.last_json()
        check("streams" in final, "vfwd's report has no streams (per-queue counts)")
        streams = {(st["dir"], st["queue"]): st for st in final["streams"]}
        check(len(final["streams"]) == 2 * queues and
              set(streams) == {(d, q) for d in ("vm_to_wire", "wire_to_vm")
                               for q in range(queues)},
              "streams: %s" % final["streams"])
        vm_port = [pt for pt in final["ports"] if pt["role"] == "vm"][0]
        wire = [pt for pt in final["ports"] if pt["role"] == "wire"][0]
        for q in range(queues):
            v2w, w2v = streams[("vm_to_wire", q)], streams[("wire_to_vm", q)]
            for d, st in (("vm_to_wire", v2w), ("wire_to_vm", w2v)):
                for k in ("rx_pkts", "tx_pkts", "drops"):
                    check(tel.get("q%d/%s/%s" % (q, d, k)) == st[k],
                          "queue %d %s %s: telemetry %s, report %s"
                          % (q, d, k, tel.get("q%d/%s/%s" % (q, d, k)), st[k]))
            # each queue carried the flows both ways (TSO frames from the
            # guest are few: 10 is well below what one flow's ACKs make)
            for st in (v2w, w2v):
                check(st["rx_pkts"] >= 10 and st["tx_pkts"] >= 10,
                      "queue %d carried little traffic: %s" % (q, st))
                check(st["out_expected"] == st["tx_pkts"] + st["drops"],
                      "queue %d accounting: %s" % (q, st))
            # what each PMD queue took or sent is what its stream counted
            check(vm_port["rxq_pkts"][q] == v2w["rx_pkts"] and
                  wire["txq_pkts"][q] == v2w["tx_pkts"] and
                  wire["rxq_pkts"][q] == w2v["rx_pkts"] and
                  vm_port["txq_pkts"][q] == w2v["tx_pkts"],
                  "queue %d: ports %s %s, streams %s %s" % (q, vm_port, wire, v2w, w2v))
            # the guest's own queue counters, read last thing before it
            # powered off: it sent on queue q what vfwd took from queue q,
            # and took (or dropped) on q what vfwd sent on q; at most a
            # few frames (a late ACK) after the read
            sent, got = gq.get("tx_queue_%d_packets" % q), gq.get("rx_queue_%d_packets" % q)
            check(sent is not None and got is not None, "guest counters: %s" % gq)
            got += gq.get("rx_queue_%d_drops" % q, 0)
            check(sent >= 10 and 0 <= v2w["rx_pkts"] - sent <= 3,
                  "queue %d: the guest sent %d frames, vfwd took %d" % (q, sent, v2w["rx_pkts"]))
            check(0 <= w2v["tx_pkts"] - got <= 3,
                  "queue %d: vfwd sent %d frames, the guest took %d" % (q, w2v["tx_pkts"], got))
        # the tap's kernel: it took every frame vfwd wrote, and vfwd read
        # every frame it queued (tap_after was read first)
        check(tap_after["rx_packets"] == wire["opackets"] and tap_after["rx_dropped"] == 0,
              "tap %s, vfwd wrote %d" % (tap_after, wire["opackets"]))
        check(wire["ipackets"] >= tap_after["tx_packets"],
              "tap %s, vfwd read %d" % (tap_after, wire["ipackets"]))
        dirs = final["total"]["dirs"]
        for name in ("vm_to_wire", "wire_to_vm"):
            d = dirs[name]
            # a TCG guest leaves its rx rings full a while under 8 flows
            # (tx_full toward it: 7-10% in the runs here; TCP sends again)
            other = d["drops"] - d["drop_tx_full"] - d["drop_peer_down"]
            check(other == 0 and d["drop_tx_full"] <= d["rx_pkts"] * 3 // 10,
                  "%s drops: %s" % (name, d))
        check(dirs["vm_to_wire"]["gso_frames"] > 0, "the guest sent no TSO frames")
        secs = int(re.search(r"GUEST-XFER-CS (\d+)", console).group(1)) / 100.0
        print("     %d worker(s), %d queue pairs, %d TCP flows x %d KiB each way in %.1f s, sha256 equal; "
              "per queue vm->wire %s frames, wire->vm %s (the guest's counters agree); "
              "%d tx_full toward the guest, tap tx_dropped %d"
              % (workers, queues, flows, kb, secs,
                 "/".join(str(streams[("vm_to_wire", q)]["rx_pkts"]) for q in range(queues)),
                 "/".join(str(streams[("wire_to_vm", q)]["tx_pkts"]) for q in range(queues)),
                 dirs["wire_to_vm"]["drop_tx_full"], tap_after["tx_dropped"]))


def test_guest_multi_queue_two_workers():
    multi_queue(2)


def test_guest_four_queue_pairs_two_workers():
    """4 queue pairs, 2 workers (2 pairs each): 32 flows each way, so that
    the flows' random hashes leave no queue without one (4 x (3/4)^32)."""
    multi_queue(2, queues=4, flows=32, kb=128)


def test_guest_multi_queue_one_worker():
    multi_queue(1)


def test_guest_vlan_ipv6_udp_guest_to_guest():
    guest_to_guest(False)


def test_guest_vlan_ipv6_udp_guest_to_guest_with_gro():
    guest_to_guest(True)


def test_guest_vlan_ipv6_udp_guest_to_guest_in_napi_mode():
    guest_to_guest(False, napi=True)


def test_guest_vlan_ipv6_udp_guest_to_guest_with_latency_on():
    """--latency on with tx batching and heavy GRO: every frame stamped
    into a hold and counted out of it, and still a datagram lost and not
    counted, or a byte changed, fails it; the stages' counts add up to
    what was sent."""
    guest_to_guest(True, latency=True)


def test_guest_vlan_ipv6_udp_guest_to_guest_on_the_lib_path():
    """The same, the workers calling librte_vhost's bursts themselves
    (--vhost-path lib): a datagram lost and not counted, or a byte
    changed, fails it as on the PMD."""
    guest_to_guest(True, vhost_path="lib")


def test_guest_tcp_ipv6_without_gro():
    transfer(False, v6=True)

def test_guest_tcp_ipv6_through_pcap_without_multi_segs():
    """net_pcap has no MULTI_SEGS: every frame vfwd hands it is one
    segment, the guest's TSO frames cut with their payload copied."""
    transfer(True, v6=True, wire="pcap")


def test_guest_tcp_deferred_heavy_gro():
    """Deferred delivery (the backlog, drained per feeding stream) with
    heavy GRO: the guest's own TCP both ways through that path."""
    transfer(True, extra=["--deliver", "deferred", "--gro-mode", "heavy"])


def test_guest_tcp_ipv6_with_gro():
    """TCP over IPv6 both ways: the guest's TCP/IPv6 TSO frames (HOST_TSO6,
    offered by net_vhost tso=1) cut by vfwd's own segmenter for the tap;
    toward the guest the segments merged by vfwd's GRO engine into TCPv6
    GSO frames (GUEST_TSO6)."""
    transfer(True, v6=True)


def test_guest_tcp_ipv6_with_librte_gro():
    """The same with librte_gro's engine: no IPv6 in 22.11, the segments
    pass unmerged, GRO on all the same."""
    transfer(True, v6=True, extra=["--gro-engine", "dpdk"])


def test_guest_jumbo_9000_through_af_packet():
    """host_mtu=9000: the guest, vfwd (--mtu 9000) and the far end (a veth
    behind net_af_packet: 22.11's net_tap takes no MTU over 1504) at 9000,
    TCP both ways: the guest's TSO frames cut into 8960-byte segments,
    the far end's 9000-byte segments to the guest unmerged."""
    transfer(False, wire="afpacket", mtu=9000)


def test_guest_jumbo_9000_ipv6_with_gro():
    """The same over IPv6 with GRO: 8940-byte segments merged into GSO
    frames the guest takes."""
    transfer(True, v6=True, wire="afpacket", mtu=9000)


# A guest that only stays up (the host does the talking)
IDLE_INIT = guest.BOOT + guest.MODULES_UP + """ip addr add %(guest)s/24 dev eth0
ip link set eth0 up
echo "GUEST-READY"
sleep 120
poweroff -f
"""
BIG_PINGS = 5


def test_guest_mtu_below_vfwds_rules_toward_it():
    """--mtu 9000 and the wire at 9000 (an af_packet veth), but a guest that
    announced 1500 (host_mtu=1500): toward it the smaller rules. The host's
    8000-byte pings (DF off: one 8042-byte frame each) are dropped before
    the guest, each counted oversize; its 100-byte ones are answered."""
    check(guest.have_guest_tools(), "qemu-system-x86_64, busybox, cpio or a kernel missing "
          "(usertools/setup.sh installs them)")
    with Env("guest-mtumin") as env:
        ns = "vfwdt-gmtumin-%d" % RUN_PID
        tap = link_name("u")
        env.add_netns(ns)
        ip = ["ip", "-n", ns]
        veth_wire(ns, tap, 9000)
        sock = env.path("vh.sock")
        initrd = guest.build_initramfs(env.dir, 0, init=IDLE_INIT)
        vf = env.vfwd(["net_vhost0,iface=%s,tso=1" % sock,
                       "net_af_packet0,iface=%s%s" % (tap + "p", AF_PACKET_JUMBO)],
                      ["--mtu", "9000", "--stats-format", "json", "--stats-period", "1"],
                      netns=ns)
        vf.wait_output("forwarding", 30)
        guest.tap_up(ns, tap, False)
        subprocess.run(ip + ["link", "set", "lo", "up"], check=True)
        vm = Proc(env, "qemu", guest.qemu_argv(sock, initrd, mtu=1500))
        vm.wait_output("GUEST-READY", 240)
        ping = ["ip", "netns", "exec", ns, "ping", "-i", "0.2", "-W", "2", guest.GUEST_IP]
        small = subprocess.run(ping + ["-c", "5", "-s", "100"], capture_output=True, text=True,
                               timeout=60)
        check(" 5 received" in small.stdout, "small pings: %s" % small.stdout[-400:])
        big = subprocess.run(ping + ["-c", str(BIG_PINGS), "-s", "8000", "-M", "dont"],
                             capture_output=True, text=True, timeout=60)
        check(" 0 received" in big.stdout, "8000-byte pings reached a 1500 guest: %s"
              % big.stdout[-400:])
        rc = vf.stop(20)
        check(rc == 0, "vfwd exit %d: %s" % (rc, vf.err()[-1500:]))
        vm.kill()
        final = vf.last_json()
        w2v = final["total"]["dirs"]["wire_to_vm"]
        vm_port = [p for p in final["ports"] if p["role"] == "vm"][0]
        check(vm_port["guest_mtu"] == 1500 and vm_port["mtu"] == 1500,
              "toward the guest: %s" % vm_port)
        # before the guest's driver is up the host's own frames (IPv6
        # neighbour discovery) meet a peer that is down: counted, allowed
        check(w2v["drop_oversize"] == BIG_PINGS and
              w2v["drops"] - w2v["drop_oversize"] - w2v["drop_peer_down"] == 0,
              "wire->vm drops: %s" % w2v)
        check(w2v["out_expected"] == w2v["tx_pkts"] + w2v["drops"], "accounting: %s" % w2v)
        print("     guest MTU 1500 under --mtu 9000: %d of %d 8042-byte frames dropped oversize "
              "toward it, 5 of 5 small pings answered" % (w2v["drop_oversize"], BIG_PINGS))


def test_guest_packed_ring_with_gro():
    """Packed virtqueues (VIRTIO_F_RING_PACKED) both ways, GRO merging
    toward the guest."""
    transfer(True, shape="packed=on")


def test_guest_packed_ring_napi_tx_batching():
    """Packed virtqueues, the worker asleep when idle (napi): the guest's
    kicks reach it through the packed ring's event suppression, tx held
    for batches of 16."""
    transfer(False, shape="packed=on", extra=["--rx-mode", "napi", "--tx-batch", "16"])


def test_guest_without_mergeable_rx_buffers():
    """mrg_rxbuf=off: the guest posts one big chain per frame (it took
    GUEST_TSO4: 64 KB ones); GRO's merged frames must fit one."""
    transfer(True, shape="mrg_rxbuf=off")


def test_guest_without_event_index_or_indirect_descriptors():
    transfer(True, shape="event_idx=off,indirect_desc=off")


def test_guest_tcp_with_gro():
    transfer(True)


def test_guest_tcp_without_gro():
    transfer(False)


if __name__ == "__main__":
    # The contrast kept in doc/offloads.md: dpdk-testpmd io in vfwd's place
    print(transfer(False, forwarder="testpmd"))
