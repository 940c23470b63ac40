#!/bin/bash
# misuse.sh RDSM MISUSE CASE CALL
#
# The program misuse calls the API wrongly (CASE); the runtime must end it
# with a non-zero status and a message naming CALL, both when it runs alone
# and as a job of two nodes under the launcher.
. "$(dirname "$0")/lib.sh"

[ $# -eq 4 ] || fail "usage: misuse.sh RDSM MISUSE CASE CALL"
RDSM=$1
PROG=$2
CASE=$3
CALL=$4

# names_call WHERE: a line of the program's (not the launcher's) names CALL.
names_call() {
  grep -F -- "$CALL" "$MP_TMP/err" |
    grep -Evq '^rdsm: (error: node [0-9]+ \(pid [0-9]+\)|protocol |no statistics)' ||
    fail "$CASE $1: no message names $CALL"
  grep -Fq -- "returned instead of ending" "$MP_TMP/err" && fail "$CASE $1: the call returned"
  return 0
}

# misuse malloc_huge asks for 64 MiB of a 16 MiB region.
shm_snapshot

# Alone: a job of one node.
run_cmd 30 env -u RDSM_NODES -u RDSM_RANK -u RDSM_NODE_FDS RDSM_REGION_SIZE=16M "$PROG" "$CASE" "$MP_MARKER"
expect_status nonzero
names_call alone

# Under the launcher.
run_cmd 30 "$RDSM" run -n 2 --quiet --region-size 16M "$PROG" "$CASE" "$MP_MARKER"
expect_status nonzero
names_call "under rdsm run"
expect_stderr '^rdsm: error: node [01] \(pid [0-9]+\) '

check_no_leftovers
check_shm
echo "PASS: $CASE ends the program with a message naming $CALL"
