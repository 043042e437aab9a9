# SPDX-License-Identifier: BSD-3-Clause
"""The command line: bad options fail fast with a message naming them, and
start nothing (no EAL, no socket)."""

import os
import subprocess

from vfwdtest import VFWD, Env, check

BAD = [
    (["--burst", "0"], "--burst"),
    (["--burst", "600"], "--burst"),
    (["--rxq", "x"], "--rxq"),
    (["--txq", "99"], "--txq"),
    (["--pair", "0-1"], "--pair"),
    (["--tx-retry", "-5"], "--tx-retry"),
    (["--stats-period", "0"], "--stats-period"),
    (["--stats-format", "yaml"], "--stats-format"),
    (["--duration", "soon"], "--duration"),
    (["--frobnicate"], "--frobnicate"),
    (["--burst"], "--burst"),
]


def test_bad_options_start_nothing():
    with Env("cli") as env:
        sock = env.path("vh.sock")
        for args, name in BAD:
            argv = [VFWD, "--no-pci", "--in-memory", "--vdev", "net_vhost0,iface=" + sock,
                    "--vdev", "net_null0", "--"] + args
            r = subprocess.run(argv, capture_output=True, text=True, timeout=20)
            check(r.returncode == 2, "%s: exit %d, want 2" % (args, r.returncode))
            lines = r.stderr.strip().splitlines()
            check(len(lines) == 1 and name in lines[0] and lines[0].startswith("dpdk-vfwd: error:"),
                  "%s: want one error line naming %s, got %r" % (args, name, r.stderr))
            check("EAL" not in r.stdout + r.stderr, "%s: EAL started" % args)
            check(not os.path.exists(sock), "%s: socket created" % args)


def test_help():
    r = subprocess.run([VFWD, "--", "--help"], capture_output=True, text=True, timeout=20)
    check(r.returncode == 0, "exit %d" % r.returncode)
    for opt in ["--burst", "--rxq", "--txq", "--pair", "--tx-retry", "--stats-period",
                "--stats-format", "--duration"]:
        check(opt in r.stdout, "help lacks " + opt)


def test_bad_pair_port():
    """Port roles are checked after EAL: a wire port as VM side is refused."""
    with Env("clipair") as env:
        sock = env.path("vh.sock")
        vf = env.vfwd(["net_vhost0,iface=" + sock, "net_null0"], ["--pair", "1:0"])
        rc = vf.wait(30)
        # 1: refused after EAL; a crash (a signal: rc < 0) is no refusal
        check(rc == 1, "exit %d with --pair 1:0, want 1" % rc)
        check("not a vhost port" in vf.err(), vf.err()[-500:])
        vf2 = env.vfwd(["net_vhost0,iface=" + sock, "net_null0"], ["--pair", "0:5"], name="vfwd2")
        check(vf2.wait(30) == 1 and "no such port" in vf2.err(), vf2.err()[-500:])


def test_needs_a_worker_lcore():
    with Env("clilcore") as env:
        vf = env.vfwd(["net_vhost0,iface=" + env.path("vh.sock"), "net_null0"], [], lcores="0@0")
        check(vf.wait(30) == 1 and "worker lcore" in vf.err(), vf.err()[-500:])
        check(not os.path.exists(env.path("vh.sock")), "socket left behind")
