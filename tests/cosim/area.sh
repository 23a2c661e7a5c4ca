#!/bin/sh
# `make area`: yosys generic synthesis of the PE (rtl/mx_pe_area.sv, L = 8)
# with its format tied to a constant, one run per format, and a table of cell
# counts and estimated area.
# usage: area.sh YOSYS OUTDIR
set -eu
YOSYS=$1
OUT=$2
mkdir -p "$OUT"
SRC="rtl/mx_pkg.sv rtl/mx_decode.sv rtl/mx_mul.sv rtl/mx_align.sv rtl/mx_addtree.sv rtl/mx_fp32_round.sv rtl/mx_fp32_add.sv rtl/mx_accum.sv rtl/mx_pe.sv rtl/mx_pe_area.sv"
# name  fmt_i  align_width (exact for the block formats; BF16 keeps 16 guard bits)
CONFIGS="mxsf:0:28 bf16:5:32 e4m3:1:44 int8:4:17"
for c in $CONFIGS; do
  name=${c%%:*}; rest=${c#*:}; fmt=${rest%%:*}; aw=${rest#*:}
  cat > "$OUT/pe_$name.ys" <<EOS
read_verilog -sv $SRC
chparam -set FMT $fmt -set ALIGN_W $aw -set LANES 8 mx_pe_area
synth -flatten -top mx_pe_area
stat
EOS
done
# two at a time (CI has 2 cores)
pids=""
n=0
for c in $CONFIGS; do
  name=${c%%:*}
  ( "$YOSYS" -q -l "$OUT/pe_$name.log" "$OUT/pe_$name.ys" >/dev/null 2>&1 || echo "yosys failed: $OUT/pe_$name.log" >&2 ) &
  pids="$pids $!"
  n=$((n + 1))
  if [ $((n % 2)) -eq 0 ]; then wait; fi
done
wait
# Area proxy: Nangate 45 nm Open Cell Library X1 cell areas in um^2 (INV 0.532,
# NAND2/NOR2 0.798, AND2/OR2 1.064, XOR2/XNOR2 1.596, MUX2 1.862, DFF 4.522);
# area proxy per generic cell: tests/cosim/yosys_area.awk
printf '\nPE area estimate: L=8, yosys %s generic cells (synth -flatten), format fixed per run\n' "$("$YOSYS" -V | cut -d' ' -f2)"
printf '%-6s %8s %8s %8s %8s %12s %10s\n' format align_w cells flops logic area_um2 vs_bf16
for c in $CONFIGS; do
  name=${c%%:*}; rest=${c#*:}; aw=${rest#*:}
  set -- $(awk -v top=mx_pe_area -f tests/cosim/yosys_area.awk "$OUT/pe_$name.log")
  echo "$name $aw $1 $2 $(($1 - $2)) $3"
done > "$OUT/area.txt"
bf=$(awk '$1 == "bf16" {print $6}' "$OUT/area.txt")
awk -v bf="$bf" '{ printf "%-6s %8s %8d %8d %8d %12.0f %10.2f\n", $1, $2, $3, $4, $5, $6, $6 / bf }' "$OUT/area.txt"
printf '(area_um2: Nangate45 X1 cell areas as a proxy; vs_bf16: relative to the BF16 PE; logs in %s)\n' "$OUT"
