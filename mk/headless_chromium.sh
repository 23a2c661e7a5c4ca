# mk/headless_chromium.sh — sourced by the browser tests (mk/*_html_test.sh):
# `need_chromium NAME` sets CHROMIUM or exits 77 (Debian's chromium absent:
# `make deps`); `chromium_page W URL ARGS...` loads URL headless with a
# profile in W, 5 s of virtual time for the load event, its log in
# W/chromium.log; `chromium_version` for the PASS line.
need_chromium() {
  CHROMIUM=$(command -v chromium || true)
  [ -n "$CHROMIUM" ] || { echo "$1: SKIP (no chromium: make deps)"; exit 77; }
}
chromium_page() {
  _w=$1 _url=$2; shift 2
  timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --user-data-dir="$_w/profile" \
    --virtual-time-budget=5000 "$@" "$_url" 2>>"$_w/chromium.log"
}
chromium_version() { "$CHROMIUM" --version 2>/dev/null | head -1; }
