"""Scale a regular SPMD trace to more ranks: an approximation, labelled so.

A trace of P ranks is *regular* when every rank makes the same sequence of
MPI calls and each point-to-point call's peer follows one rule on every
rank: a fixed displacement on a Cartesian communicator's grid (the peer is
MPI_PROC_NULL where the displacement leaves a non-periodic grid), or a fixed
rank offset on MPI_COMM_WORLD (plain, or modulo the size for rings).
`ExtrapolatedTrace` then plays the program of N ranks: rank R makes the
traced calls, with peers placed by the same rules on N ranks (a Cartesian
grid gets MPI_Dims_create's balanced dims for N), collectives run on all N
ranks (the converter picks their algorithm for the new size), message and
collective sizes are the traced ones (weak scaling: each rank keeps its
share of the work), and the time between calls is the median over the
traced ranks, call by call.

Refused, with the call that breaks the rule: ranks whose call sequences
differ, peers that follow no rule, a call whose peer is MPI_PROC_NULL on
every traced rank (where it would go on more ranks is unknown: trace with a
grid that has a neighbour in every direction, e.g. 2 x 2), wildcard
receives, v-collectives and collectives or messages on communicators other
than MPI_COMM_WORLD and one Cartesian grid spanning it.

Memory: the template (one rank's calls) is held while the N ranks are
played; the traced ranks are read in lockstep, one call of each at a time.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from cloudnoise.errors import CloudnoiseError
from cloudnoise.trace.events import ANY, CANCELLED, PROC_NULL, Call, CommInfo
from cloudnoise.trace.grid import coords_of, dims_create, rank_of
from cloudnoise.trace.reader import TraceReader

LABEL = "extrapolated (approximation: regular SPMD program, weak scaling)"
P2P_KINDS = ("send", "recv", "isend", "irecv", "send_init", "recv_init", "sendrecv")


@dataclass(frozen=True)
class PeerRule:
    """Where a call's peer is, relative to the calling rank."""

    mode: str  # "null" (always MPI_PROC_NULL), "grid", "offset", "ring", "fixed"
    value: tuple[int, ...] = ()

    def place(self, rank: int, n: int, dims: tuple[int, ...], periods: tuple[int, ...]) -> int:
        if self.mode == "null":
            return PROC_NULL
        if self.mode == "fixed":
            return self.value[0] if self.value[0] < n else PROC_NULL
        if self.mode == "offset":
            p = rank + self.value[0]
            return p if 0 <= p < n else PROC_NULL
        if self.mode == "ring":
            return (rank + self.value[0]) % n
        c = coords_of(rank, dims)
        for k, d in enumerate(self.value):
            c[k] += d
            if not 0 <= c[k] < dims[k]:
                if not periods[k]:
                    return PROC_NULL
                c[k] %= dims[k]
        return rank_of(c, dims)


def extrapolated(trace: TraceReader, ranks: int) -> Any:
    """The N-rank program a P-rank trace stands for: as a regular SPMD
    program where it is one, else by replication (`replicate`, N a multiple
    of P). Either way a TraceReader whose `label` says which approximation."""
    if ranks < 1 or ranks > 2**31 - 1:
        raise CloudnoiseError(f"--ranks must be between 1 and 2147483647, got {ranks}")
    try:
        return ExtrapolatedTrace(trace, ranks)
    except UnknownRule:
        raise
    except CloudnoiseError as err:
        from cloudnoise.trace.replicate import ReplicatedTrace

        return ReplicatedTrace(trace, ranks, str(err))


class UnknownRule(CloudnoiseError):
    """A communicator whose rule for more ranks the trace does not show (not replicated either)."""


@dataclass(frozen=True)
class SubRule:
    """Who is in a sub-communicator on N ranks, as the traced split shows it: contiguous
    blocks of `value` ranks ("blocks"), every `value`-th rank ("strided", `value` groups),
    every rank alone ("self"), or a Cartesian sub-grid keeping dimensions `keep`."""

    mode: str
    value: int = 0
    keep: tuple[int, ...] = ()

    def info(self, cid: int, key: tuple, rank: int, n: int, dims: tuple[int, ...]) -> CommInfo:
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


class ExtrapolatedTrace:
    """The N-rank program a regular P-rank trace stands for (a TraceReader)."""

    format = "extrapolated"
    label = LABEL
    records_status = False  # receives take the posted values (their statuses are not the traced ones)

    def __init__(self, trace: TraceReader, ranks: int) -> None:
        if ranks < 1 or ranks > 2**31 - 1:
            raise CloudnoiseError(f"--ranks must be between 1 and 2147483647, got {ranks}")
        self.base = trace
        self.path = Path(trace.path)
        self.num_ranks = ranks
        self.grid_dims: tuple[int, ...] = ()
        self.grid_periods: tuple[int, ...] = ()
        self.grid_comm: int | None = None
        self.world_like: set[int] = {0}  # MPI_COMM_WORLD and its duplicates
        self.subs: dict[int, tuple[SubRule, tuple, list[tuple[int, int]]]] = {}  # id -> rule, key, traced (rank, size)
        self._created_at: dict[int, int] = {}  # sub-communicator id -> index of the call that made it
        self.template: list[tuple[Call, PeerRule | None, PeerRule | None]] = []
        self._build()

    @property
    def warnings(self) -> Sequence[str]:
        return self.base.warnings

    def describe(self) -> dict[str, Any]:
        out = dict(self.base.describe())
        out.update({
            "format": f"{self.base.format}, {self.format}",
            "ranks": self.num_ranks,
            "traced_ranks": self.base.num_ranks,
            "extrapolation": LABEL,
            "grid": list(self.grid_dims) if self.grid_dims else None,
        })
        return out

    def _refuse(self, index: int, name: str, what: str, todo: str = "extrapolate cannot scale this trace") -> CloudnoiseError:
        return CloudnoiseError(f"{self.path}: call {index} ({name}): {what}; {todo}")

    # -- learning the template
    def _build(self) -> None:
        p = self.base.num_ranks
        streams = [self.base.calls(r) for r in range(p)]
        traced_dims: tuple[int, ...] = ()
        last_exit = [0] * p
        clock = 0
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
            entry = clock + gap if c0.kind != "init" else c0.t_entry_ns
            exit_ = entry + dur if c0.kind != "init" else 0
            clock = exit_
            call = replace(c0, t_entry_ns=entry, t_exit_ns=exit_)
            rule = recv_rule = None
            if c0.kind == "comm_create":
                call, traced_dims = self._comm(row, call, traced_dims)
            elif c0.kind in P2P_KINDS and c0.comm in self.subs:
                rule = self._sub_peer([c.peer for c in row], c0)
                if c0.kind == "sendrecv":
                    recv_rule = self._sub_peer([c.recv_peer for c in row], c0)
                call.status = (ANY, ANY, 0) if c0.kind in ("recv", "sendrecv") else None
            elif c0.kind in P2P_KINDS:
                comm = c0.comm
                if comm not in self.world_like and comm != self.grid_comm:
                    raise self._refuse(c0.index, c0.name, f"a message on communicator {comm}",
                                       "only MPI_COMM_WORLD and one Cartesian grid spanning it are extrapolated")
                grid = comm == self.grid_comm
                if c0.kind == "sendrecv":
                    rule = self._rule([c.peer for c in row], grid, traced_dims, c0)
                    recv_rule = self._rule([c.recv_peer for c in row], grid, traced_dims, c0)
                else:
                    rule = self._rule([c.peer for c in row], grid, traced_dims, c0)
                call.status = (ANY, ANY, 0) if c0.kind in ("recv", "sendrecv") else None
            elif c0.kind == "coll":
                if c0.comm not in self.world_like and c0.comm != self.grid_comm and c0.comm not in self.subs:
                    raise self._refuse(c0.index, c0.name, f"a collective on communicator {c0.comm}",
                                       "only MPI_COMM_WORLD and one Cartesian grid spanning it are extrapolated")
                if c0.vec is not None:
                    raise self._refuse(c0.index, c0.name, "a v-collective (per-rank counts)", "its counts for more ranks are unknown")
                if c0.root > 0:
                    rule = PeerRule("fixed", (c0.root,))
            elif c0.kind == "complete" and c0.completions:
                call.completions = [(req, s if s == CANCELLED else ANY, ANY, 0) for (req, s, _, _) in c0.completions]
            elif c0.kind == "unsupported":
                pass  # the converter refuses it or counts it as compute
            self.template.append((call, rule, recv_rule))
        if not self.template:
            raise CloudnoiseError(f"{self.path}: the trace is empty")

    def _comm(self, row: list[Call], call: Call, traced_dims: tuple[int, ...]) -> tuple[Call, tuple[int, ...]]:
        info = row[0].comm_info
        p = self.base.num_ranks
        if info is None:
            return call, traced_dims
        spans = all(c.comm_info is not None and c.comm_info.size == p for c in row)
        if not spans:
            self._sub(row, call, traced_dims)
            return replace(call, comm_info=None), traced_dims
        if info.dims:
            if self.grid_comm is not None:
                raise self._refuse(call.index, call.name, "a second Cartesian grid", "only one grid is extrapolated")
            if any(c.comm_info.members is not None for c in row):
                raise self._refuse(call.index, call.name, "a Cartesian grid whose ranks were reordered",
                                   "create the grid with reorder = 0 to extrapolate it")
            self.grid_comm = info.id
            self.grid_dims = dims_create(self.num_ranks, len(info.dims))
            self.grid_periods = info.periods
            traced_dims = info.dims
        new = CommInfo(info.id, info.key, self.num_ranks, 0, None, self.grid_dims if info.dims else (),
                       self.grid_periods if info.dims else ())
        if not info.dims:
            self.world_like.add(info.id)
        return replace(call, comm_info=new), traced_dims

    def _sub(self, row: list[Call], call: Call, traced_dims: tuple[int, ...]) -> None:
        """Learns the rule of a sub-communicator from every traced rank's view of it."""
        p = self.base.num_ranks
        infos = [c.comm_info for c in row]
        if any(i is None for i in infos):
            raise UnknownRule(f"{self.path}: call {call.index} ({call.name}): some traced ranks are in no communicator "
                              "made here (MPI_UNDEFINED or MPI_COMM_NULL): who is left out on more ranks is unknown; "
                              "extrapolate cannot scale this trace")
        groups = {tuple(i.world_rank(k) for k in range(i.size)) for i in infos}  # type: ignore[union-attr]
        sizes = {len(g) for g in groups}
        rule: SubRule | None = None
        if sizes == {1}:
            rule = SubRule("self")
        elif len(sizes) == 1:
            size = sizes.pop()
            if groups == {tuple(range(g, g + size)) for g in range(0, p, size)}:
                rule = SubRule("blocks", size)
                info = infos[0]
                if info is not None and info.dims and self.grid_comm is not None and len(traced_dims) == 2:
                    keep = (0, 1) if size == traced_dims[1] else (1, 0)
                    rule = SubRule("grid", 0, keep)
            elif groups == {tuple(range(c, p, p // size)) for c in range(p // size)}:
                m = p // size
                rule = SubRule("strided", m)
                info = infos[0]
                if info is not None and info.dims and self.grid_comm is not None and len(traced_dims) == 2 and m == traced_dims[1]:
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
        self.subs[infos[0].id] = (rule, infos[0].key, [(i.rank, i.size) for i in infos])  # type: ignore[union-attr]
        self._created_at[infos[0].id] = call.index  # type: ignore[union-attr]

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

    def _rule(self, peers: list[int], grid: bool, traced_dims: tuple[int, ...], call: Call) -> PeerRule:
        p = self.base.num_ranks
        if any(x == ANY for x in peers):
            raise self._refuse(call.index, call.name, "a wildcard (MPI_ANY_SOURCE) receive", "its partner on more ranks is unknown")
        real = [(r, x) for r, x in enumerate(peers) if x != PROC_NULL]
        if not real:
            if all(x == PROC_NULL for x in peers):
                raise self._refuse(
                    call.index, call.name, "its peer is MPI_PROC_NULL on every traced rank",
                    "where it goes on more ranks is unknown: trace on more ranks, with a neighbour in every "
                    "direction of the grid (e.g. 4 ranks as 2 x 2)",
                )
        if grid:
            periods = self.grid_periods
            shifts = set()
            for r, x in real:
                cr, cx = coords_of(r, traced_dims), coords_of(x, traced_dims)
                d = []
                for k, size in enumerate(traced_dims):
                    delta = cx[k] - cr[k]
                    if periods[k] and size > 0:
                        delta %= size
                        if delta > size // 2:
                            delta -= size
                    d.append(delta)
                shifts.add(tuple(d))
            if len(shifts) == 1:
                rule = PeerRule("grid", shifts.pop())
                # the same rule must give MPI_PROC_NULL where the trace has it
                if all(rule.place(r, p, traced_dims, periods) == x for r, x in enumerate(peers)):
                    return rule
            raise self._refuse(call.index, call.name, f"peers {peers} follow no fixed displacement on the {traced_dims} grid")
        offsets = {x - r for r, x in real}
        if len(offsets) == 1:
            rule = PeerRule("offset", (offsets.pop(),))
            if all(rule.place(r, p, (), ()) == x for r, x in enumerate(peers)):
                return rule
        ring = {(x - r) % p for r, x in real}
        if len(ring) == 1 and all(x != PROC_NULL for x in peers):
            d = ring.pop()
            return PeerRule("ring", (d - p if d > p // 2 else d,))  # the shorter way round

        raise self._refuse(call.index, call.name, f"peers {peers} of ranks 0..{p - 1} follow no fixed rank offset")

    # -- playing N ranks
    def _sub_created(self, call: Call) -> tuple[SubRule, tuple] | None:
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
        for call, rule, recv_rule in self.template:
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
                        raise self._refuse(c.index, c.name, f"root {call.root} does not exist on {n} ranks")
            elif rule is not None and c.comm in self.subs:
                cr, cs = self._sub_place(c.comm, rank)
                c.peer = rule.place(cr, cs, (), ())
                if recv_rule is not None:
                    c.recv_peer = recv_rule.place(cr, cs, (), ())
            elif rule is not None:
                grid = dims if c.comm == self.grid_comm else ()
                c.peer = rule.place(rank, n, grid, periods if grid else ())
                if recv_rule is not None:
                    c.recv_peer = recv_rule.place(rank, n, grid, periods if grid else ())
            if c.completions is not None:
                c.completions = list(c.completions)
            yield c
