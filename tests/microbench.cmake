# Smoke tests of the micro-benchmark driver.
#
# mp.microbench_quick: tools/microbench.py --quick runs every micro-benchmark
# once for every protocol preset with small counts, and micro_pingpong once
# per handler mode, and must succeed (every program PASS, exit status 0)
# within 60 seconds.
#
# mp.uffd_delivery: micro_uffd_delivery (the kernel's fault delivery both ways)
# runs and reads every page back right.
#
# mp.report_microbench: `rdsm report` on mp.microbench_quick's JSON prints
# its tables again, the ping-pong table among them.
#
# mp.microbench_memory: --memory mprotect,uffd (preset rdsm only, to stay
# short) must print, under every figure, a row per backend and a
# uffd/mprotect row, and record both backends (asked for and run) in its
# JSON; tools/rdsm_report.py on that JSON must print the same text.  Where uffd cannot run, the driver must say why, skip uffd's other
# runs and still print mprotect's figures; that path is also checked on
# every machine with uffd disabled through RDSM_UFFD_UNAVAILABLE.
#
# Included from tests/CMakeLists.txt:
#   include(${CMAKE_CURRENT_SOURCE_DIR}/microbench.cmake)
# The same file is mp.microbench_memory's script (cmake -P).

if(NOT CMAKE_SCRIPT_MODE_FILE)
  find_package(Python3 COMPONENTS Interpreter)
  if(Python3_Interpreter_FOUND)
    # The launcher's directory is the build directory: the driver finds
    # rdsm there and the programs in its apps/.
    add_test(NAME mp.microbench_quick
             COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tools/microbench.py --quick
                     --build $<TARGET_FILE_DIR:rdsm> --json ${CMAKE_CURRENT_BINARY_DIR}/microbench_quick.json)
    # Serial: it starts about fifty jobs of up to four nodes each against a
    # hard time limit, which must not depend on what else runs at the time.
    set_tests_properties(mp.microbench_quick PROPERTIES LABELS mp TIMEOUT 60 RUN_SERIAL TRUE
                         FIXTURES_SETUP microbench_quick_result)
    # `rdsm report` on that result prints its tables again, the ping-pong
    # table of handler modes among them.
    add_test(NAME mp.report_microbench
             COMMAND $<TARGET_FILE:rdsm> report ${CMAKE_CURRENT_BINARY_DIR}/microbench_quick.json)
    set_tests_properties(mp.report_microbench PROPERTIES LABELS mp TIMEOUT 30
                         FIXTURES_REQUIRED microbench_quick_result
                         PASS_REGULAR_EXPRESSION "message round trip by handler mode"
                         FAIL_REGULAR_EXPRESSION "Traceback|rdsm_report:")
    add_test(NAME mp.microbench_memory
             COMMAND ${CMAKE_COMMAND}
                     -DPYTHON=${Python3_EXECUTABLE}
                     -DSRC=${PROJECT_SOURCE_DIR}
                     -DBUILD=$<TARGET_FILE_DIR:rdsm>
                     -DOUT=${CMAKE_CURRENT_BINARY_DIR}/microbench_memory
                     -P ${CMAKE_CURRENT_LIST_FILE})
    # Serial for the same reason; about thirty jobs of up to four nodes.
    set_tests_properties(mp.microbench_memory PROPERTIES LABELS mp TIMEOUT 90 RUN_SERIAL TRUE)
    # The fault-delivery probe (both ways: SIGBUS, handler thread) must run
    # and read back every page right; skipped where uffd cannot run.
    add_test(NAME mp.uffd_delivery COMMAND micro_uffd_delivery --pages 256 --rounds 3)
    set_tests_properties(mp.uffd_delivery PROPERTIES LABELS mp TIMEOUT 60 SKIP_RETURN_CODE 77
                         PASS_REGULAR_EXPRESSION "PASS micro_uffd_delivery")
    # micro_protect: one protection change for a group of pages costs less
    # than a change per page, under every backend that runs here.  Serial:
    # it times calls of a few microseconds, and another test's processes
    # on the same 2 CPUs once made a 64-page call cost 178 us.
    add_test(NAME mp.micro_protect COMMAND micro_protect --pages 256 --rounds 3)
    set_tests_properties(mp.micro_protect PROPERTIES LABELS mp TIMEOUT 60 RUN_SERIAL TRUE
                         PASS_REGULAR_EXPRESSION "PASS micro_protect" FAIL_REGULAR_EXPRESSION "FAIL")
    # micro_detect: every way of detecting writes (faults under each
    # backend, uffd's scan) finds exactly the pages written.
    add_test(NAME mp.micro_detect COMMAND micro_detect --pages 256 --rounds 3)
    set_tests_properties(mp.micro_detect PROPERTIES LABELS mp TIMEOUT 60
                         PASS_REGULAR_EXPRESSION "PASS micro_detect" FAIL_REGULAR_EXPRESSION "FAIL")
    # micro_masked: every way of a diff's masked write writes exactly the
    # masked bytes, on pages more than the caches hold.
    add_test(NAME mp.micro_masked COMMAND micro_masked --pages 1024 --rounds 3)
    set_tests_properties(mp.micro_masked PROPERTIES LABELS mp TIMEOUT 60
                         PASS_REGULAR_EXPRESSION "PASS micro_masked" FAIL_REGULAR_EXPRESSION "FAIL")
  else()
    message(STATUS "python3 not found: the micro-benchmark smoke tests (mp.microbench_quick, "
                   "mp.microbench_memory) are not registered")
  endif()
  return()
endif()

# ---- script mode: mp.microbench_memory -------------------------------------

file(REMOVE_RECURSE ${OUT})
file(MAKE_DIRECTORY ${OUT})
set(_unavailable_re "the uffd memory backend cannot run here")
# One figure's rows: its label and mprotect's median, then uffd's, then the ratio.
set(_num "[0-9]+(\\.[0-9]+)?")
set(_rows_re "\n  fetch, 2 nodes \\[us/page\\] +mprotect +${_num}\n +uffd +${_num}\n +uffd/mprotect +${_num}\n")
set(_na_re "\n  fetch, 2 nodes \\[us/page\\] +mprotect +${_num}\n +uffd +n/a\n +uffd/mprotect +-\n")

execute_process(COMMAND ${PYTHON} ${SRC}/tools/microbench.py --quick --build ${BUILD} --protocols rdsm
                        --memory mprotect,uffd --no-pingpong --json ${OUT}/both.json
                RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _err)
message(STATUS "mp.microbench_memory: --memory mprotect,uffd\n${_out}")
if(_err MATCHES "${_unavailable_re}[^\n]*" OR _out MATCHES "${_unavailable_re}[^\n]*")
  # uffd cannot run on this machine: what can be checked is mprotect's rows and the reason.
  message(STATUS "mp.microbench_memory: uffd cannot run here (${CMAKE_MATCH_0}); checking mprotect alone")
  if(_rc EQUAL 0 OR NOT _out MATCHES "${_na_re}")
    message(FATAL_ERROR "mp.microbench_memory: without uffd the driver should fail (status ${_rc}) and still print "
                        "mprotect's figures with n/a for uffd\n${_err}")
  endif()
else()
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "mp.microbench_memory: tools/microbench.py --memory mprotect,uffd failed "
                        "(exit status ${_rc})\n${_err}")
  endif()
  if(NOT _out MATCHES "\n +memory +rdsm\n"
     OR NOT _out MATCHES "${_rows_re}"
     OR NOT _out MATCHES "\n  write fault, home page \\[us\\] +mprotect +${_num}\n +uffd +${_num}\n +uffd/mprotect +${_num}\n")
    message(FATAL_ERROR "mp.microbench_memory: the table lacks a memory column or a row per backend and the "
                        "uffd/mprotect row under each figure")
  endif()
  file(READ ${OUT}/both.json _doc)
  string(JSON _ran GET "${_doc}" memory_ran)
  string(JSON _ratio TYPE "${_doc}" figures page_fetch_us.n2 uffd_over_mprotect rdsm)
  string(JSON _m GET "${_doc}" figures page_fetch_us.n2 presets rdsm/uffd memory)
  if(NOT _ran MATCHES "\"mprotect\".*\"uffd\"" OR NOT _ratio STREQUAL "NUMBER" OR NOT _m STREQUAL "uffd")
    message(FATAL_ERROR "mp.microbench_memory: the JSON should record both backends as run (memory_ran: ${_ran}), "
                        "each figure's median per backend (${_m}) and its ratio (${_ratio})")
  endif()
  # The report of the saved result prints what the driver printed.
  execute_process(COMMAND ${PYTHON} ${SRC}/tools/rdsm_report.py ${OUT}/both.json
                  RESULT_VARIABLE _rc OUTPUT_VARIABLE _report ERROR_VARIABLE _err)
  if(NOT _rc EQUAL 0 OR NOT _report STREQUAL _out)
    message(FATAL_ERROR "mp.microbench_memory: rdsm_report.py on the driver's JSON (exit status ${_rc}) should print "
                        "the driver's tables again:\n${_report}\n${_err}")
  endif()
endif()

# uffd made unavailable: its first run fails with the reason, the others are skipped.
execute_process(COMMAND ${CMAKE_COMMAND} -E env RDSM_UFFD_UNAVAILABLE=test
                        ${PYTHON} ${SRC}/tools/microbench.py --quick --build ${BUILD} --protocols rdsm
                        --memory uffd,mprotect --no-pingpong --json ${OUT}/nouffd.json
                RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _err)
if(_rc EQUAL 0 OR NOT _out MATCHES "${_na_re}"
   OR NOT _out MATCHES "note: ${_unavailable_re} \\(userfaultfd is disabled by RDSM_UFFD_UNAVAILABLE=test\\)")
  message(FATAL_ERROR "mp.microbench_memory: with uffd unavailable (exit status ${_rc}) the driver should fail, "
                      "say why and print mprotect's figures with n/a for uffd:\n${_out}\n${_err}")
endif()
file(READ ${OUT}/nouffd.json _doc)
string(JSON _nruns LENGTH "${_doc}" runs)
set(_uffd_runs 0)
math(EXPR _last "${_nruns} - 1")
foreach(_i RANGE ${_last})
  string(JSON _m GET "${_doc}" runs ${_i} memory)
  if(_m STREQUAL "uffd")
    math(EXPR _uffd_runs "${_uffd_runs} + 1")
  endif()
endforeach()
if(NOT _uffd_runs EQUAL 1)
  message(FATAL_ERROR "mp.microbench_memory: with uffd unavailable ${_uffd_runs} uffd runs were made; expected 1")
endif()
message(STATUS "mp.microbench_memory: passed")
