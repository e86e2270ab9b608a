"""Scale a trace whose ranks do different things by replicating it: an
approximation, labelled so (Schedgen's `--traces-extr`, which the paper's
application study uses).

The N-rank program is N / P copies of the P traced ranks: copy k's rank
k * P + r replays traced rank r call by call, with its recorded compute.
Point-to-point messages stay inside their copy (peers shifted by k * P);
collectives on MPI_COMM_WORLD, and on communicators spanning every traced
rank in world order (e.g. its duplicates), run on all N ranks, so the
copies meet there; any other communicator (a split, a grid, a created
group) is made once per copy, from the copy's ranks. Weak scaling: every
rank keeps the traced message sizes and compute.

Used where the program cannot be extrapolated as a regular SPMD program
(`extrapolate.ExtrapolatedTrace`: ranks whose call sequences or peers
follow no rule, as in a wavefront code such as Sweep3D); N must be a
multiple of P. Memory: one traced rank's call stream at a time.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from cloudnoise.errors import CloudnoiseError
from cloudnoise.trace.events import CommInfo, Call
from cloudnoise.trace.reader import TraceReader

LABEL = ("extrapolated by replication (approximation: copies of the traced ranks, messages inside each copy, "
         "collectives on all ranks, weak scaling, as Schedgen's --traces-extr)")
P2P = ("send", "recv", "isend", "irecv", "send_init", "recv_init", "sendrecv")


class ReplicatedTrace:
    """N / P copies of a P-rank trace (a TraceReader); see the module docstring."""

    format = "extrapolated"
    label = LABEL

    def __init__(self, trace: TraceReader, ranks: int, why: str) -> None:
        p = trace.num_ranks
        if ranks < p or ranks % p:
            raise CloudnoiseError(
                f"{why}; such a trace is scaled by replicating its {p} ranks, so --ranks must be a multiple of {p} "
                f"(e.g. {max(1, ranks // p) * p})"
            )
        self.base = trace
        self.path = Path(trace.path)
        self.num_ranks = ranks
        self.copies = ranks // p
        self.why = why
        self.grid_dims: tuple[int, ...] = ()

    @property
    def warnings(self) -> Sequence[str]:
        return self.base.warnings

    @property
    def records_status(self) -> bool:
        return bool(getattr(self.base, "records_status", False))

    def describe(self) -> dict[str, Any]:
        out = dict(self.base.describe())
        out.update({"format": f"{self.base.format}, {self.format}", "ranks": self.num_ranks,
                    "traced_ranks": self.base.num_ranks, "extrapolation": self.label, "why_replicated": self.why})
        return out

    def unmatched(self, err: Any) -> str:
        """The error for a message the replicated program does not pair (matching.Unmatched)."""
        return (f"{self.path}: replicated to {self.num_ranks} ranks ({self.copies} copies of the traced "
                f"{self.base.num_ranks}): rank {err.rank}, call {err.index}: {err.what}; a copy keeps its messages "
                "inside itself, so the traced ranks do not pair it either: simulate the trace at its own "
                f"{self.base.num_ranks} ranks to see where")

    def calls(self, rank: int) -> Iterator[Call]:
        p = self.base.num_ranks
        copy, base_rank = divmod(rank, p)
        shift = copy * p
        spanning = {0}  # comm ids whose ranks are world ranks (shifted into the copy)
        request_comm: dict[int, int] = {}  # a nonblocking call's request -> the communicator it was posted on
        for c in self.base.calls(base_rank):
            if c.kind in P2P and c.kind not in ("send", "recv", "sendrecv"):
                request_comm[c.request] = c.comm
            if c.kind == "comm_create" and c.comm_info is not None:
                info = self._comm(c.comm_info, rank, shift, copy, spanning)
                c = c.copy()
                c.comm_info = info
            elif c.kind in P2P and c.comm in spanning and shift:
                c = c.copy()
                if c.peer >= 0:
                    c.peer += shift
                if c.kind == "sendrecv" and c.recv_peer >= 0:
                    c.recv_peer += shift
            elif c.kind == "complete" and c.completions and shift:
                # the converter takes the source that arrived, a rank of the request's communicator:
                # shifted into the copy where that communicator spans every traced rank (unknown
                # sources, -1 as liballprof's, and cancelled ones stay as they are)
                done = [(q, s + shift if s >= 0 and request_comm.get(q, 0) in spanning else s, t, b)
                        for q, s, t, b in c.completions]
                c = c.copy()
                c.completions = done
            elif c.kind == "coll" and c.vec is not None and c.comm in spanning and self.copies > 1:
                raise CloudnoiseError(f"{self.path}: rank {base_rank}, call {c.index} ({c.name}): a v-collective on all "
                                      "ranks: its per-rank counts for more ranks are unknown; such a trace cannot be replicated")
            if c.kind in ("recv", "sendrecv") and c.status is not None and c.status[0] >= 0 and c.comm in spanning and shift:
                c.status = (c.status[0] + shift, c.status[1], c.status[2])
            yield c

    def _comm(self, info: CommInfo, rank: int, shift: int, copy: int, spanning: set[int]) -> CommInfo:
        p = self.base.num_ranks
        members = info.members if info.members is not None else tuple(range(info.size))
        if info.size == p and members == tuple(range(p)):
            spanning.add(info.id)
            return CommInfo(info.id, info.key, self.num_ranks, rank)  # spans every copy, as MPI_COMM_WORLD
        return CommInfo(info.id, info.key + ("copy", copy), info.size, info.rank, tuple(m + shift for m in members),
                        info.dims, info.periods)
