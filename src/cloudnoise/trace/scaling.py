"""Weak and strong scaling of an extrapolated trace: what happens to each
rank's compute and to each message when P traced ranks become N.

- **weak** (each rank keeps its share of the work; the problem grows with
  the ranks): every gap between MPI calls (compute) and every message and
  collective keeps its traced size.
- **strong** (the same problem on N ranks): compute is divided by N / P.
  A halo message along dimension k carries a face of the rank's subdomain:
  with the domain's extent E_j split over d_j ranks, that face is the
  product of E_j / d_j over the other dimensions j, so on the new grid d'
  it scales by prod_{j != k} d_j / d'_j (the extents cancel). Collectives
  follow the rule of `COLLECTIVE_RULES`.

A dimension of one rank in the trace has no messages of its own (a rank is
its own neighbour there); on a grid where it has more, extrapolate.py gives
it the exchanges of the nearest dimension that has messages (`source`).
Their size is that dimension's traced face times the ratio of the faces,
taking the two dimensions' extents as equal (the trace cannot show the
extent of a dimension it never split): weak, prod_{j != k} L_j /
prod_{j != m} L_j with the traced per-rank extents L_j = E / d_j, so
d_k / d_m; strong, prod_{j != m} d_j / prod_{j != k} d'_j.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from cloudnoise.errors import CloudnoiseError

MODES = ("weak", "strong")

# Strong scaling, per collective: "kept" (the payload is a global quantity,
# the same however the domain is split: a reduction's or a broadcast's
# buffer), "share" (each rank's block of a whole that stays the same: x P/N),
# "pair" (each pair's block of every rank's share: x (P/N)^2).
COLLECTIVE_RULES: dict[str, str] = {
    "barrier": "kept", "bcast": "kept", "reduce": "kept", "allreduce": "kept", "scan": "kept", "exscan": "kept",
    "gather": "share", "scatter": "share", "allgather": "share", "reduce_scatter_block": "share",
    "reduce_scatter": "share", "alltoall": "pair",
    "gatherv": "share", "scatterv": "share", "allgatherv": "share", "alltoallv": "pair",
}
RULE_TEXT = {"kept": "size kept", "share": "x P/N (each rank's block of a fixed whole)",
             "pair": "x (P/N)^2 (each pair's block)"}


def parse_scaling(text: str | None) -> str:
    mode = (text or "weak").strip().lower()
    if mode not in MODES:
        raise CloudnoiseError(f"--scaling {text!r}: choose weak or strong")
    return mode


@dataclass(frozen=True)
class Scaling:
    """The scaling rule from `traced_ranks` on the `traced_dims` grid to
    `ranks` on `dims` (grids empty where the trace has none)."""

    mode: str
    traced_ranks: int
    ranks: int
    traced_dims: tuple[int, ...] = ()
    dims: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise CloudnoiseError(f"--scaling {self.mode!r}: choose weak or strong")

    @property
    def strong(self) -> bool:
        return self.mode == "strong"

    @property
    def compute(self) -> float:
        """The factor on every gap between MPI calls."""
        return self.traced_ranks / self.ranks if self.strong else 1.0

    def halo(self, moved: tuple[int, ...] | int, source: tuple[int, ...] | int | None = None) -> float:
        """The factor on a message moving along the dimensions `moved` (one: a
        face; two: an edge; ...) whose traced size is that of a message
        moving along `source` (default: the same; a copy for a dimension
        the trace does not split, extrapolate.py). The boundary it carries
        spans the other dimensions: per rank, prod of E_j / d_j over them."""
        k = (moved,) if isinstance(moved, int) else tuple(moved)
        m = k if source is None else ((source,) if isinstance(source, int) else tuple(source))
        if not self.traced_dims or (k == m and not self.strong):
            return 1.0
        d, e = self.traced_dims, self.dims
        num = math.prod(d[j] for j in range(len(d)) if j not in m)
        den = math.prod((e if self.strong else d)[j] for j in range(len(d)) if j not in k)
        return num / den

    def collective(self, coll: str) -> float:
        """The factor on a collective's sizes."""
        if not self.strong:
            return 1.0
        rule = COLLECTIVE_RULES.get(coll, "kept")
        r = self.traced_ranks / self.ranks
        return 1.0 if rule == "kept" else r if rule == "share" else r * r

    def describe(self, sources: dict[int, int] | None = None) -> str:
        """The rule as the output's label says it."""
        if not self.strong:
            text = "weak scaling: per-rank compute and message sizes as traced"
            extra = [f"dim {k} x{self.halo(k, m):.3g} (as dim {m})" for k, m in sorted((sources or {}).items())]
            return text + (f"; copied halos by face: {', '.join(extra)}" if extra else "")
        faces = ", ".join(
            f"dim {k} x{self.halo(k, (sources or {}).get(k)):.3g}" + (f" (as dim {sources[k]})" if sources and k in sources else "")
            for k in range(len(self.dims)))
        return (f"strong scaling: compute x{self.compute:.4g} (P/N = {self.traced_ranks}/{self.ranks}), "
                f"halo messages by the face per rank ({faces}), collectives by their rule (docs/how-to/traces.md)")
