# SPDX-License-Identifier: BSD-3-Clause
"""Scale: several queues, several workers, the pipeline's work lcores and
several VMs, each driven end to end by dpdk-vfwd-gen (every frame checked:
loss, order per flow, duplicates, payload, other generators' flows).

    multi-queue:  gen(virtio_user0, queues=N) <-> vfwd --rxq N (net_vhost0,queues=N | net_memif0) <-> gen(memif)
    pipeline:     the same with --pipeline 1:2 --rxq 2 --txq 2
    several VMs:  gen k (virtio_user k, memif k) <-> vfwd pair k (port 2k | port 2k+1), k = 0..P-1

In CI the worker lcores share 2 CPUs with the generators (oversubscribed),
so the rates are moderate (15-30 kpps per direction): what is checked is
correctness, and a frame vfwd could not deliver must be a counted drop.
"""

import os
import re
import signal
import time

from vfwdtest import Env, check, dir_stats, gen_topology

DIRS = ("vm_to_wire", "wire_to_vm")
STREAM_COUNTS = ("rx_pkts", "rx_bytes", "tx_pkts", "tx_bytes", "drops", "gro_in", "gro_out",
                 "segs_added", "out_expected")
# what vfwd may drop here: a ring full after the retries (a generator
# descheduled on the shared CPUs) or a VM that is gone
EXPECTED_DROPS = ("drop_tx_full", "drop_peer_down")
PLAN_LINE = re.compile(r"^  lcore (\d+): (?:rx   )?(vm->wire|wire->vm) port (\d+) \(\S+\) q(\d+)"
                       r" -> port (\d+) \(\S+\) q(\d+)$", re.M)


def lcores(workers):
    """The main lcore on CPU 0, then the workers on CPUs 1, 0, 1, ..."""
    return ",".join(["0@0"] + ["%d@%d" % (i, i % 2) for i in range(1, workers + 1)])


def plan(vf):
    """The plan vfwd printed at start: [(lcore, dir, rx_port, rxq, tx_port, txq)]."""
    return [(int(lc), "vm_to_wire" if d == "vm->wire" else "wire_to_vm", int(rp), int(rq),
             int(tp), int(tq)) for lc, d, rp, rq, tp, tq in PLAN_LINE.findall(vf.out())]


def gen_clean(x, where):
    """Every frame received intact, once, in order within its flow, of our
    own flows; sent = received + lost."""
    check(x["corrupted"] == 0 and x["reordered"] == 0 and x["duplicates"] == 0 and
          x["foreign"] == 0 and x["other"] == 0 and x["unsent"] == 0,
          "%s: not clean (corrupted %d, reordered %d, duplicates %d, foreign %d, other %d, "
          "unsent %d): %s" % (where, x["corrupted"], x["reordered"], x["duplicates"],
                              x["foreign"], x["other"], x["unsent"], x))
    check(x["received"] + x["lost"] == x["sent"] and x["received"] > 0,
          "%s: received %d + lost %d != sent %d" % (where, x["received"], x["lost"], x["sent"]))


def final_laws(final, where="vfwd", causes_ok=EXPECTED_DROPS):
    """vfwd's final report: per direction in = out + drops, the drops only
    of expected causes; per stream the same; no mbuf left in use."""
    for d in DIRS:
        t = final["total"]["dirs"][d]
        causes = {k: v for k, v in t.items() if k.startswith("drop_") and v}
        check(t["out_expected"] == t["tx_pkts"] + t["drops"],
              "%s %s: out_expected %d != tx %d + drops %d"
              % (where, d, t["out_expected"], t["tx_pkts"], t["drops"]))
        check(t["rx_pkts"] == t["tx_pkts"] + t["drops"],
              "%s %s: rx %d != tx %d + drops %d" % (where, d, t["rx_pkts"], t["tx_pkts"],
                                                    t["drops"]))
        check(sum(t[k] for k in causes_ok) == t["drops"] == sum(causes.values()),
              "%s %s: drops %d of unexpected causes: %s" % (where, d, t["drops"], causes))
    for s in final["streams"]:
        check(s["rx_pkts"] == s["out_expected"] == s["tx_pkts"] + s["drops"],
              "%s: stream pair %d queue %d %s: rx %d, out_expected %d, tx %d + drops %d"
              % (where, s["pair"], s["queue"], s["dir"], s["rx_pkts"], s["out_expected"],
                 s["tx_pkts"], s["drops"]))
    mp = final["mempool"]
    check(mp["in_use"] == mp["in_use_at_start"], "%s: mbufs leaked: %s" % (where, mp))


def pairs_add_up(final):
    """Each pair's per-direction counts are the sums of its streams'."""
    for pr in final["pairs"]:
        for d in DIRS:
            mine = [s for s in final["streams"] if s["pair"] == pr["pair"] and s["dir"] == d]
            check(mine, "pair %d %s has no streams" % (pr["pair"], d))
            for f in STREAM_COUNTS:
                check(pr[d][f] == sum(s[f] for s in mine),
                      "pair %d %s %s: %d, its streams' %s" % (pr["pair"], d, f, pr[d][f],
                                                              [s[f] for s in mine]))


def wait_report(g, vf, timeout):
    """Waits for a generator's report; if none comes, the failure shows
    vfwd's side too (was it up, what did it print)."""
    try:
        g.wait_output('"ok"', timeout)
    except AssertionError as e:
        raise type(e)("%s\n--- vfwd (rc %s) stdout tail:\n%s\n--- vfwd stderr tail:\n%s"
                      % (e, vf.p.poll(), vf.out()[-1500:], vf.err()[-1500:])) from None


def run_one_gen(env, nq, vfwd_args, gen_args, vf_lcores, gen_lcores="0@0"):
    """vfwd and one generator with nq queues on every port; returns
    (vfwd, the generator's report, vfwd's final report)."""
    fwd_vdevs, gen_vdevs = gen_topology(env)
    fwd_vdevs[0] += ",queues=%d" % nq
    gen_vdevs[0] += ",queues=%d" % nq
    vf = env.vfwd(fwd_vdevs, ["--stats-format", "json"] + vfwd_args, lcores=vf_lcores)
    vf.wait_output("forwarding", 30)
    g = env.gen(gen_vdevs, ["--queues", str(nq), "--format", "json", "--linger"] + gen_args,
                lcores=gen_lcores)
    wait_report(g, vf, 60)
    rep = g.last_json()
    # vfwd first: the memif PMD of a generator that goes first
    rc, grc = vf.stop(20), g.stop(20)
    check(rc == 0, "vfwd exit %d: %s" % (rc, vf.err()[-1500:]))
    check(grc == (0 if rep["ok"] else 3), "generator exit %d with ok %s: %s"
          % (grc, rep["ok"], g.err()[-1500:]))
    return vf, rep, vf.last_json()


# ---- 1. several queues, both plan shapes --------------------------------

def multi_queue(nq, workers, count=30000, rate="30k", flows=17):
    """nq queues on every port, `workers` worker lcores, 17 flows both ways.
    The plan: while workers <= queues a worker takes both directions of
    whole queues, beyond that the directions are split; either way a
    stream received on queue q sends on queue q. So queue by queue the
    generator's count of what it sent on tx queue q is vfwd's stream (q)
    rx, and what it received on rx queue q is vfwd's stream (q) tx: a
    stream that sent on another queue, two lcores on one queue, or a
    queue nobody polls would show here. Why 17 flows: flow f goes on
    queue f % nq, and with a multiple of nq every queue would carry the
    same count, so a stream that sent on the next queue would still match
    queue by queue; with 17, queue 0 carries one flow more than the rest."""
    with Env("scale-q%dw%d" % (nq, workers)) as env:
        t0 = time.monotonic()
        vf, rep, final = run_one_gen(
            env, nq, ["--rxq", str(nq)],
            ["--flows", str(flows), "--flow-base", "300", "--dir", "both", "--count",
             str(count), "--rate", rate], lcores(workers))
        secs = time.monotonic() - t0

        # the plan vfwd printed has the shape this combination is for
        streams = plan(vf)
        check(sorted((d, rq) for _, d, _, rq, _, _ in streams) ==
              sorted((d, q) for d in DIRS for q in range(nq)),
              "plan: not every (direction, queue) once: %s\n%s" % (streams, vf.out()[:3000]))
        check(all(rq == tq for _, _, _, rq, _, tq in streams),
              "plan: a stream sends on another queue than it receives on: %s" % streams)
        lcs = {}
        for lc, d, _, q, _, _ in streams:
            lcs.setdefault(q, {})[d] = lc
        used = {lc for lc, *_ in streams}
        check(len(used) == min(workers, 2 * nq), "plan: %d lcores used of %d workers: %s"
              % (len(used), workers, streams))
        split = workers > nq
        for q, by_dir in lcs.items():
            same = by_dir["vm_to_wire"] == by_dir["wire_to_vm"]
            check(same != split, "plan (%s): queue %d's directions on lcores %s" %
                  ("split directions" if split else "whole queues", q, by_dir))

        check(rep["queues"] == nq and rep["flows"] == flows, "generator config: %s" % rep)
        by_key = {(s["queue"], s["dir"]): s for s in final["streams"]}
        check(len(final["streams"]) == 2 * nq and all(s["pair"] == 0 for s in final["streams"]),
              "vfwd streams: %s" % [(s["pair"], s["queue"], s["dir"]) for s in final["streams"]])
        ports = final["ports"]
        for d in DIRS:
            x = rep["dirs"][d]
            v = dir_stats(final, d)
            where = "%d queues, %d workers, %s" % (nq, workers, d)
            gen_clean(x, where)
            check(x["sent_frames"] == count and sum(x["txq"]) == count and
                  sum(x["rxq"]) == x["frames"] == x["received"],
                  "%s: sent %d (per queue %s), received %d (per queue %s)"
                  % (where, x["sent_frames"], x["txq"], x["received"], x["rxq"]))
            check(x["lost"] == v["drops"], "%s: the generator lost %d, vfwd dropped %d (%s)"
                  % (where, x["lost"], v["drops"],
                     {k: v[k] for k in v if k.startswith("drop_") and v[k]}))
            rx_port, tx_port = (0, 1) if d == "vm_to_wire" else (1, 0)
            for q in range(nq):
                s = by_key[(q, d)]
                check(x["txq"][q] > 0 and x["rxq"][q] > 0,
                      "%s: queue %d carried nothing: sent %s, received %s per queue"
                      % (where, q, x["txq"], x["rxq"]))
                check(x["txq"][q] == s["rx_pkts"] and x["rxq"][q] == s["tx_pkts"],
                      "%s queue %d: the generator sent %d on it and received %d on it; vfwd's "
                      "stream (queue %d) received %d and sent %d (all streams: %s)"
                      % (where, q, x["txq"][q], x["rxq"][q], q, s["rx_pkts"], s["tx_pkts"],
                         [(t["queue"], t["dir"], t["rx_pkts"], t["tx_pkts"])
                          for t in final["streams"]]))
                # the ports' own per-queue counters (the PMDs') agree
                check(ports[rx_port]["rxq_pkts"][q] == s["rx_pkts"] and
                      ports[tx_port]["txq_pkts"][q] == s["tx_pkts"],
                      "%s queue %d: port %d rxq_pkts %s, port %d txq_pkts %s; stream rx %d tx %d"
                      % (where, q, rx_port, ports[rx_port]["rxq_pkts"], tx_port,
                         ports[tx_port]["txq_pkts"], s["rx_pkts"], s["tx_pkts"]))
        final_laws(final)
        pairs_add_up(final)
        print("     %d queues, %d workers (%s): %.1fs, drops %s" % (
            nq, workers, "split" if split else "whole queues", secs,
            [dir_stats(final, d)["drops"] for d in DIRS]))


def test_multi_queue_2q_1_worker():
    multi_queue(2, 1)


def test_multi_queue_2q_2_workers():
    multi_queue(2, 2)


def test_multi_queue_2q_3_workers_split():
    multi_queue(2, 3)


def test_multi_queue_4q_2_workers():
    multi_queue(4, 2)


def test_multi_queue_4q_3_workers():
    multi_queue(4, 3)


# ---- 2. the pipeline with 2 work lcores ----------------------------------

def test_pipeline_2_work_lcores_both_directions():
    """--pipeline 1:2: one rx lcore polls both queues of both ports and
    hands each burst to 2 work lcores by flow hash; work lcore k sends on
    tx queue k. 16 flows both ways: no frame reordered within its flow (a
    flow split over both work lcores would be), both work lcores sent in
    each direction, what the generator got on rx queue k is what work
    lcore k sent, lost = vfwd's drops (ring overflow or tx_full only)."""
    count = 30000
    with Env("scale-pipe") as env:
        # main on CPU 0, the rx lcore 1 on CPU 1, work lcores 2 and 3 on 0 and 1
        vf, rep, final = run_one_gen(
            env, 2, ["--pipeline", "1:2", "--rxq", "2", "--txq", "2"],
            ["--flows", "16", "--flow-base", "500", "--dir", "both", "--count", str(count),
             "--rate", "30k"], lcores(3))
        check("pipeline: 1 rx lcore(s) -> 2 work lcore(s)" in vf.out(),
              "no pipeline plan printed:\n" + vf.out()[:2000])
        work = {lc["lcore"]: lc for lc in final["lcores"] if lc["lcore"] in (2, 3)}
        check(sorted(work) == [2, 3], "work lcores in the report: %s"
              % [lc["lcore"] for lc in final["lcores"]])
        for d in DIRS:
            x = rep["dirs"][d]
            v = dir_stats(final, d)
            gen_clean(x, "pipeline " + d)
            check(x["sent_frames"] == count and v["rx_pkts"] == count,
                  "pipeline %s: the generator sent %d, vfwd received %d of %d"
                  % (d, x["sent_frames"], v["rx_pkts"], count))
            check(x["lost"] == v["drops"] and v["tx_pkts"] == x["frames"],
                  "pipeline %s: the generator got %d and lost %d; vfwd sent %d and dropped %d"
                  % (d, x["frames"], x["lost"], v["tx_pkts"], v["drops"]))
            sent = [work[lc]["dirs"][d]["tx_pkts"] for lc in (2, 3)]
            check(all(n > 0 for n in sent),
                  "pipeline %s: per work lcore (2, 3) sent %s: the flows were not spread"
                  % (d, sent))
            check(x["rxq"] == sent, "pipeline %s: the generator received %s per rx queue, the "
                  "work lcores 2, 3 sent %s (work lcore k sends on tx queue k)"
                  % (d, x["rxq"], sent))
        final_laws(final, "pipeline", EXPECTED_DROPS + ("drop_ring",))
        print("     pipeline: per work lcore tx %s, drops %s" % (
            {lc: [work[lc]["dirs"][d]["tx_pkts"] for d in DIRS] for lc in work},
            [dir_stats(final, d)["drops"] for d in DIRS]))


# ---- 3. several VMs ------------------------------------------------------

def start_pairs(env, npairs, vf_lcores, extra=()):
    """vfwd with npairs pairs: vdevs vhost0, memif0, vhost1, memif1, ...,
    so pair k is --pair 2k:2k+1 (port ids in vdev order)."""
    vdevs, pair_args = [], []
    for k in range(npairs):
        vdevs += ["net_vhost%d,iface=%s" % (k, env.path("vh%d.sock" % k)),
                  "net_memif%d,role=server,socket=%s" % (k, env.path("mf%d.sock" % k))]
        pair_args += ["--pair", "%d:%d" % (2 * k, 2 * k + 1)]
    vf = env.vfwd(vdevs, ["--stats-format", "json"] + pair_args + list(extra), lcores=vf_lcores)
    vf.wait_output("forwarding", 30)
    return vf


def start_gen(env, k, args):
    """VM k's own generator: its virtio-user on vhost socket k and its
    memif on memif socket k, its own file prefix, flows 100k.., on CPU k % 2."""
    return env.gen(["net_virtio_user0,path=%s" % env.path("vh%d.sock" % k),
                    "net_memif0,role=client,socket=%s" % env.path("mf%d.sock" % k)],
                   ["--flow-base", str(100 * k), "--format", "json", "--linger"] + list(args),
                   lcores="0@%d" % (k % 2), name="gen%d" % k)


def pair_matches_gen(final, k, rep):
    """vfwd's counts for pair k are exactly what VM k's generator sent and
    received, both ways; whatever it lost vfwd counted as dropped on that
    pair; no frame of another VM's flows reached it."""
    pr = final["pairs"][k]
    check((pr["pair"], pr["vm_port"], pr["wire_port"]) == (k, 2 * k, 2 * k + 1),
          "pair %d: %s" % (k, {f: pr[f] for f in ("pair", "vm_port", "wire_port")}))
    check(rep["flow_base"] == 100 * k, "gen%d: flow_base %s" % (k, rep["flow_base"]))
    for d in DIRS:
        x, v = rep["dirs"][d], pr[d]
        gen_clean(x, "gen%d %s" % (k, d))
        check(v["rx_pkts"] == x["sent_frames"] and v["tx_pkts"] == x["frames"] and
              v["drops"] == x["lost"],
              "pair %d %s: vfwd rx %d tx %d drops %d; VM %d's generator sent %d, got %d, lost %d"
              " (cross-talk or an uncounted loss)" % (k, d, v["rx_pkts"], v["tx_pkts"], v["drops"],
                                                      k, x["sent_frames"], x["frames"], x["lost"]))


def several_vms(npairs, workers, count=15000, rate="15k"):
    with Env("scale-vms%d" % npairs) as env:
        vf = start_pairs(env, npairs, lcores(workers))
        gens = [start_gen(env, k, ["--flows", "8", "--dir", "both", "--count", str(count),
                                   "--rate", rate]) for k in range(npairs)]
        reps = []
        for g in gens:
            wait_report(g, vf, 60)
            reps.append(g.last_json())
        rc = vf.stop(20)
        check(rc == 0, "vfwd exit %d: %s" % (rc, vf.err()[-1500:]))
        for k, g in enumerate(gens):
            grc = g.stop(20)
            check(grc == (0 if reps[k]["ok"] else 3), "gen%d exit %d with ok %s: %s"
                  % (k, grc, reps[k]["ok"], g.err()[-1500:]))
        final = vf.last_json()
        check(len(final["pairs"]) == npairs, "%d pairs in the report" % len(final["pairs"]))
        for k, rep in enumerate(reps):
            check(rep["dirs"]["vm_to_wire"]["sent_frames"] == count, "gen%d sent %s of %d"
                  % (k, rep["dirs"]["vm_to_wire"]["sent_frames"], count))
            pair_matches_gen(final, k, rep)
        pairs_add_up(final)
        for d in DIRS:
            t = final["total"]["dirs"][d]
            for f in ("rx_pkts", "tx_pkts", "drops"):
                check(t[f] == sum(pr[d][f] for pr in final["pairs"]),
                      "%s %s: total %d, the pairs' %s" % (d, f, t[f],
                                                          [pr[d][f] for pr in final["pairs"]]))
        final_laws(final)
        print("     %d VMs: drops per pair %s" % (npairs, [[pr[d]["drops"] for d in DIRS]
                                                     for pr in final["pairs"]]))


def test_two_vms_no_cross_talk():
    several_vms(2, 1)


def test_four_vms_no_cross_talk():
    several_vms(4, 2)


def pair_counts(rep):
    """{pair: {dir: (rx_pkts, tx_pkts, drops)}} of one vfwd report."""
    return {pr["pair"]: {d: (pr[d]["rx_pkts"], pr[d]["tx_pkts"], pr[d]["drops"]) for d in DIRS}
            for pr in rep["pairs"]}


def next_report(vf, after, timeout=5):
    """The first periodic report after the first `after` ones (waits)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        reps = vf.json_lines()
        if len(reps) > after:
            return reps[after], len(reps)
        check(vf.p.poll() is None, "vfwd exited (rc %s): %s" % (vf.p.returncode, vf.err()[-1500:]))
        time.sleep(0.05)
    raise AssertionError("vfwd printed no report for %ss" % timeout)


def window(vf, secs):
    """Per-pair rates (pps) between the next report and the one about secs
    later: {pair: {dir: (rx_pps, tx_pps, drops_ps)}}, from the counters'
    deltas and vfwd's own report times. Starts at a report that came after
    the call, so the window is wholly after whatever was just done."""
    a, n = next_report(vf, len(vf.json_lines()))
    time.sleep(max(0.0, secs - 0.3))
    b = a
    while b["t"] - a["t"] < secs - 0.05:
        b, n = next_report(vf, n)
    dt = b["t"] - a["t"]
    ca, cb = pair_counts(a), pair_counts(b)
    return {k: {d: tuple((cb[k][d][i] - ca[k][d][i]) / dt for i in range(3)) for d in DIRS}
            for k in cb}, dt


def test_vm_killed_and_vm_stalled_leave_others_standing():
    """4 VMs on one worker lcore (the most sharing: a worker held up by one
    pair would slow every other on it), 15 kpps each way. VMs 0, 1 and 3
    are generators; midway VM 3's is killed (SIGKILL: its vhost-user and
    memif connections vanish). VM 2 is a receive-only peer fed from its
    wire by a separate sender (a stopped generator would stop its own
    sending too, and nothing would go toward it), stopped for about 1.5 s
    (SIGSTOP, then SIGCONT): what comes for it meanwhile cannot be
    delivered. VMs 0 and 1 keep their rates both ways, vfwd stays up and
    counts VM 2's undeliverable frames as drops on pair 2, forwarding
    toward VM 2 resumes, and vfwd's final report balances with no mbuf
    left in use."""
    npairs, killed, stalled_vm, rate = 4, 3, 2, 15000
    with Env("scale-disturb") as env:
        vf = start_pairs(env, npairs, lcores(1), ["--stats-period", "0.5"])
        gens = {k: start_gen(env, k, ["--flows", "8", "--dir", "both", "--duration", "9",
                                      "--rate", str(rate)]) for k in (0, 1, killed)}
        vm = env.peer(["net_virtio_user0,path=%s" % env.path("vh%d.sock" % stalled_vm)],
                      ["--rx-port", "0", "--duration", "11", "--timeout", "30", "--linger"],
                      lcores="0@0", name="vm%d" % stalled_vm)
        # the VM first: what its wire sent before it was up would be peer_down drops
        vm.wait_output("ready", 30, stream="err")
        wire = env.peer(["net_memif0,role=client,socket=%s" % env.path("mf%d.sock" % stalled_vm)],
                        ["--tx-port", "0", "--rate", str(rate), "--duration", "9",
                         "--timeout", "30", "--linger"], lcores="0@1", name="wire%d" % stalled_vm)
        # every pair forwarding (pair 2 toward its VM only)
        deadline = time.monotonic() + 20
        while True:
            last, _ = next_report(vf, len(vf.json_lines()))
            c = pair_counts(last)
            if all(c[k][d][1] > 0 for k in gens for d in DIRS) and \
               c[stalled_vm]["wire_to_vm"][1] > 0:
                break
            check(time.monotonic() < deadline, "not every pair forwarding: %s" % c)
        before, dt_before = window(vf, 2.0)

        os.kill(gens[killed].pid, signal.SIGKILL)
        gens[killed].p.wait(5)
        os.kill(vm.pid, signal.SIGSTOP)
        try:
            stalled, dt_stalled = window(vf, 1.0)
        finally:
            os.kill(vm.pid, signal.SIGCONT)
        after, dt_after = window(vf, 1.5)
        check(vf.p.poll() is None, "vfwd died after a VM was killed and another stalled: rc %s\n%s"
              % (vf.p.returncode, vf.err()[-2000:]))
        at_kill = pair_counts(vf.json_lines()[-1])[killed]

        def show(w):
            return {k: {d: "rx %.0f tx %.0f drop %.0f" % w[k][d] for d in DIRS} for k in w}

        rates = "before (%.1fs): %s\nstalled (%.1fs): %s\nafter (%.1fs): %s" % (
            dt_before, show(before), dt_stalled, show(stalled), dt_after, show(after))
        # the disturbance happened: nothing from the dead VM; toward the
        # stopped one nothing delivered and (about) all of it dropped
        check(all(stalled[killed][d][0] == 0 for d in DIRS), "VM %d still sent when dead:\n%s"
              % (killed, rates))
        s2 = stalled[stalled_vm]["wire_to_vm"]
        check(s2[0] > 0.5 * rate and s2[1] < 0.05 * rate and s2[2] > 0.9 * s2[0],
              "toward the stopped VM %d: rx %.0f, tx %.0f, drops %.0f pps: not dropped and "
              "counted\n%s" % (stalled_vm, s2[0], s2[1], s2[2], rates))
        check(after[stalled_vm]["wire_to_vm"][1] > 0.5 * rate,
              "forwarding toward VM %d did not resume after SIGCONT\n%s" % (stalled_vm, rates))
        # The others keep their rates. Their generators pace by the clock
        # and catch up after being descheduled, so over windows of 1-2 s
        # their rates through vfwd are their --rate unless vfwd itself held
        # them up (a worker spinning on the stuck VM's full ring, or stuck
        # on the dead one's memory, would give a fraction). The bound is
        # 70% of the rate before: on this 2-CPU machine shared with the
        # other processes a generator can lose the CPU for 100-200 ms
        # (10-20% of a 1 s window); runs here gave 0.98x to 1.02x.
        for k in (0, 1):
            for w, name in ((stalled, "while VM %d was stopped and VM %d dead"
                             % (stalled_vm, killed)), (after, "after")):
                for d in DIRS:
                    for i, what in ((0, "rx"), (1, "tx")):
                        check(w[k][d][i] >= 0.7 * before[k][d][i] and before[k][d][i] > 0.5 * rate,
                              "pair %d %s %s %s: %.0f pps, %.0f before\n%s"
                              % (k, d, what, name, w[k][d][i], before[k][d][i], rates))

        reps = {}
        for k in (0, 1):
            wait_report(gens[k], vf, 30)
            reps[k] = gens[k].last_json()
        wire.wait_output('"tx"', 30, stream="out")
        vm.wait_output('"rx"', 30, stream="out")
        check(vf.p.poll() is None, "vfwd died: rc %s\n%s" % (vf.p.returncode, vf.err()[-2000:]))
        rc = vf.stop(20)
        check(rc == 0, "vfwd exit %d: %s" % (rc, vf.err()[-1500:]))
        for k in reps:
            grc = gens[k].stop(20)
            check(grc == (0 if reps[k]["ok"] else 3), "gen%d exit %d with ok %s: %s"
                  % (k, grc, reps[k]["ok"], gens[k].err()[-1500:]))
        for p in (vm, wire):
            check(p.stop(20) == 0, "%s: %s" % (p.name, p.err()[-1500:]))
        final = vf.last_json()
        check(final["final"], "the last report is not the final one")
        # VMs 0 and 1: every frame checked, vfwd's counts are theirs, what
        # they lost vfwd dropped and counted on their pair
        for k, rep in reps.items():
            pair_matches_gen(final, k, rep)
        # VM 2: what its wire sent vfwd took; what it did not deliver it
        # counted as dropped; what it delivered arrived intact, once, in order
        got, sent = vm.last_json(), wire.last_json()
        v = final["pairs"][stalled_vm]["wire_to_vm"]
        check(v["rx_pkts"] == sent["tx"] and v["tx_pkts"] == got["rx"] and
              v["rx_pkts"] == v["tx_pkts"] + v["drops"] and v["drops"] > 0.5 * rate * dt_stalled,
              "pair %d wire_to_vm: vfwd rx %d tx %d drops %d; its wire sent %d, its VM got %d"
              % (stalled_vm, v["rx_pkts"], v["tx_pkts"], v["drops"], sent["tx"], got["rx"]))
        check(got["rx_bad"] == 0 and got["rx_dup"] == 0 and got["rx_reorder"] == 0,
              "VM %d got bad, duplicate or reordered frames: %s" % (stalled_vm, got))
        # the dead VM: nothing new for its pair after it died, and what
        # vfwd took of it balances (sent or counted as dropped)
        dead = pair_counts(final)[killed]
        check(dead == at_kill, "pair %d moved after its VM died: %s then %s"
              % (killed, at_kill, dead))
        for d in DIRS:
            rx, tx, drops = dead[d]
            check(rx > 0 and rx == tx + drops, "pair %d %s: rx %d != tx %d + drops %d"
                  % (killed, d, rx, tx, drops))
        pairs_add_up(final)
        final_laws(final)
        check(final["unmap_guard"]["timeouts"] == 0, "munmap guard timeouts: %s"
              % final["unmap_guard"])
        print("     drops per pair %s (tx_full %s, peer_down %s)\n     %s" % (
            [[pr[d]["drops"] for d in DIRS] for pr in final["pairs"]],
            [final["total"]["dirs"][d]["drop_tx_full"] for d in DIRS],
            [final["total"]["dirs"][d]["drop_peer_down"] for d in DIRS],
            rates.replace("\n", "\n     ")))
