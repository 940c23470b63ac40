#!/bin/bash
# races_apps.sh RDSM PROTOCOL APPS_DIR
#
# Every application of apps/ at its test size under PROTOCOL with --races,
# on the node count of the table's first column: each passes its own check
# and the report finds no data race, also for the SPLASH programs (1 node:
# one process that forks its second worker, -p2).
#
# Barnes included: its tree build writes cells other nodes made, and orders
# those writes after the maker's by taking the maker's link lock once per
# cell and step (apps/barnes.c), so it is data-race free; it runs at 2 and
# at 4 nodes, since with more nodes more cells are made elsewhere.
. "$(dirname "$0")/lib.sh"

[ $# -eq 3 ] || fail "usage: races_apps.sh RDSM PROTOCOL APPS_DIR"
RDSM=$1
PROTOCOL=$2
APPS=$3
export TMPDIR=$MP_TMP/tmpdir
mkdir -p "$TMPDIR"

shm_snapshot
while read -r nodes app args; do
  [ -n "$app" ] || continue
  # shellcheck disable=SC2086
  run_cmd 120 "$RDSM" run -n "$nodes" --races --quiet --protocol "$PROTOCOL" "$APPS/$app" $args
  expect_status 0
  grep -q "^PASS" "$MP_TMP/out" || fail "$app $args: no PASS"
  [ -z "$(ls -A "$TMPDIR")" ] || fail "$app: race logs left behind"
  ! grep -q 'race report: incomplete' "$MP_TMP/err" || fail "$app: the race report is incomplete"
  expect_stderr '^rdsm: race report: no data race'
  echo "$app $args ($nodes nodes): no data race"
done <<'EOF'
2 sor -m 256 -n 256 -i 10
2 lu --size test
2 radix --size test
2 fft --size test
2 fft3d --size test
2 is --size test
2 tsp --size test
2 water --size test
2 nbody --size test --variant nbody
2 nbody --size test --variant nbodyw
2 ocean --size test
2 barnes --size test
4 barnes --size test --seed 7
2 stress --seeds 1:2 --rounds 10
1 splash_fft -p2 -m 12
1 splash_radix -p2 -n 65536
1 splash_lu -p2 -n 128
1 splash_ocean -p2 -n 66 -i 2
EOF
check_no_leftovers
check_shm
echo "PASS: no data race in the applications under $PROTOCOL"
