"""cloudnoise: measure network and OS noise, model it, simulate its effect on
tightly coupled jobs at scale with a LogGOPS engine, and price the result."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version
from typing import Any

try:
    __version__ = version("cloudnoise")
except PackageNotFoundError:  # running from a source tree
    __version__ = "0.0.0+src"

__all__ = ["simulate", "SimulationResult", "measure", "MeasurementResult", "load_profile", "build_profile", "cost", "CloudnoiseError", "__version__"]

# name -> (module, attribute): the public API, imported on first use so
# `import cloudnoise` (and the CLI) stay light. docs/api.md shows each.
_API = {
    "simulate": ("cloudnoise.simulation.api", "simulate"),
    "measure": ("cloudnoise.measurement.api", "measure"),
    "cost": ("cloudnoise.costs.api", "cost"),
    "SimulationResult": ("cloudnoise.simulation.api", "SimulationResult"),
    "MeasurementResult": ("cloudnoise.measurement.api", "MeasurementResult"),
    "load_profile": ("cloudnoise.profiles.registry", "resolve_profile"),
    "build_profile": ("cloudnoise.model.build", "build_profile"),
    "CloudnoiseError": ("cloudnoise.errors", "CloudnoiseError"),
}


def __getattr__(name: str) -> Any:
    if name in _API:
        import importlib

        module, attr = _API[name]
        return getattr(importlib.import_module(module), attr)
    raise AttributeError(f"module 'cloudnoise' has no attribute {name!r}")
