#!/bin/sh
# mutants.sh — mutation check of the unit co-simulation (make cosim-mutants).
# For each row of tests/cosim/mutants.tsv: copy rtl/ into WORK/rtl, plant the
# one-line bug there (rtl/ itself is never edited), build mxsim-cosim from the
# copy (RTL_DIR=WORK/rtl), and run (1) the random/exhaustive regression
# without the directed tables and (2) the directed tables alone.  A mutant is
# caught by a run when a co-simulation reports a mismatch.
# usage: mutants.sh MAKE WORK [NAME...]
set -u
MAKE=$1
WORK=$2
shift 2
TSV=tests/cosim/mutants.tsv
mkdir -p "$WORK"
printf "%-24s %-10s %-10s %s\n" mutant random directed "bug" > "$WORK/mutants.txt"
rc=0
grep -v '^#' "$TSV" | while IFS='	' read -r name file from to what; do
  if [ $# -gt 0 ] && ! echo " $* " | grep -q " $name "; then continue; fi
  rm -rf "$WORK/rtl" && cp -r rtl "$WORK/rtl"
  python3 -c 'import sys
p, a, b = sys.argv[1:]
s = open(p).read()
assert s.count(a) == 1, "mutant text not found once in " + p
open(p, "w").write(s.replace(a, b))' "$WORK/rtl/$file" "$from" "$to" || { echo "mutants: cannot plant $name" >&2; exit 2; }
  if ! $MAKE -s BUILD="$WORK" RTL_DIR="$WORK/rtl" "$WORK/mxsim-cosim" > "$WORK/$name.build.log" 2>&1; then
    echo "mutants: $name does not build (see $WORK/$name.build.log)" >&2
    printf '%-24s %-10s %-10s %s\n' "$name" "no-build" "no-build" "$what" >> "$WORK/mutants.txt"
    continue
  fi
  COSIM_DIRECTED= sh tests/cosim/regress.sh "$WORK/mxsim-cosim" "$WORK/r_$name" > "$WORK/$name.random.log" 2>&1
  r=missed
  grep -q '^MISMATCH' "$WORK/$name.random.log" && r=caught
  : > "$WORK/$name.directed.log"
  for tb in align accum requant; do
    "$WORK/mxsim-cosim" --unit $tb --directed tests/cosim/directed_$tb.tsv >> "$WORK/$name.directed.log" 2>&1
  done
  d=missed
  grep -q '^MISMATCH' "$WORK/$name.directed.log" && d=caught
  printf '%-24s %-10s %-10s %s\n' "$name" "$r" "$d" "$what" >> "$WORK/mutants.txt"
  echo "mutant $name: random regression $r, directed tables $d"
  grep -m1 -A2 '^MISMATCH' "$WORK/$name.directed.log" | sed 's/^/    /'
done
cat "$WORK/mutants.txt"
# Fails if a mutant escapes the whole regression (random and directed) or does not build.
! grep -qE '^[a-z0-9_]+ +(missed +missed|no-build)' "$WORK/mutants.txt"
