"""Turn a measurement campaign into a system profile (``cloudnoise model build``).

The profile is written in the ``cloudnoise-profile/1`` format owned by
``cloudnoise.model.profile`` (docs/profile-format.md): one JSON file plus the
noise data it names, next to it, by relative path. What comes from where:

* ``loggops``: the ``loggp`` experiment's fit (measured). Without one, it is
  reconstructed the way the built-in profiles are: o = 10 % of the minimum
  latency, L = min latency - 2o, g = o, G = 8 / max bandwidth [Gb/s] ns/B,
  O = 0, S = 65535 B.
* ``latency_noise``: the per-message latency excess (ns), from
  ``latency-noise`` (else the smallest size of ``latency``), as a quantile
  table on the engine's grid (``quantile_grid``) taken from the streaming
  histogram of every sample: an hour of samples is never loaded. The simulator
  charges a small message 2o + L + excess, so L and the excess are made to
  reproduce the measured one-way times T together (`consistent_latency`):
  L = min T - 2o (at least 0) and excess = T - 2o - L (at least 0). A fit's
  L describes the *median* T; adding an excess over the *minimum* on top of
  it would count the median's distance from the minimum twice.
* ``bandwidth_noise``: the bandwidth as a fraction of its maximum, from
  ``bandwidth-noise`` (else the best size of ``bandwidth``/``latency``), as a
  quantile table from the same histograms. The simulator
  charges a byte G / fraction, so a fitted G (which describes the *median*
  transfer) is scaled by the median fraction (`consistent_gap`): the
  simulated median is then the fitted one, where an unscaled G would count
  the median's distance from the peak twice, as with L above.
* ``os_noise``: the ``os-noise`` selfish-detour trace, copied to
  ``<profile>.os_noise.trace``.
* ``table2``: the campaign's Table II figures, under the node distance its
  ``distance`` label names (never "same rack" unless the campaign says so:
  an unknown distance is kept as unknown, see below).
* ``compute``: the DGEMM rate `measure` timed on the launching host
  (``compute`` in the campaign's metadata, see cloudnoise.measurement.dgemm),
  labelled measured; `gemm:N` phases on this profile run at it.

An experiment the campaign lists but whose samples are missing or empty is
an error (a profile silently built without its latency noise would simulate
a quieter system than the one measured); ``allow_missing`` builds it anyway,
and the profile's provenance and the returned ``missing`` list say what was
left out. Nothing is written until the whole profile is built and loads
back: its files are made in a temporary folder beside ``out`` and renamed
into place, so a failed build never destroys an earlier profile.

The dict is built here rather than through the profile dataclasses so this
module works on its own; when ``cloudnoise.model.profile`` is importable the
result is validated by loading it back.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from cloudnoise.errors import CloudnoiseError, shown
from cloudnoise.measurement.campaign_files import read_experiment_summary, read_metadata, read_summary
from cloudnoise.measurement.placement import placement
from cloudnoise.measurement.summaries import RELATIVE_PRECISION, StreamStats
from cloudnoise.measurement.summary_reader import experiment_stats, iter_samples
from cloudnoise.model.bandwidth_split import BandwidthSplit, describe_episodes, split_bandwidth
from cloudnoise.model.distributions import quantile_grid
from cloudnoise.model.gap_bound import GapBound, gap_bound
from cloudnoise.model.chain_sums import streamed_sums
from cloudnoise.model.closer_build import closer, kept, why_not_kept
from cloudnoise.model.closure import MAX_REPLAY, SUMS_K, Closure, Measured, clock_step, closure_of
from cloudnoise.model.closure_causes import bandwidth_causes, closure_causes
from cloudnoise.model.latency_deconvolution import CountedOnce, OSPart, count_once, os_part_of
from cloudnoise.model.bandwidth_closure import MAX_REPLAY as BANDWIDTH_REPLAY, bandwidth_closure_of
from cloudnoise.model.bandwidth_deconvolution import PerMessageBandwidth, deconvolve_bandwidth, message_time
from cloudnoise.model.bandwidth_level import BandwidthLevel, level_costs, with_costs
from cloudnoise.model.latency_level import LevelShift, level_delta, noiseless_round_trip, series_L, shift_loggops
from cloudnoise.model.latency_state import LatencyState, StateFit, fit_state, state_clause
from cloudnoise.model.latency_split import LatencySplit, split_latency
from cloudnoise.model.round_trips import RoundTrips, count_round_trips
from cloudnoise.model.series_order import iter_batches
from cloudnoise.model.stall_choice import (IN_TIME, PER_MESSAGE, SMALL, Refutation, choose_stall_model,
                                           needs_per_message, needs_small, refutation)
from cloudnoise.model.recurring_stalls import RecurringStalls, find_recurring_stalls
from cloudnoise.model.shared_levels import SharedLevels, find_shared_levels, levelled
from cloudnoise.model.state_choice import judge_state
from cloudnoise.output_files import default_file_mode

FORMAT = "cloudnoise-profile/1"
DEFAULT_S = 65535


def _measured(source: str) -> dict[str, str]:
    return {"kind": "measured", "source": source}


def _series(campaign: Path, exp: str, size: int, one_pair: bool,
            runs: set[int] | None = None) -> Callable[[], Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]]:
    """The experiment's samples of `size` (`one_pair`: of one pair of hosts at a time; `runs`:
    of these runs only, e.g. one pair of hosts of several) in their order, a batch at a time,
    each call reading them again: start times, round trips and the stretch they belong to
    (model/series_order.py)."""
    path = experiment_stats(campaign, exp).parquet  # type: ignore[union-attr]
    columns = ("run", "part", "rank", "stream", "time", "value_ns", "size_bytes", "pairs")
    chosen = np.array(sorted(runs), np.int64) if runs is not None else None

    def batches() -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        for c in iter_samples(path, columns):
            keep = (c["size_bytes"] == size) & ((c["pairs"] == 1) if one_pair else True)
            if chosen is not None:
                keep = keep & np.isin(c["run"], chosen)
            if not keep.all():
                c = {k: v[keep] for k, v in c.items()}
            yield from iter_batches(iter([c]))

    return batches


def _latency_stats(campaign: Path) -> tuple[StreamStats, str, str, int] | None:
    """The RTT summaries (ns) of the smallest size of latency-noise, else latency; with
    where they come from, the experiment and the size."""
    for exp in ("latency-noise", "latency"):
        got = experiment_stats(campaign, exp)
        sizes = got.by_size() if got else {}
        if sizes and sizes[min(sizes)].count:
            return sizes[min(sizes)], f"{exp} ({int(min(sizes))} B ping-pongs)", exp, int(min(sizes))
    return None


def _split_latency(campaign: Path, exp: str, size: int, stats: StreamStats,
                   least_threshold_ns: float = 0.0, runs: set[int] | None = None) -> LatencySplit:
    """The experiment's one-pair series of `size` in its order (`runs`: of these runs only),
    split into stalls in time and the independent remainder (model/latency_split.py), read
    twice a batch at a time."""
    return split_latency(_series(campaign, exp, size, one_pair=True, runs=runs), float(stats.percentile(50.0)),
                         float(stats.percentile(90.0)), least_threshold_ns=least_threshold_ns)


def _pairs_apart(campaign: Path, exp: str, size: int, stats: StreamStats, split: LatencySplit,
                 measured: list[dict[str, Any]], floor_ns: float) -> tuple[LatencySplit, list[dict[str, Any]]]:
    """With several pairs of hosts measured in turn: each pair's round trips, duration and time
    in stalls; and where only some pairs stall, the stalls estimated from those pairs' series
    and applied to those hosts' share (`hosts=` in the stalls: model/latency_episodes.py)."""
    from cloudnoise.model.vouching import STALLED_PAIR_SHARE, stall_time_share

    rows = []
    for m in measured:
        got = count_round_trips(_series(campaign, exp, size, one_pair=True, runs={int(m["run"])}))
        rows.append({"run": int(m["run"]), "hosts": [str(h) for h in m["hosts"]], "round_trips": got.count,
                     "duration_s": got.observed_ns / 1e9,
                     "stall_time_share": stall_time_share(got, split.threshold_ns) if got.count else 0.0})
    stalled = [r for r in rows if r["stall_time_share"] >= STALLED_PAIR_SHARE]
    if split.episodes is None or not stalled or len(stalled) == len(rows):
        return split, rows
    alone = _split_latency(campaign, exp, size, stats, floor_ns, runs={r["run"] for r in stalled})
    if alone.episodes is None:
        return split, rows
    hosts = {h for r in rows for h in r["hosts"]}
    share = len({h for r in stalled for h in r["hosts"]}) / max(len(hosts), 1)
    episodes = replace(alone.episodes, hosts=min(1.0, share), text="")
    why = (f"{alone.why}; seen on {len(stalled)} of {len(rows)} pairs of hosts "
           f"({', '.join('-'.join(r['hosts']) for r in stalled)}): on {100 * share:.3g}% of the hosts")
    return replace(alone, episodes=episodes, why=why), rows


def _provisional(profile: dict[str, Any], trace: Path | None) -> Any:
    """The profile as far as it is built (its LogGOPS parameters), with the campaign's OS-noise
    trace: what the engine needs to replay the OS part of a ping-pong series."""
    from cloudnoise.model.profile import profile_from_dict

    doc = {k: profile[k] for k in ("format", "name", "description", "hardware", "prices", "loggops")}
    if trace is not None:
        doc["os_noise"] = {"provenance": _measured("the campaign's selfish detour"), "trace": trace.name}
    return profile_from_dict(json.loads(json.dumps(doc)), "the profile being built",
                             base_dir=trace.parent if trace is not None else None)


def _split_bandwidth(campaign: Path, exp: str, size: int, stats: StreamStats) -> BandwidthSplit:
    """The experiment's series of `size` in its order (every pair count: each its own stretch),
    split into drops in time and the independent remainder (model/bandwidth_split.py)."""
    return split_bandwidth(_series(campaign, exp, size, one_pair=False), float(stats.min))


def _bandwidth_stats(campaign: Path) -> tuple[StreamStats, int, str, str] | None:
    """The RTT summaries (ns) of the size with the highest peak bandwidth; with where they
    come from, its size and the experiment."""
    for exp in ("bandwidth-noise", "bandwidth", "latency"):
        got = experiment_stats(campaign, exp)
        sizes = {k: v for k, v in (got.by_size() if got else {}).items() if v.count}
        if not sizes:
            continue
        best = max(sizes, key=lambda s: s * 8.0 / sizes[s].min)
        if exp == "latency" and best < 65536:
            continue
        return sizes[best], int(best), f"{exp} ({int(best)} B ping-pongs)", exp
    return None


def _number(table: dict[str, Any], key: str, where: str) -> float:
    """A finite number from a summary, or an error naming it."""
    value = table.get(key)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise CloudnoiseError(f"{where}: {key} is {shown(value)}, not a finite number; re-measure it")
    return float(value)


def consistent_latency(one_way_ns: np.ndarray, o_ns: float) -> tuple[float, np.ndarray]:
    """L and per-message excess samples such that 2o + L + excess equals each
    measured one-way time T (exactly where min T >= 2o; where the overheads
    alone exceed some T, as on shared memory, those T come out as 2o)."""
    base = max(0.0, float(one_way_ns.min()) - 2.0 * o_ns)
    return base, np.maximum(0.0, one_way_ns - 2.0 * o_ns - base)


def excess_over_median(one_way_ns: np.ndarray) -> np.ndarray:
    """Latency noise for a fit that describes median times: each measured
    one-way time's excess over the median, 0 below it. The simulated median
    is then the fitted one, and the variability above it is counted once (the
    samples already hold the overheads' jitter; the engine adds none)."""
    return np.maximum(0.0, one_way_ns - float(np.median(one_way_ns)))


def _core_latency(fit: dict[str, Any]) -> float | None:
    """The machine state the loggp fit describes (its kept rounds' core-to-core
    probe, measurement/core_latency.py), or None for an older campaign or one host
    rank; anything but a positive number is not a probe."""
    core = fit.get("core_latency_ns")
    used = core.get("used") if isinstance(core, dict) else None
    ok = isinstance(used, (int, float)) and not isinstance(used, bool) and math.isfinite(used) and 0 < used < 1e9
    return float(used) if ok else None


def measured_loggops(fit: dict[str, Any], where: str) -> dict[str, Any]:
    """The profile's loggops from a size-classed loggp fit (measurement/loggp.py):
    L, o, g, S as fitted; G and O of the 1 MiB class as the plain figures;
    the classes themselves, per-byte figures to whole femtoseconds (the
    engine's resolution); the provenance names the method, the spread over
    rounds and the worst residual."""
    spread = fit.get("spread", {})

    def iqr(key: str) -> str:
        s = spread.get(key) or {}
        return f"{s['iqr']:.3g}" if isinstance(s.get("iqr"), (int, float)) and math.isfinite(s["iqr"]) else "n/a"

    worst = fit.get("worst")
    misses = ("; cannot reproduce every operation within 10 %: worst "
              f"{worst['operation']} at {worst['size_bytes']} B ({worst['residual']:+.1%})") if worst else \
        "; every measured operation reproduced within 10 %"
    model = fit.get("overhead_model", {})
    split = bool(model.get("split_predicts_better"))
    classes = [
        {"min_bytes": int(c["min_bytes"]), "L": float(c["L"]), "G": round(float(c["G"]), 6),
         "O": round(float(c["O"]), 6)}
        for c in fit["size_classes"]
    ]
    method = fit.get("method") or (
        "Netgauge-style parametrised round trips with polled non-blocking calls "
        f"({fit.get('rounds', '?')} rounds, used {len(fit.get('rounds_used', []))})")
    return {
        "provenance": _measured(
            f"{where}: loggp fit, {method}; o_s {fit['o_s']:.4g} ns "
            f"(IQR {iqr('o_s')}), o_r {fit['o_r']:.4g} ns (IQR {iqr('o_r')}), one o = their mean; "
            f"L IQR {iqr('L')} ns, g IQR {iqr('g')} ns; {len(classes)} size classes "
            f"(their lines miss T and the exchange by {fit.get('class_max_miss', float('nan')):.1%} at most); G and O below are the 1 MiB "
            f"class's{misses}; "
            + ("separate o_s/o_r predict better than one o: the engine charges o_s to sends and o_r to "
               "receives (cloudnoise's extension)" if split else "separate o_s/o_r predict no better than one o")
            + tool_figures(fit)),
        "L": float(fit["L"]), "o": float(fit["o"]), "g": float(fit["g"]),
        "G": round(float(fit["G"]), 6), "O": round(float(fit["O"]), 6), "S": int(fit["S"]),
        "size_classes": classes,
        **({"o_s": float(fit["o_s"]), "o_r": float(fit["o_r"])} if split else {}),
    }


def tool_figures(fit: dict[str, Any]) -> str:
    """The measuring tool's own LogGP figures beside the fit (an imported Netgauge table), as text."""
    own = fit.get("netgauge")
    if not isinstance(own, dict):
        return ""

    def f(key: str, unit: str) -> str:
        v = own.get(key)
        return f"{key} {v:.4g} {unit}" if isinstance(v, (int, float)) else f"{key} n/a"

    return ("; Netgauge's own figures from the same table: " + ", ".join(
        [f("L", "ns"), f("o_s", "ns"), f("o_r", "ns"), f("g", "ns"), f("G", "ns/B")])
        + " (docs/explanation/measurement.md, 'LogGP(S) from Netgauge's table', says where and why they differ)")


def compared_with_tool(fit: dict[str, Any], loggops: dict[str, Any]) -> dict[str, Any] | None:
    """Netgauge's own L, o_s, o_r, g, G beside the fit's and the profile's (ns, ns/B), for
    `model build` to show; None when the fit is not from an imported table."""
    own = fit.get("netgauge")
    if not isinstance(own, dict):
        return None
    keys = ("L", "o", "o_s", "o_r", "g", "G", "S")
    return {
        "netgauge": {k: own.get(k) for k in keys if k in own},
        "fit": {k: fit.get(k) for k in keys},
        "profile": {k: loggops.get(k, loggops.get("o") if k in ("o_s", "o_r") else None) for k in keys},
        "how": own.get("how"),
    }


def consistent_gap(fitted_G: float, fraction: np.ndarray) -> float:
    """G such that the simulated per-byte time G / fraction has the fitted G as
    its median: the median of G / f is G / median(f), so G = fitted G x
    median(f). Rounded to whole femtoseconds, the engine's resolution."""
    return round(float(fitted_G) * float(np.median(fraction)), 6)


def bandwidth_fractions(min_rtt_ns: float, rtt_quantiles_ns: np.ndarray) -> np.ndarray:
    """The bandwidth noise's quantile values from the RTT's quantiles taken at 1 - p: each round
    trip's fraction as a message's (the paper's way, `--as-paper`; otherwise the provisional
    table that model/bandwidth_deconvolution.py's per-message fractions replace).

    Bandwidth over its maximum = min RTT / RTT, so the fraction's p-quantile is min / the RTT's
    (1-p)-quantile; non-decreasing, at most 1, the last exactly 1. At most 1 because the per-message
    draws may come from other samples than the minimum: with drops in time, the remainder's series
    holds every sample of the size (a campaign's short sweep over sizes too), while `min_rtt_ns` is
    the summary's, so a remainder's fastest round trip can be faster than the peak (the demo's
    measured campaign: 28,956 against 29,008 ns) and gave a table the profile loader refuses."""
    fraction = np.minimum(np.maximum.accumulate(min_rtt_ns / np.asarray(rtt_quantiles_ns, np.float64)), 1.0)
    fraction[-1] = 1.0
    return fraction


def build_profile(
    campaign: Path,
    out: Path,
    name: str | None = None,
    on_demand_price: float | None = None,
    committed_price: float | None = None,
    allow_missing: bool = False,
    latency_model: str = "auto",
    bandwidth_model: str = "auto",
    as_paper: bool = False,
    seed: int = 0,
    say: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Write the profile for ``campaign`` to ``out`` (and its data files next
    to it); returns the profile dict, with ``missing`` listing the parts left
    out (only with ``allow_missing``; otherwise a missing part is an error).

    ``latency_model``: ``auto`` splits the latency series into stalls in time
    and an independent remainder where its order shows time structure
    (model/latency_split.py), for every message, unless their profile misses
    its own closure where per-message draws close it, or the bandwidth series
    refutes them (then they hold messages up to the eager limit only): each
    alternative a second build (model/stall_choice.py; the returned dict's
    ``stall_choice`` says which and why); ``stalls`` keeps the stalls in time
    for every message without that choice; with ``iid`` every sample is a
    per-message draw, the paper's semantics. The returned dict's ``latency_split`` says what was
    found and why (None without a series).
    ``bandwidth_model``: the same for the bandwidth series, split into drops
    that persist in time (bandwidth episodes) and an independent remainder
    (model/bandwidth_split.py); ``bandwidth_split`` says what was found.
    ``say``: told, before a second build, what it builds and why (`model build` prints it on stderr)."""
    if latency_model not in ("auto", "stalls", "iid"):
        raise CloudnoiseError(f"--latency-model {latency_model!r}: choose auto, stalls or iid")
    if bandwidth_model not in ("auto", "iid"):
        raise CloudnoiseError(f"--bandwidth-model {bandwidth_model!r}: choose auto or iid")
    out = Path(out)
    if out.is_dir():
        raise CloudnoiseError(f"{out}: is a directory; -o names the profile file to write (e.g. {out}/system.json)")
    if out.suffix.lower() != ".json":
        raise CloudnoiseError(f"-o {out}: a profile is a .json file; give a name ending in .json")

    def build(to: Path, stall_model: str, shared_levels: bool = False, recurring: bool = False) -> dict[str, Any]:
        return _build(Path(campaign), to, name, on_demand_price, committed_price, allow_missing,
                      "iid" if latency_model == "iid" else "auto", bandwidth_model, as_paper, seed, stall_model,
                      shared_levels, recurring)

    if as_paper or latency_model != "auto":
        return build(out, IN_TIME)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.stalls-", dir=out.parent))
    try:
        started = time.monotonic()
        in_time = build(tmp / IN_TIME / out.name, IN_TIME)
        took = time.monotonic() - started

        def again(stall_model: str, what: str, module: str = "model/stall_choice.py",
                  shared_levels: bool = False, recurring: bool = False) -> dict[str, Any]:
            if say is not None:
                say(f"building the profile again, {what} (about {took:.0f} s more, as long as the first build; "
                    f"{module})")
            folder = f"recurring-{stall_model}" if recurring else "levels" if shared_levels else stall_model
            return build(tmp / folder / out.name, stall_model, shared_levels, recurring)

        split = in_time.get("latency_split")
        eager = int(in_time["loggops"]["S"])
        large = (in_time.get("bandwidth_closure") or {}).get("size_bytes")
        small_possible = isinstance(large, int) and large > eager
        if split is None or not split["used"]:  # no stalls in time: no stall model to choose
            best, best_folder = in_time, IN_TIME
            levels = in_time.get("shared_levels") or {}
            if levels.get("found") and not in_time["closure"]["closes"]:
                # two levels a round trip's messages share, where per-message draws miss the closure
                with_levels = again(IN_TIME, "with the two levels its latency series stands at, shared by a round "
                                    "trip's two messages: the per-message draws miss the series' closure",
                                    "model/shared_levels.py", shared_levels=True)
                if kept(with_levels, in_time):
                    best, best_folder = with_levels, "levels"
                else:
                    in_time["shared_levels"]["why"] += f"; not kept: {why_not_kept(with_levels, in_time)}"
            recurring = in_time.get("recurring_stalls") or {}
            if recurring.get("found") and not best["closure"]["closes"]:
                # long round trips that one message meets and another rarely follows, where the
                # per-message draws (with the levels, where kept) miss the closure
                said = recurring["why"]

                def with_recurring(stall_model: str, what: str, why: str) -> dict[str, Any]:
                    return again(stall_model, f"with its long round trips as stalls that recur on one clock and hold "
                                 f"{what}: {why}", "model/recurring_stalls.py", shared_levels=best_folder == "levels",
                                 recurring=True)

                richer, folder = with_recurring(IN_TIME, "every message", "the per-message draws miss the series' "
                                                "closure"), f"recurring-{IN_TIME}"
                if not kept(richer, best) and small_possible and closer(richer["closure"], best["closure"]):
                    # closer, but the bandwidth series refutes stalls that hold every message
                    said += f"; not kept holding every message: {why_not_kept(richer, best)}"
                    richer, folder = with_recurring(SMALL, f"messages up to {eager} B", "the bandwidth series "
                                                    "refutes stalls that hold every message"), f"recurring-{SMALL}"
                if kept(richer, best):
                    best, best_folder = richer, folder
                else:
                    said += f"; not kept: {why_not_kept(richer, best)}"
                best["recurring_stalls"]["why"] = said
            _move_built(tmp / best_folder, out)
            return best
        # the alternatives (model/stall_choice.py), each a build of its own where the first leaves a reason
        per_message = again(PER_MESSAGE, "with its stalls as per-message draws: "
                            + ("the stalls in time miss the latency series' closure" if not in_time["closure"]["closes"]
                               else "the bandwidth series refutes stalls in time")) \
            if needs_per_message(in_time, small_possible) else None
        small = again(SMALL, f"with stalls that hold messages up to {eager} B only: the bandwidth series refutes "
                             "stalls that hold every message") \
            if needs_small(in_time, per_message, small_possible) else None
        choice = choose_stall_model(in_time, per_message, small, eager)
        chosen = {IN_TIME: in_time, SMALL: small, PER_MESSAGE: per_message}[choice.chosen]
        assert chosen is not None
        written = tmp / choice.chosen / out.name
        doc = json.loads(written.read_text(encoding="utf-8"))
        doc["closure"]["stall_model"] += f"; {choice.why} (model/stall_choice.py)"
        written.write_text(json.dumps(doc, indent=2, ensure_ascii=False, allow_nan=False) + "\n", encoding="utf-8")
        _validate(written)
        _move_built(tmp / choice.chosen, out)
        chosen["closure"] = doc["closure"]
        chosen["stall_choice"] = choice.as_dict()
        return chosen
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _move_built(folder: Path, out: Path) -> None:
    """A profile built into `folder` (under the name out.name) and its side files, renamed into
    out's folder, the profile last."""
    for path in sorted(folder.iterdir(), key=lambda p: p.name == out.name):
        if path.is_file():
            os.replace(path, out.parent / path.name)


def _build(
    campaign: Path,
    out: Path,
    name: str | None,
    on_demand_price: float | None,
    committed_price: float | None,
    allow_missing: bool,
    latency_model: str,
    bandwidth_model: str,
    as_paper: bool,
    seed: int,
    stall_model: str,
    shared_levels: bool = False,
    recurring: bool = False,
) -> dict[str, Any]:
    """`build_profile` with one stall model (model/stall_choice.py): IN_TIME keeps the stalls in
    time the latency series shows (``latency_model`` "auto"), SMALL keeps them for messages up to
    the eager limit only, PER_MESSAGE draws every sample per message (a state in time still
    fitted where the series shows one). ``shared_levels``: where the latency series stands at two
    levels a round trip's two messages share (model/shared_levels.py), model them as such and draw
    the rest per message. ``recurring``: where the series shows stalls that recur on one clock
    (model/recurring_stalls.py), model its long round trips as those and draw the rest per message."""
    if as_paper:  # the paper's semantics: every sample a per-message draw, nothing split or counted once
        latency_model = bandwidth_model = "iid"
    for price, what in ((on_demand_price, "--on-demand-price"), (committed_price, "--committed-price")):
        if price is not None and not (math.isfinite(price) and 0 <= price <= 1e6):
            raise CloudnoiseError(f"{what} {price!r}: a price per node-hour is a finite number in [0, 1e6] USD")
    meta = read_metadata(campaign)
    summary = read_summary(campaign)
    labels: dict[str, str] = meta.get("labels", {})
    t2 = summary.get("table2", {})
    experiments = meta.get("experiments", {})
    if not experiments:
        raise CloudnoiseError(f"{campaign} holds no measurement yet; run cloudnoise measure first")
    incomplete = sorted(n for n, e in experiments.items() if not e.get("complete"))
    where = f"campaign {campaign.resolve().name}"
    if incomplete:
        where += f" (incomplete: {', '.join(incomplete)})"
    stem = out.name[: -len(".json")]
    profile_name = name or labels.get("system") or campaign.resolve().name
    missing: list[str] = []
    files: dict[str, Any] = {}  # file name -> how to write it into a folder

    loggp_path = campaign / "loggp" / "summary.json"
    if "loggp" in experiments and not loggp_path.is_file():
        missing.append("loggp/summary.json is missing")
    loggp = read_experiment_summary(campaign, "loggp") if loggp_path.is_file() else None
    fit = (loggp or {}).get("loggp", {})
    if loggp is not None and "L" not in fit:
        raise CloudnoiseError(
            f"the loggp measurement in {campaign} holds no fit yet ({'; '.join(fit.get('notes', [])) or 'no samples'}); "
            f"continue it with cloudnoise measure loggp --resume --out {campaign}")
    classified = bool(fit.get("size_classes"))
    if classified:
        loggops = measured_loggops(fit, where)
    elif loggp is not None:
        fit_where = f"{campaign}/loggp/summary.json"
        L, o, g, G, O, S = (_number(fit, k, fit_where) for k in ("L", "o", "g", "G", "O", "S"))
        r2 = {k: fit.get(k) if isinstance(fit.get(k), (int, float)) else float("nan")
              for k in ("r2_eager", "r2_rendezvous")}
        loggops = {
            "provenance": _measured(
                f"{where}: loggp fit (ping-pongs, send trains, receive overheads; "
                f"R^2 eager {r2['r2_eager']:.3f}, rendezvous {r2['r2_rendezvous']:.3f})"),
            "L": L, "o": o, "g": g,
            # per-byte figures to whole femtoseconds, the engine's resolution
            "G": round(G, 6), "O": round(O, 6), "S": int(S) or DEFAULT_S,
        }
        if fit.get("O_rendezvous") is not None and int(S):
            loggops["O_rendezvous"] = round(_number(fit, "O_rendezvous", fit_where), 6)
    elif "min_latency_us" in t2 and "max_bandwidth_gbps" in t2:
        t2_where = f"{campaign}/summary.json: table2"
        min_ns = _number(t2, "min_latency_us", t2_where) * 1e3
        max_gbps = _number(t2, "max_bandwidth_gbps", t2_where)
        if not (min_ns > 0 and max_gbps > 0):
            raise CloudnoiseError(f"{t2_where}: the minimum latency and maximum bandwidth must be positive")
        o = 0.1 * min_ns
        loggops = {
            "provenance": {"kind": "reconstructed", "source": (
                f"{where}: no loggp run; from the measured min latency and max bandwidth as the built-ins: "
                "o = 10% of min latency, L = min - 2o, g = o, G = 8 / max Gb/s, O = 0, S = 65535 B")},
            "L": min_ns - 2 * o, "o": o, "g": o, "G": 8.0 / max_gbps, "O": 0.0, "S": DEFAULT_S,
        }
    else:
        raise CloudnoiseError(
            f"{campaign} has neither a loggp run nor latency and bandwidth figures; "
            "run cloudnoise measure loggp (or latency and bandwidth) into it first")

    distance = labels.get("distance", "unknown")
    figures = {
        "min_latency_us": t2.get("min_latency_us"),
        "mean_latency_us": t2.get("mean_latency_us"),
        "max_bandwidth_gbit_s": t2.get("max_bandwidth_gbps"),
        "mean_bandwidth_gbit_s": t2.get("mean_bandwidth_gbps"),
    }
    figures = {k: v if isinstance(v, (int, float)) and math.isfinite(v) else None for k, v in figures.items()}
    table2 = {"provenance": _measured(
        f"{where}: latency from {t2.get('latency_from', 'n/a')}, bandwidth from {t2.get('bandwidth_from', 'n/a')}"
        + ("; node distance unknown" if distance not in ("same-rack", "different-racks") else ""))}
    slot = {"same-rack": "same_rack", "different-racks": "different_racks"}.get(distance, "unknown_distance")
    table2[slot] = figures

    profile: dict[str, Any] = {
        "format": FORMAT,
        "name": profile_name,
        "description": f"Measured by cloudnoise {meta.get('cloudnoise_version', '')} on "
                       f"{', '.join(meta.get('hosts', [])) or 'unknown hosts'} "
                       f"({meta.get('mpi', {}).get('library', 'MPI')})",
        "labels": [f"{k}={v}" for k, v in sorted(labels.items())],
        "hardware": {
            "provenance": _measured(f"{where}: metadata of the launching host"),
            **({"instance_type": labels["instance"]} if labels.get("instance") else {}),
            "cpu": meta.get("cpu_model"),
            "os": meta.get("os"),
            "network": placement(meta),
            "core_latency_ns": _core_latency(fit),
        },
        "prices": {
            "provenance": {"kind": "published", "source": (
                "given to cloudnoise model build" if on_demand_price is not None or committed_price is not None
                else "not given to cloudnoise model build (pass --on-demand-price / --committed-price)")},
            "currency": "USD",
            "committed_per_node_hour": committed_price,
            "on_demand_per_node_hour": on_demand_price,
        },
        "table2": table2,
        "loggops": loggops,
    }

    for exp in ("latency-noise", "latency", "bandwidth-noise", "bandwidth"):
        if exp in experiments and experiment_stats(campaign, exp) is None:
            missing.append(f"{exp}/samples.parquet is missing or empty")
    grid = quantile_grid()
    lat = _latency_stats(campaign)
    split: LatencySplit | None = None
    trips: RoundTrips | None = None
    pair_rows: list[dict[str, Any]] = []
    os_part: OSPart | None = None
    trace = campaign / "os-noise" / "os_noise.trace"
    has_trace = "os-noise" in experiments and trace.is_file() and trace.stat().st_size > 0
    level: LevelShift | None = None
    gap: GapBound | None = None
    state_fit: StateFit | None = None
    levels: SharedLevels | None = None
    recurring_stalls: RecurringStalls | None = None
    if lat is not None:
        stats, src, exp, size = lat
        trips = count_round_trips(_series(campaign, exp, size, one_pair=True))
        # what the per-message draws are deconvolved from: the series, or with shared levels the
        # series less its upper level's gap (model/shared_levels.py)
        drawn_trips = trips
        if not as_paper and latency_model == "auto" and trips.count:
            levels = find_shared_levels(_series(campaign, exp, size, one_pair=True), trips)
            if shared_levels and levels.found:
                drawn_trips = count_round_trips(levelled(_series(campaign, exp, size, one_pair=True), levels))
            recurring_stalls = find_recurring_stalls(_series(campaign, exp, size, one_pair=True), trips)
        if not as_paper and trips.count:  # no g above the spacing of one host's sends (model/gap_bound.py)
            gap = gap_bound(float(loggops["g"]), trips)
            if gap.capped:
                loggops["g"] = gap.g_ns
                loggops["provenance"]["source"] += f"; {gap.describe()}"
        if not as_paper and trips.count:  # the noiseless round trip at the series' median (model/latency_level.py)
            fitted = _provisional(profile, None)
            delta = level_delta(noiseless_round_trip(fitted, size, seed, gapless=True), drawn_trips.median(),
                                series_L(loggops, size))
            shift_loggops(loggops, delta)
            level = LevelShift(noiseless_round_trip(fitted, size, seed), drawn_trips.median(), delta,
                               noiseless_round_trip(_provisional(profile, None), size, seed),
                               "the median of the latency series less its upper level's gap (model/shared_levels.py)"
                               if drawn_trips is not trips else "the latency series' median")
        if not as_paper:  # what the hosts' OS detours do to the series, as the engine replays them
            os_part = os_part_of(_provisional(profile, trace if has_trace else None), size, stats.count, seed)
        floor = os_part.stall_floor_ns() if os_part else 0.0
        split = _split_latency(campaign, exp, size, stats, floor)
        measured_pairs = (experiments.get(exp) or {}).get("pairs") or []
        if len(measured_pairs) > 1:
            split, pair_rows = _pairs_apart(campaign, exp, size, stats, split, measured_pairs, floor)
        if recurring and recurring_stalls is not None and recurring_stalls.found:
            # build_profile asks for them only where its first build kept no stalls in time
            split = recurring_stalls.as_split()
        keep = split.keep if split.episodes is not None and latency_model == "auto" and stall_model != PER_MESSAGE \
            else 1.0
        # RTT/2 at each probability of the engine's grid; with stalls in time, of the
        # remainder: the distribution below the stall threshold (a share `keep` of the samples)
        half_q = stats.quantiles(grid * keep) / 2.0
        median_text = ""
        if classified:
            median_half = float(stats.percentile(50.0)) / 2.0
            excess = np.maximum(0.0, half_q - median_half)
            median_text = (
                f"; latency noise: the one-way times of {src} above their median (median "
                f"{median_half:.4g} ns), so the fitted L and o keep the median and the noise adds "
                "only what lies above it")
            loggops["provenance"]["source"] += median_text
            how = "RTT/2 - median RTT/2 where above it, else 0"
        else:  # a campaign measured before size classes: its fit describes medians from the minimum
            base, excess = consistent_latency(half_q, float(loggops["o"]))
            if level is None:  # otherwise L is at the series' median, the noise counted once around it
                loggops["provenance"]["source"] += (
                    f"; L = min RTT/2 of {src} - 2o = {base:.4g} ns (was {loggops['L']:.4g}), so that 2o + L + "
                    "latency noise reproduces the measured one-way times")
                loggops["L"] = base
            how = "RTT/2 - 2o - L"
        if keep < 1.0:
            lat_parts = (f"two parts: stalls in time (`stalls`, model/latency_episodes.py) and, per message, the "
                     f"remainder: the {100 * keep:.4g}% of samples at or below {split.threshold_ns / 1e3:.4g} us; "
                     f"why: {split.why}")
        elif latency_model == "iid" and split.episodes is not None:
            lat_parts = (f"per-message draws of every sample (--latency-model iid, the paper's semantics); the series "
                     f"shows time structure that this leaves out: {split.why}")
        elif split.episodes is not None:
            lat_parts = (f"per-message draws of every sample, its stalls among them: they give back the campaign's "
                         f"series better than stalls in time (the closure's stall model says how); the series shows "
                         f"time structure: {split.why}")
        else:
            lat_parts = f"per-message draws of every sample; why: {split.why}"
        profile["latency_noise"] = {
            "provenance": _measured(f"{where}: {src}, {how}, over all {stats.count} samples, as a "
                                    f"quantile table from the streaming histogram (values within "
                                    f"{RELATIVE_PRECISION:.2%} of the samples'); {lat_parts}"),
            "quantiles": {"p": grid.tolist(), "v": excess.tolist()},
        }
        if keep < 1.0:
            assert split.episodes is not None
            # stalls that hold small messages only (model/stall_choice.py): up to the eager limit
            stalls = replace(split.episodes, max_bytes=int(loggops["S"]), text="") if stall_model == SMALL \
                else split.episodes
            profile["latency_noise"]["stalls"] = stalls.spec()
            profile["latency_noise"]["note"] = f"stalls in time: {stalls.describe()}"
        use_levels = drawn_trips is not trips
        # build_profile asks for the levels only where its first build kept no stalls in time; the
        # recurring stalls it may ask for beside them
        assert not (use_levels and keep < 1.0 and split.kind != "recurring")
        if use_levels:
            assert levels is not None
            profile["latency_noise"]["levels"] = levels.levels().spec()
            said_levels = f"levels in time: {levels.levels().describe()}"
            note = profile["latency_noise"].get("note")
            profile["latency_noise"]["note"] = f"{note}; {said_levels}" if note else said_levels
            lat_parts += (f"; beside them {levels.describe()} (`levels`, shared=1: one clock for every host; "
                          "the per-message draws from the series less the upper level's gap; model/shared_levels.py)")
            state_fit = StateFit((), (), (), math.nan, 0.0, 0.0, math.nan, None, (
                "not fitted beside shared levels in time, which give the series' persistence"))
        elif not as_paper and latency_model == "auto" and trips.count and keep >= 1.0:
            # a state that persists (model/latency_state.py); not beside stalls in time, which meet
            # messages by time: a state that groups long round trips changes how many of them the
            # stalls meet, and the replay of the series no longer gives back its tail
            state_fit = fit_state(_series(campaign, exp, size, one_pair=True), trips.values, trips.counts)
        elif not as_paper and latency_model == "auto" and trips.count:
            state_fit = StateFit((), (), (), math.nan, 0.0, 0.0, math.nan, None, (
                "not fitted beside stalls in time: they meet messages by time, and a state that groups long round "
                "trips would change how many round trips they meet"))
        if state_fit is not None and state_fit.state is not None:
            profile["latency_noise"]["state"] = state_fit.state.spec()
            note = note_before_state = profile["latency_noise"].get("note")
            said = f"a state in time: {state_fit.state.describe()}"
            profile["latency_noise"]["note"] = f"{note}; {said}" if note else said
            said_state = state_clause(state_fit)
            lat_parts += said_state
    bw = _bandwidth_stats(campaign)
    bw_split: BandwidthSplit | None = None
    bw_level: BandwidthLevel | None = None
    bw_draws: StreamStats | None = None  # the round trips the per-message fractions come from
    if bw is not None:
        stats, size, src, exp = bw
        bw_split = _split_bandwidth(campaign, exp, size, stats)
        episodes = bw_split.episodes if bandwidth_model == "auto" else None
        # with drops in time, the per-message draws are the remainder: the samples outside them
        draws = bw_draws = bw_split.remainder if episodes is not None and bw_split.remainder is not None else stats
        fraction = bandwidth_fractions(stats.min, draws.quantiles(1.0 - grid))
        median_fraction = np.array([stats.min / draws.percentile(50.0)])
        if classified:
            scale = float(median_fraction[0])
            loggops["G"] = consistent_gap(loggops["G"], median_fraction)
            for c in loggops["size_classes"]:
                c["G"] = consistent_gap(c["G"], median_fraction)
            loggops["provenance"]["source"] += (
                f"; every G = fitted G x median bandwidth fraction {scale:.4g}, so that G / bandwidth noise "
                "reproduces the fitted (median) transfer times")
        elif loggp is not None:
            fitted_G = loggops["G"]
            loggops["G"] = consistent_gap(fitted_G, median_fraction)
            loggops["provenance"]["source"] += (
                f"; G = fitted G x median bandwidth fraction = {loggops['G']:.6g} ns/B (was {fitted_G:.6g}), "
                "so that G / bandwidth noise reproduces the measured median transfer times")
        if not as_paper:
            # the large message's noiseless round trip at the series' median (model/bandwidth_level.py)
            bw_level = level_costs(loggops, size, float(median_fraction[0]), float(draws.percentile(50.0)),
                                   lambda lg: noiseless_round_trip(_provisional({**profile, "loggops": lg}, None),
                                                                   size, seed))
            moved = with_costs(loggops, size, bw_level.G_moved, bw_level.O_moved)
            loggops["G"], loggops["O"] = moved["G"], moved["O"]
            if "size_classes" in moved:
                loggops["size_classes"] = moved["size_classes"]
            loggops["provenance"]["source"] += f"; {bw_level.describe()}"
        if episodes is not None:
            kept = 1.0 - bw_split.sample_share
            parts = (f"two parts: drops in time (`episodes`, model/bandwidth_episodes.py) and, per message, the "
                     f"remainder: the {100 * kept:.4g}% of samples outside them; why: {bw_split.why}")
        elif bw_split.episodes is not None:
            parts = (f"per-message draws of every sample (--bandwidth-model iid, the paper's semantics); the series "
                     f"shows drops in time that this leaves out: {bw_split.why}")
        else:
            parts = f"per-message draws of every sample; why: {bw_split.why}"
        profile["bandwidth_noise"] = {
            "provenance": _measured(f"{where}: {src}, bandwidth over its maximum over all {stats.count} samples, "
                                    f"as a quantile table from the streaming histogram; {parts}"),
            "quantiles": {"p": grid.tolist(), "v": fraction.tolist()},
        }
        if episodes is not None:
            profile["bandwidth_noise"]["episodes"] = episodes.spec()
            profile["bandwidth_noise"]["note"] = f"drops in time, per sending host: {describe_episodes(episodes)}"
    trace = campaign / "os-noise" / "os_noise.trace"
    if "os-noise" in experiments and not trace.is_file():
        missing.append("os-noise/os_noise.trace is missing")
    elif trace.is_file():
        if trace.stat().st_size == 0:
            missing.append("os-noise/os_noise.trace is empty")
        else:
            file = f"{stem}.os_noise.trace"
            files[file] = lambda path, src=trace: shutil.copyfile(src, path)
            profile["os_noise"] = {"provenance": _measured(f"{where}: selfish detour, rank 0"), "trace": file}

    compute = meta.get("compute") or {}
    if compute.get("gflops"):
        profile["compute"] = {
            "provenance": _measured(
                f"{where}: {compute['source']}" if isinstance(compute.get("source"), str) else
                f"{where}: DGEMM {compute.get('dgemm_n')}x{compute.get('dgemm_n')} timed on {meta.get('launch_host', 'the launching host')} "
                f"({compute.get('cpu', 'CPU unknown')}) with numpy's BLAS ({compute.get('blas', '?')}), "
                f"{compute.get('threads', '1')} thread(s) per rank, median of 5 samples, {compute.get('measured_at', '')}"),
            "gflops": float(compute["gflops"]),
        }
    if missing and not allow_missing:
        raise CloudnoiseError(
            f"{campaign}: {'; '.join(missing)} (the campaign lists the experiment); measure it again "
            "(cloudnoise measure ... --out CAMPAIGN --resume), or pass --allow-missing to build the profile without it"
        )
    if missing:
        loggops["provenance"]["source"] += f"; built without: {', '.join(missing)}"
    if profile["hardware"].get("core_latency_ns") is not None:
        profile["hardware"]["provenance"] = _measured(
            f"{where}: metadata of the launching host; core_latency_ns: the loggp run's core-to-core probe "
            "over the rounds its fit kept (the machine state the profile describes)")
    profile["hardware"] = {k: v for k, v in profile["hardware"].items() if v is not None}
    with _Staging(out.parent, files, out.name) as staging:
        once: CountedOnce | None = None
        closure: Closure | None = None
        if lat is not None and trips is not None and trips.count:
            stats, src, exp, size = lat
            clock = clock_step(trips.values, trips.counts)
            measured = Measured.from_round_trips(trips, clock).with_sums(
                streamed_sums(_series(campaign, exp, size, one_pair=True)(), SUMS_K, min(trips.count, MAX_REPLAY)))
            replay: np.ndarray | None = None
            stalls = "stalls" in profile.get("latency_noise", {})
            if not as_paper:
                remainder = drawn_trips.below(split.threshold_ns) if stalls and split is not None else drawn_trips
                once = count_once(staging.load(profile), remainder.values, remainder.counts, size, clock, os_part,
                                  seed)
                profile["latency_noise"]["quantiles"] = {"p": once.noise.probabilities.tolist(),
                                                         "v": once.noise.values_ns.tolist()}
                if state_fit is not None and state_fit.state is not None:
                    # the state (of the whole distribution, its body or its tail) or none, whichever
                    # gives back the series' sums of consecutive round trips most closely
                    # (model/state_choice.py)
                    stateless = {k: v for k, v in profile["latency_noise"].items() if k not in ("state", "note")}

                    def noise_with(st: LatencyState | None) -> dict[str, Any]:
                        notes = [n for n in (note_before_state, f"a state in time: {st.describe()}" if st else None) if n]
                        return {**stateless, **({"state": st.spec()} if st else {}),
                                **({"note": "; ".join(notes)} if notes else {})}

                    state_fit, replay = judge_state(
                        state_fit, measured, lambda st: staging.load({**profile, "latency_noise": noise_with(st)}),
                        size, seed)
                    profile["latency_noise"] = noise_with(state_fit.state)
                    lat_parts = lat_parts.replace(said_state, state_clause(state_fit))
                profile["latency_noise"]["provenance"] = _measured(
                    f"{where}: {src}, over all {stats.count} samples"
                    + (f" (the {remainder.count} at or below the stall threshold)" if stalls else "")
                    + f": {once.describe()}; {lat_parts}")
                counted = ("; latency noise: per message, counted once against the OS noise around the "
                           f"noiseless round trip of these L and o ({once.noiseless_ns:.5g} ns; "
                           "model/latency_deconvolution.py)" + (f"; {level.describe()}" if level is not None else ""))
                if classified:
                    loggops["provenance"]["source"] = loggops["provenance"]["source"].replace(median_text, counted)
                else:
                    loggops["provenance"]["source"] += counted
            closure = closure_of(staging.load(profile), measured, size, f"{src}", seed, replay=replay)
            if once is not None:  # where it misses, why (model/closure_causes.py)
                # against the whole series, which the replay gives back: the remainder the draws come from
                # ends at the stall threshold, so any OS delay beyond it would read as more than measured
                closure = replace(closure, notes=(*closure.notes, *closure_causes(closure, once, os_part, trips)))
            shown = split is not None and split.episodes is not None
            profile["closure"] = _closure_part(closure, where, profile, (
                "the paper's semantics (--as-paper)" if as_paper else
                "--latency-model iid, the paper's semantics, though the series shows its stalls in time"
                if shown and latency_model == "iid" else
                "the series shows its stalls in time (`latency_split`)" if shown else
                "the series shows no time structure in its stalls (docs/explanation/measurement.md, 'Noise in time')"))
            # a profile that does not give back its own measurement says so where it is listed
            verdict = "closes" if closure.closes else "misses" if closure.judged else "too-few-round-trips"
            profile["labels"] = [*profile["labels"], f"closure={verdict}"]
        per_message: PerMessageBandwidth | None = None
        stall_refutation: Refutation | None = None
        if bw is not None and bw[0].count and bw_level is not None and bw_level.to_median and bw_draws is not None:
            # the per-message fractions whose two draws, with the other noises, give the series back
            # (model/bandwidth_deconvolution.py)
            bw_trips = RoundTrips(*bw_draws.recorded())
            per_message = _bandwidth_once(staging, profile, bw_trips, bw[1], bw_level, seed)
            profile["bandwidth_noise"]["quantiles"] = {"p": per_message.probabilities.tolist(),
                                                       "v": per_message.fractions.tolist()}
            profile["bandwidth_noise"]["provenance"]["source"] += f"; the table: {per_message.describe()}"
            if "stalls" in profile.get("latency_noise", {}):  # do the stalls in time block long transfers?
                # against every round trip of the series, drops in time included: a stall that blocks the
                # host slows the transfer it meets whatever the bandwidth did meanwhile
                stall_refutation = refutation(per_message.others_ns, RoundTrips(*bw[0].recorded()),
                                              bw[0].percentile(50.0), bw[1])
        if bw is not None and bw[0].count:
            # the large-message series replayed the same way (model/bandwidth_closure.py)
            bw_stats, bw_size, bw_src, _ = bw
            bw_closure = bandwidth_closure_of(staging.load(profile), bw_stats, bw_size, bw_src, seed)
            if per_message is not None:  # where it misses, why (model/closure_causes.py)
                bw_closure = replace(bw_closure, notes=(*bw_closure.notes, *bandwidth_causes(
                    bw_closure, per_message, bw_trips, bw_stats.percentile(50.0))))
            profile["bandwidth_closure"] = _replay_part(bw_closure, where, "model/bandwidth_closure.py")
            verdict = "closes" if bw_closure.closes else "misses" if bw_closure.judged else "too-few-round-trips"
            profile["labels"] = [*profile["labels"], f"bandwidth-closure={verdict}"]
        profile["campaign"] = _campaign_part(campaign, meta, where, trips, split, bw_split, profile, missing,
                                             pair_rows)
        staging.commit(profile)
    profile["missing"] = missing
    profile["counted_once"] = None if once is None else {
        "noiseless_round_trip_ns": once.noiseless_ns, "os_measured": once.os_measured,
        "grid_ns": once.noise.grid_ns, "clock_step_ns": once.noise.clock_step_ns,
        "iterations": once.noise.iterations, "below_floor": once.noise.below_floor,
        "tail_share": once.noise.tail_share, "distance": once.noise.distance}
    profile["gap_bound"] = None if gap is None else {
        "fitted_g_ns": gap.fitted_ns, "bound_ns": gap.bound_ns, "capped": gap.capped, "g_ns": gap.g_ns}
    profile["latency_level"] = None if level is None else {
        "fitted_noiseless_round_trip_ns": level.noiseless_ns, "median_round_trip_ns": level.median_ns,
        "L_moved_by_ns": level.delta_ns, "residual_ns": level.residual_ns}
    profile["bandwidth_level"] = None if bw_level is None else {
        "size_bytes": bw_level.size, "median_round_trip_ns": bw_level.median_ns,
        "fitted_noiseless_round_trip_ns": bw_level.fitted_ns, "moved_noiseless_round_trip_ns": bw_level.moved_ns,
        "factor": bw_level.factor, "G_fitted": bw_level.G_fitted, "G_moved": bw_level.G_moved,
        "O_fitted": bw_level.O_fitted, "O_moved": bw_level.O_moved, "residual_ns": bw_level.residual_ns}
    profile["latency_state"] = None if state_fit is None else state_fit.to_json()
    profile["shared_levels"] = None if levels is None else {
        **levels.as_dict(), "used": "levels" in profile.get("latency_noise", {})}
    profile["recurring_stalls"] = None if recurring_stalls is None else {
        **recurring_stalls.as_dict(), "used": split is not None and split.kind == "recurring"
        and "stalls" in profile.get("latency_noise", {})}
    profile["stall_refutation"] = None if stall_refutation is None else stall_refutation.as_dict()
    profile["latency_split"] = None if split is None else {
        "kind": split.kind, "why": split.why, "used": "stalls" in profile.get("latency_noise", {}),
        "threshold_ns": split.threshold_ns,
        "stalls": profile.get("latency_noise", {}).get("stalls"), "samples": split.samples,
        "stall_share": split.stall_share, "lag": split.lag, "autocorrelation": split.acf}
    profile["bandwidth_split"] = None if bw_split is None else {
        "kind": bw_split.kind, "why": bw_split.why, "used": "episodes" in profile.get("bandwidth_noise", {}),
        "episodes": profile.get("bandwidth_noise", {}).get("episodes"), "samples": bw_split.samples,
        "found": bw_split.count, "sample_share": bw_split.sample_share, "time_share": bw_split.time_share,
        "with_calls": bw_split.with_calls, "autocorrelation": bw_split.acf}
    tool = compared_with_tool(fit, loggops)
    if tool is not None:
        profile["compared_with_tool"] = tool
    return profile


def _bandwidth_once(staging: _Staging, profile: dict[str, Any], trips: RoundTrips, size: int,
                    level: BandwidthLevel, seed: int) -> PerMessageBandwidth:
    """The per-message bandwidth fractions of the profile being built (its level moved, its OS and
    latency noise final) from the bandwidth series' round trips (`trips`), around the fraction
    at which the level puts the series' median, counted against what the profile's other noises
    add to each replayed round trip of that size."""
    from cloudnoise.model.closure import replay_of

    loggops = profile["loggops"]
    times = message_time(lambda w: noiseless_round_trip(
        _provisional({**profile, "loggops": with_costs(loggops, size, level.G_moved * w, level.O_moved)}, None),
        size, seed))
    others = staging.load({k: v for k, v in profile.items() if k != "bandwidth_noise"})
    replay = replay_of(others, min(trips.count, BANDWIDTH_REPLAY), size, seed)
    delays = replay - noiseless_round_trip(others, size, seed)
    grid = np.asarray(profile["bandwidth_noise"]["quantiles"]["p"], np.float64)
    return deconvolve_bandwidth(trips.values, trips.counts, delays, times, level.median_fraction, grid)


def _closure_part(closure: Closure, where: str, profile: dict[str, Any], why_per_message: str) -> dict[str, Any]:
    """The profile's `closure`: the replay's table, and which stall model the profile uses and why
    (`why_per_message`: why, where its stalls are per-message draws)."""
    lat = profile.get("latency_noise") or {}
    if "stalls" in lat:
        from cloudnoise.model.latency_episodes import parse_latency_episodes

        episodes = parse_latency_episodes(lat["stalls"])
        largest = episodes.max_bytes
        held = f"sends of messages up to {largest} B" if largest is not None else "sends"
        why = ("the series' long round trips are one stall each, and one rarely follows another: stalls that recur "
               "on one clock, which both messages of a round trip read (model/recurring_stalls.py)"
               if episodes.recurring else
               "the series shows its stalls in trains that recur in time (their quiet times are regular, not the "
               "geometric ones of messages hit at random)")
        stall_model = (
            f"stalls in time that block the host's {held}: a message sent inside one of its host's stalls waits "
            f"for the stall's end (model/latency_episodes.py); why: {why}")
    else:
        stall_model = (
            "per-message draws: a stall delays the message it hits, drawn for each message on its own; why: "
            + why_per_message
            + ("; the draws' quantiles move with a state per host that persists in time (`state`, "
               "model/latency_state.py)" if "state" in lat else "")
            + ("; beside them two levels in time that a round trip's two messages share (`levels`, "
               "model/shared_levels.py)" if "levels" in lat else ""))
    return {**_replay_part(closure, where, "model/closure.py"), "stall_model": stall_model}


def _replay_part(closure: Closure, where: str, module: str) -> dict[str, Any]:
    """A replay's table as a profile part (`closure`, `bandwidth_closure`): where it comes from,
    the verdict, the rows."""
    out = closure.as_dict()
    out.pop("closes", None)
    return {"provenance": _measured(
        f"{where}: model build's replay of {closure.experiment}, {closure.replayed:,} back-to-back ping-pongs "
        f"through the engine with this profile (all its noise, as `simulate --noise both` runs it; {module}), "
        "against the measured round trips"),
        "closes": closure.closes, **out}


def _campaign_part(campaign: Path, meta: dict[str, Any], where: str, trips: RoundTrips | None,
                   split: LatencySplit | None, bw_split: BandwidthSplit | None, profile: dict[str, Any],
                   missing: list[str], pair_rows: list[dict[str, Any]]) -> dict[str, Any]:
    """What the campaign measured, so what its profile can vouch for (model/vouching.py)."""
    from cloudnoise.model.vouching import vouch

    return vouch(campaign, meta, where, trips, split, bw_split, profile, missing, pair_rows)


class _Staging:
    """The profile's files in a temporary folder beside the target, while the profile is made:
    its side files written once, its JSON written (and loaded back, as `simulate` will load
    it) as often as the build needs it, and at the end each renamed into place, the profile
    last. Leaving the block by an error leaves the target folder as it was."""

    def __init__(self, folder: Path, files: dict[str, Any], profile_file: str) -> None:
        self.folder, self.files, self.profile_file = folder, files, profile_file
        self.tmp: Path | None = None

    def __enter__(self) -> _Staging:
        self.folder.mkdir(parents=True, exist_ok=True)
        self.tmp = Path(tempfile.mkdtemp(prefix=f".{self.profile_file}.build-", dir=self.folder))
        for name, write in self.files.items():
            write(self.tmp / name)
            os.chmod(self.tmp / name, default_file_mode())
        return self

    def _write(self, profile: dict[str, Any]) -> Path:
        assert self.tmp is not None
        path = self.tmp / self.profile_file
        path.write_text(json.dumps(profile, indent=2, ensure_ascii=False, allow_nan=False) + "\n", encoding="utf-8")
        os.chmod(path, default_file_mode())
        return path

    def load(self, profile: dict[str, Any]) -> Any:
        """The profile as it stands, loaded back as a SystemProfile from the temporary folder."""
        from cloudnoise.model.profile import load_profile

        return load_profile(self._write(profile))

    def commit(self, profile: dict[str, Any]) -> None:
        """Writes the profile, checks that it loads whole, and renames every file into place."""
        _validate(self._write(profile))
        assert self.tmp is not None
        for name in sorted([*self.files, self.profile_file], key=lambda n: n == self.profile_file):
            os.replace(self.tmp / name, self.folder / name)

    def __exit__(self, *exc: object) -> None:
        if self.tmp is not None:
            shutil.rmtree(self.tmp, ignore_errors=True)


def _validate(path: Path) -> None:
    """Load the profile back with the format's own reader, as simulate will."""
    from cloudnoise.model.profile import load_profile

    profile = load_profile(path)
    profile.latency_distribution()
    profile.bandwidth_distribution()
    profile.bandwidth_episodes()
    profile.latency_episodes()
    profile.os_noise_source()
