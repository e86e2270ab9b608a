"""Parse durations and bandwidths written with units.

Every stage takes times and bandwidths from users and files; this module is the
one place that turns `2.5us`, `80ps`, `1.5s` or `100Gbit/s` into numbers, so a
typo gives the same one-line error everywhere.

Durations: a number with an optional unit `ps`, `ns`, `us` (or `µs`), `ms`,
`s`, `min`, `h`.  A plain number means `default_unit` (the caller says which:
seconds for job runtimes, nanoseconds for LogGOPS parameters).

Bandwidths: a number with a unit `bit/s`, `Kbit/s`, `Mbit/s`, `Gbit/s`,
`Tbit/s` (also `b/s`, `Gb/s`, `Gbps`), or bytes `B/s`, `KB/s`, `MB/s`, `GB/s`,
`KiB/s`, `MiB/s`, `GiB/s`.  Decimal prefixes are powers of 1000 (network
convention), binary ones (`Ki`, `Mi`, `Gi`) powers of 1024.
"""

from __future__ import annotations

import math
import re

from cloudnoise.errors import CloudnoiseError

# unit -> nanoseconds
DURATION_UNITS_NS: dict[str, float] = {
    "ps": 1e-3,
    "ns": 1.0,
    "us": 1e3,
    "µs": 1e3,
    "μs": 1e3,
    "ms": 1e6,
    "s": 1e9,
    "min": 60e9,
    "h": 3600e9,
}

# unit -> bytes per second
_BIT_PREFIX = {"": 1.0, "k": 1e3, "m": 1e6, "g": 1e9, "t": 1e12}
_BYTE_PREFIX = {
    "": 1.0,
    "k": 1e3,
    "m": 1e6,
    "g": 1e9,
    "t": 1e12,
    "ki": 1024.0,
    "mi": 1024.0**2,
    "gi": 1024.0**3,
    "ti": 1024.0**4,
}

_NUMBER = r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?"
_QUANTITY = re.compile(rf"^\s*({_NUMBER})\s*([^\d\s].*?)?\s*$")
_BANDWIDTH_UNIT = re.compile(r"^([kKmMgGtT]i?)?(bit|b|B)(/s|ps)$")


def _split(text: str, what: str) -> tuple[float, str]:
    match = _QUANTITY.match(str(text))
    if not match:
        raise CloudnoiseError(f"cannot read {what} {text!r}: expected a number with an optional unit")
    value = float(match.group(1))
    if not math.isfinite(value):
        raise CloudnoiseError(f"{what} {text!r} is not finite")
    return value, (match.group(2) or "")


def parse_duration_ns(text: str | float | int, default_unit: str = "ns") -> float:
    """A duration in nanoseconds, e.g. `2.5us` -> 2500.0; plain numbers are in `default_unit`."""
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        value, unit = float(text), ""
    else:
        value, unit = _split(str(text), "duration")
    unit = unit or default_unit
    if unit not in DURATION_UNITS_NS:
        known = ", ".join(DURATION_UNITS_NS)
        raise CloudnoiseError(f"unknown time unit {unit!r} in {text!r}: use one of {known}")
    return value * DURATION_UNITS_NS[unit]


def parse_duration_s(text: str | float | int, default_unit: str = "s") -> float:
    """A duration in seconds, e.g. `200ms` -> 0.2; plain numbers are in `default_unit`."""
    return parse_duration_ns(text, default_unit) / 1e9


def parse_positive_duration_s(text: str | float | int, what: str = "runtime") -> float:
    """Like parse_duration_s, but rejects zero and negative values with a message naming `what`."""
    seconds = parse_duration_s(text)
    if seconds <= 0:
        raise CloudnoiseError(f"{what} must be positive, got {text!r}")
    return seconds


def parse_bandwidth_bytes_per_s(text: str | float | int) -> float:
    """A bandwidth in bytes per second, e.g. `100Gbit/s` -> 1.25e10; a unit is required."""
    value, unit = _split(str(text), "bandwidth")
    compact = unit.replace(" ", "")
    match = _BANDWIDTH_UNIT.match(compact)
    if not match:
        raise CloudnoiseError(
            f"unknown bandwidth unit in {text!r}: write e.g. 100Gbit/s, 25Gb/s, 12.5GB/s or 10GiB/s"
        )
    prefix = (match.group(1) or "").lower()
    base = match.group(2)
    # `B` is bytes; `b`, `bit` and `bps` are bits (so `Gb/s` is gigabits, `GB/s` gigabytes).
    if base == "B":
        factor = _BYTE_PREFIX[prefix]
    else:
        if prefix not in _BIT_PREFIX:
            raise CloudnoiseError(f"binary prefixes are for bytes, not bits, in {text!r}: write e.g. 10GiB/s")
        factor = _BIT_PREFIX[prefix] / 8.0
    if value <= 0:
        raise CloudnoiseError(f"bandwidth must be positive, got {text!r}")
    return value * factor


def bandwidth_to_G_ns_per_byte(text: str | float | int) -> float:
    """The LogGP gap per byte G (ns/byte) of a bandwidth, e.g. `100Gbit/s` -> 0.08."""
    return 1e9 / parse_bandwidth_bytes_per_s(text)


def gbit_s_to_G_ns_per_byte(gbit_per_s: float) -> float:
    """G in ns/byte for a bandwidth in Gbit/s (8 bits per byte, 1 Gbit/s = 0.125 byte/ns)."""
    if gbit_per_s <= 0:
        raise CloudnoiseError(f"bandwidth must be positive, got {gbit_per_s} Gbit/s")
    return 8.0 / gbit_per_s


def format_duration_s(seconds: float) -> str:
    """A short human form of a duration in seconds: `1.50 s`, `200 ms`, `3.00 us`."""
    a = abs(seconds)
    if a >= 3600:
        return f"{seconds / 3600:.3g} h"
    if a >= 1:
        return f"{seconds:.3g} s"
    if a >= 1e-3:
        return f"{seconds * 1e3:.3g} ms"
    if a >= 1e-6:
        return f"{seconds * 1e6:.3g} us"
    return f"{seconds * 1e9:.3g} ns"
