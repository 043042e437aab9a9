#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# What dpdk-vfwd needs on a fresh Debian machine (12, 13 or sid: DPDK 22.11,
# 24.11 or 25.11), as root, by purpose:
#
#   usertools/setup.sh demo    DPDK, the build tools, 2 MB hugepages, build/
#   usertools/setup.sh tests   (the default) + QEMU, a guest kernel, busybox,
#                              clang, tcpdump, iperf3, gnuplot; build-asan
#                              and build-fuzz (VFWD_NO_ASAN=1, VFWD_NO_FUZZ=1
#                              leave them out)
#   usertools/setup.sh perf    + OVS-DPDK (the perf runs' baseline)
#
# VFWD_MESON_ARGS (e.g. -Dwerror=true) is given to every build folder.
# Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."

PURPOSE=${1:-tests}
case "$PURPOSE" in
demo | tests | perf) ;;
-h | --help)
	sed -n '3,14p' "$0" | sed 's/^# \{0,1\}//'
	exit 0
	;;
*)
	echo "setup: unknown purpose '$PURPOSE' (demo, tests or perf)" >&2
	exit 2
	;;
esac
HUGEPAGES=${VFWD_HUGEPAGES:-1024}   # 2 MB pages: 2 GB

if [ "$(id -u)" != 0 ]; then
	echo "setup: run as root (packages, hugepages, taps and vhost sockets need it)" >&2
	exit 1
fi

installed() {
	dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"
}

apt_updated=""
apt_update() {
	[ -n "$apt_updated" ] && return 0
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt_updated=1
}

# The ABI number the PMD packages carry (22.11: 23, 24.11: 25, 25.11: 26):
# that of the librte-ethdev the installed libdpdk-dev depends on, else
# of the one apt would install with it. Never written down here, so that
# every release Debian ships is set up the same way.
abi_of_candidate() {
	apt-cache depends libdpdk-dev 2>/dev/null |
		sed -n 's/^ *Depends: librte-ethdev\([0-9][0-9.]*\)$/\1/p' | head -n 1
}
dpdk_abi() {
	local abi
	abi=$(dpkg-query -W -f='${Package}\n' 'librte-ethdev*' 2>/dev/null |
		sed -n 's/^librte-ethdev\([0-9][0-9.]*\)$/\1/p' | sort -V | tail -n 1)
	if [ -n "$abi" ] && installed "librte-ethdev$abi"; then
		echo "$abi"
		return
	fi
	abi=$(abi_of_candidate)
	if [ -z "$abi" ] && [ -z "${VFWD_NO_APT:-}" ]; then
		apt_update
		abi=$(abi_of_candidate)
	fi
	echo "$abi"
}

ABI=$(dpdk_abi)
if [ -z "$ABI" ]; then
	echo "setup: apt offers no libdpdk-dev here (no librte-ethdevNN to take the DPDK ABI from)" >&2
	exit 1
fi

# The PMDs are only "Recommends" of the dpdk package: name the ones we use.
PMDS=""
for pmd in mempool-ring net-vhost net-virtio net-memif net-tap net-null net-af-packet net-pcap; do
	PMDS="$PMDS librte-$pmd$ABI"
done
PACKAGES="dpdk dpdk-dev libdpdk-dev meson ninja-build pkg-config gcc libc6-dev python3
	iproute2 coreutils $PMDS"
if [ "$PURPOSE" != demo ]; then
	# the real-guest tests (QEMU, a kernel, busybox, cpio for its
	# initramfs, iperf3 inside it), the fuzz build (clang), the captures,
	# the perf harness's plots
	PACKAGES="$PACKAGES qemu-system-x86 linux-image-amd64 busybox-static cpio xz-utils
		tcpdump clang libclang-rt-dev ethtool iputils-ping iperf3 gnuplot-nox"
fi
if [ "$PURPOSE" = perf ]; then
	PACKAGES="$PACKAGES openvswitch-switch-dpdk"
fi

missing=""
for p in $PACKAGES; do
	installed "$p" || missing="$missing $p"
done
if [ -n "$missing" ] && [ -n "${VFWD_NO_APT:-}" ]; then
	# a machine without the Debian mirror (bench/device.sh): go on with
	# what is there; what needs the missing packages will say so
	echo "setup: VFWD_NO_APT set: not installing$missing"
elif [ -n "$missing" ]; then
	echo "setup: installing$missing"
	apt_update
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

# configure DIR [meson options]: set up once with them; VFWD_MESON_ARGS
# applied again to a folder that is there already
configure() {
	local dir=$1
	shift
	# shellcheck disable=SC2086
	if [ ! -f "$dir/build.ninja" ]; then
		meson setup "$dir" "$@" ${VFWD_MESON_ARGS:-} >/dev/null
	elif [ -n "${VFWD_MESON_ARGS:-}" ]; then
		meson configure "$dir" ${VFWD_MESON_ARGS} >/dev/null
	fi
	ninja -C "$dir" >/dev/null
}

configure build
echo "setup: DPDK $(pkg-config --modversion libdpdk) (ABI $ABI), built build/app/dpdk-vfwd"
if [ "$PURPOSE" = demo ]; then
	echo "setup: $(grep HugePages_Free /proc/meminfo | tr -s ' ')"
	exit 0
fi
# The unit tests again under AddressSanitizer and UndefinedBehaviorSanitizer,
# and a dpdk-vfwd built so (what test/run.sh runs as asan/... and
# asan-e2e/...); leave out with VFWD_NO_ASAN=1 (the runner then skips them,
# in CI too).
if [ -z "${VFWD_NO_ASAN:-}" ]; then
	configure build-asan -Db_sanitize=address,undefined -Db_lundef=false \
		-Dbuildtype=debugoptimized
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
	CC=clang configure build-fuzz -Dfuzz=true -Db_sanitize=address,undefined \
		-Db_lundef=false -Dbuildtype=debugoptimized
else
	echo "setup: VFWD_NO_FUZZ set: no build-fuzz, fuzz/ tests skip"
fi
echo "setup: $(grep HugePages_Free /proc/meminfo | tr -s ' ')"
