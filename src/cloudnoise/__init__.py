"""cloudnoise: measure network and OS noise, model it, simulate its effect on
tightly coupled jobs at scale with a LogGOPS engine, and price the result."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version
from typing import Any

try:
    __version__ = version("cloudnoise")
except PackageNotFoundError:  # running from a source tree
    __version__ = "0.0.0+src"

__all__ = ["simulate", "SimulationResult", "__version__"]


def __getattr__(name: str) -> Any:
    # Imported on first use so `import cloudnoise` (and the CLI) stay light.
    if name == "simulate":
        import cloudnoise.simulate as simulate_module  # a callable module

        return simulate_module
    if name == "SimulationResult":
        from cloudnoise.simulate.api import SimulationResult

        return SimulationResult
    raise AttributeError(f"module 'cloudnoise' has no attribute {name!r}")
