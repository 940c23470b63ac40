# `cmake --install BUILD --prefix P`: the library, headers, launcher, SPLASH
# macro file, the python tools of `rdsm bench` / `rdsm report`, the
# benchmark programs and the docs (README and the user guide), plus what other builds use to find rdsm:
# a CMake package (find_package(rdsm) -> rdsm::rdsm), rdsm.pc for
# pkg-config, the compiler wrappers rdsmcc / rdsmc++ and a make fragment for
# SPLASH Makefiles.  Every file finds the others relative to itself, so the
# installed tree may be moved.
include(CMakePackageConfigHelpers)

set(RDSM_INSTALL_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/rdsm)
set(RDSM_INSTALL_PKGCONFIG_DIR ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
set(RDSM_INSTALL_DATA_DIR ${CMAKE_INSTALL_DATADIR}/rdsm)
set(RDSM_INSTALL_SPLASH_DIR ${RDSM_INSTALL_DATA_DIR}/splash)
set(RDSM_GENERATED_DIR ${PROJECT_BINARY_DIR}/install)

install(TARGETS rdsm_runtime EXPORT rdsmTargets ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS rdsm RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# Every public header of include/ (rdsm.h, rdsm_splash.h, ... and any C++ header).
install(DIRECTORY include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.h" PATTERN "*.hpp")
install(FILES splash/c.m4.rdsm ${RDSM_GENERATED_DIR}/rdsm.mk DESTINATION ${RDSM_INSTALL_SPLASH_DIR})
install(FILES tools/rdsm_bench.py tools/rdsm_report.py tools/rdsm_build_query.py tools/bench_apps.json
              tools/rdsm_emu.py tools/rdsm_report_common.py tools/rdsm_report_sweep.py tools/rdsm_sim.py
              tools/microbench_report.py tools/launch_job.py tools/rdsm_trace_report.py
              tools/rdsm_report_plots.py
        DESTINATION ${RDSM_INSTALL_DATA_DIR}/tools)
# The guide goes under docs/ beside the README, as in the sources, so that
# their links to each other hold in the installed tree too.
install(FILES README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs)

# `rdsm bench` runs the programs of <libexecdir>/rdsm/apps with the launcher
# it finds next to them.
file(RELATIVE_PATH rdsm_bin_from_libexec ${CMAKE_INSTALL_FULL_LIBEXECDIR}/rdsm ${CMAKE_INSTALL_FULL_BINDIR}/rdsm)
install(CODE "
  set(libexec \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBEXECDIR}/rdsm\")
  file(MAKE_DIRECTORY \"\${libexec}\")
  file(CREATE_LINK \"${rdsm_bin_from_libexec}\" \"\${libexec}/rdsm\" SYMBOLIC)
")

# CMake package.
install(EXPORT rdsmTargets NAMESPACE rdsm:: DESTINATION ${RDSM_INSTALL_CMAKE_DIR})
configure_package_config_file(cmake/rdsmConfig.cmake.in ${RDSM_GENERATED_DIR}/rdsmConfig.cmake
                              INSTALL_DESTINATION ${RDSM_INSTALL_CMAKE_DIR}
                              PATH_VARS RDSM_INSTALL_SPLASH_DIR CMAKE_INSTALL_BINDIR)
write_basic_package_version_file(${RDSM_GENERATED_DIR}/rdsmConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${RDSM_GENERATED_DIR}/rdsmConfig.cmake ${RDSM_GENERATED_DIR}/rdsmConfigVersion.cmake
        DESTINATION ${RDSM_INSTALL_CMAKE_DIR})

# pkg-config, the compiler wrappers and the SPLASH make fragment: paths
# relative to where each file is installed.
set(RDSM_LINK_LIBS "-lrdsm -lstdc++ -lm -pthread")
set(RDSM_CXX_LINK_LIBS "-lrdsm -lm -pthread")
# A library built with sanitizers calls into their runtimes: every program
# linked with it must be linked with them too.
if(RDSM_SANITIZE)
  string(APPEND RDSM_LINK_LIBS " -fsanitize=address,undefined")
  string(APPEND RDSM_CXX_LINK_LIBS " -fsanitize=address,undefined")
endif()
if(RDSM_TSAN)
  string(APPEND RDSM_LINK_LIBS " -fsanitize=thread")
  string(APPEND RDSM_CXX_LINK_LIBS " -fsanitize=thread")
endif()
# The mpi fabric's library: a program linked with a -DRDSM_MPI=ON build
# calls MPI through it.
if(RDSM_MPI)
  set(rdsm_mpi_libs "")
  foreach(lib ${MPI_C_LIBRARIES})
    string(APPEND rdsm_mpi_libs " ${lib}")
  endforeach()
  foreach(flag ${MPI_C_LINK_FLAGS})
    string(APPEND rdsm_mpi_libs " ${flag}")
  endforeach()
  string(APPEND RDSM_LINK_LIBS "${rdsm_mpi_libs}")
  string(APPEND RDSM_CXX_LINK_LIBS "${rdsm_mpi_libs}")
endif()
file(RELATIVE_PATH RDSM_PREFIX_FROM_PKGCONFIG ${CMAKE_INSTALL_PREFIX}/${RDSM_INSTALL_PKGCONFIG_DIR} ${CMAKE_INSTALL_PREFIX})
file(RELATIVE_PATH RDSM_PREFIX_FROM_BIN ${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_BINDIR} ${CMAKE_INSTALL_PREFIX})
file(RELATIVE_PATH RDSM_PREFIX_FROM_SPLASH ${CMAKE_INSTALL_PREFIX}/${RDSM_INSTALL_SPLASH_DIR} ${CMAKE_INSTALL_PREFIX})
configure_file(cmake/rdsm.pc.in ${RDSM_GENERATED_DIR}/rdsm.pc @ONLY)
install(FILES ${RDSM_GENERATED_DIR}/rdsm.pc DESTINATION ${RDSM_INSTALL_PKGCONFIG_DIR})
set(RDSM_WRAPPER_NAME rdsmcc)
set(RDSM_WRAPPER_LANGUAGE C)
set(RDSM_WRAPPER_COMPILER ${CMAKE_C_COMPILER})
set(RDSM_WRAPPER_COMPILER_ENV RDSM_CC)
set(RDSM_WRAPPER_LIBS "${RDSM_LINK_LIBS}")
configure_file(cmake/rdsm_wrapper.in ${RDSM_GENERATED_DIR}/rdsmcc @ONLY)
set(RDSM_WRAPPER_NAME rdsmc++)
set(RDSM_WRAPPER_LANGUAGE C++)
set(RDSM_WRAPPER_COMPILER ${CMAKE_CXX_COMPILER})
set(RDSM_WRAPPER_COMPILER_ENV RDSM_CXX)
set(RDSM_WRAPPER_LIBS "${RDSM_CXX_LINK_LIBS}")
configure_file(cmake/rdsm_wrapper.in ${RDSM_GENERATED_DIR}/rdsmc++ @ONLY)
install(PROGRAMS ${RDSM_GENERATED_DIR}/rdsmcc ${RDSM_GENERATED_DIR}/rdsmc++ DESTINATION ${CMAKE_INSTALL_BINDIR})
configure_file(splash/rdsm.mk.in ${RDSM_GENERATED_DIR}/rdsm.mk @ONLY)
