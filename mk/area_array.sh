#!/bin/sh
# `make area-array`: yosys generic synthesis of a small mx_array (R x C PEs,
# L lanes, all formats: fmt_i stays a runtime input) and of mx_array_ctrl
# (controller + array + re-quantizing output stage), cell counts and the
# Nangate45-proxy area of tests/cosim/area.sh.
# usage: area_array.sh YOSYS OUTDIR R C L
set -eu
YOSYS=$1; OUT=$2; R=$3; C=$4; L=$5
mkdir -p "$OUT"
SRC="rtl/mx_pkg.sv rtl/mx_decode.sv rtl/mx_mul.sv rtl/mx_align.sv rtl/mx_addtree.sv rtl/mx_fp32_round.sv rtl/mx_fp32_add.sv rtl/mx_accum.sv rtl/mx_pe.sv rtl/mx_skew.sv rtl/mx_array.sv rtl/mx_requant.sv rtl/mx_array_ctrl.sv"
for top in mx_array mx_array_ctrl; do
  cat > "$OUT/$top.ys" <<EOS
read_verilog -sv $SRC
chparam -set R $R -set C $C -set LANES $L -set ALIGN_W 32 $top
synth -flatten -top $top
stat
EOS
done
( "$YOSYS" -q -l "$OUT/mx_array.log" "$OUT/mx_array.ys" >/dev/null 2>&1 || echo "yosys failed: $OUT/mx_array.log" >&2 ) &
p1=$!
( "$YOSYS" -q -l "$OUT/mx_array_ctrl.log" "$OUT/mx_array_ctrl.ys" >/dev/null 2>&1 || echo "yosys failed: $OUT/mx_array_ctrl.log" >&2 ) &
p2=$!
wait $p1 $p2
printf '\nArray area estimate: %sx%s PEs, L=%s, align_w 32, all formats (fmt_i runtime), yosys %s generic cells (synth -flatten)\n' \
  "$R" "$C" "$L" "$("$YOSYS" -V | cut -d' ' -f2)"
printf '%-14s %8s %8s %8s %12s\n' top cells flops logic area_um2
for top in mx_array mx_array_ctrl; do
  if stats=$(awk -v top="$top" -f tests/cosim/yosys_area.awk "$OUT/$top.log"); then
    set -- $stats
    printf '%-14s %8d %8d %8d %12.0f\n' "$top" "$1" "$2" "$(($1 - $2))" "$3"
  else
    echo "$top: no statistics (see $OUT/$top.log)"; exit 1
  fi
done
