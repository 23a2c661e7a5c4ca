#!/bin/bash
# mk/slurm_test.sh MXSIM WORKDIR — the Slurm test of `mxsim sweep` (issue 9):
# starts a single-node Slurm on localhost (Debian's slurm-wlm + munge, own
# config, key, sockets, ports and spool under WORKDIR; daemons as root, no
# cgroups: proctrack/linuxproc, task/none), submits a small sweep with the
# script `mxsim sweep --emit-slurm` writes (a job array of shards, then a
# merge job with afterok), waits for it, and checks the merged sweep.csv is
# byte-identical to the same sweep run locally.  Stops the daemons it started
# (by pid) on exit.  Exit 0 pass, 1 fail, 77 skipped (not root / no Slurm).
set -u
MXSIM=$(readlink -f "$1")
W=$(mkdir -p "$2" && cd "$2" && pwd)
SRC=$(cd "$(dirname "$0")/.." && pwd)
if [ "$(id -u)" != 0 ] || [ ! -x /usr/sbin/slurmctld ] || [ ! -x /usr/sbin/munged ]; then
  echo "slurm-test: SKIP (needs root and slurm-wlm + munge: make deps)"; exit 77
fi
rm -rf "$W"/*
mkdir -p "$W/state" "$W/spool" "$W/munge"
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; }
trap cleanup EXIT
fail() { echo "slurm-test: FAIL: $*"; for f in "$W"/*.log; do echo "== $f"; tail -20 "$f"; done; exit 1; }

# munge with its own key and socket (the system's munged, if any, is not touched)
dd if=/dev/urandom of="$W/munge/munge.key" bs=1 count=1024 2>/dev/null
chmod 755 "$W/munge"; chmod 600 "$W/munge/munge.key"
/usr/sbin/munged --force -F --key-file="$W/munge/munge.key" --socket="$W/munge/munge.sock" \
  --pid-file="$W/munge/munged.pid" --log-file="$W/munged.log" --seed-file="$W/munge/seed" 2>>"$W/munged.log" &
pids+=($!)
for i in $(seq 50); do [ -S "$W/munge/munge.sock" ] && break; sleep 0.1; done
[ -S "$W/munge/munge.sock" ] || fail "munged did not start"

cpus=$(nproc)
cat > "$W/slurm.conf" <<CONF
ClusterName=mxsimtest
SlurmctldHost=localhost
SlurmUser=root
SlurmdUser=root
SlurmctldPort=16817
SlurmdPort=16818
AuthType=auth/munge
AuthInfo=socket=$W/munge/munge.sock
CredType=cred/munge
StateSaveLocation=$W/state
SlurmdSpoolDir=$W/spool
SlurmctldPidFile=$W/slurmctld.pid
SlurmdPidFile=$W/slurmd.pid
SlurmctldLogFile=$W/slurmctld.log
SlurmdLogFile=$W/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MpiDefault=none
SwitchType=switch/none
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$W/slurm.conf"
/usr/sbin/slurmctld -D -c -f "$SLURM_CONF" >"$W/slurmctld.out" 2>&1 &
pids+=($!)
/usr/sbin/slurmd -D -N localhost -f "$SLURM_CONF" >"$W/slurmd.out" 2>&1 &
pids+=($!)
for i in $(seq 100); do
  sinfo -h -o %t 2>/dev/null | grep -q idle && break; sleep 0.2
done
sinfo -h -o %t 2>/dev/null | grep -q idle || fail "the node did not come up idle: $(sinfo 2>&1 | tail -2)"

# the sweep: 12 points x 2 traces in 3 array tasks, then the merge
cd "$W"
args=(-c "$SRC/configs/mxsf.yaml" -t "$SRC/traces/tiny_train.csv" -t "$SRC/traces/llama_decoder_infer.csv"
      --grid arch.rows=8,16,32 --grid arch.lanes=4,8 --grid memory.dram=hbm2,ddr4_3200)
"$MXSIM" sweep "${args[@]}" -o slurm_sweep --emit-slurm job.sh --shards 3 || fail "emit-slurm"
sbatch --test-only job.sh >"$W/test-only.out" 2>&1 || fail "sbatch --test-only: $(cat "$W/test-only.out")"
t0=$(date +%s.%N)
bash job.sh >"$W/submit.out" 2>&1 || fail "submission: $(cat "$W/submit.out")"
cat "$W/submit.out"
for i in $(seq 600); do
  [ -z "$(squeue -h 2>/dev/null)" ] && break; sleep 0.2
done
t1=$(date +%s.%N)
[ -z "$(squeue -h)" ] || fail "jobs still queued after 120 s: $(squeue)"
[ -f slurm_sweep/sweep.csv ] || fail "no merged sweep.csv (merge.out: $(cat slurm_sweep/slurm/merge.out 2>/dev/null))"
"$MXSIM" sweep "${args[@]}" -o local_sweep --no-progress >/dev/null || fail "local sweep"
cmp slurm_sweep/sweep.csv local_sweep/sweep.csv || fail "merged CSV differs from the local run's"
rows=$(($(wc -l < slurm_sweep/sweep.csv) - 1))
printf 'slurm-test: PASS (single-node Slurm %s on localhost: 3 array tasks + afterok merge job, %d rows, sweep.csv byte-identical to the local run; submit-to-merged %.1f s)\n' \
  "$(sinfo -V | cut -d' ' -f2)" "$rows" "$(echo "$t1 - $t0" | bc)"
