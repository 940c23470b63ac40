#!/bin/sh
# launch_agent.sh [ssh options] HOST COMMAND...
#
# mpirun's launch agent for the multi-host tests, in place of ssh: HOST is
# the address of one emulated host (10.X.Y.I, made by netns_hosts.sh), and
# COMMAND (Open MPI's daemon) runs in that host's network namespace, under a
# host name of its own (a UTS namespace), so that MPI and rdsm see separate
# hosts that reach each other over TCP only.
while [ $# -gt 0 ]; do
  case $1 in
    -*) shift ;;   # ssh's options, as Open MPI passes them
    *) break ;;
  esac
done
[ $# -ge 2 ] || { echo "launch_agent.sh: usage: launch_agent.sh HOST COMMAND..." >&2; exit 2; }
host=$1
shift
# The namespace of each address is in a file netns_hosts.sh writes.
dir=${RDSM_NETNS_DIR:?launch_agent.sh: RDSM_NETNS_DIR is not set; run through netns_hosts.sh}
ns=$(cat "$dir/$host" 2>/dev/null) || { echo "launch_agent.sh: no emulated host $host in $dir" >&2; exit 255; }
# A host has processors of its own: host I (the address's last number)
# runs on processor I-1 of those this agent may use, wrapping around when
# hosts outnumber them.  Left to the scheduler, two hosts' threads often
# all queued on one processor of a 2-core machine while the other idled,
# and a page fault across the link took 300-600 us instead of 40-50 (one
# run in two).  RDSM_NETNS_PIN=0 leaves the placement to the scheduler.
pin=
index=${host##*.}
if [ "${RDSM_NETNS_PIN:-1}" != 0 ] && command -v taskset >/dev/null && [ -n "${index##*[!0-9]*}" ]; then
  # The processors this agent may use ("0-3,6"), spelt out one by one.
  cpus=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status | tr ',' '\n' |
         awk -F- '{ for (c = $1; c <= ($2 == "" ? $1 : $2); ++c) print c }')
  cpu=$(echo $cpus | awk -v i="$index" 'NF { print $(((i - 1) % NF) + 1) }')
  [ -n "$cpu" ] && pin="taskset -c $cpu"
fi
# ssh hands the command to a shell as one string; so does this.
exec $pin ip netns exec "$ns" unshare --uts sh -c 'hostname "$0" && exec sh -c "$1"' "$ns" "$*"
