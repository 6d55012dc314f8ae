#!/usr/bin/env python3
"""A hostile QEMU guest agent on a unix socket, the stand-in for the chardev of
QEMU's virtio-serial port that lab/qga.c connects to (qga.h), so the guest
bridge (`hcisweep lab guest-driver`) can be fed answers no real qemu-ga gives.
The real agent is tested in the slow tier (test_qemu_drivers_slow.sh).

  fake_qga.py SOCKET CASE LOG

serves one client after another until killed; every command name goes to LOG.
The driver (the guest-exec of /srv/hcisweep/bin/hcisweep) is "ready" at once
(its ready file opens) and has exited at its first guest-exec-status. CASE
says what is hostile:
  time_min       guest-get-time answers INT64_MIN
  time_big       guest-get-time answers 2^64 (no int64: not JSON jansson takes)
  time_float     guest-get-time answers 1.5
  started_min    the driver printed "hcisweep-driver started -9223372036854775808"
  started_max    ... "started 9223372036854775807"
  sig_min        exit status with signal INT_MIN
  sig_max        ... signal INT_MAX
  sig_stop       ... signal 19 (SIGSTOP)
  code_256       exit code 256
  code_2p40      exit code 2^40
  code_str       exit code "0" (a string)
  bad_json       guest-exec-status answers a line that is not JSON
  wrong_type     guest-exec-status answers {"return": [1, 2]}
  oversized      guest-exec-status answers a line over the reader's 64 MiB
  ok             a plain driver (exit 0)
A streaming driver (`--start-on-go` in its arguments: started as /bin/sh -c
'exec "$0" "$@" <GO.in >GO.out', its stdin a FIFO written with guest-file-write,
its stdout the file GO.out read with guest-file-read from an offset) has exited
at its first guest-exec-status too; what GO.out holds is then read to its end:
  s_ok           three lines (ready, started, one more)
  s_long         'A's without end: a line with no newline, over the bridge's bound
  s_b64          every read answers buf-b64 that is not base64
  s_count        every read answers more bytes than were asked for
  s_handle_str   guest-file-open answers a string for the handle
  s_write_err    guest-file-write answers an error (the driver's input ends)
"""
import base64
import json
import os
import socket
import sys

DRIVER = "/srv/hcisweep/bin/hcisweep"
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
INT_MIN, INT_MAX = -(2**31), 2**31 - 1


def status(case):
    out = "hcisweep-driver ready\nhcisweep-driver started 1000000000\n"
    if case == "started_min":
        out = "hcisweep-driver started %d\n" % INT64_MIN
    elif case == "started_max":
        out = "hcisweep-driver started %d\n" % INT64_MAX
    ret = {"exited": True, "exitcode": 0,
           "out-data": base64.b64encode(out.encode()).decode(),
           "err-data": base64.b64encode(b"driver log\n").decode()}
    sig = {"sig_min": INT_MIN, "sig_max": INT_MAX, "sig_stop": 19}.get(case)
    if sig is not None:
        del ret["exitcode"]
        ret["signal"] = sig
    code = {"code_256": 256, "code_2p40": 2**40, "code_str": "0"}.get(case)
    if code is not None:
        ret["exitcode"] = code
    return json.dumps({"return": ret}).encode() + b"\n"


STREAM_OUT = (b"hcisweep-driver ready\nhcisweep-driver started 1000000000\n"
              b"hcisweep-driver line two\n")


def is_driver(args):
    """The driver itself, or a streaming driver's shell (exec "$0" on its FIFOs)."""
    if args.get("path") == DRIVER:
        return True
    return args.get("path") == "/bin/sh" and any(
        'exec "$0"' in a for a in args.get("arg") or [])


def file_read(case, files, args):
    """guest-file-read of a streaming driver's GO.out, as CASE has it."""
    f = files.get(args.get("handle"), {})
    want = int(args.get("count") or 0)
    if not f.get("path", "").endswith(".out"):
        data = b""
    elif case == "s_long":
        data = b"A" * want
    elif case == "s_b64":
        return b'{"return": {"count": 3, "buf-b64": "!!!!", "eof": false}}\n'
    elif case == "s_count":
        data = b"B" * (want + 100)
    else:
        data = STREAM_OUT[f.get("off", 0):f.get("off", 0) + want]
    f["off"] = f.get("off", 0) + len(data)
    return json.dumps({"return": {"count": len(data), "eof": not data,
                                  "buf-b64": base64.b64encode(data).decode()}}).encode() + b"\n"


def answer(cmd, case, pids, files):
    name = cmd.get("execute")
    args = cmd.get("arguments") or {}
    if name == "guest-file-open" and case.startswith("s_"):
        if case == "s_handle_str":
            return b'{"return": "7"}\n'
        h = 10 + len(files)
        files[h] = {"path": args.get("path", ""), "off": 0}
        return b'{"return": %d}\n' % h
    if name == "guest-file-seek" and case.startswith("s_"):
        files.setdefault(args.get("handle"), {})["off"] = int(args.get("offset") or 0)
        return b'{"return": {"position": %d, "eof": false}}\n' % int(args.get("offset") or 0)
    if name == "guest-file-read" and case.startswith("s_"):
        return file_read(case, files, args)
    if name == "guest-file-write":
        if case == "s_write_err":
            return b'{"error": {"class": "GenericError", "desc": "write failed"}}\n'
        n = len(base64.b64decode(args.get("buf-b64") or ""))
        return b'{"return": {"count": %d, "eof": false}}\n' % n
    if name == "guest-exec-status" and case.startswith("s_") and args.get("pid") == 100:
        return b'{"return": {"exited": true, "exitcode": 0}}\n'
    if name == "guest-sync-delimited":
        return b"\xff" + json.dumps({"return": args.get("id")}).encode() + b"\n"
    if name == "guest-exec":
        pid = 100 if is_driver(args) else 200 + len(pids)
        pids.append(pid)
        return b'{"return": {"pid": %d}}\n' % pid
    if name == "guest-exec-status":
        if args.get("pid") != 100:  # rm, kill: done
            return b'{"return": {"exited": true, "exitcode": 0}}\n'
        if case == "bad_json":
            return b'{"return": {"exited": tru\n'
        if case == "wrong_type":
            return b'{"return": [1, 2]}\n'
        if case == "oversized":
            return b'{"return": {"exited": true, "out-data": "' + b"A" * (65 << 20) + b'"}}\n'
        return status(case)
    if name == "guest-get-time":
        t = {"time_min": str(INT64_MIN), "time_big": str(2**64), "time_float": "1.5"}
        return b'{"return": %s}\n' % t.get(case, "1700000000000000000").encode()
    if name == "guest-file-open":
        return b'{"return": 7}\n'
    if name in ("guest-file-close", "guest-file-seek", "guest-file-flush"):
        return b'{"return": {}}\n'
    if name == "guest-file-read":
        return b'{"return": {"count": 0, "buf-b64": "", "eof": true}}\n'
    return b'{"error": {"class": "CommandNotFound", "desc": "no such command"}}\n'


def serve(conn, case, log):
    buf = b""
    pids = []
    files = {}
    while True:
        data = conn.recv(65536)
        if not data:
            return
        buf += data.replace(b"\xff", b"")
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            if not line.strip():
                continue
            try:
                cmd = json.loads(line)
            except ValueError:
                continue
            log.write("%s\n" % cmd.get("execute"))
            log.flush()
            try:
                conn.sendall(answer(cmd, case, pids, files))
            except OSError:
                return


def main():
    path, case, logpath = sys.argv[1:4]
    if os.path.exists(path):
        os.unlink(path)
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(path)
    srv.listen(4)
    with open(logpath, "a") as log:
        while True:
            conn, _ = srv.accept()
            with conn:
                serve(conn, case, log)


if __name__ == "__main__":
    main()
