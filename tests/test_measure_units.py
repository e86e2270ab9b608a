"""Pure-Python pieces of `cloudnoise measure`: no MPI needed."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from cloudnoise.errors import CloudnoiseError
from cloudnoise.measure import tables
from cloudnoise.measure.cli import parse_labels, parse_size
from cloudnoise.measure.experiments import Options, Run, Unit, plan
from cloudnoise.measure.launcher import LaunchSpec, build_command
from cloudnoise.measure.mpi import MpiInstallation
from cloudnoise.measure.samples import RECORD, read_records


def _mpi(flavor: str) -> MpiInstallation:
    return MpiInstallation(Path("/x/mpicc"), Path("/x/mpiexec"), flavor, "test", "v")


def test_parse_size():
    assert parse_size("1") == 1
    assert parse_size("64K") == 65536
    assert parse_size("16MiB") == 16 << 20
    with pytest.raises(CloudnoiseError):
        parse_size("big")


def test_labels_validate_distance():
    assert parse_labels(("system=aws", "distance=same-rack")) == {"system": "aws", "distance": "same-rack"}
    with pytest.raises(CloudnoiseError):
        parse_labels(("distance=far",))


def test_launch_commands():
    spec = LaunchSpec(hosts=["a", "b"], ppn=2)
    cmd = build_command(_mpi("mpich"), spec, 4, ["probe", "--x"])
    assert cmd == ["/x/mpiexec", "-n", "4", "-ppn", "2", "-hosts", "a,b", "probe", "--x"]
    cmd = build_command(_mpi("openmpi"), spec, 4, ["probe"])
    assert "--map-by" in cmd and "ppr:2:node" in cmd and "a:2,b:2" in cmd
    cmd = build_command(_mpi("mpich"), LaunchSpec(launcher="srun"), 2, ["probe"])
    assert cmd == ["srun", "-n", "2", "probe"]
    tmpl = LaunchSpec(launcher="mpirun -np {ranks} --bind-to core {cmd}")
    assert build_command(_mpi("openmpi"), tmpl, 2, ["probe", "a b"]) == [
        "mpirun", "-np", "2", "--bind-to", "core", "probe", "a b"]
    with pytest.raises(CloudnoiseError):
        build_command(_mpi("mpich"), LaunchSpec(launcher="mpirun -np {nope} {cmd}"), 2, ["p"])


def test_plans_follow_the_paper_defaults():
    lat = plan("latency", Options(), 2)
    assert [u.size for u in lat[0].units] == [1 << k for k in range(25)]
    assert all(u.iterations == 1000 for u in lat[0].units)
    conns = plan("connections", Options(ranks=32), 2)
    assert [r.pairs for r in conns] == [1, 2, 4, 8, 16] and all(r.split for r in conns)
    burst = plan("burst", Options(), 2)[0]
    assert burst.units[0].size == 1 << 20 and burst.units[-1].interval_ns == 10**9
    assert burst.warmup == 10 and burst.units[0].iterations == 20
    with pytest.raises(CloudnoiseError):
        plan("latency", Options(ranks=3), 2)


def test_loggp_plan_reaches_16_MiB_with_fewer_large_iterations():
    units = plan("loggp", Options(ranks=2), 2)[0].units
    assert [u.size for u in units] == [1 << k for k in range(25)]
    its = {u.size: u.iterations for u in units}
    assert its[1] == its[1 << 20] == 1000 and its[2 << 20] == 500 and its[16 << 20] == 62
    assert all(its[s] >= 50 for s in its)
    # iterations the user asks for hold at every size
    assert {u.iterations for u in plan("loggp", Options(ranks=2, iterations=30), 2)[0].units} == {30}


def test_loggp_plan_and_resume_by_rounds(tmp_path):
    """loggp runs the cn_loggp probe on ranks bound to cores, in rounds; an
    interrupted run resumes from the first round not finished."""
    from cloudnoise.measure.campaign import Campaign
    from cloudnoise.measure.runner import loggp_argv, remaining

    run = plan("loggp", Options(ranks=2, sizes=[1, 1024], iterations=50, rounds=4, train=6), 2)[0]
    assert run.probe == "cn_loggp" and run.extra == {"train": 6, "rounds": 4, "bind_core": True}
    argv = loggp_argv(Path("cn_loggp"), run, tmp_path / "p")
    assert argv[argv.index("--rounds") + 1] == "4" and argv[argv.index("--first-round") + 1] == "0"
    assert argv[argv.index("--sizes") + 1] == "1,1024" and argv[argv.index("--train") + 1] == "6"
    with pytest.raises(CloudnoiseError, match="--train"):
        plan("loggp", Options(ranks=2, train=1), 2)
    campaign = Campaign(tmp_path / "c")
    prefix = campaign.prefix("loggp", 0, 0)
    prefix.parent.mkdir(parents=True)
    (prefix.parent / f"{prefix.name}.rank0.info").write_text("round0_end_monotonic_ns=5\nround1_end_monotonic_ns=9\n")
    (prefix.parent / f"{prefix.name}.rank0.bin").write_bytes(b"")
    todo = remaining(campaign, "loggp", 0, run)
    assert todo is not None and todo.extra["first_round"] == 2
    assert loggp_argv(Path("x"), todo, prefix)[-1] == "2"
    (prefix.parent / f"{prefix.name}.rank0.info").write_text("".join(f"round{r}_end_monotonic_ns=1\n" for r in range(4)))
    assert remaining(campaign, "loggp", 0, run) is None


def test_torn_record_is_dropped(tmp_path):
    rec = np.zeros(3, dtype=RECORD)
    rec["value_ns"] = [1, 2, 3]
    path = tmp_path / "x.rank0.bin"
    path.write_bytes(rec.tobytes()[:-10])
    assert read_records(path)["value_ns"].tolist() == [1, 2]


def test_concurrent_pairs_take_the_slowest_pair():
    n = 4
    data = {
        "run": np.zeros(2 * n, np.int32), "part": np.zeros(2 * n, np.int32),
        "rank": np.repeat([0, 1], n).astype(np.int32), "pairs": np.full(2 * n, 2, np.int32),
        "kind": np.zeros(2 * n, np.int8), "size_bytes": np.full(2 * n, 1000),
        "param": np.zeros(2 * n, np.int64), "stream": np.repeat([0, 1], n).astype(np.int32),
        "iteration": np.tile(np.arange(n), 2), "t_ns": np.zeros(2 * n, np.int64),
        "wall_ns": np.zeros(2 * n, np.int64),
        "value_ns": np.array([100, 200, 300, 400, 400, 100, 100, 100], np.int64),
        "host": np.array(["h"] * 2 * n, dtype=object),
    }
    runs = [Run("cn_pingpong", "pingpong", 4, [Unit(1000, 0, n)], split=True)]
    rows = tables.pingpong_rows(data, runs, "connections")
    assert rows[0]["samples"] == n and rows[0]["connections"] == 2
    assert rows[0]["min_us"] == 0.1  # iterations' worst RTTs: 400 200 300 400 -> min 200 ns, /2
    assert rows[0]["max_us"] == 0.2
    assert np.isclose(rows[0]["bandwidth_gbps"], 1000 * 8 / 100)
