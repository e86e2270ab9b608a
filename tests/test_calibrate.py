"""`cloudnoise profiles calibrate`: the fit recovers the known parameters of a
synthetic system, the search is deterministic, the calibration models exactly
the systems whose built-in noise is the paper's text (and what they borrow),
and the CLI's record-only path reproduces the built-in files."""

from __future__ import annotations

import filecmp
import json
import math
from dataclasses import replace

import pytest

from cloudnoise.profiles.calibrate.assemble import build_profile, initial_params
from cloudnoise.profiles.calibrate.fit import Fitter, solve
from cloudnoise.profiles.calibrate.simulations import CalibrationRuns, Simulator
from cloudnoise.paper.measures import noise_ratio
from cloudnoise.profiles.registry import DATA_DIR, builtin_names, load_builtin

NODES = 1024  # 10,240 messages a run: the top 0.1% tail sets the per-round maximum, as at 16K


def _fitter(reps: int = 24) -> Fitter:
    return Fitter(Simulator(seed=11, reps=reps, threads=2))


@pytest.mark.parametrize("part,field,truth,guess,variant,stat", [
    ("latency", "tail_scale_ns", 3000.0, 700.0, "network", "median"),
    # a 14 us collective on 1024 nodes meets a long detour in a few runs: the mean
    ("os", "long_median_ns", 40000.0, 5000.0, "os", "mean"),
])
def test_fit_recovers_a_synthetic_systems_parameter(part, field, truth, guess, variant, stat):
    """A synthetic AWS c5n.metal whose latency tail (or long OS detours) we
    set: its simulated noise ratio is the target; the fit, started 4-8x
    away, finds the parameter again (common random numbers make the
    statistic a monotone function of it)."""
    f = _fitter()
    system = "aws-hpc-metal"
    start = initial_params(system, {})
    synthetic = replace(start, **{part: replace(getattr(start, part), **{field: truth})})
    measure = noise_ratio("fig14", system, NODES, variant, stat)
    target = measure.value(CalibrationRuns({system: build_profile(system, synthetic)}, f.sim))
    assert target > 1.05  # the parameter matters at this scale
    f.params[system] = replace(synthetic, **{part: replace(getattr(synthetic, part), **{field: guess})})
    f.fit_one(system, part, field, "synthetic", measure, target, guess, 1.0, 1e9)
    got = getattr(getattr(f.params[system], part), field)
    assert got == pytest.approx(truth, rel=0.05)
    result = f.results[-1]
    assert result.achieved[0] == pytest.approx(target, rel=0.005) and result.steps
    assert f.params[system].fitted == {f"{part}.{field}": "synthetic"}


def test_solve_finds_roots_deterministically_and_backs_off_infeasible_values():
    f = lambda x: math.sqrt(x)  # noqa: E731
    x, y = solve(f, 30.0, guess=10.0)
    assert x == pytest.approx(900.0, rel=0.01) and y == pytest.approx(30.0, rel=0.004)
    assert solve(f, 30.0, guess=10.0) == (x, y)
    # above 2000 the parameter is infeasible (+inf): the search stays below
    g = lambda x: math.inf if x > 2000 else x  # noqa: E731
    x, y = solve(g, 1500.0, guess=1000.0)
    assert x == pytest.approx(1500.0, rel=0.004)
    # decreasing statistic
    x, _ = solve(lambda x: 1.0 / x, 0.01, guess=10.0, increasing=False)
    assert x == pytest.approx(100.0, rel=0.01)


def test_record_reproduces_the_built_in_files_through_the_cli(tmp_path, run_cli):
    res = run_cli("profiles", "calibrate", "--from-record", DATA_DIR / "calibration.json", "--out", tmp_path,
                  "--compare", "--json")
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["differ_from_builtin"] == []
    (tmp_path / "aws-hpc.json").write_text((tmp_path / "aws-hpc.json").read_text().replace("\"cores\": 36", "\"cores\": 37"))
    assert not filecmp.cmp(tmp_path / "aws-hpc.json", DATA_DIR / "aws-hpc.json", shallow=False)
    res = run_cli("profiles", "calibrate", "--from-record", DATA_DIR / "calibration.json", "--out", tmp_path / "x",
                  "--compare", "--json")
    assert json.loads(res.stdout)["differ_from_builtin"] == []


def test_calibration_record_cites_every_target_and_keeps_the_held_out_out():
    record = json.loads((DATA_DIR / "calibration.json").read_text())
    assert record["command"].startswith("cloudnoise profiles calibrate --seed 20220718")
    ids = {t["id"] for t in record["targets"]}
    from cloudnoise.paper.statements import HELD_OUT

    assert not ids & {s.id for s in HELD_OUT}
    for t in record["targets"]:
        assert t["quote"] and t["where"] and t["paper"], t["id"]
        assert t["low"] is not None or t["high"] is not None or t["ours"] is None, t["id"]
    fitted_to = {s for fit in record["fits"] for s in fit["statements"]}
    assert fitted_to <= ids
    assert record["conflicts"] and all(c["choice"] for c in record["conflicts"])
    # the targets checked read only the modelled systems
    from cloudnoise.paper.statements import TARGETS

    for s in TARGETS:
        if s.id in ids:
            assert {c.system for c in s.needs()} <= set(record["parameters"]), s.id


def test_the_calibration_models_exactly_the_systems_whose_built_in_noise_is_the_text():
    """Its priors, the record's parameters and the built-ins agree: the
    systems whose built-in noise is not the artifact's (no switch draws),
    plus every system their priors borrow from (`like`), and nothing else."""
    from cloudnoise.profiles.calibrate.priors import PRIORS

    record = json.loads((DATA_DIR / "calibration.json").read_text())
    from_text = {n for n in builtin_names() if load_builtin(n).switch_draws is None}
    assert from_text == {"aws-hpc", "oracle-hpc-metal", "oracle-normal"}
    lent = {like for n in from_text for like in (PRIORS[n].latency.like, PRIORS[n].drops.like, PRIORS[n].os.long_like)
            if like}
    assert lent == {"aws-hpc-metal"}
    assert set(PRIORS) == set(record["parameters"]) == from_text | lent
    for name in from_text:  # their noise is the record's, labelled so
        p = load_builtin(name)
        assert p.latency_noise.provenance.kind in ("reconstructed", "calibrated")
        assert p.os_noise.provenance.kind in ("reconstructed", "calibrated")


def test_a_record_of_another_format_is_refused_in_one_line(tmp_path, run_cli):
    record = json.loads((DATA_DIR / "calibration.json").read_text())
    old = dict(record, format="cloudnoise-calibration/1")
    (tmp_path / "old.json").write_text(json.dumps(old))
    res = run_cli("profiles", "calibrate", "--from-record", tmp_path / "old.json", "--out", tmp_path / "o")
    assert res.returncode == 2 and "not a calibration record" in res.stderr and "profiles calibrate" in res.stderr
    assert "Traceback" not in res.stderr
    stray = dict(record, parameters=dict(record["parameters"], daint=record["parameters"]["aws-hpc"]))
    (tmp_path / "stray.json").write_text(json.dumps(stray))
    (tmp_path / "art").mkdir()
    (tmp_path / "art" / "description.csv").write_text("")
    res = run_cli("profiles", "build", "--artifact", tmp_path / "art", "--record", tmp_path / "stray.json",
                  "--out", tmp_path / "b")
    assert res.returncode == 2 and "models no system daint" in res.stderr and "Traceback" not in res.stderr
