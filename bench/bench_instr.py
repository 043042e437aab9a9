#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Instructions a packet on the forwarding lcore: dpdk-vfwd (pmd and lib
vhost paths) against dpdk-testpmd --forward-mode=io, counted by callgrind.

Cycles on this shared 2-vCPU VM swing 2x between runs (bench_io.py); an
instruction count does not: callgrind counts what the forwarding thread
executed, whatever else the machine does. It does not count what the
instructions cost (cache misses, the peer's cache line bounces), so it
stands beside bench_io.py's busy cycles, not in their place.

Topology as bench_io.py's, 64 B, burst 32, one forwarding lcore: the
forwarder runs under valgrind (--no-huge: nothing of its own is shared)
on CPU 1, the peer (testpmd txonly or rxonly on virtio-user) natively on
CPU 0, so that the forwarder's queue toward the wire is never empty for
long and the guest's ring toward the VM seldom full. After WARM s the counts are
zeroed, after WARM + SECS dumped; the forwarding thread is the one with
the most instructions. Packets are counted by callgrind too, as the calls
of the function each packet goes through once: the wire PMD's per-packet
free (vm->wire: each packet net_null sinks) and librte_vhost's
per-packet copy into the guest's ring (wire->vm: each packet delivered;
what the full ring refused is paid for and not counted, on both
forwarders alike). Both are DPDK's own functions, so the same for all.

Usage: bench/bench_instr.py [--secs 30] [--dirs vm_to_wire,wire_to_vm]
        [--who testpmd,pmd,lib] [--json FILE]
About 75 s a run. Run alone. Needs valgrind.
"""

import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "test"))
import vfwdtest  # noqa: E402
from vfwdtest import TESTPMD, VFWD, Env, Proc, check  # noqa: E402

WARM = 25
# the object whose most-called function each packet passes once
PER_PACKET_OBJ = {"vm_to_wire": "librte_net_null", "wire_to_vm": "librte_vhost"}


def forwarder_argv(env, who, direction, sock, out):
    wire = "net_null0,no-rx=1" if direction == "vm_to_wire" else "net_null0,size=64,copy=0"
    eal = env.eal("cg-" + who, "0@1,1@1", ["--no-huge", "-m", "1024"], in_memory=False)
    eal += ["--vdev", "net_vhost0,iface=" + sock, "--vdev", wire]
    if who == "testpmd":
        cmd = [TESTPMD] + eal + ["--", "--forward-mode=io", "--nb-cores=1", "--burst=32",
                                 "--total-num-mbufs=16384"]
    else:
        cmd = [VFWD] + eal + ["--", "--burst", "32", "--vhost-path", who]
    # fair scheduling: the vhost-user thread must get its turn beside the
    # polling lcore, or the peer's handshake times out
    return ["valgrind", "--tool=callgrind", "--separate-threads=yes", "--fair-sched=yes",
            "--callgrind-out-file=" + out] + cmd


def peer_argv(env, direction, sock):
    mode = "txonly" if direction == "vm_to_wire" else "rxonly"
    eal = env.eal("cg-peer", "0@0,1@0", ["--no-huge", "-m", "1024", "--single-file-segments"],
                  in_memory=False)
    return [TESTPMD] + eal + ["--vdev", "net_virtio_user0,path=" + sock, "--",
                              "--forward-mode=" + mode, "--nb-cores=1", "--burst=32",
                              "--txpkts=64", "--total-num-mbufs=16384"]


def parse_dump(path):
    """Total Ir of one thread's dump and the calls of each callee (by name,
    with its object)."""
    text = open(path).read()
    total = int(re.search(r"^totals: (\d+)", text, re.M).group(1))
    names, objs, calls = {}, {}, {}
    obj = cobj = None
    callee = None
    for line in text.split("\n"):
        m = re.match(r"^(c?)(ob|fn)=\((\d+)\)(?: (.*))?$", line)
        if m:
            c, kind, ident, name = m.groups()
            table = objs if kind == "ob" else names
            if name:
                table[ident] = name
            if kind == "ob":
                if c:
                    cobj = table[ident]
                else:
                    obj = cobj = table[ident]
            elif c:
                callee = (table[ident], cobj)
            else:
                cobj = obj
            continue
        m = re.match(r"^calls=(\d+)", line)
        if m and callee:
            calls[callee] = calls.get(callee, 0) + int(m.group(1))
            callee, cobj = None, obj
    return total, calls


def one_run(who, direction, secs):
    with Env("instr-%s-%s" % (who, direction)) as env:
        sock, out = env.path("fw.sock"), env.path("cg.out")
        fw = Proc(env, "fw-" + who, forwarder_argv(env, who, direction, sock, out), stdin="pipe")
        deadline = time.time() + 120
        while not os.path.exists(sock) and time.time() < deadline:
            check(fw.p.poll() is None, "forwarder exited:\n" + fw.err()[-1500:])
            time.sleep(1)
        check(os.path.exists(sock), "no vhost socket after 120 s:\n" + fw.err()[-1500:])
        time.sleep(2)
        peer = Proc(env, "peer", peer_argv(env, direction, sock), stdin="pipe")
        time.sleep(WARM)
        subprocess.run(["callgrind_control", "--zero", str(fw.pid)], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=60)
        time.sleep(secs)
        subprocess.run(["callgrind_control", "--dump", str(fw.pid)], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=60)
        dumps = glob.glob(out + ".1-*")
        check(dumps, "callgrind wrote no dump")
        peer.stop(20, sig=2)
        fw.stop(60, sig=2)
        total, calls = max((parse_dump(d) for d in dumps), key=lambda r: r[0])
        obj = PER_PACKET_OBJ[direction]
        per_pkt = [(n, f) for (f, o), n in calls.items() if o and obj in o]
        check(per_pkt, "no call into %s on the forwarding thread" % obj)
        pkts, fn = max(per_pkt)
        bursts = max(n for (f, o), n in calls.items()
                     if f in ("rte_vhost_dequeue_burst", "rte_vhost_enqueue_burst"))
        # each packet once: at most a full burst a call, and most calls full
        check(bursts * 16 <= pkts <= bursts * 32,
              "%s: %d calls for %d bursts: not one a packet" % (fn, pkts, bursts))
        return {"instructions": total, "packets": pkts, "per_packet_fn": fn, "bursts": bursts,
                "instr_per_pkt": total / pkts}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--secs", type=int, default=30)
    ap.add_argument("--dirs", default="vm_to_wire,wire_to_vm")
    ap.add_argument("--who", default="testpmd,pmd,lib")
    ap.add_argument("--json", help="write the raw figures here")
    a = ap.parse_args()
    check(shutil.which("valgrind") and shutil.which("callgrind_control"), "needs valgrind")
    res = {}
    for direction in a.dirs.split(","):
        for who in a.who.split(","):
            r = one_run(who, direction, a.secs)
            res.setdefault(direction, {})[who] = r
            print("%-10s %-8s %.1f instructions/pkt (%d packets)" %
                  (direction, who, r["instr_per_pkt"], r["packets"]), file=sys.stderr, flush=True)
    print("| direction | " + " | ".join(a.who.split(",")) + " | pmd/testpmd | lib/testpmd |")
    print("|---" * (len(a.who.split(",")) + 3) + "|")
    for direction, r in res.items():
        row = ["%.1f" % r[w]["instr_per_pkt"] for w in a.who.split(",")]
        for w in ("pmd", "lib"):
            row.append("%.3f" % (r[w]["instr_per_pkt"] / r["testpmd"]["instr_per_pkt"])
                       if w in r and "testpmd" in r else "")
        print("| %s | %s |" % (direction, " | ".join(row)))
    if a.json:
        with open(a.json, "w") as f:
            head = subprocess.run(["git", "-C", vfwdtest.ROOT, "rev-parse", "--short", "HEAD"],
                                  capture_output=True, text=True).stdout.strip()
            json.dump({"commit": head, "results": res}, f, indent=1)


if __name__ == "__main__":
    main()
