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
# ssh hands the command to a shell as one string; so does this.
exec ip netns exec "$ns" unshare --uts sh -c 'hostname "$0" && exec sh -c "$1"' "$ns" "$*"
