"""The communication structure of a trace, rank by rank: how many messages
each rank sends, to how many distinct peers it sends or from how many it
receives, and how many bytes it sends. Compares an extrapolated trace with
the application recorded at that size (`validate --trace --extrapolate-from`,
bench/bench_lammps_structure.py).

Messages are the point-to-point calls' (Send and its modes, Isend, the send
part of a Sendrecv, started persistent sends); MPI_PROC_NULL is no message.
Peers are world ranks (a sub-communicator's ranks mapped through its
members). Collectives are not counted: their messages are the algorithm's
the converter picks, the same for both sides.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Any

from cloudnoise.trace.events import CommInfo, PROC_NULL
from cloudnoise.trace.reader import TraceReader

SENDS = ("send", "isend", "sendrecv")
RECVS = ("recv", "irecv", "sendrecv")


@dataclass(frozen=True)
class RankStructure:
    sends: int
    peers: int
    bytes: int


def rank_structure(trace: TraceReader, rank: int) -> RankStructure:
    comms: dict[int, CommInfo] = {0: CommInfo(0, ("world",), trace.num_ranks, rank)}
    persistent: dict[int, tuple[int, int, int]] = {}  # request -> (comm, peer, bytes) of a send_init
    sends = nbytes = 0
    peers: set[int] = set()

    def world(comm: int, peer: int) -> int | None:
        if peer < 0:
            return None
        info = comms.get(comm)
        return peer if info is None else info.world_rank(peer)

    for c in trace.calls(rank):
        k = c.kind
        if k == "comm_create" and c.comm_info is not None:
            comms[c.comm_info.id] = c.comm_info
        elif k in SENDS and c.peer != PROC_NULL:
            w = world(c.comm, c.peer)
            if w is not None:
                sends += 1
                nbytes += c.bytes
                peers.add(w)
        elif k == "send_init":
            persistent[c.request] = (c.comm, c.peer, c.bytes)
        elif k == "start":
            for req in c.requests or ():
                if req in persistent and persistent[req][1] != PROC_NULL:
                    comm, peer, b = persistent[req]
                    w = world(comm, peer)
                    if w is not None:
                        sends += 1
                        nbytes += b
                        peers.add(w)
        if k in RECVS:
            src = c.recv_peer if k == "sendrecv" else c.peer
            if src != PROC_NULL:
                w = world(c.comm, src)
                if w is not None:
                    peers.add(w)
    return RankStructure(sends, len(peers), nbytes)


def structure(trace: TraceReader) -> list[RankStructure]:
    """Every rank's structure (reads every rank once)."""
    return [rank_structure(trace, r) for r in range(trace.num_ranks)]


def summary(ranks: list[RankStructure]) -> dict[str, dict[str, float]]:
    """Median, min and max over the ranks of sends, peers and bytes."""
    out = {}
    for field in ("sends", "peers", "bytes"):
        values = [getattr(r, field) for r in ranks]
        out[field] = {"median": statistics.median(values), "min": min(values), "max": max(values)}
    return out


def compare(recorded: list[RankStructure], extrapolated: list[RankStructure]) -> dict[str, dict[str, Any]]:
    """Per quantity: both medians and the extrapolation's error relative to the recording's
    (median over ranks; ranks are compared as a distribution: the two programs may lay
    their grids out differently)."""
    a, b = summary(recorded), summary(extrapolated)
    out = {}
    for field in ("sends", "peers", "bytes"):
        ra, rb = a[field]["median"], b[field]["median"]
        out[field] = {"recorded": ra, "extrapolated": rb, "error": (rb - ra) / ra if ra else 0.0,
                      "recorded_range": [a[field]["min"], a[field]["max"]],
                      "extrapolated_range": [b[field]["min"], b[field]["max"]]}
    return out
