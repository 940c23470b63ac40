# Smoke test of the application benchmark driver and its report:
# tools/rdsm_bench.py runs a tiny sweep (sor only, 1 and 2 nodes, protocols
# async and genima, one repeat; plus hw if the launcher has it), then
# tools/rdsm_report.py must write speedup.png, breakdown.png and handler.png.
# Nothing is skipped: without python3 or matplotlib the test fails and says why.
#
# Included from tests/CMakeLists.txt:
#   include(${CMAKE_CURRENT_SOURCE_DIR}/bench.cmake)
# The same file is the test's script (cmake -P), so the steps live here too.

if(NOT CMAKE_SCRIPT_MODE_FILE)
  find_package(Python3 COMPONENTS Interpreter)
  if(Python3_Interpreter_FOUND)
    set(_rdsm_bench_python ${Python3_EXECUTABLE})
  else()
    set(_rdsm_bench_python "")
  endif()
  add_test(NAME mp.bench_smoke
           COMMAND ${CMAKE_COMMAND}
                   -DPYTHON=${_rdsm_bench_python}
                   -DSRC=${PROJECT_SOURCE_DIR}
                   -DBUILD=$<TARGET_FILE_DIR:rdsm>
                   -DOUT=${CMAKE_CURRENT_BINARY_DIR}/bench_smoke
                   -P ${CMAKE_CURRENT_LIST_FILE})
  # Serial: it measures times, and starts jobs of up to two nodes.
  set_tests_properties(mp.bench_smoke PROPERTIES LABELS mp TIMEOUT 120 RUN_SERIAL TRUE)
  return()
endif()

# ---- script mode: the test itself ------------------------------------------

if(NOT PYTHON)
  message(FATAL_ERROR "mp.bench_smoke: python3 was not found when the project was configured; "
                      "install python3 and python3-matplotlib (tools/deps.sh) and reconfigure")
endif()

# rdsm_report.py falls back to /usr/bin/python3 when the configured python3
# lacks matplotlib (Debian's python3-matplotlib belongs to the system one):
# check the same way so the message is clear before the sweep runs.
execute_process(COMMAND ${PYTHON} -c "import matplotlib" RESULT_VARIABLE _mpl OUTPUT_QUIET ERROR_QUIET)
if(NOT _mpl EQUAL 0 AND EXISTS /usr/bin/python3)
  execute_process(COMMAND /usr/bin/python3 -c "import matplotlib" RESULT_VARIABLE _mpl OUTPUT_QUIET ERROR_QUIET)
endif()
if(NOT _mpl EQUAL 0)
  message(FATAL_ERROR "mp.bench_smoke: matplotlib is not installed (neither for ${PYTHON} nor for "
                      "/usr/bin/python3); install it with: apt-get install -y python3-matplotlib")
endif()

file(REMOVE_RECURSE ${OUT})
file(MAKE_DIRECTORY ${OUT})
set(_json ${OUT}/bench.json)

execute_process(COMMAND ${PYTHON} ${SRC}/tools/rdsm_bench.py --build ${BUILD} --apps sor
                        --protocols async,genima --nodes 1,2 --sizes test --repeat 1 --timeout 60
                        --out ${_json}
                RESULT_VARIABLE _rc)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "mp.bench_smoke: tools/rdsm_bench.py failed (exit status ${_rc})")
endif()
if(NOT EXISTS ${_json})
  message(FATAL_ERROR "mp.bench_smoke: tools/rdsm_bench.py did not write ${_json}")
endif()
file(READ ${_json} _doc)
string(JSON _nruns LENGTH "${_doc}" runs)
if(_nruns LESS 4)
  message(FATAL_ERROR "mp.bench_smoke: ${_json} holds ${_nruns} runs; expected at least 4 (2 protocols x 2 node counts)")
endif()

execute_process(COMMAND ${PYTHON} ${SRC}/tools/rdsm_report.py ${_json} --out ${OUT}
                RESULT_VARIABLE _rc)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "mp.bench_smoke: tools/rdsm_report.py failed (exit status ${_rc})")
endif()
foreach(_png speedup.png breakdown.png handler.png)
  if(NOT EXISTS ${OUT}/${_png})
    message(FATAL_ERROR "mp.bench_smoke: tools/rdsm_report.py did not write ${OUT}/${_png}")
  endif()
  file(SIZE ${OUT}/${_png} _size)
  if(_size LESS 1000)
    message(FATAL_ERROR "mp.bench_smoke: ${OUT}/${_png} is only ${_size} bytes")
  endif()
endforeach()
message(STATUS "mp.bench_smoke: ${_nruns} runs in ${_json}; speedup.png, breakdown.png, handler.png in ${OUT}")
