# SPDX-License-Identifier: BSD-3-Clause
"""Guest notifications under vfwd's control (--notify, --vhost-path lib,
DPDK 23.07+), with a real Linux guest: one that sleeps until it is told
of what is in its receive queue, which a polling peer never needs.

    netns: ping -> tap <-> vfwd (lib path) <-> vhost-user <-> guest virtio_net

Before 23.07 (no guest_notify device op) and on the pmd path vfwd refuses
the modes that hold notifications back, and says why.
"""

import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from vfwdtest import Env, Proc, RUN_PID, check, link_name  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import guest  # noqa: E402

# long enough to stand out of a TCG guest's own ping times (a few ms)
HOLD_US = 200000
PINGS = 8

# The guest: its address, then nothing but answering pings until killed.
IDLE_INIT = guest.BOOT + guest.MODULES_UP + """%(addr)s
ip link set eth0 up
echo "GUEST-READY"
while true; do sleep 10; done
"""


def dpdk_version():
    v = subprocess.run(["pkg-config", "--modversion", "libdpdk"], capture_output=True,
                       text=True, timeout=10).stdout.strip()
    try:
        return tuple(int(x) for x in v.split(".")[:2])
    except ValueError:
        return (0, 0)


# Before 23.07 there is nothing to hold notifications with: only the
# refusal is tested there, the tests below exist from 23.07 on (a test
# that returned early would pass having checked nothing)
HAS_GUEST_NOTIFY = dpdk_version() >= (23, 7)


def refused(env, args, pattern):
    vf = env.vfwd(["net_vhost0,iface=" + env.path("r.sock"), "net_null0"], args)
    rc = vf.wait(30)
    check(rc != 0, "vfwd %s started" % " ".join(args))
    check(re.search(pattern, vf.err()), "vfwd %s: %s" % (" ".join(args), vf.err()[-600:]))


def test_notify_refused_where_it_cannot_work():
    """coalesce and adaptive need the lib path (net_vhost's tx sends each
    notification itself) and DPDK 23.07+: vfwd exits with the reason."""
    with Env("notify-refused") as env:
        refused(env, ["--notify", "coalesce", "--vhost-path", "pmd"], r"needs --vhost-path lib")
        refused(env, ["--notify", "adaptive", "--vhost-path", "pmd"], r"needs --vhost-path lib")
        if dpdk_version() < (23, 7):
            refused(env, ["--notify", "coalesce", "--vhost-path", "lib"],
                    r"needs DPDK 23.07 or later")
            return
        # a prompt set on the pmd path is refused the same way, the
        # running value left as it was
        vf = env.vfwd_pty(["net_vhost0,iface=" + env.path("p.sock"), "net_null0"],
                          ["--vhost-path", "pmd"])
        vf.expect(r"vfwd> ", 30)
        out = vf.command("set notify coalesce")
        check("needs --vhost-path lib" in out, out)
        out = vf.command("show config")
        check(re.search(r"notify\s+immediate", out), out)
        vf.send("quit")
        check(vf.wait(30) == 0, vf.screen()[-800:])


def rtts(ns, count):
    r = subprocess.run(["ip", "netns", "exec", ns, "ping", "-c", str(count), "-i", "0.5",
                        "-W", "5", guest.GUEST_IP], capture_output=True, text=True, timeout=120)
    got = [float(x) for x in re.findall(r"time=([\d.]+) ms", r.stdout)]
    check(len(got) == count, "ping: %s%s" % (r.stdout, r.stderr))
    return got


def stream_toward_vm(report):
    s = [st for st in report["streams"] if st["dir"] == "wire_to_vm"]
    check(len(s) == 1, "streams: %s" % report["streams"])
    return s[0]


def notify_lone_packet_reaches_a_sleeping_guest_when_its_time_is_up():
    """A lone ping to an idle guest. immediate: it answers in a few ms.
    coalesce with --notify-usecs 200000 and more frames than a ping
    brings: the echo requests wait for the timer, and no longer than it
    plus a poll (the median RTT is 200 ms, none above 200 ms + slack);
    every notification vfwd held it sent. Back to immediate: fast again, nothing
    held. The prompt switches the mode while the guest runs."""
    check(guest.have_guest_tools(), "qemu-system-x86_64, busybox, cpio or a kernel missing "
          "(usertools/setup.sh installs them)")
    with Env("notify-lone") as env:
        ns = "vfwdt-nt-%d" % RUN_PID
        tap = link_name("n")
        env.add_netns(ns)
        sock = env.path("vh.sock")
        initrd = guest.build_initramfs(env.dir, 0, init=IDLE_INIT)
        vf = env.vfwd_pty(["net_vhost0,iface=%s" % sock, "net_tap0,iface=%s" % tap],
                          ["--vhost-path", "lib", "--notify-usecs", str(HOLD_US),
                           "--notify-frames", "1000"], lcores="0@0,1@1", netns=ns)
        vf.expect(r"vfwd> ", 30)
        check("forwarding started" in vf.command("start"), vf.screen()[-800:])
        guest.tap_up(ns, tap, False)
        vm = Proc(env, "qemu", guest.qemu_argv(sock, initrd))
        vm.wait_output("GUEST-READY", 240)
        # the first pings resolve ARP both ways, warm the guest's caches
        rtts(ns, 3)

        fast = rtts(ns, PINGS)
        out = vf.command("set notify coalesce")
        check("notify = coalesce" in out, out)
        vf.command("clear fwd stats")
        held = rtts(ns, PINGS)
        st = stream_toward_vm(vf.command_json("show pair stats json"))
        out = vf.command("set notify immediate")
        check("notify = immediate" in out, out)
        after = rtts(ns, PINGS)
        final = stream_toward_vm(vf.command_json("show pair stats json"))
        vm.kill()
        vf.send("quit")
        check(vf.wait(30) == 0, vf.screen()[-800:])

        hold_ms = HOLD_US / 1000.0
        med = lambda xs: sorted(xs)[len(xs) // 2]  # noqa: E731
        check(med(fast) < hold_ms / 4 and med(after) < hold_ms / 4,
              "immediate: RTTs %s before, %s after" % (fast, after))
        # each echo request waited for the timer, and not much longer (a
        # poll; TCG's own time is in 'fast'). One may come sooner: the
        # guest looks at every virtqueue on any interrupt of its one INTx
        # line (its tx completions, an ARP of its own, are not held)
        slack = 4 * max(fast) + 50
        check(med(held) >= hold_ms * 0.9 and max(held) <= hold_ms + slack,
              "coalesce %d us: RTTs %s (immediate %s)" % (HOLD_US, held, fast))
        # each request was one notification held back and sent by the timer
        check(st["notify_deferred"] >= PINGS and st["notify_sent"] == st["notify_deferred"],
              "coalesce counters: %s" % st)
        check(final["notify_sent"] == final["notify_deferred"],
              "immediate again, yet notifications held: %s" % final)
        print("     RTT ms, median: immediate %.1f, coalesce %d us %.1f (%.1f-%.1f), "
              "immediate again %.1f; %d held, %d sent, %d bursts rode along"
              % (med(fast), HOLD_US, med(held), min(held), max(held), med(after),
                 st["notify_deferred"], st["notify_sent"], st["notify_coalesced"]))


def notify_transfer(mode, gro, shape=""):
    """32 MiB each way between the guest and the namespace's TCP (test_guest's
    transfer: sha256 equal both ways, every frame forwarded or counted) on
    the lib path with --notify mode; returns the stream toward the guest
    in vfwd's last report."""
    import test_guest
    reports = []
    test_guest.transfer(gro, shape=shape, keep=reports,
                        extra=["--vhost-path", "lib", "--notify", mode])
    return stream_toward_vm(reports[-1])


def check_held_and_sent(st, mode, rode=True):
    # a bulk stream toward the guest: notifications were held (bursts rode
    # on them), and every one held was sent (none left when vfwd stopped)
    check(st["notify_deferred"] > 0, "%s: nothing held under a bulk stream: %s" % (mode, st))
    check(not rode or st["notify_coalesced"] > 0, "%s: no burst rode on a held one: %s"
          % (mode, st))
    check(st["notify_sent"] == st["notify_deferred"], "%s: held %d, sent %d"
          % (mode, st["notify_deferred"], st["notify_sent"]))
    print("     %s: %d notifications held and sent (%.0f TSC cycles on average), %d bursts "
          "rode on one" % (mode, st["notify_sent"], st["notify_wait_tsc"] / st["notify_sent"],
                           st["notify_coalesced"]))


def notify_coalesce_guest_tcp_with_gro():
    """--notify coalesce under a guest's TCP both ways with GRO: the data
    intact, notifications held, bursts riding on them, all sent."""
    check_held_and_sent(notify_transfer("coalesce", True), "coalesce")


def notify_adaptive_guest_without_event_index():
    """--notify adaptive with a guest that has no event index (librte_vhost
    then asks whenever the guest's interrupts are on, not only past its used
    event): the data intact both ways, the rate of a bulk stream turned
    holding on, everything held was sent."""
    # adaptive holds only while its probes find bursts riding (a few
    # dozen holds a transfer here, one or two with a burst on them): that
    # any rode is not asked
    check_held_and_sent(notify_transfer("adaptive", False, shape="event_idx=off"), "adaptive",
                        rode=False)


if HAS_GUEST_NOTIFY:
    test_notify_lone_packet_reaches_a_sleeping_guest_when_its_time_is_up = \
        notify_lone_packet_reaches_a_sleeping_guest_when_its_time_is_up
    test_notify_coalesce_guest_tcp_with_gro = notify_coalesce_guest_tcp_with_gro
    test_notify_adaptive_guest_without_event_index = notify_adaptive_guest_without_event_index
