#!/bin/sh
# The MXSF/BF16 headline against buffer size (A, B and output SRAM scaled
# together, -10% .. +10% in 1% steps) under each DRAM preset: one CSV and a
# gnuplot figure (PNG and SVG).  Called by `make headline`; analytic engine.
# usage: mk/headline.sh MXSIM OUTDIR
set -e
mxsim=$1; out=$2
mkdir -p "$out"
csv=$out/headline.csv
echo "dram,scale_pct,sram_a_kib,ratio,cycles_ratio" > "$csv.tmp"
for d in hbm2 ddr4_3200 lpddr4_2400; do
  for p in -10 -9 -8 -7 -6 -5 -4 -3 -2 -1 0 1 2 3 4 5 6 7 8 9 10; do
    a=$(awk "BEGIN{printf \"%.4f\", 1024*(1+$p/100)}"); o=$(awk "BEGIN{printf \"%.4f\", 512*(1+$p/100)}")
    line=$("$mxsim" run -c configs/mxsf.yaml --compare configs/bf16.yaml -t traces/bert_base_train.csv -q \
      --no-progress --no-sensitivity --engine analytic --set memory.dram=$d --set memory.sram_a.kib=$a \
      --set memory.sram_b.kib=$a --set memory.sram_out.kib=$o)
    r=$(echo "$line" | sed -n 's/^mxsf\/bf16 total energy: \([0-9.]*\),.*/\1/p')
    c=$(echo "$line" | awk '$1 == "cycles" {print $4}')
    [ -n "$r" ] && [ -n "$c" ] || { echo "headline: no ratio for $d at $p%" >&2; exit 1; }
    echo "$d,$p,$a,$r,$c" >> "$csv.tmp"
  done
done
mv "$csv.tmp" "$csv"
for t in png svg; do
  gnuplot -e "set terminal $t size 800,480 noenhanced; set output '$out/headline.$t'; set datafile separator ','; \
    set title 'MXSF/BF16 total energy, BERT-base training step (mxsim, analytic engine)'; \
    set xlabel 'A, B and output buffer size vs configs/mxsf.yaml (%)'; set ylabel 'energy ratio'; set key bottom right; set grid; \
    plot for [d in 'hbm2 ddr4_3200 lpddr4_2400'] '< grep ^'.d.', $csv' using 2:4 with linespoints title d"
done
awk -F, 'NR > 1 { if (!($1 in lo) || $4 < lo[$1]) lo[$1] = $4; if (!($1 in hi) || $4 > hi[$1]) hi[$1] = $4 }
  END { for (d in lo) printf "headline: %s: mxsf/bf16 total energy %.3f .. %.3f over buffers -10%% .. +10%%\n", d, lo[d], hi[d] }' "$csv" | sort
