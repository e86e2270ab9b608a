"""Sensitivity and tolerance: dT/dX counted on the path, the path's bound on a known
piecewise-linear function, re-simulation agreeing with it to the picosecond where the path
is unique, and bounding it from above where another path takes over."""

from __future__ import annotations

import math

import numpy as np
import pytest

from cloudnoise import _engine
from cloudnoise.errors import CloudnoiseError
from cloudnoise.explanation.api import explain
from cloudnoise.explanation.tolerance import latency_bound_ps, os_bound, with_added_latency, with_os_factor
from cloudnoise.model.os_noise import OSNoiseTrace
from cloudnoise.schedules.patterns import CollectiveSpec, generate
from cloudnoise.simulation.noise import NoiseSetup
from cloudnoise.simulation.params import LogGOPS

PARAMS = LogGOPS.parse(L="2500", o="1500", g="1000", G="0.006", O="0", S="65535")


def test_the_paths_bound_on_a_known_piecewise_linear_function():
    T = np.array([100_000, 200_000, 300_000])
    n = np.array([1, 2, 3])
    # the median stays the middle repetition: 200,000 + 2 d <= 202,000
    assert latency_bound_ps(T, n, "median", 0.01) == 1000
    # p99 between the two slowest (linear interpolation): 298,000 + 2.98 d + ... <= 1.01 x p99
    p99 = np.percentile(T, 99)
    d = latency_bound_ps(T, n, "p99", 0.01)
    assert np.percentile(T + d * n, 99) <= 1.01 * p99 < np.percentile(T + (d + 1) * n, 99)
    assert latency_bound_ps(T, np.zeros(3), "median", 0.01) is None
    k = os_bound(T, np.array([0, 10_000, 0]), "median", 0.01)
    assert k == pytest.approx(1.2, rel=2e-3)  # 200,000 + (k - 1) 10,000 <= 202,000


@pytest.mark.parametrize("ranks", [64, 100])
def test_noiseless_dissemination_tolerance_by_the_path_is_by_re_simulation(ranks):
    e = explain(pattern="dissemination", ranks=ranks, size="16B", params=PARAMS, reps=2, tolerance=True)
    v = e.variants["none"]
    T_ps = int(v.paths.parts_ps.sum(axis=1)[0])
    n_L = math.ceil(math.log2(ranks))
    assert {s.term: s.median for s in v.sensitivity}["L"] == n_L
    for t in v.tolerance:
        assert t.what == "latency"
        assert t.bound == t.simulated == (T_ps // 100) // n_L / 1000  # ns, to the picosecond


def two_paths(ranks: int) -> _engine.Schedule:
    """The paper's ring: one path through rank 0's NIC, another through every hop's latency."""
    return generate(CollectiveSpec("pipelinedring", ranks, ranks * 64 * 1024, segmentsize="size/ranks", schedgen="paper"))


def test_where_another_path_takes_over_the_paths_tolerance_is_an_upper_bound():
    params = LogGOPS.parse(L="500", o="0", g="1000", G="0.11", O="0", S="4096")
    e = explain(two_paths(32), params=params, reps=1, tolerance=True)
    v = e.variants["none"]
    for t in v.tolerance:
        assert t.simulated is not None and t.bound is not None and t.simulated < t.bound
        # just past the tolerance, the runtime is beyond the limit
        later, _ = with_added_latency(params, NoiseSetup(), int(t.simulated * 1000) + 1)
        run = _engine.run(two_paths(32), later.to_engine(), _engine.NoiseModel(), program_order=True)
        assert run["max_end_ps"][0] > 1.01 * t.baseline_ns * 1000


def test_added_latency_moves_every_l_and_the_os_factor_every_detour():
    params = LogGOPS.parse(L="800", o="300", g="40", G="0.3", O="0", S="8192",
                           classes=((0, "700", "0.2", "0"), (1000, "900", "0.25", "0")))
    later, _ = with_added_latency(params, NoiseSetup(), 5000)
    assert later.L_ps == params.L_ps + 5000 and [c[1] for c in later.classes] == [705_000, 905_000]
    noise = NoiseSetup(os_trace=OSNoiseTrace(np.array([0, 10, 20]), np.array([2, 3, 4])))
    assert with_os_factor(noise, 2.5).os_trace.durations.tolist() == [5, 8, 10]  # to the ns, half up to even
    assert noise.os_trace.durations.tolist() == [2, 3, 4]  # the original is left as it was


def test_switch_draws_move_with_the_latency():
    from cloudnoise.simulation.setup import load_system, resolve_noise, resolve_params

    system = load_system("alps")
    params, setup = resolve_params(system, {}), resolve_noise(system, 0)
    _, later = with_added_latency(params, setup, 7000)
    assert (later.switch_noisy.near_L_ps == setup.switch_noisy.near_L_ps + 7000).all()
    assert (later.switch_quiet.far_L_ps == setup.switch_quiet.far_L_ps + 7000).all()


def test_within_is_checked():
    e = explain(pattern="dissemination", ranks=4, size="16B", params=PARAMS, reps=1)
    from cloudnoise.explanation.tolerance import tolerances

    with pytest.raises(CloudnoiseError, match="within"):
        tolerances(e.schedule, e.params, e.noise, "none", e.variants["none"].paths, seed=0, within=1.5)
