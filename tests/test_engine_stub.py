"""src/cloudnoise/_engine.pyi (the engine's types for mypy and IDEs) names what the module has.

Regenerate it after changing the bindings (src/engine/bindings*):
    PYTHONPATH=src python -m nanobind.stubgen -m cloudnoise._engine -o src/cloudnoise/_engine.pyi
"""

from __future__ import annotations

import ast
from pathlib import Path

from cloudnoise import _engine

STUB = Path(__file__).resolve().parents[1] / "src" / "cloudnoise" / "_engine.pyi"
REGENERATE = "regenerate: PYTHONPATH=src python -m nanobind.stubgen -m cloudnoise._engine -o src/cloudnoise/_engine.pyi"


def _members(body: list[ast.stmt]) -> set[str]:
    """The names a stub body defines (functions, properties, annotated constants), dunders left out."""
    names = {n.name for n in body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    names |= {n.target.id for n in body if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)}
    return {n for n in names if not n.startswith("__")}


def _public(names: list[str]) -> set[str]:
    return {n for n in names if not n.startswith("_")}


def test_the_stub_names_every_binding_and_no_other():
    tree = ast.parse(STUB.read_text())
    module = _public(dir(_engine))
    assert _members(tree.body) == module, f"{sorted(_members(tree.body) ^ module)}: {REGENERATE}"
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            real = _public(list(vars(getattr(_engine, node.name))))
            stub = _members(node.body)
            assert stub == real, f"{node.name}: {sorted(stub ^ real)}: {REGENERATE}"
