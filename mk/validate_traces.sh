#!/bin/sh
# Analytic vs cycle engine on every shipped trace under each DRAM preset
# (configs/mxsf.yaml): total cycles and DRAM energy, as a Markdown table.
# Called by `make validate-traces` (several minutes: the cycle engine runs
# every trace three times).  usage: mk/validate_traces.sh MXSIM
set -e
mxsim=$1
tmp=$(mktemp -d)
echo "| trace | DRAM | cycles analytic | cycles cycle engine | cycles error | DRAM energy error |"
echo "|---|---|---|---|---|---|"
for t in traces/*.csv; do
  for d in hbm2 ddr4_3200 lpddr4_2400; do
    for e in analytic cycle; do
      "$mxsim" run -c configs/mxsf.yaml -t "$t" --set memory.dram=$d --engine $e --no-progress -q -o "$tmp/$e" >/dev/null
    done
    python3 - "$t" "$d" "$tmp" <<'PY'
import json, sys
t, d, tmp = sys.argv[1:4]
a = json.load(open(tmp + "/analytic/report.json"))["total"]
c = json.load(open(tmp + "/cycle/report.json"))["total"]
ea, ec = a["energy_by_component_pj"]["dram"], c["energy_by_component_pj"]["dram"]
name = t.split("/")[-1][:-4]
print(f"| {name} | {d} | {a['cycles']:.4g} | {c['cycles']:.4g} | {100 * (a['cycles'] - c['cycles']) / c['cycles']:+.1f}% | {100 * (ea - ec) / ec:+.1f}% |")
PY
  done
done
rm -rf "$tmp"
