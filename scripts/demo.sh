#!/usr/bin/env bash
# Set up, build and run the demo: the viewer on a 20-row pyramid of boxes. With a display it opens
# a window (H for help); without one it runs headless under Xvfb, writes a PNG and prints a summary.
# Another scene: bash scripts/demo.sh assets/scenes/ellipsoid_pile500.json
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/deps.sh
cmake -S . -B build/release -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCN_BUILD_TESTS=OFF > /dev/null
cmake --build build/release -j"$(nproc)"

scene="${1:-assets/scenes/pyramid20.json}"
viewer=build/release/demos/viewer/cairn-viewer
if [ -n "${DISPLAY:-}" ] && [ -z "${CI:-}" ]; then
    "$viewer" "$scene"
else
    png=build/release/demo.png
    xvfb-run -a -s "-screen 0 1280x720x24" "$viewer" "$scene" --headless --frames 240 --screenshot "$png" \
        --report build/release/demo.report.json
    echo "picture: $png"
fi
