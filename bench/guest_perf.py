# SPDX-License-Identifier: BSD-3-Clause
"""The guest topology of bench/perf.py: a real Linux guest on the
forwarder's vhost-user socket, the far end a tap in a network namespace.

    netns (iperf3, rr) -> tap (net_tap) <-> forwarder <-> vhost-user <-> QEMU guest virtio_net (iperf3 -s, rr server)

One session = one forwarder process and one guest boot. The forwarder is
vfwd at its prompt (each cell's knobs are typed there with `set`, the way a
person flips them, so one boot serves every vfwd variant of a scenario), or
dpdk-testpmd csum + GRO. The guest runs iperf3 and rr servers and answers
"STAT tag" on its serial console with its own counters; the host side runs
the clients. Each cell: the knobs, the guest's and the forwarder's counters,
the workload, the counters again.

Figures per cell (perf.METRICS has their headers): Mbit/s, transactions/s
and round trips, UDP loss; the guest's rx and tx frames per MB moved, its
virtio interrupts per second and per frame (/proc/interrupts), its CPU
split user/system/softirq (/proc/stat) and softirq ms per MB; the
forwarder's cycles per packet, busy % and CPU %; calls into the guest per
packet to and from it (net_vhost's per-virtqueue guest_notifications
xstats, both rings) and kicks taken from the guest per packet received
from it (vfwd's wakeups_kick: sleeps a guest's kick ended; under net_vhost
the guest is asked not to kick while vfwd polls, so only an rx-mode that
sleeps takes kicks).

QEMU runs with KVM when /dev/kvm boots a probe guest within 20 s (nested
KVM can hang at kernel start), else TCG; the tables say which.
"""

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

import vfwdtest
from vfwdtest import (Proc, PtyProc, Telemetry, TestFailure, check, cpu_pct, thread_cpu_ticks,
                      vfwd_cost, vfwd_snapshot)

sys.path.insert(0, os.path.join(vfwdtest.ROOT, "test", "e2e"))
import guest  # noqa: E402

CACHE = "/var/tmp/vfwd-guest"
RR_PORT = 7001
IPERF_PORT = 5201
RING = 1024          # QEMU's rx_queue_size / tx_queue_size
GUEST_MAC = "52:54:00:12:34:56"
TAP_MAC = "02:00:00:00:00:aa"
FORWARDERS = ("vfwd", "testpmd-csum-gro")
TESTPMD_GRO = ("port stop all\nset fwd csum\nset port 0 gro on\nset port 1 gro on\n"
               "csum set ip sw 0\ncsum set tcp hw 0\ntso set 1448 0\n"
               # what the guest sends as TSO frames is cut for the tap by GSO
               "csum set ip sw 1\ncsum set tcp hw 1\nset port 1 gso on\nport start all\nstart\n")

# The guest: servers up, then its serial console is a command line:
# "STAT tag" prints its counters, "QUIT" powers it off.
PERF_INIT = guest.BOOT + guest.TMP + guest.MODULES_UP + """%(addr)s
ip link set eth0 up
/bin/iperf3 -s -D -p %(iperf)d --logfile /tmp/iperf3.log || echo "GUEST-ERROR iperf3"
/bin/rr server %(rr)d &
stat() {
  echo "GUEST-STAT $1 dev $(grep eth0: /proc/net/dev | cut -d: -f2)"
  echo "GUEST-STAT $1 irq $(grep virtio /proc/interrupts | tr -s ' ' | cut -d' ' -f3 | tr '\\n' ' ')"
  echo "GUEST-STAT $1 cpu $(head -1 /proc/stat | cut -c4-)"
  echo "GUEST-STAT $1 end"
}
stty -echo 2>/dev/null
echo "GUEST-READY"
while read -r cmd arg; do
  case "$cmd" in
    STAT) stat "$arg" ;;
    QUIT) break ;;
  esac
done
echo "GUEST-DONE"
poweroff -f
"""

WORKLOAD_HELP = """workloads (host = the tap's namespace, in = host -> guest):
  tcp-in N, tcp-out N     iperf3 TCP, N streams
  tcp-in N RATE, ...      ... paced at RATE bit/s in all (k/M/G): a guest that keeps up
  udp-in RATE, udp-out RATE
                          iperf3 UDP 1400 B at RATE bit/s (k/M/G) or max
  rr N                    rr: N connections, one 64 B request in flight each
  rr N under W            rr N while workload W (a stream: tcp-* or udp-*) runs: the round
                          trip under load, and W's Mbit/s
  idle                    nothing: what waiting costs"""


def parse_workload(w):
    """("tcp", "in", 1) from "tcp-in 1", ("tcp", "in", (1, "200M")) from
    "tcp-in 1 200M", ("rr", None, 4), ("idle", None, None)"""
    if " under " in w:
        rr, stream = w.split(" under ", 1)
        if parse_workload(rr)[0] == "rr" and parse_workload(stream)[0] in ("tcp", "udp"):
            return ("under", rr, stream)
        raise TestFailure("bad guest workload '%s': rr N under a tcp or udp stream\n%s"
                          % (w, WORKLOAD_HELP))
    parts = w.split()
    kind = parts[0]
    if kind == "idle" and len(parts) == 1:
        return ("idle", None, None)
    if kind == "rr" and len(parts) == 2 and parts[1].isdigit():
        return ("rr", None, int(parts[1]))
    m = re.fullmatch(r"(tcp|udp)-(in|out)", kind)
    if m and len(parts) == 2:
        if m.group(1) == "tcp" and parts[1].isdigit():
            return ("tcp", m.group(2), int(parts[1]))
        if m.group(1) == "udp" and re.fullmatch(r"max|\d+[kMG]?", parts[1]):
            return ("udp", m.group(2), parts[1])
    if m and len(parts) == 3 and m.group(1) == "tcp" and parts[1].isdigit() and \
            re.fullmatch(r"\d+[kMG]?", parts[2]):
        return ("tcp", m.group(2), (int(parts[1]), parts[2]))
    raise TestFailure("bad guest workload '%s'\n%s" % (w, WORKLOAD_HELP))


def have_tools():
    """(True, "") or (False, why)."""
    if not guest.have_guest_tools():
        return False, "qemu-system-x86_64, busybox, cpio or a kernel missing"
    if not shutil.which("iperf3"):
        return False, "no iperf3 (apt install iperf3)"
    return True, ""


def _cached(key_parts, name, build):
    """CACHE/<hash of key_parts>/name, built once by build(tmpdir) -> path
    (the name kept: the initramfs copies binaries under their own)."""
    h = hashlib.sha256()
    for p in key_parts:
        h.update(p if isinstance(p, bytes) else str(p).encode())
    d = os.path.join(CACHE, h.hexdigest()[:16])
    path = os.path.join(d, name)
    if not os.path.exists(path):
        os.makedirs(d, exist_ok=True)
        tmp = tempfile.mkdtemp(prefix="build-", dir=CACHE)
        try:
            # built in a folder of its own, then renamed: two runs building
            # the same entry at once both end with a whole file
            built = build(tmp)
            os.replace(built, os.path.join(tmp, "ready"))
            os.replace(os.path.join(tmp, "ready"), path)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    return path


def rr_binary():
    src = os.path.join(vfwdtest.ROOT, "test", "guest", "rr.c")
    with open(src, "rb") as f:
        text = f.read()
    return _cached([b"rr", text], "rr", lambda tmp: guest.build_helper(tmp, "rr"))


def initramfs(v6=False):
    """The perf guest's initramfs (busybox, virtio_net, iperf3 and its
    libraries, rr), built once per content."""
    rr = rr_binary()
    iperf = shutil.which("iperf3")
    init = PERF_INIT
    parts = [b"perf-initramfs", init, guest.kernel()[1], v6]
    for b in [iperf, rr] + guest.shared_libs(iperf):
        with open(b, "rb") as f:
            parts.append(hashlib.sha256(f.read()).digest())
    return _cached(parts, "initramfs.cpio.gz", lambda tmp: guest.build_initramfs(
        tmp, 0, init=init, v6=v6, binaries=[rr], dynamic=[iperf],
        params={"iperf": IPERF_PORT, "rr": RR_PORT}))


def _boot_id():
    try:
        with open("/proc/sys/kernel/random/boot_id") as f:
            return f.read().strip()
    except OSError:
        return "unknown"


def accel():
    """("kvm"|"tcg", why): KVM only when it really boots a guest (a probe of
    at most 20 s, remembered until the host reboots)."""
    if not os.access("/dev/kvm", os.R_OK | os.W_OK):
        return "tcg", "no /dev/kvm"
    # beside the initramfs cache, not in /tmp: the tests leave nothing there
    os.makedirs(CACHE, exist_ok=True)
    memo = os.path.join(CACHE, "kvm-probe-%s" % _boot_id())
    if os.path.exists(memo):
        with open(memo) as f:
            a, _, why = f.read().partition(" ")
            return a, why
    tmp = tempfile.mkdtemp(prefix="vfwd-kvm-probe-")
    try:
        initrd = guest.build_initramfs(tmp, 0, init=guest.BOOT + 'echo "PROBE-OK"\npoweroff -f\n')
        vmlinuz, _ = guest.kernel()
        p = subprocess.Popen(["qemu-system-x86_64", "-accel", "kvm", "-cpu", "host", "-m", "256",
                              "-kernel", vmlinuz, "-initrd", initrd,
                              "-append", "console=ttyS0 panic=-1 quiet", "-nographic",
                              "-no-reboot", "-nodefaults", "-serial", "stdio"],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             stdin=subprocess.DEVNULL, start_new_session=True)
        try:
            out, _ = p.communicate(timeout=20)
            ok = b"PROBE-OK" in out
            why = "probe guest booted" if ok else "probe guest did not boot (rc %s)" % p.returncode
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, 9)
            p.wait()
            ok, why = False, "probe guest hung for 20 s (nested KVM)"
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    a = "kvm" if ok else "tcg"
    with open(memo + ".new", "w") as f:
        f.write("%s %s" % (a, why))
    os.replace(memo + ".new", memo)
    return a, why


def knob_text(v):
    if v is True:
        return "on"
    if v is False:
        return "off"
    return str(v)


def cpu_plan(cpus):
    """(host, guest, forwarder) CPUs out of cpus: the clients and the main
    lcore on the first, the polling lcore on the last, QEMU on the second
    where there are 3 or more, else with the clients."""
    return cpus[0], (cpus[1] if len(cpus) >= 3 else cpus[0]), cpus[-1]


class Session:
    """One forwarder (kind: vfwd or testpmd-csum-gro) and one guest booted
    on it, in env, on the CPUs of cpu_plan(cpus)."""

    def __init__(self, env, kind, cpus, accel_kind="tcg", v6=False, base_args=(), ring=""):
        check(kind in FORWARDERS, "guest cells: no forwarder %s (have %s)" % (kind, FORWARDERS))
        self.env, self.kind, self.v6 = env, kind, v6
        self.cpu_host, self.cpu_guest, self.cpu_fwd = cpu_plan(cpus)
        self.ns = "vfwdg-%d" % vfwdtest.RUN_PID
        self.tap = vfwdtest.link_name("g")
        env.add_netns(self.ns)
        sock = env.path("vh.sock")
        vdevs = ["net_vhost0,iface=%s,tso=1" % sock, "net_tap0,iface=%s" % self.tap]
        lcores = "0@%d,1@%d" % (self.cpu_host, self.cpu_fwd)
        if kind == "vfwd":
            argv = env.vfwd_argv(vdevs, ["-i", "--stats-format", "json"] + list(base_args),
                                 lcores=lcores, name="fwd", netns=self.ns)
            self.p = PtyProc(env, "fwd", argv)
            self.p.expect(r"vfwd> ", 30)
            out = self.p.command("start")
            check("forwarding started" in out, "vfwd start: %s" % out[-800:])
            self.defaults = self.p.command_json("show config json")["knobs"]
            self.current = dict(self.defaults)
            self.thread_prefix = vfwdtest.LCORE_THREADS
        else:
            cmds = env.path("testpmd.cmd")
            with open(cmds, "w") as f:
                f.write(TESTPMD_GRO)
            # csum forwarding rewrites both MACs: the peers are the guest
            # and the tap (given a fixed MAC, which its kernel side shares)
            vdevs[1] += ",mac=%s" % TAP_MAC
            self.p = env.testpmd(vdevs, ["-i", "--cmdline-file=" + cmds, "--nb-cores=1",
                                         "--burst=32", "--eth-peer=0,%s" % GUEST_MAC,
                                         "--eth-peer=1,%s" % TAP_MAC], lcores, name="fwd",
                                 netns=self.ns)
            self.p.wait_output("testpmd>", 30)
            self.thread_prefix = vfwdtest.LCORE_THREADS
        self.prefix = env.prefixes[-1]
        self.tel = Telemetry(self.prefix)
        guest.tap_up(self.ns, self.tap, v6)
        self.guest_ip = guest.GUEST_IP6 if v6 else guest.GUEST_IP
        argv = guest.qemu_argv(sock, initramfs(v6), cpu=self.cpu_guest, ring=RING, device=ring)
        self.accel = accel_kind
        if accel_kind == "kvm":
            argv[argv.index("tcg")] = "kvm"
        self.vm = Proc(env, "qemu", argv, stdin="pipe")
        t0 = time.monotonic()
        self.vm.wait_output("GUEST-READY", 300)
        self.boot_s = time.monotonic() - t0
        check("GUEST-ERROR" not in self.vm.out(), "guest: %s" % self.vm.out()[-1500:])
        self.rr = rr_binary()
        self.nstat = 0
        # the first packets (ARP, the link coming up) before any cell
        self.host(["ping", "-c", "1", "-w", "15", self.guest_ip], 25)

    # ---- the two ends ----

    def host(self, argv, timeout):
        """argv in the tap's namespace on the host's CPU; its stdout."""
        r = subprocess.run(["ip", "netns", "exec", self.ns, "taskset", "-c",
                            str(self.cpu_host)] + argv, capture_output=True, text=True,
                           timeout=timeout)
        if r.returncode:
            raise TestFailure("%s: rc %d: %s %s" % (" ".join(argv[:3]), r.returncode,
                                                     r.stdout[-600:], r.stderr[-600:]))
        return r.stdout

    def guest_stat(self):
        """The guest's counters now: {rx, tx, rx_bytes, tx_bytes, irq, cpu}."""
        self.nstat += 1
        tag = self.nstat
        self.vm.p.stdin.write(b"STAT %d\n" % tag)
        self.vm.p.stdin.flush()
        self.vm.wait_output("GUEST-STAT %d end" % tag, 30)
        text = self.vm.out()
        out = {}
        for kind, rest in re.findall(r"GUEST-STAT %d (\w+) ?(.*)" % tag, text):
            out[kind] = [int(x) for x in re.findall(r"\d+", rest)]
        dev = out["dev"]
        # /proc/net/dev: rx bytes packets errs drop fifo frame compressed
        # multicast, then tx bytes packets ...
        return {"rx_bytes": dev[0], "rx": dev[1], "tx_bytes": dev[8], "tx": dev[9],
                "irq": sum(out["irq"]), "cpu": out["cpu"], "t": time.monotonic()}

    def fwd_snapshot(self):
        snap = {"ticks": thread_cpu_ticks(self.p.p.pid, self.thread_prefix),
                "t": time.monotonic(), "xstats": self.tel.get("/ethdev/xstats,0")}
        if self.kind == "vfwd":
            snap["lcores"] = vfwd_snapshot(self.tel)
            snap["ports"] = self.tel.get("/vfwd/ports")
        return snap

    # ---- knobs ----

    def apply(self, knobs, scope):
        """vfwd: every knob of scope (the knobs any variant of the session
        sets) to this variant's value, or back to its default."""
        if self.kind != "vfwd":
            return
        for k in scope:
            want = knobs.get(k, self.defaults.get(k))
            if want is None or knob_text(want) == knob_text(self.current.get(k)):
                continue
            out = self.p.command("set %s %s" % (k, knob_text(want)))
            low = out.lower()
            check("error" not in low and "bad" not in low and "unknown" not in low,
                  "set %s %s: %s" % (k, knob_text(want), out[-400:]))
            self.current[k] = want

    # ---- one cell ----

    def workload(self, w, secs):
        """Runs workload w for secs; {bytes, mbit, loss_pct, tps, rtt_*}."""
        kind, way, n = parse_workload(w)
        if kind == "under":
            return self.under(way, n, secs)
        if kind == "idle":
            time.sleep(secs)
            return {}
        if kind == "rr":
            out = self.host([self.rr, "client", self.guest_ip, str(RR_PORT), str(secs), str(n),
                             "64"], secs + 30)
            m = re.search(r"RR-RESULT n=(\d+) tps=([\d.]+) p50=(\d+) p90=(\d+) p99=(\d+) "
                          r"p999=(\d+)", out)
            check(m, "rr: %s" % out)
            return {"tps": float(m.group(2)), "rtt_p50": int(m.group(3)),
                    "rtt_p90": int(m.group(4)), "rtt_p99": int(m.group(5)),
                    "rtt_p999": int(m.group(6))}
        argv = ["iperf3", "-c", self.guest_ip, "-p", str(IPERF_PORT), "-t", str(int(secs)), "-J",
                "--connect-timeout", "5000"]
        if way == "out":
            argv.append("-R")  # the guest sends
        if kind == "tcp" and isinstance(n, tuple):
            # iperf3's -b is per stream
            streams, rate = n
            per = int(rate[:-1] if rate[-1] in "kMG" else rate) * \
                {"k": 1e3, "M": 1e6, "G": 1e9}.get(rate[-1], 1) / streams
            argv += ["-P", str(streams), "-b", str(int(per))]
        elif kind == "tcp":
            argv += ["-P", str(n)]
        else:
            argv += ["-u", "-l", "1400", "-b", "0" if n == "max" else n]
        text = self.host(argv, secs + 40)
        j = json.loads(text)
        check("error" not in j, "iperf3: %s" % j.get("error"))
        end = j["end"]
        if kind == "tcp":
            s = end["sum_received"]
            return {"bytes": s["bytes"], "mbit": s["bits_per_second"] / 1e6}
        s = end.get("sum_received", end["sum"])
        loss = end["sum"].get("lost_percent", 0.0)
        got = s["bytes"] * (1 - loss / 100.0) if "sum_received" not in end else s["bytes"]
        return {"bytes": got, "mbit": got * 8 / 1e6 / max(s["seconds"], 1e-9),
                "loss_pct": loss}

    def under(self, rr, stream, secs):
        """rr's round trips while stream runs: the stream starts first and
        lasts a second longer, so that it covers the whole of rr."""
        box = {}

        def run_stream():
            try:
                box["res"] = self.workload(stream, secs + 1)
            except Exception as e:  # re-raised below, on this thread
                box["err"] = e

        t = threading.Thread(target=run_stream, daemon=True)
        t.start()
        try:
            time.sleep(0.5)
            res = self.workload(rr, secs)
        finally:
            # the stream's client is done before the next cell starts one
            t.join(secs + 60)
        check(not t.is_alive(), "%s: still running after the round trips ended" % stream)
        if "err" in box:
            raise box["err"]
        res.update({k: v for k, v in box["res"].items() if k in ("bytes", "mbit", "loss_pct")})
        return res

    def run_cell(self, cell, scope, secs):
        self.apply(cell["knobs"], scope)
        time.sleep(0.15)  # the knob handoff, and what the last cell left in flight
        g0, f0 = self.guest_stat(), self.fwd_snapshot()
        res = self.workload(cell["point"]["workload"], secs)
        g1, f1 = self.guest_stat(), self.fwd_snapshot()
        return self.metrics(res, g0, g1, f0, f1)

    def metrics(self, res, g0, g1, f0, f1):
        m = dict(res)
        secs = g1["t"] - g0["t"]
        mb = res["bytes"] / (1 << 20) if res.get("bytes") else None
        m.pop("bytes", None)
        rx, tx, irq = g1["rx"] - g0["rx"], g1["tx"] - g0["tx"], g1["irq"] - g0["irq"]
        # /proc/stat: user nice system idle iowait irq softirq steal
        d = [b - a for a, b in zip(g0["cpu"], g1["cpu"])]
        total = sum(d[:8]) or 1
        m["g_cpu"] = [100.0 * (d[0] + d[1]) / total, 100.0 * d[2] / total,
                      100.0 * (d[5] + d[6]) / total]
        m["g_irq_s"] = irq / secs
        m["g_irq_frame"] = irq / (rx + tx) if rx + tx else None
        if mb:
            m["g_rx_mb"], m["g_tx_mb"] = rx / mb, tx / mb
            m["g_irq_mb"] = irq / mb
            hz = 100.0  # USER_HZ
            m["g_sirq_mb"] = 1000.0 * (d[5] + d[6]) / hz / mb
            m["g_cpu_mb"] = 1000.0 * (total - d[3] - d[4] - d[7]) / hz / mb
        m["cpu_pct"] = cpu_pct(f0["ticks"], f1["ticks"], f1["t"] - f0["t"])
        # /ethdev/xstats,0: none on --vhost-path lib, where the vhost port is no ethdev
        x0, x1 = f0["xstats"] or {}, f1["xstats"] or {}
        dx = {k: x1[k] - x0.get(k, 0) for k in x1 if isinstance(x1[k], int)}
        to_guest = dx.get("tx_good_packets", 0)
        from_guest = dx.get("rx_good_packets", 0)
        if self.kind == "vfwd":
            # vfwd's port counters: net_vhost's on --vhost-path pmd, the
            # workers' own per queue on lib (net_vhost's stay 0)
            p0, p1 = f0["ports"]["0"], f1["ports"]["0"]
            to_guest = p1["opackets"] - p0["opackets"]
            from_guest = p1["ipackets"] - p0["ipackets"]
        # calls: the interrupts vhost raised into the guest, for either
        # ring (its rx ring: packets to it; its tx ring: completions);
        # vfwd's telemetry has their sum, testpmd's the xstats
        calls = None
        if self.kind == "vfwd" and "guest_calls" in f1["ports"]["0"]:
            calls = f1["ports"]["0"]["guest_calls"] - f0["ports"]["0"].get("guest_calls", 0)
        elif any(k.endswith("guest_notifications") for k in x1):
            calls = sum(v for k, v in dx.items()
                        if re.fullmatch(r"(rx|tx)_q\d+_guest_notifications", k))
        if calls is not None and to_guest + from_guest:
            m["calls_pkt"] = calls / (to_guest + from_guest)
        if self.kind == "vfwd":
            a, b = f0["lcores"], f1["lcores"]
            m.update(vfwd_cost(a, b))
            kicks = sum(b[i]["wakeups_kick"] - a[i]["wakeups_kick"] for i in b)
            m["kicks_pkt"] = kicks / from_guest if from_guest else None
        m["to_guest_pkts"], m["from_guest_pkts"] = to_guest, from_guest
        return m

    def close(self):
        try:
            self.vm.p.stdin.write(b"QUIT\n")
            self.vm.p.stdin.flush()
            self.vm.wait(30)
        except (OSError, TestFailure):
            self.vm.kill()
        self.tel.close()
        if self.kind == "vfwd":
            self.p.send("quit")
            self.p.wait(20)
        else:
            try:
                self.p.p.stdin.write(b"stop\nquit\n")
                self.p.p.stdin.flush()
            except OSError:
                pass
            self.p.wait(30)


def xstat_names(sess):
    return sorted(sess.fwd_snapshot()["xstats"])
