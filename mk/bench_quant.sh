#!/bin/sh
# bench_quant.sh MXSIM [DIR] — end-to-end speed of `mxsim quant` on a 64 MiB
# float32 .npy, against `cp` of the same file in the same run (issue 11).
# The input is written without numpy or mxsim: a hand-made .npy header and
# 1 MiB of Gaussian-like values (fixed seed) repeated 64 times.  Each command
# runs REPS times (default 15); the best wall time counts (the machine may be
# loaded), and the user+system CPU time of the best run is printed too.  The
# quant rows use all cores (mxsim's default); the last row is --codes
# --scales on one thread (MXSIM_QUANT_THREADS=1), what a busy machine gives.
set -e
MXSIM=${1:?usage: bench_quant.sh MXSIM [DIR]}
DIR=${2:-${TMPDIR:-/tmp}/mxsim_bench_quant.$$}
REPS=${REPS:-15}
mkdir -p "$DIR"
trap 'rm -rf "$DIR"' EXIT INT TERM
IN=$DIR/in.npy
python3 - "$IN" <<'PY'
import array, math, random, sys
r = random.Random(11)
n = 1 << 18                                    # 1 MiB of float32
a = array.array('f', (r.gauss(0.0, 1.0) * 2.0 ** r.randint(-6, 6) for _ in range(n)))
if sys.byteorder != 'little':
    a.byteswap()
d = "{'descr': '<f4', 'fortran_order': False, 'shape': (%d,), }" % (64 * n)
tot = (10 + len(d) + 1 + 63) // 64 * 64
hdr = (d + ' ' * (tot - 10 - len(d) - 1) + '\n').encode()
with open(sys.argv[1], 'wb') as f:
    f.write(b'\x93NUMPY\x01\x00' + len(hdr).to_bytes(2, 'little') + hdr)
    blob = a.tobytes()
    for _ in range(64):
        f.write(blob)
PY
cat "$IN" >/dev/null # page cache warm
# Timing in python3 (perf_counter wall, getrusage CPU of the child), each
# command REPS times interleaved with the others, best wall time kept.
python3 - "$MXSIM" "$IN" "$DIR" "$REPS" <<'PY'
import os, resource, subprocess, sys, time
mxsim, inp, d, reps = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
out = os.path.join(d, 'out.npy')
cmds = [
    ('cp', ['cp', inp, out]),
    ('mxsim quant --format mxfp8_e4m3', [mxsim, 'quant', '--format', 'mxfp8_e4m3', inp, out]),
    ('mxsim quant --format mxsf', [mxsim, 'quant', '--format', 'mxsf', inp, out]),
    ('mxsim quant --format mxfp8_e4m3 --codes --scales',
     [mxsim, 'quant', '--format', 'mxfp8_e4m3', '--codes', os.path.join(d, 'out.c.npy'),
      '--scales', os.path.join(d, 'out.s.npy'), inp, out]),
    ('  the same, 1 thread',
     [mxsim, 'quant', '--format', 'mxfp8_e4m3', '--codes', os.path.join(d, 'out.c.npy'),
      '--scales', os.path.join(d, 'out.s.npy'), inp, out]),
]
one_thread = dict(os.environ, MXSIM_QUANT_THREADS='1')
best = {}
for _ in range(reps):
    for label, cmd in cmds:
        for f in os.listdir(d):
            if f.startswith('out'):
                os.unlink(os.path.join(d, f))
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        rc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            env=one_thread if label.endswith('1 thread') else None).returncode
        w = time.perf_counter() - t0
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        if rc != 0:
            sys.exit('bench_quant: %s failed (exit %d)' % (' '.join(cmd), rc))
        c = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
        if label not in best or w < best[label][0]:
            best[label] = (w, c)
nbytes = os.path.getsize(inp)
print('bench_quant: %d-byte (64 MiB) float32 .npy, best of %d interleaved runs; cp of the same file in the same run '
      '(machine load shows in both columns); %d online CPUs, load average %.2f'
      % (nbytes, reps, os.cpu_count() or 1, os.getloadavg()[0]))
cpw = best['cp'][0]
for label, _ in cmds:
    w, c = best[label]
    print('%-50s %7.1f ms wall %7.1f ms cpu %6.2f GB/s  %5.2fx cp speed'
          % (label, w * 1e3, c * 1e3, nbytes / w / 1e9, cpw / w))
PY
