"""The bandwidth closure (model/bandwidth_closure.py): a profile's replay of its own
large-message series, judged row by row. Known answers: a replay that is the measurement,
one that runs slower by a tenth (the quantiles miss), one whose spread is narrowed (the shares
miss); and a built profile, which stores the table, shows it and keeps it through a save."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from cloudnoise.measurement.summaries import StreamStats
from cloudnoise.model.bandwidth_closure import SLOWER, compare_bandwidth, slower_label

sys.path.insert(0, str(Path(__file__).resolve().parent))

from test_bandwidth_level import _run_twice_as_slow  # noqa: E402

SIZE = 16 * 1024 * 1024


def _series() -> np.ndarray:
    """Round trips of 3.4 ms (ns) with a spread of a few percent and a slow tail of drops."""
    rng = np.random.default_rng(3)
    body = 3.4e6 * rng.lognormal(0.0, 0.02, 50_000)
    drops = 3.4e6 * rng.uniform(1.2, 1.6, 600)
    return np.concatenate([body, drops]).round()


def _stats(values: np.ndarray) -> StreamStats:
    s = StreamStats()
    s.add(values.astype(np.int64))
    return s


def test_the_measurement_itself_closes() -> None:
    v = _series()
    got = compare_bandwidth(_stats(v), v, "bandwidth-noise (16777216 B ping-pongs)", SIZE, 0)
    assert got.closes, got.summary()
    assert [r.statistic for r in got.rows][-3:] == [slower_label(f) for f in SLOWER]
    slow20 = next(r for r in got.rows if r.statistic == "slower > 20 %")
    assert slow20.measured == pytest.approx(600 / v.size, rel=0.02)


def test_a_slower_level_misses_at_the_quantiles() -> None:
    v = _series()
    got = compare_bandwidth(_stats(v), v * 1.12, "bw", SIZE, 0)
    assert not got.closes and "p50" in got.misses


def test_a_narrowed_spread_misses_at_the_shares_only() -> None:
    # the level and the drops kept, the body's spread halved (as two per-message draws of the
    # round trips' fractions narrow it)
    v = _series()
    m = float(np.median(v))
    narrow = np.where(v < 1.1 * m, m + 0.5 * (v - m), v)
    got = compare_bandwidth(_stats(v), narrow, "bw", SIZE, 0)
    assert not got.closes
    assert all(s.startswith("slower") for s in got.misses), got.misses
    assert "quantiles within 10%" in got.as_dict()["tolerance"]


def test_a_built_profile_stores_and_shows_its_bandwidth_closure(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from cloudnoise.cli import cli
    from cloudnoise.measurement.imports.netgauge import import_netgauge
    from cloudnoise.model.build import build_profile
    from cloudnoise.model.profile import load_profile, save_profile

    campaign = import_netgauge(_run_twice_as_slow(tmp_path), tmp_path / "campaign", {"system": "slow"}).campaign
    out = tmp_path / "p.json"
    built = build_profile(campaign, out, allow_missing=True)
    profile = load_profile(out)
    c = profile.bandwidth_closure
    assert c is not None and c.experiment.startswith("bandwidth-noise") and c.size_bytes == SIZE
    p50 = next(r for r in c.rows if r["statistic"] == "p50")
    assert p50["within"] and p50["measured"] == pytest.approx(2 * 3403e3, rel=0.002)
    verdict = "closes" if c.closes else "misses"
    assert f"bandwidth-closure={verdict}" in built["labels"]
    again = tmp_path / "again.json"
    save_profile(profile, again)
    assert load_profile(again).bandwidth_closure == c
    shown = CliRunner().invoke(cli, ["profiles", "show", str(out)])
    assert shown.exit_code == 0, shown.output
    assert "round trips of bandwidth-noise" in shown.output and "model/bandwidth_closure.py" in shown.output
    assert "slower > 20 %" in shown.output
