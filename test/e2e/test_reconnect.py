# SPDX-License-Identifier: BSD-3-Clause
"""Peers that come and go: a virtio-user peer connects, exchanges traffic
and goes away 10 times (every other time killed with SIGKILL) while the
wire side keeps sending. vfwd keeps running, forwards after every
reconnect, counts what it could not deliver, and leaks no mbuf.

    peer(virtio_user0) <-> vfwd(net_vhost0 | net_null0: a source and a sink)
"""

import signal
import time

from vfwdtest import Env, check, dir_stats

ROUNDS = 10


def latest(vf):
    reports = vf.json_lines()
    return reports[-1] if reports else None


def wait_new_report(vf, after_t, timeout=5):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        r = latest(vf)
        if r and r["t"] > after_t:
            return r
        time.sleep(0.1)
    raise AssertionError("vfwd stopped reporting")


def test_reconnect_10_times():
    with Env("reconnect") as env:
        sock = env.path("vh.sock")
        vf = env.vfwd(["net_vhost0,iface=%s,tso=1" % sock, "net_null0,size=64"],
                      ["--stats-format", "json", "--stats-period", "0.25"])
        vf.wait_output('"final":false', 30)
        for i in range(ROUNDS):
            before = wait_new_report(vf, latest(vf)["t"])
            peer = env.peer(["net_virtio_user0,path=" + sock],
                            ["--tx-port", "0", "--rx-port", "0", "--duration", "1.2",
                             "--timeout", "4", "--size", "128"], name="peer%d" % i)
            if i % 2:
                peer.wait_output("ready", 30, stream="err")
                time.sleep(1.0)
                peer.stop(10, sig=signal.SIGKILL)
            else:
                # net_null's frames are not the peer's own, but some carry
                # stale peer payloads from recycled mbufs, so the peer would
                # never see the quiet that ends its drain: end it (SIGTERM:
                # report and exit 0) once its sending is over
                peer.wait_output("ready", 30, stream="err")
                time.sleep(1.7)
                rc = peer.stop(10)
                check(rc == 0, "peer %d exit %d: %s" % (i, rc, peer.err()[-800:]))
                got = peer.last_json()
                # count them all
                check(got["rx"] + got["rx_other"] > 0, "round %d: nothing reached the VM" % i)
                check(got["tx"] > 0, "round %d: peer sent nothing" % i)
            check(vf.p.poll() is None, "vfwd died in round %d: %s" % (i, vf.err()[-1500:]))
            after = wait_new_report(vf, latest(vf)["t"])
            a, b = after["total"]["dirs"], before["total"]["dirs"]
            check(a["wire_to_vm"]["tx_pkts"] > b["wire_to_vm"]["tx_pkts"],
                  "round %d: nothing forwarded to the VM after reconnect" % i)
            check(a["vm_to_wire"]["rx_pkts"] > b["vm_to_wire"]["rx_pkts"],
                  "round %d: nothing received from the VM after reconnect" % i)
        rc = vf.stop(20)
        check(rc == 0, "vfwd exit %d: %s" % (rc, vf.err()[-1500:]))
        final = vf.last_json()
        check(final["final"], "no final report")
        for name in ("vm_to_wire", "wire_to_vm"):
            d = dir_stats(final, name)
            check(d["rx_pkts"] == d["tx_pkts"] + d["drops"], "%s: rx != tx + drops: %s" % (name, d))
        check(dir_stats(final, "wire_to_vm")["drop_peer_down"] > 0,
              "no peer-down drops counted while the VM was away")
        check(final["mempool"]["in_use"] == final["mempool"]["in_use_at_start"],
              "mbufs leaked: %s" % final["mempool"])


def test_fast_reconnects_100_in_napi_mode():
    """100 connect/disconnect cycles of a virtio-user peer (every other one
    killed) while vfwd is in napi mode, so that every reconnection also
    renews the rx interrupt eventfds it sleeps on.

    Two workers split the directions: the one that receives from the VM
    polls only the vhost queue, which has interrupts, so it sleeps in epoll
    for the whole --sleep-max-us (100 ms) and only a kick on the current
    eventfd wakes it sooner. An eventfd left stale by a reconnect shows as
    no interrupt wake-up and a vring that drains only every 100 ms."""
    with Env("reconnect100") as env:
        sock = env.path("vh.sock")
        # the wire only sinks: between peers vfwd is idle and sleeps
        vf = env.vfwd(["net_vhost0,iface=%s,tso=1" % sock, "net_null0,no-rx=1"],
                      ["--stats-format", "json", "--stats-period", "0.25", "--rx-mode", "napi",
                       "--sleep-max-us", "100000"], lcores="0@0,1@1,2@1")
        vf.wait_output('"final":false', 30)
        for i in range(100):
            peer = env.peer(["net_virtio_user0,path=" + sock],
                            ["--tx-port", "0", "--rx-port", "0", "--duration", "0.05",
                             "--timeout", "2", "--size", "128"], name="peer%d" % (i % 2))
            if i % 2:
                peer.wait_output("ready", 30, stream="err")
                peer.stop(10, sig=signal.SIGKILL)
            else:
                rc = peer.wait(30)
                check(rc == 0, "peer %d exit %d: %s" % (i, rc, peer.err()[-800:]))
            env.procs.remove(peer)
            peer._out.close()
            peer._err.close()
            check(vf.p.poll() is None, "vfwd died in cycle %d: %s" % (i, vf.err()[-1500:]))
        # let the worker fall asleep on the eventfds of no guest
        time.sleep(1.0)
        before = wait_new_report(vf, latest(vf)["t"])
        vm_lcore = [lc for lc in before["lcores"]
                    if lc["dirs"]["vm_to_wire"]["rx_pkts"] > 0]
        check(len(vm_lcore) == 1, "not one lcore receives from the VM: %s" % before["lcores"])
        vm_lcore = vm_lcore[0]["lcore"]

        def lcore_of(report):
            return [lc for lc in report["lcores"] if lc["lcore"] == vm_lcore][0]

        # a guest connects to a sleeping worker: its first kick must wake it
        peer = env.peer(["net_virtio_user0,path=" + sock],
                        ["--tx-port", "0", "--count", "20000", "--size", "128",
                         "--timeout", "10", "--idle-ms", "300"], name="peer-last")
        check(peer.wait(30) == 0, peer.err()[-800:])
        got = peer.last_json()
        check(got["tx"] == 20000, "last peer: %s" % got)
        after = wait_new_report(vf, latest(vf)["t"], timeout=5)
        b, a = lcore_of(before), lcore_of(after)
        taken = a["dirs"]["vm_to_wire"]["rx_pkts"] - b["dirs"]["vm_to_wire"]["rx_pkts"]
        check(taken == got["tx"], "vfwd took %d of the last peer's %d frames" % (taken, got["tx"]))
        check(a["wakeups_intr"] > b["wakeups_intr"],
              "no rx interrupt woke the worker after the last reconnect: %s -> %s"
              % ({k: b[k] for k in ("sleeps", "wakeups_intr")},
                 {k: a[k] for k in ("sleeps", "wakeups_intr")}))
        # that lcore polls only the vhost queue: each of them a kick
        check(a["wakeups_kick"] - b["wakeups_kick"] == a["wakeups_intr"] - b["wakeups_intr"],
              "kicks %d of %d interrupt wake-ups" % (a["wakeups_kick"] - b["wakeups_kick"],
                                                   a["wakeups_intr"] - b["wakeups_intr"]))
        rc = vf.stop(20)
        check(rc == 0, "vfwd exit %d: %s" % (rc, vf.err()[-1500:]))
        final = vf.last_json()
        for name in ("vm_to_wire", "wire_to_vm"):
            d = dir_stats(final, name)
            check(d["rx_pkts"] == d["tx_pkts"] + d["drops"], "%s: rx != tx + drops: %s" % (name, d))
        lc = lcore_of(final)
        check(lc["sleeps"] > 0 and lc["intr_queues"] > 0, "napi never slept on interrupts: %s"
              % {k: lc[k] for k in ("sleeps", "intr_queues", "wakeups_intr")})
        # net_null takes everything: nothing the VM sent may be dropped
        d = dir_stats(final, "vm_to_wire")
        check(d["drops"] == 0 and d["tx_pkts"] == d["rx_pkts"], "vm_to_wire drops: %s" % d)
        check(final["mempool"]["in_use"] == final["mempool"]["in_use_at_start"],
              "mbufs leaked: %s" % final["mempool"])
