# SPDX-License-Identifier: BSD-3-Clause
"""The kernel's batching and NAPI behaviours as modes (doc/modes.md): each
forwards everything it is given (in = out + counted drops), switches at
runtime under traffic, and shows its cost.

    peer(virtio_user0) <-> vfwd(net_vhost0 | net_memif0) <-> peer(net_memif0)
"""

import os
import re
import signal
import subprocess
import time

from vfwdtest import (WORKER_1, Env, RUN_PID, check, dir_stats, link_name, thread_cpu_ticks,
                      thread_runnable_ns, worker_thread_names)


def worker_cpu_ticks(pid, lcore=1):
    """utime + stime of the worker thread of lcore (in clock ticks)."""
    names = worker_thread_names(lcore)
    ticks = thread_cpu_ticks(pid, names)
    found = [n for n in names if n in ticks]
    check(found, "no worker thread for lcore %d in %d: %s" % (lcore, pid, sorted(ticks)))
    return ticks[found[0]]  # that one: rte-worker-1 is also a prefix of rte-worker-10


def cpu_share(pid, secs=3.0):
    hz = os.sysconf("SC_CLK_TCK")
    a = worker_cpu_ticks(pid)
    time.sleep(secs)
    return (worker_cpu_ticks(pid) - a) / hz / secs


def wanted_share(pid, secs=3.0):
    """The share of secs lcore 1's worker was on a CPU or waiting for one:
    what it asked for, whatever else the machine ran."""
    t0, (run0, wait0) = time.monotonic(), thread_runnable_ns(pid, WORKER_1)
    time.sleep(secs)
    run1, wait1 = thread_runnable_ns(pid, WORKER_1)
    return (run1 - run0 + wait1 - wait0) / 1e9 / (time.monotonic() - t0)


def test_napi_idle_cpu_and_wakeup():
    """No traffic: napi leaves its lcore nearly idle, poll burns it. Then
    pings every 0.3 s from a netns through a tap: each one arrives to a
    sleeping lcore and still comes back fast (rx interrupts on both sides:
    the guest's kick, the tap's fd)."""
    with Env("napi") as env:
        ns = "vfwdt-napi-%d" % RUN_PID
        tap = link_name("n")
        env.add_netns(ns)
        sock = env.path("vh.sock")
        vf = env.vfwd(["net_vhost0,iface=%s" % sock, "net_tap0,iface=%s" % tap],
                      ["--rx-mode", "napi", "--stats-format", "json"], netns=ns)
        vf.wait_output("forwarding", 30)
        # net_tap's interrupt is its fd turning readable: no naps
        check("has no rx interrupts" not in vf.out(), "a note about naps:\n" + vf.out())
        ip = ["ip", "-n", ns]
        subprocess.run(ip + ["addr", "add", "192.0.2.1/24", "dev", tap], check=True)
        subprocess.run(ip + ["link", "set", tap, "up"], check=True)
        echo = env.testpmd(["net_virtio_user0,path=" + sock],
                           ["--forward-mode=icmpecho", "--nb-cores=1"], lcores="0@0,1@0")
        echo.wait_output("Press enter to exit", 30)
        time.sleep(0.5)
        napi_cpu = cpu_share(vf.pid)
        r = subprocess.run(["ip", "netns", "exec", ns, "ping", "-c", "10", "-i", "0.3", "-W", "2",
                            "192.0.2.2"], capture_output=True, text=True, timeout=60)
        echo.stop(20)
        check(vf.stop(20) == 0, "vfwd exit: " + vf.err()[-800:])
        check(" 0% packet loss" in r.stdout, "ping lost packets:\n" + r.stdout + r.stderr)
        rtt = re.search(r"= [\d.]+/[\d.]+/([\d.]+)/", r.stdout)
        check(rtt and float(rtt.group(1)) < 100, "max RTT through a sleeping vfwd: " + r.stdout)
        final = vf.last_json()
        lc = final["lcores"][0]
        check(napi_cpu < 0.20, "napi worker used %.0f%% of a CPU while idle" % (100 * napi_cpu))
        check(lc["sleeps"] > 0 and lc["sleep_pct"] > 50, "sleep stats: %s" % lc)
        check(lc["wakeups_intr"] > 0 and lc["intr_queues"] > 0,
              "no rx interrupt woke the lcore: %s" % {k: lc[k] for k in
                                                      ("sleeps", "wakeups_intr", "intr_queues")})
        # both woke it: the tap (each ping from the namespace) and the
        # guest's kick (each echo); never a nap
        check(0 < lc["wakeups_kick"] < lc["wakeups_intr"] and lc["nap_queues"] == 0,
              "wake-ups by a kick %d of %d, naps %d: the tap's and the guest's both expected"
              % (lc["wakeups_kick"], lc["wakeups_intr"], lc["nap_queues"]))
        for d in ("wire_to_vm", "vm_to_wire"):
            s = dir_stats(final, d)
            check(s["tx_pkts"] >= 10 and s["rx_pkts"] == s["tx_pkts"] + s["drops"], "%s: %s" % (d, s))
        check(final["mempool"]["in_use"] == final["mempool"]["in_use_at_start"], final["mempool"])

    with Env("pollcpu") as env:
        vf = env.vfwd(["net_vhost0,iface=" + env.path("vh.sock"), "net_null0,no-rx=1"],
                      ["--rx-mode", "poll"])
        vf.wait_output("forwarding", 30)
        time.sleep(0.3)
        poll_cpu = wanted_share(vf.pid)
        check(vf.stop(20) == 0, vf.err()[-500:])
        # asked for, not given: on a loaded machine a poll worker gets its
        # share, and waits for the rest
        check(poll_cpu > 0.8, "poll worker asked for only %.0f%% of a CPU (on it or waiting)"
              % (100 * poll_cpu))
    print("     idle worker CPU: napi %.1f%% used, poll %.1f%% asked for"
          % (100 * napi_cpu, 100 * poll_cpu))


# Each step's commands, typed at the prompt while the peer sends; the step
# passes once vfwd has forwarded STEP_PKTS more packets in that mode.
STEPS = [
    ["set rx-mode napi"],
    ["set deliver deferred"],
    ["set tx-batch 16"],
    ["set rx-mode adaptive"],
    ["set vq-weight-pkts 8", "set round-budget 40"],
    ["set backlog 256"],
    ["set deliver direct", "set tx-batch 1", "set rx-mode poll"],
    ["set pipeline 1:1"],
    ["set gro on", "set gro mode heavy"],
    ["set rx-mode napi"],
    ["set rx-mode poll", "set pipeline off"],
    ["set rx-mode napi", "set tx-batch 32", "set tx-flush-us 5"],
]
STEP_PKTS = 3000


def pipeline_on(cmds, was):
    for c in cmds:
        if c.startswith("set pipeline"):
            was = c != "set pipeline off"
    return was


def wait_forwarded(vf, peer, direction, name, timeout):
    """vfwd's totals of direction ('show fwd stats json' at the prompt)
    before and once it forwarded STEP_PKTS more packets, within timeout."""
    first = cur = vf.command_json("show fwd stats json")["total"]["dirs"][direction]
    deadline = time.monotonic() + timeout
    while cur["tx_pkts"] - first["tx_pkts"] < STEP_PKTS:
        check(time.monotonic() < deadline and peer.p.poll() is None,
              "%s: forwarded only %d packets in %d s: %s" % (
                  name, cur["tx_pkts"] - first["tx_pkts"], timeout, peer.err()[-800:]))
        time.sleep(0.05)
        cur = vf.command_json("show fwd stats json")["total"]["dirs"][direction]
    return first, cur


def switch_under_traffic(direction, size=64, tcp=False):
    """Every step of STEPS typed at the prompt while the peer sends, each
    one only once the previous mode has forwarded STEP_PKTS packets: every
    mode forwards (not only the mix), then the receiving side's counts and
    bytes equal vfwd's."""
    with Env("modes-" + direction + ("-tcp" if tcp else "")) as env:
        vh, mf = env.path("vh.sock"), env.path("memif.sock")
        # three lcores: the pipeline needs an rx and a work lcore (both on
        # CPU 1 here; correctness, not speed)
        vf = env.vfwd_pty(["net_vhost0,iface=%s" % vh, "net_memif0,role=server,socket=%s" % mf],
                          ["--stats-format", "json"], lcores="0@0,1@1,2@1")
        vf.expect(r"vfwd> ", 30)
        out = vf.command("start")
        check("forwarding started" in out, out[-800:])
        tx, rx = (0, 1) if direction == "vm_to_wire" else (1, 0)
        traffic = (["--tcp", "--flows", "8", "--lro"] if tcp else ["--size", str(size)])
        # the peer sends until told to stop (SIGUSR1), then drains
        peer = env.peer(["net_virtio_user0,path=%s,queue_size=1024" % vh,
                         "net_memif0,role=client,socket=" + mf],
                        ["--tx-port", str(tx), "--rx-port", str(rx), "--count", "0",
                         "--duration", "120", "--timeout", "150", "--linger"] + traffic)
        steps = []
        in_pipeline = False
        # the first step, nothing switched yet: also waits for the peer
        for i, cmds in enumerate([[]] + STEPS):
            for c in cmds:
                out = vf.command(c)
                check("error" not in out.lower() and "bad" not in out.lower(),
                      "%r: %s" % (c, out[-500:]))
            fd, cd = wait_forwarded(vf, peer, direction, "; ".join(cmds) or "poll, direct",
                                    30 if i == 0 else 20)
            name = "; ".join(cmds) or "poll, direct"
            fwd, drops = cd["tx_pkts"] - fd["tx_pkts"], cd["drops"] - fd["drops"]
            steps.append((name, fwd, drops, cd.get("gro_in", 0) - fd.get("gro_in", 0)))
            ring = cd["drop_ring"] - fd["drop_ring"]
            full = cd["drop_tx_full"] - fd["drop_tx_full"]
            # drops only where a ring or the peer's queue was full; outside
            # the pipeline (whose rx and work lcores share CPU 1 here, so its
            # rings overflow) a mode that drops is broken
            check(drops == ring + full, "%s: drops by other causes: %s" % (name, cd))
            in_pipeline = pipeline_on(cmds, in_pipeline)
            if not in_pipeline:
                check(drops <= 0.02 * (fwd + drops), "%s: %d dropped, %d forwarded"
                      % (name, drops, fwd))
        cfg = vf.command_json("show config json")["knobs"]
        check(cfg.get("rx-mode") == "napi" and cfg.get("tx-batch") == 32 and
              cfg.get("pipeline") == "off", "config after the steps: %s" % cfg)
        peer.p.send_signal(signal.SIGUSR1)
        peer.wait_output('"tx"', 60)
        got = peer.last_json()
        check(vf.p.poll() is None, "vfwd died: " + vf.screen()[-1500:])
        out = vf.command("stop")
        check("forwarding stopped" in out, out[-800:])
        m0 = vf.mark()
        vf.send("quit")
        check(vf.wait(30) == 0, "vfwd exit: " + vf.screen()[-1500:])
        prc = peer.stop(20)
        check(prc == 0, "peer exit %d: %s" % (prc, peer.err()[-800:]))
        finals = [j for j in vf.json_lines() if j.get("final")]
        check(finals, "no final report: " + vf.screen()[m0:][-1500:])
        final = finals[-1]
        d = dir_stats(final, direction)
        check(d["rx_pkts"] == got["tx"], "vfwd rx %d != peer tx %d" % (d["rx_pkts"], got["tx"]))
        # the receiving side: what it got is what vfwd says it sent
        check(got["rx"] == d["tx_pkts"], "peer got %d, vfwd sent %d" % (got["rx"], d["tx_pkts"]))
        check(got["rx_bytes"] == d["tx_bytes"], "bytes %d != %d" % (got["rx_bytes"], d["tx_bytes"]))
        check(got["rx_bad"] == 0, "corrupt frames: %s" % got)
        if tcp:
            # every stream in order: a late segment shows as a dup; what
            # is missing is what vfwd counted as dropped (a drop makes a gap)
            check(got["rx_dups"] == 0, "reordered or duplicated segments: %s" % got)
            check(got["rx_gaps"] <= d["drops"], "gaps %d > drops %d" % (got["rx_gaps"], d["drops"]))
            check(d["gro_in"] > 0 and d["gro_merged"] > 0, "GRO never merged: %s" % d)
            if d["drops"] == 0:
                check(got["rx_payload"] == got["tx_payload"], "streams short: %s" % got)
        else:
            check(got["rx_dup"] == 0 and got["rx_reorder"] == 0, "duplicate or reordered: %s" % got)
            # without GRO a frame is a frame: what did not arrive is what
            # vfwd counted as dropped
            check(got["tx"] - got["rx"] == d["drops"],
                  "peer sent %d, got %d: %d missing, vfwd counted %d drops"
                  % (got["tx"], got["rx"], got["tx"] - got["rx"], d["drops"]))
        check(d["rx_pkts"] == d["tx_pkts"] + d["drops"] or tcp,
              "rx %d != tx %d + drops %d" % (d["rx_pkts"], d["tx_pkts"], d["drops"]))
        if tcp:
            check(d["out_expected"] == d["tx_pkts"] + d["drops"], "accounting: %s" % d)
        tot = final["total"]
        check(tot["backlog_enq"] > 0 and tot["backlog_enq"] == tot["backlog_deq"],
              "backlog: %s in, %s out" % (tot["backlog_enq"], tot["backlog_deq"]))
        check(tot["ring_enq"] > 0 and tot["ring_enq"] == tot["ring_deq"],
              "pipeline rings: %s in, %s out" % (tot["ring_enq"], tot["ring_deq"]))
        check(d["tx_flush_full"] > 0, "tx batching never sent a full batch: %s" % d)
        check(final["mempool"]["in_use"] == final["mempool"]["in_use_at_start"],
              "mbufs leaked: %s" % final["mempool"])
        for name, fwd, drops, gro_in in steps:
            print("     %-45s %7d forwarded, %5d dropped%s" % (
                name[:45], fwd, drops, ", GRO saw %d" % gro_in if gro_in else ""))
        return d, steps


def test_switch_modes_under_traffic_vm_to_wire():
    d, _ = switch_under_traffic("vm_to_wire")
    # vq-weight-pkts 8 capped visits of the vhost queue
    check(d["weight_hits"] > 0, "the vq weight never cut a visit: %s" % d["weight_hits"])


def test_switch_modes_under_traffic_wire_to_vm():
    switch_under_traffic("wire_to_vm")


def test_switch_modes_under_tcp_wire_to_vm():
    """The same steps with 8 TCP streams toward a guest that takes GSO
    frames: GRO (light, then heavy, in the pipeline and out of it) merges
    them and every stream arrives in order, byte for byte."""
    _, steps = switch_under_traffic("wire_to_vm", tcp=True)
    # the step that turns heavy GRO on runs in the pipeline (set the step
    # before): the work lcore merged what it forwarded
    heavy = [st for st in steps if st[0] == "set gro on; set gro mode heavy"]
    check(heavy and heavy[0][3] >= STEP_PKTS, "GRO never ran in the pipeline: %s" % steps)


def test_tx_batch_sends_full_batches():
    """--burst 8 --tx-batch 32 under steady load: sends of 32."""
    with Env("txbatch") as env:
        vh = env.path("vh.sock")
        vf = env.vfwd(["net_vhost0,iface=%s" % vh, "net_null0,no-rx=1"],
                      ["--burst", "8", "--tx-batch", "32", "--tx-flush-us", "1000",
                       "--stats-format", "json"])
        vf.wait_output("forwarding", 30)
        peer = env.peer(["net_virtio_user0,path=" + vh],
                        ["--tx-port", "0", "--count", "200000", "--size", "64", "--timeout", "60"])
        check(peer.wait(90) == 0, "peer: " + peer.err()[-500:])
        sent = peer.last_json()["tx"]
        check(vf.stop(20) == 0, vf.err()[-800:])
        d = dir_stats(vf.last_json(), "vm_to_wire")
        hist = {int(k): v for k, v in d["tx_burst_hist"].items()}
        check(d["rx_pkts"] == sent and d["rx_pkts"] == d["tx_pkts"] + d["drops"], d)
        check(max(hist, key=hist.get) == 32, "tx sizes: %s" % hist)
        check(max(int(k) for k in d["rx_burst_hist"]) <= 8, "rx bursts above 8")
        full = hist[32] * 32
        check(full >= 0.8 * d["tx_pkts"], "only %d of %d packets went in batches of 32: %s"
              % (full, d["tx_pkts"], hist))
        check(d["tx_flush_full"] == hist[32], "full flushes %d != sends of 32 %d"
              % (d["tx_flush_full"], hist[32]))


def test_deferred_backlog_overflow_is_counted():
    """A backlog smaller than what arrives: drops counted as backlog, and
    nothing else lost."""
    with Env("backlog") as env:
        vf = env.vfwd(["net_vhost0,iface=" + env.path("vh.sock"), "net_null0,size=64"],
                      ["--deliver", "deferred", "--backlog", "64", "--burst", "64",
                       "--napi-weight", "16", "--duration", "2", "--stats-format", "json"])
        check(vf.wait(30) == 0, vf.err()[-800:])
        final = vf.last_json()
        d = dir_stats(final, "wire_to_vm")
        tot = final["total"]
        check(d["drop_backlog"] > 0 and d["drop_backlog"] == tot["backlog_drops"], d)
        check(tot["backlog_enq"] == tot["backlog_deq"], tot)
        check(d["rx_pkts"] == d["tx_pkts"] + d["drops"], d)
        # the rest reached the vhost tx side: no guest there, so peer-down
        check(d["drop_peer_down"] == tot["backlog_deq"], d)


def test_napi_request_response_through_a_tap_never_waits_out_a_sleep():
    """napi between a real Linux guest and a tap, one request in flight: each
    request from the tap arrives to a sleeping lcore and must wake it.
    net_tap reads its fd only after its real-time signal ran (sent with each
    packet to any thread of the process), so a wake by the fd alone used to
    poll nothing and sleep again, the request waiting the whole
    --sleep-max-us (40% of them, 10 ms each, at the default). With the
    sleep at 100 ms, that would be a p90 of 100 ms and a few transactions
    a second."""
    import sys
    from vfwdtest import ROOT, ncpus, vfwd_snapshot
    sys.path.insert(0, os.path.join(ROOT, "bench"))
    import guest_perf
    ok, why = guest_perf.have_tools()
    check(ok, why + " (usertools/setup.sh installs it)")
    with Env("napi-rr") as env:
        sess = guest_perf.Session(env, "vfwd", list(range(ncpus())),
                                  accel_kind=guest_perf.accel()[0])
        try:
            sess.apply({"rx-mode": "napi", "sleep-max-us": 100000},
                       ["rx-mode", "sleep-max-us"])
            time.sleep(0.2)
            r = sess.workload("rr 1", 3)
            snap = vfwd_snapshot(sess.tel)
            lc = {k: sum(x[k] for x in snap.values()) for k in ("sleeps", "wakeups_intr")}
        finally:
            sess.close()
        print("     napi, rr 1: %.0f trans/s, p50 %d us, p90 %d us, p99 %d us; %d sleeps, "
              "%d woken by an interrupt" % (r["tps"], r["rtt_p50"], r["rtt_p90"], r["rtt_p99"],
                                            lc["sleeps"], lc["wakeups_intr"]))
        check(lc["sleeps"] > 0 and lc["wakeups_intr"] > 0, "napi never slept: %s" % lc)
        check(r["rtt_p90"] < 50000 and r["tps"] >= 50,
              "requests waited out napi's 100 ms sleep: %s" % r)
