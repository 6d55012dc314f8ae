list(APPEND HCISWEEP_SOURCES
  lab/backends.c lab/backend_local.c lab/backend_static.c lab/backend_qemu.c
  lab/cgroup.c lab/cgroup_file.c lab/cgroup_v1.c lab/cgroup_v2.c lab/labstate.c lab/lab.c lab/proc.c lab/sql.c lab/labdir.c
  lab/target.c lab/vmdisk.c lab/labopts.c lab/guest.c lab/qmp.c lab/labhost.c lab/hosts.c lab/qga.c
  lab/guest_driver.c lab/ssh.c lab/cluster.c)
if(LIBVIRT_FOUND)
  list(APPEND HCISWEEP_SOURCES lab/backend_libvirt.c lab/hostsrc_libvirt.c lab/qga_libvirt.c)
endif()
