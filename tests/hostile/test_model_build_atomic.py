"""`model build` never loses the profile it would replace, and never
drops a measured part silently."""

from __future__ import annotations

import json
import shutil

from hostile_support import refused_without_side_effects, sandbox
from report_support import write_known_campaign


def _built(box, campaign: str, out: str) -> bytes:
    proc = box.run("model", "build", campaign, "-o", out)
    assert proc.returncode == 0, proc.stderr
    return (box.work / out).read_bytes()


def test_a_failing_build_keeps_the_old_profile(tmp_path):
    box = sandbox(tmp_path)
    write_known_campaign(box.work / "good")
    old = _built(box, "good", "p.json")
    bad = box.work / "bad"
    shutil.copytree(box.work / "good", bad)
    summary = json.loads((bad / "summary.json").read_text())
    summary["table2"]["min_latency_us"] = float("nan")
    (bad / "summary.json").write_text(json.dumps(summary))
    refused_without_side_effects(box, "model", "build", "bad", "-o", "p.json",
                                 says=("bad/summary.json", "min_latency_us", "not a finite number"))
    assert (box.work / "p.json").read_bytes() == old


def test_a_missing_part_is_an_error_unless_allowed_and_then_named(tmp_path):
    box = sandbox(tmp_path)
    write_known_campaign(box.work / "c")
    shutil.rmtree(box.work / "c" / "latency" / "samples.parquet")
    refused_without_side_effects(box, "model", "build", "c", "-o", "p.json",
                                 says=("latency/samples.parquet is missing", "--allow-missing"))
    assert not (box.work / "p.json").exists()
    proc = box.run("model", "build", "c", "-o", "p.json", "--allow-missing")
    assert proc.returncode == 0, proc.stderr
    assert "left out of the profile: latency/samples.parquet" in proc.stderr
    assert "latency/samples.parquet is missing" in (box.work / "p.json").read_text()
