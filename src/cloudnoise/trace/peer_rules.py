"""Where an extrapolated call's peer is, on any number of ranks: the rules
extrapolate.py learns from the traced ranks' peers of one call.

- `grid`: a displacement on the Cartesian grid (topology.py), placed on the
  new grid; MPI_PROC_NULL off the edge of a non-periodic dimension;
- `offset`: a fixed rank offset (MPI_PROC_NULL outside 0..N-1);
- `ring`: a fixed offset modulo the number of ranks;
- `fixed`: one rank (a collective's root);
- `null`: MPI_PROC_NULL everywhere; `self`: the rank itself.

A rule may leave its *way* open (`open_way`): a displacement along a
periodic dimension of one or two traced ranks, or a ring offset of half the
traced ranks, where +1 and -1 (or +d and -d) reach the same rank.
`resolve_ways` then chooses it for every such call of a channel, so that
sends and receives pair as they did (see its docstring).

`SubRule` is the rule of a sub-communicator on N ranks.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from cloudnoise.errors import CloudnoiseError
from cloudnoise.trace.events import PROC_NULL, Call, CommInfo
from cloudnoise.trace.grid import coords_of
from cloudnoise.trace.topology import Displacement, place, place_all


@dataclass(frozen=True)
class PeerRule:
    """Where a call's peer is, relative to the calling rank (see the module docstring)."""

    mode: str  # "null", "self", "fixed", "offset", "ring", "grid"
    value: tuple[int, ...] = ()
    open_way: tuple[int, ...] = ()  # grid: dimensions whose way is not chosen yet; ring: (1,) when open

    def place(self, rank: int, n: int, dims: tuple[int, ...], periods: tuple[int, ...]) -> int:
        if self.mode == "null":
            return PROC_NULL
        if self.mode == "self":
            return rank
        if self.mode == "fixed":
            return self.value[0] if self.value[0] < n else PROC_NULL
        if self.mode == "offset":
            p = rank + self.value[0]
            return p if 0 <= p < n else PROC_NULL
        if self.mode == "ring":
            return (rank + self.value[0]) % n
        return place(self.value, rank, dims, periods)

    def place_all(self, n: int, dims: tuple[int, ...], periods: tuple[int, ...]) -> np.ndarray:
        """place() for ranks 0..n-1 (int64)."""
        ranks = np.arange(n, dtype=np.int64)
        if self.mode == "null":
            return np.full(n, PROC_NULL, dtype=np.int64)
        if self.mode == "self":
            return ranks
        if self.mode == "fixed":
            return np.full(n, self.value[0] if self.value[0] < n else PROC_NULL, dtype=np.int64)
        if self.mode == "offset":
            p = ranks + self.value[0]
            return np.where((p >= 0) & (p < n), p, PROC_NULL)
        if self.mode == "ring":
            return (ranks + self.value[0]) % n
        return place_all(self.value, dims, periods)

    @property
    def moved(self) -> tuple[int, ...]:
        """The grid dimensions a grid rule moves along."""
        if self.mode != "grid":
            return ()
        return tuple(k for k, d in enumerate(self.value) if d) or self.open_way

    def with_way(self, way: int) -> PeerRule:
        if self.mode == "ring":
            return PeerRule("ring", (way * abs(self.value[0]),))
        d = Displacement(self.value, self.open_way).with_way(way)
        return PeerRule("grid", d.delta)

    def text(self) -> str:
        if self.mode == "grid":
            return "displacement " + Displacement(self.value, self.open_way).text()
        if self.mode in ("offset", "ring"):
            return f"{self.mode} {self.value[0]:+d}" + (" (+ or -)" if self.open_way else "")
        return self.mode


def resolve_ways(rules: Sequence[tuple[str, int, int, PeerRule | None]]) -> list[PeerRule | None]:
    """Chooses the way of every rule left open, in program order.

    `rules` are (side, comm, tag, rule): side "send" or "recv" (a Sendrecv
    gives one of each). Where +1 and -1 are one traced rank, the trace shows
    only that a message went to it. Each such channel (communicator, tag,
    and the rest of its displacement) gets its ways by order: the j-th send
    goes down (-1) when j is even and up (+1) when odd (a loop over 'lower
    neighbour, then upper' sends in that order), and the j-th receive comes
    from the other side, so the j-th receive takes the j-th send's message
    on every rank, as in the trace."""
    count: dict[tuple[Any, ...], int] = defaultdict(int)
    out: list[PeerRule | None] = []
    for side, comm, tag, rule in rules:
        if rule is None or not rule.open_way:
            out.append(rule)
            continue
        if rule.mode == "ring":
            base: tuple[Any, ...] = ("ring", abs(rule.value[0]))
        else:
            known = tuple(0 if k in rule.open_way else (d if side == "send" else -d) for k, d in enumerate(rule.value))
            base = ("grid", rule.open_way, known)
        key = (comm, tag, base)
        j = count[(side,) + key]
        count[(side,) + key] += 1
        way = -1 if j % 2 == 0 else 1
        out.append(rule.with_way(way if side == "send" else -way))
    return out


def moved_rule(rule: PeerRule, src: int, dst: int) -> PeerRule:
    """A grid rule moving along `dst` where it moved along `src`."""
    d = list(rule.value)
    d[dst], d[src] = d[src], 0
    return replace(rule, value=tuple(d), open_way=())


@dataclass(frozen=True)
class SubRule:
    """Who is in a sub-communicator on N ranks, as the traced split shows it: contiguous
    blocks of `value` ranks ("blocks"), every `value`-th rank ("strided", `value` groups),
    every rank alone ("self"), or a Cartesian sub-grid keeping dimensions `keep`."""

    mode: str
    value: int = 0
    keep: tuple[int, ...] = ()

    def info(self, cid: int, key: tuple[Any, ...], rank: int, n: int, dims: tuple[int, ...]) -> CommInfo:
        if self.mode == "self":
            return CommInfo(cid, key + (rank,), 1, 0, (rank,))
        if self.mode == "blocks":
            b = self.value
            g = rank // b
            return CommInfo(cid, key + (g,), b, rank % b, range(g * b, g * b + b))  # type: ignore[arg-type]
        if self.mode == "strided":
            m = self.value
            return CommInfo(cid, key + (rank % m,), n // m, rank // m, range(rank % m, n, m))  # type: ignore[arg-type]
        coords = coords_of(rank, dims)
        color = tuple(c for c, k in zip(coords, self.keep) if not k)
        kept = [k for k in range(len(dims)) if self.keep[k]]
        r, size = 0, 1
        for k in kept:
            r, size = r * dims[k] + coords[k], size * dims[k]
        if len(kept) != 1:
            raise CloudnoiseError(f"a Cartesian sub-grid keeping {len(kept)} dimensions is not extrapolated")
        k = kept[0]
        step = 1
        for d in dims[k + 1:]:
            step *= d
        first = rank - coords[k] * step
        return CommInfo(cid, key + color, size, r, range(first, first + size * step, step),  # type: ignore[arg-type]
                        (dims[k],), (0,))


@dataclass
class RuledCall:
    """One call of the extrapolated program's template, with where its peer
    (and a Sendrecv's source) go: `rule`, `recv_rule`; `gap` and `dur`, the
    median compute before it and its median time (ns; MPI_Init: its own entry
    time and -1). `copied` is (k, m) for a call copied from dimension m's
    exchanges onto dimension k."""

    call: Call
    rule: PeerRule | None = None
    recv_rule: PeerRule | None = None
    gap: int = 0
    dur: int = 0
    copied: tuple[int, int] | None = None
