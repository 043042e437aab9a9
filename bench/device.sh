#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The perf runs on a big machine (16 cores), in one go of under 9 minutes,
# every result under $OUT (default results/device-<time>):
#   machine.txt     what ran it (CPUs, kernel, DPDK, the commit)
#   suite/          bench/perf.py on every scenario of the generator's
#                   topology but gro (its merge factors do not need the
#                   CPUs), the generator on 2 CPUs of its own, so that the
#                   pipeline (003) and the baselines get CPUs of theirs
#   scale/          config/perf/scale.toml: 1, 2, 4, 8 workers, --rxq N,
#                   the generator on 4 CPUs
#   guest/          the real-guest cells of 003 (QEMU; KVM when it boots)
#   device.log      all of it as it ran
# Each step has its own time limit and one that fails does not stop the
# next. Run as root from the repository root: bench/device.sh
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-results/device-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$OUT"
exec > >(tee "$OUT/device.log") 2>&1
t0=$(date +%s)
elapsed() { echo $(( $(date +%s) - t0 )); }

{
	echo "date: $(date -u +%FT%TZ)"
	echo "commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet 2>/dev/null || echo ' (with uncommitted changes)')"
	echo "cpus: $(nproc)"
	lscpu 2>/dev/null | grep -E '^(Model name|Socket|Core|Thread|NUMA node\(s\))'
	echo "kernel: $(uname -r)"
	echo "dpdk: $(pkg-config --modversion libdpdk 2>/dev/null || echo none)"
} > "$OUT/machine.txt"
cat "$OUT/machine.txt"

# set-up: packages, hugepages, build (a machine without the Debian mirror
# can still run what is already built)
# (no sanitizer or fuzz builds: nothing here runs them)
export VFWD_NO_ASAN=1 VFWD_NO_FUZZ=1
if ! timeout 90 bash usertools/setup.sh > "$OUT/setup.log" 2>&1; then
	echo "device: set-up failed after $(elapsed) s, again without apt (see setup.log):"
	tail -3 "$OUT/setup.log"
	VFWD_NO_APT=1 timeout 90 bash usertools/setup.sh >> "$OUT/setup.log" 2>&1
fi
if [ ! -x build/app/dpdk-vfwd ] || [ ! -x build/gen/dpdk-vfwd-gen ]; then
	echo "device: no build of dpdk-vfwd and dpdk-vfwd-gen: nothing to run"
	exit 1
fi
if [ "$(nproc)" -lt 12 ]; then
	echo "device: $(nproc) CPUs: the tables will say where lcores share them"
fi

step() {  # step NAME LIMIT_S perf.py-arguments...
	local name=$1 limit=$2
	shift 2
	echo "device: $name (at most $limit s), started at $(elapsed) s"
	# perf.py cleans up on SIGTERM and writes its tables after every
	# round, so a step cut short keeps the rounds it finished
	timeout --kill-after=10 "$limit" python3 bench/perf.py --out "$OUT/$name" "$@"
	echo "device: $name rc $? at $(elapsed) s"
}

# limits: set-up 90 (180 without the mirror) + 250 + 70 + 70 s, under 9 minutes
step suite 250 --scenarios 000,001,002,003,burst,latency,ratio --topology gen \
	--secs 1 --rounds 2 --gen-cpus 2
step scale 70 --scenarios scale --secs 2 --rounds 3 --gen-cpus 4
if python3 -c 'import sys; sys.path[:0] = ["test", "bench"]; import guest_perf; sys.exit(not guest_perf.have_tools()[0])' 2>/dev/null; then
	step guest 70 --scenarios 003 --topology guest --rounds 1 --no-baselines
else
	echo "device: no guest cells (QEMU, a kernel, busybox or iperf3 missing)"
fi
echo "device: done in $(elapsed) s; results in $OUT"
