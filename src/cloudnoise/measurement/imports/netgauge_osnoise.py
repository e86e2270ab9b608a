"""Netgauge's selfish-detour OS noise: ``ng_osnoise.out``.

Format (Netgauge 2.4.6 ``-x noise``): each call writes a ``#`` header
(``Benchmark Method: selfish``, ``Nodename``, ``Minimal cycle length [ns]``,
``Threshold: [% minimal cycle length]``, ...), one ``start<TAB>duration``
line per detour, both in ns (with two decimals) from the call's start, and
a footer (``CPU overhead due to noise``, ``Measurement period: T s``). The
paper's scripts append call after call to one file.

The campaign's OS-noise trace (``os-noise/os_noise.trace``, whole ns) lays
the calls end to end: call k's detours start after calls 0..k-1's
measurement periods (a call without a footer, stopped by the scripts'
timeout, lasts until its last detour ends). The authors' simulator instead
read the file's lines as they are (``grep -v '#'``), so its trace restarts
at 0 with each call; the per-call facts kept in the campaign's metadata
(``import.osnoise_runs``) allow either reading.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import IO

import numpy as np

from cloudnoise.errors import CloudnoiseError
from cloudnoise.measurement.imports.netgauge_lines import batches

MAX_NS = 3.2e16  # a year: no selfish-detour call runs longer
_HEADER = re.compile(r"#\s*([^:]+?)\s*:\s*(.*?)\s*$")


@dataclass
class NoiseRun:
    """One Netgauge call's facts, from its header and footer."""

    line: int
    facts: dict[str, str] = field(default_factory=dict)
    detours: int = 0
    last_end_ns: float = 0.0

    @property
    def t_min_ns(self) -> float:
        return _number(self.facts.get("Minimal cycle length [ns]"))

    @property
    def threshold_percent(self) -> float:
        text = self.facts.get("Threshold", "")  # "[% minimal cycle length]: 900"
        return _number(text.split()[-1] if text.split() else None)

    @property
    def period_ns(self) -> float | None:
        text = self.facts.get("Measurement period")
        value = _number(text.split()[0]) if text else float("nan")
        return value * 1e9 if np.isfinite(value) and 0 <= value * 1e9 <= MAX_NS else None

    @property
    def span_ns(self) -> float:
        """How long the call measured: its stated period, else until its last detour ended."""
        period = self.period_ns
        return max(period, self.last_end_ns) if period is not None else self.last_end_ns

    def to_json(self) -> dict[str, object]:
        return {"line": self.line, "detours": self.detours, "t_min_ns": _json(self.t_min_ns),
                "threshold_percent": _json(self.threshold_percent),
                "measurement_period_s": _json((self.period_ns or float("nan")) / 1e9),
                "host": self.facts.get("Nodename"),
                "cpu_overhead": self.facts.get("CPU overhead due to noise")}


def _number(text: str | None) -> float:
    try:
        return float(str(text).split()[0].rstrip("%"))
    except (ValueError, IndexError):
        return float("nan")


def _json(x: float) -> float | None:
    return float(x) if np.isfinite(x) else None


@dataclass
class Detours:
    """One batch of detours on the campaign's timeline (ns, whole)."""

    start_ns: np.ndarray
    duration_ns: np.ndarray


def read(stream: IO[bytes], where: str, runs: list[NoiseRun]) -> Iterator[Detours]:
    """The detours of every call, laid end to end (module doc); ``runs`` receives
    each call's facts as it is read."""
    offset = 0.0  # ns: where the current call starts on the timeline
    current: NoiseRun | None = None
    previous_start = -1.0
    for batch in batches(stream, where, 2):
        # the batch's comment lines open calls and close them; detours belong to the call open at their line
        opens = [(i, t) for i, t in batch.comments if "Benchmark Method" in t]
        marks = sorted(batch.comments)
        values = batch.values
        cursor = 0
        for i, text in marks + [(int(1 << 62), "")]:
            upto = int(np.searchsorted(batch.lines, i))
            if upto > cursor:
                if current is None:
                    raise CloudnoiseError(f"{where}: line {batch.lines[cursor]}: a detour before any "
                                          "'# Benchmark Method' header; is this ng_osnoise.out?")
                start, dur = values[cursor:upto, 0], values[cursor:upto, 1]
                lines = batch.lines[cursor:upto]
                back = np.flatnonzero((np.diff(np.concatenate([[previous_start], start])) < 0) | (dur < 0)
                                      | (start > MAX_NS) | (dur > MAX_NS))
                if len(back):
                    k = int(back[0])
                    raise CloudnoiseError(f"{where}: line {lines[k]}: a detour that starts before the one above "
                                          "it, lasts a negative time, or lies beyond a year; the file is damaged")
                previous_start = float(start[-1])
                current.detours += len(start)
                current.last_end_ns = max(current.last_end_ns, float((start + dur).max()))
                yield Detours(np.rint(offset + start).astype(np.int64), np.rint(dur).astype(np.int64))
                cursor = upto
            if not text:
                break
            if (i, text) in opens:
                if current is not None:
                    offset += current.span_ns
                current = NoiseRun(line=i)
                runs.append(current)
                previous_start = -1.0
            elif current is not None:
                match = _HEADER.match(text)
                if match:
                    current.facts.setdefault(match.group(1), match.group(2))
    if not runs or sum(r.detours for r in runs) == 0:
        raise CloudnoiseError(f"{where}: no detours (an empty file, or headers only); "
                              "the run did not measure OS noise")
