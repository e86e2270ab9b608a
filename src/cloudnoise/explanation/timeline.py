"""A timeline of chosen repetitions: every activity of chosen ranks, with its parts, and the critical path.

A repetition depends only on (seed, repetition), so the one asked for runs again
alone with its critical path recorded (`_engine.activities`): the same run, bit for
bit, now with each activity of the ranks asked for (a send's CPU part, NIC gap and
flight; a message's CPU part and NIC gap at its receiver; a calc) split into its
LogGOPS parts and noise. Bounded by ranks and a time window, so a 16,384-rank run
gives what was asked for. Writers, one per format, take a `Timeline`
(`timeline_chrome`: Perfetto and chrome://tracing).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cloudnoise import _engine
from cloudnoise.comma_lists import parse_items
from cloudnoise.errors import CloudnoiseError, shown
from cloudnoise.explanation.repetitions import pick
from cloudnoise.simulation.critical_path import PathSegments
from cloudnoise.simulation.noise import NoiseSetup
from cloudnoise.simulation.params import LogGOPS
from cloudnoise.units import format_time_ps, parse_time_ps


@dataclass(frozen=True)
class TimelineRequest:
    """What a timeline shows: repetitions (median, p99 or numbers), ranks, and a window (ps; end None: the run's)."""

    reps: tuple[str, ...] = ("median",)
    ranks: np.ndarray | None = None  # a byte per rank (1: drawn); None: every rank
    start_ps: int = 0
    end_ps: int | None = None


def parse_ranks(text: str, ranks: int) -> np.ndarray:
    """`0-63,1000` (or `all`) as a byte per rank of a run of `ranks` ranks."""
    mask = np.zeros(ranks, dtype=np.uint8)
    if text.strip().lower() == "all":
        mask[:] = 1
        return mask
    for item in parse_items(text, "--timeline-ranks"):
        lo_text, _, hi_text = item.partition("-")
        try:
            lo = int(lo_text.replace("_", ""))
            hi = int(hi_text.replace("_", "")) if hi_text else lo
        except ValueError:
            raise CloudnoiseError(f"--timeline-ranks: {shown(item)} is not a rank or a range such as 0-63") from None
        if lo < 0 or hi < lo:
            raise CloudnoiseError(f"--timeline-ranks: {shown(item)} is not a range of ranks (low-high, low <= high)")
        if hi >= ranks:
            raise CloudnoiseError(f"--timeline-ranks: rank {hi} does not exist: the run has {ranks} ranks (0 to {ranks - 1})")
        mask[lo:hi + 1] = 1
    return mask


def parse_window(text: str | None) -> tuple[int, int | None]:
    """`START:END` in simulated time (ns, or with a unit; either side may be empty) as ps."""
    if text is None or not text.strip():
        return 0, None
    start_text, sep, end_text = text.partition(":")
    if not sep:
        raise CloudnoiseError(f"--timeline-window: {shown(text)} is not START:END (e.g. 0:50us, or 10us: to the end)")
    start = parse_time_ps(start_text, "--timeline-window") if start_text.strip() else 0
    end = parse_time_ps(end_text, "--timeline-window") if end_text.strip() else None
    if end is not None and end <= start:
        raise CloudnoiseError(f"--timeline-window: {shown(text)} ends before it starts")
    return start, end


def request(reps: str, ranks: str, window: str | None, run_ranks: int, run_reps: int, first_rep: int = 0) -> TimelineRequest:
    """The command line's --timeline-rep, --timeline-ranks and --timeline-window for a run of
    `run_ranks` ranks and `run_reps` repetitions, checked before the run."""
    wanted = tuple(parse_items(reps, "--timeline-rep"))
    for which in wanted:  # numbers are checked now; median and p99 need the runtimes
        if which.strip().lower() not in ("median", "p50", "p90", "p99", "min", "max"):
            pick(which, np.zeros(run_reps), first_rep)
    start, end = parse_window(window)
    return TimelineRequest(wanted, parse_ranks(ranks, run_ranks), start, end)


@dataclass
class Timeline:
    """One repetition's activities on the ranks asked for, and its critical path (all of it)."""

    variant: str
    repetition: int
    runtime_ps: int
    ranks: np.ndarray  # the ranks drawn
    start_ps: int
    end_ps: int
    activities: PathSegments
    path: PathSegments

    def on_path(self) -> np.ndarray:
        """Which activities are stretches of the critical path (same node and link)."""
        key = lambda t: t["op"].astype(np.int64) * 64 + t["message"].astype(np.int64) * 8 + t["link"]  # noqa: E731
        return np.isin(key(self.activities), key(self.path))


def _within(table: PathSegments, start: int, end: int) -> PathSegments:
    keep = (table["end_ps"] >= start) & (table["start_ps"] <= end)
    return PathSegments({k: v[keep] for k, v in table.columns.items()})


def record(schedule: _engine.Schedule, params: LogGOPS, noise: NoiseSetup | None, variant: str, seed: int,
           repetition: int, wanted: TimelineRequest, ready_order: str = "program") -> Timeline:
    """Runs repetition `repetition` of `variant` again, recording what `wanted` asks for."""
    model = noise.engine_model(variant) if noise is not None else _engine.NoiseModel()
    mask = wanted.ranks if wanted.ranks is not None else np.ones(schedule.num_ranks, dtype=np.uint8)
    out = _engine.activities(schedule, params.to_engine(), model, seed, repetition,
                             np.ascontiguousarray(mask, dtype=np.uint8), ready_order == "program")
    runtime = int(out["max_end_ps"])
    if wanted.start_ps >= max(runtime, 1):
        raise CloudnoiseError(
            f"--timeline-window starts at {format_time_ps(wanted.start_ps)}, after repetition {repetition} ended "
            f"({format_time_ps(runtime)}): give a window inside the run")
    end = runtime if wanted.end_ps is None else min(wanted.end_ps, runtime)
    return Timeline(variant, repetition, runtime, np.flatnonzero(mask), wanted.start_ps, end,
                    _within(PathSegments.from_engine(out["activities"]), wanted.start_ps, end),
                    PathSegments.from_engine(out["path"]))


def record_all(schedule: _engine.Schedule, params: LogGOPS, noise: NoiseSetup | None, variant: str, seed: int,
               runtime_ns: np.ndarray, wanted: TimelineRequest, first_rep: int = 0,
               ready_order: str = "program") -> list[Timeline]:
    """The timelines of every repetition `wanted` names, in a run whose runtimes were `runtime_ns`."""
    reps = list(dict.fromkeys(pick(which, np.asarray(runtime_ns), first_rep) for which in wanted.reps))
    return [record(schedule, params, noise, variant, seed, rep, wanted, ready_order) for rep in reps]
