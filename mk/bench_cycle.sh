#!/bin/sh
# Speed of the cycle engine (issue 13 target: >= 20 M simulated accelerator
# cycles per second on one core): BERT-base training step on configs/mxsf.yaml
# under each DRAM, cycle engine against the analytic engine in the same run.
# CPU time (user + sys) of the process, so a busy machine does not skew it.
#
# Two rates, because a trace row with count > 1 is simulated once and its
# counters multiplied (docs/ARCH.md), and rows of one shape are simulated
# once per run (mx_arch_gemm_timing_memo): "stepped" divides the cycles the
# engine actually simulates (each distinct M x N x K once: the trace cut to
# its first row of each shape, every count set to 1) by that run's CPU time; "step" divides the whole training step's
# cycles (counts included) by the CPU time of the real run.  The issue's
# target is read on the stepped rate.
# Each run is repeated BENCH_REPEAT times (default 3) and the least CPU time
# kept: on this machine one binary's CPU time varies by up to 30% from run
# to run, the least of three by a few percent.
# usage: mk/bench_cycle.sh MXSIM
mxsim=$1
repeat=${BENCH_REPEAT:-3}
t=$(mktemp)
once=$(mktemp)
awk -F, 'BEGIN {OFS = ","} /^#/ {next} !hdr {hdr = 1; print; next} !seen[$2 "x" $3 "x" $4]++ {$6 = 1; print}' \
  traces/bert_base_train.csv >"$once"
run() { # trace engine dram -> "cycles least_cpu_seconds"
  best=
  i=0
  while [ $i -lt "$repeat" ]; do
    cyc=$(/usr/bin/time -f "%U %S" -o "$t" "$mxsim" run -c configs/mxsf.yaml -t "$1" \
          --engine $2 --set memory.dram=$3 --no-progress | awk '$1 == "TOTAL" {print $2}')
    best=$(awk -v b="$best" '{s = $1 + $2; print (b == "" || s < b) ? s : b}' "$t")
    i=$((i + 1))
  done
  echo "$cyc $best"
}
ver=$("$mxsim" run -c configs/mxsf.yaml -t traces/tiny_train.csv --no-progress 2>/dev/null | head -1)
echo "  $ver; configs/mxsf.yaml, traces/bert_base_train.csv, timing mode; least CPU time of $repeat runs; CPU of $(uname -m) $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg)"
for d in hbm2 ddr4_3200 none; do
  set -- $(run traces/bert_base_train.csv cycle $d) $(run "$once" cycle $d) $(run traces/bert_base_train.csv analytic $d)
  awk -v d=$d -v c=$1 -v t=$2 -v c1=$3 -v t1=$4 -v ca=$5 -v ta=$6 'BEGIN {
    if (t < 0.01) t = 0.01; if (t1 < 0.01) t1 = 0.01; if (ta < 0.01) ta = 0.01;
    printf "  cycle engine, memory.dram=%s: stepped %.3g cycles (BERT-base step, each distinct GEMM once) in %.2f s CPU = %.3g cycles/s (target 2e7, %.2fx); whole step %.3g cycles in %.2f s = %.3g step cycles/s; analytic %.3g cycles in %.2f s (%.0fx faster than cycle)\n",
      d, c1, t1, c1 / t1, c1 / t1 / 2e7, c, t, c / t, ca, ta, t / ta }'
done
rm -f "$t" "$once"
