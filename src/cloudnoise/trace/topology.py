"""How a traced application decomposes its domain, from its topology calls,
and where its messages go on a grid of another size.

Every reader maps what it knows onto the same records: a Cartesian grid is
a communicator with `dims`/`periods` (MPI_Cart_create: the native recorder
and OTF2's CartTopology definitions give dims and periods; liballprof gives
only the grid's size, its dims taken as MPI_Dims_create's); the native
recorder also records MPI_Cart_shift (direction, displacement, source and
destination), MPI_Cart_sub (remain_dims), MPI_Dims_create (the dims asked
for and chosen), MPI_Cart_coords / MPI_Cart_rank and the graph topologies
(MPI_Graph_create, MPI_Dist_graph_create(_adjacent): each rank's
neighbours).

A point-to-point message between two ranks of a grid is a *displacement*:
the difference of their coordinates, the shorter way round a periodic
dimension. On a periodic dimension of 1 or 2 ranks the way is unknown (+1
and -1 are the same rank; on 1 rank both are the rank itself):
`Displacement.unknown` names those dimensions, and the extrapolation
chooses the way (extrapolate.py). A displacement is placed on a grid of
any size: coordinates plus the displacement, wrapped on periodic
dimensions, MPI_PROC_NULL off the edge of a non-periodic one.

Grids are laid out as MPI lays them out (grid.py): row-major, the last
dimension varying fastest; a grid whose ranks MPI reordered (reorder = 1)
maps its ranks to world ranks through its recorded members.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np

from cloudnoise.errors import CloudnoiseError
from cloudnoise.trace.events import PROC_NULL, Call, CommInfo
from cloudnoise.trace.grid import coords_of, dims_create, rank_of

MAX_DIMS = 8


@dataclass(frozen=True)
class Grid:
    """A Cartesian grid spanning the traced ranks: `dims`, `periods`, and the
    world rank of each grid rank (`members`; None: grid rank = world rank)."""

    dims: tuple[int, ...]
    periods: tuple[int, ...]
    members: tuple[int, ...] | None = None
    reorder: bool = False
    comm: int = -1            # the communicator's id on the traced ranks
    created_at: int = -1      # the index of the call that made it

    @property
    def size(self) -> int:
        return math.prod(self.dims)

    def coords_of_world(self, world: int) -> list[int]:
        if self.members is None:
            return coords_of(world, self.dims)
        return coords_of(self.members.index(world), self.dims)

    def world_of_coords(self, coords: list[int]) -> int:
        g = rank_of(coords, self.dims)
        return g if self.members is None else self.members[g]


@dataclass(frozen=True)
class Displacement:
    """Where a peer is relative to its rank on a grid: `delta[k]` per
    dimension; `unknown` lists the periodic dimensions of 1 or 2 ranks on
    which the message moves but whose way (+1 or -1) the trace cannot show."""

    delta: tuple[int, ...]
    unknown: tuple[int, ...] = ()

    def with_way(self, way: int) -> Displacement:
        """The displacement with its unknown dimensions going `way` (+1 or -1)."""
        d = list(self.delta)
        for k in self.unknown:
            d[k] = way
        return Displacement(tuple(d))

    @property
    def dims_moved(self) -> tuple[int, ...]:
        return tuple(k for k, x in enumerate(self.delta) if x) + self.unknown

    def moved_to(self, src: int, dst: int) -> Displacement:
        """The same move along dimension `dst` instead of `src` (for a dimension the trace does not show)."""
        d = list(self.delta)
        d[dst], d[src] = d[src], 0
        return Displacement(tuple(d))

    def text(self) -> str:
        return "(" + ", ".join("+-1" if k in self.unknown else f"{x:+d}" for k, x in enumerate(self.delta)) + ")"


def displacement(grid: Grid, rank: int, peer: int) -> Displacement:
    """The move from world rank `rank` to world rank `peer` on `grid`."""
    a, b = grid.coords_of_world(rank), grid.coords_of_world(peer)
    delta, unknown = [], []
    if rank == peer:
        # to itself: on a periodic dimension of one rank, +1 and -1 are the rank itself
        ones = tuple(k for k, size in enumerate(grid.dims) if size == 1 and grid.periods[k])
        return Displacement((0,) * len(grid.dims), ones if len(ones) == 1 else ())
    for k, size in enumerate(grid.dims):
        d = b[k] - a[k]
        if grid.periods[k]:
            d %= size
            if size <= 2:
                if d:  # size 2: the other rank is both +1 and -1
                    unknown.append(k)
                d = 0
            elif d > size // 2:
                d -= size
        delta.append(d)
    return Displacement(tuple(delta), tuple(unknown))


def place(delta: tuple[int, ...], rank: int, dims: tuple[int, ...], periods: tuple[int, ...]) -> int:
    """The rank `delta` away from `rank` on a row-major grid; MPI_PROC_NULL off a non-periodic edge."""
    c = coords_of(rank, dims)
    for k, d in enumerate(delta):
        c[k] += d
        if not 0 <= c[k] < dims[k]:
            if not periods[k]:
                return PROC_NULL
            c[k] %= dims[k]
    return rank_of(c, dims)


def place_all(delta: tuple[int, ...], dims: tuple[int, ...], periods: tuple[int, ...]) -> np.ndarray:
    """place() for every rank of the grid at once (int64; PROC_NULL off an edge)."""
    n = math.prod(dims)
    ranks = np.arange(n, dtype=np.int64)
    out = np.zeros(n, dtype=np.int64)
    off = np.zeros(n, dtype=bool)
    stride = 1
    for k in range(len(dims) - 1, -1, -1):
        c = (ranks // stride) % dims[k]
        moved = c + delta[k]
        if periods[k]:
            moved %= dims[k]
        else:
            off |= (moved < 0) | (moved >= dims[k])
        out += np.clip(moved, 0, dims[k] - 1) * stride
        stride *= dims[k]
    out[off] = PROC_NULL
    return out


def parse_grid(text: str) -> tuple[int, ...]:
    """'16x16x4' -> (16, 16, 4)."""
    if not re.fullmatch(r"\s*\d+(\s*[xX]\s*\d+)*\s*", text or ""):
        raise CloudnoiseError(f"--grid {text!r}: give the dimensions as AxBxC, e.g. 16x16x4")
    dims = tuple(int(p) for p in re.split(r"[xX]", text))
    if any(d < 1 for d in dims) or len(dims) > MAX_DIMS:
        raise CloudnoiseError(f"--grid {text}: every dimension must be at least 1, and at most {MAX_DIMS} of them")
    return dims


def grid_periods(info: CommInfo) -> tuple[int, ...]:
    """A grid's periods as 0 or 1 per dimension (none recorded: not periodic)."""
    return tuple(int(bool(p)) for p in info.periods) or (0,) * len(info.dims)


@dataclass
class Topology:
    """The topology calls of a trace, gathered call by call over every traced
    rank (extrapolation reads the ranks in lockstep and hands each row here)."""

    ranks: int
    grid: Grid | None = None
    grids_seen: int = 0
    dims_asked: list[tuple[int, tuple[int, ...], tuple[int, ...]]] = field(default_factory=list)  # nnodes, in, out
    shifts: list[tuple[int, int, list[tuple[int, int]]]] = field(default_factory=list)  # direction, disp, (src, dst)
    graphs: list[tuple[int, str]] = field(default_factory=list)  # (call index, name)
    coords_queries: int = 0

    def grid_call(self, row: list[Call]) -> Grid | None:
        """A communicator constructor's row: the grid it makes, if it is one spanning every traced rank."""
        infos = [c.comm_info for c in row]
        first = row[0]
        if any(i is None for i in infos):
            return None
        info0: CommInfo = infos[0]  # type: ignore[assignment]
        if info0.neighbours is not None:
            self.graphs.append((first.index, first.name))
            return None
        if not info0.dims or info0.size != self.ranks:
            return None
        dims = tuple(info0.dims)
        if math.prod(dims) != info0.size or any(d < 1 for d in dims) or len(dims) > MAX_DIMS:
            raise CloudnoiseError(f"call {first.index} ({first.name}): a grid of dims {dims} for {info0.size} ranks; "
                                  "the trace is damaged: record the run again")
        members = info0.members
        if members is not None and tuple(members) == tuple(range(self.ranks)):
            members = None
        if members is not None and sorted(members) != list(range(self.ranks)):
            return None
        for r, i in enumerate(infos):
            if i is None or i.dims != info0.dims or i.members != info0.members:
                raise CloudnoiseError(f"call {first.index} ({first.name}): ranks 0 and {r} see different grids; "
                                      "the trace is damaged: record the run again")
            if i.rank != (r if members is None else members.index(r)):
                raise CloudnoiseError(f"call {first.index} ({first.name}): world rank {r} is grid rank {i.rank}, "
                                      "which the grid's members do not say; the trace is damaged: record the run again")
        self.grids_seen += 1
        grid = Grid(dims, grid_periods(info0), members, info0.reorder, info0.id, first.index)
        if self.grid is None:
            self.grid = grid
        return grid

    def topology_call(self, row: list[Call]) -> None:
        """MPI_Dims_create, MPI_Cart_coords, MPI_Cart_rank on every rank."""
        c = row[0]
        if c.name == "MPI_Dims_create":
            vec = tuple(c.vec or ())
            n = len(vec) // 2
            asked, chosen = vec[:n], vec[n:]
            if n and (any(d < 0 for d in vec) or math.prod(chosen) != c.bytes):
                raise CloudnoiseError(f"call {c.index} (MPI_Dims_create): dims {chosen} for {c.bytes} ranks; "
                                      "the trace is damaged: record the run again")
            self.dims_asked.append((c.bytes, asked, chosen))
        else:
            self.coords_queries += 1

    def shift_call(self, row: list[Call]) -> None:
        c = row[0]
        self.shifts.append((c.root, c.tag, [(x.recv_peer, x.peer) for x in row]))

    def new_dims(self, ranks: int, grid: tuple[int, ...] | None) -> tuple[tuple[int, ...], str]:
        """The grid for `ranks` ranks and how it was chosen: --grid, or
        MPI_Dims_create for `ranks` keeping the dimensions the application
        fixed in its own MPI_Dims_create call."""
        assert self.grid is not None
        nd = len(self.grid.dims)
        if grid is not None:
            if len(grid) != nd:
                raise CloudnoiseError(f"--grid {'x'.join(map(str, grid))}: {len(grid)} dimensions, the traced grid "
                                      f"{'x'.join(map(str, self.grid.dims))} has {nd}")
            if math.prod(grid) != ranks:
                raise CloudnoiseError(f"--grid {'x'.join(map(str, grid))} holds {math.prod(grid)} ranks, not --ranks "
                                      f"{ranks}: give dimensions whose product is {ranks}")
            return grid, "--grid"
        fixed = next((asked for nnodes, asked, chosen in self.dims_asked
                      if len(asked) == nd and tuple(chosen) == self.grid.dims), None)
        if fixed and any(fixed):
            return dims_create_fixed(ranks, tuple(fixed)), "MPI_Dims_create, with the dimensions the application fixed"
        traced = self.grid.dims
        # MPI_Dims_create's sizes, the largest to the dimensions the trace split most
        # (MPI_Dims_create's order among equals): a dimension the application exchanges
        # along never shrinks to one rank while one it never split grows.
        sizes = sorted(dims_create(ranks, nd), reverse=True)
        order = sorted(range(nd), key=lambda k: -traced[k])
        out = [1] * nd
        for k, size in zip(order, sizes):
            out[k] = size
        return tuple(out), "MPI_Dims_create, its largest dimensions where the trace has the most ranks"


@dataclass(frozen=True)
class RecordedGrid:
    """The first Cartesian grid spanning every traced rank, as rank 0 recorded it."""

    dims: tuple[int, ...]
    periods: tuple[int, ...]
    call: str
    index: int

    def text(self) -> str:
        periodic = [str(k) for k, p in enumerate(self.periods) if p]
        wrap = f"periodic in dimension{'s' if len(periodic) > 1 else ''} {', '.join(periodic)}" if periodic \
            else "not periodic"
        return f"{'x'.join(map(str, self.dims))} ({wrap}; {self.call}, rank 0's call {self.index})"

    def to_dict(self) -> dict[str, object]:
        return {"dims": list(self.dims), "periods": list(self.periods), "call": self.call, "index": self.index}


def recorded_grid(calls: Iterable[Call], ranks: int) -> RecordedGrid | None:
    """The grid the application laid its `ranks` ranks out on: the first communicator of
    rank 0's `calls` with dims spanning every rank (what extrapolation scales), or None.
    Streams the calls and stops at the grid."""
    for c in calls:
        info = c.comm_info
        if info is not None and info.dims and info.neighbours is None and info.size == ranks \
                and math.prod(info.dims) == ranks:
            return RecordedGrid(tuple(info.dims), grid_periods(info), c.name, c.index)
    return None


def dims_create_fixed(n: int, fixed: tuple[int, ...]) -> tuple[int, ...]:
    """MPI_Dims_create(n, len(fixed), fixed): the zero entries balanced over what the others leave."""
    known = math.prod(d for d in fixed if d > 0)
    free = [k for k, d in enumerate(fixed) if d == 0]
    if known < 1 or n % known:
        raise CloudnoiseError(f"the application fixes grid dimensions {fixed}, which do not divide {n} ranks; "
                              "give --grid, or --ranks a multiple of " + str(known))
    chosen = dims_create(n // known, len(free)) if free else ()
    if not free and known != n:
        raise CloudnoiseError(f"the application fixes every grid dimension ({fixed}: {known} ranks); give --grid "
                              f"for {n} ranks")
    out = list(fixed)
    for k, d in zip(free, chosen):
        out[k] = d
    return tuple(out)
