#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Measure the joint scenes of tests/bench/make_joint_scenes.py with the cairn binary and write
tests/bench/results/amd_epyc_2vcpu/joints.md.

    python3 tests/bench/measure_joints.py --cairn build/hm/demos/cairn [--out FILE] [--repeats 3]

Everything is computed from `cairn run --report` (final_state: body origin, orientation [w, x, y, z],
velocities, world frame) and the joints as the scene file writes them (anchors in the body frames,
hinge axes in A's frame), so it measures what the engine did without any engine-side joint query:

  joint error   |R_A a_A + p_A - (R_B a_B + p_B)|, the anchors' separation (ball, hinge, fixed)
  axis error    hinges: the angle between A's axis and B's axis (B's axis: A's at creation, carried in
                B's frame), mrad
  hinge angle   B's rotation about A's axis relative to the pose at creation, (-pi, pi]
  limit error   how far a hinge angle is outside its limits, mrad

joint_chain50_heavy at rest: every solver `cairn solvers` lists, 600 steps (10 s), one after another in
one session. `cairn run --solver NAME` keeps the scene's iteration limit (10, docs/cli.md), which is
a sweep budget only for the sweep solvers; every solver whose iteration unit is not a sweep (the
`iterations` parameter's description in `cairn solvers --json`) gets a second row with its own
default budget (`--param iterations=<its default>`). Each run is repeated --repeats times and the
smallest CPU ms/step (the summary line's "(cpu X)") kept (the final states of the repeats must agree
bit for bit, which is checked).
joint_chain50_heavy swinging: the same rows with gravity tilted 0.5 m/s^2 sideways
(`--set world.gravity=[0.5,0,-9.81]`), 3000 steps, once each: the largest kinetic energy of the
trace (every step) and the largest joint error sampled every --swing-sample steps.
joint_ragdoll, joint_bridge, joint_door: the default solver (pgs), 2000 steps; the errors "over the
run" are sampled at every step up to --dense and every --sample steps after, by re-running the scene
for that many steps (the runs are deterministic, so the state after k steps of a k-step run is the
state after step k of the long run). The ragdoll and the bridge are run again with each part of the
joints' treatment off (the joint projection, the sweep solvers' exact joint rows, both, and both with
8 substeps), to show what each part does and costs. The chain tables run every solver with the joint
projection off, so that the error is the solver's own, plus one row at the engine's defaults.
"""

import argparse
import datetime
import json
import math
import os
import platform
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
SCENES = os.path.join(ROOT, "assets", "scenes")


# ------------------------------------------------------------------------------------------- math

def qmul(a, b):
    aw, ax, ay, az = a
    bw, bx, by, bz = b
    return (aw * bw - ax * bx - ay * by - az * bz,
            aw * bx + ax * bw + ay * bz - az * by,
            aw * by - ax * bz + ay * bw + az * bx,
            aw * bz + ax * by - ay * bx + az * bw)


def qconj(q):
    return (q[0], -q[1], -q[2], -q[3])


def qnorm(q):
    n = math.sqrt(sum(c * c for c in q))
    return tuple(c / n for c in q)


def qrot(q, v):
    p = qmul(qmul(q, (0.0, v[0], v[1], v[2])), qconj(q))
    return (p[1], p[2], p[3])


def add(a, b):
    return tuple(a[i] + b[i] for i in range(3))


def sub(a, b):
    return tuple(a[i] - b[i] for i in range(3))


def dot(a, b):
    return sum(a[i] * b[i] for i in range(3))


def norm(a):
    return math.sqrt(dot(a, a))


def unit(a):
    n = norm(a)
    return tuple(c / n for c in a)


def finite(x):
    return isinstance(x, (int, float)) and math.isfinite(x)


# ------------------------------------------------------------------------------------------ scene

class Scene:
    def __init__(self, path):
        self.path = path
        with open(path) as f:
            self.data = json.load(f)
        self.bodies = {}
        for b in self.data["bodies"]:
            if "name" in b:
                self.bodies[b["name"]] = (tuple(b.get("position", [0, 0, 0])),
                                          qnorm(tuple(b.get("orientation", [1, 0, 0, 0]))))
        self.joints = self.data.get("joints", [])
        for j in self.joints:
            if j["type"] not in ("ball", "hinge", "fixed"):
                raise SystemExit("measure_joints: joint type %s is not measured" % j["type"])
            if j["type"] == "hinge":
                qa0 = self.bodies[j["body_a"]][1]
                qb0 = self.bodies[j["body_b"]][1]
                axis_a = unit(tuple(j.get("local_axis_a", [0, 0, 1])))
                j["_axis_a"] = axis_a
                j["_axis_b"] = qrot(qconj(qb0), qrot(qa0, axis_a))
                j["_rel0"] = qmul(qconj(qa0), qb0)

    def name(self):
        return os.path.basename(self.path)


def state_map(report):
    out = {}
    for b in report["final_state"]:
        if "name" in b:
            out[b["name"]] = b
    return out


def joint_metrics(scene, states):
    """Per joint: (anchor separation m, axis error rad or None, hinge angle or None, limit error rad)."""
    rows = []
    for j in scene.joints:
        a = states[j["body_a"]]
        b = states[j["body_b"]]
        pa, qa = tuple(a["position"]), qnorm(tuple(a["orientation"]))
        pb, qb = tuple(b["position"]), qnorm(tuple(b["orientation"]))
        wa = add(pa, qrot(qa, j.get("local_anchor_a", [0, 0, 0])))
        wb = add(pb, qrot(qb, j.get("local_anchor_b", [0, 0, 0])))
        sep = norm(sub(wa, wb))
        axis_err = angle = limit_err = None
        if j["type"] == "hinge":
            xa = qrot(qa, j["_axis_a"])
            xb = qrot(qb, j["_axis_b"])
            axis_err = math.atan2(norm(cross(xa, xb)), dot(xa, xb))
            rel = qmul(qconj(qa), qb)
            dq = qmul(rel, qconj(j["_rel0"]))
            angle = 2 * math.atan2(dot(dq[1:], j["_axis_a"]), dq[0])
            if angle > math.pi:
                angle -= 2 * math.pi
            if angle <= -math.pi:
                angle += 2 * math.pi
            if "limit" in j:
                lo = j["limit"].get("lower", -math.pi / 4)
                hi = j["limit"].get("upper", math.pi / 4)
                limit_err = max(0.0, lo - angle, angle - hi)
        rows.append((sep, axis_err, angle, limit_err))
    return rows


def cross(a, b):
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def state_finite(report):
    for b in report["final_state"]:
        for k in ("position", "orientation", "linear_velocity", "angular_velocity"):
            if not all(finite(c) for c in b[k]):
                return False
    return True


# ------------------------------------------------------------------------------------------- runs

CPU_RE = re.compile(r"\(cpu ([0-9.eE+-]+)\)")


def run(cairn, scene_path, steps, solver=None, trace=False, extra=()):
    with tempfile.TemporaryDirectory(prefix="measure_joints_") as tmp:
        rep = os.path.join(tmp, "r.json")
        cmd = [cairn, "run", scene_path, "--steps", str(steps), "--quiet", "--report", rep]
        if solver:
            cmd += ["--solver", solver]
        cmd += list(extra)
        tr = os.path.join(tmp, "t.csv")
        if trace:
            cmd += ["--trace", tr]
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode != 0 or not os.path.exists(rep):
            return {"failed": True, "rc": p.returncode, "stdout": p.stdout, "stderr": p.stderr, "cmd": cmd}
        with open(rep) as f:
            text = f.read()
        # the report may hold nan / inf written by a non-strict writer: Python's json reads NaN
        report = json.loads(text)
        m = CPU_RE.search(p.stdout)
        report["_cpu_summary"] = float(m.group(1)) if m else float("nan")
        report["_summary"] = p.stdout.strip()
        report["_stderr"] = p.stderr
        report["_cmd"] = cmd
        if trace:
            with open(tr) as f:
                report["_trace"] = f.read()
        return report


def warnings_text(report):
    wc = report.get("warning_counts", {})
    parts = ["%s %d" % (k, v) for k, v in wc.items() if v]
    return ", ".join(parts) if parts else "none"


def solver_info(cairn):
    """[(name, iterations default, iteration unit, caps)] in `cairn solvers` order."""
    p = subprocess.run([cairn, "solvers", "--json"], capture_output=True, text=True, check=True)
    out = []
    for sv in json.loads(p.stdout)["solvers"]:
        it = next((q for q in sv["params"] if q["name"] == "iterations"), None)
        out.append((sv["name"], it["default"] if it else None, iteration_unit(it["description"] if it else ""),
                    sv.get("caps", [])))
    return out


def iteration_unit(desc):
    """The unit of a solver's `iterations` from its description: "sweep budget per solve" -> "sweeps"."""
    if desc.startswith("budget of the solver inside"):
        return "inner solver's unit per level"
    m = re.match(r"(.*?) (budget|limit)\b", desc)
    return (m.group(1) + "s") if m else "?"


def chain_rows(cairn):
    """(label, solver, extra options, note) for the chain tables: every solver as `--solver` leaves it, and a
    second row at its own iteration budget for the solvers whose unit is not a sweep."""
    rows = []
    for name, default, unit, caps in solver_info(cairn):
        rows.append((name, name, NO_PROJECTION, unit))
        if name == "pgs":
            rows.append(("pgs, joints=sweep", name, NO_PROJECTION + ("--param", "joints=sweep"), unit))
        if unit != "sweeps" and default is not None:
            rows.append(("%s, iterations=%d" % (name, default), name,
                         NO_PROJECTION + ("--param", "iterations=%d" % default), unit))
    rows.insert(0, (DEFAULTS_LABEL, "pgs", (), "sweeps"))
    return rows


# the chain tables compare what each solver does by itself: the world's joint projection off
NO_PROJECTION = ("--set", "world.joint_projection=false")
DEFAULTS_LABEL = "pgs, defaults (joint projection on)"


def has_param(extra):
    return "--param" in extra


def fmt(x, digits=3):
    if x is None:
        return "-"
    if not math.isfinite(x):
        return str(x)
    if x == 0:
        return "0"
    if abs(x) >= 1e6 or abs(x) < 1e-3:
        return "%.2e" % x
    return ("%." + str(digits) + "g") % x


def trace_nonfinite(trace_text):
    lines = trace_text.splitlines()
    head = lines[0].split(",")
    bad = 0
    first = None
    cols = [i for i, h in enumerate(head) if h in ("kinetic_energy", "residual", "merit_natural_map")]
    ke_max = 0.0
    ke_i = head.index("kinetic_energy")
    for line in lines[1:]:
        f = line.split(",")
        for i in cols:
            v = f[i].strip().lower()
            if v in ("nan", "-nan", "inf", "-inf"):
                bad += 1
                if first is None:
                    first = int(f[0])
        try:
            ke_max = max(ke_max, float(f[ke_i]))
        except ValueError:
            pass
    return bad, first, ke_max


def trace_ke(trace_text):
    """(non-finite rows, first non-finite step, largest kinetic energy, its step)."""
    lines = trace_text.splitlines()
    head = lines[0].split(",")
    ke_i = head.index("kinetic_energy")
    bad, first, ke_max, ke_step = 0, None, 0.0, 0
    for line in lines[1:]:
        f = line.split(",")
        try:
            v = float(f[ke_i])
        except ValueError:
            v = float("nan")
        if not math.isfinite(v):
            bad += 1
            if first is None:
                first = int(f[0])
            continue
        if v > ke_max:
            ke_max, ke_step = v, int(f[0])
    return bad, first, ke_max, ke_step


# ------------------------------------------------------------------------------------------ chain

def chain_geometry(scene):
    links = sorted((n for n in scene.bodies if n.startswith("link")), key=lambda n: int(n[4:]))
    end = links[-1]
    pivot = scene.bodies["pivot"][0]
    end0 = scene.bodies[end][0]
    return end, pivot, end0, norm(sub(end0, pivot))


def limit_text(r, unit):
    it = r.get("solver_params", {}).get("iterations")
    return "%s %s" % ("%d" % it if isinstance(it, (int, float)) and math.isfinite(it) else "?", unit)


def measure_chain(cairn, repeats, out):
    path = os.path.join(SCENES, "joint_chain50_heavy.json")
    scene = Scene(path)
    end, pivot, end0, rest = chain_geometry(scene)
    steps = 600
    rows = []
    for label, s, extra, unit in chain_rows(cairn):
        best = None
        ref_state = None
        det = True
        for _ in range(repeats):
            r = run(cairn, path, steps, solver=s, extra=extra, trace=True)
            if r.get("failed"):
                best = r
                break
            r["_ke_max"] = trace_ke(r["_trace"])[2:]
            st = json.dumps(r["final_state"])
            if ref_state is None:
                ref_state = st
            elif st != ref_state:
                det = False
            if best is None or r["_cpu_summary"] < best["_cpu_summary"]:
                best = r
        rows.append((label, s, extra, unit, best, det))
        print("chain50_heavy", label, best.get("_summary", best.get("stderr", "")), file=sys.stderr)
    pgs_cpu = next(r["_cpu_summary"] for label, s, e, u, r, _ in rows if label == "pgs" and not r.get("failed"))
    out.append("## joint_chain50_heavy at rest: every solver, 600 steps (10 s at 1/60 s)\n")
    at10 = [lb for lb, s, e, u, r, _ in rows if not has_param(e) and u != "sweeps" and not r.get("failed")
            and r.get("solver_params", {}).get("iterations") == 10]
    kept = [lb for lb, s, e, u, r, _ in rows if not has_param(e) and u != "sweeps" and not r.get("failed")
            and r.get("solver_params", {}).get("iterations") != 10]
    out.append("The peers' chain50_ratio100 (../shared/peers.md, section 4a): 50 capsule links (radius 0.1 m, "
               "segment 0.5 m, pitch 0.7 m) hanging at rest from a static pivot at z = 40 m on ball joints, "
               "the last link 100 times denser; no contacts are expected. "
               "**Every row but the first runs with the world's joint projection off** "
               "(`--set world.joint_projection=false`), so that the error is the solver's own; the first row is "
               "the engine's defaults (pgs, projection on). The sweep solvers (pgs, psor, pgj, amgs) solve the "
               "joints' free rows exactly after every sweep (`joints=exact`, their default); the row `pgs, "
               "joints=sweep` is plain PGS, every row swept. "
               "`cairn run assets/scenes/joint_chain50_heavy.json --steps 600 --solver NAME` swaps the solver "
               "but keeps the scene's iteration limit (docs/cli.md), here pgs's default of 10, with every other "
               "parameter at the solver's default; the **iteration limit** column is what each run used (the "
               "report's solver_params). 10 is the sweep solvers' own budget; %s ran with 10 of their own unit, "
               "which is not their default%s. So every solver whose iteration is not a sweep has a second row, "
               "`--param iterations=N`, at its own default budget N (`cairn solvers`). "
               "%d runs each, smallest CPU time kept. "
               "**max joint error**: the largest anchor separation over the 50 joints after step 600. "
               "**total stretch**: |end link's centre - pivot| - %.2f m (its rest distance). "
               "**end displacement**: how far the end link's centre moved from its start (the peers' metric; "
               "0 is exact). **max kinetic energy**: the largest of the trace over the 600 steps, and its step. The "
               "chain starts at rest with cold joints (no warm start yet); where that peak comes in the first 50 "
               "steps, the solver did not carry the end link's load up 50 links at first, so the chain dropped and "
               "rebounded until the warm start caught up.\n" % (
                   ", ".join(at10) or "none", ("; %s kept its own limit" % ", ".join(kept)) if kept else "",
                   repeats, rest))
    out.append("| solver | iteration limit | max joint error (mm) | total stretch (mm) | end displacement (mm) | cpu ms/step | ratio to pgs | max kinetic energy (J), at step | kinetic energy at 10 s (J) | warnings (steps) |")
    out.append("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
    results = {}
    for label, s, extra, unit, r, det in rows:
        if r.get("failed"):
            out.append("| %s | | run failed (exit %s) | | | | | | | %s |" % (label, r["rc"], (r["stderr"].strip().splitlines() or [""])[-1]))
            continue
        states = state_map(r)
        ok = state_finite(r)
        if ok:
            errs = joint_metrics(scene, states)
            maxerr = max(e[0] for e in errs)
            pe = tuple(states[end]["position"])
            stretch = norm(sub(pe, pivot)) - rest
            disp = norm(sub(pe, end0))
        else:
            maxerr = stretch = disp = float("nan")
        cpu = r["_cpu_summary"]
        results[label] = (maxerr, stretch, cpu / pgs_cpu, ok, cpu, r["kinetic_energy_final"])
        note = warnings_text(r)
        if not det:
            note += "; final states of the repeats differ"
        out.append("| %s | %s | %s | %s | %s | %s | %.2f | %s, %d | %s | %s |" % (
            label, limit_text(r, unit), fmt(maxerr * 1e3), fmt(stretch * 1e3), fmt(disp * 1e3), fmt(cpu),
            cpu / pgs_cpu, fmt(r["_ke_max"][0]), r["_ke_max"][1], fmt(r["kinetic_energy_final"]), note))
    out.append("")
    out.append("**The claim** (\"an exact or Newton-type solver (pgs_sm, newton_minmap, newton_fb, lemke if it "
               "runs) keeps it under 1 mm at no more than three times PGS's cost per step\"), solver by solver, "
               "each at the scene's limit and at its own budget:\n")
    for s in ("pgs_sm", "newton_minmap", "newton_fb", "lemke"):
        labels = [lb for lb in results if lb == s or lb.startswith(s + ",")]
        if not labels:
            out.append("- %s: not registered or the run failed" % s)
            continue
        for lb in labels:
            maxerr, stretch, ratio, ok, cpu, ke = results[lb]
            under = ok and maxerr < 1e-3 and abs(stretch) < 1e-3
            cheap = ratio <= 3.0
            out.append("- %s: max joint error %s mm, stretch %s mm (%s 1 mm), %.2f x pgs's CPU per step (%s 3 x): %s%s" % (
                lb, fmt(maxerr * 1e3), fmt(stretch * 1e3), "under" if under else "NOT under", ratio,
                "within" if cheap else "NOT within", "holds" if (under and cheap) else "does not hold",
                " (lemke has no bilateral rows: the world drops every joint, warning joints_dropped on every step, "
                "and the chain falls freely)" if s == "lemke" else ""))
    out.append("")
    for s in ("bbpgd", "relcp"):
        at10 = results.get(s)
        own = next((results[lb] for lb in results if lb.startswith(s + ",")), None)
        own_label = next((lb for lb in results if lb.startswith(s + ",")), None)
        if not at10 or not own:
            continue
        def held(x):
            return x[3] and x[0] < 1e-3 and abs(x[1]) < 1e-3
        out.append("- %s at the scene's 10 iterations: max joint error %s mm, kinetic energy %s J (%s); at its own "
                   "budget (%s): %s mm, %s J (%s), %s ms CPU per step (%.2f x pgs)" % (
                       s, fmt(at10[0] * 1e3), fmt(at10[5]), "holds the chain" if held(at10) else "does NOT hold the chain",
                       own_label.split(", ", 1)[1], fmt(own[0] * 1e3), fmt(own[5]),
                       "holds the chain" if held(own) else "does NOT hold the chain", fmt(own[4]), own[2]))
    out.append("")
    out.append("The sweep solvers spend their full budget on every step whether or not they hold the chain, so "
               "their ratios are a fair cost comparison; the others stop at the tolerance when they reach it.\n")
    return results


def measure_swing(cairn, sample, out):
    path = os.path.join(SCENES, "joint_chain50_heavy.json")
    scene = Scene(path)
    end, pivot, end0, rest = chain_geometry(scene)
    steps = 3000
    tilt = ("--set", "world.gravity=[0.5,0,-9.81]")
    out.append("## joint_chain50_heavy swinging: every solver, %d steps (50 s)\n" % steps)
    out.append("The same chain with gravity tilted 0.5 m/s^2 sideways (`--set world.gravity=[0.5,0,-9.81]`), so "
               "that it swings from rest, the 100:1 end link leading; the rows (and the joint projection off in "
               "all but the first) as above. **max kinetic energy**: the "
               "largest of the trace (every step). **max joint error**: the largest anchor separation over the 50 "
               "joints, sampled every %d steps (%d samples). One run each; cpu is the full run's. For scale: the "
               "chain's potential energy relative to hanging along the tilted gravity is %s J when it starts, so "
               "a kinetic energy far above that is energy the solver made; a peak in the first 50 steps "
               "is the start transient of the table above (the same solver's largest kinetic energy at rest), not "
               "the swing. Before the geometric "
               "stiffness of joint.c (issue 18) pgs reached 1.89e8 J here.\n" % (
                   sample, steps // sample, fmt(swing_energy(scene))))
    out.append("| solver | iteration limit | max kinetic energy (J) | at step | max joint error (mm) | at step | joint error at the end (mm) | cpu ms/step | warnings (steps) |")
    out.append("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
    results = {}
    for label, s, extra, unit in chain_rows(cairn):
        opts = tilt + tuple(extra)
        full = run(cairn, path, steps, solver=s, trace=True, extra=opts)
        if full.get("failed"):
            out.append("| %s | | run failed (exit %s) | | | | | | |" % (label, full["rc"]))
            continue
        print("swing", label, full["_summary"], file=sys.stderr)
        bad, first_bad, ke_max, ke_step = trace_ke(full["_trace"])
        worst, worst_step = -1.0, None
        for k in range(sample, steps + 1, sample):
            r = full if k == steps else run(cairn, path, k, solver=s, extra=opts)
            if r.get("failed") or not state_finite(r):
                worst, worst_step = float("nan"), k
                break
            e = max(m[0] for m in joint_metrics(scene, state_map(r)))
            if e > worst:
                worst, worst_step = e, k
        endv = max(m[0] for m in joint_metrics(scene, state_map(full))) if state_finite(full) else float("nan")
        results[label] = (ke_max, worst)
        out.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            label, limit_text(full, unit), fmt(ke_max) + (" (%d non-finite steps)" % bad if bad else ""), ke_step,
            fmt(worst * 1e3), worst_step if worst_step else "-", fmt(endv * 1e3), fmt(full["_cpu_summary"]),
            warnings_text(full)))
    out.append("")
    return results


def swing_energy(scene):
    """Potential energy of the chain as it starts, relative to hanging straight along the tilted gravity, J."""
    g = (0.5, 0.0, -9.81)
    gn = norm(g)
    mats = scene.data.get("materials", {})
    pivot = scene.bodies["pivot"][0]
    down = unit(g)
    e = 0.0
    for b in scene.data["bodies"]:
        if b.get("type", "dynamic") != "dynamic" or "name" not in b:
            continue
        sh = b["shapes"][0]
        rho = mats.get(sh.get("material", b.get("material", "default")), {}).get("density", 1000.0)
        r, h = sh["radius"], sh["half_length"]
        m = rho * (math.pi * r * r * 2 * h + 4.0 / 3.0 * math.pi * r ** 3)
        p = sub(tuple(b["position"]), pivot)
        d = norm(p)
        # height above its lowest point (d along the gravity from the pivot), along -g
        e += m * gn * (d - dot(p, down))
    return e


def diagnostics(cairn, out):
    """Runs off the defaults, to locate where joints fail: not part of the comparison above."""
    sys.path.insert(0, HERE)
    import make_joint_scenes as mk
    out.append("## Diagnostics (not part of the comparison: runs off the defaults, to locate where joints fail)\n")
    out.append("Kinetic energy after the run (J) and warnings. The exact answer for every chain row is a chain "
               "that does not move (kinetic energy 0). Uniform chains are joint_chain50_heavy with N links and "
               "the end link as dense as the others (`make_joint_scenes.py`'s generator, written to a temporary "
               "file).\n")
    out.append("| scene | steps | solver and options | kinetic energy at the end (J) | max joint error at the end (mm) | warnings (steps) |")
    out.append("| --- | ---: | --- | ---: | ---: | --- |")
    with tempfile.TemporaryDirectory(prefix="measure_joints_d_") as tmp:
        variants = []
        chain = os.path.join(SCENES, "joint_chain50_heavy.json")
        for opts in ((), ("--param", "warm_start=false"), ("--param", "iterations=30"),
                     ("--param", "iterations=100"), ("--param", "kernel=reference"),
                     ("--set", "world.gravity=[0.5,0,-9.81]")):
            variants.append(("joint_chain50_heavy", chain, 600, "pgs", opts))
        for n in (5, 10, 50):
            mk.CHAIN_LINKS, mk.CHAIN_RATIO = n, 1.0
            path = os.path.join(tmp, "chain%d_uniform.json" % n)
            mk.write_scene(path, mk.chain50_heavy())
            for opts in ((), ("--param", "warm_start=false")):
                variants.append(("uniform chain, %d links" % n, path, 600, "pgs", opts))
        mk.CHAIN_LINKS, mk.CHAIN_RATIO = 50, 100.0
        bridge = os.path.join(SCENES, "joint_bridge.json")
        nocrate = os.path.join(tmp, "bridge_nocrates.json")
        sc = mk.bridge()
        sc["bodies"] = [b for b in sc["bodies"] if not b["name"].startswith("crate")]
        mk.write_scene(nocrate, sc)
        for solver, opts in (("pgs", ()), ("pgs", ("--param", "warm_start=false")), ("pgs_sm", ()),
                             ("newton_minmap", ()), ("newton_fb", ()), ("ipm", ())):
            variants.append(("joint_bridge", bridge, 2000, solver, opts))
            variants.append(("joint_bridge without the crates", nocrate, 2000, solver, opts))
        for label, path, steps, solver, opts in variants:
            r = run(cairn, path, steps, solver=solver, extra=opts)
            if r.get("failed"):
                out.append("| %s | %d | %s %s | run failed | | |" % (label, steps, solver, " ".join(opts)))
                continue
            scene = Scene(path)
            err = max(e[0] for e in joint_metrics(scene, state_map(r))) if state_finite(r) else float("nan")
            out.append("| %s | %d | %s %s | %s | %s | %s |" % (label, steps, solver, " ".join(opts),
                                                            fmt(r["kinetic_energy_final"]), fmt(err * 1e3),
                                                            warnings_text(r)))
            print("diag", label, solver, opts, r["_summary"], file=sys.stderr)
    out.append("")


# ------------------------------------------------------------------------------------------ others

def sample_steps(steps, sample, dense):
    """Every step to `dense`, every `sample` steps after, and the last step."""
    return sorted(set(range(1, min(dense, steps) + 1)) | set(range(sample, steps + 1, sample)) | {steps})


def sampled_run(cairn, scene, path, steps, sample, dense, extra=()):
    """The full run (with its trace) and the joints' errors sampled over it."""
    full = run(cairn, path, steps, trace=True, extra=extra)
    if full.get("failed"):
        return full, None
    samples = sample_steps(steps, sample, dense)
    n = len(scene.joints)
    res = {"per_joint_max": [0.0] * n, "per_joint_axis": [0.0] * n, "per_joint_limit": [0.0] * n,
           "worst": -1.0, "worst_step": None, "samples": len(samples), "series": []}
    for k in samples:
        r = full if k == steps else run(cairn, path, k, extra=extra)
        if r.get("failed") or not state_finite(r):
            res["series"].append((k, None))
            continue
        m = joint_metrics(scene, state_map(r))
        for i, (sep, ax, ang, lim) in enumerate(m):
            res["per_joint_max"][i] = max(res["per_joint_max"][i], sep)
            if ax is not None:
                res["per_joint_axis"][i] = max(res["per_joint_axis"][i], ax)
            if lim is not None:
                res["per_joint_limit"][i] = max(res["per_joint_limit"][i], lim)
        step_max = max(e[0] for e in m)
        if step_max > res["worst"]:
            res["worst"], res["worst_step"] = step_max, k
    return full, res


def measure_other(cairn, name, steps, sample, dense, out, door=False):
    path = os.path.join(SCENES, name + ".json")
    scene = Scene(path)
    full, res = sampled_run(cairn, scene, path, steps, sample, dense)
    if full.get("failed"):
        out.append("## %s\n\nthe run failed: exit %s\n\n```\n%s\n```\n" % (name, full["rc"], full["stderr"]))
        return None
    print(name, full["_summary"], file=sys.stderr)
    bad, first_bad, ke_max = trace_nonfinite(full["_trace"])
    ok = state_finite(full)
    per_joint_max, per_joint_axis, per_joint_limit = res["per_joint_max"], res["per_joint_axis"], res["per_joint_limit"]
    worst, worst_step = res["worst"], res["worst_step"]
    end = joint_metrics(scene, state_map(full)) if ok else None

    out.append("## %s: pgs (the scene's solver, defaults), %d steps\n" % (name, steps))
    out.append("`cairn run assets/scenes/%s.json --steps %d`: %s\n" % (name, steps, full["_summary"]))
    out.append("- NaN or infinity: %s (final state %s; trace columns kinetic_energy, residual, merit: %d non-finite rows%s)" % (
        "**yes**" if (bad or not ok) else "none", "finite" if ok else "NOT finite", bad,
        ", first at step %d" % first_bad if first_bad else ""))
    out.append("- warnings: %s; largest kinetic energy in the trace %s J, at the end %s J" % (
        warnings_text(full), fmt(ke_max), fmt(full["kinetic_energy_final"])))
    if end:
        endmax = max(e[0] for e in end)
        out.append("- max joint error at the end (step %d): **%s mm** (%s 1 mm)" % (
            steps, fmt(endmax * 1e3), "under" if endmax < 1e-3 else "NOT under"))
        out.append("- max joint error over the run, sampled at every step to step %d and every %d steps after (%d samples): **%s mm** at step %d (%s 1 mm)" % (
            dense, sample, res["samples"], fmt(worst * 1e3), worst_step, "under" if worst < 1e-3 else "NOT under"))
        hinges = [i for i, j in enumerate(scene.joints) if j["type"] == "hinge"]
        if hinges:
            out.append("- hinge axis misalignment: at the end %s mrad, sampled max %s mrad; hinge limit overshoot: at the end %s mrad, sampled max %s mrad" % (
                fmt(max(end[i][1] for i in hinges) * 1e3), fmt(max(per_joint_axis[i] for i in hinges) * 1e3),
                fmt(max((end[i][3] or 0.0) for i in hinges) * 1e3), fmt(max(per_joint_limit[i] for i in hinges) * 1e3)))
        out.append("")
        out.append("| joint | type | bodies | error at the end (mm) | sampled max (mm) | hinge angle at the end (rad) | limits (rad) |")
        out.append("| ---: | --- | --- | ---: | ---: | ---: | --- |")
        for i, j in enumerate(scene.joints):
            lim = j.get("limit")
            out.append("| %d | %s | %s - %s | %s | %s | %s | %s |" % (
                i, j["type"], j["body_a"], j["body_b"], fmt(end[i][0] * 1e3), fmt(per_joint_max[i] * 1e3),
                fmt(end[i][2]) if end[i][2] is not None else "-",
                "[%g, %g]" % (lim["lower"], lim["upper"]) if lim else "-"))
    out.append("")
    if door:
        j = scene.joints[0]
        motor = j["motor"]
        qa0 = scene.bodies[j["body_a"]][1]
        out.append("Door hinge against its motor (target %g rad/s, at most %g N m) and its limits [%g, %g] rad; "
                   "speed = (door's angular velocity - frame's) . the hinge axis in the world. The expected "
                   "column is the torque-limited ramp: speed min(tau / I t, target), I = %.3f kg m^2 about the "
                   "hinge, until the door reaches the upper limit (about %.2f s), then 0.\n" % (
                       motor["speed"], motor["max_torque"], j["limit"]["lower"], j["limit"]["upper"],
                       door_inertia(scene), door_limit_time(scene)))
        out.append("| step | time (s) | hinge angle (rad) | hinge speed (rad/s) | expected speed (rad/s) | joint error (mm) |")
        out.append("| ---: | ---: | ---: | ---: | ---: | ---: |")
        dt = scene.data["world"]["dt"]
        wanted = [15, 30, 60, 90, 120, 180, 240, 300, 600, steps]
        rows = {}
        for k in wanted:
            r = full if k == steps else run(cairn, path, k)
            rows[k] = r
        for k in wanted:
            r = rows[k]
            st = state_map(r)
            qa = qnorm(tuple(st[j["body_a"]]["orientation"]))
            axis_w = qrot(qa, j["_axis_a"])
            wrel = sub(tuple(st[j["body_b"]]["angular_velocity"]), tuple(st[j["body_a"]]["angular_velocity"]))
            speed = dot(wrel, axis_w)
            m = joint_metrics(scene, st)[0]
            t = k * dt
            out.append("| %d | %.3f | %.4f | %.4f | %.4f | %s |" % (
                k, t, m[2], speed, door_expected(scene, t), fmt(m[0] * 1e3)))
        out.append("")
    return full, res


# what each part of the joints' treatment does: (label, options)
VARIANTS = (
    ("defaults", ()),
    ("--param joints=sweep", ("--param", "joints=sweep")),
    ("--set world.joint_projection=false", NO_PROJECTION),
    ("--set world.joint_projection=false --param joints=sweep", NO_PROJECTION + ("--param", "joints=sweep")),
    ("--set world.joint_projection=false --param joints=sweep --set world.substeps=8",
     NO_PROJECTION + ("--param", "joints=sweep", "--set", "world.substeps=8")),
)


def measure_substeps(cairn, steps, sample, dense, defaults, out):
    """joint_ragdoll and joint_bridge at the defaults (the runs above) and with each part turned off."""
    out.append("## joint_ragdoll and joint_bridge: what each part does\n")
    out.append("The two scenes above again with the joint projection off (`--set world.joint_projection=false`: "
               "the position error is left to the velocity solve's soft correction), with plain PGS sweeps on "
               "the joints' rows (`--param joints=sweep`: no exact solve of the free rows after each sweep), "
               "both off (the engine before the exact rows and the projection), and that with 8 substeps (the default is 2 for "
               "an inertial world), %d steps each, errors sampled as above (every step to step %d, every %d "
               "steps after). **cpu ratio**: CPU per step over the default run's.\n" % (steps, dense, sample))
    out.append("| scene | options | substeps | max joint error over the run (mm) | at step | error at the end (mm) | hinge limit overshoot, max (mrad) | cpu ms/step | cpu ratio | warnings (steps) |")
    out.append("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
    summary = {}
    for name in ("joint_ragdoll", "joint_bridge"):
        path = os.path.join(SCENES, name + ".json")
        scene = Scene(path)
        base = defaults.get(name)
        base_cpu = None
        for label, extra in VARIANTS:
            got = base if label == "defaults" else None
            full, res = got if got else sampled_run(cairn, scene, path, steps, sample, dense, extra)
            if full.get("failed") or res is None:
                out.append("| %s | %s | | run failed (exit %s) | | | | | | |" % (name, label, full.get("rc")))
                continue
            print(name, label, full["_summary"], file=sys.stderr)
            cpu = full["_cpu_summary"]
            if base_cpu is None:
                base_cpu = cpu
            ok = state_finite(full)
            endv = max(m[0] for m in joint_metrics(scene, state_map(full))) if ok else float("nan")
            lim = max(res["per_joint_limit"]) if res["per_joint_limit"] else 0.0
            summary[(name, label)] = (res["worst"], endv, cpu / base_cpu)
            out.append("| %s | %s | %s | %s | %s | %s | %s | %s | %.2f | %s |" % (
                name, label, full.get("substeps", "?"), fmt(res["worst"] * 1e3), res["worst_step"], fmt(endv * 1e3),
                fmt(lim * 1e3), fmt(cpu), cpu / base_cpu, warnings_text(full)))
    out.append("")
    for name in ("joint_ragdoll", "joint_bridge"):
        parts = []
        for label, _ in VARIANTS:
            v = summary.get((name, label))
            if v:
                parts.append("%s: %s mm%s" % (label, fmt(v[0] * 1e3),
                                              "" if label == "defaults" else " (%.2f x the CPU)" % v[2]))
        under = [label for label, _ in VARIANTS if summary.get((name, label)) and summary[(name, label)][0] < 1e-3]
        out.append("- %s, largest joint error over the run: %s; under 1 mm: %s." % (
            name, "; ".join(parts), ", ".join(under) if under else "none"))
    out.append("")


def door_inertia(scene):
    door = next(b for b in scene.data["bodies"] if b.get("name") == "door")
    hx, hy, hz = door["shapes"][0]["half_extents"]
    rho = scene.data["materials"]["wood"]["density"]
    m = 8 * hx * hy * hz * rho
    d = norm(scene.joints[0]["local_anchor_b"][:2] + [0])
    return m * ((2 * hx) ** 2 + (2 * hy) ** 2) / 12 + m * d * d


def door_limit_time(scene):
    j = scene.joints[0]
    I = door_inertia(scene)
    acc = j["motor"]["max_torque"] / I
    w = j["motor"]["speed"]
    t1 = w / acc
    th1 = 0.5 * acc * t1 * t1
    return t1 + (j["limit"]["upper"] - th1) / w


def door_expected(scene, t):
    j = scene.joints[0]
    if t >= door_limit_time(scene):
        return 0.0
    return min(j["motor"]["max_torque"] / door_inertia(scene) * t, j["motor"]["speed"])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cairn", default=os.path.join(ROOT, "build", "demos", "cairn"))
    ap.add_argument("--out", default=os.path.join(HERE, "results", "amd_epyc_2vcpu", "joints.md"))
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--sample", type=int, default=20,
                    help="ragdoll, bridge, door: sample the joint errors every this many steps after --dense")
    ap.add_argument("--dense", type=int, default=150,
                    help="ragdoll, bridge, door: sample the joint errors at every step up to this one (the landings)")
    ap.add_argument("--swing-sample", type=int, default=150,
                    help="swinging chain: sample the joint errors every this many steps")
    args = ap.parse_args()
    out = []
    load = os.getloadavg()
    out.append("# Joints: chain at rest and swinging, ragdoll, bridge, door\n")
    out.append("Generated by `python3 tests/bench/measure_joints.py --cairn %s` on %s (%s, %d CPUs, load average "
               "%.1f at the start), %s. Scenes: `tests/bench/make_joint_scenes.py`. CPU time is process CPU "
               "time (the summary line's `cpu`); the machine is shared, treat +-15 %% as noise.\n" % (
                   os.path.relpath(args.cairn, ROOT), platform.node() or "?", platform.machine(),
                   os.cpu_count() or 0, load[0], datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")))
    measure_chain(args.cairn, args.repeats, out)
    measure_swing(args.cairn, args.swing_sample, out)
    defaults = {}
    for name in ("joint_ragdoll", "joint_bridge"):
        got = measure_other(args.cairn, name, 2000, args.sample, args.dense, out)
        if got:
            defaults[name] = got
    measure_substeps(args.cairn, 2000, args.sample, args.dense, defaults, out)
    measure_other(args.cairn, "joint_door", 2000, args.sample, args.dense, out, door=True)
    diagnostics(args.cairn, out)
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        f.write("\n".join(out) + "\n")
    print("wrote", args.out, file=sys.stderr)


if __name__ == "__main__":
    main()
