#!/bin/bash
# no_leftovers.sh: no namespace, bridge or veth of netns_hosts.sh is left.
# The kernel removes a deleted namespace's links in the background: allow
# it a few seconds.
for _ in $(seq 50); do
  left=$( (ip netns list; ip -o link show) 2>/dev/null | grep rdsmmh)
  [ -z "$left" ] && { echo "PASS: no emulated host left"; exit 0; }
  sleep 0.1
done
echo "FAIL: left behind by the multihost tests:" >&2
echo "$left" >&2
exit 1
