"""Property tests of the command-line value parsers (sizes, times, bandwidths, durations):
any string gives a value in range or one expected error, and the values they give are the
exact ones the units define (a `hypothesis` property test for the CLI's parsers)."""

from __future__ import annotations

import math
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from cloudnoise import limits
from cloudnoise.errors import CloudnoiseError
from cloudnoise.units import parse_per_byte_fs, parse_size_bytes, parse_time_ps, parse_wall_seconds

TIME_UNITS = {"ps": 1, "ns": 10**3, "us": 10**6, "ms": 10**9, "s": 10**12}
SIZE_UNITS = {"B": 1, "KiB": 2**10, "MiB": 2**20, "GiB": 2**30, "KB": 10**3, "MB": 10**6, "GB": 10**9, "M": 2**20}
RATE_UNITS = {"Gbit/s": 10**9, "Mbit/s": 10**6, "GB/s": 8 * 10**9, "MiB/s": 8 * 2**20}

ANY_TEXT = st.one_of(
    st.text(max_size=40),
    st.from_regex(r"[-+]?[0-9]{0,30}(\.[0-9]{0,30})?([eE][-+]?[0-9]{1,5})?\s?[A-Za-zµ/]{0,7}", fullmatch=True),
)


def _engine_units(exact: Fraction, limit: int) -> int | None:
    """What a parser must give for the exact value: the nearest whole engine unit (ps, fs),
    or a refusal beyond the limit or where rounding would change the value by more than
    0.1% (docs/reference/conventions.md: finer than the engine's resolution is refused, not rounded away)."""
    nearest = round(exact)
    if exact > limit or abs(nearest - exact) > max(exact, 1) / 1000:
        return None
    return nearest


def _outcome(parse, text):
    try:
        return parse(text)
    except CloudnoiseError as err:
        assert str(err).strip()
        return None


@settings(max_examples=2000, deadline=None)
@given(ANY_TEXT)
def test_any_text_is_a_value_in_range_or_one_error(text):
    ps = _outcome(parse_time_ps, text)
    assert ps is None or (isinstance(ps, int) and 0 <= ps <= limits.MAX_TIME_PS)
    size = _outcome(parse_size_bytes, text)
    assert size is None or (isinstance(size, int) and 0 <= size <= limits.MAX_SIZE_BYTES)
    fs = _outcome(parse_per_byte_fs, text)
    assert fs is None or (isinstance(fs, int) and 0 <= fs <= limits.MAX_PER_BYTE_FS)
    seconds = _outcome(parse_wall_seconds, text)
    assert seconds is None or (math.isfinite(seconds) and seconds > 0)


@given(st.integers(0, 10**6), st.integers(0, 999), st.sampled_from(sorted(TIME_UNITS)))
def test_times_are_exact(whole, thousandths, unit):
    text = f"{whole}.{thousandths:03d}{unit}"
    exact = Fraction(whole * 1000 + thousandths, 1000) * TIME_UNITS[unit]
    assert _outcome(parse_time_ps, text) == _engine_units(exact, limits.MAX_TIME_PS)


@given(st.integers(0, 2**40), st.sampled_from(sorted(SIZE_UNITS)))
def test_sizes_are_exact_and_MB_is_decimal(count, unit):
    text = f"{count}{unit}"
    exact = count * SIZE_UNITS[unit]
    assert _outcome(parse_size_bytes, text) == (exact if exact <= limits.MAX_SIZE_BYTES else None)


@given(st.integers(1, 10**6), st.sampled_from(sorted(RATE_UNITS)))
def test_a_bandwidth_is_the_inverse_of_its_time_per_byte(rate, unit):
    fs = Fraction(8 * 10**15, rate * RATE_UNITS[unit])
    assert _outcome(parse_per_byte_fs, f"{rate}{unit}") == _engine_units(fs, limits.MAX_PER_BYTE_FS)


@given(st.integers(1, 365 * 86400))
def test_a_plain_number_means_the_same_unit_in_every_time(n):
    """Plain numbers are nanoseconds for simulated times, seconds for wall-clock durations."""
    assert parse_time_ps(str(n)) == parse_time_ps(f"{n}ns") == n * 1000
    assert parse_wall_seconds(str(n)) == parse_wall_seconds(f"{n}s")
