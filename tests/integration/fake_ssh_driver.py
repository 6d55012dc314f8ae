#!/usr/bin/env python3
"""A fake `ssh` for test_driver_hostile.sh: put early on PATH as `ssh`, it stands
for the host at the other end of a remote driver and speaks the driver protocol
(core/driverproto.h) with one hostile turn, chosen by $HOSTILE_DRIVER_CASE.

`ssh ... -- REMOTE` runs REMOTE here (`hcisweep --version`, or the real driver,
`hcisweep oltp run ... --start-on-go`, against the test's real MariaDB) and relays
its lines both ways, changing the one the case names:
  started_min / started_max  the started line's time is INT64_MIN / INT64_MAX
  long                       a line of 5000 bytes before the ready line
  garbage                    binary garbage lines before the ready line
  wrap                       the result's transactions and queries wrap 64 bits
  cpu_neg / cpu_huge         the result line's cpu= is -5 / 1e308
  exit_255 / exit_signal     the driver's output relayed whole, then ssh exits 255 /
                             dies of SIGSEGV (what a client reports as an exit status
                             out of a driver's range)
  midline                    the started line cut in the middle, then the end of output
  silent                     after the started line nothing more, and never an exit
  (none)                     every line as it came
"""
import json
import os
import signal
import subprocess
import sys
import threading
import time

case = os.environ.get("HOSTILE_DRIVER_CASE", "")
remote = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else sys.argv[-1:]
if "--version" in " ".join(remote):
    os.execvp("bash", ["bash", "-c", " ".join(remote)])

child = subprocess.Popen(["bash", "-c", " ".join(remote)], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE)
out = sys.stdout.buffer


def feed():
    """The controller's orders, to the real driver."""
    for line in sys.stdin.buffer:
        try:
            child.stdin.write(line)
            child.stdin.flush()
        except BrokenPipeError:
            break
    try:
        child.stdin.close()
    except BrokenPipeError:
        pass


threading.Thread(target=feed, daemon=True).start()


def send(b):
    out.write(b)
    out.flush()


if case == "long":
    send(b"hcisweep-driver sample " + b"7" * 5000 + b"\n")
if case == "garbage":
    send(b"\x00\xff\xfehcisweep-driver \x1b[31m\n" + b"hcisweep-driver ready \x1b[31m\xff\n" +
         b"hcisweep-driver started 12abc\n" + b"hcisweep-driver result 99999999999999999999999\n")
after_result = False
for line in child.stdout:
    if line.startswith(b"hcisweep-driver started "):
        if case == "started_min":
            line = b"hcisweep-driver started -9223372036854775808\n"
        elif case == "started_max":
            line = b"hcisweep-driver started 9223372036854775807\n"
        elif case == "midline":
            send(line[:len(line) // 2])
            os._exit(0)
        elif case == "silent":
            send(line)
            child.kill()
            while True:
                time.sleep(60)
    elif line.startswith(b"hcisweep-driver result"):
        if case == "cpu_neg":
            line = b"hcisweep-driver result cpu=-5\n"
        elif case == "cpu_huge":
            line = b"hcisweep-driver result cpu=1e308\n"
        after_result = True
    elif after_result and case == "wrap" and line.startswith(b"{"):
        doc = json.loads(line)
        doc["totals"]["transactions"] = 2**64 + 5
        doc["totals"]["queries"]["read"] = 2**64 - 1
        line = json.dumps(doc).encode() + b"\n"
        after_result = False
    send(line)
rc = child.wait()
if case == "exit_255":
    os._exit(255)
if case == "exit_signal":
    signal.signal(signal.SIGSEGV, signal.SIG_DFL)
    os.kill(os.getpid(), signal.SIGSEGV)
os._exit(rc if rc >= 0 else 128 - rc)
