"""Data flows one way inside a stage: the simulation package's modules import
each other without a circle, imports inside functions counted (api, inputs
and results among them). A name two modules share lives in the lower one: SimulationResult in result.py, load_schedule in inputs.py."""

from __future__ import annotations

import ast
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "cloudnoise"


def _imports(path: Path, package: str) -> set[str]:
    """The modules of `package` that `path` imports, anywhere in the file."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.module == package:  # from cloudnoise.simulation import api
                found |= {f"{package}.{a.name}" for a in node.names}
            elif node.module.startswith(package + "."):
                found.add(node.module)
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith(package + ".")}
    return found


@pytest.mark.parametrize("stage", ["simulation"])
def test_a_stage_has_no_import_circle(stage):
    package = f"cloudnoise.{stage}"
    graph = {f"{package}.{p.stem}": _imports(p, package) - {f"{package}.{p.stem}"}
             for p in (SRC / stage).glob("*.py") if p.stem != "__init__"}
    try:
        order = list(TopologicalSorter(graph).static_order())
    except CycleError as err:
        pytest.fail(f"{stage}/ imports in a circle: {' -> '.join(err.args[1])}")
    assert order.index(f"{package}.result") < order.index(f"{package}.api")



def test_the_paper_statements_are_read_not_reached_for():
    """The paper's statements are the paper stage's data (paper/statements.py); the
    report and `paper`'s table reach nothing of the calibration, however indirectly."""
    from test_import_cycles import import_graph

    graph = import_graph()
    for start in ("cloudnoise.report.build", "cloudnoise.paper.table", "cloudnoise.paper.statements"):
        seen, todo = set(), [start]
        while todo:
            module = todo.pop()
            if module not in seen:
                seen.add(module)
                todo += graph.get(module, ())
        assert not {m for m in seen if m.startswith("cloudnoise.profiles.calibrate")}, start
