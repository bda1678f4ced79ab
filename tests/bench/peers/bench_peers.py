#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Cairn beside Bullet and ODE on the same scenes, in one run (tests/bench/README.md, "The peers").

For each scene, runs every configuration one after another, round after round (A B C ... A B C
...), so that all of them see the same shared, noisy machine, and reads each run's report:

    bullet          cairn_peer_bullet: btSequentialImpulseConstraintSolver, 10 iterations, 1 thread
    ode             cairn_peer_ode: dWorldQuickStep, 20 iterations, 1 thread
    cairn equal     cairn run --set world.substeps=1 --solver pgs --param iterations=10
                    (one pass of 10 PGS sweeps per step, as Bullet's; plus Cairn's relax pass)
    cairn equal 30  the same with --set world.contact_hertz=30, within the 0.6 x substep rate
                    that docs/solvers.md asks of the contact spring (1 thread only)
    cairn default   cairn run with the scene's settings (pgs 10 iterations, 2 substeps)
    cairn coloured  the defaults with --set world.coloring=true: the contacts in levels (colours),
                    so that the sweeps run on both threads (docs/architecture.md, "Threads")

Cairn runs at --threads 1 and --threads 2 (the 30 Hz setting at 1 only); Bullet and ODE are single-threaded here. When
`cairn run` refuses --threads (exit code 2), its 2-thread rows are recorded as absent. Each run's
`cpu_ms_per_step` (process CPU time of the stepping loop alone) and `wall_ms_per_step` are kept;
the table gives the minimum and median over the rounds and the median of the per-round ratios to
that round's Bullet run. The stability figures (the largest displacement of any dynamic body from
its start, the final kinetic energy, the lowest body centre) come from the last round.

Scenes: assets/scenes/wall210.json, pile1000.json and capsule_pile500.json, and two written into
the work directory: jolt_pyramid1240 (Jolt's PerformanceTest pyramid: 15 layers of 2 m boxes,
layers 0.5 m apart, friction 0.2, z up, as 15 grid generators) and sphere_pile1000 (pile1000's bin
with 1,000 spheres of radius 0.5 m from one grid generator).

    python3 tests/bench/peers/bench_peers.py --build build/rel --steps 300 --rounds 5

writes docs/benchmarks.md and docs/images/benchmarks_peers.svg (--out, --plot), and with --raw the
run's figures as JSON, from which --replot writes the page and the plot again without measuring.
Standard library only; exits 1 when a run fails.
"""

import argparse
import datetime
import json
import math
import os
import platform
import shlex
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))

# (key, label, engine, cairn arguments, threads)
CONFIGS = [
    ("bullet", "Bullet SI, 10 iterations", "bullet", None, 1),
    ("ode", "ODE quickstep, 20 iterations", "ode", None, 1),
    ("cairn_equal_1", "Cairn equal work", "cairn", ["--set", "world.substeps=1", "--solver", "pgs", "--param",
                                                      "iterations=10"], 1),
    ("cairn_equal30_1", "Cairn equal work, 30 Hz", "cairn", ["--set", "world.substeps=1", "--set",
                                                                "world.contact_hertz=30", "--solver", "pgs",
                                                                "--param", "iterations=10"], 1),
    ("cairn_default_1", "Cairn defaults", "cairn", [], 1),
    ("cairn_equal_2", "Cairn equal work", "cairn", ["--set", "world.substeps=1", "--solver", "pgs", "--param",
                                                      "iterations=10"], 2),
    ("cairn_default_2", "Cairn defaults", "cairn", [], 2),
    ("cairn_colored_1", "Cairn defaults, coloured", "cairn", ["--set", "world.coloring=true"], 1),
    ("cairn_colored_2", "Cairn defaults, coloured", "cairn", ["--set", "world.coloring=true"], 2),
]

COLOURS = {
    "bullet": "#4e79a7",
    "ode": "#f28e2b",
    "cairn_equal_1": "#59a14f",
    "cairn_equal30_1": "#edc948",
    "cairn_default_1": "#b07aa1",
    "cairn_equal_2": "#8cd17d",
    "cairn_default_2": "#d4a6c8",
    "cairn_colored_1": "#e15759",
    "cairn_colored_2": "#ff9d9a",
}


def jolt_pyramid_scene():
    """Jolt's PerformanceTest "Pyramid": layer i (0 at the bottom) is a square of (15 - i)^2 boxes of
    2 m, shifted by half a box on odd layers, its centres 1 + 2.5 i m up (0.5 m between layers);
    1,240 boxes. Jolt's y up is z up here; its defaults: friction 0.2, restitution 0, density 1000."""
    generators = []
    for layer in range(15):
        n = 15 - layer
        first = -15.0 + 2.0 * (layer // 2) + (1.0 if layer % 2 else 0.0)
        generators.append({"type": "grid", "name": f"l{layer:02d}", "count": [n, n, 1], "spacing": [2, 2, 2],
                           "origin": [first, first, 1.0 + 2.5 * layer],
                           "body": {"shapes": [{"type": "box", "half_extents": [1, 1, 1]}]}})
    return {
        "version": 1,
        "description": "Jolt's PerformanceTest pyramid (1,240 boxes of 2 m in 15 square layers, 0.5 m between "
                       "layers, friction 0.2), z up; written by tests/bench/peers/bench_peers.py.",
        "world": {"gravity": [0, 0, -9.81], "dt": 1.0 / 60.0, "dynamics": "inertial", "sleeping": False,
                  "solver": {"name": "pgs", "iterations": 10}},
        "materials": {"default": {"friction": 0.2, "restitution": 0.0, "density": 1000}},
        "bodies": [{"name": "ground", "type": "static",
                    "shapes": [{"type": "plane", "normal": [0, 0, 1], "offset": 0}]}],
        "generators": generators,
    }


def sphere_pile_scene():
    """pile1000.json's bin and lattice with spheres of radius 0.5 m instead of unit boxes."""
    with open(os.path.join(ROOT, "assets", "scenes", "pile1000.json"), encoding="utf-8") as file:
        pile = json.load(file)
    statics = [body for body in pile["bodies"] if body.get("type") == "static"]
    return {
        "version": 1,
        "description": "1,000 spheres of radius 0.5 m (1000 kg/m^3, friction 0.6) in a 10 x 10 x 10 lattice at a "
                       "1.1 m pitch, jittered by up to 2 cm, bottom layer 0.2 m up, dropped into pile1000.json's "
                       "bin; written by tests/bench/peers/bench_peers.py.",
        "world": pile["world"],
        "materials": pile["materials"],
        "bodies": statics,
        "generators": [{"type": "grid", "name": "s", "count": [10, 10, 10], "spacing": [1.1, 1.1, 1.1],
                        "origin": [-4.95, -4.95, 0.7], "jitter": 0.02, "seed": 1,
                        "body": {"shapes": [{"type": "sphere", "radius": 0.5}]}}],
    }


def scenes(work):
    """(name, what, path) of every scene; the generated ones written into `work`."""
    written = []
    for name, maker in (("jolt_pyramid1240", jolt_pyramid_scene), ("sphere_pile1000", sphere_pile_scene)):
        path = os.path.join(work, name + ".json")
        with open(path, "w", encoding="utf-8") as file:
            json.dump(maker(), file, indent=1)
        written.append(path)
    assets = os.path.join(ROOT, "assets", "scenes")
    return [
        ("wall210", "210-box wall (running bond)", os.path.join(assets, "wall210.json")),
        ("pile1000", "1,000 boxes into a bin", os.path.join(assets, "pile1000.json")),
        ("jolt_pyramid1240", "Jolt's pyramid, 1,240 boxes of 2 m", written[0]),
        ("capsule_pile500", "500 capsules into a bin", os.path.join(assets, "capsule_pile500.json")),
        ("sphere_pile1000", "1,000 spheres into a bin", written[1]),
    ]


def run(command, report):
    result = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if result.returncode != 0:
        return result.returncode, result.stderr.strip()
    with open(report, encoding="utf-8") as file:
        return 0, json.load(file)


def command_for(config, programs, scene, steps, report, threads_option):
    key, _, engine, extra, threads = config
    if engine != "cairn":
        return [programs[engine], scene, "--steps", str(steps), "--report", report, "--quiet"]
    command = [programs["cairn"], "run", scene, "--steps", str(steps), "--report", report] + extra
    if threads_option:
        command += ["--threads", str(threads)]
    return command


def machine():
    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as file:
            for line in file:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{model}, {os.cpu_count()} logical CPUs, {platform.system()} {platform.release()}"


def load_average():
    try:
        return "{:.2f} {:.2f} {:.2f}".format(*os.getloadavg())
    except OSError:
        return "n/a"


def git_revision():
    try:
        revision = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True,
                                  text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", ROOT, "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, check=True).stdout.strip()
        return revision + (" with uncommitted changes" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


# ---------------------------------------------------------------------------------------------
# The plot: grouped bars on a log scale, one panel per measure, hand-written SVG


def svg_text(x, y, text, size=12, anchor="start", extra=""):
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return (f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}" '
            f'font-family="sans-serif"{extra}>{text}</text>')


def nice_values(low, high):
    """The values 1, 2 and 5 x 10^k from `low` to `high`."""
    out = []
    exponent = math.floor(math.log10(low)) - 1
    while True:
        for factor in (1, 2, 5):
            value = factor * 10.0 ** exponent
            if value > high * 1.0001:
                return out
            if value >= low * 0.9999:
                out.append(value)
        exponent += 1


def svg_panel(top, width, height, title, groups, series, values, unit):
    """One panel of grouped bars on a log scale: `groups` along x, one bar per series, values[(group, key)];
    a missing value is marked n/a."""
    left, right, bottom = 70, 20, 80
    plot_w, plot_h = width - left - right, height - bottom - 40
    y0 = top + 40
    present = [v for v in values.values() if v is not None and v > 0] or [1.0]
    # the axis from the largest 1-2-5 value below min / 1.5 to the smallest above max
    ticks = nice_values(min(present) / 20.0, max(present) * 20.0)
    low = max(t for t in ticks if t <= min(present) / 1.5)
    high = min(t for t in ticks if t >= max(present))

    def y_of(value):
        return y0 + plot_h * (1.0 - (math.log10(value) - math.log10(low)) / (math.log10(high) - math.log10(low)))

    out = [svg_text(left, top + 20, title, 14, extra=' font-weight="bold"')]
    for tick in nice_values(low, high):
        y = y_of(tick)
        colour = "#bbbbbb" if abs(math.log10(tick) - round(math.log10(tick))) < 1e-9 else "#e4e4e4"
        out.append(f'<line x1="{left}" y1="{y:.1f}" x2="{left + plot_w}" y2="{y:.1f}" stroke="{colour}"/>')
        out.append(svg_text(left - 6, y + 4, f"{tick:g}", 11, "end"))
    out.append(f'<line x1="{left}" y1="{y0}" x2="{left}" y2="{y0 + plot_h}" stroke="#333"/>')
    out.append(f'<line x1="{left}" y1="{y0 + plot_h}" x2="{left + plot_w}" y2="{y0 + plot_h}" stroke="#333"/>')
    out.append(svg_text(18, y0 + plot_h / 2, unit, 12, "middle",
                        f' transform="rotate(-90 18 {y0 + plot_h / 2:.1f})"'))
    group_w = plot_w / len(groups)
    bar_w = group_w * 0.8 / len(series)
    for g, (group, label) in enumerate(groups):
        gx = left + g * group_w + group_w * 0.1
        for s, (key, name) in enumerate(series):
            value = values.get((group, key))
            x = gx + s * bar_w
            if value is None or value <= 0:
                out.append(svg_text(x + bar_w / 2, y0 + plot_h - 4, "n/a", 9, "middle"))
                continue
            y = y_of(value)
            out.append(f'<rect x="{x:.1f}" y="{y:.1f}" width="{bar_w * 0.92:.1f}" height="{y0 + plot_h - y:.1f}" '
                       f'fill="{COLOURS[key]}"><title>{label}, {name}: {value:.3g} {unit}</title></rect>')
        out.append(svg_text(left + (g + 0.5) * group_w, y0 + plot_h + 18, label, 12, "middle"))
    # the legend, wrapped to the panel's width
    lx, ly = left, y0 + plot_h + 32
    for key, name in series:
        item = 16 + 6.2 * len(name) + 18
        if lx + item > width - right and lx > left:
            lx, ly = left, ly + 18
        out.append(f'<rect x="{lx}" y="{ly}" width="12" height="12" fill="{COLOURS[key]}"/>')
        out.append(svg_text(lx + 16, ly + 10, name, 11))
        lx += item
    return out


def write_svg(path, scene_names, medians, wall_medians):
    width, panel_h = 980, 350
    groups = [(name, name) for name in scene_names]
    cpu_series = [("bullet", "Bullet SI10"), ("ode", "ODE quickstep 20"), ("cairn_equal_1", "Cairn equal work"),
                  ("cairn_equal30_1", "Cairn equal work, 30 Hz"), ("cairn_default_1", "Cairn defaults"),
                  ("cairn_colored_1", "Cairn coloured")]
    wall_series = cpu_series + [("cairn_equal_2", "Cairn equal work, 2 threads"),
                                ("cairn_default_2", "Cairn defaults, 2 threads"),
                                ("cairn_colored_2", "Cairn coloured, 2 threads")]
    body = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{2 * panel_h}" '
            f'viewBox="0 0 {width} {2 * panel_h}">', f'<rect width="{width}" height="{2 * panel_h}" fill="white"/>']
    body += svg_panel(0, width, panel_h, "CPU time per step, 1 thread (median over rounds; log scale)", groups,
                      cpu_series, {k: v for k, v in medians.items() if k[1] in dict(cpu_series)}, "CPU ms / step")
    body += svg_panel(panel_h, width, panel_h,
                      "Wall time per step (median; Bullet and ODE single-threaded; log scale)", groups,
                      wall_series, wall_medians, "wall ms / step")
    body.append("</svg>")
    with open(path, "w", encoding="utf-8") as file:
        file.write("\n".join(body) + "\n")


# ---------------------------------------------------------------------------------------------


def fmt(value, digits=3):
    if value is None:
        return "–"
    if value == 0:
        return "0"
    if abs(value) >= 100:
        return f"{value:.0f}"
    return f"{value:.{digits}g}"


def summarise(scene_names, starts, runs):
    """The table's rows: per scene and configuration, the times over the rounds and the stability
    figures of the last round. `starts` maps a scene to the 0-step reports of cairn and the ODE driver;
    `runs` holds every run's times and report."""
    rows = []
    for scene_name in scene_names:
        cairn_start, driver_start = starts[scene_name]
        # Cairn's reports list the bodies in the drivers' order (bodies, then generated ones)
        dynamic = [i for i, body in enumerate(driver_start["final_state"]) if body["type"] == "dynamic"]
        bullet_by_round = {r["round"]: r["cpu_ms_per_step"] for r in runs
                           if r["scene"] == scene_name and r["config"] == "bullet"}
        for key, label, engine, _, threads in CONFIGS:
            mine = [r for r in runs if r["scene"] == scene_name and r["config"] == key]
            if not mine:
                rows.append({"scene": scene_name, "key": key, "label": label, "threads": threads})
                continue
            cpu = [r["cpu_ms_per_step"] for r in mine]
            wall = [r["wall_ms_per_step"] for r in mine]
            ratios = [r["cpu_ms_per_step"] / bullet_by_round[r["round"]] for r in mine
                      if bullet_by_round.get(r["round"], 0) > 0]
            last = mine[-1]["report"]
            if engine == "cairn":
                before = cairn_start["final_state"]
                after = last["final_state"]
                displacement = max(math.dist(before[i]["position"], after[i]["position"]) for i in dynamic)
                lowest = min(after[i]["position"][2] for i in dynamic)
                contacts = last.get("contacts_max")
            else:
                displacement, lowest = last["max_displacement"], last["min_height"]
                contacts = last.get("contacts_final")
            rows.append({"scene": scene_name, "key": key, "label": label, "threads": threads,
                         "cpu_min": min(cpu), "cpu_median": statistics.median(cpu),
                         "wall_min": min(wall), "wall_median": statistics.median(wall),
                         "ratio": statistics.median(ratios) if ratios else None,
                         "displacement": displacement, "energy": last["kinetic_energy_final"], "lowest": lowest,
                         "contacts": contacts, "dynamic": len(dynamic), "finite": last.get("finite", True)})
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default=os.path.join(ROOT, "build", "rel"),
                        help="build directory with demos/cairn and tests/bench/peers/cairn_peer_* "
                             "(configured with -DCN_BUILD_BENCHMARKS=ON)")
    parser.add_argument("--cairn", help="the cairn tool (default BUILD/demos/cairn)")
    parser.add_argument("--bullet", help="the Bullet driver (default BUILD/tests/bench/peers/cairn_peer_bullet)")
    parser.add_argument("--ode", help="the ODE driver (default BUILD/tests/bench/peers/cairn_peer_ode)")
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--scene", action="append", help="only these scenes, by name (repeatable)")
    parser.add_argument("--out", default=os.path.join(ROOT, "docs", "benchmarks.md"))
    parser.add_argument("--plot", default=os.path.join(ROOT, "docs", "images", "benchmarks_peers.svg"))
    parser.add_argument("--raw", help="also write the run's figures here (JSON; --replot reads it)")
    parser.add_argument("--revision", help="the Cairn revision the page names (default: this checkout's HEAD, "
                                           "and whether it has uncommitted changes)")
    parser.add_argument("--work", help="keep the generated scenes and reports here (default: a temporary directory)")
    parser.add_argument("--replot", metavar="RAW",
                        help="measure nothing: write --out and --plot again from a file --raw wrote")
    options = parser.parse_args()
    if options.replot:
        with open(options.replot, encoding="utf-8") as file:
            render(json.load(file), options.out, options.plot)
        return
    if options.steps < 1 or options.rounds < 1:
        sys.exit("bench_peers: --steps and --rounds must be at least 1")
    programs = {
        "cairn": options.cairn or os.path.join(options.build, "demos", "cairn"),
        "bullet": options.bullet or os.path.join(options.build, "tests", "bench", "peers", "cairn_peer_bullet"),
        "ode": options.ode or os.path.join(options.build, "tests", "bench", "peers", "cairn_peer_ode"),
    }
    for name, path in programs.items():
        if not os.access(path, os.X_OK):
            sys.exit(f"bench_peers: no {name} program at {path} (build with -DCN_BUILD_BENCHMARKS=ON and "
                     f"libbullet-dev, libode-dev installed: bash scripts/deps.sh peers)")

    temporary = None
    if options.work:
        os.makedirs(options.work, exist_ok=True)
        work = options.work
    else:
        temporary = tempfile.TemporaryDirectory()
        work = temporary.name
    scene_list = scenes(work)
    if options.scene:
        unknown = set(options.scene) - {name for name, _, _ in scene_list}
        if unknown:
            sys.exit(f"bench_peers: unknown scene(s) {', '.join(sorted(unknown))}")
        scene_list = [entry for entry in scene_list if entry[0] in options.scene]

    # does `cairn run` take --threads? (exit code 2: a bad command line)
    probe = os.path.join(work, "probe.json")
    code, _ = run([programs["cairn"], "run", scene_list[0][2], "--steps", "1", "--threads", "1", "--report", probe],
                  probe)
    threads_option = code == 0
    if code not in (0, 2):
        sys.exit(f"bench_peers: cairn run failed on {scene_list[0][2]}")
    configs = [c for c in CONFIGS if threads_option or c[4] == 1]

    started = datetime.datetime.now(datetime.timezone.utc)
    load_before = load_average()
    runs = []  # dicts: scene, config, round, cpu, wall, report figures
    starts = {}
    versions = {}
    for scene_name, _, scene_path in scene_list:
        start_report = os.path.join(work, f"{scene_name}_cairn_start.json")
        code, start = run([programs["cairn"], "run", scene_path, "--steps", "0", "--report", start_report],
                          start_report)
        if code != 0:
            sys.exit(f"bench_peers: cairn run {scene_path} --steps 0: {start}")
        # which bodies are dynamic: the ODE driver's reading of the same file, 0 steps
        probe_report = os.path.join(work, f"{scene_name}_ode_start.json")
        code, driver_start = run([programs["ode"], scene_path, "--steps", "0", "--report", probe_report, "--quiet"],
                                 probe_report)
        if code != 0:
            sys.exit(f"bench_peers: {programs['ode']} {scene_path}: {driver_start}")
        starts[scene_name] = (start, driver_start)
        for round_index in range(options.rounds):
            for config in configs:
                key = config[0]
                report_path = os.path.join(work, f"{scene_name}_{key}.json")
                command = command_for(config, programs, scene_path, options.steps, report_path, threads_option)
                code, report = run(command, report_path)
                if code != 0:
                    sys.exit(f"bench_peers: {shlex.join(command)} exited {code}: {report}")
                versions[config[2]] = report.get("engine_version", report.get("cairn_version"))
                runs.append({"scene": scene_name, "config": key, "round": round_index,
                             "cpu_ms_per_step": report["cpu_ms_per_step"],
                             "wall_ms_per_step": report["wall_ms_per_step"],
                             "report": report})
                print(f"{scene_name:17s} round {round_index + 1}/{options.rounds} {key:16s} "
                      f"cpu {report['cpu_ms_per_step']:8.3f} ms/step  wall {report['wall_ms_per_step']:8.3f}",
                      flush=True)
    finished = datetime.datetime.now(datetime.timezone.utc)
    load_after = load_average()

    rows = summarise([name for name, _, _ in scene_list], starts, runs)
    data = {
        "meta": {
            "started": started.isoformat(timespec="minutes"),
            "minutes": (finished - started).total_seconds() / 60.0,
            "load_before": load_before,
            "load_after": load_after,
            "machine": machine(),
            "revision": options.revision or git_revision(),
            "cairn": os.path.relpath(os.path.abspath(programs["cairn"]), ROOT),
            "versions": versions,
            "threads_option": threads_option,
            "steps": options.steps,
            "rounds": options.rounds,
        },
        "scenes": [name for name, _, _ in scene_list],
        "rows": rows,
        "runs": [{k: v for k, v in r.items() if k != "report"} for r in runs],
    }
    if options.raw:
        with open(options.raw, "w", encoding="utf-8") as file:
            json.dump(data, file, indent=1)
    render(data, options.out, options.plot)
    if temporary is not None:
        temporary.cleanup()


def render(data, out, plot):
    """docs/benchmarks.md and the plot from the figures of one run (what --raw saves)."""
    rows = data["rows"]
    medians = {(r["scene"], r["key"]): r["cpu_median"] for r in rows if "cpu_median" in r}
    wall_medians = {(r["scene"], r["key"]): r["wall_median"] for r in rows if "wall_median" in r}
    os.makedirs(os.path.dirname(os.path.abspath(plot)), exist_ok=True)
    write_svg(plot, data["scenes"], medians, wall_medians)
    write_markdown(data, out, plot)
    print(f"bench_peers: wrote {out} and {plot}")


def write_markdown(data, out, plot_path):
    meta = data["meta"]
    rows = data["rows"]
    versions = meta["versions"]
    threads_option = meta["threads_option"]
    plot = os.path.relpath(os.path.abspath(plot_path), os.path.dirname(os.path.abspath(out)))
    dynamic = {row["scene"]: row["dynamic"] for row in rows if "dynamic" in row}
    lines = [
        "# Benchmarks: Cairn beside Bullet and ODE",
        "",
        "<!-- Written by tests/bench/peers/bench_peers.py; rerun it rather than edit this file. -->",
        "",
        "Whole steps of five scenes in Cairn, [Bullet](https://pybullet.org) and [ODE](https://www.ode.org), "
        "each engine reading the same JSON scene file (Bullet and ODE through the small drivers in "
        "`tests/bench/peers/`), measured side by side in one run: within each round every configuration "
        "runs once, one after another, so that all of them see the same shared machine. Speed is a "
        "ratio measured here, never a number to carry to another machine.",
        "",
        f"- **When:** {meta['started'].replace('T', ' ')[:16]} UTC, {meta['minutes']:.0f} minutes; load average "
        f"before {meta['load_before']}, after {meta['load_after']} (other work shared the machine).",
        f"- **Machine:** {meta['machine']}.",
        f"- **Builds:** Cairn {versions.get('cairn', '?')} at commit {meta['revision']} (`{meta['cairn']}`); "
        f"{versions.get('bullet', '?')} and {versions.get('ode', '?')} (Debian's libbullet-dev and libode-dev).",
        f"- **Runs:** {meta['steps']} steps per run at the scene's dt (1/60 s), {meta['rounds']} rounds; "
        "the table gives the minimum and median over the rounds.",
        "",
        "The configurations:",
        "",
        "| engine | setting | what steps it |",
        "| --- | --- | --- |",
        "| Bullet | SI, 10 iterations | `btDiscreteDynamicsWorld`, `btSequentialImpulseConstraintSolver` at 10 "
        "iterations and Bullet's other defaults (warm starting, split impulse, 1 friction row per point along "
        "the slip), single precision, deactivation off |",
        "| ODE | quickstep, 20 iterations | `dWorldQuickStep` (PGS/SOR, w = 1.3, no warm starting) at 20 "
        "iterations, friction pyramid (`dContactApprox1`), up to 8 contact points per pair, default ERP 0.2 and "
        "CFM 1e-5, double precision |",
        "| Cairn | equal work | `--set world.substeps=1 --solver pgs --param iterations=10`: one pass of 10 "
        "warm-started PGS sweeps a step, as Bullet's; Cairn still runs its relax pass (3 sweeps) after it |",
        "| Cairn | equal work, 30 Hz | the same with `--set world.contact_hertz=30`: at one substep the "
        "default contact spring (70 Hz) is above the 0.6 x substep rate (36 Hz at 60 Hz) that "
        "`docs/solvers.md` (\"The defaults, measured\") asks for, and stacks buzz; 30 Hz keeps within it |",
        "| Cairn | defaults | the scene's own settings: `pgs` at 10 iterations, 2 substeps (each with its "
        "soft pass and relax pass), so about twice the work of the equal-work setting |",
        "| Cairn | defaults, coloured | the defaults with `--set world.coloring=true`: the contacts in levels, "
        "so that the sweeps run a level on every thread at once (the levels in order are the sequential "
        "sweep, so the same trajectories as the defaults; `docs/architecture.md`, \"Threads\") |",
        "",
        "Bullet and ODE run single-threaded here (the drivers use neither Bullet's multithreaded world nor "
        "ODE's threading interface); Cairn runs with `--threads 1` and `--threads 2` (the 30 Hz setting at 1 "
        "thread only)"
        + ("." if threads_option else
           ", but this build's `cairn run` refused `--threads` (exit code 2), so the 2-thread rows are absent "
           "and its 1-thread runs used the default thread count.")
        + " Materials combine in all three as Cairn combines them (friction sqrt(mu_a mu_b), restitution the "
        "larger), and the masses and inertias are Cairn's exact ones.",
        "",
        "The scenes:",
        "",
        "| scene | dynamic bodies | what |",
        "| --- | --- | --- |",
    ]
    sources = {
        "wall210": "`assets/scenes/wall210.json`: 10 rows of unit boxes in running bond, 0.02 m apart, friction "
                   "0.6. Its displacement is the wall's drift (nothing should move)",
        "pile1000": "`assets/scenes/pile1000.json`: 10 x 10 x 10 unit boxes dropped into a 12 x 12 m bin",
        "jolt_pyramid1240": "Jolt's PerformanceTest pyramid: 15 square layers of 2 m boxes (15 x 15 at the "
                            "bottom), odd layers shifted by half a box, 0.5 m between layers, friction 0.2; 15 grid "
                            "generators, written by the script",
        "capsule_pile500": "`assets/scenes/capsule_pile500.json`: capsules (r 0.2 m, half length 0.4 m) at "
                           "random orientations dropped into a bin",
        "sphere_pile1000": "pile1000's bin and lattice with spheres of radius 0.5 m (one grid generator with 2 cm "
                           "jitter), written by the script",
    }
    for name in data["scenes"]:
        lines.append(f"| {name} | {dynamic.get(name, '?')} | {sources.get(name, '')} |")
    lines += [
        "",
        "The columns: **CPU ms/step** is the process CPU time of the stepping loop alone (no loading, no "
        "report) over the steps; at 2 threads it counts both threads, so compare **wall ms/step** there. "
        "**CPU / Bullet** is the median over the rounds of the run's CPU time over that round's Bullet run. "
        "The stability figures come from the last round (all runs are deterministic): **max displacement** is "
        "the largest distance any dynamic body moved from its start by the end (for the wall, drift; for the "
        "piles and the pyramid mostly the fall, so compare engines, not scenes), **KE** the kinetic energy at "
        "the end (a settled scene has almost none), **lowest** the lowest dynamic body centre at the end "
        "(a body under the floor would show below zero).",
        "",
        "| scene | engine | setting | threads | CPU ms/step min | CPU ms/step median | wall ms/step median "
        "| CPU / Bullet | max displacement (m) | KE (J) | lowest (m) |",
        "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for row in rows:
        engine, _, setting = row["label"].partition(" ")
        if row["key"] == "bullet":
            engine, setting = "Bullet", "SI, 10 iterations"
        elif row["key"] == "ode":
            engine, setting = "ODE", "quickstep, 20 iterations"
        if "cpu_median" not in row:
            lines.append(f"| {row['scene']} | {engine} | {setting} | {row['threads']} | absent | | | | | | |")
            continue
        note = "" if row["finite"] else " (not finite)"
        lines.append(
            f"| {row['scene']} | {engine} | {setting} | {row['threads']} | {fmt(row['cpu_min'])} | "
            f"{fmt(row['cpu_median'])} | {fmt(row['wall_median'])} | {fmt(row['ratio'], 2)} | "
            f"{fmt(row['displacement'])}{note} | {fmt(row['energy'])} | {fmt(row['lowest'])} |")
    lines += [
        "",
        f"![CPU and wall time per step of each scene and configuration]({plot})",
        "",
        "Top: CPU time per step at 1 thread; bottom: wall time per step, with Cairn at 2 threads beside its "
        "1-thread runs. Both on log scales.",
        "",
        "## Caveats",
        "",
        "- The engines do not do the same work per step even at \"equal work\": Bullet solves one friction "
        "row per contact point along the slip, ODE and Cairn two (a pyramid); Bullet keeps up to 4 points per "
        "manifold, ODE takes up to 8 per pair from `dCollide`; Bullet's convex shapes carry a 0.04 m collision "
        "margin; Cairn's soft contacts and relax pass are its own. The stability columns say what each "
        "gets for its time.",
        "- Bullet is the single-precision build (`pkg-config bullet`); ODE and Cairn compute in double.",
        "- CPU time is the fairer clock on a shared machine; wall time at 2 threads is only meaningful when the "
        "second core was free, which the load averages above bound.",
        "",
        "## Rerun",
        "",
        "```sh",
        "bash scripts/deps.sh peers          # libbullet-dev and libode-dev besides the usual packages",
        "cmake -S . -B build/rel -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCN_BUILD_BENCHMARKS=ON",
        "cmake --build build/rel -j2 --target cairn_cli cairn_peer_bullet cairn_peer_ode",
        f"python3 tests/bench/peers/bench_peers.py --build build/rel --steps {meta['steps']} "
        f"--rounds {meta['rounds']}",
        "```",
        "",
        "It rewrites this page and the plot; `--scene NAME` runs some scenes only, `--work DIR` keeps the "
        "generated scenes and the last reports, `--raw FILE` keeps the run's figures and `--replot FILE` writes "
        "this page and the plot again from them. "
        "See `tests/bench/README.md`, \"The peers\".",
    ]
    with open(out, "w", encoding="utf-8") as file:
        file.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
