"""The ranks whose noise lies on the critical path most often.

The engine sums each noise part on a repetition's path by the rank it came from: an
OS detour by the rank whose CPU it stopped, latency and bandwidth noise by the
message's sender (its draws are keyed by the send, its stalls and bandwidth drops are
its sender's). A rank runs on a host of its own (one rank per node), so a rank is a host.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from cloudnoise.explanation.decomposition import KINDS, NOISE_KINDS
from cloudnoise.simulation.critical_path import PARTS, CriticalPaths

# Engine part index -> noise kind.
_KIND_OF_PART = {PARTS.index(p): kind for kind in NOISE_KINDS for p in KINDS[kind]}


@dataclass(frozen=True)
class NoisyRank:
    """A rank whose noise lies on the path: in how many repetitions, and how much."""

    rank: int
    reps: int  # repetitions whose path carries its noise
    fraction: float  # of all repetitions
    mean_ns: float  # its noise on the path, averaged over those repetitions
    reps_by_kind: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, object]:
        return {"rank": self.rank, "reps": self.reps, "fraction": self.fraction, "mean_ns": self.mean_ns,
                "reps_by_kind": self.reps_by_kind}


def noisy_ranks(paths: CriticalPaths, reps: int, top: int = 5) -> list[NoisyRank]:
    """The `top` ranks whose noise lies on the most repetitions' paths (then the most noise)."""
    rows = paths.noise
    if len(rows) == 0 or top <= 0:
        return []
    rep, part, ps = rows[:, 0], rows[:, 2], rows[:, 3].astype(np.float64)
    ranks, host = np.unique(rows[:, 1], return_inverse=True)
    kind_of_part = np.zeros(len(PARTS), dtype=np.int64)
    for p, k in _KIND_OF_PART.items():
        kind_of_part[p] = NOISE_KINDS.index(k)
    row_kind = kind_of_part[part]
    span = int(rep.max()) + 1
    # Repetitions per rank (each counted once), and per (rank, kind).
    pairs = np.unique(host * span + rep)
    reps_of = np.bincount(pairs // span, minlength=len(ranks))
    triples = np.unique((host * len(NOISE_KINDS) + row_kind) * span + rep)
    reps_of_kind = np.bincount(triples // span, minlength=len(ranks) * len(NOISE_KINDS)).reshape(-1, len(NOISE_KINDS))
    noise_of = np.bincount(host, weights=ps, minlength=len(ranks))
    mean_ns = noise_of / np.maximum(reps_of, 1) / 1000.0
    order = np.lexsort((ranks, -mean_ns, -reps_of))[:top]
    return [
        NoisyRank(int(ranks[h]), int(reps_of[h]), float(reps_of[h]) / reps, float(mean_ns[h]),
                  {k: int(reps_of_kind[h, j]) for j, k in enumerate(NOISE_KINDS) if reps_of_kind[h, j]})
        for h in order
    ]
