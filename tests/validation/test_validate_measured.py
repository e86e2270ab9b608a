"""`cloudnoise validate --measured DIR`: runs measured elsewhere against the
simulation of their schedules, with known measured times and a LogGOPS case
worked out by hand."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import pytest

PARAMS = ["--L", "1000", "--o", "100", "--g", "0", "--G", "0", "--O", "0", "--S", "65535"]


def write_run(path: Path, rows: list[list[float]], size: int = 16) -> None:
    head = "#MessageSize " + "".join(f"Rank{r}Time(us) " for r in range(len(rows[0])))
    path.write_text(head + "\n" + "".join(f"{size} " + "".join(f"{t:f} " for t in row) + "\n" for row in rows))


@pytest.fixture
def runs(tmp_path: Path) -> Path:
    folder = tmp_path / "2022_05_10_21_34_00"
    folder.mkdir()
    # slowest ranks: 2.0, 3.0, 2.5 us -> median 2.5 us, p90 2.9 us
    write_run(folder / "nwaydissemination_nocompute_4_16.csv",
              [[1.0, 2.0, 0.5, 1.5], [3.0, 1.0, 1.0, 1.0], [2.5, 2.5, 2.5, 2.5]])
    write_run(folder / "nwaydissemination_nocompute_test_4_16.csv", [[2.4, 2.0, 1.0, 1.0]])
    (folder / "pipelinedring_4_16.csv").write_text("#MessageSize Rank0Time(us) \n16 1.0\n")  # damaged
    write_run(folder / "pipelinedring_32_16.csv", [[1.0] * 32])  # no schedule: a segment of 0 B
    return tmp_path


def test_measured_runs_are_compared_with_their_schedules(run_cli, runs: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    res = run_cli("validate", "--measured", runs, *PARAMS, "--noise", "none", "--reps", "3", "--json", "--out", out)
    assert res.returncode == 0, res.stderr
    result = json.loads(res.stdout)
    rows = {r["config"]: r for r in result["results"]}
    assert set(rows) == {"nwaydissemination_nocompute 16 B", "nwaydissemination_nocompute_test 16 B"}
    row = rows["nwaydissemination_nocompute 16 B"]
    # two rounds of o + L + o = 1200 ns each
    assert row["simulated_median_us"] == pytest.approx(2.4) and row["simulated_p90_us"] == pytest.approx(2.4)
    assert row["measured_median_us"] == pytest.approx(2.5) and row["measured_p90_us"] == pytest.approx(2.9)
    assert row["signed_error_median"] == pytest.approx(-0.04) and row["within_paper_bound"] is True
    assert row["signed_error_p90"] == pytest.approx((2.4 - 2.9) / 2.9)
    assert (row["ranks"], row["reps"], row["run"], row["variant"]) == (4, 3, "2022_05_10_21_34_00", "nocompute")
    assert rows["nwaydissemination_nocompute_test 16 B"]["measured_median_us"] == pytest.approx(2.4)
    assert result["median_abs_error"] == pytest.approx(0.02)
    assert result["worst_abs_error"] == pytest.approx(0.04)
    assert len(result["refused"]) == 2
    assert any("pipelinedring_4_16.csv:1: the header has 1 ranks" in line for line in result["refused"])
    assert any("pipelinedring_32_16.csv: 16 B over 32 nodes is a segment of 0 B" in line for line in result["refused"])
    assert json.loads((out / "summary.json").read_text())["results"] == result["results"]
    assert [Path(f).suffix for f in result["figures"]] == [".png", ".pdf", ".png", ".pdf"]
    assert all(Path(f).is_file() for f in result["figures"])


def test_the_table_names_what_was_not_compared(run_cli, runs: Path) -> None:
    res = run_cli("validate", "--measured", runs, *PARAMS, "--noise", "none")  # 1000 simulated repetitions
    assert res.returncode == 0, res.stderr
    assert "1000 simulated repetitions" in res.stdout.replace("\n", " ")
    assert "nwaydissemination_nocompute 16 B" in res.stdout and "-4.0%" in res.stdout
    assert res.stdout.count("not compared:") == 2


@pytest.mark.parametrize("extra", [["--pattern", "dissemination", "--size", "16B"], ["--suite"], ["--ranks", "4"]])
def test_measured_refuses_a_second_workload(run_cli, runs: Path, extra: list[str]) -> None:
    res = run_cli("validate", "--measured", runs, *PARAMS, *extra)
    assert res.returncode == 2 and res.stderr.count("\n") == 1 and "--measured" in res.stderr


def test_nothing_comparable_is_an_error_not_an_empty_table(run_cli, tmp_path: Path) -> None:
    (tmp_path / "nwaydissemination_4_16.csv").write_text("")
    res = run_cli("validate", "--measured", tmp_path, *PARAMS)
    assert res.returncode == 2 and "could be compared" in res.stderr and res.stderr.count("\n") == 1
    res = run_cli("validate", "--measured", tmp_path / "absent", *PARAMS)
    assert res.returncode == 2 and "no such file or folder" in res.stderr
    res = run_cli("validate", "--measured", tmp_path)
    assert res.returncode == 2 and "needs --profile" in res.stderr


def _api_params() -> dict[str, str]:
    """PARAMS as cloudnoise.validate's keywords."""
    return {PARAMS[i].lstrip("-"): PARAMS[i + 1] for i in range(0, len(PARAMS), 2)}


def test_the_api_returns_the_rows_the_command_prints(run_cli, runs: Path, capsys) -> None:
    """cloudnoise.validate(measured=...) and `validate --measured ... --json`: the same rows and summary,
    and the API prints nothing."""
    import cloudnoise

    res = run_cli("validate", "--measured", runs, *PARAMS, "--noise", "none", "--reps", "3", "--json")
    assert res.returncode == 0, res.stderr
    printed = json.loads(res.stdout)
    result = cloudnoise.validate(measured=runs, **_api_params(), noise="none", reps=3)
    assert capsys.readouterr().out == ""
    assert isinstance(result, cloudnoise.ValidationResult) and result.kind == "measured"
    ours = json.loads(json.dumps(result.to_dict(), default=str))
    for summary in (ours, printed):  # when each ran: the two may straddle a second
        assert datetime.fromisoformat(summary.pop("time")).tzinfo is not None
    assert ours == printed
    assert result.rows == result.summary["results"] and len(result.rows) == 2
    row = {r["config"]: r for r in result.rows}["nwaydissemination_nocompute 16 B"]
    assert row["simulated_median_us"] == pytest.approx(2.4) and row["measured_median_us"] == pytest.approx(2.5)


@pytest.mark.parametrize("cli_extra, api_extra", [
    (["--ranks", "4"], {"ranks": [4]}),
    (["--pattern", "dissemination", "--size", "16B"], {"pattern": "dissemination", "size": "16B"}),
    (["--rep-gap", "5s"], {"rep_gap": "5s"}),
])
def test_the_api_raises_the_commands_one_line_error(run_cli, runs: Path, cli_extra: list[str],
                                                    api_extra: dict[str, object]) -> None:
    import cloudnoise

    res = run_cli("validate", "--measured", runs, *PARAMS, *cli_extra)
    assert res.returncode == 2 and res.stderr.count("\n") == 1
    with pytest.raises(cloudnoise.CloudnoiseError) as raised:
        cloudnoise.validate(measured=runs, **_api_params(), **api_extra)
    assert raised.value.exit_code == 2
    assert str(raised.value) in res.stderr


def test_the_api_without_a_model_says_what_to_give(runs: Path) -> None:
    import cloudnoise

    with pytest.raises(cloudnoise.CloudnoiseError, match="--measured needs --profile"):
        cloudnoise.validate(measured=runs)


def test_several_runs_give_the_run_to_run_spread(run_cli, runs: Path) -> None:
    # a second run of the same program: medians 2.5 (first run) and 3.5 us; simulated 2.4 us
    second = runs / "2022_05_11_09_00_00"
    second.mkdir()
    write_run(second / "nwaydissemination_nocompute_4_16.csv", [[3.5, 1.0, 1.0, 1.0]] * 3)
    res = run_cli("validate", "--measured", runs, *PARAMS, "--noise", "none", "--reps", "3", "--json")
    assert res.returncode == 0, res.stderr
    spread = json.loads(res.stdout)["spread"]
    assert spread["configurations"] == 1  # the _test program ran once: no spread
    (c,) = spread["configs"]
    assert c["runs"] == ["2022_05_10_21_34_00", "2022_05_11_09_00_00"]
    assert c["measured_medians_us"] == pytest.approx([2.5, 3.5]) and c["spread"] == pytest.approx(1.4)
    # 2.4 us: below the runs' range by 4 %, inside it once widened by 10 %
    assert c["variants"]["none"]["position"] == "below by 4%" and c["variants"]["none"]["inside_with_bound"]
    assert spread["by_variant"]["none"] == {"inside_range": 0, "inside_range_with_bound": 1}
    text = run_cli("validate", "--measured", runs, *PARAMS, "--noise", "none", "--reps", "3")
    assert "measured run-to-run spread" in text.stdout and "differ by a median 1.40x" in text.stdout
    # one run of each: no spread table
    one = run_cli("validate", "--measured", runs / "2022_05_10_21_34_00", *PARAMS, "--noise", "none", "--reps", "3",
                  "--json")
    assert json.loads(one.stdout)["spread"] is None
