#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Write the stacking benchmark scenes to assets/scenes/ (tower10, pyramid20, wall210, pile1000), the
smooth-shape scenes (ellipsoid_pile500, capsule_pile500, rings_hanging) and the PGS-SM benchmark's
scenes after the paper's ODE destruction problems (ode_stack_ratio100, ode_tower_projectile,
ode_wall_projectile, ode_pile, ode_big_wall_projectile).

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


def scene(description, bodies, material=MATERIAL):
    return {"version": 1, "description": description, "world": world(),
            "materials": {"default": dict(material)}, "bodies": bodies}


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


def wall210():
    rows = 10
    pitch = 2 * HALF + PYRAMID_GAP
    bodies = [ground()]
    for r in range(rows):
        # running bond: odd rows start with a half box and are shifted by half a pitch, so every
        # box but the half ones rests on two below; 21 boxes a row either way
        names = 0
        x = -10 * pitch
        if r % 2 == 1:
            bodies.append(box("w%02dc%02d" % (r, names), (x - 0.25, 0, HALF + r), half=(0.25, HALF, HALF)))
            names += 1
            x += 0.5 * pitch
        while names < 21:
            bodies.append(box("w%02dc%02d" % (r, names), (x, 0, HALF + r)))
            names += 1
            x += pitch
    return scene(
        "A wall of 210 boxes in 10 rows of running bond (1000 kg/m^3, friction 0.6): even rows 21 "
        "unit boxes 0.02 m apart, odd rows a half box (0.5 m along x) then 20 unit boxes shifted "
        "by half a pitch, so each box rests on two; boxes named wRRcCC. A throughput scene for "
        "whole-step timings beside pyramid20 and pile1000 (tests/bench/README.md).", bodies)


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


SMOOTH_MATERIAL = {"friction": 0.5, "restitution": 0.0, "density": 1000}


def random_orientation(rng):
    """A uniformly distributed unit quaternion [w, x, y, z] (normalized 4-D Gaussian), w >= 0."""
    q = [rng.gauss(0, 1) for _ in range(4)]
    norm = math.sqrt(sum(a * a for a in q))
    q = [a / norm for a in q]
    return tuple(-a for a in q) if q[0] < 0 else tuple(q)


def smooth_body(name, position, orientation, shape, static=False):
    body = {"name": name}
    if static:
        body["type"] = "static"
    body["position"] = [round(x, 12) for x in position]
    body["orientation"] = [round(x, 12) + 0.0 for x in orientation]  # + 0.0: no -0.0 in the file
    body["shapes"] = [shape]
    return body


def bin_walls(inner, height, thick=0.5):
    """Four static box walls `thick` thick and `height` tall around an inner x inner floor."""
    h = 0.5 * inner + 0.5 * thick
    return [box("wall_x-", (-h, 0, 0.5 * height), half=(0.5 * thick, 0.5 * inner, 0.5 * height), static=True),
            box("wall_x+", (h, 0, 0.5 * height), half=(0.5 * thick, 0.5 * inner, 0.5 * height), static=True),
            box("wall_y-", (0, -h, 0.5 * height), half=(0.5 * inner + thick, 0.5 * thick, 0.5 * height),
                static=True),
            box("wall_y+", (0, h, 0.5 * height), half=(0.5 * inner + thick, 0.5 * thick, 0.5 * height),
                static=True)]


def smooth_pile(seed, prefix, shape, bound, inner, height):
    """500 bodies of one shape in a 10 x 10 x 5 lattice, randomly oriented, in a bin.

    `bound` is the radius of a sphere about the body origin that holds the shape in any orientation:
    the pitch is 2 * bound + 5 cm and the jitter 2 cm, so the bounding spheres start at least 1 cm
    apart (checked below) and nothing starts overlapping whatever the orientations are."""
    rng = random.Random(seed)
    pitch = 2 * bound + 0.05
    drop = 0.2  # the lowest point of the bottom layer starts at least this far above the ground
    jitter = 0.02
    bodies = [ground()] + bin_walls(inner, height)
    centres = []
    for k in range(5):
        for j in range(10):
            for i in range(10):
                p = ((i - 4.5) * pitch + rng.uniform(-jitter, jitter),
                     (j - 4.5) * pitch + rng.uniform(-jitter, jitter),
                     bound + jitter + drop + k * pitch + rng.uniform(-jitter, jitter))
                q = random_orientation(rng)
                centres.append(p)
                bodies.append(smooth_body("%s%d_%d_%d" % (prefix, i, j, k), p, q, dict(shape)))
    # nothing starts overlapping: the bounding spheres are disjoint, inside the bin, above the ground
    # and below the top of the walls
    for p in centres:
        assert all(abs(p[a]) + bound < 0.5 * inner for a in range(2)) and drop <= p[2] - bound
        assert p[2] + bound < height
    for m in range(len(centres)):
        for n in range(m + 1, len(centres)):
            assert math.dist(centres[m], centres[n]) > 2 * bound, (m, n)
    return bodies


def ellipsoid_pile500():
    radii = (0.5, 0.25, 0.25)  # aspect ratio 2
    bodies = smooth_pile(500, "e", {"type": "ellipsoid", "radii": list(radii)}, radii[0], 11.0, 6.0)
    return scene(
        "500 prolate ellipsoids (radii 0.5 x 0.25 x 0.25 m, aspect ratio 2; 1000 kg/m^3, friction 0.5) "
        "in a 10 x 10 x 5 block at a 1.05 m pitch, uniformly random orientations, jittered by up to 2 cm so "
        "that nothing starts overlapping (the bounding spheres are at least 1 cm apart), bottom layer 0.2 m "
        "up, dropped into a bin: the ground plane and four static walls 0.5 m thick and 6 m tall (above the "
        "top layer) around an 11 x 11 m floor. Smooth convex pairs: ellipsoid-ellipsoid, -box and -plane. "
        "Ellipsoids named eI_J_K (K the layer).", bodies, SMOOTH_MATERIAL)


def capsule_pile500():
    radius, half_length = 0.2, 0.4  # 1.2 m long, aspect ratio 3
    bodies = smooth_pile(501, "c", {"type": "capsule", "radius": radius, "half_length": half_length},
                         radius + half_length, 13.0, 7.0)
    return scene(
        "500 capsules (radius 0.2 m, half length 0.4 m, 1.2 m long; 1000 kg/m^3, friction 0.5) in a "
        "10 x 10 x 5 block at a 1.25 m pitch, uniformly random orientations, jittered by up to 2 cm so that "
        "nothing starts overlapping (the bounding spheres are at least 1 cm apart), bottom layer 0.2 m up, "
        "dropped into a bin: the ground plane and four static walls 0.5 m thick and 7 m tall (above the "
        "top layer) around a 13 x 13 m floor. Smooth convex pairs: capsule-capsule, -box and -plane. "
        "Capsules named cI_J_K (K the layer).", bodies, SMOOTH_MATERIAL)


RING_MAJOR = 1.0
RING_MINOR = 0.1
RING_TOP = 10.0  # height of the fixed ring's centre, m
RING_CLEARANCE = 0.03  # initial gap between the tubes at each link, m
RING_COUNT = 3  # dynamic rings in the chain


def ring_core(position, q, count=720):
    """Points of a ring's core circle (radius RING_MAJOR about the shape's z axis), world frame."""
    r = rotation(q)
    points = []
    for i in range(count):
        t = 2 * math.pi * i / count
        local = (RING_MAJOR * math.cos(t), RING_MAJOR * math.sin(t), 0.0)
        points.append(tuple(position[a] + sum(r[a][b] * local[b] for b in range(3)) for a in range(3)))
    return points


def rings_hanging():
    """A fixed ring standing in the x-z plane and a chain of linked rings hanging from it."""
    # a torus is a ring about its shape's z axis: a quarter turn about x puts that axis along y (the
    # ring stands in the x-z plane), a quarter turn about y puts it along x (the y-z plane)
    in_xz = quat_axis_angle((1, 0, 0), -0.5 * math.pi)
    in_yz = quat_axis_angle((0, 1, 0), 0.5 * math.pi)
    torus = {"type": "torus", "major_radius": RING_MAJOR, "minor_radius": RING_MINOR}
    bodies = [ground(), smooth_body("ring_fixed", (0, 0, RING_TOP), in_xz, dict(torus), static=True)]
    rings = [((0, 0, RING_TOP), in_xz)]
    # ring k hangs from ring k-1 through its hole, in the perpendicular plane: at rest its top core
    # point lies r1 + r2 = 2 r above the bottom core point of ring k-1 (the closest points of the two
    # linked core circles), so the centres are 2 R - 2 r apart. Each link starts RING_CLEARANCE
    # shorter: the tubes start that far apart and the ring falls that far before it touches.
    pitch = 2 * RING_MAJOR - 2 * RING_MINOR - RING_CLEARANCE
    for k in range(1, RING_COUNT + 1):
        p = (0, 0, RING_TOP - k * pitch)
        q = in_yz if k % 2 == 1 else in_xz
        rings.append((p, q))
        bodies.append(smooth_body("ring%d" % k, p, q, dict(torus)))
    assert RING_TOP - RING_COUNT * pitch - RING_MAJOR - RING_MINOR > 1.0  # well above the ground
    # checked: every pair of tubes starts apart (the core circles more than 2 r apart, and exactly
    # 2 r + RING_CLEARANCE at each link), and each ring is linked with the one above: its core circle
    # crosses the disk of the one above once inside and once outside
    cores = [ring_core(p, q) for p, q in rings]
    for m in range(len(rings)):
        for n in range(m + 1, len(rings)):
            gap = min(math.dist(a, b) for a in cores[m] for b in cores[n])
            if n == m + 1:
                assert abs(gap - (2 * RING_MINOR + RING_CLEARANCE)) < 1e-9, (m, n, gap)
            else:
                assert gap > 2 * RING_MINOR + RING_CLEARANCE, (m, n, gap)
    for k in range(1, len(rings)):
        (pa, qa), (pb, qb) = rings[k - 1], rings[k]
        axis = [rotation(qa)[a][2] for a in range(3)]  # the upper ring's axis
        crossings = []
        for i, a in enumerate(cores[k]):
            b = cores[k][(i + 1) % len(cores[k])]
            da = sum(axis[c] * (a[c] - pa[c]) for c in range(3))
            db = sum(axis[c] * (b[c] - pa[c]) for c in range(3))
            if da == 0 or da * db < 0:
                x = a if da == 0 else tuple(a[c] + da / (da - db) * (b[c] - a[c]) for c in range(3))
                crossings.append(math.dist(x, pa) < RING_MAJOR)
        assert sorted(crossings) == [False, True], (k, crossings)
    return scene(
        "A chain of linked rings: a static ring (torus, major radius 1 m, minor radius 0.1 m) standing in "
        "the x-z plane with its centre 10 m up, and 3 dynamic rings of the same size (1000 kg/m^3, 197 kg "
        "each; friction 0.5) hanging below it, each through the hole of the one above and in the "
        "perpendicular plane (ring1 and ring3 in the y-z plane, ring2 in x-z). Each link starts with a 3 cm "
        "gap between the tubes, so nothing touches at the start (checked); at rest each ring's top tube "
        "section lies on the lowest tube section of the ring above, the two core circles 2 x 0.1 m apart "
        "there, so ring k's centre rests (2 R - 2 r) k = 1.8 k m below the fixed ring's (8.2, 6.4 and 4.6 m "
        "up). The ground plane lies far below. Torus-torus contacts: two linked rings touch where their "
        "core circles pass closest.", bodies, SMOOTH_MATERIAL)


# ---------------------------------------------------------------------------------------------------
# Scenes whose contact problems resemble the Open Dynamics Engine "destruction" LCPs of Morales,
# Nocedal and Smelyanskiy's PGS-SM paper (../shared/papers/pgs-sm.md, sections 4 and 6): structures
# of boxes broken by a heavy projectile, a pile, and a stack with a 1:100 mass ratio. The benchmark
# tests/bench/bench_pgs_sm.c dumps one step of each (the step is in each description) with
# `cairn run --dump-problem` and solves it cold. Default world settings but for the solver's name.
# Gaps between side neighbours are larger than the contact margin (2 cm), so no side contacts exist
# before the impact.

ODE_GAP = 0.05
ODE_HEAVY = {"friction": 0.6, "restitution": 0.0, "density": 10000}
ODE_LIGHT = {"friction": 0.6, "restitution": 0.0, "density": 100}
ODE_STEEL = {"friction": 0.4, "restitution": 0.0, "density": 8000}


def ode_scene(description, bodies, materials=None):
    mats = {"default": dict(MATERIAL)}
    for name, material in (materials or {}).items():
        mats[name] = dict(material)
    return {"version": 1, "description": description, "world": {"solver": {"name": "pgs"}},
            "materials": mats, "bodies": bodies}


def with_material(body, material):
    body["shapes"][0]["material"] = material
    return body


def projectile(name, position, velocity, shape):
    """A heavy steel body flying at `velocity` (m/s); `shape` a sphere radius or box half extents."""
    body = {"name": name, "position": [round(x, 12) for x in position],
            "linear_velocity": [round(x, 12) for x in velocity]}
    if isinstance(shape, (int, float)):
        body["shapes"] = [{"type": "sphere", "radius": shape, "material": "steel"}]
    else:
        body["shapes"] = [{"type": "box", "half_extents": list(shape), "material": "steel"}]
    return body


def aim(target, start, speed, g=9.81):
    """The velocity from `start` that hits `target` after a flight of |target - start| / speed seconds
    under gravity (the straight line's velocity plus the drop's correction)."""
    d = [target[a] - start[a] for a in range(3)]
    dist = math.sqrt(sum(x * x for x in d))
    t = dist / speed
    v = [d[a] / t for a in range(3)]
    v[2] += 0.5 * g * t
    return v


def running_bond(columns, rows, half, gap, x0=0.0, y=0.0, prefix="w"):
    """A wall of bricks (half extents `half`) in running bond along x, centred on x0, `gap` apart: even
    rows `columns` bricks, odd rows a short brick at each end (a half brick less half a gap, so both
    rows are as long) and columns - 1 whole ones in between, half a pitch along."""
    hx, hy, hz = half
    pitch = 2 * hx + gap
    bodies = []
    left = x0 - 0.5 * (columns * pitch - gap)  # the wall's left face
    for r in range(rows):
        z = hz + 2 * hz * r
        if r % 2 == 0:
            for c in range(columns):
                bodies.append(box("%s%02dc%02d" % (prefix, r, c), (left + hx + c * pitch, y, z), half=half))
        else:
            q = 0.5 * (hx - 0.5 * gap)  # the half brick's half length: the row is as long as an even one
            bodies.append(box("%s%02dc%02d" % (prefix, r, 0), (left + q, y, z), half=(q, hy, hz)))
            for c in range(columns - 1):
                bodies.append(box("%s%02dc%02d" % (prefix, r, c + 1), (left + 2 * q + gap + hx + c * pitch, y, z),
                                  half=half))
            right = left + columns * pitch - gap
            bodies.append(box("%s%02dc%02d" % (prefix, r, columns), (right - q, y, z), half=(q, hy, hz)))
    return bodies


def ode_stack_ratio100():
    bodies = [ground()]
    # three light boxes (100 kg/m^3, 100 kg) stacked touching, then a heavy one (10,000 kg/m^3,
    # 10,000 kg) resting on them and a second heavy one falling from 0.3 m onto it
    for i in range(3):
        bodies.append(with_material(box("light%d" % i, (0, 0, HALF + i)), "light"))
    bodies.append(with_material(box("heavy0", (0, 0, HALF + 3)), "heavy"))
    bodies.append(with_material(box("heavy1", (0, 0, HALF + 4 + ODE_STACK_DROP)), "heavy"))
    return ode_scene(
        "Mass ratio 1:100, heavy on light: three light unit boxes (100 kg/m^3, 100 kg) stacked on the "
        "ground, a heavy one (10,000 kg/m^3, 10 t) resting on them and a second heavy one dropped from "
        "0.3 m above it. The falling box lands in step 16 (t = 0.27 s), the step the benchmark "
        "(tests/bench/bench_pgs_sm.c) dumps: 5 face contacts of 4 points, %s rows (pyramid friction, "
        "mu 0.6), the light boxes squeezed between 20 t and the ground (PGS needs about 160,000 sweeps "
        "to reach the merit 1e-8 from zero). pgs at the default 10 iterations."
        % ODE_ROWS["ode_stack_ratio100"], bodies,
        {"light": ODE_LIGHT, "heavy": ODE_HEAVY, "steel": ODE_STEEL})


def ode_tower_projectile():
    # a tower of 2 x 1 x 1 m bricks, two per layer (0.05 m apart), each layer turned a quarter turn
    # from the one below, hit at mid-height by a steel sphere
    layers = 8
    half = (1.0, 0.25 * (2.0 - ODE_GAP), 0.5)  # two bricks and the gap across make a brick's length
    bodies = [ground()]
    for k in range(layers):
        for j in range(2):
            y = (j - 0.5) * (2 * half[1] + ODE_GAP)
            if k % 2 == 0:
                bodies.append(box("t%02d_%d" % (k, j), (0, y, 0.5 + k), half=half))
            else:
                bodies.append(box("t%02d_%d" % (k, j), (y, 0, 0.5 + k), half=(half[1], half[0], half[2])))
    start = (-6.0, 0.0, 4.0)
    target = (0.0, 0.0, 4.0)
    bodies.append(projectile("ball", start, aim(target, start, 20.0), 0.5))
    return ode_scene(
        "A tower of 16 bricks (2 x 1 x 1 m, 1000 kg/m^3, friction 0.6), two per layer 5 cm apart, eight "
        "layers each turned a quarter turn from the one below, hit at 4 m up by a steel sphere (radius "
        "0.5 m, 8000 kg/m^3, 4,189 kg, friction 0.4) thrown from 6 m away at 20 m/s (aimed for the drop). "
        "The sphere strikes the tower in step 14, shoves the layers it hits aside and topples it; the benchmark "
        "(tests/bench/bench_pgs_sm.c) dumps step %d, the sphere inside the tower: %s rows (pyramid "
        "friction). pgs at the default 10 iterations."
        % (ODE_STEPS["ode_tower_projectile"], ODE_ROWS["ode_tower_projectile"]), bodies,
        {"steel": ODE_STEEL})


def ode_wall(columns, rows, half, shape, speed, distance):
    """A running-bond wall and a steel projectile (`shape` as for projectile) thrown at its centre
    from `distance` m in front of it at `speed` m/s."""
    bodies = [ground()] + running_bond(columns, rows, half, ODE_GAP)
    height = 2 * half[2] * rows
    start = (0.0, -distance, 0.5 * height)
    target = (0.0, 0.0, 0.5 * height)
    bodies.append(projectile("projectile", start, aim(target, start, speed), shape))
    return bodies


def ode_wall_projectile():
    half = (0.5, 0.25, 0.25)
    bodies = ode_wall(12, 12, half, 0.5, 20.0, 4.0)
    return ode_scene(
        "A wall of 150 bricks (1 x 0.5 x 0.5 m, 1000 kg/m^3, friction 0.6) in 12 rows of running bond, "
        "12.55 m wide and 6 m tall, 5 cm between neighbours (even rows 12 bricks, odd rows 11 and a short "
        "one at each end), hit at its centre by a steel sphere (radius 0.5 m, 8000 kg/m^3, 4,189 kg) "
        "thrown from 4 m away at 20 m/s. The sphere strikes the wall in step 11 and punches a hole "
        "through it, throwing bricks out; the benchmark (tests/bench/bench_pgs_sm.c) dumps step %d, "
        "mid-impact: %s rows (pyramid friction). pgs at the default 10 iterations."
        % (ODE_STEPS["ode_wall_projectile"], ODE_ROWS["ode_wall_projectile"]),
        bodies, {"steel": ODE_STEEL})


def ode_big_wall_projectile():
    half = (0.5, 0.3, 0.25)
    bodies = ode_wall(20, 20, half, (0.6, 0.6, 0.6), 25.0, 5.0)
    return ode_scene(
        "A wall of 410 bricks (1 x 0.6 x 0.5 m, 1000 kg/m^3, friction 0.6) in 20 rows of running bond, "
        "20.95 m wide and 10 m tall, 5 cm between neighbours, hit at its centre by a steel cube "
        "(1.2 m, 8000 kg/m^3, 13,824 kg) thrown from 5 m away at 25 m/s. The cube strikes the wall in "
        "step 11 and breaks through it; the benchmark (tests/bench/bench_pgs_sm.c) dumps step %d, "
        "mid-impact: %s rows (pyramid friction). pgs at the default 10 iterations."
        % (ODE_STEPS["ode_big_wall_projectile"], ODE_ROWS["ode_big_wall_projectile"]), bodies,
        {"steel": ODE_STEEL})


def ode_pile():
    rng = random.Random(5000)
    inner = 8.5  # bin inner size, m
    height = 14.0  # wall height, m
    pitch = 1.3
    jitter = 0.02  # position jitter, m
    tilt = 0.15  # rotation jitter, rad
    margin = 0.03  # the world boxes start at least this far apart (more than the 2 cm contact margin)
    bodies = [ground()] + bin_walls(inner, height)
    boxes = []
    for k in range(ODE_PILE_LAYERS):
        # even layers 6 x 6, odd layers 5 x 5 over the gaps between them: every box falls onto edges
        side = 6 - k % 2
        for j in range(side):
            for i in range(side):
                p = ((i - 0.5 * (side - 1)) * pitch + rng.uniform(-jitter, jitter),
                     (j - 0.5 * (side - 1)) * pitch + rng.uniform(-jitter, jitter),
                     0.9 + k * pitch + rng.uniform(-jitter, jitter))
                axis = [rng.gauss(0, 1) for _ in range(3)]
                norm = math.sqrt(sum(a * a for a in axis))
                q = quat_axis_angle([a / norm for a in axis], rng.uniform(-tilt, tilt))
                boxes.append((p, q))
                bodies.append(box("p%d_%d_%d" % (i, j, k), p, q))
    # nothing starts in contact: the world AABBs are `margin` apart, inside the bin and off the ground
    extents = []
    for p, q in boxes:
        r = rotation(q)
        e = [HALF * sum(abs(r[a][b]) for b in range(3)) for a in range(3)]
        extents.append(e)
        assert all(abs(p[a]) + e[a] + margin < 0.5 * inner for a in range(2)) and p[2] - e[2] > margin
        assert p[2] + e[2] < height
    for m in range(len(boxes)):
        for n in range(m + 1, len(boxes)):
            pm, pn = boxes[m][0], boxes[n][0]
            assert any(abs(pm[a] - pn[a]) > extents[m][a] + extents[n][a] + margin for a in range(3)), (m, n)
    count = len(boxes)
    return ode_scene(
        "A pile: %d unit boxes (1000 kg/m^3, friction 0.6) in %d layers at a 1.3 m pitch, even layers "
        "6 x 6 and odd ones 5 x 5 over the gaps between them, each box tilted by up to 0.15 rad about a "
        "random axis (nothing starts within 3 cm of anything), dropped into a bin (the ground and four "
        "static walls 0.5 m thick and 14 m tall around an 8.5 x 8.5 m floor). Every box lands on edges "
        "and tips over; the pile settles at about 2,800 contact points (8,400 rows). The benchmark "
        "(tests/bench/bench_pgs_sm.c) dumps step %d, while the upper layers crash onto the lower ones: "
        "%s rows (pyramid friction). pgs at the default 10 iterations."
        % (count, ODE_PILE_LAYERS, ODE_STEPS["ode_pile"], ODE_ROWS["ode_pile"]), bodies)


# The step the benchmark dumps per scene and the rows of its problem (measured with `cairn run
# SCENE --steps K --dump-problem K FILE --report r.json`, the report's dump_problem.rows); the
# benchmark keeps the same table (bench_pgs_sm.c, s_scenes).
ODE_STACK_DROP = 0.3
ODE_PILE_LAYERS = 10
ODE_STEPS = {"ode_stack_ratio100": 16, "ode_tower_projectile": 15, "ode_wall_projectile": 12,
             "ode_pile": 40, "ode_big_wall_projectile": 12}
ODE_ROWS = {"ode_stack_ratio100": "60", "ode_tower_projectile": "360", "ode_wall_projectile": "3,312",
            "ode_pile": "5,061", "ode_big_wall_projectile": "9,417"}


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "..", "assets", "scenes")
    for name, make in (("tower10", tower10), ("pyramid20", pyramid20), ("wall210", wall210), ("pile1000", pile1000),
                       ("ellipsoid_pile500", ellipsoid_pile500), ("capsule_pile500", capsule_pile500),
                       ("rings_hanging", rings_hanging), ("ode_stack_ratio100", ode_stack_ratio100),
                       ("ode_tower_projectile", ode_tower_projectile), ("ode_wall_projectile", ode_wall_projectile),
                       ("ode_pile", ode_pile), ("ode_big_wall_projectile", ode_big_wall_projectile)):
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
