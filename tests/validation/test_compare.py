"""validation/compare.py: one verdict over the median and the p90, with known
answers, and `validate --measured` saying so (summary line, JSON, a noise
variant that makes the tail worse than none)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from cloudnoise.validation.compare import compare, summarize_errors, verdict, verdict_lines

DATA = Path(__file__).resolve().parents[2] / "src" / "cloudnoise" / "profiles" / "data"
PARAMS = ["--L", "1000", "--o", "100", "--g", "0", "--G", "0", "--O", "0", "--S", "65535"]


def test_verdict_judges_median_and_p90():
    assert verdict(0.05, -0.09) == "within"
    assert verdict(0.05, 0.86) == "median only"
    assert verdict(0.3, 0.02) == "p90 only"
    assert verdict(-0.2, float("nan")) == "outside"
    assert verdict(0.12, 0.14, bound=0.15) == "within"


def test_a_comparison_knows_its_p90_errors():
    measured = np.arange(1.0, 11.0)  # median 5.5, p90 9.1
    c = compare(4, measured, {"none": np.full(10, 5.5), "network": np.arange(1.0, 11.0) * 2.0}, "none")
    none, net = c.errors("none"), c.errors("network")
    assert none["signed_error_median"] == 0.0 and none["signed_error_p90"] == pytest.approx(5.5 / 9.1 - 1)
    assert net["relative_error_p90"] == pytest.approx(1.0) and net["signed_error_median"] == pytest.approx(1.0)
    row = c.row()
    assert row["verdict"] == "median only" and row["within_paper_bound"] and not row["within_paper_bound_p90"]
    assert row["variants"]["network"]["p90_worse_than_none"] is True
    assert row["variants"]["none"]["p90_worse_than_none"] is None


def _row(config: str, med: float, p90: float, variants: dict[str, tuple[float, float]]) -> dict:
    return {"config": config, "ranks": 4, "signed_error_median": med, "signed_error_p90": p90,
            "variants": {v: {"signed_error_median": m, "signed_error_p90": t} for v, (m, t) in variants.items()}}


def test_the_summary_has_the_p90_beside_the_median_and_names_a_worse_tail():
    rows = [_row("a", 0.02, 0.05, {"none": (0.02, 0.05), "both": (0.01, 0.9)}),
            _row("b", -0.08, 0.30, {"none": (-0.08, 0.30), "both": (-0.05, 0.7)}),
            _row("c", 0.12, -0.12, {"none": (0.12, -0.12), "both": (0.03, 0.1)})]
    s = summarize_errors(rows)
    assert s["median_abs_error"] == pytest.approx(0.08) and s["worst_abs_error"] == pytest.approx(0.12)
    assert s["median_abs_error_p90"] == pytest.approx(0.12) and s["worst_abs_error_p90"] == pytest.approx(0.30)
    assert s["worst_p90"] == "b on 4 ranks"
    assert (s["within_15_percent"], s["within_15_percent_p90"], s["within_15_percent_both"]) == (3, 2, 2)
    assert s["within_10_percent"] is False  # the p90 of b, and c's median
    assert s["by_variant"]["both"]["median_abs_error_p90"] == pytest.approx(0.7)
    assert s["by_variant"]["both"]["median_abs_error"] == pytest.approx(0.03)
    assert s["tail_worse_than_none"] == ["both"]
    lines = verdict_lines({**s, "results": rows})
    assert any("at the p90" in line for line in lines)
    assert any(line.startswith("both noise makes the tail worse than no noise: median |error| of the p90 70.0% "
                               "against 12.0%") for line in lines)
    good = [_row("a", 0.02, 0.05, {"none": (0.02, 0.05)})]
    assert summarize_errors(good)["within_10_percent"] is True and summarize_errors(good)["tail_worse_than_none"] == []


def write_run(path: Path, rows: list[list[float]], size: int = 16) -> None:
    head = "#MessageSize " + "".join(f"Rank{r}Time(us) " for r in range(len(rows[0])))
    path.write_text(head + "\n" + "".join(f"{size} " + "".join(f"{t:f} " for t in row) + "\n" for row in rows))


def noisy_profile(tmp_path: Path) -> Path:
    """A built-in profile whose network noise is a heavy latency excess (3 us median per message)."""
    data = json.loads((DATA / "oracle-hpc-metal.json").read_text())
    data["name"] = "heavy-latency"
    data["latency_noise"] = {"provenance": {"kind": "calibrated", "source": "a test"},
                             "spec": "lognormal:median=3000,sigma=1"}
    data.pop("bandwidth_noise")
    path = tmp_path / "heavy.json"
    path.write_text(json.dumps(data))
    return path


def test_validate_measured_judges_the_tail(run_cli, tmp_path: Path) -> None:
    profile = noisy_profile(tmp_path)
    folder = tmp_path / "runs" / "2022_05_10_21_34_00"
    folder.mkdir(parents=True)
    # slowest ranks 2.0 ... 2.9 us: median 2.45, p90 2.81; noiseless simulation 2.4 us
    write_run(folder / "nwaydissemination_nocompute_4_16.csv",
              [[2.0 + 0.1 * k, 1.0, 1.0, 1.0] for k in range(10)])
    out = tmp_path / "out"
    res = run_cli("validate", "--measured", tmp_path / "runs", "--profile", profile, *PARAMS,
                  "--noise", "none,network", "--reps", "200", "--out", out)
    assert res.returncode == 0, res.stderr
    text = " ".join(res.stdout.split())
    assert "at the p90" in text and "network noise makes the tail worse than no noise" in text
    result = json.loads((out / "summary.json").read_text())
    row = result["results"][0]
    assert row["verdict"] == "median only" and row["signed_error_p90"] == pytest.approx(2.4 / 2.81 - 1, rel=1e-3)
    assert result["median_abs_error_p90"] == pytest.approx(abs(2.4 / 2.81 - 1), rel=1e-3)
    assert row["variants"]["network"]["p90_worse_than_none"] is True
    assert result["tail_worse_than_none"] == ["network"]
    assert result["by_variant"]["network"]["median_abs_error_p90"] > 1.0
    assert [Path(f).suffix for f in result["figures"]] == [".png", ".pdf"]
