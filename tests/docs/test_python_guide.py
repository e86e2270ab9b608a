"""docs/how-to/python.md's worked example runs as printed, and the typed API keeps its promises."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import cloudnoise

DOC = Path(__file__).resolve().parents[2] / "docs" / "how-to" / "python.md"


def _examples() -> list[str]:
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S)
    assert len(blocks) >= 2, "docs/how-to/python.md lost a worked example"
    return blocks


def test_the_worked_example_runs(capsys):
    for block in _examples():
        if "cloudnoise.measure(" not in block:
            exec(compile(block, str(DOC), "exec"), {})
    out = capsys.readouterr().out
    assert "USD per run" in out and "with noise" in out


def test_the_measure_example_runs(capsys, tmp_path, monkeypatch):
    from measure_support import mpi_or_skip

    mpi_or_skip()
    monkeypatch.chdir(tmp_path)
    blocks = [b for b in _examples() if "cloudnoise.measure(" in b]
    assert blocks, "docs/how-to/python.md lost its measure example"
    for block in blocks:
        exec(compile(block, str(DOC), "exec"), {})
    out = capsys.readouterr().out
    assert "median_us" in out and "16-rank 1 MiB ring allreduce here" in out and "(none noise)" in out


def test_measure_result_is_what_json_prints(tmp_path):
    from measure_support import mpi_or_skip

    mpi_or_skip()
    r = cloudnoise.measure("latency", out=tmp_path / "c", sizes="1,1MB", iterations=50, warmup=0)
    assert r.complete and r.samples == 100 and r.campaign == tmp_path / "c"
    assert [row["size_bytes"] for row in r.results] == [1, 10**6]  # MB is 10^6 as in every command
    df = r.to_pandas()
    assert df["size_bytes"].tolist() == [1, 10**6] and (df["samples"] == 50).all()
    assert r.to_dict()["results"] == r.results and r.loggp is None


@pytest.mark.parametrize("kwargs, message", [
    ({"experiment": "latncy"}, "did you mean 'latency'"),
    ({"experiment": "latency", "sizes": "1,3GiB"}, "2^31-1"),
    ({"experiment": "latency", "duration": "soon"}, "--duration"),
    ({"experiment": "latency", "iterations": 0}, "iterations"),
    ({"experiment": "latency", "labels": {"distance": "far"}}, "distance"),
    ({"experiment": "latency", "resume": True}, "--resume needs --out"),
])
def test_bad_measure_calls_raise_before_anything_runs(tmp_path, monkeypatch, kwargs, message):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(cloudnoise.CloudnoiseError) as err:
        cloudnoise.measure(**kwargs)
    assert message in str(err.value) and "\n" not in str(err.value)
    assert list(tmp_path.iterdir()) == []  # no campaign folder left behind


def test_variants_share_the_seed_and_the_primary_is_first():
    r = cloudnoise.simulate(pattern="dissemination", ranks=64, size="16B", profile="daint",
                            noise=["os", "none"], reps=20, seed=3)
    assert r.variant == "os" and list(r.variants) == ["os", "none"]
    assert np.array_equal(r.runtime_ns, r.variants["os"].runtime_ns)
    alone = cloudnoise.simulate(pattern="dissemination", ranks=64, size="16B", profile="daint",
                                noise="os", reps=20, seed=3)
    assert np.array_equal(alone.runtime_ns, r.runtime_ns)
    # without noise every repetition is LogGOPS's one answer
    assert len(set(r.variants["none"].runtime_ns.tolist())) == 1
    df = r.to_pandas()
    assert len(df) == 40 and set(df["variant"]) == {"os", "none"}
    d = r.to_dict()
    assert d["statistics"]["median_ns"] == pytest.approx(float(np.median(r.runtime_ns)))
    assert set(d["variants"]) == {"os", "none"}


def test_parameters_override_the_defaults_exactly():
    # two ranks, one 1-byte message each way (ping-pong-free dissemination): LogGP's 2o + L per round
    r = cloudnoise.simulate(pattern="dissemination", ranks=2, size=1, L="2us", o=500, g=0, G=0)
    assert r.runtime_ns.tolist() == [500 + 2000 + 500]


def test_default_variant_is_the_noise_the_profile_carries():
    assert cloudnoise.simulate(pattern="dissemination", ranks=8, size="16B", profile="daint", reps=2).variant == "both"
    only_os = cloudnoise.simulate(pattern="dissemination", ranks=8, size="16B", L="2us", os_noise="periodic:frequency=1000,duration=25us",
                                  reps=2)
    assert only_os.variant == "os"


def test_cost_is_runtime_times_nodes_times_price():
    c = cloudnoise.cost("daint", nodes=10, runtime_ns=3.6e12, noiseless_runtime_ns=1.8e12)  # 1 h and 0.5 h
    assert c.cost_usd == pytest.approx(10 * 1.73) and c.noiseless_cost_usd == pytest.approx(5 * 1.73)
    assert c.noise_increase == pytest.approx(1.0) and c.billing == "per-second"
    # billed as the provider bills: 2.5 s on daint is 3 s; pro rata it is 2.5 s
    assert cloudnoise.cost("daint", nodes=10, runtime_ns=2.5e9).cost_usd == pytest.approx(3 / 3600 * 10 * 1.73)
    assert cloudnoise.cost("daint", nodes=10, runtime_ns=2.5e9, billing="exact").cost_usd == pytest.approx(
        2.5 / 3600 * 10 * 1.73)


@pytest.mark.parametrize("kwargs, message", [
    ({"pattern": "dissemination", "ranks": 4, "size": "16B", "app": "gemm:8"}, "give one of"),
    ({"pattern": "dissemintion", "ranks": 4, "size": "16B"}, "did you mean 'dissemination'"),
    ({"pattern": "dissemination", "ranks": 4, "size": "16B", "noise": "os"}, "needs noise"),
])
def test_bad_calls_raise_one_line_errors(kwargs, message):
    with pytest.raises(cloudnoise.CloudnoiseError) as err:
        cloudnoise.simulate(**kwargs)
    assert message in str(err.value) and "\n" not in str(err.value)
