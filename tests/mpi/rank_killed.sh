#!/bin/bash
# rank_killed.sh RDSM FAIL_NODE
#
# A job of 4 ranks started by `rdsm run --fabric mpi`, in which rank 2
# hangs after the first barrier and is killed with SIGKILL while the others
# wait.  The job must end with a non-zero status within 5 s, rdsm naming
# rank 2 and its pid, mpirun the signal, and leave no process of the job
# and nothing in /dev/shm or $TMPDIR behind.
. "$(dirname "$0")/../mp/lib.sh"

[ $# -eq 2 ] || fail "usage: rank_killed.sh RDSM FAIL_NODE"
RDSM=$1
PROG=$2

shm_snapshot
private_tmpdir
start_bg "$RDSM" run --fabric mpi -n 4 "$PROG" hang 2 "$MP_TMP" "$MP_MARKER"
# Rank 2 writes failtime after the first barrier, right before it hangs.
wait_for_file "$MP_TMP/failtime" 60
wait_for_file "$MP_TMP/pid.2" 10
victim=$(cat "$MP_TMP/pid.2")
alive "$victim" || fail "rank 2 (pid $victim) is not running"
# The socket the ranks tell rdsm who they are on (fabric/rank_link.hpp).
link=$(tr '\0' '\n' < "/proc/$victim/environ" | sed -n 's/^RDSM_RANK_SOCKET=//p')
[ -S "$link" ] || fail "rank 2 has no RDSM_RANK_SOCKET naming a socket ('$link')"
t0=$(now_us)
kill -KILL "$victim"
wait_bg 20
expect_status nonzero
# rdsm names the rank whose process ended first, under either MPI: Open
# MPI's mpirun names it too, MPICH's mpiexec (hydra) names whichever
# process of the job it saw end first, often another.
grep -Eq -- "rdsm: error: rank 2 \(pid $victim\) ended first" "$MP_TMP/err" ||
  fail "rdsm's stderr does not name rank 2 (pid $victim) as the rank that ended first"
grep -Eq -- 'rank 2 .*(signal 9|Killed)' "$MP_TMP/err" ||
  grep -q -- "TERMINATED WITH THE EXIT STRING: Killed (signal 9)" "$MP_TMP/out" ||
  fail "neither mpirun's stderr names rank 2 nor hydra's stdout a process killed by signal 9"

ms=$(elapsed_ms "$t0" "$END_US")
[ "$ms" -le 5000 ] || fail "the job ended ${ms} ms after rank 2 was killed (limit 5000 ms)"
check_no_leftovers
[ ! -e "$(dirname "$link")" ] || fail "rdsm left $(dirname "$link") behind"
check_shm
check_tmpdir
echo "PASS: rank 2 killed: exit status $STATUS, ended ${ms} ms after the kill"
