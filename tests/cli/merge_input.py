#!/usr/bin/env python3
"""An `oltp run` result for the merge's tests and bench (tests/cli/test_merge_limits.sh,
bench/merge_cost): merge_input.py NAME [key=value...], the least result tests/cli
reads, with the fields the cases change:
  tx, tps        the totals' transactions and TPS
  threads        the thread count (a JSON number)
  rows, off      ROWS intervals at t = 1 + i + OFF; ts: further rows at the t of a JSON list
  hosts          that many hosts[], named by hostname (%d: the index; default h%d), on port
  qw             a rate object whose queue_wait_ns min and max are QW
  buckets        a histogram whose bucket counts wrap uint64
"""
import json, sys
name, kv = sys.argv[1], dict(a.split("=", 1) for a in sys.argv[2:])
def hist(n=0, lo=1000):
    if n == 0:
        return {"layout": "loglin-8", "count": 0, "min": 0, "max": 0, "sum": 0, "sumsq": 0, "buckets": []}
    return {"layout": "loglin-8", "count": n, "min": 200, "max": 200, "sum": 200 * n, "sumsq": 0,
            "buckets": [[200, n]]}
def totals(tx=0, tps=0.0):
    return {"transactions": tx, "tps": tps, "queries": {"read": 0, "write": 0, "other": 0},
            "qps": 0, "errors": 0, "reconnects": 0, "failed_connects": 0}
def row(t, tps=1.0):
    return {"t": t, "tps": tps, "qps": 0, "queries_s": {"read": 0, "write": 0, "other": 0},
            "errors_s": 0, "reconnects_s": 0, "lat_ns": {"percentile": {"95.0": 5}}}
tx = int(kv.get("tx", 0))
r = {"schema_version": 1, "kind": "oltp", "config": {"workload": "oltp_read_write"},
     "seconds": 1, "threads": json.loads(kv.get("threads", "1")), "totals": totals(tx, json.loads(kv.get("tps", "0"))),
     "lat_ns": {"percentile": {"95.0": 0}}, "hist": hist(), "hosts": [], "intervals": []}
nrows, off = int(kv.get("rows", 0)), float(kv.get("off", 0))
r["intervals"] = [row(1 + i + off) for i in range(nrows)]
for t in json.loads(kv.get("ts", "[]")):
    r["intervals"].append(row(t))
nh = int(kv.get("hosts", 0))
hn = kv.get("hostname", "h%d")
r["hosts"] = [{"host": hn % i if "%d" in hn else hn, "port": json.loads(kv.get("port", "3306")),
               "totals": totals(1, 1.0), "lat_ns": {}, "hist": hist(1)} for i in range(nh)]
if "qw" in kv:
    r["rate"] = {"target_tps": 10, "achieved_tps": 10, "queue_overflows": 0, "overloaded": False,
                 "queue_wait_ns": {"min": json.loads(kv["qw"]), "max": json.loads(kv["qw"])}}
if "buckets" in kv:
    r["hist"] = {"layout": "loglin-8", "count": 0, "min": 200, "max": 202, "sum": 0, "sumsq": 0,
                 "buckets": [[200, 2**63 - 1], [201, 2**63 - 1], [202, 2]]}
json.dump(r, open(name, "w"))
