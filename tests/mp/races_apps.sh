#!/bin/bash
# races_apps.sh RDSM PROTOCOL APPS_DIR BARNES_SOURCE
#
# Every application of apps/ at its test size, 2 nodes, under PROTOCOL with
# --races: each passes its own check and the report finds no data race,
# also for the SPLASH programs (fork-join: one process, two workers).
#
# Except Barnes, whose tree build is not data-race free by design: a node
# walks down the tree without locks and writes into a cell another node
# created (an empty slot it fills, or a body it replaces by a subtree) under
# that cell's lock only, having checked the cell's generation stamp instead
# of taking the lock its creator linked it under (apps/barnes.c explains why
# that is safe on rdsm).  Nothing orders the creator's writes of the cell's
# slots before the other node's, so those are races, and the report may
# name them: every race it names must lie in the slot words (the first 64
# bytes of a 256-byte cell) of the cell pool.
. "$(dirname "$0")/lib.sh"

[ $# -eq 4 ] || fail "usage: races_apps.sh RDSM PROTOCOL APPS_DIR BARNES_SOURCE"
RDSM=$1
PROTOCOL=$2
APPS=$3
BARNES_SOURCE=$4
export TMPDIR=$MP_TMP/tmpdir
mkdir -p "$TMPDIR"

shm_snapshot
while read -r app args; do
  [ -n "$app" ] || continue
  nodes=2
  case $app in splash_*) nodes=1 ;; esac  # the master forks the workers (-p2)
  # shellcheck disable=SC2086
  run_cmd 120 "$RDSM" run -n "$nodes" --races --quiet --protocol "$PROTOCOL" "$APPS/$app" $args
  expect_status 0
  grep -q "^PASS" "$MP_TMP/out" || fail "$app $args: no PASS"
  [ -z "$(ls -A "$TMPDIR")" ] || fail "$app: race logs left behind"
  ! grep -q 'race report: incomplete' "$MP_TMP/err" || fail "$app: the race report is incomplete"
  if [ "$app" = barnes ]; then
    pool_line=$(grep -n 'cell \*cells = ' "$BARNES_SOURCE" | cut -d: -f1)
    [ -n "$pool_line" ] || fail "cannot find barnes' cell pool in $BARNES_SOURCE"
    bad=$(sed -n 's/^rdsm: race [0-9]*: //p' "$MP_TMP/err" | awk -v where="barnes.c:$pool_line" '
      { bytes = $1; offset = $0; sub(/.*; offset /, "", offset); sub(/ .*/, "", offset)
        if ($NF != where || offset % 256 + bytes > 64) print }')
    [ -z "$bad" ] || fail "barnes: races outside the slot words of the cell pool: $bad"
    echo "barnes: $(grep -c '^rdsm: race [0-9]*:' "$MP_TMP/err") races, all in cell slots (by design)"
    continue
  fi
  expect_stderr '^rdsm: race report: no data race'
  echo "$app $args: no data race"
done <<'EOF'
sor -m 256 -n 256 -i 10
lu --size test
radix --size test
fft --size test
fft3d --size test
is --size test
tsp --size test
water --size test
nbody --size test --variant nbody
nbody --size test --variant nbodyw
ocean --size test
barnes --size test
stress --seeds 1:2 --rounds 10
splash_fft -p2 -m 12
splash_radix -p2 -n 65536
splash_lu -p2 -n 128
splash_ocean -p2 -n 66 -i 2
EOF
check_no_leftovers
check_shm
echo "PASS: no data race in the applications under $PROTOCOL (Barnes' build: by design)"
