#!/usr/bin/env python3
"""mk/bench_analytic.py MXSIM -- the analytic engine against the cycle engine
on single mid-size GEMMs (issue 13, stop 34), measured in the same run.

The analytic engine is the sweeps' fast default, yet with a DRAM model it
replays (up to 256 tiles, 2^18 bursts) the GEMM's whole traffic on that
model, as the cycle engine steps it, and probes transfers beyond that
(docs/DECISIONS.md, "The analytic engine's cost on mid-size GEMMs" and
"Where the whole GEMM is replayed", stop 34): on mid-size GEMMs it is
about as costly as the cycle engine.
This prints, for each DRAM preset and the flat channel (memory.dram=none),
each GEMM's CPU time under both engines and their ratio (cycle / analytic:
above 1, the analytic engine is faster), then the sums.

Each GEMM is a one-row trace on configs/mxsf.yaml run by `mxsim run`; its
time is the child's user + system CPU (getrusage: a busy machine does not
skew it), least of REPS runs (default 3; one binary's CPU time varies by up
to 30% from run to run), less the same for an 8x8x8 GEMM (start-up: config,
DRAM preset, calibration).  A figure, not a test: nothing is asserted.
"""
import os
import resource
import subprocess
import sys
import tempfile

# Mid-size GEMMs (M, N, K): the 1024x256x6272 (a ResNet-50 wgrad
# shape) and others drawn once at random from extents 64..2048 (K up to 6,272)
GEMMS = [(1024, 256, 6272), (256, 256, 4608), (1024, 2048, 576), (1024, 192, 4608),
         (512, 1536, 2048), (128, 2048, 1024), (384, 1024, 1152), (2048, 576, 4096)]
DRAMS = ['hbm2', 'ddr4_3200', 'lpddr4_2400', 'none']


def main():
    mxsim = sys.argv[1]
    reps = int(os.environ.get('REPS', '3'))
    d = tempfile.mkdtemp(prefix='mxsim_bench_analytic.')

    def trace(m, n, k):
        p = os.path.join(d, '%dx%dx%d.csv' % (m, n, k))
        with open(p, 'w') as f:
            f.write('name,M,N,K,phase,count,a_format,b_format\ng,%d,%d,%d,fwd,1,,\n' % (m, n, k))
        return p

    def cpu(tr, engine, dram):
        best = None
        for _ in range(reps):
            r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
            p = subprocess.run([mxsim, 'run', '-c', 'configs/mxsf.yaml', '-t', tr, '--engine', engine,
                                '--set', 'memory.dram=' + dram, '--no-progress'],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
            if p.returncode != 0:
                sys.exit('bench_analytic: %s %s on %s failed: %s' % (engine, tr, dram, p.stderr.strip()))
            t = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
            best = t if best is None or t < best else best
        return best

    print('  configs/mxsf.yaml, one-row traces, CPU time per GEMM (least of %d runs, less an 8x8x8 GEMM\'s); '
          'ratio = cycle / analytic (> 1: analytic faster); load %s' % (reps, open('/proc/loadavg').read().split()[0]))
    try:
        for dram in DRAMS:
            base = {e: cpu(trace(8, 8, 8), e, dram) for e in ('analytic', 'cycle')}
            sa = sc = 0.0
            for (m, n, k) in GEMMS:
                tr = trace(m, n, k)
                ta = max(cpu(tr, 'analytic', dram) - base['analytic'], 1e-4)
                tc = max(cpu(tr, 'cycle', dram) - base['cycle'], 1e-4)
                sa += ta
                sc += tc
                print('  memory.dram=%-11s %5dx%5dx%5d  analytic %6.1f ms  cycle %6.1f ms  ratio %5.2f' %
                      (dram, m, n, k, ta * 1e3, tc * 1e3, tc / ta))
            print('  memory.dram=%-11s all %d GEMMs:      analytic %6.1f ms  cycle %6.1f ms  ratio %5.2f' %
                  (dram, len(GEMMS), sa * 1e3, sc * 1e3, sc / sa))
    finally:
        for f in os.listdir(d):
            os.remove(os.path.join(d, f))
        os.rmdir(d)


if __name__ == '__main__':
    main()
