#!/bin/sh
# Runs a GoogleTest binary in SHARDS shards (GoogleTest's own sharding:
# GTEST_TOTAL_SHARDS / GTEST_SHARD_INDEX, each test in exactly one shard),
# JOBS of them at a time, then prints each shard's output whole, in shard
# order.  CI has two cores and `make test` runs the suites one after the
# other, so a single process left a core idle; more shards than jobs keep
# both cores busy when a few slow tests land in one shard (docs/DECISIONS.md).
# GTEST_ALONE (a GoogleTest filter, e.g. Suite.Slow:Suite.Slower) names tests
# that run as a job of their own, started first, and leave the shards: a test
# that takes most of a suite's time (Validation.DocMatchesRegenerated, 200 s
# under ASan) then runs beside the shards instead of after one of them.
# Ignored when the options hold a --gtest_filter.
# Exit status 0 only if every job passed.
# usage: [GTEST_ALONE=FILTER] mk/gtest_shards.sh TESTBIN SHARDS JOBS [gtest options]
bin=$1
n=$2
jobs=$3
shift 3
alone=${GTEST_ALONE:-}
for o in "$@"; do case $o in --gtest_filter*) alone= ;; esac; done
dir=$(mktemp -d) || exit 2
trap 'rm -rf "$dir"' EXIT
export MXSIM_SHARD_BIN="$bin" MXSIM_SHARD_DIR="$dir" MXSIM_SHARD_N="$n" MXSIM_SHARD_ALONE="$alone"
unset GTEST_FILTER GTEST_TOTAL_SHARDS GTEST_SHARD_INDEX
{
    [ -n "$alone" ] && echo alone
    i=0
    while [ "$i" -lt "$n" ]; do echo "$i"; i=$((i + 1)); done
} | xargs -P "$jobs" -I{} sh -c '
    j=$1; shift
    if [ "$j" = alone ]; then
        GTEST_FILTER="$MXSIM_SHARD_ALONE" "$MXSIM_SHARD_BIN" "$@"
    elif [ -n "$MXSIM_SHARD_ALONE" ]; then
        GTEST_FILTER="-$MXSIM_SHARD_ALONE" GTEST_TOTAL_SHARDS=$MXSIM_SHARD_N GTEST_SHARD_INDEX=$j "$MXSIM_SHARD_BIN" "$@"
    else
        GTEST_TOTAL_SHARDS=$MXSIM_SHARD_N GTEST_SHARD_INDEX=$j "$MXSIM_SHARD_BIN" "$@"
    fi >"$MXSIM_SHARD_DIR/$j.log" 2>&1
    echo $? >"$MXSIM_SHARD_DIR/$j.rc"' sh {} "$@"
rc=0
for j in $([ -n "$alone" ] && echo alone) $(seq 0 $((n - 1))); do
    if [ "$j" = alone ]; then echo "== $bin: $alone, alone"; else echo "== $bin: shard $j of $n"; fi
    cat "$dir/$j.log"
    [ "$(cat "$dir/$j.rc" 2>/dev/null)" = 0 ] || rc=1
    if [ "$j" = alone ] && ! grep -Eq '^\[  (PASSED|FAILED)  \] [1-9]' "$dir/$j.log"; then
        echo "gtest_shards: GTEST_ALONE=$alone matches no test"; rc=1
    fi
done
exit $rc
