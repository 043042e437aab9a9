# SPDX-License-Identifier: BSD-3-Clause
"""The embedded default: no ports on the command line gives a vhost-user
server socket (tso=1) in the runtime directory and a kernel tap; traffic
from a virtio-user peer goes out on the tap; everything is removed at the
end of --duration."""

import os
import re
import subprocess
import time

from vfwdtest import VFWD, Env, Proc, check, dir_stats

COUNT = 20000


def tap_rx_packets(tap):
    with open("/sys/class/net/%s/statistics/rx_packets" % tap) as f:
        return int(f.read())


def test_embedded_default():
    with Env("default") as env:
        prefix = env.prefix("vfwd")
        vf = Proc(env, "vfwd", [VFWD, "--lcores", "0@0,1@1", "--in-memory", "--no-pci",
                                "--file-prefix", prefix, "--log-level=lib.vhost.config:notice",
                                "--", "--duration", "8", "--stats-format", "json"])
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
        check(subprocess.run(["ip", "link", "show", tap], capture_output=True).returncode == 0,
              "tap %s not there" % tap)
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
        check(subprocess.run(["ip", "link", "show", tap], capture_output=True).returncode != 0,
              "tap left behind")
