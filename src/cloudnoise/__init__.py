"""cloudnoise: measure network and OS noise, model it, simulate its effect on
tightly coupled jobs at scale with a LogGOPS engine, and price the result.

The public API (docs/api.md) is plain functions with their parameters:
`simulate`, `measure`, `validate`, `cost`, `advise`, `load_profile`,
`build_profile`
(defined in `cloudnoise.api`), and the classes they return. Importing the
package loads none of the stages: each function imports its stage when
called, and the result classes load on first use.
"""

from __future__ import annotations

from cloudnoise.api import advise, build_profile, cost, load_profile, measure, simulate, validate
from cloudnoise.errors import CloudnoiseError

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing; type checkers read it as True
if TYPE_CHECKING:
    from typing import Any

    from cloudnoise.advice.api import Advice
    from cloudnoise.costs.model import RunCost
    from cloudnoise.measurement.api import MeasurementResult
    from cloudnoise.model.profile import SystemProfile
    from cloudnoise.simulation.result import SimulationResult
    from cloudnoise.validation.api import ValidationResult

    __version__: str

__all__ = [
    "simulate", "SimulationResult", "measure", "MeasurementResult", "validate", "ValidationResult", "cost", "RunCost", "advise", "Advice",
    "load_profile", "build_profile", "SystemProfile", "CloudnoiseError", "__version__",
]

# The result classes: name -> module, imported on first use (they bring numpy and the stages).
_CLASSES = {
    "SimulationResult": "cloudnoise.simulation.result",
    "MeasurementResult": "cloudnoise.measurement.api",
    "RunCost": "cloudnoise.costs.model",
    "Advice": "cloudnoise.advice.api",
    "SystemProfile": "cloudnoise.model.profile",
    "ValidationResult": "cloudnoise.validation.api",
}


def __getattr__(name: str) -> Any:
    if name in _CLASSES:
        import importlib

        return getattr(importlib.import_module(_CLASSES[name]), name)
    if name == "__version__":  # read on first use: importlib.metadata is most of an eager import's time
        from cloudnoise.version import __version__

        globals()["__version__"] = __version__
        return __version__
    raise AttributeError(f"module 'cloudnoise' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))

