"""The simulator inputs made from an artifact run as the authors' simulate.py
made them (profiles/artifact/authors_inputs.py), and what their simulator
reads of a concatenated OS-noise trace, against answers worked by hand and a
slow reference written from their lookup's rule."""

from __future__ import annotations

import lzma

import numpy as np
import pytest

from archives import tar_xz
from cloudnoise import _engine
from cloudnoise.errors import CloudnoiseError
from cloudnoise.measurement.imports.netgauge_reading import run_files
from cloudnoise.profiles.artifact.authors_inputs import (
    effective_trace, gap_ps_per_byte, latency_ps, os_trace_ps, serving_stretches,
)


def netgauge(rows_per_run: list[list[tuple[int, str]]]) -> bytes:
    """A noise file: runs, each with its own header."""
    out = []
    for rows in rows_per_run:
        out.append("#size\trtt")
        out += [f"{size}\t{rtt}" for size, rtt in rows]
    return ("\n".join(out) + "\n").encode()


def test_warm_up_rows_are_positions_0_to_20_of_every_1000():
    # Two runs of 1000 rows: rtt = the row's position (1..2000) in us.
    # Kept: positions 21..999 and 1021..1999 (position % 1000 > 20).
    runs = [[(1, f"{i + 1}.000000") for i in range(1000)], [(1, f"{i + 1001}.000000") for i in range(1000)]]
    lat = latency_ps(netgauge(runs))
    assert lat.size == 2 * 979
    assert lat[0] == 22 * 10**6 and lat[978] == 1000 * 10**6 and lat[979] == 1022 * 10**6


def test_picoseconds_are_truncated_and_gap_is_per_byte():
    rows = [[(16777216, "1800.537000")] * 30]
    gap = gap_ps_per_byte(netgauge(rows))
    # 1800.537 us = 1800537000 ps; / 16 MiB = 107.32 -> 107 ps/B
    assert gap.tolist() == [107] * 9
    lat = latency_ps(netgauge([[(1, "1.9075")] * 25]))
    assert lat.tolist() == [1907500] * 4


def test_a_row_cut_short_is_dropped_as_their_script_drops_it():
    data = netgauge([[(1, "2.0")] * 24]) + b"1"  # the file stops mid-row
    assert latency_ps(data).tolist() == [2000000] * 3


@pytest.mark.parametrize("data, words", [
    (b"", "no rows"),
    (b"#size\trtt\n", "no rows"),
    (b"#size\trtt\n1\tabc\n", "line 2: .* is not 2 numbers"),
    (b"#size\trtt\n" + b"1\t-1\n" * 30, "positive"),
])
def test_damaged_files_are_one_line_errors(data, words):
    with pytest.raises(CloudnoiseError, match=words) as err:
        latency_ps(data)
    assert "\n" not in str(err.value)


def test_os_trace_in_ps_truncated():
    s, d = os_trace_ps(b"# a header\n0.00\t6675.25\n9773.9004\t16926.1\n")
    assert s.tolist() == [0, 9773900] and d.tolist() == [6675250, 16926100]


def reference_noise(a: np.ndarray, d: np.ndarray, s: int, length: int) -> int:
    """Their lookup on the rows as one array, written from its rule: binary
    search, step to a[q] <= s < a[q+1], the rest of detour q, then every
    later row that starts before s + length (wrapping at the last row)."""
    n, T = a.size, int(a[-1])
    pos, end_last = 0, 0
    if s > a[0]:
        lo, hi = 0, n - 1
        while True:
            pos = (lo + hi) // 2
            if s > a[pos]:
                lo = pos + 1
            else:
                hi = pos - 1
            if not (s != a[pos] and lo < hi):
                break
        while not (a[pos] <= s < a[pos + 1]):
            pos += -1 if a[pos] > s else 1
        end_last = int(a[pos] + d[pos])
    noise = max(0, end_last - s)
    end = s + length
    while end > a[pos + 1]:
        pos += 1
        noise += int(d[pos])
        if pos == n - 1:
            end -= T
            pos = 0
    return noise


@pytest.mark.parametrize("runs", [2, 3])
def test_effective_trace_reads_what_their_lookup_reads(runs):
    # Runs of random detours, each starting again at 0, of different lengths.
    rng = np.random.default_rng(runs)
    starts, durations = [], []
    for k in range(runs):
        n = 400 + 37 * k
        s = np.concatenate([[0], np.sort(rng.integers(1, 10**9 + k * 10**7, n - 1))])
        starts.append(s)
        durations.append(rng.integers(1000, 400_000, n))
    a, d = np.concatenate(starts).astype(np.int64), np.concatenate(durations).astype(np.int64)
    es, ed = effective_trace(a, d)
    assert np.all(np.diff(es) >= 0) and es[-1] == a[-1]
    trace = _engine.OsNoiseTrace(es, ed)
    T = int(a[-1])
    stretch_starts, _, _ = serving_stretches(a)
    assert stretch_starts.size >= 2  # the runs do take turns
    crossing = 0
    for length in (0, 150_000, 3_000_000):
        for x in rng.integers(0, T - length, 3000):
            x = int(x)
            if reference_noise(a, d, x, length) != trace.noise(x, length):
                # only an activity crossing a stretch's start may differ (see effective_trace)
                assert np.any((stretch_starts > x) & (stretch_starts < x + length)), (x, length)
                crossing += 1
    assert crossing < 20


def test_a_sorted_trace_is_kept_as_it_is():
    a = np.array([0, 10, 20, 30], dtype=np.int64)
    d = np.array([1, 2, 3, 4], dtype=np.int64)
    es, ed = effective_trace(a, d)
    assert es.tolist() == a.tolist() and ed.tolist() == d.tolist()


def test_members_read_from_the_archive(tmp_path):
    path = tmp_path / "run.tar.xz"
    path.write_bytes(tar_xz({"a.out": b"1", "b.out": b"2", "c.out": b"3"}, "2022_01_01_00_00_00"))
    assert run_files(path, ("a.out", "c.out")) == {"a.out": b"1", "c.out": b"3"}
    with pytest.raises(CloudnoiseError, match="has no z.out"):
        run_files(path, ("z.out",))
    path.write_bytes(lzma.compress(b"not a tar")[:20])
    with pytest.raises(CloudnoiseError, match="not a Netgauge run folder nor a readable .tar.xz"):
        run_files(path, ("a.out",))
