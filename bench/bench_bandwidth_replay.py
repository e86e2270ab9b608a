"""Does a built profile give back its own bandwidth series? The large-message replay, run by run.

    python bench/bench_bandwidth_replay.py                          # every Netgauge run of the artifact (~10 min)
    python bench/bench_bandwidth_replay.py --runs aws_c5n,deep-est --json out.json
    python bench/bench_bandwidth_replay.py --campaign DEMO --no-artifact

For each run: `measure import netgauge` and `model build` as a user runs them (a campaign given
with --campaign is used as it is), then the campaign's bandwidth series (back-to-back
ping-pongs of its largest size, 16 MiB in Netgauge's runs) is replayed through the engine with
the built profile, as many round trips as measured (at most --max), and both are printed as
quantiles over the measured median (p1, p10, p50, p90, p99, p99.9) with the shares more than
2, 5 and 20 % slower than the measured median: where the bandwidth's level
(model/bandwidth_level.py) and its per-message fractions (model/bandwidth_deconvolution.py)
stand, beside what `model build`'s two closures (bandwidth and latency) judge. Run it niced: it builds a profile
per run.
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
QUANTILES = (1.0, 10.0, 50.0, 90.0, 99.0, 99.9)
SLOWER = (0.02, 0.05, 0.20)


def replay_row(label: str, campaign: Path, work: Path, most: int, seed: int) -> dict:
    from cloudnoise.model.build import _bandwidth_stats, _series, build_profile
    from cloudnoise.model.closure import replay_of
    from cloudnoise.model.profile import load_profile

    found = _bandwidth_stats(campaign)
    if found is None:
        return {"run": label, "error": "no bandwidth series"}
    _, size, _, exp = found
    out = work / (label.replace("/", "_") + ".json")
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        built = build_profile(campaign, out, allow_missing=True, seed=seed)
    measured = np.concatenate([np.asarray(b[1], np.float64) for b in _series(campaign, exp, size, one_pair=True)()])
    replay = np.asarray(replay_of(load_profile(out), min(measured.size, most), size, seed), np.float64)
    median = float(np.median(measured))
    stored = json.loads(out.read_text())
    return {
        "run": label, "size_bytes": size, "measured": int(measured.size), "replayed": int(replay.size),
        "median_ns": median,
        "measured_over_median": [float(x) for x in np.percentile(measured, QUANTILES) / median],
        "replay_over_median": [float(x) for x in np.percentile(replay, QUANTILES) / median],
        "measured_slower": [float(np.mean(measured > median * (1 + f))) for f in SLOWER],
        "replay_slower": [float(np.mean(replay > median * (1 + f))) for f in SLOWER],
        "bandwidth_level": built.get("bandwidth_level"),
        "episodes": bool((built.get("bandwidth_split") or {}).get("used")),
        "bandwidth_closure": _verdict(stored.get("bandwidth_closure")),
        "latency_closure": _verdict(stored.get("closure")),
    }


def _verdict(closure: dict | None) -> dict | None:
    """What `model build` judged of its own replay: whether it closes, and the rows it misses."""
    if not closure:
        return None
    return {"closes": bool(closure.get("closes")),
            "misses": [r["statistic"] for r in closure.get("rows", []) if r.get("judged") and not r.get("within")]}


def _judged(verdict: dict | None) -> str:
    if verdict is None:
        return "none"
    return "closes" if verdict["closes"] else "misses " + ", ".join(verdict["misses"] or ["(not judged)"])


def _fmt(row: dict) -> str:
    if "error" in row:
        return f"{row['run']}: {row['error']}"
    q = lambda v: "/".join(f"{x:.3f}" for x in v)  # noqa: E731
    s = lambda v: "/".join(f"{100 * x:.1f}" for x in v)  # noqa: E731
    lv = row["bandwidth_level"]
    moved = f"; level x{lv['factor']:.3g}" if lv else ""
    return (f"{row['run']}: {row['size_bytes']} B, {row['measured']:,} round trips (median {row['median_ns'] / 1e6:.4g} "
            f"ms){', drops in time' if row['episodes'] else ''}{moved}\n"
            f"    p1/p10/p50/p90/p99/p99.9 over the measured median: measured {q(row['measured_over_median'])}, "
            f"replay {q(row['replay_over_median'])}\n"
            f"    % slower than the median by 2/5/20 %: measured {s(row['measured_slower'])}, "
            f"replay {s(row['replay_slower'])}\n"
            f"    model build's closure: bandwidth {_judged(row.get('bandwidth_closure'))}; latency "
            f"{_judged(row.get('latency_closure'))}")


def main() -> None:
    sys.path.insert(0, str(REPO / "bench"))
    from bench_closure import run_benchmark, runs_parser

    ap = runs_parser(__doc__.splitlines()[0])
    ap.add_argument("--max", type=int, default=100_000, help="Most round trips replayed per run.")
    args = ap.parse_args()
    run_benchmark(args, "bench-bw-replay-", lambda work: lambda label, c: replay_row(label, c, work, args.max,
                                                                                     args.seed), _fmt)

if __name__ == "__main__":
    main()
