"""User quantities to exact engine units."""

from __future__ import annotations

import pytest

from cloudnoise.errors import CloudnoiseError
from cloudnoise.units import parse_duration_ns, parse_per_byte_fs, parse_size_bytes, parse_time_ps


@pytest.mark.parametrize(
    "text,ps",
    [("2500", 2_500_000), (2500, 2_500_000), ("2.5us", 2_500_000), ("80ps", 80), ("1.5ms", 1_500_000_000),
     ("0.5", 500), ("1s", 10**12), ("3 ns", 3000)],
)
def test_times(text, ps):
    assert parse_time_ps(text) == ps


@pytest.mark.parametrize(
    "text,fs",
    [("6", 6_000_000), ("0.08", 80_000), ("80ps", 80_000), ("100Gbit/s", 80_000), ("100Gb/s", 80_000),
     ("12.5GB/s", 80_000), ("25Gbit/s", 320_000), ("1", 1_000_000)],
)
def test_per_byte(text, fs):
    assert parse_per_byte_fs(text) == fs


def test_awkward_bandwidth_rounds_to_femtoseconds():
    # 78.74 Gb/s is 101.6 ps/byte: kept to the femtosecond.
    assert parse_per_byte_fs("78.74Gbit/s") == round(8 / 78.74e9 * 1e15)


@pytest.mark.parametrize("text", ["abc", "-5", "5 parsecs", "1e400", "", "100Gbit/h"])
def test_bad_quantities(text):
    with pytest.raises(CloudnoiseError):
        parse_per_byte_fs(text)


def test_sizes_and_durations():
    assert parse_size_bytes("512MiB") == 512 * 2**20
    assert parse_duration_ns("5us") == 5000
    with pytest.raises(CloudnoiseError):
        parse_duration_ns("0.5ns")
    with pytest.raises(CloudnoiseError):
        parse_time_ps("0.1ps")


# --- comma-separated option values ------------------------------------------

def test_comma_lists_known_answers() -> None:
    from cloudnoise.comma_lists import parse_counts, parse_items

    assert parse_items(" a, b ,c", "--systems") == ["a", "b", "c"]
    assert parse_counts("16,64,16_384", "--nodes") == [16, 64, 16384]
    assert parse_counts("0,-3", "--nodes", minimum=None) == [0, -3]


@pytest.mark.parametrize("text,message", [
    ("a,,b", "--x: empty item"), ("", "--x: empty item"), ("4,x", "--x takes whole numbers"), ("4,0", "--x: 0 is too small"),
])
def test_comma_lists_errors(text: str, message: str) -> None:
    from cloudnoise.comma_lists import parse_counts

    with pytest.raises(CloudnoiseError, match=message):
        parse_counts(text, "--x")
