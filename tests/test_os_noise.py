"""Known answers for OS noise traces: format, periodic and random generators."""

from __future__ import annotations

import numpy as np
import pytest

from cloudnoise.errors import CloudnoiseError
from cloudnoise.model.distributions import parse_distribution
from cloudnoise.model.os_noise import (
    OSNoiseTrace,
    parse_os_noise_spec,
    periodic_trace,
    random_trace,
    read_trace,
    write_trace,
)


def test_round_trip(tmp_path):
    trace = OSNoiseTrace(np.array([0, 1_000, 2_500_000_000], np.int64), np.array([17, 0, 123_456], np.int64))
    path = tmp_path / "noise.txt"
    write_trace(path, trace, comment="synthetic\nfor a test")
    text = path.read_text()
    assert text.startswith("# synthetic\n# for a test\n")
    assert "1000\t0\n" in text
    starts, durations = read_trace(path)
    assert starts.dtype == np.int64 and durations.dtype == np.int64
    np.testing.assert_array_equal(starts, trace.starts)
    np.testing.assert_array_equal(durations, trace.durations)


def test_reader_tolerates_comments_blank_lines_and_spaces(tmp_path):
    path = tmp_path / "t.txt"
    path.write_text("# netgauge selfish\n\n100\t5\n   \n200 7\n# end\n50\t1\n")
    trace = read_trace(path)
    np.testing.assert_array_equal(trace.starts, [50, 100, 200])  # sorted by start
    np.testing.assert_array_equal(trace.durations, [1, 5, 7])


@pytest.mark.parametrize(
    "body, line, words",
    [
        ("1\t2\n3\n", 2, "2 fields"),
        ("1\t2\n3\t4\t5\n", 2, "2 fields"),
        ("# c\n1.5\t2\n", 2, "integer nanoseconds"),
        ("1\tx\n", 1, "integer nanoseconds"),
        ("1\t2\n\n-4\t2\n", 3, "negative"),
    ],
)
def test_reader_rejects_garbage_with_file_and_line(tmp_path, body, line, words):
    path = tmp_path / "bad.txt"
    path.write_text(body)
    with pytest.raises(CloudnoiseError) as err:
        read_trace(path)
    assert str(err.value).startswith(f"{path}:{line}: ")
    assert words in str(err.value)


def _by_line(path):
    """The trace read line by line, the reference the block reader must give back."""
    starts, durations = [], []
    for line in path.read_text(encoding="utf-8-sig").split("\n"):
        line = line.strip()
        if line and not line.startswith("#"):
            a, b = line.split()
            starts.append(int(a))
            durations.append(int(b))
    order = np.argsort(starts, kind="stable")
    return np.asarray(starts, np.int64)[order], np.asarray(durations, np.int64)[order]


@pytest.mark.parametrize("block", [7, 64, 1 << 20])
def test_reader_reads_blocks_of_lines_as_line_by_line(tmp_path, monkeypatch, block):
    """Plain blocks are parsed at once, others line by line: the same detours whatever the
    block size, with comments, blank lines, CRLF, a BOM, spaces and no final newline."""
    import cloudnoise.model.os_noise as os_noise

    monkeypatch.setattr(os_noise, "TRACE_BLOCK_BYTES", block)
    rng = np.random.default_rng(3)
    starts = np.cumsum(rng.integers(1, 10**6, 2000))
    durations = rng.integers(0, 10**4, 2000)
    rows = [f"{a}\t{b}" for a, b in zip(starts.tolist(), durations.tolist())]
    rows[10] = "# a comment in the middle"
    rows[500] = ""
    rows[501] = f"  {starts[501]}   {durations[501]}  "
    rows[1200] = f"{starts[1200]}\t{durations[1200]}\r"
    path = tmp_path / "t.txt"
    path.write_bytes(b"\xef\xbb\xbf" + "\n".join(rows).encode())  # a BOM, no newline at the end
    trace = read_trace(path)
    want_s, want_d = _by_line(path)
    assert len(trace) == 1998
    np.testing.assert_array_equal(trace.starts, want_s)
    np.testing.assert_array_equal(trace.durations, want_d)


@pytest.mark.parametrize("block", [16, 1 << 20])
def test_reader_says_the_line_of_garbage_in_a_later_block(tmp_path, monkeypatch, block):
    import cloudnoise.model.os_noise as os_noise

    monkeypatch.setattr(os_noise, "TRACE_BLOCK_BYTES", block)
    rows = [f"{100 * i}\t{i}" for i in range(300)]
    rows[257] = "25700\t-3"
    path = tmp_path / "bad.txt"
    path.write_text("\n".join(rows) + "\n")
    with pytest.raises(CloudnoiseError, match=rf"^{path}:258: .*negative"):
        read_trace(path)


@pytest.mark.parametrize("block", [64, 1 << 20])
def test_reader_refuses_a_line_too_long_as_it_reads_it(tmp_path, monkeypatch, block):
    """A line of 50 MB of digits and no newline is said at once (its line), not read whole first."""
    import cloudnoise.model.os_noise as os_noise

    monkeypatch.setattr(os_noise, "TRACE_BLOCK_BYTES", block)
    path = tmp_path / "long.txt"
    with open(path, "wb") as fh:
        fh.write(b"# header\n10\t2\n")
        fh.write(b"7" * 50_000_000)
    read = []
    real_open = open

    class Counting:
        """The file as opened, counting the bytes read from it."""

        def __init__(self, fh):
            self.fh = fh

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.fh.close()

        def seek(self, at):
            return self.fh.seek(at)

        def read(self, n=-1):
            got = self.fh.read(n)
            read.append(len(got))
            return got

    monkeypatch.setattr("builtins.open", lambda *a, **k: Counting(real_open(*a, **k)))
    with pytest.raises(CloudnoiseError, match=rf"^{path}:3: a line of more than 4096 bytes"):
        read_trace(path)
    assert 0 < sum(read) <= 4096 + 3 * max(block, 4096)  # stopped within a few blocks, not at 50 MB


def test_reader_checks_the_limits_in_plain_blocks(tmp_path):
    """Values a plain block holds are checked as the line-by-line reader checks them: a detour
    that ends past the limit, and detours that add up past it."""
    from cloudnoise import limits

    path = tmp_path / "late.txt"
    path.write_text(f"1\t2\n{limits.MAX_TIME_NS}\t5\n")
    with pytest.raises(CloudnoiseError, match=rf"^{path}:2: .*ends after"):
        read_trace(path)
    big = limits.MAX_TIME_NS // 3  # three of them fit, the fourth is too many
    path.write_text("".join(f"{i}\t{big}\n" for i in range(6)))
    with pytest.raises(CloudnoiseError, match=rf"^{path}:4: .*add up to more than"):
        read_trace(path)


def test_missing_trace_file(tmp_path):
    with pytest.raises(CloudnoiseError, match="no such OS noise trace"):
        read_trace(tmp_path / "nope.txt")


def test_periodic_exact_count_and_spacing():
    trace = periodic_trace(frequency_hz=1000, duration_ns=25_000, length_ns=1e9)
    assert len(trace) == 1000
    assert trace.starts[0] == 0 and trace.starts[-1] == 999_000_000
    assert np.all(np.diff(trace.starts) == 1_000_000)
    assert np.all(trace.durations == 25_000)
    assert trace.noise_fraction(10**9) == pytest.approx(0.025)


def test_periodic_phase_and_no_drift():
    trace = periodic_trace(frequency_hz=3, duration_ns=10, length_ns=1e9, phase_ns=1)
    np.testing.assert_array_equal(trace.starts, [1, 333_333_334, 666_666_668])
    long = periodic_trace(frequency_hz=3, duration_ns=10, length_ns=3600e9)
    assert len(long) == 3 * 3600
    assert long.starts[-1] == round((3 * 3600 - 1) * 1e9 / 3)


def test_periodic_rejects_impossible():
    with pytest.raises(CloudnoiseError, match="shorter than the period"):
        periodic_trace(frequency_hz=1000, duration_ns=2e6, length_ns=1e9)
    with pytest.raises(CloudnoiseError, match="positive frequency"):
        periodic_trace(frequency_hz=0, duration_ns=1, length_ns=1e9)


def test_random_trace_is_poisson_reproducible_and_non_overlapping():
    dur = parse_distribution("lognormal:median=5us,sigma=0.5")
    a = random_trace(1000, dur, 10e9, np.random.default_rng(11))
    b = random_trace(1000, dur, 10e9, np.random.default_rng(11))
    np.testing.assert_array_equal(a.starts, b.starts)
    np.testing.assert_array_equal(a.durations, b.durations)
    assert abs(len(a) - 10_000) < 5 * 100  # Poisson(10000): sd 100
    assert np.all(a.starts[1:] >= a.starts[:-1] + a.durations[:-1])
    assert np.median(a.durations) == pytest.approx(5000, rel=0.05)


def test_random_trace_merges_overlaps():
    dur = parse_distribution("constant:value=1ms")
    trace = random_trace(10_000, dur, 1e9, np.random.default_rng(0))  # 10 detours/ms of 1 ms each
    assert np.all(trace.starts[1:] >= trace.starts[:-1] + trace.durations[:-1])
    assert trace.durations.max() > 1_000_000


def test_os_noise_specs():
    periodic = parse_os_noise_spec("periodic:frequency=100Hz,duration=10us,phase=1ms")
    t = periodic.trace(1e8)
    np.testing.assert_array_equal(t.starts, [1_000_000 + k * 10_000_000 for k in range(10)])
    assert np.all(t.durations == 10_000)
    rnd = parse_os_noise_spec("random:rate=100,duration=lognormal(median=5us,sigma=0.5)")
    assert rnd.kind == "random" and rnd.frequency_hz == 100
    assert len(rnd.trace(1e9, np.random.default_rng(1))) > 50
    for bad in ("periodic:frequency=10", "sometimes:rate=1,duration=1us", "random:rate=x,duration=1us",
                "periodic:frequency=10,duration=lognormal(median=1us,sigma=1)"):
        with pytest.raises(CloudnoiseError):
            parse_os_noise_spec(bad)


@pytest.mark.parametrize("spec, seconds", [
    # the built-in profiles' shape: 25 detours/s, a fifth of them long: 500 long ones need 100 s
    ("random:rate=25,duration=mixture(0.8*lognormal(median=1us,sigma=0.5)+0.2*lognormal(median=100us,sigma=0.5))", 100),
    # one class at 100/s: 500 detours fit in 5 s, the shortest trace is 10 s
    ("random:rate=100,duration=lognormal(median=5us,sigma=0.5)", 10),
    # the same detours every period: nothing rare to represent
    ("periodic:frequency=10,duration=25us", 10),
    # a rare class at 0.05/s would need 10^4 s: capped at 1000 s
    ("random:rate=1,duration=mixture(0.95*constant(value=1us)+0.05*constant(value=1ms))", 1000),
    # 5 rare detours/s among 50,000/s: 100 s would be 5 x 10^6 detours; 10^6 allow 20 s
    ("random:rate=50000,duration=mixture(0.9999*constant(value=100ns)+0.0001*constant(value=1ms))", 20),
])
def test_generated_traces_are_long_enough_for_the_rarest_class(spec, seconds):
    assert parse_os_noise_spec(spec).representative_length_ns() == pytest.approx(seconds * 1e9, rel=1e-6)


def test_a_representative_trace_holds_about_500_rare_detours():
    noise = parse_os_noise_spec(
        "random:rate=25,duration=mixture(0.8*lognormal(median=1us,sigma=0.5)+0.2*lognormal(median=100us,sigma=0.5))")
    trace = noise.trace(noise.representative_length_ns(), np.random.default_rng(3))
    long = int(np.sum(trace.durations > 20_000))  # the short class never reaches 20 us (11 sigma)
    assert 500 - 4 * 22 < long < 500 + 4 * 22  # Poisson(500): sd 22
