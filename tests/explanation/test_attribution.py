"""The reading of critical paths, on hand-made paths with known answers: shares by kind,
the slowdown split by noise, the tail's cause, the ranks whose noise lies on the path,
and which repetition is the median or the p99."""

from __future__ import annotations

import numpy as np
import pytest

from cloudnoise.errors import CloudnoiseError
from cloudnoise.explanation.attribution import slowdown, tail_cause
from cloudnoise.explanation.decomposition import KINDS, kind_times, shares
from cloudnoise.explanation.hosts import noisy_ranks
from cloudnoise.explanation.repetitions import median_group, pick, tail_group
from cloudnoise.simulation.critical_path import COUNTS, PARTS, CriticalPaths


def paths(rows: list[dict[str, int]], noise: list[tuple[int, int, str, int]] = ()) -> CriticalPaths:
    """Paths whose parts are `rows` (part name -> ps), with noise rows (rep, host, part, ps)."""
    parts = np.zeros((len(rows), len(PARTS)), dtype=np.int64)
    for r, row in enumerate(rows):
        for name, ps in row.items():
            parts[r, PARTS.index(name)] = ps
    table = np.array([(rep, host, PARTS.index(part), ps) for rep, host, part, ps in noise], dtype=np.int64).reshape(-1, 4)
    return CriticalPaths(parts, np.zeros((len(rows), len(COUNTS)), dtype=np.int64), np.zeros(len(rows), dtype=np.int64),
                         table)


def test_kinds_group_the_engines_parts_and_add_up():
    p = paths([{"o": 3, "L": 10, "latency_draw": 2, "latency_stall": 5, "bandwidth_episode": 7, "os_detour": 1}])
    times = dict(zip(KINDS, kind_times(p)[0]))
    assert times["latency_noise"] == 7 and times["bandwidth_noise"] == 7 and times["os_noise"] == 1
    assert sum(times.values()) == 28 == p.parts_ps.sum()


def test_shares_are_each_kinds_fraction_of_its_repetition():
    p = paths([{"L": 600, "o": 400}, {"L": 900, "o": 100}, {"L": 500, "o": 500}])
    by_kind = {s.kind: s for s in shares(p)}
    assert by_kind["L"].median_share == pytest.approx(0.6)
    assert by_kind["L"].p90_share == pytest.approx(np.percentile([0.6, 0.9, 0.5], 90))
    assert by_kind["o"].median_ns == pytest.approx(0.4)


def test_the_excess_is_split_by_the_noise_on_the_median_paths():
    # none: 1000 ps. The variant's median repetitions carry 300 ps of latency noise and
    # 100 ps of OS detours on their paths; its median is 1300 ps: 300 ps of excess.
    base = np.full(5, 1000)
    p = paths([{"L": 1000, "latency_draw": 300, "os_detour": 100}] * 5)
    runtime = p.parts_ps.sum(axis=1) - 100  # the noise moved the path: 100 ps of it was slack
    sd = slowdown(runtime, base, p)
    assert sd.excess_ns == pytest.approx(0.3)
    assert sd.by_noise_ns["latency_noise"] == pytest.approx(0.225)
    assert sd.by_noise_ns["os_noise"] == pytest.approx(0.075)
    assert sd.on_path_ns == {"os_noise": 0.1, "latency_noise": 0.3, "bandwidth_noise": 0.0}
    assert sd.ratio == pytest.approx(1.3)
    assert sd.moved_ns == pytest.approx(-0.1)  # 100 ps of the path's noise filled slack


def test_a_tail_of_long_os_detours_has_another_cause_than_latency_noise_everywhere():
    rows = [{"L": 1000, "latency_draw": 200}] * 99 + [{"L": 1000, "latency_draw": 200, "os_detour": 5000}]
    p = paths(rows)
    tail = tail_cause(p.parts_ps.sum(axis=1), p, first_rep=10)
    assert (tail.median_cause, tail.tail_cause, tail.differs) == ("latency_noise", "os_noise", True)
    assert tail.tail_reps == [108, 109]  # the 99th and 100th of 100 (nearest rank)
    quiet = paths([{"L": 1000}] * 10)
    assert tail_cause(quiet.parts_ps.sum(axis=1), quiet).tail_cause == "none"


def test_ranks_whose_noise_is_on_the_path_most_often_come_first():
    p = paths([{"L": 1}] * 4, noise=[
        (0, 7, "os_detour", 100), (1, 7, "os_detour", 300), (1, 7, "latency_draw", 50), (2, 7, "latency_stall", 10),
        (0, 3, "latency_draw", 5000), (3, 3, "latency_stall", 1000), (3, 3, "latency_draw", 1000),
        (2, 9, "bandwidth_draw", 1),
    ])
    ranked = noisy_ranks(p, reps=4, top=2)
    assert [r.rank for r in ranked] == [7, 3]
    assert ranked[0].reps == 3 and ranked[0].fraction == 0.75
    assert ranked[0].mean_ns == pytest.approx((100 + 300 + 50 + 10) / 3 / 1000)
    assert ranked[0].reps_by_kind == {"os_noise": 2, "latency_noise": 2}
    # a kind of two parts in one repetition counts that repetition once
    assert ranked[1].reps_by_kind == {"latency_noise": 2}
    assert noisy_ranks(paths([{"L": 1}]), reps=1) == []


def test_the_median_and_p99_repetitions():
    runtime = np.array([50, 10, 40, 30, 20])
    assert pick("median", runtime) == 3  # 30
    assert pick("p99", runtime, first_rep=100) == 100  # the slowest
    assert pick("2", runtime) == 2
    assert median_group(runtime).tolist() == [3] and tail_group(runtime).tolist() == [0]
    assert pick("median", np.array([5, 5, 5])) == 0  # ties: the lowest
    for bad in ("5", "-1", "p42", "median-ish"):
        with pytest.raises(CloudnoiseError):
            pick(bad, runtime)
