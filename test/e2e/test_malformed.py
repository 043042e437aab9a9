# SPDX-License-Identifier: BSD-3-Clause
"""Malformed and unusual frames from the wire, replayed through vfwd
toward a guest that takes GSO frames, with GRO off, light and heavy: no
crash, and packets in = packets out + drops counted by cause, exactly.

    net_pcap (the frames below, once) -> vfwd wire->vm -> net_vhost ->
    testpmd rxonly with LRO (the guest)

Each kind is documented in KINDS; valid TCP segments of two flows are
interleaved with them so that GRO holds packets when a bad one comes.
"""

import re
import struct

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


def good(seq, sport=1000):
    return eth(ipv4(tcp_seg(seq, sport=sport)))


# (name, frame): at least 20 kinds of trouble
KINDS = [
    ("runt: 10 bytes, no full Ethernet header", ETH[:10]),
    ("Ethernet header only, type IPv4", eth(b"")),
    ("IPv4 header cut at 10 bytes", eth(ipv4(tcp_seg(1))[:10])),
    ("IHL 3 (< 5)", eth(ipv4(tcp_seg(1), ihl=3))),
    ("IHL 15, header beyond the frame", eth(ipv4(b"", ihl=15, total=60))),
    ("IP total length larger than the frame", eth(ipv4(tcp_seg(1), total=1400))),
    ("IP total length smaller than its header", eth(ipv4(tcp_seg(1), total=10))),
    ("IP total length smaller than the frame (padding)", eth(ipv4(tcp_seg(1), total=60)) + b"\0" * 64),
    ("TCP header cut at 10 bytes", eth(ipv4(tcp_seg(1)[:10]))),
    ("TCP data offset 15 beyond the frame", eth(ipv4(tcp_seg(1, payload=b"", doff=15)))),
    ("TCP data offset 2 (< 5)", eth(ipv4(tcp_seg(1, doff=2)))),
    ("IP fragment, more fragments set", eth(ipv4(tcp_seg(1), frag=0x2000))),
    ("IP fragment with offset", eth(ipv4(b"y" * 80, frag=0x0010))),
    ("IP options (IHL 6)", eth(ipv4(tcp_seg(1), ihl=6, opts=b"\x01\x01\x01\x00"))),
    ("VLAN-tagged TCP", ETH + b"\x81\x00\x00\x05\x08\x00" + ipv4(tcp_seg(1))),
    ("QinQ-tagged TCP", ETH + b"\x88\xa8\x00\x05\x81\x00\x00\x06\x08\x00" + ipv4(tcp_seg(1))),
    ("IPv6 TCP behind a hop-by-hop header",
     eth(struct.pack("!IHBB", 0x60000000, 8 + 120, 0, 64) + b"\x20" * 32
         + b"\x06\x00" + b"\x01\x04\0\0\0\0" + tcp_seg(1), 0x86dd)),
    ("IPv6 header cut at 20 bytes", eth(b"\x60" + b"\0" * 19, 0x86dd)),
    ("jumbo: 9000-byte TCP segment", eth(ipv4(tcp_seg(1, payload=b"j" * (9000 - 54))))),
    ("TCP SYN (not mergeable)", eth(ipv4(tcp_seg(1, flags=0x02)))),
    ("TCP with a wrong checksum", eth(ipv4(tcp_seg(1)[:16] + b"\xde\xad" + tcp_seg(1)[18:]))),
    ("UDP length larger than the datagram", eth(ipv4(struct.pack("!HHHH", 1, 2, 500, 0) + b"u" * 20, proto=17))),
    ("IP version 6 in an IPv4 ethertype", eth(ipv4(tcp_seg(1), ver=6))),
    ("ARP", eth(b"\x00\x01\x08\x00\x06\x04\x00\x01" + b"\0" * 20, 0x0806)),
    ("unknown ethertype", eth(b"z" * 50, 0x88b5)),
    ("zero-length frame", b""),
    ("TCP with options and payload 0 (pure ACK)", eth(ipv4(tcp_seg(1, payload=b"", doff=8,
                                                                opts=b"\x01" * 12)))),
]


def write_pcap(path):
    frames = []
    seq = {1000: 5000, 1001: 9000}
    for rep in range(20):
        for _, frame in KINDS:
            for sport in (1000, 1001):
                frames.append(good(seq[sport], sport))
                seq[sport] += 100
            frames.append(frame)
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
        for n, fr in enumerate(frames):
            f.write(struct.pack("<IIII", 0, n, len(fr), len(fr)))
            f.write(fr)
    return len(frames)


def replay(env, pcap, gro_args, name):
    sock = env.path(name + ".sock")
    wait = env.path(name + ".cmd")
    with open(wait, "w") as f:
        f.write("# let the guest connect before the frames flow\nsleep 3\n")
    vf = env.vfwd(["net_vhost0,iface=%s,tso=1" % sock,
                   "net_pcap0,rx_pcap=%s,tx_pcap=/dev/null" % pcap],
                  ["--stats-format", "json", "--cmdline-file", wait] + gro_args, name=name)
    vf.wait_output("forwarding 1 pair", 30)
    guest = env.testpmd(["net_virtio_user0,path=%s,queue_size=1024" % sock],
                        ["--forward-mode=rxonly", "--nb-cores=1", "--enable-lro",
                         "--rx-offloads=0x1c"], lcores="0@0,1@0", name=name + "-guest")
    guest.wait_output("Press enter to exit", 30)
    vf.wait_output("forwarding started", 30)
    import time
    time.sleep(2)
    rc = vf.stop(20)
    guest.p.stdin.write(b"\n")
    guest.p.stdin.flush()
    guest.wait(20)
    check(rc == 0, "%s: vfwd exit %d: %s" % (name, rc, vf.err()[-1500:]))
    # the guest's virtio PMD counts frames shorter than an Ethernet header
    # as rx errors instead of packets: both arrived
    m = re.findall(r"RX-packets:\s+(\d+)\s+RX-dropped:\s+\d+\s+RX-total", guest.out())
    e = re.findall(r"RX-error:\s+(\d+)", guest.out()) or re.findall(r"RX-errors:\s+(\d+)",
                                                                      guest.out())
    check(m and e, "no guest stats:\n" + guest.out()[-1500:])
    return vf.last_json(), int(m[-1]) + int(e[-1])


def test_malformed_frames_gro_off_light_heavy():
    with Env("malformed") as env:
        pcap = env.path("malformed.pcap")
        nframes = write_pcap(pcap)
        check(len(KINDS) >= 20, "only %d kinds" % len(KINDS))
        for label, args in (("off", []), ("light", ["--gro"]),
                            ("heavy", ["--gro", "--gro-mode", "heavy"])):
            final, guest_rx = replay(env, pcap, args, "gro-" + label)
            d = dir_stats(final, "wire_to_vm")
            pcap_port = [p for p in final["ports"] if p["name"] == "net_pcap0"][0]
            check(pcap_port["ipackets"] == d["rx_pkts"],
                  "%s: pcap delivered %d, vfwd took %d" % (label, pcap_port["ipackets"],
                                                          d["rx_pkts"]))
            # net_pcap delivers every record (a runt too); none may vanish
            check(d["rx_pkts"] == nframes, "%s: vfwd took %d of %d frames" % (label, d["rx_pkts"],
                                                                            nframes))
            causes = sum(v for k, v in d.items() if k.startswith("drop_"))
            check(causes == d["drops"], "%s: drop causes %d != drops %d" % (label, causes,
                                                                           d["drops"]))
            check(d["out_expected"] == d["tx_pkts"] + d["drops"],
                  "%s: in %d (expected out %d) != out %d + drops %d"
                  % (label, d["rx_pkts"], d["out_expected"], d["tx_pkts"], d["drops"]))
            check(guest_rx == d["tx_pkts"], "%s: guest got %d, vfwd sent %d"
                  % (label, guest_rx, d["tx_pkts"]))
            if label != "off":
                check(d["gro_merged"] > 0, "%s: the valid flows never merged" % label)
            check(final["mempool"]["in_use"] == final["mempool"]["in_use_at_start"],
                  "%s: mbufs leaked: %s" % (label, final["mempool"]))
            print("     gro %-5s: %d frames in, %d to the guest, %d dropped %s, merged %d"
                  % (label, d["rx_pkts"], d["tx_pkts"], d["drops"],
                     {k: v for k, v in d.items() if k.startswith("drop_") and v},
                     d["gro_merged"]))


def test_lying_virtio_net_headers_from_a_guest():
    """A virtio-user guest whose TSO frames carry headers that lie (gso_size
    0, 1, 65535; csum_start beyond the frame), every other frame: vfwd
    drops what it cannot make valid, counted by cause, and forwards the
    rest to the wire as correct segments."""
    from vfwdtest import Env as E
    with E("badhdr") as env:
        vh, mf = env.path("vh.sock"), env.path("memif.sock")
        vf = env.vfwd(["net_vhost0,iface=%s,tso=1" % vh, "net_memif0,role=server,socket=%s" % mf],
                      ["--stats-format", "json"])
        vf.wait_output("forwarding started", 30)
        peer = env.peer(["net_virtio_user0,path=%s,queue_size=1024" % vh,
                         "net_memif0,role=client,socket=" + mf],
                        ["--tx-port", "0", "--rx-port", "1", "--count", "4000", "--tcp",
                         "--tso", "4", "--mss", "1448", "--bad-hdr", "--verify-csum",
                         "--timeout", "60", "--linger"])
        peer.wait_output('"tx"', 90)
        got = peer.last_json()
        rc = vf.stop(20)
        peer.stop(20)
        check(rc == 0, "vfwd exit %d: %s" % (rc, vf.err()[-1500:]))
        final = vf.last_json()
        d = dir_stats(final, "vm_to_wire")
        causes = sum(v for k, v in d.items() if k.startswith("drop_"))
        check(causes == d["drops"], "drop causes %d != drops %d" % (causes, d["drops"]))
        check(d["out_expected"] == d["tx_pkts"] + d["drops"], "accounting: %s" % d)
        check(d["drop_bad_gso"] + d["drop_bad_csum"] > 0, "no lying header was refused: %s" % d)
        # what reached the wire: every frame vfwd sent, none longer than the
        # MTU, every valid segment with correct checksums. (Frames whose
        # csum_start lay beyond them come through vhost as the guest's own
        # garbage: 54-byte frames whose IP length claims more; rx_bad.)
        arrived = got["rx"] + got["rx_other"]
        check(arrived == d["tx_pkts"], "wire got %d, vfwd sent %d: %s" % (arrived, d["tx_pkts"], got))
        check(got["rx_max_len"] <= 1514, "a frame beyond the MTU reached the wire: %s" % got)
        check(got["rx_bad_csum"] == 0, "bad checksums on the wire: %s" % got)
        check(got["rx"] - got["rx_bad"] > 0, "nothing valid got through")
        check(final["mempool"]["in_use"] == final["mempool"]["in_use_at_start"], final["mempool"])
        print("     %d guest frames: %d segments to the wire, bad_gso %d, bad_csum %d, "
              "oversize %d, tx_full %d" % (d["rx_pkts"], d["tx_pkts"], d["drop_bad_gso"],
                                           d["drop_bad_csum"], d["drop_oversize"],
                                           d["drop_tx_full"]))
