# SPDX-License-Identifier: BSD-3-Clause
"""OVS-DPDK as a baseline forwarder for benchmarks, in a private sandbox.

    from ovs import Ovs, available
    ok, why = available()
    o = Ovs(env, memif_sock, pmd_cpu=1, main_cpu=0)   # ~1.3 s, ports ready
    o.hold()                                 # optional, see "Start-up loss"
    peer = env.peer(["net_virtio_user0,path=" + o.vhost_sock,
                     "net_memif0,role=client,socket=" + memif_sock], [...])
    o.release()                              # only after hold()
    o.clear_stats(); ...; st = o.pmd_stats()
    o.stop()                                 # before the memif peer stops

What it runs, as children of the test through vfwdtest.Proc (no systemd;
nothing in /etc/openvswitch, /var/run/openvswitch, /var/log/openvswitch;
the ovs-vswitchd alternative is left alone):

  ovsdb-server  <dir>/conf.db (ovsdb-tool create, stock schema), remote
                punix:<dir>/db.sock, pid/ctl/log files in <dir>
  ovs-vswitchd  /usr/lib/openvswitch-switch-dpdk/ovs-vswitchd-dpdk (or
                $VFWD_OVS_VSWITCHD), under taskset -c main_cpu, with
                OVS_RUNDIR=<dir>/run, OVS_LOGDIR/OVS_DBDIR=<dir>, pid/ctl/log
                in <dir>, LD_PRELOAD=<dir>/memif_txq_shim.so (see below)

<dir> is env.path(name); env.dir's cleanup removes it. Topology, the one
dpdk-vfwd has, so that the same generator attaches to both:

  generator net_virtio_user0,path=<vhost_sock>   virtio-user = vhost client
    <-> "vh"   type=dpdkvhostuser: OVS is the vhost-user SERVER (attribute
               vhost_client_mode = False); vhost_sock = <dir>/run/vhost/vh
               (other_config:vhost-sock-dir, relative to OVS_RUNDIR)
    <-> bridge vfwdt<hex> (datapath_type=netdev, fail_mode=secure: no NORMAL
               flow ever), OpenFlow table 0 = exactly
                 in_port=vh   actions=output:wire
                 in_port=wire actions=output:vh
    <-> "wire" type=dpdk, dpdk-devargs=net_memif0,role=server,socket=<memif_sock>
  generator net_memif0,role=client,socket=<memif_sock>

OVS's EAL (other_config:dpdk-extra and friends): --in-memory (works, no
hugepage files), --no-pci, --no-telemetry, --file-prefix vfwdt-<env>-<name>-
<pid> (appended to env.prefixes: Env.cleanup() removes /var/run/dpdk/<it>),
-c <main_cpu> (dpdk-lcore-mask), --socket-mem/--socket-limit socket_mem MB
(default 512). One PMD thread (pmd-cpu-mask) on pmd_cpu polls both rx
queues; all other threads of ovs-vswitchd stay on main_cpu (taskset).

Cleanup: Ovs puts a guard in env.procs ahead of its two processes, so
Env.cleanup() runs stop() (and so stops OVS before a generator started
later) even when a test fails without calling it. stop(): `ovs-appctl exit
--cleanup`, then SIGTERM, then SIGKILL, by PID, with timeouts; ovsdb-server
likewise; then leftover TAP devices (below) are deleted.

Caveats found (Debian 12: OVS 3.1.0 on DPDK 22.11.11):

* memif tx queue. OVS gives every port one tx queue per thread (PMDs + the
  main thread = 2) and its PMD sends on queue 1. A memif server has only as
  many s2c rings as the memif client has rx queues (1 for vfwd-testpeer),
  so queue 1 is never connected: everything the PMD sends there counts as
  ovs_tx_failure_drops (and in 22.11 such a queue even points at a wrong
  ring). OVS has no n_txq option for dpdk ports; tx-steering=hash only
  helps flows that hash to queue 0. Hence the LD_PRELOAD shim, compiled at
  start with cc + pkg-config libdpdk (libdpdk-dev): rte_eth_dev_info_get()
  reports max_tx_queues=1 for net_memif ports, OVS opens one tx queue and
  shares it between threads (its XPS mode: an uncontended spinlock per
  batch). Everything else is stock OVS.
* One OVS sandbox per network namespace at a time: the netdev datapath
  always opens a TAP device named "ovs-netdev" (and one named after the
  bridge), which a second ovs-vswitchd cannot open. Ovs() therefore waits
  (up to timeout) for an abstract-socket lock "vfwd-ovs-netdev-lock" and
  for ovs-netdev to be free. ovs-vswitchd makes these TAPs persistent and
  removes them only on a clean exit; stop() deletes leftovers after a
  crash. Running OVS in a netns of its own would avoid all this but breaks
  memif: DPDK 22.11's memif socket is abstract by default, hence per netns.
* OpenFlow rules are not kept in the database: they are added after the
  (single) start of ovs-vswitchd.
* MTU: the memif port cannot set its MTU (max frame 1518; OVS logs "does
  not support MTU configuration"): MTU 1500 on both ports, no jumbo
  frames. OVS disables TSO/checksum offloads on the vhost port (no
  userspace-tso-enable), so --tso/--lro generators get no offloads.
* No backpressure: OVS drops what a full ring does not take (memif: no
  retry; vhost: tx-retries-max 8). On one CPU the peer cannot always drain
  its virtio rx ring (256): wire->vm loses ~1% in steady state.
* Start-up loss: vfwd-testpeer sends as soon as its ports are started, not
  when links are up. Memif connects 3-12 ms after virtio-user, and the
  vhost vrings go enabled/disabled/enabled meanwhile, so a 20000-packet run
  can lose anything from 0 to all of its packets. hold() (admin state down
  on both ports: OVS stops polling, the peer's tx rings fill and it
  retries) and release() (waits for "vHost Device ... has been added", both
  vrings enabled and "memif_connect(): Connected." in this sandbox's log,
  then all ports up in one command) make vm->wire exact. wire->vm still
  loses some hundred packets either way (after hold, the 1024-slot memif
  backlog floods the 256-slot virtio ring). OVS cannot read this vhost
  port's counters ("could not retrieve stats (Protocol error)"), so vhost
  tx drops are not visible; the memif port's are (port_stats()).
* dpdkvhostuser (server mode) is deprecated in OVS (a warning in the log)
  but works; dpdkvhostuserclient was not needed.
* Startup: ~1.2-1.5 s from ovsdb-tool to both ports, flows and PMD ready
  (EAL --in-memory with 512 MB ~0.4 s). The generator's own start (virtio-
  user and memif connected) adds ~0.9 s before release() returns.
* Stop OVS (stop()) BEFORE the memif peer: the memif PMD of DPDK 22.11
  unmaps regions on disconnect without waiting for the other side's data
  path (vfwd-testpeer --linger keeps the peer idle until SIGTERM).

pmd_stats() parses `ovs-appctl dpif-netdev/pmd-stats-show -pmd <pmd_cpu>`
(counters since clear_stats()); each "label: value" line becomes a float
under the label in lower case, "avg." -> "avg", other non-alphanumerics ->
"_"; a percentage in brackets goes to <key>_pct:

  packets_received                  packets polled from both rx queues
  idle_cycles (+_pct)               TSC cycles of polls that got nothing
  processing_cycles (+_pct)         TSC cycles of polls that got packets
                                    (rx, classify, actions, tx): busy time
  avg_cycles_per_packet             (idle + processing) / packets: what the
                                    100%-polling core costs per packet
  avg_processing_cycles_per_packet  processing / packets: OVS's busy
                                    cycles/pkt, to compare with vfwd's
  simple_match_hits, emc_hits, smc_hits, megaflow_hits, phwol_hits,
  mfex_opt_hits, miss_with_success_upcall, miss_with_failed_upcall,
  packet_recirculations, avg_datapath_passes_per_packet,
  avg_subtable_lookups_per_megaflow_hit, avg_packets_per_output_batch
  numa_id, core_id                  of that PMD thread

OVS divides by packets received, drops included (vfwd divides by packets
sent); the TSC rate is in the log ("DPDK provided TSC frequency").
"""

import errno
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "test"))
from vfwdtest import Proc, TestFailure  # noqa: E402

VSWITCHD = os.environ.get("VFWD_OVS_VSWITCHD",
                          "/usr/lib/openvswitch-switch-dpdk/ovs-vswitchd-dpdk")
OVSDB_SERVER = shutil.which("ovsdb-server") or "/usr/sbin/ovsdb-server"
OVSDB_TOOL = shutil.which("ovsdb-tool") or "/usr/bin/ovsdb-tool"
VSCTL = shutil.which("ovs-vsctl") or "/usr/bin/ovs-vsctl"
APPCTL = shutil.which("ovs-appctl") or "/usr/bin/ovs-appctl"
OFCTL = shutil.which("ovs-ofctl") or "/usr/bin/ovs-ofctl"
SCHEMA = "/usr/share/openvswitch/vswitch.ovsschema"
CC = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc") or "cc"
PACKAGES = "openvswitch-switch-dpdk (pulls openvswitch-switch, openvswitch-common)"

VH_PORT, WIRE_PORT = 1, 2   # OpenFlow port numbers (ofport_request)

_SHIM_C = r"""
/* LD_PRELOAD for ovs-vswitchd: net_memif ports report one tx queue, so
 * OVS sends on queue 0 from every thread (see bench/ovs.py). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <string.h>
#include <rte_ethdev.h>

typedef int (*info_fn)(uint16_t, struct rte_eth_dev_info *);

int
rte_eth_dev_info_get(uint16_t port_id, struct rte_eth_dev_info *info)
{
	static info_fn real;
	int ret;

	if (real == NULL)
		real = (info_fn)dlvsym(RTLD_NEXT, "rte_eth_dev_info_get", "DPDK_23");
	if (real == NULL)
		real = (info_fn)dlsym(RTLD_NEXT, "rte_eth_dev_info_get");
	if (real == NULL)
		return -38; /* -ENOSYS */
	ret = real(port_id, info);
	if (ret == 0 && info->driver_name != NULL &&
	    strcmp(info->driver_name, "net_memif") == 0)
		info->max_tx_queues = 1;
	return ret;
}
"""
_SHIM_MAP = "DPDK_23 { global: rte_eth_dev_info_get; };\n"

_bridge_seq = 0


def _run(argv, timeout=10, check=True):
    try:
        r = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=timeout, text=True)
    except subprocess.TimeoutExpired:
        raise TestFailure("timed out after %ss: %s" % (timeout, " ".join(argv)))
    if check and r.returncode != 0:
        raise TestFailure("%s: rc=%d\n%s%s" % (" ".join(argv), r.returncode, r.stdout,
                                               r.stderr))
    return r


def _dpdk_cflags():
    r = subprocess.run(["pkg-config", "--cflags", "libdpdk"], stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL, text=True)
    return r.stdout.split() if r.returncode == 0 else None


def available():
    """(True, "") when OVS-DPDK can run here, else (False, why)."""
    for path in (VSWITCHD, OVSDB_SERVER, OVSDB_TOOL, VSCTL, APPCTL, OFCTL):
        if not os.access(path, os.X_OK):
            return False, "%s missing: usertools/setup.sh perf (or apt-get install %s)" % (path, PACKAGES)
    if not os.path.exists(SCHEMA):
        return False, "%s missing: usertools/setup.sh perf (or apt-get install %s)" % (SCHEMA, PACKAGES)
    if not shutil.which(CC) and not os.access(CC, os.X_OK):
        return False, "no C compiler (%s) for the memif tx-queue shim" % CC
    if _dpdk_cflags() is None:
        return False, "pkg-config libdpdk failed: the shim needs libdpdk-dev"
    try:
        r = subprocess.run([VSWITCHD, "--version"], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired) as e:
        return False, "%s --version: %s" % (VSWITCHD, e)
    if "DPDK" not in r.stdout:
        return False, "%s is not built with DPDK: %s" % (VSWITCHD, r.stdout.strip())
    try:
        with open("/proc/meminfo") as f:
            free = re.search(r"HugePages_Free:\s+(\d+)", f.read())
        if free and int(free.group(1)) == 0:
            return False, "no free hugepages"
    except OSError:
        pass
    return True, ""


_lock_owner = None  # the Ovs of this process that holds the netdev lock


def _netdev_lock(timeout):
    """One OVS netdev datapath per network namespace: it always opens a TAP
    device named "ovs-netdev". Serialise sandboxes on an abstract unix
    socket name (per netns, no file, released when the holder dies), then
    wait for a leftover ovs-netdev to go away."""
    owner = _lock_owner
    if owner is not None and owner._lock is not None and (
            owner.proc is None or owner.proc.p.poll() is not None):
        try:  # its ovs-vswitchd is gone but nobody called stop()
            owner.stop()
        except TestFailure:
            pass
    lock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)  # not inherited
    deadline = time.monotonic() + timeout
    while True:
        try:
            lock.bind("\0vfwd-ovs-netdev-lock")
            break
        except OSError as e:
            if e.errno != errno.EADDRINUSE:
                lock.close()
                raise
        if time.monotonic() > deadline:
            lock.close()
            raise TestFailure("another OVS sandbox in this network namespace for %ss" % timeout)
        time.sleep(0.1)
    while os.path.exists("/sys/class/net/ovs-netdev") and _tap_attached("ovs-netdev"):
        if time.monotonic() > deadline:
            lock.close()
            raise TestFailure("TAP device ovs-netdev is in use: another OVS (netdev "
                              "datapath) runs in this network namespace")
        time.sleep(0.1)
    return lock


def _bridge_name():
    """A bridge (= TAP device) name of at most 15 characters not in use."""
    global _bridge_seq
    while True:
        _bridge_seq += 1
        name = "vfwdt%06x%03x" % (os.getpid() & 0xffffff, _bridge_seq & 0xfff)
        if not os.path.exists("/sys/class/net/" + name):
            return name


def _parse_pmd_stats(text):
    """{(numa_id, core_id): {key: float}} from pmd-stats-show output."""
    out = {}
    cur = None
    for line in text.splitlines():
        m = re.match(r"pmd thread numa_id (\d+) core_id (\d+):", line)
        if m:
            cur = {"numa_id": float(m.group(1)), "core_id": float(m.group(2))}
            out[(int(m.group(1)), int(m.group(2)))] = cur
            continue
        if not line.startswith(" "):
            cur = None  # "main thread:" and anything else
            continue
        if cur is None or ":" not in line:
            continue
        label, _, value = line.strip().partition(":")
        key = re.sub(r"[^a-z0-9]+", "_", label.lower().replace("avg.", "avg")).strip("_")
        m = re.match(r"\s*([-+0-9.eE]+)(?:\s*\(([-+0-9.eE]+)%\))?", value)
        if not m:
            continue
        cur[key] = float(m.group(1))
        if m.group(2) is not None:
            cur[key + "_pct"] = float(m.group(2))
    return out


def _tap_attached(name):
    """Whether some process has the TUN/TAP device open (fdinfo "iff:")."""
    needle = "iff:\t%s\n" % name
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            fds = os.listdir("/proc/%s/fdinfo" % pid)
        except OSError:
            continue
        for fd in fds:
            try:
                with open("/proc/%s/fdinfo/%s" % (pid, fd)) as f:
                    if needle in f.read():
                        return True
            except OSError:
                pass
    return False


def _del_tap(name):
    """Delete a leftover persistent TAP device of ours (ovs-vswitchd makes
    them persistent and removes them only on a clean exit)."""
    if os.path.exists("/sys/class/net/" + name) and not _tap_attached(name):
        subprocess.run(["ip", "link", "del", name], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, timeout=10)


class _Guard:
    """Stands in env.procs before OVS's two processes, so that
    Env.cleanup() (which SIGTERMs in order) stops this sandbox the clean
    way, TAP devices included, and before the generator started later."""

    name = "ovs-guard"

    def __init__(self, ovs):
        self.ovs = ovs
        self.p = self
        self._out = self._err = self

    def poll(self):
        return None if self.ovs._alive() else 0

    def send_signal(self, sig):
        try:
            self.ovs.stop()
        except TestFailure:
            pass

    def wait(self, timeout=None):
        return 0

    kill = send_signal

    def close(self):
        pass

    def out(self):
        return ""

    err = out


class Ovs:
    """OVS-DPDK forwarding between a vhost-user port and a memif wire.

    __init__ starts everything and returns when both ports are in the
    datapath, the two OpenFlow rules are installed and the PMD runs.

    env         vfwdtest.Env: sandbox dir, process list, prefixes
    memif_sock  socket= of the memif server port (the generator is client)
    pmd_cpu     CPU of the only PMD thread (pmd-cpu-mask)
    main_cpu    CPU of the EAL main lcore and of every other OVS thread
                (taskset); None: no taskset, lcore mask 0x1
    name        sub-directory of env.dir, process names, EAL prefix tag
    socket_mem  MB of hugepage memory (--socket-mem = --socket-limit)
    dpdk_extra  more EAL arguments, e.g. "--log-level=pmd.net.memif:debug"
    timeout     seconds for each start-up step (and for the netns lock)

    Attributes: vhost_sock, vhost_client_mode (False: OVS is the server),
    memif_sock, bridge, dir, log (ovs-vswitchd.log), prefix, startup_s,
    proc / db_proc (vfwdtest.Proc of ovs-vswitchd / ovsdb-server)."""

    vhost_client_mode = False  # OVS is the vhost-user server

    def __init__(self, env, memif_sock, pmd_cpu=1, main_cpu=0, name="ovs", socket_mem=512,
                 dpdk_extra="", timeout=60):
        self.env = env
        self.name = name
        self.memif_sock = memif_sock
        self.pmd_cpu = pmd_cpu
        self.main_cpu = main_cpu
        self.dir = env.path(name)
        self.rundir = os.path.join(self.dir, "run")
        self.db = os.path.join(self.dir, "conf.db")
        self.db_sock = os.path.join(self.dir, "db.sock")
        self.db_ctl = os.path.join(self.dir, "ovsdb-server.ctl")
        self.ctl = os.path.join(self.dir, "ovs-vswitchd.ctl")
        self.log = os.path.join(self.dir, "ovs-vswitchd.log")
        self.bridge = _bridge_name()
        self.vh, self.wire = "vh", "wire"
        self.vhost_sock = os.path.join(self.rundir, "vhost", self.vh)
        self.mgmt = os.path.join(self.rundir, self.bridge + ".mgmt")
        self.prefix = env.prefix(name)
        self.db_proc = self.proc = None
        self.startup_s = None
        self._mark = 0
        for sock in (self.vhost_sock, self.mgmt, self.db_sock, self.ctl):
            if len(sock) > 107:
                raise TestFailure("socket path too long for AF_UNIX: " + sock)
        global _lock_owner
        self._lock = None
        env.procs.append(_Guard(self))
        t0 = time.monotonic()
        try:
            self._lock = _netdev_lock(timeout)
            _lock_owner = self
            self._start(socket_mem, dpdk_extra, timeout)
        except BaseException:
            try:
                self.stop()
            except TestFailure:
                pass
            raise
        self.startup_s = time.monotonic() - t0

    def _start(self, socket_mem, dpdk_extra, timeout):
        env, name, memif_sock = self.env, self.name, self.memif_sock
        pmd_cpu, main_cpu = self.pmd_cpu, self.main_cpu
        os.makedirs(os.path.join(self.rundir, "vhost"))
        os.makedirs(os.path.join(self.dir, "etc"))
        self._env = ["OVS_RUNDIR=" + self.rundir, "OVS_LOGDIR=" + self.dir,
                     "OVS_DBDIR=" + self.dir, "OVS_SYSCONFDIR=" + os.path.join(self.dir, "etc")]
        shim = self._build_shim()
        _run(["env"] + self._env + [OVSDB_TOOL, "create", self.db, SCHEMA])
        self.db_proc = Proc(env, name + "-ovsdb",
                            ["env"] + self._env +
                            [OVSDB_SERVER, self.db, "--remote=punix:" + self.db_sock,
                             "--pidfile=" + os.path.join(self.dir, "ovsdb-server.pid"),
                             "--unixctl=" + self.db_ctl,
                             "--log-file=" + os.path.join(self.dir, "ovsdb-server.log"),
                             "-vconsole:off", "-vfile:info"])
        self._wait(lambda: os.path.exists(self.db_sock), timeout, "ovsdb-server socket",
                   self.db_proc)
        dpdk_extra = ("--in-memory --no-pci --no-telemetry --file-prefix %s"
                      " --log-level=lib.vhost.config:notice --log-level=pmd.net.memif:info %s"
                      % (self.prefix, dpdk_extra)).strip()
        self.vsctl(
            "init",
            "--", "set", "Open_vSwitch", ".",
            "other_config:dpdk-init=true",
            "other_config:dpdk-lcore-mask=0x%x" % (1 << (main_cpu or 0)),
            "other_config:pmd-cpu-mask=0x%x" % (1 << pmd_cpu),
            "other_config:dpdk-socket-mem=%d" % socket_mem,
            "other_config:dpdk-socket-limit=%d" % socket_mem,
            "other_config:dpdk-extra=" + dpdk_extra,
            "other_config:vhost-sock-dir=vhost",
            "--", "add-br", self.bridge,
            "--", "set", "Bridge", self.bridge, "datapath_type=netdev", "fail_mode=secure",
            "--", "add-port", self.bridge, self.vh,
            "--", "set", "Interface", self.vh, "type=dpdkvhostuser",
            "ofport_request=%d" % VH_PORT,
            "--", "add-port", self.bridge, self.wire,
            "--", "set", "Interface", self.wire, "type=dpdk",
            "ofport_request=%d" % WIRE_PORT,
            "options:dpdk-devargs=net_memif0,role=server,socket=%s" % memif_sock)
        self.proc = Proc(env, name + "-vswitchd",
                         (["taskset", "-c", str(main_cpu)] if main_cpu is not None else []) +
                         ["env"] + self._env +
                         ["LD_PRELOAD=" + shim, VSWITCHD, "unix:" + self.db_sock,
                          "--pidfile=" + os.path.join(self.dir, "ovs-vswitchd.pid"),
                          "--unixctl=" + self.ctl, "--log-file=" + self.log,
                          "-vconsole:off", "-vfile:info"])
        self._wait(lambda: self._ports_up(), timeout, "both ports in the datapath")
        self._wait(lambda: os.path.exists(self.mgmt) and os.path.exists(self.vhost_sock),
                   timeout, "bridge and vhost sockets")
        self.ofctl("add-flow", "in_port=%d,actions=output:%d" % (VH_PORT, WIRE_PORT))
        self.ofctl("add-flow", "in_port=%d,actions=output:%d" % (WIRE_PORT, VH_PORT))
        flows = self.ofctl("dump-flows").stdout
        if flows.count("actions=output:") != 2:
            raise TestFailure("%s: unexpected flow table:\n%s" % (name, flows))
        self._wait(lambda: any(c == pmd_cpu for _, c in self._pmds()), timeout,
                   "PMD thread on CPU %d" % pmd_cpu)

    # --- helpers -----------------------------------------------------

    def _build_shim(self):
        src = os.path.join(self.dir, "memif_txq_shim.c")
        ver = os.path.join(self.dir, "memif_txq_shim.map")
        out = os.path.join(self.dir, "memif_txq_shim.so")
        with open(src, "w") as f:
            f.write(_SHIM_C)
        with open(ver, "w") as f:
            f.write(_SHIM_MAP)
        cflags = _dpdk_cflags()
        if cflags is None:
            raise TestFailure("pkg-config --cflags libdpdk failed (libdpdk-dev missing?)")
        _run([CC, "-O2", "-shared", "-fPIC"] + cflags +
             ["-Wl,--version-script=" + ver, "-o", out, src, "-ldl"], timeout=60)
        return out

    def _fail(self, what):
        tail = ""
        if os.path.exists(self.log):
            with open(self.log, errors="replace") as f:
                tail = f.read()[-3000:]
        procs = [p for p in (self.db_proc, self.proc) if p is not None]
        return TestFailure("%s: %s\n%s\n--- ovs-vswitchd.log tail:\n%s" % (
            self.name, what, " ".join("%s rc=%s" % (p.name, p.p.poll()) for p in procs),
            tail))

    def _wait(self, cond, timeout, what, proc=None):
        deadline = time.monotonic() + timeout
        while True:
            if cond():
                return
            for p in (proc, self.proc):
                if p is not None and p.p.poll() is not None:
                    raise self._fail("%s exited while waiting for %s" % (p.name, what))
            if time.monotonic() > deadline:
                raise self._fail("no %s within %ss" % (what, timeout))
            time.sleep(0.05)

    def _ports_up(self):
        if os.path.exists(self.log):
            with open(self.log, errors="replace") as f:
                errs = [l for l in f.read().splitlines() if "|ERR|" in l or "|EMER|" in l]
            if errs:
                raise self._fail("error in log: " + errs[0])
        for iface, ofport in ((self.vh, VH_PORT), (self.wire, WIRE_PORT)):
            r = self.vsctl("get", "Interface", iface, "ofport", "error", check=False)
            if r.returncode != 0:
                return False
            lines = r.stdout.split("\n")
            if len(lines) > 1 and lines[1].strip() not in ("", "[]"):
                raise self._fail("interface %s: %s" % (iface, lines[1].strip()))
            if lines[0].strip() != str(ofport):
                return False
        return True

    def _pmds(self):
        r = self.appctl("dpif-netdev/pmd-stats-show", check=False)
        return _parse_pmd_stats(r.stdout).keys() if r.returncode == 0 else []

    def vsctl(self, *args, check=True):
        """ovs-vsctl on this sandbox's database (never waits for vswitchd)."""
        return _run([VSCTL, "--db=unix:" + self.db_sock, "--no-wait", "--timeout=10"] +
                    list(args), check=check)

    def appctl(self, *args, check=True, timeout=10):
        """ovs-appctl to this sandbox's ovs-vswitchd."""
        return _run([APPCTL, "-t", self.ctl, "--timeout=%d" % timeout] + list(args),
                    timeout=timeout + 5, check=check)

    def ofctl(self, *args, check=True):
        """ovs-ofctl on this sandbox's bridge."""
        cmd, rest = args[0], list(args[1:])
        return _run([OFCTL, "-O", "OpenFlow13", cmd, "unix:" + self.mgmt] + rest, check=check)

    # --- API -----------------------------------------------------------

    def clear_stats(self):
        """Zero the PMD counters (dpif-netdev/pmd-stats-clear)."""
        self.appctl("dpif-netdev/pmd-stats-clear")

    def pmd_stats(self):
        """Counters of the PMD thread on pmd_cpu since clear_stats(), as
        floats; see the module docstring for the keys."""
        r = self.appctl("dpif-netdev/pmd-stats-show", "-pmd", str(self.pmd_cpu))
        for (_, core), stats in _parse_pmd_stats(r.stdout).items():
            if core == self.pmd_cpu:
                return stats
        raise self._fail("no PMD thread on core %d in:\n%s" % (self.pmd_cpu, r.stdout))

    def port_stats(self):
        """{port: {"rx_packets", "rx_dropped", "tx_packets", "tx_dropped",
        ...: int}} from `ovs-appctl dpctl/show -s`, live (the database's
        statistics column lags by up to 5 s). The vhost port's dict is
        empty: OVS 3.1 cannot read its counters ("Protocol error")."""
        text = self.appctl("dpctl/show", "-s").stdout
        out = {}
        for port in (self.vh, self.wire):
            m = re.search(r"port \d+: %s \(.*?(?=\n  port \d+:|\Z)" % re.escape(port), text,
                          re.S)
            stats = {}
            for kind, fields in re.findall(r"(RX|TX) packets:(.*)", m.group(0) if m else ""):
                stats[kind.lower() + "_packets"] = int(fields.split()[0])
                for k, v in re.findall(r"(\w+):(\d+)", fields):
                    stats["%s_%s" % (kind.lower(), k)] = int(v)
            out[port] = stats
        return out

    def hold(self):
        """Stop polling both ports (admin state down): what the generator
        sends waits in its rings, or fails to send and is retried, instead
        of being dropped by OVS while the other link is not up yet."""
        self._mark = os.path.getsize(self.log)
        self.appctl("netdev-dpdk/set-admin-state", "down")

    def release(self, timeout=20, settle=0.05):
        """After hold() and after the generator started: wait until its
        virtio-user is connected with both vrings enabled and its memif is
        connected (from this sandbox's log), then bring all ports up with
        one command. Returns the seconds waited."""
        t0 = time.monotonic()
        deadline = t0 + timeout
        last = None
        while True:
            with open(self.log, errors="replace") as f:
                f.seek(self._mark)
                text = f.read()
            ok = self._links_up(text)
            if ok and last == len(text) and time.monotonic() - seen >= settle:
                break
            if last != len(text):
                last, seen = len(text), time.monotonic()
            if self.proc.p.poll() is not None:
                raise self._fail("ovs-vswitchd exited while waiting for the links")
            if time.monotonic() > deadline:
                raise self._fail("generator links not up within %ss" % timeout)
            time.sleep(0.01)
        self.appctl("netdev-dpdk/set-admin-state", "up")
        return time.monotonic() - t0

    def _links_up(self, text):
        added = text.rfind("vHost Device '%s' has been added" % self.vhost_sock)
        if added < 0 or text.find("vHost Device '%s' has been removed" % self.vhost_sock,
                                  added) >= 0:
            return False
        states = dict(re.findall(r"State of queue (\d+) .*? changed to '(\w+)'", text[added:]))
        if len(states) < 2 or any(v != "enabled" for v in states.values()):
            return False
        return "memif_connect(): Connected." in text

    def stop(self, timeout=10):
        """ovs-vswitchd, then ovsdb-server, by PID, each with a bound:
        `exit --cleanup` (or SIGTERM) first, SIGKILL after timeout.
        Returns ovs-vswitchd's exit code. Safe to call twice."""
        rc = rc_db = None
        if self.proc is not None:
            if self.proc.p.poll() is None:
                try:
                    self.appctl("exit", "--cleanup", check=False, timeout=timeout)
                except TestFailure:
                    pass  # timed out: SIGTERM/SIGKILL below
            rc = self._reap(self.proc, timeout, wait_first=True)
        if self.db_proc is not None:
            rc_db = self._reap(self.db_proc, timeout, wait_first=False)
        if self._lock is not None:
            _del_tap(self.bridge)
            _del_tap("ovs-netdev")
            self._lock.close()
            self._lock = None
        if self.db_proc is not None and rc_db not in (0, -signal.SIGTERM):
            raise self._fail("ovsdb-server exit %s" % rc_db)
        return rc

    def _alive(self):
        return self._lock is not None or any(
            p is not None and p.p.poll() is None for p in (self.proc, self.db_proc))

    @staticmethod
    def _reap(proc, timeout, wait_first):
        """Wait (if wait_first), SIGTERM and wait, then SIGKILL."""
        if wait_first:
            try:
                return proc.p.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                pass
        if proc.p.poll() is None:
            proc.p.send_signal(signal.SIGTERM)
        try:
            return proc.p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            return proc.p.poll()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()
        return False
