list(APPEND HCISWEEP_SOURCES
  scale/scale.c scale/scale_probe.c scale/scale_load.c scale/scale_out.c scale/live.c
  scale/search.c)
