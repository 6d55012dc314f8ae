#!/usr/bin/env python3
"""A fake node_exporter that serves hostile answers, for test_hostsrc_hostile.sh.

fake_exporter.py ADDR PORT LOG: serves until killed, one line per request in LOG
("PATH HOST-HEADER"), so a test sees what was asked and through which way:
  /ok/metrics    a small valid body
  /dup/metrics   the same series twice (Prometheus refuses such a scrape)
  /sub/metrics   a subnormal value, as Go prints one (1e-320)
  /redirect      302 to /ok/metrics (never to be followed)
  anything else  as a proxy would see it: logged, 502
It is a fake Prometheus too (test_prom_hostile.sh): BASE/api/v1/query with BASE
/prom/CASE answers an instant query for any instance with CASE (PROM_CASES);
BASE /prom/stallon-INSTANCE answers INSTANCE's first query (a run's check that every
host answers), stalls 30 s on its others and answers the other instances' with counters
that advance with the clock, a host 40% busy (test_scale_prom_stall.sh).
"""
import http.server
import json
import sys
import re
import threading
import time
import urllib.parse

OK = (
    'node_cpu_seconds_total{cpu="0",mode="idle"} 100\n'
    'node_cpu_seconds_total{cpu="0",mode="user"} 10\n'
    'node_cpu_seconds_total{cpu="0",mode="system"} 5\n'
    "node_memory_MemTotal_bytes 1e+09\n"
    "node_memory_MemAvailable_bytes 5e+08\n"
)
BODIES = {
    "/ok/metrics": OK,
    "/dup/metrics": OK + 'node_cpu_seconds_total{mode="user",cpu="0"} 10\n',
    "/sub/metrics": OK + 'node_cpu_seconds_total{cpu="0",mode="steal"} 1e-320\n',
}


def series(name, value, **labels):
    return {"metric": dict(__name__=name, instance="h", job="node", **labels),
            "value": [1700000000.5, value]}


def prom_ok(cpu_idle="100", t="NOW"):
    return [series("node_cpu_seconds_total", cpu_idle, cpu="0", mode="idle"),
            series("node_cpu_seconds_total", "10", cpu="0", mode="user"),
            series("node_memory_MemTotal_bytes", "1e+09"),
            series("node_memory_MemAvailable_bytes", "5e+08"),
            {"metric": {"__name__": "hcisweep_sample_time"}, "value": [1700000000.5, t]}]


def vector(result):
    return {"status": "success", "data": {"resultType": "vector", "result": result}}


PROM_CASES = {
    "ok": vector(prom_ok()),
    "sub": vector(prom_ok() + [series("node_cpu_seconds_total", "1e-320", cpu="0", mode="steal")]),
    "huge": vector(prom_ok(cpu_idle="1.7e308")),
    "dup": vector(prom_ok() + [series("node_cpu_seconds_total", "10", cpu="0", mode="user")]),
    "nan": vector(prom_ok(cpu_idle="NaN")),
    "inf": vector(prom_ok(cpu_idle="+Inf")),
    "overflow": vector(prom_ok(cpu_idle="1e999")),
    "neg": vector(prom_ok(cpu_idle="-5")),
    "time_huge": vector(prom_ok(t="1e300")),
    "time_big": vector(prom_ok(t="1e15")),
    "time_nan": vector(prom_ok(t="NaN")),
    "value_number": vector([{"metric": {"__name__": "node_cpu_seconds_total"}, "value": [1, 5]}]),
    "result_object": {"status": "success", "data": {"resultType": "vector", "result": {}}},
    "matrix": {"status": "success", "data": {"resultType": "matrix", "result": []}},
    "status_number": {"status": 1},
    "metric_string": vector([{"metric": "node_cpu_seconds_total", "value": [1, "5"]}]),
    "labels_numbers": vector([{"metric": {"__name__": "node_cpu_seconds_total", "cpu": 0,
                                          "mode": 1}, "value": [1, "5"]}] + prom_ok()),
    "deep": "[" * 100000 + "]" * 100000,
    "notjson": "{\"status\": \"success\", \"data\": ",
    "error": {"status": "error", "errorType": "bad_data", "error": "\x1b[31mred\x1b[0m"},
}


def case_instance(path):
    return path.split("?", 1)[0].split("/")[2][len("stallon-"):]


def prom_live():
    """A host of one CPU 40% busy since the epoch: any two reads give that share."""
    t = time.time()
    return vector([series("node_cpu_seconds_total", "%.3f" % (t * 0.6), cpu="0", mode="idle"),
                   series("node_cpu_seconds_total", "%.3f" % (t * 0.3), cpu="0", mode="user"),
                   series("node_cpu_seconds_total", "%.3f" % (t * 0.1), cpu="0", mode="system"),
                   series("node_memory_MemTotal_bytes", "1e+09"),
                   series("node_memory_MemAvailable_bytes", "5e+08"),
                   {"metric": {"__name__": "hcisweep_sample_time"}, "value": [t, "%.3f" % t]}])


STALLED = {"lock": threading.Lock(), "queries": 0}


class Handler(http.server.BaseHTTPRequestHandler):
    def prom(self, case):
        if case.startswith("stallon-"):
            query = urllib.parse.parse_qs(urllib.parse.urlsplit(self.path).query).get("query", [""])[0]
            case = "live"
            if re.search('instance="%s"' % re.escape(case_instance(self.path)), query):
                with STALLED["lock"]:
                    STALLED["queries"] += 1
                    if STALLED["queries"] > 1:
                        case = "stall"
        if case == "stall":
            time.sleep(30)
            return
        if case == "oversized":
            data = b'{"status":"success","data":{"resultType":"vector","result":[' + \
                b" " * (17 << 20) + b"]}}"
        else:
            body = prom_live() if case == "live" else PROM_CASES.get(case, PROM_CASES["ok"])
            data = (body if isinstance(body, str) else json.dumps(body))
            data = data.replace('"NOW"', '"%.3f"' % time.time()).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        with open(sys.argv[3], "a") as log:
            log.write("%s %s\n" % (self.path, self.headers.get("Host", "")))
        path = self.path.split("?", 1)[0].split("/")
        if len(path) == 6 and path[1] == "prom" and path[3:] == ["api", "v1", "query"]:
            return self.prom(path[2])
        body = BODIES.get(self.path)
        if self.path == "/redirect":
            self.send_response(302)
            self.send_header("Location", "/ok/metrics")
            self.end_headers()
            return
        if body is None:
            self.send_response(502)
            self.end_headers()
            return
        data = body.encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/plain; version=0.0.4")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


http.server.ThreadingHTTPServer.daemon_threads = True
http.server.ThreadingHTTPServer((sys.argv[1], int(sys.argv[2])), Handler).serve_forever()
