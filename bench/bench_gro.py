#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The cpumap-GRO experiment (seed 003) in userspace: GRO off / light /
heavy toward the VM, for 1 flow and for 1024 flows (where GRO cannot
merge).

  net_pcap (a TCP stream of 1448-byte segments, replayed forever, inside
  vfwd) -> vfwd wire->vm (GRO) -> net_vhost -> testpmd rxonly on a
  virtio-user port with LRO and TCP/UDP checksum rx offloads (so it negotiates
  GUEST_TSO4 + GUEST_CSUM and takes GSO frames), on the other CPU.

For each cell: segments/s delivered to the guest (payload bytes / MSS),
Gbit/s of payload, segments/s taken from the wire, packets/s into the
vring, vfwd's busy cycles per segment taken, and drops. Medians of
interleaved rounds. Usage: bench/bench_gro.py [--rounds 3] [--secs 6]
"""

import argparse
import os
import statistics
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "test"))
from vfwdtest import Env, check, inet_csum  # noqa: E402

MSS = 1448
HDRS = 14 + 20 + 20


def segment(flow, seq, ip_id):
    payload = bytes((seq + i) & 0xff for i in range(MSS))
    src, dst = 0xc6120000 | (flow >> 8), 0xc6130001
    sport = 1024 + (flow & 0xff)
    tcp = struct.pack("!HHIIBBHHH", sport, 5201, seq, 1, 5 << 4, 0x10, 65535, 0, 0)
    pseudo = struct.pack("!IIBBH", src, dst, 0, 6, len(tcp) + MSS)
    tcp = tcp[:16] + struct.pack("!H", inet_csum(pseudo + tcp + payload)) + tcp[18:]
    ip = struct.pack("!BBHHHBBHII", 0x45, 0, 20 + len(tcp) + MSS, ip_id, 0x4000, 64, 6, 0, src, dst)
    ip = ip[:10] + struct.pack("!H", inet_csum(ip)) + ip[12:]
    eth = b"\x02\0\0\0\0\x02" + b"\x02\0\0\0\0\x01" + b"\x08\x00"
    return eth + ip + tcp + payload


def write_pcap(path, flows, segs_per_flow):
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
        n = 0
        for k in range(segs_per_flow):
            for flow in range(flows):
                frame = segment(flow, 1000 + k * MSS, n & 0xffff)
                f.write(struct.pack("<IIII", 0, n, len(frame), len(frame)))
                f.write(frame)
                n += 1


def run_cell(env, pcap, mode, secs, gro_flows):
    sock = env.path("vh.sock")
    args = ["--stats-format", "json", "--stats-period", "1", "--duration", str(secs + 2)]
    if mode != "off":
        args += ["--gro", "--gro-mode", mode, "--gro-flows", str(gro_flows)]
    vf = env.vfwd(["net_vhost0,iface=%s,tso=1" % sock,
                   "net_pcap0,rx_pcap=%s,tx_pcap=/dev/null,infinite_rx=1" % pcap], args)
    vf.wait_output("forwarding", 60)
    peer = env.testpmd(["net_virtio_user0,path=%s,queue_size=1024" % sock],
                       # LRO + TCP/UDP checksum rx offloads (0x1c): GUEST_TSO4 and
                       # GUEST_CSUM; the virtio PMD has no IPv4 checksum offload
                       ["--forward-mode=rxonly", "--nb-cores=1", "--enable-lro",
                        "--rx-offloads=0x1c", "--stats-period", "1"], lcores="0@0,1@0",
                       name="peer")
    vf.wait(secs + 60)
    peer.stop(20)
    reports = [r for r in vf.json_lines() if not r["final"]]
    cells = []
    for a, b in zip(reports, reports[1:]):
        da, db = a["total"]["dirs"]["wire_to_vm"], b["total"]["dirs"]["wire_to_vm"]
        dt = b["t"] - a["t"]
        tx_pkts = db["tx_pkts"] - da["tx_pkts"]
        if tx_pkts == 0:
            continue
        payload = (db["tx_bytes"] - da["tx_bytes"]) - HDRS * tx_pkts
        rx = db["rx_pkts"] - da["rx_pkts"]
        busy = b["total"]["busy_tsc"] - a["total"]["busy_tsc"]
        cells.append({"seg_s": payload / MSS / dt, "gbit": payload * 8 / dt / 1e9,
                      "rx_s": rx / dt, "pkt_s": tx_pkts / dt,
                      "cyc_seg": busy / rx if rx else 0,
                      "drops": (db["drops"] - da["drops"]) / dt})
    window = cells[2:] or cells
    check(window, "no traffic reached the guest:\n" + vf.err()[-1000:])
    final = vf.last_json()
    d = final["total"]["dirs"]["wire_to_vm"]
    check(d["out_expected"] == d["tx_pkts"] + d["drops"], "accounting broke")
    return {k: statistics.median(c[k] for c in window) for k in window[0]}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--secs", type=int, default=6)
    ap.add_argument("--gro-flows", type=int, default=64)
    ap.add_argument("--flows", default="1,1024")
    ap.add_argument("--modes", default="off,light,heavy")
    a = ap.parse_args()
    results = {}
    with Env("bench-gro-pcap") as pcaps:
        files = {1: pcaps.path("flow1.pcap"), 1024: pcaps.path("flow1024.pcap")}
        write_pcap(files[1], 1, 2048)
        write_pcap(files[1024], 1024, 4)
        flow_set = [int(f) for f in a.flows.split(",")]
        modes = a.modes.split(",")
        for rnd in range(a.rounds):
            for flows in flow_set:
                for mode in (modes if rnd % 2 == 0 else modes[::-1]):
                    with Env("bench-gro") as env:
                        r = run_cell(env, files[flows], mode, a.secs, a.gro_flows)
                    results.setdefault((flows, mode), []).append(r)
                    print("round %d flows %4d gro %-5s %.0f seg/s delivered, %.2f Gbit/s, "
                          "%.0f cycles/seg" % (rnd + 1, flows, mode, r["seg_s"], r["gbit"],
                                               r["cyc_seg"]), file=sys.stderr, flush=True)

    print("\nTCP/IPv4, 1448-byte segments, wire -> VM, 1 worker lcore, %d interleaved rounds "
          "of %ds (medians), --gro-flows %d" % (a.rounds, a.secs, a.gro_flows))
    print("| flows | GRO | segments/s delivered | Gbit/s payload | segments/s from wire | "
          "packets/s to guest | busy cycles/segment | drops/s | vs GRO off |")
    print("|---|---|---|---|---|---|---|---|---|")
    for flows in flow_set:
        base = statistics.median(r["seg_s"] for r in results.get((flows, "off"), results[(flows, modes[0])]))
        for mode in modes:
            rs = results[(flows, mode)]
            med = {k: statistics.median(r[k] for r in rs) for k in rs[0]}
            print("| %d | %s | %.0f | %.2f | %.0f | %.0f | %.0f | %.0f | %.2fx |"
                  % (flows, mode, med["seg_s"], med["gbit"], med["rx_s"], med["pkt_s"],
                     med["cyc_seg"], med["drops"], med["seg_s"] / base))
    return 0


if __name__ == "__main__":
    sys.exit(main())
