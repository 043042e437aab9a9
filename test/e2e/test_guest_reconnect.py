# SPDX-License-Identifier: BSD-3-Clause
"""A real Linux guest (QEMU, TCG) killed, or powered off, and started again
7 times on vfwd's socket while the wire keeps sending (a ping from the
namespace toward the guest's address every 10 ms, all the time): vfwd
stays up, forwards again within 1 s of the new guest's link coming up
(the guest pings every 50 ms from then on: its first reply's seq), every
frame vfwd took is forwarded or a drop counted with its cause (peer-down
while no guest is there, tx_full while a booting one has no rx buffers
posted yet), and the mempool is back to its start at the end. Both socket
modes: vfwd the vhost-user server, and vfwd the client (net_vhost
client=1) of a QEMU that listens.

    guest virtio_net <-> vhost-user <-> vfwd <-> net_tap <-> netns (pinging)
"""

import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import guest  # noqa: E402
from vfwdtest import Env, Proc, RUN_PID, check, dir_stats, link_name, stop_accounted  # noqa: E402


BOOTS = 7
# a restart's first reply within 1 s of the guest's link coming up
RESUME_SEQS = 20  # of 50 ms


def boot(env, sock, initrd, name, server=False, kill=False):
    """One guest's life on sock; kill: SIGKILL QEMU once its first pings
    got through (as an OOM kill or a crash would), rather than letting it
    power off. Returns the first reply's seq (50 ms each)."""
    q = Proc(env, name, guest.qemu_argv(sock, initrd, server=server))
    q.wait_output("GUEST-FIRST-SEQ", 240)
    if kill:
        q.wait_output("GUEST-PING", 60)
        q.kill()
    else:
        q.wait_output("GUEST-DONE", 60)
        rc = q.wait(60)
        check(rc == 0, "%s: qemu exit %d: %s" % (name, rc, q.out()[-800:]))
    out = q.out()
    check("GUEST-ERROR" not in out, "%s: %s" % (name, out[-800:]))
    first = re.search(r"GUEST-FIRST-SEQ (\d+)", out)
    ping = re.search(r"GUEST-PING (\d+) packets transmitted, (\d+) packets received", out)
    check(first and ping, "%s: no ping results:\n%s" % (name, out[-1500:]))
    check(int(first.group(1)) < RESUME_SEQS, "%s: first reply after %d ms of link up"
          % (name, 50 * int(first.group(1))))
    check(int(ping.group(2)) >= 9, "%s: %s of 10 pings answered" % (name, ping.group(2)))
    return int(first.group(1))


def setup(env, tag, vhost_args, extra=()):
    check(guest.have_guest_tools(), "qemu, busybox, cpio or a kernel missing")
    ns = "vfwdt-%s-%d" % (tag, RUN_PID)
    tap = link_name("q")
    env.add_netns(ns)
    sock = env.path("vh.sock")
    initrd = guest.build_initramfs(env.dir, 0, init=guest.PING_INIT,
                                   params={"host_mac": guest.HOST_MAC})
    vf = env.vfwd(["net_vhost0,iface=%s,%s" % (sock, vhost_args), "net_tap0,iface=%s" % tap],
                  ["--stats-format", "json", "--stats-period", "1"] + list(extra), netns=ns)
    vf.wait_output("forwarding started", 30)
    ip = ["ip", "-n", ns]
    subprocess.run(ip + ["addr", "add", guest.HOST_IP + "/24", "dev", tap], check=True)
    # the guest's static ARP entry for the host
    subprocess.run(ip + ["link", "set", tap, "address", guest.HOST_MAC], check=True)
    subprocess.run(ip + ["link", "set", tap, "up"], check=True)
    # and the host's for the guest: no ARP retry (1 s) between a new guest
    # and the host's reply, and the wire's pings flow while no guest is there
    subprocess.run(ip + ["neigh", "replace", guest.GUEST_IP, "lladdr", guest.GUEST_MAC, "dev", tap,
                         "nud", "permanent"], check=True)
    subprocess.run(ip + ["link", "set", "lo", "up"], check=True)
    # the wire keeps sending toward the guest, there or not
    Proc(env, "wire-ping", ["ip", "netns", "exec", ns, "ping", "-i", "0.01", guest.GUEST_IP])
    return sock, initrd, vf


def finish(vf, firsts, mode):
    final = stop_accounted(vf)
    w2v = dir_stats(final, "wire_to_vm")
    check(w2v["drop_peer_down"] > 0, "no peer-down drops while the guest was away")
    print("     %s, %d guests (every other one killed): first reply %s ms after link-up; "
          "wire->vm %d forwarded, %d peer-down, %d tx_full"
          % (mode, len(firsts), "/".join(str(50 * f) for f in firsts), w2v["tx_pkts"],
             w2v["drop_peer_down"], w2v["drop_tx_full"]))


def test_guest_killed_or_powered_off_10_times():
    with Env("qreboot") as env:
        sock, initrd, vf = setup(env, "qreb", "tso=1")
        firsts = []
        for i in range(BOOTS):
            firsts.append(boot(env, sock, initrd, "qemu%d" % i, kill=i % 2 == 0))
            check(vf.p.poll() is None, "vfwd died after guest %d: %s" % (i, vf.err()[-1500:]))
        finish(vf, firsts, "vfwd the server")


def test_vfwd_as_client_of_a_qemu_restarted_10_times():
    with Env("qclient") as env:
        # vfwd first: as a client it retries until QEMU listens
        sock, initrd, vf = setup(env, "qcli", "client=1,tso=1")
        firsts = []
        for i in range(BOOTS):
            firsts.append(boot(env, sock, initrd, "qemu-server%d" % i, server=True,
                               kill=i % 2 == 0))
            check(vf.p.poll() is None, "vfwd died after QEMU %d: %s" % (i, vf.err()[-1500:]))
        finish(vf, firsts, "vfwd the client")
