# mkscale.py - constructed scale results for the report and compare tests.
#   python3 mkscale.py KIND OUT.json
#   KIND: hci | two-layer | ort | cluster | cluster-swap
# cluster: a two-layer static inventory, compute hosts h1 (saturating) and h2
# and storage host s1, each step's cluster.hosts as lab/cluster.c
# writes them; h2 did not answer at 16 VMs. cluster-swap: h1's and h2's
# figures exchanged (the busiest host must follow the figures).
# Histograms are built in the loglin-8 layout of core/hist.h, so the report
# reads real merged-histogram percentiles off them.
import json
import sys


def bucket(ns):
    if ns < 256:
        return ns
    shift = ns.bit_length() - 1 - 7
    return (shift << 7) + (ns >> shift)


def hist(pairs):
    """pairs: [(value_ns, count)] -> the "hist" object of hist_to_json."""
    b = {}
    for v, n in pairs:
        b[bucket(v)] = b.get(bucket(v), 0) + n
    vals = [v for v, _ in pairs]
    return {"layout": "loglin-8", "count": sum(n for _, n in pairs), "min": min(vals),
            "max": max(vals), "sum": sum(v * n for v, n in pairs),
            "sumsq": sum(v * v * n for v, n in pairs),
            "buckets": [[k, b[k]] for k in sorted(b)]}


def step(vms, tps, pairs, cpu_busy=50.0, steal=0.0, iops=0.0, ivs=None):
    h = hist(pairs)
    s = {"vms": vms,
         "totals": {"transactions": int(tps * 60), "tps": tps, "qps": tps * 20,
                    "errors": 0, "reconnects": 0},
         "lat_ns": {"mean": h["sum"] / h["count"]}, "hist": h,
         "host_cpu": {"user": cpu_busy - steal - 10, "system": 10.0, "iowait": 2.0,
                      "steal": steal, "idle": 100.0 - cpu_busy - 2.0},
         "storage": {"r_iops": iops * 0.7, "w_iops": iops * 0.3,
                     "r_bytes_s": iops * 0.7 * 16384, "w_bytes_s": iops * 0.3 * 16384,
                     "util": 40.0}}
    if ivs:
        s["intervals"] = [{"t": i + 1, "tps": v} for i, v in enumerate(ivs)]
    return s


def top(topology, steps, tip):
    return {"schema_version": 1, "hcisweep_version": "0.1.0", "kind": "scale",
            "started_at": "2026-01-01T00:00:00Z",
            "config": {"backend": "local", "vms": [s["vms"] for s in steps],
                       "topology": topology, "threads": 8, "time": 60,
                       "mysql-host": "127.0.0.1", "json": "/tmp/x.json"},
            "host": {"cpus": 2, "model": "test", "kernel": "6", "memory_bytes": 1 << 34,
                     "hostname": "h"},
            "monitor": {"interval_s": 2, "samples": [],
                        "summary": {"cpu": {"user": 40, "system": 10, "iowait": 1,
                                            "steal": 0, "idle": 49},
                                    "steal_max": 0, "untrusted": False, "reason": ""}},
            "steps": steps, "tipping_point": tip}


MS = 1000000
VMS = [4, 8, 12, 16, 20, 24, 28, 32]
kind, out = sys.argv[1], sys.argv[2]
if kind == "hci":
    # ahead while compute lasts, flat from 20 VMs: 980 fast samples, 20 at 4x
    tps = [1000, 2000, 3000, 3900, 4600, 4700, 4600, 4500]
    lat = [2, 2, 2.5, 3, 4, 6, 9, 12]
    busy = [20, 40, 60, 80, 96, 99, 99, 99]
    steps = [step(v, t, [(int(m * MS), 980), (int(4 * m * MS), 20)], b, 0.5, 500 * v)
             for v, t, m, b in zip(VMS, tps, lat, busy)]
    doc = top("hci", steps, {"vms": 20, "limited_by": "cpu",
                             "reason": "host CPU busy 96% at 20 VMs while storage "
                                       "utilisation is 40%"})
elif kind == "two-layer":
    tps = [800, 1600, 2400, 3200, 4000, 4800, 5600, 6200]
    lat = [3, 3, 3, 3.2, 3.4, 3.6, 4, 4.5]
    steps = [step(v, t, [(int(m * MS), 980), (int(4 * m * MS), 20)], 10 + 2 * v, 0, 600 * v)
             for v, t, m in zip(VMS, tps, lat)]
    doc = top("two-layer", steps, {"vms": 0, "limited_by": "none",
                                   "reason": "TPS still scaled at 32 VMs"})
elif kind in ("cluster", "cluster-swap"):
    vms = [4, 8, 12, 16]
    tps = [1000, 2000, 2900, 3000]
    hot, cold, stor = [50, 80, 95, 99], [30, 45, 55, 60], [20, 30, 40, 41]
    if kind == "cluster-swap":
        hot, cold = cold, hot

    def host(name, role, busy, util, steal=0.0, seconds=60.0):
        return {"name": name, "role": role, "source": "node_exporter", "controller": False,
                "seconds": seconds,
                "cpu": {"busy": busy, "user": busy - 10 - steal, "system": 10.0, "iowait": 1.0,
                        "steal": steal, "busiest_cpu": min(100.0, busy + 3)},
                "memory": {"used_pct": 40.0, "swap_in_s": 0.0, "swap_out_s": 0.0},
                "disks": [{"name": "sda", "util_pct": util / 2, "iops": 100.0, "lat_ms": 0.5,
                           "read_bytes_s": 1e6, "write_bytes_s": 2e6},
                          {"name": "sdb", "util_pct": util, "iops": 900.0, "lat_ms": 1.5,
                           "read_bytes_s": 8e6, "write_bytes_s": 4e6}],
                "net": {"rx_bytes_s": 12.5e6, "tx_bytes_s": 2.5e6}}

    steps = []
    for i, v in enumerate(vms):
        s = step(v, tps[i], [(2 * MS, 1000)], 30.0, 0.0, 400 * v)
        hs = [host("h1", "compute", hot[i], 10 + i, 1.5), host("h2", "compute", cold[i], 5 + i),
              host("s1", "storage", stor[i], 50 + 5 * i)]
        if v == 16:
            name = "h2" if kind == "cluster" else "h1"
            hs[[h["name"] for h in hs].index(name)] = {
                "name": name, "role": "compute", "source": "node_exporter",
                "controller": False, "seconds": 0.0, "cpu": None, "memory": None,
                "disks": [], "net": None, "missing": True,
                "error": "http://127.0.0.3:9100/metrics: connection refused"}
        s["cluster"] = {"hosts": hs}
        steps.append(s)
    doc = top("two-layer", steps, {"vms": 8, "limited_by": "cpu", "reason": "recorded"})
else:
    # ORT by hand: points (tps, mean ms) (100,2) (200,4) (400,8) peak, then (300,20).
    # Area to the peak = 100*(2+4)/2 + 200*(4+8)/2 = 300 + 1200 = 1500;
    # overall response time = 1500 / 400 = 3.75 ms.
    pts = [(1, 100, 2), (2, 200, 4), (3, 400, 8), (4, 300, 20)]
    steps = [step(v, t, [(m * MS, 1000)], ivs=[t * 0.7, t * 1.3] if v == 4 else None)
             for v, t, m in pts]
    doc = top("ort", steps, {"vms": 3, "limited_by": "storage",
                             "reason": "storage latency more than twice that of the first step"})
json.dump(doc, open(out, "w"), indent=1)
