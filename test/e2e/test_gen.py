# SPDX-License-Identifier: BSD-3-Clause
"""dpdk-vfwd-gen through vfwd: clean runs of every profile and direction
report nothing wrong and agree with vfwd's own counts; faults injected on
purpose (a dropped, a reordered, a duplicated and a corrupted unit) are each
reported, also when vfwd's GRO merges the frames around them.

    gen(virtio_user0) <-> vfwd(net_vhost0 | net_memif0) <-> gen(net_memif0)
"""

from vfwdtest import Env, check, counted_loss, dir_stats, gen_through_vfwd, gen_topology

# the most segments of MSS 1448 in one GRO frame toward the VM
MAX_SEGS = (65535 - 40) // 1448


def clean(rep, d):
    """Nothing lost: for the closed-loop request/response profile, whose
    few outstanding requests cannot fill a ring."""
    x = rep["dirs"][d]
    check(x["lost"] == 0 and x["reordered"] == 0 and x["duplicates"] == 0 and
          x["corrupted"] == 0 and x["other"] == 0, "%s not clean: %s" % (d, x))
    check(x["received"] == x["sent"] > 0, "%s: received %d of %d" % (d, x["received"], x["sent"]))
    return x


def accounted(rep, final, d, max_units=1):
    """A paced stream: what did not arrive is a loss vfwd counted (see
    vfwdtest.counted_loss); nothing else went wrong."""
    return counted_loss(rep["dirs"][d], dir_stats(final, d), d, max_units)


def test_udp_both_directions():
    with Env("gen-udp") as env:
        rep, final = gen_through_vfwd(env, [], ["--dir", "both", "--flows", "16", "--size",
                                                "1518", "--rate", "100k", "--duration", "1"])
        for d in ("vm_to_wire", "wire_to_vm"):
            v = dir_stats(final, d)
            # 100 kpps each way with the generator's four tasks on one CPU
            # beside vfwd: its receiver can fall behind and vfwd then finds
            # the VM's ring full. Such a loss must be exactly what vfwd
            # counted as tx_full; nothing else may go wrong.
            x = accounted(rep, final, d)
            check(v["rx_pkts"] == x["sent_frames"] and v["tx_pkts"] == x["frames"],
                  "%s: vfwd rx %d tx %d, generator sent %d got %d" %
                  (d, v["rx_pkts"], v["tx_pkts"], x["sent_frames"], x["frames"]))
            check(x["bytes"] == x["frames"] * 1514 and v["tx_bytes"] == x["bytes"],
                  "%s: bytes %s / vfwd %d" % (d, x["bytes"], v["tx_bytes"]))
            # the pacing holds the rate down (how near it comes depends on
            # the CPU the generator gets: not judged here)
            check(0 < x["tx_pps"] < 120e3, "%s: sent at %.0f pps for --rate 100k" % (d, x["tx_pps"]))
            lat = x["latency_us"]
            check(lat["count"] == x["received"] and
                  0 < lat["min"] <= lat["p50"] <= lat["p90"] <= lat["p99"] <= lat["p999"] <= lat["max"],
                  "%s: latency %s" % (d, lat))
        lost = sum(rep["dirs"][d]["lost"] for d in ("vm_to_wire", "wire_to_vm"))
        check(rep["ok"] == (lost == 0), "report ok %s with %d lost" % (rep["ok"], lost))


def test_tcp_gro_toward_vm_checks_merged_frames():
    with Env("gen-gro") as env:
        rep, final = gen_through_vfwd(env, ["--gro", "--gro-mode", "heavy"],
                                      ["--profile", "tcp", "--dir", "wire-to-vm", "--flows", "4",
                                       "--count", "20000", "--rate", "200k"], tso=True)
        x = accounted(rep, final, "wire_to_vm", MAX_SEGS)
        # merged: fewer, larger frames, every segment's bytes where they belong
        check(x["frames"] < x["received"] and x["max_frame"] > 1514,
              "no merging seen: %d frames for %d segments, largest %d" %
              (x["frames"], x["received"], x["max_frame"]))
        check(x["payload"] == x["received"] * 1448, "payload %d for %d segments"
              % (x["payload"], x["received"]))


def test_tcp_tso_from_vm_is_segmented():
    with Env("gen-tso") as env:
        rep, final = gen_through_vfwd(env, [], ["--profile", "tcp", "--tso", "4", "--flows", "3",
                                                "--count", "5000", "--rate", "50k"], tso=True)
        x = accounted(rep, final, "vm_to_wire")
        check(x["sent"] == 20000 and x["sent_frames"] == 5000, "sent %s" % x)
        # the memif wire has no TSO: vfwd cut them to MSS-sized segments
        v = dir_stats(final, "vm_to_wire")
        check(v["gso_segs"] == 20000 and x["frames"] == x["received"] and
              x["max_frame"] == 1448 + 54, "%d segments cut, %d frames for %d, largest %d"
              % (v["gso_segs"], x["frames"], x["received"], x["max_frame"]))


def test_tcp_ipv6_vlan_timestamps_both_ways():
    """What a guest's VLAN sub-interface sends over IPv6: tagged TCP/IPv6
    with timestamps (a 32-byte TCP header), as TSO frames from the VM side
    (cut by vfwd's own segmenter) and as segments toward the VM (GRO on:
    vfwd's engine merges tagged TCP/IPv6 where segments meet in a poll).
    Every byte, in order, both ways."""
    hdrs = 18 + 40 + 32
    with Env("gen-v6vlan") as env:
        rep, final = gen_through_vfwd(env, ["--gro", "--gro-mode", "heavy"],
                                      ["--profile", "tcp", "--dir", "both", "--ipv6", "--vlan",
                                       "100", "--tcp-ts", "--mss", "1428", "--tso", "4",
                                       "--flows", "3", "--count", "3000", "--rate", "30k"],
                                      tso=True)
        check(rep["ip"] == 6 and rep["vlan"] == 100 and rep["tcp_ts"], "shape: %s" % rep)
        up = accounted(rep, final, "vm_to_wire")
        check(up["sent"] == 12000 and up["frames"] == up["received"] and
              up["max_frame"] == 1428 + hdrs,
              "vm->wire: %d segments in %d frames, largest %d" %
              (up["sent"], up["frames"], up["max_frame"]))
        down = accounted(rep, final, "wire_to_vm", (65535 - 40 - 32) // 1428)
        w2v = dir_stats(final, "wire_to_vm")
        # GRO's frames: those sent on and those dropped
        check(down["sent"] == 3000 and w2v["gro_in"] == 3000 and
              down["frames"] + w2v["drops"] == w2v["gro_out"] and
              down["max_frame"] >= 1428 + hdrs, "wire->vm: %s; vfwd %s" % (down, w2v))


def test_tcp_vlan_tso_from_vm_is_segmented():
    """Tagged TCP/IPv4 TSO frames (a VLAN sub-interface over IPv4)."""
    with Env("gen-vlantso") as env:
        rep, final = gen_through_vfwd(env, [], ["--profile", "tcp", "--vlan", "7", "--tso", "5",
                                                "--tcp-ts", "--mss", "1448", "--flows", "2",
                                                "--count", "2000", "--rate", "30k"], tso=True)
        x = accounted(rep, final, "vm_to_wire")
        check(x["sent"] == 10000 and x["frames"] == x["received"] and
              x["max_frame"] == 1448 + 18 + 20 + 32, "vm->wire: %s" % x)


def test_tcp_timestamps_merged_toward_vm():
    """Segments with equal timestamp options merge (the kernel's rule and
    librte_gro's), and the merged frame keeps the option."""
    with Env("gen-tsgro") as env:
        rep, final = gen_through_vfwd(env, ["--gro", "--gro-mode", "heavy"],
                                      ["--profile", "tcp", "--dir", "wire-to-vm", "--tcp-ts",
                                       "--flows", "2", "--count", "10000", "--rate", "200k"],
                                      tso=True)
        x = accounted(rep, final, "wire_to_vm", (65535 - 40 - 12) // 1448)
        check(x["frames"] < x["received"] and x["max_frame"] > 1514,
              "no merging: %d frames for %d segments, largest %d" %
              (x["frames"], x["received"], x["max_frame"]))


def test_udp_ipv6_vlan_both_directions():
    with Env("gen-udp6") as env:
        rep, final = gen_through_vfwd(env, [], ["--dir", "both", "--ipv6", "--vlan", "4094",
                                                "--flows", "8", "--size", "1518", "--count",
                                                "20000", "--rate", "50k"])
        for d in ("vm_to_wire", "wire_to_vm"):
            x = accounted(rep, final, d)
            check(x["sent"] == 20000 and x["bytes"] == x["frames"] * 1514, "%s: %s" % (d, x))


def test_rr_latency():
    with Env("gen-rr") as env:
        rep, final = gen_through_vfwd(env, [], ["--profile", "rr", "--outstanding", "4",
                                                "--flows", "4", "--duration", "1"])
        rr = rep["rr"]
        check(rr["transactions"] > 1000 and rr["timeouts"] == 0, "rr: %s" % rr)
        clean(rep, "vm_to_wire")
        back = clean(rep, "wire_to_vm")
        check(rr["transactions"] == back["received"], "transactions %d, answers %d"
              % (rr["transactions"], back["received"]))
        lat = rr["rtt_us"]
        check(lat["count"] == rr["transactions"] and
              0 < lat["p50"] <= lat["p90"] <= lat["p99"] <= lat["p999"] <= lat["max"],
              "rtt %s" % lat)
        # both ways through vfwd: its counts match the generator's
        for d in ("vm_to_wire", "wire_to_vm"):
            check(dir_stats(final, d)["tx_pkts"] == rep["dirs"][d]["frames"], "%s: %s" % (d, final))


# the faults are what is counted here, so nothing else may be lost: 1000
# units, fewer than either ring holds (1024 toward the VM, 4096 on the
# wire), cannot overflow one however late the generator gets to read
INJECT = ["--inject", "drop=100,reorder=200,dup=300,corrupt=400", "--count", "1000", "--rate", "50k"]


def injected(rep, d, final):
    x = rep["dirs"][d]
    check(not rep["ok"], "a faulty run reported ok")
    check(x["gen_dropped"] == 1, "the generator did not drop one: %s" % x)
    # vfwd may drop the corrupted one itself (a bad checksum): then it is lost
    v = dir_stats(final, d)
    vdrop = v["drops"]
    check(vdrop == v["drop_bad_csum"] and vdrop in (0, 1), "vfwd dropped %s"
          % {k: n for k, n in v.items() if k.startswith("drop_") and n})
    check(x["lost"] == 1 + vdrop and x["corrupted"] == 1 - vdrop,
          "lost %d corrupted %d (vfwd drops %d): %s" % (x["lost"], x["corrupted"], vdrop, x))
    check(x["reordered"] == 1 and x["duplicates"] == 1, "reordered %d dup %d: %s"
          % (x["reordered"], x["duplicates"], x))
    check(x["received"] == x["sent"] - 2, "received %d of %d" % (x["received"], x["sent"]))


def test_injected_faults_udp():
    with Env("gen-inj-udp") as env:
        rep, final = gen_through_vfwd(env, [], INJECT + ["--size", "128"])
        injected(rep, "vm_to_wire", final)
        check(rep["dirs"]["vm_to_wire"]["bad_payload"] + rep["dirs"]["vm_to_wire"]["bad_csum"] == 1,
              "corruption not caught by a check: %s" % rep)


def test_injected_faults_tcp_through_gro():
    with Env("gen-inj-tcp") as env:
        rep, final = gen_through_vfwd(env, ["--gro", "--gro-mode", "heavy"],
                                      INJECT + ["--profile", "tcp", "--dir", "wire-to-vm"], tso=True)
        injected(rep, "wire_to_vm", final)
        # every segment went through heavy GRO. Whether two of them merge
        # depends on timing: GRO sends what it holds when the rx queue runs
        # empty, and at 50k segments/s (one every 20 us) a merge needs two
        # in one poll, which a quiet moment of this machine may never give
        d = dir_stats(final, "wire_to_vm")
        check(d["gro_in"] + d["gro_bypassed"] >= 990, "GRO did not see the segments: %s" % d)


def test_faults_with_many_flows_and_rr():
    with Env("gen-inj-more") as env:
        # flows in turn: the reordered unit goes after its own flow's next one
        rep, final = gen_through_vfwd(env, [], ["--flows", "4", "--count", "3000", "--rate", "50k",
                                                "--inject", "reorder=700"])
        x = rep["dirs"]["vm_to_wire"]
        check(x["reordered"] == 1 and x["lost"] == 0 and x["received"] == 3000,
              "4 flows, reorder: %s" % x)
    with Env("gen-inj-last") as env:
        # the last unit of flow 0 held back has no successor: sent at the end,
        # the run ends at once (not at --timeout), nothing lost
        rep, final = gen_through_vfwd(env, [], ["--flows", "4", "--count", "3000", "--rate", "50k",
                                                "--inject", "reorder=749", "--timeout", "20"],
                                      timeout=15)
        x = rep["dirs"]["vm_to_wire"]
        check(rep["ok"] and x["received"] == 3000 and rep["secs"] < 5, "last unit held: %s" % rep)
    with Env("gen-inj-rr") as env:
        # a duplicated request is a duplicate on the way there, not a lost answer
        rep, final = gen_through_vfwd(env, [], ["--profile", "rr", "--count", "500",
                                                "--inject", "dup=100"])
        there, back = rep["dirs"]["vm_to_wire"], rep["dirs"]["wire_to_vm"]
        check(there["duplicates"] == 1 and there["lost"] == 0, "requests: %s" % there)
        check(back["duplicates"] == 0 and back["lost"] == 0 and back["received"] == 500,
              "answers: %s" % back)
        check(rep["rr"]["transactions"] == 500, "rr: %s" % rep["rr"])


def test_bad_options_and_no_forwarder():
    with Env("gen-bad") as env:
        _, gen_vdevs = __import__("vfwdtest").gen_topology(env)
        for args, msg in ((["--size", "20"], "--size"), (["--profile", "rr", "--dir", "both"], "rr"),
                          (["--inject", "explode=1"], "--inject"), (["--tso", "2"], "tcp"),
                          (["--flows", "64513"], "--flows"), (["--queues", "17"], "--queues"),
                          (["--flow-base", "64600"], "--flow-base"),
                          (["--profile", "tcp", "--mss", "8000", "--tso", "9"], "--mss")):
            g = env.gen(gen_vdevs[:1] + ["net_null0"], args, name="bad%d" % len(env.procs))
            check(g.wait(30) == 2 and msg in g.err(), "%s: rc %s, %s" % (args, g.p.returncode,
                                                                    g.err()[-400:]))
        # nobody on the other end: a clear error after --link-timeout, not a hang
        g = env.gen(["net_null0", "net_memif0,role=client,socket=" + env.path("none.sock")],
                    ["--link-timeout", "1"], name="nolink")
        check(g.wait(30) == 1 and "forwarder" in g.err(), "no forwarder: rc %s, %s"
              % (g.p.returncode, g.err()[-400:]))


def test_queues_and_flow_base_both_directions():
    """Two queues on each of the generator's ports and flows 100..107
    (--flow-base 100), both ways through a vfwd with two rx queues per
    port: flow f always on tx queue f % 2, so every tx queue carries
    frames; what arrives on the rx queues adds up to what was received;
    no foreign flow (another generator's) and no reordering within a flow
    across the queues; whatever is lost is what vfwd counted as dropped."""
    with Env("gen-mq") as env:
        fwd_vdevs, gen_vdevs = gen_topology(env)
        fwd_vdevs[0] += ",queues=2"
        gen_vdevs[0] += ",queues=2"
        vf = env.vfwd(fwd_vdevs, ["--stats-format", "json", "--rxq", "2"])
        vf.wait_output("forwarding", 30)
        g = env.gen(gen_vdevs, ["--queues", "2", "--flow-base", "100", "--flows", "8",
                                "--dir", "both", "--count", "20000", "--rate", "40k",
                                "--format", "json", "--linger"])
        g.wait_output('"ok"', 60)
        rep = g.last_json()
        rc, grc = vf.stop(20), g.stop(20)
        final = vf.last_json()
        check(rc == 0, "vfwd exit %d: %s" % (rc, vf.err()[-1500:]))
        check(grc == (0 if rep["ok"] else 3), "generator exit %d with ok %s: %s"
              % (grc, rep["ok"], g.err()[-1500:]))
        check(rep["queues"] == 2 and rep["flow_base"] == 100 and rep["flows"] == 8,
              "config: %s" % rep)
        for d in ("vm_to_wire", "wire_to_vm"):
            x = rep["dirs"][d]
            v = dir_stats(final, d)
            check(len(x["txq"]) == 2 and len(x["rxq"]) == 2, "%s: queues %s" % (d, x))
            check(all(n > 0 for n in x["txq"]) and sum(x["txq"]) == x["sent_frames"] == 20000,
                  "%s: per tx queue %s of %d" % (d, x["txq"], x["sent_frames"]))
            check(sum(x["rxq"]) == x["frames"] == x["received"],
                  "%s: per rx queue %s, frames %d, received %d"
                  % (d, x["rxq"], x["frames"], x["received"]))
            check(x["foreign"] == 0 and x["reordered"] == 0 and x["duplicates"] == 0 and
                  x["corrupted"] == 0 and x["other"] == 0, "%s not clean: %s" % (d, x))
            check(x["received"] + x["lost"] == x["sent"] and x["lost"] == v["drops"],
                  "%s: %d lost, vfwd dropped %d: %s" % (d, x["lost"], v["drops"], v))
            check(v["rx_pkts"] == x["sent_frames"] and v["tx_pkts"] == x["frames"],
                  "%s: vfwd rx %d tx %d, generator sent %d got %d"
                  % (d, v["rx_pkts"], v["tx_pkts"], x["sent_frames"], x["frames"]))
