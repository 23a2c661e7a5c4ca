#!/bin/sh
# Speed of the cycle engine (issue 13 target: >= 20 M simulated accelerator
# cycles per second on one core): BERT-base training step on configs/mxsf.yaml
# under each DRAM, cycle engine against the analytic engine in the same run.
# usage: mk/bench_cycle.sh MXSIM
mxsim=$1
now() { date +%s.%N; }
for d in hbm2 ddr4_3200 none; do
  for e in cycle analytic; do
    t0=$(now)
    cyc=$("$mxsim" run -c configs/mxsf.yaml -t traces/bert_base_train.csv --engine $e --set memory.dram=$d \
          --no-progress | awk '$1 == "TOTAL" {print $2}')
    t1=$(now)
    eval "cyc_$e=$cyc; dt_$e=\$(awk \"BEGIN{print $t1 - $t0}\")"
  done
  awk -v d=$d -v c=$cyc_cycle -v t=$dt_cycle -v ca=$cyc_analytic -v ta=$dt_analytic 'BEGIN {
    printf "  cycle engine, BERT-base training step, memory.dram=%s: %.3g cycles in %.2f s = %.3g cycles/s (target 2e7); analytic %.3g cycles in %.2f s (%.0fx faster)\n",
      d, c, t, c / t, ca, ta, t / ta }'
done
