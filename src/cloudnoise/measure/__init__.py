"""cloudnoise.measure: the measurement stage (MPI probes, campaigns, streaming summaries).

`cloudnoise.measure(...)` is the public API (see `api.measure`) while
`cloudnoise.measure` is also this subpackage; the module is therefore made
callable, as `cloudnoise.simulate` is, so both `cloudnoise.measure("latency", ...)`
and `from cloudnoise.measure.api import measure` work.
"""

from __future__ import annotations

import sys
import types
from typing import Any


class _CallableModule(types.ModuleType):
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        from cloudnoise.measure.api import measure

        return measure(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule
