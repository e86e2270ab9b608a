"""`cloudnoise validate` and its GOAL executor (cn_goal_exec) on real MPI ranks.

Known answers: a chain of calcs lasts at least its total; a schedule with
wildcards, irequires and a rendezvous-size message completes on every rank;
the op table keeps matching exact; deadlocks are refused before launching;
a dying rank ends the run with one line. Tests that launch MPI skip (with the
reason) where no MPI is found.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import numpy as np
import pytest

from measure_support import mpi_or_skip, run

import cloudnoise

from cloudnoise.validation.optable import from_goal_text

CALC_CHAIN = """num_ranks 2
rank 0 {
l1: calc 1000000
l2: calc 1000000
l3: send 8b to 1 tag 5
l2 requires l1
l3 requires l2
}
rank 1 {
l1: recv 8b from 0 tag 5
}
"""

# Wildcard source and tag, an irequires edge, a 1 MiB (rendezvous) message
# and tags far above MPI's guaranteed 32767.
MIXED = """num_ranks 3
rank 0 {
l1: send 1048576b to 1 tag 123456789
l2: send 16b to 2 tag 7
l3: recv 16b from -1 tag -1
l4: calc 1000
l2 irequires l1
l4 requires l3
}
rank 1 {
l1: recv 1048576b from 0 tag 123456789
l2: send 16b to 0 tag 99
l2 requires l1
}
rank 2 {
l1: recv 16b from -1 tag 7
l2: calc 5000
l2 requires l1
}
"""

DEADLOCK = """num_ranks 2
rank 0 {
l1: recv 16b from 1 tag 0
l2: send 16b to 1 tag 0
l2 requires l1
}
rank 1 {
l1: recv 16b from 0 tag 0
l2: send 16b to 0 tag 0
l2 requires l1
}
"""


@pytest.fixture()
def profile(tmp_path: Path) -> Path:
    """A built-in profile with round LogGOPS parameters and no noise models."""
    src = Path(cloudnoise.__file__).parent / "profiles" / "data" / "daint.json"
    data = json.loads(src.read_text())
    for key in ("latency_noise", "bandwidth_noise", "os_noise", "switch_draws"):
        data.pop(key, None)
    data["different_racks"].pop("os_noise", None)  # no noise models, and so no side files
    data["name"] = "test"
    data["loggops"].update({"L": 300, "o": 300, "g": 400, "G": 0.05, "O": 0.05, "S": 4096})
    p = tmp_path / "p.json"
    p.write_text(json.dumps(data))
    return p


def test_optable_renumbers_tags_and_keeps_wildcards() -> None:
    t = from_goal_text(MIXED)
    assert t.ranks == 3 and t.max_bytes == 1048576 and t.num_ops == 8
    assert t.tags == {123456789: 0, 7: 1, 99: 2}
    assert t.ops[0][2] == ("r", 16, -1, -1)
    assert ("c", 1000, -1, -1) in t.ops[0]
    assert (1, 0, 1) in t.deps[0] and (3, 2, 0) in t.deps[0]  # l2 irequires l1, l4 requires l3
    assert t.ops[1][0] == ("r", 1048576, 0, 0) and t.ops[2][0] == ("r", 16, -1, 1)
    text = t.text()
    assert text.startswith("cloudnoise-optable 1\nranks 3\nmax_bytes 1048576\nrank 0 ops 4 deps 2\n")


def _validate(tmp_path: Path, goal: str, *args: str, timeout: float = 120):
    f = tmp_path / "s.goal"
    f.write_text(goal)
    return run("validate", str(f), *args, timeout=timeout)


def test_calc_chain_measures_its_duration(tmp_path: Path, profile: Path) -> None:
    mpi_or_skip()
    out = tmp_path / "out"
    proc = _validate(tmp_path, CALC_CHAIN, "--profile", str(profile), "--reps", "20", "--warmup", "2",
                     "--out", str(out), "--json")
    assert proc.returncode == 0, proc.stderr
    row = json.loads(proc.stdout)["results"][0]
    # two 1 ms busy-waits in a chain, then one small message: never less than
    # 2 ms, and close to it when the ranks are not preempted (the fastest
    # repetition; on a busy shared machine the median can be a time slice more)
    assert row["measured_ns"]["min"] >= 2_000_000
    assert row["measured_ns"]["min"] < 2_000_000 * 1.1
    assert row["measured_median_us"] >= 2000
    assert abs(row["simulated_median_us"] - 2000.9) < 1.0
    import pyarrow.parquet as pq

    m = pq.read_table(out / "measured.parquet").to_pandas()
    assert len(m) == 2 * 20 and set(m["rank"]) == {0, 1}
    # runtime: the latest end less the earliest start and the cost of one clock read
    from cloudnoise.measurement.samples import read_info

    read = round(float(read_info(out / "ranks0002" / "raw" / "exec.rank0.info")["timer_overhead_ns"]))
    g = m.groupby("rep")
    want = g["end_ns"].max().to_numpy() - g["start_delay_ns"].min().to_numpy() - read
    assert (want == g["runtime_ns"].first().to_numpy()).all()
    s = pq.read_table(out / "simulated.parquet").to_pandas()
    assert len(s) == 20
    assert (out / "validation.png").is_file() and (out / "validation.pdf").is_file()
    assert json.loads((out / "summary.json").read_text())["results"][0]["ranks"] == 2


def test_wildcards_irequires_and_rendezvous_complete(tmp_path: Path, profile: Path) -> None:
    mpi_or_skip()
    proc = _validate(tmp_path, MIXED, "--profile", str(profile), "--reps", "20", "--warmup", "2", "--json")
    assert proc.returncode == 0, proc.stderr
    row = json.loads(proc.stdout)["results"][0]
    assert row["ranks"] == 3 and row["reps"] == 20
    # 1 MiB cannot move in less than ~10 us even through shared memory
    assert row["measured_median_us"] > 10


def test_json_contract_dissemination(tmp_path: Path, profile: Path) -> None:
    mpi_or_skip()
    proc = run("validate", "--pattern", "dissemination", "--size", "16B", "--ranks", "2", "--reps", "50",
               "--profile", str(profile), "--json", "--timeout", "2min", timeout=120)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert [r["ranks"] for r in data["results"]] == [2]
    row = data["results"][0]
    for key in ("ranks", "measured_median_us", "simulated_median_us", "relative_error_median",
                "relative_error_mean", "measured_median_ci_us", "simulated_mean_ci_us"):
        assert key in row
    assert row["measured_median_us"] > 0
    # no noise in this profile: LogGOPS says o + L + (s - 1) G + o for one exchange
    assert row["simulated_median_us"] == pytest.approx((300 + 300 + 15 * 0.05 + 300) / 1000)
    m, s = row["measured_median_us"], row["simulated_median_us"]
    assert row["relative_error_median"] == pytest.approx(abs(s - m) / m)
    lo, hi = row["measured_median_ci_us"]
    assert lo <= m <= hi
    # the state probes ran before the repetitions and after them; this profile has no core probe, and
    # its one-way 1 B time (900 ns) is the model's
    core, ping = row["core_latency_ns"], row["pingpong_ref_ns"]
    assert core["probes"] == 2 and core["min"] > 0 and core["profile"] is None
    assert ping["probes"] == 2 and ping["min"] > 0 and ping["profile"] == pytest.approx(900.0)
    assert row["machine_state"] in ("same", "different", "changed")


def test_validate_api_runs_here_and_prints_nothing(profile: Path, capfd: pytest.CaptureFixture[str]) -> None:
    """cloudnoise.validate(pattern=..., ranks=[2]): the command's run on this machine, returned, not printed."""
    mpi_or_skip()
    result = cloudnoise.validate(pattern="dissemination", size="16B", ranks=[2], reps=20, warmup=2,
                                 profile=profile, timeout="2min")
    assert capfd.readouterr().out == ""
    assert result.kind == "run" and [r["ranks"] for r in result.rows] == [2]
    row = result.rows[0]
    # the same LogGOPS answer as the command's (test_json_contract_dissemination)
    assert row["simulated_median_us"] == pytest.approx((300 + 300 + 15 * 0.05 + 300) / 1000)
    assert row["measured_median_us"] > 0 and result.summary["reps"] == 20 and result.summary["warmup"] == 2
    assert result.to_dict()["results"] == result.rows


def test_a_run_in_another_machine_state_says_so(tmp_path: Path, profile: Path) -> None:
    """A profile measured with its cores 1 ms apart (no real machine): the
    run's probes read far less, so the row says the state differs and why."""
    mpi_or_skip()
    data = json.loads(profile.read_text())
    data["hardware"]["core_latency_ns"] = 1e6
    profile.write_text(json.dumps(data))
    proc = run("validate", "--pattern", "dissemination", "--size", "16B", "--ranks", "2", "--reps", "10",
               "--profile", str(profile), "--json", "--timeout", "2min", timeout=120)
    assert proc.returncode == 0, proc.stderr
    row = json.loads(proc.stdout)["results"][0]
    assert row["machine_state"] in ("different", "changed") and row["core_latency_ns"]["profile"] == 1e6
    assert any("between the first two ranks' cores took" in n and "1000000 ns" in n for n in row["notes"])


def test_deadlock_refused_before_launch(tmp_path: Path, profile: Path) -> None:
    start = time.monotonic()
    proc = _validate(tmp_path, DEADLOCK, "--profile", str(profile), "--out", str(tmp_path / "o"))
    assert proc.returncode == 3
    assert "cannot complete" in proc.stderr and "nothing was launched" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "o").exists()
    assert time.monotonic() - start < 30


def test_dying_rank_is_a_clean_error(tmp_path: Path, profile: Path) -> None:
    mpi_or_skip()
    proc = run("validate", "--pattern", "dissemination", "--size", "16B", "--ranks", "2", "--reps", "50",
               "--profile", str(profile), "--inject-crash", "1", "--out", str(tmp_path / "v"), timeout=120)
    assert proc.returncode == 4
    assert "died" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def test_missing_mpi_is_one_line(tmp_path: Path, profile: Path) -> None:
    proc = run("validate", "--pattern", "dissemination", "--size", "16B", "--ranks", "2", "--profile", str(profile),
               "--mpicc", str(tmp_path / "no-mpicc"))
    assert proc.returncode == 4
    assert len(proc.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("bad", ["soon", "0", "-5s", "nan"])
def test_timeout_is_a_wall_duration(profile: Path, bad: str) -> None:
    proc = run("validate", "--pattern", "dissemination", "--size", "16B", "--ranks", "2", "--profile", str(profile),
               "--timeout", bad)
    assert proc.returncode == 2 and "--timeout" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def test_profile_or_parameters_required() -> None:
    proc = run("validate", "--pattern", "dissemination", "--size", "16B", "--ranks", "2")
    assert proc.returncode == 2 and "--profile" in proc.stderr


def test_goal_file_ranks_cannot_change(tmp_path: Path, profile: Path) -> None:
    proc = _validate(tmp_path, CALC_CHAIN, "--profile", str(profile), "--ranks", "4")
    assert proc.returncode == 2 and "2 ranks" in proc.stderr


def test_comparison_statistics_known_answer() -> None:
    from cloudnoise.validation.compare import compare

    c = compare(2, np.full(11, 1000.0), {"none": np.full(11, 1100.0)}, "none")
    row = c.row()
    assert row["measured_median_us"] == 1.0 and row["simulated_median_us"] == 1.1
    assert row["relative_error_median"] == pytest.approx(0.1)
    assert row["signed_error_median"] == pytest.approx(0.1)
    assert row["within_paper_bound"] is True


def test_application_runs_per_rank_count(tmp_path: Path, profile: Path) -> None:
    mpi_or_skip()
    proc = run("validate", "--app", "compute:200us + dissemination:16B", "--iterations", "3", "--ranks", "2",
               "--reps", "10", "--warmup", "1", "--profile", str(profile), "--json", timeout=120)
    assert proc.returncode == 0, proc.stderr
    row = json.loads(proc.stdout)["results"][0]
    # three 200 us compute phases in sequence: at least 600 us measured and simulated
    assert row["measured_ns"]["min"] >= 600_000
    assert row["simulated_median_us"] >= 600


def test_suite_one_table_with_summary(tmp_path: Path, profile: Path) -> None:
    """`validate --suite`: every built-in configuration measured and simulated,
    the median and worst |error| over them; ranks on one host share rank 0's
    clock (offset 0, not a ping-pong estimate)."""
    mpi_or_skip()
    from cloudnoise.validation.suite import SUITE

    out = tmp_path / "suite"
    proc = run("validate", "--suite", "--profile", str(profile), "--reps", "5", "--warmup", "1", "--json",
               "--out", str(out), timeout=300)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert [r["config"] for r in data["results"]] == [f"{e.pattern} {e.size}" for e in SUITE]
    assert {r["ranks"] for r in data["results"]} == {2} and data["reps"] == 5
    errors = [abs(r["signed_error_median"]) for r in data["results"]]
    assert data["median_abs_error"] == pytest.approx(float(np.median(errors)))
    assert data["worst_abs_error"] == pytest.approx(max(errors)) and data["worst"].endswith("on 2 ranks")
    # no noise in this profile: one 16 B exchange is o + L + 15 G + o
    first = data["results"][0]
    assert first["simulated_median_us"] == pytest.approx((300 + 300 + 15 * 0.05 + 300) / 1000)
    assert (out / "suite.json").exists()
    info = next(out.glob("00-*/raw/exec.rank0.info")).read_text()
    assert "clock_shared_rank1=1" in info and "offset_rank1_rep0_ns=0" in info
    # without --json: the table and its summary line
    text = run("validate", "--suite", "--profile", str(profile), "--reps", "3", "--warmup", "0",
               timeout=300).stdout
    assert "allreduce_ring 16MiB" in text and "median |error|" in text


def test_suite_brings_its_own_collectives(profile: Path) -> None:
    proc = run("validate", "--suite", "--pattern", "dissemination", "--size", "16B", "--profile", str(profile))
    assert proc.returncode == 2 and "--suite brings its own" in proc.stderr


def test_model_build_check_stores_the_suite_errors(tmp_path: Path) -> None:
    """`model build --check`: the suite's errors go into the profile with what
    they were measured on (a campaign of synthetic loggp samples here)."""
    mpi_or_skip()
    from loggp_synthetic import samples

    from cloudnoise.measurement import loggp
    from cloudnoise.model.profile import load_profile

    camp = tmp_path / "camp"
    (camp / "loggp").mkdir(parents=True)
    (camp / "metadata.json").write_text(json.dumps({"experiments": {"loggp": {"complete": True}},
                                                    "labels": {"system": "synthetic"}}))
    (camp / "loggp" / "summary.json").write_text(json.dumps({"loggp": loggp.fit(samples(core_ns=60.0), train=8)}))
    out = tmp_path / "p.json"
    proc = run("model", "build", str(camp), "-o", str(out), "--check", "--check-reps", "3", timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "stored the check" in proc.stdout
    check = load_profile(out).check
    assert check is not None and check.ranks == 2 and check.reps == 3 and len(check.results) == 9
    assert check.provenance.kind == "measured" and "validate --suite on" in check.provenance.source
    assert check.worst_abs_error == pytest.approx(max(abs(r["error"]) for r in check.results))
    # the machine state the fit kept, and how many configurations ran in it
    assert load_profile(out).hardware.core_latency_ns == pytest.approx(60.0, rel=0.05)
    assert check.machine_state["configs"] == 9
    assert all(r["machine_state"] in ("same", "different", "changed") for r in check.results)
    # the profile still simulates with its separate overheads and size classes
    from cloudnoise.simulation.params import LogGOPS

    params = LogGOPS.from_profile(load_profile(out))
    assert params.o_r_ps is not None and len(params.classes) == 3


def test_repetition_runtime_is_latest_end_less_earliest_start_and_one_read() -> None:
    from cloudnoise.validation.executor import repetition_runtimes

    rep = np.array([0, 0, 1, 1])
    end = np.array([500, 700, 900, 800])  # ns after the common start, per rank
    delay = np.array([40, 20, 10, 3000])  # the second rank of repetition 1 started late
    got = repetition_runtimes(2, rep, end, delay, read_ns=60.4)
    assert got.tolist() == [700 - 20 - 60, 900 - 10 - 60]


def test_period_starts_a_block_on_one_schedule(tmp_path: Path) -> None:
    """cn_goal_exec --period-us: within a block (between resynchronisations)
    repetition k starts at the block's broadcast start + k x period, exactly;
    a new block starts from a new broadcast."""
    mpi_or_skip()
    from cloudnoise.measurement.mpi import find_mpi
    from cloudnoise.validation import executor
    from cloudnoise.validation.optable import from_goal_text

    exchange = "num_ranks 2\nrank 0 {\nl1: send 16b to 1 tag 0\nl2: recv 16b from 1 tag 0\n}\n" \
               "rank 1 {\nl1: send 16b to 0 tag 0\nl2: recv 16b from 0 tag 0\n}\n"
    req = executor.ExecRequest(table=from_goal_text(exchange), reps=30, warmup=0, workdir=tmp_path, resync=10,
                               period_us=50.0)
    m = executor.run(req, find_mpi())
    starts = np.array([m.start_ns[(m.rank == 0) & (m.rep == k)][0] for k in range(30)])
    gaps = np.diff(starts)
    within = [k for k in range(29) if (k + 1) % 10 != 0]
    assert set(gaps[within].tolist()) == {50_000}
    assert all(gaps[k] != 50_000 for k in (9, 19))  # each block starts from its own broadcast
    assert m.runtime_ns.min() > 0


def test_rep_gap_paces_each_block_by_the_last_blocks_runtimes(tmp_path: Path) -> None:
    """cn_goal_exec --gap-us (validate --rep-gap): a block's repetitions start
    exactly one period apart, and the period is the 90th percentile of the
    previous block's runtimes (latest rank end after the common start) plus
    the gap; the warm-up repetitions form a block of their own."""
    mpi_or_skip()
    from cloudnoise.measurement.mpi import find_mpi
    from cloudnoise.validation import executor
    from cloudnoise.validation.optable import from_goal_text

    exchange = "num_ranks 2\nrank 0 {\nl1: send 16b to 1 tag 0\nl2: recv 16b from 1 tag 0\n}\n" \
               "rank 1 {\nl1: send 16b to 0 tag 0\nl2: recv 16b from 0 tag 0\n}\n"
    gap_ns = 5000
    req = executor.ExecRequest(table=from_goal_text(exchange), reps=30, warmup=10, workdir=tmp_path, resync=10,
                               gap_us=gap_ns / 1000)
    m = executor.run(req, find_mpi())
    assert len(m.period_ns) == 3  # at the first measured repetition, then every 10
    starts = np.array([m.start_ns[(m.rank == 0) & (m.rep == k)][0] for k in range(30)])
    for block in range(3):
        gaps = np.diff(starts[10 * block:10 * block + 10])
        assert set(gaps.tolist()) == {int(m.period_ns[block])}
    # every rank's end after the common start, latest per repetition
    ends = np.full(30, np.iinfo(np.int64).min)
    np.maximum.at(ends, m.rep, m.end_ns)
    for block in (1, 2):
        previous = np.sort(ends[10 * (block - 1):10 * block])
        assert m.period_ns[block] == previous[8] + gap_ns  # ceil(0.9 x 10) - 1
    assert all(p >= gap_ns for p in m.period_ns)


def test_rep_gap_option_is_checked_and_reported(tmp_path: Path) -> None:
    """validate --rep-gap: a time with a unit or in ns; out of range is a one-line
    error (exit 2); a paced run reports the gap and the blocks' periods."""
    from cloudnoise.errors import CloudnoiseError
    from cloudnoise.validation.api import parse_rep_gap

    assert parse_rep_gap("2us") == 2000 and parse_rep_gap("500") == 500 and parse_rep_gap(None) is None
    for bad in ("0", "-1us", "2s", "abc"):
        with pytest.raises(CloudnoiseError):
            parse_rep_gap(bad)
    params = ("--L", "100", "--o", "200", "--g", "100", "--G", "0.1")
    proc = run("validate", "--pattern", "dissemination", "--size", "16B", "--ranks", "2", *params, "--rep-gap", "2s")
    assert proc.returncode == 2 and "--rep-gap" in proc.stderr and "Traceback" not in proc.stderr
    proc = run("validate", "--trace", str(tmp_path), *params, "--rep-gap", "1us")
    assert proc.returncode == 2 and "--rep-gap does not go with validate --trace" in proc.stderr
    mpi_or_skip()
    proc = run("validate", "--pattern", "dissemination", "--size", "16B", "--ranks", "2", *params, "--reps", "120",
               "--warmup", "10", "--rep-gap", "3us", "--json")
    assert proc.returncode == 0, proc.stderr
    row = json.loads(proc.stdout)["results"][0]
    assert row["rep_gap_ns"] == 3000 and len(row["period_ns"]) == 2 and min(row["period_ns"]) >= 3000


def test_progress_names_the_configuration_running() -> None:
    """validate's progress (stderr) is off with --quiet or --json, and says which
    configuration is being measured."""
    from cloudnoise.validation.progress import configuration_progress

    assert configuration_progress({"quiet": True}).quiet
    assert configuration_progress({"as_json": True}).quiet
    bar = configuration_progress({})
    assert not bar.quiet
    bar.update(0, 2, "dissemination 16B on 2 ranks")
    bar.update(1, 2, "gather 1KiB on 2 ranks")
    assert bar.status_line().startswith("validate: 50% (gather 1KiB on 2 ranks), ")


def test_ctrl_c_mid_launch_exits_130_and_leaves_no_scratch_folder(tmp_path: Path) -> None:
    """Interrupted, not failed: exit 130 with one line, no rank left running, and
    without --out the scratch folder goes (no error names it for the user to read)."""
    import signal
    import subprocess

    from measure_support import cloudnoise_cmd, env

    mpi_or_skip()
    proc = subprocess.Popen(
        cloudnoise_cmd("validate", "--pattern", "dissemination", "--size", "16B", "--ranks", "2", "--L", "100",
                       "--o", "200", "--g", "100", "--G", "0.1", "--reps", "2000000", "--noise", "none"),
        env=env(TMPDIR=str(tmp_path)), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        deadline = time.monotonic() + 60
        # the ranks are running once they write their info files
        while not list(tmp_path.glob("cloudnoise-validate-*/ranks0002/raw/exec.rank1.info")):
            assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
            time.sleep(0.05)
        time.sleep(0.3)
        os.killpg(proc.pid, signal.SIGINT)  # as a terminal's Ctrl-C: the whole process group
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 130, err
    assert [ln for ln in err.splitlines() if ln.strip()] == ["cloudnoise: interrupted"]
    assert list(tmp_path.glob("cloudnoise-validate-*")) == []


def test_work_folder_keeps_what_a_failure_names_and_nothing_else(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """validate's raw files: --out is the user's and stays; a temporary folder goes
    when the run completes or is interrupted, and stays when it fails (the error
    names the launch log inside it)."""
    import tempfile

    from cloudnoise.validation.work_folder import work_folder

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    with work_folder(None, "wf-") as done:
        (done / "x").write_text("x")
    assert not done.exists()
    with pytest.raises(KeyboardInterrupt), work_folder(None, "wf-") as stopped:
        raise KeyboardInterrupt
    assert not stopped.exists()
    with pytest.raises(RuntimeError), work_folder(None, "wf-") as failed:
        raise RuntimeError("rank died")
    assert failed.exists()
    out = tmp_path / "mine" / "val"
    with pytest.raises(KeyboardInterrupt), work_folder(out, "wf-") as given:
        raise KeyboardInterrupt
    assert given == out and out.is_dir()


def test_a_dead_rank_is_named_from_either_mpiexec_log(tmp_path: Path) -> None:
    """MPICH's hydra and Open MPI's mpiexec say a rank died in different words; both are read."""
    from cloudnoise.validation.executor import _explain_failure

    hydra = ("===================================================================================\n"
             "=   BAD TERMINATION OF ONE OF YOUR APPLICATION PROCESSES\n"
             "=   EXIT CODE: 134\n"
             "=   EXIT STRING: Aborted (signal 6)\n")
    open_mpi = ("--------------------------------------------------------------------------\n"
                "mpiexec noticed that process rank 1 with PID 0 on node vm exited on signal 6 (Aborted).\n"
                "--------------------------------------------------------------------------\n")
    for name, text in (("hydra", hydra), ("open-mpi", open_mpi)):
        log = tmp_path / f"{name}.log"
        log.write_text(text)
        said = _explain_failure("the launch failed (exit 134): ----", log, 2)
        assert "died" in said and "signal 6" in said and "Aborted" in said, (name, said)
        assert said.startswith("rank 1 ") == (name == "open-mpi"), said
