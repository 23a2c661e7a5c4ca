#!/usr/bin/env python3
"""mk/bench_numpy.py -- the numpy FP32 matmul baseline of `make bench`
(bench/bench_func.c runs it): A (256 x 1024) @ B (1024 x 256), the shape of
the functional-mode figures, best of 7 runs.  Prints one line:
'<MAC/s per CPU-second> <MAC/s of wall time> <numpy version> <C[7]>'.
The thread count is the caller's (OPENBLAS_NUM_THREADS / OMP_NUM_THREADS,
set before numpy loads)."""
import sys
import time

import numpy as np

M, N, K = 256, 256, 1024
rng = np.random.default_rng(7)
a = (rng.random((M, K), dtype=np.float32) - 0.5).astype(np.float32)
b = (rng.random((K, N), dtype=np.float32) - 0.5).astype(np.float32)
c = a @ b  # warm up (library load, thread pool)
best_cpu = best_wall = 0.0
for _ in range(7):
    c0, w0 = time.process_time(), time.perf_counter()
    c = a @ b
    dc, dw = time.process_time() - c0, time.perf_counter() - w0
    best_cpu = max(best_cpu, M * N * K / max(dc, 1e-9))
    best_wall = max(best_wall, M * N * K / max(dw, 1e-9))
print("%.6g %.6g %s %g" % (best_cpu, best_wall, np.__version__, float(c.flat[7])))
sys.exit(0)
