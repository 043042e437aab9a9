#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# A Debian root of another release on this machine, to build and test
# dpdk-vfwd against the DPDK that release ships (trixie: 24.11, sid: 25.11).
#
#   test/chroot/root.sh SUITE make         make it (debootstrap minbase), once
#   test/chroot/root.sh SUITE run CMD...   make it, copy this tree into it
#                                          (/root/vfwd, its build folders
#                                          kept), run CMD there under bash
#   test/chroot/root.sh SUITE path         print where it is
#
# Roots live in $VFWD_ROOTS (/var/cache/vfwd-roots), kept between runs and
# made again when missing or half made. The mirror is the one this machine's
# apt uses; none is written here. /proc, /sys and /dev (with the host's
# hugetlbfs) are mounted for CMD (on the root bound onto itself) and
# unmounted after it, whatever it did.
# The root shares the host's network namespace and hugepage pool.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
TREE=$(cd "$HERE/../.." && pwd)

SUITE=${1:-}
ACTION=${2:-}
case "$SUITE" in
trixie | sid | bookworm | forky) ;;
*)
	echo "usage: $0 trixie|sid make|run CMD...|path" >&2
	exit 2
	;;
esac
shift 2 || true
ROOTS=${VFWD_ROOTS:-/var/cache/vfwd-roots}
ROOT=$ROOTS/$SUITE
MARK=$ROOT/.vfwd-root-ready

if [ "$(id -u)" != 0 ]; then
	echo "root.sh: run as root (debootstrap, chroot, mounts)" >&2
	exit 1
fi

# The Debian mirror this machine's apt uses: the first URI of a deb source
# serving a main Debian suite (not -security).
host_mirror() {
	local uri=""
	if compgen -G "/etc/apt/sources.list.d/*.sources" >/dev/null; then
		uri=$(awk '
			/^URIs:/ { u = $2 }
			/^Suites:/ { for (i = 2; i <= NF; i++) if ($i !~ /-security/) s = 1 }
			/^$/ { if (u != "" && s) { print u; exit } u = ""; s = 0 }
			END { if (u != "" && s) print u }' /etc/apt/sources.list.d/*.sources | head -n 1)
	fi
	if [ -z "$uri" ] && [ -f /etc/apt/sources.list ]; then
		uri=$(awk '$1 == "deb" && $3 !~ /-security/ { print ($2 ~ /^\[/ ? $3 : $2); exit }' \
			/etc/apt/sources.list)
	fi
	echo "$uri"
}

make_root() {
	[ -f "$MARK" ] && return 0
	local mirror tmp
	mirror=$(host_mirror)
	if [ -z "$mirror" ]; then
		echo "root.sh: no Debian mirror in this machine's apt sources" >&2
		return 1
	fi
	if ! command -v debootstrap >/dev/null; then
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null ||
			{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
				apt-get install -y -qq debootstrap >/dev/null; }
	fi
	tmp=$ROOT.tmp
	rm -rf "$tmp"
	mkdir -p "$ROOTS"
	echo "root.sh: debootstrap --variant=minbase $SUITE (from this machine's mirror)"
	if ! debootstrap --variant=minbase "$SUITE" "$tmp" "$mirror" >"$ROOTS/$SUITE.debootstrap.log" 2>&1; then
		tail -n 20 "$ROOTS/$SUITE.debootstrap.log" >&2
		rm -rf "$tmp"
		return 1
	fi
	echo "deb $mirror $SUITE main" >"$tmp/etc/apt/sources.list"
	if [ "$SUITE" = sid ]; then
		# a snapshot mirror's sid Release file is past its Valid-Until:
		# accepted in this root only
		echo 'Acquire::Check-Valid-Until "false";' >"$tmp/etc/apt/apt.conf.d/99vfwd-snapshot"
	fi
	# no documentation or man pages: a smaller, quicker root
	printf 'path-exclude /usr/share/doc/*\npath-exclude /usr/share/man/*\n' \
		>"$tmp/etc/dpkg/dpkg.cfg.d/01vfwd-nodoc"
	touch "$tmp/.vfwd-root-ready"
	rm -rf "$ROOT"
	mv "$tmp" "$ROOT"
}

mounted=""
unmount_all() {
	local m
	for m in $mounted; do
		umount -R -l "$m" 2>/dev/null || true
	done
	mounted=""
}

mount_all() {
	trap unmount_all EXIT
	# the root a mount point of its own, so that "/" inside is one:
	# ip netns exec makes it a slave mount and fails where it is not
	if ! mountpoint -q "$ROOT"; then
		mount --bind "$ROOT" "$ROOT" && mount --make-private "$ROOT"
		mounted="$ROOT"
	fi
	mountpoint -q "$ROOT/proc" || { mount -t proc proc "$ROOT/proc" && mounted="$ROOT/proc $mounted"; }
	if ! mountpoint -q "$ROOT/sys"; then
		mount --rbind /sys "$ROOT/sys" && mount --make-rslave "$ROOT/sys"
		mounted="$ROOT/sys $mounted"
	fi
	if ! mountpoint -q "$ROOT/dev"; then
		# /dev/hugepages, /dev/pts, /dev/shm, /dev/net/tun with it
		mount --rbind /dev "$ROOT/dev" && mount --make-rslave "$ROOT/dev"
		mounted="$ROOT/dev $mounted"
	fi
	# /run of the root's own: DPDK runtime dirs, netns, sockets
	if ! mountpoint -q "$ROOT/run"; then
		mount -t tmpfs -o mode=755 tmpfs "$ROOT/run" && mounted="$ROOT/run $mounted"
	fi
	cp -L /etc/resolv.conf "$ROOT/etc/resolv.conf" 2>/dev/null || true
}

# This tree (tracked and untracked files git does not ignore) into
# ROOT/root/vfwd; the build folders made there before are kept. The files
# get the time of the copy (tar -m), not their own: two trees copied in
# turn (a clone for CI and a working tree) would otherwise leave objects
# built from the one newer than the other's sources, and ninja would link
# them as they are.
copy_tree() {
	local dst=$ROOT/root/vfwd
	mkdir -p "$dst"
	find "$dst" -mindepth 1 -maxdepth 1 ! -name 'build*' -exec rm -rf {} +
	(cd "$TREE" && git ls-files -co --exclude-standard -z |
		tar --null -T - -cf - 2>/dev/null) | tar -xmf - -C "$dst"
}

case "$ACTION" in
make)
	make_root
	;;
path)
	echo "$ROOT"
	;;
run)
	[ $# -gt 0 ] || { echo "root.sh: run needs a command" >&2; exit 2; }
	make_root
	copy_tree
	mount_all
	set +e
	chroot "$ROOT" /usr/bin/env -i HOME=/root TERM="${TERM:-dumb}" LANG=C.UTF-8 \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		CI="${CI:-}" VFWD_ROOT_SUITE="$SUITE" ${VFWD_CHROOT_ENV:-} \
		/bin/bash -c "cd /root/vfwd && $*"
	rc=$?
	set -e
	unmount_all
	exit $rc
	;;
*)
	echo "usage: $0 $SUITE make|run CMD...|path" >&2
	exit 2
	;;
esac
