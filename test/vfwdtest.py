# SPDX-License-Identifier: BSD-3-Clause
"""Helpers for end-to-end tests: start DPDK processes pinned to CPUs, wait
on them with bounds, read their JSON, and clean up everything a test made
(processes by PID, runtime dirs, hugepage files, sockets, netns) even when
the test fails."""

import glob
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.environ.get("VFWD_BUILD", os.path.join(ROOT, "build"))
VFWD = os.path.join(BUILD, "app", "dpdk-vfwd")
PEER = os.path.join(BUILD, "test", "peer", "vfwd-testpeer")
TESTPMD = shutil.which("dpdk-testpmd") or "/usr/bin/dpdk-testpmd"


class TestFailure(AssertionError):
    pass


def check(cond, msg):
    if not cond:
        raise TestFailure(msg)


def ncpus():
    return len(os.sched_getaffinity(0))


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
        objs = []
        for line in self.out().splitlines():
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


class Env:
    """One test's sandbox. Use as a context manager."""

    def __init__(self, name):
        self.name = name
        self.dir = tempfile.mkdtemp(prefix="vfwd-%s-" % name, dir="/tmp")
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
        p = "vfwdt-%s-%s-%d" % (self.name, tag, os.getpid())
        self.prefixes.append(p)
        return p

    def path(self, name):
        return os.path.join(self.dir, name)

    def eal(self, tag, lcores, extra=()):
        return ["--lcores", lcores, "--in-memory", "--no-pci", "--file-prefix", self.prefix(tag),
                "--log-level=lib.vhost.config:notice"] + list(extra)

    def vfwd(self, vdevs, args=(), lcores="0@0,1@1", name="vfwd", netns=None):
        eal = self.eal(name, lcores)
        for v in vdevs:
            eal += ["--vdev", v]
        pre = os.environ.get("VFWD_WRAP", "").split()
        if netns:
            pre = ["ip", "netns", "exec", netns] + pre
        return Proc(self, name, pre + [VFWD] + eal + ["--"] + list(args))

    def peer(self, vdevs, args, lcores="0@0", name="peer"):
        eal = self.eal(name, lcores, ["--single-file-segments"])
        for v in vdevs:
            eal += ["--vdev", v]
        return Proc(self, name, [PEER] + eal + ["--"] + list(args))

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


def dir_stats(report, direction):
    return report["total"]["dirs"][direction]
