# SPDX-License-Identifier: BSD-3-Clause
"""The kernel's batching and NAPI behaviours as modes (doc/modes.md): each
forwards everything it is given (in = out + counted drops), switches at
runtime under traffic, and shows its cost.

    peer(virtio_user0) <-> vfwd(net_vhost0 | net_memif0) <-> peer(net_memif0)
"""

import os
import re
import subprocess
import time

from vfwdtest import Env, check, dir_stats, thread_cpu_ticks


def worker_cpu_ticks(pid, lcore=1):
    """utime + stime of the worker thread of lcore (in clock ticks)."""
    name = "rte-worker-%d" % lcore
    ticks = thread_cpu_ticks(pid, name)
    check(name in ticks, "no worker thread for lcore %d in %d" % (lcore, pid))
    return ticks[name]  # that one: rte-worker-1 is also a prefix of rte-worker-10


def cpu_share(pid, secs=3.0):
    hz = os.sysconf("SC_CLK_TCK")
    a = worker_cpu_ticks(pid)
    time.sleep(secs)
    return (worker_cpu_ticks(pid) - a) / hz / secs


def test_napi_idle_cpu_and_wakeup():
    """No traffic: napi leaves its lcore nearly idle, poll burns it. Then
    pings every 0.3 s from a netns through a tap: each one arrives to a
    sleeping lcore and still comes back fast (an rx interrupt from the
    vhost side, naps on the tap side)."""
    with Env("napi") as env:
        ns = "vfwdt-napi-%d" % os.getpid()
        tap = "vfwdn%d" % (os.getpid() % 100000)
        env.add_netns(ns)
        sock = env.path("vh.sock")
        vf = env.vfwd(["net_vhost0,iface=%s" % sock, "net_tap0,iface=%s" % tap],
                      ["--rx-mode", "napi", "--stats-format", "json"], netns=ns)
        vf.wait_output("forwarding", 30)
        check("net_tap0) has no rx interrupts" in vf.out(), "no note about naps:\n" + vf.out())
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
        for d in ("wire_to_vm", "vm_to_wire"):
            s = dir_stats(final, d)
            check(s["tx_pkts"] >= 10 and s["rx_pkts"] == s["tx_pkts"] + s["drops"], "%s: %s" % (d, s))
        check(final["mempool"]["in_use"] == final["mempool"]["in_use_at_start"], final["mempool"])

    with Env("pollcpu") as env:
        vf = env.vfwd(["net_vhost0,iface=" + env.path("vh.sock"), "net_null0,no-rx=1"],
                      ["--rx-mode", "poll"])
        vf.wait_output("forwarding", 30)
        time.sleep(0.3)
        poll_cpu = cpu_share(vf.pid)
        check(vf.stop(20) == 0, vf.err()[-500:])
        check(poll_cpu > 0.8, "poll worker used only %.0f%% of a CPU" % (100 * poll_cpu))
    print("     idle worker CPU: napi %.1f%%, poll %.1f%%" % (100 * napi_cpu, 100 * poll_cpu))


SWITCHES = """start
sleep 0.3
set rx-mode napi
sleep 0.3
set deliver deferred
sleep 0.3
set tx-batch 16
sleep 0.3
set rx-mode adaptive
sleep 0.3
set vq-weight-pkts 8
set round-budget 40
sleep 0.3
set backlog 256
sleep 0.3
set deliver direct
set tx-batch 1
set rx-mode poll
sleep 0.3
set pipeline 1:1
sleep 0.3
set gro on
set gro mode heavy
sleep 0.3
set rx-mode napi
sleep 0.3
set rx-mode poll
set pipeline off
sleep 0.3
set rx-mode napi
set tx-batch 32
set tx-flush-us 5
"""


def switch_under_traffic(direction, secs=5, size=64):
    with Env("modes-" + direction) as env:
        vh, mf = env.path("vh.sock"), env.path("memif.sock")
        script = env.path("switch.cmd")
        with open(script, "w") as f:
            f.write(SWITCHES)
        # three lcores: the pipeline needs an rx and a work lcore (both on
        # CPU 1 here; correctness, not speed)
        vf = env.vfwd(["net_vhost0,iface=%s" % vh, "net_memif0,role=server,socket=%s" % mf],
                      ["--stats-format", "json", "--cmdline-file", script],
                      lcores="0@0,1@1,2@1")
        vf.wait_output("forwarding started", 30)
        tx, rx = (0, 1) if direction == "vm_to_wire" else (1, 0)
        peer = env.peer(["net_virtio_user0,path=" + vh, "net_memif0,role=client,socket=" + mf],
                        ["--tx-port", str(tx), "--rx-port", str(rx), "--count", "0",
                         "--duration", str(secs), "--size", str(size), "--timeout", "90",
                         "--linger"])
        peer.wait_output('"tx"', 120)
        got = peer.last_json()
        check(vf.p.poll() is None, "vfwd died: " + vf.err()[-1500:])
        out = vf.out()
        for want in ["rx-mode = napi", "deliver = deferred", "tx-batch = 16", "rx-mode = adaptive",
                     "backlog = 256", "pipeline = 1:1", "pipeline = off", "tx-flush-us = 5"]:
            check(want in out, "script did not get to %r:\n%s\n%s" % (want, out[-1500:],
                                                                     vf.err()[-800:]))
        rc = vf.stop(20)
        peer.stop(20)
        check(rc == 0, "vfwd exit %d: %s" % (rc, vf.err()[-1500:]))
        final = vf.last_json()
        d = dir_stats(final, direction)
        check(got["tx"] > 100000, "peer sent only %d" % got["tx"])
        check(d["rx_pkts"] == got["tx"], "vfwd rx %d != peer tx %d" % (d["rx_pkts"], got["tx"]))
        check(d["rx_pkts"] == d["tx_pkts"] + d["drops"],
              "rx %d != tx %d + drops %d" % (d["rx_pkts"], d["tx_pkts"], d["drops"]))
        causes = sum(v for k, v in d.items() if k.startswith("drop_"))
        check(causes == d["drops"], "drop causes %d != drops %d" % (causes, d["drops"]))
        check(got["rx"] == d["tx_pkts"], "peer got %d, vfwd sent %d" % (got["rx"], d["tx_pkts"]))
        check(got["rx_bad"] == 0 and got["rx_dup"] == 0 and got["rx_reorder"] == 0,
              "corrupt, duplicate or reordered: %s" % got)
        check(got["rx_bytes"] == d["tx_bytes"], "bytes %d != %d" % (got["rx_bytes"], d["tx_bytes"]))
        tot = final["total"]
        check(tot["backlog_enq"] > 0 and tot["backlog_enq"] == tot["backlog_deq"],
              "backlog: %s in, %s out" % (tot["backlog_enq"], tot["backlog_deq"]))
        check(tot["ring_enq"] > 0 and tot["ring_enq"] == tot["ring_deq"],
              "pipeline rings: %s in, %s out" % (tot["ring_enq"], tot["ring_deq"]))
        check(d["tx_flush_full"] > 0, "tx batching never sent a full batch: %s" % d)
        check(final["mempool"]["in_use"] == final["mempool"]["in_use_at_start"],
              "mbufs leaked: %s" % final["mempool"])
        return d


def test_switch_modes_under_traffic_vm_to_wire():
    d = switch_under_traffic("vm_to_wire")
    # vq-weight-pkts 8 capped visits of the vhost queue
    check(d["weight_hits"] > 0, "the vq weight never cut a visit: %s" % d["weight_hits"])


def test_switch_modes_under_traffic_wire_to_vm():
    switch_under_traffic("wire_to_vm")


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
