"""Every LogGOPSim conformance vector reproduces its per-rank end times exactly."""

from __future__ import annotations

import json

import pytest

from cloudnoise import simulate
from cloudnoise.simulation.params import LogGOPS
from conftest import CONFORMANCE, conformance_vectors

VECTORS = conformance_vectors()


def test_vectors_present():
    assert len(VECTORS) >= 20, f"conformance vectors missing under {CONFORMANCE}"


@pytest.mark.parametrize("vector", VECTORS, ids=[v["name"] for v in VECTORS])
def test_vector_host_end_times(vector):
    p = vector["params"]
    params = LogGOPS.parse(**{k: str(v) for k, v in p.items()})
    result = simulate(CONFORMANCE / vector["goal"], params=params, ready_order="loggopsim")
    assert result.host_end_ns.tolist() == vector["host_end_ns"]
    assert int(result.max_end_ns[0]) == vector["max_end_ns"]


def test_cli_json_contract(run_cli):
    vector = next((v for v in VECTORS if v["name"].startswith("v1_010")), None)
    assert vector is not None, f"conformance vector v1_010 missing under {CONFORMANCE}"
    p = vector["params"]
    args = [f"--{k}={v}" for k, v in p.items()]
    proc = run_cli("simulate", CONFORMANCE / vector["goal"], *args, "--ready-order", "loggopsim", "--json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["ranks"] == len(vector["host_end_ns"])
    assert out["reps"] == 1
    assert out["host_end_ns"] == vector["host_end_ns"]
    assert out["runtime_ns"] == [vector["max_end_ns"]]
    assert out["events"] > 0


GENERATED = [v for v in VECTORS if v.get("generator")]


@pytest.mark.parametrize("vector", GENERATED, ids=[v["name"] for v in GENERATED])
def test_generated_pattern_via_cli(vector, run_cli):
    # `simulate --pattern` generates in the engine what Schedgen wrote.
    g = vector["generator"]
    args = ["simulate", "--pattern", g["pattern"], "--ranks", g["ranks"], "--size", g["size"], "--ready-order", "loggopsim", "--json"]
    for key in ("nway", "segmentsize", "nb"):
        if key in g:
            args += [f"--{key}", g[key]]
    args += [f"--{k}={v}" for k, v in vector["params"].items()]
    proc = run_cli(*args)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["host_end_ns"] == vector["host_end_ns"]


@pytest.mark.parametrize("vector", VECTORS, ids=[v["name"] for v in VECTORS])
def test_program_order_agrees_with_loggopsim_order(vector):
    params = LogGOPS.parse(**{k: str(v) for k, v in vector["params"].items()})
    r = simulate(CONFORMANCE / vector["goal"], params=params, ready_order="program")
    assert r.host_end_ns.tolist() == vector["host_end_ns"]
