"""The stage packages' names before the public API became functions, kept for one release.

`cloudnoise.simulate`, `measure`, `cost`, `validate` and `advise` are now
public functions; their packages are `simulation`, `measurement`, `costs`,
`validation` and `advice`. Code written against the old module paths
(`from cloudnoise.simulate.api import simulate`, `from cloudnoise.cost
import model`) still imports: a finder on `sys.meta_path` answers an old
path with the new module itself (the same module object, not a copy) and
a DeprecationWarning naming the new path. The package's module class
keeps `cloudnoise.simulate` etc. the public functions: the import system
would otherwise set the package attribute to the old-named module.

Removed in the release after 0.1 (docs/api.md, "Old import paths").
"""

from __future__ import annotations

import importlib
import sys
import types
import warnings
from importlib.machinery import ModuleSpec

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing; type checkers read it as True
if TYPE_CHECKING:
    from collections.abc import Sequence

#: old stage package -> new one
RENAMED = {
    "simulate": "simulation",
    "measure": "measurement",
    "cost": "costs",
    "validate": "validation",
    "advise": "advice",
}


def new_name(package: str, fullname: str) -> str | None:
    """The module an old path names now (`cloudnoise.simulate.api` -> `cloudnoise.simulation.api`), else None."""
    prefix = package + "."
    if not fullname.startswith(prefix):
        return None
    stage, dot, rest = fullname[len(prefix):].partition(".")
    if stage not in RENAMED:
        return None
    return f"{prefix}{RENAMED[stage]}{dot}{rest}"


class _Alias:
    """Loads an old path as the module of its new path (an importlib Loader;
    importlib.abc is not imported for its base class, to keep `import cloudnoise` light)."""

    def __init__(self, target: str) -> None:
        self.target = target

    def create_module(self, spec: ModuleSpec) -> types.ModuleType | None:
        return None  # a placeholder: exec_module puts the real module in its place

    def exec_module(self, module: types.ModuleType) -> None:
        warnings.warn(f"{module.__name__} is now {self.target}; the old path goes in the next release",
                      DeprecationWarning, stacklevel=2)
        real = importlib.import_module(self.target)
        # The import system returns what sys.modules holds under the old name
        # after this call: the real module, whose own spec stays as it was.
        sys.modules[module.__name__] = real


class _OldPathFinder:
    """A finder on sys.meta_path for the old stage paths only."""

    def __init__(self, package: str) -> None:
        self.package = package

    def find_spec(self, fullname: str, path: Sequence[str] | None,
                  target: types.ModuleType | None = None) -> ModuleSpec | None:
        new = new_name(self.package, fullname)
        if new is None:
            return None
        return ModuleSpec(fullname, _Alias(new), is_package=True)  # type: ignore[arg-type]  # a Loader by its methods


class _Package(types.ModuleType):
    """The package's module class: importing an old stage path must not
    replace the public function of the same name (the import system sets
    each imported submodule as an attribute of its package)."""

    def __setattr__(self, name: str, value: object) -> None:
        if name in RENAMED and isinstance(value, types.ModuleType):
            return
        super().__setattr__(name, value)


def install(package: str) -> None:
    """Answers the old stage paths under `package` (once per process)."""
    sys.modules[package].__class__ = _Package
    if not any(isinstance(f, _OldPathFinder) and f.package == package for f in sys.meta_path):
        sys.meta_path.insert(0, _OldPathFinder(package))
