#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Write the joint benchmark scenes, assets/scenes/joint_*.json (not joint_chain.json, which is
hand-written), deterministically (stdlib only, no randomness).

    python3 tests/bench/make_joint_scenes.py [--out assets/scenes]

Scenes (z up, gravity (0, 0, -9.81), dt = 1/60 s, the default solver pgs unless run with --solver):
  joint_chain50_heavy  the peers' chain50_ratio100 (../shared/peers.md, section 4a and Appendix A):
                       50 capsules along z (radius 0.1 m, segment 0.5 m, pitch 0.7 m) hanging at rest
                       from a static pivot at (0, 0, 40) by ball joints. Link i has its centre at
                       z = 40 - 0.7 (i + 0.5) and is joined to link i - 1 at z = 40 - 0.7 i (the capsules'
                       tips). The last link has 100 x the density (100:1 end mass). No ground, and no
                       two links touch (neighbours are joined, which turns their collisions off), so the
                       scene is pure joint convergence: peers.md specifies "hanging at rest", which is
                       what this follows (the exact solution is a chain that does not move at all, so
                       any stretch is solver error).
  joint_ragdoll        a humanoid of 13 boxes and capsules (pelvis, torso, head, upper and lower
                       arms, upper and lower legs, feet): ball joints at the neck, shoulders and hips,
                       hinges with limits at the waist, elbows and knees, ankles as hinges with limits;
                       built standing, pitched forward 0.3 rad and dropped so that its lowest point is
                       1 m above the ground plane.
  joint_bridge         a rope bridge: 20 planks (boxes 0.4 x 1.0 x 0.08 m, 600 kg/m^3) hinged to each
                       other about y at their edge midpoints (0.45 m pitch), the end planks hinged to two
                       static posts 8.6 m apart; the planks start on a sagging circular arc (the chain is
                       9 m long, so it sags 1.2 m and is not taut). Three 0.4 m boxes are dropped on it.
  joint_door           a door (box 0.9 x 0.04 x 2.0 m, 600 kg/m^3, 43.2 kg) on a static frame, on a
                       hinge about z with limits [-1.5, 1.5] rad and a motor driving it at 0.5 rad/s with
                       at most 5 N m: it accelerates at about 0.36 rad/s^2 (I about the hinge 13.7 kg m^2),
                       reaches 0.5 rad/s after about 1.4 s and stops on the upper limit after about 3.7 s.

The measurements (tests/bench/results/amd_epyc_2vcpu/joints.md) are made by
tests/bench/measure_joints.py.
"""

import argparse
import json
import math
import os

DT = 0.0166667
GROUND = {"name": "ground", "type": "static",
          "shapes": [{"type": "plane", "normal": [0, 0, 1], "offset": 0}]}


def r6(x):
    """Round for a stable, readable file (1e-9 m)."""
    v = round(x, 9)
    if v == 0:
        return 0
    if v == int(v):
        return int(v)
    return v


def vec(v):
    return [r6(c) for c in v]


def qmul(a, b):
    aw, ax, ay, az = a
    bw, bx, by, bz = b
    return (aw * bw - ax * bx - ay * by - az * bz,
            aw * bx + ax * bw + ay * bz - az * by,
            aw * by - ax * bz + ay * bw + az * bx,
            aw * bz + ax * by - ay * bx + az * bw)


def qrot(q, v):
    w, x, y, z = q
    p = qmul(qmul(q, (0.0, v[0], v[1], v[2])), (w, -x, -y, -z))
    return (p[1], p[2], p[3])


def qaxis(axis, angle):
    n = math.sqrt(sum(c * c for c in axis))
    s = math.sin(angle / 2) / n
    return (math.cos(angle / 2), axis[0] * s, axis[1] * s, axis[2] * s)


def write_scene(path, scene):
    """One body and one joint per line, as assets/scenes/joint_chain.json."""
    lines = ["{"]
    lines.append('  "description": ' + json.dumps(scene["description"]) + ",")
    lines.append('  "world": ' + json.dumps(scene["world"]) + ",")
    if "materials" in scene:
        lines.append('  "materials": ' + json.dumps(scene["materials"]) + ",")
    lines.append('  "bodies": [')
    lines.append(",\n".join("    " + json.dumps(b) for b in scene["bodies"]))
    lines.append("  ],")
    lines.append('  "joints": [')
    lines.append(",\n".join("    " + json.dumps(j) for j in scene["joints"]))
    lines.append("  ]")
    lines.append("}")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def world(solver="pgs"):
    return {"gravity": [0, 0, -9.81], "dt": DT, "solver": {"name": solver}}


# ---------------------------------------------------------------------------------------------
# 1. chain50_heavy

CHAIN_LINKS = 50
CHAIN_PITCH = 0.7
CHAIN_RADIUS = 0.1
CHAIN_HALF = 0.25
CHAIN_TOP = 40.0
CHAIN_RATIO = 100.0


def chain50_heavy():
    bodies = [{"name": "pivot", "type": "static", "position": [0, 0, CHAIN_TOP]}]
    joints = []
    half_pitch = CHAIN_PITCH / 2
    for i in range(CHAIN_LINKS):
        z = CHAIN_TOP - CHAIN_PITCH * (i + 0.5)
        shape = {"type": "capsule", "radius": CHAIN_RADIUS, "half_length": CHAIN_HALF}
        if i == CHAIN_LINKS - 1:
            shape["material"] = "heavy"
        bodies.append({"name": "link%d" % i, "position": vec([0, 0, z]), "shapes": [shape]})
        a = "pivot" if i == 0 else "link%d" % (i - 1)
        anchor_a = [0, 0, 0] if i == 0 else [0, 0, -half_pitch]
        joints.append({"type": "ball", "body_a": a, "body_b": "link%d" % i,
                       "local_anchor_a": vec(anchor_a), "local_anchor_b": vec([0, 0, half_pitch])})
    return {
        "description": ("The peers' chain50_ratio100 (../shared/peers.md, 4a): 50 capsules (radius 0.1 m, "
                        "segment 0.5 m, pitch 0.7 m) hanging at rest from a static pivot at z = 40 m by "
                        "ball joints, the last link 100 times denser (100:1 end mass); no ground, no "
                        "contacts. The exact answer is a chain that does not move: every mm of stretch "
                        "after 10 s is solver error. Made by tests/bench/make_joint_scenes.py"),
        "world": world(),
        "materials": {"default": {"density": 1000}, "heavy": {"density": 1000 * CHAIN_RATIO}},
        "bodies": bodies,
        "joints": joints,
    }


# ---------------------------------------------------------------------------------------------
# 2. ragdoll

def ragdoll():
    # Built standing in a local frame (facing +x, feet down, pelvis centre at the origin), then
    # pitched forward about y and lifted. Body-frame anchors and axes do not change with that
    # rigid motion, so joints are written in the local frame.
    parts = []  # (name, local position, shapes)

    def capsule(r, h):
        return {"type": "capsule", "radius": r, "half_length": h}

    def box(hx, hy, hz):
        return {"type": "box", "half_extents": [hx, hy, hz]}

    # trunk
    parts.append(("pelvis", (0, 0, 0), [box(0.11, 0.15, 0.08)]))
    parts.append(("torso", (0, 0, 0.36), [box(0.11, 0.17, 0.24)]))
    parts.append(("head", (0, 0, 0.36 + 0.24 + 0.02 + 0.13), [capsule(0.1, 0.03)]))
    # arms hang at the sides, outside the torso box (y = 0.17 + 0.05 + 0.03)
    ua_h, ua_r = 0.11, 0.05
    la_h, la_r = 0.11, 0.045
    shoulder_z = 0.36 + 0.22
    for side, s in (("l", 1), ("r", -1)):
        y = s * 0.25
        ua_z = shoulder_z - (ua_h + ua_r)
        elbow_z = shoulder_z - 2 * (ua_h + ua_r)
        la_z = elbow_z - (la_h + la_r)
        parts.append(("upper_arm_" + side, (0, y, ua_z), [capsule(ua_r, ua_h)]))
        parts.append(("lower_arm_" + side, (0, y, la_z), [capsule(la_r, la_h)]))
    # legs: hips at the pelvis bottom, y = +-0.09
    ul_h, ul_r = 0.15, 0.07
    ll_h, ll_r = 0.15, 0.06
    hip_z = -0.08
    for side, s in (("l", 1), ("r", -1)):
        y = s * 0.09
        ul_z = hip_z - (ul_h + ul_r)
        knee_z = hip_z - 2 * (ul_h + ul_r)
        ll_z = knee_z - (ll_h + ll_r)
        ankle_z = knee_z - 2 * (ll_h + ll_r)
        parts.append(("upper_leg_" + side, (0, y, ul_z), [capsule(ul_r, ul_h)]))
        parts.append(("lower_leg_" + side, (0, y, ll_z), [capsule(ll_r, ll_h)]))
        parts.append(("foot_" + side, (0.05, y, ankle_z - 0.04), [box(0.12, 0.05, 0.04)]))
    pos = {name: p for name, p, _ in parts}

    joints = []

    def anchor(name, world_point):
        p = pos[name]
        return vec([world_point[i] - p[i] for i in range(3)])

    def ball(a, b, point):
        joints.append({"type": "ball", "body_a": a, "body_b": b,
                       "local_anchor_a": anchor(a, point), "local_anchor_b": anchor(b, point)})

    def hinge(a, b, point, axis, lower, upper):
        joints.append({"type": "hinge", "body_a": a, "body_b": b,
                       "local_anchor_a": anchor(a, point), "local_anchor_b": anchor(b, point),
                       "local_axis_a": axis, "limit": {"lower": lower, "upper": upper}})

    # waist: bending forward is a positive rotation about +y (the torso's top moves to +x)
    hinge("pelvis", "torso", (0, 0, 0.10), [0, 1, 0], -0.4, 0.9)
    ball("torso", "head", (0, 0, 0.36 + 0.24 + 0.02))
    for side, s in (("l", 1), ("r", -1)):
        y = s * 0.25
        ball("torso", "upper_arm_" + side, (0, y, shoulder_z))
        # elbow: the forearm swings forward (+x), a negative rotation about +y: axis -y, [0, 2.6]
        hinge("upper_arm_" + side, "lower_arm_" + side, (0, y, shoulder_z - 2 * (ua_h + ua_r)),
              [0, -1, 0], 0.0, 2.6)
        yl = s * 0.09
        ball("pelvis", "upper_leg_" + side, (0, yl, hip_z))
        knee = hip_z - 2 * (ul_h + ul_r)
        # knee: the shin swings backward (-x), a positive rotation about +y: [0, 2.5]
        hinge("upper_leg_" + side, "lower_leg_" + side, (0, yl, knee), [0, 1, 0], 0.0, 2.5)
        ankle = knee - 2 * (ll_h + ll_r)
        hinge("lower_leg_" + side, "foot_" + side, (0, yl, ankle), [0, 1, 0], -0.5, 0.7)

    # pose: pitch forward 0.3 rad about y, lowest point (the feet's soles) 1 m above the ground
    q = qaxis((0, 1, 0), 0.3)
    lowest = math.inf
    for name, p, shapes in parts:
        sh = shapes[0]
        if sh["type"] == "box":
            hx, hy, hz = sh["half_extents"]
            corners = [(sx * hx, sy * hy, sz * hz) for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)]
            for c in corners:
                w = qrot(q, [p[i] + c[i] for i in range(3)])
                lowest = min(lowest, w[2])
        else:
            for e in (-1, 1):
                w = qrot(q, [p[0], p[1], p[2] + e * sh["half_length"]])
                lowest = min(lowest, w[2] - sh["radius"])
    lift = 1.0 - lowest
    bodies = [GROUND]
    for name, p, shapes in parts:
        w = qrot(q, p)
        bodies.append({"name": name, "position": vec([w[0], w[1], w[2] + lift]),
                       "orientation": vec(q), "shapes": shapes})
    return {
        "description": ("A ragdoll of 13 boxes and capsules (about 85 kg at 1000 kg/m^3): ball joints at the "
                        "neck, shoulders and hips, hinges with limits at the waist, elbows, knees and "
                        "ankles; pitched forward 0.3 rad and dropped with its feet 1 m above the ground. "
                        "Made by tests/bench/make_joint_scenes.py"),
        "world": world(),
        "bodies": bodies,
        "joints": joints,
    }


# ---------------------------------------------------------------------------------------------
# 3. bridge

PLANKS = 20
PLANK_HALF = (0.2, 0.5, 0.04)
PLANK_PITCH = 0.45  # anchor to anchor: 0.4 m of plank + a 5 cm gap
BRIDGE_SPAN = 8.6   # between the two post anchors
BRIDGE_Z = 3.0      # the post anchors' height


def bridge():
    # Vertices P_0..P_PLANKS on a circular arc below the chord, P_k - P_{k-1} of length PLANK_PITCH
    # each, P_0 and P_PLANKS BRIDGE_SPAN apart: 2 R sin(a/2) = pitch, 2 R sin(PLANKS a / 2) = span.
    def chord(a):
        R = PLANK_PITCH / (2 * math.sin(a / 2))
        return 2 * R * math.sin(PLANKS * a / 2)

    lo, hi = 1e-6, 2 * math.pi / PLANKS - 1e-6
    for _ in range(200):
        mid = (lo + hi) / 2
        if chord(mid) > BRIDGE_SPAN:
            lo = mid
        else:
            hi = mid
    a = (lo + hi) / 2
    R = PLANK_PITCH / (2 * math.sin(a / 2))
    # circle centre above the chord's midpoint
    cz = BRIDGE_Z + R * math.cos(PLANKS * a / 2)
    pts = []
    for k in range(PLANKS + 1):
        th = -PLANKS * a / 2 + k * a  # angle from straight down
        pts.append((R * math.sin(th), 0.0, cz - R * math.cos(th)))
    post_x = BRIDGE_SPAN / 2 + 0.25
    bodies = [GROUND,
              {"name": "post_l", "type": "static", "position": [-post_x, 0, 0],
               "shapes": [{"type": "box", "half_extents": [0.25, 0.75, BRIDGE_Z / 2],
                           "position": [0, 0, BRIDGE_Z / 2]}]},
              {"name": "post_r", "type": "static", "position": [post_x, 0, 0],
               "shapes": [{"type": "box", "half_extents": [0.25, 0.75, BRIDGE_Z / 2],
                           "position": [0, 0, BRIDGE_Z / 2]}]}]
    joints = []
    hp = PLANK_PITCH / 2
    for i in range(PLANKS):
        p0, p1 = pts[i], pts[i + 1]
        c = [(p0[j] + p1[j]) / 2 for j in range(3)]
        dx, dz = p1[0] - p0[0], p1[2] - p0[2]
        phi = math.atan2(-dz, dx)  # rotation about y taking x to (dx, 0, dz)
        bodies.append({"name": "plank%d" % i, "position": vec(c), "orientation": vec(qaxis((0, 1, 0), phi)),
                       "shapes": [{"type": "box", "half_extents": list(PLANK_HALF), "material": "wood"}]})
    # the end planks on the posts' inner top edges, planks to each other at the gaps' middles
    joints.append({"type": "hinge", "body_a": "post_l", "body_b": "plank0",
                   "local_anchor_a": vec([pts[0][0] + post_x, 0, BRIDGE_Z]),
                   "local_anchor_b": vec([-hp, 0, 0]), "local_axis_a": [0, 1, 0]})
    for i in range(1, PLANKS):
        joints.append({"type": "hinge", "body_a": "plank%d" % (i - 1), "body_b": "plank%d" % i,
                       "local_anchor_a": vec([hp, 0, 0]), "local_anchor_b": vec([-hp, 0, 0]),
                       "local_axis_a": [0, 1, 0]})
    joints.append({"type": "hinge", "body_a": "plank%d" % (PLANKS - 1), "body_b": "post_r",
                   "local_anchor_a": vec([hp, 0, 0]),
                   "local_anchor_b": vec([pts[-1][0] - post_x, 0, BRIDGE_Z]), "local_axis_a": [0, 1, 0]})
    for k, (x, h) in enumerate(((-2.0, 1.0), (0.3, 1.6), (2.2, 2.2))):
        # above the arc at x
        th = math.asin(max(-1.0, min(1.0, x / R)))
        z = cz - R * math.cos(th) + PLANK_HALF[2] + 0.2 + h
        bodies.append({"name": "crate%d" % k, "position": vec([x, 0.1 * (k - 1), z]),
                       "shapes": [{"type": "box", "half_extents": [0.2, 0.2, 0.2]}]})
    sag = BRIDGE_Z - min(p[2] for p in pts)
    return {
        "description": ("A rope bridge: 20 planks (0.4 x 1.0 x 0.08 m, 600 kg/m^3) hinged about y at their "
                        "edges (0.45 m pitch, 9 m of bridge) between two static posts 8.6 m apart, starting "
                        "on a circular arc that sags %.2f m; three 0.4 m crates (64 kg) are dropped on it. "
                        "Made by tests/bench/make_joint_scenes.py" % sag),
        "world": world(),
        "materials": {"wood": {"density": 600}},
        "bodies": bodies,
        "joints": joints,
    }


# ---------------------------------------------------------------------------------------------
# 4. door

DOOR_HALF = (0.45, 0.02, 1.0)
DOOR_SPEED = 0.5
DOOR_TORQUE = 5.0
DOOR_LIMIT = 1.5
DOOR_DENSITY = 600


def door():
    bodies = [GROUND,
              {"name": "frame", "type": "static", "position": [0, 0, 0],
               "shapes": [
                   {"type": "box", "half_extents": [0.05, 0.06, 1.1], "position": [-0.1, 0, 1.1]},
                   {"type": "box", "half_extents": [0.05, 0.06, 1.1], "position": [1.05, 0, 1.1]},
                   {"type": "box", "half_extents": [0.625, 0.06, 0.05], "position": [0.475, 0, 2.25]}]},
              {"name": "door", "position": [0.5, 0, 1.07],
               "shapes": [{"type": "box", "half_extents": list(DOOR_HALF), "material": "wood"}]}]
    joints = [{"type": "hinge", "body_a": "frame", "body_b": "door",
               "local_anchor_a": [0, 0, 1.07], "local_anchor_b": [-0.5, 0, 0], "local_axis_a": [0, 0, 1],
               "limit": {"lower": -DOOR_LIMIT, "upper": DOOR_LIMIT},
               "motor": {"speed": DOOR_SPEED, "max_torque": DOOR_TORQUE}}]
    return {
        "description": ("A door (0.9 x 0.04 x 2 m, 600 kg/m^3, 43.2 kg) hinged about z 5 cm from its edge on "
                        "a static frame, limits [-1.5, 1.5] rad, a motor at 0.5 rad/s with at most 5 N m: it "
                        "speeds up at about 0.36 rad/s^2, turns at 0.5 rad/s from about 1.4 s and rests on "
                        "the upper limit from about 3.7 s. Made by tests/bench/make_joint_scenes.py"),
        "world": world(),
        "materials": {"wood": {"density": DOOR_DENSITY}},
        "bodies": bodies,
        "joints": joints,
    }


SCENES = {
    "joint_chain50_heavy": chain50_heavy,
    "joint_ragdoll": ragdoll,
    "joint_bridge": bridge,
    "joint_door": door,
}


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=os.path.join(here, "..", "..", "assets", "scenes"))
    args = ap.parse_args()
    for name, fn in SCENES.items():
        path = os.path.join(args.out, name + ".json")
        write_scene(path, fn())
        print("wrote", os.path.normpath(path))


if __name__ == "__main__":
    main()
