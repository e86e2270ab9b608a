"""OS noise traces: read, write and synthesise selfish-detour traces.

Format (Netgauge's selfish detour, as LogGOPSim reads it): one detour per
line, `start<TAB>duration`, both integer nanoseconds from the start of the
trace; lines starting with `#` are comments; blank lines are ignored; any
whitespace separates the two fields on reading, a tab is written.  Detours
are returned sorted by start time as two int64 numpy arrays.

Synthetic traces for what-if studies (issue 4, section 1):

* periodic: one detour of fixed duration every 1/frequency, from `phase`;
* random: detour starts form a Poisson process of a given rate; durations are
  drawn from any noise Distribution (nanoseconds).

Spec strings (`parse_os_noise_spec`), used by profiles and the CLI::

    periodic:frequency=1000,duration=25us[,phase=0]        # frequency in Hz
    random:rate=100,duration=lognormal(median=5us,sigma=0.5)  # rate in detours/s

Overlapping random detours are merged into one, so a trace never has a detour
starting inside the previous one.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from cloudnoise.errors import CloudnoiseError
from cloudnoise.model.distributions import Distribution, parse_distribution
from cloudnoise.units import parse_time_ps


@dataclass(frozen=True)
class OSNoiseTrace:
    """A detour trace: starts and durations in ns (int64, sorted by start)."""

    starts: np.ndarray
    durations: np.ndarray

    def __post_init__(self) -> None:
        starts = np.asarray(self.starts, dtype=np.int64)
        durations = np.asarray(self.durations, dtype=np.int64)
        if starts.shape != durations.shape or starts.ndim != 1:
            raise CloudnoiseError("an OS noise trace needs equal-length 1-D start and duration arrays")
        if np.any(starts < 0) or np.any(durations < 0):
            raise CloudnoiseError("OS noise detours need non-negative starts and durations")
        order = np.argsort(starts, kind="stable")
        object.__setattr__(self, "starts", starts[order])
        object.__setattr__(self, "durations", durations[order])

    def __iter__(self):
        """Unpack as `starts, durations = trace`."""
        return iter((self.starts, self.durations))

    def __len__(self) -> int:
        return int(self.starts.size)

    @property
    def length_ns(self) -> int:
        """The end of the last detour (0 for an empty trace)."""
        return int((self.starts + self.durations).max()) if self.starts.size else 0

    def noise_fraction(self, length_ns: int | None = None) -> float:
        """The share of time spent in detours over `length_ns` (default: up to the last detour's end)."""
        total = length_ns or self.length_ns
        return float(self.durations.sum() / total) if total else 0.0


def read_trace(path: str | Path) -> OSNoiseTrace:
    """Read a selfish-detour trace; garbage is reported as `FILE:LINE: what is wrong`."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise CloudnoiseError(f"{p}: no such OS noise trace file") from None
    except UnicodeDecodeError:
        raise CloudnoiseError(f"{p}: not a text file (expected `start<TAB>duration` lines in ns)") from None
    starts: list[int] = []
    durations: list[int] = []
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        fields = line.split()
        if len(fields) != 2:
            raise CloudnoiseError(f"{p}:{lineno}: expected `start<TAB>duration` (2 fields), got {len(fields)}: {line!r}")
        try:
            start, duration = int(fields[0]), int(fields[1])
        except ValueError:
            raise CloudnoiseError(f"{p}:{lineno}: start and duration must be integer nanoseconds, got {line!r}") from None
        if start < 0 or duration < 0:
            raise CloudnoiseError(f"{p}:{lineno}: start and duration must not be negative, got {line!r}")
        starts.append(start)
        durations.append(duration)
    return OSNoiseTrace(np.array(starts, dtype=np.int64), np.array(durations, dtype=np.int64))


def write_trace(path: str | Path, trace: OSNoiseTrace, comment: str | None = None) -> None:
    """Write a trace in the selfish-detour format (with optional `#` comment lines first)."""
    lines = []
    if comment:
        lines.extend(f"# {c}" for c in comment.splitlines())
    lines.append("# start_ns\tduration_ns")
    body = "\n".join(f"{s}\t{d}" for s, d in zip(trace.starts.tolist(), trace.durations.tolist()))
    Path(path).write_text("\n".join(lines) + "\n" + (body + "\n" if body else ""), encoding="utf-8")


def periodic_trace(frequency_hz: float, duration_ns: float, length_ns: float, phase_ns: float = 0.0) -> OSNoiseTrace:
    """A detour of `duration_ns` at phase + k / frequency for every start before `length_ns`.

    Starts are rounded per detour (not accumulated), so they do not drift.
    """
    if not frequency_hz > 0:
        raise CloudnoiseError(f"periodic OS noise needs a positive frequency, got {frequency_hz} Hz")
    period = 1e9 / frequency_hz
    if duration_ns < 0 or not duration_ns < period:
        raise CloudnoiseError(
            f"periodic OS noise: duration {duration_ns} ns must be >= 0 and shorter than the period {period:g} ns"
        )
    if length_ns <= phase_ns:
        return OSNoiseTrace(np.empty(0, np.int64), np.empty(0, np.int64))
    count = math.ceil((length_ns - phase_ns) / period)
    starts = np.rint(phase_ns + np.arange(count, dtype=np.float64) * period).astype(np.int64)
    starts = starts[starts < length_ns]
    return OSNoiseTrace(starts, np.full(starts.size, int(round(duration_ns)), dtype=np.int64))


def random_trace(
    rate_hz: float, duration: Distribution, length_ns: float, rng: np.random.Generator
) -> OSNoiseTrace:
    """Detours starting as a Poisson process of `rate_hz` over `length_ns`; durations from `duration` (ns).

    Detours that would start inside the previous one are merged with it.
    """
    if not rate_hz > 0:
        raise CloudnoiseError(f"random OS noise needs a positive rate, got {rate_hz} detours/s")
    count = rng.poisson(rate_hz * length_ns / 1e9)
    starts = np.sort(rng.uniform(0.0, length_ns, count)).astype(np.int64)
    durs = np.maximum(np.rint(duration.sample(rng, count)), 0).astype(np.int64)
    return OSNoiseTrace(*_merge_overlaps(starts, durs))


def _merge_overlaps(starts: np.ndarray, durations: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    if starts.size < 2:
        return starts, durations
    ends = starts + durations
    running_end = np.maximum.accumulate(ends)
    new_group = np.ones(starts.size, dtype=bool)
    new_group[1:] = starts[1:] >= running_end[:-1]
    group = np.cumsum(new_group) - 1
    first = np.flatnonzero(new_group)
    group_end = np.maximum.reduceat(ends, first)
    return starts[first], group_end - starts[first]


_SPEC = re.compile(r"^\s*(periodic|random)\s*:(.*)$")


@dataclass(frozen=True)
class SyntheticOSNoise:
    """A synthetic OS noise description that can generate a trace of any length."""

    kind: str  # "periodic" | "random"
    frequency_hz: float  # periodic frequency, or random rate (detours per second)
    duration: Distribution  # constant for periodic
    phase_ns: float = 0.0
    text: str = ""

    def trace(self, length_ns: float, rng: np.random.Generator | None = None) -> OSNoiseTrace:
        if self.kind == "periodic":
            return periodic_trace(self.frequency_hz, self.duration.mean(), length_ns, self.phase_ns)
        if rng is None:
            raise CloudnoiseError("random OS noise needs a random generator (seed) to build a trace")
        return random_trace(self.frequency_hz, self.duration, length_ns, rng)

    def spec(self) -> str:
        return self.text


def parse_os_noise_spec(spec: str) -> SyntheticOSNoise:
    """A SyntheticOSNoise from `periodic:frequency=F,duration=D[,phase=P]` or `random:rate=R,duration=DIST`."""
    match = _SPEC.match(str(spec))
    if not match:
        raise CloudnoiseError(
            f"bad OS noise spec {spec!r}: write periodic:frequency=HZ,duration=25us "
            "or random:rate=PER_S,duration=lognormal(median=5us,sigma=0.5)"
        )
    kind, rest = match.group(1), match.group(2)
    params: dict[str, str] = {}
    depth, start, items = 0, 0, []
    for i, ch in enumerate(rest):
        depth += ch == "("
        depth -= ch == ")"
        if ch == "," and depth == 0:
            items.append(rest[start:i])
            start = i + 1
    items.append(rest[start:])
    for item in items:
        name, eq, value = item.partition("=")
        if not eq:
            raise CloudnoiseError(f"in {spec!r}: expected NAME=VALUE, got {item.strip()!r}")
        params[name.strip()] = value.strip()
    allowed = {"periodic": {"frequency", "duration", "phase"}, "random": {"rate", "duration"}}[kind]
    unknown = set(params) - allowed
    missing = allowed - set(params) - {"phase"}
    if unknown or missing:
        raise CloudnoiseError(
            f"in {spec!r}: {kind} OS noise takes {', '.join(sorted(allowed))}"
            + (f"; unknown {', '.join(sorted(unknown))}" if unknown else "")
            + (f"; missing {', '.join(sorted(missing))}" if missing else "")
        )
    rate_key = "frequency" if kind == "periodic" else "rate"
    try:
        rate = float(params[rate_key].removesuffix("Hz").removesuffix("/s"))
    except ValueError:
        raise CloudnoiseError(f"in {spec!r}: {rate_key}={params[rate_key]!r} is not a number (per second)") from None
    dur_text = params["duration"]
    if "(" in dur_text:
        kind_name, _, inner = dur_text.partition("(")
        duration = parse_distribution(f"{kind_name.strip()}:{inner.rstrip().removesuffix(')')}")
    elif ":" in dur_text:
        duration = parse_distribution(dur_text)
    else:
        duration = parse_distribution(f"constant:value={parse_time_ps(dur_text, 'duration') / 1000.0!r}")
    if kind == "periodic" and duration.support()[0] != duration.support()[1]:
        raise CloudnoiseError(f"in {spec!r}: periodic OS noise needs a fixed duration such as 25us")
    phase = parse_time_ps(params.get("phase", "0"), "phase") / 1000.0
    return SyntheticOSNoise(kind, rate, duration, phase, str(spec).strip())
