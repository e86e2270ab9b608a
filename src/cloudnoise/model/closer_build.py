"""Which of two builds of one campaign gives its own measurement back more closely.

`model build` may build a profile more than once, each time with a richer model of the latency
series (two shared levels, model/shared_levels.py; stalls that recur, model/recurring_stalls.py),
and keeps the richer one only where its replay (model/closure.py) gives the series back more
closely than the simpler one's: it closes; or it misses fewer judged rows and none that the other
gives back; or it misses the same rows, each by less (its replay's value nearer the measured
one, relatively). A model that misses the same rows by more, or a row the simpler one gives
back, is not kept: more parameters that do not bring the replay nearer the measurement are not
evidence for the model.

The bandwidth closure (model/bandwidth_closure.py) of the richer build must miss no row the
simpler one gives back: a latency model (stalls that block sends) also acts on the large
transfers, and the bandwidth series may refute it.
"""

from __future__ import annotations

from typing import Any


def missed_rows(closure: dict[str, Any] | None) -> set[str]:
    """The judged rows a profile's `closure` (or `bandwidth_closure`) misses."""
    return {r["statistic"] for r in (closure or {}).get("rows", []) if r.get("judged") and not r.get("within")}


def _miss(row: dict[str, Any]) -> float:
    """How far a row's replay lies from its measured value, relatively."""
    measured, replay = float(row["measured"]), float(row["replay"])
    return abs(replay - measured) / max(abs(measured), 1e-12)


def closer(richer: dict[str, Any], simpler: dict[str, Any]) -> bool:
    """Whether the closure of the richer build (`richer`) gives the series back more closely than
    the simpler build's (`simpler`, which misses): see the module's docstring."""
    if richer.get("closes"):
        return True
    a, b = missed_rows(richer), missed_rows(simpler)
    if a < b:
        return True
    if a != b or not a:
        return False
    mine = {r["statistic"]: _miss(r) for r in richer.get("rows", []) if r["statistic"] in a}
    theirs = {r["statistic"]: _miss(r) for r in simpler.get("rows", []) if r["statistic"] in a}
    return all(mine[s] < theirs[s] for s in a)


def bandwidth_no_worse(richer: dict[str, Any] | None, simpler: dict[str, Any] | None) -> bool:
    """Whether the richer build's bandwidth closure misses no row the simpler one's gives back."""
    return missed_rows(richer) <= missed_rows(simpler)


def kept(richer: dict[str, Any], simpler: dict[str, Any]) -> bool:
    """Whether `model build` keeps the richer of two built profiles (their `closure` and
    `bandwidth_closure`): closer on the latency series, no worse on the bandwidth series."""
    return closer(richer["closure"], simpler["closure"]) and bandwidth_no_worse(
        richer.get("bandwidth_closure"), simpler.get("bandwidth_closure"))


def why_not_kept(richer: dict[str, Any], simpler: dict[str, Any]) -> str:
    """Why the richer of two built profiles is not kept, in a few words."""
    if not closer(richer["closure"], simpler["closure"]):
        return (f"the profile with them misses {', '.join(sorted(missed_rows(richer['closure']))) or 'nothing'} of "
                "its closure, no fewer rows than without them nor the same rows by less")
    return (f"the profile with them misses {', '.join(sorted(missed_rows(richer.get('bandwidth_closure'))))} of "
            "its bandwidth closure, rows the profile without them gives back")
