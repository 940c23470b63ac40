# The correctness suite, run for every protocol preset, handler mode and
# node count: randomized data-race-free programs checked against their
# sequential oracle, and SOR checked bit for bit against a sequential run.
set(RDSM_TEST_PROTOCOLS async ardmar draw newgen genima rdsm hw)
set(RDSM_TEST_HANDLERS interrupt poll)
# Seeds per stress run: each seed is a new random program of 20 rounds.  A
# sanitizer build looks for memory errors, which the first seeds already
# exercise, at several times the cost per seed: 2 per handler mode, per
# axis variant and per memory backend.  Elsewhere the two handler modes of
# a preset run 14 seeds each, seeds 1-28 between them; an axis variant
# runs 6, the second memory backend 10, multi-threaded nodes 14.  The stress
# is 40% of the regular build's tests, and CI has 25 minutes on a machine
# whose speed varies by more than a factor of two from day to day (with
# 20, 8, 14 and 20 seeds CI once took 1,648 s).  Longer soaks: the same
# commands with more seeds (--seeds 1:1000).
# The presets' runs by handler mode and by memory backend are at 2 and 4
# nodes; a sanitizer build runs the 4 only (every node then has several
# peers; the 2-node runs stay in the regular build), for CI's time.
if(RDSM_SANITIZE)
  set(preset_seeds_interrupt 1:2)
  set(preset_seeds_poll 3:2)
  set(variant_seeds 1:2)
  set(matrix_nodes 4)
else()
  set(preset_seeds_interrupt 1:14)
  set(preset_seeds_poll 15:14)
  set(variant_seeds 1:6)
  set(matrix_nodes 2 4)
endif()
foreach(protocol ${RDSM_TEST_PROTOCOLS})
  foreach(handler ${RDSM_TEST_HANDLERS})
    foreach(nodes ${matrix_nodes})
      set(run $<TARGET_FILE:rdsm> run -n ${nodes} --protocol ${protocol} --handler ${handler} --timeout 600 --quiet)
      add_test(NAME stress.${protocol}.${handler}.n${nodes}
               COMMAND ${run} $<TARGET_FILE:stress> --seeds ${preset_seeds_${handler}})
      add_test(NAME sor.${protocol}.${handler}.n${nodes}
               COMMAND ${run} $<TARGET_FILE:sor> -m 256 -n 256 -i 10)
      set_tests_properties(stress.${protocol}.${handler}.n${nodes} sor.${protocol}.${handler}.n${nodes}
                           PROPERTIES LABELS mp TIMEOUT 700 PASS_REGULAR_EXPRESSION "PASS"
                                      FAIL_REGULAR_EXPRESSION "${RDSM_FAILED}")
    endforeach()
  endforeach()
endforeach()

# The two other handler modes (docs/protocols.md, "Handler modes"): signal
# (a message interrupts the computing node with a signal whose handler
# serves it) and spin (a handler thread that never sleeps), each under a
# one-sided preset, a message-based one and sc, at 2 and 4 nodes (spin at 4
# under the one-sided preset only), with few seeds of their own: the fabric's unit tests cover how the modes deliver,
# these how the protocols fare on them.  Then the signal mode's safety: a
# node computing with malloc and free in a loop while the others fetch its
# pages and take a lock it manages (busy_home; the interrupt mode beside it
# as the reference), and sc's Peterson's lock on plain variables, whose
# spinning nodes only the signal serves.
if(RDSM_SANITIZE)
  set(extra_handler_seeds 41:2)
else()
  set(extra_handler_seeds 41:4)
endif()
set(extra_handler_tests "")
foreach(handler signal spin)
  foreach(protocol rdsm async sc)
    set(node_counts 2 4)
    if(handler STREQUAL spin AND NOT protocol STREQUAL rdsm)
      # 4 spinning handler threads and their spinning waiters on CI's 2
      # cores: a message waits for a time slice (stress under sc took 14 s
      # beside the rest of the suite); the one-sided preset, which sends
      # few messages, keeps 4 nodes.
      set(node_counts 2)
    endif()
    foreach(nodes ${node_counts})
      set(run $<TARGET_FILE:rdsm> run -n ${nodes} --protocol ${protocol} --handler ${handler} --timeout 300 --quiet)
      add_test(NAME stress.${protocol}.${handler}.n${nodes}
               COMMAND ${run} $<TARGET_FILE:stress> --seeds ${extra_handler_seeds})
      add_test(NAME sor.${protocol}.${handler}.n${nodes} COMMAND ${run} $<TARGET_FILE:sor> -m 256 -n 256 -i 10)
      list(APPEND extra_handler_tests stress.${protocol}.${handler}.n${nodes} sor.${protocol}.${handler}.n${nodes})
    endforeach()
  endforeach()
endforeach()
foreach(handler signal interrupt)
  add_test(NAME busy_home.async.${handler}.n3
           COMMAND $<TARGET_FILE:rdsm> run -n 3 --protocol async --handler ${handler} --timeout 120 --quiet
                   $<TARGET_FILE:mp_busy_home> 1)
  list(APPEND extra_handler_tests busy_home.async.${handler}.n3)
endforeach()
add_test(NAME litmus.sc.signal.n2
         COMMAND $<TARGET_FILE:rdsm> run -n 2 --protocol sc --handler signal --timeout 300 --quiet
                 $<TARGET_FILE:mp_litmus> 200 200)
list(APPEND extra_handler_tests litmus.sc.signal.n2)
set_tests_properties(${extra_handler_tests} PROPERTIES LABELS mp TIMEOUT 400 PASS_REGULAR_EXPRESSION "PASS"
                                                      FAIL_REGULAR_EXPRESSION "${RDSM_FAILED}")
# busy_home times how soon node 0 answers while it computes: alone, so that
# another test's processes on the same 2 CPUs do not decide it (under ASan
# beside the suite, a node was once served only after node 0 had finished).
set_tests_properties(busy_home.async.signal.n3 busy_home.async.interrupt.n3 PROPERTIES RUN_SERIAL TRUE)

# Axes chosen on their own, beside the presets: atomic locks and barriers
# with lazy notices pulled from the writers, GeNIMA with lazy notices, home
# migration and prefetch on the message-based baseline and on the one-sided
# presets, rewrite detection by comparison with message diffs, whole-page
# writes with lazy notices and with GeNIMA's fault-per-interval rewrites,
# masked diff writes and write-ahead on their own, and the default preset
# with each of its own axes turned off, and with the message axes it takes
# across hosts without RDMA (presets.hpp).  Each under one handler mode, the
# two modes in turn down the list: the presets above run both, and an axis
# changes what a protocol does, not how its messages are delivered.
set(variant_turn 0)
foreach(variant "async:lock=atomic,barrier=atomic" "genima:notices=lazy" "newgen:lock=atomic"
                "async:home=migrate,prefetch=adaptive" "draw:home=migrate" "ardmar:prefetch=adaptive"
                "newgen:home=migrate,prefetch=adaptive" "rdsm:home=fixed" "rdsm:prefetch=off"
                "rdsm:notices=lazy" "async:rewrites=compare" "rdsm:whole=off" "newgen:whole=exclusive"
                "genima:whole=exclusive" "newgen:pieces=masked" "rdsm:pieces=runs" "rdsm:writeahead=off" "rdsm:writeahead=stream"
                "genima:rewrites=compare,writeahead=stream" "async:rewrites=compare,writeahead=dense"
                "rdsm:lockahead=on" "genima:rewrites=compare,lockahead=on"
                "rdsm:fetch=message,claim=message,diff=message,lock=manager,barrier=manager,notices=lazy")
  string(REPLACE ":" ";" parts "${variant}")
  list(GET parts 0 protocol)
  list(GET parts 1 axes)
  string(REPLACE "," "." axes_name "${axes}")
  string(REPLACE "=" "-" axes_name "${axes_name}")
  list(GET RDSM_TEST_HANDLERS ${variant_turn} handler)
  math(EXPR variant_turn "(${variant_turn} + 1) % 2")
  set(name stress.${protocol}+${axes_name}.${handler}.n4)
  add_test(NAME ${name}
           COMMAND $<TARGET_FILE:rdsm> run -n 4 --protocol ${protocol} --axes ${axes} --handler ${handler}
                   --timeout 600 --quiet $<TARGET_FILE:stress> --seeds ${variant_seeds})
  set_tests_properties(${name} PROPERTIES LABELS mp TIMEOUT 700 PASS_REGULAR_EXPRESSION "PASS"
                                          FAIL_REGULAR_EXPRESSION "${RDSM_FAILED}")
endforeach()

# The main job's size: SOR 1024 x 1024 on 4 nodes, default preset, matches the sequential run exactly.
add_test(NAME sor.default.interrupt.n4.1024
         COMMAND $<TARGET_FILE:rdsm> run -n 4 --timeout 600 --quiet $<TARGET_FILE:sor> -m 1024 -n 1024 -i 20)
set_tests_properties(sor.default.interrupt.n4.1024 PROPERTIES LABELS mp TIMEOUT 700 PASS_REGULAR_EXPRESSION "PASS"
                                                         FAIL_REGULAR_EXPRESSION "${RDSM_FAILED}")

# The memory backend the nodes do not choose by default, as its own axis:
# every preset at 2 and 4 nodes with the interrupt handler and fewer seeds
# (the protocols do not know the backend, so the handler and the axis
# variants above need not be crossed with it).
set(RDSM_SECOND_MEMORY mprotect)
if(RDSM_SANITIZE)
  set(memory_seeds 1:2)
else()
  set(memory_seeds 1:10)
endif()
foreach(protocol ${RDSM_TEST_PROTOCOLS})
  foreach(nodes ${matrix_nodes})
    set(run $<TARGET_FILE:rdsm> run -n ${nodes} --protocol ${protocol} --memory ${RDSM_SECOND_MEMORY} --timeout 600
            --quiet)
    set(suffix ${protocol}.${RDSM_SECOND_MEMORY}.n${nodes})
    add_test(NAME stress.${suffix} COMMAND ${run} $<TARGET_FILE:stress> --seeds ${memory_seeds})
    add_test(NAME sor.${suffix} COMMAND ${run} $<TARGET_FILE:sor> -m 256 -n 256 -i 10)
    set_tests_properties(stress.${suffix} sor.${suffix} PROPERTIES LABELS mp TIMEOUT 700 PASS_REGULAR_EXPRESSION
                         "PASS" FAIL_REGULAR_EXPRESSION "${RDSM_FAILED}")
  endforeach()
endforeach()

# Memory for copies given when a page is first fetched (RDSM_PREPOPULATE=
# off) instead of when it is allocated (the default): the fetch path then
# copies into pages the memory file does not have yet.  A one-sided and a
# message-based preset at 2 and 4 nodes.
foreach(protocol rdsm async)
  foreach(nodes 2 4)
    set(run $<TARGET_FILE:rdsm> run -n ${nodes} --protocol ${protocol} --timeout 600 --quiet)
    set(suffix ${protocol}+prepopulate-off.n${nodes})
    add_test(NAME stress.${suffix} COMMAND ${run} $<TARGET_FILE:stress> --seeds ${memory_seeds})
    add_test(NAME sor.${suffix} COMMAND ${run} $<TARGET_FILE:sor> -m 256 -n 256 -i 10)
    set_tests_properties(stress.${suffix} sor.${suffix} PROPERTIES LABELS mp TIMEOUT 700 ENVIRONMENT
                         RDSM_PREPOPULATE=off PASS_REGULAR_EXPRESSION "PASS" FAIL_REGULAR_EXPRESSION "${RDSM_FAILED}")
  endforeach()
endforeach()

# Write detection by scan (detect=scan: uffd's asynchronous write
# protection and a page-table scan at release) changes when copies are
# twinned and how writes are found, under every software preset: each at 2
# and 4 nodes, plus the poll handler where faults are handed to a thread.
# Where the kernel cannot scan, the nodes say so and detect by faults: the
# runs are then reported as skipped (the unit tests check that scan mode
# runs wherever the kernel has it).
foreach(run_spec "async:interrupt:2" "async:interrupt:4" "ardmar:interrupt:2" "draw:interrupt:4"
                 "newgen:interrupt:2" "genima:interrupt:2" "genima:interrupt:4" "genima:poll:4" "rdsm:interrupt:2"
                 "rdsm:interrupt:4" "rdsm:poll:4")
  string(REPLACE ":" ";" parts "${run_spec}")
  list(GET parts 0 protocol)
  list(GET parts 1 handler)
  list(GET parts 2 nodes)
  set(run $<TARGET_FILE:rdsm> run -n ${nodes} --protocol ${protocol} --axes detect=scan --memory uffd
          --handler ${handler} --timeout 600 --quiet)
  set(suffix ${protocol}+detect-scan.${handler}.n${nodes})
  add_test(NAME stress.${suffix} COMMAND ${run} $<TARGET_FILE:stress> --seeds ${memory_seeds})
  add_test(NAME sor.${suffix} COMMAND ${run} $<TARGET_FILE:sor> -m 256 -n 256 -i 10)
  set_tests_properties(stress.${suffix} sor.${suffix} PROPERTIES LABELS mp TIMEOUT 700 PASS_REGULAR_EXPRESSION
                       "PASS" FAIL_REGULAR_EXPRESSION "${RDSM_FAILED}" SKIP_REGULAR_EXPRESSION
                       "writes are detected by faults|memory backend cannot run here")
endforeach()

# rdsm_trylock and rdsm::mutex as a standard Lockable (tests/mp/progs:
# trylock.c, mutex_try.cpp): a try that finds the lock busy, the writes of
# the previous holder seen after a try, exact counters under tried and
# waited-for locks; under every preset at 1, 2 and 4 nodes, the C program
# with both handler modes (manager locks answer tries from handlers), and
# each lock axis on a preset whose notices travel the other way.
foreach(protocol ${RDSM_TEST_PROTOCOLS})
  foreach(nodes 1 2 4)
    foreach(handler ${RDSM_TEST_HANDLERS})
      if(nodes EQUAL 1 AND handler STREQUAL poll)
        continue()
      endif()
      set(run $<TARGET_FILE:rdsm> run -n ${nodes} --protocol ${protocol} --handler ${handler} --timeout 120 --quiet)
      add_test(NAME trylock.${protocol}.${handler}.n${nodes} COMMAND ${run} $<TARGET_FILE:mp_trylock>)
      set_tests_properties(trylock.${protocol}.${handler}.n${nodes} PROPERTIES LABELS "mp;trylock" TIMEOUT 150
                           PASS_REGULAR_EXPRESSION "PASS" FAIL_REGULAR_EXPRESSION "${RDSM_FAILED}")
    endforeach()
    set(name mutex_try.${protocol}.n${nodes})
    add_test(NAME ${name} COMMAND $<TARGET_FILE:rdsm> run -n ${nodes} --protocol ${protocol} --timeout 120 --quiet
                                  $<TARGET_FILE:mp_mutex_try>)
    set_tests_properties(${name} PROPERTIES LABELS "mp;trylock" TIMEOUT 150 PASS_REGULAR_EXPRESSION "PASS"
                                            FAIL_REGULAR_EXPRESSION "${RDSM_FAILED}")
  endforeach()
endforeach()
foreach(variant "async:lock=atomic" "genima:lock=manager")
  string(REPLACE ":" ";" parts "${variant}")
  list(GET parts 0 protocol)
  list(GET parts 1 axes)
  string(REPLACE "=" "-" axes_name "${axes}")
  foreach(handler ${RDSM_TEST_HANDLERS})
    set(name trylock.${protocol}+${axes_name}.${handler}.n4)
    add_test(NAME ${name} COMMAND $<TARGET_FILE:rdsm> run -n 4 --protocol ${protocol} --axes ${axes} --handler
                                  ${handler} --timeout 120 --quiet $<TARGET_FILE:mp_trylock>)
    set_tests_properties(${name} PROPERTIES LABELS "mp;trylock" TIMEOUT 150 PASS_REGULAR_EXPRESSION "PASS"
                                            FAIL_REGULAR_EXPRESSION "${RDSM_FAILED}")
  endforeach()
endforeach()

# Lock-protected counters (tests/mp/progs/lock_counters.c): every node
# increments counters of three pages at random, each under its own lock, and
# every round's total is checked; a wrong one lists the counters that lost
# increments.  Under every preset at 4 nodes.
foreach(protocol ${RDSM_TEST_PROTOCOLS})
  set(name lock_counters.${protocol}.n4)
  add_test(NAME ${name} COMMAND $<TARGET_FILE:rdsm> run -n 4 --protocol ${protocol} --timeout 120 --quiet
                                $<TARGET_FILE:mp_lock_counters> 10 200)
  set_tests_properties(${name} PROPERTIES LABELS "mp;trylock" TIMEOUT 150 PASS_REGULAR_EXPRESSION "PASS lock_counters"
                                          FAIL_REGULAR_EXPRESSION "${RDSM_FAILED}")
endforeach()

# Multi-threaded nodes (--threads, api/node_threads.hpp): the stress, SOR and
# LU with every compute thread a worker, under every preset, at 2 nodes x 2
# threads (both handler modes: the threads of a node share its protocol state
# with faults, releases and acquires of other threads in progress) and at 1
# node x 4 threads (locks handed over inside the node, the local barrier).
if(RDSM_SANITIZE OR RDSM_TSAN)
  set(thread_seeds 1:3)
else()
  set(thread_seeds 1:14)
endif()
foreach(protocol ${RDSM_TEST_PROTOCOLS})
  foreach(shape "2:2:interrupt" "2:2:poll" "1:4:interrupt")
    string(REPLACE ":" ";" parts "${shape}")
    list(GET parts 0 nodes)
    list(GET parts 1 threads)
    list(GET parts 2 handler)
    set(run $<TARGET_FILE:rdsm> run -n ${nodes} --threads ${threads} --protocol ${protocol} --handler ${handler}
            --timeout 600 --quiet)
    set(suffix ${protocol}.${handler}.n${nodes}t${threads})
    add_test(NAME stress.${suffix} COMMAND ${run} $<TARGET_FILE:stress> --seeds ${thread_seeds})
    add_test(NAME sor.${suffix} COMMAND ${run} $<TARGET_FILE:sor> -m 256 -n 256 -i 10)
    add_test(NAME lu.${suffix} COMMAND ${run} $<TARGET_FILE:lu> -n 256 -b 16)
    set_tests_properties(stress.${suffix} sor.${suffix} lu.${suffix} PROPERTIES LABELS "mp;threads" TIMEOUT 700
                         PASS_REGULAR_EXPRESSION "PASS" FAIL_REGULAR_EXPRESSION "${RDSM_FAILED}")
  endforeach()
endforeach()
# The same under the other memory backend, whose fault signal (SIGSEGV, not
# uffd's SIGBUS) and protection changes the threads of a node then share:
# the stress at 2 nodes x 2 threads under every preset, with few seeds.
if(RDSM_SANITIZE OR RDSM_TSAN)
  set(thread_memory_seeds 1:4)
else()
  set(thread_memory_seeds 1:6)
endif()
foreach(protocol ${RDSM_TEST_PROTOCOLS})
  set(name stress.${protocol}.${RDSM_SECOND_MEMORY}.n2t2)
  add_test(NAME ${name} COMMAND $<TARGET_FILE:rdsm> run -n 2 --threads 2 --protocol ${protocol}
                                --memory ${RDSM_SECOND_MEMORY} --timeout 600 --quiet $<TARGET_FILE:stress>
                                --seeds ${thread_memory_seeds})
  set_tests_properties(${name} PROPERTIES LABELS "mp;threads" TIMEOUT 700 PASS_REGULAR_EXPRESSION "PASS"
                                          FAIL_REGULAR_EXPRESSION "${RDSM_FAILED}")
endforeach()
# The other applications written for threads (rdsm_run_threads), each
# checking itself against its sequential run, at test size (NBody smaller:
# its sequential check dominates): the default preset at 2 nodes x 2
# threads and 1 node x 4 threads, and hw at 2 x 2 (threads and processes
# both sharing the memory directly).
foreach(entry "radix|radix|--size test" "fft|fft|--size test" "fft3d|fft3d|--size test" "is|is|--size test"
              "tsp|tsp|--size test" "water|water|--size test" "nbody|nbody|--variant nbody -b 2048"
              "nbodyw|nbody|--variant nbodyw -b 2048" "ocean|ocean|--size test" "barnes|barnes|--size test")
  string(REPLACE "|" ";" parts "${entry}")
  list(GET parts 0 variant)
  list(GET parts 1 app)
  list(GET parts 2 args)
  separate_arguments(args UNIX_COMMAND "${args}")
  foreach(shape "rdsm:2:2" "rdsm:1:4" "hw:2:2")
    string(REPLACE ":" ";" parts "${shape}")
    list(GET parts 0 protocol)
    list(GET parts 1 nodes)
    list(GET parts 2 threads)
    set(name ${variant}.${protocol}.n${nodes}t${threads})
    add_test(NAME ${name} COMMAND $<TARGET_FILE:rdsm> run -n ${nodes} --threads ${threads} --protocol ${protocol}
                                  --timeout 120 --quiet $<TARGET_FILE:${app}> ${args})
    set_tests_properties(${name} PROPERTIES LABELS "mp;threads" TIMEOUT 150 PASS_REGULAR_EXPRESSION "PASS"
                                            FAIL_REGULAR_EXPRESSION "${RDSM_FAILED}")
  endforeach()
endforeach()
# The emu fabric under every software preset: the correctness suite at 2
# nodes, both handler modes, over the costs of a current RDMA network (small
# enough to keep the runs short, large enough that every operation is
# charged and every message is delayed).  Then SOR over each of emu's
# network presets, the seeds' slow ones included.
set(RDSM_SOFTWARE_PROTOCOLS ${RDSM_TEST_PROTOCOLS})
list(REMOVE_ITEM RDSM_SOFTWARE_PROTOCOLS hw)
foreach(protocol ${RDSM_SOFTWARE_PROTOCOLS})
  foreach(handler ${RDSM_TEST_HANDLERS})
    set(run $<TARGET_FILE:rdsm> run -n 2 --fabric emu --emu-preset rdma --protocol ${protocol} --handler ${handler}
            --timeout 600 --quiet)
    set(suffix ${protocol}.emu.${handler}.n2)
    add_test(NAME stress.${suffix} COMMAND ${run} $<TARGET_FILE:stress> --seeds ${variant_seeds})
    add_test(NAME sor.${suffix} COMMAND ${run} $<TARGET_FILE:sor> -m 256 -n 256 -i 10)
    set_tests_properties(stress.${suffix} sor.${suffix} PROPERTIES LABELS "mp;emu" TIMEOUT 700
                                                                   PASS_REGULAR_EXPRESSION "PASS"
                                                                   FAIL_REGULAR_EXPRESSION "${RDSM_FAILED}")
  endforeach()
endforeach()
foreach(network none achievable best myrinet via infiniband-sdr rdma)
  add_test(NAME sor.rdsm.emu-${network}.n2
           COMMAND $<TARGET_FILE:rdsm> run -n 2 --emu-preset ${network} --timeout 600 --quiet $<TARGET_FILE:sor>
                   -m 256 -n 256 -i 10)
  set_tests_properties(sor.rdsm.emu-${network}.n2 PROPERTIES LABELS "mp;emu" TIMEOUT 700
                                                            PASS_REGULAR_EXPRESSION "PASS" FAIL_REGULAR_EXPRESSION "${RDSM_FAILED}")
endforeach()

# Sequential consistency (sc: an engine of its own, one writer per page):
# the stress and SOR at 2 and 4 nodes under both handler modes, then under
# the other memory backend, with atomic locks and barrier, with 2 compute
# threads per node, rdsm_trylock, and the racy litmus test, whose outcomes
# sc must keep sequentially consistent (under async, a release-consistency
# preset, they are reported only), with Peterson's lock on plain variables
# where a handler thread serves the spinning nodes.  Falsely shared pages travel between
# single writers at every write, so a stress seed costs several times what
# it does under the HLRC presets: fewer seeds.
# The variants (memory backend, sync axes, threads) take half the seeds.
if(RDSM_SANITIZE)
  set(sc_seeds 1:3)
  set(sc_variant_seeds 1:2)
  set(litmus_rounds 200)
  set(lock_rounds 50)
else()
  set(sc_seeds 1:8)
  set(sc_variant_seeds 1:4)
  set(litmus_rounds 1000)
  set(lock_rounds 200)
endif()
set(sc_tests "")
foreach(handler ${RDSM_TEST_HANDLERS})
  foreach(nodes 2 4)
    set(run $<TARGET_FILE:rdsm> run -n ${nodes} --protocol sc --handler ${handler} --timeout 300 --quiet)
    add_test(NAME stress.sc.${handler}.n${nodes} COMMAND ${run} $<TARGET_FILE:stress> --seeds ${sc_seeds})
    add_test(NAME sor.sc.${handler}.n${nodes} COMMAND ${run} $<TARGET_FILE:sor> -m 256 -n 256 -i 10)
    add_test(NAME trylock.sc.${handler}.n${nodes} COMMAND ${run} $<TARGET_FILE:mp_trylock>)
    list(APPEND sc_tests stress.sc.${handler}.n${nodes} sor.sc.${handler}.n${nodes} trylock.sc.${handler}.n${nodes})
  endforeach()
  set(spinning ${lock_rounds})
  if(handler STREQUAL poll)
    set(spinning 0)
  endif()
  add_test(NAME litmus.sc.${handler}.n2
           COMMAND $<TARGET_FILE:rdsm> run -n 2 --protocol sc --handler ${handler} --timeout 300 --quiet
                   $<TARGET_FILE:mp_litmus> ${litmus_rounds} ${spinning})
  list(APPEND sc_tests litmus.sc.${handler}.n2)
endforeach()
set(run $<TARGET_FILE:rdsm> run --protocol sc --timeout 300 --quiet)
add_test(NAME stress.sc.${RDSM_SECOND_MEMORY}.n4
         COMMAND ${run} -n 4 --memory ${RDSM_SECOND_MEMORY} $<TARGET_FILE:stress> --seeds ${sc_variant_seeds})
add_test(NAME sor.sc.${RDSM_SECOND_MEMORY}.n2
         COMMAND ${run} -n 2 --memory ${RDSM_SECOND_MEMORY} $<TARGET_FILE:sor> -m 256 -n 256 -i 10)
add_test(NAME litmus.sc.${RDSM_SECOND_MEMORY}.n2
         COMMAND ${run} -n 2 --memory ${RDSM_SECOND_MEMORY} $<TARGET_FILE:mp_litmus> ${litmus_rounds} ${lock_rounds})
add_test(NAME stress.sc+lock-atomic.barrier-atomic.n4
         COMMAND ${run} -n 4 --axes lock=atomic,barrier=atomic $<TARGET_FILE:stress> --seeds ${sc_variant_seeds})
add_test(NAME stress.sc.interrupt.n2t2 COMMAND ${run} -n 2 --threads 2 $<TARGET_FILE:stress> --seeds ${sc_variant_seeds})
add_test(NAME litmus.sc.interrupt.n4 COMMAND ${run} -n 4 $<TARGET_FILE:mp_litmus> ${litmus_rounds} ${lock_rounds})
add_test(NAME litmus.async.interrupt.n2
         COMMAND $<TARGET_FILE:rdsm> run -n 2 --protocol async --timeout 300 --quiet $<TARGET_FILE:mp_litmus>
                 ${litmus_rounds})
# The default moves data by one-sided reads and writes (fetch=one-sided,
# above): reads of read-only owners' copies race with the manager's next
# request for the page.  The papers' base protocol moves everything in
# messages (fetch=message): the correctness programs under it too.
set(message_run ${run} --axes fetch=message)
foreach(nodes 2 4)
  add_test(NAME stress.sc+fetch-message.n${nodes}
           COMMAND ${message_run} -n ${nodes} $<TARGET_FILE:stress> --seeds ${sc_variant_seeds})
  add_test(NAME litmus.sc+fetch-message.n${nodes}
           COMMAND ${message_run} -n ${nodes} $<TARGET_FILE:mp_litmus> ${litmus_rounds} ${lock_rounds})
  list(APPEND sc_tests stress.sc+fetch-message.n${nodes} litmus.sc+fetch-message.n${nodes})
endforeach()
add_test(NAME stress.sc+fetch-message+minipages.n4
         COMMAND ${message_run} -n 4 --minipages on $<TARGET_FILE:stress> --small-counters --seeds ${sc_variant_seeds})
add_test(NAME stress.sc+fetch-message.poll.n4
         COMMAND ${message_run} -n 4 --handler poll $<TARGET_FILE:stress> --seeds ${sc_variant_seeds})
list(APPEND sc_tests stress.sc+fetch-message+minipages.n4 stress.sc+fetch-message.poll.n4)
# A read miss from a read-only owner is served in the fault's signal
# handler (sc_fast_read.cpp): under both handler modes, the other memory
# backend and beside a second compute thread of the node (the tests of the
# default above), and where messages are served in the message signal's
# handler.
add_test(NAME litmus.sc.signal.n4
         COMMAND ${run} -n 4 --handler signal $<TARGET_FILE:mp_litmus> ${litmus_rounds} ${lock_rounds})
list(APPEND sc_tests litmus.sc.signal.n4)
# A read miss on a page its owner holds writable is served by the faulting
# thread too, which write-protects the owner's copy through the owner's
# userfaultfd (sc_peer_downgrade.cpp): on uffd memory such misses send no
# message.  And in a fork-join program, whose master's memory outlives the
# workers that held its userfaultfd; and in the papers' base protocol.
add_test(NAME fault_hops.sc.uffd.n2 COMMAND ${run} -n 2 --memory uffd $<TARGET_FILE:micro_fault_hops> --pages 64)
set_tests_properties(fault_hops.sc.uffd.n2 PROPERTIES LABELS mp TIMEOUT 400
                     PASS_REGULAR_EXPRESSION "read_miss [^\n]* messages 0 " FAIL_REGULAR_EXPRESSION "${RDSM_FAILED}")
add_test(NAME splash_lu.sc.p2 COMMAND ${run} -n 1 $<TARGET_FILE:splash_lu> -p2 -n256)
add_test(NAME splash_ocean.sc.p4 COMMAND ${run} -n 1 $<TARGET_FILE:splash_ocean> -p4 -n66)
add_test(NAME splash_ocean.sc+fetch-message.p4 COMMAND ${message_run} -n 1 $<TARGET_FILE:splash_ocean> -p4 -n66)
list(APPEND sc_tests splash_lu.sc.p2 splash_ocean.sc.p4 splash_ocean.sc+fetch-message.p4)
# Pages two nodes write and read without synchronisation, changing hands at
# nearly every access, each node checking its own writes survive: a write
# that slips past a peer's write protection while the owner lowers its
# access is lost (sc_peer_downgrade.cpp).  Lifting the peer's bound before
# the new protection made it fail in about a third of 3-second runs (and
# the stress in about a fifth); under fetch by messages too.
add_test(NAME owner_churn.sc.n2 COMMAND ${run} -n 2 $<TARGET_FILE:mp_owner_churn> 3 2)
add_test(NAME owner_churn.sc.n4 COMMAND ${run} -n 4 $<TARGET_FILE:mp_owner_churn> 1.5 2)
add_test(NAME owner_churn.sc+fetch-message.n2 COMMAND ${message_run} -n 2 $<TARGET_FILE:mp_owner_churn> 1.5 2)
list(APPEND sc_tests owner_churn.sc.n2 owner_churn.sc.n4 owner_churn.sc+fetch-message.n2)
list(APPEND sc_tests stress.sc.${RDSM_SECOND_MEMORY}.n4 sor.sc.${RDSM_SECOND_MEMORY}.n2
     litmus.sc.${RDSM_SECOND_MEMORY}.n2 stress.sc+lock-atomic.barrier-atomic.n4 stress.sc.interrupt.n2t2
     litmus.sc.interrupt.n4 litmus.async.interrupt.n2)
# Minipages (--minipages on): the stress with each lock-protected counter a
# small allocation of its own, so a minipage (the rest of its data is whole
# pages), at 2 and 4 nodes and under the other memory backend, where views
# are more mappings; the false-sharing app with and without them, and under
# a release-consistency preset, which has no minipages and merges the
# falsely shared writes with diffs.
set(minipage_run $<TARGET_FILE:rdsm> run --protocol sc --minipages on --timeout 300 --quiet)
add_test(NAME stress.sc+minipages.n2
         COMMAND ${minipage_run} -n 2 $<TARGET_FILE:stress> --small-counters --seeds ${sc_variant_seeds})
add_test(NAME stress.sc+minipages.n4
         COMMAND ${minipage_run} -n 4 $<TARGET_FILE:stress> --small-counters --seeds ${sc_variant_seeds})
add_test(NAME stress.sc+minipages.${RDSM_SECOND_MEMORY}.n4
         COMMAND ${minipage_run} -n 4 --memory ${RDSM_SECOND_MEMORY} $<TARGET_FILE:stress> --small-counters
                 --seeds 1:2)
add_test(NAME false_sharing.sc+minipages.n2
         COMMAND ${minipage_run} -n 2 $<TARGET_FILE:false_sharing> --iters 5000)
add_test(NAME false_sharing.sc+minipages.n4
         COMMAND ${minipage_run} -n 4 $<TARGET_FILE:false_sharing> --iters 2000)
add_test(NAME false_sharing.sc.n2 COMMAND ${run} -n 2 $<TARGET_FILE:false_sharing> --iters 2000)
add_test(NAME false_sharing.async.n2
         COMMAND $<TARGET_FILE:rdsm> run -n 2 --protocol async --timeout 300 --quiet $<TARGET_FILE:false_sharing>
                 --iters 2000)
# Adaptive minipages: followers are learnt from faults with no
# synchronisation between them, which the false-sharing app's checks of
# every counter make (16 per node, 30 rounds, little work between updates).
add_test(NAME false_sharing.sc+minipages-adaptive.n2
         COMMAND $<TARGET_FILE:rdsm> run -n 2 --protocol sc --minipages adaptive --timeout 300 --quiet
                 $<TARGET_FILE:false_sharing> --vars 16 --rounds 30 --iters 600 --work 20)
add_test(NAME false_sharing.sc+minipages-adaptive.poll.n4
         COMMAND $<TARGET_FILE:rdsm> run -n 4 --protocol sc --minipages adaptive --handler poll --timeout 300 --quiet
                 $<TARGET_FILE:false_sharing> --vars 16 --rounds 30 --iters 600 --work 20)
# Minipages allocated one after another are neighbouring virtual pages
# (one protection call for a group of them), and their data stays right
# while an owner downgrades them as a group at barriers (the default,
# fetch=one-sided) and takes them back, under both memory backends.
add_test(NAME minipage_groups.sc+fetch-message+minipages.n2
         COMMAND ${minipage_run} -n 2 --axes fetch=message $<TARGET_FILE:mp_minipage_groups>)
add_test(NAME minipage_groups.sc+minipages.n3 COMMAND ${minipage_run} -n 3 $<TARGET_FILE:mp_minipage_groups>)
add_test(NAME minipage_groups.sc+minipages.${RDSM_SECOND_MEMORY}.n2
         COMMAND ${minipage_run} -n 2 --memory ${RDSM_SECOND_MEMORY} $<TARGET_FILE:mp_minipage_groups>)
list(APPEND sc_tests minipage_groups.sc+fetch-message+minipages.n2 minipage_groups.sc+minipages.n3
     minipage_groups.sc+minipages.${RDSM_SECOND_MEMORY}.n2)
list(APPEND sc_tests stress.sc+minipages.n2 stress.sc+minipages.n4 stress.sc+minipages.${RDSM_SECOND_MEMORY}.n4
     false_sharing.sc+minipages.n2 false_sharing.sc+minipages.n4 false_sharing.sc.n2 false_sharing.async.n2
     false_sharing.sc+minipages-adaptive.n2 false_sharing.sc+minipages-adaptive.poll.n4)
set_tests_properties(${sc_tests} PROPERTIES LABELS mp TIMEOUT 400 PASS_REGULAR_EXPRESSION "PASS"
                                            FAIL_REGULAR_EXPRESSION "${RDSM_FAILED}")
# Minipage tests must really run with minipages: the counters of different
# nodes never share a page.
set_tests_properties(false_sharing.sc+minipages.n2 false_sharing.sc+minipages.n4 false_sharing.sc+minipages-adaptive.n2
                     false_sharing.sc+minipages-adaptive.poll.n4 PROPERTIES PASS_REGULAR_EXPRESSION
                     "PASS false_sharing:.*none shared")
