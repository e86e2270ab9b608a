"""cloudnoise.cost: the cost stage (runtime x nodes x price, the cost of noise).

`cloudnoise.cost(...)` is the public API (see `api.cost`) while
`cloudnoise.cost` is also this subpackage; as for `cloudnoise.simulate`, the
module is made callable, so both `cloudnoise.cost(profile, nodes=...,
runtime_ns=...)` and `from cloudnoise.cost.api import cost` work.
"""

from __future__ import annotations

import sys
import types
from typing import Any


class _CallableModule(types.ModuleType):
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        from cloudnoise.cost.api import cost

        return cost(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule
