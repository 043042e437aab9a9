#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Mutation check of the test suite: each patch here puts one fault into
vfwd (a packet lost but counted as sent, a flipped byte, a stale eventfd,
...); the tests named for it must fail on the mutant. A test that still
passes cannot see the fault it claims to guard against.

    test/mutants/run.py            every mutant
    test/mutants/run.py NAME...    the mutants whose names contain NAME
    VFWD_MUTANT_TESTS=S ...        of their tests only those whose names contain S

Each mutant: the patch is applied to the tree, build-mutant/ is built, the
patch is reverted (always, even on error), then test/runner.py runs the
named tests against build-mutant (VFWD_BUILD). Not part of CI (about 15
minutes for all); the last run's table is in doc/testing.md.
"""

import fcntl
import os
import re
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HERE = os.path.join(ROOT, "test", "mutants")
BUILD = os.path.join(ROOT, "build-mutant")
LOCK = "/tmp/vfwd.lock"  # held while the tree carries a mutant and its tests run

# mutant -> the tests that must fail on it (runner.py name filters)
MUTANTS = {
    "drop-silent": ["e2e/forward/vm_to_wire_64", "e2e/forward/wire_to_vm_1500",
                    "e2e/gen/udp_both_directions",
                    "e2e/modes/switch_modes_under_traffic_vm_to_wire",
                    "e2e/offload/tso_toward_wire",
                    "e2e/soak", "e2e/malformed/malformed_frames",
                    "e2e/reconnect/reconnect_10_times",
                    "e2e/reconnect/fast_reconnects_100_in_napi_mode",
                    "e2e/guest/guest_vlan_ipv6_udp_guest_to_guest_in_napi_mode",
                    "e2e/guest/guest_vlan_ipv6_udp_guest_to_guest_with_latency_on"],
    # not the gen/ tests: their paced streams hold on a loaded machine by
    # accepting a loss vfwd counted as tx_full (vfwdtest.counted_loss),
    # which is what this mutant does
    "drop-counted": ["e2e/default/embedded_default"],
    "flip-payload": ["e2e/forward/vm_to_wire_1500", "e2e/modes/switch_modes_under_tcp",
                     "e2e/soak", "e2e/malformed/malformed_frames",
                     "e2e/malformed/lying_virtio_net_headers_from_a_guest",
                     "e2e/reconnect/reconnect_10_times",
                     "e2e/reconnect/fast_reconnects_100_in_napi_mode",
                     "e2e/guest/guest_vlan_ipv6_udp_guest_to_guest_in_napi_mode",
                     "e2e/guest/guest_vlan_ipv6_udp_guest_to_guest_with_latency_on"],
    "flip-header": ["e2e/forward/wire_to_vm_64", "e2e/modes/switch_modes_under_traffic_wire",
                    "e2e/soak", "e2e/malformed/malformed_frames",
                    "e2e/malformed/lying_virtio_net_headers_from_a_guest",
                    "e2e/reconnect/reconnect_10_times"],
    "adaptive-drops": ["e2e/modes/switch_modes_under_traffic_vm_to_wire",
                       "e2e/modes/switch_modes_under_traffic_wire_to_vm"],
    # after the first reconnect no rx interrupt ends a sleep: the worker
    # wakes only at its timeouts. (A stale eventfd cannot be made here: the
    # 22.11 vhost PMD gives each rx queue a proxy epoll fd that outlives
    # reconnects, and a new vring starts with notifications on.)
    "no-wake-after-reconnect": ["e2e/reconnect/fast_reconnects_100_in_napi_mode"],
    # one flow spread over the work lcores: with 1:1 the hash never runs
    "pipeline-spread": ["e2e/offload/gro_in_pipeline_2_work_lcores_keeps_flow_order"],
    # a refused guest TSO frame counted under the wrong cause
    "miscount-drop-cause": ["e2e/malformed/lying_virtio_net_headers_from_a_guest"],
    # the workers call the memif PMD whatever its gate says: a worker
    # paused inside rx while the PMD connects faults on a NULL region
    "memif-gate-open": ["e2e/vanish/memif_peer_connects_30_times_while_3_workers_poll_4_queues"],
    # vfwd's GRO engine: a PSH segment does not end its frame; a segment's
    # checksum not verified before it is merged; a segment that cannot
    # join sent before what its flow held
    "gro-psh-not-last": ["unit/test_gro/psh_ends_the_frame",
                         "e2e/gro/psh_every_4_by_engine_and_policy"],
    "gro-no-csum-check": ["unit/test_gro/bad_checksum_not_merged",
                          "e2e/gro/corrupted_segment_reaches_the_vm_unmerged"],
    "gro-flow-not-sent-first": ["unit/test_gro/gaps_and_retransmits",
                                "unit/test_gro/header_changes_start_a_frame",
                                "unit/test_gro/ipv4_ids", "unit/test_gro/segment_sizes",
                                "e2e/gro/injected_reorder_loss_dup_through_gro"],
    "crash-on-error": ["e2e/cli/bad_pair_port", "e2e/cli/needs_a_worker_lcore",
                       "e2e/security/default_socket_not_replaced"],
}


def sh(argv, **kw):
    return subprocess.run(argv, cwd=ROOT, **kw)


def build_mutant(name):
    patch = os.path.join(HERE, name + ".patch")
    if sh(["git", "apply", "--check", patch]).returncode != 0:
        return "the patch no longer applies"
    sh(["git", "apply", patch], check=True)
    try:
        if not os.path.exists(os.path.join(BUILD, "build.ninja")):
            sh(["meson", "setup", BUILD], check=True, stdout=subprocess.DEVNULL)
        r = sh(["ninja", "-C", BUILD], capture_output=True, text=True)
        if r.returncode != 0:
            return "build failed:\n" + r.stdout[-2000:]
    finally:
        sh(["git", "apply", "-R", patch], check=True)
    return None


def run_tests(tests):
    env = dict(os.environ, VFWD_BUILD=BUILD, VFWD_MUTANT="1")
    # '^': these tests only, not their asan-e2e/ twins
    r = sh([sys.executable, os.path.join(ROOT, "test", "runner.py")] + ["^" + t for t in tests],
           capture_output=True, text=True, env=env)
    results = dict((m.group(2), m.group(1)) for m in
                   re.finditer(r"^(PASS|FAIL|SKIP) (\S+)", r.stdout, re.M))
    return results, r.stdout


def main():
    names = [n for n in MUTANTS if not sys.argv[1:] or any(a in n for a in sys.argv[1:])]
    # VFWD_MUTANT_TESTS=reconnect: of each mutant's tests only those
    only = os.environ.get("VFWD_MUTANT_TESTS")
    if only:
        for n in names:
            MUTANTS[n] = [t for t in MUTANTS[n] if only in t]
        names = [n for n in names if MUTANTS[n]]
    missed = []
    rows = []
    for name in names:
        t0 = time.monotonic()
        # the lock keeps other builds off the patched tree, and other test
        # runs off the CPUs while the mutant's tests run
        with open(LOCK, "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            err = build_mutant(name)
            if err:
                print("%s: %s" % (name, err), flush=True)
                missed.append(name)
                continue
            results, out = run_tests(MUTANTS[name])
        for test in MUTANTS[name]:
            got = {k: v for k, v in results.items() if test in k and not k.startswith("asan")}
            if not got:
                rows.append((name, test, "NOT RUN"))
                missed.append("%s %s" % (name, test))
                continue
            for k, v in sorted(got.items()):
                caught = v == "FAIL"
                rows.append((name, k, "caught" if caught else "MISSED"))
                if not caught:
                    missed.append("%s %s" % (name, k))
        print("%s: %.0f s" % (name, time.monotonic() - t0), flush=True)
        for r in rows:
            if r[0] == name:
                print("  %-16s %-55s %s" % r, flush=True)
        # the first failure message of each caught test, for the record
        for m in re.finditer(r"^FAIL (\S+)\s+[\d.]+s\n((?:     .*\n){1,2})", out, re.M):
            print("    %s: %s" % (m.group(1), m.group(2).strip().splitlines()[0][:200]))
    print("%d mutants, %d tests missed a fault%s" % (len(names), len(missed),
                                                     (": " + "; ".join(missed)) if missed else ""))
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
