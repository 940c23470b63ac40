#!/usr/bin/env bash
# first_program.sh BUILD_DIR SOURCE_DIR
#
# The guide's first programs (docs/first_program.md) build and run the way
# the page says.  The build is installed into a temporary prefix whose bin/
# goes first on PATH; then, for each `<!-- checked: NAME -->` on the page,
# the next code block is written to NAME, the commands of the ```sh block
# after it are run in a scratch directory, and what its `rdsm run` commands
# print on standard output must be the ```text block after that.  The
# commands after `<!-- checked: build tree -->` (the page's way without
# installing) run the same way, with the page's `include` and `build/`
# standing for this source tree and build, and must print what the first
# program printed.
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: first_program.sh BUILD_DIR SOURCE_DIR" >&2; exit 2; }
build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
page=$src/docs/first_program.md
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL docs.first_program: $*" >&2; exit 1; }

# block MARKER PART: PART of what follows `<!-- checked: MARKER -->`:
# "source" (the first code block), "sh" (the first ```sh block after it) or
# "text" (the first ```text block after that).  A marker followed directly
# by a ```sh block has no source.
block() {
  awk -v marker="<!-- checked: $1 -->" -v want="$2" '
    $0 == marker { stage = 1; next }
    !stage { next }
    /^```/ && !inside {
      inside = 1
      fence = substr($0, 4)
      if (stage == 1 && fence == "sh") stage = 2  # no source block
      part = stage == 1 ? "source" : (stage == 2 && fence == "sh") ? "sh" : (stage == 3 && fence == "text") ? "text" : ""
      next
    }
    /^```/ && inside {
      inside = 0
      if (part == "source") stage = 2
      else if (part == "sh") stage = 3
      else if (part == "text") exit
      next
    }
    inside && part == want { print }
  ' "$page"
}

# run_commands DIR COMMANDS...: runs each in DIR; the stdout of `rdsm run`
# lines goes to DIR/stdout, everything else to DIR/log.
run_commands() {
  local dir=$1 line
  shift
  : >"$dir/stdout"
  for line in "$@"; do
    [ -n "$line" ] || continue
    if [[ $line == *"rdsm run "* ]]; then
      (cd "$dir" && bash -c "$line" >>"$dir/stdout" 2>>"$dir/log") || fail "\`$line\` failed: $(tail -5 "$dir/log")"
    else
      (cd "$dir" && bash -c "$line" >>"$dir/log" 2>&1) || fail "\`$line\` failed: $(tail -20 "$dir/log")"
    fi
  done
}

cmake --install "$build" --prefix "$work/prefix" >/dev/null
export PATH=$work/prefix/bin:$PATH

names=$(sed -n 's/^<!-- checked: \(.*\) -->$/\1/p' "$page" | grep -vx 'build tree' || true)
[ -n "$names" ] || fail "no program on $page is marked <!-- checked: NAME -->"
first_output=
for name in $names; do
  dir=$work/$name.d
  mkdir "$dir"
  block "$name" source >"$dir/$name"
  [ -s "$dir/$name" ] || fail "$name: no code block after its marker"
  mapfile -t commands < <(block "$name" sh)
  [ ${#commands[@]} -gt 0 ] || fail "$name: no \`\`\`sh block of commands after it"
  block "$name" text >"$dir/want"
  [ -s "$dir/want" ] || fail "$name: no \`\`\`text block of output after its commands"
  run_commands "$dir" "${commands[@]}"
  diff -u "$dir/want" "$dir/stdout" >&2 || fail "$name: the output differs from the page's (above: - page, + run)"
  [ -n "$first_output" ] || first_output=$dir/want
  echo "ok $name: $(head -1 "$dir/stdout")"
done

# Without installing: the page's commands against this tree.
mapfile -t commands < <(block "build tree" sh)
[ ${#commands[@]} -gt 0 ] || fail "no \`\`\`sh block after <!-- checked: build tree -->"
dir=$work/build_tree.d
mkdir "$dir"
for name in $names; do cp "$work/$name.d/$name" "$dir/"; done
for i in "${!commands[@]}"; do
  c=" ${commands[$i]} "
  c=${c// include / $src/include }
  c=${c// build\// $build/}
  # What a build links its users with beyond the page's line (the sanitizer
  # runtimes, MPI's library; the page says so): the rest of the Libs line of
  # the build's generated rdsm.pc, the one place that link line is made.
  if [[ $c == *" -o "* ]]; then
    c="$c $(sed -n 's/^Libs: -L${libdir} -lrdsm -lstdc++ -lm -pthread//p' "$build/install/rdsm.pc") "
  fi
  commands[$i]=$c
done
run_commands "$dir" "${commands[@]}"
diff -u "$first_output" "$dir/stdout" >&2 || fail "build tree: the output differs from the first program's"
echo "ok build tree: $(head -1 "$dir/stdout")"
echo "PASS docs.first_program"
