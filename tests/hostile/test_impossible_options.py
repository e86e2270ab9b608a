"""Impossible durations and output names are refused before anything is measured or
simulated (never an exit 0 with an empty campaign, nor Parquet written to x.xlsx), and a
report on a partial campaign says what is missing."""

from __future__ import annotations

import json
import shutil

import pytest

from hostile_support import refused_without_side_effects, sandbox
from report_support import write_known_campaign


@pytest.mark.parametrize("duration", ["-5", "0", "nan", "inf", "-1s", "5 parsecs"])
def test_measure_durations(tmp_path, duration):
    box = sandbox(tmp_path)
    refused_without_side_effects(box, "measure", "latency-noise", "--duration", duration, "--out", "c",
                                 says="--duration")
    assert not (box.work / "c").exists()


@pytest.mark.parametrize(("command", "out"), [
    (("simulate", "--pattern", "dissemination", "--ranks", "4", "--size", "16B"), "x.xlsx"),
    (("simulate", "--pattern", "dissemination", "--ranks", "4", "--size", "16B"), "x"),
])
def test_output_names_whose_format_is_unknown(tmp_path, command, out):
    box = sandbox(tmp_path)
    refused_without_side_effects(box, *command, "--out", out, says=out)


def test_a_report_on_a_partial_campaign_says_what_is_missing(tmp_path):
    box = sandbox(tmp_path)
    write_known_campaign(box.work / "c")
    shutil.rmtree(box.work / "c" / "os-noise")
    meta = json.loads((box.work / "c" / "metadata.json").read_text())
    meta["experiments"]["latency-noise"]["complete"] = False
    (box.work / "c" / "metadata.json").write_text(json.dumps(meta))
    proc = box.run("report", "--campaign", "c", "--profile", "daint", "-o", "r", "--json")
    assert proc.returncode == 0, proc.stderr
    missing = {g["experiment"]: g for g in json.loads(proc.stdout)["missing"]}
    assert {"os-noise", "latency-noise"} <= set(missing), missing
    assert all(g["fix"].startswith("cloudnoise measure") or "cloudnoise" in g["fix"] for g in missing.values())
    html = (box.work / "r" / "report.html").read_text()
    assert "Missing data" in html and "os-noise" in html
