#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The one-command demo: set up, start dpdk-vfwd on its embedded default
# (a vhost-user socket and a kernel tap), attach a VM-side traffic peer
# (dpdk-testpmd with a virtio-user port, txonly) for a few seconds, print
# the stats. Usage: usertools/demo.sh [seconds]
set -euo pipefail
cd "$(dirname "$0")/.."
SECS=${1:-6}
bash usertools/setup.sh demo

prefix=vfwd-demo-$$
peer_prefix=vfwd-demo-peer-$$
vfwd_pid="" peer_pid=""
cleanup() {
	for pid in $peer_pid $vfwd_pid; do
		kill "$pid" 2>/dev/null && timeout 10 tail --pid="$pid" -f /dev/null || kill -9 "$pid" 2>/dev/null || true
	done
	rm -rf "/var/run/dpdk/$prefix" "/var/run/dpdk/$peer_prefix"
	rm -f /dev/hugepages/"$prefix"* /dev/hugepages/"$peer_prefix"*
}
trap cleanup EXIT

# Two CPUs: the forwarding lcore gets CPU 1 alone; the main lcores and the
# peer share CPU 0.
cpus=$(nproc)
worker_cpu=$(( cpus > 1 ? 1 : 0 ))
log=$(mktemp /tmp/vfwd-demo.XXXXXX)
build/app/dpdk-vfwd --lcores "0@0,1@$worker_cpu" --in-memory --no-pci --file-prefix "$prefix" \
	--log-level=lib.vhost.config:notice \
	-- --duration $((SECS + 4)) --stats-period 2 >"$log" 2>&1 &
vfwd_pid=$!
sock=""
for _ in $(seq 100); do
	sock=$(sed -n 's/.*vhost-user server socket \([^ ]*\) .*/\1/p' "$log")
	[ -n "$sock" ] && [ -S "$sock" ] && break
	kill -0 $vfwd_pid 2>/dev/null || { cat "$log"; exit 1; }
	sleep 0.1
done
sed -n '/^forwarding/,/^or a DPDK peer/p' "$log"
echo
echo "demo: sending 64-byte packets from a virtio-user peer for ${SECS}s ..."
timeout -s INT "$SECS" dpdk-testpmd --lcores "0@0,1@0" --in-memory --no-pci \
	--single-file-segments --file-prefix "$peer_prefix" \
	--vdev "net_virtio_user0,path=$sock" -- --forward-mode=txonly --nb-cores=1 \
	--stats-period 1 </dev/null >/dev/null 2>&1 &
peer_pid=$!
wait $vfwd_pid || true
vfwd_pid=""
sed -n '/^== dpdk-vfwd/,$p' "$log"
rm -f "$log"
