# The correctness suite, run for every protocol preset, handler mode and
# node count: randomized data-race-free programs checked against their
# sequential oracle, and SOR checked bit for bit against a sequential run.
set(RDSM_TEST_PROTOCOLS async ardmar draw newgen genima)
set(RDSM_TEST_HANDLERS interrupt poll)
foreach(protocol ${RDSM_TEST_PROTOCOLS})
  foreach(handler ${RDSM_TEST_HANDLERS})
    foreach(nodes 2 4)
      set(run $<TARGET_FILE:rdsm> run -n ${nodes} --protocol ${protocol} --handler ${handler} --timeout 600 --quiet)
      add_test(NAME stress.${protocol}.${handler}.n${nodes}
               COMMAND ${run} $<TARGET_FILE:stress> --seeds 1:200)
      add_test(NAME sor.${protocol}.${handler}.n${nodes}
               COMMAND ${run} $<TARGET_FILE:sor> -m 256 -n 256 -i 10)
      set_tests_properties(stress.${protocol}.${handler}.n${nodes} sor.${protocol}.${handler}.n${nodes}
                           PROPERTIES LABELS mp TIMEOUT 700 PASS_REGULAR_EXPRESSION "PASS"
                                      FAIL_REGULAR_EXPRESSION "FAIL")
    endforeach()
  endforeach()
endforeach()
