list(APPEND HCISWEEP_SOURCES
  results/ramp.c results/ramp_hosts.c results/ramp_json.c results/knee.c
  results/runinfo.c results/store.c
  results/cmd_analyze.c results/cmd_results.c)
list(APPEND HCISWEEP_SOURCES
  results/rundir.c results/svg.c results/cmd_report.c results/report_doc.c
  results/report_kinds.c results/report_hosts.c results/report_series.c results/report_view.c
  results/compare.c results/report_clients.c)
list(APPEND HCISWEEP_SOURCES results/usl.c results/tipping.c results/tip_attr.c
  results/tip_json.c results/save.c results/result.c results/tip_verdict.c
  results/tip_hosts.c results/tip_scan.c)
