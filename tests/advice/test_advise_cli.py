"""`cloudnoise advise` end to end on tiny workloads: the JSON contract with every
point, the table and CSV, reuse of a sweep folder, strong scaling and GOAL files
with known answers, and bad input as one line with exit status 2."""

from __future__ import annotations

import csv
import io
import json
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from cloudnoise.sweep import load_results
from cloudnoise.sweep.store import by_config

from measure_support import env

Runner = Callable[..., subprocess.CompletedProcess[str]]
TINY = ("dissemination:16B", "--profile", "azure-hpc,daint", "--nodes", "4,8", "--reps", "20", "--in-process")


@pytest.fixture
def advise(capsys: pytest.CaptureFixture[str]) -> Runner:
    """`cloudnoise advise ARGS` in this process, through the CLI's entry point (errors
    become one line and an exit status exactly as for users)."""
    from cloudnoise.cli import main

    def run(*args: object) -> subprocess.CompletedProcess[str]:
        capsys.readouterr()
        try:
            main(["advise", *map(str, args)])
            code = 0
        except SystemExit as exit_:
            code = int(exit_.code or 0)
        out = capsys.readouterr()
        return subprocess.CompletedProcess(["advise", *map(str, args)], code, out.out, out.err)

    return run


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    """The tiny advice, run once, its simulations kept in a folder."""
    from cloudnoise.cli import main

    folder = tmp_path_factory.mktemp("advise") / "runs"
    import contextlib

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        main(["advise", *TINY, "--deadline", "40us", "--sweep", str(folder), "--json"])
    return folder, json.loads(buf.getvalue())


def test_json_has_every_point_and_the_advice(tiny: tuple[Path, dict]) -> None:
    folder, doc = tiny
    assert doc["systems"] == ["azure-hpc", "daint"] and doc["nodes"] == [4, 8] and doc["reps"] == 20
    assert {(p["system"], p["nodes"]) for p in doc["points"]} == {(s, n) for s in ("azure-hpc", "daint") for n in (4, 8)}
    assert doc["reps_simulated"] == 2 * 2 * 2 * 20 and doc["reps_reused"] == 0
    # the numbers agree with the kept simulations
    runs = by_config(load_results(folder))
    for p in doc["points"]:
        noisy, base = runs[(p["system"], p["nodes"], "both")], runs[(p["system"], p["nodes"], "none")]
        assert p["runtime_p50_ns"] == pytest.approx(float(np.median(noisy)))
        assert p["runtime_p99_ns"] == pytest.approx(float(np.quantile(noisy, 0.99)))
        assert p["noiseless_runtime_ns"] == pytest.approx(float(np.median(base)))
        assert p["deadline_miss_fraction"] == pytest.approx(float(np.mean(noisy > 40_000)))
        assert p["price_date"] == "2022-07-18" and p["pricing"] == "on-demand"
    daint = next(p for p in doc["points"] if p["system"] == "daint" and p["nodes"] == 4)
    # daint: 1.73 USD/node-hour, billed by the second: a run of microseconds costs one second
    assert daint["cost_p50_usd"] == pytest.approx(1 / 3600 * 4 * 1.73) and daint["billing"] == "per-second"
    azure = next(p for p in doc["points"] if p["system"] == "azure-hpc" and p["nodes"] == 4)
    assert azure["cost_p50_usd"] == pytest.approx(300 / 3600 * 4 * 3.168)  # Azure's 5-minute minimum
    assert {tuple(f.values()) for f in doc["front"]} <= {(p["system"], p["nodes"]) for p in doc["points"] if p["on_front"]}
    rec = doc["recommendation"]
    assert rec["system"] == "daint" and rec["objective"] == "cheapest" and rec["why"].startswith(f"daint at {rec['nodes']} nodes")
    assert doc["prices"]["azure-hpc"]["billing"]["minimum_s"] == 300
    assert any("p99 from 20 repetitions" in n for n in doc["notes"])


def test_rerun_reuses_the_folder_and_adds_only_what_is_missing(tiny: tuple[Path, dict], advise: Runner) -> None:
    folder, first = tiny
    again = advise(*TINY, "--deadline", "40us", "--sweep", folder, "--json")
    assert again.returncode == 0, again.stderr
    doc = json.loads(again.stdout)
    assert doc["reps_simulated"] == 0 and doc["points"] == first["points"]
    # another system: only its runs are simulated; the folder stays one sweep grid
    more = advise("dissemination:16B", "--profile", "azure-hpc,daint,gcp-hpc", "--nodes", "4,8", "--in-process",
                  "--sweep", folder, "--json")
    assert more.returncode == 0, more.stderr
    doc = json.loads(more.stdout)
    assert doc["reps_simulated"] == 1 * 2 * 2 * 20 and doc["reps"] == 20
    meta = json.loads((folder / "sweep.json").read_text())
    assert meta["systems"] == ["azure-hpc", "daint", "gcp-hpc"] and meta["complete"]


def test_table_and_csv(tiny: tuple[Path, dict], advise: Runner) -> None:
    folder, doc = tiny
    table = advise(*TINY, "--deadline", "40us", "--sweep", folder, "--points", "all")
    assert table.returncode == 0, table.stderr
    out = table.stdout
    assert "Every point: dissemination of 16B per step" in out and "P(late)" in out
    assert "Recommendation: daint at" in out and "as of 2022-07-18" in out and "per-second, 5 min minimum" in out
    assert out.count("azure-hpc") >= 2 and "…" not in out
    front = advise(*TINY, "--sweep", folder, "--csv")
    rows = list(csv.DictReader(io.StringIO(front.stdout)))
    assert rows and all(r["on_front"] == "True" for r in rows)
    assert {"runtime_p99_ns", "cost_p99_usd", "noise_cost_percent", "price_date"} <= set(rows[0])


def test_strong_scaling_divides_compute_over_the_nodes(tmp_path: Path, advise: Runner) -> None:
    common = ("--profile", "daint", "--nodes", "4,16", "--reps", "3", "--in-process", "--billing", "exact", "--json")
    strong = advise("compute:16ms + dissemination:8B", "--scaling", "strong", "--sweep", tmp_path / "s", *common)
    alone = advise("dissemination:8B", "--sweep", tmp_path / "c", *common)
    assert strong.returncode == 0 and alone.returncode == 0, strong.stderr + alone.stderr
    compute = by_config(load_results(tmp_path / "s"), "compute_ns")
    assert compute[("daint", 4, "none")][0] == 4e6 and compute[("daint", 16, "none")][0] == 1e6  # 16 ms / P
    s = {p["nodes"]: p for p in json.loads(strong.stdout)["points"]}
    c = {p["nodes"]: p for p in json.loads(alone.stdout)["points"]}
    for n in (4, 16):  # without noise: the compute share plus the collective alone
        assert s[n]["noiseless_runtime_ns"] == pytest.approx(16e6 / n + c[n]["noiseless_runtime_ns"])
    weak = advise("compute:16ms + dissemination:8B", "--sweep", tmp_path / "w", *common)
    w = {p["nodes"]: p for p in json.loads(weak.stdout)["points"]}
    assert w[16]["noiseless_runtime_ns"] == pytest.approx(16e6 + c[16]["noiseless_runtime_ns"])
    assert "strong scaling" in json.loads(strong.stdout)["workload"]["description"]


def test_goal_file_is_advised_at_its_rank_count(tmp_path: Path, advise: Runner) -> None:
    from cloudnoise.schedules.patterns import CollectiveSpec, write_goal

    goal = tmp_path / "d8.goal"
    write_goal(CollectiveSpec("dissemination", 8, 16), goal)
    ok = advise(goal, "--profile", "daint", "--reps", "5", "--in-process", "--json")
    assert ok.returncode == 0, ok.stderr
    doc = json.loads(ok.stdout)
    assert doc["nodes"] == [8] and doc["workload"]["kind"] == "goal" and doc["workload"]["ranks"] == 8
    bad = advise(goal, "--profile", "daint", "--nodes", "16", "--reps", "5", "--in-process")
    assert bad.returncode == 2 and "runs on 8 nodes only" in bad.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("dissemination:16B", "--profile", "azure-hcp"), "no built-in profile 'azure-hcp'; did you mean 'azure-hpc'?"),
        (("disemination:16B", "--profile", "daint"), "no pattern 'disemination'; did you mean 'dissemination'?"),
        (("--pattern", "dissemination", "--size", "16B", "--profile", "daint", "--scaling", "strong"),
         "--scaling strong divides an application's compute phases"),
        (("dissemination:16B", "--profile", "daint", "--deadline", "-2ms"), "--deadline"),
        (("dissemination:16B", "--profile", "daint", "--budget", "lots"), "--budget takes a positive amount of US dollars"),
        (("dissemination:16B", "--profile", "daint", "--nodes", "64..16"), "ends below where it starts"),
        (("dissemination:16B", "--profile", "daint", "--billing", "often"), "--billing: cannot read 'often'"),
        (("dissemination:16B", "--profile", "daint", "--pricing", "no-such.csv"), "no-such.csv: no such price file"),
        (("dissemination:16B", "dissemination:8B"), "Got unexpected extra argument"),
        ((), "say what to advise on"),
        (("allreduce_ring:1MiB", "--schedgen", "paper", "--profile", "daint"), "has no pattern 'allreduce_ring'"),
        (("examples/dissemination_16.goal", "--schedgen", "paper", "--profile", "daint"),
         "--schedgen goes with a generated collective"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(args: tuple[str, ...], message: str, advise: Runner) -> None:
    proc = advise(*args, "--in-process", "--reps", "2")
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert message in proc.stderr and "Traceback" not in proc.stderr
    assert proc.stdout == ""


def test_bad_price_files_stop_before_simulating(tmp_path: Path, advise: Runner) -> None:
    cases = {
        "cols.csv": ("system,pricing,usd_per_node_hour\ndaint,on-demand,1.7\n", "cols.csv:1: missing columns date, source"),
        "neg.csv": ("system,pricing,usd_per_node_hour,date,source\ndaint,on-demand,-1,2024-01-01,x\n",
                    "neg.csv:2: usd_per_node_hour must be a positive number"),
        "date.csv": ("system,pricing,usd_per_node_hour,date,source\ndaint,on-demand,1.7,July 2024,x\n",
                     "date.csv:2: date must be YYYY-MM-DD"),
    }
    for name, (text, message) in cases.items():
        (tmp_path / name).write_text(text)
        proc = advise("dissemination:16B", "--profile", "daint", "--pricing", tmp_path / name, "--sweep", tmp_path / "s")
        assert proc.returncode == 2 and message in proc.stderr and proc.stderr.count("\n") == 1, proc.stderr
    assert not (tmp_path / "s").exists()  # nothing was simulated


def test_a_folder_that_is_no_trace_is_one_line_and_exit_2(tmp_path: Path, advise: Runner) -> None:
    proc = advise(tmp_path, "--profile", "daint", "--in-process")
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert str(tmp_path) in proc.stderr


def test_the_installed_command(tmp_path: Path) -> None:
    """What a user runs: a fresh process, a price file, the table on stdout."""
    prices = tmp_path / "p.csv"
    prices.write_text("system,pricing,usd_per_node_hour,date,source\ndaint,on-demand,2.5,2025-05-01,CSCS price list\n")
    proc = subprocess.run([sys.executable, "-m", "cloudnoise", "advise", "dissemination:16B", "--profile", "daint",
                           "--nodes", "4", "--reps", "5", "--in-process", "--prices", prices],
                          capture_output=True, text=True, timeout=120, env=env())
    assert proc.returncode == 0, proc.stderr
    assert "2.5 USD/node-hour on-demand, as of 2025-05-01 (CSCS price list" in proc.stdout
    assert "Recommendation: daint at 4 nodes: the only acceptable configuration" in proc.stdout


def test_off_a_terminal_advise_says_its_estimate_then_progress_lines(advise: Runner, monkeypatch: pytest.MonkeyPatch) -> None:
    """With stderr to a file: the estimate (timed on the workload itself) before any
    simulation, then a progress line per interval with the repetitions and the time left."""
    from cloudnoise import console

    monkeypatch.setattr(console, "PROGRESS_INTERVAL_S", 0.05)
    monkeypatch.setattr(console, "ESTIMATE_FLOOR_S", 0.0)
    p = advise("dissemination:16B", "--profile", "azure-hpc,daint", "--nodes", "64,256", "--reps", "100", "--in-process")
    assert p.returncode == 0, p.stderr
    lines = p.stderr.splitlines()
    said = [k for k, ln in enumerate(lines) if "estimate" in ln]
    assert len(said) == 1 and re.fullmatch(r"advise: simulating: estimate about \d+ s \(azure-hpc at 256 nodes timed here: "
                                           r".* simulated operations/s with both noise; 1 worker\)", lines[said[0]]), lines
    assert all("starting" in ln for ln in lines[:said[0]]), lines  # before any work is done
    status = [ln for ln in lines if "elapsed" in ln]
    assert any("%" in ln for ln in status), lines
    assert status and all(re.fullmatch(r"advise: simulating: (starting|\d+% \([\d,]+ of 800 repetitions\)), "
                                       r"\d+ s elapsed(, about \d+ s left)?", ln) for ln in status), lines
    assert lines[-1].startswith("advise: simulating: done in ")
    quiet = advise("dissemination:16B", "--profile", "azure-hpc,daint", "--nodes", "64,256", "--reps", "100",
                   "--in-process", "--quiet")
    assert quiet.returncode == 0 and quiet.stderr == "", quiet.stderr
