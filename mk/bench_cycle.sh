#!/bin/sh
# Speed of the cycle engine (issue 13 target: >= 20 M simulated accelerator
# cycles per second on one core): BERT-base training step on configs/mxsf.yaml
# under each DRAM, cycle engine against the analytic engine in the same run.
# CPU time (user + sys) of the process, so a busy machine does not skew it.
# usage: mk/bench_cycle.sh MXSIM
mxsim=$1
t=$(mktemp)
for d in hbm2 ddr4_3200 none; do
  for e in cycle analytic; do
    cyc=$(/usr/bin/time -f "%U %S" -o "$t" "$mxsim" run -c configs/mxsf.yaml -t traces/bert_base_train.csv \
          --engine $e --set memory.dram=$d --no-progress | awk '$1 == "TOTAL" {print $2}')
    cpu=$(awk '{print $1 + $2}' "$t")
    eval "cyc_$e=$cyc; dt_$e=$cpu"
  done
  awk -v d=$d -v c=$cyc_cycle -v t=$dt_cycle -v ca=$cyc_analytic -v ta=$dt_analytic 'BEGIN {
    if (t < 0.01) t = 0.01; if (ta < 0.01) ta = 0.01;
    printf "  cycle engine, BERT-base training step, memory.dram=%s: %.3g cycles in %.2f s CPU = %.3g cycles/s (target 2e7); analytic %.3g cycles in %.2f s (%.0fx faster)\n",
      d, c, t, c / t, ca, ta, t / ta }'
done
rm -f "$t"
