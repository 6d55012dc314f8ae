list(APPEND HCISWEEP_SOURCES
  block/engines.c block/engine_null.c block/engine_psync.c
  block/verify.c block/safety.c block/url.c block/inuse.c block/run.c block/cmd_block.c)
list(APPEND HCISWEEP_SOURCES block/file_common.c block/fio_json.c block/live.c)
list(APPEND HCISWEEP_SOURCES block/clients_agg.c block/clients.c block/client_driver.c
  block/clients_scan.c block/clients_hosts.c block/clients_vms.c)
if(WITH_IO_URING)
  list(APPEND HCISWEEP_SOURCES block/engine_uring.c)
endif()
if(WITH_LIBISCSI)
  list(APPEND HCISWEEP_SOURCES block/engine_libiscsi.c)
endif()
