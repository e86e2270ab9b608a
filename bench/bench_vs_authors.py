"""cloudnoise's switch-draws mode beside the paper authors' own simulator (issue 36, item 4).

    python bench/bench_vs_authors.py --authors DIR                      # DIR holds their LogGOPSim and txt2bin
    python bench/bench_vs_authors.py --authors DIR --systems daint --nodes 16,256 --reps 100 --jobs 2
    python bench/bench_vs_authors.py --authors DIR --markdown           # the table for docs/paper.md

    # their runs on another machine (many cores, no cloudnoise needed there):
    python bench/bench_vs_authors.py --authors DIR --prepare BUNDLE --work GOALS ...   # inputs + tasks.json
    python3 bench/authors_runner.py --bundle BUNDLE --sim DIR/LogGOPSim --results theirs.jsonl --jobs 16
    python bench/bench_vs_authors.py --authors DIR --bundle BUNDLE --work GOALS --theirs theirs.jsonl ...

The authors' simulator is their modified LogGOPSim (the SC'22 artifact,
github.com/DanieleDeSensi/cloud_noise, `simulations/LogGOPSim`). It is not
part of cloudnoise: build it yourself (`make` there; it needs gengetopt, re2c
and libcgraph) and pass its folder.

What runs, per system, placement, schedule and node count, on the same inputs:

* parameters: the authors' (cloudnoise.profiles.authors_parameters: their
  loggp_params.py "x1" rows, nodes per switch from simulate.py);
* samples: the run the system's built-in profile uses for the placement
  (profiles.artifact.build.network_run: the run description.csv names, Day,
  or the stored run standing in for it; a placement with no stored run
  takes the other placement's, as the profile does), turned into their
  latency/bandwidth files as their simulate.py does (warm-up rows dropped,
  ps, scaled to median L or G; near and far files from the same run), read
  back by cloudnoise;
* OS noise: that run's ng_osnoise.out in ps (where it is empty, the other
  placement's run's, as the profile does); cloudnoise reads what their
  simulator reads of it (profiles/artifact/authors_inputs.effective_trace);
* schedules: cloudnoise's Schedgen-identical GOAL, calc times set to 0 for
  nwaydissemination_nocompute as their script does, converted by their txt2bin.

A system with no stored network run (Oracle HPC) runs noiseless only.
Variants none, os, net, os+net (their names). Their simulator runs one
repetition per process (fresh random seed; its OS-noise offsets come from
/dev/urandom), --jobs processes at a time (bench/authors_runner.py);
cloudnoise runs --reps repetitions (seed 1). Printed per case: noiseless
runtimes (both, relative difference), and per noise variant the median and
p90 slowdown (over the noiseless run) of both, with the difference in units
of the combined bootstrap standard error of the two statistics (|z| < 2:
within the Monte Carlo error).
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


def schedule_files(pattern: str, nodes: int, work: Path, bundle: Path, txt2bin: Path) -> tuple[Path, Path]:
    """The GOAL text (in WORK; calc 0 for the nocompute dissemination) and their binary of it (in the bundle)."""
    goal = work / f"{pattern}_{nodes}.goal"
    binary = bundle / "sched" / f"{pattern}_{nodes}.bin"
    binary.parent.mkdir(parents=True, exist_ok=True)
    if not goal.exists():
        if pattern == "nwaydissemination_nocompute":
            spec = CollectiveSpec("nwaydissemination", nodes, 16)
        else:
            spec = CollectiveSpec("pipelinedring", nodes, 512 * MiB, segmentsize=512 * MiB // nodes)
        write_goal(spec, goal)
        if pattern == "nwaydissemination_nocompute":
            text = goal.read_text()
            goal.write_text(re.sub(r"^(l\d+: calc) \d+$", r"\1 0", text, flags=re.M))
    if not binary.exists() and not binary.with_name(binary.name + ".zst").exists():
        subprocess.run([str(txt2bin), "-i", str(goal), "-o", str(binary)], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return goal, binary


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
        cases += [Case(system, "nwaydissemination_nocompute", n, noisy) for n in _ints(a.nodes)]
        cases += [Case(system, "pipelinedring", n, noisy) for n in _ints(a.ring_nodes)]
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


def tasks(cases: list[Case], bundle: Path, reps: int) -> list[dict[str, Any]]:
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
            for rep in range(reps):
                out.append({"key": c.key(variant, rep), "schedule": sched, "flags": INPUTS[c.system].flags[variant],
                            "seed": int(seeds.integers(0, 2**31))})
    return out


INPUTS: dict[str, Inputs] = {}


def read_theirs(path: Path) -> dict[str, int]:
    return {r["key"]: int(r["ps"]) for r in map(json.loads, path.read_text().splitlines()) if r}


def compare(cases: list[Case], theirs: dict[str, int], work: Path, bundle: Path, a: argparse.Namespace) -> list[dict[str, Any]]:
    """cloudnoise on every case their results cover; one row per case."""
    rng = np.random.default_rng(12345)
    rows = []
    for c in cases:
        base_theirs = theirs.get(c.key("none", 0))
        if base_theirs is None:
            print(f"{c.system} {c.pattern} {c.nodes}: no noiseless run of theirs; skipped", file=sys.stderr)
            continue
        inp = INPUTS[c.system]
        goal = work / f"{c.pattern}_{c.nodes}.goal"
        sched = _engine.parse_goal(goal.read_bytes(), str(goal))
        base_ours = int(_engine.run(sched, inp.params, inp.models["none"], seed=1, first=0, count=1,
                                    program_order=False)["max_end_ps"][0])
        row: dict[str, Any] = {"system": c.system, "pattern": c.pattern, "nodes": c.nodes, "theirs_ps": base_theirs,
               "ours_ps": base_ours, "diff": base_ours / base_theirs - 1, "variants": {}}
        print(f"{c.system:16} {c.pattern:28} {c.nodes:6} none   theirs {base_theirs / 1e6:12.3f} us  ours "
              f"{base_ours / 1e6:12.3f} us  diff {100 * row['diff']:+.3f}%", file=sys.stderr, flush=True)
        for variant in c.variants:
            t_runs = np.array([theirs[k] for k in (c.key(variant, r) for r in range(a.reps)) if k in theirs],
                              dtype=np.float64)
            if t_runs.size < 5:
                continue
            ours = np.asarray(_engine.run(sched, inp.params, inp.models[variant], seed=1, first=0, count=a.reps,
                                          threads=a.jobs, program_order=False)["max_end_ps"], dtype=np.float64)
            stats: dict[str, Any] = {"reps_theirs": int(t_runs.size), "reps_ours": int(ours.size)}
            for q, name in ((0.5, "median"), (0.9, "p90")):
                t, o = np.quantile(t_runs, q), np.quantile(ours, q)
                se = (boot_se(t_runs, q, rng) ** 2 + boot_se(ours, q, rng) ** 2) ** 0.5
                z = (o / base_ours - t / base_theirs) / (se / base_theirs) if se > 0 else 0.0
                stats[name] = {"theirs": t / base_theirs, "ours": o / base_ours, "z": z}
            row["variants"][variant] = stats
            m, p = stats["median"], stats["p90"]
            print(f"{c.system:16} {c.pattern:28} {c.nodes:6} {variant:6} median slowdown theirs {m['theirs']:.3f} "
                  f"ours {m['ours']:.3f} (z {m['z']:+.1f}); p90 theirs {p['theirs']:.3f} ours {p['ours']:.3f} "
                  f"(z {p['z']:+.1f}); reps {t_runs.size}/{ours.size}", file=sys.stderr, flush=True)
        rows.append(row)
    return rows


def markdown(rows: list[dict[str, Any]]) -> str:
    """The docs/paper.md table: one line per case, cells theirs / ours."""
    out = ["| system | schedule | nodes | noiseless us: theirs / ours (diff) | os: median, p90 slowdown theirs / "
           "ours (z) | net | os+net |", "|---|---|---:|---|---|---|---|"]
    names = {"nwaydissemination_nocompute": "dissemination 16 B", "pipelinedring": "ring 512 MiB"}
    order = {s: i for i, s in enumerate(FOUR + OTHERS)}
    for r in sorted(rows, key=lambda r: (order.get(r["system"], 99), r["system"], r["pattern"], r["nodes"])):
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
        out.append(f"| {r['system']} | {names[r['pattern']]} | {r['nodes']} | {r['theirs_ps'] / 1e6:.3f} / "
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
    ap.add_argument("--authors", type=Path, required=True, help="folder with their LogGOPSim and txt2bin")
    ap.add_argument("--artifact", type=Path, default=REPO.parent / "shared" / "paper-artifact")
    ap.add_argument("--systems", default=",".join(FOUR), help=f"default the four; the others: {','.join(OTHERS)}")
    ap.add_argument("--placement", default="different-racks", choices=("same-rack", "different-racks"))
    ap.add_argument("--nodes", default="4,16,64,256,1024", help="node counts for the dissemination")
    ap.add_argument("--ring-nodes", default="4,16,64", help="node counts for pipelinedring (its GOAL grows as nodes^2)")
    ap.add_argument("--ring-quiet-nodes", default="", help="node counts for a noiseless-only pipelinedring")
    ap.add_argument("--reps", type=int, default=50)
    ap.add_argument("--new-only", action="store_true",
                    help="for the four systems, only rings at 1,024 nodes and more (the rest is in docs/paper.md)")
    ap.add_argument("--variants", default=",".join(VARIANTS))
    ap.add_argument("--jobs", type=int, default=1, help="their runs (and cloudnoise's threads) at a time")
    ap.add_argument("--work", type=Path, help="folder for the GOAL files (kept)")
    ap.add_argument("--bundle", type=Path, help="folder for their inputs and tasks.json (kept)")
    ap.add_argument("--prepare", action="store_true", help="write the bundle (packed for carrying) and stop")
    ap.add_argument("--theirs", type=Path, help="their results (authors_runner.py's --results) instead of running")
    ap.add_argument("--json", type=Path, help="write the rows here")
    ap.add_argument("--markdown", action="store_true", help="print one Markdown table")
    a = ap.parse_args()
    sim, txt2bin = a.authors / "LogGOPSim", a.authors / "txt2bin"
    for tool in (sim, txt2bin):
        if not tool.is_file():
            sys.exit(f"{tool}: not found; build their simulator (`make` in simulations/LogGOPSim) and pass its folder")
    work = a.work or Path(tempfile.mkdtemp(prefix="cn-vs-authors-"))
    bundle = a.bundle or work / "bundle"
    work.mkdir(parents=True, exist_ok=True)
    bundle.mkdir(parents=True, exist_ok=True)
    for system in a.systems.split(","):
        INPUTS[system] = make_inputs(a.artifact, system, a.placement, bundle)
        print(f"# {system} {a.placement}: {INPUTS[system].run}", file=sys.stderr, flush=True)
    cases = plan(INPUTS, a)
    for c in cases:
        schedule_files(c.pattern, c.nodes, work, bundle, txt2bin)
    (bundle / "tasks.json").write_text(json.dumps(tasks(cases, bundle, a.reps)))
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
    rows = compare(cases, read_theirs(results), work, bundle, a)
    if a.json:
        a.json.write_text(json.dumps(rows, indent=1))
    print(summary(rows), file=sys.stderr)
    if a.markdown:
        print(f"Repetitions per noisy case: {a.reps} (theirs: one process per repetition; ours: seed 1). "
              f"Placement: {a.placement}. z: difference over the combined bootstrap standard error.\n")
        print(markdown(rows))


if __name__ == "__main__":
    main()
