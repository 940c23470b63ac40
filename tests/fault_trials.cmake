# Fault injection at every protocol point: random trials (app x preset x
# point x node, drawn from a fixed seed so that a failure can be rerun) must
# each end non-zero within 2 s of the node's death, name the node and the
# point, and leave nothing behind (tools/fault_trials.py).  Without python3
# the test fails and says why: nothing is skipped.
find_package(Python3 COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND)
  add_test(NAME mp.fault_trials
           COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tools/fault_trials.py --rdsm $<TARGET_FILE:rdsm>
                   --apps $<TARGET_FILE_DIR:stress> --trials 30 --seed 1)
else()
  add_test(NAME mp.fault_trials COMMAND ${CMAKE_COMMAND} -E echo "FAIL: python3 is needed to run tools/fault_trials.py")
endif()
set_tests_properties(mp.fault_trials PROPERTIES LABELS mp TIMEOUT 600 PASS_REGULAR_EXPRESSION "\nPASS"
                                               FAIL_REGULAR_EXPRESSION "FAIL")
