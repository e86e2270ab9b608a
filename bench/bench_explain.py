"""What recording the critical path costs, and `cloudnoise explain` beside `cloudnoise simulate`.

    python bench/bench_explain.py                       # every part
    python bench/bench_explain.py --part engine --reps 50
    python bench/bench_explain.py --part cli --profiles daint --reps 200
    python bench/bench_explain.py --part timeline

`--part engine`: the engine alone, with and without the critical path recorded
(`_engine.run(critical_path=True)`), in paired runs taken in turn (wall-clock on a
shared machine moves by 2x from one day to the next; the ratio of paired runs holds):
bench_noise.py's 16,384-rank 16 B dissemination under its OS and network noise, and
the paper's 1,024-node 512 MiB ring (the authors' pipelinedring) under Daint's network
noise across racks, on the threads given (default 2). The recorder keeps 40 bytes
per operation and writes a few per event; the path itself is walked once a repetition.

`--part cli`: `cloudnoise explain --pattern dissemination --ranks 16384 --size 16B
--profile P --noise both --reps 200` against the same `cloudnoise simulate`, each run
as a user runs it (a fresh process), in turn, for daint, alps and azure-hpc: the issue
asks explain to take at most twice simulate's time. explain runs `none` beside `both`
(once: the noiseless run draws nothing) and records every repetition's path.

`--part timeline`: `cloudnoise simulate` of that dissemination on azure-hpc with both
noises writing the timeline of its median and p99 repetitions for ranks 0-63
(`--timeline-ranks 0-63`): the file's size (the issue's bound: under 50 MB) and the
time the timeline adds.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]


def engine_part(reps: int, rounds: int, threads: int) -> None:
    sys.path.insert(0, str(REPO / "bench"))
    from bench_noise import noise_case

    from cloudnoise import _engine
    from cloudnoise.schedules.patterns import CollectiveSpec, generate
    from cloudnoise.simulation.setup import load_system, resolve_noise, resolve_params

    params, noise = noise_case()
    system = load_system("daint").at("different-racks")
    cases = [
        ("16,384-rank 16 B dissemination, OS + network noise", generate(CollectiveSpec("dissemination", 16384, 16)),
         params.to_engine(), noise.engine_model("both"), reps, False),
        ("1,024-node 512 MiB paper ring, Daint network noise", generate(CollectiveSpec(
            "pipelinedring", 1024, 512 << 20, segmentsize="size/ranks", schedgen="paper")),
         resolve_params(system, {}).to_engine(), resolve_noise(system, 0).engine_model("network"), max(1, reps // 25), True),
    ]
    for name, sched, p, model, n, program in cases:
        times: dict[bool, list[float]] = {False: [], True: []}
        for _ in range(rounds):
            for record in (False, True):
                t0 = time.perf_counter()
                out = _engine.run(sched, p, model, seed=1, count=n, threads=threads, program_order=program,
                                  critical_path=record)
                times[record].append(time.perf_counter() - t0)
                if record:
                    assert (out["path_parts"].sum(axis=1) == out["max_end_ps"]).all()
        off, on = np.median(times[False]), np.median(times[True])
        print(f"{name}: {n} repetitions, {threads} threads, {rounds} paired rounds")
        print(f"  without the path {off:7.2f} s   with it {on:7.2f} s   ratio {on / off:.3f}  "
              f"(rounds: {', '.join(f'{b / a:.3f}' for a, b in zip(times[False], times[True]))})", flush=True)


def cli_part(profiles: list[str], reps: int, rounds: int) -> None:
    env = {**os.environ, "PYTHONPATH": f"{REPO / 'src'}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    for profile in profiles:
        args = ["--pattern", "dissemination", "--ranks", "16384", "--size", "16B", "--profile", profile,
                "--noise", "both", "--reps", str(reps), "--json"]
        times: dict[str, list[float]] = {"simulate": [], "explain": []}
        for _ in range(rounds):
            for command in ("simulate", "explain"):
                t0 = time.perf_counter()
                subprocess.run([sys.executable, "-m", "cloudnoise", command, *args], check=True, env=env,
                               stdout=subprocess.DEVNULL)
                times[command].append(time.perf_counter() - t0)
        sim, exp = np.median(times["simulate"]), np.median(times["explain"])
        print(f"{profile}: 16,384-rank 16 B dissemination, --noise both --reps {reps}: simulate {sim:6.1f} s, "
              f"explain {exp:6.1f} s, ratio {exp / sim:.2f} (limit 2; rounds: "
              f"{', '.join(f'{e / s:.2f}' for s, e in zip(times['simulate'], times['explain']))})", flush=True)


def timeline_part(reps: int) -> None:
    import json
    import tempfile

    env = {**os.environ, "PYTHONPATH": f"{REPO / 'src'}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    args = ["--pattern", "dissemination", "--ranks", "16384", "--size", "16B", "--profile", "azure-hpc",
            "--noise", "both", "--reps", str(reps), "--quiet"]
    with tempfile.TemporaryDirectory(prefix="cn-bench-timeline-") as tmp:
        path = Path(tmp) / "t.json"
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-m", "cloudnoise", "simulate", *args], check=True, env=env,
                       stdout=subprocess.DEVNULL)
        plain = time.perf_counter() - t0
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-m", "cloudnoise", "simulate", *args, "--timeline", str(path),
                        "--timeline-rep", "median,p99", "--timeline-ranks", "0-63"], check=True, env=env,
                       stdout=subprocess.DEVNULL)
        timed = time.perf_counter() - t0
        events = len(json.loads(path.read_text())["traceEvents"])
        print(f"16,384-rank 16 B dissemination, azure-hpc, both noises, --reps {reps}: timeline of the median and "
              f"p99 repetitions, ranks 0-63: {path.stat().st_size / 1e6:.2f} MB, {events:,} events; simulate "
              f"{plain:.1f} s without it, {timed:.1f} s with it", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--part", choices=["engine", "cli", "timeline", "all"], default="all")
    ap.add_argument("--reps", type=int, default=200, help="repetitions (the ring runs a 25th of them)")
    ap.add_argument("--rounds", type=int, default=3, help="paired rounds, taken in turn")
    ap.add_argument("--threads", type=int, default=2, help="engine threads (--part engine)")
    ap.add_argument("--profiles", default="daint,alps,azure-hpc", help="profiles (--part cli)")
    args = ap.parse_args()
    if args.reps < 1 or args.rounds < 1 or args.threads < 1:
        sys.exit("--reps, --rounds and --threads must be at least 1")
    print(f"load: {os.getloadavg()[0]:.1f} {os.getloadavg()[1]:.1f} {os.getloadavg()[2]:.1f} (1, 5, 15 min) "
          f"on {os.cpu_count()} CPUs", flush=True)
    if args.part in ("engine", "all"):
        engine_part(args.reps, args.rounds, args.threads)
    if args.part in ("cli", "all"):
        cli_part([p.strip() for p in args.profiles.split(",") if p.strip()], args.reps, args.rounds)
    if args.part in ("timeline", "all"):
        timeline_part(min(args.reps, 20))


if __name__ == "__main__":
    main()
