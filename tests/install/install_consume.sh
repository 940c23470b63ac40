#!/usr/bin/env bash
# Installs the build into a temporary prefix and builds small programs
# outside the source tree against it, each way a user would: CMake's
# find_package, pkg-config, the rdsmcc / rdsmc++ wrappers and a SPLASH-style
# Makefile with the installed make fragment; each runs under the installed
# launcher.
#   usage: install_consume.sh BUILD_DIR SOURCE_DIR [GENERATOR]
set -euo pipefail
build=$1
src=$2
generator=${3:-}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
P=$work/prefix
fail() { echo "FAIL install: $*" >&2; exit 1; }

cmake --install "$build" --prefix "$P" >/dev/null
for f in bin/rdsm bin/rdsmcc bin/rdsmc++ include/rdsm.h include/rdsm_splash.h include/rdsm_splash_types.h \
         lib/librdsm.a lib/pkgconfig/rdsm.pc lib/cmake/rdsm/rdsmConfig.cmake lib/cmake/rdsm/rdsmTargets.cmake \
         share/rdsm/splash/c.m4.rdsm share/rdsm/splash/rdsm.mk share/rdsm/tools/rdsm_bench.py \
         share/rdsm/tools/rdsm_report.py share/rdsm/tools/rdsm_emu.py share/rdsm/tools/rdsm_report_sweep.py \
         share/rdsm/tools/rdsm_report_common.py share/doc/rdsm/README.md share/doc/rdsm/docs/README.md \
         share/doc/rdsm/docs/first_program.md; do
  [ -e "$P/$f" ] || fail "$f is not installed"
done
[ ! -e "$src/include/rdsm.hpp" ] || [ -e "$P/include/rdsm.hpp" ] || fail "include/rdsm.hpp is not installed"

# Moved after installing: everything finds the rest relative to itself.
mv "$P" "$work/moved"
P=$work/moved
rdsm=$P/bin/rdsm
# It points its users to the guide installed with it.
[ "$("$rdsm" --version | sed -n 's/^user guide: //p')" = "$P/share/doc/rdsm/docs/README.md" ] ||
  fail "rdsm --version does not name the installed guide: $("$rdsm" --version)"

run2() {  # run2 NAME PROGRAM: runs it on 2 nodes, wants its PASS line
  local out
  out=$("$rdsm" run -n 2 --quiet "$2" 2>&1) || fail "$1: $2 failed: $out"
  grep -q "^PASS" <<<"$out" || fail "$1: $2 did not pass: $out"
  echo "ok $1: $(grep '^PASS' <<<"$out")"
}

# find_package(rdsm): a C-only project, then C and C++.
gen=()
[ -n "$generator" ] && gen=(-G "$generator")
cmake -S "$here" -B "$work/cm_c" "${gen[@]}" -DCMAKE_PREFIX_PATH="$P" -DWITH_CXX=OFF >/dev/null
cmake --build "$work/cm_c" >/dev/null || fail "find_package build (C only)"
run2 find_package.c "$work/cm_c/hello_c"
cmake -S "$here" -B "$work/cm" "${gen[@]}" -DCMAKE_PREFIX_PATH="$P" >/dev/null
cmake --build "$work/cm" >/dev/null || fail "find_package build"
run2 find_package.c "$work/cm/hello_c"
run2 find_package.c++ "$work/cm/hello_cxx"

# pkg-config
export PKG_CONFIG_PATH=$P/lib/pkgconfig
cc -o "$work/pc_c" "$here/hello.c" $(pkg-config --cflags --libs rdsm) || fail "pkg-config build (C)"
c++ -std=c++17 -o "$work/pc_cxx" "$here/hello.cpp" $(pkg-config --cflags --libs rdsm) || fail "pkg-config build (C++)"
run2 pkg-config.c "$work/pc_c"
run2 pkg-config.c++ "$work/pc_cxx"

# Compiler wrappers: -show, then compile and link in one step and in two.
"$P/bin/rdsmcc" -show -o x x.c | grep -q -- "-I$P/include .*-lrdsm" || fail "rdsmcc -show: $("$P/bin/rdsmcc" -show -o x x.c)"
"$P/bin/rdsmcc" -show -c x.c | grep -q -- "-lrdsm" && fail "rdsmcc -show -c links"
"$P/bin/rdsmcc" -o "$work/w_c" "$here/hello.c" || fail "rdsmcc"
"$P/bin/rdsmc++" -std=c++17 -c -o "$work/w_cxx.o" "$here/hello.cpp" || fail "rdsmc++ -c"
"$P/bin/rdsmc++" -o "$work/w_cxx" "$work/w_cxx.o" || fail "rdsmc++ link"
run2 rdsmcc "$work/w_c"
run2 rdsmc++ "$work/w_cxx"

# A SPLASH program with a SPLASH-style Makefile: its Makefile.config gets
# the one line the README gives.
mkdir "$work/splash"
cp "$src/tests/splash/alloc_first.C" "$work/splash/"
cat >"$work/splash/Makefile.config" <<MK
CC = cc
CFLAGS = -O2
LDFLAGS = -lm
MACROS = ../null_macros/c.m4.null
M4 = m4 -s -Ulen -Uindex
include $P/share/rdsm/splash/rdsm.mk
MK
cat >"$work/splash/Makefile" <<'MK'
TARGET = ALLOC_FIRST
OBJS = alloc_first.o
include Makefile.config
$(TARGET): $(OBJS)
	$(CC) $(OBJS) $(CFLAGS) -o $(TARGET) $(LDFLAGS)
.SUFFIXES:
.SUFFIXES: .o .c .C
.C.c:
	$(M4) $(MACROS) $*.C > $*.c
.c.o:
	$(CC) -c $(CFLAGS) $*.c
.C.o:
	$(M4) $(MACROS) $*.C > $*.c
	$(CC) -c $(CFLAGS) $*.c
MK
make -s -C "$work/splash" >/dev/null || fail "SPLASH Makefile build"
out=$("$rdsm" run -n 1 --quiet "$work/splash/ALLOC_FIRST" -p 2 2>&1) || fail "SPLASH program: $out"
grep -q "^PASS" <<<"$out" || fail "SPLASH program did not pass: $out"
echo "ok splash_makefile: $(grep '^PASS' <<<"$out")"

# The python tools behind `rdsm bench` and `rdsm report` are found.
"$rdsm" bench --help >/dev/null 2>&1 || fail "rdsm bench --help from the prefix"
"$rdsm" report --help >/dev/null 2>&1 || fail "rdsm report --help from the prefix"
echo "ok bench/report"
echo "PASS install"
