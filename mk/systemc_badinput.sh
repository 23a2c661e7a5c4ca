#!/bin/sh
# Hostile input of the SystemC example top (issue 10): each case must end with
# exit status 2, exactly one stderr line without control characters, and no
# output file.  mxsim_sc_top needs the Verilated RTL, so these run in
# test-systemc rather than in tests/badinput/*.tsv (make test-fast).
# usage: mk/systemc_badinput.sh MXSIM_SC_TOP
top=$1
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
mkdir "$t/dir"
printf 'arch:\n  rows: 4\narch:\n  rows: 4\n' > "$t/dup.yaml"
fail=0
n=0
check() { # name words... -- args...
  name=$1; shift
  words=""
  while [ "$1" != "--" ]; do words="$words
$1"; shift; done
  shift
  n=$((n + 1))
  SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1 timeout 20 "$top" "$@" >"$t/out" 2>"$t/err"
  st=$?
  lines=$(wc -l < "$t/err")
  bad=""
  [ "$st" -eq 2 ] || bad="$bad exit $st;"
  [ "$lines" -eq 1 ] || bad="$bad $lines stderr lines;"
  if LC_ALL=C grep -q '[[:cntrl:]]' "$t/err"; then bad="$bad control characters;"; fi
  echo "$words" | while read -r w; do
    [ -z "$w" ] || grep -qiF -- "$w" "$t/err" || echo "missing '$w'"
  done > "$t/miss"
  [ -s "$t/miss" ] && bad="$bad $(tr '\n' ' ' < "$t/miss");"
  [ -e "$t/o.dump" ] && bad="$bad output written;"
  if [ -n "$bad" ]; then echo "systemc-badinput: $name:$bad $(head -c 300 "$t/err")"; fail=1; fi
  rm -f "$t/o.dump"
}
tr=tests/systemc/sc_small.csv
check config_is_directory "not a regular file" -- -c "$t/dir" -t $tr --dump "$t/o.dump"
check config_dev_zero "not a regular file" -- -c /dev/zero -t $tr --dump "$t/o.dump"
check config_duplicate_section "duplicate key" "arch" -- -c "$t/dup.yaml" -t $tr --dump "$t/o.dump"
check seed_negative "--seed" -- -c tests/systemc/sc_mxsf.yaml -t $tr --seed -1 --dump "$t/o.dump"
check dump_missing_dir "--dump" -- -c tests/systemc/sc_mxsf.yaml -t $tr --dump "$t/nodir/o.dump"
check unknown_option "--bogus" -- -c tests/systemc/sc_mxsf.yaml -t $tr --bogus 1
[ $fail -eq 0 ] && echo "systemc-badinput: mxsim_sc_top: $n hostile inputs refused (exit 2, one line, nothing written)"
exit $fail
