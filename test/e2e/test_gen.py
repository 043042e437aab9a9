# SPDX-License-Identifier: BSD-3-Clause
"""dpdk-vfwd-gen through vfwd: clean runs of every profile and direction
report nothing wrong and agree with vfwd's own counts; faults injected on
purpose (a dropped, a reordered, a duplicated and a corrupted unit) are each
reported, also when vfwd's GRO merges the frames around them.

    gen(virtio_user0) <-> vfwd(net_vhost0 | net_memif0) <-> gen(net_memif0)
"""

from vfwdtest import Env, check, dir_stats, gen_through_vfwd, gen_topology


def clean(rep, d):
    x = rep["dirs"][d]
    check(x["lost"] == 0 and x["reordered"] == 0 and x["duplicates"] == 0 and
          x["corrupted"] == 0 and x["other"] == 0, "%s not clean: %s" % (d, x))
    check(x["received"] == x["sent"] > 0, "%s: received %d of %d" % (d, x["received"], x["sent"]))
    return x


def test_udp_both_directions():
    with Env("gen-udp") as env:
        rep, final = gen_through_vfwd(env, [], ["--dir", "both", "--flows", "16", "--size",
                                                "1518", "--rate", "100k", "--duration", "1"])
        for d in ("vm_to_wire", "wire_to_vm"):
            x = rep["dirs"][d]
            v = dir_stats(final, d)
            # 100 kpps each way with the generator's four tasks on one CPU
            # beside vfwd: its receiver can fall behind and vfwd then finds
            # the VM's ring full. Such a loss must be exactly what vfwd
            # counted as tx_full, and small; nothing else may go wrong.
            check(x["reordered"] == 0 and x["duplicates"] == 0 and x["corrupted"] == 0 and
                  x["other"] == 0 and x["received"] + x["lost"] == x["sent"] > 0,
                  "%s not clean: %s" % (d, x))
            check(x["lost"] == v["drops"] == v["drop_tx_full"] and x["lost"] <= x["sent"] // 200,
                  "%s: %d lost, vfwd dropped %d (%d tx_full)" %
                  (d, x["lost"], v["drops"], v["drop_tx_full"]))
            check(v["rx_pkts"] == x["sent_frames"] and v["tx_pkts"] == x["frames"],
                  "%s: vfwd rx %d tx %d, generator sent %d got %d" %
                  (d, v["rx_pkts"], v["tx_pkts"], x["sent_frames"], x["frames"]))
            check(x["bytes"] == x["frames"] * 1514 and v["tx_bytes"] == x["bytes"],
                  "%s: bytes %s / vfwd %d" % (d, x["bytes"], v["tx_bytes"]))
            check(80e3 < x["pps"] < 120e3, "%s: rate %.0f pps for --rate 100k" % (d, x["pps"]))
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
        x = clean(rep, "wire_to_vm")
        v = dir_stats(final, "wire_to_vm")
        # merged: fewer, larger frames, every segment's bytes where they belong
        check(x["frames"] < x["sent_frames"] and x["max_frame"] > 1514,
              "no merging seen: %d frames for %d segments, largest %d" %
              (x["frames"], x["sent"], x["max_frame"]))
        check(v["tx_pkts"] == x["frames"], "vfwd sent %d, generator got %d" % (v["tx_pkts"], x["frames"]))
        check(x["payload"] == 20000 * 1448, "payload %d" % x["payload"])


def test_tcp_tso_from_vm_is_segmented():
    with Env("gen-tso") as env:
        rep, final = gen_through_vfwd(env, [], ["--profile", "tcp", "--tso", "4", "--flows", "3",
                                                "--count", "5000", "--rate", "50k"], tso=True)
        x = clean(rep, "vm_to_wire")
        check(x["sent"] == 20000 and x["sent_frames"] == 5000, "sent %s" % x)
        # the memif wire has no TSO: vfwd cut them to MSS-sized segments
        check(x["frames"] == 20000 and x["max_frame"] == 1448 + 54, "frames %d, largest %d"
              % (x["frames"], x["max_frame"]))
        check(dir_stats(final, "vm_to_wire")["drops"] == 0, "vfwd dropped")


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
        up = clean(rep, "vm_to_wire")
        check(up["sent"] == 12000 and up["frames"] == 12000 and up["max_frame"] == 1428 + hdrs,
              "vm->wire: %d segments in %d frames, largest %d" %
              (up["sent"], up["frames"], up["max_frame"]))
        down = clean(rep, "wire_to_vm")
        w2v = dir_stats(final, "wire_to_vm")
        check(down["sent"] == 3000 and w2v["gro_in"] == 3000 and
              down["frames"] == 3000 - (w2v["gro_in"] - w2v["gro_out"]) and
              down["max_frame"] >= 1428 + hdrs, "wire->vm: %s; vfwd %s" % (down, w2v))
        for d, x in (("vm_to_wire", up), ("wire_to_vm", down)):
            v = dir_stats(final, d)
            check(v["drops"] == 0 and v["tx_pkts"] == x["frames"],
                  "%s: vfwd sent %d, dropped %d; the generator got %d" %
                  (d, v["tx_pkts"], v["drops"], x["frames"]))


def test_tcp_vlan_tso_from_vm_is_segmented():
    """Tagged TCP/IPv4 TSO frames (a VLAN sub-interface over IPv4)."""
    with Env("gen-vlantso") as env:
        rep, final = gen_through_vfwd(env, [], ["--profile", "tcp", "--vlan", "7", "--tso", "5",
                                                "--tcp-ts", "--mss", "1448", "--flows", "2",
                                                "--count", "2000", "--rate", "30k"], tso=True)
        x = clean(rep, "vm_to_wire")
        check(x["sent"] == 10000 and x["frames"] == 10000 and x["max_frame"] == 1448 + 18 + 20 + 32,
              "vm->wire: %s" % x)
        check(dir_stats(final, "vm_to_wire")["drops"] == 0, "vfwd dropped")


def test_tcp_timestamps_merged_toward_vm():
    """Segments with equal timestamp options merge (the kernel's rule and
    librte_gro's), and the merged frame keeps the option."""
    with Env("gen-tsgro") as env:
        rep, final = gen_through_vfwd(env, ["--gro", "--gro-mode", "heavy"],
                                      ["--profile", "tcp", "--dir", "wire-to-vm", "--tcp-ts",
                                       "--flows", "2", "--count", "10000", "--rate", "200k"],
                                      tso=True)
        x = clean(rep, "wire_to_vm")
        check(x["frames"] < x["sent_frames"] and x["max_frame"] > 1514,
              "no merging: %d frames for %d segments, largest %d" %
              (x["frames"], x["sent"], x["max_frame"]))
        check(dir_stats(final, "wire_to_vm")["tx_pkts"] == x["frames"], "counts differ")


def test_udp_ipv6_vlan_both_directions():
    with Env("gen-udp6") as env:
        rep, final = gen_through_vfwd(env, [], ["--dir", "both", "--ipv6", "--vlan", "4094",
                                                "--flows", "8", "--size", "1518", "--count",
                                                "20000", "--rate", "50k"])
        for d in ("vm_to_wire", "wire_to_vm"):
            x = clean(rep, d)
            v = dir_stats(final, d)
            check(x["received"] == 20000 and v["tx_pkts"] == x["frames"] and
                  x["bytes"] == x["frames"] * 1514, "%s: %s / vfwd %s" % (d, x, v))


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


INJECT = ["--inject", "drop=100,reorder=200,dup=300,corrupt=400", "--count", "3000", "--rate", "50k"]


def injected(rep, d, final):
    x = rep["dirs"][d]
    check(not rep["ok"], "a faulty run reported ok")
    check(x["gen_dropped"] == 1, "the generator did not drop one: %s" % x)
    # vfwd may drop the corrupted one itself (a bad checksum): then it is lost
    vdrop = dir_stats(final, d)["drops"]
    check(vdrop in (0, 1), "vfwd dropped %d" % vdrop)
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
        check(d["gro_in"] + d["gro_bypassed"] >= 2990, "GRO did not see the segments: %s" % d)


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
