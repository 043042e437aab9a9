# SPDX-License-Identifier: BSD-3-Clause
"""The embedded default: no ports on the command line gives a vhost-user
server socket (tso=1) in the runtime directory and a kernel tap; traffic
from a virtio-user peer goes out on the tap; everything is removed at the
end of --duration. Its tap is the first free name of a prefix (the run's
own here, never the default's vfwd-tap0 a user's forwarder may hold): one
taken by someone else is left alone and the next one taken."""

import os
import re
import subprocess
import time

from vfwdtest import VFWD, Env, Proc, check, dir_stats, link_name

COUNT = 20000


def tap_rx_packets(tap):
    with open("/sys/class/net/%s/statistics/rx_packets" % tap) as f:
        return int(f.read())


# the taps of this run: vfwdd<pid>-0, -1, ...
TAP_PREFIX = link_name("d") + "-"


def default_vfwd(env, args):
    prefix = env.prefix("vfwd")
    return Proc(env, "vfwd", [VFWD, "--lcores", "0@0,1@1", "--in-memory", "--no-pci",
                              "--file-prefix", prefix, "--log-level=lib.vhost.config:notice",
                              "--", "--tap-prefix", TAP_PREFIX] + list(args)), prefix


def link_exists(name):
    return subprocess.run(["ip", "link", "show", name], capture_output=True).returncode == 0


def test_embedded_default():
    with Env("default") as env:
        vf, prefix = default_vfwd(env, ["--duration", "8", "--stats-format", "json"])
        vf.wait_output("attach a QEMU guest", 30)
        out = vf.out()
        m = re.search(r"vhost-user server socket (\S+) \(tso=1\)", out)
        check(m, "no socket path printed:\n" + out)
        sock = m.group(1)
        check(sock.startswith("/var/run/dpdk/%s/" % prefix), "socket not in the runtime dir: " + sock)
        check(os.path.exists(sock), "socket missing")
        m = re.search(r"kernel tap (\S+)", out)
        check(m, "no tap name printed")
        tap = m.group(1)
        check(tap == TAP_PREFIX + "0", "tap %s, not the first free %s0" % (tap, TAP_PREFIX))
        check(link_exists(tap), "tap %s not there" % tap)
        # the kernel counts what the tap hands it: the receiving side
        tap_rx0 = tap_rx_packets(tap)
        peer = env.peer(["net_virtio_user0,path=" + sock],
                        ["--tx-port", "0", "--count", str(COUNT), "--timeout", "20"])
        check(peer.wait(30) == 0, "peer failed: " + peer.err()[-800:])
        check(peer.last_json()["tx"] == COUNT, "peer did not send all")
        time.sleep(0.5)
        tap_rx = tap_rx_packets(tap) - tap_rx0
        check(vf.p.poll() is None, "vfwd ended before the check: raise --duration")
        rc = vf.wait(30)
        check(rc == 0, "vfwd exit %d: %s" % (rc, vf.err()[-1500:]))
        final = vf.last_json()
        d = dir_stats(final, "vm_to_wire")
        check(d["rx_pkts"] == COUNT, "vfwd got %d of %d" % (d["rx_pkts"], COUNT))
        check(d["rx_pkts"] == d["tx_pkts"] + d["drops"], "rx != tx + drops: %s" % d)
        # all arrive: nothing dropped on the way, and the tap's kernel side
        # received every one of them
        check(d["drops"] == 0, "vfwd dropped %d toward the tap: %s" % (d["drops"], d))
        check(tap_rx == COUNT, "the tap's kernel side received %d of %d frames" % (tap_rx, COUNT))
        check(not os.path.exists(sock), "socket left behind")
        check(not link_exists(tap), "tap left behind")


def test_a_tap_name_in_use_is_left_alone():
    """<prefix>0 exists (another process's tap; here one made by ip tuntap
    for the test): vfwd says so, takes <prefix>1, and leaves <prefix>0 as
    it was when it ends. With every name taken it fails with a clear
    error, and takes none."""
    taken = TAP_PREFIX + "0"
    subprocess.run(["ip", "tuntap", "add", "dev", taken, "mode", "tap"], check=True)
    try:
        with Env("default-taken") as env:
            vf, _ = default_vfwd(env, ["--duration", "3"])
            vf.wait_output("attach a QEMU guest", 30)
            check("%s exists (another process's): taking %s1" % (taken, TAP_PREFIX) in vf.out(),
                  "no word of the name taken:\n" + vf.out())
            check(re.search(r"kernel tap %s1\b" % re.escape(TAP_PREFIX), vf.out()),
                  "not %s1:\n%s" % (TAP_PREFIX, vf.out()))
            check(link_exists(TAP_PREFIX + "1"), "%s1 not there" % TAP_PREFIX)
            rc = vf.wait(30)
            check(rc == 0, "vfwd exit %d: %s" % (rc, vf.err()[-1500:]))
            check(link_exists(taken), "the tap in use was taken away")
            check(not link_exists(TAP_PREFIX + "1"), "%s1 left behind" % TAP_PREFIX)
        with Env("default-full") as env:
            # a prefix of one name less: the test's own taps, 0..15 taken
            more = ["%s%d" % (TAP_PREFIX, i) for i in range(1, 16)]
            for name in more:
                subprocess.run(["ip", "tuntap", "add", "dev", name, "mode", "tap"], check=True)
            try:
                vf, _ = default_vfwd(env, ["--duration", "3"])
                rc = vf.wait(30)
                check(rc != 0 and "all exist" in vf.err() and "--tap-prefix" in vf.err(),
                      "every name taken: exit %d, %s" % (rc, vf.err()[-800:]))
            finally:
                for name in more:
                    subprocess.run(["ip", "link", "del", name], stderr=subprocess.DEVNULL)
            check(link_exists(taken), "the tap in use was taken away")
    finally:
        subprocess.run(["ip", "link", "del", taken], stderr=subprocess.DEVNULL)
