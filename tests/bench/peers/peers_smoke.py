#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Smoke test of one peer driver (ctest bench_peers_smoke_bullet, bench_peers_smoke_ode).

    python3 peers_smoke.py DRIVER smoke.json REPORT.json

Runs the driver for 30 steps of 1/60 s on smoke.json and checks its report against closed forms:

- the box at rest on the ground stays within 1 cm of where it started;
- the box sliding at 5 m/s on friction sqrt(0.5 x 0.6) (Cairn's rule for combining materials) is
  where x(t) = v0 t - mu g t^2 / 2 puts it, within 5 cm (a first-order integrator is off by
  mu g t dt / 2 = 2.3 cm; Bullet's own rule, the product 0.3, would put it 30 cm further), and
  within 3 cm of its height (Bullet's box sinks about 2 cm while it slides);
- the capsule lying on its side on the static slab keeps its centre within 1 cm of 0.75 m (a
  capsule along the wrong local axis would stand in the slab and be thrown up);
- the sphere in free fall from 20 m is at 20 - g t^2 / 2 within g t dt / 2 + 2 mm (the
  integrator's first-order error) and moves at -g t within 1 cm/s;
- the report's figures agree with its final state;

then that a scene with a shape the drivers do not take (an ellipsoid) fails with exit code 1 and
a message that names the JSON path. Standard library only; exits 1 on any failure.
"""

import json
import math
import os
import subprocess
import sys
import tempfile

STEPS = 30
DT = 1.0 / 60.0
G = 9.81


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    driver, scene, report_path = sys.argv[1:]
    failures = []

    def check(ok, what):
        print(("ok    " if ok else "FAIL  ") + what)
        if not ok:
            failures.append(what)

    result = subprocess.run([driver, scene, "--steps", str(STEPS), "--report", report_path],
                            capture_output=True, text=True)
    sys.stdout.write(result.stdout)
    sys.stderr.write(result.stderr)
    if result.returncode != 0:
        sys.exit(f"peers_smoke: {driver} exited {result.returncode}")
    with open(report_path, encoding="utf-8") as file:
        report = json.load(file)
    bodies = {body.get("name"): body for body in report["final_state"]}
    t = STEPS * DT

    check(report["steps"] == STEPS and report["bodies"] == 6 and report["dynamic_bodies"] == 4,
          f"steps {report['steps']}, bodies {report['bodies']}, dynamic {report['dynamic_bodies']}")
    check(report["cpu_ms_per_step"] > 0.0 and report["wall_ms_per_step"] > 0.0 and report["finite"],
          f"cpu {report['cpu_ms_per_step']:.4g} ms/step, wall {report['wall_ms_per_step']:.4g} ms/step, finite")

    resting = bodies["resting"]["position"]
    across = math.hypot(resting[0], resting[1])
    check(abs(resting[2] - 0.5) < 0.01 and across < 0.01,
          f"resting box at z = {resting[2]:.5f} m (0.5 within 1 cm), moved {across:.2e} m across")

    mu = math.sqrt(0.5 * 0.6)
    x_expected = 5.0 * t - 0.5 * mu * G * t * t
    sliding = bodies["sliding"]["position"]
    check(abs(sliding[0] - x_expected) < 0.05 and abs(sliding[2] - 0.5) < 0.03,
          f"sliding box at x = {sliding[0]:.4f} m (closed form {x_expected:.4f} within 5 cm), z = {sliding[2]:.4f}")

    lying = bodies["lying"]
    check(abs(lying["position"][2] - 0.75) < 0.01,
          f"lying capsule at z = {lying['position'][2]:.5f} m (0.75 within 1 cm)")

    falling = bodies["falling"]
    z_expected = 20.0 - 0.5 * G * t * t
    bound = 0.5 * G * t * DT + 0.002
    check(abs(falling["position"][2] - z_expected) <= bound,
          f"falling sphere at z = {falling['position'][2]:.5f} m (closed form {z_expected:.5f} within {bound:.4f})")
    check(abs(falling["linear_velocity"][2] + G * t) < 0.01,
          f"falling sphere at {falling['linear_velocity'][2]:.5f} m/s (closed form {-G * t:.5f})")

    # the report's own figures: the largest displacement is the sliding box's
    moved = math.dist(sliding, [0, -6, 0.5])
    check(report["max_displacement_body"] == "sliding" and abs(report["max_displacement"] - moved) < 1e-6,
          f"max displacement {report['max_displacement']:.4f} m by {report['max_displacement_body']}")
    energy = 0.5 * (1000.0 * (4.0 / 3.0) * math.pi * 0.125) * (G * t) ** 2
    check(report["kinetic_energy_final"] > energy,
          f"kinetic energy {report['kinetic_energy_final']:.1f} J (more than the sphere's {energy:.1f} J)")

    with tempfile.TemporaryDirectory() as work:
        refused = os.path.join(work, "refused.json")
        with open(refused, "w", encoding="utf-8") as file:
            json.dump({"bodies": [{"name": "e", "shapes": [{"type": "ellipsoid", "radii": [1, 0.5, 0.5]}]}]}, file)
        result = subprocess.run([driver, refused, "--steps", "1"], capture_output=True, text=True)
        check(result.returncode == 1 and "bodies[0].shapes[0].type" in result.stderr
              and "ellipsoid" in result.stderr,
              f"an ellipsoid is refused (exit {result.returncode}): {result.stderr.strip()}")

    if failures:
        sys.exit(f"peers_smoke: {len(failures)} check(s) failed")


if __name__ == "__main__":
    main()
