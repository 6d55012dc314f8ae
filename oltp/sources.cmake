list(APPEND HCISWEEP_SOURCES oltp/cmd_oltp.c)
