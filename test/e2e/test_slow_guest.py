# SPDX-License-Identifier: BSD-3-Clause
"""A guest that stops reading its rx ring must not stall anything else:
its own other direction, or another pair on the same lcore. What cannot be
delivered is dropped after the retries and counted (tx_full); when a
reader comes back, forwarding toward that VM resumes.

    guest A (sends, never reads) <-> vfwd pair 0 (net_vhost0 | net_null0 source)
    guest B (reads)              <-> vfwd pair 1 (net_vhost1 | net_null1 source)
    one worker lcore for both pairs
"""

import time

from vfwdtest import Env, check


def rates(vf, secs):
    """Per-second tx rates of each pair's directions over the next secs."""
    first = vf.json_lines()[-1]
    time.sleep(secs)
    last = vf.json_lines()[-1]
    dt = last["t"] - first["t"]
    check(dt > 0, "no new reports")
    # per lcore there is one worker; the per-pair figures come from ports
    ports0 = {p["name"]: p for p in first["ports"]}
    ports1 = {p["name"]: p for p in last["ports"]}
    out = {}
    for name in ports1:
        out[name] = {k: (ports1[name][k] - ports0[name][k]) / dt for k in ("ipackets", "opackets")}
    out["drops_tx_full"] = (last["total"]["dirs"]["wire_to_vm"]["drop_tx_full"] -
                            first["total"]["dirs"]["wire_to_vm"]["drop_tx_full"]) / dt
    return out


def test_stuck_guest_blocks_nothing_else():
    with Env("slowguest") as env:
        sa, sb = env.path("a.sock"), env.path("b.sock")
        vf = env.vfwd(["net_vhost0,iface=%s" % sa, "net_null0,size=64",
                       "net_vhost1,iface=%s" % sb, "net_null1,size=64"],
                      ["--pair", "0:1", "--pair", "2:3", "--stats-format", "json",
                       "--stats-period", "0.5"])
        vf.wait_output('"final":false', 30)
        guest_b = env.peer(["net_virtio_user1,path=" + sb],
                           ["--rx-port", "0", "--duration", "12", "--timeout", "20"],
                           name="guest-b")
        guest_b.wait_output("ready", 30, stream="err")
        time.sleep(1)
        alone = rates(vf, 2)
        # guest A connects, sends 1000 frames, and never reads its rx ring
        guest_a = env.peer(["net_virtio_user0,path=" + sa],
                           ["--tx-port", "0", "--count", "1000", "--timeout", "10",
                            "--size", "64", "--linger"], name="guest-a")
        guest_a.wait_output('"tx"', 30)
        time.sleep(0.5)
        stuck = rates(vf, 2)
        check(guest_a.last_json()["tx"] == 1000, guest_a.out()[-300:])
        guest_a.stop(20)
        # A's ring was full: what went toward it was dropped as tx_full,
        # while A's own sending went on to the wire
        check(stuck["drops_tx_full"] > 0, "no tx_full drops toward the stuck guest: %s" % stuck)
        a_sent = [p for p in vf.json_lines()[-1]["ports"] if p["name"] == "net_null0"][0]
        check(a_sent["opackets"] >= 1000, "the stuck guest's own frames did not all reach the "
              "wire: %s" % a_sent)
        # pair 1 is not stalled. It shares the lcore with pair 0, whose
        # source now costs a failed tx_burst per burst instead of a
        # peer-down drop, so some slowdown is fair; on this noisy machine
        # runs gave 0.59x to 1.03x. Stalled would be ~0.
        check(stuck["net_vhost1"]["opackets"] > 0.25 * alone["net_vhost1"]["opackets"],
              "pair 1 to its VM: %.0f pps alone, %.0f pps beside a stuck guest"
              % (alone["net_vhost1"]["opackets"], stuck["net_vhost1"]["opackets"]))
        # a reader comes back on A: forwarding toward A resumes
        guest_a2 = env.peer(["net_virtio_user0,path=" + sa],
                            ["--rx-port", "0", "--duration", "2", "--timeout", "10"],
                            name="guest-a2")
        check(guest_a2.wait(30) == 0, guest_a2.err()[-500:])
        got = guest_a2.last_json()
        check(got["rx"] + got["rx_other"] > 0, "nothing reached guest A after it read again")
        guest_b.stop(20)
        check(vf.stop(20) == 0, vf.err()[-800:])
        final = vf.last_json()
        for name in ("vm_to_wire", "wire_to_vm"):
            d = final["total"]["dirs"][name]
            causes = sum(v for k, v in d.items() if k.startswith("drop_"))
            check(d["rx_pkts"] == d["tx_pkts"] + d["drops"] and causes == d["drops"],
                  "%s: %s" % (name, d))
        check(final["mempool"]["in_use"] == final["mempool"]["in_use_at_start"],
              "mbufs leaked: %s" % final["mempool"])
        print("     to VM B: %.2f Mpps alone, %.2f Mpps beside a stuck guest; %.2f Mpps "
              "tx_full drops toward it" % (alone["net_vhost1"]["opackets"] / 1e6,
                                           stuck["net_vhost1"]["opackets"] / 1e6,
                                           stuck["drops_tx_full"] / 1e6))
