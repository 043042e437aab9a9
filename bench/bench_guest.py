#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""A real Linux guest (QEMU, TCG unless --kvm) receiving one TCP stream
from the host through the forwarder, each way of merging side by side:

    netns TCP sender -> tap (net_tap) -> forwarder -> vhost-user -> guest virtio_net -> nc

Cells: vfwd with GRO off, vfwd with --gro at its defaults (and any
--variant given), and dpdk-testpmd csum + GRO (librte_gro, TSO toward the
guest) in the forwarder's place; IPv4 and IPv6. Each cell boots a fresh
guest, streams --mb MiB host->guest (sha256 checked at both ends), and
reports, from the guest's own counters over the transfer: frames it
received (/proc/net/dev) and per MB, its virtio interrupts (/proc/interrupts)
per MB, its softirq and system CPU (/proc/stat) per MB, and Mbit/s; and
from vfwd: segments it took, frames it sent, GRO's merge factor. Medians
and min-max of --rounds interleaved rounds.

    bench/bench_guest.py [--mb 64] [--rounds 3] [--ip 4,6] [--variant NAME=ARGS ...]
                         [--no-testpmd] [--json FILE]

e.g. --variant "timeout=--gro --gro-flush-policy timeout". Run alone: the
guest, vfwd and the sender share this machine's CPUs.
"""

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "test"))
sys.path.insert(0, os.path.join(HERE, "..", "test", "e2e"))
from vfwdtest import Env, Proc, RUN_PID, check, link_name  # noqa: E402
import guest  # noqa: E402

# The guest: counters, the stream into /tmp/in, counters again.
STREAM_INIT = guest.BOOT + guest.TMP + guest.MODULES_UP + """%(addr)s
ip link set eth0 up
echo "GUEST-READY"
stat() {
  echo "GUEST-STAT $1 dev $(grep eth0: /proc/net/dev | cut -d: -f2)"
  echo "GUEST-STAT $1 irq $(grep virtio /proc/interrupts | tr -s ' ' | cut -d' ' -f3 | tr '\\n' ' ')"
  echo "GUEST-STAT $1 cpu $(head -1 /proc/stat)"
  echo "GUEST-STAT $1 cs $(cut -d' ' -f1 /proc/uptime | tr -d .)"
}
for i in 1 2 3 4 5 6 7 8 9 10; do
  stat 0
  nc -w 10 %(host)s 5002 > /tmp/in && [ -s /tmp/in ] && break
  sleep 1
done
stat 1
echo "GUEST-IN-SHA $(sha256sum /tmp/in | cut -d' ' -f1) $(wc -c < /tmp/in)"
echo "GUEST-DONE"
poweroff -f
"""

# The host end: send argv[1] random bytes to whoever connects on 5002.
HOST_STREAM = r"""
import hashlib, os, socket, sys
size, addr = int(sys.argv[1]), sys.argv[2]
s = socket.socket(socket.AF_INET6 if ":" in addr else socket.AF_INET)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((addr, 5002)); s.listen(1); s.settimeout(float(sys.argv[3]))
data = os.urandom(size)
c, _ = s.accept(); c.settimeout(120)
c.sendall(data); c.close()
print("HOST-OUT-SHA %s %d" % (hashlib.sha256(data).hexdigest(), size), flush=True)
"""

GUEST_MAC = "52:54:00:12:34:56"  # guest.qemu_argv's eth0
TAP_MAC = "02:00:00:00:00:aa"
TESTPMD_GRO = ("port stop all\nset fwd csum\nset port 0 gro on\nset port 1 gro on\n"
               "csum set ip sw 0\ncsum set tcp hw 0\ntso set 1448 0\nport start all\nstart\n")


def guest_stat(console, phase):
    """{dev: [...], irq: n, cpu: [...], cs: n} of GUEST-STAT phase."""
    out = {}
    for kind, rest in re.findall(r"GUEST-STAT %d (\w+) ?(.*)" % phase, console):
        nums = [int(x) for x in re.findall(r"\d+", rest)]
        out[kind] = sum(nums) if kind == "irq" else nums
    return out


def run_cell(cell, mb, kvm):
    v6 = cell["ip"] == 6
    host_ip = guest.HOST_IP6 if v6 else guest.HOST_IP
    with Env("bguest-%s%d" % (re.sub(r"[^a-z0-9]", "", cell["name"])[:12], cell["ip"])) as env:
        ns = "vfwdb-%d" % RUN_PID
        tap = link_name("b")
        env.add_netns(ns)
        sock = env.path("vh.sock")
        initrd = guest.build_initramfs(env.dir, mb, init=STREAM_INIT, v6=v6)
        vdevs = ["net_vhost0,iface=%s,tso=1" % sock, "net_tap0,iface=%s" % tap]
        if cell["fwd"] == "testpmd":
            cmds = env.path("testpmd.cmd")
            with open(cmds, "w") as f:
                f.write(TESTPMD_GRO)
            # csum forwarding rewrites both MACs: the peers are the guest
            # and the tap (given a fixed MAC, which its kernel side shares)
            vdevs[1] += ",mac=%s" % TAP_MAC
            fwd = env.testpmd(vdevs, ["-i", "--cmdline-file=" + cmds, "--nb-cores=1",
                                      "--burst=32", "--eth-peer=0,%s" % GUEST_MAC,
                                      "--eth-peer=1,%s" % TAP_MAC], "0@0,1@1", name="fwd",
                              netns=ns)
            fwd.wait_output("testpmd>", 30)
        else:
            fwd = env.vfwd(vdevs, ["--stats-format", "json", "--stats-period", "1"] +
                           cell["args"], netns=ns, name="fwd")
            fwd.wait_output("forwarding", 30)
        guest.tap_up(ns, tap, v6)
        host = Proc(env, "host", ["ip", "netns", "exec", ns, "python3", "-c", HOST_STREAM,
                                  str(mb << 20), host_ip, "300"])
        argv = guest.qemu_argv(sock, initrd)
        if kvm:
            argv[argv.index("tcg")] = "kvm"
        vm = Proc(env, "qemu", argv)
        vm.wait_output("GUEST-DONE", 600)
        vm.wait(60)
        try:
            host.wait(30)
        except Exception:
            raise RuntimeError("host side: %s %s\nguest:\n%s\nforwarder:\n%s" % (
                host.out(), host.err()[-800:], vm.out()[-1500:], fwd.out()[-2500:]))
        console, hostout = vm.out(), host.out()
        g_in = re.search(r"GUEST-IN-SHA (\w+) +(\d+)", console)
        h_out = re.search(r"HOST-OUT-SHA (\w+) (\d+)", hostout)
        check(g_in and h_out and int(g_in.group(2)) == mb << 20 and
              g_in.group(1) == h_out.group(1), "%s: the stream did not arrive whole:\n%s\n%s"
              % (cell["name"], console[-1500:], hostout))
        a, b = guest_stat(console, 0), guest_stat(console, 1)
        secs = (b["cs"][0] - a["cs"][0]) / 100.0
        cpu = [y - x for x, y in zip(a["cpu"], b["cpu"])]  # user nice system idle iowait irq softirq
        r = {"frames": b["dev"][1] - a["dev"][1], "irqs": b["irq"] - a["irq"],
             "mbit": mb * 8 * 1.048576 / secs if secs else None,
             "sys_per_mb": cpu[2] / mb, "softirq_per_mb": cpu[6] / mb}
        r["frames_per_mb"] = r["frames"] / mb
        r["irqs_per_mb"] = r["irqs"] / mb
        if cell["fwd"] == "vfwd":
            check(fwd.stop(20) == 0, "vfwd exit: %s" % fwd.err()[-800:])
            w2v = fwd.last_json()["total"]["dirs"]["wire_to_vm"]
            r["segs_in"] = w2v["rx_pkts"]
            r["vfwd_frames"] = w2v["tx_pkts"]
            r["merge"] = w2v["rx_pkts"] / max(w2v["tx_pkts"], 1)
        else:
            try:
                fwd.p.stdin.write(b"stop\nquit\n")
                fwd.p.stdin.flush()
            except OSError:
                pass
            fwd.wait(30)
        return r


def fmt(vals, f):
    nums = [v for v in vals if v is not None]
    if not nums:
        return "-"
    m = statistics.median(nums)
    return (f % m) + (" (%s-%s)" % (f % min(nums), f % max(nums)) if len(nums) > 1 else "")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mb", type=int, default=64)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--ip", default="4,6")
    ap.add_argument("--variant", action="append", default=[],
                    help="NAME=ARGS: a vfwd cell with these options")
    ap.add_argument("--no-testpmd", action="store_true")
    ap.add_argument("--kvm", action="store_true", help="QEMU with KVM (TCG otherwise)")
    ap.add_argument("--json")
    args = ap.parse_args()
    check(guest.have_guest_tools(), "qemu-system-x86_64, busybox, cpio or a kernel missing")
    kinds = [("GRO off", "vfwd", []), ("--gro", "vfwd", ["--gro"])]
    for v in args.variant:
        name, _, rest = v.partition("=")
        kinds.append((name, "vfwd", rest.split()))
    if not args.no_testpmd:
        kinds.append(("testpmd csum+GRO", "testpmd", []))
    cells = [{"name": n, "fwd": f, "args": a, "ip": int(ip)}
             for ip in args.ip.split(",") for n, f, a in kinds]
    results = {i: [] for i in range(len(cells))}
    for rnd in range(args.rounds):
        for i, c in enumerate(cells):
            t0 = time.monotonic()
            r = run_cell(c, args.mb, args.kvm)
            results[i].append(r)
            print("round %d IPv%d %-20s %s (%.0f s)" % (rnd + 1, c["ip"], c["name"],
                  {k: round(v, 2) if isinstance(v, float) else v for k, v in r.items()},
                  time.monotonic() - t0), file=sys.stderr, flush=True)
    commit = subprocess.run(["git", "-C", HERE, "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip()
    print("%d MiB host->guest over TCP, QEMU %s, %d rounds, commit %s; median (min-max)\n"
          % (args.mb, "KVM" if args.kvm else "TCG", args.rounds, commit))
    print("| IP | forwarder | guest rx frames | frames/MB | vs GRO off | Mbit/s | "
          "guest irqs/MB | guest softirq ticks/MB | vfwd segs/frame |")
    print("|---|---|---|---|---|---|---|---|---|")
    for i, c in enumerate(cells):
        rs = results[i]
        off = next(results[j] for j, d in enumerate(cells) if d["ip"] == c["ip"] and
                   d["name"] == "GRO off")
        off_frames = statistics.median(r["frames"] for r in off)
        ratio = [off_frames / r["frames"] for r in rs if r["frames"]]
        print("| %d | %s | %s | %s | 1/%s | %s | %s | %s | %s |" % (
            c["ip"], c["name"], fmt([r["frames"] for r in rs], "%d"),
            fmt([r["frames_per_mb"] for r in rs], "%.0f"), fmt(ratio, "%.1f"),
            fmt([r["mbit"] for r in rs], "%.0f"), fmt([r["irqs_per_mb"] for r in rs], "%.0f"),
            fmt([r["softirq_per_mb"] for r in rs], "%.2f"),
            fmt([r.get("merge") for r in rs], "%.1f")))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"commit": commit, "mb": args.mb, "kvm": args.kvm, "cells": cells,
                       "results": results}, f, indent=1)


if __name__ == "__main__":
    main()
