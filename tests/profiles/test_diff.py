"""`cloudnoise profiles diff A B`: every parameter side by side, sources included."""

from __future__ import annotations

import json
import subprocess
import sys

from click.testing import CliRunner

import cloudnoise
from cloudnoise.cli import cli
from cloudnoise.profiles.diff import diff_profiles, flatten, shown
from cloudnoise.profiles.registry import load_builtin

from measure_support import env


def _run(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def test_every_parameter_side_by_side_with_its_source() -> None:
    a, b = load_builtin("aws-hpc"), load_builtin("aws-hpc-metal")
    rows = {r.parameter: r for r in diff_profiles(a, b)}
    assert rows["loggops.L"].a == f"{a.loggops.L:g}" and rows["loggops.L"].b == f"{b.loggops.L:g}"
    assert not rows["loggops.L"].same
    assert rows["loggops.provenance.source"].a == a.loggops.provenance.source  # sources included
    assert rows["prices.on_demand_per_node_hour"].same  # both 3.88
    # a part only one has reads as absent on the other side
    assert rows["latency_noise.spec"].b == "(absent)" and rows["switch_draws.nodes_per_switch"].a == "(absent)"
    # every leaf of either profile is a row
    assert set(rows) == (set(flatten(a.to_dict())) | set(flatten(b.to_dict()))) - {"format"}
    assert not [k for k in rows if k.startswith("copied_from")]


def test_long_lists_show_their_size_range_and_hash() -> None:
    text = shown([0.5 * k for k in range(100)])
    assert text.startswith("100 values, 0 to 49.5 (sha256 ") and shown([1, 2]) == "[1, 2]"
    assert shown([0.5 * k for k in range(100)]) != shown([0.5 * k for k in range(1, 101)])


def test_the_command_marks_what_differs_and_edits_show(tmp_path) -> None:
    path = cloudnoise.copy_profile("daint", tmp_path / "mine")
    doc = json.loads(path.read_text())
    doc["loggops"]["o"] = doc["loggops"]["o"] + 100
    path.write_text(json.dumps(doc))
    out = _run("profiles", "diff", "daint", str(path), "--json")
    data = json.loads(out.output)
    changed = {r["parameter"]: r for r in data["rows"] if not r["same"]}
    assert set(changed) == {"loggops.o", "loggops.provenance.kind", "loggops.provenance.source"}
    assert changed["loggops.provenance.kind"]["b"] == "edited" and data["differ"] == 3
    table = _run("profiles", "diff", "daint", str(path), "--changed")
    assert table.exit_code == 0 and "3 of" in table.output and "≠" in table.output
    same = _run("profiles", "diff", "daint", "daint", "--changed")
    assert "all" in same.output and "parameters are the same" in same.output
    csv_out = _run("profiles", "diff", "daint", "gcp-hpc", "--csv").output.splitlines()
    assert csv_out[0] == "parameter,a,b,same" and len(csv_out) > 40


def test_a_missing_profile_is_one_line_and_exit_2(tmp_path) -> None:
    for missing, said in (("daitn", "did you mean 'daint'"), (str(tmp_path / "none.json"), "none.json")):
        proc = subprocess.run([sys.executable, "-m", "cloudnoise", "profiles", "diff", "daint", missing],
                              capture_output=True, text=True, env=env(), timeout=60)
        lines = proc.stderr.strip().splitlines()
        assert proc.returncode == 2 and len(lines) == 1 and said in lines[0], proc.stderr
