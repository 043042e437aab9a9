#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Everything dpdk-vfwd needs on a fresh Debian 12 machine, as root:
# packages (QEMU, a kernel and busybox are for the real-guest tests; gnuplot
# and OVS-DPDK for the perf runs' plots and baseline, iperf3 for their
# real-guest cells),
# 2 MB hugepages, the build. Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."

# The PMDs are only "Recommends" of the dpdk package: name the ones we use.
PACKAGES="dpdk dpdk-dev libdpdk-dev meson ninja-build pkg-config gcc python3 iproute2
	iputils-ping coreutils librte-mempool-ring23 librte-net-vhost23 librte-net-virtio23
	librte-net-memif23 librte-net-tap23 librte-net-null23 librte-net-af-packet23
	librte-net-pcap23
	qemu-system-x86 linux-image-amd64 busybox-static cpio xz-utils tcpdump clang
	libc6-dev ethtool
	gnuplot-nox openvswitch-switch-dpdk iperf3"
HUGEPAGES=${VFWD_HUGEPAGES:-1024}   # 2 MB pages: 2 GB

if [ "$(id -u)" != 0 ]; then
	echo "setup: run as root (packages, hugepages, taps and vhost sockets need it)" >&2
	exit 1
fi

missing=""
for p in $PACKAGES; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ] && [ -n "${VFWD_NO_APT:-}" ]; then
	# a machine without the Debian mirror (bench/device.sh): go on with
	# what is there; what needs the missing packages will say so
	echo "setup: VFWD_NO_APT set: not installing$missing"
elif [ -n "$missing" ]; then
	echo "setup: installing$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq $missing >/dev/null
fi

mkdir -p /dev/hugepages
mountpoint -q /dev/hugepages || mount -t hugetlbfs nodev /dev/hugepages
nr=/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages
if [ "$(cat $nr)" -lt "$HUGEPAGES" ]; then
	echo "$HUGEPAGES" > $nr
fi
if [ "$(cat $nr)" -lt "$HUGEPAGES" ]; then
	echo "setup: could only reserve $(cat $nr) of $HUGEPAGES 2 MB hugepages" >&2
	exit 1
fi

if [ ! -f build/build.ninja ]; then
	meson setup build >/dev/null
fi
ninja -C build >/dev/null
# The unit tests again under AddressSanitizer and UndefinedBehaviorSanitizer,
# and a dpdk-vfwd built so (what test/run.sh runs as asan/... and
# asan-e2e/...); leave out with VFWD_NO_ASAN=1 (the runner then skips them,
# in CI too).
if [ -z "${VFWD_NO_ASAN:-}" ]; then
	if [ ! -f build-asan/build.ninja ]; then
		meson setup build-asan -Db_sanitize=address,undefined -Db_lundef=false \
			-Dbuildtype=debugoptimized >/dev/null
	fi
	ninja -C build-asan >/dev/null
	if [ ! -x build-asan/app/dpdk-vfwd ]; then
		echo "setup: build-asan has no app/dpdk-vfwd" >&2
		exit 1
	fi
else
	echo "setup: VFWD_NO_ASAN set: no build-asan, asan/ and asan-e2e/ tests skip"
fi
# The libFuzzer targets (clang; test/run.sh runs each for VFWD_FUZZ_SECS);
# skip with VFWD_NO_FUZZ=1.
if [ -z "${VFWD_NO_FUZZ:-}" ]; then
	if [ ! -f build-fuzz/build.ninja ]; then
		CC=clang meson setup build-fuzz -Dfuzz=true -Db_sanitize=address,undefined \
			-Db_lundef=false -Dbuildtype=debugoptimized >/dev/null
	fi
	ninja -C build-fuzz >/dev/null
else
	echo "setup: VFWD_NO_FUZZ set: no build-fuzz, fuzz/ tests skip"
fi
echo "setup: built build/app/dpdk-vfwd; $(grep HugePages_Free /proc/meminfo | tr -s ' ')"
