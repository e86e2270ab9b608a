"""`cloudnoise profiles diff A B`: two profiles side by side, every parameter.

Both profiles are flattened to their JSON paths (`loggops.L`,
`latency_noise.provenance.source`, `different_racks.loggops.G`, ...), the
sources included, in the order the profile file writes them, A's paths
first. A list of more than a few numbers (quantile tables, size classes) is
shown by its length, range and a short hash, so two that differ read as
different without printing thousands of values. A path one profile lacks
shows as absent.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from cloudnoise.model.profile import SystemProfile

SHORT_LIST = 6  # lists up to this long are shown whole
ABSENT = "(absent)"


@dataclass(frozen=True)
class DiffRow:
    """One parameter of both profiles, as shown."""

    parameter: str
    a: str
    b: str

    @property
    def same(self) -> bool:
        return self.a == self.b

    def to_dict(self) -> dict[str, Any]:
        return {"parameter": self.parameter, "a": self.a, "b": self.b, "same": self.same}


def flatten(value: Any, prefix: str = "") -> dict[str, str]:
    """Every leaf of a profile's JSON by its dotted path, each shown as text."""
    out: dict[str, str] = {}
    if isinstance(value, dict):
        for key, sub in value.items():
            out.update(flatten(sub, f"{prefix}.{key}" if prefix else str(key)))
    elif isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        for k, sub in enumerate(value):
            out.update(flatten(sub, f"{prefix}[{k}]"))
    else:
        out[prefix] = shown(value)
    return out


def shown(value: Any) -> str:
    """A leaf as text: numbers as written, a long list by its size, range and hash."""
    if isinstance(value, list) and len(value) > SHORT_LIST:
        numbers = [v for v in value if isinstance(v, (int, float)) and not isinstance(v, bool)]
        digest = hashlib.sha256(json.dumps(value, sort_keys=True).encode()).hexdigest()[:8]
        span = f", {min(numbers):g} to {max(numbers):g}" if len(numbers) == len(value) else ""
        return f"{len(value)} values{span} (sha256 {digest})"
    if isinstance(value, float):
        return f"{value:g}" if abs(value) < 1e15 else repr(value)
    if value is None:
        return "null"
    if isinstance(value, (list, dict)):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


def diff_profiles(a: SystemProfile, b: SystemProfile) -> list[DiffRow]:
    """Every parameter of `a` and `b` (A's order, then what only B has)."""
    fa, fb = flatten(_parameters(a)), flatten(_parameters(b))
    keys = list(fa) + [k for k in fb if k not in fa]
    return [DiffRow(k, fa.get(k, ABSENT), fb.get(k, ABSENT)) for k in keys]


def _parameters(profile: SystemProfile) -> dict[str, Any]:
    """The profile's JSON without what is not a parameter: its format and a copy's
    record of where it was copied from (its edits show in the provenance rows)."""
    from cloudnoise.model.edits import COPIED_FROM

    return {k: v for k, v in profile.to_dict().items() if k not in ("format", COPIED_FROM)}
