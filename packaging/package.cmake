# packaging/package.cmake - what `cmake --install` puts where, and the .deb
# CPack builds from it (cpack -G DEB in the build directory).
#
# The man page and the bash completion are made at build time by the binary
# itself (`hcisweep help --man`, `hcisweep completion bash`) from the same
# options tables as --help, so they never lag behind an option.
include(GNUInstallDirs)

set(HCISWEEP_PACKAGE_MAINTAINER "hcisweep maintainers <maintainers@hcisweep.invalid>"
  CACHE STRING "Maintainer field of the .deb and its changelog")

add_custom_command(
  OUTPUT ${CMAKE_BINARY_DIR}/hcisweep.1 ${CMAKE_BINARY_DIR}/hcisweep.1.gz
         ${CMAKE_BINARY_DIR}/hcisweep.bash-completion
  COMMAND sh -c "\"$1\" help --man > hcisweep.1 && gzip -9nc hcisweep.1 > hcisweep.1.gz && \"$1\" completion bash > hcisweep.bash-completion"
          sh $<TARGET_FILE:hcisweep>
  DEPENDS hcisweep
  WORKING_DIRECTORY ${CMAKE_BINARY_DIR}
  COMMENT "man page and bash completion from the options tables"
  VERBATIM)

# Debian wants a changelog in every package; its date is the configure time.
string(TIMESTAMP HCISWEEP_CHANGELOG_DATE "%a, %d %b %Y %H:%M:%S +0000" UTC)
configure_file(${CMAKE_SOURCE_DIR}/packaging/changelog.in ${CMAKE_BINARY_DIR}/changelog @ONLY)
add_custom_command(
  OUTPUT ${CMAKE_BINARY_DIR}/changelog.gz
  COMMAND gzip -9nc changelog > changelog.gz
  DEPENDS ${CMAKE_BINARY_DIR}/changelog
  WORKING_DIRECTORY ${CMAKE_BINARY_DIR}
  VERBATIM)
add_custom_target(docs ALL DEPENDS ${CMAKE_BINARY_DIR}/hcisweep.1.gz
  ${CMAKE_BINARY_DIR}/hcisweep.bash-completion ${CMAKE_BINARY_DIR}/changelog.gz)

install(TARGETS hcisweep RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES ${CMAKE_BINARY_DIR}/hcisweep.1.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES ${CMAKE_BINARY_DIR}/hcisweep.bash-completion
  DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions RENAME hcisweep)
install(FILES ${CMAKE_SOURCE_DIR}/packaging/copyright ${CMAKE_BINARY_DIR}/changelog.gz
  DESTINATION ${CMAKE_INSTALL_DOCDIR})

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME hcisweep)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT ${HCISWEEP_PACKAGE_MAINTAINER})
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
  "benchmark suite for hyperconverged and two-layer storage")
set(CPACK_PACKAGE_DESCRIPTION
  "hcisweep measures block storage (iSCSI through libiscsi, files and devices
through io_uring), runs sysbench-style OLTP against many MySQL/MariaDB servers
at once, and steps the number of database VMs up until compute starts
limiting storage, for hyperconverged and two-layer designs alike. It writes
fio-compatible JSON and serves live metrics for Prometheus.")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# Depends: computed by dpkg-shlibdeps from what the binary links.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "tgt, mariadb-server, qemu-system-common")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "fio, sysbench, prometheus, libiscsi-bin")
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
set(CPACK_STRIP_FILES ON)
include(CPack)
