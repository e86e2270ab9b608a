"""No two modules of src/cloudnoise import each other, however indirectly.

The graph is read from the source with `ast`, so it needs nothing imported. Counted, as
an edge from the file to the deepest module the statement names:

- every `import` and `from ... import` anywhere in a file: at the top, inside functions
  (a deferred import is still a dependency, only a later one) and under `if
  TYPE_CHECKING:` (a type-only circle still makes two modules that cannot be read or
  type-checked apart);
- `from cloudnoise.x import y` as an import of the module `cloudnoise.x.y` where that is
  a module, of `cloudnoise.x` otherwise; the engine's extension module counts by its stub.

Not counted: that importing `cloudnoise.x.y` first runs the packages' `__init__` files
(every module does; counting it would make any package that names its own modules a
circle), and `importlib.import_module` with a name held in a string (the CLI's lazy
commands, the package's lazy exports: no edge the reader can follow).
"""

from __future__ import annotations

import ast
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
PACKAGE = "cloudnoise"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    files = [*(SRC / PACKAGE).rglob("*.py"), *(SRC / PACKAGE).rglob("*.pyi")]
    return {_module_name(p): p for p in files}


def _deepest(name: str, modules: dict[str, Path]) -> str | None:
    """The module `name` is, or the innermost package that holds it."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def _imported(name: str, source: str, is_package: bool, modules: dict[str, Path]) -> set[str]:
    """The modules of the package that the module `name` (its text `source`) imports, anywhere in it."""
    found: set[str | None] = set()
    package = name if is_package else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found |= {_deepest(a.name, modules) for a in node.names if a.name.split(".")[0] == PACKAGE}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: from . import x, from ..y import z
                anchor = package
                for _ in range(node.level - 1):
                    anchor = anchor.rpartition(".")[0]
                base = f"{anchor}.{base}" if base else anchor
            if base.split(".")[0] != PACKAGE:
                continue
            for alias in node.names:
                whole = f"{base}.{alias.name}"
                found.add(whole if whole in modules else _deepest(base, modules))
    return {m for m in found if m is not None and m != name}


def import_graph() -> dict[str, set[str]]:
    modules = _modules()
    return {name: _imported(name, path.read_text(), path.stem == "__init__", modules) for name, path in modules.items()}


def test_the_graph_sees_every_kind_of_import():
    """Top-level, in-function, TYPE_CHECKING, relative and from-package imports are all
    edges, so an empty circle list means something."""
    modules = _modules()
    source = ("from cloudnoise import limits\n"
              "from . import os_noise\n"
              "from ..costs.money import format_usd\n"
              "import cloudnoise.trace.record.nothing_there\n"
              "def f():\n    from cloudnoise.errors import CloudnoiseError\n"
              "if TYPE_CHECKING:\n    from cloudnoise.model.profile import SystemProfile\n"
              "from cloudnoise._engine import Schedule\n")
    assert _imported("cloudnoise.model.probe", source, False, modules) == {
        "cloudnoise.limits", "cloudnoise.model.os_noise", "cloudnoise.costs.money", "cloudnoise.trace.record",
        "cloudnoise.errors", "cloudnoise.model.profile", "cloudnoise._engine"}
    assert "cloudnoise.model.switch_draws" in import_graph()["cloudnoise.model.profile"]


def test_no_import_cycle_in_the_package():
    graph = import_graph()
    try:
        list(TopologicalSorter(graph).static_order())
    except CycleError as err:
        circle = " -> ".join(err.args[1])
        raise AssertionError(f"src/cloudnoise imports in a circle: {circle}; move what the modules share "
                             "into the lower one or a small module both use (LAYOUT.md)") from None
