"""The recommendation's why, from its critical path: what the chosen run's time is made of.

The recommended system and node count run again, the same repetitions as the sweep's
(its configuration's seed) up to `EXPLAIN_REPS`, with their critical paths recorded
(`cloudnoise explain`): the kinds that take most of the median repetition's time, what
the noise adds split by kind, and what the p99 repetitions owe their time to when that
differs. "on its critical path: latency noise 57%, L 24% of the median run; the noise's
slowdown 2.1x, from latency noise; its p99 from OS detours".
"""

from __future__ import annotations

import dataclasses

from cloudnoise.advice.recommend import Recommendation
from cloudnoise.explanation.api import VariantExplanation, explain
from cloudnoise.explanation.decomposition import NOISE_KINDS, SHORT
from cloudnoise.sweep.experiment import Experiment
from cloudnoise.sweep.runner import System, config_setup

# The repetitions read: enough for a p99 of its own, and no more than a sweep cell's time.
EXPLAIN_REPS = 200


def why_text(v: VariantExplanation) -> str:
    """A clause on what `v`'s runtime is made of, along its critical path."""
    top = sorted((s for s in v.shares if s.mean_share >= 0.05), key=lambda s: -s.mean_share)[:3]
    parts = [", ".join(f"{SHORT[s.kind]} {100 * s.mean_share:.0f}%" for s in top) + " of the runtime"]
    sd = v.slowdown
    if sd is not None and sd.excess_ns > 0:
        lead = max(NOISE_KINDS, key=lambda k: sd.by_noise_ns[k])
        if sd.by_noise_ns[lead] > 0:
            parts.append(f"noise makes it {sd.ratio:.3g}x slower, mostly {SHORT[lead]}")
    if v.tail.differs and v.tail.tail_cause != "none":
        parts.append(f"its p99 owes most to {SHORT[v.tail.tail_cause]}")
    return "on its critical path: " + "; ".join(parts)


def explain_recommendation(rec: Recommendation, experiment: Experiment, systems: tuple[System, ...], noise: str,
                           reps: int, seed: int, ready_order: str) -> Recommendation:
    """`rec` with its why extended by what its critical path is made of (no point: unchanged)."""
    pick = rec.point
    if pick is None:
        return rec
    system = next(s for s in systems if s.name == pick.system)
    setup = config_setup(experiment.for_system(system.name, system.profile.compute_rate()), system, pick.nodes, seed,
                         ready_order)
    e = explain(setup.experiment.schedule(pick.nodes), params=setup.params, noise=setup.noise, variant=noise,
                reps=min(reps, EXPLAIN_REPS), seed=setup.seed, ready_order=ready_order, top_ranks=3)
    v = e.variants[noise]
    return dataclasses.replace(rec, why=f"{rec.why}; {why_text(v)}", path=v.to_dict())
