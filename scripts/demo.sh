#!/usr/bin/env bash
# Set up, build and run the demo: a box spun about its intermediate axis tumbles over and over
# (the tennis-racket effect), run headless by the cairn tool, which prints its summary.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/deps.sh
cmake -S . -B build/release -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCN_BUILD_TESTS=OFF > /dev/null
cmake --build build/release -j"$(nproc)"

report=build/release/tennis_racket.report.json
./build/release/demos/cairn run assets/scenes/tennis_racket.json --steps 1800 --report "$report" \
    --trace build/release/tennis_racket.trace.csv
echo "report: $report"
