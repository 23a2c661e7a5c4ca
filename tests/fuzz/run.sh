#!/bin/sh
# Runs the libFuzzer harnesses (mk/fuzz.mk, docs/FUZZ.md).
# usage: run.sh test|fuzz SECONDS JOBS FUZZ_DIR NAME...
#   test: replays tests/fuzz/regress/NAME/* once each, then fuzzes each NAME
#         SECONDS from the seed corpus only (fresh work corpus, -seed=1) and
#         stops at the first finding.
#   fuzz: fuzzes each NAME SECONDS in fork mode, keeping FUZZ_DIR/corpus/NAME
#         and going on after findings (-ignore_crashes/timeouts/ooms).
#         (coverage figures of fork mode count differently from test mode's)
# Both: JOBS harnesses at a time; a finding is a crash (ASan/UBSan report or a
# harness check), a timeout (> 1 s for one input), a leak or an OOM (> 2 GB);
# findings are left in FUZZ_DIR/artifacts/NAME/.  Exit 1 if any.
set -u
MODE=$1 SECS=$2 JOBS=$3 FD=$4
shift 4
SRC=tests/fuzz
mkdir -p "$FD/logs"
: > "$FD/logs/summary"
# ASan: leaks are findings; UBSan: stack traces in the report
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1}"

# the largest input each harness is given (bytes)
max_len() {
    case $1 in
        npy) echo 8192 ;;
        trace) echo 8192 ;;
        config) echo 8192 ;;
        *) echo 4096 ;;
    esac
}

# prints the sanitizer's (or libFuzzer's) first lines of a report in a log
# (a harness's own check prints "fuzz_NAME: ..." before it aborts)
first_lines() {
    grep -m2 -E '^fuzz_[a-z_]+: ' "$1" | sed 's/^/    /'
    grep -m1 -A30 -E '==ERROR|runtime error|ALARM: working on the last Unit|out-of-memory|deadly signal|LeakSanitizer' "$1" |
        grep -v -E '^(MS:|base64:|artifact_prefix|Test unit written|NOTE:|SUMMARY: libFuzzer)|fuzzer::|in main |libc\.so|libc_start|in _start |Combine libFuzzer|in abort |in raise |pthread_kill|__sanitizer_print_stack_trace|^ *$' |
        sed -E 's/ \(BuildId: [0-9a-f]+\)//; s/^/    /' | head -12
}

replay() { # NAME: each reproducer once; prints one line per failing file
    name=$1 bin=$FD/fuzz_$1 bad=0
    for f in "$SRC/regress/$name"/*; do
        [ -f "$f" ] || continue
        case $f in *.md|*.txt) continue ;; esac
        log=$FD/logs/replay_$name.log
        if ! "$bin" -timeout=1 -rss_limit_mb=2048 -malloc_limit_mb=2048 "$f" > "$log" 2>&1; then
            echo "fuzz $name: regression input FAILS: $f"
            first_lines "$log"
            bad=1
        fi
    done
    return $bad
}

run_one() { # NAME
    name=$1 bin=$FD/fuzz_$1
    work=$FD/corpus/$name art=$FD/artifacts/$name log=$FD/logs/$name.log
    dict=""
    [ -f "$SRC/$name.dict" ] && dict="-dict=$SRC/$name.dict"
    rm -rf "$art" # this run's findings only
    if [ "$MODE" = test ]; then
        rm -rf "$work"
        extra="-seed=1"
    else
        extra="-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1"
    fi
    mkdir -p "$work" "$art"
    t0=$(date +%s)
    # shellcheck disable=SC2086
    "$bin" -max_total_time="$SECS" -timeout=1 -rss_limit_mb=2048 -malloc_limit_mb=2048 \
        -max_len="$(max_len "$name")" -close_fd_mask=3 -print_final_stats=1 -artifact_prefix="$art/" \
        $dict $extra "$work" "$SRC/corpus/$name" > "$log" 2>&1
    st=$?
    t=$(( $(date +%s) - t0 ))
    [ "$t" -gt 0 ] || t=1
    last=$(grep -E '^#[0-9]+.*cov:' "$log" | tail -1)
    execs=$(echo "$last" | sed -E 's/^#([0-9]+).*/\1/')
    cov=$(echo "$last" | sed -E 's/.*cov: ([0-9]+).*/\1/')
    ft=$(echo "$last" | sed -E 's/.*ft: ([0-9]+).*/\1/')
    corp=$(ls "$work" | wc -l)
    crashes=$(ls "$art" | grep -c '^crash-')
    timeouts=$(ls "$art" | grep -c '^timeout-')
    leaks=$(ls "$art" | grep -c '^leak-')
    ooms=$(ls "$art" | grep -c '^oom-')
    found=$((crashes + timeouts + leaks + ooms))
    line="fuzz $name: ${execs:-0} execs in $t s ($(( ${execs:-0} / t )) exec/s), cov ${cov:-?} ft ${ft:-?}, corpus $corp; crashes $crashes timeouts $timeouts leaks $leaks ooms $ooms"
    if [ "$found" -gt 0 ] || { [ "$MODE" = test ] && [ "$st" -ne 0 ]; }; then
        line="$line: FAILED (libFuzzer exit $st; log $log)"
        {
            echo "$line"
            # each finding replayed once with the readers' stderr open
            for a in "$art"/*; do
                [ -f "$a" ] || continue
                echo "    reproducer: $a"
                "$bin" -timeout=1 -rss_limit_mb=2048 -malloc_limit_mb=2048 "$a" > "$log.replay" 2>&1
                first_lines "$log.replay"
            done
            echo "    keep it: cp ARTIFACT $SRC/regress/$name/ (docs/FUZZ.md)"
        } > "$FD/logs/$name.summary"
    else
        echo "$line" > "$FD/logs/$name.summary"
    fi
}

fail=0
if [ "$MODE" = test ]; then
    for n in "$@"; do replay "$n" || fail=1; done
fi
n_run=0
for n in "$@"; do
    run_one "$n" &
    n_run=$((n_run + 1))
    if [ $n_run -ge "$JOBS" ]; then wait; n_run=0; fi
done
wait
for n in "$@"; do
    cat "$FD/logs/$n.summary"
    cat "$FD/logs/$n.summary" >> "$FD/logs/summary"
    grep -q FAILED "$FD/logs/$n.summary" && fail=1
done
echo "fuzz ($MODE, $SECS s per harness): $( [ $fail -eq 0 ] && echo PASS || echo FAIL )"
exit $fail
