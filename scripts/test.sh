#!/usr/bin/env bash
# Set up, build and run the whole test suite, twice: a Debug build under AddressSanitizer and
# UndefinedBehaviorSanitizer, then an optimized build with asserts on. Warnings are errors.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/deps.sh
jobs="$(nproc)"

echo "== debug + AddressSanitizer + UndefinedBehaviorSanitizer"
cmake -S . -B build/asan -DCMAKE_BUILD_TYPE=Debug -DCN_SANITIZE=ON -DCN_WARNINGS_AS_ERRORS=ON > /dev/null
cmake --build build/asan -j"$jobs"
ctest --test-dir build/asan --output-on-failure -j"$jobs"

echo "== optimized (RelWithDebInfo, asserts on)"
cmake -S . -B build/rel -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCN_WARNINGS_AS_ERRORS=ON > /dev/null
cmake --build build/rel -j"$jobs"
ctest --test-dir build/rel --output-on-failure -j"$jobs"
