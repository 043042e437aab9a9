# SPDX-License-Identifier: BSD-3-Clause
"""A real Linux guest (QEMU, TCG) powered off and booted again 5 times on
vfwd's socket while the wire keeps sending (a ping from the namespace
toward the guest's address, all the time): vfwd stays up, the guest's
first ping gets through within 2 s of its link coming up every time, and
the mempool is back to its start at the end. Then vfwd as the vhost-user
client (net_vhost client=1) of a QEMU that listens, restarted 3 times.

    guest virtio_net <-> vhost-user <-> vfwd <-> net_tap <-> netns (pinging)
"""

import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import guest  # noqa: E402
from vfwdtest import Env, Proc, RUN_PID, check, dir_stats, link_name  # noqa: E402


def boot(env, sock, initrd, name, server=False):
    q = Proc(env, name, guest.qemu_argv(sock, initrd, server=server))
    q.wait_output("GUEST-DONE", 240)
    rc = q.wait(60)
    out = q.out()
    check(rc == 0, "%s: qemu exit %d: %s" % (name, rc, out[-800:]))
    first = re.search(r"GUEST-FIRST-REPLY-AFTER (\d+)", out)
    ping = re.search(r"GUEST-PING (\d+) packets transmitted, (\d+) packets received", out)
    check(first and ping, "%s: no ping results:\n%s" % (name, out[-1500:]))
    # each failed attempt is a 1 s wait: 2 failures at most
    check(int(first.group(1)) <= 2, "%s: first reply after %s s" % (name, first.group(1)))
    check(int(ping.group(2)) >= 9, "%s: %s of 10 pings answered" % (name, ping.group(2)))
    return int(first.group(1))


def setup(env, tag, vhost_args, extra=()):
    check(guest.have_guest_tools(), "qemu, busybox, cpio or a kernel missing")
    ns = "vfwdt-%s-%d" % (tag, RUN_PID)
    tap = link_name("q")
    env.add_netns(ns)
    sock = env.path("vh.sock")
    initrd = guest.build_initramfs(env.dir, 0, init=guest.PING_INIT)
    vf = env.vfwd(["net_vhost0,iface=%s,%s" % (sock, vhost_args), "net_tap0,iface=%s" % tap],
                  ["--stats-format", "json", "--stats-period", "1"] + list(extra), netns=ns)
    vf.wait_output("forwarding started", 30)
    ip = ["ip", "-n", ns]
    subprocess.run(ip + ["addr", "add", guest.HOST_IP + "/24", "dev", tap], check=True)
    subprocess.run(ip + ["link", "set", tap, "up"], check=True)
    subprocess.run(ip + ["link", "set", "lo", "up"], check=True)
    # the wire keeps sending toward the guest, there or not
    Proc(env, "wire-ping", ["ip", "netns", "exec", ns, "ping", "-i", "0.05", guest.GUEST_IP])
    return sock, initrd, vf


def finish(vf):
    rc = vf.stop(20)
    check(rc == 0, "vfwd exit %d: %s" % (rc, vf.err()[-1500:]))
    final = vf.last_json()
    for name in ("vm_to_wire", "wire_to_vm"):
        d = dir_stats(final, name)
        check(d["out_expected"] == d["tx_pkts"] + d["drops"], "%s: %s" % (name, d))
    check(dir_stats(final, "wire_to_vm")["drop_peer_down"] > 0,
          "no peer-down drops while the guest was away")
    check(final["mempool"]["in_use"] == final["mempool"]["in_use_at_start"],
          "mbufs leaked: %s" % final["mempool"])


def test_guest_reboots_5_times():
    with Env("qreboot") as env:
        sock, initrd, vf = setup(env, "qreb", "tso=1")
        firsts = []
        for i in range(5):
            firsts.append(boot(env, sock, initrd, "qemu%d" % i))
            check(vf.p.poll() is None, "vfwd died after boot %d: %s" % (i, vf.err()[-1500:]))
        finish(vf)
        print("     5 boots: first reply after %s failed 1 s pings" % firsts)


def test_vfwd_as_client_of_a_restarting_qemu():
    with Env("qclient") as env:
        # vfwd first: as a client it retries until QEMU listens
        sock, initrd, vf = setup(env, "qcli", "client=1,tso=1")
        for i in range(3):
            boot(env, sock, initrd, "qemu-server%d" % i, server=True)
            check(vf.p.poll() is None, "vfwd died after QEMU %d: %s" % (i, vf.err()[-1500:]))
        finish(vf)
