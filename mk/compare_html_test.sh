#!/bin/sh
# mk/compare_html_test.sh MXSIM WORKDIR — `mxsim run --compare -o`'s
# index.html in a real browser (issue 9): headless Chromium loads it from
# disk (no network).  After the load event the page's script has parsed the
# embedded compare data (<script id="compare-data">, the compare.json object)
# and recorded in <body>: the bars drawn (data-bars; 2 per energy component),
# how many carry exactly the data's value (data-bars-match) and how many have
# a rendered width (data-bars-drawn; a zero value may have none), and the
# table's rows (data-rows: components + total + cycles + 2 ratios).  The
# screenshot stays in WORKDIR/index.png.  Exit 0 pass, 1 fail, 77 no Chromium.
set -u
MXSIM=$(readlink -f "$1")
mkdir -p "$2"; W=$(cd "$2" && pwd)
SRC=$(cd "$(dirname "$0")/.." && pwd)
. "$SRC/mk/headless_chromium.sh"
need_chromium test-compare-html
rm -rf "$W/cmp"
"$MXSIM" run -c "$SRC/configs/mxsf.yaml" --compare "$SRC/configs/bf16.yaml" -t "$SRC/traces/llama_decoder_infer.csv" \
  --no-sensitivity -q -o "$W/cmp" >"$W/run.log" 2>&1 \
  || { echo "test-compare-html: FAIL: mxsim run --compare failed"; cat "$W/run.log"; exit 1; }
run() { chromium_page "$W" "file://$W/cmp/index.html" "$@"; }
run --dump-dom > "$W/dom.html" || { echo "test-compare-html: FAIL: chromium --dump-dom failed"; tail -5 "$W/chromium.log"; exit 1; }
run --screenshot="$W/index.png" --window-size=1100,1300 >/dev/null
attr() { sed -n "s/.*<body[^>]* data-$1=\"\([0-9]*\)\".*/\1/p" "$W/dom.html"; }
ncomp=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["a"]["energy_by_component_pj"]))' "$W/cmp/compare.json")
bars=$(attr bars); match=$(attr bars-match); drawn=$(attr bars-drawn); rows=$(attr rows); comps=$(attr components)
fail=0
[ "$comps" = "$ncomp" ] || { echo "test-compare-html: FAIL: the page's data has ${comps:-no} components, compare.json $ncomp"; fail=1; }
[ "$bars" = $((2 * ncomp)) ] || { echo "test-compare-html: FAIL: ${bars:-no} bars, want 2 x $ncomp"; fail=1; }
[ -n "$match" ] && [ "$match" = "$bars" ] || { echo "test-compare-html: FAIL: ${match:-no} of $bars bars carry compare.json's value"; fail=1; }
[ -n "$drawn" ] && [ "$drawn" = "$bars" ] || { echo "test-compare-html: FAIL: ${drawn:-no} of $bars bars rendered"; fail=1; }
[ "$rows" = $((ncomp + 4)) ] || { echo "test-compare-html: FAIL: ${rows:-no} table rows, want $ncomp components + 4"; fail=1; }
[ -s "$W/index.png" ] || { echo "test-compare-html: FAIL: no screenshot"; fail=1; }
[ $fail = 0 ] && echo "test-compare-html: PASS (headless $(chromium_version): $bars bars = 2 x $ncomp components, all equal to compare.json and rendered; $rows table rows; screenshot $W/index.png)"
exit $fail
