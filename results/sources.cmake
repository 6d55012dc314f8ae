list(APPEND HCISWEEP_SOURCES
  results/ramp.c results/ramp_json.c results/knee.c
  results/runinfo.c results/store.c
  results/cmd_analyze.c results/cmd_results.c)
