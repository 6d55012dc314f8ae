list(APPEND HCISWEEP_SOURCES
  oltp/cmd_oltp.c oltp/drvside.c oltp/oltpopts.c oltp/drivers.c oltp/driver_mariadb.c oltp/rand.c oltp/workload.c
  oltp/engine.c oltp/prepare.c oltp/report.c oltp/live.c oltp/merge.c)
