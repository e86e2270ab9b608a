"""Which algorithm simulates each MPI collective, and its ops on one rank.

`--algorithms mpich` (the default) picks what MPICH's default selection
picks, as far as the engine has a generator for it (MPICH 4's `auto`
thresholds, ch4/ofi and ch3 alike):

| MPI call | MPICH picks | simulated with |
|---|---|---|
| Barrier | dissemination (Bruck) | `dissemination`, 0-byte messages |
| Bcast | binomial below 12 KiB or 8 ranks, else scatter + ring allgather | `binomialtreebcast`; `pipelinedring` (64 KiB segments) for the large case: the same bandwidth term, no scatter generator |
| Reduce | binomial | `binomialtreereduce` |
| Allreduce | recursive doubling up to 2 KiB, else Rabenseifner (reduce-scatter + allgather) | `dissemination` (same rounds and sizes as recursive doubling, and the same cost under LogGOPS, which has no topology); `allreduce_recdoub` (Rabenseifner) |
| Gather / Scatter | binomial | `gather` / `scatter` (linear: the root handles every message) |
| Gatherv / Scatterv / Alltoallv | linear | linear with the recorded per-rank sizes |
| Allgather(v), Reduce_scatter(_block) | ring for large messages | ring with the recorded per-rank sizes |
| Alltoall | Bruck / isend-irecv / pairwise by size | `linear_alltoall` (P-1 shifted exchanges) |
| Scan / Exscan | recursive doubling | `dissemination` |

`--algorithms allreduce=allreduce_ring,bcast=binarytreebcast` names one
algorithm per collective (the others keep MPICH's choice); `cloudnoise trace
convert --help` lists the choices. Non-blocking collectives use their
blocking twin's algorithm.

The engine's generators (`cloudnoise._engine.collective_rank_ops`) are the
ones `cloudnoise schedule generate` uses, rooted at rank 0: a collective
rooted elsewhere is generated on ranks rotated so that its root is 0.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

from cloudnoise import _engine
from cloudnoise.errors import CloudnoiseError

SEND, RECV, CALC = 1, 2, 3

# Ops of one rank: kinds, amounts (bytes, or ps for calc), peers (ranks of
# the collective's communicator), edges (a, b, start).
RankOps = tuple[list[int], list[int], list[int], list[tuple[int, int, int]]]

CHOICES: dict[str, tuple[str, ...]] = {
    "barrier": ("dissemination", "linbarrier"),
    "bcast": ("binomialtreebcast", "binarytreebcast", "pipelinedring"),
    "reduce": ("binomialtreereduce",),
    "allreduce": ("dissemination", "allreduce_recdoub", "allreduce_ring"),
    "gather": ("gather",),
    "scatter": ("scatter",),
    "gatherv": ("linear",),
    "scatterv": ("linear",),
    "allgather": ("ring",),
    "allgatherv": ("ring",),
    "alltoall": ("linear_alltoall",),
    "alltoallv": ("linear",),
    "reduce_scatter": ("ring",),
    "reduce_scatter_block": ("ring",),
    "scan": ("dissemination",),
    "exscan": ("dissemination",),
}
ROOTED = {"bcast", "reduce", "gather", "scatter", "gatherv", "scatterv"}
PIPELINE_SEGMENT = 64 * 1024


def collective_of(name: str) -> str:
    """'MPI_Iallreduce' -> 'allreduce'."""
    base = name[4:].lower() if name.startswith("MPI_") else name.lower()
    if base not in CHOICES and base.startswith("i") and base[1:] in CHOICES:
        base = base[1:]
    return base


@dataclass(frozen=True)
class Algorithms:
    """MPICH's selection, with the user's named algorithm per collective."""

    named: dict[str, str] = field(default_factory=dict)

    def pick(self, coll: str, size: int, ranks: int) -> str:
        if coll in self.named:
            return self.named[coll]
        if coll == "bcast":
            return "binomialtreebcast" if size < 12288 or ranks < 8 else "pipelinedring"
        if coll == "allreduce":
            return "dissemination" if size <= 2048 else "allreduce_recdoub"
        return CHOICES[coll][0]

    def describe(self) -> str:
        if not self.named:
            return "mpich"
        return "mpich," + ",".join(f"{k}={v}" for k, v in sorted(self.named.items()))


def parse_algorithms(text: str | None) -> Algorithms:
    """'mpich' or 'mpich,allreduce=allreduce_ring,bcast=binarytreebcast' (mpich optional)."""
    named: dict[str, str] = {}
    for part in (text or "mpich").split(","):
        part = part.strip()
        if not part or part == "mpich":
            continue
        coll, _, algo = part.partition("=")
        coll, algo = coll.strip().lower(), algo.strip()
        if coll not in CHOICES:
            raise CloudnoiseError(f"--algorithms: unknown collective {coll!r}; choose from {', '.join(CHOICES)}")
        if algo not in CHOICES[coll]:
            raise CloudnoiseError(f"--algorithms: {coll} cannot use {algo!r}; choose from {', '.join(CHOICES[coll])}")
        named[coll] = algo
    return Algorithms(named)


@lru_cache(maxsize=4096)
def _engine_ops(pattern: str, ranks: int, size: int, rank: int) -> RankOps:
    segment = PIPELINE_SEGMENT if pattern == "pipelinedring" else 1
    try:
        kinds, amounts, peers, tags, edges = _engine.collective_rank_ops(pattern, ranks, size, rank, segmentsize=segment)
    except ValueError as err:
        raise CloudnoiseError(f"{pattern} on {ranks} ranks, {size} B: {err}") from None
    if any(tags):
        raise CloudnoiseError(f"internal: {pattern} uses message tags the converter cannot renumber")
    return list(kinds), list(amounts), list(peers), [tuple(e) for e in edges]


def rank_ops(coll: str, algo: str, *, ranks: int, rank: int, root: int, sbytes: int, rbytes: int,
             vec: tuple[int, ...] | None) -> RankOps:
    """The ops of comm rank `rank` in one collective (peers are comm ranks)."""
    if ranks <= 1:
        return [], [], [], []
    if algo in ("ring", "linear"):
        return _vector_ops(coll, ranks=ranks, rank=rank, root=root, sbytes=sbytes, rbytes=rbytes, vec=vec)
    if coll == "barrier":
        size = 0
    elif coll in ("gather",):
        size = rbytes if rank == root else sbytes
    elif coll in ("scatter",):
        size = sbytes if rank == root else rbytes
    else:
        size = max(sbytes, rbytes)
    shift = root if coll in ROOTED and root > 0 else 0
    vrank = (rank - shift) % ranks
    kinds, amounts, peers, edges = _engine_ops(algo, ranks, size, vrank)
    if shift:
        peers = [(p + shift) % ranks for p in peers]
    return kinds, amounts, peers, edges


def _vector_ops(coll: str, *, ranks: int, rank: int, root: int, sbytes: int, rbytes: int,
                vec: tuple[int, ...] | None) -> RankOps:
    kinds: list[int] = []
    amounts: list[int] = []
    peers: list[int] = []
    edges: list[tuple[int, int, int]] = []

    def op(kind: int, amount: int, peer: int) -> int:
        kinds.append(kind)
        amounts.append(int(amount))
        peers.append(peer)
        return len(kinds) - 1

    p = ranks
    if coll in ("allgather", "allgatherv", "reduce_scatter", "reduce_scatter_block"):
        if vec is not None and len(vec) >= p:
            blocks = list(vec[:p])
        else:
            blocks = [rbytes] * p
        nxt, prv = (rank + 1) % p, (rank - 1) % p
        last = -1
        reduce = coll.startswith("reduce")
        for k in range(p - 1):
            sb = blocks[(rank - k - (1 if reduce else 0)) % p]
            rb = blocks[(rank - k - (2 if reduce else 1)) % p]
            s = op(SEND, sb, nxt)
            if last >= 0:
                edges.append((s, last, 0))
            last = op(RECV, rb, prv)
    elif coll == "gatherv":
        if rank == root:
            blocks = list(vec) if vec is not None and len(vec) >= p else [rbytes] * p
            for i in range(p):
                if i != root:
                    op(RECV, blocks[i], i)
        else:
            op(SEND, sbytes, root)
    elif coll == "scatterv":
        if rank == root:
            blocks = list(vec) if vec is not None and len(vec) >= p else [sbytes] * p
            for i in range(p):
                if i != root:
                    op(SEND, blocks[i], i)
        else:
            op(RECV, rbytes, root)
    elif coll == "alltoallv":
        if vec is not None and len(vec) >= 2 * p:
            sv, rv = list(vec[:p]), list(vec[p:2 * p])
        else:
            sv, rv = [sbytes] * p, [rbytes] * p
        for s in range(1, p):
            op(SEND, sv[(rank + s) % p], (rank + s) % p)
            op(RECV, rv[(rank - s) % p], (rank - s) % p)
    else:
        raise CloudnoiseError(f"internal: no vector expansion for {coll}")
    return kinds, amounts, peers, edges
