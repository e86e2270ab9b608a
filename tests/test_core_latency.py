"""The machine state of a shared-memory run: which core-to-core probes
belong together (measurement/core_latency.py), and what validate says of a run
against its profile (validation/machine_state.py). Known answers on made-up
probe values."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import cloudnoise
from cloudnoise.errors import CloudnoiseError
from cloudnoise.measurement.core_latency import STATE_FACTOR, CoreLatency, rounds_in_another_state, same_state
from cloudnoise.simulation.params import LogGOPS
from cloudnoise.validation.machine_state import CHANGED, DIFFERENT, SAME, UNKNOWN, machine_state, probes


def test_same_state_is_within_the_factor_either_way() -> None:
    assert same_state(60, 60 * STATE_FACTOR) and same_state(60 * STATE_FACTOR, 60)
    assert not same_state(60, 60 * STATE_FACTOR + 1) and not same_state(250, 57)
    assert same_state(0, 250) and same_state(-1, 250)  # no probe: nothing to compare


def test_core_latency_summary_and_one_state() -> None:
    run = CoreLatency(np.array([55.0, 60.0, 66.0]))
    assert run.summary() == {"median": 60.0, "min": 55.0, "max": 66.0, "probes": 3}
    assert run.one_state() and run.one_state(57.0) and not run.one_state(250.0)
    assert not CoreLatency(np.array([57.0, 250.0, 60.0])).one_state()
    empty = CoreLatency(np.zeros(0))
    assert empty.summary()["median"] is None and empty.one_state(250.0)


@pytest.mark.parametrize("values, profile, want", [
    ([58.0, 61.0], 57.0, SAME),
    ([240.0, 251.0], 57.0, DIFFERENT),
    ([58.0, 251.0], 57.0, CHANGED),
    ([58.0, 251.0], None, UNKNOWN),
    ([], 57.0, UNKNOWN),
])
def test_core_probe_against_the_profile(values: list[float], profile: float | None, want: str) -> None:
    core, _ = probes(np.asarray(values, float), profile, np.zeros(0), None)
    assert core.state() == want
    note = core.note()
    assert (note is not None) == (want in (DIFFERENT, CHANGED))
    if want == DIFFERENT:
        assert "246 ns against the profile's 57 ns" in note
    if want == CHANGED:
        assert "58-251 ns" in note and "changed during the run" in note


def test_the_run_state_is_its_worst_probe() -> None:
    """The cores where the profile had them, the transport 2.5x slower than the
    model's one-way 1 B time: the run is in another state, and the note says
    which probe and by how much."""
    core, ping = probes(np.array([60.0, 62.0]), 61.0, np.array([1000.0, 1010.0, 990.0]), 400.0)
    assert core.state() == SAME and ping.state() == DIFFERENT
    assert machine_state([core, ping]) == DIFFERENT
    assert "1 B MPI ping-pong (one way) took 1000 ns against the profile's 400 ns" in ping.note()
    assert ping.summary() == {"median": 1000.0, "min": 990.0, "max": 1010.0, "probes": 3, "profile": 400.0}
    # within 1.3x of the model's one-way time both ways: the same state
    _, near = probes(np.zeros(0), None, np.array([310.0, 515.0]), 400.0)
    assert near.state() == SAME and machine_state([near]) == SAME
    _, moved = probes(np.zeros(0), None, np.array([310.0, 900.0]), 400.0)
    assert moved.state() == CHANGED
    assert machine_state([]) == UNKNOWN


def test_model_one_way_one_byte_time() -> None:
    """o_s + L + o_r, with the first size class's L where there are classes."""
    assert LogGOPS.parse(L="300", o="200", g="1", G="0.1", O="0", S="0").one_byte_ps() == 700_000
    split = LogGOPS.parse(L="10", o="120", o_r="240", g="1", G="0.1", O="0", S="0")
    assert split.one_byte_ps() == 370_000
    classed = LogGOPS(**{**split.__dict__, "classes": ((0, 40_000, 300, 0), (4097, 1_500_000, 80, 0))})
    assert classed.one_byte_ps() == 400_000


def test_rounds_in_another_state_keeps_the_typical_one() -> None:
    rounds = np.array([0, 1, 2, 3, 4])
    values = {0: np.array([57.0, 59.0]), 1: np.array([60.0, 61.0]), 2: np.array([58.0, 240.0]),
              3: np.array([56.0]), 4: np.array([62.0])}
    moved, typical = rounds_in_another_state(rounds, values)
    assert moved.tolist() == [2] and typical == pytest.approx(59.5)
    # rounds without probes (an older campaign) are kept
    assert rounds_in_another_state(rounds, {})[0].tolist() == []
    assert rounds_in_another_state(rounds, {0: np.array([57.0])})[0].tolist() == []


def _profile(tmp_path: Path, core: object) -> Path:
    data = json.loads((Path(cloudnoise.__file__).parent / "profiles" / "data" / "daint.json").read_text())
    data["hardware"]["core_latency_ns"] = core
    for part in ("os_noise", "switch_draws"):  # their side files stay beside the built-in
        data.pop(part, None)
    data["different_racks"].pop("os_noise", None)  # so does the different-racks run's OS-noise trace
    path = tmp_path / "p.json"
    path.write_text(json.dumps(data))
    return path


def test_profile_keeps_the_core_latency(tmp_path: Path) -> None:
    from cloudnoise.model.profile import load_profile

    assert load_profile(_profile(tmp_path, 57.5)).hardware.core_latency_ns == 57.5
    for bad in ("fast", -3, [1]):
        with pytest.raises(CloudnoiseError):
            load_profile(_profile(tmp_path, bad))


def test_suite_summary_counts_the_profiles_state() -> None:
    from cloudnoise.validation.suite import state_cell, summarize_rows

    ping = {"median": 400.0, "min": 390.0, "max": 410.0, "probes": 2}
    rows = [{"config": "a", "ranks": 2, "signed_error_median": 0.02, "machine_state": "same",
             "core_latency_ns": {"median": 58.0, "min": 57.0, "max": 59.0, "probes": 2}, "pingpong_ref_ns": ping},
            {"config": "b", "ranks": 2, "signed_error_median": -0.06, "machine_state": "same",
             "core_latency_ns": {"median": 60.0, "min": 60.0, "max": 61.0, "probes": 2}, "pingpong_ref_ns": ping},
            {"config": "c", "ranks": 2, "signed_error_median": 1.5, "machine_state": "changed",
             "core_latency_ns": {"median": 150.0, "min": 58.0, "max": 250.0, "probes": 2}, "pingpong_ref_ns": ping}]
    state = summarize_rows(rows)["machine_state"]
    assert state["configs"] == 3 and state["same_as_profile"] == 2 and state["unknown"] == 0
    assert state["median_abs_error_same"] == pytest.approx(0.04)
    assert state["worst_abs_error_same"] == pytest.approx(0.06)
    assert state_cell(rows[0]) == "58 / 400" and state_cell(rows[2]) == "58-250 / 400 *"
    assert state_cell({"core_latency_ns": {"probes": 0}}) == "- / -"
