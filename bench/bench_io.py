#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""dpdk-vfwd against dpdk-testpmd --forward-mode=io, side by side.

Same topology for both forwarders, one direction at a time, one worker
lcore on a CPU of its own, burst 32, 64-byte packets:

  vm_to_wire: testpmd txonly (virtio-user) -> FORWARDER(net_vhost0 -> net_null0,no-rx=1)
  wire_to_vm: FORWARDER(net_null0,size=64 -> net_vhost0) -> testpmd rxonly (virtio-user)

Runs are interleaved (A B A B ...). Each run lasts --secs; the rate is the
forwarder's tx rate over the last secs-2 seconds (per-second figures, the
first two dropped as warm-up), taken from each forwarder's own periodic
stats. Prints, per direction: Mpps median (min-max), cycles per packet and
the ratio vfwd/testpmd.

cycles/pkt (wall) = TSC Hz / pps: what one 100%-polling core pays per
packet, comparable across both. vfwd's own busy cycles/pkt is shown too.

Usage: bench/bench_io.py [--rounds 5] [--secs 6] [--size 64] [--json FILE] [--base BIN]
--size: frame length without FCS (1514: a full 1518-byte Ethernet frame).
--base: a second dpdk-vfwd binary (e.g. built at an older commit) run in
the same rotation, so that a change's cost is measured side by side.
Run alone: it needs both CPUs of this machine to itself.
"""

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "test"))
import vfwdtest  # noqa: E402
from vfwdtest import TESTPMD, VFWD, Env, check  # noqa: E402

DIRS = ("vm_to_wire", "wire_to_vm")


SIZE = 64  # --size


def forwarder_vdevs(direction, sock):
    wire = ("net_null0,no-rx=1" if direction == "vm_to_wire"
            else "net_null0,size=%d,copy=0" % SIZE)
    return ["net_vhost0,iface=%s" % sock, wire]


def start_peer(env, direction, sock, secs):
    mode = "txonly" if direction == "vm_to_wire" else "rxonly"
    return env.testpmd(["net_virtio_user0,path=" + sock],
                       ["--forward-mode=" + mode, "--nb-cores=1", "--burst=32",
                        "--txpkts=%d" % SIZE, "--stats-period", "1"],
                       lcores="0@0,1@0", name="peer-" + mode)


def run_vfwd(env, direction, secs, extra=()):
    sock = env.path("vfwd.sock")
    fw = env.vfwd(forwarder_vdevs(direction, sock),
                  ["--burst", "32", "--stats-format", "json", "--stats-period", "1",
                   "--duration", str(secs + 2)] + list(extra))
    fw.wait_output("forwarding", 30)
    peer = start_peer(env, direction, sock, secs)
    fw.wait(secs + 30)
    peer.stop(20)
    reports = [r for r in fw.json_lines() if not r["final"]]
    # reports from the second after the peer connected, warm-up dropped
    moving = [r for r in reports if r["total"]["dirs"][direction]["tx_pps"] > 0]
    window = moving[2:] or moving
    check(window, "vfwd forwarded nothing:\n" + fw.err()[-1500:])
    pps = [r["total"]["dirs"][direction]["tx_pps"] for r in window]
    cyc = [r["total"]["period_cycles_per_pkt"] for r in window]
    final = fw.last_json()
    d = final["total"]["dirs"][direction]
    check(d["rx_pkts"] == d["tx_pkts"] + d["drops"], "vfwd rx != tx + drops")
    return statistics.median(pps), final["total"]["cycles_per_pkt"], final["tsc_hz"]


TESTPMD_TX = re.compile(r"NIC statistics for port (\d+)\s+#+.*?Tx-pps:\s+(\d+)", re.S)


def run_testpmd(env, direction, secs):
    sock = env.path("tpmd.sock")
    fw = env.testpmd(forwarder_vdevs(direction, sock),
                     ["--forward-mode=io", "--nb-cores=1", "--burst=32", "--stats-period", "1",
                      "--record-core-cycles"],
                     lcores="0@0,1@1", name="fwd-testpmd")
    fw.wait_output("Port 1:", 30)
    peer = start_peer(env, direction, sock, secs)
    time.sleep(secs + 1)
    peer.stop(20)
    fw.stop(20, sig=2)
    tx_port = "1" if direction == "vm_to_wire" else "0"
    series = [int(pps) for port, pps in TESTPMD_TX.findall(fw.out()) if port == tx_port]
    moving = [p for p in series if p > 0]
    window = moving[2:-1] or moving
    check(window, "testpmd forwarded nothing:\n" + fw.out()[-1500:])
    # testpmd divides its busy cycles by packets received in io mode;
    # divide by packets sent instead, as vfwd does
    busy = re.search(r"total cycles=(\d+)", fw.out())
    acc = fw.out()[fw.out().rfind("Accumulated forward statistics"):]
    sent = re.search(r"TX-packets:\s+(\d+)", acc)
    check(busy and sent and int(sent.group(1)), "no testpmd cycle figures:\n" + fw.out()[-1500:])
    return statistics.median(window), int(busy.group(1)) / int(sent.group(1))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--secs", type=int, default=6)
    ap.add_argument("--json", help="write the raw figures here")
    ap.add_argument("--vfwd-args", default="", help="extra options for dpdk-vfwd")
    ap.add_argument("--dirs", default=",".join(DIRS), help="directions to run")
    ap.add_argument("--base", help="another dpdk-vfwd binary to run beside this one")
    ap.add_argument("--base-args", default=None,
                    help="the base run's extra options instead of --vfwd-args (with no "
                         "--base: the same binary, e.g. --base-args='--vhost-path lib')")
    ap.add_argument("--size", type=int, default=64, help="frame length (no FCS), 60..1514")
    a = ap.parse_args()
    if a.base_args is not None and not a.base:
        a.base = VFWD
    base_args = (a.base_args if a.base_args is not None else a.vfwd_args).split()
    global SIZE
    SIZE = a.size
    if len(os.sched_getaffinity(0)) < 2:
        print("warning: fewer than 2 CPUs: forwarder and peer share a CPU", file=sys.stderr)

    res = {d: {"vfwd": [], "vfwd_busy_cyc": [], "testpmd": [], "testpmd_busy_cyc": [],
               "base": [], "base_busy_cyc": []} for d in DIRS}
    who_all = ("vfwd", "testpmd", "base") if a.base else ("vfwd", "testpmd")
    tsc_hz = None
    dirs = [d for d in a.dirs.split(",") if d in DIRS]
    for rnd in range(a.rounds):
        for direction in dirs:
            # rotate who goes first, so drift hits all alike
            order = who_all[rnd % len(who_all):] + who_all[:rnd % len(who_all)]
            for who in order:
                with Env("bench-%s-%s" % (who, direction)) as env:
                    if who in ("vfwd", "base"):
                        vfwdtest.VFWD = a.base if who == "base" else VFWD
                        try:
                            pps, cyc, tsc_hz = run_vfwd(env, direction, a.secs,
                                                        base_args if who == "base"
                                                        else a.vfwd_args.split())
                        finally:
                            vfwdtest.VFWD = VFWD
                        res[direction][who].append(pps)
                        res[direction][who + "_busy_cyc"].append(cyc)
                    else:
                        pps, cyc = run_testpmd(env, direction, a.secs)
                        res[direction]["testpmd"].append(pps)
                        res[direction]["testpmd_busy_cyc"].append(cyc)
                print("round %d %-10s %-8s %.3f Mpps" % (rnd + 1, direction, who,
                                                         res[direction][who][-1] / 1e6),
                      file=sys.stderr, flush=True)

    print("\n%d-byte packets, burst 32, 1 worker lcore, %d interleaved rounds of %ds%s%s"
          % (SIZE, a.rounds, a.secs, ", vfwd " + a.vfwd_args if a.vfwd_args else "",
             ", base " + a.base + (" " + " ".join(base_args) if base_args else "")
             if a.base else ""))
    print("| direction | forwarder | Mpps median (min-max) | wall cycles/pkt | "
          "busy cycles/pkt sent | Mpps vfwd/testpmd |")
    print("|---|---|---|---|---|---|")
    for d in dirs:
        v, t = res[d]["vfwd"], res[d]["testpmd"]
        ratio = statistics.median(v) / statistics.median(t)
        rows = [("dpdk-vfwd", v, res[d]["vfwd_busy_cyc"]),
                ("testpmd io", t, res[d]["testpmd_busy_cyc"])]
        if a.base:
            rows.append(("dpdk-vfwd base" + (" " + " ".join(base_args) if base_args else ""),
                         res[d]["base"], res[d]["base_busy_cyc"]))
        for who, xs, cyc in rows:
            r = "%.3f" % ratio if who == "dpdk-vfwd" else (
                "%.3f" % (statistics.median(xs) / statistics.median(t)) if who != "testpmd io"
                else "")
            print("| %s | %s | %.3f (%.3f-%.3f) | %.0f | %.0f | %s |"
                  % (d.replace("_to_", "->"), who, statistics.median(xs) / 1e6, min(xs) / 1e6,
                     max(xs) / 1e6, tsc_hz / statistics.median(xs), statistics.median(cyc), r))
    # busy cycles per packet: each round's pair (same phase of the
    # machine's drift) and each side's best run
    print("\n| direction | pair | busy cycles/pkt: median of pairwise ratios (min-max) | "
          "ratio of best runs |")
    print("|---|---|---|---|")
    pairs = [("vfwd", "testpmd")] + ([("base", "testpmd"), ("vfwd", "base")] if a.base else [])
    for d in dirs:
        for x, y in pairs:
            xs, ys = res[d][x + "_busy_cyc"], res[d][y + "_busy_cyc"]
            rs = [p / q for p, q in zip(xs, ys) if q]
            if rs:
                print("| %s | %s/%s | %.3f (%.3f-%.3f) | %.3f |"
                      % (d.replace("_to_", "->"), x, y, statistics.median(rs), min(rs), max(rs),
                         min(xs) / min(ys)))
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"tsc_hz": tsc_hz, "rounds": a.rounds, "secs": a.secs, "size": SIZE,
                       "results": res}, f,
                      indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
