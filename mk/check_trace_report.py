#!/usr/bin/env python3
"""check_trace_report.py TRACE.csv REPORT_DIR STDERR_FILE R C L MODE

What `make test-arch-traces` checks of one `mxsim run` of a shipped trace,
from the trace file and first principles rather than from mxsim's own code:
  - the report has one row per trace row, in order, with the trace's name,
    phase, M, N, K and count; MACs = M*N*K*count;
  - cycles >= MACs / (R*C*L) (the array's peak) and utilization equals
    MACs / (cycles*R*C*L);
  - a row's energy is the sum of its components; the totals are the sums of
    the rows (cycles, MACs, energy, each component);
  - functional mode: every computed row has a QSNR above 20 dB and at least
    one checked output;
  - stderr holds nothing but notes ("note:" lines).
Prints one line per failure and exits 1, else nothing and 0."""
import csv, json, math, sys

trace, rdir, errf, R, C, L, mode = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6]), sys.argv[7]
bad = []
def fail(msg):
    bad.append(f"{trace}: {mode}: {msg}")

rows = []
with open(trace) as f:
    lines = [l for l in f if l.strip() and not l.lstrip().startswith('#')]
for r in csv.DictReader(lines):
    rows.append(r)
rep = json.load(open(rdir + "/report.json"))
g = rep["gemms"]
if len(g) != len(rows):
    fail(f"{len(g)} report rows for {len(rows)} trace rows")
peak = R * C * L
tot = {"cycles": 0, "macs": 0, "energy_pj": 0.0}
comp_tot = {}
for i, (t, x) in enumerate(zip(rows, g)):
    where = f"row {i + 1} ({t['name']} {t['phase']})"
    for k in ("name", "phase"):
        if str(x[k]) != t[k].strip():
            fail(f"{where}: {k} {x[k]!r} != trace {t[k]!r}")
    M, N, K = int(t["M"]), int(t["N"]), int(t["K"])
    cnt = int(t.get("count") or 1)
    for k, v in (("M", M), ("N", N), ("K", K), ("count", cnt)):
        if int(x[k]) != v:
            fail(f"{where}: {k} {x[k]} != trace {v}")
    macs = M * N * K * cnt
    if int(x["macs"]) != macs:
        fail(f"{where}: macs {x['macs']} != M*N*K*count {macs}")
    cyc = int(x["cycles"])
    if cyc * peak < macs:
        fail(f"{where}: {cyc} cycles < MACs / peak {macs / peak:.1f}")
    if cyc > 0 and not math.isclose(float(x["utilization"]), macs / (cyc * peak), rel_tol=1e-9):
        fail(f"{where}: utilization {x['utilization']} != {macs / (cyc * peak)}")
    comps = x["energy_by_component_pj"]
    if not math.isclose(sum(comps.values()), float(x["energy_pj"]), rel_tol=1e-9):
        fail(f"{where}: energy {x['energy_pj']} != sum of components {sum(comps.values())}")
    for k, v in comps.items():
        comp_tot[k] = comp_tot.get(k, 0.0) + float(v)
    tot["cycles"] += cyc
    tot["macs"] += macs
    tot["energy_pj"] += float(x["energy_pj"])
    if mode == "functional" and x.get("checked_outputs", 0) > 0:
        if not float(x["qsnr_db"]) > 20:
            fail(f"{where}: QSNR {x['qsnr_db']} dB")
T = rep["total"]
for k in ("cycles", "macs"):
    if int(T[k]) != tot[k]:
        fail(f"total {k} {T[k]} != sum of rows {tot[k]}")
if not math.isclose(float(T["energy_pj"]), tot["energy_pj"], rel_tol=1e-9):
    fail(f"total energy {T['energy_pj']} != sum of rows {tot['energy_pj']}")
for k, v in comp_tot.items():
    if not math.isclose(float(T["energy_by_component_pj"][k]), v, rel_tol=1e-9, abs_tol=1e-9):
        fail(f"total {k} energy {T['energy_by_component_pj'][k]} != sum of rows {v}")
if mode == "functional" and int(T.get("checked_outputs", 0)) < 1:
    fail("no output checked")
for l in open(errf):
    if l.strip() and "note:" not in l:
        fail(f"stderr: {l.strip()}")
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
