#!/bin/sh
# The co-simulation regression (`make cosim`): RTL vs C model, unit by unit.
# usage: regress.sh BUILD/mxsim-cosim WORKDIR
set -u
BIN=$1
WORK=$2
PE_VECTORS=${COSIM_PE_VECTORS:-100000}
UNIT_VECTORS=${COSIM_UNIT_VECTORS:-20000}
mkdir -p "$WORK"
fail=0
# Functional coverage (sim/cosim/fcov.cpp): every run appends its counts here;
# the report at the end fails the regression if any point was never hit.
FCOV="$WORK/fcov.txt"
rm -f "$FCOV"
run() {
  if ! "$BIN" "$@" --fcov "$FCOV"; then
    echo "cosim: FAILED: mxsim cosim $*" >&2
    fail=1
  fi
}
start=$(date +%s)
# exhaustive: every code (decode) and every code pair (mul); the MXFP6/MXFP4
# elements (e3m2 e2m3 e2m1) in their 8-bit slots, bits above the code ignored
for f in mxsf e4m3 e5m2 int8 e2m5 e3m2 e2m3 e2m1; do
  run --unit decode --format $f --exhaustive
  run --unit mul --format $f --exhaustive
done
run --unit decode --format bf16 --exhaustive
# mixed operand formats (A --format, B --format-b): every code pair
for p in mxsf:e4m3 e4m3:e5m2 e2m5:int8 int8:mxsf e5m2:mxsf e3m2:e2m3 e2m1:e4m3 mxsf:e2m1 e2m3:int8 e5m2:e3m2; do
  run --unit mul --format ${p%:*} --format-b ${p#*:} --exhaustive
done
# random unit vectors
for f in mxsf e4m3 e5m2 e2m5 int8 bf16 e3m2 e2m3 e2m1; do
  run --unit align --format $f --vectors $UNIT_VECTORS --seed 11
  run --unit mul --format $f --vectors $UNIT_VECTORS --seed 12
done
run --unit addtree --format mxsf --vectors $UNIT_VECTORS --seed 13
run --unit accum --format mxsf --vectors 100000 --seed 14
for f in mxsf e4m3 e5m2 e2m5 int8; do
  run --unit requant --format $f --vectors $UNIT_VECTORS --seed 15
done
for b in 5 7 9 12 16; do
  run --unit requant --format mxsf --fp5-bias $b --vectors $UNIT_VECTORS --seed 16
done
# the PE: random vectors with valid/ready back-pressure, every format
for f in mxsf e4m3 e5m2 e2m5 int8 bf16 e3m2 e2m3 e2m1; do
  run --unit pe --format $f --vectors $PE_VECTORS --stall 0.2 --seed 21
done
run --unit pe --format mxsf --fp5-bias 11 --vectors 20000 --stall 0.5 --seed 22
for b in 5 16; do  # the FP5 bias extremes (every bit of fp5_bias_i toggles)
  run --unit pe --format mxsf --fp5-bias $b --vectors 10000 --stall 0.3 --seed 26
done
for f in mxsf bf16; do
  run --unit pe --format $f --lanes 4 --vectors 50000 --stall 0.3 --seed 23
done
for p in mxsf:e4m3 e4m3:e5m2 e2m5:int8 int8:mxsf e5m2:mxsf e3m2:e2m1 e2m3:mxsf e4m3:e2m1 int8:e3m2; do
  run --unit pe --format ${p%:*} --format-b ${p#*:} --vectors 30000 --stall 0.2 --seed 24
  run --unit align --format ${p%:*} --format-b ${p#*:} --vectors 20000 --seed 25
done

# Directed boundary tables (special values, ties, overflow, saturation,
# subnormals, scale extremes) where the random vectors do not reach; the
# expected values in them come from the spec, not from the C model.
for tb in ${COSIM_DIRECTED-align accum requant}; do
  run --unit $tb --directed tests/cosim/directed_$tb.tsv
done
if ! "$BIN" --fcov-report "$FCOV" > "$WORK/fcov_report.txt"; then
  cat "$WORK/fcov_report.txt"
  echo "cosim: FAILED: functional coverage points unhit (table above, $WORK/fcov_report.txt)" >&2
  fail=1
else
  tail -2 "$WORK/fcov_report.txt"
fi

# Self-tests of the checks above: a wrong spec expectation in a directed table
# must be reported (status 1, a "(table)" field), a malformed table refused
# (status 2), and a coverage file missing points must fail the report.  Skipped
# with the directed tables (COSIM_DIRECTED= : the mutation runs' "random only").
if [ -n "${COSIM_DIRECTED-align}" ]; then
awk -F'\t' 'BEGIN { OFS = "\t" } /Inf\*1 \+ Inf\*\(-1\) = NaN, lanes 0,5/ { $5 = 0 } { print }' \
  tests/cosim/directed_align.tsv > "$WORK/bad_align.tsv"
"$BIN" --unit align --directed "$WORK/bad_align.tsv" > "$WORK/bad_align.log" 2>&1
st=$?
printf 'e5m2\te5m2\t7c\n' > "$WORK/short_align.tsv"
"$BIN" --unit align --directed "$WORK/short_align.tsv" > "$WORK/short_align.log" 2>&1
st2=$?
"$BIN" --unit requant --format e4m3 --vectors 10 --fcov "$WORK/fcov_one.txt" > /dev/null 2>&1
"$BIN" --fcov-report "$WORK/fcov_one.txt" > "$WORK/fcov_one.log" 2>&1
st3=$?
if [ $st -eq 1 ] && grep -q "field nan_o(table)" "$WORK/bad_align.log" && [ $st2 -eq 2 ] &&
   grep -q "line 1: expected 7 fields" "$WORK/short_align.log" && [ $st3 -eq 1 ] && grep -q "UNHIT" "$WORK/fcov_one.log"; then
  echo "cosim directed/coverage self-test: PASS (wrong table expectation reported, malformed table refused, unhit points fail)"
else
  echo "cosim directed/coverage self-test: FAILED (status $st, $st2, $st3)" >&2
  cat "$WORK/bad_align.log" "$WORK/short_align.log" >&2
  fail=1
fi
rm -f "$WORK/fcov_one.txt"
fi

# Self-test: the fault-injected RTL (+define+MX_FAULT_ALIGN) must be caught,
# in the align unit, with a waveform.
rm -f "$WORK/fault.fst"
"$BIN" --unit pe --format e4m3 --fault --vectors 5000 --seed 3 --fst "$WORK/fault.fst" > "$WORK/fault.log" 2>&1
st=$?
if [ $st -eq 1 ] && grep -q "^MISMATCH at cycle .*unit align (in pe)" "$WORK/fault.log" && [ -s "$WORK/fault.fst" ]; then
  echo "cosim fault self-test: PASS (injected MX_FAULT_ALIGN reported in align: $(head -1 "$WORK/fault.log" | cut -c1-80))"
else
  echo "cosim fault self-test: FAILED (status $st), log:" >&2
  cat "$WORK/fault.log" >&2
  fail=1
fi
echo "cosim regression: $( [ $fail -eq 0 ] && echo PASS || echo FAIL ) in $(( $(date +%s) - start )) s"
exit $fail
