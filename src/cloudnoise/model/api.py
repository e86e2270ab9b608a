"""`cloudnoise.build_profile`: the model stage's public function.

`cloudnoise/__init__.py` exports it as it is. It returns the profile as a
SystemProfile; `cloudnoise.model.build.build_profile`, which the command
calls, returns the written document and the parts left out
(tests/test_public_api.py holds the two parameter lists equal).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from cloudnoise.model.profile import SystemProfile


def build_profile(
    campaign: str | os.PathLike[str],
    out: str | os.PathLike[str],
    *,
    name: str | None = None,
    on_demand_price: float | None = None,
    committed_price: float | None = None,
    allow_missing: bool = False,
    latency_model: str = "auto",
    bandwidth_model: str = "auto",
    as_paper: bool = False,
    seed: int = 0,
    say: Callable[[str], None] | None = None,
) -> SystemProfile:
    """`cloudnoise model build`: the profile of a measured campaign folder
    (`measure` writes them), written to `out` (a .json file; its noise data
    files beside it).

    `name` names the system (default: the campaign's host); the prices are
    USD per node-hour. A campaign missing a part (no loggp or latency-noise
    run, say) is an error naming it, unless `allow_missing`.
    `latency_model`: "auto" models stalls that the latency series shows in time
    as such (docs/explanation/measurement.md, "Noise in time"), for every message, unless
    their profile misses its own closure where per-message draws close it, or the bandwidth
    series refutes them (then they hold small messages only: model/stall_choice.py);
    "stalls" keeps them for every message without that choice; "iid" draws every sample per
    message (the paper's semantics). `bandwidth_model`: the same for drops
    that the bandwidth series shows persisting in time (bandwidth episodes).
    `as_paper`: the paper's semantics (every sample a per-message draw of the
    round trip's excess, halved; the OS noise the round trips hold counted
    again), else the noise counted once (docs/profile-format.md, "Noise counted
    once"); `seed`: the engine replays' (the OS part, the closure); `say`: told, before
    a second build (the stall model's choice), what it builds, why and about how long.

    Returns the profile written, as a SystemProfile (what `load_profile(out)` gives)."""
    from cloudnoise.model.build import build_profile as write
    from cloudnoise.model.profile import load_profile

    write(Path(campaign), Path(out), name=name, on_demand_price=on_demand_price,
          committed_price=committed_price, allow_missing=allow_missing, latency_model=latency_model,
          bandwidth_model=bandwidth_model, as_paper=as_paper, seed=seed, say=say)
    return load_profile(Path(out))
