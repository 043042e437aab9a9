#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Runs every test: the unit test binaries (TAP, one result per case) and
the end-to-end tests in test/e2e/test_*.py (one result per function).
Ends with the line 'N passed, N failed'. Arguments filter tests by name."""

import glob
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import vfwdtest  # noqa: E402

passed, failed = 0, 0
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


def wanted(name, filters):
    return not filters or any(f in name for f in filters)


def run_unit(filters):
    builds = [("unit", vfwdtest.BUILD)]
    asan = os.path.join(os.path.dirname(vfwdtest.BUILD), "build-asan")
    if os.path.isdir(os.path.join(asan, "test", "unit")):
        builds.append(("asan", asan))
    env = dict(os.environ,
               ASAN_OPTIONS="detect_leaks=0:abort_on_error=1",
               UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1")
    for label, build in builds:
        for exe in sorted(glob.glob(os.path.join(build, "test", "unit", "test_*"))):
            if not os.access(exe, os.X_OK) or os.path.isdir(exe):
                continue
            base = "%s/%s" % (label, os.path.basename(exe))
            if not wanted(base, filters):
                continue
            t0 = time.monotonic()
            try:
                r = subprocess.run([exe], capture_output=True, text=True, timeout=300, env=env)
                out, err, rc = r.stdout, r.stderr, r.returncode
            except subprocess.TimeoutExpired:
                out, err, rc = "", "timed out after 300 s", -1
            secs = time.monotonic() - t0
            cases = re.findall(r"^(ok|not ok) \d+ - (\S+)", out, re.M)
            if not cases:
                report(base, False, secs, "no TAP output (rc=%d)\n%s" % (rc, err[-2000:]))
                continue
            for status, case in cases:
                msgs = "\n".join(l for l in err.splitlines() if case in l or "CHECK" in l)
                report("%s/%s" % (base, case), status == "ok", secs / len(cases),
                       msgs if status != "ok" else "")
            if rc != 0 and all(s == "ok" for s, _ in cases):
                report("%s(exit)" % base, False, secs, "exit code %d\n%s" % (rc, err[-3000:]))
    # the EAL-based unit tests leave an empty runtime directory each
    for d in glob.glob("/var/run/dpdk/vfwd-unit-*"):
        shutil.rmtree(d, ignore_errors=True)


def run_fuzz(filters):
    """Each libFuzzer target for VFWD_FUZZ_SECS (30) seconds from the corpus
    kept in test/fuzz/corpus, new inputs into a scratch directory."""
    build = os.path.join(os.path.dirname(vfwdtest.BUILD), "build-fuzz")
    secs = int(os.environ.get("VFWD_FUZZ_SECS", "30"))
    for exe in sorted(glob.glob(os.path.join(build, "test", "fuzz", "fuzz_*"))):
        if not os.access(exe, os.X_OK) or os.path.isdir(exe):
            continue
        target = os.path.basename(exe)[5:]
        name = "fuzz/" + target
        if not wanted(name, filters):
            continue
        corpus = os.path.join(HERE, "fuzz", "corpus", target)
        scratch = tempfile.mkdtemp(prefix="vfwd-fuzz-")
        t0 = time.monotonic()
        try:
            r = subprocess.run([exe, "-max_total_time=%d" % secs, "-rss_limit_mb=4096",
                                "-print_final_stats=1", "-close_fd_mask=3", scratch, corpus],
                               capture_output=True, text=True, timeout=secs + 120,
                               env=dict(os.environ, ASAN_OPTIONS="detect_leaks=0"))
            runs = re.search(r"stat::number_of_executed_units:\s+(\d+)", r.stderr)
            ok = r.returncode == 0 and runs is not None
            report(name, ok, time.monotonic() - t0,
                   "" if ok else "exit %d\n%s" % (r.returncode, r.stderr[-3000:]))
            if ok:
                print("     %s executions" % runs.group(1), flush=True)
        except subprocess.TimeoutExpired:
            report(name, False, time.monotonic() - t0, "did not stop")
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
            for d in glob.glob("/var/run/dpdk/vfwd-fuzz-*"):
                shutil.rmtree(d, ignore_errors=True)


def run_e2e(filters):
    for path in sorted(glob.glob(os.path.join(HERE, "e2e", "test_*.py"))):
        modname = os.path.splitext(os.path.basename(path))[0]
        spec = importlib.util.spec_from_file_location(modname, path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        for fname in sorted(n for n in dir(mod) if n.startswith("test_")):
            name = "e2e/%s/%s" % (modname[5:], fname[5:])
            if not wanted(name, filters):
                continue
            t0 = time.monotonic()
            try:
                getattr(mod, fname)()
                report(name, True, time.monotonic() - t0)
            except vfwdtest.TestFailure as e:
                report(name, False, time.monotonic() - t0, str(e))
            except Exception:
                report(name, False, time.monotonic() - t0, traceback.format_exc())


def main():
    filters = sys.argv[1:]
    run_unit(filters)
    run_fuzz(filters)
    run_e2e(filters)
    if failures:
        print("failed: " + " ".join(failures))
    print("%d passed, %d failed" % (passed, failed), flush=True)
    return 1 if failed or not passed else 0


if __name__ == "__main__":
    sys.exit(main())
