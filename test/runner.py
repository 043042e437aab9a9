#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Runs every test: the unit test binaries (TAP, one result per case), the
same from build-asan (asan/...), the libFuzzer targets (fuzz/...), the
end-to-end tests in test/e2e/test_*.py (one result per function), and the
forward, malformed, modes and soak groups again with build-asan's vfwd
(asan-e2e/...), the forward, offload and gro groups again with every vfwd
on --vhost-path lib (lib-path/e2e/...), a short e2e subset under a busy
loop on every CPU (loaded/..., LOADED_TESTS; its reconnect tests on lib,
loaded/lib-path/...), then the chroot suites of other releases.
Arguments filter tests by name; --under-load runs everything selected
beside a busy loop on every CPU (CpuLoad).

Before running, each build folder the selected tests need is brought up to
date with ninja (a folder that cannot be is a FAIL, never run stale). A
missing optional build (build-asan, build-fuzz) is a SKIP with the reason;
a FAIL where CI is set or VFWD_REQUIRE_ALL=1, unless VFWD_NO_ASAN or
VFWD_NO_FUZZ says to leave it out. A test that leaves a process, hugepage
file, DPDK runtime directory, network namespace, link or /tmp/vfwd-* entry
behind fails as NAME(leftovers), and what it left is removed: only what
carries this run's PID in its name (vfwdtest.owned); what others made
meanwhile is named and left alone.

Ends with the line 'N passed, N failed' (', N skipped' after, if any)."""

import glob
import importlib.util
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import vfwdtest  # noqa: E402

ROOT = vfwdtest.ROOT
BUILD = vfwdtest.BUILD
ASAN_BUILD = os.path.join(os.path.dirname(BUILD), "build-asan")
FUZZ_BUILD = os.path.join(os.path.dirname(BUILD), "build-fuzz")
# the e2e groups run again with vfwd from build-asan
ASAN_E2E_GROUPS = ("forward", "malformed", "modes", "soak", "vanish")
# the e2e groups run again with every vfwd on --vhost-path lib (librte_vhost
# called by the workers, not net_vhost's bursts): VFWD_VHOST_PATH, which
# vfwdtest adds to each vfwd's options. The reconnect group runs on lib in
# the loaded/ pass (LOADED_LIB_PATH), under load, not twice.
LIB_PATH_GROUPS = ("forward", "offload", "gro")
# LeakSanitizer suppressions, used only if the file exists
LSAN_SUPP = os.path.join(HERE, "lsan.supp")
SAN_UBSAN = "halt_on_error=1:print_stacktrace=1"

passed, failed, skipped = 0, 0, 0
failures = []


def report(name, ok, secs, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print("PASS %-45s %6.1fs" % (name, secs), flush=True)
    else:
        failed += 1
        failures.append(name)
        print("FAIL %-45s %6.1fs" % (name, secs), flush=True)
        if detail:
            print("     " + detail.rstrip().replace("\n", "\n     "), flush=True)


def skip(name, reason):
    global skipped
    skipped += 1
    print("SKIP %s (%s)" % (name, reason), flush=True)


def _match(f, name):
    """A filter selects the names containing it; '^e2e/' only those that
    start with 'e2e/' (not 'asan-e2e/...')."""
    return name.startswith(f[1:]) if f.startswith("^") else f in name


def wanted(name, filters):
    return not filters or any(_match(f, name) for f in filters)


def any_wanted(names, filters):
    """Whether a filter selects any of names or something inside one (a
    filter 'asan/test_options/defaults' needs 'asan/test_options')."""
    return not filters or any(_match(f, n) or n in f.lstrip("^") for f in filters for n in names)


def require_all():
    ci = os.environ.get("CI", "").strip().lower()
    return (ci not in ("", "0", "false", "no")) or os.environ.get("VFWD_REQUIRE_ALL") == "1"


def san_env(leaks=True, abort=True):
    """The environment for a sanitized binary: leaks reported, UBSan fatal."""
    asan = "detect_leaks=%d" % (1 if leaks else 0)
    if abort:
        asan += ":abort_on_error=1"
    env = dict(os.environ, ASAN_OPTIONS=asan, UBSAN_OPTIONS=SAN_UBSAN)
    if os.path.isfile(LSAN_SUPP):
        env["LSAN_OPTIONS"] = "suppressions=%s:print_suppressions=0" % LSAN_SUPP
    return env


def show(path):
    """path relative to the repository when inside it."""
    rel = os.path.relpath(path, ROOT)
    return path if rel.startswith("..") else rel


def tail(text, n=3000):
    return text if len(text) <= n else "...\n" + text[-n:]


# ---------------------------------------------------------------- builds

def newest_source():
    """(mtime, path) of the newest source the builds depend on."""
    best = (0.0, "")
    tops = [os.path.join(ROOT, d) for d in ("lib", "app", "gen", "test/unit", "test/fuzz", "test/peer")]
    files = [os.path.join(ROOT, f) for f in ("meson.build", "meson_options.txt")]
    for top in tops:
        for dirpath, _, names in os.walk(top):
            files += [os.path.join(dirpath, n) for n in names
                      if n.endswith((".c", ".h")) or n == "meson.build"]
    for f in files:
        try:
            best = max(best, (os.path.getmtime(f), f))
        except OSError:
            pass
    return best


def build_binaries(path):
    bins = [os.path.join(path, "app", "dpdk-vfwd")]
    for pat in ("test/unit/test_*", "test/fuzz/fuzz_*", "test/peer/vfwd-testpeer",
                "gen/dpdk-vfwd-gen"):
        bins += glob.glob(os.path.join(path, pat))
    return [b for b in bins if os.path.isfile(b) and os.access(b, os.X_OK)]


def prepare_build(path):
    """Brings a build folder up to date. None when it is current, else why
    it cannot be used."""
    label = os.path.basename(path)
    if os.environ.get("VFWD_MUTANT") and os.path.realpath(path) == os.path.realpath(BUILD):
        # test/mutants/run.py built it from a patched tree, now reverted:
        # a rebuild here would take the fault out again
        return None
    if os.path.isfile(os.path.join(path, "build.ninja")) and shutil.which("ninja"):
        t0 = time.monotonic()
        try:
            r = subprocess.run(["ninja", "-C", path], capture_output=True, text=True,
                               timeout=3600)
        except subprocess.TimeoutExpired:
            return "ninja -C %s did not finish within an hour" % label
        if r.returncode != 0:
            return "ninja -C %s failed (exit %d): not running it stale\n%s" % (
                label, r.returncode, tail(r.stdout + r.stderr))
        if "no work to do" not in r.stdout:
            print("     %s: rebuilt, sources were newer (%.0f s)" % (label, time.monotonic() - t0),
                  flush=True)
        return None
    # nothing to rebuild it with: only use binaries newer than every source
    newest, src = newest_source()
    stale = [b for b in build_binaries(path) if os.path.getmtime(b) < newest]
    if stale:
        return "stale: %s is older than %s, and there is no build.ninja to rebuild it" % (
            show(stale[0]), show(src))
    return None


def missing_build(names, what, optout):
    """The tests of an optional build that is not there (or left out)."""
    if os.environ.get(optout):
        for n in names:
            skip(n, "%s set" % optout)
    elif require_all():
        why = ("%s, required here (CI or VFWD_REQUIRE_ALL is set): usertools/setup.sh builds it,"
               " %s=1 leaves it out" % (what, optout))
        for n in names:
            report(n, False, 0, why)
    else:
        for n in names:
            skip(n, what + "; usertools/setup.sh builds it")


# -------------------------------------------------------------- leftovers

RUN_TOKEN = "VFWD_RUNNER_ID=%d.%d" % (os.getpid(), time.time_ns())


def _run_lines(argv):
    try:
        r = subprocess.run(argv, capture_output=True, text=True, timeout=10)
        return r.stdout.splitlines() if r.returncode == 0 else []
    except (OSError, subprocess.TimeoutExpired):
        return []


def _proc_table():
    """{(pid, start time): (state, ppid)} of every process."""
    table = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % d) as f:
                rest = f.read().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        table[(int(d), rest[19])] = (rest[0], int(rest[1]))
    return table


def _ours(pid, table):
    """Whether the runner started pid: it carries the runner's token in its
    environment (every test process inherits it, even one re-parented to
    init), or descends from the runner."""
    try:
        with open("/proc/%d/environ" % pid, "rb") as f:
            if RUN_TOKEN.encode() + b"\0" in f.read():
                return True
    except OSError:
        pass
    parent = {p: ppid for (p, _), (_, ppid) in table.items()}
    seen = set()
    while pid > 1 and pid not in seen:
        seen.add(pid)
        pid = parent.get(pid, 0)
        if pid == os.getpid():
            return True
    return False


def _cmdline(pid):
    try:
        with open("/proc/%d/cmdline" % pid, "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace").strip()[:200]
    except OSError:
        return "?"


def snapshot():
    snap = {
        "procs": set(_proc_table()),
        "hugepages": set(os.listdir("/dev/hugepages")) if os.path.isdir("/dev/hugepages") else set(),
        "dpdk": set(os.listdir("/var/run/dpdk")) if os.path.isdir("/var/run/dpdk") else set(),
        "netns": {ln.split()[0] for ln in _run_lines(["ip", "netns", "list"]) if ln.strip()},
        "links": {ln.split(":")[1].strip().split("@")[0]
                  for ln in _run_lines(["ip", "-o", "link"]) if ln.count(":") >= 2},
        "tmp": set() if os.environ.get("VFWD_KEEP_LOGS") else set(glob.glob("/tmp/vfwd-*")),
    }
    return snap


def leftovers(before, foreign=None):
    """What this run made (vfwdtest.owned: its processes by RUN_TOKEN, the
    rest by the names it gives) since the snapshot before and is still
    there: {kind: [items]}; procs as (pid, start) keys. What appeared but
    is not this run's (a user's dpdk-vfwd started meanwhile: its tap, its
    hugepage files) goes into foreign, if given, never into the result."""
    now = snapshot()
    table = _proc_table()
    left = {}
    procs = [k for k in now["procs"] - before["procs"]
             if k[0] != os.getpid() and k in table and table[k][0] not in ("Z", "X")
             and _ours(k[0], table)]
    if procs:
        left["procs"] = sorted(procs)
    for kind in ("hugepages", "dpdk", "netns", "links", "tmp"):
        new = sorted(now[kind] - before[kind])
        mine = [n for n in new if vfwdtest.owned(kind, n)]
        if mine:
            left[kind] = mine
        if foreign is not None and len(mine) < len(new):
            foreign[kind] = [n for n in new if n not in mine]
    return left


def describe(left):
    out = []
    for pid, _ in left.get("procs", []):
        out.append("process %d: %s" % (pid, _cmdline(pid)))
    out += ["hugepage file /dev/hugepages/%s" % f for f in left.get("hugepages", [])]
    out += ["DPDK runtime dir /var/run/dpdk/%s" % d for d in left.get("dpdk", [])]
    out += ["network namespace %s" % n for n in left.get("netns", [])]
    out += ["link %s" % n for n in left.get("links", [])]
    out += ["%s" % p for p in left.get("tmp", [])]
    return out


def clean(left, before):
    """Kills the processes by PID, then removes what is still left."""
    for pid, start in left.get("procs", []):
        if (pid, start) in _proc_table():
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
    deadline = time.monotonic() + 5
    for pid, start in left.get("procs", []):
        while time.monotonic() < deadline:
            try:
                if os.waitpid(pid, os.WNOHANG)[0]:
                    break
            except ChildProcessError:
                pass  # not our child: init reaps it
            t = _proc_table()
            if (pid, start) not in t or t[(pid, start)][0] in ("Z", "X"):
                break
            time.sleep(0.05)
    # taps and the like go with their processes: look again
    left = leftovers(before)
    for f in left.get("hugepages", []):
        try:
            os.unlink(os.path.join("/dev/hugepages", f))
        except OSError:
            pass
    for d in left.get("dpdk", []):
        shutil.rmtree(os.path.join("/var/run/dpdk", d), ignore_errors=True)
    for n in left.get("netns", []):
        subprocess.run(["ip", "netns", "del", n], stderr=subprocess.DEVNULL)
    for n in left.get("links", []):
        subprocess.run(["ip", "link", "del", n], stderr=subprocess.DEVNULL)
    for p in left.get("tmp", []):
        if os.path.isdir(p) and not os.path.islink(p):
            shutil.rmtree(p, ignore_errors=True)
        elif os.path.lexists(p):
            os.unlink(p)


def remove_empty_runtime_dirs(pattern):
    """DPDK 22.11's rte_eal_cleanup removes the files of its runtime
    directory but not the directory (and the fuzz targets exit through
    libFuzzer, with no hook to call it): an empty one is expected; one
    with files in it is a leftover."""
    for d in glob.glob(os.path.join("/var/run/dpdk", pattern)):
        try:
            os.rmdir(d)
        except OSError:
            pass


def check_leftovers(name, before, secs=0.0):
    foreign = {}
    left = leftovers(before, foreign)
    if foreign:
        print("     appeared meanwhile, not this run's, left alone:\n" +
              "\n".join("       " + d for d in describe(foreign)), flush=True)
    if left:
        report("%s(leftovers)" % name, False, secs,
               "left behind (now removed):\n" + "\n".join(describe(left)))
        clean(left, before)


# ------------------------------------------------------------------ tests

def run_unit_build(label, build, filters):
    env = san_env() if label == "asan" else dict(os.environ)
    for exe in sorted(glob.glob(os.path.join(build, "test", "unit", "test_*"))):
        if not os.access(exe, os.X_OK) or os.path.isdir(exe):
            continue
        base = "%s/%s" % (label, os.path.basename(exe))
        if not any_wanted([base], filters):
            continue
        before = snapshot()
        t0 = time.monotonic()
        try:
            r = subprocess.run([exe], capture_output=True, text=True, errors="replace", timeout=300,
                               env=env)
            out, err, rc = r.stdout, r.stderr, r.returncode
        except subprocess.TimeoutExpired:
            out, err, rc = "", "timed out after 300 s", -1
        secs = time.monotonic() - t0
        cases = re.findall(r"^(ok|not ok) \d+ - (\S+)", out, re.M)
        if not cases:
            report(base, False, secs, "no TAP output (rc=%d)\n%s" % (rc, err[-2000:]))
        for status, case in cases:
            if not wanted("%s/%s" % (base, case), filters):
                continue
            msgs = "\n".join(ln for ln in err.splitlines() if case in ln or "CHECK" in ln)
            report("%s/%s" % (base, case), status == "ok", secs / len(cases),
                   msgs if status != "ok" else "")
        san = vfwdtest.sanitizer_excerpt(err, 60)
        if cases and (san or (rc != 0 and all(s == "ok" for s, _ in cases))):
            # a sanitizer report (a leak at exit, say), or a bad exit after
            # every case passed
            report("%s(exit)" % base, False, secs, "exit code %d\n%s" % (rc, san or err[-3000:]))
        remove_empty_runtime_dirs("vfwd-unit-*")
        check_leftovers(base, before, secs)


def run_unit(filters):
    srcs = sorted(os.path.splitext(os.path.basename(p))[0]
                  for p in glob.glob(os.path.join(HERE, "unit", "test_*.c")))
    run_unit_build("unit", BUILD, filters)
    names = ["asan/" + s for s in srcs]
    if not any_wanted(names, filters):
        return
    if os.environ.get("VFWD_NO_ASAN") or not glob.glob(os.path.join(ASAN_BUILD, "test", "unit",
                                                                    "test_*")):
        missing_build([n for n in names if any_wanted([n], filters)],
                      "no %s/test/unit" % show(ASAN_BUILD), "VFWD_NO_ASAN")
        return
    run_unit_build("asan", ASAN_BUILD, filters)


def fuzz_said(err, n=60):
    """What a libFuzzer target and libFuzzer said, without the progress."""
    return "\n".join([ln for ln in err.splitlines()
                      if not re.match(r"INFO:|#\d+\t|\tNEW_FUNC|\*\*\*|Running: |Executed ", ln)][:n])


def run_fuzz(filters):
    """Each libFuzzer target for VFWD_FUZZ_SECS (30) seconds from the corpus
    kept in test/fuzz/corpus, new inputs into a scratch directory; leaks
    and UBSan reports are failures. A failing input is kept in
    build-fuzz/artifacts/."""
    targets = sorted(os.path.splitext(os.path.basename(p))[0][5:]
                     for p in glob.glob(os.path.join(HERE, "fuzz", "fuzz_*.c")))
    names = [n for n in ("fuzz/" + t for t in targets) if wanted(n, filters)]
    if not names:
        return
    if os.environ.get("VFWD_NO_FUZZ") or not glob.glob(os.path.join(FUZZ_BUILD, "test", "fuzz",
                                                                    "fuzz_*")):
        missing_build(names, "no %s/test/fuzz" % show(FUZZ_BUILD),
                      "VFWD_NO_FUZZ")
        return
    secs = int(os.environ.get("VFWD_FUZZ_SECS", "30"))
    artifacts = os.path.join(FUZZ_BUILD, "artifacts")
    os.makedirs(artifacts, exist_ok=True)
    env = san_env(abort=False)
    for name in names:
        target = name[5:]
        exe = os.path.join(FUZZ_BUILD, "test", "fuzz", "fuzz_" + target)
        if not os.access(exe, os.X_OK):
            report(name, False, 0, "%s was not built" % show(exe))
            continue
        corpus = os.path.join(HERE, "fuzz", "corpus", target)
        before = snapshot()
        scratch = tempfile.mkdtemp(prefix="vfwd-fuzz-%d-" % vfwdtest.RUN_PID)
        t0 = time.monotonic()
        try:
            r = subprocess.run([exe, "-max_total_time=%d" % secs, "-rss_limit_mb=4096",
                                "-print_final_stats=1", "-close_fd_mask=3",
                                "-artifact_prefix=%s/%s-" % (artifacts, target), scratch, corpus],
                               capture_output=True, text=True, errors="replace",
                               timeout=secs + 120, env=env)
            runs = re.search(r"stat::number_of_executed_units:\s+(\d+)", r.stderr)
            san = vfwdtest.sanitizer_excerpt(r.stderr, 60)
            ok = r.returncode == 0 and runs is not None and san is None
            said = fuzz_said(r.stderr)
            kept = re.search(r"Test unit written to (\S+)", r.stderr)
            if not ok and kept:
                # the target's own output is closed while fuzzing (the
                # command parser's messages run to megabytes): run the
                # input kept once more with it open, for what it said
                again = subprocess.run([exe, kept.group(1)], capture_output=True, text=True,
                                       errors="replace", timeout=120, env=env)
                said += "\n--- %s run again:\n%s" % (show(kept.group(1)),
                                                      fuzz_said(again.stderr, 30))
            report(name, ok, time.monotonic() - t0,
                   "" if ok else "exit %d\n%s" % (r.returncode, said if not san or
                                                    san.splitlines()[0] in said
                                                    else said + "\n...\n" + san))
            if ok:
                print("     %s executions" % runs.group(1), flush=True)
        except subprocess.TimeoutExpired:
            report(name, False, time.monotonic() - t0, "did not stop")
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
        remove_empty_runtime_dirs("vfwd-fuzz-*")
        check_leftovers(name, before)


def load_e2e(filters):
    """[(group, module, [function names])] of test/e2e/test_*.py; a module
    that does not load is a FAIL e2e/GROUP(load) when selected."""
    mods = []
    for path in sorted(glob.glob(os.path.join(HERE, "e2e", "test_*.py"))):
        modname = os.path.splitext(os.path.basename(path))[0]
        try:
            spec = importlib.util.spec_from_file_location(modname, path)
            mod = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(mod)
        except Exception:
            name = "e2e/%s(load)" % modname[5:]
            if any_wanted([name[:-6], "asan-" + name[:-6]], filters):
                report(name, False, 0, traceback.format_exc(limit=-3))
            continue
        mods.append((modname[5:], mod, sorted(n for n in dir(mod) if n.startswith("test_"))))
    return mods


def run_e2e_test(name, fn):
    before = snapshot()
    del vfwdtest.sanitizer_reports[:]
    t0 = time.monotonic()
    ok, detail = True, ""
    try:
        fn()
    except vfwdtest.TestFailure as e:
        ok, detail = False, str(e)
    except Exception:
        ok, detail = False, traceback.format_exc()
    for env_name, proc, excerpt in vfwdtest.sanitizer_reports:
        ok = False
        detail += "\nsanitizer report in %s's stderr (%s):\n%s" % (proc, env_name, excerpt)
    del vfwdtest.sanitizer_reports[:]
    secs = time.monotonic() - t0
    report(name, ok, secs, detail.strip())
    check_leftovers(name, before, secs)


def run_e2e(mods, filters, prefix="e2e", groups=None):
    for group, mod, fnames in mods:
        if groups is not None and group not in groups:
            continue
        for fname in fnames:
            name = "%s/%s/%s" % (prefix, group, fname[5:])
            if wanted(name, filters):
                run_e2e_test(name, getattr(mod, fname))


def run_asan_e2e(mods, filters):
    """The groups in ASAN_E2E_GROUPS with dpdk-vfwd from build-asan
    (ASan + UBSan, leaks on, any report fatal); the peer, generator and
    testpmd stay the ones from build/. Soak for VFWD_ASAN_SOAK_SECS (20)."""
    names = ["asan-e2e/%s/%s" % (g, f[5:]) for g, _, fs in mods if g in ASAN_E2E_GROUPS
             for f in fs]
    names = [n for n in names if wanted(n, filters)]
    if not names:
        return
    binary = os.path.join(ASAN_BUILD, "app", "dpdk-vfwd")
    if os.environ.get("VFWD_NO_ASAN") or not os.access(binary, os.X_OK):
        missing_build(names, "no %s" % show(binary), "VFWD_NO_ASAN")
        return
    saved_env = {k: os.environ.get(k) for k in ("ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS",
                                                "VFWD_SOAK_SECS")}
    saved_vfwd = vfwdtest.VFWD
    san = san_env()
    for k in ("ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS"):
        if k in san:
            os.environ[k] = san[k]
    os.environ["VFWD_SOAK_SECS"] = os.environ.get("VFWD_ASAN_SOAK_SECS", "20")
    vfwdtest.VFWD = binary
    try:
        run_e2e(mods, filters, "asan-e2e", ASAN_E2E_GROUPS)
    finally:
        vfwdtest.VFWD = saved_vfwd
        for k, v in saved_env.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def run_lib_path_e2e(mods, filters):
    """The groups in LIB_PATH_GROUPS again, named lib-path/e2e/..., each
    vfwd on --vhost-path lib."""
    saved = os.environ.get("VFWD_VHOST_PATH")
    os.environ["VFWD_VHOST_PATH"] = "lib"
    try:
        run_e2e(mods, filters, "lib-path/e2e", LIB_PATH_GROUPS)
    finally:
        if saved is None:
            os.environ.pop("VFWD_VHOST_PATH", None)
        else:
            os.environ["VFWD_VHOST_PATH"] = saved


# ------------------------------------------------------------------ load

class CpuLoad:
    """A busy loop on every CPU, pinned, at the runner's own priority (a
    build beside the run, as on a shared CI runner), owned by the runner:
    each one a process it started and stops by PID, bounded on its own in
    time should the runner die first."""

    def __init__(self, secs):
        self.procs = []
        for cpu in sorted(os.sched_getaffinity(0)):
            # one process (taskset execs it): nothing forks later, so the
            # per-test leftover check sees it as there before every test
            self.procs.append(subprocess.Popen(
                ["taskset", "-c", str(cpu), sys.executable, "-c",
                 "import time\nend = time.monotonic() + %d\nwhile time.monotonic() < end: pass"
                 % secs], start_new_session=True))

    def stop(self):
        for p in self.procs:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except OSError:
                pass
            p.wait()
        self.procs = []


# the loaded/ group: a short e2e subset again under CpuLoad on every run,
# the tests that once asserted more than the machine's spare CPU allows
LOADED_TESTS = (
    "e2e/forward/vm_to_wire_1500", "e2e/forward/wire_to_vm_64",
    "e2e/offload/tso_toward_wire", "e2e/offload/gro_toward_vm_heavy_4_flows",
    "e2e/gro/1024_flows_in_a_1024_flow_table", "e2e/gro/corrupted_segment_reaches_the_vm_unmerged",
    "e2e/gen/tcp_timestamps_merged_toward_vm", "e2e/reconnect/",
)
# ... of them, those run on --vhost-path lib (loaded/lib-path/e2e/...)
LOADED_LIB_PATH = ("e2e/reconnect/",)
LOADED_SECS = 1800


def loaded_name(name):
    """loaded/<name>, or loaded/lib-path/<name> for the lib path's."""
    lib = any(name.startswith(t) for t in LOADED_LIB_PATH)
    return ("loaded/lib-path/" if lib else "loaded/") + name, lib


def run_loaded(mods, filters):
    tests = [loaded_name("e2e/%s/%s" % (g, f[5:])) + (getattr(mod, f),) for g, mod, fs in mods
             for f in fs if any(("e2e/%s/%s" % (g, f[5:])).startswith(t) for t in LOADED_TESTS)]
    tests = [t for t in tests if wanted(t[0], filters)]
    if not tests:
        return
    print("     loaded: %d tests with a busy loop on each of %d CPUs"
          % (len(tests), len(os.sched_getaffinity(0))), flush=True)
    load = CpuLoad(LOADED_SECS)
    saved = os.environ.get("VFWD_VHOST_PATH")
    try:
        for name, lib, fn in tests:
            if lib:
                os.environ["VFWD_VHOST_PATH"] = "lib"
            elif saved is None:
                os.environ.pop("VFWD_VHOST_PATH", None)
            else:
                os.environ["VFWD_VHOST_PATH"] = saved
            run_e2e_test(name, fn)
    finally:
        load.stop()
        if saved is None:
            os.environ.pop("VFWD_VHOST_PATH", None)
        else:
            os.environ["VFWD_VHOST_PATH"] = saved


# ------------------------------------------------------- other releases

# Debian roots of the releases whose DPDK differs from this machine's
# (test/chroot/root.sh: debootstrap, kept in /var/cache/vfwd-roots): set
# up there by usertools/setup.sh as a user would, built with -Dwerror=true,
# and these tests run there by the same runner; each result comes back as
# SUITE/<its name>. VFWD_NO_CHROOT=1 leaves them out; 'trixie/e2e/gro/'
# runs only that there.
CHROOT_RUNS = (
    ("trixie", "DPDK 24.11", "tests", "VFWD_NO_ASAN=1 VFWD_NO_FUZZ=1",
     ["unit/", "^e2e/forward/", "^e2e/offload/", "^e2e/gro/", "^e2e/default/",
      "^e2e/jumbo/", "^e2e/notify/", "^e2e/latency/"]),
    ("sid", "DPDK 25.11", "demo", "", ["unit/"]),
)
CHROOT_SECS = int(os.environ.get("VFWD_CHROOT_SECS", "1500"))
RESULT_LINE = re.compile(r"^(PASS|FAIL|SKIP) (\S+)")


def run_chroot(filters):
    for suite, dpdk, purpose, env, inner in CHROOT_RUNS:
        # only when no filter is given or one names the suite ('trixie',
        # 'trixie/e2e/gro/'): a plain 'forward' means this machine's
        mine = [f.lstrip("^") for f in filters
                if f.lstrip("^") == suite or f.lstrip("^").startswith(suite + "/")]
        if filters and not mine:
            continue
        sel = ["^" + f[len(suite) + 1:] for f in mine if f[len(suite) + 1:]] or inner
        if os.environ.get("VFWD_NO_CHROOT"):
            skip(suite + "/", "VFWD_NO_CHROOT set")
            continue
        cmd = ("VFWD_MESON_ARGS=-Dwerror=true %s bash usertools/setup.sh %s >setup.log 2>&1"
               " || { tail -n 40 setup.log; echo SETUP-FAILED; exit 1; };"
               " echo \"DPDK $(pkg-config --modversion libdpdk)\";"
               " %s python3 test/runner.py %s" % (env, purpose, env, " ".join(sel)))
        print("     %s (%s): a Debian root, set up, built with -Dwerror=true, then %s"
              % (suite, dpdk, " ".join(sel)), flush=True)
        before = snapshot()
        t0 = time.monotonic()
        seen, said, closing = 0, [], None
        proc = subprocess.Popen(["bash", os.path.join(HERE, "chroot", "root.sh"), suite, "run", cmd],
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                errors="replace", start_new_session=True)
        # the whole run bounded, even one that stops printing: SIGTERM to
        # its group first, so that root.sh unmounts what it mounted
        expired = threading.Event()

        def expire():
            expired.set()
            for sig in (signal.SIGTERM, signal.SIGKILL):
                try:
                    os.killpg(proc.pid, sig)
                    proc.wait(timeout=10)
                    return
                except (OSError, subprocess.TimeoutExpired):
                    pass

        timer = threading.Timer(CHROOT_SECS, expire)
        timer.start()
        detail_of = None
        for line in proc.stdout:
            line = line.rstrip("\n")
            m = RESULT_LINE.match(line)
            if m:
                kind, name = m.group(1), "%s/%s" % (suite, m.group(2))
                seen += 1
                rest = line[m.end():].strip()
                if kind == "SKIP":
                    skip(name, rest.strip("()"))
                else:
                    secs = re.search(r"([\d.]+)s$", rest)
                    report(name, kind == "PASS", float(secs.group(1)) if secs else 0.0)
                detail_of = name if kind == "FAIL" else None
            elif detail_of and line.startswith("     "):
                print(line, flush=True)
            elif re.match(r"^\d+ passed, \d+ failed", line):
                closing = line
            elif line.startswith("DPDK "):
                print("     %s: %s" % (suite, line), flush=True)
            else:
                said.append(line)
                said = said[-60:]
        rc = proc.wait()
        timer.cancel()
        if expired.is_set():
            report("%s(run)" % suite, False, time.monotonic() - t0,
                   "did not finish within %d s (VFWD_CHROOT_SECS)\n%s" % (CHROOT_SECS,
                                                                       "\n".join(said[-20:])))
            check_leftovers(suite, before)
            continue
        secs = time.monotonic() - t0
        if rc != 0 and (not seen or closing is None):
            report("%s(run)" % suite, False, secs, "exit %d after %d results\n%s"
                   % (rc, seen, "\n".join(said[-40:])))
        elif not seen:
            report("%s(run)" % suite, False, secs, "no test ran\n" + "\n".join(said[-40:]))
        else:
            print("     %s: %s (%.0f s in all)" % (suite, closing, secs), flush=True)
        check_leftovers(suite, before, secs)


def main():
    # a runner told to stop (timeout(1), a cancelled CI job) unwinds as a
    # failing test does: each Env cleans up what it started, nothing is
    # left polling a CPU
    signal.signal(signal.SIGTERM, lambda sig, frame: sys.exit(128 + sig))
    under_load = "--under-load" in sys.argv[1:]
    filters = [a for a in sys.argv[1:] if a != "--under-load"]
    # every process a test starts inherits it (see _ours)
    key, value = RUN_TOKEN.split("=", 1)
    os.environ[key] = value
    os.environ["VFWD_RUN_PID"] = str(vfwdtest.RUN_PID)
    mods = load_e2e(filters)
    units = [os.path.splitext(os.path.basename(p))[0]
             for p in glob.glob(os.path.join(HERE, "unit", "test_*.c"))]
    e2e_names = ["e2e/%s/%s" % (g, f[5:]) for g, _, fs in mods for f in fs]
    e2e_names += ["lib-path/e2e/%s/%s" % (g, f[5:]) for g, _, fs in mods if g in LIB_PATH_GROUPS
                  for f in fs]
    asan_e2e = ["asan-e2e/%s/%s" % (g, f[5:]) for g, _, fs in mods if g in ASAN_E2E_GROUPS
                for f in fs]
    fuzz = ["fuzz/" + os.path.splitext(os.path.basename(p))[0][5:]
            for p in glob.glob(os.path.join(HERE, "fuzz", "fuzz_*.c"))]
    asan_units = ["asan/" + u for u in units]
    need = [
        (BUILD, any_wanted(["unit/" + u for u in units] + e2e_names + asan_e2e +
                           [loaded_name(n)[0] for n in e2e_names], filters), True),
        (ASAN_BUILD, any_wanted(asan_units + asan_e2e, filters) and not os.environ.get("VFWD_NO_ASAN"), False),
        (FUZZ_BUILD, any_wanted(fuzz, filters) and not os.environ.get("VFWD_NO_FUZZ"), False),
    ]
    broken = set()
    for path, needed, required in need:
        if not needed:
            continue
        label = os.path.basename(path)
        if not os.path.isdir(path):
            if required:
                report("%s(build)" % label, False, 0, "no %s: run usertools/setup.sh" % label)
                broken.add(path)
            continue  # the optional builds' tests say SKIP or FAIL themselves
        why = prepare_build(path)
        if why:
            report("%s(build)" % label, False, 0, why)
            broken.add(path)
    # --under-load: the whole run (the builds are ready) beside a busy loop
    # on every CPU, the chroot suites included
    load = CpuLoad(6 * 3600) if under_load else None
    try:
        run_all(mods, filters, broken, under_load)
    finally:
        if load:
            load.stop()
    if failures:
        print("failed: " + " ".join(failures))
    print("%d passed, %d failed%s" % (passed, failed, ", %d skipped" % skipped if skipped else ""),
          flush=True)
    return 1 if failed or not passed else 0


def run_all(mods, filters, broken, under_load):
    if BUILD not in broken:
        if ASAN_BUILD in broken:
            run_unit_build("unit", BUILD, filters)
        else:
            run_unit(filters)
    elif ASAN_BUILD not in broken:
        run_unit_build("asan", ASAN_BUILD, filters)
    if FUZZ_BUILD not in broken:
        run_fuzz(filters)
    if BUILD not in broken:
        run_e2e(mods, filters)
        run_lib_path_e2e(mods, filters)
        if ASAN_BUILD not in broken:
            run_asan_e2e(mods, filters)
        if not under_load:  # under load, every test already was
            run_loaded(mods, filters)
    run_chroot(filters)


if __name__ == "__main__":
    sys.exit(main())
