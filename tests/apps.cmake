# The seeds' applications at test size: every app at 2 and 4 nodes under
# every protocol preset, and at 1 node under the default one (alone, a node
# has nothing for a protocol to do: every page is its home, no fault, no
# message), each verifying itself against a sequential run;
# radix also in steady state (4 passes, 3 iterations: the pages of a
# scatter written again two passes later, which the write-ahead reopens).
# An entry is "program|arguments" (arguments separated by spaces).
set(RDSM_APP_TESTS
  "sor|-m 256 -n 256 -i 10"
  "lu|--size test"
  "radix|--size test"
  "radix|-k 262144 -m 2147483648 -i 3"
  "fft|--size test"
  "fft3d|--size test"
  "is|--size test"
  "tsp|--size test"
  "water|--size test"
  "nbody|--size test --variant nbody"
  "nbody|--size test --variant nbodyw"
  "ocean|--size test"
  "barnes|--size test")
set(RDSM_APP_PROTOCOLS async ardmar draw newgen genima rdsm hw)
foreach(entry ${RDSM_APP_TESTS})
  string(REPLACE "|" ";" parts "${entry}")
  list(GET parts 0 app)
  list(GET parts 1 args)
  if(NOT TARGET ${app})
    continue()
  endif()
  separate_arguments(args UNIX_COMMAND "${args}")
  string(MAKE_C_IDENTIFIER "${entry}" tag)
  foreach(protocol ${RDSM_APP_PROTOCOLS})
    foreach(nodes 1 2 4)
      if(nodes EQUAL 1 AND NOT protocol STREQUAL "rdsm")
        continue()
      endif()
      set(name app.${tag}.${protocol}.n${nodes})
      add_test(NAME ${name}
               COMMAND $<TARGET_FILE:rdsm> run -n ${nodes} --protocol ${protocol} --timeout 300 --quiet
                       $<TARGET_FILE:${app}> ${args})
      set_tests_properties(${name} PROPERTIES LABELS "mp;apps" TIMEOUT 360 PASS_REGULAR_EXPRESSION "PASS"
                                              FAIL_REGULAR_EXPRESSION "${RDSM_FAILED}")
    endforeach()
  endforeach()
endforeach()

# Barnes with every node's bodies spread over the whole sphere (--order
# random; the default numbers them along a space-filling curve): every node
# writes every part of the tree, the most lock hand-offs and makers' locks.
if(TARGET barnes)
  foreach(protocol rdsm async)
    foreach(nodes 2 4)
      set(name app.barnes_order_random.${protocol}.n${nodes})
      add_test(NAME ${name}
               COMMAND $<TARGET_FILE:rdsm> run -n ${nodes} --protocol ${protocol} --timeout 300 --quiet
                       $<TARGET_FILE:barnes> --size test --order random)
      set_tests_properties(${name} PROPERTIES LABELS "mp;apps" TIMEOUT 360 PASS_REGULAR_EXPRESSION "order random"
                                              FAIL_REGULAR_EXPRESSION "${RDSM_FAILED}")
    endforeach()
  endforeach()
endif()
