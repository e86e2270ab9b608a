"""The profile's latency level: every L moved so that the noiseless round trip is the series' median."""

from __future__ import annotations

import dataclasses

import pytest

from cloudnoise.model.latency_level import LevelShift, level_delta, noiseless_round_trip, series_L, shift_loggops


def _loggops() -> dict:
    return {"L": 1500.0, "o": 400.0, "size_classes": [{"min_bytes": 0, "L": 1500.0}, {"min_bytes": 2048, "L": 300.0},
                                                      {"min_bytes": 65536, "L": 6000.0}]}


def test_every_l_moves_by_half_the_median_over_the_noiseless_round_trip():
    delta = level_delta(gapless_round_trip_ns=4400.0, median_ns=4900.0, series_L_ns=1500.0)
    assert delta == 250.0
    lg = _loggops()
    shift_loggops(lg, delta)
    assert lg["L"] == 1750.0 and [c["L"] for c in lg["size_classes"]] == [1750.0, 550.0, 6250.0]
    shift = LevelShift(4400.0, 4900.0, delta, 4900.0)
    assert shift.residual_ns == 0.0 and "moved by +250 ns" in shift.describe()


def test_no_l_goes_below_zero_and_the_noise_keeps_the_rest():
    # the series' class (L 1500) can move down 1500 ns at most: 2 x 1500 of the 4000 asked
    assert level_delta(gapless_round_trip_ns=9000.0, median_ns=5000.0, series_L_ns=1500.0) == -1500.0
    shift = LevelShift(9000.0, 5000.0, -1500.0, 6000.0)
    assert shift.residual_ns == -1000.0 and "keeps the rest of the offset, -1000 ns" in shift.describe()
    # a class whose own L is smaller than the move ends at 0; the others move by all of it
    lg = _loggops()
    shift_loggops(lg, level_delta(4400.0, 3400.0, 1500.0))
    assert [c["L"] for c in lg["size_classes"]] == [1000.0, 0.0, 5500.0]


def test_whole_picoseconds_and_no_move_at_the_median():
    assert level_delta(3299.0, 3316.9995, 1370.0) == 9.0  # half of 17.9995 ns, to the ps
    assert level_delta(3576.0, 3576.0, 516.0) == 0.0
    assert "is the latency series' median" in LevelShift(3576.0, 3576.0, 0.0, 3576.0).describe()


def test_the_series_l_is_its_size_class_s():
    lg = _loggops()
    assert series_L(lg, 1) == 1500.0 and series_L(lg, 4096) == 300.0 and series_L(lg, 1 << 20) == 6000.0
    assert series_L({"L": 700.0}, 1) == 700.0


def test_the_noiseless_round_trip_is_two_overheads_and_l_each_way_or_g_back_to_back():
    from cloudnoise.profiles.registry import resolve_profile

    base = resolve_profile("daint")
    lg = dataclasses.replace(base.loggops, L=1000.0, o=500.0, g=300.0, G=0.0, O=0.0, size_classes=())
    profile = dataclasses.replace(base, loggops=lg)
    assert noiseless_round_trip(profile, 1) == pytest.approx(2 * (2 * 500.0 + 1000.0))
    # a g longer than the round trip spaces the pings of a back-to-back series g apart
    slow = dataclasses.replace(profile, loggops=dataclasses.replace(lg, g=6000.0))
    assert noiseless_round_trip(slow, 1) == pytest.approx(6000.0)
    assert noiseless_round_trip(slow, 1, gapless=True) == pytest.approx(4000.0)
