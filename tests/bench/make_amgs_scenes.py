#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Write the AMGS benchmark's scenes, assets/scenes/amgs_*.json: the 2-D disc scenes of Miyamoto and
Yamashita's experiments (../shared/papers/amgs.md, section 5) and the digest's Appendix A scenes, as
Cairn scenes.

    python3 tests/bench/make_amgs_scenes.py [--out assets/scenes]

A disc is a sphere whose centre starts at y = 0 and moves in the x-z plane (gravity (0, 0, -9.80665)).
Every contact normal between such spheres, and with the floor and the side walls (planes whose
normals lie in the x-z plane), lies in that plane, so no impulse ever pushes a sphere off it (the
friction rows along y carry no load): the centres stay at y = 0 exactly (Pool 1 after 600 steps:
max |y| = 0). One static plane at y = -(r + GUARD_GAP), behind the discs as the viewer looks at
them, is a backdrop and a guard; GUARD_GAP is larger than the contact margin, so it gives no
contact while the motion stays planar. (A second one in front would hide the scene in the viewer.) The spheres' inertia is a sphere's (2/5 m r^2), not a disc's (1/2 m r^2); the normal rows,
which pass through the centres, do not see it.

One LCP per step, as in the paper: dt = 1/60 s with one substep (Cairn's default is two), the contact
push-out at 30 Hz (half the substep rate, the limit docs/scene-format.md gives is 0.6 of it), pgs with
10 sweeps. The pool scenes start on a loose lattice with a little jitter and fall and settle in the
run (nothing is settled beforehand): the lattice has 13 columns and 17 rows (221 discs), 4 cm apart
across and 3 cm apart up, each disc moved by at most 1.5 cm across and 1 cm up; the stacks start as
one exact column with 1 cm gaps (no jitter: a column of spheres on a plane stays a column).

Scenes (masses exact: the density of each sphere is its mass over 4/3 pi r^3):
  amgs_pool1            221 discs, r 0.21 m, 2 kg, in a box 6 m wide (floor and two side walls),
                        mu 0.1, restitution 0.2 (the paper's Pool 1)
  amgs_pool2            the same, the mass growing linearly with the start height, 1 kg (lowest row)
                        to 3 kg (top row), row by row (Pool 2)
  amgs_stacking         30 discs, r 0.18 m, 1 kg, one column, mu 0.1, restitution 0.2 (Stacking)
  amgs_pool1_mu0, amgs_pool2_mu0, amgs_stacking150_mu0
                        the frictionless scenes of the paper's Table 1: Pool 1 and Pool 2 with
                        friction 0, and Stacking with 150 discs and friction 0
  amgs_stack30, amgs_stack30_graded
                        Appendix A's stack30: 30 discs of radius 0.5 m touching in one column, masses 1,
                        or 1 + 2 i / 29 (heavier up)
  amgs_pyramid12, amgs_pyramid12_graded
                        Appendix A's pyramid12: 78 discs of radius 0.2 m in 12 levels, each disc on two
                        of the level below (1 % horizontal gaps), masses 1, or 1 + 99 L / 11 by level L,
                        between side walls that touch the bottom level's ends (Appendix A has none: a
                        frictionless pyramid spreads without them)
  amgs_hexpool95, amgs_hexpool95_graded
                        Appendix A's hexpool: 95 discs of radius 0.21 m in 10 hexagonal layers in a box
                        20 r wide, touching; masses 2, or 1 + 99 min(1, z / 3.3)
The Appendix A scenes are frictionless with no restitution (the digest's rows are frictionless
normals) and start at rest: Appendix A's velocities make one test LCP, not a simulation.

Deterministic (fixed seed); the committed JSON is this script's output. Python 3, standard library
only. The scenes are listed in docs/scene-format.md; the benchmark is tests/bench/bench_amgs.c.
"""
import argparse
import math
import os
import random

from make_piles import write_scene  # one body per line, as the piles

G = 9.80665
DT = 1.0 / 60.0
GUARD_GAP = 0.05  # m, more than the default contact margin (0.02 m)
SEED = 20191022  # the preprint's date

# the paper's pools
POOL_RADIUS = 0.21
POOL_WIDTH = 6.0
POOL_COLUMNS = 13
POOL_ROWS = 17  # 13 x 17 = 221 discs
POOL_GAP_X = POOL_WIDTH / POOL_COLUMNS - 2.0 * POOL_RADIUS  # 4.2 cm between neighbours
POOL_PITCH_Z = 2.0 * POOL_RADIUS + 0.03
POOL_JITTER_X = 0.015
POOL_JITTER_Z = 0.01

STACK_RADIUS = 0.18
STACK_GAP = 0.01


def sphere_volume(r):
    return 4.0 / 3.0 * math.pi * r ** 3


def material(mass, radius, friction, restitution):
    return {"friction": friction, "restitution": restitution, "density": mass / sphere_volume(radius)}


def world():
    return {"gravity": [0, 0, -G], "dt": DT, "substeps": 1, "contact_hertz": 30.0,
            "solver": {"name": "pgs", "iterations": 10}}


def guard_body(radius):
    """The plane behind the discs: y < -(r + gap) is solid."""
    h = radius + GUARD_GAP
    return {"name": "guard", "type": "static",
            "shapes": [{"type": "plane", "normal": [0, 1, 0], "offset": -h, "material": "wall"}]}


def floor_body():
    return {"name": "floor", "type": "static",
            "shapes": [{"type": "plane", "normal": [0, 0, 1], "offset": 0, "material": "wall"}]}


def walls_body(x_min, x_max):
    """Side walls: x < x_min and x > x_max are solid."""
    return {"name": "walls", "type": "static",
            "shapes": [{"type": "plane", "normal": [1, 0, 0], "offset": x_min, "material": "wall"},
                       {"type": "plane", "normal": [-1, 0, 0], "offset": -x_max, "material": "wall"}]}


def disc(name, x, z, radius, mat):
    return {"name": name, "position": [round(x, 9), 0, round(z, 9)],
            "shapes": [{"type": "sphere", "radius": radius, "material": mat}]}


def scene(description, radius, bodies, materials):
    return {"version": 1, "description": description, "world": world(), "materials": materials,
            "bodies": [floor_body(), guard_body(radius)] + bodies}


def planar_note(radius):
    return ("Discs are spheres with centres at y = 0 moving in the x-z plane: every contact normal lies "
            "in that plane, so the motion stays planar; a static plane at y = -%.2f m (the radius plus "
            "%.2f m, more than the contact margin) behind them guards it without touching. One substep of 1/60 s, "
            "contact_hertz 30. Made by tests/bench/make_amgs_scenes.py." % (radius + GUARD_GAP, GUARD_GAP))


def pool_lattice():
    """The start of both pools: (x, z, row) of 221 discs, bottom row first, left to right."""
    rng = random.Random(SEED)
    pitch_x = POOL_WIDTH / POOL_COLUMNS
    out = []
    for row in range(POOL_ROWS):
        for c in range(POOL_COLUMNS):
            x = -0.5 * POOL_WIDTH + (c + 0.5) * pitch_x + rng.uniform(-POOL_JITTER_X, POOL_JITTER_X)
            z = POOL_RADIUS + 0.02 + row * POOL_PITCH_Z + rng.uniform(-POOL_JITTER_Z, POOL_JITTER_Z)
            out.append((x, z, row))
    return out


def pool(name, graded, friction):
    r = POOL_RADIUS
    wall = {"friction": friction, "restitution": 0.2, "density": 1000.0}
    materials = {"wall": wall}
    bodies = []
    for i, (x, z, row) in enumerate(pool_lattice()):
        if graded:
            # linear in the start height, row by row: 1 kg for the lowest row, 3 kg for the top one
            mass = 1.0 + 2.0 * row / (POOL_ROWS - 1)
            mat = material(mass, r, friction, 0.2)
        else:
            mat = "disc"
        bodies.append(disc("d%d" % i, x, z, r, mat))
    if not graded:
        materials["disc"] = material(2.0, r, friction, 0.2)
    bodies.insert(0, walls_body(-0.5 * POOL_WIDTH, 0.5 * POOL_WIDTH))
    what = ("the mass growing linearly with the start height from 1 kg (lowest row) to 3 kg (top row), "
            "the paper's Pool 2" if graded else "2 kg each, the paper's Pool 1")
    description = ("%s: 221 discs of radius %.2f m (%s) falling from a loose 13 x 17 lattice into a box "
                   "6 m wide (floor and two side walls) and settling; mu %g, restitution 0.2. %s" %
                   (name, r, what, friction, planar_note(r)))
    return scene(description, r, bodies, materials)


def stacking(name, count, friction):
    r = STACK_RADIUS
    materials = {"wall": {"friction": friction, "restitution": 0.2, "density": 1000.0},
                 "disc": material(1.0, r, friction, 0.2)}
    bodies = [disc("d%d" % i, 0.0, r + STACK_GAP + i * (2.0 * r + STACK_GAP), r, "disc") for i in range(count)]
    description = ("%s: %d discs of radius %.2f m and 1 kg in one column on a floor (the paper's Stacking%s), "
                   "1 cm apart at the start; mu %g, restitution 0.2. %s" %
                   (name, count, r, ", with 150 discs and no friction as in its Table 1" if count != 30 else "",
                    friction, planar_note(r)))
    return scene(description, r, bodies, materials)


def frictionless(mass, radius):
    return material(mass, radius, 0.0, 0.0)


def stack30(name, graded):
    r = 0.5
    bodies = []
    for i in range(30):
        mass = 1.0 + 2.0 * i / 29.0 if graded else 1.0
        bodies.append(disc("d%d" % i, 0.0, r + 2.0 * r * i, r, frictionless(mass, r)))
    description = ("%s: the AMGS digest's Appendix A stack30, 30 discs of radius 0.5 m touching in one "
                   "column, masses %s; frictionless, no restitution, at rest. %s" %
                   (name, "1 + 2 i / 29 (1 to 3 kg, heavier up)" if graded else "1 kg", planar_note(r)))
    return {"version": 1, "description": description, "world": world(),
            "materials": {"wall": {"friction": 0.0, "restitution": 0.0, "density": 1000.0}},
            "bodies": [floor_body(), guard_body(r)] + bodies}


def pyramid12(name, graded):
    r = 0.2
    h = r * 1.01
    dz = math.sqrt((2.0 * r) ** 2 - h * h)
    bodies = []
    for level in range(12):
        for c in range(12 - level):
            mass = 1.0 + 99.0 * level / 11.0 if graded else 1.0
            x = r + level * h + 2.0 * h * c
            bodies.append(disc("d%d" % len(bodies), x, r + level * dz, r, frictionless(mass, r)))
    description = ("%s: the AMGS digest's Appendix A pyramid12, 78 discs of radius 0.2 m in 12 levels, each "
                   "on two discs of the level below, 1 %% gaps across; masses %s; frictionless, no "
                   "restitution, at rest, between side walls touching the bottom level's ends (without "
                   "them the frictionless pyramid would spread on the floor). %s" %
                   (name, "1 + 99 L / 11 by level L (1 to 100 kg)" if graded else "1 kg", planar_note(r)))
    return {"version": 1, "description": description, "world": world(),
            "materials": {"wall": {"friction": 0.0, "restitution": 0.0, "density": 1000.0}},
            "bodies": [floor_body(), guard_body(r), walls_body(0.0, 2.0 * r + 22.0 * h)] + bodies}


def hexpool(name, graded):
    r = 0.21
    width = 20.0 * r
    bodies = []
    for layer in range(10):
        for c in range(10 - (layer % 2)):
            x = r + (r if layer % 2 else 0.0) + 2.0 * r * c
            z = r + layer * r * math.sqrt(3.0)
            mass = 1.0 + 99.0 * min(1.0, z / 3.3) if graded else 2.0
            bodies.append(disc("d%d" % len(bodies), x, z, r, frictionless(mass, r)))
    description = ("%s: the AMGS digest's Appendix A hexpool, 95 discs of radius 0.21 m in 10 hexagonal "
                   "layers, touching, in a box 20 r = 4.2 m wide (more contacts than degrees of freedom); "
                   "masses %s; frictionless, no restitution, at rest. %s" %
                   (name, "1 + 99 min(1, z / 3.3) (up to 100 kg)" if graded else "2 kg", planar_note(r)))
    return {"version": 1, "description": description, "world": world(),
            "materials": {"wall": {"friction": 0.0, "restitution": 0.0, "density": 1000.0}},
            "bodies": [floor_body(), guard_body(r), walls_body(0.0, width)] + bodies}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    here = os.path.dirname(os.path.abspath(__file__))
    parser.add_argument("--out", default=os.path.join(here, "..", "..", "assets", "scenes"))
    args = parser.parse_args()
    scenes = {
        "amgs_pool1": pool("amgs_pool1", False, 0.1),
        "amgs_pool2": pool("amgs_pool2", True, 0.1),
        "amgs_stacking": stacking("amgs_stacking", 30, 0.1),
        "amgs_pool1_mu0": pool("amgs_pool1_mu0", False, 0.0),
        "amgs_pool2_mu0": pool("amgs_pool2_mu0", True, 0.0),
        "amgs_stacking150_mu0": stacking("amgs_stacking150_mu0", 150, 0.0),
        "amgs_stack30": stack30("amgs_stack30", False),
        "amgs_stack30_graded": stack30("amgs_stack30_graded", True),
        "amgs_pyramid12": pyramid12("amgs_pyramid12", False),
        "amgs_pyramid12_graded": pyramid12("amgs_pyramid12_graded", True),
        "amgs_hexpool95": hexpool("amgs_hexpool95", False),
        "amgs_hexpool95_graded": hexpool("amgs_hexpool95_graded", True),
    }
    for name, data in scenes.items():
        path = os.path.join(os.path.normpath(args.out), name + ".json")
        write_scene(path, data)
        print("wrote %s (%d bodies)" % (path, len(data["bodies"])))


if __name__ == "__main__":
    main()
