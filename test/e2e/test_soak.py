# SPDX-License-Identifier: BSD-3-Clause
"""Soak: traffic both ways for VFWD_SOAK_SECS (45 in CI; 600 for the
documented run), knobs flipped by a command file every 2 s, the guest
reconnecting every few seconds (every other time killed). Everything is
counted on the receiving side and compared with vfwd's counters:

    guest V (virtio_user0, one per cycle) <-> vfwd(net_vhost0 | net_memif0) <-> W (memif client)

W is one peer for the whole run: it sends toward the VM (paced, paused
between guest cycles) and checks every frame that arrives from the guests.
It outlives vfwd (the 22.11 memif PMD may fault when its peer vanishes
under a polling vfwd). Each guest V sends and receives for 2.5 s with its
own range of sequence numbers, then drains and exits, or is killed after
1.5 s. Between cycles no guest is connected, so vfwd's counters in a
report taken then are the exact boundary of a cycle.

Asserted, per guest cycle that ended cleanly: it sent and received (at
least a quarter of what its rate asks for, both ways), no bad, foreign,
duplicate or reordered frame, it received exactly what vfwd sent toward it
in its cycle and vfwd took exactly what it sent. At the end: W received
exactly what vfwd sent to the wire (frames and bytes), vfwd took exactly
what W sent, no bad frame at W; drops other than peer-down (the guest away)
bounded; rx = tx + drops by cause; mempool back to its start; RSS flat
within RSS_SLACK_KB (not under ASan: its quarantine grows RSS by design,
LeakSanitizer checks leaks there). 'clear fwd stats' is not among the
flips: the counts are compared over the whole run (test_prompt covers
clear). Both peers are paced (--rate) and nap when idle, so that they
share CPU 0 without starving each other's rings.
"""

import os
import random
import signal
import time

from vfwdtest import LOSS_SHARE, Env, check, dir_stats, toggle_pause

FLIPS = ["set burst 8", "set burst 32", "set burst 64", "set gro on", "set gro off",
         "set gro mode heavy", "set gro mode light", "set rx-mode napi", "set rx-mode poll",
         "set rx-mode adaptive", "set deliver deferred", "set deliver direct",
         "set tx-batch 16", "set tx-batch 1", "set tx-retry 0", "set tx-retry 8",
         "set vq-weight-pkts 16", "set vq-weight-pkts 256", "set gro flows 32",
         "set gro flows 64", "set backlog 512", "set backlog 1000",
         "show lcore stats json", "show port stats all"]

RATE = 100000        # frames/s each way
GUEST_SECS = 2.5     # a clean guest's --duration
GUEST_RING = 1024    # the guest's virtio ring (queue_size): ~10 ms at RATE, so a guest
                     # process descheduled for a few ms (it shares CPU 0) does not overflow it
# drops other than peer-down, of what vfwd received, per direction: only
# of the congestion causes (a receiver sharing its CPU not scheduled for a
# while: tx_full; the backlog and pipeline rings), and at most LOSS_SHARE
# (0.03-0.26% in the 45 s runs on a quiet machine, doc/reliability.md;
# 1.5% in issue 25's run beside a build); what the soak is about is that
# every frame is accounted for, intact, and nothing leaks or grows
DROP_BOUND = LOSS_SHARE
CONGESTION = ("drop_tx_full", "drop_backlog", "drop_ring")
# RSS growth from the second cycle to the end (measured: doc/reliability.md)
RSS_SLACK_KB = 256
SEQ_STEP = 1 << 40   # each guest's sequence numbers: (cycle + 1) * SEQ_STEP + n


def rss_kb(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def under_asan(pid):
    """vfwd built with AddressSanitizer (the runner's asan-e2e pass): its
    quarantine holds freed memory, so RSS grows by design there (and
    LeakSanitizer checks the leaks instead)."""
    with open("/proc/%d/maps" % pid) as f:
        return "libasan" in f.read()


def reports(vf):
    return [r for r in vf.json_lines() if "final" in r]


def fresh_report(vf, timeout=5):
    """A periodic report produced after this call started."""
    before = reports(vf)
    t0 = before[-1]["t"] if before else -1
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        r = reports(vf)
        if r and r[-1]["t"] > t0:
            return r[-1]
        time.sleep(0.05)
    raise AssertionError("vfwd stopped reporting: %s" % vf.err()[-800:])


def counters(report):
    a, b = dir_stats(report, "vm_to_wire"), dir_stats(report, "wire_to_vm")
    return {"v2w_rx": a["rx_pkts"], "v2w_tx": a["tx_pkts"], "w2v_rx": b["rx_pkts"],
            "w2v_tx": b["tx_pkts"]}


def check_guest(n, size, got, delta):
    """A guest cycle that ended cleanly, from the guest's side, against
    vfwd's counters over the cycle."""
    what = "guest %d (%d B): %s; vfwd in its cycle: %s" % (n, size, got, delta)
    check(got["tx"] >= RATE * GUEST_SECS / 4 and got["rx"] >= RATE * GUEST_SECS / 4,
          "traffic both ways too thin: " + what)
    check(got["rx_bad"] == 0 and got["rx_other"] == 0 and got["rx_dup"] == 0 and
          got["rx_reorder"] == 0, "bad, foreign, duplicate or reordered frames: " + what)
    check(delta["v2w_rx"] == got["tx"], "vfwd took %d of the guest's %d frames: %s"
          % (delta["v2w_rx"], got["tx"], what))
    check(delta["w2v_tx"] == got["rx"], "vfwd sent %d toward the guest, it got %d: %s"
          % (delta["w2v_tx"], got["rx"], what))


def test_soak():
    secs = int(os.environ.get("VFWD_SOAK_SECS", "45"))
    rnd = random.Random(42)
    with Env("soak") as env:
        sock, mf = env.path("vh.sock"), env.path("memif.sock")
        script = env.path("flip.cmd")
        with open(script, "w") as f:
            f.write("start\n")
            for _ in range(secs // 2 + 2):
                f.write("sleep 2\n")
                for _ in range(rnd.randint(1, 3)):
                    f.write(rnd.choice(FLIPS) + "\n")
            f.write("set tx-batch 1\nset deliver direct\nset rx-mode poll\n")
        vf = env.vfwd(["net_vhost0,iface=%s,tso=1" % sock, "net_memif0,role=server,socket=%s" % mf],
                      ["--cmdline-file", script, "--stats-format", "json", "--stats-period", "0.25"])
        vf.wait_output("forwarding started", 30)
        # W: the wire for the whole run; a 4096-slot memif ring (rsize)
        # rides out the moments it is not scheduled
        wire = env.peer(["net_memif0,role=client,socket=%s,rsize=12" % mf],
                        ["--tx-port", "0", "--rx-port", "0", "--count", "0", "--size", "700",
                         "--any-size", "--rate", str(RATE), "--paused", "--timeout",
                         str(secs + 300), "--linger"], name="wire")
        wire.wait_output("ready", 30, stream="err")
        end = time.monotonic() + secs
        rss_start = None
        cycles, clean = 0, []
        last = counters(fresh_report(vf))
        while time.monotonic() < end:
            size = rnd.choice([64, 512, 1500])
            guest = env.peer(["net_virtio_user0,path=%s,queue_size=%d" % (sock, GUEST_RING)],
                             ["--tx-port", "0", "--rx-port", "0", "--duration", str(GUEST_SECS),
                              "--timeout", "10", "--size", str(size), "--any-size", "--rate",
                              str(RATE), "--seq-base", str((cycles + 1) * SEQ_STEP)],
                             name="guest%d" % (cycles % 2))
            guest.wait_output("ready", 30, stream="err")
            toggle_pause(wire, False)  # W sends while this guest is there
            killed = cycles % 2 == 1
            if killed:
                time.sleep(1.5)
                guest.stop(10, sig=signal.SIGKILL)
            else:
                # W stops before the guest does: what vfwd sends toward
                # it in its cycle, it reads
                time.sleep(GUEST_SECS - 0.3)
            toggle_pause(wire, True)
            if not killed:
                rc = guest.wait(30)
                got = guest.last_json()
                check(rc == 0 and not got["timed_out"], "guest %d exit %d: %s" % (cycles, rc,
                                                                                 guest.err()[-800:]))
            env.procs.remove(guest)
            guest._out.close()
            guest._err.close()
            check(vf.p.poll() is None, "vfwd died after %d cycles: %s" % (cycles, vf.err()[-1500:]))
            # no guest now: a report from here on is the cycle's boundary
            time.sleep(0.3)
            now = counters(fresh_report(vf))
            if not killed:
                check_guest(cycles, size, got, {k: now[k] - last[k] for k in now})
                clean.append(got)
            last = now
            cycles += 1
            if rss_start is None and cycles == 2:
                rss_start = rss_kb(vf.pid)
        rss_end = rss_kb(vf.pid)
        asan = under_asan(vf.pid)
        # W: stop sending, drain, report (and linger: it outlives vfwd)
        wire.p.send_signal(signal.SIGUSR1)
        wire.wait_output('"tx"', 30)
        w = wire.last_json()
        # the script may still be running: the final report comes at stop
        rc = vf.stop(30)
        check(rc == 0, "vfwd exit %d: %s" % (rc, vf.err()[-1500:]))
        wrc = wire.stop(20)
        check(wrc == 0 and not w["timed_out"], "wire peer exit %d: %s" % (wrc, wire.err()[-800:]))
        final = vf.last_json()
        check(final["final"], "no final report")
        check(cycles >= 4 and len(clean) >= 2, "only %d cycles" % cycles)

        # the wire side, over the whole run
        a, b = dir_stats(final, "vm_to_wire"), dir_stats(final, "wire_to_vm")
        check(w["rx_bad"] == 0 and w["rx_other"] == 0 and w["rx_dup"] == 0 and
              w["rx_reorder"] == 0, "the wire got bad, foreign, duplicate or reordered frames: %s"
              % w)
        check(w["rx"] == a["tx_pkts"] and w["rx_bytes"] == a["tx_bytes"],
              "the wire got %d frames (%d B), vfwd sent %d (%d B): %s"
              % (w["rx"], w["rx_bytes"], a["tx_pkts"], a["tx_bytes"], w))
        check(w["tx"] == b["rx_pkts"] and w["tx_bytes"] == b["rx_bytes"],
              "the wire sent %d frames (%d B), vfwd took %d (%d B)"
              % (w["tx"], w["tx_bytes"], b["rx_pkts"], b["rx_bytes"]))
        check(w["tx"] > 0 and w["rx"] > 0, "no traffic on the wire: %s" % w)
        for name, d in (("vm_to_wire", a), ("wire_to_vm", b)):
            causes = sum(v for k, v in d.items() if k.startswith("drop_"))
            check(causes == d["drops"], "%s: drop causes: %s" % (name, d))
            # GRO (on in some flips) merges no UDP, but keep its accounting
            check(d["out_expected"] == d["tx_pkts"] + d["drops"], "%s: %s" % (name, d))
            other = d["drops"] - d["drop_peer_down"]
            check(other == sum(d[k] for k in CONGESTION) and other <= DROP_BOUND * d["rx_pkts"],
                  "%s: %d drops (%s) of %d, more than %g%% or not all of congestion"
                  % (name, other, {k: v for k, v in d.items() if k.startswith("drop_") and v},
                     d["rx_pkts"], DROP_BOUND * 100))
        check(final["mempool"]["in_use"] == final["mempool"]["in_use_at_start"],
              "mbufs leaked: %s" % final["mempool"])
        check(asan or rss_end <= rss_start + RSS_SLACK_KB, "RSS grew: %d kB -> %d kB (+%d kB, at most %d)"
              % (rss_start, rss_end, rss_end - rss_start, RSS_SLACK_KB))
        print("     %d s, %d guest cycles (%d clean), %d knob flips, RSS %d -> %d kB (%+d%s)"
              % (secs, cycles, len(clean), sum(1 for ln in open(script)
                                               if ln.startswith(("set", "show"))),
                 rss_start, rss_end, rss_end - rss_start,
                 ", ASan: not checked" if asan else ""))
        print("     vm->wire %d frames, drops %s; wire->vm %d, drops %s; the wire got %d, sent %d"
              % (a["rx_pkts"], {k: v for k, v in a.items() if k.startswith("drop_") and v},
                 b["rx_pkts"], {k: v for k, v in b.items() if k.startswith("drop_") and v},
                 w["rx"], w["tx"]))
