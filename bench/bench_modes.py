#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The seeds' experiments with vfwd's modes (doc/modes.md), each printed as
its table with what it cost: vfwd's busy cycles per packet sent, busy %,
time asleep and the worker threads' CPU use read from /proc.

  seed 000  poll vs napi, under load (64 B) and idle: the CPU observation
  seed 001  tx batch 1 / 16 / 32 (vhost_net tx batching), 64 B; and the
            request/response rate and RTT with each (001rr)
  seed 002  direct vs deferred delivery (netif_receive_skb vs netif_rx), UDP 512 B;
            and request/response (002rr: ping -f, one echo outstanding, as UDP_RR)
  seed 003  direct / direct+GRO / pipeline / pipeline+GRO, 1 flow and 1024 flows

Topologies (2 CPUs here: the peer on CPU 0, vfwd's worker on CPU 1; the
pipeline's work lcore shares CPU 0 with the peer, say so in the results):

  udp:  testpmd txonly (virtio-user) -> vfwd net_vhost0 -> net_null0 (sink)
  tcp:  net_pcap TCP replay inside vfwd -> vfwd wire->vm -> net_vhost0 ->
        testpmd rxonly with LRO (takes GSO frames)

Cells run interleaved, --rounds times; medians (min-max) of per-second
figures, the first two seconds dropped.
Usage: bench/bench_modes.py [--rounds 3] [--secs 6] [--seeds 000,001,002,003]
Run alone: it needs both CPUs of this machine to itself.
"""

import argparse
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "test"))
sys.path.insert(0, HERE)
from vfwdtest import Env, RUN_PID, check, link_name, thread_cpu_ticks  # noqa: E402
from bench_gro import write_pcap, MSS, HDRS  # noqa: E402


def worker_ticks(pid):
    return sum(thread_cpu_ticks(pid).values())


def run_rr(env, args, secs):
    """Request/response: ping -f (one echo outstanding at a time) from a
    netns through a tap, vfwd and vhost-user to testpmd icmpecho."""
    import re
    import subprocess
    ns = "vfwdb-rr-%d" % RUN_PID
    tap = link_name("r")
    env.add_netns(ns)
    sock = env.path("vh.sock")
    vf = env.vfwd(["net_vhost0,iface=%s" % sock, "net_tap0,iface=%s" % tap],
                  ["--stats-format", "json"] + list(args), netns=ns)
    vf.wait_output("forwarding started", 60)
    ip = ["ip", "-n", ns]
    subprocess.run(ip + ["addr", "add", "192.0.2.1/24", "dev", tap], check=True)
    subprocess.run(ip + ["link", "set", tap, "up"], check=True)
    echo = env.testpmd(["net_virtio_user0,path=" + sock],
                       ["--forward-mode=icmpecho", "--nb-cores=1"], lcores="0@0,1@0")
    echo.wait_output("Press enter to exit", 30)
    subprocess.run(["ip", "netns", "exec", ns, "ping", "-c", "3", "192.0.2.2"],
                   capture_output=True, timeout=30)
    hz = os.sysconf("SC_CLK_TCK")
    t0, c0 = time.monotonic(), worker_ticks(vf.pid)
    r = subprocess.run(["ip", "netns", "exec", ns, "ping", "-f", "-q", "-w", str(secs),
                        "192.0.2.2"], capture_output=True, text=True, timeout=secs + 30)
    cpu = (worker_ticks(vf.pid) - c0) / hz / (time.monotonic() - t0)
    echo.stop(20)
    check(vf.stop(20) == 0, vf.err()[-500:])
    m = re.search(r"(\d+) received.*time (\d+)ms", r.stdout)
    rtt = re.search(r"= ([\d.]+)/([\d.]+)/([\d.]+)/", r.stdout)
    check(m and rtt, "ping: " + r.stdout + r.stderr)
    final = vf.last_json()
    busy = final["total"]["busy_tsc"]
    sent = final["total"]["tx_pkts"]
    return {"rr": int(m.group(1)) / (int(m.group(2)) / 1000.0), "rtt_us": float(rtt.group(2)) * 1000,
            "cyc": busy / sent if sent else 0, "cpu": 100.0 * cpu}


def run_cell(env, topo, args, secs, size=64, pcap=None, lcores="0@0,1@1"):
    sock = env.path("vh.sock")
    base = ["--stats-format", "json", "--stats-period", "1"]
    if topo == "tcp":
        vdevs = ["net_vhost0,iface=%s,tso=1" % sock,
                 "net_pcap0,rx_pcap=%s,tx_pcap=/dev/null,infinite_rx=1" % pcap]
        direction = "wire_to_vm"
    else:
        vdevs = ["net_vhost0,iface=%s" % sock, "net_null0,no-rx=1"]
        direction = "vm_to_wire"
    vf = env.vfwd(vdevs, base + list(args), lcores=lcores)
    vf.wait_output("forwarding started", 60)
    peer = None
    if topo == "udp":
        peer = env.testpmd(["net_virtio_user0,path=" + sock],
                           ["--forward-mode=txonly", "--nb-cores=1", "--burst=32",
                            "--txpkts=%d" % size], lcores="0@0,1@0", name="peer")
    elif topo == "tcp":
        peer = env.testpmd(["net_virtio_user0,path=%s,queue_size=1024" % sock],
                           ["--forward-mode=rxonly", "--nb-cores=1", "--enable-lro",
                            "--rx-offloads=0x1c"], lcores="0@0,1@0", name="peer")
    time.sleep(2)
    hz = os.sysconf("SC_CLK_TCK")
    t0, c0 = time.monotonic(), worker_ticks(vf.pid)
    time.sleep(secs)
    cpu = (worker_ticks(vf.pid) - c0) / hz / (time.monotonic() - t0)
    rc = vf.stop(20)
    if peer:
        peer.stop(20)
    check(rc == 0, "vfwd exit %d: %s" % (rc, vf.err()[-800:]))
    reports = [r for r in vf.json_lines() if not r["final"]]
    cells = []
    for a, b in zip(reports, reports[1:]):
        da, db = a["total"]["dirs"][direction], b["total"]["dirs"][direction]
        dt = b["t"] - a["t"]
        sent = db["tx_pkts"] - da["tx_pkts"]
        busy = b["total"]["busy_tsc"] - a["total"]["busy_tsc"]
        wall = busy + (b["total"]["idle_tsc"] - a["total"]["idle_tsc"]) + \
            (b["total"]["sleep_tsc"] - a["total"]["sleep_tsc"])
        c = {"pps": sent / dt, "cyc": busy / sent if sent else 0,
             "busy": 100.0 * busy / wall if wall else 0,
             "asleep": 100.0 * (b["total"]["sleep_tsc"] - a["total"]["sleep_tsc"]) / wall
             if wall else 0,
             "drops": (db["drops"] - da["drops"]) / dt}
        if topo == "tcp":
            c["seg_s"] = ((db["tx_bytes"] - da["tx_bytes"]) - HDRS * sent) / MSS / dt
        txh_a, txh_b = da["tx_burst_hist"], db["tx_burst_hist"]
        calls = sum(v - txh_a.get(k, 0) for k, v in txh_b.items())
        c["tx_burst"] = sum(int(k) * (v - txh_a.get(k, 0)) for k, v in txh_b.items()) / calls \
            if calls else 0
        cells.append(c)
    window = cells[2:] or cells
    check(window, "no reports:\n" + vf.err()[-800:])
    final = vf.last_json()
    d = final["total"]["dirs"][direction]
    check(d["out_expected"] == d["tx_pkts"] + d["drops"], "accounting broke: %s" % d)
    out = {k: statistics.median(c[k] for c in window) for k in window[0]}
    out["cpu"] = 100.0 * cpu
    return out


SEEDS = {
    "000": {
        "title": "seed 000 (NAPI / IFF_NAPI CPU observation): poll vs napi, 64 B vm->wire "
                 "under load, and idle",
        "cells": [("poll, load", "udp", ["--rx-mode", "poll"], {}),
                  ("napi, load", "udp", ["--rx-mode", "napi"], {}),
                  ("adaptive, load", "udp", ["--rx-mode", "adaptive"], {}),
                  ("poll, idle", "idle", ["--rx-mode", "poll"], {}),
                  ("napi, idle", "idle", ["--rx-mode", "napi"], {}),
                  ("adaptive, idle", "idle", ["--rx-mode", "adaptive"], {})],
    },
    "001": {
        "title": "seed 001 (vhost_net tx batching): tx batch 1 / 16 / 32, 64 B vm->wire",
        "cells": [("tx-batch 1", "udp", ["--tx-batch", "1"], {}),
                  ("tx-batch 16", "udp", ["--tx-batch", "16", "--burst", "8"], {}),
                  ("tx-batch 32", "udp", ["--tx-batch", "32", "--burst", "8"], {}),
                  ("tx-batch 1, burst 8", "udp", ["--tx-batch", "1", "--burst", "8"], {})],
    },
    "001rr": {
        "title": "seed 001, latency: request/response (ping -f through a tap, vfwd, vhost, "
                 "testpmd icmpecho) with tx batch 1 / 16 / 32",
        "rr": True,
        "cells": [("tx-batch 1", "rr", ["--tx-batch", "1"], {}),
                  ("tx-batch 16", "rr", ["--tx-batch", "16"], {}),
                  ("tx-batch 32", "rr", ["--tx-batch", "32"], {})],
    },
    "002rr": {
        "title": "seed 002, request/response: direct vs deferred (ping -f, as UDP_RR)",
        "rr": True,
        "cells": [("direct", "rr", ["--deliver", "direct"], {}),
                  ("deferred", "rr", ["--deliver", "deferred"], {})],
    },
    "002": {
        "title": "seed 002 (netif_receive_skb vs netif_rx): direct vs deferred, UDP 512 B "
                 "vm->wire",
        "cells": [("direct", "udp", ["--deliver", "direct"], {"size": 512}),
                  ("deferred", "udp", ["--deliver", "deferred"], {"size": 512})],
    },
    "003": {
        "title": "seed 003 (cpumap + GRO): TCP 1448 B wire->vm, Kpps of segments delivered",
        "cells": [("direct, 1 flow", "tcp", [], {"flows": 1}),
                  ("direct GRO, 1 flow", "tcp", ["--gro"], {"flows": 1}),
                  ("pipeline 1:1, 1 flow", "tcp", ["--pipeline", "1:1"],
                   {"flows": 1, "lcores": "0@0,1@1,2@0"}),
                  ("pipeline 1:1 GRO, 1 flow", "tcp", ["--pipeline", "1:1", "--gro",
                                                       "--gro-mode", "heavy"],
                   {"flows": 1, "lcores": "0@0,1@1,2@0"}),
                  ("direct, 1024 flows", "tcp", [], {"flows": 1024}),
                  ("direct GRO, 1024 flows", "tcp", ["--gro"], {"flows": 1024}),
                  ("pipeline 1:1, 1024 flows", "tcp", ["--pipeline", "1:1"],
                   {"flows": 1024, "lcores": "0@0,1@1,2@0"}),
                  ("pipeline 1:1 GRO, 1024 flows", "tcp", ["--pipeline", "1:1", "--gro",
                                                          "--gro-mode", "heavy"],
                   {"flows": 1024, "lcores": "0@0,1@1,2@0"})],
    },
}


def fmt(xs, scale=1.0, digits=0):
    med = statistics.median(xs) / scale
    if len(xs) == 1:
        return "%.*f" % (digits, med)
    return "%.*f (%.*f-%.*f)" % (digits, med, digits, min(xs) / scale, digits, max(xs) / scale)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--secs", type=int, default=5)
    ap.add_argument("--seeds", default="000,001,001rr,002,002rr,003")
    a = ap.parse_args()
    if len(os.sched_getaffinity(0)) < 2:
        print("warning: fewer than 2 CPUs: forwarder and peer share a CPU", file=sys.stderr)
    seeds = a.seeds.split(",")
    results = {}
    with Env("bench-modes-pcap") as pcaps:
        files = {1: pcaps.path("flow1.pcap"), 1024: pcaps.path("flow1024.pcap")}
        if "003" in seeds:
            write_pcap(files[1], 1, 2048)
            write_pcap(files[1024], 1024, 4)
        for rnd in range(a.rounds):
            for seed in seeds:
                cells = SEEDS[seed]["cells"]
                for label, topo, args, extra in (cells if rnd % 2 == 0 else cells[::-1]):
                    with Env("bench-modes") as env:
                        if topo == "rr":
                            r = run_rr(env, args, a.secs)
                        else:
                            r = run_cell(env, topo, args, a.secs, size=extra.get("size", 64),
                                         pcap=files.get(extra.get("flows")),
                                         lcores=extra.get("lcores", "0@0,1@1"))
                    results.setdefault((seed, label), []).append(r)
                    print("round %d seed %s %-28s %9.0f %s %6.0f cyc/pkt cpu %5.1f%%"
                          % (rnd + 1, seed, label, r.get("pps", r.get("rr", 0)),
                             "pps" if "pps" in r else "trans/s", r["cyc"], r["cpu"]),
                          file=sys.stderr, flush=True)

    print("\n2 vCPUs (shared, noisy: compare rows within a table), %d interleaved rounds of "
          "%ds, medians (min-max)." % (a.rounds, a.secs))
    for seed in seeds:
        print("\n%s\n" % SEEDS[seed]["title"])
        if SEEDS[seed].get("rr"):
            print("| mode | transactions/s | mean RTT us | busy cycles/pkt sent | "
                  "worker CPU % (/proc) |")
            print("|---|---|---|---|---|")
            for label, _, _, _ in SEEDS[seed]["cells"]:
                rs = results[(seed, label)]
                col = lambda k: [r[k] for r in rs]  # noqa: E731
                print("| %s | %s | %s | %s | %s |" % (label, fmt(col("rr")), fmt(col("rtt_us")),
                                                     fmt(col("cyc")), fmt(col("cpu"), digits=1)))
            continue
        tcp = SEEDS[seed]["cells"][0][1] == "tcp"
        print("| mode | %s | busy cycles/pkt sent | busy %% | asleep %% | worker CPU %% "
              "(/proc) | mean tx burst | drops/s |" % ("Kpps segments delivered (packets to guest)"
                                                      if tcp else "Mpps"))
        print("|---|---|---|---|---|---|---|---|")
        for label, _, _, _ in SEEDS[seed]["cells"]:
            rs = results[(seed, label)]
            col = lambda k: [r[k] for r in rs]  # noqa: E731
            rate = ("%s (%s)" % (fmt(col("seg_s"), 1e3), fmt(col("pps"), 1e3)) if tcp
                    else fmt(col("pps"), 1e6, 2))
            print("| %s | %s | %s | %s | %s | %s | %s | %s |"
                  % (label, rate, fmt(col("cyc")), fmt(col("busy"), digits=1),
                     fmt(col("asleep"), digits=1), fmt(col("cpu"), digits=1),
                     fmt(col("tx_burst"), digits=1), fmt(col("drops"))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
