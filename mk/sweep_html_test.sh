#!/bin/sh
# mk/sweep_html_test.sh MXSIM WORKDIR — a sweep's index.html in a real
# browser (issue 9): headless Chromium loads it from disk (no network); the
# DOM after the load event must hold one table row per point x trace (the
# CSV's data lines) and every image must have loaded (the page's script
# counts images with a natural width into <body data-images-loaded>).  The
# screenshot stays in WORKDIR/index.png.  Exit 0 pass, 1 fail, 77 no Chromium.
set -u
MXSIM=$(readlink -f "$1")
mkdir -p "$2"; W=$(cd "$2" && pwd)
SRC=$(cd "$(dirname "$0")/.." && pwd)
. "$SRC/mk/headless_chromium.sh"
need_chromium test-sweep-html
rm -rf "$W/sweep"
"$MXSIM" sweep -c "$SRC/configs/mxsf.yaml" -t "$SRC/traces/tiny_train.csv" -t "$SRC/traces/llama_decoder_infer.csv" \
  --grid arch.rows=8,16,32,0 --grid memory.dram=hbm2,lpddr4_2400 -o "$W/sweep" --no-progress >"$W/sweep.log" 2>&1 \
  || { echo "test-sweep-html: FAIL: the sweep failed"; cat "$W/sweep.log"; exit 1; }
run() { chromium_page "$W" "file://$W/sweep/index.html" "$@"; }
run --dump-dom > "$W/dom.html" || { echo "test-sweep-html: FAIL: chromium --dump-dom failed"; tail -5 "$W/chromium.log"; exit 1; }
run --screenshot="$W/index.png" --window-size=1280,2400 >/dev/null
want=$(($(wc -l < "$W/sweep/sweep.csv") - 1))
rows=$(grep -o '<tr class="row' "$W/dom.html" | wc -l)
imgs=$(sed -n 's/.*<body[^>]* data-images="\([0-9]*\)".*/\1/p' "$W/dom.html")
loaded=$(sed -n 's/.*<body[^>]* data-images-loaded="\([0-9]*\)".*/\1/p' "$W/dom.html")
fail=0
[ "$rows" = "$want" ] || { echo "test-sweep-html: FAIL: $rows table rows in the DOM, sweep.csv has $want"; fail=1; }
[ -n "$imgs" ] && [ "$imgs" -gt 0 ] && [ "$imgs" = "$loaded" ] || { echo "test-sweep-html: FAIL: images loaded: ${loaded:-none} of ${imgs:-none}"; fail=1; }
[ -s "$W/index.png" ] || { echo "test-sweep-html: FAIL: no screenshot"; fail=1; }
[ $fail = 0 ] && echo "test-sweep-html: PASS (headless $(chromium_version): $rows table rows = sweep.csv rows, $loaded/$imgs images loaded; screenshot $W/index.png)"
exit $fail
