"""Fig. 15 past the paper's scale: the 512 MiB ring at 4,096 and 16,384 nodes.

The paper stops its 512 MiB ring allreduce at 1,024 nodes: at 16,384 nodes
a GOAL file has 268 million messages (~23 GB of text) and the authors'
simulator needs a quarter of an hour or more per repetition. cloudnoise
generates the ring in the engine and runs it in its specialised exchange
loop (src/engine/exchange_loop.cpp), so `cloudnoise paper --beyond` adds
these points: the paper's ring (the authors' `pipelinedring`, one segment
per rank), on Fig. 15's systems, without and with network noise (the
variants Obs. 9 is about; OS noise had "no impact" on the ring), with
--beyond-reps repetitions each (default BEYOND_REPS: a noisy repetition
at 16,384 nodes is 805 million events, about a minute on one core of a
shared 2-core machine). They are grids of the same campaign (one sweep
folder each, resumable), and no statement reads them: the report shows
them as beyond the paper.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from cloudnoise.paper.reproduce import Grid, SweepRuns
from cloudnoise.sweep.presets import get_preset

BEYOND_NODES = (4096, 16384)
BEYOND_VARIANTS = ("none", "network")
BEYOND_REPS = 3
WORKLOAD = "fig15"


def beyond_grids() -> list[Grid]:
    """The ring's grids past the paper: Fig. 15's systems at each of BEYOND_NODES."""
    systems = get_preset("fig15-allreduce-ring").systems
    return [Grid(WORKLOAD, n, tuple(systems), BEYOND_VARIANTS) for n in BEYOND_NODES]


def beyond_points(runs: SweepRuns, grids: list[Grid]) -> list[dict[str, Any]]:
    """Per system, node count and variant: the repetitions' median and quartiles (ns)."""
    from cloudnoise.paper.measures import Config

    points = []
    for g in grids:
        for system in g.systems:
            for variant in g.variants:
                x = runs.runtimes(Config(g.workload, system, g.nodes, variant))
                q1, median, q3 = (float(v) for v in np.percentile(x, [25, 50, 75]))
                points.append({"system": system, "nodes": g.nodes, "variant": variant, "reps": int(len(x)),
                               "median_ns": median, "q1_ns": q1, "q3_ns": q3})
    return points
