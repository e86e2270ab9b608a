"""cloudnoise: measure network and OS noise, model it, simulate its effect on
tightly coupled jobs at scale with a LogGOPS engine, and price the result.

The public API (docs/api.md) is plain functions with their parameters:
`simulate`, `measure`, `cost`, `advise`, `load_profile`, `build_profile`
(defined in `cloudnoise.api`), and the classes they return. Importing the
package loads none of the stages: each function imports its stage when
called, and the result classes load on first use.
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version
from typing import TYPE_CHECKING, Any

from cloudnoise import _old_stage_names
from cloudnoise.api import advise, build_profile, cost, load_profile, measure, simulate
from cloudnoise.errors import CloudnoiseError

if TYPE_CHECKING:
    from cloudnoise.advice.api import Advice
    from cloudnoise.costs.model import RunCost
    from cloudnoise.measurement.api import MeasurementResult
    from cloudnoise.model.profile import SystemProfile
    from cloudnoise.simulation.result import SimulationResult

try:
    __version__ = version("cloudnoise")
except PackageNotFoundError:  # running from a source tree
    __version__ = "0.0.0+src"

__all__ = [
    "simulate", "SimulationResult", "measure", "MeasurementResult", "cost", "RunCost", "advise", "Advice",
    "load_profile", "build_profile", "SystemProfile", "CloudnoiseError", "__version__",
]

# The result classes: name -> module, imported on first use (they bring numpy and the stages).
_CLASSES = {
    "SimulationResult": "cloudnoise.simulation.result",
    "MeasurementResult": "cloudnoise.measurement.api",
    "RunCost": "cloudnoise.costs.model",
    "Advice": "cloudnoise.advice.api",
    "SystemProfile": "cloudnoise.model.profile",
}


def __getattr__(name: str) -> Any:
    if name in _CLASSES:
        import importlib

        return getattr(importlib.import_module(_CLASSES[name]), name)
    raise AttributeError(f"module 'cloudnoise' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


# `import cloudnoise.simulate.api` and the other stage paths before the
# rename keep working for one release (with a DeprecationWarning); the
# public functions stay what `cloudnoise.simulate` etc. name.
_old_stage_names.install(__name__)
