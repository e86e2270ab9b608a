"""Byte counts and durations as users type them for schedule generation.

Schedgen takes plain integers (bytes, nanoseconds); people think in `16MiB`
and `5us`. These parsers accept both and fail with one line that says what
would have been accepted, so a typo never silently becomes another size.
Conventions match the rest of cloudnoise: KiB/MiB/GiB are powers of two,
KB/MB/GB powers of ten.
"""

from __future__ import annotations

import re
from fractions import Fraction

from cloudnoise.errors import CloudnoiseError

SIZE_UNITS: dict[str, int] = {
    "": 1,
    "B": 1,
    "KiB": 2**10,
    "MiB": 2**20,
    "GiB": 2**30,
    "TiB": 2**40,
    "kB": 10**3,
    "KB": 10**3,
    "MB": 10**6,
    "GB": 10**9,
    "TB": 10**12,
}

TIME_UNITS_NS: dict[str, Fraction] = {
    "": Fraction(1),
    "ns": Fraction(1),
    "us": Fraction(1000),
    "ms": Fraction(10**6),
    "s": Fraction(10**9),
}

_QUANTITY = re.compile(r"^\s*([0-9]+(?:\.[0-9]*)?|\.[0-9]+)\s*([A-Za-z]*)\s*$")


def _split(text: str, what: str, example: str) -> tuple[Fraction, str]:
    match = _QUANTITY.match(text)
    if match is None:
        raise CloudnoiseError(f"{what}: cannot read {text!r}; write a number with an optional unit, e.g. {example}")
    return Fraction(match.group(1)), match.group(2)


def parse_size(text: str | int, what: str = "size") -> int:
    """Bytes from `16`, `16B`, `128KiB`, `16MiB`, `512MiB`, `1.5GiB` (whole bytes only)."""
    if isinstance(text, bool):
        raise CloudnoiseError(f"{what}: expected a byte count, got {text!r}")
    if isinstance(text, int):
        value, unit = Fraction(text), ""
        if text < 0:
            raise CloudnoiseError(f"{what}: must not be negative, got {text}")
    else:
        value, unit = _split(str(text), what, "16MiB")
    if unit not in SIZE_UNITS:
        known = ", ".join(u for u in SIZE_UNITS if u)
        raise CloudnoiseError(f"{what}: unknown size unit {unit!r} in {text!r} (use {known})")
    nbytes = value * SIZE_UNITS[unit]
    if nbytes.denominator != 1:
        raise CloudnoiseError(f"{what}: {text!r} is not a whole number of bytes")
    return int(nbytes)


def parse_duration_ns(text: str | int, what: str = "duration") -> int:
    """Nanoseconds from `5000`, `5000ns`, `5us`, `1.5ms` (plain numbers are ns, Schedgen's unit)."""
    if isinstance(text, bool):
        raise CloudnoiseError(f"{what}: expected a duration, got {text!r}")
    if isinstance(text, int):
        if text < 0:
            raise CloudnoiseError(f"{what}: must not be negative, got {text}")
        return text
    value, unit = _split(str(text), what, "5us")
    if unit not in TIME_UNITS_NS:
        known = ", ".join(u for u in TIME_UNITS_NS if u)
        raise CloudnoiseError(f"{what}: unknown time unit {unit!r} in {text!r} (use {known})")
    ns = value * TIME_UNITS_NS[unit]
    if ns.denominator != 1:
        raise CloudnoiseError(f"{what}: {text!r} is not a whole number of nanoseconds")
    return int(ns)
