# SPDX-License-Identifier: BSD-3-Clause
"""Who may connect to what (doc/security.md): vhost-user sockets 0660 or
tighter with a chosen owner, runtime directory and telemetry root-only,
nothing replaced that is not a stale socket of ours, bounded file
arguments, no shell anywhere."""

import glob
import os
import pwd
import re
import socket
import stat
import subprocess

from vfwdtest import ROOT, VFWD, Env, TestFailure, check


def mode(path):
    return stat.S_IMODE(os.lstat(path).st_mode)


def test_vhost_socket_mode_and_owner():
    with Env("sockmode") as env:
        sock = env.path("vh.sock")
        vf = env.vfwd(["net_vhost0,iface=" + sock, "net_null0,no-rx=1"], [])
        vf.wait_output("forwarding started", 30)
        check(stat.S_ISSOCK(os.lstat(sock).st_mode) and mode(sock) == 0o660,
              "default mode %o" % mode(sock))
        # the runtime directory (telemetry socket, mp socket) is the owner's only
        rundir = "/var/run/dpdk/" + env.prefixes[-1]
        check(mode(rundir) & 0o077 == 0, "runtime dir mode %o" % mode(rundir))
        tele = os.path.join(rundir, "dpdk_telemetry.v2")
        check(os.path.exists(tele) and os.lstat(tele).st_uid == os.geteuid(), "telemetry socket")
        check(vf.stop(20) == 0, vf.err()[-500:])

        nobody = pwd.getpwnam("nobody")
        sock2 = env.path("vh2.sock")
        vf = env.vfwd(["net_vhost0,iface=" + sock2, "net_null0,no-rx=1"],
                      ["--socket-mode", "0600", "--socket-owner", "nobody"], name="vfwd2")
        vf.wait_output("forwarding started", 30)
        st = os.lstat(sock2)
        check(stat.S_IMODE(st.st_mode) == 0o600 and st.st_uid == nobody.pw_uid,
              "mode %o uid %d" % (stat.S_IMODE(st.st_mode), st.st_uid))
        check(vf.stop(20) == 0, vf.err()[-500:])

        for bad in (["--socket-mode", "0666"], ["--socket-mode", "0777"],
                    ["--socket-mode", "9"], ["--socket-owner", "no-such-user-x"],
                    ["--socket-owner", "root:no-such-group-x"]):
            r = subprocess.run([VFWD, "--no-pci", "--in-memory", "--"] + bad,
                               capture_output=True, text=True, timeout=20)
            check(r.returncode == 2 and bad[0] in r.stderr, "%s: rc %d %r" % (bad, r.returncode,
                                                                             r.stderr))


def test_default_socket_not_replaced_unless_stale_and_ours():
    with Env("sockown") as env:
        prefix = env.prefix("own")
        rundir = "/var/run/dpdk/" + prefix
        os.makedirs(rundir, mode=0o700, exist_ok=True)
        path = os.path.join(rundir, "vhost-user0.sock")
        argv = [VFWD, "--lcores", "0@0,1@1", "--no-pci", "--in-memory", "--file-prefix", prefix,
                "--", "--duration", "1"]

        with open(path, "w") as f:
            f.write("not a socket\n")
        r = subprocess.run(argv, capture_output=True, text=True, timeout=30)
        check(r.returncode == 1 and "not a socket" in r.stderr, "rc %d: %s" % (r.returncode, r.stderr[-500:]))
        check(os.path.isfile(path), "a regular file was removed")
        os.unlink(path)

        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.bind(path)
        s.close()  # a stale socket, but someone else's
        os.chown(path, pwd.getpwnam("nobody").pw_uid, -1)
        r = subprocess.run(argv, capture_output=True, text=True, timeout=30)
        check(r.returncode == 1 and "belongs to uid" in r.stderr, "rc %d: %s" % (r.returncode, r.stderr[-500:]))
        check(os.path.exists(path), "someone else's socket was removed")
        os.unlink(path)

        # a live listener whose backlog is full (one pending connection
        # beyond listen(0)): in use, not stale, and vfwd must not hang on it
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.bind(path)
        s.listen(0)
        pending = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        pending.connect(path)
        try:
            r = subprocess.run(argv, capture_output=True, text=True, timeout=30)
        except subprocess.TimeoutExpired:
            raise TestFailure("vfwd hung on a listener with a full backlog")
        finally:
            pending.close()
            s.close()
        check(r.returncode == 1 and "in use by another process" in r.stderr,
              "rc %d: %s" % (r.returncode, r.stderr[-500:]))
        check(os.path.exists(path), "a live socket was removed")
        os.unlink(path)

        # a stale socket of ours (nobody listens): replaced, vfwd runs
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.bind(path)
        s.close()
        r = subprocess.run(argv, capture_output=True, text=True, timeout=30)
        check(r.returncode == 0, "rc %d with a stale socket of ours: %s" % (r.returncode,
                                                                          r.stderr[-500:]))


def test_file_arguments_are_bounded():
    with Env("filebound") as env:
        big = env.path("big.cmd")
        with open(big, "w") as f:
            f.write("# padding\n" * 120000)  # > 1 MiB
        vf = env.vfwd(["net_vhost0,iface=" + env.path("vh.sock"), "net_null0,no-rx=1"],
                      ["--cmdline-file", big])
        check(vf.wait(30) == 1 and "at most 1048576 bytes" in vf.err(), vf.err()[-500:])
        vf = env.vfwd(["net_vhost0,iface=" + env.path("vh.sock"), "net_null0,no-rx=1"],
                      ["--cmdline-file", "/dev/zero"], name="vfwd-zero")
        check(vf.wait(30) == 1 and "not a regular file" in vf.err(), vf.err()[-500:])


def test_no_shell_in_the_program():
    """No command, option or file argument can reach a shell: the program
    calls none (system, popen, exec*)."""
    srcs = glob.glob(os.path.join(ROOT, "app", "*.c")) + glob.glob(os.path.join(ROOT, "lib", "*.c"))
    check(srcs, "no sources found")
    pat = re.compile(r"\b(system|popen|execl|execlp|execle|execv|execvp|execvpe|posix_spawn)\s*\(")
    hits = []
    for path in srcs:
        with open(path) as f:
            for n, line in enumerate(f, 1):
                if pat.search(line):
                    hits.append("%s:%d: %s" % (os.path.relpath(path, ROOT), n, line.strip()))
    check(not hits, "shell/exec calls:\n" + "\n".join(hits))
    out = subprocess.run(["nm", "-D", "--undefined-only", VFWD], capture_output=True,
                         text=True).stdout
    for sym in ("system", "popen", "execv", "execvp"):
        check(not re.search(r"\b%s\b" % sym, out), "dpdk-vfwd imports %s" % sym)
