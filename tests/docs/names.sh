#!/usr/bin/env bash
# names.sh RDSM SOURCE_DIR
#
# What the user guide (docs/*.md) names exists: every --option it shows is
# one that `rdsm --help`, `rdsm run --help`, `rdsm bench --help`,
# `rdsm report --help` or `rdsm sim --help` lists (or one of the few of cmake, ctest and
# pkg-config the guide uses), every RDSM_* name is in the sources (or the multi-host test harness), and
# every link to another page leads to a file.
# docs/bad_inputs.md is generated from the tests and checked by its own.
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: names.sh RDSM SOURCE_DIR" >&2; exit 2; }
rdsm=$1
src=$(cd "$2" && pwd)
fail() { echo "FAIL docs.names: $*" >&2; exit 1; }

pages=()
for f in "$src"/docs/*.md; do
  [ "$(basename "$f")" = bad_inputs.md ] || pages+=("$f")
done
[ ${#pages[@]} -gt 1 ] || fail "no guide pages in $src/docs"

helps=$({ "$rdsm" --help; "$rdsm" run --help; "$rdsm" bench --help; "$rdsm" report --help; "$rdsm" sim --help; } 2>&1)
# Options of other tools that the guide's commands use.
others=" --build --install --prefix --test-dir --cflags --libs "
bad=0
for opt in $(grep -ohE -- '--[a-z][a-z0-9-]*' "${pages[@]}" | sort -u); do
  grep -qE -- "(^|[^a-z-])$opt([^a-z-]|\$)" <<<"$helps" && continue
  [[ $others == *" $opt "* ]] && continue
  echo "docs name $opt, which no help of rdsm lists: $(grep -lE -- "$opt\b" "${pages[@]}" | xargs -n1 basename | tr '\n' ' ')" >&2
  bad=1
done
for name in $(grep -ohE 'RDSM_[A-Z_]+[A-Z]' "${pages[@]}" | sort -u); do
  grep -rqw --include='*.c' --include='*.cpp' --include='*.h' --include='*.hpp' --include='*.in' \
    --include='*.txt' --include='*.cmake' --include='*.m4.rdsm' --include='*.sh' -- "$name" "$src/src" "$src/include" \
    "$src/cmake" "$src/splash" "$src/CMakeLists.txt" "$src/tests/multihost" && continue
  echo "docs name $name, which is not in the sources" >&2
  bad=1
done
# Links between the pages (and to the README) lead somewhere.
for page in "${pages[@]}"; do
  for target in $(grep -oE '\]\([^)#:]+' "$page" | sed 's/^](//'); do
    [ -e "$(dirname "$page")/$target" ] && continue
    echo "$(basename "$page") links to $target, which is not there" >&2
    bad=1
  done
done
[ $bad -eq 0 ] || fail "the guide names options, settings or pages that do not exist (above)"
echo "PASS docs.names: $(grep -ohE -- '--[a-z][a-z0-9-]*' "${pages[@]}" | sort -u | wc -l) options, $(grep -ohE 'RDSM_[A-Z_]+[A-Z]' "${pages[@]}" | sort -u | wc -l) names in ${#pages[@]} pages"
