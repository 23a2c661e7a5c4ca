#!/bin/sh
# mk/install_test.sh MXSIM DESTROOT WORKDIR — the installed binary finds
# relative table paths in the installed data directory (issue 9).
# DESTROOT is a `make install DESTDIR=DESTROOT PREFIX=/opt/mxsim` tree.  Files
# that exist only there (copies of the shipped energy table and HBM2 preset
# under new names, not in the source tree the binary was built from) are named
# relative in a config outside it, run from a third directory:
#   1. found in DESTROOT/opt/mxsim/share/mxsim/configs (report.json names it;
#      the DRAM is the copy's), and the figures equal a run of the build tree's
#      binary on the same tables given by absolute path;
#   2. a table next to the config comes first;
#   3. a table found nowhere: one line naming energy.table and the places
#      looked, exit 2;
#   4. a sweep file outside the tree naming `base: mxsf.yaml` and
#      `traces/tiny_train.csv` finds both in the data directory.
set -u
MXSIM=$(readlink -f "$1"); ROOT=$(readlink -f "$2"); mkdir -p "$3"; W=$(cd "$3" && pwd)
SRC=$(cd "$(dirname "$0")/.." && pwd)
BIN=$ROOT/opt/mxsim/bin/mxsim DATA=$ROOT/opt/mxsim/share/mxsim
fail=0
no() { echo "test-install: FAIL: $*"; fail=1; }
[ -x "$BIN" ] && [ -f "$DATA/configs/energy/horowitz45.yaml" ] && [ -f "$DATA/traces/tiny_train.csv" ] || { no "not installed under $ROOT"; exit 1; }
cp "$DATA/configs/energy/horowitz45.yaml" "$DATA/configs/energy/only_installed.yaml"
sed 's/^name: .*/name: HBM2-installed-copy/' "$DATA/configs/dram/hbm2.yaml" > "$DATA/configs/dram/only_installed.yaml"
rm -rf "$W/cfg" "$W/elsewhere" "$W/ref"; mkdir -p "$W/cfg" "$W/elsewhere"
# the config: mxsf.yaml with its two table keys relative and pointing at the installed-only copies
sed -e 's|^  table: .*|  table: energy/only_installed.yaml|' -e 's|^  dram: hbm2 .*|  dram: only_installed|' "$SRC/configs/mxsf.yaml" > "$W/cfg/my.yaml"
sed -e "s|^  table: .*|  table: $SRC/configs/energy/horowitz45.yaml|" -e "s|^  dram: hbm2 .*|  dram: $SRC/configs/dram/hbm2.yaml|" "$SRC/configs/mxsf.yaml" > "$W/cfg/abs.yaml"
grep -q 'only_installed$' "$W/cfg/my.yaml" || no "could not write the test config"
# 1
(cd "$W/elsewhere" && "$BIN" run -c ../cfg/my.yaml -t "$DATA/traces/tiny_train.csv" -o out -q --engine cycle) > "$W/run1.log" 2>&1 || { no "installed run failed: $(cat "$W/run1.log")"; }
"$MXSIM" run -c "$W/cfg/abs.yaml" -t "$SRC/traces/tiny_train.csv" -o "$W/ref" -q --engine cycle > /dev/null 2>&1 || no "reference run failed"
python3 - "$W/elsewhere/out/report.json" "$W/ref/report.json" "$DATA" <<'PY' || fail=1
import json, os, sys
a, b, data = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3]
ok = True
def check(c, m):
    global ok
    if not c: print("test-install: FAIL:", m); ok = False
check(os.path.realpath(a["energy_table"]) == os.path.realpath(data + "/configs/energy/only_installed.yaml"), "energy table " + a["energy_table"])
check(a["dram"]["name"] == "HBM2-installed-copy", "DRAM " + a["dram"]["name"])
check(a["total"]["cycles"] == b["total"]["cycles"], "cycles %s vs %s" % (a["total"]["cycles"], b["total"]["cycles"]))
check(a["total"]["energy_by_component_pj"] == b["total"]["energy_by_component_pj"], "energy by component differs")
sys.exit(0 if ok else 1)
PY
# 2: next to the config first (a copy with another dram_64b: the report names it)
mkdir -p "$W/cfg/energy" && cp "$DATA/configs/energy/only_installed.yaml" "$W/cfg/energy/only_installed.yaml"
(cd "$W/elsewhere" && "$BIN" run -c ../cfg/my.yaml -t "$DATA/traces/tiny_train.csv" -o out2 -q) > /dev/null 2>&1 || no "run with a local table failed"
grep -q "\"energy_table\": \"../cfg/energy/only_installed.yaml\"" "$W/elsewhere/out2/report.json" || no "the table next to the config did not come first: $(grep energy_table "$W/elsewhere/out2/report.json")"
rm -r "$W/cfg/energy"
# 3
sed 's|only_installed.yaml|nowhere.yaml|' "$W/cfg/my.yaml" > "$W/cfg/bad.yaml"
(cd "$W/elsewhere" && "$BIN" run -c ../cfg/bad.yaml -t "$DATA/traces/tiny_train.csv" -o out3 -q) > "$W/out3.log" 2>&1; rc=$?
[ $rc = 2 ] || no "a table found nowhere: exit $rc, want 2"
[ "$(wc -l < "$W/out3.log")" = 1 ] && grep -q "key 'energy.table': no file 'energy/nowhere.yaml' (looked for ../cfg/energy/nowhere.yaml, $DATA/configs/energy/nowhere.yaml" "$W/out3.log" \
  || no "a table found nowhere: message '$(cat "$W/out3.log")'"
[ ! -e "$W/elsewhere/out3" ] || no "a table found nowhere: out3 written"
# 4
printf 'base: mxsf.yaml\ntraces: [traces/tiny_train.csv]\ngrid:\n  arch.lanes: [4, 8]\n' > "$W/cfg/study.yaml"
(cd "$W/elsewhere" && "$BIN" sweep -s ../cfg/study.yaml -o sw --no-progress) > "$W/sweep.log" 2>&1 || no "sweep from the data directory failed: $(tail -2 "$W/sweep.log")"
[ "$(grep -c ',ok,' "$W/elsewhere/sw/sweep.csv" 2>/dev/null)" = 2 ] || no "sweep: want 2 ok rows"
grep -q "\"base\": \"$DATA/configs/mxsf.yaml\"" "$W/elsewhere/sw/sweep.json" || no "sweep base not the installed mxsf.yaml: $(grep base "$W/elsewhere/sw/sweep.json")"
[ $fail = 0 ] && echo "test-install: PASS (DESTDIR install: relative energy table and DRAM preset found in $DATA from another directory, figures equal the build tree's; next-to-config first; not found: one line, exit 2; a sweep file found base and trace there)"
exit $fail
