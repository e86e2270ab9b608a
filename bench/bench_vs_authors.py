"""cloudnoise beside the paper authors' own pipeline, each run as its users run it.

    python bench/bench_vs_authors.py --authors DIR                      # DIR: their LogGOPSim, txt2bin, schedgen
    python bench/bench_vs_authors.py --authors DIR --systems daint --nodes 16,256 --reps 100 --jobs 2
    python bench/bench_vs_authors.py --authors DIR --markdown           # the table for docs/explanation/paper.md

    # their runs on another machine (many cores, no cloudnoise needed there):
    python bench/bench_vs_authors.py --authors DIR --prepare BUNDLE --work GOALS ...   # inputs + tasks.json
    python3 bench/authors_runner.py --bundle BUNDLE --sim DIR/LogGOPSim --results theirs.jsonl --jobs 16
    python bench/bench_vs_authors.py --authors DIR --bundle BUNDLE --work GOALS --theirs theirs.jsonl ...

The authors' pipeline is the SC'22 artifact (github.com/DanieleDeSensi/cloud_noise,
`simulations/`): their modified Schedgen (`schedgen`), LogGOPSim and `txt2bin`.
None of it is part of cloudnoise: build them yourself (`make` in
`simulations/schedgen` and `simulations/LogGOPSim`; the simulator needs
gengetopt, re2c and libcgraph) and put the three binaries in one folder.

The two sides share no input made here:

* theirs, as their simulate.py runs them: the schedule from *their* Schedgen
  (`schedgen -s N -p nwaydissemination -d 16`, its calcs set to 0 as for
  `nwaydissemination_nocompute`; `schedgen -s N -p pipelinedring -d 512MiB
  --segmentsize 512MiB/N`), converted by their txt2bin; their parameters
  (loggp_params.py "x1" rows, nodes per switch from simulate.py, via
  cloudnoise.profiles.authors_parameters) and, per placement, that
  placement's run (description.csv's Day run, or the stored run standing in
  for it): latency/bandwidth files made as their convert_noise makes them
  (warm-up rows dropped, ps, scaled to median L or G) and that run's
  ng_osnoise.out in ps (empty: the other placement's run's);
* ours, as a user runs it: `cloudnoise.simulate` with the built-in profile at
  the placement (`load_profile(NAME).at(PLACEMENT)`) and the workload the
  paper's Fig. 14/15 presets name (`dissemination:16B`; the authors' ring,
  `pipelinedring:512MiB:schedgen=paper,segmentsize=size/ranks`), with the
  presets' ready orders.

Before simulating, the two GOAL files are compared: the ring must be byte for
byte the same (a generator difference shows here, not as a runtime); their
dissemination has zero-length reduction calcs ours has not, so it is checked
to give every rank the same noiseless end time under the system's LogGOPS in
cloudnoise's engine.

A system with no stored network run (Oracle HPC) runs noiseless only.
Variants none, os, net, os+net (their names; ours none, os, network, both).
Their simulator runs one repetition per process (fresh random seed; its
OS-noise offsets come from /dev/urandom), --jobs processes at a time
(bench/authors_runner.py); cloudnoise runs --reps repetitions (--seed, default 1).
Printed per case: noiseless runtimes (both, relative difference), and per
noise variant the median and p90 slowdown (over the noiseless run) of both,
with the difference in units of the combined bootstrap standard error of the
two statistics (|z| < 2: within the Monte Carlo error).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from cloudnoise import _engine
from cloudnoise.model.switch_draws import scaled_to_median
from cloudnoise.profiles.artifact.authors_inputs import effective_trace
from cloudnoise.profiles.artifact.build import NetworkRun, network_run
from cloudnoise.profiles.authors_parameters import authors_parameters
from cloudnoise.schedules.patterns import CollectiveSpec, write_goal

REPO = Path(__file__).resolve().parent.parent
RUNNER = Path(__file__).resolve().parent / "authors_runner.py"
VARIANTS = ("none", "os", "net", "os+net")
FOUR = ("daint", "alps", "azure-hpc", "azure-hpc-200")
OTHERS = ("deep-est", "azure-normal", "aws-hpc-metal", "aws-normal", "gcp-hpc", "gcp-normal", "oracle-hpc-metal")
MiB = 1 << 20
PACK_ABOVE = 1 << 20  # files larger than this go into the bundle zstd-compressed


@dataclass
class Inputs:
    """One system and placement: the authors' files and cloudnoise's engine inputs made from them."""

    system: str
    placement: str
    run: str  # where the samples and the OS trace come from, substitutions said
    flags: dict[str, list[str]]  # variant -> the authors' simulator flags (paths relative to the bundle)
    models: dict[str, _engine.NoiseModel]
    params: _engine.LogGOPSParams
    files: list[Path] = field(default_factory=list)  # the input files written


def write_ints(path: Path, values: np.ndarray) -> None:
    path.write_text("\n".join(str(int(v)) for v in values) + "\n")


def read_ints(path: Path) -> np.ndarray:
    return np.loadtxt(path, dtype=np.int64, ndmin=1)


def _runs(artifact: Path, system: str, placement: str) -> tuple[NetworkRun | None, str]:
    """The run for the placement (else the other placement's), and what stands in for what."""
    other = "same-rack" if placement == "different-racks" else "different-racks"
    run = network_run(artifact, system, placement)
    if run is not None:
        return run, run.provenance
    run = network_run(artifact, system, other)
    if run is None:
        return None, "no stored network run of this system"
    return run, f"{run.provenance}; no {placement} run stored: the {other} one, as the profile"


def make_inputs(artifact: Path, system: str, placement: str, bundle: Path) -> Inputs:
    near = authors_parameters(system, "same-rack")
    here = authors_parameters(system, placement)
    if near is None or here is None:
        sys.exit(f"{system}: the authors did not simulate it")
    run, why = _runs(artifact, system, placement)
    rel = Path("inputs") / f"{system}_{placement}"
    d = bundle / rel
    d.mkdir(parents=True, exist_ok=True)
    common = ["-o", str(here.o_ps), "-g", str(here.g_ps), "-O", "0", "-S", str(here.S_bytes),
              "--nodes_per_switch", str(here.nodes_per_switch)]
    quiet = [f"--LogGOPS_L={near.L_ps}", f"--LogGOPS_G={near.G_ps_per_byte}"]
    if placement == "different-racks":  # as their script passes them (their simulator ignores both)
        quiet += [f"--LogGOPS_L_far={here.L_ps}", f"--LogGOPS_G_far={here.G_ps_per_byte}"]
    params = _engine.LogGOPSParams(near.L_ps, here.o_ps, here.g_ps, near.G_ps_per_byte * 1000, 0, here.S_bytes,
                                   -1, [], -1)

    def one(v: int) -> np.ndarray:
        return np.array([v], dtype=np.int64)

    quiet_draws = _engine.SwitchDraws(one(near.L_ps), one(near.G_ps_per_byte * 1000), one(near.L_ps),
                                      one(near.G_ps_per_byte * 1000), here.nodes_per_switch)
    none = _engine.NoiseModel()
    none.switch_draws = quiet_draws
    if run is None:
        return Inputs(system, placement, why, {"none": quiet + common}, {"none": none}, params)

    trace = run.os_trace_ps
    if trace is None:  # an empty ng_osnoise.out: the other placement's run's, as the profile
        other = "same-rack" if placement == "different-racks" else "different-racks"
        alt = network_run(artifact, system, other)
        trace = alt.os_trace_ps if alt is not None else None
        why += f"; its ng_osnoise.out is empty: OS noise from {alt.provenance if alt else 'none'}"
    files: list[Path] = []
    sets = {"near": (near.L_ps, near.G_ps_per_byte)}
    if placement == "different-racks":
        sets["far"] = (here.L_ps, here.G_ps_per_byte)
    files_of = {}
    for which, (L, G) in sets.items():
        write_ints(d / f"lat_{which}.out", scaled_to_median(run.latency_ps, L))
        write_ints(d / f"bw_{which}.out", scaled_to_median(run.gap_ps, G))
        files_of[which] = (d / f"lat_{which}.out", d / f"bw_{which}.out")
        files += files_of[which]
    noisy = [f"--LogGOPS_Lfile={rel / 'lat_near.out'}", f"--LogGOPS_Gfile={rel / 'bw_near.out'}"]
    if "far" in files_of:
        noisy += [f"--LogGOPS_Lfile_far={rel / 'lat_far.out'}", f"--LogGOPS_Gfile_far={rel / 'bw_far.out'}"]
    flags = {"none": quiet + common, "net": noisy + common}
    far = files_of.get("far", files_of["near"])
    noisy_draws = _engine.SwitchDraws(read_ints(files_of["near"][0]), read_ints(files_of["near"][1]) * 1000,
                                      read_ints(far[0]), read_ints(far[1]) * 1000, here.nodes_per_switch)
    models = {"none": none}
    m = _engine.NoiseModel()
    m.switch_draws = noisy_draws
    models["net"] = m
    if trace is not None:
        starts, durations = trace
        os_file = d / "os_noise.out"
        os_file.write_text("".join(f"{s}\t{u}\n" for s, u in zip(starts.tolist(), durations.tolist())))
        files.append(os_file)
        os_flag = [f"--noise-trace={rel / 'os_noise.out'}"]
        flags["os"] = quiet + os_flag + common
        flags["os+net"] = noisy + os_flag + common
        eff_starts, eff_durations = effective_trace(starts, durations)
        os_trace = _engine.OsNoiseTrace(np.ascontiguousarray(eff_starts), np.ascontiguousarray(eff_durations))
        for variant, draws in (("os", quiet_draws), ("os+net", noisy_draws)):
            m = _engine.NoiseModel()
            m.switch_draws = draws
            m.os = os_trace
            models[variant] = m
    return Inputs(system, placement, why, flags, models, params, files)


PATTERNS = ("nwaydissemination_nocompute", "pipelinedring")
# Each side's workload: their simulate.py's collective, and ours as the paper's presets name it.
PRESET_OF = {"nwaydissemination_nocompute": "fig14-dissemination", "pipelinedring": "fig15-allreduce-ring"}
SIZE_OF = {"nwaydissemination_nocompute": 16, "pipelinedring": 512 * MiB}


def their_goal(pattern: str, nodes: int, work: Path, schedgen: Path) -> Path:
    """Their Schedgen's schedule, as their simulate.py makes it (calcs 0 for the nocompute dissemination)."""
    goal = work / f"theirs_{pattern}_{nodes}.goal"
    if goal.exists():
        return goal
    size = SIZE_OF[pattern]
    real = "nwaydissemination" if pattern == "nwaydissemination_nocompute" else pattern
    seg = ["--segmentsize", str(size // nodes)] if pattern == "pipelinedring" else []
    tmp = goal.with_suffix(".tmp")
    subprocess.run([str(schedgen), "-s", str(nodes), "-p", real, "-d", str(size), *seg, "-o", str(tmp)],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    text = tmp.read_text()
    if pattern == "nwaydissemination_nocompute":
        text = re.sub(r"^(l\d+: calc) \d+$", r"\1 0", text, flags=re.M)
    goal.write_text(text)
    tmp.unlink()
    return goal


def our_workload(pattern: str) -> tuple[Any, str]:
    """Our side's collective phase (the paper preset's workload) and the preset's ready order."""
    from cloudnoise.schedules.apps import parse_phase
    from cloudnoise.sweep.presets import get_preset

    preset = get_preset(PRESET_OF[pattern])
    return parse_phase(preset.spec), preset.ready_order


def compare_goals(pattern: str, nodes: int, system: str, theirs: Path, work: Path) -> str:
    """Our GOAL beside theirs: identical, or (the dissemination) the same noiseless end
    time on every rank under the system's LogGOPS; exits when they differ otherwise."""
    phase, _ = our_workload(pattern)
    spec = phase.collective(nodes)
    ours = work / f"ours_{pattern}_{nodes}.goal"
    if not ours.exists():
        write_goal(spec, ours)
    if ours.read_bytes() == theirs.read_bytes():
        return "identical GOAL"
    from cloudnoise.simulation.api import simulate

    ends = [simulate(f, profile=system, noise="none").host_end_ns.tolist() for f in (ours, theirs)]
    if ends[0] != ends[1]:
        sys.exit(f"{pattern} {nodes}: our GOAL ({ours}) and theirs ({theirs}) differ, and so do their noiseless "
                 "per-rank end times: a generator difference")
    return "same per-rank noiseless end times (theirs adds zero-length calcs)"


def schedule_files(pattern: str, nodes: int, work: Path, bundle: Path, txt2bin: Path) -> tuple[Path, Path]:
    """For the performance benches (bench_campaign, bench_instructions): cloudnoise's GOAL of the
    paper's schedule (byte-identical to their Schedgen's: bench_vs_authors_schedgen.py; calcs 0 for
    the nocompute dissemination) and their txt2bin's binary of it (in the bundle)."""
    goal = work / f"{pattern}_{nodes}.goal"
    binary = bundle / "sched" / f"{pattern}_{nodes}.bin"
    binary.parent.mkdir(parents=True, exist_ok=True)
    if not goal.exists():
        if pattern == "nwaydissemination_nocompute":
            spec = CollectiveSpec("nwaydissemination", nodes, 16, schedgen="paper")
        else:
            spec = CollectiveSpec("pipelinedring", nodes, 512 * MiB, segmentsize="size/ranks", schedgen="paper")
        write_goal(spec, goal)
        if pattern == "nwaydissemination_nocompute":
            text = goal.read_text()
            goal.write_text(re.sub(r"^(l\d+: calc) \d+$", r"\1 0", text, flags=re.M))
    to_binary(goal, binary, txt2bin)
    return goal, binary


def to_binary(goal: Path, binary: Path, txt2bin: Path) -> None:
    """Their txt2bin's binary of a GOAL file (once)."""
    binary.parent.mkdir(parents=True, exist_ok=True)
    if not binary.exists() and not binary.with_name(binary.name + ".zst").exists():
        subprocess.run([str(txt2bin), "-i", str(goal), "-o", str(binary)], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def pack(path: Path) -> None:
    """PATH -> PATH.zst (removing PATH) where it is larger than PACK_ABOVE, for carrying the bundle."""
    if path.exists() and path.stat().st_size > PACK_ABOVE:
        subprocess.run(["zstd", "-q", "-f", "-3", "--long=31", "--rm", str(path), "-o", f"{path}.zst"], check=True)


def boot_se(x: np.ndarray, q: float, rng: np.random.Generator, n: int = 400) -> float:
    idx = rng.integers(0, x.size, size=(n, x.size))
    return float(np.std(np.quantile(x[idx], q, axis=1)))


@dataclass(frozen=True)
class Case:
    """One system, schedule and node count, and the noise variants run on it."""

    system: str
    pattern: str
    nodes: int
    variants: tuple[str, ...]
    reps: int = 30

    def key(self, variant: str, rep: int) -> str:
        return f"{self.system}|{self.pattern}|{self.nodes}|{variant}|{rep}"


def plan(inputs: dict[str, Inputs], a: argparse.Namespace) -> list[Case]:
    """The cases, in the order their runs start (what a deadline cuts comes last): the noiseless-only large
    rings (long runs), the four systems' rings at 1,024 nodes and more, the other systems' cases but those
    rings, their rings, then the four systems' remaining cases (--new-only drops those)."""
    asked = [v for v in a.variants.split(",") if v and v != "none"]
    cases = []
    for system, inp in inputs.items():
        noisy = tuple(v for v in asked if v in inp.flags)
        cases += [Case(system, "nwaydissemination_nocompute", n, noisy, a.reps_large if n >= 16384 else a.reps)
                  for n in _ints(a.nodes)]
        cases += [Case(system, "pipelinedring", n, noisy, a.reps) for n in _ints(a.ring_nodes)]
        cases += [Case(system, "pipelinedring", n, ()) for n in _ints(a.ring_quiet_nodes)]

    def priority(c: Case) -> int:
        big_ring = c.pattern == "pipelinedring" and c.nodes >= 1024
        if not c.variants:
            return 0 if big_ring else 1
        if c.system in FOUR:
            return 1 if big_ring else 4
        return 3 if big_ring else 2

    if a.new_only:
        cases = [c for c in cases if priority(c) != 4]
    return sorted(cases, key=priority)


def _ints(text: str) -> list[int]:
    return [int(n) for n in text.split(",") if n]


def tasks(cases: list[Case], bundle: Path) -> list[dict[str, Any]]:
    """One entry per run of their simulator (seeds from a fixed generator)."""
    seeds = np.random.default_rng(777)
    out = []
    for c in cases:
        sched = f"sched/{c.pattern}_{c.nodes}.bin"
        flags = INPUTS[c.system].flags
        out.append({"key": c.key("none", 0), "schedule": sched, "flags": flags["none"], "seed": 1})
    for c in cases:
        sched = f"sched/{c.pattern}_{c.nodes}.bin"
        for variant in c.variants:
            for rep in range(c.reps):
                out.append({"key": c.key(variant, rep), "schedule": sched, "flags": INPUTS[c.system].flags[variant],
                            "seed": int(seeds.integers(0, 2**31))})
    return out


INPUTS: dict[str, Inputs] = {}


def read_theirs(path: Path) -> dict[str, int]:
    return {r["key"]: int(r["ps"]) for r in map(json.loads, path.read_text().splitlines()) if r}


OUR_VARIANT = {"none": "none", "os": "os", "net": "network", "os+net": "both"}


def ours_runs(c: Case, placement: str, variants: list[str], reps: int, threads: int, seed: int) -> dict[str, np.ndarray]:
    """Our runtimes (ps) per variant (their names), as a user gets them: the public API, the built-in profile."""
    from cloudnoise import load_profile, simulate

    phase, ready_order = our_workload(c.pattern)
    profile = load_profile(c.system).at(placement)
    ours = [OUR_VARIANT[v] for v in variants]
    r = simulate(pattern=phase.pattern, ranks=c.nodes, size=phase.size, segmentsize=phase.segmentsize,
                 schedgen=phase.schedgen, profile=profile, noise=ours, reps=reps, seed=seed, threads=threads,
                 ready_order=ready_order)
    ran = r.by_variant()
    return {v: np.asarray(ran[o].runtime_ns, dtype=np.float64) * 1000 for v, o in zip(variants, ours)}


def compare(cases: list[Case], theirs: dict[str, int], a: argparse.Namespace) -> list[dict[str, Any]]:
    """cloudnoise on every case their results cover; one row per case."""
    rng = np.random.default_rng(12345)
    rows = []
    for c in cases:
        base_theirs = theirs.get(c.key("none", 0))
        if base_theirs is None:
            print(f"{c.system} {c.pattern} {c.nodes}: no noiseless run of theirs; skipped", file=sys.stderr)
            continue
        runs = ours_runs(c, a.placement, ["none", *c.variants], c.reps, a.jobs, a.seed)
        base_ours = float(runs["none"][0])
        row: dict[str, Any] = {"system": c.system, "placement": a.placement, "pattern": c.pattern, "nodes": c.nodes,
                               "goal": GOALS[c.key("none", 0)],
                               "theirs_ps": base_theirs, "ours_ps": base_ours, "diff": base_ours / base_theirs - 1,
                               "variants": {}}
        print(f"{c.system:16} {c.pattern:28} {c.nodes:6} none   theirs {base_theirs / 1e6:12.3f} us  ours "
              f"{base_ours / 1e6:12.3f} us  diff {100 * row['diff']:+.3f}%", file=sys.stderr, flush=True)
        for variant in c.variants:
            t_runs = np.array([theirs[k] for k in (c.key(variant, r) for r in range(c.reps)) if k in theirs],
                              dtype=np.float64)
            if t_runs.size < 5:
                continue
            ours = runs[variant]
            stats: dict[str, Any] = {"reps_theirs": int(t_runs.size), "reps_ours": int(ours.size)}
            for q, name in ((0.5, "median"), (0.9, "p90")):
                t, o = np.quantile(t_runs, q), np.quantile(ours, q)
                se = ((boot_se(t_runs, q, rng) / base_theirs) ** 2 + (boot_se(ours, q, rng) / base_ours) ** 2) ** 0.5
                z = (o / base_ours - t / base_theirs) / se if se > 0 else 0.0
                stats[name] = {"theirs": t / base_theirs, "ours": o / base_ours, "z": z}
            row["variants"][variant] = stats
            m, p = stats["median"], stats["p90"]
            print(f"{c.system:16} {c.pattern:28} {c.nodes:6} {variant:6} median slowdown theirs {m['theirs']:.3f} "
                  f"ours {m['ours']:.3f} (z {m['z']:+.1f}); p90 theirs {p['theirs']:.3f} ours {p['ours']:.3f} "
                  f"(z {p['z']:+.1f}); reps {t_runs.size}/{ours.size}", file=sys.stderr, flush=True)
        rows.append(row)
    return rows


GOALS: dict[str, str] = {}  # case key -> how our GOAL compares with theirs


def markdown(rows: list[dict[str, Any]]) -> str:
    """The docs/explanation/paper.md table: one line per case, cells theirs / ours."""
    out = ["| system | placement | schedule | nodes | GOAL | noiseless us: theirs / ours (diff) | os: median, p90 "
           "slowdown theirs / ours (z) | net | os+net |", "|---|---|---|---:|---|---|---|---|---|"]
    names = {"nwaydissemination_nocompute": "dissemination 16 B", "pipelinedring": "ring 512 MiB"}
    order = {s: i for i, s in enumerate(FOUR + OTHERS)}
    for r in sorted(rows, key=lambda r: (order.get(r["system"], 99), r["system"], r.get("placement", ""),
                                         r["pattern"], r["nodes"])):
        cells = []
        for v in ("os", "net", "os+net"):
            s = r["variants"].get(v)
            if s is None:
                cells.append("-")
                continue
            m, p = s["median"], s["p90"]
            reps = "" if s["reps_theirs"] == s["reps_ours"] else f" [{s['reps_theirs']} of theirs]"
            cells.append(f"{m['theirs']:.3f}, {p['theirs']:.3f} / {m['ours']:.3f}, {p['ours']:.3f} "
                         f"({m['z']:+.1f}, {p['z']:+.1f}){reps}")
        goal = "identical" if r["goal"] == "identical GOAL" else "equivalent"
        out.append(f"| {r['system']} | {r.get('placement', '')} | {names[r['pattern']]} | {r['nodes']} | {goal} | "
                   f"{r['theirs_ps'] / 1e6:.3f} / "
                   f"{r['ours_ps'] / 1e6:.3f} ({100 * r['diff']:+.3f}%) | " + " | ".join(cells) + " |")
    return "\n".join(out)


def summary(rows: list[dict[str, Any]]) -> str:
    diffs = [abs(r["diff"]) for r in rows]
    zs = [(r["system"], r["pattern"], r["nodes"], v, name, s[name]["z"]) for r in rows
          for v, s in r["variants"].items() for name in ("median", "p90")]
    beyond = [z for z in zs if abs(z[-1]) >= 2]
    lines = [f"noiseless: {len(diffs)} cases, largest |diff| {100 * max(diffs, default=0):.4f}%",
             f"noisy statistics: {len(zs) - len(beyond)} of {len(zs)} within 2 SE"]
    lines += [f"  beyond: {s} {p} {n} {v} {name} z {z:+.1f}" for s, p, n, v, name, z in beyond]
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--authors", type=Path, required=True, help="folder with their LogGOPSim, txt2bin and schedgen")
    ap.add_argument("--artifact", type=Path, default=REPO.parent / "shared" / "paper-artifact")
    ap.add_argument("--systems", default=",".join(FOUR), help=f"default the four; the others: {','.join(OTHERS)}")
    ap.add_argument("--placement", default="different-racks", choices=("same-rack", "different-racks"))
    ap.add_argument("--nodes", default="4,16,64,256,1024,4096,16384", help="node counts for the dissemination")
    ap.add_argument("--ring-nodes", default="4,16,64,256,1024",
                    help="node counts for pipelinedring (its GOAL grows as nodes^2)")
    ap.add_argument("--ring-quiet-nodes", default="", help="node counts for a noiseless-only pipelinedring")
    ap.add_argument("--reps", type=int, default=30, help="repetitions per noisy case (both sides)")
    ap.add_argument("--reps-large", type=int, default=100, help="the same at 16,384 nodes, where tails decide the p90")
    ap.add_argument("--new-only", action="store_true",
                    help="for the four systems, only rings at 1,024 nodes and more (the rest is in docs/explanation/paper.md)")
    ap.add_argument("--variants", default=",".join(VARIANTS))
    ap.add_argument("--seed", type=int, default=1, help="cloudnoise's seed (one for every case, so the cases' draws "
                    "are correlated: a second seed shows how far one seed moves them all)")
    ap.add_argument("--jobs", type=int, default=1, help="their runs (and cloudnoise's threads) at a time")
    ap.add_argument("--work", type=Path, help="folder for the GOAL files (kept)")
    ap.add_argument("--bundle", type=Path, help="folder for their inputs and tasks.json (kept)")
    ap.add_argument("--prepare", action="store_true", help="write the bundle (packed for carrying) and stop")
    ap.add_argument("--theirs", type=Path, help="their results (authors_runner.py's --results) instead of running")
    ap.add_argument("--json", type=Path, help="write the rows here")
    ap.add_argument("--markdown", action="store_true", help="print one Markdown table")
    a = ap.parse_args()
    sim, txt2bin, schedgen = a.authors / "LogGOPSim", a.authors / "txt2bin", a.authors / "schedgen"
    for tool in (sim, txt2bin, schedgen):
        if not tool.is_file():
            sys.exit(f"{tool}: not found; build their simulator and Schedgen (`make` in simulations/LogGOPSim and "
                     "simulations/schedgen) and put LogGOPSim, txt2bin and schedgen in one folder")
    work = a.work or Path(tempfile.mkdtemp(prefix="cn-vs-authors-"))
    bundle = a.bundle or work / "bundle"
    work.mkdir(parents=True, exist_ok=True)
    bundle.mkdir(parents=True, exist_ok=True)
    for system in a.systems.split(","):
        INPUTS[system] = make_inputs(a.artifact, system, a.placement, bundle)
        print(f"# {system} {a.placement}: {INPUTS[system].run}", file=sys.stderr, flush=True)
    cases = plan(INPUTS, a)
    for c in cases:
        theirs_goal = their_goal(c.pattern, c.nodes, work, schedgen.resolve())
        GOALS[c.key("none", 0)] = compare_goals(c.pattern, c.nodes, c.system, theirs_goal, work)
        print(f"{c.system} {c.pattern} {c.nodes}: {GOALS[c.key('none', 0)]}", file=sys.stderr, flush=True)
        to_binary(theirs_goal, bundle / "sched" / f"{c.pattern}_{c.nodes}.bin", txt2bin)
    (bundle / "tasks.json").write_text(json.dumps(tasks(cases, bundle)))
    if a.prepare:
        for f in [*bundle.rglob("*.bin"), *(f for i in INPUTS.values() for f in i.files)]:
            pack(f)
        print(f"bundle {bundle}: {sum(f.stat().st_size for f in bundle.rglob('*') if f.is_file()) / MiB:.1f} MiB",
              file=sys.stderr)
        return
    results = a.theirs
    if results is None:
        results = work / "theirs.jsonl"
        subprocess.run([sys.executable, str(RUNNER), "--bundle", str(bundle), "--sim", str(sim.resolve()),
                        "--results", str(results), "--jobs", str(a.jobs)], check=True)
    rows = compare(cases, read_theirs(results), a)
    if a.json:
        a.json.write_text(json.dumps(rows, indent=1))
    print(summary(rows), file=sys.stderr)
    if a.markdown:
        print(f"Repetitions per noisy case: {a.reps}, {a.reps_large} at 16,384 nodes (theirs: one process per "
              f"repetition; ours: seed {a.seed}). "
              f"Placement: {a.placement}. z: difference over the combined bootstrap standard error.\n")
        print(markdown(rows))


if __name__ == "__main__":
    main()
