#!/usr/bin/env bash
# Runs every test of a built tree ($BUILD_DIR, default: build): the lit suites
# (test/ and examples/) and the GoogleTest suite, then prints one summary.
# Exits non-zero when any test fails. TILE_FUZZ_SECONDS sets the fuzzer's
# budget (test/Tools/fuzz.test; default 60).
set -uo pipefail
cd "$(dirname "$0")/.."
build_dir=${BUILD_DIR:-build}
results=$(mktemp -d)
trap 'rm -rf "$results"' EXIT

/usr/lib/llvm-22/bin/lit -sv --xunit-xml-output="$results/lit.xml" \
  --param fuzz_seconds="${TILE_FUZZ_SECONDS:-60}" \
  "$build_dir/test" "$build_dir/examples"
lit_status=$?

"$build_dir/unittests/TileUnitTests" --gtest_brief=1 \
  --gtest_output="xml:$results/gtest.xml"
gtest_status=$?

python3 scripts/summarize-tests.py "$results/lit.xml" "$results/gtest.xml"
summary_status=$?

[ $lit_status -eq 0 ] && [ $gtest_status -eq 0 ] && [ $summary_status -eq 0 ]
