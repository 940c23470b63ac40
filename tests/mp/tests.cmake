# Multi-process tests: shell scripts that run `rdsm run` on the built tree.
# Each script gets the paths of the programs it runs as arguments.
find_program(RDSM_BASH bash REQUIRED)
add_subdirectory(${CMAKE_CURRENT_LIST_DIR}/progs ${CMAKE_CURRENT_BINARY_DIR}/mp/progs)

set(RDSM_MP_DIR ${CMAKE_CURRENT_LIST_DIR})
set(RDSM_MP_EXE $<TARGET_FILE:rdsm>)

# rdsm_mp_test(NAME TIMEOUT SCRIPT ARGS...)
function(rdsm_mp_test name timeout script)
  add_test(NAME mp.${name} COMMAND ${RDSM_BASH} ${RDSM_MP_DIR}/${script} ${ARGN})
  set_tests_properties(mp.${name} PROPERTIES TIMEOUT ${timeout} LABELS mp)
endfunction()

# The launcher on its own (programs that do not use rdsm).
rdsm_mp_test(usage 30 usage.sh ${RDSM_MP_EXE})
rdsm_mp_test(launcher_basic 30 launcher_basic.sh ${RDSM_MP_EXE})
rdsm_mp_test(interrupt_plain 30 interrupt.sh ${RDSM_MP_EXE} INT)
rdsm_mp_test(interrupt_plain_term 30 interrupt.sh ${RDSM_MP_EXE} TERM)

# A node that fails while the others wait in a barrier, under every
# protocol preset (the launcher takes the preset from RDSM_PROTOCOL).
foreach(protocol async ardmar draw newgen genima rdsm hw sc)
  foreach(mode segv exit3 nofinalize sigkill)
    rdsm_mp_test(fail_${mode}.${protocol} 40 fail_node.sh ${RDSM_MP_EXE} $<TARGET_FILE:mp_fail_node> ${mode})
    set_tests_properties(mp.fail_${mode}.${protocol} PROPERTIES ENVIRONMENT RDSM_PROTOCOL=${protocol})
  endforeach()
endforeach()

# A node that stops (SIGSTOP) is found by its heartbeat; one that only
# computes outside rdsm is not.
foreach(mode stop compute badvalue)
  rdsm_mp_test(hang_${mode} 40 hang.sh ${RDSM_MP_EXE} $<TARGET_FILE:mp_fail_node> ${mode})
endforeach()
if(TARGET splash_radix)
  rdsm_mp_test(hang_forked 40 hang.sh ${RDSM_MP_EXE} $<TARGET_FILE:splash_radix> forked)
endif()
# A master-initialised SPLASH-style LU: the worker's part moves to it
# within a few barriers, with few diffs (lu_moves.sh).
if(TARGET splash_lu)
  rdsm_mp_test(lu_moves 60 lu_moves.sh ${RDSM_MP_EXE} $<TARGET_FILE:splash_lu>)
endif()

# A node that dies in the middle of moving page homes, under the default
# preset and under the message-based baseline with migration.
foreach(variant "rdsm:" "async:home=migrate" "genima:home=migrate")
  string(REPLACE ":" ";" parts "${variant}")
  list(GET parts 0 protocol)
  list(LENGTH parts n)
  set(axes "")
  if(n GREATER 1)
    list(GET parts 1 axes)
  endif()
  set(name fail_migrate.${protocol})
  if(axes)
    set(name ${name}+${axes})
  endif()
  rdsm_mp_test(${name} 40 fail_node.sh ${RDSM_MP_EXE} $<TARGET_FILE:mp_fail_node> migrate)
  set_tests_properties(mp.${name} PROPERTIES ENVIRONMENT "RDSM_PROTOCOL=${protocol};RDSM_AXES=${axes}")
endforeach()

# The launcher interrupted while every node waits.
rdsm_mp_test(interrupt_int 40 interrupt.sh ${RDSM_MP_EXE} INT $<TARGET_FILE:mp_fail_node>)
rdsm_mp_test(interrupt_term 40 interrupt.sh ${RDSM_MP_EXE} TERM $<TARGET_FILE:mp_fail_node>)

# Misuse of the API ends the program with a message naming the call.
foreach(case_call lock_before_init:rdsm_lock double_init:rdsm_init lock_negative:rdsm_lock
                  lock_past_end:rdsm_lock malloc_zero:rdsm_malloc malloc_huge:rdsm_malloc
                  root_slot:rdsm_publish_root trylock_before_init:rdsm_trylock trylock_past_end:rdsm_trylock)
  string(REPLACE ":" ";" parts ${case_call})
  list(GET parts 0 case)
  list(GET parts 1 call)
  rdsm_mp_test(misuse_${case} 40 misuse.sh ${RDSM_MP_EXE} $<TARGET_FILE:mp_misuse> ${case} ${call})
endforeach()

# Statistics: the summary and the --stats JSON file.
rdsm_mp_test(stats_json 40 stats_json.sh ${RDSM_MP_EXE} $<TARGET_FILE:mp_trivial>)
# Under the emu fabric: the network modelled and its charges per parameter.
rdsm_mp_test(stats_emu 40 stats_emu.sh ${RDSM_MP_EXE} $<TARGET_FILE:mp_trivial>)
set_tests_properties(mp.stats_emu PROPERTIES LABELS "mp;emu;stats")
# Multi-threaded nodes: a row per compute thread, adding up to its node.
rdsm_mp_test(stats_threads 120 stats_threads.sh ${RDSM_MP_EXE} $<TARGET_FILE:sor> $<TARGET_FILE:stress>)
set_tests_properties(mp.stats_threads PROPERTIES LABELS "mp;threads;stats")
# ... and for the forked workers of a SPLASH program.
if(TARGET splash_lu)
  rdsm_mp_test(stats_threads_forked 120 stats_threads_forked.sh ${RDSM_MP_EXE} $<TARGET_FILE:splash_lu>)
  set_tests_properties(mp.stats_threads_forked PROPERTIES LABELS "mp;threads;stats")
endif()
# The timeline trace (--trace): its counts are the statistics'.
rdsm_mp_test(trace 300 trace.sh ${RDSM_MP_EXE} $<TARGET_FILE:stress> $<TARGET_FILE:mp_fail_node>
             ${RDSM_MP_DIR}/trace_check.py)
# rdsm sim replays a trace: with no network it gives back the measured time.
rdsm_mp_test(sim 300 sim.sh ${RDSM_MP_EXE} $<TARGET_FILE:sor> $<TARGET_FILE:tsp>)
# rdsm report of a trace: exact on a made-up one, an interval per barrier on a real one.
rdsm_mp_test(trace_report 120 trace_report.sh ${RDSM_MP_EXE} $<TARGET_FILE:sor>)

# Data-race reports (--races): a program with races on purpose is reported
# exactly, under every software preset; the applications, Barnes included,
# are reported race free under the default preset and under the
# message-based baseline.
rdsm_mp_test(races 120 races.sh ${RDSM_MP_EXE} $<TARGET_FILE:mp_racy> $<TARGET_FILE:mp_fail_node>
             $<TARGET_FILE:sor> $<TARGET_FILE:splash_fft>)
foreach(protocol rdsm async)
  rdsm_mp_test(races_apps.${protocol} 300 races_apps.sh ${RDSM_MP_EXE} ${protocol} $<TARGET_FILE_DIR:sor>)
endforeach()
set_tests_properties(mp.races mp.races_apps.rdsm mp.races_apps.async PROPERTIES LABELS "mp;races")

# The memory backend option, its errors and its fallback; a region larger
# than mprotect can cover, under uffd.
rdsm_mp_test(memory_backend 120 memory_backend.sh ${RDSM_MP_EXE} $<TARGET_FILE:mp_trivial>)
rdsm_mp_test(big_region 150 big_region.sh ${RDSM_MP_EXE} $<TARGET_FILE:mp_sparse>)

# Bad inputs: each case of bad_inputs.txt fails with a message naming the
# cause and the fix, and leaves nothing behind.
include(${CMAKE_CURRENT_LIST_DIR}/bad_inputs.cmake)

# The adaptive keep window of rewrites=compare (keep_window.c): a page
# written every 8 releases stops faulting once it has learnt its gap, with
# and without pages opened ahead, under the default and under GeNIMA with
# comparison; one written 4 and 20 releases apart in turn learns the
# longer gap; one written every 120 releases (past the longest window)
# faults again every round.
foreach(entry "gap8|rdsm||8|few" "gap8_no_writeahead|rdsm|writeahead=off|8|few"
              "gap8_genima|genima|rewrites=compare|8|few" "gap4_20|rdsm|writeahead=off|4,20|few"
              "gap120|rdsm|writeahead=off|120|every")
  string(REPLACE "|" ";" parts "${entry}")
  list(GET parts 0 name)
  list(GET parts 1 protocol)
  list(GET parts 2 axes)
  list(GET parts 3 gap)
  list(GET parts 4 expect)
  set(axes_args "")
  if(axes)
    set(axes_args --axes ${axes})
  endif()
  add_test(NAME mp.keep_window.${name}
           COMMAND $<TARGET_FILE:rdsm> run -n 2 --protocol ${protocol} ${axes_args} --timeout 60 --quiet
                   $<TARGET_FILE:mp_keep_window> ${gap} ${expect})
  set_tests_properties(mp.keep_window.${name} PROPERTIES LABELS mp TIMEOUT 90 PASS_REGULAR_EXPRESSION "PASS"
                       FAIL_REGULAR_EXPRESSION "FAIL")
endforeach()

# A node reading and writing its own home pages down a column where it never
# mapped them (strided_home.c): under the default preset each column costs
# a few faults, not one per row; under the seeds' presets only the values
# are checked.
foreach(protocol rdsm genima async)
  set(mode "")
  if(protocol STREQUAL "rdsm")
    set(mode count)
  endif()
  add_test(NAME mp.strided_home.${protocol}
           COMMAND $<TARGET_FILE:rdsm> run -n 2 --protocol ${protocol} --timeout 60 --quiet
                   $<TARGET_FILE:mp_strided_home> ${mode})
  set_tests_properties(mp.strided_home.${protocol} PROPERTIES LABELS mp TIMEOUT 90 PASS_REGULAR_EXPRESSION "PASS"
                       FAIL_REGULAR_EXPRESSION "FAIL")
endforeach()

# A kept home page that another node writes too, compared with its twin
# while that node's diffs land, under --races, where the diff handler
# updates the twin too (shared_kept_page.c).
add_test(NAME mp.shared_kept_page
         COMMAND $<TARGET_FILE:rdsm> run -n 2 --races --timeout 90 --quiet $<TARGET_FILE:mp_shared_kept_page>)
set_tests_properties(mp.shared_kept_page PROPERTIES LABELS "mp;races" TIMEOUT 120 PASS_REGULAR_EXPRESSION "PASS"
                     FAIL_REGULAR_EXPRESSION "FAIL")

# Programs that build one schedule of the rdsm preset, under both handler
# modes; most hold one node for 300 ms at a protocol point
# (RDSM_FAULT=POINT:NODE:N:delay, `fault`; "-" for none) to make a rare
# schedule certain.
# Under the default preset with each handler; further arguments name other
# presets to run it under as well (with their default handler).
function(add_held_node_test prog nodes fault)
  if(fault STREQUAL "-")
    set(env "RDSM_FAULT=")
  else()
    set(env "RDSM_FAULT=${fault}")
  endif()
  set(names)
  set(options)
  foreach(handler interrupt poll)
    list(APPEND names mp.${prog}.${handler})
    list(APPEND options "--protocol rdsm --handler ${handler}")
  endforeach()
  foreach(preset ${ARGN})
    list(APPEND names mp.${prog}.${preset})
    list(APPEND options "--protocol ${preset}")
  endforeach()
  foreach(name option IN ZIP_LISTS names options)
    separate_arguments(option)
    add_test(NAME ${name} COMMAND $<TARGET_FILE:rdsm> run -n ${nodes} ${option} --timeout 60 --quiet
                                  $<TARGET_FILE:mp_${prog}>)
    set_tests_properties(${name} PROPERTIES LABELS mp TIMEOUT 90 PASS_REGULAR_EXPRESSION "PASS"
                         FAIL_REGULAR_EXPRESSION "FAIL" ENVIRONMENT "${env}")
  endforeach()
endfunction()

# A diff withheld for a home move, of an interval whose earlier writes an
# acquire already sent home (withheld_version.c): node 1 is held in the
# third barrier, before it learns the others' notices, while the others
# read the page; they must wait for its diff (the stress found it under
# poll, on a loaded machine).
add_held_node_test(withheld_version 3 barrier:1:3:delay)
# A first copy counted at its home but not yet in the home's log
# (first_copy_log.c): node 1 is held there while the home releases; the
# home must find the page by looking at all it writes untracked, or it goes
# on writing the copied page without notices.
add_held_node_test(first_copy_log 2 first_copy_log:1:1:delay)
# A second copy of a page its home writes untracked, taken while the first
# copy is counted but not yet announced (second_copy.c): node 1 is held
# there while node 2 copies the page and then takes the lock the home wrote
# the page under; node 2 must see the home's writes.  Under GeNIMA's
# choices as well, whose lock and notices differ from the default's.
add_held_node_test(second_copy 3 copy_counted:1:1:delay genima)
# Pages a worker writes alone while their home names them "maybe written"
# (it wrote some untracked after the worker copied them; withheld_merge.c):
# they move only after a second epoch written alone, with withheld diffs,
# and every node must read the home's, the worker's and a third node's
# bytes.  The home waits 300 ms for the copies itself.
add_held_node_test(withheld_merge 3 -)
# A column read down rows where one page in eight is held already
# (strided_gaps.c): the strided prefetch, and the mapping of home pages
# along a stride, step over the held pages, so the column costs a few read
# faults, not three or four per held page.
add_held_node_test(strided_gaps 2 -)
# A transpose's read of another node's rows, tile by tile (strided_tiles.c):
# once the block's width is learnt, the rows whose faults find the stride
# again at each tile get their whole width too.
add_held_node_test(strided_tiles 2 -)
# A column of another node's rows read again after every barrier, its
# pages brought back by strided prefetch (prefetched_rereads.c): once the
# pattern is seen the pages are refreshed at the barriers, and the column
# costs no faults.
add_held_node_test(prefetched_rereads 2 -)
# More pages named at one barrier than an acquire refreshes (bulk_rereads.c):
# dropped there, brought back by the prefetcher, never refreshed.
add_held_node_test(bulk_rereads 2 -)
# A worker's first epoch over whole groups of the master's pages
# (first_epoch_move.c): a group it wrote alone moves to it at that barrier
# with its diffs withheld; a group another node wrote a page of too stays,
# and the withheld diffs go home after all.
add_held_node_test(first_epoch_move 3 -)
# Diffs a barrier's release withholds for moves that its home's "maybe
# written" or the move budget rule out (withheld_guesses.c): none may be
# withheld, to be sent after the barrier while the home waits for them.
add_held_node_test(withheld_guesses 2 -)
# A page written alone by one node and then by two, epoch after epoch
# (withheld_shared.c): its diff is withheld once, not in every round.
add_held_node_test(withheld_shared 3 -)
# A group written whole by a node that some of its pages moved to already
# (group_after_moves.c): the rest moves by the group rule.
add_held_node_test(group_after_moves 2 -)
# A diff of partly written words, of pages its home writes too, blended in
# place while the home is parked in the barrier (parked_blend.c); homes
# fixed, so that each round both nodes write every page at its home.
foreach(handler interrupt poll)
  add_test(NAME mp.parked_blend.${handler}
           COMMAND $<TARGET_FILE:rdsm> run -n 2 --protocol rdsm --axes home=fixed --handler ${handler} --timeout 60
                   --quiet $<TARGET_FILE:mp_parked_blend>)
  set_tests_properties(mp.parked_blend.${handler} PROPERTIES LABELS mp TIMEOUT 90 PASS_REGULAR_EXPRESSION "PASS"
                       FAIL_REGULAR_EXPRESSION "FAIL" ENVIRONMENT "RDSM_FAULT=")
endforeach()
# Pages a node writes alone in two epochs in a row, in scattered pages
# (useless_moves.c): a barrier moves at most its budget of them, and once
# the pages moved are written by their old home, moves stop for good.
add_held_node_test(useless_moves 2 -)
# Whole groups a node writes in part while the pages' home writes the rest
# unnoticed (partial_group_moves.c): they move by the budget only, not with
# their groups, and the moves are regretted once the old home writes them.
add_held_node_test(partial_group_moves 2 -)
# A page dense write-ahead no longer opens after opening it twice for
# nothing (dense_refused.c): the group's fetch must leave it alone too, or
# it is valid but unmapped and its next read faults for ever.
add_held_node_test(dense_refused 3 -)
# A node waiting in a barrier of remote atomics polls a word of its own
# memory, which the last node to arrive moves, and makes no operation on
# the network meanwhile (quiet_barrier_wait.c): under the default preset,
# and under GeNIMA's, whose barrier it is.
add_held_node_test(quiet_barrier_wait 3 - genima)
# A permutation's scatter over pages of both homes (dense_scatter.c): the
# groups dense write-ahead opens grow with the scatter and take the node's
# own home pages too, so the node takes under one write fault per 8 pages
# it writes; every byte reaches both nodes.
add_held_node_test(dense_scatter 2 -)
# hw's nodes map node 0's memory as the data is allocated (hw_mapped.c), as
# the other presets' nodes map their copies: reading what node 0 wrote
# takes them no page fault, as threads sharing one page table take none.
foreach(nodes 2 3)
  add_test(NAME mp.hw_mapped.n${nodes} COMMAND $<TARGET_FILE:rdsm> run -n ${nodes} --protocol hw --timeout 60 --quiet
                                              $<TARGET_FILE:mp_hw_mapped>)
  set_tests_properties(mp.hw_mapped.n${nodes} PROPERTIES LABELS mp TIMEOUT 90 PASS_REGULAR_EXPRESSION "PASS"
                       FAIL_REGULAR_EXPRESSION "FAIL")
endforeach()

# A node in rdsm_finalize still answers its peers (finalize_answers.c): a
# kept page written elsewhere in the last interval goes home after the
# protocol's last barrier, and in poll mode the home answers only while it
# waits.  Both handler modes, 2 and 4 nodes, the presets that keep pages.
foreach(protocol async genima)
  foreach(handler poll interrupt)
    foreach(nodes 2 4)
      set(name mp.finalize_answers.${protocol}.${handler}.n${nodes})
      add_test(NAME ${name}
               COMMAND $<TARGET_FILE:rdsm> run -n ${nodes} --protocol ${protocol} --axes rewrites=compare
                       --handler ${handler} --timeout 30 --quiet $<TARGET_FILE:mp_finalize_answers>)
      set_tests_properties(${name} PROPERTIES LABELS mp TIMEOUT 60 PASS_REGULAR_EXPRESSION "PASS"
                           FAIL_REGULAR_EXPRESSION "${RDSM_FAILED}")
    endforeach()
  endforeach()
endforeach()
