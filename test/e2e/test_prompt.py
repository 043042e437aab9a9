# SPDX-License-Identifier: BSD-3-Clause
"""The prompt (-i) on a pseudo-terminal, command files, telemetry and
packet capture of a running vfwd.

Traffic for the prompt test: a virtio-user peer sends UDP into vfwd's vhost
port, vfwd forwards it to a net_null sink:

    peer(virtio_user0) -> vfwd(net_vhost0 -> net_null0)
"""

import os
import random
import re
import shutil
import subprocess
import time

from vfwdtest import ROOT, Env, check, dir_stats, telemetry

PEER_SECS = 10


def hist_sizes(report, direction):
    return sorted(int(k) for k in dir_stats(report, direction)["rx_burst_hist"])


def test_prompt_drives_forwarding():
    with Env("prompt") as env:
        vh = env.path("vh.sock")
        vf = env.vfwd_pty(["net_vhost0,iface=%s" % vh, "net_null0,no-rx=1"])
        vf.expect(r"vfwd> ", 30)
        out = vf.command("help")
        for word in ["start", "show lcore|fwd stats", "set <knob> <value>", "load <file>",
                     "show config"]:
            check(word in out, "help lacks %r:\n%s" % (word, out))
        out = vf.command("help knobs")
        check("gro-flush-us" in out and "restart" in out, out)

        peer = env.peer(["net_virtio_user0,path=" + vh],
                        ["--tx-port", "0", "--count", "0", "--duration", str(PEER_SECS),
                         "--size", "64", "--timeout", str(PEER_SECS + 30)])
        t0 = time.monotonic()
        out = vf.command("start")
        check("forwarding started" in out, out)
        out = vf.command("start")
        check("already started" in out, "a second start: " + out)

        # full bursts at 32 while the peer pushes
        time.sleep(1)
        out = vf.command("show lcore stats")
        check("lcore 1" in out and "vm->wire" in out, out)
        vf.command("clear fwd stats")
        time.sleep(1)
        before = vf.command_json("show lcore stats json")
        sizes = hist_sizes(before, "vm_to_wire")
        check(sizes and max(sizes) > 8, "no burst above 8 at burst 32: %s" % sizes)

        # burst 8 while traffic flows: no burst above 8 from then on
        out = vf.command("set burst 8")
        check("burst = 8" in out, out)
        vf.command("clear fwd stats")
        time.sleep(1)
        after = vf.command_json("show lcore stats json")
        sizes = hist_sizes(after, "vm_to_wire")
        check(sizes and max(sizes) <= 8, "bursts above 8 after set burst 8: %s" % sizes)
        check(dir_stats(after, "vm_to_wire")["rx_pkts"] > 0, "no traffic after set burst")

        for line, want in [("set gro on", "gro = on"), ("set gro mode heavy", "gro-mode = heavy"),
                           ("set gro flush 100", "gro-flush-us = 100"),
                           ("set gro flows 128", "gro-flows = 128"), ("set gro off", "gro = off")]:
            out = vf.command(line)
            check(want in out, "%s: %s" % (line, out))
        check(time.monotonic() - t0 < PEER_SECS - 1, "the steps took longer than the traffic")

        # bad input: a clear message, nothing changes
        for line, want in [("frobnicate", "Command not found"),
                           ("set burst 0", "set burst '0': expected 1..512"),
                           ("set burst", "Bad arguments"),
                           ("set nosuchknob 3", "Bad arguments"),
                           ("set gro maybe", "set gro 'maybe': expected on|off"),
                           ("show port stats 9", "port '9'"),
                           ("sleep -1", "sleep '-1'"),
                           ("load /nonexistent/file", "/nonexistent/file: No such file"),
                           ("help nosuchtopic", "no such topic")]:
            out = vf.command(line)
            check(want in out, "%r: want %r in %r" % (line, want, out))
        cfg = vf.command_json("show config json")
        check(cfg["knobs"]["burst"] == 8 and cfg["knobs"]["gro"] == "off"
              and cfg["knobs"]["gro-mode"] == "heavy" and cfg["knobs"]["gro-flows"] == 128,
              "config after bad commands: %s" % cfg["knobs"])
        check(cfg["running"] is True, "forwarding stopped by a bad command")

        # junk typed at the prompt (escape sequences, control keys): it
        # still answers
        rnd = random.Random(7)
        junk = bytes(rnd.choice(b"\x1b[A\x1b[B\x1b[C\x1b[D\x1bOH\x7f\x01\x02\x05\x0b\x15\x17\x19"
                                b" abcxyz09#-\t") for _ in range(3000))
        vf.send_raw(junk.replace(b"\n", b"").replace(b"\r", b"").replace(b"\x03", b"")
                    .replace(b"\x04", b""))
        # end whatever escape sequence the junk left open, run the junk line
        # (its letters spell no command), kill what is left
        vf.send_raw(b"A\n\n\x15")
        # let the terminal echo all of it before the next command
        deadline, seen = time.monotonic() + 20, -1
        while time.monotonic() < deadline and vf.mark() != seen:
            seen = vf.mark()
            time.sleep(0.5)
        out = vf.command("show config")
        check(re.search(r"burst\s+8\s", out), "prompt after junk: " + out[-800:])

        check(peer.wait(PEER_SECS + 40) == 0, "peer: " + peer.err()[-800:])
        sent = peer.last_json()["tx"]
        out = vf.command("show port stats all")
        check("RX-packets" in out, out)
        out = vf.command("stop")
        check("forwarding stopped" in out, out)
        m0 = vf.mark()
        vf.send("quit")
        check(vf.wait(30) == 0, "exit status: " + vf.screen()[-1500:])
        final = vf.screen()[m0:]
        check("final stats" in final, final[-1500:])

        # every packet the peer sent went through: the port counters (which
        # no clear touched) of the final stats
        check(sent > 0, "peer sent nothing")
        m = re.findall(r"\n\s+\d+ net_vhost0\s+vm\s+(\d+)\s+(\d+)", final)
        check(m, "no port line in the final stats:\n" + final[-1500:])
        check(int(m[-1][0]) == sent, "vhost rx %s != peer sent %d" % (m[-1][0], sent))
        m = re.findall(r"\n\s+\d+ net_null0\s+wire\s+(\d+)\s+(\d+)", final)
        check(m and int(m[-1][1]) == sent, "null tx %s != peer sent %d" % (m, sent))
        m = re.search(r"mempool: (\d+) of \d+ mbufs in use \((\d+) at start\)", final)
        check(m and m.group(1) == m.group(2), "mbufs leaked: " + final[-300:])


def run_script(env, name, script_text, vdevs, args=(), timeout=60):
    path = env.path(name + ".cmd")
    with open(path, "w") as f:
        f.write(script_text)
    vf = env.vfwd(vdevs, ["--cmdline-file", path] + list(args), name=name)
    rc = vf.wait(timeout)
    return vf, rc, path


def test_burst_sweep_script():
    """config/burst-sweep.cmd: one JSON report per step, bursts as set."""
    with Env("sweep") as env:
        script = os.path.join(ROOT, "config", "burst-sweep.cmd")
        vf = env.vfwd(["net_vhost0,iface=" + env.path("vh.sock"), "net_null0,size=64"],
                      ["--cmdline-file", script])
        rc = vf.wait(60)
        check(rc == 0, "exit %d: %s" % (rc, vf.err()[-1500:]))
        steps = [o for o in vf.json_lines() if not o["final"]]
        check(len(steps) == 4, "want 4 step reports, got %d:\n%s" % (len(steps), vf.out()[-2000:]))
        rates = []
        for burst, rep in zip([1, 16, 32, 64], steps):
            d = dir_stats(rep, "wire_to_vm")
            # net_null fills every burst: exactly the burst asked for
            check(hist_sizes(rep, "wire_to_vm") == [burst],
                  "burst %d: histogram %s" % (burst, d["rx_burst_hist"]))
            # read while forwarding, yet exact: each worker copies its
            # counters between two rounds for a report (what waits in a
            # hold is out_expected's to count)
            check(d["rx_pkts"] > 0 and d["out_expected"] == d["tx_pkts"] + d["drops"],
                  "burst %d: rx %d, out expected %d, tx %d drops %d" %
                  (burst, d["rx_pkts"], d["out_expected"], d["tx_pkts"], d["drops"]))
            check(0.5 < rep["t"] < 5, "step %d lasted %s s" % (burst, rep["t"]))
            rates.append(d["rx_pkts"] / rep["t"])
        # the figures move: burst 1 costs a poll per packet
        check(rates[0] < rates[3], "burst 1 %.0f pps not below burst 64 %.0f pps" % (rates[0], rates[3]))


def test_script_errors_stop_with_file_line():
    with Env("scripterr") as env:
        vdevs = ["net_vhost0,iface=" + env.path("vh.sock"), "net_null0,no-rx=1"]
        vf, rc, path = run_script(env, "bad", "# comment\n\nset burst 16\n"
                                  "-set burst 9999\nset burst 0\nset burst 4\nquit\n", vdevs)
        check(rc == 1, "exit %d for a failing script" % rc)
        err = vf.err()
        check("%s:4:" % path in err and "%s:5:" % path in err, err[-800:])
        check("%s:6" % path not in err, "ran past the failing line")
        # '-' lines may fail; the script went on past line 4 and stopped at 5
        check("burst = 16" in vf.out() and "burst = 4" not in vf.out(), vf.out()[-800:])

        vf, rc, _ = run_script(env, "unknown", "show config\nfrobnicate now\nquit\n", vdevs)
        check(rc == 1 and ":2: error: unknown command" in vf.err(), vf.err()[-500:])

        vf = env.vfwd(vdevs, ["--cmdline-file", env.path("nope.cmd")], name="missing")
        check(vf.wait(30) == 1 and "nope.cmd: No such file" in vf.err(), vf.err()[-500:])

        # a file that loads itself: bounded
        loop = env.path("loop.cmd")
        with open(loop, "w") as f:
            f.write("load %s\n" % loop)
        vf = env.vfwd(vdevs, ["--cmdline-file", loop], name="loop")
        check(vf.wait(30) == 1 and "deep" in vf.err(), vf.err()[-500:])

        # non-interactive with stdin at EOF: runs to --duration
        vf, rc, _ = run_script(env, "eof", "set burst 8\n", vdevs, ["--duration", "3"])
        check(rc == 0, "exit %d: %s" % (rc, vf.err()[-500:]))
        check("final stats t=3" in vf.out(), vf.out()[-800:])


def test_parser_fuzz():
    """Thousands of random and mutated command lines: no crash, no hang,
    the process answers afterwards."""
    rnd = random.Random(2026)
    words = ["start", "stop", "show", "port", "stats", "info", "lcore", "fwd", "config",
             "json", "all", "clear", "set", "burst", "gro", "mode", "flush", "flows", "on",
             "off", "light", "heavy", "tx-retry", "gro-mode", "gro-flush-us", "gro-flows",
             "stats-period", "stats-format", "help", "knobs", "run", "0", "1", "8", "512",
             "513", "-1", "1e9", "0x10", "99999999999999999999", "nan", "text", "#", "\t", ""]
    good = ["set burst 16", "set gro on", "show config json", "show port info all",
            "set gro mode heavy", "set tx-retry 0", "show lcore stats", "clear fwd stats",
            "set gro flows 32", "set stats-format text", "help stats"]
    lines = []
    for i in range(4000):
        r = rnd.random()
        if r < 0.4:
            line = " ".join(rnd.choice(words) for _ in range(rnd.randint(1, 6)))
        elif r < 0.7:
            line = list(rnd.choice(good))
            for _ in range(rnd.randint(1, 4)):
                pos = rnd.randrange(len(line) + 1)
                op = rnd.random()
                if op < 0.4 and line:
                    del line[min(pos, len(line) - 1)]
                elif op < 0.8:
                    line.insert(pos, chr(rnd.randint(32, 126)))
                else:
                    line.insert(pos, chr(rnd.choice([0x1b, 0x7f, 0x09, 0x01, 0xc3, 0xff])))
            line = "".join(line)
        elif r < 0.9:
            line = "".join(chr(rnd.randint(1, 255)) for _ in range(rnd.randint(1, 80)))
        else:
            line = rnd.choice(good) + " " + "x" * rnd.randint(100, 600)
        line = line.replace("\n", " ").replace("\r", " ")
        first = line.strip().split(" ")[0] if line.strip() else ""
        if first in ("quit", "sleep", "load"):
            continue  # those are driven below with bounded arguments
        lines.append("-" + line)
    lines += ["-sleep -1", "-sleep abc", "-sleep 1e9", "-sleep 0", "-load /nonexistent",
              "-load /dev/zero", "-load /", "-stop", "start", "set burst 32", "set stats-format json",
              "show config json", "quit"]
    with Env("fuzz") as env:
        path = env.path("fuzz.cmd")
        with open(path, "w", encoding="latin-1") as f:
            f.write("\n".join(lines) + "\n")
        vf = env.vfwd(["net_vhost0,iface=" + env.path("vh.sock"), "net_null0,size=64"],
                      ["--cmdline-file", path, "--stats-format", "json"])
        rc = vf.wait(240)
        check(rc == 0, "exit %d\n%s\n%s" % (rc, vf.out()[-1000:], vf.err()[-1500:]))
        cfg = [o for o in vf.json_lines() if "knobs" in o][-1]
        check(cfg["knobs"]["burst"] == 32 and cfg["running"], cfg)
        final = vf.last_json()
        check(final["final"], "no final report")
        check(final["mempool"]["in_use"] == final["mempool"]["in_use_at_start"],
              "mbufs leaked: %s" % final["mempool"])


def test_telemetry():
    with Env("tele") as env:
        vf = env.vfwd_pty(["net_vhost0,iface=" + env.path("vh.sock"), "net_null0,size=64"])
        vf.expect(r"vfwd> ", 30)
        vf.command("set burst 16")
        vf.command("start")
        time.sleep(0.5)
        prefix = env.prefixes[-1]
        t = telemetry(env, prefix, ["/", "/vfwd/config", "/vfwd/lcores", "/vfwd/ports"])
        check("/vfwd/lcores" in t.get("/", []), "commands not listed: %s" % t.get("/"))
        cfg = t["/vfwd/config"]
        check(cfg["burst"] == 16 and cfg["forwarding"] == "started", cfg)
        # stop, then the figures hold still: telemetry and the prompt agree
        vf.command("stop")
        show = vf.command_json("show lcore stats json")
        t = telemetry(env, prefix, ["/vfwd/lcores", "/vfwd/ports", "/vfwd/config"])
        lc = t["/vfwd/lcores"]
        check(lc["1"]["rx_pkts"] == show["lcores"][0]["rx_pkts"] > 0,
              "telemetry %s vs prompt %s" % (lc["1"]["rx_pkts"], show["lcores"][0]["rx_pkts"]))
        # the reply to "/vfwd/lcores,1" comes back under "/vfwd/lcores"
        one = telemetry(env, prefix, ["/vfwd/lcores,1"])["/vfwd/lcores"]
        check(one["wire_to_vm/rx_pkts"] == dir_stats(show, "wire_to_vm")["rx_pkts"], one)
        check(lc["total"]["drops"] == show["total"]["drops"], "drops differ")
        check(lc["total"]["wire_to_vm/drop_peer_down"] ==
              dir_stats(show, "wire_to_vm")["drop_peer_down"], "peer-down drops differ")
        ports = t["/vfwd/ports"]
        check(ports["1"]["name"] == "net_null0" and ports["1"]["ipackets"] >= lc["1"]["rx_pkts"],
              ports)
        check(t["/vfwd/config"]["forwarding"] == "stopped", t["/vfwd/config"])
        vf.send("quit")
        check(vf.wait(30) == 0, vf.screen()[-800:])


def test_dumpcap_captures_a_port():
    """dpdk-dumpcap attaches to a running vfwd (not --in-memory) and writes
    a pcapng file that tcpdump reads."""
    dumpcap = shutil.which("dpdk-dumpcap")
    tcpdump = shutil.which("tcpdump")
    check(dumpcap and tcpdump, "dpdk-dumpcap or tcpdump missing")
    with Env("dumpcap") as env:
        vf = env.vfwd(["net_vhost0,iface=" + env.path("vh.sock"), "net_null0,size=64"],
                      ["--duration", "40"], in_memory=False)
        vf.wait_output("forwarding started", 30)  # after rte_pdump_init
        prefix = env.prefixes[-1]
        pcap = env.path("cap.pcapng")
        r = subprocess.run([dumpcap, "--file-prefix=" + prefix, "-i", "net_null0", "-c", "50",
                            "-w", pcap, "-q"], capture_output=True, text=True, timeout=60)
        check(r.returncode == 0, "dumpcap: %s %s" % (r.stdout[-800:], r.stderr[-800:]))
        r = subprocess.run([tcpdump, "-r", pcap, "-nn"], capture_output=True, text=True,
                           timeout=30)
        check(r.returncode == 0, "tcpdump: " + r.stderr[-500:])
        n = len([ln for ln in r.stdout.splitlines() if ln.strip()])
        # dumpcap stops at the end of the burst that reached the count
        check(50 <= n <= 50 + 64, "tcpdump read %d packets, want 50 (and the rest of a burst)" % n)
        check(all(" > " in ln or "length 64" in ln or "[|" in ln for ln in r.stdout.splitlines()
                  if ln.strip()), r.stdout[:500])
        check("pcapng" in r.stderr or "link-type EN10MB" in r.stderr, r.stderr[-300:])
        check(vf.stop(20) == 0, "vfwd exit: " + vf.err()[-800:])


STREAM_COUNTS = ("rx_pkts", "rx_bytes", "tx_pkts", "tx_bytes", "drops")
DIRS = ("vm_to_wire", "wire_to_vm")


def check_pairs_add_up(pairs, streams, where):
    """Each pair's figures are the sum of its streams'."""
    for pr in pairs:
        for d in DIRS:
            mine = [s for s in streams if s["pair"] == pr["pair"] and s["dir"] == d]
            check(len(mine) == 2, "%s: pair %d %s has %d streams" % (where, pr["pair"], d,
                                                                    len(mine)))
            for f in STREAM_COUNTS:
                check(pr[d][f] == sum(s[f] for s in mine),
                      "%s: pair %d %s %s %d != its streams' %s"
                      % (where, pr["pair"], d, f, pr[d][f], [s[f] for s in mine]))


def test_pair_stats_8_workers_4_pairs():
    """8 workers (on 2 CPUs) and 4 pairs of 2 queues: each VM's traffic is
    counted as its pair's, whichever lcores carried it, and per pair, per
    stream and in total the figures agree in the prompt's JSON, the report
    and telemetry; the text stays narrow enough to read."""
    npairs, count = 4, 20000
    with Env("pairs") as env:
        vdevs, pair_args = [], []
        for p in range(npairs):
            vdevs += ["net_vhost%d,iface=%s,queues=2" % (p, env.path("vh%d.sock" % p)),
                      "net_null%d,no-rx=1" % p]
            pair_args += ["--pair", "%d:%d" % (2 * p, 2 * p + 1)]
        lcores = ",".join("%d@%d" % (i, i % 2) for i in range(9))  # main + 8 workers
        vf = env.vfwd_pty(vdevs, ["--rxq", "2"] + pair_args, lcores=lcores)
        vf.expect(r"vfwd> ", 30)
        out = vf.command("help stats")
        check("show pair stats" in out, "help stats lacks show pair stats:\n" + out)
        out = vf.command("start")
        check("forwarding started on 8 lcore(s)" in out, out)
        peers = []
        for p in range(npairs):
            peers.append(env.peer(["net_virtio_user0,path=%s,queues=2" % env.path("vh%d.sock" % p)],
                                  ["--tx-port", "0", "--queues", "2", "--count", str(count),
                                   "--rate", "40000", "--seq-base", str(p * 1000000),
                                   "--timeout", "30"],
                                  lcores="0@%d" % (p % 2), name="peer%d" % p))
        sent = []
        for p, peer in enumerate(peers):
            check(peer.wait(45) == 0, "peer%d: %s" % (p, peer.err()[-800:]))
            sent.append(peer.last_json()["tx"])
            check(sent[-1] == count, "peer%d sent %d of %d" % (p, sent[-1], count))
        # what the peers sent is in the vrings: wait until vfwd took it all
        deadline = time.monotonic() + 15
        while True:
            ps = vf.command_json("show pair stats json")
            got = [pr["vm_to_wire"]["rx_pkts"] for pr in ps["pairs"]]
            if got == sent or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        vf.command("stop")

        ps = vf.command_json("show pair stats json")
        rep = vf.command_json("show fwd stats json")
        t = telemetry(env, env.prefixes[0], ["/vfwd/pairs", "/vfwd/lcores"])
        # the reply to "/vfwd/pairs,3" comes back under "/vfwd/pairs"
        one = telemetry(env, env.prefixes[0], ["/vfwd/pairs,3"])["/vfwd/pairs"]
        text = vf.command("show lcore stats")
        pairs_text = vf.command("show pair stats")

        for where, obj in (("show pair stats json", ps), ("report", rep)):
            check(len(obj["pairs"]) == npairs, "%s: %d pairs" % (where, len(obj["pairs"])))
            # one entry per stream of the plan, in key order
            keys = [(s["pair"], s["queue"], s["dir"]) for s in obj["streams"]]
            check(keys == [(p, q, d) for p in range(npairs) for q in range(2) for d in DIRS],
                  "%s: streams %s" % (where, keys))
            for s in obj["streams"]:
                vm, wire = 2 * s["pair"], 2 * s["pair"] + 1
                want = (vm, wire) if s["dir"] == "vm_to_wire" else (wire, vm)
                check((s["rx_port"], s["tx_port"]) == want, "%s: stream %s" % (where, s))
            for p, pr in enumerate(obj["pairs"]):
                check((pr["pair"], pr["vm_port"], pr["wire_port"]) == (p, 2 * p, 2 * p + 1), pr)
                v = pr["vm_to_wire"]
                check(v["rx_pkts"] == sent[p] and v["rx_bytes"] == 64 * sent[p],
                      "%s: pair %d vm_to_wire rx %d, its peer sent %d" % (where, p, v["rx_pkts"],
                                                                          sent[p]))
                # net_null takes everything: nothing lost, nothing held
                check(v["tx_pkts"] == sent[p] and v["drops"] == 0, "%s: pair %d %s" % (where, p, v))
            check_pairs_add_up(obj["pairs"], obj["streams"], where)
            # queue by queue: the peers send on queue 0 only
            for s in obj["streams"]:
                if s["dir"] == "vm_to_wire":
                    want = sent[s["pair"]] if s["queue"] == 0 else 0
                    check(s["rx_pkts"] == want, "%s: stream %s, want rx %d" % (where, s, want))
        # the pairs add up to the direction counters, counted beside them
        for d in DIRS:
            for f in STREAM_COUNTS:
                s = sum(pr[d][f] for pr in ps["pairs"])
                check(ps["total"][d][f] == s, "total %s %s %d != pairs' %d"
                      % (d, f, ps["total"][d][f], s))
                check(rep["total"]["dirs"][d][f] == s, "report total %s %s" % (d, f))
        # both queues have streams on 8 lcores; the peers send on queue 0
        for port in rep["ports"]:
            check(len(port["rxq_pkts"]) == 2 and len(port["txq_pkts"]) == 2, port)
            check(sum(port["rxq_pkts"]) == port["ipackets"], port)
            check(sum(port["txq_pkts"]) == port["opackets"], port)
            if port["role"] == "vm":
                p = port["port"] // 2
                check(port["rxq_pkts"][0] == sent[p], "port %s rxq %s" % (port["port"],
                                                                       port["rxq_pkts"]))
        check(len(rep["lcores"]) == 8, "%d lcores in the report" % len(rep["lcores"]))

        tp = t["/vfwd/pairs"]
        for p in range(npairs):
            for d in DIRS:
                for f in STREAM_COUNTS:
                    check(tp[str(p)]["%s/%s" % (d, f)] == ps["pairs"][p][d][f],
                          "telemetry pair %d %s/%s: %s" % (p, d, f, tp[str(p)]))
        for d in DIRS:
            for f in STREAM_COUNTS:
                check(tp["total"]["%s/%s" % (d, f)] == ps["total"][d][f], "telemetry total")
        check(one["vm_to_wire/rx_pkts"] == sent[3] and one["q0/vm_to_wire/rx_pkts"] == sent[3]
              and one["q1/vm_to_wire/rx_pkts"] == 0, "telemetry pair 3: %s" % one)
        check("total" in t["/vfwd/lcores"] and len(t["/vfwd/lcores"]) == 9, t["/vfwd/lcores"])

        # text: the per-lcore blocks, the total and a line per pair and
        # direction, none too wide
        check(re.search(r"^total\s+busy", text, re.M), "no total line:\n" + text)
        lines = text.replace("\r", "").splitlines()
        wide = [ln for ln in lines if len(ln) > 120]
        check(not wide, "lines over 120 columns:\n" + "\n".join(wide))
        for p in range(npairs):
            check(re.search(r"^%d\s+vm->wire\s+%d->%d\s+%d\s+%d\s+0\s" % (p, 2 * p, 2 * p + 1,
                                                                      sent[p], sent[p]),
                            pairs_text, re.M), "pair %d row:\n%s" % (p, pairs_text))
        check(len(lines) < 60, "show lcore stats: %d lines" % len(lines))
        vf.send("quit")
        check(vf.wait(30) == 0, vf.screen()[-800:])
