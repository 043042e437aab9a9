#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# dpdk-vfwd built against this machine's DPDK (Debian 12: 22.11) against
# the same tree built in a Debian 13 root (24.11, test/chroot/root.sh),
# side by side: 64 B frames vm->wire (a virtio-user peer in txonly into
# net_vhost, out to net_null) and wire->vm (net_null's endless rx into
# net_vhost, a virtio-user peer in rxonly), busy cycles per packet of the
# forwarding lcore (median of its one-second periods), interleaved rounds,
# median and min-max. wire->vm is unpaced: most of what net_null gives is
# dropped (tx_full), so its figure is per packet taken, drops included.
#
#   bench/dpdk_versions.sh [rounds] [seconds]      (defaults 5, 5)
#   bench/dpdk_versions.sh cell vm2wire|wire2vm S  one cell, here: prints cycles/pkt
#
# Both builds must be there (usertools/setup.sh here, test/run.sh trixie/
# there). A benchmark, not a test: run it alone on the machine.
set -euo pipefail
cd "$(dirname "$0")/.."

cell() {
	local dir=$1 secs=$2 tag=vfwd-vbench-$$ sock log peer_mode null_args
	sock=/tmp/$tag.sock
	log=$(mktemp /tmp/vfwd-vbench.XXXXXX)
	peer_mode=$([ "$dir" = vm2wire ] && echo txonly || echo rxonly)
	# vm->wire: net_null's rx would flood the other direction
	null_args=$([ "$dir" = vm2wire ] && echo ",no-rx=1" || true)
	local vfwd_pid="" peer_pid=""
	trap 'kill $peer_pid $vfwd_pid 2>/dev/null || true; wait 2>/dev/null || true; rm -f "$sock" "$log";
		rm -rf /var/run/dpdk/$tag /var/run/dpdk/$tag-peer; rm -f /dev/hugepages/$tag*' RETURN
	# the forwarding lcore alone on CPU 1; mains and the peer on CPU 0
	build/app/dpdk-vfwd --lcores "0@0,1@1" --no-pci --in-memory --file-prefix "$tag" \
		--vdev "net_vhost0,iface=$sock" --vdev "net_null0$null_args" --log-level=lib.vhost.config:error \
		-- --duration $((secs + 4)) --stats-period 1 >"$log" 2>&1 &
	vfwd_pid=$!
	for _ in $(seq 100); do [ -S "$sock" ] && break; sleep 0.05; done
	timeout -s INT $((secs + 2)) dpdk-testpmd --lcores "0@0,1@0" --no-pci --in-memory \
		--single-file-segments --file-prefix "$tag-peer" \
		--vdev "net_virtio_user0,path=$sock" -- --forward-mode=$peer_mode --nb-cores=1 \
		--txpkts=64 --stats-period 1 </dev/null >/dev/null 2>&1 &
	peer_pid=$!
	wait "$vfwd_pid" || true
	vfwd_pid=""
	[ -n "${VBENCH_DEBUG:-}" ] && cat "$log" >&2
	# each second's report has "lcore 1 ... (period: busy B%, cycles/pkt C)":
	# the median of those with the peer there all second (not the first
	# two, nor the last two, nor the final report's)
	sed -n "1,/final stats/p" "$log" | awk '/^lcore 1 / { print $NF + 0 }' | sed '1,2d;$d' |
		sed '$d' | sort -g | awk '{ v[NR] = $1 } END {
		if (!NR) print "nan"; else print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'
}

if [ "${1:-}" = cell ]; then
	cell "$2" "${3:-5}"
	exit 0
fi

ROUNDS=${1:-5}
SECS=${2:-5}
declare -A res
for r in $(seq "$ROUNDS"); do
	for dir in vm2wire wire2vm; do
		host=$(cell "$dir" "$SECS")
		chroot=$(bash test/chroot/root.sh trixie run "bash bench/dpdk_versions.sh cell $dir $SECS" |
			tail -n 1)
		echo "round $r $dir: 22.11 $host, 24.11 $chroot cycles/pkt"
		res[$dir.22]="${res[$dir.22]:-} $host"
		res[$dir.24]="${res[$dir.24]:-} $chroot"
	done
done
stat() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{ v[NR] = $1 } END {
	m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
	printf "%.1f (%.1f-%.1f)", m, v[1], v[NR] }'; }
echo
echo "| direction | 22.11 cycles/pkt | 24.11 cycles/pkt | 24.11 / 22.11 |"
echo "|---|---|---|---|"
for dir in vm2wire wire2vm; do
	a=$(echo "${res[$dir.22]}" | stat)
	b=$(echo "${res[$dir.24]}" | stat)
	ratio=$(awk -v a="${a%% *}" -v b="${b%% *}" 'BEGIN { printf "%.3f", b / a }')
	echo "| $dir | $a | $b | $ratio |"
done
echo "(64 B, $ROUNDS interleaved rounds of ${SECS}s, at $(git rev-parse --short HEAD))"
