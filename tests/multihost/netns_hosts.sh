#!/bin/bash
# netns_hosts.sh K COMMAND [ARGS...]
#
# Runs COMMAND with K emulated hosts on this machine: K network namespaces,
# each with one veth interface on a bridge of the root namespace (its own
# /24 of 10.213.0.0/16), reachable over TCP only.  In COMMAND's arguments
# @HOSTS@ becomes the hosts' addresses, comma-separated (for --hosts) and
# @BRIDGE_DEV@ the root side of host 2's link (to bring it down).  Open
# MPI, MPICH's hydra and UCX are pointed at these interfaces and at
# launch_agent.sh, which starts each host's daemon in its namespace, on a
# processor of its own where there are enough (RDSM_NETNS_PIN=0: anywhere).
# Everything is removed when COMMAND ends, however it ends.  Needs root and
# the `ip` tool; exits 77 (a skipped test) with the reason when either is
# missing.
set -u
[ $# -ge 2 ] || { echo "usage: netns_hosts.sh K COMMAND [ARGS...]" >&2; exit 2; }
k=$1
shift
here=$(cd "$(dirname "$0")" && pwd)
if [ "$(id -u)" -ne 0 ]; then
  echo "SKIP: emulated hosts need network namespaces, which need root" >&2
  exit 77
fi
command -v ip >/dev/null || { echo "SKIP: the ip tool (iproute2) is not installed" >&2; exit 77; }

# A free subnet: creating the bridge is what claims it (tests run in parallel).
net=
for y in $(seq 1 250); do
  if ip link add "rdsmmh$y" type bridge 2>/dev/null; then
    net=$y
    break
  fi
done
[ -n "$net" ] || { echo "netns_hosts.sh: no free bridge name rdsmmh1..250 (left over? see ip link)" >&2; exit 1; }
bridge=rdsmmh$net
dir=$(mktemp -d /tmp/rdsm-netns.XXXXXX)
namespaces=()

# The links go first, each deleted while its name is still ours (the bridge
# is what reserves the names): a namespace's links are otherwise removed in
# the background, and could still be there when the next test takes the
# same bridge name.
cleanup() {
  local i=0
  for ns in "${namespaces[@]}"; do
    i=$((i + 1))
    pids=$(ip netns pids "$ns" 2>/dev/null)
    [ -n "$pids" ] && kill -KILL $pids 2>/dev/null
    ip link del "rdsmmh$net-v$i" 2>/dev/null
    ip netns del "$ns" 2>/dev/null
  done
  ip link del "$bridge" 2>/dev/null
  rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

fail_setup() {
  echo "netns_hosts.sh: cannot make emulated host $1: $2" >&2
  exit 1
}
ip addr add "10.213.$net.254/24" dev "$bridge" || fail_setup bridge "no address on $bridge"
ip link set "$bridge" up || fail_setup bridge "$bridge does not come up"
hosts=
for i in $(seq 1 "$k"); do
  ns=rdsmmh$net-$i
  addr=10.213.$net.$i
  ip netns add "$ns" || fail_setup "$i" "ip netns add $ns failed"
  namespaces+=("$ns")
  ip link add "rdsmmh$net-v$i" type veth peer name eth0 netns "$ns" || fail_setup "$i" "no veth pair"
  ip link set "rdsmmh$net-v$i" master "$bridge" && ip link set "rdsmmh$net-v$i" up || fail_setup "$i" "link down"
  ip -n "$ns" addr add "$addr/24" dev eth0 && ip -n "$ns" link set eth0 up && ip -n "$ns" link set lo up ||
    fail_setup "$i" "eth0 does not come up in $ns"
  echo "$ns" >"$dir/$addr"
  hosts=${hosts:+$hosts,}$addr
done

export RDSM_NETNS_DIR=$dir
# MPICH's hydra: the same agent, and its proxies call back over the bridge.
export HYDRA_LAUNCHER=ssh
export HYDRA_LAUNCHER_EXEC=$here/launch_agent.sh
export HYDRA_IFACE=$bridge
export OMPI_MCA_plm_rsh_agent=$here/launch_agent.sh
export OMPI_MCA_oob_tcp_if_include=10.213.$net.0/24
export OMPI_MCA_btl_tcp_if_include=10.213.$net.0/24
export OMPI_MCA_btl=self,tcp
# UCX (Open MPI's one-sided transport) between hosts: TCP on the host's link.
export UCX_TLS=tcp,self
export UCX_NET_DEVICES=eth0
args=()
for a in "$@"; do
  a=${a//@HOSTS@/$hosts}
  a=${a//@BRIDGE_DEV@/rdsmmh$net-v2}
  args+=("$a")
done
"${args[@]}"
