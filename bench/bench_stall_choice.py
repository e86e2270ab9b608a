"""Which stall model `model build` keeps, run by run: stalls in time, for small messages only, or per message.

    python bench/bench_stall_choice.py                              # every Netgauge run of the artifact (~6 min)
    python bench/bench_stall_choice.py --runs alps,daint --json out.json

For each run: `measure import netgauge` and `model build` as a user runs them (a campaign given
with --campaign is used as it is). Runs whose latency series shows no stalls in time are listed
as such; for the others it prints what `model/stall_choice.py` weighed: whether the stalls in
time give the latency series back (closure (a)), whether the bandwidth series refutes stalls
that hold every message (the share of its large round trips more than 2, 5 or 20 % slow,
replayed with the OS and latency noise alone, against the series'), whether per-message draws
close where they were built, which model was kept, and how many builds it took. The figures of
docs/explanation/measurement.md, "Stalls in time, for which messages, or per message".
"""

from __future__ import annotations

import contextlib
import io
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def choice_row(label: str, campaign: Path, work: Path, seed: int) -> dict:
    from cloudnoise.model.build import build_profile

    notes: list[str] = []
    started = time.monotonic()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        built = build_profile(campaign, work / (label.replace("/", "_") + ".json"), allow_missing=True, seed=seed,
                              say=notes.append)
    split = built.get("latency_split") or {}
    return {
        "run": label, "seconds": time.monotonic() - started, "builds": 1 + len(notes),
        "stalls_in_time_shown": bool(split.get("kind") in ("bursty", "periodic")),
        "stall_time_share": (built.get("campaign") or {}).get("stall_time_share"),
        "choice": built.get("stall_choice"), "closure_closes": (built.get("closure") or {}).get("closes"),
        "bandwidth_closure_closes": (built.get("bandwidth_closure") or {}).get("closes"),
        "eager_limit_bytes": built["loggops"].get("S"),
    }


def _fmt(row: dict) -> str:
    choice = row["choice"]
    if choice is None:
        return f"{row['run']}: no stalls in time kept ({row['builds']} build, {row['seconds']:.0f} s)"
    refuted = choice["refutation"]
    said = ("not refuted" if refuted is None else
            f"refuted: {100 * refuted['replay_share']:.3g}% of {refuted['size_bytes']} B round trips more than "
            f"{100 * refuted['slower_by']:g} % slow (each part at least {100 * refuted['least_share']:.3g}%) against "
            f"{100 * refuted['series_share']:.3g}%")
    per_message = {None: "not built", True: "closes", False: "misses"}[choice["per_message_closes"]]
    kept = {"time": "in time", "small": f"in time, messages up to {row['eager_limit_bytes']} B",
            "message": "per message"}[choice["chosen"]]
    share = row["stall_time_share"]
    return (f"{row['run']}: {'' if share is None else f'{100 * share:.2g} % of the time in stalls; '}stalls in time "
            f"{'close' if choice['in_time_closes'] else 'miss'} (a); {said}; per message: {per_message}; kept: {kept} "
            f"({row['builds']} builds, {row['seconds']:.0f} s); latency closure "
            f"{'closes' if row['closure_closes'] else 'misses'}, bandwidth closure "
            f"{'closes' if row['bandwidth_closure_closes'] else 'misses'}")


def main() -> None:
    sys.path.insert(0, str(REPO / "bench"))
    from bench_closure import run_benchmark, runs_parser

    args = runs_parser(__doc__.splitlines()[0]).parse_args()
    run_benchmark(args, "bench-stall-choice-", lambda work: lambda label, c: choice_row(label, c, work, args.seed),
                  _fmt)

if __name__ == "__main__":
    main()
