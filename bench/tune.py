#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The tuner: searches a running dpdk-vfwd's batching and napi knobs for a
latency or a CPU target, under a load from dpdk-vfwd-gen.

    dpdk-vfwd-gen(virtio-user) <-> dpdk-vfwd -i (net_vhost0 | net_memif0) <-> dpdk-vfwd-gen(memif)

One vfwd runs the whole search on its prompt: each trial types the knobs
that differ from the last (`set <knob> <value>`), then one generator run of
--trial-secs sends UDP at --rate and reports the one-way latency
percentiles of every frame (one process stamps and reads the clock); the
cost is the CPU % of vfwd's polling threads from /proc over the middle of
the run (what a sleeping napi worker saves shows there, not in busy
cycles), with vfwd's busy % and cycles/pkt beside it.

--load guest puts a QEMU Linux guest on the vhost port and a tap in a
namespace on the other (bench/guest_perf.py, one boot for the search):
a trial is --workload (request/response, `rr N`: N transactions in
flight) and the latency its round trip through vfwd both ways.

    --p99-us N    the least CPU whose p99 is at most N us
    --cpu-pct N   the lowest p99 within N % CPU

A trial is feasible when it meets the target and lost no more than
--max-loss-pct of what was sent. Search: the defaults first (the
reference), then coordinate descent (each candidate value of a knob tried
with the others at the best so far, the best kept): for each rx mode its
own knobs (busy-poll-us, defer-polls, sleep-max-us, nap-wake), from the
defaults, and again from the mode's best miss where the first descent
ended on a setting that met the target (knobs that save only together);
from the best mode the knobs all modes have (burst, tx-batch,
tx-flush-us, tx-hold-idle); then up to two passes over every knob, until one changes
nothing or the trials or the time (--max-minutes, the search's alone) run
out. The two best settings and the defaults then run --repeats more
times each, interleaved (within --max-trials: the search gets what the
repeats leave). CPU figures
within 2 points, and p99 figures within 10%, count as equal: the other
figure decides. A trial that misses by no more than 1.5x but would beat the
defaults runs once more (a host's hiccup sets a short trial's p99), the
better kept for the search; the confirmation's medians decide the choice,
and the defaults stay unless a setting beats them there. The one with
the better medians wins (a lucky trial is not a result).

What it writes (--out, default /tmp/vfwd-tune-PID): tune.cmd, the chosen
settings as a command file for `dpdk-vfwd --cmdline-file` (`start` and the
knobs), each with the kernel knob a reader would set for vhost_net + tap
beside it (doc/modes.md); trials.md / trials.csv / trials.json, every
trial. Run alone: it needs every CPU of the machine.

Usage: bench/tune.py (--p99-us N | --cpu-pct N) [--load gen|guest] [--workload "rr 1"]
                     [--rate 1000000] [--size 64]
                     [--trial-secs 3] [--max-trials 40] [--max-minutes 30]
                     [--repeats 3] [--max-loss-pct 1] [--out DIR]
"""

import argparse
import csv
import json
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "test"))
sys.path.insert(0, HERE)
import perf  # noqa: E402
import vfwdtest  # noqa: E402
from vfwdtest import (Env, Telemetry, TestFailure, check, cpu_pct, gen_topology,  # noqa: E402
                      ncpus, thread_cpu_ticks, vfwd_cost, vfwd_snapshot)

# The knobs searched, in the order tried, with their candidate values and
# when they matter (a knob that does nothing in the settings so far is not
# tried: busy-poll-us while polling). Values as the prompt takes them.
NAPI = ("napi", "adaptive")
SPACE = [
    ("rx-mode", ["poll", "napi", "adaptive"], lambda s: True),
    ("busy-poll-us", [0, 10, 25, 50, 100], lambda s: s["rx-mode"] == "napi"),
    ("defer-polls", [0, 4, 32, 128], lambda s: s["rx-mode"] == "napi"),
    ("sleep-max-us", [50, 200, 1000, 10000], lambda s: s["rx-mode"] in NAPI),
    ("nap-wake", ["timer", "kick"], lambda s: s["rx-mode"] in NAPI),
    ("burst", [16, 32, 64, 128], lambda s: True),
    ("tx-batch", [1, 4, 16, 32], lambda s: True),
    ("tx-flush-us", [5, 20, 50, 100], lambda s: int(s["tx-batch"]) > 1),
    ("tx-hold-idle", ["off", "on"], lambda s: int(s["tx-batch"]) > 1),
    ("napi-weight", [16, 64, 256], lambda s: s["rx-mode"] in NAPI),
]
SPACE_OF = {k: (v, f) for k, v, f in SPACE}
# a mode's own knobs, searched first for each mode; then the ones all have
MODE_KNOBS = ["busy-poll-us", "defer-polls", "sleep-max-us", "nap-wake"]
SHARED_KNOBS = ["burst", "tx-batch", "tx-flush-us", "tx-hold-idle"]
KNOBS = [k for k, _, _ in SPACE]

# What a reader would set for the same trade on vhost_net + tap (the twin
# of each knob, doc/modes.md and ../shared/ref/kernel-knobs.md).
KERNEL = {
    "rx-mode": {
        "poll": "threaded NAPI busy poll: echo busy-poll > napi-set threaded (6.19), "
                "or net.core.busy_poll/busy_read high enough never to sleep",
        "napi": "NAPI with interrupts: the default; see napi_defer_hard_irqs and "
                "gro_flush_timeout",
        "adaptive": "epoll busy poll with irq-suspend-timeout (6.13): poll while busy, "
                    "interrupts once idle",
    },
    "busy-poll-us": "sysctl net.core.busy_poll=%s net.core.busy_read=%s",
    "defer-polls": "echo %s > /sys/class/net/tapX/napi_defer_hard_irqs",
    "sleep-max-us": "gro_flush_timeout, the re-poll timer: echo $((%s * 1000)) > "
                    "/sys/class/net/tapX/gro_flush_timeout",
    "nap-wake": {
        "timer": "napi_defer_hard_irqs > 0 with gro_flush_timeout: interrupts stay masked "
                 "while the timer re-polls",
        "kick": "napi_defer_hard_irqs 0: every interrupt schedules the poll",
    },
    "burst": "VHOST_NET_BATCH (%s; a constant of drivers/vhost/net.c, 64)",
    "tx-batch": "ethtool -C tapX rx-frames %s (vhost_net tx batching)",
    "tx-flush-us": "none: tun sends a batch when vhost_net has no more (MSG_MORE); "
                   "%s us here",
    "tx-hold-idle": {
        "off": "vhost_net's way: a batch goes when the ring has no more",
        "on": "none in vhost_net; OVS-DPDK's other_config:tx-flush-interval",
    },
    "napi-weight": "the driver's NAPI weight (%s; tun's is NAPI_POLL_WEIGHT, 64); "
                   "sysctl net.core.dev_weight for the backlog",
}


def log(msg):
    print(msg, flush=True)


def kernel_twin(knob, value):
    t = KERNEL[knob]
    if isinstance(t, dict):
        return t[str(value)]
    return t.replace("%s", str(value))


def key_of(s):
    return tuple(str(s[k]) for k in KNOBS)


def label_of(s, base):
    """The knobs of s that differ from base, as 'knob=value ...'."""
    d = ["%s=%s" % (k, s[k]) for k in KNOBS if str(s[k]) != str(base[k])]
    return " ".join(d) or "defaults"


class Bench:
    """vfwd -i on the generator topology; trial() runs one setting."""

    def __init__(self, env, args):
        self.env, self.args = env, args
        cpus = list(range(ncpus()))
        self.fwd_vdevs, self.gen_vdevs = gen_topology(env)
        # the generator and vfwd's main lcore on the first CPU, the polling
        # lcore on the last (one CPU: both there)
        self.gen_cpu, fwd_cpu = cpus[0], cpus[-1]
        argv = env.vfwd_argv(self.fwd_vdevs, ["-i", "--stats-format", "json"],
                             lcores="0@%d,1@%d" % (self.gen_cpu, fwd_cpu), name="fwd")
        self.p = vfwdtest.PtyProc(env, "fwd", argv)
        self.p.expect(r"vfwd> ", 30)
        out = self.p.command("start")
        check("forwarding started" in out, "vfwd start: %s" % out[-800:])
        knobs = self.p.command_json("show config json")["knobs"]
        self.defaults = {k: knob_value(knobs[k]) for k in KNOBS}
        self.current = dict(self.defaults)
        self.tel = Telemetry(env.prefixes[-1])

    def apply(self, s):
        # rx-mode first: a napi knob set while polling is kept all the same
        for k in KNOBS:
            if str(s[k]) == str(self.current[k]):
                continue
            out = self.p.command("set %s %s" % (k, s[k]))
            check("%s = " % k in out, "set %s %s: %s" % (k, s[k], out[-400:]))
            self.current[k] = s[k]

    def trial(self, s):
        """Runs setting s once: its metrics."""
        a = self.args
        self.apply(s)
        g = self.env.gen(self.gen_vdevs,
                         ["--profile", "udp", "--size", str(a.size), "--rate", str(a.rate),
                          "--duration", str(a.trial_secs), "--format", "json",
                          "--link-timeout", "20"],
                         lcores="0@%d" % self.gen_cpu, name="gen")
        try:
            g.wait_output("running", 40, stream="err")
            t0 = time.monotonic()
            # the middle of the run: past the start, before the sender stops
            time.sleep(min(0.5, a.trial_secs / 4))
            snap_a = (thread_cpu_ticks(self.p.p.pid), time.monotonic(), vfwd_snapshot(self.tel))
            time.sleep(max(0.1, t0 + a.trial_secs - 0.2 - time.monotonic()))
            snap_b = (thread_cpu_ticks(self.p.p.pid), time.monotonic(), vfwd_snapshot(self.tel))
            g.wait_output('"ok"', a.trial_secs + 60)
            rep = g.last_json()
        finally:
            g.stop(20)
        cost = {"cpu_pct": cpu_pct(snap_a[0], snap_b[0], snap_b[1] - snap_a[1])}
        cost.update(vfwd_cost(snap_a[2], snap_b[2]))
        m = perf.metrics_of(rep, cost)
        if not any(d["sent"] for d in rep["dirs"].values()):
            m["loss_pct"] = 100.0  # nothing sent: no result, not a lossless one
        m["busy_pct"] = m["busy_pct"][0] if m["busy_pct"] else None
        return m

    def close(self):
        self.tel.close()
        try:
            self.p.command("stop", 20)
        except TestFailure:
            pass
        self.p.send("quit")
        self.p.wait(20)


class GuestBench:
    """vfwd -i between a QEMU Linux guest and a tap (bench/guest_perf.py's
    session, one boot for the whole search); a trial is one run of a guest
    workload (request/response by default: its round trip is the latency,
    both ways through vfwd and the guest's stack)."""

    def __init__(self, env, args):
        import guest_perf
        ok, why = guest_perf.have_tools()
        check(ok, why + " (usertools/setup.sh installs it)")
        kind, _ = guest_perf.parse_workload(args.workload)[:2]
        check(kind == "rr", "--workload '%s': the tuner's guest load is request/response "
              "(rr N): its round trip is the latency" % args.workload)
        self.args = args
        self.sess = guest_perf.Session(env, "vfwd", list(range(ncpus())),
                                       accel_kind=guest_perf.accel()[0])
        self.defaults = {k: knob_value(self.sess.defaults[k]) for k in KNOBS}
        self.current = self.sess.current

    def trial(self, s):
        a = self.args
        g = self.sess.run_cell({"knobs": s, "point": {"workload": a.workload}}, KNOBS,
                               a.trial_secs)
        m = {"cpu_pct": g["cpu_pct"], "loss_pct": 0.0, "mpps": None, "tps": g.get("tps"),
             "cyc_pkt": g.get("cyc_pkt"), "g_irq_s": g.get("g_irq_s"),
             "busy_pct": g["busy_pct"][0] if g.get("busy_pct") else None}
        for q in ("p50", "p90", "p99", "p999"):
            m["lat_" + q] = g["rtt_" + q]
        return m

    def close(self):
        self.sess.close()


def knob_value(v):
    if v is True:
        return "on"
    if v is False:
        return "off"
    return v


# CPU % figures closer than this are the same cost: /proc counts clock
# ticks (100 a second: 0.4% of a 2.5 s window) and a polling thread reads
# 99.6-100.2 from trial to trial
CPU_TIE_PCT = 2.0
# p99 figures within this share of each other are the same latency
P99_TIE = 0.10
# a trial that misses the target by no more than this factor, and would
# beat the reference, is run a second time
NEAR_MISS = 1.5


class Search:
    def __init__(self, bench, args):
        self.b, self.args = bench, args
        self.trials = []
        self.seen = {}  # settings key -> metrics of its first trial
        self.reference = None  # the defaults' metrics
        self.t0 = time.monotonic()

    def feasible(self, m):
        a = self.args
        if m["loss_pct"] > a.max_loss_pct:
            return False
        if a.p99_us is not None:
            return m["lat_p99"] <= a.p99_us
        return m["cpu_pct"] <= a.cpu_pct

    def miss(self, m):
        """How far an infeasible trial is from the target (1 = on it)."""
        a = self.args
        r = m["lat_p99"] / a.p99_us if a.p99_us is not None else m["cpu_pct"] / a.cpu_pct
        return max(r, 1.0) + max(0.0, m["loss_pct"] - a.max_loss_pct)

    def better(self, m, n):
        """Whether metrics m beat n: a feasible one beats an infeasible one;
        two feasible ones by the objective, the other figure deciding a tie
        (figures within the noise are a tie); two infeasible ones by how far
        they miss."""
        fm, fn = self.feasible(m), self.feasible(n)
        if fm != fn:
            return fm
        if not fm:
            return self.miss(m) < self.miss(n)
        cpu_tie = abs(m["cpu_pct"] - n["cpu_pct"]) < CPU_TIE_PCT
        p99_tie = abs(m["lat_p99"] - n["lat_p99"]) <= P99_TIE * max(m["lat_p99"], n["lat_p99"])
        if self.args.p99_us is not None:
            return m["cpu_pct"] < n["cpu_pct"] if not cpu_tie else m["lat_p99"] < n["lat_p99"]
        return m["lat_p99"] < n["lat_p99"] if not p99_tie else m["cpu_pct"] < n["cpu_pct"]

    def best_of(self, keyed):
        """The best (key, metrics) of a list."""
        best = keyed[0]
        for k in keyed[1:]:
            if self.better(k[1], best[1]):
                best = k
        return best

    def out_of_budget(self):
        a = self.args
        return (len(self.trials) >= a.max_trials or
                time.monotonic() - self.t0 > a.max_minutes * 60)

    def run(self, s, phase):
        try:
            m = self.b.trial(s)
            err = None
        except Exception as e:  # a failed trial is a row of the table, not the end
            m, err = None, ((str(e) or repr(e)).splitlines() or [repr(e)])[0][:200]
        t = {"n": len(self.trials) + 1, "phase": phase, "settings": dict(s),
             "label": label_of(s, self.b.defaults), "metrics": m, "error": err}
        self.trials.append(t)
        if m:
            log("%3d %-13s %-48s p99 %7.1f us  cpu %5.1f%%  busy %5.1f%%  loss %5.2f%%%s"
                % (t["n"], phase, t["label"][:48], m["lat_p99"], m["cpu_pct"],
                   m["busy_pct"] or 0, m["loss_pct"], "" if self.feasible(m) else "  (misses)"))
        else:
            log("%3d %-13s %-48s failed: %s" % (t["n"], phase, t["label"][:48], err))
        return m

    def measure(self, s, phase, cur=None):
        """s's metrics: its first trial's, run now if it had none (None
        when it failed, then or before, or the budget is spent). cur: the
        metrics s competes with (the defaults' if None)."""
        k = key_of(s)
        if k not in self.seen:
            if self.out_of_budget():
                return None
            m = self.run(s, phase)
            # a near miss that would beat what it competes with gets a
            # second trial, the better one kept: one scheduling hiccup of
            # the host sets a 3 s trial's p99 here. The confirmation's
            # medians judge it fairly later.
            if (m is not None and not self.feasible(m) and self.miss(m) <= NEAR_MISS and
                    self.cheaper(m, cur or self.reference) and not self.out_of_budget()):
                again = self.run(s, "retry")
                if again is not None and self.better(again, m):
                    m = again
            self.seen[k] = m  # None: failed, not tried again
        return self.seen[k]

    def cheaper(self, m, ref):
        """Whether m would beat ref on the objective alone."""
        if ref is None:
            return False
        if self.args.p99_us is not None:
            return m["cpu_pct"] < ref["cpu_pct"] - CPU_TIE_PCT
        return m["lat_p99"] < (1 - P99_TIE) * ref["lat_p99"]

    def best_miss(self, mode, ref):
        """The settings of rx-mode mode, tried so far, that missed the
        target but would beat ref (the mode's descent's end) on the
        objective by the most; None if none would, or ref is None or
        itself a miss."""
        if ref is None or not self.feasible(ref):
            return None
        # a miss by loss is no start: dropping is always cheap
        misses = [(dict(zip(KNOBS, k)), m) for k, m in self.seen.items()
                  if m is not None and dict(zip(KNOBS, k))["rx-mode"] == mode and
                  not self.feasible(m) and m["loss_pct"] <= self.args.max_loss_pct and
                  self.cheaper(m, ref)]
        if not misses:
            return None
        if self.args.p99_us is not None:
            return min(misses, key=lambda sm: sm[1]["cpu_pct"])[0]
        return min(misses, key=lambda sm: sm[1]["lat_p99"])[0]

    def coordinate(self, start, knobs, phase):
        """Coordinate descent from start over knobs (those that matter in
        the settings reached), one pass: each knob's values tried with the
        others at the best so far. Returns the best settings."""
        best = dict(start)
        cur = self.measure(best, phase)
        if cur is None:
            return best
        for knob in knobs:
            values, matters = SPACE_OF[knob]
            if not matters(best):
                continue
            pick = best[knob]
            for v in values:
                if str(v) == str(best[knob]):
                    continue
                m = self.measure(dict(best, **{knob: v}), phase, cur)
                if m is not None and self.better(m, cur):
                    cur, pick = m, v
            best[knob] = pick
        return best

    def descend(self):
        """Each rx mode with its own knobs from the defaults (a mode whose
        defaults miss may still meet the target with its knobs turned: a
        descent over all knobs at once would never turn them); then the
        knobs every mode has, from the best mode; then passes over all of
        them while the budget lasts."""
        d = self.b.defaults
        m = self.measure(d, "defaults")
        check(m is not None, "the defaults' trial failed: %s" % self.trials[-1]["error"])
        self.reference = m
        ends = []
        for mode in ("poll",) + NAPI:
            s = self.coordinate(dict(d, **{"rx-mode": mode}), MODE_KNOBS, "mode " + mode)
            if self.seen.get(key_of(s)) is not None:
                ends.append((s, self.seen[key_of(s)]))
            # the saving is in knobs turned together (a short busy-poll
            # window and a short sleep): a descent that kept a dearer
            # point that met the target never turned the rest at the
            # cheap one. Once more from this mode's best miss, over the
            # knobs it shares with that point (turning back the one that
            # made it cheap would only lead there again)
            miss = self.best_miss(mode, self.seen.get(key_of(s)))
            rest = [k for k in MODE_KNOBS if miss is not None and str(miss[k]) == str(s[k])]
            if rest and not self.out_of_budget():
                s = self.coordinate(miss, rest, "mode %s (from a miss)" % mode)
                if self.seen.get(key_of(s)) is not None:
                    ends.append((s, self.seen[key_of(s)]))
        best = self.best_of(ends)[0]
        best = self.coordinate(best, SHARED_KNOBS, "shared")
        for rnd in (1, 2):
            if self.out_of_budget():
                break
            nxt = self.coordinate(best, KNOBS, "pass %d" % rnd)
            if key_of(nxt) == key_of(best):
                break
            best = nxt
        return best

    def confirm(self):
        """The two best settings (and the defaults) again, interleaved: the
        medians decide."""
        ranked = []
        for k, m in self.seen.items():
            if m is None:
                continue
            i = 0
            while i < len(ranked) and not self.better(m, ranked[i][1]):
                i += 1
            ranked.insert(i, (k, m))
        top = [k for k, _ in ranked[:2]]
        dkey = key_of(self.b.defaults)
        cands = top + ([dkey] if dkey not in top else [])
        runs = {k: [] for k in cands}
        for rep in range(self.args.repeats):
            for k in (cands if rep % 2 == 0 else list(reversed(cands))):
                m = self.run(dict(zip(KNOBS, k)), "repeat")
                if m:
                    runs[k].append(m)
        med = {}
        for k, ms in runs.items():
            if ms:
                med[k] = {f: statistics.median(m[f] for m in ms)
                          for f in ("cpu_pct", "lat_p50", "lat_p99", "lat_p999", "loss_pct")}
                med[k]["busy_pct"] = statistics.median(m["busy_pct"] or 0 for m in ms)
                med[k]["runs"] = len(ms)
        # the defaults stay unless a setting beats them on the medians
        # (none does when the defaults' own repeats all failed)
        if dkey not in med:
            return None, med
        picks = [(k, med[k]) for k in [dkey] + top if k in med]
        choice = self.best_of(picks)[0] if picks else None
        if choice is not None and not self.feasible(med[choice]):
            choice = None
        return choice, med


def load_text(args):
    if args.load == "guest":
        return "a QEMU Linux guest and a tap, %s, latency = its round trip" % args.workload
    return "dpdk-vfwd-gen UDP %d B vm->wire at %d pps, latency one-way" % (args.size, args.rate)


def write_outputs(out, search, choice, med, args, commit):
    os.makedirs(out, exist_ok=True)
    b = search.b
    target = ("--p99-us %s" % args.p99_us) if args.p99_us is not None else \
        ("--cpu-pct %s" % args.cpu_pct)
    rows = []
    for t in search.trials:
        m = t["metrics"] or {}
        rows.append([t["n"], t["phase"], t["label"]] +
                    ["%.1f" % m[f] if m.get(f) is not None else "" for f in
                     ("lat_p50", "lat_p99", "lat_p999", "cpu_pct", "busy_pct", "loss_pct")] +
                    ["%.3f" % m["mpps"] if m.get("mpps") is not None else "",
                     "%.0f" % m["cyc_pkt"] if m and m.get("cyc_pkt") else "",
                     ("yes" if search.feasible(m) else "no") if m else (t["error"] or "")])
    head = ["trial", "phase", "settings (vs defaults)", "p50 us", "p99 us", "p99.9 us",
            "CPU %", "busy %", "loss %", "Mpps", "cycles/pkt", "meets target"]
    with open(os.path.join(out, "trials.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(head)
        w.writerows(rows)
    with open(os.path.join(out, "trials.json"), "w") as f:
        json.dump({"target": target, "load": load_text(args), "rate": args.rate,
                   "size": args.size,
                   "trial_secs": args.trial_secs, "commit": commit,
                   "defaults": b.defaults, "trials": search.trials,
                   "choice": dict(zip(KNOBS, choice)) if choice else None,
                   "confirmed": {" ".join(k): v for k, v in med.items()}}, f, indent=1)
    with open(os.path.join(out, "trials.md"), "w") as f:
        f.write("Tuner, target %s, %s, %s s a trial, commit %s\n\n"
                % (target, load_text(args), args.trial_secs, commit))
        f.write("| " + " | ".join(head) + " |\n|" + "---|" * len(head) + "\n")
        for r in rows:
            f.write("| " + " | ".join(str(x) for x in r) + " |\n")
        f.write("\nConfirmed (medians of --repeats interleaved runs):\n\n"
                "| settings | runs | p50 us | p99 us | p99.9 us | CPU % | busy % | loss % |\n"
                "|---|---|---|---|---|---|---|---|\n")
        for k, v in med.items():
            f.write("| %s%s | %d | %.1f | %.1f | %.1f | %.1f | %.1f | %.2f |\n"
                    % (label_of(dict(zip(KNOBS, k)), b.defaults),
                       " (chosen)" if k == choice else "", v["runs"], v["lat_p50"],
                       v["lat_p99"], v["lat_p999"], v["cpu_pct"], v["busy_pct"], v["loss_pct"]))
    with open(os.path.join(out, "tune.cmd"), "w") as f:
        f.write("# dpdk-vfwd settings from bench/tune.py %s (%s), commit %s.\n"
                "#   dpdk-vfwd ... -- --cmdline-file tune.cmd [-i]\n"
                "# Each knob with its kernel twin for vhost_net + tap above it.\n"
                % (target, load_text(args), commit))
        if choice is None:
            f.write("# no setting met the target: the defaults stay\n")
        s = dict(zip(KNOBS, choice)) if choice else dict(b.defaults)
        for k in KNOBS:
            f.write("# kernel: %s\n" % kernel_twin(k, s[k]))
            f.write("set %s %s\n" % (k, s[k]))
        f.write("start\n")


def commit_of():
    try:
        import subprocess
        return subprocess.run(["git", "-C", vfwdtest.ROOT, "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True, timeout=10).stdout.strip() or "?"
    except OSError:
        return "?"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    tgt = ap.add_mutually_exclusive_group(required=True)
    tgt.add_argument("--p99-us", type=float, help="least CPU with a p99 at most this")
    tgt.add_argument("--cpu-pct", type=float, help="lowest p99 within this CPU %%")
    ap.add_argument("--load", choices=("gen", "guest"), default="gen",
                    help="gen: dpdk-vfwd-gen's UDP vm->wire at --rate; guest: a QEMU Linux "
                         "guest and a tap, --workload")
    ap.add_argument("--workload", default="rr 1",
                    help="--load guest: request/response with N in flight (rr N)")
    ap.add_argument("--rate", type=int, default=1000000, help="pps, UDP vm->wire")
    ap.add_argument("--size", type=int, default=64)
    ap.add_argument("--trial-secs", type=float, default=3.0)
    ap.add_argument("--max-trials", type=int, default=40, help="all trials, repeats included")
    ap.add_argument("--max-minutes", type=float, default=30.0)
    ap.add_argument("--repeats", type=int, default=3, help="runs of each of the two best")
    ap.add_argument("--max-loss-pct", type=float, default=1.0)
    ap.add_argument("--out", default="/tmp/vfwd-tune-%d" % os.getpid())
    args = ap.parse_args(argv)
    if (args.p99_us is not None and args.p99_us <= 0) or \
            (args.cpu_pct is not None and args.cpu_pct <= 0) or args.trial_secs < 1 or \
            args.repeats < 1 or args.rate <= 0:
        ap.error("targets, --rate and --repeats must be > 0, --trial-secs >= 1")
    if args.max_trials < 2 + 3 * args.repeats:
        ap.error("--max-trials %d: the confirmation alone takes up to 3 x --repeats (%d), and "
                 "the search at least 2" % (args.max_trials, 3 * args.repeats))
    commit = commit_of()
    # the search's own share of the trials: what the repeats do not take
    repeats_cost = 3 * args.repeats
    search_args = argparse.Namespace(**vars(args))
    search_args.max_trials = args.max_trials - repeats_cost
    choice, med = None, {}
    with Env("tune") as env:
        bench = GuestBench(env, args) if args.load == "guest" else Bench(env, args)
        s = Search(bench, search_args)
        try:
            best = s.descend()
            log("search done after %d trials, best so far: %s"
                % (len(s.trials), label_of(best, bench.defaults)))
            choice, med = s.confirm()
        finally:
            # what ran is written even when the search did not end
            try:
                bench.close()
            finally:
                write_outputs(args.out, s, choice, med, args, commit)
    ref = med.get(key_of(bench.defaults))
    if choice:
        c = med[choice]
        log("chosen: %s: p99 %.1f us, CPU %.1f%% (defaults: p99 %.1f us, CPU %.1f%%: %.2fx)"
            % (label_of(dict(zip(KNOBS, choice)), bench.defaults), c["lat_p99"], c["cpu_pct"],
               ref["lat_p99"] if ref else float("nan"), ref["cpu_pct"] if ref else float("nan"),
               c["cpu_pct"] / ref["cpu_pct"] if ref and ref["cpu_pct"] else float("nan")))
    else:
        log("no setting met the target")
    log("%d trials; %s/tune.cmd, trials.md, trials.csv, trials.json" % (len(s.trials), args.out))
    return 0 if choice and s.feasible(med[choice]) else 1


if __name__ == "__main__":
    sys.exit(main())
