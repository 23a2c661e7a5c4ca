# yosys_area.awk — reads a yosys `stat` log and prints "cells flops area_um2"
# for the module named by -v top=NAME.  Area is a proxy: each generic cell
# counts as its nearest Nangate 45 nm library cell (µm²); a flop with enable
# and/or synchronous reset as DFF + MUX2 (+ AND2).  Exit 1 if the module has no
# statistics in the log.  Used by tests/cosim/area.sh and mk/area_array.sh.
$0 ~ ("=== .*" top " ===$") { on = 1; fl = 0; area = 0 }
on && /Number of cells:/ { cells = $4 }
on && /^ +\$_/ {
  t = $1; k = $2; a = 0
  if (t ~ /^\$_(S?DFFE?|DFFSRE?|SDFFCE)_/) {
    fl += k; a = 4.522
    if (t ~ /E_/) a += 1.862
    if (t ~ /^\$_SDFF/) a += 1.064
  } else if (t == "$_NOT_") a = 0.532
  else if (t == "$_NAND_" || t == "$_NOR_") a = 0.798
  else if (t == "$_AND_" || t == "$_OR_" || t == "$_ANDNOT_" || t == "$_ORNOT_") a = 1.064
  else if (t == "$_XOR_" || t == "$_XNOR_") a = 1.596
  else if (t == "$_MUX_") a = 1.862
  else if (t ~ /^\$_(AOI|OAI)3_/) a = 1.064
  else if (t ~ /^\$_(AOI|OAI)4_/) a = 1.330
  else a = 1.064
  area += a * k
}
END { if (cells == "") exit 1; printf "%d %d %.0f\n", cells, fl, area }
