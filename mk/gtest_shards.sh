#!/bin/sh
# Runs a GoogleTest binary in SHARDS shards (GoogleTest's own sharding:
# GTEST_TOTAL_SHARDS / GTEST_SHARD_INDEX, each test in exactly one shard),
# JOBS of them at a time, then prints each shard's output whole, in shard
# order.  CI has two cores and `make test` runs the suites one after the
# other, so a single process left a core idle; more shards than jobs keep
# both cores busy when a few slow tests land in one shard (docs/DECISIONS.md).
# Exit status 0 only if every shard passed.
# usage: mk/gtest_shards.sh TESTBIN SHARDS JOBS [gtest options]
bin=$1
n=$2
jobs=$3
shift 3
dir=$(mktemp -d) || exit 2
trap 'rm -rf "$dir"' EXIT
export MXSIM_SHARD_BIN="$bin" MXSIM_SHARD_DIR="$dir" GTEST_TOTAL_SHARDS="$n"
i=0
while [ "$i" -lt "$n" ]; do echo "$i"; i=$((i + 1)); done |
    xargs -P "$jobs" -I{} sh -c 'GTEST_SHARD_INDEX={} "$MXSIM_SHARD_BIN" "$@" >"$MXSIM_SHARD_DIR/{}.log" 2>&1; echo $? >"$MXSIM_SHARD_DIR/{}.rc"' sh "$@"
rc=0
i=0
while [ "$i" -lt "$n" ]; do
    echo "== $bin: shard $i of $n"
    cat "$dir/$i.log"
    [ "$(cat "$dir/$i.rc" 2>/dev/null)" = 0 ] || rc=1
    i=$((i + 1))
done
exit $rc
