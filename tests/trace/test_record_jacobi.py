"""The whole path on a real MPI application: record examples/trace/jacobi2d.c
on 2 ranks with the PMPI recorder, convert the trace, and simulate it with
this machine's profile measured in the test (`measure loggp` + `model
build`): the simulated runtime must be within 15 % of the recorded one.

The example is compute-dominated (4 iterations over 2048 x 2048 points per
rank, about 90 % of the recorded runtime is compute) because the machine is
shared: a rank descheduled inside an MPI call loses time the model cannot
replay, and with mostly compute the check measures the conversion, not the
machine's load. The compute is replayed as recorded, so the error is the
communication's: the split is in the JSON (`split`).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from measure_support import mpi_or_skip, run


EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "trace" / "jacobi2d.c"
ARGS = ["2048", "2048", "4", "2"]


@pytest.fixture(scope="module")
def jacobi(tmp_path_factory: pytest.TempPathFactory) -> Path:
    mpi_or_skip()
    from cloudnoise.measurement.mpi import find_mpi

    mpi = find_mpi()
    exe = tmp_path_factory.mktemp("jacobi") / "jacobi2d"
    proc = subprocess.run([str(mpi.mpicc), "-O2", "-o", str(exe), str(EXAMPLE), "-lm"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return exe


def test_record_convert_simulate_within_15_percent(tmp_path: Path, jacobi: Path) -> None:
    from cloudnoise.measurement.launcher import LaunchSpec, build_command
    from cloudnoise.measurement.mpi import find_mpi

    # the launcher line as cloudnoise builds it for this MPI (Open MPI run as root needs --allow-run-as-root)
    launch = build_command(find_mpi(), LaunchSpec(), 2, [str(jacobi), *ARGS])
    camp = tmp_path / "campaign"
    assert run("measure", "loggp", "--sizes", "1,1K,8K,64K", "--iterations", "100", "--out", str(camp),
               timeout=300).returncode == 0
    profile = tmp_path / "here.json"
    proc = run("model", "build", str(camp), "-o", str(profile), timeout=300)
    assert proc.returncode == 0, proc.stderr

    trace = tmp_path / "jac"
    proc = run("trace", "record", "--out", str(trace), "--json", "--timeout", "4min", "--", *launch, timeout=300)
    assert proc.returncode == 0, proc.stderr
    rec = json.loads(proc.stdout)
    assert rec["ranks"] == 2 and (trace / "rank-000000.cntr").is_file() and (trace / "trace.json").is_file()

    proc = run("trace", "show", str(trace), "--json")
    assert proc.returncode == 0, proc.stderr
    show = json.loads(proc.stdout)
    calls = show["calls_by_name"]
    # 4 iterations x 4 halo messages each way per rank, one Waitall per iteration, 2 residuals
    assert calls["MPI_Isend"] == 2 * 16 and calls["MPI_Irecv"] == 2 * 16
    assert calls["MPI_Waitall"] == 2 * 4 and calls["MPI_Allreduce"] == 2 * 2
    assert show["unsupported"] == {} and show["recorded_runtime_ns"] > 20_000_000

    goal = tmp_path / "jac.goal.gz"
    assert run("trace", "convert", str(trace), "-o", str(goal)).returncode == 0 and goal.stat().st_size > 0

    proc = run("validate", "--trace", str(trace), "--profile", str(profile), "--reps", "3", "--json", timeout=300)
    assert proc.returncode == 0, proc.stderr
    v = json.loads(proc.stdout)
    split = v["split"]
    # compute is replayed as recorded: recorded end = compute + time in MPI on every rank
    assert split["compute_ns"] + split["recorded_mpi_ns"] == split["recorded_end_ns"]
    assert v["relative_error_median"] <= 0.15, (
        f"recorded {v['recorded_runtime_ns']} ns, simulated {v['simulated_median_ns']} ns; split {split}"
    )

    # the GOAL file simulates to the same runtime as the trace converted in memory
    sim = run("simulate", str(goal), "--profile", str(profile), "--noise", "none", "--ready-order", "program", "--json")
    assert sim.returncode == 0, sim.stderr
    assert abs(json.loads(sim.stdout)["runtime_ns"][0] - v["simulated_median_ns"]) <= 1
