# SPDX-License-Identifier: BSD-3-Clause
"""Malformed and unusual frames from the wire, replayed through vfwd
toward a guest that takes GSO frames, with GRO off, light and heavy: no
crash, no drop, and the guest received exactly what was sent, checked
byte for byte on the guest's side.

    net_pcap (the frames below, once) -> vfwd wire->vm -> net_vhost ->
    vfwd-testpeer receive-only with LRO (the guest), --dump of every frame

Each kind is documented in KINDS; valid TCP segments of two flows are
interleaved with them so that GRO holds packets when a bad one comes. What
the guest must get (doc/reliability.md): every other frame byte for byte,
in the order sent (GRO may take the TCP ones of the malformed kinds into
its table and trim an Ethernet padding beyond the IPv4 length, as Linux's
GRO does: those as a multiset), the two flows' payloads complete, in
order, byte for byte (merged by GRO or not), and the frames shorter than
an Ethernet header counted by the guest's virtio port as rx errors.
"""

import signal
import struct
import time

from vfwdtest import Env, check, dir_stats, inet_csum

SRC, DST = bytes([192, 0, 2, 1]), bytes([192, 0, 2, 2])
ETH = b"\x02\0\0\0\0\x02" + b"\x02\0\0\0\0\x01"


def tcp_seg(seq, payload=b"x" * 100, sport=1000, flags=0x10, doff=5, opts=b""):
    tcp = struct.pack("!HHIIBBHHH", sport, 80, seq, 1, doff << 4, flags, 65535, 0, 0) + opts
    pseudo = SRC + DST + struct.pack("!BBH", 0, 6, len(tcp) + len(payload))
    c = inet_csum(pseudo + tcp + payload)
    return tcp[:16] + struct.pack("!H", c) + tcp[18:] + payload


def ipv4(l4, proto=6, ihl=5, total=None, frag=0x4000, ver=4, opts=b"", ident=1):
    hdr_len = ihl * 4
    total = 20 + len(opts) + len(l4) if total is None else total
    ip = struct.pack("!BBHHHBBH4s4s", (ver << 4) | (ihl & 0xf), 0, total & 0xffff, ident, frag,
                     64, proto, 0, SRC, DST) + opts
    ip = ip[:10] + struct.pack("!H", inet_csum(ip[:max(hdr_len, 20)])) + ip[12:]
    return ip + l4


def eth(payload, etype=0x0800):
    return ETH + struct.pack("!H", etype) + payload


# the two valid flows: source port -> first sequence number
FLOWS = {1000: 5000, 1001: 9000}
SEG = 100


def stream(sport, off, n):
    """The flows' payload bytes at stream offset off (a pattern that tells
    one segment from another)."""
    return bytes(((o * 7 + (o >> 8) + sport) & 0xff) for o in range(off, off + n))


def good(seq, sport=1000):
    return eth(ipv4(tcp_seg(seq, payload=stream(sport, seq - FLOWS[sport], SEG), sport=sport)))


# (name, frame, what librte_gro's engine makes of it, what vfwd's does): at
# least 20 kinds of trouble. The classes decide the order the guest sees.
# librte_gro (--gro-engine dpdk; lib/offload/vfwd_gro.c, dpdk_classify):
#   PASS:  no TCP flow (not IPv4/IPv6 TCP as vfwd types it): sent after the
#          burst's TCP output, in order with the other PASS frames
#   BREAK: TCP that GRO cannot take, or a bad IP header: flushes what GRO
#          holds and keeps its place
#   HELD:  a mergeable TCP/IPv4 segment: GRO takes it into its table (it
#          merges with nothing here: sequence number 1) and sends it at a
#          flush; librte_gro trims the Ethernet padding beyond the IPv4
#          length
# vfwd's engine (the default): whatever it does not hold leaves in place,
# in the order sent (INPLACE: not TCP, TCP it cannot merge, a bad header);
# HELD: a data segment it takes as the head of a flow (tagged ones too,
# and one whose checksum it checks only when another segment would join
# it), sent untouched at a flush or when its flow's next segment does not
# follow it.
PASS, BREAK, HELD, INPLACE = "pass", "break", "held", "inplace"
KINDS = [
    ("runt: 10 bytes, no full Ethernet header", ETH[:10], PASS, INPLACE),
    ("Ethernet header only, type IPv4", eth(b""), PASS, INPLACE),
    ("IPv4 header cut at 10 bytes", eth(ipv4(tcp_seg(1))[:10]), PASS, INPLACE),
    ("IHL 3 (< 5)", eth(ipv4(tcp_seg(1), ihl=3)), BREAK, INPLACE),
    ("IHL 15, header beyond the frame", eth(ipv4(b"", ihl=15, total=60)), BREAK, INPLACE),
    ("IP total length larger than the frame", eth(ipv4(tcp_seg(1), total=1400)), BREAK,
     INPLACE),
    ("IP total length smaller than its header", eth(ipv4(tcp_seg(1), total=10)), BREAK,
     INPLACE),
    ("IP total length smaller than the frame (padding)",
     eth(ipv4(tcp_seg(1), total=60)) + b"\0" * 64, HELD, HELD),
    ("TCP header cut at 10 bytes", eth(ipv4(tcp_seg(1)[:10])), BREAK, INPLACE),
    ("TCP data offset 15 beyond the frame", eth(ipv4(tcp_seg(1, payload=b"", doff=15))), BREAK,
     INPLACE),
    ("TCP data offset 2 (< 5)", eth(ipv4(tcp_seg(1, doff=2))), BREAK, INPLACE),
    ("IP fragment, more fragments set", eth(ipv4(tcp_seg(1), frag=0x2000)), PASS, INPLACE),
    ("IP fragment with offset", eth(ipv4(b"y" * 80, frag=0x0010)), PASS, INPLACE),
    ("IP options (IHL 6)", eth(ipv4(tcp_seg(1), ihl=6, opts=b"\x01\x01\x01\x00")), BREAK,
     INPLACE),
    ("VLAN-tagged TCP", ETH + b"\x81\x00\x00\x05\x08\x00" + ipv4(tcp_seg(1)), PASS, HELD),
    ("QinQ-tagged TCP", ETH + b"\x88\xa8\x00\x05\x81\x00\x00\x06\x08\x00" + ipv4(tcp_seg(1)),
     PASS, HELD),
    # typed TCP/IPv6 through its extension header: TCP that librte_gro
    # 22.11 cannot take
    ("IPv6 TCP behind a hop-by-hop header",
     eth(struct.pack("!IHBB", 0x60000000, 8 + 120, 0, 64) + b"\x20" * 32
         + b"\x06\x00" + b"\x01\x04\0\0\0\0" + tcp_seg(1), 0x86dd), BREAK, INPLACE),
    ("IPv6 header cut at 20 bytes", eth(b"\x60" + b"\0" * 19, 0x86dd), PASS, INPLACE),
    # a chain of mbufs (vfwd's are 2 KB): not for GRO
    ("jumbo: 9000-byte TCP segment", eth(ipv4(tcp_seg(1, payload=b"j" * (9000 - 54)))), BREAK,
     HELD),
    ("TCP SYN (not mergeable)", eth(ipv4(tcp_seg(1, flags=0x02))), BREAK, INPLACE),
    ("TCP with a wrong checksum", eth(ipv4(tcp_seg(1)[:16] + b"\xde\xad" + tcp_seg(1)[18:])),
     HELD, HELD),
    ("UDP length larger than the datagram",
     eth(ipv4(struct.pack("!HHHH", 1, 2, 500, 0) + b"u" * 20, proto=17)), PASS, INPLACE),
    ("IP version 6 in an IPv4 ethertype", eth(ipv4(tcp_seg(1), ver=6)), BREAK, INPLACE),
    ("ARP", eth(b"\x00\x01\x08\x00\x06\x04\x00\x01" + b"\0" * 20, 0x0806), PASS, INPLACE),
    ("unknown ethertype", eth(b"z" * 50, 0x88b5), PASS, INPLACE),
    ("zero-length frame", b"", PASS, INPLACE),
    ("TCP with options and payload 0 (pure ACK)", eth(ipv4(tcp_seg(1, payload=b"", doff=8,
                                                                opts=b"\x01" * 12))), BREAK, INPLACE),
]


def make_frames(engine="vfwd"):
    """What the pcap holds, in order: two flow segments, then a kind, 20 times
    over; returns [(frame, its kind's class in that GRO engine, None for a
    flow segment)]."""
    frames = []
    seq = dict(FLOWS)
    for rep in range(20):
        for _, frame, dpdk_cls, vfwd_cls in KINDS:
            cls = vfwd_cls if engine == "vfwd" else dpdk_cls
            for sport in (1000, 1001):
                frames.append((good(seq[sport], sport), None))
                seq[sport] += SEG
            frames.append((frame, cls))
    return frames


def write_pcap(path, frames):
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
        for n, (fr, _) in enumerate(frames):
            f.write(struct.pack("<IIII", 0, n, len(fr), len(fr)))
            f.write(fr)


def read_pcap(path):
    frames = []
    with open(path, "rb") as f:
        data = f.read()
    check(len(data) >= 24 and struct.unpack_from("<I", data)[0] == 0xa1b2c3d4,
          "%s: not a pcap file (%d bytes)" % (path, len(data)))
    off = 24
    while off < len(data):
        _, _, incl, orig = struct.unpack_from("<IIII", data, off)
        check(incl == orig, "frame %d cut in the dump: %d of %d" % (len(frames), incl, orig))
        frames.append(data[off + 16:off + 16 + incl])
        off += 16 + incl
    return frames


def flow_of(frame):
    """The flow source port if frame is a segment of one of the two valid
    flows (merged or not), else None. The malformed kinds' TCP segments
    use sequence number 1, the flows theirs from FLOWS up."""
    if len(frame) < 54 or frame[12:14] != b"\x08\x00" or frame[14] != 0x45 or frame[23] != 6:
        return None
    sport, dport, seq = struct.unpack_from("!HHI", frame, 34)
    if sport in FLOWS and dport == 80 and seq >= FLOWS[sport]:
        return sport
    return None


def gro_trimmed(frame):
    """What librte_gro makes of a segment it takes: the Ethernet padding
    beyond the IPv4 total length cut off."""
    total = struct.unpack_from("!H", frame, 16)[0]
    return frame[:14 + total]


def first_difference(label, what, got, want):
    first = next((i for i, (a, b) in enumerate(zip(got, want)) if a != b),
                 min(len(got), len(want)))
    a = got[first] if first < len(got) else b""
    b = want[first] if first < len(want) else b""
    at = next((i for i in range(max(len(a), len(b)))
               if i >= len(a) or i >= len(b) or a[i] != b[i]), None)
    lo = max(0, (at or 0) - 16)
    return ("%s: %s differ from what was sent: %d got, %d sent; number %d first differs at "
            "byte %s (%d vs %d bytes); bytes %d..:\n got  %s\n sent %s"
            % (label, what, len(got), len(want), first, at, len(a), len(b), lo,
               a[lo:lo + 48].hex(), b[lo:lo + 48].hex()))


def check_guest(label, sent, got, gro, engine="vfwd"):
    """The guest's frames against what the pcap sent: every non-flow frame
    byte for byte, in order (with GRO: in order within its GRO class, the
    HELD ones as a multiset, trimmed by librte_gro), each flow's payload
    complete and in order, headers as sent."""
    # frames shorter than an Ethernet header: the guest's port counts them
    want = [(f, c) for f, c in sent if c is not None and len(f) >= 14]
    got_other = [f for f in got if flow_of(f) is None]
    if not gro:
        want_other = [f for f, _ in want]
        check(got_other == want_other, first_difference(label, "the guest's frames", got_other,
                                                        want_other))
    elif engine == "vfwd":
        # what is not held keeps its place; held heads leave untouched
        inplace = [f for f, c in want if c == INPLACE]
        held = sorted(f for f, c in want if c == HELD)
        got_inplace = [f for f in got_other if any(f == w for w, c in want if c == INPLACE)]
        got_held = sorted(f for f in got_other if any(f == w for w, c in want if c == HELD))
        check(len(got_inplace) + len(got_held) == len(got_other),
              "%s: the guest got frames that were never sent" % label)
        check(got_inplace == inplace, first_difference(label, "the guest's in-place frames",
                                                       got_inplace, inplace))
        check(got_held == held, first_difference(label, "the guest's held frames (sorted)",
                                                 got_held, held))
    else:
        def of(cls):
            return [gro_trimmed(f) if c == HELD else f for f, c in want if c == cls]
        byclass = {}
        for f in got_other:
            c = next((c for w, c in want if w == f or (c == HELD and gro_trimmed(w) == f)), None)
            check(c is not None, "%s: the guest got a frame that was never sent: %s"
                  % (label, f[:64].hex()))
            byclass.setdefault(c, []).append(f)
        for cls in (PASS, BREAK):
            check(byclass.get(cls, []) == of(cls),
                  first_difference(label, "the guest's %s frames" % cls, byclass.get(cls, []),
                                   of(cls)))
        check(sorted(byclass.get(HELD, [])) == sorted(of(HELD)),
              first_difference(label, "the guest's held frames (sorted)",
                               sorted(byclass.get(HELD, [])), sorted(of(HELD))))
    sent = [f for f, _ in sent]
    merged = 0
    for sport, first_seq in FLOWS.items():
        template = good(first_seq, sport)
        segs = [f for f in got if flow_of(f) == sport]
        want = len([f for f in sent if flow_of(f) == sport]) * SEG
        at = 0
        for n, f in enumerate(segs):
            total = struct.unpack_from("!H", f, 16)[0]
            seq = struct.unpack_from("!I", f, 38)[0]
            check(14 + total == len(f), "%s: flow %d segment %d: IPv4 length %d, frame %d"
                  % (label, sport, n, total, len(f)))
            check(inet_csum(f[14:34]) == 0, "%s: flow %d segment %d: bad IPv4 checksum"
                  % (label, sport, n))
            # every header byte as sent, but the lengths and checksums
            # GRO rewrites (a merged frame carries a partial TCP sum)
            hdr = f[:16] + f[18:24] + f[26:50] + f[52:54]
            tpl = template[:16] + template[18:24] + template[26:50] + template[52:54]
            check(hdr[:36] == tpl[:36] and hdr[40:] == tpl[40:],
                  "%s: flow %d segment %d: headers differ:\n got  %s\n sent %s"
                  % (label, sport, n, f[:54].hex(), template[:54].hex()))
            check(seq - first_seq == at, "%s: flow %d: segment %d at stream offset %d, expected %d "
                  "(lost, duplicated or reordered)" % (label, sport, n, seq - first_seq, at))
            payload = f[54:]
            check(payload == stream(sport, at, len(payload)),
                  "%s: flow %d segment %d: payload differs" % (label, sport, n))
            if len(payload) == SEG and not gro:
                check(f == good(seq, sport), "%s: flow %d segment %d not as sent" % (label, sport, n))
            merged += len(payload) > SEG
            at += len(payload)
        check(at == want, "%s: flow %d: %d of %d payload bytes arrived" % (label, sport, at, want))
    return len(got_other), merged


def replay(env, pcap, gro_args, name):
    sock = env.path(name + ".sock")
    wait = env.path(name + ".cmd")
    dump = env.path(name + "-guest.pcap")
    with open(wait, "w") as f:
        f.write("# let the guest connect before the frames flow\nsleep 3\n")
    vf = env.vfwd(["net_vhost0,iface=%s,tso=1" % sock,
                   "net_pcap0,rx_pcap=%s,tx_pcap=/dev/null" % pcap],
                  # --mtu 9000: the jumbo kind is a frame the guest takes
                  # (at 1500 it is dropped oversize: e2e/jumbo)
                  ["--stats-format", "json", "--cmdline-file", wait, "--mtu", "9000"]
                  + gro_args, name=name)
    vf.wait_output("forwarding 1 pair", 30)
    # a ring that holds the whole replay (about 1700 slots, merged or
    # not), so that nothing can be dropped for it full: net_pcap replays
    # unpaced, and the guest may not be scheduled for a while
    guest = env.peer(["net_virtio_user0,path=%s,queue_size=4096" % sock],
                     ["--rx-port", "0", "--lro", "--dump", dump, "--duration", "600",
                      "--timeout", "900"], name=name + "-guest")
    guest.wait_output("ready", 30, stream="err")
    vf.wait_output("forwarding started", 30)
    time.sleep(2)
    rc = vf.stop(20)
    grc = guest.stop(20, sig=signal.SIGTERM)
    check(rc == 0, "%s: vfwd exit %d: %s" % (name, rc, vf.err()[-1500:]))
    check(grc == 0, "%s: guest exit %d: %s" % (name, grc, guest.err()[-1500:]))
    return vf.last_json(), guest.last_json(), read_pcap(dump)


def test_malformed_frames_gro_off_light_heavy():
    """Each engine, light and heavy, and GRO off."""
    with Env("malformed") as env:
        pcap = env.path("malformed.pcap")
        sent = {e: make_frames(e) for e in ("vfwd", "dpdk")}
        write_pcap(pcap, sent["vfwd"])
        nframes = len(sent["vfwd"])
        check(len(KINDS) >= 20, "only %d kinds" % len(KINDS))
        runts = len([f for f, _ in sent["vfwd"] if len(f) < 14])
        failures = []
        dpdk = ["--gro-engine", "dpdk"]
        for label, engine, args in (("off", "vfwd", []),
                                    ("light", "vfwd", ["--gro", "--gro-mode", "light"]),
                                    ("heavy", "vfwd", ["--gro", "--gro-mode", "heavy"]),
                                    ("light-dpdk", "dpdk", ["--gro", "--gro-mode", "light"] + dpdk),
                                    ("heavy-dpdk", "dpdk", ["--gro", "--gro-mode", "heavy"] + dpdk)):
            final, guest, got = replay(env, pcap, args, "gro-" + label)
            try:
                check_mode(label, sent[engine], final, guest, got, nframes, runts, engine)
            except AssertionError as e:
                failures.append(str(e))
        # every mode run and checked; all their failures at once
        check(not failures, "\n".join(failures))


def check_mode(label, sent, final, guest, got, nframes, runts, engine):
    """One GRO mode's run: vfwd's counts and the guest's frames."""
    d = dir_stats(final, "wire_to_vm")
    pcap_port = [p for p in final["ports"] if p["name"] == "net_pcap0"][0]
    check(pcap_port["ipackets"] == d["rx_pkts"],
          "%s: pcap delivered %d, vfwd took %d" % (label, pcap_port["ipackets"],
                                                  d["rx_pkts"]))
    # net_pcap delivers every record (a runt too); none may vanish
    check(d["rx_pkts"] == nframes, "%s: vfwd took %d of %d frames" % (label, d["rx_pkts"],
                                                                    nframes))
    # nothing here is a frame vfwd must refuse toward a VM
    drops = {k: v for k, v in d.items() if k.startswith("drop") and v}
    check(not drops, "%s: vfwd dropped toward the guest: %s" % (label, drops))
    check(d["out_expected"] == d["tx_pkts"],
          "%s: in %d (expected out %d) != out %d" % (label, d["rx_pkts"],
                                                   d["out_expected"], d["tx_pkts"]))
    # the guest's side: its virtio port refuses (counts as rx
    # errors) the frames shorter than an Ethernet header; the
    # rest it received, every byte of them
    check(guest["rx_port"]["ierrors"] == runts,
          "%s: the guest's port refused %d frames, %d are runts: %s"
          % (label, guest["rx_port"]["ierrors"], runts, guest))
    check(len(got) + runts == d["tx_pkts"], "%s: guest got %d frames + %d runts, vfwd "
          "sent %d" % (label, len(got), runts, d["tx_pkts"]))
    check(guest["rx_port"]["ipackets"] == len(got) and
          guest["rx_port"]["imissed"] == 0 and guest["rx_port"]["rx_nombuf"] == 0,
          "%s: guest port: %s, %d frames dumped" % (label, guest["rx_port"], len(got)))
    others, merged = check_guest(label, sent, got, label != "off", engine)
    if label != "off":
        check(d["gro_merged"] > 0 and merged == d["gro_merged"],
              "%s: vfwd merged %d, the guest got %d merged frames"
              % (label, d["gro_merged"], merged))
    check(final["mempool"]["in_use"] == final["mempool"]["in_use_at_start"],
          "%s: mbufs leaked: %s" % (label, final["mempool"]))
    print("     gro %-5s: %d frames in, %d to the guest (%d + %d runts), %d other frames "
          "byte for byte, flows complete, %d merged"
          % (label, d["rx_pkts"], d["tx_pkts"], len(got), runts, others, merged))


# the lying-header guest: --count frames of --tso segments of --mss bytes;
# every other frame lies (testpeer.c, --bad-hdr: frame i % 8 = 1, 3, 5, 7)
LIE_FRAMES, LIE_SEGS, LIE_MSS = 4000, 4, 1448


def test_lying_virtio_net_headers_from_a_guest():
    """A virtio-user guest whose TSO frames carry headers that lie (gso_size
    0, 1, 65535; csum_start beyond the frame), every other frame: vfwd
    drops what it cannot make valid, counted by cause, exactly as
    doc/reliability.md says, and forwards the rest to the wire as correct
    segments, every one of them.

    Per kind (LIE_FRAMES / 8 frames each):
      gso_size 0      vhost refuses the header and passes the frame as a
                      plain 5846-byte frame: longer than the wire's MTU:
                      drop_oversize
      gso_size 1      5792 segments, more than vfwd makes of one frame:
                      drop_bad_gso
      gso_size 65535  a segment beyond the MTU: drop_bad_gso
      csum_start 638  vhost refuses the header; the 54-byte frame (whose
                      IPv4 length claims 5832) goes to the wire as the
                      guest's own garbage: the wire peer's rx_bad
      honest          4 segments of 1448 bytes each, checksums valid"""
    with Env("badhdr") as env:
        vh, mf = env.path("vh.sock"), env.path("memif.sock")
        vf = env.vfwd(["net_vhost0,iface=%s,tso=1" % vh, "net_memif0,role=server,socket=%s" % mf],
                      ["--stats-format", "json"])
        vf.wait_output("forwarding started", 30)
        # a memif ring (rsize: 2^14 slots) that holds all the segments: the
        # wire side never makes vfwd drop one for a full ring
        peer = env.peer(["net_virtio_user0,path=%s,queue_size=1024" % vh,
                         "net_memif0,role=client,socket=%s,rsize=14" % mf],
                        ["--tx-port", "0", "--rx-port", "1", "--count", str(LIE_FRAMES), "--tcp",
                         "--tso", str(LIE_SEGS), "--mss", str(LIE_MSS), "--bad-hdr",
                         "--verify-csum", "--timeout", "60", "--linger"])
        peer.wait_output('"tx"', 90)
        got = peer.last_json()
        rc = vf.stop(20)
        prc = peer.stop(20)
        check(rc == 0, "vfwd exit %d: %s" % (rc, vf.err()[-1500:]))
        check(prc == 0, "peer exit %d: %s" % (prc, peer.err()[-1500:]))
        final = vf.last_json()
        d = dir_stats(final, "vm_to_wire")
        kind = LIE_FRAMES // 8
        honest = LIE_FRAMES // 2
        check(got["tx"] == LIE_FRAMES and d["rx_pkts"] == LIE_FRAMES,
              "guest sent %d, vfwd took %d of %d frames" % (got["tx"], d["rx_pkts"], LIE_FRAMES))
        drops = {k: v for k, v in d.items() if k.startswith("drop_") and v}
        want = {"drop_bad_gso": 2 * kind, "drop_oversize": kind}
        check(drops == want, "drops by cause %s, doc/reliability.md: %s" % (drops, want))
        check(d["drops"] == 3 * kind, "drops %d != %d" % (d["drops"], 3 * kind))
        segs = honest * LIE_SEGS
        check(d["tx_pkts"] == segs + kind, "vfwd sent %d to the wire, expected %d segments + %d "
              "garbage frames" % (d["tx_pkts"], segs, kind))
        check(d["out_expected"] == d["tx_pkts"] + d["drops"], "accounting: %s" % d)
        # the receiving side: every honest segment, whole and valid, in
        # stream order; the garbage frames as bad; nothing else
        check(got["rx"] == segs + kind and got["rx_other"] == 0,
              "wire got %d frames (+%d not ours), expected %d: %s" % (got["rx"], got["rx_other"],
                                                                     segs + kind, got))
        check(got["rx_bad"] == kind, "wire: %d bad frames, expected the %d garbage ones: %s"
              % (got["rx_bad"], kind, got))
        check(got["rx_payload"] == segs * LIE_MSS, "wire got %d payload bytes of %d: %s"
              % (got["rx_payload"], segs * LIE_MSS, got))
        # each honest frame follows a dropped one: a gap before each but the first
        check(got["rx_gaps"] == honest - 1 and got["rx_dups"] == 0,
              "wire: %d gaps (expected %d), %d dups" % (got["rx_gaps"], honest - 1, got["rx_dups"]))
        check(got["rx_max_len"] <= 1514, "a frame beyond the MTU reached the wire: %s" % got)
        check(got["rx_bad_csum"] == 0, "bad checksums on the wire: %s" % got)
        check(final["mempool"]["in_use"] == final["mempool"]["in_use_at_start"], final["mempool"])
        print("     %d guest frames: %d segments + %d garbage frames to the wire, all checked; "
              "bad_gso %d, oversize %d" % (d["rx_pkts"], segs, kind, d["drop_bad_gso"],
                                            d["drop_oversize"]))
