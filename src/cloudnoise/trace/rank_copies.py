"""Ranks converted once and reused: an extrapolated program's ranks mostly
make the same ops up to where their peers are.

A reader may give each rank a *signature* (`rank_signature(rank, options)`):
ranks with equal signatures convert to the same ops, the same tags and the
same edges, with every peer at the same offset from the rank (modulo the
number of ranks). The converter (convert.py) then converts one rank of each
signature with RankConverter and makes the others from it: peers shifted,
its matching counts shifted the same way (so a message without its receive
is still named), its recorded times and call counts repeated. The result is
the same as converting every rank (tests/trace/test_rank_copies.py compares
them); on LAMMPS extrapolated to 1,024 ranks, 47 conversions serve them all.

`CollectiveShapes` gives the part of a signature a collective makes: the
ops a rank runs in it, with peers relative to the rank, interned.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from cloudnoise.trace.collectives import CALC, ROOTED, Algorithms, rank_ops
from cloudnoise.trace.goal_tags import ANY_PEER
from cloudnoise.trace.matching import Matching

# Algorithms whose ops (not only their sizes) depend on the message size.
SIZE_SHAPED = frozenset({"pipelinedring"})


class CollectiveShapes:
    """Interned shapes of one rank's part in a collective: (kinds, peers
    relative to the rank in world ranks, edges), as ids."""

    def __init__(self, algorithms: Algorithms) -> None:
        self.algorithms = algorithms
        self._by_rank: dict[tuple[Any, ...], tuple[Any, ...]] = {}
        self._ids: dict[tuple[Any, ...], int] = {}

    def shape(self, coll: str, nbytes: int, sbytes: int, rbytes: int, size: int, crank: int, root: int,
              world: tuple[int, ...] | range | None, world_rank: int, world_size: int) -> int:
        """The shape id of comm rank `crank` (world rank `world_rank`) in `coll`
        on a communicator of `size` ranks whose members are `world` (None: the
        world's ranks in order)."""
        algo = self.algorithms.pick(coll, nbytes, size)
        key = (coll, algo, size, crank, root, nbytes if algo in SIZE_SHAPED else 0, sbytes if coll in ("gather", "scatter") else 0,
               rbytes if coll in ("gather", "scatter") else 0)
        ops = self._by_rank.get(key)
        if ops is None:
            kinds, _, peers, edges = rank_ops(coll, algo, ranks=size, rank=crank, root=root, sbytes=sbytes,
                                              rbytes=rbytes, vec=None)
            ops = self._by_rank[key] = (tuple(kinds), tuple(peers), tuple(edges))
        kinds, peers, edges = ops
        if world is None:
            rel = tuple(p if p == ANY_PEER else (p - world_rank) % world_size for p in peers)
        else:
            rel = tuple(p if p == ANY_PEER else (world[p] - world_rank) % world_size for p in peers)
        return self._ids.setdefault((kinds, rel, edges), len(self._ids))


@dataclass
class ConvertedRank:
    """One converted rank kept to make others from: its columns, what it
    added to the matching and to the conversion's counts."""

    rank: int
    columns: tuple[np.ndarray, ...]
    matching: Matching
    calls: int
    by_name: Counter[str] = field(default_factory=Counter)
    unsupported: Counter[str] = field(default_factory=Counter)
    finalize_ns: int = 0
    compute_ns: int = 0
    mpi_ns: int = 0

    def shifted(self, rank: int, ranks: int) -> tuple[np.ndarray, ...]:
        """Its columns as `rank`'s: every send's and named receive's peer moved by rank - self.rank."""
        kinds, amounts, peers, tags, efrom, eto, estart = self.columns
        if rank == self.rank:
            return self.columns
        delta = (rank - self.rank) % ranks
        moved = (kinds != CALC) & (peers != ANY_PEER)
        new = peers.astype(np.int64)
        new[moved] = (new[moved] + delta) % ranks
        return kinds, amounts, new.astype(np.uint32), tags, efrom, eto, estart

    def add_matching(self, into: Matching, rank: int, ranks: int) -> None:
        """Adds to `into` what this rank's conversion counted, as `rank`'s."""
        delta = (rank - self.rank) % ranks
        own = self.matching
        for (src, dst, tag), (balance, srank, sindex, rrank, rindex) in own.channels.items():
            key = ((src + delta) % ranks, (dst + delta) % ranks, tag)
            entry = into.channels.get(key)
            if entry is None:
                entry = into.channels[key] = [0, -1, -1, -1, -1]
            entry[0] += balance
            if sindex >= 0:
                entry[1], entry[2] = rank, sindex
            if rindex >= 0:
                entry[3], entry[4] = rank, rindex
        for (dst, tag), (count, _, latest) in own.wild.items():
            at = ((dst + delta) % ranks, tag)
            w = into.wild.get(at)
            if w is None:
                into.wild[at] = [count, rank, latest]
            else:
                w[0] += count
                w[2] = latest
        for key, per_rank in own.colls.items():
            mine = per_rank.get(self.rank)
            if mine is not None:
                into.colls.setdefault(key, {})[rank] = list(mine)
