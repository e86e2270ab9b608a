"""Quantities with units, as users type them: `2.5us`, `80ps`, `16MiB`,
`100Gbit/s`. Everything is converted to the engine's exact integer units
(picoseconds for times, femtoseconds per byte for G and O, bytes for sizes)
with `fractions.Fraction`, so `0.08` ns/byte really is 80 ps/byte.
"""

from __future__ import annotations

import re
from fractions import Fraction

from cloudnoise import limits
from cloudnoise.errors import CloudnoiseError, shown

_NUMBER = r"(?P<sign>[-+]?)(?P<num>(?P<mantissa>[0-9]*\.?[0-9]+)(?:[eE](?P<exp>[-+]?[0-9]+))?)"
# A number longer or with a larger exponent than this is no quantity anyone
# means, and an exact Fraction of it (10**10**9) would not fit in memory.
_MAX_MANTISSA_CHARS = 64
_MAX_EXPONENT = 400

# Seconds per unit.
_TIME_UNITS: dict[str, Fraction] = {
    "ps": Fraction(1, 10**12),
    "ns": Fraction(1, 10**9),
    "us": Fraction(1, 10**6),
    "µs": Fraction(1, 10**6),
    "ms": Fraction(1, 10**3),
    "s": Fraction(1),
    "min": Fraction(60),
    "h": Fraction(3600),
}

# Bytes per unit.
_SIZE_UNITS: dict[str, int] = {
    "": 1,
    "b": 1,
    "B": 1,
    "kB": 10**3,
    "KB": 10**3,
    "MB": 10**6,
    "GB": 10**9,
    "TB": 10**12,
    "KiB": 2**10,
    "MiB": 2**20,
    "GiB": 2**30,
    "TiB": 2**40,
    "K": 2**10,
    "M": 2**20,
    "G": 2**30,
}

# Bits per second per unit (bandwidths).
_RATE_UNITS: dict[str, Fraction] = {
    "bit/s": Fraction(1),
    "Kbit/s": Fraction(10**3),
    "Mbit/s": Fraction(10**6),
    "Gbit/s": Fraction(10**9),
    "Tbit/s": Fraction(10**12),
    "b/s": Fraction(1),
    "Kb/s": Fraction(10**3),
    "Mb/s": Fraction(10**6),
    "Gb/s": Fraction(10**9),
    "Gbps": Fraction(10**9),
    "Mbps": Fraction(10**6),
    "B/s": Fraction(8),
    "KB/s": Fraction(8 * 10**3),
    "MB/s": Fraction(8 * 10**6),
    "GB/s": Fraction(8 * 10**9),
    "KiB/s": Fraction(8 * 2**10),
    "MiB/s": Fraction(8 * 2**20),
    "GiB/s": Fraction(8 * 2**30),
}


def _split(text: str, what: str) -> tuple[Fraction, str]:
    m = re.fullmatch(_NUMBER + r"\s*(?P<unit>[A-Za-zµ/]*)", str(text).strip())
    if not m:
        raise CloudnoiseError(f"{what}: cannot read {shown(text)} (expected a number with an optional unit)")
    if len(m.group("mantissa")) > _MAX_MANTISSA_CHARS or abs(int(m.group("exp") or 0)) > _MAX_EXPONENT:
        raise CloudnoiseError(f"{what}: {shown(text)} is out of range")
    if m.group("sign") == "-" and Fraction(m.group("num")) != 0:
        raise CloudnoiseError(f"{what} must not be negative, got {shown(text)}")
    return Fraction(m.group("num")), m.group("unit")


def parse_time_ps(
    text: str | float | int, what: str = "time", default_unit: str = "ns", limit_ps: int = limits.MAX_TIME_PS
) -> int:
    """A duration in picoseconds; plain numbers are in `default_unit`; at most `limit_ps`."""
    text = _as_text(text, what)
    value, unit = _split(text, what)
    unit = unit or default_unit
    if unit not in _TIME_UNITS:
        raise CloudnoiseError(f"{what}: unknown time unit {unit!r} in {shown(text)} (use ps, ns, us, ms, s, min or h)")
    ps = value * _TIME_UNITS[unit] * 10**12
    if ps > limit_ps:
        raise CloudnoiseError(
            f"{what}: {shown(text)} is too large: at most {format_time_ps(limit_ps)} "
            f"({limit_ps:.3g} ps; see docs/reference/conventions.md, limits)"
        )
    return _to_int(ps, what, text, "ps")


def parse_per_byte_fs(text: str | float | int, what: str = "G") -> int:
    """A per-byte time (LogGP's G or O) in femtoseconds per byte.

    Plain numbers are nanoseconds per byte (`6`, `0.08`); a time unit gives
    the time per byte (`80ps`); a bandwidth gives its inverse
    (`100Gbit/s` is 80 ps/byte, `12.5GB/s` likewise).
    """
    text = _as_text(text, what)
    value, unit = _split(text, what)
    if unit in _RATE_UNITS:
        bits_per_s = value * _RATE_UNITS[unit]
        if bits_per_s <= 0:
            raise CloudnoiseError(f"{what}: bandwidth must be positive, got {text!r}")
        fs = Fraction(8, 1) / bits_per_s * 10**15
    else:
        unit = unit or "ns"
        if unit not in _TIME_UNITS:
            raise CloudnoiseError(
                f"{what}: unknown unit {unit!r} in {text!r} (a time per byte such as 6 or 80ps, "
                "or a bandwidth such as 100Gbit/s)"
            )
        fs = value * _TIME_UNITS[unit] * 10**15
    if fs > limits.MAX_PER_BYTE_FS:
        raise CloudnoiseError(
            f"{what}: {shown(text)} per byte is too slow: at most {limits.MAX_PER_BYTE_FS // 10**12} ms per byte "
            "(8 kbit/s)"
        )
    return _to_int(fs, what, text, "fs")


def parse_size_bytes(text: str | int, what: str = "size") -> int:
    """A byte count: `16`, `16B`, `128KiB`, `16MiB`, `1.5GB`."""
    if isinstance(text, bool):
        raise CloudnoiseError(f"{what}: expected a byte count, got {text!r}")
    if isinstance(text, int):
        if text < 0:
            raise CloudnoiseError(f"{what} must not be negative, got {text}")
        b: Fraction | int = text
    else:
        value, unit = _split(_as_text(text, what), what)
        if unit not in _SIZE_UNITS:
            raise CloudnoiseError(
                f"{what}: unknown size unit {unit!r} in {shown(text)} (use B, KiB, MiB, GiB, KB, MB, GB)"
            )
        b = value * _SIZE_UNITS[unit]
        if b.denominator != 1:
            raise CloudnoiseError(f"{what}: {shown(text)} is not a whole number of bytes")
    if b > limits.MAX_SIZE_BYTES:
        raise CloudnoiseError(
            f"{what}: {shown(text)} bytes is too large: at most 2^53 bytes (8 PiB), the limit of one message"
        )
    return int(b)


def parse_duration_ns(text: str | int, what: str = "duration") -> int:
    """Whole nanoseconds (Schedgen's unit): `5000`, `5us`, `1.5ms`."""
    if isinstance(text, bool):
        raise CloudnoiseError(f"{what}: expected a duration, got {text!r}")
    ps = parse_time_ps(text, what)
    if ps % 1000:
        raise CloudnoiseError(f"{what}: {text!r} is not a whole number of nanoseconds")
    return ps // 1000


def _as_text(text: object, what: str) -> str:
    """User input as text: numbers by their repr (so `nan` and `inf` are read, and refused, as such)."""
    if isinstance(text, bool):
        raise CloudnoiseError(f"{what}: expected a quantity, got {text!r}")
    if isinstance(text, (int, float)):
        return repr(text)
    if not isinstance(text, str):
        raise CloudnoiseError(f"{what}: expected a quantity such as 2.5us or 16MiB, got {shown(text)}")
    return text


def _to_int(value: Fraction, what: str, text: object, unit: str) -> int:
    if value < 0:
        raise CloudnoiseError(f"{what} must not be negative, got {shown(text)}")
    rounded = round(value)
    if rounded >= 2**62:
        raise CloudnoiseError(f"{what}: {shown(text)} is too large")
    if rounded != value and abs(rounded - value) > Fraction(1, 1000) * max(abs(value), 1):
        raise CloudnoiseError(f"{what}: {shown(text)} is finer than 1 {unit}, the engine's resolution")
    return int(rounded)


def format_time_ps(ps: float) -> str:
    """A readable duration: `12.3 us`."""
    for unit, scale in (("s", 10**12), ("ms", 10**9), ("us", 10**6), ("ns", 10**3)):
        if abs(ps) >= scale:
            return f"{ps / scale:.4g} {unit}"
    return f"{ps:.4g} ps"


_WALL_UNITS: dict[str, float] = {"": 1.0, "s": 1.0, "ms": 1e-3, "m": 60.0, "min": 60.0, "h": 3600.0, "d": 86400.0}
_WALL = re.compile(r"^\s*(?P<num>[-+]?[0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*(?P<unit>[a-z]*)\s*$")


def format_size(size: int) -> str:
    """A byte count as people write it: 16 B, 2 KiB, 1.5 MiB (binary units, as Schedgen's sizes)."""
    for unit, factor in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if size >= factor:
            return f"{size / factor:.4g} {unit}"
    return f"{size} B"


def parse_wall_seconds(text: str | float | int, what: str = "--duration") -> float:
    """A wall-clock duration of something cloudnoise runs, in seconds: a plain
    number is seconds; `500ms`, `10m` (or `10min`), `1h`, `1d` are accepted. It
    must be finite and positive: zero, negative, NaN and infinity are errors."""
    if isinstance(text, bool):
        raise CloudnoiseError(f"{what}: expected a duration, got {text!r}")
    if isinstance(text, (int, float)):
        seconds = float(text)
    else:
        m = _WALL.match(str(text))
        if not m or m.group("unit") not in _WALL_UNITS:
            raise CloudnoiseError(f"{what}: {text!r} is not a duration; use seconds or a unit: 90, 500ms, 10m, 1h, 1d")
        seconds = float(m.group("num")) * _WALL_UNITS[m.group("unit")]
    if not seconds > 0 or seconds == float("inf"):
        raise CloudnoiseError(f"{what} must be a positive, finite duration, got {text!r}")
    if seconds > 366 * 86400:
        raise CloudnoiseError(f"{what}: {text!r} is longer than a year")
    return seconds
