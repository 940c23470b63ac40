# Smoke test of the application benchmark driver and its report:
# tools/rdsm_bench.py runs a tiny sweep (sor only, 1 and 2 nodes, protocols
# async and genima, one repeat, plus hw, each configuration counted as short
# so that it runs twice more: three runs each, recorded as repeats 0 to 2,
# and a note; the plan of a sweep of three repeats must alternate the
# protocols' order, hw included), then tools/rdsm_report.py must
# write speedup.png, breakdown.png, handler.png and summary.json, with each
# protocol's speedup as a fraction of hw's in its table, its summary and its
# --brief table; without the hw runs the fraction must read "-".  Plain
# threads (one process of 2 threads, `rdsm run -n 1 --threads 2 --protocol
# hw`) run beside, three times too, and the report must show them as a row
# in the column of 2 nodes and each protocol's speedup as a fraction of
# theirs ("of threads", 1.00 for themselves).  A fork-join
# app (the SPLASH test program every_macro, given to the sweep through an
# app table of its own) must run as `rdsm run -n 1 ... -p{nodes}` with the
# placeholder replaced (its plain threads as `rdsm run -n 1 --threads 2 ...
# -p2`), and its report must break down the master and its forked workers.
#
# mp.bench_memory: a sweep under --memory mprotect,uffd (sor, genima and hw,
# 1 and 2 nodes) must record the backend of every run, the two backends' runs
# side by side, and its report must show a memory column and the
# uffd/mprotect table (where uffd cannot run here, the sweep must say why and
# the report is checked on the mprotect runs, and on a copy of them labelled
# uffd); with uffd disabled (RDSM_UFFD_UNAVAILABLE) uffd's first run must fail
# with the reason and its other runs be skipped; a sweep without --memory
# records the backend that ran, and a bench file that does not say (older
# files) still loads, without a memory column.
#
# mp.bench_sweep: a sweep of interrupt cost (two values) over sor at test
# size, one protocol at 2 nodes, with the achievable and best presets
# (--emu-preset achievable,best: achievable is the base), must record per run
# the network it ran at, and its report must hold the sweep's table (a row
# of times and slowdowns, 1.00 at the cheapest value), the achievable vs best
# table, sweep_interrupt.png and the sweep in summary.json; --brief the
# slowdowns.  With --predict it also traces the job on shm and predicts it
# at the four networks with rdsm sim: the report sets the predictions
# beside the emu runs.
#
# mp.bench_threads: a sweep over thread counts (--threads 1,2) of sor and the
# fork-join splash_lu, genima and hw at 1 and 2 nodes, must run every
# configuration at each thread count (a fork-join app with N x T workers:
# -p4 for 2 nodes of 2 threads, formed into 2 nodes) and record it; its
# report must keep the shapes apart (a column per NxT: 1x1, 1x2, 2x1, 2x2),
# compare each with hw at the same shape (hw 1.00 in every column, and in
# summary.json every fraction of hw is the speedup over hw's at the same
# nodes and threads), and list per-thread rows at 2x2, the forked worker's
# (w1.t0, w1.t1) included; --brief the same columns.
# Nothing is skipped: without python3 or matplotlib the test fails and says why.
#
# Included from tests/CMakeLists.txt:
#   include(${CMAKE_CURRENT_SOURCE_DIR}/bench.cmake)
# The same file is the tests' script (cmake -P; -DPART=memory for
# mp.bench_memory, and so on), so the steps live here too.

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
                   -DFORK_JOIN_PROG=$<TARGET_FILE:splash_every_macro>
                   -DOUT=${CMAKE_CURRENT_BINARY_DIR}/bench_smoke
                   -P ${CMAKE_CURRENT_LIST_FILE})
  # Serial: it measures times, and starts jobs of up to two nodes.
  set_tests_properties(mp.bench_smoke PROPERTIES LABELS mp TIMEOUT 180 RUN_SERIAL TRUE)
  # The other parts of the script, one test each: name, part, timeout, labels.
  function(_rdsm_bench_part name part timeout labels)
    add_test(NAME ${name}
             COMMAND ${CMAKE_COMMAND}
                     -DPYTHON=${_rdsm_bench_python}
                     -DSRC=${PROJECT_SOURCE_DIR}
                     -DBUILD=$<TARGET_FILE_DIR:rdsm>
                     -DOUT=${CMAKE_CURRENT_BINARY_DIR}/bench_${part}
                     -DPART=${part}
                     -P ${CMAKE_CURRENT_LIST_FILE})
    set_tests_properties(${name} PROPERTIES LABELS "${labels}" TIMEOUT ${timeout} RUN_SERIAL TRUE)
  endfunction()
  _rdsm_bench_part(mp.bench_memory memory 120 "mp")
  _rdsm_bench_part(mp.bench_sweep sweep 120 "mp;emu")
  _rdsm_bench_part(mp.bench_threads threads 180 "mp")
  return()
endif()

# ---- script mode: the test itself ------------------------------------------

if(PART STREQUAL "memory")
  set(_test mp.bench_memory)
elseif(PART STREQUAL "sweep")
  set(_test mp.bench_sweep)
elseif(PART STREQUAL "threads")
  set(_test mp.bench_threads)
else()
  set(_test mp.bench_smoke)
endif()
if(NOT PYTHON)
  message(FATAL_ERROR "${_test}: python3 was not found when the project was configured; "
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
  message(FATAL_ERROR "${_test}: matplotlib is not installed (neither for ${PYTHON} nor for "
                      "/usr/bin/python3); install it with: apt-get install -y python3-matplotlib")
endif()

file(REMOVE_RECURSE ${OUT})
file(MAKE_DIRECTORY ${OUT})
set(_json ${OUT}/bench.json)
if(PART STREQUAL "sweep")
  # ---- mp.bench_sweep --------------------------------------------------------
  execute_process(COMMAND ${PYTHON} ${SRC}/tools/rdsm_bench.py --build ${BUILD} --apps sor --protocols async
                          --nodes 2 --sizes test --no-hw --sweep interrupt=0,50us --emu-preset achievable,best
                          --predict --timeout 60 --short-runs 1 --out ${_json}
                  RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _err)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "mp.bench_sweep: the sweep failed (exit status ${_rc}):\n${_out}\n${_err}")
  endif()
  # The base network, the two values swept and the best preset, each recorded as asked and as run.
  execute_process(COMMAND ${PYTHON} -c [=[
import json, sys
runs = json.load(open(sys.argv[1]))["runs"]
got = [(r["emu_point"]["kind"], r["emu_point"]["preset"], r["emu_point"]["settings"], r["fabric"],
        r["emu"]["params"]["interrupt_ns"], r["emu"]["params"]["bandwidth_bytes_per_second"]) for r in runs]
want = [("base", "achievable", "", "emu", 5000, 1e8), ("sweep", "achievable", "interrupt=0", "emu", 0, 1e8),
        ("sweep", "achievable", "interrupt=50us", "emu", 50000, 1e8), ("preset", "best", "", "emu", 0, 4e8)]
bad = [r["command"] for r in runs if r["emu_point"]["params"] != r["emu"]["params"] or "--emu-preset" not in r["command"]]
if got != want or bad:
    sys.exit("runs %r, expected %r" % (got, want) if got != want else "not run as asked: %r" % bad)
# --predict: one traced shm run, predicted at the four networks; a dearer
# interrupt predicts a longer time for async (a message per fetch).
preds = json.load(open(sys.argv[1])).get("predictions") or []
if len(preds) != 1 or not preds[0]["ok"] or len(preds[0]["predicted"]) != 4:
    sys.exit("predictions: %r, expected one traced run predicted at 4 networks" % preds)
t = {(x["point"]["kind"], x["point"]["settings"]): x["predicted_seconds"] for x in preds[0]["predicted"]}
if not 0 < t[("sweep", "interrupt=0")] < t[("sweep", "interrupt=50us")]:
    sys.exit("predicted %r: not 0 < interrupt=0 < interrupt=50us" % t)
]=] ${_json} RESULT_VARIABLE _rc OUTPUT_VARIABLE _why ERROR_VARIABLE _why)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "mp.bench_sweep: the sweep's runs are not the networks asked for: ${_why}")
  endif()
  execute_process(COMMAND ${PYTHON} ${SRC}/tools/rdsm_report.py ${_json} --out ${OUT}
                  RESULT_VARIABLE _rc OUTPUT_VARIABLE _report ERROR_VARIABLE _err)
  message(STATUS "mp.bench_sweep: report\n${_report}")
  set(_num "[0-9]+\\.?[0-9]*")
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "mp.bench_sweep: the report failed (exit status ${_rc}):\n${_err}")
  endif()
  if(NOT _report MATCHES "\n== sweep of interrupt \\(Bilas et al\\. Figure 1\\.6\\)\n   the others at achievable: host_overhead=3us,occupancy=5us,latency=0us,bandwidth=100MB/s\n"
     OR NOT _report MATCHES "\n +-+ 0us -+ +-+ 5us\\* -+ +-+ 50us -+\napp +protocol +nodes +time \\(s\\) +slowdown +time \\(s\\) +slowdown +time \\(s\\) +slowdown\n"
     OR NOT _report MATCHES "\nsor +async +2 +${_num} +1\\.00 +${_num} +${_num} +${_num} +${_num}\n")
    message(FATAL_ERROR "mp.bench_sweep: the report lacks the sweep's table (heading, a column pair per value, "
                        "the row of sor under async with slowdown 1.00 at 0us)")
  endif()
  if(NOT _report MATCHES "\n== achievable vs best [^\n]*\napp +protocol +nodes +best \\(s\\) +achievable \\(s\\) +achievable/best +speedup best +speedup achievable\n[- ]+\nsor +async +2 +${_num} +${_num} +${_num} +${_num} +${_num}\n")
    message(FATAL_ERROR "mp.bench_sweep: the report lacks the achievable vs best table")
  endif()
  if(NOT _report MATCHES "\n== rdsm sim against the emu fabric[^\n]*\napp +protocol +nodes +network +traces +predicted \\(s\\) +measured \\(s\\) +predicted/measured\n[- ]+\nsor +async +2 +achievable +1 +${_num} +${_num} +${_num}\n"
     OR NOT _report MATCHES "\nwithin 15%: [0-4] of 4\n")
    message(FATAL_ERROR "mp.bench_sweep: the report lacks rdsm sim's predictions beside the emu runs")
  endif()
  if(NOT _report MATCHES "emu network achievable: the sweeps' base")
    message(FATAL_ERROR "mp.bench_sweep: the report does not say which network its ordinary tables are of")
  endif()
  foreach(_png speedup.png sweep_interrupt.png)
    if(NOT EXISTS ${OUT}/${_png})
      message(FATAL_ERROR "mp.bench_sweep: the report did not write ${OUT}/${_png}")
    endif()
    file(SIZE ${OUT}/${_png} _size)
    if(_size LESS 1000)
      message(FATAL_ERROR "mp.bench_sweep: ${OUT}/${_png} is only ${_size} bytes")
    endif()
  endforeach()
  file(READ ${OUT}/summary.json _sum)
  string(JSON _param GET "${_sum}" sweeps 0 param)
  string(JSON _npoints LENGTH "${_sum}" sweeps 0 results 0 points)
  string(JSON _first GET "${_sum}" sweeps 0 results 0 points 0 slowdown)
  string(JSON _nab LENGTH "${_sum}" achievable_vs_best)
  string(JSON _npred LENGTH "${_sum}" predicted_vs_measured)
  if(NOT _npred EQUAL 4)
    message(FATAL_ERROR "mp.bench_sweep: summary.json should hold 4 predicted vs measured rows, not ${_npred}")
  endif()
  if(NOT _param STREQUAL "interrupt" OR NOT _npoints EQUAL 3 OR NOT _first EQUAL 1 OR NOT _nab EQUAL 1)
    message(FATAL_ERROR "mp.bench_sweep: summary.json should hold the sweep of interrupt (has ${_param}) with 3 "
                        "points (${_npoints}), the first of slowdown 1 (${_first}), and 1 achievable vs best row "
                        "(${_nab})")
  endif()
  execute_process(COMMAND ${PYTHON} ${SRC}/tools/rdsm_report.py ${_json} --brief
                  RESULT_VARIABLE _rc OUTPUT_VARIABLE _brief)
  if(NOT _rc EQUAL 0 OR NOT _brief MATCHES "\napp +protocol +nodes +0us +5us\\* +50us\n[- ]+\nsor +async +2 +1\\.00 +${_num} +${_num}\n")
    message(FATAL_ERROR "mp.bench_sweep: the --brief report (exit status ${_rc}) lacks the sweep's slowdowns:\n${_brief}")
  endif()
  message(STATUS "mp.bench_sweep: sweep and report in ${OUT}")
  return()
endif()
if(PART STREQUAL "threads")
  # ---- mp.bench_threads ------------------------------------------------------
  execute_process(COMMAND ${PYTHON} ${SRC}/tools/rdsm_bench.py --build ${BUILD} --apps sor,splash_lu
                          --protocols genima --nodes 1,2 --threads 1,2 --sizes test --timeout 60 --short-runs 1
                          --no-threads --out ${_json}
                  RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _err)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "mp.bench_threads: the sweep failed (exit status ${_rc}):\n${_out}\n${_err}")
  endif()
  # Every configuration at each thread count, run and recorded as such.
  execute_process(COMMAND ${PYTHON} -c [=[
import json, sys
runs = json.load(open(sys.argv[1]))["runs"]
got = sorted((r["app"], r["protocol"], r["nodes"], r["threads"]) for r in runs)
want = sorted((a, p, n, t) for a in ("sor", "splash_lu") for p in ("genima", "hw") for n in (1, 2) for t in (1, 2))
bad = []
for r in runs:
    c = r["command"]
    asked = int(c[c.index("--threads") + 1]) if "--threads" in c else 1
    rows = [n for n in r["stats"]["per_node"]]
    if asked != r["threads"] or r["stats"]["threads"] != r["threads"] or len(rows) != r["nodes"]:
        bad.append(c)
    if r["app"] == "splash_lu" and "-p%d" % (r["nodes"] * r["threads"]) not in c:
        bad.append(c)
sys.exit("runs %r, expected %r" % (got, want) if got != want else "not run as recorded: %r" % bad if bad else 0)
]=] ${_json} RESULT_VARIABLE _rc OUTPUT_VARIABLE _why ERROR_VARIABLE _why)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "mp.bench_threads: the sweep's runs are not each configuration at each thread count: ${_why}")
  endif()
  execute_process(COMMAND ${PYTHON} ${SRC}/tools/rdsm_report.py ${_json} --out ${OUT}
                  RESULT_VARIABLE _rc OUTPUT_VARIABLE _report ERROR_VARIABLE _err)
  message(STATUS "mp.bench_threads: report\n${_report}")
  set(_num "[0-9]+\\.[0-9]+")
  # CMake's regular expressions have no {n}: the cells of the four shapes spelled out.
  string(REPEAT " +${_num}" 12 _12)
  string(REPEAT " +${_num} +${_num} +1\\.00" 4 _hw4)
  string(REPEAT " +[0-9.]+" 6 _6)
  string(REPEAT " +[0-9.]+" 5 _5)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "mp.bench_threads: the report failed (exit status ${_rc}):\n${_err}")
  endif()
  foreach(_app sor splash_lu)
    if(NOT _report MATCHES "== ${_app}: [^\n]*\n +-+ 1x1 -+ +-+ 1x2 -+ +-+ 2x1 -+ +-+ 2x2 -+\nprotocol( +time \\(s\\) +speedup +of hw)+\n[- ]+\ngenima${_12}\nhw${_hw4}\n"
       OR NOT _report MATCHES "== ${_app}: [^=]*breakdown at 2x2 [^=]*per thread at 2x2 [^\n]*\n[^\n]*\n[- ]+\ngenima +0\\.t0 ")
      message(FATAL_ERROR "mp.bench_threads: the report of ${_app} lacks a column per nodes x threads (1x1 1x2 2x1 2x2, hw "
                          "at 1.00 in each), or the breakdown and per-thread rows at 2x2")
    endif()
  endforeach()
  if(NOT _report MATCHES "\ngenima +w1\\.t0 [^\n]*\ngenima +w1\\.t1 ")
    message(FATAL_ERROR "mp.bench_threads: the report lacks the per-thread rows of splash_lu's forked worker (w1.t0, w1.t1)")
  endif()
  # Each fraction of hw is over hw at the same nodes and threads.
  execute_process(COMMAND ${PYTHON} -c [=[
import json, sys
groups = json.load(open(sys.argv[1]))["groups"]
bad, seen = [], 0
for g in groups:
    hw = {(x["nodes"], x["threads"]): x["speedup"] for x in g["results"] if x["protocol"] == "hw"}
    for x in g["results"]:
        seen += 1
        want = x["speedup"] / hw[(x["nodes"], x["threads"])]
        if abs(x["fraction_of_hw"] - want) > 1e-9 * want:
            bad.append((g["app"], x["protocol"], x["nodes"], x["threads"], x["fraction_of_hw"], want))
sys.exit("fractions not over hw at the same shape: %r" % bad if bad else 0 if seen == 16 else "%d results, expected 16" % seen)
]=] ${OUT}/summary.json RESULT_VARIABLE _rc OUTPUT_VARIABLE _why ERROR_VARIABLE _why)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "mp.bench_threads: summary.json: ${_why}")
  endif()
  execute_process(COMMAND ${PYTHON} ${SRC}/tools/rdsm_report.py ${_json} --brief
                  RESULT_VARIABLE _rc OUTPUT_VARIABLE _brief)
  if(NOT _rc EQUAL 0
     OR NOT _brief MATCHES "\nprotocol +1x1 \\(s\\) +1x2 \\(s\\) +2x1 \\(s\\) +2x2 \\(s\\) +speedup at 2x2 +of hw at 2x2\n[- ]+\ngenima${_6}\nhw${_5} +1\\.00\n")
    message(FATAL_ERROR "mp.bench_threads: the --brief report (exit status ${_rc}) lacks a column per nodes x threads:\n${_brief}")
  endif()
  message(STATUS "mp.bench_threads: sweep and report in ${OUT}")
  return()
endif()
if(PART STREQUAL "memory")
  # ---- mp.bench_memory -------------------------------------------------------

  # A sweep without --memory names the backend that ran; a file without it (older ones) loads, without a
  # memory column.
  execute_process(COMMAND ${PYTHON} ${SRC}/tools/rdsm_bench.py --build ${BUILD} --apps sor --protocols genima
                          --nodes 1,2 --sizes test --timeout 60 --short-runs 1 --no-threads --out ${_json}
                  RESULT_VARIABLE _rc)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "mp.bench_memory: tools/rdsm_bench.py failed (exit status ${_rc})")
  endif()
  file(READ ${_json} _doc)
  string(JSON _m GET "${_doc}" runs 0 memory)
  string(JSON _req TYPE "${_doc}" runs 0 memory_requested)
  if(NOT _m MATCHES "^(uffd|mprotect)$" OR NOT _req STREQUAL "NULL")
    message(FATAL_ERROR "mp.bench_memory: a sweep without --memory should record the backend that ran (not '${_m}') "
                        "and none asked for (not ${_req})")
  endif()
  file(MAKE_DIRECTORY ${OUT}/old)
  execute_process(COMMAND ${PYTHON} -c [=[
import json, sys
doc = json.load(open(sys.argv[1]))
for r in doc["runs"]:
    r.pop("memory", None); r.pop("memory_requested", None); (r.get("stats") or {}).pop("memory", None)
json.dump(doc, open(sys.argv[2], "w"))
]=] ${_json} ${OUT}/old/bench.json RESULT_VARIABLE _rc)
  execute_process(COMMAND ${PYTHON} ${SRC}/tools/rdsm_report.py ${OUT}/old/bench.json --brief
                  RESULT_VARIABLE _rc OUTPUT_VARIABLE _brief)
  if(NOT _rc EQUAL 0 OR NOT _brief MATCHES "\nprotocol +1 node \\(s\\) +2 nodes \\(s\\) +speedup at 2 +of hw at 2\n"
     OR NOT _brief MATCHES "\nhw +[0-9.]+ +[0-9.]+ +[0-9.]+ +1\\.00\n" OR _brief MATCHES "uffd/mprotect")
    message(FATAL_ERROR "mp.bench_memory: a bench file without the memory field (exit status ${_rc}) should report as "
                        "before:\n${_brief}")
  endif()

  # Both backends side by side.
  set(_mem ${OUT}/memory)
  file(MAKE_DIRECTORY ${_mem})
  execute_process(COMMAND ${PYTHON} ${SRC}/tools/rdsm_bench.py --build ${BUILD} --apps sor --protocols genima
                          --nodes 1,2 --sizes test --memory mprotect,uffd --timeout 60 --short-runs 1 --no-threads
                          --out ${_mem}/bench.json
                  RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _err)
  message(STATUS "mp.bench_memory: --memory mprotect,uffd sweep\n${_out}")
  set(_unavailable_re "the uffd memory backend cannot run here")
  if(_out MATCHES "note: ${_unavailable_re}[^\n]*")
    message(STATUS "mp.bench_memory: ${CMAKE_MATCH_0}; the report is checked on the mprotect runs and a copy "
                   "of them labelled uffd")
    if(NOT _rc EQUAL 1)
      message(FATAL_ERROR "mp.bench_memory: without uffd the sweep should end with status 1, not ${_rc}")
    endif()
    execute_process(COMMAND ${PYTHON} ${SRC}/tools/rdsm_report.py ${_mem}/bench.json --brief
                    RESULT_VARIABLE _rc OUTPUT_VARIABLE _brief)
    if(NOT _rc EQUAL 0 OR NOT _brief MATCHES "\ngenima +mprotect +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+\n")
      message(FATAL_ERROR "mp.bench_memory: the report of a sweep whose uffd runs could not run (exit status ${_rc}) "
                          "should show the mprotect runs:\n${_brief}")
    endif()
    execute_process(COMMAND ${PYTHON} -c [=[
import copy, json, sys
doc = json.load(open(sys.argv[1]))
doc["runs"] = [r for r in doc["runs"] if r.get("ok")]
for r in list(doc["runs"]):
    u = copy.deepcopy(r)
    u["memory"] = u["memory_requested"] = u["stats"]["memory"] = "uffd"
    doc["runs"].append(u)
json.dump(doc, open(sys.argv[1], "w"))
]=] ${_mem}/bench.json RESULT_VARIABLE _rc)
  else()
    if(NOT _rc EQUAL 0)
      message(FATAL_ERROR "mp.bench_memory: tools/rdsm_bench.py --memory mprotect,uffd failed (exit status ${_rc})\n${_err}")
    endif()
    # Every run records the backend asked for and the one that ran (the same); the two follow each other.
    execute_process(COMMAND ${PYTHON} -c [=[
import json, sys
runs = json.load(open(sys.argv[1]))["runs"]
bad = [r["command"] for r in runs if r["memory"] != r["memory_requested"] or r["memory"] != r["stats"]["memory"]
       or r["command"][r["command"].index("--memory") + 1] != r["memory"]]
pairs = [(runs[i], runs[i + 1]) for i in range(0, len(runs), 2)]
apart = [a["command"] for a, b in pairs if {a["memory"], b["memory"]} != {"mprotect", "uffd"}
         or (a["protocol"], a["nodes"]) != (b["protocol"], b["nodes"])]
sys.exit("memory not recorded: %r" % bad if bad else "backends not side by side: %r" % apart if apart
         else 0 if len(runs) == 8 else "%d runs, expected 8" % len(runs))
]=] ${_mem}/bench.json RESULT_VARIABLE _rc)
    if(NOT _rc EQUAL 0)
      message(FATAL_ERROR "mp.bench_memory: the --memory mprotect,uffd sweep's runs are not as expected")
    endif()
  endif()
  execute_process(COMMAND ${PYTHON} ${SRC}/tools/rdsm_report.py ${_mem}/bench.json --out ${_mem}
                  RESULT_VARIABLE _rc OUTPUT_VARIABLE _report)
  message(STATUS "mp.bench_memory: report of both backends\n${_report}")
  set(_num "[0-9]+\\.[0-9]+")
  set(_ratios_re "\n== uffd/mprotect[^\n]*\napp +protocol +1 node +2 nodes +max\n[- ]+\nsor +genima +${_num}\\*? +${_num}\\*? +${_num}\nsor +hw +${_num}\\*? +${_num}\\*? +${_num}\n")
  if(NOT _rc EQUAL 0
     OR NOT _report MATCHES "\nprotocol +memory +time \\(s\\) +speedup +of hw +time \\(s\\) +speedup +of hw\n"
     OR NOT _report MATCHES "\ngenima +mprotect( +${_num})+\ngenima +uffd( +${_num})+\nhw +mprotect +${_num} +${_num} +1\\.00 +${_num} +${_num} +1\\.00\nhw +uffd +${_num} +${_num} +1\\.00 +${_num} +${_num} +1\\.00\n"
     OR NOT _report MATCHES "${_ratios_re}")
    message(FATAL_ERROR "mp.bench_memory: the report of both backends (exit status ${_rc}) lacks the memory column, "
                        "a row per protocol and backend, or the uffd/mprotect table")
  endif()
  foreach(_png speedup.png breakdown.png handler.png)
    if(NOT EXISTS ${_mem}/${_png})
      message(FATAL_ERROR "mp.bench_memory: the report of both backends did not write ${_mem}/${_png}")
    endif()
  endforeach()
  file(READ ${_mem}/summary.json _sum)
  string(JSON _nratios LENGTH "${_sum}" memory_ratios)
  string(JSON _r TYPE "${_sum}" memory_ratios 0 ratio)
  string(JSON _m GET "${_sum}" groups 0 results 0 memory)
  if(NOT _nratios EQUAL 4 OR NOT _r STREQUAL "NUMBER" OR NOT _m STREQUAL "mprotect")
    message(FATAL_ERROR "mp.bench_memory: summary.json should hold 4 uffd/mprotect ratios (has ${_nratios}, the first "
                        "${_r}) and the backend of each result (first: ${_m})")
  endif()
  execute_process(COMMAND ${PYTHON} ${SRC}/tools/rdsm_report.py ${_mem}/bench.json --brief
                  RESULT_VARIABLE _rc OUTPUT_VARIABLE _brief)
  if(NOT _rc EQUAL 0
     OR NOT _brief MATCHES "\nprotocol +memory +1 node \\(s\\) +2 nodes \\(s\\) +speedup at 2 +of hw at 2\n"
     OR NOT _brief MATCHES "\ngenima +uffd( +[0-9.]+)+\n" OR NOT _brief MATCHES "${_ratios_re}")
    message(FATAL_ERROR "mp.bench_memory: the --brief report of both backends (exit status ${_rc}) lacks the memory "
                        "column or the uffd/mprotect table:\n${_brief}")
  endif()

  # uffd made unavailable: its first run fails with the reason, its other runs are skipped, mprotect's go on.
  execute_process(COMMAND ${CMAKE_COMMAND} -E env RDSM_UFFD_UNAVAILABLE=test
                          ${PYTHON} ${SRC}/tools/rdsm_bench.py --build ${BUILD} --apps sor --protocols genima --no-hw
                          --nodes 1,2 --sizes test --memory uffd,mprotect --timeout 60 --short-runs 1 --no-threads
                          --out ${_mem}/nouffd.json
                  RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _err)
  if(NOT _rc EQUAL 1 OR NOT _out MATCHES "(^|\n)3 runs, 1 failed, 1 skipped;"
     OR NOT _out MATCHES "note: ${_unavailable_re} \\(userfaultfd is disabled by RDSM_UFFD_UNAVAILABLE=test\\)")
    message(FATAL_ERROR "mp.bench_memory: with uffd unavailable (exit status ${_rc}) the sweep should make one uffd "
                        "run, skip the other, say why and run mprotect:\n${_out}")
  endif()
  message(STATUS "mp.bench_memory: sweeps and reports in ${OUT}")
  return()
endif()

execute_process(COMMAND ${PYTHON} ${SRC}/tools/rdsm_bench.py --build ${BUILD} --apps sor
                        --protocols async,genima --nodes 1,2 --sizes test --repeat 1 --timeout 60
                        --short-runs 3 --short-seconds 1000 --out ${_json}
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

# Every configuration counts as short here (--short-seconds 1000): each protocol at each node count ran
# once in the repeat and twice more in the extra rounds, recorded as repeats 1 and 2, and a note says so.
execute_process(COMMAND ${PYTHON} -c [=[
import collections, json, sys
doc = json.load(open(sys.argv[1]))
reps = collections.defaultdict(list)
for r in doc["runs"]:
    reps[(r["protocol"], r["nodes"], r["threads"])].append(r["repeat"])
bad = {k: v for k, v in reps.items() if sorted(v) != [0, 1, 2]}
note = [n for n in doc["notes"] if "--short-runs" in n]
# async, genima and hw at 1 and 2 nodes, and plain threads: 1 node of 2 threads, under hw's launcher preset.
threads = [r["command"] for r in doc["runs"] if r["protocol"] == "threads"]
bad_threads = [c for c in threads if c[c.index("run"):c.index("run") + 7] !=
               ["run", "-n", "1", "--threads", "2", "--protocol", "hw"]]
if bad_threads or len(threads) != 3:
    sys.exit("plain threads run as %r, expected 3 runs of rdsm run -n 1 --threads 2 --protocol hw" % threads)
sys.exit("repeats per protocol and node count: %r" % bad if bad or len(reps) != 7
         else "no note of the extra runs: %r" % doc["notes"] if not note else 0)
]=] ${_json} RESULT_VARIABLE _rc OUTPUT_VARIABLE _why ERROR_VARIABLE _why)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "mp.bench_smoke: the short configurations did not get their extra runs (--short-runs 3): ${_why}")
endif()

# Repeats alternate the protocols' order, hw and plain threads included (last in the first repeat, first
# in the second), so
# that a speedup and hw's are not always measured in the same order on a machine whose speed drifts.
execute_process(COMMAND ${PYTHON} -c [=[
import sys, types
sys.path.insert(0, sys.argv[1])
from rdsm_bench import plan_runs
a = types.SimpleNamespace(memory=None, repeat=3, sizes=["paper"], nodes=[1, 2], threads=[1], predict=False)
plan = plan_runs(a, [({"name": "sor"}, "sor")], ["rdsm", "async"], True, True, [None])
# Plain threads are compared with 2 nodes: 1 node of 2 threads.
order = [[e[3] for e in plan if e[6] == r and e[4] * e[5] == 2] for r in range(3)]
want = [["rdsm", "async", "hw", "threads"], ["threads", "hw", "async", "rdsm"], ["rdsm", "async", "hw", "threads"]]
shapes = {(e[4], e[5]) for e in plan if e[3] == "threads"}
sys.exit(0 if order == want and len(plan) == 21 and shapes == {(1, 2)}
         else "order by repeat %r (%d runs; threads at %r), expected %r" % (order, len(plan), shapes, want))
]=] ${SRC}/tools RESULT_VARIABLE _rc OUTPUT_VARIABLE _why ERROR_VARIABLE _why)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "mp.bench_smoke: the repeats do not alternate the protocols' order: ${_why}")
endif()

# Shortness is each protocol's own in a configuration: a protocol that takes seconds there (sc's radix at 2
# nodes) takes no extra runs and leaves hw and the fast protocols theirs, which their ratios need.
execute_process(COMMAND ${PYTHON} -c [=[
import sys, types
sys.path.insert(0, sys.argv[1])
from rdsm_bench import short_rounds
app = {"name": "radix"}
def item(p, n):
    return (app, "radix", "paper", p, n, 1, 0, None, None, None)
times = {("hw", 1): 0.017, ("rdsm", 1): 0.016, ("sc", 1): 0.017, ("hw", 2): 0.011, ("rdsm", 2): 0.016, ("sc", 2): 5.2}
done = [(item(p, n), {"ok": True, "parallel_seconds": t}) for (p, n), t in times.items()]
extra = short_rounds(done, types.SimpleNamespace(short_runs=3, repeat=1, short_seconds=0.1))
got = sorted((e[3], e[4], e[6]) for e in extra)
want = sorted((p, n, r) for (p, n), t in times.items() if t < 0.1 for r in (1, 2))
sys.exit(0 if got == want else "extra runs %r, expected %r" % (got, want))
]=] ${SRC}/tools RESULT_VARIABLE _rc OUTPUT_VARIABLE _why ERROR_VARIABLE _why)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "mp.bench_smoke: a slow protocol took the short ones' extra runs away: ${_why}")
endif()

string(JSON _hw GET "${_doc}" config hw)
if(NOT _hw)
  message(FATAL_ERROR "mp.bench_smoke: the sweep made no hw runs (does `rdsm run --help` list hw?)")
endif()

execute_process(COMMAND ${PYTHON} ${SRC}/tools/rdsm_report.py ${_json} --out ${OUT}
                RESULT_VARIABLE _rc OUTPUT_VARIABLE _report)
message(STATUS "mp.bench_smoke: report\n${_report}")
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
# The table: per node count a time, a speedup, a fraction of hw and one of plain threads; hw itself at 1.00
# of hw, plain threads (a row in the column of 2 nodes) at 1.00 of threads.
if(NOT _report MATCHES "- 2 nodes -+\nprotocol +time \\(s\\) +speedup +of hw +time \\(s\\) +speedup +of hw +of threads\n")
  message(FATAL_ERROR "mp.bench_smoke: the report's table has no time / speedup / of hw columns per node count, "
                      "and of threads at 2 nodes")
endif()
if(NOT _report MATCHES "\ngenima +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+\nhw +[0-9.]+ +[0-9.]+ +1\\.00 +[0-9.]+ +[0-9.]+ +1\\.00 +[0-9.]+\nthreads +- +- +- +[0-9.]+ +[0-9.]+ +[0-9.]+ +1\\.00\n")
  message(FATAL_ERROR "mp.bench_smoke: the report's table lacks a fraction of hw or of threads for genima, or hw's "
                      "row, or plain threads' (at 1.00 of threads)")
endif()

# summary.json: fraction_of_hw is a number for every protocol at every node count, 1 for hw.
if(NOT EXISTS ${OUT}/summary.json)
  message(FATAL_ERROR "mp.bench_smoke: tools/rdsm_report.py did not write ${OUT}/summary.json")
endif()
file(READ ${OUT}/summary.json _sum)
string(JSON _nres LENGTH "${_sum}" groups 0 results)
if(NOT _nres EQUAL 7)
  message(FATAL_ERROR "mp.bench_smoke: summary.json has ${_nres} results for sor; expected 7 (async, genima, hw at 1 "
                      "and 2 nodes, plain threads at 2)")
endif()
math(EXPR _last "${_nres} - 1")
foreach(_i RANGE ${_last})
  string(JSON _p GET "${_sum}" groups 0 results ${_i} protocol)
  string(JSON _n GET "${_sum}" groups 0 results ${_i} nodes)
  string(JSON _type TYPE "${_sum}" groups 0 results ${_i} fraction_of_hw)
  if(NOT _type STREQUAL "NUMBER")
    message(FATAL_ERROR "mp.bench_smoke: summary.json: fraction_of_hw of ${_p} is ${_type}, not a number")
  endif()
  string(JSON _f GET "${_sum}" groups 0 results ${_i} fraction_of_hw)
  if(_p STREQUAL "hw" AND NOT _f MATCHES "^1(\\.0*)?$")
    message(FATAL_ERROR "mp.bench_smoke: summary.json: hw's fraction of itself is ${_f}")
  endif()
  # Of plain threads at 2 nodes (none at 1: one thread is the 1-node run).
  string(JSON _type TYPE "${_sum}" groups 0 results ${_i} fraction_of_threads)
  if((_n EQUAL 2 AND NOT _type STREQUAL "NUMBER") OR (_n EQUAL 1 AND NOT _type STREQUAL "NULL"))
    message(FATAL_ERROR "mp.bench_smoke: summary.json: fraction_of_threads of ${_p} at ${_n} nodes is ${_type}")
  endif()
  if(_p STREQUAL "threads")
    string(JSON _f GET "${_sum}" groups 0 results ${_i} fraction_of_threads)
    if(NOT _n EQUAL 2 OR NOT _f MATCHES "^1(\\.0*)?$")
      message(FATAL_ERROR "mp.bench_smoke: summary.json: plain threads at ${_n} nodes, ${_f} of themselves")
    endif()
  endif()
endforeach()

# --brief: time per node count, speedup and fraction of hw at the largest.
execute_process(COMMAND ${PYTHON} ${SRC}/tools/rdsm_report.py ${_json} --brief
                RESULT_VARIABLE _rc OUTPUT_VARIABLE _brief)
message(STATUS "mp.bench_smoke: brief report\n${_brief}")
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "mp.bench_smoke: tools/rdsm_report.py --brief failed (exit status ${_rc})")
endif()
if(NOT _brief MATCHES "\nprotocol +1 node \\(s\\) +2 nodes \\(s\\) +speedup at 2 +of hw at 2 +of threads at 2\n"
   OR NOT _brief MATCHES "\nasync +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+\n"
   OR NOT _brief MATCHES "\nhw +[0-9.]+ +[0-9.]+ +[0-9.]+ +1\\.00 +[0-9.]+\n"
   OR NOT _brief MATCHES "\nthreads +- +[0-9.]+ +[0-9.]+ +[0-9.]+ +1\\.00\n")
  message(FATAL_ERROR "mp.bench_smoke: the --brief table lacks its columns or a protocol's numbers")
endif()

# Without the hw runs the fraction is "-", and nothing breaks.
set(_nohw "${_doc}")
math(EXPR _i "${_nruns} - 1")
while(_i GREATER_EQUAL 0)
  string(JSON _p GET "${_nohw}" runs ${_i} protocol)
  if(_p STREQUAL "hw")
    string(JSON _nohw REMOVE "${_nohw}" runs ${_i})
  endif()
  math(EXPR _i "${_i} - 1")
endwhile()
file(MAKE_DIRECTORY ${OUT}/nohw)
file(WRITE ${OUT}/nohw/bench.json "${_nohw}")
execute_process(COMMAND ${PYTHON} ${SRC}/tools/rdsm_report.py ${OUT}/nohw/bench.json --brief
                RESULT_VARIABLE _rc OUTPUT_VARIABLE _brief)
if(NOT _rc EQUAL 0 OR NOT _brief MATCHES "\nasync +[0-9.]+ +[0-9.]+ +[0-9.]+ +- +[0-9.]+\n" OR _brief MATCHES "\nhw ")
  message(FATAL_ERROR "mp.bench_smoke: --brief without hw runs (exit status ${_rc}) should show - as the "
                      "fraction of hw:\n${_brief}")
endif()
execute_process(COMMAND ${PYTHON} ${SRC}/tools/rdsm_report.py ${OUT}/nohw/bench.json
                RESULT_VARIABLE _rc OUTPUT_VARIABLE _report)
if(NOT _rc EQUAL 0 OR NOT _report MATCHES "\nasync +[0-9.]+ +[0-9.]+ +- +[0-9.]+ +[0-9.]+ +- +[0-9.]+\n")
  message(FATAL_ERROR "mp.bench_smoke: the report without hw runs (exit status ${_rc}) should show - as the "
                      "fraction of hw:\n${_report}")
endif()
file(READ ${OUT}/nohw/summary.json _sum)
string(JSON _type TYPE "${_sum}" groups 0 results 0 fraction_of_hw)
if(NOT _type STREQUAL "NULL")
  message(FATAL_ERROR "mp.bench_smoke: without hw runs summary.json's fraction_of_hw is ${_type}, not null")
endif()

# Fork-join: a build directory holding just the launcher and the program as an app.
set(_fj ${OUT}/fork_join)
file(MAKE_DIRECTORY ${_fj}/build/apps)
file(CREATE_LINK ${BUILD}/rdsm ${_fj}/build/rdsm SYMBOLIC)
file(CREATE_LINK ${FORK_JOIN_PROG} ${_fj}/build/apps/every_macro SYMBOLIC)
file(WRITE ${_fj}/apps.json [=[
{"apps": [{"name": "every_macro", "program": "every_macro", "fork_join": true,
           "sizes": {"test": ["-p{nodes}", "-n", "20"]}}]}
]=])
execute_process(COMMAND ${PYTHON} ${SRC}/tools/rdsm_bench.py --build ${_fj}/build --apps-file ${_fj}/apps.json
                        --protocols genima --no-hw --nodes 1,2 --sizes test --timeout 60 --short-runs 1 --out ${_fj}/bench.json
                RESULT_VARIABLE _rc)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "mp.bench_smoke: tools/rdsm_bench.py failed on the fork-join app (exit status ${_rc})")
endif()
file(READ ${_fj}/bench.json _fjdoc)
string(JSON _n GET "${_fjdoc}" runs 1 nodes)
string(JSON _len LENGTH "${_fjdoc}" runs 1 command)
math(EXPR _last "${_len} - 1")
set(_cmd "")
foreach(_i RANGE ${_last})
  string(JSON _arg GET "${_fjdoc}" runs 1 command ${_i})
  string(APPEND _cmd " ${_arg}")
endforeach()
string(JSON _rows LENGTH "${_fjdoc}" runs 1 stats per_node)
set(_forked "")
if(_rows GREATER_EQUAL 2)
  string(JSON _forked GET "${_fjdoc}" runs 1 stats per_node 1 forked)
endif()
if(NOT _n EQUAL 2 OR NOT _cmd MATCHES " run -n 1 .* -p2 -n 20$"
   OR NOT _rows EQUAL 2 OR NOT _forked)
  message(FATAL_ERROR "mp.bench_smoke: the fork-join run for 2 nodes should be recorded as nodes 2 (is ${_n}), "
                      "started as rdsm run -n 1 ... -p2 (was ${_cmd}) and list the master and one forked "
                      "worker (${_rows} rows, second forked: ${_forked})")
endif()
# Its plain threads: one process of 2 threads, told its 2 workers.
execute_process(COMMAND ${PYTHON} -c [=[
import json, sys
runs = [r for r in json.load(open(sys.argv[1]))["runs"] if r["protocol"] == "threads"]
c = runs[0]["command"] if len(runs) == 1 else []
sys.exit(0 if c and c[c.index("run"):c.index("run") + 5] == ["run", "-n", "1", "--threads", "2"] and
         c[-3:] == ["-p2", "-n", "20"] else "plain threads run as %r" % [r["command"] for r in runs])
]=] ${_fj}/bench.json RESULT_VARIABLE _rc OUTPUT_VARIABLE _why ERROR_VARIABLE _why)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "mp.bench_smoke: the fork-join app's plain threads should run as rdsm run -n 1 --threads 2 "
                      "... -p2: ${_why}")
endif()
execute_process(COMMAND ${PYTHON} ${SRC}/tools/rdsm_report.py ${_fj}/bench.json --out ${_fj}
                RESULT_VARIABLE _rc OUTPUT_VARIABLE _report)
if(NOT _rc EQUAL 0 OR NOT _report MATCHES "breakdown at 2 nodes[^\n]*\n[^\n]*\n[^\n]*\ngenima +[0-9]+\\.[0-9]+ ")
  message(FATAL_ERROR "mp.bench_smoke: the report of the fork-join sweep (exit status ${_rc}) has no "
                      "breakdown at 2 nodes:\n${_report}")
endif()
# The breakdown is the mean over every row, the forked worker's included.
execute_process(COMMAND ${PYTHON} -c [=[
import json, sys
runs = [r for r in json.load(open(sys.argv[1]))["runs"] if r["nodes"] == 2]
want = sum(n["compute"] for n in runs[0]["stats"]["per_node"]) / len(runs[0]["stats"]["per_node"])
got = [x for x in json.load(open(sys.argv[2]))["groups"][0]["results"] if x["nodes"] == 2][0]
got = got["breakdown_seconds"]["compute"]
sys.exit(0 if abs(got - want) <= 1e-9 * max(1.0, want) else "compute %r, want %r (mean over rows)" % (got, want))
]=] ${_fj}/bench.json ${_fj}/summary.json RESULT_VARIABLE _rc)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "mp.bench_smoke: the fork-join breakdown is not the mean over the master and its workers")
endif()

message(STATUS "mp.bench_smoke: ${_nruns} runs in ${_json}; speedup.png, breakdown.png, handler.png, summary.json in ${OUT}; "
               "fork-join sweep in ${_fj}")
