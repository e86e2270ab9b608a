"""docs/explanation/model.md's LogGOPS timeline is the engine's rule: the script that draws it
places each cost by the rule the page states and fails if the total is not the end time the
engine computes for the same message."""

from __future__ import annotations

import importlib.util
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "docs" / "explanation" / "figures" / "model_figures.py"


def test_the_loggops_figure_is_the_engines_rule(tmp_path: Path) -> None:
    spec = importlib.util.spec_from_file_location("model_figures", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    out = tmp_path / "loggops.png"
    module.loggops(out)  # asserts the drawn total against the engine's end time
    assert out.stat().st_size > 10_000
