"""`cloudnoise.simulate`: run a GOAL schedule through the LogGOPS engine.

The Python face of the engine: loads schedules (GOAL text, gzipped or not),
turns user parameters into engine units, runs repetitions on threads, and
returns numpy arrays. The CLI is a thin layer over this.
"""

from __future__ import annotations

import gzip
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from cloudnoise import _engine
from cloudnoise.errors import EXIT_STUCK, EXIT_USAGE, CloudnoiseError
from cloudnoise.simulate.params import LogGOPS

if TYPE_CHECKING:  # the noise models pull in scipy: imported only when noise is used
    from cloudnoise.simulate.noise import NoiseSetup

VARIANTS = ("none", "os", "network", "both")

Schedule = _engine.Schedule


@dataclass
class SimulationResult:
    """Times are nanoseconds (floats only where the ps result is fractional).

    `runtime_ns` holds one runtime per repetition: the latest end time over
    all ranks (LogGOPSim's "maximum finishing time"); `host_end_ns` each
    rank's end time in the first repetition."""

    ranks: int
    reps: int
    events: int
    messages: int
    runtime_ns: np.ndarray  # one per repetition
    host_end_ns: np.ndarray  # one per rank, of the first repetition
    params: LogGOPS
    seed: int
    engine_seconds: float
    parse_seconds: float = 0.0
    source: str = ""
    ready_order: str = "program"
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def max_end_ns(self) -> np.ndarray:
        """`runtime_ns` under LogGOPSim's name (kept for one release)."""
        return self.runtime_ns

    def to_pandas(self) -> Any:
        """One row per repetition (`rep`, `runtime_ns`), for notebooks."""
        import pandas as pd

        return pd.DataFrame({"rep": np.arange(len(self.runtime_ns)), "runtime_ns": np.asarray(self.runtime_ns)})

    def to_dict(self) -> dict[str, Any]:
        """The JSON contract of `cloudnoise simulate --json`."""
        return {
            "source": self.source,
            "ranks": self.ranks,
            "reps": self.reps,
            "seed": self.seed,
            "events": self.events,
            "messages": self.messages,
            "params_ns": self.params.as_ns(),
            "runtime_ns": _ns_list(self.runtime_ns),
            "host_end_ns": _ns_list(self.host_end_ns),
            "ready_order": self.ready_order,
            "parse_seconds": round(self.parse_seconds, 6),
            "engine_seconds": round(self.engine_seconds, 6),
            "events_per_second": round(self.events * self.reps / self.engine_seconds)
            if self.engine_seconds > 0
            else None,
            **self.extra,
        }


def _ns_list(values: np.ndarray) -> list[int | float]:
    return [int(v) if float(v).is_integer() else float(v) for v in values]


def _ps_to_ns(ps: np.ndarray) -> np.ndarray:
    if np.all(ps % 1000 == 0):
        return ps // 1000
    return ps / 1000.0


def load_schedule(path: str | os.PathLike[str]) -> Schedule:
    """Reads a GOAL file (gzip recognised by content); errors name FILE:LINE."""
    p = Path(path)
    if not p.exists():
        raise CloudnoiseError(f"{p}: no such file")
    if p.is_dir():
        raise CloudnoiseError(f"{p}: is a directory, expected a GOAL file")
    try:
        if not _engine.reader_has_gzip():
            with open(p, "rb") as f:
                head = f.read(2)
            if head == b"\x1f\x8b":
                try:
                    data = gzip.decompress(p.read_bytes())
                except (OSError, EOFError) as err:
                    raise CloudnoiseError(f"{p}:1: corrupt or truncated gzip data ({err})") from None
                return _engine.parse_goal(data, str(p))
        return _engine.read_goal(str(p))
    except _engine.GoalError as err:
        raise CloudnoiseError(str(err), EXIT_USAGE) from None
    except MemoryError:
        raise CloudnoiseError(f"{p}: not enough memory to load this schedule") from None


def simulate(
    schedule: Schedule | str | os.PathLike[str],
    *,
    params: LogGOPS | None = None,
    reps: int = 1,
    seed: int = 0,
    threads: int = 1,
    first_rep: int = 0,
    noise: NoiseSetup | None = None,
    variant: str = "both",
    ready_order: str = "program",
    progress: Callable[[int], None] | None = None,
    **param_text: str | float,
) -> SimulationResult:
    """Simulates `reps` repetitions of a schedule.

    `params` or keyword parameters `L`, `o`, `g`, `G`, `O`, `S` (numbers in
    ns, or text with units such as "2.5us" and "100Gbit/s"). `noise` adds OS
    and network noise; `variant` picks which of it applies (none, os,
    network, both). Repetition r's random draws depend only on (seed, r), so
    results do not depend on `threads`, and repetition r of a long run equals
    a run of that repetition alone (`first_rep=r, reps=1`). Raises
    CloudnoiseError for bad input and for schedules that cannot complete
    (exit status 3).

    `ready_order` is how ops that become executable together are ordered:
    "program" (the default) keeps program order, MPI's posting order, and
    completes every correct schedule; "loggopsim" reproduces LogGOPSim
    exactly, including its unstable sort, which posts receives out of program
    order once more than 16 ops become ready at once (LogGOPSim then
    deadlocks on Schedgen's allreduce_ring beyond a few ranks). The two agree
    whenever at most 16 ops become ready together.
    """
    source = ""
    parse_seconds = 0.0
    if not isinstance(schedule, _engine.Schedule):
        source = str(schedule)
        t0 = time.perf_counter()
        schedule = load_schedule(schedule)
        parse_seconds = time.perf_counter() - t0
    if params is None:
        params = LogGOPS.parse(**{k: v for k, v in param_text.items() if v is not None})
    elif param_text:
        raise TypeError("give either params or L/o/g/G/O/S keywords, not both")
    if reps < 1:
        raise CloudnoiseError(f"--reps must be at least 1, got {reps}")
    if threads < 1:
        raise CloudnoiseError(f"--threads must be at least 1, got {threads}")
    if seed < 0 or seed >= 2**64 or first_rep < 0:
        raise CloudnoiseError("--seed must be an integer in [0, 2^64)")
    if ready_order not in READY_ORDERS:
        raise CloudnoiseError(f"unknown ready order {ready_order!r} (choose from {', '.join(READY_ORDERS)})")
    if variant not in VARIANTS:
        raise CloudnoiseError(f"unknown noise variant {variant!r} (choose from {', '.join(VARIANTS)})")
    if noise is not None:
        if variant != "both":  # "both" applies whatever noise is given
            noise.check_variants([variant])
        engine_noise = noise.engine_model(variant)
    elif variant in ("none", "both"):
        engine_noise = _engine.NoiseModel()
    else:
        raise CloudnoiseError(f"variant {variant!r} needs a noise setup")
    t0 = time.perf_counter()
    try:
        out = _engine.run(
            schedule,
            params.to_engine(),
            engine_noise,
            seed=seed,
            first=first_rep,
            count=reps,
            threads=threads,
            program_order=ready_order == "program",
            progress=progress,
        )
    except _engine.DeadlockError as err:
        hint = ""
        if isinstance(err, _engine.ReorderedDeadlockError):
            hint = (
                "; LogGOPSim's unstable ordering posted receives out of program order: "
                "try --ready-order program, which posts them in order as MPI does"
            )
        raise CloudnoiseError(f"{err}{hint}", EXIT_STUCK) from None
    except OverflowError as err:
        raise CloudnoiseError(str(err)) from None
    engine_seconds = time.perf_counter() - t0
    return SimulationResult(
        ranks=schedule.num_ranks,
        reps=reps,
        events=int(out["events"]),
        messages=int(out["messages"]),
        runtime_ns=_ps_to_ns(out["max_end_ps"]),
        host_end_ns=_ps_to_ns(out["host_end_ps"]),
        params=params,
        seed=seed,
        engine_seconds=engine_seconds,
        parse_seconds=parse_seconds,
        source=source,
        ready_order=ready_order,
        extra={"noise": variant} if noise is not None else {},
    )


READY_ORDERS = ("loggopsim", "program")


def simulate_variants(
    schedule: Schedule | str | os.PathLike[str],
    *,
    params: LogGOPS,
    noise: NoiseSetup,
    variants: list[str],
    reps: int = 1,
    seed: int = 0,
    threads: int = 1,
    ready_order: str = "program",
    progress: Callable[[int], None] | None = None,
) -> dict[str, SimulationResult]:
    """Runs each noise variant on the same seed (common random numbers)."""
    noise.check_variants(variants)
    if not isinstance(schedule, _engine.Schedule):
        t0 = time.perf_counter()
        source = str(schedule)
        schedule = load_schedule(schedule)
        parse_seconds = time.perf_counter() - t0
    else:
        source, parse_seconds = "", 0.0
    results: dict[str, SimulationResult] = {}
    for k, variant in enumerate(dict.fromkeys(variants)):
        step = None if progress is None else (lambda done, k=k: progress(k * reps + done))
        r = simulate(
            schedule, params=params, reps=reps, seed=seed, threads=threads, noise=noise, variant=variant,
            ready_order=ready_order, progress=step,
        )
        r.source, r.parse_seconds = source, parse_seconds
        results[variant] = r
    return results
