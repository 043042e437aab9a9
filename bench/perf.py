#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Scripted perf runs: each scenario in config/perf/*.toml (the seeds'
experiments and a few sweeps) becomes a table with its cost, CSV, JSON,
markdown and plots.

    dpdk-vfwd-gen(virtio-user) <-> forwarder(net_vhost0 | net_memif0) <-> dpdk-vfwd-gen(memif)

The forwarder is vfwd with the cell's knobs, or a baseline on the same
topology: dpdk-testpmd io, dpdk-testpmd csum + GRO, OVS-DPDK (netdev bridge,
one OpenFlow rule each way). The generator runs on CPU 0, the forwarder's
polling lcores on CPUs 1.. (when there are too few CPUs it says so and they
share). Every cell runs --rounds times, interleaved with the other cells of
the run; the tables keep the median and the min-max.

Cost, from the forwarder's own counters over the middle of each run:
cycles per packet forwarded and busy % per polling lcore (vfwd: telemetry;
testpmd: --record-core-cycles over the whole run; OVS: pmd-stats-show),
and the polling threads' CPU % from /proc.

A scenario's [guest] table runs it again with a real Linux guest under
QEMU (bench/guest_perf.py): those tables come first in the report.

Usage: bench/perf.py [--scenarios 000,001,...|all] [--secs 2] [--rounds 3]
                         [--topology all|guest|gen] [--guest-secs 3] [--gen-cpus 1]
                         [--out DIR] [--no-baselines] [--list]
The four seeds both ways (--scenarios 000,001,002,003) take 25 minutes on
a 2-CPU machine; use --secs 10 --rounds 5 on real hardware. Run alone: it
needs every CPU of the machine.
"""

import argparse
import csv
import datetime
import itertools
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import time
import tomllib

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "test"))
sys.path.insert(0, HERE)
import vfwdtest  # noqa: E402
from vfwdtest import (Env, Telemetry, TestFailure, check, cpu_pct, gen_topology,  # noqa: E402
                      ncpus, thread_cpu_ticks, vfwd_cost, vfwd_snapshot)

ROOT = vfwdtest.ROOT
SCENARIOS = os.path.join(ROOT, "config", "perf")
BASELINES = ("testpmd-io", "testpmd-csum-gro", "ovs")
# generator options a scenario's [traffic] may set (a list: an axis)
GEN_KEYS = ("profile", "dir", "size", "flows", "rate", "mss", "tso", "psh-every",
            "outstanding", "burst", "ipv6", "vlan", "tcp-ts", "queues")
# cell keys of [vfwd] / variants that are not vfwd options: workers = the
# polling lcores vfwd gets (default 1, or what --pipeline needs)
LAYOUT_KEYS = ("workers",)
# what a cell reports; (key, header, format)
METRICS = {
    "mpps": ("Mpps", "%.3f"),
    "gbps": ("Gbit/s", "%.2f"),
    "mframes": ("Mframes/s", "%.3f"),
    "segs_frame": ("segments/frame", "%.1f"),
    "ktps": ("k trans/s", "%.1f"),
    "rtt_p50": ("RTT p50 us", "%.1f"),
    "rtt_p90": ("RTT p90 us", "%.1f"),
    "rtt_p99": ("RTT p99 us", "%.1f"),
    "rtt_p999": ("RTT p99.9 us", "%.1f"),
    "lat_p50": ("latency p50 us", "%.1f"),
    "lat_p90": ("latency p90 us", "%.1f"),
    "lat_p99": ("latency p99 us", "%.1f"),
    "lat_p999": ("latency p99.9 us", "%.1f"),
    "loss_pct": ("loss %", "%.2f"),
    "cyc_pkt": ("cycles/pkt", "%.0f"),
    "busy_pct": ("busy % per lcore", None),
    "cpu_pct": ("CPU %", "%.0f"),
    # the guest topology (bench/guest_perf.py)
    "mbit": ("Mbit/s", "%.0f"),
    "tps": ("trans/s", "%.0f"),
    "g_rx_mb": ("guest rx frames/MB", "%.0f"),
    "g_tx_mb": ("guest tx frames/MB", "%.0f"),
    "g_irq_s": ("guest irqs/s", "%.0f"),
    "g_irq_frame": ("guest irqs/frame", "%.3f"),
    "g_irq_mb": ("guest irqs/MB", "%.0f"),
    "g_cpu": ("guest CPU usr/sys/softirq %", None),
    "g_sirq_mb": ("guest softirq ms/MB", "%.2f"),
    "g_cpu_mb": ("guest CPU ms/MB", "%.1f"),
    "calls_pkt": ("calls into guest/pkt", "%.3f"),
    "kicks_pkt": ("kicks from guest/pkt", "%.3f"),
}
# a scenario's [latency] table (its keys: dir, size): the same variants
# through request/response with 1 and 8 in flight and a UDP stream at full
# speed and at half of what that full speed reached in the same run
LATENCY_KEYS = {"dir", "size"}
LATENCY_METRICS = ["mpps", "ktps", "rtt_p50", "rtt_p99", "lat_p50", "lat_p99", "cyc_pkt",
                   "cpu_pct", "loss_pct"]
# what a scenario's [guest] table may hold
GUEST_KEYS = {"title", "about", "workloads", "variants", "baselines", "report", "vfwd_start"}
# metrics that are a list (one value per lcore, or a split): medians per place
LIST_METRICS = ("busy_pct", "g_cpu")
GUEST_METRICS = ["mbit", "tps", "rtt_p50", "rtt_p99", "loss_pct", "g_rx_mb", "g_irq_s",
                 "g_irq_frame", "g_cpu", "g_sirq_mb", "calls_pkt", "kicks_pkt", "cyc_pkt",
                 "busy_pct", "cpu_pct"]


def log(msg):
    print(msg, flush=True)


# ---- scenarios ----

def load_scenario(sid):
    path = os.path.join(SCENARIOS, sid + ".toml")
    with open(path, "rb") as f:
        s = tomllib.load(f)
    s["id"] = sid
    check(s.get("topology", "vhost-memif") == "vhost-memif",
          "%s: topology %s: the generator's is vhost-memif (the guest's is [guest])"
          % (path, s.get("topology")))
    if "guest" in s:
        import guest_perf
        g = s["guest"]
        check(set(g) <= GUEST_KEYS, "%s: unknown [guest] keys %s"
              % (path, sorted(set(g) - GUEST_KEYS)))
        check(g.get("workloads"), "%s: [guest] has no workloads" % path)
        for w in g["workloads"]:
            guest_perf.parse_workload(w)
        for b in g.get("baselines", []):
            check(b in guest_perf.FORWARDERS, "%s: [guest] baseline %s: the guest cells have %s"
                  % (path, b, ", ".join(guest_perf.FORWARDERS[1:])))
    check(set(s.get("latency", {})) <= LATENCY_KEYS, "%s: unknown [latency] keys %s"
          % (path, sorted(set(s.get("latency", {})) - LATENCY_KEYS)))
    for key, v in s.get("traffic", {}).items():
        for x in (v if isinstance(v, list) else [v]):
            for k in (set(x) - {"name"} if isinstance(x, dict) else [key]):
                check(k in GEN_KEYS, "%s: unknown traffic key '%s'" % (path, k))
    return s


def axes(table):
    """{key: [values]}: scalars are one-value axes."""
    return {k: (v if isinstance(v, list) else [v]) for k, v in table.items()}


def knob_args(knobs):
    """vfwd options from {knob: value}: true is a bare flag, false none."""
    args = []
    for k, v in knobs.items():
        if k in LAYOUT_KEYS:
            continue
        if v is True:
            args.append("--" + k)
        elif v is not False:
            args += ["--" + k, str(v)]
    return args


def variants(s, baselines=True):
    """(name, forwarder, vfwd knobs, guest ring) for each column of the
    scenario; ring: the guest's virtio-net properties ([guest] variants'
    ring = "packed=on,mrg_rxbuf=off"; "" for QEMU's defaults)."""
    out = []
    if "variants" in s:
        for v in s["variants"]:
            check(set(v) <= {"name", "vfwd", "ring"}, "%s: variant %s: unknown keys %s"
                  % (s["id"], v.get("name"), sorted(set(v) - {"name", "vfwd", "ring"})))
            check(not v.get("ring") or s.get("topology") == "guest",
                  "%s: variant %s: ring is for [guest] variants" % (s["id"], v.get("name")))
            out.append((v["name"], "vfwd", v.get("vfwd", {}), v.get("ring", "")))
    else:
        ax = axes(s.get("vfwd", {}))
        keys = list(ax)
        for combo in itertools.product(*[ax[k] for k in keys]):
            knobs = dict(zip(keys, combo))
            name = ",".join("%s=%s" % kv for kv in knobs.items()) or "vfwd"
            out.append((name, "vfwd", knobs, ""))
    if baselines:
        for b in s.get("baselines", []):
            check(b in BASELINES, "%s: unknown baseline %s" % (s["id"], b))
            out.append((b, b, {}, ""))
    return out


def cells(s, baselines=True):
    tr = axes(s.get("traffic", {}))
    keys = list(tr)
    out = []
    for combo in itertools.product(*[tr[k] for k in keys]):
        point = dict(zip(keys, combo))
        for name, fwd, knobs, ring in variants(s, baselines):
            out.append({"scenario": s["id"], "point": point, "variant": name, "fwd": fwd,
                        "knobs": knobs, "vfwd_args": knob_args(knobs), "ring": ring,
                        "vm_ring": s.get("vm_ring"), "start_args": s.get("vfwd_start", []),
                        "topology": s.get("topology", "vhost-memif")})
    return out


def guest_scenario(s):
    """The [guest] table of scenario s as a scenario of its own ("<id>-guest",
    topology guest): its axis the workloads, its variants vfwd knob sets."""
    g = s["guest"]
    report = dict(g.get("report", {}))
    report.setdefault("rows", ["workload"])
    report.setdefault("metrics", GUEST_METRICS)
    return {"id": s["id"] + "-guest", "parent": s["id"], "topology": "guest",
            "title": g.get("title", s.get("title", s["id"])) + " (real guest)",
            "about": g.get("about", ""), "traffic": {"workload": g["workloads"]},
            "variants": g.get("variants", [{"name": "vfwd", "vfwd": {}}]),
            "baselines": g.get("baselines", []), "report": report,
            # options vfwd starts with, beside the knobs typed per cell
            # (what is not a knob: --vhost-path)
            "vfwd_start": g.get("vfwd_start", [])}


def latency_scenario(s):
    """The [latency] table of scenario s as a scenario of its own
    ("<id>-lat", the generator's topology): s's variants and baselines,
    its axis the loads: rr 1, rr 8, UDP at full speed and at 50% of it
    (resolved in the run: rate_of)."""
    lt = s["latency"]
    udp = {"profile": "udp", "size": lt.get("size", 64), "dir": lt.get("dir", "vm-to-wire")}
    out = {k: v for k, v in s.items() if k not in ("traffic", "report", "guest", "latency")}
    out.update({"id": s["id"] + "-lat", "parent": s["id"],
                "title": s.get("title", s["id"]) + ": latency",
                "about": "The same variants: request/response with 1 and with 8 transactions "
                         "in flight (round trips), and a %s B UDP stream %s at full speed "
                         "and at 50%% of the rate full speed reached in the same run (one-way "
                         "latency, the generator's stamp to its receipt)."
                         % (udp["size"], udp["dir"]),
                "traffic": {"load": [
                    {"name": "rr 1", "profile": "rr", "outstanding": 1},
                    {"name": "rr 8", "profile": "rr", "outstanding": 8},
                    dict(udp, name="udp max", rate="max"),
                    dict(udp, name="udp 50%", rate="50%")]},
                "report": {"rows": ["load"], "metrics": LATENCY_METRICS}})
    return out


def fraction_of(rate):
    """0.5 from "50%"; None for a rate that is not a share of full speed"""
    m = re.fullmatch(r"(\d+(?:\.\d+)?)%", str(rate))
    return float(m.group(1)) / 100.0 if m else None


def full_speed_sig(cell):
    """what a cell at a share of full speed has in common with the cell at
    full speed it is a share of"""
    return (cell["scenario"], cell["variant"],
            tuple(sorted((k, str(v)) for k, v in traffic_of(cell).items() if k != "rate")))


def rate_of(cell, full, runs):
    """The cell to run: one whose rate is a share ("50%") gets that share
    of the median packet rate its full-speed sibling (full: sig -> key)
    reached so far in this run (its runs in this and the earlier rounds),
    per direction."""
    share = fraction_of(traffic_of(cell).get("rate"))
    if share is None:
        return cell
    key = full.get(full_speed_sig(cell))
    done = [r["metrics"]["mpps"] for r in runs.get(key, []) if r["metrics"].get("mpps")]
    check(done, "%s: no run at full speed yet to take %d%% of" % (cell_key(cell), share * 100))
    dirs = 2 if traffic_of(cell).get("dir") == "both" else 1
    pps = int(share * statistics.median(done) * 1e6 / dirs)
    point = {k: (dict(v, rate=max(pps, 1)) if isinstance(v, dict) and "rate" in v else v)
             for k, v in cell["point"].items()}
    if "rate" in point and not isinstance(point["rate"], dict):
        point["rate"] = max(pps, 1)
    return dict(cell, point=point)


def label(v):
    """an axis value: a scalar, or a table of generator options with a name"""
    return v["name"] if isinstance(v, dict) else v


def traffic_of(cell):
    """the generator options of a cell, table-valued axes expanded"""
    t = {}
    for k, v in cell["point"].items():
        if isinstance(v, dict):
            t.update({k2: v2 for k2, v2 in v.items() if k2 != "name"})
        else:
            t[k] = v
    return t


def axis_value(cell, name):
    """an axis of the point, a vfwd knob, or the variant"""
    if name == "variant":
        return cell["variant"]
    if name in cell["point"]:
        return label(cell["point"][name])
    return cell["knobs"].get(name)


def cell_key(c):
    return "%s|%s|%s" % (c["scenario"], c["variant"],
                         ",".join("%s=%s" % (k, label(v)) for k, v in c["point"].items()))


def pipeline_lcores(args, knobs=None, queues=1):
    """the polling lcores a cell's vfwd needs: its knob workers, else one
    per queue of the generator (traffic queues = N), else the pipeline's"""
    if knobs and knobs.get("workers"):
        return int(knobs["workers"])
    if queues > 1:
        return queues
    if "--pipeline" in args:
        r, w = args[args.index("--pipeline") + 1].split(":")
        return int(r) + int(w)
    return 1


# ---- one run of a cell ----



class Forwarder:
    """vfwd, testpmd or OVS on the generator topology."""

    def __init__(self, env, cell, cpus, tso, gen_cpus=1):
        self.env, self.cell, self.kind = env, cell, cell["fwd"]
        fwd_vdevs, self.gen_vdevs = gen_topology(env, tso)
        nq = int(traffic_of(cell).get("queues", 1))
        if nq > 1:  # the generator's queues: as many on the vhost port
            fwd_vdevs[0] += ",queues=%d" % nq
            self.gen_vdevs[0] += ",queues=%d" % nq
        if cell.get("vm_ring"):
            # the guest's ring: merged GRO frames need room (QEMU's
            # rx_queue_size; virtio-user's default is 256)
            self.gen_vdevs[0] += ",queue_size=%d" % cell["vm_ring"]
        # the generator on cpus[:gen_cpus], the polling lcores on the rest
        # (dealt out in turn when there are more lcores than CPUs)
        own = cpus[gen_cpus:] or cpus[-1:]
        workers = [own[i % len(own)]
                   for i in range(pipeline_lcores(cell["vfwd_args"], cell["knobs"], nq))]
        lcores = "0@%d," % cpus[0] + ",".join("%d@%d" % (i + 1, c) for i, c in enumerate(workers))
        self.thread_prefix = vfwdtest.LCORE_THREADS
        self.ovs = None
        if self.kind == "vfwd":
            args = list(cell["vfwd_args"])
            if nq > 1 and "--rxq" not in args:
                args += ["--rxq", str(nq)]
            if "--pipeline" in args:
                w = args[args.index("--pipeline") + 1].split(":")[1]
                args += ["--txq", w]
            self.p = env.vfwd(fwd_vdevs, ["--stats-format", "json"] + args, lcores=lcores,
                              name="fwd")
            self.p.wait_output("forwarding", 30)
            self.prefix = env.prefixes[-1]
            self.tel = Telemetry(self.prefix)
        elif self.kind.startswith("testpmd"):
            args = ["--nb-cores=1", "--burst=32", "--record-core-cycles"]
            if self.kind == "testpmd-io":
                args.append("--forward-mode=io")
                self.p = env.testpmd(fwd_vdevs, args, lcores, name="fwd")
                self.p.wait_output("Press enter to exit", 30)
            else:
                cmds = env.path("testpmd.cmd")
                with open(cmds, "w") as f:
                    # GRO on what each port receives; TSO toward the vhost
                    # port so merged frames leave as GSO frames
                    f.write("port stop all\nset fwd csum\nset port 0 gro on\nset port 1 gro on\n"
                            "port start all\nstart\n")
                self.p = env.testpmd(fwd_vdevs, ["-i", "--cmdline-file=" + cmds] + args,
                                     lcores, name="fwd")
                self.p.wait_output("testpmd>", 30)
        elif self.kind == "ovs":
            import ovs
            memif = fwd_vdevs[1].split("socket=")[1]
            self.ovs = ovs.Ovs(env, memif, pmd_cpu=workers[0], main_cpu=cpus[0])
            self.thread_prefix = "pmd"
            self.p = self.ovs.proc
            self.gen_vdevs = [ovs_vdev(self.ovs, self.gen_vdevs[0]), self.gen_vdevs[1]]

    def snapshot(self):
        snap = {"ticks": thread_cpu_ticks(self.p.pid, self.thread_prefix), "t": time.monotonic()}
        if self.kind == "vfwd":
            snap["vfwd"] = vfwd_snapshot(self.tel)
        elif self.kind == "ovs":
            snap["ovs"] = self.ovs.pmd_stats()
        return snap

    def cost(self, a, b):
        out = {"cpu_pct": cpu_pct(a["ticks"], b["ticks"], b["t"] - a["t"])}
        if self.kind == "vfwd":
            out.update(vfwd_cost(a["vfwd"], b["vfwd"]))
        elif self.kind == "ovs":
            pa, pb = a["ovs"], b["ovs"]
            pkts = pb["packets_received"] - pa["packets_received"]
            proc = pb["processing_cycles"] - pa["processing_cycles"]
            idle = pb["idle_cycles"] - pa["idle_cycles"]
            out["cyc_pkt"] = proc / pkts if pkts else None
            out["busy_pct"] = [100.0 * proc / (proc + idle)] if proc + idle else [0]
        return out

    def stop(self, out):
        """Stops it (before the generator: the memif PMD); testpmd's whole-run
        cost into out."""
        if self.kind == "vfwd":
            self.tel.close()
            check(self.p.stop(20) == 0, "vfwd exit: %s" % self.p.err()[-800:])
        elif self.kind.startswith("testpmd"):
            try:
                self.p.p.stdin.write(b"stop\nquit\n" if self.kind != "testpmd-io" else b"\n")
                self.p.p.stdin.flush()
            except OSError:
                pass
            self.p.wait(30)
            text = self.p.out()
            busy = re.search(r"\(\w+ cycles=(\d+) / total \w+ packets=(\d+)\)", text)
            acc = text[text.rfind("Accumulated forward statistics"):]
            sent = re.search(r"TX-packets:\s+(\d+)", acc)
            if busy and sent and int(sent.group(1)):
                # testpmd divides by packets received; divide by packets
                # sent, as vfwd does
                out["cyc_pkt"] = int(busy.group(1)) / int(sent.group(1))
        elif self.ovs:
            self.ovs.stop()


def ovs_vdev(o, vdev):
    path = o.vhost_sock
    extra = ",server=1" if getattr(o, "vhost_client_mode", False) else ""
    return re.sub(r"path=[^,]*", "path=%s%s" % (path, extra), vdev)


def gen_args(cell, secs):
    args = []
    for k, v in traffic_of(cell).items():
        if v is True:
            args.append("--" + k)
        elif v is not False:
            args += ["--" + k, str(v)]
    return args + ["--duration", str(secs), "--format", "json", "--linger",
                   "--link-timeout", "20", "--rr-timeout-ms", "200"]


def needs_tso(cell):
    return traffic_of(cell).get("profile") == "tcp"


def metrics_of(rep, cost):
    m = {}
    dirs = rep["dirs"]
    sent = sum(d["sent"] for d in dirs.values())
    lost = sum(d["lost"] for d in dirs.values())
    m["mpps"] = sum(d["pps"] for d in dirs.values()) / 1e6
    m["gbps"] = sum(d["gbps"] for d in dirs.values())
    m["mframes"] = sum(d["frames_ps"] for d in dirs.values()) / 1e6
    m["segs_frame"] = m["mpps"] / m["mframes"] if m["mframes"] else None
    m["loss_pct"] = 100.0 * lost / sent if sent else 0
    m["errors"] = sum(d["reordered"] + d["duplicates"] + d["corrupted"] for d in dirs.values())
    if "rr" in rep:
        rr = rep["rr"]
        m["ktps"] = rr["tps"] / 1e3
        for q in ("p50", "p90", "p99", "p999"):
            m["rtt_" + q] = rr["rtt_us"][q]
        m["mpps"] = m["mframes"] = m["gbps"] = m["segs_frame"] = None
    elif rep["profile"] == "udp":
        lat = next(iter(dirs.values()))["latency_us"]
        for q in ("p50", "p90", "p99", "p999"):
            m["lat_" + q] = lat[q]
    m.update(cost)
    return m


def run_cell(cell, secs, cpus, gen_cpus=1):
    tag = re.sub(r"[^a-z0-9]+", "-", cell_key(cell).lower())[:40]
    with Env("perf-" + tag) as env:
        fwd = Forwarder(env, cell, cpus, needs_tso(cell), gen_cpus)
        gl = ",".join("%d@%d" % (i, c) for i, c in enumerate(cpus[:gen_cpus]))
        g = env.gen(fwd.gen_vdevs, gen_args(cell, secs), lcores=gl, name="gen")
        g.wait_output("running", 40, stream="err")
        t0 = time.monotonic()
        # the middle of the run: past the start, before the sender stops
        warm = min(0.5, secs / 4)
        time.sleep(warm)
        a = fwd.snapshot()
        time.sleep(max(0.1, t0 + secs - 0.15 - time.monotonic()))
        b = fwd.snapshot()
        g.wait_output('"ok"', secs + 60)
        rep = g.last_json()
        cost = fwd.cost(a, b)
        fwd.stop(cost)
        g.stop(20)
        return rep, metrics_of(rep, cost)


def first_line(e):
    return ((str(e) or repr(e)).splitlines() or [repr(e)])[0][:300]


def guest_sessions(order):
    """The guest cells of order grouped by (scenario, forwarder, the
    guest's ring): one session (a forwarder and a guest boot) runs each
    group."""
    groups = {}
    for c in order:
        if c["topology"] == "guest":
            groups.setdefault((c["scenario"], c["fwd"], c.get("ring", ""),
                               tuple(c.get("start_args", []))), []).append(c)
    return list(groups.values())


def run_guest_session(cells_, rnd, secs, cpus, accel):
    """Yields (cell, metrics) or (cell, exception) for each of the cells,
    run on one guest boot in an order that turns with the round."""
    import guest_perf
    k = rnd % len(cells_)
    turn = cells_[k:] + cells_[:k]
    scope = sorted({key for c in cells_ for key in c["knobs"]})
    tag = re.sub(r"[^a-z0-9]+", "-", ("%s-%s" % (cells_[0]["scenario"], cells_[0]["fwd"])).lower())
    try:
        with Env("perfg-" + tag[:30]) as env:
            sess = guest_perf.Session(env, cells_[0]["fwd"], cpus, accel,
                                      ring=cells_[0].get("ring", ""),
                                      base_args=cells_[0].get("start_args", []))
            for c in turn:
                try:
                    m = sess.run_cell(c, scope, secs)
                    m["boot_s"] = sess.boot_s
                    yield c, m
                except Exception as e:  # this cell; the session goes on if both ends live
                    yield c, e
                    if sess.vm.p.poll() is not None or sess.p.p.poll() is not None:
                        raise RuntimeError("the guest or the forwarder is gone after %s"
                                           % cell_key(c)) from e
            sess.close()
    except Exception as e:  # the session itself: every cell not yet run fails
        yield None, e


# ---- results ----

def summarize(values):
    nums = [v for v in values if isinstance(v, (int, float))]
    if not nums:
        return None
    return {"median": statistics.median(nums), "min": min(nums), "max": max(nums)}


def aggregate(runs):
    """per cell: {metric: {median,min,max}}; busy_pct: per lcore medians."""
    out = {}
    for key, rs in runs.items():
        agg = {}
        names = {k for r in rs for k in r["metrics"]}
        for k in names:
            vals = [r["metrics"].get(k) for r in rs]
            if k in LIST_METRICS:
                lists = [v for v in vals if v]
                if lists:
                    agg[k] = [statistics.median(x) for x in zip(*lists)]
                continue
            s = summarize(vals)
            if s:
                agg[k] = s
        out[key] = agg
    return out


def fmt(s, f):
    if s is None:
        return "-"
    if s["max"] - s["min"] < 1e-9 or len(f % s["median"]) > 9:
        return f % s["median"]
    return (f + " (" + f + "-" + f + ")") % (s["median"], s["min"], s["max"])


def machine_label():
    model = ""
    try:
        with open("/proc/cpuinfo") as f:
            m = re.search(r"model name\s*:\s*(.*)", f.read())
            model = m.group(1).strip() if m else ""
    except OSError:
        pass
    return "%d vCPUs (%s), Linux %s, %s" % (ncpus(), model or platform.machine(),
                                           platform.release(),
                                           datetime.date.today().isoformat())


def cell_metrics(s):
    return s.get("report", {}).get("metrics", ["mpps", "cyc_pkt", "busy_pct", "cpu_pct"])


def markdown(scens, cellmap, agg, args, notes):
    lines = ["# dpdk-vfwd perf runs", "",
             "Machine: %s. Cells of %g s, %d rounds interleaved; median (min-max) of the rounds."
             % (args.machine, args.secs, args.rounds),
             "Reproduce: `%s`" % " ".join(["bench/perf.py"] + args.argv), ""]
    for s in scens:
        sid = s["id"]
        mets = cell_metrics(s)
        rows = s.get("report", {}).get("rows", list(axes(s.get("traffic", {}))))
        lines += ["## %s: %s" % (sid, s.get("title", sid)), ""]
        if s.get("about"):
            lines += [s["about"].strip(), ""]
        lines += ["> " + n for n in notes.get(sid, [])]
        if notes.get(sid):
            lines.append("")
        head = rows + ["forwarder"] + [METRICS[m][0] for m in mets]
        first = mets[0]
        head.append("%s vs %s" % (METRICS[first][0], "first row of the point"))
        lines += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        base = {}
        for c in cellmap[sid]:
            a = agg.get(cell_key(c), {})
            point = tuple(str(axis_value(c, r)) for r in rows)
            cols = list(point) + [c["variant"]]
            for m in mets:
                if m in LIST_METRICS:
                    cols.append("/".join("%.0f" % x for x in a[m]) if a.get(m) else "-")
                else:
                    cols.append(fmt(a.get(m), METRICS[m][1]))
            v = a.get(first, {}).get("median") if a.get(first) else None
            if point not in base and v:
                base[point] = v
            cols.append("%.2fx" % (v / base[point]) if v and base.get(point) else "-")
            if a.get("errors") and a["errors"]["max"] > 0:
                cols[-1] += " (reorder/dup/corrupt: %d)" % a["errors"]["max"]
            lines.append("| " + " | ".join(cols) + " |")
        for p in plots_of(s):
            lines += ["", "![%s](%s)" % (p["title"], p["file"])]
        lines.append("")
    return "\n".join(lines)


def plots_of(s):
    out = []
    for i, p in enumerate(s.get("report", {}).get("plots", [])):
        q = dict(p)
        q.setdefault("title", "%s: %s" % (s["id"], ", ".join(p["y"])))
        q["file"] = "%s-%d.svg" % (s["id"], i + 1)
        out.append(q)
    return out


def plot(s, cellmap, agg, outdir):
    """gnuplot (SVG): y metrics against the x axis, a line per series."""
    gp = shutil.which("gnuplot")
    made = []
    for p in plots_of(s):
        series = {}
        for c in cellmap[s["id"]]:
            if p.get("where") and any(str(axis_value(c, k)) != str(v)
                                      for k, v in p["where"].items()):
                continue
            x = axis_value(c, p["x"])
            if x is None:
                continue
            if p.get("series", "variant") == "none":
                skey = s["id"]
            elif p.get("series", "variant") == "variant":
                skey = c["variant"]
            else:
                skey = "%s=%s" % (p["series"], axis_value(c, p["series"]))
            a = agg.get(cell_key(c), {})
            for y in p["y"]:
                if a.get(y):
                    if len(p["y"]) == 1:
                        label = skey
                    elif p.get("series") == "none":
                        label = METRICS[y][0]
                    else:
                        label = "%s %s" % (skey, METRICS[y][0])
                    series.setdefault(label, []).append((x, a[y]["median"], a[y]["min"],
                                                         a[y]["max"]))
        if not series:
            continue
        base = os.path.join(outdir, p["file"][:-4])
        xs = []
        for pts in series.values():
            for x, *_ in pts:
                if x not in xs:
                    xs.append(x)
        numeric = all(isinstance(x, (int, float)) for x in xs) and not p.get("categorical")
        with open(base + ".dat", "w") as f:
            for label, pts in series.items():
                f.write("# %s\n" % label)
                for x, med, lo, hi in pts:
                    f.write("%s %g %g %g\n" % (x if numeric else xs.index(x), med, lo, hi))
                f.write("\n\n")
        script = ['set terminal svg size 800,480 dynamic enhanced font "sans,11"',
                  'set output "%s.svg"' % base, 'set title "%s" noenhanced' % p["title"],
                  'set xlabel "%s" noenhanced' % p.get("xlabel", p["x"]),
                  'set ylabel "%s" noenhanced' % p.get("ylabel", METRICS[p["y"][0]][0]),
                  "set key top left noenhanced box opaque", "set grid"]
        script.append("set logscale y 10" if p.get("logy") else "set yrange [0:*]")
        if p.get("logx") and numeric:
            script += ["set logscale x 10", 'set format x "%.0s%c"']
        if not numeric:
            script.append("set xtics (%s)" % ", ".join('"%s" %d' % (x, i) for i, x in enumerate(xs)))
            script.append("set xrange [-0.5:%g]" % (len(xs) - 0.5))
        parts = ['"%s.dat" index %d using 1:2:3:4 with yerrorlines title "%s"' % (base, i, label)
                 for i, label in enumerate(series)]
        script.append("plot " + ", ".join(parts))
        with open(base + ".gp", "w") as f:
            f.write("\n".join(script) + "\n")
        if gp:
            r = subprocess.run([gp, base + ".gp"], capture_output=True, text=True, timeout=60)
            if r.returncode == 0:
                made.append(base + ".svg")
            else:
                log("plot %s: gnuplot: %s" % (base, r.stderr[-400:]))
        else:
            log("plot %s: no gnuplot (apt install gnuplot-nox); data and script kept" % base)
    return made


def write_csv(path, scens, cellmap, agg):
    mets = list(METRICS)
    keys = sorted({k for s in scens for k in axes(s.get("traffic", {}))})
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        head = ["scenario", "variant", "forwarder"] + keys
        for m in mets:
            head += [m] if m in LIST_METRICS else [m, m + "_min", m + "_max"]
        head.append("errors")
        w.writerow(head)
        for s in scens:
            for c in cellmap[s["id"]]:
                a = agg.get(cell_key(c), {})
                row = [s["id"], c["variant"], c["fwd"]] + [label(c["point"].get(k, "")) for k in keys]
                for m in mets:
                    if m in LIST_METRICS:
                        row.append("/".join("%.1f" % x for x in a.get(m, [])))
                    elif a.get(m):
                        row += ["%.6g" % a[m]["median"], "%.6g" % a[m]["min"], "%.6g" % a[m]["max"]]
                    else:
                        row += ["", "", ""]
                row.append("%d" % a["errors"]["max"] if a.get("errors") else "")
                w.writerow(row)


def plan(scens, baselines, have_ovs, why, ncpu, gen_cpus=1):
    """{scenario: [cells]} and {scenario: [notes]}, saying loudly when
    there are too few CPUs"""
    cellmap, notes = {}, {}
    for s in scens:
        cs = cells(s, baselines)
        if s.get("topology") == "guest":
            cellmap[s["id"]] = cs
            continue
        if not have_ovs and any(c["fwd"] == "ovs" for c in cs):
            notes.setdefault(s["id"], []).append("OVS-DPDK left out: %s" % why)
            cs = [c for c in cs if c["fwd"] != "ovs"]
        cellmap[s["id"]] = cs
        need = gen_cpus + max(pipeline_lcores(c["vfwd_args"], c["knobs"],
                                              int(traffic_of(c).get("queues", 1))) for c in cs)
        if need > ncpu:
            msg = ("WARNING: %s needs %d CPUs (the generator's %d + %d polling lcores), this "
                   "machine has %d: lcores share CPUs and those cells understate what "
                   "they would do" % (s["id"], need, gen_cpus, need - gen_cpus, ncpu))
            log(msg)
            notes.setdefault(s["id"], []).append(msg)
    return cellmap, notes


def write_outputs(out, scens, cellmap, runs, raw, args, notes):
    agg = aggregate(runs)
    with open(os.path.join(out, "results.json"), "w") as f:
        json.dump({"machine": args.machine, "args": {k: v for k, v in vars(args).items()
                                                     if k != "machine"},
                   "scenarios": scens, "cellmap": cellmap, "notes": notes,
                   "aggregate": agg, "runs": raw}, f, indent=1, default=str)
    write_csv(os.path.join(out, "results.csv"), scens, cellmap, agg)
    for s in scens:
        plot(s, cellmap, agg, out)
    with open(os.path.join(out, "results.md"), "w") as f:
        f.write(markdown(scens, cellmap, agg, args, notes))


def replot(args):
    """The tables and plots of an earlier run again (e.g. after editing a
    scenario's [report]), from its results.json."""
    path = os.path.join(args.replot, "results.json")
    with open(path) as f:
        res = json.load(f)
    scens = []
    for old in res["scenarios"]:
        try:  # the scenario's current [report], if it still exists
            s = load_scenario(old["id"])
            old["report"] = s.get("report", old.get("report", {}))
        except (OSError, TestFailure):
            pass
        scens.append(old)
    runs = {}
    for r in res["runs"]:
        if "metrics" in r:
            runs.setdefault(r["cell"], []).append({"metrics": r["metrics"]})
    for k in ("secs", "rounds", "argv"):
        setattr(args, k, res["args"][k])
    args.machine = res["machine"]
    if "cellmap" in res:
        cellmap, notes = res["cellmap"], res.get("notes", {})
    else:  # written before cellmap was kept: the cells that ran
        cellmap, notes = plan(scens, True, True, "", int(res["machine"].split()[0]))
        cellmap = {k: [c for c in v if cell_key(c) in runs] for k, v in cellmap.items()}
    write_outputs(args.replot, scens, cellmap, runs, res["runs"], args, notes)
    log("tables and plots again in %s" % args.replot)
    return 0


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scenarios", default="all",
                    help="comma-separated ids of config/perf/*.toml, or all")
    ap.add_argument("--secs", type=float, default=2.0, help="seconds of traffic per cell")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--out", default=None, help="results folder (results/perf-<time>)")
    ap.add_argument("--no-baselines", action="store_true")
    ap.add_argument("--topology", choices=("all", "guest", "gen"), default="all",
                    help="guest: only the real-guest cells ([guest] of a scenario); gen: only "
                    "the generator's (the polling peer); all: both")
    ap.add_argument("--gen-cpus", type=int, default=1,
                    help="CPUs of the generator (its lcores), the first of this process's; "
                    "the forwarder's polling lcores get the others")
    ap.add_argument("--guest-secs", type=int, default=3,
                    help="seconds of each guest workload (whole, >= 1: iperf3's -t)")
    ap.add_argument("--list", action="store_true", help="list the cells and exit")
    ap.add_argument("--replot", metavar="DIR",
                    help="no runs: tables and plots again from DIR/results.json into DIR")
    args = ap.parse_args(argv)
    args.argv = argv
    check(args.guest_secs >= 1 and args.gen_cpus >= 1, "--guest-secs and --gen-cpus: 1 or more")
    if args.replot:
        return replot(args)
    ids = sorted(os.path.splitext(f)[0] for f in os.listdir(SCENARIOS) if f.endswith(".toml"))
    if args.scenarios != "all":
        want = args.scenarios.split(",")
        for w in want:
            check(w in ids, "no scenario %s (have: %s)" % (w, ", ".join(ids)))
        ids = want
    else:
        ids = [i for i in ids if not load_scenario(i).get("manual")]
    loaded = [load_scenario(i) for i in ids]
    # the real-guest tables first: they lead the report
    scens = ([guest_scenario(s) for s in loaded if "guest" in s and args.topology != "gen"] +
             [s for s in loaded if args.topology != "guest" and
              ("traffic" in s or "variants" in s or "vfwd" in s)] +
             [latency_scenario(s) for s in loaded if "latency" in s and args.topology != "guest"])
    check(scens, "no cells: %s with --topology %s" % (",".join(ids), args.topology))
    have_ovs = True
    try:
        import ovs
        have_ovs, why = ovs.available()
    except ImportError as e:
        have_ovs, why = False, str(e)
    cpus = sorted(os.sched_getaffinity(0))
    cellmap, notes = plan(scens, not args.no_baselines, have_ovs, why, len(cpus), args.gen_cpus)
    accel = "tcg"
    if any(s.get("topology") == "guest" for s in scens) and not args.list:
        import guest_perf
        ok, why_not = guest_perf.have_tools()
        check(ok, "guest cells: %s" % why_not)
        accel, why_accel = guest_perf.accel()
        for s in scens:
            if s.get("topology") == "guest":
                host, vm, fwd = guest_perf.cpu_plan(cpus)
                notes.setdefault(s["id"], []).append(
                    "QEMU %s (%s); %g s per workload; one guest boot per forwarder and round, "
                    "vfwd's variants typed at its prompt (`set ...`) in turn; the host side on "
                    "CPU %d, the guest on CPU %d, the forwarder's polling lcore on CPU %d."
                    % (accel.upper(), why_accel, args.guest_secs, host, vm, fwd))
    order = [c for s in scens for c in cellmap[s["id"]]]
    if args.list:
        for c in order:
            log(cell_key(c))
        return 0
    args.machine = machine_label()
    out = args.out or os.path.join(ROOT, "results",
                                   "perf-" + datetime.datetime.now().strftime("%Y%m%d-%H%M%S"))
    os.makedirs(out, exist_ok=True)
    log("%d cells x %d rounds of %g s into %s" % (len(order), args.rounds, args.secs, out))
    runs = {cell_key(c): [] for c in order}
    raw = []
    t_start = time.monotonic()
    gen_order = [c for c in order if c["topology"] != "guest"]
    # the full-speed cell of each cell run at a share of it (latency_scenario)
    full = {full_speed_sig(c): cell_key(c) for c in gen_order
            if traffic_of(c).get("rate") == "max"}
    sessions = guest_sessions(order)
    for r in range(args.rounds):
        # interleaved: every cell once per round, each round starting elsewhere
        for cells_ in sessions[r % max(1, len(sessions)):] + sessions[:r % max(1, len(sessions))]:
            done = set()
            for c, m in run_guest_session(cells_, r, args.guest_secs, cpus, accel):
                todo = [c] if c else [x for x in cells_ if cell_key(x) not in done]
                for x in todo:
                    key = cell_key(x)
                    done.add(key)
                    if isinstance(m, Exception):
                        log("round %d %s: FAILED %s" % (r + 1, key, first_line(m)))
                        raw.append({"cell": key, "round": r + 1, "error": str(m)[-2000:]})
                        continue
                    runs[key].append({"metrics": m})
                    raw.append({"cell": key, "round": r + 1, "metrics": m})
                    log("round %d %-60s %s" % (r + 1, key[:60], "  ".join(
                        "%s=%s" % (k2, ("%.3g" % v) if isinstance(v, float) else v)
                        for k2, v in m.items() if k2 in ("mbit", "tps", "g_irq_frame",
                                                         "g_rx_mb", "cpu_pct") and v is not None)))
        k = (r * max(1, len(gen_order) // max(1, args.rounds))) % max(1, len(gen_order))
        for c in gen_order[k:] + gen_order[:k]:
            key = cell_key(c)
            try:
                rep, m = run_cell(rate_of(c, full, runs), args.secs, cpus, args.gen_cpus)
            except Exception as e:  # one failed cell does not end the run
                log("round %d %s: FAILED %s" % (r + 1, key, first_line(e)))
                raw.append({"cell": key, "round": r + 1, "error": str(e)[-2000:]})
                continue
            runs[key].append({"metrics": m})
            raw.append({"cell": key, "round": r + 1, "metrics": m, "gen": rep})
            log("round %d %-60s %s" % (r + 1, key[:60], "  ".join(
                "%s=%s" % (k2, ("%.3g" % v) if isinstance(v, float) else v)
                for k2, v in m.items() if k2 in ("mpps", "ktps", "cyc_pkt", "cpu_pct", "loss_pct")
                and v is not None)))
        # the tables so far after every round: a run cut short keeps them
        write_outputs(out, scens, cellmap, runs, raw, args, notes)
    failed = sum(1 for x in raw if "error" in x)
    log("done in %.0f s: %s (%d of %d runs failed)" % (time.monotonic() - t_start, out, failed,
                                                     len(raw)))
    return 1 if failed == len(raw) else 0


if __name__ == "__main__":
    # SIGTERM (timeout, a person) ends the run as an exception would: the
    # forwarders, guests and namespaces of the cell in flight are cleaned up
    import signal
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    sys.exit(main())
