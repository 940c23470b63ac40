# The mpi fabric (built with -DRDSM_MPI=ON): processes started by mpirun on
# this host, as a user starts any MPI program.
set(RDSM_MPIRUN ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG})
# Root is how CI runs; more ranks than cores is how a small machine runs 4.
set(RDSM_MPIRUN_FLAGS --allow-run-as-root --oversubscribe)

add_executable(mpi_fetch_latency ${CMAKE_CURRENT_SOURCE_DIR}/mpi/fetch_latency.cpp)
target_include_directories(mpi_fetch_latency PRIVATE ${PROJECT_SOURCE_DIR}/src)
target_link_libraries(mpi_fetch_latency PRIVATE rdsm_runtime)
# Ranks of one host map each other's memory (the default, RDSM_MPI_LOCAL=map):
# a page fetch is a copy, whether the target idles or computes; through MPI
# RMA (rma) it waits for the target's progress thread, so only the figures.
foreach(handler interrupt poll)
  foreach(local map rma)
    if(local STREQUAL "map")
      set(limits --max-get-us 8 --max-ratio 3)
    else()
      set(limits)
    endif()
    add_test(NAME mpi.fetch_latency.${handler}.${local}
             COMMAND ${RDSM_MPIRUN} 2 ${RDSM_MPIRUN_FLAGS} $<TARGET_FILE:mpi_fetch_latency> --handler ${handler}
                     --local ${local} --iterations 1000 ${limits})
    set_tests_properties(mpi.fetch_latency.${handler}.${local} PROPERTIES LABELS "mp;mpi" TIMEOUT 120
                         PASS_REGULAR_EXPRESSION "PASS" FAIL_REGULAR_EXPRESSION "FAIL")
  endforeach()
endforeach()

# The correctness programs of protocol_matrix.cmake on the mpi fabric, along
# the same preset x node-count axes: started by mpirun with no rdsm launcher,
# the nodes take rank and size from MPI and choose the mpi fabric
# themselves.  Fewer presets and seeds than on shm: every one-sided
# operation here costs the target's progress thread a turn on a CPU.
set(RDSM_MPI_TEST_PROTOCOLS async genima rdsm)
set(RDSM_MPI_STRESS_SEEDS 1:2)
# Each also with RDSM_MPI_LOCAL=rma, so that the MPI RMA path between hosts
# is exercised on one host too.
foreach(protocol ${RDSM_MPI_TEST_PROTOCOLS})
  foreach(nodes 2 4)
    foreach(local map rma)
      set(run ${CMAKE_COMMAND} -E env RDSM_PROTOCOL=${protocol} RDSM_MPI_LOCAL=${local} ${RDSM_MPIRUN} ${nodes}
              ${RDSM_MPIRUN_FLAGS})
      if(local STREQUAL "map")
        set(suffix ${protocol}.mpi.n${nodes})
      else()
        set(suffix ${protocol}.mpi-rma.n${nodes})
      endif()
      add_test(NAME stress.${suffix} COMMAND ${run} $<TARGET_FILE:stress> --seeds ${RDSM_MPI_STRESS_SEEDS})
      add_test(NAME sor.${suffix} COMMAND ${run} $<TARGET_FILE:sor> -m 256 -n 256 -i 10)
      set_tests_properties(stress.${suffix} sor.${suffix} PROPERTIES LABELS "mp;mpi" TIMEOUT 900
                           PASS_REGULAR_EXPRESSION "PASS" FAIL_REGULAR_EXPRESSION "FAIL")
    endforeach()
  endforeach()
endforeach()

# `rdsm run --fabric mpi`: the launcher hands the job to mpirun, the
# settings to the ranks.  stress under every software preset (the hw preset
# needs the shm fabric's shared pages), at 2 and 4 ranks.
set(RDSM_MPI_LAUNCH_PROTOCOLS async ardmar draw newgen genima rdsm)
foreach(protocol ${RDSM_MPI_LAUNCH_PROTOCOLS})
  foreach(nodes 2 4)
    add_test(NAME launcher.mpi.stress.${protocol}.n${nodes}
             COMMAND $<TARGET_FILE:rdsm> run --fabric mpi -n ${nodes} --protocol ${protocol} $<TARGET_FILE:stress>
                     --seeds ${RDSM_MPI_STRESS_SEEDS})
    set_tests_properties(launcher.mpi.stress.${protocol}.n${nodes} PROPERTIES LABELS "mp;mpi" TIMEOUT 900
                         PASS_REGULAR_EXPRESSION "PASS" FAIL_REGULAR_EXPRESSION "FAIL")
  endforeach()
endforeach()
add_test(NAME launcher.mpi.sor COMMAND $<TARGET_FILE:rdsm> run --fabric mpi -n 2 $<TARGET_FILE:sor>)
set_tests_properties(launcher.mpi.sor PROPERTIES LABELS "mp;mpi" TIMEOUT 900
                     PASS_REGULAR_EXPRESSION "PASS" FAIL_REGULAR_EXPRESSION "FAIL")
# The ranks run under the settings given to the launcher: micro_fault names its protocol.
add_test(NAME launcher.mpi.settings
         COMMAND $<TARGET_FILE:rdsm> run --fabric mpi -n 2 --protocol genima $<TARGET_FILE:micro_fault> --pages 64)
set_tests_properties(launcher.mpi.settings PROPERTIES LABELS "mp;mpi" TIMEOUT 300
                     PASS_REGULAR_EXPRESSION "PASS micro_fault: 64 pages, protocol genima" FAIL_REGULAR_EXPRESSION "FAIL")
add_test(NAME launcher.mpi.help COMMAND $<TARGET_FILE:rdsm> run --help)
set_tests_properties(launcher.mpi.help PROPERTIES LABELS "mpi" PASS_REGULAR_EXPRESSION "--fabric F +transport[^\n]*mpi")

# A rank killed with SIGKILL ends the job, named, with nothing left behind.
add_test(NAME mpi.rank_killed COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/mpi/rank_killed.sh $<TARGET_FILE:rdsm>
                                      $<TARGET_FILE:mp_fail_node>)
set_tests_properties(mpi.rank_killed PROPERTIES LABELS "mp;mpi" TIMEOUT 120 PASS_REGULAR_EXPRESSION "PASS: rank 2")
