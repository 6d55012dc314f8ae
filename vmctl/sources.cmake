list(APPEND HCISWEEP_SOURCES
  vmctl/backends.c vmctl/backend_local.c vmctl/backend_static.c vmctl/cgroup.c
  vmctl/labstate.c vmctl/lab.c vmctl/proc.c vmctl/sql.c vmctl/tipping.c
  vmctl/scale.c vmctl/scale_probe.c vmctl/scale_out.c
  vmctl/backend_qemu.c vmctl/labdir.c vmctl/target.c
  vmctl/labopts.c vmctl/guest.c vmctl/qmp.c)
if(LIBVIRT_FOUND)
  list(APPEND HCISWEEP_SOURCES vmctl/backend_libvirt.c)
endif()
