"""The paper's simulation campaign and its ring past the paper's scale, timed in one run
on one machine, every figure beside its target.

    python bench/bench_campaign.py                                   # cloudnoise only
    python bench/bench_campaign.py --authors DIR --loggopsim DIR2    # beside both reference simulators
    python bench/bench_campaign.py --paper-reps 0                    # skip the whole `paper` run
    python bench/bench_campaign.py --big-nodes 0                     # skip the 4,096/16,384-node rings
    python bench/bench_campaign.py --cases                           # CPU per case of paper --reps 1000, extrapolated
    python bench/bench_campaign.py --paper-only                      # only the whole `paper --reps 1000` run

Cases (cloudnoise's side always end to end, as a user runs it: the public API or
the CLI with the built-in profile):

* The paper's 1,024-node 512 MiB ring (the authors' pipelinedring, `--schedgen
  paper --segmentsize size/ranks`: 512 KiB segments, every message a
  rendezvous) under network noise with the built-in Daint profile across racks,
  per repetition: `cloudnoise.simulate` on one thread (the specialised exchange
  loop, src/engine/exchange_loop.cpp), and the same schedule and noise forced
  through the general event loop (`_engine.run(general=True)`, the reference),
  checked to give the same runtimes bit for bit. With --authors DIR (their
  modified LogGOPSim, which this script does not build: `make` in the
  artifact's simulations/LogGOPSim with CXXFLAGS=-O3), their simulator runs
  --authors-reps repetitions, one process each, on the same ring converted by
  their txt2bin (conversion not timed), with their own inputs for Daint across
  racks (bench_vs_authors.make_inputs; needs the artifact).
* The same ring at --big-nodes (default 4,096 and 16,384 nodes): `cloudnoise
  simulate ... --reps --big-reps --threads 1 --json` as a subprocess: its
  engine seconds per repetition, wall time and peak RSS (the process's own,
  from wait4).
* The 16,384-rank 16 B dissemination under OS noise, per repetition, beside
  public LogGOPSim -O3 (bench_vs_loggopsim.os_noise_only; --loggopsim DIR).
* `cloudnoise paper --reps N` from an empty folder: wall time, CPU seconds
  of all its processes, the peak resident memory of its processes (the
  largest one's, from getrusage), and how long both cores were busy (its
  process tree's CPU sampled every 0.5 s from /proc: the share of the run
  with more than 90 % of the cores busy, and the one-core head and tail).
* `--cases`: the campaign's CPU per case without running it: for every
  configuration `paper` simulates (sweep grid, system, variant) it times the
  setup and a few repetitions on one thread (about --case-cpu CPU seconds
  each), and extrapolates each to --paper-reps repetitions as the campaign
  runs them (a cell whose noise draws nothing is simulated once): CPU
  seconds per grid and in all, events per CPU second, and the wall time on
  the cores of this machine if both stay busy. CPU time, so it holds on a
  shared machine too (within the cache contention other load causes).

Targets (on this 2-core machine): the 1,024-node ring <= 0.1 s per
repetition; the 16,384-node ring <= 20 s per repetition, peak RSS <= 1 GB;
`paper --reps 1000` <= 15 minutes and <= 1 GB; every result bit for bit the
general loop's. The machine is shared: the load average is printed beside
every figure, and CPU seconds beside wall seconds for our own runs; the
summary at the end repeats each figure beside its target.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from authors_runner import run_one  # noqa: E402
from bench_vs_authors import make_inputs, schedule_files  # noqa: E402
from bench_long_measure import process_tree  # noqa: E402
from bench_vs_loggopsim import children_cpu, os_noise_only  # noqa: E402

from cloudnoise import _engine  # noqa: E402
from cloudnoise.errors import CloudnoiseError  # noqa: E402
from cloudnoise.schedules.patterns import CollectiveSpec, generate  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
MiB = 1 << 20


def load() -> str:
    return f"load {os.getloadavg()[0]:.1f}"


SUMMARY: list[tuple[str, str, str]] = []  # (figure, value, target), printed at the end


def ring(work: Path, artifact: Path, reps: int, authors: Path | None, authors_reps: int) -> None:
    import cloudnoise
    from cloudnoise.simulation.setup import load_system, resolve_noise, resolve_params

    system = load_system("daint").at("different-racks")
    t0 = time.perf_counter()
    sched = generate(CollectiveSpec("pipelinedring", 1024, 512 * MiB, segmentsize="size/ranks", schedgen="paper"))
    print(f"\nThe paper's 1,024-node 512 MiB ring (the authors' pipelinedring), Daint across racks (built-in "
          f"profile), network noise, one thread; schedule generated in {time.perf_counter() - t0:.1f} s")
    t0, c0 = time.perf_counter(), time.process_time()
    r = cloudnoise.simulate(sched, profile=system, noise="network", reps=reps, seed=1, threads=1)
    wall, cpu = (time.perf_counter() - t0) / reps, (time.process_time() - c0) / reps
    print(f"  cloudnoise.simulate (specialised loop): {wall:.3f} s/repetition wall, {cpu:.3f} s CPU, "
          f"{r.events / cpu / 1e6:.1f} M events/CPU-s ({r.events:,} events; {load()})")
    noise = resolve_noise(system, 1).engine_model("network")
    t0, c0 = time.perf_counter(), time.process_time()
    g = _engine.run(sched, resolve_params(system, {}).to_engine(), noise, seed=1, count=reps, threads=1,
                    program_order=True, general=True)
    g_wall, g_cpu = (time.perf_counter() - t0) / reps, (time.process_time() - c0) / reps
    print(f"  the general loop (reference):         {g_wall:.3f} s/repetition wall, {g_cpu:.3f} s CPU ({load()})")
    same = np.asarray(r.runtime_ns).tolist() == (g["max_end_ps"] / 1000).tolist()
    print(f"  same runtimes bit for bit: {same}; specialised / general CPU: {cpu / g_cpu:.2f}; median "
          f"{np.median(r.runtime_ns) / 1e6:.3f} ms")
    SUMMARY.append(("1,024-node ring, s/repetition (CPU)", f"{cpu:.3f} (wall {wall:.3f})", "<= 0.1"))
    SUMMARY.append(("1,024-node ring, same as the general loop", str(same), "True"))
    if authors is None:
        print("  the authors' simulator: not run (pass --authors DIR)")
        return
    try:
        inputs = make_inputs(artifact, "daint", "different-racks", work)
    except CloudnoiseError as err:
        sys.exit(f"{err} (--artifact, or set CLOUDNOISE_SHARED)")
    _, binary = schedule_files("pipelinedring", 1024, work, work, authors / "txt2bin")
    walls, cpus = [], []
    for seed in range(authors_reps):
        t0, c0 = time.perf_counter(), children_cpu()
        run_one(authors / "LogGOPSim", work,
                {"key": "ring", "schedule": str(binary.resolve()), "flags": inputs.flags["net"], "seed": seed + 1})
        walls.append(time.perf_counter() - t0)
        cpus.append(children_cpu() - c0)
    a_wall, a_cpu = statistics.median(walls), statistics.median(cpus)
    print(f"  the authors' simulator: {a_wall:.2f} s/repetition wall, {a_cpu:.2f} s CPU (median of {authors_reps}, "
          f"one process each, reading its schedule included; their inputs; {load()})")
    print(f"  ratio, cloudnoise faster per repetition: {a_cpu / cpu:.1f}x in CPU time, {a_wall / wall:.1f}x in wall time")


def big_ring(nodes: int, reps: int) -> None:
    """`cloudnoise simulate` of the paper's ring at `nodes`, as a user runs it: its engine
    seconds per repetition, its wall time and its own peak RSS."""
    cmd = [sys.executable, "-m", "cloudnoise", "simulate", "--profile", "daint", "--placement", "different-racks",
           "--pattern", "pipelinedring", "--ranks", str(nodes), "--size", "512MiB", "--segmentsize", "size/ranks",
           "--schedgen", "paper", "--noise", "network", "--reps", str(reps), "--threads", "1", "--json", "--quiet"]
    print(f"\nThe paper's ring at {nodes:,} nodes, Daint across racks, network noise: `cloudnoise simulate` "
          f"--reps {reps} --threads 1 ({load()})", flush=True)
    t0 = time.perf_counter()
    with tempfile.TemporaryFile("w+") as errf:
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=errf, text=True)
        assert proc.stdout is not None
        out = proc.stdout.read()
        _, status, usage = os.wait4(proc.pid, 0)  # this child's own rusage
        proc.returncode = os.waitstatus_to_exitcode(status)
        errf.seek(0)
        err = errf.read()
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        print(f"  failed (exit {proc.returncode}): {err.strip()[-300:]}")
        return
    data = json.loads(out)
    per_rep = data["engine_seconds"] / reps
    rss_mib = usage.ru_maxrss / 1024
    print(f"  {per_rep:.1f} s/repetition (engine), {wall:.1f} s wall in all; {data['events']:,} events a repetition, "
          f"{data['events'] / per_rep / 1e6:.1f} M events/s; peak RSS {rss_mib:.0f} MiB; {load()}")
    if nodes == 16384:
        SUMMARY.append(("16,384-node ring, s/repetition", f"{per_rep:.1f}", "<= 20"))
        SUMMARY.append(("16,384-node ring, peak RSS MiB", f"{rss_mib:.0f}", "<= 1024"))
    else:
        SUMMARY.append((f"{nodes:,}-node ring, s/repetition", f"{per_rep:.2f}", "-"))


def cases(reps: int, case_cpu: float, cores: int) -> None:
    """CPU per case of `paper --reps REPS`, measured on a few repetitions each and extrapolated."""
    from collections import defaultdict

    from cloudnoise.paper.reproduce import plan, request_for
    from cloudnoise.paper.statements import SEC_V
    from cloudnoise.simulation.api import run_variant
    from cloudnoise.sweep.runner import config_setup

    print(f"\nCPU per case of `cloudnoise paper --reps {reps}`, each case timed on about {case_cpu:g} CPU s of "
          f"repetitions on one thread and extrapolated ({load()})")
    grids = plan(SEC_V)
    per_grid: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0, 0])  # CPU, events, setup CPU, cells
    noisy_rep: dict[str, list[float]] = defaultdict(list)
    total_setup = 0.0
    for grid in grids:
        req = request_for(grid, reps, 0)
        for system in req.systems:
            c0 = time.process_time()
            setup = config_setup(req.experiment_for(system), system, grid.nodes, 0, req.ready_order)
            sched = setup.experiment.schedule(grid.nodes)
            models = [setup.noise.engine_model(v) for v in grid.variants]
            c_setup = time.process_time() - c0
            total_setup += c_setup
            g = per_grid[grid.folder]
            g[2] += c_setup
            for v, _ in zip(grid.variants, models):
                kw = dict(params=setup.params, noise=setup.noise, variant=v, seed=setup.seed,
                          ready_order=setup.ready_order, threads=1)
                c0 = time.process_time()
                r = run_variant(sched, reps=1, **kw)
                one = time.process_time() - c0
                k = 1 if not setup.noise.draws(v) else max(1, min(50, int(case_cpu / max(one, 1e-4)) - 1))
                per = one
                if k > 1:
                    c0 = time.process_time()
                    run_variant(sched, reps=k, first_rep=1, **kw)
                    per = (time.process_time() - c0) / k
                runs = reps if setup.noise.draws(v) else 1
                g[0] += per * runs
                g[1] += r.events * runs
                g[3] += 1
                if v != "none":
                    noisy_rep[grid.folder].append(per)
    print(f"  {'sweep grid':36} {'cells':>5} {'noisy s/rep':>17} {'CPU s':>8} {'share':>6} {'M ev/s':>7}")
    total = sum(g[0] for g in per_grid.values())
    for name, (cpu, events, _, cells) in sorted(per_grid.items(), key=lambda kv: -kv[1][0]):
        nr = noisy_rep.get(name)
        rng = f"{min(nr):.4f}-{max(nr):.4f}" if nr else "-"
        print(f"  {name:36} {cells:5d} {rng:>17} {cpu:8.1f} {cpu / total:6.1%} {events / cpu / 1e6 if cpu else 0:7.1f}")
    print(f"  simulation: {total:.0f} CPU s at --reps {reps}; setups {total_setup:.1f} CPU s (made twice by the "
          f"campaign: planning and running)")
    wall = (total + 2 * total_setup) / cores
    print(f"  on {cores} cores kept busy: >= {wall:.0f} s wall ({wall / 60:.1f} min; target 15 min: "
          f"{wall / 900:.2f}x); the engine would have to be {total / (cores * 900 - 2 * total_setup):.2f}x "
          f"faster on these cases to fit in 15 min with no other overhead")


def tree_cpu_seconds(root: int) -> float:
    """CPU seconds (user + system) of process `root` and every live descendant, from /proc
    (Linux): what the campaign's client, scheduler and workers have used so far."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for pid in process_tree(root):
        try:
            with open(f"/proc/{pid}/stat") as f:
                text = f.read()
        except OSError:  # ended meanwhile
            continue
        fields = text[text.rfind(")") + 2:].split()  # after the command name, which may hold spaces
        total += (int(fields[11]) + int(fields[12])) / tick
    return total


def busy_timeline(proc: subprocess.Popen, period: float = 0.5) -> list[tuple[float, float]]:
    """(seconds since start, cores busy over the last period) for `proc`'s process tree until it
    exits. Work of a process that exits between two samples is not seen: the Dask workers live
    the whole campaign, so only short-lived helpers are missed."""
    samples: list[tuple[float, float]] = []
    t0 = last_t = time.perf_counter()
    last_cpu = 0.0
    while proc.poll() is None:
        time.sleep(period)
        now, cpu = time.perf_counter(), tree_cpu_seconds(proc.pid)
        samples.append((now - t0, max(0.0, cpu - last_cpu) / (now - last_t)))
        last_t, last_cpu = now, cpu
    return samples


def paper(reps: int, work: Path) -> None:
    """`cloudnoise paper --reps REPS` from an empty folder: wall, CPU, peak RSS, and how long the
    cores were busy (the target: both cores busy to the end): the share of the run with
    more than 1.8 of 2 cores busy, and the seconds before the first and after the last such
    moment (the campaign's one-core head and tail)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    cpu0 = children_cpu()
    print(f"\ncloudnoise paper --reps {reps} (from an empty folder; {load()})", flush=True)
    t0 = time.perf_counter()
    with tempfile.TemporaryFile("w+") as errf:
        proc = subprocess.Popen([sys.executable, "-m", "cloudnoise", "paper", "--reps", str(reps), "--json",
                                 "--out", str(work / "paper")], stdout=subprocess.DEVNULL, stderr=errf, text=True)
        timeline = busy_timeline(proc) if Path("/proc/self/stat").exists() else []
        proc.wait()
        errf.seek(0)
        err = errf.read()
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        print(f"  failed (exit {proc.returncode}): {err.strip()[-300:]}")
        return
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    peak_mib = max(peak, before) / 1024
    cpu = children_cpu() - cpu0
    print(f"  {wall:.0f} s wall ({wall / 900:.2f}x the 15-minute target), {cpu:.0f} CPU s in all its processes; "
          f"peak RSS of its largest process {peak_mib:.0f} MiB ({peak_mib / 1024:.2f}x the 1 GB target); {load()}")
    cores = len(os.sched_getaffinity(0))
    if timeline and cores >= 2:
        full = [t for t, busy in timeline if busy >= 0.9 * cores]
        share = len(full) / len(timeline)
        head = full[0] if full else wall
        tail = wall - full[-1] if full else wall
        print(f"  cores busy: {share:.0%} of the run with more than {0.9 * cores:.1f} of {cores} cores busy; "
              f"{head:.0f} s before the first such moment (planning, the cluster's start), {tail:.0f} s after the "
              f"last (the last tasks, merging, checking); the CPU it used is {cpu / (cores * wall):.0%} of what "
              f"{cores} cores give in that wall time")
        SUMMARY.append((f"paper --reps {reps}, both cores busy", f"{share:.0%} (head {head:.0f} s, tail {tail:.0f} s)",
                        "to the end"))
    SUMMARY.append((f"paper --reps {reps}, wall s", f"{wall:.0f}", "<= 900"))
    SUMMARY.append((f"paper --reps {reps}, peak RSS MiB", f"{peak_mib:.0f}", "<= 1024"))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--authors", type=Path, help="folder with the authors' LogGOPSim (-O3) and txt2bin")
    ap.add_argument("--authors-reps", type=int, default=2)
    ap.add_argument("--loggopsim", type=Path, help="folder with public LogGOPSim -O3 and txt2bin")
    ap.add_argument("--artifact", type=Path,
                    default=Path(os.environ.get("CLOUDNOISE_SHARED", REPO.parent / "shared")) / "paper-artifact")
    ap.add_argument("--reps", type=int, default=4, help="cloudnoise repetitions of the 1,024-node ring")
    ap.add_argument("--big-nodes", default="4096,16384", help="node counts of the ring past the paper (0: none)")
    ap.add_argument("--big-reps", type=int, default=1, help="repetitions of each --big-nodes ring")
    ap.add_argument("--diss-reps", type=int, default=200)
    ap.add_argument("--paper-reps", type=int, default=1000, help="0: skip the paper run")
    ap.add_argument("--cases", action="store_true",
                    help="only the CPU per case of paper --paper-reps, extrapolated (no reference simulators)")
    ap.add_argument("--case-cpu", type=float, default=1.0, help="CPU seconds of repetitions timed per case")
    ap.add_argument("--paper-only", action="store_true",
                    help="only the whole `paper --paper-reps` run (no reference simulators, no artifact needed)")
    opts = ap.parse_args()
    cores = len(os.sched_getaffinity(0))
    print(f"cores {cores}; {load()}")
    if opts.cases:
        cases(opts.paper_reps or 1000, opts.case_cpu, cores)
        return
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        if not opts.paper_only:
            ring(work, opts.artifact, opts.reps, opts.authors, opts.authors_reps)
            for n in (int(v) for v in opts.big_nodes.split(",") if v.strip() and int(v) > 0):
                big_ring(n, opts.big_reps)
            os_noise_only(work, opts.diss_reps, 3, opts.loggopsim)
        if opts.paper_reps:
            paper(opts.paper_reps, work)
    if SUMMARY:
        print(f"\nSummary (each figure beside its target; {load()}):")
        for name, value, target in SUMMARY:
            print(f"  {name:45s} {value:>22s}   target {target}")


if __name__ == "__main__":
    main()
