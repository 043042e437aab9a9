# SPDX-License-Identifier: BSD-3-Clause
"""A real Linux guest for end-to-end tests: Debian's kernel and virtio_net
modules with a busybox initramfs built here, under QEMU (TCG) on a
vhost-user socket. Also the host side of the guest's TCP transfers."""

import glob
import os
import re
import shutil
import subprocess

# module load order: dependencies first
MODULES = ["virtio_ring", "virtio", "virtio_pci_modern_dev", "virtio_pci_legacy_dev",
           "virtio_pci", "failover", "net_failover", "virtio_net"]

# 802.1Q in the guest (this machine's own kernel may have none)
VLAN_MODULES = ["llc", "stp", "garp", "mrp", "8021q"]

GUEST_IP = "192.0.2.2"
HOST_IP = "192.0.2.1"
# IPv6 (unique local): the guest's TSO frames are TCP/IPv6 (HOST_TSO6)
GUEST_IP6 = "fd00:76:66::2"
HOST_IP6 = "fd00:76:66::1"

# Every init begins so: busybox's applets, the kernel's file systems (and
# a /tmp for the transfers), the modules loaded, loopback up.
BOOT = """#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t devtmpfs dev /dev
mount -t proc proc /proc
mount -t sysfs sys /sys
"""
TMP = """mount -t tmpfs -o size=200m tmp /tmp
"""
MODULES_UP = """for m in %(modules)s; do insmod /lib/modules/$m.ko || echo "GUEST-ERROR insmod $m"; done
ip link set lo up
"""

INIT = BOOT + TMP + MODULES_UP + """%(addr)s
ip link set eth0 up
echo "GUEST-READY"
# guest -> host: TSO frames from the guest, segmented by vfwd
dd if=/dev/urandom of=/tmp/out bs=1M count=%(mb)d 2>/dev/null
echo "GUEST-OUT-SHA $(sha256sum /tmp/out | cut -d' ' -f1)"
for i in 1 2 3 4 5 6 7 8 9 10; do
  nc -w 5 %(host)s 5001 < /tmp/out && break
  sleep 1
done
rm -f /tmp/out
# host -> guest: segments merged by vfwd's GRO into GSO frames
for i in 1 2 3 4 5 6 7 8 9 10; do
  nc -w 5 %(host)s 5002 > /tmp/in && [ -s /tmp/in ] && break
  sleep 1
done
echo "GUEST-IN-SHA $(sha256sum /tmp/in | cut -d' ' -f1) $(wc -c < /tmp/in)"
echo "GUEST-DONE"
poweroff -f
"""


# A guest that pings the host as soon as its link is up, every 50 ms, 40
# times: the first reply's seq says how long after its link came up
# forwarding resumed (in 50 ms steps; the host's MAC, HOST_MAC, is a
# static ARP entry, so that no ARP retry, 1 s, blurs it); then 10 pings
# more, and it powers off: for reconnect tests.
HOST_MAC = "02:76:66:00:00:01"
GUEST_MAC = "52:54:00:12:34:56"  # eth0's (qemu_argv)
PING_INIT = BOOT + MODULES_UP + """ip addr add %(guest)s/24 dev eth0
ip link set eth0 up
arp -i eth0 -s %(host)s %(host_mac)s || echo "GUEST-ERROR arp"
echo "GUEST-READY"
ping -c 40 -i 0.05 -W 1 %(host)s > /first 2>&1
echo "GUEST-FIRST-SEQ $(grep -m1 -o 'seq=[0-9]*' /first | cut -d= -f2)"
ping -c 10 -i 0.2 -W 1 %(host)s | grep -E "transmitted" | sed 's/^/GUEST-PING /'
echo "GUEST-DONE"
poweroff -f
"""


# A guest with two NICs, each on its own vfwd pair: eth0 (the "near" end)
# stays in the guest's first network namespace, eth1 (the "far" end) moves
# to a second one, so the guest's own TCP and UDP cross vfwd both ways,
# guest kernel to guest kernel, with VLAN sub-interfaces on each end:
#   near eth0[.100] -> vhost0 -> vfwd -> tap0 -> bridge -> tap1 -> vfwd -> vhost1 -> far eth1[.100]
# Prints GUEST-XFER name sha256 bytes centiseconds for each TCP transfer
# and the udpcheck result for each UDP one.
VLAN_INIT = BOOT + TMP + MODULES_UP + """unshare -n sh -c 'echo $$ > /tmp/far.pid; exec sleep 100000' &
while [ ! -s /tmp/far.pid ]; do sleep 0.1; done
F="nsenter -t $(cat /tmp/far.pid) -n"
ip link set eth1 netns $(cat /tmp/far.pid) || echo "GUEST-ERROR netns"
$F ip link set lo up
for end in "eth0 1" "eth1 2"; do
  set -- $end
  P=""; [ $1 = eth1 ] && P="$F"
  $P ip link add link $1 name $1.100 type vlan id 100 || echo "GUEST-ERROR vlan $1"
  $P sh -c "echo 0 > /proc/sys/net/ipv6/conf/$1/accept_dad; echo 0 > /proc/sys/net/ipv6/conf/$1.100/accept_dad"
  $P ip addr add 10.100.0.$2/24 dev $1.100
  $P ip -6 addr add fd00:100::$2/64 dev $1.100
  $P ip addr add 10.200.0.$2/24 dev $1
  $P ip -6 addr add fd00:200::$2/64 dev $1
  $P ip link set $1 up
  $P ip link set $1.100 up
done
echo "GUEST-READY"
dd if=/dev/urandom of=/tmp/a bs=1M count=%(mb)d 2>/dev/null
echo "GUEST-SRC-SHA $(sha256sum /tmp/a | cut -d' ' -f1)"
now() { cut -d' ' -f1 /proc/uptime | tr -d .; }
# xfer NAME RECEIVER-PREFIX SENDER-PREFIX ADDRESS PORT
xfer() {
  rm -f /tmp/got /tmp/hold
  # the listener's stdin must not end (at its EOF busybox nc half-closes,
  # and the sender stops at once): a fifo held open by fd 9
  mkfifo /tmp/hold
  $2 nc -l -p $5 < /tmp/hold > /tmp/got &
  L=$!
  exec 9> /tmp/hold
  sleep 0.5
  t0=$(now)
  for i in 1 2 3 4 5; do $3 nc -w 5 $4 $5 < /tmp/a && break; sleep 1; done
  wait $L
  exec 9>&-
  echo "GUEST-XFER $1 $(sha256sum /tmp/got | cut -d' ' -f1) $(wc -c < /tmp/got) $(( $(now) - t0 ))"
}
# udp NAME RECEIVER-PREFIX SENDER-PREFIX ADDRESS PORT
udp() {
  # the last stream's UDP-LISTENING must be gone before the wait below: the
  # receiver's own redirection truncates it only once that child runs, and
  # a sender let go early meets a closed port (ICMP unreachable, datagrams
  # lost, "udpcheck: send: Connection refused")
  rm -f /tmp/udp.out
  $2 /bin/udpcheck recv $5 10 > /tmp/udp.out &
  L=$!
  while ! grep -q LISTENING /tmp/udp.out 2>/dev/null; do sleep 0.1; done
  $3 /bin/udpcheck send $4 $5 %(udp)d || echo "GUEST-ERROR udp send $1"
  wait $L
  echo "GUEST-UDP $1 $(grep UDP-RESULT /tmp/udp.out) $(grep UDP-LOST-IDS /tmp/udp.out)"
}
xfer v4-vlan-out "$F" "" 10.100.0.2 5001
xfer v4-vlan-in "" "$F" 10.100.0.1 5002
xfer v6-vlan-out "$F" "" fd00:100::2 5003
xfer v6-vlan-in "" "$F" fd00:100::1 5004
udp v4-vlan-out "$F" "" 10.100.0.2 5005
udp v4-vlan-in "" "$F" 10.100.0.1 5006
udp v6-out "$F" "" fd00:200::2 5007
udp v6-in "" "$F" fd00:200::1 5008
udp v4-out "$F" "" 10.200.0.2 5009
for P in "" "$F"; do
  echo "GUEST-SNMP $($P cat /proc/net/snmp | grep -E '^(Ip|Tcp|Udp):' | tr '\\n' ' ')"
  echo "GUEST-SNMP6 $($P cat /proc/net/snmp6 | grep -E 'InCsumErrors|InHdrErrors|InTruncated|Udp6(Rcv|Snd)bufErrors' | tr '\\n' ' ')"
  echo "GUEST-NETDEV $($P cat /proc/net/dev | grep eth | tr '\\n' ' ')"
done
echo "GUEST-DONE"
poweroff -f
"""


def build_helper(workdir, name):
    """test/guest/NAME.c built static (no libc in the initramfs); returns
    the binary's path (it lands in the guest's /bin)."""
    src = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                       "guest", name + ".c")
    out = os.path.join(workdir, name)
    subprocess.run(["cc", "-O2", "-static", "-Wall", "-o", out, src], check=True)
    return out


def build_udpcheck(workdir):
    """The guest's UDP tool."""
    return build_helper(workdir, "udpcheck")


def have_guest_tools():
    return (shutil.which("qemu-system-x86_64") and shutil.which("busybox") and
            glob.glob("/boot/vmlinuz-*") and shutil.which("cpio"))


def kernel():
    vmlinuz = sorted(glob.glob("/boot/vmlinuz-*"))[-1]
    return vmlinuz, vmlinuz.split("vmlinuz-", 1)[1]


def shared_libs(binary):
    """The shared objects a dynamic binary loads (ldd), the loader included:
    what the initramfs needs beside it, at the same paths."""
    out = subprocess.run(["ldd", binary], capture_output=True, text=True, check=True).stdout
    libs = {p for p in re.findall(r"(/\S+\.so[.\d]*)", out) if os.path.exists(p)}
    # glibc dlopens libgcc_s for pthread_cancel and unwinding: a threaded
    # program without it aborts ("libgcc_s.so.1 must be installed"), as
    # iperf3 3.16+ (trixie) did at the end of a test, now and then
    libc = [p for p in libs if os.path.basename(p).startswith("libc.so")]
    if libc:
        gcc_s = os.path.join(os.path.dirname(libc[0]), "libgcc_s.so.1")
        if os.path.exists(gcc_s):
            libs.add(gcc_s)
    return sorted(libs)


def build_initramfs(workdir, mb, init=None, v6=False, modules=(), binaries=(), udp=0,
                    params=None, dynamic=()):
    """Returns the path of a gzip'd cpio with busybox, the virtio_net
    modules of the installed kernel (and the extra modules, in load order),
    the extra binaries in /bin (dynamic ones with their shared libraries)
    and an init that runs the transfers (or the given init text, with
    params' keys among its %(...)s), over IPv4 or (v6) IPv6."""
    _, version = kernel()
    root = os.path.join(workdir, "initramfs")
    for d in ("bin", "proc", "sys", "tmp", "dev", "lib/modules"):
        os.makedirs(os.path.join(root, d), exist_ok=True)
    shutil.copy(shutil.which("busybox"), os.path.join(root, "bin", "busybox"))
    for b in list(binaries) + list(dynamic):
        shutil.copy(b, os.path.join(root, "bin", os.path.basename(b)))
    for b in dynamic:
        for lib in shared_libs(b):
            dst = os.path.join(root, lib.lstrip("/"))
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            shutil.copy(lib, dst)
    # Debian 13's kernel has virtio, virtio_ring and virtio_pci built in
    builtin = set()
    try:
        with open("/lib/modules/%s/modules.builtin" % version) as f:
            builtin = {os.path.basename(ln.strip()).split(".ko")[0] for ln in f}
    except OSError:
        pass
    loaded = []
    for m in MODULES + list(modules):
        found = glob.glob("/lib/modules/%s/kernel/**/%s.ko*" % (version, m), recursive=True)
        if not found and m in builtin:
            continue
        if not found:
            raise RuntimeError("module %s not found for kernel %s" % (m, version))
        loaded.append(m)
        src, dst = found[0], os.path.join(root, "lib", "modules", m + ".ko")
        if src.endswith(".xz"):
            with open(dst, "wb") as out:
                subprocess.run(["xz", "-dc", src], stdout=out, check=True)
        else:
            shutil.copy(src, dst)
    with open(os.path.join(root, "init"), "w") as f:
        # no duplicate address detection: the address is usable at once
        addr = ("echo 0 > /proc/sys/net/ipv6/conf/eth0/accept_dad\n"
                "ip -6 addr add %s/64 dev eth0" % GUEST_IP6) if v6 else \
            "ip addr add %s/24 dev eth0" % GUEST_IP
        keys = {"modules": " ".join(loaded), "guest": GUEST_IP,
                "host": HOST_IP6 if v6 else HOST_IP, "mb": mb, "addr": addr, "udp": udp}
        keys.update(params or {})
        f.write((init or INIT) % keys)
    os.chmod(os.path.join(root, "init"), 0o755)
    out = os.path.join(workdir, "initramfs.cpio.gz")
    subprocess.run("cd %s && find . | cpio -o -H newc --quiet | gzip -1 > %s" % (root, out),
                   shell=True, check=True)
    return out


def qemu_argv(sock, initrd, mem_mb=512, cpu=0, server=False, more_socks=(), queues=1,
              vectors=None, ring=0, mtu=0, device="", qmp=None, incoming=None):
    """QEMU on vhost-user socket sock (eth0 in the guest), and one more NIC
    (eth1, ...) on each of more_socks. queues > 1: eth0 multi-queue
    (vhost-user queues=N, virtio-net mq=on), with vectors MSI-X vectors
    (0: INTx, as below; None: $VFWD_GUEST_VECTORS, else 0). ring: eth0's rx and tx queue sizes (0: QEMU's
    256). mtu: eth0's host_mtu (VIRTIO_NET_F_MTU: the guest's MTU, told to
    vfwd with VHOST_USER_NET_SET_MTU). device: more virtio-net-pci
    properties for eth0 ("packed=on,mrg_rxbuf=off"; its vectors= wins
    over the argument). qmp: a unix socket
    path QEMU's monitor (QMP) listens on; incoming: a migration URI this
    QEMU waits on instead of booting (the kernel and initrd still given:
    the command lines of both ends of a migration must match)."""
    vmlinuz, _ = kernel()
    if vectors is None:
        # VFWD_GUEST_VECTORS: eth0 with MSI-X (one vector a virtqueue and
        # one for config: 3 for one queue pair), for a QEMU that takes it
        # under TCG (not 7.2's); INTx otherwise
        vectors = int(os.environ.get("VFWD_GUEST_VECTORS", "0"))
    nics = []
    for i, path in enumerate(more_socks, 1):
        nics += ["-chardev", "socket,id=chr%d,path=%s" % (i, path),
                 "-netdev", "vhost-user,id=net%d,chardev=chr%d" % (i, i),
                 "-device", "virtio-net-pci,netdev=net%d,vectors=0,romfile=,mac=52:54:00:12:34:%02x"
                 % (i, 0x56 + i)]
    return ["taskset", "-c", str(cpu), "qemu-system-x86_64", "-accel", "tcg", "-m", str(mem_mb),
            "-object", "memory-backend-file,id=mem0,size=%dM,mem-path=/dev/hugepages,share=on"
            % mem_mb,
            "-numa", "node,memdev=mem0",
            # server: QEMU listens and vfwd (net_vhost client=1) connects
            "-chardev", "socket,id=chr0,path=%s%s" % (sock, ",server=on,wait=off" if server else ""),
            "-netdev", "vhost-user,id=net0,chardev=chr0" + (",queues=%d" % queues
                                                             if queues > 1 else ""),
            # vectors=0: QEMU 7.2 under TCG crashes setting up MSI-X for
            # vhost-user; romfile=: no iPXE, we boot a kernel directly
            "-device", "virtio-net-pci,netdev=net0%s,romfile=,mac=52:54:00:12:34:56%s%s%s"
            % ("" if "vectors=" in device else ",vectors=%d" % vectors,
               ",mq=on" if queues > 1 else "",
               ",rx_queue_size=%d,tx_queue_size=%d" % (ring, ring) if ring else "",
               (",host_mtu=%d" % mtu if mtu else "") + ("," + device if device else "")),
            ] + nics + [
            "-kernel", vmlinuz, "-initrd", initrd,
            "-append", "console=ttyS0 panic=-1 quiet",
            "-nographic", "-no-reboot", "-nodefaults", "-serial", "stdio"] + \
        (["-qmp", "unix:%s,server=on,wait=off" % qmp] if qmp else []) + \
        (["-incoming", incoming] if incoming else [])


def tap_up(ns, tap, v6):
    """The host's end of the guest's link: the tap in namespace ns gets the
    host's address (IPv6 without duplicate address detection) and goes up."""
    ip = ["ip", "-n", ns]
    if v6:
        subprocess.run(ip + ["-6", "addr", "add", HOST_IP6 + "/64", "dev", tap, "nodad"],
                       check=True)
    else:
        subprocess.run(ip + ["addr", "add", HOST_IP + "/24", "dev", tap], check=True)
    subprocess.run(ip + ["link", "set", tap, "up"], check=True)


# The host end of the transfers, run inside the namespace with the tap:
# receive exactly N bytes on 5001, then send N fresh random bytes on 5002;
# prints the sha256 of each.
HOST_SIDE = r"""
import hashlib, os, socket, sys, time
size = int(sys.argv[1])
def listen(port):
    s = socket.socket(socket.AF_INET6 if ":" in sys.argv[2] else socket.AF_INET)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((sys.argv[2], port)); s.listen(1); s.settimeout(float(sys.argv[3]))
    return s
rx, tx = listen(5001), listen(5002)
c, _ = rx.accept(); c.settimeout(60)
h, got, t0 = hashlib.sha256(), 0, time.monotonic()
while got < size:
    b = c.recv(1 << 20)
    if not b:
        break
    h.update(b); got += len(b)
c.close()
print("HOST-IN-SHA %s %d %.3f" % (h.hexdigest(), got, time.monotonic() - t0), flush=True)
data = os.urandom(size)
c, _ = tx.accept(); c.settimeout(60)
c.sendall(data); c.close()
print("HOST-OUT-SHA %s %d" % (hashlib.sha256(data).hexdigest(), size), flush=True)
"""


# A multi-queue guest (qemu_argv queues=N): IPv6 off (no router
# solicitations or MLD reports beside the flows, so the per-queue counts
# are the flows'), %(queues)d combined channels set with test/guest/ethq.c
# (the driver enables as many queue pairs as there are vCPUs, here 1),
# then %(flows)d TCP flows each way at once, each its own %(kb)d KiB of
# random bytes: guest -> host on ports 5100+i, host -> guest on 5200+i
# (HOST_MQ_SIDE). Each connection's TCP picks its tx queue by its own
# random hash, and the tap's kernel sends a flow back on the queue vfwd
# wrote it from, so the flows spread over the queues both ways. Prints
# the sums per flow, the transfer's centiseconds and, last thing before
# powering off, virtio_net's per-queue counters.
MQ_INIT = BOOT + TMP + MODULES_UP + """echo 1 > /proc/sys/net/ipv6/conf/all/disable_ipv6
echo 1 > /proc/sys/net/ipv6/conf/default/disable_ipv6
ip addr add %(guest)s/24 dev eth0
/bin/ethq channels eth0 | sed 's/^/GUEST-BOOT-/'
/bin/ethq set eth0 %(queues)d || echo "GUEST-ERROR ethq set"
/bin/ethq channels eth0 | sed 's/^/GUEST-/'
ip link set eth0 up
echo "GUEST-READY"
i=0
while [ $i -lt %(flows)d ]; do
  dd if=/dev/urandom of=/tmp/o$i bs=1k count=%(kb)d 2>/dev/null
  echo "GUEST-OUT-SHA $i $(sha256sum /tmp/o$i | cut -d' ' -f1)"
  i=$((i+1))
done
# the receivers' stdin must not end (busybox nc half-closes at its EOF):
# a fifo held open, read and write, by fd 9
mkfifo /tmp/hold
exec 9<> /tmp/hold
now() { cut -d' ' -f1 /proc/uptime | tr -d .; }
t0=$(now)
i=0
while [ $i -lt %(flows)d ]; do
  (for t in 1 2 3 4 5; do nc -w 10 %(host)s $((5100+i)) < /tmp/o$i && break; sleep 1; done) &
  (for t in 1 2 3 4 5; do
     nc -w 10 %(host)s $((5200+i)) < /tmp/hold > /tmp/i$i && [ -s /tmp/i$i ] && break; sleep 1
   done) &
  i=$((i+1))
done
wait
echo "GUEST-XFER-CS $(( $(now) - t0 ))"
i=0
while [ $i -lt %(flows)d ]; do
  echo "GUEST-IN-SHA $i $(sha256sum /tmp/i$i | cut -d' ' -f1) $(wc -c < /tmp/i$i)"
  i=$((i+1))
done
exec 9>&-
/bin/ethq stats eth0 | grep -E '^ETHQ-STAT (rx|tx)_queue_' | sed 's/^/GUEST-/'
echo "GUEST-DONE"
poweroff -f
"""


# The host end of MQ_INIT's flows, in the tap's namespace: argv size
# address flows timeout. Receives exactly size bytes on each 5100+i and
# sends size fresh random bytes on each 5200+i, all at once; one line per
# flow: HOST-IN-SHA i sum bytes, HOST-OUT-SHA i sum bytes.
HOST_MQ_SIDE = r"""
import hashlib, os, socket, sys, threading
size, addr, flows, timeout = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
lock = threading.Lock()
def say(line):
    with lock:
        print(line, flush=True)
def listen(port):
    s = socket.socket(socket.AF_INET)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((addr, port)); s.listen(1); s.settimeout(timeout)
    return s
def take(i, s):
    c, _ = s.accept(); c.settimeout(60)
    h, got = hashlib.sha256(), 0
    while got < size:
        b = c.recv(1 << 20)
        if not b:
            break
        h.update(b); got += len(b)
    c.close()
    say("HOST-IN-SHA %d %s %d" % (i, h.hexdigest(), got))
def give(i, s):
    data = os.urandom(size)
    c, _ = s.accept(); c.settimeout(60)
    c.sendall(data); c.close()
    say("HOST-OUT-SHA %d %s %d" % (i, hashlib.sha256(data).hexdigest(), size))
threads = []
for i in range(flows):
    for fn, port in ((take, 5100 + i), (give, 5200 + i)):
        threads.append(threading.Thread(target=fn, args=(i, listen(port)), daemon=True))
say("HOST-LISTENING")
for t in threads:
    t.start()
for t in threads:
    t.join()
"""
