#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Whole-step cost of two cairn builds side by side, in one run (tests/bench/README.md).

Runs `cairn run SCENE --steps N --report FILE` with build A and build B in turn (A B A B ...), so
that both see the same machine at the same time, and reads each run's `cpu_ms_per_step` and
`wall_ms_per_step` from its report. Prints one CSV row per scene and build (minimum, median and
maximum over the rounds) and the median of the A/B ratios taken pair by pair.

    python3 tests/bench/step_compare.py --a build/rel/demos/cairn --b ../before/build/rel/demos/cairn \
        --scene assets/scenes/pyramid20.json --scene assets/scenes/pile1000.json --rounds 5

--a-args / --b-args add arguments to one build's runs (e.g. --a-args "--set world.substeps=1").
Standard library only; exits 1 when a run fails or its report lacks the figures.
"""

import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile


def run_once(cairn, scene, steps, extra, report):
    command = [cairn, "run", scene, "--steps", str(steps), "--report", report] + extra
    result = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if result.returncode != 0:
        sys.exit(f"step_compare: {' '.join(command)} exited {result.returncode}: {result.stderr.strip()}")
    with open(report, encoding="utf-8") as file:
        data = json.load(file)
    try:
        return float(data["cpu_ms_per_step"]), float(data["wall_ms_per_step"]), data.get("substeps", 1)
    except (KeyError, TypeError, ValueError):
        sys.exit(f"step_compare: {report} has no cpu_ms_per_step or wall_ms_per_step")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--a", required=True, help="the cairn tool of build A (the new one)")
    parser.add_argument("--b", required=True, help="the cairn tool of build B (the baseline)")
    parser.add_argument("--a-label", default="after")
    parser.add_argument("--b-label", default="before")
    parser.add_argument("--a-args", default="", help="extra arguments for A's runs, one string")
    parser.add_argument("--b-args", default="", help="extra arguments for B's runs, one string")
    parser.add_argument("--scene", action="append", required=True, help="a scene file (repeatable)")
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=5)
    options = parser.parse_args()
    if options.steps < 1 or options.rounds < 1:
        sys.exit("step_compare: --steps and --rounds must be at least 1")

    builds = [
        (options.a_label, options.a, shlex.split(options.a_args)),
        (options.b_label, options.b, shlex.split(options.b_args)),
    ]
    print("scene,build,steps,substeps,rounds,cpu_ms_per_step_min,cpu_ms_per_step_median,cpu_ms_per_step_max,"
          "wall_ms_per_step_median,cpu_ratio_a_over_b_median")
    with tempfile.TemporaryDirectory() as work:
        report = os.path.join(work, "report.json")
        for scene in options.scene:
            cpu = {label: [] for label, _, _ in builds}
            wall = {label: [] for label, _, _ in builds}
            substeps = {}
            for _ in range(options.rounds):
                for label, cairn, extra in builds:
                    c, w, s = run_once(cairn, scene, options.steps, extra, report)
                    cpu[label].append(c)
                    wall[label].append(w)
                    substeps[label] = s
            ratios = [a / b for a, b in zip(cpu[options.a_label], cpu[options.b_label]) if b > 0.0]
            name = os.path.splitext(os.path.basename(scene))[0]
            for label, _, _ in builds:
                values = cpu[label]
                ratio = f"{statistics.median(ratios):.3f}" if label == options.a_label and ratios else ""
                print(f"{name},{label},{options.steps},{substeps[label]},{options.rounds},{min(values):.3f},"
                      f"{statistics.median(values):.3f},{max(values):.3f},{statistics.median(wall[label]):.3f},"
                      f"{ratio}")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
