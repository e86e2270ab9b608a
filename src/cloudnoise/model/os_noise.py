"""OS noise traces: read, write and synthesise selfish-detour traces.

Format (Netgauge's selfish detour, as LogGOPSim reads it): one detour per
line, `start<TAB>duration`, both integer nanoseconds from the start of the
trace; lines starting with `#` are comments; blank lines are ignored; any
whitespace separates the two fields on reading, a tab is written.  Detours
are returned sorted by start time as two int64 numpy arrays.

Synthetic traces for what-if studies:

* periodic: one detour of fixed duration every 1/frequency, from `phase`;
* random: detour starts form a Poisson process of a given rate; durations are
  drawn from any noise Distribution (nanoseconds).

Spec strings (`parse_os_noise_spec`), used by profiles and the CLI::

    periodic:frequency=1000,duration=25us[,phase=0]        # frequency in Hz
    random:rate=100,duration=lognormal(median=5us,sigma=0.5)  # rate in detours/s

Overlapping random detours are merged into one, so a trace never has a detour
starting inside the previous one.

Every start, duration and end is at most cloudnoise.limits.MAX_TIME_NS, and
so is the total time of all detours: a trace file from someone else cannot
push the engine's picosecond arithmetic out of range. A synthetic trace
holds at most limits.MAX_SYNTHETIC_DETOURS detours.
"""

from __future__ import annotations

import math
import re
from array import array
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from cloudnoise import limits
from cloudnoise.errors import CloudnoiseError, shown
from cloudnoise.input_files import check_file, decode_text
from cloudnoise.model.distributions import (
    OS_DETOUR, Distribution, Mixture, parse_inline_distribution, split_top_level,
)
from cloudnoise.output_files import write_text
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


TRACE_BLOCK_BYTES = 1 << 18  # a trace is read this much at a time (and the last line's rest)
MAX_TRACE_LINE_BYTES = 4096  # a longer line is refused as it is read (a detour's line holds ~20 bytes)
MAX_FAST_DIGITS = 18  # a field of at most this many digits fits an int64; longer ones take the line-by-line path
_TRACE_BYTES = np.zeros(256, dtype=np.uint8)  # 1: a digit, 2: a field separator, 3: the end of a line
_TRACE_BYTES[ord("0"):ord("9") + 1] = 1
_TRACE_BYTES[[ord(" "), ord("\t"), ord("\r")]] = 2
_TRACE_BYTES[ord("\n")] = 3
_TRACE_BYTES.flags.writeable = False  # a constant


def read_trace(path: str | Path) -> OSNoiseTrace:
    """Read a selfish-detour trace; garbage is reported as `FILE:LINE: what is wrong`, and every
    value is checked against the limits. A `.npz` file holds the same as two integer arrays,
    `starts_ns` and `durations_ns` (compact: the built-in profiles' measured traces).

    Read a block of whole lines at a time: a block of nothing but `start duration` lines is
    parsed at once (`_plain_block`); any other block (comments, blank lines, garbage) line by
    line, which also says where a line is wrong."""
    p = check_file(path, "OS noise trace (start<TAB>duration lines in ns)")
    if p.suffix == ".npz":
        return _read_npz_trace(p)
    # grown in place block by block (no list of blocks joined at the end: that held the trace twice)
    starts = array("q")
    durations = array("q")
    total, lines = 0, 0
    try:
        with open(p, "rb") as fh:
            decode_text(fh.read(4096), p, "OS noise trace")  # UTF-16 or binary: said at once
            fh.seek(0)
            rest = b""
            while True:
                read = fh.read(TRACE_BLOCK_BYTES)
                data = rest + read
                if not data:
                    break
                cut = data.rfind(b"\n") + 1 if read else len(data)
                block, rest = data[:cut], data[cut:]
                if block:
                    if lines == 0 and block.startswith(b"\xef\xbb\xbf"):
                        block = block[3:]
                    # a header of comments (a trace's first lines) is skipped before the block is tried
                    head = _leading_notes(block)
                    s, d = _plain_block(block[head:], total)
                    if s is None or d is None:
                        s, d = _block_by_line(block, p, lines, total)
                    total += int(d.sum())
                    lines += block.count(b"\n") + (not block.endswith(b"\n"))
                    starts.frombytes(np.ascontiguousarray(s, np.int64).tobytes())
                    durations.frombytes(np.ascontiguousarray(d, np.int64).tobytes())
                if len(rest) > MAX_TRACE_LINE_BYTES:  # no line is that long: said before it is all read
                    raise CloudnoiseError(f"{p}:{lines + 1}: a line of more than {MAX_TRACE_LINE_BYTES} bytes, not "
                                          "`start<TAB>duration` in ns")
    except OSError as err:
        raise CloudnoiseError(f"{p}: cannot read the OS noise trace ({err.strerror or err})") from None
    return OSNoiseTrace(np.frombuffer(starts, dtype=np.int64), np.frombuffer(durations, dtype=np.int64))


def _leading_notes(block: bytes) -> int:
    """Where the block's leading comment and blank lines end (a byte offset at a line's start)."""
    at = 0
    while at < len(block):
        end = block.find(b"\n", at)
        end = len(block) if end < 0 else end + 1
        line = block[at:end].strip()
        if line and not line.startswith(b"#"):
            break
        at = end
    return at


def _plain_block(block: bytes, total: int) -> tuple[np.ndarray, np.ndarray] | tuple[None, None]:
    """The detours of a block in which every line is `start duration` (two fields of at most
    MAX_FAST_DIGITS digits, separated by spaces or tabs) and every value is within the limits,
    with `total` ns of detours before it; (None, None) for any other block."""
    kind = _TRACE_BYTES[np.frombuffer(block, dtype=np.uint8)]
    if not kind.all():  # a byte that is no digit, separator or line end: a comment, a sign, garbage
        return None, None
    digit = kind == 1
    edge = np.diff(digit.astype(np.int8), prepend=np.int8(0), append=np.int8(0))
    first, end = np.flatnonzero(edge == 1), np.flatnonzero(edge == -1)
    if first.size == 0 or (end - first).max() > MAX_FAST_DIGITS:
        return None, None
    # the line each field lies on: two fields on every line, none blank
    line_of_field = np.cumsum(kind == 3, dtype=np.int32)[first]
    lines = int(np.count_nonzero(kind == 3)) + (kind[-1] != 3)
    if first.size != 2 * lines or np.any(np.bincount(line_of_field, minlength=lines) != 2):
        return None, None
    values = np.fromstring(block, dtype=np.int64, sep=" ")  # text mode: integers apart by any whitespace
    if values.size != first.size:
        return None, None
    s, d = values[0::2], values[1::2]
    # the sum in floating point (an int64 sum of huge values could wrap), with a margin for its rounding
    if np.any(s + d > limits.MAX_TIME_NS) or total + float(d.sum(dtype=np.float64)) > limits.MAX_TIME_NS - 1e6:
        return None, None
    return s, d


def _block_by_line(block: bytes, path: Path, before: int, total: int) -> tuple[np.ndarray, np.ndarray]:
    """The detours of a block read line by line (`before` lines and `total` ns of detours
    before it): comments and blank lines skipped, the first wrong line said."""
    starts = array("q")
    durations = array("q")
    rows = block.split(b"\n")
    if block.endswith(b"\n"):
        rows.pop()
    for lineno, data in enumerate(rows, before + 1):
        try:
            line = data.decode("utf-8-sig" if lineno == 1 else "utf-8").strip()
        except UnicodeDecodeError:
            raise CloudnoiseError(f"{path}:{lineno}: not UTF-8 text; save the trace as UTF-8") from None
        if not line or line.startswith("#"):
            continue
        start, duration = _detour(line, path, lineno)
        total += duration
        if total > limits.MAX_TIME_NS:
            raise CloudnoiseError(
                f"{path}:{lineno}: the detours add up to more than {limits.MAX_TIME_NS:.3g} ns "
                f"({limits.MAX_TIME_PS / 1e12:.3g} s), the limit of one simulated time"
            )
        starts.append(start)
        durations.append(duration)
    return np.frombuffer(starts, dtype=np.int64), np.frombuffer(durations, dtype=np.int64)


def _detour(line: str, path: Path, lineno: int) -> tuple[int, int]:
    """(start, duration) of one trace line, both within the limits."""
    fields = line.split()
    if len(fields) != 2:
        raise CloudnoiseError(
            f"{path}:{lineno}: expected `start<TAB>duration` (2 fields), got {len(fields)}: {shown(line)}"
        )
    try:
        if any(len(f) > 20 for f in fields):
            raise ValueError
        start, duration = int(fields[0]), int(fields[1])
    except ValueError:
        if all(re.fullmatch(r"[-+]?[0-9]+", f) for f in fields):
            raise CloudnoiseError(
                f"{path}:{lineno}: {shown(line)} is out of range: starts and durations are at most "
                f"{limits.MAX_TIME_NS:.3g} ns ({limits.MAX_TIME_PS / 1e12:.3g} s)"
            ) from None
        raise CloudnoiseError(
            f"{path}:{lineno}: start and duration must be integer nanoseconds, got {shown(line)}"
        ) from None
    if start < 0 or duration < 0:
        raise CloudnoiseError(f"{path}:{lineno}: start and duration must not be negative, got {shown(line)}")
    if start + duration > limits.MAX_TIME_NS:
        raise CloudnoiseError(
            f"{path}:{lineno}: the detour {shown(line)} ends after {limits.MAX_TIME_NS:.3g} ns "
            f"({limits.MAX_TIME_PS / 1e12:.3g} s), the limit of one simulated time"
        )
    return start, duration


def write_trace(path: str | Path, trace: OSNoiseTrace, comment: str | None = None) -> None:
    """Write a trace in the selfish-detour format (with optional `#` comment lines first), atomically."""
    lines = []
    if comment:
        lines.extend(f"# {c}" for c in comment.splitlines())
    lines.append("# start_ns\tduration_ns")
    body = "\n".join(f"{s}\t{d}" for s, d in zip(trace.starts.tolist(), trace.durations.tolist()))
    write_text(path, "\n".join(lines) + "\n" + (body + "\n" if body else ""))


def _check_count(rate_hz: float, length_ns: float, what: str) -> None:
    """A synthetic trace of `rate_hz` over `length_ns` must fit in memory."""
    count = rate_hz * length_ns / 1e9
    if not count <= limits.MAX_SYNTHETIC_DETOURS:
        raise CloudnoiseError(
            f"{what} of {rate_hz:g} detours/s would need {count:.3g} detours in a {length_ns / 1e9:g} s trace; "
            f"at most {limits.MAX_SYNTHETIC_DETOURS:.0e} (a rate up to "
            f"{limits.MAX_SYNTHETIC_DETOURS / (length_ns / 1e9):.3g}/s)"
        )


def periodic_trace(frequency_hz: float, duration_ns: float, length_ns: float, phase_ns: float = 0.0) -> OSNoiseTrace:
    """A detour of `duration_ns` at phase + k / frequency for every start before `length_ns`.

    Starts are rounded per detour (not accumulated), so they do not drift.
    """
    if not (frequency_hz > 0 and math.isfinite(frequency_hz)):
        raise CloudnoiseError(f"periodic OS noise needs a positive frequency (finite, in Hz), got {frequency_hz} Hz")
    if not (0 <= phase_ns <= limits.MAX_TIME_NS and 0 <= length_ns <= limits.MAX_TIME_NS):
        raise CloudnoiseError(f"periodic OS noise: phase {phase_ns:g} ns out of range [0, {limits.MAX_TIME_NS:.3g}]")
    _check_count(frequency_hz, max(0.0, length_ns - phase_ns), "periodic OS noise")
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
    if not (rate_hz > 0 and math.isfinite(rate_hz)):
        raise CloudnoiseError(f"random OS noise needs a positive rate (finite, in detours/s), got {rate_hz} detours/s")
    _check_count(rate_hz, length_ns, "random OS noise")
    count = rng.poisson(rate_hz * length_ns / 1e9)
    starts = np.sort(rng.uniform(0.0, length_ns, count)).astype(np.int64)
    drawn = duration.sample(rng, count)
    bad = ~(np.isfinite(drawn) & (drawn <= limits.MAX_TIME_NS))
    if bad.any():
        raise CloudnoiseError(
            f"random OS noise: the duration {duration.spec()} drew {drawn[np.argmax(bad)]:g} ns, "
            f"beyond {limits.MAX_TIME_NS:.3g} ns, the limit of one simulated time"
        )
    durs = np.maximum(np.rint(drawn), 0).astype(np.int64)
    starts, durs = _merge_overlaps(starts, durs)
    if int(durs.sum()) > limits.MAX_TIME_NS or (starts.size and int((starts + durs).max()) > limits.MAX_TIME_NS):
        raise CloudnoiseError(
            f"random OS noise: the detours of {duration.spec()} add up to more than {limits.MAX_TIME_NS:.3g} ns"
        )
    return OSNoiseTrace(starts, durs)


def _merge_overlaps(starts: np.ndarray, durations: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    if starts.size < 2:
        return starts, durations
    ends = starts + durations
    running_end = np.maximum.accumulate(ends)
    new_group = np.ones(starts.size, dtype=bool)
    new_group[1:] = starts[1:] >= running_end[:-1]
    first = np.flatnonzero(new_group)
    group_end = np.maximum.reduceat(ends, first)
    return starts[first], group_end - starts[first]


_SPEC = re.compile(r"^\s*(periodic|random)\s*:(.*)$")


# Lengths of the traces generated from a synthetic spec (SyntheticOSNoise.representative_length_ns).
SHORTEST_TRACE_NS = 10 * 10**9
LONGEST_TRACE_NS = 1000 * 10**9
RARE_CLASS_DETOURS = 500
EXTENDED_TRACE_DETOURS = 10**6  # a longer trace than 10 s holds at most this many (16 MB)


@dataclass(frozen=True)
class SyntheticOSNoise:
    """A synthetic OS noise description that can generate a trace of any length."""

    kind: str  # "periodic" | "random"
    frequency_hz: float  # periodic frequency, or random rate (detours per second)
    duration: Distribution  # constant for periodic
    phase_ns: float = 0.0
    text: str = ""

    def representative_length_ns(self) -> int:
        """How long a trace generated from this noise must be to stand for it.

        At least 10 s, and for random noise long enough to hold about RARE_CLASS_DETOURS
        detours of its rarest class (a mixture's smallest weight): every rank reads the
        same trace, so with the rare long detours counted in tens, results hinge on how
        many one seed happened to draw. With 10 s (50 long detours) the median OS-noise
        factor of aws-hpc-metal's 16 B dissemination at 16K nodes ranged 1.99-3.00 over
        seeds 1-8; with 100 s (500) 2.03-2.24. Bounded by LONGEST_TRACE_NS and by
        EXTENDED_TRACE_DETOURS detours (memory), never below 10 s.
        """
        if self.kind == "periodic":
            return SHORTEST_TRACE_NS  # the same detours every period: nothing to represent
        rarest = min(self.duration.weights) if isinstance(self.duration, Mixture) else 1.0
        wanted = RARE_CLASS_DETOURS / (self.frequency_hz * rarest) * 1e9
        affordable = EXTENDED_TRACE_DETOURS / self.frequency_hz * 1e9
        return int(max(SHORTEST_TRACE_NS, min(wanted, affordable, LONGEST_TRACE_NS)))

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
    for item in split_top_level(rest, ",", spec, "NAME=VALUE item"):
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
        raise CloudnoiseError(
            f"in {shown(spec)}: {rate_key}={shown(params[rate_key])} is not a number (per second)"
        ) from None
    if not (rate > 0 and math.isfinite(rate)):
        raise CloudnoiseError(f"in {shown(spec)}: {rate_key}={shown(params[rate_key])} must be a positive, finite number per second")
    duration = parse_inline_distribution(params["duration"], "duration", time=True, use=OS_DETOUR)
    if kind == "periodic" and duration.support()[0] != duration.support()[1]:
        raise CloudnoiseError(f"in {spec!r}: periodic OS noise needs a fixed duration such as 25us")
    phase = parse_time_ps(params.get("phase", "0"), "phase") / 1000.0
    return SyntheticOSNoise(kind, rate, duration, phase, str(spec).strip())


def _read_npz_trace(path: Path) -> OSNoiseTrace:
    """A trace stored as NumPy arrays starts_ns and durations_ns (read without pickles)."""
    import zipfile

    try:
        with np.load(path, allow_pickle=False) as z:
            if sorted(z.files) != ["durations_ns", "starts_ns"]:
                raise CloudnoiseError(f"{path}: an OS noise trace .npz holds exactly starts_ns and durations_ns")
            starts, durations = z["starts_ns"], z["durations_ns"]
    except (OSError, ValueError, zipfile.BadZipFile, EOFError) as err:
        raise CloudnoiseError(f"{path}: not a readable OS noise trace (.npz): {err}") from None
    for name, a in (("starts_ns", starts), ("durations_ns", durations)):
        if a.ndim != 1 or a.dtype.kind not in "iu" or a.size > limits.MAX_SYNTHETIC_DETOURS:
            raise CloudnoiseError(f"{path}: {name} must be a 1-D integer array of at most {limits.MAX_SYNTHETIC_DETOURS} detours")
    if starts.size != durations.size or starts.size < 2:
        raise CloudnoiseError(f"{path}: starts_ns and durations_ns need the same length, at least 2")
    if starts.min() < 0 or durations.min() < 0:
        raise CloudnoiseError(f"{path}: detour starts and durations must be >= 0")
    if starts.size and (int(starts.max()) > limits.MAX_TIME_NS or int(durations.sum()) > limits.MAX_TIME_NS):
        raise CloudnoiseError(f"{path}: the trace is longer than {limits.MAX_TIME_NS:.3g} ns, the limit of one simulated time")
    return OSNoiseTrace(starts.astype(np.int64), durations.astype(np.int64))


def write_npz_trace(path: str | Path, trace: OSNoiseTrace) -> None:
    """Write a trace as `.npz` (see read_trace); the same trace gives the same bytes."""
    from cloudnoise.output_files import write_npz

    write_npz(path, {"starts_ns": np.asarray(trace.starts, dtype=np.int64),
                     "durations_ns": np.asarray(trace.durations, dtype=np.int64)})
