#!/usr/bin/env python3
"""main_job_golden.py check|write GOLDEN RUN_DIR

Pins the main job's figures (`make run`: BERT-base training step, MXSF vs
BF16, cycle engine, HBM2) against a reviewed golden file, tests/golden/
main_job.json: for each design the total cycles (exact), the energy of each
component and the total (relative tolerance 1e-9: the run is deterministic,
the tolerance only absorbs the decimal printing of doubles), and the
MXSF/BF16 total-energy ratio recomputed here from the two totals.

A model change that moves these figures fails `make test` until a person
has looked at the difference and regenerated the golden with
`make golden-main-job` (it prints old -> new for every figure); commit the
new file with a message saying why the figures moved (docs/CONTRIBUTING.md)."""
import json, math, sys

TOL = 1e-9
what, golden, run = sys.argv[1], sys.argv[2], sys.argv[3]

def figures(run):
    out = {}
    for name in ("mxsf", "bf16"):
        r = json.load(open(f"{run}/{name}/report.json"))
        t = r["total"]
        out[name] = {"engine": r["engine"], "mode": r["mode"], "dram": r["dram"]["name"], "cycles": t["cycles"],
                     "energy_pj": t["energy_pj"], "energy_by_component_pj": t["energy_by_component_pj"]}
    out["ratio_total_energy"] = out["mxsf"]["energy_pj"] / out["bf16"]["energy_pj"]
    return out

new = figures(run)
if what == "write":
    try:
        old = json.load(open(golden))
    except (OSError, ValueError):
        old = None
    if old:
        for n in ("mxsf", "bf16"):
            print(f"{n}: cycles {old[n]['cycles']} -> {new[n]['cycles']}, energy {old[n]['energy_pj']:.6g} -> {new[n]['energy_pj']:.6g} pJ")
        print(f"ratio {old['ratio_total_energy']:.6f} -> {new['ratio_total_energy']:.6f}")
    with open(golden + ".tmp", "w") as f:
        json.dump(new, f, indent=1, sort_keys=True)
        f.write("\n")
    import os
    os.replace(golden + ".tmp", golden)
    sys.exit(0)

old = json.load(open(golden))
bad = []
for n in ("mxsf", "bf16"):
    for k in ("engine", "mode", "dram", "cycles"):
        if old[n][k] != new[n][k]:
            bad.append(f"{n} {k}: golden {old[n][k]}, now {new[n][k]}")
    if not math.isclose(old[n]["energy_pj"], new[n]["energy_pj"], rel_tol=TOL):
        bad.append(f"{n} energy_pj: golden {old[n]['energy_pj']}, now {new[n]['energy_pj']}")
    for k, v in old[n]["energy_by_component_pj"].items():
        if not math.isclose(v, new[n]["energy_by_component_pj"].get(k, float("nan")), rel_tol=TOL, abs_tol=1e-6):
            bad.append(f"{n} {k} energy: golden {v}, now {new[n]['energy_by_component_pj'].get(k)}")
    if set(old[n]["energy_by_component_pj"]) != set(new[n]["energy_by_component_pj"]):
        bad.append(f"{n}: energy components differ")
if not math.isclose(old["ratio_total_energy"], new["ratio_total_energy"], rel_tol=TOL):
    bad.append(f"MXSF/BF16 ratio: golden {old['ratio_total_energy']:.6f}, now {new['ratio_total_energy']:.6f}")
# derived, not pinned: both designs charge the same leakage per PE per cycle
# and the same FP32 accumulators (SPEC §5), so leakage scales with cycles and
# the accumulator energy is equal
m, b = new["mxsf"], new["bf16"]
lr = m["energy_by_component_pj"]["leakage"] / b["energy_by_component_pj"]["leakage"]
if not math.isclose(lr, m["cycles"] / b["cycles"], rel_tol=1e-6):
    bad.append(f"leakage ratio {lr:.9f} != cycles ratio {m['cycles'] / b['cycles']:.9f}")
if not math.isclose(m["energy_by_component_pj"]["accum"], b["energy_by_component_pj"]["accum"], rel_tol=1e-12):
    bad.append("accumulator energy differs between the designs")
for b in bad:
    print(f"main job ({golden}): {b}")
if bad:
    print("main job: figures moved; if intended, review and run `make golden-main-job` (docs/CONTRIBUTING.md)")
sys.exit(1 if bad else 0)
