# SPDX-License-Identifier: BSD-3-Clause
"""Per-stage residence time (--latency on, set latency on|off, show latency,
/vfwd/latency), through real PMDs: dpdk-vfwd-gen's TCP segments from the
wire merged by heavy GRO toward the VM, whose waits the gro stage counts:

    gen(virtio_user0) <-- vfwd(net_vhost0,tso=1 | net_memif0) <-- gen(net_memif0)

The generator is paced (a flow at a few thousand segments a second), so
that GRO's timeout policy, not a full frame, ends most frames: each frame
then waits about --gro-flush-us from its first segment. The exact waits of
each stage against a clock under the test's control are unit/test_worker's
latency_* tests.
"""

import json

from vfwdtest import Env, check, gen_topology, telemetry

FLUSH_US = 400
GEN = ["--profile", "tcp", "--dir", "wire-to-vm", "--rate", "4000", "--count", "4000",
       "--mss", "1448", "--timeout", "30", "--format", "json", "--linger"]
VFWD = ["--gro", "--gro-mode", "heavy", "--gro-flush-policy", "timeout",
        "--gro-flush-us", str(FLUSH_US)]


def send(env, gen_vdevs, tag):
    g = env.gen(gen_vdevs, GEN, name="gen-" + tag)
    g.wait_output('"ok"', 60)
    rep = g.last_json()
    check(g.stop(20) in (0, 3), "generator: " + g.err()[-800:])
    x = rep["dirs"]["wire_to_vm"]
    check(x["sent"] == 4000 and x["received"] + x["lost"] == x["sent"], "generator: %s" % x)
    return x


def show(vf):
    out = vf.command("show latency json")
    line = [ln for ln in out.splitlines() if ln.startswith("{")]
    check(line, "show latency json: %r" % out[-600:])
    return json.loads(line[-1])


def test_latency_gro_waits_bounded_by_its_flush_switched_and_cleared():
    """Off (the default): nothing counted. set latency on: the gro stage
    counts every frame out of heavy GRO, the median wait at most the flush
    time (the log2 bucket's interpolation aside: <= 2x), no other stage
    counts; the text, the JSON and /vfwd/latency agree on the count. clear
    fwd stats empties it; set latency off: nothing more counted."""
    with Env("latency") as env:
        fwd_vdevs, gen_vdevs = gen_topology(env, tso=True)
        vf = env.vfwd_pty(fwd_vdevs, VFWD + ["--stats-format", "json"])
        prefix = env.prefixes[-1]
        vf.expect(r"vfwd> ", 30)
        check("forwarding started" in vf.command("start"), vf.screen()[-800:])

        send(env, gen_vdevs, "off")
        j = show(vf)
        check(j["latency_on"] is False and
              all(s["count"] == 0 for s in j["total"]["latency"].values()),
              "latency off, yet counted: %s" % j["total"])

        check("latency = on" in vf.command("set latency on"), vf.screen()[-400:])
        x = send(env, gen_vdevs, "on")
        j = show(vf)
        gro = j["total"]["latency"]["gro"]
        frames = vf.command_json("show fwd stats json")
        w2v = frames["total"]["dirs"]["wire_to_vm"]
        check(gro["count"] > 0 and gro["count"] <= w2v["gro_out"],
              "gro stage %s, gro_out %d" % (gro, w2v["gro_out"]))
        check(0 < gro["p50_us"] <= 2 * FLUSH_US and gro["mean_us"] > 0,
              "gro waits: %s (flush %d us)" % (gro, FLUSH_US))
        others = {k: v["count"] for k, v in j["total"]["latency"].items() if k != "gro"}
        check(not any(others.values()), "other stages counted: %s" % others)
        text = vf.command("show latency")
        check("gro" in text and str(gro["count"]) in text, text)
        t = telemetry(env, prefix, ["/vfwd/latency"])["/vfwd/latency"]
        check(t["latency"] == "on" and t["total"]["gro/count"] == gro["count"] and
              abs(t["total"]["gro/p50_ns"] - gro["p50_us"] * 1000) <= 1000,
              "telemetry %s against %s" % (t["total"], gro))
        print("     gro stage: %d frames (%d segments received), wait mean %.0f us, p50 %.0f, "
              "p99 %.0f, max %.0f (flush %d us); %d lost by the generator's count"
              % (gro["count"], w2v["rx_pkts"], gro["mean_us"], gro["p50_us"], gro["p99_us"],
                 gro["max_us"], FLUSH_US, x["lost"]))

        vf.command("clear fwd stats")
        check(show(vf)["total"]["latency"]["gro"]["count"] == 0, "clear left latency counts")
        check("latency = off" in vf.command("set latency off"), vf.screen()[-400:])
        send(env, gen_vdevs, "off-again")
        check(show(vf)["total"]["latency"]["gro"]["count"] == 0, "counted while off")
        vf.send("quit")
        check(vf.wait(30) == 0, vf.screen()[-800:])
