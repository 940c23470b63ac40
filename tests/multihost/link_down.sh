#!/bin/bash
# link_down.sh RDSM FAIL_NODE DEV HOSTS  (run through netns_hosts.sh 2)
#
# A job of 2 ranks, one on each emulated host, started by `rdsm run
# --fabric mpi` with the default hang timeout: rank 1 sleeps outside rdsm after the first
# barrier while rank 0 waits for it in a second one (fail_node's "hang"
# mode).  The test then brings host 2's link down (DEV, the root side of
# its veth pair).  The job must end with a non-zero status within 5 s,
# naming rank 1 and its host, and leave no process of the job and nothing
# in /dev/shm behind: not the ranks on host 1, which mpirun ends, nor
# rank 1 on host 2, which mpirun can no longer reach and which must end
# itself.  Nor anything in $TMPDIR: mpirun, killed by the launcher, leaves
# its session files there unless the launcher removes them.  (The hosts
# share this machine's /tmp; host 2's Open MPI daemon, cut off with a
# message to mpirun unsent, lives on until TCP gives up, and the test's
# hosts end with it.)
. "$(dirname "$0")/../mp/lib.sh"

[ $# -eq 4 ] || fail "usage: link_down.sh RDSM FAIL_NODE DEV HOSTS (through netns_hosts.sh)"
RDSM=$1
PROG=$2
DEV=$3
HOSTS=$4

shm_snapshot
private_tmpdir
start_bg "$RDSM" run --fabric mpi -n 2 --hosts "$HOSTS" --timeout 60 \
  "$PROG" hang 1 "$MP_TMP" "$MP_MARKER"
wait_for_file "$MP_TMP/failtime" 60
wait_for_file "$MP_TMP/pid.0" 10
wait_for_file "$MP_TMP/pid.1" 10
# Both ranks are in the job: rank 1 in its sleep, rank 0 in the barrier.
sleep 0.5
kill -0 "$MP_BG_PID" 2>/dev/null || fail "the job ended before the link went down"
t0=$(now_us)
ip link set "$DEV" down || fail "cannot bring $DEV down"
wait_bg 20
expect_status nonzero
[ "$STATUS" -ne 124 ] || fail "the job ran into its --timeout instead of finding the lost rank"
expect_stderr "node 1 \\(pid $(cat "$MP_TMP/pid.1") on host rdsmmh[0-9]+-2\\) made no progress for 3 s"
ms=$(elapsed_ms "$t0" "$END_US")
[ "$ms" -le 5000 ] || fail "the job ended ${ms} ms after the link went down (limit 5000 ms)"
# Rank 1 finds rank 0 lost at about the time rank 0 finds it, and ends.
for _ in $(seq 30); do
  alive "$(cat "$MP_TMP/pid.1")" || break
  sleep 0.1
done
check_no_leftovers
check_shm
check_tmpdir
echo "PASS: link down: exit status $STATUS, ended ${ms} ms after the link went down"
