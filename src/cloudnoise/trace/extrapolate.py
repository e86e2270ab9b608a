"""Scale a regular SPMD trace to more ranks: an approximation, labelled so.

A trace of P ranks is *regular* when every rank makes the same sequence of
MPI calls and each point-to-point call's peer follows one rule on every
rank (peer_rules.py). Where the application made a Cartesian grid spanning
its ranks (MPI_Cart_create; topology.py), each message is a displacement on
that grid, whatever communicator carries it (LAMMPS sends on
MPI_COMM_WORLD to the neighbours MPI_Cart_shift gave it); otherwise a fixed
rank offset on MPI_COMM_WORLD (plain, or modulo the size for rings).
`ExtrapolatedTrace` then plays the program of N ranks: rank R makes the
traced calls, with peers placed by the same rules on N ranks (the grid's
dims for N: MPI_Dims_create's, keeping what the application fixed in its
own MPI_Dims_create, or `grid`), collectives on all N ranks (the converter
picks their algorithm for the new size), and the time between calls the
median over the traced ranks, call by call.

Where +1 and -1 are one traced rank (a periodic dimension of 2 ranks, a
ring of 2) the way of each message is chosen by peer_rules.resolve_ways; a
dimension of one traced rank that has more on the new grid gets the
exchanges of the nearest dimension (dimension_copies.py). Sizes and compute
follow `scaling` (scaling.py: weak keeps them, strong divides compute by
N / P and sizes halo messages by the face per rank of each dimension).

Refused (NotRegular: the caller replicates the trace instead), with the
call that breaks the rule: ranks whose call sequences differ, peers that
follow no rule, a call whose peer is MPI_PROC_NULL on every traced rank,
wildcard receives, v-collectives, and messages or collectives on
communicators other than MPI_COMM_WORLD (and its duplicates), the grid and
the sub-communicators whose rule the trace shows.

Memory: the template (one rank's calls) is held while the N ranks are
played; the traced ranks are read in lockstep, one call of each at a time.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from cloudnoise.errors import CloudnoiseError
from cloudnoise.trace.collectives import collective_of
from cloudnoise.trace.dimension_copies import copy_missing_dims
from cloudnoise.trace.events import ANY, CANCELLED, PROC_NULL, Call, CommInfo
from cloudnoise.trace.peer_rules import PeerRule, RuledCall, SubRule, resolve_ways
from cloudnoise.trace.reader import TraceReader
from cloudnoise.trace.scaling import Scaling, parse_scaling
from cloudnoise.trace.topology import Grid, Topology, displacement, parse_grid

P2P_KINDS = ("send", "recv", "isend", "irecv", "send_init", "recv_init", "sendrecv")
SENDS = ("send", "isend", "send_init")
# Calls that communicate with nobody: the converter counts their time as compute.
LOCAL_KINDS = ("local", "cart_shift", "comm_free", "topology", "comm_create", "names", "unsupported")


class NotRegular(CloudnoiseError):
    """The trace is not a regular SPMD program (it can be replicated instead)."""


class UnknownRule(CloudnoiseError):
    """A communicator whose rule for more ranks the trace does not show (not replicated either)."""


def extrapolated(trace: TraceReader, ranks: int, *, scaling: str | None = None, grid: str | None = None) -> Any:
    """The N-rank program a P-rank trace stands for: as a regular SPMD
    program where it is one, else by replication (`replicate`, N a multiple
    of P; weak scaling only). Either way a TraceReader whose `label` says
    which approximation. `grid` ('16x16x4') lays out the Cartesian grid;
    `scaling` is 'weak' (default) or 'strong'."""
    if ranks < 1 or ranks > 2**31 - 1:
        raise CloudnoiseError(f"--ranks must be between 1 and 2147483647, got {ranks}")
    mode = parse_scaling(scaling)
    dims = parse_grid(grid) if grid is not None else None
    try:
        return ExtrapolatedTrace(trace, ranks, scaling=mode, grid=dims)
    except NotRegular as err:
        if mode == "strong":
            raise CloudnoiseError(
                f"--scaling strong needs a decomposition to scale, and this trace is not a regular program on a "
                f"Cartesian grid ({err}); use --scaling weak (replication)") from None
        if dims is not None:
            raise CloudnoiseError(f"--grid lays out a Cartesian grid, and this trace is not a regular program on one "
                                  f"({err}); leave --grid out to replicate it") from None
        from cloudnoise.trace.replicate import ReplicatedTrace

        return ReplicatedTrace(trace, ranks, str(err))


class ExtrapolatedTrace:
    """The N-rank program a regular P-rank trace stands for (a TraceReader)."""

    format = "extrapolated"
    records_status = False  # receives take the posted values (their statuses are not the traced ones)

    def __init__(self, trace: TraceReader, ranks: int, *, scaling: str = "weak",
                 grid: tuple[int, ...] | None = None) -> None:
        if ranks < 1 or ranks > 2**31 - 1:
            raise CloudnoiseError(f"--ranks must be between 1 and 2147483647, got {ranks}")
        self.base = trace
        self.path = Path(trace.path)
        self.num_ranks = ranks
        self.grid_option = grid
        self.topology = Topology(trace.num_ranks)
        self.grid_dims: tuple[int, ...] = ()
        self.grid_periods: tuple[int, ...] = ()
        self.grid_from = ""
        self.grid_comms: set[int] = set()
        self.world_like: set[int] = {0}  # MPI_COMM_WORLD and its duplicates
        self.subs: dict[int, tuple[SubRule, tuple[Any, ...], list[tuple[int, int]]]] = {}  # id -> rule, key, traced (rank, size)
        self._created_at: dict[int, int] = {}  # sub-communicator id -> index of the call that made it
        self.entries: list[RuledCall] = []
        self.sources: dict[int, int] = {}
        self.ways_chosen = False
        self._build()
        self._finish(scaling)

    @property
    def warnings(self) -> Sequence[str]:
        return self.base.warnings

    @property
    def traced_grid(self) -> Grid | None:
        return self.topology.grid

    def describe(self) -> dict[str, Any]:
        out = dict(self.base.describe())
        g = self.traced_grid
        out.update({
            "format": f"{self.base.format}, {self.format}",
            "ranks": self.num_ranks,
            "traced_ranks": self.base.num_ranks,
            "extrapolation": self.label,
            "grid": list(self.grid_dims) if self.grid_dims else None,
            "traced_grid": list(g.dims) if g else None,
            "grid_from": self.grid_from or None,
            "scaling": self.scaling.mode,
            "copied_dims": {str(k): m for k, m in self.sources.items()},
        })
        return out

    def _refuse(self, index: int, name: str, what: str, todo: str = "extrapolate cannot scale this trace") -> NotRegular:
        return NotRegular(f"{self.path}: call {index} ({name}): {what}; {todo}")

    # -- learning the template
    def _build(self) -> None:
        p = self.base.num_ranks
        streams = [self.base.calls(r) for r in range(p)]
        last_exit = [0] * p
        while True:
            maybe = [next(s, None) for s in streams]
            if all(c is None for c in maybe):
                break
            first = next(c for c in maybe if c is not None)
            for r, m in enumerate(maybe):
                if m is None or m.name != first.name:
                    got = "nothing (its trace ended)" if m is None else m.name
                    raise self._refuse(first.index, first.name, f"rank {r} makes {got} there",
                                       "the ranks do not run the same sequence of MPI calls (not a regular SPMD trace)")
            row: list[Call] = [c for c in maybe if c is not None]
            c0 = row[0]
            gaps = [c.t_entry_ns - last_exit[r] for r, c in enumerate(row)]
            durs = [c.t_exit_ns - c.t_entry_ns for c in row]
            for r, c in enumerate(row):
                last_exit[r] = c.t_exit_ns
            gap = int(statistics.median(gaps))
            dur = max(0, int(statistics.median(durs)))
            call = c0.copy()
            rule = recv_rule = None
            if c0.kind in P2P_KINDS and any(c.tag != c0.tag or c.recv_tag != c0.recv_tag for c in row):
                raise self._refuse(c0.index, c0.name, f"tags {[c.tag for c in row]} differ between the ranks",
                                   "every rank must make the same call")
            if c0.kind == "comm_create":
                call = self._comm(row, call)
            elif c0.kind == "topology":
                self.topology.topology_call(row)
            elif c0.kind == "cart_shift":
                self.topology.shift_call(row)
            elif c0.kind in P2P_KINDS and c0.comm in self.subs:
                rule = self._sub_peer([c.peer for c in row], c0)
                if c0.kind == "sendrecv":
                    recv_rule = self._sub_peer([c.recv_peer for c in row], c0)
                call.status = (ANY, ANY, 0) if c0.kind in ("recv", "sendrecv") else None
            elif c0.kind in P2P_KINDS:
                comm = c0.comm
                if comm not in self.world_like and comm not in self.grid_comms:
                    raise self._refuse(c0.index, c0.name, f"a message on communicator {comm}",
                                       "only MPI_COMM_WORLD, a Cartesian grid spanning it and sub-communicators "
                                       "whose rule the trace shows are extrapolated")
                on_grid = comm in self.grid_comms
                rule = self._rule([self._world(c.peer, on_grid) for c in row], c0)
                if c0.kind == "sendrecv":
                    recv_rule = self._rule([self._world(c.recv_peer, on_grid) for c in row], c0)
                call.status = (ANY, ANY, 0) if c0.kind in ("recv", "sendrecv") else None
            elif c0.kind == "coll":
                if c0.comm not in self.world_like and c0.comm not in self.grid_comms and c0.comm not in self.subs:
                    raise self._refuse(c0.index, c0.name, f"a collective on communicator {c0.comm}",
                                       "only MPI_COMM_WORLD, a Cartesian grid spanning it and sub-communicators "
                                       "whose rule the trace shows are extrapolated")
                if c0.vec is not None:
                    raise self._refuse(c0.index, c0.name, "a v-collective (per-rank counts)", "its counts for more ranks are unknown")
                if c0.root > 0:
                    rule = PeerRule("fixed", (c0.root,))
            elif c0.kind == "complete" and c0.completions:
                call.completions = [(req, s if s == CANCELLED else ANY, ANY, 0) for (req, s, _, _) in c0.completions]
            if c0.kind == "init":
                gap, dur = c0.t_entry_ns, -1
            self.entries.append(RuledCall(call, rule, recv_rule, gap, dur))
        if not self.entries:
            raise CloudnoiseError(f"{self.path}: the trace is empty")

    def _world(self, peer: int, on_grid: bool) -> int:
        """A peer as a world rank (a grid's ranks may be reordered)."""
        g = self.traced_grid
        if on_grid and g is not None and g.members is not None and peer >= 0:
            return g.members[peer]
        return peer

    def _comm(self, row: list[Call], call: Call) -> Call:
        info = row[0].comm_info
        p = self.base.num_ranks
        if info is None:
            return call
        spans = all(c.comm_info is not None and c.comm_info.size == p for c in row)
        if not spans:
            self._sub(row, call)
            return replace(call, comm_info=None)
        if info.neighbours is not None:
            self.topology.grid_call(row)
            raise self._refuse(call.index, call.name, "a graph topology",
                               "where its neighbours go on more ranks is unknown")
        if info.dims:
            before = self.traced_grid
            grid = self.topology.grid_call(row)
            if grid is None:
                raise self._refuse(call.index, call.name, "a Cartesian grid whose members are not every rank once",
                                   "only grids spanning MPI_COMM_WORLD are extrapolated")
            if before is not None and (grid.dims != before.dims or grid.members != before.members):
                raise self._refuse(call.index, call.name, f"a second Cartesian grid ({'x'.join(map(str, grid.dims))} "
                                   f"after {'x'.join(map(str, before.dims))})", "only one grid is extrapolated")
            if not self.grid_dims:
                self.grid_dims, self.grid_from = self.topology.new_dims(self.num_ranks, self.grid_option)
                self.grid_periods = tuple(self.traced_grid.periods)  # type: ignore[union-attr]
            self.grid_comms.add(info.id)
            return replace(call, comm_info=CommInfo(info.id, info.key, self.num_ranks, 0, None, self.grid_dims,
                                                   self.grid_periods))
        self.world_like.add(info.id)
        return replace(call, comm_info=CommInfo(info.id, info.key, self.num_ranks, 0, None))

    def _sub(self, row: list[Call], call: Call) -> None:
        """Learns the rule of a sub-communicator from every traced rank's view of it."""
        p = self.base.num_ranks
        infos = [c.comm_info for c in row]
        if any(i is None for i in infos):
            raise UnknownRule(f"{self.path}: call {call.index} ({call.name}): some traced ranks are in no communicator "
                              "made here (MPI_UNDEFINED or MPI_COMM_NULL): who is left out on more ranks is unknown; "
                              "extrapolate cannot scale this trace")
        groups = {tuple(i.world_rank(k) for k in range(i.size)) for i in infos}  # type: ignore[union-attr]
        sizes = {len(g) for g in groups}
        traced_dims = self.traced_grid.dims if self.traced_grid else ()
        info0 = infos[0]
        assert info0 is not None
        rule: SubRule | None = None
        if info0.keep and traced_dims and info0.dims and sum(info0.keep[:len(traced_dims)]) == 1:
            rule = SubRule("grid", 0, tuple(info0.keep[:len(traced_dims)]))
        elif sizes == {1}:
            rule = SubRule("self")
        elif len(sizes) == 1:
            size = sizes.pop()
            if groups == {tuple(range(g, g + size)) for g in range(0, p, size)}:
                rule = SubRule("blocks", size)
                if info0.dims and self.grid_comms and len(traced_dims) == 2:
                    keep = (0, 1) if size == traced_dims[1] else (1, 0)
                    rule = SubRule("grid", 0, keep)
            elif groups == {tuple(range(c, p, p // size)) for c in range(p // size)}:
                m = p // size
                rule = SubRule("strided", m)
                if info0.dims and self.grid_comms and len(traced_dims) == 2 and m == traced_dims[1]:
                    rule = SubRule("grid", 0, (1, 0))
        if rule is None:
            raise UnknownRule(
                f"{self.path}: call {call.index} ({call.name}): its groups {sorted(groups)[:4]}"
                f"{' ...' if len(groups) > 4 else ''} follow no rule extrapolate knows (contiguous blocks, every m-th "
                "rank, a row or column of the grid; members in rank order); extrapolate cannot scale this trace"
            )
        n = self.num_ranks
        if rule.mode == "blocks" and n % rule.value or rule.mode == "strided" and n % rule.value:
            raise UnknownRule(f"{self.path}: call {call.index} ({call.name}): its groups of {rule.value} do not divide "
                              f"{n} ranks; give --ranks a multiple of {rule.value}")
        self.subs[info0.id] = (rule, info0.key, [(i.rank, i.size) for i in infos])  # type: ignore[union-attr]
        self._created_at[info0.id] = call.index

    def _sub_peer(self, peers: list[int], call: Call) -> PeerRule:
        """A peer on a sub-communicator: a fixed offset (or ring) in its ranks."""
        _, _, traced = self.subs[call.comm]
        if any(x == ANY for x in peers):
            raise self._refuse(call.index, call.name, "a wildcard (MPI_ANY_SOURCE) receive", "its partner on more ranks is unknown")
        real = [(traced[r][0], x) for r, x in enumerate(peers) if x != PROC_NULL]
        offsets = {x - cr for cr, x in real}
        if len(offsets) == 1 and all(x == PROC_NULL or 0 <= x < traced[r][1] for r, x in enumerate(peers)):
            rule = PeerRule("offset", (offsets.pop(),))
            if all(rule.place(traced[r][0], traced[r][1], (), ()) == x for r, x in enumerate(peers)):
                return rule
        sizes = {s for _, s in traced}
        ring = {(x - traced[r][0]) % traced[r][1] for r, x in enumerate(peers) if x != PROC_NULL}
        if len(ring) == 1 and len(sizes) == 1 and all(x != PROC_NULL for x in peers):
            d, size = ring.pop(), sizes.pop()
            if 2 * d == size and self._sub_place(call.comm, 0)[1] != size:
                raise self._refuse(call.index, call.name, f"its peer is {d} ranks away in a communicator of {size} traced "
                                   "ranks: forward or back is unknown", "trace with at least 3 ranks in each group")
            return PeerRule("ring", (d - size if d > size // 2 else d,))
        raise self._refuse(call.index, call.name, f"peers {peers} follow no fixed offset in their communicator's ranks")

    def _rule(self, peers: list[int], call: Call) -> PeerRule:
        """The rule of a message on MPI_COMM_WORLD or the grid, from every traced rank's peer (world ranks)."""
        p = self.base.num_ranks
        if any(x == ANY for x in peers):
            raise self._refuse(call.index, call.name, "a wildcard (MPI_ANY_SOURCE) receive", "its partner on more ranks is unknown")
        real = [(r, x) for r, x in enumerate(peers) if x != PROC_NULL]
        if not real:
            raise self._refuse(
                call.index, call.name, "its peer is MPI_PROC_NULL on every traced rank",
                "where it goes on more ranks is unknown: trace on more ranks, with a neighbour in every "
                "direction of the grid (e.g. 4 ranks as 2 x 2)",
            )
        grid = self.traced_grid
        if grid is not None:
            moves = {displacement(grid, r, x) for r, x in real}
            if len(moves) == 1:
                move = moves.pop()
                rule = PeerRule("grid", move.delta, move.unknown)
                # the same rule must give MPI_PROC_NULL where the trace has it
                placed = [rule.place(grid.members.index(r) if grid.members else r, p, grid.dims, grid.periods)
                          for r in range(p)]
                if grid.members is not None:
                    placed = [grid.members[x] if x >= 0 else x for x in placed]
                if all(x == peers[r] for r, x in enumerate(placed)) or move.unknown:
                    return rule
            if call.comm in self.grid_comms:
                raise self._refuse(call.index, call.name, f"peers {peers} follow no fixed displacement on the "
                                   f"{'x'.join(map(str, grid.dims))} grid")
        offsets = {x - r for r, x in real}
        if len(offsets) == 1:
            rule = PeerRule("offset", (offsets.pop(),))
            if all(rule.place(r, p, (), ()) == x for r, x in enumerate(peers)):
                return rule
        ring = {(x - r) % p for r, x in real}
        if len(ring) == 1 and all(x != PROC_NULL for x in peers):
            d = ring.pop()
            if d == 0:
                return PeerRule("self")
            if 2 * d == p:  # half way round: forward and back are one rank
                return PeerRule("ring", (d,), (1,))
            return PeerRule("ring", (d - p if d > p // 2 else d,))  # the shorter way round
        where = f" and no fixed displacement on the {'x'.join(map(str, grid.dims))} grid" if grid is not None else ""
        raise self._refuse(call.index, call.name, f"peers {peers} of ranks 0..{p - 1} follow no fixed rank offset{where}")

    # -- choosing ways, copying dimensions, scaling
    def _finish(self, mode: str) -> None:
        if self.grid_option is not None and self.traced_grid is None:
            raise CloudnoiseError(f"{self.path}: --grid lays out the application's Cartesian grid, and the trace has none "
                                  "(no MPI_Cart_create spanning its ranks); leave --grid out")
        sides: list[tuple[str, int, int, PeerRule | None]] = []
        for e in self.entries:
            c = e.call
            if c.kind == "sendrecv":
                sides += [("send", c.comm, c.tag, e.rule), ("recv", c.comm, c.recv_tag, e.recv_rule)]
            elif c.kind in P2P_KINDS:
                sides.append(("send" if c.kind in SENDS else "recv", c.comm, c.tag, e.rule))
            else:
                sides.append(("other", 0, 0, e.rule))
        chosen = iter(resolve_ways(sides))
        for e in self.entries:
            if e.call.kind in P2P_KINDS:
                was = (e.rule, e.recv_rule)
                e.rule = next(chosen)
                if e.call.kind == "sendrecv":
                    e.recv_rule = next(chosen)
                self.ways_chosen |= was != (e.rule, e.recv_rule)
            else:
                next(chosen)
        g = self.traced_grid
        if g is not None:
            self.entries, self.sources = copy_missing_dims(self.entries, g.dims, self.grid_dims)
        if mode == "strong" and g is None:
            raise CloudnoiseError(
                f"{self.path}: --scaling strong needs the application's decomposition, and the trace has no Cartesian "
                "grid (MPI_Cart_create spanning its ranks) whose faces would size its messages; use --scaling weak")
        self.scaling = Scaling(mode, self.base.num_ranks, self.num_ranks, g.dims if g else (), self.grid_dims)
        self._apply()
        self.label = self._label()

    def _apply(self) -> None:
        """Times from the median gaps (compute scaled) and sizes by the scaling rule."""
        s = self.scaling
        clock = 0
        for e in self.entries:
            c = e.call
            gap, dur = e.gap, e.dur
            if dur < 0:  # MPI_Init: its own times
                c.t_entry_ns, c.t_exit_ns = gap, 0
                continue
            entry = clock + round(gap * s.compute)
            if c.kind in LOCAL_KINDS or (c.kind == "complete" and not c.completions):
                dur = round(dur * s.compute)  # replayed as compute by the converter
            c.t_entry_ns, c.t_exit_ns = entry, entry + dur
            clock = c.t_exit_ns
            if c.kind in P2P_KINDS:
                rule = e.rule if e.rule is not None and e.rule.mode == "grid" else e.recv_rule
                if rule is None or rule.mode != "grid":
                    continue
                moved = rule.moved
                source = tuple(e.copied[1] if k == e.copied[0] else k for k in moved) if e.copied else None
                f = s.halo(moved, source)
                if f != 1.0:
                    c.bytes = _scaled(c.bytes, f)
                    c.recv_bytes = _scaled(c.recv_bytes, f)
                    if c.completions:
                        c.completions = [(req, src, tag, _scaled(nb, f)) for req, src, tag, nb in c.completions]
            elif c.kind == "coll":
                f = s.collective(collective_of(c.name))
                if f != 1.0:
                    c.bytes, c.recv_bytes = _scaled(c.bytes, f), _scaled(c.recv_bytes, f)

    def _label(self) -> str:
        g = self.traced_grid
        parts = ["extrapolated (approximation: regular SPMD program"]
        if g is not None:
            parts.append(f"; messages by their displacement on the traced {'x'.join(map(str, g.dims))} grid, placed on "
                         f"{'x'.join(map(str, self.grid_dims))} ({self.grid_from})")
            two = [k for k, d in enumerate(g.dims) if g.periods[k] and d == 2 and self.grid_dims[k] > 2]
            two += [k for k, m in self.sources.items() if g.periods[m] and g.dims[m] == 2 and self.grid_dims[k] > 2]
            if self.ways_chosen and two:
                parts.append(f"; along dim {', '.join(map(str, sorted(two)))} (+1 and -1 one traced rank) messages go -1 "
                             "and +1 in turn")
            for k, m in sorted(self.sources.items()):
                parts.append(f"; dim {k} (one traced rank, no messages) copies dim {m}'s exchanges")
        else:
            parts.append("; peers by a fixed rank offset")
            if self.ways_chosen:
                parts.append(" (half way round a ring: back and forth in turn)")
        parts.append(f"; {self.scaling.describe(self.sources)})")
        return "".join(parts)

    def unmatched(self, err: Any) -> str:
        """The error for a message the extrapolated program does not pair
        (matching.Unmatched): the traced program pairs it (it simulates as
        recorded); the rule placing it on N ranks is what fails."""
        e = next((x for x in self.entries if x.call.index == err.index), None)
        how = ""
        if e is not None:
            rules = [f"{side} by {r.text()}" for side, r in (("peer", e.rule), ("source", e.recv_rule)) if r is not None]
            how = f" ({e.call.name}, {', '.join(rules)}" + (f"; copied onto dim {e.copied[0]} from dim {e.copied[1]}"
                                                            if e.copied else "") + ")"
        todo = (f"give --grid with another layout of {self.num_ranks} ranks than {'x'.join(map(str, self.grid_dims))}, "
                if self.grid_dims else "")
        return (f"{self.path}: extrapolated to {self.num_ranks} ranks: rank {err.rank}, call {err.index}{how}: "
                f"{err.what}. The traced {self.base.num_ranks} ranks pair it (they simulate as recorded); the rule that "
                f"places it on {self.num_ranks} ranks does not; {todo}or simulate at the traced {self.base.num_ranks} "
                "ranks")

    # -- which ranks convert alike (rank_copies.py)
    def rank_signature(self, rank: int, options: Any) -> tuple[Any, ...]:
        """What rank `rank`'s converted ops depend on, with peers relative to it:
        ranks with equal signatures convert alike (rank_copies.py)."""
        algos = options.algorithms.describe()
        if self._signature_for != algos:
            self._prepare_signatures(options)
            self._signature_for = algos
        n = self.num_ranks
        parts: list[Any] = [self._rel[rank].tobytes()]
        infos: dict[int, CommInfo] = {}
        for cid, (sub, key, _) in self.subs.items():
            info = infos[cid] = sub.info(cid, key, rank, n, self.grid_dims)
            members = info.members
            start, step = (members.start, members.step) if isinstance(members, range) else (rank, 1)
            parts.append((info.key, info.size, info.rank, (start - rank) % n, step))
        for cid, rule in self._sub_rules:
            info = infos[cid]
            x = rule.place(info.rank, info.size, (), ())
            parts.append(-1 if x < 0 else (info.world_rank(x) - rank) % n)
        shapes = self._shapes
        for name, comm, root, nbytes, sb, rb in self._colls:
            on = infos.get(comm)
            if on is None:
                parts.append(shapes.shape(name, nbytes, sb, rb, n, rank, root, None, rank, n))
            else:
                parts.append(shapes.shape(name, nbytes, sb, rb, on.size, on.rank, root, on.members, rank, n))
        return tuple(parts)

    _signature_for = ""

    def _prepare_signatures(self, options: Any) -> None:
        from cloudnoise.trace.rank_copies import CollectiveShapes

        n, dims, periods = self.num_ranks, self.grid_dims, self.grid_periods
        rules: dict[PeerRule, int] = {}
        sub_rules: dict[tuple[int, PeerRule], int] = {}
        colls: dict[tuple[Any, ...], int] = {}
        for e in self.entries:
            c = e.call
            if c.kind in P2P_KINDS:
                for r in (e.rule, e.recv_rule):
                    if r is None:
                        continue
                    if c.comm in self.subs:
                        sub_rules.setdefault((c.comm, r), len(sub_rules))
                    else:
                        rules.setdefault(r, len(rules))
            elif c.kind == "coll":
                root = e.rule.value[0] if e.rule is not None else c.root
                colls.setdefault((collective_of(c.name), c.comm, root, max(c.bytes, c.recv_bytes), c.bytes, c.recv_bytes),
                                 len(colls))
        ranks = np.arange(n, dtype=np.int64)
        rel = np.zeros((n, max(1, len(rules))), dtype=np.int64)
        for r, k in rules.items():
            placed = r.place_all(n, dims, periods)
            rel[:, k] = np.where(placed < 0, -1, (placed - ranks) % n)
        self._rel = rel
        self._sub_rules = list(sub_rules)
        self._colls = list(colls)
        self._shapes = CollectiveShapes(options.algorithms)

    # -- playing N ranks
    def _sub_created(self, call: Call) -> tuple[SubRule, tuple[Any, ...]] | None:
        for cid, (rule, key, _) in self.subs.items():
            if self._created_at.get(cid) == call.index:
                return rule, key
        return None

    def _sub_id(self, call: Call) -> int:
        return next(cid for cid, at in self._created_at.items() if at == call.index)

    def _sub_place(self, cid: int, rank: int) -> tuple[int, int]:
        rule, key, _ = self.subs[cid]
        info = rule.info(cid, key, rank, self.num_ranks, self.grid_dims)
        return info.rank, info.size

    def calls(self, rank: int) -> Iterator[Call]:
        n, dims, periods = self.num_ranks, self.grid_dims, self.grid_periods
        for e in self.entries:
            call, rule, recv_rule = e.call, e.rule, e.recv_rule
            c = call.copy()
            if c.kind == "comm_create" and c.comm_info is None and call.comm_info is None:
                sub = self._sub_created(call)
                if sub is not None:
                    rule_, key = sub
                    c.comm_info = rule_.info(self._sub_id(call), key, rank, n, dims)
            elif c.kind == "comm_create" and c.comm_info is not None:
                c.comm_info = replace(c.comm_info, rank=rank)
            elif c.kind == "coll":
                if rule is not None:
                    c.root = rule.place(rank, n, dims, periods)
                    if c.root < 0:
                        raise CloudnoiseError(f"{self.path}: call {c.index} ({c.name}): root {call.root} does not "
                                              f"exist on {n} ranks; give --ranks of at least {call.root + 1}")
            elif rule is not None and c.comm in self.subs:
                cr, cs = self._sub_place(c.comm, rank)
                c.peer = rule.place(cr, cs, (), ())
                if recv_rule is not None:
                    c.recv_peer = recv_rule.place(cr, cs, (), ())
            elif rule is not None:
                c.peer = rule.place(rank, n, dims, periods)
                if recv_rule is not None:
                    c.recv_peer = recv_rule.place(rank, n, dims, periods)
            if c.completions is not None:
                c.completions = list(c.completions)
            yield c


CONTROL_BYTES = 64


def _scaled(nbytes: int, factor: float) -> int:
    """A halo message's size times a factor, at least one byte where it was
    some. A message of at most CONTROL_BYTES is taken for control (a count,
    a flag: LAMMPS sends the number of atoms it will send as 4 bytes) and
    keeps its size."""
    if nbytes <= CONTROL_BYTES:
        return nbytes
    return max(1, round(nbytes * factor))
