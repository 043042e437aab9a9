# SPDX-License-Identifier: BSD-3-Clause
"""Helpers for end-to-end tests: start DPDK processes pinned to CPUs, wait
on them with bounds, read their JSON, and clean up everything a test made
(processes by PID, runtime dirs, hugepage files, sockets, netns) even when
the test fails."""

import glob
import json
import os
import pty
import re
import shutil
import signal
import socket
import struct
import subprocess
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.environ.get("VFWD_BUILD", os.path.join(ROOT, "build"))
# VFWD_BIN: the dpdk-vfwd binary under test (the runner's asan-e2e pass
# points it at build-asan's); the peer, generator and testpmd stay as above
VFWD = os.environ.get("VFWD_BIN") or os.path.join(BUILD, "app", "dpdk-vfwd")
PEER = os.path.join(BUILD, "test", "peer", "vfwd-testpeer")
GEN = os.path.join(BUILD, "gen", "dpdk-vfwd-gen")
TESTPMD = shutil.which("dpdk-testpmd") or "/usr/bin/dpdk-testpmd"


class TestFailure(AssertionError):
    pass


# What AddressSanitizer, LeakSanitizer and UBSan print. Env.cleanup looks
# for them in each dpdk-vfwd's output and records (test, process, excerpt)
# here; the runner fails the test for any (test/runner.py).
SANITIZER_MARKS = ("ERROR: AddressSanitizer", "runtime error:", "LeakSanitizer")
sanitizer_reports = []


def sanitizer_excerpt(text, lines=40):
    """The first sanitizer report in text (up to lines lines), or None."""
    at = [text.find(m) for m in SANITIZER_MARKS if m in text]
    if not at:
        return None
    start = text.rfind("\n", 0, min(at)) + 1
    return "\n".join(text[start:].splitlines()[:lines])


# Whatever a test makes outside its own directory (DPDK file prefixes,
# hugepage files, network namespaces, links, /tmp entries) carries the PID
# of the runner (the process the e2e tests run in) in its name: the
# leftover check removes only what it can tie to this run, never what a
# user's dpdk-vfwd or another run on the machine made meanwhile. A bench
# script a test starts inherits the runner's (VFWD_RUN_PID).
RUN_PID = int(os.environ.get("VFWD_RUN_PID") or os.getpid())


def link_name(tag):
    """A link (tap, veth) name of this run: vfwd, a tag of lower-case
    letters, then the run's PID (15 characters at most)."""
    return "vfwd%s%d" % (tag, RUN_PID % 100000)


def owned(kind, name):
    """Whether the thing of a kind ("hugepages", "dpdk", "netns", "links",
    "tmp") named so was made by this run (see RUN_PID)."""
    if kind == "links":
        return re.match(r"vfwd[a-z]+%d(?![0-9])" % (RUN_PID % 100000), name) is not None
    name = os.path.basename(name)
    return (name.startswith("vfwd") and
            re.search(r"-%d(?:-|map_|$)" % RUN_PID, name) is not None)


def check(cond, msg):
    if not cond:
        raise TestFailure(msg)


# The loss a test that is not about the receiver's speed takes: every frame
# of it one vfwd counted as tx_full (a receiver sharing a CPU was not
# scheduled for some milliseconds and its ring filled), and at most this
# share of what was sent, so that what the test is about (merging,
# segmenting, the shape and bytes of frames) is judged on the larger part.
LOSS_SHARE = 0.5


def counted_loss(x, v, what, max_units=1, share=LOSS_SHARE):
    """x: a direction of dpdk-vfwd-gen's report; v: vfwd's report of the
    same direction. Nothing went wrong but a loss vfwd counted as tx_full:
    no reordering, duplicate, corruption or stranger; received + lost =
    sent; the units lost are those of the frames vfwd dropped (max_units:
    the most units in one of its frames, a GRO frame's segments); vfwd
    sent what the generator got. Returns x."""
    check(x["reordered"] == 0 and x["duplicates"] == 0 and x["corrupted"] == 0 and
          x["other"] == 0 and x["foreign"] == 0, "%s not clean: %s" % (what, x))
    check(x["received"] + x["lost"] == x["sent"] > 0,
          "%s: received %d + lost %d != sent %d" % (what, x["received"], x["lost"], x["sent"]))
    causes = {k: n for k, n in v.items() if k.startswith("drop_") and n}
    check(v["drops"] == v["drop_tx_full"], "%s: vfwd dropped %s" % (what, causes))
    check(v["drops"] <= x["lost"] <= v["drops"] * max_units,
          "%s: %d lost, vfwd dropped %d frames (of up to %d units)"
          % (what, x["lost"], v["drops"], max_units))
    check(x["lost"] <= share * x["sent"], "%s: %d of %d lost (all counted tx_full), over %.0f%%"
          % (what, x["lost"], x["sent"], 100 * share))
    check(v["tx_pkts"] == x["frames"], "%s: vfwd sent %d, the generator got %d"
          % (what, v["tx_pkts"], x["frames"]))
    return x


def ncpus():
    return len(os.sched_getaffinity(0))


def inet_csum(data):
    """The Internet checksum (RFC 1071) of bytes, for crafting frames."""
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


# DPDK's names for its worker lcore threads: rte-worker-N through 23.07,
# dpdk-workerN since 23.11
LCORE_THREADS = ("rte-worker", "dpdk-worker")


def worker_thread_names(lcore):
    """The names lcore's thread may have (LCORE_THREADS)."""
    return ("rte-worker-%d" % lcore, "dpdk-worker%d" % lcore)


WORKER_1 = worker_thread_names(1)


def thread_cpu_ticks(pid, prefix=LCORE_THREADS):
    """{thread name: utime + stime in clock ticks} of pid's threads whose
    name starts with prefix (a string or a tuple of them; by default
    DPDK's worker lcore threads)."""
    ticks = {}
    for tid in os.listdir("/proc/%d/task" % pid):
        try:
            with open("/proc/%d/task/%s/comm" % (pid, tid)) as f:
                name = f.read().strip()
            if not name.startswith(prefix):
                continue
            with open("/proc/%d/task/%s/stat" % (pid, tid)) as f:
                fields = f.read().rsplit(")", 1)[1].split()
            ticks[name] = ticks.get(name, 0) + int(fields[11]) + int(fields[12])
        except OSError:
            pass  # a thread that ended meanwhile
    return ticks


def thread_runnable_ns(pid, name):
    """(on-CPU ns, ns waiting for a CPU) of pid's thread called name (or
    any of a tuple of names), from its schedstat: together, the time it
    wanted a CPU. A busy-polling thread wants all of it however much of it
    a loaded machine gives; an idle one wants almost none."""
    names = (name,) if isinstance(name, str) else tuple(name)
    for tid in os.listdir("/proc/%d/task" % pid):
        try:
            with open("/proc/%d/task/%s/comm" % (pid, tid)) as f:
                if f.read().strip() not in names:
                    continue
            with open("/proc/%d/task/%s/schedstat" % (pid, tid)) as f:
                run, wait = f.read().split()[:2]
            return int(run), int(wait)
        except OSError:
            pass
    raise TestFailure("no thread %s in %d" % (name, pid))


def cpu_wait_us():
    """Microseconds, since boot, during which some task of this machine
    waited for a CPU (/proc/pressure/cpu's "some" total); None where the
    kernel keeps no pressure figures."""
    try:
        with open("/proc/pressure/cpu") as f:
            return int(f.readline().split("total=")[1])
    except (OSError, IndexError, ValueError):
        return None


class Proc:
    """A process whose output goes to files in the test's directory."""

    def __init__(self, env, name, argv, stdin=None):
        self.env = env
        self.name = name
        self.argv = argv
        self.out_path = os.path.join(env.dir, name + ".out")
        self.err_path = os.path.join(env.dir, name + ".err")
        self._out = open(self.out_path, "wb")
        self._err = open(self.err_path, "wb")
        self.p = subprocess.Popen(argv, stdout=self._out, stderr=self._err,
                                  stdin=subprocess.PIPE if stdin == "pipe" else subprocess.DEVNULL,
                                  start_new_session=True)
        env.procs.append(self)

    @property
    def pid(self):
        return self.p.pid

    def out(self):
        with open(self.out_path, "r", errors="replace") as f:
            return f.read()

    def err(self):
        with open(self.err_path, "r", errors="replace") as f:
            return f.read()

    def wait_output(self, needle, timeout, stream="out"):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            text = self.out() if stream == "out" else self.err()
            if needle in text:
                return True
            if self.p.poll() is not None:
                break
            time.sleep(0.05)
        text = self.out() if stream == "out" else self.err()
        raise TestFailure("%s: no '%s' within %ss (rc=%s)\n--- stdout tail:\n%s\n--- stderr tail:\n%s"
                          % (self.name, needle, timeout, self.p.poll(), self.out()[-1500:],
                             self.err()[-1500:]))

    def wait(self, timeout):
        try:
            return self.p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise TestFailure("%s did not exit within %ss\n%s" % (self.name, timeout,
                                                                  self.err()[-1500:]))

    def stop(self, timeout=10, sig=signal.SIGTERM):
        """Signal and wait; returns the exit code."""
        if self.p.poll() is None:
            self.p.send_signal(sig)
        return self.wait(timeout)

    def kill(self):
        if self.p.poll() is None:
            try:
                os.killpg(self.p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            try:
                self.p.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass

    def json_lines(self):
        """The JSON objects among complete lines: a process still writing may
        have flushed part of a long line (stdio writes 4 KiB at a time), and
        that fragment is not a report yet."""
        objs = []
        for line in complete_lines(self.out()):
            line = line.strip()
            if line.startswith("{"):
                try:
                    objs.append(json.loads(line))
                except ValueError as e:
                    raise TestFailure("%s: bad JSON line: %s (%s)" % (self.name, line[:200], e))
        return objs

    def last_json(self):
        objs = self.json_lines()
        check(objs, "%s printed no JSON\n%s\n%s" % (self.name, self.out()[-1500:],
                                                   self.err()[-1500:]))
        return objs[-1]


class Telemetry:
    """DPDK's telemetry socket of a process (its runtime dir by prefix)."""

    def __init__(self, prefix, timeout=10):
        path = "/var/run/dpdk/%s/dpdk_telemetry.v2" % prefix
        deadline = time.monotonic() + timeout
        while True:
            try:
                self.s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
                self.s.connect(path)
                break
            except OSError:
                self.s.close()
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
        self.s.settimeout(5)
        json.loads(self.s.recv(1024))

    def get(self, cmd):
        self.s.send(cmd.encode())
        return json.loads(self.s.recv(1 << 20))[cmd.split(",")[0]]

    def close(self):
        self.s.close()


# a forwarder's cost from its counters (the perf harnesses)

def vfwd_snapshot(tel):
    ids = [k for k in tel.get("/vfwd/lcores") if k != "total"]
    return {i: tel.get("/vfwd/lcores,%s" % i) for i in ids}


def vfwd_cost(a, b):
    """cycles per packet on the side with more of them: per segment when
    GRO merges (rx) or GSO cuts (tx), per packet otherwise"""
    busy = sum(b[i]["busy_tsc"] - a[i]["busy_tsc"] for i in b)
    sent = max(sum(b[i]["tx_pkts"] - a[i]["tx_pkts"] for i in b),
               sum(b[i]["rx_pkts"] - a[i]["rx_pkts"] for i in b))
    per = []
    for i in sorted(b, key=int):
        d = {k: b[i][k] - a[i][k] for k in ("busy_tsc", "idle_tsc", "sleep_tsc")}
        wall = sum(d.values())
        per.append(100.0 * d["busy_tsc"] / wall if wall else 0)
    return {"cyc_pkt": busy / sent if sent else None, "busy_pct": per}


def cpu_pct(a, b, secs):
    hz = os.sysconf("SC_CLK_TCK")
    return sum(b.get(k, 0) - a.get(k, 0) for k in b) / hz / secs * 100.0


def complete_lines(text):
    """Lines that ended: a fragment after the last newline is still being
    written."""
    return text[:text.rfind("\n") + 1].splitlines()


class _Closed:
    def close(self):
        pass


class PtyProc:
    """A process on a pseudo-terminal, as a person at the prompt would run
    it: send() types a line, expect() waits for text on the screen."""

    def __init__(self, env, name, argv):
        self.env = env
        self.name = name
        self.argv = argv
        master, slave = pty.openpty()
        self.master = master
        self.p = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave,
                                  start_new_session=True)
        os.close(slave)
        self._out = self._err = _Closed()
        self.buf = b""
        self.lock = threading.Lock()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        env.procs.append(self)

    @property
    def pid(self):
        return self.p.pid

    def _read(self):
        while True:
            try:
                data = os.read(self.master, 4096)
            except OSError:
                break
            if not data:
                break
            with self.lock:
                self.buf += data

    def screen(self):
        with self.lock:
            return self.buf.decode("utf-8", "replace")

    def mark(self):
        with self.lock:
            return len(self.buf)

    def send(self, line):
        os.write(self.master, line.encode() + b"\n")

    def send_raw(self, data):
        os.write(self.master, data)

    def expect(self, pattern, timeout, since=0):
        """Wait for a regex on the screen after byte offset since; returns
        the match."""
        deadline = time.monotonic() + timeout
        rx = re.compile(pattern)
        while time.monotonic() < deadline:
            m = rx.search(self.screen()[since:])
            if m:
                return m
            if self.p.poll() is not None:
                time.sleep(0.2)
                m = rx.search(self.screen()[since:])
                if m:
                    return m
                break
            time.sleep(0.05)
        raise TestFailure("%s: no /%s/ within %ss (rc=%s)\n--- screen tail:\n%s"
                          % (self.name, pattern, timeout, self.p.poll(), self.screen()[-2500:]))

    def command(self, line, timeout=20):
        """Type a line, wait for the next prompt; returns what it printed."""
        m0 = self.mark()
        self.send(line)
        self.expect(r"vfwd> ", timeout, since=m0 + len(line))
        return self.screen()[m0:]

    def command_json(self, line, timeout=20, tries=3):
        """Type a '... json' command; returns the JSON object it printed.
        DPDK logs from its own threads (vhost-user negotiation, link
        events) reach the same terminal at any time and can land inside
        the JSON line: such a line is typed again, up to tries times."""
        for attempt in range(tries):
            out = self.command(line, timeout)
            for text in reversed(out.splitlines()):
                text = text.strip().replace("vfwd> ", "")
                if text.startswith("{"):
                    try:
                        return json.loads(text)
                    except json.JSONDecodeError:
                        if attempt == tries - 1:
                            raise TestFailure("%s printed broken JSON %d times:\n%s"
                                              % (line, tries, out[-1500:]))
                        break
            else:
                raise TestFailure("%s printed no JSON:\n%s" % (line, out[-1500:]))

    def wait(self, timeout):
        try:
            return self.p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise TestFailure("%s did not exit within %ss\n%s" % (self.name, timeout,
                                                                  self.screen()[-1500:]))

    def kill(self):
        Proc.kill(self)

    def json_lines(self):
        objs = []
        for line in complete_lines(self.screen()):
            line = line.strip().replace("vfwd> ", "")
            if line.startswith("{"):
                try:
                    objs.append(json.loads(line))
                except ValueError as e:
                    raise TestFailure("%s: bad JSON line (%s): %s" % (self.name, e, line))
        return objs


class Env:
    """One test's sandbox. Use as a context manager."""

    def __init__(self, name):
        self.name = name
        self.dir = tempfile.mkdtemp(prefix="vfwd-%s-%d-" % (name, RUN_PID), dir="/tmp")
        self.procs = []
        self.prefixes = []
        self.netns = []
        self.paths = []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.cleanup()
        return False

    def prefix(self, tag):
        p = "vfwdt-%s-%s-%d" % (self.name, tag, RUN_PID)
        self.prefixes.append(p)
        return p

    def path(self, name):
        return os.path.join(self.dir, name)

    def eal(self, tag, lcores, extra=(), in_memory=True):
        return (["--lcores", lcores] + (["--in-memory"] if in_memory else []) +
                ["--no-pci", "--file-prefix", self.prefix(tag),
                 "--log-level=lib.vhost.config:notice"] + list(extra))

    def vfwd_argv(self, vdevs, args=(), lcores="0@0,1@1", name="vfwd", netns=None,
                  in_memory=True):
        eal = self.eal(name, lcores, in_memory=in_memory)
        for v in vdevs:
            eal += ["--vdev", v]
        pre = os.environ.get("VFWD_WRAP", "").split()
        # the runner's lib-path pass: every vfwd on --vhost-path lib
        path = os.environ.get("VFWD_VHOST_PATH")
        if path and "--vhost-path" not in args:
            args = ["--vhost-path", path] + list(args)
        if netns:
            pre = ["ip", "netns", "exec", netns] + pre
        return pre + [VFWD] + eal + ["--"] + list(args)

    def vfwd(self, vdevs, args=(), lcores="0@0,1@1", name="vfwd", netns=None, in_memory=True):
        return Proc(self, name, self.vfwd_argv(vdevs, args, lcores, name, netns, in_memory))

    def vfwd_pty(self, vdevs, args=(), lcores="0@0,1@1", name="vfwd", netns=None):
        """vfwd -i on a pseudo-terminal."""
        return PtyProc(self, name, self.vfwd_argv(vdevs, ["-i"] + list(args), lcores, name,
                                                  netns))

    def peer(self, vdevs, args, lcores="0@0", name="peer"):
        eal = self.eal(name, lcores, ["--single-file-segments"])
        for v in vdevs:
            eal += ["--vdev", v]
        return Proc(self, name, [PEER] + eal + ["--"] + list(args))

    def gen(self, vdevs, args, lcores="0@0", name="gen"):
        """dpdk-vfwd-gen; port 0 should be the VM side, 1 the wire side."""
        eal = self.eal(name, lcores, ["--single-file-segments"])
        for v in vdevs:
            eal += ["--vdev", v]
        return Proc(self, name, [GEN] + eal + ["--"] + list(args))

    def testpmd(self, vdevs, args, lcores, name="testpmd", netns=None):
        eal = self.eal(name, lcores, ["--single-file-segments"])
        for v in vdevs:
            eal += ["--vdev", v]
        pre = ["ip", "netns", "exec", netns] if netns else []
        return Proc(self, name, pre + ["stdbuf", "-oL", TESTPMD] + eal + ["--"] + list(args), stdin="pipe")

    def add_netns(self, ns):
        subprocess.run(["ip", "netns", "del", ns], stderr=subprocess.DEVNULL)
        subprocess.run(["ip", "netns", "add", ns], check=True)
        self.netns.append(ns)

    def cleanup(self):
        for p in self.procs:
            if p.p.poll() is None:
                try:
                    p.p.send_signal(signal.SIGTERM)
                    p.p.wait(timeout=5)
                except (subprocess.TimeoutExpired, ProcessLookupError):
                    p.kill()
            p._out.close()
            p._err.close()
            if isinstance(p, PtyProc):
                os.close(p.master)
        for p in self.procs:
            if VFWD in p.argv:
                try:
                    found = sanitizer_excerpt(p.screen() if isinstance(p, PtyProc) else p.err())
                except OSError:
                    found = None
                if found:
                    sanitizer_reports.append((self.name, p.name, found))
        for ns in self.netns:
            subprocess.run(["ip", "netns", "del", ns], stderr=subprocess.DEVNULL)
        for pfx in self.prefixes:
            for f in glob.glob("/dev/hugepages/%s*" % pfx):
                os.unlink(f)
            shutil.rmtree("/var/run/dpdk/%s" % pfx, ignore_errors=True)
        for path in self.paths:
            if os.path.lexists(path):
                os.unlink(path)
        if os.environ.get("VFWD_KEEP_LOGS"):
            return
        shutil.rmtree(self.dir, ignore_errors=True)


def toggle_pause(peer, pause, timeout=10):
    """SIGUSR2 to a test peer, then its next "paused, N sent" (pause) or
    "sending" line on stderr: returns N, or None on resuming."""
    word = "paused, " if pause else "sending"
    seen = peer.err().count(word)
    peer.p.send_signal(signal.SIGUSR2)
    deadline = time.monotonic() + timeout
    while peer.err().count(word) == seen:
        check(peer.p.poll() is None, "%s exited: %s" % (peer.name, peer.err()[-800:]))
        check(time.monotonic() < deadline, "%s did not say '%s' within %ss: %s"
              % (peer.name, word, timeout, peer.err()[-800:]))
        time.sleep(0.02)
    if pause:
        return int(peer.err().rsplit("paused, ", 1)[1].split()[0])
    return None


def peer_through_vfwd(env, direction, peer_args, vfwd_args=(), vhost_args="", user_args="",
                      lcores="0@0,1@1"):
    """One test peer on both sides of a vfwd: virtio-user on its vhost
    port (net_vhost devargs + vhost_args, the peer's + user_args; a
    1024-slot ring unless they say), memif on its wire port (4096 slots), sending `direction` ("vm_to_wire" or "wire_to_vm") with
    peer_args. vfwd stops first (the memif PMD), then the peer, both must
    exit 0. Returns (the peer's JSON report, vfwd's Proc)."""
    vh, mf = env.path("vh.sock"), env.path("memif.sock")
    if "queue_size" not in user_args:
        user_args = ",queue_size=1024" + user_args
    vf = env.vfwd(["net_vhost0,iface=%s%s" % (vh, vhost_args),
                   "net_memif0,role=server,socket=%s" % mf],
                  ["--stats-format", "json"] + list(vfwd_args), lcores=lcores)
    vf.wait_output("forwarding", 30)
    check_on_vhost_path(vf, vfwd_args)
    tx, rx = (0, 1) if direction == "vm_to_wire" else (1, 0)
    peer = env.peer(["net_virtio_user0,path=%s%s" % (vh, user_args),
                     "net_memif0,role=client,socket=%s,rsize=12" % mf],
                    ["--tx-port", str(tx), "--rx-port", str(rx), "--timeout", "60", "--linger"]
                    + list(peer_args))
    peer.wait_output('"tx"', 90)
    got = peer.last_json()
    rc = vf.stop(20)
    check(rc == 0, "vfwd exit %d: %s" % (rc, vf.err()[-1500:]))
    prc = peer.stop(20)
    check(prc == 0, "peer exit %d: %s" % (prc, peer.err()[-1500:]))
    return got, vf


def gen_topology(env, tso=False, user_args=""):
    """The vdevs of a forwarder and of dpdk-vfwd-gen attached to it as the
    VM (virtio-user on the forwarder's vhost-user socket, gen port 0, its
    devargs + user_args, e.g. ",queues=2") and as the wire (memif, gen
    port 1): (forwarder vdevs, generator vdevs)."""
    vh, mf = env.path("vh.sock"), env.path("memif.sock")
    # rings that ride out a generator not scheduled for some milliseconds:
    # 1024 slots toward the VM (unless user_args says), 4096 on the wire
    if "queue_size" not in user_args:
        user_args = ",queue_size=1024" + user_args
    return (["net_vhost0,iface=%s%s" % (vh, ",tso=1" if tso else ""),
             "net_memif0,role=server,socket=%s" % mf],
            ["net_virtio_user0,path=%s%s" % (vh, user_args),
             "net_memif0,role=client,socket=%s,rsize=12" % mf])


def gen_through_vfwd(env, vfwd_args, gen_args, tso=False, timeout=60, gen_lcores="0@0",
                     user_args=""):
    """Runs dpdk-vfwd-gen through a vfwd; returns (the generator's JSON
    report, vfwd's final JSON report). vfwd stops first (the memif PMD).
    user_args: more devargs for the generator's virtio-user port."""
    fwd_vdevs, gen_vdevs = gen_topology(env, tso, user_args)
    vf = env.vfwd(fwd_vdevs, ["--stats-format", "json"] + list(vfwd_args))
    vf.wait_output("forwarding", 30)
    check_on_vhost_path(vf, vfwd_args)
    g = env.gen(gen_vdevs, list(gen_args) + ["--format", "json", "--linger"], lcores=gen_lcores)
    g.wait_output('"ok"', timeout)
    report = g.last_json()
    rc = vf.stop(20)
    grc = g.stop(20)
    check(rc == 0, "vfwd exit %d: %s" % (rc, vf.err()[-1500:]))
    # 0: clean, 3: completed but something was lost, reordered, ...
    check(grc == (0 if report["ok"] else 3), "generator exit %d with ok %s: %s"
          % (grc, report["ok"], g.err()[-1500:]))
    return report, vf.last_json()


def dir_stats(report, direction):
    return report["total"]["dirs"][direction]


def stop_accounted(vf, tag="vfwd"):
    """Stops vfwd and checks its final report: in each direction every
    frame forwarded or dropped, the drops all peer-down or tx_full (what a
    peer going away explains), no mbuf leaked. Returns the report."""
    rc = vf.stop(20)
    check(rc == 0, "%s exit %d: %s" % (tag, rc, vf.err()[-1500:]))
    final = vf.last_json()
    for name in ("vm_to_wire", "wire_to_vm"):
        d = dir_stats(final, name)
        check(d["out_expected"] == d["tx_pkts"] + d["drops"], "%s %s: %s" % (tag, name, d))
        other = d["drops"] - d["drop_peer_down"] - d["drop_tx_full"]
        check(other == 0, "%s %s drops of other causes: %s" % (tag, name, d))
    check(final["mempool"]["in_use"] == final["mempool"]["in_use_at_start"],
          "%s leaked mbufs: %s" % (tag, final["mempool"]))
    return final


def vhost_path():
    """The --vhost-path every vfwd of this run takes (the runner's
    lib-path pass sets VFWD_VHOST_PATH), pmd by default."""
    return os.environ.get("VFWD_VHOST_PATH") or "pmd"


def check_on_vhost_path(vf, vfwd_args):
    """A started vfwd runs on the run's vhost path (unless its own
    arguments chose one)."""
    if "--vhost-path" not in vfwd_args:
        check("vhost path %s:" % vhost_path() in vf.out(), "not on --vhost-path %s:\n%s"
              % (vhost_path(), vf.out()[-800:]))


def check_devices_quiesced(final, gone):
    """On --vhost-path lib, a final report's count of vhost devices that
    went (each after the workers left it) is at least gone, none of those
    waits cut short; on pmd, net_vhost does that and vfwd waited for none."""
    g = final["unmap_guard"]
    if vhost_path() == "lib":
        check(g["vhost_waits"] >= gone and g["vhost_timeouts"] == 0,
              "lib path: %d devices went, the workers left them: %s" % (gone, g))
    else:
        check(g["vhost_waits"] == 0, "pmd path, yet vfwd waited for devices: %s" % g)


def telemetry(env, prefix, cmds):
    """The replies of dpdk-telemetry.py to cmds, on the vfwd of EAL file
    prefix prefix, merged into one dict."""
    tool = shutil.which("dpdk-telemetry.py")
    check(tool, "dpdk-telemetry.py not installed")
    r = subprocess.run([tool, "-f", prefix], input="\n".join(cmds) + "\n", capture_output=True,
                       text=True, timeout=30)
    check(r.returncode == 0, "dpdk-telemetry.py: %s" % r.stderr[-800:])
    out = {}
    for line in r.stdout.splitlines():
        if line.startswith("{"):
            out.update(json.loads(line))
    return out
