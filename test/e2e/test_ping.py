# SPDX-License-Identifier: BSD-3-Clause
"""A real kernel on the wire side: ping from a network namespace through a
net_tap port, through vfwd and vhost-user, to a virtio-user peer that
answers (dpdk-testpmd's icmpecho mode answers ARP and ICMP echo).

    netns: ping -> tap <-> vfwd <-> vhost-user <-> testpmd icmpecho
"""

import os
import subprocess

from vfwdtest import Env, RUN_PID, check, dir_stats, link_name

COUNT = 10


def test_ping_through_tap():
    with Env("ping") as env:
        ns = "vfwdt-ping-%d" % RUN_PID
        tap = link_name("t")
        env.add_netns(ns)
        sock = env.path("vh.sock")
        # vfwd runs inside the namespace so that its tap is created there
        vf = env.vfwd(["net_vhost0,iface=%s,tso=1" % sock, "net_tap0,iface=%s" % tap],
                      ["--stats-format", "json"], netns=ns)
        vf.wait_output("forwarding", 30)
        ip = ["ip", "-n", ns]
        subprocess.run(ip + ["addr", "add", "192.0.2.1/24", "dev", tap], check=True)
        subprocess.run(ip + ["link", "set", tap, "up"], check=True)
        subprocess.run(ip + ["link", "set", "lo", "up"], check=True)
        echo = env.testpmd(["net_virtio_user0,path=" + sock],
                           ["--forward-mode=icmpecho", "--nb-cores=1"], lcores="0@0,1@0")
        echo.wait_output("Press enter to exit", 30)
        r = subprocess.run(["ip", "netns", "exec", ns, "ping", "-c", str(COUNT), "-i", "0.2",
                            "-W", "2", "192.0.2.2"], capture_output=True, text=True, timeout=60)
        echo.stop(20)
        rc = vf.stop(20)
        check(rc == 0, "vfwd exit %d: %s" % (rc, vf.err()[-1000:]))
        check(" 0% packet loss" in r.stdout, "ping lost packets:\n" + r.stdout + r.stderr)
        final = vf.last_json()
        w2v, v2w = dir_stats(final, "wire_to_vm"), dir_stats(final, "vm_to_wire")
        # echo requests (and ARP) went toward the VM, replies came back
        check(w2v["tx_pkts"] >= COUNT and v2w["tx_pkts"] >= COUNT, "stats: %s / %s" % (w2v, v2w))
        for d in (w2v, v2w):
            check(d["rx_pkts"] == d["tx_pkts"] + d["drops"], "rx != tx + drops: %s" % d)
        check(final["mempool"]["in_use"] == final["mempool"]["in_use_at_start"],
              "mbufs leaked: %s" % final["mempool"])
