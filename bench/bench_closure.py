"""Closure on every Netgauge run of the artifact, and on campaigns measured here, checked two ways.

For each run: `measure import netgauge` (a campaign given with --campaign is used as it is),
`model build` (the noise counted once; --as-paper: the paper's way), then

(a) the replay `model build` stores (`closure` in the profile): round-trip quantiles p50-p99
    within 10 % or 200 ns, the shares more than 1, 2, 10 us late within 25 % or 0.1 points;
(b) through `simulate`, as a user could check it: a 2-rank GOAL chain of K back-to-back 1 B
    ping-pongs, `--profile` the built profile, `--noise none,both`, --reps repetitions
    (20,000): the excess of `both` over the noiseless chain against the run's own sums of K
    consecutive round trips minus K medians, p50, p90, p99 within 25 % or 300 ns, for each K,
    with the measured chains started two ways (model/chain_sums.py): by sample (non-overlapping
    sums within each stretch of the series, the issue's definition) and by time (at a moment
    uniform over the series' time, meeting the profile's stalls in time as often as they take
    time, and the rest of the stall it starts in: what each of simulate's repetitions does).

Prints one row per run and (with --json) every figure. Run it niced: it imports and builds
every run (the 37 runs of the artifact and a demo campaign: about 5 minutes on a 2-core machine at load 3-4).

    python bench/bench_closure.py [--artifact ../shared/paper-artifact] [--runs deep-est,alps]
        [--campaign DIR ...] [--reps 20000] [--ks 1,20] [--as-paper] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from cloudnoise.model.chain_sums import Series

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

PROBS = (50.0, 90.0, 99.0)
REL, SLACK_NS = 0.25, 300.0


def runs_of(artifact: Path, only: list[str]) -> list[Path]:
    """The artifact's run tarballs (DGEMM runs left out)."""
    out = []
    for tar in sorted(artifact.glob("*/*.tar.xz")):
        if tar.parent.name == "compute":
            continue
        if only and not any(o in str(tar.relative_to(artifact)) for o in only):
            continue
        out.append(tar)
    return out


def measured_series(campaign: Path) -> Series:
    """The run's one-pair latency series in order, with its stretches (model/series_order.py)."""
    from cloudnoise.model.build import _latency_stats, _series
    from cloudnoise.model.chain_sums import Series

    lat = _latency_stats(campaign)
    assert lat is not None
    _, _, exp, size = lat
    starts, values, keys = [], [], []
    for s, v, key in _series(campaign, exp, size, one_pair=True)():
        starts.append(np.asarray(s, np.int64))
        values.append(np.asarray(v, np.int64))
        keys.append(np.asarray(key, np.int64))
    s, v, key = np.concatenate(starts), np.concatenate(values), np.concatenate(keys)
    new = np.concatenate(([True], (key[1:] != key[:-1]) | (s[1:] < s[:-1])))
    return Series.of(v, np.flatnonzero(new))


def within(sim_q: np.ndarray, meas_q: np.ndarray) -> list[bool]:
    return [bool(abs(a - b) <= max(REL * abs(b), SLACK_NS)) for a, b in zip(sim_q, meas_q)]


def check_b(profile: Path, campaign: Path, ks: list[int], reps: int, seed: int,
            stall_threshold_ns: float | None) -> dict:
    """(b): simulate's K-chains against the run's own sums of K round trips, by sample and by
    time (model/chain_sums.py; `stall_threshold_ns`: the profile's stalls in time, or None)."""
    import cloudnoise
    from cloudnoise.model.chain_sums import by_sample, by_time
    from cloudnoise.model.closure import pingpong_goal
    from cloudnoise.model.profile import load_profile

    has_os = load_profile(profile).os_noise is not None
    series = measured_series(campaign)
    median = series.median()
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        for k in ks:
            goal = Path(tmp) / f"chain{k}.goal"
            goal.write_bytes(pingpong_goal(k, 1))
            noisy = "both" if has_os else "network"  # all the profile's noise
            res = cloudnoise.simulate(goal, profile=str(profile), noise=["none", noisy], reps=reps, seed=seed,
                                      threads=1).by_variant()
            noiseless = float(np.median(res["none"].runtime_ns))
            excess = np.asarray(res[noisy].runtime_ns, np.float64) - noiseless
            sample = by_sample(series, k, median)
            timed = by_time(series, k, stall_threshold_ns, median)
            sim_q = np.percentile(excess, PROBS)
            meas_q, time_q = sample.percentiles(PROBS), timed.percentiles(PROBS)
            # the same, absolute: the chain's time against the sum of k round trips (what the
            # reference K x T0 against K x median hides where the noiseless round trip is not the median)
            absolute = np.percentile(np.asarray(res[noisy].runtime_ns, np.float64) - k * median, PROBS)
            out[str(k)] = {"simulated_ns": sim_q.tolist(), "measured_ns": meas_q.tolist(),
                           "within": within(sim_q, meas_q), "blocks": sample.count,
                           "by_time_ns": time_q.tolist(), "by_time_within": within(sim_q, time_q),
                           "stall_time_share": timed.stall_time_share,
                           "noiseless_ns": noiseless, "median_ns": median,
                           "absolute_ns": absolute.tolist(), "absolute_within": within(absolute, meas_q),
                           "absolute_by_time_within": within(absolute, time_q)}
    return out


def levels(campaign: Path, k: int = 20) -> dict:
    """How much sums of k consecutive round trips vary beyond independent draws, over the series
    and within Netgauge's calls (each call a launch of 1,000 ping-pongs, its first 21 dropped on
    import), with the stalls counted at the split's rule (median + 10 spreads, at least twice the
    median), the spread of the calls' medians (model/chain_sums.py `persistence`), and how much
    slower each call's first tenth runs than the rest (a warm-up longer than the samples dropped)."""
    from cloudnoise.measurement.imports.netgauge_pingpong import RUN_LENGTH, WARMUP_DROPPED
    from cloudnoise.model.chain_sums import persistence

    series = measured_series(campaign)
    m = series.median()
    clip = m + max(10.0 * (float(np.percentile(series.values_ns, 90.0)) - m), m)
    call = RUN_LENGTH - WARMUP_DROPPED
    p = persistence(series, k, call, clip)
    # each call's first tenth against the rest (a warm-up that outlasts the dropped samples), in
    # the mean of the round trips at each place in a call, and the p50 of the sums of k there
    calls = series.values_ns.size // call
    first: dict[str, float] = {}
    if calls:
        x = np.minimum(series.values_ns[:calls * call], clip).reshape(calls, call)
        tenth = call // 10
        per = call // k
        sums = x[:, :per * k].reshape(calls, per, k).sum(axis=2) - k * m
        early = np.arange(per) < max(1, per // 10)
        first = {"first_tenth_minus_rest_ns": float(x[:, :tenth].mean() - x[:, tenth:].mean()),
                 "sums_p50_first_tenth_ns": float(np.median(sums[:, early])),
                 "sums_p50_rest_ns": float(np.median(sums[:, ~early]))}
    return {"k": k, "ratio": p.ratio, "ratio_within_calls": p.ratio_within_calls,
            "call_medians_ns": list(p.call_medians_ns), "calls": p.calls, **first}


def one(label: str, campaign: Path, work: Path, ks: list[int], reps: int, seed: int, as_paper: bool) -> dict:
    from cloudnoise.model.build import build_profile

    t0 = time.perf_counter()
    profile = work / f"{label.replace('/', '_')}.json"
    built = build_profile(campaign, profile, as_paper=as_paper, seed=seed, allow_missing=True)
    row = {"run": label, "build_s": round(time.perf_counter() - t0, 1), "closure": built.get("closure"),
           "campaign": built.get("campaign"), "counted_once": built.get("counted_once"),
           "latency_level": built.get("latency_level"), "latency_state": built.get("latency_state"),
           "latency_split": (built.get("latency_split") or {}).get("kind"), "shared_levels": built.get("shared_levels"),
           "recurring_stalls": built.get("recurring_stalls")}
    if built.get("closure") is not None:
        split = built.get("latency_split") or {}
        row["b"] = check_b(profile, campaign, ks, reps, seed, split.get("threshold_ns") if split.get("used") else None)
        if "source=netgauge" in built.get("labels", []):
            row["levels"] = levels(campaign)
    row["seconds"] = round(time.perf_counter() - t0, 1)
    return row


def _fmt(row: dict) -> str:
    c = row.get("closure")
    if c is None:
        return f"{row['run']}: no latency series"
    misses = [r["statistic"] for r in c["rows"] if r["judged"] and not r["within"]]
    judged = any(r["judged"] for r in c["rows"])  # too few round trips: nothing judged
    a = "not judged" if not judged else "closes" if not misses else "misses " + ",".join(misses)
    parts = [f"{row['run']}: (a) {a}"]
    def us(q: list[float]) -> str:
        return "/".join(f"{x / 1e3:.3g}" for x in q)

    for k, b in row.get("b", {}).items():
        parts.append(f"(b) K={k} sim {us(b['simulated_ns'])} us; by sample {'ok' if all(b['within']) else 'MISS'} "
                     f"{us(b['measured_ns'])}; by time {'ok' if all(b['by_time_within']) else 'MISS'} "
                     f"{us(b['by_time_ns'])} ({100 * b['stall_time_share']:.3g}% of the time in stalls)"
                     f" [absolute: by sample {'ok' if all(b['absolute_within']) else 'MISS'}, by time "
                     f"{'ok' if all(b['absolute_by_time_within']) else 'MISS'}; T0-median "
                     f"{(b['noiseless_ns'] / int(k) - b['median_ns']):+.0f} ns]")
    lv = row.get("levels")
    if lv:
        parts.append(f"sums of {lv['k']} vary {lv['ratio']:.2g}x independent draws, {lv['ratio_within_calls']:.2g}x "
                     f"within calls (call medians {lv['call_medians_ns'][0] / 1e3:.4g}-{lv['call_medians_ns'][1] / 1e3:.4g} us)")
    state = row.get("latency_state")
    if state:
        parts.append(f"state in time: {'hold %.3g round trips' % state['hold_round_trips'] if state['used'] else 'none'}"
                     f" ({state['why'][:90]})")
    shared = row.get("shared_levels")
    if shared and shared["found"]:
        parts.append(f"shared levels {shared['lower_ns'] / 1e3:.4g}/{shared['upper_ns'] / 1e3:.4g} us "
                     f"({'kept' if shared['used'] else 'not kept'})")
    recurring = row.get("recurring_stalls")
    if recurring and recurring["found"]:
        parts.append(f"recurring stalls {100 * recurring['stall_share']:.3g}% of round trips, one every "
                     f"{recurring['cycle_ns'] / 1e3:.3g} us ({'kept' if recurring['used'] else 'not kept'})")
    level = row.get("latency_level")
    if level:
        parts.append(f"L moved {level['L_moved_by_ns']:+.5g} ns (the fit's T0 - median "
                     f"{level['fitted_noiseless_round_trip_ns'] - level['median_round_trip_ns']:+.0f} ns)")
    return "; ".join(parts)


def main() -> None:
    ap = runs_parser(__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=20_000)
    ap.add_argument("--ks", default="1,20")
    ap.add_argument("--as-paper", action="store_true")
    args = ap.parse_args()
    ks = [int(k) for k in args.ks.split(",")]
    run_benchmark(args, "bench-closure-",
                  lambda work: lambda label, c: one(label, c, work, ks, args.reps, args.seed, args.as_paper), _fmt)


def runs_parser(description: str) -> argparse.ArgumentParser:
    """The options every run-by-run bench takes: which artifact runs and campaigns, the seed, --json."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--artifact", type=Path, default=REPO.parent / "shared" / "paper-artifact")
    ap.add_argument("--runs", default="", help="Comma-separated parts of run paths to keep (default: all).")
    ap.add_argument("--campaign", type=Path, action="append", default=[], help="A campaign measured here.")
    ap.add_argument("--no-artifact", action="store_true")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", type=Path)
    return ap


def run_benchmark(args: argparse.Namespace, prefix: str, row_in: Callable[[Path], Callable[[str, Path], dict]],
                  fmt: Callable[[dict], str]) -> None:
    """`each_run` in a scratch folder (`row_in(folder)` makes the row function), with the load average
    printed first and, with --json, every row written at the end (also when interrupted)."""
    work = Path(tempfile.mkdtemp(prefix=prefix))
    rows: list[dict] = []
    print(f"# load average {os.getloadavg()}, {os.cpu_count()} cores", flush=True)
    try:
        each_run(args, work, row_in(work), fmt, rows)
    finally:
        shutil.rmtree(work, ignore_errors=True)
        if args.json:
            args.json.write_text(json.dumps({"load_average": os.getloadavg(), "rows": rows}, indent=1))


def each_run(args: argparse.Namespace, work: Path, row: Callable[[str, Path], dict], fmt: Callable[[dict], str],
             rows: list[dict]) -> None:
    """Every campaign given (`args.campaign`) and, unless `args.no_artifact`, every Netgauge run of
    `args.artifact` whose path holds a part of `args.runs`, imported into `work` as a user imports
    one (`measure import netgauge`, salvaged where cut short): `row(label, campaign)` appended to
    `rows` and printed with `fmt` as it comes (an error as one line), the imported campaign removed."""
    from cloudnoise.errors import CloudnoiseError
    from cloudnoise.measurement.imports.netgauge import import_netgauge

    todo: list[tuple[str, Path | None, Path | None]] = [(str(c), None, c) for c in args.campaign]
    if not args.no_artifact:
        todo += [(str(t.relative_to(args.artifact)).removesuffix(".tar.xz"), t, None)
                 for t in runs_of(args.artifact, [r for r in args.runs.split(",") if r])]
    for label, tar, campaign in todo:
        try:
            if campaign is None:
                assert tar is not None
                campaign = work / label.replace("/", "_")
                try:
                    import_netgauge(tar, campaign, {"system": label.split("/")[0]})
                except CloudnoiseError as err:
                    if "no Netgauge output" in str(err):
                        continue
                    shutil.rmtree(campaign, ignore_errors=True)
                    import_netgauge(tar, campaign, {"system": label.split("/")[0]}, salvage=True)
            got = row(label, campaign)
        except CloudnoiseError as err:
            got = {"run": label, "error": str(err)}
        rows.append(got)
        print(fmt(got) if "error" not in got else f"{label}: {got['error']}", flush=True)
        if tar is not None and campaign is not None:
            shutil.rmtree(campaign, ignore_errors=True)


if __name__ == "__main__":
    main()
