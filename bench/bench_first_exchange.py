"""The first exchange of a validate repetition against the ones after it, and
against measure loggp's back-to-back exchange (why the first exchange of a repetition costs more).

For each of --pairs rounds, back to back on this machine:

* `cloudnoise measure loggp --sizes 1,16,64,256,1024` (a few seconds): the
  median 16 B exchange, timed back to back as `measure loggp` does;
* `cloudnoise validate FILE.goal` on two GOAL files: one 16 B exchange per
  repetition, and N chained ones (exchange k+1 starts when both sends and the
  receive of exchange k completed on that rank);

and prints the medians: the one-exchange repetition, the N-exchange one, the
cost of an exchange after the first ((T_N - T_1) / (N - 1)) and the state
probes of the validate runs (core-to-core and 1 B ping-pong, ns). Seen on
the 2-vCPU KVM guest: the first exchange ~1.9 us, each later one
~0.67 us, loggp's exchange 0.59-0.68 us, the ping-pong 0.35-0.55 us one way.

Then, with --periods, the same two GOAL files run by validate's executor with
the repetitions of a block started --period-us apart (cn_goal_exec
--period-us: one broadcast start per block, so the ranks wait period -
runtime without messages between repetitions): what the first exchange
costs against how long the ranks waited before it. Seen there: ~0.9-1.1 us
after 4-8 us, 1.0-1.4 us after 20-50 us, 2-4.4 us after 200 us, 4.5-6.7 us
after 1 ms; validate's own start margin is ~60 us.

The machine must be quiet (two busy-polling ranks on two cores).

    python bench/bench_first_exchange.py [--pairs 3] [--chain 10] [--reps 300] [--periods 4,20,200,1000]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import pandas as pd

from cloudnoise.simulation.params import LogGOPS


def chained_exchanges(n: int, size: int = 16) -> str:
    """GOAL text: two ranks exchanging `size` bytes n times, each exchange after the previous one."""
    lines = ["num_ranks 2"]
    for rank in (0, 1):
        peer = 1 - rank
        lines.append(f"rank {rank} {{")
        for k in range(n):
            lines += [f"s{k}: send {size}b to {peer} tag {k}", f"r{k}: recv {size}b from {peer} tag {k}"]
            if k:
                lines += [f"s{k} requires r{k - 1}", f"s{k} requires s{k - 1}", f"r{k} requires r{k - 1}"]
        lines.append("}")
    return "\n".join(lines) + "\n"


def cli(*args: str) -> subprocess.CompletedProcess:
    proc = subprocess.run([sys.executable, "-m", "cloudnoise", *args], capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        sys.exit(f"cloudnoise {' '.join(args[:2])} failed: {proc.stderr.strip()[-400:]}")
    return proc


def loggp_exchange_ns(work: Path) -> float:
    out = work / "loggp"
    cli("measure", "loggp", "--sizes", "1,16,64,256,1024", "--out", str(out))
    s = pd.read_parquet(out / "loggp" / "samples.parquet")
    kind = s["kind"].astype(str)
    return float(s[(kind == "exchange") & (s["size_bytes"] == 16)]["value_ns"].median())


def validate_ns(goal: Path, reps: int) -> tuple[float, float, float]:
    """Median runtime of one repetition, and the run's core and ping-pong probes (ns)."""
    params = LogGOPS.parse()  # LogGOPSim's defaults: validate needs a model, the simulated side is not looked at
    row = json.loads(cli("validate", str(goal), "--reps", str(reps), "--json", *(
        f"--{k}={v}" for k, v in (("L", params.L_ps / 1000), ("o", params.o_ps / 1000), ("g", params.g_ps / 1000),
                                  ("G", params.G_fs / 1e6), ("O", params.O_fs / 1e6), ("S", params.S)))).stdout)["results"][0]
    return row["measured_median_us"] * 1000, row["core_latency_ns"]["median"], row["pingpong_ref_ns"]["median"]


def period_sweep(one: Path, chain: Path, n: int, periods: list[float], reps: int, work: Path) -> None:
    """The first and the later exchanges against the wait before each repetition."""
    import numpy as np

    from cloudnoise.measurement.mpi import find_mpi
    from cloudnoise.validation import executor
    from cloudnoise import _engine
    from cloudnoise.validation.optable import from_schedule

    mpi = find_mpi()
    print(f"\n{'period us':>9s} {'1 exch rep':>11s} {f'{n} exch rep':>12s} {'later exch':>11s} {'late reps':>10s} "
          f"{'1 B ping':>9s}   (ns, medians; the ranks wait about period - runtime before each repetition)")
    for period in periods:
        medians = []
        for k, goal in enumerate((one, chain)):
            req = executor.ExecRequest(table=from_schedule(_engine.read_goal(str(goal))), reps=reps, warmup=20,
                                       workdir=work / f"p{period}-{k}", period_us=period + (0 if k == 0 else n))
            m = executor.run(req, mpi)
            medians.append((float(np.median(m.runtime_ns)), m.late_reps(), float(np.median(m.pingpong_ref_ns))))
        (t1, late, ping), (tn, _, _) = medians
        print(f"{period:9g} {t1:11.0f} {tn:12.0f} {(tn - t1) / (n - 1):11.0f} {late:10d} {ping:9.0f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pairs", type=int, default=3, help="rounds of loggp + both validations")
    ap.add_argument("--chain", type=int, default=10, help="exchanges in the long repetition")
    ap.add_argument("--reps", type=int, default=300, help="validate repetitions")
    ap.add_argument("--periods", default="4,20,200,1000",
                    help="us between repetition starts for the sweep (comma list; empty: no sweep)")
    opts = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-first-exchange-") as tmp:
        work = Path(tmp)
        one, chain = work / "one.goal", work / "chain.goal"
        one.write_text(chained_exchanges(1))
        chain.write_text(chained_exchanges(opts.chain))
        print(f"{'round':>5s} {'loggp exch':>11s} {'1 exch rep':>11s} {f'{opts.chain} exch rep':>12s} "
              f"{'later exch':>11s} {'core':>6s} {'1 B ping':>9s}   (ns, medians)")
        later_all, first_all, loggp_all = [], [], []
        for k in range(1, opts.pairs + 1):
            lg = loggp_exchange_ns(work / f"r{k}")
            t1, core, ping = validate_ns(one, opts.reps)
            tn, _, _ = validate_ns(chain, opts.reps)
            later = (tn - t1) / (opts.chain - 1)
            later_all.append(later)
            first_all.append(t1)
            loggp_all.append(lg)
            print(f"{k:5d} {lg:11.0f} {t1:11.0f} {tn:12.0f} {later:11.0f} {core:6.0f} {ping:9.0f}")
        print(f"median: loggp's exchange {statistics.median(loggp_all):.0f} ns; a repetition's first exchange "
              f"{statistics.median(first_all):.0f} ns; each later one {statistics.median(later_all):.0f} ns")
        periods = [float(p) for p in opts.periods.split(",") if p.strip()]
        if periods:
            period_sweep(one, chain, opts.chain, periods, opts.reps, work)


if __name__ == "__main__":
    main()
