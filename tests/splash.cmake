# SPLASH compatibility: programs of our own written in the SPLASH macro
# dialect, built through m4 with splash/c.m4.rdsm like a SPLASH program.
set(RDSM_SPLASH_TEST_DIR ${CMAKE_CURRENT_SOURCE_DIR}/splash)
rdsm_add_splash_program(splash_every_macro ${RDSM_SPLASH_TEST_DIR}/every_macro.C)
rdsm_add_splash_program(splash_failures ${RDSM_SPLASH_TEST_DIR}/failures.C)
# Shapes of real SPLASH programs: shared input built with G_MALLOC before
# MAIN_INITENV; synchronisation objects declared in headers included before
# the environment macros, in structures, in several files, at file scope.
rdsm_add_splash_program(splash_alloc_first ${RDSM_SPLASH_TEST_DIR}/alloc_first.C)
rdsm_add_splash_program(splash_shapes ${RDSM_SPLASH_TEST_DIR}/shapes/main.C ${RDSM_SPLASH_TEST_DIR}/shapes/work.C
                        ${RDSM_SPLASH_TEST_DIR}/shapes/shapes.H ${RDSM_SPLASH_TEST_DIR}/shapes/decls.H)
# The master's private globals reach its workers (forked here; ranks of an
# MPI job in tests/mpi/tests.cmake).
rdsm_add_splash_program(splash_globals ${RDSM_SPLASH_TEST_DIR}/globals.C)
foreach(prog alloc_first shapes globals)
  foreach(protocol rdsm genima)
    foreach(procs 1 3)
      set(name splash.${prog}.${protocol}.p${procs})
      add_test(NAME ${name} COMMAND $<TARGET_FILE:splash_${prog}> -p ${procs})
      set_tests_properties(${name} PROPERTIES LABELS "mp;splash" TIMEOUT 60 ENVIRONMENT "RDSM_PROTOCOL=${protocol}"
                           PASS_REGULAR_EXPRESSION "PASS ${prog}" FAIL_REGULAR_EXPRESSION "${RDSM_FAILED}")
    endforeach()
  endforeach()
  add_test(NAME splash.${prog}.launcher.p2
           COMMAND $<TARGET_FILE:rdsm> run -n 1 --quiet $<TARGET_FILE:splash_${prog}> -p 2)
  set_tests_properties(splash.${prog}.launcher.p2 PROPERTIES LABELS "mp;splash" TIMEOUT 60
                       PASS_REGULAR_EXPRESSION "PASS ${prog}" FAIL_REGULAR_EXPRESSION "${RDSM_FAILED}")
endforeach()

# Every macro, under every protocol preset, with 2 and 4 processes; the
# program started alone (the protocol from RDSM_PROTOCOL).  RDSM_LOCKS is
# set so that re-initialising its 5000 condition variables three times would
# run out of lock ids if re-initialising used up ids.
foreach(protocol async ardmar draw newgen genima hw sc)
  foreach(procs 2 4)
    set(name splash.every_macro.${protocol}.p${procs})
    add_test(NAME ${name} COMMAND $<TARGET_FILE:splash_every_macro> -p ${procs})
    set_tests_properties(${name} PROPERTIES LABELS "mp;splash" TIMEOUT 120
                         ENVIRONMENT "RDSM_PROTOCOL=${protocol};RDSM_LOCKS=12000"
                         PASS_REGULAR_EXPRESSION "PASS every_macro" FAIL_REGULAR_EXPRESSION "${RDSM_FAILED}")
  endforeach()
endforeach()
# Alone with one process, with poll-mode handlers, and under the launcher.
add_test(NAME splash.every_macro.p1 COMMAND $<TARGET_FILE:splash_every_macro> -p 1)
add_test(NAME splash.every_macro.poll.p4 COMMAND $<TARGET_FILE:splash_every_macro> -p 4)
set_tests_properties(splash.every_macro.poll.p4 PROPERTIES ENVIRONMENT "RDSM_HANDLER=poll")
add_test(NAME splash.every_macro.launcher.p4
         COMMAND $<TARGET_FILE:rdsm> run -n 1 --protocol newgen --quiet $<TARGET_FILE:splash_every_macro> -p 4)
set_tests_properties(splash.every_macro.p1 splash.every_macro.poll.p4 splash.every_macro.launcher.p4
                     PROPERTIES LABELS "mp;splash" TIMEOUT 120 PASS_REGULAR_EXPRESSION "PASS every_macro"
                     FAIL_REGULAR_EXPRESSION "${RDSM_FAILED}")
# The launcher's summary shows the forked workers of both rounds (the
# master's node block carries their statistics).
add_test(NAME splash.every_macro.launcher_summary.p4
         COMMAND $<TARGET_FILE:rdsm> run -n 1 --protocol ardmar $<TARGET_FILE:splash_every_macro> -p 4)
set_tests_properties(splash.every_macro.launcher_summary.p4 PROPERTIES LABELS "mp;splash" TIMEOUT 120
                     PASS_REGULAR_EXPRESSION "PASS every_macro.*fork-join program: 2 jobs, up to 3 forked workers.*\nw1 +[0-9.]+ .*\nw2 +[0-9.]+ .*\nw3 +[0-9.]+ .*\nw3 +[1-9][0-9]* "
                     FAIL_REGULAR_EXPRESSION "${RDSM_FAILED}")

# The master's cleared and untouched arrays go to their first toucher.
rdsm_add_splash_program(splash_cleared_output ${RDSM_SPLASH_TEST_DIR}/cleared_output.C
                        ${RDSM_SPLASH_TEST_DIR}/pages_options.H)
foreach(protocol rdsm genima)
  add_test(NAME splash.cleared_output.${protocol}
           COMMAND ${RDSM_BASH} ${RDSM_SPLASH_TEST_DIR}/cleared_output.sh $<TARGET_FILE:rdsm>
                   $<TARGET_FILE:splash_cleared_output> ${protocol})
  set_tests_properties(splash.cleared_output.${protocol} PROPERTIES LABELS "mp;splash" TIMEOUT 60)
endforeach()
# The master's data starts spread over the processes in blocks.
rdsm_add_splash_program(splash_seeded_input ${RDSM_SPLASH_TEST_DIR}/seeded_input.C
                        ${RDSM_SPLASH_TEST_DIR}/pages_options.H)
foreach(run rdsm:2 genima:2 rdsm:4)
  string(REPLACE ":" ";" parts ${run})
  list(GET parts 0 protocol)
  list(GET parts 1 procs)
  add_test(NAME splash.seeded_input.${protocol}.p${procs}
           COMMAND ${RDSM_BASH} ${RDSM_SPLASH_TEST_DIR}/seeded_input.sh $<TARGET_FILE:rdsm>
                   $<TARGET_FILE:splash_seeded_input> ${protocol} ${procs})
  set_tests_properties(splash.seeded_input.${protocol}.p${procs} PROPERTIES LABELS "mp;splash" TIMEOUT 120)
endforeach()
# Processes that number themselves under a lock get GET_PID's numbers, job
# after job, also after a process with no synchronisation at all.
rdsm_add_splash_program(splash_id_order ${RDSM_SPLASH_TEST_DIR}/id_order.C)
function(rdsm_id_order_test name)
  add_test(NAME splash.id_order.${name} COMMAND $<TARGET_FILE:rdsm> run -n 1 --quiet ${ARGN})
  set_tests_properties(splash.id_order.${name} PROPERTIES LABELS "mp;splash" TIMEOUT 60
                       PASS_REGULAR_EXPRESSION "PASS id_order" FAIL_REGULAR_EXPRESSION "${RDSM_FAILED}")
endfunction()
rdsm_id_order_test(p2 $<TARGET_FILE:splash_id_order> -p 2 -j 20)
rdsm_id_order_test(p4 $<TARGET_FILE:splash_id_order> -p 4 -j 10)
rdsm_id_order_test(p4_threads --threads 2 $<TARGET_FILE:splash_id_order> -p 4 -j 10)
rdsm_id_order_test(p4_silent $<TARGET_FILE:splash_id_order> -p 4 -j 2 -s)
# Failures end the program promptly, named, with nothing left running.
foreach(mode crash exit huge estimate barrier ok leave)
  add_test(NAME splash.failure.${mode}
           COMMAND ${RDSM_BASH} ${RDSM_SPLASH_TEST_DIR}/failure.sh $<TARGET_FILE:splash_failures> ${mode})
  set_tests_properties(splash.failure.${mode} PROPERTIES LABELS "mp;splash" TIMEOUT 60)
endforeach()
foreach(mode crash ok leave)
  add_test(NAME splash.failure.${mode}.launcher
           COMMAND ${RDSM_BASH} ${RDSM_SPLASH_TEST_DIR}/failure.sh $<TARGET_FILE:splash_failures> ${mode}
                   $<TARGET_FILE:rdsm>)
  set_tests_properties(splash.failure.${mode}.launcher PROPERTIES LABELS "mp;splash" TIMEOUT 60)
endforeach()
# A fork-join program started as several nodes is told how to start it.
add_test(NAME splash.failure.started_as_4
         COMMAND $<TARGET_FILE:rdsm> run -n 4 --quiet $<TARGET_FILE:splash_failures> ok)
set_tests_properties(splash.failure.started_as_4 PROPERTIES LABELS "mp;splash" TIMEOUT 60
                     PASS_REGULAR_EXPRESSION "this is a fork-join \\(SPLASH\\) program.*rdsm run -n 1")
