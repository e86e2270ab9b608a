"""The cost stage from Python: what a run costs on a system, and what noise adds.

`cloudnoise.cost(profile, nodes=..., runtime_ns=...)` is the typed face of
`cost.model`: runtimes in nanoseconds as every other stage gives them
(`SimulationResult.runtime_ns`), the profile by name, file or object, the
pricing as on the command line (`on-demand`, `committed`, `spot:F`, a USD
price per node-hour).
"""

from __future__ import annotations

import os

from cloudnoise.costs.model import Pricing, RunCost, cost_of_run, parse_pricing
from cloudnoise.errors import CloudnoiseError
from cloudnoise.model.profile import SystemProfile


def cost(
    profile: str | os.PathLike[str] | SystemProfile,
    *,
    nodes: int,
    runtime_ns: float,
    noiseless_runtime_ns: float | None = None,
    pricing: str | Pricing = "on-demand",
    billing: str = "provider",
) -> RunCost:
    """The cost of one run of `runtime_ns` nanoseconds on `nodes` nodes of `profile`.

    `profile` is a built-in name, a profile file or a SystemProfile;
    `pricing` "on-demand", "committed", "spot:F" (a fraction of on-demand)
    or a USD price per node-hour ("2.5"). `billing` "provider" bills the
    runtime as the system's provider does (per-second or per-hour rounding,
    minimum charges: the rule `advise` and the report apply), "exact" pro
    rata (the paper's cost model), or e.g. "1s:60s" for every system. With
    `noiseless_runtime_ns`, also the noiseless run's cost and the increase
    noise causes.

    Returns a RunCost: `cost_usd`, `price_per_node_hour`, `billing` (the
    rule), `noiseless_cost_usd`, `noise_increase` (0.5 = +50%). A system without a
    price of that kind raises CloudnoiseError saying what to pass.
    """
    from cloudnoise.costs.billing import parse_billing
    from cloudnoise.profiles.registry import resolve_profile

    system = profile if isinstance(profile, SystemProfile) else resolve_profile(profile)
    price = pricing if isinstance(pricing, Pricing) else parse_pricing(pricing)
    if isinstance(nodes, bool) or not isinstance(nodes, int) or nodes < 1:
        raise CloudnoiseError(f"nodes must be a whole number >= 1, got {nodes!r}")
    for what, value in (("runtime_ns", runtime_ns), ("noiseless_runtime_ns", noiseless_runtime_ns)):
        if value is not None and not (value > 0 and value < float("inf")):
            raise CloudnoiseError(f"{what} must be a positive, finite number of nanoseconds, got {value!r}")
    base = None if noiseless_runtime_ns is None else noiseless_runtime_ns / 1e9
    return cost_of_run(system, nodes, runtime_ns / 1e9, price, base, billing=parse_billing(billing))
