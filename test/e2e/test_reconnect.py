# SPDX-License-Identifier: BSD-3-Clause
"""Peers that come and go, and what arrived while they did: a virtio-user
peer connects, exchanges traffic with a wire peer and goes away 10 times
(every other time killed with SIGKILL) while the wire peer keeps sending.
vfwd keeps running and forwards after every reconnect; every frame either
arrived intact or is a drop vfwd counted with its cause (peer-down while
no VM was there), and no mbuf leaks.

    peer(virtio_user0) <-> vfwd(net_vhost0 | net_memif0) <-> wire peer(net_memif0)
"""

import signal
import time

from vfwdtest import Env, check, check_devices_quiesced, dir_stats, toggle_pause

ROUNDS = 10
# frames/s each way: paced, so that a receiver's ring (1024 slots toward the
# VM, 4096 on the memif wire) rides out the moments it is not scheduled
RATE = 20000


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


def settled(vf, secs=0.5):
    """A report of vfwd's made at least secs after now: what was in flight
    when a sender paused has been forwarded by then."""
    first = wait_new_report(vf, latest(vf)["t"])
    return wait_new_report(vf, first["t"] + secs, timeout=5 + secs)


def w2v(report):
    return report["total"]["dirs"]["wire_to_vm"]


def test_reconnect_10_times():
    with Env("reconnect") as env:
        vh, mf = env.path("vh.sock"), env.path("memif.sock")
        vf = env.vfwd(["net_vhost0,iface=%s,tso=1" % vh, "net_memif0,role=server,socket=%s" % mf],
                      ["--stats-format", "json", "--stats-period", "0.25"])
        vf.wait_output('"final":false', 30)
        # the wire for the whole test: sends toward the VM (paused while a
        # round's accounts are taken) and checks every frame from the VMs
        wire = env.peer(["net_memif0,role=client,socket=%s,rsize=12" % mf],
                        ["--tx-port", "0", "--rx-port", "0", "--rate", str(RATE), "--paused",
                         "--seq-base", "1000000000", "--size", "128", "--duration", "1000",
                         "--timeout", "1200", "--idle-ms", "500", "--linger"], name="wire")
        wire.wait_output("ready", 30, stream="err")
        wire_sent, vm_sent, clean_rounds = 0, 0, 0
        for i in range(ROUNDS):
            peer = env.peer(["net_virtio_user0,path=%s,queue_size=1024" % vh],
                            ["--tx-port", "0", "--rx-port", "0", "--rate", str(RATE),
                             "--seq-base", str(i * 1000000), "--size", "128", "--duration", "100",
                             "--timeout", "120", "--paused"], name="peer%d" % i)
            peer.wait_output("ready", 30, stream="err")
            before = settled(vf, 0.3)
            toggle_pause(peer, False)
            toggle_pause(wire, False)
            time.sleep(1.0)
            if i % 2:
                # gone in the middle of the traffic: what vfwd had put in
                # its ring goes with it; what follows is peer-down
                peer.stop(10, sig=signal.SIGKILL)
                time.sleep(0.3)
                wire_sent = toggle_pause(wire, True)
            else:
                # both senders pause, what was in flight is forwarded:
                # then the round's accounts are exact
                sent_before = wire_sent
                vm_round = toggle_pause(peer, True)
                wire_sent = toggle_pause(wire, True)
                after = settled(vf)
                rc = peer.stop(10)  # SIGTERM: the report, exit 0
                check(rc == 0, "round %d: peer exit %d: %s" % (i, rc, peer.err()[-800:]))
                got = peer.last_json()
                a, b = w2v(after), w2v(before)
                # what the wire sent in the round: vfwd took all of it,
                # and what it sent on arrived, every byte checked
                check(a["rx_pkts"] - b["rx_pkts"] == wire_sent - sent_before,
                      "round %d: the wire sent %d, vfwd took %d" %
                      (i, wire_sent - sent_before, a["rx_pkts"] - b["rx_pkts"]))
                check(got["rx"] == a["tx_pkts"] - b["tx_pkts"] and got["rx"] > 0,
                      "round %d: vfwd sent %d toward the VM, it got %d" %
                      (i, a["tx_pkts"] - b["tx_pkts"], got["rx"]))
                check(got["rx_bad"] == 0 and got["rx_dup"] == 0 and got["rx_reorder"] == 0 and
                      got["rx_other"] == 0, "round %d: at the VM: %s" % (i, got))
                up_a, up_b = after["total"]["dirs"]["vm_to_wire"], before["total"]["dirs"]["vm_to_wire"]
                check(got["tx"] == vm_round > 0 and up_a["rx_pkts"] - up_b["rx_pkts"] == vm_round,
                      "round %d: the VM sent %d (said %d), vfwd took %d" %
                      (i, got["tx"], vm_round, up_a["rx_pkts"] - up_b["rx_pkts"]))
                vm_sent += got["tx"]
                clean_rounds += 1
            check(vf.p.poll() is None, "vfwd died in round %d: %s" % (i, vf.err()[-1500:]))
            now = settled(vf, 0.3)
            check(w2v(now)["tx_pkts"] > w2v(before)["tx_pkts"],
                  "round %d: nothing forwarded to the VM after reconnect" % i)
            check(now["total"]["dirs"]["vm_to_wire"]["rx_pkts"] >
                  before["total"]["dirs"]["vm_to_wire"]["rx_pkts"],
                  "round %d: nothing received from the VM after reconnect" % i)
        # the wire ends its run (SIGUSR1: stop sending, drain, report)
        wire.p.send_signal(signal.SIGUSR1)
        wire.wait_output('"tx"', 30)
        there = wire.last_json()
        rc = vf.stop(20)
        check(rc == 0, "vfwd exit %d: %s" % (rc, vf.err()[-1500:]))
        final = vf.last_json()
        check(final["final"], "no final report")
        check(wire.stop(10) == 0, "wire peer: %s" % wire.err()[-800:])
        for name in ("vm_to_wire", "wire_to_vm"):
            d = dir_stats(final, name)
            check(d["rx_pkts"] == d["tx_pkts"] + d["drops"], "%s: rx != tx + drops: %s" % (name, d))
        up, down = dir_stats(final, "vm_to_wire"), dir_stats(final, "wire_to_vm")
        causes = {k: v for k, v in down.items() if k.startswith("drop_") and v}
        # toward the VM: every frame the wire sent reached vfwd; what it
        # dropped was for no VM there, or a VM's ring full
        check(down["rx_pkts"] == there["tx"] == wire_sent,
              "the wire sent %d (said %d), vfwd took %d" % (there["tx"], wire_sent, down["rx_pkts"]))
        check(down["drop_peer_down"] > 0 and
              down["drops"] == down["drop_peer_down"] + down["drop_tx_full"],
              "toward the VM: drops %s" % causes)
        # toward the wire: all the VMs sent that vfwd took, it sent on or
        # counted, and the wire got what it sent, every byte checked
        check(there["rx"] == up["tx_pkts"] and up["drops"] == up["drop_tx_full"],
              "vfwd sent %d toward the wire (dropped %d: %s), the wire got %d"
              % (up["tx_pkts"], up["drops"], {k: v for k, v in up.items()
                                              if k.startswith("drop_") and v}, there["rx"]))
        check(up["rx_pkts"] > vm_sent and clean_rounds == (ROUNDS + 1) // 2,
              "vfwd took %d from the VMs, the clean ones alone sent %d" % (up["rx_pkts"], vm_sent))
        check(there["rx_bad"] == 0 and there["rx_dup"] == 0 and there["rx_other"] == 0,
              "at the wire: %s" % there)
        check(final["mempool"]["in_use"] == final["mempool"]["in_use_at_start"],
              "mbufs leaked: %s" % final["mempool"])
        check_devices_quiesced(final, ROUNDS)
        print("     %d rounds: the wire sent %d, %d reached the VMs, %d dropped with no VM there;"
              " the VMs sent %d, the wire got %d" % (ROUNDS, there["tx"], down["tx_pkts"],
                                                     down["drop_peer_down"], up["rx_pkts"],
                                                     there["rx"]), flush=True)


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
        sock, mf = env.path("vh.sock"), env.path("memif.sock")
        # the wire only receives (every frame checked): between peers vfwd
        # has nothing to do and sleeps
        vf = env.vfwd(["net_vhost0,iface=%s,tso=1" % sock, "net_memif0,role=server,socket=%s" % mf],
                      ["--stats-format", "json", "--stats-period", "0.25", "--rx-mode", "napi",
                       "--sleep-max-us", "100000"], lcores="0@0,1@1,2@1")
        vf.wait_output('"final":false', 30)
        wire = env.peer(["net_memif0,role=client,socket=%s,rsize=12" % mf],
                        ["--rx-port", "0", "--size", "128", "--duration", "1000",
                         "--timeout", "1200", "--idle-ms", "500", "--linger"], name="wire")
        wire.wait_output("ready", 30, stream="err")
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
        # the wire ends its run (SIGUSR1: a receive-only peer drains, reports)
        wire.p.send_signal(signal.SIGUSR1)
        wire.wait_output('"tx"', 30)
        there = wire.last_json()
        rc = vf.stop(20)
        check(rc == 0, "vfwd exit %d: %s" % (rc, vf.err()[-1500:]))
        final = vf.last_json()
        check(wire.stop(10) == 0, "wire peer: %s" % wire.err()[-800:])
        for name in ("vm_to_wire", "wire_to_vm"):
            d = dir_stats(final, name)
            check(d["rx_pkts"] == d["tx_pkts"] + d["drops"], "%s: rx != tx + drops: %s" % (name, d))
        lc = lcore_of(final)
        check(lc["sleeps"] > 0 and lc["intr_queues"] > 0, "napi never slept on interrupts: %s"
              % {k: lc[k] for k in ("sleeps", "intr_queues", "wakeups_intr")})
        # what the VMs sent reached the wire, every byte checked; the one
        # drop allowed, counted: the wire's ring full (the peers send
        # unpaced, and the wire may not be scheduled)
        d = dir_stats(final, "vm_to_wire")
        check(d["drops"] == d["drop_tx_full"] and there["rx"] == d["tx_pkts"],
              "vfwd sent %d toward the wire (dropped %d: %s), the wire got %d"
              % (d["tx_pkts"], d["drops"], {k: v for k, v in d.items()
                                            if k.startswith("drop_") and v}, there["rx"]))
        check(there["rx_bad"] == 0 and there["rx_dup"] == 0 and there["rx_other"] == 0,
              "at the wire: %s" % there)
        check(final["mempool"]["in_use"] == final["mempool"]["in_use_at_start"],
              "mbufs leaked: %s" % final["mempool"])
        check_devices_quiesced(final, 100)
