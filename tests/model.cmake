# Model checks of the one-sided protocol (models/README.md): spin turns the
# Promela model into a verifier, which is compiled and searched
# exhaustively for each named configuration of models/check.sh.  The
# model.hlrc* tests pass when no configuration has a violation; model.broken
# passes only when the checker catches every deliberately broken ordering.
# Without spin (tools/deps.sh installs it) the tests are skipped.
find_program(RDSM_BASH bash REQUIRED)
set(RDSM_MODEL_CHECK ${RDSM_BASH} ${PROJECT_SOURCE_DIR}/models/check.sh --work ${CMAKE_CURRENT_BINARY_DIR}/model)
add_test(NAME model.hlrc COMMAND ${RDSM_MODEL_CHECK} n2)
add_test(NAME model.hlrc_scenarios
         COMMAND ${RDSM_MODEL_CHECK} n2_own_writes n2_refresh n3_migration n3_false_sharing)
add_test(NAME model.hlrc_whole COMMAND ${RDSM_MODEL_CHECK} whole_n2 whole_n3)
add_test(NAME model.broken COMMAND ${RDSM_MODEL_CHECK} broken_order broken_fetch_order broken_whole broken_move_order
                                    broken_first_copy)
set_tests_properties(model.hlrc model.hlrc_scenarios model.hlrc_whole model.broken
                     PROPERTIES LABELS model TIMEOUT 300 SKIP_RETURN_CODE 77)
