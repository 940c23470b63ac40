# The bad-input catalogue: one test per case of bad_inputs.txt, run by
# bad_inputs.sh, and a test that docs/bad_inputs.md is generated from it.
set(RDSM_BAD_INPUTS ${CMAKE_CURRENT_LIST_DIR}/bad_inputs.txt)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${RDSM_BAD_INPUTS})
file(READ ${RDSM_BAD_INPUTS} rdsm_bad_inputs_text)
string(REGEX MATCHALL "\ncase [^\n]+" rdsm_bad_input_cases "${rdsm_bad_inputs_text}")
foreach(line IN LISTS rdsm_bad_input_cases)
  string(STRIP "${line}" line)
  string(REPLACE " " ";" words "${line}")
  list(GET words 1 id)
  add_test(NAME mp.bad_inputs.${id}
           COMMAND ${RDSM_BASH} ${RDSM_MP_DIR}/bad_inputs.sh ${RDSM_BAD_INPUTS} ${id}
                   RDSM=$<TARGET_FILE:rdsm> TRIVIAL=$<TARGET_FILE:mp_trivial> MISUSE=$<TARGET_FILE:mp_misuse>
                   BAD_USE=$<TARGET_FILE:mp_bad_use> SPLASH_MISUSE=$<TARGET_FILE:mp_splash_misuse>
                   SPLASH_FAILURES=$<TARGET_FILE:splash_failures> NO_UFFD=$<TARGET_FILE:mp_no_uffd>
                   OWN_MALLOC=$<TARGET_FILE:mp_own_malloc>)
  set_tests_properties(mp.bad_inputs.${id} PROPERTIES TIMEOUT 60 LABELS "mp;bad_inputs" SKIP_RETURN_CODE 77)
  if("serial" IN_LIST words)
    set_tests_properties(mp.bad_inputs.${id} PROPERTIES RUN_SERIAL TRUE)
  endif()
endforeach()
add_test(NAME mp.bad_inputs.doc
         COMMAND ${RDSM_BASH} ${RDSM_MP_DIR}/bad_inputs_doc.sh --check ${RDSM_BAD_INPUTS}
                 ${PROJECT_SOURCE_DIR}/docs/bad_inputs.md)
set_tests_properties(mp.bad_inputs.doc PROPERTIES TIMEOUT 30 LABELS "mp;bad_inputs")
