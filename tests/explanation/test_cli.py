"""`cloudnoise explain` and `simulate --timeline` as a user runs them: the JSON contract,
the CSV, the timeline written, and bad input as one line with exit status 2."""

from __future__ import annotations

import csv
import io
import json

import pytest

from cloudnoise.cli import main

CASE = ["--pattern", "dissemination", "--ranks", "64", "--size", "16B", "--profile", "azure-hpc", "--reps", "12"]


def run_here(*args: str) -> int:
    """The command in this process (no interpreter start): its exit status."""
    try:
        main([str(a) for a in args])
    except SystemExit as done:
        return int(done.code or 0)
    return 0


def test_json_has_every_variant_read(run_cli):
    proc = run_cli("explain", *CASE, "--noise", "both", "--json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert list(out["variants"]) == ["none", "both"] and out["ranks"] == 64 and out["reps"] == 12
    both = out["variants"]["both"]
    assert {s["kind"] for s in both["shares"]} >= {"L", "o", "os_noise", "latency_noise", "bandwidth_noise"}
    assert sum(s["mean_fraction"] for s in both["shares"]) == pytest.approx(1.0)
    assert set(both["slowdown"]["by_noise_ns"]) == {"os_noise", "latency_noise", "bandwidth_noise"}
    assert both["tail"]["median_cause"] in ("os_noise", "latency_noise", "bandwidth_noise", "none")
    assert out["profile"]["name"] == "azure-hpc"


def test_csv_and_table(capsys):
    assert run_here("explain", *CASE, "--csv") == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert {r["variant"] for r in rows} == {"none", "both"}
    assert run_here("explain", *CASE) == 0
    table = capsys.readouterr().out
    assert "slowdown from none" in table and "L: latency" in table


def test_simulate_and_explain_write_a_timeline(tmp_path, capsys):
    for command in ("simulate", "explain"):
        path = tmp_path / f"{command}.json"
        assert run_here(command, *CASE, "--timeline", path, "--timeline-rep", "p99,3", "--timeline-ranks", "0-7",
                        "--quiet") == 0, capsys.readouterr().err
        data = json.loads(path.read_text())
        reps = [r["repetition"] for r in data["otherData"]["repetitions"]]
        assert len(reps) == 2 and 3 in reps
        ranks = {e["args"]["name"] for e in data["traceEvents"] if e["name"] == "process_name"}
        assert "rep 3 rank 7" in ranks and "rep 3 rank 8" not in ranks


@pytest.mark.parametrize(("args", "message"), [
    (["--timeline", "{tmp}/t.json", "--timeline-ranks", "64"], "rank 64 does not exist"),
    (["--timeline", "{tmp}/t.json", "--timeline-rep", "12"], "repetition 12 was not run"),
    (["--timeline", "{tmp}/t.json", "--timeline-window", "1s:"], "after repetition"),
    (["--timeline", "{tmp}/t.txt"], "is a .json file"),
    (["--timeline-window", "0:1us"], "goes with --timeline"),
    (["--noise", "loud"], "unknown variant"),
])
def test_bad_timeline_requests_are_one_line_and_exit_2(tmp_path, capsys, args, message):
    for command in ("simulate", "explain"):
        status = run_here(command, *CASE, *[a.replace("{tmp}", str(tmp_path)) for a in args])
        err = capsys.readouterr().err
        assert status == 2, (command, err)
        assert message in err and err.strip().count("\n") == 0, err


@pytest.mark.parametrize("within", ["150%", "0", "lots"])
def test_a_bad_within_is_one_line_and_exit_2(capsys, within):
    assert run_here("explain", *CASE, "--tolerance", "--within", within) == 2
    err = capsys.readouterr().err
    assert "--within" in err and err.strip().count("\n") == 0


def test_tolerance_in_json(capsys):
    assert run_here("explain", "--pattern", "dissemination", "--ranks", "16", "--size", "16B", "--L", "2500",
                    "--tolerance", "--within", "2%", "--json") == 0
    v = json.loads(capsys.readouterr().out)["variants"]["none"]
    t = v["tolerance"][0]
    assert t["within_fraction"] == 0.02 and t["bound_ns"] == t["simulated_ns"]
    assert t["tolerated_L_ns"] == pytest.approx(2500 + t["simulated_ns"])
    assert {s["term"] for s in v["sensitivity"]} == {"L", "o", "g", "G", "O"}
