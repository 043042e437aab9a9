# SPDX-License-Identifier: BSD-3-Clause
"""Live migration of a real Linux guest (QEMU, TCG) between two vfwd
instances while a paced TCP stream runs each way.

    guest on QEMU A <-> vhost-user <-> vfwd A <-> tap A \\
                                                          bridge (netns, the host's end)
    QEMU B -incoming <-> vhost-user <-> vfwd B <-> tap B /

QEMU A boots the guest on vfwd A's socket; QEMU B, the same command line
plus -incoming, waits attached to vfwd B's. Once both streams run, QMP
`migrate` moves the guest: while RAM is copied, vfwd A keeps writing
into the guest's memory, and librte_vhost marks each page it writes in
the dirty log QEMU handed it (VHOST_F_LOG_ALL), so the pages are sent
again; at switch-over A stops its vrings (vfwd A: link down) and B
starts them from where A left (vfwd B: link up), and QEMU B announces
the guest (VHOST_USER_SEND_RARP: vfwd B's first frame from the guest is
a RARP), so the bridge learns the guest's MAC behind tap B. A page vfwd
wrote and did not log would reach B stale: a corrupt stream, which the
sha256 of each direction shows.

Measured: QEMU's downtime (the guest stopped) and the longest time the
host went without a byte of the guest's stream (the downtime as the
network sees it: switch-over, the announce, TCP's retransmit); both are
printed. Both socket modes: vfwd the vhost-user server, and vfwd the
client (net_vhost client=1) of QEMUs that listen.
"""

import json
import os
import re
import socket
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from vfwdtest import (Env, Proc, RUN_PID, TestFailure, check, dir_stats, link_name,  # noqa: E402
                      stop_accounted)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import guest  # noqa: E402

CHUNK = 64 << 10
CHUNKS = 192  # 12 MiB each way
GAP_S = 0.05  # between chunks: about 1.2 MB/s, 10 s a stream
MEM_MB = 256
MIGRATE_AFTER_S = 2.0  # of both streams running

# The guest: paced chunks to the host (5001), the host's paced stream in
# (5002), both at once; prints the sums and powers off.
MIG_INIT = guest.BOOT + guest.TMP + guest.MODULES_UP + """ip addr add %(guest)s/24 dev eth0
ip link set eth0 up
dd if=/dev/urandom of=/tmp/out bs=%(chunk)d count=%(chunks)d 2>/dev/null
echo "GUEST-OUT-SHA $(sha256sum /tmp/out | cut -d' ' -f1)"
paced() {
  i=0
  while [ $i -lt %(chunks)d ]; do
    dd if=/tmp/out bs=%(chunk)d skip=$i count=1 2>/dev/null
    sleep %(gap)s
    i=$((i+1))
  done
}
# the receiver's stdin must not end (busybox nc half-closes at its EOF)
mkfifo /tmp/hold
exec 9<> /tmp/hold
(for t in 1 2 3 4 5; do paced | nc -w 30 %(host)s 5001 && break; sleep 1; done) &
(for t in 1 2 3 4 5; do
   nc -w 30 %(host)s 5002 < /tmp/hold > /tmp/in && [ -s /tmp/in ] && break; sleep 1
 done) &
echo "GUEST-STREAMING"
wait
exec 9>&-
echo "GUEST-IN-SHA $(sha256sum /tmp/in | cut -d' ' -f1) $(wc -c < /tmp/in)"
echo "GUEST-DONE"
poweroff -f
"""

# The host's end (in the namespace, on the bridge): takes the guest's
# stream on 5001, noting the longest wait between two reads and when it
# ended (CLOCK_MONOTONIC, the test's clock too), and sends its own paced
# stream on 5002.
HOST_MIG_SIDE = r"""
import hashlib, os, socket, sys, threading, time
size, chunk, gap, ip = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
def listen(port):
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((ip, port)); s.listen(1); s.settimeout(180)
    return s
rx, tx = listen(5001), listen(5002)
print("HOST-LISTENING", flush=True)
def give():
    c, _ = tx.accept(); c.settimeout(120)
    data = os.urandom(size)
    for off in range(0, size, chunk):
        c.sendall(data[off:off + chunk]); time.sleep(gap)
    c.close()
    print("HOST-OUT-SHA %s %d" % (hashlib.sha256(data).hexdigest(), size), flush=True)
t = threading.Thread(target=give); t.start()
c, _ = rx.accept(); c.settimeout(120)
h, got, last, worst, worst_end = hashlib.sha256(), 0, None, 0.0, 0.0
while got < size:
    b = c.recv(1 << 20)
    if not b:
        break
    now = time.monotonic()
    if last is not None and now - last > worst:
        worst, worst_end = now - last, now
    last = now
    h.update(b); got += len(b)
c.close()
print("HOST-IN-SHA %s %d %.0f %.3f" % (h.hexdigest(), got, worst * 1000, worst_end), flush=True)
t.join()
"""


class Qmp:
    """QEMU's monitor over its unix socket: one command at a time, events
    skipped."""

    def __init__(self, path, timeout=30):
        deadline = time.monotonic() + timeout
        while True:
            try:
                self.s = socket.socket(socket.AF_UNIX)
                self.s.settimeout(timeout)
                self.s.connect(path)
                break
            except OSError:
                self.s.close()
                if time.monotonic() > deadline:
                    raise TestFailure("QMP socket %s: no QEMU listening" % path)
                time.sleep(0.1)
        self.f = self.s.makefile("rw")
        check("QMP" in json.loads(self.f.readline()), "no QMP greeting")
        self.cmd("qmp_capabilities")

    def cmd(self, name, **args):
        self.f.write(json.dumps({"execute": name, "arguments": args}) + "\n")
        self.f.flush()
        while True:
            line = self.f.readline()
            check(line, "QMP %s: QEMU closed the monitor" % name)
            reply = json.loads(line)
            if "error" in reply:
                raise TestFailure("QMP %s: %s" % (name, reply["error"]))
            if "return" in reply:
                return reply["return"]

    def close(self):
        self.s.close()


def vfwd_side(env, ns, tag, sock, client, cpu):
    """A vfwd of its own (napi: idle, it sleeps) on CPU cpu, its tap on the
    bridge."""
    tap = link_name("m" + tag)
    vf = env.vfwd(["net_vhost0,iface=%s,tso=1%s" % (sock, ",client=1" if client else ""),
                   "net_tap0,iface=%s" % tap],
                  ["--stats-format", "json", "--stats-period", "1", "--rx-mode", "napi"],
                  lcores="0@%d,1@%d" % (cpu, cpu), name="vfwd-" + tag, netns=ns)
    vf.wait_output("forwarding", 30)
    ip = ["ip", "-n", ns, "link", "set", tap]
    subprocess.run(ip + ["master", link_name("br")], check=True)
    subprocess.run(ip + ["up"], check=True)
    return vf


def migrate_under_streams(client):
    check(guest.have_guest_tools(), "qemu-system-x86_64, busybox, cpio or a kernel missing "
          "(usertools/setup.sh installs them)")
    tag = "migc" if client else "migs"
    with Env("guest-" + tag) as env:
        ns = "vfwdt-%s-%d" % (tag, RUN_PID)
        env.add_netns(ns)
        br = link_name("br")
        ip = ["ip", "-n", ns]
        subprocess.run(ip + ["link", "add", br, "type", "bridge"], check=True)
        subprocess.run(ip + ["addr", "add", guest.HOST_IP + "/24", "dev", br], check=True)
        subprocess.run(ip + ["link", "set", br, "up"], check=True)
        subprocess.run(ip + ["link", "set", "lo", "up"], check=True)
        sock_a, sock_b = env.path("a.sock"), env.path("b.sock")
        qmp_a, qmp_b = env.path("qmp-a.sock"), env.path("qmp-b.sock")
        mig = "unix:" + env.path("migrate.sock")
        initrd = guest.build_initramfs(env.dir, 0, init=MIG_INIT,
                                       params={"chunk": CHUNK, "chunks": CHUNKS, "gap": GAP_S})
        # vfwd as the server: up first; as the client: it connects (and
        # retries) to the QEMU that listens
        vf_a = vfwd_side(env, ns, "a", sock_a, client, 0)
        vf_b = vfwd_side(env, ns, "b", sock_b, client, 1)
        host = Proc(env, "host", ["ip", "netns", "exec", ns, "python3", "-c", HOST_MIG_SIDE,
                                  str(CHUNK * CHUNKS), str(CHUNK), str(GAP_S), guest.HOST_IP])
        host.wait_output("HOST-LISTENING", 20)
        qa = Proc(env, "qemu-a", guest.qemu_argv(sock_a, initrd, mem_mb=MEM_MB, cpu=0,
                                                 server=client, qmp=qmp_a))
        qb = Proc(env, "qemu-b", guest.qemu_argv(sock_b, initrd, mem_mb=MEM_MB, cpu=1,
                                                 server=client, qmp=qmp_b, incoming=mig))
        mon_a, mon_b = Qmp(qmp_a), Qmp(qmp_b)
        check(mon_b.cmd("query-status")["status"] == "inmigrate",
              "QEMU B is not waiting for the guest: %s" % mon_b.cmd("query-status"))
        try:
            qa.wait_output("GUEST-STREAMING", 240)
        except TestFailure as e:
            raise TestFailure("%s\n--- host: %s %s" % (e, host.out(), host.err()[-500:]))
        time.sleep(MIGRATE_AFTER_S)
        # localhost: no reason to throttle the copy; the default downtime
        # limit (300 ms) stands
        mon_a.cmd("migrate-set-parameters", **{"max-bandwidth": 4 << 30})
        t0 = time.monotonic()
        mon_a.cmd("migrate", uri=mig)
        deadline = t0 + 120
        while True:
            info = mon_a.cmd("query-migrate")
            if info.get("status") in ("completed", "failed", "cancelled"):
                break
            check(time.monotonic() < deadline, "migration not done in 120 s: %s" % info)
            time.sleep(0.1)
        t_done = time.monotonic()
        check(info["status"] == "completed", "migration %s: %s" % (info["status"], info))
        mon_a.cmd("quit")
        mon_a.close()
        qa.wait(30)
        try:
            qb.wait_output("GUEST-DONE", 180)
        except TestFailure as e:
            raise TestFailure("%s\n--- host: %s %s" % (e, host.out(), host.err()[-500:]))
        mon_b.close()
        qb.wait(60)
        host.wait(60)
        final_a, final_b = stop_accounted(vf_a, "vfwd A"), stop_accounted(vf_b, "vfwd B")

        con_a, con_b, hostout = qa.out(), qb.out(), host.out()
        check("GUEST-ERROR" not in con_a + con_b, "guest: %s\n%s" % (con_a[-1000:], con_b[-1000:]))
        # the streams were still running at switch-over: their end is
        # on B's console, not on A's
        check("GUEST-IN-SHA" not in con_a, "the streams ended before the migration: " + con_a)
        g_out = re.search(r"GUEST-OUT-SHA (\w+)", con_a)
        g_in = re.search(r"GUEST-IN-SHA (\w+) +(\d+)", con_b)
        h_in = re.search(r"HOST-IN-SHA (\w+) (\d+) (\d+) ([\d.]+)", hostout)
        h_out = re.search(r"HOST-OUT-SHA (\w+) (\d+)", hostout)
        check(g_out and g_in and h_in and h_out, "missing sums:\nA: %s\nB: %s\nhost: %s %s"
              % (con_a[-800:], con_b[-800:], hostout, host.err()[-500:]))
        size = CHUNK * CHUNKS
        check(int(h_in.group(2)) == size and h_in.group(1) == g_out.group(1),
              "guest->host: %s bytes, sum %s, want %d and %s"
              % (h_in.group(2), h_in.group(1), size, g_out.group(1)))
        check(int(g_in.group(2)) == size and g_in.group(1) == h_out.group(1),
              "host->guest: %s bytes, sum %s, want %d and %s"
              % (g_in.group(2), g_in.group(1), size, h_out.group(1)))
        # the guest's traffic went through A, then through B, both ways
        for tag, final in (("A", final_a), ("B", final_b)):
            for name in ("vm_to_wire", "wire_to_vm"):
                check(dir_stats(final, name)["tx_pkts"] > 100,
                      "vfwd %s forwarded little %s: %s" % (tag, name, dir_stats(final, name)))
        gap_ms, gap_end = int(h_in.group(3)), float(h_in.group(4))
        # the longest silence is the migration's: it ended after the
        # migration began (within a minute: TCP's retransmit backs off)
        check(t0 < gap_end < t_done + 60, "longest gap (%d ms) ended at %.1f s, migration "
              "%.1f..%.1f s" % (gap_ms, gap_end, t0, t_done))
        ram = info.get("ram", {})
        print("     %s: migrated in %d ms (%d MB sent, %d dirty syncs), guest stopped %d ms; "
              "the host's longest wait for the guest's stream %d ms; 2 x %d MiB intact; "
              "vfwd A peer-down drops %d (toward the guest gone), vfwd B forwarded %d/%d"
              % ("vfwd client" if client else "vfwd server", info.get("total-time", -1),
                 ram.get("transferred", 0) >> 20, ram.get("dirty-sync-count", 0),
                 info.get("downtime", -1), gap_ms, size >> 20,
                 dir_stats(final_a, "wire_to_vm")["drop_peer_down"],
                 dir_stats(final_b, "vm_to_wire")["tx_pkts"],
                 dir_stats(final_b, "wire_to_vm")["tx_pkts"]))


def test_migrate_between_two_vfwd_servers():
    migrate_under_streams(client=False)


def test_migrate_between_two_vfwd_clients():
    migrate_under_streams(client=True)
