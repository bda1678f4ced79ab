#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Write the stacking benchmark scenes to assets/scenes/ (tower10, pyramid20, pile1000).

    python3 tests/bench/make_scenes.py [OUTDIR]

Deterministic (fixed seed); the committed JSON is this script's output. Python 3, no third-party
modules. See tests/bench/README.md.
"""
import json
import math
import os
import random
import sys

DT = 1.0 / 60.0  # written as 0.016666666666666666
HALF = 0.5  # unit boxes
MATERIAL = {"friction": 0.6, "restitution": 0.0, "density": 1000}
PYRAMID_GAP = 0.02  # the peers' wall_pyramid20 (shared/peers.md section 4)


def world():
    return {
        "gravity": [0, 0, -9.81],
        "dt": DT,
        "dynamics": "inertial",
        "sleeping": False,
        "solver": {"name": "pgs", "iterations": 10},
    }


def ground():
    return {"name": "ground", "type": "static",
            "shapes": [{"type": "plane", "normal": [0, 0, 1], "offset": 0}]}


def box(name, position, orientation=None, half=(HALF, HALF, HALF), static=False):
    body = {"name": name}
    if static:
        body["type"] = "static"
    body["position"] = [round(x, 12) for x in position]
    if orientation is not None:
        body["orientation"] = [round(x, 12) for x in orientation]
    body["shapes"] = [{"type": "box", "half_extents": list(half)}]
    return body


def scene(description, bodies):
    return {"version": 1, "description": description, "world": world(),
            "materials": {"default": dict(MATERIAL)}, "bodies": bodies}


def tower10():
    bodies = [ground()] + [box("box%d" % i, (0, 0, HALF + i)) for i in range(10)]
    return scene(
        "A tower of 10 unit boxes (1000 kg/m^3, friction 0.6) stacked exactly touching on the ground. "
        "A stacking test: the top box should stay put; pgs at 10 iterations and 60 Hz is the "
        "baseline (tests/bench/bench_solvers.c).", bodies)


def pyramid20():
    rows = 20
    pitch = 2 * HALF + PYRAMID_GAP
    bodies = [ground()]
    for r in range(rows):
        n = rows - r
        for c in range(n):
            x = (c - 0.5 * (n - 1)) * pitch
            bodies.append(box("r%02dc%02d" % (r, c), (x, 0, HALF + r)))
    return scene(
        "A 20-row wall pyramid of 210 unit boxes (1000 kg/m^3, friction 0.6): rows along x with "
        "0.02 m gaps between neighbours (the peers' wall_pyramid20), each row centred on the one "
        "below and touching it; boxes named rRRcCC (row 0 at the bottom). Stability: the largest "
        "displacement of any box after 10 s.", bodies)


def quat_axis_angle(axis, angle):
    s = math.sin(0.5 * angle)
    return (math.cos(0.5 * angle), axis[0] * s, axis[1] * s, axis[2] * s)


def rotation(q):
    w, x, y, z = q
    return ((1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)),
            (2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)),
            (2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)))


def pile1000():
    rng = random.Random(1000)
    inner = 12.0  # bin inner size, m
    height = 8.0  # wall height, m: 1000 m^3 of boxes over 144 m^2 is 6.9 m even packed perfectly
    thick = 0.5  # wall thickness, m
    pitch = 1.1
    drop = 0.2  # bottom layer starts this far above the ground
    jitter = 0.02  # position jitter, m
    tilt = 0.03  # rotation jitter, rad
    bodies = [ground()]
    h = 0.5 * inner + 0.5 * thick
    bodies.append(box("wall_x-", (-h, 0, 0.5 * height), half=(0.5 * thick, 0.5 * inner, 0.5 * height), static=True))
    bodies.append(box("wall_x+", (h, 0, 0.5 * height), half=(0.5 * thick, 0.5 * inner, 0.5 * height), static=True))
    bodies.append(box("wall_y-", (0, -h, 0.5 * height), half=(0.5 * inner + thick, 0.5 * thick, 0.5 * height),
                      static=True))
    bodies.append(box("wall_y+", (0, h, 0.5 * height), half=(0.5 * inner + thick, 0.5 * thick, 0.5 * height),
                      static=True))
    boxes = []
    for k in range(10):
        for j in range(10):
            for i in range(10):
                p = ((i - 4.5) * pitch + rng.uniform(-jitter, jitter),
                     (j - 4.5) * pitch + rng.uniform(-jitter, jitter),
                     HALF + drop + k * pitch + rng.uniform(-jitter, jitter))
                axis = [rng.gauss(0, 1) for _ in range(3)]
                norm = math.sqrt(sum(a * a for a in axis))
                q = quat_axis_angle([a / norm for a in axis], rng.uniform(-tilt, tilt))
                boxes.append((p, q))
                bodies.append(box("b%d_%d_%d" % (i, j, k), p, q))
    # nothing starts overlapping: the world AABBs of the rotated boxes are disjoint and inside the bin
    extents = []
    for p, q in boxes:
        r = rotation(q)
        e = [HALF * sum(abs(r[a][b]) for b in range(3)) for a in range(3)]
        extents.append(e)
        assert all(abs(p[a]) + e[a] < 0.5 * inner for a in range(2)) and p[2] - e[2] > 0
    for m in range(len(boxes)):
        for n in range(m + 1, len(boxes)):
            pm, pn = boxes[m][0], boxes[n][0]
            assert any(abs(pm[a] - pn[a]) > extents[m][a] + extents[n][a] for a in range(3)), (m, n)
    return scene(
        "1,000 unit boxes (1000 kg/m^3, friction 0.6) in a 10 x 10 x 10 block at a 1.1 m pitch, "
        "jittered by up to 2 cm and 0.03 rad so that nothing starts overlapping, dropped from 0.2 m "
        "into a bin: the ground plane and four static walls 0.5 m thick and 8 m tall (1,000 m^3 of boxes fill 12 x 12 m to 6.9 m at best) around a "
        "12 x 12 m floor (the peers' pile1000). Boxes named bI_J_K (K the layer).", bodies)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "..", "assets", "scenes")
    for name, make in (("tower10", tower10), ("pyramid20", pyramid20), ("pile1000", pile1000)):
        path = os.path.join(out, name + ".json")
        data = make()
        with open(path, "w") as f:
            f.write("{\n")
            keys = list(data.keys())
            for key in keys:
                if key == "bodies":
                    f.write('  "bodies": [\n')
                    f.write(",\n".join("    " + json.dumps(b) for b in data["bodies"]))
                    f.write("\n  ]")
                else:
                    f.write("  %s: %s" % (json.dumps(key), json.dumps(data[key])))
                f.write(",\n" if key != keys[-1] else "\n")
            f.write("}\n")
        print("%s: %d bodies" % (path, len(data["bodies"])))


if __name__ == "__main__":
    main()
