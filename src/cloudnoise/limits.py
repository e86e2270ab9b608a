"""The ranges every input is checked against, where it enters.

The engine counts time in int64 picoseconds: 2^63 ps is about 106 days of
simulated time. An input beyond what any real system or run has would
overflow that range somewhere downstream and come out as a silently wrong
number (a negative runtime, a wrapped sum), so every time, size, count and
rate a user, a profile, a trace or a samples file gives is checked against
the limits below as it is read, with a message that names the value, where
it came from, and the limit. The C++ readers check the same limits
(src/engine/input_limits.hpp; tests/hostile/test_limits.py keeps the two
equal), and the engine's own arithmetic on times is checked for overflow.

The limits leave room to spare: one input time of at most 10^5 s (27.8 h)
can be added ninety times over before the int64 range ends.
"""

from __future__ import annotations

import math

from cloudnoise.errors import CloudnoiseError, shown

# -- simulated time --------------------------------------------------------

INT64_MAX = 2**63 - 1
# One input time: a LogGOPS L, o or g, a calc, a latency sample or excess, an
# OS-noise detour's start or duration, a phase, a runtime to simulate.
MAX_TIME_PS = 10**17  # 10^5 s, about 27.8 hours
MAX_TIME_NS = MAX_TIME_PS // 1000
# A per-byte time (LogGP's G and O): 1 ms per byte is 8 kbit/s.
MAX_PER_BYTE_FS = 10**12
# The least bandwidth a message may get, as a fraction of the peak
# (bandwidth noise): a message sent at a millionth of the peak is already
# a broken link, and G / fraction must stay in range.
MIN_BANDWIDTH_FRACTION = 1e-6

# -- sizes and counts ------------------------------------------------------

MAX_SIZE_BYTES = 2**53  # one message (the GOAL reader's limit too): 8 PiB
MAX_RANKS = 2**29 - 1  # the engine's per-op host field
MAX_REPS = 2**32  # Monte Carlo repetitions of one configuration
MAX_THREADS = 4096
# An application's iterations: every collective phase of every iteration gets its own
# message tags, and the engine's generator takes a 64-bit count; far beyond any run.
MAX_APP_ITERATIONS = 2**31 - 1

# -- noise -----------------------------------------------------------------

# Synthetic OS noise is expanded into a trace of this many detours at most
# (16 bytes each, plus temporaries): rate x trace length. 10^7 detours in a
# 10-second trace is one every microsecond, far noisier than any system.
MAX_SYNTHETIC_DETOURS = 10**7
# Bandwidth drops that persist (model/bandwidth_episodes.py): the least fraction of the
# peak an episode may hold (the engine's kMinEpisodeFraction), and the most episodes
# one generated table may hold.
MIN_EPISODE_FRACTION = 1e-3
MAX_EPISODES = 10**6
# Samples files (latency, bandwidth): at most this many samples are kept in
# memory at once (8 bytes each).
MAX_SAMPLES = 2**28

# -- money -----------------------------------------------------------------

MAX_PRICE_PER_NODE_HOUR = 10**6  # USD; no node costs a million dollars an hour
# A runtime to price (cost): far beyond any job, still finite in float64.
MAX_COST_RUNTIME_S = 10**9  # about 31.7 years


def _where(source: str) -> str:
    return f"{source}: " if source else ""


def check_finite(value: float, what: str, source: str = "") -> float:
    """`value` as a float; NaN, infinity or a non-number is an error naming it and its source."""
    if isinstance(value, bool):
        raise CloudnoiseError(f"{_where(source)}{what} must be a number, got {shown(value)}")
    try:
        x = float(value)
    except (TypeError, ValueError, OverflowError):
        raise CloudnoiseError(f"{_where(source)}{what} must be a number, got {shown(value)}") from None
    if not math.isfinite(x):
        raise CloudnoiseError(f"{_where(source)}{what} must be a finite number, got {shown(value)}")
    return x


def check_range(value: float, what: str, low: float, high: float, source: str = "", unit: str = "",
                low_open: bool = False) -> float:
    """`value` finite and within [low, high] (or (low, high] with `low_open`), else an error
    naming the value, its source and the range."""
    x = check_finite(value, what, source)
    below = x <= low if low_open else x < low
    if below or x > high:
        u = f" {unit}" if unit else ""
        bracket = "(" if low_open else "["
        raise CloudnoiseError(
            f"{_where(source)}{what} = {shown(value)}{u} is out of range: it must lie in {bracket}{low:g}, {high:g}]{u}"
        )
    return x


def check_time_ns(value: float, what: str, source: str = "") -> float:
    """A simulated time in ns: finite, >= 0, at most MAX_TIME_NS."""
    x = check_finite(value, what, source)
    if x < 0:
        raise CloudnoiseError(f"{_where(source)}{what} must not be negative, got {shown(value)} ns")
    if x > MAX_TIME_NS:
        raise CloudnoiseError(
            f"{_where(source)}{what} = {shown(value)} ns is too large: at most {MAX_TIME_NS:.3g} ns "
            f"({MAX_TIME_PS / 1e12:.3g} s), the limit of one simulated time"
        )
    return x


def check_count(value: object, what: str, low: int, high: int, source: str = "") -> int:
    """A whole number in [low, high] (bool and float are not counts)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise CloudnoiseError(f"{_where(source)}{what} must be a whole number, got {shown(value)}")
    if not low <= value <= high:
        raise CloudnoiseError(f"{_where(source)}{what} = {shown(value)} is out of range: it must lie in [{low}, {high}]")
    return value


def check_fraction(value: float, what: str, source: str = "") -> float:
    """A bandwidth fraction of the peak: in [MIN_BANDWIDTH_FRACTION, 1]."""
    x = check_finite(value, what, source)
    if not (0 < x <= 1):
        raise CloudnoiseError(
            f"{_where(source)}{what} = {shown(value)} is not a fraction of the peak bandwidth: it must lie in (0, 1]"
        )
    if x < MIN_BANDWIDTH_FRACTION:
        raise CloudnoiseError(
            f"{_where(source)}{what} = {shown(value)} is below {MIN_BANDWIDTH_FRACTION:g} of the peak bandwidth, "
            "the least a message may get"
        )
    return x
