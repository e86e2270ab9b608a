"""cloudnoise's switch-draws mode beside the paper authors' own simulator (issue 36, item 4).

    python bench/bench_vs_authors.py --authors DIR                      # DIR holds their LogGOPSim and txt2bin
    python bench/bench_vs_authors.py --authors DIR --systems daint --nodes 16,256 --reps 100
    python bench/bench_vs_authors.py --authors DIR --markdown           # the table for docs/paper.md

The authors' simulator is their modified LogGOPSim (the SC'22 artifact,
github.com/DanieleDeSensi/cloud_noise, `simulations/LogGOPSim`). It is not
part of cloudnoise: build it yourself (`make` there; it needs gengetopt, re2c
and libcgraph) and pass its folder.

What runs, per system, placement, schedule and node count, on the same inputs:

* parameters: the authors' (cloudnoise.profiles.authors_parameters: their
  loggp_params.py "x1" rows, nodes per switch from simulate.py);
* samples: the artifact run description.csv names for the system and
  placement (Day), turned into their latency/bandwidth files as their
  simulate.py does (warm-up rows dropped, ps, scaled to median L or G; near
  and far files from the same run across racks), read back by cloudnoise;
* OS noise: their trace file (ng_osnoise.out in ps); cloudnoise reads what
  their simulator reads of it (profiles/artifact/authors_inputs.effective_trace);
* schedules: cloudnoise's Schedgen-identical GOAL, calc times set to 0 for
  nwaydissemination_nocompute as their script does, converted by their txt2bin.

Variants none, os, net, os+net (their names). Their simulator runs one
repetition per process (fresh random seed; its OS-noise offsets come from
/dev/urandom); cloudnoise runs --reps repetitions (seed 1). Printed per
case: noiseless runtimes (both, relative difference), and per noise variant
the median and p90 runtime and slowdown (over the noiseless run) of both,
with the difference in units of the combined bootstrap standard error of
the two statistics (|z| < 2: within the Monte Carlo error).
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from cloudnoise import _engine
from cloudnoise.profiles.artifact.authors_inputs import (
    BANDWIDTH_FILE, LATENCY_FILE, OS_NOISE_FILE, effective_trace, gap_ps_per_byte, latency_ps, os_trace_ps,
    read_members,
)
from cloudnoise.model.switch_draws import scaled_to_median
from cloudnoise.profiles.artifact.runs import choose_run
from cloudnoise.profiles.authors_parameters import authors_parameters
from cloudnoise.schedules.patterns import CollectiveSpec, write_goal

REPO = Path(__file__).resolve().parent.parent
VARIANTS = ("none", "os", "net", "os+net")
MiB = 1 << 20


@dataclass
class Inputs:
    """One system and placement: the authors' files and cloudnoise's engine inputs made from them."""

    system: str
    placement: str
    run: str
    flags: dict[str, list[str]]  # variant -> the authors' simulator flags
    models: dict[str, _engine.NoiseModel]
    params: _engine.LogGOPSParams


def write_ints(path: Path, values: np.ndarray) -> None:
    path.write_text("\n".join(str(int(v)) for v in values) + "\n")


def read_ints(path: Path) -> np.ndarray:
    return np.loadtxt(path, dtype=np.int64, ndmin=1)


def make_inputs(artifact: Path, system: str, placement: str, work: Path) -> Inputs:
    near = authors_parameters(system, "same-rack")
    here = authors_parameters(system, placement)
    if near is None or here is None:
        sys.exit(f"{system}: the authors did not simulate it")
    choice = choose_run(artifact, system, placement)
    if choice.used is None:
        sys.exit(f"{system} {placement}: {choice.provenance(artifact)}")
    files = read_members(choice.used, (LATENCY_FILE, BANDWIDTH_FILE, OS_NOISE_FILE))
    lat, gap = latency_ps(files[LATENCY_FILE]), gap_ps_per_byte(files[BANDWIDTH_FILE])
    starts, durations = os_trace_ps(files[OS_NOISE_FILE])
    d = work / f"{system}_{placement}"
    d.mkdir(parents=True, exist_ok=True)
    os_file = d / "os_noise.out"
    os_file.write_text("".join(f"{s}\t{u}\n" for s, u in zip(starts.tolist(), durations.tolist())))
    sets = {"near": (near.L_ps, near.G_ps_per_byte)}
    if placement == "different-racks":
        sets["far"] = (here.L_ps, here.G_ps_per_byte)
    files_of = {}
    for which, (L, G) in sets.items():
        write_ints(d / f"lat_{which}.out", scaled_to_median(lat, L))
        write_ints(d / f"bw_{which}.out", scaled_to_median(gap, G))
        files_of[which] = (d / f"lat_{which}.out", d / f"bw_{which}.out")
    common = ["-o", str(here.o_ps), "-g", str(here.g_ps), "-O", "0", "-S", str(here.S_bytes),
              "--nodes_per_switch", str(here.nodes_per_switch)]
    quiet = [f"--LogGOPS_L={near.L_ps}", f"--LogGOPS_G={near.G_ps_per_byte}"]
    if placement == "different-racks":  # as their script passes them (their simulator ignores both)
        quiet += [f"--LogGOPS_L_far={here.L_ps}", f"--LogGOPS_G_far={here.G_ps_per_byte}"]
    noisy = [f"--LogGOPS_Lfile={files_of['near'][0]}", f"--LogGOPS_Gfile={files_of['near'][1]}"]
    if "far" in files_of:
        noisy += [f"--LogGOPS_Lfile_far={files_of['far'][0]}", f"--LogGOPS_Gfile_far={files_of['far'][1]}"]
    os_flag = [f"--noise-trace={os_file}"]
    flags = {"none": quiet + common, "os": quiet + os_flag + common, "net": noisy + common,
             "os+net": noisy + os_flag + common}

    # cloudnoise: the same files, read back.
    def one(v: int) -> np.ndarray:
        return np.array([v], dtype=np.int64)

    quiet_draws = _engine.SwitchDraws(one(near.L_ps), one(near.G_ps_per_byte * 1000), one(near.L_ps),
                                      one(near.G_ps_per_byte * 1000), here.nodes_per_switch)
    far = files_of.get("far", files_of["near"])
    noisy_draws = _engine.SwitchDraws(read_ints(files_of["near"][0]), read_ints(files_of["near"][1]) * 1000,
                                      read_ints(far[0]), read_ints(far[1]) * 1000, here.nodes_per_switch)
    eff_starts, eff_durations = effective_trace(starts, durations)
    trace = _engine.OsNoiseTrace(np.ascontiguousarray(eff_starts), np.ascontiguousarray(eff_durations))
    models = {}
    for variant in VARIANTS:
        m = _engine.NoiseModel()
        m.switch_draws = noisy_draws if "net" in variant else quiet_draws
        if "os" in variant:
            m.os = trace
        models[variant] = m
    params = _engine.LogGOPSParams(near.L_ps, here.o_ps, here.g_ps, near.G_ps_per_byte * 1000, 0, here.S_bytes,
                                   -1, [], -1)
    return Inputs(system, placement, choice.provenance(artifact), flags, models, params)


def schedule_files(pattern: str, nodes: int, work: Path, txt2bin: Path) -> tuple[Path, Path]:
    """The GOAL text (calc 0 for the nocompute dissemination) and their binary of it."""
    goal = work / f"{pattern}_{nodes}.goal"
    binary = work / f"{pattern}_{nodes}.bin"
    if not binary.exists():
        if pattern == "nwaydissemination_nocompute":
            spec = CollectiveSpec("nwaydissemination", nodes, 16)
        else:
            spec = CollectiveSpec("pipelinedring", nodes, 512 * MiB, segmentsize=512 * MiB // nodes)
        write_goal(spec, goal)
        if pattern == "nwaydissemination_nocompute":
            text = goal.read_text()
            goal.write_text(re.sub(r"^(l\d+: calc) \d+$", r"\1 0", text, flags=re.M))
        subprocess.run([str(txt2bin), "-i", str(goal), "-o", str(binary)], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return goal, binary


def run_authors(sim: Path, binary: Path, flags: list[str], seed: int) -> int:
    out = subprocess.run([str(sim), "-f", str(binary), *flags, "--batchmode", "--seed", str(seed)],
                         capture_output=True, text=True, check=True).stdout
    m = re.search(r"Maximum finishing time at host \d+: (\d+)", out)
    if m is None:
        sys.exit(f"their simulator printed no finishing time: {out[-300:]}")
    return int(m.group(1))


def boot_se(x: np.ndarray, q: float, rng: np.random.Generator, n: int = 400) -> float:
    idx = rng.integers(0, x.size, size=(n, x.size))
    return float(np.std(np.quantile(x[idx], q, axis=1)))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--authors", type=Path, required=True, help="folder with their LogGOPSim and txt2bin")
    ap.add_argument("--artifact", type=Path, default=REPO.parent / "shared" / "paper-artifact")
    ap.add_argument("--systems", default="daint,alps,azure-hpc,azure-hpc-200")
    ap.add_argument("--placement", default="different-racks", choices=("same-rack", "different-racks"))
    ap.add_argument("--patterns", default="nwaydissemination_nocompute,pipelinedring")
    ap.add_argument("--nodes", default="4,16,64,256,1024")
    ap.add_argument("--ring-nodes", default="4,16,64", help="node counts for pipelinedring (its GOAL grows as nodes^2)")
    ap.add_argument("--reps", type=int, default=50)
    ap.add_argument("--variants", default=",".join(VARIANTS))
    ap.add_argument("--keep", type=Path, help="keep the inputs in this folder")
    ap.add_argument("--markdown", action="store_true", help="print one Markdown table")
    a = ap.parse_args()
    sim, txt2bin = a.authors / "LogGOPSim", a.authors / "txt2bin"
    for tool in (sim, txt2bin):
        if not tool.is_file():
            sys.exit(f"{tool}: not found; build their simulator (`make` in simulations/LogGOPSim) and pass its folder")
    work = a.keep or Path(tempfile.mkdtemp(prefix="cn-vs-authors-"))
    work.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(12345)
    seeds = np.random.default_rng(777)
    variants = [v for v in a.variants.split(",") if v]
    rows = []
    for system in a.systems.split(","):
        inputs = make_inputs(a.artifact, system, a.placement, work)
        print(f"# {system} {a.placement}: run {inputs.run}", file=sys.stderr)
        for pattern in a.patterns.split(","):
            node_list = a.ring_nodes if pattern == "pipelinedring" else a.nodes
            for nodes in (int(n) for n in node_list.split(",")):
                goal, binary = schedule_files(pattern, nodes, work, txt2bin)
                sched = _engine.parse_goal(goal.read_bytes(), str(goal))
                base_theirs = run_authors(sim, binary, inputs.flags["none"], 1)
                base_ours = int(_engine.run(sched, inputs.params, inputs.models["none"], seed=1, first=0, count=1,
                                            program_order=False)["max_end_ps"][0])
                rows.append((system, pattern, nodes, "none", base_theirs, base_ours, None))
                print(f"{system:14} {pattern:28} {nodes:6} none   theirs {base_theirs / 1e6:12.3f} us  ours "
                      f"{base_ours / 1e6:12.3f} us  diff {100 * (base_ours / base_theirs - 1):+.3f}%", file=sys.stderr)
                for variant in variants:
                    if variant == "none":
                        continue
                    theirs = np.array([run_authors(sim, binary, inputs.flags[variant], int(seeds.integers(0, 2**31)))
                                       for _ in range(a.reps)], dtype=np.float64)
                    ours = np.asarray(_engine.run(sched, inputs.params, inputs.models[variant], seed=1, first=0,
                                                  count=a.reps, threads=1, program_order=False)["max_end_ps"],
                                      dtype=np.float64)
                    stats = {}
                    for q, name in ((0.5, "median"), (0.9, "p90")):
                        t, o = np.quantile(theirs, q), np.quantile(ours, q)
                        se = (boot_se(theirs, q, rng) ** 2 + boot_se(ours, q, rng) ** 2) ** 0.5
                        stats[name] = (t / base_theirs, o / base_ours, (o / base_ours - t / base_theirs)
                                       / (se / base_theirs) if se > 0 else 0.0, t, o)
                    rows.append((system, pattern, nodes, variant, base_theirs, base_ours, stats))
                    m, p = stats["median"], stats["p90"]
                    print(f"{system:14} {pattern:28} {nodes:6} {variant:6} median slowdown theirs {m[0]:.3f} ours "
                          f"{m[1]:.3f} (z {m[2]:+.1f}); p90 theirs {p[0]:.3f} ours {p[1]:.3f} (z {p[2]:+.1f})",
                          file=sys.stderr)
    if a.markdown:
        print(f"Repetitions per noisy case: {a.reps} each (theirs: one process per repetition; ours: seed 1). "
              f"Placement: {a.placement}. z: difference over the combined bootstrap standard error.\n")
        print("| system | schedule | nodes | noise | theirs: noiseless us / median / p90 slowdown "
              "| ours | noiseless diff | z median / p90 |")
        print("|---|---|---:|---|---|---|---:|---|")
        for system, pattern, nodes, variant, bt, bo, stats in rows:
            if stats is None:
                print(f"| {system} | {pattern} | {nodes} | none | {bt / 1e6:.3f} | {bo / 1e6:.3f} | "
                      f"{100 * (bo / bt - 1):+.3f}% | |")
            else:
                m, p = stats["median"], stats["p90"]
                print(f"| {system} | {pattern} | {nodes} | {variant} | {m[0]:.3f} / {p[0]:.3f} | {m[1]:.3f} / "
                      f"{p[1]:.3f} | | {m[2]:+.1f} / {p[2]:+.1f} |")


if __name__ == "__main__":
    main()
