/*
 * series_gen.c - test helper: a result whose series files are as long as asked, written by
 * the series writer itself (core/resfile.h), so a reader of any length can be tested
 * without measuring for hours.
 *
 *   series_gen DIR MB
 *
 * Writes DIR/result.json (an oltp result) whose host monitor samples and intervals are in
 * DIR/monitor.samples.ndjson and DIR/intervals.ndjson, together about MB megabytes, one
 * monitor sample a second (two CPUs, two disks, one interface, as the monitor writes them)
 * and one interval a second. Exit 0, or 4 with the error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "core/clock.h"
#include "core/resfile.h"

static json_t *cpu(double busy)
{
        return json_pack("{s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:f}", "user", busy * 0.7, "nice", 0.0,
                         "system", busy * 0.3, "iowait", 1.5, "irq", 0.0, "softirq", 0.2, "steal",
                         0.0, "idle", 100 - busy - 1.7);
}

static json_t *disk(double iops)
{
        return json_pack("{s:f,s:f,s:f,s:f,s:f,s:f,s:f}", "r_iops", iops, "w_iops", iops / 2,
                         "r_bytes_s", iops * 4096, "w_bytes_s", iops * 2048, "util", 42.5, "aqu_sz",
                         1.25, "await_ms", 0.75);
}

static json_t *sample(size_t i)
{
        double busy = 40 + (double)(i % 20);

        return json_pack("{s:f,s:f,s:o,s:[o,o],s:{s:o,s:o},s:{s:{s:f,s:f,s:f,s:f}},s:{}}", "t",
                         (double)i, "dt", 1.0, "cpu", cpu(busy), "cpus", cpu(busy - 5),
                         cpu(busy + 5), "disks", "vda", disk(1000 + (double)i), "vdb", disk(500),
                         "net", "lo", "rx_bytes_s", 1e6, "tx_bytes_s", 1e6, "rx_pkts_s", 900.0,
                         "tx_pkts_s", 900.0, "pids");
}

static json_t *interval(size_t i)
{
        return json_pack("{s:f,s:f,s:f,s:{s:f,s:{s:f,s:f}}}", "t", (double)(i + 1), "tps",
                         300 + (double)(i % 7), "qps", 6000 + (double)(i % 7), "lat_ns", "mean",
                         3e6, "percentile", "95.0", 5e6, "99.0", 7e6);
}

/* Rows of make(i) into DIR/name until the file reaches bytes. */
static int fill(const char *dir, const char *name, json_t *(*make)(size_t), off_t bytes,
                size_t *rows, char *err, size_t errlen)
{
        struct res_series *s;
        char path[4200];
        struct stat st;
        int rc = res_series_open(&s, dir, name, rows, err, errlen);

        snprintf(path, sizeof(path), "%s/%s", dir, name);
        for (size_t i = *rows; !rc; i++) {
                json_t *row = make(i);

                rc = row ? res_series_add(s, row, err, errlen) : -1;
                json_decref(row);
                ++*rows;
                if (!rc && i % 1024 == 0 && !fflush(NULL) && !stat(path, &st) &&
                    st.st_size >= bytes)
                        break;
        }
        return res_series_close(s, err, errlen) || rc ? -1 : 0;
}

int main(int argc, char **argv)
{
        char err[512], path[4200], start[32];
        size_t nsamples = 0, nivs = 0;
        off_t mb;
        json_t *r, *cfg;

        if (argc != 3 || (mb = atol(argv[2])) <= 0) {
                fprintf(stderr, "usage: series_gen DIR MB\n");
                return 2;
        }
        if (res_mkdirs(argv[1], err, sizeof(err)) ||
            fill(argv[1], "monitor.samples.ndjson", sample, mb * 19 / 20 << 20, &nsamples, err,
                 sizeof(err)) ||
            fill(argv[1], "intervals.ndjson", interval, mb / 20 << 20, &nivs, err, sizeof(err))) {
                fprintf(stderr, "series_gen: %s\n", err);
                return 4;
        }
        clk_iso8601_ms(clk_real_ms() - (int64_t)nsamples * 1000, start, sizeof(start));
        cfg = json_object();
        r = res_new("oltp", cfg); /* takes its own reference */
        json_decref(cfg);
        json_object_set_new(r, "monitor",
                            json_pack("{s:s,s:f,s:{s:s,s:s,s:I},s:{s:o,s:f,s:b,s:s,s:i}}",
                                      "started_at", start, "interval_s", 1.0, "samples", "file",
                                      "monitor.samples.ndjson", "format", "ndjson", "rows",
                                      (json_int_t)nsamples, "summary", "cpu", cpu(50), "steal_max",
                                      0.0, "untrusted", 0, "reason", "", "samples_dropped", 0));
        json_object_set_new(r, "seconds", json_real((double)nivs));
        json_object_set_new(r, "totals", json_pack("{s:f,s:f}", "tps", 303.0, "qps", 6060.0));
        json_object_set_new(r, "intervals",
                            json_pack("{s:s,s:s,s:I}", "file", "intervals.ndjson", "format",
                                      "ndjson", "rows", (json_int_t)nivs));
        snprintf(path, sizeof(path), "%s/result.json", argv[1]);
        if (res_write_json(path, r, err, sizeof(err))) {
                fprintf(stderr, "series_gen: %s\n", err);
                json_decref(r);
                return 4;
        }
        printf("series_gen: %zu samples, %zu intervals\n", nsamples, nivs);
        json_decref(r);
        return 0;
}
