#!/usr/bin/env python3
"""A fake node_exporter that serves hostile answers, for test_hostsrc_hostile.sh.

fake_exporter.py ADDR PORT LOG: serves until killed, one line per request in LOG
("PATH HOST-HEADER"), so a test sees what was asked and through which way:
  /ok/metrics    a small valid body
  /dup/metrics   the same series twice (Prometheus refuses such a scrape)
  /sub/metrics   a subnormal value, as Go prints one (1e-320)
  /redirect      302 to /ok/metrics (never to be followed)
  anything else  as a proxy would see it: logged, 502
"""
import http.server
import sys

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


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        with open(sys.argv[3], "a") as log:
            log.write("%s %s\n" % (self.path, self.headers.get("Host", "")))
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


http.server.HTTPServer((sys.argv[1], int(sys.argv[2])), Handler).serve_forever()
