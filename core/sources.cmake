list(APPEND HCISWEEP_SOURCES
  core/clock.c core/hist.c core/parse.c core/opts.c core/log.c
  core/monitor.c core/progress.c core/resfile.c core/metrics.c core/steady.c
  core/bdev.c core/secret.c core/procfs.c core/sbuf.c core/reactor.c
  core/expo.c core/hostsrc.c core/hostsrc_procfs.c core/hostsrc_node.c core/hostsrc_http.c
  core/hostsrc_prom.c core/hostport.c core/base64.c
  core/driverproto.c core/steady_merge.c)
