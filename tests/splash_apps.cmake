# The SPLASH-2-style benchmarks of apps/splash at a small size, each checking
# itself against a sequential run in private memory: started alone (the
# protocol from RDSM_PROTOCOL) with 2 and 4 processes under every preset,
# LU also with its blocks in matrix order (pages shared by blocks of
# different owners), and each once under the launcher.
set(RDSM_SPLASH_APP_TESTS
  "lu|splash_lu|-n 256"
  "lu_global|splash_lu|-n 256 -g"
  "ocean|splash_ocean|-n 130 -i 3"
  "fft|splash_fft|-m 14"
  "radix|splash_radix|-n 262144"
  "radix_own|splash_radix|-n 262144 -o"
  "radix_flags|splash_radix|-n 262144 -o -f"
  "water|splash_water|-m 512 -s 2")
foreach(entry ${RDSM_SPLASH_APP_TESTS})
  string(REPLACE "|" ";" parts "${entry}")
  list(GET parts 0 tag)
  list(GET parts 1 prog)
  list(GET parts 2 args)
  separate_arguments(args UNIX_COMMAND "${args}")
  set(counts 2 4)
  if(tag STREQUAL "lu_global")
    set(counts 4)
  endif()
  foreach(protocol async ardmar draw newgen genima rdsm hw sc)
    foreach(procs ${counts})
      # Radix's scattered writes move a page between single writers at
      # almost every write under sc: seconds even at this size, so it is
      # left to the benchmarks.
      if(protocol STREQUAL "sc" AND tag MATCHES "^radix")
        continue()
      endif()
      set(name splash_app.${tag}.${protocol}.p${procs})
      add_test(NAME ${name} COMMAND $<TARGET_FILE:${prog}> -p${procs} ${args})
      set_tests_properties(${name} PROPERTIES LABELS "mp;splash" TIMEOUT 120 ENVIRONMENT "RDSM_PROTOCOL=${protocol}"
                           PASS_REGULAR_EXPRESSION "(^|\n)PASS ${prog}" FAIL_REGULAR_EXPRESSION "${RDSM_FAILED}")
    endforeach()
  endforeach()
  # Multi-threaded nodes (--threads): 4 workers as 2 nodes of 2 threads
  # under every preset, as 1 node of 4 threads, and 3 workers on nodes of 2
  # threads (the last node runs one).
  foreach(protocol async ardmar draw newgen genima rdsm hw)
    set(name splash_app.${tag}.${protocol}.p4t2)
    add_test(NAME ${name} COMMAND $<TARGET_FILE:${prog}> -p4 ${args})
    set_tests_properties(${name} PROPERTIES LABELS "mp;splash;threads" TIMEOUT 120
                         ENVIRONMENT "RDSM_PROTOCOL=${protocol};RDSM_THREADS=2"
                         PASS_REGULAR_EXPRESSION "(^|\n)PASS ${prog}" FAIL_REGULAR_EXPRESSION "${RDSM_FAILED}")
  endforeach()
  if(NOT tag STREQUAL "lu_global")
    set(name splash_app.${tag}.rdsm.p4t4)
    add_test(NAME ${name} COMMAND $<TARGET_FILE:${prog}> -p4 ${args})
    set(name3 splash_app.${tag}.launcher.p3t2)
    add_test(NAME ${name3} COMMAND $<TARGET_FILE:rdsm> run -n 1 --threads 2 --protocol genima --quiet
                                   $<TARGET_FILE:${prog}> -p3 ${args})
    set_tests_properties(${name} PROPERTIES ENVIRONMENT "RDSM_PROTOCOL=rdsm;RDSM_THREADS=4")
    set_tests_properties(${name} ${name3} PROPERTIES LABELS "mp;splash;threads" TIMEOUT 120
                         PASS_REGULAR_EXPRESSION "(^|\n)PASS ${prog}" FAIL_REGULAR_EXPRESSION "${RDSM_FAILED}")
  endif()
  if(NOT tag STREQUAL "lu_global")
    set(name splash_app.${tag}.launcher.p4)
    add_test(NAME ${name} COMMAND $<TARGET_FILE:rdsm> run -n 1 --protocol genima --quiet $<TARGET_FILE:${prog}> -p4 ${args})
    set_tests_properties(${name} PROPERTIES LABELS "mp;splash" TIMEOUT 120
                         PASS_REGULAR_EXPRESSION "(^|\n)PASS ${prog}" FAIL_REGULAR_EXPRESSION "${RDSM_FAILED}")
  endif()
endforeach()

# Every program prints its times after its verdict, in this order: the
# parallel phase, the same from just before the first CREATE (the job's
# start included), the sequential reference (print_times, splash_args.h).
foreach(entry "fft|splash_fft|-m 10" "lu|splash_lu|-n 128" "ocean|splash_ocean|-n 66 -i 2" "radix|splash_radix|-n 65536"
              "water|splash_water|-m 64 -s 1")
  string(REPLACE "|" ";" parts "${entry}")
  list(GET parts 0 tag)
  list(GET parts 1 prog)
  list(GET parts 2 args)
  separate_arguments(args UNIX_COMMAND "${args}")
  add_test(NAME splash_app.${tag}.prints_times.p2 COMMAND $<TARGET_FILE:${prog}> -p2 ${args})
  set_tests_properties(splash_app.${tag}.prints_times.p2 PROPERTIES LABELS "mp;splash" TIMEOUT 120
                       PASS_REGULAR_EXPRESSION
                       "(^|\n)PASS ${prog}[^\n]*\nparallel [0-9.]+ s\nfrom create [0-9.]+ s\nsequential [0-9.]+ s\n"
                       FAIL_REGULAR_EXPRESSION "${RDSM_FAILED}")
endforeach()

# `rdsm run` without -n: a fork-join program starts as one process anyway
# (an SPMD program is told -n is missing: mp.bad_inputs.nodes_missing).
add_test(NAME splash_app.fft.launcher_without_n.p2
         COMMAND $<TARGET_FILE:rdsm> run --quiet $<TARGET_FILE:splash_fft> -p2 -m10)
set_tests_properties(splash_app.fft.launcher_without_n.p2 PROPERTIES LABELS "mp;splash" TIMEOUT 120
                     PASS_REGULAR_EXPRESSION "(^|\n)PASS splash_fft" FAIL_REGULAR_EXPRESSION "${RDSM_FAILED}")

# OCEAN on a grid finer than 1024 interior rows, where the time step must
# shrink faster than the grid for the scheme to stay stable: plain threads,
# as the numerics are the same under every preset (and, as the apps' own
# tests, not under the sanitizers: seconds of arithmetic).
add_test(NAME splash_app.ocean_fine_grid.hw.p2 COMMAND $<TARGET_FILE:splash_ocean> -p2 -n2050 -i15)
set_tests_properties(splash_app.ocean_fine_grid.hw.p2 PROPERTIES LABELS "mp;splash;apps" TIMEOUT 120
                     ENVIRONMENT "RDSM_PROTOCOL=hw" PASS_REGULAR_EXPRESSION "(^|\n)PASS splash_ocean"
                     FAIL_REGULAR_EXPRESSION "${RDSM_FAILED}")
