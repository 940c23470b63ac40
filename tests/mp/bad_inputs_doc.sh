#!/bin/bash
# bad_inputs_doc.sh TABLE             prints docs/bad_inputs.md for TABLE
# bad_inputs_doc.sh --check TABLE DOC  fails if DOC is not what it would print
#
# TABLE is the bad-input catalogue (tests/mp/bad_inputs.txt).  Each case
# becomes a row: its command, with the test programs named plainly, and its
# cause and fix patterns shown as message excerpts ("…" for any text, N for
# a number).
set -u

render() {
  awk '
    function plain(re) {
      sub(/^\^/, "", re)
      gsub(/0x\[0-9a-f\]\+/, "0x…", re)
      gsub(/\[0-9\]\+/, "N", re)
      gsub(/\[0-9\]/, "N", re)
      gsub(/\.\*/, "…", re)
      gsub(/\\/, "", re)
      return cell(re)
    }
    function cell(s) {
      gsub(/\|/, "\\|", s)
      gsub(/</, "\\&lt;", s)
      return s
    }
    function command(s,   names, n, i, v) {
      gsub(/ "\$MARKER"/, "", s)
      gsub(/\$MARKER/, "X", s)
      gsub(/"\$TMP\//, "\"DIR/", s)
      gsub(/"\$TMP"/, "DIR", s)
      gsub(/\$TMP/, "DIR", s)
      n = split("RDSM TRIVIAL MISUSE BAD_USE SPLASH_MISUSE SPLASH_FAILURES NO_UFFD", names, " ")
      for (i = 1; i <= n; i++) {
        v = tolower(names[i])
        gsub("\"\\$" names[i] "\"", v, s)
      }
      return "`" cell(s) "`"
    }
    function flush() {
      if (id == "") return
      if (!in_table) {
        print "| case | input | message (excerpt) | fix |"
        print "|---|---|---|---|"
        in_table = 1
      }
      input = command(run)
      if (note != "") input = input " — " cell(note)
      printf "| `%s` | %s | %s | %s |\n", id, input, plain(cause), plain(fix)
      count++
      id = run = cause = fix = note = ""
    }
    /^# ---- / {
      flush()
      title = $0
      sub(/^# ---- /, "", title)
      sub(/ -+$/, "", title)
      if (count || in_table) print ""
      print "## " title
      print ""
      in_table = 0
      next
    }
    /^#/ { next }
    /^$/ { flush(); next }
    $1 == "case" { id = $2; next }
    { key = $1; value = $0; sub(/^[a-z_]+ /, "", value) }
    key == "run" { run = value }
    key == "cause" { cause = value }
    key == "fix" { fix = value }
    key == "note" { note = value }
    END { flush() }
  ' "$1"
}

document() {
  cat <<'EOF'
# Bad inputs

What rdsm does with wrong input: every case below is a test
(`ctest -L bad_inputs`, or one case: `ctest -R mp.bad_inputs.nodes_zero`)
that checks that the command fails (a non-zero exit status), that rdsm's
message names the cause and says what to do, and that nothing is left
behind — no process of the job, no new entry in `/dev/shm`, no temporary
file. The cases live in `tests/mp/bad_inputs.txt`; this page is generated
from it by `tests/mp/bad_inputs_doc.sh` (the test `mp.bad_inputs.doc` fails
when it is out of date: `tests/mp/bad_inputs_doc.sh tests/mp/bad_inputs.txt >docs/bad_inputs.md`).

In the inputs, `trivial`, `misuse`, `bad_use`, `splash_misuse`,
`splash_failures` and `no_uffd` are the test programs of `tests/mp/progs`
and `tests/splash`, and `DIR` is a scratch directory. The messages are
excerpts: `…` stands for any text, `N` for a number.

Settings: a command-line option wins over its environment variable (so
`RDSM_PROTOCOL=bogus rdsm run --protocol async` runs, and only the option's
value is checked); `rdsm run` checks every setting before it starts
anything, and the nodes check again what reaches them, so a program started
without `rdsm run` gets the same checks from its environment.

Node memory lives in memory files (memfd) that no name in `/dev/shm` refers
to, so a small or full `/dev/shm` does not affect rdsm. Userfaultfd is
refused here by a seccomp filter (`no_uffd`), as a container may refuse it;
`vm.unprivileged_userfaultfd=0` alone does not stop rdsm, which asks for
user-mode faults only.
EOF
  echo
  render "$1"
}

if [ "${1:-}" = --check ]; then
  [ $# -eq 3 ] || { echo "usage: bad_inputs_doc.sh --check TABLE DOC" >&2; exit 2; }
  if ! diff -u "$3" <(document "$2"); then
    echo "FAIL: $3 does not match $2; regenerate it: tests/mp/bad_inputs_doc.sh $2 >$3" >&2
    exit 1
  fi
  echo "PASS: $3 matches $2 ($(grep -c '^case ' "$2") cases)"
  exit 0
fi
[ $# -eq 1 ] || { echo "usage: bad_inputs_doc.sh TABLE >DOC" >&2; exit 2; }
document "$1"
