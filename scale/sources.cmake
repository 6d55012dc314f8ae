list(APPEND HCISWEEP_SOURCES
  scale/cmd_scale.c scale/scale_opts.c scale/scale_vms.c scale/scale_sum.c
  scale/scale_json.c scale/scale_drivers.c
  scale/scale_probe.c scale/scale_load.c scale/scale_out.c scale/live.c scale/search.c)
