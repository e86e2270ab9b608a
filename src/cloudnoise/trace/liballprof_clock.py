"""Which reading of a liballprof trace's clock offsets puts its ranks on one
time line.

Each rank's header states its clock's difference to rank 0's, in one of two
forms: collprof's `# Init clockdiff: -1856.565475` (microseconds) and htor's
`# clockdiff: 0.000012 s (relative to rank 0)`, labelled seconds. The label
is not always true: htor's PMPI tracer 0.9 on a Cray wrote microseconds
there (`# clockdiff: -442.743301 s`: read as microseconds, the four ranks of
that MILC run leave MPI_Init within 16 us; read as seconds, 443 s apart in
a run of 62 s). A header's offset must never move a rank further than its
own timestamps allow, and MPI_Init is a synchronizing call (the tracer's
own clock synchronization runs inside it): the ranks' MPI_Init exits must
agree once corrected. So the readings are tried, each for every rank:

- `seconds` (the value times 10^6), `microseconds` (the value as written),
  `none` (the header ignored, the raw clocks), the label's own reading first
  (no clockdiff line anywhere: `none` alone);
- a reading *agrees* when the corrected MPI_Init exits lie within
  TOLERANCE: 1 ms, or 1 % of the shortest rank's own run (MPI_Init exit to
  its last call) when that is longer (liballprof's synchronization inside
  MPI_Init takes milliseconds: the Sweep3D sample's exits are 17 ms apart);
- of the readings that agree, the first in that order whose spread is within
  twice the best one's (or 1 ms) is taken: the label's reading unless
  another aligns the ranks clearly better.

No reading agrees:

- if under some reading the ranks' runs overlap (every rank leaves MPI_Init
  before every rank's last call), the clocks are only imprecise: a warning
  (one line), and every rank starts at its own MPI_Init exit (Schedgen's
  time base);
- if under every reading some rank leaves MPI_Init after another rank's
  run has ended, these files cannot be one run (files of different runs in
  one folder, or damaged clocks): one-line error, exit status 2. Starting
  each rank at its own MPI_Init exit would join runs that never met.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from cloudnoise.errors import CloudnoiseError

FLOOR_US = 1000.0  # agreement within 1 ms always counts
SPAN_FRACTION = 0.01  # ... or within 1 % of the shortest rank's own run
CLOSE_FACTOR = 2.0  # a reading earlier in the order is kept within twice the best spread
MAX_OFFSET_US = 1e12  # an offset beyond ~11.6 days is no clock difference
OWN_INIT = "own MPI_Init exits"
CLOCKDIFF = re.compile(r"#\s*(?:Init )?clockdiff:\s*(\S+)(\s+s\b)?")


@dataclass(frozen=True)
class HeaderClock:
    """What one rank's header says of its clock: the clockdiff as written, and
    whether it is labelled seconds (htor's form); value None: no clockdiff line."""

    value: float | None = None
    labelled_seconds: bool = False


def header_clock(line: str) -> HeaderClock | None:
    """The clock difference a header line states (None: not a clockdiff line, or no number)."""
    m = CLOCKDIFF.match(line)
    if not m:
        return None
    try:
        value = float(m.group(1))
    except ValueError:
        return None
    return HeaderClock(value, bool(m.group(2))) if math.isfinite(value) else None


def _diff_us(clock: HeaderClock, reading: str) -> float | None:
    """The rank's offset to rank 0 in us under `reading` (rank 0's time = the rank's + diff); None: impossible."""
    if reading == "none" or clock.value is None:
        return 0.0
    diff = clock.value * (1e6 if reading == "seconds" else 1.0)
    return diff if abs(diff) < MAX_OFFSET_US else None


@dataclass
class ClockChoice:
    """The time base of a trace: `offset_us[r]` is subtracted from rank r's times
    (microseconds of its own clock) to give microseconds from the run's origin,
    the earliest corrected MPI_Init exit (time 0)."""

    reading: str  # "seconds", "microseconds", "none" or OWN_INIT
    stated: str  # the headers' own reading
    offset_us: list[float]
    diff_us: list[float]  # the clock differences the reading takes (0 for OWN_INIT)
    spread_us: dict[str, float] = field(default_factory=dict)  # MPI_Init exits' spread under each reading tried
    warning: str | None = None

    def describe(self) -> dict[str, Any]:
        out: dict[str, Any] = {"reading": self.reading, "stated": self.stated,
                               "init_exit_spread_us": {k: round(v, 3) for k, v in self.spread_us.items()}}
        if self.reading != self.stated:
            out["note"] = self.note()
        return out

    def note(self) -> str:
        """One line on a reading other than the headers' own."""
        if self.reading == OWN_INIT:
            return self.warning or "every rank starts at its own MPI_Init exit"
        label = "labelled s" if self.stated == "seconds" else "in microseconds"
        how = "ignored" if self.reading == "none" else f"read as {self.reading}"
        return (f"the headers' clockdiff, {label}, {how}: MPI_Init exits within {_human_us(self.spread_us[self.reading])} "
                f"(as {self.stated}: {_human_us(self.spread_us[self.stated])} apart)")


def _human_us(us: float) -> str:
    if us >= 1e12:
        return f"{us / 1e6:.3g} s"
    return f"{us:,.0f} us" if us < 1e4 else f"{us / 1e3:,.1f} ms" if us < 1e7 else f"{us / 1e6:,.1f} s"


def own_init(init_exit_us: Sequence[float], stated: str = OWN_INIT, warning: str | None = None,
             spread_us: dict[str, float] | None = None) -> ClockChoice:
    """Every rank from its own MPI_Init exit (Schedgen's time base)."""
    n = len(init_exit_us)
    return ClockChoice(OWN_INIT, stated, list(init_exit_us), [0.0] * n, spread_us or {}, warning)


def choose(where: str, clocks: Sequence[HeaderClock], init_exit_us: Sequence[float],
           last_us: Callable[[int], float | None]) -> ClockChoice:
    """The reading that aligns the ranks (see the module docstring). `last_us(r)`
    is rank r's last call time in its own clock (None: unreadable), asked only
    when the ranks' own runs can change the outcome."""
    n = len(clocks)
    stating = [c for c in clocks if c.value is not None]
    if not stating:
        stated, order = "none", ["none"]
    else:
        stated = "seconds" if any(c.labelled_seconds for c in stating) else "microseconds"
        order = [stated] + [r for r in ("seconds", "microseconds", "none") if r != stated]
    diffs: dict[str, list[float]] = {}
    spread: dict[str, float] = {}
    for reading in order:
        d = [_diff_us(c, reading) for c in clocks]
        if any(x is None for x in d):
            continue
        diffs[reading] = [float(x) for x in d if x is not None]
        exits = [t + x for t, x in zip(init_exit_us, diffs[reading])]
        spread[reading] = max(exits) - min(exits)
    tried = [r for r in order if r in spread]
    tolerance = FLOOR_US
    spans: list[float | None] | None = None
    # the ranks' own runs decide only where no reading is within 1 ms, or one a little further is earlier
    # in the order (a plain file's end is read at once, a gzip one through: not for every trace)
    best = min(spread[r] for r in tried)
    if best > FLOOR_US or any(FLOOR_US < spread[r] <= CLOSE_FACTOR * best for r in tried):
        spans = [None if (t := last_us(r)) is None else t - init_exit_us[r] for r in range(n)]
        known = [s for s in spans if s is not None]
        if known:
            tolerance = max(FLOOR_US, SPAN_FRACTION * min(known))
    agreeing = [r for r in tried if spread[r] <= tolerance]
    if agreeing:
        best = min(spread[r] for r in agreeing)
        reading = next(r for r in agreeing if spread[r] <= max(FLOOR_US, CLOSE_FACTOR * best))
        origin = min(t + x for t, x in zip(init_exit_us, diffs[reading]))
        return ClockChoice(reading, stated, [origin - x for x in diffs[reading]], diffs[reading], spread)
    readings = ", ".join(f"{r}: {_human_us(spread[r])}" for r in tried)
    if spans is not None and not any(_overlap(init_exit_us, spans, diffs[r]) for r in tried):
        raise CloudnoiseError(
            f"{where}: the rank files are not one run's: under every reading of the headers' clockdiff ({readings} "
            "between MPI_Init exits) some rank leaves MPI_Init after another rank's last call; put one run's rank "
            "files in the folder, or record the run again")
    warning = (f"{where}: the ranks' MPI_Init exits disagree under every reading of the headers' clockdiff "
               f"({readings}; agreement is within {_human_us(tolerance)}): every rank starts at its own MPI_Init exit")
    return own_init(init_exit_us, stated, warning, spread)


def _overlap(init_exit_us: Sequence[float], spans: Sequence[float | None], diff_us: Sequence[float]) -> bool:
    """Whether every rank leaves MPI_Init before every rank's last call, clocks corrected by diff_us."""
    last_exit = max(t + d for t, d in zip(init_exit_us, diff_us))
    ends = [t + s + d for t, s, d in zip(init_exit_us, spans, diff_us) if s is not None]
    return not ends or last_exit < min(ends)
