# The mpi fabric (built with -DRDSM_MPI=ON): processes started by mpirun on
# this host, as a user starts any MPI program.
set(RDSM_MPIRUN ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG})
# Open MPI's mpirun or MPICH's mpiexec (hydra): their options differ.
execute_process(COMMAND ${MPIEXEC_EXECUTABLE} --version OUTPUT_VARIABLE mpiexec_version ERROR_VARIABLE mpiexec_version)
if(mpiexec_version MATCHES "HYDRA")
  # Hydra runs as root and places any number of ranks on a host unasked.
  set(RDSM_MPIRUN_FLAGS)
  set(RDSM_MPIRUN_HOSTS -hosts)
  set(RDSM_MPIRUN_PASS_ENV -genvlist)  # ... VARIABLE: the ranks get it
else()
  # Root is how CI runs; more ranks than cores is how a small machine runs 4.
  set(RDSM_MPIRUN_FLAGS --allow-run-as-root --oversubscribe)
  set(RDSM_MPIRUN_HOSTS --allow-run-as-root --mca osc ucx --host)
  set(RDSM_MPIRUN_PASS_ENV -x)
endif()

add_executable(mpi_fetch_latency ${CMAKE_CURRENT_SOURCE_DIR}/mpi/fetch_latency.cpp)
target_include_directories(mpi_fetch_latency PRIVATE ${PROJECT_SOURCE_DIR}/src)
target_link_libraries(mpi_fetch_latency PRIVATE rdsm_runtime)
# Ranks of one host map each other's memory (the default, RDSM_MPI_LOCAL=map):
# a page fetch is a copy, whether the target idles or computes; through MPI
# RMA (rma) it waits for the target's progress thread, so only the figures.
foreach(handler interrupt poll)
  foreach(local map rma)
    if(local STREQUAL "map")
      set(limits --max-get-us 8 --max-ratio 3)
    else()
      set(limits)
    endif()
    add_test(NAME mpi.fetch_latency.${handler}.${local}
             COMMAND ${RDSM_MPIRUN} 2 ${RDSM_MPIRUN_FLAGS} $<TARGET_FILE:mpi_fetch_latency> --handler ${handler}
                     --local ${local} --iterations 1000 ${limits})
    set_tests_properties(mpi.fetch_latency.${handler}.${local} PROPERTIES LABELS "mp;mpi" TIMEOUT 120
                         PASS_REGULAR_EXPRESSION "PASS" FAIL_REGULAR_EXPRESSION "${RDSM_FAILED}")
  endforeach()
endforeach()

# The correctness programs of protocol_matrix.cmake on the mpi fabric, along
# the same preset x node-count axes: started by mpirun with no rdsm launcher,
# the nodes take rank and size from MPI and choose the mpi fabric
# themselves.  Fewer presets and seeds than on shm: every one-sided
# operation here costs the target's progress thread a turn on a CPU.
set(RDSM_MPI_TEST_PROTOCOLS async genima rdsm)
set(RDSM_MPI_STRESS_SEEDS 1:2)
# Each also with RDSM_MPI_LOCAL=rma, so that the MPI RMA path between hosts
# is exercised on one host too.
foreach(protocol ${RDSM_MPI_TEST_PROTOCOLS})
  foreach(nodes 2 4)
    foreach(local map rma)
      set(run ${CMAKE_COMMAND} -E env RDSM_PROTOCOL=${protocol} RDSM_MPI_LOCAL=${local} ${RDSM_MPIRUN} ${nodes}
              ${RDSM_MPIRUN_FLAGS})
      if(local STREQUAL "map")
        set(suffix ${protocol}.mpi.n${nodes})
      else()
        set(suffix ${protocol}.mpi-rma.n${nodes})
      endif()
      add_test(NAME stress.${suffix} COMMAND ${run} $<TARGET_FILE:stress> --seeds ${RDSM_MPI_STRESS_SEEDS})
      add_test(NAME sor.${suffix} COMMAND ${run} $<TARGET_FILE:sor> -m 256 -n 256 -i 10)
      set_tests_properties(stress.${suffix} sor.${suffix} PROPERTIES LABELS "mp;mpi" TIMEOUT 900
                           PASS_REGULAR_EXPRESSION "PASS" FAIL_REGULAR_EXPRESSION "${RDSM_FAILED}")
    endforeach()
  endforeach()
endforeach()

# A rank in rdsm_finalize still answers its peers in poll mode (see
# tests/mp/progs/finalize_answers.c): the job's last barrier delivers.
foreach(handler poll interrupt)
  add_test(NAME mpi.finalize_answers.${handler}
           COMMAND $<TARGET_FILE:rdsm> run --fabric mpi -n 2 --protocol async --axes rewrites=compare
                   --handler ${handler} --timeout 60 --quiet $<TARGET_FILE:mp_finalize_answers>)
  set_tests_properties(mpi.finalize_answers.${handler} PROPERTIES LABELS "mp;mpi" TIMEOUT 120
                       PASS_REGULAR_EXPRESSION "PASS" FAIL_REGULAR_EXPRESSION "${RDSM_FAILED}")
endforeach()

# `rdsm run --fabric mpi`: the launcher hands the job to mpirun, the
# settings to the ranks.  stress under every software preset (the hw preset
# needs the shm fabric's shared pages), at 2 and 4 ranks.
set(RDSM_MPI_LAUNCH_PROTOCOLS async ardmar draw newgen genima rdsm sc)
foreach(protocol ${RDSM_MPI_LAUNCH_PROTOCOLS})
  foreach(nodes 2 4)
    add_test(NAME launcher.mpi.stress.${protocol}.n${nodes}
             COMMAND $<TARGET_FILE:rdsm> run --fabric mpi -n ${nodes} --protocol ${protocol} $<TARGET_FILE:stress>
                     --seeds ${RDSM_MPI_STRESS_SEEDS})
    set_tests_properties(launcher.mpi.stress.${protocol}.n${nodes} PROPERTIES LABELS "mp;mpi" TIMEOUT 900
                         PASS_REGULAR_EXPRESSION "PASS" FAIL_REGULAR_EXPRESSION "${RDSM_FAILED}")
  endforeach()
endforeach()
add_test(NAME launcher.mpi.sor COMMAND $<TARGET_FILE:rdsm> run --fabric mpi -n 2 $<TARGET_FILE:sor>)
set_tests_properties(launcher.mpi.sor PROPERTIES LABELS "mp;mpi" TIMEOUT 900
                     PASS_REGULAR_EXPRESSION "PASS" FAIL_REGULAR_EXPRESSION "${RDSM_FAILED}")
# The ranks run under the settings given to the launcher: micro_fault names its protocol.
add_test(NAME launcher.mpi.settings
         COMMAND $<TARGET_FILE:rdsm> run --fabric mpi -n 2 --protocol genima $<TARGET_FILE:micro_fault> --pages 64)
set_tests_properties(launcher.mpi.settings PROPERTIES LABELS "mp;mpi" TIMEOUT 300
                     PASS_REGULAR_EXPRESSION "PASS micro_fault: 64 pages, protocol genima" FAIL_REGULAR_EXPRESSION "${RDSM_FAILED}")
add_test(NAME launcher.mpi.help COMMAND $<TARGET_FILE:rdsm> run --help)
set_tests_properties(launcher.mpi.help PROPERTIES LABELS "mpi" PASS_REGULAR_EXPRESSION "--fabric F +transport[^\n]*mpi")

# The ranks' statistics reach `rdsm run`: its summary and --stats as on shm.
add_test(NAME mpi.stats COMMAND ${RDSM_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/mpi/stats.sh $<TARGET_FILE:rdsm>
                                $<TARGET_FILE:sor> ${RDSM_MPIRUN} 2 ${RDSM_MPIRUN_FLAGS})
set_tests_properties(mpi.stats PROPERTIES LABELS "mp;mpi" TIMEOUT 300 PASS_REGULAR_EXPRESSION "PASS: statistics")
# `rdsm bench --fabric shm,mpi` and `rdsm report`: the fabrics side by side.
# Serial, as the other sweeps: it measures times.
add_test(NAME mpi.bench COMMAND ${RDSM_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/mpi/bench.sh $<TARGET_FILE:rdsm>)
set_tests_properties(mpi.bench PROPERTIES LABELS "mp;mpi" TIMEOUT 300 RUN_SERIAL TRUE
                     PASS_REGULAR_EXPRESSION "PASS: rdsm bench and report")

# Under MPICH, a rank whose MPI_Finalize never returns (MPICH 4.0 over UCX
# can wait for ever there) ends itself once its grace is over, with a
# warning naming it, and the job ends normally.
if(MPIEXEC_EXECUTABLE MATCHES "mpich|hydra")
  add_test(NAME mpi.finalize_hang
           COMMAND $<TARGET_FILE:rdsm> run --fabric mpi -n 2 --timeout 100 $<TARGET_FILE:sor> -m 64 -n 64 -i 2)
  set_tests_properties(mpi.finalize_hang PROPERTIES LABELS "mp;mpi" TIMEOUT 120
                       ENVIRONMENT "RDSM_FAULT=mpi_finalize:1:1:hang"
                       PASS_REGULAR_EXPRESSION "PASS sor(.*\n)*rdsm: warning: rank 1: MPI_Finalize has not returned after"
                       FAIL_REGULAR_EXPRESSION "${RDSM_FAILED}")
endif()
# A rank killed with SIGKILL ends the job, named, with nothing left behind.
add_test(NAME mpi.rank_killed COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/mpi/rank_killed.sh $<TARGET_FILE:rdsm>
                                      $<TARGET_FILE:mp_fail_node>)
set_tests_properties(mpi.rank_killed PROPERTIES LABELS "mp;mpi" TIMEOUT 120 PASS_REGULAR_EXPRESSION "PASS: rank 2")
# A rank stopped with SIGSTOP is found by the others' watchdogs within the
# hang timeout, named, and the job ends; one that sleeps outside rdsm is
# not hung.
foreach(mode stop compute)
  add_test(NAME mpi.rank_stopped.${mode} COMMAND ${RDSM_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/mpi/rank_stopped.sh
                                                 $<TARGET_FILE:rdsm> $<TARGET_FILE:mp_fail_node> ${mode})
  set_tests_properties(mpi.rank_stopped.${mode} PROPERTIES LABELS "mp;mpi" TIMEOUT 120
                       PASS_REGULAR_EXPRESSION "PASS: ${mode}")
endforeach()

# Emulated hosts (multihost/netns_hosts.sh): each "host" a network
# namespace with a host name of its own, joined to the others by veth pairs
# on a bridge, reached over TCP only; mpirun starts its daemons there
# through multihost/launch_agent.sh instead of ssh.  Root only (exit 77,
# skipped, otherwise).  SOR under every software preset at 2 ranks (one per
# host) and 4 (two per host: both ways at once), the random stress at 2
# and 4 (one seed of 10 rounds or fewer: a whole seed across the link took
# 75 s under the default preset, and the whole seeds run on the other
# fabrics), and the fetch latency across the link.
set(RDSM_NETNS ${CMAKE_CURRENT_SOURCE_DIR}/multihost/netns_hosts.sh)
# Rounds of the stress across the link: the presets whose every lock and
# notice is a one-sided operation pay a TCP round trip for each (the
# default's 10 rounds at 2 ranks took 90 s of CI, async's 3 s).
foreach(protocol ${RDSM_MPI_LAUNCH_PROTOCOLS})
  set(multihost_rounds_${protocol} 10)
endforeach()
set(multihost_rounds_rdsm 4)
set(multihost_rounds_genima 4)
set(multihost_rounds_newgen 5)
set(multihost_tests multihost.fetch_latency)
foreach(protocol ${RDSM_MPI_LAUNCH_PROTOCOLS})
  foreach(nodes 2 4)
    add_test(NAME multihost.sor.${protocol}.n${nodes}
             COMMAND ${RDSM_NETNS} 2 $<TARGET_FILE:rdsm> run --fabric mpi -n ${nodes} --hosts @HOSTS@
                     --protocol ${protocol} --timeout 600 $<TARGET_FILE:sor> -m 256 -n 256 -i 4)
    set_tests_properties(multihost.sor.${protocol}.n${nodes} PROPERTIES
                         LABELS "mp;mpi;multihost" TIMEOUT 700 SKIP_RETURN_CODE 77
                         PASS_REGULAR_EXPRESSION "PASS" FAIL_REGULAR_EXPRESSION "${RDSM_FAILED}")
    list(APPEND multihost_tests multihost.sor.${protocol}.n${nodes})
  endforeach()
  list(APPEND multihost_tests multihost.stress.${protocol}.n2)
  add_test(NAME multihost.stress.${protocol}.n2
           COMMAND ${RDSM_NETNS} 2 $<TARGET_FILE:rdsm> run --fabric mpi -n 2 --hosts @HOSTS@ --protocol ${protocol}
                   --timeout 900 $<TARGET_FILE:stress> --seeds 1:1 --rounds ${multihost_rounds_${protocol}})
  set_tests_properties(multihost.stress.${protocol}.n2 PROPERTIES
                       LABELS "mp;mpi;multihost" TIMEOUT 1000 SKIP_RETURN_CODE 77
                       PASS_REGULAR_EXPRESSION "PASS" FAIL_REGULAR_EXPRESSION "${RDSM_FAILED}")
endforeach()
# The random stress at 4 ranks (two per host: every pair of ranks both on
# one host and across the link) under every software preset, one seed of a
# few rounds each: at 2 ranks a whole seed (20 rounds) across the link
# takes minutes on a busy machine, and the default preset's 10 rounds at 4
# ranks took 164 s of CI's multihost stage (6 took 107 s).  Three rounds
# of ardmar, newgen or genima take 9-14 s; sc's 20 take 2 s.
foreach(protocol ${RDSM_MPI_LAUNCH_PROTOCOLS})
  set(multihost_rounds_${protocol}_n4 3)
endforeach()
set(multihost_rounds_async_n4 6)
set(multihost_rounds_sc_n4 20)
foreach(protocol ${RDSM_MPI_LAUNCH_PROTOCOLS})
  add_test(NAME multihost.stress.${protocol}.n4
           COMMAND ${RDSM_NETNS} 2 $<TARGET_FILE:rdsm> run --fabric mpi -n 4 --hosts @HOSTS@ --protocol ${protocol}
                   --timeout 900 $<TARGET_FILE:stress> --seeds 1:1 --rounds ${multihost_rounds_${protocol}_n4})
  set_tests_properties(multihost.stress.${protocol}.n4 PROPERTIES
                       LABELS "mp;mpi;multihost" TIMEOUT 1000 SKIP_RETURN_CODE 77
                       PASS_REGULAR_EXPRESSION "PASS" FAIL_REGULAR_EXPRESSION "${RDSM_FAILED}")
  list(APPEND multihost_tests multihost.stress.${protocol}.n4)
endforeach()
# With no protocol named, the default preset takes the message axes across
# hosts without an RDMA transport (presets.hpp: kSoftwareOneSidedAxes), and
# says so; the random stress checks that combination there.  On one host,
# where one-sided operations are memory operations, it stays one-sided.
# Whole seeds: by messages a seed takes a second across the link at 2
# ranks, 14 s at 4.
foreach(nodes 2 4)
  if(nodes EQUAL 2)
    set(seeds 1:2)
  else()
    set(seeds 1:1)
  endif()
  add_test(NAME multihost.stress.default.n${nodes}
           COMMAND ${RDSM_NETNS} 2 $<TARGET_FILE:rdsm> run --fabric mpi -n ${nodes} --hosts @HOSTS@
                   --timeout 900 $<TARGET_FILE:stress> --seeds ${seeds})
  set_tests_properties(multihost.stress.default.n${nodes} PROPERTIES
                       LABELS "mp;mpi;multihost" TIMEOUT 1000 SKIP_RETURN_CODE 77
                       PASS_REGULAR_EXPRESSION "note: the job spans hosts without an RDMA transport.*\nPASS(.*\n)*rdsm: protocol rdsm\\+fetch=message,claim=message,diff=message,lock=manager,barrier=manager,notices=lazy, "
                       FAIL_REGULAR_EXPRESSION "${RDSM_FAILED}")
  list(APPEND multihost_tests multihost.stress.default.n${nodes})
endforeach()
add_test(NAME launcher.mpi.default_one_host
         COMMAND $<TARGET_FILE:rdsm> run --fabric mpi -n 2 $<TARGET_FILE:micro_fault> --pages 64)
set_tests_properties(launcher.mpi.default_one_host PROPERTIES LABELS "mp;mpi" TIMEOUT 120
                     PASS_REGULAR_EXPRESSION "rdsm: protocol rdsm, handler"
                     FAIL_REGULAR_EXPRESSION "${RDSM_FAILED}|note: the job spans hosts")
# The figures across the link (no limit on the time: TCP between namespaces
# is this machine's kernel, not a network); a computing target must still
# answer within 3x the idle time.
add_test(NAME multihost.fetch_latency
         COMMAND ${RDSM_NETNS} 2 ${MPIEXEC_EXECUTABLE} --bind-to none ${RDSM_MPIRUN_HOSTS} @HOSTS@
                 ${MPIEXEC_NUMPROC_FLAG} 2 $<TARGET_FILE:mpi_fetch_latency> --iterations 1000 --max-ratio 3)
set_tests_properties(multihost.fetch_latency PROPERTIES LABELS "mp;mpi;multihost" TIMEOUT 300 SKIP_RETURN_CODE 77
                     PASS_REGULAR_EXPRESSION "PASS" FAIL_REGULAR_EXPRESSION "${RDSM_FAILED}")
# The ranks of these tests run on distinct hosts: two host names.
add_test(NAME multihost.hosts_distinct
         COMMAND ${RDSM_NETNS} 2 ${MPIEXEC_EXECUTABLE} ${RDSM_MPIRUN_HOSTS} @HOSTS@ ${MPIEXEC_NUMPROC_FLAG} 2 uname -n)
set_tests_properties(multihost.hosts_distinct PROPERTIES LABELS "mpi;multihost" TIMEOUT 60 SKIP_RETURN_CODE 77
                     PASS_REGULAR_EXPRESSION "rdsmmh[0-9]+-1[^\n]*\n(.*\n)*rdsmmh[0-9]+-2|rdsmmh[0-9]+-2[^\n]*\n(.*\n)*rdsmmh[0-9]+-1")
list(APPEND multihost_tests multihost.hosts_distinct)
# Host 2's link brought down while a job runs across both hosts: the job
# ends non-zero within 5 s, naming the rank it lost, with nothing left.
add_test(NAME multihost.link_down
         COMMAND ${RDSM_NETNS} 2 ${RDSM_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/multihost/link_down.sh $<TARGET_FILE:rdsm>
                 $<TARGET_FILE:mp_fail_node> @BRIDGE_DEV@ @HOSTS@)
set_tests_properties(multihost.link_down PROPERTIES LABELS "mp;mpi;multihost" TIMEOUT 120 SKIP_RETURN_CODE 77
                     PASS_REGULAR_EXPRESSION "PASS: link down")
list(APPEND multihost_tests multihost.link_down)
# SPLASH programs across the emulated hosts, unchanged: the master on one
# host and its worker on the other, the master's private globals sent over
# the link at each CREATE.  OCEAN's V-cycles make hundreds of barriers:
# about 2 s across the link under the default (message axes there).
foreach(prog lu fft radix ocean globals)
  if(prog STREQUAL "lu")
    set(args -p2 -n64 -b16)
  elseif(prog STREQUAL "ocean")
    set(args -p2 -n66)
  elseif(prog STREQUAL "fft")
    set(args -p2 -m10)
  elseif(prog STREQUAL "radix")
    set(args -p2 -n16384)
  else()
    set(args -p2)
  endif()
  add_test(NAME multihost.splash.${prog}.n2
           COMMAND ${RDSM_NETNS} 2 $<TARGET_FILE:rdsm> run --fabric mpi -n 2 --hosts @HOSTS@ --quiet --timeout 600
                   $<TARGET_FILE:splash_${prog}> ${args})
  set_tests_properties(multihost.splash.${prog}.n2 PROPERTIES LABELS "mp;mpi;multihost" TIMEOUT 700
                       SKIP_RETURN_CODE 77 PASS_REGULAR_EXPRESSION "PASS" FAIL_REGULAR_EXPRESSION "${RDSM_FAILED}")
  list(APPEND multihost_tests multihost.splash.${prog}.n2)
endforeach()
# Nothing of an emulated host outlives its test.
add_test(NAME multihost.cleanup
         COMMAND ${RDSM_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/multihost/no_leftovers.sh)
set_tests_properties(multihost.cleanup PROPERTIES LABELS "mpi;multihost" TIMEOUT 30 PASS_REGULAR_EXPRESSION "PASS"
                     DEPENDS "${multihost_tests}")

# SPLASH (fork-join) programs on the mpi fabric: the workers are the other
# ranks of the MPI job (src/api/fork_join_ranks.hpp), started by mpirun
# alone or by `rdsm run --fabric mpi`.
add_test(NAME mpi.fork_join.lu COMMAND ${RDSM_MPIRUN} 2 ${RDSM_MPIRUN_FLAGS} $<TARGET_FILE:splash_lu> -p2 -n 128)
add_test(NAME mpi.fork_join.fft
         COMMAND $<TARGET_FILE:rdsm> run --fabric mpi -n 2 --quiet $<TARGET_FILE:splash_fft> -p2 -m12)
add_test(NAME mpi.fork_join.ocean
         COMMAND $<TARGET_FILE:rdsm> run --fabric mpi -n 2 --quiet $<TARGET_FILE:splash_ocean> -p2 -n34 -i2)
# Every macro at 4 ranks, two rounds of CREATE; shared input allocated
# before MAIN_INITENV.
add_test(NAME mpi.fork_join.every_macro
         COMMAND ${RDSM_MPIRUN} 4 ${RDSM_MPIRUN_FLAGS} $<TARGET_FILE:splash_every_macro> -p 4 -n 200)
add_test(NAME mpi.fork_join.alloc_first
         COMMAND ${RDSM_MPIRUN} 3 ${RDSM_MPIRUN_FLAGS} $<TARGET_FILE:splash_alloc_first> -p 3)
set_tests_properties(mpi.fork_join.lu mpi.fork_join.fft mpi.fork_join.ocean mpi.fork_join.every_macro
                     mpi.fork_join.alloc_first
                     PROPERTIES LABELS "mp;mpi" TIMEOUT 300 PASS_REGULAR_EXPRESSION "PASS" FAIL_REGULAR_EXPRESSION "${RDSM_FAILED}")
# The master's private globals reach every rank (fork_join.sh, which also
# checks the failure cases).
foreach(mode globals killed stripped)
  if(mode STREQUAL "globals")
    set(prog $<TARGET_FILE:splash_globals>)
  else()
    set(prog $<TARGET_FILE:splash_lu> -p2 -n 128)
  endif()
  add_test(NAME mpi.fork_join.${mode}
           COMMAND ${RDSM_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/mpi/fork_join.sh ${mode} $<TARGET_FILE:rdsm> ${prog})
  set_tests_properties(mpi.fork_join.${mode} PROPERTIES LABELS "mp;mpi" TIMEOUT 120 PASS_REGULAR_EXPRESSION "PASS: ${mode}")
endforeach()
# Ranks whose programs are loaded at different addresses (here: with
# address-space randomisation left on, as where the kernel refuses to turn
# it off) cannot share the master's globals: the first CREATE says so.
add_test(NAME mpi.fork_join.layout_differs
         COMMAND ${CMAKE_COMMAND} -E env RDSM_FIXED_LAYOUT=1 ${RDSM_MPIRUN} 2 ${RDSM_MPIRUN_FLAGS} ${RDSM_MPIRUN_PASS_ENV} RDSM_FIXED_LAYOUT
                 $<TARGET_FILE:splash_lu> -p2 -n 128)
set_tests_properties(mpi.fork_join.layout_differs PROPERTIES LABELS "mp;mpi" TIMEOUT 60
                     PASS_REGULAR_EXPRESSION "rank 1 loads the program at 0x[0-9a-f]+, rank 0 at 0x[0-9a-f]+: address-space randomisation is on.*setarch")
# Nodes of several threads are refused, naming what to do.
add_test(NAME mpi.fork_join.threads_refused
         COMMAND ${CMAKE_COMMAND} -E env RDSM_THREADS=2 ${RDSM_MPIRUN} 2 ${RDSM_MPIRUN_FLAGS} ${RDSM_MPIRUN_PASS_ENV} RDSM_THREADS
                 $<TARGET_FILE:splash_lu> -p4 -n 128)
set_tests_properties(mpi.fork_join.threads_refused PROPERTIES LABELS "mp;mpi" TIMEOUT 60
                     PASS_REGULAR_EXPRESSION "runs one process per rank, with one thread each; run it without --threads")
# A job of one process per rank: more CREATE'd workers than ranks is one
# clear message naming both counts and what to start instead.
add_test(NAME mpi.fork_join.ranks_mismatch
         COMMAND ${RDSM_MPIRUN} 2 ${RDSM_MPIRUN_FLAGS} $<TARGET_FILE:splash_lu> -p3 -n 128)
set_tests_properties(mpi.fork_join.ranks_mismatch PROPERTIES LABELS "mp;mpi" TIMEOUT 60
                     PASS_REGULAR_EXPRESSION "CREATE: the program runs 3 processes \\(the master and 2 CREATE'd workers\\), but its MPI job has 2 ranks.*start it with 3")
