"""cloudnoise.simulate: the simulation stage (LogGOPS engine, repetitions, noise).

`cloudnoise.simulate(...)` is the public API (see `api.simulate`) while
`cloudnoise.simulate` is also this subpackage; the module is therefore made
callable, so both `cloudnoise.simulate(path, ...)` and
`from cloudnoise.simulate.api import simulate` work.
"""

from __future__ import annotations

import sys
import types
from typing import Any


class _CallableModule(types.ModuleType):
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        from cloudnoise.simulate.api import simulate

        return simulate(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule
