"""A profile measured on one host (the demo's) is shared memory, not a
network; the report says so wherever a sweep on it appears, not only beside the campaign."""

from __future__ import annotations

import json

from report_support import write_known_campaign


def test_a_sweep_on_a_one_host_profile_is_labelled_in_the_report(tmp_path, run_cli):
    campaign = write_known_campaign(tmp_path / "c")
    meta = json.loads((campaign / "metadata.json").read_text())
    meta["hosts"] = ["node0"]  # both ranks reported the same host
    (campaign / "metadata.json").write_text(json.dumps(meta))
    profile = tmp_path / "here.json"
    proc = run_cli("model", "build", campaign, "-o", profile, "--name", "here")
    assert proc.returncode == 0, proc.stderr
    sweep = tmp_path / "s"
    proc = run_cli("sweep", "--pattern", "dissemination", "--size", "16B", "--profile", f"{profile},daint",
                   "--nodes", "4,16", "--reps", "3", "--workers", "1", "--out", sweep, "--quiet")
    assert proc.returncode == 0, proc.stderr
    # the sweep's own table: its rows named with the label, and how to measure a network
    shown = [line for line in proc.stdout.splitlines() if "here" in line]
    assert len(shown) >= 2 and all("here (one host, shared memory)" in line or "measured on one host" in line
                                   for line in shown), shown
    assert "--hosts NODE1,NODE2" in proc.stdout
    stored = json.loads((sweep / "sweep.json").read_text())["profiles"]
    assert stored["here"].get("one_host") is True and "one_host" not in stored["daint"]
    proc = run_cli("report", "--sweep", sweep, "--profile", "daint", "-o", tmp_path / "r", "--json")
    assert proc.returncode == 0, proc.stderr
    html = (tmp_path / "r" / "report.html").read_text()
    assert "here (one host, shared memory)" in html
    assert "daint (one host" not in html
    observations = json.dumps(json.loads(proc.stdout)["observations"])
    # every observation naming the system names it with its label
    assert observations.count("here") == observations.count("here (one host, shared memory)")

    # cost --sweep: every table names it with its label (here unpriced: the last line), JSON lists it
    proc = run_cli("cost", "--sweep", sweep, "--all")
    assert proc.returncode == 0, proc.stderr
    shown = [line for line in proc.stdout.splitlines() if "here" in line]
    assert shown and all("here (one host, shared memory)" in line for line in shown), shown
    proc = run_cli("cost", "--sweep", sweep, "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["one_host"] == ["here"]

    # advise: the table and the price list name it with its label
    proc = run_cli("advise", "--pattern", "dissemination", "--size", "16B", "--profile", f"{profile},daint",
                   "--nodes", "4", "--reps", "3", "--workers", "1", "--points", "all", "--sweep", tmp_path / "a")
    assert proc.returncode == 0, proc.stderr
    shown = [line for line in proc.stdout.splitlines() if "here" in line]
    assert shown and all("here (one host, shared memory)" in line for line in shown), shown
