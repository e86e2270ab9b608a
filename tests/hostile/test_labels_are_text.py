"""Labels from input files (a system name in a sweep, a campaign's labels) are text in
figures and pages, never matplotlib mathtext or HTML markup: a `$` must not break the
report."""

from __future__ import annotations

import json

from hostile_support import sandbox
from report_support import write_known_campaign, write_sweep

HOSTILE = r"cheap $\frac{1}{$ cloud <b>x</b>"


def test_a_report_of_labels_with_dollars_and_markup(tmp_path):
    box = sandbox(tmp_path)
    campaign = write_known_campaign(box.work / "c")
    meta = json.loads((campaign / "metadata.json").read_text())
    meta["labels"]["system"] = HOSTILE
    (campaign / "metadata.json").write_text(json.dumps(meta))
    write_sweep(box.work / "s", {(HOSTILE, 4, "none"): [1000.0, 1100.0, 1050.0],
                                 (HOSTILE, 4, "both"): [1200.0, 1900.0, 1300.0]})
    proc = box.run("report", "--campaign", "c", "--sweep", "s", "--profile", "daint", "--pricing", "2.5", "-o", "r")
    assert proc.returncode == 0, proc.stderr
    html = (box.work / "r" / "report.html").read_text()
    assert "<b>x</b>" not in html  # markup from a file stays text
    assert r"cheap $\frac{1}{$ cloud &lt;b&gt;x&lt;/b&gt;" in html
