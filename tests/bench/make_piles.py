#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Write the IPM benchmark's sphere piles, assets/scenes/ipm_pile_N.json for N in 288, 1000, 2048
and 5040, after the test problems of Kleinert, Simeon and Obermayr (an interior point method for
granular piles): non-rotating polydisperse spheres, radii uniform in [8, 16] mm, density
2600 kg/m^3, friction 0.4 (the exact Coulomb cone), dt = 0.01 s. Their Test Problem 1 has 2,048
spheres and 8,378 potential contacts (4.09 per sphere), Test Problem 2 5,040 spheres and 21,052
(4.18 per sphere).

    python3 tests/bench/make_piles.py [--cairn build/hengine/demos/cairn] [--out assets/scenes]
                                      [--sizes 288,1000,2048,5040] [--work DIR]

For each N:
 1. settle: the spheres start on a jittered lattice in a square box (four side walls and a floor,
    planes) whose side holds a roughly cubic pile, and fall (no faster than 1 m/s, with some
    linear damping) without friction for SETTLE_FIRST steps (`cairn run SCENE --steps K --report
    R.json`), then with friction 0.4 from the report's final_state, SETTLE_MORE steps at a time,
    until the fastest sphere of the final_state is below REST_SPEED;
 2. pick the contact margin: the potential contacts are the pairs (and sphere-floor pairs) whose gap
    is below the margin, counted here from the settled positions; the margin is the smallest one
    that reaches the paper's contacts per sphere (TARGET);
 3. write ipm_pile_N.json: the settled spheres at rest (positions and radii rounded to 1e-6 m), the
    floor kept, the side walls removed, friction 0.4, density 2600, dt 0.01, one substep, the cone,
    fixed_rotation, that margin, solver pgj. The broadphase margin (aabb_margin) is the contact
    margin too: every pair within the contact margin is then a broadphase pair in the first step,
    where the default 0.1 m would make each sphere a candidate of hundreds (7 times slower, 10 times
    the memory);
 4. check: `cairn run ipm_pile_N.json --steps 1 --dump-problem 1 F --report R.json` with the pyramid
    (--set world.friction_model=pyramid: the problem files take no cone groups) must give as many
    contact groups (the report's dump_problem.groups) as counted in step 2.

Deterministic (fixed seeds; the engine is deterministic); the committed JSON is this script's output
with the cairn of the same commit. Python 3, standard library only. The scenes are listed in
docs/scene-format.md.
"""
import argparse
import json
import math
import os
import random
import subprocess
import sys
import tempfile

R_MIN = 0.008  # m
R_MAX = 0.016
DENSITY = 2600.0  # kg/m^3
MU = 0.4
DT = 0.01  # s
SIZES = (288, 1000, 2048, 5040)
# potential contacts per sphere: the paper's (4.09 and 4.18), 4.1 for the sizes it does not have
TARGET = {288: 4.1, 1000: 4.1, 2048: 8378.0 / 2048.0, 5040: 21052.0 / 5040.0}
SEED = 20140101

# settling: frictionless (a dense random packing), then with the benchmark's friction until at rest
# (a frictionless pile of thousands of spheres keeps jittering at a few cm/s under PGS)
SETTLE_FRICTION = 0.0
FREEZE_FRICTION = MU
SETTLE_DAMPING = 2.0  # 1/s, linear
SETTLE_MAX_SPEED = 1.0  # m/s: no sphere moves more than a few mm per substep
SETTLE_DT = 0.01
SETTLE_SUBSTEPS = 4
SETTLE_HERTZ = 200.0  # 0.5 x the substep rate: stiff, so that the spheres hardly overlap at rest
SETTLE_ITERATIONS = 40
SETTLE_FIRST = 400  # steps of the first, frictionless run
SETTLE_MORE = 300  # steps of each further run, with friction (it starts cold: no contact cache in a scene)
SETTLE_RUNS = 6
REST_SPEED = 2e-3  # m/s
PACKING = 0.6  # volume fraction of the settled pile, for the box's size
PITCH = 2.0 * R_MAX + 0.002  # lattice of the start


def sphere_radii(n, rng):
    return [round(rng.uniform(R_MIN, R_MAX), 6) for _ in range(n)]


def box_side(radii):
    volume = sum(4.0 / 3.0 * math.pi * r ** 3 for r in radii) / PACKING
    return volume ** (1.0 / 3.0)


def start_state(radii, side, rng):
    """A lattice filling the box from the floor up, each sphere moved at random within its cell (so
    that no two overlap) and given a random sideways velocity, so that the pile packs at random
    instead of stacking in columns."""
    n = len(radii)
    per_row = max(1, int(side / PITCH))
    x0 = -0.5 * (per_row - 1) * PITCH
    cells = [(i, j) for j in range(per_row) for i in range(per_row)]
    positions = []
    velocities = []
    layer = 0
    while len(positions) < n:
        rng.shuffle(cells)
        z = R_MAX + 0.001 + layer * PITCH
        for i, j in cells:
            if len(positions) == n:
                break
            free = 0.5 * PITCH - radii[len(positions)] - 1e-4
            jitter = [rng.uniform(-free, free) for _ in range(3)]
            positions.append([x0 + i * PITCH + jitter[0], x0 + j * PITCH + jitter[1], z + jitter[2]])
            velocities.append([rng.uniform(-0.3, 0.3), rng.uniform(-0.3, 0.3), 0.0])
        layer += 1
    return positions, velocities


def floor_body():
    return {"name": "floor", "type": "static",
            "shapes": [{"type": "plane", "normal": [0, 0, 1], "offset": 0}]}


def walls_body(side):
    # each plane keeps the half-space below it: x < -side/2, x > side/2, ...
    h = round(0.5 * side, 6)
    return {"name": "walls", "type": "static",
            "shapes": [{"type": "plane", "normal": [1, 0, 0], "offset": -h},
                       {"type": "plane", "normal": [-1, 0, 0], "offset": -h},
                       {"type": "plane", "normal": [0, 1, 0], "offset": -h},
                       {"type": "plane", "normal": [0, -1, 0], "offset": -h}]}


def sphere_body(name, position, radius, velocity=None, damping=None):
    body = {"name": name, "position": [round(x, 6) for x in position]}
    if velocity is not None and any(v != 0.0 for v in velocity):
        body["linear_velocity"] = [round(v, 6) for v in velocity]
    if damping is not None:
        body["linear_damping"] = damping
    body["fixed_rotation"] = True
    body["shapes"] = [{"type": "sphere", "radius": radius}]
    return body


def write_scene(path, data):
    """One body per line: small files that diff well."""
    with open(path, "w") as f:
        f.write("{\n")
        keys = list(data.keys())
        for key in keys:
            if key == "bodies":
                f.write('  "bodies": [\n')
                f.write(",\n".join("    " + json.dumps(b, separators=(", ", ": ")) for b in data["bodies"]))
                f.write("\n  ]")
            else:
                f.write("  %s: %s" % (json.dumps(key), json.dumps(data[key])))
            f.write(",\n" if key != keys[-1] else "\n")
        f.write("}\n")


def settle_scene(positions, velocities, radii, side, friction):
    return {
        "version": 1,
        "description": "make_piles.py: settling %d spheres in a box" % len(radii),
        "world": {"gravity": [0, 0, -9.81], "dt": SETTLE_DT, "substeps": SETTLE_SUBSTEPS,
                  "contact_hertz": SETTLE_HERTZ, "contact_margin": 0.002, "aabb_margin": 0.01,
                  "max_linear_speed": SETTLE_MAX_SPEED,
                  "solver": {"name": "pgs", "iterations": SETTLE_ITERATIONS}},
        "materials": {"default": {"friction": friction, "restitution": 0.0, "density": DENSITY}},
        "bodies": [floor_body(), walls_body(side)] + [
            sphere_body("s%d" % i, p, r, v, SETTLE_DAMPING)
            for i, (p, v, r) in enumerate(zip(positions, velocities, radii))],
    }


def run_cairn(cairn, scene, steps, work, extra=()):
    report = os.path.join(work, "report.json")
    command = [cairn, "run", scene, "--steps", str(steps), "--report", report, "--quiet"] + list(extra)
    result = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    if result.returncode != 0:
        sys.exit("make_piles.py: %s failed (%d): %s" % (" ".join(command), result.returncode,
                                                        result.stderr.strip()[-2000:]))
    with open(report) as f:
        return json.load(f)


def spheres_of(report, first):
    """Positions and velocities of the bodies after the first `first` (the static ones)."""
    state = report["final_state"][first:]
    return [s["position"] for s in state], [s["linear_velocity"] for s in state]


def settle(cairn, n, work, log):
    """The settled pile: radii, positions, box side, steps, fastest speed. Kept in WORK/settled_N.json
    and read back from there by a later run with the same WORK."""
    cache = os.path.join(work, "settled_%d.json" % n)
    if os.path.exists(cache):
        with open(cache) as f:
            data = json.load(f)
        log("  N=%d: settled pile read from %s" % (n, cache))
        return data["radii"], data["positions"], data["side"], data["steps"], data["fastest"]
    rng = random.Random(SEED + n)
    radii = sphere_radii(n, rng)
    side = box_side(radii)
    positions, velocities = start_state(radii, side, rng)
    scene = os.path.join(work, "settle_%d.json" % n)
    steps = 0
    for run in range(SETTLE_RUNS):
        friction = SETTLE_FRICTION if run == 0 else FREEZE_FRICTION
        write_scene(scene, settle_scene(positions, velocities, radii, side, friction))
        k = SETTLE_FIRST if run == 0 else SETTLE_MORE
        report = run_cairn(cairn, scene, k, work)
        steps += k
        positions, velocities = spheres_of(report, 2)
        fastest = max(math.sqrt(sum(v * v for v in vel)) for vel in velocities)
        log("  N=%d: %d settling steps (friction %g), fastest sphere %.2e m/s, %.2f ms/step" %
            (n, steps, friction, fastest, report["cpu_ms_per_step"]))
        if run > 0 and fastest < REST_SPEED:
            with open(cache, "w") as f:
                json.dump({"radii": radii, "positions": positions, "side": side, "steps": steps,
                           "fastest": fastest}, f)
            return radii, positions, side, steps, fastest
    sys.exit("make_piles.py: N=%d did not come to rest in %d steps (fastest %.3g m/s)" % (n, steps, fastest))


def gaps(positions, radii, cutoff):
    """Gaps below `cutoff` of every sphere pair and sphere-floor pair, from a cell grid."""
    cell = 2.0 * R_MAX + cutoff
    grid = {}
    for i, p in enumerate(positions):
        grid.setdefault(tuple(int(math.floor(c / cell)) for c in p), []).append(i)
    out = []
    for i, p in enumerate(positions):
        out.append(p[2] - radii[i])
        key = tuple(int(math.floor(c / cell)) for c in p)
        for dx in (-1, 0, 1):
            for dy in (-1, 0, 1):
                for dz in (-1, 0, 1):
                    for j in grid.get((key[0] + dx, key[1] + dy, key[2] + dz), ()):
                        if j <= i:
                            continue
                        q = positions[j]
                        d = math.sqrt((p[0] - q[0]) ** 2 + (p[1] - q[1]) ** 2 + (p[2] - q[2]) ** 2)
                        out.append(d - radii[i] - radii[j])
    return sorted(g for g in out if g < cutoff)


def pick_margin(positions, radii, target):
    """The smallest margin (whole micrometres) with at least target x N gaps below it."""
    n = len(radii)
    want = int(math.ceil(target * n))
    below = gaps(positions, radii, 0.01)
    if len(below) < want:
        sys.exit("make_piles.py: N=%d has only %d pairs within 10 mm" % (n, len(below)))
    margin = max(0.0, below[want - 1])
    margin = math.ceil(margin * 1e6 + 1e-9) / 1e6
    count = sum(1 for g in below if g < margin)
    return margin, count


def pile_scene(n, positions, radii, margin, count, steps):
    return {
        "version": 1,
        "description": (
            "%d non-rotating spheres (radii uniform in [8, 16] mm, 2600 kg/m^3, friction 0.4, the exact cone) "
            "settled in a box whose four side walls are gone: one step of dt = 0.01 s for the IPM benchmark "
            "(docs/ipm.md), after Kleinert, Simeon and Obermayr's piles. Contact margin %g m: %d potential "
            "contacts (%.2f per sphere). Made by tests/bench/make_piles.py (%d settling steps)."
            % (n, margin, count, count / float(n), steps)),
        "world": {"gravity": [0, 0, -9.81], "dt": DT, "substeps": 1, "contact_hertz": 50,
                  "contact_margin": margin, "aabb_margin": margin, "friction_model": "cone",
                  "solver": {"name": "pgj", "iterations": 100}},
        "materials": {"default": {"friction": MU, "restitution": 0.0, "density": DENSITY}},
        "bodies": [floor_body()] + [sphere_body("s%d" % i, p, r) for i, (p, r) in enumerate(zip(positions, radii))],
    }


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.join(here, "..", "..")
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cairn", default=os.path.join(root, "build", "hengine", "demos", "cairn"))
    parser.add_argument("--out", default=os.path.join(root, "assets", "scenes"))
    parser.add_argument("--sizes", default=",".join(str(n) for n in SIZES))
    parser.add_argument("--work", default=None, help="folder for the settling scenes and reports")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",") if s]
    work = args.work or tempfile.mkdtemp(prefix="make_piles_")
    os.makedirs(work, exist_ok=True)

    def log(text):
        print(text, flush=True)

    for n in sizes:
        radii, positions, side, steps, fastest = settle(args.cairn, n, work, log)
        positions = [[round(x, 6) for x in p] for p in positions]
        margin, count = pick_margin(positions, radii, TARGET.get(n, 4.1))
        path = os.path.join(args.out, "ipm_pile_%d.json" % n)
        write_scene(path, pile_scene(n, positions, radii, margin, count, steps))

        dump = os.path.join(work, "pile_%d.dat" % n)
        report = run_cairn(args.cairn, path, 1, work,
                           ["--set", "world.friction_model=pyramid", "--dump-problem", "1", dump])
        groups = report["dump_problem"]["groups"]
        height = max(p[2] + r for p, r in zip(positions, radii))
        log("%s: %d spheres, box side %.3f m, pile height %.3f m, margin %g m, %d potential contacts "
            "(%.3f per sphere; the engine's problem: %d groups, contacts_max %d), %d bytes"
            % (path, n, side, height, margin, count, count / float(n), groups, report["contacts_max"],
               os.path.getsize(path)))
        if groups != count:
            sys.exit("make_piles.py: N=%d: counted %d potential contacts, the engine has %d groups" %
                     (n, count, groups))


if __name__ == "__main__":
    main()
