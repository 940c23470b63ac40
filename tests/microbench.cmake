# Smoke test of the micro-benchmark driver: tools/microbench.py --quick runs
# every micro-benchmark once for every protocol preset with small counts and
# must succeed (every program PASS, exit status 0) within 60 seconds.
#
# Included from tests/CMakeLists.txt:
#   include(${CMAKE_CURRENT_SOURCE_DIR}/microbench.cmake)
find_package(Python3 COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND)
  # The launcher's directory is the build directory: the driver finds
  # rdsm there and the programs in its apps/.
  add_test(NAME mp.microbench_quick
           COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tools/microbench.py --quick
                   --build $<TARGET_FILE_DIR:rdsm>)
  # Serial: it starts about fifty jobs of up to four nodes each against a
  # hard time limit, which must not depend on what else runs at the time.
  set_tests_properties(mp.microbench_quick PROPERTIES LABELS mp TIMEOUT 60 RUN_SERIAL TRUE)
else()
  message(STATUS "python3 not found: the micro-benchmark smoke test (mp.microbench_quick) is not registered")
endif()
