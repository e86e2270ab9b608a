"""Who is in each communicator of a liballprof trace, worked out across ranks.

liballprof prints a communicator as `HANDLE,RANK,SIZE` (the caller's rank
in it and its size) and a constructor's output argument only as an
address, so a new communicator's handle and members are not written where
it is made. They are recovered in one pass over every rank before
conversion (only lines that name communicators are parsed, and only while
some new communicator has not yet been seen in use):

- a handle first seen after a constructor is that constructor's new
  communicator (the oldest one pending whose rank and size it fits; a
  handle seen again with another rank or size was freed and reused);
- the constructor's calls on all ranks are matched by their parent
  communicator and their order on it, and its rule gives the members:
  MPI_Comm_dup (the parent's), MPI_Comm_split (by color, ordered by key
  then parent rank: both are in the trace), MPI_Cart_create (the parent's
  first SIZE ranks in order: reorder is not applied by MPICH or Open MPI;
  dims as MPI_Dims_create gives them for SIZE ranks, non-periodic, since
  the trace has neither), MPI_Cart_sub (the kept dimensions are not in the
  trace: the one choice that gives every rank the rank and size it shows),
  MPI_Comm_create (the group is not in the trace: each member's rank in the
  new communicator, as it shows in use, says where it goes).

Every member's rank and size as the trace shows them must agree with the
rule; a communicator the rule cannot place is refused where it is used,
with a line naming the constructor. Sub-communicator ranks become world
ranks here, once: each `CommInfo` carries its members as world ranks.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from itertools import product
from typing import Any

from cloudnoise.errors import CloudnoiseError
from cloudnoise.trace.events import CommInfo
from cloudnoise.trace.grid import dims_create

# Constructors whose members the reader works out (argument layout as liballprof prints them).
CREATORS: dict[str, str] = {
    "MPI_Comm_dup": "c:comm p:newcomm",
    "MPI_Comm_split": "c:comm i:color i:key p:newcomm",
    "MPI_Comm_create": "c:comm o:group p:newcomm",
    "MPI_Cart_create": "c:comm i:ndims p:dims p:periods i:reorder p:newcomm",
    "MPI_Cart_sub": "c:comm p:remain_dims p:newcomm",
}
# Constructors whose members the trace does not tell (used communicators are refused, naming them).
LOCAL_CREATORS = {
    "MPI_Comm_split_type", "MPI_Comm_create_group", "MPI_Intercomm_create", "MPI_Intercomm_merge",
    "MPI_Graph_create", "MPI_Dist_graph_create", "MPI_Dist_graph_create_adjacent", "MPI_Comm_idup",
    "MPI_Comm_spawn", "MPI_Comm_spawn_multiple", "MPI_Comm_accept", "MPI_Comm_connect", "MPI_Comm_join",
}
WORLD, SELF = 0, 1
MAX_DIMS = 8  # dimensions of a Cartesian grid (MPI_Cart_sub tries every subset of them)


class CommError(CloudnoiseError):
    """A call on a communicator the trace does not place (the reader adds where, and
    for a handle never created, what may have made it: `RankComms.origin`)."""

    def __init__(self, message: str, handle: int | None = None) -> None:
        super().__init__(message)
        self.handle = handle


def _field(text: str) -> tuple[int, int, int]:
    h, r, s = text.split(",")
    return int(h), int(r), int(s)


@dataclass
class Creation:
    """One constructor call on one rank, as the trace shows it."""

    index: int
    name: str
    parent: int                      # parent handle
    prank: int                       # this rank's rank in the parent
    psize: int
    color: int = 0
    key: int = 0
    ndims: int = 0
    handle: int | None = None        # the new communicator's handle, once seen in use
    rank: int = -1                   # its rank and size there, as seen
    size: int = -1
    info: CommInfo | None = None     # resolved
    error: str | None = None         # why it cannot be resolved

    def fits(self, r: int, s: int) -> bool:
        """Could a communicator where this rank is r of s be this call's result?"""
        if self.name == "MPI_Comm_dup":
            return (r, s) == (self.prank, self.psize)
        if self.name == "MPI_Cart_create":
            return r == self.prank and s <= self.psize
        if self.name == "MPI_Cart_sub":
            return 0 <= r < s <= self.psize and self.psize % s == 0
        return 0 <= r < s <= self.psize


@dataclass
class _RankScan:
    creations: list[Creation] = field(default_factory=list)
    binds: list[tuple[int, int, int]] = field(default_factory=list)  # (call index, handle, creation)
    opaque: list[tuple[int, str]] = field(default_factory=list)       # (call index, constructor name)
    world: int | None = None


class RankComms:
    """One rank's view while its calls stream: handle -> converter id, at each call."""

    def __init__(self, table: CommTable, rank: int, scan: _RankScan) -> None:
        self.table, self.rank, self.scan = table, rank, scan
        self.ids: dict[int, int] = {}
        self.cache: dict[str, int] = {}
        if scan.world is not None:
            self.ids[scan.world] = WORLD
        self.binds = scan.binds
        self.next_bind = 0
        self.next_at = self.binds[0][0] if self.binds else -1
        self.index = 0

    def at(self, index: int) -> None:
        """Call `index` is next: handles first used there now name their new communicator."""
        self.index = index
        while index == self.next_at:
            _, handle, k = self.binds[self.next_bind]
            self.ids[handle] = 2 + k
            self.cache.clear()
            self.next_bind += 1
            self.next_at = self.binds[self.next_bind][0] if self.next_bind < len(self.binds) else -1

    def id_of(self, text: str, name: str) -> int:
        """The converter's id of the communicator a `HANDLE,RANK,SIZE` field names."""
        cid = self.cache.get(text)
        if cid is not None:
            return cid
        h, r, s = _field(text)
        p = self.table.num_ranks
        cid = self.ids.get(h)
        if cid is None:
            if s == p and r == self.rank:
                cid = WORLD  # MPI_COMM_WORLD, or a copy of it made by a call the trace does not show
            elif s == 1 and r == 0:
                cid = SELF
            elif s == p:
                raise CommError(f"{name} on a communicator of all {p} ranks where this rank is rank {r}, but the file is "
                                f"rank {self.rank}'s: the rank files were renamed, or copied from one rank; the trace is damaged")
            else:
                raise CommError(f"{name} on a communicator of {s} ranks (handle {h}) ", h)
        if cid >= 2:
            c = self.scan.creations[cid - 2]
            if c.info is None:
                raise CommError(f"{name} on the communicator made by {c.name} at call {c.index}: "
                                      f"{c.error or 'its members are not in the trace'}")
            if (c.info.rank, c.info.size) != (r, s):
                raise CommError(f"{name}: this rank is rank {r} of {s} there, but {c.name} at call "
                                      f"{c.index} made it rank {c.info.rank} of {c.info.size}; the file is damaged")
        elif cid == WORLD and (r, s) != (self.rank, p):
            raise CommError(f"{name}: rank {r} of {s} on MPI_COMM_WORLD, which has {p} ranks; the file is damaged")
        self.cache[text] = cid
        return cid

    def origin(self, index: int) -> str:
        """Why a handle first used at call `index` is unknown."""
        before = [(i, n) for i, n in self.scan.opaque if i < index]
        if before:
            i, n = before[-1]
            return (f"that no constructor the reader follows made; it may come from {n} at call {i}, whose members "
                    "liballprof does not record: such a trace cannot be converted")
        return "that was never created in the trace (or was created by a call liballprof did not record); the file is damaged"

    def created(self, index: int) -> CommInfo | None:
        """The new communicator of the constructor at call `index` (None where this rank is not in one)."""
        for k, c in enumerate(self.scan.creations):
            if c.index == index:
                return CommInfo(2 + k, c.info.key, c.info.size, c.info.rank, c.info.members, c.info.dims,
                                c.info.periods) if c.info is not None else None
        return None


class CommTable:
    """Every rank's constructors and handles, resolved (see the module docstring)."""

    def __init__(self, num_ranks: int, scans: list[_RankScan], mpich: bool) -> None:
        self.num_ranks = num_ranks
        self.scans = scans
        self.mpich = mpich
        self.by_key: dict[tuple, CommInfo] = {}

    def for_rank(self, rank: int) -> RankComms:
        return RankComms(self, rank, self.scans[rank])

    def creations(self) -> list[tuple[int, Creation]]:
        return [(r, c) for r, s in enumerate(self.scans) for c in s.creations]


def _scan_rank(trace: Any, rank: int, comm_pos: dict[str, int]) -> _RankScan:
    scan = _RankScan()
    pending: list[int] = []
    seen: dict[int, tuple[int, int]] = {}  # handle -> (rank, size) as last bound
    p = trace.num_ranks
    path = trace.files[rank]
    for lineno, index, line in trace.lines(rank):
        name = line.partition(":")[0]
        if name in LOCAL_CREATORS:
            scan.opaque.append((index, name))
            continue
        pos = comm_pos.get(name)
        if pos is None or (not pending and scan.world is not None and name not in CREATORS):
            continue
        fields = line.split(":")
        try:
            h, r, s = _field(fields[pos])
            if h in seen and seen[h] != (r, s) or h not in seen:
                fit = [k for k in pending if scan.creations[k].fits(r, s)] if h != scan.world else []
                if fit:
                    k = fit[0]
                    pending.remove(k)
                    c = scan.creations[k]
                    c.handle, c.rank, c.size = h, r, s
                    seen[h] = (r, s)
                    scan.binds.append((index, h, k))
                elif h not in seen and s == p and r == rank and scan.world is None:
                    scan.world = h
                    seen[h] = (r, s)
            if name in CREATORS:
                c = Creation(index, name, h, r, s)
                if name == "MPI_Comm_split":
                    c.color, c.key = int(fields[pos + 1]), int(fields[pos + 2])
                elif name == "MPI_Cart_create":
                    c.ndims = int(fields[pos + 1])
                scan.creations.append(c)
                pending.append(len(scan.creations) - 1)
        except (ValueError, IndexError):
            raise CloudnoiseError(f"{path}:{lineno}: rank {rank}, call {index}: {name}: an argument is malformed "
                                  f"({':'.join(fields[2:-1])[:80]!r}); the file is damaged") from None
    return scan


def scan_communicators(trace: Any, comm_pos: dict[str, int]) -> CommTable:
    """Reads every rank once for its communicators and resolves them across ranks."""
    scans = [_scan_rank(trace, r, comm_pos) for r in range(trace.num_ranks)]
    worlds = {s.world for s in scans if s.world is not None}
    table = CommTable(trace.num_ranks, scans, mpich=worlds == {0x44000000})
    _resolve(table)
    return table


def _resolve(table: CommTable) -> None:
    """Gives each constructor call its CommInfo, parents before children."""
    p = table.num_ranks
    world = CommInfo(WORLD, ("world",), p, 0)
    # the communicator each handle names on each rank, as resolved so far: (rank, creation) -> info
    done: set[tuple[int, int]] = set()
    seq: dict[tuple[int, tuple], int] = defaultdict(int)
    gid_of: dict[tuple[int, int], tuple] = {}
    progress = True
    while progress:
        progress = False
        groups: dict[tuple, list[tuple[int, Creation, CommInfo]]] = defaultdict(list)
        for r, scan in enumerate(table.scans):
            for k, c in enumerate(scan.creations):
                if (r, k) in done or (r, k) in gid_of:
                    continue
                parent = _parent(scan, k, c, world, r)
                if parent is None:
                    break  # wait for the parent (constructors are resolved in each rank's order)
                if parent is _UNKNOWN:
                    c.error = "its parent communicator is not one the reader knows"
                    done.add((r, k))
                    continue
                gid = (parent.key, seq[(r, parent.key)])
                seq[(r, parent.key)] += 1
                gid_of[(r, k)] = gid
                groups[gid].append((r, c, parent))
        for gid, members in groups.items():
            _resolve_group(gid, members)
            for r, c, _ in members:
                done.add((r, table.scans[r].creations.index(c)))
            progress = True


# A parent communicator the reader does not know (its constructor could not be placed).
_UNKNOWN = CommInfo(-1, ("unknown",), 0, 0)


def _parent(scan: _RankScan, k: int, c: Creation, world: CommInfo, rank: int) -> CommInfo | None:
    """The parent of creation k on this rank: None while it is unresolved, _UNKNOWN if it never will be."""
    if c.parent == scan.world:
        return CommInfo(WORLD, world.key, world.size, rank)
    for j in range(k - 1, -1, -1):
        prev = scan.creations[j]
        if prev.handle == c.parent and prev.index < c.index:
            if prev.info is None and prev.error is None:
                return None
            return prev.info if prev.info is not None else _UNKNOWN
    if c.psize == world.size and c.prank == rank:
        return CommInfo(WORLD, world.key, world.size, rank)
    return _UNKNOWN


def _identity(mem: tuple[int, ...] | None) -> tuple[int, ...] | None:
    """None for members that are world ranks 0..n-1 in order (MPI_COMM_WORLD's order)."""
    return None if mem is not None and mem == tuple(range(len(mem))) else mem


def _resolve_group(gid: tuple, members: list[tuple[int, Creation, CommInfo]]) -> None:
    """One constructor call made by the members of one parent communicator."""
    first = members[0][1]
    parent = members[0][2]
    names = {c.name for _, c, _ in members}
    if len(names) > 1 or len(members) != parent.size:
        err = (f"ranks of its parent communicator made different calls here ({', '.join(sorted(names))})" if len(names) > 1
               else f"only {len(members)} of its parent's {parent.size} ranks made it")
        for _, c, _ in members:
            c.error = err + "; the trace is inconsistent"
        return
    by_prank = {c.prank: (r, c) for r, c, _ in members}
    if len(by_prank) != len(members) or not all(0 <= pr < parent.size for pr in by_prank):
        for _, c, _ in members:
            c.error = "two ranks claim the same rank of the parent; the file is damaged"
        return
    wr = [parent.world_rank(i) for i in range(parent.size)]
    name = first.name
    if name == "MPI_Comm_dup":
        for _, c, par in members:
            c.info = CommInfo(0, gid + ("dup",), par.size, c.prank, par.members, par.dims, par.periods)
    elif name == "MPI_Comm_split":
        colors: dict[int, list[tuple[int, int]]] = defaultdict(list)
        for _, c, _ in members:
            if c.color >= 0:  # MPI_UNDEFINED (negative) gets MPI_COMM_NULL
                colors[c.color].append((c.key, c.prank))
        for color, keyed in colors.items():
            order = [pr for _, pr in sorted(keyed)]
            mem = tuple(wr[pr] for pr in order)
            for i, pr in enumerate(order):
                c = by_prank[pr][1]
                c.info = CommInfo(0, gid + ("split", color), len(order), i, _identity(mem))
    elif name == "MPI_Cart_create":
        sizes = {c.size for _, c, _ in members if c.handle is not None}
        size = sizes.pop() if len(sizes) == 1 else parent.size
        if len(sizes) > 0:
            for _, c, _ in members:
                c.error = "its ranks show different sizes for it; the file is damaged"
            return
        if not 1 <= first.ndims <= MAX_DIMS:
            for _, c, _ in members:
                c.error = f"a grid of {first.ndims} dimensions (the reader takes 1 to {MAX_DIMS}); the file is damaged"
            return
        dims = dims_create(size, first.ndims)
        mem = tuple(wr[:size])
        for _, c, _ in members:
            if c.prank < size:
                c.info = CommInfo(0, gid + ("cart",), size, c.prank, _identity(mem), dims, (0,) * len(dims))
    elif name == "MPI_Cart_sub":
        _cart_sub(gid, members, parent, wr)
    elif name == "MPI_Comm_create":
        seen = [(c.rank, c.size, c.prank) for _, c, _ in members if c.handle is not None]
        sizes = {s for _, s, _ in seen}
        if len(sizes) > 1:
            for _, c, _ in members:
                c.error = "its ranks show different sizes for it; the file is damaged"
            return
        size = sizes.pop() if sizes else 0
        slots: list[int] = [-1] * size
        for r, s, pr in seen:
            slots[r] = wr[pr]
        missing = [i for i, x in enumerate(slots) if x < 0]
        for _, c, _ in members:
            if c.handle is None:
                continue
            if missing:
                c.error = (f"MPI_Comm_create's group is not in the trace, and rank {missing[0]} of the new communicator "
                           "never used it, so who it is cannot be known")
            else:
                c.info = CommInfo(0, gid + ("create",), size, c.rank, tuple(slots))


def _cart_sub(gid: tuple, members: list[tuple[int, Creation, CommInfo]], parent: CommInfo, wr: list[int]) -> None:
    dims = parent.dims
    if not dims:
        for _, c, _ in members:
            c.error = "MPI_Cart_sub of a communicator that is not a Cartesian grid the reader knows"
        return
    fits = []
    for keep in product((0, 1), repeat=len(dims)):
        sub = _sub_layout(dims, keep)
        if all(c.handle is None or sub[c.prank][1:] == (c.rank, c.size) for _, c, _ in members):
            fits.append((keep, sub))
    layouts = {tuple(s for s in sub) for _, sub in fits}
    if len(layouts) != 1:
        why = ("no choice of kept dimensions of the " + "x".join(map(str, dims)) + " grid gives every rank the rank and "
               "size it shows" if not fits else "the kept dimensions are not in the trace and the ranks' use of it "
               "does not tell them apart")
        for _, c, _ in members:
            c.error = why
        return
    keep, sub = fits[0]
    groups: dict[tuple, list[int]] = defaultdict(list)
    for pr, (color, r, s) in enumerate(sub):
        groups[color].append(pr)
    kdims = tuple(d for d, k in zip(dims, keep) if k)
    kper = tuple(pe for pe, k in zip(parent.periods, keep) if k)
    for _, c, _ in members:
        color, r, s = sub[c.prank]
        mem = tuple(wr[pr] for pr in groups[color])
        c.info = CommInfo(0, gid + ("sub",) + color, s, r, mem, kdims or (1,), kper or (0,))


def _sub_layout(dims: tuple[int, ...], keep: tuple[int, ...]) -> list[tuple[tuple, int, int]]:
    """(color, rank, size) in the sub-grid of each rank of a row-major grid."""
    out = []
    n = 1
    for d in dims:
        n *= d
    for rank in range(n):
        coords = []
        x = rank
        for d in reversed(dims):
            coords.append(x % d)
            x //= d
        coords.reverse()
        color = tuple(cc for cc, k in zip(coords, keep) if not k)
        r, s = 0, 1
        for cc, d, k in zip(coords, dims, keep):
            if k:
                r = r * d + cc
                s *= d
        out.append((color, r, s))
    return out
