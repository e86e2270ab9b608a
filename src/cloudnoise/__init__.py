"""cloudnoise: measure network and OS noise, model it, simulate its effect on
tightly coupled jobs at scale with a LogGOPS engine, and price the result.

The public API (docs/how-to/python.md) is plain functions with their parameters:
`simulate`, `measure`, `validate`, `cost`, `advise`, `load_profile`,
`build_profile`, `copy_profile`, and the classes they return. Each is its
stage's own function (`cloudnoise.simulation.api.simulate`, ...), defined
once there: this package hands it on. Importing the package loads none of
the stages: a name is imported from its stage on first use, and type
checkers read the imports below.
"""

from __future__ import annotations

from cloudnoise.errors import CloudnoiseError

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing; type checkers read it as True
if TYPE_CHECKING:
    from typing import Any

    from cloudnoise.advice.api import Advice, advise
    from cloudnoise.costs.api import cost
    from cloudnoise.costs.model import RunCost
    from cloudnoise.measurement.api import MeasurementResult, measure
    from cloudnoise.model.api import build_profile
    from cloudnoise.model.profile import SystemProfile
    from cloudnoise.profiles.api import copy_profile, load_profile
    from cloudnoise.simulation.api import simulate
    from cloudnoise.simulation.result import SimulationResult
    from cloudnoise.validation.api import ValidationResult, validate
    from cloudnoise.version import __version__

__all__ = [
    "simulate", "SimulationResult", "measure", "MeasurementResult", "validate", "ValidationResult", "cost", "RunCost",
    "advise", "Advice", "load_profile", "copy_profile", "build_profile", "SystemProfile", "CloudnoiseError",
    "__version__",
]

# Every public name but CloudnoiseError: the module that defines it, imported on first use
# (the stages bring numpy and the engine). Keep in step with the imports above.
_HOMES = {
    "simulate": "cloudnoise.simulation.api",
    "SimulationResult": "cloudnoise.simulation.result",
    "measure": "cloudnoise.measurement.api",
    "MeasurementResult": "cloudnoise.measurement.api",
    "validate": "cloudnoise.validation.api",
    "ValidationResult": "cloudnoise.validation.api",
    "cost": "cloudnoise.costs.api",
    "RunCost": "cloudnoise.costs.model",
    "advise": "cloudnoise.advice.api",
    "Advice": "cloudnoise.advice.api",
    "load_profile": "cloudnoise.profiles.api",
    "copy_profile": "cloudnoise.profiles.api",
    "build_profile": "cloudnoise.model.api",
    "SystemProfile": "cloudnoise.model.profile",
    "__version__": "cloudnoise.version",  # importlib.metadata is most of an eager import's time
}


def __getattr__(name: str) -> Any:
    if name in _HOMES:
        import importlib

        found = getattr(importlib.import_module(_HOMES[name]), name)
        globals()[name] = found  # once: later uses are plain attribute reads
        return found
    raise AttributeError(f"module 'cloudnoise' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
