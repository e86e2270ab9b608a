"""The trace stage's modules import each other without a circle (imports inside
functions counted), and none takes another's private names: the C++ liballprof
converter's side (liballprof_native.py) uses RankConverter's public interface, and
what the converters share lives below both (convert.py and liballprof_native.py never
import each other)."""

from __future__ import annotations

import ast
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

import pytest

TRACE = Path(__file__).resolve().parents[2] / "src" / "cloudnoise" / "trace"
PACKAGE = "cloudnoise.trace"


def _imports(path: Path) -> list[tuple[str, str]]:
    """(module of the package, name) for every `from MODULE import NAME` in the file (names '' for `import M`)."""
    found: list[tuple[str, str]] = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.module == PACKAGE:  # from cloudnoise.trace import liballprof
                found += [(f"{PACKAGE}.{a.name}", "") for a in node.names]
            elif node.module.startswith(PACKAGE + "."):
                found += [(node.module, a.name) for a in node.names]
        elif isinstance(node, ast.Import):
            found += [(a.name, "") for a in node.names if a.name.startswith(PACKAGE + ".")]
    return found


def _modules() -> dict[str, Path]:
    return {f"{PACKAGE}.{p.stem}": p for p in TRACE.glob("*.py") if p.stem != "__init__"}


def test_the_trace_modules_have_no_import_circle() -> None:
    graph = {name: {m for m, _ in _imports(path)} - {name} for name, path in _modules().items()}
    try:
        order = list(TopologicalSorter(graph).static_order())
    except CycleError as err:
        pytest.fail(f"trace/ imports in a circle: {' -> '.join(err.args[1])}")
    # the shared parts lie below both converters, and the driver above them
    for lower in ("conversion", "matching", "op_columns", "goal_tags", "rank_converter"):
        assert order.index(f"{PACKAGE}.{lower}") < order.index(f"{PACKAGE}.liballprof_native")
    assert order.index(f"{PACKAGE}.liballprof_native") < order.index(f"{PACKAGE}.convert")


def test_no_trace_module_takes_another_ones_private_names() -> None:
    taken = [(name, module, n) for name, path in _modules().items() for module, n in _imports(path)
             if n.startswith("_") and module != name]
    assert not taken, f"private names imported across modules: {taken}"
